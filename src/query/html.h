/* html.h — one self-contained HTML file of an object set: the dump, its
 * leak suspects with their paths from GC roots, the biggest objects as
 * an expandable dominator tree, a treemap and a sunburst of that tree,
 * the class histogram, the inspections' top groups and, with a
 * baseline, what is new. Nothing in it loads from the network: the
 * style and the script (html.css, html.js) are compiled in, the figures
 * are one JSON document in the page, and the script builds the page
 * from it with text nodes only, so no string from the dump is ever read
 * as markup.
 *
 * The figures are the batch reports' own JSON (report.h) where a view
 * has one (info, classes, inspect, paths, diff), so the page shows what
 * `-f json` says. The dominator tree is kept to what a browser can draw:
 * at most max_nodes objects, the biggest first, no deeper than depth
 * levels, none under cutoff percent of what the set's top members
 * retain; the rest of each
 * object's children fold into one "elided" entry carrying their count
 * and sizes, so every level still adds up to its parent. */
#ifndef HW_HTML_H
#define HW_HTML_H

#include "graph/heap.h"
#include "progress.h"
#include "query/objset.h"
#include "util.h"

struct html_opts {
	const char *expr;     /* the steps that made the set; NULL: every object */
	unsigned depth;       /* dominator tree levels kept (default 128) */
	double cutoff;        /* percent of the tree's bytes under which objects fold */
	size_t max_nodes;     /* objects kept in the tree at most */
	size_t top;           /* groups shown per inspection */
	/* the inspections shown (those of them that apply to the dump; none
	 * takes an argument); NULL: boxed-primitives, zero-length-arrays,
	 * duplicate-classes, finalizer-queue, pinned */
	const char *const *inspections;
	size_t ninspections;
	const char *leaks_json;  /* the leaks view's JSON (report_leaks), its section; NULL: none */
	struct progress *progress;
};

#define HTML_DEPTH     128
#define HTML_CUTOFF    0.005
#define HTML_MAX_NODES 60000
#define HTML_TOP       10

void html_opts_default(struct html_opts *o);
/* The report of set (h needs HP_ALL; h->baseline, when set, adds what
 * is new) appended to out; -1 with err "cancelled" if the progress was. */
int report_html(struct heap *h, const struct objset *set, const struct html_opts *o,
		struct sbuf *out, struct sbuf *err);

#endif
