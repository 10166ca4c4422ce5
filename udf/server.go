package udf

import (
	"fmt"
	"strings"
	"unicode"
)

// ServerMaskVersion is what the installed mask functions (native/) must
// report for sqe to call them: the functions' own version and the
// Unicode version of the classes compiled into them, which must be the
// Go reference's.
const ServerMaskVersion = "sqe-mask 3; unicode " + unicode.Version

// The server mask functions' names, as the SQL calls them. On MariaDB a
// loadable function is global and, called unqualified, wins over any
// stored function of the same name; on PostgreSQL the call names the
// schema the install script creates.
const (
	mysqlMaskFunction          = "sqe_mask_text"
	mysqlMaskIntFunction       = "sqe_mask_int"
	mysqlMaskVersion           = "sqe_mask_version"
	postgresMaskFunction       = "sqe_mask.mask"
	postgresMaskIntFunction    = "sqe_mask.mask_int"
	postgresMaskDateFunction   = "sqe_mask.mask_date"
	postgresMaskVersion        = "sqe_mask.version"
	postgresMaskFunctionSig    = "sqe_mask.mask(text,integer,integer,integer,integer,integer,integer)"
	postgresMaskIntFunctionSig = "sqe_mask.mask_int(bigint,integer,integer,integer,integer)"
	postgresMaskDateSig        = "sqe_mask.mask_date(date,integer,integer,integer)"
)

// ServerMaskCheck checks that the server behind query has sqe's mask
// functions installed (native/install-*.sql) at ServerMaskVersion: loaded
// from a compiled library, which on PostgreSQL only a superuser can
// declare and on MariaDB only an administrator can install, so that no
// function of the same name written in SQL stands in for them. query
// runs a statement that returns one text value. The error names what is
// missing and never holds a value of the application's.
func ServerMaskCheck(d Dialect, query func(sql string) (string, error)) error {
	var installed, version, where, want string
	switch d {
	case MySQL:
		// ret: 0 a string, 2 an integer.
		installed = "SELECT CAST(COUNT(*) AS CHAR) FROM mysql.func WHERE type = 'function' AND dl = 'sqe_mask.so' AND (name IN ('" +
			mysqlMaskFunction + "', '" + mysqlMaskVersion + "') AND ret = 0 OR name = '" + mysqlMaskIntFunction + "' AND ret = 2)"
		version = "SELECT " + mysqlMaskVersion + "()"
		where = "the loadable functions " + mysqlMaskFunction + ", " + mysqlMaskIntFunction + " and " + mysqlMaskVersion + " (sqe_mask.so)"
		want = "3"
	case Postgres:
		installed = "SELECT count(*)::text FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_language l ON l.oid = p.prolang " +
			"WHERE l.lanname = 'c' AND p.proisstrict AND p.oid IN (pg_catalog.to_regprocedure('" + postgresMaskFunctionSig +
			"'), pg_catalog.to_regprocedure('" + postgresMaskIntFunctionSig + "'), pg_catalog.to_regprocedure('" + postgresMaskDateSig +
			"'), pg_catalog.to_regprocedure('" + postgresMaskVersion + "()'))"
		version = "SELECT " + postgresMaskVersion + "()"
		where = "the C functions " + postgresMaskFunction + ", " + postgresMaskIntFunction + ", " + postgresMaskDateFunction + " and " +
			postgresMaskVersion + " (sqe_mask)"
		want = "4"
	default:
		return fmt.Errorf("udf: server masks: unknown dialect %q", d)
	}
	n, err := query(installed)
	if err != nil {
		if d == MySQL {
			return fmt.Errorf("udf: server masks: cannot read mysql.func to check %s (the connection's user needs SELECT on mysql.func): %w", where, err)
		}
		return fmt.Errorf("udf: server masks: cannot check %s: %w", where, err)
	}
	if n != want {
		return fmt.Errorf("udf: server masks: %s are not installed on this server (see udf/native/README.md)", where)
	}
	v, err := query(version)
	if err != nil {
		return fmt.Errorf("udf: server masks: calling %s: %w", where, err)
	}
	if v != ServerMaskVersion {
		return fmt.Errorf("udf: server masks: the installed functions report %q, this sqe needs %q: rebuild and reinstall them (udf/native)", v, ServerMaskVersion)
	}
	return nil
}

// serverMask is a character-class string mask as a call of the server's
// mask function: the value as the inline masks read it, the function's
// number, the count and the four replacements (keep is -1 in both), and
// the result in the column's type as the inline masks give it (strOut,
// declared). On PostgreSQL the function's text keeps the value's
// collation. On MariaDB the function takes the value's utf8mb4 bytes and
// returns bytes, which become utf8mb4 with the binary collation every
// masked string carries by one cast (to the column's length where the
// result fits it, as declared does).
func (g gen) serverMask(s *spec) string {
	in := g.strIn()
	if g.my() {
		in = "CONVERT(" + g.t.Column + " USING utf8mb4)"
		if n, ok := g.isChar(); ok && n > 0 {
			in = "RPAD(" + in + ", " + itoa(n) + ", ' ')"
		}
	}
	args := []string{in, itoa(int(s.fn)), itoa(s.n)}
	for _, c := range s.chars {
		args = append(args, itoa(c))
	}
	fits := s.chars[3] == keep
	if !g.my() {
		return g.declared(g.strOut(postgresMaskFunction+"("+strings.Join(args, ", ")+")"), fits)
	}
	x := mysqlMaskFunction + "(" + strings.Join(args, ", ") + ")"
	_, char := g.isChar()
	if char {
		x = g.strOut(myText(x))
	}
	if n, ok := g.declaredLength(); ok && fits {
		return "CAST(" + x + " AS CHAR(" + itoa(n) + ") CHARACTER SET utf8mb4) COLLATE utf8mb4_bin"
	}
	if char {
		return x
	}
	return myText(x)
}

// serverMaskInt is an integer mask as a call of the server's integer mask
// function: the value, the Hive width it is masked in (intBits), the
// function's number, the count and the replacing digit, the result cast
// to the type the inline forms give it.
func (g gen) serverMaskInt(s *spec) (string, error) {
	bits, err := g.intBits()
	if err != nil {
		return "", err
	}
	args := []string{g.t.Column, itoa(bits), itoa(int(s.fn)), itoa(s.n), itoa(s.number)}
	call := mysqlMaskIntFunction + "(" + strings.Join(args, ", ") + ")"
	if !g.my() {
		args[0] = "CAST(" + g.t.Column + " AS bigint)"
		call = postgresMaskIntFunction + "(" + strings.Join(args, ", ") + ")"
	}
	return g.cast(call, g.intCast(bits)), nil
}

// serverMaskDate is a PostgreSQL date mask that keeps a part of the value
// as a call of the server's date function: the replaced day, month (0 is
// January) and year, -1 for a kept part. (A mask that replaces every part
// is one date for every row, which the inline form writes as a constant;
// MariaDB's inline forms cost little more than the raw scan.)
func (g gen) serverMaskDate(s *spec) string {
	return postgresMaskDateFunction + "(" + g.t.Column + ", " + itoa(s.day) + ", " + itoa(s.month) + ", " + itoa(s.year) + ")"
}
