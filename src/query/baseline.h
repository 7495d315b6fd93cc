/* baseline.h — old and new objects between two points in time.
 *
 * An object of the current dump is "new" when it did not exist at the
 * earlier point, "old" when it did; an object of the baseline dump that
 * the current one no longer has is "gone". Where the answer comes from:
 *
 *   BL_MARK  one dump written by heapwalk's agent after a mark: object
 *            ids are tags, and the tags at or below the mark's
 *            watermark are the objects that existed at the mark. Exact.
 *            Or one dump with a mark its format records (.NET: the GC's
 *            moves replayed from the mark to the dump, format_ops.mark):
 *            exact, unless the record leaves a doubt (inexact, with it
 *            in how).
 *   BL_IDS   two agent dumps of one JVM (the same session): an object
 *            is old when its tag is in both. Exact. Or two dumps of one
 *            process whose format keeps ids (V8's): exact for the objects
 *            the format's id_identifies() vouches for, an id whose object
 *            changed type or class (id_same()) being one object gone and
 *            one new; the others are "not identified", neither new nor
 *            old nor gone, and only their class deltas are told.
 *   BL_FILE  two heaps of one file that tells which objects are the
 *            same (Mono's heapshots: the GC's moves replayed, the
 *            reader's identity()). Exact.
 *   BL_MATCHED  any other two dumps of one process: objects are paired
 *            by content and references (query/match.h). Inferred, with
 *            a confidence; every answer says so.
 *
 * Class deltas (diff_classes) need no identity. */
#ifndef HW_BASELINE_H
#define HW_BASELINE_H

#include "graph/heap.h"
#include "progress.h"
#include "query/objset.h"

enum bl_mode { BL_NONE, BL_MARK, BL_IDS, BL_FILE, BL_MATCHED };

struct baseline {
	enum bl_mode mode;
	struct heap *old;         /* the baseline dump (BL_IDS, BL_MATCHED), not owned */
	struct objset fresh;      /* over the current dump: the new objects */
	struct objset gone;       /* over old: the objects gone since */
	uint64_t nold, old_bytes; /* current objects that existed before */
	uint64_t pairs;           /* BL_MATCHED: objects paired */
	uint64_t pairs_unknown;   /* of them, those now unidentified (paired by a guess) */
	double confidence;        /* BL_MATCHED: mean confidence of "new", 0..1 */
	int inexact;              /* BL_MARK by a format: the record left a doubt
				   * (how); or a dump cut short (partial) */
	int part_inferred;        /* BL_FILE: some objects' identity inferred, the
				   * rest exact (how: "inferred for N objects ...") */
	char *how;                /* BL_FILE, BL_MARK by a format: what the answer
				   * rests on; BL_MATCHED:
				   * why the file could not tell, or NULL */
	/* BL_IDS by a format's ids: the objects whose ids tell nothing;
	 * BL_MATCHED: the ambiguous ones, alike to an unpaired object of the
	 * other dump (match.h). Of the current dump and of old (bits NULL
	 * otherwise): neither new, old nor gone, counted per class. And the
	 * ids that passed from an object gone to one new. */
	struct objset unknown, unknown_old;
	/* of the ids in both that name an object in each: those whose
	 * objects differ (each one gone and one new); those no change in
	 * place could join (id_in_place), and of them those whose objects
	 * differ */
	uint64_t reused, telling, passed_on;
	/* BL_MATCHED, BL_IDS: new objects that took the place of gone ones
	 * (match.h's took_place; by ids, baseline_places: held by an old one
	 * where it held a gone one of their class); bits NULL otherwise */
	struct objset took_place;
	/* set: a dump is cut short (truncated_at), so what it lacks of the
	 * other is not identified rather than gone or new; the words */
	char *partial;
	/* set: BL_MATCHED, and a dump says not when it was taken, so that
	 * which is the earlier was not checked; the words */
	char *unordered;
	/* the comparison refused: the heaps of two runs of the program */
	int two_runs;
};

/* The mark inside an agent dump, or the one h's format records beside
 * it (format_ops.mark); -1 with err set if h has none. */
int baseline_from_mark(struct heap *h, struct baseline *b, struct sbuf *err);
/* Does h have a mark (the agent's, or its format's)? */
int baseline_has_mark(const struct heap *h);
/* Whether old comes before h where the dumps tell (heapshots' numbers,
 * times, ids that last within a process), without pairing objects by
 * content: 0, or -1 with err set, as baseline_compare says it. */
int baseline_in_order(struct heap *h, struct heap *old, struct progress *p, struct sbuf *err);
/* h against the earlier dump old (both opened, every part needed is
 * loaded here): by stable ids when both come from the agent in one
 * session, else by matching. -1 with err set when old is the later one
 * or the agent's dumps come from different JVMs. */
int baseline_compare(struct heap *h, struct heap *old, struct baseline *b,
		     struct progress *p, struct sbuf *err);
/* What old and new against b are, in a few words: "exact", "not exact:
 * WHY", "inferred (N%)", ... (the engine's conclusion, for a front end
 * to show beside what it was told of the baseline). */
void baseline_label(const struct baseline *b, struct sbuf *out);
/* Is every object's identity exact: none inferred, in doubt or not
 * identified? */
int baseline_exact(const struct baseline *b);
/* Some objects' identity inferred, the rest exact: "exact except N
 * objects inferred: ..." (a .NET mark's replay), "inferred for N objects
 * counted old, exact for the rest: ..." (Mono's)? */
int baseline_partly_inferred(const struct baseline *b);
void baseline_free(struct baseline *b);
/* Does the baseline have a dump of its own (gone objects)? */
static inline int baseline_has_old(const struct baseline *b)
{
	return b->mode == BL_IDS || b->mode == BL_FILE || b->mode == BL_MATCHED;
}
/* Is v (of the current dump) one whose identity the baseline cannot tell? */
static inline int baseline_unknown(const struct baseline *b, node_t v)
{
	return b->unknown.bits != NULL && objset_has(&b->unknown, v);
}
/* Is v (new) one that took the place of a gone, smaller object (a grown
 * array's new store): a container the leaks' clusters look through? */
static inline int baseline_took_place(const struct baseline *b, node_t v)
{
	return b->took_place.bits != NULL && objset_has(&b->took_place, v);
}
/* took_place by ids (BL_IDS), made when first asked for (leaks alone
 * look through such objects: no other comparison pays for it). */
void baseline_places(struct heap *h, struct baseline *b, struct progress *p);
/* The same for v of the baseline's dump. */
static inline int baseline_unknown_old(const struct baseline *b, node_t v)
{
	return b->unknown_old.bits != NULL && objset_has(&b->unknown_old, v);
}
/* One line for headers: "new 1234 (56 kB), old ..., gone ...", after
 * "inferred (97%): " for a matched baseline ("not exact: " for a mark
 * that leaves a doubt), then "not identified N"
 * ("ambiguous N", matched) when some objects are. Appends. */
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
	uint64_t unknown_old, unknown;  /* objects not identified, before and now */
	/* the change of the identified objects less new - gone: 0 unless the
	 * identity is wrong, and then the row says so */
	int64_t unexplained;
};
struct diff_view {
	struct class_delta *rows; /* sorted by bytes delta, largest growth first */
	size_t n;
	int have_identity;
	int have_unknown;         /* some objects are not identified */
	size_t unexplained;       /* rows whose unexplained is not 0 */
	uint64_t old_objects, old_total, objects, total;
	char *no_identity;        /* with no b: why not (the comparison's refusal), or NULL */
};
/* b may be NULL (no identity): then only counts and bytes. runs_apart:
 * the heaps are of two runs of the program (baseline.two_runs), where a
 * class the runtime names by where it made it (a JVM's hidden class,
 * runtime_ops.class_key_len) is paired by the rest of its name. */
void diff_classes(const struct heap *old, const struct heap *h, const struct baseline *b, int runs_apart,
		  struct diff_view *v);
void diff_view_free(struct diff_view *v);

#endif
