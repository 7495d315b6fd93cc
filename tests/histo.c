/* histo.c — a JVM's class histogram (jcmd GC.class_histogram) against
 * heapwalk's classes view of the dump taken beside it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "histo.h"
#include "suites.h"
#include "util.h"

static void add_row(struct hist *h, const char *name, unsigned long long c, unsigned long long b)
{
	for (size_t i = 0; i < h->n; i++) /* one class name, several loaders: add up */
		if (strcmp(h->r[i].name, name) == 0) {
			h->r[i].count += c;
			h->r[i].bytes += b;
			return;
		}
	h->r = xreallocarray(h->r, h->n + 1, sizeof *h->r);
	h->r[h->n++] = (struct hrow){ xstrdup(name), c, b };
}

void read_histo(const char *path, struct hist *h)
{
	FILE *f = fopen(path, "r");
	char line[4096], name[2048];
	unsigned long long c, b;

	ck_assert_msg(f != NULL, "cannot read %s", path);
	while (fgets(line, sizeof line, f))
		if (sscanf(line, " %*d: %llu %llu %2047s", &c, &b, name) == 3)
			add_row(h, name, c, b);
	fclose(f);
}

void parse_csv(char *csv, struct hist *h)
{
	char *save = NULL;

	for (char *line = strtok_r(csv, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "class,", 6) == 0)
			continue;
		/* the name may be quoted; the numbers are the next two fields */
		char *p = line, *name = line;
		if (*p == '"') {
			name = ++p;
			while (*p && !(p[0] == '"' && p[1] != '"'))
				p += p[0] == '"' ? 2 : 1;
			*p++ = '\0';
		} else {
			p = strchr(p, ',');
			ck_assert(p != NULL);
			*p = '\0';
			p++;
		}
		if (*p == ',')
			p++;
		unsigned long long c, b;
		ck_assert_msg(sscanf(p, "%llu,%llu", &c, &b) == 2, "bad csv line %s", line);
		add_row(h, name, c, b);
	}
}

unsigned long long hist_find(const struct hist *h, const char *name, int bytes)
{
	for (size_t i = 0; i < h->n; i++)
		if (strcmp(h->r[i].name, name) == 0)
			return bytes ? h->r[i].bytes : h->r[i].count;
	return 0;
}

void free_hist(struct hist *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->r[i].name);
	free(h->r);
}

void check_histogram(const char *name, const char *hprof, const char *histo, int all_bytes)
{
	struct hist want = { 0 }, got = { 0 };
	char cmd[1024];
	int st;

	read_histo(histo, &want);
	snprintf(cmd, sizeof cmd, "%s -q --no-cache classes --all -f csv %s", heapwalk(), hprof);
	char *csv = run(cmd, &st);
	ck_assert_msg(st == 0, "%s exited %d", cmd, st);
	parse_csv(csv, &got);
	free(csv);
	ck_assert_uint_gt(want.n, 200); /* the workload and the JDK: hundreds of classes */
	size_t classes = 0, bad_bytes = 0;
	for (size_t i = 0; i < want.n; i++) {
		const struct hrow *w = &want.r[i];
		if (strcmp(w->name, "java.lang.Class") == 0)
			continue; /* counted differently, see heapwalk(1) SIZES */
		classes++;
		unsigned long long c = hist_find(&got, w->name, 0), b = hist_find(&got, w->name, 1);
		ck_assert_msg(c == w->count, "%s: %s: %llu instances, histogram says %llu",
			      name, w->name, c, w->count);
		if (b != w->bytes) {
			fprintf(stderr, "%s: %s: %llu bytes, histogram says %llu\n", name, w->name, b, w->bytes);
			bad_bytes++;
		}
	}
	for (size_t i = 0; i < got.n; i++) /* nothing the JVM does not have */
		if (strcmp(got.r[i].name, "java.lang.Class") != 0 && got.r[i].count > 0)
			ck_assert_msg(hist_find(&want, got.r[i].name, 0) == got.r[i].count,
				      "%s: %s in the dump but not in the histogram", name, got.r[i].name);
	/* at least 99% of classes with exactly the JVM's bytes (all of them
	 * when the JVM told the sizes) */
	ck_assert_msg(all_bytes ? bad_bytes == 0 : bad_bytes * 100 <= classes,
		      "%s: %zu of %zu classes differ in bytes", name, bad_bytes, classes);
	free_hist(&want);
	free_hist(&got);
}

