/* analysis.h — analyses over a built heap: reachability and pseudo
 * roots, dominators and retained sizes, per-class figures, the exact
 * retained size of an arbitrary object set. */
#ifndef HW_ANALYSIS_H
#define HW_ANALYSIS_H

#include "graph/heap.h"
#include "progress.h"

/* A bitset over nodes; owned by the caller (free with free()). */
typedef uint64_t bits_t;
static inline int bit_get(const bits_t *b, node_t i) { return (int)(b[i >> 6] >> (i & 63) & 1); }
static inline void bit_set(bits_t *b, node_t i) { b[i >> 6] |= (uint64_t)1 << (i & 63); }
static inline void bit_clear(bits_t *b, node_t i) { b[i >> 6] &= ~((uint64_t)1 << (i & 63)); }
static inline void bit_clr(bits_t *b, node_t i) { b[i >> 6] &= ~((uint64_t)1 << (i & 63)); }
static inline size_t bits_words(node_t n) { return ((size_t)n + 63) / 64; }

/* Decide the virtual root's successors: GC roots, then pseudo roots for
 * objects reachable only through weak referents (RK_WEAK_ONLY), then
 * for unreachable objects (RK_UNREACHABLE: those with no unreachable
 * predecessor first, then the rest in index order). Builds in[]. */
/* A reader's root records put in order (by node, kind, native kind),
 * each (node, kind, native) once: what analysis_roots expects. */
void heap_roots_unique(struct heap *h);
void analysis_roots(struct heap *h, struct progress *p);

/* Unless h->keep_unreachable (or with an analysis root, whose border
 * ownership.c draws): the strong references from objects the GC
 * roots do not reach (over strong and followed weak references) to
 * objects they do become weak ones of rule WEAK_GARBAGE, so that the
 * dominators and retained sizes of the live heap are those of what the
 * GC roots reach alone; unreachable objects are still rooted (pseudo
 * roots, analysis_roots) and dominate only unreachable objects. Before
 * analysis_roots; idempotent. */
void analysis_cut_garbage(struct heap *h, struct progress *p);
/* The two, one after the other: analysis_roots' first marking is the
 * live set the cut made, where it is the same (no weak references: one
 * walk of the heap less). */
void analysis_garbage_roots(struct heap *h, struct progress *p);

/* The objects the dump's GC roots reach (bits_words(n) words, the
 * caller frees): over strong references, weak ones and those the
 * analyses moved aside; the others are its unreachable objects, whatever
 * the focus. Needs HP_OUT | HP_WEAK. */
bits_t *analysis_live_set(const struct heap *h);
/* h->reach_strong and h->reach_live (heap.h) made where the analysis
 * has pseudo roots and they are not there (a cached open): 1; 0 where
 * there are none (every object is the roots'). */
int analysis_reach(struct heap *h);

/* Make weak, with rule `rule`, every strong reference (v, t) from an
 * object (not the virtual root) that crosses the border of `in` (v in
 * it and t not, or t in it and v not) and whose source `from` holds
 * (NULL: any); the weak references stay sorted. Returns how many. */
uint64_t analysis_weaken_across(struct heap *h, const bits_t *in, const bits_t *from, uint16_t rule);

/* idom[] and retained[] for every node; per-class count, shallow_total
 * and the dominator-based retained lower bound. */
void analysis_dominators(struct heap *h, struct progress *p);

/* Dominator tree children (dom_start/dom_child), each node's children
 * in index order (views sort the few they show). Idempotent. */
void analysis_domchildren(struct heap *h);

/* Exact retained size of a set: the objects that become unreachable from
 * the virtual root (over strong references) when every member of `set`
 * is removed, members included. If `out` is not NULL it receives that
 * retained set as a bitset (bits_words(n) words). Returns bytes; *count
 * (if not NULL) the number of objects. */
uint64_t analysis_retained_set(const struct heap *h, const bits_t *set,
			       bits_t *out, uint64_t *count, struct progress *p);

/* Per-class dominator-based retained size restricted to a set: the sum
 * of retained[] of members of class c that no other member of class c
 * dominates. lb must have ncls entries; set NULL means all objects. */
void analysis_class_lb(struct heap *h, const bits_t *set, uint64_t *lb);

#endif
