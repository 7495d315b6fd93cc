/* view_classes.h — inside the classes view (view_classes*.c): its state,
 * its data and the helpers its files share. No other file includes it. */
#ifndef HW_VIEW_CLASSES_H
#define HW_VIEW_CLASSES_H

#include "query/classcols.h"
#include "query/views.h"
#include "tui/view.h"

/* The view's options, kept with the step (and taken over by the next). */
struct classes_state {
	int sort, reverse;  /* enum class_sort (classcols.h) */
	int delta;          /* new and gone columns instead of retained */
	int delta_set;      /* delta chosen once (on by default with a baseline) */
	int growth_off;     /* d turned delta off and so the growth sort: d brings it back */
	int growth_rev;     /* ... reversed or not, as it was */
	int packages, loaders;
};

/* Against the baseline: the set's new objects of a class, and (for the
 * whole dump, with a baseline dump) the baseline's objects of that name
 * that are gone. */
struct cls_delta {
	uint64_t new_count, new_bytes, gone_count, gone_bytes;
	uint64_t amb;  /* objects not identified (ambiguous, matched): new and gone not told */
	/* the baseline dump's instances and bytes of the class (by name;
	 * for the whole dump: have_gone) */
	uint64_t old_count, old_bytes;
};

/* An exact retained size of a package or loader row (its key). */
struct group_exact {
	uint64_t key, bytes;
};

struct classes_data {
	struct class_row *rows; /* every class with instances in the set (or gone ones) */
	size_t n;
	struct cls_delta *d;    /* per class, with a baseline; else NULL */
	int have_gone;          /* the gone columns mean something */
	struct gone_only {      /* the baseline's classes with gone objects and no namesake here */
		uint32_t cls;   /* of the baseline dump */
		struct cls_delta d;
	} *only;
	size_t nonly;
	uint64_t *exact;        /* exact retained per class, UINT64_MAX unknown; NULL: none asked */
	struct group_exact *gexact; /* of package and loader rows, */
	size_t ngexact;
	char *gexact_filter;        /* under this filter (NULL: none) */
};

static inline struct classes_state *cst(const struct tview *v) { return v->state; }

/* view_classes_rows.c: rows and numbers, for the other files */
/* The view's columns into out (room for VIEW_COLS), plain or against a
 * baseline (delta), with the generations or not; how many. */
int classes_columns(int delta, int gens, struct column *out);
/* A row's numbers: instances, shallow, retained (exact, or a lower
 * bound; !known: "?"), and with a baseline new and gone (d). */
void class_vals(struct tview *v, struct row *r, uint64_t count, uint64_t shallow, uint64_t ret, int exact,
		int known, const struct cls_delta *d);
struct row *class_row_make(struct tui *t, struct tview *v, struct rowvec *out, const struct class_row *cr);
/* Does the filter take class c? (it matches the escaped name) */
int class_visible(struct tui *t, struct tview *v, uint32_t c);
/* A class row's exact retained size: computed in this view, or known to
 * the heap when the row has every instance of the class; else the lower
 * bound (class_ret). */
int class_exact(const struct tview *v, const struct class_row *r, uint64_t *bytes);
uint64_t class_ret(const struct tview *v, const struct class_row *r);
/* The exact retained size of a package or loader row (its key). */
int group_exact_get(const struct classes_data *cd, uint64_t key, uint64_t *bytes);
void group_exact_set(struct classes_data *cd, uint64_t key, uint64_t bytes);
void add_delta(struct cls_delta *sum, const struct classes_data *cd, uint32_t c);

/* view_classes_group.c: the package tree and the loaders */
void package_level(struct tui *t, struct tview *v, const char *prefix, struct rowvec *out);
void loader_level(struct tui *t, struct tview *v, struct rowvec *out);
void loader_classes(struct tui *t, struct tview *v, uint64_t loader, struct rowvec *out);
/* Does class c belong to the package or loader row r? */
int group_has(struct tui *t, const struct row *r, uint32_t c);

/* view_classes_delta.c: against a baseline */
void classes_delta(struct tui *t, struct tview *v, struct classes_data *cd);
void gone_only_rows(struct tui *t, struct tview *v, struct rowvec *out);
/* The baseline's gone objects of class oc of heap `of` (the open dump
 * or the baseline's; matched by class_match_name): a step on its side. */
int gone_of_class(struct tui *t, const struct heap *of, uint32_t oc, struct use *u);

#endif
