/* view_classes.c — the classes view: the step's class histogram, the
 * package tree, the grouping by class loader, exact retained sizes on
 * request and, with a baseline, new and gone objects per class. */
#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "graph/analysis.h"
#include "query/baseline.h"
#include "query/views.h"
#include "tui/view.h"

/* The view's options, kept with the step. */
struct classes_state {
	int sort, reverse;  /* sort_names[sort] */
	int delta;          /* new and gone columns instead of retained */
	int delta_set;      /* delta chosen once (on by default with a baseline) */
	int packages, loaders;
};

static struct classes_state *cst(const struct tview *v) { return v->state; }

/* Against the baseline: the set's new objects of a class, and (for the
 * whole dump, with a baseline dump) the baseline's objects of that name
 * that are gone. */
struct cls_delta {
	uint64_t new_count, new_bytes, gone_count, gone_bytes;
};

struct classes_data {
	struct class_row *rows; /* every class with instances in the set (or gone ones) */
	size_t n;
	struct cls_delta *d;    /* per class, with a baseline; else NULL */
	int have_gone;          /* the gone columns mean something */
	struct gone_only {      /* the baseline's classes with gone objects and no namesake here */
		uint32_t cls;   /* of the baseline dump */
		struct cls_delta d;
	} *only;
	size_t nonly;
	uint64_t *exact;        /* exact retained per class, UINT64_MAX unknown; NULL: none asked */
};

static const char *const sort_names[] = { "name", "instances", "shallow", "retained", "growth" };

static int64_t growth(const struct cls_delta *d)
{
	return (int64_t)d->new_bytes - (int64_t)d->gone_bytes;
}

static uint64_t class_ret(const struct tview *v, const struct class_row *r)
{
	const struct classes_data *cd = v->data;

	return cd->exact && cd->exact[r->cls] != UINT64_MAX ? cd->exact[r->cls] : r->retained_lb;
}

static int class_exact(const struct tview *v, uint32_t c)
{
	const struct classes_data *cd = v->data;

	return cd->exact && cd->exact[c] != UINT64_MAX;
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
	case 1: p = x->count; q = y->count; break;
	case 2: p = x->shallow; q = y->shallow; break;
	case 3: p = class_ret(v, x); q = class_ret(v, y); break;
	case 4: /* growth: signed */
		if (cd->d != NULL) {
			int64_t gp = growth(&cd->d[x->cls]), gq = growth(&cd->d[y->cls]);
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

static void signed_count(struct sbuf *rt, char sign, uint64_t n, int known)
{
	char buf[32];

	if (!known)
		snprintf(buf, sizeof buf, "-");
	else if (n == 0)
		snprintf(buf, sizeof buf, "0");
	else
		snprintf(buf, sizeof buf, "%c%llu", sign, (unsigned long long)n);
	sbuf_printf(rt, " %9s", buf);
}

static void signed_bytes(struct sbuf *rt, char sign, uint64_t b, int known)
{
	char buf[40], num[32];

	if (!known) {
		snprintf(buf, sizeof buf, "-");
	} else if (b == 0) {
		snprintf(buf, sizeof buf, "0");
	} else {
		fmt_bytes(num, sizeof num, b);
		snprintf(buf, sizeof buf, "%c%s", sign, num);
	}
	sbuf_printf(rt, " %10s", buf);
}

/* The difference columns: instances, new, gone, shallow, new bytes, gone bytes. */
static void delta_right(const struct classes_data *cd, uint64_t count, uint64_t shallow,
			const struct cls_delta *d, struct sbuf *rt)
{
	sbuf_printf(rt, "%10llu", (unsigned long long)count);
	signed_count(rt, '+', d->new_count, 1);
	signed_count(rt, '-', d->gone_count, cd->have_gone);
	sbuf_addc(rt, ' ');
	tv_add_bytes(rt, shallow);
	signed_bytes(rt, '+', d->new_bytes, 1);
	signed_bytes(rt, '-', d->gone_bytes, cd->have_gone);
}

/* A row's columns; d: its delta, shown instead of retained in delta mode. */
static void class_right(struct tui *t, struct tview *v, uint64_t count, uint64_t shallow, uint64_t ret,
			int exact, int known, const struct cls_delta *d, struct sbuf *rt)
{
	const struct hstep *s = v->st;

	if (cst(v)->delta && d != NULL) {
		delta_right(v->data, count, shallow, d, rt);
		return;
	}
	sbuf_printf(rt, "%10llu %5.1f%%", (unsigned long long)count, tv_pct(count, s->set.count));
	tv_add_bytes(rt, shallow);
	sbuf_printf(rt, " %5.1f%%", tv_pct(shallow, s->set.shallow));
	if (!known) {
		sbuf_adds(rt, "          ?       ");
		return;
	}
	sbuf_adds(rt, exact ? " =" : " >=");
	tv_add_bytes(rt, ret);
	sbuf_printf(rt, " %5.1f%%", tv_pct(ret, t->h->total_shallow));
}

static void delta_add(struct cls_delta *sum, const struct classes_data *cd, uint32_t c)
{
	if (cd->d == NULL)
		return;
	sum->new_count += cd->d[c].new_count;
	sum->new_bytes += cd->d[c].new_bytes;
	sum->gone_count += cd->d[c].gone_count;
	sum->gone_bytes += cd->d[c].gone_bytes;
}

static struct row *class_row_make(struct tui *t, struct tview *v, struct rowvec *out,
				  const struct class_row *cr)
{
	struct row *r = rowvec_add(out);
	struct sbuf l, rt;
	int exact = class_exact(v, cr->cls);

	sbuf_init(&l);
	sbuf_init(&rt);
	struct classes_data *cd = v->data;
	tv_add_esc(&l, class_name(t->h, cr->cls));
	class_right(t, v, cr->count, cr->shallow, class_ret(v, cr), exact, 1, cd->d ? &cd->d[cr->cls] : NULL,
		    &rt);
	r->cls = cr->cls;
	r->kind = VR_CLASS;
	r->num[0] = cr->count;
	row_set(r, l.buf, rt.buf);
	sbuf_free(&l);
	sbuf_free(&rt);
	return r;
}

/* Do the classes of rows match? (the filter is on the escaped name) */
static int class_visible(struct tui *t, struct tview *v, uint32_t c)
{
	struct sbuf l;

	if (v->filter_re == NULL)
		return 1;
	sbuf_init(&l);
	tv_add_esc(&l, class_name(t->h, c));
	int ok = tui_filter_ok(v, l.buf);
	sbuf_free(&l);
	return ok;
}

/* The package of a class at `depth` segments: "java.util." for depth 2;
 * NULL when the name has fewer dots (the class sits at that level). */
static char *pkg_prefix(const char *name, int depth)
{
	const char *p = name;

	if (name[0] == '[') /* arrays: a package of their own */
		return depth == 1 ? xstrdup("[") : NULL;
	for (int i = 0; i < depth; i++) {
		p = strchr(p, '.');
		if (p == NULL)
			return NULL;
		p++;
	}
	return strndup(name, (size_t)(p - name));
}

static int prefix_depth(const char *prefix)
{
	int d = 0;

	if (strcmp(prefix, "[") == 0)
		return 1;
	for (const char *p = prefix; *p; p++)
		d += *p == '.';
	return d;
}

/* Rows under a prefix ("" at the top): subpackages, then classes. */
static void package_level(struct tui *t, struct tview *v, const char *prefix, struct rowvec *out)
{
	struct classes_data *cd = v->data;
	int depth = *prefix ? prefix_depth(prefix) + 1 : 1;
	size_t np = strlen(prefix);
	char **seen = NULL;
	size_t nseen = 0;

	for (size_t i = 0; i < cd->n; i++) {
		const char *name = class_name(t->h, cd->rows[i].cls);
		if (strncmp(name, prefix, np) != 0 || !class_visible(t, v, cd->rows[i].cls))
			continue;
		if (strcmp(prefix, "[") == 0 || (np == 0 && name[0] != '[' && strchr(name, '.') == NULL)) {
			class_row_make(t, v, out, &cd->rows[i]);
			continue;
		}
		char *p = pkg_prefix(name, depth);
		if (p == NULL) {
			class_row_make(t, v, out, &cd->rows[i]);
			continue;
		}
		size_t k = 0;
		while (k < nseen && strcmp(seen[k], p) != 0)
			k++;
		if (k < nseen) {
			free(p);
			continue;
		}
		seen = xreallocarray(seen, nseen + 1, sizeof *seen);
		seen[nseen++] = p;
		/* the package's totals; its retained size only on request (E):
		 * a sum of per-class lower bounds bounds nothing */
		uint64_t cnt = 0, sh = 0;
		struct cls_delta d = { 0 };
		for (size_t j = 0; j < cd->n; j++)
			if (strncmp(class_name(t->h, cd->rows[j].cls), p, strlen(p)) == 0 &&
			    class_visible(t, v, cd->rows[j].cls)) {
				cnt += cd->rows[j].count;
				sh += cd->rows[j].shallow;
				delta_add(&d, cd, cd->rows[j].cls);
			}
		struct row *r = rowvec_add(out);
		struct sbuf l, rt;
		sbuf_init(&l);
		sbuf_init(&rt);
		tv_add_esc(&l, p);
		sbuf_adds(&l, "*");
		tv_rowdata(r)->prefix = xstrdup(p);
		class_right(t, v, cnt, sh, 0, 1, 0, cd->d ? &d : NULL, &rt);
		r->kind = VR_PKG;
		r->open = 0;
		r->num[0] = cnt;
		r->num[1] = sh;
		row_set(r, l.buf, rt.buf);
		sbuf_free(&l);
		sbuf_free(&rt);
	}
	for (size_t k = 0; k < nseen; k++)
		free(seen[k]);
	free(seen);
}

static void loader_level(struct tui *t, struct tview *v, struct rowvec *out)
{
	struct classes_data *cd = v->data;
	uint64_t *ids = NULL;
	size_t n = 0;

	for (size_t i = 0; i < cd->n; i++) {
		if (!class_visible(t, v, cd->rows[i].cls))
			continue;
		uint64_t l = t->h->cls[cd->rows[i].cls].loader_id;
		size_t k = 0;
		while (k < n && ids[k] != l)
			k++;
		if (k < n)
			continue;
		ids = xreallocarray(ids, n + 1, sizeof *ids);
		ids[n++] = l;
	}
	for (size_t k = 0; k < n; k++) {
		uint64_t cnt = 0, sh = 0, ncls = 0;
		struct cls_delta d = { 0 };
		for (size_t i = 0; i < cd->n; i++)
			if (t->h->cls[cd->rows[i].cls].loader_id == ids[k] &&
			    class_visible(t, v, cd->rows[i].cls)) {
				cnt += cd->rows[i].count;
				sh += cd->rows[i].shallow;
				delta_add(&d, cd, cd->rows[i].cls);
				ncls++;
			}
		struct row *r = rowvec_add(out);
		struct sbuf l, rt;
		sbuf_init(&l);
		sbuf_init(&rt);
		node_t ln = ids[k] ? heap_find_id(t->h, ids[k]) : HW_NONE;
		if (ids[k] == 0)
			sbuf_adds(&l, "<bootstrap loader>");
		else if (ln != HW_NONE)
			tv_object_text(t->h, ln, &l);
		else
			sbuf_printf(&l, "loader 0x%llx", (unsigned long long)ids[k]);
		sbuf_printf(&l, "  (%llu classes)", (unsigned long long)ncls);
		class_right(t, v, cnt, sh, 0, 1, 0, cd->d ? &d : NULL, &rt);
		r->kind = VR_LOADER;
		r->open = 0;
		r->node = ln;
		r->num[0] = cnt;
		tv_rowdata(r)->loader = ids[k];
		row_set(r, l.buf, rt.buf);
		sbuf_free(&l);
		sbuf_free(&rt);
	}
	free(ids);
}

/* The baseline's classes whose every object is gone and that the open
 * dump has no class of that name for: after the others, by gone bytes. */
static void gone_only_rows(struct tui *t, struct tview *v, struct rowvec *out)
{
	struct classes_data *cd = v->data;
	const struct heap *old = t->h->baseline->old;

	for (size_t i = 0; i < cd->nonly; i++) {
		struct sbuf l, rt;
		sbuf_init(&l);
		sbuf_init(&rt);
		tv_add_esc(&l, class_name(old, cd->only[i].cls));
		if (!tui_filter_ok(v, l.buf)) {
			sbuf_free(&l);
			sbuf_free(&rt);
			continue;
		}
		sbuf_adds(&l, "  (baseline only)");
		delta_right(cd, 0, 0, &cd->only[i].d, &rt);
		struct row *r = rowvec_add(out);
		r->kind = VR_GONECLS;
		tv_rowdata(r)->loader = cd->only[i].cls;
		r->num[0] = cd->only[i].d.gone_count;
		row_set(r, l.buf, rt.buf);
		sbuf_free(&l);
		sbuf_free(&rt);
	}
}

static void classes_rows(struct tui *t, struct tview *v)
{
	struct classes_data *cd = v->data;

	hw_sort(cd->rows, cd->n, sizeof *cd->rows, cmp_rows, v);
	if (cst(v)->packages) {
		package_level(t, v, "", &v->rows);
	} else if (cst(v)->loaders) {
		loader_level(t, v, &v->rows);
	} else {
		for (size_t i = 0; i < cd->n; i++)
			if (class_visible(t, v, cd->rows[i].cls))
				class_row_make(t, v, &v->rows, &cd->rows[i]);
		if (cst(v)->delta)
			gone_only_rows(t, v, &v->rows);
	}
	free(v->colhead);
	v->colhead = xstrdup(cst(v)->delta && cd->d != NULL
			     ? " instances       new      gone     shallow  new bytes gone bytes"
			     : " instances      %    shallow      %    retained      %");
	snprintf(v->lefthead, sizeof v->lefthead, "class  (sort: %s%s%s)", sort_names[cst(v)->sort],
		 cst(v)->reverse ? ", reversed" : "",
		 cst(v)->packages ? ", packages" : cst(v)->loaders ? ", by loader" : "");
}

/* ctx: the heap */
static int cmp_cls_name(const void *a, const void *b, void *ctx)
{
	const struct heap *h = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(class_name(h, x), class_name(h, y));

	return c ? c : x < y ? -1 : x > y; /* one name, several loaders: by index */
}

/* The class of the open dump named like class oc of old: the first of
 * that name (several loaders: the lowest index), or HW_NONE. */
static uint32_t namesake(const struct heap *h, const uint32_t *byname, const struct heap *old, uint32_t oc)
{
	const char *name = class_name(old, oc);
	size_t lo = 0, hi = h->ncls;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (strcmp(class_name(h, byname[mid]), name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < h->ncls && strcmp(class_name(h, byname[lo]), name) == 0 ? byname[lo] : HW_NONE;
}

/* ctx: the baseline's heap */
static int cmp_only(const void *a, const void *b, void *ctx)
{
	const struct heap *old = ctx;
	const struct gone_only *x = a, *y = b;

	if (x->d.gone_bytes != y->d.gone_bytes)
		return x->d.gone_bytes < y->d.gone_bytes ? 1 : -1;
	return strcmp(class_name(old, x->cls), class_name(old, y->cls));
}

/* New objects per class of the set; for the whole dump with a baseline
 * dump, gone ones too (by class name). Classes whose objects are all gone
 * get rows of their own. */
static void classes_delta(struct tui *t, struct tview *v, struct classes_data *cd)
{
	const struct heap *h = t->h;
	const struct baseline *bl = h->baseline;

	cd->d = xcalloc((size_t)h->ncls + 1, sizeof *cd->d);
	for (node_t x = 1; x < h->n; x++)
		if (bit_get(v->st->set.bits, x) && objset_has(&bl->fresh, x) && h->node_class[x] != HW_NONE) {
			cd->d[h->node_class[x]].new_count++;
			cd->d[h->node_class[x]].new_bytes += h->node_shallow[x];
		}
	if (!baseline_has_old(bl) || !objset_is_all(h, &v->st->set))
		return;
	cd->have_gone = 1;
	const struct heap *old = bl->old;
	struct cls_delta *g = xcalloc((size_t)old->ncls + 1, sizeof *g);
	for (node_t x = 1; x < old->n; x++)
		if (objset_has(&bl->gone, x) && old->node_class[x] != HW_NONE) {
			g[old->node_class[x]].gone_count++;
			g[old->node_class[x]].gone_bytes += old->node_shallow[x];
		}
	uint32_t *byname = xmalloc(((size_t)h->ncls + 1) * sizeof *byname);
	for (uint32_t c = 0; c < h->ncls; c++)
		byname[c] = c;
	hw_sort(byname, h->ncls, sizeof *byname, cmp_cls_name, (void *)h);
	uint8_t *listed = xcalloc((size_t)h->ncls + 1, 1);
	for (size_t i = 0; i < cd->n; i++)
		listed[cd->rows[i].cls] = 1;
	for (uint32_t oc = 0; oc < old->ncls; oc++) {
		if (g[oc].gone_count == 0)
			continue;
		uint32_t c = namesake(h, byname, old, oc);
		if (c == HW_NONE) {
			cd->only = xreallocarray(cd->only, cd->nonly + 1, sizeof *cd->only);
			cd->only[cd->nonly++] = (struct gone_only){ oc, g[oc] };
			continue;
		}
		cd->d[c].gone_count += g[oc].gone_count;
		cd->d[c].gone_bytes += g[oc].gone_bytes;
		if (!listed[c]) { /* a class here with no instances left */
			cd->rows = xreallocarray(cd->rows, cd->n + 1, sizeof *cd->rows);
			cd->rows[cd->n++] = (struct class_row){ .cls = c };
			listed[c] = 1;
		}
	}
	hw_sort(cd->only, cd->nonly, sizeof *cd->only, cmp_only, (void *)old);
	free(listed);
	free(byname);
	free(g);
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
				cst(v)->sort = 4;
				cst(v)->delta_set = 1;
			}
		}
	}
	classes_rows(t, v);
	return 0;
}

static int classes_expand(struct tui *t, struct tview *v, size_t i, struct rowvec *out)
{
	struct row *r = &v->rows.v[i];
	struct classes_data *cd = v->data;

	if (r->kind == VR_PKG) {
		package_level(t, v, ((struct rowdata *)r->data)->prefix, out);
	} else if (r->kind == VR_LOADER) {
		uint64_t l = ((struct rowdata *)r->data)->loader;
		for (size_t k = 0; k < cd->n; k++)
			if (t->h->cls[cd->rows[k].cls].loader_id == l && class_visible(t, v, cd->rows[k].cls))
				class_row_make(t, v, out, &cd->rows[k]);
	}
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
		if (!class_visible(t, v, c))
			continue;
		if (r->kind == VR_PKG && strncmp(class_name(t->h, c), ((struct rowdata *)r->data)->prefix,
						 strlen(((struct rowdata *)r->data)->prefix)) == 0)
			m[c] = 1;
		if (r->kind == VR_LOADER && t->h->cls[c].loader_id == ((struct rowdata *)r->data)->loader)
			m[c] = 1;
	}
}

/* PCRE2 literal: \Q...\E, with any \E inside split out. */
static void rx_literal(struct sbuf *sb, const char *s)
{
	sbuf_adds(sb, "\\Q");
	for (; *s; s++) {
		if (s[0] == '\\' && s[1] == 'E') {
			sbuf_adds(sb, "\\E\\\\\\Q");
			continue;
		}
		if (*s == '/') { /* the step's regex is delimited by slashes */
			sbuf_adds(sb, "\\E\\/\\Q");
			continue;
		}
		sbuf_addc(sb, *s);
	}
	sbuf_adds(sb, "\\E");
}

/* "instances NAME", the name as a regex when it has to be. */
static void instances_expr(struct sbuf *ex, const char *name)
{
	if (strpbrk(name, " \t|/") == NULL && name[0] != '\0') {
		sbuf_adds(ex, "instances ");
		sbuf_adds(ex, name);
	} else {
		sbuf_adds(ex, "instances /^");
		rx_literal(ex, name);
		sbuf_adds(ex, "$/");
	}
}

/* The baseline's gone objects of a class name: a step on its side. */
static int gone_of_class(struct tui *t, const char *name, struct use *u)
{
	const struct baseline *bl = t->h->baseline;
	struct heap *old = bl->old;
	uint8_t *m = xcalloc((size_t)old->ncls + 1, 1);
	struct sbuf ex, l;

	for (uint32_t c = 0; c < old->ncls; c++)
		m[c] = strcmp(class_name(old, c), name) == 0;
	objset_empty(old, &u->set);
	for (node_t x = 1; x < old->n; x++)
		if (objset_has(&bl->gone, x) && old->node_class[x] != HW_NONE && m[old->node_class[x]])
			bit_set(u->set.bits, x);
	objset_recount(old, &u->set);
	free(m);
	sbuf_init(&ex);
	sbuf_init(&l);
	sbuf_adds(&ex, "gone | ");
	instances_expr(&ex, name);
	tv_add_esc(&l, name);
	u->title = xasprintf("Gone instances of %s", l.buf);
	u->expr = sbuf_detach(&ex);
	u->h = old;
	sbuf_free(&l);
	return 0;
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
			return gone_of_class(t, class_name(h->baseline->old,
							   (uint32_t)((struct rowdata *)v->rows.v[v->cur].data)->loader), u);
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
	if (nm == 1) {
		const char *name = class_name(h, one);
		instances_expr(&ex, name);
		struct sbuf l;
		sbuf_init(&l);
		tv_add_esc(&l, name);
		u->title = xasprintf("Instances of %s", l.buf);
		sbuf_free(&l);
	} else if (nm > 1) { /* by name, so the expression reads the same every time */
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
			rx_literal(&ex, class_name(h, list[k]));
		}
		sbuf_adds(&ex, ")$/");
		free(list);
		u->title = xasprintf("Instances of %zu classes", nm);
	} else {
		u->title = xstrdup("Instances");
	}
	u->expr = sbuf_detach(&ex);
	free(m);
	return 0;
}

/* Exact retained sizes: each class (or package, loader) one pass. */
static void classes_exact(struct tui *t, struct tview *v)
{
	struct heap *h = t->h;
	int any = 0;
	size_t page = (size_t)(t->rows > 6 ? t->rows - 6 : 1), done = 0;
	bits_t *bits = xmalloc(bits_words(h->n) * sizeof *bits);
	uint8_t *m = xcalloc(h->ncls + 1, 1);

	struct classes_data *cd = v->data;

	if (cd->exact == NULL) {
		cd->exact = xmalloc((h->ncls + 1) * sizeof *cd->exact);
		for (uint32_t c = 0; c <= h->ncls; c++)
			cd->exact[c] = UINT64_MAX;
	}
	for (size_t i = 0; i < v->rows.n; i++)
		any |= v->rows.v[i].marked;
	t->prog.cancelled = 0;
	nodelay(stdscr, TRUE);
	for (size_t i = 0; i < v->rows.n && !t->prog.cancelled; i++) {
		struct row *r = &v->rows.v[i];
		if (any ? !r->marked : (i < v->top || i >= v->top + page))
			continue;
		if (r->kind != VR_CLASS && r->kind != VR_PKG && r->kind != VR_LOADER)
			continue;
		if (r->kind == VR_CLASS && cd->exact[r->cls] != UINT64_MAX)
			continue;
		memset(m, 0, h->ncls + 1);
		row_classes(t, v, r, m);
		memset(bits, 0, bits_words(h->n) * sizeof *bits);
		for (node_t n = 1; n < h->n; n++)
			if (bit_get(v->st->set.bits, n) && m[h->node_class[n]])
				bit_set(bits, n);
		t->prog.phase = "exact retained size";
		t->prog.start = t->prog.last = hw_now();
		t->prog.total = h->n;
		uint64_t b = analysis_retained_set(h, bits, NULL, NULL, &t->prog);
		if (t->prog.cancelled)
			break;
		done++;
		struct sbuf rt;
		sbuf_init(&rt);
		if (r->kind == VR_CLASS) {
			cd->exact[r->cls] = b;
			class_right(t, v, r->num[0], 0, b, 1, 1, NULL, &rt);
			/* the shallow column again: rebuild the text from the row */
			for (size_t k = 0; k < cd->n; k++)
				if (cd->rows[k].cls == r->cls) {
					sbuf_reset(&rt);
					class_right(t, v, cd->rows[k].count, cd->rows[k].shallow, b, 1, 1, NULL, &rt);
				}
		} else {
			class_right(t, v, r->num[0], r->num[1], b, 1, 1, NULL, &rt);
		}
		free(r->right);
		r->right = sbuf_detach(&rt);
	}
	nodelay(stdscr, FALSE);
	if (t->prog.cancelled)
		tui_message(t, 1, "cancelled after %zu exact sizes", done);
	else
		tui_message(t, 0, "%zu exact retained sizes computed (marked '=')", done);
	t->prog.cancelled = 0;
	t->prog.phase = NULL;
	free(bits);
	free(m);
}

static int classes_sort(struct tui *t, struct tview *v, enum request r)
{
	struct classes_data *cd = v->data;
	struct classes_state *st = cst(v);

	(void)r;
	char *k = tui_prompt(t, cd != NULL && cd->d != NULL
			     ? "sort by: n name, i instances, s shallow, r retained, g growth (again: reverse) "
			     : "sort by: n name, i instances, s shallow, r retained (again: reverse) ",
			     NULL, NULL);
	int col = -1;
	if (k != NULL && k[0])
		col = k[0] == 'n' ? 0 : k[0] == 'i' ? 1 : k[0] == 's' ? 2 : k[0] == 'r' ? 3 :
		      k[0] == 'g' && cd != NULL && cd->d != NULL ? 4 : -1;
	free(k);
	if (col < 0)
		return 1;
	if (col == st->sort)
		st->reverse = !st->reverse;
	else {
		st->sort = col;
		st->reverse = 0;
	}
	tview_rebuild(t, v);
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
	if (!st->delta && st->sort == 4)
		st->sort = 2;
	tview_rebuild(t, v);
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
	const char *name;
	if (row->kind == VR_CLASS && cd->d[row->cls].gone_count > 0)
		name = class_name(t->h, row->cls);
	else if (row->kind == VR_GONECLS)
		name = class_name(t->h->baseline->old, (uint32_t)((struct rowdata *)row->data)->loader);
	else
		return 0;
	struct use u = { .title = NULL };
	gone_of_class(t, name, &u);
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
	} else {
		st->loaders = !st->loaders;
		st->packages = 0;
	}
	tview_rebuild(t, v);
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
		free(cd);
	}
}

static void classes_state_init(void *state)
{
	struct classes_state *st = state;

	st->sort = 2; /* shallow */
}

static const struct view_key classes_keys[] = {
	{ REQ_SORT, classes_sort },
	{ REQ_EXACT, classes_exact_key },
	{ REQ_DELTA, classes_delta_key },
	{ REQ_USE_GONE, classes_gone_key },
	{ REQ_PACKAGES, classes_group_key },
	{ REQ_LOADERS, classes_group_key },
	{ REQ_NONE, NULL },
};

const struct view_ops classes_ops = {
	.name = "Classes",
	.state_size = sizeof(struct classes_state),
	.state_init = classes_state_init,
	.build = classes_build,
	.expand = classes_expand,
	.use = classes_use,
	.keys = classes_keys,
	.row_free = tv_rowdata_free,
	.data_free = classes_data_free,
};
