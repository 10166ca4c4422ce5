package mysql

import (
	"errors"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/rewriter"
)

func TestGetDiagnosticsIsRefusedForWhatItReads(t *testing.T) {
	for _, c := range []struct{ sql, reason string }{
		{"GET DIAGNOSTICS @n = NUMBER", "another caller"},
		{"get current diagnostics @n = number, @r = row_count", "another caller"},
		{"GET STACKED DIAGNOSTICS @r = ROW_COUNT", "another caller"},
		{"GET DIAGNOSTICS CONDITION 1 @m = MESSAGE_TEXT, @e = MYSQL_ERRNO", "message"},
		{"GET DIAGNOSTICS CONDITION @i @s = RETURNED_SQLSTATE", "message"},
	} {
		if _, err := read(c.sql, true); err != nil {
			t.Errorf("%s: not read: %v", c.sql, err)
		}
		_, err := rewriteMariaDB(c.sql, nil)
		if !errors.Is(err, rewriter.ErrUnsupported) || !strings.Contains(err.Error(), c.reason) {
			t.Errorf("%s: %v, want a refusal for %q", c.sql, err, c.reason)
		}
	}
	// Not the statement's forms: not read.
	for _, sql := range []string{
		"GET DIAGNOSTICS",
		"GET DIAGNOSTICS @n = MESSAGE_TEXT",
		"GET DIAGNOSTICS CONDITION 1 @n = NUMBER",
		"GET DIAGNOSTICS @@n = NUMBER",
		"GET DIAGNOSTICS @n = NUMBER @r",
		"GET DIAGNOSTICS @n := NUMBER",
		"SELECT 'GET DIAGNOSTICS @n = NUMBER'",
	} {
		if rd, err := read(sql, true); err == nil {
			if _, ok := rd.node.(*diagnosticsStmt); ok {
				t.Errorf("%s: read as GET DIAGNOSTICS", sql)
			}
		}
	}
}
