/* open.c — the graph's driver whatever the format: a reader's parse
 * built and analysed, analysed again under other rules or another focus,
 * rebuilt when the cache proves corrupt, freed. Above the analyses and
 * residency (resident.c), which call nothing here. heap_open() itself,
 * which picks the reader, is src/engine/open.c. */
#include "graph/open.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "graph/analysis.h"
#include "graph/cache.h"
#include "graph/ownership.h"
#include "graph/reader.h"
#include "graph/resident.h"
#include "graph/retained.h"

void heap_analyse(struct heap *h, struct progress *p)
{
	cache_changed(h, HP_IN | HP_DOM);
	analysis_garbage_roots(h, p);
	analysis_dominators(h, p);
}

/* Each class's generations (struct hclass' gens) and each generation's
 * objects and bytes, for the classes view and info of the whole heap
 * without its nodes. */
static void gen_totals(struct heap *h, struct progress *p)
{
	heap_load(h, HP_CLASS | HP_SHALLOW, p); /* no more: no object is decoded */
	for (uint32_t c = 0; c < h->ncls; c++)
		h->cls[c].gens = 0;
	memset(h->gen_objects, 0, sizeof h->gen_objects);
	memset(h->gen_bytes, 0, sizeof h->gen_bytes);
	for (node_t v = 1; v < h->n; v++) {
		unsigned g = h->node_gen[v];
		if (g >= HW_MAX_GENS)
			continue;
		if (h->node_class[v] < h->ncls)
			h->cls[h->node_class[v]].gens |= (uint8_t)(1u << g);
		h->gen_objects[g]++;
		h->gen_bytes[g] += h->node_shallow[v];
	}
}

static void drop_graph(struct heap *h);

int heap_build(struct heap *h, const struct ruleset *rules, struct progress *p, struct sbuf *err)
{
	/* a dump read afresh every time (no cache: a format read whole into
	 * memory anyway) is analysed in memory */
	if (h->fmt->cacheable)
		cache_begin(h); /* none: everything stays in memory */
	h->rebuild = heap_rebuild;
	h->busy++;
	int rc = h->fmt->parse(h, p, err);
	if (rc == HEAP_PARSE_AGAIN) { /* a shortcut did not hold: what it made dropped, the plain way */
		int busy = h->busy;
		drop_graph(h);
		h->busy = busy;
		h->plain_parse = 1;
		if (h->fmt->cacheable)
			cache_begin(h);
		h->rebuild = heap_rebuild;
		rc = h->fmt->parse(h, p, err);
		if (rc == HEAP_PARSE_AGAIN) /* the reader's bug */
			hw_fatal("%s: the reader asked to read the dump again twice", esc_str(h->path));
	}
	h->has_node_id = h->node_id != NULL; /* before any is parked */
	if (rc == 0) {
		if (rules != NULL) {
			if (h->fmt->load_data != NULL) /* the rules may read them */
				h->fmt->load_data(h);
			ownership_classify(h, rules, p);
		}
		if (h->fmt->park_data != NULL)
			h->fmt->park_data(h);
		heap_analyse(h, p);
		cache_built(h);
		if (h->node_gen != NULL)
			gen_totals(h, p);
		progress_begin(p, "index cache", 1, "files");
		/* the reader's parked arrays copied as they are */
		if (cache_finish(h) == 0 && h->fmt->data_cached != NULL && cache_holds_reader(h))
			h->fmt->data_cached(h); /* ... and read from there */
		progress_end(p);
		/* as after a cached open: what a view needs is loaded when
		 * it asks (nothing is parked without a file behind the heap);
		 * the reader's parked arrays, when it first reads them */
		heap_park(h, HP_ALL);
		cache_spill_note(h);
	}
	h->busy--;
	hw_recycle_flush(); /* what the work kept to make again (util.h) */
	return rc < 0 ? -1 : 0;
}

/* Forget the analyses (and the pseudo roots they added). */
static void drop_analyses(struct heap *h)
{
	size_t k = 0;

	for (size_t i = 0; i < h->nroot_rec; i++)
		if (h->root_rec[i].kind != RK_WEAK_ONLY && h->root_rec[i].kind != RK_UNREACHABLE)
			h->root_rec[k++] = h->root_rec[i];
	h->nroot_rec = k;
	free(h->roots);
	free(h->reach_strong);
	free(h->reach_live);
	h->reach_strong = h->reach_live = NULL;
	free(h->in_start);
	free(h->in);
	free(h->idom);
	free(h->retained);
	free(h->dom_start);
	free(h->dom_child);
	h->roots = h->in = h->idom = h->dom_start = h->dom_child = NULL;
	h->in_start = NULL;
	h->retained = NULL;
	h->nroots = 0;
	h->weakonly_count = h->weakonly_bytes = 0;
	h->unreachable_count = h->unreachable_bytes = 0;
	retained_forget(h); /* exact figures of the old references */
}

int heap_apply_rules(struct heap *h, const struct ruleset *rs, struct progress *p)
{
	heap_need(h, HP_ALL, p); /* refused here, if at all: before anything changes */
	h->busy++;
	if (ownership_classify(h, rs, p) < 0) {
		h->busy--;
		hw_recycle_flush();
		return -1;
	}
	drop_analyses(h);
	heap_analyse(h, p);
	heap_need(h, HP_ALL, p); /* as the caller had it: everything in memory */
	h->busy--;
	hw_recycle_flush();
	h->agen++;
	return 0;
}

int heap_set_root(struct heap *h, node_t v, struct progress *p)
{
	node_t was = h->aroot;

	if (v == was)
		return 0;
	h->aroot = v;
	if (heap_apply_rules(h, h->rules, p) == 0)
		return 0;
	h->aroot = was;
	return -1;
}

int heap_ignore(struct heap *h, node_t src, node_t dst, int on, struct progress *p)
{
	size_t i = 0;

	while (i < h->nignored && (h->ignored[i].src != src || h->ignored[i].dst != dst))
		i++;
	if (on == (i < h->nignored))
		return 0;
	struct href *was = h->ignored;
	size_t nwas = h->nignored;
	h->ignored = xmalloc((nwas + 1) * sizeof *h->ignored);
	if (on) {
		if (nwas > 0)
			memcpy(h->ignored, was, nwas * sizeof *was);
		h->ignored[h->nignored++] = (struct href){ src, dst };
	} else { /* i < nwas: was holds it */
		memcpy(h->ignored, was, i * sizeof *was);
		memcpy(h->ignored + i, was + i + 1, (nwas - i - 1) * sizeof *was);
		h->nignored--;
	}
	if (heap_apply_rules(h, h->rules, p) == 0) {
		free(was);
		return 0;
	}
	free(h->ignored);
	h->ignored = was;
	h->nignored = nwas;
	return -1;
}

/* Free what a parse builds (warnings too: the parse says them again),
 * keep the mapping: a gzip dump's too, the container its bytes are read
 * through and the compressed file's mapping, which the cache knows the
 * dump by (freed here, a rebuild read the container's freed memory: a
 * JDK's gzip dump whose cache was found corrupt crashed); and what the
 * open asked for (the heapshot, the unreachable objects kept). */
static void drop_graph(struct heap *h)
{
	struct heap keep = { .fmt = h->fmt, .path = h->path, .map = h->map, .size = h->size, .fd = h->fd,
			     .file_map = h->file_map, .file_size = h->file_size, .file_dev = h->file_dev,
			     .file_ino = h->file_ino, .file_mtime_s = h->file_mtime_s,
			     .file_mtime_ns = h->file_mtime_ns, .container = h->container,
			     .container_free = h->container_free, .want_snap = h->want_snap,
			     .keep_unreachable = h->keep_unreachable, .rebuild = h->rebuild,
			     .timestamp_ms = h->timestamp_ms, .warn = { .quiet = h->warn.quiet },
			     .notes = h->notes, .cache_file = h->cache_file, .rules = h->rules };

	memcpy(keep.version, h->version, sizeof keep.version);
	keep.layout.idsize = h->layout.idsize;
	h->path = NULL;
	h->map = NULL;
	h->file_map = NULL;
	h->container = NULL;
	h->fd = -1;
	h->cache_file = NULL;
	memset(&h->notes, 0, sizeof h->notes);
	heap_free(h);
	*h = keep;
}

char *heap_dump_name(const struct heap *h)
{
	return h->nsnaps > 0 ? xasprintf("%s:%u", h->path, h->snap) : xstrdup(h->path);
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
	free(h->own_node);
	free(h->own_rule);
	free(h->tag_node);
	free(h->tag_label);
	free(h->tag_labels);
	free(h->ambiguous);
	free(h->root_rec);
	free(h->roots);
	free(h->reach_strong);
	free(h->reach_live);
	free(h->cls);
	free(h->cls_node);
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

void heap_rebuild(struct heap *h, const char *why, struct progress *p)
{
	struct sbuf err;

	drop_graph(h);
	warn_add(&h->notes, "%s: the index cache is %s; reading the dump again", h->path, why);
	sbuf_init(&err);
	if (heap_build(h, h->rules, p, &err) < 0) /* the header was fine before: the memory may not be */
		hw_refuse("%s", err.buf);
	sbuf_free(&err);
}
