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
	for (int i = 0; i < 300; i++) {
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

Suite *files_suite(void)
{
	Suite *s = suite_create("files");
	TCase *tc = tcase_create("files");

	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_history_symlinks);
	tcase_add_test(tc, test_history_dir_untrusted);
	suite_add_tcase(s, tc);
	return s;
}
