/* stream.c — a peer's byte stream copied into a file, within bounds
 * (stream.h). The peer is another process, and may be hostile: a flood
 * must not fill the disk, a trickle or a silence must not hold the
 * caller, so the bounds are checked on every turn, whatever comes. */
#include "stream.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define TURN_MS 100 /* the tick's period, and how often the bounds are looked at in a silence */

/* A bound passed, said in err; or STREAM_DONE. */
static enum stream_end bounds_passed(const char *name, const struct stream_bounds *b, uint64_t bytes, double quiet,
				     double elapsed, struct sbuf *err)
{
	if (elapsed > b->wall_s) {
		sbuf_printf(err, "%s: not done after %g s, at byte %llu", name, b->wall_s, (unsigned long long)bytes);
		return STREAM_LATE;
	}
	if (quiet > b->idle_s) {
		sbuf_printf(err, "%s: no byte for %g s after byte %llu", name, b->idle_s, (unsigned long long)bytes);
		return STREAM_QUIET;
	}
	return STREAM_DONE;
}

/* What has come is written in pieces that end on a multiple of 2 MiB of
 * the file (it starts empty): the page cache keeps each piece in one huge
 * page where the kernel can, and a reader that maps the file later
 * (heapwalk opening the snapshot) maps it 512 pages at once. Written in
 * 64 kB pieces, a 300 MB trace cost its open 0.1 s more CPU on a virtual
 * machine (make bench). */
#define PIECE ((size_t)2 << 20)

struct pending {
	uint8_t *buf; /* PIECE bytes */
	size_t n;     /* ... held, not yet in the file */
	double since; /* when the first of them came */
};

/* What is held, to out: *bytes are those in the file. */
static enum stream_end flush(int out, const char *name, struct pending *p, uint64_t *bytes, struct sbuf *err)
{
	if (p->n == 0)
		return STREAM_DONE;
	int we = write_full(out, p->buf, p->n);
	if (we != 0) {
		sbuf_printf(err, "%s: cannot write: %s", name, strerror(we));
		p->n = 0;
		return STREAM_FAILED;
	}
	*bytes += p->n;
	p->n = 0;
	return STREAM_DONE;
}

static enum stream_end copy(int in, int out, const char *name, const struct stream_bounds *b, stream_tick_fn tick,
			    void *arg, uint64_t *bytes, struct pending *p, struct sbuf *err)
{
	double t0 = hw_now(), last = t0, ticked = t0;
	enum stream_end e;

	for (;;) {
		double now = hw_now();
		if ((e = bounds_passed(name, b, *bytes + p->n, now - last, now - t0, err)) != STREAM_DONE)
			return e;
		/* the tick on time even when bytes never stop coming; the file
		 * as the tick sees it at most a turn behind the stream (a
		 * caller looks into it for the dump's end) */
		if (now - ticked >= TURN_MS / 1000.0) {
			ticked = now;
			if (p->n > 0 && now - p->since >= TURN_MS / 1000.0 &&
			    (e = flush(out, name, p, bytes, err)) != STREAM_DONE)
				return e;
			if (tick(arg, *bytes, now - last, now - t0))
				return STREAM_DONE;
		}
		struct pollfd pf = { in, POLLIN, 0 };
		if (poll(&pf, 1, TURN_MS) <= 0) { /* a quiet turn: all that came is in the file */
			if ((e = flush(out, name, p, bytes, err)) != STREAM_DONE)
				return e;
			continue;
		}
		/* up to the next multiple of PIECE of the file */
		size_t room = PIECE - (size_t)((*bytes + p->n) % PIECE);
		ssize_t n = read(in, p->buf + p->n, room < 65536 ? room : 65536);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			sbuf_printf(err, "%s: the stream broke at byte %llu: %s", name,
				    (unsigned long long)(*bytes + p->n), strerror(errno));
			return STREAM_FAILED;
		}
		if (n == 0)
			return STREAM_DONE;
		if ((uint64_t)n > b->max_bytes - (*bytes + p->n)) { /* (never past max: no overflow) */
			sbuf_printf(err, "%s: the stream went past %llu bytes, its bound", name,
				    (unsigned long long)b->max_bytes);
			return STREAM_FULL; /* the bytes that passed it dropped */
		}
		if (p->n == 0)
			p->since = hw_now();
		p->n += (size_t)n;
		if ((*bytes + p->n) % PIECE == 0 && (e = flush(out, name, p, bytes, err)) != STREAM_DONE)
			return e;
		last = hw_now();
	}
}

enum stream_end stream_copy(int in, int out, const char *name, const struct stream_bounds *b, stream_tick_fn tick,
			    void *arg, uint64_t *bytes, struct sbuf *err)
{
	struct pending p = { xmalloc(PIECE), 0, 0 };

	*bytes = 0;
	enum stream_end e = copy(in, out, name, b, tick, arg, bytes, &p, err);
	/* however it ended, what came before is in the file (the first
	 * failure the one told) */
	struct sbuf later;
	sbuf_init(&later);
	enum stream_end f = flush(out, name, &p, bytes, e == STREAM_DONE ? err : &later);
	sbuf_free(&later);
	free(p.buf);
	return e == STREAM_DONE ? f : e;
}

uint64_t stream_room(int fd)
{
	struct statvfs vs;

	if (fstatvfs(fd, &vs) < 0)
		return 0;
	/* in 64 bits: a file system's blocks times their size */
	uint64_t avail = (uint64_t)vs.f_bavail * vs.f_frsize, keep = (uint64_t)vs.f_blocks * vs.f_frsize / 20;
	return avail > keep ? avail - keep : 0;
}
