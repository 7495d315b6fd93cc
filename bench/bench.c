/* bench.c — the benchmark driver `make bench` runs on each dump: phase
 * timings of a cold open, engine memory, cache write and cached reopen,
 * the exact retained size of one class's instances, and of the 44
 * biggest classes at once (retained_sets) against one at a time, the
 * rules applied and toggled, and every inspection over the whole heap.
 * Figures go to stdout as "key: value" lines; nothing here is a test. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "graph/analysis.h"
#include "graph/cache.h"
#include "engine/open.h"
#include "graph/ownership.h"
#include "graph/retained.h"
#include "graph/rules.h"
#include "query/inspect.h"
#include "query/merged.h"
#include "query/objset.h"

/* Bytes the engine's arrays take for a heap with all of them loaded
 * (heap_need(HP_ALL)): from the counts, whatever is in memory now. */
static uint64_t engine_bytes(const struct heap *h)
{
	uint64_t n = (uint64_t)h->n + 1, e = h->nedges;
	uint64_t b = 0;

	b += n * (sizeof *h->node_off + sizeof *h->node_class +
		  sizeof *h->node_shallow + sizeof *h->node_kind);
	b += 2 * n * sizeof(edge_t) + e * sizeof(node_t) + (e + h->nroots) * sizeof(node_t);
	b += h->nweak * 2 * sizeof(node_t);
	b += n * (sizeof *h->idom + sizeof *h->retained);
	if (h->dom_start)
		b += 2 * n * sizeof(node_t);
	b += h->nroot_rec * sizeof *h->root_rec + h->nroots * sizeof(node_t);
	b += (uint64_t)h->ncls * sizeof *h->cls + (uint64_t)h->nfields * sizeof *h->fields;
	b += h->names_len;
	return b;
}

/* Resident kB of the dump's own mapping, to leave out of peak RSS. */
static long mapped_kb(const char *path)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[4096];
	int in = 0;
	long kb = 0, v;

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof line, f)) {
		if (strchr(line, '-') && strchr(line, ' ') && strchr(line, '/'))
			in = strstr(line, path) != NULL;
		else if (in && sscanf(line, "Rss: %ld kB", &v) == 1)
			kb += v;
	}
	fclose(f);
	return kb;
}

/* The rules the command line applies by default (rules/jdk.rules), so
 * that the cache this writes is the one heapwalk then reads. */
static struct ruleset *default_rules(void)
{
	static struct ruleset *rs;
	struct sbuf err;

	if (rs == NULL) {
		rs = rules_new();
		sbuf_init(&err);
		if (rules_load_default(rs, &err) < 0) {
			fprintf(stderr, "bench: %s\n", err.buf);
			exit(2);
		}
		sbuf_free(&err);
	}
	return rs;
}

/* ---- where the memory goes: a thread samples the process's anonymous
 * and file-backed resident memory every 2 ms, and files each sample
 * under the phase the open is in (struct progress: the phase running,
 * or the time after the last one ended, "between"), keeping the peak. */

#define MAXPH 32
struct sampler {
	struct progress *p;
	volatile int stop;
	long anon[MAXPH][2], file[MAXPH][2]; /* [phase][0 in it, 1 after it] kB */
	long peak_anon, peak_file;
	pthread_t th;
};

static void rss_kb(long *anon, long *file)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];

	*anon = *file = 0;
	if (f == NULL)
		return;
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "RssAnon:", 8) == 0)
			*anon = atol(line + 8);
		else if (strncmp(line, "RssFile:", 8) == 0)
			*file = atol(line + 8);
	}
	fclose(f);
}

static void *sample(void *arg)
{
	struct sampler *s = arg;
	struct timespec ts = { 0, 2000000 };

	while (!s->stop) {
		long a, f;
		/* read before the sample: a phase that ends meanwhile is charged
		 * the sample, never the next one */
		int k = s->p->ndone, after = s->p->phase == NULL;
		rss_kb(&a, &f);
		int i = after ? k - 1 : k;
		if (i < 0) {
			i = 0;
			after = 0;
		}
		if (i < MAXPH) {
			if (a > s->anon[i][after])
				s->anon[i][after] = a;
			if (f > s->file[i][after])
				s->file[i][after] = f;
		}
		if (a > s->peak_anon)
			s->peak_anon = a;
		if (f > s->peak_file)
			s->peak_file = f;
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void sampler_start(struct sampler *s, struct progress *p)
{
	memset(s, 0, sizeof *s);
	s->p = p;
	if (pthread_create(&s->th, NULL, sample, s) != 0)
		s->p = NULL;
}

/* The table of phases: time, peak anonymous and file-backed memory in
 * each and after it (until the next began), anonymous bytes per object. */
static void sampler_report(struct sampler *s, const struct progress *p, node_t n)
{
	if (s->p == NULL)
		return;
	s->stop = 1;
	pthread_join(s->th, NULL);
	double obj = n > 1 ? (double)(n - 1) : 1;
	printf("%-16s %8s %10s %10s %10s\n", "phase", "seconds", "anon_mb", "anon_B/obj", "file_mb");
	for (int i = 0; i < p->ndone && i < MAXPH; i++)
		for (int after = 0; after < 2; after++) {
			char secs[32] = "";
			if (after && s->anon[i][1] == 0)
				continue;
			if (!after)
				snprintf(secs, sizeof secs, "%.3f", p->done[i].secs);
			printf("%-16s %8s %10.0f %10.1f %10.0f\n", after ? "  (after it)" : p->done[i].name, secs,
			       s->anon[i][after] / 1024.0, s->anon[i][after] * 1024.0 / obj, s->file[i][after] / 1024.0);
		}
	printf("peak_anon_mb: %.0f\npeak_anon_bytes_per_object: %.1f\npeak_file_mb: %.0f\n",
	       s->peak_anon / 1024.0, s->peak_anon * 1024.0 / obj, s->peak_file / 1024.0);
}

/* With s: its sampling runs through the open (sampler_report ends it). */
static int open_dump_sampled(struct heap *h, const char *path, int no_cache, struct progress *p,
			     struct sampler *s)
{
	struct open_opts o = { .no_cache = no_cache, .quiet = 1, .rules = default_rules() };
	struct sbuf err;

	sbuf_init(&err);
	progress_init(p, 1);
	if (s != NULL)
		sampler_start(s, p);
	if (heap_open(h, path, &o, p, &err) < 0) {
		fprintf(stderr, "bench: %s\n", err.buf);
		exit(2);
	}
	sbuf_free(&err);
	return 0;
}

static int open_dump(struct heap *h, const char *path, int no_cache, struct progress *p)
{
	return open_dump_sampled(h, path, no_cache, p, NULL);
}

/* A kB figure of /proc/self/status ("VmRSS", "VmHWM"), 0 if unknown. */
static long status_kb(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = 0;
	size_t n = strlen(key);

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, key, n) == 0 && line[n] == ':')
			kb = atol(line + n + 1);
	fclose(f);
	return kb;
}

/* Shallow size descending, then class index. */
static int cmp_shallow(const void *a, const void *b, void *ctx)
{
	const struct heap *h = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t sx = h->cls[x].shallow_total, sy = h->cls[y].shallow_total;

	return sx != sy ? (sx < sy ? 1 : -1) : (x > y) - (x < y);
}

/* The classes view's E on 44 rows: the exact retained sizes of the 44
 * classes of the largest shallow size, in one call, against one
 * analysis_retained_set per class for the first few (all of them would
 * make the benchmark minutes longer). The peak resident memory the call
 * adds is read off VmHWM after resetting it (Linux). */
static void exact_classes(struct heap *hp)
{
	enum { ROWS = 44, OLD = 4 };
	uint32_t *cls = xmalloc(((size_t)hp->ncls + 1) * sizeof *cls);
	size_t n = hp->ncls < ROWS ? hp->ncls : ROWS, start[ROWS + 1];
	uint64_t bytes[ROWS], count[ROWS];

	for (uint32_t c = 0; c < hp->ncls; c++)
		cls[c] = c;
	hw_sort(cls, hp->ncls, sizeof *cls, cmp_shallow, hp);
	for (size_t i = 0; i <= n; i++)
		start[i] = i;
	struct class_sets s = { .n = n, .start = start, .cls = cls };
	retained_forget(hp); /* computed, not remembered */
	FILE *f = fopen("/proc/self/clear_refs", "w");
	int reset = f != NULL && fputs("5", f) >= 0; /* "5": reset the peak resident size */
	if (f != NULL && fclose(f) != 0)
		reset = 0;
	long rss0 = status_kb("VmRSS");
	double t0 = hw_now();
	retained_sets(hp, &s, bytes, count, NULL);
	double batch = hw_now() - t0;
	long added = status_kb("VmHWM") - rss0;
	printf("exact_retained_%zu_classes_batch_s: %.3f (%.4f s per row)\n", n, batch, batch / (double)n);
	if (reset)
		printf("exact_retained_batch_peak_added_mb: %.1f (%.1f bytes per object)\n", added / 1024.0,
		       added * 1024.0 / (hp->n - 1));
	/* at most: a word and a bit per node, and a node's index on the stack */
	printf("exact_retained_batch_allocated_max_mb: %.1f\n", (hp->n + 1) * (8 + 4 + 1 / 8.0) / 1048576.0);
	bits_t *set = xcalloc(bits_words(hp->n), sizeof *set);
	double old = 0;
	size_t same = 0, nold = n < OLD ? n : OLD;
	for (size_t i = 0; i < nold; i++) {
		for (node_t v = 1; v < hp->n; v++)
			if (hp->node_class[v] == cls[i])
				bit_set(set, v);
		uint64_t cnt;
		t0 = hw_now();
		uint64_t b = analysis_retained_set(hp, set, NULL, &cnt, NULL);
		old += hw_now() - t0;
		same += b == bytes[i] && cnt == count[i];
		memset(set, 0, bits_words(hp->n) * sizeof *set);
	}
	printf("exact_retained_one_at_a_time_s_per_row: %.4f (first %zu classes; %zu of them equal)\n",
	       old / (double)nold, nold, same);
	printf("exact_retained_%zu_classes_one_at_a_time_s_est: %.1f\n", n, old / (double)nold * (double)n);
	free(set);
	free(cls);
}

/* The merged views' drill-downs a user makes: for each kind and
 * grouping, the top level over every object and over the instances of
 * java.lang.String, then the biggest group (by objects; not GC roots)
 * expanded at levels 2 and 3; and GC roots to objects, the dominating
 * tree from the top, likewise. Seconds per expansion. */
static const char *const mg_kinds[] = { "outgoing", "incoming", "dominating", "roots_to_objects" };
static const char *const mg_bys[] = { "class", "field" };

/* The first group with objects (groups come biggest first). */
static const struct merged_group *biggest_group(const struct merged_level *l)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->groups[i].count > 0)
			return &l->groups[i];
	return NULL;
}

static void merged_drill(struct heap *hp, int k, int by, const char *what, const node_t *m, size_t n)
{
	struct merged_level l[3];
	const node_t *from = m;
	size_t nfrom = n;
	uint32_t pcls = HW_NONE;
	int depth;

	for (depth = 0; depth < 3; depth++) {
		double t0 = hw_now();
		if (k == 3) /* GC roots to objects: members stay the set */
			merged_level_down(hp, (enum merged_by)by, m, n, depth ? from : NULL, nfrom, pcls, &l[depth], NULL);
		else
			merged_level(hp, (enum merged_kind)k, (enum merged_by)by, k == MG_INCOMING, from, nfrom, pcls, &l[depth], NULL);
		printf("merged_%s_by_%s_%s_level%d_s: %.3f (%zu objects in, %zu groups)\n", mg_kinds[k],
		       mg_bys[by], what, depth + 1, hw_now() - t0, depth ? nfrom : n, l[depth].n);
		fflush(stdout);
		const struct merged_group *g = biggest_group(&l[depth]);
		if (g == NULL) {
			depth++;
			break;
		}
		from = g->nodes;
		nfrom = g->count;
		pcls = g->cls;
	}
	while (depth-- > 0)
		merged_level_free(&l[depth]);
}

/* kind and by: NULL for all, else the one to measure. */
static void merged_all(struct heap *hp, const char *kind, const char *by)
{
	struct objset all;
	node_t *strings = xmalloc((size_t)hp->n * sizeof *strings);
	size_t ns = 0;

	objset_all(hp, &all);
	node_t *m = objset_members(hp, &all);
	for (node_t v = 1; v < hp->n; v++)
		if (strcmp(class_name(hp, hp->node_class[v]), "java.lang.String") == 0)
			strings[ns++] = v;
	for (int k = MG_OUTGOING; k <= MG_DOMINATING + 1; k++)
		for (int b = MG_BY_CLASS; b <= MG_BY_FIELD; b++) {
			if ((kind && strcmp(kind, mg_kinds[k]) != 0) || (by && strcmp(by, mg_bys[b]) != 0))
				continue;
			merged_drill(hp, k, b, "all", m, (size_t)all.count);
			merged_drill(hp, k, b, "strings", strings, ns);
		}
	free(strings);
	free(m);
	objset_free(&all);
}

/* Rules (jdk.rules) applied, a group toggled off, then every inspection
 * over the whole heap. */
static void rules_and_inspections(struct heap *hp, struct progress *p)
{
	struct ruleset *rs = default_rules();
	struct sbuf err;
	struct objset all;
	size_t n;

	sbuf_init(&err);
	double t0 = hw_now();
	heap_apply_rules(hp, rs, p); /* the same rules again: the whole cost of an apply */
	printf("rules_apply_jdk_s: %.3f (%zu rules, %llu weak, %llu incidental references)\n",
	       hw_now() - t0, rs->n, (unsigned long long)hp->nweak, (unsigned long long)hp->nrx);
	for (size_t g = 0; g < rs->ngroups; g++) {
		rs->groups[g].enabled = 0;
		t0 = hw_now();
		heap_apply_rules(hp, rs, p);
		printf("rules_toggle_%s_off_s: %.3f\n", rs->groups[g].name, hw_now() - t0);
		rs->groups[g].enabled = 1;
	}
	heap_apply_rules(hp, rs, p);
	objset_all(hp, &all);
	const struct inspection *in = inspect_all(&n);
	for (size_t i = 0; i < n; i++) {
		struct insp_result r;
		const char *arg = strcmp(in[i].name, "string-regex") == 0 ? "password|token" : NULL;
		t0 = hw_now();
		sbuf_reset(&err);
		if (inspect_run(hp, &in[i], arg, &all, &r, p, &err) < 0) {
			printf("inspect_%s_s: failed: %s\n", in[i].name, err.buf);
			continue;
		}
		printf("inspect_%s_s: %.3f (%zu groups)\n", in[i].name, hw_now() - t0, r.n);
		insp_result_free(&r);
	}
	objset_free(&all);
	sbuf_free(&err);
}

/* --open DUMP (make bench-huge): one cold open that writes the cache,
 * its phases and the engine's bytes, then a reopen from the cache. */
static int open_only(const char *path)
{
	struct heap h;
	struct progress p;
	struct rusage ru;
	struct sampler smp;
	char *cache = cache_path(path);

	if (cache != NULL)
		unlink(cache);
	double t0 = hw_now();
	open_dump_sampled(&h, path, 0, &p, &smp);
	double cold = hw_now() - t0;
	printf("objects: %u\nreferences: %llu\n", h.n - 1, (unsigned long long)h.nedges);
	for (int i = 0; i < p.ndone; i++)
		printf("phase %-15s %8.3f s  %10.0f objects/s\n", p.done[i].name, p.done[i].secs,
		       (double)(h.n - 1) / (p.done[i].secs > 0 ? p.done[i].secs : 1e-9));
	sampler_report(&smp, &p, h.n);
	uint64_t eb = engine_bytes(&h);
	getrusage(RUSAGE_SELF, &ru);
	printf("cold_open_and_cache_s: %.3f\ncold_open_objects_per_s: %.0f\ncold_open_mb_per_s: %.1f\n"
	       "engine_bytes_per_object: %.1f\nprocess_peak_rss_mb: %.1f\n", cold, (double)(h.n - 1) / cold,
	       (double)h.size / 1e6 / cold, (double)eb / (h.n - 1), ru.ru_maxrss / 1024.0);
	heap_free(&h);
	t0 = hw_now();
	open_dump(&h, path, 0, &p);
	printf("cached_reopen_to_histogram_s: %.3f\nfrom_cache: %d\n", hw_now() - t0, h.from_cache);
	heap_free(&h);
	free(cache);
	rules_free(default_rules());
	return 0;
}

/* --retained DUMP ID...: from the cache (made by --open), each object's
 * class and retained size ("ID CLASS BYTES"), loading only the ids, the
 * classes and the retained sizes: what make bench-huge checks the
 * planted objects by, on a heap whose whole graph the memory cannot
 * hold. */
static int retained_of(const char *path, char **ids, int n)
{
	struct heap h;
	struct progress p;

	open_dump(&h, path, 0, &p);
	heap_load(&h, HP_IDS | HP_CLASS | HP_RETAINED, &p);
	for (int i = 0; i < n; i++) {
		node_t v = heap_find_id(&h, strtoull(ids[i], NULL, 0));
		if (v == HW_NONE) {
			printf("%s none 0\n", ids[i]);
			continue;
		}
		printf("%s %s %llu\n", ids[i], class_name(&h, h.node_class[v]), (unsigned long long)h.retained[v]);
	}
	printf("from_cache: %d\n", h.from_cache);
	heap_free(&h);
	rules_free(default_rules());
	return 0;
}

int main(int argc, char **argv)
{
	struct heap h;
	struct progress p;
	struct rusage ru;

	if (argc >= 3 && strcmp(argv[1], "--merged") == 0) { /* the merged part alone */
		open_dump(&h, argv[2], 0, &p);
		heap_need(&h, HP_ALL, &p);
		merged_all(&h, argc > 3 ? argv[3] : NULL, argc > 4 ? argv[4] : NULL);
		heap_free(&h);
		rules_free(default_rules());
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "--open") == 0)
		return open_only(argv[2]);
	if (argc >= 3 && strcmp(argv[1], "--retained") == 0)
		return retained_of(argv[2], argv + 3, argc - 3);
	if (argc != 2) {
		fprintf(stderr, "usage: bench_heapwalk DUMP | --merged DUMP [KIND [BY]] | --open DUMP | "
			"--retained DUMP ID...\n");
		return 1;
	}
	const char *path = argv[1];
	char *real = realpath(path, NULL);
	char *cache = cache_path(path);
	if (cache != NULL)
		unlink(cache);

	struct sampler smp;
	double t0 = hw_now();
	open_dump_sampled(&h, path, 1, &p, &smp);
	double cold = hw_now() - t0;
	double mb = (double)h.size / 1e6;
	printf("dump: %s\nsize_mb: %.1f\nobjects: %u\nreferences: %llu\n", path, mb, h.n - 1,
	       (unsigned long long)h.nedges);
	for (int i = 0; i < p.ndone; i++)
		printf("phase %-15s %7.3f s  %10.0f objects/s\n", p.done[i].name, p.done[i].secs,
		       (double)(h.n - 1) / (p.done[i].secs > 0 ? p.done[i].secs : 1e-9));
	sampler_report(&smp, &p, h.n); /* where the memory went, phase by phase */
	heap_need(&h, HP_ALL, &p); /* the open ends with the arrays parked */
	printf("cold_open_s: %.3f\ncold_open_objects_per_s: %.0f\ncold_open_mb_per_s: %.1f\n",
	       cold, (double)(h.n - 1) / cold, mb / cold);

	/* exact retained size of java.lang.String's instances */
	bits_t *set = xcalloc(bits_words(h.n), sizeof *set);
	uint64_t members = 0;
	for (node_t v = 1; v < h.n; v++)
		if (strcmp(class_name(&h, h.node_class[v]), "java.lang.String") == 0) {
			bit_set(set, v);
			members++;
		}
	t0 = hw_now();
	uint64_t cnt, bytes = analysis_retained_set(&h, set, NULL, &cnt, NULL);
	printf("string_instances: %llu\nstring_exact_retained_bytes: %llu\nstring_exact_retained_s: %.3f\n",
	       (unsigned long long)members, (unsigned long long)bytes, hw_now() - t0);
	free(set);

	uint64_t eb = engine_bytes(&h);
	printf("engine_bytes: %llu\nengine_bytes_per_object: %.1f\nengine_bytes_per_reference: %.1f\n",
	       (unsigned long long)eb, (double)eb / (h.n - 1), (double)eb / (double)(h.nedges ? h.nedges : 1));
	long dump_kb = mapped_kb(real ? real : path);
	getrusage(RUSAGE_SELF, &ru);
	printf("peak_rss_mb: %.1f\ndump_resident_mb: %.1f\n", ru.ru_maxrss / 1024.0, dump_kb / 1024.0);
	printf("peak_rss_minus_dump_bytes_per_object: %.1f\n",
	       ((double)ru.ru_maxrss - (double)dump_kb) * 1024.0 / (h.n - 1));
	heap_free(&h);

	t0 = hw_now();
	open_dump(&h, path, 0, &p); /* parses again and writes the cache */
	printf("open_and_write_cache_s: %.3f\n", hw_now() - t0);
	heap_free(&h);
	/* a cached open has the class histogram at once; the per-node arrays
	 * load when a view first needs them */
	t0 = hw_now();
	open_dump(&h, path, 0, &p);
	double reopen = hw_now() - t0;
	printf("cached_reopen_to_histogram_s: %.3f\nfrom_cache: %d\nreopen_speedup: %.1fx\n", reopen,
	       h.from_cache, cold / reopen);
	t0 = hw_now();
	heap_need(&h, HP_ALL, &p);
	double rest = hw_now() - t0;
	printf("cached_full_graph_load_s: %.3f\ncached_reopen_full_s: %.3f\nfull_reopen_speedup: %.1fx\n",
	       rest, reopen + rest, cold / (reopen + rest));
	exact_classes(&h);
	merged_all(&h, NULL, NULL);
	rules_and_inspections(&h, &p);
	heap_free(&h);
	free(real);
	free(cache);
	rules_free(default_rules());
	return 0;
}
