/* bounds.h — what a snapshot streamed from a process keeps to, for
 * every runtime alike: the room on the file system, the quiet and the
 * whole time (HEAPWALK_SNAPSHOT_IDLE, HEAPWALK_SNAPSHOT_WALL), and the
 * one line that names the bound passed. */
#ifndef HW_BOUNDS_H
#define HW_BOUNDS_H

#include <sys/types.h>

#include "stream.h"
#include "util.h"

#define BOUNDS_IDLE_S 60            /* no byte this long: the runtime is stuck, or the peer is not one */
#define BOUNDS_WALL_S 1800          /* the whole stream */
#define BOUNDS_ROOM_MIN (1u << 20)  /* less room on the file system: not begun */

/* The bounds of a copy into fd (the file to be named file): the room
 * its file system has but 1/20 of it, the quiet and the whole time the
 * environment says (else the defaults above). 0, or -1 with err. */
int bounds_get(int fd, const char *file, struct stream_bounds *b, struct sbuf *err);

/* Why the copy from process pid ended early (e, the copier's line why):
 * "PID N: WHY (WHAT SETS THE BOUND); nothing written" into err. */
void bounds_failed(pid_t pid, enum stream_end e, const struct sbuf *why, struct sbuf *err);

#endif
