/* html.c — the HTML report, see html.h. The page is three parts: the
 * compiled-in style and script, and one JSON document of figures that
 * the script renders. */
#include "query/html.h"

#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "graph/analysis.h"
#include "query/baseline.h"
#include "query/inspect.h"
#include "query/report.h"
#include "query/views.h"

/* html_assets.c, made from html.css and html.js at build time */
extern const char html_css_text[];
extern const char html_js_text[];

/* The inspections whose top groups the report shows by default (those
 * that apply to the dump): what one quick pass tells. Those that read
 * every string or collection of a big heap (a second or more for 20
 * million objects) are asked for by name. */
static const char *const report_inspections[] = {
	"boxed-primitives", "zero-length-arrays", "duplicate-classes", "finalizer-queue", "pinned",
};

void html_opts_default(struct html_opts *o)
{
	memset(o, 0, sizeof *o);
	o->depth = HTML_DEPTH;
	o->cutoff = HTML_CUTOFF;
	o->max_nodes = HTML_MAX_NODES;
	o->top = HTML_TOP;
}

/* ---- the dominator tree, cut to what a page can draw ---- */

/* Retained size descending, then node index: the order of every list. */
static int bigger(const struct heap *h, node_t x, node_t y)
{
	return h->retained[x] != h->retained[y] ? h->retained[x] > h->retained[y] : x < y;
}

static int cmp_bigger(const void *a, const void *b, void *h)
{
	node_t x = *(const node_t *)a, y = *(const node_t *)b;

	return x == y ? 0 : bigger(h, x, y) ? -1 : 1;
}

struct cand { node_t v; uint32_t parent; uint32_t depth; };

/* A binary max-heap of candidates, the biggest retained on top. */
struct cheap {
	struct cand *a;
	size_t n, cap;
	const struct heap *h;
};

static void cheap_push(struct cheap *q, struct cand c)
{
	size_t i;

	if (q->n == q->cap) {
		q->cap = q->cap ? 2 * q->cap : 256;
		q->a = xreallocarray(q->a, q->cap, sizeof *q->a);
	}
	for (i = q->n++; i > 0 && bigger(q->h, c.v, q->a[(i - 1) / 2].v); i = (i - 1) / 2)
		q->a[i] = q->a[(i - 1) / 2];
	q->a[i] = c;
}

static struct cand cheap_pop(struct cheap *q)
{
	struct cand top = q->a[0], last = q->a[--q->n];
	size_t i = 0;

	for (;;) {
		size_t l = 2 * i + 1, m = l;
		if (l >= q->n)
			break;
		if (l + 1 < q->n && bigger(q->h, q->a[l + 1].v, q->a[l].v))
			m = l + 1;
		if (!bigger(q->h, q->a[m].v, last.v))
			break;
		q->a[i] = q->a[m];
		i = m;
	}
	if (q->n > 0)
		q->a[i] = last;
	return top;
}

/* The objects kept: kept[k] was taken k-th, under kept parent[k]
 * (UINT32_MAX: a top member). */
struct cut {
	node_t *kept;
	uint32_t *parent;
	size_t n;
	bits_t *in;            /* kept, by node */
	uint32_t *names;       /* per class: index into the names list + 1, 0: none yet */
	struct sbuf json_names;
	uint32_t nnames;
};

/* The index of v's label in the names list, added when new: one per
 * class, but a class object's label is its own ("class java.util.HashMap")
 * and so is every object's where rules tag objects (its tags are in it). */
static uint32_t name_index(const struct heap *h, struct cut *c, node_t v)
{
	uint32_t k = h->node_kind[v] == NK_CLASS || h->ntags > 0 ? HW_NONE : h->node_class[v];
	struct sbuf sb;

	if (k != HW_NONE && c->names[k] != 0)
		return c->names[k] - 1;
	sbuf_init(&sb);
	node_label(h, v, &sb);
	sbuf_adds(&c->json_names, c->nnames ? ",\"" : "\"");
	json_append(&c->json_names, (const uint8_t *)sb.buf, sb.len);
	sbuf_addc(&c->json_names, '"');
	sbuf_free(&sb);
	if (k != HW_NONE)
		c->names[k] = c->nnames + 1;
	return c->nnames++;
}

/* Take the biggest objects below the top members, to the limits. */
static void cut_take(struct heap *h, const node_t *top, size_t ntop, const struct html_opts *o,
		     uint64_t min, struct cut *c)
{
	struct cheap q = { .h = h };

	for (size_t i = 0; i < ntop; i++)
		if (h->retained[top[i]] >= min)
			cheap_push(&q, (struct cand){ top[i], UINT32_MAX, 0 });
	while (q.n > 0 && c->n < o->max_nodes) {
		struct cand x = cheap_pop(&q);
		uint32_t slot = (uint32_t)c->n++;
		c->kept[slot] = x.v;
		c->parent[slot] = x.parent;
		bit_set(c->in, x.v);
		if (x.depth + 1 >= o->depth)
			continue;
		for (node_t j = h->dom_start[x.v]; j < h->dom_start[x.v + 1]; j++)
			if (h->retained[h->dom_child[j]] >= min)
				cheap_push(&q, (struct cand){ h->dom_child[j], slot, x.depth + 1 });
	}
	free(q.a);
}

/* One row for the objects of list[0..n) not kept, if any. */
static void elided_row(const struct heap *h, const struct cut *c, const node_t *list, size_t n,
		       long parent, long *rows, struct sbuf *out)
{
	uint64_t count = 0, shallow = 0, retained = 0, largest = 0;

	for (size_t i = 0; i < n; i++) {
		node_t v = list[i];
		if (bit_get(c->in, v))
			continue;
		count++;
		shallow += h->node_shallow[v];
		retained += h->retained[v];
		if (h->retained[v] > largest)
			largest = h->retained[v];
	}
	if (count > 0)
		sbuf_printf(out, "%s[%ld,-1,%llu,%llu,%llu,%llu]", (*rows)++ ? ",\n" : "", parent,
			    (unsigned long long)count, (unsigned long long)shallow,
			    (unsigned long long)retained, (unsigned long long)largest);
}

/* Row of kept object v under row parent: [parent, name, "id", shallow,
 * retained, flags] (flags: the node kind, +8 when new since the
 * baseline); its number. */
static long kept_row(struct heap *h, struct cut *c, node_t v, long parent, long *rows, struct sbuf *out)
{
	unsigned flags = h->node_kind[v];
	char id[32];

	if (h->baseline != NULL && objset_has(&h->baseline->fresh, v))
		flags |= 8;
	node_id_text(h, v, id, sizeof id);
	sbuf_printf(out, "%s[%ld,%u,\"%s\",%u,%llu,%u]", *rows ? ",\n" : "", parent, name_index(h, c, v), id,
		    h->node_shallow[v], (unsigned long long)h->retained[v], flags);
	return (*rows)++;
}

/* The rows, depth first, children biggest first, each level's elided
 * entry ([parent, -1, count, shallow, retained, largest]) after its
 * kept children. Slots were taken biggest first, so a list of slots in
 * slot order is in that order already. */
static void cut_rows(struct heap *h, struct cut *c, const node_t *top, size_t ntop, struct sbuf *out)
{
	size_t n = c->n, sp = 0;
	uint32_t *start = xcalloc(n + 2, sizeof *start), *at = xmalloc((n + 1) * sizeof *at);
	uint32_t *kids = xmalloc((n + 1) * sizeof *kids);
	struct frame { uint32_t slot, next; long row; } *st = xmalloc((n + 1) * sizeof *st);
	long rows = 0;

	for (size_t k = 0; k < n; k++)
		if (c->parent[k] != UINT32_MAX)
			start[c->parent[k] + 1]++;
	for (size_t k = 0; k < n; k++)
		start[k + 1] += start[k];
	memcpy(at, start, (n + 1) * sizeof *at);
	for (size_t k = 0; k < n; k++)
		if (c->parent[k] != UINT32_MAX)
			kids[at[c->parent[k]]++] = (uint32_t)k;
	for (size_t r = 0; r < n; r++) {
		if (c->parent[r] != UINT32_MAX)
			continue;
		st[sp++] = (struct frame){ (uint32_t)r, 0, kept_row(h, c, c->kept[r], -1, &rows, out) };
		while (sp > 0) {
			struct frame *f = &st[sp - 1];
			uint32_t i = start[f->slot] + f->next;
			if (i < start[f->slot + 1]) {
				f->next++;
				st[sp++] = (struct frame){ kids[i], 0, kept_row(h, c, c->kept[kids[i]], f->row, &rows, out) };
				continue;
			}
			node_t v = c->kept[f->slot];
			elided_row(h, c, h->dom_child + h->dom_start[v], h->dom_start[v + 1] - h->dom_start[v],
				   f->row, &rows, out);
			sp--;
		}
	}
	elided_row(h, c, top, ntop, -1, &rows, out);
	free(st);
	free(kids);
	free(at);
	free(start);
}

/* "tree": the dominator tree below the set's top members, cut. */
static void tree_json(struct heap *h, const struct objset *set, const struct html_opts *o,
		      struct sbuf *out)
{
	size_t ntop;
	node_t *top = view_top_members(h, set, &ntop);
	uint64_t total = 0, shallow = 0;
	struct cut c = { 0 };

	hw_sort(top, ntop, sizeof *top, cmp_bigger, h);
	for (size_t i = 0; i < ntop; i++) {
		total += h->retained[top[i]];
		shallow += h->node_shallow[top[i]];
	}
	uint64_t min = (uint64_t)((double)total * o->cutoff / 100.0);
	if (min == 0)
		min = 1;
	size_t room = o->max_nodes < (size_t)h->n ? o->max_nodes : (size_t)h->n;
	c.kept = xmalloc((room + 1) * sizeof *c.kept);
	c.parent = xmalloc((room + 1) * sizeof *c.parent);
	c.in = xcalloc(bits_words(h->n), sizeof *c.in);
	c.names = xcalloc((size_t)h->ncls + 1, sizeof *c.names);
	sbuf_init(&c.json_names);
	cut_take(h, top, ntop, o, min, &c);
	sbuf_printf(out, "{\"retained\":%llu,\"shallow\":%llu,\"top_level\":%llu,\"kept\":%llu,"
		    "\"depth\":%u,\"min_bytes\":%llu,\"max_nodes\":%llu,\"rows\":[\n",
		    (unsigned long long)total, (unsigned long long)shallow, (unsigned long long)ntop,
		    (unsigned long long)c.n, o->depth, (unsigned long long)min,
		    (unsigned long long)o->max_nodes);
	cut_rows(h, &c, top, ntop, out);
	sbuf_adds(out, "],\n\"names\":[");
	sbuf_add(out, c.json_names.buf ? c.json_names.buf : "", c.json_names.len);
	sbuf_adds(out, "]}");
	sbuf_free(&c.json_names);
	free(c.names);
	free(c.in);
	free(c.parent);
	free(c.kept);
	free(top);
}

/* ---- the other sections: the batch reports' JSON ---- */

static void key(struct sbuf *out, const char *k)
{
	sbuf_printf(out, ",\n\"%s\":", k);
}

static void str_member(struct sbuf *out, const char *k, const char *v)
{
	key(out, k);
	if (v == NULL) {
		sbuf_adds(out, "null");
		return;
	}
	sbuf_addc(out, '"');
	json_append(out, (const uint8_t *)v, strlen(v));
	sbuf_addc(out, '"');
}

/* Inspection in over set, 0; -1 with err set, "cancelled" too. */
static int run_inspection(struct heap *h, const struct inspection *in, const struct objset *set,
			  const struct html_opts *o, struct insp_result *r, struct sbuf *err)
{
	if (inspect_run(h, in, NULL, set, r, o->progress, err) < 0)
		return -1;
	if (r->cancelled) {
		insp_result_free(r);
		sbuf_adds(err, "cancelled");
		return -1;
	}
	return 0;
}

/* The index of the first of r's groups before i with g's accumulation
 * point, -1 if none: the path to a point is found and shown once. */
static long earlier_point(const struct insp_result *r, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (r->g[k].point == r->g[i].point)
			return (long)k;
	return -1;
}

/* Leak suspects, each with its accumulation point and the shortest
 * path from a GC root to that point; a suspect whose point an earlier
 * one has says which ("same_point_as": its index) in place of the path. */
static int suspects_json(struct heap *h, const struct objset *set, const struct html_opts *o,
			 struct sbuf *out, struct sbuf *err)
{
	const struct inspection *in = inspect_find("leak-suspects");
	struct insp_result r;
	struct view_opts vo = { .max_paths = 1 };

	if (run_inspection(h, in, set, o, &r, err) < 0)
		return -1;
	sbuf_adds(out, "[");
	for (size_t i = 0; i < r.n; i++) {
		const struct insp_group *g = &r.g[i];
		struct sbuf sb;
		char id[32];
		sbuf_printf(out, "%s{\"name\":\"", i ? ",\n" : "\n");
		json_append(out, (const uint8_t *)g->name, strlen(g->name));
		sbuf_printf(out, "\",\"retained\":%llu,\"objects\":%llu,\"shallow\":%llu",
			    (unsigned long long)g->extra, (unsigned long long)g->count,
			    (unsigned long long)g->shallow);
		if (g->point != HW_NONE) {
			struct path_view pv;
			node_id_text(h, g->point, id, sizeof id);
			sbuf_init(&sb);
			node_label(h, g->point, &sb);
			sbuf_printf(out, ",\"point\":{\"id\":\"%s\",\"class\":\"", id);
			json_append(out, (const uint8_t *)sb.buf, sb.len);
			sbuf_printf(out, "\",\"shallow\":%u,\"retained\":%llu}", h->node_shallow[g->point],
				    (unsigned long long)h->retained[g->point]);
			sbuf_free(&sb);
			long same = earlier_point(&r, i);
			if (same >= 0) {
				sbuf_printf(out, ",\"same_point_as\":%ld", same);
			} else {
				sbuf_adds(out, ",\"path\":");
				view_paths(h, g->point, &vo, &pv);
				report_paths(h, &pv, FMT_JSON, out);
				path_view_free(&pv);
			}
		}
		sbuf_addc(out, '}');
	}
	sbuf_adds(out, "]");
	insp_result_free(&r);
	return 0;
}

static int inspections_json(struct heap *h, const struct objset *set, const struct html_opts *o,
			    struct sbuf *out, struct sbuf *err)
{
	int first = 1;

	sbuf_adds(out, "[");
	const char *const *names = o->inspections ? o->inspections : report_inspections;
	size_t n = o->inspections ? o->ninspections : sizeof report_inspections / sizeof *report_inspections;

	for (size_t i = 0; i < n; i++) {
		const struct inspection *in = inspect_find(names[i]);
		struct insp_result r;
		if (in == NULL || !inspect_applies(in, h))
			continue;
		if (run_inspection(h, in, set, o, &r, err) < 0)
			return -1;
		sbuf_adds(out, first ? "\n" : ",\n");
		report_inspect(h, in, NULL, &r, set, o->top, FMT_JSON, out);
		insp_result_free(&r);
		first = 0;
	}
	sbuf_adds(out, "]");
	return 0;
}

/* With a baseline: its summary, the new objects by class (and the class
 * deltas when it is a dump of its own), the new objects' dominator tree. */
static void baseline_json(struct heap *h, const struct objset *set, const struct html_opts *o,
			  struct sbuf *out)
{
	const struct baseline *bl = h->baseline;
	struct objset fresh;
	struct sbuf sb, err;
	struct class_view cv;
	struct view_opts vo = { .sort = "shallow" };

	sbuf_init(&sb);
	baseline_summary(bl, &sb);
	sbuf_adds(out, "{\"summary\":\"");
	json_append(out, (const uint8_t *)sb.buf, sb.len);
	sbuf_reset(&sb);
	baseline_source(h, bl, &sb);
	sbuf_adds(out, "\",\"source\":\"");
	json_append(out, (const uint8_t *)sb.buf, sb.len);
	sbuf_adds(out, "\"");
	sbuf_free(&sb);
	objset_empty(h, &fresh);
	for (size_t w = 0; w < bits_words(h->n); w++)
		fresh.bits[w] = (bl->fresh.bits ? bl->fresh.bits[w] : ~(bits_t)0) & (set->bits ? set->bits[w] : ~(bits_t)0);
	for (node_t v = h->n; v < bits_words(h->n) * 64; v++) /* no node past the last */
		bit_clear(fresh.bits, v);
	bit_clear(fresh.bits, 0);
	objset_recount(h, &fresh);
	sbuf_init(&err);
	key(out, "new_classes");
	if (view_classes(h, &fresh, &vo, &cv, &err) == 0) {
		report_classes(h, &cv, FMT_JSON, out);
		class_view_free(&cv);
	} else
		sbuf_adds(out, "null");
	sbuf_free(&err);
	key(out, "diff");
	if (baseline_has_old(bl)) {
		struct diff_view dv;
		diff_classes(bl->old, h, bl, 0, &dv);
		report_diff(bl->old, h, &dv, 0, FMT_JSON, out);
		diff_view_free(&dv);
	} else
		sbuf_adds(out, "null");
	key(out, "tree");
	tree_json(h, &fresh, o, out);
	sbuf_adds(out, "}");
	objset_free(&fresh);
}

/* The figures as one JSON document. */
/* The histogram of the set's unreachable objects (its own, beside the
 * set's: by default they hold nothing the roots reach). */
static int unreachable_json(struct heap *h, const struct objset *set, const struct view_opts *vo,
			    struct sbuf *out, struct sbuf *err)
{
	struct objset u;
	struct class_view cv;
	bits_t *live = analysis_live_set(h);

	objset_empty(h, &u);
	for (node_t v = 1; v < h->n; v++)
		if (objset_has(set, v) && !bit_get(live, v))
			bit_set(u.bits, v);
	free(live);
	objset_recount(h, &u);
	int rc = view_classes(h, &u, vo, &cv, err);
	if (rc == 0) {
		report_classes(h, &cv, FMT_JSON, out);
		class_view_free(&cv);
	}
	objset_free(&u);
	return rc;
}

static int data_json(struct heap *h, const struct objset *set, const struct html_opts *o,
		     struct sbuf *out, struct sbuf *err)
{
	struct info_view iv;
	struct class_view cv;
	struct view_opts vo = { .sort = "retained" };

	analysis_domchildren(h);
	sbuf_adds(out, "{\"generator\":\"heapwalk " PACKAGE_VERSION "\"");
	str_member(out, "expr", o->expr);
	key(out, "info");
	view_info(h, set, &iv);
	report_info(h, &iv, FMT_JSON, out);
	info_view_free(&iv);
	key(out, "classes");
	if (view_classes(h, set, &vo, &cv, err) < 0)
		return -1;
	report_classes(h, &cv, FMT_JSON, out);
	class_view_free(&cv);
	key(out, "unreachable");
	if (unreachable_json(h, set, &vo, out, err) < 0)
		return -1;
	key(out, "tree");
	tree_json(h, set, o, out);
	key(out, "suspects");
	if (suspects_json(h, set, o, out, err) < 0)
		return -1;
	key(out, "inspections");
	if (inspections_json(h, set, o, out, err) < 0)
		return -1;
	key(out, "baseline");
	if (h->baseline != NULL && h->baseline->mode != BL_NONE)
		baseline_json(h, set, o, out);
	else
		sbuf_adds(out, "null");
	key(out, "leaks");
	sbuf_adds(out, o->leaks_json != NULL ? o->leaks_json : "null");
	sbuf_adds(out, "}\n");
	return 0;
}

/* JSON inside a script element: '<', '>' and '&' only ever occur in its
 * strings, where their escapes mean the same, and then no "</script>"
 * or "<!--" in a class name can end the element early. */
static void script_safe(struct sbuf *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t j = i;
		while (j < n && s[j] != '<' && s[j] != '>' && s[j] != '&')
			j++;
		sbuf_add(out, s + i, j - i);
		if (j < n)
			sbuf_printf(out, "\\u%04x", (unsigned char)s[j]);
		i = j;
	}
}

int report_html(struct heap *h, const struct objset *set, const struct html_opts *o,
		struct sbuf *out, struct sbuf *err)
{
	struct sbuf data;
	struct objset whole;

	/* every object: without bits, the per-class totals answer for it */
	if (set->bits != NULL && objset_is_all(h, set)) {
		objset_whole(h, &whole);
		set = &whole;
	}
	sbuf_init(&data);
	if (data_json(h, set, o, &data, err) < 0) {
		sbuf_free(&data);
		return -1;
	}
	sbuf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		  "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		  "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
		  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		  "<meta name=\"generator\" content=\"heapwalk " PACKAGE_VERSION "\">\n"
		  "<title>heapwalk report</title>\n<style>\n");
	sbuf_adds(out, html_css_text);
	sbuf_adds(out, "</style>\n</head>\n<body>\n<noscript>This report draws itself with JavaScript; "
		  "its figures are the JSON in this file.</noscript>\n<div id=\"app\"></div>\n"
		  "<script type=\"application/json\" id=\"hw-data\">\n");
	script_safe(out, data.buf, data.len);
	sbuf_adds(out, "</script>\n<script>\n");
	sbuf_adds(out, html_js_text);
	sbuf_adds(out, "</script>\n</body>\n</html>\n");
	sbuf_free(&data);
	return 0;
}
