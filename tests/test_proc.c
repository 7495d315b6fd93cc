/* test_proc.c — heapwalk mark and snapshot PID against processes that
 * are not theirs to touch, each a real process started here with every
 * signal at its default (as a service runs): Python and Node, whom a
 * SIGQUIT kills, Python with handlers that log any signal, a JVM that
 * neither handles SIGQUIT nor listens for an attach, a JVM with attach
 * off (told by its perf data), one without perf data, a stopped JVM,
 * one behind a socket another user planted or a stale one (attached to
 * with no jcmd on heapwalk's PATH, each signalled at most once), a
 * process of another user, one whose maps may not be read, a zombie, a
 * thread, a PID that does not exist; fake JVMs (tests/fakejvm.c, in a
 * private /tmp): a file named libjvm.so mapped by what is no JVM, perf
 * data but no socket ever (the 10 s wait), an attach answer of 2 MiB,
 * terminal controls in the agent's status line and in HotSpot's dump
 * message, HotSpot's dump fetched from its /tmp (its directory swapped
 * for a link to ours, a link or FIFO at the dump, dumps not whole, 1.0.1
 * dumps, heapwalk stopped or out of time while the JVM dumps, as root
 * and as the JVM's user). Each is refused in one line naming
 * what it is (or marked, where it can be), no file
 * is written, and the process goes on as it was: not ended, not stopped,
 * no signal pending, no handler run. Beside a real .NET runtime, sockets
 * another user could plant (a larger key, the runtime's own name owned by
 * another user, a link, one served by another process) are never used. */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/devtools.h"
#include "hprofw.h"
#include "stream.h"
#include "suites.h"
#include "util.h"

#define PROCDIR TEST_BUILDDIR "/dumps/proc"

/* Every process started here ends by itself after this long, should a
 * failed test leave it behind. */
#define LIFE_S "120"

/* heapwalk runs with this PATH, where there is no jcmd: it speaks the
 * JVM's attach protocol itself. */
#define NOJCMD PROCDIR "/nojcmd"

static int plant(const char *path, int foreign);
static void wait_exec(pid_t pid, const char *name);
static pid_t start_logged(char *const argv[], const char *name, int as_nobody);
/* start_logged's processes die with this test's process, while set (a
 * frozen JVM would not end by itself after LIFE_S). */
static int tied;
static void wait_state(pid_t pid, char s);
static void assert_nothing_pending(pid_t pid, const char *what);
static void assert_unused(int s, int connected, const char *what);

static void procdir(void)
{
	ck_assert_int_eq(system("mkdir -p " NOJCMD), 0);
	ck_assert_msg(system("PATH=" NOJCMD " command -v jcmd >/dev/null 2>&1") != 0, "jcmd on " NOJCMD);
}

/* In a child: every signal at its default and none blocked, the
 * standard streams on /dev/null. */
static void as_a_service(void)
{
	sigset_t none;
	int nul = open("/dev/null", O_RDWR);

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int s = 1; s < NSIG; s++)
		signal(s, SIG_DFL); /* SIGKILL, SIGSTOP and glibc's own refuse: no matter */
	dup2(nul, 0);
	dup2(nul, 1);
	dup2(nul, 2);
}

/* nobody's uid and gid. */
static void nobody(uid_t *uid, gid_t *gid)
{
	struct passwd *pw = getpwnam("nobody");

	ck_assert_msg(pw != NULL, "no user nobody");
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
}

/* A JVM attach socket at a child's PID, made before the child was
 * forked (at `before`): left by an earlier process of that PID killed
 * without its clean exit (on a machine that ran tests before, hundreds
 * of them). Taken for the child's, it would change what heapwalk says
 * of a JVM that has none: removed. */
static void clear_stale_socket(pid_t pid, const struct timespec *before)
{
	char sock[64];
	struct stat st;

	snprintf(sock, sizeof sock, "/tmp/.java_pid%ld", (long)pid);
	if (lstat(sock, &st) == 0 && S_ISSOCK(st.st_mode) &&
	    (st.st_ctim.tv_sec < before->tv_sec ||
	     (st.st_ctim.tv_sec == before->tv_sec && st.st_ctim.tv_nsec < before->tv_nsec)))
		unlink(sock);
}

/* argv in a child, as a service; as nobody with as_nobody. */
static pid_t start(char *const argv[], int as_nobody)
{
	uid_t uid;
	gid_t gid;
	pid_t pid;
	struct timespec before;

	nobody(&uid, &gid);
	clock_gettime(CLOCK_REALTIME, &before);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		as_a_service();
		if (as_nobody && (setgroups(0, NULL) < 0 || setgid(gid) < 0 || setuid(uid) < 0))
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	clear_stale_socket(pid, &before);
	return pid;
}

/* Wait for path to exist (60 s at most: a hang, not a speed). */
static void wait_ready(const char *path, pid_t pid)
{
	int st = 0;

	for (double end = now_seconds() + hang_seconds(60); now_seconds() < end;) {
		if (access(path, F_OK) == 0)
			return;
		ck_assert_msg(waitpid(pid, &st, WNOHANG) == 0, "process %ld ended (status %d) before %s", (long)pid, st,
			      path);
		usleep(100000);
	}
	ck_abort_msg("%s: not there after 60 s", path);
}

/* The process is as it was: not ended, running or sleeping, no signal
 * pending for it or its threads. */
static void assert_untouched(pid_t pid, const char *what)
{
	char path[64];
	size_t n;
	int st = 0;

	ck_assert_msg(waitpid(pid, &st, WNOHANG) == 0, "%s: ended, %s %d", what,
		      WIFSIGNALED(st) ? "signal" : "exit", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
	char *s = file_bytes(path, &n);
	const char *state = strstr(s, "\nState:\t");
	ck_assert_msg(state != NULL && (state[8] == 'S' || state[8] == 'R'), "%s: %s", what, s);
	ck_assert_msg(strstr(s, "\nSigPnd:\t0000000000000000\n") && strstr(s, "\nShdPnd:\t0000000000000000\n"),
		      "%s: a signal is pending: %s", what, s);
	free(s);
}

static void end(pid_t pid)
{
	end_child(pid); /* our own child, not yet reaped: it is the one */
}

/* heapwalk ARGS, as nobody with as_nobody: its standard error, its exit
 * status in *rc. */
static char *hw_stderr(const char *args, int as_nobody, int *rc)
{
	char cmd[2048];
	uid_t uid;
	gid_t gid;
	int st;

	nobody(&uid, &gid);
	if (as_nobody)
		snprintf(cmd, sizeof cmd, "setpriv --reuid=%ld --regid=%ld --clear-groups env PATH=" NOJCMD " %s %s "
			 "2>&1 >/dev/null", (long)uid, (long)gid, heapwalk(), args);
	else
		snprintf(cmd, sizeof cmd, "env PATH=" NOJCMD " %s %s 2>&1 >/dev/null", heapwalk(), args);
	char *out = run(cmd, &st);
	*rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return out;
}

/* No FILE and no FILE.tmp-* in PROCDIR. */
static void assert_nothing_written(const char *file)
{
	DIR *d = opendir(PROCDIR);
	struct dirent *e;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL)
		ck_assert_msg(strncmp(e->d_name, file, strlen(file)) != 0, "written: %s", e->d_name);
	closedir(d);
}

/* No entry in the cache directory dir/heapwalk (nothing, or not made). */
static void assert_cache_empty(const char *dir, const char *what)
{
	char *path = xasprintf("%s/heapwalk", dir);
	DIR *d = opendir(path);
	struct dirent *e;

	while (d != NULL && (e = readdir(d)) != NULL)
		ck_assert_msg(strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0, "%s: %s/%s made", what,
			      path, e->d_name);
	if (d != NULL)
		closedir(d);
	free(path);
}

/* heapwalk snapshot PID FILE, heapwalk mark PID and (as ourselves)
 * heapwalk -e info PID: each refused with exactly the line "heapwalk:
 * WANT", status 2, nothing written (the last: no line of work begun,
 * nothing made in its cache directory); our child watch (unless 0)
 * untouched. */
static void refused(pid_t pid, pid_t watch, const char *want, int as_nobody, const char *what)
{
	char args[512], file[64];
	int rc;

	snprintf(file, sizeof file, "%ld.out", (long)pid);
	char *line = xasprintf("heapwalk: %s\n", want);
	char proc[64];
	struct stat st;
	snprintf(proc, sizeof proc, "/proc/%ld", (long)pid);
	/* the cache's form for a process of our own (another user's is
	 * refused for the cache first, which its runtime cannot write in) */
	int ours = !as_nobody && stat(proc, &st) == 0 && st.st_uid == geteuid();
	for (int form = 0; form < 2 + ours; form++) {
		if (form == 2) {
			ck_assert_int_eq(system("rm -rf " PROCDIR "/refused-cache && mkdir -m 700 " PROCDIR
						"/refused-cache"), 0);
			snprintf(args, sizeof args, "-e info %ld", (long)pid);
			setenv("XDG_CACHE_HOME", PROCDIR "/refused-cache", 1);
		} else if (form == 1) {
			snprintf(args, sizeof args, "mark %ld", (long)pid);
		} else {
			snprintf(args, sizeof args, "snapshot %ld " PROCDIR "/%s", (long)pid, file);
		}
		char *err = hw_stderr(args, as_nobody, &rc);
		if (form == 2)
			unsetenv("XDG_CACHE_HOME");
		if (watch > 0) /* first: what matters most */
			assert_untouched(watch, what);
		ck_assert_msg(rc == 2 && strcmp(err, line) == 0, "%s, %s: status %d, said:\n%s\nnot:\n%s", what, args,
			      rc, err, line);
		free(err);
		assert_nothing_written(file);
		if (form == 2)
			assert_cache_empty(PROCDIR "/refused-cache", what);
	}
	free(line);
}

/* What /proc says a process runs. */
static char *exe_of(pid_t pid)
{
	char path[64], buf[4096];
	ssize_t n;

	snprintf(path, sizeof path, "/proc/%ld/exe", (long)pid);
	n = readlink(path, buf, sizeof buf - 1);
	ck_assert_int_gt(n, 0);
	return xstrndup(buf, (size_t)n);
}

static void refused_not_runtime(pid_t pid, const char *what)
{
	char *exe = exe_of(pid);
	char *want = xasprintf("PID %ld is not a JVM, .NET or Node process (it is %s)", (long)pid, exe);

	refused(pid, pid, want, 0, what);
	free(want);
	free(exe);
}

START_TEST(test_python)
{
	if (!have("python3")) {
		fprintf(stderr, "proc: python3 is not installed: the Python targets are skipped\n");
		return;
	}
	procdir();
	unlink(PROCDIR "/py.ready");
	char *plain[] = { "python3", "-c", "import sys, time; open(sys.argv[1], 'w').close(); time.sleep(" LIFE_S ")",
			  PROCDIR "/py.ready", NULL };
	pid_t pid = start(plain, 0);
	wait_ready(PROCDIR "/py.ready", pid);
	refused_not_runtime(pid, "python3");
	end(pid);

	/* with handlers that log any signal that comes: the log stays empty */
	unlink(PROCDIR "/pyh.ready");
	ck_assert_int_eq(system(": > " PROCDIR "/pyh.log"), 0);
	char *handlers[] = { "python3", "-c",
			     "import signal, sys, time\n"
			     "def h(n, f):\n"
			     "    with open(sys.argv[1], 'a') as o: o.write('signal %d\\n' % n)\n"
			     "for s in ('SIGQUIT', 'SIGUSR1', 'SIGUSR2', 'SIGTERM', 'SIGHUP', 'SIGINT', 'SIGWINCH'):\n"
			     "    signal.signal(getattr(signal, s), h)\n"
			     "open(sys.argv[2], 'w').close()\n"
			     "end = time.time() + " LIFE_S "\n"
			     "while time.time() < end: time.sleep(1)\n",
			     PROCDIR "/pyh.log", PROCDIR "/pyh.ready", NULL };
	pid = start(handlers, 0);
	wait_ready(PROCDIR "/pyh.ready", pid);
	refused_not_runtime(pid, "python3 with handlers");
	size_t n;
	char *log = file_bytes(PROCDIR "/pyh.log", &n);
	ck_assert_msg(n == 0, "the target's handlers ran: %s", log);
	free(log);
	end(pid);
}
END_TEST

/* ---- Node ---- */

#define LIVE_JS TEST_SRCDIR "/node/live.js"

/* Node (node ARGS... live.js n READY) started as NAME, its output in
 * PROCDIR/NAME.log: once it has made its n LiveThings. 0 when node is
 * absent. */
static pid_t node_start(const char *name, const char *opt, int n, int as_nobody)
{
	char count[16], ready[512];

	if (!have("node")) {
		fprintf(stderr, "proc: node is not installed: the Node targets are skipped\n");
		return 0;
	}
	procdir();
	snprintf(count, sizeof count, "%d", n);
	snprintf(ready, sizeof ready, PROCDIR "/%s.ready", name);
	unlink(ready);
	char *argv[] = { "node", (char *)opt, LIVE_JS, count, ready, LIFE_S, NULL };
	if (opt == NULL) { /* no option: the script at its place */
		for (int i = 1; argv[i] != NULL; i++)
			argv[i] = argv[i + 1];
	}
	pid_t pid = start_logged(argv, name, as_nobody);
	wait_ready(ready, pid);
	return pid;
}

/* The port of the last "Debugger listening on ws://127.0.0.1:PORT/" in
 * NAME's log (what Node itself says), 0 if none. */
static int logged_port(const char *name)
{
	char path[512];
	size_t n;
	int port = 0;
	static const char say[] = "Debugger listening on ws://127.0.0.1:";

	snprintf(path, sizeof path, PROCDIR "/%s.log", name);
	char *log = file_bytes(path, &n);
	for (const char *q = strstr(log, say); q != NULL; q = strstr(q + 1, say))
		port = atoi(q + sizeof say - 1);
	free(log);
	return port;
}

/* Does anything accept a connection on 127.0.0.1:port? */
static int listening(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int s = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int ok = connect(s, (struct sockaddr *)&a, sizeof a) == 0;
	close(s);
	return ok;
}

/* Is there a listening TCP socket on port in pid's network namespace
 * (/proc/PID/net/tcp, as the kernel says it)? */
static int ns_listening(pid_t pid, int port)
{
	char path[64];
	size_t n;
	unsigned lport, st;
	int yes = 0;

	snprintf(path, sizeof path, "/proc/%ld/net/tcp", (long)pid);
	char *t = file_bytes(path, &n);
	for (char *l = strtok(t, "\n"); l != NULL; l = strtok(NULL, "\n"))
		if (sscanf(l, " %*d: %*8[0-9A-Fa-f]:%x %*8[0-9A-Fa-f]:%*x %x", &lport, &st) == 2)
			yes |= (int)lport == port && st == 0x0a;
	free(t);
	return yes;
}

/* heapwalk snapshot PID FILE (env before it) succeeds: its output. */
static char *node_snapshot_ok(const char *env, pid_t pid, const char *file)
{
	char cmd[1024];
	int st;

	unlink(file);
	snprintf(cmd, sizeof cmd, "%s %s snapshot %ld %s 2>&1", env, heapwalk(), (long)pid, file);
	char *out = run(cmd, &st);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: %s", cmd, out);
	return out;
}

/* The snapshot file's count of class LiveThing (heapwalk classes, CSV)
 * is n, the workload's own. */
static void assert_live_things(const char *file, int n)
{
	char cmd[1024];
	int st;

	snprintf(cmd, sizeof cmd, "%s -f csv classes %s", heapwalk(), file);
	char *out = run(cmd, &st);
	const char *row = strstr(out, "\nLiveThing,");
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0 && row != NULL, "%s: %.500s", cmd, out);
	ck_assert_msg(atoi(row + 11) == n, "%s: %d LiveThings, not %d", file, atoi(row + 11), n);
	free(out);
}

/* A Node process, its inspector closed: snapshotted (SIGUSR1 opens the
 * inspector, on a port of the kernel's choosing with --inspect-port=0),
 * its LiveThings counted, the inspector closed again (the port Node
 * announced no longer answers), twice; the process running on, no
 * signal pending. mark is refused, saying what to do instead. */
START_TEST(test_node)
{
	pid_t pid = node_start("live", "--inspect-port=0", 4321, 0);
	if (pid == 0)
		return;
	for (int round = 0; round < 2; round++) {
		char *out = node_snapshot_ok("", pid, PROCDIR "/live.heapsnapshot");
		ck_assert_msg(strstr(out, "its inspector, opened for it, closed again\n") != NULL, "%s", out);
		free(out);
		assert_live_things(PROCDIR "/live.heapsnapshot", 4321);
		int port = logged_port("live");
		ck_assert_msg(port > 0, "node announced no inspector");
		ck_assert_msg(!listening(port), "the inspector on port %d is open still", port);
		assert_untouched(pid, "node after its snapshot");
	}
	char *want = xasprintf("PID %ld is a Node process: mark is for JVMs and .NET; take two snapshots "
			       "(heapwalk snapshot PID FILE) and compare them (heapwalk diff OLD NEW: by content, V8 "
			       "clears its ids as each inspector session ends; exact with two the process writes itself, "
			       "v8.writeHeapSnapshot())", (long)pid);
	int rc;
	char args[64];
	snprintf(args, sizeof args, "mark %ld", (long)pid);
	char *err = hw_stderr(args, 0, &rc);
	ck_assert_msg(rc == 2 && strncmp(err, "heapwalk: ", 10) == 0 && strncmp(err + 10, want, strlen(want)) == 0,
		      "mark: %d %s", rc, err);
	free(err);
	free(want);

	char task[64];
	snprintf(task, sizeof task, "/proc/%ld/task", (long)pid);
	DIR *d = opendir(task);
	struct dirent *e;
	long tid = 0;
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL && tid == 0)
		if (e->d_name[0] != '.' && atol(e->d_name) != (long)pid)
			tid = atol(e->d_name);
	closedir(d);
	ck_assert_msg(tid > 0, "node has no second thread");
	want = xasprintf("%ld is a thread of process %ld, not a process", tid, (long)pid);
	refused((pid_t)tid, pid, want, 0, "node's thread");
	free(want);
	assert_untouched(pid, "node after its thread");
	end(pid);
}
END_TEST

/* An inspector open already (--inspect=127.0.0.1:0) is used, not
 * signalled for, and left open; a bound passed (the whole time, 1 ns)
 * ends the snapshot in one line naming it, nothing written, and an
 * inspector heapwalk opened is closed on that path too, once the
 * process has sent the snapshot it was asked for: the process is then
 * snapshotted again. */
START_TEST(test_node_inspector_open)
{
	pid_t pid = node_start("open", "--inspect=127.0.0.1:0", 321, 0);
	if (pid == 0)
		return;
	int port = logged_port("open");
	ck_assert_int_gt(port, 0);
	char *out = node_snapshot_ok("", pid, PROCDIR "/open.heapsnapshot");
	char *want = xasprintf("its inspector (on port %d) left open as it was\n", port);
	ck_assert_msg(strstr(out, want) != NULL, "%s", out);
	free(want);
	free(out);
	assert_live_things(PROCDIR "/open.heapsnapshot", 321);
	ck_assert_msg(listening(port), "the inspector that was open was closed");
	assert_untouched(pid, "node with its inspector open");
	end(pid);

	pid = node_start("late", "--inspect-port=0", 5, 0);
	int rc;
	char args[256];
	ck_assert_int_eq(system("rm -f " PROCDIR "/late.heapsnapshot*"), 0); /* and its index */
	snprintf(args, sizeof args, "snapshot %ld " PROCDIR "/late.heapsnapshot", (long)pid);
	setenv("HEAPWALK_SNAPSHOT_WALL", "0.000000001", 1);
	char *err = hw_stderr(args, 0, &rc);
	unsetenv("HEAPWALK_SNAPSHOT_WALL");
	want = xasprintf("heapwalk: PID %ld: its inspector: the snapshot not done after 1e-09 s, at byte 0 "
			 "(HEAPWALK_SNAPSHOT_WALL); nothing written\n", (long)pid);
	ck_assert_msg(rc == 2 && strcmp(err, want) == 0, "status %d, said:\n%s\nnot:\n%s", rc, err, want);
	free(want);
	free(err);
	assert_nothing_written("late.heapsnapshot");
	port = logged_port("late");
	ck_assert_msg(port > 0 && !listening(port), "after the bound, the inspector on port %d is open", port);
	/* served again: the inspector was ended only after its snapshot
	 * (ended before, Node 20 crashes a moment later) */
	out = node_snapshot_ok("", pid, PROCDIR "/late.heapsnapshot");
	free(out);
	assert_live_things(PROCDIR "/late.heapsnapshot", 5);
	assert_untouched(pid, "node after the bound");
	end(pid);
}
END_TEST

/* The time of a heapwalk snapshot as info gives it (timestamp_ms), 0
 * if none. */
static uint64_t snapshot_ms(const char *path)
{
	char cmd[1024];
	int st;
	unsigned long long ms = 0;

	snprintf(cmd, sizeof cmd, "%s -q info %s 2>&1", heapwalk(), path);
	char *out = run(cmd, &st);
	const char *t = strstr(out, "\ntimestamp_ms:");
	if (t != NULL)
		sscanf(t + 14, " %llu", &ms);
	free(out);
	return ms;
}

static uint64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Two snapshots, each through an inspector session of its own: V8
 * clears its object ids when a session ends, so the second names other
 * objects with the first's numbers. heapwalk diff must not call them
 * exact: the identity is inferred, and says why; the class counts are
 * the workload's (100, then 37 more). Each says when it was taken
 * (within the test's own clock readings around it), so that their
 * order is checked: none of "not checked", and the pair the other way
 * round refused. */
START_TEST(test_node_ids_reset)
{
	pid_t pid = node_start("ids", "--inspect-port=0", 100, 0);
	if (pid == 0)
		return;
	uint64_t t0 = wall_ms();
	free(node_snapshot_ok("", pid, PROCDIR "/ids-a.heapsnapshot"));
	uint64_t t1 = wall_ms();
	unlink(PROCDIR "/ids.ready.more");
	ck_assert_int_eq(kill(pid, SIGUSR2), 0);
	wait_ready(PROCDIR "/ids.ready.more", pid);
	free(node_snapshot_ok("", pid, PROCDIR "/ids-b.heapsnapshot"));
	uint64_t ta = snapshot_ms(PROCDIR "/ids-a.heapsnapshot"), tb = snapshot_ms(PROCDIR "/ids-b.heapsnapshot");
	ck_assert_msg(ta >= t0 && ta <= t1 && tb > ta, "taken at %llu (the test's clock: %llu to %llu), then %llu",
		      (unsigned long long)ta, (unsigned long long)t0, (unsigned long long)t1, (unsigned long long)tb);
	char cmd[1024];
	int st;
	snprintf(cmd, sizeof cmd, "%s diff " PROCDIR "/ids-a.heapsnapshot " PROCDIR "/ids-b.heapsnapshot", heapwalk());
	char *out = run(cmd, &st);
	const char *id = strstr(out, "identity:");
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0 && id != NULL, "%s: %.400s", cmd, out);
	id += strspn(id + 9, " ") + 9;
	ck_assert_msg(strncmp(id, "inferred:", 9) == 0 && strstr(id, "the older snapshot is heapwalk's own") != NULL &&
			      strstr(id, "not checked") == NULL,
		      "two inspector snapshots compared as: %.500s", id);
	snprintf(cmd, sizeof cmd, "%s diff " PROCDIR "/ids-b.heapsnapshot " PROCDIR "/ids-a.heapsnapshot", heapwalk());
	char *back = run(cmd, &st);
	ck_assert_msg(strstr(back, "none: class deltas only (the baseline " PROCDIR "/ids-b.heapsnapshot (") != NULL &&
			      strstr(back, ") is later than " PROCDIR "/ids-a.heapsnapshot (") != NULL,
		      "the later snapshot as the baseline: %.600s", back);
	free(back);
	const char *row = strstr(out, "\nLiveThing ");
	int before = 0, now = 0;
	ck_assert_msg(row != NULL && sscanf(row, " LiveThing %d %d", &before, &now) == 2 && before == 100 && now == 137,
		      "LiveThing %d then %d, not 100 then 137: %.300s", before, now, row ? row : out);
	free(out);
	assert_untouched(pid, "node after two snapshots");
	end(pid);
}
END_TEST

/* heapwalk diff OLD NEW: its identity line, and the CSV row of class
 * (quoted as the CSV has it) split into its numbers; the whole output. */
static char *diff_row(const char *opts, const char *a, const char *b, const char *cls, long v[13])
{
	char cmd[1024], pre[256];
	int st;

	snprintf(cmd, sizeof cmd, "%s %s diff %s %s", heapwalk(), opts, a, b);
	char *out = run(cmd, &st);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: %.400s", cmd, out);
	snprintf(pre, sizeof pre, "\n%s,", cls);
	const char *row = strstr(out, pre);
	memset(v, 0, 13 * sizeof *v);
	if (row != NULL) {
		row += strlen(pre);
		for (int i = 0; i < 13 && row != NULL; i++) {
			v[i] = strtol(row, NULL, 10);
			row = strchr(row, ',');
			row = row != NULL ? row + 1 : NULL;
		}
	}
	return out;
}

/* A homogeneous heap (3000 Things with integer fields only, 1000
 * dropped and 1000 made between): two heapwalk snapshots share no ids
 * (the first one's session reset them), whatever the content says: the
 * comparison says inferred and why, never exact; the class counts are
 * the workload's. */
START_TEST(test_node_ids_homogeneous)
{
	char ready[256];
	snprintf(ready, sizeof ready, PROCDIR "/homo.ready");
	if (!have("node")) {
		fprintf(stderr, "proc: node is not installed: the Node targets are skipped\n");
		return;
	}
	procdir();
	unlink(ready);
	char *argv[] = { "node", "--inspect-port=0", TEST_SRCDIR "/node/homo.js", "3000", ready, LIFE_S, NULL };
	pid_t pid = start_logged(argv, "homo", 0);
	wait_ready(ready, pid);
	free(node_snapshot_ok("", pid, PROCDIR "/homo-a.heapsnapshot"));
	unlink(PROCDIR "/homo.ready.more");
	ck_assert_int_eq(kill(pid, SIGUSR2), 0);
	wait_ready(PROCDIR "/homo.ready.more", pid);
	free(node_snapshot_ok("", pid, PROCDIR "/homo-b.heapsnapshot"));
	long v[13];
	char *out = diff_row("", PROCDIR "/homo-a.heapsnapshot", PROCDIR "/homo-b.heapsnapshot", "Thing", v);
	const char *id = strstr(out, "identity:");
	ck_assert_msg(id != NULL, "%.400s", out);
	id += strspn(id + 9, " ") + 9;
	ck_assert_msg(strncmp(id, "inferred", 8) == 0 && strstr(id, "the older snapshot is heapwalk's own") != NULL &&
			      strncmp(id, "exact", 5) != 0,
		      "two heapwalk snapshots compared as: %.500s", id);
	free(out);
	out = diff_row("-f csv", PROCDIR "/homo-a.heapsnapshot", PROCDIR "/homo-b.heapsnapshot", "Thing", v);
	ck_assert_msg(v[0] == 3000 && v[1] == 3000, "Thing %ld then %ld, not 3000 then 3000: %.300s", v[0], v[1], out);
	free(out);
	assert_untouched(pid, "node after two snapshots");
	end(pid);
}
END_TEST

/* Two snapshots a process writes itself (v8.writeHeapSnapshot), between
 * which 50000 concatenated strings were internalized: no session ended
 * between, the ids last: exact, the 50000 gone (and not a tenth of
 * the ids' reuse taken for a reset). */
START_TEST(test_node_ids_written)
{
	if (!have("node")) {
		fprintf(stderr, "proc: node is not installed: the Node targets are skipped\n");
		return;
	}
	procdir();
	unlink(PROCDIR "/w1.heapsnapshot");
	unlink(PROCDIR "/w2.heapsnapshot");
	ck_assert_int_eq(system("node " TEST_SRCDIR "/node/rewrite.js 50000 " PROCDIR), 0);
	long v[13];
	char *out = diff_row("", PROCDIR "/w1.heapsnapshot", PROCDIR "/w2.heapsnapshot", "x", v);
	const char *id = strstr(out, "identity:");
	ck_assert_msg(id != NULL, "%.400s", out);
	id += strspn(id + 9, " ") + 9;
	ck_assert_msg(strncmp(id, "exact for the objects V8's heap object ids identify", 51) == 0,
		      "two written snapshots compared as: %.500s", id);
	free(out);
	out = diff_row("-f csv", PROCDIR "/w1.heapsnapshot", PROCDIR "/w2.heapsnapshot", "\"(concatenated string)\"", v);
	/* columns: before, now, +/-, bytes x3, new, new bytes, gone, ... */
	ck_assert_msg(v[0] >= 50000 && v[0] - v[1] == 50000 && v[8] >= 50000 && v[8] < 50100,
		      "concatenated strings %ld then %ld, %ld gone, not the 50000 made: %.300s", v[0], v[1], v[8], out);
	free(out);
}
END_TEST

/* Node's inspector on 127.0.0.2 (--inspect=127.0.0.2:0); a process
 * that is not node listens on 127.0.0.1 at the same port and, for each
 * connection, has node hold one with the same two ports
 * (fake_inspector.js): heapwalk dials the inspector's own address and
 * checks both ends of its connection, so the snapshot is node's (its
 * LiveThings; the fake's has FakeThings and none). */
START_TEST(test_node_fake_listener)
{
	char ready[256], fready[256], port_s[16];
	if (!have("node")) {
		fprintf(stderr, "proc: node is not installed: the Node targets are skipped\n");
		return;
	}
	procdir();
	snprintf(ready, sizeof ready, PROCDIR "/far.ready");
	snprintf(fready, sizeof fready, PROCDIR "/fake.ready");
	unlink(ready);
	unlink(fready);
	char *argv[] = { "node", "--inspect=127.0.0.2:0", LIVE_JS, "50", ready, LIFE_S, NULL };
	pid_t pid = start_logged(argv, "far", 0);
	wait_ready(ready, pid);
	size_t n;
	char *log = file_bytes(PROCDIR "/far.log", &n);
	const char *q = strstr(log, "ws://127.0.0.2:");
	ck_assert_msg(q != NULL, "node did not listen on 127.0.0.2: %s", log);
	snprintf(port_s, sizeof port_s, "%d", atoi(q + 15));
	free(log);
	char *fargv[] = { "node", TEST_SRCDIR "/node/fake_inspector.js", port_s, "127.0.0.2", fready, NULL };
	pid_t fake = start_logged(fargv, "fake", 0);
	wait_ready(fready, fake);
	char *out = node_snapshot_ok("", pid, PROCDIR "/far.heapsnapshot");
	free(out);
	assert_live_things(PROCDIR "/far.heapsnapshot", 50);
	end(fake);
	assert_untouched(pid, "node beside the fake");
	end(pid);
}
END_TEST

/* A node whose main thread waits to open a FIFO (readFileSync) would
 * open its inspector for SIGUSR1 only once it reads, after heapwalk has
 * gone: refused in one line, not signalled; once the FIFO is written,
 * node runs on and never opens an inspector. */
START_TEST(test_node_blocked)
{
	if (!have("node")) {
		fprintf(stderr, "proc: node is not installed: the Node targets are skipped\n");
		return;
	}
	procdir();
	unlink(PROCDIR "/blk.fifo");
	ck_assert_int_eq(mkfifo(PROCDIR "/blk.fifo", 0600), 0);
	char *argv[] = { "node", "--inspect-port=0", "-e",
			 "require('fs').readFileSync('" PROCDIR "/blk.fifo'); console.log('read');"
			 "setTimeout(() => {}, " LIFE_S "000)", NULL };
	pid_t pid = start_logged(argv, "blk", 0);
	char path[64], w[64] = "";
	snprintf(path, sizeof path, "/proc/%ld/wchan", (long)pid);
	for (double end = now_seconds() + hang_seconds(60); now_seconds() < end && strstr(w, "partner") == NULL;) {
		usleep(100000);
		FILE *f = fopen(path, "re");
		if (f != NULL) {
			if (fgets(w, sizeof w, f) == NULL)
				w[0] = '\0';
			fclose(f);
		}
	}
	ck_assert_msg(strstr(w, "partner") != NULL, "node not waiting on the FIFO: wchan %s", w);
	int rc;
	char args[256];
	/* a file that cannot be made: said first, before any question of
	 * the process (its log below: never signalled) */
	snprintf(args, sizeof args, "snapshot %ld " PROCDIR "/nodir/blk.heapsnapshot", (long)pid);
	char *err = hw_stderr(args, 0, &rc);
	ck_assert_msg(rc == 2 && strcmp(err, "heapwalk: " PROCDIR "/nodir/blk.heapsnapshot: cannot create: No such file "
					"or directory\n") == 0, "status %d, said:\n%s", rc, err);
	free(err);
	snprintf(args, sizeof args, "snapshot %ld " PROCDIR "/blk.heapsnapshot", (long)pid);
	err = hw_stderr(args, 0, &rc);
	char *want = xasprintf("heapwalk: PID %ld: its main thread is blocked in the kernel (%s), not in its event "
			       "loop: Node would open its inspector for SIGUSR1 only once the call returns, perhaps after "
			       "heapwalk has gone, and leave it open; not signalled\n", (long)pid, strtok(w, "\n"));
	ck_assert_msg(rc == 2 && strcmp(err, want) == 0, "status %d, said:\n%s\nnot:\n%s", rc, err, want);
	free(want);
	free(err);
	assert_nothing_written("blk.heapsnapshot");
	int fd = open(PROCDIR "/blk.fifo", O_WRONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "x", 1), 1);
	close(fd);
	size_t n;
	char *log = NULL;
	for (double end = now_seconds() + hang_seconds(60); now_seconds() < end;) {
		free(log);
		log = file_bytes(PROCDIR "/blk.log", &n);
		if (strstr(log, "read\n") != NULL)
			break;
		usleep(100000);
	}
	usleep(500000); /* a signal taken would open the inspector now */
	free(log);
	log = file_bytes(PROCDIR "/blk.log", &n);
	ck_assert_msg(strstr(log, "read\n") != NULL && strstr(log, "Debugger listening") == NULL, "node said: %s", log);
	free(log);
	assert_untouched(pid, "node after its FIFO");
	end(pid);
}
END_TEST

/* Two snapshots of one node at once: the second finds the first's
 * session on the inspector and is refused in one line; the first ends
 * as it says, its inspector closed again. */
START_TEST(test_node_concurrent)
{
	char ready[256];
	if (!have("node")) {
		fprintf(stderr, "proc: node is not installed: the Node targets are skipped\n");
		return;
	}
	procdir();
	snprintf(ready, sizeof ready, PROCDIR "/two.ready");
	unlink(ready);
	char *argv[] = { "node", "--inspect-port=0", TEST_SRCDIR "/node/homo.js", "300000", ready, LIFE_S, NULL };
	pid_t pid = start_logged(argv, "two", 0);
	wait_ready(ready, pid);
	unlink(PROCDIR "/two-a.heapsnapshot");
	unlink(PROCDIR "/two-a.out");
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "(%s snapshot %ld " PROCDIR "/two-a.heapsnapshot >" PROCDIR "/two-a.part 2>&1; mv "
		 PROCDIR "/two-a.part " PROCDIR "/two-a.out) &", heapwalk(), (long)pid);
	ck_assert_int_eq(system(cmd), 0);
	size_t n;
	char *log = NULL;
	for (double end = now_seconds() + hang_seconds(60); now_seconds() < end;) { /* the first's session on */
		free(log);
		log = file_bytes(PROCDIR "/two.log", &n);
		if (strstr(log, "Debugger attached.") != NULL)
			break;
		usleep(20000);
	}
	ck_assert_msg(strstr(log, "Debugger attached.") != NULL, "no session: %s", log);
	free(log);
	int port = logged_port("two"), rc;
	char args[256];
	snprintf(args, sizeof args, "snapshot %ld " PROCDIR "/two-b.heapsnapshot", (long)pid);
	char *err = hw_stderr(args, 0, &rc);
	char *want = xasprintf("heapwalk: PID %ld: its inspector on port %d has 1 other connection (another snapshot, "
			       "or a debugger, in progress): not used\n", (long)pid, port);
	ck_assert_msg(rc == 2 && strcmp(err, want) == 0, "status %d, said:\n%s\nnot:\n%s", rc, err, want);
	free(want);
	free(err);
	assert_nothing_written("two-b.heapsnapshot");
	wait_ready(PROCDIR "/two-a.out", pid);
	char *out = file_bytes(PROCDIR "/two-a.out", &n);
	ck_assert_msg(strstr(out, "its inspector, opened for it, closed again\n") != NULL, "the first said: %s", out);
	free(out);
	ck_assert_msg(!listening(port), "the inspector on port %d is open still", port);
	assert_untouched(pid, "node after two snapshots at once");
	end(pid);
}
END_TEST

/* heapwalk PID on a Node process: a snapshot into the cache directory,
 * its LiveThings counted; again after 37 more, the first its baseline,
 * said to be inferred; the inspector closed after each. */
START_TEST(test_node_pid)
{
	pid_t pid = node_start("pid", "--inspect-port=0", 55, 0);
	if (pid == 0)
		return;
	ck_assert_int_eq(system("rm -rf " PROCDIR "/cache"), 0);
	char cmd[1024];
	int st;
	for (int round = 0; round < 2; round++) {
		if (round == 1) {
			unlink(PROCDIR "/pid.ready.more");
			ck_assert_int_eq(kill(pid, SIGUSR2), 0);
			wait_ready(PROCDIR "/pid.ready.more", pid);
		}
		snprintf(cmd, sizeof cmd, "XDG_CACHE_HOME=" PROCDIR "/cache %s -e 'instances LiveThing | classes' %ld 2>&1",
			 heapwalk(), (long)pid);
		char *out = run(cmd, &st);
		const char *row = strstr(out, "\nLiveThing ");
		int n = 0;
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0 && row != NULL && sscanf(row, " LiveThing %d", &n) == 1 &&
			      n == (round ? 92 : 55), "round %d: %d LiveThings: %.1500s", round, n, out);
		ck_assert_msg(strstr(out, round ? "/snap-000002.heapsnapshot: " : "/snap-000001.heapsnapshot: ") != NULL &&
			      (round == 0 || (strstr(out, "; baseline: snap-000001.heapsnapshot of ") != NULL &&
					      strstr(out, "\nidentity:   inferred: ") != NULL)), "round %d: %.1500s", round, out);
		free(out);
		int port = logged_port("pid");
		ck_assert_msg(port > 0 && !listening(port), "round %d: the inspector on port %d is open", round, port);
	}
	assert_untouched(pid, "node after heapwalk PID");
	end(pid);
}
END_TEST

/* Progress on a terminal while V8 writes: heapwalk snapshot in a
 * pseudo-terminal (script(1)) shows V8's own count, its last line
 * "N of N objects" (V8 always reports the end, with finished); on a
 * pipe, none. */
START_TEST(test_node_progress)
{
	pid_t pid = node_start("prog", "--inspect-port=0", 2000, 0);
	if (pid == 0)
		return;
	if (!have("script")) {
		fprintf(stderr, "proc: no script(1): Node's progress on a terminal is not tested\n");
		end(pid);
		return;
	}
	char cmd[1024];
	int st;
	unlink(PROCDIR "/prog.heapsnapshot");
	snprintf(cmd, sizeof cmd, "timeout %d script -qec '%s snapshot %ld " PROCDIR "/prog.heapsnapshot' /dev/null "
		 "</dev/null 2>&1", (int)hang_seconds(120), heapwalk(), (long)pid);
	char *out = run(cmd, &st);
	char *head = xasprintf("\rheapwalk: snapshot of PID %ld: ", (long)pid);
	const char *last = NULL;
	for (const char *q = strstr(out, head); q != NULL; q = strstr(q + 1, head))
		last = q;
	unsigned long long done = 0, total = 0;
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0 && last != NULL &&
		      sscanf(last + strlen(head), "%llu of %llu objects", &done, &total) == 2 && done == total && total > 2000,
		      "status %d: %.1500s", st, out);
	free(out);
	assert_live_things(PROCDIR "/prog.heapsnapshot", 2000);
	out = node_snapshot_ok("", pid, PROCDIR "/prog.heapsnapshot"); /* a pipe */
	ck_assert_msg(strstr(out, " objects") == NULL || strstr(out, head) == NULL, "progress on a pipe: %s", out);
	free(out);
	free(head);
	assert_untouched(pid, "node after its snapshots");
	end(pid);
}
END_TEST

/* `heapwalk snapshot PID PROCDIR/NAME.heapsnapshot` (its standard error
 * in PROCDIR/NAME.err) caught while it streams: node (NAME's, pid)
 * stopped from the moment its session is attached until heapwalk's
 * temporary file is there, so that the snapshot cannot end first.
 * heapwalk's pid; node is left stopped. */
static pid_t snapshot_caught_streaming(const char *name, pid_t pid)
{
	char err[512], file[512], log[512], tmp[600];
	size_t n;

	snprintf(err, sizeof err, PROCDIR "/%s.err", name);
	snprintf(file, sizeof file, PROCDIR "/%s.heapsnapshot", name);
	snprintf(log, sizeof log, PROCDIR "/%s.log", name);
	char *rm = xasprintf("rm -f '%s'*", file);
	ck_assert_int_eq(system(rm), 0);
	free(rm);
	pid_t hw = fork();
	ck_assert_int_ge(hw, 0);
	if (hw == 0) {
		int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(125);
		signal(SIGTERM, SIG_DFL);
		execl(heapwalk(), "heapwalk", "snapshot", xasprintf("%ld", (long)pid), file, (char *)NULL);
		_exit(127);
	}
	snprintf(tmp, sizeof tmp, "%s.tmp-%ld", file, (long)hw);
	for (double end = now_seconds() + hang_seconds(60);;) {
		char *l = file_bytes(log, &n);
		int attached = strstr(l, "Debugger attached.") != NULL;
		free(l);
		if (attached)
			break;
		ck_assert_msg(now_seconds() < end, "node's session not attached after 60 s");
		usleep(10000);
	}
	ck_assert_int_eq(kill(pid, SIGSTOP), 0);
	wait_ready(tmp, hw);
	return hw;
}

/* heapwalk ended by SIGTERM while the snapshot streams (node stopped
 * from the moment its session is attached until heapwalk's file is
 * there, so that the snapshot cannot end first): one line saying so,
 * nothing written, the inspector closed once Node has answered, Node
 * alive and snapshotted again. */
START_TEST(test_node_interrupted)
{
	pid_t pid = node_start("term", "--inspect-port=0", 1000, 0);
	if (pid == 0)
		return;
	pid_t hw = snapshot_caught_streaming("term", pid);
	size_t n;
	ck_assert_int_eq(kill(hw, SIGTERM), 0);
	ck_assert_int_eq(kill(pid, SIGCONT), 0);
	int st;
	ck_assert_int_eq(waitpid(hw, &st, 0), hw);
	char *err = file_bytes(PROCDIR "/term.err", &n);
	char *want = xasprintf("heapwalk: interrupted: waiting for Node to end the snapshot it was asked for, then "
			       "closing its inspector (again: left open)\n"
			       "heapwalk: PID %ld: interrupted (signal 15) at byte 0 of the snapshot; nothing written\n",
			       (long)pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 2 && strcmp(err, want) == 0, "status %d, said:\n%s\nnot:\n%s",
		      st, err, want);
	free(want);
	free(err);
	unlink(PROCDIR "/term.err");
	assert_nothing_written("term.heapsnapshot");
	int port = logged_port("term");
	ck_assert_msg(port > 0 && !listening(port), "after the interruption, the inspector on port %d is open", port);
	char *out = node_snapshot_ok("", pid, PROCDIR "/term.heapsnapshot");
	free(out);
	assert_live_things(PROCDIR "/term.heapsnapshot", 1000);
	assert_untouched(pid, "node after heapwalk's interruption");
	end(pid);
}
END_TEST

/* Node killed while its snapshot streams (stopped from the moment its
 * session is attached until heapwalk's file is there, then SIGKILL):
 * heapwalk says the process exited, not that it left the inspector of a
 * process that is no more open on its port; nothing written. */
START_TEST(test_node_killed_mid_snapshot)
{
	pid_t pid = node_start("killed", "--inspect-port=0", 1000, 0);
	if (pid == 0)
		return;
	pid_t hw = snapshot_caught_streaming("killed", pid);
	size_t n;
	ck_assert_int_eq(kill(pid, SIGKILL), 0); /* a zombie until reaped below: exited all the same */
	int st;
	ck_assert_int_eq(waitpid(hw, &st, 0), hw);
	char *err = file_bytes(PROCDIR "/killed.err", &n);
	char *want = xasprintf("; PID %ld has exited\n", (long)pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 2 && strstr(err, want) != NULL &&
		      strstr(err, "left open") == NULL, "status %d, said:\n%s", st, err);
	free(want);
	free(err);
	unlink(PROCDIR "/killed.err");
	assert_nothing_written("killed.heapsnapshot");
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
}
END_TEST

/* A copy of sleep named node is not Node (by what its file holds): not
 * signalled. A stopped node is refused unsignalled, and runs on when
 * continued. A node with its own SIGUSR1 handler takes the signal
 * itself (its handler runs: Node 20 cannot be told from outside to have
 * one) and opens no inspector: heapwalk says so after its wait (2 s
 * here, HEAPWALK_INSPECTOR_WAIT; a bound that is no number of seconds
 * refused before any signal), and the process runs on. */
START_TEST(test_node_not_signalled)
{
	if (!have("node")) {
		fprintf(stderr, "proc: node is not installed: the Node targets are skipped\n");
		return;
	}
	procdir();
	ck_assert_int_eq(system("cp \"$(command -v sleep)\" " PROCDIR "/node"), 0);
	char *argv[] = { PROCDIR "/node", LIFE_S, NULL };
	pid_t pid = start(argv, 0);
	wait_exec(pid, "/node");
	refused_not_runtime(pid, "sleep named node");
	size_t n;
	end(pid);

	pid = node_start("stopped", "--inspect-port=0", 3, 0);
	ck_assert_int_eq(kill(pid, SIGSTOP), 0);
	wait_state(pid, 'T');
	int rc;
	char args[256];
	unlink(PROCDIR "/stopped.heapsnapshot");
	snprintf(args, sizeof args, "snapshot %ld " PROCDIR "/stopped.heapsnapshot", (long)pid);
	char *err = hw_stderr(args, 0, &rc);
	char *want = xasprintf("heapwalk: PID %ld is stopped (SIGSTOP, or ^Z): a signal would wait with it; "
			       "not signalled\n", (long)pid);
	ck_assert_msg(rc == 2 && strcmp(err, want) == 0, "status %d, said:\n%s\nnot:\n%s", rc, err, want);
	free(want);
	free(err);
	assert_nothing_pending(pid, "stopped node");
	kill(pid, SIGCONT);
	wait_state(pid, 'S');
	assert_untouched(pid, "stopped node, continued");
	ck_assert_int_eq(logged_port("stopped"), 0);
	end(pid);

	unlink(PROCDIR "/own.ready");
	ck_assert_int_eq(system(": > " PROCDIR "/own.handled"), 0);
	char *own[] = { "node", "--inspect-port=0", "-e",
			"const fs = require('fs');\n"
			"process.on('SIGUSR1', () => fs.appendFileSync(process.argv[1], 'SIGUSR1\\n'));\n"
			"fs.writeFileSync(process.argv[2], '');\n"
			"setTimeout(() => {}, " LIFE_S "000);\n",
			PROCDIR "/own.handled", PROCDIR "/own.ready", NULL };
	pid = start_logged(own, "own", 0);
	wait_ready(PROCDIR "/own.ready", pid);
	unlink(PROCDIR "/own.heapsnapshot");
	snprintf(args, sizeof args, "snapshot %ld " PROCDIR "/own.heapsnapshot", (long)pid);
	/* the wait's bound refused before any signal */
	setenv("HEAPWALK_INSPECTOR_WAIT", "0", 1);
	err = hw_stderr(args, 0, &rc);
	ck_assert_msg(rc == 2 && strcmp(err, "heapwalk: HEAPWALK_INSPECTOR_WAIT=0: not a number of seconds above 0\n") == 0,
		      "status %d: %s", rc, err);
	free(err);
	char *handled = file_bytes(PROCDIR "/own.handled", &n);
	ck_assert_msg(*handled == '\0', "signalled with a bad bound: '%s'", handled);
	free(handled);
	/* 2 s, not the 30 s it waits by default: what it says is the same */
	setenv("HEAPWALK_INSPECTOR_WAIT", "2", 1);
	err = hw_stderr(args, 0, &rc);
	unsetenv("HEAPWALK_INSPECTOR_WAIT");
	want = xasprintf("heapwalk: PID %ld was sent SIGUSR1 but opened no inspector in 2 s (HEAPWALK_INSPECTOR_WAIT; "
			 "its own SIGUSR1 handler, process.on('SIGUSR1'), takes the signal; or its inspector port, 9229 "
			 "unless --inspect-port says, is taken by another process); it may still open it, listening for "
			 "any local user until the process ends or evaluates process._debugEnd()\n", (long)pid);
	ck_assert_msg(rc == 2 && strcmp(err, want) == 0, "status %d, said:\n%s\nnot:\n%s", rc, err, want);
	free(want);
	free(err);
	assert_nothing_written("own.heapsnapshot");
	assert_untouched(pid, "node with its own SIGUSR1 handler");
	handled = file_bytes(PROCDIR "/own.handled", &n);
	ck_assert_msg(strcmp(handled, "SIGUSR1\n") == 0, "its handler's log: '%s'", handled);
	free(handled);
	ck_assert_int_eq(logged_port("own"), 0);
	end(pid);
}
END_TEST

/* Node in its own mount and PID namespaces, /tmp its own (a tmpfs):
 * signalled by its pid here, its inspector reached on 127.0.0.1 (the
 * network is shared), snapshotted from outside. One in its own network
 * namespace is snapshotted by root (from a child in that namespace) and
 * refused to nobody without a signal. Nobody's node is snapshotted by
 * root; root's node is refused to nobody. */
START_TEST(test_node_namespaces)
{
	if (geteuid() != 0 || !have("unshare") || !have("setpriv") || !have("node")) {
		fprintf(stderr, "proc: not root, or no unshare, setpriv or node: the Node namespace tests are skipped\n");
		return;
	}
	if (build_in_tmp("proc: the Node namespace tests", "Node's own /tmp"))
		return;
	procdir();
	ck_assert_int_eq(system("chmod 1777 " PROCDIR), 0);
	uid_t uid;
	gid_t gid;
	nobody(&uid, &gid);
	char *argv[] = { "unshare", "-m", "-p", "-f", "--mount-proc", "sh", "-c",
			 "mount -t tmpfs tmpfs /tmp && exec node --inspect-port=0 " LIVE_JS " 77 " PROCDIR
			 "/ns.ready " LIFE_S, NULL };
	unlink(PROCDIR "/ns.ready");
	pid_t u = start_logged(argv, "ns", 0);
	wait_ready(PROCDIR "/ns.ready", u);
	char path[64];
	size_t n;
	snprintf(path, sizeof path, "/proc/%ld/task/%ld/children", (long)u, (long)u);
	char *kids = file_bytes(path, &n);
	pid_t pid = (pid_t)atol(kids);
	free(kids);
	ck_assert_int_gt(pid, 0);
	snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
	char *status = file_bytes(path, &n);
	char *nspid = xasprintf("\nNSpid:\t%ld\t1\n", (long)pid);
	ck_assert_msg(strstr(status, nspid) != NULL, "not in its own PID namespace: %s", status);
	free(nspid);
	free(status);
	char *out = node_snapshot_ok("", pid, PROCDIR "/ns.heapsnapshot");
	ck_assert_msg(strstr(out, "closed again\n") != NULL, "%s", out);
	free(out);
	assert_live_things(PROCDIR "/ns.heapsnapshot", 77);
	int port = logged_port("ns");
	ck_assert_msg(port > 0 && !listening(port), "the namespaced node's inspector (port %d) open still", port);
	ck_assert_int_eq(kill(pid, 0), 0);
	kill(pid, SIGKILL);
	end(u);

	/* its own network namespace (loopback up, as a container's): root
	 * enters it from a child; nobody may not, and signals nothing */
	char *net[] = { "unshare", "-n", "sh", "-c",
			"ip link set lo up && exec node --inspect-port=0 " LIVE_JS " 7 " PROCDIR "/net.ready " LIFE_S, NULL };
	unlink(PROCDIR "/net.ready");
	pid = start_logged(net, "net", 0);
	wait_ready(PROCDIR "/net.ready", pid);
	out = node_snapshot_ok("", pid, PROCDIR "/net.heapsnapshot");
	ck_assert_msg(strstr(out, "closed again\n") != NULL, "%s", out);
	free(out);
	assert_live_things(PROCDIR "/net.heapsnapshot", 7);
	port = logged_port("net");
	ck_assert_msg(port > 0 && !ns_listening(pid, port), "the inspector in its network namespace (port %d) is open",
		      port);
	assert_untouched(pid, "node in its own network namespace");
	end(pid);

	char *net_nobody = xasprintf("ip link set lo up && exec setpriv --reuid=%ld --regid=%ld --clear-groups node "
				     "--inspect-port=0 " LIVE_JS " 7 " PROCDIR "/netn.ready " LIFE_S, (long)uid, (long)gid);
	char *netn[] = { "unshare", "-n", "sh", "-c", net_nobody, NULL };
	unlink(PROCDIR "/netn.ready");
	pid = start_logged(netn, "netn", 0);
	wait_ready(PROCDIR "/netn.ready", pid);
	free(net_nobody);
	char *want = xasprintf("heapwalk: PID %ld is in another network namespace (a container's?): its inspector's "
			       "127.0.0.1 is not ours, and only root may enter it; not signalled (as root, or from inside: "
			       "nsenter -t %ld -n heapwalk snapshot ...)\n", (long)pid, (long)pid);
	int rc;
	char args[256];
	snprintf(args, sizeof args, "snapshot %ld " PROCDIR "/netn.heapsnapshot", (long)pid);
	char *err = hw_stderr(args, 1, &rc);
	ck_assert_msg(rc == 2 && strcmp(err, want) == 0, "status %d, said:\n%s\nnot:\n%s", rc, err, want);
	free(err);
	free(want);
	assert_untouched(pid, "nobody's node in its own network namespace");
	ck_assert_int_eq(logged_port("netn"), 0);
	end(pid);

	pid = node_start("nobodys", "--inspect-port=0", 88, 1);
	out = node_snapshot_ok("", pid, PROCDIR "/nobodys.heapsnapshot");
	free(out);
	assert_live_things(PROCDIR "/nobodys.heapsnapshot", 88);
	assert_untouched(pid, "nobody's node");
	end(pid);

	pid = node_start("roots", "--inspect-port=0", 1, 0);
	want = xasprintf("PID %ld is a process of another user (root, uid 0), not of nobody (uid %ld)", (long)pid,
			 (long)uid);
	refused(pid, pid, want, 1, "root's node, heapwalk as nobody");
	free(want);
	ck_assert_int_eq(logged_port("roots"), 0);
	end(pid);
}
END_TEST

/* A PID that does not exist, a zombie. */
START_TEST(test_gone)
{
	procdir();
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(0);
	/* a zombie until reaped */
	for (double end = now_seconds() + hang_seconds(60); now_seconds() < end;) {
		char path[64], *s;
		size_t n;
		snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
		s = file_bytes(path, &n);
		int z = strstr(s, ") Z ") != NULL;
		free(s);
		if (z)
			break;
		usleep(100000);
	}
	char *want = xasprintf("PID %ld has exited (a zombie its parent has not reaped)", (long)pid);
	refused(pid, 0, want, 0, "zombie");
	free(want);
	waitpid(pid, NULL, 0);
	want = xasprintf("no process %ld", (long)pid);
	refused(pid, 0, want, 0, "missing");
	free(want);
}
END_TEST

/* Until /proc says pid runs name (exec'd after setpriv), at most a
 * minute: a hang bound only. */
static void wait_exec(pid_t pid, const char *name)
{
	for (double end = now_seconds() + hang_seconds(60); now_seconds() < end;) {
		char *exe = exe_of(pid);
		int done = strstr(exe, name) != NULL;
		free(exe);
		if (done)
			return;
		usleep(100000);
	}
}

/* heapwalk as nobody against a process of root: refused as another
 * user's; heapwalk as root against nobody's sleep: not a runtime. */
START_TEST(test_other_user)
{
	if (geteuid() != 0 || !have("setpriv")) {
		fprintf(stderr, "proc: not root, or no setpriv: the other-user tests are skipped\n");
		return;
	}
	procdir();
	ck_assert_int_eq(system("chmod 1777 " PROCDIR), 0);
	uid_t uid;
	gid_t gid;
	nobody(&uid, &gid);
	char *argv[] = { "sleep", LIFE_S, NULL };
	pid_t pid = start(argv, 0);
	wait_exec(pid, "sleep");
	char *want = xasprintf("PID %ld is a process of another user (root, uid 0), not of nobody (uid %ld)",
			       (long)pid, (long)uid);
	refused(pid, pid, want, 1, "root's sleep, heapwalk as nobody");
	free(want);
	end(pid);

	pid = start(argv, 1);
	wait_exec(pid, "sleep");
	refused_not_runtime(pid, "nobody's sleep, heapwalk as root");
	end(pid);
}
END_TEST

/* sleep with every signal blocked (a mask exec keeps): whatever were
 * sent to it, even a signal whose default is to be ignored (SIGURG,
 * SIGWINCH, SIGCHLD), would stay pending, so its status's SigPnd and
 * ShdPnd count every signal it was sent. Refused by heapwalk (root)
 * as no runtime, and by nobody's heapwalk as another user's: none
 * pending after. */
START_TEST(test_sleep_blocked)
{
	procdir();
	for (int as_nobody = 0; as_nobody < 2; as_nobody++) {
		if (as_nobody && (geteuid() != 0 || !have("setpriv")))
			break;
		pid_t pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			sigset_t all;
			as_a_service();
			sigfillset(&all);
			sigprocmask(SIG_BLOCK, &all, NULL);
			execlp("sleep", "sleep", LIFE_S, (char *)NULL);
			_exit(127);
		}
		wait_exec(pid, "sleep");
		char path[64];
		size_t n;
		snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
		char *s = file_bytes(path, &n);
		const char *blk = strstr(s, "\nSigBlk:\t");
		ck_assert_ptr_nonnull(blk);
		unsigned long long mask = strtoull(blk + 9, NULL, 16);
		unsigned long long want = 0x7fffffffull & ~(1ull << (SIGKILL - 1)) & ~(1ull << (SIGSTOP - 1));
		/* the standard signals, 1 to 31 (glibc keeps its own, 32 and 33) */
		ck_assert_msg((mask & want) == want, "sleep's signals not all blocked: %.2000s", s);
		free(s);
		if (as_nobody) {
			uid_t uid;
			gid_t gid;
			nobody(&uid, &gid);
			ck_assert_int_eq(system("chmod 1777 " PROCDIR), 0);
			char *want_line = xasprintf("PID %ld is a process of another user (root, uid 0), not of nobody "
						    "(uid %ld)", (long)pid, (long)uid);
			refused(pid, pid, want_line, 1, "root's blocked sleep, heapwalk as nobody");
			free(want_line);
		} else {
			refused_not_runtime(pid, "sleep, every signal blocked");
		}
		assert_untouched(pid, "sleep, every signal blocked");
		end(pid);
	}
}
END_TEST

/* A process of nobody that is not dumpable: its maps are closed to
 * nobody's heapwalk (EACCES). */
START_TEST(test_unreadable)
{
	if (geteuid() != 0 || !have("setpriv")) {
		fprintf(stderr, "proc: not root, or no setpriv: the unreadable-maps test is skipped\n");
		return;
	}
	procdir();
	ck_assert_int_eq(system("chmod 1777 " PROCDIR), 0);
	uid_t uid;
	gid_t gid;
	nobody(&uid, &gid);
	int ready[2];
	ck_assert_int_eq(pipe(ready), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		as_a_service();
		if (setgroups(0, NULL) < 0 || setgid(gid) < 0 || setuid(uid) < 0 ||
		    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
			_exit(126);
		close(ready[1]);
		alarm(atoi(LIFE_S));
		for (;;)
			pause();
	}
	close(ready[1]);
	char c;
	ck_assert_int_eq(read(ready[0], &c, 1), 0); /* the child has closed its end: it is set */
	close(ready[0]);
	char *want = xasprintf("PID %ld: cannot read /proc/%ld/maps (Permission denied): what it runs cannot be "
			       "told, so it is left alone", (long)pid, (long)pid);
	refused(pid, pid, want, 1, "nobody's undumpable process, heapwalk as nobody");
	free(want);
	end(pid);
}
END_TEST

/* PROCDIR/Sleep.class: writes its argument's file, sleeps. */
static int sleeper(void)
{
	const char *javac = getenv("JAVAC");

	if (javac == NULL || *javac == '\0' || getenv("JAVA") == NULL || *getenv("JAVA") == '\0') {
		fprintf(stderr, "proc: no JDK (JAVA, JAVAC): the JVM targets are skipped\n");
		return 0;
	}
	procdir();
	FILE *f = fopen(PROCDIR "/Sleep.java", "w");
	ck_assert_ptr_nonnull(f);
	fputs("public class Sleep { public static void main(String[] a) throws Exception {\n"
	      "  new java.io.FileOutputStream(a[0]).close(); Thread.sleep(" LIFE_S "000); } }\n", f);
	ck_assert_int_eq(fclose(f), 0);
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "cd " PROCDIR " && %s Sleep.java", javac);
	ck_assert_int_eq(system(cmd), 0);
	return 1;
}

/* argv in a child, as a service, but its output in PROCDIR/NAME.log and
 * its working directory PROCDIR/NAME.cwd; as nobody with as_nobody. */
static pid_t start_logged(char *const argv[], const char *name, int as_nobody)
{
	char log[512], cwd[512];
	uid_t uid;
	gid_t gid;

	nobody(&uid, &gid);
	snprintf(log, sizeof log, PROCDIR "/%s.log", name);
	snprintf(cwd, sizeof cwd, PROCDIR "/%s.cwd", name);
	mkdir(cwd, 0777);
	ck_assert_int_eq(chmod(cwd, 0777), 0);
	struct timespec before;
	clock_gettime(CLOCK_REALTIME, &before);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		as_a_service();
		if (tied && prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
			_exit(124);
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 || chdir(cwd) < 0)
			_exit(125);
		if (as_nobody && (setgroups(0, NULL) < 0 || setgid(gid) < 0 || setuid(uid) < 0))
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	clear_stale_socket(pid, &before);
	return pid;
}

/* The JVM started as NAME printed n thread dumps (one per SIGQUIT it
 * took for one: with the .attach_pid file there, the first opens its
 * socket instead), and no .attach_pid file is left where it looks. */
static void assert_dumps(pid_t pid, const char *name, int n, const char *what)
{
	char path[512];
	size_t len;
	int dumps = 0;

	snprintf(path, sizeof path, PROCDIR "/%s.log", name);
	char *log = file_bytes(path, &len);
	for (const char *q = strstr(log, "Full thread dump"); q != NULL; q = strstr(q + 1, "Full thread dump"))
		dumps++;
	ck_assert_msg(dumps == n, "%s: %d thread dumps, not %d: %.300s", what, dumps, n, log);
	free(log);
	snprintf(path, sizeof path, PROCDIR "/%s.cwd/.attach_pid%ld", name, (long)pid);
	ck_assert_msg(access(path, F_OK) != 0, "%s: %s left", what, path);
	snprintf(path, sizeof path, "/tmp/.attach_pid%ld", (long)pid);
	ck_assert_msg(access(path, F_OK) != 0, "%s: %s left", what, path);
}

/* heapwalk mark PID with no jcmd on its PATH says mark n. */
static void mark_ok(pid_t pid, int n)
{
	char cmd[1024], want[32];
	int st;

	snprintf(cmd, sizeof cmd, "env PATH=" NOJCMD " %s mark %ld 2>&1", heapwalk(), (long)pid);
	char *out = run(cmd, &st);
	snprintf(want, sizeof want, "mark %d watermark=", n);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0 && strncmp(out, want, strlen(want)) == 0, "%s: %s", cmd,
		      out);
	free(out);
}

/* A JVM run with -Xrs, no attach mechanism and no perf data: SIGQUIT,
 * which asks a JVM to open its attach socket, would kill it. An
 * ordinary JVM is still marked (the agent), twice: signalled once (no
 * thread dump: the .attach_pid file is there), then through the open
 * socket (a SIGQUIT then would print a thread dump). */
START_TEST(test_jvm_without_sigquit)
{
	if (!sleeper())
		return;
	char *java = getenv("JAVA");
	unlink(PROCDIR "/jvm.ready");
	char *argv[] = { java, "-Xrs", "-XX:+DisableAttachMechanism", "-XX:-UsePerfData", "-cp", PROCDIR, "Sleep",
			 PROCDIR "/jvm.ready", NULL };
	pid_t pid = start(argv, 0);
	wait_ready(PROCDIR "/jvm.ready", pid);
	char *want = xasprintf("PID %ld is a JVM that neither handles SIGQUIT nor listens for an attach (-Xrs?): "
			       "the SIGQUIT that asks it to would kill it", (long)pid);
	refused(pid, pid, want, 0, "java -Xrs");
	free(want);
	end(pid);

	const char *agent = getenv("HEAPWALK_AGENT");
	if (agent == NULL || access(agent, R_OK) != 0) {
		fprintf(stderr, "proc: the agent is not built: the ordinary JVM is not marked\n");
		return;
	}
	unlink(PROCDIR "/jvm2.ready");
	char *plain[] = { java, "-cp", PROCDIR, "Sleep", PROCDIR "/jvm2.ready", NULL };
	pid = start_logged(plain, "plain", 0);
	wait_ready(PROCDIR "/jvm2.ready", pid);
	mark_ok(pid, 1);
	mark_ok(pid, 2);
	ck_assert_int_eq(waitpid(pid, NULL, WNOHANG), 0); /* alive: SIGQUIT was the JVM's to handle */
	assert_dumps(pid, "plain", 0, "an ordinary JVM marked twice");
	end(pid);
}
END_TEST

/* A JVM run with -XX:+DisableAttachMechanism, which its perf data
 * tells: refused in one line, not signalled (no thread dump), nothing
 * left in its working directory or /tmp. */
START_TEST(test_jvm_attach_off)
{
	if (!sleeper())
		return;
	unlink(PROCDIR "/off.ready");
	char *argv[] = { getenv("JAVA"), "-XX:+DisableAttachMechanism", "-cp", PROCDIR, "Sleep", PROCDIR "/off.ready",
			 NULL };
	pid_t pid = start_logged(argv, "off", 0);
	wait_ready(PROCDIR "/off.ready", pid);
	char *want = xasprintf("PID %ld runs with its attach mechanism off (-XX:+DisableAttachMechanism): not signalled",
			       (long)pid);
	refused(pid, pid, want, 0, "java -XX:+DisableAttachMechanism");
	free(want);
	assert_dumps(pid, "off", 0, "java -XX:+DisableAttachMechanism");
	end(pid);
}
END_TEST

/* A JVM with no perf data (-XX:-UsePerfData) and no attach socket: what
 * maps libjvm.so and has no HotSpot perf data mapped is not known for a
 * JVM, so it is refused in one line, not signalled (no thread dump),
 * nothing made in its working directory or /tmp. */
START_TEST(test_jvm_no_perf_data)
{
	if (!sleeper())
		return;
	unlink(PROCDIR "/quiet.ready");
	char *argv[] = { getenv("JAVA"), "-XX:-UsePerfData", "-cp", PROCDIR, "Sleep", PROCDIR "/quiet.ready", NULL };
	pid_t pid = start_logged(argv, "quiet", 0);
	wait_ready(PROCDIR "/quiet.ready", pid);
	char *want = xasprintf("PID %ld maps a libjvm.so but no HotSpot performance data (/tmp/hsperfdata_%s/%ld; "
			       "none with -XX:-UsePerfData or -XX:+PerfDisableSharedMem) and has no attach socket "
			       "open: not known for a JVM, not signalled (-XX:+StartAttachListener opens the socket)",
			       (long)pid, getpwuid(geteuid())->pw_name, (long)pid);
	refused(pid, pid, want, 0, "java -XX:-UsePerfData");
	free(want);
	assert_dumps(pid, "quiet", 0, "java -XX:-UsePerfData");
	end(pid);
}
END_TEST

/* heapwalk snapshot --plain PID PROCDIR/NAME, run after PREFIX (a
 * command that runs the rest, or ""): it took the snapshot (status 0,
 * no stderr, the file there), what (stderr) is said otherwise. */
static void snapshot_ok(const char *prefix, pid_t pid, const char *name, const char *what)
{
	char cmd[2048], file[512];
	int st;

	snprintf(file, sizeof file, PROCDIR "/%s", name);
	unlink(file);
	snprintf(cmd, sizeof cmd, "%s env PATH=" NOJCMD " %s snapshot --plain %ld %s 2>&1 >/dev/null", prefix,
		 heapwalk(), (long)pid, file);
	char *err = run(cmd, &st);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0 && err[0] == '\0' && access(file, F_OK) == 0,
		      "%s: %s: status %d: %s", what, cmd, st, err);
	free(err);
	unlink(file);
}

/* As root, the JVM is told by its perf data mapped: by
 * /proc/PID/map_files, or, where that is closed (root without
 * CAP_SYS_ADMIN and CAP_CHECKPOINT_RESTORE: a container's default, the
 * bounding set dropped by setpriv), by the file at the mapped path
 * inside its root when it is the very file mapped; and after a /tmp
 * cleaner removed the file (its maps line then ends " (deleted)"), by
 * map_files still. Each time the snapshot is taken, and the JVM printed
 * no thread dump (its SIGQUIT was the attach request, not a stray). */
START_TEST(test_jvm_perf_data_found)
{
	if (geteuid() != 0 || !have("setpriv") || !sleeper()) {
		fprintf(stderr, "proc: not root, no setpriv or no JDK: the JVM told without map_files or by removed "
				"perf data is not tested\n");
		return;
	}
	/* a JVM each: once asked, one listens on its attach socket, which
	 * lets heapwalk through without a signal */
	for (int removed = 0; removed < 2; removed++) {
		unlink(PROCDIR "/perf.ready");
		char *argv[] = { getenv("JAVA"), "-cp", PROCDIR, "Sleep", PROCDIR "/perf.ready", NULL };
		pid_t pid = start_logged(argv, "perf", 0);
		wait_ready(PROCDIR "/perf.ready", pid);
		char perf[128];
		snprintf(perf, sizeof perf, "/proc/%ld/root/tmp/hsperfdata_root/%ld", (long)pid, (long)pid);
		if (removed)
			ck_assert_msg(unlink(perf) == 0, "%s: %s", perf, strerror(errno));
		snapshot_ok(removed ? "" : "setpriv --bounding-set=-sys_admin,-checkpoint_restore", pid, "perf.hprof",
			    removed ? "its perf data removed" : "root without CAP_SYS_ADMIN");
		assert_untouched(pid, "a JVM told by its perf data");
		assert_dumps(pid, "perf", 0, "a JVM told by its perf data");
		end(pid);
	}
	/* heapwalk as the JVM's user (no map_files) and its perf data removed:
	 * not told, and the line says why, not that there is none */
	ck_assert_int_eq(system("chmod 1777 " PROCDIR), 0);
	unlink(PROCDIR "/perf.ready");
	char *argv[] = { getenv("JAVA"), "-cp", PROCDIR, "Sleep", PROCDIR "/perf.ready", NULL };
	pid_t pid = start(argv, 1);
	wait_ready(PROCDIR "/perf.ready", pid);
	char perf[128];
	snprintf(perf, sizeof perf, "/proc/%ld/root/tmp/hsperfdata_nobody/%ld", (long)pid, (long)pid);
	ck_assert_msg(unlink(perf) == 0, "%s: %s", perf, strerror(errno));
	char *want = xasprintf("PID %ld maps a libjvm.so and performance data removed since (/tmp/hsperfdata_nobody/%ld "
			       "(deleted): a /tmp cleaner?), which only CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE may "
			       "open to check, and has no attach socket open: not known for a JVM, not signalled "
			       "(-XX:+StartAttachListener opens the socket)", (long)pid, (long)pid);
	refused(pid, pid, want, 1, "nobody's JVM, its perf data removed, heapwalk as nobody");
	free(want);
	end(pid);
}
END_TEST

/* PROCDIR/fakejvm (tests/fakejvm.c, built here) and PROCDIR/fake/libjvm.so,
 * a file that is no JVM under the name; 0 (skipped, said) when it cannot
 * run: it needs root for its private /tmp. */
static int fake_built(void)
{
	if (geteuid() != 0) {
		fprintf(stderr, "proc: not root: the fake JVMs (a private /tmp each) are skipped\n");
		return 0;
	}
	if (build_in_tmp("proc: the fake JVMs", "the fake's private /tmp"))
		return 0;
	procdir();
	ck_assert_int_eq(system("mkdir -p " PROCDIR "/fake && cp /bin/true " PROCDIR "/fake/libjvm.so && "
				"${CC:-cc} -o " PROCDIR "/fakejvm " TEST_SRCDIR "/fakejvm.c"), 0);
	return 1;
}

/* The fake in MODE, as PROCDIR/NAME.log (its SIGQUITs) and .cwd. */
static pid_t fake_start(const char *mode, const char *name)
{
	char ready[256];

	snprintf(ready, sizeof ready, PROCDIR "/%s.ready", name);
	unlink(ready);
	char *argv[] = { PROCDIR "/fakejvm", (char *)mode, PROCDIR "/fake/libjvm.so", ready, NULL };
	pid_t pid = start_logged(argv, name, 0);
	wait_ready(ready, pid);
	return pid;
}

/* The fake's log: n SIGQUITs taken. */
static void assert_quits(const char *name, int n, const char *what)
{
	char path[256];
	size_t len;

	snprintf(path, sizeof path, PROCDIR "/%s.log", name);
	char *log = file_bytes(path, &len);
	ck_assert_msg(len == (size_t)n * 5, "%s: %zu SIGQUITs, not %d", what, len / 5, n);
	free(log);
}

/* A process that maps a file named libjvm.so and handles SIGQUIT, but
 * is no JVM (no HotSpot perf data): refused in one line, never
 * signalled (its handler logs none), nothing pending. */
START_TEST(test_fake_not_a_jvm)
{
	if (!fake_built())
		return;
	pid_t pid = fake_start("nojvm", "nojvm");
	char *want = xasprintf("PID %ld maps a libjvm.so but no HotSpot performance data (/tmp/hsperfdata_%s/%ld; "
			       "none with -XX:-UsePerfData or -XX:+PerfDisableSharedMem) and has no attach socket "
			       "open: not known for a JVM, not signalled (-XX:+StartAttachListener opens the socket)",
			       (long)pid, getpwuid(geteuid())->pw_name, (long)pid);
	refused(pid, pid, want, 0, "libjvm.so mapped, no JVM");
	free(want);
	assert_quits("nojvm", 0, "libjvm.so mapped, no JVM");
	end(pid);
}
END_TEST

/* HotSpot's perf data, SIGQUIT handled, but no socket ever opens (as a
 * JVM whose attach is off and whose perf data does not say so): asked
 * once (one SIGQUIT), then after 10 s one line; the .attach_pid file
 * made in its working directory is gone. */
START_TEST(test_fake_attach_timeout)
{
	if (!fake_built())
		return;
	pid_t pid = fake_start("silent", "silent");
	char args[512];
	int rc;
	snprintf(args, sizeof args, "mark %ld", (long)pid);
	char *err = hw_stderr(args, 0, &rc);
	char *want = xasprintf("heapwalk: PID %ld did not open its attach socket in 10 s "
			       "(attach disabled? -XX:+DisableAttachMechanism)\n", (long)pid);
	ck_assert_msg(rc == 2 && strcmp(err, want) == 0, "status %d, said:\n%s\nnot:\n%s", rc, err, want);
	free(want);
	free(err);
	assert_untouched(pid, "a JVM that opens no socket");
	assert_quits("silent", 1, "a JVM that opens no socket");
	snprintf(args, sizeof args, PROCDIR "/silent.cwd/.attach_pid%ld", (long)pid);
	ck_assert_msg(access(args, F_OK) != 0, "%s left", args);
	end(pid);
}
END_TEST

/* An attach socket that answers 2 MiB: read up to 1 MiB, then one line;
 * its socket was open, so no signal. */
START_TEST(test_fake_flood)
{
	if (!fake_built())
		return;
	pid_t pid = fake_start("flood", "flood");
	char args[64];
	int rc;
	snprintf(args, sizeof args, "mark %ld", (long)pid);
	char *err = hw_stderr(args, 0, &rc);
	char *want = xasprintf("heapwalk: PID %ld: its attach answer passed 1048576 bytes: not read further\n",
			       (long)pid);
	ck_assert_msg(rc == 2 && strcmp(err, want) == 0, "status %d, said:\n%s\nnot:\n%s", rc, err, want);
	free(want);
	free(err);
	assert_untouched(pid, "an attach socket that floods");
	assert_quits("flood", 0, "an attach socket that floods");
	end(pid);
}
END_TEST

/* A JVM that says it dumped its heap but wrote a file cut short: the
 * copy does not open, so nothing is linked under FILE, no temporary is
 * left beside it, and nothing of heapwalk's in the JVM's /tmp. */
START_TEST(test_fake_truncated_dump)
{
	if (!fake_built())
		return;
	unlink(PROCDIR "/trunc.hprof"); /* a run before may have left it */
	pid_t pid = fake_start("trunc", "trunc");
	char args[512];
	int rc;
	snprintf(args, sizeof args, "snapshot --plain %ld " PROCDIR "/trunc.hprof", (long)pid);
	char *err = hw_stderr(args, 0, &rc);
	char *want = xasprintf("heapwalk: " PROCDIR "/trunc.hprof: the JVM's dump is not whole (it does not end with "
			       "HotSpot's last record, HEAP_DUMP_END); nothing written\n");
	ck_assert_msg(rc == 2 && strcmp(err, want) == 0, "status %d, said:\n%s\nnot:\n%s", rc, err, want);
	free(want);
	free(err);
	assert_nothing_written("trunc.hprof");
	char tmp[64];
	snprintf(tmp, sizeof tmp, "/proc/%ld/root/tmp", (long)pid);
	DIR *d = opendir(tmp);
	struct dirent *e;
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL)
		ck_assert_msg(strncmp(e->d_name, "heapwalk", 8) != 0, "left in the JVM's /tmp: %s", e->d_name);
	closedir(d);
	assert_quits("trunc", 0, "a JVM whose dump is cut short");
	end(pid);
}
END_TEST

/* A small dump at PROCDIR/NAME, written by the test's own HPROF writer:
 * a class and two instances, one a GC root. v101: "JAVA PROFILE 1.0.1",
 * one HEAP_DUMP record (as JDK 8-10 write a heap under 2 GB), else
 * 1.0.2 in a segment; end: HEAP_DUMP_END last; dangling: a root to an
 * object not in the dump (the reader warns). Its size. */
static long long small_dump(const char *name, int v101, int end, int dangling)
{
	enum { CLS = 0x3001, F0 = 0xb01, X = 0x5001, Y = 0x5003 };
	struct hw w;
	struct hw_field f = { F0, T_OBJECT, 0 };
	struct stat st;

	hw_begin(&w, v101 ? "JAVA PROFILE 1.0.1" : "JAVA PROFILE 1.0.2", 8);
	hw_jdk_names(&w);
	hw_utf8(&w, F0, "f0");
	hw_class_name(&w, 8, CLS, "t/K");
	if (v101)
		hw_rec_begin(&w, 0x0c);
	else
		hw_heap_begin(&w);
	hw_jdk_classes(&w);
	hw_class_dump(&w, CLS, J_OBJECT, 0, NULL, 0, NULL, 0, &f, 1);
	hw_root(&w, HW_ROOT_UNKNOWN, X, 0, 0);
	if (dangling)
		hw_root(&w, HW_ROOT_UNKNOWN, 0x7777, 0, 0);
	f.value = Y;
	hw_instance(&w, X, CLS, &f, 1);
	f.value = 0;
	hw_instance(&w, Y, CLS, &f, 1);
	if (v101)
		hw_rec_end(&w);
	else
		hw_heap_end(&w);
	if (end)
		hw_dump_end(&w);
	char *path = hw_write_in(&w, PROCDIR, name, SIZE_MAX);
	hw_free(&w);
	ck_assert_int_eq(stat(path, &st), 0);
	free(path);
	return (long long)st.st_size;
}

/* No entry of heapwalk's left in the fake's /tmp (a symbolic link there
 * is the fake's own, swapped in for heapwalk's directory). */
static void assert_fake_tmp_clean(pid_t pid, const char *what)
{
	char tmp[64];
	struct dirent *e;
	struct stat st;

	snprintf(tmp, sizeof tmp, "/proc/%ld/root/tmp", (long)pid);
	DIR *d = opendir(tmp);
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL)
		ck_assert_msg(strncmp(e->d_name, "heapwalk", 8) != 0 ||
				      (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)),
			      "%s: left in the JVM's /tmp: %s", what, e->d_name);
	closedir(d);
}

/* The fake JVM in mode dump doing what (FAKEJVM_DO) with src, the size
 * it states (NULL: the file's); heapwalk snapshot --plain PID
 * PROCDIR/NAME: its status in *rc, its standard error (to free); the
 * fake ended, its /tmp checked clean first. */
static char *fake_dump(const char *what, const char *src, const char *stated, const char *name, int *rc)
{
	char args[512];

	setenv("FAKEJVM_DO", what, 1);
	setenv("FAKEJVM_SRC", src, 1);
	if (stated)
		setenv("FAKEJVM_STATED", stated, 1);
	unlink(PROCDIR "/fakedump.log");
	pid_t pid = fake_start("dump", "fakedump");
	unsetenv("FAKEJVM_DO");
	unsetenv("FAKEJVM_SRC");
	unsetenv("FAKEJVM_STATED");
	snprintf(args, sizeof args, PROCDIR "/%s", name);
	unlink(args); /* a run before may have left it */
	snprintf(args, sizeof args, "snapshot --plain %ld " PROCDIR "/%s", (long)pid, name);
	char *err = hw_stderr(args, 0, rc);
	assert_fake_tmp_clean(pid, what);
	assert_quits("fakedump", 0, what);
	end(pid);
	return err;
}

/* "heapwalk: " want, one line, status 2, nothing under PROCDIR/name. */
static void assert_refused_dump(const char *err, int rc, const char *name, const char *want, const char *what)
{
	ck_assert_msg(rc == 2 && strncmp(err, "heapwalk: ", 10) == 0 && strstr(err, want) != NULL &&
		      strchr(err, '\n') == err + strlen(err) - 1,
		      "%s: status %d, said:\n%s\nnot a line with:\n%s", what, rc, err, want);
	assert_nothing_written(name);
}

/* Root against a JVM of root's (Docker's default): the JVM replaces the
 * directory heapwalk made in its /tmp by an absolute symbolic link to a
 * directory of ours (the host's) holding heap.hprof, a dump that would
 * pass. Refused in one line; the victim file untouched, nothing under
 * FILE: heapwalk reached the JVM's files only inside its root and by
 * the directory it made, never by name. */
START_TEST(test_fake_swapped_dir)
{
	if (!fake_built())
		return;
	ck_assert_int_eq(system("rm -rf " PROCDIR "/victim && mkdir " PROCDIR "/victim"), 0);
	long long n = small_dump("victim/heap.hprof", 0, 1, 0);
	size_t len;
	char *before = file_bytes(PROCDIR "/victim/heap.hprof", &len);
	ck_assert_int_eq((long long)len, n);
	int rc;
	char *err = fake_dump("swap", PROCDIR "/victim", NULL, "swapped.hprof", &rc);
	assert_refused_dump(err, rc, "swapped.hprof", "was moved or replaced while the JVM dumped: its dump is not read",
			    "a directory swapped for a link to ours");
	free(err);
	size_t len2;
	char *after = file_bytes(PROCDIR "/victim/heap.hprof", &len2);
	ck_assert_msg(len2 == len && memcmp(before, after, len) == 0, "the victim file changed");
	free(before);
	free(after);
}
END_TEST

/* What the JVM leaves at the dump's name that is not its regular file:
 * a symbolic link to a dump of ours (that would pass), a FIFO (which
 * would hang a reader). Each refused in one line, nothing written. */
START_TEST(test_fake_not_a_file)
{
	if (!fake_built())
		return;
	small_dump("linked.src", 0, 1, 0);
	int rc;
	char *err = fake_dump("link", PROCDIR "/linked.src", "1000", "linked.hprof", &rc);
	assert_refused_dump(err, rc, "linked.hprof", "heap.hprof: Too many levels of symbolic links",
			    "a link at the dump's name");
	free(err);
	err = fake_dump("fifo", PROCDIR "/linked.src", "1000", "fifo.hprof", &rc);
	assert_refused_dump(err, rc, "fifo.hprof", "heap.hprof is not a regular file of the JVM's user (one link): "
			    "not read", "a FIFO at the dump's name");
	free(err);
}
END_TEST

/* Dumps the JVM says it wrote that are not whole: a segmented one (1.0.2)
 * without HEAP_DUMP_END, one that reads with a warning, a 1.0.1 one not
 * of the size stated. Each refused; a 1.0.1 dump of the size stated (no
 * end record: JDK 8-10 write none) is taken, and reads back. */
START_TEST(test_fake_dump_checks)
{
	if (!fake_built())
		return;
	int rc;
	small_dump("noend.src", 0, 0, 0);
	char *err = fake_dump("copy", PROCDIR "/noend.src", NULL, "noend.hprof", &rc);
	assert_refused_dump(err, rc, "noend.hprof", "noend.hprof: the JVM's dump is not whole (it does not end with "
			    "HotSpot's last record, HEAP_DUMP_END); nothing written", "1.0.2 without HEAP_DUMP_END");
	free(err);
	small_dump("warned.src", 0, 1, 1);
	err = fake_dump("copy", PROCDIR "/warned.src", NULL, "warned.hprof", &rc);
	assert_refused_dump(err, rc, "warned.hprof", "warned.hprof: the JVM's dump is not whole (", "a dump with a warning");
	ck_assert_msg(strstr(err, "0x7777") != NULL, "not the reader's warning: %s", err);
	free(err);
	long long n = small_dump("old.src", 1, 0, 0);
	char stated[32];
	snprintf(stated, sizeof stated, "%lld", n + 1);
	err = fake_dump("copy", PROCDIR "/old.src", stated, "old.hprof", &rc);
	assert_refused_dump(err, rc, "old.hprof", "old.hprof: the JVM's dump is not whole (it is not the size the JVM "
			    "said it wrote); nothing written", "1.0.1 not of the size stated");
	free(err);
	/* a directory that is not there: the line names the file asked for
	 * (not the temporary copy beside it) */
	err = fake_dump("copy", PROCDIR "/old.src", NULL, "nodir/old.hprof", &rc);
	assert_refused_dump(err, rc, "nodir/old.hprof",
			    "heapwalk: " PROCDIR "/nodir/old.hprof: cannot create: No such file or directory\n",
			    "a missing directory");
	free(err);
	err = fake_dump("copy", PROCDIR "/old.src", NULL, "old.hprof", &rc);
	ck_assert_msg(rc == 0 && err[0] == '\0', "1.0.1 of the size stated: status %d: %s", rc, err);
	free(err);
	size_t a, b;
	char *want = file_bytes(PROCDIR "/old.src", &a), *got = file_bytes(PROCDIR "/old.hprof", &b);
	ck_assert_msg(a == b && memcmp(want, got, a) == 0, "old.hprof is not the JVM's dump");
	free(want);
	free(got);
	char cmd[512];
	int st;
	snprintf(cmd, sizeof cmd, "%s --no-cache classes " PROCDIR "/old.hprof 2>&1", heapwalk());
	char *out = run(cmd, &st);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0 && strstr(out, "t.K") != NULL, "%s: %s", cmd, out);
	free(out);
}
END_TEST

/* A JVM that leaves a file of its own in heapwalk's directory (and no
 * dump): the directory cannot be removed, and the error line says it
 * is left, after why the snapshot failed. */
START_TEST(test_fake_dir_left)
{
	if (!fake_built())
		return;
	small_dump("litter.src", 0, 1, 0);
	setenv("FAKEJVM_DO", "litter", 1);
	setenv("FAKEJVM_SRC", PROCDIR "/litter.src", 1);
	pid_t pid = fake_start("dump", "litter");
	unsetenv("FAKEJVM_DO");
	unsetenv("FAKEJVM_SRC");
	unlink(PROCDIR "/litter.hprof");
	char args[512];
	int rc;
	snprintf(args, sizeof args, "snapshot --plain %ld " PROCDIR "/litter.hprof", (long)pid);
	char *err = hw_stderr(args, 0, &rc);
	ck_assert_msg(rc == 2 && strstr(err, "heap.hprof: No such file or directory; and its directory "
					 "/tmp/heapwalk-dump-") != NULL &&
			      strstr(err, " is left in the JVM's /tmp (Directory not empty)\n") != NULL &&
			      strchr(err, '\n') == err + strlen(err) - 1,
		      "status %d: %s", rc, err);
	free(err);
	assert_nothing_written("litter.hprof");
	end(pid);
}
END_TEST

/* --gz of a JVM that takes no gzip level (the fake writes what it is
 * given, a plain HPROF): the snapshot is taken, its line says no
 * "(gzip)" (the file's content, not the option), and one line on
 * stderr says the file is plain. */
START_TEST(test_fake_gz_not_taken)
{
	if (!fake_built())
		return;
	small_dump("gzplain.src", 0, 1, 0);
	setenv("FAKEJVM_DO", "copy", 1);
	setenv("FAKEJVM_SRC", PROCDIR "/gzplain.src", 1);
	pid_t pid = fake_start("dump", "gzplain");
	unsetenv("FAKEJVM_DO");
	unsetenv("FAKEJVM_SRC");
	unlink(PROCDIR "/gzplain.hprof.gz");
	char cmd[1024], *want;
	int st;
	snprintf(cmd, sizeof cmd, "env PATH=" NOJCMD " %s snapshot --gz=3 %ld " PROCDIR "/gzplain.hprof.gz 2>&1",
		 heapwalk(), (long)pid);
	char *out = run(cmd, &st);
	want = xasprintf("heapwalk: PID %ld: the JVM took no gzip level (an older JDK): " PROCDIR
			 "/gzplain.hprof.gz is a plain HPROF\n", (long)pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0 && strstr(out, want) != NULL &&
		      strstr(out, "snapshot " PROCDIR "/gzplain.hprof.gz: ") != NULL && strstr(out, "(gzip)") == NULL,
		      "%s: status %d: %s", cmd, st, out);
	free(want);
	free(out);
	size_t a, b;
	char *src = file_bytes(PROCDIR "/gzplain.src", &a), *got = file_bytes(PROCDIR "/gzplain.hprof.gz", &b);
	ck_assert_msg(a == b && memcmp(src, got, a) == 0, "not the JVM's dump");
	free(src);
	free(got);
	unlink(PROCDIR "/gzplain.hprof.gz");
	assert_fake_tmp_clean(pid, "--gz not taken");
	end(pid);
}
END_TEST

/* SIGTERM to heapwalk while the JVM writes its dump (the fake has
 * written it and waits 60 s to answer): heapwalk ends by the signal at
 * once, and neither FILE.tmp-* beside FILE nor its directory or the
 * dump in the JVM's /tmp is left (the JVM would finish writing an
 * unlinked file). Then HEAPWALK_SNAPSHOT_WALL=2: given up in one line
 * after 2 s, the same left clean. */
START_TEST(test_fake_dump_stopped)
{
	if (!fake_built())
		return;
	small_dump("slow.src", 0, 1, 0);
	setenv("FAKEJVM_DO", "slow", 1);
	setenv("FAKEJVM_SRC", PROCDIR "/slow.src", 1);
	setenv("FAKEJVM_MARK", PROCDIR "/slow.mark", 1);
	unlink(PROCDIR "/slow.mark");
	unlink(PROCDIR "/slow.hprof");
	pid_t pid = fake_start("dump", "slow");
	char spid[32];
	snprintf(spid, sizeof spid, "%ld", (long)pid);
	pid_t hw = fork();
	ck_assert_int_ge(hw, 0);
	if (hw == 0) {
		as_a_service();
		execl(heapwalk(), "heapwalk", "snapshot", "--plain", spid, PROCDIR "/slow.hprof", (char *)NULL);
		_exit(127);
	}
	wait_ready(PROCDIR "/slow.mark", pid);
	ck_assert_int_eq(kill(hw, SIGTERM), 0);
	int st = 0;
	for (int i = 0; i < 300 && waitpid(hw, &st, WNOHANG) == 0; i++) /* 30 s: a hang, not a speed */
		usleep(100000);
	if (waitpid(hw, NULL, WNOHANG) == 0) {
		kill(hw, SIGKILL);
		waitpid(hw, NULL, 0);
		ck_abort_msg("heapwalk did not end on SIGTERM during the JVM's dump");
	}
	ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "heapwalk ended with status %d", st);
	assert_nothing_written("slow.hprof");
	assert_fake_tmp_clean(pid, "stopped during the JVM's dump");
	end(pid);

	unlink(PROCDIR "/slow.mark");
	pid = fake_start("dump", "slow");
	unsetenv("FAKEJVM_DO");
	unsetenv("FAKEJVM_SRC");
	unsetenv("FAKEJVM_MARK");
	char args[512];
	int rc;
	snprintf(args, sizeof args, "snapshot --plain %ld " PROCDIR "/slow.hprof", (long)pid);
	setenv("HEAPWALK_SNAPSHOT_WALL", "2", 1);
	char *err = hw_stderr(args, 0, &rc);
	unsetenv("HEAPWALK_SNAPSHOT_WALL");
	char *want = xasprintf("heapwalk: PID %ld did not answer dumpheap in 2 s (HEAPWALK_SNAPSHOT_WALL): given up\n",
			       (long)pid);
	ck_assert_msg(rc == 2 && strcmp(err, want) == 0, "status %d, said:\n%s\nnot:\n%s", rc, err, want);
	free(want);
	free(err);
	assert_nothing_written("slow.hprof");
	assert_fake_tmp_clean(pid, "given up after HEAPWALK_SNAPSHOT_WALL");
	end(pid);
}
END_TEST

/* Root against nobody's JVM: the dump is fetched by a child of nobody's
 * uid. SIGTERM to heapwalk alone while the JVM writes its dump: heapwalk
 * ends by it, and its child, sent SIGTERM as its parent dies, removes
 * the dump and its directory from the JVM's /tmp (waited for 20 s at
 * most: the child ends on its own only after the fake's 60 s answer). */
START_TEST(test_fake_dump_stopped_as_user)
{
	if (!fake_built())
		return;
	uid_t uid;
	gid_t gid;
	char id[32];
	nobody(&uid, &gid);
	ck_assert_int_eq(system("chmod 1777 " PROCDIR), 0);
	small_dump("slowu.src", 0, 1, 0);
	ck_assert_int_eq(chmod(PROCDIR "/slowu.src", 0644), 0);
	setenv("FAKEJVM_DO", "slow", 1);
	setenv("FAKEJVM_SRC", PROCDIR "/slowu.src", 1);
	setenv("FAKEJVM_MARK", PROCDIR "/slowu.mark", 1);
	snprintf(id, sizeof id, "%ld", (long)uid);
	setenv("FAKEJVM_UID", id, 1);
	snprintf(id, sizeof id, "%ld", (long)gid);
	setenv("FAKEJVM_GID", id, 1);
	unlink(PROCDIR "/slowu.mark");
	unlink(PROCDIR "/slowu.hprof");
	pid_t pid = fake_start("dump", "slowu");
	unsetenv("FAKEJVM_DO");
	unsetenv("FAKEJVM_SRC");
	unsetenv("FAKEJVM_MARK");
	unsetenv("FAKEJVM_UID");
	unsetenv("FAKEJVM_GID");
	char spid[32];
	snprintf(spid, sizeof spid, "%ld", (long)pid);
	pid_t hw = fork();
	ck_assert_int_ge(hw, 0);
	if (hw == 0) {
		as_a_service();
		setsid(); /* the signal to heapwalk alone, not to its group */
		execl(heapwalk(), "heapwalk", "snapshot", "--plain", spid, PROCDIR "/slowu.hprof", (char *)NULL);
		_exit(127);
	}
	wait_ready(PROCDIR "/slowu.mark", pid);
	ck_assert_int_eq(kill(hw, SIGTERM), 0);
	int st = 0;
	for (int i = 0; i < 300 && waitpid(hw, &st, WNOHANG) == 0; i++) /* 30 s: a hang, not a speed */
		usleep(100000);
	if (waitpid(hw, NULL, WNOHANG) == 0) {
		kill(hw, SIGKILL);
		waitpid(hw, NULL, 0);
		ck_abort_msg("heapwalk did not end on SIGTERM during the JVM's dump");
	}
	ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "heapwalk ended with status %d", st);
	assert_nothing_written("slowu.hprof");
	char tmp[64];
	snprintf(tmp, sizeof tmp, "/proc/%ld/root/tmp", (long)pid);
	int left = 1;
	for (int i = 0; i < 200 && left; i++) {
		DIR *d = opendir(tmp);
		struct dirent *e;
		ck_assert_ptr_nonnull(d);
		left = 0;
		while ((e = readdir(d)) != NULL)
			left |= strncmp(e->d_name, "heapwalk", 8) == 0;
		closedir(d);
		if (left)
			usleep(100000);
	}
	assert_fake_tmp_clean(pid, "nobody's JVM, heapwalk stopped during its dump");
	end(pid);
}
END_TEST

/* What the JVM side writes is escaped: the agent's status line and
 * HotSpot's dump message full of terminal controls reach stderr as one
 * line of escapes (a failed dumpheap, though status 0, is an error, and
 * nothing is written). */
START_TEST(test_fake_controls)
{
	const char *agent = getenv("HEAPWALK_AGENT");
	if (!fake_built())
		return;
	unlink(PROCDIR "/ctrl.hprof");
	pid_t pid = fake_start("ctrl", "ctrl");
	char args[512];
	int rc;
	if (agent != NULL && access(agent, R_OK) == 0) {
		snprintf(args, sizeof args, "mark %ld", (long)pid);
		char *err = hw_stderr(args, 0, &rc);
		char *want = xasprintf("heapwalk: process %ld: the agent says: bad\\x1b[2J\\x1b]0;owned\\x07 "
				       "news\\rhere\n", (long)pid);
		ck_assert_msg(rc == 2 && strcmp(err, want) == 0, "status %d, said:\n%s\nnot:\n%s", rc, err, want);
		free(want);
		free(err);
	} else {
		fprintf(stderr, "proc: the agent is not built: its status line is not tested\n");
	}
	snprintf(args, sizeof args, "snapshot --plain %ld " PROCDIR "/ctrl.hprof", (long)pid);
	char *err = hw_stderr(args, 0, &rc);
	char *want = xasprintf("heapwalk: PID %ld: the JVM did not dump its heap (attach status 0): "
			       "no room\\x1b[2J\\x1b]0;owned\\x07 left\n", (long)pid);
	ck_assert_msg(rc == 2 && strcmp(err, want) == 0, "status %d, said:\n%s\nnot:\n%s", rc, err, want);
	free(want);
	free(err);
	assert_nothing_written("ctrl.hprof");
	assert_untouched(pid, "an attach socket that sends controls");
	assert_quits("ctrl", 0, "an attach socket that sends controls");
	end(pid);
}
END_TEST

/* The agent renamed its dump whole and then was frozen, still holding
 * the status file's lock (the fake JVM in mode renamed plays it, once
 * heapwalk has seen its FILE.tmp-PID: no timing): past
 * HEAPWALK_SNAPSHOT_WALL heapwalk cannot take the lock, and FILE, the
 * very file it saw, is reported written, status 0, its content the
 * fake's; nothing else left, the status file removed. And FILE made at
 * once, never seen as FILE.tmp-PID: given up, status 2, FILE said to be
 * there but not known whole (never 'nothing written'), left as it is. */
START_TEST(test_fake_renamed_late)
{
	const char *agent = getenv("HEAPWALK_AGENT");
	if (!fake_built())
		return;
	if (agent == NULL || access(agent, R_OK) != 0) {
		fprintf(stderr, "proc: the agent is not built: its late rename is not tested\n");
		return;
	}
	unlink(PROCDIR "/renamed.hprof");
	unlink(PROCDIR "/renamed.err");
	pid_t pid = fake_start("renamed", "renamed");
	char cmd[1024];
	int st;
	snprintf(cmd, sizeof cmd, "env PATH=" NOJCMD " HEAPWALK_SNAPSHOT_WALL=2 %s snapshot %ld " PROCDIR
		 "/renamed.hprof 2>" PROCDIR "/renamed.err", heapwalk(), (long)pid);
	char *out = run(cmd, &st);
	size_t n;
	char *err = file_bytes(PROCDIR "/renamed.err", &n);
	const char *want = "dump " PROCDIR "/renamed.hprof finished past the wall (2 s, HEAPWALK_SNAPSHOT_WALL): "
			   "written whole; the agent's counts not read\n";
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0 && strcmp(out, want) == 0 && n == 0,
		      "status %d, said:\n%s\non stderr:\n%s\nnot:\n%s", st, out, err, want);
	free(out);
	free(err);
	char *dump = file_bytes(PROCDIR "/renamed.hprof", &n);
	ck_assert_msg(n == 6 && memcmp(dump, "whole\n", 6) == 0, "FILE is not the fake's (%zu bytes)", n);
	free(dump);
	ck_assert_int_eq(unlink(PROCDIR "/renamed.hprof"), 0);
	assert_nothing_written("renamed.hprof");
	assert_fake_tmp_clean(pid, "its rename seen past the wall");
	end(pid);

	/* heapwalk PID says it too, before it opens what was written (the
	 * fake's six bytes: no dump, so status 2 then) */
	ck_assert_int_eq(system("rm -rf " PROCDIR "/latecache"), 0);
	pid = fake_start("renamed", "renamed");
	snprintf(cmd, sizeof cmd, "env PATH=" NOJCMD " HEAPWALK_SNAPSHOT_WALL=2 XDG_CACHE_HOME=" PROCDIR
		 "/latecache %s -e classes %ld </dev/null 2>" PROCDIR "/renamed.err", heapwalk(), (long)pid);
	out = run(cmd, &st);
	err = file_bytes(PROCDIR "/renamed.err", &n);
	char *want1 = xasprintf("heapwalk: PID %ld: dump " PROCDIR "/latecache/", (long)pid);
	const char *end1 = " finished past the wall (2 s, HEAPWALK_SNAPSHOT_WALL): written whole; the agent's "
			   "counts not read\n";
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 2 && strstr(err, want1) != NULL && strstr(err, end1) != NULL,
		      "status %d, on stderr:\n%s\nnot:\n%s...%s", st, err, want1, end1);
	free(want1);
	free(out);
	free(err);
	assert_fake_tmp_clean(pid, "its rename seen past the wall, heapwalk PID");
	end(pid);

	/* FILE written at once, never as FILE.tmp-PID: there, but not the
	 * file heapwalk saw written, so not said written whole, nor that
	 * nothing was */
	setenv("FAKEJVM_DIRECT", "1", 1);
	pid = fake_start("renamed", "renamed");
	unsetenv("FAKEJVM_DIRECT");
	snprintf(cmd, sizeof cmd, "env PATH=" NOJCMD " HEAPWALK_SNAPSHOT_WALL=2 %s snapshot %ld " PROCDIR
		 "/renamed.hprof 2>" PROCDIR "/renamed.err", heapwalk(), (long)pid);
	out = run(cmd, &st);
	err = file_bytes(PROCDIR "/renamed.err", &n);
	char *want2 = xasprintf("heapwalk: PID %ld did not finish heapwalk's agent's dump in 2 s (HEAPWALK_SNAPSHOT_WALL): "
				"given up; " PROCDIR "/renamed.hprof is there, but heapwalk never saw it written: not "
				"known to be whole\n", (long)pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 2 && *out == '\0' && strcmp(err, want2) == 0,
		      "status %d, said:\n%s\non stderr:\n%s\nnot:\n%s", st, out, err, want2);
	free(want2);
	free(out);
	free(err);
	ck_assert_int_eq(access(PROCDIR "/renamed.hprof", F_OK), 0); /* left as it is */
	ck_assert_int_eq(unlink(PROCDIR "/renamed.hprof"), 0);
	assert_fake_tmp_clean(pid, "its file written at once, past the wall");
	end(pid);
}
END_TEST

/* Until pid's state is s ('T': stopped; 'S' sleeping), a minute at most. */
static void wait_state(pid_t pid, char s)
{
	char path[64];

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	for (double end = now_seconds() + hang_seconds(60); now_seconds() < end;) {
		size_t n;
		char *st = file_bytes(path, &n);
		char *paren = strrchr(st, ')');
		int there = paren != NULL && paren[1] == ' ' && paren[2] == s;
		free(st);
		if (there)
			return;
		usleep(20000);
	}
	ck_abort_msg("PID %ld not in state %c after 60 s", (long)pid, s);
}

/* No signal pending for pid or its threads. */
static void assert_nothing_pending(pid_t pid, const char *what)
{
	char path[64];
	size_t n;

	snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
	char *s = file_bytes(path, &n);
	ck_assert_msg(strstr(s, "\nSigPnd:\t0000000000000000\n") && strstr(s, "\nShdPnd:\t0000000000000000\n"),
		      "%s: a signal is pending: %.2000s", what, s);
	free(s);
}

/* A stopped JVM (SIGSTOP), before its socket is open and after: refused
 * at once in one line, no signal left pending in it (which it would
 * take once continued: a thread dump); continued, it is marked. */
START_TEST(test_jvm_stopped)
{
	const char *agent = getenv("HEAPWALK_AGENT");
	if (!sleeper() || agent == NULL || access(agent, R_OK) != 0) {
		fprintf(stderr, "proc: no JDK or no agent: the stopped JVM test is skipped\n");
		return;
	}
	unlink(PROCDIR "/stopped.ready");
	char *argv[] = { getenv("JAVA"), "-cp", PROCDIR, "Sleep", PROCDIR "/stopped.ready", NULL };
	pid_t pid = start_logged(argv, "stopped", 0);
	wait_ready(PROCDIR "/stopped.ready", pid);
	char *want = xasprintf("PID %ld is stopped (SIGSTOP, or ^Z): it cannot answer; not signalled", (long)pid);
	for (int i = 1; i <= 2; i++) {
		ck_assert_int_eq(kill(pid, SIGSTOP), 0);
		wait_state(pid, 'T');
		refused(pid, 0, want, 0, i == 1 ? "a stopped JVM" : "a stopped JVM, its socket open");
		assert_nothing_pending(pid, "a stopped JVM");
		ck_assert_int_eq(kill(pid, SIGCONT), 0);
		wait_state(pid, 'S');
		mark_ok(pid, i);
	}
	free(want);
	assert_dumps(pid, "stopped", 0, "a stopped JVM continued");
	end(pid);
}
END_TEST

/* A JVM whose /tmp/.java_pidN no one listens on (a JVM that had its pid
 * before was killed and left it): asked to open its own, which replaces
 * it, and marked; one signal, taken for the attach (no thread dump). */
START_TEST(test_jvm_stale_socket)
{
	const char *agent = getenv("HEAPWALK_AGENT");
	if (!sleeper() || agent == NULL || access(agent, R_OK) != 0) {
		fprintf(stderr, "proc: no JDK or no agent: the stale socket test is skipped\n");
		return;
	}
	unlink(PROCDIR "/stale.ready");
	char *argv[] = { getenv("JAVA"), "-cp", PROCDIR, "Sleep", PROCDIR "/stale.ready", NULL };
	pid_t pid = start_logged(argv, "stale", 0);
	wait_ready(PROCDIR "/stale.ready", pid);
	char sock[64];
	struct stat before, after;
	snprintf(sock, sizeof sock, "/tmp/.java_pid%ld", (long)pid);
	ck_assert_msg(access(sock, F_OK) != 0, "%s is there before any attach", sock);
	close(plant(sock, 0));
	ck_assert_int_eq(lstat(sock, &before), 0);
	mark_ok(pid, 1);
	ck_assert_int_eq(lstat(sock, &after), 0);
	ck_assert_msg(S_ISSOCK(after.st_mode) && after.st_ino != before.st_ino, "the stale socket was not replaced");
	mark_ok(pid, 2);
	assert_dumps(pid, "stale", 0, "a JVM behind a stale socket");
	end(pid);
}
END_TEST

/* As root, nobody's JVM whose /tmp/.java_pidN another user (root) made
 * before it did: not used (no one connects), the JVM not signalled.
 * Then, the socket gone, the JVM is marked: heapwalk attaches as its
 * user, the agent writing its status as that user. */
START_TEST(test_jvm_planted_socket)
{
	if (geteuid() != 0 || !sleeper()) {
		fprintf(stderr, "proc: not root, or no JDK: the planted attach socket test is skipped\n");
		return;
	}
	const char *agent = getenv("HEAPWALK_AGENT");
	unlink(PROCDIR "/nobody.ready");
	ck_assert_int_eq(system("chmod 1777 " PROCDIR), 0);
	char *argv[] = { getenv("JAVA"), "-cp", PROCDIR, "Sleep", PROCDIR "/nobody.ready", NULL };
	pid_t pid = start_logged(argv, "nobody", 1);
	wait_ready(PROCDIR "/nobody.ready", pid);
	char sock[64];
	snprintf(sock, sizeof sock, "/tmp/.java_pid%ld", (long)pid);
	ck_assert_msg(access(sock, F_OK) != 0, "%s is there before any attach", sock);
	int s = plant(sock, 0);
	uid_t uid;
	gid_t gid;
	nobody(&uid, &gid);
	char *want = xasprintf("PID %ld: its attach socket /tmp/.java_pid%ld is owned by uid 0, not by the JVM's user "
			       "(uid %ld): not used", (long)pid, (long)pid, (long)uid);
	refused(pid, pid, want, 0, "nobody's JVM, root's socket");
	free(want);
	assert_unused(s, 0, "root's socket in nobody's JVM's place");
	close(s);
	unlink(sock);
	assert_dumps(pid, "nobody", 0, "nobody's JVM, root's socket");
	if (agent != NULL && access(agent, R_OK) == 0) {
		/* with a TMPDIR nobody may not enter: the agent's status file
		 * is made in the JVM's /tmp, for its user */
		ck_assert_int_eq(system("mkdir -p " PROCDIR "/private && chmod 700 " PROCDIR "/private"), 0);
		setenv("TMPDIR", PROCDIR "/private", 1);
		mark_ok(pid, 1);
		unsetenv("TMPDIR");
		assert_dumps(pid, "nobody", 0, "nobody's JVM marked by root");
	}
	end(pid);
}
END_TEST

/* As root against another user's JVM, nothing is made in that JVM's
 * /tmp with root's rights: its user decides what /tmp is (a symlink, a
 * mount in a namespace of its own). Here nobody's JVM runs in a mount
 * namespace whose /tmp is a directory of root's that nobody may not
 * write: the agent's status file cannot be made there (it is made by a
 * child of the JVM's user), heapwalk says so at once, the JVM is not
 * signalled, and the directory keeps only the JVM's perf data (in a
 * directory of nobody's made for it). Root's own heapwalk could write
 * there; before, it made the file there. */
START_TEST(test_jvm_tmp_not_its_users)
{
	const char *agent = getenv("HEAPWALK_AGENT");

	if (geteuid() != 0 || !have("unshare") || !have("setpriv") || !sleeper() || agent == NULL ||
	    access(agent, R_OK) != 0 ||
	    system("unshare -m --propagation private true 2>/dev/null") != 0) {
		fprintf(stderr, "proc: not root, no JDK or agent, or no mount namespaces: the JVM's own /tmp test "
				"is skipped\n");
		return;
	}
	if (build_in_tmp("proc: the JVM's own /tmp test", "the JVM's own /tmp"))
		return;
	uid_t uid;
	gid_t gid;
	nobody(&uid, &gid);
	ck_assert_int_eq(system("rm -rf " PROCDIR "/roots && mkdir -m 755 " PROCDIR "/roots && chmod 1777 " PROCDIR),
			 0);
	/* its perf data directory, nobody's, made beforehand: the JVM maps
	 * its perf data, by which heapwalk knows it for a JVM */
	char mk[512];
	snprintf(mk, sizeof mk, "mkdir -m 755 " PROCDIR "/roots/hsperfdata_nobody && chown %ld:%ld " PROCDIR
		 "/roots/hsperfdata_nobody", (long)uid, (long)gid);
	ck_assert_int_eq(system(mk), 0);
	unlink(PROCDIR "/nsjvm.ready");
	char script[1024];
	snprintf(script, sizeof script,
		 "mount --bind " PROCDIR "/roots /tmp && exec setpriv --reuid=%ld --regid=%ld --clear-groups "
		 "%s -cp " PROCDIR " Sleep " PROCDIR "/nsjvm.ready",
		 (long)uid, (long)gid, getenv("JAVA"));
	char *argv[] = { "unshare", "-m", "--propagation", "private", "sh", "-c", script, NULL };
	pid_t pid = start_logged(argv, "nsjvm", 0);
	wait_ready(PROCDIR "/nsjvm.ready", pid);
	wait_exec(pid, "java");
	char cmd[1024];
	int st;
	snprintf(cmd, sizeof cmd, "env PATH=" NOJCMD " %s mark %ld 2>&1", heapwalk(), (long)pid);
	char *out = run(cmd, &st);
	char *want = xasprintf("heapwalk: PID %ld: cannot make /tmp/heapwalk-status-", (long)pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 2 && strncmp(out, want, strlen(want)) == 0 &&
		      strstr(out, ": Permission denied\n") != NULL && strchr(out, '\n') == out + strlen(out) - 1,
		      "%s: status %d: %s", cmd, st, out);
	free(want);
	free(out);
	assert_untouched(pid, "nobody's JVM in its own /tmp");
	assert_dumps(pid, "nsjvm", 0, "nobody's JVM in its own /tmp");
	DIR *d = opendir(PROCDIR "/roots");
	struct dirent *e;
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL)
		ck_assert_msg(strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
			      strcmp(e->d_name, "hsperfdata_nobody") == 0,
			      "made in the JVM's /tmp (root's directory): %s", e->d_name);
	closedir(d);
	end(pid);
}
END_TEST

/* ---- a JVM that writes its dump, or answers nothing, in a cgroup v2
 * freezer (cgroup.freeze: its threads held in the kernel, no signal
 * sent, State S; SIGKILL still ends them) ---- */

/* The cgroups of tests that failed while theirs was in use, their
 * process gone (their JVM went with it, empty): removed. */
static void sweep_cgroups(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char proc[64], path[1024];
	long pid;

	while (d != NULL && (e = readdir(d)) != NULL) {
		if (sscanf(e->d_name, "heapwalk-test-%ld", &pid) != 1 || pid <= 0)
			continue;
		snprintf(proc, sizeof proc, "/proc/%ld", pid);
		if (access(proc, F_OK) != 0) {
			snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
			rmdir(path); /* not if a process is in it */
		}
	}
	if (d != NULL)
		closedir(d);
}

/* A cgroup of our own under the cgroup v2 hierarchy (mounted anywhere:
 * /sys/fs/cgroup, or /sys/fs/cgroup/unified beside v1's), with its
 * freezer; NULL, said, when there is none or it may not be written. */
static char *freezer(void)
{
	FILE *m = fopen("/proc/self/mounts", "r");
	char dev[256], dir[512], type[64], path[700];
	char *cg = NULL;

	while (m != NULL && cg == NULL && fscanf(m, "%255s %511s %63s %*[^\n]", dev, dir, type) == 3)
		if (strcmp(type, "cgroup2") == 0) {
			sweep_cgroups(dir);
			cg = xasprintf("%s/heapwalk-test-%ld", dir, (long)getpid());
		}
	if (m != NULL)
		fclose(m);
	if (cg != NULL && mkdir(cg, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "proc: %s: %s: no cgroup v2 freezer here\n", cg, strerror(errno));
		free(cg);
		return NULL;
	}
	if (cg == NULL) {
		fprintf(stderr, "proc: no cgroup2 file system mounted: no cgroup v2 freezer here\n");
		return NULL;
	}
	snprintf(path, sizeof path, "%s/cgroup.freeze", cg);
	if (access(path, W_OK) != 0) {
		fprintf(stderr, "proc: %s: %s: no cgroup v2 freezer here\n", path, strerror(errno));
		rmdir(cg);
		free(cg);
		return NULL;
	}
	return cg;
}

/* Write s to the cgroup's file name. */
static void cg_write(const char *cg, const char *name, const char *s)
{
	char path[700];

	snprintf(path, sizeof path, "%s/%s", cg, name);
	int fd = open(path, O_WRONLY);
	ck_assert_msg(fd >= 0 && write(fd, s, strlen(s)) == (ssize_t)strlen(s), "%s: %s", path, strerror(errno));
	close(fd);
}

/* pid into the cgroup cg, and it frozen (on) or thawed, as
 * cgroup.events then says (a minute at most: a hang, not a speed). */
static void freeze(const char *cg, pid_t pid, int on)
{
	char s[32], path[700];

	snprintf(s, sizeof s, "%ld", (long)pid);
	cg_write(cg, "cgroup.procs", s);
	cg_write(cg, "cgroup.freeze", on ? "1" : "0");
	snprintf(path, sizeof path, "%s/cgroup.events", cg);
	for (double end = now_seconds() + hang_seconds(60);;) {
		size_t n;
		char *ev = file_bytes(path, &n);
		int there = strstr(ev, on ? "\nfrozen 1" : "\nfrozen 0") != NULL;
		free(ev);
		if (there)
			return;
		ck_assert_msg(now_seconds() < end, "%s: not %s after 60 s", cg, on ? "frozen" : "thawed");
		usleep(20000);
	}
}

/* The progress lines in out (what a terminal got): at least min of
 * them, the last the dump's size when it was whole, file's, ending its
 * line. */
static void assert_progress(const char *out, pid_t pid, const char *file, int min, const char *what)
{
	char *head = xasprintf("\r\033[Kheapwalk: PID %ld: ", (long)pid);
	const char *last = NULL;
	int lines = 0;
	struct stat st;
	char want[64];

	for (const char *q = strstr(out, head); q != NULL; q = strstr(q + 1, head), lines++)
		last = q;
	ck_assert_msg(stat(file, &st) == 0, "%s: %s: %s", what, file, strerror(errno));
	snprintf(want, sizeof want, "%.1f MB of its heap dump written, ", (double)st.st_size / 1e6);
	ck_assert_msg(lines >= min && last != NULL && strncmp(last + strlen(head), want, strlen(want)) == 0,
		      "%s: %d progress lines (not %d or more), the last not '%s' (%lld bytes): %.3000s", what, lines,
		      min, want, (long long)st.st_size, out);
	const char *tail = last + strlen(head) + strlen(want);
	ck_assert_msg(strspn(tail, "0123456789.") > 0 && strncmp(tail + strspn(tail, "0123456789."), " s\r\n", 4) == 0,
		      "%s: the last progress line: %.200s", what, last);
	free(head);
}

/* heapwalk ARGS in a pseudo-terminal (script(1)): all it wrote there. */
static char *in_pty(const char *args, int *st)
{
	char cmd[2048];

	snprintf(cmd, sizeof cmd, "timeout %d script -qec 'env PATH=" NOJCMD " %s %s' /dev/null </dev/null 2>&1",
		 (int)hang_seconds(120), heapwalk(), args);
	return run(cmd, st);
}

/* Progress on a terminal while a JVM writes its dump (HotSpot's over
 * the attach protocol, and the agent's): the file's size as it grows,
 * its last line the size of the dump whole (told by the file written);
 * none on a pipe, none with -q. Then, the JVM frozen before it is
 * asked (its socket open: nothing to signal), heapwalk shows the wait
 * line after line while the JVM answers nothing, as many as we wait for
 * (a terminal's lines while it waits, not only its last), and once
 * thawed the JVM writes, answers, and the last line is its dump's. */
START_TEST(test_jvm_progress)
{
	const char *agent = getenv("HEAPWALK_AGENT");
	if (!have("script") || !sleeper()) {
		fprintf(stderr, "proc: no script(1) or no JDK: a JVM's progress on a terminal is not tested\n");
		return;
	}
	ck_assert_int_eq(system("rm -f " PROCDIR "/jprog.ready " PROCDIR "/jprog.hprof*"), 0);
	char *argv[] = { getenv("JAVA"), "-cp", PROCDIR, "Sleep", PROCDIR "/jprog.ready", NULL };
	tied = 1;
	pid_t pid = start_logged(argv, "jprog", 0);
	tied = 0;
	wait_ready(PROCDIR "/jprog.ready", pid);
	snapshot_ok("", pid, "jprog.hprof", "a JVM's snapshot on a pipe: nothing on stderr"); /* its socket opened */
	char args[512];
	int st;
	for (int a = 0; a < 2; a++) {
		if (a == 1 && (agent == NULL || access(agent, R_OK) != 0)) {
			fprintf(stderr, "proc: the agent is not built: its progress is not tested\n");
			break;
		}
		unlink(PROCDIR "/jprog.hprof");
		snprintf(args, sizeof args, "snapshot %s%ld " PROCDIR "/jprog.hprof", a ? "" : "--plain ", (long)pid);
		char *out = in_pty(args, &st);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %d: %s", args, st, out);
		assert_progress(out, pid, PROCDIR "/jprog.hprof", 1, a ? "the agent's dump" : "HotSpot's dump");
		free(out);
		unlink(PROCDIR "/jprog.hprof");
		snprintf(args, sizeof args, "-q snapshot %s%ld " PROCDIR "/jprog.hprof", a ? "" : "--plain ", (long)pid);
		out = in_pty(args, &st);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0 && strstr(out, "\033[K") == NULL, "%s: status %d: %s",
			      args, st, out);
		free(out);
	}
	if (agent != NULL && access(agent, R_OK) == 0) {
		/* a link at the agent's temporary name (another user's, in a
		 * shared directory): not followed, the file it names not
		 * written; the snapshot refused in one line */
		char link[256];
		snprintf(link, sizeof link, PROCDIR "/jlink.hprof.tmp-%ld", (long)pid);
		unlink(link);
		unlink(PROCDIR "/jlink.hprof");
		ck_assert_int_eq(system("printf victim >" PROCDIR "/jvictim"), 0);
		ck_assert_int_eq(symlink(PROCDIR "/jvictim", link), 0);
		snprintf(args, sizeof args, "%s -q snapshot %ld " PROCDIR "/jlink.hprof 2>&1", heapwalk(), (long)pid);
		char *out = run(args, &st);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 2 && strstr(out, "there already") != NULL, "status %d: %s",
			      st, out);
		free(out);
		size_t n;
		char *v = file_bytes(PROCDIR "/jvictim", &n);
		ck_assert_msg(v != NULL && n == 6 && memcmp(v, "victim", 6) == 0, "the file the link names was written: %zu bytes",
			      n);
		free(v);
		struct stat ls;
		ck_assert_msg(lstat(link, &ls) == 0 && S_ISLNK(ls.st_mode), "the link is gone or replaced");
		ck_assert_msg(access(PROCDIR "/jlink.hprof", F_OK) != 0, "a dump was written");
		unlink(link);
		unlink(PROCDIR "/jvictim");
	}
	char *cg = freezer();
	if (cg != NULL) {
		unlink(PROCDIR "/jprog.hprof");
		ck_assert_int_eq(system(": >" PROCDIR "/jprog.pty"), 0);
		freeze(cg, pid, 1);
		pid_t hw = fork();
		ck_assert_int_ge(hw, 0);
		if (hw == 0) {
			snprintf(args, sizeof args, "exec script -qec 'env PATH=" NOJCMD " %s snapshot --plain %ld " PROCDIR
				 "/jprog.hprof' /dev/null </dev/null >" PROCDIR "/jprog.pty 2>&1", heapwalk(), (long)pid);
			execl("/bin/sh", "sh", "-c", args, (char *)NULL);
			_exit(127);
		}
		char *head = xasprintf("\r\033[Kheapwalk: PID %ld: no dump file yet, ", (long)pid);
		int lines = 0;
		for (double end = now_seconds() + hang_seconds(60); lines < 3 && now_seconds() < end; usleep(50000)) {
			size_t n;
			char *out = file_bytes(PROCDIR "/jprog.pty", &n);
			lines = 0;
			for (const char *q = strstr(out, head); q != NULL; q = strstr(q + 1, head))
				lines++;
			free(out);
		}
		free(head);
		freeze(cg, pid, 0);
		int hst = 0;
		for (double end = now_seconds() + hang_seconds(120); waitpid(hw, &hst, WNOHANG) == 0;) {
			if (now_seconds() > end) {
				kill(hw, SIGKILL);
				waitpid(hw, NULL, 0);
				ck_abort_msg("heapwalk did not end once the JVM was thawed");
			}
			usleep(50000);
		}
		size_t n;
		char *out = file_bytes(PROCDIR "/jprog.pty", &n);
		ck_assert_msg(lines >= 3 && WIFEXITED(hst) && WEXITSTATUS(hst) == 0,
			      "frozen: %d lines of the wait, status %d: %.3000s", lines, hst, out);
		assert_progress(out, pid, PROCDIR "/jprog.hprof", 4, "a JVM frozen, then thawed");
		free(out);
		unlink(PROCDIR "/jprog.hprof");
	}
	assert_untouched(pid, "a JVM snapshotted on a terminal");
	assert_dumps(pid, "jprog", 0, "a JVM snapshotted on a terminal");
	end(pid);
	if (cg != NULL)
		ck_assert_msg(rmdir(cg) == 0, "%s: %s", cg, strerror(errno));
	free(cg);
}
END_TEST

/* heapwalk ARGS (heapwalk's agent's command on the frozen JVM of
 * test_jvm_frozen) in a child, its standard error and status as
 * hw_stderr's; meanwhile the name of the status file it made in the
 * JVM's /tmp (PROCDIR/frozen.tmp), in name (n bytes). */
static char *hw_agent_named(const char *args, int *rc, char *name, size_t n)
{
	char cmd[2048];
	int st = 0;

	name[0] = '\0';
	unlink(PROCDIR "/frozen.err");
	snprintf(cmd, sizeof cmd, "exec env PATH=" NOJCMD " %s %s 2>" PROCDIR "/frozen.err >/dev/null", heapwalk(),
		 args);
	pid_t hw = fork();
	ck_assert_int_ge(hw, 0);
	if (hw == 0) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	while (waitpid(hw, &st, WNOHANG) == 0) {
		DIR *d = opendir(PROCDIR "/frozen.tmp");
		struct dirent *e;
		ck_assert_ptr_nonnull(d);
		while (name[0] == '\0' && (e = readdir(d)) != NULL)
			if (strncmp(e->d_name, "heapwalk-status-", 16) == 0)
				snprintf(name, n, "%s", e->d_name);
		closedir(d);
		usleep(10000);
	}
	size_t len;
	*rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return file_bytes(PROCDIR "/frozen.err", &len);
}

/* The status file name, given up on and removed, made again in the
 * frozen JVM's /tmp by another user (nobody), writable by all, as one
 * who hopes the agent writes there once the JVM is thawed. */
static void replant(const char *name)
{
	char cmd[1024];
	uid_t uid;
	gid_t gid;

	nobody(&uid, &gid);
	ck_assert_msg(name[0] != '\0', "no status file seen in the frozen JVM's /tmp");
	snprintf(cmd, sizeof cmd, "setpriv --reuid=%ld --regid=%ld --clear-groups sh -c 'umask 0 && : >" PROCDIR
		 "/frozen.tmp/%s'", (long)uid, (long)gid, name);
	ck_assert_int_eq(system(cmd), 0);
}

/* A real JVM that does not answer in time: frozen (after its socket is
 * open, as one stuck in a long safepoint or a full swap would be:
 * running for /proc, state S, listening, verified by heapwalk, but
 * answering nothing), in its own /tmp (a bind mount we can list).
 * heapwalk snapshot --plain gives up after HEAPWALK_SNAPSHOT_WALL in
 * its one line, nothing written beside FILE, nothing left in the JVM's
 * /tmp or working directory, no signal sent; thawed, the JVM goes on
 * (it takes the request given up, whose directory is gone), and is
 * snapshotted again, no thread dump printed. */
START_TEST(test_jvm_frozen)
{
	if (geteuid() != 0 || !have("unshare") || !sleeper() ||
	    system("unshare -m --propagation private true 2>/dev/null") != 0) {
		fprintf(stderr, "proc: not root, no JDK, or no mount namespaces: the frozen JVM test is skipped\n");
		return;
	}
	if (build_in_tmp("proc: the frozen JVM test", "the JVM's own /tmp"))
		return;
	char *cg = freezer();
	if (cg == NULL) {
		fprintf(stderr, "proc: the frozen JVM test is skipped\n");
		return;
	}
	ck_assert_int_eq(system("rm -rf " PROCDIR "/frozen.tmp " PROCDIR "/frozen.hprof* && mkdir -m 1777 " PROCDIR
				"/frozen.tmp"), 0); /* and what a run killed by its timeout left */
	unlink(PROCDIR "/frozen.ready");
	char script[1024];
	snprintf(script, sizeof script, "mount --bind " PROCDIR "/frozen.tmp /tmp && exec %s -cp " PROCDIR " Sleep "
		 PROCDIR "/frozen.ready", getenv("JAVA"));
	char *argv[] = { "unshare", "-m", "--propagation", "private", "sh", "-c", script, NULL };
	tied = 1;
	pid_t pid = start_logged(argv, "frozen", 0);
	tied = 0;
	wait_ready(PROCDIR "/frozen.ready", pid);
	wait_exec(pid, "java");
	snapshot_ok("", pid, "frozen.hprof", "a JVM in its own /tmp"); /* and its socket open */
	freeze(cg, pid, 1);
	char args[512];
	int rc;
	snprintf(args, sizeof args, "snapshot --plain %ld " PROCDIR "/frozen.hprof", (long)pid);
	setenv("HEAPWALK_SNAPSHOT_WALL", "2", 1);
	char *err = hw_stderr(args, 0, &rc);
	unsetenv("HEAPWALK_SNAPSHOT_WALL");
	char *want = xasprintf("heapwalk: PID %ld did not answer dumpheap in 2 s (HEAPWALK_SNAPSHOT_WALL): given up\n",
			       (long)pid);
	ck_assert_msg(rc == 2 && strcmp(err, want) == 0, "status %d, said:\n%s\nnot:\n%s", rc, err, want);
	free(want);
	free(err);
	assert_nothing_written("frozen.hprof");
	assert_nothing_pending(pid, "a frozen JVM given up on");
	ck_assert_int_eq(waitpid(pid, NULL, WNOHANG), 0);
	DIR *d = opendir(PROCDIR "/frozen.tmp");
	struct dirent *e;
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL)
		ck_assert_msg(strncmp(e->d_name, "heapwalk", 8) != 0 && strncmp(e->d_name, ".attach_pid", 11) != 0,
			      "left in the frozen JVM's /tmp: %s", e->d_name);
	closedir(d);
	/* heapwalk's agent, its snapshot and its mark: given up on alike,
	 * and once thawed the JVM loads the agent for each, which finds
	 * its caller gone and does nothing */
	const char *agent = getenv("HEAPWALK_AGENT");
	int agent_too = agent != NULL && access(agent, R_OK) == 0;
	if (!agent_too)
		fprintf(stderr, "proc: the agent is not built: its bounded wait is not tested\n");
	/* the first two's status files made again by nobody once given up:
	 * the thawed JVM's agent must not take them for its callers' */
	char planted[3][256];
	for (int m = 0; m < 3 && agent_too; m++) {
		if (m == 0)
			snprintf(args, sizeof args, "snapshot %ld " PROCDIR "/frozen.hprof", (long)pid);
		else
			snprintf(args, sizeof args, "mark %ld", (long)pid);
		setenv("HEAPWALK_SNAPSHOT_WALL", "2", 1);
		err = hw_agent_named(args, &rc, planted[m], sizeof planted[m]);
		unsetenv("HEAPWALK_SNAPSHOT_WALL");
		want = xasprintf("heapwalk: PID %ld did not finish heapwalk's agent's %s in 2 s (HEAPWALK_SNAPSHOT_WALL): "
				 "given up; %s\n", (long)pid, m ? "mark" : "dump",
				 m ? "no mark made (should the JVM still make it, the agent undoes it when done)"
				   : "nothing written (should the JVM still be writing it, the agent removes its file when "
				     "done)");
		ck_assert_msg(rc == 2 && strcmp(err, want) == 0, "%s: status %d, said:\n%s\nnot:\n%s", args, rc, err,
			      want);
		free(want);
		free(err);
	}
	assert_nothing_written("frozen.hprof");
	d = opendir(PROCDIR "/frozen.tmp");
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL)
		ck_assert_msg(strncmp(e->d_name, "heapwalk", 8) != 0 && strncmp(e->d_name, ".attach_pid", 11) != 0,
			      "left in the frozen JVM's /tmp by the agent's commands: %s", e->d_name);
	closedir(d);
	for (int m = 0; m < 2 && agent_too; m++)
		replant(planted[m]);
	freeze(cg, pid, 0);
	/* the two loads given up on, taken by the thawed JVM in turn: the
	 * agent's line for each (to its standard error, our log) */
	for (double end = now_seconds() + hang_seconds(60); agent_too;) {
		size_t n;
		int said = 0;
		char *log = file_bytes(PROCDIR "/frozen.log", &n);
		for (const char *q = strstr(log, "(its caller gave up waiting): nothing done"); q != NULL;
		     q = strstr(q + 1, "(its caller gave up waiting): nothing done"))
			said++;
		ck_assert_msg(said <= 3, "the agent ran %d times: %s", said, log);
		if (said == 3) {
			free(log);
			break;
		}
		ck_assert_msg(now_seconds() < end, "the thawed JVM's agent did not find its callers gone: %.3000s", log);
		free(log);
		usleep(50000);
	}
	assert_nothing_written("frozen.hprof");
	for (int m = 0; m < 2 && agent_too; m++) { /* nobody's files: left as they were */
		char path[512];
		struct stat st;
		uid_t uid;
		gid_t gid;
		nobody(&uid, &gid);
		snprintf(path, sizeof path, PROCDIR "/frozen.tmp/%s", planted[m]);
		ck_assert_msg(stat(path, &st) == 0 && st.st_size == 0 && st.st_uid == uid,
			      "%s, planted by nobody: written to by the agent (%lld bytes)", path, (long long)st.st_size);
		unlink(path);
	}
	if (agent_too)
		mark_ok(pid, 1); /* the marks given up on were not made */
	snapshot_ok("", pid, "frozen.hprof", "a JVM thawed");
	assert_untouched(pid, "a JVM frozen, given up on, thawed");
	assert_dumps(pid, "frozen", 0, "a JVM frozen, given up on, thawed");
	d = opendir(PROCDIR "/frozen.tmp");
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL)
		ck_assert_msg(strncmp(e->d_name, "heapwalk", 8) != 0, "left in the thawed JVM's /tmp: %s", e->d_name);
	closedir(d);
	end(pid);
	ck_assert_msg(rmdir(cg) == 0, "%s: %s", cg, strerror(errno));
	free(cg);
}
END_TEST

/* The status file's name if the process pid holds it open (a link in
 * /proc/PID/fd to /tmp/heapwalk-status-*: its agent is running), in
 * name; else 0. */
static int holds_status(pid_t pid, char *name, size_t n)
{
	char dir[64], path[400], to[400];
	struct dirent *e;
	int found = 0;

	snprintf(dir, sizeof dir, "/proc/%ld/fd", (long)pid);
	DIR *d = opendir(dir);
	while (d != NULL && !found && (e = readdir(d)) != NULL) {
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		ssize_t len = readlink(path, to, sizeof to - 1);
		if (len > 0) {
			to[len] = '\0';
			if (strncmp(to, "/tmp/heapwalk-status-", 21) == 0) {
				snprintf(name, n, "%s", to + 5);
				found = 1;
			}
		}
	}
	if (d != NULL)
		closedir(d);
	return found;
}

/* heapwalk's agent caught in its run: a JVM of a million objects (its
 * dump and mark take a while), in its own /tmp, frozen as soon as it
 * holds the status file open (the agent has begun; for a dump, once
 * FILE.tmp-PID is there too), then given up on
 * after HEAPWALK_SNAPSHOT_WALL: while it is still frozen, no FILE, no
 * FILE.tmp-PID and no status file are left; thawed, the agent ends its
 * run finding its caller gone: its dump removed, its mark undone (its
 * lines in the JVM's log), no FILE ever, and the next mark is mark 1. */
START_TEST(test_jvm_caught)
{
	const char *agent = getenv("HEAPWALK_AGENT");
	if (geteuid() != 0 || !have("unshare") || !sleeper() || agent == NULL || access(agent, R_OK) != 0 ||
	    system("unshare -m --propagation private true 2>/dev/null") != 0) {
		fprintf(stderr, "proc: not root, no JDK, no agent or no mount namespaces: the caught agent test is skipped\n");
		return;
	}
	if (build_in_tmp("proc: the caught agent test", "the JVM's own /tmp"))
		return;
	char *cg = freezer();
	if (cg == NULL) {
		fprintf(stderr, "proc: the caught agent test is skipped\n");
		return;
	}
	FILE *f = fopen(PROCDIR "/Hold.java", "w");
	ck_assert_ptr_nonnull(f);
	fputs("public class Hold { static Object[] held = new Object[1000000];\n"
	      "  public static void main(String[] a) throws Exception {\n"
	      "    for (int i = 0; i < held.length; i++) held[i] = new int[] { i };\n"
	      "    new java.io.FileOutputStream(a[0]).close(); Thread.sleep(" LIFE_S "000); } }\n", f);
	ck_assert_int_eq(fclose(f), 0);
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "cd " PROCDIR " && %s Hold.java", getenv("JAVAC"));
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(system("rm -rf " PROCDIR "/caught.tmp " PROCDIR "/caught.hprof* && mkdir -m 1777 " PROCDIR
				"/caught.tmp"), 0);
	unlink(PROCDIR "/caught.ready");
	char script[1024];
	snprintf(script, sizeof script, "mount --bind " PROCDIR "/caught.tmp /tmp && exec %s -cp " PROCDIR " Hold "
		 PROCDIR "/caught.ready", getenv("JAVA"));
	char *argv[] = { "unshare", "-m", "--propagation", "private", "sh", "-c", script, NULL };
	tied = 1;
	pid_t pid = start_logged(argv, "caught", 0);
	tied = 0;
	wait_ready(PROCDIR "/caught.ready", pid);
	wait_exec(pid, "java");
	for (int m = 0; m < 2; m++) {
		char args[512], name[400] = "";
		if (m == 0)
			snprintf(args, sizeof args, "exec env PATH=" NOJCMD " HEAPWALK_SNAPSHOT_WALL=5 %s snapshot %ld " PROCDIR
				 "/caught.hprof 2>" PROCDIR "/caught.err", heapwalk(), (long)pid);
		else
			snprintf(args, sizeof args, "exec env PATH=" NOJCMD " HEAPWALK_SNAPSHOT_WALL=5 %s mark %ld 2>" PROCDIR
				 "/caught.err", heapwalk(), (long)pid);
		pid_t hw = fork();
		ck_assert_int_ge(hw, 0);
		if (hw == 0) {
			execl("/bin/sh", "sh", "-c", args, (char *)NULL);
			_exit(127);
		}
		int st = 0, caught = 0;
		char part[512]; /* the dump's, frozen once it is there */
		snprintf(part, sizeof part, PROCDIR "/caught.hprof.tmp-%ld", (long)pid);
		while (waitpid(hw, &st, WNOHANG) == 0 &&
		       !(caught = holds_status(pid, name, sizeof name) && (m == 1 || access(part, F_OK) == 0)))
			usleep(1000);
		if (caught) {
			freeze(cg, pid, 1);
			ck_assert_int_eq(waitpid(hw, &st, 0), hw);
		}
		size_t n;
		char *err = file_bytes(PROCDIR "/caught.err", &n);
		ck_assert_msg(caught && WIFEXITED(st) && WEXITSTATUS(st) == 2 && strstr(err, "given up; ") != NULL,
			      "%s: not caught in its run (%d), status %d: %s", args, caught, st, err);
		free(err);
		/* while frozen: nothing of the run left (the dump's file was
		 * there when it was frozen) */
		assert_nothing_written("caught.hprof");
		char path[512];
		snprintf(path, sizeof path, PROCDIR "/caught.tmp/%s", name);
		ck_assert_msg(access(path, F_OK) != 0, "%s left", path);
		freeze(cg, pid, 0);
		const char *said = m ? "(its status file is gone): the mark undone" : "(its status file is gone): the dump removed";
		for (double end = now_seconds() + hang_seconds(120);;) {
			char *log = file_bytes(PROCDIR "/caught.log", &n);
			int there = strstr(log, said) != NULL;
			ck_assert_msg(there || now_seconds() < end, "the thawed agent did not say '%s': %.3000s", said, log);
			free(log);
			if (there)
				break;
			usleep(50000);
		}
		assert_nothing_written("caught.hprof");
	}
	mark_ok(pid, 1); /* the mark given up on was undone */
	DIR *d = opendir(PROCDIR "/caught.tmp");
	struct dirent *e;
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL)
		ck_assert_msg(strncmp(e->d_name, "heapwalk", 8) != 0, "left in the JVM's /tmp: %s", e->d_name);
	closedir(d);
	end(pid);
	ck_assert_msg(rmdir(cg) == 0, "%s: %s", cg, strerror(errno));
	free(cg);
}
END_TEST

#define DNOUT TEST_BUILDDIR "/dumps/dotnet/out"

/* The .NET workload as a service, its standard input a pipe whose end
 * we hold (it runs until that closes), its output in log, with env
 * ("NAME=VALUE", or NULL) set; its pid once it has said it. */
static pid_t dotnet_start_argv(char *const argv[], const char *log, const char *env, int *hold);

static pid_t dotnet_start_exe(const char *exe, const char *log, const char *env, int *hold)
{
	char *argv[] = { (char *)exe, NULL };

	return dotnet_start_argv(argv, log, env, hold);
}

/* dotnet_start_exe, the workload run by argv (argv[0] found in PATH:
 * a program that ends by exec'ing it, its pid unchanged). */
static pid_t dotnet_start_argv(char *const argv[], const char *log, const char *env, int *hold)
{
	int in[2];
	pid_t pid;

	ck_assert_int_eq(pipe(in), 0);
	unlink(log);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		as_a_service();
		int out = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (out < 0 || dup2(in[0], 0) < 0 || dup2(out, 1) < 0)
			_exit(126);
		close(in[1]);
		if (env != NULL && *env == '+') {
			/* "+A=1\nA=2": each line added to the environment as
			 * it is, one of a name already there too */
			extern char **environ;
			size_t n = 0, k = 0;
			while (environ[n] != NULL)
				n++;
			char **envp = xcalloc(n + 64, sizeof *envp);
			for (char *e = xstrdup(env + 1), *line; (line = strsep(&e, "\n")) != NULL && k < 63;)
				envp[k++] = line;
			for (size_t i = 0; i < n; i++)
				envp[k++] = environ[i];
			environ = envp;
		} else if (env != NULL)
			putenv((char *)env);
		if (argv[1] == NULL)
			execl(argv[0], "Workload", (char *)NULL);
		else
			execvp(argv[0], argv);
		_exit(127);
	}
	close(in[0]);
	*hold = in[1];
	for (double end = now_seconds() + hang_seconds(60); now_seconds() < end;) {
		size_t n;
		int st = 0;
		char *said = access(log, R_OK) == 0 ? file_bytes(log, &n) : xstrdup(""); /* the child opens it */
		const char *p = strstr(said, "\"pid\":");
		long got = p != NULL ? strtol(p + 6, NULL, 10) : 0;
		free(said);
		if (got > 0) {
			ck_assert_int_eq(got, pid);
			return pid;
		}
		ck_assert_msg(waitpid(pid, &st, WNOHANG) == 0, "the workload ended (status %d): see %s", st, log);
		usleep(100000);
	}
	ck_abort_msg("the workload said nothing in 60 s: %s", log);
	return -1;
}

static pid_t dotnet_start(const char *log, const char *env, int *hold)
{
	return dotnet_start_exe(DNOUT "/Workload", log, env, hold);
}

/* The workload ended as it ends itself, its standard input closed (it
 * then removes its diagnostics socket); killed if it has not in 30 s. */
static void dotnet_end(pid_t pid, int hold)
{
	close(hold);
	for (int i = 0; i < 300; i++) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return;
		usleep(100000);
	}
	end(pid);
}

/* The runtime's socket's key: its start time, field 22 of its stat. */
static unsigned long long start_key(pid_t pid)
{
	char path[64];
	unsigned long long key = 0;
	size_t n;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	char *st = file_bytes(path, &n);
	char *paren = strrchr(st, ')');
	ck_assert_ptr_nonnull(paren);
	/* fields 3 to 21, then 22 */
	ck_assert_int_eq(sscanf(paren + 2, "%*c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
				"%*s %llu", &key), 1);
	free(st);
	return key;
}

/* A listening socket at path (what another local user can plant), not
 * blocking; chowned to nobody with foreign. */
static int plant(const char *path, int foreign)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	uid_t uid;
	gid_t gid;

	ck_assert_int_ge(s, 0);
	ck_assert_uint_lt(strlen(path), sizeof a.sun_path);
	strcpy(a.sun_path, path);
	unlink(path);
	ck_assert_int_eq(bind(s, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(listen(s, 8), 0);
	ck_assert_int_eq(fcntl(s, F_SETFL, O_NONBLOCK), 0);
	nobody(&uid, &gid);
	if (foreign)
		ck_assert_int_eq(chown(path, uid, gid), 0);
	return s;
}

/* Nobody connected to the planted socket s; or, with connected, one
 * caller that sent nothing. */
static void assert_unused(int s, int connected, const char *what)
{
	int c = accept(s, NULL, NULL);

	if (!connected) {
		ck_assert_msg(c < 0 && (errno == EAGAIN || errno == EWOULDBLOCK), "%s: heapwalk connected", what);
		return;
	}
	ck_assert_msg(c >= 0, "%s: nobody connected", what);
	char buf[64];
	ssize_t r = read(c, buf, sizeof buf); /* heapwalk has exited: its end is closed */
	ck_assert_msg(r == 0, "%s: heapwalk sent %zd bytes to the planted socket", what, r);
	close(c);
}

/* The classes of a snapshot of the workload: what it made. */
static void assert_workload(const char *dump)
{
	char args[512];
	int st;

	snprintf(args, sizeof args, "%s -q --no-cache -f csv classes -n 100000 %s", heapwalk(), dump);
	char *csv = run(args, &st);
	ck_assert_msg(st == 0 && strstr(csv, "\nWorkload.Session,300,") && strstr(csv, "\nWorkload.CacheEntry,1000,"),
		      "%s", csv);
	free(csv);
}

/* A listening socket beside the runtime's own with a larger key (and
 * newer): heapwalk uses the runtime's, which is named by the process's
 * start time in the process's TMPDIR. */
START_TEST(test_dotnet_planted_key)
{
	int hold, rc;
	struct stat sb;

	if (!dotnet_workload())
		return;
	ck_assert_int_eq(system("rm -rf " PROCDIR "/dn && mkdir -p " PROCDIR "/dn"), 0);
	pid_t pid = dotnet_start(PROCDIR "/key.log", "TMPDIR=" PROCDIR "/dn", &hold);
	unsigned long long key = start_key(pid);
	char real[256], fake[256];
	snprintf(real, sizeof real, PROCDIR "/dn/dotnet-diagnostic-%ld-%llu-socket", (long)pid, key);
	ck_assert_msg(lstat(real, &sb) == 0 && S_ISSOCK(sb.st_mode), "the runtime made no %s", real);
	snprintf(fake, sizeof fake, PROCDIR "/dn/dotnet-diagnostic-%ld-%llu-socket", (long)pid, key + 1000000);
	usleep(20000); /* newer than the runtime's, to the file system's clock */
	int s = plant(fake, 0);
	unlink(PROCDIR "/key.nettrace");
	char args[512];
	snprintf(args, sizeof args, "snapshot %ld " PROCDIR "/key.nettrace", (long)pid);
	char *err = hw_stderr(args, 0, &rc);
	ck_assert_msg(rc == 0 && *err == '\0', "status %d: %s", rc, err);
	free(err);
	assert_unused(s, 0, "a larger key");
	assert_workload(PROCDIR "/key.nettrace");
	close(s);
	unlink(fake);
	dotnet_end(pid, hold);
}
END_TEST

/* TMPDIR twice in the environment the runtime started with: the
 * runtime binds its socket in the first one's directory, /tmp when it
 * is empty (asserted here, of the runtime itself), and heapwalk looks
 * for it there. */
START_TEST(test_dotnet_tmpdir_twice)
{
	static const struct { const char *env, *dir; } cases[] = {
		{ "+TMPDIR=" PROCDIR "/dt1\nTMPDIR=" PROCDIR "/dt2", PROCDIR "/dt1" },
		{ "+TMPDIR=\nTMPDIR=" PROCDIR "/dt2", "/tmp" },
	};
	int hold, rc;
	struct stat sb;

	if (!dotnet_workload())
		return;
	ck_assert_int_eq(system("rm -rf " PROCDIR "/dt1 " PROCDIR "/dt2 && mkdir -p " PROCDIR "/dt1 " PROCDIR "/dt2"), 0);
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		pid_t pid = dotnet_start(PROCDIR "/twice.log", cases[i].env, &hold);
		char used[256], second[256], args[512];
		unsigned long long key = start_key(pid);
		snprintf(used, sizeof used, "%s/dotnet-diagnostic-%ld-%llu-socket", cases[i].dir, (long)pid, key);
		snprintf(second, sizeof second, PROCDIR "/dt2/dotnet-diagnostic-%ld-%llu-socket", (long)pid, key);
		ck_assert_msg(lstat(used, &sb) == 0 && S_ISSOCK(sb.st_mode), "the runtime made no %s", used);
		ck_assert_msg(lstat(second, &sb) < 0, "the runtime made %s too", second);
		unlink(PROCDIR "/twice.nettrace");
		snprintf(args, sizeof args, "snapshot %ld " PROCDIR "/twice.nettrace", (long)pid);
		char *err = hw_stderr(args, 0, &rc);
		ck_assert_msg(rc == 0 && *err == '\0', "%s: status %d: %s", cases[i].dir, rc, err);
		free(err);
		assert_workload(PROCDIR "/twice.nettrace");
		dotnet_end(pid, hold);
	}
}
END_TEST

/* A runtime without its socket (DOTNET_EnableDiagnostics=0), and in its
 * place, named as the runtime names it: a socket of another user, a
 * symbolic link to a socket, a socket served by another process. Each is
 * refused in one line, and heapwalk sends nothing to it; then no socket
 * at all. */
START_TEST(test_dotnet_planted_name)
{
	int hold, rc;

	if (!dotnet_workload())
		return;
	ck_assert_int_eq(system("rm -rf " PROCDIR "/dn2 && mkdir -p " PROCDIR "/dn2"), 0);
	pid_t pid = dotnet_start(PROCDIR "/name.log", "DOTNET_EnableDiagnostics=0", &hold);
	/* its TMPDIR is ours: none here, so /tmp */
	char name[256], args[512], *want, *err;
	snprintf(name, sizeof name, "/tmp/dotnet-diagnostic-%ld-%llu-socket", (long)pid, start_key(pid));
	snprintf(args, sizeof args, "snapshot %ld " PROCDIR "/name.nettrace", (long)pid);
	unlink(PROCDIR "/name.nettrace");

	int s = plant(name, 1);
	err = hw_stderr(args, 0, &rc);
	assert_unused(s, 0, "another owner");
	want = xasprintf("heapwalk: PID %ld: %s is owned by uid %ld, not by the process's user (uid 0): not used\n",
			 (long)pid, name, (long)getpwnam("nobody")->pw_uid);
	ck_assert_msg(rc == 2 && strcmp(err, want) == 0, "another owner: status %d: %s", rc, err);
	free(want);
	free(err);
	close(s);
	unlink(name);

	s = plant(PROCDIR "/dn2/elsewhere", 0);
	ck_assert_int_eq(symlink(PROCDIR "/dn2/elsewhere", name), 0);
	err = hw_stderr(args, 0, &rc);
	assert_unused(s, 0, "a link");
	want = xasprintf("heapwalk: PID %ld: %s is not a socket: not used\n", (long)pid, name);
	ck_assert_msg(rc == 2 && strcmp(err, want) == 0, "a link: status %d: %s", rc, err);
	free(want);
	free(err);
	close(s);
	unlink(name);

	s = plant(name, 0);
	err = hw_stderr(args, 0, &rc);
	assert_unused(s, 1, "another server");
	want = xasprintf("heapwalk: PID %ld: %s is served by process %ld, not by the runtime: not used\n", (long)pid,
			 name, (long)getpid());
	ck_assert_msg(rc == 2 && strcmp(err, want) == 0, "another server: status %d: %s", rc, err);
	free(want);
	free(err);
	close(s);
	unlink(name);

	err = hw_stderr(args, 0, &rc);
	want = xasprintf("heapwalk: PID %ld: no diagnostics socket %s (the runtime's diagnostics are off: "
			 "DOTNET_EnableDiagnostics=0?)\n", (long)pid, name);
	ck_assert_msg(rc == 2 && strcmp(err, want) == 0, "no socket: status %d: %s", rc, err);
	free(want);
	free(err);

	ck_assert_int_ne(access(PROCDIR "/name.nettrace", F_OK), 0);
	assert_untouched(pid, "the .NET workload");
	dotnet_end(pid, hold);
}
END_TEST

/* The bounds of a snapshot, on a real runtime: a bad one refused before
 * anything is asked; one passed (the whole time) ends the snapshot in
 * one line, with nothing written; the runtime takes the next one. */
START_TEST(test_dotnet_bounds)
{
	int hold, rc;

	if (!dotnet_workload())
		return;
	procdir();
	pid_t pid = dotnet_start(PROCDIR "/bounds.log", NULL, &hold);
	char args[512], *err;
	snprintf(args, sizeof args, "snapshot %ld " PROCDIR "/bounds.nettrace", (long)pid);
	unlink(PROCDIR "/bounds.nettrace");

	setenv("HEAPWALK_SNAPSHOT_IDLE", "soon", 1);
	err = hw_stderr(args, 0, &rc);
	unsetenv("HEAPWALK_SNAPSHOT_IDLE");
	ck_assert_msg(rc == 2 && strcmp(err, "heapwalk: HEAPWALK_SNAPSHOT_IDLE=soon: not a number of seconds above 0\n") ==
		      0, "status %d: %s", rc, err);
	free(err);
	assert_nothing_written("bounds.nettrace");

	setenv("HEAPWALK_SNAPSHOT_WALL", "0.001", 1);
	err = hw_stderr(args, 0, &rc);
	unsetenv("HEAPWALK_SNAPSHOT_WALL");
	char *head = xasprintf("heapwalk: PID %ld: " PROCDIR "/bounds.nettrace: not done after 0.001 s, at byte ",
			       (long)pid);
	const char *tail = " (HEAPWALK_SNAPSHOT_WALL); nothing written\n";
	ck_assert_msg(rc == 2 && strncmp(err, head, strlen(head)) == 0 && strlen(err) > strlen(tail) &&
		      strcmp(err + strlen(err) - strlen(tail), tail) == 0 && strchr(err, '\n') == strrchr(err, '\n'),
		      "status %d: %s", rc, err);
	free(head);
	free(err);
	assert_nothing_written("bounds.nettrace");

	err = hw_stderr(args, 0, &rc);
	ck_assert_msg(rc == 0 && *err == '\0', "after a snapshot cut short: status %d: %s", rc, err);
	free(err);
	assert_workload(PROCDIR "/bounds.nettrace");
	dotnet_end(pid, hold);
}
END_TEST

#define SFDIR PROCDIR "/singlefile"

/* The workload published as one self-contained file, the runtime linked
 * into its executable (no libcoreclr.so to map): SFDIR/out/Workload; 0
 * (said) when it cannot be published (the runtime's pack comes from
 * NuGet). */
static int single_file_workload(void)
{
	if (!dotnet_workload())
		return 0;
	procdir();
	if (system("test " SFDIR "/out/Workload -nt " TEST_SRCDIR "/dotnet/Program.cs") == 0)
		return 1;
	if (system("rm -rf " SFDIR " && mkdir -p " SFDIR "/src && cp " TEST_SRCDIR "/dotnet/Program.cs " TEST_SRCDIR
		   "/dotnet/Workload.csproj " SFDIR "/src/ && cd " SFDIR "/src && DOTNET_CLI_TELEMETRY_OPTOUT=1 "
		   "DOTNET_NOLOGO=1 dotnet publish -c Release -r linux-x64 --self-contained -p:PublishSingleFile=true "
		   "-o ../out > ../publish.log 2>&1") != 0) {
		fprintf(stderr, "proc: the .NET workload could not be published as a self-contained single file (see "
				SFDIR "/publish.log; its runtime pack comes from NuGet): skipped\n");
		return 0;
	}
	return 1;
}

/* python3 listening on a socket named as the .NET runtime names its
 * diagnostics socket in dir, for process of (its own with 0): the name
 * without the process behind it. Its pid once listening. */
static pid_t plant_diag(const char *dir, pid_t of, const char *ready)
{
	char who[32];

	snprintf(who, sizeof who, "%ld", (long)of);
	char *argv[] = { "python3", "-c",
			 "import os, socket, sys, time\n"
			 "pid = int(sys.argv[2]) or os.getpid()\n"
			 "st = open('/proc/%d/stat' % pid).read()\n"
			 "start = st[st.rindex(')') + 2:].split()[19]\n"
			 "s = socket.socket(socket.AF_UNIX)\n"
			 "s.bind('%s/dotnet-diagnostic-%d-%s-socket' % (sys.argv[1], pid, start))\n"
			 "s.listen(1)\n"
			 "open(sys.argv[3], 'w').close()\n"
			 "time.sleep(" LIFE_S ")\n",
			 (char *)dir, who, (char *)ready, NULL };
	unlink(ready);
	pid_t pid = start(argv, 0);
	wait_ready(ready, pid);
	return pid;
}

/* A self-contained single-file .NET app maps no libcoreclr.so (the
 * runtime is linked into its executable): told by its executable's
 * bundle marker and by the diagnostics socket it listens on
 * itself (sock_diag), and snapshotted, the workload's own counts in it.
 * Refused in one line, untouched: the app with its diagnostics off (the
 * marker, no socket), the same with a socket of its name planted by
 * another process (the name, not its socket), the same holding a
 * listening socket of its name that python3 bound in another directory
 * and exec'd it with (inherited: its, but not at the path heapwalk
 * connects to), the app with its diagnostics on in a network namespace
 * of its own (sock_diag does not show its socket), and python3
 * listening on the name of its own pid and start (the socket, no
 * bundle). */
START_TEST(test_dotnet_single_file)
{
	int hold;

	if (!single_file_workload() || !have("python3"))
		return;
	pid_t pid = dotnet_start_exe(SFDIR "/out/Workload", PROCDIR "/sf.log", NULL, &hold);
	char path[64];
	size_t n;
	snprintf(path, sizeof path, "/proc/%ld/maps", (long)pid);
	char *maps = file_bytes(path, &n);
	ck_assert_msg(strstr(maps, "libcoreclr.so") == NULL, "the single-file app maps libcoreclr.so");
	free(maps);
	char args[512];
	int rc;
	unlink(PROCDIR "/sf.nettrace");
	snprintf(args, sizeof args, "snapshot %ld " PROCDIR "/sf.nettrace", (long)pid);
	char *err = hw_stderr(args, 0, &rc);
	ck_assert_msg(rc == 0 && *err == '\0', "%s: status %d: %s", args, rc, err);
	free(err);
	assert_workload(PROCDIR "/sf.nettrace");
	assert_untouched(pid, "the single-file .NET workload");
	dotnet_end(pid, hold);

	ck_assert_int_eq(system("rm -rf " PROCDIR "/sfdn && mkdir -p " PROCDIR "/sfdn"), 0);
	pid = dotnet_start_exe(SFDIR "/out/Workload", PROCDIR "/sf.log",
			       "DOTNET_EnableDiagnostics=0", &hold);
	const char *tmpdir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *bound = xasprintf("%s%sdotnet-diagnostic-%ld-%llu-socket", tmpdir,
				tmpdir[strlen(tmpdir) - 1] == '/' ? "" : "/", (long)pid, start_key(pid));
	char *want = xasprintf("PID %ld's executable is a .NET single-file bundle, but it holds no listening socket "
			       "bound to %s (its diagnostics off: DOTNET_EnableDiagnostics=0?): not known for a .NET "
			       "process", (long)pid, bound);
	refused(pid, pid, want, 0, "the single-file .NET workload, its diagnostics off");
	pid_t py = plant_diag("/tmp", pid, PROCDIR "/sfpy.ready");
	refused(pid, pid, want, 0, "the single-file .NET workload, its diagnostics off, a socket of its name planted");
	end(py);
	dotnet_end(pid, hold);
	free(want);
	free(bound);

	/* python3 binds and listens on the name of its own pid and start in
	 * another directory, then becomes the app (exec: the same pid and
	 * start), which inherits the socket */
	char *inherit[] = { "python3", "-c",
			    "import os, socket, sys\n"
			    "st = open('/proc/self/stat').read()\n"
			    "start = st[st.rindex(')') + 2:].split()[19]\n"
			    "s = socket.socket(socket.AF_UNIX)\n"
			    "s.bind('%s/dotnet-diagnostic-%d-%s-socket' % (sys.argv[1], os.getpid(), start))\n"
			    "s.listen(1)\n"
			    "s.set_inheritable(True)\n"
			    "os.execv(sys.argv[2], ['Workload'])\n",
			    PROCDIR "/sfdn", SFDIR "/out/Workload", NULL };
	pid = dotnet_start_argv(inherit, PROCDIR "/sf.log", "DOTNET_EnableDiagnostics=0", &hold);
	bound = xasprintf("%s%sdotnet-diagnostic-%ld-%llu-socket", tmpdir, tmpdir[strlen(tmpdir) - 1] == '/' ? "" : "/",
			  (long)pid, start_key(pid));
	char path2[256];
	snprintf(path2, sizeof path2, PROCDIR "/sfdn/dotnet-diagnostic-%ld-%llu-socket", (long)pid, start_key(pid));
	struct stat sst;
	ck_assert_msg(lstat(path2, &sst) == 0 && S_ISSOCK(sst.st_mode), "python3 bound no %s", path2);
	want = xasprintf("PID %ld's executable is a .NET single-file bundle, but the socket it holds by its "
			 "diagnostics socket's name is bound elsewhere (inherited or received: not its runtime's), "
			 "not to %s: not known for a .NET process", (long)pid, bound);
	refused(pid, pid, want, 0, "the single-file .NET workload, its diagnostics off, an inherited socket of its name");
	dotnet_end(pid, hold);
	free(want);
	free(bound);

	/* its diagnostics on, in a network namespace of its own */
	if (geteuid() == 0 && have("unshare") && system("unshare -n true 2>/dev/null") == 0) {
		char *netns[] = { "unshare", "-n", SFDIR "/out/Workload", NULL };
		pid = dotnet_start_argv(netns, PROCDIR "/sf.log", NULL, &hold);
		want = xasprintf("PID %ld's executable is a .NET single-file bundle, but it is in another network "
				 "namespace, whose sockets sock_diag does not show: its diagnostics socket cannot be told "
				 "for its own (run heapwalk in that namespace)", (long)pid);
		refused(pid, pid, want, 0, "the single-file .NET workload in a network namespace of its own");
		dotnet_end(pid, hold);
		free(want);
	} else {
		fprintf(stderr, "proc: not root or no unshare -n: the single-file app in its own network namespace "
				"is skipped\n");
	}

	py = plant_diag(PROCDIR "/sfdn", 0, PROCDIR "/sfpy.ready");
	refused_not_runtime(py, "python3 listening on the .NET diagnostics socket's name for it");
	end(py);
}
END_TEST

/* An executable made here (x86-64 ELF, a loop of pause(2)) whose five
 * writable loaded segments are 64 MiB each (a sparse file), the .NET
 * host's bundle marker (and a header it points to) at the start of the
 * fifth: past SF_READ_MAX (256 MiB read in all) before it. Its process
 * is refused in one line that says so, untouched. */
START_TEST(test_single_file_read_cap)
{
	static const uint8_t sig[32] = {
		0x8b, 0x12, 0x02, 0xb9, 0x6a, 0x61, 0x20, 0x38, 0x72, 0x7b, 0x93, 0x02, 0x14, 0xd7, 0xa0, 0x32,
		0x13, 0xf5, 0xb9, 0xe6, 0xef, 0xae, 0x33, 0x18, 0xee, 0x3b, 0x2d, 0xce, 0x24, 0xb3, 0x6a, 0xae,
	};
#if !defined(__x86_64__)
	fprintf(stderr, "proc: not x86-64: the single-file read cap is not tested\n");
	return;
#endif
	procdir();
	const char *exe = PROCDIR "/bigdata";
	const uint64_t seg = 64u << 20;
	unlink(exe);
	int fd = open(exe, O_WRONLY | O_CREAT | O_EXCL, 0755);
	ck_assert_int_ge(fd, 0);
	Elf64_Ehdr eh = { .e_type = ET_EXEC, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
			  .e_entry = 0x400200, .e_phoff = sizeof eh, .e_ehsize = sizeof eh,
			  .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 6 };
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	Elf64_Phdr ph[6] = { { .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0, .p_vaddr = 0x400000,
			       .p_paddr = 0x400000, .p_filesz = 0x1000, .p_memsz = 0x1000, .p_align = 0x1000 } };
	for (int i = 1; i < 6; i++)
		ph[i] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_W, .p_offset = 0x1000 + (i - 1) * seg,
				      .p_vaddr = 0x10000000 + (uint64_t)(i - 1) * 0x8000000,
				      .p_paddr = 0x10000000 + (uint64_t)(i - 1) * 0x8000000, .p_filesz = seg,
				      .p_memsz = seg, .p_align = 0x1000 };
	static const uint8_t code[] = { 0xb8, 0x22, 0, 0, 0, 0x0f, 0x05, 0xeb, 0xf7 }; /* pause(); again */
	static const uint8_t header[12] = { 6, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0 }; /* version 6.0, one file */
	uint8_t marker[40] = { 0x00, 0x01 }; /* the header's offset, 0x100 */
	memcpy(marker + 8, sig, sizeof sig);
	ck_assert_int_eq(pwrite(fd, &eh, sizeof eh, 0), sizeof eh);
	ck_assert_int_eq(pwrite(fd, ph, sizeof ph, sizeof eh), sizeof ph);
	ck_assert_int_eq(pwrite(fd, header, sizeof header, 0x100), sizeof header);
	ck_assert_int_eq(pwrite(fd, code, sizeof code, 0x200), sizeof code);
	ck_assert_int_eq(pwrite(fd, marker, sizeof marker, (off_t)(0x1000 + 4 * seg + 0x40)), sizeof marker);
	ck_assert_int_eq(ftruncate(fd, (off_t)(0x1000 + 5 * seg)), 0);
	close(fd);
	char *argv[] = { (char *)exe, NULL };
	pid_t pid = start(argv, 0);
	char path[64], link[4096];
	snprintf(path, sizeof path, "/proc/%ld/exe", (long)pid);
	for (double end = now_seconds() + hang_seconds(60);;) { /* exec'd */
		ssize_t n = readlink(path, link, sizeof link - 1);
		if (n > 0 && (size_t)n == strlen(exe) && memcmp(link, exe, (size_t)n) == 0)
			break;
		ck_assert_msg(now_seconds() < end, "%s did not run", exe);
		usleep(20000);
	}
	wait_state(pid, 'S');
	char *want = xasprintf("PID %ld is not a JVM, .NET or Node process (it is %s): its executable's writable data "
			       "passes 256 MiB, not read further for a .NET single-file bundle's marker", (long)pid, exe);
	refused(pid, pid, want, 0, "an executable of 320 MiB of writable data, a bundle marker at 256 MiB");
	free(want);
	end(pid);
	unlink(exe);
}
END_TEST

/* A .NET process in a mount and PID namespace of its own, its /tmp a
 * private tmpfs (a container, without an engine): its diagnostics
 * socket is in its own /tmp, named by its pid there (1), so neither the
 * host's /tmp nor the host pid finds it. heapwalk, outside, reaches it
 * through /proc/PID/root and NSpid; snapshot and mark write their files
 * where they were asked, outside; the mark's replay is exact. */
START_TEST(test_dotnet_in_namespaces)
{
	int in[2], st;

	if (!dotnet_workload())
		return;
	if (geteuid() != 0 || !have("unshare") ||
	    system("unshare -m -p -f --mount-proc --propagation private true 2>/dev/null") != 0) {
		fprintf(stderr, "proc: not root or no mount and PID namespaces: the .NET process in its own "
				"namespaces is skipped\n");
		return;
	}
	if (build_in_tmp("proc: the .NET process in its own namespaces", "its own /tmp"))
		return;
	procdir();
	const char *log = PROCDIR "/ns.log";
	unlink(log);
	ck_assert_int_eq(pipe(in), 0);
	pid_t ns = fork();
	ck_assert_int_ge(ns, 0);
	if (ns == 0) {
		as_a_service();
		int out = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (out < 0 || dup2(in[0], 0) < 0 || dup2(out, 1) < 0)
			_exit(126);
		close(in[1]);
		execlp("unshare", "unshare", "-m", "-p", "-f", "--kill-child", "--mount-proc", "--propagation", "private", "sh", "-c",
		       "mount -t tmpfs tmpfs /tmp && exec " DNOUT "/Workload", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	/* the workload says its pid in its namespace: 1 */
	double until = now_seconds() + hang_seconds(60);
	for (;;) {
		size_t n;
		char *said = access(log, R_OK) == 0 ? file_bytes(log, &n) : xstrdup("");
		int ready = strstr(said, "\"pid\":1,") != NULL;
		free(said);
		if (ready)
			break;
		ck_assert_msg(waitpid(ns, &st, WNOHANG) == 0, "unshare ended (status %d): see %s", st, log);
		ck_assert_msg(now_seconds() < until, "the workload said nothing in 60 s: %s", log);
		usleep(100000);
	}
	/* its pid here: unshare's one child */
	char path[128];
	size_t n;
	snprintf(path, sizeof path, "/proc/%ld/task/%ld/children", (long)ns, (long)ns);
	char *kids = file_bytes(path, &n);
	long pid = strtol(kids, NULL, 10);
	free(kids);
	ck_assert_msg(pid > 1, "unshare's child: %s", path);
	snprintf(path, sizeof path, "/proc/%ld/root/tmp/dotnet-diagnostic-1-%llu-socket", pid, start_key((pid_t)pid));
	ck_assert_msg(access(path, F_OK) == 0, "the runtime's socket is not %s", path);
	snprintf(path, sizeof path, "/tmp/dotnet-diagnostic-%ld-%llu-socket", pid, start_key((pid_t)pid));
	ck_assert_msg(access(path, F_OK) != 0, "%s: the namespace's /tmp is ours", path);

	char args[512];
	int rc;
	unlink(PROCDIR "/ns.nettrace");
	snprintf(args, sizeof args, "snapshot %ld " PROCDIR "/ns.nettrace", pid);
	char *err = hw_stderr(args, 0, &rc);
	ck_assert_msg(rc == 0 && *err == '\0', "%s: status %d: %s", args, rc, err);
	free(err);
	assert_workload(PROCDIR "/ns.nettrace");

	/* a mark: its recorder speaks to the socket too, and the next
	 * snapshot replays the moves it recorded */
	ck_assert_int_eq(system("rm -rf " PROCDIR "/nsxdg " PROCDIR "/ns-mark.nettrace " PROCDIR "/ns-2.nettrace* && "
				"mkdir -m 700 " PROCDIR "/nsxdg"), 0);
	setenv("XDG_CACHE_HOME", PROCDIR "/nsxdg", 1);
	snprintf(args, sizeof args, "mark %ld " PROCDIR "/ns-mark.nettrace", pid);
	err = hw_stderr(args, 0, &rc);
	ck_assert_msg(rc == 0 && *err == '\0', "%s: status %d: %s", args, rc, err);
	free(err);
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "env PATH=" NOJCMD " %s snapshot %ld " PROCDIR "/ns-2.nettrace 2>&1", heapwalk(), pid);
	char *out = run(cmd, &st);
	unsetenv("XDG_CACHE_HOME");
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0 && strstr(out, "; mark: exact; ") != NULL, "%s: %s", cmd,
		      out);
	free(out);
	assert_workload(PROCDIR "/ns-mark.nettrace");
	assert_workload(PROCDIR "/ns-2.nettrace");
	ck_assert_msg(access(PROCDIR "/ns-2.nettrace.hwmark", R_OK) == 0, "no mark file beside the snapshot");

	dotnet_end(ns, in[1]);
}
END_TEST

/* ---- the copy of a peer's stream, bounded ---- */

/* Byte i of what the peers below send. */
static uint8_t pattern(uint64_t i)
{
	return (uint8_t)(i * 7 % 251);
}

/* A peer on one end of a socketpair, in a child: `total` bytes of the
 * pattern, `chunk` at a time, `gap_ms` apart; then it holds the socket
 * open `hold_s` seconds and ends. The other end in *fd. */
static pid_t peer(uint64_t total, size_t chunk, int gap_ms, int hold_s, int *fd)
{
	int sv[2];
	pid_t pid;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		uint8_t buf[65536];
		close(sv[0]);
		for (uint64_t at = 0; at < total;) {
			size_t n = total - at < chunk ? (size_t)(total - at) : chunk;
			for (size_t i = 0; i < n; i++)
				buf[i] = pattern(at + i);
			if (write_full(sv[1], buf, n) != 0)
				_exit(1);
			at += n;
			if (gap_ms > 0)
				usleep((useconds_t)gap_ms * 1000);
		}
		sleep((unsigned)hold_s);
		_exit(0);
	}
	close(sv[1]);
	*fd = sv[0];
	return pid;
}

/* The file holds the first n bytes of the pattern, no more. */
static void assert_pattern_file(const char *path, uint64_t n)
{
	size_t got_n;
	uint8_t *got = (uint8_t *)file_bytes(path, &got_n);

	ck_assert_int_eq(got_n, n);
	for (size_t i = 0; i < got_n; i++)
		ck_assert_msg(got[i] == pattern(i), "%s: byte %zu", path, i);
	free(got);
}

static int never(void *arg, uint64_t bytes, double quiet, double elapsed)
{
	(void)arg, (void)bytes, (void)quiet, (void)elapsed;
	return 0;
}

/* Copy from the peer into PROCDIR/name: how it ended, the bytes, the
 * file's size, the message. */
static enum stream_end copy(const char *name, int in, const struct stream_bounds *b, uint64_t *bytes, off_t *size,
			    struct sbuf *err)
{
	char path[512];
	struct stat st;

	procdir();
	snprintf(path, sizeof path, PROCDIR "/%s", name);
	int out = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(out, 0);
	enum stream_end e = stream_copy(in, out, name, b, never, NULL, bytes, err);
	ck_assert_int_eq(fstat(out, &st), 0);
	*size = st.st_size;
	close(out);
	close(in);
	return e;
}

/* A peer that sends what it has and closes: all of it, byte for byte. */
START_TEST(test_stream_whole)
{
	int in;
	uint64_t bytes;
	off_t size;
	struct sbuf err;
	struct stream_bounds b = { 4 << 20, 60, 600 };
	pid_t pid = peer(3 << 20, 65536, 0, 0, &in);

	sbuf_init(&err);
	ck_assert_int_eq(copy("whole", in, &b, &bytes, &size, &err), STREAM_DONE);
	ck_assert_int_eq(bytes, 3 << 20);
	assert_pattern_file(PROCDIR "/whole", 3 << 20);
	sbuf_free(&err);
	end(pid);
}
END_TEST

/* A flood past the bound: the copy stops at the bound, never past it. */
START_TEST(test_stream_flood)
{
	int in;
	uint64_t bytes;
	off_t size;
	struct sbuf err;
	struct stream_bounds b = { 1 << 20, 60, 600 };
	pid_t pid = peer(8 << 20, 65536, 0, 0, &in);

	sbuf_init(&err);
	ck_assert_int_eq(copy("flood", in, &b, &bytes, &size, &err), STREAM_FULL);
	ck_assert_msg(bytes <= 1 << 20 && (uint64_t)size == bytes, "%llu bytes, file %lld",
		      (unsigned long long)bytes, (long long)size);
	ck_assert_str_eq(err.buf, "flood: the stream went past 1048576 bytes, its bound");
	sbuf_free(&err);
	end(pid);
}
END_TEST

/* A peer that goes quiet and holds the socket: the copy ends once the
 * quiet has lasted the bound. */
START_TEST(test_stream_quiet)
{
	int in;
	uint64_t bytes;
	off_t size;
	struct sbuf err;
	struct stream_bounds b = { 1 << 20, 0.5, 3600 };
	pid_t pid = peer(10, 10, 0, 20, &in);
	struct pollfd pf = { in, POLLIN, 0 };

	ck_assert_int_eq(poll(&pf, 1, 60000), 1); /* the 10 bytes are there: the quiet is the peer's, not a slow fork */
	sbuf_init(&err);
	ck_assert_int_eq(copy("quiet", in, &b, &bytes, &size, &err), STREAM_QUIET);
	ck_assert_int_eq(bytes, 10);
	ck_assert_str_eq(err.buf, "quiet: no byte for 0.5 s after byte 10");
	sbuf_free(&err);
	end(pid);
}
END_TEST

/* A trickle, never quiet for long, never done: the copy ends at the
 * bound on its whole time. */
START_TEST(test_stream_trickle)
{
	int in;
	uint64_t bytes;
	off_t size;
	struct sbuf err;
	struct stream_bounds b = { 1 << 20, 3600, 1 };
	pid_t pid = peer(400, 1, 50, 0, &in);

	sbuf_init(&err);
	ck_assert_int_eq(copy("trickle", in, &b, &bytes, &size, &err), STREAM_LATE);
	ck_assert_msg(bytes < 400 && (uint64_t)size == bytes, "%llu bytes", (unsigned long long)bytes);
	char want[128];
	snprintf(want, sizeof want, "trickle: not done after 1 s, at byte %llu", (unsigned long long)bytes);
	ck_assert_str_eq(err.buf, want);
	sbuf_free(&err);
	end(pid);
}
END_TEST

/* What a tick sees: the file holds the bytes it is told of (a caller
 * reads them there: the .NET snapshot looks for the dump's end), and
 * all that came once the peer has been quiet a while, though the copy
 * holds what comes until a 2 MiB piece of the file is full. */
struct seen {
	int fd;
	uint64_t sent;  /* by the peer, all of it */
	uint64_t told;  /* the bytes at the first tick with a quiet of 0.3 s after the last */
	int ticks, bad; /* ... ticks told of bytes the file did not hold */
	uint64_t bad_bytes;
	long long bad_size;
};

static int watch(void *arg, uint64_t bytes, double quiet, double elapsed)
{
	struct seen *s = arg;
	struct stat st;

	(void)elapsed;
	s->ticks++;
	if (fstat(s->fd, &st) != 0 || (uint64_t)st.st_size != bytes) {
		if (s->bad++ == 0)
			s->bad_bytes = bytes, s->bad_size = (long long)st.st_size;
	}
	/* the peer sent them all, or paused (a busy machine): once it has
	 * been quiet a while, all it sent is in the file, or it never is
	 * and the copy goes on to the peer's close (told stays 0) */
	if (quiet >= 0.3 && bytes == s->sent) {
		s->told = bytes;
		return 1;
	}
	return 0;
}

START_TEST(test_stream_tick_sees_file)
{
	int in;
	uint64_t bytes, total = (3 << 20) + 100; /* a piece and a half, and a few */
	struct sbuf err;
	struct stream_bounds b = { 8 << 20, 60, 600 };
	/* 64 kB each 10 ms: ticks while bytes come, some held */
	pid_t pid = peer(total, 65536, 10, 20, &in);
	struct seen s = { .sent = total };

	procdir();
	s.fd = open(PROCDIR "/ticked", O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(s.fd, 0);
	sbuf_init(&err);
	ck_assert_int_eq(stream_copy(in, s.fd, "ticked", &b, watch, &s, &bytes, &err), STREAM_DONE);
	ck_assert_msg(s.bad == 0, "%d of %d ticks told of bytes the file did not hold (first: %llu, file %lld)", s.bad,
		      s.ticks, (unsigned long long)s.bad_bytes, s.bad_size);
	ck_assert_msg(s.told == total && bytes == total, "told %llu bytes after the quiet, copied %llu, sent %llu",
		      (unsigned long long)s.told, (unsigned long long)bytes, (unsigned long long)total);
	assert_pattern_file(PROCDIR "/ticked", total);
	close(s.fd);
	close(in);
	sbuf_free(&err);
	end(pid);
}
END_TEST

/* The pieces a snapshot is written in end on multiples of 2 MiB of the
 * file (the page cache's huge pages), whatever the sizes given, and
 * after a flush of a part of one too; nothing is lost. */
static off_t size_of(int fd)
{
	struct stat st;

	ck_assert_int_eq(fstat(fd, &st), 0);
	return st.st_size;
}

static void add_pattern(struct pieces *p, uint64_t *at, uint64_t n)
{
	uint8_t buf[65537]; /* odd: no piece's end falls on one of its ends */

	while (n > 0) {
		size_t k = n < sizeof buf ? (size_t)n : sizeof buf;
		for (size_t i = 0; i < k; i++)
			buf[i] = pattern(*at + i);
		ck_assert_int_eq(pieces_add(p, buf, k), 0);
		*at += k, n -= k;
	}
}

START_TEST(test_stream_pieces)
{
	struct pieces p;
	uint64_t at = 0, mib2 = 2 << 20;

	procdir();
	int fd = open(PROCDIR "/pieces", O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	pieces_open(&p, fd);
	add_pattern(&p, &at, 100);
	ck_assert_int_eq(size_of(fd), 0);
	add_pattern(&p, &at, mib2 - 100 + 5);
	ck_assert_int_eq(size_of(fd), mib2);
	ck_assert_int_eq(pieces_flush(&p), 0);
	ck_assert_int_eq(size_of(fd), mib2 + 5);
	add_pattern(&p, &at, mib2);
	ck_assert_int_eq(size_of(fd), 2 * mib2); /* the rest of the piece the flush began */
	ck_assert_int_eq(pieces_flush(&p), 0);
	ck_assert_int_eq(size_of(fd), at);
	ck_assert_int_eq(p.written, at);
	pieces_close(&p);
	close(fd);
	assert_pattern_file(PROCDIR "/pieces", at);
}
END_TEST

/* The room: what the file system has free for us, less 1/20 of its
 * size, as stat -f tells (within 1% of the file system: others write). */
START_TEST(test_stream_room)
{
	int st;
	long long avail = 0, blocks = 0, bsize = 0;

	procdir();
	int fd = open(PROCDIR "/room", O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	uint64_t room = stream_room(fd);
	close(fd);
	char *out = run("stat -f -c '%a %b %S' " PROCDIR, &st);
	ck_assert_int_eq(sscanf(out, "%lld %lld %lld", &avail, &blocks, &bsize), 3);
	free(out);
	long long want = avail * bsize - blocks * bsize / 20;
	if (want < 0)
		want = 0;
	long long diff = (long long)room - want;
	ck_assert_msg(llabs(diff) <= blocks * bsize / 100, "room %llu, stat -f: %lld", (unsigned long long)room, want);
}
END_TEST

Suite *proc_suite(void)
{
	Suite *s = suite_create("proc");
	TCase *tc = tcase_create("refusals");

	tcase_set_timeout(tc, FIXTURE_TIMEOUT); /* a hang; on a loaded machine a JVM starts slowly */
	tcase_add_test(tc, test_python);
	tcase_add_test(tc, test_gone);
	tcase_add_test(tc, test_other_user);
	tcase_add_test(tc, test_sleep_blocked);
	tcase_add_test(tc, test_unreadable);
	tcase_add_test(tc, test_jvm_without_sigquit);
	tcase_add_test(tc, test_jvm_attach_off);
	tcase_add_test(tc, test_jvm_no_perf_data);
	tcase_add_test(tc, test_fake_not_a_jvm);
	tcase_add_test(tc, test_fake_attach_timeout);
	tcase_add_test(tc, test_fake_flood);
	tcase_add_test(tc, test_fake_controls);
	tcase_add_test(tc, test_fake_truncated_dump);
	tcase_add_test(tc, test_jvm_planted_socket);
	tcase_add_test(tc, test_jvm_tmp_not_its_users);
	tcase_add_test(tc, test_jvm_stopped);
	tcase_add_test(tc, test_jvm_stale_socket);
	tcase_add_test(tc, test_dotnet_planted_key);
	tcase_add_test(tc, test_dotnet_planted_name);
	tcase_add_test(tc, test_dotnet_tmpdir_twice);
	tcase_add_test(tc, test_dotnet_bounds);
	tcase_add_test(tc, test_dotnet_in_namespaces);
	tcase_add_test(tc, test_dotnet_single_file);
	suite_add_tcase(s, tc);
	/* HotSpot's dump fetched from the JVM's /tmp (cli/hsdump.c) */
	tc = tcase_create("hsdump");
	tcase_set_timeout(tc, FIXTURE_TIMEOUT);
	tcase_add_test(tc, test_jvm_perf_data_found);
	tcase_add_test(tc, test_fake_swapped_dir);
	tcase_add_test(tc, test_fake_not_a_file);
	tcase_add_test(tc, test_fake_dump_checks);
	tcase_add_test(tc, test_fake_gz_not_taken);
	tcase_add_test(tc, test_fake_dir_left);
	tcase_add_test(tc, test_fake_dump_stopped);
	tcase_add_test(tc, test_fake_dump_stopped_as_user);
	suite_add_tcase(s, tc);
	/* a real JVM while it writes, and one that answers nothing (frozen) */
	tc = tcase_create("jvmwait");
	tcase_set_timeout(tc, FIXTURE_TIMEOUT);
	tcase_add_test(tc, test_jvm_progress);
	tcase_add_test(tc, test_jvm_frozen);
	tcase_add_test(tc, test_jvm_caught);
	suite_add_tcase(s, tc);
	/* a single-file bundle's marker past what is read of an executable */
	tc = tcase_create("readcap");
	tcase_set_timeout(tc, HANG_TIMEOUT); /* a hang */
	tcase_add_test(tc, test_single_file_read_cap);
	suite_add_tcase(s, tc);
	/* the agent's rename caught under its lock (a fake JVM) */
	tc = tcase_create("fakewait");
	tcase_set_timeout(tc, HANG_TIMEOUT); /* a hang */
	tcase_add_test(tc, test_fake_renamed_late);
	suite_add_tcase(s, tc);
	tc = tcase_create("stream");
	tcase_set_timeout(tc, HANG_TIMEOUT); /* a hang */
	tcase_add_test(tc, test_stream_whole);
	tcase_add_test(tc, test_stream_flood);
	tcase_add_test(tc, test_stream_quiet);
	tcase_add_test(tc, test_stream_tick_sees_file);
	tcase_add_test(tc, test_stream_pieces);
	tcase_add_test(tc, test_stream_trickle);
	tcase_add_test(tc, test_stream_room);
	suite_add_tcase(s, tc);
	return s;
}

/* Node's processes (cli/node.c): a suite of its own, so that make -j
 * runs it beside the rest of proc's. */
/* ---- the WebSocket client's frames, against RFC 6455's own examples ----
 * (section 5.7: frames; section 1.3: the handshake's key). Node's
 * inspector sends unfragmented text and no ping, so the tests above
 * never see a fragment or a ping: these bytes are the RFC's. */

/* The frame at b[0..n) taken whole: its length is n. */
static struct ws_frame rfc_frame(const uint8_t *b, size_t n, int fin, int opcode)
{
	struct ws_frame f;
	struct sbuf err;

	sbuf_init(&err);
	long k = dt_ws_frame(b, n, DT_MESSAGE_MAX, &f, &err);
	ck_assert_msg(k == (long)n && f.fin == fin && f.opcode == opcode, "frame of %zu bytes: %ld, fin %d, opcode %d: %s",
		      n, k, f.fin, f.opcode, err.buf ? err.buf : "");
	for (size_t cut = 0; cut < n && cut < 12; cut++) /* a frame cut short: more must come */
		ck_assert_int_eq(dt_ws_frame(b, cut, DT_MESSAGE_MAX, &f, &err), 0);
	dt_ws_frame(b, n, DT_MESSAGE_MAX, &f, &err);
	sbuf_free(&err);
	return f;
}

START_TEST(test_ws_rfc_examples)
{
	static const uint8_t hello[] = { 0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f };
	static const uint8_t masked_hello[] = { 0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58 };
	static const uint8_t hel[] = { 0x01, 0x03, 0x48, 0x65, 0x6c }, lo[] = { 0x80, 0x02, 0x6c, 0x6f };
	static const uint8_t ping[] = { 0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f };
	static const uint8_t masked_pong[] = { 0x8a, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58 };
	static const uint8_t mask[4] = { 0x37, 0xfa, 0x21, 0x3d };
	struct ws_joiner j = { .opcode = 0 };
	struct sbuf err, out;
	struct ws_frame f;

	sbuf_init(&j.msg);
	sbuf_init(&err);
	sbuf_init(&out);

	/* a single unmasked text frame: one message */
	f = rfc_frame(hello, sizeof hello, 1, WS_TEXT);
	ck_assert_int_eq(dt_ws_join(&j, &f, &err), 1);
	ck_assert_msg(j.msg.len == 5 && memcmp(j.msg.buf, "Hello", 5) == 0 && j.opcode == WS_TEXT, "joined: %.*s",
		      (int)j.msg.len, j.msg.buf);
	sbuf_reset(&j.msg);
	j.opcode = 0;

	/* a fragmented text message, with the RFC's ping between its
	 * fragments (a control frame may come inside a message): "Hel",
	 * then the ping, answered with the RFC's masked pong, then "lo" */
	f = rfc_frame(hel, sizeof hel, 0, WS_TEXT);
	ck_assert_int_eq(dt_ws_join(&j, &f, &err), 0);
	f = rfc_frame(ping, sizeof ping, 1, WS_PING);
	ck_assert_msg(f.len == 5 && memcmp(f.payload, "Hello", 5) == 0, "the ping's payload");
	dt_ws_put(&out, WS_PONG, f.payload, (size_t)f.len, mask);
	ck_assert_msg(out.len == sizeof masked_pong && memcmp(out.buf, masked_pong, sizeof masked_pong) == 0,
		      "the pong is not the RFC's masked one");
	f = rfc_frame(lo, sizeof lo, 1, WS_CONT);
	ck_assert_int_eq(dt_ws_join(&j, &f, &err), 1);
	ck_assert_msg(j.msg.len == 5 && memcmp(j.msg.buf, "Hello", 5) == 0 && j.opcode == WS_TEXT, "joined: %.*s",
		      (int)j.msg.len, j.msg.buf);
	sbuf_reset(&j.msg);
	j.opcode = 0;

	/* a client's masked text frame is the RFC's; a server's masked frame
	 * is refused */
	sbuf_reset(&out);
	dt_ws_put(&out, WS_TEXT, (const uint8_t *)"Hello", 5, mask);
	ck_assert_msg(out.len == sizeof masked_hello && memcmp(out.buf, masked_hello, sizeof masked_hello) == 0,
		      "the masked frame is not the RFC's");
	ck_assert_int_eq(dt_ws_frame(masked_hello, sizeof masked_hello, DT_MESSAGE_MAX, &f, &err), -1);
	ck_assert_msg(err.buf != NULL && strstr(err.buf, "masked") != NULL, "%s", err.buf ? err.buf : "");
	sbuf_reset(&err);

	/* a continuation with no message begun, a new message inside one */
	f = rfc_frame(lo, sizeof lo, 1, WS_CONT);
	ck_assert_int_eq(dt_ws_join(&j, &f, &err), -1);
	sbuf_reset(&err);
	j.opcode = 0;
	f = rfc_frame(hel, sizeof hel, 0, WS_TEXT);
	ck_assert_int_eq(dt_ws_join(&j, &f, &err), 0);
	f = rfc_frame(hello, sizeof hello, 1, WS_TEXT);
	ck_assert_int_eq(dt_ws_join(&j, &f, &err), -1);
	sbuf_reset(&err);

	/* 256 and 65536 bytes, with the 16- and 64-bit lengths: the header
	 * bytes the RFC gives, and a client frame of each size reads back */
	for (int big = 0; big < 2; big++) {
		size_t len = big ? 65536 : 256, head = big ? 10 : 4;
		uint8_t *b = xcalloc(head + len, 1);
		b[0] = 0x82;
		b[1] = big ? 0x7f : 0x7e;
		if (big)
			b[7] = 0x01; /* 0x0000000000010000 */
		else
			b[2] = 0x01; /* 0x0100 */
		for (size_t i = 0; i < len; i++)
			b[head + i] = (uint8_t)(i * 7);
		f = rfc_frame(b, head + len, 1, WS_BINARY);
		ck_assert_msg(f.len == len && f.payload == b + head, "%zu bytes: read %llu", len, (unsigned long long)f.len);
		sbuf_reset(&out);
		dt_ws_put(&out, WS_BINARY, b + head, len, mask);
		ck_assert_msg(out.len == head + 4 + len && (uint8_t)out.buf[0] == 0x82 &&
			      (uint8_t)out.buf[1] == (0x80 | b[1]) && memcmp(out.buf + 2, b + 2, head - 2) == 0,
			      "the client's header of %zu bytes", len);
		for (size_t i = 0; i < len; i++)
			ck_assert_int_eq((uint8_t)out.buf[head + 4 + i] ^ mask[i & 3], b[head + i]);
		free(b);
	}

	/* the handshake's key: section 1.3's example */
	char accept[29];
	dt_ws_accept("dGhlIHNhbXBsZSBub25jZQ==", accept);
	ck_assert_str_eq(accept, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");

	sbuf_free(&j.msg);
	sbuf_free(&err);
	sbuf_free(&out);
}
END_TEST

Suite *procnode_suite(void)
{
	Suite *s = suite_create("procnode");
	TCase *tc = tcase_create("node");

	tcase_set_timeout(tc, FIXTURE_TIMEOUT); /* a hang; on a loaded machine node starts slowly */
	tcase_add_test(tc, test_node);
	tcase_add_test(tc, test_node_inspector_open);
	tcase_add_test(tc, test_node_interrupted);
	tcase_add_test(tc, test_node_killed_mid_snapshot);
	tcase_add_test(tc, test_node_ids_reset);
	tcase_add_test(tc, test_node_ids_homogeneous);
	tcase_add_test(tc, test_node_ids_written);
	tcase_add_test(tc, test_node_fake_listener);
	tcase_add_test(tc, test_node_blocked);
	tcase_add_test(tc, test_node_concurrent);
	tcase_add_test(tc, test_node_pid);
	tcase_add_test(tc, test_node_progress);
	tcase_add_test(tc, test_node_not_signalled);
	tcase_add_test(tc, test_node_namespaces);
	suite_add_tcase(s, tc);

	tc = tcase_create("websocket");
	tcase_add_test(tc, test_ws_rfc_examples);
	suite_add_tcase(s, tc);
	return s;
}
