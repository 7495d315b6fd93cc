/* hprofgen_out.h — the HPROF byte stream of hprofgen: big-endian values
 * into a large buffer, and heap dump segments whose length is patched in
 * the buffer when they end. Two buffers: a thread write(2)s the full one
 * while the other fills, since the kernel's copy into the page cache
 * costs about as much as making the bytes.
 *
 * A sub-record is announced with its whole size (out_sub); after that,
 * that many bytes may be put without checks (the unchecked put_*), since
 * a segment is never longer than SEG_MAX and is closed and flushed before
 * the buffer could overflow. A sub-record larger than SEG_MAX (a big
 * primitive array) gets a segment of its own whose length is known up
 * front; its contents then go through out_fill/out_bytes, which flush as
 * they need to. */
#ifndef HPROFGEN_OUT_H
#define HPROFGEN_OUT_H

#include <endian.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define OUT_BUF_SIZE (8u << 20)
/* The longest segment body: OpenJDK 17's jcmd writes segments of about
 * 1 MiB here (HotSpot's limit is the u4 length). */
#define SEG_MAX (1u << 20)

struct out {
	int fd;
	const char *path;    /* borrowed, for messages */
	unsigned char *buf;  /* OUT_BUF_SIZE bytes being filled, owned */
	size_t len;          /* bytes in buf */
	size_t seg;          /* offset in buf of the open segment's header */
	int seg_state;       /* SEG_NONE, SEG_OPEN (length patched at the end), SEG_ONE */
	uint64_t flushed;    /* bytes handed to the writer */
	/* the writer thread; all below under mu */
	pthread_t writer;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned char *spare;   /* the other buffer: being written while pending */
	size_t pending;         /* bytes of spare still to write, 0: idle */
	int err;                /* errno of a failed write, 0 */
	uint64_t err_off;       /* where it failed */
	int quit;
};

enum { SEG_NONE, SEG_OPEN, SEG_ONE };

/* Open path for writing (truncated) and write the header: "JAVA PROFILE
 * 1.0.2", identifiers of 8 bytes, the time in ms. Exits on error. */
void out_open(struct out *o, const char *path, uint64_t time_ms);
/* End the last segment, write HEAP_DUMP_END, flush, optionally fsync,
 * close, free the buffer. */
void out_close(struct out *o, int sync);
/* A top-level record's header; len bytes of body follow (unchecked,
 * len well under the buffer size). */
void out_record(struct out *o, uint8_t tag, uint32_t len);
/* A heap sub-record of size bytes (its tag included) follows. Returns 1
 * when it is too long for the buffer's guarantee: then put at most 64
 * bytes unchecked and the rest through out_fill/out_bytes. */
int out_sub(struct out *o, uint64_t size);
/* n bytes of value c, or the n bytes at p, flushing as needed. */
void out_fill(struct out *o, int c, uint64_t n);
void out_bytes(struct out *o, const void *p, size_t n);
/* Print "hprofgen: " and the message, remove the outputs registered
 * with die_unlink, exit 2. */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void die_unlink(const char *path);

static inline void put1(struct out *o, unsigned v)
{
	o->buf[o->len++] = (unsigned char)v;
}

static inline void put2(struct out *o, uint16_t v)
{
	v = htobe16(v);
	memcpy(o->buf + o->len, &v, 2);
	o->len += 2;
}

static inline void put4(struct out *o, uint32_t v)
{
	v = htobe32(v);
	memcpy(o->buf + o->len, &v, 4);
	o->len += 4;
}

static inline void put8(struct out *o, uint64_t v)
{
	v = htobe64(v);
	memcpy(o->buf + o->len, &v, 8);
	o->len += 8;
}

static inline void putn(struct out *o, const void *p, size_t n)
{
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

#endif
