/* open.c — open a dump: the cache, or parse, build and analyse. */
#include "graph/open.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "format/hprof.h"
#include "graph/analysis.h"
#include "graph/cache.h"
#include "graph/ownership.h"
#include "graph/retained.h"
#include "graph/rules.h"

const char *root_kind_name(unsigned kind)
{
	switch (kind) {
	case RK_UNKNOWN: return "unknown";
	case RK_JNI_GLOBAL: return "JNI global";
	case RK_JNI_LOCAL: return "JNI local";
	case RK_JAVA_FRAME: return "Java frame";
	case RK_NATIVE_STACK: return "native stack";
	case RK_STICKY_CLASS: return "system class";
	case RK_THREAD_BLOCK: return "thread block";
	case RK_MONITOR_USED: return "busy monitor";
	case RK_THREAD_OBJ: return "thread";
	case RK_INTERNED_STRING: return "interned string";
	case RK_FINALIZING: return "finalizing";
	case RK_DEBUGGER: return "debugger";
	case RK_REFERENCE_CLEANUP: return "reference cleanup";
	case RK_VM_INTERNAL: return "VM internal";
	case RK_JNI_MONITOR: return "JNI monitor";
	case RK_UNREACHABLE_ANDROID: return "unreachable (Android)";
	case RK_WEAK_ONLY: return "weakly reachable";
	case RK_UNREACHABLE: return "unreachable";
	default: return "?";
	}
}

void heap_analyse(struct heap *h, struct progress *p)
{
	analysis_roots(h, p);
	analysis_dominators(h, p);
}

/* Free what a parse builds (warnings too: the parse says them again),
 * keep the mapping. */
static void drop_graph(struct heap *h)
{
	struct heap keep = { .path = h->path, .map = h->map, .size = h->size, .fd = h->fd,
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

void heap_need(struct heap *h, unsigned parts, struct progress *p)
{
	const char *why;
	struct sbuf err;

	if (h->lazy == NULL)
		return;
	int fresh_nodes = (parts & HP_NODES) && !cache_has(h, HP_NODES);
	if (cache_load_rest(h, parts, &why) == 0) {
		/* offsets from a cache: the reader checks each record's fixed
		 * part lies inside the dump, so that no decoder reads outside */
		if (!fresh_nodes || hprof_nodes_valid(h))
			return;
		why = "corrupt (a record outside the dump)";
	}
	drop_graph(h);
	warn_add(&h->notes, "%s: the index cache is %s; reading the dump again", h->path, why);
	sbuf_init(&err);
	hprof_parse(h, p, &err); /* the header was fine before: it still is */
	sbuf_free(&err);
	if (h->rules != NULL)
		ownership_classify(h, h->rules, p);
	heap_analyse(h, p);
	cache_save(h);
}

/* Open: the warnings of reading the dump (or the cache's copy of them)
 * said once, in one line, unless quiet or verbose (which said each);
 * later ones each as they come. */
static void opened(struct heap *h, const struct open_opts *o)
{
	struct warnings *w = &h->warn;

	if (!o->quiet && !o->verbose && w->n > 0) {
		size_t all = w->n + w->suppressed;
		const char *last = w->msg[w->n - 1], *colon = strstr(last, ": ");
		char *ep = esc_str(h->path); /* as the messages hold it */
		const char *base = strrchr(ep, '/');
		base = base ? base + 1 : ep;
		size_t nb = strlen(base);
		/* the file, said once (the cache's copy has the path of its day) */
		if (colon != NULL && (size_t)(colon - last) >= nb && strncmp(colon - nb, base, nb) == 0)
			last = colon + 2;
		fprintf(stderr, "heapwalk: warning: %s: %zu warning%s while reading it (-v, or the info "
			"command, lists them); the last: %s\n", ep, all, all == 1 ? "" : "s", last);
		free(ep);
	}
	w->quiet = o->quiet;
}

int heap_open(struct heap *h, const char *path, const struct open_opts *o,
	      struct progress *p, struct sbuf *err)
{
	const char *why = NULL;

	memset(h, 0, sizeof *h);
	h->fd = -1;
	h->warn.quiet = !o->verbose; /* collected; one line for them all at the end */
	h->notes.quiet = o->quiet;   /* said as they come */
	h->rules = o->rules;
	if (hprof_map(h, path, err) < 0) {
		heap_free(h);
		return -1;
	}
	if (!o->no_cache) {
		struct sbuf why_not;
		sbuf_init(&why_not);
		h->cache_file = cache_choose(path, &why_not);
		if (why_not.len > 0)
			warn_add_escaped(&h->notes, why_not.buf);
		sbuf_free(&why_not);
	}
	if (!o->no_cache && cache_load(h, o->verify_cache, &why) == 0) {
		h->from_cache = 1;
		if (h->rules_fp != rules_fingerprint(o->rules)) { /* other rules than last time */
			heap_need(h, HP_ALL, p);
			heap_apply_rules(h, o->rules, p);
			cache_save(h);
		}
		opened(h, o);
		return 0;
	}
	if (hprof_parse(h, p, err) < 0) {
		heap_free(h);
		return -1;
	}
	if (o->rules != NULL)
		ownership_classify(h, o->rules, p);
	heap_analyse(h, p);
	if (!o->no_cache)
		cache_save(h);
	opened(h, o);
	return 0;
}

void heap_free(struct heap *h)
{
	cache_lazy_free(h);
	if (h->map != NULL) {
		map_unwatch(h->map);
		munmap((void *)h->map, h->size);
	}
	if (h->fd >= 0)
		close(h->fd);
	free(h->path);
	free(h->node_id);
	free(h->node_off);
	free(h->node_class);
	free(h->node_shallow);
	free(h->node_kind);
	free(h->out_start);
	free(h->out);
	free(h->in_start);
	free(h->in);
	free(h->weak_src);
	free(h->weak_dst);
	free(h->weak_rule);
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
