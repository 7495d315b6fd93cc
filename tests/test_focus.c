/* test_focus.c — the analyses' focus: an analysis root (the step root,
 * --root) and references left out (ignore, unignore, --ignore).
 *
 * Random heaps written with the test HPROF writer, which records the
 * references it writes: after each step, every object's retained
 * size is checked against a brute force over those references (an
 * object's retained size is what the roots no longer reach when it is
 * removed), with the analysis root as the only root, or without the
 * references left out; the root step's set is what the root reaches.
 * A JVM dump of tests/java/Focus.java, whose leak has a second holder
 * (figures by construction there), in batch and in the browser: leaving
 * out the first holder's reference moves the path to the second. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/open.h"
#include "graph/analysis.h"
#include "hprofw.h"
#include "query/lifelines.h"
#include "query/step.h"
#include "query/views.h"
#include "suites.h"
#include "term.h"

#define DUMPS TEST_BUILDDIR "/dumps"

/* ---- random heaps and the brute force ---- */

enum { G_MAX = 60 };

struct cut { uint32_t src, dst; };   /* every reference src -> dst left out */

/* Instances of t.Ck (k % 4 + 1 reference fields f0..) and Object[],
 * references at random (cycles, self loops, shared targets), 1 to 3
 * GC roots: some objects unreachable. The classes are roots, as in a
 * JVM: an object holds its class, which no object of the graph may
 * retain then. */
static const struct hw_shape shape = { .arrays = 25, .weaks = 0, .null_min = 15, .null_span = 40,
				       .roots = 3, .class_roots = HWG_CROOTS_ALL };

/* The graph's GC roots into out; their number. */
static uint32_t gc_roots(const struct hw_graph *g, uint32_t *out)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < g->n; i++)
		if (g->root[i])
			out[n++] = i;
	return n;
}

static int is_cut(const struct cut *c, size_t nc, uint32_t s, uint32_t d)
{
	for (size_t i = 0; i < nc; i++)
		if (c[i].src == s && c[i].dst == d)
			return 1;
	return 0;
}

/* What the starts reach over the written references, not entering skip
 * (G_MAX: none), without the cut ones. */
static void reach(const struct hw_graph *g, const uint32_t *starts, uint32_t ns, uint32_t skip,
		  const struct cut *c, size_t nc, uint8_t *seen)
{
	uint32_t stack[G_MAX * HWG_REFS + 4];
	size_t sp = 0;

	memset(seen, 0, G_MAX);
	for (uint32_t i = 0; i < ns; i++)
		if (starts[i] != skip && !seen[starts[i]]) {
			seen[starts[i]] = 1;
			stack[sp++] = starts[i];
		}
	while (sp > 0) {
		uint32_t u = stack[--sp];
		for (uint32_t j = 0; j < g->nref[u]; j++) {
			int t = g->ref[u][j];
			if (t < 0 || seen[t] || (uint32_t)t == skip || is_cut(c, nc, u, (uint32_t)t))
				continue;
			seen[t] = 1;
			stack[sp++] = (uint32_t)t;
		}
	}
}

/* The roots of the dominator tree as the engine makes them as dumped
 * (without references left out): the GC roots, then for what they do not
 * reach pseudo roots (graph/analysis.h):
 * first the unreachable objects no other unreachable one refers to, then
 * the rest, in index order, each once what came before does not reach
 * it, so that every object has a dominator. Over the references that c
 * leaves: focus_cuts' drop garbage's into the live heap. */
static uint32_t engine_roots(const struct hw_graph *g, const uint32_t *roots, uint32_t nroots,
			     const struct cut *c, size_t nc, uint32_t *out)
{
	uint8_t seen[G_MAX], more[G_MAX], pointed[G_MAX] = { 0 };
	uint32_t n = 0;

	reach(g, roots, nroots, G_MAX, c, nc, seen);
	memcpy(out, roots, nroots * sizeof *out);
	n = nroots;
	for (uint32_t u = 0; u < g->n; u++)
		for (uint32_t j = 0; !seen[u] && j < g->nref[u]; j++) {
			int t = g->ref[u][j];
			if (t >= 0 && (uint32_t)t != u && !is_cut(c, nc, u, (uint32_t)t))
				pointed[t] = 1;
		}
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t v = 0; v < g->n; v++) {
			if (seen[v] || (pass == 0 && pointed[v]))
				continue;
			out[n++] = v;
			reach(g, &v, 1, G_MAX, c, nc, more);
			for (uint32_t x = 0; x < g->n; x++)
				seen[x] |= more[x];
		}
	return n;
}

/* The references the analyses leave out with c: c's, and those from
 * what the roots do not reach once c is left out (what c cut off, and
 * the dump's own garbage) into what they still reach: garbage holds
 * nothing (analysis.h, ownership.h). Into ext (room for G_MAX *
 * HWG_REFS); their number. */
static size_t focus_cuts(const struct hw_graph *g, const struct cut *c, size_t nc, struct cut *ext)
{
	uint8_t with[G_MAX];
	uint32_t roots[G_MAX], nroots = gc_roots(g, roots);
	size_t n = nc;

	if (nc > 0)
		memcpy(ext, c, nc * sizeof *c);
	reach(g, roots, nroots, G_MAX, c, nc, with);
	for (uint32_t u = 0; u < g->n; u++)
		for (uint32_t j = 0; !with[u] && j < g->nref[u]; j++) {
			int t = g->ref[u][j];
			if (t >= 0 && with[t] && !is_cut(ext, n, u, (uint32_t)t))
				ext[n++] = (struct cut){ u, (uint32_t)t };
		}
	return n;
}

/* Every object the roots reach has the retained size the brute force
 * gives. The number of objects reached. */
static uint32_t check_retained(const struct heap *h, const struct hw_graph *g, const uint32_t *roots,
			       uint32_t nroots, const struct cut *c, size_t nc, const char *what)
{
	uint8_t all[G_MAX], without[G_MAX];
	uint32_t reached = 0;

	reach(g, roots, nroots, G_MAX, c, nc, all);
	for (uint32_t v = 0; v < g->n; v++) {
		if (!all[v])
			continue;
		reached++;
		reach(g, roots, nroots, v, c, nc, without);
		uint64_t want = 0;
		for (uint32_t x = 0; x < g->n; x++)
			if (all[x] && !without[x])
				want += h->node_shallow[g->node[x]];
		ck_assert_msg(h->retained[g->node[v]] == want, "%s: object %u retains %llu, want %llu", what, v,
			      (unsigned long long)h->retained[g->node[v]], (unsigned long long)want);
	}
	return reached;
}

/* Apply expr (steps) to a set of every object; the set. */
static void apply(struct heap *h, const char *expr, struct objset *set)
{
	struct pipeline pl;
	struct sbuf err;

	sbuf_init(&err);
	ck_assert_msg(pipeline_parse(expr, &pl, &err) == 0, "%s: %s", expr, err.buf);
	objset_all(h, set);
	for (size_t i = 0; i < pl.n; i++)
		ck_assert_msg(step_apply(h, &pl.steps[i], set, NULL, &err) == 0, "%s: %s", expr, err.buf);
	pipeline_free(&pl);
	sbuf_free(&err);
}

/* The label of reference j of object i, as a step names it. */
static void ref_label(const struct hw_graph *g, uint32_t i, uint32_t j, char *buf, size_t n)
{
	if (g->kind[i] == HWG_ARRAY)
		snprintf(buf, n, "[%u]", j);
	else
		snprintf(buf, n, "f%u", j);
}

/* The references of g from i to t: those one ignore leaves out. */
static uint64_t refs_to(const struct hw_graph *g, const struct cut *c, size_t nc)
{
	uint64_t n = 0;

	for (size_t k = 0; k < nc; k++)
		for (uint32_t j = 0; j < g->nref[c[k].src]; j++)
			n += g->ref[c[k].src][j] == (int)c[k].dst;
	return n;
}

/* info's counts: the dump's references less those left out, whatever
 * the focus set aside (a trial of stop 63: an ignore, whose cut-off
 * objects' references became weak ones, and a root step moved strong
 * references into weak_references) */
static void check_counts(const struct heap *h, uint64_t strong0, uint64_t weak0, uint64_t left, const char *what)
{
	ck_assert_msg(heap_strong_refs(h) == strong0 - left && heap_weak_refs(h) == weak0,
		      "%s: %llu references, %llu weak; want %llu, %llu", what, (unsigned long long)heap_strong_refs(h),
		      (unsigned long long)heap_weak_refs(h), (unsigned long long)(strong0 - left),
		      (unsigned long long)weak0);
}

/* Is list (names joined by ", ") the labels of i's references for
 * which want(j) holds, each once, in any order (and with "<class>" where
 * the class is listed)? */
static int same_names(const struct hw_graph *g, uint32_t i, const char *list, int t)
{
	char lab[16], *copy = xstrdup(list), *save = NULL;
	uint8_t seen[HWG_REFS] = { 0 };
	int ok = 1;

	for (char *w = strtok_r(copy, ",", &save); ok && w != NULL; w = strtok_r(NULL, ",", &save)) {
		w += *w == ' ';
		if (t < 0 && strcmp(w, "<class>") == 0)
			continue;
		int hit = 0;
		for (uint32_t j = 0; j < g->nref[i]; j++) {
			ref_label(g, i, j, lab, sizeof lab);
			if (strcmp(lab, w) == 0 && g->ref[i][j] >= 0 && (t < 0 || g->ref[i][j] == t) && !seen[j])
				hit = seen[j] = 1;
		}
		ok = hit;
	}
	for (uint32_t j = 0; ok && j < g->nref[i]; j++)
		ok = seen[j] || g->ref[i][j] < 0 || (t >= 0 && g->ref[i][j] != t);
	free(copy);
	return ok;
}

/* The names a reference left out goes by (info, the browser's focus)
 * and those a step that names none lists: every field or element that
 * holds the target, each once (two fields of one object to one target
 * read "f1, f1", and info named the first only; a trial of stop 63) */
static void check_names(const struct heap *h, const struct hw_graph *g, uint32_t i, uint32_t t, const char *what)
{
	struct sbuf sb, err;

	sbuf_init(&sb);
	ref_labels(h, g->node[i], g->node[t], ", ", &sb);
	ck_assert_msg(same_names(g, i, sb.buf, (int)t), "%s: object %u to %u goes by '%s'", what, i, t, sb.buf);
	sbuf_init(&err);
	ck_assert_uint_eq(step_ref_target(h, g->node[i], "nothere", &err), HW_NONE);
	const char *has = strstr(err.buf, "(it has: ");
	ck_assert_msg(has != NULL, "%s: %s", what, err.buf);
	char *list = xstrdup(has + 9);
	list[strlen(list) - 1] = '\0';
	ck_assert_msg(same_names(g, i, list, -1), "%s: object %u lists '%s'", what, i, list);
	free(list);
	sbuf_free(&err);
	sbuf_free(&sb);
}

START_TEST(random_ignore_and_root)
{
	uint32_t seed = 1717, cuts_made = 0, roots_made = 0, moved = 0;
	const int heaps = RANDOM_HEAPS(150);

	for (int k = 0; k < heaps; k++) {
		struct hw_graph g;
		uint32_t n = 2 + hw_rnd(&seed) % (G_MAX - 2);
		hw_graph_random(&g, &seed, n, 1 + hw_rnd(&seed) % 6, &shape);
		struct heap h;
		hw_open_graph(&h, &g, "focus.hprof");
		char what[64];
		snprintf(what, sizeof what, "heap %d, as dumped", k);
		uint32_t gc[G_MAX], ngc = gc_roots(&g, gc);
		struct cut c[3], ext[G_MAX * HWG_REFS + 3];
		size_t next0 = focus_cuts(&g, NULL, 0, ext);
		uint32_t all[G_MAX], nall = engine_roots(&g, gc, ngc, ext, next0, all);
		uint64_t *was = xmalloc(g.n * sizeof *was);
		check_retained(&h, &g, all, nall, ext, next0, what);
		for (uint32_t i = 0; i < g.n; i++)
			was[i] = h.retained[g.node[i]];
		uint64_t strong0 = heap_strong_refs(&h), weak0 = heap_weak_refs(&h);

		/* leave out up to 3 references, one at a time */
		char steps[3][64];
		size_t nc = 0;
		for (int tries = 0; tries < 20 && nc < 3; tries++) {
			uint32_t i = hw_rnd(&seed) % g.n;
			if (g.nref[i] == 0)
				continue;
			uint32_t j = hw_rnd(&seed) % g.nref[i];
			if (g.ref[i][j] < 0 || is_cut(c, nc, i, (uint32_t)g.ref[i][j]))
				continue;
			char lab[16];
			ref_label(&g, i, j, lab, sizeof lab);
			snprintf(steps[nc], sizeof steps[nc], "ignore 0x%llx %s",
				 (unsigned long long)hw_graph_id(i), lab);
			c[nc++] = (struct cut){ i, (uint32_t)g.ref[i][j] };
			struct objset set;
			apply(&h, steps[nc - 1], &set);
			check_names(&h, &g, i, (uint32_t)g.ref[i][j], steps[nc - 1]);
			ck_assert_uint_eq(set.count, h.n - 1); /* the set stays */
			objset_free(&set);
			snprintf(what, sizeof what, "heap %d, %zu left out", k, nc);
			/* references left out: what they make garbage holds nothing */
			size_t next = focus_cuts(&g, c, nc, ext);
			nall = engine_roots(&g, gc, ngc, ext, next, all);
			check_retained(&h, &g, all, nall, ext, next, what);
			check_counts(&h, strong0, weak0, refs_to(&g, c, nc), what);
			for (uint32_t v = 0; v < g.n; v++)
				moved += h.retained[g.node[v]] != was[v];
			ck_assert_uint_eq(h.nignored, nc);
			cuts_made++;
		}
		/* put the first back */
		if (nc > 0) {
			struct objset set;
			char *un = xasprintf("un%s", steps[0]);
			apply(&h, un, &set);
			free(un);
			objset_free(&set);
			memmove(c, c + 1, --nc * sizeof *c);
			snprintf(what, sizeof what, "heap %d, one put back", k);
			size_t next = focus_cuts(&g, c, nc, ext); /* none left: as dumped */
			nall = engine_roots(&g, gc, ngc, ext, next, all);
			check_retained(&h, &g, all, nall, ext, next, what);
			check_counts(&h, strong0, weak0, refs_to(&g, c, nc), what);
		}
		/* an analysis root, reachable or not, with what is left out */
		uint32_t x = hw_rnd(&seed) % g.n;
		char step[64];
		snprintf(step, sizeof step, "root 0x%llx", (unsigned long long)hw_graph_id(x));
		struct objset set;
		apply(&h, step, &set);
		snprintf(what, sizeof what, "heap %d, root %u", k, x);
		uint32_t inside = check_retained(&h, &g, &x, 1, c, nc, what);
		check_counts(&h, strong0, weak0, refs_to(&g, c, nc), what);
		uint8_t in[G_MAX];
		reach(&g, &x, 1, G_MAX, c, nc, in);
		ck_assert_uint_eq(set.count, inside); /* the set: what the root reaches */
		for (uint32_t i = 0; i < g.n; i++)
			ck_assert_msg(objset_has(&set, g.node[i]) == in[i], "%s: object %u", what, i);
		objset_free(&set);
		roots_made++;
		/* and the GC roots again */
		apply(&h, "root gc", &set);
		ck_assert_uint_eq(set.count, h.n - 1);
		objset_free(&set);
		snprintf(what, sizeof what, "heap %d, root gc", k);
		size_t next = focus_cuts(&g, c, nc, ext);
		nall = engine_roots(&g, gc, ngc, ext, next, all);
		check_retained(&h, &g, all, nall, ext, next, what);
		check_counts(&h, strong0, weak0, refs_to(&g, c, nc), what);
		free(was);
		heap_free(&h);
	}
	/* the brute force had something to tell apart: more than one
	 * reference left out and one size moved a heap */
	ck_assert_uint_gt(cuts_made, heaps);
	ck_assert_uint_gt(moved, heaps);
	ck_assert_uint_eq(roots_made, heaps);
}
END_TEST

/* Parsing: the forms and the errors, each at its column. */
/* The names of many references to one target: an Object[1000] whose
 * slots but [500] hold one byte[10]: the first eight, then how many
 * more (a review of this stop: two million slots made a 23 MB line of
 * info and of the step's error), and [500] on its own. */
START_TEST(many_names_one_target)
{
	uint64_t elems[1000];
	struct hw w;
	int st;

	for (int i = 0; i < 1000; i++)
		elems[i] = i == 500 ? 0x5005 : 0x5003;
	hw_jdk_open(&w);
	hw_root(&w, HW_ROOT_JNI_GLOBAL, 0x5001, 0x9001, 0);
	hw_objarray(&w, 0x5001, J_OBJARR, elems, 1000);
	hw_primarray(&w, 0x5003, T_BYTE, 10, NULL);
	hw_primarray(&w, 0x5005, T_BYTE, 10, NULL);
	char *path = hw_jdk_close(&w, "many-names.hprof");
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "%s -q --no-cache -e 'ignore 0x5001 [3] | info' '%s'", getenv("HEAPWALK"), path);
	char *out = run(cmd, &st);
	ck_assert_msg(st == 0 && strstr(out, "\nreferences_left_out:       0x5001 .[0], .[1], .[2], .[3], .[4], .[5], "
					  ".[6], .[7] +991 more -> 0x5003\n") != NULL, "%.600s", out);
	free(out);
	snprintf(cmd, sizeof cmd, "%s -q --no-cache -e 'ignore 0x5001 nothere' '%s' 2>&1", getenv("HEAPWALK"), path);
	out = run(cmd, &st);
	ck_assert_msg(WEXITSTATUS(st) == 2 && strstr(out, "[0], [1], [2], [3], [4], [5], [6], [7] +991 more, ") != NULL &&
		      strstr(out, ", [500]") != NULL && strlen(out) < 300, "%.600s", out);
	free(out);
	free(path);
}
END_TEST

START_TEST(parse_focus_steps)
{
	static const struct { const char *in, *out; } ok[] = {
		{ "root 0x10", "root 0x10" }, { "root gc", "root gc" },
		{ "ignore 0x10 next", "ignore 0x10 next" }, { "ignore 16 .next", "ignore 16 next" },
		{ "ignore 16 .\t323", "ignore 16 323" }, { "ignore 16 ..x", "ignore 16 ..x" },
		{ "ignore 0x10 static LISTENERS | classes", "ignore 0x10 static LISTENERS | classes" },
		{ "unignore 0x10 [3]", "unignore 0x10 [3]" },
	};
	static const struct { const char *in, *err; } bad[] = {
		{ "root", "column 5: 'root' needs an object id" },
		{ "root 0x1,0x2", "column 13: 'root' takes one object" },
		{ "ignore 0x10", "column 12: 'ignore' needs the reference" },
		{ "ignore next 0x10", "column 8: 'ignore' needs an object id (0x... hex or decimal, @ before it or not), not 'next'" },
	};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		struct pipeline pl;
		struct sbuf err, out;
		sbuf_init(&err);
		sbuf_init(&out);
		ck_assert_msg(pipeline_parse(ok[i].in, &pl, &err) == 0, "%s: %s", ok[i].in, err.buf);
		pipeline_to_string(&pl, &out);
		ck_assert_str_eq(out.buf, ok[i].out);
		pipeline_free(&pl);
		sbuf_free(&err);
		sbuf_free(&out);
	}
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct pipeline pl;
		struct sbuf err;
		sbuf_init(&err);
		ck_assert_int_eq(pipeline_parse(bad[i].in, &pl, &err), STEP_ESYNTAX);
		ck_assert_msg(strncmp(err.buf, bad[i].err, strlen(bad[i].err)) == 0, "%s: '%s', want '%s'",
			      bad[i].in, err.buf, bad[i].err);
		pipeline_free(&pl);
		sbuf_free(&err);
	}
}
END_TEST

/* ---- the JVM dump ---- */

static char focus_path[512];

static void focus_dump(void)
{
	workload_dump("Focus", "focus", "-Xmx64m", focus_path, sizeof focus_path);
}

/* The class named so, its node. */
static node_t class_node(const struct heap *h, const char *name)
{
	for (uint32_t c = 0; c < h->ncls; c++)
		if (strcmp(class_name(h, c), name) == 0)
			return h->cls[c].node;
	ck_abort_msg("no class %s", name);
	return HW_NONE;
}

static uint64_t retained_count(const struct heap *h, node_t v)
{
	bits_t *one = xcalloc(bits_words(h->n), sizeof *one);
	uint64_t count;

	bit_set(one, v);
	analysis_retained_set(h, one, NULL, &count, NULL);
	free(one);
	return count;
}

/* An id as steps write it. */
static char *id_of(const struct heap *h, node_t v)
{
	return xasprintf("0x%llx", (unsigned long long)heap_node_id(h, v));
}

START_TEST(jvm_second_holder)
{
	struct heap h;
	struct open_opts o = { .no_cache = 1, .quiet = 1 };
	struct sbuf err;
	struct objset set;
	char expr[256];

	focus_dump();
	sbuf_init(&err);
	ck_assert_msg(heap_open(&h, focus_path, &o, NULL, &err) == 0, "%s", err.buf);
	heap_need(&h, HP_ALL, NULL);
	char *reg = id_of(&h, class_node(&h, "Focus$LeakRegistry"));
	char *audit = id_of(&h, class_node(&h, "Focus$AuditLog"));
	/* the list: what the registry's LISTENERS holds */
	snprintf(expr, sizeof expr, "object %s | referents | instances java.util.ArrayList", reg);
	apply(&h, expr, &set);
	ck_assert_uint_eq(set.count, 1);
	node_t list = 1;
	while (!objset_has(&set, list))
		list++;
	objset_free(&set);
	char *lid = id_of(&h, list);
	/* by construction (Focus.java): 962 retained, 1002 reached */
	ck_assert_uint_eq(retained_count(&h, list), 962);
	snprintf(expr, sizeof expr, "ignore %s static RECENT", audit);
	apply(&h, expr, &set);
	objset_free(&set);
	ck_assert_uint_eq(retained_count(&h, list), 1002); /* the second holder is gone */
	snprintf(expr, sizeof expr, "unignore %s RECENT", audit); /* the field's name reads too */
	apply(&h, expr, &set);
	objset_free(&set);
	ck_assert_uint_eq(h.nignored, 0);
	ck_assert_uint_eq(retained_count(&h, list), 962);
	/* the list as the only root: what it reaches, which it all retains */
	snprintf(expr, sizeof expr, "root %s", lid);
	apply(&h, expr, &set);
	ck_assert_uint_eq(set.count, 1002);
	ck_assert_uint_eq(h.retained[list], set.shallow);
	ck_assert_uint_eq(retained_count(&h, list), 1002);
	objset_free(&set);
	/* a session's lifelines and deep set under it: they end at the list,
	 * through its array and a listener (3 references, by construction);
	 * what the session reaches is itself, its String, its byte[]s (4) */
	snprintf(expr, sizeof expr, "instances Focus$Session | reachable");
	apply(&h, "instances Focus$Session", &set);
	node_t ses = 1;
	while (!objset_has(&set, ses))
		ses++;
	objset_free(&set);
	struct lifeline_view lv;
	view_lifelines(&h, ses, 0, &lv);
	ck_assert_uint_ge(lv.n, 1);
	for (size_t i = 0; i < lv.n; i++) {
		ck_assert_int_eq(lv.ll[i].end, LE_ROOT);
		ck_assert_uint_eq(lv.ll[i].example, list);
		ck_assert_str_eq(lv.strs[lv.ll[i].end_what], "analysis root");
		ck_assert_uint_eq(lv.ll[i].example_len, 3);
	}
	lifeline_view_free(&lv);
	unsigned long long sid = heap_node_id(&h, ses);
	snprintf(expr, sizeof expr, "object 0x%llx | reachable", sid);
	apply(&h, expr, &set);
	ck_assert_uint_eq(set.count, 4);
	objset_free(&set);
	apply(&h, "root gc", &set);
	objset_free(&set);
	ck_assert_uint_eq(retained_count(&h, list), 962);
	heap_free(&h);

	/* batch: --ignore and --root are those steps first */
	char cmd[1024];
	int st;
	snprintf(cmd, sizeof cmd, "%s -q --root %s -e 'instances Focus$Session | info' %s", getenv("HEAPWALK"),
		 lid, focus_path);
	char *out = run(cmd, &st);
	ck_assert_msg(st == 0, "%s: %s", cmd, out);
	ck_assert_msg(strstr(out, "set_objects:               200\n") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "analysis_root:") != NULL, "%s", out);
	free(out);
	/* info under the root: what it does not reach is the unreachable and
	 * weakly reachable objects (they add up with what it reaches to the
	 * dump's), and their rows say whose they are; the GC roots are the
	 * dump's */
	snprintf(cmd, sizeof cmd, "%s -q --root %s info %s", getenv("HEAPWALK"), lid, focus_path);
	out = run(cmd, &st);
	unsigned long long objects = 0, reached = 0, unreach = 0, weakly = 0;
	const char *k;
	ck_assert_msg(st == 0 && (k = strstr(out, "\nobjects:")) != NULL && sscanf(k, "\nobjects: %llu", &objects) == 1 &&
		      (k = strstr(out, "\nset_objects:")) != NULL && sscanf(k, "\nset_objects: %llu", &reached) == 1 &&
		      (k = strstr(out, "\nunreachable_objects:")) != NULL &&
		      sscanf(k, "\nunreachable_objects: %llu", &unreach) == 1 &&
		      (k = strstr(out, "\nweakly_reachable_objects:")) != NULL &&
		      sscanf(k, "\nweakly_reachable_objects: %llu", &weakly) == 1, "%s", out);
	ck_assert_msg(reached > 0 && reached < objects && reached + unreach + weakly == objects, "%llu + %llu + %llu of %llu: %s", reached,
		      unreach, weakly, objects, out);
	ck_assert_msg(strstr(out, "\nnot the analysis root's: unreachable ") != NULL &&
		      strstr(out, "\nunreachable ") == NULL && strstr(out, "\nweakly reachable ") == NULL &&
		      strstr(out, "\nstatics: system class ") != NULL, "%s", out);
	free(out);
	/* the batch lifelines end at it in its own words: no rule owns it */
	snprintf(cmd, sizeof cmd, "%s -q --root %s lifelines %s 0x%llx -f csv", getenv("HEAPWALK"), lid, focus_path,
		 sid);
	out = run(cmd, &st);
	ck_assert_msg(st == 0 && strstr(out, ",\"analysis root\"\n") != NULL && strstr(out, "owned") == NULL, "%s: %s",
		      cmd, out);
	free(out);
	snprintf(cmd, sizeof cmd, "%s -q --ignore '%s nothere' info %s 2>&1", getenv("HEAPWALK"), audit, focus_path);
	out = run(cmd, &st);
	ck_assert_int_eq(WEXITSTATUS(st), 2);
	ck_assert_msg(strstr(out, "has no reference 'nothere' (it has:") != NULL, "%s", out);
	ck_assert_int_eq(count_lines(out), 1);
	free(out);
	free(reg);
	free(audit);
	free(lid);
	sbuf_free(&err);
}
END_TEST

/* N of "path 1: N steps from a GC root" on the screen. */
static unsigned steps_of(const char *s)
{
	const char *p = strstr(s, "path 1: ");
	unsigned n = 0;

	ck_assert_msg(p != NULL && sscanf(p, "path 1: %u steps", &n) == 1, "no path: %s", shown(s));
	return n;
}

/* In the browser: an audited session's path goes through its listener;
 * X on the listener's row leaves that reference out and the path, shown
 * again, goes through the audit log; ^X puts it back. */
START_TEST(browser_second_holder)
{
	struct term t;
	char cmd[1024], args[600];
	int st;

	focus_dump();
	snprintf(cmd, sizeof cmd, "%s -q -f csv -e 'instances Focus$AuditEntry | referents | "
		 "instances Focus$Session' objects %s", getenv("HEAPWALK"), focus_path);
	char *out = run(cmd, &st), *p = strstr(out, "\n0x");
	ck_assert_msg(st == 0 && p != NULL, "%s: %s", cmd, out);
	char sid[32];
	ck_assert_int_eq(sscanf(p + 1, "%31[0-9a-fx]", sid), 1);
	free(out);
	snprintf(args, sizeof args, "%s", focus_path);
	term_start(&t, 160, 30, "", args);
	free(wait_for(&t, "Step 1: All objects"));
	/* a pipeline whose view word cannot be shown makes nothing, and its
	 * root goes: the session reaches 4 objects (Focus.java) */
	keys(&t, ":");
	char line[128];
	snprintf(line, sizeof line, "root %s | lifelines", sid);
	type(&t, line);
	keys(&t, "Enter");
	char *s = wait_for(&t, "lifelines needs a set of one object, not 4");
	lacks(s, "analysis root");
	free(s);
	keys(&t, "Escape");
	s = wait_without(&t, "q quit", "lifelines needs");
	has(s, "Step 1: All objects  |");
	lacks(s, "analysis root");
	free(s);
	keys(&t, ":");
	snprintf(line, sizeof line, "object %s | paths", sid);
	type(&t, line);
	keys(&t, "Enter");
	s = wait_for(&t, "path 1: ");
	unsigned before = steps_of(s);
	has(s, "Focus$Listener 0x");
	has(s, ".static LISTENERS");
	lacks(s, "Focus$AuditEntry");
	char *row = line_of(s, "Focus$Listener 0x");
	char lid[32];
	ck_assert_int_eq(sscanf(strstr(row, "0x"), "%31[0-9a-fx]", lid), 1);
	free(row);
	free(s);
	keys(&t, "Down Down X"); /* the listener's row: it holds the session */
	s = wait_for(&t, "Focus$AuditEntry 0x");
	/* by construction: one reference more from the classes' loader */
	ck_assert_uint_eq(steps_of(s), before + 1);
	has(s, ".static RECENT");
	has(s, "1 reference left out");
	lacks(s, "Focus$Listener");
	free(s);
	keys(&t, "x");
	char want[256];
	snprintf(want, sizeof want, "-e 'object %s | ignore %s session'", sid, lid);
	free(wait_for(&t, want));
	keys(&t, "Escape");
	/* the step before, under the analyses as they are now (the browser
	 * keeps them going back): its command leaves the reference out
	 * first, then takes the step's objects */
	keys(&t, "Left");
	free(wait_for(&t, "1 reference left out"));
	keys(&t, "x");
	snprintf(want, sizeof want, "-e 'ignore %s session | all | object %s'", lid, sid);
	free(wait_for(&t, want));
	keys(&t, "Escape Right");
	free(wait_for(&t, ".static RECENT"));
	/* which runs as the screen reads: the paths through RECENT only */
	snprintf(cmd, sizeof cmd, "%s -q -e 'ignore %s session | all | object %s | paths' %s", getenv("HEAPWALK"), lid, sid,
		 focus_path);
	out = run(cmd, &st);
	ck_assert_msg(st == 0 && strstr(out, "static RECENT") != NULL && strstr(out, "LISTENERS") == NULL, "%s: %s", cmd, out);
	free(out);
	keys(&t, "C-x");
	s = wait_for(&t, "left out: Focus$Listener");
	free(s);
	keys(&t, "Enter");
	s = wait_for(&t, "Focus$Listener 0x");
	ck_assert_uint_eq(steps_of(s), before);
	lacks(s, "left out");
	free(s);
	/* the step that left it out, under the analyses that put it back:
	 * its command cannot show both, and says so */
	keys(&t, "Left x");
	s = wait_for(&t, "not this screen's analyses");
	free(s);
	keys(&t, "Escape");
	/* the reference left out again, the id as DevTools writes one (@ and
	 * decimal): the screen's analyses are the step's, and its command
	 * says so (it compared the id as typed with the hex it writes) */
	free(wait_without(&t, "q quit", "The command that makes this step"));
	keys(&t, ":");
	snprintf(line, sizeof line, "ignore @%llu session", strtoull(lid, NULL, 16));
	type(&t, line);
	keys(&t, "Enter");
	free(wait_for(&t, "1 reference left out"));
	keys(&t, "x");
	s = wait_for(&t, line);
	lacks(s, "not this screen's analyses");
	free(s);
	keys(&t, "Escape");
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
}
END_TEST

Suite *focus_suite(void)
{
	Suite *s = suite_create("focus");
	TCase *unit = tcase_create("unit"), *jvm = tcase_create("jvm");

	tcase_set_timeout(unit, FIXTURE_TIMEOUT);
	tcase_set_timeout(jvm, FIXTURE_TIMEOUT);
	tcase_add_test(unit, parse_focus_steps);
	tcase_add_test(unit, many_names_one_target);
	tcase_add_test(unit, random_ignore_and_root);
	tcase_add_test(jvm, jvm_second_holder);
	tcase_add_test(jvm, browser_second_holder);
	suite_add_tcase(s, unit);
	suite_add_tcase(s, jvm);
	return s;
}
