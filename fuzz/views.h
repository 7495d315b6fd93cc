/* views.h — every view, report and inspection of a heap, as the batch
 * mode runs them (src/cli/main.c), for the fuzzers' bodies: what a
 * reader put into the heap reaches everything that shows it. The
 * output goes to a buffer that is dropped; h stays the caller's. */
#ifndef HW_FUZZ_VIEWS_H
#define HW_FUZZ_VIEWS_H

#include "graph/heap.h"
#include "progress.h"
#include "query/objset.h"

/* Every view over the whole heap, each in text, JSON and CSV, and every
 * inspection (loads every part of h). */
void fz_all_views(struct heap *h);

/* One view of set, as main.c's run_view picks it by name ("classes",
 * "paths", "merged-out"...; NULL: classes). */
void fz_one_view(struct heap *h, const char *view, const struct objset *set, struct progress *p);

/* Every inspection over set, each reported (appended to out). */
void fz_inspections(struct heap *h, const struct objset *set, struct progress *p, struct sbuf *out);

#endif
