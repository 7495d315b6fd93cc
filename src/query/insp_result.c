/* insp_result.c — what every inspection builds its answer with: groups
 * added to a result, the retained size of a group counted once, the
 * result freed, a field read through the runtime (inspect.h). Below the inspections and their table in
 * inspect.c, which calls them. */
#include "query/inspect.h"

#include <stdlib.h>
#include <string.h>

#include "graph/reader.h"

void insp_result_free(struct insp_result *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->g[i].name);
		free(r->g[i].nodes);
		free(r->g[i].anchors);
	}
	free(r->g);
	free(r->note);
	memset(r, 0, sizeof *r);
}

struct insp_group *insp_add(struct insp_result *r, const struct heap *h, char *name,
			    enum insp_priority prio, node_t *nodes, uint64_t count, uint64_t extra)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 16;
		r->g = xreallocarray(r->g, r->cap, sizeof *r->g);
	}
	struct insp_group *g = &r->g[r->n++];
	uint64_t sh = 0;
	for (uint64_t i = 0; i < count; i++)
		sh += h->node_shallow[nodes[i]];
	*g = (struct insp_group){ name, prio, nodes, count, sh, extra, HW_NONE, 0, 0, NULL, 0 };
	return g;
}

/* A member counts unless a member is above it in the dominator tree.
 * Each walk up the tree stops at the first node whose answer is known
 * (a member, or a node found with or without a member above), and
 * records the answer for every node it passed: each node is walked
 * through once per call, however deep the tree (a LinkedList owned
 * node by node is a chain as long as the list). The marks live in
 * arrays kept between calls, told apart by a call number. */
enum { NS_MEMBER = 1, NS_ABOVE = 2, NS_CLEAR = 3 };
static struct {
	node_t n;
	uint32_t *mark;   /* per node: call number << 2 | NS_* */
	uint32_t now;
	node_t *path;
	size_t cap;
} memo;

uint64_t insp_retained(const struct heap *h, const node_t *nodes, uint64_t count,
		       struct progress *p)
{
	uint64_t sum = 0;

	(void)p;
	if (memo.n != h->n || memo.now >= (UINT32_MAX >> 2)) {
		free(memo.mark);
		memo.n = h->n;
		memo.mark = xcalloc((size_t)h->n + 1, sizeof *memo.mark);
		memo.now = 0;
	}
	uint32_t now = ++memo.now << 2;
	for (uint64_t i = 0; i < count; i++)
		memo.mark[nodes[i]] = now | NS_MEMBER;
	for (uint64_t i = 0; i < count; i++) {
		node_t v = nodes[i], d = h->idom[v];
		size_t np = 0;
		int above = 0;
		while (d != 0 && d != HW_NONE && d < h->n) {
			if ((memo.mark[d] & ~3u) == now) {
				above = (memo.mark[d] & 3u) != NS_CLEAR;
				break;
			}
			if (np == memo.cap) {
				memo.cap = memo.cap ? memo.cap * 2 : 1024;
				memo.path = xreallocarray(memo.path, memo.cap, sizeof *memo.path);
			}
			memo.path[np++] = d;
			d = h->idom[d];
		}
		for (size_t k = 0; k < np; k++)
			memo.mark[memo.path[k]] = now | (above ? NS_ABOVE : NS_CLEAR);
		if (!above)
			sum += h->retained[v];
	}
	return sum;
}

node_t insp_field(const struct heap *h, const struct runtime_ops *rt, void *ctx, node_t v, const char *name)
{
	node_t t;
	uint32_t slot;

	if (rt == NULL || ctx == NULL || rt->field_ref == NULL || v == 0 || v >= h->n)
		return HW_NONE;
	return rt->field_ref(ctx, v, name, &t, &slot) == 0 ? t : HW_NONE;
}
