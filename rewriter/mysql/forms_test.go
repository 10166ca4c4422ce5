package mysql

import (
	"bufio"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/rewriter"
)

// TestMariaDBForms runs the MariaDB statement forms of
// testdata/mariadb_forms.txt through the rewrite of a MariaDB connection
// (every table open) and checks each outcome against the file: rewritten,
// refused by design, or not read by the parser (a syntax error). It
// reports the share of the forms sqe reads; a form that starts or stops
// parsing must change the file with it.
func TestMariaDBForms(t *testing.T) {
	f, err := os.Open("testdata/mariadb_forms.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	counts := map[string]int{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		want, sql, ok := strings.Cut(text, "\t")
		if !ok {
			t.Fatalf("line %d: no tab", line)
		}
		_, err := rewriteMariaDB(sql, nil)
		got := "rewrites"
		switch {
		case !reads(sql):
			got = "gap"
			if err == nil {
				t.Errorf("line %d: %s: rewritten, but the parser does not read it", line, sql)
			}
		case errors.Is(err, rewriter.ErrSyntax):
			t.Errorf("line %d: %s: read, but refused as a syntax error: %v", line, sql, err)
		case err != nil:
			got = "refused"
		}
		counts[got]++
		if got != want {
			t.Errorf("line %d: %s: %s (%v), the file says %s", line, sql, got, err, want)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	total := counts["rewrites"] + counts["refused"] + counts["gap"]
	if total < 100 {
		t.Fatalf("only %d forms", total)
	}
	t.Logf("MariaDB forms: %d, read by sqe %d (%.1f%%: %d rewritten, %d refused by design), not read %d",
		total, total-counts["gap"], 100*float64(total-counts["gap"])/float64(total), counts["rewrites"], counts["refused"], counts["gap"])
}

// reads reports whether sqe reads sql on a MariaDB connection: the
// parser itself, or one of the forms sqe reads around it.
func reads(sql string) bool {
	if set, found, err := readStatementSet(sql); found {
		return err == nil && reads(sql[set.body:])
	}
	_, err := read(sql, true)
	return err == nil
}
