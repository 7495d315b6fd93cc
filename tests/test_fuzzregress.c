/* test_fuzzregress.c — every input in fuzz/regress/<fuzzer>/ (what the
 * fuzzers found, and small crafted ones) goes through the same body as
 * in its fuzzer (fuzz/drive*.c): it must come back, without a crash or a
 * sanitizer report, within the test's timeout, taken (an input of
 * another format in the directory would test nothing). Each dump
 * fuzzer takes its own format only: the inputs of the others' are
 * refused. And the cache fuzzer's re-sealing does what it must for that
 * fuzzer to mean anything: a cache whose checksums were spoilt loads
 * again once re-sealed. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fuzz/drive.h"
#include "../fuzz/dumps.h"
#include "engine/open.h"
#include "graph/cache.h"
#include "hprofw.h"
#include "query/baseline.h"
#include "suites.h"

/* dump: a fuzzer of one dump format, which refuses the others' inputs
 * (gz's are refused by each of them too) */
static const struct {
	const char *dir;
	int (*body)(const uint8_t *, size_t);
	int dump;
} fuzzers[] = {
	{ "hprof", fuzz_hprof, 1 }, { "nettrace", fuzz_nettrace, 1 }, { "gcdump", fuzz_gcdump, 1 },
	{ "mlpd", fuzz_mlpd, 1 }, { "v8", fuzz_v8, 1 }, { "baseline", fuzz_baseline, 0 },
	{ "clrmark", fuzz_clrmark, 0 }, { "devtools", fuzz_devtools, 0 },
	{ "gz", fuzz_gz, 0 }, { "cache", fuzz_cache, 0 }, { "step", fuzz_step, 0 }, { "rules", fuzz_rules, 0 },
	{ "gates", fuzz_gates, 0 }, { "mcp", fuzz_mcp, 0 },
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
	ck_assert_msg(fuzzers[in->fuzzer].body(data, len) == 0, "%s: refused by the %s fuzzer (another format?)",
		      in->path, fuzzers[in->fuzzer].dir);
	free(data);
}
END_TEST

/* The dump fuzzers' inputs and gz's, each refused by every dump fuzzer
 * but its own (by its first bytes: nothing is written or opened). */
START_TEST(test_others_refused)
{
	const struct input *in = &inputs[_i];
	size_t len;

	if (!fuzzers[in->fuzzer].dump && strcmp(fuzzers[in->fuzzer].dir, "gz") != 0)
		return;
	uint8_t *data = slurp(in->path, &len);
	for (size_t f = 0; f < NFUZZERS; f++)
		if (fuzzers[f].dump && f != in->fuzzer)
			ck_assert_msg(fuzzers[f].body(data, len) == -1, "%s taken by the %s fuzzer", in->path,
				      fuzzers[f].dir);
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

/* The baseline fuzzer's input: byte h, a, the separator, b. */
static uint8_t *pair(uint8_t h, const uint8_t *a, size_t na, const uint8_t *b, size_t nb, size_t *len)
{
	static const char sep[] = FUZZ_BASELINE_SEP;
	uint8_t *in = xmalloc(1 + na + sizeof sep - 1 + nb);

	in[0] = h;
	memcpy(in + 1, a, na);
	memcpy(in + 1 + na, sep, sizeof sep - 1);
	if (nb > 0)
		memcpy(in + na + sizeof sep, b, nb);
	*len = 1 + na + sizeof sep - 1 + nb;
	return in;
}

/* The baseline fuzzer on pairs of real files: each reaches the identity
 * its format has (what heapwalk diff says it rests on); what is not two
 * dumps of one format is refused. */
static void run_pair(uint8_t h, const uint8_t *a, size_t na, const uint8_t *b, size_t nb, int rc, int mode)
{
	size_t len;
	uint8_t *in = pair(h, a, na, b, nb, &len);

	ck_assert_int_eq(fuzz_baseline(in, len), rc);
	ck_assert_int_eq(fuzz_baseline_mode(), mode);
	free(in);
}

START_TEST(test_baseline_pairs)
{
	size_t n1, n2, nm, nv;
	uint8_t *t1 = slurp(TEST_SRCDIR "/dotnet/workload-1.nettrace", &n1);
	uint8_t *t2 = slurp(TEST_SRCDIR "/dotnet/workload-2.nettrace", &n2);
	uint8_t *m = slurp(TEST_SRCDIR "/mono/workload.mlpd", &nm);
	uint8_t *v = slurp(TEST_SRCDIR "/../fuzz/regress/v8/small", &nv);
	struct hw a1, a2;

	setenv("TMPDIR", hw_tmpdir(), 1);
	fz_agent(&a1, 1);
	fz_agent(&a2, 2);
	run_pair(0, (const uint8_t *)a1.b.buf, a1.b.len, (const uint8_t *)a2.b.buf, a2.b.len, 0, BL_IDS);     /* the agent's ids */
	run_pair(0, (const uint8_t *)a2.b.buf, a2.b.len, (const uint8_t *)a1.b.buf, a1.b.len, 0, -1);         /* the later as the baseline */
	run_pair(0x31, m, nm, NULL, 0, 0, BL_FILE);                 /* heapshot 1 to 3: the moves */
	run_pair(0x13, m, nm, NULL, 0, 0, -1);                      /* 3 to 1 */
	run_pair(0, t1, n1, t2, n2, 0, BL_MATCHED);                 /* .NET: matched */
	run_pair(0, v, nv, NULL, 0, 0, BL_FILE);                    /* against itself: the same file */
	run_pair(0, v, nv, v, nv, 0, BL_FILE);                      /* its bytes in another file: a copy, exact */
	uint8_t *w = xmalloc(nv);
	memcpy(w, v, nv);
	uint8_t *k = (uint8_t *)memmem(w, nv, "\"file.js\"", 9);
	ck_assert_ptr_nonnull(k);
	k[1] = 'g'; /* a script renamed, the objects kept: another snapshot of the process */
	run_pair(0, v, nv, w, nv, 0, BL_IDS);                       /* V8's ids */
	free(w);
	run_pair(0, v, nv, (const uint8_t *)a1.b.buf, a1.b.len, -1, -1);                 /* two formats */
	ck_assert_int_eq(fuzz_baseline((const uint8_t *)a1.b.buf, a1.b.len), -1); /* no separator */
	ck_assert_int_eq(fuzz_baseline_mode(), -1);
	hw_free(&a1);
	hw_free(&a2);
	free(t1);
	free(t2);
	free(m);
	free(v);
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
	uint8_t *seed = fuzz_cache_seed(0, &len);
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
	tcase_set_timeout(tc, HANG_TIMEOUT); /* a hang the fuzzers found must not come back */
	tcase_add_test(tc, test_every_fuzzer_has_inputs);
	tcase_add_test(tc, test_reseal);
	tcase_add_test(tc, test_baseline_pairs);
	tcase_add_loop_test(tc, test_regress_input, 0, (int)ninputs);
	tcase_add_loop_test(tc, test_others_refused, 0, (int)ninputs);
	suite_add_tcase(s, tc);
	return s;
}
