/* test_live.c — heapwalk PID against real processes: a JVM
 * (tests/java/Grow.java) and the .NET workload (tests/dotnet, "grow"),
 * each making a known number of instances of a named class on a line of
 * its standard input and saying how many it holds. The browser opens in
 * tmux on a snapshot in the cache directory (XDG_CACHE_HOME pointed
 * here); the next run's baseline is the one before, and what it calls
 * new of that class is what the workload says it made in between. Also
 * -o FILE, the snapshots kept per process, the directories of exited
 * processes removed, and a process that is no runtime's refused with no
 * signal and nothing written. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "suites.h"
#include "term.h"
#include "util.h"

#define LIVEDIR TEST_BUILDDIR "/dumps/live"
#define CACHE LIVEDIR "/cache"
#define BASE CACHE "/heapwalk"

/* A fresh cache directory for heapwalk. */
static void fresh_cache(void)
{
	ck_assert_int_eq(system("rm -rf " CACHE " && mkdir -p " LIVEDIR), 0);
}

/* argv in a child, every signal at its default, its standard input a
 * pipe whose end *hold we keep (it ends when that closes), its output
 * in log. */
static pid_t start_piped(char *const argv[], const char *log, int *hold)
{
	int in[2];

	ck_assert_int_eq(pipe(in), 0);
	unlink(log);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		for (int s = 1; s < NSIG; s++)
			signal(s, SIG_DFL);
		int out = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (out < 0 || dup2(in[0], 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
			_exit(126);
		close(in[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(in[0]);
	*hold = in[1];
	return pid;
}

/* The number after the last `word` in log, once there are `n` of them
 * (60 s at most: a hang, not a speed). */
static long said(pid_t pid, const char *log, const char *word, int n)
{
	for (double end = now_seconds() + hang_seconds(60); now_seconds() < end;) {
		size_t len;
		int st = 0, k = 0;
		char *s = access(log, R_OK) == 0 ? file_bytes(log, &len) : xstrdup("");
		const char *last = NULL;
		for (const char *q = strstr(s, word); q != NULL; q = strstr(q + 1, word), k++)
			last = q;
		long v = k >= n && last != NULL ? strtol(last + strlen(word), NULL, 10) : -1;
		free(s);
		if (v >= 0)
			return v;
		ck_assert_msg(waitpid(pid, &st, WNOHANG) == 0, "the workload ended (status %d): see %s", st, log);
		usleep(100000);
	}
	ck_abort_msg("%s: no %d '%s' in 60 s", log, n, word);
	return -1;
}

static void send_line(int hold, const char *line)
{
	ck_assert_int_eq(write(hold, line, strlen(line)), (ssize_t)strlen(line));
}

static void end_workload(pid_t pid, int hold)
{
	close(hold);
	for (double end = now_seconds() + hang_seconds(30); now_seconds() < end; usleep(100000))
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return;
	kill(pid, SIGKILL); /* our own child, not yet reaped */
	waitpid(pid, NULL, 0);
}

/* The process's start time, field 22 of its stat: its directory's key. */
static unsigned long long start_of(pid_t pid)
{
	char path[64];
	size_t n;
	unsigned long long key = 0;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	char *st = file_bytes(path, &n);
	char *paren = strrchr(st, ')');
	ck_assert_ptr_nonnull(paren);
	ck_assert_int_eq(sscanf(paren + 2, "%*c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
				"%*s %llu", &key), 1);
	free(st);
	return key;
}

/* The names in dir, sorted, one line each ("" if none, NULL if no dir). */
static char *listing(const char *dir)
{
	char cmd[512];
	int st;

	if (access(dir, F_OK) != 0)
		return NULL;
	snprintf(cmd, sizeof cmd, "ls -A '%s' | LC_ALL=C sort", dir);
	return run(cmd, &st);
}

/* heapwalk ARGS with the test's cache: standard output; its standard
 * error in *err, its exit status in *rc. */
static char *hw(const char *args, char **err, int *rc)
{
	char cmd[2048], errf[] = LIVEDIR "/hw.err";
	int st;
	size_t n;

	snprintf(cmd, sizeof cmd, "XDG_CACHE_HOME=" CACHE " %s %s 2>%s", heapwalk(), args, errf);
	char *out = run(cmd, &st);
	*rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	*err = file_bytes(errf, &n);
	return out;
}

/* heapwalk PID in a terminal: the browser on the new snapshot, the
 * message line saying `baseline`; with `step`, the step typed at ':' and
 * the line of its title. Its screen, first. */
static char *browse(pid_t pid, const char *baseline, const char *step, char **title)
{
	struct term t;
	char args[64];

	snprintf(args, sizeof args, "%ld", (long)pid);
	term_start(&t, 200, 30, "XDG_CACHE_HOME=" CACHE, args);
	char *first = wait_for(&t, baseline);
	if (step != NULL) {
		keys(&t, ":");
		type(&t, step);
		keys(&t, "Enter");
		const char *last = strrchr(step, '|'); /* the title is the last step's */
		char *want = xasprintf("%s  |", last ? last + 2 : step);
		char *s = wait_for(&t, want);
		*title = line_of(s, want);
		free(want);
		free(s);
	}
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
	return first;
}

static int have_jdk(void)
{
	const char *java = getenv("JAVA"), *javac = getenv("JAVAC");

	if (java == NULL || *java == '\0' || javac == NULL || *javac == '\0') {
		fprintf(stderr, "live: no JDK (JAVA, JAVAC): the JVM's heapwalk PID is not tested\n");
		return 0;
	}
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "mkdir -p " LIVEDIR "/classes && %s -d " LIVEDIR "/classes " TEST_SRCDIR
		 "/java/Grow.java", javac);
	ck_assert_int_eq(system(cmd), 0);
	return 1;
}

/* A JVM: the browser twice, the second showing what the JVM made in
 * between as new, against the first; the same from -e; the three newest
 * kept; -o FILE; the directory of a process that has exited (or whose
 * number another has taken) removed, what else is there kept. */
START_TEST(test_live_jvm)
{
	char *err, *out, *title = NULL, line[64];
	int rc, hold;

	if (!have_jdk())
		return;
	fresh_cache();
	/* what an earlier run left: an exited process's directory, another's
	 * whose number this one has (a start time not its), a file of the cache */
	ck_assert_int_eq(system("mkdir -p " BASE "/pid-999999999-5 " BASE "/pid-1-1 && touch " BASE
				"/pid-999999999-5/snap-000001.hprof " BASE "/pid-1-1/snap-000003.hprof " BASE
				"/0123-other.hwi"), 0);
	char *const argv[] = { getenv("JAVA"), "-XX:+UseSerialGC", "-cp", LIVEDIR "/classes", "Grow", NULL };
	pid_t pid = start_piped(argv, LIVEDIR "/grow.log", &hold);
	ck_assert_int_eq(said(pid, LIVEDIR "/grow.log", "READY ", 1), pid);
	char *dir = xasprintf(BASE "/pid-%ld-%llu", (long)pid, start_of(pid));

	/* the first: no baseline; its file in the cache */
	char *want = xasprintf("no baseline: the first snapshot of PID %ld here", (long)pid);
	char *s = browse(pid, want, NULL, NULL);
	free(want);
	char *path = xasprintf("%s/snap-000001.hprof", dir);
	has(s, path); /* the title names the file */
	free(path);
	free(s);
	char *ls = listing(BASE);
	ck_assert_msg(ls != NULL && strstr(ls, "pid-999999999-5") == NULL && strstr(ls, "pid-1-1") == NULL &&
		      strstr(ls, "0123-other.hwi\n") != NULL, "the cache directory: %s", ls ? ls : "none");
	free(ls);
	struct stat st;
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0700);

	/* the JVM makes 250; the second: the first its baseline, 250 new */
	snprintf(line, sizeof line, "250\n");
	send_line(hold, line);
	long before = 0, now = said(pid, LIVEDIR "/grow.log", "LEAKED ", 1);
	ck_assert_int_eq(now, 250);
	s = browse(pid, "baseline: snap-000001.hprof", "new | instances Grow$Leaked", &title);
	char *count = xasprintf("|  %ld objects,", now - before);
	ck_assert_msg(strstr(title, count) != NULL, "new Grow$Leaked: %s, not %s", title, count);
	free(count);
	free(title);
	free(s);

	/* 100 more; -e reports the same way */
	send_line(hold, "100\n");
	before = now;
	now = said(pid, LIVEDIR "/grow.log", "LEAKED ", 2);
	char args[256];
	snprintf(args, sizeof args, "-f csv -e 'new | instances Grow$Leaked' %ld", (long)pid);
	out = hw(args, &err, &rc);
	char *row = xasprintf("\nGrow$Leaked,%ld,", now - before);
	ck_assert_msg(rc == 0 && strstr(out, row) != NULL && strstr(err, "baseline: snap-000002.hprof") != NULL &&
		      strstr(err, "the JVM paused ") != NULL, "status %d: %s\n%s", rc, out, err);
	free(row);
	free(out);
	free(err);

	/* a fourth: the three newest stay, the first goes with its index */
	snprintf(args, sizeof args, "-q -e all %ld", (long)pid);
	out = hw(args, &err, &rc);
	ck_assert_msg(rc == 0 && *err == '\0', "status %d: %s", rc, err);
	free(out);
	free(err);
	ls = listing(dir);
	ck_assert_msg(ls != NULL && strstr(ls, "snap-000001") == NULL && strstr(ls, "snap-000002.hprof\n") &&
		      strstr(ls, "snap-000003.hprof\n") && strstr(ls, "snap-000004.hprof\n"), "kept: %s", ls);

	/* -o FILE: the snapshot there, nothing more in the cache */
	unlink(LIVEDIR "/o.hprof");
	snprintf(args, sizeof args, "-q -o " LIVEDIR "/o.hprof -f csv -e 'instances Grow$Leaked' %ld", (long)pid);
	out = hw(args, &err, &rc);
	row = xasprintf("\nGrow$Leaked,%ld,", now);
	ck_assert_msg(rc == 0 && strstr(out, row) != NULL && access(LIVEDIR "/o.hprof", R_OK) == 0, "status %d: %s\n%s",
		      rc, out, err);
	free(row);
	free(out);
	free(err);
	char *ls2 = listing(dir);
	ck_assert_msg(strcmp(ls, ls2) == 0, "-o wrote in the cache: %s", ls2);
	free(ls);
	free(ls2);
	end_workload(pid, hold);
	free(dir);
}
END_TEST

/* A process that is no runtime's (sleep, our child, every signal at its
 * default): refused in one line, status 2, no signal, nothing written
 * in the cache directory, not even the directory; with a file of its
 * number in the working directory, the file is opened instead. */
START_TEST(test_live_not_runtime)
{
	char args[64], *err;
	int rc, hold;

	fresh_cache();
	char *const argv[] = { "sleep", "120", NULL };
	pid_t pid = start_piped(argv, LIVEDIR "/sleep.log", &hold);
	char path[64], exe[4096];
	snprintf(path, sizeof path, "/proc/%ld/exe", (long)pid);
	for (double end = now_seconds() + hang_seconds(30); now_seconds() < end; usleep(50000)) {
		ssize_t n = readlink(path, exe, sizeof exe - 1);
		exe[n > 0 ? n : 0] = '\0';
		if (strstr(exe, "sleep") != NULL)
			break;
	}
	snprintf(args, sizeof args, "-e all %ld", (long)pid);
	free(hw(args, &err, &rc));
	char *want = xasprintf("heapwalk: PID %ld is not a JVM, .NET or Node process (it is %s)\n", (long)pid,
			       exe);
	ck_assert_msg(rc == 2 && strcmp(err, want) == 0, "status %d: %s", rc, err);
	free(want);
	free(err);
	ck_assert_msg(access(CACHE, F_OK) != 0, "the cache directory was made");
	/* a file named as the process: the file wins */
	char cmd[512];
	snprintf(cmd, sizeof cmd, "cd " LIVEDIR " && echo junk > %ld && XDG_CACHE_HOME=" CACHE " %s -e all %ld 2>&1",
		 (long)pid, heapwalk(), (long)pid);
	int st;
	err = run(cmd, &st);
	want = xasprintf("heapwalk: %ld: ", (long)pid);
	ck_assert_msg(strncmp(err, want, strlen(want)) == 0 && strstr(err, "not a JVM") == NULL, "%s", err);
	free(want);
	free(err);
	ck_assert_msg(access(CACHE, F_OK) != 0, "the cache directory was made");
	size_t n;
	snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
	char *s = file_bytes(path, &n);
	ck_assert_msg(waitpid(pid, NULL, WNOHANG) == 0 && strstr(s, "\nSigPnd:\t0000000000000000\n") &&
		      strstr(s, "\nShdPnd:\t0000000000000000\n"), "signalled: %s", s);
	free(s);
	end_workload(pid, hold);
}
END_TEST

/* .NET: the first marks the process (no baseline, the browser says so);
 * the second ends the mark, exact against the first, and marks again;
 * the third is exact against that mark. What each calls new of
 * Workload.AddedHolder is what the workload made in between. */
START_TEST(test_live_dotnet)
{
	char args[256], *err, *out;
	int rc, hold;

	if (!dotnet_workload())
		return;
	fresh_cache();
	char *const argv[] = { TEST_BUILDDIR "/dumps/dotnet/out/Workload", "grow", NULL };
	pid_t pid = start_piped(argv, LIVEDIR "/dotnet.log", &hold);
	ck_assert_int_eq(said(pid, LIVEDIR "/dotnet.log", "{\"pid\":", 1), pid);

	char *want = xasprintf("no baseline: this snapshot marks PID %ld", (long)pid);
	char *s = browse(pid, want, NULL, NULL);
	free(want);
	has(s, "snap-000001.nettrace");
	free(s);

	long before = 0;
	for (int run = 1; run <= 2; run++) {
		send_line(hold, "x\n");
		long now = said(pid, LIVEDIR "/dotnet.log", "{\"AddedHolder\":", run);
		snprintf(args, sizeof args, "-f csv -e 'new | instances Workload.AddedHolder' %ld", (long)pid);
		out = hw(args, &err, &rc);
		char *row = xasprintf("\nWorkload.AddedHolder,%ld,", now - before);
		const char *bl = run == 1 ? "baseline: snap-000001.nettrace" : "baseline: the mark of PID";
		ck_assert_msg(rc == 0 && strstr(out, row) != NULL && strstr(err, bl) != NULL &&
			      strstr(err, "; exact: ") != NULL && strstr(err, "the GC took ") != NULL,
			      "run %d: status %d: %s\n%s", run + 1, rc, out, err);
		free(row);
		free(out);
		free(err);
		before = now;
	}
	end_workload(pid, hold);
}
END_TEST

Suite *live_suite(void)
{
	Suite *s = suite_create("live");
	TCase *tc = tcase_create("live");

	tcase_set_timeout(tc, FIXTURE_TIMEOUT);
	tcase_add_test(tc, test_live_not_runtime);
	tcase_add_test(tc, test_live_jvm);
	tcase_add_test(tc, test_live_dotnet);
	suite_add_tcase(s, tc);
	return s;
}
