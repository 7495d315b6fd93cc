/* open.c — heap_open(): map, pick the reader, cache or parse and
 * analyse; see open.h. */
#include "engine/open.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/gz.h"
#include "graph/cache.h"
#include "graph/ownership.h"
#include "graph/reader.h"
#include "graph/rules.h"

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

/* Where a gzip dump's inflated copy lives: beside its index cache
 * ("dump.hprof.gz.hwi" -> "dump.hprof.gz.inflated"), or NULL (no cache:
 * a temporary file, unlinked once mapped). */
static char *inflated_path(const char *path, const struct open_opts *o)
{
	if (o->no_cache)
		return NULL;
	char *c = cache_choose(path, NULL), *out = NULL;
	if (c != NULL && strlen(c) > 4) {
		c[strlen(c) - 4] = '\0'; /* ".hwi" */
		out = xasprintf("%s.inflated", c);
	}
	free(c);
	return out;
}

/* A copy made from this very .gz: its modification time is set to the
 * .gz's when it is complete (and a copy is renamed into place only
 * then), so a .gz replaced since has another. */
static int inflated_current(const char *raw, const struct stat *gz)
{
	struct stat st;

	return lstat(raw, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	       st.st_mtim.tv_sec == gz->st_mtim.tv_sec && st.st_mtim.tv_nsec == gz->st_mtim.tv_nsec;
}

/* The dump in h is gzip: inflate it once into a file (on disk, not in
 * memory) and map that in its place; h keeps the .gz's path, for the
 * cache and the messages. 0, or -1 with one line in err. */
static int open_gzip(struct heap *h, const char *path, const struct open_opts *o,
		     struct progress *p, struct sbuf *err)
{
	struct stat gst;
	char *raw = inflated_path(path, o), *tmp = NULL;
	int rc = -1;

	if (fstat(h->fd, &gst) < 0) {
		char *ep = esc_str(path);
		sbuf_printf(err, "%s: %s", ep, strerror(errno));
		free(ep);
		free(raw);
		return -1;
	}
	if (raw == NULL || !inflated_current(raw, &gst)) {
		struct gz_index idx = { 0 };
		const char *out = raw;
		if (out == NULL) {
			const char *td = getenv("TMPDIR");
			tmp = xasprintf("%s/heapwalk-%ld-%p.inflated", td && *td ? td : "/tmp",
					(long)getpid(), (void *)h);
			out = tmp;
		}
		int r = gz_inflate_to_file(h->path, h->map, h->size, out, &idx, p, &h->warn, err);
		gz_index_free(&idx);
		if (r < 0)
			goto done;
		struct timespec t[2] = { gst.st_atim, gst.st_mtim };
		if (raw != NULL)
			utimensat(AT_FDCWD, out, t, 0);
	}
	struct heap in = { .fd = -1 };
	if (heap_map_file(&in, raw != NULL ? raw : tmp, err) < 0)
		goto done;
	if (tmp != NULL)
		unlink(tmp);
	map_unwatch(h->map);
	munmap((void *)h->map, h->size);
	close(h->fd);
	h->map = in.map;
	h->size = in.size;
	h->fd = in.fd;
	free(in.path);
	rc = 0;
done:
	if (rc < 0 && tmp != NULL)
		unlink(tmp);
	free(tmp);
	free(raw);
	return rc;
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
	if (heap_map_file(h, path, err) < 0) {
		heap_free(h);
		return -1;
	}
	if (gz_probe(h->map, h->size) && open_gzip(h, path, o, p, err) < 0) {
		heap_free(h);
		return -1;
	}
	h->fmt = format_find(h->map, h->size);
	if (h->fmt == NULL) {
		char *ep = esc_str(path);
		sbuf_printf(err, "%s: offset 0: not an HPROF file, nor a V8 heap snapshot, plain or gzip (%s)", ep,
			    h->size == 0 ? "empty" : "unknown first bytes");
		free(ep);
		heap_free(h);
		return -1;
	}
	if (h->fmt->header(h, err) < 0) {
		heap_free(h);
		return -1;
	}
	int no_cache = o->no_cache || !h->fmt->cacheable;
	if (!heap_runtime_is(h, "jvm")) /* the rules name Java classes and fields */
		h->rules = NULL;
	struct ruleset *rules = h->rules != NULL ? o->rules : NULL;
	if (!no_cache) {
		struct sbuf why_not;
		sbuf_init(&why_not);
		h->cache_file = cache_choose(path, &why_not);
		if (why_not.len > 0)
			warn_add_escaped(&h->notes, why_not.buf);
		sbuf_free(&why_not);
	}
	if (!no_cache && cache_load(h, o->verify_cache, &why) == 0) {
		h->from_cache = 1;
		if (h->rules_fp != rules_fingerprint(rules)) { /* other rules than last time */
			heap_need(h, HP_ALL, p);
			heap_apply_rules(h, rules, p);
			cache_save(h);
		}
		opened(h, o);
		return 0;
	}
	if (h->fmt->parse(h, p, err) < 0) {
		heap_free(h);
		return -1;
	}
	if (rules != NULL)
		ownership_classify(h, rules, p);
	heap_analyse(h, p);
	if (!no_cache)
		cache_save(h);
	opened(h, o);
	return 0;
}

