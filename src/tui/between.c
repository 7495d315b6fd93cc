/* between.c — what a set reaches, in the browser: its deep size on the
 * step line (a), and the path between two marked objects (P), shown
 * hop by hop and made a step ("path FROM TO [undirected] [weak]"). */
#include <stdlib.h>
#include <string.h>

#include "graph/reach.h"
#include "query/between.h"
#include "query/views.h"
#include "tui/frame.h"

void deep_size(struct tui *t)
{
	struct hstep *s = cur_step(t);
	uint64_t count;

	if (s->deep_known)
		return;
	tui_work_begin(t, "deep size");
	uint64_t bytes = reach_deep(t->h, s->set.bits, 0, NULL, &count, &t->prog);
	if (tui_work_end(t) == 0) {
		s->deep = bytes;
		s->deep_count = count;
		s->deep_known = 1;
	}
}

/* The two objects: the marked rows' (two, in row order), or the one
 * marked and the cursor's. 0, or -1 with the message said. */
static int two_objects(struct tui *t, struct tview *v, node_t *from, node_t *to)
{
	node_t m[3];
	size_t n = 0;

	for (size_t i = 0; i < v->rows.n && n < 3; i++) {
		node_t x = v->rows.v[i].node;
		if (v->rows.v[i].marked && x != HW_NONE && x != 0 && (n == 0 || m[n - 1] != x))
			m[n++] = x;
	}
	if (n == 1 && v->cur < v->rows.n && v->rows.v[v->cur].node != HW_NONE &&
	    v->rows.v[v->cur].node != 0 && v->rows.v[v->cur].node != m[0])
		m[n++] = v->rows.v[v->cur].node;
	if (n != 2) {
		tui_message(t, 1, "%s", n > 2 ? "more than two objects marked: the path is between two"
					  : "mark two objects (Space), or one and put the cursor on the other");
		return -1;
	}
	*from = m[0];
	*to = m[1];
	return 0;
}

/* "java.util.HashMap 0x7ff0012a8", escaped. Appends. */
static void object_text(const struct heap *h, node_t x, struct sbuf *sb)
{
	struct sbuf raw;
	char id[32];

	sbuf_init(&raw);
	node_label(h, x, &raw);
	esc_append(sb, (const uint8_t *)raw.buf, raw.len, 0);
	node_id_text(h, x, id, sizeof id);
	sbuf_printf(sb, " %s", id);
	sbuf_free(&raw);
}

/* How the path goes: forward, backward, either way; weak toggled in
 * place. The flags, and in *swap whether TO comes first; -1 on Esc. */
static int ask_direction(struct tui *t, const struct heap *h, node_t from, node_t to, int *swap)
{
	struct sbuf a, z;
	unsigned weak = 0;
	size_t sel = 0;
	int k;

	sbuf_init(&a);
	sbuf_init(&z);
	object_text(h, from, &a);
	object_text(h, to, &z);
	for (;;) {
		char *items[4] = {
			xasprintf("forward     from %s to %s, along references", a.buf, z.buf),
			xasprintf("backward    from %s to %s, along references", z.buf, a.buf),
			xasprintf("undirected  from %s to %s, references either way", a.buf, z.buf),
			xasprintf("weak        weak references too: %s (Enter toggles)", weak ? "yes" : "no"),
		};
		k = popup(t, "Path between two objects", items, 4, sel);
		for (int i = 0; i < 4; i++)
			free(items[i]);
		if (k != 3)
			break;
		weak ^= REACH_WEAK;
		sel = 3;
	}
	sbuf_free(&a);
	sbuf_free(&z);
	if (k < 0)
		return -1;
	*swap = k == 1;
	return (int)(weak | (k == 2 ? REACH_UNDIRECTED : 0));
}

/* The path as a list, one object a line with the reference that leads
 * to it from the line before: "--next-->" along it, "<--prev--" when
 * the object holds the reference back (undirected). */
static void show_hops(struct tui *t, const struct heap *h, const struct between *b)
{
	static const char *const kinds[] = { "", " (weak)", " (not owning)" };
	const struct reach_path *p = &b->path;
	size_t n = p->n < 10000 ? p->n : 10000; /* a list to read, not the whole of a huge one */
	char **items = xmalloc((n + 1) * sizeof *items);
	struct sbuf sb, via;

	sbuf_init(&via);
	for (size_t i = 0; i < n; i++) {
		sbuf_init(&sb);
		if (i > 0) {
			sbuf_reset(&via);
			if (p->back[i - 1])
				edge_label(h, p->nodes[i], p->nodes[i - 1], &via);
			else
				edge_label(h, p->nodes[i - 1], p->nodes[i], &via);
			sbuf_adds(&sb, p->back[i - 1] ? " <--" : " --");
			esc_append(&sb, (const uint8_t *)via.buf, via.len, 0);
			sbuf_adds(&sb, p->back[i - 1] ? "-- " : "--> ");
		} else {
			sbuf_adds(&sb, " ");
		}
		object_text(h, p->nodes[i], &sb);
		if (i > 0)
			sbuf_adds(&sb, kinds[p->kind[i - 1]]);
		items[i] = sbuf_detach(&sb);
	}
	if (n < p->n) {
		size_t rest = p->n - n;
		items[n++] = xasprintf(" ... %zu more objects: heapwalk between lists them all", rest);
	}
	char title[96];
	snprintf(title, sizeof title, "Path: %zu reference%s (Esc closes)", p->n - 1, p->n == 2 ? "" : "s");
	popup(t, title, items, n, 0);
	for (size_t i = 0; i < n; i++)
		free(items[i]);
	free(items);
	sbuf_free(&via);
}

void path_between(struct tui *t)
{
	struct tview *v = cur_view(t);
	struct heap *h = t->h;
	node_t from, to;
	int swap;
	struct between b;
	struct sbuf err;

	if (two_objects(t, v, &from, &to) < 0)
		return;
	int flags = ask_direction(t, h, from, to, &swap);
	if (flags < 0)
		return;
	sbuf_init(&err);
	tui_work_begin(t, "path between");
	int rc = between_nodes(h, swap ? to : from, swap ? from : to, (unsigned)flags, &b, &t->prog, &err);
	if (tui_work_end(t) < 0 || rc < 0) {
		sbuf_free(&err);
		return;
	}
	if (!b.found) {
		between_none(h, &b, &err);
		tui_message(t, 1, "%s", err.buf);
		sbuf_free(&err);
		return;
	}
	struct use u = { .title = NULL };
	struct sbuf ex;
	sbuf_init(&ex);
	between_expr(h, &b, &ex);
	u.expr = sbuf_detach(&ex);
	struct sbuf a, z;
	sbuf_init(&a);
	sbuf_init(&z);
	object_text(h, b.from, &a);
	object_text(h, b.to, &z);
	u.title = xasprintf("Path from %s to %s: %zu reference%s", a.buf, z.buf, b.path.n - 1,
			    b.path.n == 2 ? "" : "s");
	sbuf_free(&a);
	sbuf_free(&z);
	objset_empty(h, &u.set);
	for (size_t i = 0; i < b.path.n; i++)
		bit_set(u.set.bits, b.path.nodes[i]);
	objset_recount(h, &u.set);
	for (size_t i = 0; i < v->rows.n; i++) /* used: the marks are done with */
		v->rows.v[i].marked = 0;
	v->nmarked = 0;
	tui_push(t, &u);
	/* the new step under the box, its progress line gone */
	view_ensure(t, cur_view(t));
	tui_draw(t);
	show_hops(t, h, &b);
	between_free(&b);
	sbuf_free(&err);
}
