/* drive.c — the private directory of the fuzzers' bodies and the bodies
 * of the inputs that are not dumps: an index cache, a step expression, a
 * rules file (see drive.h; the dumps' are in drive_dump.c). They call
 * the engine as src/cli/main.c does; the views are views.c's. */
#include "drive.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dumps.h"
#include "engine/open.h"
#include "graph/cache.h"
#include "graph/ownership.h"
#include "graph/resident.h"
#include "graph/rules.h"
#include "query/check.h"
#include "query/report.h"
#include "query/step.h"
#include "views.h"

/* ---- the private directory ---- */

static char dir[4096];
/* opened once, freed at exit: the dumps the cache fuzzer's inputs are
 * caches of, and the rich dump */
static struct heap cache_dump[FUZZ_CACHE_DUMPS], rich;
static int cache_ready[FUZZ_CACHE_DUMPS], rich_ready;

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
	for (int k = 0; k < FUZZ_CACHE_DUMPS; k++)
		if (cache_ready[k])
			heap_free(&cache_dump[k]);
	if (rich_ready)
		heap_free(&rich);
	memset(cache_ready, 0, sizeof cache_ready);
	rich_ready = 0;
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

void fuzz_put_file(const char *path, const void *data, size_t len)
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

int fuzz_open(struct heap *h, const char *path, int no_cache)
{
	struct open_opts o = { .no_cache = no_cache, .quiet = 1 };
	struct progress p;
	struct sbuf err;

	progress_init(&p, 1);
	sbuf_init(&err);
	int rc = heap_open(h, path, &o, &p, &err);
	sbuf_free(&err);
	return rc;
}

/* ---- the bodies ---- */

/* A file's bytes (caller frees), NULL if it cannot be read. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct sbuf sb;
	char buf[65536];
	size_t got;

	if (f == NULL)
		return NULL;
	sbuf_init(&sb);
	while ((got = fread(buf, 1, sizeof buf, f)) > 0)
		sbuf_add(&sb, buf, got);
	fclose(f);
	*len = sb.len;
	return sbuf_detach(&sb);
}

/* A V8 snapshot small enough to fuzz its cache: the root, the GC
 * roots, an object with a string, an array and a weak reference. */
static const char tiny_v8[] =
	"{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\",\"edge_count\","
	"\"trace_node_id\"],\"node_types\":[[\"hidden\",\"array\",\"string\",\"object\",\"code\",\"closure\","
	"\"native\"],\"string\",\"number\",\"number\",\"number\",\"number\"],\"edge_fields\":[\"type\","
	"\"name_or_index\",\"to_node\"],\"edge_types\":[[\"context\",\"element\",\"property\",\"internal\","
	"\"hidden\",\"shortcut\",\"weak\"],\"string_or_number\",\"node\"]},\"node_count\":6,\"edge_count\":7},\n"
	"\"nodes\":[0,0,1,0,2,0, 0,1,3,0,1,0, 3,2,5,32,3,0, 2,3,7,16,0,0, 1,4,9,40,1,0, 3,5,11,24,0,0],\n"
	"\"edges\":[1,1,6, 2,6,12, 1,0,12, 2,7,18, 3,8,24, 6,9,30, 1,0,30],\n"
	"\"strings\":[\"\",\"(GC roots)\",\"Foo\",\"hello \\u00e9\\n\",\"(object elements)\",\"Bar\",\"global\","
	"\"name\",\"elements\",\"cache\"]}\n";

/* Dump k of the cache fuzzer in the directory: the path, caller frees. */
static char *cache_dump_file(int k)
{
	static const char *const recorded[FUZZ_CACHE_DUMPS] = {
		NULL, "dotnet/workload-1.nettrace", "dotnet/workload.gcdump", "mono/workload.mlpd", NULL,
	};
	static const char *const name[FUZZ_CACHE_DUMPS] = {
		"cache.hprof", "cache.nettrace", "cache.gcdump", "cache.mlpd", "cache.heapsnapshot",
	};
	if (k == 0)
		return put_dump(name[0], fz_rich);
	char *path = xasprintf("%s/%s", fuzz_dir(), name[k]);
	if (recorded[k] == NULL) {
		fuzz_put_file(path, tiny_v8, sizeof tiny_v8 - 1);
		return path;
	}
	char *src = xasprintf("%s/%s", TEST_SRCDIR, recorded[k]);
	size_t n;
	char *bytes = slurp(src, &n);
	if (bytes == NULL)
		hw_fatal("%s: cannot read the cache fuzzer's dump", src);
	fuzz_put_file(path, bytes, n);
	free(bytes);
	free(src);
	return path;
}

static void init_cache_dump(int k)
{
	if (cache_ready[k])
		return;
	char *path = cache_dump_file(k);
	/* with the cache: this open writes the real one beside the dump */
	if (fuzz_open(&cache_dump[k], path, 0) < 0)
		hw_fatal("%s: the cache fuzzer's dump does not open", path);
	cache_ready[k] = 1;
	free(path);
}

void fuzz_init_cache(void)
{
	for (int k = 0; k < FUZZ_CACHE_DUMPS; k++)
		init_cache_dump(k);
}

/* The header's pad word, which picks the dump (0 in a real cache). */
#define PAD_AT offsetof(struct cache_header, pad)

uint8_t *fuzz_cache_seed(int k, size_t *len)
{
	init_cache_dump(k);
	char *path = cache_path(cache_dump[k].path);
	char *seed = slurp(path, len);

	if (seed == NULL)
		hw_fatal("%s: no cache was written", path);
	free(path);
	uint32_t pad = (uint32_t)k;
	if (*len >= PAD_AT + sizeof pad)
		memcpy(seed + PAD_AT, &pad, sizeof pad);
	return (uint8_t *)seed;
}

int fuzz_cache(const uint8_t *data, size_t len)
{
	uint32_t pad = 0;
	if (len >= PAD_AT + sizeof pad)
		memcpy(&pad, data + PAD_AT, sizeof pad);
	int k = (int)(pad % FUZZ_CACHE_DUMPS);
	init_cache_dump(k);
	uint8_t *buf = xmalloc(len + 1);
	char *path = cache_path(cache_dump[k].path);
	struct heap h;

	memcpy(buf, data, len);
	if (len >= PAD_AT + sizeof pad)
		memset(buf + PAD_AT, 0, sizeof pad); /* as a real cache has it */
	cache_reseal(buf, len, &cache_dump[k]); /* a forged cache, checksums and all */
	fuzz_put_file(path, buf, len);
	if (fuzz_open(&h, cache_dump[k].path, 0) == 0) {
		fz_all_views(&h);
		heap_free(&h);
	}
	free(buf);
	free(path);
	return 0;
}

size_t fuzz_cache_mutate(uint8_t *data, size_t len, size_t max, unsigned which,
			 size_t (*mutate)(uint8_t *p, size_t n, size_t max))
{
	return cache_mutate_section(data, len, max, which, mutate);
}

/* The rich dump, opened once without the cache. */
static void init_rich(void)
{
	if (rich_ready)
		return;
	char *path = put_dump("rich.hprof", fz_rich);
	if (fuzz_open(&rich, path, 1) < 0)
		hw_fatal("%s: the synthetic dump does not open", path);
	rich_ready = 1;
	free(path);
}

void fuzz_init_step(void) { init_rich(); }
void fuzz_init_rules(void) { init_rich(); }

void fuzz_finding(const char *fmt, ...)
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
		fuzz_finding("the canonical text '%s' does not parse: %s", a.buf, err.buf);
	pipeline_to_string(&again, &b);
	if (a.len != b.len || memcmp(a.buf, b.buf, a.len) != 0)
		fuzz_finding("'%s' parses and prints as '%s'", a.buf, b.buf);
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
			fz_one_view(&rich, pl.view, &set, &p);
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
		fuzz_finding("the canonical rules do not parse: %s\n%s", err.buf, a.buf);
	rules_text(again, &b);
	if (a.len != b.len || memcmp(a.buf, b.buf, a.len) != 0)
		fuzz_finding("the canonical rules\n%sparse and print as\n%s", a.buf, b.buf);
	rules_free(again);
	sbuf_free(&a);
	sbuf_free(&b);
	sbuf_free(&err);
}

int fuzz_gates(const uint8_t *data, size_t len)
{
	struct chk_rules rs;
	struct progress p;
	struct sbuf err, out;

	init_rich();
	progress_init(&p, 1);
	sbuf_init(&err);
	sbuf_init(&out);
	if (check_parse("fuzz.gates", (const char *)data, len, &rs, &err) == 0) {
		/* growth against the heap itself; leaks of nothing */
		struct objset none;
		heap_need(&rich, HP_ALL, &p);
		struct leaks_view lv;
		objset_empty(&rich, &none);
		view_leaks(&rich, &none, 0, &lv);
		check_eval(&rs, &rich, &rich, &lv, &p);
		for (enum fmt f = FMT_TEXT; f <= FMT_CSV; f++)
			report_check(&rs, "fuzz.hprof", "fuzz.gates", f, &out);
		check_junit(&rs, "fuzz.hprof", &out);
		check_eval(&rs, &rich, NULL, NULL, &p); /* and without: each such rule an error */
		leaks_view_free(&lv);
		objset_free(&none);
		check_free(&rs);
	} else if (err.len == 0 || strncmp(err.buf, "fuzz.gates:", 11) != 0) {
		fuzz_finding("a rules file refused without its name and line: '%s'", err.buf ? err.buf : "");
	}
	sbuf_free(&err);
	sbuf_free(&out);
	return 0;
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
		fz_inspections(&rich, &set, &p, &out);
		objset_free(&set);
		sbuf_free(&out);
		heap_apply_rules(&rich, NULL, &p); /* the next input starts where this one did */
	}
	rules_free(rs);
	sbuf_free(&err);
	return 0;
}
