package rewriter

import (
	"database/sql/driver"
	"fmt"
	"strings"
	"sync"

	"github.com/sqe-project/sqe/policy"
)

// A WriteCheck is a row filter's check (policy.RowFilter.Check) applied to
// the rows one statement writes to one table: PostgreSQL's WITH CHECK,
// decided by sqe rather than by the server. The dialect builds it when it
// rewrites the statement, with the value each written row gives each
// column the check reads (a constant of the statement, a placeholder, or
// unknown); the driver runs Verify when the statement's arguments are
// known, before anything is sent.
//
// Verify admits a row only when the check is certainly true for it, under
// the server's own rules for storing the value in the column and comparing
// it: an integer in the column's range, a string the column stores as
// given, compared for equality byte for byte (and, on MySQL, refused as
// undecidable where a collation could make two different strings equal).
// Anything else — a value sqe cannot convert exactly, a column the row
// does not give, an expression in the check that is not a comparison of a
// column with constants — makes the check undecidable, and the statement
// is refused as if the row failed: fail closed.
type WriteCheck struct {
	Table  policy.TableName
	Policy string
	// Rules are the server's rules for storing and comparing the values
	// (its dialect's).
	Rules ValueRules
	Cond  *Cond
	// Columns are the columns Cond reads, with their catalog types.
	Columns []Column
	// Rows holds, per written row, the value it gives each of Columns.
	Rows [][]Value
	// AllRows is set when Rows has one entry that stands for every row
	// the statement writes (INSERT … SELECT with constant columns, an
	// UPDATE's SET): the error then names no row number.
	AllRows bool
	// kinds are how Columns compare, computed on first use (a WriteCheck
	// is shared by every execution of a cached rewrite).
	kindsOnce sync.Once
	kinds     []columnKind
	resolved  map[*Cond]resolvedCond
}

// ValueRules are how a server stores and compares the values a write
// check decides. Each dialect gives its own (a dialect's writes call
// InsertChecks and UpdateChecks with them); the zero value decides
// strings byte for byte and knows no boolean or uuid type.
type ValueRules struct {
	// LengthDeclared: every character column declares its length, so
	// one whose length sqe does not read is not decided.
	LengthDeclared bool
	// TextBytes is how many bytes a column of type text holds (0: no
	// limit).
	TextBytes int
	// BooleanUUID: boolean and uuid are types of their own.
	BooleanUUID bool
	// TrueIsOne: TRUE is stored in an integer column as 1.
	TrueIsOne bool
	// CollationsFold: the column's character set and collation are not
	// known to sqe and may ignore case, accents and trailing spaces: only
	// printable ASCII strings are stored as given, and two of them are
	// known to differ only when they differ after folding case and
	// trailing spaces. Otherwise (a deterministic collation) different
	// bytes are different strings, trailing spaces aside.
	CollationsFold bool
}

// ValueKind says where a written value comes from.
type ValueKind uint8

// Value kinds.
const (
	// ValueUnknown: not a constant of the statement (an expression, a
	// column of another row, DEFAULT, or a column the row does not give).
	ValueUnknown ValueKind = iota
	// ValueConst: a literal of the statement.
	ValueConst
	// ValueArg: a placeholder, Value.Arg its 1-based ordinal.
	ValueArg
)

// Value is the value a written row gives a column.
type Value struct {
	Kind  ValueKind
	Const Const
	Arg   int
}

// ConstKind is the kind of a literal.
type ConstKind uint8

// Literal kinds.
const (
	ConstNull ConstKind = iota + 1
	// ConstNumber: Const.Text is a decimal number as written (digits, an
	// optional sign, fraction and exponent).
	ConstNumber
	ConstString
	ConstBool
	// ConstOther: a literal sqe does not compare (hex, bit, typed, …).
	ConstOther
)

// Const is a literal of a statement or of a check expression.
type Const struct {
	Kind ConstKind
	Text string
	Bool bool
}

// CondOp is the operator of a Cond node.
type CondOp uint8

// Cond operators.
const (
	// CondUnknown is an expression sqe does not evaluate: it is
	// undecidable for every row.
	CondUnknown CondOp = iota
	CondAnd
	CondOr
	CondNot
	// CondCompare: Left Cmp Right.
	CondCompare
	// CondIn: Left IN List (Negate: NOT IN).
	CondIn
	// CondIsNull: Left IS NULL (Negate: IS NOT NULL).
	CondIsNull
	// CondTruth: Left IS TRUE / IS FALSE (Want), Negate for IS NOT ….
	CondTruth
	// CondValue: the boolean value of Left (a constant or a boolean column).
	CondValue
)

// Comparison operators of CondCompare. CmpNullSafeEq is MySQL's <=> and
// PostgreSQL's IS NOT DISTINCT FROM; CmpDistinct is IS DISTINCT FROM.
const (
	CmpEq         = "="
	CmpNe         = "<>"
	CmpLt         = "<"
	CmpLe         = "<="
	CmpGt         = ">"
	CmpGe         = ">="
	CmpNullSafeEq = "<=>"
	CmpDistinct   = "is distinct from"
)

// Cond is a check expression in the form sqe evaluates: a tree of AND, OR
// and NOT over comparisons of columns and constants. Dialects build it
// from their syntax trees; a piece they cannot express is CondUnknown.
type Cond struct {
	Op     CondOp
	Args   []*Cond // CondAnd, CondOr, CondNot
	Cmp    string  // CondCompare
	Left   Operand
	Right  Operand   // CondCompare
	List   []Operand // CondIn
	Negate bool      // CondIn, CondIsNull, CondTruth
	Want   bool      // CondTruth
	// Reads are the column names a CondUnknown piece mentions (any name,
	// as written, lower-cased): an UPDATE that assigns one of them must
	// check the piece.
	Reads []string
}

// Operand is a column of the written row (Column, lower-cased) or a constant.
type Operand struct {
	Column string
	Const  Const
}

// CondColumns lists the columns c reads, lower-cased, in first-use order.
func CondColumns(c *Cond) []string {
	var out []string
	seen := map[string]bool{}
	add := func(o Operand) {
		if o.Column != "" && !seen[o.Column] {
			seen[o.Column] = true
			out = append(out, o.Column)
		}
	}
	var walk func(c *Cond)
	walk = func(c *Cond) {
		for _, a := range c.Args {
			walk(a)
		}
		add(c.Left)
		add(c.Right)
		for _, o := range c.List {
			add(o)
		}
	}
	walk(c)
	return out
}

// Conjuncts splits c at its top-level ANDs.
func Conjuncts(c *Cond) []*Cond {
	if c.Op != CondAnd {
		return []*Cond{c}
	}
	var out []*Cond
	for _, a := range c.Args {
		out = append(out, Conjuncts(a)...)
	}
	return out
}

// Verify checks every row the statement writes against the check, with
// the statement's arguments. It returns an *Error of kind
// policy.ErrCheckViolation naming the table, the policy and the columns
// whose values it could not decide; never a value.
func (w *WriteCheck) Verify(args []driver.NamedValue) error {
	w.kindsOnce.Do(func() {
		w.kinds = make([]columnKind, len(w.Columns))
		for j, c := range w.Columns {
			w.kinds[j] = w.Rules.kindOf(c)
		}
		w.resolved = map[*Cond]resolvedCond{}
		w.resolve(w.Cond)
	})
	vals := make([]stored, len(w.Columns))
	for i, row := range w.Rows {
		for j, v := range row {
			vals[j] = w.store(w.kinds[j], v, args)
		}
		t := w.eval(w.Cond, vals)
		if t == truthTrue {
			continue
		}
		where := "the row"
		if !w.AllRows && len(w.Rows) > 1 {
			where = fmt.Sprintf("row %d", i+1)
		}
		if t == truthFalse || t == truthNull {
			return &Error{Kind: policy.ErrCheckViolation, Table: w.Table.String(), Policy: w.Policy,
				Detail: where + " written to the table does not satisfy the row filter"}
		}
		var unsure []string
		for j, v := range vals {
			if v.class == classUnknown {
				unsure = append(unsure, w.Columns[j].Name)
			}
		}
		detail := "sqe cannot prove that " + where + " written to the table satisfies the row filter"
		if len(unsure) > 0 {
			detail += " (the value given for " + strings.Join(unsure, ", ") + " is not a literal or placeholder that sqe can compare exactly with the column's type)"
		} else {
			detail += " (the check is not a comparison of the row's columns with constants)"
		}
		detail += "; write the value as a literal or placeholder, or give the rule a check expression sqe can decide, or check: false"
		return &Error{Kind: policy.ErrCheckViolation, Table: w.Table.String(), Policy: w.Policy, Detail: detail}
	}
	return nil
}

// VerifyAll runs every check.
func VerifyAll(checks []*WriteCheck, args []driver.NamedValue) error {
	for _, w := range checks {
		if err := w.Verify(args); err != nil {
			return err
		}
	}
	return nil
}
