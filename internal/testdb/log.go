package testdb

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// LogContains reports whether the file at path (a server statement log)
// contains needle anywhere. It fails the test if the file cannot be read.
func LogContains(t testing.TB, path, needle string) bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("testdb: read log: %v", err)
	}
	return bytes.Contains(b, []byte(needle))
}

// Mark is a position in a log file; its methods look only at what was
// appended after it.
type Mark struct {
	t      testing.TB
	path   string
	offset int64
}

// LogMark returns a Mark at the current end of the log file at path.
func LogMark(t testing.TB, path string) *Mark {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("testdb: log mark: %v", err)
	}
	return &Mark{t: t, path: path, offset: fi.Size()}
}

// Path returns the log file's path.
func (m *Mark) Path() string { return m.path }

// Text returns what was appended to the log after the mark. If the file was
// truncated meanwhile, it returns the whole file.
func (m *Mark) Text() string {
	m.t.Helper()
	f, err := os.Open(m.path)
	if err != nil {
		m.t.Fatalf("testdb: read log: %v", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		m.t.Fatalf("testdb: read log: %v", err)
	}
	off := m.offset
	if fi.Size() < off {
		off = 0
	}
	var sb strings.Builder
	if _, err := io.Copy(&sb, io.NewSectionReader(f, off, fi.Size()-off)); err != nil {
		m.t.Fatalf("testdb: read log: %v", err)
	}
	return sb.String()
}

// Contains reports whether needle was written to the log after the mark.
func (m *Mark) Contains(needle string) bool {
	m.t.Helper()
	return strings.Contains(m.Text(), needle)
}

// WaitFor polls until needle appears after the mark or timeout passes, and
// reports whether it appeared. The servers log a statement before answering
// it, so this is rarely needed; it is there for output a server writes on its
// own time (e.g. after a disconnect).
func (m *Mark) WaitFor(needle string, timeout time.Duration) bool {
	m.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if m.Contains(needle) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Executed reports whether a statement containing needle was run (or
// prepared and then executed) after the mark: a line of the log holds the
// needle and is not the server reporting a statement it rejected while
// parsing it (PostgreSQL's "STATEMENT:" context line of an error,
// MariaDB's "Prepare" line of a statement it was only asked to prepare)
// or its error message (PostgreSQL logs an executed statement before it
// runs, so a statement that ran and failed still counts).
func (m *Mark) Executed(needle string) bool {
	m.t.Helper()
	return executedIn(m.Text(), needle)
}

func executedIn(log, needle string) bool {
	for line := range strings.Lines(log) {
		if strings.Contains(line, needle) && !strings.Contains(line, " STATEMENT:  ") &&
			!strings.Contains(line, " ERROR:  ") && !strings.Contains(line, " Prepare\t") {
			return true
		}
	}
	return false
}
