/* insp_holders.c — who holds a set of objects, told in one line, for the
 * leak suspects that accumulate in many objects (insp_retention.c):
 * the holders counted by kind (strong, and the weak kinds the runtime
 * names: soft, weak, finalizer, phantom), each kind's most common holder
 * class and the field it holds through, and how many of the objects are
 * GC roots themselves.
 *
 * The kinds come from the weak references' table (graph/heap.h) and
 * runtime_ops.weak_kind; nothing here knows a runtime. */
#include "query/inspect.h"

#include <stdlib.h>
#include <string.h>

#include "graph/analysis.h"
#include "graph/reader.h"
#include "graph/rootkind.h"

#define KINDS 8     /* strong and up to seven weak kinds (more: one "weak") */
#define LABELS 256  /* references whose field is read, per kind: a name, not a count */
#define IDENT "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$"

struct pair {
	node_t y, t; /* y holds t */
};

struct kind {
	const char *name; /* "strong", or the runtime's word; static */
	struct pair *p;
	size_t n, cap;
	uint64_t holders; /* distinct y */
	uint32_t cls;     /* the class most of them are of (HW_NONE: none) */
	uint64_t in_cls;  /* how many of them are */
};

static void kind_push(struct kind *k, node_t y, node_t t)
{
	if (k->n == k->cap) {
		k->cap = k->cap ? k->cap * 2 : 64;
		k->p = xreallocarray(k->p, k->cap, sizeof *k->p);
	}
	k->p[k->n++] = (struct pair){ y, t };
}

static struct kind *kind_named(struct kind *ks, size_t *nk, const char *name)
{
	for (size_t i = 0; i < *nk; i++)
		if (strcmp(ks[i].name, name) == 0)
			return &ks[i];
	if (*nk == KINDS) { /* a runtime with that many kinds: the rest are weak */
		ks[KINDS - 1].name = "weak";
		return &ks[KINDS - 1];
	}
	ks[*nk] = (struct kind){ .name = name };
	return &ks[(*nk)++];
}

static int cmp_node(const void *a, const void *b)
{
	node_t x = *(const node_t *)a, y = *(const node_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_by_class(const void *a, const void *b, void *ctx)
{
	const struct heap *h = ctx;
	node_t x = *(const node_t *)a, y = *(const node_t *)b;
	uint32_t cx = h->node_class[x], cy = h->node_class[y];

	if (cx != cy)
		return cx < cy ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* k's distinct holders (k->holders) and the class most of them are of
 * (the lowest class on ties), how many in k->in_cls. */
static void main_class(const struct heap *h, struct kind *k)
{
	node_t *ys = xmalloc((k->n + 1) * sizeof *ys);
	size_t m = 0;
	uint32_t best = HW_NONE;

	for (size_t i = 0; i < k->n; i++)
		ys[i] = k->p[i].y;
	hw_qsort(ys, k->n, sizeof *ys, cmp_node);
	for (size_t i = 0; i < k->n; i++)
		if (m == 0 || ys[m - 1] != ys[i])
			ys[m++] = ys[i];
	k->holders = m;
	hw_sort(ys, m, sizeof *ys, cmp_by_class, (void *)h);
	k->in_cls = 0;
	for (size_t i = 0, j; i < m; i = j) {
		for (j = i + 1; j < m && h->node_class[ys[j]] == h->node_class[ys[i]]; j++)
			;
		if (j - i > k->in_cls) {
			k->in_cls = j - i;
			best = h->node_class[ys[i]];
		}
	}
	k->cls = best;
	free(ys);
}

/* An edge's name as a field: an element's index, and the "weak " some
 * readers put before a weak edge's name, dropped. */
static void field_of(const struct heap *h, node_t y, node_t t, struct sbuf *out)
{
	struct sbuf sb;

	sbuf_init(&sb);
	heap_edge_label(h, y, t, &sb);
	const char *s = sb.buf;
	size_t n = sb.len;
	if (n > 5 && strncmp(s, "weak ", 5) == 0)
		s += 5, n -= 5;
	if (label_is_element(s, n))
		sbuf_adds(out, "[]");
	else if (strcmp(s, "<?>") != 0)
		sbuf_add(out, s, n);
	sbuf_free(&sb);
}

/* The field most of the first LABELS references from class c's holders
 * go through (the first seen on ties); "" when none is named. */
static void main_field(const struct heap *h, const struct kind *k, uint32_t c, struct sbuf *out)
{
	char *lab[LABELS];
	unsigned cnt[LABELS], nl = 0, seen = 0, best = 0;
	struct sbuf sb;

	sbuf_init(&sb);
	for (size_t i = 0; i < k->n && seen < LABELS; i++) {
		if (h->node_class[k->p[i].y] != c)
			continue;
		seen++;
		sbuf_reset(&sb);
		field_of(h, k->p[i].y, k->p[i].t, &sb);
		unsigned j = 0;
		while (j < nl && strcmp(lab[j], sb.buf) != 0)
			j++;
		if (j == nl) {
			lab[nl] = xstrdup(sb.buf);
			cnt[nl++] = 0;
		}
		if (++cnt[j] > cnt[best])
			best = j;
	}
	if (nl > 0)
		sbuf_adds(out, lab[best]);
	for (unsigned j = 0; j < nl; j++)
		free(lab[j]);
	sbuf_free(&sb);
}

/* "5526 soft (5526 java.lang.ref.SoftReference.referent)" */
static void kind_text(const struct heap *h, const struct kind *k, int first, struct sbuf *out)
{
	uint32_t c = k->cls;
	struct sbuf f;

	sbuf_printf(out, "%s%llu %s%s", first ? "" : ", ", (unsigned long long)k->holders, k->name,
		    first ? (k->holders == 1 ? " holder" : " holders") : "");
	if (c == HW_NONE)
		return;
	sbuf_init(&f);
	main_field(h, k, c, &f);
	sbuf_printf(out, " (%llu %s", (unsigned long long)k->in_cls, class_name(h, c));
	if (strcmp(f.buf, "[]") == 0) /* an array's: Foo[][] would read as a type */
		sbuf_adds(out, " through elements");
	else if (f.len > 0 && strspn(f.buf, IDENT) == f.len)
		sbuf_printf(out, ".%s", f.buf);
	else if (f.len > 0) /* "static X", "<class>", a V8 edge's text */
		sbuf_printf(out, " through %s", f.buf);
	sbuf_addc(out, ')');
	sbuf_free(&f);
}

/* How many of the objects in `in` a GC root (no pseudo root) holds. */
static uint64_t rooted(const struct heap *h, const bits_t *in)
{
	bits_t *seen = xcalloc(bits_words(h->n), sizeof *seen);
	uint64_t n = 0;

	for (size_t i = 0; i < h->nroot_rec; i++) {
		node_t v = h->root_rec[i].node;
		if (h->root_rec[i].kind >= RK_WEAK_ONLY || v >= h->n || !bit_get(in, v) || bit_get(seen, v))
			continue;
		bit_set(seen, v);
		n++;
	}
	free(seen);
	return n;
}

static int cmp_kind(const void *a, const void *b)
{
	const struct kind *x = a, *y = b;

	if (x->holders != y->holders)
		return x->holders > y->holders ? -1 : 1;
	return strcmp(x->name, y->name);
}

uint64_t insp_holders(const struct heap *h, const node_t *nodes, uint64_t count, struct sbuf *out)
{
	const struct runtime_ops *rt = heap_runtime(h);
	bits_t *in = xcalloc(bits_words(h->n), sizeof *in);
	struct kind ks[KINDS];
	size_t nk = 0;

	kind_named(ks, &nk, "strong");
	for (uint64_t i = 0; i < count; i++) {
		node_t t = nodes[i];
		bit_set(in, t);
		for (edge_t j = h->in_start[t]; j < h->in_start[t + 1]; j++)
			if (h->in[j] != 0)
				kind_push(&ks[0], h->in[j], t);
	}
	for (uint64_t i = 0; h->weak_src != NULL && i < h->nweak; i++) {
		node_t y = h->weak_src[i], t = h->weak_dst[i];
		if (y == 0 || !bit_get(in, t))
			continue;
		if (weak_left_out(h, i)) { /* a holder the GC may clear: strong, held weakly */
			if (h->weak_rule[i] == WEAK_WEAKLY)
				kind_push(kind_named(ks, &nk, "weakly reachable"), y, t);
			continue;
		}
		const char *w = rt != NULL && rt->weak_kind != NULL ? rt->weak_kind(h, y, t) : NULL;
		kind_push(kind_named(ks, &nk, w != NULL ? w : "weak"), y, t);
	}
	uint64_t roots = rooted(h, in);
	for (size_t i = 0; i < nk; i++)
		main_class(h, &ks[i]);
	hw_qsort(ks, nk, sizeof *ks, cmp_kind);
	int first = 1;
	for (size_t i = 0; i < nk; i++) {
		if (ks[i].holders == 0)
			continue;
		sbuf_adds(out, first ? "held by " : "");
		kind_text(h, &ks[i], first, out);
		first = 0;
	}
	if (roots > 0)
		sbuf_adds(out, first ? "" : "; ");
	if (roots > 0 && roots == count)
		sbuf_adds(out, count == 1 ? "a GC root itself" : "all GC roots themselves");
	else if (roots > 0)
		sbuf_printf(out, "%llu of them %s", (unsigned long long)roots, roots == 1 ? "a GC root" : "GC roots");
	else if (first)
		sbuf_adds(out, "held by nothing");
	uint64_t held = 0;
	for (size_t i = 0; i < nk; i++) {
		held += ks[i].holders;
		free(ks[i].p);
	}
	free(in);
	return held;
}
