/*
 * sqe's string masks as PostgreSQL functions (install-postgres.sql):
 *
 *   sqe_mask.mask(value text, fn int, n int, upper int, lower int,
 *                 digit int, other int) RETURNS text
 *   sqe_mask.mask_int(value bigint, bits int, fn int, n int, number int)
 *                 RETURNS bigint
 *   sqe_mask.mask_date(value date, day int, month int, year int)
 *                 RETURNS date
 *   sqe_mask.version() RETURNS text
 *
 * fn is SQE_MASK … SQE_SHOW_LAST_N (mask.h), n the character count, and
 * each replacement a code point or -1 (keep). The result keeps the
 * value's collation. The database's encoding must be UTF8. mask_int
 * masks an integer in a bits-wide Hive integer (8, 16, 32 or 64), each
 * masked digit replaced by number. mask_date replaces the parts of a
 * date that are not -1 (month 0 is January; years are astronomical, 0 is
 * 1 BC, as the Go reference's), and is NULL for ±infinity.
 */
#include "postgres.h"

#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/datetime.h"
#include "utils/memutils.h"

#include "mask.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(sqe_mask_text);
PG_FUNCTION_INFO_V1(sqe_mask_int);
PG_FUNCTION_INFO_V1(sqe_mask_date);
PG_FUNCTION_INFO_V1(sqe_mask_version);

/* The ASCII map of the call's replacements, kept between rows. */
typedef struct {
	long rep[4];
	unsigned char map[128];
} ascii_cache;

Datum
sqe_mask_text(PG_FUNCTION_ARGS)
{
	text *in = PG_GETARG_TEXT_PP(0);
	int fn = PG_GETARG_INT32(1);
	long n = PG_GETARG_INT32(2);
	const unsigned char *s = (const unsigned char *) VARDATA_ANY(in);
	size_t len = VARSIZE_ANY_EXHDR(in);
	long rep[4];
	text *out;

	if (GetDatabaseEncoding() != PG_UTF8)
		ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						errmsg("sqe_mask.mask needs a UTF8 database")));
	for (int c = 0; c < 4; c++)
		rep[c] = PG_GETARG_INT32(3 + c);
	if (!sqe_valid_call(fn, rep))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("sqe_mask.mask: invalid function or replacement")));

	if (sqe_ascii(s, len, rep)) {
		ascii_cache *cache = fcinfo->flinfo->fn_extra;
		if (cache == NULL || memcmp(cache->rep, rep, sizeof rep) != 0) {
			if (cache == NULL)
				cache = fcinfo->flinfo->fn_extra = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof *cache);
			memcpy(cache->rep, rep, sizeof rep);
			sqe_ascii_map(rep, cache->map);
		}
		out = palloc(VARHDRSZ + len);
		sqe_mask_ascii(s, len, fn, n, cache->map, (unsigned char *) VARDATA(out));
		SET_VARSIZE(out, VARHDRSZ + len);
	} else {
		/* A value near text's 1 GB limit needs more than that for its
		 * units; the result is sized exactly and must fit a text. */
		uint16_t *units = palloc_extended(sizeof(uint16_t) * 2 * len + 1, MCXT_ALLOC_HUGE);
		size_t k = sqe_mask_units(s, len, fn, n, rep, units);
		size_t o = sqe_encode_units(units, k, NULL);
		if (o > MaxAllocSize - VARHDRSZ)
			ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
							errmsg("sqe_mask.mask: the masked value is longer than a text can be")));
		out = palloc(VARHDRSZ + o);
		sqe_encode_units(units, k, (unsigned char *) VARDATA(out));
		SET_VARSIZE(out, VARHDRSZ + o);
		pfree(units);
	}
	PG_RETURN_TEXT_P(out);
}

Datum
sqe_mask_int(PG_FUNCTION_ARGS)
{
	int64 v = PG_GETARG_INT64(0);
	int bits = PG_GETARG_INT32(1), fn = PG_GETARG_INT32(2), number = PG_GETARG_INT32(4);
	long n = PG_GETARG_INT32(3);

	if (!sqe_valid_int_call(bits, fn, number) || !sqe_fits(v, bits))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("sqe_mask.mask_int: invalid width, function or digit, or a value outside the width")));
	PG_RETURN_INT64(sqe_mask_integer(v, bits, fn, n, number));
}

Datum
sqe_mask_date(PG_FUNCTION_ARGS)
{
	DateADT value = PG_GETARG_DATEADT(0), masked;
	int day = PG_GETARG_INT32(1), month = PG_GETARG_INT32(2), year = PG_GETARG_INT32(3);
	int y, m, d;

	if (DATE_NOT_FINITE(value))
		PG_RETURN_NULL();
	j2date(value + POSTGRES_EPOCH_JDATE, &y, &m, &d);
	if (year != SQE_KEEP)
		y = year;
	if (month != SQE_KEEP)
		m = month + 1;
	if (day != SQE_KEEP)
		d = day;
	if (m < 1 || m > 12 || d < 1 || d > day_tab[isleap(y)][m - 1])
		ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
						errmsg("sqe_mask.mask_date: the masked date does not exist")));
	if (!IS_VALID_JULIAN(y, m, d))
		ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
						errmsg("sqe_mask.mask_date: the masked date is out of range")));
	masked = date2j(y, m, d) - POSTGRES_EPOCH_JDATE;
	if (!IS_VALID_DATE(masked))
		ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
						errmsg("sqe_mask.mask_date: the masked date is out of range")));
	PG_RETURN_DATEADT(masked);
}

Datum
sqe_mask_version(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(SQE_MASK_VERSION));
}
