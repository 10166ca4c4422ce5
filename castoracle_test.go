package sqe_test

import (
	"strings"
	"testing"

	"github.com/sqe-project/sqe/internal/testdb"
)

// A comparison whose sides have different types makes the server cast one
// side, and a cast can fail on a value (a numeric beyond float8's range, a
// date beyond timestamp's). Evaluated on a row the filter hides, it would
// reveal the row by failing: such a comparison is read only on the rows
// the filter admits.

const castPolicy = fixturePolicy + `  %[1]s.measures:
    access:
      - {name: read, principals: [role:analyst, role:admin], allow: [select, update]}
    row_filters:
      - {name: eu-only, principals: [role:analyst], filter: "region = 'EU'"}
  %[1]s.hidden_names:
    access:
      - {name: read, principals: [role:analyst], allow: [select]}
    row_filters:
      - {name: eu-only, principals: [role:analyst], filter: "region = 'EU'"}
`

func TestImplicitCastIsNoOracle(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, castPolicy)
			if b.name == "postgres" {
				testdb.Exec(t, e.raw,
					"CREATE TABLE measures (id INT PRIMARY KEY, region TEXT, n NUMERIC, f FLOAT8, d DATE, ts TIMESTAMP, i INT, big BIGINT)",
					"INSERT INTO measures SELECT g, 'EU', g, g, DATE '2020-01-01' + g, TIMESTAMP '2020-01-01', g, g FROM generate_series(1, 2000) g",
					// Beyond float8's range, and beyond timestamp's.
					"INSERT INTO measures VALUES (5000, 'US', 1e400, 1, '5874897-12-31', TIMESTAMP '2020-01-01', 1, 1)",
					"ANALYZE measures")
			} else {
				testdb.Exec(t, e.raw,
					"CREATE TABLE measures (id INT PRIMARY KEY, region VARCHAR(8), n DECIMAL(65, 0), f DOUBLE, d DATE, ts DATETIME, i INT, big BIGINT)",
					"INSERT INTO measures WITH RECURSIVE g (v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM g WHERE v < 500) "+
						"SELECT v, 'EU', v, v, DATE '2020-01-01' + INTERVAL v DAY, TIMESTAMP '2020-01-01 00:00:00', v, v FROM g",
					"INSERT INTO measures VALUES (5000, 'US', 99999999999999999999999999999999999999999999999999999999999999999, 1, '9999-12-31', '2020-01-01', 1, 1)",
					"ANALYZE TABLE measures")
			}
			queries := []string{
				"SELECT id FROM measures WHERE n = f ORDER BY id",
				"SELECT id FROM measures m WHERE m.n > m.f ORDER BY id",
				"SELECT id FROM measures WHERE f <> n AND id > 0 ORDER BY id",
				"SELECT id FROM measures WHERE d = ts ORDER BY id",
				"SELECT id FROM measures WHERE d < ts OR id < 0 ORDER BY id",
				"SELECT id FROM measures WHERE n IN (f, 1) ORDER BY id",
				"SELECT id FROM measures WHERE n BETWEEN f AND f ORDER BY id",
				"SELECT a.id FROM measures a JOIN measures b ON a.n = b.f WHERE a.id < 10 ORDER BY a.id",
				"SELECT id FROM measures WHERE i = big AND n = i ORDER BY id",
			}
			if b.name == "postgres" {
				// LIKE fails on a column of a nondeterministic collation
				// the first time the server evaluates it: on a table
				// whose rows the filter all hides, it must never be.
				testdb.Exec(t, e.raw,
					"CREATE COLLATION IF NOT EXISTS sqe_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false)",
					"CREATE TABLE hidden_names (id INT PRIMARY KEY, region TEXT, name TEXT COLLATE sqe_ci)",
					"INSERT INTO hidden_names SELECT g, 'US', 'name' || g FROM generate_series(1, 100) g",
					"ANALYZE hidden_names")
				for _, q := range []string{
					"SELECT id FROM hidden_names WHERE name LIKE 'name1%'",
					"SELECT id FROM hidden_names h WHERE h.name ILIKE 'N%' AND id > 5",
					"SELECT COUNT(*) FROM hidden_names WHERE name SIMILAR TO 'n%'",
					"SELECT id FROM orders WHERE EXISTS (SELECT 1 FROM hidden_names WHERE name LIKE 'x%')",
				} {
					if _, _, err := query(as(analyst), e.db, q); !isRefusal(err) || !strings.Contains(err.Error(), "nondeterministic") {
						t.Errorf("%s: want sqe's refusal, got %v", q, err)
					}
				}
			}
			for _, q := range queries {
				rows, _, err := query(as(analyst), e.db, q)
				if err != nil {
					t.Errorf("%s: %v (a hidden row's value decided the outcome)", q, err)
				}
				for _, r := range rows {
					if r[0] == "5000" {
						t.Errorf("%s: the hidden row came back", q)
					}
				}
			}
		})
	}
}
