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

#define PIECE ((size_t)2 << 20) /* struct pieces (stream.h) */

void pieces_open(struct pieces *p, int fd)
{
	p->fd = fd;
	p->buf = NULL;
	p->n = 0;
	p->written = 0;
	p->since = 0;
}

uint8_t *pieces_room(struct pieces *p, size_t *room)
{
	if (p->buf == NULL)
		p->buf = xmalloc(PIECE);
	*room = PIECE - (size_t)((p->written + p->n) % PIECE);
	return p->buf + p->n;
}

int pieces_added(struct pieces *p, size_t n)
{
	if (n > 0 && p->n == 0)
		p->since = hw_now();
	p->n += n;
	return (p->written + p->n) % PIECE == 0 ? pieces_flush(p) : 0;
}

int pieces_add(struct pieces *p, const void *b, size_t n)
{
	const uint8_t *q = b;

	while (n > 0) {
		size_t room;
		uint8_t *to = pieces_room(p, &room);
		size_t k = n < room ? n : room;
		memcpy(to, q, k);
		q += k;
		n -= k;
		int e = pieces_added(p, k);
		if (e != 0)
			return e;
	}
	return 0;
}

int pieces_flush(struct pieces *p)
{
	if (p->n == 0)
		return 0;
	int e = write_full(p->fd, p->buf, p->n);
	if (e == 0)
		p->written += p->n;
	p->n = 0; /* (a failed write's bytes are lost: the caller gives the file up) */
	return e;
}

void pieces_close(struct pieces *p)
{
	free(p->buf);
	p->buf = NULL;
	p->n = 0;
}

/* What is held, to the file; err says it failed. */
static enum stream_end flush(const char *name, struct pieces *p, struct sbuf *err)
{
	int we = pieces_flush(p);

	if (we != 0) {
		sbuf_printf(err, "%s: cannot write: %s", name, strerror(we));
		return STREAM_FAILED;
	}
	return STREAM_DONE;
}

static enum stream_end copy(int in, const char *name, const struct stream_bounds *b, stream_tick_fn tick, void *arg,
			    struct pieces *p, struct sbuf *err)
{
	double t0 = hw_now(), last = t0, ticked = t0;
	enum stream_end e;

	for (;;) {
		double now = hw_now();
		if ((e = bounds_passed(name, b, p->written + p->n, now - last, now - t0, err)) != STREAM_DONE)
			return e;
		/* the tick on time even when bytes never stop coming; the file
		 * as the tick sees it at most a turn behind the stream (a
		 * caller looks into it for the dump's end) */
		if (now - ticked >= TURN_MS / 1000.0) {
			ticked = now;
			if (p->n > 0 && now - p->since >= TURN_MS / 1000.0 && (e = flush(name, p, err)) != STREAM_DONE)
				return e;
			if (tick(arg, p->written, now - last, now - t0))
				return STREAM_DONE;
		}
		struct pollfd pf = { in, POLLIN, 0 };
		if (poll(&pf, 1, TURN_MS) <= 0) { /* a quiet turn: all that came is in the file */
			if ((e = flush(name, p, err)) != STREAM_DONE)
				return e;
			continue;
		}
		size_t room;
		uint8_t *to = pieces_room(p, &room);
		ssize_t n = read(in, to, room < 65536 ? room : 65536);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			sbuf_printf(err, "%s: the stream broke at byte %llu: %s", name,
				    (unsigned long long)(p->written + p->n), strerror(errno));
			return STREAM_FAILED;
		}
		if (n == 0)
			return STREAM_DONE;
		if ((uint64_t)n > b->max_bytes - (p->written + p->n)) { /* (never past max: no overflow) */
			sbuf_printf(err, "%s: the stream went past %llu bytes, its bound", name,
				    (unsigned long long)b->max_bytes);
			return STREAM_FULL; /* the bytes that passed it dropped */
		}
		int we = pieces_added(p, (size_t)n);
		if (we != 0) {
			sbuf_printf(err, "%s: cannot write: %s", name, strerror(we));
			return STREAM_FAILED;
		}
		last = hw_now();
	}
}

enum stream_end stream_copy(int in, int out, const char *name, const struct stream_bounds *b, stream_tick_fn tick,
			    void *arg, uint64_t *bytes, struct sbuf *err)
{
	struct pieces p;

	pieces_open(&p, out);
	enum stream_end e = copy(in, name, b, tick, arg, &p, err);
	/* however it ended, what came before is in the file (the first
	 * failure the one told) */
	struct sbuf later;
	sbuf_init(&later);
	enum stream_end f = flush(name, &p, e == STREAM_DONE ? err : &later);
	sbuf_free(&later);
	pieces_close(&p);
	*bytes = p.written;
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
