/* open.c — heap_open(): map, pick the reader, cache or parse and
 * analyse; see open.h. */
#include "engine/open.h"

#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "format/gz.h"
#include "graph/cache.h"
#include "graph/ownership.h"
#include "graph/resident.h"
#include "graph/reader.h"
#include "graph/rules.h"
#include "stream.h"

/* Open: the warnings of reading the dump (or the cache's copy of them)
 * said once, in one line, unless quiet or verbose (which said each),
 * with the first of them: what the reading met first, a cut or damage,
 * before what follows from it (references to what was never read);
 * later ones each as they come. */
static void opened(struct heap *h, const struct open_opts *o)
{
	struct warnings *w = &h->warn;

	if (!o->quiet && !o->verbose && w->n > 0) {
		size_t all = w->n + w->suppressed;
		const char *first = w->msg[0], *colon = strstr(first, ": ");
		char *ep = esc_str(h->path); /* as the messages hold it */
		const char *base = strrchr(ep, '/');
		base = base ? base + 1 : ep;
		size_t nb = strlen(base);
		/* the file, said once (the cache's copy has the path of its day) */
		if (colon != NULL && (size_t)(colon - first) >= nb && strncmp(colon - nb, base, nb) == 0)
			first = colon + 2;
		fprintf(stderr, "heapwalk: warning: %s: %zu warning%s while reading it (-v, or the info "
			"command, lists them); the first: %s\n", ep, all, all == 1 ? "" : "s", first);
		free(ep);
	}
	w->quiet = o->quiet;
}

/* p made absolute: its real path, or, where it does not exist, its
 * directory's and its name; NULL if neither can be had */
static char *absolute(const char *p)
{
	char *r = realpath(p, NULL);

	if (r != NULL)
		return r;
	const char *slash = strrchr(p, '/');
	char *dir = slash ? xstrndup(p, (size_t)(slash - p) + (slash == p)) : xstrdup(".");
	char *rd = realpath(dir, NULL);
	free(dir);
	if (rd == NULL)
		return NULL;
	r = xasprintf("%s/%s", strcmp(rd, "/") == 0 ? "" : rd, slash ? slash + 1 : p);
	free(rd);
	return r;
}

/* Whether rest (what follows a dump's name and a dot) is the name of a
 * file heapwalk keeps with it */
static int companion_suffix(const char *rest)
{
	size_t digits = strspn(rest, "0123456789");

	return strcmp(rest, &CLR_MARK_SUFFIX[1]) == 0 || strcmp(rest, "hwi") == 0 || strcmp(rest, "gzi") == 0 ||
	       (digits > 0 && strcmp(rest + digits, ".hwi") == 0) || strncmp(rest, "inflated", 8) == 0 ||
	       strncmp(rest, "inflating.", 10) == 0;
}

int dump_companion(const char *out, const char *path)
{
	struct stat st;
	char *dump = stat(path, &st) == 0 || strrchr(path, ':') == NULL ? xstrdup(path)
		     : xstrndup(path, (size_t)(strrchr(path, ':') - path));
	char *o = absolute(out), *base[4] = { absolute(dump), NULL, cache_private_base(dump), cache_choose(dump, NULL) };
	int found = 0;

	if (base[0] != NULL) { /* a mark file beside the name given, not only the file it links to */
		char *given = xstrdup(dump), *slash = strrchr(given, '/');
		char *dir = slash ? xstrndup(given, (size_t)(slash - given) + (slash == given)) : xstrdup(".");
		char *rd = realpath(dir, NULL);
		if (rd != NULL)
			base[1] = xasprintf("%s/%s", strcmp(rd, "/") == 0 ? "" : rd, slash ? slash + 1 : given);
		free(rd);
		free(dir);
		free(given);
	}
	if (base[3] != NULL && strlen(base[3]) > 4)
		base[3][strlen(base[3]) - 4] = '\0'; /* ".hwi" */
	for (int i = 0; i < 4 && o != NULL && !found; i++) {
		size_t n = base[i] != NULL ? strlen(base[i]) : 0;
		found = n > 0 && strncmp(o, base[i], n) == 0 && o[n] == '.' && companion_suffix(o + n + 1);
	}
	for (int i = 0; i < 4; i++)
		free(base[i]);
	free(o);
	free(dump);
	return found;
}

/* A file beside a gzip dump's index cache ("dump.hprof.gz.hwi" ->
 * "dump.hprof.gz" SUFFIX), or NULL (no cache). */
static char *beside_cache(const char *path, const struct open_opts *o, const char *suffix)
{
	if (o->no_cache)
		return NULL;
	char *c = cache_choose(path, NULL), *out = NULL;
	if (c != NULL && strlen(c) > 4) {
		c[strlen(c) - 4] = '\0'; /* ".hwi" */
		out = xasprintf("%s%s", c, suffix);
	}
	free(c);
	return out;
}


/* ---- a gzip dump of many members (the JDK's), read at random ----
 * Its first open inflates it into a temporary file (the reader reads it
 * all, some of it more than once: faster from a file than inflated
 * again each time) and keeps the members' index beside the index cache
 * (DUMP.gzi: the .gz's identity, then the index). Once the cache is
 * there, later opens read the .gz through a gz_view: what a view reads
 * is inflated when it is read, and nothing is kept on disk but the
 * cache and that index. */

#define GZI_MAGIC "HWGZI\0\0\2"
#define GZ_CACHE_MB 64 /* inflated MiB kept in memory, HEAPWALK_GZ_CACHE_MB */

struct gzi_head {
	char magic[8];
	uint64_t size, mtime_s, mtime_ns, ino, dev, index_bytes;
};

static void gzi_ident(struct gzi_head *g, const struct stat *st)
{
	memset(g, 0, sizeof *g);
	memcpy(g->magic, GZI_MAGIC, 8);
	g->size = (uint64_t)st->st_size;
	g->mtime_s = (uint64_t)st->st_mtim.tv_sec;
	g->mtime_ns = (uint64_t)st->st_mtim.tv_nsec;
	g->ino = (uint64_t)st->st_ino;
	g->dev = (uint64_t)st->st_dev;
}

/* The index kept for the .gz whose stat is gst: 0, or -1 (nothing to
 * use: none, another .gz's, not ours, damaged). */
static int gzi_load(const char *file, const struct stat *gst, struct gz_index *idx)
{
	struct gzi_head want, g;
	struct stat st;
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK), rc = -1;
	char *buf = NULL;

	gzi_ident(&want, gst);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022) != 0 || (uint64_t)st.st_size < sizeof g || read(fd, &g, sizeof g) != sizeof g)
		goto done;
	want.index_bytes = g.index_bytes;
	if (memcmp(&g, &want, sizeof g) != 0 || g.index_bytes != (uint64_t)st.st_size - sizeof g)
		goto done;
	buf = xmalloc((size_t)g.index_bytes + 1);
	if (read(fd, buf, (size_t)g.index_bytes) == (ssize_t)g.index_bytes &&
	    gz_index_unpack((const uint8_t *)buf, (size_t)g.index_bytes, idx) == 0)
		rc = 0;
done:
	free(buf);
	if (fd >= 0)
		close(fd);
	return rc;
}

/* Keep idx for the .gz of stat gst; a failure only costs a later open
 * the inflating again. */
static void gzi_save(const char *file, const struct stat *gst, const struct gz_index *idx)
{
	struct gzi_head g;
	struct sbuf pk;
	char *tmp = xasprintf("%s.tmp.%ld", file, (long)getpid());

	sbuf_init(&pk);
	gz_index_pack(idx, &pk);
	gzi_ident(&g, gst);
	g.index_bytes = pk.len;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd >= 0) {
		int ok = write(fd, &g, sizeof g) == (ssize_t)sizeof g && write(fd, pk.buf, pk.len) == (ssize_t)pk.len;
		if (close(fd) < 0 || !ok || rename(tmp, file) < 0)
			unlink(tmp);
	}
	free(tmp);
	sbuf_free(&pk);
}

static void container_free(void *v)
{
	gz_view_free(v);
}

/* The .gz in h (h->file_map, of stat gst) read through a gz_view, when
 * its index cache is current and its members' index kept: h->map
 * becomes the view. 0, or 1 when not (nothing changed). */
static int open_view(struct heap *h, const char *path, const struct open_opts *o, const struct stat *gst)
{
	struct gz_index idx = { 0 };
	char *gzi = beside_cache(path, o, ".gzi"), *cache = o->no_cache ? NULL : cache_choose(path, NULL);
	int ok = gzi != NULL && cache != NULL && cache_current(h, cache) && gzi_load(gzi, gst, &idx) == 0;

	free(gzi);
	free(cache);
	if (!ok) {
		gz_index_free(&idx);
		return 1;
	}
	const char *env = getenv("HEAPWALK_GZ_CACHE_MB");
	long mb = env != NULL && *env ? strtol(env, NULL, 10) : GZ_CACHE_MB;
	unsigned chunks = (unsigned)((mb < 2 ? 2 : mb > 65536 ? 65536 : mb) * ((uint64_t)1 << 20) / GZ_CHUNK);
	struct gz_view *v = gz_view_new(h->file_map, h->file_size, &idx, chunks);
	if (v == NULL) {
		gz_index_free(&idx);
		return 1;
	}
	h->map = gz_view_map(v);
	h->size = gz_view_size(v);
	h->container = v;
	h->container_free = container_free;
	if (o->verbose) {
		char *ep = esc_str(path);
		fprintf(stderr, "heapwalk: %s: read at random, %zu gzip members inflated as they are read\n", ep,
			gz_view_index(v)->n);
		free(ep);
	}
	return 0;
}

/* ---- a gzip dump inflated into a file ----
 * A copy kept (one member, or many of which one is damaged) is made
 * where no one else can plant a file or take its name: beside the index
 * cache when that directory is ours and others cannot write in it, else
 * in the private cache directory (a dump in /tmp has its copy there).
 * It is written under a name mkstemp makes, renamed into place when
 * complete, and all the while a lock is held (flock on a file of ours
 * beside it), so that of two first opens one inflates and the other
 * waits and uses its copy. What the .gz holds is told from its first
 * inflated bytes before anything is written, and a copy never takes
 * more than the free space; a copy of what is refused is removed. */

#define HEAD_BYTES 65536 /* inflated to tell the format */

/* What open_gzip leaves to heap_open's end: the kept copy in use, the
 * lock held. One at a time, kept here: an open that the browser unwinds
 * from (out of memory) leaves it to the next open to let go, or that
 * open would wait for its own process's lock. */
static struct gz_copy {
	char *raw;   /* the copy mapped, when it is the kept one */
	char *lock;  /* the lock's file, held through lock_fd */
	int lock_fd;
} held = { .lock_fd = -1 };

/* The start of the names of a gzip dump's inflated files ("DIR/NAME"):
 * beside its index cache when that directory is ours and closed to
 * writes by others, else in the private cache directory. NULL: no
 * cache, or no such place (then no copy is kept). */
static char *copy_base(const char *path, const struct open_opts *o)
{
	char *c = o->no_cache ? NULL : cache_choose(path, NULL), *base = NULL;

	if (c != NULL && strlen(c) > 4) {
		c[strlen(c) - 4] = '\0'; /* ".hwi" */
		const char *slash = strrchr(c, '/');
		char *dir = slash ? xstrndup(c, (size_t)(slash - c) + (slash == c)) : xstrdup(".");
		if (dir_untrusted(dir, 0) == NULL)
			base = xstrdup(c);
		free(dir);
	}
	if (c != NULL && base == NULL)
		base = cache_private_base(path);
	free(c);
	return base;
}

/* The lock on lock's file (made 0600, never through a link), held by
 * one open of the dump at a time; while another holds it, a wait that
 * can be cancelled. Its holder removes the file when it lets go: a
 * waiter that then finds another file at the name (or none) takes that
 * one's instead. The descriptor; -1 if there can be no lock (each open
 * makes its own copy, under names of its own); -2 when cancelled. */
static int copy_lock(const char *lock, struct progress *p)
{
	for (;;) {
		int fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600), waited = 0;
		struct stat a, b;
		if (fd < 0)
			return -1;
		while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			if (errno != EWOULDBLOCK && errno != EINTR) {
				close(fd);
				return -1;
			}
			if (!waited++)
				progress_begin(p, "waiting for another heapwalk inflating the dump", 0, "MB");
			progress_update(p, 0);
			if (progress_cancelled(p)) {
				progress_end(p);
				close(fd);
				return -2;
			}
			nanosleep(&(struct timespec){ 0, 20 * 1000 * 1000 }, NULL);
		}
		if (waited)
			progress_end(p);
		if (fstat(fd, &a) == 0 && lstat(lock, &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev)
			return fd;
		close(fd);
	}
}

/* heap_open is done with the dump: the kept copy of what was refused is
 * removed (a copy of nothing, a dump without a single object, too: a
 * header and then garbage), the lock let go. */
static void copy_end(struct gz_copy *c, int refused)
{
	if (refused && c->raw != NULL)
		unlink(c->raw);
	if (c->lock_fd >= 0) {
		unlink(c->lock);
		close(c->lock_fd);
	}
	free(c->raw);
	free(c->lock);
	memset(c, 0, sizeof *c);
	c->lock_fd = -1;
}

/* A copy made from this very .gz: a regular file of ours, closed to
 * others, whose modification time is the .gz's (set when it is
 * complete, and a copy is renamed into place only then: a .gz replaced
 * since has another) and, for one member, whose length is the one its
 * trailer gives (one cut short is made again). */
static int inflated_current(const char *raw, const struct stat *gz, const struct heap *h, int many)
{
	struct stat st;

	return lstat(raw, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	       (st.st_mode & 022) == 0 && st.st_nlink == 1 && st.st_mtim.tv_sec == gz->st_mtim.tv_sec &&
	       st.st_mtim.tv_nsec == gz->st_mtim.tv_nsec &&
	       (many || ((uint64_t)st.st_size & 0xffffffffu) == gz_trailer_size(h->file_map, h->file_size));
}

static void not_a_dump(struct sbuf *err, const char *path, const uint8_t *head, size_t n)
{
	char *ep = esc_str(path);
	const char *near = n > 0 ? format_near(head, n) : NULL;

	sbuf_printf(err, "%s: offset 0: not a heap dump heapwalk reads (%s): ", ep,
		    n == 0 ? "empty" : near != NULL ? near : "unknown first bytes");
	formats_say(err);
	free(ep);
}

/* Can what the .gz in h inflates to be a dump? Its first bytes, told by
 * the readers' probes before a byte is written: a gzip bomb of zeros is
 * refused at its first byte. One whose first member gives nothing at
 * all passes: inflating it says what is wrong. 0, or -1 with err. */
static int head_is_dump(const struct heap *h, const char *path, struct sbuf *err)
{
	uint8_t *head = xmalloc(HEAD_BYTES);
	long n = gz_head(h->file_map, h->file_size, head, HEAD_BYTES);
	int ok = n < 0 || format_find(head, (size_t)n) != NULL;

	if (!ok)
		not_a_dump(err, path, head, n > 0 ? (size_t)n : 0);
	free(head);
	return ok ? 0 : -1;
}

/* The bytes a copy may take in the file system of the file at path
 * (its directory's), leaving a twentieth of it free as a snapshot does
 * (stream_room); UINT64_MAX when that cannot be told. */
static uint64_t free_beside(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, (size_t)(slash - path) + (slash == path)) : xstrdup(".");
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	uint64_t n = fd >= 0 ? stream_room(fd) : UINT64_MAX;

	if (fd >= 0)
		close(fd);
	free(dir);
	return n;
}

/* Inflate the .gz in h into a new file: kept as raw (renamed there when
 * complete, its time set to the .gz's), or else left at a temporary
 * name in *tmp for the caller to map and remove: beside the copy's
 * (base) when there is a place for it, else under $TMPDIR. many: kept
 * only when a member is damaged (a view cannot read such a member as
 * far as it goes), else the members' index saved in gzi. 0, or -1 with
 * err. */
static int inflate_copy(struct heap *h, const char *path, const char *base, const char *raw, int many,
			const char *gzi, const struct stat *gst, char **tmp, struct progress *p, struct sbuf *err)
{
	struct gz_index idx = { 0 };
	struct gz_out out = { .rename_to = many ? NULL : raw };

	if (head_is_dump(h, path, err) < 0)
		return -1;
	if (base != NULL) {
		char *pre = xasprintf("%s.inflating.", base);
		tmp_remove_stale(pre); /* those of killed runs first */
		out.file = xasprintf("%s%ld.XXXXXX", pre, (long)getpid());
		free(pre);
	} else {
		const char *td = getenv("TMPDIR");
		out.file = xasprintf("%s/heapwalk-%ld.inflating.XXXXXX", td && *td == '/' ? td : "/tmp",
				     (long)getpid());
	}
	out.limit = free_beside(out.file);
	size_t warned = h->warn.n + h->warn.suppressed;
	int r = gz_inflate_to_file(h->path, h->file_map, h->file_size, &out, &idx, p, &h->warn, err);
	int clean = r == 0 && h->warn.n + h->warn.suppressed == warned;
	if (clean && gzi != NULL)
		gzi_save(gzi, gst, &idx);
	gz_index_free(&idx);
	if (r < 0) {
		free(out.file);
		return -1;
	}
	if (many && !clean && raw != NULL && rename(out.file, raw) == 0) /* kept after all */
		out.rename_to = raw;
	if (out.rename_to != NULL) {
		struct timespec t[2] = { gst->st_atim, gst->st_mtim };
		utimensat(AT_FDCWD, raw, t, 0);
		free(out.file);
	} else {
		*tmp = out.file;
	}
	return 0;
}

/* The dump in h is gzip: read through a gz_view (open_view), or
 * inflated once into a file (on disk, not in memory) mapped in its
 * place. h keeps the .gz's path and the .gz itself as h->file_map
 * (the cache knows the dump by it). What heap_open must finish (the
 * lock, the kept copy) in *c. 0, or -1 with one line in err. */
static int open_gzip(struct heap *h, const char *path, const struct open_opts *o, struct gz_copy *c,
		     struct progress *p, struct sbuf *err)
{
	struct stat gst;
	int many = gz_member_hint(h->map, h->size) > 0, rc = -1;
	char *base = copy_base(path, o), *raw = base != NULL ? xasprintf("%s.inflated", base) : NULL, *tmp = NULL;
	char *gzi = many ? beside_cache(path, o, ".gzi") : NULL;

	h->file_map = h->map;
	h->file_size = h->size;
	h->map = NULL;
	if (fstat(h->fd, &gst) < 0) {
		char *ep = esc_str(path);
		sbuf_printf(err, "%s: %s", ep, strerror(errno));
		free(ep);
		goto done;
	}
	if (raw != NULL) { /* the lock first: what is found after it is complete */
		c->lock = xasprintf("%s.lock", raw);
		c->lock_fd = copy_lock(c->lock, p);
		if (c->lock_fd == -2) {
			char *ep = esc_str(path);
			sbuf_printf(err, "%s: cancelled", ep);
			free(ep);
			goto done;
		}
	}
	if (many && open_view(h, path, o, &gst) == 0) {
		rc = 0;
		goto done;
	}
	if ((raw == NULL || !inflated_current(raw, &gst, h, many)) &&
	    inflate_copy(h, path, base, raw, many, gzi, &gst, &tmp, p, err) < 0)
		goto done;
	struct heap in = { .fd = -1 };
	if (heap_map_file(&in, tmp != NULL ? tmp : raw, err) < 0)
		goto done;
	close(in.fd);
	h->map = in.map;
	h->size = in.size;
	free(in.path);
	if (tmp == NULL) { /* the kept copy: removed if what it holds is refused */
		c->raw = raw;
		raw = NULL;
	}
	rc = 0;
done:
	if (tmp != NULL)
		unlink(tmp);
	if (h->map == NULL) { /* as it was: the file is the map */
		h->map = h->file_map;
		h->size = h->file_size;
		h->file_map = NULL;
	}
	free(tmp);
	free(raw);
	free(base);
	free(gzi);
	return rc;
}

void heap_whole(struct heap *h, struct progress *p)
{
	struct gz_view *v = h->container;

	if (v == NULL || h->container_free != container_free || gz_view_filled(v))
		return;
	char *base = cache_private_base(h->path), *pre, *ep = esc_str(h->path);
	if (base != NULL) {
		pre = xasprintf("%s.inflating.", base);
		tmp_remove_stale(pre);
	} else {
		const char *td = getenv("TMPDIR");
		pre = xasprintf("%s/heapwalk-%ld.inflating.", td && *td == '/' ? td : "/tmp", (long)getpid());
	}
	struct gz_out out = { .file = xasprintf("%s%ld.XXXXXX", pre, (long)getpid()) };
	struct gz_index idx = { 0 };
	struct warnings w = { 0 }; /* the open said what there was to say */
	struct sbuf why;
	int ok = 0;
	out.limit = free_beside(out.file);
	sbuf_init(&why);
	if (gz_inflate_to_file(h->path, h->file_map, h->file_size, &out, &idx, p, &w, &why) == 0) {
		int fd = open(out.file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		ok = fd >= 0 && gz_view_fill(v, fd) == 0;
		if (fd >= 0)
			close(fd);
		unlink(out.file);
		if (!ok)
			sbuf_printf(&why, "%s: the inflated copy could not be mapped", ep);
	}
	uint64_t need = gz_view_size(v);
	if (ok || (p != NULL && progress_cancelled(p))) {
		/* done, or not wanted */
	} else if (!heap_tight(need)) { /* no room on disk: in memory */
		gz_view_keep(v, (unsigned)((need + GZ_CHUNK - 1) / GZ_CHUNK));
	} else {
		warn_add(&h->warn, "%s; and no memory to keep it: members inflated again as they are read again",
			 why.buf);
	}
	gz_index_free(&idx);
	warn_free(&w);
	sbuf_free(&why);
	free(out.file);
	free(pre);
	free(base);
	free(ep);
}

/* "FILE:N" where no file has that name but FILE is one: FILE (to free),
 * and N in *snap (0 for ":0", which names none; *past set, and 0, for
 * an N past any heapshot's number); else NULL. */
static char *snapshot_path(const char *path, uint32_t *snap, int *past)
{
	const char *colon = strrchr(path, ':');
	struct stat st;
	uint64_t n = 0;

	*past = 0;
	if (colon == NULL || colon == path || colon[1] < '0' || colon[1] > '9' || stat(path, &st) == 0)
		return NULL;
	const char *d = colon + 1;
	for (; *d >= '0' && *d <= '9'; d++)
		if ((n = n * 10 + (uint64_t)(*d - '0')) > UINT32_MAX)
			*past = 1, n = UINT32_MAX;
	char *file = xstrndup(path, (size_t)(colon - path));
	if (*d != '\0' || stat(file, &st) != 0) {
		free(file);
		*past = 0;
		return NULL;
	}
	*snap = *past ? 0 : (uint32_t)n;
	return file;
}

/* The dump mapped in h (inflated, if it was gzip): its reader, and the
 * index cache or a parse. 0, or -1 with h freed. */
static int open_mapped(struct heap *h, const char *path, const struct open_opts *o,
		       struct progress *p, struct sbuf *err)
{
	const char *why = NULL;

	h->fmt = format_find(h->map, h->size);
	if (h->fmt == NULL) {
		not_a_dump(err, path, h->map, h->size < HEAD_BYTES ? (size_t)h->size : HEAD_BYTES);
		heap_free(h);
		return -1;
	}
	if (h->fmt->header(h, err) < 0) {
		heap_free(h);
		return -1;
	}
	if (h->want_snap != 0 && !h->fmt->snapshots) {
		char *ep = esc_str(h->path);
		sbuf_printf(err, "%s: this %s file holds one heap: heapshot %u is for files of several (Mono's .mlpd)",
			    ep, h->fmt->title, h->want_snap);
		free(ep);
		heap_free(h);
		return -1;
	}
	int no_cache = o->no_cache || !h->fmt->cacheable;
	if (!heap_runtime_is(h, "jvm")) { /* the rules name Java classes and fields */
		if (o->rules != NULL && o->rules->files != NULL) /* the user's: said, not dropped quietly */
			warn_add(&h->notes, "%s: the rules of %s are not applied: they classify the references of JVM "
				 "heaps, and this is a %s dump", h->path, o->rules->files, h->fmt->title);
		h->rules = NULL;
	}
	struct ruleset *rules = h->rules != NULL ? o->rules : NULL;
	if (!no_cache) {
		struct sbuf why_not;
		sbuf_init(&why_not);
		h->cache_file = cache_choose_snap(h->path, h->want_snap, &why_not);
		if (why_not.len > 0)
			warn_add_escaped(&h->notes, why_not.buf);
		sbuf_free(&why_not);
	}
	h->rebuild = heap_rebuild; /* a part of the cache found corrupt later */
	int loaded = !no_cache && cache_load(h, o->verify_cache, &why) == 0;
	if (!no_cache && !loaded && h->want_snap != 0) {
		/* the heapshot an open that names none reads has the file's own
		 * cache (cache_finish): this one's, if it is that heapshot */
		char *own = cache_choose_snap(h->path, 0, NULL), *mine = h->cache_file;
		h->cache_file = own;
		if (own != NULL && cache_load(h, o->verify_cache, &why) == 0) {
			loaded = 1;
			free(mine);
		} else {
			h->cache_file = mine;
			free(own);
		}
	}
	if (loaded) {
		h->from_cache = 1;
		/* other rules than last time, or the other way with garbage */
		if (h->rules_fp != rules_fingerprint(rules) || h->keep_unreachable != o->keep_unreachable) {
			h->keep_unreachable = o->keep_unreachable;
			heap_need(h, HP_ALL, p);
			heap_apply_rules(h, rules, p);
			cache_save(h);
			heap_park(h, HP_ALL);
		}
		opened(h, o);
		return 0;
	}
	if (heap_build(h, rules, p, err) < 0) {
		heap_free(h);
		return -1;
	}
	opened(h, o);
	return 0;
}

/* An array of a quarter MB or more is a mapping of its own, whatever
 * was freed before: glibc raises its threshold to the size of each
 * such block freed (up to 32 MB), after which the engine's arrays come
 * from its heap, where one freed stays resident while anything above it
 * lives (on a V8 open, 9 bytes an object more at the peak). */
static void malloc_setup(void)
{
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD)
	static int done;

	if (!done)
		mallopt(M_MMAP_THRESHOLD, 256 << 10);
	done = 1;
#endif
}

int heap_open(struct heap *h, const char *path, const struct open_opts *o,
	      struct progress *p, struct sbuf *err)
{
	malloc_setup();
	copy_end(&held, 0); /* one left by an open unwound from */
	memset(h, 0, sizeof *h);
	h->fd = -1;
	h->warn.quiet = !o->verbose; /* collected; one line for them all at the end */
	h->notes.quiet = o->quiet;   /* said as they come */
	h->rules = o->rules;
	h->keep_unreachable = o->keep_unreachable;
	int past;
	char *file = snapshot_path(path, &h->want_snap, &past);
	if (file != NULL && (h->want_snap == 0 || (o->snapshot != 0 && o->snapshot != h->want_snap))) {
		char *ep = esc_str(path);
		if (past)
			sbuf_printf(err, "%s: no heapshot %s: they are counted from 1 to %u at most", ep,
				    ep + strlen(ep) - strlen(strrchr(path, ':') + 1), UINT32_MAX);
		else if (h->want_snap == 0)
			sbuf_printf(err, "%s: no heapshot 0: they are counted from 1", ep);
		else
			sbuf_printf(err, "%s: --heapshot %u names another heapshot", ep, o->snapshot);
		free(ep);
		free(file);
		heap_free(h);
		return -1;
	}
	if (o->snapshot != 0)
		h->want_snap = o->snapshot;
	int rc = heap_map_file(h, file != NULL ? file : path, err);
	free(file);
	if (rc == 0 && gz_probe(h->map, h->size))
		rc = open_gzip(h, path, o, &held, p, err);
	int refused = rc < 0; /* the gzip file refused, or its copy not complete */
	if (rc < 0)
		heap_free(h);
	else
		rc = open_mapped(h, path, o, p, err);
	/* a copy of nothing is not kept; a complete copy of a dump is, when
	 * the open stops for another reason (cancelled, the memory) */
	copy_end(&held, refused || (rc == 0 && h->n <= 1));
	return rc;
}
