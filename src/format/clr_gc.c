/* clr_gc.c — a .NET trace's heap dump GC found by one pass over its
 * events, for the reader (clr.c), a mark (clr_mark.c) and the recorder
 * (through the engine): where the GC is (clr_window) and how far it has
 * come while the trace is written (clr_watch); see clr.h. */
#include "format/clr.h"

#include <stdlib.h>
#include <string.h>

#include "format/nettrace.h"

/* The runtime's events read here (its manifest's ids). */
enum { EV_GCSTART = 1, EV_GCEND = 2, EV_NODE = 18 };

static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }

/* What clr_window's pass gathers. */
struct window_read {
	struct clr_window *w;
	struct clr_pair *ends; /* each GCEnd: count, time */
	size_t nends, cends;
};

static int window_event(void *arg, const struct nt_event *e)
{
	struct window_read *wr = arg;

	if (!e->runtime)
		return 0;
	if (e->id == EV_GCSTART && e->len >= 16 && !wr->w->found && rd32(e->payload + 4) == 2 &&
	    rd32(e->payload + 12) != 1) {
		wr->w->found = 1;
		wr->w->gc = rd32(e->payload);
		wr->w->start_ts = e->timestamp;
	} else if (e->id == EV_GCEND && e->len >= 4) {
		VEC_GROW(wr->ends, wr->nends, wr->cends);
		wr->ends[wr->nends++] = (struct clr_pair){ rd32(e->payload), e->timestamp };
	}
	return 0;
}

void clr_window(const uint8_t *map, uint64_t size, struct clr_window *w)
{
	struct window_read wr = { w, NULL, 0, 0 };
	struct warnings ws = { .quiet = 1 };
	struct nt_trace t;
	struct sbuf err;

	memset(w, 0, sizeof *w);
	sbuf_init(&err);
	nt_read("trace", map, size, &t, window_event, &wr, &ws, &err);
	for (size_t i = 0; i < wr.nends && w->found; i++)
		if (wr.ends[i].key == w->gc && wr.ends[i].value >= w->start_ts && !w->ended) {
			w->ended = 1;
			w->end_ts = wr.ends[i].value;
		}
	free(wr.ends);
	warn_free(&ws);
	sbuf_free(&err);
}

/* What clr_watch's pass gathers beyond *w: GCEnds seen before their
 * GCStart (the stream holds each thread's events in order, not all
 * threads': a server GC's start and end may come from two). */
struct watch_read {
	struct clr_watch *w;
	uint32_t early_end[16];
	uint64_t early_ts[16];
	unsigned nearly;
	uint64_t start_ts, end_ts;
};

static int watch_event(void *arg, const struct nt_event *e)
{
	struct watch_read *wr = arg;
	struct clr_watch *w = wr->w;

	if (!e->runtime)
		return 0;
	if (e->id == EV_GCSTART && e->len >= 16 && !w->started && rd32(e->payload + 4) == 2 &&
	    rd32(e->payload + 12) != 1) {
		w->started = 1; /* GCStart of a blocking full GC: the induced one */
		w->count = rd32(e->payload);
		wr->start_ts = e->timestamp;
		for (unsigned i = 0; i < wr->nearly && i < 16; i++)
			if (wr->early_end[i] == w->count) {
				w->ended = 1;
				wr->end_ts = wr->early_ts[i];
			}
	} else if (e->id == EV_GCEND && e->len >= 4 && w->started && rd32(e->payload) == w->count) {
		w->ended = 1;
		wr->end_ts = e->timestamp;
	} else if (e->id == EV_GCEND && e->len >= 4 && !w->started) {
		wr->early_ts[wr->nearly % 16] = e->timestamp;
		wr->early_end[wr->nearly++ % 16] = rd32(e->payload);
	} else if (e->id == EV_NODE && e->len >= 8) { /* wherever they come (early_end) */
		w->nodes += rd32(e->payload + 4);
	}
	return 0;
}

void clr_watch(const uint8_t *map, uint64_t size, struct clr_watch *w)
{
	struct watch_read wr = { .w = w };
	struct nt_trace t;
	struct warnings ws = { .quiet = 1 };
	struct sbuf err;

	memset(w, 0, sizeof *w);
	sbuf_init(&err);
	memset(&t, 0, sizeof t);
	nt_read("stream", map, size, &t, watch_event, &wr, &ws, &err);
	/* the GC's own start to end, as the runtime timed them */
	w->pause_ms = -1;
	if (w->ended && t.qpc_freq > 0 && wr.end_ts >= wr.start_ts)
		w->pause_ms = (double)(wr.end_ts - wr.start_ts) * 1000.0 / (double)t.qpc_freq;
	sbuf_free(&err);
	warn_free(&ws);
}
