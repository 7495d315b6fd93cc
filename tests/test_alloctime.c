/* test_alloctime.c — allocation times. The step's text form round-trips
 * and its errors say what is wrong; then a real JVM: tests/java/Timed
 * makes batches of Marks, each between two readings of the wall clock
 * that it prints, under heapwalk's agent sampling every allocation
 * (tests/time-run.sh). The truth is those readings: every Mark's
 * recorded time lies within its batch's, `allocated FROM..TO` over a
 * batch's readings selects exactly that batch's Marks, the histogram's
 * buckets hold each batch's Marks where the readings put them, and the
 * browser's Time view makes the step that `x` shows. A jcmd dump has no
 * times: said so. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "engine/open.h"
#include "jsonck.h"
#include "graph/reader.h"
#include "query/alloctime.h"
#include "query/step.h"
#include "suites.h"
#include "term.h"

#define TIMED TEST_BUILDDIR "/dumps/timed"
#define BATCHES 4
#define COUNT 500 /* Marks per batch: Timed.java's */

/* ---- the step's text ---- */

static char *reprint(const char *expr, int *rc, struct sbuf *err)
{
	struct pipeline pl;
	struct sbuf out;

	sbuf_init(&out);
	*rc = pipeline_parse(expr, &pl, err);
	if (*rc == 0)
		pipeline_to_string(&pl, &out);
	pipeline_free(&pl);
	return sbuf_detach(&out);
}

START_TEST(test_time_text)
{
	static const char *same[] = {
		"allocated 1.5..2.75", "allocated ..3", "allocated 0.001..", "allocated 12..12",
		"instances Timed$Mark | allocated 0..0.999 | times",
	};
	static const char *canon[][2] = {
		{ "allocated 1.500..2.750", "allocated 1.5..2.75" },
		{ "allocated   007..7.0", "allocated 7..7" },
		{ "allocated 0.1..", "allocated 0.1.." },
	};
	static const char *bad[][2] = { /* expression, start of the error */
		{ "allocated", "column 10: 'allocated' needs an interval" },
		{ "allocated ..", "column 11: 'allocated' needs an interval: expected FROM..TO" },
		{ "allocated 1.2345..2", "column 11: 'allocated' needs an interval: a time is seconds" },
		{ "allocated 3..2", "column 11: 'allocated' needs an interval: FROM is after TO" },
		{ "allocated a..b", "column 11: 'allocated' needs an interval: a time is seconds" },
		{ "allocated 1-2", "column 11: 'allocated' needs an interval: expected FROM..TO" },
		{ "allocated /1/", "column 11: 'allocated' needs an interval" },
		{ "allocated 1...2", "column 11: 'allocated' needs an interval: a time is seconds" },
	};
	struct sbuf err;
	int rc;

	sbuf_init(&err);
	for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
		char *got = reprint(same[i], &rc, &err);
		ck_assert_msg(rc == 0, "%s: %s", same[i], err.buf);
		ck_assert_str_eq(got, same[i]);
		free(got);
	}
	for (size_t i = 0; i < sizeof canon / sizeof canon[0]; i++) {
		char *got = reprint(canon[i][0], &rc, &err);
		ck_assert_msg(rc == 0, "%s: %s", canon[i][0], err.buf);
		ck_assert_str_eq(got, canon[i][1]);
		free(got);
	}
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		sbuf_reset(&err);
		free(reprint(bad[i][0], &rc, &err));
		ck_assert_msg(rc == STEP_ESYNTAX, "%s parsed", bad[i][0]);
		ck_assert_msg(strncmp(err.buf, bad[i][1], strlen(bad[i][1])) == 0, "%s: %s", bad[i][0], err.buf);
	}
	/* the milliseconds of the text, worked out by hand */
	uint64_t from, to;
	ck_assert_int_eq(time_range_parse("12.5..13.001", &from, &to, &err), 0);
	ck_assert_uint_eq(from, 12500);
	ck_assert_uint_eq(to, 13001);
	ck_assert_int_eq(time_range_parse("..0.02", &from, &to, &err), 0);
	ck_assert(from == TIME_OPEN && to == 20);
	sbuf_free(&err);
}
END_TEST

/* ---- a real JVM ---- */

struct batch {
	uint64_t from, to; /* the workload's clock readings, ms since the epoch */
};

static const char *timed_dump(void)
{
	struct stat d, w, a;
	const char *agent = getenv("HEAPWALK_AGENT");

	ck_assert_msg(agent && *agent, "HEAPWALK_AGENT is not set: configure found no JDK headers");
	if (stat(TIMED "/t.hprof", &d) == 0 && stat(TEST_SRCDIR "/java/Timed.java", &w) == 0 &&
	    stat(agent, &a) == 0 && d.st_mtime >= w.st_mtime && d.st_mtime >= a.st_mtime)
		return TIMED "/t.hprof";
	ck_assert_msg(system("sh " TEST_SRCDIR "/time-run.sh " TIMED) == 0, "time-run.sh failed");
	return TIMED "/t.hprof";
}

/* The batches' readings, from the workload's output. */
static void read_batches(struct batch *b)
{
	FILE *f = fopen(TIMED "/jvm.log", "r");
	char line[256];
	int seen = 0;

	ck_assert(f != NULL);
	while (fgets(line, sizeof line, f) != NULL) {
		int k;
		unsigned long long from, to;
		if (sscanf(line, "BATCH %d FROM %llu TO %llu", &k, &from, &to) == 3) {
			ck_assert(k >= 0 && k < BATCHES && from <= to);
			b[k] = (struct batch){ from, to };
			seen |= 1 << k;
		}
	}
	fclose(f);
	ck_assert_int_eq(seen, (1 << BATCHES) - 1);
}

static void take_batch(void *arg, const char *name, const struct hvalue *val)
{
	if (strcmp(name, "batch") == 0)
		*(int64_t *)arg = val->v.i;
}

/* Mark v's batch field. */
static int batch_of(const struct heap *h, node_t v)
{
	int64_t b = -1;

	heap_fields(h, v, take_batch, &b);
	ck_assert_msg(b >= 0 && b < BATCHES, "a Mark of batch %lld", (long long)b);
	return (int)b;
}

/* "FROM..TO" of batch b in seconds after the heap's time 0. */
static void batch_range(const struct heap *h, const struct batch *b, char *out, size_t n)
{
	struct sbuf s;
	uint64_t o = h->atimes->origin_ms;

	ck_assert(b->from >= o);
	sbuf_init(&s);
	time_range_text(b->from - o, b->to - o, &s);
	snprintf(out, n, "%s", s.buf);
	sbuf_free(&s);
}

static int is_mark(const struct heap *h, node_t v)
{
	return h->node_class[v] != HW_NONE && strcmp(class_name(h, h->node_class[v]), "Timed$Mark") == 0;
}

START_TEST(test_time_marks)
{
	struct heap h;
	struct open_opts o = { .quiet = 1 };
	struct sbuf err;
	struct batch b[BATCHES];
	unsigned per[BATCHES] = { 0 };

	sbuf_init(&err);
	ck_assert_msg(heap_open(&h, timed_dump(), &o, NULL, &err) == 0, "%s", err.buf);
	read_batches(b);
	heap_need(&h, HP_ALL, NULL);
	const struct alloc_times *t = heap_alloc_times(&h);
	ck_assert_str_eq(t->origin, "JVM start");
	ck_assert(t->origin_ms > 0 && t->origin_ms <= b[0].from);
	/* every Mark has a time, inside its batch's readings */
	uint64_t marks = 0;
	for (node_t v = 1; v < h.n; v++) {
		if (!is_mark(&h, v))
			continue;
		marks++;
		int k = batch_of(&h, v);
		size_t i = lower_bound_u32(t->node, (size_t)t->n, v);
		ck_assert_msg(i < t->n && t->node[i] == v, "a Mark of batch %d has no allocation time", k);
		uint64_t at = t->origin_ms + t->ms[i];
		ck_assert_msg(at >= b[k].from && at <= b[k].to, "a Mark of batch %d at %" PRIu64 ", not in %" PRIu64
			      "..%" PRIu64, k, at, b[k].from, b[k].to);
		per[k]++;
	}
	ck_assert_uint_eq(marks, BATCHES * COUNT);
	for (int k = 0; k < BATCHES; k++)
		ck_assert_uint_eq(per[k], COUNT);
	/* allocated FROM..TO over a batch's readings: its Marks, no other */
	for (int k = 0; k < BATCHES; k++) {
		char range[64], expr[128];
		struct pipeline pl;
		struct objset set;
		batch_range(&h, &b[k], range, sizeof range);
		snprintf(expr, sizeof expr, "allocated %s | instances Timed$Mark", range);
		ck_assert_msg(pipeline_parse(expr, &pl, &err) == 0, "%s: %s", expr, err.buf);
		objset_all(&h, &set);
		for (size_t i = 0; i < pl.n; i++)
			ck_assert_msg(step_apply(&h, &pl.steps[i], &set, NULL, &err) == 0, "%s: %s", expr, err.buf);
		ck_assert_uint_eq(set.count, COUNT);
		for (node_t v = 1; v < h.n; v++)
			if (objset_has(&set, v))
				ck_assert_int_eq(batch_of(&h, v), k);
		objset_free(&set);
		pipeline_free(&pl);
	}
	heap_free(&h);
	sbuf_free(&err);
}
END_TEST

/* The histogram of the Marks (CSV): each bucket with Marks lies across
 * the readings of one batch, and holds all of that batch's Marks that
 * its neighbours do not. */
START_TEST(test_time_histogram)
{
	struct batch b[BATCHES];
	unsigned long long per[BATCHES] = { 0 }, origin = 0;
	char cmd[1024];
	int st;

	snprintf(cmd, sizeof cmd, "%s -q -f json -e 'instances Timed$Mark | times' %s", heapwalk(), timed_dump());
	read_batches(b);
	char *json = run(cmd, &st), jerr[128];
	struct jv doc;
	ck_assert_int_eq(st, 0);
	ck_assert_msg(json_parse(json, strlen(json), &doc, jerr, sizeof jerr) == 0, "%s: %s", jerr, json);
	const struct jv *o = jv_get(&doc, "time_origin_ms"), *timed = jv_get(&doc, "timed_objects");
	const struct jv *jrows = jv_get(&doc, "rows");
	ck_assert(o != NULL && o->is_uint && timed != NULL && timed->is_uint && jrows != NULL && jrows->t == J_ARR);
	origin = o->u;
	ck_assert_uint_eq(timed->u, BATCHES * COUNT);
	size_t njrows = jrows->n;
	jv_free(&doc);
	free(json);
	snprintf(cmd, sizeof cmd, "%s -q -f csv -e 'instances Timed$Mark | times' %s", heapwalk(), timed_dump());
	char *csv = run(cmd, &st);
	ck_assert_int_eq(st, 0);
	ck_assert_msg(strncmp(csv, "from_ms,to_ms,objects,bytes,pct\n", 32) == 0, "%s", csv);
	size_t rows = 0;
	for (char *line = csv + 32, *next; *line; line = next) {
		next = strchr(line, '\n');
		ck_assert(next != NULL);
		*next++ = '\0';
		unsigned long long from, to, n, bytes;
		ck_assert_msg(sscanf(line, "%llu,%llu,%llu,%llu,", &from, &to, &n, &bytes) == 4, "row: %s", line);
		ck_assert(from <= to);
		rows++;
		if (n == 0)
			continue;
		ck_assert_uint_eq(bytes, n * (bytes / n)); /* Marks are all of one size */
		int hit = -1;
		for (int k = 0; k < BATCHES; k++)
			if (origin + from <= b[k].to && origin + to >= b[k].from) {
				ck_assert_msg(hit < 0, "a bucket across two batches: %s", line);
				hit = k;
			}
		ck_assert_msg(hit >= 0, "Marks in a bucket outside every batch: %s", line);
		per[hit] += n;
	}
	ck_assert(rows >= BATCHES && rows <= 21); /* about 20 buckets, 21 at most */
	ck_assert_uint_eq(rows, njrows);
	/* a set without times in a dump with some: said so */
	snprintf(cmd, sizeof cmd, "%s -q -e 'instances Timed$Mark | allocated ..0 | times' %s", heapwalk(),
		 timed_dump());
	char *none = run(cmd, &st);
	ck_assert_int_eq(st, 0);
	ck_assert_msg(strstr(none, "no object of the set has an allocation time (the dump records one for "), "%s",
		      none);
	free(none);
	for (int k = 0; k < BATCHES; k++)
		ck_assert_uint_eq(per[k], COUNT);
	free(csv);
}
END_TEST

/* The browser: the Marks' Time view; the bucket(s) of batch 2 marked and
 * used make the step "allocated FROM..TO" with the buckets' bounds, 500
 * objects, and x shows that expression. */
START_TEST(test_time_browser)
{
	struct term t;
	struct batch b[BATCHES];
	char want[256];

	term_start(&t, 80, 24, "", timed_dump());
	read_batches(b);
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, "/");
	type(&t, "^Timed\\$Mark$");
	keys(&t, "Enter Enter");
	free(wait_for(&t, "Step 2: Instances of Timed$Mark"));
	keys(&t, "BTab BTab BTab BTab"); /* from Outgoing back round to Time */
	char *s = wait_for(&t, "s after JVM start");
	has(s, " Time ");
	/* the origin, from the dump, places the readings */
	struct heap h;
	struct open_opts o = { .quiet = 1 };
	struct sbuf err;
	sbuf_init(&err);
	ck_assert_msg(heap_open(&h, timed_dump(), &o, NULL, &err) == 0, "%s", err.buf);
	heap_need(&h, HP_NODES, NULL);
	uint64_t origin = heap_alloc_times(&h)->origin_ms;
	heap_free(&h);
	sbuf_free(&err);
	uint64_t from = b[2].from - origin, to = b[2].to - origin;
	/* the rows: "   A..B   count ..." from the fifth line on */
	int first = -1, n = 0, row = 0;
	uint64_t lo = 0, hi = 0;
	char *line = s;
	for (int i = 0; i < 4; i++) /* title, step, tabs, the column header */
		line = strchr(line, '\n') + 1;
	for (; *line && strchr(line, '\n'); line = strchr(line, '\n') + 1, row++) {
		char text[64];
		struct sbuf e;
		uint64_t a, z;
		if (sscanf(line, " %63s", text) != 1 || strstr(text, "..") == NULL)
			break;
		sbuf_init(&e);
		ck_assert_msg(time_range_parse(text, &a, &z, &e) == 0, "row: %s", text);
		sbuf_free(&e);
		if (a <= to && z >= from) {
			first = first < 0 ? row : first;
			lo = n == 0 ? a : lo;
			hi = z;
			n++;
		}
	}
	ck_assert_msg(first >= 0 && n <= 2, "no bucket of batch 2 on the screen: %s", shown(s));
	free(s);
	for (int i = 0; i < first; i++)
		keys(&t, "Down");
	for (int i = 0; i < n; i++)
		keys(&t, "Space");
	keys(&t, "Enter");
	struct sbuf r;
	sbuf_init(&r);
	time_range_text(lo, hi, &r);
	snprintf(want, sizeof want, "Step 3: Allocated %s s", r.buf);
	s = wait_for(&t, want);
	has(s, "500 objects");
	free(s);
	keys(&t, "x");
	snprintf(want, sizeof want, "-e 'instances Timed$Mark | allocated %s'", r.buf);
	free(wait_for(&t, want));
	sbuf_free(&r);
	keys(&t, "Escape");
	free(wait_without(&t, "Step 3: Allocated", "The command that makes this step"));
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
}
END_TEST

/* A jcmd dump: no times, and both the report and the step say why. */
START_TEST(test_time_none)
{
	char cmd[1024];
	int st;

	snprintf(cmd, sizeof cmd, "%s -q -f json times %s/a.hprof", heapwalk(), matched_dumps_dir());
	char *out = run(cmd, &st);
	ck_assert_int_eq(st, 0);
	ck_assert_msg(strstr(out, "\"timed_objects\":0,") && strstr(out, "sample:BYTES") &&
		      strstr(out, "this dump records no allocation times") && strstr(out, "\"rows\":[]"), "%s", out);
	free(out);
	snprintf(cmd, sizeof cmd, "%s -q -e 'allocated 0..' %s/a.hprof 2>&1", heapwalk(), matched_dumps_dir());
	out = run(cmd, &st);
	ck_assert_int_eq(WEXITSTATUS(st), 2);
	ck_assert_msg(strstr(out, "this dump records no allocation times"), "%s", out);
	free(out);
}
END_TEST

Suite *alloctime_suite(void)
{
	Suite *s = suite_create("alloctime");
	TCase *tc = tcase_create("alloctime");

	tcase_set_timeout(tc, FIXTURE_TIMEOUT);
	tcase_add_test(tc, test_time_text);
	tcase_add_test(tc, test_time_marks);
	tcase_add_test(tc, test_time_histogram);
	tcase_add_test(tc, test_time_browser);
	tcase_add_test(tc, test_time_none);
	suite_add_tcase(s, tc);
	return s;
}
