/* match.h — which objects of an older dump survive in a newer one, for
 * ordinary dumps of one JVM (no stable ids): objects are paired by what
 * they are and where they sit in the graph, see match.c. The answer is
 * an inference, labelled so wherever it is shown. */
#ifndef HW_MATCH_H
#define HW_MATCH_H

#include "graph/heap.h"
#include "progress.h"
#include "query/objset.h"

struct match_result {
	struct objset fresh;     /* over b: objects with no partner in a (new) */
	struct objset gone;      /* over a: objects with no partner in b */
	uint64_t pairs;          /* objects paired, all told */
	double confidence;       /* mean confidence of b's "new" answers, 0..1 */
};

/* a: the older dump, b: the newer; both opened. Loads what it needs. */
int match_dumps(struct heap *a, struct heap *b, struct match_result *r, struct progress *p);
void match_result_free(struct match_result *r);

#endif
