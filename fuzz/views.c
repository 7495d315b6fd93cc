/* views.c — every view and inspection of a heap for the fuzzers' bodies,
 * see views.h. The options are small (depth 2, top 10) so that a run
 * stays in milliseconds; each view is reported in every format. */
#include "views.h"

#include <stdlib.h>
#include <string.h>

#include "graph/open.h"
#include "query/alloc.h"
#include "query/inspect.h"
#include "query/lifelines.h"
#include "query/merged.h"
#include "query/report.h"
#include "query/views.h"

static const enum fmt fmts[] = { FMT_TEXT, FMT_JSON, FMT_CSV };

static void classes(struct heap *h, const struct objset *set, struct view_opts *vo, struct sbuf *out)
{
	struct class_view v;
	struct sbuf err;

	sbuf_init(&err);
	if (view_classes(h, set, vo, &v, &err) == 0) {
		for (int f = 0; f < 3; f++)
			report_classes(h, &v, fmts[f], out);
		class_view_free(&v);
	}
	sbuf_free(&err);
}

static void info_biggest_objects(struct heap *h, const struct objset *set, struct view_opts *vo,
				 struct sbuf *out)
{
	struct info_view iv;
	struct big_view bv;
	struct objects_view ov;

	view_info(h, set, &iv);
	view_biggest(h, set, vo, &bv);
	view_objects(h, set, vo, &ov);
	for (int f = 0; f < 3; f++) {
		report_info(h, &iv, fmts[f], out);
		report_biggest(h, &bv, fmts[f], out);
		report_objects(h, &ov, fmts[f], out);
	}
	info_view_free(&iv);
	big_view_free(&bv);
	objects_view_free(&ov);
}

/* Paths to the first few members, weak references followed or not. */
static void paths(struct heap *h, const struct objset *set, struct view_opts *vo, struct sbuf *out)
{
	int done = 0;

	for (node_t x = 1; x < h->n && done < 3; x++) {
		if (!objset_has(set, x))
			continue;
		struct path_view v;
		vo->weak = done == 1;
		view_paths(h, x, vo, &v);
		report_paths(h, &v, fmts[done], out);
		path_view_free(&v);
		done++;
	}
	vo->weak = 0;
}

/* The lifelines of the set's first objects, in each format. */
static void lifelines(struct heap *h, const struct objset *set, struct sbuf *out)
{
	int done = 0;

	for (node_t x = 1; x < h->n && done < 3; x++) {
		if (!objset_has(set, x))
			continue;
		struct lifeline_view v;
		view_lifelines(h, x, 50, &v);
		report_lifelines(h, &v, fmts[done], out);
		lifeline_view_free(&v);
		done++;
	}
}

static void allocations(struct heap *h, const struct objset *set, struct sbuf *out)
{
	struct alloc_view v;

	view_allocations(h, set, &v);
	for (int f = 0; f < 3; f++)
		report_allocations(h, &v, 5, 3, 0.5, fmts[f], out);
	alloc_view_free(&v);
}

/* The histogram of allocation times (the agent's record parsed here),
 * and the members of its middle bucket. */
static void times(struct heap *h, const struct objset *set, struct sbuf *out)
{
	struct time_view v;
	struct objset sel;

	view_times(h, set, 7, &v);
	for (int f = 0; f < 3; f++)
		report_times(h, &v, fmts[f], out);
	if (v.nb > 0) {
		time_select(h, set, v.b[v.nb / 2].from, TIME_OPEN, &sel);
		objset_free(&sel);
	}
	time_view_free(&v);
}

/* The three merged trees: by class, by field, by field as stored, and
 * dominating from the roots down; of the set's first MERGED_MAX
 * members: nine trees of a whole recorded heap (the .NET and Mono
 * fixtures) took half of each run, and a few hundred objects reach
 * what the whole would. */
#define MERGED_MAX 512
static void merged(struct heap *h, const struct objset *set, struct progress *p, struct sbuf *out)
{
	static const char *const names[] = { "merged-out", "merged-in", "merged-dom" };
	static const enum merged_kind kinds[] = { MG_OUTGOING, MG_INCOMING, MG_DOMINATING };
	node_t *m = objset_members(h, set);
	size_t n = set->count < MERGED_MAX ? (size_t)set->count : MERGED_MAX;

	for (int k = 0; k < 3; k++)
		for (int by = 0; by < 3; by++) {
			struct merged_tree t;
			int reverse = kinds[k] == MG_DOMINATING && by == 1;
			if (merged_tree(h, kinds[k], (enum merged_by)by, reverse, k == 1, m, n, 2, 5, &t, p) == 0) {
				report_merged(h, names[k], &t, fmts[by], out);
				merged_tree_free(&t);
			}
		}
	free(m);
}

/* The argument each inspection is run with: a simple regex for the
 * one that needs one, the defaults elsewhere. */
static const char *insp_arg(const struct inspection *in)
{
	return in->arg_required ? "^d.*e$" : NULL;
}

void fz_inspections(struct heap *h, const struct objset *set, struct progress *p, struct sbuf *out)
{
	size_t n;
	const struct inspection *all = inspect_all(&n);

	for (size_t i = 0; i < n; i++) {
		struct insp_result r;
		struct sbuf err;
		sbuf_init(&err);
		if (inspect_run(h, &all[i], insp_arg(&all[i]), set, &r, p, &err) == 0) {
			report_inspect(h, &all[i], insp_arg(&all[i]), &r, set, i % 2 ? 3 : 0,
				       fmts[i % 3], out);
			insp_result_free(&r);
		}
		sbuf_free(&err);
	}
}

/* Every view over the whole heap. */
void fz_all_views(struct heap *h)
{
	struct progress p;
	struct view_opts vo = { .depth = 2, .top = 10, .cutoff = 0.5, .max_paths = 3, .progress = &p };
	struct objset set;
	struct sbuf out;

	progress_init(&p, 1);
	sbuf_init(&out);
	objset_whole(h, &set); /* as main.c for info and classes: no bits */
	classes(h, &set, &vo, &out);
	heap_need(h, HP_ALL, &p);
	objset_all(h, &set);
	vo.sort = "retained";
	vo.exact = "a";
	classes(h, &set, &vo, &out);
	vo.sort = NULL;
	vo.exact = NULL;
	info_biggest_objects(h, &set, &vo, &out);
	paths(h, &set, &vo, &out);
	allocations(h, &set, &out);
	times(h, &set, &out);
	merged(h, &set, &p, &out);
	fz_inspections(h, &set, &p, &out);
	objset_free(&set);
	sbuf_free(&out);
}

/* One view of the set, as run_view() in main.c picks it. */
void fz_one_view(struct heap *h, const char *view, const struct objset *set, struct progress *p)
{
	struct view_opts vo = { .depth = 2, .top = 10, .cutoff = 0.5, .max_paths = 3, .progress = p };
	struct sbuf out;

	sbuf_init(&out);
	if (view == NULL || strcmp(view, "classes") == 0) {
		classes(h, set, &vo, &out);
	} else if (strcmp(view, "paths") == 0) {
		paths(h, set, &vo, &out);
	} else if (strcmp(view, "lifelines") == 0) {
		lifelines(h, set, &out);
	} else if (strcmp(view, "allocations") == 0) {
		allocations(h, set, &out);
	} else if (strcmp(view, "times") == 0) {
		times(h, set, &out);
	} else if (strncmp(view, "merged-", 7) == 0) {
		merged(h, set, p, &out);
	} else {
		info_biggest_objects(h, set, &vo, &out);
	}
	sbuf_free(&out);
}

