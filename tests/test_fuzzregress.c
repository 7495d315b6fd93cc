/* test_fuzzregress.c — every input in fuzz/regress/<fuzzer>/ (what the
 * fuzzers found, and small crafted ones) goes through the same body as
 * in its fuzzer (fuzz/drive.c): it must come back, without a crash or a
 * sanitizer report, within the test's timeout. And the cache fuzzer's
 * re-sealing does what it must for that fuzzer to mean anything: a cache
 * whose checksums were spoilt loads again once re-sealed. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fuzz/drive.h"
#include "graph/cache.h"
#include "engine/open.h"
#include "hprofw.h"
#include "suites.h"

static const struct { const char *dir; int (*body)(const uint8_t *, size_t); } fuzzers[] = {
	{ "hprof", fuzz_dump }, { "cache", fuzz_cache }, { "step", fuzz_step }, { "rules", fuzz_rules },
	{ "gz", fuzz_gz },
	{ "v8", fuzz_v8 },
};
#define NFUZZERS (sizeof fuzzers / sizeof fuzzers[0])

/* The inputs, found when the suite is made: fuzzer index and path. */
static struct input { size_t fuzzer; char *path; } *inputs;
static size_t ninputs;

static int by_name(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	return strcmp(((const struct input *)a)->path, ((const struct input *)b)->path);
}

static void find_inputs(void)
{
	for (size_t f = 0; f < NFUZZERS; f++) {
		char *dir = xasprintf("%s/../fuzz/regress/%s", TEST_SRCDIR, fuzzers[f].dir);
		DIR *d = opendir(dir);
		struct dirent *e;
		while (d != NULL && (e = readdir(d)) != NULL) {
			if (e->d_name[0] == '.')
				continue;
			inputs = xrealloc(inputs, (ninputs + 1) * sizeof *inputs);
			inputs[ninputs++] = (struct input){ f, xasprintf("%s/%s", dir, e->d_name) };
		}
		if (d != NULL)
			closedir(d);
		free(dir);
	}
	hw_sort(inputs, ninputs, sizeof *inputs, by_name, NULL);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct sbuf sb;
	char buf[65536];
	size_t got;

	ck_assert_msg(f != NULL, "%s: cannot read", path);
	sbuf_init(&sb);
	while ((got = fread(buf, 1, sizeof buf, f)) > 0)
		sbuf_add(&sb, buf, got);
	fclose(f);
	*len = sb.len;
	return (uint8_t *)sbuf_detach(&sb);
}

START_TEST(test_regress_input)
{
	const struct input *in = &inputs[_i];
	size_t len;
	uint8_t *data = slurp(in->path, &len);

	setenv("TMPDIR", hw_tmpdir(), 1); /* the bodies' files in the build dir */
	ck_assert_msg(fuzzers[in->fuzzer].body(data, len) == 0, "%s", in->path);
	free(data);
}
END_TEST

/* The corpus has inputs for every fuzzer (crafted ones at least). */
START_TEST(test_every_fuzzer_has_inputs)
{
	for (size_t f = 0; f < NFUZZERS; f++) {
		size_t n = 0;
		for (size_t i = 0; i < ninputs; i++)
			n += inputs[i].fuzzer == f;
		ck_assert_msg(n > 0, "no input in fuzz/regress/%s", fuzzers[f].dir);
	}
}
END_TEST

static int opens_from_cache(const char *dump)
{
	struct open_opts o = { .quiet = 1 };
	struct progress p;
	struct sbuf err;
	struct heap h;

	progress_init(&p, 1);
	sbuf_init(&err);
	ck_assert_msg(heap_open(&h, dump, &o, &p, &err) == 0, "%s", err.buf);
	int cached = h.from_cache;
	heap_free(&h);
	sbuf_free(&err);
	return cached;
}

/* Spoil the checks of a real cache (the dump's identity, the table's
 * checksum, a section's): it is refused; re-sealed, it loads again, and
 * from the cache. */
START_TEST(test_reseal)
{
	setenv("TMPDIR", hw_tmpdir(), 1);
	size_t len;
	uint8_t *seed = fuzz_cache_seed(&len);
	struct cache_header hd;
	char *dump = xasprintf("%s/cache.hprof", fuzz_dir()), *cache = cache_path(dump);
	struct heap h;
	struct open_opts o = { .no_cache = 1, .quiet = 1 };
	struct progress p;
	struct sbuf err;

	ck_assert_uint_ge(len, sizeof hd);
	memcpy(&hd, seed, sizeof hd);
	hd.id.mtime_ns ^= 1;
	hd.table_check ^= 1;
	memcpy(seed, &hd, sizeof hd);
	/* the table's first entry {u32 id, u32 elem, u64 raw, comp, check}:
	 * section 0's checksum */
	seed[sizeof hd + 24] ^= 0x55;
	progress_init(&p, 1);
	sbuf_init(&err);
	ck_assert(heap_open(&h, dump, &o, &p, &err) == 0);
	FILE *f = fopen(cache, "wb");
	ck_assert(f != NULL && fwrite(seed, 1, len, f) == len && fclose(f) == 0);
	ck_assert(!opens_from_cache(dump));
	ck_assert_int_eq(cache_reseal(seed, len, &h), 0);
	f = fopen(cache, "wb");
	ck_assert(f != NULL && fwrite(seed, 1, len, f) == len && fclose(f) == 0);
	ck_assert(opens_from_cache(dump));
	ck_assert_int_eq(cache_reseal(seed, sizeof hd - 1, &h), -1);
	heap_free(&h);
	sbuf_free(&err);
	free(seed);
	free(dump);
	free(cache);
}
END_TEST

Suite *fuzzregress_suite(void)
{
	Suite *s = suite_create("fuzzregress");
	TCase *tc = tcase_create("fuzzregress");

	if (inputs == NULL)
		find_inputs();
	tcase_set_timeout(tc, 60); /* a hang the fuzzers found must not come back */
	tcase_add_test(tc, test_every_fuzzer_has_inputs);
	tcase_add_test(tc, test_reseal);
	tcase_add_loop_test(tc, test_regress_input, 0, (int)ninputs);
	suite_add_tcase(s, tc);
	return s;
}
