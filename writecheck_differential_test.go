package sqe_test

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/internal/testdb"
	"github.com/sqe-project/sqe/session"
)

// checkCase is one check condition on one column, with the values written
// into that column.
type checkCase struct {
	column string
	conds  []string
	values []any
}

func checkDifferentialCases(dialect string) []checkCase {
	ints := []any{int64(5), int64(0), int64(-3), "5", "05", " 5", "5.0", 5.0, 5.5, int64(40000), int64(1) << 40, nil, "abc", true, []byte("7")}
	eu, uk := "EU", "UK"
	strs := []any{"EU", "eu", "EU ", " EU", "Eu", "ÉU", "E", "EUROPEANS", "", nil, int64(5), "UK", []byte("EU"), "é", &eu, &uk, (*string)(nil)}
	cases := []checkCase{
		{"i", []string{"i = 5", "i <> 5", "i > 0", "i BETWEEN 1 AND 10", "i NOT BETWEEN 1 AND 10", "i IN (5, 7)", "i NOT IN (5)",
			"i IS NULL", "i IS NOT NULL", "i = '5'", "NOT (i < 0) AND i <= 5", "i = 5 OR i IS NULL"}, ints},
		{"si", []string{"si = 5", "si < 100", "si >= -3"}, ints},
		{"v", []string{"v = 'EU'", "v <> 'EU'", "v IN ('EU', 'UK')", "v NOT IN ('EU')", "v IS NULL", "v = 'EU' OR v IS NULL",
			"v > 'A'", "v = current_user", "NOT (v = 'UK')", "v = 'É'"}, strs},
		{"c", []string{"c = 'EU'", "c <> 'EU'", "c IN ('EU', 'E')"}, strs},
		{"tx", []string{"tx = 'EU'", "tx <> 'eu'"}, strs},
	}
	if dialect == "postgres" {
		const id = "6f1c2f3e-8f5e-4d7a-9a43-0e6a4c1b2d3f"
		cases = append(cases,
			checkCase{"bo", []string{"bo", "bo IS TRUE", "NOT bo", "bo = false", "bo IS NOT FALSE", "bo IS DISTINCT FROM true"},
				[]any{true, false, nil, "t", int64(1), "true"}},
			checkCase{"u", []string{"u = '" + id + "'", "u <> '" + id + "'::uuid", "u IS NOT DISTINCT FROM '" + id + "'"},
				[]any{id, strings.ToUpper(id), "{" + id + "}", strings.ReplaceAll(id, "-", ""), "00000000-0000-0000-0000-000000000007",
					"not-a-uuid", nil, []byte(id), uuidBytes(id), namedUUID(uuidBytes(id)), uuidBytes("00000000-0000-0000-0000-000000000007")}})
	} else {
		cases = append(cases, checkCase{"bo", []string{"bo = 1", "bo = TRUE", "bo <=> NULL", "bo <> 0"},
			[]any{true, false, int64(1), int64(2), nil, "1"}})
	}
	return cases
}

// TestWriteCheckAgreesWithTheServer writes every value of every case
// through sqe as a user whose filter is the condition, then asks the
// server what the condition says about the stored row. A row sqe let
// through must satisfy the condition on the server; a row sqe refused as
// failing must not; "cannot prove" may be either. On MySQL it runs under
// the server's strict default and under an empty sql_mode, where values
// are truncated and converted instead of refused.
func TestWriteCheckAgreesWithTheServer(t *testing.T) {
	for _, b := range backends() {
		modes := []string{""}
		if b.name == "mysql" {
			modes = append(modes, "sql_mode=%27%27")
		}
		for _, mode := range modes {
			name := b.name
			if mode != "" {
				name += "/non-strict"
			}
			t.Run(name, func(t *testing.T) { checkDifferential(t, b, mode) })
		}
	}
}

func checkDifferential(t *testing.T, b backend, dsnParam string) {
	ddl := "CREATE TABLE checks (id INT PRIMARY KEY, i INT, si SMALLINT, v VARCHAR(8), c CHAR(4), tx TEXT, bo TINYINT(1))"
	if b.name == "postgres" {
		ddl = "CREATE TABLE checks (id INT PRIMARY KEY, i INT, si SMALLINT, v VARCHAR(8), c CHAR(4), tx TEXT, bo BOOLEAN, u UUID)"
	}
	cases := checkDifferentialCases(b.name)
	var pol strings.Builder
	pol.WriteString("version: 1\ndefault: deny\ntables:\n  %[1]s.checks:\n    access:\n      - {principals: [public], allow: [select, update]}\n    row_filters:\n")
	var roles []string
	for _, c := range cases {
		for _, cond := range c.conds {
			role := fmt.Sprintf("r%d", len(roles))
			roles = append(roles, role)
			fmt.Fprintf(&pol, "      - {name: %s, principals: [role:%s], filter: %q}\n", role, role, cond)
		}
	}
	e := newEnv(t, b, pol.String())
	testdb.Exec(t, e.raw, ddl)
	raw, db := e.raw, e.db
	if dsnParam != "" {
		dsn := e.dsn + "&" + dsnParam
		raw = testdb.OpenMySQL(t, dsn)
		var err error
		if db, err = sqe.Open(b.driver, dsn, sqe.WithPolicyFile(e.policy), sqe.WithoutAudit()); err != nil {
			t.Fatal(err)
		}
		defer db.Close()
	}
	ph := []string{"?", "?"}
	if b.name == "postgres" {
		ph = []string{"$1", "$2"}
	}
	id, k := 0, 0
	var passed, failed, unsure, skipped int
	for _, c := range cases {
		for _, cond := range c.conds {
			u := session.User{Name: "EU", Roles: []string{roles[k]}}
			k++
			for _, v := range c.values {
				id++
				ins := fmt.Sprintf("INSERT INTO checks (id, %s) VALUES (%s, %s)", c.column, ph[0], ph[1])
				_, err := db.ExecContext(as(u), ins, id, v)
				verdict := "passed"
				switch {
				case err == nil:
				case errors.Is(err, sqe.ErrCheckViolation) && strings.Contains(err.Error(), "does not satisfy"):
					verdict = "failed"
				case errors.Is(err, sqe.ErrCheckViolation):
					verdict = "unsure"
				default:
					verdict = "server"
				}
				if verdict != "passed" {
					if _, err := raw.Exec(ins, id, v); err != nil {
						if verdict == "failed" {
							failed++ // the server refuses the value too
						} else {
							skipped++
						}
						continue
					}
				}
				serverCond := strings.ReplaceAll(cond, "current_user", "'EU'")
				var truth int
				q := fmt.Sprintf("SELECT CASE WHEN (%s) THEN 1 WHEN NOT (%s) THEN 0 ELSE 2 END FROM checks WHERE id = %s", serverCond, serverCond, ph[0])
				if err := raw.QueryRow(q, id).Scan(&truth); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				switch verdict {
				case "passed":
					passed++
					if truth != 1 {
						t.Errorf("%s: sqe admitted %#v, the server's row does not satisfy it (%d)", cond, v, truth)
					}
				case "failed":
					failed++
					if truth == 1 {
						t.Errorf("%s: sqe refused %#v as failing, the server's row satisfies it", cond, v)
					}
				case "unsure":
					unsure++
				case "server":
					t.Errorf("%s with %#v: sqe returned %v, the server stored the row", cond, v, err)
				}
			}
		}
	}
	t.Logf("%d writes admitted, %d refused as failing, %d undecided, %d the server refuses too", passed, failed, unsure, skipped)
	if passed < 50 || failed < 50 {
		t.Fatalf("too few decided cases (%d admitted, %d failing) for the comparison to mean anything", passed, failed)
	}
}

// namedUUID is a UUID type of an application (as google/uuid's UUID is).
type namedUUID [16]byte

func uuidBytes(s string) [16]byte {
	var b [16]byte
	h, err := hex.DecodeString(strings.ReplaceAll(s, "-", ""))
	if err != nil || len(h) != 16 {
		panic("bad uuid " + s)
	}
	copy(b[:], h)
	return b
}
