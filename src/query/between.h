/* between.h — the shortest path between two objects (graph/reach.h),
 * for the `path` step, `heapwalk between` and the browser's P: the two
 * objects named by id or by node, the path found, and what to say when
 * there is none. Nothing here prints. */
#ifndef HW_BETWEEN_H
#define HW_BETWEEN_H

#include "graph/reach.h"
#include "util.h"

struct between {
	node_t from, to;
	unsigned flags;          /* REACH_WEAK, REACH_UNDIRECTED */
	int found;
	struct reach_path path;  /* when found */
};

/* The path between the objects with ids from and to (0x... or decimal).
 * 0 with b->found 1 or 0; -1 with err set: no such object, or cancelled
 * (p). Needs every part of the heap (heap_need(h, HP_ALL)). */
int between_ids(const struct heap *h, const char *from, const char *to, unsigned flags,
		struct between *b, struct progress *p, struct sbuf *err);
/* The same for two nodes (objects). -1 only when cancelled. */
int between_nodes(const struct heap *h, node_t from, node_t to, unsigned flags, struct between *b,
		  struct progress *p, struct sbuf *err);
void between_free(struct between *b);

/* "no path from 0x1 to 0x2 along references (...)": one line, saying
 * what else might find one. Appends. */
void between_none(const struct heap *h, const struct between *b, struct sbuf *out);

/* The step's text for b: "path FROM TO[ undirected][ weak]". Appends. */
void between_expr(const struct heap *h, const struct between *b, struct sbuf *out);

#endif
