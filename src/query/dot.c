/* dot.c — GraphViz dot for a set's neighbourhood, for paths to GC roots
 * and for merged reference trees, see dot.h. */
#include "query/dot.h"

#include <stdlib.h>
#include <string.h>

#include "graph/reach.h"
#include "graph/reader.h"

enum { K_STRONG, K_WEAK, K_INCIDENTAL }; /* a reference's kind: its edge's style */

/* ---- dot text ---- */

/* Text inside a dot string: quotes and backslashes escaped (dot reads
 * "\n", "\l", "\N"... in a label as its own), '&' as an entity (dot
 * reads "&lt;" in a label as '<'). */
static void dot_text(struct sbuf *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '&') {
			sbuf_adds(out, "&amp;");
			continue;
		}
		if (s[i] == '"' || s[i] == '\\')
			sbuf_addc(out, '\\');
		sbuf_addc(out, s[i]);
	}
}

/* Raw text from the dump inside a dot string: escaped as the reports
 * escape it first, so a newline in a class name reads "\n" in the
 * picture instead of breaking the line. */
static void dot_raw(struct sbuf *out, const char *s, size_t n)
{
	struct sbuf e;

	sbuf_init(&e);
	esc_append(&e, (const uint8_t *)s, n, 0);
	dot_text(out, e.buf, e.len);
	sbuf_free(&e);
}

/* "digraph NAME {" and the defaults; the graph's label is ours (no
 * dump text), lines apart by '\n'. */
static void dot_begin(struct sbuf *out, const char *name, const char *label)
{
	sbuf_printf(out, "digraph \"%s\" {\n\tgraph [labelloc=t, fontname=\"Helvetica\", label=\"", name);
	for (const char *p = label; *p; p++)
		if (*p == '\n')
			sbuf_adds(out, "\\n");
		else
			dot_text(out, p, 1);
	sbuf_adds(out, "\"];\n"
		  "\tnode [shape=box, fontname=\"Helvetica\", fontsize=10];\n"
		  "\tedge [fontname=\"Helvetica\", fontsize=9];\n");
}

static void dot_edge_style(struct sbuf *out, int kind)
{
	if (kind == K_WEAK)
		sbuf_adds(out, ", style=dashed");
	else if (kind == K_INCIDENTAL)
		sbuf_adds(out, ", style=dotted");
}

/* ---- objects ---- */

/* Is v a GC root, or with an analysis root that root? Not the pseudo
 * roots the engine adds for unreachable and weakly reachable objects. */
static int is_root(const struct heap *h, node_t v)
{
	if (h->aroot != 0)
		return v == h->aroot;
	for (size_t i = lower_bound_u32s(h->root_rec, h->nroot_rec, sizeof *h->root_rec, v);
	     i < h->nroot_rec && h->root_rec[i].node == v; i++)
		if (h->root_rec[i].kind != RK_WEAK_ONLY && h->root_rec[i].kind != RK_UNREACHABLE)
			return 1;
	return 0;
}

/* "GC root: global handle: JNI global, stack: Java frame": the kinds
 * of v's root records, each once, in the label; the whole of
 * root_label in the tooltip. */
static void root_kinds(const struct heap *h, node_t v, struct sbuf *out)
{
	size_t first = lower_bound_u32s(h->root_rec, h->nroot_rec, sizeof *h->root_rec, v);

	if (h->aroot != 0) {
		sbuf_adds(out, "\\nanalysis root");
		return;
	}
	sbuf_adds(out, "\\nGC root: ");
	struct sbuf name;
	sbuf_init(&name);
	for (size_t i = first, said = 0; i < h->nroot_rec && h->root_rec[i].node == v; i++) {
		const struct root *r = &h->root_rec[i];
		size_t j = first;
		while (j < i && (h->root_rec[j].kind != r->kind || h->root_rec[j].native != r->native))
			j++;
		if (j < i || r->kind >= RK_WEAK_ONLY)
			continue; /* said already, or no root */
		if (said++ > 0)
			sbuf_adds(out, ", ");
		sbuf_reset(&name);
		heap_root_kind(h, r->kind, r->native, &name);
		dot_raw(out, name.buf, name.len);
	}
	sbuf_free(&name);
}

/* One object's node: class, a String's text, id, sizes, its roots. */
static void object_node(const struct heap *h, node_t v, int member, struct sbuf *out)
{
	struct sbuf t;
	char id[32], shallow[32], retained[32];
	int root = is_root(h, v);

	sbuf_init(&t);
	node_id_text(h, v, id, sizeof id);
	sbuf_printf(out, "\t\"%s\" [label=\"", id);
	node_label(h, v, &t);
	dot_raw(out, t.buf, t.len);
	sbuf_reset(&t);
	if (node_string(h, v, &t, 40) == 0) {
		sbuf_adds(out, "\\n\\\"");
		dot_raw(out, t.buf, t.len);
		sbuf_adds(out, "\\\"");
	}
	fmt_bytes(shallow, sizeof shallow, h->node_shallow[v]);
	sbuf_printf(out, "\\n%s\\n%s", id, shallow);
	if (h->retained != NULL) {
		fmt_bytes(retained, sizeof retained, h->retained[v]);
		sbuf_printf(out, ", retained %s", retained);
	}
	if (root)
		root_kinds(h, v, out);
	sbuf_addc(out, '"');
	if (member)
		sbuf_adds(out, ", style=\"filled,bold\", fillcolor=\"#ffe9a8\"");
	if (root) {
		sbuf_reset(&t);
		root_label(h, v, &t);
		sbuf_adds(out, ", shape=octagon, color=\"#b03030\", tooltip=\"");
		dot_raw(out, t.buf, t.len);
		sbuf_addc(out, '"');
	}
	sbuf_adds(out, "];\n");
	sbuf_free(&t);
}

/* ---- a graph of objects: nodes and references, then its text ---- */

struct dnode { node_t v; int member; };
struct dedge { node_t src, dst; int kind; unsigned count; };
struct dgraph {
	struct dnode *node;
	size_t n, cap;
	struct dedge *edge;
	size_t ne, cape;
};

static void dgraph_node(struct dgraph *g, node_t v, int member)
{
	VEC_GROW(g->node, g->n, g->cap);
	g->node[g->n++] = (struct dnode){ v, member };
}

static void dgraph_edge(struct dgraph *g, node_t src, node_t dst, int kind)
{
	VEC_GROW(g->edge, g->ne, g->cape);
	g->edge[g->ne++] = (struct dedge){ src, dst, kind, 1 };
}

static void dgraph_free(struct dgraph *g)
{
	free(g->node);
	free(g->edge);
	memset(g, 0, sizeof *g);
}

static int cmp_dnode(const void *a, const void *b)
{
	const struct dnode *x = a, *y = b;

	return x->v < y->v ? -1 : x->v > y->v;
}

static int cmp_dedge(const void *a, const void *b)
{
	const struct dedge *x = a, *y = b;

	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	return x->kind - y->kind;
}

/* In node order, each object once (a member if any copy is); each
 * reference of a kind once, counting the copies (two fields, one
 * target). */
static void dgraph_sort(struct dgraph *g)
{
	size_t k = 0;

	hw_qsort(g->node, g->n, sizeof *g->node, cmp_dnode);
	for (size_t i = 0; i < g->n; i++)
		if (k > 0 && g->node[k - 1].v == g->node[i].v)
			g->node[k - 1].member |= g->node[i].member;
		else
			g->node[k++] = g->node[i];
	g->n = k;
	hw_qsort(g->edge, g->ne, sizeof *g->edge, cmp_dedge);
	k = 0;
	for (size_t i = 0; i < g->ne; i++)
		if (k > 0 && cmp_dedge(&g->edge[k - 1], &g->edge[i]) == 0)
			g->edge[k - 1].count++;
		else
			g->edge[k++] = g->edge[i];
	g->ne = k;
}

/* A reference: labelled as the views name it, "+1 more" for copies. */
static void object_edge(const struct heap *h, const struct dedge *e, struct sbuf *out)
{
	struct sbuf t;
	char a[32], b[32];

	sbuf_init(&t);
	node_id_text(h, e->src, a, sizeof a);
	node_id_text(h, e->dst, b, sizeof b);
	edge_label(h, e->src, e->dst, &t);
	sbuf_printf(out, "\t\"%s\" -> \"%s\" [label=\"", a, b);
	dot_raw(out, t.buf, t.len);
	if (e->count > 1) /* the label names the first */
		sbuf_printf(out, " +%u more", e->count - 1);
	sbuf_addc(out, '"');
	dot_edge_style(out, e->kind);
	sbuf_adds(out, "];\n");
	sbuf_free(&t);
}

/* The graph, sorted (dgraph_sort) already. */
static void dgraph_write(const struct heap *h, const struct dgraph *g, const char *name, const char *label,
			 struct sbuf *out)
{
	dot_begin(out, name, label);
	for (size_t i = 0; i < g->n; i++)
		object_node(h, g->node[i].v, g->node[i].member, out);
	for (size_t i = 0; i < g->ne; i++)
		object_edge(h, &g->edge[i], out);
	sbuf_adds(out, "}\n");
}

/* ---- the neighbourhood of a set ---- */

/* The objects drawn so far, each with the directions it was walked in
 * (bit 0 out, bit 1 in): an open-addressing table, as the graph is a few
 * hundred objects of a heap of millions. */
struct nodemap {
	node_t *key;    /* 0: a free slot (node 0 is never drawn) */
	uint8_t *dirs;
	size_t cap, n;
};

static size_t map_slot(const struct nodemap *m, node_t v)
{
	size_t i = (size_t)(v * 2654435761u) & (m->cap - 1);

	while (m->key[i] != 0 && m->key[i] != v)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static void map_grow(struct nodemap *m)
{
	struct nodemap old = *m;

	m->cap = old.cap ? old.cap * 2 : 256;
	m->key = xcalloc(m->cap, sizeof *m->key);
	m->dirs = xcalloc(m->cap, sizeof *m->dirs);
	for (size_t i = 0; i < old.cap; i++)
		if (old.key[i] != 0) {
			size_t j = map_slot(m, old.key[i]);
			m->key[j] = old.key[i];
			m->dirs[j] = old.dirs[i];
		}
	free(old.key);
	free(old.dirs);
}

/* v's directions, its slot in *at; -1 if v is not drawn. */
static int map_get(const struct nodemap *m, node_t v, size_t *at)
{
	if (m->cap == 0)
		return -1;
	*at = map_slot(m, v);
	return m->key[*at] == v ? m->dirs[*at] : -1;
}

static size_t map_add(struct nodemap *m, node_t v)
{
	if (2 * (m->n + 1) > m->cap)
		map_grow(m);
	size_t i = map_slot(m, v);
	m->key[i] = v;
	m->n++;
	return i;
}

struct walk {
	const struct heap *h;
	struct nodemap m;
	node_t *order;        /* the objects drawn, as they came */
	size_t n, cap, max;
	node_t *front[2], *next[2]; /* out, in: the level walked, the next one */
	size_t nfront[2], nnext[2], capfront[2], capnext[2];
	struct dref { node_t dst; int kind; } *refs; /* refs_out's */
	size_t nrefs, caprefs;
	int weak, cut;
};

/* v reached walking in direction dir: drawn (unless the bound is
 * reached: then the walk is cut) and walked on from at the next level. */
static void visit(struct walk *w, node_t v, int dir)
{
	size_t at;
	int d = map_get(&w->m, v, &at);

	if (w->cut || v == 0 || (d >= 0 && (d >> dir & 1)))
		return;
	if (d < 0) {
		if (w->n == w->max) {
			w->cut = 1;
			return;
		}
		at = map_add(&w->m, v);
		VEC_GROW(w->order, w->n, w->cap);
		w->order[w->n++] = v;
	}
	w->m.dirs[at] |= (uint8_t)(1u << dir);
	VEC_GROW(w->next[dir], w->nnext[dir], w->capnext[dir]);
	w->next[dir][w->nnext[dir]++] = v;
}

/* How weak reference i is followed: a strong one the analyses' focus
 * moved (WEAK_OUTSIDE) as strong, one left out never, the others as
 * weak with `weak`; -1: not. */
static int weak_kind(const struct heap *h, uint64_t i, int weak)
{
	if (weak_moved(h, i))
		return K_STRONG;
	return weak && !weak_left_out(h, i) ? K_WEAK : -1;
}

static void ref_add(struct walk *w, node_t dst, int kind)
{
	VEC_GROW(w->refs, w->nrefs, w->caprefs);
	w->refs[w->nrefs++] = (struct dref){ dst, kind };
}

/* v's references followed, into w->refs: the strong ones, the weak ones
 * as weak_kind says; not the one to its class object (graph/reach.h),
 * once, wherever an analysis root moved it. The incidental ones are a
 * pass over them all (walk_level, walk_edges). */
static void refs_out(struct walk *w, node_t v)
{
	const struct heap *h = w->h;
	node_t cn = reach_class_ref(h, v);
	int skipped = 0;

	w->nrefs = 0;
	for (edge_t j = h->out_start[v]; j < h->out_start[v + 1]; j++)
		if (h->out[j] == cn && !skipped)
			skipped = 1;
		else
			ref_add(w, h->out[j], K_STRONG);
	for (uint64_t k = heap_weak_first(h, v); k < h->nweak && h->weak_src[k] == v; k++) {
		int kind = weak_kind(h, k, w->weak);
		if (kind >= 0 && h->weak_dst[k] == cn && !skipped)
			skipped = 1;
		else if (kind >= 0)
			ref_add(w, h->weak_dst[k], kind);
	}
}

/* Is u -> v the reference of an object to its class, not a field's? */
static int class_only(const struct heap *h, node_t u, node_t v)
{
	return reach_class_ref(h, u) == v && !reach_class_held(h, u, v);
}

/* Is v in the sorted array a[0..n)? */
static int in_sorted(const node_t *a, size_t n, node_t v)
{
	size_t i = lower_bound_u32(a, n, v);

	return i < n && a[i] == v;
}

/* One level further, out then in: the references of each object of the
 * level, then those whose other end is not sorted (a pass over each). */
static void walk_level(struct walk *w)
{
	const struct heap *h = w->h;

	for (size_t i = 0; i < w->nfront[0]; i++) {
		refs_out(w, w->front[0][i]);
		for (size_t k = 0; k < w->nrefs; k++)
			visit(w, w->refs[k].dst, 0);
	}
	for (size_t i = 0; i < w->nfront[1]; i++) {
		node_t v = w->front[1][i];
		for (edge_t j = h->in_start[v]; j < h->in_start[v + 1]; j++)
			if (h->in[j] != 0 && !class_only(h, h->in[j], v))
				visit(w, h->in[j], 1);
		for (size_t k = lower_bound_u32(h->rx_dst, h->nrx, v); k < h->nrx && h->rx_dst[k] == v; k++)
			visit(w, h->rx_src[k], 1);
	}
	sort_u32(w->front[0], w->nfront[0]);
	sort_u32(w->front[1], w->nfront[1]);
	for (uint64_t k = 0; k < h->nrx; k++)
		if (in_sorted(w->front[0], w->nfront[0], h->rx_src[k]))
			visit(w, h->rx_dst[k], 0);
	for (uint64_t k = 0; k < h->nweak; k++) {
		int kind = weak_kind(h, k, w->weak);
		node_t u = h->weak_src[k], v = h->weak_dst[k];
		if (kind >= 0 && in_sorted(w->front[1], w->nfront[1], v) && !(kind == K_STRONG && class_only(h, u, v)))
			visit(w, u, 1);
	}
}

/* The next level becomes the one walked. */
static void walk_advance(struct walk *w)
{
	for (int d = 0; d < 2; d++) {
		node_t *t = w->front[d];
		size_t c = w->capfront[d];
		w->front[d] = w->next[d];
		w->capfront[d] = w->capnext[d];
		w->nfront[d] = w->nnext[d];
		w->next[d] = t;
		w->capnext[d] = c;
		w->nnext[d] = 0;
	}
}

/* Every reference between two objects drawn, of the kinds followed. */
static void walk_edges(struct walk *w, struct dgraph *g)
{
	const struct heap *h = w->h;
	size_t at;

	for (size_t i = 0; i < w->n; i++) {
		refs_out(w, w->order[i]);
		for (size_t k = 0; k < w->nrefs; k++)
			if (map_get(&w->m, w->refs[k].dst, &at) >= 0)
				dgraph_edge(g, w->order[i], w->refs[k].dst, w->refs[k].kind);
	}
	for (uint64_t k = 0; k < h->nrx; k++)
		if (map_get(&w->m, h->rx_src[k], &at) >= 0 && map_get(&w->m, h->rx_dst[k], &at) >= 0)
			dgraph_edge(g, h->rx_src[k], h->rx_dst[k], K_INCIDENTAL);
}

static void walk_free(struct walk *w)
{
	free(w->m.key);
	free(w->m.dirs);
	free(w->order);
	free(w->refs);
	for (int d = 0; d < 2; d++) {
		free(w->front[d]);
		free(w->next[d]);
	}
}

/* The graph's label: what it shows, and where the bound cut it. */
static void graph_label(const struct walk *w, const struct objset *set, size_t members, unsigned depth,
			struct sbuf *out)
{
	sbuf_printf(out, "%zu object%s: ", w->n, w->n == 1 ? "" : "s");
	if (members < set->count)
		sbuf_printf(out, "the first %zu of the set's %llu", members, (unsigned long long)set->count);
	else
		sbuf_printf(out, "the set's %zu", members);
	if (depth > 0)
		sbuf_printf(out, " and what lies within %u reference%s out and in", depth, depth == 1 ? "" : "s");
	if (w->weak)
		sbuf_adds(out, ", weak references too");
	if (w->cut)
		sbuf_printf(out, "\ncut at %zu objects: more lie within depth %u", w->max, depth);
}

int graph_dot(const struct heap *h, const struct objset *set, unsigned depth, size_t max_nodes, int weak,
	      struct sbuf *out, struct sbuf *err)
{
	struct walk w = { .h = h, .max = max_nodes ? max_nodes : GRAPH_MAX_NODES, .weak = weak };
	struct dgraph g = { 0 };
	struct sbuf label;

	if (set->count == 0) {
		sbuf_adds(err, "graph: the set is empty, no object to draw");
		return -1;
	}
	/* the set first, in node order: level 0 of both walks */
	for (node_t v = 1; v < h->n && !w.cut; v++)
		if (objset_has(set, v)) {
			visit(&w, v, 0);
			visit(&w, v, 1);
		}
	size_t members = w.n;
	for (unsigned d = 0; d < depth && !w.cut && (w.nnext[0] > 0 || w.nnext[1] > 0); d++) {
		walk_advance(&w);
		walk_level(&w);
	}
	walk_edges(&w, &g);
	for (size_t i = 0; i < w.n; i++)
		dgraph_node(&g, w.order[i], i < members);
	sbuf_init(&label);
	graph_label(&w, set, members, depth, &label);
	if (w.cut)
		sbuf_printf(out, "// cut at %zu objects: more lie within depth %u\n", w.max, depth);
	dgraph_sort(&g);
	dgraph_write(h, &g, "heapwalk graph", label.buf, out);
	sbuf_free(&label);
	dgraph_free(&g);
	walk_free(&w);
	return w.cut;
}

/* ---- paths to GC roots ---- */

/* Does a hold b by a strong reference (else a weak one led there)? */
static int holds_strong(const struct heap *h, node_t a, node_t b)
{
	for (edge_t j = h->in_start[b]; j < h->in_start[b + 1]; j++)
		if (h->in[j] == a)
			return 1;
	return 0;
}

void dot_paths(const struct heap *h, const struct path_view *v, struct sbuf *out)
{
	struct dgraph g = { 0 };
	struct sbuf label;
	char id[32];

	dgraph_node(&g, v->target, 1);
	for (size_t p = 0; p < v->npaths; p++)
		for (size_t s = v->start[p]; s < v->start[p + 1]; s++) {
			node_t x = v->nodes[s];
			dgraph_node(&g, x, x == v->target);
			if (s + 1 < v->start[p + 1])
				dgraph_edge(&g, x, v->nodes[s + 1],
					    holds_strong(h, x, v->nodes[s + 1]) ? K_STRONG : K_WEAK);
		}
	sbuf_init(&label);
	node_id_text(h, v->target, id, sizeof id);
	if (v->npaths > 0) {
		sbuf_printf(&label, "%zu shortest path%s from %s to %s", v->npaths, v->npaths == 1 ? "" : "s",
			    h->aroot != 0 ? "the analysis root" : "GC roots", id);
	} else {
		const char *why = unreached_why(h, v->pseudo);
		sbuf_printf(&label, "no path to %s: %s", id, why != NULL ? why : "no GC root holds it");
	}
	sbuf_adds(&label, v->weak ? "\nweak references followed (dashed)" : "\nstrong references only");
	/* the edges are the hops themselves: each once, not counted again */
	dgraph_sort(&g);
	for (size_t i = 0; i < g.ne; i++)
		g.edge[i].count = 1;
	dgraph_write(h, &g, "heapwalk paths", label.buf, out);
	sbuf_free(&label);
	dgraph_free(&g);
}

/* ---- merged reference trees ---- */

/* A group's node "gI": its class (or the GC roots), objects, shallow
 * bytes, reached, and the chain folded into it. */
static void group_node(const struct heap *h, const struct merged_row *r, size_t i, struct sbuf *out)
{
	char shallow[32];

	sbuf_printf(out, "\t\"g%zu\" [label=\"", i + 1);
	if (mg_root_group(r->cls)) {
		sbuf_adds(out, merged_cls_name(h, r->cls));
	} else {
		const char *cn = class_name(h, r->cls);
		dot_raw(out, cn, strlen(cn));
		fmt_bytes(shallow, sizeof shallow, r->shallow);
		sbuf_printf(out, "\\n%llu object%s, %s", (unsigned long long)r->count, r->count == 1 ? "" : "s",
			    shallow);
	}
	sbuf_printf(out, "\\nreached %llu", (unsigned long long)r->nreached);
	if (r->chain > 0)
		sbuf_printf(out, "\\n%lld more in a chain", (long long)r->chain);
	sbuf_addc(out, '"');
	if (r->cls == MG_ROOT)
		sbuf_adds(out, ", shape=octagon, color=\"#b03030\"");
	else if (mg_root_group(r->cls)) /* no GC root */
		sbuf_adds(out, ", shape=octagon, style=dashed, color=\"#707070\"");
	sbuf_adds(out, "];\n");
}

/* The edge between a row and its parent ("set", "roots" or "gI"), the
 * way the references go; labelled with the row's field. */
static void group_edge(const struct merged_tree *t, const struct merged_row *r, const char *row,
		       const char *parent, struct sbuf *out)
{
	int down = t->kind == MG_OUTGOING || t->reverse; /* parent -> row */
	/* weak holders, holders not owning: styled as such references are elsewhere */
	const char *mark = r->weak == MG_NOT_OWNING ? "(not owning)" : "(weak)";
	int kind = r->weak == MG_NOT_OWNING ? K_INCIDENTAL : K_WEAK;

	sbuf_printf(out, "\t\"%s\" -> \"%s\"", down ? parent : row, down ? row : parent);
	if (r->field != NULL) {
		sbuf_adds(out, " [label=\"");
		dot_raw(out, r->field, strlen(r->field));
		if (r->weak)
			sbuf_printf(out, " %s", mark);
		sbuf_adds(out, "\"");
		if (r->weak)
			dot_edge_style(out, kind);
		sbuf_adds(out, "]");
	} else if (r->weak) {
		sbuf_printf(out, " [label=\"%s\"", mark);
		dot_edge_style(out, kind);
		sbuf_adds(out, "]");
	}
	sbuf_adds(out, ";\n");
}

void dot_merged(const struct heap *h, const char *view, const struct merged_tree *t, struct sbuf *out)
{
	static const char *const what[] = { "what the set refers to", "what refers to the set",
					    "what dominates the set" };
	size_t *parent = xmalloc((t->n + 1) * sizeof *parent), sp = 0; /* the rows above, by depth */
	struct sbuf label;
	char shallow[32], row[32], up[32];

	sbuf_init(&label);
	sbuf_printf(&label, "%s: %s, by %s", view,
		    t->reverse ? "from the GC roots down the dominator tree to the set" : what[t->kind],
		    t->by == MG_BY_CLASS ? "class" : "class and field");
	dot_begin(out, view, label.buf);
	fmt_bytes(shallow, sizeof shallow, t->set_shallow);
	if (t->reverse)
		sbuf_adds(out, "\t\"roots\" [label=\"GC roots\", shape=octagon, color=\"#b03030\"];\n");
	else
		sbuf_printf(out, "\t\"set\" [label=\"the set\\n%llu object%s, %s\", style=\"filled,bold\", "
			    "fillcolor=\"#ffe9a8\"];\n", (unsigned long long)t->set_count,
			    t->set_count == 1 ? "" : "s", shallow);
	for (size_t i = 0; i < t->n; i++)
		group_node(h, &t->rows[i], i, out);
	for (size_t i = 0; i < t->n; i++) {
		const struct merged_row *r = &t->rows[i];
		sp = r->depth < sp ? r->depth : sp;
		snprintf(row, sizeof row, "g%zu", i + 1);
		if (sp == 0)
			snprintf(up, sizeof up, "%s", t->reverse ? "roots" : "set");
		else
			snprintf(up, sizeof up, "g%zu", parent[sp - 1] + 1);
		group_edge(t, r, row, up, out);
		parent[sp++] = i;
	}
	sbuf_adds(out, "}\n");
	sbuf_free(&label);
	free(parent);
}
