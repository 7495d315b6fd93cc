/* cache.c — the index cache, see cache.h.
 *
 * Layout: a header (magic, format version, sizes of the index types,
 * the dump's identity: size, mtime, inode, device and a hash of sampled
 * content), a table of sections (raw and compressed length, checksum),
 * then the sections, each LZ4-compressed in chunks of at most 64 MiB,
 * every chunk preceded by its compressed length. Loading checks all of
 * it and then the values themselves, so that a corrupt cache can never
 * send later code out of bounds. */
#include "graph/cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <lz4.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC "HWIDX\0\r\n"
#define CHUNK ((size_t)64 << 20)

struct sect {
	uint32_t id, elem;
	uint64_t raw, comp, check;
};

/* Scalars of the heap, saved as one section. */
struct scalars {
	char version[24];
	uint64_t timestamp_ms;
	struct jvm_layout layout;
	struct agent_info agent;
	uint64_t n, nedges, nweak, nroot_rec, nroots, ncls, nfields, nrefoffs, names_len;
	uint64_t nframes, ntraces, ntrace_frames, nthreads, nwarn_bytes, nwarn, suppressed;
	uint64_t total_shallow, unreachable_count, unreachable_bytes;
	uint64_t weakonly_count, weakonly_bytes, dangling_refs;
	uint64_t nrx, ntags, tag_labels_len, tag_nlabels, nambiguous, rules_fp;
	uint64_t truncated_at;
};

static uint64_t mix(uint64_t x, uint64_t w)
{
	x = (x ^ w) * 0xff51afd7ed558ccdull;
	return x ^ (x >> 32);
}

/* A 64-bit checksum: four independent lanes over 32-byte blocks (so the
 * multiplies overlap), then the tail, then the lanes folded. */
static uint64_t hash64(const void *p, size_t n, uint64_t seed)
{
	const uint8_t *b = p;
	uint64_t a[4] = { seed ^ 0x9e3779b97f4a7c15ull, seed + n, ~seed, seed * 31 + 7 };
	size_t i = 0;

	for (; i + 32 <= n; i += 32)
		for (int k = 0; k < 4; k++) {
			uint64_t w;
			memcpy(&w, b + i + 8 * k, 8);
			a[k] = mix(a[k], w);
		}
	uint64_t x = mix(mix(mix(a[0], a[1]), a[2]), a[3]);
	for (; i < n; i++)
		x = (x ^ b[i]) * 0x100000001b3ull;
	return x ^ (x >> 29);
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
 * compressed bytes, which are read without inflating them again. */
static uint64_t content_hash(const struct heap *h)
{
	return h->file_map != NULL ? hash64(h->file_map, h->file_size, 0) : hash64(h->map, h->size, 0);
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
static char *private_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME"), *tmp = getenv("TMPDIR");
	char *d;
	struct stat st;

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
	int fd = open(d, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    ((st.st_mode & 077) != 0 && fchmod(fd, 0700) < 0)) {
		free(d);
		d = NULL;
	}
	if (fd >= 0)
		close(fd);
	return d;
}

char *cache_choose(const char *dump_path, struct sbuf *note)
{
	char *abs = realpath(dump_path, NULL);
	const char *p = abs ? abs : dump_path;
	const char *slash = strrchr(p, '/');
	char *dir = slash ? xstrndup(p, (size_t)(slash - p) + (slash == p)) : xstrdup(".");
	char *out = NULL;

	if (access(dir, W_OK) == 0) {
		out = xasprintf("%s.hwi", p);
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
		char *pd = private_dir();
		if (pd != NULL)
			out = xasprintf("%s/%016llx-%s.hwi", pd, (unsigned long long)hash64(p, strlen(p), 0),
					slash ? slash + 1 : p);
		else if (note != NULL && note->len == 0)
			sbuf_adds(note, "no private cache directory that can be trusted (not ours, or open "
				  "to others): no index cache");
		free(pd);
	}
	free(dir);
	free(abs);
	return out;
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
#undef SLOT
	return k;
}
#define NSLOTS 29

static void get_scalars(const struct heap *h, struct scalars *s, uint64_t warn_bytes)
{
	memset(s, 0, sizeof *s);
	memcpy(s->version, h->version, sizeof s->version);
	s->timestamp_ms = h->timestamp_ms;
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
	s->nrx = h->nrx;
	s->ntags = h->ntags;
	s->tag_labels_len = h->tag_labels_len;
	s->tag_nlabels = h->tag_nlabels;
	s->nambiguous = h->nambiguous;
	s->rules_fp = h->rules_fp;
}

/* ---- saving ---- */

struct out { int fd; int err; uint64_t check; };

static void put(struct out *o, const void *p, size_t n)
{
	if (!o->err)
		o->err = write_full(o->fd, p, n);
}

/* Compress and write one array, chunk by chunk ([u32 length][LZ4 data]
 * each): one chunk's buffer in memory, not the whole section. The
 * checksum chains over the chunks as written, from the raw length. */
static void pack_write(struct out *o, const void *p, uint64_t raw, uint64_t *comp, uint64_t *check)
{
	uint64_t nchunks = raw / CHUNK + 1;
	int bound = LZ4_compressBound((int)(raw < CHUNK ? raw : CHUNK));
	char *buf = xmalloc(4 + (size_t)bound);

	*comp = 0;
	*check = raw;
	for (uint64_t c = 0; c < nchunks && !o->err; c++) {
		uint64_t len = c + 1 < nchunks ? CHUNK : raw - c * CHUNK;
		/* an empty array may have no storage at all: no offset on NULL */
		const char *src = raw > 0 ? (const char *)p + c * CHUNK : "";
		int z = LZ4_compress_default(src, buf + 4, (int)len, bound);
		uint32_t z32 = (uint32_t)z;
		memcpy(buf, &z32, 4);
		*check = hash64(buf, 4 + (size_t)z, *check);
		put(o, buf, 4 + (size_t)z);
		*comp += 4 + (uint64_t)z;
	}
	free(buf);
}

/* The same checksum over a stored section; ~0 if its chunks are malformed. */
static uint64_t chunks_hash(const uint8_t *p, uint64_t comp, uint64_t raw)
{
	uint64_t x = raw, at = 0;

	while (at < comp) {
		uint32_t z;
		if (comp - at < 4)
			return ~(uint64_t)0;
		memcpy(&z, p + at, 4);
		if (z > comp - at - 4)
			return ~(uint64_t)0;
		x = hash64(p + at, 4 + (size_t)z, x);
		at += 4 + (uint64_t)z;
	}
	return x;
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
/* Sections are compressed and written one at a time (only one packed
 * section in memory), then the table and the header go in front. */
static void write_sections(struct out *o, struct cache_header *hd, struct sect *st,
			   const struct scalars *sc, const struct slot *sl, int ns)
{
	put(o, hd, sizeof *hd);
	put(o, st, sizeof st[0] * hd->nsect); /* a place for the table */
	for (int i = 0; i <= ns && !o->err; i++) {
		const void *p = i == 0 ? (const void *)sc : *sl[i - 1].ptr;
		uint64_t raw = i == 0 ? sizeof *sc : sl[i - 1].elem * sl[i - 1].count;
		st[i] = (struct sect){ (uint32_t)i, i == 0 ? 1 : (uint32_t)sl[i - 1].elem, raw, 0, 0 };
		pack_write(o, p, raw, &st[i].comp, &st[i].check);
	}
	hd->table_check = hash64(st, sizeof st[0] * hd->nsect, 0);
	hd->check = hash64(hd, offsetof(struct cache_header, check), 0);
	if (!o->err && lseek(o->fd, 0, SEEK_SET) != 0)
		o->err = errno;
	put(o, hd, sizeof *hd);
	put(o, st, sizeof st[0] * hd->nsect);
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

int cache_save(struct heap *h)
{
	struct cache_header hd = { .format = CACHE_FORMAT, .endian = 0x01020304,
			     .node_size = sizeof(node_t), .edge_size = sizeof(edge_t) };
	struct scalars sc;
	struct slot sl[NSLOTS + 2];
	struct sect st[NSLOTS + 2] = { { 0 } };
	uint64_t wlen;
	const char *path = h->cache_file;
	char *tmp = NULL, *wb = NULL;
	struct stat ds;
	int ok = 0;

	if (path == NULL) /* no place that can be trusted */
		return -1;
	wb = warn_blob(h, &wlen);
	memcpy(hd.magic, MAGIC, 8);
	if (dump_ident(h, &hd.id) < 0 || fstat(h->fd, &ds) < 0)
		goto done;
	hd.content = content_hash(h); /* for --verify-cache */
	get_scalars(h, &sc, wlen);
	int ns = slots(h, &sc, sl);
	sl[ns++] = (struct slot){ (void **)&wb, 1, wlen };
	hd.nsect = (uint32_t)ns + 1; /* section 0: the scalars */
	char *pre = xasprintf("%s.tmp.", path);
	tmp_remove_stale(pre);
	free(pre);
	tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	if (tmp_guard(tmp) < 0) {
		warn_add(&h->notes, "%s: cannot write the index cache: path too long", tmp);
		goto done;
	}
	/* O_EXCL: a symlink or anything else planted at the name fails */
	struct out o = { open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600), 0, 0 };
	if (o.fd < 0) {
		tmp_unguard();
		warn_add(&h->notes, "%s: cannot write the index cache: %s", tmp, strerror(errno));
		goto done;
	}
	set_access(o.fd, &ds);
	write_sections(&o, &hd, st, &sc, sl, ns);
	if (!o.err && fsync(o.fd) < 0)
		o.err = errno;
	if (close(o.fd) < 0 && !o.err)
		o.err = errno;
	if (!o.err && rename(tmp, path) < 0)
		o.err = errno;
	if (o.err)
		unlink(tmp);
	tmp_unguard();
	if (o.err) {
		warn_add(&h->notes, "%s: cannot write the index cache: %s", path, strerror(o.err));
		goto done;
	}
	ok = 1;
done:
	free(wb);
	free(tmp);
	return ok ? 0 : -1;
}

/* ---- loading ---- */

static int unpack(const uint8_t *p, uint64_t comp, void *dst, uint64_t raw)
{
	uint64_t at = 0, done = 0;

	while (done < raw || (raw == 0 && at < comp && at == 0)) {
		uint32_t z;
		if (comp - at < 4)
			return -1;
		memcpy(&z, p + at, 4);
		at += 4;
		if (z > comp - at)
			return -1;
		uint64_t len = raw - done < CHUNK ? raw - done : CHUNK;
		int got = LZ4_decompress_safe((const char *)p + at, (char *)dst + done, (int)z, (int)len);
		if (got < 0 || (uint64_t)got != len)
			return -1;
		at += z;
		done += len;
		if (raw == 0)
			break;
	}
	return at == comp ? 0 : -1;
}

/* Every value that indexes something must be in range: each big part
 * when it is loaded, the small tables at once. */
static const char *validate_part(const struct heap *h, const struct scalars *s, unsigned part)
{
	const edge_t *start = part == HP_OUT ? h->out_start : h->in_start;
	const node_t *e = part == HP_OUT ? h->out : h->in;
	uint64_t ne = part == HP_OUT ? s->nedges : s->nedges + s->nroots;

	switch (part) {
	case HP_NODES:
		/* the records themselves are the reader's to check (heap_need) */
		for (uint64_t v = 1; v < s->n; v++)
			if (h->node_class[v] >= s->ncls || h->node_off[v] == 0 ||
			    h->node_off[v] + 1 + h->layout.idsize > h->size || h->node_kind[v] > NK_CLASS)
				return "bad node";
		return NULL;
	case HP_OUT:
	case HP_IN:
		for (uint64_t v = 0; v < s->n; v++)
			if (start[v] > start[v + 1])
				return "bad reference index";
		if (start[s->n] != ne)
			return "bad reference count";
		for (uint64_t j = 0; j < ne; j++)
			if (e[j] >= s->n)
				return "bad reference";
		return NULL;
	case HP_WEAK:
		for (uint64_t i = 0; i < s->nweak; i++)
			if (h->weak_src[i] >= s->n || h->weak_dst[i] >= s->n)
				return "bad weak reference";
		for (uint64_t i = 0; i < s->nrx; i++)
			if (h->rx_src[i] >= s->n || h->rx_dst[i] >= s->n)
				return "bad incidental reference";
		return NULL;
	default: /* HP_DOM */
		for (uint64_t v = 0; v < s->n; v++)
			if (h->idom[v] != HW_NONE && h->idom[v] >= s->n)
				return "bad dominator";
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

static const char *validate_small(const struct heap *h, const struct scalars *s)
{
	if (s->n == 0 || s->n > UINT32_MAX || s->names_len == 0 || h->names[s->names_len - 1] != '\0')
		return "bad counts";
	for (uint64_t i = 0; i < s->nroots; i++)
		if (h->roots[i] >= s->n)
			return "bad root";
	for (uint64_t i = 0; i < s->nroot_rec; i++)
		if (h->root_rec[i].node >= s->n)
			return "bad root";
	for (uint64_t c = 0; c < s->ncls; c++) {
		const struct hclass *k = &h->cls[c];
		if (k->name >= s->names_len || (k->super != HW_NONE && k->super >= s->ncls) ||
		    (k->node != HW_NONE && k->node >= s->n) ||
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

static void set_scalars(struct heap *h, const struct scalars *s)
{
	memcpy(h->version, s->version, sizeof h->version);
	h->version[sizeof h->version - 1] = '\0';
	h->timestamp_ms = s->timestamp_ms;
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
	h->nrx = s->nrx;
	h->ntags = s->ntags;
	h->tag_labels_len = (uint32_t)s->tag_labels_len;
	h->tag_nlabels = (uint32_t)s->tag_nlabels;
	h->nambiguous = s->nambiguous;
	h->rules_fp = s->rules_fp;
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

/* What stays of the cache file between cache_load and cache_load_rest. */
struct lazy {
	const uint8_t *map;
	size_t size;
	unsigned loaded;         /* HP_* parts in memory */
	struct scalars sc;
	struct sect st[NSLOTS + 2];
	uint64_t at[NSLOTS + 2]; /* where each section's bytes start */
};

/* Which part (HP_*) a section of slots() belongs to; 0 for the small
 * tables loaded at once. */
static unsigned part_of(int slot)
{
	static const unsigned part[] = {
		HP_NODES, HP_NODES, HP_NODES, HP_NODES, HP_OUT, HP_OUT, HP_IN, HP_IN, HP_WEAK, HP_WEAK,
		0, 0, 0, 0, 0, 0, HP_DOM, HP_DOM, 0, 0, 0, 0, HP_WEAK, HP_WEAK, HP_WEAK,
	};
	return slot < (int)(sizeof part / sizeof part[0]) ? part[slot] : 0;
}

static int is_big(int slot) { return part_of(slot) != 0; }

static int load_slot(const struct lazy *z, struct slot *sl, int i)
{
	const struct sect *s = &z->st[i + 1];

	if (s->elem != sl->elem || sl->count > (UINT64_MAX / 2) / sl->elem || s->raw != sl->elem * sl->count)
		return -1;
	if (chunks_hash(z->map + z->at[i + 1], s->comp, s->raw) != s->check)
		return -1;
	*sl->ptr = xmalloc(s->raw + 1);
	return unpack(z->map + z->at[i + 1], s->comp, *sl->ptr, s->raw);
}

int cache_has(const struct heap *h, unsigned part)
{
	const struct lazy *z = h->lazy;

	return z == NULL || (z->loaded & part) == part;
}

void cache_lazy_free(struct heap *h)
{
	struct lazy *z = h->lazy;

	if (z == NULL)
		return;
	munmap((void *)z->map, z->size);
	free(z);
	h->lazy = NULL;
}

int cache_load_rest(struct heap *h, unsigned parts, const char **why)
{
	struct lazy *z = h->lazy;
	struct slot sl[NSLOTS + 2];

	if (z == NULL || (parts & ~z->loaded) == 0)
		return 0;
	int ns = slots(h, &z->sc, sl);
	for (unsigned part = 1; part <= HP_DOM; part <<= 1) {
		if (!(parts & part) || (z->loaded & part))
			continue;
		*why = "corrupt"; /* again for each part: the last check left NULL */
		for (int i = 0; i < ns; i++)
			if (part_of(i) == part && load_slot(z, &sl[i], i) < 0)
				goto fail;
		if ((*why = validate_part(h, &z->sc, part)) != NULL)
			goto fail;
		z->loaded |= part;
	}
	if (z->loaded == HP_ALL)
		cache_lazy_free(h); /* everything is here: the mapping can go */
	return 0;
fail:
	for (int i = 0; i < ns; i++)
		if (is_big(i)) {
			free(*sl[i].ptr);
			*sl[i].ptr = NULL;
		}
	cache_lazy_free(h);
	return -1;
}

int cache_current(const struct heap *h, const char *cache_file)
{
	int fd = open(cache_file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct cache_header hd;
	struct cache_ident id;
	struct stat st;
	int ok = fd >= 0 && fstat(fd, &st) == 0 && untrusted(&st) == NULL && read(fd, &hd, sizeof hd) == sizeof hd &&
		 memcmp(hd.magic, MAGIC, 8) == 0 && hd.format == CACHE_FORMAT &&
		 hd.check == hash64(&hd, offsetof(struct cache_header, check), 0) && dump_ident(h, &id) == 0 &&
		 memcmp(&id, &hd.id, sizeof id) == 0;

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
	struct cache_header hd, want = { 0 };
	struct lazy *z = xcalloc(1, sizeof *z);
	struct slot sl[NSLOTS + 2];
	int ns = 0;
	char *wb = NULL;

	z->map = MAP_FAILED;
	*why = "no cache";
	if (fd < 0 || fstat(fd, &st) < 0)
		goto fail;
	*why = "not trusted";
	if (untrusted(&st) != NULL)
		goto fail;
	*why = "no cache";
	if ((uint64_t)st.st_size < sizeof hd)
		goto fail;
	z->size = (size_t)st.st_size;
	z->map = mmap(NULL, z->size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (z->map == MAP_FAILED)
		goto fail;
	memcpy(&hd, z->map, sizeof hd);
	*why = "not a heapwalk cache of this version";
	if (memcmp(hd.magic, MAGIC, 8) != 0 || hd.format != CACHE_FORMAT || hd.endian != 0x01020304 ||
	    hd.node_size != sizeof(node_t) || hd.edge_size != sizeof(edge_t) ||
	    hd.check != hash64(&hd, offsetof(struct cache_header, check), 0) || hd.nsect != NSLOTS + 2)
		goto fail;
	*why = "stale: the dump changed";
	if (dump_ident(h, &want.id) < 0 || memcmp(&want.id, &hd.id, sizeof hd.id) != 0)
		goto fail;
	*why = "stale: the dump's content changed (--verify-cache)";
	if (verify && content_hash(h) != hd.content)
		goto fail;
	*why = "truncated or corrupt";
	if (z->size < sizeof hd + sizeof z->st)
		goto fail;
	memcpy(z->st, z->map + sizeof hd, sizeof z->st);
	if (hash64(z->st, sizeof z->st, 0) != hd.table_check)
		goto fail;
	uint64_t at = sizeof hd + sizeof z->st;
	for (uint32_t i = 0; i < hd.nsect; i++) {
		if (z->st[i].comp > z->size - at)
			goto fail;
		z->at[i] = at;
		at += z->st[i].comp;
	}
	if (at != z->size || z->st[0].raw != sizeof z->sc ||
	    chunks_hash(z->map + z->at[0], z->st[0].comp, z->st[0].raw) != z->st[0].check ||
	    unpack(z->map + z->at[0], z->st[0].comp, &z->sc, sizeof z->sc) < 0)
		goto fail;
	/* the small tables now, the big arrays when someone needs them */
	ns = slots(h, &z->sc, sl);
	sl[ns++] = (struct slot){ (void **)&wb, 1, z->sc.nwarn_bytes };
	for (int i = 0; i < ns; i++)
		*sl[i].ptr = NULL;
	for (int i = 0; i < ns; i++)
		if ((i == ns - 1 || !is_big(i)) && load_slot(z, &sl[i], i) < 0)
			goto fail;
	if ((*why = validate_small(h, &z->sc)) != NULL || (*why = validate_layout(h, &z->sc)) != NULL)
		goto fail;
	set_scalars(h, &z->sc);
	replay_warnings(h, wb, z->sc.nwarn_bytes, z->sc.suppressed);
	free(wb);
	close(fd);
	h->lazy = z;
	return 0;
fail:
	if (*why == NULL)
		*why = "truncated or corrupt";
	for (int i = 0; i < ns; i++) {
		free(*sl[i].ptr);
		*sl[i].ptr = NULL;
	}
	if (z->map != MAP_FAILED)
		munmap((void *)z->map, z->size);
	free(z);
	if (fd >= 0)
		close(fd);
	return -1;
}

/* For the fuzzers: a forged cache must meet the same checks as a real
 * one, or the loader never decodes what the fuzzer wrote. */
int cache_reseal(uint8_t *buf, size_t len, const struct heap *h)
{
	struct cache_header hd;
	struct sect st[NSLOTS + 2];
	uint64_t at = sizeof hd + sizeof st;

	if (len < at || dump_ident(h, &hd.id) < 0)
		return -1;
	struct cache_ident id = hd.id;
	memcpy(&hd, buf, sizeof hd);
	hd.id = id;
	memcpy(st, buf + sizeof hd, sizeof st);
	for (size_t i = 0; i < NSLOTS + 2 && i < hd.nsect && st[i].comp <= len - at; i++) {
		uint64_t x = chunks_hash(buf + at, st[i].comp, st[i].raw);
		if (x != ~(uint64_t)0)
			st[i].check = x;
		at += st[i].comp;
	}
	hd.table_check = hash64(st, sizeof st, 0);
	hd.check = hash64(&hd, offsetof(struct cache_header, check), 0);
	memcpy(buf, &hd, sizeof hd);
	memcpy(buf + sizeof hd, st, sizeof st);
	return 0;
}
