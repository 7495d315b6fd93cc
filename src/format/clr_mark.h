/* clr_mark.h — which objects of a .NET heap dump existed at a mark:
 * the heap at the mark (a nettrace heap dump) and every GC after it as
 * the runtime reported its moves and survivals (a nettrace stream of the
 * GC and GCHeapSurvivalAndMovement keywords) replayed up to the dump's
 * GC, written as a mark file beside the dump (DUMP.hwmark), which the
 * .NET reader reads with the dump.
 *
 * The replay is exact only when nothing it needs is missing; anything
 * that leaves a doubt (a GC not seen whole, a gap in the GC counts, a
 * range batch missing, the stream cut, an object the replay leads to
 * where the dump has none, or one of another type or size) is written
 * down as the reason the mark is not exact, and the answer is then never
 * called exact. Objects a background GC kept on the large or pinned
 * object heaps, where an allocation may take a dead one's place
 * unrecorded, are the mark's only when the dump holds one of their type
 * and size there: inferred, and counted so in the mark file. */
#ifndef HW_CLR_MARK_H
#define HW_CLR_MARK_H

#include <stdint.h>

#include "graph/heap.h"
#include "util.h"

#define CLR_MARK_SUFFIX ".hwmark"

/* The streams the replay reads (all mapped, untrusted). */
struct clr_mark_in {
	const uint8_t *mark;   /* the mark's heap dump */
	uint64_t mark_size;
	const uint8_t *rec;    /* the recorder's stream, NULL if none */
	uint64_t rec_size;
	const uint8_t *dump;   /* the snapshot */
	uint64_t dump_size;
	uint32_t mark_gc;      /* the mark's GC, as the mark noted it */
	uint32_t gc;           /* the snapshot's GC (its count) */
	const char *rec_why;   /* why the recorder did not end well, NULL if it did */
};

/* Replay: the mark file's bytes into out, and a clause for the
 * snapshot's line in said ("mark: exact, 12 objects of the mark ..."),
 * 0; or -1 with err when the mark's heap cannot be read at all. */
int clr_mark_replay(const struct clr_mark_in *in, struct sbuf *out, struct sbuf *said, struct sbuf *err);

/* The mark file beside h's dump (h->path + CLR_MARK_SUFFIX), read for
 * the heap just built (its nodes' ids are addresses): 1 with old[] (a
 * byte per node, 1 for an object that existed at the mark) and what the
 * answer rests on in how ("exact except N objects inferred: ..." when
 * some were inferred), *exact 0 with the reason in how when the replay
 * could not be sure; 0 when there is no mark file; -1 with err when
 * there is one but it is damaged, of another version, or not this
 * dump's. */
int clr_mark_read(const struct heap *h, uint32_t pid, uint64_t sync_qpc, uint8_t **old, int *exact,
		  struct sbuf *how, struct sbuf *err);

/* Which objects of h (a marked snapshot, its trace's pid and sync_qpc)
 * were objects of old, the mark's own heap dump (its pid and clock):
 * same[v] is old's node for h's node v, HW_NONE for a new one (format
 * identity(): 0 with how); -1 with why not in why (no mark file, old is
 * not its mark's heap, or the replay left a doubt). */
int clr_mark_identity(const struct heap *h, uint32_t pid, uint64_t sync_qpc, const struct heap *old,
		      uint32_t old_pid, uint64_t old_sync, node_t *same, struct sbuf *how, struct sbuf *why);

/* The BulkType events of the mark's heap, kept in the mark file beside
 * the trace (if there is one, and it is this trace's): each payload
 * through fn. The runtime names a type once while any session is open,
 * and the recorder's session stays open from the mark to the snapshot:
 * a type named in the mark's heap is named there only. */
void clr_mark_types(const char *trace, uint32_t pid, uint64_t sync_qpc,
		    void (*fn)(void *arg, const uint8_t *payload, uint32_t len), void *arg);

#endif
