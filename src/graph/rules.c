/* rules.c — parsing reference-classifier rules, see rules.h. */
#include "graph/rules.h"

/* STUB: being written (lead). */
#include <stdlib.h>
struct ruleset *rules_new(void) { return xcalloc(1, sizeof(struct ruleset)); }
void rules_free(struct ruleset *rs) { free(rs); }
int rules_parse(struct ruleset *rs, const char *file, const char *text, size_t len, struct sbuf *err)
{ (void)rs; (void)file; (void)text; (void)len; (void)err; return 0; }
int rules_load_file(struct ruleset *rs, const char *path, struct sbuf *err) { (void)rs; (void)path; (void)err; return 0; }
int rules_load_default(struct ruleset *rs, struct sbuf *err) { (void)rs; (void)err; return 0; }
int rules_enable(struct ruleset *rs, const char *group, int on) { (void)rs; (void)group; (void)on; return -1; }
uint64_t rules_fingerprint(const struct ruleset *rs) { (void)rs; return 0; }
void rule_to_string(const struct ruleset *rs, const struct rule *r, struct sbuf *out) { (void)rs; (void)r; (void)out; }
