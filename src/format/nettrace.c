/* nettrace.c — EventPipe's nettrace stream read into events (nettrace.h).
 *
 * Layout (V4/V5, what the runtime writes; little-endian throughout):
 * "Nettrace", int32 20, "!FastSerialization.1"; then objects, each
 * 05 05 01 int32 version, int32 min version, int32 name length, name,
 * 06, payload, 06 — the Trace object's payload is 48 fixed bytes, a
 * block's an int32 size, zeros to a 4-byte file offset and that many
 * bytes; a lone 01 ends the stream. Event and metadata blocks hold a
 * header (its size first) and events whose headers are compressed:
 * a flags byte says which fields follow (LEB128 numbers), the others
 * carry over from the block's previous event. A metadata event's
 * payload defines an id: provider, event id, version. */
#include "format/nettrace.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC "Nettrace"
#define SERIALIZER "!FastSerialization.1"
#define TAG_NULL 1
#define TAG_BEGIN_PRIVATE 5
#define TAG_END 6
#define TRACE_BYTES 48
/* The smallest metadata event: a compressed header (flags, id, time,
 * size: a byte each) and a payload of its id, an empty provider and
 * event name, an event id, keywords and a version. The runtime numbers
 * its metadata from 1: no id is past the number of these the file has
 * room for, which bounds the table by id by the file's size. */
#define META_EVENT_MIN (4 + 4 + 2 + 4 + 2 + 12)

struct meta {
	uint32_t id, version;
	uint8_t known, runtime, rundown;
};

struct rd {
	const uint8_t *b;
	uint64_t size;
	const char *path;
	struct warnings *w;
	struct meta *meta; /* by metadata id */
	uint64_t nmeta;
	nt_event_fn fn;
	void *arg;
	int stopped;
	uint64_t undefined, undefined_at; /* events of no metadata: how many, the first's offset */
};

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

int nt_probe(const uint8_t *head, size_t n)
{
	return head != NULL && n >= 8 && memcmp(head, MAGIC, 8) == 0;
}

/* An unsigned LEB128 number at *p (< end) of at most max bits: 0, or
 * -1 if it runs past end or is too long (past the bytes max bits take,
 * and never a shift past 63: ten bytes at most). */
static int varuint(const uint8_t **p, const uint8_t *end, unsigned max, uint64_t *v)
{
	uint64_t x = 0;

	for (unsigned sh = 0; sh < max + 7 && sh < 64; sh += 7) {
		if (*p >= end)
			return -1;
		uint8_t c = *(*p)++;
		x |= (uint64_t)(c & 0x7f) << sh;
		if (!(c & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

/* A NUL-terminated UTF-16 string at *p (< end): its end past the NUL,
 * or NULL if it runs past end. Equal to the ASCII `want`? in *eq. */
static const uint8_t *utf16_end(const uint8_t *p, const uint8_t *end, const char *want, int *eq)
{
	size_t i = 0;

	*eq = 1;
	for (; p + 1 < end; p += 2, i++) {
		uint16_t c = (uint16_t)(p[0] | p[1] << 8);
		if (c == 0) {
			*eq = *eq && want[i] == '\0';
			return p + 2;
		}
		if (*eq && (want[i] == '\0' || (uint8_t)want[i] != c))
			*eq = 0;
	}
	return NULL;
}

/* A metadata event's payload: the id it defines, and which event. */
static void define(struct rd *r, const uint8_t *p, uint32_t len, uint64_t at)
{
	const uint8_t *end = p + len;
	int runtime, rundown, ignored;

	if (len < 4)
		goto bad;
	uint32_t id = le32(p);
	if (utf16_end(p + 4, end, NT_RUNDOWN_PROVIDER, &rundown) == NULL)
		goto bad;
	p = utf16_end(p + 4, end, NT_RUNTIME_PROVIDER, &runtime);
	if (p == NULL || end - p < 4)
		goto bad;
	uint32_t ev = le32(p);
	p = utf16_end(p + 4, end, "", &ignored); /* the event's name: empty for the runtime's own */
	if (p == NULL || end - p < 12)
		goto bad;
	uint32_t version = le32(p + 8);
	if (id == 0)
		goto bad;
	uint64_t most = r->size / META_EVENT_MIN;
	if (id > most) {
		warn_add(r->w, "%s: offset %llu: metadata id %u, past the %llu metadata events the file has room for; "
			 "skipped", r->path, (unsigned long long)at, id, (unsigned long long)most);
		return;
	}
	if (id >= r->nmeta) {
		uint64_t n = r->nmeta ? r->nmeta : 64;
		while (n <= id)
			n *= 2;
		n = n < most + 1 ? n : most + 1;
		r->meta = xreallocarray(r->meta, (size_t)n, sizeof *r->meta);
		memset(r->meta + r->nmeta, 0, (size_t)(n - r->nmeta) * sizeof *r->meta);
		r->nmeta = n;
	}
	r->meta[id] = (struct meta){ ev, version, 1, (uint8_t)runtime, (uint8_t)rundown };
	return;
bad:
	warn_add(r->w, "%s: offset %llu: metadata event that does not define an event; skipped", r->path,
		 (unsigned long long)at);
}

/* The events of an event or metadata block's content b[0..len), at file
 * offset at. 0, or -1 where it cannot be read on. */
static int events(struct rd *r, const uint8_t *b, uint32_t len, uint64_t at, int is_meta)
{
	const uint8_t *p = b, *end = b + len;

	if (len < 20 || (b[0] | b[1] << 8) < 20 || (uint32_t)(b[0] | b[1] << 8) > len) {
		warn_add(r->w, "%s: offset %llu: block header too short", r->path, (unsigned long long)at);
		return -1;
	}
	int compressed = (b[2] | b[3] << 8) & 1;
	p += b[0] | b[1] << 8;
	uint64_t meta_id = 0, seq = 0, cthread = 0, proc = 0, thread = 0, stack = 0, ts = 0, plen = 0;
	while (p < end) {
		const uint8_t *ev = p;
		if (compressed) {
			uint8_t f = *p++;
			if ((f & 0x01) && varuint(&p, end, 32, &meta_id) < 0)
				goto bad;
			if (f & 0x02) {
				uint64_t d;
				if (varuint(&p, end, 32, &d) < 0 || varuint(&p, end, 64, &cthread) < 0 ||
				    varuint(&p, end, 32, &proc) < 0)
					goto bad;
				seq = (seq + d + 1) & 0xffffffffu;
			} else if (meta_id != 0) {
				seq = (seq + 1) & 0xffffffffu;
			}
			uint64_t d;
			if (((f & 0x04) && varuint(&p, end, 64, &thread) < 0) ||
			    ((f & 0x08) && varuint(&p, end, 32, &stack) < 0) || varuint(&p, end, 64, &d) < 0)
				goto bad;
			ts += d;
			/* the activity ids: checked before stepping, so that p
			 * never points past the block (undefined in C) */
			size_t ids = 16 * (size_t)(((f & 0x10) != 0) + ((f & 0x20) != 0));
			if ((size_t)(end - p) < ids)
				goto bad;
			p += ids;
			if ((f & 0x80) && varuint(&p, end, 32, &plen) < 0)
				goto bad;
		} else { /* the uncompressed header: 80 bytes, padded after the payload */
			if (end - p < 80)
				goto bad;
			uint32_t size = le32(p);
			meta_id = le32(p + 4) & 0x7fffffffu;
			seq = le32(p + 8);
			thread = le64(p + 12);
			cthread = le64(p + 20);
			ts = le64(p + 36);
			plen = le32(p + 76);
			if (size < 76 || plen > size - 76 || (uint64_t)(end - p) < 4 + (uint64_t)size)
				goto bad;
			p += 80;
		}
		if ((uint64_t)(end - p) < plen)
			goto bad;
		uint64_t pat = at + (uint64_t)(p - b);
		if (is_meta) {
			define(r, p, (uint32_t)plen, pat);
		} else if (meta_id < r->nmeta && r->meta[meta_id].known) {
			const struct meta *m = &r->meta[meta_id];
			struct nt_event e = { m->runtime, m->rundown, m->id, m->version, ts, thread, p, (uint32_t)plen, pat,
					      (uint32_t)seq, cthread };
			if (r->fn(r->arg, &e) != 0) {
				r->stopped = 1;
				return -1;
			}
		} else {
			if (r->undefined++ == 0)
				r->undefined_at = at + (uint64_t)(ev - b);
			warn_add(r->w, "%s: offset %llu: event of undefined metadata id %llu; skipped", r->path,
				 (unsigned long long)(at + (uint64_t)(ev - b)), (unsigned long long)meta_id);
		}
		p += plen;
		if (!compressed) /* to a 4-byte file offset */
			while (p < end && ((at + (uint64_t)(p - b)) & 3) != 0)
				p++;
	}
	return 0;
bad:
	warn_add(r->w, "%s: offset %llu: event header or payload past its block; the block's rest skipped",
		 r->path, (unsigned long long)(at + (uint64_t)(p > end ? len : (uint64_t)(p - b))));
	return 0;
}

/* The object header at *pos: its type name into name (cut to max). 0,
 * or -1 with *why (a file cut short says so, not that what is there is
 * damaged). */
static int object_begin(const struct rd *r, uint64_t *pos, char *name, size_t max, const char **why)
{
	uint64_t at = *pos, have = r->size - at;
	static const uint8_t tags[3] = { TAG_BEGIN_PRIVATE, TAG_BEGIN_PRIVATE, TAG_NULL };

	if (memcmp(r->b + at, tags, have < 3 ? (size_t)have : 3) != 0) {
		*why = "not an object (tags 05 05 01 expected)";
		return -1;
	}
	if (have < 3 + 12) {
		*why = "the file ends inside an object's header (cut short)";
		return -1;
	}
	uint32_t n = le32(r->b + at + 11);
	if (n <= 64 && have - 15 < (uint64_t)n + 1) {
		*why = "the file ends inside an object's type name (cut short)";
		return -1;
	}
	if (n > 64 || r->b[at + 15 + n] != TAG_END) {
		*why = "an object's type name is damaged";
		return -1;
	}
	size_t k = n < max - 1 ? n : max - 1;
	memcpy(name, r->b + at + 15, k);
	name[k] = '\0';
	*pos = at + 15 + n + 1;
	return 0;
}

/* The reading ends early at offset at, for the reason fmt says: the
 * warning (that the rest is not read, when there is a rest), and the
 * reason kept in t (nettrace.h). */
static void stop(const struct rd *r, struct nt_trace *t, uint64_t at, int rest, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void stop(const struct rd *r, struct nt_trace *t, uint64_t at, int rest, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->stop_why, sizeof t->stop_why, fmt, ap);
	va_end(ap);
	t->stop_at = at;
	warn_add(r->w, "%s: offset %llu: %s%s", r->path, (unsigned long long)at, t->stop_why,
		 rest ? "; the rest is not read" : "");
}

/* The objects after the Trace object, from pos: blocks, until the end
 * mark, the file's end or damage. */
static void blocks(struct rd *r, struct nt_trace *t, uint64_t pos)
{
	const uint8_t *map = r->b;
	uint64_t size = r->size;
	char name[72];
	const char *why;

	for (;;) {
		if (pos >= size) {
			stop(r, t, pos, 0, "the stream ends without its end mark (cut short)");
			return;
		}
		if (map[pos] == TAG_NULL) /* the end */
			return;
		uint64_t at = pos;
		if (object_begin(r, &pos, name, sizeof name, &why) < 0) {
			stop(r, t, at, 1, "%s", why);
			return;
		}
		if (size - pos < 4) {
			stop(r, t, pos, 0, "a block cut short");
			return;
		}
		uint64_t size_at = pos;
		uint32_t len = le32(map + pos);
		pos += 4;
		while (pos < size && (pos & 3) != 0)
			pos++;
		/* the size at fault, and the block it is of: a damaged size
		 * and a file cut short inside the block look the same */
		if (size - pos < (uint64_t)len + 1) {
			stop(r, t, size_at, 1, "%s (at offset %llu) of %u bytes, past the end of the file (%llu bytes left)",
			     name, (unsigned long long)at, len, (unsigned long long)(size - pos));
			return;
		}
		if (map[pos + len] != TAG_END) {
			stop(r, t, pos + len, 1, "%s (at offset %llu) of %u bytes does not end with its end tag (06)", name,
			     (unsigned long long)at, len);
			return;
		}
		int is_meta = strcmp(name, "MetadataBlock") == 0;
		if ((is_meta || strcmp(name, "EventBlock") == 0) && events(r, map + pos, len, pos, is_meta) < 0 &&
		    r->stopped)
			return;
		pos += (uint64_t)len + 1; /* stack and sequence-point blocks: nothing wanted */
	}
}

int nt_read(const char *path, const uint8_t *map, uint64_t size, struct nt_trace *t, nt_event_fn fn,
	    void *arg, struct warnings *w, struct sbuf *err)
{
	struct rd r = { map, size, path, w, NULL, 0, fn, arg, 0, 0, 0 };
	uint64_t pos = 8 + 4 + 20;
	char name[72];
	const char *why = NULL;
	char *ep = esc_str(path);
	int rc = -1;

	memset(t, 0, sizeof *t);
	if (size < pos || !nt_probe(map, size) || le32(map + 8) != 20 || memcmp(map + 12, SERIALIZER, 20) != 0) {
		sbuf_printf(err, "%s: offset 0: not a nettrace stream (no \"Nettrace\" and FastSerialization header)",
			    ep);
		goto done;
	}
	if (object_begin(&r, &pos, name, sizeof name, &why) == 0 && strcmp(name, "Trace") == 0 &&
	    size - pos < TRACE_BYTES + 1)
		why = "the file ends inside the Trace object (cut short)";
	if (why != NULL || strcmp(name, "Trace") != 0 || map[pos + TRACE_BYTES] != TAG_END) {
		sbuf_printf(err, "%s: offset %llu: %s", ep, (unsigned long long)pos,
			    why ? why : "no Trace object where the stream starts");
		goto done;
	}
	const uint8_t *tr = map + pos;
	t->year = (uint16_t)(tr[0] | tr[1] << 8);
	t->month = (uint16_t)(tr[2] | tr[3] << 8);
	t->day = (uint16_t)(tr[6] | tr[7] << 8);
	t->hour = (uint16_t)(tr[8] | tr[9] << 8);
	t->minute = (uint16_t)(tr[10] | tr[11] << 8);
	t->second = (uint16_t)(tr[12] | tr[13] << 8);
	t->millisecond = (uint16_t)(tr[14] | tr[15] << 8);
	t->sync_qpc = le64(tr + 16);
	t->qpc_freq = le64(tr + 24);
	t->pointer_size = le32(tr + 32);
	t->pid = le32(tr + 36);
	if (t->pointer_size != 4 && t->pointer_size != 8) {
		sbuf_printf(err, "%s: offset %llu: pointer size %u (4 or 8 expected)", ep,
			    (unsigned long long)(pos + 32), t->pointer_size);
		goto done;
	}
	pos += TRACE_BYTES + 1;
	rc = 0;
	blocks(&r, t, pos);
	t->undefined = r.undefined;
	t->undefined_at = r.undefined_at;
	if (r.stopped) {
		sbuf_printf(err, "%s: stopped", ep);
		rc = -1;
	}
done:
	free(r.meta);
	free(ep);
	return rc;
}
