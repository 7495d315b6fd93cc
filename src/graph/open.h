/* open.h — open a dump: map it, load the index cache or parse, build
 * and analyse, save the cache. The one entry point the front ends use. */
#ifndef HW_OPEN_H
#define HW_OPEN_H

#include "graph/heap.h"
#include "progress.h"

struct ruleset;

struct open_opts {
	int no_cache;   /* neither read nor write the cache */
	int quiet;      /* no progress, warnings only collected */
	int verbose;    /* every warning on stderr, not one line for them all */
	int verify_cache; /* hash the whole dump before trusting its cache */
	/* reference-classifier rules to apply (graph/ownership.h), borrowed;
	 * NULL: the built-in default (Reference.referent weak, nothing else) */
	struct ruleset *rules;
};

/* Returns 0 and a ready heap, or -1 with a one-line error in err
 * ("FILE: offset N: what" or "FILE: what"). On failure h needs no free. */
int heap_open(struct heap *h, const char *path, const struct open_opts *o,
	      struct progress *p, struct sbuf *err);

/* Make sure the parts (HP_* of heap.h) of h are in memory: after a
 * cached open the big arrays are loaded when first needed; a cache that
 * proves corrupt then is replaced by parsing the dump again (with a
 * warning), which loads everything. Call before using the per-node or
 * per-reference arrays. */
void heap_need(struct heap *h, unsigned parts, struct progress *p);

/* Build and analyse from an already parsed heap (used by heap_open and
 * by tests that construct heaps by hand through hprof files). */
void heap_analyse(struct heap *h, struct progress *p);

#endif
