/* open.c — what opening a dump needs of the graph whatever its format:
 * mapping the file, analysing what a reader built, loading the rest of
 * a cached heap, freeing. heap_open() itself, which picks the reader,
 * is src/engine/open.c. */
#include "graph/open.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "graph/analysis.h"
#include "graph/cache.h"
#include "graph/ownership.h"
#include "graph/reader.h"
#include "graph/retained.h"

void heap_analyse(struct heap *h, struct progress *p)
{
	cache_changed(h, HP_IN | HP_DOM);
	analysis_cut_garbage(h, p);
	analysis_roots(h, p);
	analysis_dominators(h, p);
}

int heap_build(struct heap *h, const struct ruleset *rules, struct progress *p, struct sbuf *err)
{
	/* a dump read afresh every time (no cache: a format read whole into
	 * memory anyway) is analysed in memory */
	if (h->fmt->cacheable)
		cache_begin(h); /* none: everything stays in memory */
	h->busy++;
	int rc = h->fmt->parse(h, p, err);
	if (rc == 0) {
		if (rules != NULL)
			ownership_classify(h, rules, p);
		heap_analyse(h, p);
		cache_built(h);
		progress_begin(p, "index cache", 1, "files");
		cache_finish(h);
		progress_end(p);
		/* as after a cached open: what a view needs is loaded when
		 * it asks (nothing is parked without a file behind the heap) */
		heap_park(h, HP_ALL);
	}
	h->busy--;
	return rc < 0 ? -1 : 0;
}

/* Free what a parse builds (warnings too: the parse says them again),
 * keep the mapping. */
static void drop_graph(struct heap *h)
{
	struct heap keep = { .fmt = h->fmt, .path = h->path, .map = h->map, .size = h->size, .fd = h->fd,
			     .timestamp_ms = h->timestamp_ms, .warn = { .quiet = h->warn.quiet },
			     .notes = h->notes, .cache_file = h->cache_file, .rules = h->rules };

	memcpy(keep.version, h->version, sizeof keep.version);
	keep.layout.idsize = h->layout.idsize;
	h->path = NULL;
	h->map = NULL;
	h->fd = -1;
	h->cache_file = NULL;
	memset(&h->notes, 0, sizeof h->notes);
	heap_free(h);
	*h = keep;
}

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
	uint64_t budget = heap_memory_budget(), need = nodes * HEAP_BUILD_BYTES + extra;

	if (budget == 0 || need <= budget + anon_bytes())
		return 0;
	char *ep = esc_str(h->path), a[32], b[32];
	fmt_bytes(a, sizeof a, need);
	fmt_bytes(b, sizeof b, budget + anon_bytes());
	sbuf_printf(err, "%s: %llu objects need about %s of memory to analyse (%d bytes an object); "
		    "%s is available: not opened", ep, (unsigned long long)nodes, a, HEAP_BUILD_BYTES, b);
	free(ep);
	return -1;
}

/* Room for the parts about to be loaded, or the refusal; never while
 * the heap is being built or analysed (h->busy): what it loads again
 * was in memory a moment before, and a refusal would leave the work
 * half done. */
static void room_to_load(struct heap *h, unsigned parts)
{
	uint64_t bytes = cache_part_bytes(h, parts), budget = heap_memory_budget();

	if (h->busy > 0 || budget == 0 || bytes <= budget)
		return;
	char *ep = esc_str(h->path), a[32], b[32];
	fmt_bytes(a, sizeof a, bytes);
	fmt_bytes(b, sizeof b, budget);
	hw_refuse("%s: loading the %s needs %s of memory; %s is available", ep,
		  (parts & ~(HP_NODES | HP_IDS)) == 0 ? "objects" : "object graph", a, b);
}

void heap_load(struct heap *h, unsigned parts, struct progress *p)
{
	const char *why;
	struct sbuf err;

	if (h->backing == NULL)
		return;
	cache_fill_empty(h, parts);
	if (cache_has(h, parts))
		return;
	room_to_load(h, parts);
	int own = p != NULL && p->phase == NULL; /* inside a phase: part of it */
	if (own)
		progress_begin(p, "loading", 1, "parts");
	int fresh_nodes = (parts & (HP_OFF | HP_KIND)) && !cache_has(h, HP_OFF | HP_KIND) && cache_from_disk(h);
	int loaded = cache_load_rest(h, parts, &why) == 0;
	if (own)
		progress_end(p);
	if (loaded) {
		/* offsets from a cache: the reader checks each record's fixed
		 * part lies inside the dump, so that no decoder reads outside */
		if (!fresh_nodes || h->fmt->nodes_valid == NULL || !cache_has(h, HP_OFF | HP_KIND) ||
		    h->fmt->nodes_valid(h))
			return;
		why = "corrupt (a record outside the dump)";
	}
	drop_graph(h);
	warn_add(&h->notes, "%s: the index cache is %s; reading the dump again", h->path, why);
	sbuf_init(&err);
	if (heap_build(h, h->rules, p, &err) < 0) /* the header was fine before: the memory may not be */
		hw_refuse("%s", err.buf);
	sbuf_free(&err);
	heap_load(h, parts, p);
}

void heap_need(struct heap *h, unsigned parts, struct progress *p)
{
	if (parts != 0 && h->fmt != NULL) /* what decoding an object reads comes along */
		parts |= h->fmt->needs;
	heap_load(h, parts, p);
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
	if (to > from)
		madvise((void *)(h->map + from), (size_t)(to - from), advice);
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
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	free(ep);
	return -1;
}

void heap_free(struct heap *h)
{
	cache_lazy_free(h);
	if (h->fmt != NULL && h->fmt->free_data != NULL)
		h->fmt->free_data(h);
	if (h->container != NULL) {
		h->container_free(h->container);
	} else if (h->map != NULL) {
		map_unwatch(h->map);
		munmap((void *)h->map, h->size);
	}
	if (h->file_map != NULL) {
		map_unwatch(h->file_map);
		munmap((void *)h->file_map, h->file_size);
	}
	if (h->fd >= 0)
		close(h->fd);
	free(h->path);
	free(h->snaps);
	free(h->node_id);
	free(h->id_low);
	free(h->id_start);
	free(h->node_off);
	free(h->node_class);
	free(h->node_shallow);
	free(h->node_kind);
	free(h->node_gen);
	free(h->out_start);
	free(h->out);
	free(h->in_start);
	free(h->in);
	free(h->weak_src);
	free(h->weak_dst);
	free(h->weak_rule);
	free(h->ignored);
	free(h->rx_src);
	free(h->rx_dst);
	free(h->tag_node);
	free(h->tag_label);
	free(h->tag_labels);
	free(h->ambiguous);
	free(h->root_rec);
	free(h->roots);
	free(h->cls);
	free(h->fields);
	free(h->refoffs);
	free(h->names);
	free(h->idom);
	free(h->retained);
	free(h->dom_start);
	free(h->dom_child);
	alloc_times_free(h->atimes);
	free(h->atimes);
	retained_forget(h);
	free(h->cache_file);
	warn_free(&h->notes);
	free(h->frames);
	free(h->traces);
	free(h->trace_frames);
	free(h->threads);
	warn_free(&h->warn);
	memset(h, 0, sizeof *h);
	h->fd = -1;
}
