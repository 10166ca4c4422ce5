// Package udf computes column masks exactly as Apache Hive's mask UDFs do,
// in Go and in SQL.
//
// The Go functions Mask, MaskFirstN, MaskLastN, MaskShowFirstN,
// MaskShowLastN and MaskHash are the reference: they take Hive's arguments
// in Hive's order with Hive's defaults and reproduce GenericUDFMask* bit
// for bit (strings per UTF-16 unit, a supplementary character as two
// "other" units; integers digit by digit in their Hive width with Java's
// wrap-around; dates rebuilt from day, month and year; NULL in, NULL out).
//
// Policies name masks by type (MASK, MASK_SHOW_LAST_4, MASK_HASH, …; the
// Type constants) with string arguments. ValidateMask checks a type and
// its arguments when a policy loads; MaskSQL writes one SQL expression
// that computes the mask over a column on MariaDB or PostgreSQL, and Apply
// computes the same value in Go. The SQL must agree with the reference on
// the real servers: the tests check thousands of generated values per mask
// and column type on both servers, under hostile session settings and
// collations, and after the rewriters' parsers have re-formatted the SQL.
//
// The SQL pins every regular-expression option, writes no backslash inside
// a literal, and classifies characters with explicit code-point lists, or,
// on a server whose own classes are known to equal Go's tables
// (Target.NamedClasses, which the dialect sets after ClassProbe), with the
// server's classes. KindOf tells which masks a column's type takes; a mask
// a type cannot take is an error, so that the caller restricts the column.
//
// docs/masks.md is the normative text: the model's corners, how the SQL
// computes Hive's results, the conventions for policy arguments, the types
// and the known divergences.
package udf
