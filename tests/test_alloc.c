/* test_alloc.c — allocation sites from a real JVM: tests/java/Matched
 * run with heapwalk's agent sampling allocations (tests/alloc-run.sh).
 * The truth is the workload's source: a Holder is made by `new Holder(`
 * in main, its int[] by `new int[4]` in Holder's constructor; whatever
 * the sampler picked of them must show those lines, and the call tree
 * must start at main. A plain jcmd dump has no traces: said so. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/open.h"
#include "query/alloc.h"
#include "query/step.h"
#include "query/views.h"
#include "suites.h"


/* The 1-based numbers of the lines of Matched.java holding `what`. */
static size_t source_lines(const char *what, int *lines, size_t max)
{
	FILE *f = fopen(TEST_SRCDIR "/java/Matched.java", "r");
	char buf[512];
	size_t n = 0;
	int no = 0;

	ck_assert(f != NULL);
	while (fgets(buf, sizeof buf, f) != NULL) {
		no++;
		if (strstr(buf, what) != NULL && n < max)
			lines[n++] = no;
	}
	fclose(f);
	ck_assert_msg(n > 0, "no '%s' in Matched.java", what);
	return n;
}

/* Does frame read "PREFIX(Matched.java:L)" for one of the lines? */
static int at_line(const char *frame, const char *prefix, const int *lines, size_t n)
{
	char want[128];

	for (size_t i = 0; i < n; i++) {
		snprintf(want, sizeof want, "%s(Matched.java:%d)", prefix, lines[i]);
		if (strcmp(frame, want) == 0)
			return 1;
	}
	return 0;
}

/* CSV rows of `allocations` for expr: checks every row of tree at depth
 * 0 against the lines; the objects they add up to. */
static unsigned long long check_csv(const char *expr, const char *tree, const char *prefix, const int *lines,
				    size_t nlines, unsigned long long *traced)
{
	char cmd[1024];
	int st;

	snprintf(cmd, sizeof cmd, "%s -q -f json -e '%s' %s allocations", heapwalk(), expr, alloc_dump());
	char *json = run(cmd, &st);
	ck_assert_int_eq(st, 0);
	char *p = strstr(json, "\"traced_objects\":");
	ck_assert(p != NULL);
	*traced = strtoull(p + 17, NULL, 10);
	free(json);
	snprintf(cmd, sizeof cmd, "%s -q -f csv -n 0 -d 1 -e '%s' %s allocations", heapwalk(), expr,
		 alloc_dump());
	char *csv = run(cmd, &st);
	ck_assert_int_eq(st, 0);
	ck_assert_msg(strncmp(csv, "tree,depth,objects,bytes,pct,frame\n", 35) == 0, "%s", csv);
	unsigned long long sum = 0;
	size_t rows = 0;
	for (char *line = strchr(csv, '\n') + 1, *next; *line; line = next) {
		next = strchr(line, '\n');
		ck_assert(next != NULL);
		*next++ = '\0';
		char t[16], frame[400];
		unsigned depth;
		unsigned long long objects, bytes;
		ck_assert_msg(sscanf(line, "%15[^,],%u,%llu,%llu,%*[^,],%399[^\n]", t, &depth, &objects, &bytes,
				     frame) == 5, "row: %s", line);
		if (strcmp(t, tree) != 0)
			continue;
		ck_assert_uint_eq(depth, 0); /* -d 1 */
		ck_assert_msg(at_line(frame, prefix, lines, nlines), "%s: a %s row at %s", expr, tree, frame);
		sum += objects;
		rows++;
	}
	ck_assert_msg(rows > 0, "%s: no %s rows", expr, tree);
	free(csv);
	return sum;
}

START_TEST(test_alloc_sites)
{
	int holder[8], array[8], mainl[64];
	size_t nh = source_lines("new Holder(", holder, 8);
	size_t na = source_lines("new int[4]", array, 8);
	unsigned long long traced;

	/* every sampled Holder: made at a `new Holder(` line of main */
	unsigned long long n = check_csv("instances Matched$Holder", "hot", "Matched.main", holder, nh, &traced);
	ck_assert_uint_eq(n, traced);
	ck_assert_msg(traced > 100 && traced <= 30000, "%llu Holders traced", traced);
	fprintf(stderr, "allocations: %llu of 30000 Holders sampled\n", traced);
	/* their int[]s: at `new int[4]` in the constructor */
	n = check_csv("instances Matched$Holder | referents | instances [I", "hot", "Matched$Holder.<init>",
		      array, na, &traced);
	ck_assert_uint_eq(n, traced);
	ck_assert_msg(traced > 100 && traced <= 30000, "%llu int[]s traced", traced);
	/* the call tree of the Holders starts in main, at any of its lines */
	size_t nm = 0;
	for (int l = 1; l <= 64; l++)
		mainl[nm++] = l;
	n = check_csv("instances Matched$Holder", "calls", "Matched.main", mainl, nm, &traced);
	ck_assert_uint_eq(n, traced);
}
END_TEST

/* The engine: the objects selected at the `new int[4]` site are int[]s,
 * as many as the node counts; the root counts what the sites add up to. */
START_TEST(test_alloc_select)
{
	struct heap h;
	struct open_opts o = { .quiet = 1 };
	struct sbuf err;
	struct objset all, sel;
	struct alloc_view v;
	int array[8];
	size_t na = source_lines("new int[4]", array, 8);

	sbuf_init(&err);
	ck_assert_msg(heap_open(&h, alloc_dump(), &o, NULL, &err) == 0, "%s", err.buf);
	heap_need(&h, HP_ALL, NULL);
	objset_all(&h, &all);
	view_allocations(&h, &all, &v);
	ck_assert(v.traced_count > 0);
	uint64_t sum = 0;
	int found = 0;
	for (uint32_t k = 0; k < v.hot.n[0].nkids; k++) {
		uint32_t i = v.hot.kid[v.hot.n[0].kids + k];
		sum += v.hot.n[i].count;
		struct sbuf l;
		sbuf_init(&l);
		frame_label(&h, v.hot.n[i].frame, &l);
		if (at_line(l.buf, "Matched$Holder.<init>", array, na)) {
			found = 1;
			alloc_select(&h, &all, &v, &v.hot, i, &sel);
			ck_assert_uint_eq(sel.count, v.hot.n[i].count);
			for (node_t x = 1; x < h.n; x++)
				if (objset_has(&sel, x))
					ck_assert_str_eq(class_name(&h, h.node_class[x]), "[I");
			objset_free(&sel);
		}
		sbuf_free(&l);
	}
	ck_assert_msg(found, "no hot spot at new int[4]");
	/* every node of both trees, as the step its row writes (site A <- B,
	 * calls A -> B), selects what the node does */
	size_t named = 0;
	uint8_t *amb = alloc_ambiguous(&h);
	for (int hot = 0; hot < 2; hot++) {
		const struct alloc_tree *tr = hot ? &v.hot : &v.calls;
		for (uint32_t i = 1; i < tr->len; i++) {
			struct sbuf e;
			sbuf_init(&e);
			sbuf_adds(&e, hot ? "site " : "calls ");
			if (alloc_path_text(&h, tr, i, hot, amb, &e) < 0) {
				sbuf_free(&e);
				continue;
			}
			struct pipeline pl;
			struct objset by;
			ck_assert_msg(pipeline_parse(e.buf, &pl, &err) == 0, "%s: %s", e.buf, err.buf);
			objset_all(&h, &by);
			ck_assert_msg(step_apply(&h, &pl.steps[0], &by, NULL, &err) == 0, "%s: %s", e.buf, err.buf);
			alloc_select(&h, &all, &v, tr, i, &sel);
			ck_assert_msg(by.count == sel.count && by.count == tr->n[i].count, "%s: %llu objects, the node %llu",
				      e.buf, (unsigned long long)by.count, (unsigned long long)tr->n[i].count);
			/* one assertion, not one per object: each of Check's
			 * assertions writes its place down, and this loop runs
			 * over every object for every node */
			node_t differ = 0;
			for (node_t x = 1; x < h.n && differ == 0; x++)
				if (objset_has(&by, x) != objset_has(&sel, x))
					differ = x;
			ck_assert_msg(differ == 0, "%s: object %u is in one set only", e.buf, (unsigned)differ);
			objset_free(&by);
			objset_free(&sel);
			pipeline_free(&pl);
			sbuf_free(&e);
			named++;
		}
	}
	free(amb);
	ck_assert_uint_gt(named, 20);
	/* a frame no stack has is an error, as a class no object has: the
	 * frame's name without its place, an unknown caller, an unknown
	 * frame (not an empty set that says none were allocated there) */
	struct sbuf top;
	sbuf_init(&top);
	frame_label(&h, v.hot.n[v.hot.kid[v.hot.n[0].kids]].frame, &top);
	char *paren = strstr(top.buf, " (");
	char *bare = paren != NULL ? xstrndup(top.buf, (size_t)(paren - top.buf)) : xasprintf("%s!", top.buf);
	char *bad[3] = { xasprintf("site %s", bare), xasprintf("site %s <- Nowhere.none()", top.buf),
			 xstrdup("calls Nowhere.none()") };
	for (int b = 0; b < 3; b++) {
		struct pipeline pl;
		struct objset by;
		sbuf_reset(&err);
		ck_assert_msg(pipeline_parse(bad[b], &pl, &err) == 0, "%s: %s", bad[b], err.buf);
		objset_all(&h, &by);
		ck_assert_msg(step_apply(&h, &pl.steps[0], &by, NULL, &err) < 0 && strstr(err.buf, "no frame '"),
			      "%s: %s", bad[b], err.buf);
		objset_free(&by);
		pipeline_free(&pl);
		free(bad[b]);
	}
	free(bare);
	sbuf_free(&top);
	ck_assert_uint_eq(sum, v.traced_count);
	ck_assert_uint_eq(v.hot.n[0].count, v.traced_count);
	ck_assert_uint_eq(v.calls.n[0].count, v.traced_count);
	alloc_view_free(&v);
	objset_free(&all);
	heap_free(&h);
	sbuf_free(&err);
}
END_TEST

/* A jcmd dump: no traces, and the report says why. */
START_TEST(test_alloc_none)
{
	char cmd[1024];
	int st;

	snprintf(cmd, sizeof cmd, "%s -q allocations %s/a.hprof", heapwalk(), matched_dumps_dir());
	char *out = run(cmd, &st);
	ck_assert_int_eq(st, 0);
	ck_assert_msg(strstr(out, "traced_objects: 0\n") && strstr(out, "sample:BYTES"), "%s", out);
	free(out);
}
END_TEST

Suite *alloc_suite(void)
{
	Suite *s = suite_create("alloc");
	TCase *tc = tcase_create("alloc");

	tcase_set_timeout(tc, FIXTURE_TIMEOUT);
	tcase_add_test(tc, test_alloc_sites);
	tcase_add_test(tc, test_alloc_select);
	tcase_add_test(tc, test_alloc_none);
	suite_add_tcase(s, tc);
	return s;
}
