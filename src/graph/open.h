/* open.h — what opening a dump needs of the graph, whatever the format
 * (engine/open.h has heap_open(), the front ends' entry point). */
#ifndef HW_OPEN_H
#define HW_OPEN_H

#include "graph/heap.h"
#include "progress.h"

/* Make sure the parts (HP_* of heap.h) of h are in memory: after a
 * cached open the big arrays are loaded when first needed; a cache that
 * proves corrupt then is replaced by parsing the dump again (with a
 * warning), which loads everything. Call before using the per-node or
 * per-reference arrays. */
void heap_need(struct heap *h, unsigned parts, struct progress *p);

/* Map `path` read-only into h (path, map, size, fd): 0, or -1 with one
 * line in err (the file named, escaped). An empty file maps as NULL, 0. */
int heap_map_file(struct heap *h, const char *path, struct sbuf *err);

/* Build and analyse from an already parsed heap (used by heap_open and
 * by tests that construct heaps by hand through hprof files). */
void heap_analyse(struct heap *h, struct progress *p);

#endif
