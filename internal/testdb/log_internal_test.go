package testdb

import "testing"

func TestExecutedIn(t *testing.T) {
	for _, c := range []struct {
		log  string
		want bool
	}{
		{"2026-12-02 09:30:33.130 UTC [1] u@d ERROR:  syntax error at or near \"SELEC\"\n2026-12-02 09:30:33.130 UTC [1] u@d STATEMENT:  SELEC needle FROM t\n", false},
		{"2026-12-02 09:30:33.130 UTC [1] u@d ERROR:  syntax error at or near \"'needle'\" at character 4\n", false},
		{"2026-12-02 09:30:33.130 UTC [1] u@d LOG:  statement: SELECT needle FROM t\n", true},
		{"2026-12-02 09:30:33.130 UTC [1] u@d LOG:  execute <unnamed>: SELECT needle\n", true},
		{"\t\t    12 Prepare\tINSERT INTO t VALUES (1) RETURNING needle\n", false},
		{"\t\t    12 Execute\tINSERT INTO t VALUES (1) RETURNING needle\n", true},
		{"\t\t    12 Query\tSELECT needle\n", true},
		{"nothing here\n", false},
	} {
		if got := executedIn(c.log, "needle"); got != c.want {
			t.Errorf("executedIn(%q) = %v, want %v", c.log, got, c.want)
		}
	}
}
