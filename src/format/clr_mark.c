/* clr_mark.c — the objects of a .NET dump that existed at a mark: the
 * mark's heap replayed through the GCs after it (clr_mark.h).
 *
 * What the runtime reports of a GC (keyword GCHeapSurvivalAndMovement):
 * GCGenerationRange, each generation's ranges (generation, start, bytes
 * used), once as the GC starts and once as it ends; between them, for the
 * generations it collects, GCBulkMovedObjectRanges (a compacting GC:
 * each run of live objects' old start, new start and length, those that
 * stay put with their start twice) or GCBulkSurvivingObjectRanges (a
 * sweeping GC, and the large and pinned object heaps: each run's start
 * and length). So an object at x, inside a generation the GC collects,
 * is at x + (new - old) after it when a moved range holds x, still at x
 * when a surviving range does, and dead when none does; outside those
 * generations it stays where it is. The GC collects generations 0 to its
 * depth (GCStart), the large and pinned object heaps with generation 2.
 *
 * A background GC (GCStart type 1) runs beside the process and the
 * ephemeral GCs inside it, and tells its survivors once, after its sweep
 * (background_apply below). A heap dump's addresses are those after its
 * own GC: the mark's GC is not replayed, the snapshot's is. Every object
 * the replay ends on must have its type and size of the mark (BulkNode):
 * an object keeps both for its life.
 *
 * The mark file: MAGIC, header lines, then the old objects' records
 * (struct obj: where each is, where it was), the inferred ones' addresses
 * (uint64_t) and the mark's BulkType payloads. */
#include "format/clr_mark.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/clr.h"
#include "format/nettrace.h"

enum { EV_GCSTART = 1, EV_GCEND = 2, EV_BULKTYPE = 15, EV_NODE = 18, EV_SURVIVING = 21, EV_MOVED = 22, EV_GENRANGE = 23 };
/* 2: the inferred objects' addresses after the old ones' records */
#define MAGIC "heapwalk .NET mark 2\n"
#define MAGIC_STEM "heapwalk .NET mark "

static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint64_t rdp(const uint8_t *p, unsigned ps) { return ps == 8 ? rd64(p) : rd32(p); }

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* ---- a heap dump's objects ---- */

/* The addresses of the objects of a trace's heap dump (its first
 * induced, blocking full GC, as format/clr.c reads it), and that GC. */
struct range { uint64_t start, used; uint8_t gen; uint64_t ts; /* when told (a heap dump's) */ };
/* An object of the mark: where it is now, where it was at the mark. */
struct obj { uint64_t at, from; };
/* An object of a heap dump as its BulkNode tells it. */
struct dobj { uint64_t addr, size, type; };

struct dump_read {
	const struct nt_trace *t;
	int in_gc, done;
	int by_time; /* the GC's events by their time (clr_window), its times below */
	uint64_t start_ts, end_ts;
	uint32_t gc;
	struct dobj *o; /* sorted by address once read */
	size_t n, cap;
	struct sbuf *types; /* BulkType payloads, each after its uint32 length; NULL: not kept */
	struct range *rg; /* the generations' ranges after the walk */
	size_t nrg, crg;
};

static int dump_event(void *arg, const struct nt_event *e)
{
	struct dump_read *d = arg;
	unsigned ps = d->t->pointer_size;

	if (!e->runtime)
		return 0;
	if (e->id == EV_BULKTYPE && d->types != NULL) { /* before the GC too, as clr.c keeps them */
		sbuf_add(d->types, (const char *)&e->len, 4);
		sbuf_add(d->types, (const char *)e->payload, e->len);
	}
	if (d->by_time) { /* as clr.c */
		d->in_gc = e->timestamp >= d->start_ts;
		d->done = e->timestamp > d->end_ts;
		if (e->id == EV_GCSTART || e->id == EV_GCEND)
			return 0;
	}
	if (d->done)
		return 0;
	if (e->id == EV_GCSTART && e->len >= 16 && !d->in_gc && rd32(e->payload + 4) == 2 &&
	    rd32(e->payload + 12) != 1) {
		d->in_gc = 1;
		d->gc = rd32(e->payload);
	} else if (e->id == EV_GCEND && e->len >= 4 && d->in_gc && rd32(e->payload) == d->gc) {
		d->done = 1;
	} else if (e->id == EV_GENRANGE && d->in_gc && e->len >= 1 + ps + 16) {
		/* each range as last told: at the GC's end, after the walk (a
		 * server GC's threads' events come in any order in the file) */
		struct range x = { rdp(e->payload + 1, ps), rd64(e->payload + 1 + ps), e->payload[0], e->timestamp };
		size_t i = 0;
		while (i < d->nrg && d->rg[i].start != x.start)
			i++;
		if (i == d->nrg) {
			VEC_GROW(d->rg, d->nrg, d->crg);
			d->rg[d->nrg++] = x;
		} else if (x.ts >= d->rg[i].ts) {
			d->rg[i] = x;
		}
	} else if (e->id == EV_NODE && d->in_gc && e->len >= 10) {
		uint32_t n = rd32(e->payload + 4);
		if ((uint64_t)n * (ps + 24) > e->len - 10)
			return 0; /* the reader warns of it; the check after the replay will not match */
		for (uint32_t i = 0; i < n; i++) {
			const uint8_t *q = e->payload + 10 + (size_t)i * (ps + 24);
			VEC_GROW(d->o, d->n, d->cap);
			d->o[d->n++] = (struct dobj){ rdp(q, ps), rd64(q + ps), rd64(q + ps + 8) };
		}
	}
	return 0;
}

/* 0 with the objects (sorted) and the trace's header, or -1 with err. */
static int read_dump(const char *what, const uint8_t *m, uint64_t size, struct nt_trace *t, struct dump_read *d,
		     struct sbuf *types, struct sbuf *err)
{
	struct warnings w = { .quiet = 1 };

	memset(d, 0, sizeof *d);
	d->t = t;
	d->types = types;
	int rc = nt_read(what, m, size, t, dump_event, d, &w, err);
	struct clr_window win;
	if (rc == 0 && (!d->done || d->n == 0) && (clr_window(m, size, &win), win.found && win.ended)) {
		/* as clr.c reads it: the GC's events by their time */
		d->n = d->nrg = 0;
		if (types != NULL)
			sbuf_reset(types);
		d->by_time = 1, d->gc = win.gc, d->start_ts = win.start_ts, d->end_ts = win.end_ts;
		d->in_gc = d->done = 0;
		rc = nt_read(what, m, size, t, dump_event, d, &w, err);
		d->done = 1; /* its end is there, whatever came after it */
	}
	warn_free(&w);
	if (rc == 0 && !d->done) {
		sbuf_printf(err, "%s: no whole heap dump in it", what);
		rc = -1;
	}
	if (rc == 0)
		hw_qsort(d->o, d->n, sizeof *d->o, cmp_u64); /* by addr, the first member */
	return rc;
}

/* ---- the replay ---- */

struct move { uint64_t from, to, len; };
struct thread_seq { uint64_t thread; uint32_t seq; };
struct batch { uint64_t thread; uint32_t next; int moved; };

/* A GC being read: its generations' ranges as it began, its runs; a
 * background GC's ranges as it ended too (told after its survivors). */
struct gc_read {
	int on, ranges_done;
	uint32_t gc, depth;
	uint64_t thread;          /* the thread that told its start */
	struct range *rg, *erg;
	size_t nrg, crg, nerg, cerg;
	struct move *mv;
	size_t nmv, cmv;
	struct batch *batches;    /* per thread that reports runs, moved or surviving: the next batch */
	size_t nbatches, cbatches;
	int nested;               /* a background GC: GCs ran inside it */
	int walked;               /* a background GC: its survivors were told */
	int applied;              /* and applied (before a GC that ran after them) */
};

struct replay {
	const struct nt_trace *t;
	uint32_t mark_gc, dump_gc, next_gc;
	struct obj *a; /* the mark's objects still alive, by where they are now */
	size_t n;
	struct gc_read fg;  /* the blocking GC being read (inside bg, if that is on) */
	struct gc_read bg;  /* the background GC being read */
	int saw_mark_gc, saw_dump_gc;
	uint64_t gcs, moved, died, outside, bgcs, reused;
	uint32_t first_bgc;
	/* where objects of the mark that a background GC kept on the large
	 * or pinned object heap were at the mark (their from): an allocation
	 * may have taken a dead one's place there unrecorded */
	uint64_t *unsure;
	size_t nunsure, cunsure;
	uint64_t inferred, inferred_new; /* of those, in the dump: of their type and size, or not (or none) */
	struct thread_seq *seqs;
	size_t nseqs, cseqs;
	char why[300]; /* the first doubt, "" if none */
};

static void doubt(struct replay *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void doubt(struct replay *r, const char *fmt, ...)
{
	va_list ap;

	if (r->why[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof r->why, fmt, ap);
	va_end(ap);
}

/* Events the session dropped show as a gap in a thread's count. */
static void check_seq(struct replay *r, const struct nt_event *e)
{
	for (size_t i = 0; i < r->nseqs; i++)
		if (r->seqs[i].thread == e->capture_thread) {
			if (e->seq != r->seqs[i].seq + 1)
				doubt(r, "the recorder's session lost events (its buffer was full)");
			r->seqs[i].seq = e->seq;
			return;
		}
	VEC_GROW(r->seqs, r->nseqs, r->cseqs);
	r->seqs[r->nseqs++] = (struct thread_seq){ e->capture_thread, e->seq };
}

static int by_start(const void *a, const void *b)
{
	return cmp_u64(&((const struct range *)a)->start, &((const struct range *)b)->start);
}

static int by_from(const void *a, const void *b)
{
	return cmp_u64(&((const struct move *)a)->from, &((const struct move *)b)->from);
}

/* The range of rg[0..n) (sorted) that holds x, NULL if none. */
static const struct range *range_of(const struct range *rg, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) { /* the first range starting past x */
		size_t mid = lo + (hi - lo) / 2;
		if (rg[mid].start <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && x - rg[lo - 1].start < rg[lo - 1].used ? &rg[lo - 1] : NULL;
}

/* The first run of mv[0..n) (sorted by from) starting at or past x. */
static size_t first_run(const struct move *mv, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (mv[mid].from < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The run of mv[0..n) (sorted by from) that holds x, NULL if none. Runs
 * do not overlap: the last starting at or before x is the only one. */
static const struct move *move_of(const struct move *mv, size_t n, uint64_t x)
{
	size_t k = first_run(mv, n, x);

	if (k < n && mv[k].from == x)
		return &mv[k];
	return k > 0 && x - mv[k - 1].from < mv[k - 1].len ? &mv[k - 1] : NULL;
}

/* Two sorted runs, a[0..na) and b[0..nb), into out (sorted). */
static void merge(const struct obj *a, size_t na, const struct obj *b, size_t nb, struct obj *out)
{
	size_t i = 0, j = 0, k = 0;

	while (i < na || j < nb)
		out[k++] = j >= nb || (i < na && a[i].at <= b[j].at) ? a[i++] : b[j++];
}

/* Where the runs of g that moved went, as runs sorted by where (their
 * from is their to); caller frees. */
static struct move *destinations(const struct gc_read *g, size_t *n)
{
	struct move *d = xmalloc((g->nmv + 1) * sizeof *d);

	*n = 0;
	for (size_t i = 0; i < g->nmv; i++)
		if (g->mv[i].to != g->mv[i].from)
			d[(*n)++] = (struct move){ g->mv[i].to, g->mv[i].from, g->mv[i].len };
	hw_qsort(d, *n, sizeof *d, by_from);
	return d;
}

/* A blocking GC just read, applied to the mark's objects: one pass over
 * them and the generations' ranges, both by address (the objects
 * outside the generations collected stay in place and in order); the
 * collected ones that live on, wherever they went, sorted apart and
 * merged back. In a background GC, the sweep frees dead objects of the
 * old generations while this GC runs, and this GC may promote objects
 * into that space: an uncollected object where a run moved to is dead;
 * and the sweep gives back the free end of a region (its range ends
 * sooner, or is gone): an object of the old generations as the
 * background GC began that is in no range now is dead. */
static void apply(struct replay *r, struct gc_read *g, int in_background)
{
	size_t k = 0, gi = 0, nt = 0, nd = 0;
	struct obj *t = xmalloc((r->n + 1) * sizeof *t);

	hw_qsort(g->rg, g->nrg, sizeof *g->rg, by_start);
	hw_qsort(g->mv, g->nmv, sizeof *g->mv, by_from);
	for (size_t i = 1; i < g->nmv; i++)
		if (g->mv[i].from - g->mv[i - 1].from < g->mv[i - 1].len)
			doubt(r, "GC %u reported runs of objects that overlap", g->gc);
	struct move *dst = in_background ? destinations(g, &nd) : NULL;
	for (size_t i = 0; i < r->n; i++) {
		uint64_t x = r->a[i].at;
		while (gi < g->nrg && x >= g->rg[gi].start && x - g->rg[gi].start >= g->rg[gi].used)
			gi++;
		const struct range *in = gi < g->nrg && x >= g->rg[gi].start ? &g->rg[gi] : NULL, *was;
		if (in == NULL && in_background && (was = range_of(r->bg.rg, r->bg.nrg, x)) != NULL && was->gen >= 2) {
			r->died++; /* the background sweep freed it, and gave its place back */
			continue;
		} else if (in == NULL) {
			if (r->outside++ == 0)
				doubt(r, "an object of the mark (0x%llx) was in no generation as GC %u began",
				      (unsigned long long)x, g->gc);
		} else if (in->gen <= g->depth || (g->depth >= 2 && in->gen > 2)) {
			const struct move *m = move_of(g->mv, g->nmv, x);
			if (m == NULL)
				r->died++;
			else {
				r->moved += m->to != m->from;
				t[nt++] = (struct obj){ x - m->from + m->to, r->a[i].from };
			}
			continue;
		} else if (dst != NULL && move_of(dst, nd, x) != NULL) {
			r->died++, r->reused++;
			continue;
		}
		r->a[k++] = r->a[i];
	}
	free(dst);
	hw_qsort(t, nt, sizeof *t, cmp_u64); /* by at, the first member */
	struct obj *out = xmalloc((k + nt + 1) * sizeof *out);
	merge(r->a, k, t, nt, out);
	for (size_t i = 1; i < k + nt; i++)
		if (out[i].at == out[i - 1].at) {
			doubt(r, "GC %u took two objects of the mark to one address (0x%llx)", g->gc,
			      (unsigned long long)out[i].at);
			break;
		}
	free(r->a);
	free(t);
	r->a = out;
	r->n = k + nt;
	r->gcs++;
}

/* Did g's runs (sorted) report any object inside range in? */
static int walked(const struct gc_read *g, const struct range *in)
{
	size_t k = first_run(g->mv, g->nmv, in->start);

	return (k < g->nmv && g->mv[k].from - in->start < in->used) ||
	       (k > 0 && g->mv[k - 1].from + g->mv[k - 1].len > in->start);
}

/* One object of the mark, at x as a background GC ended: 1 it lives on
 * there, 0 it died. */
static int background_keeps(struct replay *r, const struct gc_read *g, const struct range *rg, size_t nrg,
			    const struct obj *o)
{
	uint64_t x = o->at;
	const struct range *in = range_of(rg, nrg, x), *was = range_of(g->rg, g->nrg, x);

	if (in == NULL) { /* a region of the old generations the sweep emptied and gave back */
		if (was != NULL && was->gen >= 2)
			return 0;
		if (r->outside++ == 0)
			doubt(r, "an object of the mark (0x%llx) was in no generation as background GC %u ended",
			      (unsigned long long)x, g->gc);
		return 1;
	}
	if (move_of(g->mv, g->nmv, x) != NULL) {
		if (in->gen > 2) {
			VEC_GROW(r->unsure, r->nunsure, r->cunsure);
			r->unsure[r->nunsure++] = o->from;
		}
		return 1;
	}
	if (in->gen >= 2 || (was != NULL && was->gen >= 2) || walked(g, in))
		return 0;
	doubt(r, "background GC %u told no object of gen%u at 0x%llx, where an object of the mark was: it may "
	      "have run blocking", g->gc, in->gen, (unsigned long long)in->start);
	return 1;
}

/* A background GC's survivors, applied. They are told once, after its
 * sweep, from its own thread while the process is stopped: every object
 * not free (the runtime's walk_survivors_for_bgc), the old generations'
 * objects that the sweep left, those the GCs inside it promoted there,
 * and those allocated there meanwhile (large or pinned objects: no
 * event tells them). Nothing moves in it: an object of the mark in the
 * old generations or on the large or pinned object heap that no run
 * holds died, one that a run holds lives on (on the large and pinned
 * object heaps an allocation may have taken a dead one's place: those
 * are checked against the dump at the end, unsure). Younger objects
 * are the GCs' inside it, already replayed, and stay. rg: the
 * generations' ranges as it told them (those it tells as it ends, or
 * those of a GC that runs after them, before it ends: nothing moved in
 * between). */
static void background_apply(struct replay *r, struct gc_read *g, struct range *rg, size_t nrg)
{
	size_t k = 0;

	for (size_t i = 0; i < g->nmv; i++)
		if (g->mv[i].to != g->mv[i].from) {
			doubt(r, "background GC %u reported moved objects while GCs ran inside it", g->gc);
			break;
		}
	if (nrg == 0)
		doubt(r, "background GC %u told no generations' ranges after its survivors", g->gc);
	hw_qsort(g->rg, g->nrg, sizeof *g->rg, by_start);
	hw_qsort(rg, nrg, sizeof *rg, by_start);
	hw_qsort(g->mv, g->nmv, sizeof *g->mv, by_from);
	for (size_t i = 0; i < r->n; i++)
		if (background_keeps(r, g, rg, nrg, &r->a[i]))
			r->a[k++] = r->a[i]; /* in place: still sorted */
		else
			r->died++;
	r->n = k;
	g->applied = 1;
	if (r->bgcs++ == 0)
		r->first_bgc = g->gc;
	r->gcs++;
}

/* A GCEnd of the background GC g. One that moved objects and had no GC
 * inside it ran blocking after all (the runtime falls back to a blocking
 * GC when it cannot start a background one, and says background in
 * GCStart all the same): replayed as such. */
static void background_end(struct replay *r, struct gc_read *g)
{
	int moves = 0;

	for (size_t i = 0; i < g->nmv; i++)
		moves |= g->mv[i].to != g->mv[i].from;
	if (moves && !g->nested) {
		apply(r, g, 0);
		return;
	}
	if (!g->walked)
		doubt(r, "background GC %u told no survivors", g->gc);
	if (!g->applied)
		background_apply(r, g, g->erg, g->nerg);
}

static void gc_begin(struct gc_read *g, uint32_t c, uint32_t depth, uint64_t thread)
{
	g->on = 1;
	g->gc = c;
	g->depth = depth;
	g->thread = thread;
	g->ranges_done = g->nested = g->walked = g->applied = 0;
	g->nrg = g->nerg = g->nmv = g->nbatches = 0;
}

static void gc_free(struct gc_read *g)
{
	free(g->rg);
	free(g->erg);
	free(g->mv);
	free(g->batches);
}

static void gc_start(struct replay *r, const struct nt_event *e)
{
	uint32_t c = rd32(e->payload), depth = rd32(e->payload + 4), type = rd32(e->payload + 12);

	if (c == r->mark_gc)
		r->saw_mark_gc = 1;
	if (c <= r->mark_gc || c > r->dump_gc)
		return;
	if (!r->saw_mark_gc)
		doubt(r, "the recorder began after the mark's GC (%u)", r->mark_gc);
	if (r->fg.on)
		doubt(r, "GC %u began inside GC %u (not replayed)", c, r->fg.gc);
	if (c != r->next_gc)
		doubt(r, "GC %u is missing from the record (lost, or the recorder was late)", r->next_gc);
	r->next_gc = c + 1;
	if (type == 1 && !r->bg.on && !r->fg.on) { /* background */
		gc_begin(&r->bg, c, depth, e->capture_thread);
		return;
	}
	if (type == 1)
		doubt(r, "background GC %u began inside GC %u (not replayed)", c, r->bg.on ? r->bg.gc : r->fg.gc);
	if (r->bg.on) { /* a GC inside a background one: ephemeral, blocking */
		r->bg.nested = 1;
		r->bg.ranges_done = 1; /* its ranges as it began: all told, sorted for apply() */
		hw_qsort(r->bg.rg, r->bg.nrg, sizeof *r->bg.rg, by_start);
		if (depth >= 2)
			doubt(r, "GC %u of generation %u ran inside background GC %u (not replayed)", c, depth, r->bg.gc);
	}
	gc_begin(&r->fg, c, depth, e->capture_thread);
}

/* A GCBulkMovedObjectRanges (moved) or GCBulkSurvivingObjectRanges. */
static void runs(struct replay *r, struct gc_read *g, const struct nt_event *e, int moved)
{
	unsigned ps = r->t->pointer_size, stride = moved ? 2 * ps + 8 : ps + 8;
	uint32_t batch = rd32(e->payload), n = rd32(e->payload + 4);

	g->ranges_done = 1;
	/* batches are numbered from 0 in each walk of a heap, by the thread
	 * that walks it (a server GC has one per heap) */
	size_t k = 0;
	while (k < g->nbatches && (g->batches[k].thread != e->capture_thread || g->batches[k].moved != moved))
		k++;
	if (k == g->nbatches) {
		VEC_GROW(g->batches, g->nbatches, g->cbatches);
		g->batches[g->nbatches++] = (struct batch){ e->capture_thread, 0, moved };
	}
	if (batch != 0 && batch != g->batches[k].next)
		doubt(r, "a batch of GC %u's object runs is missing", g->gc);
	g->batches[k].next = batch + 1;
	if ((uint64_t)n * stride > e->len - 10) {
		doubt(r, "GC %u: a run event shorter than its count (offset %llu)", g->gc, (unsigned long long)e->at);
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *q = e->payload + 10 + (size_t)i * stride;
		uint64_t from = rdp(q, ps), to = moved ? rdp(q + ps, ps) : from, len = rd64(q + (moved ? 2 * ps : ps));
		VEC_GROW(g->mv, g->nmv, g->cmv);
		g->mv[g->nmv++] = (struct move){ from, to, len };
	}
}

/* A GCGenerationRange: those as the GC began, until a range is told
 * again (the end's, of every heap) or the first runs; a background
 * GC's after its survivors too (its end's). */
static void gen_range(struct replay *r, struct gc_read *g, const struct nt_event *e)
{
	unsigned ps = r->t->pointer_size;
	struct range x = { rdp(e->payload + 1, ps), rd64(e->payload + 1 + ps), e->payload[0], e->timestamp };
	int end = g == &r->bg && g->walked;
	struct range *rg = end ? g->erg : g->rg;
	size_t n = end ? g->nerg : g->nrg;

	if (!end && g->ranges_done)
		return;
	for (size_t i = 0; i < n; i++)
		if (rg[i].start == x.start) {
			g->ranges_done |= !end;
			return;
		}
	if (end) {
		VEC_GROW(g->erg, g->nerg, g->cerg);
		g->erg[g->nerg++] = x;
	} else {
		VEC_GROW(g->rg, g->nrg, g->crg);
		g->rg[g->nrg++] = x;
	}
}

/* One event of the recorder's, in time order: it belongs to the
 * blocking GC being read, else to the background one. */
static void rec_event(struct replay *r, const struct nt_event *e)
{
	unsigned ps = r->t->pointer_size;
	struct gc_read *g = r->fg.on ? &r->fg : r->bg.on ? &r->bg : NULL;

	if (e->id == EV_GCSTART && e->len >= 16) {
		gc_start(r, e);
	} else if (g == NULL) {
		return;
	} else if (e->id == EV_GCEND && e->len >= 4 && rd32(e->payload) == g->gc) {
		if (g == &r->fg && r->bg.on && r->bg.walked && !r->bg.applied)
			background_apply(r, &r->bg, g->rg, g->nrg); /* first: it told them before this GC */
		if (g == &r->fg)
			apply(r, g, r->bg.on);
		else
			background_end(r, g);
		g->on = 0;
		if (g->gc == r->dump_gc)
			r->saw_dump_gc = 1;
	} else if (e->id == EV_GCEND && e->len >= 4 && r->bg.on && rd32(e->payload) == r->bg.gc) {
		doubt(r, "background GC %u ended while GC %u inside it ran", r->bg.gc, g->gc);
	} else if (e->id == EV_GENRANGE && e->len >= 1 + ps + 16) {
		gen_range(r, g, e);
	} else if ((e->id == EV_MOVED || e->id == EV_SURVIVING) && e->len >= 10) {
		runs(r, g, e, e->id == EV_MOVED);
		g->walked |= g == &r->bg;
	}
}

/* The recorder's events of the GC, kept to be replayed in time order:
 * the stream holds each thread's events in order, but several threads'
 * (a server GC's, a background GC's) may come in any order. */
struct timed { struct nt_event e; size_t order; };
struct gathered { struct replay *r; struct timed *ev; size_t n, cap; };

static int gather_event(void *arg, const struct nt_event *e)
{
	struct gathered *g = arg;

	check_seq(g->r, e);
	if (!e->runtime || (e->id != EV_GCSTART && e->id != EV_GCEND && e->id != EV_GENRANGE && e->id != EV_MOVED &&
			    e->id != EV_SURVIVING))
		return 0;
	VEC_GROW(g->ev, g->n, g->cap);
	g->ev[g->n] = (struct timed){ *e, g->n };
	g->n++;
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct timed *x = a, *y = b;

	if (x->e.timestamp != y->e.timestamp)
		return x->e.timestamp < y->e.timestamp ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The dump's object at x, NULL if none. */
static const struct dobj *dobj_at(const struct dump_read *d, uint64_t x)
{
	size_t lo = 0, hi = d->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->o[mid].addr < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->n && d->o[lo].addr == x ? &d->o[lo] : NULL;
}

static int has_u64(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo] == x;
}

/* The objects the replay leads to must be objects of the dump, of the
 * type and size they had at the mark (an object keeps both for its
 * life): those that are not are a doubt, and left out; except the
 * unsure ones, which are the mark's if the dump holds an object of
 * their type and size there (inferred), else gone (the object there,
 * if any, new). The inferred ones' addresses in inf (sorted), which
 * the caller frees. */
static void check_dump(struct replay *r, const struct dump_read *md, const struct dump_read *d, uint64_t **inf)
{
	uint64_t missing = 0, first = 0, other = 0;
	size_t j = 0, k = 0;

	size_t cap = r->nunsure + 1;
	*inf = xmalloc(cap * sizeof **inf);
	hw_qsort(r->unsure, r->nunsure, sizeof *r->unsure, cmp_u64);
	size_t u = 0;
	for (size_t i = 0; i < r->nunsure; i++) /* kept by several background GCs: once */
		if (u == 0 || r->unsure[u - 1] != r->unsure[i])
			r->unsure[u++] = r->unsure[i];
	r->nunsure = u;
	for (size_t i = 0; i < r->n; i++) {
		if (i > 0 && r->a[i].at == r->a[i - 1].at) { /* a mark that told one address twice */
			doubt(r, "two objects of the mark at one address (0x%llx)", (unsigned long long)r->a[i].at);
			continue;
		}
		while (j < d->n && d->o[j].addr < r->a[i].at)
			j++;
		int there = j < d->n && d->o[j].addr == r->a[i].at, unsure = has_u64(r->unsure, r->nunsure, r->a[i].from);
		if (!there && !unsure && missing++ == 0)
			first = r->a[i].at;
		if (!there) {
			r->inferred_new += unsure; /* a new object may cover its place */
			continue;
		}
		const struct dobj *was = dobj_at(md, r->a[i].from);
		int same = was != NULL && was->size == d->o[j].size && was->type == d->o[j].type;
		if (unsure) {
			if (!same) {
				r->inferred_new++;
				continue;
			}
			if (r->inferred + 1 >= cap) {
				cap *= 2;
				*inf = xreallocarray(*inf, cap, sizeof **inf);
			}
			(*inf)[r->inferred++] = r->a[i].at;
		} else if (!same) {
			if (other++ == 0)
				doubt(r, "an object of the mark (0x%llx) replayed to an object of another type or size "
				      "(0x%llx)", (unsigned long long)r->a[i].from, (unsigned long long)r->a[i].at);
			continue;
		}
		r->a[k++] = r->a[i];
	}
	r->n = k;
	if (missing > 0)
		doubt(r, "%llu objects of the mark replayed to addresses where the dump has no object (the first "
		      "0x%llx)", (unsigned long long)missing, (unsigned long long)first);
}

static void when(const struct nt_trace *t, char *out, size_t n)
{
	snprintf(out, n, "%04u-%02u-%02u %02u:%02u:%02u UTC", t->year, t->month, t->day, t->hour, t->minute,
		 t->second);
}

/* What the unsure objects rest on, one line ("" if none were kept). */
static void inferred_why(const struct replay *r, char *out, size_t n)
{
	out[0] = '\0';
	if (r->nunsure == 0)
		return;
	snprintf(out, n, "%llu background GC%s (the first GC %u) kept %zu objects of the mark on the large or pinned "
		 "object heap, where an allocation during it may take a dead one's place unrecorded: %llu are "
		 "taken to be the mark's, the dump holding an object of their type and size there, %llu not (another "
		 "object, or none, there)", (unsigned long long)r->bgcs, r->bgcs == 1 ? "" : "s", r->first_bgc,
		 r->nunsure, (unsigned long long)r->inferred, (unsigned long long)r->inferred_new);
}

/* The mark's objects to follow, from its heap: those in no generation
 * (the runtime's frozen, non-GC heap) never move nor die, and are kept
 * apart in fixed. */
static void mark_objects(struct replay *r, struct dump_read *md, struct obj **fixed, size_t *nfixed)
{
	hw_qsort(md->rg, md->nrg, sizeof *md->rg, by_start);
	*fixed = xmalloc((md->n + 1) * sizeof **fixed);
	*nfixed = 0;
	r->a = xmalloc((md->n + 1) * sizeof *r->a);
	for (size_t i = 0; i < md->n; i++)
		if (range_of(md->rg, md->nrg, md->o[i].addr) != NULL)
			r->a[r->n++] = (struct obj){ md->o[i].addr, md->o[i].addr }; /* sorted */
		else
			(*fixed)[(*nfixed)++] = (struct obj){ md->o[i].addr, md->o[i].addr };
	if (md->nrg == 0)
		doubt(r, "the mark's heap tells no generations' ranges");
}

/* The recorder's stream, replayed. */
static void replay_stream(struct replay *r, const struct clr_mark_in *in, struct nt_trace *rt)
{
	struct warnings w = { .quiet = 1 };
	struct sbuf rerr;
	struct gathered g = { r, NULL, 0, 0 };

	sbuf_init(&rerr);
	if (nt_read("the recorder's stream", in->rec, in->rec_size, rt, gather_event, &g, &w, &rerr) < 0)
		doubt(r, "%s", rerr.buf);
	else if (rt->stop_why[0] != '\0')
		doubt(r, "the recorder's stream: offset %llu: %s", (unsigned long long)rt->stop_at, rt->stop_why);
	hw_qsort(g.ev, g.n, sizeof *g.ev, by_time);
	for (size_t i = 0; i < g.n; i++)
		rec_event(r, &g.ev[i].e);
	if (r->bg.on) /* a blocking one unended: the snapshot's GC not seen to end, said after */
		doubt(r, "background GC %u had not ended when the record did", r->bg.gc);
	free(g.ev);
	sbuf_free(&rerr);
	warn_free(&w);
}

int clr_mark_replay(const struct clr_mark_in *in, struct sbuf *out, struct sbuf *said, struct sbuf *err)
{
	struct nt_trace mt, dt, rt;
	struct dump_read md = { 0 }, dd = { 0 }; /* freed at done whichever read failed */
	struct replay r = { 0 };
	struct sbuf types;
	uint64_t *inf = NULL;
	int rc = -1;

	sbuf_init(&types);
	if (read_dump("the mark's heap", in->mark, in->mark_size, &mt, &md, &types, err) < 0 ||
	    read_dump("the snapshot", in->dump, in->dump_size, &dt, &dd, NULL, err) < 0)
		goto done;
	if (dd.gc != in->gc) {
		sbuf_printf(err, "the snapshot's heap is of GC %u, not of its GC %u", dd.gc, in->gc);
		goto done;
	}
	if (md.gc != in->mark_gc || mt.pid != dt.pid) {
		sbuf_printf(err, "the mark's heap is not the one taken at the mark (GC %u of process %u, not GC %u of "
			    "process %u)", md.gc, mt.pid, in->mark_gc, dt.pid);
		goto done;
	}
	r.t = &rt;
	r.mark_gc = md.gc;
	r.dump_gc = dd.gc;
	r.next_gc = md.gc + 1;
	struct obj *fixed;
	size_t nfixed;
	mark_objects(&r, &md, &fixed, &nfixed);
	if (in->rec_why != NULL)
		doubt(&r, "%s", in->rec_why);
	if (in->rec == NULL)
		doubt(&r, "the recorder's stream is missing");
	else
		replay_stream(&r, in, &rt);
	if (dd.gc <= md.gc || dt.pid != mt.pid)
		doubt(&r, "the snapshot (GC %u of process %u) does not follow the mark (GC %u of process %u)", dd.gc,
		      dt.pid, md.gc, mt.pid);
	if (!r.saw_mark_gc)
		doubt(&r, "the recorder did not see the mark's GC (%u)", md.gc);
	if (!r.saw_dump_gc)
		doubt(&r, "the recorder did not see the snapshot's GC (%u) end", dd.gc);
	/* the fixed ones back among the rest, all sorted */
	r.a = xreallocarray(r.a, r.n + nfixed + 1, sizeof *r.a);
	memcpy(r.a + r.n, fixed, nfixed * sizeof *fixed);
	r.n += nfixed;
	free(fixed);
	hw_qsort(r.a, r.n, sizeof *r.a, cmp_u64);
	check_dump(&r, &md, &dd, &inf);
	char at[40], infer[400];
	when(&mt, at, sizeof at);
	inferred_why(&r, infer, sizeof infer);
	sbuf_adds(out, MAGIC);
	sbuf_printf(out, "pid %u\nsync %llu\nmark_sync %llu\ngc %u %u\nmarked %llu\nat %s\ngcs %llu\nmoved %llu\n",
		    dt.pid, (unsigned long long)dt.sync_qpc, (unsigned long long)mt.sync_qpc, md.gc, dd.gc,
		    (unsigned long long)md.n, at,
		    (unsigned long long)r.gcs, (unsigned long long)r.moved);
	for (char *c = r.why; *c; c++) /* one line */
		if (*c == '\n')
			*c = ' ';
	sbuf_printf(out, "exact %d %s\ninferred %llu %s\ntypes %zu\nold %llu\n", r.why[0] == '\0', r.why,
		    (unsigned long long)r.inferred, infer, types.len, (unsigned long long)r.n);
	sbuf_add(out, (const char *)r.a, r.n * sizeof *r.a);
	sbuf_add(out, (const char *)inf, r.inferred * sizeof *inf);
	sbuf_add(out, types.buf, types.len);
	if (r.why[0])
		sbuf_adds(said, "mark: not exact");
	else if (r.inferred > 0)
		sbuf_printf(said, "mark: exact except %llu objects inferred", (unsigned long long)r.inferred);
	else
		sbuf_adds(said, "mark: exact");
	sbuf_printf(said, "; of the %llu objects at the mark, %llu live on (%llu moves replayed through %llu GC%s, "
		    "%llu of them background)", (unsigned long long)md.n, (unsigned long long)r.n,
		    (unsigned long long)r.moved, (unsigned long long)r.gcs, r.gcs == 1 ? "" : "s",
		    (unsigned long long)r.bgcs);
	if (r.why[0])
		sbuf_printf(said, ": %s", r.why);
	else if (infer[0])
		sbuf_printf(said, ": %s", infer);
	rc = 0;
done:
	sbuf_free(&types);
	free(md.o);
	free(md.rg);
	free(dd.o);
	free(dd.rg);
	free(r.a);
	free(inf);
	gc_free(&r.fg);
	gc_free(&r.bg);
	free(r.unsure);
	free(r.seqs);
	return rc;
}

/* ---- the mark file, read ---- */

/* The value of header line "key ..." in hdr (NUL-terminated), NULL if
 * not there. */
static const char *field(const char *hdr, const char *key)
{
	size_t k = strlen(key);

	for (const char *l = hdr; l != NULL && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (strncmp(l, key, k) == 0 && l[k] == ' ')
			return l + k + 1;
	return NULL;
}

/* The rest of a header line from skip bytes on, escaped (a file's
 * words are untrusted); "" for none. */
static char *line_copy(const char *v, size_t skip)
{
	if (v == NULL || strlen(v) < skip)
		return xstrdup("");
	const char *e = strchr(v, '\n');
	size_t n = e ? (size_t)(e - v) : strlen(v);
	struct sbuf s;
	sbuf_init(&s);
	if (n > skip)
		esc_append(&s, (const uint8_t *)v + skip, n - skip, 0);
	return s.buf ? sbuf_detach(&s) : xstrdup("");
}

/* A mark file, read and checked against its trace. */
struct loaded {
	struct sbuf f;  /* the whole file */
	char *hdr;      /* its header lines, NUL-terminated */
	size_t hlen;
	uint64_t n;     /* old objects: n records (struct obj) at f.buf + hlen */
	uint64_t ninf;  /* then the inferred ones among them: ninf addresses (uint64_t) */
	unsigned long long mark_sync; /* the mark's trace's clock */
	uint64_t ntypes; /* then the mark's BulkType payloads: ntypes bytes */
	unsigned g0, g1;
	unsigned long long gcs;
	int exact;
};

/* 1 with l, 0 when there is no mark file, -1 with err. */
static int load(const char *trace, uint32_t pid, uint64_t sync_qpc, struct loaded *l, struct sbuf *err)
{
	char *path = xasprintf("%s%s", trace, CLR_MARK_SUFFIX), *ep = esc_str(path);
	unsigned long long fpid = 0, fsync = 0, n = 0, nt = 0, ni = 0;
	int rc = -1;

	memset(l, 0, sizeof *l);
	sbuf_init(&l->f);
	FILE *fp = fopen(path, "rb");
	if (fp == NULL) {
		rc = 0;
		goto done;
	}
	char buf[65536];
	size_t k;
	while ((k = fread(buf, 1, sizeof buf, fp)) > 0)
		sbuf_add(&l->f, buf, k);
	fclose(fp);
	const char *body = l->f.buf ? strstr(l->f.buf, "\nold ") : NULL;
	const char *nl = body ? strchr(body + 1, '\n') : NULL;
	if (l->f.len >= sizeof MAGIC_STEM - 1 && memcmp(l->f.buf, MAGIC_STEM, sizeof MAGIC_STEM - 1) == 0 &&
	    (l->f.len < sizeof MAGIC - 1 || memcmp(l->f.buf, MAGIC, sizeof MAGIC - 1) != 0)) {
		sbuf_printf(err, "%s: offset %zu: a mark file of another version of heapwalk (this one reads "
			    "version %c): mark the process again", ep, sizeof MAGIC_STEM - 1, MAGIC[sizeof MAGIC - 3]);
		goto done;
	}
	if (l->f.len < sizeof MAGIC - 1 || memcmp(l->f.buf, MAGIC, sizeof MAGIC - 1) != 0 || nl == NULL) {
		sbuf_printf(err, "%s: offset 0: not a heapwalk .NET mark file", ep);
		goto done;
	}
	l->hlen = (size_t)(nl + 1 - l->f.buf);
	l->hdr = xmalloc(l->hlen + 1);
	memcpy(l->hdr, l->f.buf, l->hlen);
	l->hdr[l->hlen] = '\0';
	const char *v;
	int ok = (v = field(l->hdr, "pid")) && sscanf(v, "%llu", &fpid) == 1 &&
		 (v = field(l->hdr, "sync")) && sscanf(v, "%llu", &fsync) == 1 &&
		 (v = field(l->hdr, "mark_sync")) && sscanf(v, "%llu", &l->mark_sync) == 1 &&
		 (v = field(l->hdr, "gc")) && sscanf(v, "%u %u", &l->g0, &l->g1) == 2 &&
		 (v = field(l->hdr, "gcs")) && sscanf(v, "%llu", &l->gcs) == 1 &&
		 (v = field(l->hdr, "exact")) && sscanf(v, "%d", &l->exact) == 1 &&
		 (v = field(l->hdr, "inferred")) && sscanf(v, "%llu", &ni) == 1 &&
		 (v = field(l->hdr, "types")) && sscanf(v, "%llu", &nt) == 1 &&
		 (v = field(l->hdr, "old")) && sscanf(v, "%llu", &n) == 1;
	uint64_t rest = l->f.len - l->hlen;
	if (!ok || n > rest / sizeof(struct obj) || ni > n || (rest - sizeof(struct obj) * n) / 8 < ni ||
	    rest - sizeof(struct obj) * n - 8 * ni != nt) {
		sbuf_printf(err, "%s: offset %zu: a mark file damaged or cut short", ep, ok ? l->hlen : (size_t)0);
		goto done;
	}
	if (fpid != pid || fsync != sync_qpc) {
		sbuf_printf(err, "%s: offset 0: the mark file of another trace (process %llu), not of this one "
			    "(process %u)", ep, fpid, pid);
		goto done;
	}
	l->n = n;
	l->ninf = ni;
	l->ntypes = nt;
	rc = 1;
done:
	if (rc <= 0) {
		sbuf_free(&l->f);
		free(l->hdr);
		l->hdr = NULL;
	}
	free(path);
	free(ep);
	return rc;
}

/* The reason the file gives for its inferred objects, escaped; caller
 * frees ("" if none). */
static char *infer_copy(const struct loaded *l)
{
	const char *v = field(l->hdr, "inferred");

	return line_copy(v, v ? strspn(v, "0123456789") + 1 : 0);
}

/* "exact: " or "exact except N objects inferred: ", as the file says. */
static void exact_head(struct sbuf *how, const struct loaded *l)
{
	if (l->ninf > 0)
		sbuf_printf(how, "exact except %llu object%s inferred: ", (unsigned long long)l->ninf,
			    l->ninf == 1 ? "" : "s");
	else
		sbuf_adds(how, "exact: ");
}

/* "; REASON" for the inferred objects, if any. */
static void exact_tail(struct sbuf *how, const struct loaded *l)
{
	char *inf = infer_copy(l);

	if (l->ninf > 0 && inf[0] != '\0')
		sbuf_printf(how, "; %s", inf);
	free(inf);
}

static void unload(struct loaded *l)
{
	sbuf_free(&l->f);
	free(l->hdr);
}

void clr_mark_types(const char *trace, uint32_t pid, uint64_t sync_qpc,
		    void (*fn)(void *arg, const uint8_t *payload, uint32_t len), void *arg)
{
	struct loaded l;
	struct sbuf err;

	sbuf_init(&err);
	if (load(trace, pid, sync_qpc, &l, &err) == 1) {
		const uint8_t *p = (const uint8_t *)l.f.buf + l.hlen + sizeof(struct obj) * l.n + 8 * l.ninf,
			      *end = p + l.ntypes;
		while (end - p >= 4 && (uint64_t)(end - p - 4) >= rd32(p)) {
			fn(arg, p + 4, rd32(p));
			p += 4 + (size_t)rd32(p);
		}
		unload(&l);
	}
	sbuf_free(&err);
}

int clr_mark_read(const struct heap *h, uint32_t pid, uint64_t sync_qpc, uint8_t **old, int *exact,
		  struct sbuf *how, struct sbuf *err)
{
	struct loaded l;
	int rc = load(h->path, pid, sync_qpc, &l, err);

	if (rc <= 0 || old == NULL) {
		if (rc > 0)
			unload(&l);
		return rc;
	}
	/* each old object an object of the dump: nodes are by address */
	uint8_t *o = xcalloc(h->n, 1);
	const uint8_t *a = (const uint8_t *)l.f.buf + l.hlen;
	node_t v = 1;
	for (uint64_t i = 0; i < l.n; i++) {
		uint64_t x = rd64(a + sizeof(struct obj) * i);
		while (v < h->n && heap_node_id(h, v) < x)
			v++;
		if (v >= h->n || heap_node_id(h, v) != x) {
			char *ep = esc_str(h->path);
			sbuf_printf(err, "%s%s: offset %zu: address 0x%llx is no object of this dump: the mark file "
				    "is damaged or not this dump's", ep, CLR_MARK_SUFFIX, l.hlen + sizeof(struct obj) * (size_t)i,
				    (unsigned long long)x);
			free(ep);
			free(o);
			unload(&l);
			return -1;
		}
		o[v] = 1;
	}
	char *at = line_copy(field(l.hdr, "at"), 0), *why = line_copy(field(l.hdr, "exact"), 2);
	if (l.exact == 1) {
		exact_head(how, &l);
		sbuf_printf(how, "marked at %s (GC %u), the GC's moves replayed through %llu GC%s to this dump's (GC "
			    "%u)", at, l.g0, l.gcs, l.gcs == 1 ? "" : "s", l.g1);
		exact_tail(how, &l);
	} else
		sbuf_printf(how, "not exact: %s (marked at %s, GC %u; this dump's GC %u)", why, at, l.g0, l.g1);
	free(at);
	free(why);
	*old = o;
	*exact = l.exact == 1;
	unload(&l);
	return 1;
}

/* The node of h at address x (nodes are by address), HW_NONE if none. */
static node_t node_at(const struct heap *h, uint64_t x)
{
	node_t lo = 1, hi = h->n;

	while (lo < hi) {
		node_t mid = lo + (hi - lo) / 2;
		if (heap_node_id(h, mid) < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < h->n && heap_node_id(h, lo) == x ? lo : HW_NONE;
}

int clr_mark_identity(const struct heap *h, uint32_t pid, uint64_t sync_qpc, const struct heap *old,
		      uint32_t old_pid, uint64_t old_sync, node_t *same, struct sbuf *how, struct sbuf *why)
{
	struct loaded l;
	struct sbuf err;
	int rc = -1;

	sbuf_init(&err);
	int r = load(h->path, pid, sync_qpc, &l, &err);
	if (r <= 0) {
		sbuf_adds(why, r == 0 ? "no mark file beside the dump (heapwalk mark, then snapshot)" : err.buf);
		sbuf_free(&err);
		return -1;
	}
	sbuf_free(&err);
	char *at = line_copy(field(l.hdr, "at"), 0);
	if (old_pid != pid || old_sync != l.mark_sync) {
		sbuf_adds(why, "the baseline is not the heap of the dump's mark (heapwalk mark PID FILE keeps it)");
		goto done;
	}
	if (l.exact != 1) {
		char *doubt_ = line_copy(field(l.hdr, "exact"), 2);
		sbuf_printf(why, "the mark's replay: %s", doubt_);
		free(doubt_);
		goto done;
	}
	for (node_t v = 0; v < h->n; v++)
		same[v] = HW_NONE;
	const uint8_t *a = (const uint8_t *)l.f.buf + l.hlen;
	for (uint64_t i = 0; i < l.n; i++) {
		node_t v = node_at(h, rd64(a + sizeof(struct obj) * i)),
		       o = node_at(old, rd64(a + sizeof(struct obj) * i + 8));
		if (v == HW_NONE || o == HW_NONE) {
			sbuf_printf(why, "the mark file's record %llu names no object of the dump or of the mark's "
				    "heap: damaged", (unsigned long long)i);
			goto done;
		}
		same[v] = o;
	}
	exact_head(how, &l);
	sbuf_printf(how, "the baseline is the heap at the mark (%s, GC %u), the GC's moves replayed through %llu GC%s "
		    "to this dump's (GC %u)", at, l.g0, l.gcs, l.gcs == 1 ? "" : "s", l.g1);
	exact_tail(how, &l);
	rc = 0;
done:
	free(at);
	unload(&l);
	return rc;
}
