/* hsattach.c — HotSpot's attach mechanism (hsattach.h), as the JVM's
 * attach listener on Linux expects it: a UNIX socket /tmp/.java_pidN
 * (N: the JVM's pid in its own namespace, the socket in its own /tmp,
 * reached through /proc/PID/root), opened by the JVM when it finds a file
 * .attach_pidN in its working directory or /tmp upon a SIGQUIT; on it,
 * one request per connection: the protocol's version "1", the command
 * and three arguments, each ending in a NUL; the answer, the command's
 * status in decimal and a newline, then its output until the JVM closes
 * the connection. The JVM serves a peer of its own effective uid and gid,
 * or root. Its /tmp is reached by a descriptor resolved inside its root
 * (proc_root_open), and every file there by a name relative to it: a
 * path through /proc/PID/root would follow its absolute links into
 * ours, with heapwalk's rights. */
#include "cli/hsattach.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* HotSpot's bound on each argument, its NUL included (attachListener.hpp). */
#define ARG_MAX_LEN 1024
/* The most of an answer read: a command's output is short (a dump's is
 * one line); a process that streams more is not a JVM answering. */
#define ANSWER_MAX (1u << 20)

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int hs_jvm_tmp(const struct proc_info *p, struct sbuf *err)
{
	int fd = proc_root_open(p->pid, "/tmp", O_RDONLY | O_DIRECTORY, 0);

	if (fd < 0 && errno == ENOSYS)
		sbuf_printf(err, "PID %ld: this kernel has no openat2(2) (Linux 5.6): its /tmp cannot be reached "
				 "inside its own root; not attached", (long)p->pid);
	else if (fd < 0)
		sbuf_printf(err, "PID %ld: cannot open its /tmp (%s)", (long)p->pid, strerror(errno));
	return fd;
}

void hs_fresh_name(char *out, size_t n, const char *prefix)
{
	static const char abc[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static unsigned long long mix;
	uint8_t r[8];
	size_t len = strlen(prefix);

	if (getrandom(r, sizeof r, 0) != sizeof r) /* no entropy yet: still another name each time */
		for (int i = 0; i < 8; i++)
			r[i] = (uint8_t)((unsigned long long)getpid() * 131 + ++mix * 7919 + (unsigned long long)i);
	snprintf(out, n, "%s", prefix);
	for (int i = 0; i < 8 && len + (size_t)i + 1 < n; i++) {
		out[len + (size_t)i] = abc[r[i] % (sizeof abc - 1)];
		out[len + (size_t)i + 1] = '\0';
	}
}

/* Where the JVM's attach files are: its /tmp (a descriptor), the
 * socket's name in it, and a path to the socket for connect(2), through
 * our own descriptor. */
struct jvm_tmp { int fd; char sock[32]; char path[96]; };

/* The unsigned 32-bit number at b in the byte order the file says. */
static uint32_t u4(const uint8_t *b, int little)
{
	return little ? (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24
		      : (uint32_t)b[3] | (uint32_t)b[2] << 8 | (uint32_t)b[1] << 16 | (uint32_t)b[0] << 24;
}

/* HotSpot's performance data (hsperfdata, version 2): its string
 * sun.rt.jvmCapabilities begins with '0' when the attach mechanism is off.
 * 1 if so, 0 if on or not told. */
static int perf_says_off(const uint8_t *b, size_t n)
{
	static const char key[] = "sun.rt.jvmCapabilities";

	if (n < 32 || memcmp(b, "\xca\xfe\xc0\xc0", 4) != 0 || b[5] != 2)
		return 0;
	int little = b[4] == 1;
	size_t off = u4(b + 24, little), count = u4(b + 28, little);
	for (size_t i = 0; i < count && off + 20 <= n; i++) {
		size_t len = u4(b + off, little), name = u4(b + off + 4, little), data = u4(b + off + 16, little);
		if (len < 20 || len > n - off)
			return 0;
		if (name < len && data < len && memchr(b + off + name, '\0', len - name) != NULL &&
		    strcmp((const char *)b + off + name, key) == 0)
			return b[off + 12] == 'B' && b[off + data] == '0';
		off += len;
	}
	return 0;
}

/* Does the JVM's perf data file, /tmp/hsperfdata_USER/NSPID in its root
 * and owned by its user, say the attach mechanism is off? A JVM run
 * without one (-XX:-UsePerfData) says nothing: 0. */
static int attach_off(const struct proc_info *p, const struct jvm_tmp *t)
{
	char path[32];
	DIR *d;
	struct dirent *e;
	int off = 0;
	int dfd = openat(t->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0 || (d = fdopendir(dfd)) == NULL) {
		if (dfd >= 0)
			close(dfd);
		return 0;
	}
	while (!off && (e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "hsperfdata_", 11) != 0)
			continue;
		snprintf(path, sizeof path, "%ld", p->nspid);
		int sub = openat(dirfd(d), e->d_name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int fd = sub < 0 ? -1 : openat(sub, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (sub >= 0)
			close(sub);
		struct stat st;
		if (fd < 0)
			continue;
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == p->uid && st.st_size > 0 &&
		    st.st_size <= (1 << 22)) {
			uint8_t *b = malloc((size_t)st.st_size);
			ssize_t r = b ? read(fd, b, (size_t)st.st_size) : -1;
			off = r > 0 && perf_says_off(b, (size_t)r);
			free(b);
		}
		close(fd);
	}
	closedir(d);
	return off;
}

/* Make .attach_pidN where the JVM looks: its working directory (the
 * magic link /proc/PID/cwd is its very directory), else its /tmp; by
 * name, O_EXCL, in a directory descriptor. 1 with that descriptor in
 * *dir and the name in name if we made it (ours to remove), 0 if one is
 * there already, -1 with err. */
static int make_trigger(const struct proc_info *p, const struct jvm_tmp *t, int *dir, char *name, size_t n,
			struct sbuf *err)
{
	char cwd[64];
	int e = 0;

	snprintf(cwd, sizeof cwd, "/proc/%ld/cwd", (long)p->pid);
	snprintf(name, n, ".attach_pid%ld", p->nspid);
	for (int i = 0; i < 2; i++) {
		int d = i == 0 ? open(cwd, O_PATH | O_DIRECTORY | O_CLOEXEC) : dup(t->fd);
		int fd = d < 0 ? -1 : openat(d, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			close(fd);
			*dir = d;
			return 1;
		}
		int why = errno;
		if (d >= 0)
			close(d);
		if (why == EEXIST)
			return 0;
		e = e ? e : why;
	}
	sbuf_printf(err, "PID %ld: cannot make .attach_pid%ld in its working directory or /tmp (%s)", (long)p->pid,
		    p->nspid, strerror(e));
	return -1;
}

/* Is p stopped? Then it answers nothing, and a signal would wait in it
 * until it goes on: an error in err. */
static int stopped(const struct proc_info *p, struct sbuf *err)
{
	const char *how = proc_stopped(p);

	if (how != NULL)
		sbuf_printf(err, "PID %ld is stopped (%s): it cannot answer; not signalled", (long)p->pid, how);
	return how != NULL;
}

/* The socket's inode number, 0 if there is no socket. */
static ino_t socket_ino(const struct jvm_tmp *t)
{
	struct stat st;

	return fstatat(t->fd, t->sock, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISSOCK(st.st_mode) ? st.st_ino : 0;
}

/* May p be signalled now? The process identified, running, with a
 * handler for SIGQUIT. 0, or -1 with err. */
static int signallable(const struct proc_info *p, struct sbuf *err)
{
	if (!p->hotspot) { /* proc_identify let it through for its socket alone */
		sbuf_printf(err, "PID %ld has no HotSpot performance data mapped and its attach socket is gone: "
				 "not known for a JVM, not signalled", (long)p->pid);
		return -1;
	}
	if (proc_same(p, err) < 0 || stopped(p, err))
		return -1;
	if (!proc_catches(p, SIGQUIT)) {
		sbuf_printf(err, "PID %ld does not handle SIGQUIT (-Xrs?), which would end it: not signalled",
			    (long)p->pid);
		return -1;
	}
	return 0;
}

/* Ask the JVM to open its attach socket, and wait for it (another than
 * stale, if not 0: a socket no one listens on, which the JVM replaces).
 * The signal goes only to the process identified, and only while it
 * handles SIGQUIT: HotSpot's handler, which prints a thread dump unless
 * it finds the .attach_pid file and its listener not yet started. */
static int open_socket(const struct proc_info *p, const struct jvm_tmp *t, ino_t stale, struct sbuf *err)
{
	char trig[64];
	ino_t ino;
	int rc = -1, tdir = -1;

	if (attach_off(p, t)) {
		sbuf_printf(err, "PID %ld runs with its attach mechanism off (-XX:+DisableAttachMechanism): "
				 "not signalled", (long)p->pid);
		return -1;
	}
	if (signallable(p, err) < 0) /* before anything is made for it */
		return -1;
	int made = make_trigger(p, t, &tdir, trig, sizeof trig, err);
	if (made < 0)
		return -1;
	/* a handle on the process itself, then the checks again: the signal
	 * goes through it, to the process checked even if the pid were
	 * reused in between (a kernel without pidfds: the pid, checked just
	 * before) */
	int pfd = -1;
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_send_signal)
	pfd = (int)syscall(SYS_pidfd_open, p->pid, 0);
#endif
	if (signallable(p, err) < 0) {
		if (pfd >= 0)
			close(pfd);
		goto out;
	}
	int sent = -1;
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_send_signal)
	if (pfd >= 0)
		sent = (int)syscall(SYS_pidfd_send_signal, pfd, SIGQUIT, NULL, 0);
#endif
	if (pfd < 0)
		sent = kill(p->pid, SIGQUIT);
	if (pfd >= 0)
		close(pfd);
	if (sent < 0) {
		sbuf_printf(err, "PID %ld: cannot signal it (%s)", (long)p->pid, strerror(errno));
		goto out;
	}
	for (double end = seconds() + HS_ATTACH_WAIT_S; (ino = socket_ino(t)) == 0 || ino == stale;) {
		if (proc_same(p, err) < 0)
			goto out;
		if (seconds() > end) {
			sbuf_printf(err, "PID %ld did not open its attach socket in %d s "
					 "(attach disabled? -XX:+DisableAttachMechanism)", (long)p->pid, HS_ATTACH_WAIT_S);
			goto out;
		}
		usleep(50000);
	}
	rc = 0;
out:
	if (made == 1) {
		unlinkat(tdir, trig, 0);
		close(tdir);
	}
	return rc;
}

/* Write all of buf; -1 with errno. No SIGPIPE: a JVM that hangs up is
 * an error, not our end. */
static int send_all(int fd, const char *buf, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, buf, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Is the process listening on fd p itself (its pid, as the kernel
 * recorded it when the socket began to listen)? 0, or -1 with err. */
static int served_by(const struct proc_info *p, int fd, struct sbuf *err)
{
	struct ucred uc;
	socklen_t n = sizeof uc;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &n) < 0) {
		sbuf_printf(err, "PID %ld: who serves its attach socket: %s", (long)p->pid, strerror(errno));
		return -1;
	}
	if (uc.pid != p->pid) {
		sbuf_printf(err, "PID %ld: its attach socket is served by PID %ld, not by it: not used", (long)p->pid,
			    (long)uc.pid);
		return -1;
	}
	return 0;
}

/* heapwalk's progress, for the dump files the JVM writes (hs_progress) */
static int show_progress;

void hs_progress(int on)
{
	show_progress = on && isatty(STDERR_FILENO);
}

/* g's file, looked at (never followed if a link), on stderr's one line
 * a few times a second; last: once more, whenever, the line ended. */
static void growth_show(struct hs_growth *g, int last)
{
	struct stat st;
	double now = seconds();

	if (g == NULL || !show_progress || (!last && now - g->shown < 0.25))
		return;
	g->shown = now;
	if (fstatat(g->dir, g->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
		fprintf(stderr, "\r\033[Kheapwalk: PID %ld: %.1f MB of its heap dump written, %.1f s%s", (long)g->pid,
			(double)st.st_size / 1e6, now - g->t0, last ? "\n" : "");
	else /* HotSpot runs its full GC before it makes the file */
		fprintf(stderr, "\r\033[Kheapwalk: PID %ld: no dump file yet, %.1f s%s", (long)g->pid, now - g->t0,
			last ? "\n" : "");
	fflush(stderr);
	g->drawn = !last;
}

/* g's file noted as it is now: at each poll, whether progress shows or
 * not (the agent renames its file under a lock a caller that gives up
 * may not get: attach.c's give_up then asks whether the file it saw is
 * the final one). Opened only if a regular file, without blocking. */
static void growth_note(struct hs_growth *g)
{
	struct stat st;

	if (g == NULL || fstatat(g->dir, g->name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
	    (g->held >= 0 && st.st_dev == g->dev && st.st_ino == g->ino))
		return;
	int fd = openat(g->dir, g->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != g->uid || st.st_nlink != 1) {
		close(fd); /* another user's file at the name, or linked elsewhere: not the JVM's dump */
		return;
	}
	hs_growth_close(g);
	g->held = fd;
	g->dev = st.st_dev;
	g->ino = st.st_ino;
}

void hs_growth_close(struct hs_growth *g)
{
	if (g != NULL && g->held >= 0) {
		close(g->held);
		g->held = -1;
	}
}

int hs_growth_is(const struct hs_growth *g, const char *name)
{
	struct stat st;

	return g != NULL && g->held >= 0 && fstatat(g->dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISREG(st.st_mode) && st.st_dev == g->dev && st.st_ino == g->ino && st.st_uid == g->uid &&
	       st.st_nlink == 1;
}

void hs_growth_end(struct hs_growth *g, int ok)
{
	if (g == NULL)
		return;
	if (ok)
		growth_show(g, 1);
	else if (g->drawn) /* an error's line begins a line of its own */
		fputc('\n', stderr);
	g->drawn = 0;
}

/* One request on the socket; the answer's status and output, waited
 * for wall_s seconds at most (0: as long as the JVM runs; past it
 * HS_LATE), g's file shown meanwhile (NULL: none). -2, err untouched,
 * when no one listens on the socket (ECONNREFUSED). */
static int converse(const struct proc_info *p, const struct jvm_tmp *t, double wall_s, struct hs_growth *g,
		    const char *cmd, const char *const args[3], int *status, struct sbuf *out, struct sbuf *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct sbuf req, ans;
	char buf[65536];
	ssize_t r;
	int fd, rc = -1;

	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", t->path);
	sbuf_init(&req);
	sbuf_init(&ans);
	sbuf_add(&req, "1", 2); /* the version, with its NUL */
	sbuf_add(&req, cmd, strlen(cmd) + 1);
	for (int i = 0; i < 3; i++) {
		const char *a = args && args[i] ? args[i] : "";
		sbuf_add(&req, a, strlen(a) + 1);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int conn = fd < 0 ? -1 : connect(fd, (struct sockaddr *)&sa, sizeof sa);
	if (conn < 0 && errno == ECONNREFUSED) {
		rc = -2;
		goto out;
	}
	if (conn < 0 || send_all(fd, req.buf, req.len) < 0) {
		sbuf_printf(err, "PID %ld: cannot speak to its attach socket (%s)", (long)p->pid, strerror(errno));
		goto out;
	}
	if (served_by(p, fd, err) < 0)
		goto out;
	/* the answer comes when the command is done (a dump: as long as it
	 * takes); meanwhile the JVM must stay there and running */
	if (g != NULL)
		g->t0 = g->shown = seconds();
	for (double end = seconds() + wall_s;;) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		int ready = poll(&pf, 1, g != NULL && show_progress ? 250 : 1000); /* a line to show: 4 times a second */
		if (ready == 0)
			growth_note(g);
		if (ready == 0 && wall_s > 0 && seconds() > end) {
			sbuf_printf(err, "PID %ld did not answer %s in %.0f s (HEAPWALK_SNAPSHOT_WALL): given up", (long)p->pid,
				    cmd, wall_s);
			rc = HS_LATE;
			goto out;
		}
		if (ready == 0) {
			if (proc_same(p, err) < 0)
				goto out;
			const char *how = proc_stopped(p);
			if (how != NULL) {
				sbuf_printf(err, "PID %ld stopped before it answered (%s)", (long)p->pid, how);
				goto out;
			}
			growth_show(g, 0);
			continue;
		}
		r = ready < 0 ? -1 : read(fd, buf, sizeof buf);
		if (r == 0)
			break;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			sbuf_printf(err, "PID %ld: reading its attach answer: %s", (long)p->pid, strerror(errno));
			goto out;
		}
		if (ans.len + (size_t)r > ANSWER_MAX) {
			sbuf_printf(err, "PID %ld: its attach answer passed %u bytes: not read further", (long)p->pid,
				    ANSWER_MAX);
			goto out;
		}
		sbuf_add(&ans, buf, (size_t)r);
	}
	sbuf_addc(&ans, '\0');
	char *nl = strchr(ans.buf, '\n'), *end;
	long st = nl ? strtol(ans.buf, &end, 10) : 0;
	if (nl == NULL || end != nl || end == ans.buf) {
		sbuf_printf(err, "PID %ld closed its attach connection without a status line", (long)p->pid);
		goto out;
	}
	*status = (int)st;
	sbuf_adds(out, nl + 1);
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	sbuf_free(&req);
	sbuf_free(&ans);
	return rc;
}

int hs_refuses(const struct proc_info *p, struct sbuf *err)
{
	struct jvm_tmp t;
	struct sbuf ignored;
	int off = 0;

	if (stopped(p, err))
		return -1;
	sbuf_init(&ignored);
	t.fd = hs_jvm_tmp(p, &ignored); /* unreachable: said by the attach itself */
	sbuf_free(&ignored);
	if (t.fd < 0)
		return 0;
	snprintf(t.sock, sizeof t.sock, ".java_pid%ld", p->nspid);
	off = socket_ino(&t) == 0 && attach_off(p, &t);
	close(t.fd);
	if (off)
		sbuf_printf(err, "PID %ld runs with its attach mechanism off (-XX:+DisableAttachMechanism): "
				 "not signalled", (long)p->pid);
	return off ? -1 : 0;
}

/* The socket, opened if need be, then the request: as whoever runs it. */
static int talk(const struct proc_info *p, double wall_s, struct hs_growth *g, const char *cmd,
		const char *const args[3], int *status, struct sbuf *out, struct sbuf *err)
{
	struct jvm_tmp t;
	struct stat st;
	int rc = -1;

	for (int i = 0; i < 3; i++)
		if (args && args[i] && strlen(args[i]) >= ARG_MAX_LEN) {
			sbuf_printf(err, "an argument of %zu bytes: HotSpot's attach takes fewer than %d",
				    strlen(args[i]), ARG_MAX_LEN);
			return -1;
		}
	/* HotSpot serves only a peer of its own effective uid and gid (or
	 * root), and hangs up on any other without a word */
	if (geteuid() != 0 && (geteuid() != p->uid || getegid() != p->gid)) {
		sbuf_printf(err, "PID %ld runs as uid %ld gid %ld, heapwalk as uid %ld gid %ld: the JVM accepts "
				 "only its own user and group, or root", (long)p->pid, (long)p->uid, (long)p->gid,
			    (long)geteuid(), (long)getegid());
		return -1;
	}
	if ((t.fd = hs_jvm_tmp(p, err)) < 0)
		return -1;
	snprintf(t.sock, sizeof t.sock, ".java_pid%ld", p->nspid);
	snprintf(t.path, sizeof t.path, "/proc/self/fd/%d/%s", t.fd, t.sock);
	for (ino_t stale = 0;;) {
		if ((stale != 0 || socket_ino(&t) == 0) && open_socket(p, &t, stale, err) < 0)
			break;
		/* a socket in a /tmp others may write to: the JVM's own, or none */
		if (fstatat(t.fd, t.sock, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			sbuf_printf(err, "PID %ld: its attach socket went away (%s)", (long)p->pid, strerror(errno));
			break;
		}
		if (!S_ISSOCK(st.st_mode)) {
			sbuf_printf(err, "PID %ld: its /tmp/%s is not a socket: not used", (long)p->pid, t.sock);
			break;
		}
		if (st.st_uid != p->uid) {
			sbuf_printf(err, "PID %ld: its attach socket /tmp/.java_pid%ld is owned by uid %ld, not by the "
					 "JVM's user (uid %ld): not used", (long)p->pid, p->nspid, (long)st.st_uid,
				    (long)p->uid);
			break;
		}
		if (proc_same(p, err) < 0 || stopped(p, err))
			break;
		rc = converse(p, &t, wall_s, g, cmd, args, status, out, err);
		if (rc != -2)
			break;
		rc = -1;
		/* no one listens: left by a JVM that had this pid before, killed
		 * before it could remove it; this JVM replaces it once asked */
		if (stale != 0) {
			sbuf_printf(err, "PID %ld: no one listens on its attach socket /tmp/.java_pid%ld", (long)p->pid,
				    p->nspid);
			break;
		}
		stale = st.st_ino;
	}
	close(t.fd);
	return rc;
}

/* Root and another user's JVM: fn runs in a child of the JVM's uid and
 * gid (older JVMs serve no one else, and whatever it makes or reads in
 * the JVM's directories, it does with that user's rights only), which
 * sends its outcome up a pipe: "RC\n", then out (RC 0) or err. */
int hs_as_user(const struct proc_info *p, hs_user_fn fn, void *arg, struct sbuf *out, struct sbuf *err)
{
	int fd[2], rc = -1;
	char buf[65536];
	ssize_t r;
	struct sbuf got;

	if (pipe(fd) < 0) {
		sbuf_printf(err, "pipe: %s", strerror(errno));
		return -1;
	}
	pid_t parent = getpid(), child = fork();
	if (child < 0) {
		sbuf_printf(err, "fork: %s", strerror(errno));
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (child == 0) {
		struct sbuf o, e;
		sbuf_init(&o);
		sbuf_init(&e);
		close(fd[0]);
		/* heapwalk killed meanwhile (its own files removed by its
		 * handlers): this child is sent SIGTERM, so that what fn guards
		 * (tmp_guard_at) is removed too; set after the change of user,
		 * which clears it, and the parent checked still there after */
		if (setgroups(0, NULL) < 0 || setgid(p->gid) < 0 || setuid(p->uid) < 0 || getuid() != p->uid ||
		    geteuid() != p->uid)
			sbuf_printf(&e, "cannot become uid %ld gid %ld to attach: %s", (long)p->uid, (long)p->gid,
				    strerror(errno));
		else if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
			_exit(1);
		else
			rc = fn(p, arg, &o, &e);
		dprintf(fd[1], "%d\n", rc);
		struct sbuf *b = rc == 0 ? &o : &e;
		if (b->len > 0 && write(fd[1], b->buf, b->len) < 0)
			_exit(1);
		_exit(0);
	}
	close(fd[1]);
	sbuf_init(&got);
	while ((r = read(fd[0], buf, sizeof buf)) != 0)
		if (r > 0 && got.len + (size_t)r <= 2 * ANSWER_MAX)
			sbuf_add(&got, buf, (size_t)r);
		else if (r < 0 && errno != EINTR)
			break;
	close(fd[0]);
	while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
		;
	sbuf_addc(&got, '\0');
	char *nl = strchr(got.buf, '\n');
	if (nl == NULL || sscanf(got.buf, "%d", &rc) != 1) {
		sbuf_printf(err, "PID %ld: the attaching child (uid %ld) ended without an answer", (long)p->pid,
			    (long)p->uid);
		rc = -1;
	} else {
		sbuf_adds(rc == 0 ? out : err, nl + 1);
	}
	sbuf_free(&got);
	return rc;
}

/* hs_attach's request, for a child of the JVM's user: its status then
 * its output, in out. */
struct request { const char *cmd; const char *const *args; double wall_s; struct hs_growth *g; };

static int talk_for(const struct proc_info *p, void *arg, struct sbuf *out, struct sbuf *err)
{
	const struct request *q = arg;
	struct sbuf o;
	int st = 0;

	sbuf_init(&o);
	int rc = talk(p, q->wall_s, q->g, q->cmd, q->args, &st, &o, err);
	if (rc == 0) {
		sbuf_printf(out, "%d\n", st);
		sbuf_add(out, o.buf ? o.buf : "", o.len);
	}
	sbuf_free(&o);
	return rc;
}

int hs_attach(const struct proc_info *p, const char *cmd, const char *const args[3], int *status, struct sbuf *out,
	      struct sbuf *err)
{
	return hs_attach_within(p, 0, cmd, args, status, out, err);
}

int hs_attach_within(const struct proc_info *p, double wall_s, const char *cmd, const char *const args[3], int *status,
		     struct sbuf *out, struct sbuf *err)
{
	return hs_attach_shown(p, wall_s, NULL, cmd, args, status, out, err);
}

int hs_attach_shown(const struct proc_info *p, double wall_s, struct hs_growth *g, const char *cmd,
		    const char *const args[3], int *status, struct sbuf *out, struct sbuf *err)
{
	if (p->kind != PROC_JVM)
		abort(); /* a bug: SIGQUIT would go to whatever it is */
	if (geteuid() == 0 && p->uid != 0) {
		struct request q = { cmd, args, wall_s, g };
		struct sbuf o;
		sbuf_init(&o);
		int rc = hs_as_user(p, talk_for, &q, &o, err);
		char *nl = rc == 0 && o.buf ? strchr(o.buf, '\n') : NULL;
		if (rc == 0 && nl == NULL) {
			sbuf_printf(err, "PID %ld: the attaching child's answer had no status", (long)p->pid);
			rc = -1;
		} else if (rc == 0) {
			*status = atoi(o.buf);
			sbuf_adds(out, nl + 1);
		}
		sbuf_free(&o);
		return rc;
	}
	return talk(p, wall_s, g, cmd, args, status, out, err);
}

/* (hsattach.h) */
void hs_first_line(const char *s, struct sbuf *out)
{
	size_t n = strcspn(s, "\n");

	while (n > 0 && (s[n - 1] == '\r' || s[n - 1] == ' '))
		n--;
	if (n == 0)
		sbuf_adds(out, "no message");
	else
		esc_append(out, (const uint8_t *)s, n, 0);
}
