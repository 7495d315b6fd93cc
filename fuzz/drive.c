/* drive.c — the fuzzers' bodies, see drive.h. They call the engine as
 * src/cli/main.c does: heap_open, heap_need, the steps, the views and
 * their reports, the inspections; the output goes to an sbuf that is
 * dropped. */
#include "drive.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dumps.h"
#include "format/v8_json.h"
#include "graph/cache.h"
#include "engine/open.h"
#include "graph/ownership.h"
#include "graph/rules.h"
#include "query/alloc.h"
#include "query/inspect.h"
#include "query/lifelines.h"
#include "query/merged.h"
#include "query/report.h"
#include "query/step.h"
#include "query/views.h"

/* ---- the private directory ---- */

static char dir[4096];
static struct heap cache_dump, rich; /* opened once, freed at exit */
static int cache_ready, rich_ready;

/* The directory d and the files in it (it has no subdirectories). */
static void remove_dir(const char *d)
{
	DIR *dp = opendir(d);
	struct dirent *e;

	while (dp != NULL && (e = readdir(dp)) != NULL)
		if (e->d_name[0] != '.') {
			char *f = xasprintf("%s/%s", d, e->d_name);
			unlink(f);
			free(f);
		}
	if (dp != NULL)
		closedir(dp);
	rmdir(d);
}

static void cleanup(void)
{
	if (cache_ready)
		heap_free(&cache_dump);
	if (rich_ready)
		heap_free(&rich);
	cache_ready = rich_ready = 0;
	remove_dir(dir);
}

/* The directories of processes gone without their atexit (a crash, a
 * timeout: libFuzzer ends those with _Exit), named by their pid. */
static void remove_stale(const char *tmp)
{
	DIR *dp = opendir(tmp);
	struct dirent *e;
	long pid;
	int at;

	while (dp != NULL && (e = readdir(dp)) != NULL)
		if (sscanf(e->d_name, "heapwalk-fuzz-%ld-%n", &pid, &at) == 1 && at > 0 && pid > 0 &&
		    kill((pid_t)pid, 0) < 0 && errno == ESRCH) {
			char *d = xasprintf("%s/%s", tmp, e->d_name);
			remove_dir(d);
			free(d);
		}
	if (dp != NULL)
		closedir(dp);
}

const char *fuzz_dir(void)
{
	if (dir[0] == '\0') {
		const char *t = getenv("TMPDIR");
		t = t && *t ? t : "/tmp";
		remove_stale(t);
		snprintf(dir, sizeof dir, "%s/heapwalk-fuzz-%ld-XXXXXX", t, (long)getpid());
		if (mkdtemp(dir) == NULL)
			hw_fatal("cannot make a directory %s", dir);
		atexit(cleanup);
	}
	return dir;
}

/* Write len bytes to path, replacing it. */
static void put_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || (len > 0 && write(fd, data, len) != (ssize_t)len) || close(fd) < 0)
		hw_fatal("cannot write %s", path);
}

/* Write a synthetic dump into the directory; the path, caller frees. */
static char *put_dump(const char *name, void (*make)(struct hw *))
{
	struct hw w;

	make(&w);
	char *path = hw_write_in(&w, fuzz_dir(), name, SIZE_MAX);
	hw_free(&w);
	return path;
}

static int open_heap(struct heap *h, const char *path, int no_cache, struct ruleset *rs)
{
	struct open_opts o = { .no_cache = no_cache, .quiet = 1, .rules = rs };
	struct progress p;
	struct sbuf err;

	progress_init(&p, 1);
	sbuf_init(&err);
	int rc = heap_open(h, path, &o, &p, &err);
	sbuf_free(&err);
	return rc;
}

/* ---- the views, as the batch mode runs them ---- */

static const enum fmt fmts[] = { FMT_TEXT, FMT_JSON, FMT_CSV };

static void classes(struct heap *h, const struct objset *set, struct view_opts *vo, struct sbuf *out)
{
	struct class_view v;
	struct sbuf err;

	sbuf_init(&err);
	if (view_classes(h, set, vo, &v, &err) == 0) {
		for (int f = 0; f < 3; f++)
			report_classes(h, &v, fmts[f], out);
		class_view_free(&v);
	}
	sbuf_free(&err);
}

static void info_biggest_objects(struct heap *h, const struct objset *set, struct view_opts *vo,
				 struct sbuf *out)
{
	struct info_view iv;
	struct big_view bv;
	struct objects_view ov;

	view_info(h, set, &iv);
	view_biggest(h, set, vo, &bv);
	view_objects(h, set, vo, &ov);
	for (int f = 0; f < 3; f++) {
		report_info(h, &iv, fmts[f], out);
		report_biggest(h, &bv, fmts[f], out);
		report_objects(h, &ov, fmts[f], out);
	}
	info_view_free(&iv);
	big_view_free(&bv);
	objects_view_free(&ov);
}

/* Paths to the first few members, weak references followed or not. */
static void paths(struct heap *h, const struct objset *set, struct view_opts *vo, struct sbuf *out)
{
	int done = 0;

	for (node_t x = 1; x < h->n && done < 3; x++) {
		if (!objset_has(set, x))
			continue;
		struct path_view v;
		vo->weak = done == 1;
		view_paths(h, x, vo, &v);
		report_paths(h, &v, fmts[done], out);
		path_view_free(&v);
		done++;
	}
	vo->weak = 0;
}

/* The lifelines of the set's first objects, in each format. */
static void lifelines(struct heap *h, const struct objset *set, struct sbuf *out)
{
	int done = 0;

	for (node_t x = 1; x < h->n && done < 3; x++) {
		if (!objset_has(set, x))
			continue;
		struct lifeline_view v;
		view_lifelines(h, x, 50, &v);
		report_lifelines(h, &v, fmts[done], out);
		lifeline_view_free(&v);
		done++;
	}
}

static void allocations(struct heap *h, const struct objset *set, struct sbuf *out)
{
	struct alloc_view v;

	view_allocations(h, set, &v);
	for (int f = 0; f < 3; f++)
		report_allocations(h, &v, 5, 3, 0.5, fmts[f], out);
	alloc_view_free(&v);
}

/* The histogram of allocation times (the agent's record parsed here),
 * and the members of its middle bucket. */
static void times(struct heap *h, const struct objset *set, struct sbuf *out)
{
	struct time_view v;
	struct objset sel;

	view_times(h, set, 7, &v);
	for (int f = 0; f < 3; f++)
		report_times(h, &v, fmts[f], out);
	if (v.nb > 0) {
		time_select(h, set, v.b[v.nb / 2].from, TIME_OPEN, &sel);
		objset_free(&sel);
	}
	time_view_free(&v);
}

/* The three merged trees: by class, by field, by field as stored, and
 * dominating from the roots down. */
static void merged(struct heap *h, const struct objset *set, struct progress *p, struct sbuf *out)
{
	static const char *const names[] = { "merged-out", "merged-in", "merged-dom" };
	static const enum merged_kind kinds[] = { MG_OUTGOING, MG_INCOMING, MG_DOMINATING };
	node_t *m = objset_members(h, set);

	for (int k = 0; k < 3; k++)
		for (int by = 0; by < 3; by++) {
			struct merged_tree t;
			int reverse = kinds[k] == MG_DOMINATING && by == 1;
			if (merged_tree(h, kinds[k], (enum merged_by)by, reverse, m, (size_t)set->count, 2, 5,
					&t, p) == 0) {
				report_merged(h, names[k], &t, fmts[by], out);
				merged_tree_free(&t);
			}
		}
	free(m);
}

/* The argument each inspection is run with: a simple regex for the
 * one that needs one, the defaults elsewhere. */
static const char *insp_arg(const struct inspection *in)
{
	return in->arg_required ? "^d.*e$" : NULL;
}

static void inspections(struct heap *h, const struct objset *set, struct progress *p, struct sbuf *out)
{
	size_t n;
	const struct inspection *all = inspect_all(&n);

	for (size_t i = 0; i < n; i++) {
		struct insp_result r;
		struct sbuf err;
		sbuf_init(&err);
		if (inspect_run(h, &all[i], insp_arg(&all[i]), set, &r, p, &err) == 0) {
			report_inspect(h, &all[i], insp_arg(&all[i]), &r, set, i % 2 ? 3 : 0,
				       fmts[i % 3], out);
			insp_result_free(&r);
		}
		sbuf_free(&err);
	}
}

/* Every view over the whole heap. */
static void all_views(struct heap *h)
{
	struct progress p;
	struct view_opts vo = { .depth = 2, .top = 10, .cutoff = 0.5, .max_paths = 3, .progress = &p };
	struct objset set;
	struct sbuf out;

	progress_init(&p, 1);
	sbuf_init(&out);
	objset_whole(h, &set); /* as main.c for info and classes: no bits */
	classes(h, &set, &vo, &out);
	heap_need(h, HP_ALL, &p);
	objset_all(h, &set);
	vo.sort = "retained";
	vo.exact = "a";
	classes(h, &set, &vo, &out);
	vo.sort = NULL;
	vo.exact = NULL;
	info_biggest_objects(h, &set, &vo, &out);
	paths(h, &set, &vo, &out);
	allocations(h, &set, &out);
	times(h, &set, &out);
	merged(h, &set, &p, &out);
	inspections(h, &set, &p, &out);
	objset_free(&set);
	sbuf_free(&out);
}

/* ---- the bodies ---- */

/* The bytes as a file `name` of the directory, opened as heapwalk opens
 * a dump (no cache) and run through every view. */
static void open_all_views(const char *name, const uint8_t *data, size_t len)
{
	char *path = xasprintf("%s/%s", fuzz_dir(), name);
	struct heap h;

	put_file(path, data, len);
	if (open_heap(&h, path, 1, NULL) == 0) {
		all_views(&h);
		heap_free(&h);
	}
	free(path);
}

int fuzz_dump(const uint8_t *data, size_t len)
{
	open_all_views("in.hprof", data, len);
	return 0;
}

void fuzz_init_cache(void)
{
	if (cache_ready)
		return;
	char *path = put_dump("cache.hprof", fz_rich);
	/* with the cache: this open writes the real one beside the dump */
	if (open_heap(&cache_dump, path, 0, NULL) < 0)
		hw_fatal("%s: the synthetic dump does not open", path);
	cache_ready = 1;
	free(path);
}

uint8_t *fuzz_cache_seed(size_t *len)
{
	fuzz_init_cache();
	char *path = cache_path(cache_dump.path);
	FILE *f = fopen(path, "rb");
	struct sbuf sb;
	char buf[65536];
	size_t got;

	if (f == NULL)
		hw_fatal("%s: no cache was written", path);
	sbuf_init(&sb);
	while ((got = fread(buf, 1, sizeof buf, f)) > 0)
		sbuf_add(&sb, buf, got);
	fclose(f);
	free(path);
	*len = sb.len;
	return (uint8_t *)sbuf_detach(&sb);
}

int fuzz_cache(const uint8_t *data, size_t len)
{
	fuzz_init_cache();
	uint8_t *buf = xmalloc(len + 1);
	char *path = cache_path(cache_dump.path);
	struct heap h;

	memcpy(buf, data, len);
	cache_reseal(buf, len, &cache_dump); /* a forged cache, checksums and all */
	put_file(path, buf, len);
	if (open_heap(&h, cache_dump.path, 0, NULL) == 0) {
		all_views(&h);
		heap_free(&h);
	}
	free(buf);
	free(path);
	return 0;
}

/* The rich dump, opened once without the cache. */
static void init_rich(void)
{
	if (rich_ready)
		return;
	char *path = put_dump("rich.hprof", fz_rich);
	if (open_heap(&rich, path, 1, NULL) < 0)
		hw_fatal("%s: the synthetic dump does not open", path);
	rich_ready = 1;
	free(path);
}

void fuzz_init_step(void) { init_rich(); }
void fuzz_init_rules(void) { init_rich(); }

/* One view of the set, as run_view() in main.c picks it. */
static void one_view(struct heap *h, const char *view, const struct objset *set, struct progress *p)
{
	struct view_opts vo = { .depth = 2, .top = 10, .cutoff = 0.5, .max_paths = 3, .progress = p };
	struct sbuf out;

	sbuf_init(&out);
	if (view == NULL || strcmp(view, "classes") == 0) {
		classes(h, set, &vo, &out);
	} else if (strcmp(view, "paths") == 0) {
		paths(h, set, &vo, &out);
	} else if (strcmp(view, "lifelines") == 0) {
		lifelines(h, set, &out);
	} else if (strcmp(view, "allocations") == 0) {
		allocations(h, set, &out);
	} else if (strcmp(view, "times") == 0) {
		times(h, set, &out);
	} else if (strncmp(view, "merged-", 7) == 0) {
		merged(h, set, p, &out);
	} else {
		info_biggest_objects(h, set, &vo, &out);
	}
	sbuf_free(&out);
}

/* A broken promise: said, then abort() as a sanitizer would, so that
 * the fuzzer keeps the input. */
static _Noreturn __attribute__((format(printf, 1, 2))) void finding(const char *fmt, ...)
{
	va_list ap;

	fputs("fuzz: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* step.h's promise: the canonical text parses to the same steps, so
 * printing them again gives the same text. A difference is a finding. */
static void round_trip(const struct pipeline *pl)
{
	struct pipeline again = { 0 };
	struct sbuf a, b, err;

	sbuf_init(&a);
	sbuf_init(&b);
	sbuf_init(&err);
	pipeline_to_string(pl, &a);
	if (pipeline_parse(a.buf ? a.buf : "", &again, &err) != 0)
		finding("the canonical text '%s' does not parse: %s", a.buf, err.buf);
	pipeline_to_string(&again, &b);
	if (a.len != b.len || memcmp(a.buf, b.buf, a.len) != 0)
		finding("'%s' parses and prints as '%s'", a.buf, b.buf);
	pipeline_free(&again);
	sbuf_free(&a);
	sbuf_free(&b);
	sbuf_free(&err);
}

int fuzz_step(const uint8_t *data, size_t len)
{
	char *expr = xstrndup((const char *)data, len); /* the text up to a NUL */
	struct pipeline pl = { 0 };
	struct objset set;
	struct progress p;
	struct sbuf err;

	init_rich();
	progress_init(&p, 1);
	sbuf_init(&err);
	if (pipeline_parse(expr, &pl, &err) == 0) {
		round_trip(&pl);
		heap_need(&rich, HP_ALL, &p);
		objset_all(&rich, &set);
		int rc = 0;
		/* gone: main.c refuses it without a baseline, as here */
		for (size_t i = 0; i < pl.n && rc == 0; i++)
			rc = pl.steps[i].op == ST_GONE ? -1 : step_apply(&rich, &pl.steps[i], &set, &p, &err);
		if (rc == 0)
			one_view(&rich, pl.view, &set, &p);
		objset_free(&set);
		/* root and ignore change the heap's analyses: as dumped again */
		while (rich.nignored > 0)
			heap_ignore(&rich, rich.ignored[0].src, rich.ignored[0].dst, 0, &p);
		heap_set_root(&rich, 0, &p);
	}
	pipeline_free(&pl);
	sbuf_free(&err);
	free(expr);
	return 0;
}

static void rules_text(const struct ruleset *rs, struct sbuf *sb)
{
	for (size_t i = 0; i < rs->n; i++) {
		rule_to_string(rs, &rs->rules[i], sb);
		sbuf_addc(sb, '\n');
	}
}

/* The rules as `heapwalk rules` prints them; the canonical text of each
 * is a rule again, the same one (rules.h): parsed, it prints the same. */
static void print_rules(const struct ruleset *rs)
{
	struct ruleset *again = rules_new();
	struct sbuf a, b, err;

	sbuf_init(&a);
	sbuf_init(&b);
	sbuf_init(&err);
	rules_text(rs, &a);
	if (rules_parse(again, "again.rules", a.buf ? a.buf : "", a.len, &err) != 0)
		finding("the canonical rules do not parse: %s\n%s", err.buf, a.buf);
	rules_text(again, &b);
	if (a.len != b.len || memcmp(a.buf, b.buf, a.len) != 0)
		finding("the canonical rules\n%sparse and print as\n%s", a.buf, b.buf);
	rules_free(again);
	sbuf_free(&a);
	sbuf_free(&b);
	sbuf_free(&err);
}

int fuzz_rules(const uint8_t *data, size_t len)
{
	struct ruleset *rs = rules_new();
	struct progress p;
	struct sbuf err;

	init_rich();
	progress_init(&p, 1);
	sbuf_init(&err);
	if (rules_parse(rs, "fuzz.rules", (const char *)data, len, &err) == 0) {
		print_rules(rs);
		if (rs->ngroups > 0)
			rules_enable(rs, rs->groups[0].name, 1);
		heap_apply_rules(&rich, rs, &p);
		struct objset set;
		struct sbuf out;
		sbuf_init(&out);
		objset_all(&rich, &set);
		inspections(&rich, &set, &p, &out);
		objset_free(&set);
		sbuf_free(&out);
		heap_apply_rules(&rich, NULL, &p); /* the next input starts where this one did */
	}
	rules_free(rs);
	sbuf_free(&err);
	return 0;
}

/* A V8 heap snapshot, parsed from the input's own bytes (so that a read
 * past them is caught), then read as a front end would: each node's
 * name, the edges of each node by the edge counts, every string
 * decoded. An index out of its range is a finding (abort). */
int fuzz_v8(const uint8_t *data, size_t len)
{
	struct warnings w = { .quiet = 1 };
	struct v8_snap s;
	struct sbuf err, out;

	(void)v8_probe(data, len);
	sbuf_init(&err);
	sbuf_init(&out);
	if (v8_parse("fuzz.heapsnapshot", data, len, 0, &s, NULL, &w, &err) == 0) {
		uint64_t e = 0;
		for (uint32_t i = 0; i < s.nnodes; e += s.nedges_of[i], i++)
			if (s.nname[i] != HW_NONE) {
				if (s.nname[i] >= s.nstr)
					abort();
				sbuf_reset(&out);
				v8_string(data, len, s.str_off[s.nname[i]], &out, 64);
			}
		if (e != s.nedges)
			abort();
		for (uint32_t i = 0; i < s.nedges; i++)
			if (s.eto[i] != HW_NONE && s.eto[i] >= s.nnodes)
				abort();
		for (uint32_t i = 0; i < s.nstr; i++) {
			sbuf_reset(&out);
			v8_string(data, len, s.str_off[i], &out, 64);
		}
		v8_snap_free(&s);
		/* what the JSON reader took, through the heap and every view */
		open_all_views("in.heapsnapshot", data, len);
	}
	warn_free(&w);
	sbuf_free(&err);
	sbuf_free(&out);
	return 0;
}
