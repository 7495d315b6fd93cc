/* ownership.h — apply reference-classifier rules (rules.h) to a heap:
 * which references are strong, weak or incidental, then reachability,
 * dominators and retained sizes again.
 *
 * Every reference of the dump is in exactly one of three places:
 *   out/in      strong: dominators and paths to GC roots follow them
 *   weak_src/dst  weak: a rule's `weak` (Reference.referent in jdk.rules)
 *   rx_src/dst  incidental: the target has an owner of a higher weight,
 *               so this reference does not keep it (the owner does)
 * Applying another ruleset (heap_apply_rules, graph/open.h) moves
 * references between them and computes the analyses again; the dump's
 * references are never lost.
 *
 * `owns` with weight W: when an object has owning references, only
 * those of the highest weight count for its dominator; its other
 * references become incidental. If its owners are unreachable, its
 * incidental references count again (an owner cannot strand an object
 * the program still reaches). Two owners (distinct objects) of the same
 * highest weight: ambiguous ownership, listed in h->ambiguous, and both
 * count. The owned objects (whose owners the program reaches) and the
 * rule of each: h->own_node, h->own_rule (where lifelines end). */
#ifndef HW_OWNERSHIP_H
#define HW_OWNERSHIP_H

#include "graph/heap.h"
#include "graph/rules.h"
#include "progress.h"

/* The classification alone, before the first analyses (heap_open):
 * references moved, tags and ambiguous owners set; roots, in[] and the
 * dominators are left to heap_analyse(). 0, or -1 if cancelled. */
int ownership_classify(struct heap *h, const struct ruleset *rs, struct progress *p);

/* The tag labels of v, "; "-joined, appended to out; 0 if none, else 1. */
int node_tags(const struct heap *h, node_t v, struct sbuf *out);

/* Is the reference src -> dst weak by a rule (or a referent)? incidental?
 * The rule that made it so (index into the ruleset applied), or -1. */
int ref_is_weak(const struct heap *h, node_t src, node_t dst);
int ref_is_incidental(const struct heap *h, node_t src, node_t dst); /* 0 or -1 */

#endif
