/* test_dot.c — graphs in GraphViz dot (query/dot.h): heapwalk graph,
 * paths and merged-* with -f dot.
 *
 * Heaps written with the test HPROF writer from a table of objects and
 * their references, which the test keeps: the expected graph of a set
 * (its objects, those within a depth of references out and in, every
 * reference between two of them, each (source, target, kind) once with
 * the label of its first field or index and how many more) comes from
 * that table by a walk of the test's own, level by level. A hand-made heap
 * whose graphs are also written out here by hand (a static, an object
 * holding its own class, an array holding one object twice, a weak
 * reference, a class name made to break dot strings); random heaps
 * against the table's walk, cut by a bound too. The dot text is parsed
 * back (nodes, edges, labels, styles) and drawn by `dot -Tsvg` (Debian's
 * graphviz), which must take it and draw every node. The command line:
 * graph's three forms (-e, OBJECT, the view word), -o, -w, the line
 * --max's cut writes, the usage errors of -f; paths -f dot against the
 * one shortest path of the hand-made heap, merged-in -f dot against its
 * CSV. A JVM dump of tests/java/Between, whose chain A -> B -> C is
 * known by construction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "engine/open.h"
#include "hprofw.h"
#include "query/dot.h"
#include "suites.h"

#define DUMPS TEST_BUILDDIR "/dumps"

static uint32_t rnd(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 16;
}

/* ---- heaps as tables ---- */

enum { T_MAX = 48, T_REFS = 4, T_OBJ = 0x100001 };
enum { C_NODE = 0x3001, C_HOLDER = 0x3011, C_TYPED = 0x3021, C_EVIL = 0x3031 };
enum { N_NEXT = 0xb01, N_OTHER = 0xb03, N_TYPE = 0xb05, N_CACHE = 0xb07 };
/* Node: fields next, other; Arr: an Object[]; Weak: a WeakReference;
 * Str: a String on the byte[] Bytes; Typed: its field `type` holds its
 * own class object; Evil: an instance of the class EVIL_NAME. */
enum kind { K_NODE, K_ARR, K_WEAK, K_STR, K_BYTES, K_TYPED, K_EVIL };
#define EVIL_NAME "t/Evil\"q\\b\nx"

struct table {
	uint32_t n;
	uint8_t kind[T_MAX];
	uint32_t nref[T_MAX];
	int ref[T_MAX][T_REFS];   /* object index, -1: null */
	uint32_t roots[4], nroots;
	int cache;                /* Holder's static CACHE: an object, -1: none */
};

static uint64_t tid(uint32_t i) { return T_OBJ + 2 * (uint64_t)i; }

static void write_classes(struct hw *w)
{
	const struct hw_field node[] = { { N_NEXT, T_OBJECT, 0 }, { N_OTHER, T_OBJECT, 0 } };
	const struct hw_field typed[] = { { N_TYPE, T_OBJECT, 0 } };

	hw_begin(w, "JAVA PROFILE 1.0.2", 8);
	hw_jdk_names(w);
	hw_utf8(w, N_NEXT, "next");
	hw_utf8(w, N_OTHER, "other");
	hw_utf8(w, N_TYPE, "type");
	hw_utf8(w, N_CACHE, "CACHE");
	hw_class_name(w, 8, C_NODE, "t/Node");
	hw_class_name(w, 9, C_HOLDER, "t/Holder");
	hw_class_name(w, 10, C_TYPED, "t/Typed");
	hw_class_name(w, 11, C_EVIL, EVIL_NAME);
	hw_heap_begin(w);
	hw_jdk_classes(w);
	hw_class_dump(w, C_NODE, J_OBJECT, 0, NULL, 0, NULL, 0, node, 2);
	hw_class_dump(w, C_TYPED, J_OBJECT, 0, NULL, 0, NULL, 0, typed, 1);
	hw_class_dump(w, C_EVIL, J_OBJECT, 0, NULL, 0, NULL, 0, NULL, 0);
}

static uint64_t ref_id(const struct table *t, uint32_t i, uint32_t j)
{
	return t->ref[i][j] < 0 ? 0 : tid((uint32_t)t->ref[i][j]);
}

static void write_object(struct hw *w, const struct table *t, uint32_t i)
{
	struct hw_field f[2];
	uint64_t el[T_REFS];

	for (uint32_t j = 0; j < t->nref[i]; j++)
		el[j] = ref_id(t, i, j);
	switch (t->kind[i]) {
	case K_NODE:
		f[0] = (struct hw_field){ 0, T_OBJECT, el[0] };
		f[1] = (struct hw_field){ 0, T_OBJECT, el[1] };
		hw_instance(w, tid(i), C_NODE, f, 2);
		break;
	case K_ARR: hw_objarray(w, tid(i), J_OBJARR, el, t->nref[i]); break;
	case K_WEAK: hw_jdk_weakref(w, tid(i), el[0]); break;
	case K_STR: hw_jdk_string(w, tid(i), el[0]); break;
	case K_BYTES: hw_primarray(w, tid(i), T_BYTE, 3, "abc"); break;
	case K_TYPED:
		f[0] = (struct hw_field){ 0, T_OBJECT, C_TYPED };
		hw_instance(w, tid(i), C_TYPED, f, 1);
		break;
	default: hw_instance(w, tid(i), C_EVIL, NULL, 0); break;
	}
}

/* The table as a dump, opened (every part, no cache). */
static void open_table(struct heap *h, const struct table *t, const char *name, char **path)
{
	struct hw w;
	struct open_opts o = { .no_cache = 1, .quiet = 1 };
	struct sbuf err;
	const struct hw_field cache[] = { { N_CACHE, T_OBJECT, t->cache < 0 ? 0 : tid((uint32_t)t->cache) } };

	write_classes(&w);
	hw_class_dump(&w, C_HOLDER, J_OBJECT, 0, NULL, 0, cache, 1, NULL, 0);
	for (uint32_t r = 0; r < t->nroots; r++)
		hw_root(&w, r == 0 ? HW_ROOT_JNI_GLOBAL : HW_ROOT_UNKNOWN, tid(t->roots[r]), 0x77, 0);
	for (uint32_t i = 0; i < t->n; i++)
		write_object(&w, t, i);
	hw_heap_end(&w);
	hw_dump_end(&w);
	*path = hw_write(&w, name, SIZE_MAX);
	hw_free(&w);
	sbuf_init(&err);
	ck_assert_msg(heap_open(h, *path, &o, NULL, &err) == 0, "%s: %s", *path, err.buf);
	sbuf_free(&err);
	heap_need(h, HP_ALL, NULL);
}

/* ---- the dot text, read back ---- */

/* Nodes "ID[ member][ root]" and edges "SRC -> DST LABEL[ dashed|dotted]",
 * a line each in the order written; whether it says it was cut. */
struct parsed {
	struct sbuf nodes, edges;
	size_t n, ne;
	int cut;
};

/* The quoted text from p (after its '"') to the closing quote: as
 * written, escapes kept. */
static const char *quoted(const char *p, struct sbuf *out)
{
	while (*p && *p != '"') {
		if (*p == '\\' && p[1])
			sbuf_addc(out, *p++);
		sbuf_addc(out, *p++);
	}
	ck_assert_msg(*p == '"', "an unclosed string");
	return p + 1;
}

static void parse_line(const char *l, struct parsed *g)
{
	struct sbuf a, b, lab;

	sbuf_init(&a);
	sbuf_init(&b);
	sbuf_init(&lab);
	const char *p = quoted(l + 2, &a);
	if (strncmp(p, " -> \"", 5) == 0) {
		p = quoted(p + 5, &b);
		const char *q = strstr(p, "label=\"");
		ck_assert_msg(q != NULL, "an edge without a label: %s", l);
		quoted(q + 7, &lab);
		sbuf_printf(&g->edges, "%s -> %s %s%s\n", a.buf, b.buf, lab.buf,
			    strstr(p, "style=dashed") ? " dashed" : strstr(p, "style=dotted") ? " dotted" : "");
		g->ne++;
	} else {
		ck_assert_msg(strncmp(p, " [label=\"", 9) == 0, "not a node: %s", l);
		sbuf_printf(&g->nodes, "%s%s%s\n", a.buf, strstr(p, "style=\"filled,bold\"") ? " member" : "",
			    strstr(p, "shape=octagon") ? " root" : "");
		g->n++;
	}
	sbuf_free(&a);
	sbuf_free(&b);
	sbuf_free(&lab);
}

static void parse_dot(const char *dot, struct parsed *g)
{
	memset(g, 0, sizeof *g);
	sbuf_init(&g->nodes);
	sbuf_init(&g->edges);
	g->cut = strncmp(dot, "// cut at ", 10) == 0;
	ck_assert_msg(strstr(dot, "digraph \"") != NULL && dot[strlen(dot) - 2] == '}', "not a digraph: %s", dot);
	for (const char *l = dot; *l; l = strchr(l, '\n') + 1) {
		ck_assert(strchr(l, '\n') != NULL);
		char *line = xstrndup(l, (size_t)(strchr(l, '\n') - l));
		if (strncmp(line, "\t\"", 2) == 0)
			parse_line(line, g);
		free(line);
	}
}

static void parsed_free(struct parsed *g)
{
	sbuf_free(&g->nodes);
	sbuf_free(&g->edges);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of s sorted (the order of the output is checked apart). */
static char *sorted(const char *s)
{
	char *c = xstrdup(s), **v = NULL;
	size_t n = 0, cap = 0;
	struct sbuf sb;

	for (char *l = strtok(c, "\n"); l != NULL; l = strtok(NULL, "\n")) {
		VEC_GROW(v, n, cap);
		v[n++] = l;
	}
	hw_qsort(v, n, sizeof *v, cmp_str);
	sbuf_init(&sb);
	for (size_t i = 0; i < n; i++)
		sbuf_printf(&sb, "%s\n", v[i]);
	free(v);
	free(c);
	return sbuf_detach(&sb);
}

static void same_lines(const char *got, const char *want, const char *what, const char *dot)
{
	char *g = sorted(got), *w = sorted(want);

	ck_assert_msg(strcmp(g, w) == 0, "%s:\ngot\n%swant\n%sin\n%s", what, g, w, dot);
	free(g);
	free(w);
}

/* Ids ascend: nodes in node order, edges by source then target. */
static void check_order(const struct parsed *g)
{
	unsigned long long last = 0, a, b, la = 0, lb = 0;

	for (const char *l = g->nodes.buf; *l; l = strchr(l, '\n') + 1) {
		ck_assert_int_eq(sscanf(l, "%llx", &a), 1);
		ck_assert_msg(a > last, "nodes out of order: %s", g->nodes.buf);
		last = a;
	}
	for (const char *l = g->edges.buf; *l; l = strchr(l, '\n') + 1) {
		ck_assert_int_eq(sscanf(l, "%llx -> %llx", &a, &b), 2);
		ck_assert_msg(a > la || (a == la && b >= lb), "edges out of order: %s", g->edges.buf);
		la = a;
		lb = b;
	}
}

/* `dot -Tsvg` takes the text (status 0) and draws n nodes; once said
 * when graphviz is missing. The svg's text, or NULL without dot. */
static char *render(const char *dot, size_t n)
{
	static int said;
	char *path, cmd[1200];
	int st;

	if (!have("dot")) {
		if (!said++)
			fprintf(stderr, "dot: graphviz's dot is not installed: the drawings are not checked\n");
		return NULL;
	}
	struct hw w;
	hw_init(&w, 8);
	hw_bytes(&w, dot, strlen(dot));
	path = hw_write(&w, "g.dot", SIZE_MAX);
	hw_free(&w);
	snprintf(cmd, sizeof cmd, "dot -Tsvg '%s' 2>&1", path);
	char *svg = run(cmd, &st);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "dot failed: %s\n%s", svg, dot);
	size_t k = 0;
	for (const char *p = svg; (p = strstr(p, "class=\"node\"")) != NULL; p++)
		k++;
	ck_assert_msg(k == n, "dot drew %zu nodes, not %zu:\n%s", k, n, dot);
	free(path);
	return svg;
}

/* ---- the expected graph, from the table ---- */

/* The references of object i as the table has them: target, label (a
 * field's name or "[j]"), weak. */
struct tref { int dst; char label[16]; int weak; };

static uint32_t table_refs(const struct table *t, uint32_t i, struct tref *out)
{
	static const char *const node[] = { "next", "other" };
	uint32_t n = 0;

	for (uint32_t j = 0; j < t->nref[i]; j++) {
		if (t->ref[i][j] < 0)
			continue;
		out[n] = (struct tref){ t->ref[i][j], "", t->kind[i] == K_WEAK };
		if (t->kind[i] == K_ARR)
			snprintf(out[n].label, sizeof out[n].label, "[%u]", j);
		else
			snprintf(out[n].label, sizeof out[n].label, "%s",
				 t->kind[i] == K_NODE ? node[j] : t->kind[i] == K_WEAK ? "referent" : "value");
		n++;
	}
	return n;
}

/* The distance of every object from the members, out (dir 0) or in
 * (dir 1) along the references followed; T_MAX: not reached. */
static void distances(const struct table *t, const uint8_t *member, int weak, int dir, uint32_t *dist)
{
	struct tref r[T_REFS];

	for (uint32_t i = 0; i < t->n; i++)
		dist[i] = member[i] ? 0 : T_MAX;
	for (uint32_t d = 0; d < t->n; d++) /* Bellman-Ford by levels: the table is small */
		for (uint32_t i = 0; i < t->n; i++) {
			uint32_t nr = table_refs(t, i, r);
			for (uint32_t k = 0; k < nr; k++) {
				uint32_t a = dir == 0 ? i : (uint32_t)r[k].dst, b = dir == 0 ? (uint32_t)r[k].dst : i;
				if ((weak || !r[k].weak) && dist[a] == d && dist[b] > d + 1)
					dist[b] = d + 1;
			}
		}
}

/* Nodes and edges as parse_dot writes them, of the objects drawn[]. */
static void expect(const struct table *t, const uint8_t *drawn, const uint8_t *member, int weak,
		   struct sbuf *nodes, struct sbuf *edges)
{
	struct tref r[T_REFS];

	for (uint32_t i = 0; i < t->n; i++) {
		if (!drawn[i])
			continue;
		int root = 0;
		for (uint32_t k = 0; k < t->nroots; k++)
			root |= t->roots[k] == i;
		sbuf_printf(nodes, "0x%llx%s%s\n", (unsigned long long)tid(i), member[i] ? " member" : "",
			    root ? " root" : "");
		uint32_t nr = table_refs(t, i, r);
		for (uint32_t k = 0; k < nr; k++) {
			uint32_t more = 0, first = 1;
			for (uint32_t m = 0; m < nr; m++)
				if (r[m].dst == r[k].dst && r[m].weak == r[k].weak) {
					more += m > k;
					first &= m >= k;
				}
			if (!first || !drawn[r[k].dst] || (r[k].weak && !weak))
				continue;
			sbuf_printf(edges, "0x%llx -> 0x%llx %s", (unsigned long long)tid(i),
				    (unsigned long long)tid((uint32_t)r[k].dst), r[k].label);
			if (more > 0)
				sbuf_printf(edges, " +%u more", more);
			sbuf_adds(edges, r[k].weak ? " dashed\n" : "\n");
		}
	}
}

/* graph_dot of the objects with the ids ids[0..n) (in-process); its
 * status in *rc. */
static char *graph_of(struct heap *h, const uint64_t *ids, size_t n, unsigned depth, size_t max, int weak, int *rc)
{
	struct objset s;
	struct sbuf out, err;

	objset_empty(h, &s);
	for (size_t i = 0; i < n; i++)
		bit_set(s.bits, heap_find_id(h, ids[i]));
	objset_recount(h, &s);
	sbuf_init(&out);
	sbuf_init(&err);
	*rc = graph_dot(h, &s, depth, max, weak, &out, &err);
	ck_assert_msg(*rc >= 0, "%s", err.buf);
	objset_free(&s);
	sbuf_free(&err);
	return sbuf_detach(&out);
}

/* ---- random heaps against the table's walk ---- */

static void random_table(struct table *t, uint32_t *seed)
{
	unsigned nullpct = 10 + rnd(seed) % 50;

	memset(t, 0, sizeof *t);
	t->n = 2 + rnd(seed) % (T_MAX - 2);
	t->cache = -1;
	for (uint32_t i = 0; i < t->n; i++) {
		unsigned k = rnd(seed) % 10;
		t->kind[i] = k < 6 ? K_NODE : k < 8 ? K_ARR : K_WEAK;
		t->nref[i] = t->kind[i] == K_NODE ? 2 : t->kind[i] == K_WEAK ? 1 : rnd(seed) % (T_REFS + 1);
		for (uint32_t j = 0; j < t->nref[i]; j++) /* targets from a few: shared ones, copies */
			t->ref[i][j] = rnd(seed) % 100 < nullpct ? -1
				       : (int)(rnd(seed) % (rnd(seed) % 3 ? t->n : 1 + t->n / 4));
	}
	t->nroots = 1 + rnd(seed) % 3;
	for (uint32_t r = 0; r < t->nroots; r++)
		t->roots[r] = rnd(seed) % t->n;
}

/* A graph cut at max objects: the members first (all of them, or the
 * first max in id order), then whole levels, the last one in part. */
static void check_cut(const struct table *t, const struct parsed *g, const uint8_t *member,
		      const uint32_t *level, size_t max, const char *dot)
{
	uint8_t drawn[T_MAX] = { 0 };
	uint32_t top = 0, nmembers = 0, k = 0;

	ck_assert_msg(g->cut && g->n == max, "cut at %zu: %zu nodes\n%s", max, g->n, dot);
	for (const char *l = g->nodes.buf; *l; l = strchr(l, '\n') + 1) {
		unsigned long long id;
		ck_assert_int_eq(sscanf(l, "%llx", &id), 1);
		uint32_t i = (uint32_t)((id - T_OBJ) / 2);
		ck_assert_msg(i < t->n && level[i] < T_MAX, "0x%llx is not within the depth\n%s", id, dot);
		drawn[i] = 1;
		top = level[i] > top ? level[i] : top;
	}
	for (uint32_t i = 0; i < t->n; i++) {
		nmembers += member[i];
		if (member[i] && nmembers <= max)
			ck_assert_msg(drawn[i], "member %u left out\n%s", i, dot);
		if (level[i] < top)
			ck_assert_msg(drawn[i], "%u (level %u) left out, level %u drawn\n%s", i, level[i], top, dot);
		k += drawn[i];
	}
	ck_assert_uint_eq(k, max);
}

/* One random heap: graphs of random sets, depths 0 to 3, weak or not,
 * whole and cut. */
static void random_case(uint32_t *seed, int draw)
{
	struct table t;
	struct heap h;
	char *path;
	uint8_t member[T_MAX], drawn[T_MAX];
	uint32_t dout[T_MAX], din[T_MAX], level[T_MAX];

	random_table(&t, seed);
	open_table(&h, &t, "random.hprof", &path);
	for (int round = 0; round < 6; round++) {
		unsigned depth = rnd(seed) % 4;
		int weak = rnd(seed) % 2, rc;
		memset(member, 0, sizeof member);
		for (uint32_t k = 1 + rnd(seed) % 3; k > 0; k--)
			member[rnd(seed) % t.n] = 1;
		distances(&t, member, weak, 0, dout);
		distances(&t, member, weak, 1, din);
		size_t want = 0;
		for (uint32_t i = 0; i < t.n; i++) {
			level[i] = dout[i] < din[i] ? dout[i] : din[i];
			level[i] = level[i] <= depth ? level[i] : T_MAX;
			drawn[i] = level[i] < T_MAX;
			want += drawn[i];
		}
		size_t max = round % 2 ? 1 + rnd(seed) % want : 0;
		uint64_t ids[T_MAX];
		size_t nids = 0;
		for (uint32_t i = 0; i < t.n; i++)
			if (member[i])
				ids[nids++] = tid(i);
		char *dot = graph_of(&h, ids, nids, depth, max, weak, &rc);
		struct parsed g;
		parse_dot(dot, &g);
		check_order(&g);
		if (max == 0 || max >= want) {
			struct sbuf nodes, edges;
			sbuf_init(&nodes);
			sbuf_init(&edges);
			expect(&t, drawn, member, weak, &nodes, &edges);
			ck_assert_msg(rc == 0 && !g.cut, "cut though %zu objects fit %zu\n%s", want, max, dot);
			same_lines(g.nodes.buf, nodes.buf, "nodes", dot);
			same_lines(g.edges.buf, edges.buf, "edges", dot);
			sbuf_free(&nodes);
			sbuf_free(&edges);
		} else {
			ck_assert_int_eq(rc, 1);
			check_cut(&t, &g, member, level, max, dot);
		}
		if (draw && round < 2)
			free(render(dot, g.n));
		parsed_free(&g);
		free(dot);
	}
	heap_free(&h);
	free(path);
}

START_TEST(random_graphs)
{
	uint32_t seed = 0x9e3779b9u;

	for (int i = 0; i < 60; i++)
		random_case(&seed, i < 4);
}
END_TEST

/* ---- the hand-made heap ---- */

enum { A, B, C, D, E, W, S, V, ARR, K, Z, NOBJ };

/*   roots: A (JNI global), E
 *   E.next -> A, E.other -> W (WeakReference to B)
 *   A.next -> B, A.other -> ARR = { C, C, D }
 *   B.next -> C, B.other -> S (String on the byte[] V)
 *   C.next -> D; D.next -> Z (an instance of the evil class)
 *   Holder's static CACHE -> D; K.type -> class t.Typed, K's own class */
static void hand_table(struct table *t)
{
	static const int refs[NOBJ][3] = {
		[A] = { B, ARR, -1 }, [B] = { C, S, -1 }, [C] = { D, -1, -1 }, [D] = { Z, -1, -1 },
		[E] = { A, W, -1 }, [W] = { B, -1, -1 }, [S] = { V, -1, -1 }, [V] = { -1, -1, -1 },
		[ARR] = { C, C, D }, [K] = { -1, -1, -1 }, [Z] = { -1, -1, -1 },
	};
	static const uint8_t kind[NOBJ] = {
		[A] = K_NODE, [B] = K_NODE, [C] = K_NODE, [D] = K_NODE, [E] = K_NODE, [W] = K_WEAK,
		[S] = K_STR, [V] = K_BYTES, [ARR] = K_ARR, [K] = K_TYPED, [Z] = K_EVIL,
	};

	memset(t, 0, sizeof *t);
	t->n = NOBJ;
	for (uint32_t i = 0; i < NOBJ; i++) {
		t->kind[i] = kind[i];
		t->nref[i] = kind[i] == K_NODE ? 2 : kind[i] == K_ARR ? 3 : kind[i] == K_WEAK || kind[i] == K_STR;
		for (uint32_t j = 0; j < 3; j++)
			t->ref[i][j] = refs[i][j];
	}
	t->roots[0] = A;
	t->roots[1] = E;
	t->nroots = 2;
	t->cache = D;
}

/* "0x..." of an object of the hand-made heap, or of a class by its id. */
static const char *hid(int x)
{
	static char buf[8][24];
	static int k;

	k = (k + 1) % 8;
	snprintf(buf[k], sizeof buf[k], "0x%llx", (unsigned long long)(x < NOBJ ? tid((uint32_t)x) : (uint64_t)x));
	return buf[k];
}

struct hedge { int src, dst; const char *label; };

/* The graph of one object, against nodes (members first: the object)
 * and edges written by hand; parsed and drawn. The svg, or NULL without
 * dot (caller frees). */
static char *check_hand(const char *dot, const int *nodes, size_t nn, const struct hedge *e, size_t ne)
{
	struct sbuf wn, we;
	struct parsed g;

	sbuf_init(&wn);
	sbuf_init(&we);
	for (size_t i = 0; i < nn; i++)
		sbuf_printf(&wn, "%s%s%s\n", hid(nodes[i]), i == 0 ? " member" : "",
			    nodes[i] == A || nodes[i] == E ? " root" : "");
	for (size_t i = 0; i < ne; i++)
		sbuf_printf(&we, "%s -> %s %s\n", hid(e[i].src), hid(e[i].dst), e[i].label);
	parse_dot(dot, &g);
	check_order(&g);
	same_lines(g.nodes.buf, wn.buf, "nodes", dot);
	same_lines(g.edges.buf, we.buf, "edges", dot);
	char *svg = render(dot, g.n);
	parsed_free(&g);
	sbuf_free(&wn);
	sbuf_free(&we);
	return svg;
}

/* The graph of x: an object of the table, or a class by its id. */
static char *graph_one(struct heap *h, int x, unsigned depth, size_t max, int weak, int *rc)
{
	uint64_t id = x < NOBJ ? tid((uint32_t)x) : (uint64_t)x;

	return graph_of(h, &id, 1, depth, max, weak, rc);
}

/* The hand-made heap's graphs, written out by hand from its picture:
 * of object x (or a class by its id), depth, bound (0: none), weak; the
 * nodes (x first) and edges; a piece of text the dot must have, and
 * one its drawing must have. */
static const struct hcase {
	int x;
	unsigned depth;
	size_t max;
	int weak;
	int nodes[8];
	size_t nn;
	struct hedge edges[8];
	size_t ne;
	const char *has, *svg_has;
} hand_cases[] = {
	/* what B refers to (not its class), what refers to it (not W's weak
	 * referent); A's root named, S's text shown */
	{ B, 1, 0, 0, { B, A, C, S }, 4, { { A, B, "next" }, { B, C, "next" }, { B, S, "other" } }, 3,
	  "GC root: global handle: JNI global\", shape=octagon, color=\"#b03030\", tooltip=\"global handle: JNI global\"", NULL },
	{ B, 1, 0, 0, { B, A, C, S }, 4, { { A, B, "next" }, { B, C, "next" }, { B, S, "other" } }, 3,
	  "\\n\\\"abc\\\"\\n", NULL },
	/* depth 2: D and V out, E in; A's array is not walked (A came in) */
	{ B, 2, 0, 0, { B, A, C, S, D, V, E }, 7,
	  { { A, B, "next" }, { B, C, "next" }, { B, S, "other" }, { C, D, "next" }, { S, V, "value" },
	    { E, A, "next" } }, 6, NULL, NULL },
	/* weak: W's referent, dashed */
	{ B, 1, 0, 1, { B, A, C, S, W }, 5,
	  { { A, B, "next" }, { B, C, "next" }, { B, S, "other" }, { W, B, "referent dashed" } }, 4, NULL, NULL },
	/* D: a static holds it (class t.Holder); the array holds C twice */
	{ D, 1, 0, 0, { D, C_HOLDER, C, ARR, Z }, 5,
	  { { C_HOLDER, D, "static CACHE" }, { C, D, "next" }, { D, Z, "next" }, { ARR, C, "[0] +1 more" },
	    { ARR, D, "[2]" } }, 5, "[label=\"class t.Holder\\n", NULL },
	/* K holds its class in a field: that reference is drawn, and walked */
	{ K, 2, 0, 0, { K, C_TYPED, J_OBJECT }, 3,
	  { { K, C_TYPED, "type" }, { C_TYPED, J_OBJECT, "<super>" } }, 2, NULL, NULL },
	/* a class object: its instances' references to it are not walked,
	 * K's field is */
	{ C_NODE, 1, 0, 0, { C_NODE, J_OBJECT }, 2, { { C_NODE, J_OBJECT, "<super>" } }, 1, NULL, NULL },
	{ C_TYPED, 1, 0, 0, { C_TYPED, K, J_OBJECT }, 3,
	  { { K, C_TYPED, "type" }, { C_TYPED, J_OBJECT, "<super>" } }, 2, NULL, NULL },
	/* the bound: B and its level (4 objects) fit 4, a level more does not */
	{ B, 2, 4, 0, { B, A, C, S }, 4, { { A, B, "next" }, { B, C, "next" }, { B, S, "other" } }, 3,
	  "// cut at 4 objects: more lie within depth 2\n", NULL },
	{ B, 2, 4, 0, { B, A, C, S }, 4, { { A, B, "next" }, { B, C, "next" }, { B, S, "other" } }, 3,
	  "\\ncut at 4 objects: more lie within depth 2\"]", NULL },
	/* a class name with a quote, a backslash and a newline: escaped as
	 * the reports escape it, that escaped for dot again; drawn as the
	 * reports show it, on one line */
	{ Z, 1, 0, 0, { Z, D }, 2, { { D, Z, "next" } }, 1, "[label=\"t.Evil\\\"q\\\\\\\\b\\\\nx\\n",
	  ">t.Evil&quot;q\\\\b\\nx</text>" },
};

static void check_case(const char *dot, const struct hcase *c)
{
	char *svg = check_hand(dot, c->nodes, c->nn, c->edges, c->ne);

	ck_assert_msg(c->has == NULL || strstr(dot, c->has) != NULL, "no %s in\n%s", c->has, dot);
	ck_assert_msg(svg == NULL || c->svg_has == NULL || strstr(svg, c->svg_has) != NULL, "no %s in\n%s",
		      c->svg_has, svg);
	free(svg);
}

START_TEST(hand_graphs)
{
	struct table t;
	struct heap h;
	char *path;
	int rc;

	hand_table(&t);
	open_table(&h, &t, "hand.hprof", &path);
	for (size_t i = 0; i < sizeof hand_cases / sizeof hand_cases[0]; i++) {
		const struct hcase *c = &hand_cases[i];
		char *dot = graph_one(&h, c->x, c->depth, c->max, c->weak, &rc);
		ck_assert_int_eq(rc, c->max != 0);
		check_case(dot, c);
		free(dot);
	}
	heap_free(&h);
	free(path);
}
END_TEST

/* ---- the command line ---- */

/* heapwalk ARGS REDIRECTION: its output; the status in *st. */
static char *cli(const char *args, const char *redir, int *st)
{
	char cmd[2048];

	snprintf(cmd, sizeof cmd, "%s %s %s", heapwalk(), args, redir);
	return run(cmd, st);
}
#define QUIET "2>/dev/null"
#define BOTH "2>&1"
#define ERR "2>&1 >/dev/null"

START_TEST(command_line)
{
	struct table t;
	struct heap h;
	char *path, args[1024], out[600];
	int st;

	hand_table(&t);
	open_table(&h, &t, "hand.hprof", &path);
	heap_free(&h);
	snprintf(out, sizeof out, "%s.dot", path);
	/* graph -e ... -d 2 -o FILE: the file holds the graph, stdout nothing */
	snprintf(args, sizeof args, "-q graph '%s' -e 'object %s' -d 2 -o '%s'", path, hid(B), out);
	char *o = cli(args, BOTH, &st);
	ck_assert_msg(st == 0 && *o == '\0', "%s: %s", args, o);
	free(o);
	snprintf(args, sizeof args, "cat '%s'", out);
	char *dot = run(args, &st);
	check_case(dot, &hand_cases[2]);
	free(dot);
	/* graph DUMP OBJECT and '... | graph' say the same as -e, depth 1 */
	snprintf(args, sizeof args, "-q graph '%s' %s", path, hid(B));
	dot = cli(args, QUIET, &st);
	snprintf(args, sizeof args, "-q '%s' -e 'object %s | graph'", path, hid(B));
	o = cli(args, QUIET, &st);
	ck_assert_msg(st == 0 && strcmp(dot, o) == 0, "%s\n%s", dot, o);
	check_case(dot, &hand_cases[0]);
	free(o);
	free(dot);
	/* -w; --max: the cut said on stderr in one line */
	snprintf(args, sizeof args, "-w graph '%s' %s", path, hid(B));
	dot = cli(args, QUIET, &st);
	ck_assert_msg(st == 0 && strstr(dot, "\" [label=\"referent\", style=dashed];\n") != NULL, "%s", dot);
	free(dot);
	snprintf(args, sizeof args, "-q --max 4 -d 2 graph '%s' %s", path, hid(B));
	o = cli(args, ERR, &st);
	ck_assert_msg(st == 0 && *o == '\0', "-q: %s", o);
	free(o);
	snprintf(args, sizeof args, "--max 4 -d 2 graph '%s' %s", path, hid(B));
	o = cli(args, ERR, &st);
	ck_assert_str_eq(o, "heapwalk: graph: cut at 4 objects, more lie within depth 2 (--max N draws more)\n");
	free(o);
	/* -f dot only for the graphs, graph only in dot: one line, status 1 */
	snprintf(args, sizeof args, "-f dot classes '%s'", path);
	o = cli(args, BOTH, &st);
	ck_assert_msg(WEXITSTATUS(st) == 1 && strstr(o, "-f dot goes with graph, paths and merged-*") != NULL &&
		      strchr(o, '\n') == o + strlen(o) - 1, "%s", o);
	free(o);
	snprintf(args, sizeof args, "-f csv graph '%s' %s", path, hid(B));
	o = cli(args, BOTH, &st);
	ck_assert_msg(WEXITSTATUS(st) == 1 && strstr(o, "not graph") != NULL && strchr(o, '\n') == o + strlen(o) - 1,
		      "%s", o);
	free(o);
	/* rules writes a rules file's lines, text alone: -f json was taken
	 * and text written (a trial's script failed to parse it) */
	for (int k = 0; k < 2; k++) {
		o = cli(k ? "-f csv rules" : "-f json rules", BOTH, &st);
		ck_assert_msg(WEXITSTATUS(st) == 1 && strstr(o, "-f json and csv go with the views that are tables, "
								"not rules") != NULL &&
			      strchr(o, '\n') == o + strlen(o) - 1, "%s", o);
		free(o);
	}
	o = cli("-f text rules", QUIET, &st);
	ck_assert_msg(WEXITSTATUS(st) == 0 && strncmp(o, "group ", 6) == 0, "%s", o);
	free(o);
	/* mark and snapshot write text alone too, and say so before any
	 * process is looked for (a PID that names none here) */
	o = cli("mark -f json 2147483646", BOTH, &st);
	ck_assert_msg(WEXITSTATUS(st) == 1 && strstr(o, "go with the views that are tables, not mark") != NULL, "%s", o);
	free(o);
	o = cli("-f csv snapshot 2147483646 /nonexistent/x.hprof", BOTH, &st);
	ck_assert_msg(WEXITSTATUS(st) == 1 && strstr(o, "go with the views that are tables, not snapshot") != NULL, "%s",
		      o);
	free(o);
	/* a regex option followed by another option takes no option for its
	 * regex (a trial: --exact -n 10 said only that 10 was unexpected);
	 * one that begins with '-' goes as --exact=REGEX */
	snprintf(args, sizeof args, "classes '%s' --exact -n 10", path);
	o = cli(args, BOTH, &st);
	ck_assert_msg(WEXITSTATUS(st) == 1 && strstr(o, "--exact takes a regex, not the option '-n' (--exact=REGEX for "
							"one that begins with '-')") != NULL, "%s", o);
	free(o);
	snprintf(args, sizeof args, "-q classes '%s' --filter=-x -n 10", path);
	o = cli(args, BOTH, &st);
	ck_assert_msg(WEXITSTATUS(st) == 0 && strstr(o, "objects:") != NULL, "%s", o);
	free(o);
	free(path);
}
END_TEST

/* paths -f dot: D's one shortest path, A -other-> ARR -[2]-> D (C's way
 * is a step longer; the static's class is no GC root); merged-in -f dot:
 * a group node per row of its CSV, each row's field on its edge. */
START_TEST(paths_and_merged)
{
	struct table t;
	struct heap h;
	char *path, args[1024];
	int st;

	hand_table(&t);
	open_table(&h, &t, "hand.hprof", &path);
	heap_free(&h);
	snprintf(args, sizeof args, "-q -f dot paths '%s' %s", path, hid(D));
	char *dot = cli(args, QUIET, &st);
	ck_assert_int_eq(st, 0);
	struct parsed g;
	parse_dot(dot, &g);
	char want[256];
	snprintf(want, sizeof want, "%s root\n%s member\n%s\n", hid(A), hid(D), hid(ARR));
	same_lines(g.nodes.buf, want, "path nodes", dot);
	snprintf(want, sizeof want, "%s -> %s other\n%s -> %s [2]\n", hid(A), hid(ARR), hid(ARR), hid(D));
	same_lines(g.edges.buf, want, "path edges", dot);
	free(render(dot, g.n));
	parsed_free(&g);
	free(dot);

	/* the class whose static refers to D is no GC root: its reference
	 * counts with --keep-unreachable only (by default garbage holds
	 * nothing, tests/test_garbage.c) */
	snprintf(args, sizeof args, "-q --keep-unreachable -f csv --by field merged-in '%s' -e 'object %s'",
		 path, hid(D));
	char *csv = cli(args, QUIET, &st);
	snprintf(args, sizeof args, "-q --keep-unreachable -f dot --by field merged-in '%s' -e 'object %s'",
		 path, hid(D));
	dot = cli(args, QUIET, &st);
	ck_assert_int_eq(st, 0);
	size_t rows = 0, groups = 0;
	for (const char *l = strchr(csv, '\n') + 1; *l; l = strchr(l, '\n') + 1) {
		char field[64], *f = field;
		rows++;
		/* depth,class,field,...: the field's edge into the set */
		ck_assert_msg(sscanf(l, "0,%*[^,],%63[^,],", field) == 1, "%s", csv);
		if (*f == '"') { /* CSV quotes a field with a blank */
			f++;
			f[strlen(f) - 1] = '\0';
		}
		snprintf(want, sizeof want, "\"g%zu\" -> \"set\" [label=\"%s\"];\n", rows, f);
		ck_assert_msg(strstr(dot, want) != NULL, "no %s in\n%s\n%s", want, dot, csv);
	}
	for (const char *p = dot; (p = strstr(p, "\t\"g")) != NULL; p++)
		groups += strstr(p, "\" [label=") == strchr(p + 2, '"');
	ck_assert_msg(rows == 3 && groups == rows, "%zu rows, %zu groups\n%s\n%s", rows, groups, csv, dot);
	free(render(dot, groups + 1));
	free(csv);
	free(dot);
	free(path);
}
END_TEST

/* ---- a JVM's dump ---- */

/* The id (char[32]) of the one instance of cls in the dump. */
static void one_id(const char *dump, const char *cls, char *id)
{
	char args[1024];
	int st;

	snprintf(args, sizeof args, "-q -f csv '%s' -e 'instances %s | objects'", dump, cls);
	char *out = cli(args, QUIET, &st), *p = strchr(out, '\n');
	ck_assert_msg(st == 0 && p != NULL && sscanf(p + 1, "%31[0-9a-fx]", id) == 1, "%s", out);
	ck_assert_msg(strchr(p + 1, '\n')[1] == '\0', "more than one %s: %s", cls, out);
	free(out);
}

/* Between.java: A -b-> B -c-> C, the static Between.ROOT -> A. B's graph
 * at depth 1 is A, B, C; at depth 2 also the class Between (C holds
 * nothing but its class, which is not walked). */
START_TEST(jvm_chain)
{
	char dump[512], a[32], b[32], c[32], cls[32], args[1024], want[512];
	int st;

	workload_dump("Between", "between", "-Xmx64m", dump, sizeof dump);
	one_id(dump, "Between$A", a);
	one_id(dump, "Between$B", b);
	one_id(dump, "Between$C", c);
	/* the class object of Between, by its label among the classes (CSV
	 * quotes it: a blank) */
	snprintf(args, sizeof args, "-q -f csv -n 0 '%s' -e 'instances java.lang.Class | objects'", dump);
	char *o = cli(args, QUIET, &st), *p = strstr(o, ",\"class Between\",");
	ck_assert_msg(st == 0 && p != NULL, "%s", o);
	while (p > o && p[-1] != '\n')
		p--;
	ck_assert_int_eq(sscanf(p, "%31[0-9a-fx]", cls), 1);
	free(o);
	for (int depth = 1; depth <= 2; depth++) {
		snprintf(args, sizeof args, "-q -d %d graph '%s' %s", depth, dump, b);
		char *dot = cli(args, QUIET, &st);
		ck_assert_int_eq(st, 0);
		struct parsed g;
		parse_dot(dot, &g);
		struct sbuf ids;
		sbuf_init(&ids);
		for (const char *l = g.nodes.buf; *l; l = strchr(l, '\n') + 1) {
			sbuf_add(&ids, l, strcspn(l, " \n"));
			sbuf_addc(&ids, '\n');
		}
		snprintf(want, sizeof want, "%s\n%s\n%s\n", a, b, c);
		if (depth == 2) /* ROOT's class: Between, found by its static */
			snprintf(want + strlen(want), sizeof want - strlen(want), "%s\n", cls);
		same_lines(ids.buf, want, "nodes", dot);
		snprintf(want, sizeof want, "%s -> %s b\n%s -> %s c\n", a, b, b, c);
		if (depth == 2)
			snprintf(want + strlen(want), sizeof want - strlen(want), "%s -> %s static ROOT\n", cls, a);
		same_lines(g.edges.buf, want, "edges", dot);
		ck_assert_msg(strstr(dot, "[label=\"Between$B\\n") != NULL, "%s", dot);
		free(render(dot, g.n));
		sbuf_free(&ids);
		parsed_free(&g);
		free(dot);
	}
}
END_TEST

Suite *dot_suite(void)
{
	Suite *s = suite_create("dot");
	TCase *tc = tcase_create("graphs"), *jvm = tcase_create("jvm");

	tcase_set_timeout(tc, HANG_TIMEOUT);
	tcase_add_test(tc, random_graphs);
	tcase_add_test(tc, hand_graphs);
	tcase_add_test(tc, command_line);
	tcase_add_test(tc, paths_and_merged);
	tcase_set_timeout(jvm, FIXTURE_TIMEOUT);
	tcase_add_test(jvm, jvm_chain);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, jvm);
	return s;
}
