/* leaks.h — what an action leaked, from three heaps of one process:
 * BASE (before the action), TARGET (after it) and FINAL (after it was
 * undone). The leaked objects are those of FINAL that did not exist at
 * BASE and did at TARGET: made by the action and still there at the end.
 * The caller finds them (two baselines over FINAL, query/baseline.h);
 * this file keeps those the GC roots reach and groups them.
 *
 * A leaked object that another leaked object dominates is part of that
 * one's leak: only the top ones (no leaked object dominates them) are
 * grouped, each bringing the leaked objects it retains. Each top one's
 * retainer trace is its shortest path from a GC root (breadth first from
 * every root at once), read as the classes and fields along it: array
 * indexes folded ("[]"), a holder of more than 32 references (a
 * dictionary) one slot ("[*]"), a run of one holder class (a linked list,
 * a tree) one step. Tops whose traces read alike, ending at objects of
 * one class, are a cluster; clusters are ranked by the sum of their
 * members' retained sizes (disjoint: no top dominates another), then by
 * count.
 *
 * The view owns its arrays (leaks_view_free); strings in it are raw dump
 * text: escape them before output. */
#ifndef HW_LEAKS_H
#define HW_LEAKS_H

#include "graph/heap.h"
#include "progress.h"
#include "query/objset.h"

/* One step of a cluster's trace, from the GC root down: an object of
 * class `holder` refers through `field` to the next one (indexes into
 * leaks_view.strs). For the example path: `node` the first holder of
 * the step's run and `times` the run's length. */
struct leak_step {
	uint32_t holder, field;
	node_t node;
	uint64_t times;
};

struct leak_cluster {
	uint32_t trace;          /* the trace's id (internal) */
	uint32_t cls;            /* the leaked objects' class label (strs) */
	uint32_t root;           /* the GC root's kind in words (strs) */
	uint64_t count;          /* top leaked objects in the cluster */
	uint64_t objects;        /* leaked objects they retain, themselves included */
	uint64_t shallow;        /* the shallow bytes of those */
	uint64_t retained;       /* the tops' retained sizes, summed */
	node_t example;          /* the member of the biggest retained size */
	node_t *members;         /* the tops, ascending */
	size_t first, nsteps;    /* the example's path: steps[first..first+nsteps) */
	node_t root_node;        /* the example path's GC root object */
};

/* A trace as a trie: each node its parent trace (NONE: a root, its
 * holder the root kind's words) and the step to it (strs indexes). */
struct leak_tnode {
	uint32_t parent, holder, field;
};

struct leaks_view {
	struct leak_cluster *cl; /* ranked */
	size_t n;
	struct leak_step *steps; /* example paths, of the first `shown` clusters */
	size_t nsteps, shown;
	char **strs;
	size_t nstrs;
	uint64_t leaked, leaked_bytes;  /* leaked objects the GC roots reach, shallow */
	uint64_t tops;                  /* of those, the ones no leaked object dominates */
	uint64_t retained;              /* the tops' retained sizes, summed */
	uint64_t unreachable;           /* leaked, but no GC root reaches them over strong references
					 * (garbage, or held through weak ones only): left out */
	/* objects the action made whose fate no comparison tells, and the
	 * bytes the leaked ones are at most (leak_find's, set by the
	 * caller): each may have leaked, so that a check's leaks rule
	 * measures a range */
	uint64_t fate_unknown, fate_unknown_bytes;
	/* and the retained size theirs is at most: of every object of the
	 * final dump that may be one (leak_find's maybe, set by the caller) */
	uint64_t fate_unknown_retained;
	/* objects of the final dump no comparison could identify, left out
	 * of the leaks (leak_find's unidentified, set by the caller) */
	uint64_t unidentified;
	struct leak_tnode *trie;        /* every cluster's trace */
	size_t ntrie;
};

/* The leaked objects of fin: new against base, old against target
 * (three comparisons, query/baseline.h). */
struct leak_find {
	struct objset leaked;   /* over fin: made after base, there at target, still in fin */
	uint64_t made;          /* new at target (against base) */
	uint64_t still;         /* leaked.count: made, and still in fin (reachable or not) */
	uint64_t unidentified;  /* objects of fin whose identity a comparison could not tell: left out */
	uint64_t freed;         /* of made, known gone from fin */
	uint64_t in_place;      /* of made, in fin in a gone one's place (a grown array's new store):
				 * there, and no leak itself (what it holds is) */
	uint64_t fate_unknown;  /* of made, neither known gone nor known in fin (their identity untold) */
	uint64_t fate_unknown_bytes; /* with some untold: the shallow bytes (in target) of those not known
				      * gone, which the leaked bytes are at most; else 0 */
	/* over fin: the leaked ones and every object left out as
	 * unidentified (where some are untold, the leaks are among them:
	 * the retained size of this set is what theirs is at most) */
	struct objset maybe;
	int exact;              /* every comparison exact (stable ids, a file's replayed moves) */
	char *identity;         /* what the answer rests on, in a line */
};
/* -1 with err set when the dumps cannot be compared (out of order,
 * different processes). */
int leaks_find(struct heap *base, struct heap *target, struct heap *fin, struct leak_find *r,
	       struct progress *p, struct sbuf *err);
void leak_find_free(struct leak_find *r);

/* Clusters of the leaked objects of h (heap_need HP_ALL first): example
 * paths for the first `shown` clusters (0: all). */
void view_leaks(struct heap *h, const struct objset *leaked, size_t shown, struct leaks_view *v);
void leaks_view_free(struct leaks_view *v);
/* Cluster k's trace in a line: "static field: class Foo .bar -> Foo[] .[]
 * -> Baz" (raw dump text). Replaces out's text. */
void leaks_trace_text(const struct leaks_view *v, size_t k, struct sbuf *out);

/* ---- a series: what grew every time ----
 * Snapshots 1..n of one process, added in order (each may be freed once
 * added): per class name, the instances of each snapshot; per cluster
 * of the objects new since the first (leaks' clusters, by their trace
 * text), its tops in each. Kept at the end: the classes and clusters
 * whose count rose from every snapshot to the next (a cluster: from the
 * second on, the first having none new). */
struct growth_row {
	int cluster;          /* 0: a class, 1: a cluster */
	char *name;           /* the class name, or the trace text */
	char *key;            /* what the row is matched by from dump to dump
			       * (a class's qualified name, class_match_name; a
			       * cluster's trace in them), NULL: its name */
	uint64_t *count;      /* nsnaps each */
	uint64_t *bytes;      /* a class: shallow; a cluster: retained */
	uint64_t grew;        /* the last count less the first */
};
/* Rows by kind and key (slot: index + 1, 0 empty). */
struct growth_tab {
	struct growth_row *rows;
	size_t n, cap;
	uint32_t *slot;
	size_t scap;
};
struct growth {
	size_t nsnaps;
	struct growth_row *rows; /* growth_finish's: what grew */
	size_t n;
	int exact;            /* every comparison with the first was exact */
	char *identity;       /* the last comparison's words (the last that was
			       * not exact, where one was not) */
	/* keyed by qualified names (kept if every dump gives them), and by
	 * names (a dump without them: diff's rule, classes_qualified) */
	size_t nqual;         /* the dumps that gave qualified names */
	struct growth_tab by_qual, by_name;
};
void growth_init(struct growth *g, size_t nsnaps);
/* Snapshot i (0-based) h; first: snapshot 0, opened (NULL for i == 0).
 * -1 with err set when h cannot be compared with first. */
int growth_add(struct growth *g, size_t i, struct heap *first, struct heap *h, struct progress *p,
	       struct sbuf *err);
/* Keep what grew every time, sorted: clusters first, then classes, each
 * by the growth of their count, largest first. */
void growth_finish(struct growth *g);
void growth_free(struct growth *g);

#endif
