package udf

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Dialect selects the SQL the expressions are written in.
type Dialect string

// Supported dialects.
const (
	MySQL    Dialect = "mysql"    // MySQL-compatible servers; the SQL targets MariaDB 10.11
	Postgres Dialect = "postgres" // PostgreSQL 15
)

// Kind is the family of a column's type, which decides how a mask treats it.
type Kind int

// Column kinds.
const (
	KindString  Kind = iota // CHAR, VARCHAR, TEXT …
	KindInteger             // TINYINT … BIGINT, masked digit by digit
	KindDate                // DATE
	KindOther               // everything else: only MASK_NULL, MASK_NONE, REDACT and CUSTOM apply
)

func (k Kind) String() string {
	switch k {
	case KindString:
		return "string"
	case KindInteger:
		return "integer"
	case KindDate:
		return "date"
	}
	return "other"
}

// KindOf classifies a column by its base data type name as
// information_schema reports it, lower-cased (mysql: varchar, char, text,
// tinytext, mediumtext, longtext, tinyint, smallint, mediumint, int, bigint,
// date, datetime, decimal…; postgres: character varying, character, text,
// smallint, integer, bigint, date, timestamp without time zone, numeric,
// uuid, …).
func KindOf(dataType string) Kind {
	switch normType(dataType) {
	case "varchar", "char", "text", "tinytext", "mediumtext", "longtext", "enum", "set",
		"character varying", "character", "bpchar":
		return KindString
	case "tinyint", "smallint", "mediumint", "int", "integer", "bigint", "int2", "int4", "int8":
		return KindInteger
	case "date":
		return KindDate
	}
	return KindOther
}

func normType(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// Target is the column a mask applies to.
type Target struct {
	Dialect    Dialect
	Column     string // SQL reference to the raw column, already quoted by the caller (e.g. `t`.`ssn` or "t"."ssn")
	DataType   string // base type, lower-cased (information_schema DATA_TYPE / data_type)
	ColumnType string // full type, lower-cased (mysql COLUMN_TYPE like "varchar(40)", "char(10)", "int(11)", "bigint(20) unsigned"; postgres e.g. "character varying(40)", "character(10)", "integer")
	// NamedClasses: the server's regular expressions classify every BMP
	// character into Lu, Ll and Nd exactly as Go's tables do (ClassProbe
	// answered so on the connection), and the SQL names the classes
	// beyond Latin-1 instead of listing their code points: \p{Lu} … on
	// MariaDB, [:upper:] … under the ICU root collation
	// (pg_catalog."und-x-icu") on PostgreSQL.
	NamedClasses bool
	// Collation is the column's collation as a SQL name, already quoted
	// (PostgreSQL: "pg_catalog"."C"), or "" for its type's default. A
	// PostgreSQL mask with named classes reads the value under the ICU
	// root collation and hands its result back in this one, so that the
	// masked value sorts and compares as the column does.
	Collation string
	// ServerMasks: the server has sqe's mask functions installed
	// (native/, checked by ServerMaskCheck), and string masks that replace
	// characters by class (MASK, MASK_SHOW_LAST_4, MASK_SHOW_FIRST_4 and
	// the first/last N masks) and those masks of integers call them
	// instead of computing the classes or the digits in SQL: the same
	// result, at the cost of a compiled function call.
	ServerMasks bool
}

// ValidateMask checks a mask's type and arguments when a policy is loaded
// (no SQL is produced). Whether the mask applies to a particular column's
// type is decided by MaskSQL.
func ValidateMask(maskType string, args []string, customExpr string) error {
	_, err := parseSpec(maskType, args, customExpr)
	return err
}

// MaskSQL returns one SQL expression that computes the mask over t.Column
// and yields the column's own type (cast back as Hive does), e.g. MASK_NULL
// -> CAST(NULL AS <type>) or NULL typed appropriately.
//
// Every policy parameter reaches the SQL only as an integer this package
// printed or as a string literal it built (quotes doubled, backslashes
// spelled CHAR(92)/CHR(92)), so none can leave its place whatever the
// server's SQL mode. A mask that cannot be computed exactly for the column's
// type is an error; the caller is expected to fail closed.
func MaskSQL(t Target, maskType string, args []string, customExpr string) (string, error) {
	x, err := maskSQL(t, maskType, args, customExpr)
	if err == nil && t.Dialect == Postgres && strings.ContainsRune(x, 0) {
		// PostgreSQL's text holds no NUL, and its lexer ends a query there
		// (a pattern of \000, \x00 or \x{0}).
		return "", fmt.Errorf("udf: mask %s: a NUL character in the mask's arguments cannot be written in PostgreSQL's SQL", maskType)
	}
	return x, err
}

func maskSQL(t Target, maskType string, args []string, customExpr string) (string, error) {
	s, err := parseSpec(maskType, args, customExpr)
	if err != nil {
		return "", err
	}
	if t.Dialect != MySQL && t.Dialect != Postgres {
		return "", fmt.Errorf("udf: unknown dialect %q", t.Dialect)
	}
	if strings.TrimSpace(t.Column) == "" {
		return "", fmt.Errorf("udf: mask %s: no column", s.typ)
	}
	g := gen{d: t.Dialect, t: t, kind: KindOf(t.DataType)}
	switch s.fn {
	case fnNone:
		return t.Column, nil
	case fnNull:
		return g.columnCollation(g.typedNull()), nil
	case fnCustom:
		return "(" + strings.ReplaceAll(s.custom, "{col}", t.Column) + ")", nil
	case fnRedact:
		x, err := g.redact(s)
		if err != nil {
			return "", err
		}
		return g.columnCollation(x), nil
	}
	switch g.kind {
	case KindString:
		switch s.fn {
		case fnHash:
			n := hashLength[s.algo]
			_, char := g.isChar()
			return g.nullableAsColumn(g.columnCollation(g.declared(g.hash(s.algo), !char && n <= g.typeLength()))), nil
		case fnRegexp:
			return g.columnCollation(g.regexpReplace(s)), nil
		}
		// Every character is replaced by one character or kept; only a
		// replaced "other" character can be a surrogate pair that becomes
		// two characters. With other characters kept, the result has the
		// value's length, which the column's type holds.
		if g.t.ServerMasks {
			return g.nullableAsColumn(g.serverMask(s)), nil
		}
		return g.nullableAsColumn(g.declared(g.maskString(s), s.chars[3] == keep)), nil
	case KindInteger:
		switch s.fn {
		case fnHash:
			return g.typedNull(), nil
		case fnRegexp:
			return "", g.unsupported(s)
		}
		maskInteger := g.maskInteger
		if g.t.ServerMasks {
			maskInteger = g.serverMaskInt
		}
		x, err := maskInteger(s)
		if err != nil {
			return "", err
		}
		return g.nullableAsColumn(x), nil
	case KindDate:
		switch s.fn {
		case fnHash:
			return g.typedNull(), nil
		case fnRegexp:
			return "", g.unsupported(s)
		}
		return g.maskDate(s)
	}
	return "", g.unsupported(s)
}

// gen writes the SQL for one target.
type gen struct {
	d    Dialect
	t    Target
	kind Kind
}

func (g gen) unsupported(s *spec) error {
	return fmt.Errorf("udf: mask %s cannot be computed for column %s of type %q", s.typ, g.t.Column, g.typeName())
}

func (g gen) typeName() string {
	if g.t.ColumnType != "" {
		return g.t.ColumnType
	}
	return g.t.DataType
}

func (g gen) my() bool { return g.d == MySQL }

// ---- literals --------------------------------------------------------------

// lit is a string literal meaning s under every sql_mode /
// standard_conforming_strings setting: single quotes doubled, and each
// backslash produced by CHAR(92)/CHR(92) outside any literal.
func (g gen) lit(s string) string {
	quote := func(p string) string { return "'" + strings.ReplaceAll(p, "'", "''") + "'" }
	if !strings.Contains(s, `\`) {
		return quote(s)
	}
	bs := "CHR(92)"
	if g.my() {
		bs = "CHAR(92 USING utf8mb4)"
	}
	var parts []string
	for i, p := range strings.Split(s, `\`) {
		if i > 0 {
			parts = append(parts, bs)
		}
		if p != "" {
			parts = append(parts, quote(p))
		}
	}
	return g.concat(parts...)
}

// concat joins string expressions: MySQL's CONCAT takes them as a flat
// list; PostgreSQL's || nests one level per operator, so long lists are
// grouped in halves, which keeps the nesting logarithmic (the parser and
// the deparser recurse once per level).
func (g gen) concat(parts ...string) string {
	if len(parts) == 1 {
		return parts[0]
	}
	if g.my() {
		return "CONCAT(" + strings.Join(parts, ", ") + ")"
	}
	if len(parts) <= maxConcatRun {
		return "(" + strings.Join(parts, " || ") + ")"
	}
	half := len(parts) / 2
	return "(" + g.concat(parts[:half]...) + " || " + g.concat(parts[half:]...) + ")"
}

// maxConcatRun is the longest run of || concat writes without grouping.
const maxConcatRun = 8

func itoa(i int) string { return strconv.Itoa(i) }

// ---- types -----------------------------------------------------------------

var (
	safeType = regexp.MustCompile(`^[a-z][a-z0-9_ ]*(\([0-9]+(, ?[0-9]+)?\))?[a-z0-9_ ]*(\[\])*$`)
	typeLen  = regexp.MustCompile(`\(\s*([0-9]+)`)
	decimal  = regexp.MustCompile(`^(decimal|numeric)\(([0-9]+)(,([0-9]+))?\)`)
)

// castType is the CAST target that gives an expression the column's type,
// or "" when there is none to name.
func (g gen) castType() string {
	dt := normType(g.t.DataType)
	ct := normType(g.t.ColumnType)
	if !g.my() {
		switch {
		case safeType.MatchString(ct):
			return ct
		case safeType.MatchString(dt):
			return dt
		}
		return ""
	}
	unsigned := strings.Contains(ct, "unsigned")
	switch dt {
	case "varchar", "char", "text", "tinytext", "mediumtext", "longtext", "enum", "set", "json":
		return "CHAR"
	case "tinyint", "smallint", "mediumint", "int", "integer", "bigint", "year", "bit":
		if unsigned {
			return "UNSIGNED"
		}
		return "SIGNED"
	case "decimal", "numeric":
		if m := decimal.FindStringSubmatch(ct); m != nil {
			if m[4] != "" {
				return "DECIMAL(" + m[2] + "," + m[4] + ")"
			}
			return "DECIMAL(" + m[2] + ")"
		}
		return "DECIMAL"
	case "float":
		return "FLOAT"
	case "double", "real":
		return "DOUBLE"
	case "date":
		return "DATE"
	case "datetime", "timestamp":
		if n := g.typeLength(); n >= 0 && n <= 6 {
			return "DATETIME(" + itoa(n) + ")"
		}
		return "DATETIME"
	case "time":
		if n := g.typeLength(); n >= 0 && n <= 6 {
			return "TIME(" + itoa(n) + ")"
		}
		return "TIME"
	case "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob":
		return "BINARY"
	}
	return ""
}

// typeLength is the first parenthesised number of ColumnType, or -1.
func (g gen) typeLength() int {
	m := typeLen.FindStringSubmatch(g.t.ColumnType)
	if m == nil {
		return -1
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return -1
	}
	return n
}

func (g gen) cast(x, typ string) string {
	if typ == "" {
		return x
	}
	return "CAST(" + x + " AS " + typ + ")"
}

func (g gen) typedNull() string {
	if g.my() && g.kind == KindString {
		return myText("NULL")
	}
	return g.cast("NULL", g.castType())
}

// myText makes a MariaDB string utf8mb4 with an explicit binary collation,
// the form every masked string takes (see strIn).
func myText(x string) string {
	return "CONVERT(" + x + " USING utf8mb4) COLLATE utf8mb4_bin"
}

// nullGuard keeps NULL in NULL out for expressions that do not propagate
// NULL by themselves.
func (g gen) nullGuard(x string) string {
	return "CASE WHEN " + g.t.Column + " IS NULL THEN " + g.typedNull() + " ELSE " + x + " END"
}

// isChar reports a blank-padded CHAR(n) column and its length.
func (g gen) isChar() (int, bool) {
	switch normType(g.t.DataType) {
	case "char", "character", "bpchar":
	default:
		return 0, false
	}
	if n := g.typeLength(); n > 0 {
		return n, true
	}
	if normType(g.t.ColumnType) == "bpchar" {
		return 0, true // PostgreSQL's unbounded bpchar: nothing to pad to
	}
	return 1, true
}

// ---- REDACT ------------------------------------------------------------------

var dateLiteral = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)

func (g gen) redact(s *spec) (string, error) {
	switch g.kind {
	case KindString:
		c := defRedacted
		if s.hasConstant {
			c = s.constant
		}
		v := g.lit(c)
		if g.my() {
			v = myText(v)
		}
		return g.nullGuard(g.strOut(v)), nil
	case KindInteger:
		if !s.hasConstant {
			return g.typedNull(), nil
		}
		bits, err := g.intBits()
		if err != nil {
			return "", err
		}
		v, err := strconv.ParseInt(strings.TrimSpace(s.constant), 10, bits)
		if err != nil {
			return "", fmt.Errorf("udf: mask %s: constant %q is not a %d-bit integer", s.typ, s.constant, bits)
		}
		return g.nullGuard(g.cast(strconv.FormatInt(v, 10), g.intCast(bits))), nil
	case KindDate:
		if !s.hasConstant {
			return g.typedNull(), nil
		}
		c := strings.TrimSpace(s.constant)
		d, err := time.Parse(time.DateOnly, c)
		if err != nil || !dateLiteral.MatchString(c) || d.Year() < 1 {
			return "", fmt.Errorf("udf: mask %s: constant %q is not a date (YYYY-MM-DD)", s.typ, s.constant)
		}
		return g.nullGuard(g.cast(g.lit(c), "DATE")), nil
	}
	if !s.hasConstant {
		return g.typedNull(), nil
	}
	typ := g.castType()
	if typ == "" {
		return "", fmt.Errorf("udf: mask %s: a constant cannot be given type %q", s.typ, g.typeName())
	}
	if err := g.checkConstant(s); err != nil {
		return "", err
	}
	return g.nullGuard(g.cast(g.lit(s.constant), typ)), nil
}

var (
	timestampLiteral = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}( [0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?)?$`)
	timeLiteral      = regexp.MustCompile(`^[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?$`)
	decimalLiteral   = regexp.MustCompile(`^-?([0-9]+)(\.([0-9]+))?$`)
	floatLiteral     = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)
	uuidLiteral      = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
)

// checkConstant reports a REDACT constant that the column's type cannot
// take exactly on both servers. A cast that fails would fail every
// statement on PostgreSQL and give NULL on MariaDB; a constant that one
// server rounds or clamps differently from the other would give the two
// different results. So only constants whose value the type holds as
// written are accepted, for the types whose literals are the same on both
// servers; any other type takes REDACT without a constant (NULL).
func (g gen) checkConstant(s *spec) error {
	c := s.constant
	bad := func(want string) error {
		return fmt.Errorf("udf: mask %s: constant %q is not %s, as column %s of type %q needs", s.typ, c, want, g.t.Column, g.typeName())
	}
	switch dt := normType(g.t.DataType); dt {
	case "datetime", "timestamp", "timestamp without time zone", "timestamp with time zone":
		layout := time.DateTime
		if len(c) == len(time.DateOnly) {
			layout = time.DateOnly
		}
		v, err := time.Parse(layout, strings.SplitN(c, ".", 2)[0])
		if !timestampLiteral.MatchString(c) || err != nil || v.Year() < 1000 {
			return bad("a timestamp (YYYY-MM-DD[ HH:MM:SS[.ffffff]], year 1000 or later)")
		}
	case "time", "time without time zone":
		if _, err := time.Parse(time.TimeOnly, strings.SplitN(c, ".", 2)[0]); !timeLiteral.MatchString(c) || err != nil {
			return bad("a time of day (HH:MM:SS[.ffffff])")
		}
	case "decimal", "numeric":
		m := decimalLiteral.FindStringSubmatch(c)
		if m == nil {
			return bad("a decimal number")
		}
		if d := decimal.FindStringSubmatch(normType(g.t.ColumnType)); d != nil {
			p, _ := strconv.Atoi(d[2])
			sc := 0
			if d[4] != "" {
				sc, _ = strconv.Atoi(d[4])
			}
			if len(strings.TrimLeft(m[1], "0")) > p-sc || len(m[3]) > sc {
				return bad(fmt.Sprintf("a number with at most %d digits before and %d after the point", p-sc, sc))
			}
		}
	case "float", "double", "real", "double precision":
		if f, err := strconv.ParseFloat(c, 64); !floatLiteral.MatchString(c) || err != nil || math.IsInf(f, 0) ||
			(dt == "float" || dt == "real") && math.Abs(f) > math.MaxFloat32 {
			return bad("a finite number")
		}
	case "boolean", "bool":
		if c != "true" && c != "false" {
			return bad("true or false")
		}
	case "uuid":
		if !uuidLiteral.MatchString(c) {
			return bad("a UUID")
		}
	case "json", "jsonb":
		if !json.Valid([]byte(c)) {
			return bad("a JSON document")
		}
	default:
		return fmt.Errorf("udf: mask %s: a constant cannot be checked for column %s of type %q (REDACT without a constant gives NULL)", s.typ, g.t.Column, g.typeName())
	}
	return nil
}

// ---- strings -----------------------------------------------------------------

// strIn is the column as the text the masks read, a CHAR(n) padded to n as
// Hive pads it. On MariaDB it is utf8mb4 whatever the column's character
// set, with an explicit binary collation: the result then compares with
// columns of any collation (an explicit collation wins over theirs) and
// compares as Hive compares strings, by code point.
func (g gen) strIn() string {
	x := "CAST(" + g.t.Column + " AS text)"
	if g.my() {
		x = "CONVERT(" + g.t.Column + " USING utf8mb4) COLLATE utf8mb4_bin"
	}
	if n, ok := g.isChar(); ok && n > 0 {
		x = "RPAD(" + x + ", " + itoa(n) + ", ' ')"
	}
	return x
}

// strOut gives a string result the column's type family: a CHAR result is
// blank-padded character data again (MariaDB hands CHAR values out without
// trailing blanks; PostgreSQL's bpchar ignores them).
func (g gen) strOut(x string) string {
	if _, ok := g.isChar(); ok {
		if g.my() {
			// RTRIM, but without sql_mode=ORACLE's NULL for an empty result.
			return g.reReplace(x, ` +\z`, "")
		}
		return "CAST(" + x + " AS bpchar)"
	}
	return x
}

// hashLength is the length of each hash algorithm's hexadecimal digest.
var hashLength = map[string]int{algoSHA256: 64, algoSHA512: 128, algoMD5: 32}

// declared gives a string mask's result the column's declared character
// type (VARCHAR(n), CHAR(n)), so that a result column reports the type,
// length and precision the raw column reports, when fits says the result
// can never be longer than the column: a cast to a shorter type would cut
// the value. Otherwise, and for columns without a declared length, the
// result keeps the type of its expression (TEXT, LONGTEXT). On MariaDB
// the result stays utf8mb4 with the binary collation (see strIn), and
// reports VARCHAR for CHAR columns too.
func (g gen) declared(x string, fits bool) string {
	n, ok := g.declaredLength()
	if !fits || !ok {
		return x
	}
	ln := itoa(n)
	switch normType(g.t.DataType) {
	case "varchar", "character varying":
		if g.my() {
			return myText("CAST(" + x + " AS CHAR(" + ln + ") CHARACTER SET utf8mb4)")
		}
		return "CAST(" + x + " AS character varying(" + ln + "))"
	case "char", "character", "bpchar":
		if g.my() {
			return myText("CAST(" + x + " AS CHAR(" + ln + ") CHARACTER SET utf8mb4)")
		}
		return "CAST(" + x + " AS character(" + ln + "))"
	}
	return x
}

// declaredLength is the length of a character column's type, which
// declared gives a result that fits it.
func (g gen) declaredLength() (int, bool) {
	n := g.typeLength()
	switch normType(g.t.DataType) {
	case "varchar", "character varying", "char", "character", "bpchar":
		return n, n > 0
	}
	return 0, false
}

// nullableAsColumn makes a MySQL mask x, which is NULL exactly when the
// column is, report the column's nullability: MariaDB reports every
// cast, CASE and string function as nullable, also over a NOT NULL
// column, and a driver then hands a NOT NULL column's masked value out
// as nullable (database/sql's ColumnType.Nullable and ScanType). IFNULL
// takes its nullability from its second argument, and a comparison of
// the column with itself is nullable exactly where the column is (NOT
// NULL, or NULL-extended by an outer join); its value, 1, could only
// replace a NULL x of a non-NULL value, which the masks given here
// never produce, and is no part of the raw value either way. Its type
// (an INT of length 1) leaves x's type, length and collation as they
// are. PostgreSQL reports no nullability of results.
func (g gen) nullableAsColumn(x string) string {
	if !g.my() {
		return x
	}
	return "IFNULL(" + x + ", " + g.t.Column + " = " + g.t.Column + ")"
}

func (g gen) hash(algo string) string {
	x := g.strIn()
	if g.my() {
		h := "SHA2(" + x + ", 256)"
		switch algo {
		case algoSHA512:
			h = "SHA2(" + x + ", 512)"
		case algoMD5:
			h = "MD5(" + x + ")"
		}
		return myText(h)
	}
	b := "convert_to(" + x + ", 'UTF8')"
	switch algo {
	case algoSHA512:
		return "encode(sha512(" + b + "), 'hex')"
	case algoMD5:
		return "md5(" + b + ")"
	}
	return "encode(sha256(" + b + "), 'hex')"
}

func (g gen) regexpReplace(s *spec) string {
	x := g.reReplace(g.strIn(), s.re.source(g.d), replacementText(s.replacement))
	return g.strOut(x)
}

// replacementText makes text literal in a regexp replacement (both servers
// give a backslash a meaning there).
func replacementText(s string) string {
	return strings.ReplaceAll(s, `\`, `\\`)
}

// myRegexpFlags pins the options a case-insensitive collation or MariaDB's
// default_regex_flags could otherwise switch on. Only the flags both
// MariaDB's PCRE and MySQL's ICU accept are written; the driver refuses
// connections whose default_regex_flags hold UNGREEDY or NO_AUTO_CAPTURE,
// which these cannot switch off portably.
const myRegexpFlags = "(?-imsx)"

func (g gen) reReplace(x, pattern, repl string) string {
	if g.my() {
		return "REGEXP_REPLACE(" + x + ", " + g.lit(myRegexpFlags+pattern) + ", " + g.lit(repl) + ")"
	}
	return "regexp_replace(" + x + ", " + g.lit(pattern) + ", " + g.lit(repl) + ", 'g')"
}

// replace substitutes literal text. It is a regexp replacement because
// MariaDB's REPLACE returns NULL for an empty result under sql_mode=ORACLE;
// the markers it is used for are no regexp metacharacters.
func (g gen) replace(x, from, to string) string {
	return g.reReplace(x, from, replacementText(to))
}

func (g gen) maskString(s *spec) string {
	x := g.strIn()
	if g.pgNamed() {
		x += " COLLATE " + icuRoot
	}
	if s.fn == fnMask {
		x = g.maskChars(x, s.chars)
	} else {
		x = g.nullGuard(g.partial(x, s))
	}
	return g.restoreCollation(g.strOut(x))
}

// icuRoot is PostgreSQL's ICU root collation, under which its regular
// expressions classify characters with ICU's properties (u_isupper …),
// whatever the column's or the database's collation.
const icuRoot = `pg_catalog."und-x-icu"`

// pgNamed reports whether the SQL is PostgreSQL's with named classes.
func (g gen) pgNamed() bool { return !g.my() && g.t.NamedClasses }

// columnCollation gives a PostgreSQL string mask's result the column's
// collation where the column has one of its own: a digest, a constant or
// a NULL otherwise carries the database's default, and would sort and
// compare otherwise than the column.
func (g gen) columnCollation(x string) string {
	if g.my() || g.kind != KindString || g.t.Collation == "" {
		return x
	}
	return "(" + x + ") COLLATE " + g.t.Collation
}

// restoreCollation gives a PostgreSQL named-class mask's result the
// column's collation again (the classes were read under icuRoot).
func (g gen) restoreCollation(x string) string {
	if !g.pgNamed() {
		return x
	}
	c := g.t.Collation
	if c == "" {
		c = `pg_catalog."default"`
	}
	return "(" + x + ") COLLATE " + c
}

// Markers. The SQL works on code points where Hive works on UTF-16 units;
// to count and split like Hive it follows every supplementary character
// with unitMark, standing for its low surrogate. Replacement characters can
// never be one of these noncharacters (checkReplacement).
const (
	unitMark   = "\uFFFF"
	tokenStart = "\uFFFF"
	tokenKeep  = "\uFFFE" // tokenStart tokenKeep: an original U+FFFF
	tokenClass = 0xFDD0   // tokenStart (tokenClass+class): a masked character
)

func suppClass() string { return "[" + suppRange + "]" }

// partial is mask_first_n, mask_last_n, mask_show_first_n and
// mask_show_last_n over a string: split where Hive splits (in UTF-16
// units), mask one side, keep the other.
func (g gen) partial(x string, s *spec) string {
	e := g.reReplace(x, "("+suppClass()+")", `\1`+unitMark) // UTF-16 image
	if groups, ok := g.lookaroundPasses(s); ok {
		return g.partialLookaround(e, s, groups)
	}
	l := "CHAR_LENGTH(" + e + ")"
	n := itoa(s.n)
	var k string
	maskFront := false
	switch s.fn {
	case fnFirstN:
		k, maskFront = "LEAST("+n+", "+l+")", true
	case fnShowLastN:
		k, maskFront = "GREATEST("+l+" - "+n+", 0)", true
	case fnLastN:
		k = "GREATEST(" + l + " - " + n + ", 0)"
	case fnShowFirstN:
		k = "LEAST(" + n + ", " + l + ")"
	}
	// split: the cut falls between a supplementary character (the last unit
	// of the front) and its low surrogate.
	var split, front, back, frontCut, backCut string
	if g.my() {
		split = "(" + k + " > 0 AND OCTET_LENGTH(SUBSTRING(" + e + ", " + k + ", 1)) = 4)"
		front = "LEFT(" + e + ", " + k + ")"
		frontCut = "LEFT(" + e + ", " + k + " - 1)"
		back = "SUBSTRING(" + e + ", " + k + " + 1)"
		backCut = "SUBSTRING(" + e + ", " + k + " + 2)"
	} else {
		split = "(" + k + " > 0 AND octet_length(substr(" + e + ", " + k + ", 1)) = 4)"
		front = "left(" + e + ", " + k + ")"
		frontCut = "left(" + e + ", " + k + " - 1)"
		back = "substr(" + e + ", " + k + " + 1)"
		backCut = "substr(" + e + ", " + k + " + 2)"
	}
	// A pair cut in two survives when "other" characters are kept (Java
	// re-joins the halves); otherwise the kept half is a lone surrogate,
	// which Hive writes as '?', and the masked half becomes otherChar (so
	// it is '?' here too before masking).
	if s.chars[clsOther] != keep {
		front = "CASE WHEN " + split + " THEN " + g.concat(frontCut, "'?'") + " ELSE " + front + " END"
		back = "CASE WHEN " + split + " THEN " + g.concat("'?'", backCut) + " ELSE " + back + " END"
	} else {
		back = "CASE WHEN " + split + " THEN " + backCut + " ELSE " + back + " END"
	}
	unmark := func(v string) string { return g.reReplace(v, "(?<="+suppClass()+")"+unitMark, "") }
	front, back = unmark(front), unmark(back)
	if maskFront {
		front = g.maskChars(front, s.chars)
	} else {
		back = g.maskChars(back, s.chars)
	}
	return g.concat(front, back)
}

// maxLookaroundN bounds the n of the *_N masks computed with lookarounds:
// PostgreSQL's largest repetition count, and beyond it the lookaround would
// cost more than the cut.
const maxLookaroundN = 255

// lookaroundPasses reports whether partialLookaround computes s, and its
// passes: when "other" characters are kept
// (so no supplementary character or marker changes, and a pair cut in two
// is re-joined as Java re-joins it), when the replacements form no cycle
// and are BMP characters (so no replacement is mistaken for a
// supplementary character's marker), for n up to maxLookaroundN.
func (g gen) lookaroundPasses(s *spec) ([]pass, bool) {
	if s.chars[clsOther] != keep || s.n > maxLookaroundN {
		return nil, false
	}
	for c := clsUpper; c <= clsDigit; c++ {
		if s.chars[c] != keep && s.chars[c] > 0xFFFF {
			return nil, false
		}
	}
	return passOrder(s.chars)
}

// partialLookaround masks the side of the cut in place, over the UTF-16
// image e, where every code point is one UTF-16 unit: a character is on
// the front side when at most k-1 units come before it, k being the cut,
// which a lookbehind (n units from the start) or a lookahead (n units from
// the end) tells without computing k. Each pass replaces a character by
// one character, so the positions stay what they were.
func (g gen) partialLookaround(e string, s *spec, groups []pass) string {
	units := ".{" + itoa(s.n) + "}" // PostgreSQL's '.' matches a newline
	if g.my() {
		units = "(?s:" + units + ")"
	}
	for _, grp := range groups {
		p := g.groupPattern(grp.classes)
		switch s.fn {
		case fnFirstN: // the first n units
			p = "(?<!" + units + ")" + p
		case fnShowFirstN: // all but the first n units
			p = "(?<=" + units + ")" + p
		case fnLastN: // the last n units
			p += "(?!" + units + ")"
		case fnShowLastN: // all but the last n units
			p += "(?=" + units + ")"
		}
		e = g.reReplace(e, p, replacementText(replChar(grp.repl)))
	}
	return g.reReplace(e, "(?<="+suppClass()+")"+unitMark, "")
}

// groupPattern is a pattern matching the BMP characters of the classes in
// group (a set of class bits); supplementary characters never match it.
// The classes are the explicit lists of bmpClass, or, when the target says
// the server classifies as Go's tables do, a candidate character that a
// one-character lookbehind confirms with the server's own properties
// (\p{Lu} … on MariaDB; [:upper:] … on PostgreSQL, whose maskString
// reads the value under icuRoot). The candidate lists the classes' Latin-1 members, so that
// PCRE's first-character optimisation still skips the ASCII characters
// that cannot match; only the lookbehind decides beyond Latin-1.
func (g gen) groupPattern(group int) string {
	named := g.t.NamedClasses
	other := group&(1<<clsOther) != 0
	// The group's classes when it matches them; the classes outside it
	// when it matches "other".
	var listed, props strings.Builder
	for c := clsUpper; c <= clsDigit; c++ {
		if (group&(1<<c) != 0) == other {
			continue
		}
		if named {
			listed.WriteString(latin1Class[c])
			if g.my() {
				props.WriteString(`\p{` + propName[c] + "}")
			} else {
				props.WriteString("[:" + pgClassName[c] + ":]")
			}
		} else {
			listed.WriteString(bmpClass[c])
		}
	}
	switch {
	case other && props.Len() == 0:
		return "[^" + listed.String() + suppRange + "]"
	case other:
		return "[^" + listed.String() + suppRange + "](?<![" + props.String() + "])"
	case props.Len() == 0:
		return "[" + listed.String() + "]"
	}
	return "[" + listed.String() + beyondLatin1 + "](?<=[" + props.String() + "])"
}

func replChar(r int) string { return string(rune(r)) }

// maskChars is MaskTransformer.transform(String) over every character of x:
// each class is replaced by its character, supplementary characters count
// as two "other" units. Classes sharing a replacement are rewritten in one
// pass; passes run in an order where no replacement is rewritten again.
// When the replacements form a cycle (say upper -> 'a' and lower -> 'B'),
// masked characters first become two-character tokens no pass rewrites, and
// the tokens are resolved last.
func (g gen) maskChars(x string, chars [4]int) string {
	groups, ok := passOrder(chars)
	if !ok {
		return g.maskCharsTokens(x, chars)
	}
	for _, grp := range groups {
		r := replacementText(replChar(grp.repl))
		if grp.classes&(1<<clsOther) != 0 {
			x = g.reReplace(x, suppClass(), r+r)
		}
		x = g.reReplace(x, g.groupPattern(grp.classes), r)
	}
	return x
}

func (g gen) maskCharsTokens(x string, chars [4]int) string {
	token := func(c int) string { return tokenStart + string(rune(tokenClass+c)) }
	if chars[clsOther] != keep {
		x = g.reReplace(x, g.groupPattern(1<<clsOther), token(clsOther))
		x = g.reReplace(x, suppClass(), token(clsOther)+token(clsOther))
	} else {
		x = g.replace(x, tokenStart, tokenStart+tokenKeep)
	}
	for c := clsUpper; c <= clsDigit; c++ {
		if chars[c] != keep {
			x = g.reReplace(x, g.groupPattern(1<<c), token(c))
		}
	}
	for c := clsUpper; c <= clsOther; c++ {
		if chars[c] != keep {
			x = g.replace(x, token(c), replChar(chars[c]))
		}
	}
	if chars[clsOther] == keep {
		x = g.replace(x, tokenStart+tokenKeep, tokenStart)
	}
	return x
}

// pass rewrites the characters of a set of classes (bits) to repl.
type pass struct {
	classes int
	repl    int
}

// passOrder groups the replaced classes by replacement character and orders
// the groups so that no group runs after one whose replacement character it
// matches. ok is false when the replacements form a cycle.
func passOrder(chars [4]int) (order []pass, ok bool) {
	var groups []pass
	for c := range 4 {
		if chars[c] == keep {
			continue
		}
		found := false
		for i := range groups {
			if groups[i].repl == chars[c] {
				groups[i].classes |= 1 << c
				found = true
			}
		}
		if !found {
			groups = append(groups, pass{classes: 1 << c, repl: chars[c]})
		}
	}
	// must[i][j]: group i runs before group j, because j's replacement
	// belongs to one of i's classes.
	n := len(groups)
	must := make([][]bool, n)
	indeg := make([]int, n)
	for i := range groups {
		must[i] = make([]bool, n)
	}
	for j, gj := range groups {
		cls := classOf(rune(gj.repl))
		for i, gi := range groups {
			if i != j && gi.classes&(1<<cls) != 0 {
				must[i][j] = true
				indeg[j]++
			}
		}
	}
	done := make([]bool, n)
	for len(order) < n {
		next := -1
		for i := range groups {
			if !done[i] && indeg[i] == 0 {
				next = i
				break
			}
		}
		if next < 0 {
			return nil, false
		}
		done[next] = true
		order = append(order, groups[next])
		for j := range groups {
			if must[next][j] {
				indeg[j]--
			}
		}
	}
	return order, true
}

// ---- integers ----------------------------------------------------------------

// intType is what the masks need of an integer type: the Hive width a
// value is masked in, its own for signed types, the next wider for
// unsigned ones (Hive has no unsigned types), 32 for MEDIUMINT (0: none,
// BIGINT UNSIGNED); and the largest magnitude the type holds and its
// number of decimal digits.
type intType struct {
	bits, digits int
	maxv         int64
}

// intTypes are the integer types by name, signed and unsigned.
var intTypes = map[string][2]intType{
	"tinyint":   {{8, 3, math.MaxInt8}, {16, 3, math.MaxUint8}},
	"smallint":  {{16, 5, math.MaxInt16}, {32, 5, math.MaxUint16}},
	"int2":      {{16, 5, math.MaxInt16}, {32, 5, math.MaxUint16}},
	"mediumint": {{32, 7, 1<<23 - 1}, {32, 8, 1<<24 - 1}},
	"int":       {{32, 10, math.MaxInt32}, {64, 10, math.MaxUint32}},
	"integer":   {{32, 10, math.MaxInt32}, {64, 10, math.MaxUint32}},
	"int4":      {{32, 10, math.MaxInt32}, {64, 10, math.MaxUint32}},
	"bigint":    {{64, 19, math.MaxInt64}, {}},
	"int8":      {{64, 19, math.MaxInt64}, {}},
}

// intType is the column's integer type, whether it is unsigned, and
// whether it is one.
func (g gen) intType() (t intType, unsigned, ok bool) {
	unsigned = strings.Contains(normType(g.t.ColumnType), "unsigned")
	types, ok := intTypes[normType(g.t.DataType)]
	if unsigned {
		return types[1], true, ok
	}
	return types[0], false, ok
}

// intBits is the Hive integer width the column is masked in (intType).
func (g gen) intBits() (int, error) {
	t, unsigned, ok := g.intType()
	switch {
	case !ok:
		return 0, fmt.Errorf("udf: column %s: %q is not an integer type", g.t.Column, g.typeName())
	case t.bits == 0 && unsigned:
		return 0, fmt.Errorf("udf: column %s: BIGINT UNSIGNED has no Hive integer type to mask in", g.t.Column)
	}
	return t.bits, nil
}

// nativeBits is the column's own signed width, or 0 when it differs from
// the masking width.
func (g gen) nativeBits(bits int) int {
	if strings.Contains(normType(g.t.ColumnType), "unsigned") || normType(g.t.DataType) == "mediumint" {
		return 0
	}
	return bits
}

func (g gen) intCast(bits int) string {
	if g.my() {
		return "SIGNED"
	}
	return map[int]string{8: "smallint", 16: "smallint", 32: "integer", 64: "bigint"}[bits]
}

// hiveIntResult is the Go reference result for one integer value.
func hiveIntResult(t *transformer, bits int, v int64) int64 {
	switch bits {
	case 8:
		return int64(maskInt(t, int8(v)))
	case 16:
		return int64(maskInt(t, int16(v)))
	case 32:
		return int64(maskInt(t, int32(v)))
	}
	return maskInt(t, v)
}

func (s *spec) transformer() *transformer {
	return &transformer{fn: s.fn, n: s.n, chars: s.chars, number: s.number, day: s.day, month: s.month, year: s.year}
}

// maskInteger is an integer column's mask: by the number of digits
// (maskIntegerByDigits) where that stands, else |value| masked as a digit
// string, the sign restored and the result wrapped into the Hive width,
// which is what the Java loops compute for every value but 0 and MIN;
// those two come from the Go reference as constants.
func (g gen) maskInteger(s *spec) (string, error) {
	bits, err := g.intBits()
	if err != nil {
		return "", err
	}
	tr := s.transformer()
	col := g.t.Column
	typ := g.intCast(bits)
	if x, ok := g.maskIntegerByDigits(tr, bits, typ); ok {
		return x, nil
	}
	num := "'" + itoa(s.number) + "'"
	n := itoa(min(s.n, 20))
	var digits string
	if g.my() {
		digits = "CAST(ABS(CAST(" + col + " AS DECIMAL(20,0))) AS CHAR)"
	} else {
		digits = "CAST(abs(CAST(" + col + " AS numeric)) AS text)"
	}
	d := "CHAR_LENGTH(" + digits + ")"
	sub := func(from string) string {
		if g.my() {
			return "SUBSTRING(" + digits + ", " + from + ")"
		}
		return "substr(" + digits + ", " + from + ")"
	}
	var m string
	switch s.fn {
	case fnMask:
		m = "REPEAT(" + num + ", " + d + ")"
	case fnFirstN:
		m = g.concat("REPEAT("+num+", LEAST("+n+", "+d+"))", sub(n+" + 1"))
	case fnLastN:
		m = g.concat("LEFT("+digits+", GREATEST("+d+" - "+n+", 0))", "REPEAT("+num+", LEAST("+n+", "+d+"))")
	case fnShowFirstN:
		m = g.concat("LEFT("+digits+", "+n+")", "REPEAT("+num+", GREATEST("+d+" - "+n+", 0))")
	case fnShowLastN:
		m = g.concat("REPEAT("+num+", GREATEST("+d+" - "+n+", 0))", "RIGHT("+digits+", "+n+")")
	}
	dec := "DECIMAL(20,0)"
	if !g.my() {
		dec = "numeric"
	}
	half := strconv.FormatUint(1<<(bits-1), 10)
	full := "18446744073709551616" // 2^64
	if bits < 64 {
		full = strconv.FormatUint(1<<bits, 10)
	}
	sign := "SIGN(" + col + ")"
	if !g.my() {
		sign = "sign(CAST(" + col + " AS numeric))" // sign(smallint) would be double precision
	}
	signed := sign + " * CAST(" + m + " AS " + dec + ")"
	wrapped := "MOD(MOD(" + signed + " + " + half + ", " + full + ") + " + full + ", " + full + ") - " + half
	var b strings.Builder
	b.WriteString("CASE WHEN " + col + " = 0 THEN " + g.cast(strconv.FormatInt(hiveIntResult(tr, bits, 0), 10), typ))
	if nb := g.nativeBits(bits); nb != 0 {
		minv := -int64(1) << (nb - 1)
		b.WriteString(" WHEN " + col + " = " + strconv.FormatInt(minv, 10) + " THEN " + g.cast(strconv.FormatInt(hiveIntResult(tr, bits, minv), 10), typ))
	}
	b.WriteString(" ELSE " + g.cast(wrapped, typ) + " END")
	return b.String(), nil
}

// maxIntegerSQL is the size above which maskIntegerByDigits leaves a
// column to maskInteger's digit string (a mask's size limit, MariaDB's
// nullability wrapper included; the forms by digits grow with the column's
// name).
const maxIntegerSQL = 1024

// maskIntegerByDigits is an integer column's mask without printing the
// value. Every mask of an integer replaces the digits at positions fixed by
// the value's number of digits d and keeps the others, so over the values of
// one length the result is sign × (C + kept), where C depends only on d and
// kept is a part of |v| (keptDigits): its last digits (|v| mod m) or its
// first ones (|v| - |v| mod m), m a power of ten. Each C is the Go
// reference's (hiveIntResult), and the rung is picked, over |v|
// (digitLadder) or over the value itself with a ladder per sign
// (signedLadder), by comparisons with the powers of ten or by the number
// of digits, or on PostgreSQL looked up in an array (bucketLadder),
// instead of a decimal printed as text, replaced and read back (which
// cost several times as much over a scan). The reference is checked to
// give exactly that form at both ends of every length and at its largest
// kept part, for both signs: Hive adds in the column's width, and the
// kept part grows with |v| within a length, so a sum that wraps anywhere
// in a length wraps at its largest kept part. ok is false when a check
// fails or the SQL would exceed maxIntegerSQL: maskInteger's form then
// stands.
func (g gen) maskIntegerByDigits(tr *transformer, bits int, typ string) (string, bool) {
	digits, maxv, unsigned := g.intRange()
	if digits == 0 || min(tr.n, digits) >= 19 {
		return "", false
	}
	rungs, ok := digitRungs(tr, bits, digits, maxv, unsigned)
	if !ok {
		return "", false
	}
	// The fastest form that fits the size a mask may take. Over the value
	// itself (signedLadder, no ABS and no sign to multiply in: a fifth to
	// a third less of a masked scan) before the magnitude (digitLadder,
	// which repeats no ladder); by comparisons, which name the column in
	// each, before counting the digits, which names it once per ladder.
	// MariaDB counts the characters of the value's text a little slower
	// than it compares (ABS drops an unsigned ZEROFILL column's padding; a
	// number's text is ASCII digits in every connection character set);
	// PostgreSQL's count is slower by more (its text conversion, and its
	// simple CASE is an equality per WHEN), so it counts only past the
	// size of the magnitude's comparisons; before those it looks the rung
	// up in an array (bucketLadder), which names the column once.
	col := g.t.Column
	abs := "ABS(" + col + ")"
	var forms []func() string
	if g.my() {
		count := "CHAR_LENGTH(" + col + ")"
		if unsigned {
			count = "CHAR_LENGTH(" + abs + ")"
		}
		forms = []func() string{
			func() string { return g.signedLadder(tr, bits, typ, rungs, maxv, unsigned, byComparison(col, rungs)) },
			func() string { return g.signedLadder(tr, bits, typ, rungs, maxv, unsigned, byCount(count, rungs)) },
			func() string {
				return g.digitLadder(tr, bits, typ, rungs, maxv, unsigned, abs, byCount("CHAR_LENGTH("+abs+")", rungs))
			},
		}
	} else {
		forms = []func() string{
			func() string { return g.signedLadder(tr, bits, typ, rungs, maxv, unsigned, byComparison(col, rungs)) },
			func() string { return g.bucketLadder(tr, bits, typ, rungs, maxv) },
			func() string {
				return g.digitLadder(tr, bits, typ, rungs, maxv, unsigned, abs, byComparison(abs, rungs))
			},
			func() string {
				return g.digitLadder(tr, bits, typ, rungs, maxv, unsigned, abs, byCount("length(CAST("+abs+" AS text))", rungs))
			},
		}
	}
	limit := maxIntegerSQL - len(g.nullableAsColumn(""))
	for _, form := range forms {
		if x := form(); x != "" && len(x) <= limit {
			return x, true
		}
	}
	return "", false
}

// rungPicker writes the CASE that gives the values of each rung (of one
// sign: -1 for the negative values of signedLadder) result(rung).
type rungPicker func(sign int64, result func(digitRung) string) string

// byComparison picks the rung by comparing x with the powers of ten
// (x < 10^d, or x > -10^d for the negative values), on two levels of
// about sqrt(rungs) comparisons each: as few comparisons per value as a
// binary ladder, in the size of a straight one. Rungs that give what the
// next one gives are served by its comparison.
func byComparison(x string, rungs []digitRung) rungPicker {
	var steps []digitRung
	for i, r := range rungs {
		if i+1 < len(rungs) && rungs[i+1].c == r.c && rungs[i+1].kept == r.kept {
			continue
		}
		steps = append(steps, r)
	}
	// straight gives values[i] to the values of steps[i], the last ELSE.
	straight := func(sign int64, steps []digitRung, values []string) string {
		if len(values) == 1 {
			return values[0]
		}
		var b strings.Builder
		b.WriteString("CASE")
		for i, r := range steps[:len(steps)-1] {
			if sign < 0 {
				b.WriteString(" WHEN " + x + " > " + strconv.FormatInt(-r.below, 10))
			} else {
				b.WriteString(" WHEN " + x + " < " + strconv.FormatInt(r.below, 10))
			}
			b.WriteString(" THEN " + values[i])
		}
		b.WriteString(" ELSE " + values[len(values)-1] + " END")
		return b.String()
	}
	size := int(math.Ceil(math.Sqrt(float64(len(steps)))))
	return func(sign int64, result func(digitRung) string) string {
		// A group stands at the top level as its last rung.
		var tops []digitRung
		var groups []string
		for g := range slices.Chunk(steps, size) {
			values := make([]string, len(g))
			for i, r := range g {
				values[i] = result(r)
			}
			tops = append(tops, g[len(g)-1])
			groups = append(groups, straight(sign, g, values))
		}
		return straight(sign, tops, groups)
	}
}

// byCount picks the rung by the number of characters of count, a
// value's text: its digits, and a minus sign before a negative value's.
// The rungs that give what the last one gives are its ELSE.
func byCount(count string, rungs []digitRung) rungPicker {
	return func(sign int64, result func(digitRung) string) string {
		minus := 0
		if sign < 0 {
			minus = 1
		}
		final := rungs[len(rungs)-1]
		var b strings.Builder
		for i, r := range rungs[:len(rungs)-1] {
			if r.c != final.c || r.kept != final.kept {
				b.WriteString(" WHEN " + strconv.Itoa(i+1+minus) + " THEN " + result(r))
			}
		}
		if b.Len() == 0 {
			return result(final)
		}
		return "CASE " + count + b.String() + " ELSE " + result(final) + " END"
	}
}

// uniformKept reports whether every rung keeps the same part (MASK, the
// SHOW_LAST_N and LAST_N forms): it is then added once, outside the
// ladder of constants.
func uniformKept(rungs []digitRung) bool {
	for _, r := range rungs {
		if r.kept != rungs[0].kept {
			return false
		}
	}
	return true
}

// digitLadder is the SQL of rungs over the magnitude |v| (abs, the SQL
// of it), the rung picked by pick, the sign multiplied in, and zero and
// the type's least value constants.
func (g gen) digitLadder(tr *transformer, bits int, typ string, rungs []digitRung, maxv int64, unsigned bool, abs string, pick rungPicker) string {
	col := g.t.Column
	uniform := uniformKept(rungs)
	magnitude := pick(1, func(r digitRung) string {
		value := strconv.FormatInt(r.c, 10)
		if uniform {
			return value
		}
		return g.keptSum(r.kept, value, abs)
	})
	if uniform {
		magnitude = g.keptSum(rungs[0].kept, magnitude, abs)
	}
	if _, err := strconv.ParseInt(magnitude, 10, 64); err != nil {
		magnitude = "(" + magnitude + ")" // multiplied by the sign
	}
	var b strings.Builder
	b.WriteString("CASE WHEN " + col + " = 0 THEN " + strconv.FormatInt(hiveIntResult(tr, bits, 0), 10))
	if !unsigned {
		// The type's least value has no magnitude in the type (ABS
		// fails on it, and the rungs were checked up to maxv): it is a
		// constant, also for a MEDIUMINT, which Hive masks in 32 bits.
		minv := -maxv - 1
		b.WriteString(" WHEN " + col + " = " + strconv.FormatInt(minv, 10) + " THEN " + strconv.FormatInt(hiveIntResult(tr, bits, minv), 10))
	}
	// The sign keeps NULL NULL (the ladder's ELSE would not). PostgreSQL's
	// sign() of an integer is a double, so its sign is a CASE without ELSE.
	sign := "SIGN(" + col + ")"
	if !g.my() {
		sign = "(CASE WHEN " + col + " < 0 THEN -1 WHEN " + col + " > 0 THEN 1 END)"
	}
	b.WriteString(" ELSE " + sign + " * " + magnitude + " END")
	return g.cast(b.String(), typ)
}

// signedLadder is the SQL of rungs over the value itself: the values
// from zero up and the negative ones each on a ladder of their own
// (pick's, of the sign), with no ABS and no sign multiplied in. A
// negative value's kept part is read from the value: MOD and integer
// division truncate toward zero on both servers (keptPart.ofSigned), so
// MOD(v, m) is -(|v| mod m) and v DIV m * m is -(|v| DIV m * m) for v < 0.
// The type's least value, which the rungs were not checked for, is a
// constant unless the last rung gives it Hive's result. It repeats the
// ladder for each sign: maskIntegerByDigits takes it where it fits the
// size of a mask. "" when the form does not stand.
func (g gen) signedLadder(tr *transformer, bits int, typ string, rungs []digitRung, maxv int64, unsigned bool, pick rungPicker) string {
	minv := -maxv - 1
	ok, leastOnLadder := signedRungs(tr, bits, rungs, minv)
	if !ok {
		return ""
	}
	col := g.t.Column
	uniform := uniformKept(rungs)
	side := func(sign int64) string {
		x := pick(sign, func(r digitRung) string {
			value := strconv.FormatInt(sign*r.c, 10)
			if uniform {
				return value
			}
			return g.keptSum(r.kept, value, col)
		})
		if uniform {
			return g.keptSum(rungs[0].kept, x, col)
		}
		return x
	}
	var b strings.Builder
	b.WriteString("CASE WHEN " + col + " >= 0 THEN " + side(1))
	if !unsigned {
		if leastOnLadder {
			b.WriteString(" WHEN " + col + " < 0 THEN " + side(-1))
		} else {
			b.WriteString(" WHEN " + col + " > " + strconv.FormatInt(minv, 10) + " THEN " + side(-1))
			b.WriteString(" WHEN " + col + " = " + strconv.FormatInt(minv, 10) + " THEN " + strconv.FormatInt(hiveIntResult(tr, bits, minv), 10))
		}
	}
	// No ELSE: NULL stays NULL.
	b.WriteString(" END")
	return g.cast(b.String(), typ)
}

// bucketLadder is the SQL of rungs for PostgreSQL with the rung looked up
// by width_bucket (a binary search in C) among the rungs' lower bounds,
// from the type's least value up, and its constant read from an array of
// them, signed: it names the column once (twice with a kept part), so its
// size does not grow with the ladder. Only for masks whose rungs all keep
// the same part (MASK, SHOW_LAST_N, LAST_N), added once outside: a part
// that changes with the rung would take the lookup three times, slower
// than the comparisons. Zero is on the first rung from zero up, and the
// least value on the last negative one where that gives it Hive's result,
// else a constant. NULL gives NULL (width_bucket and the subscript do).
// "" when the form does not stand.
func (g gen) bucketLadder(tr *transformer, bits int, typ string, rungs []digitRung, maxv int64) string {
	minv := -maxv - 1
	ok, leastOnLadder := signedRungs(tr, bits, rungs, minv)
	if g.my() || !ok || !uniformKept(rungs) {
		return ""
	}
	col := g.t.Column
	var bounds, consts []string
	// The negative rungs, most digits first: the rung of i+1 digits starts
	// at -(10^(i+1) - 1), the last one at the least value.
	for i := len(rungs) - 1; i >= 0; i-- {
		lower := minv
		if i < len(rungs)-1 {
			lower = -(rungs[i].below - 1)
		}
		bounds = append(bounds, strconv.FormatInt(lower, 10))
		consts = append(consts, strconv.FormatInt(-rungs[i].c, 10))
	}
	// Zero and the positive rungs: the rung of i+1 digits starts at 10^i.
	for i, r := range rungs {
		lower := int64(0)
		if i > 0 {
			lower = rungs[i-1].below
		}
		bounds = append(bounds, strconv.FormatInt(lower, 10))
		consts = append(consts, strconv.FormatInt(r.c, 10))
	}
	x := "(CAST('{" + strings.Join(consts, ",") + "}' AS bigint[]))[width_bucket(" + col +
		", CAST('{" + strings.Join(bounds, ",") + "}' AS bigint[]))]"
	x = g.keptSum(rungs[0].kept, x, col)
	if !leastOnLadder {
		x = "CASE WHEN " + col + " = " + strconv.FormatInt(minv, 10) + " THEN " + strconv.FormatInt(hiveIntResult(tr, bits, minv), 10) + " ELSE " + x + " END"
	}
	return g.cast(x, typ)
}

// signedRungs reports whether rungs serve the values of both signs read
// from the value itself (signedLadder, bucketLadder): every constant has
// a negative in int64, and zero is on the first rung, which gives it what
// Hive does (for every mask digitRungs accepts, TestDigitRungsEveryValue).
// leastOnLadder reports whether the type's least value, which the rungs
// were not checked for, is on the last one too: the negated constant
// plus its kept part as the SQL computes it is Hive's result, without
// passing int64.
func signedRungs(tr *transformer, bits int, rungs []digitRung, minv int64) (ok, leastOnLadder bool) {
	for _, r := range rungs {
		if r.c == math.MinInt64 {
			return false, false
		}
	}
	if hiveIntResult(tr, bits, 0) != rungs[0].c {
		return false, false
	}
	last := rungs[len(rungs)-1]
	onLadder, fits := addInt64(-last.c, last.kept.ofSigned(minv))
	return true, fits && onLadder == hiveIntResult(tr, bits, minv)
}

// digitRung is the masked magnitudes of one number of digits: those below
// below (the last rung has none) and not below the rung before it are
// c plus their kept part.
type digitRung struct {
	below int64
	c     int64
	kept  keptPart
}

// digitRungs are tr's results for the magnitudes of 1 to digits digits (up
// to maxv) as sign × (c + kept part), one rung per number of digits, and
// whether the Go reference gives that form at both ends of every rung and
// at its largest kept part, for both signs (unless the type is unsigned),
// with no sum that wraps in int64.
func digitRungs(tr *transformer, bits, digits int, maxv int64, unsigned bool) ([]digitRung, bool) {
	var rungs []digitRung
	pow := int64(1) // 10^(d-1)
	for d := 1; d <= digits; d++ {
		lowest, highest := pow, maxv
		if d < digits {
			highest = pow*10 - 1
		}
		kept := tr.keptDigits(d, digits)
		if kept.m == 0 {
			return nil, false
		}
		c, ok := addInt64(hiveIntResult(tr, bits, lowest), -kept.of(lowest))
		if !ok {
			return nil, false
		}
		// The largest value of this length whose kept part is the largest.
		top := highest
		if !kept.head && kept.m > 1 {
			if t := highest - highest%kept.m - 1; t >= lowest {
				top = t
			}
		}
		for _, v := range []int64{lowest, highest, top} {
			// The SQL adds without wrapping (the servers fail on an
			// overflow), so a sum that only wraps in Go fails the check.
			want, ok := addInt64(c, kept.of(v))
			if !ok || want == math.MinInt64 || hiveIntResult(tr, bits, v) != want || !unsigned && hiveIntResult(tr, bits, -v) != -want {
				return nil, false
			}
		}
		r := digitRung{c: c, kept: kept}
		if d < digits {
			pow *= 10
			r.below = pow
		}
		rungs = append(rungs, r)
	}
	return rungs, true
}

// addInt64 is a + b and whether it did not wrap.
func addInt64(a, b int64) (int64, bool) {
	sum := a + b
	return sum, (sum > a) == (b > 0)
}

// keptPart is the part of a magnitude a mask keeps: its last digits,
// |v| mod m, or (head) its first ones, |v| - |v| mod m; m is a power of
// ten (1: nothing of the tail, all of the head).
type keptPart struct {
	head bool
	m    int64
}

// keptDigits is what tr keeps of a magnitude of d digits, in a column of at
// most digits digits; m is 0 where the power of ten passes int64 (the
// ladder then does not stand).
func (tr *transformer) keptDigits(d, digits int) keptPart {
	pow10 := func(k int) int64 {
		if k > 18 {
			return 0
		}
		m := int64(1)
		for range max(k, 0) {
			m *= 10
		}
		return m
	}
	switch tr.fn {
	case fnShowLastN: // the last n
		return keptPart{m: pow10(min(tr.n, digits))}
	case fnLastN: // all but the last n
		return keptPart{head: true, m: pow10(min(tr.n, digits))}
	case fnFirstN: // all but the first n: the last d - n
		return keptPart{m: pow10(d - tr.n)}
	case fnShowFirstN: // the first n: all but the last d - n
		return keptPart{head: true, m: pow10(d - tr.n)}
	}
	return keptPart{m: 1} // MASK: nothing
}

// of is the kept part of the magnitude v.
func (k keptPart) of(v int64) int64 {
	if k.head {
		return v - v%k.m
	}
	return v % k.m
}

// ofSigned is the kept part the SQL computes of a value of either sign
// (keptSum's with the value for the magnitude): MOD and integer division
// truncate toward zero, as Go's do, so for v < 0 it is -k.of(-v).
func (k keptPart) ofSigned(v int64) int64 {
	if k.head {
		return v / k.m * k.m
	}
	return v % k.m
}

// keptSum is the SQL of c plus k's kept part of abs (the SQL of the
// magnitude). The head is |v| divided and multiplied again by m in
// integers (MariaDB's DIV, PostgreSQL's / of integers), which never passes
// |v|, so that no sum passes the kept result (PostgreSQL's integers fail
// on overflow).
func (g gen) keptSum(k keptPart, c, abs string) string {
	m := strconv.FormatInt(k.m, 10)
	var part string
	switch {
	case k.head && k.m == 1:
		part = abs
	case k.head && g.my():
		part = abs + " DIV " + m + " * " + m
	case k.head:
		part = abs + " / " + m + " * " + m
	case k.m > 1:
		part = "MOD(" + abs + ", " + m + ")"
	default:
		return c
	}
	if c == "0" {
		return part
	}
	return c + " + " + part
}

// intRange is the number of decimal digits of the largest magnitude the
// column's native type holds, that magnitude, and whether the type is
// unsigned; 0 digits for a type it does not know or cannot mask.
func (g gen) intRange() (digits int, maxv int64, unsigned bool) {
	t, unsigned, _ := g.intType()
	if t.bits == 0 {
		return 0, 0, unsigned
	}
	return t.digits, t.maxv, unsigned
}

// ---- dates -------------------------------------------------------------------

// dateAlwaysValid reports whether the (day, month, year) replacement yields
// an existing date for every input date; Hive fails the query otherwise, and
// SQL cannot, so such masks are refused.
func dateAlwaysValid(s *spec) bool {
	for _, leap := range []bool{false, true} {
		for m := 1; m <= 12; m++ {
			y0 := 2001
			if leap {
				y0 = 2000
			}
			for d := 1; d <= daysIn(time.Month(m), y0); d++ {
				y, mm, dd := y0, m, d
				if s.year != keep {
					y = s.year
				}
				if s.month != keep {
					mm = s.month + 1
				}
				if s.day != keep {
					dd = s.day
				}
				if dd > daysIn(time.Month(mm), y) {
					return false
				}
			}
		}
	}
	return true
}

func (g gen) maskDate(s *spec) (string, error) {
	if !dateAlwaysValid(s) {
		return "", fmt.Errorf("udf: mask %s: day %d, month %d, year %d can build a date that does not exist", s.typ, s.day, s.month, s.year)
	}
	col := g.t.Column
	if g.t.ServerMasks && !g.my() && (s.year == keep || s.month == keep || s.day == keep) {
		return g.serverMaskDate(s), nil
	}
	if g.my() {
		part := func(v int, fn string, width int) string {
			if v != keep {
				return "'" + fmt.Sprintf("%0*d", width, v) + "'"
			}
			return "LPAD(" + fn + "(" + col + "), " + itoa(width) + ", '0')"
		}
		month := keep
		if s.month != keep {
			month = s.month + 1
		}
		// Hive's calendar has a 29 February in year 0 and MariaDB's has
		// not: a date MariaDB builds there is NULL (a pinned divergence),
		// where the same date as a literal would fail the statement.
		yearZeroLeapDay := s.year == 0 && s.month == 1 && s.day == 29
		if s.year != keep && s.month != keep && s.day != keep && !yearZeroLeapDay {
			// One date for every row: a literal, not a string built and
			// cast on each row (which cost twice the raw scan).
			return g.nullGuard(fmt.Sprintf("DATE'%04d-%02d-%02d'", s.year, month, s.day)), nil
		}
		if s.year == keep && s.month != keep && s.day != keep {
			// A fixed day of the value's year (MASK_DATE_SHOW_YEAR is the
			// first of January) computed without building a string: the
			// same value for every date, zero dates included, at about
			// half the cost over a scan. dateAlwaysValid has made sure the
			// day exists in every year, so DATE_ADD never moves it.
			// (MAKEDATE would read a year below 100 as 19xx or 20xx.)
			return fmt.Sprintf("DATE_ADD(DATE'0000-%02d-%02d', INTERVAL YEAR(%s) YEAR)", month, s.day, col), nil
		}
		return "CAST(CONCAT(" + part(s.year, "YEAR", 4) + ", '-', " + part(month, "MONTH", 2) + ", '-', " + part(s.day, "DAY", 2) + ") AS DATE)", nil
	}
	// made is make_date of the fixed parts and the value's others, each
	// read by part.
	made := func(part func(field string) string) string {
		year, month, day := itoa(s.year), itoa(s.month+1), itoa(s.day)
		if s.year == keep {
			year = part("year")
		} else if s.year == 0 {
			year = "-1" // ISO year 0 is 1 BC
		}
		if s.month == keep {
			month = part("month")
		}
		if s.day == keep {
			day = part("day")
		}
		return "make_date(" + year + ", " + month + ", " + day + ")"
	}
	extracted := made(func(field string) string {
		return "CAST(EXTRACT(" + strings.ToUpper(field) + " FROM " + col + ") AS integer)"
	})
	// isfinite: NULL and ±infinity (which has no parts) give NULL.
	finite := "WHEN isfinite(" + col + ") THEN " + extracted + " END"
	if s.year != keep && s.month != keep && s.day != keep {
		return "CASE " + finite, nil
	}
	// EXTRACT computes in numeric; date_part reads a timestamp in double
	// precision, a quarter less over a scan, but a timestamp ends in
	// 294276 AD where a date goes on: date_part serves the dates a
	// timestamp holds (it starts where a date does, 4714-11-24 BC), and
	// EXTRACT the others.
	parted := made(func(field string) string {
		return "CAST(date_part('" + field + "', CAST(" + col + " AS timestamp)) AS integer)"
	})
	return "CASE WHEN " + col + " > DATE '-infinity' AND " + col + " < DATE '294277-01-01' THEN " + parted + " " + finite, nil
}

// WhenSQL returns the conditional form of a mask: mask, the expression
// MaskSQL returned for t and maskType, where cond holds or is unknown
// (NULL), and the raw column where cond is false, so that a condition
// that cannot be decided masks (fail closed):
//
//	CASE WHEN (cond) IS FALSE THEN <raw> ELSE <mask> END
//
// cond is SQL text the caller has parsed as one expression over the
// row's raw columns. The raw branch takes the form the mask's result has
// (on MariaDB a masked string is utf8mb4 with an explicit binary
// collation, see strIn), so that the column has the type the plain mask
// gives it.
func WhenSQL(t Target, maskType, cond, mask string) string {
	raw := t.Column
	typ := strings.ToUpper(maskType)
	if t.Dialect == MySQL && KindOf(t.DataType) == KindString && typ != TypeCustom && typ != TypeNone {
		raw = myText(raw)
	}
	return "CASE WHEN (" + cond + ") IS FALSE THEN " + raw + " ELSE " + mask + " END"
}
