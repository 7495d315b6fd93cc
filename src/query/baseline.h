/* baseline.h — old and new objects between two points in time.
 *
 * An object of the current dump is "new" when it did not exist at the
 * earlier point, "old" when it did; an object of the baseline dump that
 * the current one no longer has is "gone". Where the answer comes from:
 *
 *   BL_MARK  one dump written by heapwalk's agent after a mark: object
 *            ids are tags, and the tags at or below the mark's
 *            watermark are the objects that existed at the mark. Exact.
 *   BL_IDS   two agent dumps of one JVM (the same session): an object
 *            is old when its tag is in both. Exact.
 *
 * Ordinary dumps carry no identity (ids are addresses, and objects
 * move); pairing their objects is not done yet, and baseline_compare
 * says so. Class deltas (diff_classes) need no identity. */
#ifndef HW_BASELINE_H
#define HW_BASELINE_H

#include "graph/heap.h"
#include "progress.h"
#include "query/objset.h"

enum bl_mode { BL_NONE, BL_MARK, BL_IDS };

struct baseline {
	enum bl_mode mode;
	struct heap *old;         /* the baseline dump (BL_IDS), not owned */
	struct objset fresh;      /* over the current dump: the new objects */
	struct objset gone;       /* over old: the objects gone since (BL_IDS) */
	uint64_t nold, old_bytes; /* current objects that existed before */
};

/* The mark inside an agent dump; -1 with err set if h has none. */
int baseline_from_mark(struct heap *h, struct baseline *b, struct sbuf *err);
/* h against the earlier dump old (both opened, every part needed is
 * loaded here); -1 with err set when the two cannot be compared object
 * by object. */
int baseline_compare(struct heap *h, struct heap *old, struct baseline *b,
		     struct progress *p, struct sbuf *err);
void baseline_free(struct baseline *b);
/* One line for headers: "new 1,234 (56 kB) · old ... · gone ...". Appends. */
void baseline_summary(const struct baseline *b, struct sbuf *out);
/* "exact: marked by the agent at ...", what the answer rests on. Appends. */
void baseline_source(const struct heap *h, const struct baseline *b, struct sbuf *out);

/* Class deltas between two dumps, by class name (classes of one name
 * from several loaders add up, as in a class histogram). */
struct class_delta {
	const char *name;          /* points into one of the heaps */
	uint64_t old_count, old_bytes, count, bytes;
	uint64_t new_count, new_bytes;  /* new objects (with identity only) */
	uint64_t gone_count, gone_bytes;
};
struct diff_view {
	struct class_delta *rows; /* sorted by bytes delta, largest growth first */
	size_t n;
	int have_identity;
	uint64_t old_objects, old_total, objects, total;
};
/* b may be NULL (no identity): then only counts and bytes. */
void diff_classes(const struct heap *old, const struct heap *h, const struct baseline *b,
		  struct diff_view *v);
void diff_view_free(struct diff_view *v);

#endif
