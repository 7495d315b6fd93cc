/* node.c — heapwalk snapshot for Node processes (node.h).
 *
 * The inspector is found among the process's own listening TCP sockets:
 * the socket inodes among its open files (/proc/PID/fd) matched with
 * the listening sockets of its network namespace (/proc/PID/net/tcp,
 * tcp6) on a loopback or wildcard address. Each is asked GET /json/list;
 * the inspector answers with its target's WebSocket URL. With none, the
 * process is sent SIGUSR1, which Node takes as the request to open its
 * inspector on 127.0.0.1:9229 (or --inspect-port), and a new listener
 * is waited for. A connection is trusted only once the socket that
 * answered it is seen among the process's own files. */
#include "cli/node.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/bounds.h"
#include "cli/devtools.h"

#define MAX_LISTENERS 16  /* asked at most: an inspector is one of few */
#define PROBE_S 2         /* for an answer to GET /json/list */
#define OPEN_WAIT_S 30    /* for the inspector SIGUSR1 opens (a loaded machine: one opened after we gave up would stay open) */
#define CLOSE_WAIT_S 5    /* for the inspector we opened to close */
#define READ_CHUNK (256u << 10)

/* A listening socket of the process. */
struct listener {
	unsigned long ino;
	int port, v6;
};

/* ---- the process's sockets ---- */

/* The socket inodes among pid's open files, sorted; their number, or -1. */
static int cmp_ul(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;
	return x < y ? -1 : x > y;
}

static long socket_inodes(pid_t pid, unsigned long **out)
{
	char path[64], link[64];
	size_t n = 0, cap = 0;
	unsigned long *v = NULL;
	struct dirent *e;

	snprintf(path, sizeof path, "/proc/%ld/fd", (long)pid);
	DIR *d = opendir(path);
	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL && n < (1u << 20)) {
		char fd[384];
		snprintf(fd, sizeof fd, "%s/%s", path, e->d_name);
		ssize_t k = readlink(fd, link, sizeof link - 1);
		if (k <= 8 || strncmp(link, "socket:[", 8) != 0)
			continue;
		link[k] = '\0';
		if (n == cap)
			v = xrealloc(v, (cap = cap ? 2 * cap : 64) * sizeof *v);
		v[n++] = strtoul(link + 8, NULL, 10);
	}
	closedir(d);
	qsort(v, n, sizeof *v, cmp_ul);
	*out = v;
	return (long)n;
}

static int has_inode(const unsigned long *v, long n, unsigned long ino)
{
	return n > 0 && bsearch(&ino, v, (size_t)n, sizeof *v, cmp_ul) != NULL;
}

/* Is a /proc/net/tcp{,6} local address (hex as the kernel prints it)
 * one we reach on loopback: 127.0.0.0/8, ::1, or a wildcard? */
static int local_reachable(const char *a, int v6)
{
	if (!v6)
		return strlen(a) == 8 && (strcmp(a, "00000000") == 0 || strncasecmp(a + 6, "7F", 2) == 0);
	return strlen(a) == 32 && (strcmp(a, "00000000000000000000000000000000") == 0 ||
				   strcmp(a, "00000000000000000000000001000000") == 0);
}

/* One line of /proc/PID/net/tcp{,6}: 1 with its local port, remote
 * port, state and inode, 0 for the heading or a line not understood. */
static int tcp_line(const char *line, int v6, int *lport, int *rport, unsigned *st, unsigned long *ino, int *reach)
{
	char la[48], ra[48];
	unsigned lp, rp;

	if (sscanf(line, " %*[0-9]: %40[0-9A-Fa-f]:%x %40[0-9A-Fa-f]:%x %x %*s %*s %*s %*u %*u %lu", la, &lp, ra, &rp,
		   st, ino) != 6)
		return 0;
	*lport = (int)lp;
	*rport = (int)rp;
	*reach = local_reachable(la, v6);
	return 1;
}

/* Call fn for each line of pid's TCP tables; stops when it returns 1. */
typedef int (*tcp_fn)(void *arg, int v6, int lport, int rport, unsigned st, unsigned long ino, int reach);

static void tcp_each(pid_t pid, tcp_fn fn, void *arg)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	int stop = 0;

	for (int v6 = 0; v6 < 2 && !stop; v6++) {
		snprintf(path, sizeof path, "/proc/%ld/net/tcp%s", (long)pid, v6 ? "6" : "");
		FILE *f = fopen(path, "re");
		if (f == NULL)
			continue;
		int lp, rp, reach;
		unsigned st;
		unsigned long ino;
		while (!stop && getline(&line, &cap, f) > 0)
			if (tcp_line(line, v6, &lp, &rp, &st, &ino, &reach))
				stop = fn(arg, v6, lp, rp, st, ino, reach);
		fclose(f);
	}
	free(line);
}

struct gather {
	const unsigned long *inos;
	long n;
	struct listener *out;
	int count;
};

static int gather_one(void *arg, int v6, int lport, int rport, unsigned st, unsigned long ino, int reach)
{
	struct gather *g = arg;

	(void)rport;
	if (st == 0x0a && reach && ino != 0 && has_inode(g->inos, g->n, ino) && g->count < MAX_LISTENERS)
		g->out[g->count++] = (struct listener){ ino, lport, v6 };
	return 0;
}

/* The process's listening TCP sockets we can reach (at most
 * MAX_LISTENERS): their number, or -1 when its files cannot be read. */
static int listeners(pid_t pid, struct listener out[MAX_LISTENERS])
{
	unsigned long *inos = NULL;
	long n = socket_inodes(pid, &inos);

	if (n < 0)
		return -1;
	struct gather g = { inos, n, out, 0 };
	tcp_each(pid, gather_one, &g);
	free(inos);
	return g.count;
}

struct served {
	const unsigned long *inos;
	long n;
	int lport, rport, v6, found;
};

static int served_one(void *arg, int v6, int lport, int rport, unsigned st, unsigned long ino, int reach)
{
	struct served *s = arg;

	(void)st;
	(void)reach;
	if (v6 == s->v6 && lport == s->lport && rport == s->rport && has_inode(s->inos, s->n, ino))
		s->found = 1;
	return s->found;
}

/* Is the far end of our connection s (to port) a socket of pid's? */
static int served_by(int s, pid_t pid, const struct listener *l)
{
	struct sockaddr_storage a;
	socklen_t len = sizeof a;
	unsigned long *inos = NULL;

	if (getsockname(s, (struct sockaddr *)&a, &len) < 0)
		return 0;
	long n = socket_inodes(pid, &inos);
	struct served sv = { inos, n, l->port, 0, l->v6, 0 };
	sv.rport = a.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&a)->sin6_port)
					   : ntohs(((struct sockaddr_in *)&a)->sin_port);
	if (n > 0)
		tcp_each(pid, served_one, &sv);
	free(inos);
	return sv.found;
}

/* ---- connections ---- */

static int connect_to(const struct listener *l)
{
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons((uint16_t)l->port) };
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons((uint16_t)l->port) };
	struct timeval tv = { PROBE_S, 0 };
	int s = socket(l->v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return -1;
	a4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a6.sin6_addr = in6addr_loopback;
	setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv); /* a full backlog: connect waits this long */
	if (l->v6 ? connect(s, (struct sockaddr *)&a6, sizeof a6) : connect(s, (struct sockaddr *)&a4, sizeof a4)) {
		close(s);
		return -1;
	}
	return s;
}

/* All of p to s, no SIGPIPE: 0, or -1. */
static int send_all(int s, const void *p, size_t n)
{
	while (n > 0) {
		ssize_t w = send(s, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p = (const char *)p + w;
		n -= (size_t)w;
	}
	return 0;
}

/* Read what s has into in, waiting up to secs: bytes read, 0 at its
 * end, -1 on error or when nothing came in time (errno ETIMEDOUT). */
static ssize_t take(int s, struct sbuf *in, double secs)
{
	struct pollfd pf = { s, POLLIN, 0 };
	char buf[READ_CHUNK];
	int r = poll(&pf, 1, (int)(secs * 1000));

	if (r == 0)
		errno = ETIMEDOUT;
	if (r <= 0)
		return -1;
	ssize_t n = recv(s, buf, sizeof buf, 0);
	if (n > 0)
		sbuf_add(in, buf, (size_t)n);
	return n;
}

/* GET /json/list of listener l: 0 with the WebSocket path, or -1. */
static int probe(pid_t pid, const struct listener *l, struct sbuf *path, struct sbuf *err)
{
	struct sbuf in;
	char req[160];
	int s = connect_to(l), whole = 0, rc = -1;
	double end = hw_now() + PROBE_S;

	if (s < 0)
		return -1;
	sbuf_init(&in);
	snprintf(req, sizeof req, "GET /json/list HTTP/1.1\r\nHost: %s:%d\r\nConnection: close\r\n\r\n",
		 l->v6 ? "[::1]" : "127.0.0.1", l->port);
	if (send_all(s, req, strlen(req)) == 0)
		while (whole == 0 && hw_now() < end) {
			ssize_t r = take(s, &in, end - hw_now());
			if (r < 0)
				break;
			whole = dt_http_whole((const uint8_t *)in.buf, in.len, r == 0, err);
		}
	if (whole == 1 && served_by(s, pid, l))
		rc = dt_json_list((const uint8_t *)in.buf, in.len, l->port, path, err);
	close(s);
	sbuf_free(&in);
	return rc;
}

/* The inspector among the listeners l[0..n) not in old[0..nold): 0
 * with its listener and path, or -1. */
static int find(pid_t pid, const struct listener *l, int n, const struct listener *old, int nold,
		struct listener *at, struct sbuf *path)
{
	struct sbuf why;

	sbuf_init(&why);
	for (int i = 0; i < n; i++) {
		int seen = 0;
		for (int k = 0; k < nold; k++)
			seen |= old[k].ino == l[i].ino;
		sbuf_reset(&why);
		if (!seen && probe(pid, &l[i], path, &why) == 0) {
			*at = l[i];
			sbuf_free(&why);
			return 0;
		}
	}
	sbuf_free(&why);
	return -1;
}

/* ---- the signal ---- */

/* May p be sent SIGUSR1 now? 0, or -1 with err. */
static int signallable(const struct proc_info *p, struct sbuf *err)
{
	char st;

	if (proc_same(p, err) < 0)
		return -1;
	if ((st = proc_state(p)) == 'T' || st == 't') {
		sbuf_printf(err, "PID %ld is stopped (%s): a signal would wait with it; not signalled", (long)p->pid,
			    st == 't' ? "by a debugger" : "SIGSTOP, or ^Z");
		return -1;
	}
	if (!proc_catches(p, SIGUSR1)) {
		sbuf_printf(err, "PID %ld does not handle SIGUSR1 (still starting?), which would end it: not signalled; "
			    "start it with --inspect=127.0.0.1:0 to snapshot it", (long)p->pid);
		return -1;
	}
	return 0;
}

/* SIGUSR1 through a pidfd taken before the last checks, as the JVM's
 * attach does (hsattach.c): to the process checked, even were its pid
 * reused in between. 0, or -1 with err. */
static int signal_usr1(const struct proc_info *p, struct sbuf *err)
{
	int pfd = -1, sent = -1;

	if (signallable(p, err) < 0)
		return -1;
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_send_signal)
	pfd = (int)syscall(SYS_pidfd_open, p->pid, 0);
#endif
	if (signallable(p, err) < 0) {
		if (pfd >= 0)
			close(pfd);
		return -1;
	}
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_send_signal)
	if (pfd >= 0)
		sent = (int)syscall(SYS_pidfd_send_signal, pfd, SIGUSR1, NULL, 0);
#endif
	if (pfd < 0)
		sent = kill(p->pid, SIGUSR1);
	int e = errno;
	if (pfd >= 0)
		close(pfd);
	if (sent < 0)
		sbuf_printf(err, "PID %ld: cannot signal it (%s)", (long)p->pid, strerror(e));
	return sent < 0 ? -1 : 0;
}

/* Is p in the network namespace we are in (its 127.0.0.1 ours)? */
static int same_netns(const struct proc_info *p)
{
	char path[64];
	struct stat a, b;

	snprintf(path, sizeof path, "/proc/%ld/ns/net", (long)p->pid);
	if (stat("/proc/self/ns/net", &a) < 0 || stat(path, &b) < 0)
		return 1; /* cannot tell: its sockets are checked anyway */
	return a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

/* The inspector of p: the one listening, else one SIGUSR1 opens. 0 with
 * its listener and WebSocket path, *opened set when we opened it; or -1
 * with err. */
static int inspector(const struct proc_info *p, struct listener *at, struct sbuf *path, int *opened, struct sbuf *err)
{
	struct listener before[MAX_LISTENERS], now[MAX_LISTENERS];
	int nb = listeners(p->pid, before), nn;

	*opened = 0;
	if (nb < 0) {
		sbuf_printf(err, "PID %ld: cannot read its open files in /proc/%ld/fd (%s)", (long)p->pid, (long)p->pid,
			    strerror(errno));
		return -1;
	}
	if (find(p->pid, before, nb, NULL, 0, at, path) == 0)
		return 0;
	if (signal_usr1(p, err) < 0)
		return -1;
	for (double end = hw_now() + OPEN_WAIT_S; hw_now() < end; usleep(50000)) {
		if (proc_same(p, err) < 0)
			return -1;
		nn = listeners(p->pid, now);
		if (nn > 0 && find(p->pid, now, nn, before, nb, at, path) == 0) {
			*opened = 1;
			return 0;
		}
	}
	sbuf_printf(err, "PID %ld was sent SIGUSR1 but opened no inspector in %d s (its own SIGUSR1 handler, "
		    "process.on('SIGUSR1'), takes the signal; or its inspector port, 9229 unless --inspect-port "
		    "says, is taken by another process)", (long)p->pid, OPEN_WAIT_S);
	return -1;
}

/* ---- the WebSocket ---- */

struct ws {
	int s;
	struct sbuf in;  /* received, from off on not yet taken */
	size_t off;
	struct ws_joiner j;
};

static void ws_random(void *p, size_t n)
{
	if (getrandom(p, n, 0) != (ssize_t)n) /* the mask and key need only differ: time then */
		for (size_t i = 0; i < n; i++)
			((uint8_t *)p)[i] = (uint8_t)(hw_now() * 1e6 + (double)i * 7);
}

/* Connect and shake hands on path: 0, or -1 with err. */
static int ws_open(struct ws *w, pid_t pid, const struct listener *l, const char *path, struct sbuf *err)
{
	uint8_t raw[16];
	char key[25], accept[29];
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	long h = 0;

	ws_random(raw, sizeof raw);
	for (int i = 0, o = 0; i < 18; i += 3, o += 4) { /* 16 bytes: 22 characters and "==" */
		uint32_t v = (uint32_t)raw[i] << 16 | (uint32_t)(i + 1 < 16 ? raw[i + 1] : 0) << 8 |
			     (i + 2 < 16 ? raw[i + 2] : 0);
		for (int c = 0; c < 4; c++)
			key[o + c] = b64[v >> (18 - 6 * c) & 63];
	}
	key[22] = key[23] = '=';
	key[24] = '\0';
	dt_ws_accept(key, accept);
	if ((w->s = connect_to(l)) < 0) {
		sbuf_printf(err, "PID %ld: cannot connect to its inspector on port %d (%s)", (long)pid, l->port,
			    strerror(errno));
		return -1;
	}
	char *req = xasprintf("GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
			      "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n",
			      path, l->v6 ? "[::1]" : "127.0.0.1", l->port, key);
	int sent = send_all(w->s, req, strlen(req));
	free(req);
	for (double end = hw_now() + PROBE_S * 5; sent == 0 && h == 0 && hw_now() < end;)
		if (take(w->s, &w->in, end - hw_now()) <= 0)
			break;
		else
			h = dt_ws_handshake((const uint8_t *)w->in.buf, w->in.len, accept, err);
	if (h <= 0) {
		if (err->len == 0)
			sbuf_printf(err, "PID %ld: its inspector did not finish the WebSocket handshake", (long)pid);
		return -1;
	}
	if (!served_by(w->s, pid, l)) {
		sbuf_printf(err, "PID %ld: the WebSocket on port %d is not served by the process: not used", (long)pid,
			    l->port);
		return -1;
	}
	w->off = (size_t)h;
	return 0;
}

static int ws_send(struct ws *w, int opcode, const char *p, size_t n)
{
	struct sbuf f;
	uint8_t mask[4];

	ws_random(mask, sizeof mask);
	sbuf_init(&f);
	dt_ws_put(&f, opcode, (const uint8_t *)p, n, mask);
	int rc = send_all(w->s, f.buf, f.len);
	sbuf_free(&f);
	return rc;
}

/* The next whole message from what has come: 1 with it in w->j.msg, 0
 * when more must come, -1 with err (the peer closed: -1 too). */
static int ws_next(struct ws *w, struct sbuf *err)
{
	for (;;) {
		struct ws_frame f;
		long k = dt_ws_frame((const uint8_t *)w->in.buf + w->off, w->in.len - w->off, DT_MESSAGE_MAX, &f, err);
		if (k <= 0) {
			if (w->off > 0) { /* keep what is left at the start */
				memmove(w->in.buf, w->in.buf + w->off, w->in.len - w->off);
				w->in.len -= w->off;
				w->in.buf[w->in.len] = '\0';
				w->off = 0;
			}
			return (int)k;
		}
		w->off += (size_t)k;
		if (f.opcode == WS_PING) {
			if (ws_send(w, WS_PONG, (const char *)f.payload, (size_t)f.len) < 0)
				return -1;
		} else if (f.opcode == WS_CLOSE) {
			sbuf_adds(err, "the inspector closed the WebSocket");
			return -1;
		} else if (f.opcode != WS_PONG) {
			int r = dt_ws_join(&w->j, &f, err);
			if (r != 0)
				return r;
		}
	}
}

static void ws_close(struct ws *w)
{
	if (w->s >= 0) {
		ws_send(w, WS_CLOSE, "\x03\xe8", 2); /* 1000, a normal close */
		close(w->s);
	}
	w->s = -1;
	sbuf_free(&w->in);
	sbuf_free(&w->j.msg);
}

/* ---- the snapshot ---- */

/* ^C, SIGTERM, SIGHUP while a snapshot streams: the first ends the
 * copy, and heapwalk still waits for the snapshot's answer before it
 * ends an inspector it opened; the signal's own action is back then, so
 * a second one acts as it would have (tmp_guard's: the file removed). */
static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP };
static struct sigaction stop_saved[3];
static volatile sig_atomic_t stop_sig;

static void on_stop(int sig)
{
	stop_sig = sig;
	for (int i = 0; i < 3; i++)
		if (stop_sigs[i] == sig)
			sigaction(sig, &stop_saved[i], NULL);
}

static void stop_catch(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop; /* no SA_RESTART: the wait in poll ends */
	sigemptyset(&sa.sa_mask);
	stop_sig = 0;
	for (int i = 0; i < 3; i++) {
		sigaction(stop_sigs[i], NULL, &stop_saved[i]);
		if (stop_saved[i].sa_handler != SIG_IGN)
			sigaction(stop_sigs[i], &sa, NULL);
	}
}

static void stop_release(void)
{
	for (int i = 0; i < 3; i++)
		if (stop_saved[i].sa_handler != SIG_IGN)
			sigaction(stop_sigs[i], &stop_saved[i], NULL);
}

struct take {
	struct ws *w;
	int fd, progress;
	const char *tmp;
	uint64_t bytes;
	struct stream_bounds b;
	struct sbuf chunk;
	int draining; /* failed: the rest is read and dropped until the answer */
	int answered; /* the snapshot's command has answered, or was never sent */
	int line_open; /* a progress line without its newline on stderr */
};

/* One message: 1 when the snapshot's command (id 1) has answered, 0 to
 * go on, -1 with err. */
static int message(struct take *t, pid_t pid, struct sbuf *err)
{
	struct dt_message d;
	struct sbuf why;

	sbuf_init(&why);
	sbuf_reset(&t->chunk);
	int rc = dt_message((const uint8_t *)t->w->j.msg.buf, t->w->j.msg.len, &d, &t->chunk, &why);
	if (rc == 0 && (d.kind == DT_RESULT || d.kind == DT_ERROR) && d.id == 1)
		t->answered = 1;
	if (t->draining)
		rc = t->answered;
	else if (rc < 0)
		sbuf_printf(err, "PID %ld: %s", (long)pid, why.buf);
	else if (d.kind == DT_CHUNK && t->bytes + t->chunk.len > t->b.max_bytes) {
		struct sbuf line;
		sbuf_init(&line);
		sbuf_printf(&line, "%s: the snapshot went past %llu bytes, its bound", t->tmp,
			    (unsigned long long)t->b.max_bytes);
		bounds_failed(pid, STREAM_FULL, &line, err);
		sbuf_free(&line);
		rc = -1;
	} else if (d.kind == DT_CHUNK) {
		int e = write_full(t->fd, t->chunk.buf, t->chunk.len);
		if (e != 0) {
			sbuf_printf(err, "%s: cannot write: %s", t->tmp, strerror(e));
			rc = -1;
		}
		t->bytes += t->chunk.len;
	} else if (d.kind == DT_PROGRESS && t->progress && !t->draining) {
		fprintf(stderr, "\rheapwalk: snapshot of PID %ld: %llu of %llu objects%s", (long)pid,
			(unsigned long long)d.done, (unsigned long long)d.total, d.finished ? "\n" : "");
		t->line_open = !d.finished;
	} else if (d.kind == DT_ERROR && d.id == 1) {
		sbuf_printf(err, "PID %ld: its inspector refused HeapProfiler.takeHeapSnapshot: %s", (long)pid, why.buf);
		rc = -1;
	} else if (d.kind == DT_RESULT && d.id == 1)
		rc = 1;
	sbuf_free(&why);
	return rc;
}

/* The next message, or a bound passed: 1 with a message in t->w->j.msg,
 * 0 when the bound e was passed (in *e), -1 with err when the
 * connection broke or spoke out of turn. */
static int next_message(struct take *t, double t0, double *last, enum stream_end *e, struct sbuf *err)
{
	for (;;) {
		int m = ws_next(t->w, err);
		if (m != 0)
			return m;
		if (stop_sig && !t->draining) {
			*e = STREAM_FAILED;
			return 0;
		}
		double now = hw_now();
		*e = now - t0 > t->b.wall_s ? STREAM_LATE : now - *last > t->b.idle_s ? STREAM_QUIET : STREAM_DONE;
		if (*e != STREAM_DONE)
			return 0;
		ssize_t r = take(t->w->s, &t->w->in, 0.1);
		if (r > 0)
			*last = hw_now();
		else if (r == 0 || (r < 0 && errno != ETIMEDOUT && errno != EINTR)) {
			sbuf_printf(err, "its inspector's connection ended (the process exited?)");
			return -1;
		}
	}
}

/* Messages until the snapshot's answer, within the bounds: 0, or -1
 * with err. */
static int receive(struct take *t, pid_t pid, struct sbuf *err)
{
	double t0 = hw_now(), last = t0;
	enum stream_end e = STREAM_DONE;
	struct sbuf why;
	int rc = 0;

	sbuf_init(&why);
	while (rc == 0) {
		int m = next_message(t, t0, &last, &e, &why);
		if (m < 0) {
			sbuf_printf(err, "PID %ld: %s before the snapshot was whole", (long)pid, why.buf);
			rc = -1;
		} else if (m == 0) {
			sbuf_reset(&why);
			if (e == STREAM_FAILED) {
				sbuf_printf(err, "PID %ld: interrupted (signal %d) at byte %llu of the snapshot; nothing "
					    "written", (long)pid, (int)stop_sig, (unsigned long long)t->bytes);
				rc = -1;
				break;
			}
			if (e == STREAM_LATE)
				sbuf_printf(&why, "its inspector: the snapshot not done after %g s, at byte %llu", t->b.wall_s,
					    (unsigned long long)t->bytes);
			else
				sbuf_printf(&why, "its inspector: no byte for %g s after byte %llu", t->b.idle_s,
					    (unsigned long long)t->bytes);
			bounds_failed(pid, e, &why, err);
			rc = -1;
		} else {
			rc = message(t, pid, err);
			sbuf_reset(&t->w->j.msg);
			t->w->j.opcode = 0;
		}
	}
	sbuf_free(&why);
	return rc < 0 ? -1 : 0;
}

/* After a failure, the rest of the snapshot read and dropped until its
 * answer: V8 goes on with it whatever we do, and ending the inspector
 * (process._debugEnd) before it has ended crashes Node 20 (SIGSEGV).
 * Bounded by the quiet only, and at most BOUNDS_WALL_S: 1 when the
 * answer came. */
static int drain(struct take *t, pid_t pid)
{
	double t0 = hw_now(), last = t0;
	enum stream_end e;
	struct sbuf why;

	sbuf_init(&why);
	if (stop_sig)
		fprintf(stderr, "heapwalk: interrupted: waiting for Node to end the snapshot it was asked for, then "
			"closing its inspector (again: left open)\n");
	t->draining = 1;
	t->b.wall_s = BOUNDS_WALL_S;
	while (!t->answered && next_message(t, t0, &last, &e, &why) == 1) {
		message(t, pid, &why);
		sbuf_reset(&t->w->j.msg);
		t->w->j.opcode = 0;
	}
	sbuf_free(&why);
	return t->answered;
}

/* Close the inspector we opened: process._debugEnd() evaluated (it ends
 * the inspector, our session with it, without waiting for us), then its
 * listener waited for to go. 1 when it has gone. */
static int close_inspector(struct ws *w, pid_t pid, const struct listener *l)
{
	static const char end[] = "{\"id\":2,\"method\":\"Runtime.evaluate\",\"params\":"
				  "{\"expression\":\"process._debugEnd()\"}}";
	struct listener now[MAX_LISTENERS];

	if (w->s < 0 || ws_send(w, WS_TEXT, end, sizeof end - 1) < 0)
		return 0;
	for (double t = hw_now() + CLOSE_WAIT_S; hw_now() < t; usleep(50000)) {
		int n = listeners(pid, now), there = 0;
		for (int i = 0; i < n; i++)
			there |= now[i].ino == l->ino;
		if (n >= 0 && !there)
			return 1;
	}
	return 0;
}

/* The snapshot over the open WebSocket into tmp: 0, or -1 with err. */
static int snapshot_into(struct ws *w, pid_t pid, const char *tmp, const char *file, int progress,
			 uint64_t *bytes, int *settled, struct sbuf *err)
{
	static const char cmd[] = "{\"id\":1,\"method\":\"HeapProfiler.takeHeapSnapshot\","
				  "\"params\":{\"reportProgress\":true}}";
	struct take t = { .w = w, .progress = progress, .tmp = tmp, .answered = 1 };
	int rc = -1;

	if ((t.fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0) {
		sbuf_printf(err, "%s: cannot create: %s", tmp, strerror(errno));
		return -1;
	}
	sbuf_init(&t.chunk);
	if (bounds_get(t.fd, file, &t.b, err) < 0)
		goto out;
	t.answered = 0;
	if (ws_send(w, WS_TEXT, cmd, sizeof cmd - 1) < 0) {
		sbuf_printf(err, "PID %ld: its inspector's connection broke", (long)pid);
		goto out;
	}
	if (receive(&t, pid, err) < 0) {
		if (!t.answered && t.w->s >= 0)
			drain(&t, pid);
		goto out;
	}
	if (t.bytes == 0) {
		sbuf_printf(err, "PID %ld: its inspector answered with no snapshot", (long)pid);
		goto out;
	}
	if (fsync(t.fd) < 0) {
		sbuf_printf(err, "%s: cannot write: %s", tmp, strerror(errno));
		goto out;
	}
	*bytes = t.bytes;
	rc = 0;
out:
	if (t.line_open) /* an error's line begins a line of its own */
		fputc('\n', stderr);
	*settled = t.answered;
	if (close(t.fd) < 0 && rc == 0) {
		sbuf_printf(err, "%s: cannot write: %s", tmp, strerror(errno));
		rc = -1;
	}
	sbuf_free(&t.chunk);
	return rc;
}

/* The snapshot from the network namespace we are in: the process's
 * (node_snapshot). */
static int snapshot_here(const struct proc_info *p, const char *file, int progress, struct sbuf *result,
			 struct sbuf *err)
{
	struct ws w = { .s = -1 };
	struct listener at;
	struct sbuf path;
	struct stat st;
	char *tmp = xasprintf("%s.tmp-%ld", file, (long)getpid());
	int opened = 0, rc = -1, guarded = 0, settled = 1, caught = 0;
	uint64_t bytes = 0;
	double t0 = hw_now();

	sbuf_init(&path);
	sbuf_init(&w.in);
	sbuf_init(&w.j.msg);
	if (lstat(file, &st) == 0) {
		sbuf_printf(err, "%s: exists already; the snapshot is not written over it", file);
		goto done;
	}
	if (inspector(p, &at, &path, &opened, err) < 0 || ws_open(&w, p->pid, &at, path.buf, err) < 0)
		goto done;
	guarded = tmp_guard(tmp) == 0;
	stop_catch();
	caught = 1;
	if (snapshot_into(&w, p->pid, tmp, file, progress, &bytes, &settled, err) < 0)
		goto done;
	if (link(tmp, file) < 0) { /* never over an existing file */
		sbuf_printf(err, "%s: %s", file, strerror(errno));
		goto done;
	}
	sbuf_printf(result, "snapshot %s: %llu bytes of V8 heap snapshot, %.2f s", file, (unsigned long long)bytes,
		    hw_now() - t0);
	rc = 0;
done:
	if (opened) { /* on failure too: the inspector is not left open behind us */
		int gone = settled && w.s >= 0 && close_inspector(&w, p->pid, &at);
		if (rc == 0)
			sbuf_printf(result, "; its inspector, opened for it, %s", gone ? "closed again"
										: "could not be closed (it listens still)");
		else if (!gone)
			sbuf_printf(err, "; its inspector, opened for it, is left open on port %d%s", at.port,
				    settled ? "" : " (its snapshot had not ended: closing it then would end Node)");
	} else if (rc == 0)
		sbuf_printf(result, "; its inspector (on port %d) left open as it was", at.port);
	if (caught)
		stop_release();
	ws_close(&w);
	unlink(tmp);
	if (guarded)
		tmp_unguard(tmp);
	free(tmp);
	sbuf_free(&path);
	return rc;
}

/* ---- another network namespace ---- */

static volatile pid_t netns_child;

/* SIGTERM for heapwalk is for the child, which ends the snapshot as it
 * would have (a terminal's ^C and hangup reach both: the parent ignores
 * those). */
static void forward(int sig)
{
	if (netns_child > 0)
		kill(netns_child, sig);
}

/* In a child: into the namespace ns, the snapshot, its line to fd. */
static _Noreturn void netns_run(int ns, int fd, const struct proc_info *p, const char *file, int progress,
				const int sigs[3], const struct sigaction old[3])
{
	struct sbuf res, e;
	int rc = -1;

	sbuf_init(&res);
	sbuf_init(&e);
	for (int i = 0; i < 3; i++) /* heapwalk's own, as the parent had them */
		sigaction(sigs[i], &old[i], NULL);
	if (setns(ns, CLONE_NEWNET) < 0)
		sbuf_printf(&e, "PID %ld: cannot enter its network namespace (%s)", (long)p->pid, strerror(errno));
	else
		rc = snapshot_here(p, file, progress, &res, &e);
	const struct sbuf *line = rc == 0 ? &res : &e;
	write_full(fd, rc == 0 ? "0" : "1", 1);
	write_full(fd, line->buf, line->len);
	_exit(0);
}

/* The snapshot from a child that has entered the process's network
 * namespace (root only: setns needs CAP_SYS_ADMIN there), where its
 * 127.0.0.1 is; the child's line comes back on a pipe. */
static int snapshot_netns(const struct proc_info *p, const char *file, int progress, struct sbuf *result,
			  struct sbuf *err)
{
	char path[64];
	int fd[2];
	struct sigaction sa, old[3];
	static const int sigs[] = { SIGINT, SIGHUP, SIGTERM };

	snprintf(path, sizeof path, "/proc/%ld/ns/net", (long)p->pid);
	int ns = open(path, O_RDONLY | O_CLOEXEC);
	if (ns < 0 || pipe2(fd, O_CLOEXEC) < 0) {
		sbuf_printf(err, "PID %ld: cannot open %s (%s)", (long)p->pid, path, strerror(errno));
		if (ns >= 0)
			close(ns);
		return -1;
	}
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 3; i++) { /* before the fork: no signal between */
		sa.sa_handler = sigs[i] == SIGTERM ? forward : SIG_IGN;
		sigaction(sigs[i], &sa, &old[i]);
	}
	fflush(NULL);
	pid_t c = fork();
	if (c == 0) {
		close(fd[0]);
		netns_run(ns, fd[1], p, file, progress, sigs, old);
	}
	netns_child = c;
	close(ns);
	close(fd[1]);
	struct sbuf got;
	char buf[4096];
	ssize_t n;
	sbuf_init(&got);
	while (c > 0 && got.len < 65536 && ((n = read(fd[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)))
		if (n > 0)
			sbuf_add(&got, buf, (size_t)n);
	close(fd[0]);
	int st = 0;
	while (c > 0 && waitpid(c, &st, 0) < 0 && errno == EINTR)
		;
	netns_child = 0;
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	int rc = got.len > 0 && got.buf[0] == '0' ? 0 : -1;
	if (got.len > 0)
		sbuf_add(rc == 0 ? result : err, got.buf + 1, got.len - 1);
	else if (c < 0)
		sbuf_printf(err, "PID %ld: cannot fork (%s)", (long)p->pid, strerror(errno));
	else
		sbuf_printf(err, "PID %ld: the child in its network namespace ended %s %d, saying nothing", (long)p->pid,
			    WIFSIGNALED(st) ? "by signal" : "with status", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	sbuf_free(&got);
	return rc;
}

int node_snapshot(const struct proc_info *p, const char *file, int progress, struct sbuf *result, struct sbuf *err)
{
	if (same_netns(p))
		return snapshot_here(p, file, progress, result, err);
	if (geteuid() != 0) {
		sbuf_printf(err, "PID %ld is in another network namespace (a container's?): its inspector's 127.0.0.1 "
			    "is not ours, and only root may enter it; not signalled (as root, or from inside: nsenter -t "
			    "%ld -n heapwalk snapshot ...)", (long)p->pid, (long)p->pid);
		return -1;
	}
	return snapshot_netns(p, file, progress, result, err);
}
