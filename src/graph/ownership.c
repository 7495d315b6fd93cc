/* ownership.c — applying rules to a heap, see ownership.h. */
#include "graph/ownership.h"

/* STUB: being written (lead). */
#include "graph/analysis.h"
int heap_apply_rules(struct heap *h, const struct ruleset *rs, struct progress *p) { (void)rs; (void)h; (void)p; return 0; }
int node_tags(const struct heap *h, node_t v, struct sbuf *out) { (void)h; (void)v; (void)out; return 0; }
int ref_is_weak(const struct heap *h, node_t src, node_t dst) { (void)h; (void)src; (void)dst; return -1; }
int ref_is_incidental(const struct heap *h, node_t src, node_t dst) { (void)h; (void)src; (void)dst; return -1; }
