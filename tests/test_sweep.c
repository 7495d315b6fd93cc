/* test_sweep.c — every inspection and every batch view over every dump
 * the test suite makes, for the crashes and memory errors that only show
 * on some dump (the thread-locals crash needed two threads with
 * thread-locals). In the sanitizer build this is where ASan, UBSan and
 * LeakSanitizer get to see all of the code on real dumps.
 *
 * Each run asserts what must hold whatever the dump:
 *   engine  every group's members are members of the set (the whole heap,
 *           and a half of it), ascending, with the group's count and
 *           shallow bytes; groups in the documented order; an argument's
 *           bound kept (largest-arrays N, long-chains N); the shortest
 *           paths start at a GC root and follow references to the object
 *   cli     exit status 0, something on stdout, no sanitizer report on
 *           stderr; stdout valid UTF-8 with no control character but
 *           newline (dump strings are escaped); JSON well-formed (a strict
 *           reader, jsonck.c) and CSV rectangular, with as many rows as
 *           the JSON; classes totals equal info's; biggest's children
 *           retain no more than their parent; objects by retained size;
 *           paths from a root down to the object; inspection groups
 *           numbered, counted and summed as the summary says.
 * The dumps are the shared fixtures (fixtures.c: made once per build, by
 * whichever suite asks first, under a lock), so this suite runs in any
 * order beside the others; one is skipped, with a line saying so, only
 * when what makes it is missing (no agent built), and under the
 * sanitizers the first of each pair of dumps of one process. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "graph/analysis.h"
#include "engine/open.h"
#include "graph/rules.h"
#include "jsonck.h"
#include "query/inspect.h"
#include "query/views.h"
#include "suites.h"

#define TMP TEST_BUILDDIR "/tmp"

/* ck_assert_msg without its cost when it holds: Check records every
 * assertion that passes (a write to a file each), and the sweep makes
 * millions of them. */
#define EXPECT(cond, ...) do { if (!(cond)) ck_abort_msg(__VA_ARGS__); } while (0)

/* ---- the dumps ---- */

enum source { S_WORKLOAD, S_REFS, S_MATCHED, S_AGENT_ATTACH, S_AGENT_START, S_ALLOC, S_LOCALS };

/* S_WORKLOAD: the workload, dump name and JVM options of the suite that
 * owns the dump (test_jvm.c, test_inspect.c, test_jcoll.c, test_rules.c,
 * test_retain.c): the same, so that whichever runs first makes it for
 * both. Else `file` in the directory the helper gives. */
static const struct sweep_dump {
	const char *label;
	enum source src;
	const char *workload, *name, *opts;
	const char *file;
	/* the command line in JSON only (where the checks are): a dump with
	 * a twin of the same workload that gets every format; each run of
	 * heapwalk costs ~10 ms, ~30 under the sanitizers, 93 per dump */
	int few_formats;
} dumps[] = {
	{ "coops", S_WORKLOAD, "Workload", "coops", "", NULL, 0 },
	{ "nocoops", S_WORKLOAD, "Workload", "nocoops", "-XX:-UseCompressedOops", NULL, 1 },
	{ "inspect", S_WORKLOAD, "Inspect", "inspect", "", NULL, 0 },
	{ "colls", S_WORKLOAD, "Colls", "colls", "--add-opens java.base/java.util=ALL-UNNAMED", NULL, 0 },
	{ "owned", S_WORKLOAD, "Owned", "owned", "", NULL, 0 },
	{ "retain", S_WORKLOAD, "Retain", "retain", "-Xmx64m", NULL, 0 },
	{ "refs", S_REFS, NULL, NULL, NULL, NULL, 0 },
	{ "matched-a", S_MATCHED, NULL, NULL, NULL, "a.hprof", 1 },
	{ "matched-b", S_MATCHED, NULL, NULL, NULL, "b.hprof", 0 },
	{ "agent-attach-before", S_AGENT_ATTACH, NULL, NULL, NULL, "before.hprof", 1 },
	{ "agent-attach-after", S_AGENT_ATTACH, NULL, NULL, NULL, "after.hprof", 0 },
	{ "agent-start-before", S_AGENT_START, NULL, NULL, NULL, "before.hprof", 1 },
	{ "agent-start-after", S_AGENT_START, NULL, NULL, NULL, "after.hprof", 0 },
	{ "alloc", S_ALLOC, NULL, NULL, NULL, NULL, 0 },
	{ "locals", S_LOCALS, NULL, NULL, NULL, NULL, 0 },
};
#define NDUMPS (sizeof dumps / sizeof *dumps)

/* Make dump i (unless made already) into path; -1 when what makes it is
 * not there, with a line saying so. */
static int dump_path(size_t i, char *path, size_t n)
{
	const struct sweep_dump *d = &dumps[i];
	const char *agent = getenv("HEAPWALK_AGENT");
	char dir[600];

#ifdef HW_TEST_ASAN
	/* under the sanitizers (each run ~10x slower) one dump of each pair
	 * of one process (before and after): the other is swept in the
	 * -Werror build */
	if (d->src == S_MATCHED || d->src == S_AGENT_ATTACH || d->src == S_AGENT_START)
		if (strcmp(d->file, "before.hprof") == 0 || strcmp(d->file, "a.hprof") == 0) {
			printf("sweep: %s skipped under the sanitizers (its twin is swept)\n", d->label);
			return -1;
		}
#endif

	if ((d->src == S_AGENT_ATTACH || d->src == S_AGENT_START || d->src == S_ALLOC) &&
	    (agent == NULL || *agent == '\0')) {
		printf("sweep: %s skipped: no agent built (configure found no JDK headers)\n", d->label);
		return -1;
	}
	switch (d->src) {
	case S_WORKLOAD: workload_dump(d->workload, d->name, d->opts, path, n); return 0;
	case S_REFS: snprintf(path, n, "%s", refs_dump()); return 0;
	case S_ALLOC: snprintf(path, n, "%s", alloc_dump()); return 0;
	case S_LOCALS: snprintf(path, n, "%s", locals_dump()); return 0;
	case S_MATCHED: snprintf(dir, sizeof dir, "%s", matched_dumps_dir()); break;
	case S_AGENT_ATTACH: agent_session(dir, sizeof dir); break;
	case S_AGENT_START: agent_start_session(dir, sizeof dir); break;
	}
	snprintf(path, n, "%s/%s", dir, d->file);
	return 0;
}

/* The argument each inspection gets: something that finds groups. */
static const char *insp_arg(const struct inspection *in)
{
	if (strcmp(in->name, "string-regex") == 0)
		return "^java\\.[a-z]+\\.";
	if (strcmp(in->name, "largest-arrays") == 0)
		return "10";
	if (strcmp(in->name, "long-chains") == 0)
		return "100";
	EXPECT(!in->arg_required, "the sweep has no argument for %s: add one here", in->name);
	return NULL;
}

/* ---- the engine ---- */

/* Groups in the order inspect.h gives: priority, then extra, then
 * shallow, descending. */
static int in_order(const struct insp_group *a, const struct insp_group *b)
{
	if (a->priority != b->priority)
		return a->priority > b->priority;
	if (a->extra != b->extra)
		return a->extra > b->extra;
	return a->shallow >= b->shallow;
}

/* Groups and members checked, for the line the sweep prints. */
static uint64_t ngroups, nmembers;

static void check_groups(const struct heap *h, const struct inspection *in, const char *arg,
			 const struct objset *set, const struct insp_result *r, const char *what)
{
	ngroups += r->n;
	EXPECT(!r->cancelled, "%s: cancelled", what);
	for (size_t i = 0; i < r->n; i++) {
		const struct insp_group *g = &r->g[i];
		uint64_t shallow = 0;
		EXPECT(g->name != NULL && g->name[0] != '\0', "%s: group %zu has no name", what, i);
		EXPECT(g->priority >= IP_LOW && g->priority <= IP_HIGH, "%s: %s: priority %d", what,
		       g->name, g->priority);
		EXPECT(g->count > 0 && g->nodes != NULL, "%s: %s: no members", what, g->name);
		for (uint64_t k = 0; k < g->count; k++) {
			node_t v = g->nodes[k];
			EXPECT(v > 0 && v < h->n && objset_has(set, v), "%s: %s: node %u is no member",
			       what, g->name, v);
			EXPECT(k == 0 || g->nodes[k - 1] < v, "%s: %s: members not ascending", what,
			       g->name);
			shallow += h->node_shallow[v];
		}
		nmembers += g->count;
		EXPECT(g->shallow == shallow, "%s: %s: shallow %llu, its members' %llu", what, g->name,
		       (unsigned long long)g->shallow, (unsigned long long)shallow);
		EXPECT(i == 0 || in_order(&r->g[i - 1], g), "%s: groups %zu and %zu out of order", what,
		       i - 1, i);
		if (strcmp(in->name, "long-chains") == 0) /* a chain, longer than N */
			EXPECT(g->extra == g->count && g->count > strtoull(arg, NULL, 10),
			       "%s: %s: %llu objects", what, g->name, (unsigned long long)g->count);
		if (strcmp(in->name, "largest-arrays") == 0)
			EXPECT(g->count == 1 && (h->node_kind[g->nodes[0]] == NK_OBJARRAY ||
						 h->node_kind[g->nodes[0]] == NK_PRIMARRAY),
			       "%s: %s: not one array", what, g->name);
	}
	if (strcmp(in->name, "largest-arrays") == 0)
		EXPECT(r->n <= strtoull(arg, NULL, 10), "%s: %zu groups", what, r->n);
}

/* Is v a successor of the virtual root (roots[] is sorted)? */
static int is_root(const struct heap *h, node_t v)
{
	size_t lo = 0, hi = h->nroots;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (h->roots[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < h->nroots && h->roots[lo] == v;
}

static int has_edge(const struct heap *h, node_t a, node_t b)
{
	for (edge_t e = h->out_start[a]; e < h->out_start[a + 1]; e++)
		if (h->out[e] == b)
			return 1;
	return 0;
}

/* Nodes reachable from a real GC root (not one of the pseudo kinds
 * heapwalk adds) along strong references, by a search of our own. */
static bits_t *strongly_reachable(const struct heap *h)
{
	bits_t *seen = xcalloc(bits_words(h->n), sizeof *seen);
	node_t *stack = xmalloc(((size_t)h->n + 1) * sizeof *stack);
	size_t sp = 0;

	for (size_t i = 0; i < h->nroot_rec; i++)
		if (h->root_rec[i].kind < RK_WEAK_ONLY && !bit_get(seen, h->root_rec[i].node)) {
			bit_set(seen, h->root_rec[i].node);
			stack[sp++] = h->root_rec[i].node;
		}
	while (sp > 0) {
		node_t v = stack[--sp];
		for (edge_t e = h->out_start[v]; e < h->out_start[v + 1]; e++)
			if (!bit_get(seen, h->out[e])) {
				bit_set(seen, h->out[e]);
				stack[sp++] = h->out[e];
			}
	}
	free(stack);
	return seen;
}

/* The shortest paths to the first, a middle and the last of the objects
 * view: from a GC root, along strong references, to the object; at least
 * one for an object a real GC root holds (the others may have none, or
 * one from the pseudo root that stands for "unreachable"). */
static void check_paths(struct heap *h, const char *label)
{
	struct view_opts vo = { .top = 100, .max_paths = 5, .depth = 1, .cutoff = 0.5 };
	struct objects_view ov;
	struct objset all;
	bits_t *live = strongly_reachable(h);

	objset_all(h, &all);
	view_objects(h, &all, &vo, &ov);
	EXPECT(ov.n > 0, "%s: no objects", label);
	node_t pick[3] = { ov.nodes[0], ov.nodes[ov.n / 2], ov.nodes[ov.n - 1] };
	for (int i = 0; i < 3; i++) {
		struct path_view pv;
		view_paths(h, pick[i], &vo, &pv);
		EXPECT(pv.npaths >= 1 || !bit_get(live, pick[i]), "%s: no path to node %u, which a GC root holds",
		       label, pick[i]);
		for (size_t p = 0; p < pv.npaths; p++) {
			size_t a = pv.start[p], b = pv.start[p + 1];
			EXPECT(a < b && is_root(h, pv.nodes[a]), "%s: path %zu to %u starts at no root", label, p,
			       pick[i]);
			EXPECT(pv.nodes[b - 1] == pick[i], "%s: path %zu does not end at %u", label, p, pick[i]);
			for (size_t s = a; s + 1 < b; s++)
				EXPECT(has_edge(h, pv.nodes[s], pv.nodes[s + 1]),
				       "%s: path %zu to %u: no reference %u -> %u", label, p, pick[i], pv.nodes[s],
				       pv.nodes[s + 1]);
		}
		path_view_free(&pv);
	}
	objects_view_free(&ov);
	objset_free(&all);
	free(live);
}

START_TEST(engine_sweep)
{
	char path[700], what[256];
	struct heap h;
	struct sbuf err;
	struct objset sets[2];
	size_t n;

	if (dump_path((size_t)_i, path, sizeof path) < 0)
		return;
	double t0 = hw_now();
	struct ruleset *rs = rules_new();
	sbuf_init(&err);
	ck_assert_int_eq(rules_load_default(rs, &err), 0); /* as the command line: jdk.rules */
	struct open_opts o = { .no_cache = 1, .quiet = 1, .rules = rs };
	EXPECT(heap_open(&h, path, &o, NULL, &err) == 0, "%s: %s", path, err.buf);
	heap_need(&h, HP_ALL, NULL);
	/* the whole heap, and about half of it (a hash of the node's index) */
	objset_all(&h, &sets[0]);
	objset_empty(&h, &sets[1]);
	for (node_t v = 1; v < h.n; v++)
		if ((v * 2654435761u) >> 31)
			bit_set(sets[1].bits, v);
	objset_recount(&h, &sets[1]);
	const struct inspection *all = inspect_all(&n);
	for (size_t i = 0; i < n; i++)
		for (int s = 0; s < 2 && inspect_applies(&all[i], &h); s++) { /* .NET's: test_formats */
			struct insp_result r;
			const char *arg = insp_arg(&all[i]);
			snprintf(what, sizeof what, "%s: %s on %s", dumps[_i].label, all[i].name,
				 s ? "half the heap" : "the heap");
			sbuf_reset(&err);
			EXPECT(inspect_run(&h, &all[i], arg, &sets[s], &r, NULL, &err) == 0, "%s: %s", what,
			       err.buf);
			check_groups(&h, &all[i], arg, &sets[s], &r, what);
			insp_result_free(&r);
		}
	check_paths(&h, dumps[_i].label);
	printf("sweep: engine %s: %u objects, %zu inspections x 2 sets, %llu groups, %llu members, %.2f s\n",
	       dumps[_i].label, h.n - 1, n, (unsigned long long)ngroups, (unsigned long long)nmembers,
	       hw_now() - t0);
	objset_free(&sets[0]);
	objset_free(&sets[1]);
	heap_free(&h);
	rules_free(rs);
	sbuf_free(&err);
}
END_TEST

/* ---- the command line ---- */

enum { F_TEXT, F_JSON, F_CSV };
static const char *const fmt_name[] = { "text", "json", "csv" };

/* One run's output, read back. */
struct out {
	char *text;
	size_t len;
	struct jv json; /* F_JSON */
	struct csv csv; /* F_CSV */
};

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	struct sbuf sb;
	char buf[65536];
	size_t k;

	EXPECT(f != NULL, "cannot read %s", path);
	sbuf_init(&sb);
	while ((k = fread(buf, 1, sizeof buf, f)) > 0)
		sbuf_add(&sb, buf, k);
	fclose(f);
	*len = sb.len;
	return sbuf_detach(&sb);
}

/* Valid UTF-8 and no control character but newline: dump strings are
 * escaped before they reach a report. Returns the offset of the first
 * offence, or -1. */
static long bad_text(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		size_t k = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
			   : (c & 0xf8) == 0xf0 ? 4 : 0;
		if ((c < 0x20 && c != '\n') || c == 0x7f || k == 0 || i + k > n)
			return (long)i;
		for (size_t j = 1; j < k; j++)
			if (((unsigned char)s[i + j] & 0xc0) != 0x80)
				return (long)i;
		if (k == 2 && c == 0xc2 && (unsigned char)s[i + 1] < 0xa0) /* C1 controls */
			return (long)i;
		i += k;
	}
	return -1;
}

/* heapwalk -f FMT CMD DUMP TAIL: status 0, stdout, a clean stderr; the
 * output parsed for its format. */
static void hw_run(int fmt, const char *cmdline, const char *dump, const char *tail, struct out *o)
{
	char cmd[2048], outf[256], errf[256], msg[256];
	size_t elen;

	memset(o, 0, sizeof *o);
	snprintf(outf, sizeof outf, TMP "/sweep-%ld.out", (long)getpid());
	snprintf(errf, sizeof errf, TMP "/sweep-%ld.err", (long)getpid());
	/* exec: the status is heapwalk's own, a signal shows as one; stdout
	 * to a file, so that a NUL in it counts */
	snprintf(cmd, sizeof cmd, "exec %s -f %s %s %s %s >%s 2>%s", heapwalk(), fmt_name[fmt], cmdline, dump,
		 tail, outf, errf);
	int st = system(cmd);
	o->text = slurp(outf, &o->len);
	char *err = slurp(errf, &elen);
	unlink(outf);
	unlink(errf);
	EXPECT(strstr(err, "AddressSanitizer") == NULL && strstr(err, "LeakSanitizer") == NULL &&
	       strstr(err, "runtime error") == NULL, "%s:\n%s", cmd, err);
	EXPECT(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: %s %d; stderr: %s", cmd,
	       WIFSIGNALED(st) ? "signal" : "status", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st), err);
	free(err);
	EXPECT(o->len > 0, "%s: nothing on stdout", cmd);
	long bad = bad_text(o->text, o->len);
	EXPECT(bad < 0, "%s: a raw control character or invalid UTF-8 at byte %ld", cmd, bad);
	if (fmt == F_JSON)
		EXPECT(json_parse(o->text, o->len, &o->json, msg, sizeof msg) == 0,
		       "%s: not JSON: %s", cmd, msg);
	if (fmt == F_CSV)
		EXPECT(csv_parse(o->text, o->len, &o->csv, msg, sizeof msg) == 0,
		       "%s: not CSV: %s", cmd, msg);
}

static void out_free(struct out *o)
{
	free(o->text);
	jv_free(&o->json);
	csv_free(&o->csv);
}

static uint64_t jnum(const struct jv *o, const char *key, const char *what)
{
	const struct jv *v = jv_get(o, key);

	EXPECT(v != NULL && v->t == J_NUM && v->is_uint, "%s: no number \"%s\"", what, key);
	return v->u;
}

static const struct jv *jrows(const struct jv *o, const char *what)
{
	const struct jv *v = jv_get(o, "rows");

	EXPECT(v != NULL && v->t == J_ARR, "%s: no rows", what);
	for (size_t i = 0; i < v->n; i++)
		EXPECT(v->v[i].t == J_OBJ, "%s: row %zu is no object", what, i);
	return v;
}

static uint64_t csv_num(const struct csv *c, size_t row, const char *col, const char *what)
{
	int k = csv_col(c, col);
	char *end;

	EXPECT(k >= 0, "%s: no column %s", what, col);
	const char *s = c->cell[row * c->ncols + (size_t)k];
	uint64_t v = strtoull(s, &end, 10);
	EXPECT(*s >= '0' && *s <= '9' && *end == '\0', "%s: row %zu: %s is '%s'", what, row, col, s);
	return v;
}

/* The formats of one command: each run and checked; the JSON's and the
 * CSV's rows agree in number. The JSON is kept in *json for the caller
 * (it frees it). */
struct sweep {
	const char *dump, *label;
	int few;         /* JSON only */
	size_t runs;
};

static void each_format(struct sweep *sw, const char *cmd, const char *tail, struct out *json,
			void (*check)(const struct out *o, int fmt, const char *what, void *arg), void *arg)
{
	char what[1024];
	size_t json_rows = 0;
	static const int order[] = { F_JSON, F_CSV, F_TEXT }; /* the JSON's rows first */

	for (size_t k = 0; k < 3; k++) {
		int f = order[k];
		struct out o;
		if (sw->few && f != F_JSON)
			continue;
		snprintf(what, sizeof what, "%s: -f %s %s DUMP %s", sw->label, fmt_name[f], cmd, tail);
		hw_run(f, cmd, sw->dump, tail, &o);
		sw->runs++;
		if (f == F_JSON)
			json_rows = jrows(&o.json, what)->n;
		if (f == F_CSV)
			EXPECT(o.csv.nrows == json_rows + 1, "%s: %zu rows, the JSON %zu", what,
			       o.csv.nrows - 1, json_rows);
		if (check != NULL)
			check(&o, f, what, arg);
		if (f == F_JSON && json != NULL) {
			*json = o;
			continue;
		}
		out_free(&o);
	}
}

/* classes: its totals are info's, and the sum of its rows. */
static void check_classes(const struct out *o, int fmt, const char *what, void *arg)
{
	const struct jv *info = arg;
	uint64_t objects = jnum(info, "objects", "info"), bytes = jnum(info, "heap_bytes", "info");
	uint64_t count = 0, shallow = 0;

	if (fmt == F_JSON) {
		const struct jv *rows = jrows(&o->json, what);
		EXPECT(jnum(&o->json, "objects", what) == objects && jnum(&o->json, "shallow", what) == bytes,
		       "%s: totals differ from info's", what);
		for (size_t i = 0; i < rows->n; i++) {
			count += jnum(&rows->v[i], "instances", what);
			shallow += jnum(&rows->v[i], "shallow", what);
		}
	} else if (fmt == F_CSV) {
		for (size_t i = 1; i < o->csv.nrows; i++) {
			count += csv_num(&o->csv, i, "instances", what);
			shallow += csv_num(&o->csv, i, "shallow", what);
		}
	} else {
		return;
	}
	EXPECT(count == objects && shallow == bytes, "%s: rows add up to %llu objects, %llu bytes; "
	       "info says %llu, %llu", what, (unsigned long long)count, (unsigned long long)shallow,
	       (unsigned long long)objects, (unsigned long long)bytes);
}

/* biggest: a row below another is its child in the dominator tree, so
 * the children of a row retain at most what it retains beyond itself,
 * and the top rows at most the heap. */
struct bnode { uint64_t ret, own, below; };

static void close_row(const struct bnode *b, const char *what)
{
	EXPECT(b->below <= b->ret - b->own, "%s: children retain %llu, their parent %llu beyond itself",
	       what, (unsigned long long)b->below, (unsigned long long)(b->ret - b->own));
}

static void check_biggest(const struct out *o, int fmt, const char *what, void *arg)
{
	struct bnode stack[16];
	size_t depth = 0;
	uint64_t top = 0;

	(void)arg;
	if (fmt != F_JSON)
		return;
	const struct jv *rows = jrows(&o->json, what);
	for (size_t i = 0; i < rows->n; i++) {
		uint64_t d = jnum(&rows->v[i], "depth", what);
		uint64_t r = jnum(&rows->v[i], "retained", what), s = jnum(&rows->v[i], "shallow", what);
		EXPECT(d <= depth && d < 16, "%s: row %zu at depth %llu after %zu", what, i,
		       (unsigned long long)d, depth);
		EXPECT(s <= r, "%s: row %zu: shallow %llu over retained %llu", what, i,
		       (unsigned long long)s, (unsigned long long)r);
		while (depth > d)
			close_row(&stack[--depth], what);
		if (d == 0)
			top += r;
		else
			stack[d - 1].below += r;
		stack[depth++] = (struct bnode){ r, s, 0 };
	}
	while (depth > 0)
		close_row(&stack[--depth], what);
	EXPECT(top <= jnum(&o->json, "heap_bytes", what), "%s: the top rows retain %llu", what,
	       (unsigned long long)top);
}

/* objects: biggest retained first, shallow within retained. */
static void check_objects(const struct out *o, int fmt, const char *what, void *arg)
{
	(void)arg;
	if (fmt != F_JSON)
		return;
	const struct jv *rows = jrows(&o->json, what);
	EXPECT(rows->n > 0 && rows->n == jnum(&o->json, "shown", what), "%s: %zu rows", what, rows->n);
	for (size_t i = 0; i < rows->n; i++) {
		uint64_t r = jnum(&rows->v[i], "retained", what);
		EXPECT(jnum(&rows->v[i], "shallow", what) <= r, "%s: row %zu", what, i);
		EXPECT(i == 0 || jnum(&rows->v[i - 1], "retained", what) >= r, "%s: rows %zu, %zu out of order",
		       what, i - 1, i);
		const struct jv *id = jv_get(&rows->v[i], "id");
		EXPECT(id != NULL && id->t == J_STR, "%s: row %zu has no id", what, i);
	}
}

/* paths: each from a GC root (its first row names one) down to the
 * object, steps numbered from 0, a field or index between each two; no
 * path only when the report says why. */
static void check_paths_out(const struct out *o, int fmt, const char *what, void *arg)
{
	const char *target = arg;

	if (fmt != F_JSON)
		return;
	const struct jv *rows = jrows(&o->json, what);
	uint64_t npaths = jnum(&o->json, "paths", what), path = 0, step = 0;
	/* none only with a word on why (an unreachable object) */
	EXPECT(npaths >= 1 || jv_get(&o->json, "reachable") != NULL, "%s: no path, and no reason", what);
	for (size_t i = 0; i < rows->n; i++) {
		const struct jv *r = &rows->v[i];
		uint64_t p = jnum(r, "path", what), s = jnum(r, "step", what);
		const struct jv *root = jv_get(r, "root"), *via = jv_get(r, "via"), *id = jv_get(r, "id");
		int last = i + 1 == rows->n || jnum(&rows->v[i + 1], "step", what) == 0;
		EXPECT(s == 0 ? p == path + 1 : p == path && s == step + 1, "%s: row %zu: path %llu step %llu",
		       what, i, (unsigned long long)p, (unsigned long long)s);
		EXPECT(s == 0 ? root != NULL && root->t == J_STR && root->len > 0
			      : root != NULL && root->t == J_NULL,
		       "%s: row %zu: GC root only at the start of a path", what, i);
		EXPECT(last ? via->t == J_NULL : via->t == J_STR, "%s: row %zu: via", what, i);
		EXPECT(id != NULL && id->t == J_STR && (!last || strcmp(id->s, target) == 0),
		       "%s: path %llu does not end at %s", what, (unsigned long long)p, target);
		path = p;
		step = s;
	}
	EXPECT(path == npaths, "%s: %llu paths, the summary says %llu", what, (unsigned long long)path,
	       (unsigned long long)npaths);
}

/* allocations: the percentage of each row is of the traced bytes, and
 * a number in JSON. */
static void check_allocations(const struct out *o, int fmt, const char *what, void *arg)
{
	(void)arg;
	if (fmt != F_JSON)
		return;
	const struct jv *rows = jrows(&o->json, what);
	uint64_t traced = jnum(&o->json, "traced_bytes", what);
	for (size_t i = 0; i < rows->n; i++) {
		const struct jv *pct = jv_get(&rows->v[i], "pct");
		uint64_t bytes = jnum(&rows->v[i], "bytes", what);
		EXPECT(pct != NULL && pct->t == J_NUM, "%s: row %zu: pct is no number", what, i);
		EXPECT(bytes <= traced && fabs(pct->num - 100.0 * (double)bytes / (double)traced) <= 0.051,
		       "%s: row %zu: %g%% of %llu bytes is not %llu", what, i, pct->num,
		       (unsigned long long)traced, (unsigned long long)bytes);
	}
}

/* inspect: groups numbered 1..n, as many as the summary says, the
 * extra column adding up to the summary's when it is bytes. */
static void check_inspect(const struct out *o, int fmt, const char *what, void *arg)
{
	const struct inspection *in = arg;

	if (fmt != F_JSON)
		return;
	const struct jv *rows = jrows(&o->json, what);
	uint64_t extra = 0, objects = 0;
	char key[80];
	EXPECT(jnum(&o->json, "groups", what) == rows->n && jnum(&o->json, "shown", what) == rows->n,
	       "%s: %zu rows, not the summary's groups", what, rows->n);
	for (size_t i = 0; i < rows->n; i++) {
		const struct jv *r = &rows->v[i];
		EXPECT(jnum(r, "group", what) == i + 1, "%s: row %zu numbered otherwise", what, i);
		EXPECT(jnum(r, "objects", what) > 0, "%s: row %zu: an empty group", what, i);
		objects += jnum(r, "objects", what);
		if (in->extra_name != NULL)
			extra += jnum(r, in->extra_name, what);
	}
	/* the total counts each object once: the rows' sum exactly when no
	 * object is in two groups, never more than the set */
	uint64_t total = jnum(&o->json, "total_objects", what);
	int overlap = jv_get(&o->json, "groups_overlap") != NULL && jv_get(&o->json, "groups_overlap")->b;
	EXPECT(total <= jnum(&o->json, "objects", what), "%s: total_objects past the set", what);
	EXPECT(overlap ? total < objects : total == objects, "%s: total_objects %llu, rows %llu%s", what,
	       (unsigned long long)total, (unsigned long long)objects, overlap ? " (overlapping)" : "");
	if (in->extra_name == NULL)
		return;
	snprintf(key, sizeof key, "total_%s", in->extra_name);
	if (strcmp(in->extra_name, "retained") == 0) /* of the union: each top object once */
		EXPECT(jnum(&o->json, key, what) <= extra && (overlap || jnum(&o->json, key, what) > 0 || extra == 0),
		       "%s: %s past the rows' sum", what, key);
	else
		EXPECT(jnum(&o->json, key, what) == extra, "%s: %s adds up to %llu", what, key,
		       (unsigned long long)extra);
}

/* merged-*: the top level's groups hold each object at most once (by
 * class: once), so their objects and bytes stay within the heap's; every
 * row is a depth, a count and bytes. */
static void check_merged(const struct out *o, int fmt, const char *what, void *arg)
{
	const struct jv *info = arg;

	if (fmt != F_JSON || info == NULL)
		return;
	const struct jv *rows = jrows(&o->json, what);
	uint64_t objects = 0, bytes = 0;
	for (size_t i = 0; i < rows->n; i++) {
		const struct jv *r = &rows->v[i];
		if (jnum(r, "depth", what) != 0)
			continue;
		objects += jnum(r, "objects", what);
		bytes += jnum(r, "shallow", what);
	}
	if (strstr(what, "--by field") == NULL) /* by field an object can be in two groups */
		EXPECT(objects <= jnum(info, "objects", "info") && bytes <= jnum(info, "heap_bytes", "info"),
		       "%s: the top level holds %llu objects, %llu bytes: more than the heap", what,
		       (unsigned long long)objects, (unsigned long long)bytes);
}

START_TEST(cli_sweep)
{
	char path[700], args[256];
	struct out info, objs;
	size_t n;

	if (dump_path((size_t)_i, path, sizeof path) < 0)
		return;
	double t0 = hw_now();
	mkdir(TMP, 0755);
	struct sweep sw = { path, dumps[_i].label, dumps[_i].few_formats, 0 };
#ifdef HW_TEST_ASAN
	/* under the sanitizers (each run ~10x slower) every format on two
	 * dumps, the plain workload and the one with allocation sites: the
	 * text and CSV writers are the same code on the others */
	if (dumps[_i].src != S_ALLOC && _i != 0)
		sw.few = 1;
#endif
	each_format(&sw, "info", "", &info, NULL, NULL);
	each_format(&sw, "classes", "", NULL, check_classes, &info.json);
	each_format(&sw, "biggest -d 3", "", NULL, check_biggest, NULL);
	each_format(&sw, "objects", "", &objs, check_objects, NULL);
	const struct jv *rows = jrows(&objs.json, "objects");
	const size_t pick[3] = { 0, rows->n / 2, rows->n - 1 };
	for (int i = 0; i < 3; i++) {
		const struct jv *id = jv_get(&rows->v[pick[i]], "id");
		each_format(&sw, "paths", id->s, NULL, check_paths_out, id->s);
	}
	each_format(&sw, "allocations", "", NULL, check_allocations, NULL);
	const struct inspection *all = inspect_all(&n);
	for (size_t i = 0; i < n; i++) {
		const char *arg = insp_arg(&all[i]);
		if (all[i].runtime != NULL) /* another runtime's (.NET's: test_formats); these are JVM heaps */
			continue;
		snprintf(args, sizeof args, "%s%s%s%s", all[i].name, arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
		each_format(&sw, "inspect", args, NULL, check_inspect, (void *)&all[i]);
	}
	/* the merged views, by class (every format) and by field, and the
	 * dominator tree from the top (JSON) */
	static const char *const merged[] = { "merged-out", "merged-in", "merged-dom" };
	for (size_t i = 0; i < 3; i++) {
		each_format(&sw, merged[i], "", NULL, check_merged, &info.json);
		int few = sw.few;
		sw.few = 1;
		each_format(&sw, merged[i], "--by field", NULL, check_merged, &info.json);
		if (i == 2)
			each_format(&sw, merged[i], "-r -d 2", NULL, check_merged, &info.json);
		sw.few = few;
	}
	out_free(&info);
	out_free(&objs);
	printf("sweep: cli %s: %zu runs, %.1f s\n", dumps[_i].label, sw.runs, hw_now() - t0);
}
END_TEST

/* ---- the readers the sweep relies on: they must refuse what is wrong ---- */

START_TEST(readers)
{
	static const char *const good_json[] = {
		"{\"a\":[1,-2.5e3,true,false,null,\"\\u00e9\\ud83d\\ude00\"]}\n", "[]", " 0 ", "\"caf\xc3\xa9\"",
	};
	static const char *const bad_json[] = {
		"{\"a\":1,}", "[1 2]", "{\"a\":1,\"a\":2}", "\"\x01\"", "\"\\ud800\"", "\"\xff\"", "01",
		"[1]x", "{\"a\" 1}", "tru", "\"abc", "[-]", "1.", "\"\\x\"", "",
	};
	static const char *const bad_csv[] = { "a,b\n1\n", "a,b\n\"1,2\n", "a\nx\"y\n", "a,b\n1,2" };
	struct jv v;
	struct csv c;
	char err[128];

	for (size_t i = 0; i < sizeof good_json / sizeof *good_json; i++) {
		ck_assert_msg(json_parse(good_json[i], strlen(good_json[i]), &v, err, sizeof err) == 0, "%s: %s",
			      good_json[i], err);
		jv_free(&v);
	}
	for (size_t i = 0; i < sizeof bad_json / sizeof *bad_json; i++) {
		ck_assert_msg(json_parse(bad_json[i], strlen(bad_json[i]), &v, err, sizeof err) < 0,
			      "accepted %s", bad_json[i]);
		jv_free(&v);
	}
	const char *j = "{\"n\":18446744073709551615,\"s\":\"a\\\"b\\n\\u00e9\"}";
	ck_assert_int_eq(json_parse(j, strlen(j), &v, err, sizeof err), 0);
	ck_assert(jv_get(&v, "n")->is_uint && jv_get(&v, "n")->u == UINT64_MAX);
	ck_assert_str_eq(jv_get(&v, "s")->s, "a\"b\n\xc3\xa9");
	jv_free(&v);
	const char *t = "x,\"y, \"\"z\"\"\"\n1,\n";
	ck_assert_int_eq(csv_parse(t, strlen(t), &c, err, sizeof err), 0);
	ck_assert_uint_eq(c.nrows, 2);
	ck_assert_str_eq(c.cell[1], "y, \"z\"");
	ck_assert_str_eq(c.cell[3], "");
	ck_assert_int_eq(csv_col(&c, "y, \"z\""), 1);
	csv_free(&c);
	for (size_t i = 0; i < sizeof bad_csv / sizeof *bad_csv; i++)
		ck_assert_msg(csv_parse(bad_csv[i], strlen(bad_csv[i]), &c, err, sizeof err) < 0, "accepted %s",
			      bad_csv[i]);
	ck_assert_int_eq(bad_text("ok\xc3\xa9\n", 5), -1);
	ck_assert_int_eq(bad_text("a\x1b[2J", 5), 1);
	ck_assert_int_eq(bad_text("a\tb", 3), 1);
	ck_assert_int_eq(bad_text("a\0b", 3), 1);
	ck_assert_int_eq(bad_text("\xc2\x9b", 2), 0);
	ck_assert_int_eq(bad_text("\xe2\x82", 2), 0);
}
END_TEST

/* Two suites, so that make -j runs the engine's half beside the
 * command line's (the longest suite under the sanitizers). */
Suite *sweep_suite(void)
{
	Suite *s = suite_create("sweep");
	TCase *tr = tcase_create("readers"), *te = tcase_create("engine");

	tcase_add_test(tr, readers);
	suite_add_tcase(s, tr);
	/* per dump, under the sanitizers too (about 10x slower) */
	tcase_set_timeout(te, FIXTURE_TIMEOUT);
	tcase_add_loop_test(te, engine_sweep, 0, (int)NDUMPS);
	suite_add_tcase(s, te);
	return s;
}

Suite *sweepcli_suite(void)
{
	Suite *s = suite_create("sweepcli");
	TCase *tc = tcase_create("cli");

	tcase_set_timeout(tc, FIXTURE_TIMEOUT);
	tcase_add_loop_test(tc, cli_sweep, 0, (int)NDUMPS);
	suite_add_tcase(s, tc);
	return s;
}
