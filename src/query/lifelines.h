/* lifelines.h — why an object stays alive, in brief: its short paths
 * to GC roots, or to objects an `owns` rule owns (graph/ownership.h),
 * grouped by how they read — the classes and fields along them — with
 * a count per group, instead of N full paths.
 *
 * The walk goes backwards over strong references: breadth first from
 * the object, a path ends at the first GC root or owned object on it
 * (the object itself ends nothing but as a GC root). Only the shortest
 * ways are followed: a referrer one step further from the object than
 * the one it refers to. Paths through the same run of a class and
 * field (a linked list) read as one step repeated. At most `max`
 * paths are walked; more, and the counts are lower bounds (limited).
 * No recursion: a million-long chain is one path, walked in a loop.
 *
 * The view owns its arrays (lifeline_view_free); strings in it are raw
 * dump text: escape them before output. */
#ifndef HW_LIFELINES_H
#define HW_LIFELINES_H

#include "graph/heap.h"

/* One step: an object of class `holder` refers through `field` to the
 * next object down (both indexes into lifeline_view.strs); `min`..`max`
 * times in a row (1..1 for a single step). */
struct lifeline_step {
	uint32_t holder, field;
	uint64_t min, max;
};

enum lifeline_end { LE_ROOT, LE_OWNED };

struct lifeline {
	size_t first, n;         /* steps[first..first+n), from the end down to the object */
	uint64_t count;          /* paths found that read so */
	enum lifeline_end end;
	uint32_t end_what;       /* LE_ROOT: the root kind's words; LE_OWNED: the owning
				  * rule ("owns Foo bar (file:line)"); index into strs */
	node_t example;          /* the end of the first such path */
	uint32_t example_len;    /* its steps (references), repeats counted */
};

struct lifeline_view {
	node_t target;
	struct lifeline *ll;     /* most paths first, then the fewest steps */
	size_t n;
	struct lifeline_step *steps;
	size_t nsteps;
	char **strs;             /* class labels, field labels, end words */
	size_t nstrs;
	uint64_t paths;          /* walked */
	uint64_t max;            /* the bound on paths */
	int limited;             /* the bound stopped the walk */
	int root;                /* the object is a GC root itself */
	unsigned pseudo;         /* no lifeline: PATH_WEAK_ONLY, PATH_UNREACHABLE (views.h) */
};

/* Lifelines of target (heap_need HP_NODES | HP_IN first), at most max
 * paths walked (0: 1000). */
void view_lifelines(const struct heap *h, node_t target, uint64_t max, struct lifeline_view *v);
void lifeline_view_free(struct lifeline_view *v);

#endif
