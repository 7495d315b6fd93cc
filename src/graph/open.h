/* open.h — what opening a dump needs of the graph, whatever the format:
 * the driver that builds a heap and runs the analyses over it, again
 * when the rules or the focus change (engine/open.h has heap_open(), the
 * front ends' entry point; what is in memory is graph/resident.h). */
#ifndef HW_OPEN_H
#define HW_OPEN_H

#include "graph/heap.h"
#include "graph/resident.h"
#include "graph/rules.h"
#include "progress.h"

/* Build and analyse from an already parsed heap (used by heap_open and
 * by tests that construct heaps by hand through hprof files). */
void heap_analyse(struct heap *h, struct progress *p);

/* A mapped dump (its format's header read) to a heap as a cached open
 * leaves it: the reader's parse, the rules (NULL: none), the analyses,
 * the index cache written (when h->cache_file is set), the big arrays
 * parked. 0, or -1 with one line in err (the reader's). */
int heap_build(struct heap *h, const struct ruleset *rules, struct progress *p, struct sbuf *err);


/* A heap whose index cache proved corrupt (why) parsed and analysed
 * again, its mapping kept (h->rebuild, which heap_build sets: residency
 * below calls it there); refused when that fails. */
void heap_rebuild(struct heap *h, const char *why, struct progress *p);

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

#endif
