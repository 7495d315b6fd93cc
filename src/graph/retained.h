/* retained.h — exact retained sizes of many object sets at once, each set
 * the instances of some classes (one class, a package's, a class
 * loader's), and a per-heap memory of the exact figure of "every
 * instance of class c", so that a later view can show it again.
 *
 * What "retained" means is analysis_retained_set()'s: the objects that
 * become unreachable from the virtual root, over strong references, once
 * the set's members are removed, members included. These functions give
 * exactly its figures, only faster when there are several sets. */
#ifndef HW_RETAINED_H
#define HW_RETAINED_H

#include "graph/analysis.h"
#include "progress.h"

#define RETAINED_UNKNOWN UINT64_MAX /* bytes of a set not computed (cancelled) */

/* Set i is the instances, among `within` (NULL: every object), of the
 * classes cls[start[i] .. start[i + 1]). Sets may overlap, share classes
 * and repeat; a class may appear twice in a set. Everything is borrowed. */
struct class_sets {
	size_t n;
	const size_t *start;  /* n + 1 entries */
	const uint32_t *cls;  /* class indices, < h->ncls */
	const bits_t *within; /* a bitset over nodes; NULL: the whole heap */
};

/* bytes[i] and count[i] (count may be NULL) of set i, each exactly what
 * analysis_retained_set() returns for that set. Sets that hold every
 * instance of a single class are answered from, and recorded in, the
 * heap's memory of such figures (retained_class_known). Needs the nodes
 * and the out-references (heap_need HP_NODES | HP_OUT) unless `within`
 * is NULL and every set is known already. Work: one marking pass over
 * the heap for every 64 sets not known, each pass about as long as two
 * or three of analysis_retained_set, with a word (8 bytes) per object,
 * a bit per object and a stack of up to 4 bytes per object for the pass
 * (freed on return); one or two sets are one analysis_retained_set each.
 * With p: progress, and cancellation: returns -1 if p was cancelled, the
 * sets not done then have bytes RETAINED_UNKNOWN (the others are right);
 * else 0. */
int retained_sets(struct heap *h, const struct class_sets *s, uint64_t *bytes,
		  uint64_t *count, struct progress *p);

/* The one-class case: the instances of class c within `within` (NULL:
 * all). As retained_sets; returns the bytes, RETAINED_UNKNOWN if
 * cancelled. */
uint64_t retained_class(struct heap *h, uint32_t c, const bits_t *within, uint64_t *count,
			struct progress *p);

/* Is the exact retained size of every instance of class c known (from an
 * earlier retained_sets on this heap, since its dominators were last
 * computed)? Then 1, with *bytes and *count (either may be NULL). Reads
 * no per-node array: usable on a cached open before heap_need. */
int retained_class_known(const struct heap *h, uint32_t c, uint64_t *bytes, uint64_t *count);

/* Forget those figures: the references changed (rules applied again).
 * heap_free and heap_apply_rules call it. */
void retained_forget(struct heap *h);

#endif
