/* progress.h — phase, percent and throughput on stderr, only when stderr
 * is a terminal and not quiet; throttled to a few updates a second. */
#ifndef HW_PROGRESS_H
#define HW_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

struct progress {
	int enabled;
	const char *phase;
	uint64_t total;      /* units of work (bytes, objects) */
	const char *unit;    /* "MB", "objects" */
	double start, last;
	/* phase timings, always kept (for the benchmark and -v) */
	struct { const char *name; double secs; uint64_t units; } done[16];
	int ndone;
	/* A front end that draws its own progress (the TUI) sets tick: it is
	 * called from progress_update a few times a second, whether or not
	 * `enabled`, and may set `cancelled` (Esc pressed). Long computations
	 * poll progress_cancelled() and stop early; their caller then drops
	 * the partial result. */
	void (*tick)(struct progress *p, uint64_t done);
	void *tick_arg;
	volatile int cancelled;
};

/* Every function accepts p == NULL and then does nothing. */
void progress_init(struct progress *p, int quiet);
void progress_begin(struct progress *p, const char *phase, uint64_t total, const char *unit);
void progress_update(struct progress *p, uint64_t done);
void progress_end(struct progress *p);
static inline int progress_cancelled(const struct progress *p)
{
	return p != NULL && p->cancelled;
}
/* Adapter for callbacks taking (arg, done, total). */
void progress_cb(void *arg, uint64_t done, uint64_t total);

#endif
