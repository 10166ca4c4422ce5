package sqe_test

import (
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/session"
)

// The DDL corpus proves that sqe runs a schema change exactly as written or
// not at all: every statement runs through sqe on one database and, unless
// sqe refused it, raw on a twin; after each, the two servers' own view of
// the schema (SHOW CREATE TABLE, the catalogs) must be the same. A
// statement sqe sent in part ("alter table mine" for an ALTER the parser
// read only up to an unknown clause) leaves the twins different.

// ddlPolicy lets the builder create and change the m* tables; the fixture's
// tables stay under their policies.
const ddlPolicy = fixturePolicy + `  %[1]s.m*:
    access:
      - {name: own-tables, principals: [role:builder], allow: [all]}
  "%[1]s.t*":
    access:
      - {name: scratch, principals: [role:builder], allow: [all]}
  pg_temp.m*:
    access:
      - {name: own-temporary-tables, principals: [role:builder], allow: [all]}
`

var builder = session.User{Name: "bob", Roles: []string{"builder"}}

// ddlCase is one statement of the corpus: expect "refuse" (sqe must refuse
// it), "run" (sqe must run it, and so must the server) or "" (either, as
// long as the twins agree).
type ddlCase struct {
	sql    string
	expect string
}

func ddlRun(sql string) ddlCase    { return ddlCase{sql, "run"} }
func ddlRefuse(sql string) ddlCase { return ddlCase{sql, "refuse"} }
func ddlAny(sql string) ddlCase    { return ddlCase{sql, ""} }

var ddlCorpusMySQL = []ddlCase{
	// Tables of every common shape.
	ddlRun("CREATE TABLE m1 (id INT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(40) NOT NULL DEFAULT 'x', q VARCHAR(9) DEFAULT 'it''s', nu INT DEFAULT NULL, created DATETIME DEFAULT CURRENT_TIMESTAMP, KEY k_name (name))"),
	ddlRun("CREATE TABLE m2 (id BIGINT UNSIGNED NOT NULL, m1_id INT, amount DECIMAL(12, 2) DEFAULT 0.00, note TEXT, PRIMARY KEY (id), UNIQUE KEY u_note (note(20)))"),
	ddlRun("CREATE TABLE IF NOT EXISTS m3 (a INT, b INT, c VARCHAR(10), INDEX (a, b))"),
	ddlRun("CREATE TABLE IF NOT EXISTS m3 (z INT)"),
	ddlRun("CREATE TABLE m4 (id INT PRIMARY KEY) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin COMMENT='four'"),
	ddlRun("CREATE TABLE m5 (id INT) ENGINE=MyISAM"),
	ddlRun("CREATE TABLE m6 (id INT, v ENUM('a', 'b') DEFAULT 'a', s SET('x', 'y'), j JSON, d DATE, t TIME(3), y YEAR, f FLOAT, dd DOUBLE, bb BLOB, bi BIT(3))"),
	ddlRun("CREATE TABLE m7 (id INT PRIMARY KEY, m1_id INT, FOREIGN KEY (m1_id) REFERENCES m1 (id) ON DELETE CASCADE)"),
	ddlRun("CREATE TABLE m8 (id INT) AUTO_INCREMENT = 5 ROW_FORMAT = DYNAMIC"),
	ddlRun("CREATE TABLE m9 (id INT) PARTITION BY RANGE (id) (PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN (20))"),
	ddlRun("CREATE TABLE m10 (id INT) PARTITION BY HASH (id) PARTITIONS 3"),
	ddlRun("CREATE TABLE m11 (id INT, n VARCHAR(10)) PARTITION BY LIST (id) (PARTITION a VALUES IN (1, 2), PARTITION b VALUES IN (3))"),
	ddlRun("CREATE TEMPORARY TABLE m12 (id INT)"),
	ddlRun("CREATE TABLE m13 LIKE m1"),
	ddlRun("CREATE TABLE m14 AS SELECT id, name FROM m1"),
	ddlRun("CREATE TABLE m15 (id INT) SELECT id FROM orders"),
	ddlRun("CREATE TABLE m16 (id INT, k INT, KEY (k) COMMENT 'kk') COMMENT 'sixteen'"),
	ddlRun("CREATE TABLE m17 (a INT, b INT AS (a + 1) VIRTUAL, c INT AS (a * 2) STORED)"),
	ddlAny("CREATE TABLE m18 (a INT CHECK (a > 0), b INT, CONSTRAINT ck CHECK (b < 10))"),
	ddlRun("CREATE TABLE m19 (id INT PRIMARY KEY, note VARCHAR(20) COMMENT 'tags: PII') COMMENT 'nineteen'"),
	ddlRun("CREATE TABLE m20 (id INT, body VARCHAR(200), FULLTEXT KEY ft (body))"),
	ddlAny("CREATE TABLE m21 (g GEOMETRY NOT NULL, SPATIAL INDEX (g))"),
	ddlRun("CREATE TABLE m22 (id INT) ENGINE=MEMORY"),
	ddlRun("CREATE TABLE m23 (id INT) ENGINE=Aria"),
	ddlRun("CREATE TABLE m24 (id INT) CHARACTER SET latin1"),
	ddlRun("CREATE TABLE m25 (id INT NOT NULL, v VARCHAR(5) CHARACTER SET ascii COLLATE ascii_bin)"),
	ddlRun("CREATE TABLE m26 (id INT) ENGINE=MyISAM"),

	// Forms the parser reads only in part: sqe must refuse them.
	ddlRefuse("CREATE TABLE m30 (id INT) WITH SYSTEM VERSIONING"),
	ddlRun("CREATE OR REPLACE TABLE m31 (id INT)"),
	ddlRun("CREATE OR REPLACE TABLE m31 (id INT PRIMARY KEY, v INT)"),
	ddlRun("ALTER ONLINE TABLE m31 ADD COLUMN w INT"),
	ddlRun("ALTER IGNORE TABLE m31 ADD UNIQUE KEY u_v (v)"),
	ddlRun("ALTER TABLE m31 ADD COLUMN IF NOT EXISTS x INT"),
	ddlRun("ALTER TABLE m31 ADD COLUMN IF NOT EXISTS x BIGINT, ADD IF NOT EXISTS y INT AFTER id"),
	ddlRun("ALTER TABLE m31 DROP COLUMN IF EXISTS x, DROP IF EXISTS nothere, MODIFY IF EXISTS y BIGINT"),
	ddlRefuse("ALTER TABLE m31 ADD COLUMN IF NOT EXISTS (x2 INT, x3 INT)"),
	ddlRefuse("ALTER TABLE m1 WAIT 5 ADD COLUMN w INT"),
	ddlRefuse("ALTER TABLE m1 NOWAIT ADD COLUMN w INT"),
	ddlRefuse("ALTER TABLE m9 CONVERT PARTITION p0 TO TABLE m31"),
	ddlRefuse("ALTER TABLE m1 ADD SYSTEM VERSIONING"),
	ddlRefuse("CREATE TABLE m32 (id INT) ENGINE=CONNECT TABLE_TYPE=MYSQL CONNECTION='mysql://root@127.0.0.1/mysql/user'"),
	ddlRefuse("CREATE TABLE m33 (a INT CHECK (a > 0), b INT AS (a + 1) VIRTUAL)"),
	ddlRun("ALTER TABLE m31 ADD INDEX IF NOT EXISTS k2 (v), ADD UNIQUE IF NOT EXISTS u_v (v)"),
	ddlRun("ALTER TABLE m31 DROP INDEX IF EXISTS k2, DROP KEY IF EXISTS k3"),
	ddlRun("CREATE SEQUENCE m34"),
	ddlRun("ALTER SEQUENCE m34 RESTART WITH 5 INCREMENT BY 2"),
	ddlRun("CREATE SEQUENCE IF NOT EXISTS m34 START WITH 9"),
	ddlRefuse("CREATE SEQUENCE m34b ENGINE = CONNECT"),
	ddlRefuse("CREATE TRIGGER m35 BEFORE INSERT ON m1 FOR EACH ROW SET NEW.name = 'y'"),
	ddlRefuse("CREATE PROCEDURE m36() SELECT 1"),
	ddlRefuse("CREATE FUNCTION m37() RETURNS INT RETURN 1"),
	ddlRefuse("CREATE EVENT m38 ON SCHEDULE EVERY 1 DAY DO DELETE FROM m1"),

	// Options that reach files, other servers or other tables.
	ddlRefuse("CREATE TABLE m40 (id INT) DATA DIRECTORY = '/tmp'"),
	ddlRefuse("CREATE TABLE m41 (id INT) INDEX DIRECTORY = '/tmp'"),
	ddlRefuse("CREATE TABLE m42 (id INT) ENGINE=FEDERATED CONNECTION='mysql://u@127.0.0.1/db/t'"),
	ddlRefuse("CREATE TABLE m43 (id INT) ENGINE=MRG_MyISAM UNION=(secrets) INSERT_METHOD=LAST"),
	ddlRefuse("CREATE TABLE m44 (id INT) PARTITION BY RANGE (id) (PARTITION p0 VALUES LESS THAN (10) DATA DIRECTORY = '/tmp', PARTITION p1 VALUES LESS THAN MAXVALUE)"),
	ddlRefuse("CREATE TABLE m45 (id INT) ENGINE=BLACKHOLE"),
	ddlRefuse("CREATE TABLE m46 (id INT) ENGINE=CSV"),
	ddlRefuse("CREATE TABLE m47 (id INT) ENCRYPTED=YES"),
	ddlRefuse("CREATE TABLE m48 LIKE customers"),
	ddlRefuse("CREATE TABLE m49 (x INT, FOREIGN KEY (x) REFERENCES customers (salary))"),
	ddlRefuse("CREATE TABLE m50 (x INT REFERENCES customers (id))"),
	ddlRefuse("ALTER TABLE m9 EXCHANGE PARTITION p0 WITH TABLE secrets"),
	ddlRefuse("ALTER TABLE m1 ADD FOREIGN KEY (id) REFERENCES customers (id)"),
	ddlRefuse("ALTER TABLE m5 ENGINE=MRG_MyISAM UNION=(secrets)"),
	ddlRefuse("ALTER TABLE m1 RENAME TO customers_copy"),

	// Table changes on the caller's own tables.
	ddlRun("ALTER TABLE m1 ADD COLUMN w INT"),
	ddlRun("ALTER TABLE m1 ADD COLUMN w2 INT NOT NULL DEFAULT 7 AFTER id"),
	ddlRun("ALTER TABLE m1 ADD COLUMN (w3 INT, w4 VARCHAR(3))"),
	ddlRun("ALTER TABLE m1 MODIFY COLUMN w BIGINT"),
	ddlRun("ALTER TABLE m1 CHANGE COLUMN w3 w5 INT"),
	ddlRun("ALTER TABLE m1 ALTER COLUMN w2 SET DEFAULT 8"),
	ddlRun("ALTER TABLE m1 ALTER COLUMN w2 DROP DEFAULT"),
	ddlRun("ALTER TABLE m1 DROP COLUMN w4"),
	ddlRun("ALTER TABLE m1 RENAME COLUMN w5 TO w6"),
	ddlRun("ALTER TABLE m1 ADD INDEX k_w (w)"),
	ddlRun("ALTER TABLE m1 DROP INDEX k_w"),
	ddlRun("ALTER TABLE m1 ADD UNIQUE KEY u_w6 (w6)"),
	ddlRun("ALTER TABLE m1 RENAME INDEX u_w6 TO u_w7"),
	ddlRun("ALTER TABLE m1 COMMENT = 'one'"),
	ddlRun("ALTER TABLE m1 AUTO_INCREMENT = 100"),
	ddlRun("ALTER TABLE m1 ENGINE = InnoDB"),
	ddlRun("ALTER TABLE m1 CONVERT TO CHARACTER SET utf8mb4"),
	ddlRun("ALTER TABLE m2 ADD CONSTRAINT fk_m1 FOREIGN KEY (m1_id) REFERENCES m1 (id)"),
	ddlRun("ALTER TABLE m2 DROP FOREIGN KEY fk_m1"),
	ddlRun("ALTER TABLE m2 DROP PRIMARY KEY, ADD PRIMARY KEY (id, amount)"),
	ddlRun("ALTER TABLE m3 ADD COLUMN d INT FIRST, ADD KEY (d)"),
	ddlRun("ALTER TABLE m9 ADD PARTITION (PARTITION p2 VALUES LESS THAN (30))"),
	ddlAny("ALTER TABLE m9 DROP PARTITION p2"),
	ddlRun("ALTER TABLE m10 COALESCE PARTITION 1"),
	ddlRun("ALTER TABLE m11 TRUNCATE PARTITION a"),
	ddlRun("ALTER TABLE m11 REMOVE PARTITIONING"),
	ddlRun("ALTER TABLE m13 RENAME TO m13b"),
	ddlRun("ALTER TABLE m16 ALGORITHM = INPLACE, ADD COLUMN z INT"),
	ddlRun("ALTER TABLE m16 ADD COLUMN z2 INT, LOCK = NONE"),
	ddlRun("ALTER TABLE m16 FORCE"),
	ddlRun("CREATE INDEX k_m16 ON m16 (z)"),
	ddlRun("CREATE UNIQUE INDEX u_m16 ON m16 (z2)"),
	ddlRun("DROP INDEX k_m16 ON m16"),
	ddlRun("RENAME TABLE m14 TO m14b"),
	ddlRun("RENAME TABLE m14b TO m14c, m15 TO m15b"),
	ddlRun("ALTER TABLE m5 ENGINE = MRG_MyISAM UNION = (m26) INSERT_METHOD = LAST"),
	ddlRun("TRUNCATE TABLE m16"),
	ddlRun("TRUNCATE m2"),

	// Views over the caller's tables and the fixture's.
	ddlRun("CREATE VIEW mv1 AS SELECT id, name FROM m1"),
	ddlRun("CREATE OR REPLACE VIEW mv1 AS SELECT id FROM m1"),
	ddlRun("ALTER VIEW mv1 AS SELECT id, name FROM m1 WHERE id > 1"),
	ddlRun("CREATE VIEW mv2 (a, b) AS SELECT id, customer_id FROM orders"),
	ddlRun("DROP VIEW mv2"),
	ddlRun("DROP VIEW IF EXISTS mv1, mv9"),

	// Drops.
	ddlRun("DROP TABLE m3"),
	ddlRun("DROP TABLE IF EXISTS m3"),
	ddlRun("DROP TABLE IF EXISTS m13b, m99"),
	ddlRun("DROP TEMPORARY TABLE m12"),
	ddlRun("DROP TABLE m7, m8"),

	// Utility statements: refused unless they are known to change nothing
	// another caller or a policy depends on.
	ddlRefuse("ANALYZE TABLE m1"),
	ddlRefuse("OPTIMIZE TABLE m1"),
	ddlRefuse("REPAIR TABLE m5"),
	ddlRun("CHECK TABLE m1"),
	ddlRun("CHECKSUM TABLE m1"),
	ddlRefuse("CHECKSUM TABLE customers"),
	ddlRefuse("FLUSH TABLES"),
	ddlRefuse("LOCK TABLES m1 WRITE"),
	ddlRefuse("UNLOCK TABLES"),
	ddlRefuse("HANDLER m1 OPEN"),
	ddlRefuse("GRANT SELECT ON m1 TO CURRENT_USER"),
	ddlRefuse("CREATE USER m60"),
	ddlRefuse("CREATE DATABASE m61"),
	ddlRefuse("DROP DATABASE IF EXISTS m62"),
	ddlRefuse("INSTALL PLUGIN m63 SONAME 'x.so'"),
	ddlRefuse("SHOW STATUS"),
	ddlRefuse("SHOW SESSION STATUS LIKE 'Rows_read'"),
	ddlRefuse("SHOW GLOBAL STATUS LIKE 'Handler_read%'"),
	ddlRefuse("SHOW TABLE STATUS FROM mysql"),
	ddlRefuse("SHOW INDEX FROM customers"),
	ddlRefuse("SHOW PROCESSLIST"),
	ddlRefuse("SHOW ENGINE INNODB STATUS"),
	ddlRefuse("SHOW OPEN TABLES"),
	ddlRefuse("SHOW PROFILES"),
	ddlRefuse("SHOW BINLOG EVENTS"),
	ddlRun("SHOW TABLES"),
	ddlRun("SHOW DATABASES"),
	ddlRun("SHOW VARIABLES LIKE 'sql_mode'"),
	ddlRun("SHOW CHARACTER SET LIKE 'utf8mb4'"),
	ddlRun("SHOW COLLATION LIKE 'utf8mb4_bin'"),
	ddlRun("SHOW ENGINES"),
	ddlRun("SHOW COLUMNS FROM m1"),
	ddlRun("SHOW CREATE TABLE m1"),
}

// ddlSignature is the server's own view of the schema's tables and views,
// with what differs between twin databases (the schema's name, counters)
// replaced.
func ddlSignature(t *testing.T, e *env) string {
	t.Helper()
	var out []string
	switch e.name {
	case "mysql":
		rows, _, err := query(as(admin), e.raw, "SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME")
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			what := "TABLE"
			if r[1] == "VIEW" {
				what = "VIEW"
			}
			def, _, err := query(as(admin), e.raw, "SHOW CREATE "+what+" `"+r[0]+"`")
			if err != nil {
				t.Fatalf("SHOW CREATE %s %s: %v", what, r[0], err)
			}
			out = append(out, strings.Join(def[0][:2], "\n"))
		}
	case "postgres":
		rows, _, err := query(as(admin), e.raw, pgSchemaSignature)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			out = append(out, strings.Join(r, " | "))
		}
	}
	sort.Strings(out)
	s := strings.Join(out, "\n")
	s = strings.ReplaceAll(s, e.schema, "{S}")
	return ddlCounters.ReplaceAllString(s, "")
}

var ddlCounters = regexp.MustCompile(` AUTO_INCREMENT=\d+`)

// ddlTwins runs a corpus through sqe on one database and raw on another.
func ddlTwins(t *testing.T, b backend, corpus []ddlCase) {
	viaSQE := newEnv(t, b, ddlPolicy)
	raw := newEnv(t, b, ddlPolicy)
	// One pinned connection each, so that temporary tables and session
	// state live as long as the corpus (on the pool, sqe would discard a
	// connection that holds them before handing it out again).
	ctx := as(builder)
	connS, err := viaSQE.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer connS.Close()
	connR, err := raw.raw.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer connR.Close()
	refused, ran := 0, 0
	for i, c := range corpus {
		var errS, errR error
		var rowsS, rowsR [][]string
		isQuery := strings.HasPrefix(strings.ToUpper(c.sql), "SHOW")
		if isQuery {
			rowsS, _, errS = query(ctx, connS, c.sql)
		} else {
			_, errS = connS.ExecContext(ctx, c.sql)
		}
		if isRefusal(errS) {
			refused++
			if c.expect == "run" {
				t.Errorf("%03d %s: sqe refused it: %v", i, c.sql, errS)
			}
			continue
		}
		if c.expect == "refuse" {
			t.Errorf("%03d %s: sqe let it through (err %v)", i, c.sql, errS)
		}
		ran++
		if isQuery {
			rowsR, _, errR = query(ctx, connR, c.sql)
		} else {
			_, errR = connR.ExecContext(ctx, c.sql)
		}
		if (errS == nil) != (errR == nil) {
			t.Errorf("%03d %s: through sqe %v, raw %v", i, c.sql, errS, errR)
		}
		if c.expect == "run" && errS != nil {
			t.Errorf("%03d %s: %v", i, c.sql, errS)
		}
		if isQuery && errS == nil && errR == nil && !strings.Contains(c.sql, "CREATE") {
			norm := func(rows [][]string, _ *env) string {
				var out []string
				for _, r := range rows {
					s := strings.Join(r, "|")
					s = strings.ReplaceAll(s, viaSQE.schema, "{S}")
					out = append(out, strings.ReplaceAll(s, raw.schema, "{S}"))
				}
				if !strings.Contains(strings.ToUpper(c.sql), "COLUMNS") {
					sort.Strings(out)
				}
				return strings.Join(out, "\n")
			}
			if a, b := norm(rowsS, viaSQE), norm(rowsR, raw); a != b {
				t.Errorf("%03d %s: through sqe %s, raw %s", i, c.sql, a, b)
			}
		}
		if a, b := ddlSignature(t, viaSQE), ddlSignature(t, raw); a != b {
			t.Fatalf("%03d %s: the schema through sqe differs from the schema the statement makes:\n--- through sqe\n%s\n--- raw\n%s", i, c.sql, a, b)
		}
	}
	t.Logf("%s: %d statements, %d refused, %d run and identical to the raw server's", b.name, len(corpus), refused, ran)
}

func TestDDLCorpusRunsAsWrittenOrNotAtAll(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			corpus := map[string][]ddlCase{"mysql": ddlCorpusMySQL, "postgres": ddlCorpusPostgres}[b.name]
			if len(corpus) < 100 {
				t.Fatalf("the %s corpus has %d statements, want at least 100", b.name, len(corpus))
			}
			ddlTwins(t, b, corpus)
		})
	}
}

// The tables a schema change names besides its own are read under their
// policies: none of these may show or move a protected row.
func TestDDLCannotReachAnotherTable(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, ddlPolicy)
			ctx := as(builder)
			for _, q := range ddlAttackSetup[b.name] {
				if _, err := e.db.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			for _, q := range ddlAttacks[b.name] {
				_, err := e.db.ExecContext(ctx, q)
				if !isRefusal(err) {
					t.Errorf("%s: want a refusal, got %v", q, err)
				}
				assertNoCanary(t, analyst, q, nil, err)
			}
			// Nothing of the secrets table reached the caller's tables.
			rows, _, err := query(as(admin), e.raw, "SELECT COUNT(*) FROM secrets")
			if err != nil || rows[0][0] != "1" {
				t.Fatalf("secrets changed: %v %v", rows, err)
			}
		})
	}
}

// ddlAttackSetup are the caller's own tables the attacks start from.
var ddlAttackSetup = map[string][]string{
	"mysql": {
		"CREATE TABLE mx3 (id INT PRIMARY KEY, note VARCHAR(40)) PARTITION BY RANGE (id) (PARTITION p0 VALUES LESS THAN MAXVALUE)",
		"CREATE TABLE mx20 (id INT PRIMARY KEY, name VARCHAR(40), region VARCHAR(8), ssn VARCHAR(11), email VARCHAR(60), salary INT) PARTITION BY RANGE (id) (PARTITION p0 VALUES LESS THAN MAXVALUE)",
	},
	"postgres": {
		"CREATE TABLE mx10 (id INT)",
	},
}

var ddlAttacks = map[string][]string{
	"mysql": {
		"CREATE TABLE mx1 LIKE secrets",
		"CREATE TABLE mx2 LIKE customers",
		"ALTER TABLE mx3 EXCHANGE PARTITION p0 WITH TABLE secrets",
		"ALTER TABLE mx20 EXCHANGE PARTITION p0 WITH TABLE customers WITHOUT VALIDATION",
		"ALTER TABLE mx20 EXCHANGE PARTITION p0 WITH TABLE customers",
		"CREATE TABLE mx4 (id INT, note VARCHAR(40)) ENGINE=MRG_MyISAM UNION=(secrets) INSERT_METHOD=LAST",
		"CREATE TABLE mx5 (x INT, FOREIGN KEY (x) REFERENCES customers (salary))",
		"CREATE TABLE mx6 (x INT, CONSTRAINT f FOREIGN KEY (x) REFERENCES customers (id))",
		"CREATE TABLE mx7 (x INT REFERENCES secrets (id))",
		"ALTER TABLE mx3 ADD CONSTRAINT f2 FOREIGN KEY (id) REFERENCES customers (id)",
		"ALTER TABLE mx3 ENGINE=MRG_MyISAM UNION=(customers)",
		"CREATE TABLE mx8 (id INT) ENGINE=FEDERATED CONNECTION='mysql://sqe@127.0.0.1/sqe/secrets'",
		"RENAME TABLE secrets TO mx9",
		"ALTER TABLE customers RENAME TO mx10",
		"CREATE TABLE mx11 AS SELECT * FROM secrets",
		"CREATE VIEW mx12 AS SELECT note FROM secrets",
	},
	"postgres": {
		"CREATE TABLE mx1 (LIKE secrets)",
		"CREATE TABLE mx2 (LIKE customers INCLUDING ALL)",
		"CREATE TABLE mx3 (x INT REFERENCES customers (id))",
		"CREATE TABLE mx4 (x INT, FOREIGN KEY (x) REFERENCES secrets (id))",
		"CREATE TABLE mx5 () INHERITS (secrets)",
		"CREATE TABLE mx6 PARTITION OF customers FOR VALUES IN ('ZZ')",
		"CREATE TABLE mx7 AS SELECT * FROM secrets",
		"CREATE VIEW mx8 AS SELECT note FROM secrets",
		"ALTER TABLE secrets RENAME TO mx9",
		"ALTER TABLE mx10 ADD FOREIGN KEY (id) REFERENCES customers (id)",
		"ALTER TABLE mx10 INHERIT secrets",
		"ALTER TABLE customers ATTACH PARTITION mx10 FOR VALUES IN ('EU')",
		"CREATE TRIGGER mx11 AFTER INSERT ON customers FOR EACH ROW EXECUTE FUNCTION pg_catalog.now()",
		"CREATE RULE mx12 AS ON SELECT TO mx10 DO INSTEAD SELECT * FROM secrets",
		"CREATE INDEX mx13 ON customers (salary)",
		"COMMENT ON TABLE customers IS 'x'",
		"CREATE STATISTICS mx14 ON id, salary FROM customers",
		"CREATE MATERIALIZED VIEW mx15 AS SELECT * FROM secrets",
		"CREATE POLICY mx16 ON customers USING (true)",
	},
}

var ddlCorpusPostgres = []ddlCase{
	// Tables of every common shape.
	ddlRun("CREATE TABLE m1 (id SERIAL PRIMARY KEY, name VARCHAR(40) NOT NULL DEFAULT 'x', q TEXT DEFAULT 'it''s', created TIMESTAMPTZ DEFAULT now())"),
	ddlRun("CREATE TABLE m2 (id BIGINT NOT NULL, m1_id INT, amount NUMERIC(12, 2) DEFAULT 0, note TEXT, PRIMARY KEY (id), UNIQUE (note))"),
	ddlRun("CREATE TABLE IF NOT EXISTS m3 (a INT, b INT, c VARCHAR(10))"),
	ddlRun("CREATE TABLE IF NOT EXISTS m3 (z INT)"),
	ddlRun("CREATE TABLE m4 (id INT PRIMARY KEY) WITH (fillfactor = 70)"),
	ddlRun("CREATE UNLOGGED TABLE m5 (id INT)"),
	ddlRun("CREATE TABLE m6 (id INT, j JSONB, d DATE, t TIME(3), f REAL, dd DOUBLE PRECISION, b BYTEA, bi BIT(3), arr INT[], u UUID, e BOOLEAN DEFAULT true)"),
	ddlRun("CREATE TABLE m7 (id INT PRIMARY KEY, m1_id INT REFERENCES m1 (id) ON DELETE CASCADE)"),
	// A foreign key to the table itself (GORM's self-referencing models)
	// names the table being created; a temporary table of that name
	// would come first in the server's search, and the key would name it.
	ddlRun("CREATE TABLE m7s (id INT PRIMARY KEY, parent INT REFERENCES m7s (id), CONSTRAINT fk_up FOREIGN KEY (parent) REFERENCES m7s (id))"),
	ddlRefuse("CREATE TABLE m7t (id INT PRIMARY KEY, parent INT REFERENCES customers (id), self INT REFERENCES m7t (id))"),
	ddlRun("CREATE TABLE m8 (id INT GENERATED ALWAYS AS IDENTITY, v INT)"),
	ddlRun("CREATE TABLE m9 (id INT, v TEXT) PARTITION BY RANGE (id)"),
	ddlRun("CREATE TABLE m9a PARTITION OF m9 FOR VALUES FROM (0) TO (10)"),
	ddlRun("CREATE TABLE m9b PARTITION OF m9 FOR VALUES FROM (10) TO (20)"),
	ddlRun("CREATE TABLE m10 (id INT, r TEXT) PARTITION BY LIST (r)"),
	ddlRun("CREATE TABLE m10a PARTITION OF m10 FOR VALUES IN ('a', 'b')"),
	ddlRun("CREATE TABLE m10d PARTITION OF m10 DEFAULT"),
	ddlRun("CREATE TEMPORARY TABLE m12 (id INT)"),
	ddlRun("CREATE TABLE m13 (LIKE m1)"),
	ddlRun("CREATE TABLE m13i (LIKE m1 INCLUDING DEFAULTS INCLUDING CONSTRAINTS)"),
	ddlRun("CREATE TABLE m14 AS SELECT id, name FROM m1"),
	ddlRun("CREATE TABLE m15 AS SELECT id FROM orders WITH NO DATA"),
	ddlRun("CREATE TABLE m17 (a INT, b INT GENERATED ALWAYS AS (a + 1) STORED)"),
	ddlRun("CREATE TABLE m18 (a INT CHECK (a > 0), b INT, CONSTRAINT ck CHECK (b < 10))"),
	ddlRun("CREATE TABLE m19 (id INT PRIMARY KEY, note VARCHAR(20))"),
	ddlRun("CREATE TABLE m20 (id INT, body TEXT, UNIQUE (id, body) DEFERRABLE INITIALLY DEFERRED)"),
	ddlRun("CREATE TABLE m21 (id INT, c TEXT COLLATE \"C\")"),
	ddlRun("CREATE TABLE m22 (id INT) INHERITS (m19)"),
	ddlRun("CREATE TABLE m23 (id INT, EXCLUDE USING btree (id WITH =))"),
	ddlRun("CREATE TABLE m24 (id INT NOT NULL, v INT, PRIMARY KEY (id) INCLUDE (v))"),
	ddlRun("CREATE TABLE m25 (id INT) WITH (autovacuum_enabled = false)"),

	// Forms and options sqe does not take.
	ddlRefuse("CREATE TABLE m30 (id INT) TABLESPACE pg_default"),
	ddlRefuse("CREATE TABLE m31 (LIKE customers)"),
	ddlRefuse("CREATE TABLE m32 (x INT REFERENCES customers (id))"),
	ddlRefuse("CREATE TABLE m33 (x INT, FOREIGN KEY (x) REFERENCES secrets (id))"),
	ddlRefuse("CREATE TABLE m34 () INHERITS (secrets)"),
	ddlRefuse("CREATE TABLE m35 PARTITION OF customers FOR VALUES IN ('ZZ')"),
	ddlRefuse("CREATE TABLE m36 (id INT) USING heap2"),
	ddlRefuse("CREATE TABLE m37 (id INT DEFAULT nextval('m1_id_seq'))"),
	ddlRefuse("CREATE TABLE m38 (id INT DEFAULT current_user)"),
	ddlRefuse("CREATE TABLE m39 (id INT) WITH (toast_tuple_target = 128, oids = true)"),
	ddlRefuse("CREATE TABLE m40 OF m19"),
	ddlRefuse("CREATE FOREIGN TABLE m41 (id INT) SERVER s"),
	ddlRun("CREATE SEQUENCE m42"),
	ddlRun("ALTER SEQUENCE m42 RESTART WITH 3 INCREMENT 2"),
	ddlRefuse("CREATE SEQUENCE m53 OWNED BY m1.id"),
	ddlRefuse("ALTER SEQUENCE m1_id_seq OWNED BY NONE"),
	ddlRefuse("CREATE TRIGGER m43 BEFORE INSERT ON m1 FOR EACH ROW EXECUTE FUNCTION suppress_redundant_updates_trigger()"),
	ddlRefuse("CREATE FUNCTION m44() RETURNS int LANGUAGE sql AS 'SELECT 1'"),
	ddlRefuse("CREATE RULE m45 AS ON INSERT TO m1 DO INSTEAD NOTHING"),
	ddlRefuse("CREATE POLICY m46 ON m1 USING (true)"),
	ddlRefuse("CREATE SCHEMA m47"),
	ddlRefuse("CREATE TYPE m48 AS (a INT)"),
	ddlRefuse("CREATE DOMAIN m49 AS INT"),
	ddlRefuse("CREATE EXTENSION IF NOT EXISTS m50"),
	ddlRefuse("CREATE STATISTICS m51 ON id, name FROM m1"),
	ddlRefuse("CREATE MATERIALIZED VIEW m52 AS SELECT * FROM secrets"),
	ddlRefuse("ALTER TABLE m1 ADD FOREIGN KEY (id) REFERENCES customers (id)"),
	ddlRefuse("ALTER TABLE m3 INHERIT secrets"),
	ddlRefuse("ALTER TABLE customers ATTACH PARTITION m3 FOR VALUES IN ('EU')"),
	ddlRefuse("ALTER TABLE m1 SET TABLESPACE pg_default"),
	ddlRefuse("ALTER TABLE m1 OWNER TO postgres"),
	ddlRefuse("ALTER TABLE m1 ENABLE ROW LEVEL SECURITY"),
	ddlRefuse("ALTER TABLE m1 DISABLE TRIGGER ALL"),
	ddlRefuse("ALTER TABLE m1 SET SCHEMA pg_temp"),
	ddlRefuse("ALTER TABLE m1 ALTER COLUMN name SET DEFAULT current_user"),

	// Table changes on the caller's own tables.
	ddlRun("ALTER TABLE m1 ADD COLUMN w INT"),
	ddlRun("ALTER TABLE m1 ADD COLUMN IF NOT EXISTS w INT"),
	ddlRun("ALTER TABLE m1 ADD COLUMN w2 INT NOT NULL DEFAULT 7"),
	ddlRun("ALTER TABLE m1 ADD COLUMN w3 INT, ADD COLUMN w4 VARCHAR(3)"),
	ddlRun("ALTER TABLE m1 ALTER COLUMN w TYPE BIGINT"),
	ddlRun("ALTER TABLE m1 ALTER COLUMN w2 SET DEFAULT 8"),
	ddlRun("ALTER TABLE m1 ALTER COLUMN w2 DROP DEFAULT"),
	ddlRun("ALTER TABLE m1 ALTER COLUMN w3 SET NOT NULL"),
	ddlRun("ALTER TABLE m1 ALTER COLUMN w3 DROP NOT NULL"),
	ddlRun("ALTER TABLE m1 DROP COLUMN w4"),
	ddlRun("ALTER TABLE m1 DROP COLUMN IF EXISTS w4"),
	ddlRun("ALTER TABLE m1 RENAME COLUMN w3 TO w5"),
	ddlRun("ALTER TABLE m1 ADD CONSTRAINT u_w5 UNIQUE (w5)"),
	ddlAny("ALTER TABLE m1 RENAME CONSTRAINT u_w5 TO u_w6"),
	ddlRun("ALTER TABLE m1 DROP CONSTRAINT u_w5"),
	ddlRun("ALTER TABLE m1 ADD CONSTRAINT ck_w CHECK (w > 0) NOT VALID"),
	ddlRun("ALTER TABLE m1 VALIDATE CONSTRAINT ck_w"),
	ddlRun("ALTER TABLE m1 SET (fillfactor = 80)"),
	ddlRun("ALTER TABLE m1 RESET (fillfactor)"),
	ddlRun("ALTER TABLE m2 ADD CONSTRAINT fk_m1 FOREIGN KEY (m1_id) REFERENCES m1 (id)"),
	ddlRun("ALTER TABLE m2 DROP CONSTRAINT fk_m1"),
	ddlRun("ALTER TABLE IF EXISTS m99 ADD COLUMN x INT"),
	ddlRun("ALTER TABLE m3 ADD COLUMN d INT"),
	ddlRun("ALTER TABLE m9 DETACH PARTITION m9b"),
	ddlRun("ALTER TABLE m9 ATTACH PARTITION m9b FOR VALUES FROM (10) TO (20)"),
	ddlRun("ALTER TABLE m22 NO INHERIT m19"),
	ddlRun("ALTER TABLE m13 RENAME TO m13b"),
	ddlRun("ALTER TABLE m5 SET LOGGED"),
	ddlRun("ALTER TABLE m17 ALTER COLUMN a SET STATISTICS 100"),
	ddlRun("ALTER TABLE m6 ALTER COLUMN j SET STORAGE EXTERNAL"),
	ddlRun("CREATE INDEX m1_name ON m1 (name)"),
	ddlRun("CREATE UNIQUE INDEX IF NOT EXISTS m1_w ON m1 (w) WHERE w > 0"),
	ddlRun("CREATE INDEX m1_lower ON m1 (lower(name))"),
	ddlRun("CREATE INDEX m6_j ON m6 USING gin (j)"),
	ddlRun("ALTER INDEX m1_name RENAME TO m1_name2"),
	ddlRun("ALTER INDEX IF EXISTS m1_name2 RENAME TO m1_name"),
	ddlRun("DROP INDEX m1_name"),
	ddlRun("DROP INDEX IF EXISTS m1_nope"),
	ddlRefuse("DROP INDEX m1_lower CASCADE"),
	ddlRun("DROP SEQUENCE m42"),
	ddlRun("COMMENT ON TABLE m1 IS 'one'"),
	ddlRun("COMMENT ON COLUMN m1.name IS 'tags: PII'"),
	ddlRun("TRUNCATE m15, m5"),
	ddlRun("TRUNCATE TABLE m14 RESTART IDENTITY"),

	// Views.
	ddlRun("CREATE VIEW mv1 AS SELECT id, name FROM m1"),
	ddlRun("CREATE OR REPLACE VIEW mv1 AS SELECT id, name, q FROM m1"),
	ddlRun("CREATE VIEW mv2 (a, b) AS SELECT id, customer_id FROM orders"),
	ddlRun("ALTER VIEW mv2 RENAME TO mv3"),
	ddlRun("DROP VIEW mv3"),
	ddlRun("DROP VIEW IF EXISTS mv1, mv9"),

	// Drops.
	ddlRun("DROP TABLE m3"),
	ddlRun("DROP TABLE IF EXISTS m3"),
	ddlRun("DROP TABLE IF EXISTS m13b, m99"),
	ddlRun("DROP TABLE m12"),
	ddlRun("DROP TABLE m7, m8 CASCADE"),

	// Utility statements.
	// VACUUM and ANALYZE of named tables the builder reads without policy.
	ddlRun("VACUUM m1"),
	ddlRun("ANALYZE m1"),
	ddlRefuse("ANALYZE VERBOSE m1"),
	ddlRefuse("VACUUM"),
	ddlRefuse("CLUSTER m1 USING m1_pkey"),
	ddlRun("REINDEX TABLE m1"),
	ddlRun("REINDEX INDEX m1_pkey"),
	ddlRefuse("REINDEX SCHEMA public"),
	ddlRefuse("LOCK TABLE m1 IN ACCESS EXCLUSIVE MODE"),
	ddlRefuse("CHECKPOINT"),
	ddlRefuse("LISTEN m60"),
	ddlRefuse("LOAD 'x'"),
	ddlRefuse("SET ROLE postgres"),
	ddlRefuse("SET SESSION AUTHORIZATION postgres"),
	ddlAny("RESET ALL"),
	ddlRefuse("DISCARD ALL"),
	ddlRefuse("GRANT SELECT ON m1 TO PUBLIC"),
	ddlRefuse("ALTER DEFAULT PRIVILEGES GRANT SELECT ON TABLES TO PUBLIC"),
	ddlRefuse("SECURITY LABEL ON TABLE m1 IS 'x'"),
	ddlRefuse("REFRESH MATERIALIZED VIEW m52"),
	ddlRefuse("COPY m1 TO STDOUT"),
	ddlRefuse("CREATE DATABASE m61"),
	ddlRefuse("ALTER SYSTEM SET work_mem = '1MB'"),
	ddlRefuse("DO 'BEGIN END'"),
	ddlRun("SHOW search_path"),
	ddlRun("SHOW TimeZone"),
}

// pgSchemaSignature describes every relation of the current schema the way
// the server sees it: columns with types, defaults and generation,
// constraints, indexes, partitioning, inheritance, view bodies, options
// and comments.
const pgSchemaSignature = `SELECT c.relname, c.relkind::text, c.relpersistence::text, coalesce(array_to_string(c.reloptions, ','), ''),
  coalesce((SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
      || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
      || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '')
      || CASE WHEN a.attgenerated <> '' THEN ' generated' ELSE '' END
      || CASE WHEN a.attidentity <> '' THEN ' identity ' || a.attidentity::text ELSE '' END
      || ' stat ' || a.attstattarget::text || ' storage ' || a.attstorage::text
      || coalesce(' comment ' || col_description(c.oid, a.attnum), ''), ', ' ORDER BY a.attnum)
    FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), ''),
  coalesce((SELECT string_agg(conname || ' ' || pg_get_constraintdef(oid) || CASE WHEN convalidated THEN '' ELSE ' not validated' END, ', ' ORDER BY conname)
    FROM pg_constraint WHERE conrelid = c.oid), ''),
  coalesce((SELECT string_agg(pg_get_indexdef(indexrelid), ', ' ORDER BY 1) FROM pg_index WHERE indrelid = c.oid), ''),
  coalesce(pg_get_partkeydef(c.oid), ''), coalesce(pg_get_expr(c.relpartbound, c.oid), ''),
  coalesce((SELECT string_agg(p.relname, ',') FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent WHERE i.inhrelid = c.oid), ''),
  CASE WHEN c.relkind IN ('v', 'm') THEN pg_get_viewdef(c.oid) ELSE '' END,
  coalesce(obj_description(c.oid, 'pg_class'), '')
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = current_schema()
ORDER BY c.relname`
