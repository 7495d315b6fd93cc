/* helpers.c — what every suite may use: a command's output, a file's
 * bytes, the heapwalk under test, whether a program is installed. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "suites.h"
#include "util.h"

char *run(const char *cmd, int *status)
{
	FILE *f = popen(cmd, "r");
	struct sbuf sb;
	char buf[65536];
	size_t n;

	ck_assert_msg(f != NULL, "cannot run %s", cmd);
	sbuf_init(&sb);
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		sbuf_add(&sb, buf, n);
	*status = pclose(f);
	return sbuf_detach(&sb);
}

char *file_bytes(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	struct sbuf sb;
	char buf[65536];
	size_t k;

	ck_assert_msg(f != NULL, "cannot read %s", path);
	sbuf_init(&sb);
	while ((k = fread(buf, 1, sizeof buf, f)) > 0)
		sbuf_add(&sb, buf, k);
	fclose(f);
	*n = sb.len;
	return sbuf_detach(&sb);
}

const char *heapwalk(void)
{
	const char *hw = getenv("HEAPWALK");

	ck_assert_msg(hw != NULL, "HEAPWALK is not set (run through make check)");
	return hw;
}

int have(const char *prog)
{
	char cmd[256];
	int st;

	snprintf(cmd, sizeof cmd, "command -v %s", prog);
	char *out = run(cmd, &st);
	int ok = st == 0 && out[0] != '\0';
	free(out);
	return ok;
}

int build_in_tmp(const char *who, const char *what)
{
	static const char *const dirs[2][2] = { { TEST_BUILDDIR, "build" }, { TEST_SRCDIR, "source" } };
	char dir[PATH_MAX], tmp[PATH_MAX];

	if (realpath("/tmp", tmp) == NULL)
		return 0;
	size_t n = strlen(tmp);
	for (int i = 0; i < 2; i++) {
		if (realpath(dirs[i][0], dir) == NULL || strncmp(dir, tmp, n) != 0 || (dir[n] != '/' && dir[n] != '\0'))
			continue;
		fprintf(stderr, "%s: skipped: the tests' %s directory (%s) is under %s, which %s hides from the process\n",
			who, dirs[i][1], dir, tmp, what);
		return 1;
	}
	return 0;
}

double hang_seconds(double s)
{
	const char *m = getenv("CK_TIMEOUT_MULTIPLIER");
	double k = m != NULL && *m != '\0' ? strtod(m, NULL) : 1;

	return s * (k > 1 ? k : 1);
}

double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void end_child(pid_t pid)
{
	char sock[64];
	siginfo_t si;
	struct stat st;

	kill(pid, SIGKILL);
	/* dead but not reaped: its pid is no other process's yet, so the
	 * socket at its name is the one it left */
	while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0 && errno == EINTR)
		;
	snprintf(sock, sizeof sock, "/tmp/.java_pid%ld", (long)pid);
	if (lstat(sock, &st) == 0 && S_ISSOCK(st.st_mode))
		unlink(sock);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

void chain_found(const char *dump, const char *name, long length)
{
	char cmd[2048], want[512];
	int st;

	/* N one short of the length: the chain and its members */
	snprintf(cmd, sizeof cmd, "%s -q --no-cache inspect '%s' long-chains %ld -f csv 2>&1", heapwalk(), dump,
		 length - 1);
	char *out = run(cmd, &st);
	snprintf(want, sizeof want, ",\"%s: %ld objects from @", name, length);
	char *at = strstr(out, want), *row = at;
	ck_assert_msg(st == 0 && at != NULL, "%s: no group %s: %s", cmd, want + 2, out);
	while (row > out && row[-1] != '\n')
		row--;
	long objects = -1, len = -1;
	ck_assert_msg(sscanf(row, "%*u,%*[a-z],%ld,%*u,%ld,", &objects, &len) == 2, "%s", row);
	ck_assert_msg(objects == length && len == length, "%s: %ld objects, length %ld: %s", name, objects, len,
		      out);
	ck_assert_msg(strstr(at + 1, want) == NULL, "%s twice: %s", name, out);
	free(out);
	/* N the length: not longer than N */
	snprintf(cmd, sizeof cmd, "%s -q --no-cache inspect '%s' long-chains %ld -f csv 2>&1", heapwalk(), dump,
		 length);
	out = run(cmd, &st);
	snprintf(want, sizeof want, ",\"%s: ", name);
	ck_assert_msg(st == 0 && strstr(out, want) == NULL, "%s: %s", cmd, out);
	free(out);
}

long json_count(const char *json, const char *name)
{
	char key[64];

	snprintf(key, sizeof key, "\"%s\":", name);
	const char *p = strstr(json, key);
	ck_assert_msg(p != NULL, "%s: %s", name, json);
	return strtol(p + strlen(key), NULL, 10);
}
