/* ownership.h — apply reference-classifier rules (rules.h) to a heap:
 * which references are strong, weak or incidental, then reachability,
 * dominators and retained sizes again.
 *
 * Every reference of the dump is in exactly one of three places:
 *   out/in      strong: dominators and paths to GC roots follow them
 *   weak_src/dst  weak: a rule's `weak` (Reference.referent in jdk.rules)
 *   rx_src/dst  incidental: the target has an owner of a higher weight,
 *               so this reference does not keep it (the owner does)
 * Applying another ruleset moves references between them and computes
 * the analyses again; the dump's references are never lost.
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

/* Classify every reference by rs (NULL: the built-in default, which is
 * Reference.referent weak and nothing else), then reachability and
 * dominators (analysis.h). Needs every part (heap_need(h, HP_ALL)).
 * Records rules_fingerprint(rs) in h->rules_fp, tags in h->tags and
 * ambiguous owners in h->ambiguous, and warnings (a rule whose field no
 * matching class has) in h->warn. Returns 0, or -1 if p was cancelled
 * before the new analyses started (h is then as before). */
int heap_apply_rules(struct heap *h, const struct ruleset *rs, struct progress *p);

/* The analyses' focus (MemorySnapshotAnalyzer's rootobject and
 * ignorebackref), kept with the heap through later rules:
 * heap_set_root analyses as if v were the only GC root, even if it is
 * garbage (0: the dump's GC roots again): what v does not reach is
 * left as unreachable, and its references into what v reaches count as
 * weak (WEAK_OUTSIDE), so nothing outside holds anything inside.
 * heap_ignore leaves out (on) or puts back every reference from src to
 * dst: they count as weak (WEAK_IGNORED), followed by nothing; what that
 * leaves unreachable holds nothing the roots still reach (its
 * references into it count as WEAK_OUTSIDE too; the dump's own garbage
 * is as without the focus).
 * Both compute the analyses again; 0, or -1 if p was cancelled (then
 * nothing changed). */
int heap_set_root(struct heap *h, node_t v, struct progress *p);
int heap_ignore(struct heap *h, node_t src, node_t dst, int on, struct progress *p);

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
