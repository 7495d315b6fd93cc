/* report.h — the views as text, JSON or CSV, appended to an sbuf; the
 * views that are graphs (paths, merged-*) also as GraphViz dot (dot.h).
 *
 * Text: "key: value" summary lines, a blank line, then a table with
 * aligned columns; byte counts exact and human ("4601456  4.39 MB").
 * JSON: one object per report, {"view":NAME, summary members...,
 * "rows":[{...},...]}, one row a line, numbers as integers, null where
 * a value is absent. CSV: a header line and the rows, no summary.
 * heapwalk(1) documents each view's members and columns. Every string
 * from the dump goes through esc_append, json_append or csv_append. */
#ifndef HW_REPORT_H
#define HW_REPORT_H

#include "graph/heap.h"
#include "query/alloc.h"
#include "query/alloctime.h"
#include "query/baseline.h"
#include "query/check.h"
#include "query/between.h"
#include "query/inspect.h"
#include "query/leaks.h"
#include "query/lifelines.h"
#include "query/merged.h"
#include "query/views.h"
#include "util.h"

/* FMT_DOT: report_paths and report_merged only (the front ends refuse
 * it for the others, which would write it as CSV). */
enum fmt { FMT_TEXT, FMT_JSON, FMT_CSV, FMT_DOT };

void report_info(const struct heap *h, const struct info_view *v, enum fmt f, struct sbuf *out);
void report_classes(const struct heap *h, const struct class_view *v, enum fmt f, struct sbuf *out);
void report_biggest(const struct heap *h, const struct big_view *v, enum fmt f, struct sbuf *out);
void report_objects(const struct heap *h, const struct objects_view *v, enum fmt f, struct sbuf *out);
/* The first top rows of v (0: all), largest growth first. */
void report_diff(const struct heap *old, const struct heap *h, const struct diff_view *v, size_t top,
		 enum fmt f, struct sbuf *out);
void report_paths(const struct heap *h, const struct path_view *v, enum fmt f, struct sbuf *out);
/* Lifelines (query/lifelines.h): a row per step of each, from its end. */
void report_lifelines(const struct heap *h, const struct lifeline_view *v, enum fmt f, struct sbuf *out);
/* What an action leaked (query/leaks.h): a row per step of each shown
 * cluster's example path from its GC root down to the leaked object,
 * then the object and the step expression that selects the cluster;
 * m: what the figures rest on, and the counts around them. */
struct leaks_meta {
	const char *identity;     /* "exact", "inferred ..." */
	const char *base, *target, *final;
	uint64_t made, still;     /* new at TARGET; of those, still in FINAL */
	uint64_t unidentified;    /* objects of FINAL a comparison could not tell: left out */
	int exact;
	size_t max_ids;           /* JSON and CSV: the ids a select lists at most (0: all) */
	uint64_t freed;           /* of made, known gone from FINAL */
	uint64_t fate_unknown;    /* of made, neither known gone nor known there (identity untold) */
	uint64_t in_place;        /* of made, there in a gone one's place (a grown array's new store) */
};
/* The meta of leaks_find's answer lf (query/leaks.h) and its three files. */
void leaks_meta_of(struct leaks_meta *m, const struct leak_find *lf, const char *base, const char *target,
		   const char *final, size_t max_ids);
void report_leaks(const struct heap *h, const struct leaks_view *v, const struct leaks_meta *m,
		  enum fmt f, struct sbuf *out);
/* What grew every time in a series of snapshots (query/leaks.h): a row
 * per class or cluster, its count in each snapshot (paths: theirs, n),
 * its growth, its bytes in the last. */
void report_growth(const struct growth *g, const char *const *paths, enum fmt f, struct sbuf *out);
/* The rules of heapwalk check, measured: a row per rule (its line,
 * pass, FAIL or error, the figure measured, the rule). */
void report_check(const struct chk_rules *rs, const char *dump, const char *rules_file, enum fmt f,
		  struct sbuf *out);
/* The path between two objects (query/between.h): a row per object,
 * with the reference to the next one; when there is none, why. */
void report_between(const struct heap *h, const struct between *b, enum fmt f, struct sbuf *out);
/* Hot spots, then the call tree: top rows of each, depth levels,
 * nodes under cutoff percent of the traced bytes left out. */
void report_allocations(const struct heap *h, const struct alloc_view *v, size_t top, int depth,
			double cutoff, enum fmt f, struct sbuf *out);
/* The histogram of allocation times: a row per bucket, objects, bytes,
 * percent of the timed objects (query/alloctime.h). */
void report_times(const struct heap *h, const struct time_view *v, enum fmt f, struct sbuf *out);
/* One inspection's group table (arg: its argument or NULL), the first
 * top groups (0: all); every inspection, for inspect --list. */
void report_inspect(const struct heap *h, const struct inspection *in, const char *arg,
		    const struct insp_result *r, const struct objset *set, size_t top,
		    enum fmt f, struct sbuf *out);
void report_inspect_list(enum fmt f, struct sbuf *out);
/* A merged reference tree (query/merged.h), depth first; view names it
 * ("merged-out", "merged-in", "merged-dom"). */
void report_merged(const struct heap *h, const char *view, const struct merged_tree *v,
		   enum fmt f, struct sbuf *out);

#endif
