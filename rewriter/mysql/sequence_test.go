package mysql

import (
	"errors"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

func TestSequenceStatementsPrintAsWritten(t *testing.T) {
	for _, c := range []struct{ sql, want string }{
		{"CREATE SEQUENCE s START WITH 1 INCREMENT BY 1", "create sequence `s` start with 1 increment by 1"},
		{"create or replace temporary sequence if not exists shop.s increment = -2 minvalue=1 nomaxvalue start 5 cache 10 nocycle",
			"create or replace temporary sequence if not exists `shop`.`s` increment by -2 minvalue 1 no maxvalue start with 5 cache 10 nocycle"},
		{"CREATE SEQUENCE `select` NO MINVALUE MAXVALUE 9223372036854775806 NOCACHE CYCLE",
			"create sequence `select` no minvalue maxvalue 9223372036854775806 nocache cycle"},
		{"ALTER SEQUENCE s RESTART WITH 10", "alter sequence `s` restart with 10"},
		{"ALTER SEQUENCE IF EXISTS s RESTART", "alter sequence if exists `s` restart"},
		{"alter sequence s restart = 7 nocycle", "alter sequence `s` restart with 7 nocycle"},
		{"DROP SEQUENCE IF EXISTS s", "drop sequence if exists `s`"},
		{"DROP SEQUENCE s, shop.t, `u`", "drop sequence `s`, `shop`.`t`, `u`"},
	} {
		res, err := rewriteMariaDB(c.sql, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if res.SQL != c.want || res.Kind != rewriter.KindDDL {
			t.Errorf("%s:\n got %s %q\nwant %q", c.sql, res.Kind, res.SQL, c.want)
		}
	}
}

func TestSequenceStatementsNeedTheirAccess(t *testing.T) {
	only := func(name string, a ...policy.Access) *policy.Decision {
		d := &policy.Decision{Table: policy.TableName{Schema: "shop", Table: name}, Allowed: map[policy.Access]bool{}}
		for _, x := range a {
			d.Allowed[x] = true
		}
		return d
	}
	dec := map[string]*policy.Decision{
		"shop.made":  only("made", policy.Create),
		"shop.moved": only("moved", policy.Alter),
		"shop.gone":  only("gone", policy.Drop),
		"shop.all":   only("all", policy.Create, policy.Drop),
	}
	for _, c := range []struct {
		sql  string
		want error
	}{
		{"CREATE SEQUENCE made", nil},
		{"CREATE SEQUENCE moved", policy.ErrAccessDenied},
		{"CREATE OR REPLACE SEQUENCE made", policy.ErrAccessDenied}, // drops it first
		{"CREATE OR REPLACE SEQUENCE `all`", nil},
		{"ALTER SEQUENCE moved RESTART", nil},
		{"ALTER SEQUENCE made RESTART", policy.ErrAccessDenied},
		{"DROP SEQUENCE gone", nil},
		{"DROP SEQUENCE IF EXISTS gone, made", policy.ErrAccessDenied},
		// Options that are not the numeric sequence options are refused,
		// naming the sequence.
		{"CREATE SEQUENCE made ENGINE = InnoDB", rewriter.ErrUnsupported},
		{"CREATE SEQUENCE made COMMENT 'x'", rewriter.ErrUnsupported},
		{"CREATE SEQUENCE made AS TINYINT", rewriter.ErrUnsupported},
		{"DROP SEQUENCE gone CASCADE", rewriter.ErrUnsupported},
		{"CREATE SEQUENCE made NO CYCLE", rewriter.ErrUnsupported}, // not MariaDB's: NOCYCLE is
		{"CREATE SEQUENCE made START WITH 99999999999999999999", rewriter.ErrUnsupported},
		{"CREATE SEQUENCE made START WITH 1.5", rewriter.ErrUnsupported},
		{"CREATE SEQUENCE made START WITH (SELECT MAX(id) FROM customers)", rewriter.ErrUnsupported},
		{"ALTER SEQUENCE moved START WITH @v", rewriter.ErrUnsupported},
	} {
		_, err := rewriteMariaDB(c.sql, dec)
		if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.sql, err, c.want)
		}
		var re *rewriter.Error
		if c.want == rewriter.ErrUnsupported && strings.HasPrefix(c.sql, "CREATE SEQUENCE made ") && (!errors.As(err, &re) || re.Table != "shop.made") {
			t.Errorf("%s: %v does not name the sequence", c.sql, err)
		}
	}
}

func TestSequenceStatementsAreNotFoundInsideLiteralsOrOnMySQL(t *testing.T) {
	for _, sql := range []string{
		"CREATE SEQUENCE",
		"CREATE SEQUENCE s start with 1 'x'",
		"DROP TEMPORARY SEQUENCE s",
		"SELECT 'CREATE SEQUENCE s'",
		"CREATE `SEQUENCE` s",
		"CREATE /* SEQUENCE */ s",
		"ALTER SEQUENCE s INCREMENT BY 1, t",
	} {
		if rd, err := read(sql, true); err == nil {
			if seq, ok := rd.node.(*sequenceStmt); ok && seq.unread == "" {
				t.Errorf("%s: read as a sequence statement", sql)
			}
		}
	}
	if _, err := read("CREATE SEQUENCE s", false); err == nil {
		t.Error("CREATE SEQUENCE read on MySQL, which has no sequences")
	}
	// A literal in an option sqe does not read is not echoed in the error.
	_, err := rewriteMariaDB("CREATE SEQUENCE s COMMENT 'secret-value'", nil)
	if err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("%v", err)
	}
}
