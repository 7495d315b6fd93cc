/* view_biggest.c — the biggest objects: the dominator tree from the
 * step's top members, biggest retained first, small children folded;
 * or grouped by class. */
#include <stdlib.h>
#include <string.h>

#include "graph/analysis.h"
#include "query/views.h"
#include "tui/view.h"

#define CUTOFF 0.005      /* fold children under 0.5% of the parent */
#define FOLD_PAGE 100     /* objects a folded row shows when expanded */

struct biggest_state {
	int byclass;        /* c: one row per class */
	int chosen;         /* c was pressed: no automatic grouping */
	int auto_byclass;   /* the last build grouped by class by itself */
};

static struct biggest_state *bst(const struct tview *v) { return v->state; }

/* biggest retained first; ctx: the heap */
static int cmp_ret(const void *a, const void *b, void *ctx)
{
	const struct heap *h = ctx;
	node_t x = *(const node_t *)a, y = *(const node_t *)b;
	uint64_t p = h->retained[x], q = h->retained[y];

	return p < q ? 1 : p > q ? -1 : x < y ? -1 : x > y;
}

static int cmp_cls_ret(const void *a, const void *b, void *ctx)
{
	const struct heap *h = ctx;
	node_t x = *(const node_t *)a, y = *(const node_t *)b;
	uint32_t p = h->node_class[x], q = h->node_class[y];

	if (p != q)
		return p < q ? -1 : 1;
	return cmp_ret(a, b, ctx);
}

/* Does x refer to c with a field of its own? */
static int direct_ref(const struct heap *h, node_t x, node_t c)
{
	if (x == 0)
		return 1;
	for (edge_t j = h->out_start[x]; j < h->out_start[x + 1]; j++)
		if (h->out[j] == c)
			return 1;
	return 0;
}

/* The columns: a bar and percent of the parent (val[0] of val[3]),
 * retained (val[0]), shallow (val[1]). */
static const struct column big_cols[] = {
	{ .title = "of parent", .type = COL_BAR, .val = 0, .den = 3, .drop = 2 },
	{ .title = "%", .type = COL_PCT, .val = 0, .den = 3, .drop = 1 },
	{ .title = "retained", .type = COL_BYTES, .val = 0 },
	{ .title = "shallow", .type = COL_BYTES, .val = 1 },
};

static void big_vals(struct row *r, uint64_t ret, uint64_t shallow, uint64_t parent)
{
	r->val[0] = ret;
	r->val[1] = shallow;
	r->val[3] = parent;
}

/* One object of a level under `parent` (its retained size). Below an
 * object (held: the level's dominator), the field the dominator holds it
 * by, or that it holds it only through other objects (JProfiler's
 * transitive reference); at the top of a step, nothing. */
static void big_obj_row(struct tui *t, node_t x, uint64_t parent, int held, struct rowvec *out)
{
	struct heap *h = t->h;
	struct row *r = rowvec_add(out);
	struct sbuf l, lab;
	struct span nm;

	sbuf_init(&l);
	sbuf_init(&lab);
	tv_object_text(h, x, &l, &nm);
	node_t dom = h->idom[x];
	if (held && dom != 0 && dom != HW_NONE) {
		if (direct_ref(h, dom, x)) {
			edge_label(h, dom, x, &lab);
			sbuf_adds(&l, "  .");
			tv_add_esc(&l, lab.buf);
		} else {
			sbuf_adds(&l, "  [transitive reference]");
		}
	}
	big_vals(r, h->retained[x], h->node_shallow[x], parent);
	r->node = x;
	r->kind = VR_OBJ;
	r->open = h->dom_start[x + 1] > h->dom_start[x] ? 0 : -1;
	r->num[0] = h->retained[x];
	row_set_named(r, l.buf, nm.off, nm.len);
	sbuf_free(&l);
	sbuf_free(&lab);
}

/* "N more objects, total X, largest Y" for a[0..n), biggest first. */
static void big_fold_row(struct tui *t, const node_t *a, size_t n, uint64_t parent, int held,
			 struct rowvec *out)
{
	struct heap *h = t->h;
	uint64_t tot = 0, sh = 0;
	struct row *r = rowvec_add(out);
	struct sbuf l;
	char b1[32], b2[32];

	for (size_t k = 0; k < n; k++) {
		tot += h->retained[a[k]];
		sh += h->node_shallow[a[k]];
	}
	sbuf_init(&l);
	fmt_bytes(b1, sizeof b1, tot);
	fmt_bytes(b2, sizeof b2, h->retained[a[0]]);
	sbuf_printf(&l, "%zu more object%s, total %s, largest %s", n, n == 1 ? "" : "s", b1, b2);
	big_vals(r, tot, sh, parent);
	struct rowdata *d = tv_rowdata(r);
	d->n = n;
	d->nodes = xmalloc(n * sizeof *d->nodes);
	memcpy(d->nodes, a, n * sizeof *d->nodes);
	r->kind = VR_FOLD;
	r->open = 0; /* expands to the biggest of them */
	r->key = 1; /* one fold per level */
	r->num[0] = parent;
	r->num[1] = (uint64_t)held;
	row_set(r, l.buf, NULL);
	sbuf_free(&l);
}

/* One row per class of a[0..n) (sorted by class), biggest total first. */
static void big_classes(struct tui *t, node_t *a, size_t n, uint64_t parent, struct rowvec *out)
{
	struct heap *h = t->h;
	size_t first = out->n;

	for (size_t i = 0; i < n;) {
		size_t j = i;
		uint64_t ret = 0, sh = 0;
		while (j < n && h->node_class[a[j]] == h->node_class[a[i]]) {
			ret += h->retained[a[j]];
			sh += h->node_shallow[a[j]];
			j++;
		}
		struct row *r = rowvec_add(out);
		struct sbuf l;
		struct span nm;
		sbuf_init(&l);
		tv_class_text(h, h->node_class[a[i]], &l, &nm);
		sbuf_printf(&l, "  (%zu object%s)", j - i, j - i == 1 ? "" : "s");
		big_vals(r, ret, sh, parent);
		struct rowdata *d = tv_rowdata(r);
		d->nodes = xmalloc((j - i) * sizeof *d->nodes);
		memcpy(d->nodes, a + i, (j - i) * sizeof *d->nodes);
		d->n = j - i;
		r->kind = VR_GROUP;
		r->cls = h->node_class[a[i]];
		r->key = (uint64_t)r->cls + 1;
		r->open = 0;
		r->num[0] = ret;
		row_set_named(r, l.buf, nm.off, nm.len);
		sbuf_free(&l);
		i = j;
	}
	/* biggest group first (insertion sort: few groups) */
	for (size_t x = first + 1; x < out->n; x++)
		for (size_t y = x; y > first && out->v[y].num[0] > out->v[y - 1].num[0]; y--) {
			struct row tmp = out->v[y];
			out->v[y] = out->v[y - 1];
			out->v[y - 1] = tmp;
		}
}

/* How many of a[0..n) (biggest first) get a row of their own: those at
 * CUTOFF of the parent or more; but when the rest would hide most of the
 * level, the biggest FOLD_PAGE anyway (a level of many small objects). */
static size_t big_shown(const struct heap *h, const node_t *a, size_t n, uint64_t parent)
{
	uint64_t min = (uint64_t)((double)parent * CUTOFF), rest = 0, all = 0;
	size_t i = 0;

	while (i < n && (h->retained[a[i]] >= min || i + 1 == n))
		i++;
	for (size_t k = 0; k < n; k++) {
		all += h->retained[a[k]];
		if (k >= i)
			rest += h->retained[a[k]];
	}
	if (rest * 2 > all && i < FOLD_PAGE)
		i = n < FOLD_PAGE ? n : FOLD_PAGE;
	return i;
}

/* Rows for the objects a[0..n) under a parent of retained size `parent`
 * (held: below an object, not at the top of the step): biggest first,
 * the small folded; or one row per class. */
static void big_level(struct tui *t, int byclass, node_t *a, size_t n, uint64_t parent, int held,
		      struct rowvec *out)
{
	struct heap *h = t->h;

	if (byclass) {
		hw_sort(a, n, sizeof *a, cmp_cls_ret, h);
		big_classes(t, a, n, parent, out);
		return;
	}
	hw_sort(a, n, sizeof *a, cmp_ret, h);
	size_t k = big_shown(h, a, n, parent);
	for (size_t i = 0; i < k; i++)
		big_obj_row(t, a[i], parent, held, out);
	if (k < n)
		big_fold_row(t, a + k, n - k, parent, held, out);
}

static int biggest_build(struct tui *t, struct tview *v)
{
	struct heap *h = t->h;
	struct biggest_state *st = bst(v);
	struct big_view bv;
	struct view_opts o = { .depth = 1, .cutoff = 0, .top = 0, .progress = &t->prog };

	analysis_domchildren(h);
	view_biggest(h, &v->st->set, &o, &bv);
	node_t *a = xmalloc((bv.n + 1) * sizeof *a);
	size_t n = 0;
	for (size_t i = 0; i < bv.n; i++)
		if (bv.rows[i].node != HW_NONE && bv.rows[i].depth == 0)
			a[n++] = bv.rows[i].node;
	big_view_free(&bv);
	/* the top level's parent: what the set's top members retain together
	 * (the heap, for every object) */
	uint64_t top = 0;
	for (size_t i = 0; i < n; i++)
		top += h->retained[a[i]];
	int byclass = st->byclass;
	st->auto_byclass = 0;
	if (!st->chosen && !byclass && n > FOLD_PAGE) {
		/* no object of the step holds much: by class says more */
		hw_sort(a, n, sizeof *a, cmp_ret, h);
		uint64_t shown = 0;
		for (size_t i = 0; i < FOLD_PAGE; i++)
			shown += h->retained[a[i]];
		if (shown * 2 < top)
			byclass = st->auto_byclass = 1;
	}
	big_level(t, byclass, a, n, top, 0, &v->rows);
	/* the top level's share: of the whole heap, as biggest's on the
	 * command line and the dominator trees of MAT and JProfiler (a
	 * fold's objects are of the top level too); what folds is still
	 * measured against the step's */
	for (size_t i = 0; i < v->rows.n; i++) {
		v->rows.v[i].val[3] = h->retained[0];
		if (v->rows.v[i].kind == VR_FOLD)
			v->rows.v[i].num[0] = h->retained[0];
	}
	free(a);
	tview_columns(v, big_cols, 4);
	snprintf(v->lefthead, sizeof v->lefthead, "%s", st->auto_byclass
		 ? "dominator tree, by class: no object holds much (c: by object)"
		 : byclass ? "dominator tree, by class" : "dominator tree");
	return 0;
}

static int biggest_expand(struct tui *t, struct tview *v, size_t i, struct rowvec *out)
{
	struct heap *h = t->h;
	struct row *r = &v->rows.v[i];

	if (r->kind == VR_GROUP) { /* a class's objects at the top of the step */
		struct rowdata *d = r->data;
		node_t *a = xmalloc((d->n + 1) * sizeof *a);
		memcpy(a, d->nodes, d->n * sizeof *a);
		big_level(t, 0, a, d->n, r->num[0], 0, out);
		free(a);
		return 0;
	}
	if (r->kind == VR_FOLD) { /* its biggest FOLD_PAGE, and a fold for the rest */
		struct rowdata *d = r->data; /* biggest first already */
		size_t k = d->n < FOLD_PAGE ? d->n : FOLD_PAGE;
		for (size_t j = 0; j < k; j++)
			big_obj_row(t, d->nodes[j], r->num[0], (int)r->num[1], out);
		if (k < d->n)
			big_fold_row(t, d->nodes + k, d->n - k, r->num[0], (int)r->num[1], out);
		return 0;
	}
	if (r->kind != VR_OBJ)
		return 0;
	node_t x = r->node;
	size_t n = h->dom_start[x + 1] - h->dom_start[x];
	node_t *a = xmalloc((n + 1) * sizeof *a);
	memcpy(a, h->dom_child + h->dom_start[x], n * sizeof *a);
	big_level(t, 0, a, n, h->retained[x], 1, out);
	free(a);
	return 0;
}

/* A class's row at the top of the step stands for "the step's objects
 * no other of them dominates, of that class": a step expression names
 * it, however many objects it holds. */
static int biggest_use(struct tui *t, struct tview *v, int reached, struct use *u)
{
	int any = 0;

	for (size_t i = 0; i < v->rows.n; i++)
		any |= v->rows.v[i].marked;
	if (tv_use_nodes(t, v, reached, u, "Objects") < 0)
		return -1;
	const struct row *r = v->cur < v->rows.n ? &v->rows.v[v->cur] : NULL;
	if (!any && !reached && r != NULL && r->kind == VR_GROUP && r->depth == 0) {
		struct sbuf ex, l;
		uint8_t *m = xcalloc(t->h->ncls + 1, 1);
		m[r->cls] = 1;
		if (tv_names_unique(t->h, m)) { /* else the ids tv_use_nodes gave, if any */
			sbuf_init(&ex);
			sbuf_adds(&ex, "top | ");
			tv_instances_expr(&ex, class_name(t->h, r->cls));
			free(u->expr);
			u->expr = sbuf_detach(&ex);
		}
		free(m);
		sbuf_init(&l);
		tv_class_text(t->h, r->cls, &l, NULL);
		free(u->title);
		u->title = xasprintf("Top objects of %s", l.buf);
		sbuf_free(&l);
	}
	return 0;
}

static int biggest_group(struct tui *t, struct tview *v, enum request r)
{
	(void)r;
	bst(v)->byclass = !(bst(v)->byclass || bst(v)->auto_byclass);
	bst(v)->chosen = 1;
	tview_rebuild(t, v);
	return 1;
}

static const struct view_key biggest_keys[] = {
	{ REQ_GROUP, biggest_group },
	{ REQ_NONE, NULL },
};

const struct view_ops biggest_ops = {
	.name = "Biggest",
	.state_size = sizeof(struct biggest_state),
	.build = biggest_build,
	.expand = biggest_expand,
	.use = biggest_use,
	.keys = biggest_keys,
	.row_free = tv_rowdata_free,
};
