/* views.h — the command-line views of an object set, rendered through
 * report.h. The TUI will show the same data. Each view appends its
 * output to `out`; -1 with err set on a bad option value. info and
 * classes (without exact sizes) accept a set without bits (the whole
 * heap); the others need heap_need() first: biggest and objects
 * HP_NODES | HP_DOM, paths HP_NODES | HP_IN (| HP_WEAK), the rest all. */
#ifndef HW_VIEWS_H
#define HW_VIEWS_H

#include "graph/heap.h"
#include "progress.h"
#include "query/objset.h"
#include "query/report.h"

struct view_opts {
	enum fmt fmt;
	const char *sort;    /* classes: name|instances|shallow|retained */
	int reverse;
	const char *filter;  /* classes: PCRE2 regex on the class name */
	const char *exact;   /* classes: PCRE2 regex of classes to compute exactly */
	int all;             /* classes: also classes with no instance in the set */
	int depth;           /* biggest: levels to expand (1 = top only) */
	int top;             /* rows at the top level; 0 = all */
	double cutoff;       /* biggest: percent of the parent folded into one row */
	int max_paths;       /* paths */
	int weak;            /* paths: follow weak referents too */
	struct progress *progress;
};

int view_info(struct heap *h, const struct objset *set, const struct view_opts *o, struct sbuf *out);
int view_classes(struct heap *h, const struct objset *set, const struct view_opts *o,
		 struct sbuf *out, struct sbuf *err);
int view_biggest(struct heap *h, const struct objset *set, const struct view_opts *o, struct sbuf *out);
int view_objects(struct heap *h, const struct objset *set, const struct view_opts *o, struct sbuf *out);
int view_paths(struct heap *h, node_t target, const struct view_opts *o, struct sbuf *out);

/* "java.util.HashMap@0x7ff0012a8" style label of a node. */
void node_label(const struct heap *h, node_t v, struct sbuf *out);

#endif
