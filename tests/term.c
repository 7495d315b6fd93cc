/* term.c — heapwalk in a real terminal for the tests: tmux runs it at
 * a fixed size, keys are sent as a user types them, the screen's text is
 * captured and searched. */
#include "term.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <check.h>

#include "hprofw.h"
#include "suites.h"
#include "util.h"

char *run_out(const char *cmd)
{
	int status;

	return run(cmd, &status);
}

const char *tmux(void)
{
	const char *t = getenv("TMUX_BIN");

	if (t == NULL || *t == '\0')
		t = "tmux";
	return t;
}

void tmuxf(struct term *t, const char *fmt, ...)
{
	char args[2048], cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof cmd, "env -u TMUX %s -L %s %s", tmux(), t->sock, args);
	ck_assert_msg(system(cmd) == 0, "failed: %s", cmd);
}

/* A test that fails ends its process (Check forks one a test, and a
 * failure leaves it at once) before its term_stop: its tmux server and
 * heapwalk ran on for their 300 s, a process of the same command line
 * that the next tests' checks for theirs then saw (test_suspend_key
 * failed after any failure before it). Before a test starts its own,
 * the servers of tests that are gone are stopped: a socket of the name
 * term_start or term_shell gives ("hwtest-PID-N", "hwshell-PID-N") in
 * tmux's directory, PID no process now. */
/* The directory of tmux's sockets, as tmux makes it. */
static void sock_dir(char *dir, size_t n)
{
	const char *base = getenv("TMUX_TMPDIR");

	snprintf(dir, n, "%s/tmux-%u", base != NULL && *base ? base : "/tmp", (unsigned)getuid());
}

/* Does a server listen on the socket at path? */
static int sock_alive(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), up;

	if (fd < 0 || strlen(path) >= sizeof a.sun_path) {
		if (fd >= 0)
			close(fd);
		return 1; /* cannot tell: as if it were */
	}
	memcpy(a.sun_path, path, strlen(path) + 1);
	up = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
	close(fd);
	return up;
}

/* Our server on sock stopped, and its socket file gone: a server that
 * ends leaves its file, and stop_orphans went through every one left by
 * every test before (a tmux spawned for each: a thousand of them made
 * each terminal test seconds slower, the suites many minutes). */
static void kill_server(const char *sock)
{
	char cmd[1200], dir[600], path[700];

	sock_dir(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/%s", dir, sock);
	if (sock_alive(path)) {
		snprintf(cmd, sizeof cmd, "%s -L %s kill-server 2>/dev/null", tmux(), sock);
		if (system(cmd) != 0) { /* gone already: fine */
		}
	}
	unlink(path);
}

/* The servers of tests that are gone (hwtest-PID-N, hwshell-PID-N: ours
 * by name, PID no process now): stopped, and their files let go. */
static void stop_orphans(void)
{
	char dir[600];

	sock_dir(dir, sizeof dir);
	DIR *d = opendir(dir);
	if (d == NULL)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		const char *p = strncmp(e->d_name, "hwtest-", 7) == 0 ? e->d_name + 7
				: strncmp(e->d_name, "hwshell-", 8) == 0 ? e->d_name + 8 : NULL;
		char *end;
		long pid = p != NULL ? strtol(p, &end, 10) : 0;
		if (pid > 1 && *end == '-' && kill((pid_t)pid, 0) < 0 && errno == ESRCH)
			kill_server(e->d_name);
	}
	closedir(d);
}

/* heapwalk ARGS in a cols x rows terminal, with ENV before it. A
 * script runs it and writes its exit status to a file; heapwalk has 300
 * s at most (times CK_TIMEOUT_MULTIPLIER), so a failed test leaves no terminal behind for long (the
 * server ends with its one session). */
void term_start(struct term *t, int cols, int rows, const char *env, const char *args)
{
	static int seq;
	const char *hw = getenv("HEAPWALK");
	char script[512];
	const char *dir = hw_tmpdir();

	ck_assert_msg(hw != NULL, "HEAPWALK is not set (run through make check)");
	snprintf(t->sock, sizeof t->sock, "hwtest-%d-%d", (int)getpid(), seq);
	snprintf(t->status, sizeof t->status, "%s/status-%d", dir, seq);
	unlink(t->status); /* none of an earlier process that had this pid */
	snprintf(script, sizeof script, "%s/run-%d.sh", dir, seq++);
	int life = (int)hang_seconds(300);
	FILE *f = fopen(script, "w");
	ck_assert(f != NULL);
	/* the script outlives a hangup, to write the status */
	fprintf(f, "trap '' HUP\n"
		   "env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=xterm-256color %s timeout --foreground %d %s %s\n"
		   "echo $? > %s.tmp && mv %s.tmp %s\n", env, life, hw, args, t->status, t->status, t->status);
	fclose(f);
	stop_orphans();
	tmuxf(t, "-f /dev/null new-session -d -s hw -x %d -y %d 'sh %s'", cols, rows, script);
}

void term_stop(struct term *t)
{
	kill_server(t->sock);
}

void term_shell(struct term *t, int cols, int rows)
{
	static int seq;

	stop_orphans();
	snprintf(t->sock, sizeof t->sock, "hwshell-%d-%d", (int)getpid(), seq++);
	t->status[0] = '\0';
	/* --foreground: bash takes the terminal and makes its jobs' groups;
	 * HUP: an interactive bash ignores TERM, and on HUP ends its jobs */
	tmuxf(t, "-f /dev/null new-session -d -s hw -x %d -y %d "
		 "'env PS1=\"$ \" HISTFILE=/dev/null timeout --foreground -k 10 -s HUP 300 bash --norc --noprofile -i'",
	      cols, rows);
	free(wait_for(t, "$")); /* "$ ", its blank cut by capture-pane */
}

void shell_heapwalk(struct term *t, const char *args)
{
	const char *hw = getenv("HEAPWALK");
	char line[1024];

	ck_assert_msg(hw != NULL, "HEAPWALK is not set (run through make check)");
	/* env execs heapwalk: its command line is "$HEAPWALK args" */
	snprintf(line, sizeof line, "env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=xterm-256color %s %s", hw, args);
	type(t, line);
	keys(t, "Enter");
}

void signal_heapwalk(const char *sig, const char *args)
{
	char cmd[1024];

	snprintf(cmd, sizeof cmd, "pkill -%s -f '^%s %s$'", sig, getenv("HEAPWALK"), args);
	ck_assert_msg(system(cmd) == 0, "%s found no process", cmd);
}

char *term_modes(struct term *t)
{
	char cmd[256];

	snprintf(cmd, sizeof cmd, "%s -L %s display -p -t hw '#{alternate_on} #{cursor_flag}' 2>/dev/null", tmux(), t->sock);
	char *s = run_out(cmd), *nl = strchr(s, '\n');
	if (nl != NULL)
		*nl = '\0';
	return s;
}

char *screen(struct term *t, int escapes)
{
	char cmd[256];

	/* no server: heapwalk has ended; the caller sees an empty screen */
	snprintf(cmd, sizeof cmd, "%s -L %s capture-pane -p %s -t hw 2>/dev/null", tmux(), t->sock,
		 escapes ? "-e" : "");
	return run_out(cmd);
}

void keys(struct term *t, const char *k)
{
	tmuxf(t, "send-keys -t hw %s", k);
}

void type(struct term *t, const char *text)
{
	tmuxf(t, "send-keys -l -t hw '%s'", text);
}

/* A screen for a failure message: blank runs squeezed, and cut, since
 * Check carries at most a few kB of message. */
const char *shown(const char *s)
{
	static char buf[3000];
	size_t n = 0;

	for (const char *p = s; *p && n + 1 < sizeof buf; p++) {
		if (*p == ' ' && n > 0 && buf[n - 1] == ' ' && p[1] == ' ')
			continue;
		if (*p == '\n' && n > 1 && buf[n - 1] == '\n' && buf[n - 2] == '\n')
			continue;
		buf[n++] = *p;
	}
	buf[n] = '\0';
	return buf;
}

/* Is the screen the same 100 ms later? (not caught mid-redraw) */
int settled(struct term *t, const char *s)
{
	usleep(100000);
	char *again = screen(t, 0);
	int same = strcmp(s, again) == 0;
	free(again);
	return same;
}

/* Poll the screen until it shows `needle` (a hang after 120 s); the
 * screen. */
char *wait_for(struct term *t, const char *needle)
{
	char *s = NULL;

	for (double end = now_seconds() + hang_seconds(120); now_seconds() < end;) {
		free(s);
		s = screen(t, 0);
		if (strstr(s, needle) != NULL && settled(t, s))
			return s;
		usleep(100000);
	}
	ck_abort_msg("the screen never showed '%s'; it shows:\n%s", needle, shown(s));
	return s;
}

/* Poll until the screen shows `needle` and not `gone` (a filter typed
 * key by key has settled); the screen. */
char *wait_without(struct term *t, const char *needle, const char *gone)
{
	char *s = NULL;

	for (double end = now_seconds() + hang_seconds(120); now_seconds() < end;) {
		free(s);
		s = screen(t, 0);
		if (strstr(s, needle) != NULL && strstr(s, gone) == NULL && settled(t, s))
			return s;
		usleep(100000);
	}
	ck_abort_msg("the screen never showed '%s' without '%s'; it shows:\n%s", needle, gone, shown(s));
	return s;
}

void has(const char *s, const char *needle)
{
	ck_assert_msg(strstr(s, needle) != NULL, "no '%s' on the screen:\n%s", needle, shown(s));
}

void lacks(const char *s, const char *needle)
{
	ck_assert_msg(strstr(s, needle) == NULL, "'%s' should be gone:\n%s", needle, shown(s));
}

/* After q: the process ended, with status 0. */
void wait_exit(struct term *t)
{
	for (double end = now_seconds() + hang_seconds(60); now_seconds() < end;) {
		FILE *f = fopen(t->status, "r");
		if (f != NULL) {
			int code = -1;
			ck_assert(fscanf(f, "%d", &code) == 1);
			fclose(f);
			ck_assert_msg(code == 0, "heapwalk exited with status %d", code);
			return;
		}
		usleep(100000);
	}
	ck_abort_msg("heapwalk did not exit");
}

int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* The line of s holding needle. */
char *line_of(const char *s, const char *needle)
{
	const char *p = strstr(s, needle), *a, *b;

	if (p == NULL)
		return xstrdup("");
	for (a = p; a > s && a[-1] != '\n'; a--)
		;
	b = strchr(p, '\n');
	return strndup(a, b ? (size_t)(b - a) : strlen(a));
}

/* The exit status heapwalk left, waiting 60 s at most; -1 if none. */
int exit_status(struct term *t)
{
	for (double end = now_seconds() + hang_seconds(60); now_seconds() < end;) {
		FILE *f = fopen(t->status, "r");
		if (f != NULL) {
			int code = -1;
			ck_assert(fscanf(f, "%d", &code) == 1);
			fclose(f);
			return code;
		}
		usleep(100000);
	}
	return -1;
}

/* The line after the one holding needle. */
char *line_after(const char *s, const char *needle)
{
	const char *p = strstr(s, needle);

	p = p ? strchr(p, '\n') : NULL;
	if (p == NULL)
		return xstrdup("");
	p++;
	const char *e = strchr(p, '\n');
	return strndup(p, e ? (size_t)(e - p) : strlen(p));
}


/* s without its spaces. */
char *squeeze(const char *s)
{
	char *o = xmalloc(strlen(s) + 1), *q = o;

	for (; *s; s++)
		if (*s != ' ')
			*q++ = *s;
	*q = '\0';
	return o;
}

/* The text inside the first box on the screen (its corners and sides
 * drawn as the line-drawing letters l q k x m j), its lines joined and
 * its spaces dropped: wrapped text reads whole wherever it broke. */
char *box_text(const char *s)
{
	const char *top = strstr(s, "lq");
	struct sbuf sb;

	sbuf_init(&sb);
	if (top == NULL)
		return xstrdup("");
	const char *bol = top;
	while (bol > s && bol[-1] != '\n')
		bol--;
	const char *eol = strchr(top, '\n');
	if (eol == NULL)
		return xstrdup("");
	size_t left = (size_t)(top - bol), right = left;
	for (const char *p = top; p < eol; p++)
		if (*p == 'k')
			right = (size_t)(p - bol);
	for (const char *l = eol + 1; *l; ) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);
		if (len <= left || l[left] == 'm')
			break;
		for (size_t i = left + 1; i < right && i < len; i++)
			if (l[i] != ' ')
				sbuf_addc(&sb, l[i]);
		if (e == NULL)
			break;
		l = e + 1;
	}
	return sb.buf ? sbuf_detach(&sb) : xstrdup("");
}
