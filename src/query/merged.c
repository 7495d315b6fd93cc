/* merged.c — one level of a merged reference tree: the neighbours of a
 * set of objects grouped by class (or class and field), with the set's
 * members that reach each group. See merged.h for the contract.
 *
 * Work is proportional to the references of the set: every neighbour
 * becomes a (group, neighbour) and a (group, member) pair; the pairs are
 * sorted and made unique per group at the end, which also gives the
 * node lists in index order. */
#include "query/merged.h"

#include <stdlib.h>
#include <string.h>

#include "format/hprof.h"

struct pair {
	uint32_t group;
	node_t node;
};

struct pairs {
	struct pair *v;
	size_t n, cap;
};

static void pair_add(struct pairs *p, uint32_t g, node_t v)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 1024;
		p->v = xreallocarray(p->v, p->cap, sizeof *p->v);
	}
	p->v[p->n++] = (struct pair){ g, v };
}

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

/* Group keys: a class and, by field, a label. */
struct key {
	uint32_t cls;
	char *field;
};

struct groups {
	struct key *k;
	size_t n, cap;
	uint32_t *by_cls;      /* by class: class (ncls = MG_ROOT) -> group + 1 */
	uint32_t *hash;        /* by field: open addressing, group + 1 */
	size_t hcap;
};

static uint64_t key_hash(uint32_t cls, const char *f)
{
	uint64_t x = 1469598103934665603ull ^ cls;

	for (; f != NULL && *f; f++)
		x = (x ^ (uint8_t)*f) * 1099511628211ull;
	return x;
}

static uint32_t group_new(struct groups *g, uint32_t cls, const char *field)
{
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 16;
		g->k = xreallocarray(g->k, g->cap, sizeof *g->k);
	}
	g->k[g->n] = (struct key){ cls, field ? xstrdup(field) : NULL };
	return (uint32_t)g->n++;
}

static void rehash(struct groups *g)
{
	size_t cap = g->hcap ? g->hcap * 2 : 64;
	uint32_t *t = xcalloc(cap, sizeof *t);

	for (size_t i = 0; i < g->n; i++) {
		size_t j = key_hash(g->k[i].cls, g->k[i].field) & (cap - 1);
		while (t[j] != 0)
			j = (j + 1) & (cap - 1);
		t[j] = (uint32_t)i + 1;
	}
	free(g->hash);
	g->hash = t;
	g->hcap = cap;
}

static uint32_t group_of(struct groups *g, uint32_t ncls, uint32_t cls, const char *field)
{
	if (field == NULL) {
		uint32_t slot = cls == MG_ROOT ? ncls : cls;
		if (g->by_cls[slot] == 0)
			g->by_cls[slot] = group_new(g, cls, NULL) + 1;
		return g->by_cls[slot] - 1;
	}
	if (2 * (g->n + 1) > g->hcap)
		rehash(g);
	size_t j = key_hash(cls, field) & (g->hcap - 1);
	while (g->hash[j] != 0) {
		struct key *k = &g->k[g->hash[j] - 1];
		if (k->cls == cls && strcmp(k->field, field) == 0)
			return g->hash[j] - 1;
		j = (j + 1) & (g->hcap - 1);
	}
	uint32_t id = group_new(g, cls, field);
	g->hash[j] = id + 1;
	return id;
}

/* ---- neighbours in the view's direction ---- */
struct walk {
	struct heap *h;
	enum merged_kind kind;
	enum merged_by by;
	struct sbuf label;
};

/* The field label of the reference x -> y (or y -> x incoming). */
static const char *label(struct walk *w, node_t src, node_t dst, int direct)
{
	sbuf_reset(&w->label);
	if (!direct) {
		sbuf_adds(&w->label, "<transitive>");
		return w->label.buf;
	}
	hprof_edge_label(w->h, src, dst, &w->label);
	if (w->label.buf[0] == '[') { /* array elements: one group, not one per index */
		sbuf_reset(&w->label);
		sbuf_adds(&w->label, "[]");
	}
	return w->label.buf;
}

static int refers(const struct heap *h, node_t x, node_t y)
{
	for (edge_t j = h->out_start[x]; j < h->out_start[x + 1]; j++)
		if (h->out[j] == y)
			return 1;
	return 0;
}

typedef void (*visit_fn)(void *arg, node_t x, node_t y, const char *field);

/* Calls fn for every neighbour y of x, once per reference (fields only
 * when by field). */
static void neighbours(struct walk *w, node_t x, visit_fn fn, void *arg)
{
	struct heap *h = w->h;
	int byf = w->by == MG_BY_FIELD;

	switch (w->kind) {
	case MG_OUTGOING:
		for (edge_t j = h->out_start[x]; j < h->out_start[x + 1]; j++)
			fn(arg, x, h->out[j], byf ? label(w, x, h->out[j], 1) : NULL);
		break;
	case MG_INCOMING:
		for (edge_t j = h->in_start[x]; j < h->in_start[x + 1]; j++) {
			node_t y = h->in[j];
			fn(arg, x, y, byf && y != 0 ? label(w, y, x, 1) : NULL);
		}
		break;
	case MG_DOMINATING: {
		node_t y = h->idom[x];
		if (y == HW_NONE || y == x)
			break;
		fn(arg, x, y, byf && y != 0 ? label(w, y, x, refers(h, y, x)) : NULL);
		break;
	}
	}
}

/* ---- the closure over a class-recursive chain ---- */
struct closure {
	const struct heap *h;
	uint32_t cls;
	bits_t *in;
	node_t *list;
	size_t n, cap;
};

static void close_visit(void *arg, node_t x, node_t y, const char *field)
{
	struct closure *c = arg;

	(void)x;
	(void)field;
	if (y == 0 || bit_get(c->in, y) || c->h->node_class[y] != c->cls)
		return;
	bit_set(c->in, y);
	if (c->n == c->cap) {
		c->cap *= 2;
		c->list = xreallocarray(c->list, c->cap, sizeof *c->list);
	}
	c->list[c->n++] = y;
}

/* ---- grouping ----
 * By field, a neighbour can be in several groups: (group, node) pairs,
 * sorted and made unique at the end. By class it is in one, so two
 * passes need no pairs (the whole heap's references would be 900 MB of
 * them): the first counts, the second fills, a neighbour taken once
 * (`seen`) and a member once per group (`last`: the last member that
 * reached the group; members come one at a time). */
struct collect {
	const struct heap *h;
	struct groups *g;
	struct pairs nodes, reached;  /* by field */
	const bits_t *in;   /* the closed F */
	uint32_t pcls;
	int pass;           /* 0: pairs (by field); 1: count; 2: fill */
	bits_t *seen;
	node_t *last;
	size_t *cn, *cr;    /* per group: nodes, reached (counts, then fill positions) */
	node_t **gn, **gr;
	size_t cap;         /* of last, cn, cr */
};

static void per_group_grow(struct collect *c)
{
	size_t old = c->cap;

	if (c->g->n <= old)
		return;
	c->cap = c->g->n * 2;
	c->last = xreallocarray(c->last, c->cap, sizeof *c->last);
	c->cn = xreallocarray(c->cn, c->cap, sizeof *c->cn);
	c->cr = xreallocarray(c->cr, c->cap, sizeof *c->cr);
	for (size_t i = old; i < c->cap; i++) {
		c->last[i] = HW_NONE;
		c->cn[i] = c->cr[i] = 0;
	}
}

static void collect_visit(void *arg, node_t x, node_t y, const char *field)
{
	struct collect *c = arg;
	const struct heap *h = c->h;

	if (y != 0 && c->pcls != HW_NONE && h->node_class[y] == c->pcls && bit_get(c->in, y))
		return; /* inside the collapsed chain */
	uint32_t cls = y == 0 ? MG_ROOT : h->node_class[y];
	uint32_t g = group_of(c->g, h->ncls, cls, y == 0 ? NULL : field);
	if (c->pass == 0) {
		if (y != 0) /* the root is no object: its group lists none */
			pair_add(&c->nodes, g, y);
		pair_add(&c->reached, g, x);
		return;
	}
	per_group_grow(c);
	if (c->pass == 1 && y != 0 && !bit_get(c->seen, y)) { /* pass 2 reads `seen` */
		bit_set(c->seen, y);
		c->cn[g]++;
	}
	if (c->last[g] != x) {
		c->last[g] = x;
		if (c->pass == 2)
			c->gr[g][c->cr[g]] = x;
		c->cr[g]++;
	}
}

static int cmp_node(const void *a, const void *b)
{
	node_t x = *(const node_t *)a, y = *(const node_t *)b;

	return x < y ? -1 : x > y;
}

/* Sorted unique nodes of group g from the sorted pairs, from *at on. */
static node_t *take(struct pairs *p, size_t *at, uint32_t g, size_t *n)
{
	size_t i = *at, k = 0;
	node_t *out;

	while (i < p->n && p->v[i].group < g)
		i++;
	size_t start = i;
	while (i < p->n && p->v[i].group == g)
		i++;
	out = xmalloc((i - start + 1) * sizeof *out);
	for (size_t j = start; j < i; j++)
		if (k == 0 || out[k - 1] != p->v[j].node)
			out[k++] = p->v[j].node;
	*at = i;
	*n = k;
	return out;
}

static const struct heap *sort_h;

static int cmp_group(const void *a, const void *b)
{
	const struct merged_group *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->shallow != y->shallow)
		return x->shallow > y->shallow ? -1 : 1;
	const char *nx = x->cls == MG_ROOT ? "" : class_name(sort_h, x->cls);
	const char *ny = y->cls == MG_ROOT ? "" : class_name(sort_h, y->cls);
	int c = strcmp(nx, ny);
	if (c != 0)
		return c;
	return strcmp(x->field ? x->field : "", y->field ? y->field : "");
}

int merged_level(struct heap *h, enum merged_kind kind, enum merged_by by,
		 const node_t *from, size_t nfrom, uint32_t parent_cls,
		 struct merged_level *out, struct progress *p)
{
	struct walk w = { h, kind, by, { 0 } };
	struct closure c = { h, parent_cls, NULL, NULL, 0, 0 };
	struct groups g = { 0 };
	struct collect col = { 0 };
	int rc = 0;

	memset(out, 0, sizeof *out);
	sbuf_init(&w.label);
	c.in = xcalloc(bits_words(h->n), sizeof *c.in);
	c.cap = nfrom + 16;
	c.list = xmalloc(c.cap * sizeof *c.list);
	for (size_t i = 0; i < nfrom; i++)
		if (!bit_get(c.in, from[i])) {
			bit_set(c.in, from[i]);
			c.list[c.n++] = from[i];
		}
	size_t base = c.n;
	progress_begin(p, "merged references", nfrom, "objects");
	if (parent_cls != HW_NONE) { /* close F over steps to the same class */
		struct walk cw = { h, kind, MG_BY_CLASS, { 0 } };
		for (size_t i = 0; i < c.n; i++) {
			neighbours(&cw, c.list[i], close_visit, &c);
			if ((i & 0xffff) == 0xffff && (progress_update(p, i), progress_cancelled(p))) {
				rc = -1;
				break;
			}
		}
	}
	out->chain = c.n - base;
	g.by_cls = xcalloc((size_t)h->ncls + 1, sizeof *g.by_cls);
	col.h = h;
	col.g = &g;
	col.in = c.in;
	col.pcls = parent_cls;
	col.pass = by == MG_BY_FIELD ? 0 : 1;
	if (col.pass == 1)
		col.seen = xcalloc(bits_words(h->n), sizeof *col.seen);
	for (;;) {
		for (size_t i = 0; i < c.n && rc == 0; i++) {
			neighbours(&w, c.list[i], collect_visit, &col);
			if ((i & 0xffff) == 0xffff && (progress_update(p, i), progress_cancelled(p)))
				rc = -1;
		}
		if (col.pass != 1 || rc != 0)
			break;
		/* counted: make room, then the same walk fills */
		per_group_grow(&col);
		col.gn = xcalloc(g.n + 1, sizeof *col.gn);
		col.gr = xcalloc(g.n + 1, sizeof *col.gr);
		for (size_t i = 0; i < g.n; i++) {
			col.gn[i] = xmalloc((col.cn[i] + 1) * sizeof **col.gn);
			col.gr[i] = xmalloc((col.cr[i] + 1) * sizeof **col.gr);
			col.cn[i] = col.cr[i] = 0;
			col.last[i] = HW_NONE;
		}
		/* the neighbours, in index order: one scan of the marks */
		for (node_t v = 1; v < h->n; v++)
			if (bit_get(col.seen, v)) {
				uint32_t k = g.by_cls[h->node_class[v]] - 1;
				col.gn[k][col.cn[k]++] = v;
			}
		col.pass = 2; /* again, for the members reaching each group */
	}
	if (rc == 0) {
		out->groups = xcalloc(g.n + 1, sizeof *out->groups);
		out->n = g.n;
		if (col.pass == 0) {
			hw_qsort(col.nodes.v, col.nodes.n, sizeof *col.nodes.v, cmp_pair);
			hw_qsort(col.reached.v, col.reached.n, sizeof *col.reached.v, cmp_pair);
		}
		size_t at_n = 0, at_r = 0;
		for (uint32_t i = 0; i < g.n; i++) {
			struct merged_group *m = &out->groups[i];
			m->cls = g.k[i].cls;
			m->field = g.k[i].field;
			g.k[i].field = NULL;
			if (col.pass == 0) {
				m->nodes = take(&col.nodes, &at_n, i, &m->count);
				m->reached = take(&col.reached, &at_r, i, &m->nreached);
			} else {
				m->nodes = col.gn[i];
				m->count = col.cn[i];
				m->reached = col.gr[i];
				m->nreached = col.cr[i];
				col.gn[i] = col.gr[i] = NULL;
				if (c.n > base) /* the closure's members came after the rest */
					hw_qsort(m->reached, m->nreached, sizeof *m->reached, cmp_node);
			}
			for (size_t k = 0; k < m->count; k++)
				m->shallow += h->node_shallow[m->nodes[k]];
		}
		sort_h = h;
		hw_qsort(out->groups, out->n, sizeof *out->groups, cmp_group);
	} else {
		out->chain = 0;
	}
	if (col.gn != NULL)
		for (size_t i = 0; i < g.n; i++) {
			free(col.gn[i]);
			free(col.gr[i]);
		}
	free(col.gn);
	free(col.gr);
	free(col.seen);
	free(col.last);
	free(col.cn);
	free(col.cr);
	progress_end(p);
	for (size_t i = 0; i < g.n; i++)
		free(g.k[i].field);
	free(g.k);
	free(g.by_cls);
	free(g.hash);
	free(col.nodes.v);
	free(col.reached.v);
	free(c.in);
	free(c.list);
	sbuf_free(&w.label);
	return rc;
}

void merged_level_free(struct merged_level *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->groups[i].field);
		free(l->groups[i].nodes);
		free(l->groups[i].reached);
	}
	free(l->groups);
	memset(l, 0, sizeof *l);
}

/* ---- the tree of the batch reports ---- */
static void tree_add(struct merged_tree *t, unsigned depth, struct merged_group *g)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->rows = xreallocarray(t->rows, t->cap, sizeof *t->rows);
	}
	t->rows[t->n++] = (struct merged_row){ depth, g->cls, g->field, g->count, g->shallow,
					       g->nreached, -1 };
	g->field = NULL;
}

/* The level from `from` as rows at `depth`, each expanded below it
 * while depth allows. */
static int tree_level(struct heap *h, struct merged_tree *t, const node_t *from, size_t nfrom,
		      uint32_t pcls, unsigned depth, unsigned maxdepth, size_t top, struct progress *p)
{
	struct merged_level l;
	int rc = 0;

	if (merged_level(h, t->kind, t->by, from, nfrom, pcls, &l, p) < 0)
		return -1;
	if (depth > 0)
		t->rows[t->n - 1].chain = (int64_t)l.chain;
	for (size_t i = 0; i < l.n && (top == 0 || i < top) && rc == 0; i++) {
		struct merged_group *g = &l.groups[i];
		tree_add(t, depth, g);
		if (depth + 1 < maxdepth && g->count > 0)
			rc = tree_level(h, t, g->nodes, g->count, g->cls, depth + 1, maxdepth, top, p);
		free(g->nodes); /* the rows keep figures only: big levels free as they go */
		g->nodes = NULL;
	}
	merged_level_free(&l);
	return rc;
}

int merged_tree(struct heap *h, enum merged_kind kind, enum merged_by by, const node_t *members,
		size_t n, unsigned depth, size_t top, struct merged_tree *t, struct progress *p)
{
	memset(t, 0, sizeof *t);
	t->kind = kind;
	t->by = by;
	t->set_count = n;
	for (size_t i = 0; i < n; i++)
		t->set_shallow += h->node_shallow[members[i]];
	if (tree_level(h, t, members, n, HW_NONE, 0, depth ? depth : 1, top, p) < 0) {
		merged_tree_free(t);
		return -1;
	}
	return 0;
}

void merged_tree_free(struct merged_tree *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->rows[i].field);
	free(t->rows);
	memset(t, 0, sizeof *t);
}
