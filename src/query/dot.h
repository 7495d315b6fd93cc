/* dot.h — object graphs in GraphViz's dot language, for a picture of a
 * set's neighbourhood (JProfiler's heap walker graph), of the paths from
 * GC roots to an object and of a merged reference tree.
 *
 * The dot text is appended to an sbuf; `dot -Tsvg` draws it. Objects are
 * nodes named by their id ("0x1a2b"), labelled with their class, id,
 * shallow and retained size (and a String's text); the set's objects are
 * filled and bold, GC roots octagons whose tooltip names their roots;
 * references are edges labelled as the views name them (a field, "[3]",
 * "static NAME"), weak ones dashed, incidental ones (an owns rule's,
 * graph/ownership.h) dotted. Nodes come in node order, edges by source
 * then target: the same heap and set give the same text. Every string
 * from the dump is escaped twice: esc_append for control characters,
 * then for dot's strings (quotes, backslashes). */
#ifndef HW_DOT_H
#define HW_DOT_H

#include "graph/heap.h"
#include "query/merged.h"
#include "query/objset.h"
#include "query/views.h"
#include "util.h"

#define GRAPH_MAX_NODES 500 /* graph_dot's bound unless told another */

/* The set's objects and every object within `depth` references of them,
 * out (what they refer to, and so on) and in (what refers to them, and
 * so on), as a digraph: those objects and every reference between two
 * of them. The references followed are the ones an object holds (strong
 * and incidental, and the weak ones with `weak`), not an instance's
 * reference to its class object (as for the deep size, graph/reach.h),
 * nor one left out (the step ignore). At most max_nodes objects (0:
 * GRAPH_MAX_NODES): the set's first, in node order, then the nearest
 * ones, a level of depth at a time; when that cuts the graph short, a
 * comment and the graph's label say so. Needs every part of the heap
 * (heap_need(h, HP_ALL)). Returns 0, 1 when the bound cut the graph, or
 * -1 with err set (an empty set: nothing to draw). */
int graph_dot(const struct heap *h, const struct objset *set, unsigned depth, size_t max_nodes, int weak,
	      struct sbuf *out, struct sbuf *err);

/* The paths of v as one graph: each path a chain of references from
 * its GC root object (marked) down to the target (filled); a path that
 * shares an object with another joins it there. No path: the target
 * alone, the label saying why. Needs HP_NODES | HP_IN | HP_DOM. */
void dot_paths(const struct heap *h, const struct path_view *v, struct sbuf *out);

/* A merged reference tree (report_merged's rows) as a graph of groups:
 * a node per row (its class, objects, shallow bytes, reached), an edge
 * per row to its parent's row, or to the set at the top, along the
 * references: the set's groups refer to (out), refer to the set (in),
 * dominate it (dom), or from the GC roots down (dom, reverse). By field
 * the edge says the field. view names the graph ("merged-in"). */
void dot_merged(const struct heap *h, const char *view, const struct merged_tree *t, struct sbuf *out);

#endif
