/*
 * sqe's string masks as MariaDB (and MySQL) loadable functions
 * (install-mariadb.sql):
 *
 *   sqe_mask_text(value, fn, n, upper, lower, digit, other) RETURNS STRING
 *   sqe_mask_int(value, bits, fn, n, number) RETURNS INTEGER
 *   sqe_mask_version() RETURNS STRING
 *
 * value is read as UTF-8 (sqe passes CONVERT(value USING utf8mb4)); fn is
 * SQE_MASK … SQE_SHOW_LAST_N (mask.h), n the character count, and each
 * replacement a code point or -1 (keep). The result is UTF-8 bytes.
 * sqe_mask_int masks an integer in a bits-wide Hive integer (8, 16, 32 or
 * 64), each masked digit replaced by number.
 */
#include <stdlib.h>
#include <mysql.h>

#include "mask.h"

/* One call site's state: its buffers and the ASCII map of its replacements. */
struct sqe_state {
	long rep[4];
	int mapped;
	unsigned char map[128];
	unsigned char *out;
	size_t out_cap;
	uint16_t *units;
	size_t units_cap;
};

my_bool sqe_mask_text_init(UDF_INIT *initid, UDF_ARGS *args, char *message);
void sqe_mask_text_deinit(UDF_INIT *initid);
char *sqe_mask_text(UDF_INIT *initid, UDF_ARGS *args, char *result, unsigned long *length, char *is_null, char *error);
my_bool sqe_mask_int_init(UDF_INIT *initid, UDF_ARGS *args, char *message);
long long sqe_mask_int(UDF_INIT *initid, UDF_ARGS *args, char *is_null, char *error);
my_bool sqe_mask_version_init(UDF_INIT *initid, UDF_ARGS *args, char *message);
char *sqe_mask_version(UDF_INIT *initid, UDF_ARGS *args, char *result, unsigned long *length, char *is_null, char *error);

my_bool sqe_mask_text_init(UDF_INIT *initid, UDF_ARGS *args, char *message)
{
	struct sqe_state *st;
	unsigned long max;

	if (args->arg_count != 7) {
		strcpy(message, "sqe_mask_text(value, fn, n, upper, lower, digit, other)");
		return 1;
	}
	args->arg_type[0] = STRING_RESULT;
	for (unsigned i = 1; i < 7; i++)
		args->arg_type[i] = INT_RESULT;
	st = calloc(1, sizeof *st);
	if (st == NULL) {
		strcpy(message, "sqe_mask_text: out of memory");
		return 1;
	}
	initid->ptr = (char *) st;
	initid->maybe_null = 1;
	initid->const_item = 0;
	max = args->lengths[0];
	initid->max_length = max > 0xFFFFFFFFUL / 6 ? 0xFFFFFFFFUL : 6 * max;
	return 0;
}

void sqe_mask_text_deinit(UDF_INIT *initid)
{
	struct sqe_state *st = (struct sqe_state *) initid->ptr;
	if (st != NULL) {
		free(st->out);
		free(st->units);
		free(st);
	}
}

/* reserve makes *buf hold at least n elements of size bytes. */
static int reserve(void **buf, size_t *cap, size_t n, size_t size)
{
	void *p;
	if (n <= *cap)
		return 0;
	if (n > (size_t) -1 / size)
		return -1;
	p = realloc(*buf, n * size);
	if (p == NULL)
		return -1;
	*buf = p;
	*cap = n;
	return 0;
}

char *sqe_mask_text(UDF_INIT *initid, UDF_ARGS *args, char *result, unsigned long *length, char *is_null, char *error)
{
	struct sqe_state *st = (struct sqe_state *) initid->ptr;
	const unsigned char *s = (const unsigned char *) args->args[0];
	size_t len = args->lengths[0];
	long rep[4];
	int fn;
	long n;

	(void) result;
	for (unsigned i = 0; i < 7; i++)
		if (args->args[i] == NULL) {
			*is_null = 1;
			return NULL;
		}
	if (*(long long *) args->args[1] < SQE_MASK || *(long long *) args->args[1] > SQE_SHOW_LAST_N) {
		*error = 1;
		return NULL;
	}
	fn = (int) *(long long *) args->args[1];
	n = (long) *(long long *) args->args[2];
	for (int c = 0; c < 4; c++) {
		long long r = *(long long *) args->args[3 + c];
		rep[c] = r < -2 || r > 0x10FFFF ? -2 : (long) r;
	}
	if (!sqe_valid_call(fn, rep)) {
		*error = 1;
		return NULL;
	}
	if (sqe_ascii(s, len, rep)) {
		if (!st->mapped || memcmp(st->rep, rep, sizeof rep) != 0) {
			memcpy(st->rep, rep, sizeof rep);
			sqe_ascii_map(rep, st->map);
			st->mapped = 1;
		}
		if (reserve((void **) &st->out, &st->out_cap, len + 1, 1) != 0) {
			*error = 1;
			return NULL;
		}
		sqe_mask_ascii(s, len, fn, n, st->map, st->out);
		*length = len;
		return (char *) st->out;
	}
	/* One more than needed: an empty value's result is an empty string,
	 * never the NULL pointer of a buffer not yet allocated (which MariaDB
	 * reads as NULL). */
	if (reserve((void **) &st->units, &st->units_cap, 2 * len + 1, sizeof(uint16_t)) != 0 ||
		reserve((void **) &st->out, &st->out_cap, SQE_MASK_MAX_OUT(len) + 1, 1) != 0) {
		*error = 1;
		return NULL;
	}
	*length = sqe_mask(s, len, fn, n, rep, st->units, st->out);
	return (char *) st->out;
}

my_bool sqe_mask_int_init(UDF_INIT *initid, UDF_ARGS *args, char *message)
{
	if (args->arg_count != 5) {
		strcpy(message, "sqe_mask_int(value, bits, fn, n, number)");
		return 1;
	}
	for (unsigned i = 0; i < 5; i++)
		args->arg_type[i] = INT_RESULT;
	initid->maybe_null = 1;
	initid->const_item = 0;
	return 0;
}

long long sqe_mask_int(UDF_INIT *initid, UDF_ARGS *args, char *is_null, char *error)
{
	long long a[5];

	(void) initid;
	for (unsigned i = 0; i < 5; i++) {
		if (args->args[i] == NULL) {
			*is_null = 1;
			return 0;
		}
		a[i] = *(long long *) args->args[i];
	}
	if (a[1] < 0 || a[1] > 64 || a[2] < 0 || a[2] > 4 || a[4] < 0 || a[4] > 9 ||
		!sqe_valid_int_call((int) a[1], (int) a[2], (int) a[4]) || !sqe_fits(a[0], (int) a[1])) {
		*error = 1;
		return 0;
	}
	if (a[3] < 0)
		a[3] = 0;
	else if (a[3] > 0x7FFFFFFF)
		a[3] = 0x7FFFFFFF;
	return sqe_mask_integer(a[0], (int) a[1], (int) a[2], (long) a[3], (int) a[4]);
}

my_bool sqe_mask_version_init(UDF_INIT *initid, UDF_ARGS *args, char *message)
{
	if (args->arg_count != 0) {
		strcpy(message, "sqe_mask_version() takes no arguments");
		return 1;
	}
	initid->maybe_null = 0;
	initid->max_length = sizeof SQE_MASK_VERSION - 1;
	return 0;
}

char *sqe_mask_version(UDF_INIT *initid, UDF_ARGS *args, char *result, unsigned long *length, char *is_null, char *error)
{
	(void) initid;
	(void) args;
	(void) is_null;
	(void) error;
	*length = sizeof SQE_MASK_VERSION - 1;
	memcpy(result, SQE_MASK_VERSION, *length);
	return result;
}
