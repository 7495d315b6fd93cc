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
	struct stat a, b;

	if (path[0] != '/' || strlen(path) >= PATH_MAX || stat(path, &a) < 0)
		return 0;
	/* the path as the JVM resolves it: its links inside its root */
	int fd = proc_root_open(p->pid, path, O_PATH, 0);
	if (fd < 0)
		return 0;
	int same = fstat(fd, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	close(fd);
	return same;
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

/* The whole wait for HotSpot's answer, as the .NET snapshot's bound. */
#define DUMP_WALL_S 1800

struct dump { int gz; int out; double wall_s; };

/* Our directory in the JVM's /tmp, all of it by descriptors: tmp, its
 * /tmp resolved inside its root; dir, the directory we made there as
 * name, whose device and inode are held to tell it from anything put
 * in its place by name; leaf, the dump's name in it. */
struct jdir { int tmp, dir; char name[32], leaf[16]; dev_t dev; ino_t ino; };

/* A fresh name, heapwalk-dump-XXXXXXXX (random), made 0700 by mkdirat
 * in its /tmp and opened without following a link, the entry and the
 * directory opened the same one. 0, or -1 with err. */
static int make_dir(const struct proc_info *p, struct jdir *j, struct sbuf *err)
{
	struct stat a, b;
	int tries = 0;

	do
		hs_fresh_name(j->name, sizeof j->name, "heapwalk-dump-");
	while (mkdirat(j->tmp, j->name, 0700) < 0 && errno == EEXIST && ++tries < 100);
	if (tries == 100 || (errno = 0, fstatat(j->tmp, j->name, &a, AT_SYMLINK_NOFOLLOW)) < 0) {
		sbuf_printf(err, "PID %ld: cannot make a directory in its /tmp (%s)", (long)p->pid,
			    strerror(errno ? errno : EEXIST));
		return -1;
	}
	j->dir = openat(j->tmp, j->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (j->dir < 0 || fstat(j->dir, &b) < 0 || !S_ISDIR(a.st_mode) || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino || b.st_uid != geteuid()) {
		sbuf_printf(err, "PID %ld: the directory made in its /tmp, /tmp/%s, was replaced at once: not used",
			    (long)p->pid, j->name);
		return -1;
	}
	j->dev = b.st_dev;
	j->ino = b.st_ino;
	return 0;
}

/* Is the entry name in its /tmp still the directory we made? */
static int still_ours(const struct jdir *j)
{
	struct stat st;

	return fstatat(j->tmp, j->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
	       st.st_dev == j->dev && st.st_ino == j->ino;
}

/* The dump in our directory (by its descriptor, however the JVM's user
 * moved or replaced it by name meanwhile), a regular file of the JVM's
 * user with one link (not a link to a file of someone else's, not a
 * FIFO or a device: O_NONBLOCK, opened only to be looked at), onto out.
 * 0, or -1 with err. */
static int copy_out(const struct proc_info *p, const struct jdir *j, int out, struct sbuf *err)
{
	struct stat st;
	int rc = -1;

	if (!still_ours(j)) {
		sbuf_printf(err, "PID %ld: the directory heapwalk made in its /tmp, /tmp/%s, was moved or replaced "
				 "while the JVM dumped: its dump is not read", (long)p->pid, j->name);
		return -1;
	}
	int in = openat(j->dir, j->leaf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (in < 0) {
		sbuf_printf(err, "PID %ld: the JVM said it wrote its dump, but /tmp/%s/%s: %s", (long)p->pid, j->name,
			    j->leaf, strerror(errno));
		return -1;
	}
	if (fstat(in, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != p->uid || st.st_nlink != 1)
		sbuf_printf(err, "PID %ld: /tmp/%s/%s is not a regular file of the JVM's user (one link): not read",
			    (long)p->pid, j->name, j->leaf);
	else if (copy_fd(in, out) < 0)
		sbuf_printf(err, "PID %ld: copying /tmp/%s/%s: %s", (long)p->pid, j->name, j->leaf, strerror(errno));
	else
		rc = 0;
	close(in);
	return rc;
}

/* The dump and our directory removed through the descriptors (the file
 * again should the JVM have made it meanwhile); the directory only if
 * its name is still ours. 0, or -1 with why in err: after the error
 * there is one already (rc < 0), as its tail. */
static int remove_dir(const struct proc_info *p, const struct jdir *j, int rc, struct sbuf *err)
{
	int gone = 0;

	for (int i = 0; i < 2 && !gone; i++) {
		unlinkat(j->dir, j->leaf, 0);
		gone = !still_ours(j) || unlinkat(j->tmp, j->name, AT_REMOVEDIR) == 0;
	}
	if (gone)
		return 0;
	if (rc < 0)
		sbuf_printf(err, "; and its directory /tmp/%s is left in the JVM's /tmp (%s)", j->name, strerror(errno));
	else
		sbuf_printf(err, "PID %ld: cannot remove /tmp/%s from its /tmp (%s): something else was put there",
			    (long)p->pid, j->name, strerror(errno));
	return -1;
}

/* As the JVM's user (or root for a JVM of root's): a directory of ours
 * in its /tmp, the dump written there by the JVM, copied out onto
 * d->out, and both removed whatever happened, a signal meanwhile too
 * (the JVM then finishes writing an unlinked file, which goes when it
 * closes it). 0 with the JVM's message in out, or -1 with err. */
static int dump_here(const struct proc_info *p, void *arg, struct sbuf *out, struct sbuf *err)
{
	const struct dump *d = arg;
	struct jdir j = { .tmp = -1, .dir = -1 };
	char inside[96], level[4];
	struct sbuf ans;
	int st = -1, rc = -1;

	snprintf(j.leaf, sizeof j.leaf, "heap.hprof%s", d->gz ? ".gz" : "");
	if ((j.tmp = hs_jvm_tmp(p, err)) < 0)
		return -1;
	if (make_dir(p, &j, err) < 0) {
		if (j.dir >= 0)
			close(j.dir);
		close(j.tmp);
		return -1;
	}
	int g1 = tmp_guard_at(j.tmp, j.name, AT_REMOVEDIR), g2 = tmp_guard_at(j.dir, j.leaf, 0);
	snprintf(inside, sizeof inside, "/tmp/%s/%s", j.name, j.leaf);
	snprintf(level, sizeof level, "%d", d->gz);
	const char *args[3] = { inside, "-live", d->gz ? level : "" };
	sbuf_init(&ans);
	struct hs_growth g = { .pid = p->pid, .dir = j.dir, .name = j.leaf, .held = -1, .uid = p->uid };
	rc = hs_attach_shown(p, d->wall_s, &g, "dumpheap", args, &st, &ans, err);
	const char *said = ans.buf ? ans.buf : "";
	hs_growth_end(&g, rc == 0 && st == 0 && line_with(said, DUMP_OK) != NULL);
	hs_growth_close(&g);
	if (rc == 0 && (st != 0 || line_with(said, DUMP_OK) == NULL)) {
		sbuf_printf(err, "PID %ld: the JVM did not dump its heap (attach status %d): ", (long)p->pid, st);
		hs_first_line(last_line(said), err);
		rc = -1;
	}
	if (rc == 0 && (rc = copy_out(p, &j, d->out, err)) == 0)
		hs_first_line(line_with(said, DUMP_OK), out);
	if (remove_dir(p, &j, rc, err) < 0)
		rc = -1;
	if (g2 == 0)
		tmp_unguard_at(j.dir, j.leaf);
	if (g1 == 0)
		tmp_unguard_at(j.tmp, j.name);
	close(j.dir);
	close(j.tmp);
	sbuf_free(&ans);
	return rc;
}

/* The size the JVM's line states, "Heap dump file created [N bytes in
 * ...]"; -1 if none. */
static long long stated_size(const char *line)
{
	const char *b = line ? strchr(line, '[') : NULL;
	char *end;

	if (b == NULL || b[1] < '0' || b[1] > '9')
		return -1;
	long long n = strtoll(b + 1, &end, 10);
	return strncmp(end, " bytes", 6) == 0 ? n : -1;
}

/* Why an opened dump is not HotSpot's whole output, NULL if it is: the
 * reader reads a dump cut short as far as it goes, with a warning, and
 * one cut between records without, and a dump of a live JVM, taken by
 * it, reads without a warning. A segmented dump (JAVA PROFILE 1.0.2,
 * every JDK since 11, and JDK 8-10 from 2 GB) ends with the record
 * HEAP_DUMP_END (tag 0x2c, length 0), the last thing HotSpot writes;
 * JDK 8-10 write a smaller heap as 1.0.1, one HEAP_DUMP record and no
 * end record: that one is whole when it is the size the JVM stated in
 * its line (stated, -1: none) for the file it wrote (size). */
static const char *not_whole(const struct heap *h, long long stated, long long size)
{
	static const uint8_t zero[4];

	int v101 = strcmp(h->version, "JAVA PROFILE 1.0.1") == 0;
	/* the end record first: the reader's word for its absence is its
	 * truncated_at too */
	if (!v101 && (h->size < 9 || h->map[h->size - 9] != 0x2c || memcmp(h->map + h->size - 4, zero, 4) != 0))
		return "it does not end with HotSpot's last record, HEAP_DUMP_END";
	if (h->truncated_at != 0)
		return "it ends inside a record";
	if (h->warn.n > 0 || h->warn.suppressed > 0)
		return h->warn.n > 0 ? h->warn.msg[h->warn.n - 1] : "warnings while reading it";
	if (v101) {
		if (stated < 0)
			return "a JAVA PROFILE 1.0.1 dump has no end record, and the JVM stated no size to check it by";
		return stated != size ? "it is not the size the JVM said it wrote" : NULL;
	}
	return NULL;
}

/* Is tmp an HPROF dump, whole? Opened as a heap (every record read, the
 * graph built), no cache written. 0, or -1 with err. */
static int whole(const char *tmp, const char *file, long long stated, long long size, struct sbuf *err)
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
		const char *bad = not_whole(&h, stated, size);
		if (bad != NULL) /* a warning is escaped already, as warn_add keeps it */
			sbuf_printf(err, "%s: the JVM's dump is not whole (%s); nothing written", file, bad);
		rc = bad != NULL ? -1 : 0;
		heap_free(&h);
	}
	sbuf_free(&why);
	return rc;
}

/* Is the file at fd gzip (its magic), as asked? 1 or 0. */
static int is_gzip(int fd)
{
	uint8_t m[2];

	return pread(fd, m, 2, 0) == 2 && m[0] == 0x1f && m[1] == 0x8b;
}

int hs_dumpheap(const struct proc_info *p, const char *file, int gz, struct sbuf *result, struct sbuf *err)
{
	struct stat st;
	struct sbuf said;
	struct dump d = { gz, -1, 0 };
	double t0 = hw_now();
	int rc = -1;

	if (seconds_env("HEAPWALK_SNAPSHOT_WALL", DUMP_WALL_S, &d.wall_s, err) < 0)
		return -1;
	if (lstat(file, &st) == 0) { /* before the JVM pays for a full GC */
		sbuf_printf(err, "%s: exists; heapwalk snapshot does not overwrite", file);
		return -1;
	}
	char *tmp = xasprintf("%s.tmp-%ld", file, (long)getpid());
	int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		sbuf_printf(err, "%s: cannot create: %s", file, strerror(errno)); /* (its temporary copy beside it) */
		free(tmp);
		return -1;
	}
	int guarded = tmp_guard(tmp) == 0;
	d.out = fd;
	sbuf_init(&said);
	/* root and another user's JVM: its /tmp is that user's; the directory
	 * is made, read and removed as that user */
	if (geteuid() == 0 && p->uid != 0)
		rc = hs_as_user(p, dump_here, &d, &said, err);
	else
		rc = dump_here(p, &d, &said, err);
	if (rc == 0 && (fsync(fd) < 0 || fstat(fd, &st) < 0)) {
		sbuf_printf(err, "%s: cannot write: %s", tmp, strerror(errno));
		rc = -1;
	}
	int zipped = rc == 0 && is_gzip(fd);
	close(fd);
	if (rc == 0)
		rc = whole(tmp, file, stated_size(said.buf), (long long)st.st_size, err);
	if (rc == 0 && link(tmp, file) < 0) { /* never over an existing file */
		sbuf_printf(err, "%s: %s", file, strerror(errno));
		rc = -1;
	}
	if (rc == 0 && gz && !zipped)
		fprintf(stderr, "heapwalk: PID %ld: the JVM took no gzip level (an older JDK): %s is a plain HPROF\n", (long)p->pid, file);
	if (rc == 0) /* and the JVM's own line, its time in the dump */
		sbuf_printf(result, "snapshot %s: %lld bytes%s by HotSpot's heap dumper, %.2f s (the JVM: %s)", file,
			    (long long)st.st_size, zipped ? " (gzip)" : "", hw_now() - t0, said.buf ? said.buf : "");
	unlink(tmp);
	if (guarded)
		tmp_unguard(tmp);
	free(tmp);
	sbuf_free(&said);
	return rc;
}
