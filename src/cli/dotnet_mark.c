/* dotnet_mark.c — heapwalk mark for .NET processes, and the snapshot
 * that ends it (dotnet_mark.h).
 *
 * A .NET heap has no object ids: an object is its address, and a
 * compacting GC moves it. The mark therefore records two things in a
 * private directory of the process (its pid and start time in the name):
 * the heap at the mark (a heap dump, as snapshot takes one: mark.nettrace)
 * and, from before that dump on, every GC's moves and survivals (a
 * second EventPipe session, GC and GCHeapSurvivalAndMovement keywords,
 * kept open by a detached heapwalk process, the recorder: rec.nettrace).
 * The later snapshot takes its dump, stops the recorder, and replays
 * the GCs from the mark's to the dump's (format/clr_mark.c) into FILE's
 * mark file, FILE.hwmark, which the .NET reader reads with FILE.
 *
 * Two sessions, not one: the recorder carries no heap-dump keyword, so
 * the snapshot's dump is written once (to FILE) and the recorder costs
 * the process only the ranges the GC reports; the GCs of both streams
 * are told apart by their counts, which the runtime numbers for all
 * sessions alike. */
#include "cli/dotnet_mark.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/dotnet.h"
#include "engine/open.h"
#include "stream.h"

#define REC_KEYWORDS 0x400001ull /* GC | GCHeapSurvivalAndMovement */
#define REC_LEVEL 4              /* informational: no allocation ticks */
#define REC_BUFFER_MB 256
#define REC_WAIT_S 30            /* for the recorder's session to begin */
#define REC_END_S 120            /* for its stream to end after Stop */

/* ---- the private directory ---- */

static void remove_dir(const char *dir);
static void remove_stale(const char *base);

/* The private directory as the index cache's (graph/cache.h): on disk,
 * for the mark's heap may be large: $XDG_CACHE_HOME/heapwalk, else
 * $HOME/.cache/heapwalk, else $TMPDIR (or /tmp)/heapwalk-UID, made 0700
 * and checked (util.h dir_untrusted); then dotnet-PID-START in it. The
 * path, or NULL with err. make: create what is missing. */
static char *mark_dir(const struct proc_info *p, int make, struct sbuf *err)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME"), *tmp = getenv("TMPDIR");
	char *base;

	if (xdg != NULL && *xdg == '/') { /* the XDG spec ignores relative ones */
		if (make)
			mkdir(xdg, 0700);
		base = xasprintf("%s/heapwalk", xdg);
	} else if (home != NULL && *home == '/') {
		char *dot = xasprintf("%s/.cache", home);
		if (make)
			mkdir(dot, 0700);
		free(dot);
		base = xasprintf("%s/.cache/heapwalk", home);
	} else {
		base = xasprintf("%s/heapwalk-%ld", tmp != NULL && *tmp == '/' ? tmp : "/tmp", (long)geteuid());
	}
	char *d = xasprintf("%s/dotnet-%ld-%llu", base, (long)p->pid, p->start);
	const char *why;

	if (make)
		mkdir(base, 0700);
	if ((why = dir_untrusted(base, 1)) != NULL) {
		if (make || errno != ENOENT)
			sbuf_printf(err, "%s: %s: the mark's private directory is not used", base, why);
		goto bad;
	}
	if (make) {
		remove_stale(base);
		mkdir(d, 0700);
	}
	if ((why = dir_untrusted(d, 1)) != NULL) {
		if (make)
			sbuf_printf(err, "%s: %s: the mark's private directory is not used", d, why);
		goto bad;
	}
	free(base);
	return d;
bad:
	free(base);
	free(d);
	return NULL;
}

/* A small file of dir: its text (NUL-terminated, at most n - 1 bytes),
 * or -1. */
static int read_note(const char *dir, const char *name, char *buf, size_t n)
{
	char *path = xasprintf("%s/%s", dir, name);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t k = fd >= 0 ? read(fd, buf, n - 1) : -1;

	if (fd >= 0)
		close(fd);
	free(path);
	if (k < 0)
		return -1;
	buf[k] = '\0';
	return 0;
}

static void write_note(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name), *tmp = xasprintf("%s/.%s.tmp", dir, name);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd >= 0) {
		int ok = write_full(fd, text, strlen(text)) == 0 && fsync(fd) == 0;
		close(fd);
		if (ok)
			rename(tmp, path);
	}
	unlink(tmp);
	free(path);
	free(tmp);
}

static void remove_dir(const char *dir)
{
	static const char *const names[] = { "mark.nettrace", "rec.nettrace", "session", "end", "mark", "heap" };

	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		char *path = xasprintf("%s/%s", dir, names[i]);
		unlink(path);
		free(path);
	}
	rmdir(dir);
}

/* The directories of marks whose process has exited (its recorder with
 * it), in base: removed, files and all. */
static void remove_stale(const char *base)
{
	DIR *d = opendir(base);
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		long pid;
		unsigned long long start;
		int end = 0;
		if (sscanf(e->d_name, "dotnet-%ld-%llu%n", &pid, &start, &end) != 2 || e->d_name[end] != '\0')
			continue;
		struct proc_info q = { .pid = (pid_t)pid, .start = start };
		struct sbuf ignored;
		sbuf_init(&ignored);
		if (proc_same(&q, &ignored) < 0) {
			char *dir = xasprintf("%s/%s", base, e->d_name);
			remove_dir(dir);
			free(dir);
		}
		sbuf_free(&ignored);
	}
	closedir(d);
}

/* ---- the recorder ---- */

static int rec_tick(void *arg, uint64_t bytes, double quiet, double elapsed)
{
	(void)arg, (void)bytes, (void)quiet, (void)elapsed;
	return 0;
}

/* The recorder's life, in its own session of the system (setsid): the
 * EventPipe session asked for, its id told to the parent on fd `tell`
 * ("ok" or the error), then the stream into rec.nettrace until the
 * runtime ends it (Stop, or the process's exit); how it ended into the
 * file "end". */
static void recorder(const struct proc_info *p, const char *dir, const char *sock, int tell)
{
	struct sbuf err;
	uint64_t id, bytes = 0;
	uint32_t hr;
	char *rec = xasprintf("%s/rec.nettrace", dir);
	int s = -1, fd = -1;

	sbuf_init(&err);
	if ((fd = open(rec, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0)
		sbuf_printf(&err, "%s: cannot create: %s", rec, strerror(errno));
	else if ((s = dotnet_connect(sock, p->pid, &err)) >= 0 &&
		 dotnet_collect(s, REC_KEYWORDS, REC_LEVEL, REC_BUFFER_MB, 0, &id, &hr, &err) == 0) {
		char note[64];
		snprintf(note, sizeof note, "%llu %ld\n", (unsigned long long)id, (long)getpid());
		write_note(dir, "session", note);
		write_full(tell, "ok", 2);
		close(tell);
		tell = -1;
		/* no quiet bound (a process may run no GC for hours), no time
		 * bound: the room on the file system only */
		struct stream_bounds b = { stream_room(fd), 1e12, 1e12 };
		enum stream_end e = stream_copy(s, fd, rec, &b, rec_tick, NULL, &bytes, &err);
		fsync(fd);
		if (e == STREAM_DONE)
			snprintf(note, sizeof note, "done %llu\n", (unsigned long long)bytes);
		else
			snprintf(note, sizeof note, "cut %llu\n", (unsigned long long)bytes);
		write_note(dir, "end", e == STREAM_DONE ? note : err.len ? err.buf : note);
	}
	if (tell >= 0)
		write_full(tell, err.buf ? err.buf : "the recorder failed", err.len ? err.len : 19);
	if (s >= 0)
		close(s);
	if (fd >= 0)
		close(fd);
	sbuf_free(&err);
	free(rec);
}

/* Every descriptor past the standard three closed but keep: the
 * recorder outlives the command that started it and holds nothing of
 * it (its dump, its cache's lock, a pipe its caller waits to see end:
 * a script's, a test's, make's). */
static void close_others(int keep)
{
	DIR *d = opendir("/proc/self/fd");
	int fds[256], n;

	if (d == NULL) { /* no /proc: the usual range */
		for (int fd = 3; fd < 1024; fd++)
			if (fd != keep)
				close(fd);
		return;
	}
	do { /* a batch at a time: closing while reading the directory */
		struct dirent *e;
		n = 0;
		rewinddir(d);
		while (n < 256 && (e = readdir(d)) != NULL) {
			char *end;
			long fd = strtol(e->d_name, &end, 10);
			if (*end == '\0' && end != e->d_name && fd > 2 && fd != keep && fd != dirfd(d))
				fds[n++] = (int)fd;
		}
		for (int i = 0; i < n; i++)
			close(fds[i]);
	} while (n == 256);
	closedir(d);
}

/* Start the recorder, detached (two forks: no zombie, no terminal, no
 * descriptor of ours but its pipe back), and wait for its session to
 * begin. 0, or -1 with err. */
static int recorder_start(const struct proc_info *p, const char *dir, const char *sock, struct sbuf *err)
{
	int fds[2];

	if (pipe2(fds, O_CLOEXEC) < 0) {
		sbuf_printf(err, "cannot start the recorder: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid_t c = fork();
	if (c == 0) {
		close(fds[0]);
		setsid();
		signal(SIGHUP, SIG_IGN);
		if (fork() != 0)
			_exit(0);
		int null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, 0), dup2(null, 1), dup2(null, 2);
			if (null > 2)
				close(null);
		}
		close_others(fds[1]);
		recorder(p, dir, sock, fds[1]);
		_exit(0);
	}
	close(fds[1]);
	if (c < 0) {
		close(fds[0]);
		sbuf_printf(err, "cannot start the recorder: %s", strerror(errno));
		return -1;
	}
	waitpid(c, NULL, 0);
	char buf[512];
	size_t n = 0;
	struct pollfd pf = { fds[0], POLLIN, 0 };
	while (n < sizeof buf - 1 && poll(&pf, 1, REC_WAIT_S * 1000) > 0) {
		ssize_t r = read(fds[0], buf + n, sizeof buf - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fds[0]);
	buf[n] = '\0';
	if (strcmp(buf, "ok") == 0)
		return 0;
	sbuf_printf(err, "PID %ld: the recorder: %s", (long)p->pid, n ? buf : "no word from it");
	return -1;
}

/* Does heapwalk's recorder, process pid, still run (not a zombie)? */
static int alive(pid_t pid)
{
	char path[64], buf[512];
	int fd;
	ssize_t n;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	const char *paren = strrchr(buf, ')');
	return paren != NULL && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
}

/* End the recorder of dir (its session stopped) and wait for its file
 * to end: 0, or -1 with why in err. */
static int recorder_end(const struct proc_info *p, const char *dir, const char *sock, struct sbuf *err)
{
	char note[256];
	unsigned long long id;
	long rpid;

	if (read_note(dir, "session", note, sizeof note) < 0 || sscanf(note, "%llu %ld", &id, &rpid) != 2) {
		sbuf_adds(err, "the recorder's session is not known");
		return -1;
	}
	if (read_note(dir, "end", note, sizeof note) < 0) /* still running: stop it */
		dotnet_stop(sock, p->pid, id);
	for (double t0 = hw_now(); read_note(dir, "end", note, sizeof note) < 0; usleep(50000)) {
		/* gone without its word: it was killed, its stream cut */
		if (!alive((pid_t)rpid) && read_note(dir, "end", note, sizeof note) < 0) {
			sbuf_adds(err, "the recorder ended before its stream did (it was killed?)");
			return -1;
		}
		if (hw_now() - t0 > REC_END_S) {
			sbuf_adds(err, "the recorder did not end");
			return -1;
		}
	}
	if (strncmp(note, "done ", 5) != 0) {
		sbuf_printf(err, "the recorder's stream was cut: %s", note);
		return -1;
	}
	return 0;
}

/* ---- mark, snapshot ---- */

/* The recorder of dir ended, whatever it says: a mark replaced or
 * failed. */
static void end_quietly(const struct proc_info *p, const char *dir, const char *sock)
{
	struct sbuf ignored;

	sbuf_init(&ignored);
	if (access(dir, F_OK) == 0)
		recorder_end(p, dir, sock, &ignored);
	sbuf_free(&ignored);
}

/* Is p stopped? Its runtime answers nothing, a request would wait for
 * ever: 1, with err. */
static int stopped(const struct proc_info *p, struct sbuf *err)
{
	const char *how = proc_stopped(p);

	if (how != NULL)
		sbuf_printf(err, "PID %ld is stopped (%s): its runtime cannot answer; not asked", (long)p->pid, how);
	return how != NULL;
}

int dotnet_refuses(const struct proc_info *p, struct sbuf *err)
{
	return stopped(p, err) ? -1 : 0;
}

int dotnet_mark(const struct proc_info *p, const char *keep, struct sbuf *result, struct sbuf *err)
{
	struct sbuf sock, res;
	char *dir = NULL, *dump = NULL;
	uint32_t gc = 0;
	int rc = -1;

	sbuf_init(&sock);
	sbuf_init(&res);
	if (stopped(p, err) || dotnet_socket(p, &sock, err) < 0 || (dir = mark_dir(p, 1, err)) == NULL)
		goto done;
	/* a mark again: the earlier one and its recorder end */
	end_quietly(p, dir, sock.buf);
	remove_dir(dir);
	free(dir);
	if ((dir = mark_dir(p, 1, err)) == NULL || proc_same(p, err) < 0)
		goto done;
	dump = keep != NULL ? xstrdup(keep) : xasprintf("%s/mark.nettrace", dir);
	/* the recorder first: it must see the mark's GC and all after */
	if (recorder_start(p, dir, sock.buf, err) < 0)
		goto done;
	if (dotnet_snapshot(p, dump, &gc, &res, err) < 0) {
		end_quietly(p, dir, sock.buf);
		goto done;
	}
	char note[32];
	if (keep != NULL) { /* where the snapshot finds the mark's heap */
		char *abs = realpath(keep, NULL);
		if (abs == NULL) {
			sbuf_printf(err, "%s: %s", keep, strerror(errno));
			end_quietly(p, dir, sock.buf);
			goto done;
		}
		char *line = xasprintf("%s\n", abs);
		write_note(dir, "heap", line);
		free(line);
		free(abs);
	}
	snprintf(note, sizeof note, "%u\n", gc);
	write_note(dir, "mark", note);
	const char *figures = strrchr(res.buf, ':'); /* after the file's name, which may hold one */
	sbuf_printf(result, "mark PID %ld at GC %u%s; the GC's moves are recorded until the next snapshot",
		    (long)p->pid, gc, figures ? figures : "");
	rc = 0;
done:
	if (rc < 0 && dir != NULL)
		remove_dir(dir);
	free(dir);
	free(dump);
	sbuf_free(&sock);
	sbuf_free(&res);
	return rc;
}

int dotnet_marked(const struct proc_info *p, struct sbuf *heap, time_t *at)
{
	struct sbuf ignored;
	char note[4096];
	unsigned gc;

	sbuf_init(&ignored);
	char *dir = mark_dir(p, 0, &ignored);
	sbuf_free(&ignored);
	int marked = dir != NULL && read_note(dir, "mark", note, sizeof note) == 0 && sscanf(note, "%u", &gc) == 1;
	if (marked && read_note(dir, "heap", note, sizeof note) == 0 && strchr(note, '\n') != NULL)
		sbuf_add(heap, note, (size_t)(strchr(note, '\n') - note));
	struct stat st;
	char *mn = dir != NULL ? xasprintf("%s/mark", dir) : NULL;
	*at = marked && lstat(mn, &st) == 0 ? st.st_mtime : 0; /* when the mark was noted */
	free(mn);
	free(dir);
	return marked;
}

/* The file's bytes mapped (read-only): 0 with *m and *size, or -1. */
static int map_file(const char *path, const uint8_t **m, uint64_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;

	*m = NULL;
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*size = (uint64_t)st.st_size;
	void *p = st.st_size > 0 ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	*m = p;
	return 0;
}

/* The mark file for the dump `file` (GC `gc`): the mark's heap and the
 * recorder's stream replayed (trace_mark_replay). 0 with a clause for the
 * result, or -1 with err (then no mark file: FILE is a plain snapshot). */
static int write_mark(const char *dir, const char *file, uint32_t mark_gc, uint32_t gc, const char *recorder_why,
		      struct sbuf *said, int *exact, struct sbuf *err)
{
	char heap[4096];
	char *mpath = read_note(dir, "heap", heap, sizeof heap) == 0 && strchr(heap, '\n') != NULL
			      ? xstrndup(heap, (size_t)(strchr(heap, '\n') - heap))
			      : xasprintf("%s/mark.nettrace", dir);
	char *rpath = xasprintf("%s/rec.nettrace", dir);
	char *out = xasprintf("%s%s", file, CLR_MARK_SUFFIX);
	const uint8_t *mm = NULL, *rm = NULL, *dm = NULL;
	uint64_t ms = 0, rs = 0, ds = 0;
	struct sbuf bytes;
	int rc = -1;

	sbuf_init(&bytes);
	if (map_file(mpath, &mm, &ms) < 0 || map_file(file, &dm, &ds) < 0) {
		sbuf_printf(err, "the mark's heap (%s) or the snapshot cannot be read back: %s", mpath, strerror(errno));
		goto done;
	}
	map_file(rpath, &rm, &rs); /* none: the replay says why it is not exact */
	struct clr_mark_in in = { mm, ms, rm, rm ? rs : 0, dm, ds, mark_gc, gc, recorder_why };
	if (trace_mark_replay(&in, &bytes, said, err) < 0)
		goto done;
	const char *keep[] = { file, NULL };
	struct sbuf why;
	sbuf_init(&why);
	if (write_file(out, bytes.buf, bytes.len, keep, 0600, &why) < 0) {
		sbuf_printf(err, "%s: cannot write: %s", out, why.buf);
		sbuf_free(&why);
		goto done;
	}
	sbuf_free(&why);
	/* the replay's own verdict, the one its clause starts with, once its
	 * file is there: exact only when nothing was inferred either */
	*exact = strncmp(said->buf ? said->buf : "", "mark: exact", 11) == 0 &&
		 strncmp(said->buf, "mark: exact except", 18) != 0;
	rc = 0;
done:
	if (mm)
		munmap((void *)mm, (size_t)ms);
	if (rm)
		munmap((void *)rm, (size_t)rs);
	if (dm)
		munmap((void *)dm, (size_t)ds);
	sbuf_free(&bytes);
	free(mpath);
	free(rpath);
	free(out);
	return rc;
}

int dotnet_take(const struct proc_info *p, const char *file, int *exact, struct sbuf *result, struct sbuf *err)
{
	struct sbuf ignored, sock, why, said;
	char note[32];
	uint32_t gc = 0;

	if (stopped(p, err))
		return -1;
	sbuf_init(&ignored);
	char *dir = mark_dir(p, 0, &ignored);
	sbuf_free(&ignored);
	unsigned mark_gc = 0;
	int verdict = -1;
	if (exact != NULL)
		*exact = -1;
	if (dir == NULL || read_note(dir, "mark", note, sizeof note) < 0 || sscanf(note, "%u", &mark_gc) != 1) {
		free(dir);
		return dotnet_snapshot(p, file, NULL, result, err);
	}
	sbuf_init(&sock);
	sbuf_init(&why);
	sbuf_init(&said);
	int rc = dotnet_snapshot(p, file, &gc, result, err);
	if (rc == 0 && dotnet_socket(p, &sock, &why) == 0)
		recorder_end(p, dir, sock.buf, &why);
	if (rc == 0) {
		struct sbuf merr;
		sbuf_init(&merr);
		if (write_mark(dir, file, mark_gc, gc, why.len ? why.buf : NULL, &said, &verdict, &merr) == 0)
			sbuf_printf(result, "; %s", said.buf);
		else
			sbuf_printf(result, "; no mark written (%s)", merr.buf);
		sbuf_free(&merr);
	}
	if (rc == 0) /* the mark is spent: its recorder has ended */
		remove_dir(dir);
	if (exact != NULL)
		*exact = rc == 0 ? verdict : -1;
	sbuf_free(&sock);
	sbuf_free(&why);
	sbuf_free(&said);
	free(dir);
	return rc;
}
