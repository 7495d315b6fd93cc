/* test_agent.c — heapwalk's JVMTI agent in a real JVM (tests/agent-run.sh
 * drives tests/java/Marked): its dumps agree with `jcmd
 * GC.class_histogram` class by class, bytes included; "new" and "old"
 * after a mark are exactly what the workload allocated after and before
 * it (each OldThing's name carries its number); a snapshot before the
 * mark serves as an exact baseline (gone, diff); and the failures a user
 * meets are one-line errors that leave no file behind. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "suites.h"
#include "util.h"

#define DUMPS TEST_BUILDDIR "/dumps"

static char *slurp(const char *dir, const char *file)
{
	char path[700];
	FILE *f;
	struct sbuf sb;
	char buf[4096];
	size_t n;

	snprintf(path, sizeof path, "%s/%s", dir, file);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot read %s", path);
	sbuf_init(&sb);
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		sbuf_add(&sb, buf, n);
	fclose(f);
	sbuf_addc(&sb, '\0');
	return sbuf_detach(&sb);
}

static char *hw(const char *args, int want_status)
{
	char cmd[2048];
	int st;

	snprintf(cmd, sizeof cmd, "%s -q %s", heapwalk(), args);
	char *out = run(cmd, &st);
	ck_assert_msg(st == want_status, "%s: status %d, not %d; output: %s", cmd, st, want_status, out);
	return out;
}

/* The agent's summary out ("dump PATH objects=N bytes=N ..."): bytes the
 * file's size, objects as many as the dump holds (info's, class objects
 * too). Before, bytes counted each segment's length twice (four bytes
 * high) and objects left the classes out. */
static void check_summary(const char *out, const char *hprof)
{
	unsigned long long objects, bytes, info_objects;
	struct stat st;
	const char *f = strstr(out, " objects=");
	char args[800];

	ck_assert_msg(f != NULL && sscanf(f, " objects=%llu bytes=%llu", &objects, &bytes) == 2, "%s", out);
	ck_assert_msg(stat(hprof, &st) == 0 && (unsigned long long)st.st_size == bytes, "%s: %llu bytes said, %lld there",
		      hprof, bytes, (long long)st.st_size);
	snprintf(args, sizeof args, "info '%s'", hprof);
	char *info = hw(args, 0);
	const char *o = strstr(info, "\nobjects:");
	ck_assert_msg(o != NULL && sscanf(o, "\nobjects: %llu", &info_objects) == 1, "%s", info);
	ck_assert_msg(objects == info_objects, "%s: %llu objects said, info counts %llu", hprof, objects, info_objects);
	free(info);
}

/* The numbers N of the "thingN" strings that the csv objects output
 * lists (OldThing names); each must be one. */
static size_t thing_numbers(char *csv, int *seen, int max)
{
	size_t n = 0;

	for (char *p = strstr(csv, ",thing"); p; p = strstr(p + 1, ",thing")) {
		int v = atoi(p + 6);
		ck_assert_msg(v >= 0 && v < max, "thing%d out of range", v);
		ck_assert_msg(!seen[v], "thing%d twice", v);
		seen[v] = 1;
		n++;
	}
	return n;
}

/* The number in column col (0-based) of the csv row starting with key. */
static unsigned long long csv_field(const char *csv, const char *key, int col)
{
	size_t kl = strlen(key);

	for (const char *line = csv; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		if (strncmp(line, key, kl) == 0 && line[kl] == ',') {
			const char *p = line;
			for (int i = 0; i < col; i++) {
				p = strchr(p, ',');
				ck_assert_msg(p != NULL, "row %s has no column %d", key, col);
				p++;
			}
			return strtoull(p, NULL, 10);
		}
	ck_abort_msg("no row %s in %s", key, csv);
	return 0;
}

/* The OldThings the step (new, old) leaves are exactly those numbered
 * from..to-1, told by their names. */
static void things(const char *hprof, const char *step, int from, int to, const char *what)
{
	char args[1200];
	int seen[6500] = { 0 };

	snprintf(args, sizeof args, "-f csv -n 0 %s -e 'instances Marked$OldThing | %s | referents | "
		 "instances java.lang.String | objects'", hprof, step);
	char *out = hw(args, 0);
	ck_assert_uint_eq(thing_numbers(out, seen, 6500), (unsigned)(to - from));
	for (int i = from; i < to; i++)
		ck_assert_msg(seen[i], "%s: thing%d is not %s", what, i, step);
	free(out);
}

static void check_session(const char *dir, const char *what)
{
	char args[1200], hprof[700], histo[700];

	/* class by class as the JVM counts, exact bytes: the agent told the sizes */
	snprintf(hprof, sizeof hprof, "%s/after.hprof", dir);
	snprintf(histo, sizeof histo, "%s/after.histo", dir);
	check_histogram(what, hprof, histo, 1);

	snprintf(args, sizeof args, "info %s", hprof);
	char *out = hw(args, 0);
	ck_assert_msg(strstr(out, "stable_ids:                yes") && strstr(out, "marks:                     1") &&
		      strstr(out, "layout_source:             agent"), "%s: info: %s", what, out);
	ck_assert_msg(strstr(out, "baseline:                  exact: mark 1"), "%s: info: %s", what, out);
	/* the JVM keeps every object alive: none may look unreachable */
	ck_assert_msg(strstr(out, "unreachable_objects:       0\n") && strstr(out, "dangling_references:       0\n"),
		      "%s: info: %s", what, out);
	free(out);
	/* every reference the JVM reported found its field */
	out = slurp(dir, "after.out");
	ck_assert_msg(strstr(out, " dropped=0 ") != NULL, "%s: %s", what, out);
	free(out);

	/* new after the mark: exactly OldThing 5000..6499 (their names) */
	things(hprof, "new", 5000, 6500, what);
	things(hprof, "old", 0, 5000, what);
	snprintf(args, sizeof args, "-f csv %s -e 'instances Marked$NewThing | new'", hprof);
	out = hw(args, 0);
	ck_assert_uint_eq(csv_field(out, "Marked$NewThing", 1), 3000);
	free(out);

	/* the snapshot before the mark as the baseline: exact, by id */
	snprintf(args, sizeof args, "-f csv --baseline %s/before.hprof %s -e 'gone | instances Marked$Doomed'",
		 dir, hprof);
	out = hw(args, 0);
	ck_assert_uint_eq(csv_field(out, "Marked$Doomed", 1), 2000);
	free(out);
	snprintf(args, sizeof args, "-f csv --baseline %s/before.hprof %s -e 'instances Marked$OldThing | new'",
		 dir, hprof);
	out = hw(args, 0);
	ck_assert_uint_eq(csv_field(out, "Marked$OldThing", 1), 1500);
	free(out);
	/* the same output with the index cache (written by the runs above) and without */
	snprintf(args, sizeof args, "--baseline %s/before.hprof %s -e 'new | biggest' -f json", dir, hprof);
	char *cached = hw(args, 0);
	snprintf(args, sizeof args, "--no-cache --baseline %s/before.hprof %s -e 'new | biggest' -f json", dir, hprof);
	out = hw(args, 0);
	ck_assert_msg(strcmp(cached, out) == 0, "%s: cached and uncached outputs differ", what);
	/* by stable ids: exact, and never labelled inferred */
	ck_assert_msg(strstr(out, "\"identity\":\"exact: stable ids, against ") != NULL &&
		      strstr(out, "inferred") == NULL, "%s: %s", what, out);
	free(cached);
	free(out);
	snprintf(args, sizeof args, "-f csv diff %s/before.hprof %s", dir, hprof);
	out = hw(args, 0);
	/* class,before,now,delta,bytes before,bytes,delta,new,new bytes,gone,gone bytes */
	ck_assert_uint_eq(csv_field(out, "Marked$NewThing", 1), 0);
	ck_assert_uint_eq(csv_field(out, "Marked$NewThing", 2), 3000);
	ck_assert_uint_eq(csv_field(out, "Marked$NewThing", 7), 3000);
	ck_assert_uint_eq(csv_field(out, "Marked$OldThing", 2), 6500);
	ck_assert_uint_eq(csv_field(out, "Marked$OldThing", 7), 1500);
	ck_assert_uint_eq(csv_field(out, "Marked$OldThing", 9), 0);
	ck_assert_uint_eq(csv_field(out, "Marked$Doomed", 1), 2000);
	ck_assert_uint_eq(csv_field(out, "Marked$Doomed", 2), 0);
	ck_assert_uint_eq(csv_field(out, "Marked$Doomed", 9), 2000);
	/* what the agent made itself in the first snapshot (linking a class
	 * by reflection: its Field objects, the class's cache of them; the
	 * workload uses no reflection) was in it, not new in the next */
	static const char *const own[] = { "java.lang.reflect.Field", "[Ljava.lang.reflect.Field;",
					   "java.lang.Class$ReflectionData" };
	for (size_t i = 0; i < 3; i++) {
		char key[64];
		snprintf(key, sizeof key, "\n%s,", own[i]);
		if (strstr(out, key) != NULL)
			ck_assert_msg(csv_field(out, own[i], 7) == 0, "%s: %llu %s new after the first snapshot", what,
				      csv_field(out, own[i], 7), own[i]);
	}
	free(out);
	out = slurp(dir, "before.out");
	ck_assert_msg(strstr(out, " linked=") != NULL, "%s: %s", what, out);
	free(out);
}

START_TEST(test_agent_attached)
{
	char dir[600];

	agent_session(dir, sizeof dir);
	check_session(dir, "attached agent (G1, CDS)");
}
END_TEST

START_TEST(test_agent_at_start_uncompressed_serial)
{
	char dir[600];

	agent_start_session(dir, sizeof dir);
	check_session(dir, "agent at start, no compressed oops");
	char args[700];
	snprintf(args, sizeof args, "info %s/after.hprof", dir);
	char *out = hw(args, 0);
	ck_assert_msg(strstr(out, "compressed_oops:           no"), "info: %s", out);
	free(out);
}
END_TEST

/* What a user meets when things go wrong: one line each, nothing left. */
START_TEST(test_agent_errors)
{
	char dir[600];

	agent_session(dir, sizeof dir);
	char *rc = slurp(dir, "exists.rc"), *err = slurp(dir, "exists.err");
	ck_assert_msg(atoi(rc) == 2 && strstr(err, "exists; heapwalk snapshot does not overwrite") &&
		      strchr(err, '\n') == err + strlen(err) - 1, "existing file: %s %s", rc, err);
	free(rc);
	free(err);

	rc = slurp(dir, "toolarge.rc");
	err = slurp(dir, "toolarge.err");
	ck_assert_msg(atoi(rc) == 2 && strstr(err, "the agent says:") && strstr(err, "toolarge.hprof: File too large"),
		      "write failure: %s %s", rc, err);
	free(rc);
	free(err);
	char *ls = slurp(dir, "toolarge.ls"); /* neither the file nor its temporary */
	ck_assert_msg(strstr(ls, "toolarge.hprof") == NULL, "a failed snapshot left: %s", ls);
	free(ls);
	rc = slurp(dir, "after-fail.rc");
	char *out = slurp(dir, "after-fail.out");
	ck_assert_msg(atoi(rc) == 0 && strncmp(out, "mark 1 watermark=", 17) == 0,
		      "the JVM after a failed snapshot: %s %s", rc, out);
	free(rc);
	free(out);

	/* two JVMs, each attached to several times with no jcmd on
	 * heapwalk's PATH: signalled once each, with the .attach_pid file,
	 * which HotSpot answers with its socket; another SIGQUIT, once
	 * the socket is open, would have dumped its threads */
	for (int i = 0; i < 2; i++) {
		char *log = slurp(dir, i ? "jvm.log" : "jvm1.log");
		ck_assert_msg(strstr(log, "Full thread dump") == NULL, "%s: a thread dump: a SIGQUIT beyond the first: %.300s",
			      i ? "jvm.log" : "jvm1.log", log);
		free(log);
	}

	rc = slurp(dir, "gone.rc");
	err = slurp(dir, "gone.err");
	ck_assert_msg(atoi(rc) == 2 && strstr(err, "heapwalk: no process ") && strchr(err, '\n') == err + strlen(err) - 1,
		      "JVM gone: %s %s", rc, err);
	free(rc);
	free(err);

	/* no baseline, and why: 'gone' without one, 'new' before any mark,
	 * a baseline later than the dump */
	char args[2048];
	int st;
	snprintf(args, sizeof args, "%s -q %s/after.hprof -e 'gone' 2>&1", heapwalk(), dir);
	out = run(args, &st);
	ck_assert_msg(WEXITSTATUS(st) == 2 && strstr(out, "'gone' needs --baseline OLD"), "gone: %s", out);
	free(out);
	snprintf(args, sizeof args, "%s -q %s/before.hprof -e 'new' 2>&1", heapwalk(), dir);
	out = run(args, &st);
	ck_assert_msg(WEXITSTATUS(st) == 2 && strstr(out, "before any mark"), "new before a mark: %s", out);
	free(out);
	/* the later dump as the baseline */
	snprintf(args, sizeof args, "%s -q --baseline %s/after.hprof %s/before.hprof -e 'new' 2>&1",
		 heapwalk(), dir, dir);
	out = run(args, &st);
	ck_assert_msg(WEXITSTATUS(st) == 2 && strstr(out, "is later than"), "later baseline: %s", out);
	free(out);
}
END_TEST

/* The JVM NAME in its own namespaces (plain-run.sh's nsjvm), which does
 * not see the agent: the fallback said in one line, the dump linked as
 * heapwalk's user's (root's, 0600), mark refused in one line, nothing of
 * heapwalk's left in its /tmp, the JVM alive. */
static void check_ns(const char *dir, const char *name)
{
	char f[64];

	snprintf(f, sizeof f, "%s.nspid", name);
	char *nspid = slurp(dir, f);
	snprintf(f, sizeof f, "%s.err", name);
	char *err = slurp(dir, f);
	long pid = atol(nspid + strlen("NSpid:"));
	ck_assert_msg(strstr(nspid, "\t1\n") != NULL, "%s: the JVM is not pid 1 of its own namespace: %s", name, nspid);
	char *want = xasprintf("heapwalk: PID %ld does not see heapwalk's agent %s as heapwalk does (another mount "
			       "namespace: a container?), so it cannot load it", pid, getenv("HEAPWALK_AGENT"));
	char *fallback = xasprintf("%s: HotSpot's own heap dump instead (no stable ids)\n", want);
	ck_assert_msg(strcmp(err, fallback) == 0, "%s: said\n%s\nnot\n%s", name, err, fallback);
	free(err);
	snprintf(f, sizeof f, "%s-mark.err", name);
	err = slurp(dir, f);
	snprintf(f, sizeof f, "%s-mark.rc", name);
	char *rc = slurp(dir, f);
	ck_assert_msg(atoi(rc) == 2 && strncmp(err, want, strlen(want)) == 0 && strcmp(err + strlen(want), "\n") == 0,
		      "%s mark: %s %s", name, rc, err);
	free(rc);
	free(err);
	free(want);
	free(fallback);
	free(nspid);
	snprintf(f, sizeof f, "%s.owner", name);
	char *owner = slurp(dir, f);
	ck_assert_msg(strcmp(owner, "root 600\n") == 0, "%s: the dump's owner and mode: %s", name, owner);
	free(owner);
	snprintf(f, sizeof f, "%s.ls", name);
	char *ls = slurp(dir, f);
	snprintf(f, sizeof f, "%s.alive", name);
	char *alive = slurp(dir, f);
	ck_assert_msg(strstr(ls, "heapwalk") == NULL && strstr(ls, ".attach_pid") == NULL, "%s: left in its /tmp: %s",
		      name, ls);
	ck_assert_str_eq(alive, "alive\n");
	free(ls);
	free(alive);
}

/* HotSpot's own dumps, taken by heapwalk over the attach protocol
 * (tests/plain-run.sh, run here each time: no fixture, whose stamp would
 * not see heapwalk change): plain and gzip, each class as the JVM's
 * histogram counts it; the agent's and HotSpot's gzip dump of a JVM of a
 * JRE (jlink's java.base alone, no jcmd); then a JVM in its own mount
 * and PID namespaces that cannot see the agent, root's and nobody's
 * (whose /tmp heapwalk acts in as nobody): each snapshotted from outside
 * by HotSpot's dump, as its histogram counts (check_ns for the rest). */
START_TEST(test_plain_snapshot)
{
	char cmd[1200];
	const char *dir = DUMPS "/plain";

	if (geteuid() != 0 || system("command -v unshare >/dev/null") != 0) {
		fprintf(stderr, "agent: not root or no unshare: HotSpot's own dumps are not tested\n");
		return;
	}
	if (build_in_tmp("agent: HotSpot's own dumps", "the JVM's own /tmp (plain-run.sh)"))
		return;
	snprintf(cmd, sizeof cmd, "HEAPWALK=%s sh " TEST_SRCDIR "/plain-run.sh %s >/dev/null", heapwalk(), dir);
	ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
	const char *names[] = { "plain", "gz", "ns", "nsu" },
		   *files[] = { "plain.hprof", "gz.hprof.gz", "ns.hprof", "nsu.hprof" };
	for (int i = 0; i < 4; i++) {
		char hprof[700], histo[700], rcf[64], outf[64], errf[64];
		snprintf(rcf, sizeof rcf, "%s.rc", names[i]);
		snprintf(outf, sizeof outf, "%s.out", names[i]);
		snprintf(errf, sizeof errf, "%s.err", names[i]);
		char *rc = slurp(dir, rcf), *out = slurp(dir, outf), *err = slurp(dir, errf);
		snprintf(hprof, sizeof hprof, "%s/%s", dir, files[i]);
		/* "(gzip)" said of the file by its content: JDK 17 takes the level */
		ck_assert_msg((strstr(out, " bytes (gzip) by ") != NULL) == (i == 1), "%s: %s", names[i], out);
		ck_assert_msg(atoi(rc) == 0 && strncmp(out, "snapshot ", 9) == 0 && strstr(out, hprof) &&
			      strstr(out, " by HotSpot's heap dumper, ") && strstr(out, " (the JVM: Heap dump file created ["),
			      "%s: %s %s %s", names[i], rc, out, err);
		free(rc);
		free(out);
		free(err);
		snprintf(histo, sizeof histo, "%s/%s.histo", dir, names[i]);
		check_histogram(names[i], hprof, histo, 0);
	}
	for (int u = 0; u < 2; u++)
		check_ns(dir, u ? "nsu" : "ns");
	/* a JVM that sees the agent, only its /tmp and pids its own: the
	 * agent's snapshot (stable ids), then a mark */
	char *out = slurp(dir, "nsa.out"), *err = slurp(dir, "nsa.err");
	ck_assert_msg(strncmp(out, "dump ", 5) == 0 && strstr(out, "/nsa.hprof objects=") && *err == '\0',
		      "agent in a namespace: %s %s", out, err);
	char hprof[700], histo[700];
	snprintf(hprof, sizeof hprof, "%s/nsa.hprof", dir);
	check_summary(out, hprof);
	free(out);
	free(err);
	snprintf(histo, sizeof histo, "%s/nsa.histo", dir);
	check_histogram("nsa", hprof, histo, 1);
	out = slurp(dir, "nsa-mark.out");
	ck_assert_msg(strncmp(out, "mark 1 watermark=", 17) == 0, "mark in a namespace: %s", out);
	free(out);
	out = slurp(dir, "nsa.ls"); /* the agent's status files gone from its /tmp */
	ck_assert_msg(strstr(out, "heapwalk") == NULL && strstr(out, ".attach_pid") == NULL, "nsa: left: %s", out);
	free(out);

	/* a JVM of a JRE (java.base alone, no attach client, no jcmd): the
	 * agent's snapshot and HotSpot's gzip dump, each as its histogram */
	snprintf(hprof, sizeof hprof, "%s/jre.skipped", dir);
	if (access(hprof, F_OK) == 0) {
		out = slurp(dir, "jre.skipped");
		fprintf(stderr, "agent: no JRE made (%s): a JVM of a JRE is not tested\n", out);
		free(out);
		return;
	}
	out = slurp(dir, "jre.exe");
	snprintf(hprof, sizeof hprof, "%s/jre/bin/java\n", dir);
	ck_assert_msg(strcmp(out, hprof) == 0, "the JVM is not the JRE's: %s", out);
	free(out);
	const char *jnames[] = { "jre", "jregz" }, *jfiles[] = { "jre.hprof", "jregz.hprof.gz" };
	for (int i = 0; i < 2; i++) {
		char f[64];
		snprintf(f, sizeof f, "%s.rc", jnames[i]);
		char *rc = slurp(dir, f);
		snprintf(f, sizeof f, "%s.out", jnames[i]);
		out = slurp(dir, f);
		snprintf(f, sizeof f, "%s.err", jnames[i]);
		err = slurp(dir, f);
		snprintf(hprof, sizeof hprof, "%s/%s", dir, jfiles[i]);
		ck_assert_msg(atoi(rc) == 0 && *err == '\0' && strstr(out, hprof) != NULL &&
			      (i == 0 ? strncmp(out, "dump ", 5) == 0 : strstr(out, " bytes (gzip) by HotSpot's heap dumper, ") != NULL),
			      "%s: %s %s %s", jnames[i], rc, out, err);
		if (i == 0)
			check_summary(out, hprof);
		free(rc);
		free(out);
		free(err);
		snprintf(histo, sizeof histo, "%s/%s.histo", dir, jnames[i]);
		check_histogram(jnames[i], hprof, histo, i == 0);
	}
}
END_TEST

/* SIGTERM to heapwalk snapshot --gz while it checks the dump (the
 * gzip dump copied beside FILE and being inflated into $TMPDIR, two
 * temporary files guarded at once; tests/gzstop-run.sh): it ends by the
 * signal, within the minute the script waits (before, it re-raised the
 * signal forever at full CPU), and neither FILE, FILE.tmp-* nor the
 * inflated copy is left. */
START_TEST(test_gz_snapshot_stopped)
{
	char cmd[1200];
	const char *dir = DUMPS "/gzstop";
	const char *javac = getenv("JAVAC");

	if (javac == NULL || *javac == '\0') {
		fprintf(stderr, "agent: no JDK: a --gz snapshot stopped while checked is not tested\n");
		return;
	}
	snprintf(cmd, sizeof cmd, "HEAPWALK=%s sh " TEST_SRCDIR "/gzstop-run.sh %s >/dev/null", heapwalk(), dir);
	ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
	char *seen = slurp(dir, "stop.seen"), *rc = slurp(dir, "stop.rc"), *left = slurp(dir, "stop.left"),
	     *err = slurp(dir, "stop.err");
	ck_assert_msg(strcmp(seen, "seen\n") == 0, "heapwalk ended before it inflated the dump (status %s): %s", rc,
		      err);
	ck_assert_msg(strcmp(rc, "143\n") == 0, "heapwalk stopped while checking: status %s (143: SIGTERM): %s", rc,
		      err);
	ck_assert_msg(*left == '\0', "left after SIGTERM: %s", left);
	free(seen);
	free(rc);
	free(left);
	free(err);
}
END_TEST

Suite *agent_suite(void)
{
	Suite *s = suite_create("agent");
	TCase *tc = tcase_create("agent");

	tcase_set_timeout(tc, FIXTURE_TIMEOUT);
	tcase_add_test(tc, test_agent_attached);
	tcase_add_test(tc, test_agent_at_start_uncompressed_serial);
	tcase_add_test(tc, test_agent_errors);
	tcase_add_test(tc, test_plain_snapshot);
	tcase_add_test(tc, test_gz_snapshot_stopped);
	suite_add_tcase(s, tc);
	return s;
}
