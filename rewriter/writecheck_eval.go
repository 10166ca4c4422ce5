package rewriter

import (
	"cmp"
	"database/sql/driver"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// truth is a check's outcome for one row: SQL's three values plus
// truthMaybe, "sqe cannot tell", which fails the check like false.
type truth uint8

const (
	truthMaybe truth = iota
	truthTrue
	truthFalse
	truthNull
)

func not(t truth) truth {
	switch t {
	case truthTrue:
		return truthFalse
	case truthFalse:
		return truthTrue
	}
	return t
}

// and is SQL's AND, with maybe standing for "true, false or null".
func and(a, b truth) truth {
	switch {
	case a == truthFalse || b == truthFalse:
		return truthFalse
	case a == truthMaybe || b == truthMaybe:
		return truthMaybe
	case a == truthNull || b == truthNull:
		return truthNull
	}
	return truthTrue
}

func or(a, b truth) truth { return not(and(not(a), not(b))) }

// class is how sqe compares a column's values.
type class uint8

const (
	classUnknown class = iota // sqe cannot compare: the check is undecidable
	classNull                 // SQL NULL
	classNumber               // an exact number (integers)
	classString
	classBool
	classUUID
)

// stored is a value as the column stores it.
type stored struct {
	class class
	num   int64
	str   string
	b     bool
}

var unknownValue = stored{class: classUnknown}

// columnKind is the class of a column's type, with its limits.
type columnKind struct {
	class    class
	min, max int64 // classNumber: the integer range
	maxChars int   // classString: the declared length in characters (0: none)
	maxBytes int   // classString: a byte limit (MySQL TEXT types; 0: none)
}

// kindOf maps a catalog column type to how its values compare; an unknown
// type is classUnknown.
func (r ValueRules) kindOf(c Column) columnKind {
	if c.Nondeterministic {
		return columnKind{} // its collation decides equality
	}
	full := c.ColumnType
	unsigned := strings.Contains(full, "unsigned")
	ints := func(bits uint) columnKind {
		if unsigned {
			if bits == 64 {
				return columnKind{class: classNumber, min: 0, max: math.MaxInt64}
			}
			return columnKind{class: classNumber, min: 0, max: 1<<bits - 1}
		}
		return columnKind{class: classNumber, min: -1 << (bits - 1), max: 1<<(bits-1) - 1}
	}
	switch c.DataType {
	case "tinyint":
		return ints(8)
	case "smallint", "int2":
		return ints(16)
	case "mediumint":
		return ints(24)
	case "int", "integer", "int4":
		return ints(32)
	case "bigint", "int8":
		return ints(64)
	case "varchar", "character varying", "char", "character", "bpchar":
		k := columnKind{class: classString, maxChars: declaredLength(full)}
		if k.maxChars <= 0 && r.LengthDeclared {
			return columnKind{} // a length sqe did not read
		}
		return k
	case "text":
		return columnKind{class: classString, maxBytes: r.TextBytes}
	case "tinytext":
		return columnKind{class: classString, maxBytes: 255}
	case "mediumtext":
		return columnKind{class: classString, maxBytes: 1<<24 - 1}
	case "longtext":
		return columnKind{class: classString, maxBytes: 1<<32 - 1}
	case "boolean", "bool":
		if r.BooleanUUID {
			return columnKind{class: classBool}
		}
	case "uuid":
		if r.BooleanUUID {
			return columnKind{class: classUUID}
		}
	}
	return columnKind{}
}

// declaredLength is n of a type written t(n) (0 when there is none).
func declaredLength(full string) int {
	open := strings.IndexByte(full, '(')
	end := strings.IndexByte(full, ')')
	if open < 0 || end < open {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(full[open+1 : end]))
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// store is the value a written row gives column j, as the column stores
// it, or unknownValue when sqe cannot be sure what the server stores.
func (w *WriteCheck) store(k columnKind, v Value, args []driver.NamedValue) stored {
	switch v.Kind {
	case ValueConst:
		return w.storeConst(k, v.Const)
	case ValueArg:
		if i := v.Arg - 1; i >= 0 && i < len(args) && args[i].Ordinal == v.Arg && args[i].Name == "" {
			return w.storeGo(k, args[i].Value)
		}
		for _, a := range args {
			if a.Ordinal == v.Arg && a.Name == "" {
				return w.storeGo(k, a.Value)
			}
		}
	}
	return unknownValue
}

// storeConst stores a literal of the statement.
func (w *WriteCheck) storeConst(k columnKind, c Const) stored {
	switch c.Kind {
	case ConstNull:
		return stored{class: classNull}
	case ConstNumber:
		if k.class == classNumber {
			return k.integer(c.Text)
		}
	case ConstString:
		switch k.class {
		case classNumber:
			return k.integer(c.Text)
		case classString:
			return w.storeString(k, c.Text)
		case classUUID:
			return storeUUID(c.Text)
		}
	case ConstBool:
		switch k.class {
		case classBool:
			return stored{class: classBool, b: c.Bool}
		case classNumber:
			if w.Rules.TrueIsOne {
				return k.integer(boolDigit(c.Bool))
			}
		}
	}
	return unknownValue
}

// storeGo stores an argument's Go value.
func (w *WriteCheck) storeGo(k columnKind, x any) (s stored) {
	if vr, ok := x.(driver.Valuer); ok {
		defer func() {
			if recover() != nil {
				s = unknownValue
			}
		}()
		if rv := reflect.ValueOf(x); rv.Kind() == reflect.Pointer && rv.IsNil() {
			return stored{class: classNull}
		}
		v, err := vr.Value()
		if err != nil {
			return unknownValue
		}
		x = v
	}
	switch v := x.(type) {
	case nil:
		return stored{class: classNull}
	case int64:
		if k.class == classNumber && v >= k.min && v <= k.max {
			return stored{class: classNumber, num: v}
		}
	case int:
		return w.storeGo(k, int64(v))
	case int32:
		return w.storeGo(k, int64(v))
	case float64:
		if k.class == classNumber && v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			return k.integer(strconv.FormatFloat(v, 'f', 0, 64))
		}
	case bool:
		switch k.class {
		case classBool:
			return stored{class: classBool, b: v}
		case classNumber:
			if w.Rules.TrueIsOne {
				return k.integer(boolDigit(v))
			}
		}
	case string:
		switch k.class {
		case classNumber:
			return k.integer(v)
		case classString:
			return w.storeString(k, v)
		case classUUID:
			return storeUUID(v)
		}
	case []byte:
		if k.class == classUUID {
			// Drivers differ on whether bytes are the UUID or its text.
			return unknownValue
		}
		return w.storeGo(k, string(v))
	case [16]byte:
		if k.class == classUUID {
			return stored{class: classUUID, str: string(v[:])}
		}
	case time.Time:
	default:
		// Other integer, string and byte types a driver passes on as
		// they are (pgx takes any Go value).
		rv := reflect.ValueOf(x)
		switch rv.Kind() {
		case reflect.Pointer:
			if rv.IsNil() {
				return stored{class: classNull}
			}
			return w.storeGo(k, rv.Elem().Interface())
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			return w.storeGo(k, rv.Int())
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			if u := rv.Uint(); u <= math.MaxInt64 {
				return w.storeGo(k, int64(u))
			}
		case reflect.String:
			return w.storeGo(k, rv.String())
		case reflect.Array:
			if rv.Len() == 16 && rv.Type().Elem().Kind() == reflect.Uint8 {
				var b [16]byte
				reflect.Copy(reflect.ValueOf(&b).Elem(), rv)
				return w.storeGo(k, b)
			}
		}
	}
	return unknownValue
}

// integer stores a number written in decimal digits (an optional minus
// sign, no spaces, no fraction) if the column's range holds it.
func (k columnKind) integer(s string) stored {
	if k.class != classNumber || s == "" {
		return unknownValue
	}
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || len(digits) > 19 || strings.Trim(digits, "0123456789") != "" {
		return unknownValue
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < k.min || n > k.max {
		return unknownValue
	}
	return stored{class: classNumber, num: n}
}

// storeString stores a string the column keeps exactly as given: valid
// UTF-8 without NUL within the declared length; printable ASCII only
// where the column's character set is not known to sqe.
func (w *WriteCheck) storeString(k columnKind, s string) stored {
	if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
		return unknownValue
	}
	if w.Rules.CollationsFold && !printableASCII(s) {
		return unknownValue
	}
	if k.maxChars > 0 && utf8.RuneCountInString(s) > k.maxChars || k.maxBytes > 0 && len(s) > k.maxBytes {
		return unknownValue
	}
	return stored{class: classString, str: s}
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// storeUUID parses a UUID as PostgreSQL's input accepts its usual forms:
// 32 hex digits, with the standard hyphens or none, optionally in braces.
func storeUUID(s string) stored {
	if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
		s = s[1 : len(s)-1]
	}
	if len(s) == 36 {
		if s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
			return unknownValue
		}
		s = s[:8] + s[9:13] + s[14:18] + s[19:23] + s[24:]
	}
	if len(s) != 32 {
		return unknownValue
	}
	var b [16]byte
	for i := 0; i < 16; i++ {
		v, err := strconv.ParseUint(s[2*i:2*i+2], 16, 8)
		if err != nil {
			return unknownValue
		}
		b[i] = byte(v)
	}
	return stored{class: classUUID, str: string(b[:])}
}

// operandRef is an operand resolved once per check: a column of the row
// (col >= 0) or a constant already read as its comparison reads it.
type operandRef struct {
	col int
	val stored
}

// resolvedCond holds a Cond node's operands, resolved.
type resolvedCond struct {
	left, right operandRef
	list        []operandRef
}

// resolve resolves the operands of every node of c (once per check: a
// WriteCheck is shared by every execution of a cached rewrite).
func (w *WriteCheck) resolve(c *Cond) {
	for _, a := range c.Args {
		w.resolve(a)
	}
	var r resolvedCond
	switch c.Op {
	case CondCompare:
		r.left, r.right = w.operandPair(c.Left, c.Right)
	case CondIn:
		for _, o := range c.List {
			l, x := w.operandPair(c.Left, o)
			r.left = l
			r.list = append(r.list, x)
		}
	case CondIsNull:
		r.left = w.operandRefOf(c.Left, columnKind{})
	case CondTruth, CondValue:
		r.left = w.operandRefOf(c.Left, columnKind{class: classBool})
	}
	w.resolved[c] = r
}

// operandPair resolves both sides of a comparison: a constant is read as
// the other side's column reads it.
func (w *WriteCheck) operandPair(a, b Operand) (operandRef, operandRef) {
	ka, kb := w.kindOfOperand(a), w.kindOfOperand(b)
	if a.Column == "" {
		ka = kb
	}
	if b.Column == "" {
		kb = ka
	}
	return w.operandRefOf(a, ka), w.operandRefOf(b, kb)
}

func (w *WriteCheck) operandRefOf(o Operand, k columnKind) operandRef {
	if o.Column != "" {
		for j, c := range w.Columns {
			if strings.EqualFold(c.Name, o.Column) {
				return operandRef{col: j}
			}
		}
		return operandRef{col: -1, val: unknownValue}
	}
	return operandRef{col: -1, val: w.constant(o.Const, k)}
}

func (r operandRef) value(vals []stored) stored {
	if r.col >= 0 {
		return vals[r.col]
	}
	return r.val
}

// eval evaluates c for a row whose columns hold vals.
func (w *WriteCheck) eval(c *Cond, vals []stored) truth {
	switch c.Op {
	case CondAnd:
		t := truthTrue
		for _, a := range c.Args {
			t = and(t, w.eval(a, vals))
		}
		return t
	case CondOr:
		t := truthFalse
		for _, a := range c.Args {
			t = or(t, w.eval(a, vals))
		}
		return t
	case CondNot:
		if len(c.Args) != 1 {
			return truthMaybe
		}
		return not(w.eval(c.Args[0], vals))
	}
	r := w.resolved[c]
	switch c.Op {
	case CondCompare:
		return w.compare(c.Cmp, r.left.value(vals), r.right.value(vals))
	case CondIn:
		t := truthFalse
		l := r.left.value(vals)
		for _, x := range r.list {
			t = or(t, w.compare(CmpEq, l, x.value(vals)))
		}
		if c.Negate {
			return not(t)
		}
		return t
	case CondIsNull:
		var t truth
		switch r.left.value(vals).class {
		case classUnknown:
			return truthMaybe
		case classNull:
			t = truthTrue
		default:
			t = truthFalse
		}
		if c.Negate {
			return not(t)
		}
		return t
	case CondTruth:
		v := boolTruthOf(r.left.value(vals))
		if v == truthMaybe {
			return truthMaybe
		}
		t := truthFalse
		if c.Want && v == truthTrue || !c.Want && v == truthFalse {
			t = truthTrue
		}
		if c.Negate {
			return not(t)
		}
		return t
	case CondValue:
		return boolTruthOf(r.left.value(vals))
	}
	return truthMaybe
}

// boolTruthOf is a value read as a condition: a boolean, or NULL.
func boolTruthOf(v stored) truth {
	switch v.class {
	case classNull:
		return truthNull
	case classBool:
		if v.b {
			return truthTrue
		}
		return truthFalse
	}
	return truthMaybe
}

func (w *WriteCheck) kindOfOperand(o Operand) columnKind {
	if o.Column == "" {
		return columnKind{}
	}
	for j, c := range w.Columns {
		if strings.EqualFold(c.Name, o.Column) {
			return w.kinds[j]
		}
	}
	return columnKind{}
}

// constant is a constant read as a value of kind k (a constant compared
// with a constant: by its own kind).
func (w *WriteCheck) constant(c Const, k columnKind) stored {
	if k.class == classUnknown {
		switch c.Kind {
		case ConstNull:
			return stored{class: classNull}
		case ConstNumber:
			k = columnKind{class: classNumber, min: math.MinInt64, max: math.MaxInt64}
		case ConstString:
			k = columnKind{class: classString}
		case ConstBool:
			return stored{class: classBool, b: c.Bool}
		}
	}
	if k.class == classString {
		// A constant of the check is not stored: no length limit.
		k.maxChars, k.maxBytes = 0, 0
	}
	return w.storeConst(k, c)
}

// compare is a Op b under SQL's rules for the two stored values.
func (w *WriteCheck) compare(op string, a, b stored) truth {
	if a.class == classUnknown || b.class == classUnknown {
		return truthMaybe
	}
	if a.class == classNull || b.class == classNull {
		bothNull := a.class == classNull && b.class == classNull
		switch op {
		case CmpNullSafeEq:
			return boolTruth(bothNull)
		case CmpDistinct:
			return boolTruth(!bothNull)
		}
		return truthNull
	}
	if a.class != b.class {
		return truthMaybe
	}
	var c int // -1, 0, 1; or 2 when only equality is known not to hold
	switch a.class {
	case classNumber:
		c = cmp.Compare(a.num, b.num)
	case classBool, classUUID:
		if a.b != b.b || a.str != b.str {
			c = 2
		}
	case classString:
		eq, known := w.stringsEqual(a.str, b.str)
		if !known {
			return truthMaybe
		}
		if !eq {
			c = 2
		}
	default:
		return truthMaybe
	}
	switch op {
	case CmpEq, CmpNullSafeEq:
		return boolTruth(c == 0)
	case CmpNe, CmpDistinct:
		return boolTruth(c != 0)
	}
	if c == 2 || a.class != classNumber {
		return truthMaybe // ordering is the collation's, not sqe's
	}
	switch op {
	case CmpLt:
		return boolTruth(c < 0)
	case CmpLe:
		return boolTruth(c <= 0)
	case CmpGt:
		return boolTruth(c > 0)
	case CmpGe:
		return boolTruth(c >= 0)
	}
	return truthMaybe
}

// stringsEqual compares two strings for equality as the server would,
// when sqe can be sure of the answer. Equal bytes are equal under every
// collation (trailing spaces aside, which PAD SPACE collations and CHAR
// ignore and NO PAD ones do not). Under a deterministic collation,
// different bytes are different strings. Where a collation may ignore
// case and accents (ValueRules.CollationsFold): printable ASCII strings
// that differ after folding case and trailing spaces differ under every
// collation; others are undecided.
func (w *WriteCheck) stringsEqual(a, b string) (equal, known bool) {
	if a == b {
		return true, true
	}
	ta, tb := strings.TrimRight(a, " "), strings.TrimRight(b, " ")
	if !w.Rules.CollationsFold {
		if ta == tb {
			return false, false // CHAR ignores trailing spaces, text does not
		}
		return false, true
	}
	if !printableASCII(a) || !printableASCII(b) {
		return false, false
	}
	if strings.EqualFold(ta, tb) {
		return false, false
	}
	return false, true
}

func boolTruth(b bool) truth {
	if b {
		return truthTrue
	}
	return truthFalse
}

func boolDigit(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
