/* hprofgen.c — a synthetic HotSpot heap dump of any number of objects,
 * written at disk speed, with what a reader must find in it beside it:
 * the benchmark dumps of heaps larger than the machine (issue 19).
 *
 *   hprofgen -n OBJECTS -o FILE.hprof [--seed S] [--fsync]
 *
 * FILE.hprof is laid out as OpenJDK 17's `jcmd GC.heap_dump` writes a
 * 64-bit heap with compressed oops: "JAVA PROFILE 1.0.2", identifiers of
 * 8 bytes; UTF8 and LOAD_CLASS records; a dummy stack trace, then FRAME
 * and TRACE records per thread; heap dump segments of at most 1 MiB (a
 * record longer than that alone in its own) holding the class dumps, then
 * every object in address order, then the GC roots (per thread its thread
 * object and Java frame locals, then JNI globals, then a sticky class root
 * per class of the boot loader); HEAP_DUMP_END.
 *
 * Object ids are addresses, each object starting where the one before
 * ends, at its size in the JVM (12-byte header, 16 for arrays, 4-byte
 * references, 8-byte alignment; the classes' sizes are those jcmd's class
 * histogram reports): first the class mirrors (112 bytes plus statics),
 * then the objects the JVM and the application start with (class
 * loaders, threads), the planted holders, the bulk, and a registry that
 * holds the bulk, kept by main's frame. The bulk is units drawn at random
 * (seeded): Strings with their byte[], ArrayLists of Strings and boxed
 * numbers (some Strings shared with earlier units), HashMaps with their
 * Node[] tables and Nodes, chains of ChainNodes (a few of 100,000),
 * primitive arrays up to 8 MB; its units are gathered by ArrayLists of
 * 1024, those by more, up to the registry. References point forward only
 * within what is laid out at once (a map, a list), else backward, so the
 * writer remembers a bounded amount whatever OBJECTS is: memory is O(1).
 *
 * The planted structure: holders each kept by one JNI global only, each
 * the only way to its chain and its HashMap of Strings, so it retains
 * exactly what was written for it; two of them also refer to one shared
 * String, which only the virtual root dominates.
 *
 * FILE.expect (FILE.hprof.expect when the name does not end in .hprof),
 * one fact a line, numbers decimal, ids 0x hex, '#' a comment:
 *   seed S
 *   objects N            every object, class mirrors included
 *   heap_bytes B         their JVM sizes summed
 *   classes C            class dumps
 *   layout compressed_oops 1 object_header 12 array_header 16 alignment 8
 *   roots thread T frame F jni J sticky S     root records by kind
 *   class NAME COUNT BYTES   per class with instances, NAME as jcmd's
 *                        class histogram writes it; java.lang.Class
 *                        counts the mirrors
 *   holder ID BYTES OBJECTS DEEP  a planted holder, what it retains, and the
 *                        bytes it reaches (retained plus the shared String)
 *   shared ID BYTES OBJECTS  the String two holders share, and its byte[]
 *
 * The same seed and OBJECTS give the same bytes. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "hprofgen.h"

/* ---- the expectations ---- */

static void write_expect(const struct gen *g, const char *path, uint64_t seed)
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		die("%s: %s", path, strerror(errno));
	die_unlink(path);
	fprintf(f, "# hprofgen: what the dump holds (see bench/hprofgen.c)\n");
	fprintf(f, "seed %llu\nobjects %llu\nheap_bytes %llu\nclasses %d\n", (unsigned long long)seed,
		(unsigned long long)g->objects, (unsigned long long)g->heap_bytes, NCLS);
	fprintf(f, "layout compressed_oops 1 object_header 12 array_header 16 alignment 8\n");
	fprintf(f, "roots thread %u frame %u jni %u sticky %u\n", g->roots_thread, g->roots_frame,
		g->roots_jni, g->roots_sticky);
	for (int k = 0; k < NCLS; k++) {
		if (g->count[k] == 0)
			continue;
		fputs("class ", f);
		for (const char *p = classes[k].name; *p; p++)
			fputc(*p == '/' ? '.' : *p, f);
		fprintf(f, " %llu %llu\n", (unsigned long long)g->count[k], (unsigned long long)g->bytes[k]);
	}
	for (int i = 0; i < NPLANTS; i++) /* what it reaches: the shared String too */
		fprintf(f, "holder 0x%llx %llu %llu %llu\n", (unsigned long long)g->holder[i],
			(unsigned long long)g->holder_bytes[i], (unsigned long long)g->holder_objs[i],
			(unsigned long long)g->holder_deep[i]);
	fprintf(f, "shared 0x%llx %llu %llu\n", (unsigned long long)g->boot[B_SHARED],
		(unsigned long long)g->shared_bytes, (unsigned long long)g->shared_objs);
	if (ferror(f) | fclose(f))
		die("%s: write error", path);
}


/* ---- main ---- */

static void usage(void)
{
	fputs("usage: hprofgen -n OBJECTS -o FILE.hprof [--seed S] [--fsync]\n"
	      "  writes a synthetic OpenJDK 17 heap dump of about OBJECTS objects (k, M, G:\n"
	      "  10^3, 10^6, 10^9; the fixed part alone is some 28,500) and FILE.expect,\n"
	      "  what it holds\n", stderr);
	exit(2);
}

static uint64_t number(const char *s)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	uint64_t mul = *end == 'k' ? 1000 : *end == 'M' ? 1000000 : *end == 'G' ? 1000000000 : 1;

	end += mul != 1;
	if (errno || end == s || *end || *s == '-' || v > UINT64_MAX / mul)
		die("not a number: %s", s);
	return v * mul;
}

static void *scratch(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (p == NULL)
		die("out of memory");
	return p;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "fsync", no_argument, NULL, 'F' },
		{ NULL, 0, NULL, 0 },
	};
	static struct gen G;
	struct gen *g = &G;
	const char *path = NULL;
	uint64_t seed = 1;
	int c, sync = 0, have_n = 0;

	while ((c = getopt_long(argc, argv, "n:o:", longopts, NULL)) != -1)
		switch (c) {
		case 'n': g->target = number(optarg); have_n = 1; break;
		case 'o': path = optarg; break;
		case 's': seed = number(optarg); break;
		case 'F': sync = 1; break;
		default: usage();
		}
	if (!have_n || path == NULL || optind != argc)
		usage();
	size_t pl = strlen(path);
	char *expect = scratch(pl + 8, 1);
	int suffix = pl > 6 && strcmp(path + pl - 6, ".hprof") == 0;
	snprintf(expect, pl + 8, "%.*s.expect", (int)(suffix ? pl - 6 : pl), path);

	double t0 = now();
	g->rng = seed;
	g->ids = scratch(MAX_ENTRIES, sizeof *g->ids);
	g->tab = scratch(MAX_ENTRIES, sizeof *g->tab);
	g->hash = scratch(MAX_ENTRIES, sizeof *g->hash);
	g->next = scratch(MAX_ENTRIES, sizeof *g->next);
	g->tail = scratch(MAX_ENTRIES, sizeof *g->tail);
	g->kind = scratch(MAX_ENTRIES, 1);
	g->klen = scratch(MAX_ENTRIES, 1);
	plan(g);
	dump_setup(g);

	out_open(&g->o, path, DUMP_TIME_MS);
	write_preamble(g);
	write_boot(g);
	write_planted(g);
	while (g->objects < g->target)
		push(g, 0, unit(g));
	write_registry(g);
	write_roots(g);
	out_close(&g->o, sync);
	write_expect(g, expect, seed);

	double dt = now() - t0;
	fprintf(stderr, "hprofgen: %s: %llu objects, %llu bytes of heap, %llu bytes in %.2f s: "
		"%.0f MB/s, %.2f M objects/s%s\n", path, (unsigned long long)g->objects,
		(unsigned long long)g->heap_bytes, (unsigned long long)g->o.flushed, dt,
		g->o.flushed / 1e6 / dt, g->objects / 1e6 / dt, sync ? " (fsync'd)" : "");
	free(expect);
	return 0;
}
