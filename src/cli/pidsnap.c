/* pidsnap.c — heapwalk PID (pidsnap.h): the process's directory in the
 * private cache directory, its snapshots numbered in it
 * (snap-000001.hprof, ...: the highest the newest), the runtime's own
 * way of taking one, chosen by the process's kind, and what the browser
 * is told of the baseline. */
#include "cli/pidsnap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/attach.h"
#include "cli/hsdump.h"
#include "cli/dotnet.h"
#include "cli/dotnet_mark.h"
#include "cli/node.h"
#include "engine/open.h" /* CLR_MARK_SUFFIX */
#include "graph/cache.h"

/* One runtime's snapshot: file written, prev (the newest snapshot before
 * it of the process, or NULL) and what the runtime can say about old and
 * new objects give r's baseline and line. */
struct kind {
	enum proc_kind kind;
	const char *ext;
	int (*take)(const struct proc_info *p, const char *file, const char *prev, int quiet, struct pidsnap *r,
		    struct sbuf *err);
};

/* "snap-000001.hprof (12:00:03)": a snapshot's name and time, escaped */
static void name_of(struct sbuf *out, const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	struct stat st;
	struct tm tm;
	char t[16] = "";

	esc_append(out, (const uint8_t *)base, strlen(base), 0);
	if (stat(path, &st) == 0 && localtime_r(&st.st_mtime, &tm) != NULL)
		strftime(t, sizeof t, "%H:%M:%S", &tm);
	if (*t)
		sbuf_printf(out, " of %s", t);
}

static char *said_prev(const struct proc_info *p, const char *prev, const char *after)
{
	struct sbuf sb;

	sbuf_init(&sb);
	sbuf_adds(&sb, "baseline: ");
	name_of(&sb, prev);
	sbuf_printf(&sb, ", the snapshot of PID %ld before this one%s", (long)p->pid, after);
	return sbuf_detach(&sb);
}

/* ---- the JVM: heapwalk's agent, ids that stay ---- */

/* The agent's "dump PATH objects=N bytes=N ms=N ...": its figures, after
 * the path (which may hold anything). */
static void jvm_figures(const struct proc_info *p, const char *res)
{
	const char *f = NULL;
	unsigned long long objects, bytes, ms;

	for (const char *q = strstr(res, " objects="); q != NULL; q = strstr(q + 1, " objects="))
		f = q;
	if (f != NULL && sscanf(f, " objects=%llu bytes=%llu ms=%llu", &objects, &bytes, &ms) == 3)
		fprintf(stderr, "heapwalk: PID %ld: %llu objects, %.1f MB written; the JVM paused at most %llu ms "
				"(the agent's time: a full GC, the heap's walks, the file)\n", (long)p->pid, objects,
			(double)bytes / 1e6, ms);
}

static int jvm_take(const struct proc_info *p, const char *file, const char *prev, int quiet, struct pidsnap *r,
		    struct sbuf *err)
{
	struct sbuf res;

	if (!quiet)
		fprintf(stderr, "heapwalk: PID %ld, a JVM: heapwalk's agent writes its heap...\n", (long)p->pid);
	sbuf_init(&res);
	int rc = agent_snapshot(p, file, &res, err);
	if (rc == 0 && !quiet)
		jvm_figures(p, res.buf ? res.buf : "");
	if (rc == -2) { /* the agent cannot be loaded into it: HotSpot's own dump, as snapshot does */
		if (!quiet)
			fprintf(stderr, "heapwalk: %s: HotSpot's own heap dump instead (no stable ids: old and new "
					"against it are inferred)\n", err->buf);
		sbuf_reset(err);
		rc = hs_dumpheap(p, file, 0, &res, err);
		if (rc == 0 && !quiet)
			fprintf(stderr, "heapwalk: %s\n", res.buf ? res.buf : "");
	}
	sbuf_free(&res);
	if (rc < 0)
		return -1;
	if (prev != NULL) {
		r->baseline = xstrdup(prev);
		r->says = said_prev(p, prev, "");
	} else {
		r->says = xasprintf("no baseline: the first snapshot of PID %ld here; the next heapwalk %ld "
				    "shows what is new since", (long)p->pid, (long)p->pid);
	}
	return 0;
}

/* ---- .NET: the runtime's heap dump; exact old and new need a mark ---- */

/* What the runtime did: its figures and its GC's time. */
static void clr_figures(long pid, const struct sbuf *res)
{
	fprintf(stderr, "heapwalk: %s\n", res->buf ? res->buf : "");
	if (dotnet_pause_ms() >= 0)
		fprintf(stderr, "heapwalk: PID %ld: the GC took %.0f ms (its start to its end, as the runtime "
				"timed them; its threads stopped)\n", pid, dotnet_pause_ms());
}

/* After a snapshot that ended the mark: a mark again at once (a second
 * GC, its heap in the mark's private directory), so that the next
 * snapshot is exact too. 1 if marked. */
static int clr_remark(const struct proc_info *p, int quiet)
{
	struct sbuf res, err;
	long pid = (long)p->pid;

	sbuf_init(&res);
	sbuf_init(&err);
	if (!quiet)
		fprintf(stderr, "heapwalk: PID %ld: marked again for the next snapshot (a second GC)...\n", pid);
	int rc = dotnet_mark(p, NULL, &res, &err);
	if (rc == 0 && !quiet)
		clr_figures(pid, &res);
	else if (rc < 0 && !quiet)
		fprintf(stderr, "heapwalk: PID %ld: not marked again (%s): the next heapwalk %ld marks it\n", pid,
			err.buf, pid);
	sbuf_free(&res);
	sbuf_free(&err);
	return rc == 0;
}

/* The line for a snapshot exact against the mark it ended: the mark's
 * heap is the snapshot before (heapwalk PID's first), or was taken
 * right after it (a mark again), or heapwalk mark's. */
static void clr_said_mark(struct sbuf *sb, long pid, const struct sbuf *heap, const char *prev)
{
	sbuf_adds(sb, "baseline: ");
	if (heap->len > 0) {
		name_of(sb, heap->buf);
		sbuf_printf(sb, ", the mark of PID %ld", pid);
	} else if (prev != NULL) {
		sbuf_printf(sb, "the mark of PID %ld made right after ", pid);
		name_of(sb, prev);
	} else {
		sbuf_printf(sb, "the mark of PID %ld (heapwalk mark)", pid);
	}
	sbuf_adds(sb, "; exact: its GC's moves recorded since");
}

/* A .NET process that has a mark: this snapshot ends it, exact against
 * the mark's heap (FILE's mark file), and marks it again. One that has
 * none: this snapshot marks it, so that the next is exact; against the
 * one before, if any, the baseline is inferred by content (the browser
 * says so). */
static int clr_take(const struct proc_info *p, const char *file, const char *prev, int quiet, struct pidsnap *r,
		    struct sbuf *err)
{
	struct sbuf heap, res, sb;
	long pid = (long)p->pid;

	sbuf_init(&heap);
	sbuf_init(&res);
	sbuf_init(&sb);
	int marked = dotnet_marked(p, &heap);
	if (!quiet)
		fprintf(stderr, "heapwalk: PID %ld, .NET: its runtime writes its heap in a full, blocking GC%s...\n",
			pid, marked ? "; the mark ends" : "; the process is marked");
	dotnet_progress(!quiet);
	int rc = marked ? dotnet_take(p, file, &res, err) : dotnet_mark(p, file, &res, err);
	if (rc == 0 && !quiet)
		clr_figures(pid, &res);
	char *mark = xasprintf("%s%s", file, CLR_MARK_SUFFIX);
	int exact = rc == 0 && marked && access(mark, F_OK) == 0;
	if (rc == 0 && marked)
		clr_remark(p, quiet);
	dotnet_progress(0);
	if (rc < 0) {
		/* nothing to say */
	} else if (exact) {
		clr_said_mark(&sb, pid, &heap, prev);
	} else if (prev != NULL) {
		char *said = said_prev(p, prev, marked ? " (the mark's file was not written: see above)"
							 : "; this one marks it: the next is exact against it");
		r->baseline = xstrdup(prev);
		sbuf_adds(&sb, said);
		free(said);
	} else if (marked) {
		sbuf_adds(&sb, "no baseline: the mark's file was not written (see above)");
	} else {
		sbuf_printf(&sb, "no baseline: this snapshot marks PID %ld; the next heapwalk %ld shows what is "
				 "new since, exactly", pid, pid);
	}
	r->says = sbuf_detach(&sb);
	free(mark);
	sbuf_free(&heap);
	sbuf_free(&res);
	return rc;
}

/* ---- Node: its inspector's V8 snapshot; inferred against the one before
 * (V8 clears its ids as each inspector session ends) ---- */

static int node_take(const struct proc_info *p, const char *file, const char *prev, int quiet, struct pidsnap *r,
		     struct sbuf *err)
{
	struct sbuf res;

	if (!quiet)
		fprintf(stderr, "heapwalk: PID %ld, Node: V8 writes its heap snapshot through the inspector, the "
				"process paused until it is whole...\n", (long)p->pid);
	sbuf_init(&res);
	int rc = node_snapshot(p, file, !quiet && isatty(2), &res, err);
	if (rc == 0 && !quiet)
		fprintf(stderr, "heapwalk: %s\n", res.buf ? res.buf : "");
	sbuf_free(&res);
	if (rc < 0)
		return -1;
	if (prev != NULL) {
		r->baseline = xstrdup(prev);
		r->says = said_prev(p, prev, " (inferred by content: V8 cleared its ids when that snapshot's "
					     "inspector session ended)");
	} else {
		r->says = xasprintf("no baseline: the first snapshot of PID %ld here; the next heapwalk %ld "
				    "shows what is new since (inferred)", (long)p->pid, (long)p->pid);
	}
	return 0;
}

/* One row per runtime heapwalk PID knows. */
static const struct kind kinds[] = {
	{ PROC_JVM, "hprof", jvm_take },
	{ PROC_DOTNET, "nettrace", clr_take },
	{ PROC_NODE, "heapsnapshot", node_take },
};

static const struct kind *kind_of(enum proc_kind k)
{
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
		if (kinds[i].kind == k)
			return &kinds[i];
	return NULL;
}

/* ---- the directories ---- */

int pidsnap_is_pid(const char *arg)
{
	struct stat st;

	if (*arg == '\0' || strspn(arg, "0123456789") != strlen(arg) || strlen(arg) > 10)
		return 0;
	return lstat(arg, &st) < 0 && errno == ENOENT;
}

/* The snapshots of dir numbered up to `upto`, and what goes with them
 * (FILE.hwi, FILE.hwmark, a temporary left): removed. The highest
 * number of those with suffix ext found, 0 if none. */
static unsigned sweep(const char *dir, unsigned upto, const char *ext)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned top = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		unsigned n;
		int end = 0;
		if (sscanf(e->d_name, "snap-%6u%n", &n, &end) != 1 || end != 11 || e->d_name[end] != '.')
			continue;
		if (n <= upto)
			unlinkat(dirfd(d), e->d_name, 0);
		else if (ext != NULL && strcmp(e->d_name + end + 1, ext) == 0 && n > top)
			top = n;
	}
	closedir(d);
	return top;
}

/* The directories of processes that have exited, in base: removed. */
static void remove_exited(const char *base)
{
	DIR *d = opendir(base);
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		long pid;
		unsigned long long start;
		int end = 0;
		if (sscanf(e->d_name, "pid-%ld-%llu%n", &pid, &start, &end) != 2 || e->d_name[end] != '\0')
			continue;
		struct proc_info q = { .pid = (pid_t)pid, .start = start };
		struct sbuf ignored;
		sbuf_init(&ignored);
		if (proc_same(&q, &ignored) < 0) {
			char *dir = xasprintf("%s/%s", base, e->d_name);
			if (dir_untrusted(dir, 0) == NULL) {
				sweep(dir, ~0u, NULL);
				rmdir(dir);
			}
			free(dir);
		}
		sbuf_free(&ignored);
	}
	closedir(d);
}

/* p's directory, made: the path, or NULL with err. */
static char *proc_dir(const struct proc_info *p, struct sbuf *err)
{
	char *base = cache_private_dir();

	if (base == NULL) {
		sbuf_adds(err, "no private cache directory that can be trusted ($XDG_CACHE_HOME/heapwalk, "
			       "~/.cache/heapwalk): give the snapshot a file with -o FILE");
		return NULL;
	}
	remove_exited(base);
	char *d = xasprintf("%s/pid-%ld-%llu", base, (long)p->pid, p->start);
	const char *why;
	mkdir(d, 0700);
	free(base);
	if ((why = dir_untrusted(d, 1)) != NULL) {
		char *e = esc_str(d);
		sbuf_printf(err, "%s: %s: the snapshot is not written there (-o FILE writes it elsewhere)", e, why);
		free(e);
		free(d);
		return NULL;
	}
	return d;
}

int pidsnap_take(const struct proc_info *p, const char *out, int quiet, struct pidsnap *r, struct sbuf *err)
{
	const struct kind *k = kind_of(p->kind);
	char *dir = NULL, *prev = NULL;
	unsigned top = 0;

	memset(r, 0, sizeof *r);
	if (k == NULL) {
		sbuf_printf(err, "PID %ld: heapwalk PID cannot snapshot this runtime yet", (long)p->pid);
		return -1;
	}
	if (out != NULL) {
		r->file = xstrdup(out);
	} else {
		if ((dir = proc_dir(p, err)) == NULL)
			return -1;
		top = sweep(dir, 0, k->ext);
		if (top > 0)
			prev = xasprintf("%s/snap-%06u.%s", dir, top, k->ext);
		if (top >= 999999) {
			sbuf_printf(err, "%s: a million snapshots: remove the directory", dir);
			free(dir);
			free(prev);
			return -1;
		}
		r->file = xasprintf("%s/snap-%06u.%s", dir, top + 1, k->ext);
	}
	int rc = k->take(p, r->file, prev, quiet, r, err);
	if (rc == 0 && dir != NULL && top + 1 > PIDSNAP_KEEP) /* the new one, its baseline and one more stay */
		sweep(dir, top + 1 - PIDSNAP_KEEP, NULL);
	free(dir);
	free(prev);
	if (rc < 0)
		pidsnap_free(r);
	return rc;
}

void pidsnap_free(struct pidsnap *r)
{
	free(r->file);
	free(r->baseline);
	free(r->says);
	memset(r, 0, sizeof *r);
}
