/* view_merged.c — merged outgoing, incoming and dominating references:
 * the step's neighbours aggregated by class (or class and field), one
 * level per expanded row; the dominating tab also the other way, from
 * the GC roots down to the objects (t). One build and expand for the
 * three tabs, which differ in their state's kind. Incoming shows the
 * weak and soft holders too, each group marked "(weak)", and those an
 * owns rule made no owners, marked "(not owning)"; w leaves them out,
 * or brings them back. */
#include <stdlib.h>
#include <string.h>

#include "query/merged.h"
#include "tui/view.h"

struct merged_state {
	enum merged_kind kind;
	int byfield;        /* c: by class and field */
	int down;           /* t, dominating: GC roots to objects */
	int strong;         /* w, incoming: weak holders left out */
};

/* The step's members, sorted: the from of the top level and, going
 * down from the roots, what every level leads to. And the rows of the
 * other grouping (c) or direction (t) as they were left, so that going
 * back costs nothing: a level over a whole heap by field takes seconds. */
struct merged_data {
	node_t *members;
	size_t n;
	struct rowvec saved;
	size_t saved_cur, saved_top;
	int saved_mode;     /* mode_of() of the saved rows; -1: none */
};

static int mode_of(const struct merged_state *st) { return st->byfield | st->down << 1 | st->strong << 2; }

static struct merged_state *mst(const struct tview *v) { return v->state; }

static enum merged_by by_of(const struct tview *v) { return mst(v)->byfield ? MG_BY_FIELD : MG_BY_CLASS; }

static const struct column merged_cols[] = {
	{ .title = "objects", .type = COL_COUNT, .val = 0 },
	{ .title = "shallow", .type = COL_BYTES, .val = 1 },
	{ .title = "reached", .type = COL_COUNT, .val = 2, .drop = 1 },
};

static void merged_data_free(void *data)
{
	struct merged_data *md = data;

	if (md != NULL) {
		free(md->members);
		rowvec_free(&md->saved, tv_rowdata_free);
	}
	free(md);
}

static struct merged_data *members(struct tui *t, struct tview *v)
{
	struct merged_data *md = v->data;

	if (md == NULL) {
		md = v->data = xcalloc(1, sizeof *md);
		md->members = objset_members(t->h, &v->st->set);
		md->n = (size_t)v->st->set.count;
		md->saved_mode = -1;
	}
	return md;
}

/* A group's label: "class", "class.field", "field -> class"; with a
 * collection's role "map value of java.util.HashMap" (incoming) or
 * "element -> Foo" (outgoing). */
static void group_label(const struct heap *h, enum merged_kind kind, const struct merged_group *g,
			struct sbuf *l, struct span *nm)
{
	nm->off = nm->len = 0;
	if (g->field != NULL && (kind == MG_OUTGOING || g->coll)) {
		tv_add_esc(l, g->field);
		sbuf_adds(l, kind == MG_OUTGOING ? " -> " : " of ");
	}
	if (mg_root_group(g->cls))
		sbuf_adds(l, merged_cls_name(h, g->cls));
	else
		tv_class_text(h, g->cls, l, nm);
	if (g->field != NULL && kind != MG_OUTGOING && !g->coll) {
		sbuf_adds(l, ".");
		tv_add_esc(l, g->field);
	}
	if (g->weak)
		sbuf_adds(l, g->weak == MG_NOT_OWNING ? "  (not owning)" : "  (weak)");
}

static int merged_rows(struct tui *t, struct tview *v, const node_t *from, size_t n, uint32_t pcls,
		       struct rowvec *out, size_t *chain)
{
	struct heap *h = t->h;
	struct merged_level lv;
	enum merged_kind kind = mst(v)->kind;
	int rc;

	if (kind == MG_DOMINATING && mst(v)->down) { /* the set's members lead every level */
		struct merged_data *md = members(t, v);
		rc = merged_level_down(h, by_of(v), md->members, md->n, from == md->members ? NULL : from,
				       n, pcls, &lv, &t->prog);
	} else {
		rc = merged_level(h, kind, by_of(v), !mst(v)->strong, from, n, pcls, &lv, &t->prog);
	}
	if (rc < 0)
		return -1;
	*chain = lv.chain;
	for (size_t i = 0; i < lv.n; i++) {
		struct merged_group *g = &lv.groups[i];
		struct row *r = rowvec_add(out);
		struct sbuf l;
		struct span nm;
		sbuf_init(&l);
		group_label(h, kind, g, &l, &nm);
		r->val[0] = g->count;
		r->val[1] = g->shallow;
		r->val[2] = g->nreached;
		/* the group's identity: its class, field and role */
		r->key = (1469598103934665603ull ^ g->cls ^ (uint64_t)g->coll << 40 ^ (uint64_t)g->weak << 41) *
			 1099511628211ull;
		for (const char *f = g->field; f != NULL && *f; f++)
			r->key = (r->key ^ (uint8_t)*f) * 1099511628211ull;
		struct rowdata *d = tv_rowdata(r);
		d->nodes = g->nodes;
		d->n = g->count;
		d->reached = g->reached;
		d->nreached = g->nreached;
		d->field = g->field; /* taken */
		d->coll = g->coll;
		d->weak = g->weak;
		g->nodes = NULL;
		g->reached = NULL;
		g->field = NULL;
		r->cls = g->cls;
		r->kind = VR_GROUP;
		r->open = mg_root_group(g->cls) || g->count == 0 ? -1 : 0;
		row_set_named(r, l.buf, nm.off, nm.len);
		sbuf_free(&l);
	}
	merged_level_free(&lv);
	return 0;
}

/* The headers, for the grouping and direction of the state. */
static void merged_build_head(struct tview *v)
{
	enum merged_kind kind = mst(v)->kind;
	int byf = mst(v)->byfield, down = kind == MG_DOMINATING && mst(v)->down;

	tview_columns(v, merged_cols, 3);
	snprintf(v->lefthead, sizeof v->lefthead, "%s",
		 kind == MG_OUTGOING ? (byf ? "merged outgoing: field -> class" : "merged outgoing: class")
		 : kind == MG_INCOMING && mst(v)->strong
			 ? (byf ? "merged incoming: class.field (strong only)" : "merged incoming: class (strong only)")
		 : kind == MG_INCOMING ? (byf ? "merged incoming: class.field" : "merged incoming: class")
		 : down ? (byf ? "GC roots to objects: class.field" : "GC roots to objects: class")
		 : (byf ? "merged dominating: class.field" : "merged dominating: class"));
}

static int merged_build(struct tui *t, struct tview *v)
{
	struct merged_data *md = members(t, v);
	size_t chain;
	int rc = merged_rows(t, v, md->members, md->n, HW_NONE, &v->rows, &chain);

	merged_build_head(v);
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

/* The row holding row i (the one above it, less deep), or SIZE_MAX. */
static size_t parent_of(const struct tview *v, size_t i)
{
	uint32_t d = v->rows.v[i].depth;

	while (i-- > 0)
		if (v->rows.v[i].depth < d)
			return i;
	return SIZE_MAX;
}

/* The step's members reached through row i: at the top (and going down
 * from the roots, at every level) its own reached; below, the path of
 * rows from the top down to it, followed back (merged_reached). */
static int row_reached(struct tui *t, struct tview *v, size_t i, node_t **out, size_t *n)
{
	struct merged_data *md = members(t, v);
	const struct row *r = &v->rows.v[i];
	const struct rowdata *d = r->data;
	size_t depth = (size_t)r->depth + 1;

	if (d == NULL)
		return -1;
	if (depth == 1 || (mst(v)->kind == MG_DOMINATING && mst(v)->down)) {
		*out = xmalloc((d->nreached + 1) * sizeof **out);
		if (d->nreached > 0)
			memcpy(*out, d->reached, d->nreached * sizeof **out);
		*n = d->nreached;
		return 0;
	}
	struct merged_step *path = xcalloc(depth, sizeof *path);
	for (size_t k = depth, at = i; k-- > 0; at = parent_of(v, at)) {
		const struct row *pr = &v->rows.v[at];
		const struct rowdata *pd = pr->data;
		path[k].cls = pr->cls;
		path[k].field = pd->field;
		path[k].coll = pd->coll;
		path[k].weak = pd->weak;
		if (k == 0) {
			path[k].from = md->members;
			path[k].nfrom = md->n;
			path[k].parent_cls = HW_NONE;
		} else { /* the level below the row above: its objects */
			const struct row *above = &v->rows.v[parent_of(v, at)];
			path[k].from = ((const struct rowdata *)above->data)->nodes;
			path[k].nfrom = ((const struct rowdata *)above->data)->n;
			path[k].parent_cls = above->cls;
		}
	}
	tui_work_begin(t, "the step's objects reached through the row");
	int rc = merged_reached(t->h, mst(v)->kind, by_of(v), !mst(v)->strong, path, depth, out, n, &t->prog);
	if (tui_work_end(t) < 0)
		rc = -1;
	free(path);
	return rc;
}

/* Enter: the objects of the rows; U: the step's members reached through
 * them (which the reached column counts only at the top). */
static int merged_use(struct tui *t, struct tview *v, int reached, struct use *u)
{
	if (!reached)
		return tv_use_nodes(t, v, 0, u, "Merged");
	int any = 0;
	size_t rows = 0, total = 0;

	for (size_t i = 0; i < v->rows.n; i++)
		any |= v->rows.v[i].marked;
	objset_empty(t->h, &u->set);
	for (size_t i = 0; i < v->rows.n; i++) {
		node_t *a;
		size_t n;
		if ((any ? !v->rows.v[i].marked : i != v->cur) || v->rows.v[i].kind != VR_GROUP)
			continue;
		if (row_reached(t, v, i, &a, &n) < 0) {
			objset_free(&u->set);
			return -1;
		}
		for (size_t k = 0; k < n; k++)
			bit_set(u->set.bits, a[k]);
		free(a);
		rows++;
	}
	objset_recount(t->h, &u->set);
	total = (size_t)u->set.count;
	if (rows == 0 || total == 0) {
		objset_free(&u->set);
		tui_message(t, 1, "%s", rows == 0 ? "put the cursor on a group" : "this row reaches none of the step's objects");
		return -1;
	}
	u->title = xasprintf("Reached: %zu of the %llu object%s", total, (unsigned long long)v->st->set.count,
			     v->st->set.count == 1 ? "" : "s");
	node_t *list = objset_members(t->h, &u->set);
	u->expr = tv_ids_expr(t->h, list, total);
	free(list);
	return 0;
}

/* Another grouping or direction: the rows of the one left are kept
 * aside, and those of the new one come back as they were if it was seen
 * before, else it is computed. */
static void switch_mode(struct tui *t, struct tview *v, int old)
{
	struct merged_data *md = members(t, v);
	struct rowvec rows = v->rows;
	size_t cur = v->cur, top = v->top;

	if (!v->built) { /* a build cancelled: nothing to keep */
		rowvec_free(&rows, tv_rowdata_free);
		cur = top = 0;
		old = -1;
	}
	if (md->saved_mode == mode_of(mst(v))) {
		v->rows = md->saved;
		v->built = 1;
		v->cur = md->saved_cur;
		v->top = md->saved_top;
		v->nmarked = 0;
		for (size_t i = 0; i < v->rows.n; i++)
			v->nmarked += v->rows.v[i].marked;
		md->saved = rows;
		md->saved_cur = cur;
		md->saved_top = top;
		md->saved_mode = old;
		merged_build_head(v);
		return;
	}
	rowvec_free(&md->saved, tv_rowdata_free);
	md->saved = rows;
	md->saved_cur = cur;
	md->saved_top = top;
	md->saved_mode = old;
	memset(&v->rows, 0, sizeof v->rows);
	v->cur = v->top = 0;
	v->nmarked = 0;
	tview_rebuild(t, v);
}

static int merged_group(struct tui *t, struct tview *v, enum request r)
{
	int old = mode_of(mst(v));

	(void)r;
	mst(v)->byfield = !mst(v)->byfield;
	switch_mode(t, v, old);
	return 1;
}

/* t: GC roots to objects, or back (dominating only) */
static int merged_down(struct tui *t, struct tview *v, enum request r)
{
	(void)r;
	if (mst(v)->kind != MG_DOMINATING) {
		tui_message(t, 1, "t: the Dominating view only (GC roots to objects)");
		return 1;
	}
	int old = mode_of(mst(v));
	mst(v)->down = !mst(v)->down;
	switch_mode(t, v, old);
	tui_message(t, 0, mst(v)->down ? "GC roots to objects: the dominator tree, top down"
					: "objects to GC roots: the set's dominators, up");
	return 1;
}

/* w, incoming: the weak and soft holders left out, or back */
static int merged_weak(struct tui *t, struct tview *v, enum request r)
{
	(void)r;
	if (mst(v)->kind != MG_INCOMING) {
		tui_message(t, 1, "w: the Merged in view only (weak and soft holders)");
		return 1;
	}
	int old = mode_of(mst(v));
	mst(v)->strong = !mst(v)->strong;
	switch_mode(t, v, old);
	tui_message(t, 0, mst(v)->strong ? "strong references only"
					 : "weak and soft holders too, marked (weak), and those not owning");
	return 1;
}

static const struct view_key merged_keys[] = {
	{ REQ_GROUP, merged_group },
	{ REQ_REVERSE, merged_down },
	{ REQ_WEAK, merged_weak },
	{ REQ_NONE, NULL },
};

static void out_init(void *state) { ((struct merged_state *)state)->kind = MG_OUTGOING; }
static void in_init(void *state) { ((struct merged_state *)state)->kind = MG_INCOMING; }
static void dom_init(void *state) { ((struct merged_state *)state)->kind = MG_DOMINATING; }

#define MERGED_OPS(tab, init) \
	.name = tab, .flags = VO_REACHED, .state_size = sizeof(struct merged_state), .state_init = init, \
	.build = merged_build, .expand = merged_expand, .use = merged_use, .keys = merged_keys, \
	.row_free = tv_rowdata_free, .data_free = merged_data_free

const struct view_ops merged_out_ops = { MERGED_OPS("Merged out", out_init) };
const struct view_ops merged_in_ops = { MERGED_OPS("Merged in", in_init) };
const struct view_ops merged_dom_ops = { MERGED_OPS("Dominating", dom_init) };
