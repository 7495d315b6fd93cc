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
	/* unpaired objects whose content an unpaired object of the other
	 * side has: new or survivor (amb_new, over b), gone or survivor
	 * (amb_gone, over a); in neither fresh nor gone */
	struct objset amb_new, amb_gone;
	/* over b: new objects that took the place of a gone, smaller one the
	 * runtime could not have grown (a grown array's new store): new, and
	 * one for the leaks' clusters to look through */
	struct objset took_place;
	uint64_t pairs;          /* objects paired, all told */
	uint64_t pairs_amb;      /* of them, those whose object of b is in amb_new */
	double confidence;       /* mean confidence of b's "new" answers, 0..1 */
};

/* Ids are not addresses (tags, V8's ids): no object is paired for
 * being at one address in both (which would read the answer off the
 * ids; the calibration of the matcher wants it blind to them). */
#define MATCH_BLIND 1u

/* a: the older dump, b: the newer; both opened. Loads what it needs. */
int match_dumps(struct heap *a, struct heap *b, unsigned flags, struct match_result *r,
		struct progress *p);
void match_result_free(struct match_result *r);

#endif
