/* objset.h — an object set: a bitset over nodes with its size. Owned by
 * whoever holds it; objset_free() releases the bits. Node 0, the
 * virtual root, is never a member. */
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
void objset_all(const struct heap *h, struct objset *s); /* every object, with bits */
/* Give a whole set its bits (needs the per-node arrays). */
void objset_materialize(const struct heap *h, struct objset *s);
/* count and shallow from the bits; clears node 0. */
void objset_recount(const struct heap *h, struct objset *s);
void objset_free(struct objset *s);

static inline int objset_has(const struct objset *s, node_t v)
{
	return s->bits != NULL ? bit_get(s->bits, v) : v != 0;
}

/* Does the set hold every object (with or without bits)? */
static inline int objset_is_all(const struct heap *h, const struct objset *s)
{
	return s->count == (uint64_t)h->n - 1;
}

/* The members in index order: a new array of s->count nodes (at least
 * one element allocated), caller frees. */
node_t *objset_members(const struct heap *h, const struct objset *s);

#endif
