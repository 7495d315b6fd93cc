/* view_alloc.c — allocations: where the step's objects were allocated,
 * for dumps with the agent's sampled stack traces: hot spots (sites,
 * then their callers) or the call tree. */
#include <stdlib.h>
#include <string.h>

#include "graph/reader.h"
#include "query/alloc.h"
#include "query/views.h"
#include "tui/view.h"

struct alloc_state {
	int calltree;       /* c: the call tree instead of the hot spots */
};

static struct alloc_state *ast(const struct tview *v) { return v->state; }

/* The tree shown: hot spots (allocation sites, then their callers) or
 * the call tree (outermost frames first). */
static const struct alloc_tree *alloc_tree_of(const struct tview *v)
{
	const struct alloc_view *av = v->data;

	return ast(v)->calltree ? &av->calls : &av->hot;
}

/* The children of node i, as rows. */
static void alloc_level(struct tui *t, struct tview *v, uint32_t i, struct rowvec *out)
{
	const struct alloc_view *av = v->data;
	const struct alloc_tree *tr = alloc_tree_of(v);
	const struct alloc_node *n = &tr->n[i];
	struct sbuf l, raw;

	(void)av;
	sbuf_init(&l);
	sbuf_init(&raw);
	for (uint32_t k = 0; k < n->nkids; k++) {
		uint32_t c = tr->kid[n->kids + k];
		const struct alloc_node *cn = &tr->n[c];
		sbuf_reset(&l);
		sbuf_reset(&raw);
		frame_label(t->h, cn->frame, &raw);
		tv_add_esc(&l, raw.buf);
		if (!tui_filter_ok(v, l.buf, raw.buf))
			continue;
		struct row *r = rowvec_add(out);
		r->kind = VR_ALLOC;
		r->num[0] = c;
		r->key = ((uint64_t)c + 1) | (uint64_t)ast(v)->calltree << 63; /* two trees */
		r->val[0] = cn->count;
		r->val[1] = cn->bytes;
		r->open = cn->nkids ? 0 : -1;
		/* "java.util.ArrayList.add(...)": the class is abbreviated first */
		const char *cls = heap_str(t->h, t->h->frames[cn->frame].class_name);
		size_t cl = strlen(cls);
		row_set_named(r, l.buf, 0, cl <= l.len && strncmp(l.buf, cls, cl) == 0 ? cl : 0);
	}
	sbuf_free(&l);
	sbuf_free(&raw);
}

static int alloc_build(struct tui *t, struct tview *v)
{
	struct alloc_view *av = v->data;

	if (av == NULL) {
		av = v->data = xmalloc(sizeof *av);
		view_allocations(t->h, &v->st->set, av);
	}
	if (av->traced_count == 0) {
		struct row *r = rowvec_add(&v->rows);
		struct sbuf why;
		sbuf_init(&why);
		sbuf_printf(&why, "no object of this set has an allocation trace (%s)", heap_alloc_hint(t->h));
		row_set(r, why.buf, NULL);
		sbuf_free(&why);
		r->kind = VR_INFO;
		r->flags = RF_NOCOLS;
	} else {
		alloc_level(t, v, 0, &v->rows);
	}
	static const struct column cols[] = {
		{ .title = "objects", .type = COL_COUNT, .val = 0 },
		{ .title = "bytes", .type = COL_BYTES, .val = 1 },
		{ .title = "%", .type = COL_PCT, .val = 1, .den = -1, .drop = 1 },
	};
	tview_columns(v, cols, 3);
	v->whole[1] = av->traced_bytes;
	snprintf(v->lefthead, sizeof v->lefthead, "%s: %llu traced",
		 ast(v)->calltree ? "call tree" : "hot spots, callers", (unsigned long long)av->traced_count);
	return 0;
}

static int alloc_expand(struct tui *t, struct tview *v, size_t i, struct rowvec *out)
{
	const struct row *r = &v->rows.v[i];

	if (r->kind == VR_ALLOC)
		alloc_level(t, v, (uint32_t)r->num[0], out);
	return 0;
}

/* The set's objects allocated on the marked rows' paths, or the cursor's. */
static int alloc_use(struct tui *t, struct tview *v, int reached, struct use *u)
{
	const struct alloc_view *av = v->data;
	const struct alloc_tree *tr;
	struct objset one;
	size_t n = 0, last = 0;
	int any = 0;

	(void)reached;
	if (av == NULL) {
		tui_message(t, 1, "no allocation site on this row");
		return -1;
	}
	tr = alloc_tree_of(v);
	for (size_t i = 0; i < v->rows.n; i++)
		any |= v->rows.v[i].marked;
	objset_empty(t->h, &u->set);
	for (size_t i = 0; i < v->rows.n; i++) {
		const struct row *r = &v->rows.v[i];
		if (r->kind != VR_ALLOC || !(any ? r->marked : i == v->cur))
			continue;
		alloc_select(t->h, &v->st->set, av, tr, (uint32_t)r->num[0], &one);
		for (size_t w = 0; w < bits_words(t->h->n); w++)
			u->set.bits[w] |= one.bits[w];
		objset_free(&one);
		n++;
		last = i;
	}
	if (n == 0) {
		objset_free(&u->set);
		tui_message(t, 1, "no allocation site on this row");
		return -1;
	}
	objset_recount(t->h, &u->set);
	if (n == 1) {
		struct sbuf l;
		sbuf_init(&l);
		frame_label(t->h, tr->n[v->rows.v[last].num[0]].frame, &l);
		struct sbuf e;
		sbuf_init(&e);
		tv_add_esc(&e, l.buf);
		u->title = xasprintf("Allocated %s %s", ast(v)->calltree ? "in" : "at", e.buf);
		sbuf_free(&e);
		sbuf_free(&l);
	} else {
		u->title = xasprintf("Allocated at %zu sites", n);
	}
	if (n == 1) { /* "site A <- B" or "calls A -> B": the row's path */
		struct sbuf e;
		sbuf_init(&e);
		sbuf_adds(&e, ast(v)->calltree ? "calls " : "site ");
		uint8_t *amb = alloc_ambiguous(t->h);
		if (alloc_path_text(t->h, tr, (uint32_t)v->rows.v[last].num[0], !ast(v)->calltree, amb, &e) == 0)
			u->expr = sbuf_detach(&e);
		free(amb);
		sbuf_free(&e);
	}
	return 0;
}

static int alloc_group(struct tui *t, struct tview *v, enum request r)
{
	(void)r;
	ast(v)->calltree = !ast(v)->calltree;
	tview_rebuild(t, v);
	return 1;
}

static void alloc_data_free(void *data)
{
	if (data != NULL)
		alloc_view_free(data);
	free(data);
}

static const struct view_key alloc_keys[] = {
	{ REQ_GROUP, alloc_group },
	{ REQ_NONE, NULL },
};

const struct view_ops alloc_ops = {
	.name = "Allocations",
	.flags = VO_FILTER,
	.short_name = "Alloc",
	.state_size = sizeof(struct alloc_state),
	.build = alloc_build,
	.expand = alloc_expand,
	.use = alloc_use,
	.keys = alloc_keys,
	.row_free = tv_rowdata_free,
	.data_free = alloc_data_free,
};
