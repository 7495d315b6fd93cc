/* stream.h — a peer's byte stream copied into a file within bounds of
 * size, quiet and time: the peer is another process, which may flood,
 * trickle or fall silent; the caller looks at what has come on a tick. */
#ifndef HW_STREAM_H
#define HW_STREAM_H

#include <stdint.h>

#include "util.h"

/* Called every 0.1 s or so, bytes coming or not, with the bytes copied
 * so far, how long the stream has been quiet and since the copy began
 * (in seconds); returns 1 to end the copy there, 0 to go on. */
typedef int (*stream_tick_fn)(void *arg, uint64_t bytes, double quiet_s, double elapsed_s);

/* What a copy must keep to. */
struct stream_bounds {
	uint64_t max_bytes; /* more: the copy ends, an error (what the file may take) */
	double idle_s;      /* no byte for this long: the copy ends, an error */
	double wall_s;      /* not done this long after the start: the copy ends, an error */
};

enum stream_end { STREAM_DONE, STREAM_FAILED, STREAM_FULL, STREAM_QUIET, STREAM_LATE };

/* Copy what comes from in to out (named `name` in messages) until in
 * ends or tick ends the copy: STREAM_DONE with the bytes in *bytes, or
 * how it failed (a read or write error, a bound passed) with one line in
 * err. */
enum stream_end stream_copy(int in, int out, const char *name, const struct stream_bounds *b, stream_tick_fn tick,
			    void *arg, uint64_t *bytes, struct sbuf *err);

/* The bytes the file system of fd can take while 1/20 of it stays free:
 * 0 when it is fuller than that. */
uint64_t stream_room(int fd);

#endif
