/* dotnet.c — heapwalk snapshot for .NET processes (dotnet.h).
 *
 * The diagnostics IPC protocol (dotnet/diagnostics,
 * documentation/design-docs/ipc-protocol.md): one command per
 * connection to the process's Unix socket; a message is a 20-byte
 * header ("DOTNET_IPC_V1\0", uint16 size of the whole message, command
 * set, command id, uint16 0) and a payload, little-endian; strings are
 * a uint32 count of UTF-16 units with the NUL, then the units. An OK
 * reply to CollectTracing2 (set 2, id 3) carries the session id, and the
 * nettrace stream follows on that connection until StopTracing (set 2,
 * id 1, on a second connection) ends it. */
#include "cli/dotnet.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "engine/open.h"
#include "format/nettrace.h" /* the provider to ask for, NT_RUNTIME_PROVIDER */
#include "cli/bounds.h"
#include "stream.h"

#define IPC_MAGIC "DOTNET_IPC_V1"
#define SET_EVENTPIPE 0x02
#define CMD_STOP 0x01
#define CMD_COLLECT2 0x03
#define CMD_COLLECT4 0x05           /* .NET 9 on: the rundown's keywords chosen */
#define SET_SERVER 0xff
#define HR_UNKNOWN_COMMAND 0x80131385u

#define BUFFER_MB 1024              /* the session's buffer: a heap reported whole */
#define HEAP_KEYWORDS 0x1d80001ull /* GC | Type | GCHeapDump | GCHeapSurvivalAndMovement | GCHeapCollect | GCHeapAndTypeNames */
#define LEVEL_VERBOSE 5
/* The rundown a snapshot asks for: the loader's at the session's end
 * (Loader | EndRundown: the modules, which tell apart the types one name
 * has in several), not the JIT's every compiled method as well (the
 * runtime's default rundown), which a long-running process has many of */
#define RUNDOWN_LOADER 0x108ull
#define START_WAIT_S 30            /* for the induced GC to start */
#define END_WAIT_S 600             /* for it to end, and the stream after Stop */

/* ---- the socket ---- */

/* Does pid see the file system we see (the same mount namespace)? Yes
 * when its namespace cannot be read: then /proc/PID/root could not be
 * either. */
static int same_mounts(pid_t pid)
{
	char path[64];
	struct stat ours, its;

	snprintf(path, sizeof path, "/proc/%ld/ns/mnt", (long)pid);
	if (stat("/proc/self/ns/mnt", &ours) < 0 || stat(path, &its) < 0)
		return 1;
	return ours.st_dev == its.st_dev && ours.st_ino == its.st_ino;
}

/* The runtime's temporary directory: TMPDIR in the environment the
 * process started with (its first), if set and not empty, else /tmp (as the
 * runtime's own GetTempPath), added to out. 0, or -1 with err. */
static int runtime_tmpdir(pid_t pid, struct sbuf *out, struct sbuf *err)
{
	char path[64], buf[65536];
	struct sbuf env;
	ssize_t n = 0;

	snprintf(path, sizeof path, "/proc/%ld/environ", (long)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	sbuf_init(&env);
	/* to its end: an environment may be longer than one read */
	while (fd >= 0 && (n = read(fd, buf, sizeof buf)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		sbuf_add(&env, buf, (size_t)n);
	}
	if (fd < 0 || n < 0) {
		sbuf_printf(err, "PID %ld: cannot read %s (%s)", (long)pid, path, strerror(errno));
		if (fd >= 0)
			close(fd);
		sbuf_free(&env);
		return -1;
	}
	close(fd);
	sbuf_addc(&env, '\0');
	/* the first TMPDIR= decides, as getenv finds it (an empty one too:
	 * then /tmp, whatever comes after it) */
	const char *dir = "/tmp";
	for (size_t i = 0; i < env.len; i += strlen(env.buf + i) + 1)
		if (strncmp(env.buf + i, "TMPDIR=", 7) == 0) {
			if (env.buf[i + 7] != '\0')
				dir = env.buf + i + 7;
			break;
		}
	sbuf_adds(out, dir);
	sbuf_free(&env);
	return 0;
}

int dotnet_socket_bound(pid_t pid, long nspid, unsigned long long start, struct sbuf *out, struct sbuf *err)
{
	size_t at = out->len;

	if (runtime_tmpdir(pid, out, err) < 0)
		return -1;
	if (out->buf[at] != '/') { /* a relative TMPDIR: the runtime's GetTempPath would take it so; we cannot */
		sbuf_printf(err, "PID %ld: its TMPDIR is not an absolute path: its diagnostics socket cannot be found",
			    (long)pid);
		return -1;
	}
	/* the runtime's name: its pid in its own PID namespace and, told
	 * apart from an earlier process of the same pid, its start time */
	sbuf_printf(out, "%sdotnet-diagnostic-%ld-%llu-socket", out->buf[out->len - 1] == '/' ? "" : "/", nspid, start);
	return 0;
}

int dotnet_socket(const struct proc_info *p, struct sbuf *out, struct sbuf *err)
{
	struct stat st;
	struct sbuf shown;

	sbuf_reset(out);
	/* A process in a mount namespace of its own (a container) has its
	 * TMPDIR in its own root: reached through /proc/PID/root. Anything
	 * there is its user's to make, so what is found is checked below
	 * and its listener must be the process itself (dotnet_connect). */
	if (!same_mounts(p->pid))
		sbuf_printf(out, "/proc/%ld/root", (long)p->pid);
	if (dotnet_socket_bound(p->pid, p->nspid, p->start, out, err) < 0)
		return -1;
	sbuf_init(&shown);
	esc_append(&shown, (const uint8_t *)out->buf, out->len, 0);
	int rc = -1;
	if (lstat(out->buf, &st) < 0)
		sbuf_printf(err, "PID %ld: no diagnostics socket %s (%s)", (long)p->pid, shown.buf,
			    errno == ENOENT ? "the runtime's diagnostics are off: DOTNET_EnableDiagnostics=0?"
					    : strerror(errno));
	else if (!S_ISSOCK(st.st_mode)) /* a symbolic link too: lstat */
		sbuf_printf(err, "PID %ld: %s is not a socket: not used", (long)p->pid, shown.buf);
	else if (st.st_uid != p->uid) /* planted by another user */
		sbuf_printf(err, "PID %ld: %s is owned by uid %ld, not by the process's user (uid %ld): not used",
			    (long)p->pid, shown.buf, (long)st.st_uid, (long)p->uid);
	else
		rc = 0;
	sbuf_free(&shown);
	return rc;
}

/* ---- messages ---- */

/* (dotnet.h) The socket must be served by that process itself
 * (SO_PEERCRED: who listens on it), not by whoever could put a socket
 * there. */
int dotnet_connect(const char *path, pid_t pid, struct sbuf *err)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct ucred cred = { 0 };
	socklen_t len = sizeof cred;
	int s;

	if (strlen(path) >= sizeof a.sun_path) {
		esc_append(err, (const uint8_t *)path, strlen(path), 0);
		sbuf_adds(err, ": the socket's path is too long to connect to (start the process with a shorter TMPDIR)");
		return -1;
	}
	memcpy(a.sun_path, path, strlen(path) + 1);
	if ((s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 || connect(s, (struct sockaddr *)&a, sizeof a) < 0) {
		int e = errno;
		if (s >= 0)
			close(s);
		esc_append(err, (const uint8_t *)path, strlen(path), 0);
		sbuf_printf(err, ": cannot connect: %s%s", strerror(e),
			    e == EACCES || e == EPERM ? " (the process runs as another user)" : "");
		return -1;
	}
	if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || cred.pid != pid) {
		close(s);
		sbuf_printf(err, "PID %ld: ", (long)pid);
		esc_append(err, (const uint8_t *)path, strlen(path), 0);
		sbuf_printf(err, " is served by process %ld, not by the runtime: not used", (long)cred.pid);
		return -1;
	}
	return s;
}

/* n bytes from fd within secs: 0, or -1 (EOF, error, time). */
static int read_full(int fd, uint8_t *p, size_t n, int secs)
{
	while (n > 0) {
		struct pollfd pf = { fd, POLLIN, 0 };
		if (poll(&pf, 1, secs * 1000) <= 0)
			return -1;
		ssize_t r = read(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static void put_u16(struct sbuf *m, uint16_t v) { sbuf_add(m, (const char *)&v, 2); }
static void put_u32(struct sbuf *m, uint32_t v) { sbuf_add(m, (const char *)&v, 4); }
static void put_u64(struct sbuf *m, uint64_t v) { sbuf_add(m, (const char *)&v, 8); }

static void put_string(struct sbuf *m, const char *s)
{
	put_u32(m, (uint32_t)strlen(s) + 1);
	for (size_t i = 0; i <= strlen(s); i++)
		put_u16(m, (uint8_t)s[i]);
}

static void header(struct sbuf *m, uint8_t set, uint8_t id)
{
	sbuf_add(m, IPC_MAGIC, sizeof IPC_MAGIC); /* its NUL too: 14 bytes */
	put_u16(m, 0);                            /* the size, set when the payload is there */
	sbuf_addc(m, (char)set);
	sbuf_addc(m, (char)id);
	put_u16(m, 0);
}

static void seal(struct sbuf *m)
{
	uint16_t n = (uint16_t)m->len;
	memcpy(m->buf + 14, &n, 2);
}

/* The reply's header and its first 8 payload bytes (or 4 of an error):
 * 0 with the session id, or -1 with err. */
static int reply(int s, const char *what, uint64_t *id, uint32_t *hr, struct sbuf *err)
{
	uint8_t h[20], p[8];

	*hr = 0;
	if (read_full(s, h, 20, 30) < 0 || memcmp(h, IPC_MAGIC, sizeof IPC_MAGIC) != 0) {
		sbuf_printf(err, "%s: no reply from the runtime (it exited, or is not a .NET runtime)", what);
		return -1;
	}
	uint16_t size = (uint16_t)(h[14] | h[15] << 8);
	if (h[16] == SET_SERVER && h[17] == 0xff && size >= 24 && read_full(s, p, 4, 30) == 0) {
		memcpy(hr, p, 4);
		sbuf_printf(err, "%s: the runtime refused it (HRESULT 0x%08x%s)", what, *hr,
			    *hr == HR_UNKNOWN_COMMAND ? ": the runtime is too old, .NET Core 3.1 or later is needed" : "");
		return -1;
	}
	if (h[16] != SET_SERVER || h[17] != 0 || size < 28 || read_full(s, p, 8, 30) < 0) {
		sbuf_printf(err, "%s: an unexpected reply from the runtime", what);
		return -1;
	}
	memcpy(id, p, 8);
	return 0;
}

/* ---- the heap dump in the stream ---- */

/* What the file holds so far: has the dump's GC started, ended? (its
 * reader's to tell, through the engine) */
static void look(int fd, uint64_t size, struct trace_watch *w)
{
	memset(w, 0, sizeof *w);
	void *m = size > 0 ? mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
	if (m == MAP_FAILED)
		return;
	trace_watch(m, size, w);
	munmap(m, (size_t)size);
}

int dotnet_stop_send(const char *path, pid_t pid, uint64_t id)
{
	struct sbuf m, err;

	sbuf_init(&m);
	sbuf_init(&err);
	header(&m, SET_EVENTPIPE, CMD_STOP);
	put_u64(&m, id);
	seal(&m);
	int s = dotnet_connect(path, pid, &err);
	if (s >= 0 && write_full(s, m.buf, m.len) != 0) {
		close(s);
		s = -1;
	}
	sbuf_free(&m);
	sbuf_free(&err);
	return s;
}

void dotnet_stop_end(int s)
{
	struct sbuf err;
	uint64_t back;
	uint32_t hr;

	if (s < 0)
		return;
	sbuf_init(&err);
	reply(s, "StopTracing", &back, &hr, &err);
	close(s);
	sbuf_free(&err);
}

void dotnet_stop(const char *path, pid_t pid, uint64_t id)
{
	dotnet_stop_end(dotnet_stop_send(path, pid, id));
}

/* The stream, to the file; looked at when it pauses, until the dump's
 * GC has ended; then Stop, and the rest to its end. A look reads the
 * file from its start: while the stream grows, only once it has doubled
 * (reading 2x the trace in all), and whenever it has been quiet for 0.3
 * s (the dump's end is followed by quiet). */
struct follow {
	int fd;
	const char *path;
	pid_t pid;
	uint64_t id, looked;
	struct trace_watch w;
	int stopped;
	int stop_sock; /* StopTracing sent on it, its reply read once the stream has ended */
	double stop_at, shown;
};

/* heapwalk PID's progress (dotnet_progress), and the last dump's pause */
static int show_progress;
static double last_pause_ms = -1;

void dotnet_progress(int on)
{
	show_progress = on && isatty(STDERR_FILENO);
}

double dotnet_pause_ms(void)
{
	return last_pause_ms;
}

/* The stream's bytes so far, on stderr's one line, a few times a second */
static void say_progress(struct follow *f, uint64_t bytes, double elapsed, int last)
{
	if (!show_progress || (!last && elapsed - f->shown < 0.25))
		return;
	f->shown = elapsed;
	if (last)
		fputs("\r\033[K", stderr);
	else
		fprintf(stderr, "\r\033[Kheapwalk: PID %ld: %.1f MB of the heap's stream, %.1f s%s", (long)f->pid,
			(double)bytes / 1e6, elapsed, f->w.ended ? " (the GC has ended)" : f->w.started ? " (in the GC)" : "");
	fflush(stderr);
}

static int follow_tick(void *arg, uint64_t bytes, double quiet, double elapsed)
{
	struct follow *f = arg;

	say_progress(f, bytes, elapsed, 0);

	if (!f->stopped && bytes > f->looked && (bytes >= 2 * f->looked || quiet >= 0.3)) {
		look(f->fd, bytes, &f->w);
		f->looked = bytes;
	}
	if (!f->stopped && (f->w.ended || elapsed > (f->w.started ? END_WAIT_S : START_WAIT_S))) {
		/* its reply comes once the rundown is in the stream: the
		 * stream is read on meanwhile, or the runtime, its socket's
		 * buffer full, would wait for us as we waited for it */
		f->stop_sock = dotnet_stop_send(f->path, f->pid, f->id);
		f->stopped = 1;
		f->stop_at = elapsed;
	}
	return f->stopped && elapsed - f->stop_at > END_WAIT_S;
}

int dotnet_collect(int s, uint64_t keywords, uint32_t level, uint32_t buffer_mb, uint64_t rundown, uint64_t *id,
		   uint32_t *hr, struct sbuf *err)
{
	struct sbuf m;
	int v4 = rundown != 0 && rundown != DOTNET_RUNDOWN_ALL;
	const char *what = v4 ? "CollectTracing4" : "CollectTracing2";
	int rc;

	sbuf_init(&m);
	header(&m, SET_EVENTPIPE, v4 ? CMD_COLLECT4 : CMD_COLLECT2);
	put_u32(&m, buffer_mb);
	put_u32(&m, 1);   /* nettrace */
	if (v4) {
		put_u64(&m, rundown);
		sbuf_addc(&m, 1); /* stacks, as CollectTracing2 records them */
	} else {
		sbuf_addc(&m, rundown ? 1 : 0);
	}
	put_u32(&m, 1);
	put_u64(&m, keywords);
	put_u32(&m, level);
	put_string(&m, NT_RUNTIME_PROVIDER);
	put_u32(&m, 0); /* no arguments */
	seal(&m);
	rc = write_full(s, m.buf, m.len) != 0 ? -1 : reply(s, what, id, hr, err);
	if (rc < 0 && err->len == 0)
		sbuf_printf(err, "%s: the runtime's socket broke", what);
	sbuf_free(&m);
	return rc;
}

/* The session's stream on *s into fd within bounds b, session id at
 * the socket sock: 0 with its *bytes, or -1 with err (the socket closed
 * and the session stopped). */
static int follow(int *s, int fd, const char *file, const struct stream_bounds *b, const struct sbuf *sock,
		  pid_t pid, uint64_t id, uint64_t *bytes, struct sbuf *err)
{
	struct follow f = { .fd = fd, .path = sock->buf, .pid = pid, .id = id, .stop_sock = -1 };
	struct sbuf why;

	sbuf_init(&why);
	enum stream_end e = stream_copy(*s, fd, file, b, follow_tick, &f, bytes, &why);
	say_progress(&f, *bytes, 0, 1);
	if (e != STREAM_DONE) {
		bounds_failed(pid, e, &why, err);
		close(*s); /* first: the runtime may be blocked writing to it */
		*s = -1;
		if (!f.stopped) /* the session's buffer is the runtime's memory */
			dotnet_stop(sock->buf, pid, id);
	}
	dotnet_stop_end(f.stop_sock); /* the stream read to its end, or closed */
	sbuf_free(&why);
	return e == STREAM_DONE ? 0 : -1;
}

int dotnet_snapshot(const struct proc_info *p, const char *file, uint32_t *gc, struct sbuf *result, struct sbuf *err)
{
	pid_t pid = p->pid;
	struct sbuf sock;
	char *tmp = xasprintf("%s.tmp-%ld", file, (long)getpid());
	int s = -1, fd = -1, rc = -1, guarded = 0;
	uint64_t id, bytes = 0;
	struct trace_watch w = { 0 };
	struct stream_bounds b;
	double t0 = hw_now();

	sbuf_init(&sock);
	last_pause_ms = -1;
	struct stat st;
	if (lstat(file, &st) == 0) { /* before the process pays for a full GC */
		sbuf_printf(err, "%s: exists already; the snapshot is not written over it", file);
		goto done;
	}
	if (dotnet_socket(p, &sock, err) < 0 || (s = dotnet_connect(sock.buf, pid, err)) < 0)
		goto done;
	if ((fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0) {
		sbuf_printf(err, "%s: cannot create: %s", file, strerror(errno)); /* (its temporary copy beside it) */
		goto done;
	}
	guarded = tmp_guard(tmp) == 0;
	if (bounds_get(fd, file, &b, err) < 0) /* before the process pays for a full GC */
		goto done;
	/* with the rundown: the modules' files at the stream's end tell apart
	 * the types that one name has in several (a lambdas' "<>c") */
	uint32_t hr;
	int c = dotnet_collect(s, HEAP_KEYWORDS, LEVEL_VERBOSE, BUFFER_MB, RUNDOWN_LOADER, &id, &hr, err);
	if (c < 0 && hr == HR_UNKNOWN_COMMAND) { /* before .NET 9: the whole rundown, on a new connection */
		close(s);
		sbuf_reset(err);
		if ((s = dotnet_connect(sock.buf, pid, err)) < 0)
			goto done;
		c = dotnet_collect(s, HEAP_KEYWORDS, LEVEL_VERBOSE, BUFFER_MB, DOTNET_RUNDOWN_ALL, &id, &hr, err);
	}
	if (c < 0 || follow(&s, fd, file, &b, &sock, pid, id, &bytes, err) < 0)
		goto done;
	look(fd, bytes, &w);
	if (!w.ended) {
		sbuf_printf(err, "process %ld: %s", (long)pid,
			    w.started ? "the heap dump did not end (the process exited, or it took too long)"
				      : "no heap dump came (the runtime ran no full GC for it)");
		goto done;
	}
	if (fsync(fd) < 0 || close(fd) < 0) {
		fd = -1;
		sbuf_printf(err, "%s: cannot write: %s", tmp, strerror(errno));
		goto done;
	}
	fd = -1;
	if (link(tmp, file) < 0) { /* never over an existing file */
		sbuf_printf(err, "%s: %s", file, strerror(errno));
		goto done;
	}
	if (gc != NULL)
		*gc = w.count;
	last_pause_ms = w.pause_ms;
	sbuf_printf(result, "snapshot %s: %llu objects, %llu bytes of trace, %.2f s", file,
		    (unsigned long long)w.nodes, (unsigned long long)bytes, hw_now() - t0);
	rc = 0;
done:
	if (s >= 0)
		close(s);
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	if (guarded)
		tmp_unguard(tmp);
	free(tmp);
	sbuf_free(&sock);
	return rc;
}
