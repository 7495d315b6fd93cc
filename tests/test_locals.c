/* test_locals.c — the thread-locals inspection on a dump where several
 * threads hold thread-locals (tests/java/Locals: four parked threads,
 * each with byte[] payloads of lengths of its own). It once crashed
 * (a name buffer reused after sbuf_detach) as soon as a second thread
 * had any. The expectation is the workload's own: the payloads are found
 * by class and length with a scan of every node, and their bytes are
 * what analysis_retained_set says of them and what the JVM's layout
 * makes of their lengths. Through the engine and through the command
 * line, in every format. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "format/hprof.h"
#include "graph/analysis.h"
#include "engine/open.h"
#include "query/inspect.h"
#include "suites.h"

#define NTHREADS 4

/* As tests/java/Locals.java says: per thread, its payloads' lengths. */
static const int64_t planted[NTHREADS][2] = {
	{ 100003, 0 }, { 200003, 30011 }, { 400009, 0 }, { 600011, 50021 },
};

static struct heap H;
static struct heap *const h = &H;

static void open_dump(void)
{
	struct open_opts o = { .no_cache = 1, .quiet = 1 };
	struct sbuf err;

	sbuf_init(&err);
	ck_assert_msg(heap_open(h, locals_dump(), &o, NULL, &err) == 0, "%s", err.buf);
	sbuf_free(&err);
	heap_need(h, HP_ALL, NULL);
}

/* The one byte[] of length len, by a scan of every node. */
static node_t payload(int64_t len)
{
	node_t found = HW_NONE;
	uint8_t t;

	for (node_t v = 1; v < h->n; v++) {
		if (h->node_kind[v] != NK_PRIMARRAY || strcmp(class_name(h, h->node_class[v]), "[B") != 0 ||
		    hprof_array_length(h, v, &t) != len)
			continue;
		ck_assert_msg(found == HW_NONE, "two byte[%lld]", (long long)len);
		found = v;
	}
	ck_assert_msg(found != HW_NONE, "no byte[%lld] in the dump", (long long)len);
	return found;
}

/* Thread n's payloads, ascending; how many. */
static size_t payloads(int n, node_t out[2])
{
	size_t k = 0;

	for (int i = 0; i < 2; i++)
		if (planted[n][i] > 0)
			out[k++] = payload(planted[n][i]);
	if (k == 2 && out[0] > out[1]) {
		node_t t = out[0];
		out[0] = out[1];
		out[1] = t;
	}
	return k;
}

/* By the JVM's layout (compressed oops: 16-byte array header, 8-byte
 * alignment; asserted below). */
static uint64_t byte_array_bytes(int64_t len)
{
	return (16 + (uint64_t)len + 7) / 8 * 8;
}

static uint64_t retained_set_of(const node_t *v, size_t n)
{
	bits_t *b = xcalloc(bits_words(h->n), sizeof *b);

	for (size_t i = 0; i < n; i++)
		bit_set(b, v[i]);
	uint64_t bytes = analysis_retained_set(h, b, NULL, NULL, NULL);
	free(b);
	return bytes;
}

START_TEST(engine)
{
	struct insp_result r;
	struct objset all;
	struct sbuf err;
	char name[64];
	size_t ours = 0;

	open_dump();
	ck_assert_uint_eq(h->layout.array_header, 16);
	ck_assert_uint_eq(h->layout.align, 8);
	objset_whole(h, &all);
	sbuf_init(&err);
	ck_assert_msg(inspect_run(h, inspect_find("thread-locals"), NULL, &all, &r, NULL, &err) == 0, "%s",
		      err.buf);
	for (int n = 0; n < NTHREADS; n++) {
		node_t want[2];
		size_t k = payloads(n, want);
		snprintf(name, sizeof name, "thread \"heapwalk-locals-%d\"", n);
		const struct insp_group *g = NULL;
		for (size_t i = 0; i < r.n; i++)
			if (strcmp(r.g[i].name, name) == 0) {
				ck_assert_msg(g == NULL, "two groups %s", name);
				g = &r.g[i];
			}
		ck_assert_msg(g != NULL, "no group %s", name);
		ck_assert_uint_eq(g->count, k);
		for (size_t i = 0; i < k; i++)
			ck_assert_uint_eq(g->nodes[i], want[i]);
		uint64_t bytes = 0;
		for (size_t i = 0; i < k; i++)
			bytes += byte_array_bytes(planted[n][i]);
		ck_assert_uint_eq(g->shallow, bytes);
		ck_assert_uint_eq(g->extra, bytes); /* each payload retains itself only */
		ck_assert_uint_eq(g->extra, retained_set_of(want, k));
	}
	/* no other group is one of the workload's threads, or holds a payload */
	for (size_t i = 0; i < r.n; i++) {
		if (strncmp(r.g[i].name, "thread \"heapwalk-locals-", 24) == 0) {
			ours++;
			continue;
		}
		for (uint64_t m = 0; m < r.g[i].count; m++) {
			uint8_t t;
			int64_t len = h->node_kind[r.g[i].nodes[m]] == NK_PRIMARRAY
				      ? hprof_array_length(h, r.g[i].nodes[m], &t) : -1;
			for (int n = 0; n < NTHREADS; n++)
				ck_assert_msg(len != planted[n][0] && len != planted[n][1],
					      "a payload in group %s", r.g[i].name);
		}
	}
	ck_assert_uint_eq(ours, NTHREADS);
	insp_result_free(&r);
	sbuf_free(&err);
	heap_free(h);
}
END_TEST

/* The command line, in each format: exit 0, and in CSV each planted
 * thread's row with its objects, shallow and retained bytes. */
START_TEST(cli)
{
	static const char *const fmts[] = { "text", "json", "csv" };
	char cmd[1024], want[160];
	int st;

	for (size_t f = 0; f < 3; f++) {
		snprintf(cmd, sizeof cmd, "%s -q --no-cache -f %s inspect %s thread-locals", heapwalk(),
			 fmts[f], locals_dump());
		char *out = run(cmd, &st);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %d", cmd, st);
		for (int n = 0; n < NTHREADS; n++) {
			uint64_t bytes = byte_array_bytes(planted[n][0]) +
					 (planted[n][1] ? byte_array_bytes(planted[n][1]) : 0);
			int k = planted[n][1] ? 2 : 1;
			if (f == 0)
				snprintf(want, sizeof want, "thread \"heapwalk-locals-%d\"\n", n);
			else if (f == 1)
				snprintf(want, sizeof want, "\"objects\":%d,\"shallow\":%llu,\"retained\":%llu,"
					 "\"name\":\"thread \\\"heapwalk-locals-%d\\\"\"}", k,
					 (unsigned long long)bytes, (unsigned long long)bytes, n);
			else
				snprintf(want, sizeof want, ",%d,%llu,%llu,\"thread \"\"heapwalk-locals-%d\"\"\"\n", k,
					 (unsigned long long)bytes, (unsigned long long)bytes, n);
			ck_assert_msg(strstr(out, want) != NULL, "%s: no %s in:\n%s", cmd, want, out);
		}
		free(out);
	}
}
END_TEST

Suite *locals_suite(void)
{
	Suite *s = suite_create("locals");
	TCase *tc = tcase_create("thread-locals");

	tcase_set_timeout(tc, FIXTURE_TIMEOUT);
	tcase_add_test(tc, engine);
	tcase_add_test(tc, cli);
	suite_add_tcase(s, tc);
	return s;
}
