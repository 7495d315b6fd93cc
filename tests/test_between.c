/* test_between.c — deep size and the path between two objects
 * (graph/reach.h, the steps reachable and path, heapwalk between,
 * info --deep, the browser's a and P).
 *
 * Random heaps written with the test HPROF writer, which records the
 * references it writes (kept here as an adjacency matrix: strong fields
 * and array elements, weak referents); the expected answers come from
 * that matrix alone: reachability by a fixpoint over it, shortest path
 * lengths by Floyd–Warshall, directed and undirected, weak on and off.
 * A hand-made heap for the reference an instance has to its class (not
 * followed) against one a field holds (followed). A real JVM dump of
 * tests/java/Between, whose chain A -> B -> C is known by construction,
 * its sizes from the JVM's own class histogram. And the browser: two
 * objects marked, P, the path shown and its step's expression (x). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "engine/open.h"
#include "graph/reach.h"
#include "graph/reader.h"
#include "hprofw.h"
#include "query/between.h"
#include "query/step.h"
#include "suites.h"
#include "term.h"

#define DUMPS TEST_BUILDDIR "/dumps"

static void open_path(struct heap *h, const char *path)
{
	struct open_opts o = { .no_cache = 1, .quiet = 1 };
	struct sbuf err;

	sbuf_init(&err);
	ck_assert_msg(heap_open(h, path, &o, NULL, &err) == 0, "%s: %s", path, err.buf);
	sbuf_free(&err);
	heap_need(h, HP_ALL, NULL);
}

/* ---- random heaps and their model ---- */

enum { R_MAXCLS = 8, R_MAX = 64 };
enum { E_STRONG = 1, E_WEAK = 2 };

/* What the test wrote: adj[i][j] has E_STRONG when object i holds j by a
 * field or an element, E_WEAK when i is a WeakReference to j. */
struct model {
	uint32_t n;
	uint8_t adj[R_MAX][R_MAX];
	node_t node[R_MAX];       /* object i's node in the opened heap */
};

/* Instances of t.C0.., Object[] arrays and WeakReferences, references
 * random (cycles, self loops, shared targets), a few GC roots. */
static const struct hw_shape shape = { .arrays = 20, .weaks = 20, .null_min = 20, .null_span = 60,
				       .roots = 4, .class_roots = HWG_CROOTS_NONE };

/* A new random heap, written, opened, its references in the model. */
static void random_heap(struct heap *h, uint32_t *seed, struct model *m)
{
	struct hw_graph g;
	uint32_t n = 2 + hw_rnd(seed) % (R_MAX - 1);

	hw_graph_random(&g, seed, n, 1 + hw_rnd(seed) % R_MAXCLS, &shape);
	hw_open_graph(h, &g, "between.hprof");
	memset(m, 0, sizeof *m);
	m->n = g.n;
	for (uint32_t i = 0; i < g.n; i++) {
		m->node[i] = g.node[i];
		for (uint32_t j = 0; j < g.nref[i]; j++)
			if (g.ref[i][j] >= 0)
				m->adj[i][g.ref[i][j]] |= g.kind[i] == HWG_WEAK ? E_WEAK : E_STRONG;
	}
}

/* The object index of node v, -1 for none of the test's objects. */
static int index_of(const struct heap *h, const struct model *m, node_t v)
{
	uint64_t id = heap_node_id(h, v);

	if (v == 0 || id < HWG_OBJ || (id - HWG_OBJ) % 2 != 0 || (id - HWG_OBJ) / 2 >= m->n)
		return -1;
	return (int)((id - HWG_OBJ) / 2);
}

/* Can i lead to j by the edge mask, as the flags have it? */
static int edge(const struct model *m, int i, int j, unsigned flags)
{
	uint8_t mask = E_STRONG | (flags & REACH_WEAK ? E_WEAK : 0);

	return (m->adj[i][j] & mask) || ((flags & REACH_UNDIRECTED) && (m->adj[j][i] & mask));
}

/* The objects reachable from `in` (in[] 1 or 0), in included: add
 * what a member leads to until nothing changes. */
static void closure(const struct model *m, uint8_t *in, unsigned flags)
{
	for (int changed = 1; changed;) {
		changed = 0;
		for (uint32_t i = 0; i < m->n; i++)
			for (uint32_t j = 0; in[i] && j < m->n; j++)
				if (!in[j] && edge(m, (int)i, (int)j, flags))
					in[j] = changed = 1;
	}
}

#define INF 0x3fffffff
/* All-pairs shortest path lengths (Floyd–Warshall): d[i][j] in hops. */
static void floyd(const struct model *m, unsigned flags, int d[R_MAX][R_MAX])
{
	for (uint32_t i = 0; i < m->n; i++)
		for (uint32_t j = 0; j < m->n; j++)
			d[i][j] = i == j ? 0 : edge(m, (int)i, (int)j, flags) ? 1 : INF;
	for (uint32_t k = 0; k < m->n; k++)
		for (uint32_t i = 0; i < m->n; i++)
			for (uint32_t j = 0; j < m->n; j++)
				if (d[i][k] + d[k][j] < d[i][j])
					d[i][j] = d[i][k] + d[k][j];
}

/* reach_deep of a random subset equals the closure, object for object. */
static void check_deep(const struct heap *h, const struct model *m, uint32_t *seed, unsigned flags,
		       const char *what)
{
	uint8_t in[R_MAX] = { 0 };
	bits_t *set = xcalloc(bits_words(h->n), sizeof *set);
	bits_t *out = xcalloc(bits_words(h->n), sizeof *out);
	unsigned pct = hw_rnd(seed) % 40;

	for (uint32_t i = 0; i < m->n; i++)
		if (hw_rnd(seed) % 100 < pct || i == 0) {
			in[i] = 1;
			bit_set(set, m->node[i]);
		}
	closure(m, in, flags);
	uint64_t count, want_count = 0, want_bytes = 0;
	uint64_t bytes = reach_deep(h, set, flags, out, &count, NULL);
	for (node_t v = 1; v < h->n; v++) {
		int i = index_of(h, m, v);
		int want = i >= 0 && in[i];
		ck_assert_msg(bit_get(out, v) == want, "%s: node %u (object %d) %s", what, v, i,
			      want ? "not reached" : "reached, but nothing leads to it");
		if (want) {
			want_count++;
			want_bytes += h->node_shallow[v];
		}
	}
	ck_assert_msg(count == want_count && bytes == want_bytes, "%s: %llu objects, %llu bytes; want %llu, %llu",
		      what, (unsigned long long)count, (unsigned long long)bytes,
		      (unsigned long long)want_count, (unsigned long long)want_bytes);
	free(set);
	free(out);
}

/* The path is a path of the model, of the shortest length, by the flags. */
static void check_path(const struct heap *h, const struct model *m, int a, int b, unsigned flags,
		       int d[R_MAX][R_MAX], const char *what)
{
	struct reach_path p;
	int rc = reach_path(h, m->node[a], m->node[b], flags, &p, NULL);

	if (d[a][b] == INF) {
		ck_assert_msg(rc == 0, "%s: %d to %d: a path of %zu, but there is none", what, a, b, p.n);
		return;
	}
	ck_assert_msg(rc == 1, "%s: %d to %d: no path, want %d hops", what, a, b, d[a][b]);
	ck_assert_msg(p.n == (size_t)d[a][b] + 1, "%s: %d to %d: %zu hops, want %d", what, a, b, p.n - 1,
		      d[a][b]);
	ck_assert(p.nodes[0] == m->node[a] && p.nodes[p.n - 1] == m->node[b]);
	for (size_t k = 0; k + 1 < p.n; k++) {
		int x = index_of(h, m, p.nodes[k]), y = index_of(h, m, p.nodes[k + 1]);
		ck_assert_msg(x >= 0 && y >= 0, "%s: hop %zu leaves the test's objects", what, k);
		uint8_t e = p.back[k] ? m->adj[y][x] : m->adj[x][y];
		uint8_t kind = p.kind[k] == REACH_K_WEAK ? E_WEAK : E_STRONG;
		ck_assert_msg(p.kind[k] != REACH_K_INCIDENTAL, "%s: no rules, no incidental references", what);
		ck_assert_msg(e & kind, "%s: hop %zu, %d %s %d, is no %s reference", what, k, x,
			      p.back[k] ? "<-" : "->", y, kind == E_WEAK ? "weak" : "strong");
		ck_assert(!p.back[k] || (flags & REACH_UNDIRECTED));
		ck_assert(kind != E_WEAK || (flags & REACH_WEAK));
	}
	reach_path_free(&p);
}

START_TEST(random_deep_and_paths)
{
	uint32_t seed = 1717;
	static int d[R_MAX][R_MAX];
	unsigned found = 0, none = 0;
	const int heaps = RANDOM_HEAPS(150);

	for (int g = 0; g < heaps; g++) {
		struct heap h;
		struct model m;
		char what[96];
		random_heap(&h, &seed, &m);
		for (unsigned flags = 0; flags < 4; flags++) {
			snprintf(what, sizeof what, "heap %d, %s%s", g, flags & REACH_WEAK ? "weak " : "",
				 flags & REACH_UNDIRECTED ? "undirected" : "directed");
			if (!(flags & REACH_UNDIRECTED)) /* deep: along references only */
				check_deep(&h, &m, &seed, flags, what);
			floyd(&m, flags, d);
			for (int k = 0; k < 25; k++) {
				int a = (int)(hw_rnd(&seed) % m.n), b = (int)(hw_rnd(&seed) % m.n);
				check_path(&h, &m, a, b, flags, d, what);
				if (d[a][b] == INF)
					none++;
				else
					found++;
			}
		}
		heap_free(&h);
	}
	/* the heaps were varied enough to test both answers: each in more
	 * than one check in 15 */
	ck_assert_msg(found > (found + none) / 15 && none > (found + none) / 15, "%u paths found, %u none",
		      found, none);
}
END_TEST

/* The steps: their text round trip, and what they select, against the
 * model; no path is an error that says so. */
START_TEST(steps_path_and_reachable)
{
	uint32_t seed = 99;
	static int d[R_MAX][R_MAX];
	static const char *const good[] = {
		"path 0x10 17", "path 1 2 undirected", "path 1 2 weak", "path 1 2 undirected weak",
		"reachable", "reachable weak", "instances Foo | reachable | path 0x1 0x3 weak",
	};
	static const char *const canon[] = {
		"path 0x10 17", "path 1 2 undirected", "path 1 2 weak", "path 1 2 undirected weak",
		"reachable", "reachable weak", "instances Foo | reachable | path 0x1 0x3 weak",
	};
	static const char *const bad[] = { "path", "path 1", "path 1 x", "path /a/ 2", "path 1 2 sideways" };

	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		struct pipeline pl;
		struct sbuf err, out;
		sbuf_init(&err);
		sbuf_init(&out);
		ck_assert_msg(pipeline_parse(good[i], &pl, &err) == 0, "%s: %s", good[i], err.buf);
		pipeline_to_string(&pl, &out);
		ck_assert_str_eq(out.buf, canon[i]);
		pipeline_free(&pl);
		/* "weak undirected" is the same step */
		sbuf_free(&err);
		sbuf_free(&out);
	}
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct pipeline pl;
		struct sbuf err;
		sbuf_init(&err);
		ck_assert_msg(pipeline_parse(bad[i], &pl, &err) == STEP_ESYNTAX, "%s parsed", bad[i]);
		pipeline_free(&pl);
		sbuf_free(&err);
	}
	for (int g = 0; g < 20; g++) {
		struct heap h;
		struct model m;
		random_heap(&h, &seed, &m);
		unsigned flags = hw_rnd(&seed) % 4;
		floyd(&m, flags, d);
		int a = (int)(hw_rnd(&seed) % m.n), b = (int)(hw_rnd(&seed) % m.n);
		char expr[128];
		snprintf(expr, sizeof expr, "path 0x%llx %llu%s%s", (unsigned long long)hw_graph_id((uint32_t)a),
			 (unsigned long long)hw_graph_id((uint32_t)b), flags & REACH_WEAK ? " weak" : "",
			 flags & REACH_UNDIRECTED ? " undirected" : "");
		struct pipeline pl;
		struct sbuf err;
		struct objset set;
		sbuf_init(&err);
		ck_assert(pipeline_parse(expr, &pl, &err) == 0);
		objset_all(&h, &set);
		int rc = step_apply(&h, &pl.steps[0], &set, NULL, &err);
		if (d[a][b] == INF) {
			ck_assert_msg(rc < 0 && strstr(err.buf, "no path from") != NULL, "%s: %s", expr, err.buf);
		} else {
			ck_assert_msg(rc == 0, "%s: %s", expr, err.buf);
			/* the set: the path's objects, as many as its hops and one */
			ck_assert_uint_eq(set.count, (uint64_t)d[a][b] + 1);
			ck_assert(objset_has(&set, m.node[a]) && objset_has(&set, m.node[b]));
		}
		objset_free(&set);
		pipeline_free(&pl);
		/* reachable from one object: the closure */
		snprintf(expr, sizeof expr, "object 0x%llx | reachable%s",
			 (unsigned long long)hw_graph_id((uint32_t)a), flags & REACH_WEAK ? " weak" : "");
		sbuf_reset(&err);
		ck_assert(pipeline_parse(expr, &pl, &err) == 0);
		objset_all(&h, &set);
		for (size_t i = 0; i < pl.n; i++)
			ck_assert_msg(step_apply(&h, &pl.steps[i], &set, NULL, &err) == 0, "%s: %s", expr, err.buf);
		uint8_t in[R_MAX] = { 0 };
		in[a] = 1;
		closure(&m, in, flags & REACH_WEAK);
		uint64_t want = 0;
		for (uint32_t i = 0; i < m.n; i++) {
			want += in[i];
			ck_assert_int_eq(objset_has(&set, m.node[i]), in[i]);
		}
		ck_assert_uint_eq(set.count, want);
		objset_free(&set);
		pipeline_free(&pl);
		sbuf_free(&err);
		heap_free(&h);
	}
}
END_TEST

/* ---- the reference to the class ---- */

/* X (t.K, field f0) holds its own class object by f0; Y (t.K too) has
 * f0 null: only the implicit reference to t.K. t.K's super is
 * java.lang.Object, which refers to nothing. By hand: the deep set of X
 * is X, t.K and Object; of Y, Y alone; X to Object is 2 hops (f0,
 * super); Y to X has no path, not even either way (Y's only reference is
 * the implicit one, and nothing refers to Y). */
enum { K_CLS = 0x3001, K_F0 = 0xb01, K_X = 0x5001, K_Y = 0x5003 };

START_TEST(class_reference)
{
	struct hw w;
	struct hw_field f = { K_F0, T_OBJECT, 0 };
	struct heap h;

	hw_begin(&w, "JAVA PROFILE 1.0.2", 8);
	hw_jdk_names(&w);
	hw_utf8(&w, K_F0, "f0");
	hw_class_name(&w, 8, K_CLS, "t/K");
	hw_heap_begin(&w);
	hw_jdk_classes(&w);
	hw_class_dump(&w, K_CLS, J_OBJECT, 0, NULL, 0, NULL, 0, &f, 1);
	hw_root(&w, HW_ROOT_UNKNOWN, K_X, 0, 0);
	hw_root(&w, HW_ROOT_UNKNOWN, K_Y, 0, 0);
	f.value = K_CLS;
	hw_instance(&w, K_X, K_CLS, &f, 1);
	f.value = 0;
	hw_instance(&w, K_Y, K_CLS, &f, 1);
	hw_heap_end(&w);
	hw_dump_end(&w);
	char *path = hw_write(&w, "classref.hprof", SIZE_MAX);
	hw_free(&w);
	open_path(&h, path);
	node_t x = heap_find_id(&h, K_X), y = heap_find_id(&h, K_Y);
	node_t k = heap_find_id(&h, K_CLS), o = heap_find_id(&h, J_OBJECT);
	bits_t *set = xcalloc(bits_words(h.n), sizeof *set), *out = xcalloc(bits_words(h.n), sizeof *out);
	uint64_t count;

	bit_set(set, x);
	uint64_t bytes = reach_deep(&h, set, 0, out, &count, NULL);
	ck_assert_uint_eq(count, 3);
	ck_assert(bit_get(out, x) && bit_get(out, k) && bit_get(out, o));
	ck_assert_uint_eq(bytes, (uint64_t)h.node_shallow[x] + h.node_shallow[k] + h.node_shallow[o]);
	memset(set, 0, bits_words(h.n) * sizeof *set);
	memset(out, 0, bits_words(h.n) * sizeof *out);
	bit_set(set, y);
	reach_deep(&h, set, 0, out, &count, NULL);
	ck_assert_uint_eq(count, 1);
	ck_assert(bit_get(out, y) && !bit_get(out, k));

	struct between b;
	struct sbuf err, label;
	sbuf_init(&err);
	sbuf_init(&label);
	ck_assert(between_nodes(&h, x, o, 0, &b, NULL, &err) == 0 && b.found);
	ck_assert_uint_eq(b.path.n, 3);
	ck_assert(b.path.nodes[1] == k);
	heap_edge_label(&h, x, k, &label);
	ck_assert_str_eq(label.buf, "f0");
	between_free(&b);
	for (unsigned flags = 0; flags < 4; flags++) {
		ck_assert(between_nodes(&h, y, x, flags, &b, NULL, &err) == 0);
		ck_assert_msg(!b.found, "flags %u: Y reaches X by its class", flags);
		between_free(&b);
	}
	/* and what the no-path error says */
	ck_assert(between_ids(&h, "0x5003", "0x5001", 0, &b, NULL, &err) == 0 && !b.found);
	between_none(&h, &b, &err);
	ck_assert_str_eq(err.buf, "no path from 0x5003 to 0x5001 along strong references (weak ones too: "
			 "weak, --weak; either way: undirected, --undirected)");
	between_free(&b);
	sbuf_reset(&err);
	ck_assert(between_ids(&h, "0x5003", "0x7777", 0, &b, NULL, &err) < 0);
	ck_assert_str_eq(err.buf, "no object with id 0x7777 in the dump");
	sbuf_free(&err);
	sbuf_free(&label);
	free(set);
	free(out);
	heap_free(&h);
	free(path);
}
END_TEST

/* ---- a JVM's dump ---- */

static const char *between_dump(void)
{
	static char path[512];

	workload_dump("Between", "between", "-Xmx64m", path, sizeof path);
	return path;
}

/* The id of the one instance of class `cls` (batch, objects view). */
static void one_id(const char *dump, const char *cls, char *id, size_t n)
{
	char cmd[1024];
	int st;

	snprintf(cmd, sizeof cmd, "%s -q -f csv -e 'instances %s | objects' %s", heapwalk(), cls, dump);
	char *csv = run(cmd, &st), *line = strchr(csv, '\n');
	ck_assert_msg(st == 0 && line != NULL, "%s: %s", cmd, csv);
	size_t k = strcspn(line + 1, ",");
	ck_assert(k > 0 && k < n && strchr(line + 1 + k + 1, '\n') == strrchr(csv, '\n'));
	memcpy(id, line + 1, k);
	id[k] = '\0';
	free(csv);
}

/* The bytes the JVM's class histogram gives class `cls` (the dump's
 * .histo, made by jcmd around the dump). */
static unsigned long long histo_bytes(const char *dump, const char *cls)
{
	char path[600], line[1024], name[512];
	unsigned long long c, b, bytes = 0;

	snprintf(path, sizeof path, "%.*s.histo", (int)(strlen(dump) - 6), dump);
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot read %s", path);
	while (fgets(line, sizeof line, f))
		if (sscanf(line, " %*d: %llu %llu %511s", &c, &b, name) == 3 && strcmp(name, cls) == 0) {
			ck_assert_uint_eq(c, 1);
			bytes = b;
		}
	fclose(f);
	ck_assert_msg(bytes > 0, "%s not in %s", cls, path);
	return bytes;
}

START_TEST(jvm_chain)
{
	const char *dump = between_dump();
	char a[32], c[32], cmd[1024];
	int st;

	one_id(dump, "Between$A", a, sizeof a);
	one_id(dump, "Between$C", c, sizeof c);
	/* A to C: A's field b, then B's field c */
	snprintf(cmd, sizeof cmd, "%s -q -f csv between %s %s %s", heapwalk(), dump, a, c);
	char *csv = run(cmd, &st);
	ck_assert_msg(st == 0, "%s: %s", cmd, csv);
	char want[512];
	snprintf(want, sizeof want, "step,id,object,via,direction,kind\n0,%s,Between$A,b,->,strong\n", a);
	ck_assert_msg(strncmp(csv, want, strlen(want)) == 0, "%s", csv);
	ck_assert_msg(strstr(csv, ",Between$B,c,->,strong\n") != NULL, "%s", csv);
	snprintf(want, sizeof want, "\n2,%s,Between$C,,,\n", c);
	ck_assert_msg(strstr(csv, want) != NULL && strstr(csv, "\n3,") == NULL, "%s", csv);
	free(csv);
	/* C to A: C holds nothing; either way, back along c and b */
	snprintf(cmd, sizeof cmd, "%s -q -f json between %s %s %s", heapwalk(), dump, c, a);
	char *json = run(cmd, &st);
	ck_assert_msg(st == 0 && strstr(json, "\"found\":false") != NULL, "%s", json);
	free(json);
	snprintf(cmd, sizeof cmd, "%s -q -f csv --undirected between %s %s %s", heapwalk(), dump, c, a);
	csv = run(cmd, &st);
	ck_assert_msg(st == 0 && strstr(csv, ",Between$C,c,<-,strong\n") && strstr(csv, ",Between$B,b,<-,strong\n") &&
		      strstr(csv, ",Between$A,,,\n"), "%s", csv);
	free(csv);
	/* the step: the same objects, and no path an error (status 2) */
	snprintf(cmd, sizeof cmd, "%s -q -f json -e 'path %s %s | info' %s", heapwalk(), a, c, dump);
	json = run(cmd, &st);
	ck_assert_msg(st == 0 && strstr(json, "\"set_objects\":3,") != NULL, "%s", json);
	free(json);
	snprintf(cmd, sizeof cmd, "%s -q -e 'path %s %s' %s 2>&1", heapwalk(), c, a, dump);
	char *msg = run(cmd, &st);
	ck_assert_msg(WEXITSTATUS(st) == 2 && strstr(msg, "no path from") != NULL, "%s", msg);
	free(msg);
	/* deep size of A: A, B and C, by the JVM's own histogram */
	unsigned long long bytes = histo_bytes(dump, "Between$A") + histo_bytes(dump, "Between$B") +
				   histo_bytes(dump, "Between$C");
	snprintf(cmd, sizeof cmd, "%s -q -f json --deep -e 'instances Between$A' info %s", heapwalk(), dump);
	json = run(cmd, &st);
	snprintf(want, sizeof want, "\"set_deep_objects\":3,\"set_deep_bytes\":%llu,", bytes);
	ck_assert_msg(st == 0 && strstr(json, want) != NULL, "want %s: %s", want, json);
	/* and its retained size: the same three, nothing else holds B or C */
	snprintf(want, sizeof want, "\"set_retained_objects\":3,\"set_retained_bytes\":%llu,", bytes);
	ck_assert_msg(strstr(json, want) != NULL, "want %s: %s", want, json);
	free(json);
}
END_TEST

/* ---- the browser ---- */

/* A chain of three t.C0 (one field f0): 0x1001 -> 0x1003 -> 0x1005,
 * the first a GC root. In the browser: its instances, the first and
 * the last marked, P, forward: the path shown, a step whose expression
 * is "path 0x1001 0x1005"; a: its deep size on the step line. */
START_TEST(browser_mark_two)
{
	struct hw w;
	struct hw_field f = { HWG_FIELD, T_OBJECT, 0 };
	struct term t;

	hw_begin(&w, "JAVA PROFILE 1.0.2", 8);
	hw_jdk_names(&w);
	hw_utf8(&w, HWG_FIELD, "f0");
	hw_class_name(&w, 8, HWG_CLS, "t/C0");
	hw_heap_begin(&w);
	hw_jdk_classes(&w);
	hw_class_dump(&w, HWG_CLS, J_OBJECT, 0, NULL, 0, NULL, 0, &f, 1);
	hw_root(&w, HW_ROOT_UNKNOWN, 0x1001, 0, 0);
	for (uint64_t id = 0x1001; id <= 0x1005; id += 2) {
		f.value = id < 0x1005 ? id + 2 : 0;
		hw_instance(&w, id, HWG_CLS, &f, 1);
	}
	hw_heap_end(&w);
	hw_dump_end(&w);
	char *path = hw_write(&w, "browser-between.hprof", SIZE_MAX);
	hw_free(&w);
	struct heap h;
	open_path(&h, path);
	char deep[32], want[64];
	fmt_bytes(deep, sizeof deep, (uint64_t)h.node_shallow[heap_find_id(&h, 0x1001)] +
		  h.node_shallow[heap_find_id(&h, 0x1003)] + h.node_shallow[heap_find_id(&h, 0x1005)]);
	heap_free(&h);

	char args[600];
	snprintf(args, sizeof args, "--no-cache %s", path);
	term_start(&t, 120, 30, "", args);
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, "/");
	type(&t, "^t\\.C0");
	keys(&t, "Enter Enter");
	char *s = wait_for(&t, "Step 2: Instances of t.C0");
	has(s, "t.C0 0x1005");
	free(s);
	/* biggest retained first: 0x1001, 0x1003, 0x1005; mark the first,
	 * the cursor on the last */
	keys(&t, "T Space Down Space");
	free(wait_for(&t, "2 marked"));
	keys(&t, "P");
	s = wait_for(&t, "Path between two objects");
	has(s, "forward     from t.C0 0x1001 to t.C0 0x1005");
	free(s);
	keys(&t, "Enter");
	s = wait_for(&t, "Path: 2 references");
	/* under the box, the step it made, drawn (not the step before with
	 * the work's progress line) */
	has(s, "Step 3: Path from t.C0 0x1001 to t.C0 0x1005");
	lacks(s, "Esc: cancel");
	has(s, " t.C0 0x1001");
	has(s, " --f0--> t.C0 0x1003");
	has(s, " --f0--> t.C0 0x1005");
	free(s);
	keys(&t, "Escape");
	s = wait_for(&t, "Step 3: Path from t.C0 0x1001 to t.C0 0x1005");
	has(s, "3 objects");
	lacks(s, "deep ");
	free(s);
	keys(&t, "a");
	snprintf(want, sizeof want, "deep %s", deep);
	free(wait_for(&t, want));
	keys(&t, "x");
	s = wait_for(&t, "The command that makes this step");
	char *inside = box_text(s);
	ck_assert_msg(strstr(inside, "heapwalk-e'path0x10010x1005'") != NULL, "the box: %s", inside);
	free(inside);
	free(s);
	keys(&t, "Escape");
	/* backward from the last row's object: none; the message says so */
	keys(&t, "Left");
	free(wait_for(&t, "Step 2: Instances of t.C0"));
	keys(&t, "T Space Down Down Space P b");
	s = wait_for(&t, "no path from 0x1005 to 0x1001");
	free(s);
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
	free(path);
}
END_TEST

Suite *between_suite(void)
{
	Suite *s = suite_create("between");
	TCase *tc = tcase_create("engine");
	TCase *jvm = tcase_create("jvm");
	TCase *term = tcase_create("browser");

	tcase_set_timeout(tc, HANG_TIMEOUT);
	tcase_add_test(tc, random_deep_and_paths);
	tcase_add_test(tc, steps_path_and_reachable);
	tcase_add_test(tc, class_reference);
	tcase_set_timeout(jvm, FIXTURE_TIMEOUT);
	tcase_add_test(jvm, jvm_chain);
	tcase_set_timeout(term, HANG_TIMEOUT);
	tcase_add_test(term, browser_mark_two);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, jvm);
	suite_add_tcase(s, term);
	return s;
}
