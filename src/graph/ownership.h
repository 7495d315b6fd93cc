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
 * count. */
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

/* Owning references found one source at a time (for the few objects a
 * walk visits), by the rules applied to h (h->rules). owning_open: NULL
 * when no enabled rule owns anything; owning_ref: the index of the owns
 * rule that makes src -> dst owning (and not incidental: src is an
 * owner of the highest weight), or -1; NULL o: -1. */
struct owning;
struct owning *owning_open(const struct heap *h);
int owning_ref(struct owning *o, node_t src, node_t dst);
void owning_close(struct owning *o);

#endif
