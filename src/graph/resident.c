/* resident.c — which parts of a heap are in memory: loading them from
 * the file behind the heap (heap_load, heap_need), the memory they may
 * take, the dump's mapping and its pages. Below the analyses, which load
 * what they read through here; a cache found corrupt is rebuilt through
 * h->rebuild, set by the driver above them (graph/open.c). */
#include "graph/resident.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "graph/cache.h"
#include "graph/reader.h"

uint64_t heap_memory_budget(void)
{
	const char *env = getenv("HEAPWALK_MEMORY_MB");

	if (env != NULL && *env != '\0')
		return (uint64_t)strtoull(env, NULL, 10) << 20;
	return hw_mem_available();
}

int heap_tight(uint64_t bytes)
{
	uint64_t budget = heap_memory_budget();

	return budget != 0 && bytes > budget / 2;
}

/* This process's anonymous resident memory, in bytes (0: unknown). */
static uint64_t anon_bytes(void)
{
	return proc_kb("/proc/self/status", "RssAnon");
}

int heap_room_for(const struct heap *h, uint64_t nodes, uint64_t extra, struct sbuf *err)
{
	const char *env = getenv("HEAPWALK_MEMORY_MB");
	uint64_t budget = heap_memory_budget(), need = nodes * HEAP_BUILD_BYTES + extra;

	/* the system's available memory leaves out what this process holds
	 * already (the scan's arrays), which is its own; a budget given is
	 * all of it (under a sanitizer, the process's own grows by its
	 * shadow and quarantine, and a budget of 1 MB was let through) */
	if (budget != 0 && (env == NULL || *env == '\0'))
		budget += anon_bytes();
	if (budget == 0 || need <= budget)
		return 0;
	char *ep = esc_str(h->path), a[32], b[32], x[32];
	fmt_bytes(a, sizeof a, need);
	fmt_bytes(b, sizeof b, budget);
	fmt_bytes(x, sizeof x, extra);
	/* the figures add up as said: nodes less the virtual root are the
	 * objects info counts */
	sbuf_printf(err, "%s: %llu objects need about %s of memory to analyse (%d bytes an object%s%s%s); "
		    "%s is available: not opened", ep, (unsigned long long)(nodes > 0 ? nodes - 1 : 0), a,
		    HEAP_BUILD_BYTES, extra > 0 ? ", and " : "", extra > 0 ? x : "",
		    extra > 0 ? " to put them in order" : "", b);
	free(ep);
	return -1;
}

/* The bytes the reader's own arrays that wait on disk take when read
 * (format_ops' data_waiting), which a view's heap_need reads too; none
 * while the heap is built (reader_data reads none then). */
static uint64_t reader_waiting(struct heap *h)
{
	if (h->fmt == NULL || h->fmt->data_waiting == NULL || h->busy > 0)
		return 0;
	return h->fmt->data_waiting(h);
}

/* Room for the parts about to be loaded, and with `reader` (heap_need's
 * reader_data) the reader's arrays that wait: 0, or -1 with the refusal
 * in err; never refused while the heap is being built or analysed
 * (h->busy): what it loads again was in memory a moment before, and a
 * refusal would leave the work half done. */
static int room_to_load(struct heap *h, unsigned parts, int reader, struct sbuf *err)
{
	uint64_t bytes = h->backing != NULL && !cache_has(h, parts) ? cache_part_bytes(h, parts) : 0, budget;
	uint64_t own = reader ? reader_waiting(h) : 0;

	bytes += own;
	if (h->busy > 0 || bytes == 0 || (budget = heap_memory_budget()) == 0 || bytes <= budget)
		return 0;
	char *ep = esc_str(h->path), a[32], b[32];
	fmt_bytes(a, sizeof a, bytes);
	fmt_bytes(b, sizeof b, budget);
	sbuf_printf(err, "%s: loading the %s%s needs %s of memory; %s is available", ep,
		    (parts & ~(HP_NODES | HP_IDS)) == 0 ? "objects" : "object graph",
		    own > 0 ? " and the format's own arrays" : "", a, b);
	free(ep);
	return -1;
}

/* room_to_load, or the refusal: the process ends. */
static void refuse_unless_room(struct heap *h, unsigned parts, int reader)
{
	struct sbuf no;

	sbuf_init(&no);
	if (room_to_load(h, parts, reader, &no) < 0) {
		char line[512]; /* hw_refuse does not return: nothing left to free */
		snprintf(line, sizeof line, "%s", no.buf);
		sbuf_free(&no);
		hw_refuse("%s", line);
	}
	sbuf_free(&no);
}

/* heap_load; with may_cancel, 1 when p was cancelled (the parts loaded
 * till then kept). */
static int load(struct heap *h, unsigned parts, struct progress *p, int may_cancel)
{
	const char *why;

	if (h->backing == NULL)
		return 0;
	cache_fill_empty(h, parts);
	if (cache_has(h, parts))
		return 0;
	refuse_unless_room(h, parts, 0);
	/* a phase of its own, in bytes (a cached open's first view that
	 * needs the graph reads hundreds of MB): inside a phase, part of it */
	int own = p != NULL && p->phase == NULL;
	if (own)
		progress_begin(p, "loading", cache_part_bytes(h, parts), "MB");
	int fresh_nodes = (parts & (HP_OFF | HP_KIND)) && !cache_has(h, HP_OFF | HP_KIND) && cache_from_disk(h);
	int rc = cache_load_rest(h, parts, own ? p : NULL, may_cancel && own, &why);
	if (own)
		progress_end(p);
	if (rc != -1) { /* loaded, or cancelled with what was loaded kept */
		/* offsets from a cache: the reader checks each record's fixed
		 * part lies inside the dump, so that no decoder reads outside
		 * (once both are in: a cancel may have left one) */
		if (!fresh_nodes || h->fmt->nodes_valid == NULL || !cache_has(h, HP_OFF | HP_KIND) ||
		    h->fmt->nodes_valid(h))
			return rc;
		why = "corrupt (a record outside the dump)";
	}
	if (h->rebuild == NULL) { /* a heap no driver made: nothing to fall back on */
		char *ep = esc_str(h->path);
		hw_refuse("%s: the index cache is %s", ep, why);
	}
	h->rebuild(h, why, p);
	return load(h, parts, p, may_cancel);
}

void heap_load(struct heap *h, unsigned parts, struct progress *p)
{
	load(h, parts, p, 0);
}

/* The reader's own arrays that wait (format_ops' load_data), for a view
 * about to read the heap: where the cache they waited in proves
 * corrupt, the heap is made anew (as for a part). Not while the heap is
 * built: what waits then does so on purpose. */
static void reader_data(struct heap *h, unsigned parts, struct progress *p)
{
	if (h->fmt == NULL || h->fmt->load_data == NULL || h->busy > 0 || h->fmt->load_data(h) == 0)
		return;
	if (h->rebuild == NULL) { /* a heap no driver made: nothing to fall back on */
		char *ep = esc_str(h->path);
		hw_refuse("%s: the index cache is corrupt (the reader's arrays)", ep);
	}
	h->rebuild(h, "corrupt (the reader's arrays)", p);
	heap_load(h, parts, p); /* the parts asked for, as the rebuilt heap has them */
	if (h->fmt->load_data(h) != 0)
		hw_fatal("%s: cannot read back the reader's arrays", esc_str(h->path));
}

void heap_need(struct heap *h, unsigned parts, struct progress *p)
{
	if (parts != 0 && h->fmt != NULL) /* what decoding an object reads comes along */
		parts |= h->fmt->needs;
	if (h->backing != NULL)
		cache_fill_empty(h, parts);
	refuse_unless_room(h, parts, parts != 0); /* the parts and the reader's arrays, at once */
	heap_load(h, parts, p);
	if (parts != 0)
		reader_data(h, parts, p);
}

int heap_try_need(struct heap *h, unsigned parts, struct progress *p, struct sbuf *err)
{
	if (parts != 0 && h->fmt != NULL)
		parts |= h->fmt->needs;
	if (h->backing != NULL)
		cache_fill_empty(h, parts);
	if (room_to_load(h, parts, parts != 0, err) < 0)
		return -1;
	if (load(h, parts, p, 1) != 0) {
		sbuf_adds(err, "cancelled");
		return -1;
	}
	if (parts != 0)
		reader_data(h, parts, p);
	return 0;
}

void heap_map_advise(struct heap *h, int advice)
{
	heap_map_advise_range(h, 0, h->size, advice);
}

void heap_map_advise_range(struct heap *h, uint64_t from, uint64_t to, int advice)
{
	static uint64_t page;

	if (h->container != NULL || h->map == NULL || h->size == 0)
		return; /* a gzip dump read at random manages its own pages */
	if (page == 0) {
		long ps = sysconf(_SC_PAGESIZE);
		page = ps > 0 ? (uint64_t)ps : 4096;
	}
	from = from / page * page; /* the whole pages of [from, to) */
	if (to > h->size)
		to = h->size;
	if (to < h->size)
		to = to / page * page;
	if (to <= from)
		return;
#ifdef MADV_NOHUGEPAGE
	/* read at random from now on: a fault reads its page, not the 2 MiB
	 * around it that heap_map_populate's advice would */
	if (advice == MADV_RANDOM)
		madvise((void *)(h->map + from), (size_t)(to - from), MADV_NOHUGEPAGE);
#endif
	madvise((void *)(h->map + from), (size_t)(to - from), advice);
}

void heap_map_populate(struct heap *h)
{
	if (h->container != NULL || h->map == NULL || h->size > (uint64_t)8 << 30)
		return;
#ifdef MADV_HUGEPAGE
	/* the whole file read now: the pages read from disk go to the page
	 * cache's huge pages, each mapped at once, not 512 times (a file
	 * already there keeps the pages it has; snapshots heapwalk writes
	 * are in huge ones, stream.h). On a virtual machine a process's
	 * first touch of a 4 kB page of a mapped file costs ~1.5 us: 0.1 s
	 * of a cold open of a 300 MB trace (make bench) */
	if (h->size >= (uint64_t)2 << 20)
		madvise((void *)(uintptr_t)h->map, (size_t)h->size, MADV_HUGEPAGE);
#endif
	map_populate(h->map, 0, (size_t)h->size);
}

void heap_behind_init(struct heap *h, struct behind *b)
{
	b->on = heap_tight(h->size * 2);
	b->done = 0;
}

void heap_behind(struct heap *h, struct behind *b, uint64_t to)
{
	if (b->on && to > b->done && to - b->done >= ((uint64_t)256 << 20)) {
		heap_map_advise_range(h, b->done, to, MADV_DONTNEED);
		b->done = to;
	}
}

int heap_same_bytes(const struct heap *a, const struct heap *b)
{
	const uint8_t *pa = a->file_map != NULL ? a->file_map : a->map, *pb = b->file_map != NULL ? b->file_map : b->map;
	uint64_t na = a->file_map != NULL ? a->file_size : a->size, nb = b->file_map != NULL ? b->file_size : b->size;
	const uint64_t chunk = (uint64_t)1 << 20;

	if (na != nb || na == 0 || pa == NULL || pb == NULL)
		return 0;
	for (uint64_t at = 0; at < na; at += chunk)
		if (memcmp(pa + at, pb + at, (size_t)(na - at < chunk ? na - at : chunk)) != 0)
			return 0;
	return 1;
}

int heap_map_file(struct heap *h, const char *path, struct sbuf *err)
{
	struct stat st;
	/* not blocking: a FIFO would wait for a writer in open() itself,
	 * before fstat could tell it is no regular file */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	char *ep = esc_str(path); /* a file name may hold control characters */
	void *m = NULL;

	if (fd < 0) {
		sbuf_printf(err, "%s: %s", ep, strerror(errno));
		goto fail;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		sbuf_printf(err, "%s: not a regular file", ep);
		goto fail;
	}
	if (st.st_size > 0) { /* an empty file maps nothing: its reader says why it won't do */
		m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m == MAP_FAILED) {
			sbuf_printf(err, "%s: cannot map: %s", ep, strerror(errno));
			goto fail;
		}
		map_watch(m, (uint64_t)st.st_size, path); /* a fault on it names it */
	}
	free(ep);
	h->path = xstrdup(path);
	h->map = m;
	h->size = (uint64_t)st.st_size;
	h->fd = fd;
	h->file_dev = (uint64_t)st.st_dev;
	h->file_ino = (uint64_t)st.st_ino;
	h->file_mtime_s = (uint64_t)st.st_mtim.tv_sec;
	h->file_mtime_ns = (uint64_t)st.st_mtim.tv_nsec;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	free(ep);
	return -1;
}
