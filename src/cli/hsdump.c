/* hsdump.c — a JVM's heap by HotSpot's own dumper (hsdump.h): the attach
 * command `dumpheap` with the arguments PATH, "-live" and the gzip
 * level. HotSpot answers status 0 even when the dump failed (the
 * command itself ran): its message says which, "Heap dump file created"
 * or why not. PATH is the JVM's: it writes as its own user, into its
 * own file system. */
#include "cli/hsdump.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/hsattach.h"
#include "engine/open.h"

/* What HotSpot's heap dumper says when the file is whole (heapDumper.cpp). */
#define DUMP_OK "Heap dump file created"

int hs_sees_as_we_do(const struct proc_info *p, const char *path)
{
	char there[PATH_MAX + 64];
	struct stat a, b;

	if (path[0] != '/' || strlen(path) >= PATH_MAX)
		return 0;
	snprintf(there, sizeof there, "/proc/%ld/root%s", (long)p->pid, path);
	return stat(path, &a) == 0 && stat(there, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The first line of s, escaped. */
static void first_line(const char *s, struct sbuf *out)
{
	size_t n = strcspn(s, "\n");

	while (n > 0 && (s[n - 1] == '\r' || s[n - 1] == ' '))
		n--;
	if (n == 0)
		sbuf_adds(out, "no message");
	else
		esc_append(out, (const uint8_t *)s, n, 0);
}

/* The line of s that begins with what, NULL if none. */
static const char *line_with(const char *s, const char *what)
{
	for (const char *l = s; l != NULL; l = strchr(l, '\n')) {
		l += *l == '\n';
		if (strncmp(l, what, strlen(what)) == 0)
			return l;
	}
	return NULL;
}

/* Its last line that says something: why a dump failed, after
 * "Dumping heap to ...". */
static const char *last_line(const char *s)
{
	const char *last = s;

	for (const char *l = s; l != NULL; l = strchr(l, '\n')) {
		l += *l == '\n';
		if (*l != '\0' && *l != '\n')
			last = l;
	}
	return last;
}

/* All of in onto out; -1 with errno. */
static int copy_fd(int in, int out)
{
	char buf[1 << 16];
	ssize_t r;

	for (;;) {
		ssize_t c = copy_file_range(in, NULL, out, NULL, 1 << 30, 0);
		if (c > 0)
			continue;
		if (c == 0)
			return 0;
		if (errno != EXDEV && errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
			return -1;
		break; /* across file systems on older kernels: by hand */
	}
	while ((r = read(in, buf, sizeof buf)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		for (ssize_t w, done = 0; done < r; done += w)
			if ((w = write(out, buf + done, (size_t)(r - done))) < 0)
				return -1;
	}
	return 0;
}

struct dump { int gz; int out; };

/* The dump's file in the JVM's directory, regular and its user's (not a
 * link its user left there), onto out. 0, or -1 with err. */
static int copy_out(const struct proc_info *p, const char *path, int out, struct sbuf *err)
{
	int in = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	int rc = -1;

	if (in < 0) {
		sbuf_printf(err, "PID %ld: the JVM said it wrote its dump, but %s: %s", (long)p->pid, path,
			    strerror(errno));
		return -1;
	}
	if (fstat(in, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != p->uid)
		sbuf_printf(err, "PID %ld: %s is not a regular file of the JVM's user: not read", (long)p->pid, path);
	else if (copy_fd(in, out) < 0)
		sbuf_printf(err, "PID %ld: copying %s: %s", (long)p->pid, path, strerror(errno));
	else
		rc = 0;
	close(in);
	return rc;
}

/* As the JVM's user: a directory of ours in its /tmp (mkdtemp: a fresh
 * name, 0700, that no one else can put anything in), the dump written
 * there by the JVM, copied out onto d->out, and both removed whatever
 * happened. 0 with the JVM's message in out, or -1 with err. */
static int dump_here(const struct proc_info *p, void *arg, struct sbuf *out, struct sbuf *err)
{
	const struct dump *d = arg;
	char dir[96], path[128], inside[96], level[4];
	struct sbuf ans;
	int st = -1, rc;

	snprintf(dir, sizeof dir, "/proc/%ld/root/tmp/heapwalk-dump-XXXXXX", (long)p->pid);
	if (mkdtemp(dir) == NULL) {
		sbuf_printf(err, "PID %ld: cannot make a directory in its /tmp (%s)", (long)p->pid, strerror(errno));
		return -1;
	}
	const char *name = strrchr(dir, '/') + 1;
	snprintf(path, sizeof path, "%s/heap.hprof%s", dir, d->gz ? ".gz" : "");
	snprintf(inside, sizeof inside, "/tmp/%s/heap.hprof%s", name, d->gz ? ".gz" : "");
	snprintf(level, sizeof level, "%d", d->gz);
	const char *args[3] = { inside, "-live", d->gz ? level : "" };
	sbuf_init(&ans);
	rc = hs_attach(p, "dumpheap", args, &st, &ans, err);
	const char *said = ans.buf ? ans.buf : "";
	if (rc == 0 && (st != 0 || line_with(said, DUMP_OK) == NULL)) {
		sbuf_printf(err, "PID %ld: the JVM did not dump its heap (attach status %d): ", (long)p->pid, st);
		first_line(last_line(said), err);
		rc = -1;
	}
	if (rc == 0 && (rc = copy_out(p, path, d->out, err)) == 0)
		first_line(line_with(said, DUMP_OK), out);
	unlink(path);
	if (rmdir(dir) < 0 && errno != ENOENT && rc == 0) {
		sbuf_printf(err, "PID %ld: cannot remove %s (%s): something else was put there", (long)p->pid, dir,
			    strerror(errno));
		rc = -1;
	}
	sbuf_free(&ans);
	return rc;
}

/* Why an opened dump is not HotSpot's whole output, NULL if it is: the
 * reader reads a dump cut short as far as it goes, with a warning, and
 * one cut between records without; HotSpot ends its dump with the
 * record HEAP_DUMP_END (tag 0x2c, length 0), the last thing it writes,
 * and a dump of a live JVM, taken by it, reads without a warning. */
static const char *not_whole(const struct heap *h)
{
	static const uint8_t zero[4];

	if (h->truncated_at != 0)
		return "it ends inside a record";
	if (h->warn.n > 0 || h->warn.suppressed > 0)
		return h->warn.n > 0 ? h->warn.msg[h->warn.n - 1] : "warnings while reading it";
	if (h->size < 9 || h->map[h->size - 9] != 0x2c || memcmp(h->map + h->size - 4, zero, 4) != 0)
		return "it does not end with HotSpot's last record, HEAP_DUMP_END";
	return NULL;
}

/* Is tmp an HPROF dump, whole? Opened as a heap (every record read, the
 * graph built), no cache written. 0, or -1 with err. */
static int whole(const char *tmp, const char *file, struct sbuf *err)
{
	struct open_opts oo = { .no_cache = 1, .quiet = 1 };
	struct heap h;
	struct sbuf why;
	int rc = 0;

	sbuf_init(&why);
	if (heap_open(&h, tmp, &oo, NULL, &why) < 0) {
		sbuf_printf(err, "%s: the JVM's dump does not open (%s); nothing written", file, why.buf);
		rc = -1;
	} else {
		const char *bad = not_whole(&h);
		if (bad != NULL) /* a warning is escaped already, as warn_add keeps it */
			sbuf_printf(err, "%s: the JVM's dump is not whole (%s); nothing written", file, bad);
		rc = bad != NULL ? -1 : 0;
		heap_free(&h);
	}
	sbuf_free(&why);
	return rc;
}

int hs_dumpheap(const struct proc_info *p, const char *file, int gz, struct sbuf *result, struct sbuf *err)
{
	struct stat st;
	struct sbuf said;
	double t0 = hw_now();
	int rc = -1;

	if (lstat(file, &st) == 0) { /* before the JVM pays for a full GC */
		sbuf_printf(err, "%s: exists; heapwalk snapshot does not overwrite", file);
		return -1;
	}
	char *tmp = xasprintf("%s.tmp-%ld", file, (long)getpid());
	int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		sbuf_printf(err, "%s: cannot create: %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	int guarded = tmp_guard(tmp) == 0;
	struct dump d = { gz, fd };
	sbuf_init(&said);
	/* root and another user's JVM: its /tmp is that user's to plant
	 * links in; the directory is made, read and removed as that user */
	if (geteuid() == 0 && p->uid != 0)
		rc = hs_as_user(p, dump_here, &d, &said, err);
	else
		rc = dump_here(p, &d, &said, err);
	if (rc == 0 && (fsync(fd) < 0 || fstat(fd, &st) < 0)) {
		sbuf_printf(err, "%s: cannot write: %s", tmp, strerror(errno));
		rc = -1;
	}
	close(fd);
	if (rc == 0)
		rc = whole(tmp, file, err);
	if (rc == 0 && link(tmp, file) < 0) { /* never over an existing file */
		sbuf_printf(err, "%s: %s", file, strerror(errno));
		rc = -1;
	}
	if (rc == 0) /* and the JVM's own line, its time in the dump */
		sbuf_printf(result, "snapshot %s: %lld bytes%s by HotSpot's heap dumper, %.2f s (the JVM: %s)", file,
			    (long long)st.st_size, gz ? " (gzip)" : "", hw_now() - t0, said.buf ? said.buf : "");
	unlink(tmp);
	if (guarded)
		tmp_unguard(tmp);
	free(tmp);
	sbuf_free(&said);
	return rc;
}
