/* stream.c — a peer's byte stream copied into a file, within bounds
 * (stream.h). The peer is another process, and may be hostile: a flood
 * must not fill the disk, a trickle or a silence must not hold the
 * caller, so the bounds are checked on every turn, whatever comes. */
#include "stream.h"

#include <errno.h>
#include <poll.h>
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

/* What came, n bytes, to out unless it passes the bound on bytes. */
static enum stream_end take(int out, const char *name, const uint8_t *buf, size_t n, uint64_t max, uint64_t *bytes,
			    struct sbuf *err)
{
	if (n > max - *bytes) { /* *bytes <= max always: no overflow */
		sbuf_printf(err, "%s: the stream went past %llu bytes, its bound", name, (unsigned long long)max);
		return STREAM_FULL;
	}
	int we = write_full(out, buf, n);
	if (we != 0) {
		sbuf_printf(err, "%s: cannot write: %s", name, strerror(we));
		return STREAM_FAILED;
	}
	*bytes += n;
	return STREAM_DONE;
}

enum stream_end stream_copy(int in, int out, const char *name, const struct stream_bounds *b, stream_tick_fn tick,
			    void *arg, uint64_t *bytes, struct sbuf *err)
{
	uint8_t buf[1 << 16];
	double t0 = hw_now(), last = t0, ticked = t0;
	enum stream_end e;

	*bytes = 0;
	for (;;) {
		double now = hw_now();
		if ((e = bounds_passed(name, b, *bytes, now - last, now - t0, err)) != STREAM_DONE)
			return e;
		/* the tick on time even when bytes never stop coming */
		if (now - ticked >= TURN_MS / 1000.0) {
			ticked = now;
			if (tick(arg, *bytes, now - last, now - t0))
				return STREAM_DONE;
		}
		struct pollfd pf = { in, POLLIN, 0 };
		if (poll(&pf, 1, TURN_MS) <= 0)
			continue;
		ssize_t n = read(in, buf, sizeof buf);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			sbuf_printf(err, "%s: the stream broke at byte %llu: %s", name, (unsigned long long)*bytes,
				    strerror(errno));
			return STREAM_FAILED;
		}
		if (n == 0)
			return STREAM_DONE;
		if ((e = take(out, name, buf, (size_t)n, b->max_bytes, bytes, err)) != STREAM_DONE)
			return e;
		last = hw_now();
	}
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
