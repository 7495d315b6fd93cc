/* hprofgen_out.c — the buffered HPROF stream, see hprofgen_out.h. */
#include "hprofgen_out.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define TAG_SEGMENT 0x1c
#define TAG_SEGMENT_END 0x2c

static const char *unlink_paths[4];

void die_unlink(const char *path)
{
	for (size_t i = 0; i < sizeof unlink_paths / sizeof unlink_paths[0]; i++)
		if (unlink_paths[i] == NULL) {
			unlink_paths[i] = path;
			return;
		}
}

void die(const char *fmt, ...)
{
	va_list ap;

	fputs("hprofgen: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	/* half a dump is worse than none: a benchmark would time it */
	for (size_t i = 0; i < sizeof unlink_paths / sizeof unlink_paths[0]; i++)
		if (unlink_paths[i] != NULL)
			unlink(unlink_paths[i]);
	exit(2);
}

/* The writer thread: write whatever is handed over, one buffer at a time. */
static void *writer(void *arg)
{
	struct out *o = arg;
	uint64_t at = 0;

	pthread_mutex_lock(&o->mu);
	for (;;) {
		while (o->pending == 0 && !o->quit)
			pthread_cond_wait(&o->cv, &o->mu);
		if (o->pending == 0)
			break;
		const unsigned char *p = o->spare;
		size_t n = o->pending, off = 0;
		pthread_mutex_unlock(&o->mu);
		int err = 0;
		while (off < n && err == 0) {
			ssize_t w = write(o->fd, p + off, n - off);
			if (w < 0 && errno != EINTR)
				err = errno;
			else if (w > 0)
				off += (size_t)w;
		}
		pthread_mutex_lock(&o->mu);
		if (err && !o->err) {
			o->err = err;
			o->err_off = at + off;
		}
		at += n;
		o->pending = 0;
		pthread_cond_broadcast(&o->cv);
	}
	pthread_mutex_unlock(&o->mu);
	return NULL;
}

/* Wait for the writer to be idle; die on its error. Called locked. */
static void idle_locked(struct out *o)
{
	while (o->pending)
		pthread_cond_wait(&o->cv, &o->mu);
	if (o->err)
		die("%s: offset %llu: %s", o->path, (unsigned long long)o->err_off, strerror(o->err));
}

/* Hand the full buffer to the writer and go on with the other one. */
static void flush(struct out *o)
{
	pthread_mutex_lock(&o->mu);
	idle_locked(o);
	unsigned char *full = o->buf;
	o->buf = o->spare;
	o->spare = full;
	o->pending = o->len;
	pthread_cond_broadcast(&o->cv);
	pthread_mutex_unlock(&o->mu);
	o->flushed += o->len;
	o->len = 0;
}

/* Room for n more bytes. Never while a segment waits for its length. */
static void room(struct out *o, size_t n)
{
	if (o->len + n > OUT_BUF_SIZE) {
		if (o->seg_state == SEG_OPEN)
			abort(); /* a bug: the length field would leave the buffer */
		flush(o);
	}
}

static void seg_end(struct out *o)
{
	if (o->seg_state == SEG_OPEN) {
		uint32_t len = htobe32((uint32_t)(o->len - o->seg - 9));
		memcpy(o->buf + o->seg + 5, &len, 4);
	}
	o->seg_state = SEG_NONE;
	/* flush only between segments, and early enough that a whole
	 * segment always fits behind what is left */
	if (o->len > OUT_BUF_SIZE - SEG_MAX - 64)
		flush(o);
}

/* need: bytes of the segment that must then fit without a flush */
static void seg_header(struct out *o, uint32_t len, size_t need)
{
	room(o, 9 + need);
	o->seg = o->len;
	put1(o, TAG_SEGMENT);
	put4(o, 0);
	put4(o, len);
}

int out_sub(struct out *o, uint64_t size)
{
	if (o->seg_state == SEG_ONE ||
	    (o->seg_state == SEG_OPEN && o->len - o->seg - 9 + size > SEG_MAX))
		seg_end(o);
	if (size > SEG_MAX) { /* alone in a segment, as HotSpot does */
		if (o->seg_state != SEG_NONE)
			seg_end(o);
		if (size > UINT32_MAX)
			die("a record of %llu bytes does not fit in a segment", (unsigned long long)size);
		seg_header(o, (uint32_t)size, 64);
		o->seg_state = SEG_ONE;
		return 1;
	}
	if (o->seg_state == SEG_NONE) {
		seg_header(o, 0, SEG_MAX);
		o->seg_state = SEG_OPEN;
	}
	return 0;
}

void out_fill(struct out *o, int c, uint64_t n)
{
	while (n > 0) {
		room(o, 1);
		size_t k = OUT_BUF_SIZE - o->len;
		if (k > n)
			k = (size_t)n;
		memset(o->buf + o->len, c, k);
		o->len += k;
		n -= k;
	}
}

void out_bytes(struct out *o, const void *p, size_t n)
{
	const unsigned char *s = p;

	while (n > 0) {
		room(o, 1);
		size_t k = OUT_BUF_SIZE - o->len;
		if (k > n)
			k = n;
		memcpy(o->buf + o->len, s, k);
		o->len += k;
		s += k;
		n -= k;
	}
}

void out_record(struct out *o, uint8_t tag, uint32_t len)
{
	if (o->seg_state != SEG_NONE)
		seg_end(o);
	room(o, 9 + (size_t)len);
	put1(o, tag);
	put4(o, 0); /* microseconds since the header's time: HotSpot writes 0 */
	put4(o, len);
}

void out_open(struct out *o, const char *path, uint64_t time_ms)
{
	static const char magic[] = "JAVA PROFILE 1.0.2";

	memset(o, 0, sizeof *o);
	o->path = path;
	o->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (o->fd < 0)
		die("%s: %s", path, strerror(errno));
	die_unlink(path);
	o->buf = malloc(OUT_BUF_SIZE);
	o->spare = malloc(OUT_BUF_SIZE);
	if (o->buf == NULL || o->spare == NULL)
		die("out of memory");
	pthread_mutex_init(&o->mu, NULL);
	pthread_cond_init(&o->cv, NULL);
	if ((errno = pthread_create(&o->writer, NULL, writer, o)) != 0)
		die("cannot start the writer thread: %s", strerror(errno));
	putn(o, magic, sizeof magic); /* the NUL too */
	put4(o, 8);
	put8(o, time_ms);
}

void out_close(struct out *o, int sync)
{
	out_record(o, TAG_SEGMENT_END, 0);
	flush(o);
	pthread_mutex_lock(&o->mu);
	idle_locked(o);
	o->quit = 1;
	pthread_cond_broadcast(&o->cv);
	pthread_mutex_unlock(&o->mu);
	pthread_join(o->writer, NULL);
	pthread_mutex_destroy(&o->mu);
	pthread_cond_destroy(&o->cv);
	if (sync && fsync(o->fd) < 0)
		die("%s: fsync: %s", o->path, strerror(errno));
	if (close(o->fd) < 0)
		die("%s: %s", o->path, strerror(errno));
	free(o->buf);
	free(o->spare);
	o->buf = o->spare = NULL;
}
