// Package udf computes column masks exactly as Apache Hive's mask UDFs do,
// in Go and in SQL.
//
// # Model
//
// The Go functions Mask, MaskFirstN, MaskLastN, MaskShowFirstN,
// MaskShowLastN and MaskHash are the reference: they take Hive's arguments
// in Hive's order with Hive's defaults, and reproduce GenericUDFMask* bit for
// bit, including the corners:
//
//   - strings are masked per UTF-16 code unit, as Java's charAt loops do:
//     a character is upper (Lu), lower (Ll), digit (Nd) or other; a
//     character beyond U+FFFF is two "other" units, so it becomes two
//     otherChar replacements, and a surrogate pair cut by a charCount
//     boundary leaves an unpaired surrogate, which Hive writes as '?';
//   - a replacement is an int code point or the first character of a
//     string, -1 keeps the original;
//   - integers are masked digit by digit in their own width (TINYINT is an
//     int8 …), with Java's wrap-around (mask(cast(123 as tinyint), …, '5')
//     is 43), the MIN values and the special cases for 0;
//   - dates are rebuilt from (dayValue, 0-based monthValue, yearValue), -1
//     keeping a part; a day that does not exist is an error (ErrInvalidDate),
//     as Hive's Date.of fails the query;
//   - NULL in, NULL out; types Hive does not mask give NULL;
//   - mask_hash is the lowercase hex SHA-256 of the UTF-8 bytes of a string
//     (SHA-512 and Hive 2's MD5 as options) and NULL for other types.
//
// CHAR(n) values are masked as Hive masks them: blank-padded to n first.
//
// Policies name masks by type (MASK, MASK_SHOW_LAST_4, MASK_HASH, …; see the
// Type constants) with string arguments. ValidateMask checks a type and its
// arguments when a policy loads, MaskSQL writes the SQL expression that
// computes the mask over a column on MariaDB or PostgreSQL, and Apply
// computes the same value in Go. The SQL must agree with the reference on
// the real servers; sql_db_test.go checks thousands of generated values per
// mask and column type (random text across scripts, including quotes,
// backslashes, noncharacters and supplementary characters; integer MIN, MAX,
// 0 and negatives; dates across ten millennia) on both servers, under hostile
// session settings (sql_mode=ORACLE,NO_BACKSLASH_ESCAPES, every PCRE option,
// standard_conforming_strings=off), under case-insensitive and "C"
// collations, and after the rewriters' parsers have re-formatted it.
//
// # How the SQL computes Hive's results
//
// Character classes are spelled out as explicit code point ranges taken from
// Go's Unicode tables rather than left to the server, so MariaDB's PCRE,
// PostgreSQL's regexp engine (under any collation) and the reference
// classify alike. Where the server is known to classify every BMP character
// as Go does, the SQL names the classes instead (Target.NamedClasses:
// a candidate class, the Latin-1 members listed and the rest of the BMP as
// one range, confirmed by a lookbehind of MariaDB's \p{Lu}, \p{Ll},
// \p{Nd}), which is several KB shorter and keeps PCRE's skipping of
// characters that cannot match; the knowledge comes from ClassProbe, a query
// the driver runs on the connection that classifies all of the BMP on the
// server and compares a digest with Go's. The regexp options are pinned
// with (?-imsx), so neither a
// case-insensitive collation nor default_regex_flags changes a result (the
// driver refuses connections whose default_regex_flags hold UNGREEDY or
// NO_AUTO_CAPTURE, which no portable inline flag switches off).
// Classes with a common replacement are rewritten in one pass, and passes run
// in an order where no replacement is rewritten again; replacements that form
// a cycle (upper -> 'a', lower -> 'B') go through two-character tokens made of
// noncharacters. The *_N masks count and cut in UTF-16 units: every
// supplementary character is followed by a marker standing for its low
// surrogate before counting, and the markers are dropped (or a cut pair
// turned into '?') before masking. When "other" characters are kept (as by
// every built-in *_N mask), the side of the cut is masked in place instead: a lookbehind or lookahead of n units tells the side of
// each character, so the text is read once and never cut. Integers are masked as digit strings,
// signed and wrapped into the Hive width with MOD; 0 and MIN come from the
// reference as constants. Dates are rebuilt with CAST(CONCAT(…) AS DATE)
// on MariaDB and make_date on PostgreSQL.
//
// Policy parameters reach the SQL only as integers this package printed or as
// string literals it built: single quotes doubled, no backslash inside any
// literal (a backslash is CHAR(92 USING utf8mb4) / CHR(92), concatenated),
// so a literal means the same under every sql_mode and
// standard_conforming_strings setting.
//
// # Conventions for policy arguments
//
// Arguments are strings. A replacement-character argument is "-1" (keep), ""
// (the default) or a string whose first code point is the replacement (Hive
// would take the first UTF-16 unit; for a character beyond U+FFFF that is
// half a character, so sqe takes the whole character). U+0000 and the
// noncharacters U+FDD0..U+FDEF, U+FFFE and U+FFFF are refused as
// replacements (the SQL uses them as markers). A yearValue must be -1 or
// 0..9999. Other out-of-range values fall back to Hive's defaults as in Hive.
//
// sqe's additions: MASK_FIRST_N and MASK_LAST_N (Hive's mask_first_n and
// mask_last_n with any n), REDACT (a constant, default "REDACTED" for
// strings and NULL otherwise; NULL stays NULL; a constant for a column
// that is not a string must be a value the column's type holds as written,
// the same on both servers: an integer in range, a date, a timestamp or
// time of day, a number within a DECIMAL's digits, a finite float, a
// boolean, a UUID or a JSON document, and other types take no constant)
// and REGEXP_REPLACE (pattern,
// literal replacement). REGEXP_REPLACE accepts a portable grammar only:
// literals, classes, '.', greedy quantifiers on single characters (bounds up
// to 255), ^ and $ at the ends, (?i) and (?s); no alternation of longer
// branches, quantified groups, lazy quantifiers or patterns that match the
// empty string, because on those Go, PCRE and PostgreSQL match differently
// (for the accepted grammar leftmost-first and leftmost-longest matching
// coincide; the database tests check random patterns on both servers).
//
// # Types
//
// KindOf classifies a column. Strings take every mask. Integers take the
// digit masks; MASK_HASH gives a typed NULL as in Hive. DATE columns take
// the date masks (MASK, MASK_DATE_SHOW_YEAR and the *_N masks with their
// date arguments); MASK_HASH gives NULL. Unsigned MySQL integers are masked
// in the next wider Hive type (TINYINT UNSIGNED as SMALLINT …, INT UNSIGNED
// as BIGINT), MEDIUMINT as INT; BIGINT UNSIGNED has no Hive type and is an
// error. Every other type (DECIMAL, DATETIME, JSON, …) takes only MASK_NULL,
// MASK_NONE, REDACT and CUSTOM: Hive would return NULL for the others, sqe
// returns an error so that the caller restricts the column instead. String
// results are text (Hive widens CHAR to CHAR(255) and VARCHAR to
// VARCHAR(65535), so a hash never truncates); CHAR results are blank-padded
// character data again (trailing blanks dropped on MariaDB as MariaDB does
// for CHAR, bpchar on PostgreSQL). Integer results are BIGINT on MariaDB
// (CAST AS SIGNED) and the column's own type on PostgreSQL.
//
// # Known divergences
//
//   - Unicode version: classification follows Go's unicode tables
//     (Unicode 15.0). Hive follows its JVM's tables, so characters assigned
//     after the JVM's Unicode version (e.g. Georgian Mtavruli on Java 8)
//     may classify differently there.
//   - MariaDB has no 0000-02-29 (its year 0 is not a leap year, unlike
//     java.time's): a mask that sets the year to 0 and keeps month and day
//     yields NULL on MariaDB for February 29 (an error in a strict-mode
//     write), where Hive yields 0000-02-29.
//   - Date masks whose (day, month, year) can build a day that does not
//     exist (day 31 with month 1, …) fail in Hive at run time; MaskSQL
//     refuses them.
//   - PostgreSQL's infinite dates have no parts and mask to NULL. MariaDB
//     zero dates and dates with a zero month or day keep the zero parts the
//     mask keeps.
//   - U+0000 cannot occur in PostgreSQL text and is never matched by a
//     REGEXP_REPLACE class on either server.
//   - On MariaDB, masked strings and hashes are utf8mb4 with the explicit
//     collation utf8mb4_bin, whatever the column's collation: they compare
//     by code point, as Hive's strings do, and an explicit collation lets
//     them meet columns of any collation without "Illegal mix of
//     collations". On PostgreSQL they keep the column's collation.
//   - PostgreSQL raises an error for regular expressions on a column with a
//     nondeterministic collation, so string masks fail there (closed).
package udf
