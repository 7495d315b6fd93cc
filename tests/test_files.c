/* test_files.c — files an attacker can steer: the ':' prompt's history
 * file with symbolic links planted at its name and at its temporary
 * name, and in a directory others may write in or do not own; a gzip
 * dump's inflated copy planted by another user in a shared directory,
 * made by two first opens at once, and of a gzip file that is no dump. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "hprofw.h"
#include "suites.h"
#include "term.h"
#include "util.h"

#define V102 "JAVA PROFILE 1.0.2"

/* ---- the history file ---- */

/* A file's bytes and mode, to tell that nothing touched it. */
struct kept {
	char *bytes;
	size_t n;
	mode_t mode;
	uid_t uid;
};

static struct kept keep(const char *path)
{
	struct kept k;
	struct stat st;

	ck_assert_msg(lstat(path, &st) == 0 && S_ISREG(st.st_mode), "%s: no file", path);
	k.bytes = file_bytes(path, &k.n);
	k.mode = st.st_mode & 07777;
	k.uid = st.st_uid;
	return k;
}

static void unchanged(const char *path, struct kept *k)
{
	struct kept now = keep(path);

	ck_assert_msg(now.n == k->n && memcmp(now.bytes, k->bytes, k->n) == 0, "%s: its bytes changed (%zu, were %zu)",
		      path, now.n, k->n);
	ck_assert_msg(now.mode == k->mode, "%s: mode %o, was %o", path, (unsigned)now.mode, (unsigned)k->mode);
	ck_assert_uint_eq(now.uid, k->uid);
	free(now.bytes);
	free(k->bytes);
}

static void put(const char *path, const char *s, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	ck_assert_msg(fd >= 0 && write(fd, s, strlen(s)) == (ssize_t)strlen(s) && close(fd) == 0, "%s", path);
	ck_assert(chmod(path, mode) == 0);
}

/* The sample dump, written for these tests. */
static char *sample_dump(void)
{
	struct hw w;
	struct hw_sample s;

	hw_sample(&w, V102, 8, &s);
	char *path = hw_write(&w, "hist.hprof", SIZE_MAX);
	hw_free(&w);
	return path;
}

/* The screen once the prompt is open: its last line is ":". */
static char *prompt_screen(struct term *t)
{
	for (double end = now_seconds() + hang_seconds(30); now_seconds() < end;) {
		char *s = screen(t, 0);
		size_t n = strlen(s);
		while (n > 0 && s[n - 1] == '\n')
			n--;
		if (n > 0 && s[n - 1] == ':' && (n == 1 || s[n - 2] == '\n') && settled(t, s))
			return s;
		free(s);
		usleep(100000);
	}
	ck_abort_msg("the prompt never opened");
	return NULL;
}

/* The browser on dump with XDG_STATE_HOME=state: ':' opens the prompt
 * (the history is read then; before() runs first, given the browser's
 * pid), a step that runs is typed, and q. The screen with the prompt
 * open (its note above it). */
static char *prompt_once(const char *dump, const char *state, void (*before)(long pid, void *arg), void *arg)
{
	struct term t;
	char env[600];
	int st;

	snprintf(env, sizeof env, "XDG_STATE_HOME=%s", state);
	term_start(&t, 120, 24, env, dump);
	free(wait_for(&t, "Step 1: All objects"));
	if (before != NULL) {
		/* its pid, only read: its command line is exactly "$HEAPWALK dump" */
		char *cmd = xasprintf("pgrep -x -f '%s %s'", heapwalk(), dump);
		char *out = run(cmd, &st);
		long pid = strtol(out, NULL, 10);
		ck_assert_msg(st == 0 && pid > 0 && strchr(out, '\n') == strrchr(out, '\n'), "%s: %s", cmd, out);
		before(pid, arg);
		free(out);
		free(cmd);
	}
	keys(&t, ":");
	char *s = prompt_screen(&t);
	type(&t, "instances Node");
	keys(&t, "Enter");
	free(wait_for(&t, "Step 2: "));
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
	return s;
}

static void plant_tmp(long pid, void *arg)
{
	const char *const *a = arg; /* the history, the link's target */
	char *tmp = xasprintf("%s.%ld", a[0], pid);

	ck_assert(symlink(a[1], tmp) == 0);
	free(tmp);
}

/* A symbolic link at the history's name (to a file of the user's, mode
 * 0644): not followed, not used, said once on the prompt's line; the
 * file it names keeps its bytes and mode. A history of more than twice
 * the lines kept is rewritten through a temporary file: a link planted
 * at the name that used to be its (history.PID) is not followed either,
 * and the history is then a file of the last 1000 lines and the new
 * one, mode 0600, nothing else left in its directory. */
START_TEST(test_history_symlinks)
{
	char *dump = sample_dump();
	char *state = xasprintf("%s/state", hw_tmpdir()), *dir = xasprintf("%s/heapwalk", state);
	char *hist = xasprintf("%s/history", dir), *target = xasprintf("%s/precious.txt", hw_tmpdir());

	ck_assert(mkdir(state, 0700) == 0 && mkdir(dir, 0700) == 0);
	put(target, "precious\n", 0644);
	struct kept k = keep(target);
	ck_assert(symlink(target, hist) == 0);
	char *s = prompt_once(dump, state, NULL, NULL);
	unchanged(target, &k);
	struct stat st;
	ck_assert(lstat(hist, &st) == 0 && S_ISLNK(st.st_mode));
	char *note = line_of(s, "history");
	ck_assert_msg(strstr(note, "history not used (") != NULL && strstr(note, "a symbolic link") != NULL,
		      "%s", shown(s));
	free(note);
	free(s);

	/* the rewrite's temporary file */
	ck_assert(unlink(hist) == 0);
	struct sbuf lines;
	sbuf_init(&lines);
	for (int i = 0; i < 2001; i++)
		sbuf_printf(&lines, "instances Line%d\n", i);
	put(hist, lines.buf, 0600);
	k = keep(target);
	const char *arg[] = { hist, target };
	free(prompt_once(dump, state, plant_tmp, (void *)arg));
	unchanged(target, &k);
	ck_assert(lstat(hist, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600);
	size_t n;
	char *h = file_bytes(hist, &n);
	int count = 0;
	for (size_t i = 0; i < n; i++)
		count += h[i] == '\n';
	ck_assert_int_eq(count, 1001);
	ck_assert_msg(strncmp(h, "instances Line1001\n", 19) == 0, "%.40s", h);
	ck_assert_msg(n > 15 && strcmp(h + n - 15, "instances Node\n") == 0, "%s", h + n - 15);
	free(h);
	char *ls = xasprintf("ls -A '%s' | grep -v '^history$' | grep -v '^history\\.[0-9]*$' | wc -l", dir);
	int status;
	char *left = run(ls, &status);
	ck_assert_msg(strcmp(left, "0\n") == 0, "files left beside the history: %s", left);
	free(left);
	free(ls);
	sbuf_free(&lines);
	free(dump);
	free(state);
	free(dir);
	free(hist);
	free(target);
}
END_TEST

/* A history directory that others may write in (group-writable), or (as
 * root) one of another user: the history in it is neither read nor
 * appended to, and the prompt says why. */
START_TEST(test_history_dir_untrusted)
{
	char *dump = sample_dump();
	char *state = xasprintf("%s/state", hw_tmpdir()), *dir = xasprintf("%s/heapwalk", state);
	char *hist = xasprintf("%s/history", dir);

	ck_assert(mkdir(state, 0700) == 0 && mkdir(dir, 0700) == 0);
	put(hist, "instances Planted\n", 0600);
	for (int round = 0; round < 2; round++) {
		if (round == 0) {
			ck_assert(chmod(dir, 0770) == 0);
		} else {
			ck_assert(chmod(dir, 0700) == 0);
			if (geteuid() != 0) {
				fprintf(stderr, "test_history_dir_untrusted: not root: no directory of another user\n");
				break;
			}
			ck_assert(chown(dir, 65534, 65534) == 0);
		}
		struct kept k = keep(hist);
		char *s = prompt_once(dump, state, NULL, NULL);
		unchanged(hist, &k);
		char *note = line_of(s, "history not used (");
		ck_assert_msg(strstr(note, round == 0 ? "writable by others" : "owned by another user") != NULL, "%s",
			      shown(s));
		free(note);
		free(s);
	}
	free(dump);
	free(state);
	free(dir);
	free(hist);
}
END_TEST

/* ---- a gzip dump's inflated copy ---- */

/* The dump of the gzip tests: instances of three classes, by count
 * (150000, 100000, 50000; 29 bytes each: 8.7 MB), each with an int. */
static const struct { const char *name; uint64_t cid; unsigned count; } big_classes[] = {
	{ "t/A", 0x3001, 150000 }, { "t/B", 0x3011, 100000 }, { "t/C", 0x3021, 50000 },
};

/* dir/name (plain) and dir/name.gz (one member, zlib's gzip), made by
 * the test's own writer; the .gz's path (caller frees). */
static char *big_dump(const char *dir, const char *name)
{
	struct hw w;
	static const struct hw_field f[] = { { 0x901, 10, 0 } };
	uint64_t id = 0x100001;

	hw_begin(&w, V102, 8);
	hw_utf8(&w, 0x901, "n");
	hw_class_name(&w, 1, 0x2001, "java/lang/Object");
	for (unsigned k = 0; k < 3; k++)
		hw_class_name(&w, 2 + k, big_classes[k].cid, big_classes[k].name);
	hw_heap_begin(&w);
	hw_class_dump(&w, 0x2001, 0, 0, NULL, 0, NULL, 0, NULL, 0);
	for (unsigned k = 0; k < 3; k++)
		hw_class_dump(&w, big_classes[k].cid, 0x2001, 0, NULL, 0, NULL, 0, f, 1);
	for (unsigned k = 0; k < 3; k++)
		for (unsigned i = 0; i < big_classes[k].count; i++, id += 2) {
			const struct hw_field v[] = { { 0, 10, i } };
			hw_instance(&w, id, big_classes[k].cid, v, 1);
		}
	hw_heap_end(&w);
	hw_dump_end(&w);
	free(hw_write_in(&w, dir, name, SIZE_MAX));
	char *gz = xasprintf("%s/%s.gz", dir, name);
	gzFile g = gzopen(gz, "wb6");
	ck_assert(g != NULL);
	for (size_t at = 0; at < w.b.len; at += 1 << 20) {
		unsigned n = (unsigned)(w.b.len - at < (1u << 20) ? w.b.len - at : 1u << 20);
		ck_assert(gzwrite(g, w.b.buf + at, n) == (int)n);
	}
	ck_assert(gzclose(g) == Z_OK);
	hw_free(&w);
	return gz;
}

/* `heapwalk ARGS` with env before it: its standard output, its standard
 * error in *errs (caller frees both), its exit status in *status. */
static char *hw_run(const char *env, const char *args, char **errs, int *status)
{
	char *ef = xasprintf("%s/stderr-%d", hw_tmpdir(), (int)getpid());
	char *cmd = xasprintf("env %s '%s' %s 2>'%s'", env, heapwalk(), args, ef);
	char *out = run(cmd, status);
	size_t n;

	*errs = file_bytes(ef, &n);
	unlink(ef);
	free(ef);
	free(cmd);
	return out;
}

/* The class histogram of the plain dump, checked against what the
 * writer wrote: each class's row has its count. */
static char *want_classes(const char *plain)
{
	int st;
	char *errs, *args = xasprintf("--no-cache classes '%s'", plain);
	char *out = hw_run("", args, &errs, &st);

	ck_assert_msg(st == 0 && *errs == '\0', "%s", errs);
	for (unsigned k = 0; k < 3; k++) {
		char row[32];
		snprintf(row, sizeof row, "\nt.%s ", big_classes[k].name + 2);
		const char *r = strstr(out, row);
		unsigned long long n = 0;
		ck_assert_msg(r != NULL && sscanf(r + strlen(row), "%llu", &n) == 1 && n == big_classes[k].count,
			      "%s: %llu instances, not %u:\n%s", row + 1, n, big_classes[k].count, out);
	}
	free(errs);
	free(args);
	return out;
}

/* Files in dir whose name holds part ("" when none); caller frees. */
static char *files_named(const char *dir, const char *part)
{
	int st;
	char *cmd = xasprintf("ls -A '%s' 2>/dev/null | grep -F -- '%s' || true", dir, part);
	char *out = run(cmd, &st);

	free(cmd);
	return out;
}

/* Two first opens of one gzip dump at once (`heapwalk classes`), five
 * times over: both print the plain dump's class histogram, without a
 * warning, and a third open (from the cache and the copy) too. Before,
 * the two shared one temporary name: the second removed the first's
 * file, the first renamed the second's half-written file into place
 * and read it, the second then found nothing to rename. The race was
 * likely, not certain; the lock on the copy makes the outcome certain
 * (one inflates, the other waits and uses its copy). Then a copy cut
 * short with its time kept, and a symbolic link in its place, are made
 * again (the link's target untouched). */
START_TEST(test_copy_two_first_opens)
{
	const char *dir = hw_tmpdir();
	char *gz = big_dump(dir, "race.hprof"), *plain = xasprintf("%s/race.hprof", dir);
	char *want = want_classes(plain);
	char *xdg = xasprintf("XDG_CACHE_HOME='%s/xdg'", dir);
	int st;

	for (int round = 0; round < 5; round++) {
		char *rm = xasprintf("rm -f '%s'.?* '%s'/xdg/heapwalk/*", gz, dir);
		ck_assert(system(rm) == 0);
		char *both = xasprintf("env %s sh -c '\"$0\" classes %s >%s/o1 2>%s/e1 & "
				       "\"$0\" classes %s >%s/o2 2>%s/e2; wait' '%s'",
				       xdg, gz, dir, dir, gz, dir, dir, heapwalk());
		ck_assert(system(both) == 0);
		for (int k = 1; k <= 2; k++) {
			char *o = xasprintf("%s/o%d", dir, k), *e = xasprintf("%s/e%d", dir, k);
			size_t n;
			char *out = file_bytes(o, &n), *errs = file_bytes(e, &n);
			ck_assert_msg(strcmp(out, want) == 0 && *errs == '\0', "round %d, open %d:\n%s\n%s", round, k,
				      errs, out);
			free(out);
			free(errs);
			free(o);
			free(e);
		}
		free(both);
		free(rm);
	}
	char *errs, *args = xasprintf("classes '%s'", gz);
	char *out = hw_run(xdg, args, &errs, &st);
	ck_assert_msg(st == 0 && strcmp(out, want) == 0 && *errs == '\0', "%s\n%s", errs, out);
	free(out);
	free(errs);

	/* the copy cut short, its time kept: not taken for the copy; the
	 * temporary file of a run killed while it made one is removed */
	char *copy = xasprintf("%s.inflated", gz), *stale = xasprintf("%s.inflating.4194002.AbC123", gz);
	put(stale, "x", 0600);
	struct stat cs;
	ck_assert(stat(copy, &cs) == 0 && cs.st_size > 8000000);
	ck_assert(truncate(copy, cs.st_size / 2) == 0);
	struct timespec t[2] = { cs.st_atim, cs.st_mtim };
	ck_assert(utimensat(AT_FDCWD, copy, t, 0) == 0);
	out = hw_run(xdg, args, &errs, &st);
	ck_assert_msg(st == 0 && strcmp(out, want) == 0 && *errs == '\0', "%s\n%s", errs, out);
	ck_assert(stat(copy, &cs) == 0 && cs.st_size > 8000000);
	ck_assert(lstat(stale, &cs) < 0 && errno == ENOENT);
	free(stale);
	free(out);
	free(errs);
	/* a symbolic link in its place, to a file of the same time */
	char *target = xasprintf("%s/precious.txt", dir);
	put(target, "precious\n", 0644);
	ck_assert(utimensat(AT_FDCWD, target, t, 0) == 0);
	struct kept k = keep(target);
	ck_assert(unlink(copy) == 0 && symlink(target, copy) == 0);
	out = hw_run(xdg, args, &errs, &st);
	ck_assert_msg(st == 0 && strcmp(out, want) == 0 && *errs == '\0', "%s\n%s", errs, out);
	unchanged(target, &k);
	ck_assert(lstat(copy, &cs) == 0 && S_ISREG(cs.st_mode));
	free(out);
	free(errs);
	free(target);
	free(copy);
	free(args);
	free(xdg);
	free(want);
	free(plain);
	free(gz);
}
END_TEST

/* A gzip dump in a shared sticky directory (as /tmp) where another user
 * (root here) has planted DUMP.gz.inflated and its old temporary name
 * DUMP.gz.inflated.tmp: its owner (nobody here) opens it all the same,
 * with the plain dump's class histogram, first and from the cache; the
 * copy is made in the private cache directory, and the planted files are
 * left as they were. Before, the first open failed: "cannot remove:
 * Operation not permitted". */
START_TEST(test_copy_planted_in_shared_dir)
{
	if (geteuid() != 0) {
		fprintf(stderr, "test_copy_planted_in_shared_dir: not root: cannot run as another user\n");
		return;
	}
	/* under /tmp: the build tree's directories may be closed to others */
	char top[] = "/tmp/hwfiles-XXXXXX";
	ck_assert(mkdtemp(top) != NULL && chmod(top, 0755) == 0);
	char *shared = xasprintf("%s/shared", top), *home = xasprintf("%s/home", top);
	ck_assert(mkdir(shared, 01777) == 0 && chmod(shared, 01777) == 0);
	ck_assert(mkdir(home, 0700) == 0 && chown(home, 65534, 65534) == 0);
	char *prog = xasprintf("%s/heapwalk", top), *cp = xasprintf("cp '%s' '%s'", heapwalk(), prog);
	ck_assert(system(cp) == 0);
	char *gz = big_dump(shared, "shared.hprof"), *plain = xasprintf("%s/shared.hprof", shared);
	char *want = want_classes(plain);
	ck_assert(chown(gz, 65534, 65534) == 0 && chmod(gz, 0644) == 0);
	char *planted = xasprintf("%s.inflated", gz), *planted_tmp = xasprintf("%s.inflated.tmp", gz);
	put(planted, "planted\n", 0644);
	put(planted_tmp, "planted too\n", 0644);
	struct kept k1 = keep(planted), k2 = keep(planted_tmp);
	char *cmd = xasprintf("setpriv --reuid=65534 --regid=65534 --clear-groups env -u XDG_CACHE_HOME HOME='%s' "
			      "'%s' classes '%s' 2>&1", home, prog, gz);
	for (int i = 0; i < 2; i++) { /* made, then from the cache */
		int st;
		char *out = run(cmd, &st);
		ck_assert_msg(st == 0 && strcmp(out, want) == 0, "open %d, status %d:\n%s", i, st, out);
		free(out);
	}
	unchanged(planted, &k1);
	unchanged(planted_tmp, &k2);
	char *priv = xasprintf("%s/.cache/heapwalk", home);
	char *copies = files_named(priv, "shared.hprof.gz.inflated");
	ck_assert_msg(strstr(copies, "-shared.hprof.gz.inflated\n") != NULL, "%s: %s", priv, copies);
	free(copies);
	char *rm = xasprintf("rm -rf '%s'", top);
	ck_assert(system(rm) == 0);
	free(rm);
	free(priv);
	free(cmd);
	free(planted);
	free(planted_tmp);
	free(want);
	free(plain);
	free(gz);
	free(prog);
	free(cp);
	free(shared);
	free(home);
}
END_TEST

/* ---- a gzip file that is no dump ---- */

/* `heapwalk classes gz` (XDG_CACHE_HOME=xdg) refused or cut in one line
 * naming it, holding `what`; exit status not 0 when refused. Then no
 * copy of it, nor its temporary file or lock, in its directory or the
 * private one. */
static void one_line_no_copy(const char *gz, const char *xdg, const char *limit, int refused, const char *what)
{
	int st;
	char *env = xasprintf("XDG_CACHE_HOME='%s'", xdg);
	/* bash: ulimit -f counts KiB; SIGXFSZ ignored, a write past it fails */
	char *cmd = xasprintf("bash -c \"trap '' XFSZ; ulimit -f %s; exec env %s '%s' classes '%s'\" 2>&1 >/dev/null",
			      limit, env, heapwalk(), gz);
	char *out = run(cmd, &st);
	const char *slash = strrchr(gz, '/');
	char *dir = xstrndup(gz, (size_t)(slash - gz)), *pd = xasprintf("%s/heapwalk", xdg);

	ck_assert_msg(refused ? st != 0 : st == 0, "status %d: %s", st, out);
	ck_assert_msg(strstr(out, slash + 1) != NULL && strstr(out, what) != NULL, "%s", out);
	ck_assert_msg(strchr(out, '\n') == out + strlen(out) - 1, "not one line: %s", out);
	for (int k = 0; k < 2; k++) {
		const char *d = k == 0 ? dir : pd;
		char *a = files_named(d, "inflat"), *b = files_named(d, ".lock");
		ck_assert_msg(*a == '\0' && *b == '\0', "left in %s: %s%s", d, a, b);
		free(a);
		free(b);
	}
	free(pd);
	free(dir);
	free(out);
	free(cmd);
	free(env);
}

/* A gzip bomb, 300 MB of zeros in 300 kB, is refused at its first bytes
 * in one line naming it, and nothing of it is written (a file size
 * limit of 20 MB shows it: the copy would fail there, with another
 * message). A gzip of an HPROF header and then garbage is cut there,
 * with one warning, and its copy (of nothing) is not kept. Before, the
 * bomb's copy was made whole (here: "cannot write: File too large") and
 * either copy left behind. */
START_TEST(test_gzip_not_a_dump)
{
	int st;
	char *dir = xasprintf("%s/bombs", hw_tmpdir()), *xdg = xasprintf("%s/xdg", hw_tmpdir());
	char *bomb = xasprintf("%s/bomb.gz", dir);

	ck_assert(mkdir(dir, 0755) == 0);
	char *cmd = xasprintf("head -c 300M /dev/zero | gzip -1 > '%s'", bomb);
	ck_assert(system(cmd) == 0);
	free(cmd);
	struct stat gs;
	ck_assert(stat(bomb, &gs) == 0 && gs.st_size < 2000000);
	one_line_no_copy(bomb, xdg, "20480", 1, "bomb.gz: offset 0: not a heap dump heapwalk reads");

	/* the header, then 1 MB of 0xa0: a record of tag 0xa0 running past the end */
	struct hw w;
	hw_begin(&w, V102, 8);
	for (int i = 0; i < 1 << 20; i++)
		hw_u1(&w, 0xa0);
	char *garbage = xasprintf("%s/garbage.hprof.gz", dir);
	gzFile g = gzopen(garbage, "wb6");
	ck_assert(g != NULL && gzwrite(g, w.b.buf, (unsigned)w.b.len) == (int)w.b.len && gzclose(g) == Z_OK);
	one_line_no_copy(garbage, xdg, "unlimited", 0, "offset 31: record (tag 0xa0)");
	char *ls = files_named(dir, "garbage");
	ck_assert_msg(strstr(ls, "garbage.hprof.gz\n") != NULL, "%s", ls);
	free(ls);
	(void)st;
	hw_free(&w);
	free(garbage);
	free(bomb);
	free(dir);
	free(xdg);
}
END_TEST

/* A copy that would not fit in the free space of its directory (a tmpfs
 * of 4 MB) is refused in one line, "DUMP: the inflated copy needs N MB;
 * M MB free in DIR", N the dump's size in MB; nothing is left there.
 * Before, the copy filled the file system and failed ("No space left on
 * device"). */
START_TEST(test_copy_no_room)
{
	if (geteuid() != 0) {
		fprintf(stderr, "test_copy_no_room: not root: cannot mount a small file system, skipped\n");
		return;
	}
	char *mnt = xasprintf("%s/mnt", hw_tmpdir()), *xdg = xasprintf("%s/xdg", hw_tmpdir());
	ck_assert(mkdir(mnt, 0755) == 0);
	/* the dump first: from the mount to the umount no check can fail
	 * and leave the tmpfs mounted (a disk full made big_dump's fail) */
	char *gz0 = big_dump(hw_tmpdir(), "room.hprof"), *plain = xasprintf("%s/room.hprof", hw_tmpdir());
	char *mount = xasprintf("mount -t tmpfs -o size=4m,mode=0755 tmpfs '%s' 2>/dev/null", mnt);
	if (system(mount) != 0) {
		fprintf(stderr, "test_copy_no_room: cannot mount a tmpfs here, skipped\n");
		free(mount);
		free(mnt);
		free(xdg);
		free(gz0);
		free(plain);
		return;
	}
	char *gz = xasprintf("%s/room.hprof.gz", mnt), *cp = xasprintf("cp '%s' '%s'", gz0, gz);
	int cp_rc = system(cp), st;
	char *errs = NULL, *args = xasprintf("classes '%s'", gz), *env = xasprintf("XDG_CACHE_HOME='%s'", xdg);
	char *out = cp_rc == 0 ? hw_run(env, args, &errs, &st) : NULL;
	char *ls = files_named(mnt, "");
	char *umount = xasprintf("umount '%s'", mnt);
	ck_assert(system(umount) == 0); /* before a check can fail */
	ck_assert(cp_rc == 0);
	struct stat ps;
	ck_assert(stat(plain, &ps) == 0);
	unsigned long long need = 0, avail = 0;
	char where[512] = "", *want = xasprintf("heapwalk: %s: the inflated copy needs ", gz);
	ck_assert_msg(st != 0 && strncmp(errs, want, strlen(want)) == 0 &&
			      sscanf(errs + strlen(want), "%llu MB; %llu MB free in %511s", &need, &avail, where) == 3,
		      "status %d: %s", st, errs);
	ck_assert_msg(need == ((unsigned long long)ps.st_size + (1 << 20) - 1) >> 20 && avail < need && avail < 4 &&
			      strcmp(where, mnt) == 0 && strchr(errs, '\n') == errs + strlen(errs) - 1,
		      "%s", errs);
	ck_assert_str_eq(out, "");
	ck_assert_msg(strcmp(ls, "room.hprof.gz\n") == 0, "left: %s", ls);
	free(want);
	free(umount);
	free(ls);
	free(out);
	free(env);
	free(args);
	free(errs);
	free(cp);
	free(gz);
	free(plain);
	free(gz0);
	free(mount);
	free(mnt);
	free(xdg);
}
END_TEST

Suite *files_suite(void)
{
	Suite *s = suite_create("files");
	TCase *tc = tcase_create("files");

	tcase_set_timeout(tc, FIXTURE_TIMEOUT);
	tcase_add_test(tc, test_history_symlinks);
	tcase_add_test(tc, test_history_dir_untrusted);
	tcase_add_test(tc, test_copy_two_first_opens);
	tcase_add_test(tc, test_copy_planted_in_shared_dir);
	tcase_add_test(tc, test_gzip_not_a_dump);
	tcase_add_test(tc, test_copy_no_room);
	suite_add_tcase(s, tc);
	return s;
}
