/* inspect.c — the table of inspections and what they share, see inspect.h. */
#include "query/inspect.h"

#include <stdlib.h>
#include <string.h>

#include "graph/analysis.h"
#include "graph/reader.h"
#include "engine/open.h"

static const struct inspection *const tables[] = { insp_waste, insp_refs, insp_retention,
						     insp_search, insp_clr };

static size_t nall;

const struct inspection *inspect_all(size_t *n)
{
	static struct inspection *flat;

	if (flat == NULL) {
		size_t k = 0;
		for (size_t t = 0; t < sizeof tables / sizeof *tables; t++)
			for (const struct inspection *i = tables[t]; i->name != NULL; i++)
				k++;
		flat = xcalloc(k + 1, sizeof *flat);
		for (size_t t = 0; t < sizeof tables / sizeof *tables; t++)
			for (const struct inspection *i = tables[t]; i->name != NULL; i++) {
				flat[nall++] = *i;
			}
	}
	*n = nall;
	return flat;
}

const struct inspection *inspect_find(const char *name)
{
	size_t n;
	const struct inspection *in = inspect_all(&n);

	for (size_t i = 0; i < n; i++)
		if (strcmp(in[i].name, name) == 0)
			return &in[i];
	return NULL;
}

static int cmp_group(const void *a, const void *b)
{
	const struct insp_group *x = a, *y = b;

	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	if (x->extra != y->extra)
		return x->extra > y->extra ? -1 : 1;
	if (x->shallow != y->shallow)
		return x->shallow > y->shallow ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	int c = strcmp(x->name, y->name);
	if (c != 0)
		return c;
	if (x->count > 0 && y->count > 0 && x->nodes[0] != y->nodes[0])
		return x->nodes[0] < y->nodes[0] ? -1 : 1;
	return 0;
}

static int cmp_node(const void *a, const void *b, void *ctx)
{
	node_t x = *(const node_t *)a, y = *(const node_t *)b;

	(void)ctx;
	return (x > y) - (x < y);
}

/* The union of a, n nodes, and what is in seen: those not in seen yet
 * appended to u (ulen of ucap) and marked. */
static void union_add(bits_t *seen, const node_t *a, uint64_t n, node_t **u, size_t *ulen, size_t *ucap)
{
	for (uint64_t k = 0; k < n; k++) {
		node_t v = a[k];
		if (bit_get(seen, v))
			continue;
		bit_set(seen, v);
		if (*ulen == *ucap) {
			*ucap = *ucap ? *ucap * 2 : 1024;
			*u = xreallocarray(*u, *ucap, sizeof **u);
		}
		(*u)[(*ulen)++] = v;
	}
}

static void insp_total(const struct heap *h, const struct inspection *in, struct insp_result *r)
{
	bits_t *seen = xcalloc(bits_words(h->n), sizeof *seen);
	uint64_t all = 0, extra = 0;
	node_t *u = NULL;
	size_t n = 0, cap = 0;
	int anchored = 0;

	memset(&r->total, 0, sizeof r->total);
	for (size_t i = 0; i < r->n; i++) {
		const struct insp_group *g = &r->g[i];
		all += g->count;
		extra += g->extra;
		anchored |= g->anchors != NULL;
		size_t from = n;
		union_add(seen, g->nodes, g->count, &u, &n, &cap);
		for (size_t k = from; k < n; k++)
			r->total.shallow += h->node_shallow[u[k]];
	}
	r->total.count = n;
	r->total.overlap = all != n;
	if (in->extra_name != NULL && in->extra_bytes && strcmp(in->extra_name, "retained") == 0) {
		if (anchored) { /* the union of what the groups' bytes are of */
			memset(seen, 0, bits_words(h->n) * sizeof *seen);
			n = 0;
			for (size_t i = 0; i < r->n; i++) {
				const struct insp_group *g = &r->g[i];
				if (g->anchors != NULL)
					union_add(seen, g->anchors, g->nanchors, &u, &n, &cap);
				else
					union_add(seen, g->nodes, g->count, &u, &n, &cap);
			}
		}
		hw_sort(u, n, sizeof *u, cmp_node, NULL); /* insp_retained wants them sorted */
		r->total.extra = insp_retained(h, u, n, NULL);
	} else if (in->extra_name != NULL) {
		r->total.extra = extra;
	}
	free(u);
	free(seen);
}

const char *inspect_runtime_words(const struct inspection *in)
{
	if (in->runtime == NULL)
		return in->any_runtime ? NULL : "JVM";
	return strcmp(in->runtime, "clr") == 0 ? ".NET" : strcmp(in->runtime, "jvm") == 0 ? "JVM" : in->runtime;
}

int inspect_applies(const struct inspection *in, const struct heap *h)
{
	if (in->reads_strings && !heap_has_strings(h))
		return 0;
	if (in->runtime != NULL)
		return heap_runtime_is(h, in->runtime);
	return in->any_runtime || heap_runtime_is(h, "jvm");
}

int inspect_run(struct heap *h, const struct inspection *in, const char *arg,
		const struct objset *set, struct insp_result *r, struct progress *p,
		struct sbuf *err)
{
	memset(r, 0, sizeof *r);
	if (in->reads_strings && !heap_has_strings(h)) {
		sbuf_printf(err, "inspection %s reads strings' text: there is none in %s", in->name,
			    h->fmt->label);
		return -1;
	}
	if (!inspect_applies(in, h)) {
		const char *rt = inspect_runtime_words(in);
		sbuf_printf(err, "inspection %s reads %s: it runs on %s heaps only, not on %s", in->name,
			    in->runtime == NULL ? "Java objects" : "a runtime's own roots and handles", rt,
			    h->fmt->name);
		return -1;
	}
	if (in->arg_required && (arg == NULL || *arg == '\0')) {
		sbuf_printf(err, "inspection %s needs an argument: %s", in->name, in->arg);
		return -1;
	}
	if (in->arg == NULL && arg != NULL && *arg != '\0') {
		sbuf_printf(err, "inspection %s takes no argument", in->name);
		return -1;
	}
	/* over most of the heap it reads most of the dump, in no order of
	 * the file (a gzip dump through its view would inflate each member
	 * again and again) */
	if (set == NULL || set->count > h->n / 4)
		heap_whole(h, p);
	if (in->run(h, set, arg, r, p, err) < 0) {
		insp_result_free(r);
		return -1;
	}
	if (p != NULL && progress_cancelled(p))
		r->cancelled = 1;
	hw_qsort(r->g, r->n, sizeof *r->g, cmp_group);
	insp_total(h, in, r);
	return 0;
}
