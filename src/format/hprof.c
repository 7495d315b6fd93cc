/* hprof.c — HPROF over a read-only mapping: the header, one pass over
 * the records, and lazy decoding of single records for the views.
 *
 * The pass only records where things are (ids and file offsets); class
 * resolution, sizes and references are build.c's job. Every read is
 * bounds-checked: a record that runs past its container ends the
 * container with a warning naming the offset, never a crash. */
#include "format/hprof.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/hprof_build.h"
#include "graph/resident.h"
#include "graph/store.h"
#include "runtime/jvm.h"

/* Top-level record tags. */
enum {
	TAG_UTF8 = 0x01, TAG_LOAD_CLASS = 0x02, TAG_UNLOAD_CLASS = 0x03,
	TAG_FRAME = 0x04, TAG_TRACE = 0x05, TAG_HEAP_DUMP = 0x0c,
	TAG_HEAP_DUMP_SEGMENT = 0x1c, TAG_HEAP_DUMP_END = 0x2c,
};

int hprof_probe(const uint8_t *head, size_t n)
{
	static const char magic[] = "JAVA PROFILE 1.0.";

	return n >= sizeof magic - 1 && memcmp(head, magic, sizeof magic - 1) == 0;
}

static int hprof_header(struct heap *h, struct sbuf *err)
{
	const uint8_t *p = h->map;
	char *ep = esc_str(h->path); /* a file name may hold control characters */
	int rc = -1;

	if (h->size < 31) {
		sbuf_printf(err, "%s: offset 0: file too short for an HPROF header (%llu bytes)",
			    ep, (unsigned long long)h->size);
		goto out;
	}
	const void *nul = memchr(p, 0, 24);
	if (nul == NULL || (strcmp((const char *)p, "JAVA PROFILE 1.0.1") != 0 &&
			    strcmp((const char *)p, "JAVA PROFILE 1.0.2") != 0)) {
		sbuf_printf(err, "%s: offset 0: not an HPROF file (no \"JAVA PROFILE 1.0.x\" header)", ep);
		goto out;
	}
	size_t hl = (size_t)((const uint8_t *)nul - p) + 1;
	memcpy(h->version, p, hl);
	uint32_t idsize = be32(p + hl);
	if (idsize != 4 && idsize != 8) {
		sbuf_printf(err, "%s: offset %zu: identifier size %u (only 4 and 8 are valid)",
			    ep, hl, idsize);
		goto out;
	}
	h->layout.idsize = idsize;
	h->timestamp_ms = be64(p + hl + 4);
	rc = 0;
out:
	free(ep);
	return rc;
}

int hprof_map(struct heap *h, const char *path, struct sbuf *err)
{
	if (heap_map_file(h, path, err) < 0)
		return -1;
	h->fmt = &hprof_format;
	return hprof_header(h, err);
}

/* Reader state for the pass. */
struct rd {
	struct heap *h;
	struct scan *s;
	struct progress *p;
	unsigned ids;
	uint64_t unknown_sub; /* warned once per segment */
	uint64_t lost_at;     /* the first heap data skipped as damaged (0: none) */
	uint64_t unsynced;    /* no run of good records starts between a search's
			       * start and here (resync: each offset looked at once) */
	/* every byte of the dump hashed as the pass reads it (for
	 * --verify-cache): the cache need not read it all again; not when
	 * no cache is written (--no-cache) or the identity is a gzip
	 * file's, a tenth of a second on 400 MB for nothing */
	struct store_hasher x;
	int hashing;
	uint64_t hashed;
	/* a dump large beside the memory: the pages read so far let go of
	 * as the pass goes (the page cache still has them while it can) */
	struct behind behind;
};

/* The dump's bytes up to `to` into the content hash, a MiB or more at a
 * time (all of it when to is the end). */
static void hash_upto(struct rd *r, uint64_t to)
{
	if (to - r->hashed < ((uint64_t)1 << 20) && to < r->h->size)
		return;
	if (r->hashing)
		store_hash_add(&r->x, r->h->map + r->hashed, (size_t)(to - r->hashed));
	r->hashed = to;
	heap_behind(r->h, &r->behind, to);
}

static int have(uint64_t pos, uint64_t end, uint64_t n) { return n <= end - pos && pos <= end; }

static void add_obj(struct rd *r, uint64_t id, uint64_t off)
{
	struct scan *s = r->s;

	VEC_GROW(s->obj, s->nobj, s->capobj);
	s->obj[s->nobj++] = (struct raw_obj){ id, off };
}

static void add_root(struct rd *r, uint8_t native, uint64_t id, uint64_t off,
		     uint32_t thread, uint32_t frame)
{
	struct scan *s = r->s;

	VEC_GROW(s->root, s->nroot, s->caproot);
	s->root[s->nroot++] = (struct raw_root){ id, off, native, thread, frame };
}

/* Length of a CLASS_DUMP body after its sub-tag, or 0 if it runs past end. */
static uint64_t class_dump_len(const struct rd *r, uint64_t pos, uint64_t end)
{
	const uint8_t *m = r->h->map;
	unsigned ids = r->ids;
	uint64_t q = pos + 7 * (uint64_t)ids + 8; /* ids, serial, instance size */

	if (!have(pos, end, 7 * (uint64_t)ids + 8 + 2))
		return 0;
	unsigned ncp = be16(m + q);
	q += 2;
	for (unsigned i = 0; i < ncp; i++) {
		if (!have(q, end, 3))
			return 0;
		unsigned sz = hprof_type_size(m[q + 2], ids);
		if (sz == 0)
			return 0;
		q += 3 + sz;
	}
	if (!have(q, end, 2))
		return 0;
	unsigned nst = be16(m + q);
	q += 2;
	for (unsigned i = 0; i < nst; i++) {
		if (!have(q, end, ids + 1))
			return 0;
		unsigned sz = hprof_type_size(m[q + ids], ids);
		if (sz == 0)
			return 0;
		q += ids + 1 + sz;
	}
	if (!have(q, end, 2))
		return 0;
	unsigned nf = be16(m + q);
	q += 2;
	if (!have(q, end, (uint64_t)nf * (ids + 1)))
		return 0;
	for (unsigned i = 0; i < nf; i++)
		if (hprof_type_size(m[q + (uint64_t)i * (ids + 1) + ids], ids) == 0)
			return 0;
	q += (uint64_t)nf * (ids + 1);
	return q - pos;
}

/* Fixed lengths of root sub-records after the tag: -1 if not a root. */
static int root_len(unsigned tag, unsigned ids)
{
	switch (tag) {
	case HPROF_ROOT_UNKNOWN: case HPROF_ROOT_STICKY_CLASS: case HPROF_ROOT_MONITOR_USED:
	case HPROF_ROOT_INTERNED_STRING: case HPROF_ROOT_FINALIZING: case HPROF_ROOT_DEBUGGER:
	case HPROF_ROOT_REFERENCE_CLEANUP: case HPROF_ROOT_VM_INTERNAL: case HPROF_ROOT_UNREACHABLE:
		return (int)ids;
	case HPROF_ROOT_JNI_GLOBAL: return (int)(2 * ids);
	case HPROF_ROOT_JNI_LOCAL: case HPROF_ROOT_JAVA_FRAME: case HPROF_ROOT_THREAD_OBJ: case HPROF_ROOT_JNI_MONITOR:
		return (int)ids + 8;
	case HPROF_ROOT_NATIVE_STACK: case HPROF_ROOT_THREAD_BLOCK: return (int)ids + 4;
	default: return -1;
	}
}

static void take_root(struct rd *r, unsigned tag, uint64_t pos, uint64_t sub)
{
	const uint8_t *m = r->h->map;
	uint64_t id = beid(m + pos, r->ids);
	uint32_t a = 0, b = HW_NONE;

	switch (tag) {
	case HPROF_ROOT_JNI_LOCAL: case HPROF_ROOT_JAVA_FRAME: case HPROF_ROOT_JNI_MONITOR:
		a = be32(m + pos + r->ids);
		b = be32(m + pos + r->ids + 4);
		break;
	case HPROF_ROOT_THREAD_OBJ: {
		struct scan *s = r->s;

		a = be32(m + pos + r->ids);
		VEC_GROW(s->thread, s->nthread, s->capthread);
		s->thread[s->nthread++] = (struct raw_thread){ id, a, be32(m + pos + r->ids + 4) };
		break;
	}
	case HPROF_ROOT_NATIVE_STACK: case HPROF_ROOT_THREAD_BLOCK:
		a = be32(m + pos + r->ids);
		break;
	}
	add_root(r, (uint8_t)hprof_root_native(tag), id, sub, a, b); /* a root's tag (root_len) */
}

/* Length after the sub-tag of an object record, 0 if it runs past end. */
static uint64_t object_len(const struct rd *r, unsigned tag, uint64_t pos, uint64_t end)
{
	const uint8_t *rec = r->h->map + pos - 1; /* its sub-tag */
	unsigned ids = r->ids;
	uint64_t n;

	switch (tag) {
	case HPROF_INSTANCE:
		n = hprof_inst_hdr(ids) - 1;
		if (!have(pos, end, n))
			return 0;
		n += hprof_inst_nbytes(rec, ids);
		break;
	case HPROF_OBJ_ARRAY:
		n = hprof_objarr_hdr(ids) - 1;
		if (!have(pos, end, n))
			return 0;
		n += (uint64_t)hprof_arr_len(rec, ids) * ids;
		break;
	case HPROF_PRIM_ARRAY: {
		n = hprof_primarr_hdr(ids) - 1;
		if (!have(pos, end, n))
			return 0;
		unsigned es = hprof_type_size(hprof_primarr_type(rec, ids), ids);
		if (es == 0 || hprof_primarr_type(rec, ids) == T_OBJECT)
			return 0;
		n += (uint64_t)hprof_arr_len(rec, ids) * es;
		break;
	}
	case HPROF_PRIM_ARRAY_NODATA:
		n = hprof_primarr_hdr(ids) - 1;
		break;
	default:
		return 0;
	}
	return have(pos, end, n) ? n : 0;
}

/* Heap data from off on skipped as damaged: the dump is whole up to
 * there at most. */
static void lost(struct rd *r, uint64_t off)
{
	if (r->lost_at == 0 || off < r->lost_at)
		r->lost_at = off;
}

/* The sub-records of one HEAP_DUMP(_SEGMENT) body [pos, end): end, or
 * the offset of an unknown sub-record tag, where it stops (with a
 * warning unless quiet: a body whose length is damaged ends there). */
static uint64_t scan_segment(struct rd *r, uint64_t pos, uint64_t end, int quiet)
{
	const uint8_t *m = r->h->map;
	const char *path = r->h->path;
	uint64_t n;

	while (pos < end) {
		uint64_t sub = pos;
		unsigned tag = m[pos++];
		int rl = root_len(tag, r->ids);

		if (rl >= 0) {
			if (!have(pos, end, (uint64_t)rl))
				goto cut;
			take_root(r, tag, pos, sub);
			pos += (uint64_t)rl;
			continue;
		}
		switch (tag) {
		case HPROF_CLASS_DUMP:
			if ((n = class_dump_len(r, pos, end)) == 0)
				goto cut;
			VEC_GROW(r->s->cd, r->s->ncd, r->s->capcd);
			r->s->cd[r->s->ncd++] = sub;
			add_obj(r, beid(m + pos, r->ids), sub);
			break;
		case HPROF_INSTANCE: case HPROF_OBJ_ARRAY: case HPROF_PRIM_ARRAY:
		case HPROF_PRIM_ARRAY_NODATA:
			if ((n = object_len(r, tag, pos, end)) == 0)
				goto cut;
			add_obj(r, beid(m + pos, r->ids), sub);
			break;
		case HPROF_HEAP_INFO:
			n = 4 + r->ids;
			if (!have(pos, end, n))
				goto cut;
			break;
		default:
			if (!quiet) {
				warn_add(&r->h->warn, "%s: offset %llu: unknown heap sub-record tag 0x%02x; "
					 "skipping the rest of the segment (%llu bytes)", path,
					 (unsigned long long)sub, tag, (unsigned long long)(end - sub));
				lost(r, sub);
			}
			return sub;
		}
		pos += n;
		if ((r->s->nobj & 0xffff) == 0)
			progress_update(r->p, pos);
	}
	return end;
cut:
	warn_add(&r->h->warn, "%s: offset %llu: heap sub-record (tag 0x%02x) runs past the end "
		 "of its segment at offset %llu; the rest of the segment is skipped", path,
		 (unsigned long long)pos - 1, m[pos - 1], (unsigned long long)end);
	lost(r, pos - 1);
	return end;
}

/* The top-level tags of the format (HotSpot, Android and heapwalk's
 * agent write no others). */
static int known_tag(unsigned t)
{
	return (t >= 0x01 && t <= 0x07) || (t >= 0x0a && t <= 0x0e) || t == TAG_HEAP_DUMP_SEGMENT ||
	       t == TAG_HEAP_DUMP_END;
}

/* Records in good order from q: RESYNC_RUN of them, or fewer that end
 * the file (two at least). */
#define RESYNC_RUN 8

static int records_from(const struct heap *h, uint64_t q)
{
	unsigned ids = h->layout.idsize;
	int n = 0;

	while (n < RESYNC_RUN && h->size - q >= 9 && known_tag(h->map[q]) &&
	       be32(h->map + q + 5) <= h->size - q - 9) {
		uint64_t len = be32(h->map + q + 5);
		switch (h->map[q]) { /* what each of these records holds at least */
		case TAG_UTF8: if (len < ids) return 0; break;
		case TAG_LOAD_CLASS: if (len < 8 + 2 * (uint64_t)ids) return 0; break;
		case TAG_FRAME: if (len < 8 + 4 * (uint64_t)ids) return 0; break;
		case TAG_TRACE: if (len < 12 || (len - 12) % ids != 0) return 0; break;
		case TAG_HEAP_DUMP_END: if (len != 0) return 0; break;
		default: break;
		}
		q += 9 + len;
		n++;
	}
	return n == RESYNC_RUN || (q == h->size && n >= 2);
}

/* A record whose length or tag is damaged: the first offset in [from,
 * to) where records follow in good order again, or 0. A damaged length
 * most often belongs to a small record (a name), a damaged heap
 * segment's end is where its sub-records stop: RESYNC_WINDOW bytes are
 * looked through, not a cut file's last gigabytes. */
#define RESYNC_WINDOW ((uint64_t)16 << 20)

static uint64_t resync(struct rd *r, uint64_t from, uint64_t to)
{
	const struct heap *h = r->h;

	if (to > h->size)
		to = h->size;
	if (from < r->unsynced) /* looked at by the search before */
		from = r->unsynced;
	for (uint64_t q = from; q < to && h->size - q >= 9; q++)
		if (known_tag(h->map[q]) && records_from(h, q)) {
			r->unsynced = q;
			return q;
		}
	if (to > r->unsynced)
		r->unsynced = to;
	return 0;
}

/* The agent's records (see heap.h, contrib/agent/agent.c). Unknown keys
 * are skipped, so later agents can add some. */
static void take_agent_text(struct heap *h, uint64_t off, uint64_t len)
{
	static const char mark[] = "heapwalk-agent/1 ", sizes[] = "heapwalk-sizes/1";
	static const char times[] = "heapwalk-times/1 ";
	const char *t = (const char *)h->map + off;
	struct agent_info *a = &h->agent;

	if (len >= sizeof sizes - 1 && memcmp(t, sizes, sizeof sizes - 1) == 0) {
		a->sizes_off = off;
		a->sizes_len = len;
		return;
	}
	if (len >= sizeof times - 1 && memcmp(t, times, sizeof times - 1) == 0) {
		a->times_off = off;
		a->times_len = len;
		return;
	}
	if (len < sizeof mark - 1 || len > 4096 || memcmp(t, mark, sizeof mark - 1) != 0)
		return;
	char buf[4097], *save = NULL;
	memcpy(buf, t, len);
	buf[len] = '\0';
	memset(a, 0, offsetof(struct agent_info, sizes_off));
	a->present = 1;
	for (char *w = strtok_r(buf + sizeof mark - 1, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(w, '=');
		if (eq == NULL)
			continue;
		*eq++ = '\0';
		unsigned long long v = strtoull(eq, NULL, strcmp(w, "session") == 0 ? 16 : 10);
		if (strcmp(w, "session") == 0) a->session = v;
		else if (strcmp(w, "pid") == 0) a->pid = v;
		else if (strcmp(w, "watermark") == 0) a->watermark = v;
		else if (strcmp(w, "marks") == 0) a->marks = v;
		else if (strcmp(w, "mark_ms") == 0) a->mark_ms = v;
		else if (strcmp(w, "dump_ms") == 0) a->dump_ms = v;
		else if (strcmp(w, "ref") == 0) a->ref = (unsigned)v;
		else if (strcmp(w, "header") == 0) a->header = (unsigned)v;
		else if (strcmp(w, "array_header") == 0) a->array_header = (unsigned)v;
		else if (strcmp(w, "align") == 0) a->align = (unsigned)v;
	}
	/* a layout that is not one HotSpot has is not used */
	if (!((a->ref == 4 || a->ref == 8) && (a->header == 12 || a->header == 16) &&
	      (a->array_header == 16 || a->array_header == 24) && a->align >= 8 && a->align <= 256 &&
	      (a->align & (a->align - 1)) == 0))
		a->ref = 0;
}

static void take_utf8(struct rd *r, uint64_t body, uint64_t len)
{
	struct scan *s = r->s;

	if (len < r->ids)
		return;
	take_agent_text(r->h, body + r->ids, len - r->ids);
	VEC_GROW(s->str, s->nstr, s->capstr);
	s->str[s->nstr++] = (struct raw_str){ beid(r->h->map + body, r->ids), body + r->ids,
					      (uint32_t)(len - r->ids) };
}

static void take_load_class(struct rd *r, uint64_t body, uint64_t len)
{
	const uint8_t *m = r->h->map + body;
	struct scan *s = r->s;

	if (len < 8 + 2 * (uint64_t)r->ids)
		return;
	VEC_GROW(s->lc, s->nlc, s->caplc);
	s->lc[s->nlc++] = (struct raw_lc){ beid(m + 4, r->ids), beid(m + 8 + r->ids, r->ids), be32(m) };
}

static void take_frame(struct rd *r, uint64_t body, uint64_t len)
{
	const uint8_t *m = r->h->map + body;
	unsigned ids = r->ids;
	struct scan *s = r->s;

	if (len < 4 * (uint64_t)ids + 8)
		return;
	VEC_GROW(s->frame, s->nframe, s->capframe);
	s->frame[s->nframe++] = (struct raw_frame){
		beid(m, ids), beid(m + ids, ids), beid(m + 2 * ids, ids), beid(m + 3 * ids, ids),
		be32(m + 4 * ids), (int32_t)be32(m + 4 * ids + 4) };
}

static void take_trace(struct rd *r, uint64_t body, uint64_t len)
{
	const uint8_t *m = r->h->map + body;
	struct scan *s = r->s;

	if (len < 12)
		return;
	uint64_t nf = be32(m + 8);
	if (nf > (len - 12) / r->ids)
		nf = (len - 12) / r->ids;
	VEC_GROW(s->trace, s->ntrace, s->captrace);
	s->trace[s->ntrace++] = (struct raw_trace){ be32(m), be32(m + 4), body + 12, (uint32_t)nf };
}

static void scan_records(struct rd *r, uint64_t pos)
{
	struct heap *h = r->h;
	const uint8_t *m = h->map;
	int heap_seen = 0, open_segment = 0; /* a segment not yet ended by HEAP DUMP END */

	while (pos < h->size) {
		if (h->size - pos < 9) {
			warn_add(&h->warn, "%s: offset %llu: truncated record header (%llu bytes left)",
				 h->path, (unsigned long long)pos, (unsigned long long)(h->size - pos));
			h->truncated_at = h->size;
			break;
		}
		unsigned tag = m[pos];
		uint64_t len = be32(m + pos + 5), body = pos + 9;
		int heap = tag == TAG_HEAP_DUMP || tag == TAG_HEAP_DUMP_SEGMENT;
		if (!known_tag(tag) && len <= h->size - body &&
		    (body + len == h->size || records_from(h, body + len))) {
			/* a tag the format does not define, records in good
			 * order after it: skipped by its length, said; what
			 * was it, a heap segment whose tag is damaged? */
			warn_add(&h->warn, "%s: offset %llu: a record of tag 0x%02x, which HPROF does not define, "
				 "skipped (%llu bytes)", h->path, (unsigned long long)pos, tag, (unsigned long long)len);
			lost(r, pos);
			goto next;
		}
		if (!known_tag(tag) || len > h->size - body) {
			/* a damaged tag or length, or a file cut short: where
			 * records go on in good order after it, the record is
			 * damaged (a heap's sub-records read as far as they go) */
			uint64_t stop = heap ? scan_segment(r, body, h->size, 1) : body;
			uint64_t q = !heap ? resync(r, body, body + RESYNC_WINDOW)
				   : stop < h->size && records_from(h, stop) ? stop : 0;
			if (heap) {
				r->s->heap_bytes += stop - body;
				heap_seen = 1;
				open_segment = tag == TAG_HEAP_DUMP_SEGMENT;
			}
			if (q != 0) {
				/* a name's record lost loses no object (nor a
				 * heap's, read up to q); one of a tag unknown
				 * (what was it?) may have */
				if (!known_tag(tag))
					lost(r, pos);
				warn_add(&h->warn, "%s: offset %llu: record (tag 0x%02x) of length %llu is damaged: "
					 "records go on in good order at offset %llu; %s", h->path,
					 (unsigned long long)pos, tag, (unsigned long long)len, (unsigned long long)q,
					 heap ? "its objects read up to there" : "what lies between skipped");
				pos = q;
				hash_upto(r, pos);
				continue;
			}
			if (!known_tag(tag) && len <= h->size - body) { /* no better guess */
				warn_add(&h->warn, "%s: offset %llu: a record of tag 0x%02x, which HPROF does not "
					 "define, skipped (%llu bytes)", h->path, (unsigned long long)pos, tag,
					 (unsigned long long)len);
				lost(r, pos);
				goto next;
			}
			warn_add(&h->warn, "%s: offset %llu: record (tag 0x%02x) length %llu runs past "
				 "the end of the file (%llu bytes left); reading what is there",
				 h->path, (unsigned long long)pos, tag, (unsigned long long)len,
				 (unsigned long long)(h->size - body));
			h->truncated_at = h->size;
			if (!known_tag(tag)) {
				len = h->size - body;
				goto next;
			}
			if (heap) { /* read already, as far as its sub-records go */
				if (stop < h->size)
					warn_add(&h->warn, "%s: offset %llu: unknown heap sub-record tag 0x%02x; "
						 "skipping the rest of the file (%llu bytes)", h->path,
						 (unsigned long long)stop, m[stop], (unsigned long long)(h->size - stop));
				pos = h->size;
				hash_upto(r, pos);
				continue;
			}
			len = h->size - body;
		}
		switch (tag) {
		case TAG_UTF8: take_utf8(r, body, len); break;
		case TAG_LOAD_CLASS: take_load_class(r, body, len); break;
		case TAG_FRAME: take_frame(r, body, len); break;
		case TAG_TRACE: take_trace(r, body, len); break;
		case TAG_HEAP_DUMP: case TAG_HEAP_DUMP_SEGMENT:
			r->s->heap_bytes += len;
			scan_segment(r, body, body + len, 0);
			heap_seen = 1;
			if (len > 0) /* an empty one carries nothing to miss */
				open_segment = tag == TAG_HEAP_DUMP_SEGMENT;
			break;
		case TAG_HEAP_DUMP_END:
			open_segment = 0;
			break;
		default: /* UNLOAD_CLASS, HEAP_SUMMARY, threads, CPU samples...: skipped */
			break;
		}
next:
		pos = body + len;
		hash_upto(r, pos);
		progress_update(r->p, pos);
	}
	int cut = h->truncated_at != 0; /* the file ends inside a record */
	if (h->truncated_at == 0 && r->lost_at != 0)
		h->truncated_at = r->lost_at;
	/* a file cut between two records reads whole: what says it is not
	 * is the heap's end missing (the JDK's and Android's dumpers end
	 * their segments with HEAP DUMP END), or the heap itself */
	if (h->truncated_at == 0 && (open_segment || !heap_seen)) {
		warn_add(&h->warn, "%s: offset %llu: the file ends %s; what followed is missing", h->path,
			 (unsigned long long)h->size,
			 open_segment ? "after a heap dump segment without HEAP DUMP END" : "before any heap dump record");
		h->truncated_at = h->size;
	} else if (cut && !heap_seen) { /* cut short in what comes before the heap (names, classes) */
		warn_add(&h->warn, "%s: offset %llu: the file is cut short before any heap dump record: no object "
			 "in it", h->path, (unsigned long long)h->truncated_at);
	}
}

/* Each root tag's kind; JVM users know the names. */
const struct root_native hprof_root_natives[HPN_COUNT] = {
	[HPN_UNKNOWN] = { "unknown", RK_UNKNOWN, 0 },
	[HPN_JNI_GLOBAL] = { "JNI global", RK_GLOBAL_HANDLE, 0 },
	[HPN_JNI_LOCAL] = { "JNI local", RK_LOCAL_HANDLE, 1 },
	[HPN_JAVA_FRAME] = { "Java frame", RK_STACK, 1 },
	[HPN_NATIVE_STACK] = { "native stack", RK_STACK, 1 },
	[HPN_STICKY_CLASS] = { "system class", RK_STATICS, 0 },
	[HPN_THREAD_BLOCK] = { "thread block", RK_STACK, 1 },
	[HPN_MONITOR_USED] = { "busy monitor", RK_MONITOR, 0 },
	[HPN_THREAD_OBJ] = { "thread", RK_THREAD, 1 },
	[HPN_INTERNED_STRING] = { "interned string", RK_INTERNED, 0 },
	[HPN_FINALIZING] = { "finalizing", RK_FINALIZER, 0 },
	[HPN_DEBUGGER] = { "debugger", RK_DEBUGGER, 0 },
	[HPN_REFERENCE_CLEANUP] = { "reference cleanup", RK_FINALIZER, 0 },
	[HPN_VM_INTERNAL] = { "VM internal", RK_VM_INTERNAL, 0 },
	[HPN_JNI_MONITOR] = { "JNI monitor", RK_MONITOR, 1 },
	[HPN_UNREACHABLE] = { "unreachable (Android)", RK_OTHER, 0 },
};

int hprof_parse(struct heap *h, struct progress *p, struct sbuf *err)
{
	struct scan s = { 0 };
	struct rd r = { .h = h, .s = &s, .p = p, .ids = h->layout.idsize };
	uint64_t start = strlen(h->version) + 1 + 4 + 8;

	/* objects run 40 bytes or more: reserve about enough, in address
	 * space only (the pages are made as they fill), and grow beyond */
	s.capobj = (size_t)(h->size / 40) + 256;
	s.obj = xreallocarray(NULL, s.capobj, sizeof *s.obj);
	heap_behind_init(h, &r.behind);
	if (!r.behind.on) /* the pass reads every page */
		heap_map_populate(h);
	heap_map_advise(h, MADV_SEQUENTIAL);
	progress_begin(p, "parse", h->size, "MB");
	/* a gzip dump's identity is its compressed bytes */
	r.hashing = h->cache_file != NULL && h->file_map == NULL;
	store_hash_begin(&r.x, 0, h->size);
	scan_records(&r, start);
	hash_upto(&r, h->size);
	if (r.hashing) {
		h->content = store_hash_end(&r.x);
		h->content_known = 1;
	}
	progress_end(p);
	heap_map_advise(h, r.behind.on ? MADV_DONTNEED : MADV_RANDOM);
	/* a valid header is enough: what follows opens as far as it is valid,
	 * possibly as an empty heap, and the warnings say what was wrong */
	return build_heap(h, &s, p, err);
}

static uint64_t hprof_node_id(const struct heap *h, node_t v)
{
	return hprof_rec_id(hprof_node_rec(h, v), h->layout.idsize);
}

static int hprof_array_data_op(const struct heap *h, node_t v, struct harray *a)
{
	return hprof_array_data(h, v, a);
}

static const uint8_t *hprof_inst_data_op(const struct heap *h, node_t v, uint32_t *len)
{
	return hprof_inst_data(h, v, len);
}

static uint32_t hprof_alloc_trace(const struct heap *h, node_t v)
{
	return hprof_node_trace(h, v);
}

const struct format_ops hprof_format = {
	.name = "hprof",
	.title = "HPROF",
	.label = "HPROF (jcmd, HotSpot, OpenJ9, Android)",
	.facts = FF_LAYOUT | FF_AGENT_IDS | FF_LOADERS | FF_SUPERS,
	.runtime = "jvm",
	.rt = &jvm_runtime,
	.cacheable = 1,
	.needs = HP_OFF | HP_CLASS | HP_KIND | HP_IDS,
	.probe = hprof_probe,
	.header = hprof_header,
	.parse = hprof_parse,
	.nodes_valid = hprof_nodes_valid,
	.node_id = hprof_node_id,
	.fields = hprof_fields,
	.array_length = hprof_array_length,
	.array_elem = hprof_array_elem,
	.array_data = hprof_array_data_op,
	.inst_data = hprof_inst_data_op,
	.string_value = hprof_string_value,
	.edge_label = hprof_edge_label,
	.alloc_trace = hprof_alloc_trace,
	.alloc_hint = "snapshots taken with the agent's sample:BYTES option have them",
	.alloc_times = hprof_alloc_times,
	.time_hint = "snapshots taken with the agent's sample:BYTES option have one for each object "
		     "the sampling picked",
	.root_natives = hprof_root_natives,
	.nroot_natives = HPN_COUNT,
	.may_grow = heap_never_grows,
};
