/* bounds.c — a snapshot's bounds, and the line naming one passed
 * (bounds.h). */
#include "cli/bounds.h"

#include <stdlib.h>
#include <string.h>

int bounds_get(int fd, const char *file, struct stream_bounds *b, struct sbuf *err)
{
	if (seconds_env("HEAPWALK_SNAPSHOT_IDLE", BOUNDS_IDLE_S, &b->idle_s, err) < 0 ||
	    seconds_env("HEAPWALK_SNAPSHOT_WALL", BOUNDS_WALL_S, &b->wall_s, err) < 0)
		return -1;
	b->max_bytes = stream_room(fd);
	if (b->max_bytes < BOUNDS_ROOM_MIN) {
		sbuf_printf(err, "%s: its file system is full (less than 1 MiB free beside the 1/20 of it "
			    "heapwalk leaves free)", file);
		return -1;
	}
	return 0;
}

void bounds_failed(pid_t pid, enum stream_end e, const struct sbuf *why, struct sbuf *err)
{
	static const char *const hint[] = {
		[STREAM_FULL] = " (all the room its file system has, but 1/20 of it)",
		[STREAM_QUIET] = " (HEAPWALK_SNAPSHOT_IDLE)",
		[STREAM_LATE] = " (HEAPWALK_SNAPSHOT_WALL)",
	};

	sbuf_printf(err, "PID %ld: %s%s; nothing written", (long)pid, why->buf ? why->buf : "",
		    hint[e] ? hint[e] : "");
}
