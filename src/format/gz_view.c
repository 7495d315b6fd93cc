/* gz_view.c — an indexed multi-member gzip file's uncompressed bytes as
 * one read-only mapping, its chunks inflated when first read (gz.h).
 *
 * The mapping is reserved whole and made inaccessible; a read of a chunk
 * not made yet faults, and the SIGSEGV handler here inflates that chunk
 * from the members over it (gz_read_into, whose buffers are reserved
 * beforehand: nothing is allocated in the handler), makes it readable
 * and returns, so that the read is done again. The chunks made are kept
 * in a ring; when it is full the oldest is let go (its pages dropped and
 * made inaccessible again). Single-threaded, as the engine is. */
#include "config.h"
#include "format/gz.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define VIEWS_MAX 8

struct gz_view {
	uint8_t *base;
	uint64_t size, span; /* uncompressed bytes; bytes reserved (whole chunks) */
	struct gz_index idx;
	struct gz_reader *r;
	uint8_t *made;       /* per chunk: 1 while it is made */
	uint32_t *ring;      /* the chunks made, oldest at head */
	unsigned max, head, count;
	uint64_t nmade, bad;
	int filled;          /* every chunk a file's page (gz_view_fill) */
};

static struct gz_view *volatile views[VIEWS_MAX];
static struct sigaction saved; /* the handler before ours */
static int installed;

/* Make the chunk at addr if it lies in a view and is not made: 1, the
 * access can be done again; 0, it is no fault of ours. */
static int fix(const void *addr)
{
	const uint8_t *a = addr;

	for (int i = 0; i < VIEWS_MAX; i++) {
		struct gz_view *v = views[i];
		if (v == NULL || a < v->base || (uint64_t)(a - v->base) >= v->span)
			continue;
		uint64_t c = (uint64_t)(a - v->base) / GZ_CHUNK, from = c * GZ_CHUNK;
		if (v->made[c]) /* made, and yet a fault: not a page to make */
			return 0;
		if (v->count == v->max) { /* the oldest goes */
			uint32_t o = v->ring[v->head];
			uint8_t *q = v->base + (uint64_t)o * GZ_CHUNK;
			madvise(q, GZ_CHUNK, MADV_DONTNEED);
			mprotect(q, GZ_CHUNK, PROT_NONE);
			v->made[o] = 0;
			v->head = (v->head + 1) % v->max;
			v->count--;
		}
		uint8_t *p = v->base + from;
		uint64_t len = v->size - from < GZ_CHUNK ? v->size - from : GZ_CHUNK;
		if (mprotect(p, GZ_CHUNK, PROT_READ | PROT_WRITE) != 0)
			return 0;
		if (gz_read_into(v->r, from, len, p) != 0) {
			memset(p, 0, (size_t)len);
			v->bad++;
		}
		mprotect(p, GZ_CHUNK, PROT_READ);
		v->made[c] = 1;
		v->ring[(v->head + v->count) % v->max] = (uint32_t)c;
		v->count++;
		v->nmade++;
		return 1;
	}
	return 0;
}

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
	if (si != NULL && fix(si->si_addr))
		return;
	if ((saved.sa_flags & SA_SIGINFO) && saved.sa_sigaction != NULL) {
		saved.sa_sigaction(sig, si, ctx);
		return;
	}
	if (!(saved.sa_flags & SA_SIGINFO) && saved.sa_handler != SIG_DFL && saved.sa_handler != SIG_IGN) {
		saved.sa_handler(sig);
		return;
	}
	/* none: the default again, and the access faults again and ends it */
	sigaction(SIGSEGV, &saved, NULL);
}

struct gz_view *gz_view_new(const uint8_t *gz, uint64_t size, struct gz_index *idx, unsigned max_chunks)
{
	int slot = -1;

	for (int i = 0; i < VIEWS_MAX && slot < 0; i++)
		if (views[i] == NULL)
			slot = i;
	uint64_t chunks = (idx->raw_size + GZ_CHUNK - 1) / GZ_CHUNK;
	if (slot < 0 || idx->raw_size == 0 || chunks > UINT32_MAX || idx->raw_size > SIZE_MAX)
		return NULL;
	struct gz_view *v = xcalloc(1, sizeof *v);
	v->idx = *idx; /* taken */
	v->r = gz_reader_new(gz, size, &v->idx, 2);
	if (v->r == NULL) {
		free(v);
		return NULL;
	}
	memset(idx, 0, sizeof *idx);
	gz_reader_reserve(v->r);
	v->size = v->idx.raw_size;
	v->span = chunks * GZ_CHUNK;
	v->base = mmap(NULL, (size_t)v->span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (v->base == MAP_FAILED) {
		*idx = v->idx;
		gz_reader_free(v->r);
		free(v);
		return NULL;
	}
	v->max = max_chunks < 2 ? 2 : max_chunks; /* an access may span two */
	v->made = xcalloc((size_t)chunks, 1);
	v->ring = xcalloc(v->max, sizeof *v->ring);
	if (!installed) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_segv;
		sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGSEGV, &sa, &saved);
		map_fault_fixer(fix);
		installed = 1;
	}
	views[slot] = v;
	return v;
}

const uint8_t *gz_view_map(const struct gz_view *v) { return v->base; }
uint64_t gz_view_size(const struct gz_view *v) { return v->size; }
const struct gz_index *gz_view_index(const struct gz_view *v) { return &v->idx; }
uint64_t gz_view_made(const struct gz_view *v) { return v->nmade; }
uint64_t gz_view_bad(const struct gz_view *v) { return v->bad; }

int gz_view_fill(struct gz_view *v, int fd)
{
	struct stat st;
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t page = pg > 0 ? (uint64_t)pg : 4096, len = (v->size + page - 1) / page * page;

	if (v->filled)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size != v->size)
		return -1;
	/* in place of the chunks made and unmade alike: the addresses the
	 * view has given stay good, and what lies past the last byte reads
	 * as zeros, as a made chunk's tail did */
	if (mmap(v->base, (size_t)len, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
		/* a failed MAP_FIXED may have let the range go: reserved again,
		 * nothing made */
		mmap(v->base, (size_t)v->span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
		memset(v->made, 0, (size_t)(v->span / GZ_CHUNK));
		v->head = v->count = 0;
		return -1;
	}
	if (len < v->span)
		mmap(v->base + len, (size_t)(v->span - len), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	memset(v->made, 1, (size_t)(v->span / GZ_CHUNK)); /* no fault is the view's any more */
	v->head = v->count = 0;
	v->filled = 1;
	return 0;
}

int gz_view_filled(const struct gz_view *v) { return v->filled; }

void gz_view_keep(struct gz_view *v, unsigned max_chunks)
{
	if (max_chunks <= v->max)
		return;
	uint32_t *ring = xcalloc(max_chunks, sizeof *ring);
	for (unsigned i = 0; i < v->count; i++) /* oldest first, from 0 */
		ring[i] = v->ring[(v->head + i) % v->max];
	free(v->ring);
	v->ring = ring;
	v->head = 0;
	v->max = max_chunks;
}

void gz_view_free(struct gz_view *v)
{
	if (v == NULL)
		return;
	for (int i = 0; i < VIEWS_MAX; i++)
		if (views[i] == v)
			views[i] = NULL;
	munmap(v->base, (size_t)v->span);
	gz_reader_free(v->r);
	gz_index_free(&v->idx);
	free(v->made);
	free(v->ring);
	free(v);
}
