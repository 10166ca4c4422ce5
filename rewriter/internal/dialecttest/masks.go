package dialecttest

import (
	"fmt"
	"testing"

	"github.com/sqe-project/sqe/udf"
)

// EveryBuiltinMask calls check with the SQL udf.MaskSQL writes for every
// built-in mask over a string, an integer, a BIGINT and a date column of
// the dialect (types, each a data type and a column type), with the
// classes listed and named, under a qualified column name and a bare one
// (the integer masks' forms differ by the name's length). Every one of
// them is written for these kinds of column; an error fails the test.
func EveryBuiltinMask(t *testing.T, d udf.Dialect, qualified, bare string, types [][2]string, check func(desc, sql string)) {
	t.Helper()
	masks := []struct {
		name string
		args []string
	}{
		{udf.TypeMask, nil}, {udf.TypeShowLast4, nil}, {udf.TypeShowFirst4, nil}, {udf.TypeHash, nil}, {udf.TypeNull, nil},
		{udf.TypeDateShowYear, nil}, {udf.TypeRedact, nil}, {udf.TypeShowFirstN, []string{"3"}}, {udf.TypeShowLastN, []string{"2"}},
		{udf.TypeFirstN, []string{"4"}}, {udf.TypeLastN, []string{"4"}}, {udf.TypeMask, []string{"-1", "-1", "-1", "-1", "-1", "15", "-1", "-1"}},
	}
	for _, m := range masks {
		for _, typ := range types {
			for _, column := range []string{qualified, bare} {
				for _, named := range []bool{false, true} {
					x, err := udf.MaskSQL(udf.Target{Dialect: d, Column: column, DataType: typ[0], ColumnType: typ[1], NamedClasses: named}, m.name, m.args, "")
					desc := fmt.Sprintf("%s%v on %s %s (named classes %v)", m.name, m.args, typ[1], column, named)
					if err != nil {
						t.Errorf("%s: %v", desc, err)
						continue
					}
					check(desc, x)
				}
			}
		}
	}
}
