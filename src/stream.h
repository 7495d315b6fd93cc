/* stream.h — a peer's byte stream copied into a file: the peer is
 * another process, and the caller looks at what has come whenever the
 * stream pauses. */
#ifndef HW_STREAM_H
#define HW_STREAM_H

#include <stdint.h>

#include "util.h"

/* Called when the stream has paused (no byte for 0.1 s) with the bytes
 * copied so far, how long it has been quiet and since the copy began (in
 * seconds); returns 1 to end the copy there, 0 to go on. */
typedef int (*stream_tick_fn)(void *arg, uint64_t bytes, double quiet_s, double elapsed_s);

/* Copy what comes from in to out (named `name` in messages) until in
 * ends or tick ends the copy: 0 with the bytes in *bytes, or -1 with one
 * line in err. */
int stream_copy(int in, int out, const char *name, stream_tick_fn tick, void *arg, uint64_t *bytes,
		struct sbuf *err);

#endif
