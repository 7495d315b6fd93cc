/* alloc.c — allocation call tree and hot spots from the dump's stack
 * traces; see alloc.h. */
#include "query/alloc.h"

#include <stdlib.h>
#include <string.h>

#include "graph/reader.h"
#include "query/views.h"

/* ---- one frame for each class, method, signature and line ---- */

/* By what a frame's label says: class, method, source, line. */
static int cmp_frame_label(const void *a, const void *b, void *ctx)
{
	const struct heap *h = ctx;
	const struct hframe *x = &h->frames[*(const uint32_t *)a];
	const struct hframe *y = &h->frames[*(const uint32_t *)b];
	int c = strcmp(heap_str(h, x->class_name), heap_str(h, y->class_name));

	if (c == 0)
		c = strcmp(heap_str(h, x->method), heap_str(h, y->method));
	if (c == 0) /* frames without a class (JavaScript) differ by script */
		c = strcmp(heap_str(h, x->source), heap_str(h, y->source));
	if (c == 0)
		c = x->line < y->line ? -1 : x->line > y->line;
	return c;
}

/* The label, then the signature: 0 for frames that are the same. */
static int cmp_frame_text(const void *a, const void *b, void *ctx)
{
	const struct heap *h = ctx;
	int c = cmp_frame_label(a, b, ctx);

	if (c == 0)
		c = strcmp(heap_str(h, h->frames[*(const uint32_t *)a].signature),
			   heap_str(h, h->frames[*(const uint32_t *)b].signature));
	return c;
}

static int cmp_frame(const void *a, const void *b, void *ctx)
{
	int c = cmp_frame_text(a, b, ctx);

	if (c == 0) /* the same: the lower index stands for them */
		c = *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
	return c;
}

static uint32_t *canonical_frames(const struct heap *h)
{
	uint32_t *order = xmalloc(((size_t)h->nframes + 1) * sizeof *order);
	uint32_t *canon = xmalloc(((size_t)h->nframes + 1) * sizeof *canon);

	for (uint32_t i = 0; i < h->nframes; i++)
		order[i] = i;
	hw_sort(order, h->nframes, sizeof *order, cmp_frame, (void *)h);
	for (uint32_t i = 0; i < h->nframes; i++) {
		int same = i > 0 && cmp_frame_text(&order[i], &order[i - 1], (void *)h) == 0;

		canon[order[i]] = same ? canon[order[i - 1]] : order[i];
	}
	free(order);
	return canon;
}

/* ---- the trees ---- */

static uint32_t node_add(struct alloc_tree *t, uint32_t parent, uint32_t frame)
{
	if (t->len == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 256;
		t->n = xreallocarray(t->n, t->cap, sizeof *t->n);
	}
	t->n[t->len] = (struct alloc_node){ frame, parent, 0, 0, 0, 0 };
	return (uint32_t)t->len++;
}

/* Child lists while building: per node, its first child and each
 * node's next sibling. */
struct build {
	uint32_t *first, *next;
	size_t cap;
};

static uint32_t child(struct alloc_tree *t, struct build *b, uint32_t parent, uint32_t frame)
{
	for (uint32_t c = b->first[parent]; c != HW_NONE; c = b->next[c])
		if (t->n[c].frame == frame)
			return c;
	uint32_t c = node_add(t, parent, frame);
	if (b->cap < t->cap) {
		b->first = xreallocarray(b->first, t->cap, sizeof *b->first);
		b->next = xreallocarray(b->next, t->cap, sizeof *b->next);
		b->cap = t->cap;
	}
	b->first[c] = HW_NONE;
	b->next[c] = b->first[parent];
	b->first[parent] = c;
	return c;
}

static int cmp_kid(const void *a, const void *b, void *ctx)
{
	const struct alloc_tree *t = ctx;
	const struct alloc_node *x = &t->n[*(const uint32_t *)a], *y = &t->n[*(const uint32_t *)b];

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	/* equal: by frame index (the dump's order), for the same answer every time */
	return x->frame < y->frame ? -1 : x->frame > y->frame;
}

/* Per trace index: how many objects of the set, and their bytes. */
static void tree_make(const struct heap *h, const uint32_t *canon, const uint64_t *cnt, const uint64_t *bytes,
		      int bottom_up, struct alloc_tree *t)
{
	struct build b = { 0 };

	memset(t, 0, sizeof *t);
	node_add(t, HW_NONE, HW_NONE);
	b.first = xmalloc(t->cap * sizeof *b.first);
	b.next = xmalloc(t->cap * sizeof *b.next);
	b.cap = t->cap;
	b.first[0] = b.next[0] = HW_NONE;
	t->leaf = xmalloc(((size_t)h->ntraces + 1) * sizeof *t->leaf);
	for (uint32_t k = 0; k < h->ntraces; k++) {
		const struct htrace *tr = &h->traces[k];
		t->leaf[k] = HW_NONE;
		if (cnt[k] == 0 || tr->nframes == 0)
			continue;
		uint32_t at = 0;
		t->n[0].count += cnt[k];
		t->n[0].bytes += bytes[k];
		for (uint32_t j = 0; j < tr->nframes; j++) {
			/* frames[0] is where the object was made */
			uint32_t f = h->trace_frames[tr->frame_first + (bottom_up ? j : tr->nframes - 1 - j)];
			at = child(t, &b, at, canon[f]);
			t->n[at].count += cnt[k];
			t->n[at].bytes += bytes[k];
		}
		t->leaf[k] = at;
	}
	/* children: one array, each node's run sorted biggest first */
	t->kid = xmalloc(t->len * sizeof *t->kid);
	size_t m = 0;
	for (size_t i = 0; i < t->len; i++) {
		t->n[i].kids = (uint32_t)m;
		for (uint32_t c = b.first[i]; c != HW_NONE; c = b.next[c])
			t->kid[m++] = c;
		t->n[i].nkids = (uint32_t)m - t->n[i].kids;
		hw_sort(t->kid + t->n[i].kids, t->n[i].nkids, sizeof *t->kid, cmp_kid, t);
	}
	free(b.first);
	free(b.next);
}

void view_allocations(const struct heap *h, const struct objset *set, struct alloc_view *v)
{
	uint64_t *cnt = xcalloc((size_t)h->ntraces + 1, sizeof *cnt);
	uint64_t *bytes = xcalloc((size_t)h->ntraces + 1, sizeof *bytes);

	memset(v, 0, sizeof *v);
	v->set_count = set->count;
	v->set_shallow = set->shallow;
	if (h->ntraces > 0) {
		for (node_t x = 1; x < h->n; x++) {
			if (!objset_has(set, x) || h->node_kind[x] == NK_ROOT || h->node_kind[x] == NK_CLASS)
				continue;
			uint32_t k = trace_of_serial(h, heap_alloc_trace(h, x));
			if (k == HW_NONE || h->traces[k].nframes == 0)
				continue;
			cnt[k]++;
			bytes[k] += h->node_shallow[x];
		}
	}
	for (uint32_t k = 0; k < h->ntraces; k++)
		if (cnt[k] > 0 && h->traces[k].nframes > 0) {
			v->traces++;
			v->traced_count += cnt[k];
			v->traced_bytes += bytes[k];
		}
	uint32_t *canon = canonical_frames(h);
	tree_make(h, canon, cnt, bytes, 0, &v->calls);
	tree_make(h, canon, cnt, bytes, 1, &v->hot);
	free(canon);
	free(cnt);
	free(bytes);
}

static void tree_free(struct alloc_tree *t)
{
	free(t->n);
	free(t->kid);
	free(t->leaf);
}

void alloc_view_free(struct alloc_view *v)
{
	tree_free(&v->calls);
	tree_free(&v->hot);
}

void alloc_select(const struct heap *h, const struct objset *set, const struct alloc_view *v,
		  const struct alloc_tree *t, uint32_t i, struct objset *out)
{
	uint8_t *take = xcalloc((size_t)h->ntraces + 1, 1);

	(void)v;
	for (uint32_t k = 0; k < h->ntraces; k++)
		for (uint32_t at = t->leaf[k]; at != HW_NONE && !take[k]; at = t->n[at].parent)
			take[k] = at == i;
	objset_empty(h, out);
	for (node_t x = 1; x < h->n; x++) {
		if (!objset_has(set, x) || h->node_kind[x] == NK_ROOT || h->node_kind[x] == NK_CLASS)
			continue;
		uint32_t k = trace_of_serial(h, heap_alloc_trace(h, x));
		if (k != HW_NONE && take[k])
			bit_set(out->bits, x);
	}
	objset_recount(h, out);
	free(take);
}

/* Does frame f (its label in l) read as text: the label, then with
 * " [SIG]" its signature too? */
static int frame_is(const struct heap *h, uint32_t f, const struct sbuf *l, const char *text)
{
	size_t n = l->len;

	if (l->buf == NULL || strncmp(text, l->buf, n) != 0)
		return 0;
	if (text[n] == '\0')
		return 1;
	const char *sig = heap_str(h, h->frames[f].signature);
	size_t k = strlen(sig);
	return text[n] == ' ' && text[n + 1] == '[' && strncmp(text + n + 2, sig, k) == 0 &&
	       text[n + 2 + k] == ']' && text[n + 3 + k] == '\0';
}

int alloc_frame_known(const struct heap *h, const char *text)
{
	struct sbuf l;
	int found = 0;

	sbuf_init(&l);
	for (uint32_t f = 0; f < h->nframes && !found; f++) {
		sbuf_reset(&l);
		frame_label(h, f, &l);
		found = frame_is(h, f, &l, text);
	}
	sbuf_free(&l);
	return found;
}

uint8_t *alloc_ambiguous(const struct heap *h)
{
	uint32_t *order = xmalloc(((size_t)h->nframes + 1) * sizeof *order);
	uint8_t *amb = xcalloc((size_t)h->nframes + 1, 1);

	for (uint32_t i = 0; i < h->nframes; i++)
		order[i] = i;
	hw_sort(order, h->nframes, sizeof *order, cmp_frame_label, (void *)h);
	for (uint32_t i = 0, e; i < h->nframes; i = e) {
		int differ = 0;
		for (e = i + 1; e < h->nframes && cmp_frame_label(&order[i], &order[e], (void *)h) == 0; e++)
			differ |= cmp_frame_text(&order[i], &order[e], (void *)h) != 0;
		for (uint32_t k = i; k < e && differ; k++)
			amb[order[k]] = 1;
	}
	free(order);
	return amb;
}

void alloc_select_path(const struct heap *h, const struct objset *set, int hot, char *const *labels,
		       size_t n, struct objset *out)
{
	uint8_t *take = xcalloc((size_t)h->ntraces + 1, 1);
	struct sbuf l;

	sbuf_init(&l);
	for (uint32_t k = 0; k < h->ntraces; k++) {
		const struct htrace *tr = &h->traces[k];
		int ok = n > 0 && tr->nframes >= n;
		for (size_t j = 0; ok && j < n; j++) {
			size_t at = hot ? j : tr->nframes - 1 - j; /* frames: the innermost first */
			uint32_t f = h->trace_frames[tr->frame_first + at];
			sbuf_reset(&l);
			frame_label(h, f, &l);
			ok = frame_is(h, f, &l, labels[j]);
		}
		take[k] = (uint8_t)ok;
	}
	sbuf_free(&l);
	objset_empty(h, out);
	for (node_t x = 1; x < h->n; x++) {
		if (!objset_has(set, x) || h->node_kind[x] == NK_ROOT || h->node_kind[x] == NK_CLASS)
			continue;
		uint32_t k = trace_of_serial(h, heap_alloc_trace(h, x));
		if (k != HW_NONE && take[k])
			bit_set(out->bits, x);
	}
	objset_recount(h, out);
	free(take);
}

int alloc_path_text(const struct heap *h, const struct alloc_tree *t, uint32_t i, int hot,
		    const uint8_t *amb, struct sbuf *out)
{
	uint32_t depth = 0, *path;
	struct sbuf l;
	int rc = 0;

	for (uint32_t at = i; at != 0 && at != HW_NONE; at = t->n[at].parent)
		depth++;
	path = xmalloc(((size_t)depth + 1) * sizeof *path);
	for (uint32_t at = i, k = depth; at != 0 && at != HW_NONE; at = t->n[at].parent)
		path[--k] = t->n[at].frame;
	sbuf_init(&l);
	for (uint32_t k = 0; k < depth && rc == 0; k++) {
		sbuf_reset(&l);
		frame_label(h, path[k], &l);
		if (amb[path[k]]) /* an overload's: the signature tells them apart */
			sbuf_printf(&l, " [%s]", heap_str(h, h->frames[path[k]].signature));
		if (l.len == 0 || l.buf[0] == ' ' || l.buf[l.len - 1] == ' ' || strstr(l.buf, "<-") != NULL ||
		    strstr(l.buf, "->") != NULL)
			rc = -1; /* it would not read back: the parser splits at the arrows */
		for (const unsigned char *c = (const unsigned char *)(l.buf ? l.buf : ""); *c && rc == 0; c++)
			if (*c < ' ' || *c == 0x7f || *c == '|')
				rc = -1;
		if (rc == 0) {
			if (k > 0)
				sbuf_adds(out, hot ? SITE_SEP : CALLS_SEP);
			sbuf_adds(out, l.buf);
		}
	}
	if (depth == 0)
		rc = -1;
	sbuf_free(&l);
	free(path);
	return rc;
}
