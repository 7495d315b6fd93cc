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

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "format/nettrace.h"

#define IPC_MAGIC "DOTNET_IPC_V1"
#define SET_EVENTPIPE 0x02
#define CMD_STOP 0x01
#define CMD_COLLECT2 0x03
#define SET_SERVER 0xff
#define HR_UNKNOWN_COMMAND 0x80131385u

#define BUFFER_MB 1024              /* the session's buffer: a heap reported whole */
#define HEAP_KEYWORDS 0x1d80001ull /* GC | Type | GCHeapDump | GCHeapSurvivalAndMovement | GCHeapCollect | GCHeapAndTypeNames */
#define LEVEL_VERBOSE 5
#define START_WAIT_S 30            /* for the induced GC to start */
#define END_WAIT_S 600             /* for it to end, and the stream after Stop */

/* ---- the socket ---- */

/* TMPDIR in the target's environment, if we may read it. */
static char *target_tmpdir(pid_t pid)
{
	char path[64], buf[65536];
	snprintf(path, sizeof path, "/proc/%ld/environ", (long)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1)
		if (strncmp(buf + i, "TMPDIR=", 7) == 0 && buf[i + 7] != '\0')
			return xstrdup(buf + i + 7);
	return NULL;
}

/* The newest dotnet-diagnostic-PID-*-socket in dir into out. */
static int socket_in(const char *dir, pid_t pid, struct sbuf *out, struct timespec *newest)
{
	char pre[64];
	int found = 0;
	DIR *d = opendir(dir);
	struct dirent *e;

	snprintf(pre, sizeof pre, "dotnet-diagnostic-%ld-", (long)pid);
	while (d != NULL && (e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		struct stat st;
		if (strncmp(e->d_name, pre, strlen(pre)) != 0 || n < 7 || strcmp(e->d_name + n - 7, "-socket") != 0 ||
		    fstatat(dirfd(d), e->d_name, &st, 0) < 0 || !S_ISSOCK(st.st_mode))
			continue;
		if (found && (st.st_mtim.tv_sec < newest->tv_sec ||
			      (st.st_mtim.tv_sec == newest->tv_sec && st.st_mtim.tv_nsec <= newest->tv_nsec)))
			continue;
		*newest = st.st_mtim;
		sbuf_reset(out);
		sbuf_printf(out, "%s/%s", dir, e->d_name);
		found = 1;
	}
	if (d != NULL)
		closedir(d);
	return found;
}

int dotnet_socket(pid_t pid, struct sbuf *out)
{
	char *theirs = target_tmpdir(pid);
	const char *ours = getenv("TMPDIR");
	const char *dirs[] = { theirs, ours != NULL && *ours ? ours : NULL, "/tmp" };
	struct timespec newest = { 0, 0 };
	int found = 0;

	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0] && !found; i++)
		if (dirs[i] != NULL)
			found = socket_in(dirs[i], pid, out, &newest);
	free(theirs);
	return found ? 0 : -1;
}

/* ---- messages ---- */

static int ipc_connect(const char *path, struct sbuf *err)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s;

	if (strlen(path) >= sizeof a.sun_path) {
		sbuf_printf(err, "%s: the socket's path is too long to connect to (set a shorter TMPDIR)", path);
		return -1;
	}
	memcpy(a.sun_path, path, strlen(path) + 1);
	if ((s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 || connect(s, (struct sockaddr *)&a, sizeof a) < 0) {
		int e = errno;
		if (s >= 0)
			close(s);
		sbuf_printf(err, "%s: cannot connect: %s%s", path, strerror(e),
			    e == EACCES || e == EPERM ? " (the process runs as another user)" : "");
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

struct watch {
	int started, ended;
	uint32_t count;
	uint64_t nodes;
};

static uint32_t u32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static int watch_event(void *arg, const struct nt_event *e)
{
	struct watch *w = arg;

	if (!e->runtime)
		return 0;
	if (e->id == 1 && e->len >= 16 && !w->started && u32(e->payload + 4) == 2 && u32(e->payload + 12) != 1) {
		w->started = 1; /* GCStart of a blocking full GC: the induced one */
		w->count = u32(e->payload);
	} else if (e->id == 2 && e->len >= 4 && w->started && u32(e->payload) == w->count) {
		w->ended = 1;
	} else if (e->id == 18 && e->len >= 8 && w->started && !w->ended) {
		w->nodes += u32(e->payload + 4);
	}
	return 0;
}

/* What the file holds so far: has the dump's GC started, ended? */
static void look(int fd, uint64_t size, struct watch *w)
{
	struct nt_trace t;
	struct warnings ws = { .quiet = 1 };
	struct sbuf err;

	memset(w, 0, sizeof *w);
	void *m = size > 0 ? mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
	if (m == MAP_FAILED)
		return;
	sbuf_init(&err);
	nt_read("stream", m, size, &t, watch_event, w, &ws, &err);
	sbuf_free(&err);
	warn_free(&ws);
	munmap(m, (size_t)size);
}

static void stop(const char *path, uint64_t id)
{
	struct sbuf m, err;
	uint64_t back;
	uint32_t hr;

	sbuf_init(&m);
	sbuf_init(&err);
	header(&m, SET_EVENTPIPE, CMD_STOP);
	put_u64(&m, id);
	seal(&m);
	int s = ipc_connect(path, &err);
	if (s >= 0) {
		if (write_full(s, m.buf, m.len) == 0)
			reply(s, "StopTracing", &back, &hr, &err);
		close(s);
	}
	sbuf_free(&m);
	sbuf_free(&err);
}

int dotnet_snapshot(pid_t pid, const char *file, struct sbuf *result, struct sbuf *err)
{
	struct sbuf sock, m;
	char *tmp = xasprintf("%s.tmp-%ld", file, (long)getpid());
	int s = -1, fd = -1, rc = -1, guarded = 0;
	uint64_t id, bytes = 0, looked = 0;
	uint32_t hr;
	struct watch w = { 0 };
	double t0 = hw_now();

	sbuf_init(&sock);
	sbuf_init(&m);
	if (kill(pid, 0) < 0 && errno == ESRCH) {
		sbuf_printf(err, "no process %ld", (long)pid);
		goto done;
	}
	struct stat st;
	if (lstat(file, &st) == 0) { /* before the process pays for a full GC */
		sbuf_printf(err, "%s: exists already; the snapshot is not written over it", file);
		goto done;
	}
	if (dotnet_socket(pid, &sock) < 0) {
		sbuf_printf(err, "process %ld: no .NET diagnostics socket (dotnet-diagnostic-%ld-*-socket in its "
			    "TMPDIR or /tmp): not a .NET process, or one started with DOTNET_EnableDiagnostics=0",
			    (long)pid, (long)pid);
		goto done;
	}
	if ((fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0) {
		sbuf_printf(err, "%s: cannot create: %s", tmp, strerror(errno));
		goto done;
	}
	guarded = tmp_guard(tmp) == 0;
	if ((s = ipc_connect(sock.buf, err)) < 0)
		goto done;
	header(&m, SET_EVENTPIPE, CMD_COLLECT2);
	put_u32(&m, BUFFER_MB);
	put_u32(&m, 1);   /* nettrace */
	sbuf_addc(&m, 0); /* no rundown: method and module names are not wanted */
	put_u32(&m, 1);
	put_u64(&m, HEAP_KEYWORDS);
	put_u32(&m, LEVEL_VERBOSE);
	put_string(&m, NT_RUNTIME_PROVIDER);
	put_u32(&m, 0); /* no arguments */
	seal(&m);
	if (write_full(s, m.buf, m.len) != 0 || reply(s, "CollectTracing2", &id, &hr, err) < 0)
		goto done;
	/* the stream, to the file; looked at when it pauses, until the
	 * dump's GC has ended; then Stop, and the rest to its end. A look
	 * reads the file from its start: while the stream grows, only once
	 * it has doubled (reading 2x the trace in all), and whenever it has
	 * been quiet for 0.3 s (the dump's end is followed by quiet) */
	uint8_t buf[1 << 16];
	int stopped = 0;
	double stop_at = 0, last_data = t0;
	for (;;) {
		struct pollfd pf = { s, POLLIN, 0 };
		int pr = poll(&pf, 1, 100);
		double now = hw_now();
		if (pr > 0) {
			ssize_t n = read(s, buf, sizeof buf);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			int we = write_full(fd, buf, (size_t)n);
			if (we != 0) {
				sbuf_printf(err, "%s: cannot write: %s", tmp, strerror(we));
				goto done;
			}
			bytes += (uint64_t)n;
			last_data = now;
			continue;
		}
		if (!stopped && bytes > looked && (bytes >= 2 * looked || now - last_data >= 0.3)) {
			look(fd, bytes, &w);
			looked = bytes;
		}
		if (!stopped && (w.ended || now - t0 > (w.started ? END_WAIT_S : START_WAIT_S))) {
			stop(sock.buf, id);
			stopped = 1;
			stop_at = now;
		}
		if (stopped && now - stop_at > END_WAIT_S)
			break;
	}
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
		tmp_unguard();
	free(tmp);
	sbuf_free(&sock);
	sbuf_free(&m);
	return rc;
}
