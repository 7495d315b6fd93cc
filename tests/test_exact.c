/* test_exact.c — retained_sets (graph/retained.h), the exact retained
 * sizes of many class-based sets at once, against analysis_retained_set
 * as the brute-force reference (one full marking of the heap per set):
 * on hundreds of random heaps written with the test HPROF writer, on a
 * hand-made heap whose figures change when a rule makes a reference
 * weak (the memory of whole-class figures must be forgotten then), and
 * on a real JVM dump: every class, and `classes --exact` of the command
 * line, whose retained column must be the reference's figures and whose
 * other columns those of `classes` without --exact. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/analysis.h"
#include "engine/open.h"
#include "graph/ownership.h"
#include "graph/retained.h"
#include "graph/rules.h"
#include "hprofw.h"
#include "query/step.h"
#include "query/views.h"
#include "suites.h"

static void open_path(struct heap *h, const char *path, struct ruleset *rs)
{
	struct open_opts o = { .no_cache = 1, .quiet = 1, .rules = rs };
	struct sbuf err;

	sbuf_init(&err);
	ck_assert_msg(heap_open(h, path, &o, NULL, &err) == 0, "%s: %s", path, err.buf);
	sbuf_free(&err);
	heap_need(h, HP_ALL, NULL);
}

/* The reference: set i's members as a bitset, one analysis_retained_set. */
static uint64_t brute(const struct heap *h, const struct class_sets *s, size_t i, uint64_t *count)
{
	bits_t *set = xcalloc(bits_words(h->n), sizeof *set);
	uint8_t *in = xcalloc((size_t)h->ncls + 1, 1);

	for (size_t j = s->start[i]; j < s->start[i + 1]; j++)
		in[s->cls[j]] = 1;
	for (node_t v = 1; v < h->n; v++)
		if (in[h->node_class[v]] && (s->within == NULL || bit_get(s->within, v)))
			bit_set(set, v);
	uint64_t b = analysis_retained_set(h, set, NULL, count, NULL);
	free(set);
	free(in);
	return b;
}

/* Every set's bytes and count equal the reference's. */
static void check_sets(struct heap *h, const struct class_sets *s, const char *what)
{
	uint64_t *bytes = xmalloc((s->n + 1) * sizeof *bytes);
	uint64_t *count = xmalloc((s->n + 1) * sizeof *count);

	ck_assert_int_eq(retained_sets(h, s, bytes, count, NULL), 0);
	for (size_t i = 0; i < s->n; i++) {
		uint64_t cnt, b = brute(h, s, i, &cnt);
		ck_assert_msg(bytes[i] == b && count[i] == cnt,
			      "%s, set %zu of %zu: %llu bytes in %llu objects, want %llu in %llu", what, i,
			      s->n, (unsigned long long)bytes[i], (unsigned long long)count[i],
			      (unsigned long long)b, (unsigned long long)cnt);
	}
	free(bytes);
	free(count);
}

/* ---- random heaps ---- */

enum { R_MAXCLS = 12 };

/* Objects of classes t.C0.. (with `each`, instance i is of class i),
 * Object[] arrays and WeakReferences, all references random: cycles,
 * self loops, shared targets; a few GC roots, so that parts are
 * unreachable (pseudo roots) or reachable only through a referent;
 * sometimes the JDK's classes are roots, as in a JVM. Opened. */
static void random_heap(struct heap *h, uint32_t *seed, uint32_t nobj, uint32_t ncls, int each)
{
	struct hw_shape shape = { .arrays = 20, .weaks = 10, .null_min = 20, .null_span = 50, .roots = 4,
				  .each = each };
	struct hw_graph g;

	shape.class_roots = hw_rnd(seed) % 2 ? HWG_CROOTS_JDK : HWG_CROOTS_NONE;
	hw_graph_random(&g, seed, nobj, ncls, &shape);
	hw_open_graph(h, &g, "exact.hprof");
}

/* Random sets over the heap's classes (t.C*, the JDK's, java.lang.Class,
 * Object[]): 1 to 3 classes each, so that sets overlap and share
 * classes; sometimes more than 64 sets (several batches). */
static void random_sets(const struct heap *h, uint32_t *seed, struct class_sets *s, size_t *start,
			uint32_t *cls, size_t max)
{
	size_t n = hw_rnd(seed) % 4 == 0 ? 65 + hw_rnd(seed) % 70 : 1 + hw_rnd(seed) % 20;

	if (n > max)
		n = max;
	start[0] = 0;
	for (size_t i = 0; i < n; i++) {
		size_t k = 1 + hw_rnd(seed) % 3;
		start[i + 1] = start[i] + k;
		for (size_t j = start[i]; j < start[i + 1]; j++)
			cls[j] = hw_rnd(seed) % h->ncls;
	}
	s->n = n;
	s->start = start;
	s->cls = cls;
}

START_TEST(random_heaps)
{
	uint32_t seed = 4242;
	size_t start[140], sets = 0, known = 0;
	uint32_t cls[3 * 140];
	const int heaps = RANDOM_HEAPS(300);

	for (int g = 0; g < heaps; g++) {
		uint32_t nobj = 2 + hw_rnd(&seed) % 70, ncls = 1 + hw_rnd(&seed) % R_MAXCLS;
		struct heap h;
		random_heap(&h, &seed, nobj, ncls, 0);
		struct class_sets s = { 0 };
		random_sets(&h, &seed, &s, start, cls, 139);
		char what[64];
		snprintf(what, sizeof what, "heap %d, all objects", g);
		check_sets(&h, &s, what);
		/* within a random subset (a step's set): often every instance of
		 * a small class, sometimes not */
		bits_t *within = xcalloc(bits_words(h.n), sizeof *within);
		unsigned pct = 30 + hw_rnd(&seed) % 71;
		for (node_t v = 1; v < h.n; v++)
			if (hw_rnd(&seed) % 100 < pct)
				bit_set(within, v);
		s.within = within;
		snprintf(what, sizeof what, "heap %d, within %u%%", g, pct);
		check_sets(&h, &s, what);
		/* again: now partly from the memory of whole classes */
		check_sets(&h, &s, what);
		s.within = NULL;
		check_sets(&h, &s, what);
		/* what the memory holds is right */
		for (uint32_t c = 0; c < h.ncls; c++) {
			uint64_t b, cnt, bcnt;
			size_t one[2] = { 0, 1 };
			struct class_sets cs = { .n = 1, .start = one, .cls = &c };
			if (!retained_class_known(&h, c, &b, &cnt))
				continue;
			known++;
			ck_assert_uint_eq(b, brute(&h, &cs, 0, &bcnt));
			ck_assert_uint_eq(cnt, bcnt);
		}
		sets += s.n;
		free(within);
		heap_free(&h);
	}
	ck_assert_uint_gt(3 * sets, 20 * (size_t)heaps); /* 2000 in 300 heaps */
	ck_assert_uint_gt(known, heaps);
}
END_TEST

/* Each instance its own class: class sets are then arbitrary sets of
 * objects (and of arrays and references, by their shared classes). */
START_TEST(random_object_sets)
{
	uint32_t seed = 99;
	size_t start[140];
	uint32_t cls[3 * 140];

	for (int g = 0; g < RANDOM_HEAPS(100); g++) {
		uint32_t nobj = 2 + hw_rnd(&seed) % 40;
		struct heap h;
		random_heap(&h, &seed, nobj, nobj, 1);
		struct class_sets s = { 0 };
		random_sets(&h, &seed, &s, start, cls, 139);
		char what[64];
		snprintf(what, sizeof what, "heap %d", g);
		check_sets(&h, &s, what);
		heap_free(&h);
	}
}
END_TEST

/* ---- the memory of whole classes, and rules applied again ---- */

enum { H_A = 0x3001, H_B = 0x3011, H_C = 0x3021, O_A = 0x5001, O_B = 0x5003, O_C = 0x5005 };

/* root -> a (t.A) -> b (t.B); root -> c (t.C) -> b. Each t.* class has
 * one reference field f0. Sizes: 12 + 4 -> 16 bytes each. Classes are
 * roots (as in a JVM), so an instance does not retain its class. */
static char *write_shared(void)
{
	struct hw w;
	const struct hw_field f[] = { { HWG_FIELD, T_OBJECT, 0 } };

	hw_begin(&w, "JAVA PROFILE 1.0.2", 8);
	hw_jdk_names(&w);
	hw_utf8(&w, HWG_FIELD, "f0");
	hw_class_name(&w, 8, H_A, "t/A");
	hw_class_name(&w, 9, H_B, "t/B");
	hw_class_name(&w, 10, H_C, "t/C");
	hw_heap_begin(&w);
	hw_jdk_classes(&w);
	for (uint64_t c = H_A; c <= H_C; c += 0x10)
		hw_class_dump(&w, c, J_OBJECT, 0, NULL, 0, NULL, 0, f, 1);
	hw_root(&w, HW_ROOT_UNKNOWN, O_A, 0, 0);
	hw_root(&w, HW_ROOT_UNKNOWN, O_C, 0, 0);
	for (uint64_t k = J_OBJECT; k <= J_OBJARR; k += 0x10)
		hw_root(&w, HW_ROOT_STICKY_CLASS, k, 0, 0);
	for (uint64_t k = H_A; k <= H_C; k += 0x10)
		hw_root(&w, HW_ROOT_STICKY_CLASS, k, 0, 0);
	const struct hw_field a[] = { { 0, T_OBJECT, O_B } }, c[] = { { 0, T_OBJECT, O_B } };
	const struct hw_field b[] = { { 0, T_OBJECT, 0 } };
	hw_instance(&w, O_A, H_A, a, 1);
	hw_instance(&w, O_B, H_B, b, 1);
	hw_instance(&w, O_C, H_C, c, 1);
	hw_heap_end(&w);
	hw_dump_end(&w);
	char *path = hw_write(&w, "shared.hprof", SIZE_MAX);
	hw_free(&w);
	return path;
}

START_TEST(memo_forgotten_on_rules)
{
	char *path = write_shared();
	struct heap h;
	struct ruleset *rs = rules_new();
	struct sbuf err;
	static const char text[] = "weak t.C f0\n";
	uint64_t cnt, b;

	open_path(&h, path, NULL);
	uint32_t ca = h.node_class[heap_find_id(&h, O_A)];
	ck_assert_str_eq(class_name(&h, ca), "t.A");
	ck_assert(!retained_class_known(&h, ca, NULL, NULL));
	/* b is shared with c: t.A retains a alone */
	ck_assert_uint_eq(retained_class(&h, ca, NULL, &cnt, NULL), 16);
	ck_assert_uint_eq(cnt, 1);
	ck_assert(retained_class_known(&h, ca, &b, &cnt));
	ck_assert_uint_eq(b, 16);
	ck_assert_uint_eq(cnt, 1);
	/* every instance within a set that holds them all: recorded too */
	bits_t *within = xcalloc(bits_words(h.n), sizeof *within);
	node_t nb = heap_find_id(&h, O_B);
	uint32_t cb = h.node_class[nb];
	bit_set(within, nb);
	ck_assert_uint_eq(retained_class(&h, cb, within, &cnt, NULL), 16);
	ck_assert(retained_class_known(&h, cb, &b, NULL));
	ck_assert_uint_eq(b, 16);
	/* c -> b made weak: now a alone holds b, so t.A retains both */
	sbuf_init(&err);
	ck_assert_msg(rules_parse(rs, "t.rules", text, strlen(text), &err) == 0, "%s", err.buf);
	ck_assert_int_eq(heap_apply_rules(&h, rs, NULL), 0);
	ck_assert(!retained_class_known(&h, ca, NULL, NULL));
	ck_assert(!retained_class_known(&h, cb, NULL, NULL));
	ck_assert_uint_eq(retained_class(&h, ca, NULL, &cnt, NULL), 32);
	ck_assert_uint_eq(cnt, 2);
	size_t one[2] = { 0, 1 };
	struct class_sets s = { .n = 1, .start = one, .cls = &ca };
	ck_assert_uint_eq(brute(&h, &s, 0, &cnt), 32);
	/* a cancelled call: nothing computed, what is known still given */
	struct progress p;
	progress_init(&p, 1);
	p.cancelled = 1;
	uint32_t two[2] = { ca, cb };
	size_t st[3] = { 0, 1, 2 };
	uint64_t bytes[2];
	struct class_sets s2 = { .n = 2, .start = st, .cls = two };
	ck_assert_int_eq(retained_sets(&h, &s2, bytes, NULL, &p), -1);
	ck_assert_uint_eq(bytes[0], 32);
	ck_assert_uint_eq(bytes[1], RETAINED_UNKNOWN);
	free(within);
	sbuf_free(&err);
	rules_free(rs);
	heap_free(&h);
	free(path);
}
END_TEST

/* ---- a real JVM dump ---- */

START_TEST(jvm_every_class)
{
	struct heap h;
	struct ruleset *rs = rules_new();
	struct sbuf err;
	char path[512];

	ensure_dump("coops", "");
	snprintf(path, sizeof path, "%s/dumps/coops.hprof", TEST_BUILDDIR);
	sbuf_init(&err);
	ck_assert_int_eq(rules_load_default(rs, &err), 0);
	open_path(&h, path, rs);
	size_t *start = xmalloc(((size_t)h.ncls + 1) * sizeof *start);
	uint32_t *cls = xmalloc(((size_t)h.ncls + 1) * sizeof *cls);
	for (uint32_t c = 0; c <= h.ncls; c++) {
		start[c] = c;
		cls[c] = c;
	}
	struct class_sets s = { .n = h.ncls, .start = start, .cls = cls };
	ck_assert_uint_gt(h.ncls, 300); /* several batches */
	check_sets(&h, &s, "coops.hprof, every class");
	/* within the objects of odd index: a step's set */
	bits_t *within = xcalloc(bits_words(h.n), sizeof *within);
	for (node_t v = 1; v < h.n; v += 2)
		bit_set(within, v);
	s.within = within;
	s.n = 100;
	check_sets(&h, &s, "coops.hprof, odd objects");
	free(within);
	free(start);
	free(cls);
	sbuf_free(&err);
	heap_free(&h);
	rules_free(rs);
}
END_TEST

/* The set a pipeline of steps selects (expr NULL: every object), as the
 * command line makes it. */
static void pipeline_set(struct heap *h, const char *expr, struct objset *set)
{
	struct pipeline pl;
	struct sbuf err;

	sbuf_init(&err);
	objset_all(h, set);
	if (expr != NULL) {
		ck_assert_msg(pipeline_parse(expr, &pl, &err) == 0, "%s: %s", expr, err.buf);
		for (size_t i = 0; i < pl.n; i++)
			ck_assert_msg(step_apply(h, &pl.steps[i], set, NULL, &err) == 0, "%s", err.buf);
		pipeline_free(&pl);
	}
	sbuf_free(&err);
}

/* heapwalk -f csv classes [--exact regex] DUMP [-e expr]: its output. */
static char *cli_classes(const char *dump, const char *regex, const char *expr)
{
	char cmd[2048];
	int st;

	snprintf(cmd, sizeof cmd, "%s -q -f csv classes%s%s%s %s%s%s%s", heapwalk(),
		 regex ? " --exact '" : "", regex ? regex : "", regex ? "'" : "", dump,
		 expr ? " -e '" : "", expr ? expr : "", expr ? "'" : "");
	char *out = run(cmd, &st);
	ck_assert_msg(st == 0, "%s failed", cmd);
	return out;
}

/* Row by row: the --exact output is the plain one plus a last column,
 * empty for the classes the regex does not match, else the reference's
 * exact retained size of the row's instances within the set. */
static void cli_case(struct heap *h, const char *dump, const char *regex, const char *expr)
{
	char *a = cli_classes(dump, regex, expr), *b = cli_classes(dump, NULL, expr);
	struct objset set;
	struct view_opts o = { 0 };
	struct class_view v;
	struct sbuf err, want;
	size_t rows = 0, exact = 0;

	sbuf_init(&err);
	sbuf_init(&want);
	pipeline_set(h, expr, &set);
	uint8_t *match = class_match(h, regex, 1, &err);
	ck_assert_ptr_nonnull(match);
	ck_assert_int_eq(view_classes(h, &set, &o, &v, &err), 0); /* the rows' classes, in order */
	char *sa, *sb, *la = strtok_r(a, "\n", &sa), *lb = strtok_r(b, "\n", &sb);
	ck_assert_str_eq(la, "class,instances,shallow,retained_lb,retained_exact");
	ck_assert_str_eq(lb, "class,instances,shallow,retained_lb");
	while ((la = strtok_r(NULL, "\n", &sa)) != NULL) {
		lb = strtok_r(NULL, "\n", &sb);
		ck_assert_ptr_nonnull(lb);
		ck_assert_uint_lt(rows, v.n);
		uint32_t c = v.rows[rows++].cls;
		sbuf_reset(&want);
		sbuf_printf(&want, "%s,", lb);
		if (match[c]) {
			size_t one[2] = { 0, 1 };
			struct class_sets cs = { .n = 1, .start = one, .cls = &c, .within = set.bits };
			sbuf_printf(&want, "%llu", (unsigned long long)brute(h, &cs, 0, NULL));
			exact++;
		}
		ck_assert_str_eq(la, want.buf);
	}
	ck_assert_ptr_null(strtok_r(NULL, "\n", &sb));
	ck_assert_uint_eq(rows, v.n);
	ck_assert_uint_gt(exact, 3);
	class_view_free(&v);
	objset_free(&set);
	free(match);
	free(a);
	free(b);
	sbuf_free(&err);
	sbuf_free(&want);
}

START_TEST(jvm_cli_exact)
{
	struct heap h;
	struct ruleset *rs = rules_new();
	struct sbuf err;
	char path[512];

	ensure_dump("coops", "");
	snprintf(path, sizeof path, "%s/dumps/coops.hprof", TEST_BUILDDIR);
	sbuf_init(&err);
	ck_assert_int_eq(rules_load_default(rs, &err), 0); /* as the command line */
	open_path(&h, path, rs);
	cli_case(&h, path, "^java\\.util\\.|String|Workload", NULL);
	cli_case(&h, path, ".", "instances /java\\.util\\..*/ | referents");
	sbuf_free(&err);
	heap_free(&h);
	rules_free(rs);
}
END_TEST

Suite *exact_suite(void)
{
	Suite *s = suite_create("exact");
	TCase *tc = tcase_create("random");
	TCase *jvm = tcase_create("jvm");

	tcase_set_timeout(tc, HANG_TIMEOUT);
	tcase_add_test(tc, random_heaps);
	tcase_add_test(tc, random_object_sets);
	tcase_add_test(tc, memo_forgotten_on_rules);
	tcase_set_timeout(jvm, FIXTURE_TIMEOUT);
	tcase_add_test(jvm, jvm_every_class);
	tcase_add_test(jvm, jvm_cli_exact);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, jvm);
	return s;
}
