/* tviews.c — the browser's views of a step's object set: classes,
 * biggest objects (dominator tree), outgoing and incoming references
 * (with paths to GC roots), and the merged reference views. Each makes
 * rows (tui.h) from the engine's answers; texts are escaped here. */
#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "format/hprof.h"
#include "graph/analysis.h"
#include "graph/ownership.h"
#include "graph/rules.h"
#include "query/alloc.h"
#include "query/baseline.h"
#include "query/inspect.h"
#include "query/merged.h"
#include "query/step.h"
#include "query/views.h"
#include "tui/tui.h"

#define PAGE 500          /* objects listed at once in a large set */
#define ELEM_PAGE 100     /* array elements listed at once */
#define EXPR_MAX_IDS 1000 /* a longer selection gets no -e expression */
#define CUTOFF 0.005      /* biggest: fold children under 0.5% of the parent */
#define FOLD_PAGE 100     /* objects a folded row shows when expanded */

int tview_rebuild(struct tui *t, struct tview *v);

/* Row kinds, shared by the views. */
enum { RK_OBJ = 1, RK_CLASS, RK_PKG, RK_LOADER, RK_FOLD, RK_GROUP, RK_MORE, RK_FIELD,
       RK_ELEM_MORE, RK_ROOT, RK_PATH, RK_INFO, RK_GONECLS, RK_ALLOC, RK_CAT, RK_INSP, RK_IGROUP };

/* What a row stands for beyond its node: a node list (folded and group
 * rows), a name prefix (packages), a merged group. */
struct rowdata {
	node_t *nodes;
	size_t n;
	node_t *reached;
	size_t nreached;
	char *prefix;
	uint64_t loader;    /* loader rows; gone-only class rows: the baseline's class */
};

static void rowdata_free(struct row *r)
{
	struct rowdata *d = r->data;

	if (d != NULL) {
		free(d->nodes);
		free(d->reached);
		free(d->prefix);
		free(d);
	}
	r->data = NULL;
}

static struct rowdata *rowdata(struct row *r)
{
	if (r->data == NULL)
		r->data = xcalloc(1, sizeof(struct rowdata));
	return r->data;
}

/* ---- text ---- */
static void add_esc(struct sbuf *sb, const char *s)
{
	esc_append(sb, (const uint8_t *)s, strlen(s), 0);
}

static void add_bytes(struct sbuf *sb, uint64_t b)
{
	char buf[32];

	fmt_bytes(buf, sizeof buf, b);
	sbuf_printf(sb, "%10s", buf);
}

static double pct(uint64_t a, uint64_t of)
{
	return of ? 100.0 * (double)a / (double)of : 0.0;
}

/* "java.util.HashMap 0x7ff0012a8" and a String's value, escaped; the
 * label (node_label) carries the object's tags, "[finalizer]". */
static void object_text(const struct heap *h, node_t v, struct sbuf *sb)
{
	struct sbuf raw, val;
	char id[32];

	sbuf_init(&raw);
	sbuf_init(&val);
	node_label(h, v, &raw);
	add_esc(sb, raw.buf);
	node_id_text(h, v, id, sizeof id);
	sbuf_printf(sb, " %s", id);
	if (node_string(h, v, &val, 120) == 0) {
		sbuf_adds(sb, " \"");
		esc_append(sb, (const uint8_t *)val.buf, val.len, 1);
		sbuf_addc(sb, '"');
	}
	sbuf_free(&raw);
	sbuf_free(&val);
}

static int has_children_out(const struct heap *h, node_t v)
{
	uint8_t k = h->node_kind[v];

	if (k == NK_PRIMARRAY) {
		uint8_t et;
		return hprof_array_length(h, v, &et) > 0;
	}
	return k == NK_INSTANCE || k == NK_OBJARRAY || k == NK_CLASS;
}

static struct row *object_row(const struct heap *h, struct rowvec *out, node_t v)
{
	struct row *r = rowvec_add(out);
	struct sbuf l, rt;

	sbuf_init(&l);
	sbuf_init(&rt);
	object_text(h, v, &l);
	add_bytes(&rt, h->node_shallow[v]);
	add_bytes(&rt, h->retained[v]);
	r->node = v;
	r->kind = RK_OBJ;
	r->num[0] = h->retained[v];
	row_set(r, l.buf, rt.buf);
	sbuf_free(&l);
	sbuf_free(&rt);
	return r;
}

/* A canonical object-list step for the nodes, or NULL if too many. */
static char *ids_expr(const struct heap *h, const node_t *a, size_t n)
{
	struct sbuf sb;

	if (n == 0 || n > EXPR_MAX_IDS)
		return NULL;
	sbuf_init(&sb);
	sbuf_adds(&sb, "object ");
	for (size_t i = 0; i < n; i++) {
		char id[32];
		node_id_text(h, a[i], id, sizeof id);
		sbuf_printf(&sb, "%s%s", i ? "," : "", id);
	}
	return sbuf_detach(&sb);
}

/* Collect into a new set the nodes of the marked rows (or the cursor
 * row): a row's own node, or its node list. */
static int use_nodes(struct tui *t, struct tview *v, int reached, struct use *u, const char *what)
{
	struct heap *h = t->h;
	int any = 0;
	node_t *list = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < v->rows.n; i++)
		any |= v->rows.v[i].marked;
	objset_empty(h, &u->set);
	for (size_t i = 0; i < v->rows.n; i++) {
		struct row *r = &v->rows.v[i];
		if (any ? !r->marked : i != v->cur)
			continue;
		struct rowdata *d = r->data;
		const node_t *a = NULL;
		size_t k = 0;
		if (d != NULL && (reached ? d->reached != NULL : d->nodes != NULL)) {
			a = reached ? d->reached : d->nodes;
			k = reached ? d->nreached : d->n;
		} else if (!reached && r->node != HW_NONE && r->node != 0) {
			a = &r->node;
			k = 1;
		}
		for (size_t j = 0; j < k; j++) {
			if (bit_get(u->set.bits, a[j]))
				continue;
			bit_set(u->set.bits, a[j]);
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				list = xreallocarray(list, cap, sizeof *list);
			}
			list[n++] = a[j];
		}
	}
	objset_recount(h, &u->set);
	if (u->set.count == 0) {
		free(list);
		objset_free(&u->set);
		tui_message(t, 1, "%s", reached ? "this row has no reached objects" : "no objects on this row");
		return -1;
	}
	if (n == 1) {
		struct sbuf l;
		sbuf_init(&l);
		object_text(h, list[0], &l);
		u->title = xasprintf("%s %s", what, l.buf);
		sbuf_free(&l);
	} else {
		u->title = xasprintf("%s: %zu objects", what, n);
	}
	u->expr = ids_expr(h, list, n);
	free(list);
	return 0;
}

/* ================= classes ================= */

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
};

static const char *const sort_names[] = { "name", "instances", "shallow", "retained", "growth" };

static int64_t growth(const struct cls_delta *d)
{
	return (int64_t)d->new_bytes - (int64_t)d->gone_bytes;
}

static struct tview *sort_view;
static const struct heap *sort_h;

static uint64_t class_ret(const struct tview *v, const struct class_row *r)
{
	return v->exact && v->exact[r->cls] != UINT64_MAX ? v->exact[r->cls] : r->retained_lb;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct class_row *x = a, *y = b;
	uint64_t p = 0, q = 0;
	int c = 0;

	const struct classes_data *cd = sort_view->data;

	switch (sort_view->sort) {
	case 1: p = x->count; q = y->count; break;
	case 2: p = x->shallow; q = y->shallow; break;
	case 3: p = class_ret(sort_view, x); q = class_ret(sort_view, y); break;
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
		c = strcmp(class_name(sort_h, x->cls), class_name(sort_h, y->cls));
	return sort_view->reverse ? -c : c;
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
	add_bytes(rt, shallow);
	signed_bytes(rt, '+', d->new_bytes, 1);
	signed_bytes(rt, '-', d->gone_bytes, cd->have_gone);
}

/* A row's columns; d: its delta, shown instead of retained in delta mode. */
static void class_right(struct tui *t, struct tview *v, uint64_t count, uint64_t shallow, uint64_t ret,
			int exact, int known, const struct cls_delta *d, struct sbuf *rt)
{
	const struct hstep *s = v->st;

	if (v->delta && d != NULL) {
		delta_right(v->data, count, shallow, d, rt);
		return;
	}
	sbuf_printf(rt, "%10llu %5.1f%%", (unsigned long long)count, pct(count, s->set.count));
	add_bytes(rt, shallow);
	sbuf_printf(rt, " %5.1f%%", pct(shallow, s->set.shallow));
	if (!known) {
		sbuf_adds(rt, "          ?       ");
		return;
	}
	sbuf_adds(rt, exact ? " =" : " >=");
	add_bytes(rt, ret);
	sbuf_printf(rt, " %5.1f%%", pct(ret, t->h->total_shallow));
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
	int exact = v->exact && v->exact[cr->cls] != UINT64_MAX;

	sbuf_init(&l);
	sbuf_init(&rt);
	struct classes_data *cd = v->data;
	add_esc(&l, class_name(t->h, cr->cls));
	class_right(t, v, cr->count, cr->shallow, class_ret(v, cr), exact, 1, cd->d ? &cd->d[cr->cls] : NULL,
		    &rt);
	r->cls = cr->cls;
	r->kind = RK_CLASS;
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
	add_esc(&l, class_name(t->h, c));
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
		add_esc(&l, p);
		sbuf_adds(&l, "*");
		rowdata(r)->prefix = xstrdup(p);
		class_right(t, v, cnt, sh, 0, 1, 0, cd->d ? &d : NULL, &rt);
		r->kind = RK_PKG;
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
			object_text(t->h, ln, &l);
		else
			sbuf_printf(&l, "loader 0x%llx", (unsigned long long)ids[k]);
		sbuf_printf(&l, "  (%llu classes)", (unsigned long long)ncls);
		class_right(t, v, cnt, sh, 0, 1, 0, cd->d ? &d : NULL, &rt);
		r->kind = RK_LOADER;
		r->open = 0;
		r->node = ln;
		r->num[0] = cnt;
		rowdata(r)->loader = ids[k];
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
		add_esc(&l, class_name(old, cd->only[i].cls));
		if (!tui_filter_ok(v, l.buf)) {
			sbuf_free(&l);
			sbuf_free(&rt);
			continue;
		}
		sbuf_adds(&l, "  (baseline only)");
		delta_right(cd, 0, 0, &cd->only[i].d, &rt);
		struct row *r = rowvec_add(out);
		r->kind = RK_GONECLS;
		rowdata(r)->loader = cd->only[i].cls;
		r->num[0] = cd->only[i].d.gone_count;
		row_set(r, l.buf, rt.buf);
		sbuf_free(&l);
		sbuf_free(&rt);
	}
}

static void classes_rows(struct tui *t, struct tview *v)
{
	struct classes_data *cd = v->data;

	sort_view = v;
	sort_h = t->h;
	hw_qsort(cd->rows, cd->n, sizeof *cd->rows, cmp_rows);
	if (v->packages) {
		package_level(t, v, "", &v->rows);
	} else if (v->loaders) {
		loader_level(t, v, &v->rows);
	} else {
		for (size_t i = 0; i < cd->n; i++)
			if (class_visible(t, v, cd->rows[i].cls))
				class_row_make(t, v, &v->rows, &cd->rows[i]);
		if (v->delta)
			gone_only_rows(t, v, &v->rows);
	}
	free(v->colhead);
	v->colhead = xstrdup(v->delta && cd->d != NULL
			     ? " instances       new      gone     shallow  new bytes gone bytes"
			     : " instances      %    shallow      %    retained      %");
	snprintf(v->lefthead, sizeof v->lefthead, "class  (sort: %s%s%s)", sort_names[v->sort],
		 v->reverse ? ", reversed" : "", v->packages ? ", packages" : v->loaders ? ", by loader" : "");
}

static const struct heap *name_h;

static int cmp_cls_name(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(class_name(name_h, x), class_name(name_h, y));

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

static int cmp_only(const void *a, const void *b)
{
	const struct gone_only *x = a, *y = b;

	if (x->d.gone_bytes != y->d.gone_bytes)
		return x->d.gone_bytes < y->d.gone_bytes ? 1 : -1;
	return strcmp(class_name(name_h, x->cls), class_name(name_h, y->cls));
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
	name_h = h;
	hw_qsort(byname, h->ncls, sizeof *byname, cmp_cls_name);
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
	name_h = old;
	hw_qsort(cd->only, cd->nonly, sizeof *cd->only, cmp_only);
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
			if (!v->delta_set) { /* first time: the differences, biggest growth first */
				v->delta = 1;
				v->sort = 4;
				v->delta_set = 1;
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

	if (r->kind == RK_PKG) {
		package_level(t, v, ((struct rowdata *)r->data)->prefix, out);
	} else if (r->kind == RK_LOADER) {
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

	if (r->kind == RK_CLASS) {
		m[r->cls] = 1;
		return;
	}
	for (size_t k = 0; k < cd->n; k++) {
		uint32_t c = cd->rows[k].cls;
		if (!class_visible(t, v, c))
			continue;
		if (r->kind == RK_PKG && strncmp(class_name(t->h, c), ((struct rowdata *)r->data)->prefix,
						 strlen(((struct rowdata *)r->data)->prefix)) == 0)
			m[c] = 1;
		if (r->kind == RK_LOADER && t->h->cls[c].loader_id == ((struct rowdata *)r->data)->loader)
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
	add_esc(&l, name);
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
	if (v->cur < v->rows.n && v->rows.v[v->cur].kind == RK_GONECLS) { /* nothing here: the gone ones */
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
		add_esc(&l, name);
		u->title = xasprintf("Instances of %s", l.buf);
		sbuf_free(&l);
	} else if (nm > 1) { /* by name, so the expression reads the same every time */
		uint32_t *list = xmalloc(nm * sizeof *list);
		size_t k = 0;
		for (uint32_t c = 0; c < h->ncls; c++)
			if (m[c])
				list[k++] = c;
		name_h = h;
		hw_qsort(list, nm, sizeof *list, cmp_cls_name);
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

	if (v->exact == NULL) {
		v->exact = xmalloc((h->ncls + 1) * sizeof *v->exact);
		for (uint32_t c = 0; c <= h->ncls; c++)
			v->exact[c] = UINT64_MAX;
	}
	for (size_t i = 0; i < v->rows.n; i++)
		any |= v->rows.v[i].marked;
	t->prog.cancelled = 0;
	nodelay(stdscr, TRUE);
	for (size_t i = 0; i < v->rows.n && !t->prog.cancelled; i++) {
		struct row *r = &v->rows.v[i];
		if (any ? !r->marked : (i < v->top || i >= v->top + page))
			continue;
		if (r->kind != RK_CLASS && r->kind != RK_PKG && r->kind != RK_LOADER)
			continue;
		if (r->kind == RK_CLASS && v->exact[r->cls] != UINT64_MAX)
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
		if (r->kind == RK_CLASS) {
			v->exact[r->cls] = b;
			class_right(t, v, r->num[0], 0, b, 1, 1, NULL, &rt);
			/* the shallow column again: rebuild the text from the row */
			struct classes_data *cd = v->data;
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

static int classes_request(struct tui *t, struct tview *v, enum request r)
{
	struct classes_data *cd = v->data;

	switch (r) {
	case REQ_SORT: {
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
		if (col == v->sort)
			v->reverse = !v->reverse;
		else {
			v->sort = col;
			v->reverse = 0;
		}
		tview_rebuild(t, v);
		return 1;
	}
	case REQ_EXACT:
		if (v->delta && cd != NULL && cd->d != NULL) {
			tui_message(t, 1, "the retained columns are off: d shows them");
			return 1;
		}
		classes_exact(t, v);
		return 1;
	case REQ_DELTA:
		if (cd == NULL || cd->d == NULL) {
			tui_message(t, 1, "%s", t->h == t->main ? "no baseline: press B to load one"
							       : "this step is on the baseline's side");
			return 1;
		}
		v->delta = !v->delta;
		if (!v->delta && v->sort == 4)
			v->sort = 2;
		tview_rebuild(t, v);
		return 1;
	case REQ_USE_GONE: { /* on a class row with gone objects: those */
		if (cd == NULL || !cd->have_gone || !v->delta || v->cur >= v->rows.n)
			return 0;
		struct row *row = &v->rows.v[v->cur];
		const char *name;
		if (row->kind == RK_CLASS && cd->d[row->cls].gone_count > 0)
			name = class_name(t->h, row->cls);
		else if (row->kind == RK_GONECLS)
			name = class_name(t->h->baseline->old, (uint32_t)((struct rowdata *)row->data)->loader);
		else
			return 0;
		struct use u = { .title = NULL };
		gone_of_class(t, name, &u);
		tui_push(t, &u);
		return 1;
	}
	case REQ_PACKAGES:
		v->packages = !v->packages;
		v->loaders = 0;
		tview_rebuild(t, v);
		return 1;
	case REQ_LOADERS:
		v->loaders = !v->loaders;
		v->packages = 0;
		tview_rebuild(t, v);
		return 1;
	default:
		return 0;
	}
}

static void classes_row_free(struct row *r) { rowdata_free(r); }

static void classes_free_data(struct tview *v)
{
	struct classes_data *cd = v->data;
	if (cd != NULL) {
		free(cd->rows);
		free(cd->d);
		free(cd->only);
	}
}

/* ================= biggest objects ================= */
static const struct heap *ret_h;

static int cmp_ret(const void *a, const void *b)
{
	node_t x = *(const node_t *)a, y = *(const node_t *)b;
	uint64_t p = ret_h->retained[x], q = ret_h->retained[y];

	return p < q ? 1 : p > q ? -1 : x < y ? -1 : x > y;
}

static int cmp_cls_ret(const void *a, const void *b)
{
	node_t x = *(const node_t *)a, y = *(const node_t *)b;
	uint32_t p = ret_h->node_class[x], q = ret_h->node_class[y];

	if (p != q)
		return p < q ? -1 : 1;
	return cmp_ret(a, b);
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
	sbuf_printf(rt, "] %5.1f%%", pct(part, whole));
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
	object_text(h, x, &l);
	if (dom != HW_NONE && !direct_ref(h, dom, x))
		sbuf_adds(&l, "  [transitive reference]");
	big_bar(&rt, h->retained[x], parent);
	add_bytes(&rt, h->retained[x]);
	add_bytes(&rt, h->node_shallow[x]);
	r->node = x;
	r->kind = RK_OBJ;
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
	add_bytes(&rt, tot);
	add_bytes(&rt, sh);
	struct rowdata *d = rowdata(r);
	d->n = n;
	d->nodes = xmalloc(n * sizeof *d->nodes);
	memcpy(d->nodes, a, n * sizeof *d->nodes);
	r->kind = RK_FOLD;
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

	ret_h = h;
	if (v->byclass) {
		hw_qsort(a, n, sizeof *a, cmp_cls_ret);
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
			add_esc(&l, class_name(h, h->node_class[a[i]]));
			sbuf_printf(&l, "  (%zu object%s)", j - i, j - i == 1 ? "" : "s");
			big_bar(&rt, ret, parent);
			add_bytes(&rt, ret);
			add_bytes(&rt, sh);
			struct rowdata *d = rowdata(r);
			d->nodes = xmalloc((j - i) * sizeof *d->nodes);
			memcpy(d->nodes, a + i, (j - i) * sizeof *d->nodes);
			d->n = j - i;
			r->kind = RK_GROUP;
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
	hw_qsort(a, n, sizeof *a, cmp_ret);
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
	snprintf(v->lefthead, sizeof v->lefthead, "%s", v->byclass ? "dominator tree, by class" : "dominator tree");
	return 0;
}

static int biggest_expand(struct tui *t, struct tview *v, size_t i, struct rowvec *out)
{
	struct heap *h = t->h;
	struct row *r = &v->rows.v[i];

	if (r->kind == RK_GROUP) {
		struct rowdata *d = r->data;
		int bc = v->byclass;
		uint64_t tot = r->num[0];
		node_t *a = xmalloc(d->n * sizeof *a);
		memcpy(a, d->nodes, d->n * sizeof *a);
		v->byclass = 0; /* a group lists its objects */
		node_t dom = d->n ? h->idom[a[0]] : HW_NONE;
		big_level(t, v, a, d->n, tot, dom, out);
		v->byclass = bc;
		free(a);
		return 0;
	}
	if (r->kind == RK_FOLD) { /* its biggest FOLD_PAGE, and a fold for the rest */
		struct rowdata *d = r->data; /* biggest first already */
		size_t k = d->n < FOLD_PAGE ? d->n : FOLD_PAGE;
		for (size_t j = 0; j < k; j++)
			big_obj_row(t, d->nodes[j], r->num[0], (node_t)r->num[1], out);
		if (k < d->n)
			big_fold_row(t, d->nodes + k, d->n - k, r->num[0], (node_t)r->num[1], out);
		return 0;
	}
	if (r->kind != RK_OBJ)
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
	return use_nodes(t, v, reached, u, "Objects");
}

/* c: the view's other grouping (biggest: by class; allocations: the
 * call tree), kept in byclass. */
static int group_request(struct tui *t, struct tview *v, enum request r)
{
	if (r != REQ_GROUP)
		return 0;
	v->byclass = !v->byclass;
	tview_rebuild(t, v);
	return 1;
}

/* ================= outgoing references ================= */
/* The set's objects, a page at a time, biggest retained first. */
static void object_page(struct tui *t, struct tview *v, size_t from, struct rowvec *out, int incoming)
{
	struct heap *h = t->h;
	struct objects_view ov;
	struct view_opts o = { .top = from + PAGE };

	view_objects(h, &v->st->set, &o, &ov);
	for (size_t i = from; i < ov.n; i++) {
		struct row *r = object_row(h, out, ov.nodes[i]);
		if (incoming)
			r->open = h->in_start[r->node + 1] > h->in_start[r->node] || v->weak ? 0 : -1;
		else
			r->open = has_children_out(h, r->node) ? 0 : -1;
	}
	if (ov.n < ov.set_count) {
		struct row *r = rowvec_add(out);
		char line[128];
		snprintf(line, sizeof line, "... %llu more objects: + lists %d more",
			 (unsigned long long)(ov.set_count - ov.n), PAGE);
		row_set(r, line, "");
		r->kind = RK_MORE;
		r->open = 0;
		r->num[0] = ov.n;
	}
	objects_view_free(&ov);
}

static void value_text(const struct heap *h, const struct hvalue *val, struct sbuf *sb, node_t *target)
{
	*target = HW_NONE;
	switch (val->type) {
	case T_OBJECT:
		if (val->v.id == 0) {
			sbuf_adds(sb, "null");
			return;
		}
		*target = heap_find_id(h, val->v.id);
		if (*target == HW_NONE)
			sbuf_printf(sb, "0x%llx (not in the dump)", (unsigned long long)val->v.id);
		else
			object_text(h, *target, sb);
		return;
	case T_BOOLEAN: sbuf_adds(sb, val->v.u ? "true" : "false"); return;
	case T_CHAR: {
		uint8_t u[4];
		uint32_t c = (uint32_t)val->v.u;
		size_t n = c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
		if (n == 1) u[0] = (uint8_t)c;
		else if (n == 2) { u[0] = (uint8_t)(0xc0 | c >> 6); u[1] = (uint8_t)(0x80 | (c & 0x3f)); }
		else { u[0] = (uint8_t)(0xe0 | c >> 12); u[1] = (uint8_t)(0x80 | (c >> 6 & 0x3f));
		       u[2] = (uint8_t)(0x80 | (c & 0x3f)); }
		sbuf_addc(sb, '\'');
		if (c >= 0xd800 && c < 0xe000)
			sbuf_printf(sb, "\\u%04x", c);
		else
			esc_append(sb, u, n, 0);
		sbuf_addc(sb, '\'');
		return;
	}
	case T_FLOAT: sbuf_printf(sb, "%g", (double)val->v.f); return;
	case T_DOUBLE: sbuf_printf(sb, "%g", val->v.d); return;
	default: sbuf_printf(sb, "%lld", (long long)val->v.i); return;
	}
}

struct field_ctx {
	struct tui *t;
	struct tview *v;
	struct rowvec *out;
};

static void field_row(void *arg, const char *name, const struct hvalue *val)
{
	struct field_ctx *f = arg;
	const struct heap *h = f->t->h;

	if (val->type == T_OBJECT && val->v.id == 0 && !f->v->nulls)
		return;
	struct row *r = rowvec_add(f->out);
	static const char *const types[] = { [T_BOOLEAN] = "boolean", [T_CHAR] = "char",
		[T_FLOAT] = "float", [T_DOUBLE] = "double", [T_BYTE] = "byte", [T_SHORT] = "short",
		[T_INT] = "int", [T_LONG] = "long" };
	struct sbuf l;
	node_t target;
	sbuf_init(&l);
	add_esc(&l, name);
	/* a reference's type is its target's class, shown with it */
	if (val->type != T_OBJECT && val->type < sizeof types / sizeof types[0] && types[val->type])
		sbuf_printf(&l, " (%s)", types[val->type]);
	sbuf_adds(&l, " = ");
	value_text(h, val, &l, &target);
	r->kind = RK_FIELD;
	r->node = target;
	r->open = target != HW_NONE && has_children_out(h, target) ? 0 : -1;
	struct sbuf rt;
	sbuf_init(&rt);
	if (target != HW_NONE) {
		add_bytes(&rt, h->node_shallow[target]);
		add_bytes(&rt, h->retained[target]);
	}
	row_set(r, l.buf, rt.buf);
	sbuf_free(&l);
	sbuf_free(&rt);
}

static void elements(struct tui *t, struct tview *v, node_t x, uint64_t from, struct rowvec *out)
{
	struct field_ctx f = { t, v, out };
	uint8_t et;
	int64_t n = hprof_array_length(t->h, x, &et);

	for (uint64_t i = from; n > 0 && i < (uint64_t)n && i < from + ELEM_PAGE; i++) {
		struct hvalue val;
		char name[32];
		if (hprof_array_elem(t->h, x, i, &val) < 0)
			break;
		snprintf(name, sizeof name, "[%llu]", (unsigned long long)i);
		field_row(&f, name, &val);
	}
	if (n > 0 && from + ELEM_PAGE < (uint64_t)n) {
		struct row *r = rowvec_add(out);
		char line[128];
		snprintf(line, sizeof line, "... elements %llu to %lld: + lists %d more",
			 (unsigned long long)(from + ELEM_PAGE), (long long)n - 1, ELEM_PAGE);
		row_set(r, line, "");
		r->kind = RK_ELEM_MORE;
		r->node = x;
		r->open = 0;
		r->num[0] = from + ELEM_PAGE;
	}
}

static int outgoing_build(struct tui *t, struct tview *v)
{
	object_page(t, v, 0, &v->rows, 0);
	free(v->colhead);
	v->colhead = xstrdup("   shallow   retained");
	snprintf(v->lefthead, sizeof v->lefthead, "%s", v->nulls ? "object / field = value (nulls shown)" : "object / field = value");
	return 0;
}

/* A "more" row becomes the next page in place: expand gives the rows,
 * and the caller puts them after it; the row itself then says so. */
static int outgoing_expand(struct tui *t, struct tview *v, size_t i, struct rowvec *out)
{
	struct row *r = &v->rows.v[i];
	struct field_ctx f = { t, v, out };

	if (r->kind == RK_MORE) {
		object_page(t, v, r->num[0], out, 0);
		row_set(r, "(next page)", "");
		return 0;
	}
	if (r->kind == RK_ELEM_MORE) {
		elements(t, v, r->node, r->num[0], out);
		row_set(r, "(more elements)", "");
		return 0;
	}
	if (r->node == HW_NONE)
		return 0;
	uint8_t k = t->h->node_kind[r->node];
	if (k == NK_OBJARRAY || k == NK_PRIMARRAY)
		elements(t, v, r->node, 0, out);
	else
		hprof_fields(t->h, r->node, field_row, &f);
	return 0;
}

static int outgoing_use(struct tui *t, struct tview *v, int reached, struct use *u)
{
	return use_nodes(t, v, reached, u, "Referenced");
}

static int outgoing_request(struct tui *t, struct tview *v, enum request r)
{
	if (r != REQ_NULLS)
		return 0;
	v->nulls = !v->nulls;
	tview_rebuild(t, v);
	tui_message(t, 0, v->nulls ? "null fields shown" : "null fields hidden");
	return 1;
}

/* ================= incoming references, paths to GC roots ================= */
enum { REF_STRONG, REF_WEAK, REF_INCIDENTAL };

/* "  (weak: jdk.rules:12)": why a reference does not count as strong,
 * with the rule that says so (-1 or the built-in referent: none named). */
static void ref_why(const struct tui *t, const char *what, int rule, struct sbuf *l)
{
	const struct ruleset *rs = t->oo.rules;

	sbuf_printf(l, "  (%s", what);
	if (rs != NULL && rule >= 0 && (size_t)rule < rs->n && rs->rules[rule].file != NULL) {
		const struct rule *ru = &rs->rules[rule];
		sbuf_adds(l, ": ");
		add_esc(l, ru->file);
		if (strchr(ru->file, ':') == NULL && ru->line > 0)
			sbuf_printf(l, ":%u", ru->line);
	} else if (rule == WEAK_BUILTIN) {
		sbuf_adds(l, ": referent");
	}
	sbuf_addc(l, ')');
}

/* A referrer of dst; how: REF_*. */
static void referrer_row(struct tui *t, struct rowvec *out, node_t src, node_t dst, int how)
{
	const struct heap *h = t->h;
	struct row *r = rowvec_add(out);
	struct sbuf l, lab, rt;

	sbuf_init(&l);
	sbuf_init(&lab);
	sbuf_init(&rt);
	if (src == 0) {
		root_label(h, dst, &lab);
		sbuf_adds(&l, "GC root: ");
		add_esc(&l, lab.buf);
		r->kind = RK_ROOT;
	} else {
		object_text(h, src, &l);
		edge_label(h, src, dst, &lab);
		sbuf_adds(&l, "  .");
		add_esc(&l, lab.buf);
		if (how == REF_WEAK)
			ref_why(t, "weak", ref_is_weak(h, src, dst), &l);
		else if (how == REF_INCIDENTAL)
			ref_why(t, "not owning", -1, &l); /* an owner of higher weight has it */
		add_bytes(&rt, h->node_shallow[src]);
		add_bytes(&rt, h->retained[src]);
		r->node = src;
		r->kind = RK_OBJ;
		r->open = 0;
	}
	row_set(r, l.buf, rt.buf);
	sbuf_free(&l);
	sbuf_free(&lab);
	sbuf_free(&rt);
}

static void paths_rows(struct tui *t, struct tview *v, node_t target)
{
	struct heap *h = t->h;
	struct path_view pv;
	struct view_opts o = { .max_paths = 5, .weak = v->weak };

	view_paths(h, target, &o, &pv);
	struct row *top = object_row(h, &v->rows, target);
	top->open = 1;
	if (pv.npaths == 0) {
		struct row *r = rowvec_add(&v->rows);
		row_set(r, "no path from a GC root (only through weak references: press w)", "");
		r->depth = 1;
		r->kind = RK_INFO;
	}
	for (size_t p = 0; p < pv.npaths; p++) {
		size_t a = pv.start[p], b = pv.start[p + 1];
		struct row *hd = rowvec_add(&v->rows);
		char line[96];
		snprintf(line, sizeof line, "path %zu: %zu steps from a GC root", p + 1, b - a - 1);
		row_set(hd, line, "");
		hd->depth = 1;
		hd->open = 1;
		hd->kind = RK_PATH;
		/* target upwards: each row holds the one above it */
		for (size_t k = b - 1; k-- > a;) {
			size_t before = v->rows.n;
			referrer_row(t, &v->rows, pv.nodes[k], pv.nodes[k + 1], REF_STRONG);
			struct row *r = &v->rows.v[before];
			r->depth = (uint16_t)(2 + (b - 2 - k));
			r->open = -1;
			if (k == a) { /* the root object: say what kind of root */
				struct sbuf lab, l;
				sbuf_init(&lab);
				sbuf_init(&l);
				root_label(h, pv.nodes[k], &lab);
				sbuf_adds(&l, r->left);
				sbuf_adds(&l, "  <- GC root: ");
				add_esc(&l, lab.buf);
				row_set(r, l.buf, r->right);
				sbuf_free(&lab);
				sbuf_free(&l);
			}
		}
	}
	path_view_free(&pv);
}

struct incoming_data {
	node_t target; /* paths mode: the object */
};

static int incoming_build(struct tui *t, struct tview *v)
{
	free(v->colhead);
	v->colhead = xstrdup("   shallow   retained");
	if (v->paths && v->data != NULL) {
		paths_rows(t, v, ((struct incoming_data *)v->data)->target);
		snprintf(v->lefthead, sizeof v->lefthead, "%s", v->weak ? "paths to GC roots (weak references followed)"
				      : "paths to GC roots (strong references only)");
		return 0;
	}
	object_page(t, v, 0, &v->rows, 1);
	snprintf(v->lefthead, sizeof v->lefthead, "%s", v->weak ? "object / referrer .field (weak too)" : "object / referrer .field");
	return 0;
}

static int incoming_expand(struct tui *t, struct tview *v, size_t i, struct rowvec *out)
{
	struct heap *h = t->h;
	struct row *r = &v->rows.v[i];

	if (r->kind == RK_MORE) {
		object_page(t, v, r->num[0], out, 1);
		row_set(r, "(next page)", "");
		return 0;
	}
	if (r->node == HW_NONE)
		return 0;
	node_t x = r->node;
	size_t shown = 0;
	for (edge_t j = h->in_start[x]; j < h->in_start[x + 1]; j++) {
		node_t p = h->in[j];
		if (j > h->in_start[x] && h->in[j - 1] == p)
			continue; /* one row per referrer */
		if (shown++ == PAGE) {
			struct row *m = rowvec_add(out);
			char line[96];
			snprintf(line, sizeof line, "... %u more references (use referrers: I)",
				 (unsigned)(h->in_start[x + 1] - j));
			row_set(m, line, "");
			break;
		}
		referrer_row(t, out, p, x, REF_STRONG);
	}
	/* references a rule made incidental: there, but not owning */
	size_t lo = 0, hi = h->nrx;
	while (lo < hi) { /* sorted by target */
		size_t mid = lo + (hi - lo) / 2;
		if (h->rx_dst[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k < h->nrx && h->rx_dst[k] == x && shown <= PAGE; k++)
		if (k == lo || h->rx_src[k - 1] != h->rx_src[k]) {
			referrer_row(t, out, h->rx_src[k], x, REF_INCIDENTAL);
			shown++;
		}
	if (v->weak)
		for (uint64_t k = 0; k < h->nweak; k++)
			if (h->weak_dst[k] == x)
				referrer_row(t, out, h->weak_src[k], x, REF_WEAK);
	return 0;
}

static int incoming_use(struct tui *t, struct tview *v, int reached, struct use *u)
{
	return use_nodes(t, v, reached, u, "Referrers");
}

static int incoming_request(struct tui *t, struct tview *v, enum request r)
{
	if (r == REQ_WEAK) {
		v->weak = !v->weak;
		tview_rebuild(t, v);
		tui_message(t, 0, v->weak ? "weak references followed" : "strong references only");
		return 1;
	}
	if (r != REQ_PATHS)
		return 0;
	if (v->paths) {
		v->paths = 0;
	} else {
		node_t x = v->cur < v->rows.n ? v->rows.v[v->cur].node : HW_NONE;
		if (x == HW_NONE || x == 0) {
			tui_message(t, 1, "put the cursor on an object first");
			return 1;
		}
		if (v->data == NULL)
			v->data = xcalloc(1, sizeof(struct incoming_data));
		((struct incoming_data *)v->data)->target = x;
		v->paths = 1;
	}
	tview_rebuild(t, v);
	v->cur = 0;
	return 1;
}

/* ================= merged references ================= */
static int merged_kind_of(const struct tview *v)
{
	return v->ops == view_table[V_MERGED_OUT] ? MG_OUTGOING
	     : v->ops == view_table[V_MERGED_IN] ? MG_INCOMING : MG_DOMINATING;
}

static int merged_rows(struct tui *t, struct tview *v, const node_t *from, size_t n, uint32_t pcls,
		       struct rowvec *out, size_t *chain)
{
	struct heap *h = t->h;
	struct merged_level lv;
	int kind = merged_kind_of(v);

	if (merged_level(h, kind, v->byfield ? MG_BY_FIELD : MG_BY_CLASS, from, n, pcls, &lv,
			 &t->prog) < 0)
		return -1;
	*chain = lv.chain;
	for (size_t i = 0; i < lv.n; i++) {
		struct merged_group *g = &lv.groups[i];
		struct row *r = rowvec_add(out);
		struct sbuf l, rt;
		sbuf_init(&l);
		sbuf_init(&rt);
		const char *cn = g->cls == MG_ROOT ? "GC roots" : class_name(h, g->cls);
		if (g->field != NULL && kind == MG_OUTGOING) {
			add_esc(&l, g->field);
			sbuf_adds(&l, " -> ");
			add_esc(&l, cn);
		} else if (g->field != NULL) {
			add_esc(&l, cn);
			sbuf_adds(&l, ".");
			add_esc(&l, g->field);
		} else {
			add_esc(&l, cn);
		}
		sbuf_printf(&rt, "%10zu", g->count);
		add_bytes(&rt, g->shallow);
		if (kind == MG_INCOMING)
			sbuf_printf(&rt, " %10zu", g->nreached);
		struct rowdata *d = rowdata(r);
		d->nodes = g->nodes;
		d->n = g->count;
		d->reached = g->reached;
		d->nreached = g->nreached;
		g->nodes = NULL;
		g->reached = NULL;
		r->cls = g->cls;
		r->kind = RK_GROUP;
		r->open = g->cls == MG_ROOT ? -1 : 0;
		row_set(r, l.buf, rt.buf);
		sbuf_free(&l);
		sbuf_free(&rt);
	}
	merged_level_free(&lv);
	return 0;
}

static int merged_build(struct tui *t, struct tview *v)
{
	node_t *m = objset_members(t->h, &v->st->set);
	size_t chain;
	int kind = merged_kind_of(v);
	int rc = merged_rows(t, v, m, (size_t)v->st->set.count, HW_NONE, &v->rows, &chain);

	free(m);
	free(v->colhead);
	v->colhead = xstrdup(kind == MG_INCOMING ? "   objects      shallow     reached"
						 : "   objects      shallow");
	snprintf(v->lefthead, sizeof v->lefthead, "%s", kind == MG_OUTGOING ? (v->byfield ? "merged outgoing: field -> class" : "merged outgoing: class")
		    : kind == MG_INCOMING ? (v->byfield ? "merged incoming: class.field" : "merged incoming: class")
		    : (v->byfield ? "merged dominating: class.field" : "merged dominating: class"));
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
		row_set(r, l.buf, r->right);
		sbuf_free(&l);
	}
	return 0;
}

static int merged_use(struct tui *t, struct tview *v, int reached, struct use *u)
{
	return use_nodes(t, v, reached, u, reached ? "Reached" : "Merged");
}

static int merged_request(struct tui *t, struct tview *v, enum request r)
{
	if (r != REQ_GROUP)
		return 0;
	v->byfield = !v->byfield;
	tview_rebuild(t, v);
	return 1;
}

/* ================= the table ================= */
/* ================= allocations ================= */
/* The tree shown: hot spots (allocation sites, then their callers) or
 * the call tree (outermost frames first); v->byclass picks the latter. */
static const struct alloc_tree *alloc_tree_of(const struct tview *v)
{
	const struct alloc_view *av = v->data;

	return v->byclass ? &av->calls : &av->hot;
}

/* The children of node i, as rows. */
static void alloc_level(struct tui *t, struct tview *v, uint32_t i, struct rowvec *out)
{
	const struct alloc_view *av = v->data;
	const struct alloc_tree *tr = alloc_tree_of(v);
	const struct alloc_node *n = &tr->n[i];
	struct sbuf l, rt, raw;

	sbuf_init(&l);
	sbuf_init(&rt);
	sbuf_init(&raw);
	for (uint32_t k = 0; k < n->nkids; k++) {
		uint32_t c = tr->kid[n->kids + k];
		const struct alloc_node *cn = &tr->n[c];
		sbuf_reset(&l);
		sbuf_reset(&rt);
		sbuf_reset(&raw);
		frame_label(t->h, cn->frame, &raw);
		add_esc(&l, raw.buf);
		if (!tui_filter_ok(v, l.buf))
			continue;
		sbuf_printf(&rt, "%10llu", (unsigned long long)cn->count);
		add_bytes(&rt, cn->bytes);
		sbuf_printf(&rt, " %5.1f%%", pct(cn->bytes, av->traced_bytes));
		struct row *r = rowvec_add(out);
		r->kind = RK_ALLOC;
		r->num[0] = c;
		r->open = cn->nkids ? 0 : -1;
		row_set(r, l.buf, rt.buf);
	}
	sbuf_free(&l);
	sbuf_free(&rt);
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
		row_set(r, "no object of this set has an allocation trace (snapshots taken with the "
			   "agent's sample:BYTES option have them)", "");
		r->kind = RK_INFO;
	} else {
		alloc_level(t, v, 0, &v->rows);
	}
	free(v->colhead);
	v->colhead = xstrdup("   objects      bytes      %");
	snprintf(v->lefthead, sizeof v->lefthead, "%s: %llu traced",
		 v->byclass ? "call tree" : "hot spots, callers", (unsigned long long)av->traced_count);
	return 0;
}

static int alloc_expand(struct tui *t, struct tview *v, size_t i, struct rowvec *out)
{
	const struct row *r = &v->rows.v[i];

	if (r->kind == RK_ALLOC)
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
		if (r->kind != RK_ALLOC || !(any ? r->marked : i == v->cur))
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
		add_esc(&e, l.buf);
		u->title = xasprintf("Allocated %s %s", v->byclass ? "in" : "at", e.buf);
		sbuf_free(&e);
		sbuf_free(&l);
	} else {
		u->title = xasprintf("Allocated at %zu sites", n);
	}
	u->expr = NULL; /* no step names an allocation site */
	return 0;
}

/* ================= inspections ================= */
/* The rows: a category, its inspections, and once one has run (Enter)
 * the groups of its result. What has run stays with the step: the
 * results, their arguments, what is open; build lays the rows out from
 * that, so opening and closing never runs anything again. */
struct insp_state {
	struct insp_result res;
	char *arg;          /* the argument it ran with; NULL: none or the default */
	int ran, open;
	size_t shown;       /* groups listed (a page at a time) */
};

struct insp_view {
	const struct inspection *all;
	size_t n;
	struct insp_state *s;   /* per inspection */
	const char **cats;      /* the categories, in the table's order */
	uint8_t *cat_closed;
	size_t ncats;
};

static struct insp_view *insp_data(struct tview *v)
{
	struct insp_view *iv = v->data;

	if (iv != NULL)
		return iv;
	iv = v->data = xcalloc(1, sizeof *iv);
	iv->all = inspect_all(&iv->n);
	iv->s = xcalloc(iv->n + 1, sizeof *iv->s);
	iv->cats = xcalloc(iv->n + 1, sizeof *iv->cats);
	iv->cat_closed = xcalloc(iv->n + 1, 1);
	for (size_t i = 0; i < iv->n; i++) {
		size_t c = 0;
		while (c < iv->ncats && strcmp(iv->cats[c], iv->all[i].category) != 0)
			c++;
		if (c == iv->ncats)
			iv->cats[iv->ncats++] = iv->all[i].category;
	}
	return iv;
}

static void insp_free_data(struct tview *v)
{
	struct insp_view *iv = v->data;

	if (iv == NULL)
		return;
	for (size_t i = 0; i < iv->n; i++) {
		insp_result_free(&iv->s[i].res);
		free(iv->s[i].arg);
	}
	free(iv->s);
	free(iv->cats);
	free(iv->cat_closed);
}

static const char *const prio_names[] = { [IP_LOW] = "low", [IP_MEDIUM] = "medium", [IP_HIGH] = "high" };

/* The columns: priority, objects, shallow bytes and the extra figure
 * (bytes like the other views, or a count); as INSP_HEAD lays them out. */
#define INSP_HEAD "%-8s %9s %9s %10.10s"

static void insp_cells(struct sbuf *rt, const char *prio, uint64_t count, uint64_t shallow,
		       const struct inspection *in, uint64_t x)
{
	char c[32], b[32], e[32] = "";

	snprintf(c, sizeof c, "%llu", (unsigned long long)count);
	fmt_bytes(b, sizeof b, shallow);
	if (in->extra_name != NULL && in->extra_bytes)
		fmt_bytes(e, sizeof e, x);
	else if (in->extra_name != NULL)
		snprintf(e, sizeof e, "%llu", (unsigned long long)x);
	sbuf_printf(rt, INSP_HEAD, prio, c, b, e);
}

/* The headers say what the inspection under the cursor found and what
 * its last column is. */
static void insp_head(struct tview *v)
{
	const struct insp_view *iv = v->data;
	const char *x = "";
	char line[96];

	snprintf(v->lefthead, sizeof v->lefthead, "%s", "inspection / group  (Enter: run one)");
	if (iv != NULL && v->cur < v->rows.n && v->rows.v[v->cur].kind != RK_CAT) {
		size_t i = v->rows.v[v->cur].num[0];
		const struct inspection *in = &iv->all[i];
		const struct insp_state *st = &iv->s[i];
		if (in->extra_name != NULL)
			x = in->extra_name;
		if (st->ran)
			snprintf(v->lefthead, sizeof v->lefthead, "%s: %zu group%s, %llu examined", in->name,
				 st->res.n, st->res.n == 1 ? "" : "s", (unsigned long long)st->res.examined);
		else
			snprintf(v->lefthead, sizeof v->lefthead, "%s: Enter runs it", in->name);
	}
	snprintf(line, sizeof line, INSP_HEAD, "priority", "objects", "shallow", x);
	if (v->colhead == NULL || strcmp(v->colhead, line) != 0) {
		free(v->colhead);
		v->colhead = xstrdup(line);
	}
}

/* The label of group k: its name, escaped, cut short (a duplicated
 * string's value can be megabytes). */
static void insp_group_row(struct tview *v, size_t i, size_t k)
{
	const struct insp_view *iv = v->data;
	const struct insp_group *g = &iv->s[i].res.g[k];
	struct row *r = rowvec_add(&v->rows);
	struct sbuf l, rt;
	size_t n = strlen(g->name);

	sbuf_init(&l);
	sbuf_init(&rt);
	sbuf_printf(&l, "%zu ", k + 1);
	esc_append(&l, (const uint8_t *)g->name, n > 300 ? 300 : n, 0);
	if (n > 300)
		sbuf_adds(&l, "...");
	insp_cells(&rt, g->priority <= IP_HIGH ? prio_names[g->priority] : "?", g->count, g->shallow,
		   &iv->all[i], g->extra);
	r->kind = RK_IGROUP;
	r->depth = 2;
	r->num[0] = i;
	r->num[1] = k;
	row_set(r, l.buf, rt.buf);
	sbuf_free(&l);
	sbuf_free(&rt);
}

/* Inspection i's row and, when open, its groups. */
static void insp_rows(struct tview *v, size_t i)
{
	const struct insp_view *iv = v->data;
	const struct inspection *in = &iv->all[i];
	const struct insp_state *st = &iv->s[i];
	struct row *r = rowvec_add(&v->rows);
	struct sbuf l, rt;

	sbuf_init(&l);
	sbuf_init(&rt);
	add_esc(&l, in->name);
	if (st->ran) { /* what it found first: the title is cut on a narrow screen */
		uint64_t cnt = 0, sh = 0, x = 0;
		for (size_t k = 0; k < st->res.n; k++) {
			cnt += st->res.g[k].count;
			sh += st->res.g[k].shallow;
			x += st->res.g[k].extra;
		}
		sbuf_adds(&l, " ");
		if (st->arg != NULL) {
			add_esc(&l, st->arg);
			sbuf_adds(&l, " ");
		}
		sbuf_printf(&l, "[%zu group%s]", st->res.n, st->res.n == 1 ? "" : "s");
		insp_cells(&rt, "total", cnt, sh, in, x);
	}
	sbuf_adds(&l, "  ");
	add_esc(&l, in->title);
	r->kind = RK_INSP;
	r->depth = 1;
	r->num[0] = i;
	r->open = st->ran && st->open ? 1 : 0;
	row_set(r, l.buf, rt.buf);
	sbuf_free(&l);
	sbuf_free(&rt);
	if (!st->ran || !st->open)
		return;
	if (st->res.n == 0) {
		struct row *e = rowvec_add(&v->rows);
		char line[96];
		snprintf(line, sizeof line, "nothing found in %llu objects",
			 (unsigned long long)st->res.examined);
		row_set(e, line, "");
		e->kind = RK_INFO;
		e->depth = 2;
		e->num[0] = i;
		return;
	}
	size_t k;
	for (k = 0; k < st->res.n && k < st->shown; k++)
		insp_group_row(v, i, k);
	if (k < st->res.n) {
		struct row *m = rowvec_add(&v->rows);
		char line[128];
		snprintf(line, sizeof line, "... %zu more groups: + lists %d more", st->res.n - k, PAGE);
		row_set(m, line, "");
		m->kind = RK_MORE;
		m->depth = 2;
		m->open = 0;
		m->num[0] = i;
	}
}

/* Does the filter take inspection i (by name and title)? */
static int insp_visible(const struct tview *v, const struct inspection *in)
{
	struct sbuf l;

	if (v->filter_re == NULL)
		return 1;
	sbuf_init(&l);
	sbuf_printf(&l, "%s  %s", in->name, in->title);
	int ok = tui_filter_ok(v, l.buf);
	sbuf_free(&l);
	return ok;
}

static int insp_build(struct tui *t, struct tview *v)
{
	struct insp_view *iv = insp_data(v);

	(void)t;
	for (size_t c = 0; c < iv->ncats; c++) {
		size_t nvis = 0;
		for (size_t i = 0; i < iv->n; i++)
			nvis += strcmp(iv->all[i].category, iv->cats[c]) == 0 && insp_visible(v, &iv->all[i]);
		if (nvis == 0)
			continue;
		struct row *r = rowvec_add(&v->rows);
		char line[128];
		snprintf(line, sizeof line, "%s (%zu)", iv->cats[c], nvis);
		row_set(r, line, "");
		r->kind = RK_CAT;
		r->num[0] = c;
		r->open = iv->cat_closed[c] ? 0 : 1;
		if (iv->cat_closed[c])
			continue;
		for (size_t i = 0; i < iv->n; i++)
			if (strcmp(iv->all[i].category, iv->cats[c]) == 0 && insp_visible(v, &iv->all[i]))
				insp_rows(v, i);
	}
	insp_head(v);
	return 0;
}

/* Does inspection in take a regex (written /.../ in a step)? */
static int insp_arg_is_regex(const struct inspection *in, const char *arg)
{
	if (strpbrk(arg, " \t|") != NULL || arg[0] == '/' || strcmp(arg, "group") == 0)
		return 1; /* not a word: only the slashes can hold it */
	for (const char *p = in->arg; *p; p++)
		if (strncasecmp(p, "regex", 5) == 0 || strncasecmp(p, "regular expression", 18) == 0)
			return 1;
	return strstr(in->name, "regex") != NULL;
}

/* Run inspection i on the step's set; its argument asked for first.
 * Cancelled, or a bad argument: the view stays as it was. */
static void insp_run_one(struct tui *t, struct tview *v, size_t i)
{
	struct insp_view *iv = insp_data(v);
	const struct inspection *in = &iv->all[i];
	struct insp_result res;
	struct sbuf err;
	char *arg = NULL;

	if (in->arg != NULL) {
		char *label = xasprintf("%s: %s%s: ", in->name, in->arg,
					in->arg_required ? "" : " (Enter: the default)");
		arg = tui_prompt(t, label, NULL, NULL);
		free(label);
		if (arg == NULL)
			return;
		if (*arg == '\0') {
			free(arg);
			arg = NULL;
			if (in->arg_required) {
				tui_message(t, 1, "%s needs an argument: %s", in->name, in->arg);
				return;
			}
		}
	}
	sbuf_init(&err);
	tui_work_begin(t, in->title);
	heap_need(t->h, HP_ALL, &t->prog);
	int rc = inspect_run(t->h, in, arg, &v->st->set, &res, &t->prog, &err);
	int cancelled = tui_work_end(t) < 0;
	if (rc < 0) {
		tui_message(t, 1, "%s", err.buf);
	} else if (cancelled || res.cancelled) {
		insp_result_free(&res);
		tui_message(t, 1, "%s cancelled: %s", in->name,
			    iv->s[i].ran ? "the result before stays" : "not run");
	} else {
		struct insp_state *st = &iv->s[i];
		insp_result_free(&st->res);
		free(st->arg);
		st->res = res;
		st->arg = arg;
		arg = NULL;
		st->ran = st->open = 1;
		st->shown = PAGE;
		tview_rebuild(t, v);
		tui_message(t, 0, "%s: %zu group%s (%llu objects examined)", in->name, res.n,
			    res.n == 1 ? "" : "s", (unsigned long long)res.examined);
	}
	free(arg);
	sbuf_free(&err);
}

/* The inspection a row belongs to, or -1 (a category row). */
static long insp_of_row(const struct row *r)
{
	return r->kind == RK_INSP || r->kind == RK_IGROUP || r->kind == RK_MORE || r->kind == RK_INFO
	       ? (long)r->num[0] : -1;
}

/* The keys that open, close and run; the rest is the frame's. */
static int insp_request(struct tui *t, struct tview *v, enum request rq)
{
	struct insp_view *iv = insp_data(v);
	struct row *r = v->cur < v->rows.n ? &v->rows.v[v->cur] : NULL;
	int any = 0;

	if (r == NULL)
		return 0;
	for (size_t i = 0; i < v->rows.n; i++)
		any |= v->rows.v[i].marked;
	long i = insp_of_row(r);
	switch (rq) {
	case REQ_PATHS: /* r: again */
		if (i < 0) {
			tui_message(t, 1, "put the cursor on an inspection");
			return 1;
		}
		insp_run_one(t, v, (size_t)i);
		return 1;
	case REQ_USE:
		if (any || r->kind == RK_IGROUP)
			return 0; /* the frame uses the groups */
		/* fall through */
	case REQ_EXPAND:
		if (r->kind == RK_CAT) {
			iv->cat_closed[r->num[0]] = rq == REQ_USE ? !iv->cat_closed[r->num[0]] : 0;
		} else if (r->kind == RK_INSP && !iv->s[i].ran) {
			insp_run_one(t, v, (size_t)i);
			return 1;
		} else if (r->kind == RK_INSP) {
			iv->s[i].open = rq == REQ_USE ? !iv->s[i].open : 1;
		} else if (r->kind == RK_MORE) {
			iv->s[i].shown += PAGE;
		} else {
			return 1;
		}
		tview_rebuild(t, v);
		return 1;
	case REQ_COLLAPSE:
		if (r->kind == RK_CAT && !iv->cat_closed[r->num[0]]) {
			iv->cat_closed[r->num[0]] = 1;
		} else if (r->kind == RK_INSP && iv->s[i].ran && iv->s[i].open) {
			iv->s[i].open = 0;
		} else { /* to the parent row */
			size_t k = v->cur;
			while (k > 0 && v->rows.v[k - 1].depth >= r->depth)
				k--;
			if (k > 0 && r->depth > 0)
				v->cur = k - 1;
			return 1;
		}
		tview_rebuild(t, v);
		return 1;
	default:
		return 0;
	}
}

/* The marked groups (or the cursor's): their members; one group is
 * "inspection NAME [ARG] group K" after the step's expression. */
static int insp_use(struct tui *t, struct tview *v, int reached, struct use *u)
{
	struct insp_view *iv = insp_data(v);
	size_t ng = 0, last = 0;
	int any = 0;

	(void)reached;
	for (size_t i = 0; i < v->rows.n; i++)
		any |= v->rows.v[i].marked;
	objset_empty(t->h, &u->set);
	for (size_t i = 0; i < v->rows.n; i++) {
		const struct row *r = &v->rows.v[i];
		if (r->kind != RK_IGROUP || !(any ? r->marked : i == v->cur))
			continue;
		const struct insp_group *g = &iv->s[r->num[0]].res.g[r->num[1]];
		for (uint64_t k = 0; k < g->count; k++)
			bit_set(u->set.bits, g->nodes[k]);
		ng++;
		last = i;
	}
	if (ng == 0) {
		objset_free(&u->set);
		tui_message(t, 1, "%s", any ? "no group is marked: mark groups of a result"
					    : "put the cursor on a group of a result (Enter runs an inspection)");
		return -1;
	}
	objset_recount(t->h, &u->set);
	if (ng > 1) { /* a union of groups: no step names it */
		u->title = xasprintf("%zu inspection groups of %llu objects", ng,
				     (unsigned long long)v->st->set.count);
		u->expr = NULL;
		return 0;
	}
	const struct row *r = &v->rows.v[last];
	const struct inspection *in = &iv->all[r->num[0]];
	const struct insp_state *st = &iv->s[r->num[0]];
	struct step s = { .op = ST_INSPECTION, .insp = (char *)in->name, .arg = st->arg,
			  .regex = st->arg != NULL && insp_arg_is_regex(in, st->arg),
			  .group = (uint32_t)r->num[1] + 1 };
	struct sbuf ex;
	sbuf_init(&ex);
	step_to_string(&s, &ex);
	u->expr = sbuf_detach(&ex);
	u->title = xasprintf("%s group %u of %llu objects", in->name, s.group,
			     (unsigned long long)v->st->set.count);
	return 0;
}

static void classes_row_free_all(struct row *r) { classes_row_free(r); }

static const struct view_ops classes_ops = { "Classes", classes_build, classes_expand, classes_use,
					     classes_request, classes_row_free_all, NULL, NULL };
static const struct view_ops biggest_ops = { "Biggest", biggest_build, biggest_expand, biggest_use,
					     group_request, rowdata_free, NULL, NULL };
static const struct view_ops outgoing_ops = { "Outgoing", outgoing_build, outgoing_expand, outgoing_use,
					      outgoing_request, rowdata_free, NULL, NULL };
static const struct view_ops incoming_ops = { "Incoming", incoming_build, incoming_expand, incoming_use,
					      incoming_request, rowdata_free, NULL, NULL };
static const struct view_ops merged_out_ops = { "Merged out", merged_build, merged_expand, merged_use,
						merged_request, rowdata_free, NULL, NULL };
static const struct view_ops merged_in_ops = { "Merged in", merged_build, merged_expand, merged_use,
					       merged_request, rowdata_free, NULL, NULL };
static const struct view_ops merged_dom_ops = { "Dominating", merged_build, merged_expand, merged_use,
						merged_request, rowdata_free, NULL, NULL };

static const struct view_ops alloc_ops = { "Allocations", alloc_build, alloc_expand, alloc_use,
					   group_request, rowdata_free, "Alloc", NULL }; /* c: the other tree */
/* Enter, +, - and r are its own (insp_request): no expand */
static const struct view_ops insp_ops = { "Inspections", insp_build, NULL, insp_use, insp_request, NULL,
					  "Inspect", insp_head };

const struct view_ops *const view_table[V_COUNT] = {
	&classes_ops, &biggest_ops, &outgoing_ops, &incoming_ops, &merged_out_ops, &merged_in_ops,
	&merged_dom_ops, &alloc_ops, &insp_ops,
};

/* The classes view keeps its class rows in v->data beside a struct
 * the frame frees with free(): free the inner array first. */
void tview_free_data(struct tview *v);
void tview_free_data(struct tview *v)
{
	if (v->ops == &classes_ops)
		classes_free_data(v);
	else if (v->ops == &alloc_ops && v->data != NULL)
		alloc_view_free(v->data);
	else if (v->ops == &insp_ops)
		insp_free_data(v);
}

void tview_reset(struct tview *v)
{
	if (v->ops == &incoming_ops) /* its data is the paths' target: an option */
		return;
	tview_free_data(v);
	free(v->data);
	v->data = NULL;
	free(v->exact);
	v->exact = NULL;
}
