/*
 * sqe's string masks, computed as udf/hive.go computes Hive's: over the
 * value's UTF-16 code units, each unit in the masked range replaced by
 * the replacement of its class (upper, lower, digit, other) or kept.
 * Shared by the PostgreSQL function (postgres.c) and the MariaDB UDF
 * (mariadb.c); plain C99, no allocation (the caller passes the buffers).
 */
#ifndef SQE_MASK_H
#define SQE_MASK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "classes.h"

/* The functions, numbered as the SQL sqe writes calls them. */
enum { SQE_MASK = 0, SQE_FIRST_N = 1, SQE_LAST_N = 2, SQE_SHOW_FIRST_N = 3, SQE_SHOW_LAST_N = 4 };

/* A replacement that keeps the unit. */
#define SQE_KEEP (-1)

static inline unsigned sqe_class(uint32_t unit)
{
	return sqe_class_data[sqe_class_block[unit >> 8]][unit & 0xFF];
}

/*
 * sqe_decode reads one code point of s[*i..len) as Go's utf8.DecodeRune
 * does: an ill-formed sequence (overlong, a surrogate, past U+10FFFF,
 * truncated) reads as U+FFFD and consumes one byte, which is the string
 * Java decodes from it (udf.javaString).
 */
static inline uint32_t sqe_decode(const unsigned char *s, size_t len, size_t *i)
{
	size_t at = *i, left = len - at;
	unsigned c = s[at], lo = 0x80, hi = 0xBF, need;
	uint32_t r;

	if (c < 0x80) {
		*i = at + 1;
		return c;
	}
	if (c >= 0xC2 && c <= 0xDF) {
		need = 1;
		r = c & 0x1F;
	} else if (c >= 0xE0 && c <= 0xEF) {
		need = 2;
		r = c & 0x0F;
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		need = 3;
		r = c & 0x07;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
	} else {
		*i = at + 1;
		return 0xFFFD;
	}
	if (left <= need || s[at + 1] < lo || s[at + 1] > hi) {
		*i = at + 1;
		return 0xFFFD;
	}
	r = (r << 6) | (s[at + 1] & 0x3F);
	for (size_t k = 2; k <= need; k++) {
		if (s[at + k] < 0x80 || s[at + k] > 0xBF) {
			*i = at + 1;
			return 0xFFFD;
		}
		r = (r << 6) | (s[at + k] & 0x3F);
	}
	*i = at + need + 1;
	return r;
}

static inline size_t sqe_encode(uint32_t r, unsigned char *o)
{
	if (r < 0x80) {
		o[0] = (unsigned char) r;
		return 1;
	}
	if (r < 0x800) {
		o[0] = (unsigned char) (0xC0 | (r >> 6));
		o[1] = (unsigned char) (0x80 | (r & 0x3F));
		return 2;
	}
	if (r < 0x10000) {
		o[0] = (unsigned char) (0xE0 | (r >> 12));
		o[1] = (unsigned char) (0x80 | ((r >> 6) & 0x3F));
		o[2] = (unsigned char) (0x80 | (r & 0x3F));
		return 3;
	}
	o[0] = (unsigned char) (0xF0 | (r >> 18));
	o[1] = (unsigned char) (0x80 | ((r >> 12) & 0x3F));
	o[2] = (unsigned char) (0x80 | ((r >> 6) & 0x3F));
	o[3] = (unsigned char) (0x80 | (r & 0x3F));
	return 4;
}

/* sqe_units is the number of UTF-16 units of s as sqe_decode reads it. */
static size_t sqe_units(const unsigned char *s, size_t len)
{
	size_t i = 0, n = 0;
	while (i < len)
		n += sqe_decode(s, len, &i) >= 0x10000 ? 2 : 1;
	return n;
}

/* sqe_range is the half-open range of units [*from, *to) fn masks. */
static void sqe_range(int fn, long n, size_t units, size_t *from, size_t *to)
{
	size_t k = n < 0 ? 0 : (size_t) n;
	*from = 0;
	*to = units;
	switch (fn) {
	case SQE_FIRST_N:
		*to = k < units ? k : units;
		break;
	case SQE_LAST_N:
		if (units > k)
			*from = units - k;
		break;
	case SQE_SHOW_FIRST_N:
		if (units <= k)
			*from = *to = 0;
		else
			*from = k;
		break;
	case SQE_SHOW_LAST_N:
		if (units <= k)
			*from = *to = 0;
		else
			*to = units - k;
		break;
	}
}

/*
 * sqe_valid_call reports whether fn and the replacements rep (upper,
 * lower, digit, other: a code point, or SQE_KEEP) can be computed.
 */
static int sqe_valid_call(int fn, const long rep[4])
{
	if (fn < SQE_MASK || fn > SQE_SHOW_LAST_N)
		return 0;
	for (int c = 0; c < 4; c++)
		if (rep[c] != SQE_KEEP && (rep[c] < 0 || rep[c] > 0x10FFFF))
			return 0;
	return 1;
}

/* sqe_ascii reports whether s is ASCII and every replacement is an ASCII
 * character or SQE_KEEP: then each byte is a unit and stays one byte. */
static inline int sqe_ascii(const unsigned char *s, size_t len, const long rep[4])
{
	unsigned char acc = 0;
	for (int c = 0; c < 4; c++)
		if (rep[c] < SQE_KEEP || rep[c] > 0x7F)
			return 0;
	for (size_t i = 0; i < len; i++)
		acc |= s[i];
	return acc < 0x80;
}

/* sqe_ascii_map fills map with each ASCII byte's masked byte. */
static void sqe_ascii_map(const long rep[4], unsigned char map[128])
{
	for (unsigned b = 0; b < 128; b++) {
		long r = rep[sqe_class(b)];
		map[b] = (unsigned char) (r == SQE_KEEP ? (long) b : r);
	}
}

/* sqe_mask_ascii masks an ASCII s (sqe_ascii) into out[0..len). */
static void sqe_mask_ascii(const unsigned char *s, size_t len, int fn, long n, const unsigned char map[128], unsigned char *out)
{
	size_t from, to;
	sqe_range(fn, n, len, &from, &to);
	memcpy(out, s, len);
	for (size_t i = from; i < to; i++)
		out[i] = map[s[i]];
}

/* The most bytes sqe_mask writes for len bytes of input: each byte is at
 * most one unit, which becomes at most two units of three bytes each. */
#define SQE_MASK_MAX_OUT(len) (6 * (len))

static inline void sqe_put(uint16_t *u, size_t *k, uint32_t r)
{
	if (r >= 0x10000) {
		r -= 0x10000;
		u[(*k)++] = (uint16_t) (0xD800 + (r >> 10));
		u[(*k)++] = (uint16_t) (0xDC00 + (r & 0x3FF));
	} else
		u[(*k)++] = (uint16_t) r;
}

/*
 * sqe_mask_units writes the masked UTF-16 units of s into units (room for
 * 2 * len) and returns their number. The call must be sqe_valid_call.
 */
static size_t sqe_mask_units(const unsigned char *s, size_t len, int fn, long n, const long rep[4], uint16_t *units)
{
	size_t from, to, i = 0, idx = 0, k = 0;

	sqe_range(fn, n, sqe_units(s, len), &from, &to);
	while (i < len) {
		uint32_t r = sqe_decode(s, len, &i);
		uint16_t part[2];
		int parts = 1;
		if (r >= 0x10000) {
			part[0] = (uint16_t) (0xD800 + ((r - 0x10000) >> 10));
			part[1] = (uint16_t) (0xDC00 + ((r - 0x10000) & 0x3FF));
			parts = 2;
		} else
			part[0] = (uint16_t) r;
		for (int p = 0; p < parts; p++, idx++) {
			long with = idx >= from && idx < to ? rep[sqe_class(part[p])] : SQE_KEEP;
			if (with == SQE_KEEP)
				units[k++] = part[p];
			else
				sqe_put(units, &k, (uint32_t) with);
		}
	}
	return k;
}

/*
 * sqe_encode_units writes what udf.encodeJava makes of units[0..k) into
 * out, or only counts its bytes when out is NULL, and returns that
 * length: a surrogate pair becomes its code point, a lone surrogate '?'.
 */
static size_t sqe_encode_units(const uint16_t *units, size_t k, unsigned char *out)
{
	unsigned char scratch[4];
	size_t o = 0;

	for (size_t i = 0; i < k; i++) {
		uint32_t c = units[i];
		unsigned char *at = out != NULL ? out + o : scratch;
		if (c >= 0xD800 && c < 0xDC00 && i + 1 < k && units[i + 1] >= 0xDC00 && units[i + 1] <= 0xDFFF) {
			o += sqe_encode(0x10000 + ((c - 0xD800) << 10) + (units[i + 1] - 0xDC00u), at);
			i++;
		} else if (c >= 0xD800 && c <= 0xDFFF) {
			*at = '?';
			o++;
		} else
			o += sqe_encode(c, at);
	}
	return o;
}

/*
 * sqe_mask writes the masked value of s into out (room for
 * SQE_MASK_MAX_OUT(len) bytes), using units (room for 2 * len units), and
 * returns its length. The call must be sqe_valid_call.
 */
static inline size_t sqe_mask(const unsigned char *s, size_t len, int fn, long n, const long rep[4], uint16_t *units, unsigned char *out)
{
	return sqe_encode_units(units, sqe_mask_units(s, len, fn, n, rep, units), out);
}

/* sqe_wrap is x in a signed integer bits wide (8, 16, 32, 64), wrapped
 * as Java's narrowing arithmetic wraps (two's complement). */
static inline int64_t sqe_wrap(uint64_t x, int bits)
{
	switch (bits) {
	case 8:
		return (int8_t) x;
	case 16:
		return (int16_t) x;
	case 32:
		return (int32_t) x;
	}
	return (int64_t) x;
}

/* sqe_valid_int_call reports whether an integer mask can be computed. */
static int sqe_valid_int_call(int bits, int fn, int number)
{
	return (bits == 8 || bits == 16 || bits == 32 || bits == 64) && fn >= SQE_MASK && fn <= SQE_SHOW_LAST_N &&
		   number >= 0 && number <= 9;
}

/* sqe_fits reports whether v is a value of the bits-wide integer. */
static inline int sqe_fits(int64_t v, int bits)
{
	return sqe_wrap((uint64_t) v, bits) == v;
}

/*
 * sqe_mask_integer is Hive's mask of the integer value in a bits-wide integer,
 * as udf's maskInt computes it: each masked decimal digit (by position,
 * from the least significant) replaced by number, every operation wrapping
 * in the width. The call must be sqe_valid_int_call and value sqe_fits.
 */
static int64_t sqe_mask_integer(int64_t value, int bits, int fn, long n, int number)
{
	int64_t val, ret = 0, pos = 1;
	long digits = 0, retain = 0, mask_count = 0;

	if (n < 0)
		n = 0;
	if (value == 0) {
		switch (fn) {
		case SQE_MASK:
			return number;
		case SQE_FIRST_N:
		case SQE_LAST_N:
			return n > 0 ? number : 0;
		}
		return n == 0 ? number : 0;
	}
	val = value < 0 ? sqe_wrap(0 - (uint64_t) value, bits) : value;
	for (int64_t v = val; v != 0; v /= 10)
		digits++;
	if (fn == SQE_FIRST_N && digits >= n)
		retain = digits - n;
	if (fn == SQE_SHOW_FIRST_N) {
		mask_count = digits - n;
		if (mask_count <= 0)
			return value;
	}
	for (long i = 0; val != 0; i++) {
		int masked = 1;
		int64_t add;
		switch (fn) {
		case SQE_FIRST_N:
			masked = i >= retain;
			break;
		case SQE_LAST_N:
			masked = i < n;
			break;
		case SQE_SHOW_FIRST_N:
			masked = i < mask_count;
			break;
		case SQE_SHOW_LAST_N:
			masked = i >= n;
			break;
		}
		add = sqe_wrap((uint64_t) (masked ? number : val % 10) * (uint64_t) pos, bits);
		ret = sqe_wrap((uint64_t) ret + (uint64_t) add, bits);
		val /= 10;
		pos = sqe_wrap((uint64_t) pos * 10u, bits);
	}
	if (value < 0)
		ret = sqe_wrap(0 - (uint64_t) ret, bits);
	return ret;
}

#endif
