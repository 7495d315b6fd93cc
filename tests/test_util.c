/* test_util.c — escaping of untrusted strings, buffers, sizes. The
 * expected bytes are written out by hand from the escaping rules in
 * util.h. */
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hprofw.h"
#include "suites.h"
#include "util.h"

static char *esc(const char *in, size_t n, int mode)
{
	struct sbuf sb;

	sbuf_init(&sb);
	if (mode == 0)
		esc_append(&sb, (const uint8_t *)in, n, 0);
	else if (mode == 1)
		json_append(&sb, (const uint8_t *)in, n);
	else
		csv_append(&sb, (const uint8_t *)in, n);
	return sbuf_detach(&sb);
}

#define CHECK_ESC(in, n, mode, want) do { \
	char *got = esc(in, n, mode); \
	ck_assert_str_eq(got, want); \
	free(got); \
} while (0)

START_TEST(test_esc_plain)
{
	CHECK_ESC("java.util.HashMap", 17, 0, "java.util.HashMap");
	CHECK_ESC("caf\xc3\xa9 \xe2\x82\xac", 9, 0, "caf\xc3\xa9 \xe2\x82\xac"); /* é and € pass */
	CHECK_ESC("a\\b", 3, 0, "a\\\\b");
}
END_TEST

START_TEST(test_esc_controls)
{
	/* an escape sequence that would clear the screen, a bell, NUL */
	CHECK_ESC("\x1b[2J\x07", 5, 0, "\\x1b[2J\\x07");
	CHECK_ESC("a\0b", 3, 0, "a\\x00b");
	CHECK_ESC("l1\nl2\tx\r", 8, 0, "l1\\nl2\\tx\\r");
	/* C1 control U+009B (CSI) encoded as UTF-8, and U+2028 */
	CHECK_ESC("\xc2\x9b" "1m", 4, 0, "\\x9b1m");
	CHECK_ESC("\xe2\x80\xa8", 3, 0, "\\u{2028}");
	CHECK_ESC("\x7f", 1, 0, "\\x7f");
}
END_TEST

START_TEST(test_esc_invalid_utf8)
{
	CHECK_ESC("\xff\xfe", 2, 0, "\\xff\\xfe");
	CHECK_ESC("\xc3", 1, 0, "\\xc3");            /* cut sequence */
	CHECK_ESC("\xc0\xaf", 2, 0, "\\xc0\\xaf");   /* overlong '/' */
	CHECK_ESC("\xed\xa0\x80", 3, 0, "\\xed\\xa0\\x80"); /* surrogate */
}
END_TEST

START_TEST(test_json)
{
	CHECK_ESC("say \"hi\"\n", 9, 1, "say \\\"hi\\\"\\n");
	CHECK_ESC("\x01", 1, 1, "\\u0001");
	CHECK_ESC("\xff", 1, 1, "\\u00ff");
}
END_TEST

START_TEST(test_csv)
{
	CHECK_ESC("plain", 5, 2, "plain");
	CHECK_ESC("a,b", 3, 2, "\"a,b\"");
	CHECK_ESC("q\"x", 3, 2, "\"q\"\"x\"");
	CHECK_ESC("[Ljava.lang.String;", 19, 2, "[Ljava.lang.String;");
	CHECK_ESC("\x1b", 1, 2, "\"\\x1b\"");
	/* what a spreadsheet would take for a formula: quoted, after a ' */
	CHECK_ESC("=1+2", 4, 2, "\"'=1+2\"");
	CHECK_ESC("+1", 2, 2, "\"'+1\"");
	CHECK_ESC("-5", 2, 2, "\"'-5\"");
	CHECK_ESC("@SUM(1)", 7, 2, "\"'@SUM(1)\"");
	CHECK_ESC("\tx", 2, 2, "\"'\\tx\"");
	CHECK_ESC("\rx", 2, 2, "\"'\\rx\"");
	CHECK_ESC("=\"a\",b", 6, 2, "\"'=\"\"a\"\",b\"");
	CHECK_ESC("a=b-c", 5, 2, "a=b-c"); /* only at the start */
	CHECK_ESC("", 0, 2, "");
}
END_TEST

START_TEST(test_fmt_bytes)
{
	char b[32];

	fmt_bytes(b, sizeof b, 0);
	ck_assert_str_eq(b, "0 B");
	fmt_bytes(b, sizeof b, 1023);
	ck_assert_str_eq(b, "1023 B");
	fmt_bytes(b, sizeof b, 1536);
	ck_assert_str_eq(b, "1.50 kB");
	fmt_bytes(b, sizeof b, 100ull << 20);
	ck_assert_str_eq(b, "100 MB");
	fmt_bytes(b, sizeof b, 3ull << 30);
	ck_assert_str_eq(b, "3.00 GB");
	/* the format follows the rounded figure: never "10.00", "100.0"
	 * or "1024", and so never more than 7 cells */
	fmt_bytes(b, sizeof b, 10234);		/* 9.994 kB */
	ck_assert_str_eq(b, "9.99 kB");
	fmt_bytes(b, sizeof b, 10235);		/* 9.995 kB */
	ck_assert_str_eq(b, "10.0 kB");
	fmt_bytes(b, sizeof b, 102349);		/* 99.950 kB */
	ck_assert_str_eq(b, "100 kB");
	fmt_bytes(b, sizeof b, 1048063);	/* 1023.499 kB */
	ck_assert_str_eq(b, "1023 kB");
	fmt_bytes(b, sizeof b, 1048064);	/* 1023.5 kB */
	ck_assert_str_eq(b, "1.00 MB");
	for (uint64_t x = 1; x < (1ull << 50); x = x * 3 + 7) {
		fmt_bytes(b, sizeof b, x);
		ck_assert_msg(strlen(b) <= 7, "%llu -> \"%s\"", (unsigned long long)x, b);
	}
}
END_TEST

/* ---- lower bounds, against a linear scan ---- */

/* The first index whose key is >= k, by looking at every one. */
static size_t linear_lb(const uint64_t *a, size_t n, uint64_t k)
{
	size_t i = 0;

	while (i < n && a[i] < k)
		i++;
	return i;
}

struct lbrec { uint64_t key; uint32_t other; };

/* Every form on one ascending array of u64 keys, for every key from
 * below the least to above the greatest. */
static void check_lower_bounds(const uint64_t *a, size_t n)
{
	uint32_t *a32 = xmalloc((n + 1) * sizeof *a32), *pairs = xmalloc((2 * n + 1) * sizeof *pairs);
	struct lbrec *rec = xmalloc((n + 1) * sizeof *rec);
	uint64_t top = n > 0 ? a[n - 1] + 2 : 2;

	for (size_t i = 0; i < n; i++) {
		a32[i] = (uint32_t)a[i];
		rec[i] = (struct lbrec){ a[i] << 32 | 7, 0xdeadbeef };
		pairs[2 * i] = (uint32_t)a[i];
		pairs[2 * i + 1] = UINT32_MAX - (uint32_t)i;
	}
	for (uint64_t k = 0; k <= top; k++) {
		size_t want = linear_lb(a, n, k);
		ck_assert_uint_eq(lower_bound_u64(n ? a : NULL, n, k), want);
		ck_assert_uint_eq(lower_bound_u32(n ? a32 : NULL, n, (uint32_t)k), want);
		ck_assert_uint_eq(lower_bound_u64s(rec, n, sizeof *rec, k << 32), want);
		ck_assert_uint_eq(lower_bound_u32s(pairs, n, 2 * sizeof *pairs, (uint32_t)k), want);
		/* slices [lo, hi): the same answer, clamped to the slice */
		for (size_t lo = 0; lo <= n && lo < 40; lo += 3)
			for (size_t hi = lo; hi <= n && hi < lo + 40; hi += 5) {
				size_t in = want < lo ? lo : want > hi ? hi : want;
				ck_assert_uint_eq(lower_bound_u64_range(a, sizeof *a, lo, hi, k), in);
				ck_assert_uint_eq(lower_bound_u32_range(a32, sizeof *a32, lo, hi, (uint32_t)k), in);
			}
	}
	free(a32);
	free(pairs);
	free(rec);
}

START_TEST(test_lower_bound)
{
	static const uint64_t one[] = { 5 }, equal[] = { 3, 3, 3, 3, 3, 3, 3 };
	static const uint64_t dups[] = { 1, 2, 2, 2, 5, 5, 9, 10, 10, 10, 10, 40 };
	uint64_t big[1000];
	uint32_t x = 99;

	check_lower_bounds(NULL, 0);                                /* empty */
	check_lower_bounds(one, 1);
	check_lower_bounds(equal, sizeof equal / sizeof *equal);    /* all equal */
	check_lower_bounds(dups, sizeof dups / sizeof *dups);       /* duplicates, gaps */
	for (size_t i = 0, v = 3; i < 1000; i++) {                  /* runs of random length */
		x = x * 1103515245u + 12345u;
		v += (x >> 16) % 3 == 0;
		big[i] = v;
	}
	check_lower_bounds(big, 1000);
	/* not found before the first or after the last */
	ck_assert_uint_eq(lower_bound_u64(dups, 12, 0), 0);
	ck_assert_uint_eq(lower_bound_u64(dups, 12, 41), 12);
	ck_assert_uint_eq(lower_bound_u64(dups, 12, UINT64_MAX), 12);
	ck_assert_uint_eq(lower_bound_u64(dups, 12, 10), 7); /* the first of four */
	ck_assert_uint_eq(lower_bound_u64(dups, 12, 6), 6);  /* absent: where it would go */
}
END_TEST

/* Parallel arrays sorted by (a, b), against a linear scan of every pair. */
START_TEST(test_lower_bound_pair)
{
	static const uint32_t a[] = { 1, 1, 1, 2, 4, 4, 4, 4, 7, UINT32_MAX, UINT32_MAX };
	static const uint32_t b[] = { 0, 3, 3, 9, 1, 2, 2, 8, 0, 0, UINT32_MAX };
	size_t n = sizeof a / sizeof *a;
	static const uint32_t ka[] = { 0, 1, 2, 3, 4, 5, 7, 8, UINT32_MAX };
	static const uint32_t kb[] = { 0, 1, 2, 3, 8, 9, 10, UINT32_MAX };

	ck_assert_uint_eq(lower_bound_pair_u32(NULL, NULL, 0, 1, 1), 0);
	for (size_t i = 0; i < sizeof ka / sizeof *ka; i++)
		for (size_t j = 0; j < sizeof kb / sizeof *kb; j++) {
			size_t want = 0;
			while (want < n && (a[want] < ka[i] || (a[want] == ka[i] && b[want] < kb[j])))
				want++;
			ck_assert_uint_eq(lower_bound_pair_u32(a, b, n, ka[i], kb[j]), want);
		}
	ck_assert_uint_eq(lower_bound_pair_u32(a, b, n, 1, 3), 1);  /* the first of two */
	ck_assert_uint_eq(lower_bound_pair_u32(a, b, n, 4, 5), 7);  /* absent */
}
END_TEST

START_TEST(test_sbuf)
{
	struct sbuf sb;

	sbuf_init(&sb);
	for (int i = 0; i < 1000; i++)
		sbuf_printf(&sb, "%d,", i);
	ck_assert_uint_eq(sb.len, strlen(sb.buf));
	ck_assert(strncmp(sb.buf, "0,1,2,", 6) == 0);
	ck_assert(strcmp(sb.buf + sb.len - 4, "999,") == 0);
	sbuf_free(&sb);
}
END_TEST

/* A detached sbuf is empty and reusable: reset, every way of adding,
 * detaching again, freeing (twice too); each detached string is its
 * caller's own. The pattern that crashed run_locals: reset, build a
 * name, detach, in a loop. */
START_TEST(test_sbuf_detach_reuse)
{
	struct sbuf sb;
	char *got[6];

	sbuf_init(&sb);
	sbuf_adds(&sb, "first");
	got[0] = sbuf_detach(&sb);
	ck_assert_str_eq(got[0], "first");
	ck_assert_uint_eq(sb.len, 0);
	ck_assert_str_eq(sb.buf, ""); /* readable, not NULL */
	for (int i = 1; i < 4; i++) { /* reset, add, detach, again */
		sbuf_reset(&sb);
		ck_assert_str_eq(sb.buf, "");
		sbuf_printf(&sb, "thread \"t%d\"", i);
		sbuf_addc(&sb, '!');
		sbuf_add(&sb, "xyz", 2);
		got[i] = sbuf_detach(&sb);
	}
	ck_assert_str_eq(got[1], "thread \"t1\"!xy");
	ck_assert_str_eq(got[3], "thread \"t3\"!xy");
	got[4] = sbuf_detach(&sb); /* nothing added since: an owned "" */
	ck_assert_str_eq(got[4], "");
	got[4][0] = 'x'; /* really the caller's: writable, freeable */
	/* a long string after detach grows from nothing */
	for (int i = 0; i < 500; i++)
		sbuf_adds(&sb, "0123456789");
	ck_assert_uint_eq(sb.len, 5000);
	ck_assert_uint_eq(strlen(sb.buf), 5000);
	got[5] = sbuf_detach(&sb);
	sbuf_free(&sb); /* after a detach: nothing to free */
	sbuf_free(&sb); /* and again */
	sbuf_adds(&sb, "after free");
	ck_assert_str_eq(sb.buf, "after free");
	sbuf_free(&sb);
	for (int i = 0; i < 6; i++)
		free(got[i]);
}
END_TEST

/* Sort by key, descending when *ctx says so: the comparator reads its
 * order from the context, not from a global. */
struct kv { uint32_t key, seq; };

static int cmp_kv(const void *a, const void *b, void *ctx)
{
	const struct kv *x = a, *y = b;
	int desc = *(const int *)ctx;
	int c = x->key < y->key ? -1 : x->key > y->key;

	return desc ? -c : c;
}

START_TEST(test_sort_ctx)
{
	enum { N = 5000 };
	struct kv *a = xmalloc(N * sizeof *a), *b = xmalloc(N * sizeof *b);
	uint32_t x = 12345;

	for (int desc = 0; desc < 2; desc++) {
		for (uint32_t i = 0; i < N; i++) {
			x = x * 1103515245u + 12345u;
			a[i] = (struct kv){ x >> 24, i }; /* many equal keys */
		}
		memcpy(b, a, N * sizeof *a);
		hw_sort(a, N, sizeof *a, cmp_kv, &desc);
		hw_merge_sort(b, N, sizeof *b, cmp_kv, &desc);
		for (uint32_t i = 1; i < N; i++) {
			ck_assert(desc ? a[i - 1].key >= a[i].key : a[i - 1].key <= a[i].key);
			ck_assert_uint_eq(a[i].key, b[i].key);
			/* the merge sort is stable: equal keys keep their order */
			if (b[i - 1].key == b[i].key)
				ck_assert_uint_lt(b[i - 1].seq, b[i].seq);
		}
	}
	hw_merge_sort(NULL, 0, sizeof *a, cmp_kv, &x); /* empty: nothing to do */
	hw_sort(a, 1, sizeof *a, cmp_kv, &x);
	free(a);
	free(b);
}
END_TEST

/* sort_u32 over shapes that take each of its ways (insertion, the
 * splits, heapsort where splits go badly: an organ pipe, all equal, two
 * values), checked independently: ascending, and each value as often
 * as before (counted on values kept below 4096). */
START_TEST(test_sort_u32)
{
	enum { N = 100000, V = 4096 };
	uint32_t *a = xmalloc(N * sizeof *a), x = 777;
	uint32_t *was = xcalloc(V, sizeof *was), *now = xcalloc(V, sizeof *now);

	for (int shape = 0; shape < 7; shape++)
		for (size_t n = 0; n <= N; n = n < 40 ? n + 1 : n * 3) {
			for (size_t i = 0; i < n; i++) {
				x = x * 1103515245u + 12345u;
				a[i] = shape == 0 ? (x >> 8) % V : shape == 1 ? (uint32_t)i % V
				     : shape == 2 ? (uint32_t)(n - i) % V : shape == 3 ? 7
				     : shape == 4 ? (x >> 16) % 2 * (V - 1)
				     : shape == 5 ? (uint32_t)(i < n / 2 ? i : n - i) % V : (x >> 20) % 3;
			}
			memset(was, 0, V * sizeof *was);
			memset(now, 0, V * sizeof *now);
			for (size_t i = 0; i < n; i++)
				was[a[i]]++;
			sort_u32(a, n);
			for (size_t i = 0; i < n; i++) {
				if (i > 0)
					ck_assert_uint_le(a[i - 1], a[i]);
				now[a[i]]++;
			}
			ck_assert(memcmp(was, now, V * sizeof *was) == 0);
		}
	free(a);
	free(was);
	free(now);
}
END_TEST

static int cmp_u64_plain(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* sort_u64 (the builder's runs of target << 32 | place pairs) over the
 * same shapes, the halves of each value apart so that both count (the
 * shape's value in the high one, another in the low, or the same
 * pattern in both), against the C library's qsort. */
START_TEST(test_sort_u64)
{
	enum { N = 100000, V = 4096 };
	uint64_t *a = xmalloc(N * sizeof *a), *b = xmalloc(N * sizeof *b);
	uint32_t x = 4242;

	for (int shape = 0; shape < 7; shape++)
		for (size_t n = 0; n <= N; n = n < 40 ? n + 1 : n * 3) {
			for (size_t i = 0; i < n; i++) {
				x = x * 1103515245u + 12345u;
				uint64_t v = shape == 0 ? (x >> 8) % V : shape == 1 ? i % V : shape == 2 ? (n - i) % V
					   : shape == 3 ? 7 : shape == 4 ? (x >> 16) % 2 * (V - 1)
					   : shape == 5 ? (i < n / 2 ? i : n - i) % V : (x >> 20) % 3;
				uint64_t lo = shape % 2 ? (x >> 4) % 5 : v;
				a[i] = v << 32 | lo;
			}
			memcpy(b, a, n * sizeof *a);
			sort_u64(a, n);
			if (n > 1)
				qsort(b, n, sizeof *b, cmp_u64_plain);
			ck_assert(n == 0 || memcmp(a, b, n * sizeof *a) == 0);
		}
	free(a);
	free(b);
}
END_TEST

/* UTF-16 units joined: pairs to one code point, lone surrogates (a high
 * one before anything but a low one, a low one alone, one at the end)
 * to U+FFFD, each in its place. */
START_TEST(test_utf16_join)
{
	static const unsigned units[] = { 'A', 0xd83d, 0xde00, 0xd800, 'B', 0xdc00, 0xd801, 0xd802, 0xdc37, 0xd83d };
	static const uint32_t want[] = { 'A', 0x1f600, 0xfffd, 'B', 0xfffd, 0xfffd, 0x10837, 0xfffd };
	uint32_t got[32], cp[2];
	unsigned hi = 0;
	size_t n = 0;

	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		for (int k = 0, m = utf16_join(&hi, units[i], cp); k < m; k++)
			got[n++] = cp[k];
	if (utf16_flush(&hi, cp))
		got[n++] = cp[0];
	ck_assert_uint_eq(n, sizeof want / sizeof want[0]);
	ck_assert_mem_eq(got, want, sizeof want);
	ck_assert_int_eq(utf16_flush(&hi, cp), 0); /* nothing waits */
}
END_TEST

START_TEST(test_warnings_bounded)
{
	struct warnings w = { .quiet = 1 };

	for (int i = 0; i < 5000; i++)
		warn_add(&w, "f: offset %d: bad", i);
	ck_assert_uint_eq(w.n, 1000);
	ck_assert_uint_eq(w.suppressed, 4000);
	ck_assert_str_eq(w.msg[0], "f: offset 0: bad");
	warn_free(&w);
	/* a class name with an escape sequence in it arrives escaped */
	warn_add(&w, "class %s: odd", "Evil\x1b]0;pwned\x07");
	ck_assert_str_eq(w.msg[0], "class Evil\\x1b]0;pwned\\x07: odd");
	warn_free(&w);
}
END_TEST

/* In a child: files a, b, c made, those of guard (a bit each: 1 a, 2 b,
 * 4 c) guarded in that order, those of unguard unguarded again; then
 * SIGTERM raised. Its wait status (killed after 20 s: a hang); which of
 * the three files are left, as bits, in *left. */
static int guarded_child(const char *dir, int guard, int unguard, int *left)
{
	char path[3][512];
	int st = 0;

	for (int i = 0; i < 3; i++) {
		snprintf(path[i], sizeof path[i], "%s/guard-%c", dir, 'a' + i);
		int fd = open(path[i], O_WRONLY | O_CREAT | O_TRUNC, 0600);
		ck_assert_int_ge(fd, 0);
		close(fd);
	}
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		signal(SIGTERM, SIG_DFL);
		for (int i = 0; i < 3; i++)
			if ((guard >> i & 1) && tmp_guard(path[i]) < 0)
				_exit(3);
		for (int i = 0; i < 3; i++)
			if (unguard >> i & 1)
				tmp_unguard(path[i]);
		raise(SIGTERM);
		_exit(4);
	}
	for (int i = 0; i < 200 && waitpid(pid, &st, WNOHANG) == 0; i++)
		usleep(100000);
	if (waitpid(pid, NULL, WNOHANG) == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		ck_abort_msg("guard %d, unguard %d: SIGTERM did not end the process (a loop in the handler?)", guard,
			     unguard);
	}
	*left = 0;
	for (int i = 0; i < 3; i++)
		*left |= access(path[i], F_OK) == 0 ? 1 << i : 0;
	return st;
}

/* Guards nest (the snapshot's temporary file, then the gzip dump
 * inflated to check it): SIGTERM removes every guarded file and ends the
 * process by the signal, whichever were unguarded in between and in
 * whatever order; with none left guarded, the signal's default is back
 * (the process ends, no file removed). */
START_TEST(test_tmp_guard_nested)
{
	static const struct { int guard, unguard, left; } cases[] = {
		{ 1, 0, 6 },        /* one */
		{ 3, 0, 4 },        /* two, nested */
		{ 7, 2, 2 },        /* three, the middle one ended */
		{ 3, 1, 5 },        /* the outer ended first: the inner still guarded */
		{ 3, 3, 7 },        /* both ended: the default again */
	};
	const char *dir = hw_tmpdir();

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int left;
		int st = guarded_child(dir, cases[i].guard, cases[i].unguard, &left);
		ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "guard %d, unguard %d: wait status 0x%x",
			      cases[i].guard, cases[i].unguard, st);
		ck_assert_msg(left == cases[i].left, "guard %d, unguard %d: files left 0x%x, not 0x%x", cases[i].guard,
			      cases[i].unguard, left, cases[i].left);
	}
}
END_TEST

/* The handler removes the latest guarded first, whichever slots were
 * freed before: a directory guarded, an earlier file's guard ended, then
 * a file in the directory guarded; SIGTERM leaves neither (the file
 * taking the freed slot below the directory's, the directory's removal
 * failed: not empty). And with the top slot taken, eight guarded and
 * seven ended, a ninth still guards and both go. */
START_TEST(test_tmp_guard_order)
{
	const char *dir = hw_tmpdir();
	char d[512], f1[600], f2[600], many[9][600];

	snprintf(d, sizeof d, "%s/guard-dir", dir);
	snprintf(f1, sizeof f1, "%s/guard-first", dir);
	snprintf(f2, sizeof f2, "%s/inside", d);
	for (int i = 0; i < 9; i++)
		snprintf(many[i], sizeof many[i], "%s/guard-many-%d", dir, i);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		signal(SIGTERM, SIG_DFL);
		close(open(f1, O_WRONLY | O_CREAT | O_TRUNC, 0600));
		if (mkdir(d, 0700) != 0 || tmp_guard(f1) < 0 || tmp_guard_at(AT_FDCWD, d, AT_REMOVEDIR) < 0)
			_exit(3);
		tmp_unguard(f1);
		close(open(f2, O_WRONLY | O_CREAT | O_TRUNC, 0600));
		if (tmp_guard(f2) < 0)
			_exit(3);
		/* six more, to the top slot, then all but the last ended */
		for (int i = 0; i < 6; i++) {
			close(open(many[i], O_WRONLY | O_CREAT | O_TRUNC, 0600));
			if (tmp_guard(many[i]) < 0)
				_exit(3);
		}
		for (int i = 0; i < 5; i++)
			tmp_unguard(many[i]);
		close(open(many[8], O_WRONLY | O_CREAT | O_TRUNC, 0600));
		if (tmp_guard(many[8]) < 0)
			_exit(5);
		raise(SIGTERM);
		_exit(4);
	}
	int st = 0;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "wait status 0x%x", st);
	ck_assert_msg(access(f2, F_OK) != 0, "%s left", f2);
	ck_assert_msg(access(d, F_OK) != 0, "%s left: removed before the file in it", d);
	ck_assert_msg(access(many[5], F_OK) != 0 && access(many[8], F_OK) != 0, "a guarded file left");
	ck_assert_msg(access(f1, F_OK) == 0 && access(many[0], F_OK) == 0, "an unguarded file removed");
}
END_TEST

/* The optimal string alignment distance, the whole table (no rows kept
 * round, no cap, no early end): what str_edits counts up to max + 1 */
static size_t osa(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), *d = calloc((la + 1) * (lb + 1), sizeof *d), r;
#define D(i, j) d[(i) * (lb + 1) + (j)]
	for (size_t i = 0; i <= la; i++)
		for (size_t j = 0; j <= lb; j++) {
			if (i == 0 || j == 0) {
				D(i, j) = i + j;
				continue;
			}
			size_t c = D(i - 1, j - 1) + (a[i - 1] != b[j - 1]);
			c = D(i - 1, j) + 1 < c ? D(i - 1, j) + 1 : c;
			c = D(i, j - 1) + 1 < c ? D(i, j - 1) + 1 : c;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && D(i - 2, j - 2) + 1 < c)
				c = D(i - 2, j - 2) + 1;
			D(i, j) = c;
		}
	r = D(la, lb);
#undef D
	free(d);
	return r;
}

/* str_edits against the whole table: random names of 0 to 80 letters
 * over three (many near each other), long ones past its own rows */
START_TEST(test_str_edits)
{
	char a[96], b[96];
	unsigned seed = 12345;

	ck_assert_uint_eq(str_edits("java.util.HashMapp", "java.util.HashMap", 2), 1);
	ck_assert_uint_eq(str_edits("ab", "ba", 2), 1); /* a swap is one */
	ck_assert_uint_eq(str_edits("abcdef", "", 2), 3);
	for (int k = 0; k < 20000; k++) {
		size_t la = (seed = seed * 1103515245 + 12345) >> 16 & 63, lb;
		if (k % 4 == 0)
			la += 20;
		for (size_t i = 0; i < la; i++)
			a[i] = (char)('a' + ((seed = seed * 1103515245 + 12345) >> 16) % 3);
		a[la] = '\0';
		/* b: a with a few edits, or another name */
		memcpy(b, a, la + 1);
		lb = la;
		int edits = (int)(((seed = seed * 1103515245 + 12345) >> 16) % 5);
		for (int e = 0; e < edits && lb > 0 && lb < 90; e++) {
			size_t at = ((seed = seed * 1103515245 + 12345) >> 16) % lb;
			switch (((seed = seed * 1103515245 + 12345) >> 16) % 3) {
			case 0: memmove(b + at, b + at + 1, lb - at); lb--; break;
			case 1: memmove(b + at + 1, b + at, lb - at + 1); b[at] = 'c'; lb++; break;
			default: b[at] = b[at] == 'a' ? 'b' : 'a';
			}
		}
		size_t max = ((seed = seed * 1103515245 + 12345) >> 16) % 4, want = osa(a, b);
		want = want < max + 1 ? want : max + 1;
		ck_assert_msg(str_edits(a, b, max) == want, "'%s' '%s' max %zu: %zu, not %zu", a, b, max,
			      str_edits(a, b, max), want);
	}
}
END_TEST

/* A block of 2 MB or more starts on a huge page (2 MB), where huge()
 * advises all of it: from malloc it started anywhere, and its first
 * part, up to 2 MB, was faulted in 4 KB at a time; below that, malloc's
 * as it was. Writable to its last byte, freed by free(). */
START_TEST(test_big_blocks_aligned)
{
	const size_t mb = (size_t)1 << 20;
	const size_t sizes[] = { 2 * mb, 2 * mb + 1, 5 * mb + 4096 + 3, 18 * mb + 17 };

	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		char *p = xmalloc(sizes[i]), *q = hw_malloc_big(sizes[i]);
		ck_assert_msg(((uintptr_t)p & (2 * mb - 1)) == 0 && q != NULL && ((uintptr_t)q & (2 * mb - 1)) == 0,
			      "%zu bytes at %p and %p", sizes[i], (void *)p, (void *)q);
		memset(p, 1, sizes[i]);
		memset(q, 2, sizes[i]);
		ck_assert(p[sizes[i] - 1] == 1 && q[sizes[i] - 1] == 2);
		free(p);
		free(q);
	}
	char *small = xmalloc(64 * 1024);
	memset(small, 3, 64 * 1024);
	free(small);
}
END_TEST

/* Whether the page holding p is resident. */
static int resident(const void *p)
{
	long pg = sysconf(_SC_PAGESIZE);
	unsigned char v = 0;
	void *at = (void *)((uintptr_t)p & ~(uintptr_t)(pg - 1));

	return mincore(at, (size_t)pg, &v) == 0 && (v & 1);
}

/* The _whole blocks' last part, past their last whole huge page, is
 * made at once, not a fault a page; a plain block's is not (a stack
 * sized to the objects is mostly never written). A big block grown by
 * xrealloc (or made by it) starts on a huge page too, and
 * xcalloc_whole's, zeroed though malloc gave back memory written before
 * (its threshold for mapping raised, so that the freed block is its
 * heap's). */
START_TEST(test_big_blocks_grown_zeroed_made)
{
	const size_t mb = (size_t)1 << 20;

#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD)
	mallopt(M_MMAP_THRESHOLD, 256 << 10); /* as heap_open sets it: big blocks fresh mappings */
#endif
	/* first, on fresh memory: where the kernel has MADV_POPULATE_WRITE */
	char *probe = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert(probe != MAP_FAILED);
	int can = madvise(probe, 4096, 23 /* MADV_POPULATE_WRITE */) == 0;
	munmap(probe, 4096);
	if (can) {
		char *f = xmalloc_whole(6 * mb + 300 * 1024), *g = xmalloc(6 * mb + 300 * 1024);
		ck_assert_msg(resident(f + 6 * mb + 299 * 1024) && resident(f + 6 * mb), "the last part not made");
		ck_assert_msg(!resident(g + 6 * mb + 299 * 1024), "a plain block's last part made");
		free(f);
		free(g);
	} else {
		fprintf(stderr, "util: the kernel has no MADV_POPULATE_WRITE: a big block's last part is not checked\n");
	}
#ifdef __GLIBC__
	char *p = xmalloc(4 * mb + 100);
	memset(p, 7, 4 * mb + 100);
	p = xrealloc(p, 9 * mb + 5);
	ck_assert_msg(((uintptr_t)p & (2 * mb - 1)) == 0, "grown to %p", (void *)p);
	for (size_t i = 0; i < 4 * mb + 100; i += 4093)
		ck_assert_int_eq(p[i], 7);
	ck_assert_int_eq(p[4 * mb + 99], 7);
	memset(p, 8, 9 * mb + 5);
	free(p);
	p = xrealloc(NULL, 3 * mb);
	ck_assert_msg(((uintptr_t)p & (2 * mb - 1)) == 0, "made by xrealloc at %p", (void *)p);
	free(p);
#endif
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD)
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
	for (int k = 0; k < 3; k++) {
		char *w = malloc(12 * mb);
		ck_assert(w != NULL);
		memset(w, 0xff, 12 * mb);
		__asm__ volatile("" : : "r"(w) : "memory"); /* the writes kept: w is freed next */
		free(w);
		unsigned char *z = xcalloc_whole(5 * mb + 3, 1);
		ck_assert_msg(((uintptr_t)z & (2 * mb - 1)) == 0, "xcalloc_whole's at %p", (void *)z);
		for (size_t i = 0; i < 5 * mb + 3; i++)
			if (z[i] != 0)
				ck_abort_msg("xcalloc_whole's byte %zu is %u", i, z[i]);
		free(z);
	}
}
END_TEST

static int cmp_u32_plain(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* hw_recycle: a block kept is taken again by the next block written
 * whole that it holds (the same address, xcalloc_whole's zeroed), and
 * by no other; the kept ones are let go before any big block is made
 * anew, once small ones add up to 1 MB, past 8 of them, and by
 * hw_recycle_flush. Under a sanitizer nothing is kept: free()'s. */
START_TEST(test_recycle)
{
	const size_t mb = (size_t)1 << 20, n = 3 * mb + 12345;

	hw_recycle_flush();
	size_t taken = hw_recycle_taken();
	unsigned char *p = xmalloc_whole(n);
	memset(p, 0xab, n);
	hw_recycle(p);
	if (hw_recycle_kept() == 0) {
		fprintf(stderr, "util: blocks are not kept here (a sanitizer): hw_recycle is free()\n");
		return;
	}
	ck_assert_uint_ge(hw_recycle_kept(), n);
	hw_recycle(NULL);
	hw_recycle(xmalloc(1000)); /* small: freed */
	unsigned char *q = xcalloc_whole(n, 1);
	ck_assert_ptr_eq(q, p);
	ck_assert_uint_eq(hw_recycle_taken(), taken + 1);
	ck_assert_uint_eq(hw_recycle_kept(), 0);
	for (size_t i = 0; i < n; i++)
		if (q[i] != 0)
			ck_abort_msg("byte %zu of a block taken again by xcalloc_whole is %u", i, q[i]);
	/* a block more than 64 KB bigger than asked: not taken, and let go
	 * (a big block made anew); one that is smaller: never taken */
	hw_recycle(q);
	unsigned char *r = xmalloc_whole(n - 100 * 1024);
	ck_assert_uint_eq(hw_recycle_taken(), taken + 1);
	ck_assert_uint_eq(hw_recycle_kept(), 0);
	hw_recycle(r);
	void *big = xmalloc_whole(n);
	ck_assert_uint_eq(hw_recycle_taken(), taken + 1);
	free(big);
	/* up to 64 KB more than asked: taken (hw_malloc_whole too) */
	r = xmalloc_whole(n - 100 * 1024);
	hw_recycle(r);
	void *t = hw_malloc_whole(n - 100 * 1024 - 60 * 1024);
	ck_assert_ptr_eq(t, r);
	ck_assert_uint_eq(hw_recycle_taken(), taken + 2);
	/* a big block that is not written whole: made anew, the kept let go */
	hw_recycle(t);
	void *u = xmalloc(n - 100 * 1024);
	ck_assert_uint_eq(hw_recycle_taken(), taken + 2); /* not t (u may be at its address anew) */
	ck_assert_uint_eq(hw_recycle_kept(), 0);
	/* small blocks made while one is kept: let go past 1 MB of them */
	hw_recycle(u);
	void *sm[5];
	for (int i = 0; i < 5; i++) {
		ck_assert_uint_gt(hw_recycle_kept(), 0);
		sm[i] = i % 2 ? xcalloc(mb / 4, 1) : xmalloc(mb / 4);
	}
	ck_assert_uint_eq(hw_recycle_kept(), 0);
	for (int i = 0; i < 5; i++)
		free(sm[i]);
	/* eight kept, the ninth freed; the smallest that holds a block taken */
	void *b[9];
	for (int i = 0; i < 9; i++)
		b[i] = xmalloc(n + (size_t)(8 - i) * 4096);
	for (int i = 0; i < 9; i++)
		hw_recycle(b[i]);
	size_t k = hw_recycle_kept();
	ck_assert_uint_ge(k, 8 * n);
	ck_assert_uint_lt(k, 9 * n);
	void *v = xmalloc_whole(n);
	ck_assert_ptr_eq(v, b[7]); /* b[8], the smallest, was the ninth: freed */
	free(v);
	/* glibc's sorts malloc a copy of what they sort: a big one lets the
	 * kept go, as a big block made anew does; a small one does not */
	hw_recycle_flush();
	uint32_t few[64], *many = xmalloc(mb * sizeof *many);
	for (size_t i = 0; i < mb; i++)
		many[i] = (uint32_t)(mb - i);
	for (int i = 0; i < 64; i++)
		few[i] = (uint32_t)(i * 37 % 64);
	hw_recycle(xmalloc(n));
	hw_qsort(few, 64, sizeof *few, cmp_u32_plain);
	ck_assert_uint_gt(hw_recycle_kept(), 0);
	hw_qsort(many, mb, sizeof *many, cmp_u32_plain);
	ck_assert_uint_eq(hw_recycle_kept(), 0);
	ck_assert_uint_eq(many[0], 1);
	ck_assert_uint_eq(few[63], 63);
	free(many);
	hw_recycle_flush();
	ck_assert_uint_eq(hw_recycle_kept(), 0);
}
END_TEST

Suite *util_suite(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_esc_plain);
	tcase_add_test(tc, test_esc_controls);
	tcase_add_test(tc, test_esc_invalid_utf8);
	tcase_add_test(tc, test_json);
	tcase_add_test(tc, test_csv);
	tcase_add_test(tc, test_fmt_bytes);
	tcase_add_test(tc, test_lower_bound);
	tcase_add_test(tc, test_lower_bound_pair);
	tcase_add_test(tc, test_str_edits);
	tcase_add_test(tc, test_sbuf);
	tcase_add_test(tc, test_sbuf_detach_reuse);
	tcase_add_test(tc, test_warnings_bounded);
	tcase_add_test(tc, test_sort_ctx);
	tcase_add_test(tc, test_sort_u32);
	tcase_add_test(tc, test_sort_u64);
	tcase_add_test(tc, test_utf16_join);
	tcase_add_test(tc, test_tmp_guard_nested);
	tcase_add_test(tc, test_tmp_guard_order);
	tcase_add_test(tc, test_big_blocks_aligned);
	tcase_add_test(tc, test_big_blocks_grown_zeroed_made);
	tcase_add_test(tc, test_recycle);
	suite_add_tcase(s, tc);
	return s;
}
