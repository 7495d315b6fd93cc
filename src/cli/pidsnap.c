/* pidsnap.c — heapwalk PID (pidsnap.h): the process's directory in the
 * private cache directory, its snapshots numbered in it
 * (snap-000001.hprof, ...: the highest the newest), the runtime's own
 * way of taking one, chosen by the process's kind, and what the browser
 * is told of the baseline. */
#include "cli/pidsnap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/attach.h"
#include "cli/hsattach.h"
#include "cli/hsdump.h"
#include "cli/dotnet.h"
#include "cli/dotnet_mark.h"
#include "cli/node.h"
#include "cli/proc.h"
#include "engine/open.h"
#include "graph/cache.h"

/* One runtime's snapshot: file written, prev (the newest snapshot before
 * it of the process, or NULL) and what the runtime can say about old and
 * new objects give r's baseline and line. */
struct kind {
	enum proc_kind kind;
	const char *ext;
	int (*take)(const struct proc_info *p, const char *file, const char *prev, int quiet, struct pidsnap *r,
		    struct sbuf *err);
	int self_writes; /* the runtime writes the file itself, as the process's user */
	/* a refusal known before anything is asked of the process (-1, with
	 * err), so that nothing is said of work or made in the cache; NULL
	 * where the take finds each itself */
	int (*refuses)(const struct proc_info *p, struct sbuf *err);
};

/* "snap-000001.hprof (12:00:03)": a snapshot's name and time, escaped */
static void name_of(struct sbuf *out, const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	struct stat st;
	struct tm tm;
	char t[16] = "";

	esc_append(out, (const uint8_t *)base, strlen(base), 0);
	if (stat(path, &st) == 0 && localtime_r(&st.st_mtime, &tm) != NULL)
		strftime(t, sizeof t, "%H:%M:%S", &tm);
	if (*t)
		sbuf_printf(out, " of %s", t);
}

static char *said_prev(const struct proc_info *p, const char *prev, const char *after)
{
	struct sbuf sb;

	sbuf_init(&sb);
	sbuf_adds(&sb, "baseline: ");
	name_of(&sb, prev);
	sbuf_printf(&sb, ", the snapshot of PID %ld before this one%s", (long)p->pid, after);
	return sbuf_detach(&sb);
}

/* ---- the JVM: heapwalk's agent, ids that stay ---- */

/* The agent's "dump PATH objects=N bytes=N ms=N ...": its figures, after
 * the path (which may hold anything). */
static void jvm_figures(const struct proc_info *p, const char *res)
{
	const char *f = NULL;
	unsigned long long objects, bytes, ms;

	for (const char *q = strstr(res, " objects="); q != NULL; q = strstr(q + 1, " objects="))
		f = q;
	if (f != NULL && sscanf(f, " objects=%llu bytes=%llu ms=%llu", &objects, &bytes, &ms) == 3)
		fprintf(stderr, "heapwalk: PID %ld: %llu objects, %.1f MB written; the JVM paused at most %llu ms "
				"(the agent's time: a full GC, the heap's walks, the file)\n", (long)p->pid, objects,
			(double)bytes / 1e6, ms);
	else if (*res != '\0') /* no figures (finished past the wall): what agent_snapshot says, escaped */
		fprintf(stderr, "heapwalk: PID %ld: %s\n", (long)p->pid, res);
}

static int jvm_take(const struct proc_info *p, const char *file, const char *prev, int quiet, struct pidsnap *r,
		    struct sbuf *err)
{
	struct sbuf res;

	if (!quiet)
		fprintf(stderr, "heapwalk: PID %ld, a JVM: heapwalk's agent writes its heap...\n", (long)p->pid);
	sbuf_init(&res);
	hs_progress(!quiet); /* the dump file's size as it grows, on a terminal */
	int rc = agent_snapshot(p, file, &res, err);
	if (rc == 0 && !quiet)
		jvm_figures(p, res.buf ? res.buf : "");
	if (rc == -2) { /* the agent cannot be loaded into it: HotSpot's own dump, as snapshot does */
		if (!quiet)
			fprintf(stderr, "heapwalk: %s: HotSpot's own heap dump instead (no stable ids: old and new "
					"against it are inferred)\n", err->buf);
		sbuf_reset(err);
		rc = hs_dumpheap(p, file, 0, &res, err);
		if (rc == 0 && !quiet)
			fprintf(stderr, "heapwalk: %s\n", res.buf ? res.buf : "");
	}
	hs_progress(0);
	sbuf_free(&res);
	if (rc < 0)
		return -1;
	if (prev != NULL) {
		r->baseline = xstrdup(prev);
		r->says = said_prev(p, prev, "");
	} else if (r->kept) {
		r->says = xasprintf("no baseline: the first snapshot of PID %ld here; the next heapwalk %ld "
				    "shows what is new since", (long)p->pid, (long)p->pid);
	} else { /* -o FILE: nothing kept for the next run */
		r->says = xasprintf("no baseline: -o keeps no snapshot of PID %ld in the cache; --baseline OLD "
				    "names one", (long)p->pid);
	}
	return 0;
}

/* ---- .NET: the runtime's heap dump; exact old and new need a mark ---- */

/* What the runtime did: its figures and its GC's time. */
static void clr_figures(long pid, const struct sbuf *res)
{
	fprintf(stderr, "heapwalk: %s\n", res->buf ? res->buf : "");
	if (dotnet_pause_ms() >= 0)
		fprintf(stderr, "heapwalk: PID %ld: the GC took %.0f ms (its start to its end, as the runtime "
				"timed them; its threads stopped)\n", pid, dotnet_pause_ms());
}

/* After a snapshot that ended the mark: a mark again at once (a second
 * GC, its heap in the mark's private directory), so that the next
 * snapshot is exact too. 1 if marked. */
static int clr_remark(const struct proc_info *p, int quiet)
{
	struct sbuf res, err;
	long pid = (long)p->pid;

	sbuf_init(&res);
	sbuf_init(&err);
	if (!quiet)
		fprintf(stderr, "heapwalk: PID %ld: marked again for the next snapshot (a second GC)...\n", pid);
	int rc = dotnet_mark(p, NULL, &res, &err);
	if (rc == 0 && !quiet)
		clr_figures(pid, &res);
	else if (rc < 0 && !quiet)
		fprintf(stderr, "heapwalk: PID %ld: not marked again (%s): the next heapwalk %ld marks it\n", pid,
			err.buf, pid);
	sbuf_free(&res);
	sbuf_free(&err);
	return rc == 0;
}

/* The line for a snapshot against the mark it ended: which heap the
 * mark's is (the file it was kept in, or the mark's own time), never
 * how exact: that is the replay's (exact 0: it left a doubt, said above)
 * and the engine's, which reads the mark file. */
static void clr_said_mark(struct sbuf *sb, long pid, const struct sbuf *heap, time_t at, int exact)
{
	struct tm tm;
	char t[16] = "";

	sbuf_adds(sb, "baseline: ");
	if (heap->len > 0) {
		name_of(sb, heap->buf);
		sbuf_printf(sb, ", the mark of PID %ld", pid);
	} else {
		if (at != 0 && localtime_r(&at, &tm) != NULL)
			strftime(t, sizeof t, "%H:%M:%S", &tm);
		sbuf_printf(sb, "the mark of PID %ld%s%s", pid, *t ? " made at " : "", t);
	}
	if (!exact)
		sbuf_adds(sb, " (its replay left a doubt: see above)");
}

/* A .NET process that has a mark: this snapshot ends it, against the
 * mark's heap (FILE's mark file), and marks it again. One that has
 * none: this snapshot marks it, so that the next is exact; against the
 * one before, if any, the baseline is inferred by content (the browser
 * says so). */
static int clr_take(const struct proc_info *p, const char *file, const char *prev, int quiet, struct pidsnap *r,
		    struct sbuf *err)
{
	struct sbuf heap, res, sb;
	long pid = (long)p->pid;
	time_t at = 0;
	int verdict = -1; /* the take's: 1 exact, 0 not, -1 no mark file */

	sbuf_init(&heap);
	sbuf_init(&res);
	sbuf_init(&sb);
	int marked = dotnet_marked(p, &heap, &at);
	if (!quiet)
		fprintf(stderr, "heapwalk: PID %ld, .NET: its runtime writes its heap in a full, blocking GC%s...\n",
			pid, marked ? "; the mark ends" : "; the process is marked");
	dotnet_progress(!quiet);
	int rc = marked ? dotnet_take(p, file, &verdict, &res, err) : dotnet_mark(p, file, &res, err);
	if (rc == 0 && !quiet)
		clr_figures(pid, &res);
	if (rc == 0 && marked)
		clr_remark(p, quiet);
	dotnet_progress(0);
	if (rc < 0) {
		/* nothing to say */
	} else if (marked && verdict >= 0) {
		clr_said_mark(&sb, pid, &heap, at, verdict);
		/* the mark's heap, the one before, as --baseline makes it: what
		 * is gone too, exact by the mark's file */
		if (prev != NULL && heap.len > 0 && file_names(prev, heap.buf))
			r->baseline = xstrdup(prev);
	} else if (prev != NULL) {
		char *said = said_prev(p, prev, marked ? " (the mark's file was not written: see above)"
							 : "; this one marks it: the next is exact against it");
		r->baseline = xstrdup(prev);
		sbuf_adds(&sb, said);
		free(said);
	} else if (marked) {
		sbuf_adds(&sb, "no baseline: the mark's file was not written (see above)");
	} else {
		sbuf_printf(&sb, "no baseline: this snapshot marks PID %ld; the next heapwalk %ld shows what is "
				 "new since, exactly", pid, pid);
	}
	r->says = sbuf_detach(&sb);
	sbuf_free(&heap);
	sbuf_free(&res);
	return rc;
}

/* ---- Node: its inspector's V8 snapshot; inferred against the one before
 * (V8 clears its ids as each inspector session ends) ---- */

static int node_take(const struct proc_info *p, const char *file, const char *prev, int quiet, struct pidsnap *r,
		     struct sbuf *err)
{
	struct sbuf res;

	if (!quiet)
		fprintf(stderr, "heapwalk: PID %ld, Node: V8 writes its heap snapshot through the inspector, the "
				"process paused until it is whole...\n", (long)p->pid);
	sbuf_init(&res);
	int rc = node_snapshot(p, file, !quiet && isatty(2), &res, err);
	if (rc == 0 && !quiet)
		fprintf(stderr, "heapwalk: %s\n", res.buf ? res.buf : "");
	sbuf_free(&res);
	if (rc < 0)
		return -1;
	if (prev != NULL) {
		r->baseline = xstrdup(prev);
		r->says = said_prev(p, prev, " (inferred by content: V8 cleared its ids when that snapshot's "
					     "inspector session ended)");
	} else {
		r->says = xasprintf("no baseline: the first snapshot of PID %ld here; the next heapwalk %ld "
				    "shows what is new since (inferred)", (long)p->pid, (long)p->pid);
	}
	return 0;
}

/* One row per runtime heapwalk PID knows. */
static const struct kind kinds[] = {
	{ PROC_JVM, "hprof", jvm_take, 1, hs_refuses },
	{ PROC_DOTNET, "nettrace", clr_take, 0, dotnet_refuses },
	/* heapwalk writes what the inspector sends; a stopped Node is
	 * refused where a signal would be sent (an inspector already open
	 * is asked) */
	{ PROC_NODE, "heapsnapshot", node_take, 0, NULL },
};

static const struct kind *kind_of(enum proc_kind k)
{
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
		if (kinds[i].kind == k)
			return &kinds[i];
	return NULL;
}

/* ---- the directories ---- */

int pidsnap_is_pid(const char *arg)
{
	struct stat st;

	if (*arg == '\0' || strspn(arg, "0123456789") != strlen(arg) || strlen(arg) > 10)
		return 0;
	return lstat(arg, &st) < 0 && errno == ENOENT;
}

/* Is the process of a temporary's name.tmp-PID (the heapwalk, or the
 * JVM, writing it) alive? Then it is another run's file in progress. */
static int tmp_alive(const char *name)
{
	const char *t = strstr(name, ".tmp-");
	char *end;

	if (t == NULL || t[5] < '1' || t[5] > '9')
		return 0;
	long pid = strtol(t + 5, &end, 10);
	return *end == '\0' && pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

/* The directory open on dfd, to read (its own descriptor, so that
 * closedir leaves dfd open), or NULL. Everything done in a process's
 * directory goes through its descriptor, never its path again: the
 * path's parents may be another user's to change under us. */
static DIR *dir_of(int dfd)
{
	int fd = dup(dfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (d == NULL && fd >= 0)
		close(fd);
	if (d != NULL)
		rewinddir(d);
	return d;
}

/* The snapshots in dfd numbered up to `upto`, and what goes with them
 * (FILE.hwi, FILE.hwmark, a temporary left, not one still being
 * written): removed, but for number `keep` (0: none kept). The highest
 * number of those with suffix ext found, 0 if none. */
static unsigned sweep(int dfd, unsigned upto, unsigned keep, const char *ext)
{
	DIR *d = dir_of(dfd);
	struct dirent *e;
	unsigned top = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		unsigned n;
		int end = 0;
		if (strncmp(e->d_name, "snap-", 5) != 0 || strspn(e->d_name + 5, "0123456789") != 6 ||
		    sscanf(e->d_name, "snap-%6u%n", &n, &end) != 1 || end != 11 || e->d_name[end] != '.')
			continue;
		if (n <= upto && n != keep && !tmp_alive(e->d_name))
			unlinkat(dfd, e->d_name, 0);
		else if (ext != NULL && strcmp(e->d_name + end + 1, ext) == 0 && n > top)
			top = n;
	}
	closedir(d);
	return top;
}

/* Is a temporary of another run alive in dir (tmp_alive)? */
static int busy(int dfd)
{
	DIR *d = dir_of(dfd);
	struct dirent *e;
	int n = 0;

	while (d != NULL && (e = readdir(d)) != NULL)
		n += tmp_alive(e->d_name);
	if (d != NULL)
		closedir(d);
	return n > 0;
}

/* The first line of file (at most n - 1 bytes) into buf; "" if none. */
static void first_line(const char *file, char *buf, size_t n)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	ssize_t k = fd >= 0 ? read(fd, buf, n - 1) : -1;

	if (fd >= 0)
		close(fd);
	buf[k > 0 ? k : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* Who makes a process's directory: this machine, this boot of it, this
 * PID namespace. Only such a heapwalk can tell that the process has
 * exited (/proc here says nothing of another machine's or container's);
 * of an earlier boot of this machine, every process has. */
static char *maker(void)
{
	char machine[64], boot[64], ns[64] = "";

	first_line("/etc/machine-id", machine, sizeof machine);
	first_line("/proc/sys/kernel/random/boot_id", boot, sizeof boot);
	ssize_t n = readlink("/proc/self/ns/pid", ns, sizeof ns - 1);
	ns[n > 0 ? n : 0] = '\0';
	if (*machine == '\0' || *boot == '\0' || *ns == '\0')
		return NULL;
	return xasprintf("machine %s\nboot %s\npidns %s\n", machine, boot, ns);
}

#define MAKER_FILE "made-by"

enum made { MADE_OURS, MADE_EARLIER_BOOT, MADE_ELSEWHERE, MADE_UNSAID };

/* Who made the directory dfd (me: maker())? Ours; this machine's before
 * its last boot (its processes all gone); another's, or unknown; or it
 * says nothing (no record: a directory just made). */
static enum made made_by(int dfd, const char *me)
{
	char buf[256];
	struct stat st;
	int fd = openat(dfd, MAKER_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	ssize_t n = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, buf, sizeof buf - 1) : -1;

	if (fd < 0 && errno == ENOENT)
		return MADE_UNSAID;
	if (fd >= 0)
		close(fd);
	if (n <= 0 || me == NULL)
		return MADE_ELSEWHERE;
	buf[n] = '\0';
	if (strcmp(buf, me) == 0)
		return MADE_OURS;
	/* the same machine line, another boot line */
	size_t m = strcspn(me, "\n") + 1, b = strcspn(me + m, "\n") + 1;
	if (strncmp(buf, me, m) == 0 && strncmp(buf + m, "boot ", 5) == 0 && strncmp(buf + m, me + m, b) != 0)
		return MADE_EARLIER_BOOT;
	return MADE_ELSEWHERE;
}

/* Is the directory dfd ours alone (our user's, no one else's rights)? */
static int dir_ours(int dfd)
{
	struct stat st;

	return fstat(dfd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() && (st.st_mode & 077) == 0;
}

#define LOCK_FILE "lock"

/* dir's lock (dfd), taken without waiting: the lock file's descriptor
 * (closing it lets go), or -1. A POSIX record lock, the process's: a
 * .NET mark's recorder forked meanwhile does not inherit it, as it
 * would an flock. */
static int try_lock(int dfd)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd = openat(dfd, LOCK_FILE, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		int e = fd < 0 ? errno : EINVAL;
		if (fd >= 0)
			close(fd);
		errno = e == EAGAIN || e == EACCES || e == EINTR ? EPERM : e; /* not "held": the file is wrong */
		return -1;
	}
	if (fcntl(fd, F_SETLK, &fl) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* "pid-PID-START", digits alone: 1 with both, else 0. */
static int dir_name(const char *name, long *pid, unsigned long long *start)
{
	const char *a = name + 4, *b;
	size_t na, nb;

	if (strncmp(name, "pid-", 4) != 0 || (na = strspn(a, "0123456789")) == 0 || na > 10 || a[na] != '-')
		return 0;
	b = a + na + 1;
	if ((nb = strspn(b, "0123456789")) == 0 || nb > 19 || b[nb] != '\0')
		return 0;
	*pid = strtol(a, NULL, 10);
	*start = strtoull(b, NULL, 10);
	return *pid > 0;
}

/* Everything heapwalk keeps in the directory dfd removed (not a
 * temporary still being written); 1 if it is then empty of ours. */
static int clear_dir(int dfd)
{
	if (busy(dfd))
		return 0;
	sweep(dfd, ~0u, 0, NULL);
	unlinkat(dfd, MAKER_FILE, 0);
	unlinkat(dfd, LOCK_FILE, 0);
	return 1;
}

/* The directories in base of processes that have exited (or whose
 * number another has taken): removed, when they are ours alone, a
 * heapwalk of this machine made them, in this boot and PID namespace
 * (and /proc says the process is gone) or in an earlier boot, and no
 * other run holds them. By descriptors: base's path is looked up once. */
static void remove_exited(const char *base, const char *me)
{
	DIR *d = opendir(base);
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		long pid;
		unsigned long long start;
		if (!dir_name(e->d_name, &pid, &start))
			continue;
		int dfd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dfd < 0)
			continue;
		enum made made = dir_ours(dfd) ? made_by(dfd, me) : MADE_ELSEWHERE;
		int gone = made == MADE_EARLIER_BOOT;
		if (made == MADE_OURS) {
			struct proc_info q = { .pid = (pid_t)pid, .start = start };
			struct sbuf ignored;
			sbuf_init(&ignored);
			gone = proc_same(&q, &ignored) < 0;
			sbuf_free(&ignored);
		}
		int lk = gone ? try_lock(dfd) : -1;
		if (lk >= 0 && clear_dir(dfd))
			unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR); /* fails, harmlessly, if anything else is there */
		if (lk >= 0)
			close(lk);
		close(dfd);
	}
	closedir(d);
}

/* Seconds a run waits for another's snapshot of the same process. */
#define LOCK_WAIT 120

/* dir's lock (dfd), held for the whole take: two runs at once on one
 * process would pick the same number. The lock's descriptor, or -1 with
 * err. */
static int lock_dir(int dfd, const char *dir, long pid, int quiet, struct sbuf *err)
{
	int said = 0, fd, why = 0;

	for (int i = 0; i < LOCK_WAIT * 10; i++) {
		if ((fd = try_lock(dfd)) >= 0)
			return fd;
		if ((why = errno) != EAGAIN && why != EACCES && why != EINTR)
			break;
		if (!quiet && !said++)
			fprintf(stderr, "heapwalk: PID %ld: another heapwalk %ld is taking a snapshot; waiting for it\n",
				pid, pid);
		usleep(100000);
	}
	char *e = esc_str(dir);
	if (why != EAGAIN && why != EACCES && why != EINTR)
		sbuf_printf(err, "%s/%s: %s: no snapshot taken", e, LOCK_FILE, strerror(why));
	else
		sbuf_printf(err, "%s: another heapwalk %ld holds it (%d s waited): no snapshot taken", e, pid,
			    LOCK_WAIT);
	free(e);
	return -1;
}

/* p's directory, made (with who made it) and locked (*lk, the lock's
 * descriptor; *dfd, the directory's, through which everything in it is
 * done): the path, or NULL with err. A directory of that name that a
 * heapwalk of another machine or PID namespace made (a cache shared
 * with a container, a home on NFS) is not used: its process is not
 * this one. */
static char *proc_dir(const struct proc_info *p, int quiet, int *lk, int *dfd, struct sbuf *err)
{
	char *base = cache_private_dir(), *me = maker();

	*lk = *dfd = -1;
	if (base == NULL) {
		sbuf_adds(err, "no private cache directory that can be trusted ($XDG_CACHE_HOME/heapwalk, "
			       "~/.cache/heapwalk): give the snapshot a file with -o FILE");
		free(me);
		return NULL;
	}
	remove_exited(base, me);
	char *d = xasprintf("%s/pid-%ld-%llu", base, (long)p->pid, p->start), *e = esc_str(d);
	const char *why = NULL;
	mkdir(d, 0700);
	free(base);
	if ((why = dir_untrusted(d, 1)) != NULL ||
	    (*dfd = open(d, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 || !dir_ours(*dfd)) {
		sbuf_printf(err, "%s: %s: the snapshot is not written there (-o FILE writes it elsewhere)", e,
			    why ? why : *dfd < 0 ? strerror(errno) : "not yours alone");
		goto fail;
	}
	if ((*lk = lock_dir(*dfd, d, (long)p->pid, quiet, err)) < 0)
		goto fail;
	enum made made = me != NULL ? made_by(*dfd, me) : MADE_OURS; /* without a record of ours: never removed */
	if (made == MADE_ELSEWHERE) {
		sbuf_printf(err, "%s: made by a heapwalk of another machine, boot or PID namespace (its %s): its "
			    "process is not this one, and the snapshot is not written there (-o FILE writes it "
			    "elsewhere)", e, MAKER_FILE);
		goto fail;
	}
	if (made == MADE_EARLIER_BOOT) /* another process of the same number and start, before a reboot */
		clear_dir(*dfd);
	if (made != MADE_OURS) {
		int fd = openat(*dfd, MAKER_FILE, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			ssize_t w = write(fd, me, strlen(me));
			(void)w; /* a short record is no match: the directory is then never removed, only kept */
			close(fd);
		}
	}
	free(e);
	free(me);
	return d;
fail:
	if (*lk >= 0)
		close(*lk);
	if (*dfd >= 0)
		close(*dfd);
	*lk = *dfd = -1;
	free(e);
	free(d);
	free(me);
	return NULL;
}

/* Does the snapshot at path open whole (no warning: a file cut short,
 * damaged)? 1, or 0 with why. Opened as the browser will, so that the
 * index cache written here serves it then. */
static int sound(const char *path, struct sbuf *why)
{
	struct heap h;
	struct open_opts oo = { .quiet = 1 };
	struct progress pr;
	struct sbuf err;

	progress_init(&pr, 1);
	sbuf_init(&err);
	if (heap_open(&h, path, &oo, &pr, &err) < 0) {
		sbuf_adds(why, err.buf);
		sbuf_free(&err);
		return 0;
	}
	sbuf_free(&err);
	size_t n = h.warn.n + h.warn.suppressed;
	if (n > 0)
		sbuf_printf(why, "%zu warning%s when read (heapwalk info)", n, n == 1 ? "" : "s");
	heap_free(&h);
	return n == 0;
}

/* The baseline among the snapshots of dir numbered up to top: the
 * newest that opens whole (a damaged one is said on stderr and passed
 * over; its number in *num), NULL if none of the kept ones does. */
static char *pick_prev(const char *dir, unsigned top, const char *ext, unsigned *num)
{
	for (unsigned n = top; n > 0 && n + PIDSNAP_KEEP > top; n--) {
		char *path = xasprintf("%s/snap-%06u.%s", dir, n, ext);
		struct sbuf why;
		if (access(path, F_OK) != 0) {
			free(path);
			continue;
		}
		sbuf_init(&why);
		int ok = sound(path, &why);
		if (!ok) {
			char *e = esc_str(path);
			fprintf(stderr, "heapwalk: %s: not taken as the baseline: %s\n", e, why.buf);
			free(e);
		}
		sbuf_free(&why);
		if (ok) {
			*num = n;
			return path;
		}
		free(path);
	}
	return NULL;
}

int pidsnap_take(const struct proc_info *p, const char *out, int quiet, struct pidsnap *r, struct sbuf *err)
{
	const struct kind *k = kind_of(p->kind);
	char *dir = NULL, *prev = NULL;
	unsigned top = 0, prev_n = 0;
	int lk = -1, dfd = -1;

	memset(r, 0, sizeof *r);
	if (k == NULL) {
		sbuf_printf(err, "PID %ld: heapwalk PID cannot snapshot this runtime yet", (long)p->pid);
		return -1;
	}
	if (k->refuses != NULL && k->refuses(p, err) < 0)
		return -1;
	if (out == NULL && k->self_writes && p->uid != geteuid()) { /* before the process pays for it */
		sbuf_printf(err, "PID %ld is ", (long)p->pid);
		proc_user(err, p->uid);
		sbuf_printf(err, "'s (uid %ld): its runtime writes the snapshot itself, as that user, and cannot "
			    "write into your cache directory: give -o FILE in a directory that user may write",
			    (long)p->uid);
		return -1;
	}
	if (out != NULL) {
		r->file = xstrdup(out);
	} else {
		if ((dir = proc_dir(p, quiet, &lk, &dfd, err)) == NULL)
			return -1;
		r->kept = 1;
		top = sweep(dfd, 0, 0, k->ext);
		prev = pick_prev(dir, top, k->ext, &prev_n);
		if (top >= 999999) {
			sbuf_printf(err, "%s: a million snapshots: remove the directory", dir);
			close(lk);
			close(dfd);
			free(dir);
			free(prev);
			return -1;
		}
		r->file = xasprintf("%s/snap-%06u.%s", dir, top + 1, k->ext);
	}
	int rc = k->take(p, r->file, prev, quiet, r, err);
	if (rc == 0 && dir != NULL && top + 1 > PIDSNAP_KEEP) /* the new one, its baseline and one more stay */
		sweep(dfd, top + 1 - PIDSNAP_KEEP, prev_n, NULL);
	if (lk >= 0)
		close(lk); /* and its lock */
	if (dfd >= 0)
		close(dfd);
	free(dir);
	free(prev);
	if (rc < 0)
		pidsnap_free(r);
	return rc;
}

void pidsnap_free(struct pidsnap *r)
{
	free(r->file);
	free(r->baseline);
	free(r->says);
	memset(r, 0, sizeof *r);
}
