package udf

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// TestServerMaskCheck: the check passes only for the functions loaded
// from the compiled library at this version; anything else is an error
// that says what is missing.
func TestServerMaskCheck(t *testing.T) {
	for _, c := range []struct {
		name           string
		installed, ver string
		queryErr       error
		want           string // "" passes, else a fragment of the error
	}{
		{"installed", "", ServerMaskVersion, nil, ""},
		{"missing", "0", "", nil, "are not installed"},
		{"one short", "-1", ServerMaskVersion, nil, "are not installed"},
		{"older build", "", "sqe-mask 1; unicode 15.0.0", nil, "rebuild and reinstall"},
		{"unreadable catalog", "", "", errors.New("SELECT command denied"), "cannot"},
	} {
		for _, d := range []Dialect{MySQL, Postgres} {
			// MariaDB has three functions, PostgreSQL four (a date's).
			all := map[Dialect]int{MySQL: 3, Postgres: 4}[d]
			installed := c.installed
			switch installed {
			case "":
				installed = strconv.Itoa(all)
			case "-1":
				installed = strconv.Itoa(all - 1)
			}
			var asked []string
			err := ServerMaskCheck(d, func(q string) (string, error) {
				asked = append(asked, q)
				if c.queryErr != nil {
					return "", c.queryErr
				}
				if len(asked) == 1 {
					return installed, nil
				}
				return c.ver, nil
			})
			switch {
			case c.want == "" && err != nil:
				t.Errorf("%s, %s: %v", c.name, d, err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("%s, %s: %v, want an error with %q", c.name, d, err, c.want)
			}
			if c.queryErr == nil && installed == strconv.Itoa(all) && len(asked) != 2 || installed != strconv.Itoa(all) && len(asked) != 1 {
				t.Errorf("%s, %s: queries %q", c.name, d, asked)
			}
		}
	}
	if d := MySQL; !strings.Contains(errString(ServerMaskCheck(d, func(string) (string, error) { return "", errors.New("denied") })), "SELECT on mysql.func") {
		t.Error("MariaDB: an unreadable mysql.func does not name the grant it needs")
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestServerMaskSQL: with ServerMasks, the character-class string masks
// call the server's function with the function's number, the count and
// the replacements, and the integer masks its integer function with the
// Hive width and the digit, wrapped as the inline masks are; the other
// masks and kinds are what they are without it.
func TestServerMaskSQL(t *testing.T) {
	for _, c := range []struct {
		t    Target
		typ  string
		args []string
		want string
	}{
		{Target{Dialect: Postgres, Column: `"t"."c"`, DataType: "text", ColumnType: "text", ServerMasks: true}, TypeMask, nil,
			`sqe_mask.mask(CAST("t"."c" AS text), 0, 4, 88, 120, 110, -1)`},
		{Target{Dialect: Postgres, Column: `"t"."c"`, DataType: "character varying", ColumnType: "character varying(20)", ServerMasks: true}, TypeShowLast4, nil,
			`CAST(sqe_mask.mask(CAST("t"."c" AS text), 4, 4, 120, 120, 120, -1) AS character varying(20))`},
		{Target{Dialect: Postgres, Column: `"t"."c"`, DataType: "character", ColumnType: "character(5)", ServerMasks: true}, TypeFirstN, []string{"2", "*", "*", "#", "-"},
			`CAST(sqe_mask.mask(RPAD(CAST("t"."c" AS text), 5, ' '), 1, 2, 42, 42, 35, 45) AS bpchar)`},
		{Target{Dialect: Postgres, Column: `"t"."n"`, DataType: "smallint", ColumnType: "smallint", ServerMasks: true}, TypeShowLast4, nil,
			`CAST(sqe_mask.mask_int(CAST("t"."n" AS bigint), 16, 4, 4, 1) AS smallint)`},
		{Target{Dialect: Postgres, Column: `"t"."d"`, DataType: "date", ColumnType: "date", ServerMasks: true}, TypeDateShowYear, nil,
			`sqe_mask.mask_date("t"."d", 1, 0, -1)`},
		{Target{Dialect: MySQL, Column: "`t`.`n`", DataType: "int", ColumnType: "int(10) unsigned", ServerMasks: true}, TypeFirstN, []string{"2", "", "", "", "", "7"},
			"IFNULL(CAST(sqe_mask_int(`t`.`n`, 64, 1, 2, 7) AS SIGNED), `t`.`n` = `t`.`n`)"},
		{Target{Dialect: MySQL, Column: "`t`.`c`", DataType: "varchar", ColumnType: "varchar(20)", ServerMasks: true}, TypeShowFirst4, nil,
			"IFNULL(CAST(sqe_mask_text(CONVERT(`t`.`c` USING utf8mb4), 3, 4, 120, 120, 120, -1) AS CHAR(20) CHARACTER SET utf8mb4) COLLATE utf8mb4_bin, `t`.`c` = `t`.`c`)"},
		{Target{Dialect: MySQL, Column: "`t`.`c`", DataType: "text", ColumnType: "text", ServerMasks: true}, TypeMask, []string{"*", "*", "#", "-"},
			"IFNULL(CONVERT(sqe_mask_text(CONVERT(`t`.`c` USING utf8mb4), 0, 4, 42, 42, 35, 45) USING utf8mb4) COLLATE utf8mb4_bin, `t`.`c` = `t`.`c`)"},
	} {
		got, err := MaskSQL(c.t, c.typ, c.args, "")
		if err != nil || got != c.want {
			t.Errorf("MaskSQL(%s, %s) =\n%s, %v\nwant\n%s", c.t.ColumnType, c.typ, got, err, c.want)
		}
	}
	// Dates and the masks that neither replace characters by class nor
	// digits keep their inline SQL.
	for _, d := range []Dialect{MySQL, Postgres} {
		for _, c := range []struct{ typ, mask string }{{"date", TypeMask}, {"varchar", TypeHash}, {"varchar", TypeNull}, {"varchar", TypeRedact}, {"int", TypeNull}} {
			inline, err1 := MaskSQL(Target{Dialect: d, Column: "c", DataType: c.typ, ColumnType: c.typ}, c.mask, nil, "")
			server, err2 := MaskSQL(Target{Dialect: d, Column: "c", DataType: c.typ, ColumnType: c.typ, ServerMasks: true}, c.mask, nil, "")
			if err1 != nil || err2 != nil || inline != server || strings.Contains(server, "mask_text") {
				t.Errorf("%s %s %s: %s, %v with server masks; %s, %v without", d, c.typ, c.mask, server, err2, inline, err1)
			}
		}
	}
}
