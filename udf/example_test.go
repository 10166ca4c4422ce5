package udf_test

import (
	"fmt"
	"time"

	"github.com/sqe-project/sqe/udf"
)

func ExampleMask() {
	v, _ := udf.Mask("abcd-EFGH-8765-4321")
	fmt.Println(v)
	v, _ = udf.Mask("abcd-EFGH-8765-4321", "U", "l", "#")
	fmt.Println(v)
	v, _ = udf.Mask(int8(123), -1, -1, -1, -1, "5") // 555 wraps to a byte
	fmt.Println(v)
	v, _ = udf.Mask(time.Date(2016, 4, 20, 0, 0, 0, 0, time.UTC), -1, -1, -1, -1, -1, 1, -1, -1)
	fmt.Println(v.(time.Time).Format(time.DateOnly))
	// Output:
	// xxxx-XXXX-nnnn-nnnn
	// llll-UUUU-####-####
	// 43
	// 2016-04-01
}

func ExampleMaskFirstN() {
	v, _ := udf.MaskFirstN("1234-5678-8765-4321", 4)
	fmt.Println(v)
	v, _ = udf.MaskFirstN(int32(12345), 4, -1, -1, -1, -1, "5")
	fmt.Println(v)
	// Output:
	// nnnn-5678-8765-4321
	// 55555
}

func ExampleMaskLastN() {
	v, _ := udf.MaskLastN("1234-5678-8765-4321", 4)
	fmt.Println(v)
	v, _ = udf.MaskLastN(int32(12345), 4, -1, -1, -1, -1, "5")
	fmt.Println(v)
	// Output:
	// 1234-5678-8765-nnnn
	// 15555
}

func ExampleMaskShowFirstN() {
	v, _ := udf.MaskShowFirstN("1234-5678-8765-4321", 4)
	fmt.Println(v)
	v, _ = udf.MaskShowFirstN("TestString-123", 4, "X", "x", "0", ":")
	fmt.Println(v)
	// Output:
	// 1234-nnnn-nnnn-nnnn
	// TestXxxxxx:000
}

func ExampleMaskShowLastN() {
	v, _ := udf.MaskShowLastN("1234-5678-8765-4321", 4)
	fmt.Println(v)
	v, _ = udf.MaskShowLastN(int16(12345), 4, -1, -1, -1, -1, "5") // 52345 wraps to a short
	fmt.Println(v)
	// Output:
	// nnnn-nnnn-nnnn-4321
	// -13191
}

func ExampleMaskHash() {
	v, _ := udf.MaskHash("TestString-123")
	fmt.Println(v)
	v, _ = udf.MaskHash("TestString-123", "md5")
	fmt.Println(v)
	v, _ = udf.MaskHash(int32(5))
	fmt.Println(v)
	// Output:
	// 8b44d559dc5d60e4453c9b4edf2a455fbce054bb8504cd3eb9b5f391bd239c90
	// dd78d68ad1b23bde126812482dd70ac6
	// <nil>
}

func ExampleMaskSQL() {
	for _, d := range []udf.Dialect{udf.MySQL, udf.Postgres} {
		col := "`t`.`ssn`"
		if d == udf.Postgres {
			col = `"t"."ssn"`
		}
		expr, err := udf.MaskSQL(udf.Target{Dialect: d, Column: col, DataType: "varchar", ColumnType: "varchar(11)"}, udf.TypeHash, nil, "")
		fmt.Println(expr, err)
	}
	expr, err := udf.MaskSQL(udf.Target{Dialect: udf.Postgres, Column: `"t"."born"`, DataType: "date", ColumnType: "date"}, udf.TypeDateShowYear, nil, "")
	fmt.Println(expr, err)
	_, err = udf.MaskSQL(udf.Target{Dialect: udf.MySQL, Column: "`t`.`amount`", DataType: "decimal", ColumnType: "decimal(10,2)"}, udf.TypeShowLast4, nil, "")
	fmt.Println(err)
	// Output:
	// IFNULL(CONVERT(SHA2(CONVERT(`t`.`ssn` USING utf8mb4) COLLATE utf8mb4_bin, 256) USING utf8mb4) COLLATE utf8mb4_bin, `t`.`ssn` = `t`.`ssn`) <nil>
	// encode(sha256(convert_to(CAST("t"."ssn" AS text), 'UTF8')), 'hex') <nil>
	// CASE WHEN "t"."born" > DATE '-infinity' AND "t"."born" < DATE '294277-01-01' THEN make_date(CAST(date_part('year', CAST("t"."born" AS timestamp)) AS integer), 1, 1) WHEN isfinite("t"."born") THEN make_date(CAST(EXTRACT(YEAR FROM "t"."born") AS integer), 1, 1) END <nil>
	// udf: mask MASK_SHOW_LAST_4 cannot be computed for column `t`.`amount` of type "decimal(10,2)"
}

func ExampleApply() {
	v, _ := udf.Apply(udf.TypeShowLast4, nil, "", "4111-1111-1111-1234")
	fmt.Println(v)
	v, _ = udf.Apply(udf.TypeShowFirstN, []string{"2", "*", "*", "*", "*"}, "", "secret")
	fmt.Println(v)
	_, err := udf.Apply(udf.TypeCustom, nil, "lower({col})", "x")
	fmt.Println(err)
	// Output:
	// xxxx-xxxx-xxxx-1234
	// se****
	// udf: mask is not computable in Go
}

// With the server's mask functions installed (native/, checked by
// ServerMaskCheck), a string mask that replaces characters by class is
// one call of the compiled function, wrapped to the column's type.
func ExampleMaskSQL_serverMasks() {
	for _, d := range []udf.Dialect{udf.MySQL, udf.Postgres} {
		col := "`c`.`ssn`"
		if d == udf.Postgres {
			col = `"c"."ssn"`
		}
		x, err := udf.MaskSQL(udf.Target{Dialect: d, Column: col, DataType: "varchar", ColumnType: "varchar(11)", ServerMasks: true},
			udf.TypeShowLast4, nil, "")
		if err != nil {
			panic(err)
		}
		fmt.Println(x)
	}
	// Output:
	// IFNULL(CAST(sqe_mask_text(CONVERT(`c`.`ssn` USING utf8mb4), 4, 4, 120, 120, 120, -1) AS CHAR(11) CHARACTER SET utf8mb4) COLLATE utf8mb4_bin, `c`.`ssn` = `c`.`ssn`)
	// CAST(sqe_mask.mask(CAST("c"."ssn" AS text), 4, 4, 120, 120, 120, -1) AS character varying(11))
}
