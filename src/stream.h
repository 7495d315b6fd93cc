/* stream.h — a peer's byte stream copied into a file within bounds of
 * size, quiet and time: the peer is another process, which may flood,
 * trickle or fall silent; the caller looks at what has come on a tick. */
#ifndef HW_STREAM_H
#define HW_STREAM_H

#include <stdint.h>

#include "util.h"

/* Called every 0.1 s or so, bytes coming or not, with the bytes in the
 * file so far (at most a turn, 0.1 s, behind the stream: the copy holds
 * what comes until a piece is full, struct pieces), how long the stream
 * has been quiet and since the copy began (in seconds); returns 1 to end
 * the copy there, 0 to go on. */
typedef int (*stream_tick_fn)(void *arg, uint64_t bytes, double quiet_s, double elapsed_s);

/* What a copy must keep to. */
struct stream_bounds {
	uint64_t max_bytes; /* more: the copy ends, an error (what the file may take) */
	double idle_s;      /* no byte for this long: the copy ends, an error */
	double wall_s;      /* not done this long after the start: the copy ends, an error */
};

enum stream_end { STREAM_DONE, STREAM_FAILED, STREAM_FULL, STREAM_QUIET, STREAM_LATE };

/* Copy what comes from in to out (an empty file, named `name` in
 * messages), through struct pieces, until in ends or tick ends the copy:
 * STREAM_DONE with the bytes in *bytes, or how it failed (a read or
 * write error, a bound passed) with one line in err; either way (but
 * for a failed write) what came before the end is in the file. */
enum stream_end stream_copy(int in, int out, const char *name, const struct stream_bounds *b, stream_tick_fn tick,
			    void *arg, uint64_t *bytes, struct sbuf *err);

/* A file written in pieces that end on multiples of 2 MiB of it (it
 * starts empty): the page cache keeps each piece in one huge page where
 * the kernel can, and a reader that maps the file later (heapwalk opening
 * the snapshot) maps it 512 pages at once. Written in 64 kB pieces, a
 * 300 MB trace cost its open 0.1 s more CPU on a virtual machine, where
 * a process's first touch of each 4 kB page of a mapped file costs
 * ~1.5 us (make bench). */
struct pieces {
	int fd;
	uint8_t *buf;     /* a piece (made when first asked for) */
	size_t n;         /* ... its bytes held, not yet in the file */
	uint64_t written; /* the bytes in the file */
	double since;     /* when the first of those held came */
};

void pieces_open(struct pieces *p, int fd);
/* Where the next bytes go, and how many fit there (*room) before the
 * piece ends; pieces_added tells how many went there: the piece written
 * when it is full (0, or the write's errno). */
uint8_t *pieces_room(struct pieces *p, size_t *room);
int pieces_added(struct pieces *p, size_t n);
/* n bytes from b, through the pieces: 0, or a write's errno. */
int pieces_add(struct pieces *p, const void *b, size_t n);
/* What is held, written now: 0, or the write's errno (those bytes lost). */
int pieces_flush(struct pieces *p);
/* The buffer freed (what is held is not written: pieces_flush first). */
void pieces_close(struct pieces *p);

/* The bytes the file system of fd can take while 1/20 of it stays free:
 * 0 when it is fuller than that. */
uint64_t stream_room(int fd);

#endif
