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

static void big_bar(struct sbuf *rt, uint64_t part, uint64_t whole)
{
	int n = whole ? (int)(10.0 * (double)part / (double)whole + 0.5) : 0;

	sbuf_addc(rt, '[');
	for (int i = 0; i < 10; i++)
		sbuf_addc(rt, i < n ? '#' : ' ');
	sbuf_printf(rt, "] %5.1f%%", tv_pct(part, whole));
}

/* One object of a level under `parent` (its retained size), dominated
 * by `dom` (HW_NONE at the top: no direct-reference check). */
static void big_obj_row(struct tui *t, node_t x, uint64_t parent, node_t dom, struct rowvec *out)
{
	struct heap *h = t->h;
	struct row *r = rowvec_add(out);
	struct sbuf l, rt;

	sbuf_init(&l);
	sbuf_init(&rt);
	tv_object_text(h, x, &l);
	if (dom != HW_NONE && !direct_ref(h, dom, x))
		sbuf_adds(&l, "  [transitive reference]");
	big_bar(&rt, h->retained[x], parent);
	tv_add_bytes(&rt, h->retained[x]);
	tv_add_bytes(&rt, h->node_shallow[x]);
	r->node = x;
	r->kind = VR_OBJ;
	r->open = h->dom_start[x + 1] > h->dom_start[x] ? 0 : -1;
	r->num[0] = h->retained[x];
	row_set(r, l.buf, rt.buf);
	sbuf_free(&l);
	sbuf_free(&rt);
}

/* "N more objects, total X, largest Y" for a[0..n), biggest first. */
static void big_fold_row(struct tui *t, const node_t *a, size_t n, uint64_t parent, node_t dom,
			 struct rowvec *out)
{
	struct heap *h = t->h;
	uint64_t tot = 0, sh = 0;
	struct row *r = rowvec_add(out);
	struct sbuf l, rt;
	char b1[32], b2[32];

	for (size_t k = 0; k < n; k++) {
		tot += h->retained[a[k]];
		sh += h->node_shallow[a[k]];
	}
	sbuf_init(&l);
	sbuf_init(&rt);
	fmt_bytes(b1, sizeof b1, tot);
	fmt_bytes(b2, sizeof b2, h->retained[a[0]]);
	sbuf_printf(&l, "%zu more objects, total %s, largest %s", n, b1, b2);
	big_bar(&rt, tot, parent);
	tv_add_bytes(&rt, tot);
	tv_add_bytes(&rt, sh);
	struct rowdata *d = tv_rowdata(r);
	d->n = n;
	d->nodes = xmalloc(n * sizeof *d->nodes);
	memcpy(d->nodes, a, n * sizeof *d->nodes);
	r->kind = VR_FOLD;
	r->open = 0; /* expands to the biggest of them */
	r->num[0] = parent;
	r->num[1] = dom;
	row_set(r, l.buf, rt.buf);
	sbuf_free(&l);
	sbuf_free(&rt);
}

/* Rows for the objects a[0..n) under a parent of retained size `parent`
 * (dominated by `dom`, 0 at the top): biggest first, the small folded. */
static void big_level(struct tui *t, struct tview *v, node_t *a, size_t n, uint64_t parent, node_t dom,
		      struct rowvec *out)
{
	struct heap *h = t->h;
	size_t i = 0;

	if (bst(v)->byclass) {
		hw_sort(a, n, sizeof *a, cmp_cls_ret, h);
		/* one row per class, biggest total first: collect, then sort rows */
		size_t first = out->n;
		while (i < n) {
			size_t j = i;
			uint64_t ret = 0, sh = 0;
			while (j < n && h->node_class[a[j]] == h->node_class[a[i]]) {
				ret += h->retained[a[j]];
				sh += h->node_shallow[a[j]];
				j++;
			}
			struct row *r = rowvec_add(out);
			struct sbuf l, rt;
			sbuf_init(&l);
			sbuf_init(&rt);
			tv_add_esc(&l, class_name(h, h->node_class[a[i]]));
			sbuf_printf(&l, "  (%zu object%s)", j - i, j - i == 1 ? "" : "s");
			big_bar(&rt, ret, parent);
			tv_add_bytes(&rt, ret);
			tv_add_bytes(&rt, sh);
			struct rowdata *d = tv_rowdata(r);
			d->nodes = xmalloc((j - i) * sizeof *d->nodes);
			memcpy(d->nodes, a + i, (j - i) * sizeof *d->nodes);
			d->n = j - i;
			r->kind = VR_GROUP;
			r->cls = h->node_class[a[i]];
			r->open = 0;
			r->num[0] = ret;
			row_set(r, l.buf, rt.buf);
			sbuf_free(&l);
			sbuf_free(&rt);
			i = j;
		}
		/* biggest group first (insertion sort: few groups) */
		for (size_t x = first + 1; x < out->n; x++)
			for (size_t y = x; y > first && out->v[y].num[0] > out->v[y - 1].num[0]; y--) {
				struct row tmp = out->v[y];
				out->v[y] = out->v[y - 1];
				out->v[y - 1] = tmp;
			}
		return;
	}
	hw_sort(a, n, sizeof *a, cmp_ret, h);
	uint64_t min = (uint64_t)((double)parent * CUTOFF);
	for (i = 0; i < n; i++) {
		if (h->retained[a[i]] < min && i + 1 < n)
			break;
		big_obj_row(t, a[i], parent, dom, out);
	}
	if (i < n)
		big_fold_row(t, a + i, n - i, parent, dom, out);
}

static int biggest_build(struct tui *t, struct tview *v)
{
	struct heap *h = t->h;
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
	big_level(t, v, a, n, top, HW_NONE, &v->rows);
	free(a);
	free(v->colhead);
	v->colhead = xstrdup("% of parent          retained    shallow");
	snprintf(v->lefthead, sizeof v->lefthead, "%s", bst(v)->byclass ? "dominator tree, by class" : "dominator tree");
	return 0;
}

static int biggest_expand(struct tui *t, struct tview *v, size_t i, struct rowvec *out)
{
	struct heap *h = t->h;
	struct row *r = &v->rows.v[i];

	if (r->kind == VR_GROUP) {
		struct rowdata *d = r->data;
		int bc = bst(v)->byclass;
		uint64_t tot = r->num[0];
		node_t *a = xmalloc(d->n * sizeof *a);
		memcpy(a, d->nodes, d->n * sizeof *a);
		bst(v)->byclass = 0; /* a group lists its objects */
		node_t dom = d->n ? h->idom[a[0]] : HW_NONE;
		big_level(t, v, a, d->n, tot, dom, out);
		bst(v)->byclass = bc;
		free(a);
		return 0;
	}
	if (r->kind == VR_FOLD) { /* its biggest FOLD_PAGE, and a fold for the rest */
		struct rowdata *d = r->data; /* biggest first already */
		size_t k = d->n < FOLD_PAGE ? d->n : FOLD_PAGE;
		for (size_t j = 0; j < k; j++)
			big_obj_row(t, d->nodes[j], r->num[0], (node_t)r->num[1], out);
		if (k < d->n)
			big_fold_row(t, d->nodes + k, d->n - k, r->num[0], (node_t)r->num[1], out);
		return 0;
	}
	if (r->kind != VR_OBJ)
		return 0;
	node_t x = r->node;
	size_t n = h->dom_start[x + 1] - h->dom_start[x];
	node_t *a = xmalloc((n + 1) * sizeof *a);
	memcpy(a, h->dom_child + h->dom_start[x], n * sizeof *a);
	big_level(t, v, a, n, h->retained[x], x, out);
	free(a);
	return 0;
}

static int biggest_use(struct tui *t, struct tview *v, int reached, struct use *u)
{
	return tv_use_nodes(t, v, reached, u, "Objects");
}

static int biggest_group(struct tui *t, struct tview *v, enum request r)
{
	(void)r;
	bst(v)->byclass = !bst(v)->byclass;
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
