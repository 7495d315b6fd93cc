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
#include <glob.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
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
 * in log; as user `as` unless NULL. */
static pid_t start_piped_as(char *const argv[], const char *log, int *hold, const struct passwd *as)
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
		if (as != NULL && (setgroups(0, NULL) < 0 || setgid(as->pw_gid) < 0 || setuid(as->pw_uid) < 0))
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(in[0]);
	*hold = in[1];
	return pid;
}

static pid_t start_piped(char *const argv[], const char *log, int *hold)
{
	return start_piped_as(argv, log, hold, NULL);
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
	end_child(pid); /* our own child, not yet reaped */
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

/* The record heapwalk leaves in a process's directory: the boot and the
 * PID namespace of the heapwalk that made it, read here as the kernel
 * tells them (the test runs in heapwalk's namespace). */
static char *our_maker(void)
{
	size_t n;
	char ns[128];
	char *boot = file_bytes("/proc/sys/kernel/random/boot_id", &n);
	char *machine = file_bytes("/etc/machine-id", &n);
	ssize_t k = readlink("/proc/self/ns/pid", ns, sizeof ns - 1);

	ck_assert(k > 0);
	ns[k] = '\0';
	boot[strcspn(boot, "\n")] = '\0';
	machine[strcspn(machine, "\n")] = '\0';
	char *m = xasprintf("machine %s\nboot %s\npidns %s\n", machine, boot, ns);
	free(boot);
	free(machine);
	return m;
}

/* dir made, with record as its maker's (NULL: none) and the files named
 * (space-separated) in it. */
static void made_dir(const char *dir, const char *record, const char *files)
{
	char cmd[1024];

	snprintf(cmd, sizeof cmd, "mkdir -p -m 700 '%s' && cd '%s' && touch %s", dir, dir, files);
	ck_assert_int_eq(system(cmd), 0);
	if (record != NULL) {
		char *path = xasprintf("%s/made-by", dir);
		FILE *f = fopen(path, "w");
		ck_assert_ptr_nonnull(f);
		fputs(record, f);
		fclose(f);
		free(path);
	}
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
static char *browse_args(const char *args, const char *baseline, const char *step, char **title)
{
	struct term t;

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

static char *browse(pid_t pid, const char *baseline, const char *step, char **title)
{
	char args[64];

	snprintf(args, sizeof args, "%ld", (long)pid);
	return browse_args(args, baseline, step, title);
}

/* heapwalk ARGS in a pseudo-terminal (script(1)), TERM as term: what it
 * printed, its status in *rc. Input from /dev/null: it must not stay. */
static char *in_pty(const char *term, const char *args, int *rc)
{
	char cmd[2048];
	int st;

	snprintf(cmd, sizeof cmd, "cd " LIVEDIR " && TERM=%s XDG_CACHE_HOME=" CACHE " timeout %d script -qec '%s %s' "
		 "/dev/null </dev/null 2>&1", term, (int)hang_seconds(120), heapwalk(), args);
	char *out = run(cmd, &st);
	*rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return out;
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
	/* what earlier runs left: of ours (this boot, this PID namespace), an
	 * exited process's directory, and another's whose number pid 1 has (a
	 * start time not its); one of another machine's (or container's)
	 * heapwalk, whose processes /proc here does not show; one with no
	 * record; names not strictly pid-DIGITS-DIGITS; an exited process's
	 * with a temporary another heapwalk (this test, alive) is writing; a
	 * file of the cache */
	char *me = our_maker();
	char *pid1 = xasprintf(BASE "/pid-1-%llu", start_of(1) + 1);
	made_dir(BASE "/pid-999999999-5", me, "snap-000001.hprof snap-000001.hprof.hwi");
	made_dir(pid1, me, "snap-000003.hprof");
	made_dir(BASE "/pid-999999998-5", "boot 00000000-0000-0000-0000-000000000000\npidns pid:[1]\n",
		 "snap-000001.hprof");
	/* this machine before its last boot: its processes are all gone,
	 * even one whose number and start a process of this boot has (pid 1) */
	char *earlier = xstrdup(me);
	char *bl = strstr(earlier, "\nboot ");
	ck_assert_ptr_nonnull(bl);
	bl[7] = bl[7] == '0' ? '1' : '0'; /* another boot id */
	char *pid1now = xasprintf(BASE "/pid-1-%llu", start_of(1));
	made_dir(pid1now, earlier, "snap-000004.hprof");
	/* another machine's, of a process that has long ended here */
	made_dir(BASE "/pid-999999993-5", "machine 0123456789abcdef0123456789abcdef\nboot x\npidns pid:[1]\n",
		 "snap-000001.hprof");
	made_dir(BASE "/pid-999999997-5", NULL, "snap-000001.hprof");
	made_dir(BASE "/pid--999999996-5", me, "snap-000001.hprof");
	made_dir(BASE "/pid- 999999995-+5", me, "snap-000001.hprof");
	char *tmp = xasprintf("snap-000002.hprof.tmp-%ld", (long)getpid());
	char *files = xasprintf("snap-000001.hprof %s", tmp);
	made_dir(BASE "/pid-999999994-5", me, files);
	free(files);
	ck_assert_int_eq(system("touch " BASE "/0123-other.hwi"), 0);
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
	ck_assert_msg(ls != NULL && strstr(ls, "pid-999999999-5\n") == NULL && strstr(ls, strrchr(pid1, '/') + 1) == NULL &&
		      strstr(ls, "pid-999999998-5\n") != NULL && strstr(ls, "pid-999999997-5\n") != NULL &&
		      strstr(ls, strrchr(pid1now, '/') + 1) == NULL && strstr(ls, "pid-999999993-5\n") != NULL &&
		      strstr(ls, "pid--999999996-5\n") != NULL && strstr(ls, "pid- 999999995-+5\n") != NULL &&
		      strstr(ls, "0123-other.hwi\n") != NULL, "the cache directory: %s", ls ? ls : "none");
	free(ls);
	ls = listing(BASE "/pid-999999994-5");
	ck_assert_msg(ls != NULL && strstr(ls, tmp) != NULL && strstr(ls, "snap-000001.hprof\n") != NULL,
		      "a temporary being written: %s", ls ? ls : "the directory removed");
	free(ls);
	free(tmp);
	free(pid1);
	free(pid1now);
	free(earlier);
	free(me);
	struct stat st;
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0700);

	/* the JVM makes 250; the second: the first its baseline, 250 new */
	snprintf(line, sizeof line, "250\n");
	send_line(hold, line);
	long before = 0, now = said(pid, LIVEDIR "/grow.log", "LEAKED ", 1);
	ck_assert_int_eq(now, 250);
	s = browse(pid, "baseline: snap-000001.hprof", "new | instances Grow$Leaked", &title);
	has(s, "before this one; opened: exact"); /* the engine's word on it */
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

	/* -o FILE: the snapshot there, nothing more in the cache, and the
	 * browser does not promise the next run a baseline */
	unlink(LIVEDIR "/o.hprof");
	snprintf(args, sizeof args, "-o " LIVEDIR "/o.hprof %ld", (long)pid);
	want = xasprintf("no baseline: -o keeps no snapshot of PID %ld in the cache", (long)pid);
	s = browse_args(args, want, NULL, NULL);
	has(s, LIVEDIR "/o.hprof");
	free(want);
	free(s);
	ck_assert_int_eq(access(LIVEDIR "/o.hprof", R_OK), 0);
	/* with -e, -o would be the report's too: refused before anything */
	unlink(LIVEDIR "/o.csv");
	snprintf(args, sizeof args, "-f csv -o " LIVEDIR "/o.csv -e 'instances Grow$Leaked' %ld", (long)pid);
	out = hw(args, &err, &rc);
	ck_assert_msg(rc == 1 && strstr(err, "-o would be both the report's and the snapshot's") != NULL &&
		      strchr(err, '\n') == err + strlen(err) - 1 && access(LIVEDIR "/o.csv", F_OK) != 0,
		      "status %d: %s", rc, err);
	free(out);
	free(err);
	/* with a command, a number is a file, as ever */
	snprintf(args, sizeof args, "classes %ld", (long)pid);
	out = hw(args, &err, &rc);
	want = xasprintf("heapwalk: %ld: No such file or directory\n", (long)pid);
	ck_assert_msg(rc == 2 && strcmp(err, want) == 0, "status %d: %s", rc, err);
	free(want);
	free(out);
	free(err);
	/* a terminal the browser cannot set up, a baseline that is not
	 * there: refused first, the process untouched */
	snprintf(args, sizeof args, "%ld", (long)pid);
	out = in_pty("bogus", args, &rc);
	ck_assert_msg(rc == 1 && strstr(out, "cannot set up the terminal TERM=bogus") != NULL &&
		      strstr(out, "writes its heap") == NULL, "status %d: %s", rc, out);
	free(out);
	snprintf(args, sizeof args, "-b " LIVEDIR "/none.hprof %ld", (long)pid);
	out = in_pty("xterm", args, &rc);
	ck_assert_msg(rc == 2 && strstr(out, "none.hprof: No such file or directory") != NULL &&
		      strstr(out, "writes its heap") == NULL, "status %d: %s", rc, out);
	free(out);
	char *ls2 = listing(dir);
	ck_assert_msg(strcmp(ls, ls2) == 0, "written in the cache: %s", ls2);
	free(ls);
	free(ls2);

	/* two at once: distinct numbers, both there, none replaced */
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "cd " LIVEDIR " && (XDG_CACHE_HOME=" CACHE " %s -e all %ld >/dev/null 2>two1.err & "
		 "XDG_CACHE_HOME=" CACHE " %s -e all %ld >/dev/null 2>two2.err; s2=$?; wait $!; s1=$?; echo $s1 $s2)",
		 heapwalk(), (long)pid, heapwalk(), (long)pid);
	int wst;
	out = run(cmd, &wst);
	size_t n;
	char *e1 = file_bytes(LIVEDIR "/two1.err", &n), *e2 = file_bytes(LIVEDIR "/two2.err", &n);
	const char *f1 = strstr(e1, "heapwalk: snapshot "), *f2 = strstr(e2, "heapwalk: snapshot ");
	ck_assert_msg(strcmp(out, "0 0\n") == 0 && f1 != NULL && f2 != NULL &&
		      strncmp(f1, f2, strcspn(f1, ";")) != 0, "two at once: %s\n%s\n%s", out, e1, e2);
	ls = listing(dir);
	ck_assert_msg(strstr(ls, "snap-000005.hprof\n") && strstr(ls, "snap-000006.hprof\n"), "two at once: %s", ls);
	free(ls);
	free(e1);
	free(e2);
	free(out);

	/* the newest cut short: passed over, with a line; the one before is
	 * the baseline */
	char *six = xasprintf("%s/snap-000006.hprof", dir);
	ck_assert_int_eq(stat(six, &st), 0);
	ck_assert_int_eq(truncate(six, st.st_size / 2), 0);
	snprintf(args, sizeof args, "-f csv -e 'new | instances Grow$Leaked' %ld", (long)pid);
	out = hw(args, &err, &rc);
	char *skip = xasprintf("heapwalk: %s: not taken as the baseline: ", six);
	ck_assert_msg(rc == 0 && strstr(err, skip) != NULL && strstr(err, "; baseline: snap-000005.hprof") != NULL,
		      "status %d: %s", rc, err);
	free(skip);
	free(six);
	free(out);
	free(err);
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
	/* our own sleep, which would not end when its input does: ended now,
	 * not after end_workload's wait for a hang */
	close(hold);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}
END_TEST

/* Root on nobody's JVM, no -o: refused in one line before the JVM is
 * touched (its agent would run a full GC, then fail to write into
 * root's cache directory): no attach socket made, no signal, nothing in
 * the cache. */
START_TEST(test_live_other_user)
{
	char args[64], sock[64], *err;
	int rc, hold;

	if (geteuid() != 0) {
		fprintf(stderr, "live: not root: another user's JVM is not tested\n");
		return;
	}
	if (!have_jdk())
		return;
	struct passwd *pw = getpwnam("nobody");
	ck_assert_msg(pw != NULL, "no user nobody");
	fresh_cache();
	char *const argv[] = { getenv("JAVA"), "-XX:+UseSerialGC", "-cp", LIVEDIR "/classes", "Grow", NULL };
	pid_t pid = start_piped_as(argv, LIVEDIR "/nobody.log", &hold, pw);
	ck_assert_int_eq(said(pid, LIVEDIR "/nobody.log", "READY ", 1), pid);
	snprintf(args, sizeof args, "-e all %ld", (long)pid);
	free(hw(args, &err, &rc));
	char *want = xasprintf("heapwalk: PID %ld is %s's (uid %ld): its runtime writes the snapshot itself, as that "
			       "user, and cannot write into your cache directory: give -o FILE in a directory that "
			       "user may write\n", (long)pid, pw->pw_name, (long)pw->pw_uid);
	ck_assert_msg(rc == 2 && strcmp(err, want) == 0, "status %d: %s", rc, err);
	free(want);
	free(err);
	snprintf(sock, sizeof sock, "/tmp/.java_pid%ld", (long)pid);
	ck_assert_msg(access(sock, F_OK) != 0 && access(CACHE, F_OK) != 0, "the JVM was attached to, or the cache made");
	snprintf(args, sizeof args, "/proc/%ld/status", (long)pid);
	size_t n;
	char *s = file_bytes(args, &n);
	ck_assert_msg(strstr(s, "\nSigPnd:\t0000000000000000\n") && strstr(s, "\nShdPnd:\t0000000000000000\n"),
		      "signalled: %s", s);
	free(s);
	end_workload(pid, hold);
}
END_TEST

/* The .NET workload exe in `mode`, its log LIVEDIR/LOG, the cache
 * fresh, once it has said its pid: that pid. */
static pid_t workload_piped(const char *exe, const char *mode, const char *log, int *hold)
{
	fresh_cache();
	char *const argv[] = { (char *)exe, (char *)mode, NULL };
	pid_t pid = start_piped(argv, log, hold);
	ck_assert_int_eq(said(pid, log, "{\"pid\":", 1), pid);
	return pid;
}

/* heapwalk snapshot PID LIVEDIR/name, no file of that name (nor its
 * mark) there before: it succeeds */
static void snapshot_to(pid_t pid, const char *name)
{
	char *path = xasprintf(LIVEDIR "/%s", name), *mark = xasprintf("%s.hwmark", path);
	char *args = xasprintf("snapshot %ld %s", (long)pid, path), *err;
	int rc;

	unlink(path);
	unlink(mark);
	free(hw(args, &err, &rc));
	ck_assert_msg(rc == 0, "%s: %s", args, err);
	free(err);
	free(args);
	free(mark);
	free(path);
}

/* workload_piped of the workload built for this machine's .NET (-1: no
 * dotnet here, skipped) */
static pid_t dotnet_piped(const char *mode, const char *log, int *hold)
{
	if (!dotnet_workload())
		return -1;
	return workload_piped(TEST_BUILDDIR "/dumps/dotnet/out/Workload", mode, log, hold);
}

/* .NET: the first marks the process (no baseline, the browser says so);
 * the second ends the mark, exact against the first, and marks again;
 * the third is exact against that mark. What each calls new of
 * Workload.AddedHolder is what the workload made in between. */
START_TEST(test_live_dotnet)
{
	char args[256], *err, *out;
	int rc, hold;

	pid_t pid = dotnet_piped("grow", LIVEDIR "/dotnet.log", &hold);
	if (pid < 0)
		return;

	char *want = xasprintf("no baseline: this snapshot marks PID %ld", (long)pid);
	char *s = browse(pid, want, NULL, NULL);
	free(want);
	has(s, "snap-000001.nettrace");
	free(s);

	long before = 0, now = 0;
	char *mdir = xasprintf(BASE "/dotnet-%ld-%llu", (long)pid, start_of(pid));
	for (int run = 1; run <= 2; run++) {
		send_line(hold, "x\n");
		now = said(pid, LIVEDIR "/dotnet.log", "{\"AddedHolder\":", run);
		snprintf(args, sizeof args, "-f json -e 'new | instances Workload.AddedHolder' %ld", (long)pid);
		out = hw(args, &err, &rc);
		char *row = xasprintf("{\"class\":\"Workload.AddedHolder\",\"instances\":%ld,", now - before);
		const char *bl = run == 1 ? "; baseline: snap-000001.nettrace" : "; baseline: the mark of PID";
		/* the first: the mark's heap is the snapshot before, opened as
		 * --baseline opens it (what is gone too), exact by the mark */
		ck_assert_msg(run != 1 || strstr(out, "\"identity\":\"exact: the baseline is the heap at the mark") != NULL,
			      "run %d: not against the snapshot before: %s", run + 1, out);
		ck_assert_msg(rc == 0 && strstr(out, row) != NULL && strstr(err, bl) != NULL &&
			      strstr(err, "mark: exact") != NULL && strstr(err, "\nheapwalk: the baseline, opened: exact\n") &&
			      strstr(err, "the GC took ") != NULL, "run %d: status %d: %s\n%s", run + 1, rc, out, err);
		free(row);
		free(out);
		free(err);
		before = now;
	}

	/* the mark's recorder killed: the replay is not exact, and neither
	 * the line nor the engine says it is */
	char *sess = xasprintf("%s/session", mdir);
	size_t n;
	char *note = file_bytes(sess, &n);
	unsigned long long id;
	long rpid;
	ck_assert_int_eq(sscanf(note, "%llu %ld", &id, &rpid), 2);
	ck_assert_int_eq(kill((pid_t)rpid, SIGKILL), 0); /* heapwalk's recorder, started for this test */
	free(note);
	free(sess);
	send_line(hold, "x\n");
	now = said(pid, LIVEDIR "/dotnet.log", "{\"AddedHolder\":", 3);
	snprintf(args, sizeof args, "-f csv -e 'new | instances Workload.AddedHolder' %ld", (long)pid);
	out = hw(args, &err, &rc);
	ck_assert_msg(rc == 0 && strstr(err, "mark: not exact") != NULL &&
		      strstr(err, "; baseline: the mark of PID") != NULL && strstr(err, "exact: its GC") == NULL &&
		      strstr(err, "\nheapwalk: the baseline, opened: not exact: ") != NULL,
		      "killed recorder: status %d: %s\n%s", rc, out, err);
	free(out);
	free(err);

	/* the reviewer's sequence: the mark ended by snapshot, then heapwalk
	 * mark's: the line names that mark by its own time, not the snapshot
	 * before */
	snprintf(args, sizeof args, "snapshot %ld " LIVEDIR "/x.nettrace", (long)pid);
	unlink(LIVEDIR "/x.nettrace");
	unlink(LIVEDIR "/x.nettrace" ".hwmark");
	free(hw(args, &err, &rc));
	ck_assert_msg(rc == 0, "snapshot: %s", err);
	free(err);
	snprintf(args, sizeof args, "mark %ld", (long)pid);
	free(hw(args, &err, &rc));
	ck_assert_msg(rc == 0, "mark: %s", err);
	free(err);
	char *mk = xasprintf("%s/mark", mdir);
	struct stat st;
	struct tm tm;
	char t[16];
	ck_assert_int_eq(stat(mk, &st), 0);
	ck_assert_ptr_nonnull(localtime_r(&st.st_mtime, &tm));
	strftime(t, sizeof t, "%H:%M:%S", &tm);
	free(mk);
	snprintf(args, sizeof args, "-e all %ld", (long)pid);
	out = hw(args, &err, &rc);
	char *want_at = xasprintf("; baseline: the mark of PID %ld made at %s\n", (long)pid, t);
	ck_assert_msg(rc == 0 && strstr(err, want_at) != NULL && strstr(err, "made right after") == NULL,
		      "after heapwalk mark: status %d: %s (want %s)", rc, err, want_at);
	free(want_at);
	free(out);
	free(err);
	/* the recorder that -e started holds none of its caller's
	 * descriptors: not the workload's stdin, which every heapwalk here
	 * inherits (as a script's pipe would be): the workload ends when we
	 * close it, not when the recorder does (it waited for the workload) */
	sess = xasprintf("%s/session", mdir);
	note = file_bytes(sess, &n);
	ck_assert_int_eq(sscanf(note, "%llu %ld", &id, &rpid), 2);
	free(note);
	free(sess);
	struct stat hs;
	ck_assert_int_eq(fstat(hold, &hs), 0);
	char held[64], fdpath[128], link[128];
	snprintf(held, sizeof held, "pipe:[%llu]", (unsigned long long)hs.st_ino);
	snprintf(fdpath, sizeof fdpath, "/proc/%ld/fd", rpid);
	DIR *dd = opendir(fdpath);
	ck_assert_msg(dd != NULL, "the recorder, PID %ld, is not running", rpid);
	for (struct dirent *e; (e = readdir(dd)) != NULL;) {
		char fp[512];
		snprintf(fp, sizeof fp, "%s/%s", fdpath, e->d_name);
		ssize_t k = readlink(fp, link, sizeof link - 1);
		link[k > 0 ? k : 0] = '\0';
		ck_assert_msg(strcmp(link, held) != 0, "the recorder holds the workload's stdin (fd %s)", e->d_name);
	}
	closedir(dd);
	free(mdir);
	end_workload(pid, hold);
}
END_TEST

/* .NET type names that are not ASCII, from a live process's snapshot
 * (a trace): each its own class, spelt as the program spells it, with
 * the counts the program made (two names alike but for one letter
 * were once one class of both, its name with '?' for the letter). */
START_TEST(test_live_dotnet_names)
{
	char *err, *out;
	int rc, hold;

	pid_t pid = dotnet_piped("names", LIVEDIR "/names.log", &hold);
	if (pid < 0)
		return;
	double t0 = now_seconds();
	snapshot_to(pid, "names.nettrace");
	/* a hang, not a speed: the session's StopTracing waited for its reply
	 * (30 s) while the runtime waited to write its rundown to the stream
	 * nobody read (the snapshot takes 0.2 s) */
	ck_assert_msg(now_seconds() - t0 < hang_seconds(20), "snapshot: %.1f s", now_seconds() - t0);
	out = hw("-q --no-cache classes -f csv -n 0 " LIVEDIR "/names.nettrace", &err, &rc);
	ck_assert_msg(rc == 0, "%s", err);
	static const char *const want[] = { "\nWorkload.Käse,100,", "\nWorkload.Köse,200,", "\nWorkload.数据,300," };
	for (size_t i = 0; i < 3; i++)
		ck_assert_msg(strstr(out, want[i]) != NULL, "no %s in %.400s", want[i] + 1, out);
	/* the two 40-deep generic types apart, each name whole (a name cut
	 * at 1000 bytes made them one class of 30): 40 times the type's name,
	 * its arity and a '[', the innermost argument, 40 ']' */
	for (int k = 0; k < 2; k++) {
		struct sbuf name;
		sbuf_init(&name);
		sbuf_adds(&name, "\n");
		for (int i = 0; i < 40; i++)
			sbuf_adds(&name, "Workload.DeepGenericNameHolderPadding`1[");
		sbuf_adds(&name, k == 0 ? "System.Int32" : "System.Int64");
		for (int i = 0; i < 40; i++)
			sbuf_addc(&name, ']');
		sbuf_adds(&name, k == 0 ? ",10," : ",20,");
		ck_assert_msg(name.len > 1500 && strstr(out, name.buf) != NULL, "no %.80s...%s in %.400s", name.buf + 1,
			      name.buf + name.len - 60, out);
		sbuf_free(&name);
	}
	/* the lambdas' classes "<>c": one class per module, each with as
	 * many objects as the workload counted of its module's "<>c"
	 * classes (reflection, each one's instance made), none bare: the
	 * snapshot's rundown names the modules */
	size_t len;
	char *log = file_bytes(LIVEDIR "/names.log", &len), *l = log != NULL ? strstr(log, "\"Lambdas\":{") : NULL;
	ck_assert_msg(l != NULL, "%s", log != NULL ? log : "no log");
	int mods = 0;
	for (const char *q = l + 11; *q == '"'; mods++) {
		const char *e = strchr(q + 1, '"');
		ck_assert_ptr_nonnull(e);
		long n = strtol(e + 2, NULL, 10);
		char key[300];
		snprintf(key, sizeof key, "\n\"<>c [%.*s]\",%ld,", (int)(e - q - 1), q + 1, n);
		ck_assert_msg(n > 0 && strstr(out, key) != NULL, "no %s in %.400s", key + 1, out);
		q = e + 2;
		while (*q >= '0' && *q <= '9')
			q++;
		if (*q == ',')
			q++;
	}
	ck_assert_msg(mods >= 2 && strstr(out, "\n<>c,") == NULL, "%d modules: %.300s", mods, l);
	free(log);
	/* the rundown asked for is the loader's: the modules, not every
	 * JIT-compiled method (the runtime's default rundown named them all,
	 * Named.Lambdas among them, in UTF-16; nothing else in a heap's trace
	 * names a method) */
	char *trace = file_bytes(LIVEDIR "/names.nettrace", &len);
	static const char method[] = "L\0a\0m\0b\0d\0a\0s\0";
	ck_assert_msg(trace != NULL && memmem(trace, len, method, sizeof method - 1) == NULL,
		      "the trace names the method Lambdas: the JIT's rundown was asked for");
	free(trace);
	free(out);
	free(err);
	/* stopped (SIGSTOP), its runtime answers nothing: refused at once,
	 * as a stopped JVM or Node is, not after the wait for a reply that
	 * blamed the process ("it exited, or is not a .NET runtime") */
	ck_assert_int_eq(kill(pid, SIGSTOP), 0);
	char *args = xasprintf("snapshot %ld " LIVEDIR "/stopped.nettrace", (long)pid);
	free(hw(args, &err, &rc));
	/* and heapwalk PID: no line of work begun, no directory made for
	 * it in the cache */
	char *info = xasprintf("-e info %ld", (long)pid), *info_err, *dir = xasprintf(CACHE "/heapwalk/pid-%ld-*",
										      (long)pid);
	int info_rc;
	glob_t g;
	ck_assert_msg(glob(dir, 0, NULL, &g) == GLOB_NOMATCH, "%s is there before", dir);
	globfree(&g);
	free(hw(info, &info_err, &info_rc));
	ck_assert_int_eq(kill(pid, SIGCONT), 0);
	char *said = xasprintf("heapwalk: PID %ld is stopped (SIGSTOP, or ^Z)", (long)pid);
	ck_assert_msg(rc == 2 && strncmp(err, said, strlen(said)) == 0 && strchr(err, '\n') == err + strlen(err) - 1,
		      "status %d: %s", rc, err);
	ck_assert(access(LIVEDIR "/stopped.nettrace", F_OK) != 0);
	ck_assert_msg(info_rc == 2 && strcmp(info_err, err) == 0, "heapwalk %s: status %d: %s", info, info_rc,
		      info_err);
	ck_assert_msg(glob(dir, 0, NULL, &g) == GLOB_NOMATCH, "heapwalk %s made %s", info, dir);
	globfree(&g);
	free(info);
	free(info_err);
	free(dir);
	free(said);
	free(args);
	free(err);
	end_workload(pid, hold);
}
END_TEST

/* A .NET type name one module had in the first two snapshots and two
 * in the next ("Lonely", a nested class, and an emitted one of that
 * name): the class is one from dump to dump, matched by its module (its
 * name became "Lonely [Workload.dll]"), not gone and new. The counts are
 * the workload's (its log): diff's class rows, the browser's against a
 * baseline, and a series' class and cluster growth. */
START_TEST(test_live_dotnet_modules)
{
	char args[1024], *err, *out;
	int rc, hold;

	pid_t pid = dotnet_piped("modules", LIVEDIR "/modules.log", &hold);
	if (pid < 0)
		return;
	long lonely[4];
	lonely[0] = said(pid, LIVEDIR "/modules.log", "\"Lonely\":", 1);
	for (int i = 0; i < 4; i++) {
		if (i > 0) {
			send_line(hold, "x\n");
			lonely[i] = said(pid, LIVEDIR "/modules.log", "\"Lonely\":", i + 1);
			ck_assert_int_eq(said(pid, LIVEDIR "/modules.log", "\"Emitted\":", i), i < 2 ? 0 : 7);
		}
		snprintf(args, sizeof args, "mod%d.nettrace", i);
		snapshot_to(pid, args);
	}
	/* the premise: one module's name bare, then two modules' named by them */
	out = hw("-q --no-cache classes -f csv -n 0 " LIVEDIR "/mod1.nettrace", &err, &rc);
	snprintf(args, sizeof args, "\nLonely,%ld,", lonely[1]);
	ck_assert_msg(rc == 0 && strstr(out, args) != NULL, "no %s in %.400s", args + 1, out);
	free(out);
	free(err);
	out = hw("-q -f csv diff " LIVEDIR "/mod1.nettrace " LIVEDIR "/mod2.nettrace", &err, &rc);
	char *same = xasprintf("\n\"Lonely [Workload.dll]\",%ld,%ld,%ld,", lonely[1], lonely[2], lonely[2] - lonely[1]);
	ck_assert_msg(rc == 0 && strstr(out, same) != NULL && strstr(out, "\n\"Lonely [Emitted]\",0,7,7,") != NULL &&
		      strstr(out, "\nLonely,") == NULL, "diff: no %s or Emitted's 0,7, or a bare Lonely: %.600s",
		      same + 1, out);
	free(same);
	free(out);
	free(err);
	/* the browser's classes against the baseline: the class's growth, not
	 * all of it new, and no row of the baseline's alone */
	struct term t;
	term_start(&t, 200, 30, "XDG_CACHE_HOME=" CACHE,
		   "--baseline " LIVEDIR "/mod1.nettrace " LIVEDIR "/mod2.nettrace");
	free(wait_for(&t, "(sort: growth)"));
	keys(&t, "f");
	type(&t, "Lonely");
	keys(&t, "Enter");
	char *scr = wait_for(&t, "Lonely [Emitted]");
	char *row = line_of(scr, "Lonely [Workload.dll]");
	long now_n = -1, delta = -1; /* its instances and +/- columns */
	const char *at = row != NULL ? strstr(row, "Lonely [Workload.dll]") : NULL;
	if (at != NULL)
		sscanf(at + 21, "%ld %ld", &now_n, &delta);
	ck_assert_msg(now_n == lonely[2] && delta == lonely[2] - lonely[1] && strstr(scr, "baseline only") == NULL,
		      "not %ld +%ld in the row of Lonely [Workload.dll], or a class of the baseline alone:\n%s",
		      lonely[2], lonely[2] - lonely[1], scr);
	free(row);
	free(scr);
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
	/* a series: the class grew in each, shown by its first dump's name;
	 * and the cluster of the objects new since the first (30 a step, in
	 * the workload's List; inferred: some may be unidentified) is one
	 * that grew, its trace's class named as in the second dump (where
	 * clusters begin) */
	out = hw("-q -f csv leaks " LIVEDIR "/mod0.nettrace " LIVEDIR "/mod1.nettrace " LIVEDIR "/mod2.nettrace "
		 LIVEDIR "/mod3.nettrace", &err, &rc);
	snprintf(args, sizeof args, "\nclass,%ld,%ld,%ld,%ld,", lonely[0], lonely[1], lonely[2], lonely[3]);
	char *line = strstr(out, args), *eol = line != NULL ? strchr(line + 1, '\n') : NULL;
	ck_assert_msg(rc == 0 && eol != NULL && eol - line > 7 && strncmp(eol - 7, ",Lonely", 7) == 0 &&
		      strstr(out, "Lonely [") == NULL, "leaks: no row %s...,Lonely, or one named by its module: %.800s",
		      args + 1, out);
	long c[3] = { 0, 0, 0 };
	line = strstr(out, "\ncluster,0,");
	eol = line != NULL ? strchr(line + 1, '\n') : NULL;
	ck_assert_msg(eol != NULL && sscanf(line, "\ncluster,0,%ld,%ld,%ld,", &c[0], &c[1], &c[2]) == 3 &&
		      0 < c[0] && c[0] < c[1] && c[1] < c[2] && c[2] <= lonely[3] - lonely[0] && eol - line > 11 &&
		      strncmp(eol - 11, " -> Lonely\"", 11) == 0,
		      "leaks: no cluster 0,a,b,c (0 < a < b < c <= %ld) of a trace to Lonely: %.800s",
		      lonely[3] - lonely[0], out);
	free(out);
	free(err);
	end_workload(pid, hold);
}
END_TEST

/* Traces without module names (the recorded ones, of the same program:
 * an earlier heapwalk's) against heapwalk's snapshots now, which name
 * them: diff's classes matched by name, not apart by the qualified names
 * only some have (then no row grew). The counts: tests/dotnet/README's
 * 200, then the workload's own. A leaks series of the two runs is
 * refused: no object of one run is one of the other's. */
START_TEST(test_live_dotnet_series_mixed)
{
	char args[512], *err, *out;
	int rc, hold;
	long n[2];

	pid_t pid = dotnet_piped("grow", LIVEDIR "/mixed.log", &hold);
	if (pid < 0)
		return;
	for (int i = 0; i < 2; i++) {
		send_line(hold, i == 0 ? "x\nx\n" : "x\n"); /* 400 (the series must grow past 200), then 600 */
		n[i] = said(pid, LIVEDIR "/mixed.log", "{\"AddedHolder\":", i == 0 ? 2 : 3);
		snprintf(args, sizeof args, "mixed%d.nettrace", i);
		snapshot_to(pid, args);
	}
	/* the premise: the snapshot names the modules ("<>c" of two, two
	 * classes), the recorded trace does not (one class) */
	out = hw("-q --no-cache -f csv classes -n 0 " LIVEDIR "/mixed0.nettrace", &err, &rc);
	ck_assert_msg(rc == 0 && strstr(out, "\n\"<>c [System.Private.CoreLib.dll]\",") != NULL, "%.600s", out);
	free(out);
	free(err);
	out = hw("-q --no-cache -f csv classes -n 0 " TEST_SRCDIR "/dotnet/workload-1.nettrace", &err, &rc);
	ck_assert_msg(rc == 0 && strstr(out, "\n<>c,") != NULL, "%.600s", out);
	free(out);
	free(err);
	out = hw("-q -f csv diff " TEST_SRCDIR "/dotnet/workload-2.nettrace " LIVEDIR "/mixed1.nettrace", &err, &rc);
	char *row = xasprintf("\nWorkload.AddedHolder,200,%ld,", n[1]);
	ck_assert_msg(rc == 0 && strstr(out, row) != NULL, "status %d (want %s): %.800s\n%s", rc, row + 1, out, err);
	free(row);
	free(out);
	free(err);
	out = hw("-q -f csv leaks " TEST_SRCDIR "/dotnet/workload-1.nettrace " TEST_SRCDIR "/dotnet/workload-2.nettrace "
		 LIVEDIR "/mixed0.nettrace " LIVEDIR "/mixed1.nettrace", &err, &rc);
	ck_assert_msg(rc == 2 && strstr(err, " are heaps of two runs of the program (process ") != NULL,
		      "status %d: %.300s\n%s", rc, out, err);
	free(out);
	free(err);
	end_workload(pid, hold);
}
END_TEST

#define DN8 TEST_BUILDDIR "/dumps/dotnet8/out"

/* .NET 8, whose diagnostics server refuses CollectTracing4 (what
 * heapwalk asks a runtime for first): snapshot asks again with
 * CollectTracing2, and the dump holds what the workload made; a mark
 * then a snapshot, what is new exact. The runtime the workload's own,
 * published with it: the premise asserted (its libcoreclr.so mapped,
 * its version 8). */
START_TEST(test_live_dotnet8)
{
	char args[256], *err, *out;
	int rc, hold;
	size_t n;

	if (!dotnet8_workload())
		return;
	char *rc8 = file_bytes(DN8 "/Workload.runtimeconfig.json", &n);
	ck_assert_msg(strstr(rc8, "\"version\": \"8.0.") != NULL, "not .NET 8: %s", rc8);
	free(rc8);
	pid_t pid = workload_piped(DN8 "/Workload", "grow", LIVEDIR "/dotnet8.log", &hold);
	char maps[64];
	snprintf(maps, sizeof maps, "/proc/%ld/maps", (long)pid);
	char *m = file_bytes(maps, &n);
	ck_assert_msg(strstr(m, DN8 "/libcoreclr.so") != NULL, "the workload's own runtime is not mapped");
	free(m);
	long sessions = said(pid, LIVEDIR "/dotnet8.log", "\"Session\":", 1),
	     entries = said(pid, LIVEDIR "/dotnet8.log", "\"CacheEntry\":", 1);

	unlink(LIVEDIR "/n8.nettrace");
	unlink(LIVEDIR "/n8.nettrace.hwmark");
	snprintf(args, sizeof args, "snapshot %ld " LIVEDIR "/n8.nettrace", (long)pid);
	out = hw(args, &err, &rc);
	const char *said8 = "snapshot " LIVEDIR "/n8.nettrace: ";
	ck_assert_msg(rc == 0 && strncmp(out, said8, strlen(said8)) == 0, "status %d: %s%s", rc, out, err);
	free(out);
	free(err);
	out = hw("-q --no-cache -f csv classes -n 0 " LIVEDIR "/n8.nettrace", &err, &rc);
	char *s1 = xasprintf("\nWorkload.Session,%ld,", sessions), *s2 = xasprintf("\nWorkload.CacheEntry,%ld,", entries);
	ck_assert_msg(rc == 0 && strstr(out, s1) != NULL && strstr(out, s2) != NULL, "status %d (want %s, %s): %s\n%s",
		      rc, s1 + 1, s2 + 1, out, err);
	free(s1);
	free(s2);
	free(out);
	free(err);

	snprintf(args, sizeof args, "mark %ld", (long)pid);
	free(hw(args, &err, &rc));
	ck_assert_msg(rc == 0, "mark: %s", err);
	free(err);
	send_line(hold, "x\n");
	long added = said(pid, LIVEDIR "/dotnet8.log", "{\"AddedHolder\":", 1);
	snprintf(args, sizeof args, "-f csv -e 'new | instances Workload.AddedHolder' %ld", (long)pid);
	out = hw(args, &err, &rc);
	char *row = xasprintf("\nWorkload.AddedHolder,%ld,", added);
	ck_assert_msg(rc == 0 && strstr(out, row) != NULL && strstr(err, "mark: exact") != NULL &&
		      strstr(err, "\nheapwalk: the baseline, opened: exact\n") != NULL,
		      "new: status %d (want %s): %s\n%s", rc, row + 1, out, err);
	free(row);
	free(out);
	free(err);
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
	tcase_add_test(tc, test_live_other_user);
	tcase_add_test(tc, test_live_dotnet);
	tcase_add_test(tc, test_live_dotnet_names);
	tcase_add_test(tc, test_live_dotnet_modules);
	tcase_add_test(tc, test_live_dotnet8);
	tcase_add_test(tc, test_live_dotnet_series_mixed);
	suite_add_tcase(s, tc);
	return s;
}
