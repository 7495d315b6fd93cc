/* view_merged.c — merged outgoing, incoming and dominating references:
 * the step's neighbours aggregated by class (or class and field), one
 * level per expanded row; one build and expand for the three tabs, which
 * differ in their state's kind. */
#include <stdlib.h>
#include <string.h>

#include "query/merged.h"
#include "tui/view.h"

struct merged_state {
	enum merged_kind kind;
	int byfield;        /* c: by class and field */
};

static struct merged_state *mst(const struct tview *v) { return v->state; }

static const struct column merged_cols[] = {
	{ .title = "objects", .type = COL_COUNT, .val = 0 },
	{ .title = "shallow", .type = COL_BYTES, .val = 1 },
	{ .title = "reached", .type = COL_COUNT, .val = 2, .drop = 1 },
};

static int merged_rows(struct tui *t, struct tview *v, const node_t *from, size_t n, uint32_t pcls,
		       struct rowvec *out, size_t *chain)
{
	struct heap *h = t->h;
	struct merged_level lv;
	enum merged_kind kind = mst(v)->kind;

	if (merged_level(h, kind, mst(v)->byfield ? MG_BY_FIELD : MG_BY_CLASS, from, n, pcls, &lv,
			 &t->prog) < 0)
		return -1;
	*chain = lv.chain;
	for (size_t i = 0; i < lv.n; i++) {
		struct merged_group *g = &lv.groups[i];
		struct row *r = rowvec_add(out);
		struct sbuf l;
		struct span nm = { 0, 0 };
		sbuf_init(&l);
		if (g->field != NULL && kind == MG_OUTGOING) {
			tv_add_esc(&l, g->field);
			sbuf_adds(&l, " -> ");
		}
		if (g->cls == MG_ROOT)
			sbuf_adds(&l, "GC roots");
		else
			tv_class_text(h, g->cls, &l, &nm);
		if (g->field != NULL && kind != MG_OUTGOING) {
			sbuf_adds(&l, ".");
			tv_add_esc(&l, g->field);
		}
		r->val[0] = g->count;
		r->val[1] = g->shallow;
		r->val[2] = g->nreached;
		/* the group's identity: its class and field */
		r->key = 1469598103934665603ull ^ g->cls;
		for (const char *f = g->field; f != NULL && *f; f++)
			r->key = (r->key ^ (uint8_t)*f) * 1099511628211ull;
		struct rowdata *d = tv_rowdata(r);
		d->nodes = g->nodes;
		d->n = g->count;
		d->reached = g->reached;
		d->nreached = g->nreached;
		g->nodes = NULL;
		g->reached = NULL;
		r->cls = g->cls;
		r->kind = VR_GROUP;
		r->open = g->cls == MG_ROOT ? -1 : 0;
		row_set_named(r, l.buf, nm.off, nm.len);
		sbuf_free(&l);
	}
	merged_level_free(&lv);
	return 0;
}

static int merged_build(struct tui *t, struct tview *v)
{
	node_t *m = objset_members(t->h, &v->st->set);
	size_t chain;
	enum merged_kind kind = mst(v)->kind;
	int byf = mst(v)->byfield;
	int rc = merged_rows(t, v, m, (size_t)v->st->set.count, HW_NONE, &v->rows, &chain);

	free(m);
	tview_columns(v, merged_cols, kind == MG_INCOMING ? 3 : 2);
	snprintf(v->lefthead, sizeof v->lefthead, "%s",
		 kind == MG_OUTGOING ? (byf ? "merged outgoing: field -> class" : "merged outgoing: class")
		 : kind == MG_INCOMING ? (byf ? "merged incoming: class.field" : "merged incoming: class")
		 : (byf ? "merged dominating: class.field" : "merged dominating: class"));
	return rc;
}

static int merged_expand(struct tui *t, struct tview *v, size_t i, struct rowvec *out)
{
	struct row *r = &v->rows.v[i];
	struct rowdata *d = r->data;
	size_t chain = 0;

	if (d == NULL || d->nodes == NULL)
		return 0;
	if (merged_rows(t, v, d->nodes, d->n, r->cls, out, &chain) < 0)
		return -1;
	if (chain > 0) { /* a class-recursive chain folded into this row */
		struct sbuf l;
		sbuf_init(&l);
		sbuf_printf(&l, "%s  (chain: %zu more of this class)", r->left, chain);
		row_set_named(r, l.buf, r->name_off, r->name_len);
		sbuf_free(&l);
	}
	return 0;
}

static int merged_use(struct tui *t, struct tview *v, int reached, struct use *u)
{
	return tv_use_nodes(t, v, reached, u, reached ? "Reached" : "Merged");
}

static int merged_group(struct tui *t, struct tview *v, enum request r)
{
	(void)r;
	mst(v)->byfield = !mst(v)->byfield;
	tview_rebuild(t, v);
	return 1;
}

static const struct view_key merged_keys[] = {
	{ REQ_GROUP, merged_group },
	{ REQ_NONE, NULL },
};

static void out_init(void *state) { ((struct merged_state *)state)->kind = MG_OUTGOING; }
static void in_init(void *state) { ((struct merged_state *)state)->kind = MG_INCOMING; }
static void dom_init(void *state) { ((struct merged_state *)state)->kind = MG_DOMINATING; }

#define MERGED_OPS(tab, init) \
	.name = tab, .state_size = sizeof(struct merged_state), .state_init = init, \
	.build = merged_build, .expand = merged_expand, .use = merged_use, .keys = merged_keys, \
	.row_free = tv_rowdata_free

const struct view_ops merged_out_ops = { MERGED_OPS("Merged out", out_init) };
const struct view_ops merged_in_ops = { MERGED_OPS("Merged in", in_init) };
const struct view_ops merged_dom_ops = { MERGED_OPS("Dominating", dom_init) };
