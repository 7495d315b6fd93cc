/* bounds.c — a snapshot's bounds, and the line naming one passed
 * (bounds.h). */
#include "cli/bounds.h"

#include <stdlib.h>
#include <string.h>

/* A bound in seconds: environment variable var, else def. 0, or -1
 * with err. */
static int seconds_env(const char *var, double def, double *out, struct sbuf *err)
{
	const char *v = getenv(var);
	char *end;

	*out = def;
	if (v == NULL || *v == '\0')
		return 0;
	*out = strtod(v, &end);
	if (*end == '\0' && *out > 0 && *out <= 1e9)
		return 0;
	sbuf_printf(err, "%s=", var);
	esc_append(err, (const uint8_t *)v, strlen(v), 0);
	sbuf_adds(err, ": not a number of seconds above 0");
	return -1;
}

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
