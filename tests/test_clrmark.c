/* test_clrmark.c — heapwalk mark on a live .NET process, then snapshot:
 * which objects of the dump are new, object by object, against what the
 * workload itself made (tests/dotnet/Program.cs, "mark"): before the
 * mark Workload.OldItem objects, each with a Workload.Mark[3] (48 bytes),
 * and Mark[20000] on the large object heap (160024); after it NewItem
 * objects with a Mark[5] (64) and Mark[30000] (240024), some of the old
 * ones dropped in between and everything moved by compacting collections
 * (the large object heap too; with background GCs, Mark[15000] made while
 * one runs, 120024). Heapwalk knows none of this: it sees addresses, the
 * GC's moves and survivors, and types and sizes. And what leaves the
 * record in doubt (the recorder killed, a mark file of another trace,
 * one cut short) is said, never exact. Skipped, with a line, without
 * dotnet. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clrmark_rec.h"
#include "format/clr_mark.h"
#include "format/nettrace.h"
#include "suites.h"
#include "util.h"

#define MDIR TEST_BUILDDIR "/dumps/clrmark"
#define DN TEST_SRCDIR "/dotnet"
#define RUNDIR MDIR "/cache" /* XDG_CACHE_HOME: where the mark's private directory goes */
#define DNOUT TEST_BUILDDIR "/dumps/dotnet/out"

struct workload {
	pid_t pid;
	int hold; /* its standard input */
	char log[256];
};

/* The workload in mode "mark" (concurrent GC off; BGC: on, and background
 * GCs run after the mark; SERVER: the server GC, whose threads' events
 * come in any order). */
enum { PLAIN, BGC, SERVER };

static void start(struct workload *w, const char *name, int bgc)
{
	int in[2];

	ck_assert_int_eq(system("mkdir -p " RUNDIR), 0);
	snprintf(w->log, sizeof w->log, MDIR "/%s.log", name);
	unlink(w->log);
	ck_assert_int_eq(pipe(in), 0);
	w->pid = fork();
	ck_assert_int_ge(w->pid, 0);
	if (w->pid == 0) {
		int out = open(w->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (out < 0 || dup2(in[0], 0) < 0 || dup2(out, 1) < 0)
			_exit(126);
		close(in[1]);
		putenv(bgc == BGC ? "DOTNET_gcConcurrent=1" : "DOTNET_gcConcurrent=0");
		if (bgc == SERVER) /* a heap per core, a GC thread per heap */
			putenv("DOTNET_gcServer=1");
		execl(DNOUT "/Workload", "Workload", "mark", bgc == BGC ? "bgc" : NULL, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	w->hold = in[1];
}

/* The workload's log once it holds `what` (60 s at most); caller frees. */
static char *wait_for(const struct workload *w, const char *what)
{
	for (double end = now_seconds() + hang_seconds(60); now_seconds() < end;) {
		size_t n;
		int st = 0;
		char *said = access(w->log, R_OK) == 0 ? file_bytes(w->log, &n) : xstrdup("");
		if (strstr(said, what) != NULL)
			return said;
		free(said);
		ck_assert_msg(waitpid(w->pid, &st, WNOHANG) == 0, "the workload ended (status %d): see %s", st, w->log);
		usleep(100000);
	}
	ck_abort_msg("the workload did not say %s in 60 s: %s", what, w->log);
	return NULL;
}

static void stop(struct workload *w)
{
	close(w->hold);
	for (int i = 0; i < 300 && waitpid(w->pid, NULL, WNOHANG) != w->pid; i++)
		usleep(100000);
	kill(w->pid, SIGKILL); /* our own child, if it is still there */
	waitpid(w->pid, NULL, 0);
}

/* heapwalk ARGS with the test's private runtime directory: its output
 * (standard error too), its exit status in *rc. */
static char *hw(const char *args, int *rc)
{
	char cmd[2048];
	int st;

	snprintf(cmd, sizeof cmd, "XDG_CACHE_HOME=" RUNDIR " '%s' %s 2>&1", heapwalk(), args);
	char *out = run(cmd, &st);
	*rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return out;
}

/* Nothing pending for the process: it was spoken to, never signalled. */
static void assert_unsignalled(pid_t pid)
{
	char path[64];
	size_t n;

	snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
	char *s = file_bytes(path, &n);
	ck_assert_msg(strstr(s, "\nSigPnd:\t0000000000000000\n") && strstr(s, "\nShdPnd:\t0000000000000000\n"), "%s", s);
	free(s);
}

/* The workload marked, its objects made and moved, the snapshot in
 * dump: the snapshot's line. kill_recorder: the recorder killed first. */
static char *marked_snapshot(struct workload *w, const char *name, const char *dump, int kill_recorder,
			     int bgc, const char *keep, char **counts)
{
	char args[1024];
	int rc;

	start(w, name, bgc);
	free(wait_for(w, "\"pid\":"));
	unlink(dump);
	snprintf(args, sizeof args, "%s.hwmark", dump);
	unlink(args);
	if (keep != NULL)
		unlink(keep);
	snprintf(args, sizeof args, "mark %ld %s", (long)w->pid, keep ? keep : "");
	char *out = hw(args, &rc);
	char want[64];
	snprintf(want, sizeof want, "mark PID %ld at GC ", (long)w->pid);
	ck_assert_msg(rc == 0 && strncmp(out, want, strlen(want)) == 0, "%d: %s", rc, out);
	free(out);
	assert_unsignalled(w->pid);
	if (kill_recorder) { /* heapwalk's recorder, ours: named in the private directory */
		unsigned long long id;
		long rpid = 0;
		snprintf(args, sizeof args, "cat " RUNDIR "/heapwalk/dotnet-%ld-*/session", (long)w->pid);
		out = run(args, &rc);
		ck_assert_msg(sscanf(out, "%llu %ld", &id, &rpid) == 2 && rpid > 0, "%s", out);
		free(out);
		ck_assert_int_eq(kill((pid_t)rpid, SIGKILL), 0);
	}
	if (bgc == BGC) { /* the recorder's stream, kept for the test to read (a link: it goes on) */
		snprintf(args, sizeof args, "rm -f " MDIR "/%s-rec.nettrace && ln " RUNDIR "/heapwalk/dotnet-%ld-*/rec.nettrace "
			 MDIR "/%s-rec.nettrace", name, (long)w->pid, name);
		ck_assert_int_eq(system(args), 0);
	}
	ck_assert_int_eq(write(w->hold, "go\n", 3), 3);
	*counts = wait_for(w, "\"OldItem\":");
	snprintf(args, sizeof args, "snapshot %ld %s", (long)w->pid, dump);
	out = hw(args, &rc);
	ck_assert_msg(rc == 0, "%s", out);
	return out;
}

/* Which objects are new by what the workload made them: 1 new, 0 old,
 * -1 not the workload's. */
static int made_new(const char *cls, long shallow)
{
	if (strcmp(cls, "Workload.OldItem") == 0)
		return 0;
	if (strcmp(cls, "Workload.NewItem") == 0)
		return 1;
	if (strcmp(cls, "Workload.Mark[]") == 0 && (shallow == 48 || shallow == 160024))
		return 0;
	if (strcmp(cls, "Workload.Mark[]") == 0 && (shallow == 64 || shallow == 240024 || shallow == 120024))
		return 1;
	ck_assert_msg(strcmp(cls, "Workload.Mark[]") != 0, "a Mark[] of %ld bytes", shallow);
	return -1;
}

/* The instances of class cls in a classes CSV, 0 if no row. */
static long csv_count(const char *csv, const char *cls)
{
	char needle[256];
	snprintf(needle, sizeof needle, "\n%s,", cls);
	const char *p = strstr(csv, needle);
	return p ? strtol(p + strlen(needle), NULL, 10) : 0;
}

/* A row of objects' CSV: id, class (quoted when it holds a comma or a
 * quote), shallow; 1, or 0 if it is not one. */
static int csv_row(const char *line, char *id, size_t nid, char *cls, size_t ncls, long *shallow)
{
	const char *p = strchr(line, ',');
	size_t k = 0;

	if (p == NULL || (size_t)(p - line) >= nid)
		return 0;
	memcpy(id, line, (size_t)(p - line));
	id[p - line] = '\0';
	p++;
	if (*p == '"') {
		for (p++; *p && !(p[0] == '"' && p[1] != '"'); p++) {
			if (p[0] == '"') /* "" */
				p++;
			if (k + 1 < ncls)
				cls[k++] = *p;
		}
		if (*p++ != '"')
			return 0;
	} else {
		for (; *p && *p != ','; p++)
			if (k + 1 < ncls)
				cls[k++] = *p;
	}
	cls[k] = '\0';
	return *p == ',' && sscanf(p + 1, "%ld", shallow) == 1;
}

/* Every object of the workload's kinds in dump, new or old as heapwalk
 * says (the step new) and as the workload made it: the mismatches, and
 * how many of each kind there are. */
struct tally { long old_items, new_items, old_arrays, new_arrays, bigs, new_bigs, wrong; };

static void check_objects(const char *dump, const char *baseline, struct tally *t)
{
	char args[1024];
	int rc;

	memset(t, 0, sizeof *t);
	snprintf(args, sizeof args, "-q -f csv -n 0 %s%s -e new %s objects", baseline ? "--baseline " : "",
		 baseline ? baseline : "", dump);
	char *fresh = hw(args, &rc);
	/* (the output's end: an error follows the rows; Check's message has
	 * room for a few hundred bytes) */
	ck_assert_msg(rc == 0, "%d: ...%s", rc, fresh + (strlen(fresh) > 400 ? strlen(fresh) - 400 : 0));
	snprintf(args, sizeof args, "-q -f csv -n 0 %s objects", dump);
	char *all = hw(args, &rc);
	ck_assert_msg(rc == 0, "%d: ...%s", rc, all + (strlen(all) > 400 ? strlen(all) - 400 : 0));
	char *line = strchr(all, '\n');
	ck_assert_ptr_nonnull(line);
	for (line++; *line; ) {
		char *next = strchr(line, '\n');
		ck_assert_ptr_nonnull(next);
		*next = '\0';
		char id[40], cls[1000];
		long shallow;
		ck_assert_msg(csv_row(line, id, sizeof id, cls, sizeof cls, &shallow), "%s", line);
		int truth = made_new(cls, shallow);
		if (truth >= 0) {
			char needle[64];
			snprintf(needle, sizeof needle, "\n%s,", id);
			int said_new = strstr(fresh, needle) != NULL;
			if (said_new != truth && t->wrong++ < 5)
				fprintf(stderr, "clrmark: %s %s (%ld bytes) made %s, said %s\n", id, cls, shallow,
					truth ? "new" : "old", said_new ? "new" : "old");
			if (strcmp(cls, "Workload.Mark[]") != 0)
				*(truth ? &t->new_items : &t->old_items) += 1;
			else if (shallow > 1000)
				t->bigs++, t->new_bigs += truth;
			else
				*(truth ? &t->new_arrays : &t->old_arrays) += 1;
		}
		line = next + 1;
	}
	free(fresh);
	free(all);
}

/* The server GC: its threads' events out of order in both streams. */
START_TEST(test_mark_server_gc)
{
	struct workload w;
	char *counts;
	struct tally t;

	if (!dotnet_workload())
		return;
	char *said = marked_snapshot(&w, "server", MDIR "/server.nettrace", 0, SERVER, NULL, &counts);
	stop(&w);
	ck_assert_msg(strstr(said, "; mark: exact; of the ") != NULL, "%s", said);
	free(said);
	check_objects(MDIR "/server.nettrace", NULL, &t);
	ck_assert_int_eq(t.wrong, 0);
	ck_assert_int_eq(t.new_items, json_count(counts, "NewItem"));
	ck_assert_int_ge(t.old_items, json_count(counts, "OldItem"));
	free(counts);
}
END_TEST

START_TEST(test_mark_exact)
{
	struct workload w;
	char *counts, args[1024];
	int rc;

	if (!dotnet_workload())
		return;
	/* a mark of a process gone (no such pid): removed by the next mark */
	ck_assert_int_eq(system("mkdir -p -m 700 " RUNDIR "/heapwalk/dotnet-999999999-1 && touch " RUNDIR
				"/heapwalk/dotnet-999999999-1/mark " RUNDIR "/heapwalk/dotnet-999999999-1/rec.nettrace"), 0);
	char *said = marked_snapshot(&w, "exact", MDIR "/exact.nettrace", 0, 0, MDIR "/exact-mark.nettrace", &counts);
	ck_assert_int_ne(access(RUNDIR "/heapwalk/dotnet-999999999-1", F_OK), 0);
	ck_assert_msg(strstr(said, "; mark: exact; of the ") != NULL, "%s", said);
	free(said);
	/* the mark is spent: its private directory is gone, the recorder too */
	snprintf(args, sizeof args, "ls -d " RUNDIR "/heapwalk/dotnet-%ld-* 2>/dev/null | wc -l", (long)w.pid);
	char *n = run(args, &rc);
	ck_assert_str_eq(n, "0\n");
	free(n);
	stop(&w);
	struct tally t, tb;
	check_objects(MDIR "/exact.nettrace", NULL, &t);
	ck_assert_int_eq(t.wrong, 0);
	/* the mark's heap kept (mark PID FILE) is the baseline: the same */
	check_objects(MDIR "/exact.nettrace", MDIR "/exact-mark.nettrace", &tb);
	ck_assert_int_eq(tb.wrong, 0);
	ck_assert_mem_eq(&t, &tb, sizeof t);
	/* and the gone ones: the old kinds only, as many as there were less
	 * those still there */
	char *gone = hw("-q -f csv -n 0 --baseline " MDIR "/exact-mark.nettrace -e gone " MDIR "/exact.nettrace classes",
			&rc);
	char *before = hw("-q -f csv -n 0 " MDIR "/exact-mark.nettrace classes", &rc);
	ck_assert_int_eq(csv_count(gone, "Workload.OldItem"), csv_count(before, "Workload.OldItem") - t.old_items);
	ck_assert_int_gt(csv_count(gone, "Workload.OldItem"), 1000);
	ck_assert_int_eq(csv_count(gone, "Workload.NewItem"), 0);
	free(gone);
	free(before);
	char *diff = hw("-q diff " MDIR "/exact-mark.nettrace " MDIR "/exact.nettrace", &rc);
	ck_assert_msg(rc == 0 && strstr(diff, "\nidentity:            exact: the baseline is the heap at the mark ("),
		      "%.600s", diff);
	free(diff);
	/* all there: the new ones as made and kept (nothing else holds
	 * them), the old ones at least those kept (a kept one may hold one
	 * dropped), one array each, and the big arrays */
	ck_assert_int_eq(t.new_items, json_count(counts, "NewItem"));
	ck_assert_int_gt(t.new_items, 1000);
	ck_assert_int_ge(t.old_items, json_count(counts, "OldItem"));
	ck_assert_int_eq(t.new_arrays, t.new_items);
	ck_assert_int_eq(t.old_arrays, t.old_items);
	ck_assert_int_eq(t.bigs, json_count(counts, "OldBig") + json_count(counts, "NewBig"));
	free(counts);
	/* the answer says what it rests on */
	snprintf(args, sizeof args, "-q info " MDIR "/exact.nettrace");
	char *info = hw(args, &rc);
	ck_assert_msg(rc == 0 && strstr(info, "\nbaseline:                 exact: marked at ") &&
		      strstr(info, "the GC's moves replayed through"), "%s", info);
	free(info);
}
END_TEST

/* The recorder killed between the mark and the snapshot: its stream cut
 * short; the answer is given, and says it is not exact and why. */
START_TEST(test_mark_recorder_killed)
{
	struct workload w;
	char *counts, args[1024];
	int rc;

	if (!dotnet_workload())
		return;
	char *said = marked_snapshot(&w, "killed", MDIR "/killed.nettrace", 1, 0, NULL, &counts);
	free(counts);
	stop(&w);
	ck_assert_msg(strstr(said, "; mark: not exact; ") && strstr(said, "the recorder ended before its stream did"),
		      "%s", said);
	free(said);
	snprintf(args, sizeof args, "-q -e new " MDIR "/killed.nettrace classes");
	char *out = hw(args, &rc);
	ck_assert_msg(rc == 0 && strncmp(out, "identity:   not exact: the recorder ended before its stream did", 63) == 0,
		      "%s", out);
	free(out);
	snprintf(args, sizeof args, "-q info " MDIR "/killed.nettrace");
	out = hw(args, &rc);
	ck_assert_msg(rc == 0 && strstr(out, "\nbaseline:                 not exact: the recorder ended before"),
		      "%s", out);
	free(out);
}
END_TEST

/* The background GCs of a recorder's stream after GC mark_gc that
 * provably ran in the background: a GC began inside one (by time), or
 * its end came from another thread than its start (the runtime's
 * background GC thread). GCStart's type alone proves nothing: the
 * runtime runs one blocking when it cannot start it, and says background
 * all the same. */
struct bgc_scan { uint32_t mark_gc, bg, background; uint64_t thread, start_ts; int nested; };

static int bgc_event(void *arg, const struct nt_event *e)
{
	struct bgc_scan *b = arg;
	uint32_t c;

	if (!e->runtime || (e->id != 1 && e->id != 2) || e->len < 4)
		return 0;
	memcpy(&c, e->payload, 4);
	if (e->id == 1 && e->len >= 16 && c > b->mark_gc) {
		uint32_t type;
		memcpy(&type, e->payload + 12, 4);
		if (b->bg != 0 && e->timestamp > b->start_ts)
			b->nested = 1;
		if (type == 1 && b->bg == 0)
			b->bg = c, b->thread = e->capture_thread, b->start_ts = e->timestamp, b->nested = 0;
	} else if (e->id == 2 && b->bg != 0 && c == b->bg) {
		b->background += b->nested || e->capture_thread != b->thread;
		b->bg = 0;
	}
	return 0;
}

static uint32_t background_gcs(const char *rec, uint32_t mark_gc)
{
	size_t n;
	char *m = file_bytes(rec, &n);
	struct nt_trace t;
	struct warnings w = { .quiet = 1 };
	struct sbuf err;
	struct bgc_scan b = { mark_gc, 0, 0, 0, 0, 0 };

	sbuf_init(&err);
	ck_assert_msg(nt_read(rec, (const uint8_t *)m, n, &t, bgc_event, &b, &w, &err) == 0, "%s", err.buf);
	warn_free(&w);
	sbuf_free(&err);
	free(m);
	return b.background;
}

/* "exact except N objects inferred" in said: N, or 0 for plain exact
 * ("; mark: exact; "), -1 for neither. */
static long inferred_in(const char *said)
{
	const char *p = strstr(said, "mark: exact except ");
	if (p != NULL)
		return strtol(p + strlen("mark: exact except "), NULL, 10);
	return strstr(said, "mark: exact; ") != NULL ? 0 : -1;
}

/* Background GCs between the mark and the snapshot (concurrent GC on, the
 * runtime's default): their survivors replayed, object by object as the
 * workload made them; the old large arrays they kept are inferred (the
 * label says how many). */
START_TEST(test_mark_background_gc)
{
	struct workload w;
	char *counts;
	struct tally t, tb;
	int rc;

	if (!dotnet_workload())
		return;
	char *said = marked_snapshot(&w, "bgc", MDIR "/bgc.nettrace", 0, BGC, MDIR "/bgc-mark.nettrace", &counts);
	stop(&w);
	ck_assert_msg(json_count(counts, "Background") == 1, "no background GC ran: %s", counts);
	/* one ran in the background between the mark and the snapshot, as the
	 * recorder's stream shows (it begins at the mark, ends at the snapshot) */
	ck_assert_msg(background_gcs(MDIR "/bgc-rec.nettrace", 0) >= 1, "no GC ran in the background: %s", said);
	const char *bg = strstr(said, " of them background)");
	ck_assert_msg(bg != NULL && bg[-1] != '0', "%s", said);
	/* every old large array it keeps is one a background GC kept: inferred */
	long inferred = inferred_in(said);
	ck_assert_msg(inferred >= json_count(counts, "OldBig"), "%s", said);
	check_objects(MDIR "/bgc.nettrace", NULL, &t);
	ck_assert_int_eq(t.wrong, 0);
	ck_assert_int_eq(t.new_items, json_count(counts, "NewItem"));
	ck_assert_int_gt(t.new_items, 1000);
	ck_assert_int_ge(t.old_items, json_count(counts, "OldItem"));
	ck_assert_int_eq(t.new_arrays, t.new_items);
	ck_assert_int_eq(t.old_arrays, t.old_items);
	/* the large arrays it holds; the dump may have more (OldItems hold some) */
	ck_assert_int_ge(t.new_bigs, json_count(counts, "NewBig"));
	ck_assert_int_ge(t.bigs - t.new_bigs, json_count(counts, "OldBig"));
	/* the mark's heap as the baseline: the same */
	check_objects(MDIR "/bgc.nettrace", MDIR "/bgc-mark.nettrace", &tb);
	ck_assert_mem_eq(&t, &tb, sizeof t);
	/* the answer says what it rests on */
	char want[200];
	if (inferred > 0)
		snprintf(want, sizeof want, "\nbaseline:                 exact except %ld object%s inferred: marked at ",
			 inferred, inferred == 1 ? "" : "s");
	else
		snprintf(want, sizeof want, "\nbaseline:                 exact: marked at ");
	char *out = hw("-q info " MDIR "/bgc.nettrace", &rc);
	ck_assert_msg(rc == 0 && strstr(out, want) != NULL, "%s", out);
	free(out);
	free(said);
	free(counts);
}
END_TEST

/* A mark file that is not the trace's, or is cut short: one line
 * naming the file and what is wrong; nothing answered. */
START_TEST(test_mark_file_foreign_and_cut)
{
	char args[1024];
	int rc;

	if (!dotnet_workload())
		return;
	struct stat st;
	if (stat(MDIR "/exact.nettrace.hwmark", &st) < 0) { /* test_mark_exact's, made before */
		struct workload w;
		char *counts;
		free(marked_snapshot(&w, "exact", MDIR "/exact.nettrace", 0, 0, MDIR "/exact-mark.nettrace", &counts));
		free(counts);
		stop(&w);
	}
	/* beside another trace of .NET (a recorded one, another process) */
	ck_assert_int_eq(system("cp " TEST_SRCDIR "/dotnet/workload-1.nettrace " MDIR "/other.nettrace && cp "
				MDIR "/exact.nettrace.hwmark " MDIR "/other.nettrace.hwmark"), 0);
	char *out = hw("-q -e new " MDIR "/other.nettrace classes", &rc);
	ck_assert_msg(rc == 2 && strstr(out, "other.nettrace.hwmark: offset 0: the mark file of another trace (process ") &&
		      strchr(out, '\n') == out + strlen(out) - 1, "%d: %s", rc, out);
	free(out);
	/* cut short: the header says more addresses than there are */
	ck_assert_int_eq(system("cp " MDIR "/exact.nettrace " MDIR "/cut.nettrace && head -c -9 "
				MDIR "/exact.nettrace.hwmark > " MDIR "/cut.nettrace.hwmark"), 0);
	out = hw("-q -e new " MDIR "/cut.nettrace classes", &rc);
	ck_assert_msg(rc == 2 && strstr(out, "cut.nettrace.hwmark: offset ") &&
		      strstr(out, ": a mark file damaged or cut short\n"), "%d: %s", rc, out);
	free(out);
	/* info tells the dump all the same, and why there is no baseline */
	out = hw("info " MDIR "/cut.nettrace", &rc);
	ck_assert_msg(rc == 0 && strstr(out, "heapwalk: note: ") && strstr(out, ": a mark file damaged or cut short\n") &&
		      strstr(out, "\nobjects:"), "%d: %.2000s", rc, out);
	free(out);
	/* not a mark file; one of another version (1 had no inferred
	 * objects); a count of addresses past the file's size */
	ck_assert_int_eq(system("printf 'heapwalk .NET marks\\n' > " MDIR "/cut.nettrace.hwmark"), 0);
	out = hw("-q -e new " MDIR "/cut.nettrace classes", &rc);
	ck_assert_msg(rc == 2 && strstr(out, "cut.nettrace.hwmark: offset 0: not a heapwalk .NET mark file\n"), "%d: %s",
		      rc, out);
	free(out);
	ck_assert_int_eq(system("sed -e '1s/.*/heapwalk .NET mark 1/' -e '/^inferred /d' " MDIR "/exact.nettrace.hwmark > "
				MDIR "/cut.nettrace.hwmark"), 0);
	out = hw("-q -e new " MDIR "/cut.nettrace classes", &rc);
	ck_assert_msg(rc == 2 && strstr(out, "cut.nettrace.hwmark: offset 19: a mark file of another version of heapwalk "
					 "(this one reads version 2): mark the process again\n") &&
		      strchr(out, '\n') == out + strlen(out) - 1, "%d: %s", rc, out);
	free(out);
	ck_assert_int_eq(system("sed -e 's/^old [0-9]*$/old 99999999999999999/' " MDIR "/exact.nettrace.hwmark > "
				MDIR "/cut.nettrace.hwmark"), 0);
	out = hw("-q -e new " MDIR "/cut.nettrace classes", &rc);
	ck_assert_msg(rc == 2 && strstr(out, ": a mark file damaged or cut short\n"), "%d: %s", rc, out);
	free(out);
	/* no mark file: the plain snapshot has no baseline, as before */
	snprintf(args, sizeof args, "-q -e new " MDIR "/other.nettrace classes");
	unlink(MDIR "/other.nettrace.hwmark");
	out = hw(args, &rc);
	ck_assert_msg(rc == 2 && strstr(out, "no baseline"), "%d: %s", rc, out);
	free(out);
}
END_TEST

/* ---- recorded: tests/dotnet/mark-*.nettrace (see its README) ---- */


/* The recorded mark replayed: exact, every object of the workload's
 * kinds old or new as it made it (its counts: README). */
START_TEST(test_recorded_exact)
{
	struct rec_files f;
	struct tally t;

	rec_load(&f);
	char *said = replay_to(&f, f.rec, f.nrec, MDIR "/recorded.nettrace");
	ck_assert_msg(strncmp(said, "mark: exact; of the 7753 objects at the mark, ", 46) == 0, "%s", said);
	free(said);
	check_objects(MDIR "/recorded.nettrace", NULL, &t);
	ck_assert_int_eq(t.wrong, 0);
	ck_assert_int_eq(t.new_items, 423);
	ck_assert_int_ge(t.old_items, 1048);
	ck_assert_int_eq(t.new_arrays, t.new_items);
	ck_assert_int_eq(t.old_arrays, t.old_items);
	/* and against the mark's heap, kept: the gone ones of the old kinds */
	int rc;
	char *gone = hw("-q -f csv -n 0 --baseline " DN "/mark-heap.nettrace -e gone " MDIR "/recorded.nettrace classes",
			&rc);
	char *before = hw("-q -f csv -n 0 " DN "/mark-heap.nettrace classes", &rc);
	ck_assert_int_eq(csv_count(gone, "Workload.OldItem"), csv_count(before, "Workload.OldItem") - t.old_items);
	ck_assert_int_eq(csv_count(gone, "Workload.NewItem"), 0);
	free(gone);
	free(before);
	/* the mark file is the baseline of every step that asks for one:
	 * exact, nothing is left unidentified */
	char *unid = hw("-q -f csv -n 0 -e unidentified " MDIR "/recorded.nettrace classes", &rc);
	ck_assert_msg(rc == 0 && strncmp(unid, "class,", 6) == 0 && strchr(unid, '\n') != NULL &&
			      strchr(unid, '\n')[1] == '\0',
		      "unidentified with the mark file: status %d: %s", rc, unid);
	free(unid);
	/* the snapshot alone names few of its types (the runtime named them
	 * to the mark's session): a warning counts them, as many as its
	 * classes "Type(0x...)", and names the mark file; with the mark file
	 * every type is named and nothing is said (a trial: no warning) */
	char *alone = hw("-q --no-cache info " DN "/mark-snap.nettrace 2>&1", &rc);
	char *cls = hw("-q --no-cache -f csv -n 0 " DN "/mark-snap.nettrace classes", &rc);
	int unnamed = 0;
	for (const char *q = cls; (q = strstr(q, "\nType(0x")) != NULL; q++)
		unnamed++;
	char want[200];
	snprintf(want, sizeof want, "mark-snap.nettrace: %d types of its objects have no name in it (\"Type(0x...)\"",
		 unnamed);
	ck_assert_msg(unnamed > 100 && strstr(alone, want) && strstr(alone, "mark-snap.nettrace.hwmark beside it)"),
		      "%d unnamed: %s", unnamed, alone);
	free(alone);
	free(cls);
	char *with = hw("-q --no-cache info " MDIR "/recorded.nettrace 2>&1", &rc);
	cls = hw("-q --no-cache -f csv -n 0 " MDIR "/recorded.nettrace classes", &rc);
	ck_assert_msg(rc == 0 && strstr(with, "have no name in it") == NULL && strstr(cls, "\nType(0x") == NULL, "%s",
		      with);
	free(with);
	free(cls);
	rec_free(&f);
}
END_TEST

/* The recorder's stream cut anywhere, or missing: never exact. */
START_TEST(test_recorded_cut)
{
	struct rec_files f;

	rec_load(&f);
	char *said = replay_to(&f, NULL, 0, MDIR "/recorded-cut.nettrace");
	ck_assert_msg(strstr(said, "mark: not exact; ") && strstr(said, ": the recorder's stream is missing"), "%s", said);
	free(said);
	for (size_t cut = 0; cut < f.nrec; cut += f.nrec / 37 + 1) {
		said = replay_to(&f, f.rec, cut, MDIR "/recorded-cut.nettrace");
		ck_assert_msg(strncmp(said, "mark: not exact; ", 17) == 0, "cut at %zu: %s", cut, said);
		free(said);
	}
	/* the answer says so */
	int rc;
	char *out = hw("-q info " MDIR "/recorded-cut.nettrace", &rc);
	ck_assert_msg(rc == 0 && strstr(out, "\nbaseline:                 not exact: "), "%s", out);
	free(out);
	rec_free(&f);
}
END_TEST

/* The recorded mark through background GCs (one with a GC inside it)
 * replayed: every object of the workload's kinds old or new as it made
 * it (its counts: README), exact but for the large and pinned objects
 * the background GCs kept, inferred; against the mark's heap the same. */
START_TEST(test_recorded_background)
{
	struct rec_files f;
	struct tally t, tb;

	rec_load_bgc(&f, 0);
	char *said = replay_to(&f, f.rec, f.nrec, MDIR "/recorded-bgc.nettrace");
	ck_assert_msg(strncmp(said, "mark: exact except 2 objects inferred; of the 7761 objects at the mark, ", 72) == 0 &&
		      strstr(said, ", 3 of them background): ") && strstr(said, "0 not (another object, or none, there)"),
		      "%s", said);
	free(said);
	check_objects(MDIR "/recorded-bgc.nettrace", NULL, &t);
	ck_assert_int_eq(t.wrong, 0);
	ck_assert_int_eq(t.new_items, 671);
	ck_assert_int_ge(t.old_items, 970);
	ck_assert_int_eq(t.new_arrays, t.new_items);
	ck_assert_int_eq(t.old_arrays, t.old_items);
	/* the large arrays it holds; the dump has others, old (OldItems hold
	 * some) and new, all of its kinds' sizes */
	ck_assert_int_ge(t.new_bigs, 28);
	check_objects(MDIR "/recorded-bgc.nettrace", DN "/mark-bgc-heap.nettrace", &tb);
	ck_assert_mem_eq(&t, &tb, sizeof t);
	int rc;
	char *out = hw("-q -f json info " MDIR "/recorded-bgc.nettrace", &rc);
	ck_assert_msg(rc == 0 && strstr(out, "exact except 2 objects inferred: marked at ") &&
		      strstr(out, "2 are taken to be the mark's"), "%s", out);
	free(out);
	/* against the mark's heap as a file: CSV, which has no room for it,
	 * says on standard error that the answer is not all exact (it was
	 * silent: a trial), as text says it in its table */
	char cmd[2048];
	int st;
	snprintf(cmd, sizeof cmd, "XDG_CACHE_HOME=" RUNDIR " '%s' -f csv diff " DN "/mark-bgc-heap.nettrace " MDIR
		 "/recorded-bgc.nettrace 2>&1 >/dev/null", heapwalk());
	out = run(cmd, &st);
	static const char part[] = "heapwalk: identity: exact except 2 objects inferred: ";
	ck_assert_msg(st == 0 && strncmp(out, part, sizeof part - 1) == 0, "%s", out);
	free(out);
	/* and leaks over it is not exact (it said "exact: base to target
	 * exact except 2 objects inferred; ...": a review) */
	out = hw("-q leaks " DN "/mark-bgc-heap.nettrace " MDIR "/recorded-bgc.nettrace " MDIR "/recorded-bgc.nettrace", &rc);
	static const char lk[] = "identity:        not exact: base to target exact except 2 objects inferred; ";
	ck_assert_msg(rc == 0 && strncmp(out, lk, sizeof lk - 1) == 0, "%.600s", out);
	free(out);
	rec_free(&f);
}
END_TEST

/* The server GC's recorded mark through background GCs (one with a GC
 * inside it; the mark's heap's events of two GC threads out of time
 * order in its file): the same, object by object. */
START_TEST(test_recorded_background_server)
{
	struct rec_files f;
	struct tally t;

	rec_load_bgc(&f, 1);
	char *said = replay_to(&f, f.rec, f.nrec, MDIR "/recorded-sbgc.nettrace");
	ck_assert_msg(strncmp(said, "mark: exact except 2 objects inferred; of the 7761 objects at the mark, 5327 live on ",
			      85) == 0 && strstr(said, ", 2 of them background): "), "%s", said);
	free(said);
	check_objects(MDIR "/recorded-sbgc.nettrace", NULL, &t);
	ck_assert_int_eq(t.wrong, 0);
	ck_assert_int_eq(t.new_items, 790);
	ck_assert_int_ge(t.old_items, 970);
	ck_assert_int_eq(t.new_arrays, t.new_items);
	ck_assert_int_eq(t.old_arrays, t.old_items);
	ck_assert_int_ge(t.new_bigs, 40);
	rec_free(&f);
}
END_TEST

/* The first inferred object of a mark file: its address (0 if none). */
static uint64_t first_inferred(const char *markfile)
{
	size_t n;
	char *m = file_bytes(markfile, &n);
	const char *o = strstr(m, "\nold "), *i = strstr(m, "\ninferred ");
	ck_assert_ptr_nonnull(o);
	ck_assert_ptr_nonnull(i);
	unsigned long long nold = strtoull(o + 5, NULL, 10), ninf = strtoull(i + 10, NULL, 10);
	uint64_t x = 0;
	const char *body = strchr(o + 1, '\n') + 1;
	if (ninf > 0)
		memcpy(&x, body + nold * 16, 8);
	free(m);
	return x;
}

/* The BulkNode record of the object at x in a trace: its size field. */
struct node_find { uint64_t x; uint8_t *size; int found; };

static int node_event(void *arg, const struct nt_event *e)
{
	struct node_find *nf = arg;
	uint32_t n;

	if (!e->runtime || e->id != 18 || e->len < 10)
		return 0;
	memcpy(&n, e->payload + 4, 4);
	for (uint32_t i = 0; i < n && 10 + (size_t)(i + 1) * 32 <= e->len; i++) {
		uint64_t a;
		memcpy(&a, e->payload + 10 + (size_t)i * 32, 8);
		if (a == nf->x) {
			nf->size = (uint8_t *)e->payload + 10 + (size_t)i * 32 + 8; /* the caller's buffer, writable */
			nf->found++;
		}
	}
	return 0;
}

/* An object a background GC kept on the large or pinned object heap,
 * whose place a new object of another size took before the snapshot, is
 * new, not old: the recorded snapshot with that object's size made
 * another (its BulkNode record's size field: a real recording, one field
 * changed). */
START_TEST(test_recorded_background_reused)
{
	struct rec_files f;
	char path[256];

	rec_load_bgc(&f, 0);
	free(replay_to(&f, f.rec, f.nrec, MDIR "/recorded-bgc.nettrace"));
	uint64_t x = first_inferred(MDIR "/recorded-bgc.nettrace.hwmark");
	ck_assert_uint_ne(x, 0);
	struct node_find nf = { x, NULL, 0 };
	struct nt_trace t;
	struct warnings w = { .quiet = 1 };
	struct sbuf err;
	sbuf_init(&err);
	ck_assert_int_eq(nt_read("snap", (const uint8_t *)f.snap, f.nsnap, &t, node_event, &nf, &w, &err), 0);
	warn_free(&w);
	sbuf_free(&err);
	ck_assert_msg(nf.found == 1 && t.pointer_size == 8, "0x%llx: %d records", (unsigned long long)x, nf.found);
	uint64_t size;
	memcpy(&size, nf.size, 8);
	size += 8;
	memcpy(nf.size, &size, 8);
	char *said = replay_to(&f, f.rec, f.nrec, MDIR "/recorded-reused.nettrace");
	ck_assert_msg(strncmp(said, "mark: exact except 1 objects inferred; ", 39) == 0 &&
		      strstr(said, "1 are taken to be the mark's, the dump holding an object of their type and size there, "
				   "1 not (another object, or none, there)"), "%s", said);
	free(said);
	int rc;
	char *fresh = hw("-q -f csv -n 0 -e new " MDIR "/recorded-reused.nettrace objects", &rc);
	snprintf(path, sizeof path, "\n0x%llx,", (unsigned long long)x);
	ck_assert_msg(rc == 0 && strstr(fresh, path) != NULL, "0x%llx is not new", (unsigned long long)x);
	free(fresh);
	rec_free(&f);
}
END_TEST

Suite *clrmark_suite(void)
{
	Suite *s = suite_create("clrmark");
	TCase *tc = tcase_create("live");

	tcase_set_timeout(tc, FIXTURE_TIMEOUT); /* a hang; the workload is built once, slowly */
	tcase_add_test(tc, test_mark_exact);
	tcase_add_test(tc, test_mark_recorder_killed);
	tcase_add_test(tc, test_mark_background_gc);
	tcase_add_test(tc, test_mark_server_gc);
	tcase_add_test(tc, test_mark_file_foreign_and_cut);
	suite_add_tcase(s, tc);
	tc = tcase_create("recorded");
	tcase_set_timeout(tc, FIXTURE_TIMEOUT);
	tcase_add_test(tc, test_recorded_exact);
	tcase_add_test(tc, test_recorded_cut);
	tcase_add_test(tc, test_recorded_background);
	tcase_add_test(tc, test_recorded_background_reused);
	tcase_add_test(tc, test_recorded_background_server);
	suite_add_tcase(s, tc);
	return s;
}
