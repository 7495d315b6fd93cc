/* view_classes.c — the classes view: the step's class histogram, with
 * exact retained sizes on request (E) and, with a baseline, new and gone
 * objects per class (view_classes_delta.c); the package tree and the
 * loaders are in view_classes_group.c. */
#include <stdlib.h>
#include <string.h>

#include "graph/analysis.h"
#include "graph/reader.h"
#include "graph/retained.h"
#include "query/baseline.h"
#include "query/step.h"
#include "tui/view_classes.h"

/* Growth: against a baseline dump (have_gone), the class's bytes now
 * less before, which is new less gone bytes where every object is
 * identified and still tells the growth where they are not (new and
 * gone "?": all 0 when the objects cannot be told apart); of a subset,
 * its new bytes. */
static int64_t growth(const struct classes_data *cd, const struct class_row *r)
{
	const struct cls_delta *d = &cd->d[r->cls];

	if (cd->have_gone)
		return (int64_t)r->shallow - (int64_t)d->old_bytes;
	return (int64_t)d->new_bytes - (int64_t)d->gone_bytes;
}

/* ctx: the view */
static int cmp_rows(const void *a, const void *b, void *ctx)
{
	const struct class_row *x = a, *y = b;
	const struct tview *v = ctx;
	const struct classes_data *cd = v->data;
	const struct heap *h = v->st->h;
	uint64_t p = 0, q = 0;
	int c = 0;

	switch (cst(v)->sort) {
	case CSORT_INSTANCES: p = x->count; q = y->count; break;
	case CSORT_SHALLOW: p = x->shallow; q = y->shallow; break;
	case CSORT_RETAINED: p = class_ret(v, x); q = class_ret(v, y); break;
	case CSORT_GROWTH: /* growth: signed */
		if (cd->d != NULL) {
			int64_t gp = growth(cd, x), gq = growth(cd, y);
			c = gp < gq ? 1 : gp > gq ? -1 : 0;
		}
		break;
	default: break;
	}
	if (c == 0)
		c = p < q ? 1 : p > q ? -1 : 0; /* numbers biggest first */
	if (c == 0)
		c = strcmp(class_name(h, x->cls), class_name(h, y->cls));
	return cst(v)->reverse ? -c : c;
}

static void classes_rows(struct tui *t, struct tview *v)
{
	struct classes_data *cd = v->data;
	struct classes_state *st = cst(v);
	int delta = st->delta && cd->d != NULL;

	hw_sort(cd->rows, cd->n, sizeof *cd->rows, cmp_rows, v);
	if (st->packages) {
		package_level(t, v, "", &v->rows);
	} else if (st->loaders) {
		loader_level(t, v, &v->rows);
	} else {
		for (size_t i = 0; i < cd->n; i++)
			if (class_visible(t, v, cd->rows[i].cls))
				class_row_make(t, v, &v->rows, &cd->rows[i]);
		if (delta)
			gone_only_rows(t, v, &v->rows);
	}
	struct column cols[VIEW_COLS];
	tview_columns(v, cols, classes_columns(delta, t->h->node_gen != NULL, cols));
	v->whole[0] = v->st->set.count;
	v->whole[1] = v->st->set.shallow;
	v->whole[2] = t->h->total_shallow;
	snprintf(v->lefthead, sizeof v->lefthead, "class  (sort: %s%s%s)", classcols_sorts[st->sort].name,
		 st->reverse ? ", reversed" : "", st->packages ? ", packages" : st->loaders ? ", by loader" : "");
}

static int classes_build(struct tui *t, struct tview *v)
{
	struct classes_data *cd = v->data;
	struct sbuf err;
	struct class_view cv;
	struct view_opts o = { .sort = "name", .progress = &t->prog };

	if (cd == NULL) {
		/* every object: the per-class totals, not a pass over the heap */
		struct objset whole = v->st->set;
		if (objset_is_all(t->h, &whole))
			whole.bits = NULL;
		sbuf_init(&err);
		if (view_classes(t->h, &whole, &o, &cv, &err) < 0) {
			tui_message(t, 1, "%s", err.buf);
			sbuf_free(&err);
			return -1;
		}
		sbuf_free(&err);
		cd = v->data = xcalloc(1, sizeof *cd);
		cd->rows = cv.rows; /* taken over */
		cd->n = cv.n;
		if (t->h->baseline != NULL) {
			classes_delta(t, v, cd);
			if (!cst(v)->delta_set) { /* first time: the differences, biggest growth first */
				cst(v)->delta = 1;
				cst(v)->sort = CSORT_GROWTH;
				cst(v)->delta_set = 1;
			}
		}
		if (cst(v)->sort == CSORT_GROWTH && cd->d == NULL) /* taken over from a step with a baseline */
			cst(v)->sort = CSORT_SHALLOW;
	}
	/* a package's or loader's exact size is over the classes the filter
	 * shows: another filter, other sizes */
	const char *f = v->filter ? v->filter : "";
	if (strcmp(f, cd->gexact_filter ? cd->gexact_filter : "") != 0) {
		free(cd->gexact);
		cd->gexact = NULL;
		cd->ngexact = 0;
		free(cd->gexact_filter);
		cd->gexact_filter = xstrdup(f);
	}
	classes_rows(t, v);
	return 0;
}

static int classes_expand(struct tui *t, struct tview *v, size_t i, struct rowvec *out)
{
	struct row *r = &v->rows.v[i];

	if (r->kind == VR_PKG)
		package_level(t, v, ((struct rowdata *)r->data)->prefix, out);
	else if (r->kind == VR_LOADER)
		loader_classes(t, v, ((struct rowdata *)r->data)->loader, out);
	return 0;
}

/* The classes a row stands for, as flags over ncls. */
static void row_classes(struct tui *t, struct tview *v, const struct row *r, uint8_t *m)
{
	struct classes_data *cd = v->data;

	if (r->kind == VR_CLASS) {
		m[r->cls] = 1;
		return;
	}
	for (size_t k = 0; k < cd->n; k++) {
		uint32_t c = cd->rows[k].cls;
		if (class_visible(t, v, c) && group_has(t, r, c))
			m[c] = 1;
	}
}

static int classes_use(struct tui *t, struct tview *v, int reached, struct use *u)
{
	struct heap *h = t->h;
	uint8_t *m;
	int any = 0;
	size_t nm = 0;
	uint32_t one = HW_NONE;

	(void)reached;
	if (v->cur < v->rows.n && v->rows.v[v->cur].kind == VR_GONECLS) { /* nothing here: the gone ones */
		for (size_t i = 0; i < v->rows.n; i++)
			any |= v->rows.v[i].marked;
		if (!any)
			return gone_of_class(t, h->baseline->old,
					     (uint32_t)((struct rowdata *)v->rows.v[v->cur].data)->loader, u);
	}
	m = xcalloc(h->ncls + 1, 1);
	for (size_t i = 0; i < v->rows.n; i++)
		any |= v->rows.v[i].marked;
	for (size_t i = 0; i < v->rows.n; i++)
		if (any ? v->rows.v[i].marked : i == v->cur)
			row_classes(t, v, &v->rows.v[i], m);
	objset_empty(h, &u->set);
	for (node_t n = 1; n < h->n; n++)
		if (bit_get(v->st->set.bits, n) && m[h->node_class[n]])
			bit_set(u->set.bits, n);
	objset_recount(h, &u->set);
	struct sbuf ex;
	sbuf_init(&ex);
	for (uint32_t c = 0; c < h->ncls; c++)
		if (m[c]) {
			nm++;
			one = c;
		}
	/* by name, so the expression reads the same every time; unless
	 * another loader has a class of the same name: then the objects'
	 * ids, if few enough, or no expression */
	int byname = nm > 0 && tv_names_unique(h, m);
	if (nm == 1) {
		const char *name = class_name(h, one);
		struct sbuf l;
		sbuf_init(&l);
		tv_add_esc(&l, name);
		u->title = xasprintf("Instances of %s", l.buf);
		sbuf_free(&l);
		if (byname)
			tv_instances_expr(&ex, name);
	} else if (nm > 1) {
		u->title = xasprintf("Instances of %zu classes", nm);
		if (byname) {
			uint32_t *list = xmalloc(nm * sizeof *list);
			size_t k = 0;
			for (uint32_t c = 0; c < h->ncls; c++)
				if (m[c])
					list[k++] = c;
			hw_sort(list, nm, sizeof *list, cmp_cls_name, h);
			sbuf_adds(&ex, "instances /^(?:");
			for (k = 0; k < nm; k++) {
				if (k > 0)
					sbuf_addc(&ex, '|');
				tv_rx_literal(&ex, class_name(h, list[k]));
			}
			sbuf_adds(&ex, ")\\z/");
			free(list);
		}
	} else {
		u->title = xstrdup("Instances");
	}
	if (byname || nm == 0) {
		u->expr = sbuf_detach(&ex);
	} else {
		node_t *ids = xmalloc((EXPR_MAX_IDS + 1) * sizeof *ids);
		size_t k = 0;
		for (node_t n = 1; n < h->n && k <= EXPR_MAX_IDS; n++)
			if (bit_get(u->set.bits, n))
				ids[k++] = n;
		u->expr = tv_ids_expr(h, ids, k);
		free(ids);
		sbuf_free(&ex);
	}
	free(m);
	return 0;
}

/* E: the exact retained sizes of the marked rows, or of the visible
 * ones, all in one call (a pass over the heap for every 64 rows). */
static void classes_exact(struct tui *t, struct tview *v)
{
	struct heap *h = t->h;
	struct classes_data *cd = v->data;
	int any = 0;
	size_t page = (size_t)(t->rows > 6 ? t->rows - 6 : 1), k = 0, ncls = 0, cls_cap = 0;
	uint8_t *m = xcalloc(h->ncls + 1, 1);
	size_t *rows = xmalloc((v->rows.n + 1) * sizeof *rows), *start = xmalloc((v->rows.n + 1) * sizeof *start);
	uint32_t *cls = NULL;

	if (cd->exact == NULL) {
		cd->exact = xmalloc((h->ncls + 1) * sizeof *cd->exact);
		for (uint32_t c = 0; c <= h->ncls; c++)
			cd->exact[c] = UINT64_MAX;
	}
	for (size_t i = 0; i < v->rows.n; i++)
		any |= v->rows.v[i].marked;
	for (size_t i = 0; i < v->rows.n; i++) { /* the rows to compute, each a set of classes */
		struct row *r = &v->rows.v[i];
		if (any ? !r->marked : (i < v->top || i >= v->top + page))
			continue;
		if ((r->kind != VR_CLASS && r->kind != VR_PKG && r->kind != VR_LOADER) || (r->flags & RF_EXACT))
			continue;
		memset(m, 0, h->ncls + 1);
		row_classes(t, v, r, m);
		rows[k] = i;
		start[k++] = ncls;
		for (uint32_t c = 0; c < h->ncls; c++)
			if (m[c]) {
				if (ncls == cls_cap) { /* doubled: a row's classes may be thousands */
					cls_cap = cls_cap ? 2 * cls_cap : 64;
					cls = xreallocarray(cls, cls_cap, sizeof *cls);
				}
				cls[ncls++] = c;
			}
	}
	start[k] = ncls;
	uint64_t *bytes = xmalloc((k + 1) * sizeof *bytes);
	struct class_sets sets = { k, start, cls, objset_is_all(h, &v->st->set) ? NULL : v->st->set.bits };
	size_t done = 0;
	tui_work_begin(t, "exact retained sizes");
	retained_sets(h, &sets, bytes, NULL, &t->prog);
	int cancelled = tui_work_end(t) < 0;
	for (size_t j = 0; j < k; j++) {
		struct row *r = &v->rows.v[rows[j]];
		if (bytes[j] == RETAINED_UNKNOWN)
			continue;
		done++;
		if (r->kind == VR_CLASS)
			cd->exact[r->cls] = bytes[j];
		else
			group_exact_set(cd, r->key, bytes[j]);
		r->val[CFIG_RETAINED] = bytes[j];
		r->flags |= RF_EXACT;
		r->unknown &= ~(1u << CFIG_RETAINED);
	}
	free(bytes);
	free(cls);
	free(rows);
	free(start);
	free(m);
	if (done > 0 && cst(v)->sort == CSORT_RETAINED) /* the order changed */
		tview_resort(t, v);
	if (cancelled)
		tui_message(t, 1, "cancelled after %zu exact sizes", done);
	else
		tui_message(t, 0, "%zu exact retained sizes computed (marked '=')", done);
}

/* s, then one key: the column; the same one again reverses it */
static int classes_sort(struct tui *t, struct tview *v, enum request r)
{
	struct classes_data *cd = v->data;
	struct classes_state *st = cst(v);
	int growth_ok = cd != NULL && cd->d != NULL;

	(void)r;
	int k = tui_ask(t, growth_ok ? "sort by: n name, i instances, s shallow, r retained, g growth (again: reverse)"
				     : "sort by: n name, i instances, s shallow, r retained (again: reverse)");
	int col = -1;
	for (int i = 0; i < CSORT_N && col < 0; i++)
		if (k == classcols_sorts[i].key && (growth_ok || !classcols_sorts[i].baseline))
			col = i;
	if (col < 0) {
		if (k == 'g' && t->h->baseline == NULL) /* a key of the baseline's */
			tui_message(t, 1, "g sorts by growth, against a baseline: press B to load one");
		else if (k >= 0)
			tui_message(t, 1, "no sort key '%c'", k > 32 && k < 127 ? k : '?');
		return 1;
	}
	if (col == st->sort)
		st->reverse = !st->reverse;
	else {
		st->sort = col;
		st->reverse = 0;
	}
	st->growth_off = 0; /* the user's sort stands */
	tview_resort(t, v);
	return 1;
}

static int classes_exact_key(struct tui *t, struct tview *v, enum request r)
{
	struct classes_data *cd = v->data;

	(void)r;
	if (cd == NULL)
		return 0;
	if (cst(v)->delta && cd->d != NULL) {
		tui_message(t, 1, "the retained columns are off: d shows them");
		return 1;
	}
	classes_exact(t, v);
	return 1;
}

static int classes_delta_key(struct tui *t, struct tview *v, enum request r)
{
	struct classes_data *cd = v->data;
	struct classes_state *st = cst(v);

	(void)r;
	if (cd == NULL || cd->d == NULL) {
		tui_message(t, 1, "%s", t->h == t->main ? "no baseline: press B to load one"
						       : "this step is on the baseline's side");
		return 1;
	}
	st->delta = !st->delta;
	if (!st->delta && st->sort == CSORT_GROWTH) { /* shallow, biggest first */
		st->sort = CSORT_SHALLOW;
		st->growth_off = 1;
		st->growth_rev = st->reverse;
		st->reverse = 0;
	} else if (st->delta && st->growth_off) {
		st->sort = CSORT_GROWTH; /* as it was, no other sort chosen meanwhile */
		st->reverse = st->growth_rev;
	}
	if (st->delta)
		st->growth_off = 0;
	tview_resort(t, v);
	return 1;
}

/* ~ on a class row with gone objects: those; elsewhere the frame's ~ */
static int classes_gone_key(struct tui *t, struct tview *v, enum request r)
{
	struct classes_data *cd = v->data;

	(void)r;
	if (cd == NULL || !cd->have_gone || !cst(v)->delta || v->cur >= v->rows.n)
		return 0;
	struct row *row = &v->rows.v[v->cur];
	struct use u = { .title = NULL };
	if (row->kind == VR_CLASS && cd->d[row->cls].gone_count > 0)
		gone_of_class(t, t->h, row->cls, &u);
	else if (row->kind == VR_GONECLS)
		gone_of_class(t, t->h->baseline->old, (uint32_t)((struct rowdata *)row->data)->loader, &u);
	else
		return 0;
	tui_push(t, &u);
	return 1;
}

/* p and L: the package tree, the loaders; one at a time */
static int classes_group_key(struct tui *t, struct tview *v, enum request r)
{
	struct classes_state *st = cst(v);

	if (r == REQ_PACKAGES) {
		st->packages = !st->packages;
		st->loaders = 0;
	} else if (!heap_knows_loaders(t->h)) {
		tui_message(t, 1, "this dump names no class loaders: only a JVM's (HPROF) does");
		return 1;
	} else {
		st->loaders = !st->loaders;
		st->packages = 0;
	}
	tview_rebuild(t, v);
	return 1;
}

/* K: the step narrowed to the objects of the classes the cursor's
 * loader defines (the step "loader ID"), or back */
static int classes_loader_only(struct tui *t, struct tview *v, enum request r)
{
	struct hstep *s = v->st;
	size_t i = v->cur;

	(void)r;
	if (s->filtered) {
		tui_step_filter(t, NULL, NULL, NULL);
		tui_message(t, 0, "every class loader again");
		return 1;
	}
	if (!heap_knows_loaders(t->h)) {
		tui_message(t, 1, "this dump names no class loaders: only a JVM's (HPROF) does");
		return 1;
	}
	if (!cst(v)->loaders) {
		tui_message(t, 1, "L groups the classes by loader first; then K on a loader");
		return 1;
	}
	while (i < v->rows.n && v->rows.v[i].kind != VR_LOADER && i > 0) /* a class: its loader's row */
		i--;
	if (i >= v->rows.n || v->rows.v[i].kind != VR_LOADER) {
		tui_message(t, 1, "put the cursor on a class loader");
		return 1;
	}
	uint64_t id = ((struct rowdata *)v->rows.v[i].data)->loader;
	struct objset set = s->set;
	struct sbuf err, what;
	char expr[64];
	set.bits = xmalloc(bits_words(t->h->n) * sizeof *set.bits);
	memcpy(set.bits, s->set.bits, bits_words(t->h->n) * sizeof *set.bits);
	snprintf(expr, sizeof expr, id ? "loader 0x%llx" : "loader %llu", (unsigned long long)id);
	struct pipeline pl;
	sbuf_init(&err);
	sbuf_init(&what);
	if (pipeline_parse(expr, &pl, &err) == 0 && step_apply(t->h, &pl.steps[0], &set, NULL, &err) == 0) {
		if (id == 0)
			sbuf_adds(&what, "bootstrap loader");
		else if (v->rows.v[i].node != HW_NONE)
			tv_object_text(t->h, v->rows.v[i].node, &what, NULL);
		else
			sbuf_adds(&what, expr);
		tui_step_filter(t, &set, expr, what.buf);
		tui_message(t, 0, "only %s's objects, here and in the steps made from here (K again: all)", what.buf);
	} else {
		objset_free(&set);
		tui_message(t, 1, "%s", err.buf);
	}
	pipeline_free(&pl);
	sbuf_free(&err);
	sbuf_free(&what);
	return 1;
}

/* Z: the step's unreachable objects alone, as a filter (the step
 * "unreachable"): the classes view is then their histogram; again: the
 * live ones alone (the step "live", Eclipse MAT's histogram); a third
 * time (or with another filter on): every object. */
static int classes_unreachable(struct tui *t, struct tview *v, enum request r)
{
	struct hstep *s = v->st;
	struct sbuf err;
	struct pipeline pl;
	const char *word = "unreachable";

	(void)r;
	if (s->filtered) {
		/* the filter on is Z's first when the title says so (the
		 * expression may be NULL: a step no pipeline writes) */
		size_t n = s->title == NULL ? 0 : strlen(s->title);
		int was = n >= 14 && strcmp(s->title + n - 14, " (unreachable)") == 0;
		tui_step_filter(t, NULL, NULL, NULL);
		if (!was) {
			tui_message(t, 0, "every object again");
			return 1;
		}
		word = "live";
	}
	struct objset set = s->set;
	set.bits = xmalloc(bits_words(t->h->n) * sizeof *set.bits);
	memcpy(set.bits, s->set.bits, bits_words(t->h->n) * sizeof *set.bits);
	sbuf_init(&err);
	if (pipeline_parse(word, &pl, &err) == 0 && step_apply(t->h, &pl.steps[0], &set, NULL, &err) == 0) {
		tui_step_filter(t, &set, word, word);
		if (*word == 'l')
			tui_message(t, 0, "only the objects the GC roots reach (Z again: all)");
		else
			tui_message(t, 0, t->h->keep_unreachable ? "only the unreachable objects (kept: they count as holders; Z again: the live ones)"
					  : "only the unreachable objects (they retain no live object; Z again: the live ones)");
	} else {
		objset_free(&set);
		tui_message(t, 1, "%s", err.buf);
	}
	pipeline_free(&pl);
	sbuf_free(&err);
	return 1;
}

static void classes_data_free(void *data)
{
	struct classes_data *cd = data;

	if (cd != NULL) {
		free(cd->rows);
		free(cd->d);
		free(cd->only);
		free(cd->exact);
		free(cd->gexact);
		free(cd->gexact_filter);
		free(cd);
	}
}

static void classes_state_init(void *state)
{
	struct classes_state *st = state;

	st->sort = CSORT_SHALLOW;
}

static const struct view_key classes_keys[] = {
	{ REQ_SORT, classes_sort },
	{ REQ_EXACT, classes_exact_key },
	{ REQ_DELTA, classes_delta_key },
	{ REQ_USE_GONE, classes_gone_key },
	{ REQ_PACKAGES, classes_group_key },
	{ REQ_LOADERS, classes_group_key },
	{ REQ_LOADER_ONLY, classes_loader_only },
	{ REQ_UNREACHABLE, classes_unreachable },
	{ REQ_NONE, NULL },
};

const struct view_ops classes_ops = {
	.name = "Classes",
	.flags = VO_FILTER,
	.state_size = sizeof(struct classes_state),
	.state_init = classes_state_init,
	.build = classes_build,
	.expand = classes_expand,
	.use = classes_use,
	.keys = classes_keys,
	.row_free = tv_rowdata_free,
	.data_free = classes_data_free,
};
