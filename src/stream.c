/* stream.c — a peer's byte stream copied into a file (stream.h). */
#include "stream.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#define PAUSE_MS 100

int stream_copy(int in, int out, const char *name, stream_tick_fn tick, void *arg, uint64_t *bytes,
		struct sbuf *err)
{
	uint8_t buf[1 << 16];
	double t0 = hw_now(), last = t0;

	*bytes = 0;
	for (;;) {
		struct pollfd pf = { in, POLLIN, 0 };
		int pr = poll(&pf, 1, PAUSE_MS);
		double now = hw_now();
		if (pr > 0) {
			ssize_t n = read(in, buf, sizeof buf);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return 0;
			int we = write_full(out, buf, (size_t)n);
			if (we != 0) {
				sbuf_printf(err, "%s: cannot write: %s", name, strerror(we));
				return -1;
			}
			*bytes += (uint64_t)n;
			last = now;
			continue;
		}
		if (tick(arg, *bytes, now - last, now - t0))
			return 0;
	}
}
