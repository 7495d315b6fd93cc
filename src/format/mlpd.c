/* mlpd.c — Mono's log-profiler files (.mlpd, `mono --profile=log:heapshot`)
 * into the heap model: every heapshot in the file is listed, one of them
 * (the last by default) is read.
 *
 * The file is a header, then buffers of one thread's events each (a
 * 48-byte header: length, time, pointer and object bases, thread). An
 * event is a byte (type in the low 4 bits, subtype in the high 4), a
 * ULEB128 time delta, then its fields; there is no length, so every
 * event of the file's data format (13 to 17) is decoded to find the
 * next, and one that is not understood ends its buffer (a warning).
 *
 * A heapshot is HEAP_START .. HEAP_END on the collecting thread, with
 * one HEAP_OBJECT per object (address, vtable or class, size, the
 * generation since format 16, and its references as (offset, object)
 * pairs; an object of more than 128 references continues in records of
 * size 0) and HEAP_ROOT records (the root's slot address and object;
 * the slot's kind is that of the registered root range it lies in).
 * Names come from the metadata events: a heap object's vtable names its
 * class (format 15 on; before, the class itself), and the class its
 * name; such events can come later in the file than the heap events
 * that use them, so names are resolved after reading everything.
 *
 * What an object was at an earlier heapshot (identity below) is told by
 * replaying the GC's MOVE events between the two. */
#include "format/mlpd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "graph/analysis.h"
#include "graph/builder.h"
#include "graph/cache.h"
#include "graph/classes.h"
#include "graph/reader.h"
#include "runtime/clr.h"

#define HEADER_ID 0x4D505A01u
#define BUF_ID 0x4D504C01u
#define BUF_HEAD 48
enum { T_ALLOC, T_GC, T_METADATA, T_METHOD, T_EXCEPTION, T_MONITOR, T_HEAP, T_SAMPLE, T_RUNTIME,
       T_COVERAGE, T_META };
/* metadata kinds */
enum { MD_CLASS = 1, MD_IMAGE, MD_ASSEMBLY, MD_DOMAIN, MD_THREAD, MD_CONTEXT, MD_VTABLE };
/* The reader's own root kinds (struct root's native): sgen's root
 * sources (MonoGCRootSource), then the slots no registered range holds */
enum { MR_EXTERNAL, MR_STACK, MR_FINALIZER, MR_GC_HANDLE = 6, MR_NSOURCES = 17, MR_UNREGISTERED = MR_NSOURCES,
       MR_COUNT };
static const struct root_native mlpd_root_natives[MR_COUNT] = {
	{ "external", RK_NATIVE, 0 },        /* registered by the embedder */
	{ "stack", RK_STACK, 0 },
	{ "finalizer queue", RK_FINALIZER, 0 },
	{ "static", RK_STATICS, 0 },
	{ "thread static", RK_STATICS, 0 },
	{ "context static", RK_STATICS, 0 },
	{ "GC handle", RK_GLOBAL_HANDLE, 0 },
	{ "JIT", RK_VM_INTERNAL, 0 },
	{ "threading", RK_VM_INTERNAL, 0 },
	{ "domain", RK_VM_INTERNAL, 0 },
	{ "reflection", RK_VM_INTERNAL, 0 },
	{ "marshal", RK_VM_INTERNAL, 0 },
	{ "thread pool", RK_VM_INTERNAL, 0 },
	{ "debugger", RK_DEBUGGER, 0 },
	{ "handle", RK_LOCAL_HANDLE, 0 },    /* a thread's handle stack (coop handles) */
	{ "ephemeron", RK_OTHER, 0 },        /* a value kept while its key lives */
	{ "toggle ref", RK_NATIVE, 0 },      /* strong while native code holds the object */
	/* in no registered range: sgen's conservative stack scan or a pin, the file does not say */
	{ "unregistered (stack or pinned)", RK_OTHER, 0 },
};
/* MonoArray's header: vtable, sync, bounds, length */
#define ARRAY_HEADER_WORDS 4

static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* ---- decoding ---- */

/* A cursor over one buffer's events; bad once anything overran (BAD_END:
 * a count or length the buffer does not hold) or was not understood. */
enum { BAD_EVENT = 1, BAD_END };
struct cur {
	const uint8_t *p, *end;
	int bad;
};

static uint64_t uleb_slow(struct cur *c)
{
	uint64_t v = 0;

	for (unsigned shift = 0; c->p < c->end; shift += 7) {
		uint8_t b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
		if (shift > 63) /* longer than any 64-bit value */
			break;
	}
	c->bad = c->p < c->end ? BAD_EVENT : BAD_END;
	return 0;
}

static inline uint64_t uleb(struct cur *c)
{
	if (c->p < c->end && *c->p < 0x80) /* most are one byte */
		return *c->p++;
	return uleb_slow(c);
}

static int64_t sleb_slow(struct cur *c)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (c->p < c->end) {
		uint8_t b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= ~(uint64_t)0 << shift;
			return (int64_t)v;
		}
		if (shift > 70)
			break;
	}
	c->bad = c->p < c->end ? BAD_EVENT : BAD_END;
	return 0;
}

static inline int64_t sleb(struct cur *c)
{
	if (c->p < c->end && *c->p < 0x80) { /* one byte: bit 6 is the sign */
		uint8_t b = *c->p++;
		return b & 0x40 ? (int64_t)b - 0x80 : (int64_t)b;
	}
	return sleb_slow(c);
}

static unsigned byte1(struct cur *c)
{
	if (c->p < c->end)
		return *c->p++;
	c->bad = BAD_END;
	return 0;
}

/* A NUL-terminated string inside the buffer, NULL (and bad) if none. */
static const char *str(struct cur *c, size_t *len)
{
	const uint8_t *z = c->p < c->end ? memchr(c->p, 0, (size_t)(c->end - c->p)) : NULL;

	if (z == NULL) {
		c->bad = BAD_END;
		c->p = c->end;
		return NULL;
	}
	const char *s = (const char *)c->p;
	if (len != NULL)
		*len = (size_t)(z - c->p);
	c->p = z + 1;
	return s;
}

static void backtrace(struct cur *c)
{
	for (uint64_t n = uleb(c); n > 0 && !c->bad; n--)
		sleb(c);
}

/* ---- what reading gathers ---- */

/* a heapshot's object as kept: its vtable numbered (capture's vts), its
 * references the next nrefs of those kept, after the objects' before it */
struct mobj { uint64_t addr; uint32_t vt, size, nrefs; uint8_t gen; };
/* an object's gen byte when the file ends before it (format 16); as
 * node_gen, MLPD_GEN_UNKNOWN: in neither generation (mlpd_gen_name
 * names 0 and 1 alone) */
#define GEN_UNTOLD 0xff
#define MLPD_GEN_UNKNOWN 2
struct mextra { uint64_t src, target; uint32_t off; }; /* a continuation not next to its object */
struct mroot { uint64_t slot, obj; uint16_t kind; }; /* kind: format 13's native + 1, else 0 (by range) */
struct mptr { uint64_t ptr, val; };                     /* class -> name, vtable -> class */
/* a root range; below: the open one of its start registered before it,
 * or NO_REG (an unregistration closes the latest open one of a start) */
struct mreg { uint64_t start, size, t_reg, t_unreg; size_t below; uint32_t desc; uint8_t source; };
struct mthread { uint64_t tid; int64_t shot; };
/* a heapshot: its times, totals, where its thread's buffers are and
 * where it starts (how the second pass knows it in its buffer) */
struct mshot { uint64_t t_start, t_end, objects, bytes, refs, tid, buf_first, buf_last, at; int complete; };

/* u64 -> an index, open addressing with linear probing: the threads by
 * id and the open root ranges by start, looked up at every buffer and
 * unregistration (a search of them all made a crafted file of a million
 * quadratic), and identity()'s old objects by address */
#define IMAP_FREE SIZE_MAX    /* an empty slot's value */
#define NO_REG (SIZE_MAX - 1) /* no open root range of that start */
struct imap {
	uint64_t *key;
	size_t *val;
	size_t n, cap;
	unsigned bits; /* cap is 1 << bits */
};

/* One heapshot's objects, references and roots. */
struct capture {
	int64_t shot; /* -1: none */
	struct mobj *o;
	size_t no, co;
	uint64_t *vts;      /* the objects' vtables, numbered (vtix) */
	size_t nvts, cvts;
	struct imap vtix;
	uint64_t last_vt;   /* the last object's, and its number */
	uint32_t last_k;
	uint64_t *tgt;
	uint32_t *off;
	size_t nr, cr;
	/* or, to_file: the references as read, written to the scratch
	 * file (section PARK_REFS: a store takes one section at a time)
	 * rather than held, in blocks of RBLK (blk: their targets' low
	 * halves, high halves, offsets; nb of them so far) */
	struct store_writer w;
	int to_file;
	uint32_t *blk;
	size_t nb;
	struct mextra *x;
	size_t nx, cx;
	struct mroot *r;
	size_t nrt, crt;
};

/* What identity() gathers between two heapshots j < k (0-based): what
 * became of addresses, in time order: the moves, and as moves from a
 * mark no address has (odd; an address is a multiple of 8) the ends of
 * the heapshots after j up to k (to: its objects' range in ends[]), the
 * ends of major collections (MAJOR_SEEN once known to be inside a
 * heapshot's pause) and the allocations (to: the new object's address). */
#define SHOT_END UINT64_MAX
#define MAJOR_SEEN (UINT64_MAX - 2)
#define MAJOR_END (UINT64_MAX - 4)
#define ALLOCATED (UINT64_MAX - 6)
struct mmove { uint64_t t, from, to; };
/* a heapshot's object: where, and what it is (its vtable as numbered in
 * replay.vts, its size as the heap keeps it) */
struct mkind { uint64_t addr; uint32_t vt, size; };
struct mrange { size_t lo, hi, shot; };
struct replay {
	size_t j, k;
	uint64_t t_from, t_to;   /* heapshot j's end, heapshot k's end */
	struct mmove *mv;        /* the events above */
	size_t nmv, cmv;
	struct mrange *ends;     /* heapshots j+1 .. k: their objects, mid[lo, hi) */
	size_t nends, cends;
	struct mrange jr;        /* heapshot j's objects in mid[] */
	size_t ngc;              /* collections started in the window */
	uint64_t second_gc;      /* when the second of them started */
	uint64_t allocs;         /* allocation events in the window */
	struct mkind *mid;       /* the objects of heapshots j .. k, by heapshot */
	struct imap vts;         /* their vtables, numbered */
	size_t nmid, cmid;
	size_t mid0;             /* nmid at the latest heapshot's start */
};

struct mrd {
	struct heap *h;
	struct replay *rp;       /* identity(): no capture, the moves instead */
	int pass2;               /* reading the buffers of one heapshot again, to keep it */
	struct store *park;      /* where its references go as read (NULL: memory) */
	int64_t target;          /* that heapshot */
	uint64_t buf_off;        /* the buffer being read */
	uint64_t ev_off;         /* the event being read */
	const char *stop_why;    /* why the buffers' reading stopped short, at stop_at (NULL: it did not) */
	uint64_t stop_at;
	struct nametab nt;
	unsigned ver;
	uint64_t first_time;  /* the first buffer's time base: the program's start */
	struct mptr *cls, *vt;
	size_t ncls, ccls, nvt, cvt;
	struct mreg *reg;
	size_t nreg, creg;
	struct imap reg_open;    /* start -> its latest open range */
	struct mthread *thr;
	size_t nthr, cthr;
	struct imap thr_ix;      /* thread id -> thr[] */
	struct mshot *shots;
	size_t nshots, cshots;
	struct capture kept;     /* the heapshot read (the second pass) */
	uint64_t moves, bad_bufs;
	uint64_t bad_at;      /* the first event not understood: its file offset + 1 */
	unsigned bad_byte;
	int bad_why;          /* its cur.bad */
	uint64_t big, big_at, big_size; /* objects of 4 GiB or more; the first's offset and size */
};

/* m empty, with room for n keys before it grows */
static void imap_init(struct imap *m, size_t n)
{
	m->bits = 6;
	while (((size_t)1 << m->bits) < 2 * n + 2)
		m->bits++;
	m->cap = (size_t)1 << m->bits;
	m->n = 0;
	m->key = xreallocarray(NULL, m->cap, sizeof *m->key);
	m->val = xreallocarray(NULL, m->cap, sizeof *m->val);
	for (size_t i = 0; i < m->cap; i++)
		m->val[i] = IMAP_FREE;
}

static void imap_free(struct imap *m)
{
	free(m->key);
	free(m->val);
}

static size_t imap_home(const struct imap *m, uint64_t k)
{
	return (size_t)((k * 0x9E3779B97F4A7C15ull) >> (64 - m->bits));
}

/* k's slot in m (cap > 0): where it is, or the empty one it would take */
static size_t imap_slot(const struct imap *m, uint64_t k)
{
	size_t i = imap_home(m, k);

	while (m->val[i] != IMAP_FREE && m->key[i] != k)
		i = (i + 1) & (m->cap - 1);
	return i;
}

/* k's value, or IMAP_FREE */
static size_t imap_get(const struct imap *m, uint64_t k)
{
	return m->cap == 0 ? IMAP_FREE : m->val[imap_slot(m, k)];
}

/* k -> v (v not IMAP_FREE); at most half full, twice the room when not */
static void imap_set(struct imap *m, uint64_t k, size_t v)
{
	if (2 * (m->n + 1) > m->cap) {
		struct imap old = *m;
		imap_init(m, old.n + 1);
		for (size_t i = 0; i < old.cap; i++)
			if (old.val[i] != IMAP_FREE)
				imap_set(m, old.key[i], old.val[i]);
		imap_free(&old);
	}
	size_t i = imap_slot(m, k);
	m->n += m->val[i] == IMAP_FREE;
	m->key[i] = k;
	m->val[i] = v;
}

/* Empty slot i, shifting back the entries that probed past it. */
static void imap_del(struct imap *m, size_t i)
{
	size_t mask = m->cap - 1;

	for (size_t j = (i + 1) & mask; m->val[j] != IMAP_FREE; j = (j + 1) & mask) {
		size_t home = imap_home(m, m->key[j]);
		/* can j's entry move to i: is i on its way from home to j? */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->key[i] = m->key[j];
			m->val[i] = m->val[j];
			i = j;
		}
	}
	m->val[i] = IMAP_FREE;
	m->n--;
}

/* The id of the section of the scratch file (graph/cache.h's
 * heap_scratch, ids from STORE_SCRATCH) where a heapshot's references
 * wait as read, in blocks of RBLK (the last one of those left): the
 * targets' low halves, their high halves, the offsets, each an array
 * of 4-byte integers, as the store compresses best (one array of
 * 12-byte records compressed a third slower, and worse) */
#define PARK_REFS (STORE_SCRATCH + 100)
#define RBLK 4096
/* and while the builder sorts the nodes and references are placed, each
 * object's count of references, and node, by its place as given */
#define PARK_NREFS (STORE_SCRATCH + 101)
#define PARK_PV (STORE_SCRATCH + 102)

/* The block of c's references written as read (to_file) so far: its
 * three arrays to the store. */
static void refs_flush(struct capture *c)
{
	if (c->nb == 0)
		return;
	for (int k = 0; k < 3; k++)
		store_write(&c->w, c->blk + (size_t)k * RBLK, c->nb * 4);
	c->nb = 0;
}

/* The section of c's references written as read (to_file) ended: 0 if
 * it is whole in the store, -1 if a write failed. */
static int capture_written(struct capture *c)
{
	if (!c->to_file)
		return 0;
	refs_flush(c);
	free(c->blk);
	c->blk = NULL;
	c->to_file = 0;
	return store_end(&c->w);
}

/* One reference as read, written (to_file) */
static void ref_put(struct capture *c, uint64_t to, uint32_t off)
{
	c->blk[c->nb] = (uint32_t)to;
	c->blk[RBLK + c->nb] = (uint32_t)(to >> 32);
	c->blk[2 * RBLK + c->nb] = off;
	if (++c->nb == RBLK)
		refs_flush(c);
}

static void capture_free(struct capture *c)
{
	if (c->to_file) { /* a capture begun again: what was written goes */
		struct store *st = c->w.s;
		capture_written(c);
		store_drop(st, PARK_REFS);
	}
	if (c->o != NULL)
		big_free(c->o, c->co * sizeof *c->o);
	free(c->tgt);
	free(c->off);
	free(c->x);
	free(c->r);
	free(c->vts);
	imap_free(&c->vtix);
	memset(c, 0, sizeof *c);
	c->shot = -1;
}

static void mrd_free(struct mrd *r)
{
	capture_free(&r->kept);
	free(r->cls);
	free(r->vt);
	free(r->reg);
	imap_free(&r->reg_open);
	free(r->thr);
	imap_free(&r->thr_ix);
	free(r->shots);
	names_free(&r->nt);
}

static struct mthread *thread_of(struct mrd *r, uint64_t tid)
{
	size_t i = imap_get(&r->thr_ix, tid);

	if (i == IMAP_FREE) {
		VEC_GROW(r->thr, r->nthr, r->cthr);
		r->thr[r->nthr] = (struct mthread){ tid, -1 };
		imap_set(&r->thr_ix, tid, r->nthr);
		i = r->nthr++;
	}
	return &r->thr[i];
}

/* The second pass reaches heapshot sh's start: keep what follows. */
static void capture_start(struct mrd *r, const struct mshot *sh)
{
	uint64_t most = r->h->size / 2; /* counts from a damaged file claim more */

	capture_free(&r->kept);
	r->kept.shot = r->target;
	r->kept.co = (sh->objects < most ? sh->objects : most) + 1;
	/* mapped on its own: build() lets its pages go behind the builder */
	r->kept.o = big_alloc(r->kept.co * sizeof *r->kept.o);
	if (r->park != NULL) {
		store_begin(r->park, &r->kept.w, PARK_REFS, 4);
		r->kept.to_file = 1;
		r->kept.blk = xmalloc(3 * RBLK * sizeof *r->kept.blk);
		r->kept.nb = 0;
	} else {
		r->kept.cr = (sh->refs < most ? sh->refs : most) + 1;
		r->kept.tgt = xreallocarray(NULL, r->kept.cr, sizeof *r->kept.tgt);
		r->kept.off = xreallocarray(NULL, r->kept.cr, sizeof *r->kept.off);
	}
	imap_init(&r->kept.vtix, 64);
}

/* Vtable vt's number in cp->vts: a few vtables serve most objects. */
static uint32_t vt_number(struct capture *cp, uint64_t vt)
{
	if (cp->nvts > 0 && cp->last_vt == vt)
		return cp->last_k;
	size_t k = imap_get(&cp->vtix, vt);
	if (k == IMAP_FREE) {
		VEC_GROW(cp->vts, cp->nvts, cp->cvts);
		cp->vts[cp->nvts] = vt;
		imap_set(&cp->vtix, vt, k = cp->nvts++);
	}
	cp->last_vt = vt;
	cp->last_k = (uint32_t)k;
	return cp->last_k;
}

/* The first pass: an object of the heapshot t is in, in its totals
 * (its size as the heap keeps it, below 4 GiB), and in mid[] when
 * identity() wants it. */
static void shot_add(struct mrd *r, struct mthread *t, uint64_t addr, uint64_t vt, uint64_t size)
{
	struct mshot *sh = &r->shots[t->shot];
	struct replay *rp = r->rp;

	if (size > UINT32_MAX) {
		if (r->big++ == 0) {
			r->big_at = r->ev_off;
			r->big_size = size;
		}
		size = UINT32_MAX;
	}
	sh->objects++;
	sh->bytes += size;
	if (rp != NULL && (size_t)t->shot >= rp->j && (size_t)t->shot <= rp->k) {
		size_t v = imap_get(&rp->vts, vt);
		if (v == IMAP_FREE)
			imap_set(&rp->vts, vt, v = rp->vts.n);
		VEC_GROW(rp->mid, rp->nmid, rp->cmid);
		rp->mid[rp->nmid++] = (struct mkind){ addr, (uint32_t)v, (uint32_t)size };
	}
}

static void heap_object(struct mrd *r, struct cur *c, uint64_t obj_base, uint64_t ptr_base, struct mthread *t)
{
	uint64_t addr = (obj_base + (uint64_t)sleb(c)) << 3;
	uint64_t vt = ptr_base + (uint64_t)sleb(c);
	uint64_t size = uleb(c);
	/* its address, class and size there: an object, in both passes,
	 * whatever of the rest a cut file holds (the first pass counted one
	 * cut in its generation or count of references, and the second kept
	 * it: the heapshot's list said an object fewer than the heap) */
	int told = !c->bad;
	uint8_t gen = r->ver >= 16 ? byte1(c) != 0 : 0; /* nursery 0, any other 1 */
	if (told && c->bad) /* cut before its generation: which one, the file does not say */
		gen = GEN_UNTOLD;
	uint64_t n = uleb(c);
	struct capture *cp = t->shot >= 0 && r->kept.shot == t->shot && told ? &r->kept : NULL;
	int cont = size == 0; /* more references of an object already told */
	struct mobj *o = NULL;

	if (t->shot >= 0 && !cont && told && !r->pass2)
		shot_add(r, t, addr, vt, size);
	if (cp != NULL && !cont) {
		if (cp->no == cp->co) {
			cp->o = big_resize(cp->o, cp->co * sizeof *cp->o, cp->co * 2 * sizeof *cp->o);
			cp->co *= 2;
		}
		o = &cp->o[cp->no++];
		*o = (struct mobj){ addr, vt_number(cp, vt), size > UINT32_MAX ? UINT32_MAX : (uint32_t)size, 0, gen };
	} else if (cp != NULL && cp->no > 0 && cp->o[cp->no - 1].addr == addr) {
		/* the usual case: right after its object (whose references
		 * are the last kept: only the last object's are added to) */
		o = &cp->o[cp->no - 1];
	}
	uint64_t at = 0, got = 0;
	for (; got < n && !c->bad; got++) {
		at += uleb(c);
		uint64_t to = (obj_base + (uint64_t)sleb(c)) << 3;
		if (c->bad)
			break;
		if (cp == NULL)
			continue;
		uint32_t off32 = at > UINT32_MAX ? UINT32_MAX : (uint32_t)at;
		if (o != NULL && cp->to_file) {
			ref_put(cp, to, off32);
			cp->nr++;
			o->nrefs++;
		} else if (o != NULL) {
			if (cp->nr == cp->cr) {
				cp->cr = cp->cr ? cp->cr * 2 : 1024;
				cp->tgt = xreallocarray(cp->tgt, cp->cr, sizeof *cp->tgt);
				cp->off = xreallocarray(cp->off, cp->cr, sizeof *cp->off);
			}
			cp->tgt[cp->nr] = to;
			cp->off[cp->nr++] = off32;
			o->nrefs++;
		} else {
			VEC_GROW(cp->x, cp->nx, cp->cx);
			cp->x[cp->nx++] = (struct mextra){ addr, to, off32 };
		}
	}
	if (t->shot >= 0 && !r->pass2) /* what is there, not what n claims: the second pass's room */
		r->shots[t->shot].refs += got;
}

static void heap_roots(struct mrd *r, struct cur *c, uint64_t obj_base, uint64_t ptr_base, struct mthread *t)
{
	struct capture *cp = t->shot >= 0 && r->kept.shot == t->shot ? &r->kept : NULL;
	uint64_t n = uleb(c);

	if (r->ver < 14) { /* gc number, then (object, type, extra) */
		uleb(c);
		for (uint64_t i = 0; i < n && !c->bad; i++) {
			uint64_t obj = (obj_base + (uint64_t)sleb(c)) << 3;
			unsigned type = byte1(c); /* flags: stack 1, finalizer 2, handle 4, other 8, misc 16 */
			uleb(c);
			uint16_t kind = 1 + (type & 1 ? MR_STACK : type & 2 ? MR_FINALIZER : type & 4 ? MR_GC_HANDLE
					     : MR_EXTERNAL);
			if (cp != NULL && !c->bad) {
				VEC_GROW(cp->r, cp->nrt, cp->crt);
				cp->r[cp->nrt++] = (struct mroot){ 0, obj, kind };
			}
		}
		return;
	}
	for (uint64_t i = 0; i < n && !c->bad; i++) {
		uint64_t slot = ptr_base + (uint64_t)sleb(c);
		uint64_t obj = (obj_base + (uint64_t)sleb(c)) << 3;
		if (cp != NULL && !c->bad) {
			VEC_GROW(cp->r, cp->nrt, cp->crt);
			cp->r[cp->nrt++] = (struct mroot){ slot, obj, 0 };
		}
	}
}

/* HEAP_ROOT_REGISTER: a root range, open until unregistered. */
static void root_range_add(struct mrd *r, struct cur *c, uint64_t now, uint64_t ptr_base)
{
	uint64_t start = ptr_base + (uint64_t)sleb(c), size = uleb(c);
	unsigned source = byte1(c);
	size_t len = 0;

	sleb(c); /* key */
	const char *d = str(c, &len);
	if (c->bad || r->pass2)
		return;
	size_t below = imap_get(&r->reg_open, start);
	VEC_GROW(r->reg, r->nreg, r->creg);
	r->reg[r->nreg] = (struct mreg){ start, size, now, UINT64_MAX, below == IMAP_FREE ? NO_REG : below,
					 names_intern(&r->nt, d, len < 200 ? len : 200), (uint8_t)source };
	imap_set(&r->reg_open, start, r->nreg++);
}

/* HEAP_ROOT_UNREGISTER: the latest open range of that start closes. */
static void root_range_end(struct mrd *r, struct cur *c, uint64_t now, uint64_t ptr_base)
{
	uint64_t start = ptr_base + (uint64_t)sleb(c);
	size_t i = imap_get(&r->reg_open, start);

	if (c->bad || r->pass2 || i == IMAP_FREE || i == NO_REG)
		return;
	r->reg[i].t_unreg = now;
	imap_set(&r->reg_open, start, r->reg[i].below);
}

static void heap_event(struct mrd *r, struct cur *c, unsigned sub, uint64_t now, uint64_t obj_base,
		       uint64_t ptr_base, struct mthread *t)
{
	switch (sub) {
	case 0x00: /* start */
		if (r->pass2) { /* the heapshot read: kept, sized as the first pass counted */
			t->shot = r->target >= 0 && r->shots[r->target].at == r->ev_off ? r->target : -1;
			if (t->shot >= 0)
				capture_start(r, &r->shots[t->shot]);
		} else {
			VEC_GROW(r->shots, r->nshots, r->cshots);
			r->shots[r->nshots] = (struct mshot){ .t_start = now, .t_end = now, .tid = t->tid,
							      .buf_first = r->buf_off, .buf_last = UINT64_MAX,
							      .at = r->ev_off };
			t->shot = (int64_t)r->nshots++;
			struct replay *rp = r->rp;
			if (rp != NULL)
				rp->mid0 = rp->nmid;
		}
		break;
	case 0x10: /* end */
		if (t->shot >= 0 && !r->pass2) {
			r->shots[t->shot].t_end = now;
			r->shots[t->shot].buf_last = r->buf_off;
			r->shots[t->shot].complete = 1;
		}
		if (t->shot >= 0) {
			struct replay *rp = r->rp;
			if (rp != NULL && (size_t)t->shot == rp->j)
				rp->jr = (struct mrange){ rp->mid0, rp->nmid, rp->j };
			if (rp != NULL && (size_t)t->shot > rp->j && (size_t)t->shot <= rp->k) {
				VEC_GROW(rp->ends, rp->nends, rp->cends);
				rp->ends[rp->nends] = (struct mrange){ rp->mid0, rp->nmid, (size_t)t->shot };
				VEC_GROW(rp->mv, rp->nmv, rp->cmv);
				rp->mv[rp->nmv++] = (struct mmove){ now, SHOT_END, rp->nends++ };
			}
		}
		t->shot = -1;
		break;
	case 0x20:
		heap_object(r, c, obj_base, ptr_base, t);
		break;
	case 0x30:
		heap_roots(r, c, obj_base, ptr_base, t);
		break;
	case 0x40:
		root_range_add(r, c, now, ptr_base);
		break;
	case 0x50:
		root_range_end(r, c, now, ptr_base);
		break;
	default:
		c->bad = 1;
	}
}

static void metadata(struct mrd *r, struct cur *c, unsigned sub, uint64_t ptr_base)
{
	unsigned kind = byte1(c);
	uint64_t ptr = ptr_base + (uint64_t)sleb(c);
	size_t len;
	const char *s;

	switch (kind) {
	case MD_CLASS:
		sleb(c); /* image */
		s = str(c, &len);
		if (!c->bad && !r->pass2) {
			VEC_GROW(r->cls, r->ncls, r->ccls);
			r->cls[r->ncls++] = (struct mptr){ ptr, names_intern(&r->nt, s, len) };
		}
		break;
	case MD_IMAGE:
		str(c, NULL);
		if (r->ver >= 16 && sub == 0x20) /* loaded: its MVID */
			str(c, NULL);
		break;
	case MD_ASSEMBLY:
		if (r->ver >= 14)
			sleb(c);
		str(c, NULL);
		break;
	case MD_DOMAIN:
	case MD_THREAD:
		if (sub == 0) /* a name */
			str(c, NULL);
		break;
	case MD_CONTEXT:
		sleb(c);
		break;
	case MD_VTABLE:
		if (r->ver < 15) {
			c->bad = 1;
			break;
		}
		sleb(c); /* domain */
		uint64_t k = ptr_base + (uint64_t)sleb(c);
		if (!c->bad && !r->pass2) {
			VEC_GROW(r->vt, r->nvt, r->cvt);
			r->vt[r->nvt++] = (struct mptr){ ptr, k };
		}
		break;
	default:
		c->bad = 1;
	}
}

static void gc_event(struct mrd *r, struct cur *c, unsigned sub, uint64_t now, uint64_t obj_base)
{
	struct replay *rp = r->rp;
	int in = rp != NULL && now > rp->t_from && now <= rp->t_to;

	switch (sub) {
	case 0x10: {                            /* event, generation */
		unsigned ev = byte1(c), gen = byte1(c);
		if (in && ev == 0 && !c->bad && ++rp->ngc == 2) /* a collection starts */
			rp->second_gc = now;
		if (in && ev == 5 && gen >= 1 && !c->bad) {     /* a major one ends: what it found dead is */
			VEC_GROW(rp->mv, rp->nmv, rp->cmv);
			rp->mv[rp->nmv++] = (struct mmove){ now, MAJOR_END, 0 };
		}
		break;
	}
	case 0x20: uleb(c); break;              /* resized */
	case 0x30: {                            /* moves: (old, new) pairs */
		uint64_t n = uleb(c);
		for (uint64_t i = 0; i < n && !c->bad; i += 2) {
			uint64_t from = (obj_base + (uint64_t)sleb(c)) << 3;
			if (i + 1 == n) /* an odd count: the last one alone */
				break;
			uint64_t to = (obj_base + (uint64_t)sleb(c)) << 3;
			if (in && !c->bad) {
				VEC_GROW(rp->mv, rp->nmv, rp->cmv);
				rp->mv[rp->nmv++] = (struct mmove){ now, from, to };
			}
			r->moves += !c->bad && !r->pass2; /* what is there, not what the count claims */
		}
		break;
	}
	case 0x40: case 0x60:                   /* handle created */
		uleb(c); uleb(c); sleb(c);
		if (sub == 0x60)
			backtrace(c);
		break;
	case 0x50: case 0x70:                   /* handle destroyed */
		uleb(c); uleb(c);
		if (sub == 0x70)
			backtrace(c);
		break;
	case 0x80: case 0x90: break;            /* finalizers start, end */
	case 0xa0: case 0xb0: sleb(c); break;   /* finalizing an object */
	default: c->bad = 1;
	}
}

static void sample_event(struct mrd *r, struct cur *c, unsigned sub)
{
	switch (sub) {
	case 0x00: /* hit */
		if (r->ver < 14)
			byte1(c);
		sleb(c); /* thread */
		for (uint64_t n = uleb(c); n > 0 && !c->bad; n--)
			sleb(c);
		backtrace(c);
		break;
	case 0x10: sleb(c); uleb(c); str(c, NULL); break;           /* symbol */
	case 0x20: sleb(c); uleb(c); uleb(c); str(c, NULL); break;  /* binary */
	case 0x30:                                                  /* counters described */
		for (uint64_t n = uleb(c); n > 0 && !c->bad; n--) {
			if (uleb(c) == 1u << 15)
				str(c, NULL);
			str(c, NULL);
			/* type, unit, variance: bytes in log.h, ULEB128 in
			 * Mono 6's files (unit 1 << 24...): alike below 0x80 */
			uleb(c); uleb(c); uleb(c);
			uleb(c);
		}
		break;
	case 0x40:                                                  /* counters' values */
		while (!c->bad && uleb(c) != 0) {
			switch (uleb(c)) {
			case 0: case 2: case 3: case 7: sleb(c); break;
			case 1: case 4: uleb(c); break;
			case 5:
				if (c->end - c->p < 8)
					c->bad = BAD_END;
				else
					c->p += 8;
				break;
			case 6:
				if (byte1(c))
					str(c, NULL);
				break;
			default: c->bad = 1;
			}
		}
		break;
	default: c->bad = 1;
	}
}

static void coverage_event(struct cur *c, unsigned sub)
{
	static const unsigned strs[4] = { 3, 5, 0, 2 }, nums[4] = { 3, 3, 5, 3 }; /* by sub >> 4 */
	unsigned k = sub >> 4;

	if (k > 3) {
		c->bad = 1;
		return;
	}
	for (unsigned i = 0; i < strs[k]; i++)
		str(c, NULL);
	for (unsigned i = 0; i < nums[k]; i++)
		uleb(c);
}

/* An allocation (vtable, object, size): identity() wants its address. */
static void alloc_event(struct mrd *r, struct cur *c, unsigned sub, uint64_t now, uint64_t obj_base)
{
	struct replay *rp = r->rp;

	sleb(c);
	uint64_t addr = (obj_base + (uint64_t)sleb(c)) << 3;
	uleb(c);
	if (sub & 0x10)
		backtrace(c);
	if (rp != NULL && now > rp->t_from && now <= rp->t_to && !c->bad) {
		VEC_GROW(rp->mv, rp->nmv, rp->cmv);
		rp->mv[rp->nmv++] = (struct mmove){ now, ALLOCATED, addr };
		rp->allocs++;
	}
}

/* One buffer's events; 0, or -1 at the first event not understood. */
static int buffer_events(struct mrd *r, const uint8_t *b, size_t len, uint64_t file_off, int cut)
{
	uint64_t now = rd64(b + 8), ptr_base = rd64(b + 16), obj_base = rd64(b + 24);
	struct mthread *t = thread_of(r, rd64(b + 32));
	struct cur c = { b + BUF_HEAD, b + BUF_HEAD + len, 0 };

	if (r->first_time == 0)
		r->first_time = now;
	while (c.p < c.end) {
		const uint8_t *at = c.p;
		unsigned ev = *c.p++, type = ev & 0xf, sub = ev & 0xf0;
		r->ev_off = file_off + (uint64_t)(at - b);
		now += uleb(&c);
		switch (type) {
		case T_ALLOC:
			alloc_event(r, &c, sub, now, obj_base);
			break;
		case T_GC: gc_event(r, &c, sub, now, obj_base); break;
		case T_METADATA: metadata(r, &c, sub, ptr_base); break;
		case T_METHOD:
			sleb(&c);
			if (sub == 0x40) { /* jitted */
				sleb(&c); uleb(&c); str(&c, NULL);
			}
			break;
		case T_EXCEPTION:
			if ((sub & 0x70) == 0x10) { /* clause */
				byte1(&c); uleb(&c); sleb(&c);
				if (r->ver >= 14)
					sleb(&c);
			} else {
				sleb(&c);
				if (sub & 0x80)
					backtrace(&c);
			}
			break;
		case T_MONITOR:
			if (r->ver >= 14)
				byte1(&c);
			sleb(&c);
			if (sub & 0x80)
				backtrace(&c);
			break;
		case T_HEAP: heap_event(r, &c, sub, now, obj_base, ptr_base, t); break;
		case T_SAMPLE: sample_event(r, &c, sub); break;
		case T_RUNTIME:
			if (sub != 0x10) {
				c.bad = 1;
				break;
			}
			unsigned kind = byte1(&c);
			sleb(&c); uleb(&c);
			if (kind == 5) /* a specific trampoline: its name */
				str(&c, NULL);
			break;
		case T_COVERAGE:
			if (r->ver >= 16)
				c.bad = 1;
			else
				coverage_event(&c, sub);
			break;
		case T_META:
			if (sub == 0x00)
				byte1(&c);
			else if (sub == 0x10)
				str(&c, NULL);
			else
				c.bad = 1;
			break;
		default: c.bad = 1;
		}
		if (c.bad && cut) /* the file's end, said already */
			return 0;
		if (c.bad) {
			if (r->bad_at == 0) {
				r->bad_at = r->ev_off + 1;
				r->bad_byte = ev;
				r->bad_why = c.bad;
			}
			return -1;
		}
	}
	return 0;
}

/* ---- the file ---- */

struct mlpd_head { unsigned major, minor, ver, ptrsize; uint64_t start_ms; size_t len; uint32_t pid; };

/* The header of b[0..n): 0, or -1 with what is wrong in why. */
static int read_head(const uint8_t *b, size_t n, struct mlpd_head *hd, const char **why, size_t *at)
{
	*at = 0;
	if (n < 8 || rd32(b) != HEADER_ID) {
		*why = "not a Mono log profiler file";
		return -1;
	}
	hd->major = b[4];
	hd->minor = b[5];
	hd->ver = b[6];
	hd->ptrsize = b[7];
	*at = 6;
	if (hd->ver < 13 || hd->ver > 17) {
		*why = "data format outside 13..17 (Mono 4.x to 6.x write those)";
		return -1;
	}
	*at = 7;
	if (hd->ptrsize != 4 && hd->ptrsize != 8) {
		*why = "pointer size neither 4 nor 8";
		return -1;
	}
	size_t p = 8 + 8 + (hd->major >= 3 ? 8 : 0) + 4 + 4; /* start ms, start ns, overhead, flags */
	*at = 8;
	if (n < p + 6) {
		*why = "the file ends inside its header";
		return -1;
	}
	hd->start_ms = rd64(b + 8);
	hd->pid = rd32(b + p);
	p += 4 + 2; /* pid, port */
	for (int i = 0; i < 3; i++) { /* args, arch, os */
		*at = p;
		if (n - p < 4 || rd32(b + p) > n - p - 4) {
			*why = "the file ends inside its header";
			return -1;
		}
		p += 4 + rd32(b + p);
	}
	hd->len = p;
	return 0;
}

static int mlpd_probe(const uint8_t *head, size_t n)
{
	return n >= 4 && rd32(head) == HEADER_ID;
}

static int mlpd_header(struct heap *h, struct sbuf *err)
{
	struct mlpd_head hd;
	const char *why;
	size_t at;

	if (read_head(h->map, h->size, &hd, &why, &at) < 0) {
		char *ep = esc_str(h->path);
		sbuf_printf(err, "%s: offset %zu: %s", ep, at, why);
		free(ep);
		return -1;
	}
	snprintf(h->version, sizeof h->version, "Mono log %u.%u data %u", hd.major, hd.minor, hd.ver);
	h->layout.idsize = hd.ptrsize;
	return 0;
}

/* The value kept for key in the sorted pairs, or dflt. */
static uint64_t ptr_find(const struct mptr *v, size_t n, uint64_t key, uint64_t dflt)
{
	size_t lo = lower_bound_u64s(v, n, sizeof *v, key);

	return lo < n && v[lo].ptr == key ? v[lo].val : dflt;
}

/* Every buffer of the file through buffer_events. 0, or -1 with err
 * when not one buffer is there. */
static int read_buffers(struct mrd *r, const uint8_t *map, uint64_t size, size_t from, struct progress *p)
{
	uint64_t pos = from;

	while (pos < size) {
		if (size - pos < BUF_HEAD || rd32(map + pos) != BUF_ID) {
			r->stop_why = size - pos < BUF_HEAD ? "the file ends inside a buffer's header"
							    : "no buffer starts here (bad magic)";
			r->stop_at = pos;
			warn_add(&r->h->warn, "%s: offset %llu: %s; the file is read up to there", r->h->path,
				 (unsigned long long)pos, r->stop_why);
			break;
		}
		uint32_t len = rd32(map + pos + 4);
		int cut = len > size - pos - BUF_HEAD;
		if (cut) {
			warn_add(&r->h->warn, "%s: offset %llu: a buffer of %u bytes, of which the file holds %llu; "
				 "its events up to the cut are read", r->h->path, (unsigned long long)pos, len,
				 (unsigned long long)(size - pos - BUF_HEAD));
			len = (uint32_t)(size - pos - BUF_HEAD);
		}
		r->buf_off = pos;
		if (buffer_events(r, map + pos, len, pos, cut) < 0)
			r->bad_bufs++;
		pos += BUF_HEAD + (uint64_t)len;
		if (p != NULL)
			progress_update(p, pos);
	}
	return 0;
}

/* Heapshot s's buffers again (its thread's, from the one it starts in
 * to the one it ends in, or the file's end), keeping its objects:
 * r->kept (as far as they go when the file is cut inside it). */
static void read_shot(struct mrd *r, const uint8_t *map, uint64_t size, size_t s)
{
	const struct mshot *sh = &r->shots[s];

	r->pass2 = 1;
	r->target = (int64_t)s;
	for (size_t i = 0; i < r->nthr; i++)
		r->thr[i].shot = -1;
	for (uint64_t pos = sh->buf_first; pos <= sh->buf_last && size - pos >= BUF_HEAD &&
					   rd32(map + pos) == BUF_ID;) {
		uint32_t len = rd32(map + pos + 4);
		int cut = len > size - pos - BUF_HEAD;
		if (cut)
			len = (uint32_t)(size - pos - BUF_HEAD);
		r->buf_off = pos;
		if (rd64(map + pos + 32) == sh->tid)
			buffer_events(r, map + pos, len, pos, cut);
		pos += BUF_HEAD + (uint64_t)len;
	}
	r->pass2 = 0;
}

struct mlpd_data {
	/* per reference as built: its byte offset in its object, a label
	 * found through refs (h->out as built, or its copy once the
	 * analyses change h->out): off16[e], or where that is OFF_BIG (an
	 * offset of 64 KiB or more, an element far into a big array: few),
	 * big_off[i] of the i with big_at[i] == e (big_at ascending). Two
	 * bytes a reference rather than four: 6 MB of a 3.2 M-reference
	 * heapshot, all the time the heap is open. */
	uint16_t *off16;
	uint64_t noff;
	uint64_t *big_at;
	uint32_t *big_off;
	uint64_t nbig;
	struct hb_refs refs;
	uint64_t key;       /* the process: its pid and start */
	uint64_t t_end;     /* the heapshot's end, on the file's clock (ns) */
	unsigned ptrsize;
	/* per class, made when a label first needs it (elements_known):
	 * ELEM_* */
	uint8_t *elem_kind;
};

#define OFF_BIG 0xffff

/* Reference e's offset in its object (UINT32_MAX: none kept, a forged
 * cache's) */
static uint32_t edge_offset(const struct mlpd_data *md, uint64_t e)
{
	if (md->off16[e] != OFF_BIG)
		return md->off16[e];
	size_t lo = lower_bound_u64(md->big_at, md->nbig, e);
	return lo < md->nbig && md->big_at[lo] == e ? md->big_off[lo] : UINT32_MAX;
}

/* The builder's labels (lab: n offsets, malloc'd, let go) as md's:
 * made two bytes each where they lie, the array then shrunk */
static void offsets_keep(struct mlpd_data *md, uint32_t *lab, uint64_t n)
{
	uint64_t nbig = 0, k = 0;

	for (uint64_t e = 0; e < n; e++)
		nbig += lab[e] >= OFF_BIG;
	md->big_at = xreallocarray(NULL, nbig + 1, sizeof *md->big_at);
	md->big_off = xreallocarray(NULL, nbig + 1, sizeof *md->big_off);
	md->nbig = nbig;
	for (uint64_t e = 0; e < n; e++) {
		uint32_t x; /* read before the two bytes before it are written */
		memcpy(&x, (char *)lab + e * 4, 4);
		if (x >= OFF_BIG) {
			md->big_at[k] = e;
			md->big_off[k++] = x;
			x = OFF_BIG;
		}
		uint16_t x16 = (uint16_t)x;
		memcpy((char *)lab + e * 2, &x16, 2);
	}
	md->off16 = xreallocarray(lab, n + 1, sizeof *md->off16);
	md->noff = n;
}

/* The type of an object of vtable vt (format 13: of class vt): its
 * class's name, or "VTable(0x...)" when the file named none. */
static uint32_t vtable_type(struct mrd *r, struct heap_builder *b, uint64_t vt)
{
	uint64_t k = r->ver >= 15 ? ptr_find(r->vt, r->nvt, vt, UINT64_MAX) : vt;
	uint64_t nm = k == UINT64_MAX ? UINT64_MAX : ptr_find(r->cls, r->ncls, k, UINT64_MAX);
	uint64_t id = k == UINT64_MAX ? vt : k;
	char tmp[64];

	if (nm != UINT64_MAX)
		return hb_type(b, (uint32_t)nm, id);
	snprintf(tmp, sizeof tmp, "%s(0x%llx)", r->ver >= 15 ? "VTable" : "Class", (unsigned long long)vt);
	return hb_type_str(b, tmp, strlen(tmp), id);
}

/* The heapshot's roots: a slot's kind is its registered range's, as
 * the ranges were at the heapshot. */
static void shot_roots(struct mrd *r, struct capture *cp, struct heap_builder *b)
{
	const struct mshot *s = &r->shots[cp->shot];
	struct mreg *live = xmalloc((r->nreg + 1) * sizeof *live);
	size_t nlive = 0;

	for (size_t i = 0; i < r->nreg; i++)
		if (r->reg[i].t_reg <= s->t_end && r->reg[i].t_unreg >= s->t_start)
			live[nlive++] = r->reg[i];
	hw_qsort(live, nlive, sizeof *live, cmp_first_u64);
	for (size_t i = 0; i < cp->nrt; i++) {
		uint64_t slot = cp->r[i].slot;
		size_t lo = lower_bound_u64s(live, nlive, sizeof *live, slot + 1); /* the last start <= slot */
		unsigned n = MR_UNREGISTERED;
		uint32_t desc = 0;
		if (cp->r[i].kind != 0) {
			n = cp->r[i].kind - 1u; /* format 13: a type, no slot */
		} else if (lo > 0 && slot - live[lo - 1].start < live[lo - 1].size) {
			n = live[lo - 1].source < MR_NSOURCES ? live[lo - 1].source : MR_EXTERNAL;
			desc = live[lo - 1].desc + 1;
		}
		hb_root(b, cp->r[i].obj, mlpd_root_natives[n].kind, (uint8_t)n, desc);
	}
	free(live);
}

#define RELEASE_OBJECTS (1u << 18) /* objects given between lettings go of their pages */

/* Each object (cp->o) to the builder, and what build() keeps of it by
 * its place as given: its count of references, its generation (gen,
 * format 16). The objects' pages go behind the builder, which holds
 * them from then on: the two are never whole at once. */
static void give_objects(struct mrd *r, struct capture *cp, struct heap_builder *b, uint32_t *nrefs, uint8_t *gen)
{
	uint32_t prev_vt = HW_NONE, prev_ty = HW_NONE;
	size_t done = 0;

	for (size_t i = 0; i < cp->no; i++) {
		const struct mobj *o = &cp->o[i];
		if (o->vt != prev_vt) {
			prev_ty = vtable_type(r, b, cp->vts[o->vt]);
			prev_vt = o->vt;
		}
		hb_object(b, o->addr, prev_ty, o->size, NK_INSTANCE);
		nrefs[i] = o->nrefs;
		if (gen != NULL)
			gen[i] = o->gen;
		if (i + 1 - done >= RELEASE_OBJECTS) {
			big_release(cp->o, done * sizeof *cp->o, (i + 1) * sizeof *cp->o);
			done = i + 1;
		}
	}
	big_free(cp->o, cp->co * sizeof *cp->o);
	cp->o = NULL;
	cp->co = 0;
}

/* After hb_nodes_done: v, each object's node by its place as given
 * (hb_given_take), made HW_NONE for a report of an address reported
 * before (the first report's references count); each node's
 * generation (format 16), its first report's (heap_object's 0 or 1),
 * none told (the file cut) MLPD_GEN_UNKNOWN, said in a warning. */
static void places(struct mrd *r, node_t *v, const uint8_t *gen, size_t n)
{
	struct heap *h = r->h;
	bits_t *seen = xcalloc(bits_words(h->n), sizeof *seen);
	size_t untold = 0;

	if (gen != NULL) {
		h->node_gen = xmalloc(h->n);
		h->node_gen[0] = 0;
	}
	for (size_t i = 0; i < n; i++) {
		node_t u = v[i];
		if (bit_get(seen, u)) {
			v[i] = HW_NONE;
			continue;
		}
		bit_set(seen, u);
		if (gen != NULL) {
			h->node_gen[u] = gen[i] == GEN_UNTOLD ? MLPD_GEN_UNKNOWN : gen[i];
			untold += gen[i] == GEN_UNTOLD;
		}
	}
	free(seen);
	if (untold > 0)
		warn_add(&h->warn, "%s: %zu object%s cut short before %s generation: in neither generation", h->path,
			 untold, untold == 1 ? "" : "s", untold == 1 ? "its" : "their");
}

/* Places' array a (n + 1 elements of elem bytes, big_alloc'd) parked as
 * section id of st, and let go: NULL; else (no store, or no room there)
 * a, kept. */
static void *park(struct store *st, uint32_t id, void *a, uint32_t elem, size_t n)
{
	if (st == NULL || store_put(st, id, a, elem, n) < 0)
		return a;
	big_free(a, (n + 1) * elem);
	return NULL;
}

/* A parked array read in order (from st) or the array itself (a). */
static void places_seq(struct heap *h, struct seq *s, const struct store *st, uint32_t id, const void *a)
{
	if (a != NULL)
		seq_mem(s, a, 4);
	else if (seq_open(s, st, id, 4) < 0)
		hw_fatal("%s: cannot read the objects back from the scratch file", esc_str(h->path));
}

/* The next element of each of the places' two sequences. */
static int next_place(struct seq *pvs, struct seq *nrs, node_t *v, uint32_t *nr)
{
	const node_t *a = seq_span(pvs, 1);
	const uint32_t *c = seq_span(nrs, 1);

	if (a == NULL || c == NULL)
		return -1;
	*v = *a;
	*nr = *c;
	return 0;
}

/* The references as read, in order: from the scratch file's blocks
 * (PARK_REFS), or from memory (cp->tgt, cp->off) */
struct refs_in {
	struct seq s;
	int mem;
	const uint64_t *mtgt;
	const uint32_t *moff;
	const uint32_t *lo, *hi, *off; /* the block being read */
	size_t m, pos;
	uint64_t left;                 /* references after that block */
};

static int refs_in_open(struct refs_in *q, const struct store *st, const struct capture *cp)
{
	memset(q, 0, sizeof *q);
	q->mem = cp->tgt != NULL || cp->nr == 0;
	q->mtgt = cp->tgt;
	q->moff = cp->off;
	q->left = cp->nr;
	return q->mem ? 0 : st == NULL ? -1 : seq_open(&q->s, st, PARK_REFS, 4);
}

/* The next one: 0, or -1 past the end or on a read error */
static inline int ref_next(struct refs_in *q, uint64_t *tg, uint32_t *off)
{
	if (q->mem) {
		*tg = q->mtgt[q->pos];
		*off = q->moff[q->pos++];
		return 0;
	}
	if (q->pos == q->m) {
		if (q->left == 0)
			return -1;
		q->m = q->left < RBLK ? (size_t)q->left : RBLK;
		const uint32_t *p = seq_span(&q->s, 3 * (uint64_t)q->m);
		if (p == NULL)
			return -1;
		q->lo = p;
		q->hi = p + q->m;
		q->off = p + 2 * q->m;
		q->left -= q->m;
		q->pos = 0;
	}
	*tg = (uint64_t)q->hi[q->pos] << 32 | q->lo[q->pos];
	*off = q->off[q->pos++];
	return 0;
}

/* The references counted by their sources' nodes (pv: each place's,
 * in memory; nrefs: its count of references, or NULL where it is
 * parked in st), the continuations not next to their object last. */
static void refs_count(struct heap *h, const struct store *st, const struct capture *cp, const node_t *pv,
		       const uint32_t *nrefs, size_t n, struct heap_builder *b)
{
	struct seq nrs;
	size_t i = 0;

	places_seq(h, &nrs, st, PARK_NREFS, nrefs);
	while (i < n) {
		size_t m = n - i < 4096 ? n - i : 4096;
		const uint32_t *c = seq_span(&nrs, m);
		if (c == NULL)
			break;
		for (size_t j = 0; j < m; j++, i++)
			if (pv[i] != HW_NONE && c[j] > 0)
				hb_refs_count(b, pv[i], c[j]);
	}
	if (i < n || seq_end(&nrs) < 0)
		hw_fatal("%s: cannot read the objects back from the scratch file", esc_str(h->path));
	for (size_t k = 0; k < cp->nx; k++) {
		node_t s = hb_find(b, cp->x[k].src);
		if (s != HW_NONE)
			hb_refs_count(b, s, 1);
	}
}

/* The references, counted (refs_count), each written
 * to its place with its label (read back from st where they were
 * written as read): a target no object has left a hole, for
 * hb_finish to count as dangling. The continuations not next to their
 * object last, by their source's address. pv, nrefs: each place's
 * node and count, or NULL where they are parked in st. */
static void references(struct heap *h, const struct store *st, struct capture *cp, const node_t *pv,
		       const uint32_t *nrefs, size_t n, struct heap_builder *b)
{
	struct refs_in rs;
	struct seq pvs, nrs;
	node_t v;
	uint32_t nr;
	int bad = 0;

	if (refs_in_open(&rs, st, cp) < 0)
		hw_fatal("%s: cannot read the references back from the scratch file", esc_str(h->path));
	places_seq(h, &pvs, st, PARK_PV, pv);
	places_seq(h, &nrs, st, PARK_NREFS, nrefs);
	for (size_t i = 0; i < n && next_place(&pvs, &nrs, &v, &nr) == 0; i++) {
		if (nr == 0)
			continue;
		uint64_t tg;
		uint32_t of;
		if (v == HW_NONE) {
			for (uint32_t j = 0; j < nr && !bad; j++)
				bad = ref_next(&rs, &tg, &of) < 0;
			if (bad)
				break;
			continue;
		}
		uint32_t *lab;
		node_t *to = hb_refs_room(b, v, nr, &lab);
		for (uint32_t j = 0; j < nr && !bad; j++) {
			bad = ref_next(&rs, &tg, &lab[j]) < 0;
			to[j] = bad ? HW_NONE : hb_find(b, tg);
		}
		if (bad)
			break;
	}
	if (bad || (!rs.mem && seq_end(&rs.s) < 0) || seq_end(&pvs) < 0 || seq_end(&nrs) < 0)
		hw_fatal("%s: cannot read the references back from the scratch file", esc_str(h->path));
	for (size_t i = 0; i < cp->nx; i++) {
		node_t s = hb_find(b, cp->x[i].src);
		uint32_t *lab;
		if (s == HW_NONE) { /* none counted: dangling */
			hb_ref_label(b, cp->x[i].src, cp->x[i].target, cp->x[i].off);
			continue;
		}
		*hb_refs_room(b, s, 1, &lab) = hb_find(b, cp->x[i].target);
		*lab = cp->x[i].off;
	}
}

/* The objects gathered into the heap through the builder (graph/
 * builder.h): by address, classes by name, each reference labelled
 * with its offset in its object. What was gathered is freed on the way. */
static void build(struct mrd *r, struct capture *cp, unsigned ptrsize)
{
	struct heap *h = r->h;
	struct heap_builder b;

	/* the references wait in the scratch file behind h (when there is
	 * one: r->park), written there as they were read; else in memory */
	struct store *st = r->park;
	hw_qsort(r->cls, r->ncls, sizeof *r->cls, cmp_first_u64);
	hw_qsort(r->vt, r->nvt, sizeof *r->vt, cmp_first_u64);
	hb_start(&b, h, &r->nt, cp->no, HB_LABELS | HB_GIVEN_NODES);
	b.dup_what = "objects reported twice in the heapshot; the first report of each is kept";
	size_t n = cp->no;
	/* mapped on their own, as every array here that goes before the
	 * heap's: no hole left among malloc's, resident after them */
	uint32_t *nrefs = big_alloc((n + 1) * sizeof *nrefs);
	uint8_t *gen = r->ver >= 16 ? big_alloc(n + 1) : NULL;
	give_objects(r, cp, &b, nrefs, gen);
	/* the counts wait in the scratch file while the builder sorts, the
	 * nodes by place too while the references are placed */
	nrefs = park(st, PARK_NREFS, nrefs, sizeof *nrefs, n);
	hb_nodes_done(&b);
	node_t *pv = hb_given_take(&b);
	places(r, pv, gen, n);
	if (gen != NULL)
		big_free(gen, n + 1);
	refs_count(h, st, cp, pv, nrefs, n, &b);
	/* each place's node waits in the scratch file, as its count does,
	 * while the references are placed */
	if (st != NULL && store_put(st, PARK_PV, pv, sizeof *pv, n) == 0) {
		free(pv);
		pv = NULL;
	}
	references(h, st, cp, pv, nrefs, n, &b); /* the store parked in, even if a later write failed */
	free(pv);
	if (nrefs != NULL)
		big_free(nrefs, (n + 1) * sizeof *nrefs);
	free(cp->tgt), free(cp->off), free(cp->x);
	cp->tgt = NULL, cp->off = NULL, cp->x = NULL;
	if (st != NULL) {
		store_drop(st, PARK_REFS);
		store_drop(st, PARK_NREFS);
		store_drop(st, PARK_PV);
	}
	shot_roots(r, cp, &b);
	hb_finish(&b);
	struct mlpd_data *md = xcalloc(1, sizeof *md);
	offsets_keep(md, hb_labels_take(&b), h->nedges);
	md->ptrsize = ptrsize;
	md->t_end = r->shots[cp->shot].t_end;
	h->fmt_data = md;
	hb_free(&b);
}

static int mlpd_parse(struct heap *h, struct progress *p, struct sbuf *err)
{
	struct mrd r = { .h = h, .nt = { .h = h } };
	struct mlpd_head hd;
	const char *why;
	size_t at;
	int rc = -1;

	r.kept.shot = -1;
	if (read_head(h->map, h->size, &hd, &why, &at) < 0)
		return -1; /* header() said it */
	r.ver = hd.ver;
	progress_begin(p, "parse", h->size, "MB");
	read_buffers(&r, h->map, h->size, hd.len, p);
	progress_end(p);
	char *ep = esc_str(h->path);
	if (r.bad_bufs > 0 && r.bad_why == BAD_END)
		warn_add(&h->warn, "%s: offset %llu: event 0x%02x runs past the end of its buffer (a count or length "
			 "larger than the buffer holds); the rest of its buffer is skipped, and so in %llu buffer%s in "
			 "all", h->path, (unsigned long long)r.bad_at - 1, r.bad_byte, (unsigned long long)r.bad_bufs,
			 r.bad_bufs == 1 ? "" : "s");
	else if (r.bad_bufs > 0)
		warn_add(&h->warn, "%s: offset %llu: event byte 0x%02x not understood (data format %u); the rest of "
			 "its buffer is skipped, and so in %llu buffer%s in all", h->path,
			 (unsigned long long)r.bad_at - 1, r.bad_byte, r.ver, (unsigned long long)r.bad_bufs,
			 r.bad_bufs == 1 ? "" : "s");
	if (r.big > 0)
		warn_add(&h->warn, "%s: offset %llu: an object of %llu bytes, more than the %u a size holds here: "
			 "%llu such objects are counted as %u bytes", h->path, (unsigned long long)r.big_at,
			 (unsigned long long)r.big_size, UINT32_MAX, (unsigned long long)r.big, UINT32_MAX);
	if (r.nshots == 0 && r.stop_why != NULL) { /* damage, not the recording, may be why */
		sbuf_printf(err, "%s: offset %llu: %s; no heapshot before it", ep, (unsigned long long)r.stop_at,
			    r.stop_why);
		goto done;
	}
	if (r.nshots == 0) {
		sbuf_printf(err, "%s: offset %zu: no heapshot in this file (record with mono "
			    "--profile=log:heapshot)", ep, hd.len);
		goto done;
	}
	if (h->want_snap > r.nshots) {
		sbuf_printf(err, "%s: no heapshot %u: the file holds %zu (1 to %zu)", ep, h->want_snap, r.nshots,
			    r.nshots);
		goto done;
	}
	/* the one asked for, or the last complete one (the default) */
	size_t d = r.nshots - 1;
	while (d > 0 && !r.shots[d].complete)
		d--;
	size_t s = h->want_snap != 0 ? h->want_snap - 1 : d;
	h->snap_default = (uint32_t)d + 1;
	/* none complete: the one the file ends in, as far as it goes (a
	 * warning below says so), when it has an object */
	/* where and by what the reading stopped: the file's end, or damage
	 * (a buffer's magic) before it */
	uint64_t cut_at = r.stop_why != NULL ? r.stop_at : h->size;
	struct sbuf by;
	sbuf_init(&by);
	if (r.stop_why != NULL)
		sbuf_printf(&by, "at offset %llu (%s)", (unsigned long long)cut_at, r.stop_why);
	else
		sbuf_adds(&by, "by the end of the file");
	if (!r.shots[s].complete && r.shots[s].objects == 0) {
		sbuf_printf(err, "%s: offset %llu: %s inside heapshot %zu, before any of its objects", ep,
			    (unsigned long long)cut_at, r.stop_why != NULL ? r.stop_why : "the file ends", s + 1);
		sbuf_free(&by);
		goto done;
	}
	if (!r.shots[s].complete) {
		h->truncated_at = cut_at;
		warn_add(&h->warn, "%s: heapshot %zu is cut short %s: its objects up to there", h->path, s + 1, by.buf);
	} else if (s == d && s + 1 < r.nshots) /* the default read, named or not: its cache is the file's own */
		warn_add(&h->warn, "%s: heapshot %zu is cut short %s; the last complete one (%zu) is read", h->path,
			 r.nshots, by.buf, s + 1);
	sbuf_free(&by);
	if (r.bad_bufs > 0 && h->truncated_at == 0) /* a buffer's rest unread: its objects may be missing */
		h->truncated_at = r.bad_at - 1;
	progress_begin(p, "heapshot", r.shots[s].objects, "objects"); /* read again, kept, built */
	/* its references go to the scratch file as they are read, when there
	 * is one; if writing there fails, the heapshot is read again into
	 * memory */
	r.park = heap_scratch(h);
	read_shot(&r, h->map, h->size, s);
	if (capture_written(&r.kept) < 0) {
		store_drop(r.park, PARK_REFS);
		r.park = NULL;
		read_shot(&r, h->map, h->size, s);
	}
	if (r.kept.shot < 0)
		r.kept.shot = (int64_t)s; /* its buffers are gone: none of its objects */
	h->nsnaps = (uint32_t)r.nshots;
	h->snap = (uint32_t)r.kept.shot + 1;
	h->snaps = xmalloc(r.nshots * sizeof *h->snaps);
	/* a heapshot's time: when its walk began (the world stopped, as the
	 * heap it holds was; its end was taken once), from the program's
	 * start (the first buffer's time), to the nearest ms: as
	 * mprof-report tells it */
	for (size_t i = 0; i < r.nshots; i++)
		h->snaps[i] = (struct hsnap){ hd.start_ms + (r.shots[i].t_start > r.first_time
								      ? (r.shots[i].t_start - r.first_time + 500000) / 1000000
								      : 0),
					      r.shots[i].objects, r.shots[i].bytes, r.shots[i].complete };
	h->timestamp_ms = h->snaps[h->snap - 1].time_ms;
	build(&r, &r.kept, hd.ptrsize);
	progress_end(p);
	((struct mlpd_data *)h->fmt_data)->key = (uint64_t)hd.pid << 32 ^ hd.start_ms;
	rc = 0;
done:
	free(ep);
	mrd_free(&r);
	return rc;
}

/* ---- the views' side ---- */

/* An array class's name ends in its rank, "[]" or "[,]": the length of
 * its element type's name before it, or 0 for no array's. */
static size_t elem_name_len(const char *s)
{
	size_t n = strlen(s);

	if (n < 3 || s[n - 1] != ']')
		return 0;
	size_t i = n - 1;
	while (i > 0 && s[i - 1] == ',')
		i--;
	return i > 1 && s[i - 1] == '[' ? i - 1 : 0;
}

enum { ELEM_NONE, ELEM_REFS, ELEM_UNKNOWN }; /* no array; references; maybe structs */

static int cmp_class_name(const void *a, const void *b, void *arg)
{
	const struct heap *h = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(class_name(h, x), class_name(h, y));

	return c != 0 ? c : (x > y) - (x < y); /* one name twice: the first class */
}

/* The class named by the n bytes at s, or UINT32_MAX: by halves over
 * the classes sorted by name (by). */
static uint32_t class_named(const struct heap *h, const uint32_t *by, const char *s, size_t n)
{
	size_t lo = 0, hi = h->ncls;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *m = class_name(h, by[mid]);
		int c = strncmp(m, s, n);
		if (c == 0)
			c = m[n] != '\0';
		if (c == 0)
			return by[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return UINT32_MAX;
}

/* Which arrays hold references, an element a pointer's size, and which
 * may hold structs, inline, of a size the file does not give (a
 * Dictionary's Entry[]: 24 bytes an element; an index made as for
 * pointers was three times too high). References, where the element
 * type is an array (a jagged array's), System.Object or System.String,
 * or an instance of the class refers to an object of its element type
 * (a struct holds none of its own type; an array of an interface or a
 * base class with no such object stays unknown). Made once, from every
 * reference of the arrays: one kind for all a class's instances. */
static const uint8_t *elements_known(const struct heap *h)
{
	struct mlpd_data *md = h->fmt_data;

	if (md->elem_kind != NULL)
		return md->elem_kind;
	uint8_t *kind = xcalloc((size_t)h->ncls + 1, 1);
	uint32_t *by = xmalloc(((size_t)h->ncls + 1) * sizeof *by), *elem = xmalloc(((size_t)h->ncls + 1) * sizeof *elem);
	for (uint32_t c = 0; c < h->ncls; c++)
		by[c] = c;
	hw_sort(by, h->ncls, sizeof *by, cmp_class_name, (void *)h);
	for (uint32_t c = 0; c < h->ncls; c++) {
		const char *s = class_name(h, c);
		size_t n = elem_name_len(s);
		elem[c] = UINT32_MAX;
		if (n == 0)
			continue;
		kind[c] = ELEM_UNKNOWN;
		if (s[n - 1] == ']' || (n == 13 && strncmp(s, "System.Object", n) == 0) ||
		    (n == 13 && strncmp(s, "System.String", n) == 0))
			kind[c] = ELEM_REFS;
		else
			elem[c] = class_named(h, by, s, n);
	}
	struct hb_refs r;
	hb_refs_view(h, &md->refs, &r);
	for (node_t v = 1; v < h->n && r.start != NULL; v++) {
		uint32_t c = h->node_class[v];
		if (kind[c] != ELEM_UNKNOWN || elem[c] == UINT32_MAX)
			continue;
		for (edge_t e = r.start[v]; e < r.start[v + 1]; e++)
			if (r.to[e] < h->n && h->node_class[r.to[e]] == elem[c]) {
				kind[c] = ELEM_REFS;
				break;
			}
	}
	free(by);
	free(elem);
	md->elem_kind = kind;
	return kind;
}

/* "+24"; an element of an array of references "[3]"; of an array that
 * may hold structs, the reference's byte in the elements, "[+72]". */
static void off_label(const struct heap *h, node_t src, uint32_t off, struct sbuf *out)
{
	const struct mlpd_data *md = h->fmt_data;
	uint32_t hdr = ARRAY_HEADER_WORDS * md->ptrsize;
	uint8_t kind = off >= hdr ? elements_known(h)[h->node_class[src]] : ELEM_NONE;

	if (kind == ELEM_REFS && (off - hdr) % md->ptrsize == 0)
		sbuf_printf(out, "[%u]", (off - hdr) / md->ptrsize);
	else if (kind != ELEM_NONE)
		sbuf_printf(out, "[+%u]", off - hdr);
	else
		sbuf_printf(out, "+%u", off);
}

static void mlpd_edge_label(const struct heap *h, node_t src, node_t dst, struct sbuf *out)
{
	const struct mlpd_data *md = h->fmt_data;
	struct hb_refs r;
	int64_t e = -1;

	if (md != NULL) {
		hb_refs_view(h, &md->refs, &r);
		e = hb_refs_find(&r, src, dst);
	}
	if (e >= 0)
		off_label(h, src, edge_offset(md, (uint64_t)e), out);
	else
		sbuf_adds(out, "<?>");
}

static int mlpd_fields(const struct heap *h, node_t v, field_fn fn, void *arg)
{
	const struct mlpd_data *md = h->fmt_data;
	struct sbuf name;
	int n = 0;

	if (v == 0 || v >= h->n || md == NULL)
		return -1;
	sbuf_init(&name);
	/* in the object's order: by offset; every one the file gave (a
	 * reference left out is still a field) */
	struct hb_refs r;
	hb_refs_view(h, &md->refs, &r);
	edge_t lo = r.start[v], hi = r.start[v + 1];
	uint64_t *k = xmalloc((hi - lo + 1) * sizeof *k);
	for (edge_t e = lo; e < hi; e++)
		k[e - lo] = (uint64_t)edge_offset(md, e) << 32 | r.to[e];
	hw_qsort(k, hi - lo, sizeof *k, cmp_first_u64);
	for (edge_t e = 0; e < hi - lo; e++, n++) {
		struct hvalue val = { .type = T_OBJECT, .v.id = h->node_id[(node_t)k[e]] };
		sbuf_reset(&name);
		off_label(h, v, (uint32_t)(k[e] >> 32), &name);
		fn(arg, name.buf, &val);
	}
	free(k);
	sbuf_free(&name);
	return n;
}

/* The registered range's description ("static field", "thread 0x..."). */
static void mlpd_root_detail(const struct heap *h, const struct root *r, struct sbuf *out)
{
	if (r->kind < RK_WEAK_ONLY && r->native < MR_NSOURCES && r->thread_serial != 0 &&
	    heap_str(h, r->thread_serial - 1)[0] != '\0') {
		sbuf_adds(out, " (");
		sbuf_adds(out, heap_str(h, r->thread_serial - 1));
		sbuf_addc(out, ')');
	}
}

static const char *mlpd_gen_name(unsigned g)
{
	return g == 0 ? "nursery" : g == 1 ? "old" : NULL;
}

static void mlpd_free_data(struct heap *h)
{
	struct mlpd_data *md = h->fmt_data;

	if (md == NULL)
		return;
	free(md->off16);
	free(md->elem_kind);
	free(md->big_at);
	free(md->big_off);
	hb_refs_free(&md->refs);
	free(md);
	h->fmt_data = NULL;
}

/* ---- the index cache: what mlpd_data keeps ---- */

static int mlpd_data_arrays(struct heap *h, struct fmt_array *a)
{
	struct mlpd_data *md = h->fmt_data;

	if (md == NULL)
		md = h->fmt_data = xcalloc(1, sizeof *md);
	a[0] = (struct fmt_array){ (void **)&md->off16, NULL, sizeof *md->off16, md->noff };
	a[1] = (struct fmt_array){ NULL, &md->key, sizeof md->key, 1 };
	a[2] = (struct fmt_array){ NULL, &md->t_end, sizeof md->t_end, 1 };
	a[3] = (struct fmt_array){ NULL, &md->ptrsize, sizeof md->ptrsize, 1 };
	int n = 4 + hb_refs_arrays(h, &md->refs, a + 4);
	a[n] = (struct fmt_array){ (void **)&md->big_at, NULL, sizeof *md->big_at, md->nbig };
	a[n + 1] = (struct fmt_array){ (void **)&md->big_off, NULL, sizeof *md->big_off, md->nbig };
	return n + 2;
}

/* The engine is about to move references: the labels' references kept. */
static void mlpd_refs_change(struct heap *h)
{
	struct mlpd_data *md = h->fmt_data;

	if (md != NULL)
		hb_refs_keep(h, &md->refs);
}

/* A label for every reference, a pointer's size, a root's name among
 * the names. */
static const char *mlpd_data_loaded(struct heap *h, const struct fmt_array *a, int n)
{
	struct mlpd_data *md = h->fmt_data;

	md->noff = a[0].count;
	md->nbig = a[n - 2].count;
	if (!hb_refs_loaded(h, &md->refs, a + 4) || md->noff != (md->refs.own ? md->refs.n : h->nedges) ||
	    (md->ptrsize != 4 && md->ptrsize != 8) || a[n - 1].count != md->nbig)
		return "bad Mono data";
	for (uint64_t i = 0; i < md->nbig; i++) /* ascending, each a reference's marked far */
		if (md->big_at[i] >= md->noff || (i > 0 && md->big_at[i] <= md->big_at[i - 1]) ||
		    md->off16[md->big_at[i]] != OFF_BIG || md->big_off[i] < OFF_BIG)
			return "bad Mono data";
	uint64_t far = 0; /* and no reference marked far without its entry */
	for (uint64_t e = 0; e < md->noff; e++)
		far += md->off16[e] == OFF_BIG;
	if (far != md->nbig)
		return "bad Mono data";
	for (size_t i = 0; i < h->nroot_rec; i++)
		if (h->root_rec[i].kind < RK_WEAK_ONLY && h->root_rec[i].native < MR_NSOURCES &&
		    h->root_rec[i].thread_serial > h->names_len)
			return "bad root";
	return NULL;
}

/* ---- which objects were there before: the moves replayed ----
 *
 * Between two heapshots j < k of one file, an object of j is followed
 * in time order through the GC's MOVE events (each says an object went
 * from one address to another) and through every heapshot after j up to
 * k, each a point where the set of objects is known: an object of j
 * that one of them no longer holds has died. A move or an allocation to
 * an address tells that what was there had died. An object of k at an
 * address an object of j was followed to is that object; any other is
 * new.
 *
 * Objects of the old generation die at major collections only. One that
 * ends inside a heapshot's pause is seen by it (sgen walks the heap when
 * that pause's collections are done: the forced one, and a concurrent
 * one it finished). One that ends in no heapshot's pause
 * (`heapshot=ondemand`, `NNgc`; by default, a concurrent collection,
 * which asks for a heapshot later instead) can free an address that a
 * new object then takes without an event (straight into the old
 * generation: a large or a pinned object; allocations are recorded only
 * with the profiler's alloc option). An object of j followed across such
 * a collection is taken to be the object the next heapshot holds at its
 * address if that one has its vtable and size, else it died: inferred,
 * and counted as such. */

/* A map value: old's node << F_SHIFT and what the pairing rests on */
enum {
	F_NURSERY = 1,  /* in the nursery at j and not moved since */
	F_UNSEEN = 2,   /* a major collection no heapshot saw came since it was last seen */
	F_INFERRED = 4, /* taken to be the object a heapshot held at its address after such a collection */
	F_SHIFT = 3
};

struct follow {
	struct imap m;           /* address -> old's object there */
	struct mkind *ok;        /* old's objects: what each is (addr 1: not among heapshot j's records) */
	uint64_t replayed;       /* moves of old's objects */
	uint64_t unseen;         /* major collections no heapshot saw */
	uint64_t *unseen_after;  /* the same by the heapshot before them, less j */
};

static int by_time(const void *x, const void *y, void *ctx)
{
	const struct mmove *a = x, *b = y;

	(void)ctx;
	return a->t < b->t ? -1 : a->t > b->t;
}

/* What each of old's objects is (vtable and size), from heapshot j's
 * records (read again with the moves). */
static struct mkind *old_kinds(struct replay *rp, const struct heap *old)
{
	struct mkind *j = rp->mid + rp->jr.lo, *ok = xreallocarray(NULL, (size_t)old->n + 1, sizeof *ok);
	size_t n = rp->jr.hi - rp->jr.lo;

	hw_qsort(j, n, sizeof *j, cmp_first_u64);
	for (node_t v = 0; v < old->n; v++) {
		size_t at = lower_bound_u64s(j, n, sizeof *j, old->node_id[v]);
		ok[v] = at < n && j[at].addr == old->node_id[v] ? j[at] : (struct mkind){ 1, 0, 0 };
	}
	return ok;
}

/* A heapshot's objects (obj[0, n), sorted): an object of old at an
 * address they lack has died; one last seen before a major collection
 * no heapshot saw is the object there if that has its vtable and size
 * (inferred), else it died too. */
static void at_heapshot(struct follow *f, const struct mkind *obj, size_t n)
{
	struct imap *m = &f->m;

	for (size_t i = 0; i < m->cap;) {
		size_t v = m->val[i];
		if (v == IMAP_FREE) {
			i++;
			continue;
		}
		size_t at = lower_bound_u64s(obj, n, sizeof *obj, m->key[i]);
		const struct mkind *o = &f->ok[v >> F_SHIFT];
		int held = at < n && obj[at].addr == m->key[i];
		if (held && (v & F_UNSEEN))
			held = o->addr != 1 && obj[at].vt == o->vt && obj[at].size == o->size;
		if (!held) {
			imap_del(m, i); /* i now holds another entry, or none: look again */
			continue;
		}
		if (v & F_UNSEEN)
			m->val[i] = (v & ~(size_t)F_UNSEEN) | F_INFERRED;
		i++;
	}
}

/* A major collection no heapshot saw: every object followed so far may
 * have died in it. */
static void unseen_major(struct follow *f)
{
	for (size_t i = 0; i < f->m.cap; i++)
		if (f->m.val[i] != IMAP_FREE)
			f->m.val[i] |= F_UNSEEN;
}

/* An object moved: old's object at from (if any) is at to now; what was
 * at to had died. */
static void move(struct follow *f, const struct mmove *e, uint64_t second_gc)
{
	struct imap *m = &f->m;
	size_t a = imap_slot(m, e->from), was = m->val[a];

	if (was != IMAP_FREE)
		imap_del(m, a);
	size_t b = imap_slot(m, e->to);
	if (m->val[b] != IMAP_FREE)
		imap_del(m, b);
	if (was != IMAP_FREE) { /* pinned through the first collection after j: still unsure */
		int pinned = (was & F_NURSERY) && e->t >= second_gc;
		imap_set(m, e->to, (was & ~(size_t)F_NURSERY) | (pinned ? F_NURSERY : 0));
		f->replayed++;
	}
}

/* The major collections that ended inside a complete heapshot's pause
 * after j (shots[], as the first pass found them): seen by it. */
static void majors_seen(struct replay *rp, const struct mshot *shots, size_t nshots)
{
	for (size_t i = 0; i < rp->nmv; i++)
		for (size_t s = rp->j + 1; rp->mv[i].from == MAJOR_END && s <= rp->k && s < nshots; s++)
			if (shots[s].complete && shots[s].t_start <= rp->mv[i].t && rp->mv[i].t <= shots[s].t_end)
				rp->mv[i].from = MAJOR_SEEN;
}

/* Old's objects (in f->m by address) followed through the events in
 * time order; f->m as they are at k. */
static void follow_moves(struct replay *rp, const struct heap *old, struct follow *f)
{
	uint64_t second_gc = rp->ngc > 1 ? rp->second_gc : UINT64_MAX;
	size_t last = rp->j; /* the latest heapshot ended */

	hw_merge_sort(rp->mv, rp->nmv, sizeof *rp->mv, by_time, NULL);
	f->ok = old_kinds(rp, old);
	imap_init(&f->m, old->n);
	for (node_t v = 1; v < old->n; v++)
		imap_set(&f->m, old->node_id[v], (size_t)v << F_SHIFT |
			 (old->node_gen != NULL && old->node_gen[v] == 0 ? F_NURSERY : 0));
	for (size_t i = 0; i < rp->nmv; i++) {
		const struct mmove *e = &rp->mv[i];
		if (e->from == SHOT_END) {
			const struct mrange *s = &rp->ends[e->to];
			hw_qsort(rp->mid + s->lo, s->hi - s->lo, sizeof *rp->mid, cmp_first_u64);
			at_heapshot(f, rp->mid + s->lo, s->hi - s->lo);
			last = s->shot;
		} else if (e->from == MAJOR_END) {
			unseen_major(f);
			f->unseen++;
			f->unseen_after[last - rp->j]++;
		} else if (e->from == ALLOCATED) {
			size_t b = imap_slot(&f->m, e->to);
			if (f->m.val[b] != IMAP_FREE)
				imap_del(&f->m, b);
		} else if (e->from != MAJOR_SEEN) {
			move(f, e, second_gc);
		}
	}
}

/* "2, 3, 4": heapshots j to k (1-based), the middle left out when many */
static void shot_list(struct sbuf *out, unsigned j, unsigned k)
{
	if (k - j > 5) {
		sbuf_printf(out, "%u, %u, ..., %u", j, j + 1, k);
		return;
	}
	for (unsigned s = j; s <= k; s++)
		sbuf_printf(out, "%s%u", s == j ? "" : ", ", s);
}

/* The answer's source: what is exact, what is inferred and how many
 * objects that covers. */
static void replay_how(struct sbuf *how, const struct replay *rp, const struct follow *f, const char *ep,
		       uint64_t inferred, uint64_t unsure)
{
	unsigned j = (unsigned)rp->j + 1, k = (unsigned)rp->k + 1;

	if (inferred + unsure > 0)
		sbuf_printf(how, "inferred for %llu object%s counted old, exact for the rest: ",
			    (unsigned long long)(inferred + unsure), inferred + unsure == 1 ? "" : "s");
	else
		sbuf_adds(how, "exact: ");
	sbuf_adds(how, "the GC's moves replayed through heapshots ");
	shot_list(how, j, k);
	sbuf_printf(how, " of %s (%llu moves of its objects, %zu collection%s)", ep,
		    (unsigned long long)f->replayed, rp->ngc, rp->ngc == 1 ? "" : "s");
	if (f->unseen > 0) {
		sbuf_printf(how, "; %llu major collection%s made no heapshot (", (unsigned long long)f->unseen,
			    f->unseen == 1 ? "" : "s");
		const char *sep = "";
		for (size_t s = 0; s < rp->k - rp->j; s++)
			if (f->unseen_after[s] > 0) {
				sbuf_printf(how, "%s%llu after heapshot %zu", sep, (unsigned long long)f->unseen_after[s],
					    rp->j + 1 + s);
				sep = ", ";
			}
		sbuf_adds(how, ")");
	}
	if (f->unseen > 0 && inferred == 0)
		sbuf_adds(how, ", but no object counted old rests on them");
	if (inferred > 0)
		sbuf_printf(how, ": what died in them is not seen, and %llu object%s of heapshot %u last seen before "
			    "one %s taken to be the object of the same vtable and size that the next heapshot holds at "
			    "that address, which no move%s the file records reached in between (%s)",
			    (unsigned long long)inferred, inferred == 1 ? "" : "s", j, inferred == 1 ? "is" : "are",
			    rp->allocs > 0 ? " or allocation" : "",
			    rp->allocs > 0 ? "were one of them new after all, the old one would be gone"
					   : "the file records no allocations: an object allocated there straight into "
					     "the old generation, a large or a pinned one, would be taken for the dead one");
	if (unsure > 0)
		sbuf_printf(how, "; %llu object%s pinned in the nursery at heapshot %u %s taken to be the one%s at "
			    "%s address now", (unsigned long long)unsure, unsure == 1 ? "" : "s", j,
			    unsure == 1 ? "is" : "are", unsure == 1 ? "" : "s", unsure == 1 ? "its" : "their");
}

/* A run of Mono: its process's id and start, from the file's header. */
static int mlpd_run_key(const struct heap *h, uint64_t *key, struct sbuf *words)
{
	const struct mlpd_data *md = h->fmt_data;
	struct mlpd_head hd;
	const char *why;
	size_t at;

	if (md == NULL || h->map == NULL || read_head(h->map, h->size, &hd, &why, &at) < 0 ||
	    ((uint64_t)hd.pid << 32 ^ hd.start_ms) != md->key)
		return 0;
	*key = md->key;
	time_t t = (time_t)(hd.start_ms / 1000);
	struct tm tm;
	char started[40] = "";
	if (hd.start_ms != 0 && gmtime_r(&t, &tm) != NULL)
		strftime(started, sizeof started, ", started %Y-%m-%d %H:%M:%S UTC", &tm);
	sbuf_printf(words, "process %u%s", hd.pid, started);
	return 1;
}

static int mlpd_identity(const struct heap *h, const struct heap *old, node_t *same, struct sbuf *how,
			 struct sbuf *why)
{
	const struct mlpd_data *mh = h->fmt_data, *mo = old->fmt_data;
	char *ep = esc_str(h->path);
	int rc = -1;

	if (mh == NULL || mo == NULL || mh->key != mo->key) {
		sbuf_printf(why, "the two files come from different runs of Mono");
		free(ep);
		return -1;
	}
	if (old->snap == h->snap) {
		for (node_t v = 0; v < h->n; v++)
			same[v] = v < old->n ? v : HW_NONE;
		sbuf_printf(how, "exact: heapshot %u of %s against itself", h->snap, ep);
		free(ep);
		return 0;
	}
	if (old->snap > h->snap) { /* a copy of the file as the baseline: its path did not tell */
		sbuf_printf(why, "the baseline's heapshot %u comes after heapshot %u", old->snap, h->snap);
		free(ep);
		return -1;
	}
	/* mid never NULL: a heapshot of no objects sorts mid + 0 */
	struct replay rp = { .j = old->snap - 1, .k = h->snap - 1, .t_from = mo->t_end, .t_to = mh->t_end,
			     .mid = xmalloc(sizeof *rp.mid), .cmid = 1 };
	struct heap tmp = { .path = h->path, .map = h->map, .size = h->size, .fd = -1 };
	struct mrd r = { .h = &tmp, .rp = &rp, .nt = { .h = &tmp } };
	struct follow f = { .unseen_after = xcalloc(rp.k - rp.j + 1, sizeof *f.unseen_after) };
	struct mlpd_head hd;
	const char *w;
	size_t at;
	r.kept.shot = -1;
	if (read_head(h->map, h->size, &hd, &w, &at) < 0) {
		sbuf_printf(why, "%s: offset %zu: %s", ep, at, w);
		goto done;
	}
	r.ver = hd.ver;
	read_buffers(&r, h->map, h->size, hd.len, NULL);
	if (r.bad_bufs > 0) { /* the moves in what was skipped are not replayed */
		sbuf_printf(why, "%s: offset %llu: the rest of %llu buffers could not be read: the GC's moves in "
			    "them are missing", ep, (unsigned long long)r.bad_at - 1, (unsigned long long)r.bad_bufs);
		goto done;
	}
	if (r.moves == 0 && rp.ngc > 0) {
		sbuf_printf(why, "%s has no GC move events (recorded with nodefaults and without gcmove)", ep);
		goto done;
	}
	if (rp.ngc == 0) {
		sbuf_printf(why, "%s has no GC events between heapshots %u and %u: whether a major collection "
			    "made no heapshot cannot be told", ep, old->snap, h->snap);
		goto done;
	}
	majors_seen(&rp, r.shots, r.nshots);
	follow_moves(&rp, old, &f);
	uint64_t unsure = 0, inferred = 0;
	same[0] = 0;
	for (node_t v = 1; v < h->n; v++) {
		size_t a = imap_get(&f.m, h->node_id[v]);
		same[v] = a != IMAP_FREE ? (node_t)(a >> F_SHIFT) : HW_NONE;
		if (a == IMAP_FREE)
			continue;
		if (a & (F_INFERRED | F_UNSEEN))
			inferred++;
		else if ((a & F_NURSERY) && rp.ngc > 1)
			unsure++;
	}
	imap_free(&f.m);
	replay_how(how, &rp, &f, ep, inferred, unsure);
	rc = 0;
done:
	free(ep);
	free(f.ok);
	free(f.unseen_after);
	free(rp.mv);
	free(rp.ends);
	free(rp.mid);
	imap_free(&rp.vts);
	mrd_free(&r);
	free(tmp.names);
	warn_free(&tmp.warn);
	return rc;
}

const struct format_ops mlpd_format = {
	.name = "mlpd",
	.title = "Mono (mlpd)",
	.label = "Mono's log-profiler heapshots (.mlpd)",
	.runtime = "mono",
	.rt = &mono_runtime,
	.cacheable = 1,
	.data_arrays = mlpd_data_arrays,
	.data_loaded = mlpd_data_loaded,
	.needs = HP_OUT | HP_CLASS | HP_KIND | HP_OFF | HP_IDS,
	.probe = mlpd_probe,
	.header = mlpd_header,
	.parse = mlpd_parse,
	.fields = mlpd_fields,
	.edge_label = mlpd_edge_label,
	.root_natives = mlpd_root_natives,
	.nroot_natives = MR_COUNT,
	.root_detail = mlpd_root_detail,
	.gen_name = mlpd_gen_name,
	.gen_told = "Mono's log profiler writes them from its data format 16 on",
	.free_data = mlpd_free_data,
	.refs_change = mlpd_refs_change,
	.snapshots = 1,
	.identity = mlpd_identity,
	.run_key = mlpd_run_key,
};
