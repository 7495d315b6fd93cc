/* cache.c — the index cache, see cache.h.
 *
 * Layout: a header (magic, format version, sizes of the index types,
 * the dump's identity: size, mtime, inode, device and a hash of sampled
 * content), a table of sections (where, raw and compressed length,
 * checksum), then the sections (graph/store.h: each LZ4-compressed in
 * chunks, every chunk preceded by its compressed length), in the order
 * they were written. Loading checks all of it and then the values
 * themselves, so that a corrupt cache can never send later code out of
 * bounds.
 *
 * The file a cold open writes is the same file the build parks its
 * arrays in (struct backing): each array goes in once, when it is
 * final, and comes back when a phase needs it; the header and the table
 * go in front at the end, and the file is renamed into place. Without a
 * cache the file is a scratch file, unlinked once made. */
#include "graph/cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lz4.h>

#include "graph/domtree.h"
#include "graph/reader.h"
#include "graph/resident.h"
#include "graph/store.h"

#define MAGIC "HWIDX\0\r\n"

/* Scalars of the heap, saved as one section. */
struct scalars {
	char version[24];
	uint64_t timestamp_ms, root_id;
	struct jvm_layout layout;
	struct agent_info agent;
	uint64_t n, nedges, nweak, nroot_rec, nroots, ncls, nfields, nrefoffs, names_len;
	uint64_t nframes, ntraces, ntrace_frames, nthreads, nwarn_bytes, nwarn, suppressed;
	uint64_t total_shallow, unreachable_count, unreachable_bytes;
	uint64_t weakonly_count, weakonly_bytes, dangling_refs, dangling_expected;
	uint64_t nrx, nown, ntags, tag_labels_len, tag_nlabels, nambiguous, rules_fp;
	uint64_t truncated_at;
	uint64_t keep_unreachable, garbage_refs, outside_refs, ignored_refs;
	uint64_t id_base, id_nb, id_shift, id_bits;
	/* the format that wrote it; what not every format has */
	char fmt[16];
	uint64_t has_node_id, has_gen, nsnaps, snap, dump_gc_ns, dump_pause_ns;
	uint64_t absent; /* parts the reader does not make (V8: node_off) */
	uint64_t gen_objects[HW_MAX_GENS], gen_bytes[HW_MAX_GENS];
	/* the reader's own arrays (format_ops' data_arrays) */
	uint64_t fmt_n, fmt_elem[FMT_ARRAYS], fmt_count[FMT_ARRAYS];
};

static uint64_t hash64(const void *p, size_t n, uint64_t seed)
{
	return store_hash(p, n, seed);
}

uint64_t cache_checksum(const void *p, size_t n, uint64_t seed)
{
	return hash64(p, n, seed);
}

static int dump_ident(const struct heap *h, struct cache_ident *id)
{
	struct stat st;

	if (fstat(h->fd, &st) < 0)
		return -1;
	memset(id, 0, sizeof *id);
	id->size = (uint64_t)st.st_size;
	id->mtime_s = (uint64_t)st.st_mtim.tv_sec;
	id->mtime_ns = (uint64_t)st.st_mtim.tv_nsec;
	id->ino = st.st_ino;
	id->dev = st.st_dev;
	/* the ends and 16 blocks between: a cheap guard against a dump
	 * rewritten in place with the same size and time (the file's own
	 * bytes: a gzip dump's compressed ones) */
	const uint8_t *m = h->file_map != NULL ? h->file_map : h->map;
	uint64_t x = 0, sz = h->file_map != NULL ? h->file_size : h->size, blk = sz < 65536 ? sz : 65536;
	x = hash64(m, blk, x);
	x = hash64(m + sz - blk, blk, x);
	for (int i = 1; i <= 16 && sz > 8192; i++) {
		uint64_t at = sz / 17 * (uint64_t)i;
		x = hash64(m + at, at + 4096 <= sz ? 4096 : sz - at, x);
	}
	id->sample = x;
	return 0;
}

/* Every byte of the dump's file (--verify-cache): a gzip dump's
 * compressed bytes, which are read without inflating them again; what
 * the reader hashed as it read them (h->content) when it did. Read
 * through a buffer, not the mapping: a reader that let the dump's pages
 * go as it parsed (V8's) would have them all back for this. */
static uint64_t content_hash(const struct heap *h)
{
	if (h->content_known)
		return h->content;
	const uint8_t *m = h->file_map != NULL ? h->file_map : h->map;
	uint64_t n = h->file_map != NULL ? h->file_size : h->size;
	struct store_hasher x;
	enum { BUF = 1 << 20 };
	uint8_t *buf = xmalloc(BUF);

	store_hash_begin(&x, 0, n);
	for (uint64_t at = 0; at < n;) {
		size_t want = n - at < BUF ? (size_t)(n - at) : BUF;
		ssize_t got = pread(h->fd, buf, want, (off_t)at);
		if (got <= 0) { /* the file cannot be read so: its mapping then */
			store_hash_add(&x, m + at, (size_t)(n - at));
			break;
		}
		store_hash_add(&x, buf, (size_t)got);
		at += (uint64_t)got;
	}
	free(buf);
	return store_hash_end(&x);
}

/* Why the file at path must not be taken for a cache (another user
 * could have put it there, or could change it): NULL if it may, or if
 * there is none. */
static const char *untrusted(const struct stat *st)
{
	if (!S_ISREG(st->st_mode))
		return "not a regular file";
	if (st->st_uid != geteuid())
		return "owned by another user";
	if (st->st_mode & 022)
		return "writable by others";
	return NULL;
}

static const char *untrusted_path(const char *path)
{
	struct stat st;

	return lstat(path, &st) < 0 ? NULL : untrusted(&st);
}

/* The private directory: $XDG_CACHE_HOME/heapwalk, else
 * $HOME/.cache/heapwalk, else $TMPDIR (or /tmp)/heapwalk-UID. Made 0700
 * and checked on an open descriptor: a directory (not a symlink), ours,
 * closed to others (narrowed to 0700 if ours and wider). NULL if it
 * cannot be trusted: then there is no cache. */
char *cache_private_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME"), *tmp = getenv("TMPDIR");
	char *d;

	if (xdg != NULL && *xdg == '/') { /* the XDG spec ignores relative ones */
		mkdir(xdg, 0700);
		d = xasprintf("%s/heapwalk", xdg);
	} else if (home != NULL && *home == '/') {
		char *base = xasprintf("%s/.cache", home);
		mkdir(base, 0700);
		free(base);
		d = xasprintf("%s/.cache/heapwalk", home);
	} else {
		d = xasprintf("%s/heapwalk-%ld", tmp != NULL && *tmp == '/' ? tmp : "/tmp", (long)geteuid());
	}
	mkdir(d, 0700);
	if (dir_untrusted(d, 1) != NULL) {
		free(d);
		d = NULL;
	}
	return d;
}

/* "<private dir>/<hash of the absolute path>-NAME" for the dump at abs,
 * NULL without a private directory. */
static char *private_base(const char *abs)
{
	const char *slash = strrchr(abs, '/');
	char *pd = cache_private_dir(), *out = NULL;

	if (pd != NULL)
		out = xasprintf("%s/%016llx-%s", pd, (unsigned long long)hash64(abs, strlen(abs), 0),
				slash ? slash + 1 : abs);
	free(pd);
	return out;
}

static char *choose(const char *dump_path, const char *suffix, struct sbuf *note)
{
	char *abs = realpath(dump_path, NULL);
	const char *p = abs ? abs : dump_path;
	const char *slash = strrchr(p, '/');
	char *dir = slash ? xstrndup(p, (size_t)(slash - p) + (slash == p)) : xstrdup(".");
	char *out = NULL;

	if (access(dir, W_OK) == 0) {
		out = xasprintf("%s%s", p, suffix);
		const char *bad = untrusted_path(out);
		if (bad != NULL) {
			if (note != NULL) {
				char *e = esc_str(out);
				sbuf_printf(note, "%s: not used as the index cache: %s; using one in the "
					    "private cache directory", e, bad);
				free(e);
			}
			free(out);
			out = NULL;
		}
	}
	if (out == NULL) {
		char *base = private_base(p);
		if (base != NULL)
			out = xasprintf("%s%s", base, suffix);
		else if (note != NULL && note->len == 0)
			sbuf_adds(note, "no private cache directory that can be trusted (not ours, or open "
				  "to others): no index cache");
		free(base);
	}
	free(dir);
	free(abs);
	return out;
}

char *cache_choose(const char *dump_path, struct sbuf *note)
{
	return choose(dump_path, ".hwi", note);
}

char *cache_choose_snap(const char *dump_path, uint32_t snap, struct sbuf *note)
{
	char suffix[32];

	if (snap == 0)
		return choose(dump_path, ".hwi", note);
	snprintf(suffix, sizeof suffix, ".%u.hwi", snap);
	return choose(dump_path, suffix, note);
}

char *cache_private_base(const char *dump_path)
{
	char *abs = realpath(dump_path, NULL);
	char *base = private_base(abs ? abs : dump_path);

	free(abs);
	return base;
}

char *cache_path(const char *dump_path)
{
	return cache_choose(dump_path, NULL);
}

/* The sections: where each array lives and how many elements it has. */
struct slot { void **ptr; size_t elem; uint64_t count; };

static int slots(struct heap *h, const struct scalars *s, struct slot *o)
{
	int k = 0;
#define SLOT(field, cnt) o[k++] = (struct slot){ (void **)&h->field, sizeof *h->field, (cnt) }
	SLOT(node_off, s->n);
	SLOT(node_class, s->n);
	SLOT(node_shallow, s->n);
	SLOT(node_kind, s->n);
	SLOT(out_start, s->n + 1);
	SLOT(out, s->nedges);
	SLOT(in_start, s->n + 1);
	SLOT(in, s->nedges + s->nroots);
	SLOT(weak_src, s->nweak);
	SLOT(weak_dst, s->nweak);
	SLOT(root_rec, s->nroot_rec);
	SLOT(roots, s->nroots);
	SLOT(cls, s->ncls);
	SLOT(fields, s->nfields);
	SLOT(refoffs, s->nrefoffs);
	SLOT(names, s->names_len);
	SLOT(idom, s->n);
	SLOT(retained, s->n);
	SLOT(frames, s->nframes);
	SLOT(traces, s->ntraces);
	SLOT(trace_frames, s->ntrace_frames);
	SLOT(threads, s->nthreads);
	SLOT(weak_rule, s->nweak);
	SLOT(rx_src, s->nrx);
	SLOT(rx_dst, s->nrx);
	SLOT(tag_node, s->ntags);
	SLOT(tag_label, s->ntags);
	SLOT(tag_labels, s->tag_labels_len);
	SLOT(ambiguous, s->nambiguous);
	SLOT(id_low, s->id_nb > 0 ? s->n : 0);
	SLOT(id_start, s->id_nb > 0 ? s->id_nb + 1 : 0);
	/* kept by the formats that have them (NULL: none) */
	SLOT(node_id, s->has_node_id ? s->n : 0);
	SLOT(node_gen, s->has_gen ? s->n : 0);
	SLOT(snaps, s->nsnaps);
	SLOT(own_node, s->nown);
	SLOT(own_rule, s->nown);
#undef SLOT
	return k;
}
#define NSLOTS 36
#define OPTIONAL_FIRST 31 /* slots from here on: NULL when empty (node_id's
			   * part is HP_IDS, whose empty arrays all stay NULL) */
/* the scalars (id 0), the slots (1..), the reader's arrays, the warnings */
#define NSECT (NSLOTS + 2 + FMT_ARRAYS)
#define FMT_ID (NSLOTS + 1)
#define WARN_ID (NSLOTS + 1 + FMT_ARRAYS) /* the last */
#define TABLE_AT sizeof(struct cache_header)
#define SECTIONS_AT (TABLE_AT + NSECT * sizeof(struct store_sect))

/* Which part (HP_*) a slot of slots() belongs to; 0 for the small
 * tables, in memory whenever the heap is. */
static unsigned part_of(int slot)
{
	static const unsigned part[NSLOTS] = {
		HP_OFF, HP_CLASS, HP_SHALLOW, HP_KIND, HP_OUT_AT, HP_OUT_TO, HP_IN_AT, HP_IN_FROM, HP_WEAK, HP_WEAK,
		0, 0, 0, 0, 0, 0, HP_IDOM, HP_RETAINED, 0, 0, 0, 0, HP_WEAK, HP_WEAK, HP_WEAK,
		0, 0, 0, 0, HP_IDS, HP_IDS, HP_IDS, 0, 0, HP_WEAK, HP_WEAK,
	};
	return slot < NSLOTS ? part[slot] : 0;
}

static void get_scalars(const struct heap *h, struct scalars *s, uint64_t warn_bytes)
{
	memset(s, 0, sizeof *s);
	memcpy(s->version, h->version, sizeof s->version);
	s->timestamp_ms = h->timestamp_ms;
	s->root_id = h->root_id;
	s->truncated_at = h->truncated_at;
	s->layout = h->layout;
	s->agent = h->agent;
	s->n = h->n;
	s->nedges = h->nedges;
	s->nweak = h->nweak;
	s->nroot_rec = h->nroot_rec;
	s->nroots = h->nroots;
	s->ncls = h->ncls;
	s->nfields = h->nfields;
	s->nrefoffs = h->nrefoffs;
	s->names_len = h->names_len;
	s->nframes = h->nframes;
	s->ntraces = h->ntraces;
	s->ntrace_frames = h->ntrace_frames;
	s->nthreads = h->nthreads;
	s->nwarn_bytes = warn_bytes;
	s->nwarn = h->warn.n;
	s->suppressed = h->warn.suppressed;
	s->total_shallow = h->total_shallow;
	s->unreachable_count = h->unreachable_count;
	s->unreachable_bytes = h->unreachable_bytes;
	s->weakonly_count = h->weakonly_count;
	s->weakonly_bytes = h->weakonly_bytes;
	s->dangling_refs = h->dangling_refs;
	s->dangling_expected = h->dangling_expected;
	s->nrx = h->nrx;
	s->nown = h->nown;
	s->ntags = h->ntags;
	s->tag_labels_len = h->tag_labels_len;
	s->tag_nlabels = h->tag_nlabels;
	s->nambiguous = h->nambiguous;
	s->rules_fp = h->rules_fp;
	s->keep_unreachable = (uint64_t)h->keep_unreachable;
	s->garbage_refs = h->garbage_refs;
	s->outside_refs = h->outside_refs;
	s->ignored_refs = h->ignored_refs;
	s->id_base = h->id_base;
	s->id_nb = h->id_nb;
	s->id_shift = h->id_shift;
	s->id_bits = h->id_bits;
	if (h->fmt != NULL)
		snprintf(s->fmt, sizeof s->fmt, "%s", h->fmt->name);
	s->has_node_id = h->has_node_id;
	s->has_gen = h->node_gen != NULL;
	memcpy(s->gen_objects, h->gen_objects, sizeof s->gen_objects);
	memcpy(s->gen_bytes, h->gen_bytes, sizeof s->gen_bytes);
	s->nsnaps = h->nsnaps;
	s->snap = h->snap;
	s->dump_gc_ns = h->dump_gc_ns;
	s->dump_pause_ns = h->dump_pause_ns;
}

/* The warnings, NUL-separated. A message that starts with the dump's
 * path is kept with the byte 1 in its place, and replayed with the path
 * the dump is opened by then: a report reads the same with the cache or
 * without it, whatever the path was when the cache was made. */
static char *warn_blob(const struct heap *h, uint64_t *len)
{
	struct sbuf sb, pre;

	sbuf_init(&sb);
	sbuf_init(&pre);
	esc_append(&pre, (const uint8_t *)h->path, strlen(h->path), 0);
	sbuf_adds(&pre, ": ");
	for (size_t i = 0; i < h->warn.n; i++) {
		const char *m = h->warn.msg[i];
		if (strncmp(m, pre.buf, pre.len) == 0) {
			sbuf_addc(&sb, '\1');
			m += pre.len;
		}
		sbuf_add(&sb, m, strlen(m) + 1);
	}
	*len = sb.len;
	sbuf_free(&pre);
	return sbuf_detach(&sb);
}

/* Data, not programs: read/write bits only, and never wider access
 * than the dump's (the group too: a file the dump's group may read gets
 * the dump's group, or none of the group's bits if that cannot be set). */
static void set_access(int fd, const struct stat *ds)
{
	mode_t m = ds->st_mode & 0644; /* not writable by others: else not trusted */
	struct stat cs;

	if (fstat(fd, &cs) == 0 && cs.st_gid != ds->st_gid && fchown(fd, (uid_t)-1, ds->st_gid) < 0)
		m &= ~(mode_t)070;
	fchmod(fd, m); /* the umask may have taken bits: the dump's, exactly */
}

/* ---- the file behind a heap's big arrays ---- */

struct backing {
	struct store st;
	int fd;
	char *tmp;       /* the cache's temporary name until it is renamed; NULL */
	int from_disk;   /* a cache another run wrote: what is loaded is checked */
	unsigned stored; /* parts whose copy in the file is current */
	unsigned absent; /* parts the reader does not make (V8: no node_off) */
	/* a phase's own arrays (heap_scratch): a file of their own, made
	 * when first asked for, so that the cache holds nothing else */
	struct store scratch;
	int scratch_fd;
	/* parts whose copy is in the scratch file (slot i's section
	 * SCRATCH_PARK + i): a reader's or a phase's (cache_adopt), until
	 * cache_finish moves it into the cache; or parked once the cache is
	 * renamed into place (or read from disk), which is never written
	 * again (readonly) */
	unsigned in_scratch;
	int readonly;
	struct scalars sc; /* from_disk: the counts it was written with */
};
#define SCRATCH_PARK 2000

/* Are the part's arrays in memory: one of them made (1), or all empty
 * (an empty array may be NULL: 2)? */
static int part_in_memory(struct heap *h, unsigned part)
{
	struct scalars sc;
	struct slot sl[NSLOTS];
	int empty = 1;

	get_scalars(h, &sc, 0);
	slots(h, &sc, sl);
	for (int i = 0; i < NSLOTS; i++)
		if (part_of(i) == part) {
			if (*sl[i].ptr != NULL)
				return 1;
			empty &= sl[i].count == 0;
		}
	return empty ? 2 : 0;
}

static void backing_free(struct heap *h)
{
	struct backing *b = h->backing;

	if (b == NULL)
		return;
	store_free(&b->st);
	store_free(&b->scratch);
	if (b->scratch_fd >= 0)
		close(b->scratch_fd);
	if (b->tmp != NULL) {
		unlink(b->tmp);
		tmp_unguard(b->tmp);
		free(b->tmp);
	}
	if (b->fd >= 0)
		close(b->fd);
	free(b);
	h->backing = NULL;
}

void cache_lazy_free(struct heap *h)
{
	backing_free(h);
}

/* A scratch file, unlinked once made: in the directory of `near` (a
 * file's path), else $TMPDIR or /tmp. -1 if none can be made. */
static int scratch_file(const char *near)
{
	const char *td = getenv("TMPDIR");
	char *dirs[2] = { NULL, xstrdup(td != NULL && *td == '/' ? td : "/tmp") };
	int fd = -1;

	if (near != NULL) {
		const char *slash = strrchr(near, '/');
		dirs[0] = slash ? xstrndup(near, (size_t)(slash - near) + (slash == near)) : xstrdup(".");
	}
	for (int i = 0; i < 2 && fd < 0; i++) {
		if (dirs[i] == NULL)
			continue;
#ifdef O_TMPFILE
		fd = open(dirs[i], O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
		if (fd < 0) {
			char *t = xasprintf("%s/heapwalk-scratch-XXXXXX", dirs[i]);
			fd = mkstemp(t);
			if (fd >= 0)
				unlink(t);
			free(t);
		}
	}
	free(dirs[0]);
	free(dirs[1]);
	return fd;
}

int cache_begin(struct heap *h)
{
	struct backing *b = xcalloc(1, sizeof *b);

	if (h->backing != NULL) /* what the reader does not make, it still does not */
		b->absent = ((struct backing *)h->backing)->absent;
	backing_free(h); /* a cached open's: the caller loaded what it keeps */
	b->fd = b->scratch_fd = -1;
	if (h->cache_file != NULL) {
		char *pre = xasprintf("%s.tmp.", h->cache_file);
		tmp_remove_stale(pre);
		free(pre);
		char *tmp = xasprintf("%s.tmp.%ld", h->cache_file, (long)getpid());
		if (tmp_guard(tmp) < 0) {
			warn_add(&h->notes, "%s: cannot write the index cache: path too long", tmp);
			free(tmp);
		} else {
			/* O_EXCL: a symlink or anything else planted at the name fails */
			b->fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
			if (b->fd < 0) {
				tmp_unguard(tmp);
				warn_add(&h->notes, "%s: cannot write the index cache: %s", tmp, strerror(errno));
				free(tmp);
			} else {
				b->tmp = tmp;
			}
		}
	}
	if (b->fd < 0)
		b->fd = scratch_file(h->cache_file != NULL ? h->cache_file : h->path);
	if (b->fd < 0) {
		free(b);
		return -1;
	}
	store_init(&b->st, b->fd, SECTIONS_AT);
	h->backing = b;
	return 0;
}

void cache_spill_note(struct heap *h)
{
	struct backing *b = h->backing;
	int e = 0;

	if (b == NULL)
		return;
	if (b->scratch.err != 0) /* its file may be closed since */
		e = b->scratch.err;
	else if (h->cache_file == NULL && b->st.err != 0) /* no cache: the file is the scratch file */
		e = b->st.err;
	if (e != 0)
		warn_add(&h->notes, "%s: the scratch file could not be written (%s): what was to wait there is kept "
			 "in memory, more than the memory counted on (HEAPWALK_MEMORY_MB, see MEMORY)", h->path,
			 e > 1 ? strerror(e) : "a write failed");
}

struct store *heap_scratch(struct heap *h)
{
	struct backing *b = h->backing;

	if (b == NULL)
		return NULL;
	if (b->scratch_fd < 0) {
		b->scratch_fd = scratch_file(h->cache_file != NULL ? h->cache_file : h->path);
		if (b->scratch_fd < 0)
			return NULL;
		store_init(&b->scratch, b->scratch_fd, 0);
		b->scratch.scratch = 1;
	}
	return store_ok(&b->scratch) ? &b->scratch : NULL;
}

/* The slot of a part of one array. */
static int slot_of(unsigned part)
{
	for (int i = 0; i < NSLOTS; i++)
		if (part_of(i) == part)
			return i;
	return -1;
}

struct store *heap_scratch_kept(struct heap *h)
{
	struct backing *b = h->backing;

	return b != NULL && b->scratch_fd >= 0 ? &b->scratch : NULL;
}

void heap_scratch_done(struct heap *h)
{
	struct backing *b = h->backing;

	/* (heap_scratch makes one anew when asked again) */
	if (b != NULL && b->scratch_fd >= 0 && b->in_scratch == 0 && b->scratch.nsect == 0) {
		store_free(&b->scratch);
		close(b->scratch_fd);
		b->scratch_fd = -1;
	}
}

uint32_t cache_scratch_id(unsigned part)
{
	return SCRATCH_PARK + 100 + (uint32_t)slot_of(part); /* a writer's, renamed when adopted */
}

void cache_changed(struct heap *h, unsigned parts)
{
	struct backing *b = h->backing;

	if (b == NULL)
		return;
	b->stored &= ~parts;
	for (int i = 0; i < NSLOTS; i++)
		if ((parts & part_of(i)) && (b->in_scratch & part_of(i)))
			store_drop(&b->scratch, SCRATCH_PARK + (uint32_t)i);
	b->in_scratch &= ~parts;
}

void cache_adopt(struct heap *h, unsigned part, uint32_t id)
{
	struct backing *b = h->backing;

	cache_changed(h, part);
	store_rename(&b->scratch, id, SCRATCH_PARK + (uint32_t)slot_of(part));
	b->stored |= part;
	b->in_scratch |= part;
}

/* Where the copy of slot i (of part) is: its store, its id there. */
static const struct store *copy_of(const struct backing *b, int i, unsigned part, uint32_t *id)
{
	if (b->in_scratch & part) {
		*id = SCRATCH_PARK + (uint32_t)i;
		return &b->scratch;
	}
	*id = (uint32_t)i + 1;
	return &b->st;
}

/* Write the part's arrays (in memory) as their sections: 0, or -1. */
static int put_part(struct heap *h, struct backing *b, unsigned part)
{
	struct scalars sc;
	struct slot sl[NSLOTS];
	/* into the cache while it is being written; else the scratch file */
	struct store *st = b->readonly ? heap_scratch(h) : &b->st;

	if (st == NULL || !store_ok(st))
		return -1;
	get_scalars(h, &sc, 0);
	slots(h, &sc, sl);
	for (int i = 0; i < NSLOTS; i++)
		if (part_of(i) == part &&
		    store_put(st, b->readonly ? SCRATCH_PARK + (uint32_t)i : (uint32_t)i + 1, *sl[i].ptr,
			      (uint32_t)sl[i].elem, sl[i].count) < 0)
			return -1;
	b->stored |= part;
	if (b->readonly)
		b->in_scratch |= part;
	return 0;
}

static void free_part(struct heap *h, unsigned part)
{
	struct scalars sc;
	struct slot sl[NSLOTS];

	get_scalars(h, &sc, 0);
	slots(h, &sc, sl);
	for (int i = 0; i < NSLOTS; i++)
		if (part_of(i) == part) {
			heap_recycle(h, *sl[i].ptr); /* read back soon, while the engine works */
			*sl[i].ptr = NULL;
		}
}

int heap_store(struct heap *h, unsigned parts)
{
	struct backing *b = h->backing;

	if (b == NULL)
		return -1;
	for (unsigned part = 1; part <= HP_ALL; part <<= 1)
		if ((parts & part) && !(b->stored & part) &&
		    (part_in_memory(h, part) != 1 || !store_ok(&b->st) || put_part(h, b, part) < 0))
			return -1;
	return 0;
}

const struct store *heap_section(struct heap *h, unsigned part, uint32_t *id)
{
	struct backing *b = h->backing;

	if (b == NULL || !(b->stored & part))
		return NULL;
	for (int i = 0; i < NSLOTS; i++)
		if (part_of(i) == part)
			return copy_of(b, i, part, id);
	return NULL;
}

void cache_built(struct heap *h)
{
	struct backing *b = h->backing;

	if (b == NULL)
		return;
	for (unsigned part = 1; part <= HP_ALL; part <<= 1)
		if (!(b->stored & part) && !part_in_memory(h, part))
			b->absent |= part;
}

/* The parts still in the scratch file moved into the file proper (their
 * compressed bytes copied), and the scratch file let go once nothing is
 * left there. */
static void adopt_all(struct backing *b)
{
	unsigned failed = 0;

	for (int i = 0; i < NSLOTS; i++) {
		unsigned part = part_of(i);
		if (part == 0 || !(b->in_scratch & part))
			continue;
		if (!store_ok(&b->st) || store_copy(&b->st, (uint32_t)i + 1, &b->scratch, SCRATCH_PARK + (uint32_t)i) < 0) {
			failed |= part; /* it stays where it is, readable */
			if (b->st.err == 0)
				b->st.err = EIO;
		}
	}
	for (int i = 0; i < NSLOTS; i++)
		if ((b->in_scratch & part_of(i)) && !(failed & part_of(i)))
			store_drop(&b->scratch, SCRATCH_PARK + (uint32_t)i);
	b->in_scratch &= failed;
	/* (not while a section is left there: a reader's parked arrays,
	 * format_ops' data_parked, copied into the cache after this) */
	if (b->in_scratch == 0 && b->scratch_fd >= 0 && b->scratch.nsect == 0) {
		store_free(&b->scratch);
		close(b->scratch_fd);
		b->scratch_fd = -1;
	}
}

void heap_recycle(const struct heap *h, void *p)
{
	if (h->busy > 0)
		hw_recycle(p);
	else
		free(p);
}

void heap_unwound(struct heap *h)
{
	struct backing *b = h->backing;

	h->busy = 0;
	hw_recycle_flush();
	if (b != NULL) { /* the writers' sections were never in the tables */
		b->st.writing = 0;
		b->scratch.writing = 0;
	}
}

void heap_park(struct heap *h, unsigned parts)
{
	struct backing *b = h->backing;

	if (b == NULL)
		return;
	for (unsigned part = 1; part <= HP_ALL; part <<= 1) {
		/* nothing made (or all empty and NULL): nothing to write; it may
		 * be made later, and written then */
		if (!(parts & part) || part_in_memory(h, part) != 1)
			continue;
		if (!(b->stored & part) && (!store_ok(&b->st) || put_part(h, b, part) < 0))
			continue; /* no room on disk: it stays in memory */
		free_part(h, part);
	}
}

/* The reader's own arrays (format_ops' data_arrays) as sections
 * FMT_ID..., their sizes in the scalars; the sections it has none for
 * empty. */
static void put_reader(struct heap *h, struct backing *b, struct scalars *sc)
{
	struct fmt_array a[FMT_ARRAYS];
	int n = h->fmt != NULL && h->fmt->data_arrays != NULL ? h->fmt->data_arrays(h, a) : 0;
	struct store *scratch;
	uint32_t id;

	sc->fmt_n = (uint64_t)n;
	for (int i = 0; i < FMT_ARRAYS && store_ok(&b->st); i++) {
		const void *p = i >= n ? NULL : a[i].ptr != NULL ? *a[i].ptr : a[i].at;
		sc->fmt_elem[i] = i < n ? a[i].elem : 1;
		if (i < n && h->fmt->data_parked != NULL && h->fmt->data_parked(h, i, &id)) {
			/* parked: its bytes as they are (a write to the scratch
			 * file that failed since leaves them readable) */
			sc->fmt_count[i] = a[i].count;
			if (((scratch = heap_scratch_kept(h)) == NULL ||
			     store_copy(&b->st, FMT_ID + (uint32_t)i, scratch, id) < 0) && b->st.err == 0)
				b->st.err = EIO;
			continue;
		}
		sc->fmt_count[i] = i >= n || p == NULL ? 0 : a[i].ptr != NULL ? a[i].count : 1;
		if (i < n && a[i].ptr == NULL) /* in place: its bytes */
			store_put(&b->st, FMT_ID + (uint32_t)i, p, 1, a[i].elem);
		else
			store_put(&b->st, FMT_ID + (uint32_t)i, p, (uint32_t)sc->fmt_elem[i], sc->fmt_count[i]);
	}
}

int cache_finish(struct heap *h)
{
	struct backing *b = h->backing;
	struct cache_header hd = { .format = CACHE_FORMAT, .endian = 0x01020304, .node_size = sizeof(node_t),
				   .edge_size = sizeof(edge_t), .nsect = NSECT };
	struct store_sect tab[NSECT];
	struct scalars sc;
	struct slot sl[NSLOTS];
	struct stat ds;
	uint64_t wlen;
	int ok = 0;

	if (b == NULL)
		return -1;
	if (b->readonly) /* a cache renamed into place already */
		return 0;
	adopt_all(b);
	if (b->tmp == NULL) { /* a scratch file: nothing more to finish */
		b->readonly = b->in_scratch != 0; /* then writing there again would mix the two */
		return 0;
	}
	char *wb = warn_blob(h, &wlen);
	get_scalars(h, &sc, wlen);
	sc.absent = b->absent;
	slots(h, &sc, sl);
	for (int i = 0; i < NSLOTS && store_ok(&b->st); i++) {
		unsigned part = part_of(i);
		if (part != 0 && (b->stored & part))
			continue;
		if (b->absent & part) { /* the reader makes none: an empty section */
			store_put(&b->st, (uint32_t)i + 1, NULL, (uint32_t)sl[i].elem, 0);
			continue;
		}
		if (*sl[i].ptr == NULL && sl[i].count > 0) { /* neither here nor there: cannot be */
			b->st.err = EINVAL;
			break;
		}
		store_put(&b->st, (uint32_t)i + 1, *sl[i].ptr, (uint32_t)sl[i].elem, sl[i].count);
	}
	for (unsigned part = 1; part <= HP_ALL && store_ok(&b->st); part <<= 1)
		b->stored |= part;
	put_reader(h, b, &sc);
	store_put(&b->st, 0, &sc, 1, sizeof sc);
	store_put(&b->st, WARN_ID, wb, 1, wlen);
	free(wb);
	memcpy(hd.magic, MAGIC, 8);
	if (store_ok(&b->st) && (dump_ident(h, &hd.id) < 0 || fstat(h->fd, &ds) < 0))
		b->st.err = errno ? errno : EIO;
	if (store_ok(&b->st)) {
		hd.content = content_hash(h); /* for --verify-cache */
		for (uint32_t i = 0; i < NSECT && store_ok(&b->st); i++) {
			const struct store_sect *t = store_find(&b->st, i);
			if (t == NULL)
				b->st.err = EIO;
			else
				tab[i] = *t;
		}
		hd.table_check = hash64(tab, sizeof tab, 0);
		hd.check = hash64(&hd, offsetof(struct cache_header, check), 0);
		if ((b->st.err = pwrite_full(b->fd, &hd, sizeof hd, 0)) == 0)
			b->st.err = pwrite_full(b->fd, tab, sizeof tab, TABLE_AT);
	}
	if (store_ok(&b->st)) {
		set_access(b->fd, &ds);
		/* a heapshot named that is the one an open naming none reads:
		 * its cache is the file's own (one cache, whichever asks first),
		 * where it can go */
		char *own = h->want_snap != 0 && h->snap != 0 && h->snap == h->snap_default
				    ? cache_choose_snap(h->path, 0, NULL)
				    : NULL;
		if (fsync(b->fd) < 0) {
			b->st.err = errno;
		} else if (own != NULL && rename(b->tmp, own) == 0) {
			/* the heapshot's cache of its own, if one was read (its
			 * part found corrupt: a rebuild): gone, it holds the same */
			if (strcmp(h->cache_file, own) != 0)
				unlink(h->cache_file);
			free(h->cache_file);
			h->cache_file = own;
			own = NULL;
			ok = 1;
		} else if (rename(b->tmp, h->cache_file) < 0) {
			b->st.err = errno;
		} else {
			ok = 1;
		}
		free(own);
	}
	if (!ok) {
		warn_add(&h->notes, "%s: cannot write the index cache: %s", h->cache_file, strerror(b->st.err));
		unlink(b->tmp); /* the heap still reads what it parked from the open file */
	}
	tmp_unguard(b->tmp);
	free(b->tmp);
	b->tmp = NULL;
	/* it is the cache now (or a failed one): what is parked later goes
	 * to the scratch file, never into it */
	b->readonly = 1;
	return ok ? 0 : -1;
}

int cache_save(struct heap *h)
{
	if (h->cache_file == NULL) /* no place that can be trusted */
		return -1;
	if (cache_begin(h) < 0)
		return -1;
	return cache_finish(h);
}

/* ---- loading ---- */

/* Every value that indexes something must be in range: each big part
 * when it is loaded, the small tables at once. */
static const char *validate_part(const struct heap *h, const struct scalars *s, unsigned part)
{
	const edge_t *start = part & HP_OUT ? h->out_start : h->in_start;
	const node_t *e = part & HP_OUT ? h->out : h->in;
	uint64_t ne = part & HP_OUT ? s->nedges : s->nedges + s->nroots;

	switch (part) {
	case HP_OFF:
		/* the records themselves are the reader's to check (heap_need) */
		for (uint64_t v = 1; v < s->n; v++)
			if (h->node_off[v] == 0 || h->node_off[v] + 1 + h->layout.idsize > h->size)
				return "bad node";
		return NULL;
	case HP_CLASS:
		for (uint64_t v = 1; v < s->n; v++)
			if (h->node_class[v] >= s->ncls)
				return "bad node";
		return NULL;
	case HP_KIND:
		for (uint64_t v = 1; v < s->n; v++)
			if (h->node_kind[v] > NK_CLASS)
				return "bad node";
		return NULL;
	case HP_OUT_AT:
	case HP_IN_AT:
		for (uint64_t v = 0; v < s->n; v++)
			if (start[v] > start[v + 1])
				return "bad reference index";
		if (start[0] != 0 || start[s->n] != ne)
			return "bad reference count";
		/* node 0, the virtual root, refers through h->roots only */
		if (part == HP_OUT_AT && s->n > 0 && start[1] != 0)
			return "bad reference count";
		return NULL;
	case HP_OUT_TO:
	case HP_IN_FROM: /* nothing refers to node 0 (in[]: it refers to the roots) */
		for (uint64_t j = 0; j < ne; j++)
			if (e[j] >= s->n || (part == HP_OUT_TO && e[j] == 0))
				return "bad reference";
		return NULL;
	case HP_WEAK: /* between objects: node 0 is none, and has no class */
		for (uint64_t i = 0; i < s->nweak; i++)
			if (h->weak_src[i] == 0 || h->weak_src[i] >= s->n || h->weak_dst[i] == 0 ||
			    h->weak_dst[i] >= s->n)
				return "bad weak reference";
		for (uint64_t i = 0; i < s->nrx; i++)
			if (h->rx_src[i] >= s->n || h->rx_dst[i] >= s->n)
				return "bad incidental reference";
		for (uint64_t i = 0; i < s->nown; i++) /* ascending: they are searched */
			if (h->own_node[i] == 0 || h->own_node[i] >= s->n || (i > 0 && h->own_node[i] <= h->own_node[i - 1]))
				return "bad owned object";
		return NULL;
	case HP_IDOM: /* a tree: the climbs up it end */
		return domtree_is_tree(h->idom, (node_t)s->n, 0) ? NULL : "bad dominator";
	case HP_IDS:
		if (s->has_node_id) { /* ascending: they are searched */
			if (h->node_id[0] != 0)
				return "bad ids";
			for (uint64_t v = 2; v < s->n; v++)
				if (h->node_id[v] <= h->node_id[v - 1])
					return "bad ids";
		}
		if (s->id_nb == 0)
			return NULL;
		if (h->id_start[0] < 1 || h->id_start[s->id_nb] != s->n)
			return "bad id map";
		for (uint64_t b = 0; b < s->id_nb; b++)
			if (h->id_start[b] > h->id_start[b + 1])
				return "bad id map";
		return NULL;
	default: /* HP_SHALLOW, HP_RETAINED: any value will do */
		return NULL;
	}
}

/* What the dump's header says, and sane figures for the rest: an
 * alignment of 0 would divide by zero, a wrong id size misread every
 * record. */
static const char *validate_layout(const struct heap *h, const struct scalars *s)
{
	const struct jvm_layout *L = &s->layout;
	const struct agent_info *a = &s->agent;

	if (L->idsize != h->layout.idsize || (L->ref_size != 4 && L->ref_size != 8) ||
	    L->header > 64 || L->array_header > 64 || L->align < 8 || L->align > 256 ||
	    (L->align & (L->align - 1)) != 0)
		return "bad layout";
	if (a->sizes_off > h->size || a->sizes_len > h->size - a->sizes_off ||
	    a->times_off > h->size || a->times_len > h->size - a->times_off)
		return "bad agent record";
	return NULL;
}

/* A record's kind is the table's, and its native one the reader's of
 * that kind (a pseudo kind has none). */
static int root_kind_ok(const struct heap *h, const struct root *r)
{
	if (r->kind >= RK_WEAK_ONLY)
		return r->kind < RK_NKINDS && r->native == 0;
	return h->fmt != NULL && r->native < h->fmt->nroot_natives && h->fmt->root_natives[r->native].kind == r->kind;
}

static const char *validate_small(const struct heap *h, const struct scalars *s)
{
	if (s->n == 0 || s->n > UINT32_MAX || s->names_len == 0 || h->names[s->names_len - 1] != '\0' ||
	    s->id_shift > 63 || s->id_bits > 16 || s->id_nb > s->n + 65536 ||
	    s->garbage_refs > s->nweak || s->outside_refs > s->nweak - s->garbage_refs ||
	    s->ignored_refs > s->nweak - s->garbage_refs - s->outside_refs ||
	    s->keep_unreachable > 1)
		return "bad counts";
	for (uint64_t i = 0; i < s->nroots; i++)
		if (h->roots[i] >= s->n)
			return "bad root";
	for (uint64_t i = 0; i < s->nroot_rec; i++)
		if (h->root_rec[i].node >= s->n || !root_kind_ok(h, &h->root_rec[i]))
			return "bad root";
	for (uint64_t c = 0; c < s->ncls; c++) {
		const struct hclass *k = &h->cls[c];
		if (k->name >= s->names_len || k->qual > s->names_len || k->key > s->names_len ||
		    (k->super != HW_NONE && k->super >= s->ncls) || (k->node != HW_NONE && k->node >= s->n) ||
		    (uint64_t)k->field_first + k->nfields + k->nstatics > s->nfields ||
		    (uint64_t)k->ref_first + k->nrefs > s->nrefoffs)
			return "bad class";
	}
	for (uint64_t f = 0; f < s->nfields; f++)
		if (h->fields[f].name >= s->names_len)
			return "bad field";
	for (uint64_t f = 0; f < s->nframes; f++) {
		const struct hframe *fr = &h->frames[f];
		if (fr->method >= s->names_len || fr->signature >= s->names_len ||
		    fr->source >= s->names_len || fr->class_name >= s->names_len)
			return "bad frame";
	}
	for (uint64_t t = 0; t < s->ntraces; t++)
		if ((uint64_t)h->traces[t].frame_first + h->traces[t].nframes > s->ntrace_frames)
			return "bad trace";
	for (uint64_t t = 0; t < s->ntrace_frames; t++)
		if (h->trace_frames[t] >= s->nframes)
			return "bad trace";
	for (uint64_t t = 0; t < s->nthreads; t++)
		if (h->threads[t].obj != HW_NONE && h->threads[t].obj >= s->n)
			return "bad thread";
	for (uint64_t t = 0; t < s->ntags; t++)
		if (h->tag_node[t] >= s->n || h->tag_label[t] >= s->tag_nlabels)
			return "bad tag";
	if (s->tag_labels_len > 0 && h->tag_labels[s->tag_labels_len - 1] != '\0')
		return "bad tag";
	for (uint64_t t = 0; t < s->nambiguous; t++)
		if (h->ambiguous[t] >= s->n)
			return "bad owner";
	return NULL;
}

/* What only some formats keep: generations the format can name, the
 * heapshot this is. */
static const char *validate_kept(const struct heap *h, const struct scalars *s)
{
	if (s->has_gen)
		for (uint64_t v = 0; v < s->n; v++)
			if (h->node_gen[v] >= HW_MAX_GENS)
				return "bad generation";
	if (s->nsnaps > UINT32_MAX || (s->nsnaps > 0) != (s->snap > 0) || s->snap > s->nsnaps ||
	    (s->nsnaps > 0 && !h->fmt->snapshots))
		return "bad heapshot";
	return NULL;
}

/* The reader's own arrays, each as data_arrays lists it (what the cache
 * says of them must be what the reader makes), then checked by the
 * reader. NULL, or why not. */
static const char *load_reader(struct heap *h, const struct store *st, const struct scalars *s)
{
	struct fmt_array a[FMT_ARRAYS];
	int n = 0;

	if (s->fmt_n > FMT_ARRAYS || (s->fmt_n > 0 && h->fmt->data_arrays == NULL))
		return "bad reader data";
	if (h->fmt->data_arrays == NULL) { /* the sections all empty */
		for (uint32_t i = 0; i < FMT_ARRAYS; i++)
			if (s->fmt_count[i] != 0 || store_load(st, FMT_ID + i, 1, 0, NULL) < 0)
				return "bad reader data";
		return NULL;
	}
	if ((n = h->fmt->data_arrays(h, a)) != (int)s->fmt_n)
		return "bad reader data";
	for (int i = 0; i < n; i++) {
		if (a[i].ptr != NULL)
			*a[i].ptr = NULL;
		a[i].count = s->fmt_count[i];
		if (s->fmt_elem[i] != a[i].elem || (a[i].ptr == NULL && a[i].count != 1))
			return "bad reader data";
	}
	for (int i = 0; i < FMT_ARRAYS; i++) {
		uint32_t id = FMT_ID + (uint32_t)i;
		const struct store_sect *sc = store_find(st, id);
		if (i < n && (h->fmt->data_lazy & 1u << i) && a[i].ptr != NULL && a[i].count > 0) {
			/* waits here until the reader asks (cache_reader_get) */
			if (sc == NULL || sc->elem != a[i].elem || sc->raw / a[i].elem != a[i].count ||
			    sc->raw % a[i].elem != 0)
				return "truncated or corrupt";
			continue;
		}
		if (i >= n ? s->fmt_count[i] != 0 || store_load(st, id, 1, 0, NULL) < 0 /* empty */
		    : a[i].ptr == NULL ? store_load(st, id, 1, a[i].elem, a[i].at) < 0
		    : a[i].count > 0 ? (*a[i].ptr = store_get(st, id, (uint32_t)a[i].elem, a[i].count)) == NULL
				     : store_load(st, id, (uint32_t)a[i].elem, 0, NULL) < 0)
			return "truncated or corrupt";
	}
	return h->fmt->data_loaded(h, a, n);
}

void *cache_reader_get(struct heap *h, int i, uint32_t elem, uint64_t count)
{
	struct backing *b = h->backing;

	if (b == NULL || i < 0 || i >= FMT_ARRAYS)
		return NULL;
	return store_get(&b->st, FMT_ID + (uint32_t)i, elem, count);
}

int cache_holds_reader(const struct heap *h)
{
	const struct backing *b = h->backing;

	return b != NULL && b->readonly && b->tmp == NULL && store_ok(&b->st) && store_find(&b->st, FMT_ID) != NULL;
}

uint32_t cache_reader_section(int i)
{
	return FMT_ID + (uint32_t)i;
}

static void set_scalars(struct heap *h, const struct scalars *s)
{
	memcpy(h->version, s->version, sizeof h->version);
	h->version[sizeof h->version - 1] = '\0';
	h->timestamp_ms = s->timestamp_ms;
	h->root_id = s->root_id;
	h->truncated_at = s->truncated_at;
	h->layout = s->layout;
	h->agent = s->agent;
	h->n = (node_t)s->n;
	h->nedges = s->nedges;
	h->nweak = s->nweak;
	h->nroot_rec = s->nroot_rec;
	h->nroots = s->nroots;
	h->ncls = (uint32_t)s->ncls;
	h->nfields = (uint32_t)s->nfields;
	h->nrefoffs = (uint32_t)s->nrefoffs;
	h->names_len = (uint32_t)s->names_len;
	h->nframes = (uint32_t)s->nframes;
	h->ntraces = (uint32_t)s->ntraces;
	h->ntrace_frames = (uint32_t)s->ntrace_frames;
	h->nthreads = (uint32_t)s->nthreads;
	h->total_shallow = s->total_shallow;
	h->unreachable_count = s->unreachable_count;
	h->unreachable_bytes = s->unreachable_bytes;
	h->weakonly_count = s->weakonly_count;
	h->weakonly_bytes = s->weakonly_bytes;
	h->dangling_refs = s->dangling_refs;
	h->dangling_expected = s->dangling_expected;
	h->nrx = s->nrx;
	h->nown = s->nown;
	h->ntags = s->ntags;
	h->tag_labels_len = (uint32_t)s->tag_labels_len;
	h->tag_nlabels = (uint32_t)s->tag_nlabels;
	h->nambiguous = s->nambiguous;
	h->rules_fp = s->rules_fp;
	h->keep_unreachable = s->keep_unreachable != 0;
	h->garbage_refs = s->garbage_refs;
	h->outside_refs = s->outside_refs;
	h->ignored_refs = s->ignored_refs;
	h->id_base = s->id_base;
	h->id_nb = s->id_nb;
	h->id_shift = (uint32_t)s->id_shift;
	h->id_bits = (uint32_t)s->id_bits;
	h->has_node_id = s->has_node_id != 0;
	memcpy(h->gen_objects, s->gen_objects, sizeof h->gen_objects);
	memcpy(h->gen_bytes, s->gen_bytes, sizeof h->gen_bytes);
	h->nsnaps = (uint32_t)s->nsnaps;
	h->snap = (uint32_t)s->snap;
	h->dump_gc_ns = s->dump_gc_ns;
	h->dump_pause_ns = s->dump_pause_ns;
}

static void replay_warnings(struct heap *h, const char *blob, uint64_t len, uint64_t suppressed)
{
	for (uint64_t at = 0; at < len;) {
		const char *m = blob + at;
		size_t l = strnlen(m, len - at);
		struct sbuf one;
		sbuf_init(&one);
		/* stored escaped; escaped again where a forged cache put what
		 * must not reach a terminal (text escaped once passes as it is) */
		if (l > 0 && m[0] == '\1') { /* the dump's path, as it is opened now */
			esc_append(&one, (const uint8_t *)h->path, strlen(h->path), 0);
			sbuf_adds(&one, ": ");
			esc_append_again(&one, (const uint8_t *)m + 1, l - 1);
		} else {
			esc_append_again(&one, (const uint8_t *)m, l);
		}
		warn_add_escaped(&h->warn, one.buf);
		sbuf_free(&one);
		at += l + 1;
	}
	h->warn.suppressed += suppressed;
}

uint64_t cache_part_bytes(struct heap *h, unsigned parts)
{
	const struct backing *b = h->backing;
	struct scalars sc;
	struct slot sl[NSLOTS];
	uint64_t bytes = 0;

	if (b != NULL)
		parts &= ~b->absent;
	get_scalars(h, &sc, 0);
	slots(h, &sc, sl);
	for (int i = 0; i < NSLOTS; i++)
		if ((parts & part_of(i)) && *sl[i].ptr == NULL)
			bytes += sl[i].count * sl[i].elem;
	return bytes;
}

int cache_has(const struct heap *h, unsigned part)
{
	const struct backing *b = h->backing;

	for (unsigned p = 1; p <= HP_ALL; p <<= 1)
		if ((part & p) && !(b != NULL && (b->absent & p)) && !part_in_memory((struct heap *)h, p))
			return 0;
	return 1;
}

void cache_fill_empty(struct heap *h, unsigned parts)
{
	struct scalars sc;
	struct slot sl[NSLOTS];

	get_scalars(h, &sc, 0);
	slots(h, &sc, sl);
	for (unsigned part = 1; part <= HP_ALL; part <<= 1) {
		/* a part wholly empty only: one with arrays that are not is
		 * loaded whole (its empty ones too), and a NULL among them
		 * says it is not in memory; the compact id map's NULL says
		 * there is none (ids in node_id[]) */
		if (!(parts & part) || part == HP_IDS || part_in_memory(h, part) != 2)
			continue;
		for (int i = 0; i < NSLOTS; i++)
			if (part_of(i) == part)
				*sl[i].ptr = xcalloc(1, sl[i].elem);
	}
}

int cache_from_disk(const struct heap *h)
{
	const struct backing *b = h->backing;

	return b != NULL && b->from_disk;
}

int cache_load_rest(struct heap *h, unsigned parts, struct progress *p, int may_cancel, const char **why)
{
	struct backing *b = h->backing;
	struct scalars sc;
	struct slot sl[NSLOTS];
	uint64_t done = 0;

	if (b == NULL)
		return 0;
	get_scalars(h, &sc, 0);
	slots(h, &sc, sl);
	for (unsigned part = 1; part <= HP_ALL; part <<= 1) {
		if (!(parts & part) || (b->absent & part) || part_in_memory(h, part))
			continue;
		if (may_cancel && progress_cancelled(p))
			return 1;
		*why = "corrupt";
		if (!(b->stored & part)) /* neither here nor there: not made yet */
			goto fail;
		for (int i = 0; i < NSLOTS; i++) {
			uint32_t id;
			const struct store *st = copy_of(b, i, part, &id);
			if (part_of(i) != part)
				continue;
			/* the ids' arrays a heap has not: NULL says how it keeps them */
			if (part == HP_IDS && sl[i].count == 0) {
				if (store_load(st, id, (uint32_t)sl[i].elem, 0, NULL) < 0)
					goto fail;
			} else if ((*sl[i].ptr = store_get(st, id, (uint32_t)sl[i].elem, sl[i].count)) == NULL) {
				goto fail;
			}
			done += sl[i].count * sl[i].elem;
			progress_update(p, done);
		}
		/* what another run wrote is checked; what this one parked since
		 * (the scratch file) has counts of its own */
		if (b->from_disk && !(b->in_scratch & part) && (*why = validate_part(h, &b->sc, part)) != NULL)
			goto fail;
	}
	return 0;
fail:
	/* its own file let it down, or the heap was analysed again since it
	 * was read (its state is not the dump's): nothing to fall back on */
	if (!b->from_disk || b->in_scratch != 0)
		hw_fatal("%s: cannot read back what the engine parked on disk (%s)", esc_str(h->path), *why);
	for (int i = 0; i < NSLOTS; i++)
		if (part_of(i) != 0) {
			free(*sl[i].ptr);
			*sl[i].ptr = NULL;
		}
	backing_free(h);
	return -1;
}

/* The header and the table of the file at fd, checked against the dump
 * (h) and the file's size: 0, or -1 with why. */
static int read_head(const struct heap *h, int fd, uint64_t size, int verify, struct cache_header *hd,
		     struct store_sect *tab, const char **why)
{
	struct cache_ident id;

	*why = "no cache";
	if (size < sizeof *hd || pread(fd, hd, sizeof *hd, 0) != (ssize_t)sizeof *hd)
		return -1;
	*why = "not a heapwalk cache of this version";
	if (memcmp(hd->magic, MAGIC, 8) != 0 || hd->format != CACHE_FORMAT || hd->endian != 0x01020304 ||
	    hd->node_size != sizeof(node_t) || hd->edge_size != sizeof(edge_t) ||
	    hd->check != hash64(hd, offsetof(struct cache_header, check), 0) || hd->nsect != NSECT)
		return -1;
	*why = "stale: the dump changed";
	if (dump_ident(h, &id) < 0 || memcmp(&id, &hd->id, sizeof id) != 0)
		return -1;
	*why = "stale: the dump's content changed (--verify-cache)";
	if (verify && content_hash(h) != hd->content)
		return -1;
	*why = "truncated or corrupt";
	if (size < SECTIONS_AT || pread(fd, tab, NSECT * sizeof *tab, TABLE_AT) != (ssize_t)(NSECT * sizeof *tab) ||
	    hash64(tab, NSECT * sizeof *tab, 0) != hd->table_check)
		return -1;
	for (uint32_t i = 0; i < NSECT; i++)
		if (tab[i].id != i)
			return -1;
	return 0;
}

int cache_current(const struct heap *h, const char *cache_file)
{
	int fd = open(cache_file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct cache_header hd;
	struct store_sect tab[NSECT];
	struct stat st;
	const char *why;
	int ok = fd >= 0 && fstat(fd, &st) == 0 && untrusted(&st) == NULL &&
		 read_head(h, fd, (uint64_t)st.st_size, 0, &hd, tab, &why) == 0;

	if (fd >= 0)
		close(fd);
	return ok;
}

int cache_load(struct heap *h, int verify, const char **why)
{
	const char *path = h->cache_file;
	/* no symlink, no FIFO to wait on; then ours and closed to others */
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK) : -1;
	struct stat st;
	struct cache_header hd;
	struct store_sect tab[NSECT];
	struct backing *b = xcalloc(1, sizeof *b);
	struct slot sl[NSLOTS];
	int ns = 0;
	char *wb = NULL;

	b->fd = -1;
	*why = "no cache";
	if (fd < 0 || fstat(fd, &st) < 0)
		goto fail;
	*why = "not trusted";
	if (untrusted(&st) != NULL)
		goto fail;
	if (read_head(h, fd, (uint64_t)st.st_size, verify, &hd, tab, why) < 0)
		goto fail;
	*why = "truncated or corrupt";
	if (store_init_read(&b->st, fd, SECTIONS_AT, (uint64_t)st.st_size, tab, NSECT) < 0 ||
	    store_load(&b->st, 0, 1, sizeof b->sc, &b->sc) < 0)
		goto fail;
	*why = "another heapshot"; /* the file's own cache (FILE.hwi), of its default: before reading more */
	if (h->want_snap != 0 && b->sc.snap != h->want_snap)
		goto fail;
	*why = "truncated or corrupt";
	/* the small tables now, the big arrays when someone needs them */
	ns = slots(h, &b->sc, sl);
	for (int i = 0; i < ns; i++)
		*sl[i].ptr = NULL;
	/* the big arrays' counts are their sections' sizes, before anything
	 * reckons with them (heap_need's room to load): a forged count is
	 * the file's damage, for which the cache is made again, not a heap
	 * too big to load (32 TB, the cache fuzzer found) */
	for (int i = 0; i < ns; i++) {
		const struct store_sect *t = store_find(&b->st, (uint32_t)i + 1);
		if (part_of(i) == 0 || (b->sc.absent & part_of(i)))
			continue;
		if (t == NULL || t->elem != sl[i].elem || sl[i].count > (UINT64_MAX >> 2) / sl[i].elem ||
		    t->raw != sl[i].count * sl[i].elem)
			goto fail;
	}
	for (int i = 0; i < ns; i++) {
		uint32_t id = (uint32_t)i + 1;
		if (part_of(i) != 0)
			continue;
		if (i >= OPTIONAL_FIRST && sl[i].count == 0) { /* NULL: none; its section read, checked */
			if (store_load(&b->st, id, (uint32_t)sl[i].elem, 0, NULL) < 0)
				goto fail;
		} else if ((*sl[i].ptr = store_get(&b->st, id, (uint32_t)sl[i].elem, sl[i].count)) == NULL) {
			goto fail;
		}
	}
	if ((wb = store_get(&b->st, WARN_ID, 1, b->sc.nwarn_bytes)) == NULL)
		goto fail;
	*why = "not a cache of this format";
	if (memchr(b->sc.fmt, '\0', sizeof b->sc.fmt) == NULL || strcmp(b->sc.fmt, h->fmt->name) != 0)
		goto fail;
	if ((*why = validate_small(h, &b->sc)) != NULL || (*why = validate_kept(h, &b->sc)) != NULL ||
	    (h->fmt->facts & FF_LAYOUT && (*why = validate_layout(h, &b->sc)) != NULL))
		goto fail;
	/* the reader checks its arrays against the heap's figures */
	struct heap before = *h;
	set_scalars(h, &b->sc);
	if ((*why = load_reader(h, &b->st, &b->sc)) != NULL) {
		if (h->fmt_data != NULL && h->fmt->free_data != NULL)
			h->fmt->free_data(h);
		*h = before; /* the figures as a parse expects them */
		goto fail;
	}
	replay_warnings(h, wb, b->sc.nwarn_bytes, b->sc.suppressed);
	free(wb);
	b->fd = fd;
	b->scratch_fd = -1;
	b->from_disk = 1;
	b->readonly = 1;
	b->stored = HP_ALL & ~(unsigned)b->sc.absent;
	b->absent = (unsigned)b->sc.absent & HP_ALL;
	h->backing = b;
	return 0;
fail:
	if (*why == NULL)
		*why = "truncated or corrupt";
	for (int i = 0; i < ns; i++) {
		free(*sl[i].ptr);
		*sl[i].ptr = NULL;
	}
	free(wb);
	store_free(&b->st);
	free(b);
	if (fd >= 0)
		close(fd);
	return -1;
}

/* For the fuzzers: a forged cache must meet the same checks as a real
 * one, or the loader never decodes what the fuzzer wrote. */
int cache_reseal(uint8_t *buf, size_t len, const struct heap *h)
{
	struct cache_header hd;
	struct store_sect st[NSECT];

	if (len < SECTIONS_AT || dump_ident(h, &hd.id) < 0)
		return -1;
	struct cache_ident id = hd.id;
	memcpy(&hd, buf, sizeof hd);
	hd.id = id;
	hd.format = CACHE_FORMAT; /* the regress inputs outlive a change of format */
	memcpy(st, buf + TABLE_AT, sizeof st);
	for (size_t i = 0; i < NSECT; i++) {
		if (st[i].off > len || st[i].comp > len - st[i].off)
			continue;
		uint64_t x = store_check_bytes(buf + st[i].off, st[i].comp, st[i].raw);
		if (x != ~(uint64_t)0)
			st[i].check = x;
	}
	hd.table_check = hash64(st, sizeof st, 0);
	hd.check = hash64(&hd, offsetof(struct cache_header, check), 0);
	memcpy(buf, &hd, sizeof hd);
	memcpy(buf + TABLE_AT, st, sizeof st);
	return 0;
}

size_t cache_mutate_section(uint8_t *buf, size_t len, size_t max, unsigned which,
			    size_t (*mutate)(uint8_t *p, size_t n, size_t max))
{
	struct store_sect st[NSECT];
	size_t ok[NSECT], nok = 0;

	if (len < SECTIONS_AT)
		return 0;
	memcpy(st, buf + TABLE_AT, sizeof st);
	for (size_t i = 0; i < NSECT; i++) { /* a first chunk whole in buf, of a raw size a chunk holds */
		uint32_t zl;
		if (st[i].off > len || st[i].comp < 4 || st[i].comp > len - st[i].off || st[i].raw == 0)
			continue;
		memcpy(&zl, buf + st[i].off, 4);
		if (zl <= st[i].comp - 4 && zl <= (uint32_t)LZ4_compressBound((int)STORE_CHUNK))
			ok[nok++] = i;
	}
	if (nok == 0)
		return 0;
	struct store_sect *sc = &st[ok[which % nok]];
	uint32_t zl;
	memcpy(&zl, buf + sc->off, 4);
	size_t want = sc->raw < STORE_CHUNK ? (size_t)sc->raw : STORE_CHUNK;
	uint8_t *raw = xmalloc(want), *z = xmalloc(4 + (size_t)LZ4_compressBound((int)want));
	int got = LZ4_decompress_safe((const char *)buf + sc->off + 4, (char *)raw, (int)zl, (int)want);
	size_t out = 0;
	if (got == (int)want) {
		mutate(raw, want, want); /* what it shortens, the bytes after keep their value */
		int n = LZ4_compress_default((const char *)raw, (char *)z + 4, (int)want, LZ4_compressBound((int)want));
		uint64_t rest = sc->comp - 4 - zl; /* the other chunks, as they are */
		if (n > 0 && len + 4 + (size_t)n + rest <= max) {
			uint32_t n32 = (uint32_t)n;
			memcpy(z, &n32, 4);
			memmove(buf + len + 4 + (size_t)n, buf + sc->off + 4 + zl, (size_t)rest);
			memcpy(buf + len, z, 4 + (size_t)n);
			sc->off = len;
			sc->comp = 4 + (uint64_t)n + rest;
			memcpy(buf + TABLE_AT, st, sizeof st);
			out = len + 4 + (size_t)n + (size_t)rest;
		}
	}
	free(raw);
	free(z);
	return out;
}
