package udf

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"
)

// rowsPerColumn is how many generated values each scratch column holds;
// every mask case is evaluated over all of them.
const rowsPerColumn = 2000

func openDB(t *testing.T, d Dialect) *sql.Conn {
	t.Helper()
	env, driver := "SQE_MYSQL_DSN", "mysql"
	if d == Postgres {
		env, driver = "SQE_POSTGRES_DSN", "pgx"
	}
	dsn := os.Getenv(env)
	if dsn == "" {
		if os.Getenv("SQE_ALLOW_NO_DB") == "1" {
			t.Skipf("%s is not set and SQE_ALLOW_NO_DB=1", env)
		}
		t.Fatalf("%s is not set: run ./scripts/test.sh (or set %s)", env, env)
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Temporary tables live on one session.
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatalf("connecting with %s: %v", env, err)
	}
	t.Cleanup(func() { conn.Close() })
	if d == MySQL {
		mustExec(t, conn, "SET NAMES utf8mb4")
	}
	return conn
}

func mustExec(t *testing.T, conn *sql.Conn, q string, args ...any) {
	t.Helper()
	if _, err := conn.ExecContext(context.Background(), q, args...); err != nil {
		t.Fatalf("%s: %v", abbrev(q), err)
	}
}

func abbrev(q string) string {
	if len(q) > 300 {
		return q[:300] + "…"
	}
	return q
}

// dbColumn is one scratch column: its DDL, the Target MaskSQL sees, and
// how generated values map to the Go reference's inputs.
type dbColumn struct {
	name       string
	ddl        string
	dataType   string
	columnType string
	kind       Kind
	charLen    int                    // CHAR(n): Hive masks the padded value
	gen        func(r *rand.Rand) any // a value to insert (nil, string, int64, date string)
	goValue    func(v any) any        // the reference input for an inserted value
	bc         bool                   // dates before year 1 (PostgreSQL)
	normalize  func(d Dialect) func(string) string
	collation  string // the column's collation as Target.Collation names it ("" the default)
	zerofill   int    // a ZEROFILL column's width: its raw text (MASK_NONE) is padded to it
}

type maskCase struct {
	typ  string
	args []string
}

func (c maskCase) String() string {
	if len(c.args) == 0 {
		return c.typ
	}
	return c.typ + "(" + strings.Join(c.args, ",") + ")"
}

var stringCases = []maskCase{
	{TypeMask, nil},
	{TypeMask, []string{"U", "l", "#"}},
	{TypeMask, []string{"X", "x", "0", "1"}},
	{TypeMask, []string{"a", "B"}},              // upper and lower swap: a cycle
	{TypeMask, []string{"1", "A", "a", "-1"}},   // upper -> digit -> lower -> upper
	{TypeMask, []string{"b", "A", "-1", "C"}},   // cycle with other replaced
	{TypeMask, []string{"-1", "-1", "-1", "*"}}, // other only
	{TypeMask, []string{"x", "x", "x", "x"}},    // everything
	{TypeMask, []string{`\`, "'", "😀", "é"}},    // backslash, quote, supplementary, non-ASCII
	{TypeMask, []string{"-1", "-1", "-1", "?"}}, // '?' is also what a cut pair becomes
	{TypeMask, []string{"-1", "-1", "-1", "😀"}}, // supplementary other
	{TypeDateShowYear, nil},
	{TypeShowLast4, nil},
	{TypeShowFirst4, nil},
	{TypeShowFirstN, []string{"0"}},
	{TypeShowFirstN, []string{"1"}},
	{TypeShowFirstN, []string{"3", "-1", "-1", "-1", "*"}},
	{TypeShowFirstN, []string{"7", "a", "B", "c", "D"}},
	{TypeShowLastN, []string{"0"}},
	{TypeShowLastN, []string{"2", "-1", "-1", "-1", "#"}},
	{TypeShowLastN, []string{"5", "x", "x", "x", "x"}},
	{TypeShowLastN, []string{"100"}},
	{TypeShowLastN, []string{"300"}},                  // beyond the lookaround bound
	{TypeShowFirstN, []string{"2", "x", "x", "-1"}},   // upper and lower in one pass
	{TypeLastN, []string{"3", "A", "-1", "b"}},        // a replacement in a masked class
	{TypeFirstN, []string{"2", "😀", "x", "-1", "-1"}}, // a supplementary replacement
	{TypeFirstN, []string{"0"}},
	{TypeFirstN, []string{"3"}},
	{TypeFirstN, []string{"4", "-1", "-1", "-1", "*"}},
	{TypeFirstN, []string{"5", "a", "B"}},
	{TypeLastN, []string{"1"}},
	{TypeLastN, []string{"4", "-1", "-1", "-1", "?"}},
	{TypeLastN, []string{"6", "😀", "-1", "'", `\`}},
	{TypeHash, nil},
	{TypeHash, []string{"sha512"}},
	{TypeHash, []string{"md5"}},
	{TypeNull, nil},
	{TypeNone, nil},
	{TypeRedact, nil},
	{TypeRedact, []string{`it's \ redacted`}},
	{TypeRegexpReplace, []string{`[0-9]`, "#"}},
	{TypeRegexpReplace, []string{`\d{3}`, `\`}},
	{TypeRegexpReplace, []string{`^[A-Z]`, "'"}},
	{TypeRegexpReplace, []string{`[a-z]+$`, "$1&"}},
	{TypeRegexpReplace, []string{`.`, "*"}},
	{TypeRegexpReplace, []string{`(?s).`, "*"}},
	{TypeRegexpReplace, []string{`(?i)ab`, "<>"}},
	{TypeRegexpReplace, []string{`\pL+`, "L"}},
	{TypeRegexpReplace, []string{`[^a-z\\]`, "_"}},
	{TypeRegexpReplace, []string{`x*[y\]-]`, "!"}},
	{TypeRegexpReplace, []string{`a.b?c{1,3}`, "()"}},
	{TypeRegexpReplace, []string{`[\x{10000}-\x{10FFFF}]`, "S"}},
}

var integerCases = []maskCase{
	{TypeMask, nil},
	{TypeMask, []string{"-1", "-1", "-1", "-1", "5"}},
	{TypeMask, []string{"-1", "-1", "-1", "-1", "9"}},
	{TypeMask, []string{"-1", "-1", "-1", "-1", "0"}},
	{TypeMask, []string{"-1", "-1", "-1", "-1", "12"}}, // out of range: Hive uses 1
	{TypeDateShowYear, nil},
	{TypeShowLast4, nil},
	{TypeShowFirst4, nil},
	{TypeFirstN, []string{"0"}},
	{TypeFirstN, []string{"2", "-1", "-1", "-1", "-1", "9"}},
	{TypeFirstN, []string{"25", "-1", "-1", "-1", "-1", "7"}},
	{TypeLastN, []string{"0", "-1", "-1", "-1", "-1", "3"}},
	{TypeLastN, []string{"1", "-1", "-1", "-1", "-1", "9"}},
	{TypeLastN, []string{"4"}},
	{TypeShowFirstN, []string{"0", "-1", "-1", "-1", "-1", "5"}},
	{TypeShowFirstN, []string{"1", "-1", "-1", "-1", "-1", "9"}},
	{TypeShowFirstN, []string{"3"}},
	{TypeShowLastN, []string{"0", "-1", "-1", "-1", "-1", "8"}},
	{TypeShowLastN, []string{"2", "-1", "-1", "-1", "-1", "9"}},
	{TypeShowLastN, []string{"25"}},
	{TypeHash, nil},
	{TypeNull, nil},
	{TypeNone, nil},
	{TypeRedact, nil},
	{TypeRedact, []string{"-42"}},
}

var dateCases = []maskCase{
	{TypeMask, nil},
	{TypeDateShowYear, nil},
	{TypeMask, []string{"-1", "-1", "-1", "-1", "-1", "-1", "0", "-1"}},
	{TypeMask, []string{"-1", "-1", "-1", "-1", "-1", "1", "-1", "-1"}},
	{TypeMask, []string{"-1", "-1", "-1", "-1", "-1", "-1", "-1", "0"}},
	{TypeMask, []string{"-1", "-1", "-1", "-1", "-1", "-1", "-1", "2000"}},
	{TypeMask, []string{"-1", "-1", "-1", "-1", "-1", "28", "1", "1999"}},
	{TypeMask, []string{"-1", "-1", "-1", "-1", "-1", "15", "-1", "1"}},
	{TypeMask, []string{"-1", "-1", "-1", "-1", "-1", "31", "11", "-1"}},
	{TypeMask, []string{"-1", "-1", "-1", "-1", "-1", "1", "0", "0"}},  // one date for every row, in year 0
	{TypeMask, []string{"-1", "-1", "-1", "-1", "-1", "29", "1", "0"}}, // 0000-02-29: Hive's, not MariaDB's
	{TypeMask, []string{"-1", "-1", "-1", "-1", "-1", "30", "5", "-1"}},
	{TypeMask, []string{"-1", "-1", "-1", "-1", "-1", "-1", "-1", "-1"}},
	{TypeShowLast4, nil},
	{TypeFirstN, []string{"2", "-1", "-1", "-1", "-1", "-1", "-1", "6", "-1"}},
	{TypeHash, nil},
	{TypeNull, nil},
	{TypeNone, nil},
	{TypeRedact, nil},
	{TypeRedact, []string{"1999-12-31"}},
}

// ---- value generators --------------------------------------------------------

// Ranges of code points the generator draws from: scripts with upper, lower
// and title case, non-ASCII digits, marks, CJK, private use, noncharacters
// (the SQL's own markers), and supplementary letters, digits and emoji.
var bmpPools = [][2]rune{
	{' ', '~'}, {' ', '~'}, {' ', '~'}, {'0', '9'},
	{0xA0, 0xFF}, {0x100, 0x24F}, {0x250, 0x2FF}, {0x300, 0x36F}, {0x370, 0x3FF}, {0x400, 0x52F},
	{0x531, 0x58A}, {0x5D0, 0x5EA}, {0x600, 0x6FF}, {0x900, 0x97F}, {0x9E6, 0x9EF}, {0xE00, 0xE5B},
	{0x10A0, 0x10FF}, {0x1C90, 0x1CBF}, {0x13A0, 0x13FD}, {0x1E00, 0x1FFF}, {0x2000, 0x206F},
	{0x2100, 0x218F}, {0x2C00, 0x2CFF}, {0x4E00, 0x9FFF}, {0xA640, 0xA7FF}, {0xAB70, 0xABBF},
	{0xAC00, 0xD7A3}, {0xE000, 0xE00F}, {0xFDD0, 0xFDEF}, {0xFF00, 0xFFEF}, {0xFFF0, 0xFFFF},
}

var suppPools = [][2]rune{
	{0x10000, 0x1007F}, {0x10400, 0x1044F}, {0x1D400, 0x1D7FF}, {0x1F300, 0x1F6FF},
	{0x20000, 0x2A6DF}, {0xE0001, 0xE007F}, {0x10FFF0, 0x10FFFF},
}

var specialRunes = []rune{'\'', '\'', '"', '`', '\\', '\\', '\t', '\n', '\r', ' ', '%', '_', '?', '$', '&', 0xFFFF, 0xFFFE, 0xFDD0, 0xFDD3}

var specialStrings = []string{
	"", " ", "'", `\`, `''\'`, "a\nb", "TestString-123", "abcd-EFGH-8765-4321", "1234-5678-8765-4321",
	"😀", "😀😀", "ab😀", "😀ab", "a😀b😀c", "𝐀𝐛𝟏", "\uFFFF", "\uFFFF\uFFFE", "😀\uFFFF", "x\uFFFF\uFDD0y",
	"ǅungla", "İstanbul", "ßẞ", "١٢٣", "߀", "Ⅻ",
}

func randRune(r *rand.Rand, supp bool) rune {
	switch x := r.IntN(100); {
	case x < 12:
		return specialRunes[r.IntN(len(specialRunes))]
	case supp && x < 30:
		p := suppPools[r.IntN(len(suppPools))]
		return p[0] + rune(r.IntN(int(p[1]-p[0])+1))
	default:
		p := bmpPools[r.IntN(len(bmpPools))]
		return p[0] + rune(r.IntN(int(p[1]-p[0])+1))
	}
}

func genString(maxLen int, latin1 bool) func(r *rand.Rand) any {
	return func(r *rand.Rand) any {
		x := r.IntN(100)
		switch {
		case x < 4:
			return nil
		case x < 12:
			s := specialStrings[r.IntN(len(specialStrings))]
			if latin1 && !isLatin1(s) || utf8.RuneCountInString(s) > maxLen {
				return ""
			}
			return s
		}
		n := r.IntN(maxLen + 1)
		if x < 40 {
			// ASCII only, control characters included: the masks' fast path.
			var b strings.Builder
			for range n {
				c := rune(1 + r.IntN(0x7F))
				if r.IntN(4) > 0 {
					c = rune(0x20 + r.IntN(0x5F))
				}
				b.WriteRune(c)
			}
			return b.String()
		}
		supp := r.IntN(2) == 0
		var b strings.Builder
		for range n {
			c := randRune(r, supp)
			if latin1 {
				// Latin-1 as MariaDB's latin1 (cp1252) stores it.
				if c = rune(0x20 + r.IntN(0xBF)); c >= 0x7F {
					c += 0x21
				}
			}
			b.WriteRune(c)
		}
		return b.String()
	}
}

func isLatin1(s string) bool {
	for _, c := range s {
		if c > 0xFF {
			return false
		}
	}
	return true
}

func genInt(lo, hi int64) func(r *rand.Rand) any {
	specials := []int64{lo, hi, 0, 1, -1, 9, -9, 10, -10, 99, 100, -100, 127, -128, 12345, lo + 1, hi - 1}
	// Each side of every power of ten: the number of digits changes there.
	for p, k := int64(10), 1; k <= 18; p, k = p*10, k+1 {
		specials = append(specials, p-1, p, -p+1, -p)
	}
	return func(r *rand.Rand) any {
		switch x := r.IntN(100); {
		case x < 3:
			return nil
		case x < 25:
			v := specials[r.IntN(len(specials))]
			if v < lo || v > hi {
				return int64(0)
			}
			return v
		}
		digits := 1 + r.IntN(19)
		v := int64(r.Uint64() % uint64(math.Pow10(min(digits, 18))))
		if digits == 19 {
			v = int64(r.Uint64() >> 1)
		}
		if r.IntN(2) == 0 && lo < 0 {
			v = -v
		}
		span := uint64(hi) - uint64(lo) + 1
		if span != 0 && (v < lo || v > hi) {
			v = lo + int64(uint64(v)%span)
		}
		return v
	}
}

func genDate(bc bool) func(r *rand.Rand) any {
	specials := []string{"0001-01-01", "9999-12-31", "2000-02-29", "1900-02-28", "2016-04-20", "1970-01-01", "2024-02-29", "1600-02-29",
		"0069-12-31", "0070-06-15", "0099-12-31", "0100-01-01"}
	return func(r *rand.Rand) any {
		switch x := r.IntN(100); {
		case x < 3:
			return nil
		case x < 15:
			return specials[r.IntN(len(specials))]
		case bc && x < 20:
			y := r.IntN(500) + 1
			d := time.Date(1-y, time.Month(1+r.IntN(12)), 1+r.IntN(31), 0, 0, 0, 0, time.UTC)
			return fmt.Sprintf("%04d-%02d-%02d BC", 1-d.Year(), int(d.Month()), d.Day())
		}
		d := time.Date(1+r.IntN(9999), time.Month(1+r.IntN(12)), 1+r.IntN(31), 0, 0, 0, 0, time.UTC)
		if d.Year() > 9999 {
			d = d.AddDate(0, 0, -31)
		}
		return d.Format(time.DateOnly)
	}
}

// parseDateValue reads "YYYY-MM-DD" or PostgreSQL's "YYYY-MM-DD BC" (BC
// year n is ISO year 1-n, whose leap years differ from AD year n's).
func parseDateValue(s string) time.Time {
	var y, m, d int
	if _, err := fmt.Sscanf(strings.TrimSuffix(s, " BC"), "%d-%d-%d", &y, &m, &d); err != nil {
		panic(err)
	}
	if strings.HasSuffix(s, " BC") {
		y = 1 - y
	}
	return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
}

// ---- columns -----------------------------------------------------------------

func stringColumn(name, ddl, dataType, columnType string, charLen, maxLen int, latin1 bool) dbColumn {
	return dbColumn{
		name: name, ddl: ddl, dataType: dataType, columnType: columnType, kind: KindString, charLen: charLen,
		gen: genString(maxLen, latin1),
		goValue: func(v any) any {
			s, ok := v.(string)
			if !ok || charLen == 0 {
				return v
			}
			s = strings.TrimRight(s, " ")
			return s + strings.Repeat(" ", max(0, charLen-utf8.RuneCountInString(s)))
		},
		normalize: func(d Dialect) func(string) string {
			if charLen > 0 && d == MySQL {
				// MariaDB hands CHAR values out without trailing blanks.
				return func(s string) string { return strings.TrimRight(s, " ") }
			}
			return func(s string) string { return s }
		},
	}
}

// zerofill is c as a ZEROFILL column of width w.
func zerofill(c dbColumn, w int) dbColumn {
	c.zerofill = w
	return c
}

func intColumn(name, ddl, dataType, columnType string, lo, hi int64, bits int) dbColumn {
	return dbColumn{
		name: name, ddl: ddl, dataType: dataType, columnType: columnType, kind: KindInteger,
		gen: genInt(lo, hi),
		goValue: func(v any) any {
			i, ok := v.(int64)
			if !ok {
				return v
			}
			switch bits {
			case 8:
				return int8(i)
			case 16:
				return int16(i)
			case 32:
				return int32(i)
			}
			return i
		},
	}
}

func dateColumn(bc bool) dbColumn {
	return dbColumn{
		name: "d", ddl: "DATE", dataType: "date", columnType: "date", kind: KindDate, bc: bc,
		gen: genDate(bc),
		goValue: func(v any) any {
			if s, ok := v.(string); ok {
				return parseDateValue(s)
			}
			return v
		},
	}
}

func mysqlColumns() []dbColumn {
	return []dbColumn{
		stringColumn("s_bin", "VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin", "varchar", "varchar(200)", 0, 40, false),
		stringColumn("s_ci", "VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci", "varchar", "varchar(200)", 0, 40, false),
		stringColumn("s_char", "CHAR(12) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci", "char", "char(12)", 12, 12, false),
		stringColumn("s_text", "TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin", "text", "text", 0, 40, false),
		stringColumn("s_latin1", "VARCHAR(100) CHARACTER SET latin1", "varchar", "varchar(100)", 0, 30, true),
		intColumn("i8", "TINYINT", "tinyint", "tinyint(4)", math.MinInt8, math.MaxInt8, 8),
		intColumn("i16", "SMALLINT", "smallint", "smallint(6)", math.MinInt16, math.MaxInt16, 16),
		intColumn("i24", "MEDIUMINT", "mediumint", "mediumint(9)", -1<<23, 1<<23-1, 32),
		intColumn("i32", "INT", "int", "int(11)", math.MinInt32, math.MaxInt32, 32),
		intColumn("i64", "BIGINT", "bigint", "bigint(20)", math.MinInt64, math.MaxInt64, 64),
		intColumn("u8", "TINYINT UNSIGNED", "tinyint", "tinyint(3) unsigned", 0, math.MaxUint8, 16),
		intColumn("u32", "INT UNSIGNED", "int", "int(10) unsigned", 0, math.MaxUint32, 64),
		// The digits of a ZEROFILL column's value are its own, not its padding.
		zerofill(intColumn("z32", "INT(8) UNSIGNED ZEROFILL", "int", "int(8) unsigned zerofill", 0, math.MaxUint32, 64), 8),
		// A name long enough (the longest a table takes) that the ladders
		// per sign pass the size of a mask for some integer masks, which
		// count the digits of the magnitude, where ABS drops the padding.
		zerofill(intColumn("z32_named_long_enough_that_ladders_per_sign_pass_1_kb", "INT(8) UNSIGNED ZEROFILL", "int", "int(8) unsigned zerofill", 0, math.MaxUint32, 64), 8),
		intColumn("i32_named_long_enough_that_ladders_per_sign_pass_1_kb", "INT", "int", "int(11)", math.MinInt32, math.MaxInt32, 32),
		dateColumn(false),
	}
}

func withCollation(c dbColumn, collation string) dbColumn {
	c.collation = collation
	return c
}

func postgresColumns() []dbColumn {
	return []dbColumn{
		stringColumn("s_text", "text", "text", "text", 0, 40, false),
		stringColumn("s_varchar", "varchar(200)", "character varying", "character varying(200)", 0, 40, false),
		withCollation(stringColumn("s_c", `text COLLATE "C"`, "text", "text", 0, 40, false), `"pg_catalog"."C"`),
		withCollation(stringColumn("s_ci", `varchar(200) COLLATE "und-x-icu"`, "character varying", "character varying(200)", 0, 40, false), `"pg_catalog"."und-x-icu"`),
		stringColumn("s_char", "char(12)", "character", "character(12)", 12, 12, false),
		intColumn("i16", "smallint", "smallint", "smallint", math.MinInt16, math.MaxInt16, 16),
		intColumn("i32", "integer", "integer", "integer", math.MinInt32, math.MaxInt32, 32),
		intColumn("i64", "bigint", "bigint", "bigint", math.MinInt64, math.MaxInt64, 64),
		// A name long enough that the ladders per sign pass the size of a
		// mask: the magnitude is compared.
		intColumn("i32_named_for_comparisons", "integer", "integer", "integer", math.MinInt32, math.MaxInt32, 32),
		// A name long enough that an integer's comparisons pass the size
		// of a mask: the rung is looked up in an array, its digits
		// counted, or the digit string.
		intColumn("i32_named_long_enough_that_comparisons_pass_1_kb", "integer", "integer", "integer", math.MinInt32, math.MaxInt32, 32),
		dateColumn(true),
	}
}

func quoteIdent(d Dialect, s string) string {
	if d == MySQL {
		return "`" + s + "`"
	}
	return `"` + s + `"`
}

// formatExpected renders a reference result the way the test reads the
// database's: decimal integers, dates as the server prints them.
func formatExpected(d Dialect, v any) (string, bool) {
	switch v := v.(type) {
	case nil:
		return "", false
	case string:
		return v, true
	case int8, int16, int32, int64:
		return fmt.Sprint(v), true
	case time.Time:
		if d == Postgres && v.Year() <= 0 {
			return fmt.Sprintf("%04d-%02d-%02d BC", 1-v.Year(), int(v.Month()), v.Day()), true
		}
		return fmt.Sprintf("%04d-%02d-%02d", v.Year(), int(v.Month()), v.Day()), true
	}
	panic(fmt.Sprintf("unexpected %T", v))
}

// loadColumn creates a temporary table holding rowsPerColumn generated
// values of the column and returns them by id.
func loadColumn(t *testing.T, conn *sql.Conn, d Dialect, c dbColumn, r *rand.Rand) (table string, values []any) {
	t.Helper()
	table = quoteIdent(d, "udf_"+c.name)
	mustExec(t, conn, "DROP TABLE IF EXISTS "+table)
	mustExec(t, conn, "CREATE TEMPORARY TABLE "+table+" (id INT PRIMARY KEY, v "+c.ddl+")")
	values = make([]any, rowsPerColumn)
	for i := range values {
		values[i] = c.gen(r)
	}
	const batch = 200
	for start := 0; start < len(values); start += batch {
		var q strings.Builder
		q.WriteString("INSERT INTO " + table + " (id, v) VALUES ")
		var args []any
		for i := start; i < min(start+batch, len(values)); i++ {
			if i > start {
				q.WriteString(", ")
			}
			if d == MySQL {
				q.WriteString("(?, ?)")
			} else {
				fmt.Fprintf(&q, "($%d, $%d)", len(args)+1, len(args)+2)
			}
			args = append(args, i, values[i])
		}
		mustExec(t, conn, q.String(), args...)
	}
	return table, values
}

func casesFor(k Kind) []maskCase {
	switch k {
	case KindString:
		return stringCases
	case KindInteger:
		return integerCases
	}
	return dateCases
}

func testDialect(t *testing.T, d Dialect, cols []dbColumn) {
	conn := openDB(t, d)
	installServerMasks(t, conn, d)
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("SQE_UDF_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (set SQE_UDF_SEED to repeat)", seed)
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	// The forms of the integer masks the columns ran (integerForm): each
	// of the dialect's must run on the server.
	seen := map[string]bool{}
	ran := 0
	for _, c := range cols {
		t.Run(c.name, func(t *testing.T) {
			ran++
			table, values := loadColumn(t, conn, d, c, r)
			// Read back what the server stored (CHAR trims, latin1 converts),
			// so the reference sees the same input.
			stored := readColumn(t, conn, d, c, table, quoteIdent(d, "v"))
			for i, v := range values {
				if v != nil && c.kind == KindString && stored[i].Valid {
					values[i] = stored[i].String
				}
			}
			target := Target{Dialect: d, Column: table + "." + quoteIdent(d, "v"), DataType: c.dataType, ColumnType: c.columnType, Collation: c.collation}
			norm := func(s string) string { return s }
			if c.normalize != nil {
				norm = c.normalize(d)
			}
			forms := []Target{target}
			if c.kind == KindString {
				named := target
				named.NamedClasses = true
				forms = append(forms, named)
			}
			if c.kind != KindDate || d == Postgres {
				server := target
				server.ServerMasks = true
				forms = append(forms, server)
			}
			for _, form := range forms {
				classes := "explicit classes"
				switch {
				case form.NamedClasses:
					classes = "named classes"
				case form.ServerMasks:
					classes = "server masks"
				}
				for _, mc := range casesFor(c.kind) {
					expr, err := MaskSQL(form, mc.typ, mc.args, "")
					if err != nil {
						t.Errorf("%s: MaskSQL: %v", mc, err)
						continue
					}
					if c.kind == KindInteger && !form.ServerMasks {
						seen[integerForm(form.Column, expr)] = true
					}
					want := make([]sql.NullString, len(values))
					for i, v := range values {
						in := c.goValue(v)
						res, err := Apply(mc.typ, mc.args, "", in)
						if err != nil {
							t.Fatalf("%s: Apply(%q): %v", mc, in, err)
						}
						if d == MySQL && isYearZeroLeapDay(res) {
							// Pinned divergence: MariaDB's calendar has no
							// 0000-02-29 (its year 0 is not a leap year).
							res = nil
						}
						ws, wok := formatExpected(d, res)
						if wok {
							ws = norm(ws)
						}
						if wok && mc.typ == TypeNone && len(ws) < c.zerofill {
							ws = strings.Repeat("0", c.zerofill-len(ws)) + ws
						}
						want[i] = sql.NullString{String: ws, Valid: wok}
					}
					// The expression as emitted, under the server settings that
					// change what literals and regexps mean …
					setHostile(t, conn, d, true)
					check(t, mc, c, classes+", hostile session", expr, values, readColumn(t, conn, d, c, table, expr), want)
					setHostile(t, conn, d, false)
					// … and as the rewriter's parser formats it.
					re, err := reformat(d, expr)
					if err != nil {
						t.Errorf("%s: reformat: %v", mc, err)
						continue
					}
					check(t, mc, c, classes+", reformatted", re, values, readColumn(t, conn, d, c, table, re), want)
					if d == Postgres && c.kind == KindString {
						checkSameCollation(t, conn, mc, table, expr)
					}
				}
			}
		})
	}
	if ran < len(cols) {
		return // some columns filtered out
	}
	want := []string{"signed, by comparison", "signed, by count", "magnitude, by count", "digit string"}
	if d == Postgres {
		want = []string{"signed, by comparison", "bucket", "magnitude, by comparison", "magnitude, by count", "digit string"}
	}
	for _, f := range want {
		if !seen[f] {
			t.Errorf("no integer mask of the columns took the form %q: add a column or a mask that does", f)
		}
	}
}

// integerForm names the form maskIntegerByDigits or maskInteger gave expr,
// an integer mask of col; "" for another mask.
func integerForm(col, expr string) string {
	count := strings.Contains(expr, "CHAR_LENGTH(") || strings.Contains(expr, "length(CAST(")
	by := ", by comparison"
	if count {
		by = ", by count"
	}
	switch {
	case strings.Contains(expr, "REPEAT("):
		return "digit string"
	case strings.Contains(expr, "[width_bucket("+col+", "):
		return "bucket"
	case strings.Contains(expr, "CASE WHEN "+col+" >= 0 THEN "):
		return "signed" + by
	case strings.Contains(expr, " ELSE SIGN("+col+") * "), strings.Contains(expr, " ELSE (CASE WHEN "+col+" < 0 THEN -1 WHEN "+col+" > 0 THEN 1 END) * "):
		return "magnitude" + by
	}
	return ""
}

// TestClassProbeMariaDB checks that the test server's regular expressions
// classify the BMP as Go's tables do (the named-class masks that
// TestMaskSQLMariaDB checks rely on it) and that the probe tells a
// classification that differs in one character.
func TestClassProbeMariaDB(t *testing.T) {
	conn := openDB(t, MySQL)
	query, want, ok := ClassProbe(MySQL)
	if !ok {
		t.Fatal("no probe for MySQL")
	}
	var got string
	if err := conn.QueryRowContext(context.Background(), query).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != want {
		var version string
		_ = conn.QueryRowContext(context.Background(), "SELECT VERSION()").Scan(&version)
		t.Fatalf("server %s classifies the BMP unlike Go's tables: probe %q, want %q", version, got, want)
	}
	// One character more in Lu (U+00AA is Lo): the answer must change.
	tampered := strings.Replace(query, "CONCAT(ch REGEXP", "CONCAT(ch = "+myText("CHAR(170 USING utf32)")+" OR ch REGEXP", 1)
	if tampered == query {
		t.Fatal("probe query has an unexpected form")
	}
	if err := conn.QueryRowContext(context.Background(), tampered).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got == want {
		t.Errorf("the probe does not tell a classification that differs in U+00AA")
	}
}

// TestClassProbePostgres checks that the test server classifies the BMP
// under its ICU root collation as Go's tables do (the named-class masks
// that TestMaskSQLPostgres checks rely on it), that the probe tells a
// classification that differs in one character, and that the probe reads
// the classes under that collation whatever the database's own.
func TestClassProbePostgres(t *testing.T) {
	conn := openDB(t, Postgres)
	query, want, ok := ClassProbe(Postgres)
	if !ok {
		t.Fatal("no probe for PostgreSQL")
	}
	var got string
	if err := conn.QueryRowContext(context.Background(), query).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != want {
		var version string
		_ = conn.QueryRowContext(context.Background(), "SELECT version()").Scan(&version)
		t.Fatalf("server %s classifies the BMP unlike Go's tables: probe %q, want %q", version, got, want)
	}
	for _, tamper := range []struct{ from, to string }{
		// One character more in Lu (U+00AA is Lo).
		{"CASE WHEN ch ~", "CASE WHEN cp = 170 OR ch ~"},
		// The classes read under the C collation: ASCII only.
		{icuRoot, `pg_catalog."C"`},
	} {
		tampered := strings.Replace(query, tamper.from, tamper.to, 1)
		if tampered == query {
			t.Fatalf("probe query has an unexpected form (no %q)", tamper.from)
		}
		if err := conn.QueryRowContext(context.Background(), tampered).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got == want {
			t.Errorf("the probe does not tell a change of %q to %q", tamper.from, tamper.to)
		}
	}
}

// checkSameCollation checks that a masked PostgreSQL string has the
// column's own collation (named classes read the value under ICU's root
// collation and must hand it back; a digest, a constant or a NULL has the
// default one unless given it), so that it sorts as the column does.
func checkSameCollation(t *testing.T, conn *sql.Conn, mc maskCase, table, expr string) {
	t.Helper()
	var raw, masked string
	q := "SELECT pg_collation_for(v)::text, pg_collation_for(" + expr + ")::text FROM " + table + " LIMIT 1"
	if err := conn.QueryRowContext(context.Background(), q).Scan(&raw, &masked); err != nil {
		t.Fatalf("%s: %v", abbrev(q), err)
	}
	if masked != raw {
		t.Errorf("%s on %s: masked value's collation %s, the column's %s", mc, table, masked, raw)
	}
}

func check(t *testing.T, mc maskCase, c dbColumn, how, expr string, values []any, got, want []sql.NullString) {
	t.Helper()
	bad := 0
	for i := range values {
		if got[i] != want[i] {
			if bad++; bad <= 5 {
				t.Errorf("%s on %s (%s) value %+q: database %s, reference %s", mc, c.ddl, how, c.goValue(values[i]), showNull(got[i]), showNull(want[i]))
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s on %s (%s): %d of %d values differ; SQL: %s", mc, c.ddl, how, bad, len(values), abbrev(expr))
	}
}

func isYearZeroLeapDay(v any) bool {
	d, ok := v.(time.Time)
	return ok && d.Year() == 0 && d.Month() == time.February && d.Day() == 29
}

// setHostile switches the session to settings under which a literal or a
// regexp written carelessly would change meaning (backslash escapes off or
// on, double quotes as identifiers, || as concatenation, every PCRE option
// on), or back to the defaults.
func setHostile(t *testing.T, conn *sql.Conn, d Dialect, on bool) {
	t.Helper()
	switch {
	case d == MySQL && on:
		mustExec(t, conn, "SET SESSION sql_mode = 'ORACLE,NO_BACKSLASH_ESCAPES,STRICT_ALL_TABLES,NO_ZERO_IN_DATE'")
		mustExec(t, conn, "SET SESSION default_regex_flags = 'DOTALL,DUPNAMES,EXTENDED,EXTENDED_MORE,EXTRA,MULTILINE'")
	case d == MySQL:
		mustExec(t, conn, "SET SESSION sql_mode = DEFAULT")
		mustExec(t, conn, "SET SESSION default_regex_flags = DEFAULT")
	case on:
		mustExec(t, conn, "SET standard_conforming_strings = off")
		mustExec(t, conn, "SET escape_string_warning = off")
	default:
		mustExec(t, conn, "RESET standard_conforming_strings")
		mustExec(t, conn, "RESET escape_string_warning")
	}
}

func showNull(s sql.NullString) string {
	if !s.Valid {
		return "NULL"
	}
	return strconv.Quote(s.String)
}

// readColumn evaluates expr for every row, as text, ordered by id.
func readColumn(t *testing.T, conn *sql.Conn, d Dialect, c dbColumn, table, expr string) []sql.NullString {
	t.Helper()
	if c.kind == KindDate || c.kind == KindInteger {
		if d == MySQL {
			expr = "CAST(" + expr + " AS CHAR)"
		} else {
			expr = "CAST(" + expr + " AS text)"
		}
	}
	q := "SELECT id, " + expr + " FROM " + table + " ORDER BY id"
	rows, err := conn.QueryContext(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", abbrev(q), err)
	}
	defer rows.Close()
	out := make([]sql.NullString, rowsPerColumn)
	n := 0
	for rows.Next() {
		var id int
		var v sql.NullString
		if err := rows.Scan(&id, &v); err != nil {
			t.Fatal(err)
		}
		out[id] = v
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", abbrev(q), err)
	}
	if n != rowsPerColumn {
		t.Fatalf("read %d rows, want %d", n, rowsPerColumn)
	}
	return out
}

func TestMaskSQLMariaDB(t *testing.T) {
	testDialect(t, MySQL, mysqlColumns())
}

func TestMaskSQLPostgres(t *testing.T) {
	testDialect(t, Postgres, postgresColumns())
}

// TestMaskSQLMariaDBCollation checks that masked strings carry an explicit
// binary collation, so they compare with raw columns of other collations
// (an implicit mismatch would be "Illegal mix of collations").
func TestMaskSQLMariaDBCollation(t *testing.T) {
	conn := openDB(t, MySQL)
	installServerMasks(t, conn, MySQL)
	mustExec(t, conn, "DROP TABLE IF EXISTS udf_coll")
	mustExec(t, conn, "CREATE TEMPORARY TABLE udf_coll (u VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci, g VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci, l VARCHAR(20) CHARACTER SET latin1, c CHAR(8) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci)")
	mustExec(t, conn, "INSERT INTO udf_coll VALUES ('Abc-12', 'Abc-12', 'Abc-12', 'Abc-12')")
	for _, col := range []string{"u", "g", "l", "c"} {
		dt, ct := "varchar", "varchar(20)"
		if col == "c" {
			dt, ct = "char", "char(8)"
		}
		for _, mc := range stringCases {
			if mc.typ == TypeNone {
				continue // the raw column compares as the schema allows
			}
			for _, server := range []bool{false, true} {
				expr, err := MaskSQL(Target{Dialect: MySQL, Column: "`m`.`" + col + "`", DataType: dt, ColumnType: ct, ServerMasks: server}, mc.typ, mc.args, "")
				if err != nil {
					t.Fatal(err)
				}
				for _, other := range []string{"u", "g", "l", "c"} {
					q := "SELECT COUNT(*) FROM udf_coll m JOIN (SELECT " + other + " AS o FROM udf_coll) r ON " + expr + " = r.o OR r.o = " + expr
					var n int
					if err := conn.QueryRowContext(context.Background(), q).Scan(&n); err != nil {
						t.Errorf("%s on %s (server masks %v) compared with %s: %v", mc, col, server, other, err)
					}
				}
			}
		}
	}
}

// TestRegexpReplaceRandomPatterns checks the portable REGEXP_REPLACE
// grammar: random patterns over a small alphabet, applied on both servers
// to strings dense in matches, must replace exactly what Go replaces.
func TestRegexpReplaceRandomPatterns(t *testing.T) {
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	atoms := []string{"a", "b", "c", "[ab]", "[^a]", ".", `\n`, "[a-c]", "(?i)a", "(?s).", `\.`, " "}
	quants := []string{"", "", "?", "*", "+", "{2}", "{0,2}", "{1,3}", "{2,}"}
	var patterns []string
	for len(patterns) < 40 {
		var p strings.Builder
		if r.IntN(5) == 0 {
			p.WriteString("^")
		}
		for range 1 + r.IntN(4) {
			p.WriteString(atoms[r.IntN(len(atoms))] + quants[r.IntN(len(quants))])
		}
		if r.IntN(5) == 0 {
			p.WriteString("$")
		}
		if ValidateMask(TypeRegexpReplace, []string{p.String(), "#"}, "") == nil {
			patterns = append(patterns, p.String())
		}
	}
	values := make([]string, 400)
	for i := range values {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteByte("aaabbc.\nA "[r.IntN(10)])
		}
		values[i] = b.String()
	}
	for _, d := range []Dialect{MySQL, Postgres} {
		t.Run(string(d), func(t *testing.T) {
			conn := openDB(t, d)
			table := quoteIdent(d, "udf_re")
			mustExec(t, conn, "DROP TABLE IF EXISTS "+table)
			ddl := "TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci"
			if d == Postgres {
				ddl = "text"
			}
			mustExec(t, conn, "CREATE TEMPORARY TABLE "+table+" (id INT PRIMARY KEY, v "+ddl+")")
			for i, v := range values {
				q := "INSERT INTO " + table + " VALUES (?, ?)"
				if d == Postgres {
					q = "INSERT INTO " + table + " VALUES ($1, $2)"
				}
				mustExec(t, conn, q, i, v)
			}
			target := Target{Dialect: d, Column: table + "." + quoteIdent(d, "v"), DataType: "text", ColumnType: "text"}
			for _, p := range patterns {
				args := []string{p, "#"}
				expr, err := MaskSQL(target, TypeRegexpReplace, args, "")
				if err != nil {
					t.Fatal(err)
				}
				rows, err := conn.QueryContext(context.Background(), "SELECT id, "+expr+" FROM "+table+" ORDER BY id")
				if err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				bad := 0
				for rows.Next() {
					var id int
					var got string
					if err := rows.Scan(&id, &got); err != nil {
						t.Fatal(err)
					}
					want, _ := Apply(TypeRegexpReplace, args, "", values[id])
					if got != want {
						if bad++; bad <= 3 {
							t.Errorf("pattern %q on %q: database %q, Go %q", p, values[id], got, want)
						}
					}
				}
				rows.Close()
			}
		})
	}
}

// TestMaskSQLServerOnlyValues pins what the masks do with values the Go
// reference cannot hold: PostgreSQL's infinite dates, MariaDB's zero dates,
// and PostgreSQL text under a nondeterministic collation.
func TestMaskSQLServerOnlyValues(t *testing.T) {
	t.Run("postgres", func(t *testing.T) {
		conn := openDB(t, Postgres)
		mustExec(t, conn, `DROP TABLE IF EXISTS udf_inf`)
		mustExec(t, conn, `CREATE TEMPORARY TABLE udf_inf (v date)`)
		mustExec(t, conn, `INSERT INTO udf_inf VALUES ('infinity'), ('-infinity')`)
		target := Target{Dialect: Postgres, Column: `udf_inf.v`, DataType: "date", ColumnType: "date"}
		for _, mc := range []maskCase{{TypeMask, nil}, {TypeDateShowYear, nil}, {TypeShowLast4, nil}, {TypeMask, []string{"", "", "", "", "", "-1", "-1", "-1"}}} {
			expr, err := MaskSQL(target, mc.typ, mc.args, "")
			if err != nil {
				t.Fatal(err)
			}
			var n int
			if err := conn.QueryRowContext(context.Background(), "SELECT COUNT(*) FROM udf_inf WHERE "+expr+" IS NULL").Scan(&n); err != nil || n != 2 {
				t.Errorf("%s on ±infinity: %d NULLs, %v; want 2", mc, n, err)
			}
		}
		// The parts of a date are read through a timestamp where one can
		// hold the date (4714-11-24 BC to 294276 AD) and by EXTRACT past
		// it: both ends of that range and the dates past it keep their
		// year (and the parts the mask keeps).
		mustExec(t, conn, `DROP TABLE IF EXISTS udf_far`)
		mustExec(t, conn, `CREATE TEMPORARY TABLE udf_far (v date)`)
		far := []string{"4714-11-24 BC", "4714-12-31 BC", "0001-12-31 BC", "294276-12-31", "294277-01-01", "294277-03-09", "100000-02-29", "5874897-12-31"}
		for _, v := range far {
			mustExec(t, conn, `INSERT INTO udf_far VALUES ('`+v+`')`)
		}
		printDate := func(d time.Time) string {
			if d.Year() < 1 {
				return fmt.Sprintf("%04d-%02d-%02d BC", 1-d.Year(), int(d.Month()), d.Day())
			}
			return fmt.Sprintf("%04d-%02d-%02d", d.Year(), int(d.Month()), d.Day())
		}
		target = Target{Dialect: Postgres, Column: `udf_far.v`, DataType: "date", ColumnType: "date"}
		for _, mc := range []struct {
			maskCase
			day   int
			month time.Month
		}{
			{maskCase{TypeDateShowYear, nil}, 1, time.January},
			{maskCase{TypeMask, []string{"-1", "-1", "-1", "-1", "-1", "15", "-1", "-1"}}, 15, 0},
			{maskCase{TypeMask, []string{"-1", "-1", "-1", "-1", "-1", "-1", "-1", "-1"}}, 0, 0},
		} {
			expr, err := MaskSQL(target, mc.typ, mc.args, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range far {
				d := parseDateValue(v)
				month, day := d.Month(), d.Day()
				if mc.month != 0 {
					month = mc.month
				}
				if mc.day != 0 {
					day = mc.day
				}
				masked := time.Date(d.Year(), month, day, 0, 0, 0, 0, time.UTC)
				want := printDate(masked)
				var got string
				err := conn.QueryRowContext(context.Background(), "SELECT CAST("+expr+" AS text) FROM udf_far WHERE v = '"+v+"'").Scan(&got)
				if masked.Before(parseDateValue("4714-11-24 BC")) {
					// Hive's result is before PostgreSQL's first date: the
					// statement fails, on either path, rather than give
					// another date.
					if err == nil || !strings.Contains(err.Error(), "date out of range") {
						t.Errorf("%s on %s: %q, %v; want PostgreSQL's date out of range", mc.maskCase, v, got, err)
					}
					continue
				}
				if err != nil || got != want {
					t.Errorf("%s on %s: %q, %v; want %q", mc.maskCase, v, got, err, want)
				}
			}
		}
		var icu bool
		if err := conn.QueryRowContext(context.Background(), "SELECT EXISTS (SELECT 1 FROM pg_collation WHERE collprovider = 'i')").Scan(&icu); err != nil || !icu {
			t.Skip("no ICU collations")
		}
		mustExec(t, conn, `CREATE COLLATION IF NOT EXISTS pg_temp.udf_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false)`)
		mustExec(t, conn, `DROP TABLE IF EXISTS udf_nd`)
		mustExec(t, conn, `CREATE TEMPORARY TABLE udf_nd (v text COLLATE pg_temp.udf_ci)`)
		mustExec(t, conn, `INSERT INTO udf_nd VALUES ('Abc')`)
		expr, err := MaskSQL(Target{Dialect: Postgres, Column: `udf_nd.v`, DataType: "text", ColumnType: "text"}, TypeMask, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		var s string
		err = conn.QueryRowContext(context.Background(), "SELECT "+expr+" FROM udf_nd").Scan(&s)
		if err == nil || !strings.Contains(err.Error(), "nondeterministic") {
			t.Errorf("nondeterministic collation: got %q, %v; want PostgreSQL's refusal", s, err)
		}
		// With named classes the value is read under ICU's root collation
		// and the result compares under the column's again.
		expr, err = MaskSQL(Target{Dialect: Postgres, Column: `udf_nd.v`, DataType: "text", ColumnType: "text",
			NamedClasses: true, Collation: `"pg_temp"."udf_ci"`}, TypeMask, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		var equal bool
		if err := conn.QueryRowContext(context.Background(), "SELECT "+expr+", "+expr+" = 'XXX' FROM udf_nd").Scan(&s, &equal); err != nil || s != "Xxx" || !equal {
			t.Errorf("nondeterministic collation, named classes: %q, equal to 'XXX' under the column's collation %v, %v; want Xxx, true", s, equal, err)
		}
	})
	t.Run("mysql", func(t *testing.T) {
		conn := openDB(t, MySQL)
		mustExec(t, conn, "SET SESSION sql_mode = ''")
		mustExec(t, conn, "DROP TABLE IF EXISTS udf_zero")
		mustExec(t, conn, "CREATE TEMPORARY TABLE udf_zero (id INT, v DATE)")
		mustExec(t, conn, "INSERT INTO udf_zero VALUES (1, '0000-00-00'), (2, '2016-00-00'), (3, '2016-02-00')")
		mustExec(t, conn, "SET SESSION sql_mode = DEFAULT")
		target := Target{Dialect: MySQL, Column: "udf_zero.v", DataType: "date", ColumnType: "date"}
		for _, c := range []struct {
			mc   maskCase
			want string
		}{
			{maskCase{TypeMask, nil}, "0000-01-01 0000-01-01 0000-01-01"},
			{maskCase{TypeDateShowYear, nil}, "0000-01-01 2016-01-01 2016-01-01"},
			{maskCase{TypeMask, []string{"", "", "", "", "", "-1", "0", "-1"}}, "0000-01-00 2016-01-00 2016-01-00"},
		} {
			expr, err := MaskSQL(target, c.mc.typ, c.mc.args, "")
			if err != nil {
				t.Fatal(err)
			}
			var got string
			q := "SELECT GROUP_CONCAT(CAST(" + expr + " AS CHAR) ORDER BY id SEPARATOR ' ') FROM udf_zero"
			if err := conn.QueryRowContext(context.Background(), q).Scan(&got); err != nil || got != c.want {
				t.Errorf("%s on zero dates: %q, %v; want %q", c.mc, got, err, c.want)
			}
		}
	})
}

// TestMaskSQLOtherTypes runs the masks that apply to every type on columns
// of types the digit and string masks refuse: the result keeps the column's
// type (PostgreSQL reports it) and NULL stays NULL.
func TestMaskSQLOtherTypes(t *testing.T) {
	type col struct {
		name, ddl, dataType, columnType, value, constant, want string
	}
	run := func(t *testing.T, d Dialect, cols []col) {
		conn := openDB(t, d)
		for _, c := range cols {
			table := quoteIdent(d, "udf_other_"+c.name)
			mustExec(t, conn, "DROP TABLE IF EXISTS "+table)
			mustExec(t, conn, "CREATE TEMPORARY TABLE "+table+" (id INT, v "+c.ddl+")")
			ins := "INSERT INTO " + table + " VALUES (1, ?), (2, NULL)"
			if d == Postgres {
				ins = "INSERT INTO " + table + " VALUES (1, $1), (2, NULL)"
			}
			mustExec(t, conn, ins, c.value)
			target := Target{Dialect: d, Column: table + "." + quoteIdent(d, "v"), DataType: c.dataType, ColumnType: c.columnType}
			for _, mc := range []maskCase{{TypeNull, nil}, {TypeRedact, nil}, {TypeRedact, []string{c.constant}}, {TypeNone, nil}} {
				expr, err := MaskSQL(target, mc.typ, mc.args, "")
				if err != nil {
					t.Fatalf("%s on %s: %v", mc, c.ddl, err)
				}
				text, typeOf := "CAST("+expr+" AS CHAR)", "''"
				if d == Postgres {
					text, typeOf = "CAST("+expr+" AS text)", "CAST(pg_typeof("+expr+") AS text)"
				}
				rows, err := conn.QueryContext(context.Background(), "SELECT id, "+text+", "+typeOf+" FROM "+table+" ORDER BY id")
				if err != nil {
					t.Fatalf("%s on %s: %v\n%s", mc, c.ddl, err, expr)
				}
				for rows.Next() {
					var id int
					var v sql.NullString
					var typ string
					if err := rows.Scan(&id, &v, &typ); err != nil {
						t.Fatal(err)
					}
					want := sql.NullString{}
					switch {
					case id == 2:
					case mc.typ == TypeNone:
						want = sql.NullString{String: c.want, Valid: true}
					case mc.typ == TypeRedact && len(mc.args) == 1:
						want = sql.NullString{String: c.constant, Valid: true}
					}
					if v != want {
						t.Errorf("%s on %s row %d: %s, want %s", mc, c.ddl, id, showNull(v), showNull(want))
					}
					if d == Postgres && typ != c.dataType { // pg_typeof has no type modifier
						t.Errorf("%s on %s: type %s", mc, c.ddl, typ)
					}
				}
				rows.Close()
			}
		}
	}
	t.Run("mysql", func(t *testing.T) {
		run(t, MySQL, []col{
			{"dec", "DECIMAL(10,2)", "decimal", "decimal(10,2)", "12.50", "0.00", "12.50"},
			{"dt", "DATETIME(3)", "datetime", "datetime(3)", "2020-01-02 03:04:05.678", "1970-01-01 00:00:00.000", "2020-01-02 03:04:05.678"},
			{"dbl", "DOUBLE", "double", "double", "1.5", "0", "1.5"},
		})
	})
	t.Run("postgres", func(t *testing.T) {
		run(t, Postgres, []col{
			{"num", "numeric(10,2)", "numeric", "numeric(10,2)", "12.50", "0.00", "12.50"},
			{"ts", "timestamp", "timestamp without time zone", "timestamp without time zone", "2020-01-02 03:04:05", "1970-01-01 00:00:00", "2020-01-02 03:04:05"},
			{"u", "uuid", "uuid", "uuid", "6ba7b810-9dad-11d1-80b4-00c04fd430c8", "00000000-0000-0000-0000-000000000000", "6ba7b810-9dad-11d1-80b4-00c04fd430c8"},
			{"j", "jsonb", "jsonb", "jsonb", `{"a": 1}`, `{}`, `{"a": 1}`},
		})
	})
}
