/*
 * Test harness for native/mask.h (TestNativeMasksMatchReference): reads
 * records from stdin, each int32 fn, int32 n, four int32 replacements,
 * uint32 length and the value's bytes, and writes for each the result of
 * sqe_mask (int32 length, or -1 when the call is not valid, then the
 * bytes) and of sqe_mask_ascii (int32 length, or -2 where sqe_ascii
 * declines the value, then the bytes). A record whose fn is 100 + f is
 * an integer mask instead: the replacements are bits and number, the
 * value 8 bytes (int64), and the result of sqe_mask_integer 8 bytes (-1 when
 * the call is not valid).
 */
#include <stdio.h>
#include <stdlib.h>

#include "mask.h"

static int read_full(void *p, size_t n)
{
	return fread(p, 1, n, stdin) == n;
}

static void write_result(long len, const unsigned char *b)
{
	int32_t l = (int32_t) len;
	fwrite(&l, sizeof l, 1, stdout);
	if (len > 0)
		fwrite(b, 1, (size_t) len, stdout);
}

int main(void)
{
	int32_t head[6];
	uint32_t len;

	while (read_full(head, sizeof head) && read_full(&len, sizeof len)) {
		unsigned char *s = malloc(len + 1), *out = malloc(SQE_MASK_MAX_OUT(len) + 1);
		uint16_t *units = malloc(sizeof(uint16_t) * (2 * len + 1));
		long rep[4];
		unsigned char map[128];

		if (s == NULL || out == NULL || units == NULL || !read_full(s, len))
			return 2;
		for (int c = 0; c < 4; c++)
			rep[c] = head[2 + c];
		if (head[0] >= 100) {
			int64_t v, got;
			if (len != sizeof v)
				return 2;
			memcpy(&v, s, sizeof v);
			if (!sqe_valid_int_call(head[2], head[0] - 100, head[3]) || !sqe_fits(v, head[2])) {
				write_result(-1, NULL);
			} else {
				got = sqe_mask_integer(v, head[2], head[0] - 100, head[1], head[3]);
				write_result(sizeof got, (const unsigned char *) &got);
			}
		} else if (!sqe_valid_call(head[0], rep)) {
			write_result(-1, NULL);
			write_result(-1, NULL);
		} else {
			write_result((long) sqe_mask(s, len, head[0], head[1], rep, units, out), out);
			if (sqe_ascii(s, len, rep)) {
				sqe_ascii_map(rep, map);
				sqe_mask_ascii(s, len, head[0], head[1], map, out);
				write_result((long) len, out);
			} else
				write_result(-2, NULL);
		}
		free(s);
		free(out);
		free(units);
	}
	return 0;
}
