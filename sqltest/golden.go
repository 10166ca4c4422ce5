package sqltest

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/session"
)

// EnvUpdateGolden is the environment variable that, set to 1, makes Golden
// write its files instead of comparing with them (as -update does).
const EnvUpdateGolden = "SQE_UPDATE_GOLDEN"

var update = flag.Bool("update", false, "sqltest: write golden files instead of comparing with them")

// Updating reports whether golden files are being written: the test
// binary runs with -update, or SQE_UPDATE_GOLDEN=1.
func Updating() bool {
	return *update || os.Getenv(EnvUpdateGolden) == "1"
}

// Golden checks how db rewrites each statement for each user against the
// golden file at path (see the package documentation). For each statement
// and user it records the SQL sqe would send (sqe.Explain: nothing is run)
// and the row filters, masks and restrictions of every table, or the error
// the statement is refused with. When the file differs, the test fails
// with a diff; with -update or SQE_UPDATE_GOLDEN=1 the file is written
// (with its directory) instead.
func Golden(t testing.TB, db *sql.DB, users []session.User, statements []string, path string) {
	t.Helper()
	got := Rewrites(context.Background(), db, users, statements)
	if Updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("sqltest: %v", err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatalf("sqltest: %v", err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		t.Fatalf("sqltest: golden file %s does not exist: run the test with -update (or %s=1) to create it", path, EnvUpdateGolden)
	}
	if err != nil {
		t.Fatalf("sqltest: %v", err)
	}
	if string(want) != got {
		t.Errorf("sqltest: the rewrites differ from %s (- file, + now); if the change is intended, run the test with -update (or %s=1) and commit the file:\n%s",
			path, EnvUpdateGolden, diff(string(want), got))
	}
}

// Rewrites returns the text Golden records for the statements and users.
func Rewrites(ctx context.Context, db *sql.DB, users []session.User, statements []string) string {
	var b strings.Builder
	b.WriteString("# sqe rewrites, one block per statement and user (written by sqltest.Golden).\n")
	for _, stmt := range statements {
		fmt.Fprintf(&b, "\n== %s\n", oneLine(stmt))
		for _, u := range users {
			fmt.Fprintf(&b, "-- %s\n", describeUser(u))
			ex, err := sqe.Explain(ctx, db, u, stmt)
			if err != nil {
				fmt.Fprintf(&b, "refused: %s\n", oneLine(err.Error()))
				continue
			}
			fmt.Fprintf(&b, "%s\n", oneLine(ex.SQL))
			for _, tab := range ex.Tables {
				var parts []string
				for _, f := range tab.RowFilters {
					parts = append(parts, fmt.Sprintf("filter %s: %s", f.Policy, oneLine(f.Expr)))
				}
				for _, col := range sortedKeys(tab.Masks) {
					m := tab.Masks[col]
					desc := m.Type
					if len(m.Args) > 0 {
						desc += "(" + strings.Join(m.Args, ", ") + ")"
					}
					if m.Expr != "" {
						desc += " " + oneLine(m.Expr)
					}
					parts = append(parts, fmt.Sprintf("mask %s: %s %s", m.Policy, col, desc))
				}
				for _, col := range sortedKeys(tab.Restricted) {
					parts = append(parts, fmt.Sprintf("restricted %s: %s", tab.Restricted[col], col))
				}
				if len(parts) == 0 {
					continue
				}
				fmt.Fprintf(&b, "   %s: %s\n", tab.Table.Key(), strings.Join(parts, "; "))
			}
		}
	}
	return b.String()
}

func describeUser(u session.User) string {
	s := u.Name
	var attrs []string
	if len(u.Groups) > 0 {
		attrs = append(attrs, "groups "+strings.Join(u.Groups, ","))
	}
	if len(u.Roles) > 0 {
		attrs = append(attrs, "roles "+strings.Join(u.Roles, ","))
	}
	if u.PrimaryRole != "" {
		attrs = append(attrs, "primary "+u.PrimaryRole)
	}
	if len(u.SecondaryRoles) > 0 {
		attrs = append(attrs, "secondary "+strings.Join(u.SecondaryRoles, ","))
	}
	for _, k := range sortedKeys(u.Attributes) {
		attrs = append(attrs, k+"="+u.Attributes[k])
	}
	if len(attrs) > 0 {
		s += " (" + strings.Join(attrs, "; ") + ")"
	}
	return s
}

// oneLine keeps each record on one line, whatever the SQL's layout.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// diff returns a line diff of a and b: unchanged lines start with two
// spaces, removed ones with "- ", added ones with "+ "; runs of unchanged
// lines far from a change are elided.
func diff(a, b string) string {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	// Longest common subsequence, by dynamic programming (the files are
	// small; beyond a bound, show both whole).
	if len(x)*len(y) > 4_000_000 {
		return "--- file\n" + a + "\n+++ now\n" + b
	}
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type line struct {
		op   byte
		text string
	}
	var lines []line
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			lines = append(lines, line{' ', x[i]})
			i, j = i+1, j+1
		case j < len(y) && (i == len(x) || lcs[i][j+1] >= lcs[i+1][j]):
			lines = append(lines, line{'+', y[j]})
			j++
		default:
			lines = append(lines, line{'-', x[i]})
			i++
		}
	}
	const context = 3
	var out strings.Builder
	skipped := false
	for k, l := range lines {
		near := false
		for d := max(0, k-context); d <= min(len(lines)-1, k+context); d++ {
			if lines[d].op != ' ' {
				near = true
				break
			}
		}
		if !near {
			if !skipped {
				out.WriteString("  …\n")
				skipped = true
			}
			continue
		}
		skipped = false
		out.WriteByte(l.op)
		out.WriteByte(' ')
		out.WriteString(l.text)
		out.WriteByte('\n')
	}
	return out.String()
}
