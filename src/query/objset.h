/* objset.h — an object set: a bitset over nodes with its size. Owned by
 * whoever holds it; objset_free() releases the bits. */
#ifndef HW_OBJSET_H
#define HW_OBJSET_H

#include "graph/analysis.h"

struct objset {
	bits_t *bits;   /* NULL: every object (objset_whole), no bits needed */
	uint64_t count, shallow;
};

/* Every object, without bits: for views that can answer from per-class
 * totals, so that a cached open need not load the per-node arrays. */
void objset_whole(const struct heap *h, struct objset *s);

void objset_empty(const struct heap *h, struct objset *s);
void objset_all(const struct heap *h, struct objset *s); /* every object, not the root */
void objset_recount(const struct heap *h, struct objset *s);
void objset_free(struct objset *s);

#endif
