/* alloc.h — where objects were allocated: the stack traces that a dump
 * records for them (HPROF TRACE and FRAME records, referred to by each
 * object's record; heapwalk's agent writes them for the objects its
 * allocation sampling picked, sample:BYTES). Two trees over the set's
 * objects that have a trace:
 *
 *   calls  top down: the outermost frame (a thread's run or main) first,
 *          each node the objects allocated in that method and in what it
 *          called on that path (JProfiler's allocation call tree);
 *   hot    bottom up: the allocation sites (the innermost frame: method
 *          and line) first, then their callers (hot spots, backtraces).
 *
 * Frames with the same class, method, signature and line are one. */
#ifndef HW_ALLOC_H
#define HW_ALLOC_H

#include "graph/heap.h"
#include "query/objset.h"

struct alloc_node {
	uint32_t frame;       /* frame index of the heap; HW_NONE: the tree's root */
	uint32_t parent;      /* HW_NONE for the root (node 0) */
	uint32_t kids, nkids; /* children: tree->kid[kids..kids+nkids), biggest first */
	uint64_t count, bytes;/* objects allocated on the paths through this node */
};

struct alloc_tree {
	struct alloc_node *n; /* n[0]: the root, every sampled object */
	size_t len, cap;
	uint32_t *kid;
	uint32_t *leaf;       /* per trace of the heap: its last node, HW_NONE if none */
};

struct alloc_view {
	uint64_t set_count, set_shallow;
	uint64_t traced_count, traced_bytes; /* with a trace of at least one frame */
	uint64_t traces;                     /* distinct traces among them */
	struct alloc_tree calls, hot;
};

/* Needs HP_NODES. */
void view_allocations(const struct heap *h, const struct objset *set, struct alloc_view *v);
void alloc_view_free(struct alloc_view *v);
/* The members of set allocated on the paths through node i of t (a tree
 * of v, made from set); out is over h. */
void alloc_select(const struct heap *h, const struct objset *set, const struct alloc_view *v,
		  const struct alloc_tree *t, uint32_t i, struct objset *out);

/* The separators of a path of frames in the steps site and calls. */
#define SITE_SEP " <- "
#define CALLS_SEP " -> "

/* The members of set allocated on a path of frames, each named as
 * frame_label() writes it: hot, from the innermost frame out (the site,
 * then its callers: "site A <- B"); else from the outermost in ("calls
 * A -> B"). What a row of the hot spots or the call tree selects. */
void alloc_select_path(const struct heap *h, const struct objset *set, int hot, char *const *labels,
		       size_t n, struct objset *out);
/* Is text the label of some frame of h (as alloc_select_path reads it)? */
int alloc_frame_known(const struct heap *h, const char *text);
/* Per frame of h, 1 where another frame reads the same but for its
 * method's signature (overloads): their texts in a path add it,
 * "A.m(A.java:3) [(I)V]". Caller frees. */
uint8_t *alloc_ambiguous(const struct heap *h);
/* The path of node i of t (from the tree's top down to it) in that
 * form, appended to out; -1 if a frame's text holds the separator, a
 * '|' or a control character (no step could name it back). */
int alloc_path_text(const struct heap *h, const struct alloc_tree *t, uint32_t i, int hot,
		    const uint8_t *amb, struct sbuf *out);

#endif
