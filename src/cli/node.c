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
#include <time.h>
#include <unistd.h>

#include "cli/bounds.h"
#include "cli/devtools.h"

#define MAX_LISTENERS 16  /* asked at most: an inspector is one of few */
#define PROBE_S 2         /* for an answer to GET /json/list */
#define OPEN_WAIT_S 30    /* for the inspector SIGUSR1 opens (HEAPWALK_INSPECTOR_WAIT) */
#define LATE_WAIT_S 15    /* more, after that or ^C: for an inspector to close, opened late */
#define POLL_US 250000    /* between looks at its sockets */
#define CLOSE_WAIT_S 5    /* for the inspector we opened to close */
#define EXIT_WAIT_S 5     /* for a process whose connection ended to be gone */
#define BLOCKED_LOOKS 5   /* at the main thread, POLL_US apart, before it is called blocked */
#define READ_CHUNK (256u << 10)

/* A listening socket of the process, and the address we dial it at:
 * its own (a wildcard's: loopback), in network order. */
struct listener {
	unsigned long ino;
	int port, v6;
	uint8_t addr[16];
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
	if (n > 1) /* none: v is NULL, which qsort may not be given */
		qsort(v, n, sizeof *v, cmp_ul);
	*out = v;
	return (long)n;
}

static int has_inode(const unsigned long *v, long n, unsigned long ino)
{
	return n > 0 && bsearch(&ino, v, (size_t)n, sizeof *v, cmp_ul) != NULL;
}

/* One line of /proc/PID/net/tcp{,6}. */
struct tcp_ent {
	int v6, lport, rport;
	uint8_t la[16], ra[16]; /* network order */
	unsigned st;
	unsigned long ino;
};

/* A /proc/net/tcp{,6} address: 32-bit words, each printed as the
 * kernel holds it (in network order in memory): the bytes of each word
 * as they lie in ours. 0, or -1 when not one. */
static int tcp_addr(const char *hex, int v6, uint8_t out[16])
{
	size_t words = v6 ? 4 : 1;

	if (strlen(hex) != words * 8)
		return -1;
	memset(out, 0, 16);
	for (size_t i = 0; i < words; i++) {
		char w[9];
		memcpy(w, hex + 8 * i, 8);
		w[8] = '\0';
		uint32_t x = (uint32_t)strtoul(w, NULL, 16);
		memcpy(out + 4 * i, &x, 4);
	}
	return 0;
}

/* Can we reach a listener on a (local address of the table): on
 * loopback, 127.0.0.0/8 or ::1, or a wildcard? Into dial: where. */
static int reachable(const uint8_t a[16], int v6, uint8_t dial[16])
{
	static const uint8_t any[16], lo6[16] = { [15] = 1 }, lo4[4] = { 127, 0, 0, 1 };

	memset(dial, 0, 16);
	if (v6 && (memcmp(a, any, 16) == 0 || memcmp(a, lo6, 16) == 0)) {
		memcpy(dial, lo6, 16);
		return 1;
	}
	if (v6)
		return 0;
	if (memcmp(a, any, 4) == 0)
		memcpy(dial, lo4, 4);
	else if (a[0] == 127)
		memcpy(dial, a, 4);
	return dial[0] == 127;
}

/* One line of /proc/PID/net/tcp{,6}: 1 with it in e, 0 for the heading
 * or a line not understood. */
static int tcp_line(const char *line, int v6, struct tcp_ent *e)
{
	char la[48], ra[48];
	unsigned lp, rp;

	if (sscanf(line, " %*[0-9]: %40[0-9A-Fa-f]:%x %40[0-9A-Fa-f]:%x %x %*s %*s %*s %*u %*u %lu", la, &lp, ra, &rp,
		   &e->st, &e->ino) != 6 || tcp_addr(la, v6, e->la) < 0 || tcp_addr(ra, v6, e->ra) < 0)
		return 0;
	e->v6 = v6;
	e->lport = (int)lp;
	e->rport = (int)rp;
	return 1;
}

/* Call fn for each line of pid's TCP tables; stops when it returns 1. */
typedef int (*tcp_fn)(void *arg, const struct tcp_ent *e);

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
		struct tcp_ent e;
		while (!stop && getline(&line, &cap, f) > 0)
			if (tcp_line(line, v6, &e))
				stop = fn(arg, &e);
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

static int gather_one(void *arg, const struct tcp_ent *e)
{
	struct gather *g = arg;
	struct listener l = { e->ino, e->lport, e->v6, { 0 } };

	if (e->st == 0x0a && e->ino != 0 && has_inode(g->inos, g->n, e->ino) && g->count < MAX_LISTENERS &&
	    reachable(e->la, e->v6, l.addr))
		g->out[g->count++] = l;
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

/* Our connection as the far end sees it: its local address and port
 * (our peer), its remote ones (us). */
struct served {
	const unsigned long *inos;
	long n;
	struct tcp_ent want;
	int found;
};

static int served_one(void *arg, const struct tcp_ent *e)
{
	struct served *s = arg;
	const struct tcp_ent *w = &s->want;

	if (e->v6 == w->v6 && e->lport == w->lport && e->rport == w->rport && memcmp(e->la, w->la, 16) == 0 &&
	    memcmp(e->ra, w->ra, 16) == 0 && has_inode(s->inos, s->n, e->ino))
		s->found = 1;
	return s->found;
}

/* a (of our socket, of family v6's) as a table's address and port. */
static int sock_addr(const struct sockaddr_storage *a, int v6, uint8_t out[16], int *port)
{
	memset(out, 0, 16);
	if (v6 && a->ss_family == AF_INET6) {
		const struct sockaddr_in6 *x = (const struct sockaddr_in6 *)a;
		memcpy(out, &x->sin6_addr, 16);
		*port = ntohs(x->sin6_port);
		return 0;
	}
	if (!v6 && a->ss_family == AF_INET) {
		const struct sockaddr_in *x = (const struct sockaddr_in *)a;
		memcpy(out, &x->sin_addr, 4);
		*port = ntohs(x->sin_port);
		return 0;
	}
	return -1;
}

/* Is the far end of our connection s a socket of pid's: one of its
 * files whose local address and port are our peer's and whose remote
 * ones are ours? (Ports alone are not enough: another process may
 * answer us and have pid connect to it from a port like ours.) The
 * two ends, as pid's table has them, into ends when not NULL. */
static int far_end(int s, pid_t pid, const struct listener *l, struct tcp_ent *ends)
{
	struct sockaddr_storage me, peer;
	socklen_t len = sizeof me, plen = sizeof peer;
	unsigned long *inos = NULL;
	struct served sv = { .want = { .v6 = l->v6 } };

	if (getsockname(s, (struct sockaddr *)&me, &len) < 0 || getpeername(s, (struct sockaddr *)&peer, &plen) < 0 ||
	    sock_addr(&me, l->v6, sv.want.ra, &sv.want.rport) < 0 ||
	    sock_addr(&peer, l->v6, sv.want.la, &sv.want.lport) < 0 || sv.want.lport != l->port)
		return 0;
	long n = socket_inodes(pid, &inos);
	sv.inos = inos;
	sv.n = n;
	if (n > 0)
		tcp_each(pid, served_one, &sv);
	free(inos);
	if (ends != NULL)
		*ends = sv.want;
	return sv.found;
}

/* Is the far end of our connection s (to l) a socket of pid's? */
static int served_by(int s, pid_t pid, const struct listener *l)
{
	return far_end(s, pid, l, NULL);
}

struct others {
	const unsigned long *inos;
	long n;
	struct tcp_ent at;  /* the listener's address and port; ours as remote */
	int count;
};

static int other_one(void *arg, const struct tcp_ent *e)
{
	struct others *o = arg;

	if (e->st == 0x01 && e->v6 == o->at.v6 && e->lport == o->at.lport && memcmp(e->la, o->at.la, 16) == 0 &&
	    !(e->rport == o->at.rport && memcmp(e->ra, o->at.ra, 16) == 0) && has_inode(o->inos, o->n, e->ino))
		o->count++;
	return 0;
}

/* How many connections besides ours (s) pid's inspector at l holds: a
 * session of another client (a second heapwalk's snapshot, whose end
 * would close the inspector under ours; DevTools). */
static int other_sessions(int s, pid_t pid, const struct listener *l)
{
	struct others o = { .at = { .v6 = l->v6 } };
	unsigned long *inos = NULL;

	if (!far_end(s, pid, l, &o.at))
		return 0;
	long n = socket_inodes(pid, &inos);
	o.inos = inos;
	o.n = n;
	if (n > 0)
		tcp_each(pid, other_one, &o);
	free(inos);
	return o.count;
}
/* ---- connections ---- */

/* The listener's address as a Host header's ("127.0.0.2", "[::1]"). */
static void host_of(const struct listener *l, char *out, size_t n)
{
	char a[INET6_ADDRSTRLEN];

	if (inet_ntop(l->v6 ? AF_INET6 : AF_INET, l->addr, a, sizeof a) == NULL)
		snprintf(a, sizeof a, "%s", l->v6 ? "::1" : "127.0.0.1");
	snprintf(out, n, l->v6 ? "[%s]" : "%s", a);
}

/* A connection to l at its own address (not another's on its port). */
static int connect_to(const struct listener *l)
{
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons((uint16_t)l->port) };
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons((uint16_t)l->port) };
	struct timeval tv = { PROBE_S, 0 };
	int s = socket(l->v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return -1;
	memcpy(&a4.sin_addr, l->addr, 4);
	memcpy(&a6.sin6_addr, l->addr, 16);
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
	char req[160], host[INET6_ADDRSTRLEN + 2];
	int s = connect_to(l), whole = 0, rc = -1;
	double end = hw_now() + PROBE_S;

	if (s < 0)
		return -1;
	sbuf_init(&in);
	host_of(l, host, sizeof host);
	snprintf(req, sizeof req, "GET /json/list HTTP/1.1\r\nHost: %s:%d\r\nConnection: close\r\n\r\n", host,
		 l->port);
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

/* ---- interrupts ---- */

/* ^C, SIGTERM, SIGHUP from before SIGUSR1 is sent: the first ends the
 * wait for the inspector or the copy of the snapshot, and heapwalk
 * still waits for the inspector to open, or for the snapshot's answer,
 * before it ends an inspector it opened; the signal's own action is
 * back then, so a second one acts as it would have (tmp_guard's: the
 * file removed). */
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

/* ---- the signal ---- */

/* Where p's main thread sleeps in the kernel (/proc/PID/wchan): 1 with
 * it in out; 0 when it runs, or it cannot be told (a kernel that hides
 * it says "0"). */
static int sleeps_in(const struct proc_info *p, char *out, size_t n)
{
	char path[64];
	char st = proc_state(p);

	if (st == 'R')
		return 0;
	snprintf(path, sizeof path, "/proc/%ld/wchan", (long)p->pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t k = fd >= 0 ? read(fd, out, n - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (k <= 0)
		return 0;
	out[k] = '\0';
	out[strcspn(out, "\n")] = '\0';
	return strcmp(out, "0") != 0 && out[0] != '\0';
}

/* Is p's main thread blocked in a call that is not its event loop's
 * wait (a synchronous read of a FIFO, execSync)? Node opens its
 * inspector for SIGUSR1 on that thread only once it runs JavaScript or
 * its loop again: perhaps long after heapwalk has given up, listening
 * then for any local user. Seen so BLOCKED_LOOKS times in a row: 1 with
 * err; running, in epoll_wait, or unknown at any look: 0. */
static int blocked(const struct proc_info *p, struct sbuf *err)
{
	char w[64];

	for (int i = 0; i < BLOCKED_LOOKS; i++) {
		if (i > 0)
			usleep(POLL_US);
		if (!sleeps_in(p, w, sizeof w) || strstr(w, "epoll") != NULL || strcmp(w, "ep_poll") == 0)
			return 0;
	}
	sbuf_printf(err, "PID %ld: its main thread is blocked in the kernel (", (long)p->pid);
	esc_append(err, (const uint8_t *)w, strlen(w), 0);
	sbuf_printf(err, "), not in its event loop: Node would open its inspector for SIGUSR1 only once the call "
		    "returns, perhaps after heapwalk has gone, and leave it open; not signalled");
	return 1;
}

/* May p be sent SIGUSR1 now? 0, or -1 with err. */
static int signallable(const struct proc_info *p, struct sbuf *err)
{
	const char *how;

	if (proc_same(p, err) < 0)
		return -1;
	if ((how = proc_stopped(p)) != NULL) {
		sbuf_printf(err, "PID %ld is stopped (%s): a signal would wait with it; not signalled", (long)p->pid, how);
		return -1;
	}
	if (blocked(p, err))
		return -1;
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
 * with err, *opened -1 when p was signalled but no inspector came (it
 * may come later: late_close). before[*nb]: the listeners before. */
static int inspector(const struct proc_info *p, struct listener before[MAX_LISTENERS], int *nb, struct listener *at,
		     struct sbuf *path, int *opened, struct sbuf *err)
{
	struct listener now[MAX_LISTENERS];
	int nn;
	double wait_s;

	*opened = 0;
	if (seconds_env("HEAPWALK_INSPECTOR_WAIT", OPEN_WAIT_S, &wait_s, err) < 0) /* before any signal */
		return -1;
	if ((*nb = listeners(p->pid, before)) < 0) {
		sbuf_printf(err, "PID %ld: cannot read its open files in /proc/%ld/fd (%s)", (long)p->pid, (long)p->pid,
			    strerror(errno));
		return -1;
	}
	if (find(p->pid, before, *nb, NULL, 0, at, path) == 0)
		return 0;
	if (signal_usr1(p, err) < 0)
		return -1;
	*opened = -1;
	for (double end = hw_now() + wait_s; hw_now() < end && !stop_sig; usleep(POLL_US)) {
		if (proc_same(p, err) < 0)
			return -1;
		nn = listeners(p->pid, now);
		if (nn > 0 && find(p->pid, now, nn, before, *nb, at, path) == 0) {
			*opened = 1;
			return 0;
		}
	}
	if (stop_sig)
		sbuf_printf(err, "PID %ld: interrupted (signal %d) while it opened its inspector", (long)p->pid,
			    (int)stop_sig);
	else
		sbuf_printf(err, "PID %ld was sent SIGUSR1 but opened no inspector in %g s (HEAPWALK_INSPECTOR_WAIT; its "
			    "own SIGUSR1 handler, process.on('SIGUSR1'), takes the signal; or its inspector port, 9229 "
			    "unless --inspect-port says, is taken by another process)", (long)p->pid, wait_s);
	return -1;
}

/* ---- the WebSocket ---- */

struct ws {
	int s;
	int ended;       /* the other end closed the connection */
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
	char key[25], accept[29], host[INET6_ADDRSTRLEN + 2];
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
	host_of(l, host, sizeof host);
	if ((w->s = connect_to(l)) < 0) {
		sbuf_printf(err, "PID %ld: cannot connect to its inspector on port %d (%s)", (long)pid, l->port,
			    strerror(errno));
		return -1;
	}
	char *req = xasprintf("GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
			      "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n",
			      path, host, l->port, key);
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
	int others = other_sessions(w->s, pid, l);
	if (others > 0) {
		sbuf_printf(err, "PID %ld: its inspector on port %d has %d other connection%s (another snapshot, or a "
			    "debugger, in progress): not used", (long)pid, l->port, others, others == 1 ? "" : "s");
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

/* Has process p exited (gone, or a zombie), looking again for up to
 * wait_s seconds? A killed process's sockets close before it is a
 * zombie: its connection can end while /proc still shows it running. */
static int exited(const struct proc_info *p, double wait_s)
{
	double end = hw_now() + wait_s;
	for (;;) {
		struct sbuf why;
		sbuf_init(&why);
		int gone = proc_same(p, &why) < 0 || proc_state(p) == 'Z';
		sbuf_free(&why);
		if (gone || hw_now() >= end || stop_sig)
			return gone;
		usleep(20000);
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

struct take {
	struct ws *w;
	int fd, progress;
	struct pieces out; /* to fd */
	const char *tmp;
	uint64_t bytes;
	struct stream_bounds b;
	struct sbuf chunk;
	int draining; /* failed: the rest is read and dropped until the answer */
	int answered; /* the snapshot's command has answered, or was never sent */
	int line_open; /* a progress line without its newline on stderr */
};

/* The snapshot's first keys, which say it is heapwalk's: closing the
 * session it came through clears V8's object ids, so that ids in it
 * name nothing in a later snapshot (the v8 reader reads it, and
 * baseline.c compares by content then); and when it was taken (its
 * first bytes came: V8 has made it then), in milliseconds since 1970,
 * which V8's own snapshots do not say: the order of two of heapwalk's
 * is checked. DevTools' loader and memlab read past keys they do not
 * know in the snapshot object. */
static const char snap_head[] = "{\"snapshot\":{";
#define SNAP_MARK                                                                   \
	"\"heapwalk\":\"ids reset when this snapshot's inspector session closed\"," \
	"\"heapwalk_taken_ms\":%llu,"

/* The first chunk, the mark after its head, to t->fd: 0, or -1 with
 * err. The chunk is left with what follows the head. */
static int marked(struct take *t, pid_t pid, struct sbuf *err)
{
	size_t h = sizeof snap_head - 1;
	struct timespec now;
	char mark[sizeof SNAP_MARK + 24];
	int e;

	if (t->chunk.len < h || memcmp(t->chunk.buf, snap_head, h) != 0) {
		sbuf_printf(err, "PID %ld: its snapshot does not begin with {\"snapshot\":{ as V8's do", (long)pid);
		return -1;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	size_t m = (size_t)snprintf(mark, sizeof mark, SNAP_MARK,
				    (unsigned long long)now.tv_sec * 1000 + (unsigned long long)now.tv_nsec / 1000000);
	if ((e = pieces_add(&t->out, snap_head, h)) != 0 || (e = pieces_add(&t->out, mark, m)) != 0) {
		sbuf_printf(err, "%s: cannot write: %s", t->tmp, strerror(e));
		return -1;
	}
	t->bytes += h + m;
	memmove(t->chunk.buf, t->chunk.buf + h, t->chunk.len - h);
	t->chunk.len -= h;
	return 0;
}

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
	} else if (d.kind == DT_CHUNK && t->bytes == 0 && marked(t, pid, err) < 0) {
		rc = -1;
	} else if (d.kind == DT_CHUNK) {
		int e = pieces_add(&t->out, t->chunk.buf, t->chunk.len);
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
			t->w->ended = 1;
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
	for (double t = hw_now() + CLOSE_WAIT_S; hw_now() < t; usleep(POLL_US)) {
		int n = listeners(pid, now), there = 0;
		for (int i = 0; i < n; i++)
			there |= now[i].ino == l->ino;
		if (n >= 0 && !there)
			return 1;
	}
	return 0;
}

/* The file tmp (to be linked as file) made anew, only for us: its
 * descriptor, or -1 with err naming file. */
static int tmp_create(const char *tmp, const char *file, struct sbuf *err)
{
	int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd < 0)
		sbuf_printf(err, "%s: cannot create: %s", file, strerror(errno)); /* (its temporary copy beside it) */
	return fd;
}

/* The snapshot over the open WebSocket into tmp: 0, or -1 with err. */
static int snapshot_into(struct ws *w, pid_t pid, const char *tmp, const char *file, int progress,
			 uint64_t *bytes, int *settled, struct sbuf *err)
{
	static const char cmd[] = "{\"id\":1,\"method\":\"HeapProfiler.takeHeapSnapshot\","
				  "\"params\":{\"reportProgress\":true}}";
	struct take t = { .w = w, .progress = progress, .tmp = tmp, .answered = 1 };
	int rc = -1;

	if ((t.fd = tmp_create(tmp, file, err)) < 0)
		return -1;
	sbuf_init(&t.chunk);
	pieces_open(&t.out, t.fd);
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
	int e = pieces_flush(&t.out);
	if (e != 0 || fsync(t.fd) < 0) {
		sbuf_printf(err, "%s: cannot write: %s", tmp, strerror(e != 0 ? e : errno));
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
	pieces_close(&t.out);
	return rc;
}

/* The file tmp (to be linked as file) made, its room measured, and
 * removed again: 0, or -1 with err. Before any question of the process:
 * a directory that is not there, cannot be written or is full fails in
 * one line, never signalled. The file is made for good once the
 * inspector's session is open (snapshot_into). */
static int tried(const char *tmp, const char *file, struct sbuf *err)
{
	struct stream_bounds b;
	int fd = tmp_create(tmp, file, err);

	if (fd < 0)
		return -1;
	int rc = bounds_get(fd, file, &b, err);
	close(fd);
	unlink(tmp);
	return rc;
}

/* p was signalled and opened no inspector in time, or heapwalk was
 * interrupted: Node may open it yet (its main thread busy, the machine
 * loaded), and it would listen for any local user. Waited for a while
 * longer, and closed when it comes; said in err either way. */
static void late_close(const struct proc_info *p, const struct listener *before, int nb, struct sbuf *err)
{
	struct listener now[MAX_LISTENERS], at;
	struct sbuf path, why;
	struct ws w = { .s = -1 };
	int found = 0, closed = 0;

	sbuf_init(&path);
	sbuf_init(&why);
	sbuf_init(&w.in);
	sbuf_init(&w.j.msg);
	if (stop_sig) /* else quiet: the error is one line */
		fprintf(stderr, "heapwalk: PID %ld: waiting up to %d s for the inspector SIGUSR1 asked for, to close "
			"it (interrupt again: not waited for)\n", (long)p->pid, LATE_WAIT_S);
	for (double end = hw_now() + LATE_WAIT_S; !found && hw_now() < end; usleep(POLL_US)) {
		if (proc_same(p, &why) < 0)
			break;
		int nn = listeners(p->pid, now);
		found = nn > 0 && find(p->pid, now, nn, before, nb, &at, &path) == 0;
	}
	if (found && ws_open(&w, p->pid, &at, path.buf, &why) == 0)
		closed = close_inspector(&w, p->pid, &at);
	if (closed)
		sbuf_printf(err, "; its inspector opened late, on port %d, and was closed again", at.port);
	else if (found)
		sbuf_printf(err, "; its inspector opened late, on port %d, and could not be closed: it listens for any "
			    "local user until the process ends", at.port);
	else if (proc_same(p, &why) == 0)
		sbuf_printf(err, "; it may still open it, listening for any local user until the process ends or "
			    "evaluates process._debugEnd()");
	ws_close(&w);
	sbuf_free(&path);
	sbuf_free(&why);
}

/* The snapshot from the network namespace we are in: the process's
 * (node_snapshot). */
static int snapshot_here(const struct proc_info *p, const char *file, int progress, struct sbuf *result,
			 struct sbuf *err)
{
	struct ws w = { .s = -1 };
	struct listener at, before[MAX_LISTENERS];
	int nb = 0;
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
	guarded = tmp_guard(tmp) == 0;
	if (tried(tmp, file, err) < 0)
		goto done;
	stop_catch(); /* before the signal: an inspector it opens is closed */
	caught = 1;
	if (inspector(p, before, &nb, &at, &path, &opened, err) < 0) {
		if (opened < 0)
			late_close(p, before, nb, err);
		opened = 0;
		goto done;
	}
	if (ws_open(&w, p->pid, &at, path.buf, err) < 0)
		goto done;
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
		else if (!gone) {
			if (exited(p, w.ended ? EXIT_WAIT_S : 0)) /* a process gone has no inspector left */
				sbuf_printf(err, "; PID %ld has exited", (long)p->pid);
			else
				sbuf_printf(err, "; its inspector, opened for it, is left open on port %d%s", at.port,
					    settled ? "" : " (its snapshot had not ended: closing it then would end Node)");
		}
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

/* SIGINT, SIGHUP, SIGTERM sent to heapwalk are for the child, which
 * ends the snapshot as it would have; one the kernel sent (a terminal's
 * ^C and hangup, which reach the child too) is not sent again. */
static void forward(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	if (netns_child > 0 && si->si_code != SI_KERNEL)
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
	sa.sa_sigaction = forward;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	for (int i = 0; i < 3; i++) /* before the fork: no signal between */
		sigaction(sigs[i], &sa, &old[i]);
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
