/* test_hprof.c — the reader: both versions and identifier sizes, every
 * root kind, class dumps, and damaged files, each of which must open as
 * far as it is valid with a warning that names the offset, or fail with
 * a one-line error naming the file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/open.h"
#include "hprofw.h"
#include "suites.h"

static int open_file(const char *path, struct heap *h, struct sbuf *err)
{
	struct open_opts o = { .no_cache = 1, .quiet = 1 };
	struct progress p;

	progress_init(&p, 1);
	sbuf_init(err);
	return heap_open(h, path, &o, &p, err);
}

/* Open w's bytes (the first len) as a file named name; must succeed. */
static void open_ok(const struct hw *w, const char *name, size_t len, struct heap *h)
{
	struct sbuf err;
	char *path = hw_write(w, name, len);

	ck_assert_msg(open_file(path, h, &err) == 0, "%s: %s", name, err.buf);
	sbuf_free(&err);
	free(path);
}

static int warned(const struct heap *h, const char *what, unsigned long long offset)
{
	char at[48];

	snprintf(at, sizeof at, "offset %llu:", offset);
	for (size_t i = 0; i < h->warn.n; i++)
		if (strstr(h->warn.msg[i], what) && strstr(h->warn.msg[i], at))
			return 1;
	return 0;
}

static void dump_warnings(const struct heap *h)
{
	for (size_t i = 0; i < h->warn.n; i++)
		fprintf(stderr, "  warning: %s\n", h->warn.msg[i]);
}

START_TEST(test_versions_and_id_sizes)
{
	static const char *v[] = { "JAVA PROFILE 1.0.1", "JAVA PROFILE 1.0.2" };

	for (int i = 0; i < 2; i++)
		for (unsigned ids = 4; ids <= 8; ids += 4) {
			struct hw w;
			struct hw_sample s;
			struct heap h;
			hw_sample(&w, v[i], ids, &s);
			open_ok(&w, "v.hprof", SIZE_MAX, &h);
			ck_assert_str_eq(h.version, v[i]);
			ck_assert_uint_eq(h.layout.idsize, ids);
			ck_assert_uint_eq(h.n, 16);
			ck_assert_uint_eq(h.warn.n, 0);
			/* same graph either way: A retains B, C, D and X; with 4-byte
			 * ids, a 32-bit JVM: Node 8 + 3 * 4 = 20 -> 24, byte[100]
			 * 12 + 100 = 112, so A = 3 * 24 + 24 + 112 = 208 */
			node_t a = heap_find_id(&h, S_A);
			ck_assert_uint_eq(h.retained[a], ids == 8 ? 216 : 208);
			heap_free(&h);
			hw_free(&w);
		}
}
END_TEST

START_TEST(test_every_root_kind)
{
	/* roots of every kind, HotSpot's and Android's, on objects 1..16 */
	static const uint8_t kinds[] = { 0xff, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
					 0x89, 0x8a, 0x8b, 0x8c, 0x8d, 0x8e, 0x90 };
	struct hw w;
	struct heap h;
	int n = (int)sizeof kinds;

	hw_begin(&w, "JAVA PROFILE 1.0.2", 8);
	hw_sample_classes(&w);
	hw_rec_begin(&w, 0x1c);
	hw_class_dump(&w, S_OBJ, 0, 0, NULL, 0, NULL, 0, NULL, 0);
	hw_u1(&w, 0xfe); /* Android's HEAP_DUMP_INFO: heap id, name */
	hw_u4(&w, 1);
	hw_id(&w, 0);
	for (int i = 0; i < n; i++)
		hw_root(&w, kinds[i], 0x2001 + 2 * (uint64_t)i, 7, 3);
	for (int i = 0; i < n; i++)
		hw_instance(&w, 0x2001 + 2 * (uint64_t)i, S_OBJ, NULL, 0);
	hw_u1(&w, 0xc3); /* Android: primitive array without data */
	hw_id(&w, 0x3001);
	hw_u4(&w, 0);
	hw_u4(&w, 10);
	hw_u1(&w, 10);
	hw_rec_end(&w);
	open_ok(&w, "roots.hprof", SIZE_MAX, &h);
	dump_warnings(&h);
	ck_assert_uint_eq(h.warn.n, 0);
	for (int i = 0; i < n; i++) {
		node_t v = heap_find_id(&h, 0x2001 + 2 * (uint64_t)i);
		int found = 0;
		for (size_t r = 0; r < h.nroot_rec; r++)
			if (h.root_rec[r].node == v && h.root_rec[r].kind == kinds[i]) {
				found = 1;
				if (kinds[i] == 0x03) { /* Java frame: thread 7, frame 3 */
					ck_assert_uint_eq(h.root_rec[r].thread_serial, 7);
					ck_assert_uint_eq(h.root_rec[r].frame, 3);
				}
			}
		ck_assert_msg(found, "root kind 0x%02x missing", kinds[i]);
		ck_assert_uint_eq(h.idom[v], 0); /* a successor of the virtual root */
	}
	node_t p = heap_find_id(&h, 0x3001);
	ck_assert_uint_eq(h.node_kind[p], NK_PRIMARRAY);
	ck_assert_uint_eq(h.node_shallow[p], 16 + 40); /* int[10] */
	ck_assert_uint_eq(h.nthreads, 1);             /* THREAD_OBJ */
	heap_free(&h);
	hw_free(&w);
}
END_TEST

START_TEST(test_unknown_top_level_tag_skipped)
{
	struct hw w;
	struct hw_sample s;
	struct heap h;

	hw_begin(&w, "JAVA PROFILE 1.0.2", 8);
	hw_rec_begin(&w, 0x77); /* not a tag anyone knows: skipped by length */
	hw_u8(&w, 0x0102030405060708ull);
	hw_rec_end(&w);
	hw_rec_begin(&w, 0x0d); /* CPU_SAMPLES: known, not read */
	hw_u4(&w, 0);
	hw_u4(&w, 0);
	hw_rec_end(&w);
	struct hw rest;
	hw_sample(&rest, "JAVA PROFILE 1.0.2", 8, &s);
	size_t header = strlen("JAVA PROFILE 1.0.2") + 1 + 12;
	hw_bytes(&w, rest.b.buf + header, rest.b.len - header);
	open_ok(&w, "tags.hprof", SIZE_MAX, &h);
	ck_assert_uint_eq(h.warn.n, 0);
	ck_assert_uint_eq(h.n, 16);
	heap_free(&h);
	hw_free(&w);
	hw_free(&rest);
}
END_TEST

START_TEST(test_truncated_mid_record)
{
	struct hw w;
	struct hw_sample s;
	struct heap h;

	hw_sample(&w, "JAVA PROFILE 1.0.2", 8, &s);
	/* cut in the middle of A's instance record: the segment's length runs
	 * past the end, and A's record past what is left */
	open_ok(&w, "cut.hprof", s.a_at + 10, &h);
	dump_warnings(&h);
	ck_assert(warned(&h, "runs past the end of the file", s.seg));
	ck_assert(warned(&h, "runs past the end of its segment", s.a_at));
	ck_assert(heap_find_id(&h, S_A) == HW_NONE);
	ck_assert(heap_find_id(&h, S_NODE) != HW_NONE); /* what came before is there */
	heap_free(&h);
	hw_free(&w);
}
END_TEST

START_TEST(test_truncated_in_header_and_strings)
{
	struct hw w;
	struct hw_sample s;
	struct heap h;
	struct sbuf err;

	hw_sample(&w, "JAVA PROFILE 1.0.2", 8, &s);
	/* the header cut: an error naming the file */
	char *path = hw_write(&w, "head.hprof", 20);
	ck_assert_int_eq(open_file(path, &h, &err), -1);
	ck_assert_msg(strstr(err.buf, path) && strstr(err.buf, "offset"), "%s", err.buf);
	sbuf_free(&err);
	free(path);
	/* cut inside the first UTF8 record (after its 9-byte record header) */
	size_t first = strlen("JAVA PROFILE 1.0.2") + 1 + 12;
	open_ok(&w, "utf8.hprof", first + 12, &h);
	ck_assert(warned(&h, "runs past the end of the file", first));
	ck_assert_uint_eq(h.n, 1); /* nothing but the virtual root */
	heap_free(&h);
	/* cut inside a record header */
	open_ok(&w, "rechead.hprof", first + 4, &h);
	ck_assert(warned(&h, "truncated record header", first));
	heap_free(&h);
	hw_free(&w);
}
END_TEST

START_TEST(test_sub_record_length_past_segment)
{
	struct hw w;
	struct heap h;

	hw_begin(&w, "JAVA PROFILE 1.0.2", 8);
	hw_sample_classes(&w);
	hw_rec_begin(&w, 0x1c);
	hw_class_dump(&w, S_OBJ, 0, 0, NULL, 0, NULL, 0, NULL, 0);
	size_t bad = hw_pos(&w);
	hw_u1(&w, 0x21); /* an instance that claims 1000 bytes of fields */
	hw_id(&w, 0x5001);
	hw_u4(&w, 0);
	hw_id(&w, S_OBJ);
	hw_u4(&w, 1000);
	hw_u8(&w, 0);
	hw_rec_end(&w);
	/* a second, good segment after it is still read */
	hw_rec_begin(&w, 0x1c);
	hw_instance(&w, 0x5003, S_OBJ, NULL, 0);
	hw_root(&w, 0x05, 0x5003, 0, 0);
	hw_rec_end(&w);
	open_ok(&w, "sub.hprof", SIZE_MAX, &h);
	ck_assert(warned(&h, "runs past the end of its segment", bad));
	ck_assert(heap_find_id(&h, 0x5001) == HW_NONE);
	ck_assert(heap_find_id(&h, 0x5003) != HW_NONE);
	heap_free(&h);
	hw_free(&w);
}
END_TEST

START_TEST(test_unknown_sub_tag)
{
	struct hw w;
	struct heap h;

	hw_begin(&w, "JAVA PROFILE 1.0.2", 8);
	hw_sample_classes(&w);
	hw_rec_begin(&w, 0x1c);
	hw_class_dump(&w, S_OBJ, 0, 0, NULL, 0, NULL, 0, NULL, 0);
	hw_instance(&w, 0x5001, S_OBJ, NULL, 0);
	size_t bad = hw_pos(&w);
	hw_u1(&w, 0x55);
	hw_u8(&w, 0);
	hw_instance(&w, 0x5003, S_OBJ, NULL, 0); /* lost with the rest of the segment */
	hw_rec_end(&w);
	open_ok(&w, "subtag.hprof", SIZE_MAX, &h);
	ck_assert(warned(&h, "unknown heap sub-record tag 0x55", bad));
	ck_assert(heap_find_id(&h, 0x5001) != HW_NONE);
	ck_assert(heap_find_id(&h, 0x5003) == HW_NONE);
	heap_free(&h);
	hw_free(&w);
}
END_TEST

START_TEST(test_dangling_and_duplicates)
{
	struct hw w;
	struct heap h;
	const struct hw_field dangle[] = { { 0, 2, 0xdead1 }, { 0, 2, 0 }, { 0, 10, 0 } };
	const struct hw_field first[] = { { 0, 2, 0 }, { 0, 2, 0 }, { 0, 10, 1 } };
	const struct hw_field second[] = { { 0, 2, 0 }, { 0, 2, 0 }, { 0, 10, 2 } };
	static const struct hw_field node[] = { { 0x901, 2, 0 }, { 0x903, 2, 0 }, { 0x905, 10, 0 } };

	hw_begin(&w, "JAVA PROFILE 1.0.2", 8);
	hw_sample_classes(&w);
	hw_rec_begin(&w, 0x1c);
	hw_class_dump(&w, S_OBJ, 0, 0, NULL, 0, NULL, 0, NULL, 0);
	hw_class_dump(&w, S_NODE, S_OBJ, 0, NULL, 0, NULL, 0, node, 3);
	size_t d_at = hw_pos(&w);
	hw_instance(&w, 0x6001, S_NODE, dangle, 3);
	size_t first_at = hw_pos(&w);
	hw_instance(&w, 0x6003, S_NODE, first, 3);
	size_t second_at = hw_pos(&w);
	hw_instance(&w, 0x6003, S_NODE, second, 3);
	hw_rec_end(&w);
	hw_rec_begin(&w, 0x1c); /* a zero-length segment: nothing to say */
	hw_rec_end(&w);
	open_ok(&w, "dup.hprof", SIZE_MAX, &h);
	dump_warnings(&h);
	ck_assert(warned(&h, "refers to 0xdead1, which is not in the dump", d_at));
	ck_assert_uint_eq(h.dangling_refs, 1);
	ck_assert(warned(&h, "duplicate object id 0x6003", second_at));
	ck_assert_uint_eq(h.n, 1 + 2 + 2);
	node_t v = heap_find_id(&h, 0x6003);
	ck_assert_uint_eq(h.node_off[v], first_at); /* the first one is kept */
	ck_assert_uint_eq(h.warn.n, 2);
	heap_free(&h);
	hw_free(&w);
}
END_TEST

START_TEST(test_not_hprof)
{
	struct hw w;
	struct heap h;
	struct sbuf err;

	sbuf_init(&w.b);
	char *path = hw_write(&w, "empty.hprof", SIZE_MAX);
	ck_assert_int_eq(open_file(path, &h, &err), -1);
	ck_assert_msg(strstr(err.buf, path) != NULL, "%s", err.buf);
	sbuf_free(&err);
	free(path);
	for (int i = 0; i < 4096; i++)
		hw_u1(&w, (uint8_t)(i * 7919 >> 3));
	path = hw_write(&w, "garbage.hprof", SIZE_MAX);
	ck_assert_int_eq(open_file(path, &h, &err), -1);
	ck_assert_msg(strstr(err.buf, "not an HPROF file"), "%s", err.buf);
	sbuf_free(&err);
	free(path);
	path = xasprintf("%s/no-such.hprof", hw_tmpdir());
	ck_assert_int_eq(open_file(path, &h, &err), -1);
	ck_assert_msg(strstr(err.buf, "No such file"), "%s", err.buf);
	sbuf_free(&err);
	free(path);
	hw_free(&w);
	/* a valid header and nothing else: an empty heap */
	hw_begin(&w, "JAVA PROFILE 1.0.2", 8);
	open_ok(&w, "header-only.hprof", SIZE_MAX, &h);
	ck_assert_uint_eq(h.n, 1);
	heap_free(&h);
	hw_free(&w);
}
END_TEST

/* Every prefix of the sample opens or fails cleanly: no crash, no hang. */
START_TEST(test_every_prefix)
{
	struct hw w;
	struct hw_sample s;

	hw_sample(&w, "JAVA PROFILE 1.0.2", 8, &s);
	for (size_t len = 0; len <= w.b.len; len += 7) {
		struct heap h;
		struct sbuf err;
		char *path = hw_write(&w, "prefix.hprof", len);
		if (open_file(path, &h, &err) == 0) {
			ck_assert_uint_ge(h.n, 1);
			heap_free(&h);
		} else {
			ck_assert(err.len > 0);
		}
		sbuf_free(&err);
		free(path);
	}
	hw_free(&w);
}
END_TEST

/* Flipped bytes anywhere: opens or fails with a message, never crashes. */
START_TEST(test_corrupt_bytes)
{
	struct hw w;
	struct hw_sample s;
	unsigned seed = 99;

	hw_sample(&w, "JAVA PROFILE 1.0.2", 8, &s);
	for (int round = 0; round < 300; round++) {
		struct hw c = { .ids = 8 };
		sbuf_init(&c.b);
		hw_bytes(&c, w.b.buf, w.b.len);
		for (int k = 0; k < 3; k++) {
			seed = seed * 1103515245u + 12345u;
			size_t at = 31 + (seed >> 8) % (c.b.len - 31);
			c.b.buf[at] = (char)(seed >> 20);
		}
		struct heap h;
		struct sbuf err;
		char *path = hw_write(&c, "corrupt.hprof", SIZE_MAX);
		if (open_file(path, &h, &err) == 0)
			heap_free(&h);
		sbuf_free(&err);
		free(path);
		hw_free(&c);
	}
	hw_free(&w);
}
END_TEST

Suite *hprof_suite(void)
{
	Suite *s = suite_create("hprof");
	TCase *tc = tcase_create("reader");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_versions_and_id_sizes);
	tcase_add_test(tc, test_every_root_kind);
	tcase_add_test(tc, test_unknown_top_level_tag_skipped);
	tcase_add_test(tc, test_truncated_mid_record);
	tcase_add_test(tc, test_truncated_in_header_and_strings);
	tcase_add_test(tc, test_sub_record_length_past_segment);
	tcase_add_test(tc, test_unknown_sub_tag);
	tcase_add_test(tc, test_dangling_and_duplicates);
	tcase_add_test(tc, test_not_hprof);
	tcase_add_test(tc, test_every_prefix);
	tcase_add_test(tc, test_corrupt_bytes);
	suite_add_tcase(s, tc);
	return s;
}
