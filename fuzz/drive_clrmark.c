/* drive_clrmark.c — the .NET mark fuzzer's body (drive.h): the replay of
 * a mark (format/clr_mark.h) over three streams the input holds, the
 * mark's heap, the recorder's stream and the snapshot, then the mark file
 * it wrote (with the input's patch laid over it) read as heapwalk reads
 * it beside the snapshot: the marked snapshot's new and old, and the
 * mark's heap as its baseline. */
#include "drive.h"

#include <stdlib.h>
#include <string.h>

#include "engine/open.h"
#include "format/clr.h"
#include "format/clr_mark.h"
#include "graph/open.h"
#include "query/baseline.h"

/* The input's parts, between the separators of drive.h. */
struct parts {
	const uint8_t *mark, *rec, *snap, *patch;
	size_t nmark, nrec, nsnap, npatch;
	uint32_t mark_gc, gc;
};

/* The part from p up to sep (or the end when sep is NULL): its length;
 * *next after sep; -1 without sep. */
static long part(const uint8_t *p, const uint8_t *end, const char *sep, const uint8_t **next)
{
	if (sep == NULL) {
		*next = end;
		return end - p;
	}
	const uint8_t *at = memmem(p, (size_t)(end - p), sep, strlen(sep));
	if (at == NULL)
		return -1;
	*next = at + strlen(sep);
	return at - p;
}

static int split(const uint8_t *data, size_t len, struct parts *pt)
{
	if (len < 2)
		return -1;
	const uint8_t *p = data + 2, *end = data + len, *next;
	long n;

	memset(pt, 0, sizeof *pt);
	pt->mark_gc = data[0];
	if (data[0] == 0) { /* a GC count past a byte */
		if (len < 6)
			return -1;
		pt->mark_gc = (uint32_t)data[2] | (uint32_t)data[3] << 8 | (uint32_t)data[4] << 16 | (uint32_t)data[5] << 24;
		p += 4;
	}
	pt->gc = pt->mark_gc + data[1];
	if ((n = part(p, end, FUZZ_CLRMARK_REC, &next)) < 0)
		return -1;
	pt->mark = p, pt->nmark = (size_t)n, p = next;
	if ((n = part(p, end, FUZZ_CLRMARK_SNAP, &next)) < 0)
		return -1;
	pt->rec = n > 0 ? p : NULL, pt->nrec = (size_t)n, p = next;
	const uint8_t *patch = memmem(p, (size_t)(end - p), FUZZ_CLRMARK_PATCH, strlen(FUZZ_CLRMARK_PATCH));
	n = part(p, end, patch != NULL ? FUZZ_CLRMARK_PATCH : NULL, &next);
	pt->snap = p, pt->nsnap = (size_t)n;
	if (patch != NULL)
		pt->patch = next, pt->npatch = (size_t)(end - next);
	if (format_find(pt->mark, pt->nmark) != &clr_format || format_find(pt->snap, pt->nsnap) != &clr_format)
		return -1;
	return 0;
}

/* The patch laid over the mark file: its first 4 bytes the offset, the
 * rest XORed in from there (wrapping). */
static void lay_patch(struct sbuf *f, const struct parts *pt)
{
	if (pt->npatch < 5 || f->len == 0)
		return;
	uint32_t off;
	memcpy(&off, pt->patch, 4);
	for (size_t i = 4; i < pt->npatch; i++)
		((uint8_t *)f->buf)[(off + i - 4) % f->len] ^= pt->patch[i];
}

/* The marked snapshot: its mark as new and old, within the heap. */
static void marked(struct heap *h)
{
	struct baseline b;
	struct sbuf err;

	sbuf_init(&err);
	if (baseline_from_mark(h, &b, &err) == 0) {
		if (b.fresh.count > (uint64_t)h->n - 1 || b.nold + b.fresh.count != (uint64_t)h->n - 1)
			fuzz_finding("mark: new %llu + old %llu of %llu objects", (unsigned long long)b.fresh.count,
				     (unsigned long long)b.nold, (unsigned long long)h->n - 1);
		baseline_free(&b);
	} else if (err.len == 0 || strchr(err.buf, '\n') != NULL) {
		fuzz_finding("mark refused without one line: '%s'", err.buf ? err.buf : "");
	}
	sbuf_free(&err);
}

/* The mark's heap as the snapshot's baseline (the mark file pairs them). */
static void against_mark(struct heap *h, const char *mark_path)
{
	struct heap old;
	struct baseline b;
	struct sbuf err;

	if (fuzz_open(&old, mark_path, 1) < 0)
		return;
	sbuf_init(&err);
	heap_need(h, HP_NODES | HP_OUT | HP_IN, NULL);
	heap_need(&old, HP_NODES | HP_OUT | HP_IN, NULL);
	if (baseline_compare(h, &old, &b, NULL, &err) == 0) {
		if (b.fresh.count + b.nold + b.unknown.count != (uint64_t)h->n - 1 ||
		    b.gone.count > (uint64_t)old.n - 1)
			fuzz_finding("mark as baseline: new %llu old %llu unknown %llu of %llu; gone %llu of %llu",
				     (unsigned long long)b.fresh.count, (unsigned long long)b.nold,
				     (unsigned long long)b.unknown.count, (unsigned long long)h->n - 1,
				     (unsigned long long)b.gone.count, (unsigned long long)old.n - 1);
		baseline_free(&b);
	}
	sbuf_free(&err);
	heap_free(&old);
}

int fuzz_clrmark(const uint8_t *data, size_t len)
{
	struct parts pt;

	if (split(data, len, &pt) < 0)
		return -1;
	struct clr_mark_in in = { pt.mark, pt.nmark, pt.rec, pt.nrec, pt.snap, pt.nsnap, pt.mark_gc, pt.gc, NULL };
	struct sbuf out, said, err;
	sbuf_init(&out);
	sbuf_init(&said);
	sbuf_init(&err);
	int rc = clr_mark_replay(&in, &out, &said, &err);
	if (rc < 0 && (err.len == 0 || strchr(err.buf, '\n') != NULL))
		fuzz_finding("replay refused without one line: '%s'", err.buf ? err.buf : "");
	if (rc == 0) {
		char *snap = xasprintf("%s/snap.nettrace", fuzz_dir());
		char *markf = xasprintf("%s/snap.nettrace%s", fuzz_dir(), CLR_MARK_SUFFIX);
		char *mark = xasprintf("%s/mark.nettrace", fuzz_dir());
		lay_patch(&out, &pt);
		fuzz_put_file(snap, pt.snap, pt.nsnap);
		fuzz_put_file(markf, out.buf, out.len);
		fuzz_put_file(mark, pt.mark, pt.nmark);
		struct heap h;
		if (fuzz_open(&h, snap, 1) == 0) {
			marked(&h);
			against_mark(&h, mark);
			heap_free(&h);
		}
		free(snap);
		free(markf);
		free(mark);
	}
	sbuf_free(&out);
	sbuf_free(&said);
	sbuf_free(&err);
	return 0;
}
