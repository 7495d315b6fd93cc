/* view_leaks.c — what an action leaked (query/leaks.h), in the browser
 * opened with a baseline and a target (heapwalk -b BASE --target TARGET
 * DUMP): a row per cluster of the dump's leaked objects, its trace as
 * the label, its tops, leaked objects and retained size; open, its
 * example path from the GC root; Enter (on the cursor's or the marked
 * clusters) makes their tops a step. The clusters are the dump's,
 * whatever the step: the target is read once, when the view is first
 * shown. */
#include <stdlib.h>
#include <string.h>

#include "graph/resident.h"
#include "query/leaks.h"
#include "query/views.h"
#include "tui/view.h"

struct leaks_data {
	struct leaks_view lv;
	int have;           /* lv made */
	char *why;          /* else why not (said in the view) */
	char *identity;     /* what the answer rests on */
};

static void leaks_data_free(void *data)
{
	struct leaks_data *d = data;

	if (d != NULL) {
		if (d->have)
			leaks_view_free(&d->lv);
		free(d->why);
		free(d->identity);
	}
	free(d);
}

/* The target opened, the leaks found and clustered (every cluster's
 * example path made), the target let go. */
static void leaks_make(struct tui *t, struct leaks_data *d)
{
	struct heap target;
	struct leak_find lf;
	struct sbuf err;
	struct open_opts oo = t->oo;

	if (t->target == NULL || t->old == NULL) {
		d->why = xstrdup("no leaks to show: open the dump after the action was undone with the one before "
				 "it and the one after it, heapwalk -b BASE --target TARGET DUMP");
		return;
	}
	sbuf_init(&err);
	oo.snapshot = 0;
	oo.quiet = 1;
	tui_work_begin(t, "leaks: the target");
	if (heap_open(&target, t->target, &oo, &t->prog, &err) < 0) {
		tui_work_end(t);
		d->why = sbuf_detach(&err);
		return;
	}
	target.warn.quiet = target.notes.quiet = 1;
	if (leaks_find(t->old, &target, t->main, &lf, &t->prog, &err) < 0) {
		heap_free(&target);
		tui_work_end(t);
		d->why = sbuf_detach(&err);
		return;
	}
	heap_free(&target);
	heap_need(t->main, HP_ALL, &t->prog);
	view_leaks(t->main, &lf.leaked, 0, &d->lv);
	tui_work_end(t);
	d->have = 1;
	d->identity = xstrdup(lf.identity);
	leak_find_free(&lf);
	sbuf_free(&err);
}

static int leaks_build(struct tui *t, struct tview *v)
{
	struct leaks_data *d = v->data;
	struct sbuf l;
	static const struct column cols[] = {
		{ .title = "count", .type = COL_COUNT, .val = 0 },
		{ .title = "leaked", .type = COL_COUNT, .val = 1, .drop = 2 },
		{ .title = "retained", .type = COL_BYTES, .val = 2 },
		{ .title = "%", .type = COL_PCT, .val = 2, .den = -1, .drop = 1 },
	};

	if (d == NULL) {
		d = v->data = xcalloc(1, sizeof *d);
		leaks_make(t, d);
	}
	tview_columns(v, cols, 4);
	sbuf_init(&l);
	if (!d->have || t->h != t->main) {
		struct row *r = rowvec_add(&v->rows);
		tv_add_esc(&l, d->have ? "the leaks are of the dump, not of the baseline's side" : d->why);
		row_set(r, l.buf, NULL);
		r->kind = VR_INFO;
		r->flags = RF_NOCOLS;
		snprintf(v->lefthead, sizeof v->lefthead, "leaks");
		sbuf_free(&l);
		return 0;
	}
	const struct leaks_view *lv = &d->lv;
	for (size_t k = 0; k < lv->n; k++) {
		const struct leak_cluster *c = &lv->cl[k];
		struct sbuf e;
		leaks_trace_text(lv, k, &l); /* raw dump text: escaped for the row */
		sbuf_init(&e);
		tv_add_esc(&e, l.buf);
		if (!tui_filter_ok(v, e.buf, l.buf)) {
			sbuf_free(&e);
			continue;
		}
		struct row *r = rowvec_add(&v->rows);
		r->node = HW_NONE;
		r->cls = HW_NONE;
		r->kind = VR_GROUP;
		r->num[0] = k;
		r->key = k + 1;
		r->open = c->nsteps > 0 || c->example != 0 ? 0 : -1;
		r->val[0] = c->count;
		r->val[1] = c->objects;
		r->val[2] = c->retained;
		row_set(r, e.buf, NULL);
		sbuf_free(&e);
		struct rowdata *rd = tv_rowdata(r);
		rd->n = c->count;
		rd->nodes = xmalloc(c->count * sizeof *rd->nodes);
		memcpy(rd->nodes, c->members, c->count * sizeof *rd->nodes);
	}
	sbuf_free(&l);
	v->whole[2] = lv->retained;
	char shown[48] = ""; /* a filter's: the clusters it leaves, of them all */
	if (v->filter_re != NULL)
		snprintf(shown, sizeof shown, " (%zu shown: filter)", v->rows.n);
	snprintf(v->lefthead, sizeof v->lefthead, "leak clusters: %zu%s, %llu leaked objects (%s)", lv->n, shown,
		 (unsigned long long)lv->leaked, strncmp(d->identity, "exact", 5) == 0 ? "exact" : "not exact");
	return 0;
}

/* A cluster's example path: the GC root, each step (its first object, the
 * holder's class, the field, how many times), the leaked object. */
static int leaks_expand(struct tui *t, struct tview *v, size_t i, struct rowvec *out)
{
	const struct leaks_data *d = v->data;
	const struct row *parent = &v->rows.v[i];
	const struct leak_cluster *c = &d->lv.cl[parent->num[0]];
	struct sbuf l;
	char id[32];

	sbuf_init(&l);
	for (size_t s = 0; s < c->nsteps; s++) {
		const struct leak_step *st = &d->lv.steps[c->first + s];
		sbuf_reset(&l);
		if (s == 0) {
			tv_add_esc(&l, d->lv.strs[c->root]);
			sbuf_adds(&l, ": ");
		}
		node_id_text(t->main, st->node, id, sizeof id);
		tv_add_esc(&l, d->lv.strs[st->holder]);
		sbuf_printf(&l, " %s .", id);
		tv_add_esc(&l, d->lv.strs[st->field]);
		if (st->times > 1)
			sbuf_printf(&l, " (%llu times)", (unsigned long long)st->times);
		struct row *r = rowvec_add(out);
		r->kind = VR_INFO;
		r->flags = RF_NOCOLS;
		r->depth = parent->depth + 1;
		r->open = -1;
		r->node = st->node;
		row_set(r, l.buf, NULL);
	}
	struct row *r = tv_object_row(t->main, out, c->example);
	r->depth = parent->depth + 1;
	r->open = -1;
	r->flags |= RF_NOCOLS;
	sbuf_free(&l);
	return 0;
}

static int leaks_use(struct tui *t, struct tview *v, int reached, struct use *u)
{
	if (v->data == NULL || !((struct leaks_data *)v->data)->have) {
		tui_message(t, 1, "no leak cluster here");
		return -1;
	}
	return tv_use_nodes(t, v, reached, u, "Leak cluster");
}

const struct view_ops leaks_ops = {
	.name = "Leaks",
	.flags = VO_FILTER,
	.build = leaks_build,
	.expand = leaks_expand,
	.use = leaks_use,
	.row_free = tv_rowdata_free,
	.data_free = leaks_data_free,
};
