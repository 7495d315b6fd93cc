/* view_common.c — what the views share: row data, texts, object rows
 * and pages, using rows as a new step; and the table of views. */
#include <stdlib.h>
#include <string.h>

#include "format/hprof.h"
#include "graph/analysis.h"
#include "query/views.h"
#include "tui/view.h"

const struct view_ops *const view_table[V_COUNT] = {
	&classes_ops, &biggest_ops, &outgoing_ops, &incoming_ops, &merged_out_ops, &merged_in_ops,
	&merged_dom_ops, &alloc_ops, &insp_ops,
};

void tv_rowdata_free(struct row *r)
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
void tv_object_text(const struct heap *h, node_t v, struct sbuf *sb)
{
	struct sbuf raw, val;
	char id[32];

	sbuf_init(&raw);
	sbuf_init(&val);
	node_label(h, v, &raw);
	tv_add_esc(sb, raw.buf);
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

int tv_has_children_out(const struct heap *h, node_t v)
{
	uint8_t k = h->node_kind[v];

	if (k == NK_PRIMARRAY) {
		uint8_t et;
		return hprof_array_length(h, v, &et) > 0;
	}
	return k == NK_INSTANCE || k == NK_OBJARRAY || k == NK_CLASS;
}

struct row *tv_object_row(const struct heap *h, struct rowvec *out, node_t v)
{
	struct row *r = rowvec_add(out);
	struct sbuf l, rt;

	sbuf_init(&l);
	sbuf_init(&rt);
	tv_object_text(h, v, &l);
	tv_add_bytes(&rt, h->node_shallow[v]);
	tv_add_bytes(&rt, h->retained[v]);
	r->node = v;
	r->kind = VR_OBJ;
	r->num[0] = h->retained[v];
	row_set(r, l.buf, rt.buf);
	sbuf_free(&l);
	sbuf_free(&rt);
	return r;
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
		tv_object_text(h, list[0], &l);
		u->title = xasprintf("%s %s", what, l.buf);
		sbuf_free(&l);
	} else {
		u->title = xasprintf("%s: %zu objects", what, n);
	}
	u->expr = tv_ids_expr(h, list, n);
	free(list);
	return 0;
}

void tv_object_page(struct tui *t, struct tview *v, size_t from, struct rowvec *out, enum page_kind k)
{
	struct heap *h = t->h;
	struct objects_view ov;
	struct view_opts o = { .top = from + PAGE };

	view_objects(h, &v->st->set, &o, &ov);
	for (size_t i = from; i < ov.n; i++) {
		struct row *r = tv_object_row(h, out, ov.nodes[i]);
		if (k != PAGE_OUT)
			r->open = h->in_start[r->node + 1] > h->in_start[r->node] || k == PAGE_IN_WEAK ? 0 : -1;
		else
			r->open = tv_has_children_out(h, r->node) ? 0 : -1;
	}
	if (ov.n < ov.set_count) {
		struct row *r = rowvec_add(out);
		char line[128];
		snprintf(line, sizeof line, "... %llu more objects: + lists %d more",
			 (unsigned long long)(ov.set_count - ov.n), PAGE);
		row_set(r, line, "");
		r->kind = VR_MORE;
		r->open = 0;
		r->num[0] = ov.n;
	}
	objects_view_free(&ov);
}
