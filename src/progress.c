/* progress.c — progress lines on stderr (terminal only) and phase timings. */
#include "progress.h"

#include <stdio.h>
#include <unistd.h>

#include "util.h"

void progress_init(struct progress *p, int quiet)
{
	*p = (struct progress){ 0 };
	p->enabled = !quiet && isatty(STDERR_FILENO);
}

void progress_begin(struct progress *p, const char *phase, uint64_t total, const char *unit)
{
	if (p == NULL) /* callers may pass no progress at all */
		return;
	p->phase = phase;
	p->total = total;
	p->unit = unit;
	p->start = p->last = hw_now();
	if (p->tick != NULL) /* the first update draws at once: a front end shows work begun */
		p->last -= 1.0;
}

void progress_update(struct progress *p, uint64_t done)
{
	if (p == NULL || p->phase == NULL || (!p->enabled && p->tick == NULL))
		return;
	double now = hw_now();
	if (now - p->last < (p->tick != NULL ? 0.05 : 0.2)) /* a few updates a second */
		return;
	p->last = now;
	if (p->tick != NULL) {
		p->tick(p, done);
		return;
	}
	double rate = (double)done / (now - p->start + 1e-9);
	int mb = p->unit != NULL && p->unit[0] == 'M';
	if (mb)
		fprintf(stderr, "\r\033[K%s: %3.0f%%  %.0f MB/s", p->phase,
			p->total ? 100.0 * (double)done / (double)p->total : 0.0, rate / 1e6);
	else
		fprintf(stderr, "\r\033[K%s: %3.0f%%  %.2fM %s/s", p->phase,
			p->total ? 100.0 * (double)done / (double)p->total : 0.0, rate / 1e6,
			p->unit ? p->unit : "items");
	fflush(stderr);
}

void progress_end(struct progress *p)
{
	if (p == NULL || p->phase == NULL)
		return;
	double secs = hw_now() - p->start;
	if (p->ndone < (int)(sizeof p->done / sizeof p->done[0])) {
		p->done[p->ndone].name = p->phase;
		p->done[p->ndone].secs = secs;
		p->done[p->ndone].units = p->total;
		p->ndone++;
	}
	if (p->enabled) {
		fprintf(stderr, "\r\033[K");
		fflush(stderr);
	}
	p->phase = NULL;
}

void progress_cb(void *arg, uint64_t done, uint64_t total)
{
	struct progress *p = arg;

	if (p == NULL)
		return;
	p->total = total;
	progress_update(p, done);
}
