/* test_browser.c — the browser as a user of an 80x24 terminal meets it,
 * after walking real dumps: names of long packages that still read
 * apart, a dump file that shrinks under the session, a search past the
 * rows loaded, toggles that keep the tree, exact sizes sorted and kept,
 * marks that go once used, and the dominator tree and paths on the
 * sample heap whose answers test_graph.c works out by hand. */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/open.h"
#include "hprofw.h"
#include "suites.h"
#include "term.h"
#include "util.h"

#define DUMPS TEST_BUILDDIR "/dumps"

/* The rows of the view on a screen: the lines between the column header
 * (line 4) and the breadcrumb (the last but one). Caller frees each. */
static size_t view_rows(const char *s, char **out, size_t max)
{
	size_t n = 0, line = 0, total = (size_t)count_lines(s);

	for (const char *p = s; *p && n < max; line++) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (line >= 4 && line + 2 < total && len > 0)
			out[n++] = strndup(p, len);
		if (e == NULL)
			break;
		p = e + 1;
	}
	return n;
}

/* The label part of a row: up to the first run of two blanks after it
 * starts (the columns follow), marks and tree signs left out. */
static char *label_of(const char *row)
{
	const char *p = row;

	while (*p == ' ' || *p == '*' || *p == '+' || *p == '-')
		p++;
	const char *e = strstr(p, "  ");
	return strndup(p, e ? (size_t)(e - p) : strlen(p));
}

/* The class names of the dump whose instances the batch lists, in CSV
 * order (class,count,...), that hold part. */
static size_t batch_classes(const char *dump, const char *prefix, char **out, size_t max)
{
	char cmd[1024];
	int st;
	size_t n = 0;

	snprintf(cmd, sizeof cmd, "%s -q -f csv classes %s", getenv("HEAPWALK"), dump);
	char *csv = run(cmd, &st);
	ck_assert_msg(st == 0, "%s", cmd);
	for (char *p = strchr(csv, '\n'); p != NULL && n < max; p = strchr(p, '\n')) {
		p++;
		size_t len = strcspn(p, ",\n");
		char *name = strndup(p, len);
		if (strstr(name, prefix) != NULL)
			out[n++] = name;
		else
			free(name);
	}
	free(csv);
	return n;
}

/* A compiler's heap at 80x24: rows of classes alike in their first 40
 * characters (com.sun.tools.javac.tree.JCTree$JC...) read differently,
 * each with its simple name whole; so do the class loaders' rows, and the
 * rows of a merged view; the dump line is cut between words. */
START_TEST(test_long_names_80x24)
{
	struct term t;
	char dump[512], *names[64], *rows[32];
	size_t nn, nr;

	workload_dump("Javac", "javac", "", dump, sizeof dump);
	nn = batch_classes(dump, "JCTree$JC", names, 64);
	ck_assert_msg(nn >= 10, "only %zu JCTree classes", nn);
	term_start(&t, 80, 24, "", dump);
	char *s = wait_for(&t, "Step 1: All objects");
	char *top = line_of(s, " heapwalk ");
	/* the dump line: whole parts, never a word cut (it was "... (4 of 11 g") */
	ck_assert_msg(strstr(top, "rules: jdk") == NULL || strstr(top, "off") != NULL ||
		      strstr(top, "rules: jdk ") != NULL || top[strlen(top) - 1] == 'k',
		      "dump line cut: %s", top);
	free(top);
	free(s);
	keys(&t, "f");
	type(&t, "JCTree\\$JC");
	keys(&t, "Enter");
	s = wait_without(&t, "q quit", "filter (regex)");
	nr = view_rows(s, rows, 32);
	ck_assert_msg(nr >= 10, "%zu rows:\n%s", nr, shown(s));
	for (size_t i = 0; i < nr; i++) {
		char *li = label_of(rows[i]);
		/* its simple name, whole, is one of the dump's */
		const char *simple = strstr(li, "JCTree$JC");
		ck_assert_msg(simple != NULL, "row without its simple name: '%s'", rows[i]);
		int known = 0;
		for (size_t k = 0; k < nn && !known; k++)
			known = strcmp(strstr(names[k], "JCTree$JC"), simple) == 0;
		ck_assert_msg(known, "'%s' is no class of the dump (cut?)", simple);
		for (size_t j = 0; j < i; j++) {
			char *lj = label_of(rows[j]);
			ck_assert_msg(strcmp(li, lj) != 0, "two rows read alike: '%s'", li);
			free(lj);
		}
		free(li);
	}
	for (size_t i = 0; i < nr; i++)
		free(rows[i]);
	free(s);

	/* the loaders: the application's and the platform's, apart */
	keys(&t, "f Enter"); /* nothing typed: no filter */
	free(wait_for(&t, "filter off"));
	keys(&t, "L");
	s = wait_for(&t, "by loader");
	has(s, "AppClassLoader");
	has(s, "PlatformClassLoader");
	has(s, "<bootstrap loader>");
	nr = view_rows(s, rows, 32);
	for (size_t i = 0; i < nr; i++)
		for (size_t j = 0; j < i; j++) {
			char *a = label_of(rows[i]), *b = label_of(rows[j]);
			ck_assert_msg(strcmp(a, b) != 0, "two loader rows read alike: '%s'", a);
			free(a);
			free(b);
		}
	for (size_t i = 0; i < nr; i++)
		free(rows[i]);
	free(s);
	keys(&t, "L");
	free(wait_without(&t, "(sort: shallow)", "by loader"));

	/* a method declaration's merged outgoing references: the trees it
	 * holds, JCTree$JC... each, on rows that read apart */
	keys(&t, "f");
	type(&t, "JCTree\\$JCMethodDecl$");
	keys(&t, "Enter Enter");
	s = wait_for(&t, "Step 2: Instances of ");
	/* the title's class name gives way by packages, its end stays */
	char *step = line_of(s, "Step 2: Instances of ");
	ck_assert_msg(strstr(step, "JCTree$JCMethodDecl  |") != NULL, "%s", step);
	free(step);
	free(s);
	keys(&t, "Tab Tab"); /* Outgoing -> Incoming -> Merged out */
	s = wait_for(&t, "merged outgoing: class");
	nr = view_rows(s, rows, 32);
	size_t trees = 0;
	for (size_t i = 0; i < nr; i++) {
		char *li = label_of(rows[i]);
		trees += strstr(li, "JCTree$JC") != NULL;
		for (size_t j = 0; j < i; j++) {
			char *lj = label_of(rows[j]);
			ck_assert_msg(strcmp(li, lj) != 0, "two merged rows read alike: '%s'", li);
			free(lj);
		}
		free(li);
	}
	ck_assert_msg(trees >= 3, "merged outgoing of method declarations:\n%s", shown(s));
	for (size_t i = 0; i < nr; i++)
		free(rows[i]);
	free(s);
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
	for (size_t k = 0; k < nn; k++)
		free(names[k]);
}
END_TEST

/* The dump file shrinks while it is open (another program rewrites it):
 * reading a record of it faults (SIGBUS). The view that read it is
 * dropped with a message; the steps stay, and q leaves with status 0. */
START_TEST(test_failure_contained)
{
	struct term t;
	char src[512], cmd[1300], copy[512];

	ensure_dump("coops", "");
	snprintf(src, sizeof src, "%s/coops.hprof", DUMPS);
	snprintf(copy, sizeof copy, "%s/shrinks.hprof", hw_tmpdir());
	snprintf(cmd, sizeof cmd, "cp '%s' '%s'", src, copy);
	ck_assert(system(cmd) == 0);
	snprintf(cmd, sizeof cmd, "--no-cache '%s'", copy);
	term_start(&t, 100, 30, "", cmd);
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, "f");
	type(&t, "Session$");
	keys(&t, "Enter Enter");
	char *s = wait_for(&t, "Step 2: Instances of Workload$Session");
	has(s, "object / field = value");
	free(s);
	ck_assert(truncate(copy, 4096) == 0);
	keys(&t, "+"); /* the session's fields: read from the file */
	s = wait_for(&t, "SIGBUS");
	has(s, "the dump file changed or shrank");
	has(s, "[2 Instances of Workload$Session]"); /* the steps stay */
	free(s);
	keys(&t, "Left");
	s = wait_for(&t, "Step 1: All objects");
	has(s, "Workload$Session "); /* built before: still there */
	free(s);
	keys(&t, "Right");
	s = wait_for(&t, "Step 2: Instances of Workload$Session");
	has(s, "dropped after a failure: ^L makes it again"); /* the view that failed */
	free(s);
	/* the file as it was: ^L makes the view again, its rows open */
	snprintf(cmd, sizeof cmd, "cp '%s' '%s'", src, copy);
	ck_assert(system(cmd) == 0);
	keys(&t, "C-l");
	s = wait_for(&t, "Workload$Session 0x");
	lacks(s, "dropped after a failure");
	free(s);
	keys(&t, "+");
	s = wait_for(&t, "payload = [B 0x");
	has(s, "user = java.lang.String 0x");
	lacks(s, "SIGBUS");
	free(s);
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
	unlink(copy);
}
END_TEST

/* A batch command whose dump shrinks while it reads it: one line naming
 * the dump on stderr and the status of bad input (2), not a death by
 * SIGBUS. On time every time: the test stops heapwalk (SIGSTOP) as soon
 * as the dump's mapping shows in /proc/PID/maps, truncates the dump and
 * lets it go on. From there on the open reads the mapping at least once
 * more past the file's end (the parse, and the index cache's hash of the
 * whole dump before it is saved), so SIGBUS comes whatever the stop's
 * moment. */
static int mapped(pid_t pid, const char *path)
{
	char maps[64], line[4096];
	int found = 0;

	snprintf(maps, sizeof maps, "/proc/%d/maps", (int)pid);
	FILE *f = fopen(maps, "r");
	if (f == NULL)
		return 0;
	while (!found && fgets(line, sizeof line, f) != NULL)
		found = strstr(line, path) != NULL;
	fclose(f);
	return found;
}

/* heapwalk classes [-q --baseline OLD] NEW, stopped once `watch` is
 * mapped; `cut` truncated; the one line must name `cut` (-q: the dumps'
 * own warnings are not said, the fault's line is). */
static void shrinks_under(const char *old, const char *new, const char *watch, const char *cut)
{
	char errf[512], cmd[1300];
	int st;

	snprintf(errf, sizeof errf, "%s/stderr", hw_tmpdir());
	pid_t pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		int out = open("/dev/null", O_WRONLY), err = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (out < 0 || err < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
			_exit(99);
		if (old != NULL)
			execl(getenv("HEAPWALK"), "heapwalk", "-q", "--baseline", old, "classes", new, (char *)NULL);
		else
			execl(getenv("HEAPWALK"), "heapwalk", "classes", new, (char *)NULL);
		_exit(98);
	}
	int seen = 0;
	for (int i = 0; i < 300000 && !(seen = mapped(pid, watch)); i++)
		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
	ck_assert_msg(seen, "heapwalk never mapped %s", watch);
	ck_assert(kill(pid, SIGSTOP) == 0);
	ck_assert(waitpid(pid, &st, WUNTRACED) == pid);
	ck_assert_msg(WIFSTOPPED(st), "heapwalk ended before it could be stopped");
	ck_assert(truncate(cut, 4096) == 0);
	ck_assert(kill(pid, SIGCONT) == 0);
	ck_assert(waitpid(pid, &st, 0) == pid);
	char *err = run_out((snprintf(cmd, sizeof cmd, "cat '%s'", errf), cmd));
	ck_assert_msg(WIFEXITED(st), "heapwalk died by signal %d; stderr:\n%s", WTERMSIG(st), err);
	ck_assert_msg(WEXITSTATUS(st) == 2, "status %d; stderr:\n%s", WEXITSTATUS(st), err);
	char want[700];
	snprintf(want, sizeof want, "heapwalk: %s: the dump file changed or shrank while being read (SIGBUS)\n",
		 cut);
	ck_assert_msg(strcmp(err, want) == 0, "stderr is\n%s\nnot\n%s", err, want);
	free(err);
	unlink(errf);
}

static void copy_dump(const char *name, char *copy, size_t n)
{
	char cmd[1300];

	snprintf(copy, n, "%s/%s", hw_tmpdir(), name);
	snprintf(cmd, sizeof cmd, "cp '%s/coops.hprof' '%s' && rm -f '%s.hwi'", DUMPS, copy, copy);
	ck_assert(system(cmd) == 0);
}

START_TEST(test_batch_dump_shrinks)
{
	char copy[512], old[512];

	ensure_dump("coops", "");
	copy_dump("shrinks.hprof", copy, sizeof copy);
	shrinks_under(NULL, copy, copy, copy);
	/* two dumps mapped: the baseline shrinks once the new one is mapped
	 * too (the matcher reads it again): the line names the baseline */
	copy_dump("shrinks.hprof", copy, sizeof copy);
	copy_dump("shrinks-old.hprof", old, sizeof old);
	shrinks_under(old, copy, copy, old);
	unlink(copy);
	unlink(old);
}
END_TEST

/* The process whose command line is exactly "$HEAPWALK arg", or 0; of
 * several (one a failed test left), the one started last. */
static pid_t heapwalk_pid(const char *arg)
{
	char want[1024], path[64], got[1024];
	size_t wn = (size_t)snprintf(want, sizeof want, "%s%c%s%c", getenv("HEAPWALK"), 0, arg, 0);
	pid_t found = 0;
	unsigned long long newest = 0;
	DIR *proc = opendir("/proc");
	struct dirent *de;

	ck_assert(proc != NULL);
	while ((de = readdir(proc)) != NULL) {
		pid_t pid = (pid_t)atoi(de->d_name);
		if (pid <= 0)
			continue;
		snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
		int fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, got, sizeof got);
		close(fd);
		if (n != (ssize_t)wn || memcmp(got, want, wn) != 0)
			continue;
		/* its start time: field 22 of stat, after the name's ')' */
		snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
		fd = open(path, O_RDONLY);
		n = fd >= 0 ? read(fd, got, sizeof got - 1) : -1;
		if (fd >= 0)
			close(fd);
		got[n > 0 ? n : 0] = '\0';
		const char *q = strrchr(got, ')');
		unsigned long long start = 0;
		for (int field = 2; q != NULL && field < 22; field++)
			q = strchr(q + 1, ' ');
		if (q != NULL)
			start = strtoull(q + 1, NULL, 10);
		if (found == 0 || start >= newest) {
			found = pid;
			newest = start;
		}
	}
	closedir(proc);
	return found;
}

/* The browser's dump shrinks while it opens it, before its screen is up:
 * the same one line and status 2 as in batch, the shell's terminal as it
 * was (no alternate screen, the cursor shown). Stopped as in the batch
 * test, once the dump is mapped, and brought back by the shell's fg. */
START_TEST(test_browser_open_dump_shrinks)
{
	struct term t;
	char copy[512], cmd[1300];
	pid_t pid = 0;

	ensure_dump("coops", "");
	snprintf(copy, sizeof copy, "%s/shrinks-tui.hprof", hw_tmpdir());
	snprintf(cmd, sizeof cmd, "cp '%s/coops.hprof' '%s' && rm -f '%s.hwi'", DUMPS, copy, copy);
	ck_assert(system(cmd) == 0);
	term_shell(&t, 80, 24);
	shell_heapwalk(&t, copy);
	for (int i = 0; i < 20000 && pid == 0; i++)
		pid = heapwalk_pid(copy);
	ck_assert_msg(pid > 0, "no heapwalk %s started", copy);
	int seen = 0;
	for (int i = 0; i < 300000 && !(seen = mapped(pid, copy)); i++)
		if (kill(pid, 0) < 0)
			break;
	ck_assert_msg(seen, "heapwalk never mapped %s", copy);
	ck_assert(kill(pid, SIGSTOP) == 0);
	char st_path[64], state[512] = "";
	snprintf(st_path, sizeof st_path, "/proc/%d/stat", (int)pid);
	for (double end = now_seconds() + hang_seconds(60); now_seconds() < end && strstr(state, ") T ") == NULL;) {
		/* not our child: poll */
		int fd = open(st_path, O_RDONLY);
		ssize_t n = fd >= 0 ? read(fd, state, sizeof state - 1) : -1;
		state[n > 0 ? n : 0] = '\0';
		if (fd >= 0)
			close(fd);
		usleep(1000);
	}
	ck_assert_msg(strstr(state, ") T ") != NULL, "heapwalk ended before it could be stopped: %s", state);
	ck_assert(truncate(copy, 4096) == 0);
	free(wait_for(&t, "Stopped")); /* the shell's job control saw it */
	type(&t, "fg; echo rc=$?");
	keys(&t, "Enter");
	char *s = wait_for(&t, "\nrc="); /* the echo's line, not the typed one */
	char *j = squeeze(s), *q = j; /* its lines joined too: a long path wraps */
	for (const char *r = j; *r; r++)
		if (*r != '\n')
			*q++ = *r;
	*q = '\0';
	snprintf(cmd, sizeof cmd, "heapwalk:%s:thedumpfilechangedorshrankwhilebeingread(SIGBUS)", copy);
	char *want = squeeze(cmd);
	ck_assert_msg(strstr(j, want) != NULL, "no line naming the dump: %s", shown(s));
	has(s, "rc=2");
	lacks(s, "Step 1");
	free(want);
	free(j);
	free(s);
	s = term_modes(&t);
	ck_assert_msg(strcmp(s, "0 1") == 0, "terminal modes (alternate, cursor) %s", s);
	free(s);
	term_stop(&t);
	unlink(copy);
}
END_TEST

/* A memory budget too small for the object graph (HEAPWALK_MEMORY_MB=1
 * on a dump with its index cache, whose classes need no graph): the
 * first screen comes; a key that needs the graph is refused with the
 * budget's line and not done, the session stays, and the keys after it
 * work (the engine not left busy). */
START_TEST(test_refusal_is_an_answer)
{
	struct term t;
	char dump[512], cmd[1400];

	ensure_dump("coops", "");
	copy_dump("budget.hprof", dump, sizeof dump);
	snprintf(cmd, sizeof cmd, "'%s' -q info '%s' >/dev/null", getenv("HEAPWALK"), dump); /* the cache */
	ck_assert_msg(system(cmd) == 0, "%s", cmd);
	term_start(&t, 240, 30, "HEAPWALK_MEMORY_MB=1", dump); /* the line whole */
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, "Tab");
	char *s = wait_for(&t, "loading the object graph needs");
	has(s, "is available: not done");
	has(s, "Step 1: All objects");
	free(s);
	keys(&t, "Tab"); /* asked again: the same answer, not a jump */
	free(wait_for(&t, "is available: not done"));
	keys(&t, "BTab");
	free(wait_for(&t, "class  (sort"));
	keys(&t, "q");
	wait_exit(&t);
	ck_assert_int_eq(exit_status(&t), 0);
	term_stop(&t);
	snprintf(cmd, sizeof cmd, "rm -f '%s' '%s.hwi'", dump, dump);
	ck_assert(system(cmd) == 0);
}
END_TEST

/* A dump cut short says so when the browser opens: where, and, with no
 * GC root read, that every object is unreachable (the screen said "N
 * warnings" alone while every row was unreachable: a trial's dump cut
 * before the segment with its roots). The JDK's classes and three
 * Objects in one segment, every root in the next, cut inside it. */
START_TEST(test_cut_dump_said)
{
	struct term t;
	struct hw w;
	struct stat st;

	hw_begin(&w, "JAVA PROFILE 1.0.2", 8);
	hw_jdk_names(&w);
	hw_heap_begin(&w);
	hw_jdk_classes(&w);
	for (uint64_t id = 0x5001; id <= 0x5005; id += 2)
		hw_instance(&w, id, J_OBJECT, NULL, 0);
	hw_heap_end(&w);
	size_t roots_at = hw_pos(&w);
	hw_heap_begin(&w);
	hw_jdk_class_roots(&w);
	hw_root(&w, HW_ROOT_JNI_GLOBAL, 0x5001, 0x9001, 0);
	hw_heap_end(&w);
	hw_dump_end(&w);
	char *path = hw_write(&w, "cut-said.hprof", roots_at + 12);
	hw_free(&w);
	ck_assert_int_eq(stat(path, &st), 0);
	char args[700], want[160];
	snprintf(args, sizeof args, "--no-cache '%s'", path);
	term_start(&t, 200, 30, "", args);
	snprintf(want, sizeof want, "the dump is cut short at offset %lld, no GC root read: every object unreachable",
		 (long long)st.st_size);
	char *s = wait_for(&t, want);
	/* as many as info counts, "warning" for one (a trial: "1 warnings") */
	char cmd[900];
	int rc;
	snprintf(cmd, sizeof cmd, "'%s' -q --no-cache -f json info '%s'", heapwalk(), path);
	char *js = run(cmd, &rc), *at = strstr(js, "\"warnings\":");
	ck_assert_msg(rc == 0 && at != NULL, "%.300s", js);
	unsigned long nw = strtoul(at + 11, NULL, 10);
	snprintf(want, sizeof want, " %lu warning%s while reading the dump: see heapwalk info", nw, nw == 1 ? "" : "s");
	has(s, want);
	free(js);
	free(s);
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
	free(path);
}
END_TEST

/* A part short of its parent never draws as all of it: an Object[1]
 * holding a byte[100000] (100016 of the array's 100040 bytes, 99.98%)
 * drew a full bar of its parent (a trial: "100.0%"); now nine tenths. */
START_TEST(test_part_bar_short_of_whole)
{
	const uint64_t elems[] = { 0x5003 };
	struct term t;
	struct hw w;

	hw_jdk_open(&w);
	hw_root(&w, HW_ROOT_JNI_GLOBAL, 0x5001, 0x9001, 0);
	hw_objarray(&w, 0x5001, J_OBJARR, elems, 1);
	hw_primarray(&w, 0x5003, T_BYTE, 100000, NULL);
	char *path = hw_jdk_close(&w, "part-bar.hprof");
	char args[700];
	snprintf(args, sizeof args, "--no-cache '%s'", path);
	term_start(&t, 120, 30, "", args);
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, "Tab"); /* Biggest */
	free(wait_for(&t, "dominator tree"));
	keys(&t, "+"); /* the first row: the array */
	char *s = wait_for(&t, "[B 0x5003");
	char *row = line_of(s, "[B 0x5003");
	ck_assert_msg(strstr(row, "[######### ]") != NULL, "%s\n%s", row, s);
	free(row);
	free(s);
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
	free(path);
}
END_TEST

/* v shows an inspection group's text whole: a class of a 400-letter
 * name, whose zero-length arrays make a group named by it (the row
 * keeps 300 bytes of a group's text and "..."). */
START_TEST(test_row_whole_long_group)
{
	const uint64_t none[] = { 0 };
	char name[420];
	struct term t;
	struct hw w;

	memset(name, 'a', sizeof name);
	memcpy(name, "[Lp", 3);
	memcpy(name + 403, ";", 2); /* "[Lpaaa...a;": an array class, named as it is */
	hw_begin(&w, "JAVA PROFILE 1.0.2", 8);
	hw_jdk_names(&w);
	hw_class_name(&w, 100, 0x301, name);
	hw_heap_begin(&w);
	hw_jdk_classes(&w);
	hw_jdk_class_roots(&w);
	hw_class_dump(&w, 0x301, J_OBJECT, 0, NULL, 0, NULL, 0, NULL, 0);
	hw_root(&w, HW_ROOT_JNI_GLOBAL, 0x5001, 0x9001, 0);
	hw_root(&w, HW_ROOT_JNI_GLOBAL, 0x5003, 0x9003, 0);
	hw_objarray(&w, 0x5001, 0x301, none, 0);
	hw_objarray(&w, 0x5003, 0x301, none, 0);
	char *path = hw_jdk_close(&w, "long-group.hprof");
	char args[900];
	snprintf(args, sizeof args, "'%s' --no-cache -q inspect '%s' zero-length-arrays -f csv", heapwalk(), path);
	int st;
	char *csv = run(args, &st);
	ck_assert_msg(st == 0 && strstr(csv, name) != NULL, "%s", csv); /* the command line's: whole */
	free(csv);
	snprintf(args, sizeof args, "--no-cache '%s'", path);
	term_start(&t, 160, 40, "", args);
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, "BTab"); /* Inspections */
	free(wait_for(&t, "zero-length-arrays"));
	keys(&t, "/");
	type(&t, "^zero-length-arrays");
	keys(&t, "Enter");
	free(wait_for(&t, "zero-length-arrays: Enter runs it"));
	keys(&t, "Enter");
	free(wait_for(&t, "[1 group]"));
	keys(&t, "Down");
	keys(&t, "v");
	char *s = wait_for(&t, "The cursor row, whole");
	char *inside = box_text(s);
	ck_assert_msg(strstr(inside, name) != NULL && strstr(inside, "...") == NULL, "the box holds '%s'", inside);
	has(inside, "objects:2");
	free(inside);
	free(s);
	keys(&t, "Escape");
	free(wait_without(&t, "[1 group]", "The cursor row, whole"));
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
	free(path);
}
END_TEST

static long vm_size_kb(pid_t pid)
{
	char path[64], line[256];
	long kb = -1;

	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL)
		if (strncmp(line, "VmSize:", 7) == 0)
			kb = atol(line + 7);
	fclose(f);
	return kb;
}

/* An allocation that fails while a key works (the address space capped
 * with prlimit under the running browser below what it uses, glibc told
 * to map every large block afresh: the first view that needs a large
 * array fails; the test goes through the views until one does) is not
 * hidden: the browser restores the terminal, says "heapwalk: out of
 * memory allocating N bytes" at the shell and ends with status 3, as
 * heapwalk(1) says. (A key refused for want of room is an answer that
 * keeps the session: test_refusal_is_an_answer.) */
START_TEST(test_oom_ends)
{
	static const char *const walk[] = { "Tab", "Tab", "Tab", "Tab", "Tab", "c", "Tab", "c", "Tab", "Tab" };
	struct term t;
	char dump[512], cmd[256];
	int found = 0;
	size_t k;

	/* a sanitizer build has its own allocator and reserves terabytes of
	 * address space: a cap makes it abort, by design */
	snprintf(cmd, sizeof cmd, "ulimit -v 200000; '%s' --version >/dev/null 2>&1", getenv("HEAPWALK"));
	if (system(cmd) != 0) {
		fprintf(stderr, "test_oom_ends: heapwalk does not start under ulimit -v "
			"(a sanitizer build): skipped\n");
		return;
	}
	if (system("command -v prlimit >/dev/null 2>&1") != 0) {
		fprintf(stderr, "test_oom_ends: no prlimit (util-linux): skipped\n");
		return;
	}
	ensure_dump("coops", "");
	copy_dump("oom.hprof", dump, sizeof dump); /* a name of its own: its process is found by it */
	term_shell(&t, 120, 30);
	/* big blocks mapped and unmapped one by one, never kept on a free
	 * list: each view's large arrays need new address space */
	type(&t, "unset GLIBC_TUNABLES; export MALLOC_MMAP_THRESHOLD_=65536");
	keys(&t, "Enter");
	shell_heapwalk(&t, dump);
	free(wait_for(&t, "Step 1: All objects"));
	/* the object graph is loaded at the first key that needs it: then
	 * the process is as big as a session gets before the views */
	keys(&t, "Tab");
	free(wait_for(&t, "dominator tree"));
	keys(&t, "BTab");
	free(wait_for(&t, "class  (sort"));
	pid_t pid = heapwalk_pid(dump);
	ck_assert_msg(pid > 0, "no heapwalk %s", dump);
	long kb = vm_size_kb(pid);
	ck_assert(kb > 0);
	snprintf(cmd, sizeof cmd, "prlimit --pid %d --as=%ld:", (int)pid, kb / 2 * 1024);
	ck_assert_msg(system(cmd) == 0, "%s", cmd);
	char *s = NULL;
	for (k = 0; k < sizeof walk / sizeof walk[0] && !found; k++) {
		keys(&t, walk[k]);
		for (int i = 0; i < 100; i++) { /* the view made, or the browser ended */
			free(s);
			s = screen(&t, 0);
			if ((strstr(s, "out of memory") != NULL || strstr(s, "\n[1 All objects]") != NULL) &&
			    settled(&t, s))
				break;
		}
		found = strstr(s, "heapwalk: out of memory allocating ") != NULL;
	}
	ck_assert_msg(found, "no key's work failed under the cap: %s", shown(s));
	free(s);
	type(&t, "echo rc=$?");
	keys(&t, "Enter");
	s = wait_for(&t, "\nrc=");
	has(s, "rc=3");
	lacks(s, "Step 1"); /* the browser's screen gone */
	free(s);
	s = term_modes(&t);
	ck_assert_msg(strcmp(s, "0 1") == 0, "terminal modes (alternate, cursor) %s", s);
	free(s);
	term_stop(&t);
	unlink(dump);
}
END_TEST

/* A set of 100000 objects lists 500 at a time; / finds an object far past
 * them, loading pages as it goes. Its id comes from the batch `objects`,
 * which lists the set in the same order. */
START_TEST(test_search_past_loaded)
{
	struct term t;
	char dump[512], cmd[1024], id[64];
	int st;

	ensure_dump("coops", "");
	snprintf(dump, sizeof dump, "%s/coops.hprof", DUMPS);
	snprintf(cmd, sizeof cmd, "%s -q -f csv -n 0 -e 'instances Workload$ChainNode' objects %s",
		 getenv("HEAPWALK"), dump);
	char *csv = run(cmd, &st);
	ck_assert_msg(st == 0, "%s", cmd);
	const char *p = csv;
	for (int line = 0; line <= 20001 && p != NULL; line++)
		p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
	ck_assert(p != NULL);
	snprintf(id, sizeof id, "%.*s", (int)strcspn(p, ","), p);
	free(csv);
	ck_assert_msg(strncmp(id, "0x", 2) == 0, "id: %s", id);
	term_start(&t, 100, 30, "", dump);
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, "f");
	type(&t, "ChainNode$");
	keys(&t, "Enter Enter");
	char *s = wait_for(&t, "Step 2: Instances of Workload$ChainNode");
	lacks(s, id);
	free(s);
	keys(&t, "/");
	type(&t, id);
	keys(&t, "Enter");
	s = wait_for(&t, "found after loading");
	char *row = line_of(s, id);
	ck_assert_msg(strstr(row, "Workload$ChainNode") != NULL, "no row of %s:\n%s", id, shown(s));
	free(row);
	free(s);
	/* a text no row has: searched to the end, then said */
	keys(&t, "/");
	type(&t, "no such row anywhere");
	keys(&t, "Enter");
	free(wait_for(&t, "not found: no such row anywhere"));
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
}
END_TEST

/* The workload's chain of 100000 nodes: the path to a GC root from its
 * last node (the one whose next is null) is 100000 rows, each a level
 * deeper. Closing the path's header hides every one of them; with a
 * depth kept in 16 bits, the rows past 65535 levels came back to the
 * top and stayed. */
START_TEST(test_long_path)
{
	struct term t;
	struct heap h;
	struct open_opts oo = { .quiet = 1 };
	struct sbuf err;
	char args[600], id[32], want[64];
	node_t last = HW_NONE;
	size_t nchain = 0;

	ensure_dump("coops", "");
	sbuf_init(&err);
	ck_assert_msg(heap_open(&h, DUMPS "/coops.hprof", &oo, NULL, &err) == 0, "%s", err.buf);
	heap_need(&h, HP_OUT | HP_NODES, NULL);
	for (node_t v = 1; v < h.n; v++) {
		if (strcmp(class_name(&h, h.node_class[v]), "Workload$ChainNode") != 0)
			continue;
		nchain++;
		int next = 0;
		for (edge_t e = h.out_start[v]; e < h.out_start[v + 1]; e++)
			next |= strcmp(class_name(&h, h.node_class[h.out[e]]), "Workload$ChainNode") == 0;
		if (!next) {
			ck_assert_msg(last == HW_NONE, "two ends of the chain");
			last = v;
		}
	}
	ck_assert_uint_eq(nchain, 100000);
	ck_assert(last != HW_NONE);
	snprintf(id, sizeof id, "0x%llx", (unsigned long long)heap_node_id(&h, last));
	heap_free(&h);
	sbuf_free(&err);

	snprintf(args, sizeof args, "%s/coops.hprof", DUMPS);
	term_start(&t, 100, 30, "", args);
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, "f");
	type(&t, "ChainNode$");
	keys(&t, "Enter Enter");
	free(wait_for(&t, "Step 2: Instances of Workload$ChainNode"));
	keys(&t, "Tab"); /* from the objects' fields to Incoming */
	free(wait_for(&t, "object / referrer .field"));
	keys(&t, "/");
	type(&t, id);
	keys(&t, "Enter");
	free(wait_for(&t, "found after loading")); /* the smallest retained: the last page */
	keys(&t, "r");
	char *s = wait_for(&t, "steps from a GC root");
	char *row = line_of(s, "path 1: ");
	unsigned long steps = strtoul(strstr(row, "path 1: ") + 8, NULL, 10);
	ck_assert_msg(steps >= 99999, "%s", row); /* every node of the chain, or all but the first */
	free(row);
	snprintf(want, sizeof want, "Workload$ChainNode %s", id);
	has(s, want);
	free(s);
	keys(&t, "Down -"); /* the header: closed */
	s = wait_for(&t, "+ path 1: ");
	/* the rows of path 1, up to the next path's header: a second path
	 * (found while the first was walked, its rows open) has its own */
	const char *from = strstr(s, "+ path 1: "), *to = strstr(from, "path 2: ");
	int n = 0;
	for (const char *p = s; (p = strstr(p, "Workload$ChainNode 0x")) != NULL && (to == NULL || p < to); p++)
		n++;
	ck_assert_msg(n == 1, "%d chain rows left under a closed path 1:\n%s", n, shown(s));
	free(s);
	keys(&t, "+ End"); /* open again, to the end: the GC root */
	s = wait_for(&t, "GC root");
	free(s);
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
}
END_TEST

/* z shows the null fields: the rows open before stay open, the cursor
 * stays on its row (it used to close everything). */
START_TEST(test_toggle_keeps_tree)
{
	struct term t;
	char dump[512];

	ensure_dump("coops", "");
	snprintf(dump, sizeof dump, "%s/coops.hprof", DUMPS);
	term_start(&t, 120, 30, "", dump);
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, "f");
	type(&t, "^java\\.util\\.HashMap$");
	keys(&t, "Enter Enter");
	free(wait_for(&t, "Step 2: Instances of java.util.HashMap"));
	keys(&t, "+");
	char *s = wait_for(&t, "table = [Ljava.util.HashMap$Node;");
	lacks(s, "= null");
	free(s);
	keys(&t, "Down Down");
	s = screen(&t, 0);
	free(s);
	keys(&t, "z");
	s = wait_for(&t, "null fields shown");
	has(s, "table = [Ljava.util.HashMap$Node;"); /* still open */
	has(s, "(nulls shown)");
	free(s);
	keys(&t, "z");
	s = wait_for(&t, "null fields hidden");
	has(s, "table = [Ljava.util.HashMap$Node;");
	free(s);
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
}
END_TEST

/* The exact retained size (bytes) of class `name` in the batch. */
static unsigned long long batch_exact(const char *dump, const char *name)
{
	char cmd[2400];
	int st;

	snprintf(cmd, sizeof cmd, "%s -q -f csv classes --exact '^%s$' --filter '^%s$' %s",
		 getenv("HEAPWALK"), name, name, dump);
	char *csv = run(cmd, &st);
	ck_assert_msg(st == 0, "%s", cmd);
	/* header, then class,instances,shallow,retained_lb,retained_exact */
	char *row = strchr(csv, '\n');
	ck_assert_msg(row != NULL && row[1], "%s", csv);
	char *last = strrchr(row + 1, ',');
	ck_assert(last != NULL);
	unsigned long long b = strtoull(last + 1, NULL, 10);
	free(csv);
	return b;
}

/* Sort by retained, E: the rows become exact ('='), in the order of
 * their exact sizes (the batch's --exact); after a step of all of one
 * class's instances, that class's row shows its exact size again. */
START_TEST(test_exact_sorted_and_kept)
{
	struct term t;
	char dump[512];

	ensure_dump("coops", "");
	snprintf(dump, sizeof dump, "%s/coops.hprof", DUMPS);
	term_start(&t, 120, 24, "", dump);
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, "s");
	free(wait_for(&t, "sort by: n name"));
	keys(&t, "r"); /* one key, no Enter */
	free(wait_for(&t, "(sort: retained)"));
	keys(&t, "E");
	char *s = wait_for(&t, "exact retained sizes computed");
	char *rows[32];
	size_t nr = view_rows(s, rows, 32);
	unsigned long long prev = ~0ull;
	size_t exact = 0;
	for (size_t i = 0; i < nr; i++) {
		if (strstr(rows[i], " = ") == NULL)
			continue;
		char *name = label_of(rows[i]);
		if (strchr(name, '.') == NULL && strchr(name, '$') == NULL && name[0] != '[') {
			free(name);
			continue;
		}
		char rx[256];
		size_t k = 0;
		for (const char *c = name; *c && k + 3 < sizeof rx; c++) { /* the name as a regex */
			if (strchr(".$[]()", *c))
				rx[k++] = '\\';
			rx[k++] = *c;
		}
		rx[k] = '\0';
		unsigned long long b = batch_exact(dump, rx);
		ck_assert_msg(b <= prev, "row %zu (%s, %llu B) is above a smaller exact row", i, name, b);
		prev = b;
		exact++;
		free(name);
	}
	ck_assert_msg(exact >= 5, "%zu exact rows:\n%s", exact, shown(s));
	for (size_t i = 0; i < nr; i++)
		free(rows[i]);
	char *session = line_of(s, "   Workload$ChainNode ");
	ck_assert_msg(strstr(session, " = ") != NULL, "%s", session);
	free(session);
	free(s);
	/* a step of every ChainNode; its classes view shows the figure again */
	keys(&t, "/");
	type(&t, "^Workload\\$ChainNode$");
	keys(&t, "Enter Enter");
	free(wait_for(&t, "Step 2: Instances of Workload$ChainNode"));
	keys(&t, "BTab BTab");
	s = wait_for(&t, "class  (sort: retained)"); /* the sort carried over */
	session = line_of(s, "   Workload$ChainNode ");
	ck_assert_msg(strstr(session, " = ") != NULL, "not exact after a step: %s", session);
	free(session);
	free(s);
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
}
END_TEST

/* Marks are the view's: the bottom line counts them, a step made of them
 * takes them away, and going back Enter uses the cursor's row. */
START_TEST(test_marks_go_when_used)
{
	struct term t;
	char dump[512];

	ensure_dump("coops", "");
	snprintf(dump, sizeof dump, "%s/coops.hprof", DUMPS);
	term_start(&t, 120, 24, "", dump);
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, "f");
	type(&t, "^Workload\\$(Empty|Mixed|OnlyBytes)$");
	keys(&t, "Enter");
	free(wait_without(&t, "Workload$Mixed", "filter (regex)"));
	keys(&t, "Space Space");
	char *s = wait_for(&t, "2 marked: Enter uses them");
	free(s);
	keys(&t, "Enter");
	s = wait_for(&t, "Step 2: Instances of 2 classes");
	lacks(s, "marked:");
	free(s);
	keys(&t, "Left");
	s = wait_for(&t, "Step 1: All objects");
	lacks(s, "marked:"); /* used: gone */
	lacks(s, "*  "); /* no row drawn as marked */
	free(s);
	keys(&t, "End Enter"); /* the last row, alone */
	s = wait_for(&t, "Step 2: Instances of Workload$");
	lacks(s, "2 classes");
	free(s);
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
}
END_TEST

/* The sample heap (test_graph.c has its dominators by hand): A holds B
 * by .next and C by .other, and D only through them (a transitive
 * reference); U is unreachable and E weakly reachable: their paths say
 * so instead of ending at a pseudo root. */
START_TEST(test_sample_tree_and_paths)
{
	struct term t;
	struct hw w;
	struct hw_sample at;

	hw_sample(&w, "JAVA PROFILE 1.0.2", 8, &at);
	char *path = hw_write(&w, "browser-sample.hprof", SIZE_MAX);
	hw_free(&w);
	char args[600];
	snprintf(args, sizeof args, "--no-cache %s", path);
	term_start(&t, 120, 30, "", args);
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, "Tab"); /* Biggest */
	char *s = wait_for(&t, "dominator tree");
	free(s);
	keys(&t, "/");
	type(&t, "^Node 0x1001");
	keys(&t, "Enter +");
	s = wait_for(&t, "Node 0x1003  .next");
	has(s, "Node 0x1005  .other");
	has(s, "Node 0x1007  [transitive reference]");
	free(s);
	/* U: unreachable */
	keys(&t, "Tab Tab"); /* Outgoing, Incoming */
	free(wait_for(&t, "object / referrer .field"));
	keys(&t, "/");
	type(&t, "^Node 0x100f");
	keys(&t, "Enter r");
	s = wait_for(&t, "paths to GC roots");
	has(s, "no GC root holds it (garbage");
	lacks(s, "path 1:");
	free(s);
	/* E: only through the WeakReference; w follows it */
	keys(&t, "r /");
	type(&t, "^Node 0x100d");
	keys(&t, "Enter r");
	s = wait_for(&t, "but through weak references: press w");
	free(s);
	keys(&t, "w");
	s = wait_for(&t, "path 1: 1 step from a GC root");
	has(s, "0x100b  .referent");
	free(s);
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
	free(path);
}
END_TEST

/* `heapwalk -e EXPR info`'s set_objects. */
static unsigned long long batch_count(const char *dump, const char *expr)
{
	char cmd[1024];
	int st;

	snprintf(cmd, sizeof cmd, "%s -q -f json -e '%s' info %s", getenv("HEAPWALK"), expr, dump);
	char *json = run(cmd, &st);
	ck_assert_msg(st == 0, "%s: %s", cmd, json);
	char *p = strstr(json, "\"set_objects\":");
	ck_assert(p != NULL);
	unsigned long long n = strtoull(p + 14, NULL, 10);
	free(json);
	return n;
}

/* Biggest by class: a class's row at the top of the step is a step the
 * expression "top | instances NAME" names (it had none past 1000
 * objects), and the batch counts as many; the use menu's class objects. */
START_TEST(test_top_groups_and_use_menu)
{
	struct term t;
	char dump[512], want[128];

	ensure_dump("coops", "");
	snprintf(dump, sizeof dump, "%s/coops.hprof", DUMPS);
	term_start(&t, 120, 30, "", dump);
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, "Tab c");
	char *s = wait_for(&t, "dominator tree, by class");
	char *row = line_of(s, " java.lang.String  (");
	unsigned long long n = strtoull(strstr(row, "  (") + 3, NULL, 10);
	ck_assert_msg(n > 1000, "%s", row);
	free(row);
	free(s);
	keys(&t, "/");
	type(&t, "^java\\.lang\\.String  \\(");
	keys(&t, "Enter Enter");
	s = wait_for(&t, "Step 2: Top objects of java.lang.String");
	snprintf(want, sizeof want, "|  %llu objects", n);
	has(s, want);
	free(s);
	keys(&t, "x");
	free(wait_for(&t, "heapwalk -e 'top | instances java.lang.String'"));
	keys(&t, "Escape");
	ck_assert_uint_eq(batch_count(dump, "top | instances java.lang.String"), n);
	/* u, c: the class objects of these objects' classes: one, String's */
	keys(&t, "u");
	free(wait_for(&t, "classes   the class objects of the set"));
	keys(&t, "c");
	s = wait_for(&t, "Step 3: Class objects of ");
	has(s, "|  1 object, ");
	free(s);
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
}
END_TEST

/* Merged incoming of the 200 sessions: their listeners, held by one
 * array; U on the array's row below the top gives the sessions reached
 * through it (the set's members), not the listeners. Dominating, t: the
 * dominator tree from the top down to the sessions; U on its top row
 * gives the 200 sessions again. */
START_TEST(test_merged_reached_and_down)
{
	struct term t;
	char dump[512];

	ensure_dump("coops", "");
	snprintf(dump, sizeof dump, "%s/coops.hprof", DUMPS);
	term_start(&t, 120, 30, "", dump);
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, "f");
	type(&t, "Session$");
	keys(&t, "Enter Enter");
	free(wait_for(&t, "Step 2: Instances of Workload$Session"));
	keys(&t, "Tab Tab Tab"); /* Outgoing -> Incoming -> Merged out -> Merged in */
	char *s = wait_for(&t, "merged incoming: class");
	has(s, "Workload$SessionListener");
	free(s);
	keys(&t, "+");
	s = wait_for(&t, "[Ljava.lang.Object;");
	char *row = line_of(s, "[Ljava.lang.Object;");
	ck_assert_msg(strstr(row, "     1 ") != NULL, "one array: %s", row);
	free(row);
	free(s);
	keys(&t, "Down U");
	s = wait_for(&t, "Step 3: Reached: 200 of the 200 objects");
	free(s);
	keys(&t, "BTab BTab BTab BTab BTab"); /* back to Classes: sessions only */
	s = wait_for(&t, "class  (sort:");
	row = line_of(s, "Workload$Session ");
	ck_assert_msg(strstr(row, " 200 ") != NULL, "%s", row);
	free(row);
	lacks(s, "Workload$SessionListener");
	free(s);
	keys(&t, "Left"); /* step 2, Merged in; Dominating next */
	free(wait_for(&t, "Step 2: Instances of Workload$Session"));
	keys(&t, "Tab t");
	s = wait_for(&t, "GC roots to objects: class");
	free(s);
	keys(&t, "U");
	s = wait_for(&t, "Step 3: Reached: 200 of the 200 objects");
	free(s);
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
}
END_TEST

Suite *browser_suite(void)
{
	Suite *s = suite_create("browser");
	TCase *tc = tcase_create("terminal");

	tcase_set_timeout(tc, FIXTURE_TIMEOUT);
	tcase_add_test(tc, test_long_names_80x24);
	tcase_add_test(tc, test_failure_contained);
	tcase_add_test(tc, test_search_past_loaded);
	tcase_add_test(tc, test_long_path);
	tcase_add_test(tc, test_toggle_keeps_tree);
	tcase_add_test(tc, test_exact_sorted_and_kept);
	tcase_add_test(tc, test_marks_go_when_used);
	tcase_add_test(tc, test_sample_tree_and_paths);
	tcase_add_test(tc, test_top_groups_and_use_menu);
	tcase_add_test(tc, test_merged_reached_and_down);
	tcase_add_test(tc, test_browser_open_dump_shrinks);
	tcase_add_test(tc, test_oom_ends);
	tcase_add_test(tc, test_refusal_is_an_answer);
	tcase_add_test(tc, test_cut_dump_said);
	tcase_add_test(tc, test_part_bar_short_of_whole);
	tcase_add_test(tc, test_row_whole_long_group);
	suite_add_tcase(s, tc);
	TCase *batch = tcase_create("batch");
	tcase_set_timeout(batch, FIXTURE_TIMEOUT);
	tcase_add_test(batch, test_batch_dump_shrinks);
	suite_add_tcase(s, batch);
	return s;
}
