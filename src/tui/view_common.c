/* view_common.c — what the views share: row data, texts, object rows
 * and pages, using rows as a new step; and the table of views. */
#include <stdlib.h>
#include <string.h>

#include "graph/reader.h"
#include "graph/analysis.h"
#include "query/views.h"
#include "tui/view.h"

const struct view_ops *const view_table[V_COUNT] = {
	&classes_ops, &biggest_ops, &outgoing_ops, &incoming_ops, &merged_out_ops, &merged_in_ops,
	&merged_dom_ops, &leaks_ops, &alloc_ops, &time_ops, &insp_ops,
};

void tv_rowdata_free(struct row *r)
{
	struct rowdata *d = r->data;

	if (d != NULL) {
		free(d->nodes);
		free(d->reached);
		free(d->prefix);
		free(d->field);
		free(d);
	}
	r->data = NULL;
}

struct rowdata *tv_rowdata(struct row *r)
{
	if (r->data == NULL)
		r->data = xcalloc(1, sizeof(struct rowdata));
	return r->data;
}

/* ---- texts ---- */
void tv_add_esc(struct sbuf *sb, const char *s)
{
	esc_append(sb, (const uint8_t *)s, strlen(s), 0);
}

void tv_add_bytes(struct sbuf *sb, uint64_t b)
{
	char buf[32];

	fmt_bytes(buf, sizeof buf, b);
	sbuf_printf(sb, "%10s", buf);
}

double tv_pct(uint64_t a, uint64_t of)
{
	return of ? 100.0 * (double)a / (double)of : 0.0;
}

/* The label (node_label) carries the object's tags, "[finalizer]". */
/* The class a node's label names: its class, or for a class object the
 * class it stands for. */
static uint32_t label_class(const struct heap *h, node_t v, int *is_class)
{
	uint32_t c = h->node_kind[v] == NK_CLASS ? heap_class_of_node(h, v) : HW_NONE;

	*is_class = c != HW_NONE;
	return c != HW_NONE ? c : h->node_class[v];
}

void tv_class_text(const struct heap *h, uint32_t c, struct sbuf *sb, struct span *name)
{
	size_t at = sb->len;

	tv_add_esc(sb, class_name(h, c));
	if (name != NULL) {
		name->off = at;
		name->len = sb->len - at;
	}
}

void tv_object_text(const struct heap *h, node_t v, struct sbuf *sb, struct span *name)
{
	struct sbuf raw, val;
	char id[32];
	int is_class;

	if (v == 0) {
		sbuf_adds(sb, "<GC roots>");
		if (name != NULL)
			name->off = name->len = 0;
		return;
	}
	sbuf_init(&raw);
	sbuf_init(&val);
	uint32_t c = label_class(h, v, &is_class);
	node_label(h, v, &raw); /* "class " NAME, or NAME; then the tags */
	size_t pre = is_class ? 6 : 0, nl = strlen(class_name(h, c));
	if (pre + nl > raw.len) /* not as expected: the label whole */
		pre = nl = 0;
	esc_append(sb, (const uint8_t *)raw.buf, pre, 0);
	tv_class_text(h, c, sb, name);
	esc_append(sb, (const uint8_t *)raw.buf + pre + nl, raw.len - pre - nl, 0);
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

const struct column tv_object_cols[2] = {
	{ .title = "shallow", .type = COL_BYTES, .val = 0 },
	{ .title = "retained", .type = COL_BYTES, .val = 1 },
};

int tv_has_children_out(const struct heap *h, node_t v)
{
	uint8_t k = h->node_kind[v];

	if (k == NK_PRIMARRAY) {
		uint8_t et;
		return heap_array_length(h, v, &et) > 0;
	}
	return k == NK_INSTANCE || k == NK_OBJARRAY || k == NK_CLASS;
}

struct row *tv_object_row(const struct heap *h, struct rowvec *out, node_t v)
{
	struct row *r = rowvec_add(out);
	struct sbuf l;
	struct span nm;

	sbuf_init(&l);
	tv_object_text(h, v, &l, &nm);
	r->node = v;
	r->kind = VR_OBJ;
	r->num[0] = h->retained[v];
	r->val[0] = h->node_shallow[v];
	r->val[1] = h->retained[v];
	row_set_named(r, l.buf, nm.off, nm.len);
	sbuf_free(&l);
	return r;
}

/* PCRE2 literal: \Q...\E, with any \E inside split out, and what a
 * terminal must not get raw (a control or format character, which the
 * line shows escaped) as \x{HHHH}: the step shown is the step run. */
void tv_rx_literal(struct sbuf *sb, const char *s)
{
	const char *end = s + strlen(s);

	sbuf_adds(sb, "\\Q");
	while (s < end) {
		uint32_t cp;
		int esc;
		size_t k = utf8_char((const uint8_t *)s, (size_t)(end - s), &cp, &esc);
		if (k > 0 && esc) {
			sbuf_printf(sb, "\\E\\x{%x}\\Q", (unsigned)cp);
			s += k;
			continue;
		}
		if (s[0] == '\\' && s[1] == 'E') /* the backslash out of the quote, the E in it */
			sbuf_adds(sb, "\\E\\\\\\Q");
		else if (*s == '/') /* the step's regex is delimited by slashes */
			sbuf_adds(sb, "\\E\\/\\Q");
		else
			sbuf_addc(sb, *s);
		s++;
	}
	sbuf_adds(sb, "\\E");
}

/* Can name be written as it is after "instances ": no blank, '|' or '/'
 * and no quote first (the steps' syntax), and nothing a terminal shows
 * escaped? */
static int name_plain(const char *name)
{
	const char *end = name + strlen(name);

	if (name == end || strpbrk(name, " \t|/") != NULL || *name == '\'' || *name == '"')
		return 0;
	while (name < end) {
		uint32_t cp;
		int esc;
		size_t k = utf8_char((const uint8_t *)name, (size_t)(end - name), &cp, &esc);
		if (esc)
			return 0;
		name += k > 0 ? k : 1;
	}
	return 1;
}

/* "instances NAME", the name as a regex when it has to be. */
void tv_instances_expr(struct sbuf *ex, const char *name)
{
	if (name_plain(name)) {
		sbuf_adds(ex, "instances ");
		sbuf_adds(ex, name);
	} else {
		sbuf_adds(ex, "instances /^");
		tv_rx_literal(ex, name);
		sbuf_adds(ex, "\\z/"); /* not $, which also takes a name with a newline at its end */
	}
}

int cmp_cls_name(const void *a, const void *b, void *ctx)
{
	const struct heap *h = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(class_name(h, x), class_name(h, y));

	return c ? c : x < y ? -1 : x > y; /* one name, several loaders: by index */
}

int tv_names_unique(const struct heap *h, const uint8_t *m)
{
	uint32_t *byname = xmalloc((h->ncls + 1) * sizeof *byname);
	int unique = 1;

	for (uint32_t c = 0; c < h->ncls; c++)
		byname[c] = c;
	hw_sort(byname, h->ncls, sizeof *byname, cmp_cls_name, (void *)h);
	for (size_t i = 0, j; i < h->ncls && unique; i = j) {
		int in = 0, out = 0;
		const char *name = class_name(h, byname[i]);
		for (j = i; j < h->ncls && strcmp(class_name(h, byname[j]), name) == 0; j++) {
			in |= m[byname[j]] != 0;
			out |= m[byname[j]] == 0;
		}
		unique = !(in && out);
	}
	free(byname);
	return unique;
}

char *tv_ids_expr(const struct heap *h, const node_t *a, size_t n)
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

int tv_use_nodes(struct tui *t, struct tview *v, int reached, struct use *u, const char *what)
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
		tv_object_text(h, list[0], &l, NULL);
		u->title = xasprintf("%s %s", what, l.buf);
		sbuf_free(&l);
	} else {
		u->title = xasprintf("%s: %zu objects", what, n);
	}
	u->expr = tv_ids_expr(h, list, n);
	free(list);
	return 0;
}

/* The set's objects in the order the pages list them (biggest retained
 * first): the first page alone is a partial sort; past it, the whole
 * order is sorted once and kept in the view's data (tv_page_free). */
struct page_order {
	node_t *nodes;
	size_t n;
};

void tv_page_free(void *data)
{
	struct page_order *po = data;

	if (po != NULL)
		free(po->nodes);
	free(po);
}

void tv_object_page(struct tui *t, struct tview *v, size_t from, struct rowvec *out, enum page_kind k)
{
	struct heap *h = t->h;
	struct objects_view ov = { 0 };
	struct page_order *po = v->data;
	const node_t *nodes;
	size_t n, total = (size_t)v->st->set.count;

	if (from == 0 && po == NULL) {
		struct view_opts o = { .top = PAGE };
		view_objects(h, &v->st->set, &o, &ov);
		nodes = ov.nodes;
		n = ov.n;
	} else {
		if (po == NULL) {
			struct view_opts o = { .top = 0 };
			view_objects(h, &v->st->set, &o, &ov);
			po = v->data = xcalloc(1, sizeof *po);
			po->nodes = ov.nodes; /* taken over */
			po->n = ov.n;
			ov.nodes = NULL;
		}
		nodes = po->nodes;
		n = from + PAGE < po->n ? from + PAGE : po->n;
	}
	for (size_t i = from; i < n; i++) {
		struct row *r = tv_object_row(h, out, nodes[i]);
		if (k != PAGE_OUT)
			r->open = h->in_start[r->node + 1] > h->in_start[r->node] || k == PAGE_IN_WEAK ? 0 : -1;
		else
			r->open = tv_has_children_out(h, r->node) ? 0 : -1;
	}
	if (n < total) {
		struct row *r = rowvec_add(out);
		char line[128];
		snprintf(line, sizeof line, "... %llu more objects: + lists %d more",
			 (unsigned long long)(total - n), PAGE);
		row_set(r, line, NULL);
		r->kind = VR_MORE;
		r->key = UINT64_MAX - n; /* the page after, whatever it says; its own, as view_outgoing's */
		r->flags = RF_NOCOLS;
		r->more = 1;
		r->open = 0;
		r->num[0] = n;
	}
	objects_view_free(&ov);
}
