/* alloctime.h — when objects were allocated, for the dumps that record
 * it (graph/reader.h heap_alloc_times(): heapwalk's agent records it for
 * each object its sampling picked): a histogram of the set's times, the
 * members allocated in an interval, and times as text.
 *
 * Times are milliseconds after the heap's time 0 (the JVM's start for
 * the agent's snapshots); as text, seconds with up to three decimals
 * ("12.5" is 12500 ms). An interval FROM..TO is inclusive at both ends;
 * either end may be left open ("..TO", "FROM.."). */
#ifndef HW_ALLOCTIME_H
#define HW_ALLOCTIME_H

#include "graph/heap.h"
#include "query/objset.h"

#define TIME_OPEN UINT64_MAX /* an interval's open end */

struct time_bucket {
	uint64_t from, to;    /* ms, inclusive */
	uint64_t count, bytes;/* members allocated then, their shallow bytes */
};

struct time_view {
	uint64_t set_count, set_shallow;
	uint64_t timed_count, timed_bytes;   /* members with a time */
	uint64_t dump_timed;                 /* objects of the whole dump with one */
	uint64_t first, last;                /* their earliest and latest time */
	uint64_t width;                      /* ms per bucket */
	uint64_t origin_ms;                  /* time 0, ms since the epoch; 0: unknown */
	const char *origin;                  /* what time 0 is ("JVM start") */
	struct time_bucket *b;               /* from first to last, empty ones too */
	size_t nb;
};

/* The histogram of set's allocation times in about nbuckets buckets (at
 * most nbuckets + 1) of a round width (1, 2 or 5 times a power of ten
 * ms). Needs HP_NODES. */
void view_times(struct heap *h, const struct objset *set, size_t nbuckets, struct time_view *v);
void time_view_free(struct time_view *v);
/* Why v has no buckets, for a note: the dump records no times (and how
 * dumps get them), or none of the set's objects has one. Appends. */
void time_none_note(const struct heap *h, const struct time_view *v, struct sbuf *out);
/* The members of set allocated from `from` to `to` (ms, inclusive;
 * TIME_OPEN: that end open) into out, a new set over h. */
void time_select(struct heap *h, const struct objset *set, uint64_t from, uint64_t to, struct objset *out);

/* "FROM..TO" into *from and *to (ms; TIME_OPEN for an open end): 0, or
 * -1 with what is wrong in err. */
int time_range_parse(const char *s, uint64_t *from, uint64_t *to, struct sbuf *err);
/* The canonical "FROM..TO" (what time_range_parse reads back); appends. */
void time_range_text(uint64_t from, uint64_t to, struct sbuf *out);
/* ms as seconds: "12.5", "0.001", "3"; appends. */
void time_seconds(uint64_t ms, struct sbuf *out);

#endif
