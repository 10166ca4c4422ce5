package udf

import (
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/sqe-project/sqe/internal/testdb"
)

// scanRows is the size of the table BenchmarkMaskScan scans.
const scanRows = 1_000_000

// BenchmarkMaskScan compares full scans of 1,000,000 rows computing each
// mask's SQL with the same scans reading the raw column, on each real
// database, in one loop (so both sides see the same machine), and reports
// masked/unmasked time per mask type and column kind. An integer's mask
// is measured twice: on the bare column and on the column named as a read
// form names it (schema, table, column), since the form an integer mask
// takes depends on the length of that name. Run with
//
//	./scripts/bench.sh -benchtime 1x -count 3 -run '^$' -bench MaskScan ./udf/
func BenchmarkMaskScan(b *testing.B) {
	type column struct {
		name, dataType, columnType string
	}
	str := column{"s", "varchar", "varchar(40)"}
	num := column{"i", "int", "int"}
	date := column{"d", "date", "date"}
	masks := []struct {
		typ  string
		args []string
		col  column
	}{
		{TypeMask, nil, str}, {TypeShowLast4, nil, str}, {TypeShowFirst4, nil, str}, {TypeHash, nil, str},
		{TypeNull, nil, str}, {TypeRedact, nil, str}, {TypeShowLastN, []string{"2"}, str}, {TypeFirstN, []string{"4"}, str},
		{TypeMask, nil, num}, {TypeShowLast4, nil, num}, {TypeShowFirst4, nil, num}, {TypeFirstN, []string{"4"}, num},
		{TypeLastN, []string{"4"}, num}, {TypeNull, nil, num},
		{TypeMask, nil, date}, {TypeDateShowYear, nil, date},
	}
	for _, db := range []struct {
		name    string
		dialect Dialect
		open    func(testing.TB) (*sql.DB, string)
		seed    []string
		column  func(string) string
		// qualified names a column of the table in the database.
		qualified func(database, column string) string
	}{
		{"mysql", MySQL, func(tb testing.TB) (*sql.DB, string) {
			dsn, name := testdb.NewMySQLDatabase(tb)
			return testdb.OpenMySQL(tb, dsn), name
		}, []string{
			"CREATE TABLE scan (id INT PRIMARY KEY, s VARCHAR(40), i INT, d DATE)",
			fmt.Sprintf("INSERT INTO scan SELECT seq, CONCAT('Abc-', seq, '-xyZ'), CAST(seq AS SIGNED) * 7 - 3500000, "+
				"DATE_ADD('1900-01-01', INTERVAL seq %% 40000 DAY) FROM seq_1_to_%d", scanRows),
		}, func(c string) string { return "`" + c + "`" },
			func(database, c string) string { return "`" + database + "`.`scan`.`" + c + "`" }},
		{"postgres", Postgres, func(tb testing.TB) (*sql.DB, string) {
			dsn, name := testdb.NewPostgresDatabase(tb)
			return testdb.OpenPostgres(tb, dsn), name
		}, []string{
			"CREATE TABLE scan (id INT PRIMARY KEY, s VARCHAR(40), i INT, d DATE)",
			fmt.Sprintf("INSERT INTO scan SELECT g, 'Abc-' || g || '-xyZ', g * 7 - 3500000, "+
				"DATE '1900-01-01' + (g %% 40000) FROM generate_series(1, %d) g", scanRows),
			"ANALYZE scan",
		}, func(c string) string { return `"` + c + `"` },
			func(_, c string) string { return `"public"."scan"."` + c + `"` }},
	} {
		b.Run(db.name, func(b *testing.B) {
			conn, database := db.open(b)
			testdb.Exec(b, conn, db.seed...)
			testdb.InstallServerMasks(b, conn, string(db.dialect))
			for _, m := range masks {
				// Strings are masked with the classes listed and named
				// (Target.NamedClasses) and by the server's mask function
				// where one computes the mask (Target.ServerMasks),
				// integers named bare and qualified, and qualified through
				// the server's function.
				type variant struct{ named, qualified, server bool }
				variants := []variant{{}}
				switch m.col {
				case str:
					variants = append(variants, variant{named: true})
					if serverMasked(m.typ) {
						variants = append(variants, variant{server: true})
					}
				case num:
					if m.typ != TypeNull {
						variants = append(variants, variant{qualified: true}, variant{qualified: true, server: true})
					}
				case date:
					if m.typ == TypeDateShowYear && db.dialect == Postgres {
						variants = append(variants, variant{server: true}) // MariaDB's dates stay inline
					}
				}
				for _, v := range variants {
					col := db.column(m.col.name)
					if v.qualified {
						col = db.qualified(database, m.col.name)
					}
					expr, err := MaskSQL(Target{Dialect: db.dialect, Column: col, DataType: m.col.dataType,
						ColumnType: m.col.columnType, NamedClasses: v.named, ServerMasks: v.server}, m.typ, m.args, "")
					if err != nil {
						b.Fatal(err)
					}
					masked := "SELECT COUNT(*), MAX(" + expr + ") FROM scan"
					raw := "SELECT COUNT(*), MAX(" + col + ") FROM scan"
					name := m.typ + "/" + kindName(m.col.dataType)
					switch {
					case v.named:
						name += "/named"
					case v.server && v.qualified:
						name += "/qualified/server"
					case v.qualified:
						name += "/qualified"
					case v.server:
						name += "/server"
					}
					b.Run(name, func(b *testing.B) {
						// Untimed, once each: the first scan of a run reads
						// the table into the server's cache, and the first
						// of a statement plans it.
						scan(b, conn, raw)
						scan(b, conn, masked)
						b.ResetTimer()
						var tm, tr time.Duration
						for i := 0; i < b.N; i++ {
							t0 := time.Now()
							scan(b, conn, raw)
							t1 := time.Now()
							scan(b, conn, masked)
							tr += t1.Sub(t0)
							tm += time.Since(t1)
						}
						b.ReportMetric(float64(tr.Milliseconds())/float64(b.N), "unmasked-ms")
						b.ReportMetric(float64(tm.Milliseconds())/float64(b.N), "masked-ms")
						b.ReportMetric(float64(tm)/float64(tr), "masked/unmasked")
					})
				}
			}
		})
	}
}

// serverMasked reports whether a string mask of type typ calls the
// server's mask function under Target.ServerMasks.
func serverMasked(typ string) bool {
	switch typ {
	case TypeMask, TypeShowLast4, TypeShowFirst4, TypeShowFirstN, TypeShowLastN, TypeFirstN, TypeLastN:
		return true
	}
	return false
}

func kindName(dataType string) string { return KindOf(dataType).String() }

func scan(b *testing.B, db *sql.DB, q string) {
	var n int64
	var v sql.NullString
	if err := db.QueryRow(q).Scan(&n, &v); err != nil || n != scanRows {
		b.Fatalf("%.80s: %d rows, %v", q, n, err)
	}
}
