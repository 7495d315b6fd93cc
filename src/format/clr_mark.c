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
 * A heap dump's addresses are those after its own GC: the mark's GC is
 * not replayed, the snapshot's is. */
#include "format/clr_mark.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/clr.h"
#include "format/nettrace.h"

enum { EV_GCSTART = 1, EV_GCEND = 2, EV_BULKTYPE = 15, EV_NODE = 18, EV_SURVIVING = 21, EV_MOVED = 22, EV_GENRANGE = 23 };
#define MAGIC "heapwalk .NET mark 1\n"

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
struct range { uint64_t start, used; uint8_t gen; };
/* An object of the mark: where it is now, where it was at the mark. */
struct obj { uint64_t at, from; };

struct dump_read {
	const struct nt_trace *t;
	int in_gc, done, after_walk;
	int by_time; /* the GC's events by their time (clr_window), its times below */
	uint64_t start_ts, end_ts;
	uint32_t gc;
	uint64_t *addr;
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
		if (d->n > 0 && !d->after_walk) /* as clr.c: those after the walk replace those before */
			d->nrg = 0, d->after_walk = 1;
		VEC_GROW(d->rg, d->nrg, d->crg);
		d->rg[d->nrg++] = (struct range){ rdp(e->payload + 1, ps), rd64(e->payload + 1 + ps), e->payload[0] };
	} else if (e->id == EV_NODE && d->in_gc && e->len >= 10) {
		uint32_t n = rd32(e->payload + 4);
		if ((uint64_t)n * (ps + 24) > e->len - 10)
			return 0; /* the reader warns of it; the check after the replay will not match */
		for (uint32_t i = 0; i < n; i++) {
			VEC_GROW(d->addr, d->n, d->cap);
			d->addr[d->n++] = rdp(e->payload + 10 + (size_t)i * (ps + 24), ps);
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
		d->in_gc = d->done = d->after_walk = 0;
		rc = nt_read(what, m, size, t, dump_event, d, &w, err);
		d->done = 1; /* its end is there, whatever came after it */
	}
	warn_free(&w);
	if (rc == 0 && !d->done) {
		sbuf_printf(err, "%s: no whole heap dump in it", what);
		rc = -1;
	}
	if (rc == 0)
		hw_qsort(d->addr, d->n, sizeof *d->addr, cmp_u64);
	return rc;
}

/* ---- the replay ---- */

struct move { uint64_t from, to, len; };
struct thread_seq { uint64_t thread; uint32_t seq; };
struct batch { uint64_t thread; uint32_t next; int moved; };

struct replay {
	const struct nt_trace *t;
	uint32_t mark_gc, dump_gc;
	struct obj *a; /* the mark's objects still alive, by where they are now */
	size_t n;
	/* the GC being read */
	int in_gc, ranges_done;
	uint32_t gc, depth, next_gc;
	struct range *rg;
	size_t nrg, crg;
	struct move *mv;
	size_t nmv, cmv;
	struct batch *batches; /* per thread that reports runs, moved or surviving: the next batch */
	size_t nbatches, cbatches;
	int saw_mark_gc, saw_dump_gc;
	uint64_t gcs, moved, died, outside;
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

/* The range of r->rg (sorted) that holds x, NULL if none. */
static const struct range *range_of(const struct replay *r, uint64_t x)
{
	size_t lo = 0, hi = r->nrg;

	while (lo < hi) { /* the first range starting past x */
		size_t mid = lo + (hi - lo) / 2;
		if (r->rg[mid].start <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && x - r->rg[lo - 1].start < r->rg[lo - 1].used ? &r->rg[lo - 1] : NULL;
}

/* The run of r->mv (sorted by from) that holds x, NULL if none. Runs do
 * not overlap: the last starting at or before x is the only one. */
static const struct move *move_of(const struct replay *r, uint64_t x)
{
	size_t lo = 0, hi = r->nmv;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->mv[mid].from <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && x - r->mv[lo - 1].from < r->mv[lo - 1].len ? &r->mv[lo - 1] : NULL;
}

/* Two sorted runs, a[0..na) and b[0..nb), into out (sorted). */
static void merge(const struct obj *a, size_t na, const struct obj *b, size_t nb, struct obj *out)
{
	size_t i = 0, j = 0, k = 0;

	while (i < na || j < nb)
		out[k++] = j >= nb || (i < na && a[i].at <= b[j].at) ? a[i++] : b[j++];
}

/* The GC just read, applied to the mark's objects: one pass over them
 * and the generations' ranges, both by address (the objects outside the
 * generations collected stay in place and in order); the collected
 * ones that live on, wherever they went, sorted apart and merged back. */
static void apply(struct replay *r)
{
	size_t k = 0, g = 0, nt = 0;
	struct obj *t = xmalloc((r->n + 1) * sizeof *t);

	hw_qsort(r->rg, r->nrg, sizeof *r->rg, by_start);
	hw_qsort(r->mv, r->nmv, sizeof *r->mv, by_from);
	for (size_t i = 1; i < r->nmv; i++)
		if (r->mv[i].from - r->mv[i - 1].from < r->mv[i - 1].len)
			doubt(r, "GC %u reported runs of objects that overlap", r->gc);
	for (size_t i = 0; i < r->n; i++) {
		uint64_t x = r->a[i].at;
		while (g < r->nrg && x >= r->rg[g].start && x - r->rg[g].start >= r->rg[g].used)
			g++;
		const struct range *in = g < r->nrg && x >= r->rg[g].start ? &r->rg[g] : NULL;
		if (in == NULL) {
			if (r->outside++ == 0)
				doubt(r, "an object of the mark (0x%llx) was in no generation as GC %u began",
				      (unsigned long long)x, r->gc);
		} else if (in->gen <= r->depth || (r->depth >= 2 && in->gen > 2)) {
			const struct move *m = move_of(r, x);
			if (m == NULL)
				r->died++;
			else {
				r->moved += m->to != m->from;
				t[nt++] = (struct obj){ x - m->from + m->to, r->a[i].from };
			}
			continue;
		}
		r->a[k++] = r->a[i];
	}
	hw_qsort(t, nt, sizeof *t, cmp_u64); /* by at, the first member */
	struct obj *out = xmalloc((k + nt + 1) * sizeof *out);
	merge(r->a, k, t, nt, out);
	for (size_t i = 1; i < k + nt; i++)
		if (out[i].at == out[i - 1].at) {
			doubt(r, "GC %u took two objects of the mark to one address (0x%llx)", r->gc,
			      (unsigned long long)out[i].at);
			break;
		}
	free(r->a);
	free(t);
	r->a = out;
	r->n = k + nt;
	r->gcs++;
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
	if (r->in_gc)
		doubt(r, "GC %u began inside GC %u (a background GC and a foreground one: not replayed)", c, r->gc);
	if (c != r->next_gc)
		doubt(r, "GC %u is missing from the record (lost, or the recorder was late)", r->next_gc);
	if (type == 1)
		doubt(r, "a background GC (%u) ran between the mark and the snapshot: its survivors are not replayed", c);
	r->next_gc = c + 1;
	r->in_gc = 1;
	r->gc = c;
	r->depth = depth;
	r->ranges_done = 0;
	r->nrg = r->nmv = 0;
	r->nbatches = 0;
}

/* A GCBulkMovedObjectRanges (moved) or GCBulkSurvivingObjectRanges. */
static void runs(struct replay *r, const struct nt_event *e, int moved)
{
	unsigned ps = r->t->pointer_size, stride = moved ? 2 * ps + 8 : ps + 8;
	uint32_t batch = rd32(e->payload), n = rd32(e->payload + 4);

	r->ranges_done = 1;
	/* batches are numbered from 0 in each walk of a heap, by the thread
	 * that walks it (a server GC has one per heap) */
	size_t k = 0;
	while (k < r->nbatches && (r->batches[k].thread != e->capture_thread || r->batches[k].moved != moved))
		k++;
	if (k == r->nbatches) {
		VEC_GROW(r->batches, r->nbatches, r->cbatches);
		r->batches[r->nbatches++] = (struct batch){ e->capture_thread, 0, moved };
	}
	if (batch != 0 && batch != r->batches[k].next)
		doubt(r, "a batch of GC %u's object runs is missing", r->gc);
	r->batches[k].next = batch + 1;
	if ((uint64_t)n * stride > e->len - 10) {
		doubt(r, "GC %u: a run event shorter than its count (offset %llu)", r->gc, (unsigned long long)e->at);
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *q = e->payload + 10 + (size_t)i * stride;
		uint64_t from = rdp(q, ps), to = moved ? rdp(q + ps, ps) : from, len = rd64(q + (moved ? 2 * ps : ps));
		VEC_GROW(r->mv, r->nmv, r->cmv);
		r->mv[r->nmv++] = (struct move){ from, to, len };
	}
}

/* One event of the recorder's, in time order. */
static void rec_event(struct replay *r, const struct nt_event *e)
{
	unsigned ps = r->t->pointer_size;

	if (e->id == EV_GCSTART && e->len >= 16) {
		gc_start(r, e);
	} else if (!r->in_gc) {
		return;
	} else if (e->id == EV_GCEND && e->len >= 4 && rd32(e->payload) == r->gc) {
		apply(r);
		r->in_gc = 0;
		if (r->gc == r->dump_gc)
			r->saw_dump_gc = 1;
	} else if (e->id == EV_GENRANGE && e->len >= 1 + ps + 16 && !r->ranges_done) {
		/* those as the GC began: until a range is told again (the
		 * end's, of every heap), or the first runs */
		uint64_t start = rdp(e->payload + 1, ps);
		for (size_t i = 0; i < r->nrg; i++)
			if (r->rg[i].start == start) {
				r->ranges_done = 1;
				return;
			}
		VEC_GROW(r->rg, r->nrg, r->crg);
		r->rg[r->nrg++] = (struct range){ start, rd64(e->payload + 1 + ps), e->payload[0] };
	} else if ((e->id == EV_MOVED || e->id == EV_SURVIVING) && e->len >= 10) {
		runs(r, e, e->id == EV_MOVED);
	}
}

/* The recorder's events of the GC, kept to be replayed in time order:
 * the stream holds each thread's events in order, but several threads'
 * (a server GC's) may come in any order. */
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

/* The objects the replay leads to must be objects of the dump: those
 * that are not are a doubt, and left out. */
static void check_dump(struct replay *r, const struct dump_read *d)
{
	uint64_t missing = 0, first = 0;
	size_t j = 0, k = 0;

	for (size_t i = 0; i < r->n; i++) {
		while (j < d->n && d->addr[j] < r->a[i].at)
			j++;
		if (j < d->n && d->addr[j] == r->a[i].at)
			r->a[k++] = r->a[i];
		else if (missing++ == 0)
			first = r->a[i].at;
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

int clr_mark_replay(const struct clr_mark_in *in, struct sbuf *out, struct sbuf *said, struct sbuf *err)
{
	struct nt_trace mt, dt, rt;
	struct dump_read md = { 0 }, dd = { 0 }; /* freed at done whichever read failed */
	struct replay r = { 0 };
	struct sbuf types;
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
	/* objects in no generation (the runtime's frozen, non-GC heap)
	 * never move nor die: kept apart from the replay */
	r.rg = md.rg, r.nrg = md.nrg, r.crg = md.crg;
	md.rg = NULL;
	hw_qsort(r.rg, r.nrg, sizeof *r.rg, by_start);
	struct obj *fixed = xmalloc((md.n + 1) * sizeof *fixed);
	size_t nfixed = 0;
	r.a = xmalloc((md.n + 1) * sizeof *r.a);
	for (size_t i = 0; i < md.n; i++)
		if (range_of(&r, md.addr[i]) != NULL)
			r.a[r.n++] = (struct obj){ md.addr[i], md.addr[i] }; /* sorted */
		else
			fixed[nfixed++] = (struct obj){ md.addr[i], md.addr[i] };
	if (r.nrg == 0)
		doubt(&r, "the mark's heap tells no generations' ranges");
	r.nrg = 0;
	if (in->rec_why != NULL)
		doubt(&r, "%s", in->rec_why);
	if (in->rec == NULL) {
		doubt(&r, "the recorder's stream is missing");
	} else {
		struct warnings w = { .quiet = 1 };
		struct sbuf rerr;
		sbuf_init(&rerr);
		struct gathered g = { &r, NULL, 0, 0 };
		if (nt_read("the recorder's stream", in->rec, in->rec_size, &rt, gather_event, &g, &w, &rerr) < 0)
			doubt(&r, "%s", rerr.buf);
		else if (rt.stop_why[0] != '\0')
			doubt(&r, "the recorder's stream: offset %llu: %s", (unsigned long long)rt.stop_at, rt.stop_why);
		hw_qsort(g.ev, g.n, sizeof *g.ev, by_time);
		for (size_t i = 0; i < g.n; i++)
			rec_event(&r, &g.ev[i].e);
		free(g.ev);
		sbuf_free(&rerr);
		warn_free(&w);
	}
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
	check_dump(&r, &dd);
	char at[40];
	when(&mt, at, sizeof at);
	sbuf_adds(out, MAGIC);
	sbuf_printf(out, "pid %u\nsync %llu\nmark_sync %llu\ngc %u %u\nmarked %llu\nat %s\ngcs %llu\nmoved %llu\n",
		    dt.pid, (unsigned long long)dt.sync_qpc, (unsigned long long)mt.sync_qpc, md.gc, dd.gc,
		    (unsigned long long)md.n, at,
		    (unsigned long long)r.gcs, (unsigned long long)r.moved);
	for (char *c = r.why; *c; c++) /* one line */
		if (*c == '\n')
			*c = ' ';
	sbuf_printf(out, "exact %d %s\ntypes %zu\nold %llu\n", r.why[0] == '\0', r.why, types.len,
		    (unsigned long long)r.n);
	sbuf_add(out, (const char *)r.a, r.n * sizeof *r.a);
	sbuf_add(out, types.buf, types.len);
	sbuf_printf(said, "mark: %s; of the %llu objects at the mark, %llu live on (%llu moves replayed through "
		    "%llu GCs)", r.why[0] ? "not exact" : "exact", (unsigned long long)md.n, (unsigned long long)r.n,
		    (unsigned long long)r.moved, (unsigned long long)r.gcs);
	if (r.why[0])
		sbuf_printf(said, ": %s", r.why);
	rc = 0;
done:
	sbuf_free(&types);
	free(md.addr);
	free(md.rg);
	free(dd.addr);
	free(dd.rg);
	free(r.a);
	free(r.rg);
	free(r.mv);
	free(r.seqs);
	free(r.batches);
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
	unsigned long long fpid = 0, fsync = 0, n = 0, nt = 0;
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
		 (v = field(l->hdr, "types")) && sscanf(v, "%llu", &nt) == 1 &&
		 (v = field(l->hdr, "old")) && sscanf(v, "%llu", &n) == 1;
	uint64_t rest = l->f.len - l->hlen;
	if (!ok || n > rest / sizeof(struct obj) || rest - sizeof(struct obj) * n != nt) {
		sbuf_printf(err, "%s: offset %zu: a mark file damaged or cut short", ep, ok ? l->hlen : (size_t)0);
		goto done;
	}
	if (fpid != pid || fsync != sync_qpc) {
		sbuf_printf(err, "%s: offset 0: the mark file of another trace (process %llu), not of this one "
			    "(process %u)", ep, fpid, pid);
		goto done;
	}
	l->n = n;
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
		const uint8_t *p = (const uint8_t *)l.f.buf + l.hlen + sizeof(struct obj) * l.n, *end = p + l.ntypes;
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
	if (l.exact == 1)
		sbuf_printf(how, "exact: marked at %s (GC %u), the GC's moves replayed through %llu GCs to this "
			    "dump's (GC %u)", at, l.g0, l.gcs, l.g1);
	else
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
	sbuf_printf(how, "exact: the baseline is the heap at the mark (%s, GC %u), the GC's moves replayed "
		    "through %llu GCs to this dump's (GC %u)", at, l.g0, l.gcs, l.g1);
	rc = 0;
done:
	free(at);
	unload(&l);
	return rc;
}
