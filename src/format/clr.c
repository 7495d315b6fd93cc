/* clr.c — .NET heaps from a nettrace heap-dump trace (what heapwalk
 * snapshot, dotnet-trace or dotnet-gcdump's session record) into the
 * heap model.
 *
 * The heap is the one the runtime reported during the trace's first
 * induced, blocking full GC (GCStart with depth 2 to the GCEnd of the
 * same count): GCBulkNode gives each object's address, size, type and
 * number of references, GCBulkEdge the references' targets in the same
 * order (a node takes the next EdgeCount of them), GCBulkRootEdge the
 * roots, GCBulkRootStaticVar the static variables that hold objects;
 * BulkType names the types (it may come before the GC: every one is
 * kept). The builder (graph/builder.h) makes the heap: an object's
 * address is its id. */
#include "format/clr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/clr_mark.h"
#include "format/nettrace.h"
#include "graph/analysis.h"
#include "graph/builder.h"
#include "graph/classes.h"
#include "graph/idindex.h"
#include "graph/reader.h"
#include "graph/resident.h"
#include "runtime/clr.h"

/* ModuleLoad is the runtime provider's, the other two the rundown's */
enum { EV_MODULE_LOAD = 152, EV_MODULE_DC_START = 153, EV_MODULE_DC_END = 154 };
enum { EV_GCSTART = 1, EV_GCEND = 2, EV_RESTART_END = 3, EV_SUSPEND_START = 9, EV_BULKTYPE = 15,
       EV_ROOT = 16, EV_DEPENDENT = 17, EV_NODE = 18, EV_EDGE = 19, EV_GENRANGE = 23, EV_STATIC = 38 };

/* Damage of one kind: how many, and the file offset of the first. */
struct damage {
	uint64_t n, at;
};

/* What the trace's events add up to. */
struct clr_read {
	struct clr_parts p; /* the ranges: the last of the GC */
	const struct nt_trace *t; /* its pointer size: read before any event */
	int in_gc, done;
	uint32_t gc_count;
	int by_time; /* the GC's events by their time, not their place (clr_window) */
	int ranges_after_walk;
	uint64_t suspend_ts, gc_start_ts, gc_end_ts, restart_ts; /* QPC ticks */
	struct damage bad;       /* bulk events shorter than their counts: skipped */
	struct damage bad_nodes; /* of them, GCBulkNode events */
	struct damage cut;       /* the same, read as far as they go (types, static variables) */
	struct damage too_many_refs; /* objects whose count of references the file cannot hold */
	/* the modules the trace names (module_event): id, offset + 1 of
	 * the file's name among the names */
	struct clr_pair *mods;
	size_t nmods, cmods;
};

static void damaged(struct damage *d, uint64_t at)
{
	if (d->n++ == 0)
		d->at = at;
}

static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint64_t rdp(const uint8_t *p, unsigned ps) { return ps == 8 ? rd64(p) : rd32(p); }

/* A UTF-16 (little-endian) name up to its NUL unit onto sb, as UTF-8:
 * a surrogate pair one character, a lone surrogate U+FFFD; control
 * characters kept as they are (escaped where shown), so that names that
 * differ stay apart; whole, however long (a generic type's name is its
 * arguments' too: two 40 deep that differ in the innermost differ past
 * 1500 bytes; the event's payload bounds it). Returns what is past the
 * NUL, or NULL when the name runs to end. */
static const uint8_t *utf16_text(const uint8_t *p, const uint8_t *end, struct sbuf *sb)
{
	unsigned hi = 0; /* a high surrogate waiting for its low one */
	uint32_t cp[2];

	for (; end - p >= 2 && (p[0] | p[1]) != 0; p += 2)
		for (int i = 0, n = utf16_join(&hi, (unsigned)p[0] | (unsigned)p[1] << 8, cp); i < n; i++)
			sbuf_add_utf8(sb, cp[i]);
	if (utf16_flush(&hi, cp))
		sbuf_add_utf8(sb, cp[0]);
	return end - p >= 2 ? p + 2 : NULL;
}

/* The same into the names: its offset. */
static uint32_t utf16_name(struct clr_read *r, const uint8_t *p, const uint8_t *end, const uint8_t **next)
{
	struct sbuf sb;

	sbuf_init(&sb);
	*next = utf16_text(p, end, &sb);
	uint32_t off = names_intern(&r->p.nt, sb.buf, sb.len);
	sbuf_free(&sb);
	return off;
}

uint32_t clr_module_name(struct nametab *nt, const char *path)
{
	const char *base = path;

	for (const char *s = path; *s != '\0'; s++)
		if (*s == '/' || *s == '\\')
			base = s + 1;
	return *base != '\0' ? names_intern(nt, base, strlen(base)) + 1 : 0;
}

/* BulkType: the types' names, as many as the payload holds of its
 * count (each with its type parameters' ids). */
static void bulk_types(struct clr_read *r, const struct nt_event *e)
{
	/* (no pointer past a payload shorter than the count's 6 bytes) */
	const uint8_t *end = e->payload + e->len, *p = e->len >= 6 ? e->payload + 6 : end;
	uint32_t n = e->len >= 6 ? rd32(e->payload) : 0, i = 0;

	for (; i < n && end - p >= 25; i++) {
		const uint8_t *q;
		uint32_t name = utf16_name(r, p + 25, end, &q);
		if (q == NULL || end - q < 4 || (uint64_t)(end - q - 4) < 8 * (uint64_t)rd32(q))
			break;
		VEC_GROW(r->p.types, r->p.ntypes, r->p.ctypes);
		r->p.types[r->p.ntypes++] = (struct clr_type){ rd64(p), rd64(p + 8), name, 0, 0 };
		p = q + 4 + 8 * (size_t)rd32(q);
	}
	if (i < n)
		damaged(&r->cut, e->at);
}

/* GCBulkRootStaticVar: each variable's object a root that carries the
 * field's name (no type's), as many as the payload holds of its count. */
static void static_vars(struct clr_read *r, const struct nt_event *e) /* e->len >= 14 */
{
	const uint8_t *p = e->payload + 14, *end = e->payload + e->len;
	uint32_t n = rd32(e->payload), i = 0;

	for (; i < n && end - p >= 28; i++) {
		const uint8_t *q;
		uint64_t obj = rd64(p + 8);
		uint32_t name = utf16_name(r, p + 28, end, &q);
		if (q == NULL)
			break;
		VEC_GROW(r->p.roots, r->p.nroots, r->p.croots);
		r->p.roots[r->p.nroots++] = (struct clr_root){ obj, CLR_ROOT_STATIC, name + 1 };
		p = q;
	}
	if (i < n)
		damaged(&r->cut, e->at);
}

/* A module's load (the runtime's ModuleLoad, with the loader's keyword)
 * or, at the session's end, the rundown's ModuleDCStart or ModuleDCEnd:
 * its id, then an assembly id, flags and a reserved word, then the path
 * of its IL file, whose name (past the last '/' or '\\') is kept. */
static void module_event(struct clr_read *r, const struct nt_event *e)
{
	struct sbuf path;

	if (e->len < 26)
		return;
	sbuf_init(&path);
	utf16_text(e->payload + 24, e->payload + e->len, &path);
	uint32_t name = clr_module_name(&r->p.nt, path.buf);
	sbuf_free(&path);
	if (name == 0)
		return;
	VEC_GROW(r->mods, r->nmods, r->cmods);
	r->mods[r->nmods++] = (struct clr_pair){ rd64(e->payload), name };
}

static int clr_event(void *arg, const struct nt_event *e)
{
	struct clr_read *r = arg;
	unsigned ps = r->t->pointer_size;

	if ((e->runtime && e->id == EV_MODULE_LOAD) ||
	    (e->rundown && (e->id == EV_MODULE_DC_START || e->id == EV_MODULE_DC_END))) {
		module_event(r, e);
		return 0;
	}
	if (!e->runtime)
		return 0;
	if (e->id == EV_BULKTYPE && !r->done) {
		bulk_types(r, e);
		return 0;
	}
	if (r->by_time) { /* in the GC from its start on, done after its end */
		r->in_gc = e->timestamp >= r->gc_start_ts;
		r->done = e->timestamp > r->gc_end_ts;
	}
	if (e->id == EV_SUSPEND_START && !r->in_gc)
		r->suspend_ts = e->timestamp; /* the last before the GC: its pause's start */
	if (e->id == EV_RESTART_END && r->gc_end_ts != 0 && r->restart_ts == 0 && e->timestamp >= r->gc_end_ts)
		r->restart_ts = e->timestamp;
	if (r->done || (r->by_time && (e->id == EV_GCSTART || e->id == EV_GCEND)))
		return 0;
	if (e->id == EV_GCSTART && e->len >= 16 && !r->in_gc && rd32(e->payload + 4) == 2 &&
	    rd32(e->payload + 12) != 1) {
		r->in_gc = 1;
		r->gc_count = rd32(e->payload);
		r->gc_start_ts = e->timestamp;
		return 0;
	}
	if (!r->in_gc)
		return 0;
	if (e->id == EV_GCEND && e->len >= 4 && rd32(e->payload) == r->gc_count) {
		r->done = 1;
		r->gc_end_ts = e->timestamp;
		return 0;
	}
	uint32_t n = e->len >= 10 ? rd32(e->payload + 4) : 0;
	if (e->id == EV_NODE) {
		if ((uint64_t)n * (ps + 24) > e->len - 10) {
			n = 0;
			damaged(&r->bad, e->at + 4); /* the count's offset */
			damaged(&r->bad_nodes, e->at + 4);
		}
		/* a reference costs the file ps + 4 bytes of a GCBulkEdge */
		uint64_t most = r->p.h->size / (ps + 4);
		for (uint32_t i = 0; i < n; i++) {
			const uint8_t *q = e->payload + 10 + (size_t)i * (ps + 24);
			if (rd64(q + ps + 16) > most) /* cut to it by the walk */
				damaged(&r->too_many_refs, e->at + (uint64_t)(q - e->payload) + ps + 16);
		}
		if (n > 0) {
			VEC_GROW(r->p.node_runs, r->p.nnode_runs, r->p.cnode_runs);
			r->p.node_runs[r->p.nnode_runs++] = (struct clr_run){ e->payload + 10, n };
		}
		r->p.nnodes += n;
	} else if (e->id == EV_EDGE) {
		if ((uint64_t)n * (ps + 4) > e->len - 10)
			n = 0, damaged(&r->bad, e->at + 4);
		if (n > 0) {
			VEC_GROW(r->p.edge_runs, r->p.nedge_runs, r->p.cedge_runs);
			r->p.edge_runs[r->p.nedge_runs++] = (struct clr_run){ e->payload + 10, n };
		}
		r->p.nedges += n;
	} else if (e->id == EV_ROOT) {
		if ((uint64_t)n * (2 * ps + 5) > e->len - 10)
			n = 0, damaged(&r->bad, e->at + 4);
		for (uint32_t i = 0; i < n; i++) {
			const uint8_t *q = e->payload + 10 + (size_t)i * (2 * ps + 5);
			uint8_t kind = q[ps];
			uint32_t flags = rd32(q + ps + 1);
			uint64_t addr = rdp(q, ps);
			if (flags & 0x2) { /* a weak handle: no root */
				VEC_GROW(r->p.weak, r->p.nweak, r->p.cweak);
				r->p.weak[r->p.nweak++] = addr;
				continue;
			}
			uint16_t k = kind <= CLR_ROOT_OTHER ? kind : CLR_ROOT_OTHER; /* GCRootKind */
			if ((flags & 0x1) && kind == 0)
				k = CLR_ROOT_STACK_PINNED;
			else if (flags & 0x1)
				k = CLR_ROOT_PINNED;
			else if (flags & 0x8)
				k = CLR_ROOT_REFCOUNTED;
			VEC_GROW(r->p.roots, r->p.nroots, r->p.croots);
			r->p.roots[r->p.nroots++] = (struct clr_root){ addr, k, 0 };
		}
	} else if (e->id == EV_DEPENDENT) {
		if ((uint64_t)n * (3 * ps) > e->len - 10)
			n = 0, damaged(&r->bad, e->at + 4);
		for (uint32_t i = 0; i < n; i++) {
			const uint8_t *q = e->payload + 10 + (size_t)i * 3 * ps;
			VEC_GROW(r->p.dep, r->p.ndep, r->p.cdep);
			r->p.dep[r->p.ndep++] = (struct clr_pair){ rdp(q, ps), rdp(q + ps, ps) };
		}
	} else if (e->id == EV_GENRANGE && e->len >= 1 + ps + 16) {
		if (r->p.nnodes > 0 && !r->ranges_after_walk) /* those after the walk replace those before */
			r->p.nranges = 0, r->ranges_after_walk = 1;
		const uint8_t *q = e->payload;
		VEC_GROW(r->p.ranges, r->p.nranges, r->p.cranges);
		r->p.ranges[r->p.nranges++] = (struct clr_range){ rdp(q + 1, ps), rd64(q + 1 + ps),
							      q[0] < CLR_NONGC ? q[0] : CLR_NONGC };
	} else if (e->id == EV_STATIC && e->len >= 14) {
		static_vars(r, e);
	}
	return 0;
}

/* Days from 1970-01-01 to the civil date y-m-d (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

/* The types met lately, by their ids' bits: a nettrace's ids are
 * addresses, found by a search among the types each but for these. ty
 * HW_NONE: none there yet. */
struct clr_recent { uint64_t id; uint32_t ty; };
#define CLR_RECENT 256

/* A type's handle, its class's qualified name given */
static uint32_t clr_hb_type(struct heap_builder *b, const struct clr_type *t)
{
	uint32_t ty = hb_type(b, t->name, t->id);

	if (t->qual != 0)
		hb_type_qual(b, ty, t->qual - 1);
	if (t->key != 0)
		hb_type_key(b, ty, t->key - 1);
	return ty;
}

/* The type of a node's type id: BulkType's name for it, else
 * "Type(0xID)". The types by id; each one's handle kept (handle[],
 * parallel to them) for its next objects, and in recent[] by its id. */
static uint32_t node_type(const struct clr_parts *p, uint32_t *handle, struct clr_recent *recent,
			  struct heap_builder *b, uint64_t type, uint32_t *unnamed)
{
	/* a .gcdump's ids are the types' indices: the first of its id at its
	 * own place needs no search */
	if (type < p->ntypes && p->types[type].id == type && (type == 0 || p->types[type - 1].id < type)) {
		if (handle[type] == HW_NONE)
			handle[type] = clr_hb_type(b, &p->types[type]);
		return handle[type];
	}
	struct clr_recent *r = &recent[(type >> 3 ^ type >> 11) & (CLR_RECENT - 1)];
	if (r->ty != HW_NONE && r->id == type)
		return r->ty;
	size_t lo = lower_bound_u64s(p->types, p->ntypes, sizeof *p->types, type);
	uint32_t ty;
	if (lo >= p->ntypes || p->types[lo].id != type) {
		uint32_t made = b->nty;
		ty = hb_type_unnamed(b, "Type", type);
		*unnamed += ty >= made; /* a type not named before: counted once */
	} else {
		if (handle[lo] == HW_NONE)
			handle[lo] = clr_hb_type(b, &p->types[lo]);
		ty = handle[lo];
	}
	*r = (struct clr_recent){ type, ty };
	return ty;
}

/* Each object's count of references as the walk gives them, in the
 * order given, a byte each (255: the count is among `wide`, by place):
 * kept from the objects' walk for references() when the builder could
 * not keep them (the objects came out of order), so that counting
 * needs no walk of the file again. A byte, not the builder's four: the
 * objects are sorted while it is held, at the build's peak. */
struct clr_counts {
	uint8_t *narrow;
	size_t n, cap;
	struct clr_wide { size_t at; uint64_t n; } *wide;
	size_t nwide, cwide;
};

/* What a walk of the objects carries from one to the next. */
struct clr_pass {
	const struct clr_parts *p;
	struct heap_builder *b;
	uint32_t *handle;  /* objects(): each type's handle, parallel to p->types */
	uint64_t prev_type, announced;
	uint32_t ty;
	struct clr_recent recent[CLR_RECENT]; /* objects(): node_type's */
	bits_t *seen;      /* references(): of an address reported twice, the first report's */
	const node_t *given; /* references(): each object's node, in the walk's order */
	size_t k;          /* ... the next object's place in it */
	struct clr_counts *cnt; /* objects(): each one's count kept */
	uint32_t unnamed;  /* objects(): types the trace names not, "Type(0x...)" */
};

static void object_given(void *arg, const struct clr_node *c, const uint64_t *to, size_t n)
{
	struct clr_pass *w = arg;

	(void)to;
	if (c->type != w->prev_type) {
		w->ty = node_type(w->p, w->handle, w->recent, w->b, c->type, &w->unnamed);
		w->prev_type = c->type;
	}
	hb_object(w->b, c->addr, w->ty, c->size, NK_INSTANCE);
	hb_object_refs(w->b, n);
	struct clr_counts *k = w->cnt;
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 256;
		k->narrow = xreallocarray(k->narrow, k->cap, 1);
	}
	k->narrow[k->n] = n < 255 ? (uint8_t)n : 255;
	if (n >= 255) {
		VEC_GROW(k->wide, k->nwide, k->cwide);
		k->wide[k->nwide++] = (struct clr_wide){ k->n, n };
	}
	k->n++;
	w->announced = c->nedges > UINT64_MAX - w->announced ? UINT64_MAX : w->announced + c->nedges;
}

/* The objects, by address as their ids, in the order sent, with the
 * count of their references; the references their counts announce
 * (the file's: their sum saturates) against those sent. */
static void objects(struct clr_parts *p, struct heap_builder *b, struct clr_counts *cnt)
{
	struct clr_pass w = { .p = p, .b = b, .prev_type = UINT64_MAX, .ty = HW_NONE, .cnt = cnt };

	for (size_t i = 0; i < CLR_RECENT; i++)
		w.recent[i].ty = HW_NONE;
	w.handle = xmalloc((p->ntypes + 1) * sizeof *w.handle);
	hw_qsort(p->types, p->ntypes, sizeof *p->types, cmp_first_u64);
	memset(w.handle, 0xff, (p->ntypes + 1) * sizeof *w.handle);
	p->walk(p, 0, object_given, &w);
	free(w.handle);
	if (w.unnamed > 0) /* as a snapshot taken after a mark, read without its mark file */
		warn_add(&p->h->warn, "%s: %u types of its objects have no name in it (\"Type(0x...)\": the runtime "
			 "names a type once while a session of it is open; a snapshot after heapwalk's mark finds them "
			 "in the mark file, %s.hwmark beside it)", p->h->path, w.unnamed, p->h->path);
	if (w.announced != p->nedges)
		warn_add(&p->h->warn, "%s: %llu references announced by the objects, %llu sent; the %s", p->h->path,
			 (unsigned long long)w.announced, (unsigned long long)p->nedges,
			 w.announced > p->nedges ? "objects short of theirs have what there is" : "extra are dropped");
}

/* An object's references go (object v's): its first report's (none of
 * a later one); its node when they do, else HW_NONE. */
static node_t refs_first(struct clr_pass *w, node_t v)
{
	if (w->seen != NULL) {
		if (bit_get(w->seen, v))
			return HW_NONE;
		bit_set(w->seen, v);
	}
	return v;
}

/* The same of the walk's next object. */
static node_t refs_from(struct clr_pass *w)
{
	return refs_first(w, w->given[w->k++]);
}

/* The counts kept by objects(), each to its object's node. */
static void refs_counted(struct clr_pass *w, const struct clr_counts *cnt)
{
	size_t wi = 0;

	for (size_t i = 0; i < cnt->n; i++) {
		uint64_t n = cnt->narrow[i] < 255 ? cnt->narrow[i] : cnt->wide[wi++].n;
		node_t v = refs_from(w);
		if (v != HW_NONE && n > 0)
			hb_refs_count(w->b, v, (size_t)n);
	}
}

static void refs_placed(void *arg, const struct clr_node *c, const uint64_t *to, size_t n)
{
	struct clr_pass *w = arg;

	if (refs_from(w) == HW_NONE)
		return;
	if (n > 0)
		hb_refs(w->b, c->addr, to, n);
}

/* The same, the targets as nodes (clr_parts' walk_nodes): their place
 * in the object's room, where the walk writes them. */
static node_t *refs_placed_nodes(void *arg, node_t v, size_t n)
{
	struct clr_pass *w = arg;

	v = refs_first(w, v);
	if (v == HW_NONE || n == 0)
		return NULL;
	return hb_refs_room(w->b, v, n, NULL);
}

/* The references: each object's, the next of those sent (of an address
 * reported twice, the first report's: its object's); a dependent
 * handle's value, a reference from its key. Counted (given with the
 * objects, or here when the builder let those go: the objects came out
 * of order), then each to its place: the builder keeps no reference but
 * in the heap's arrays. */
static void references(const struct clr_parts *p, struct heap_builder *b, struct clr_counts *cnt)
{
	node_t *given = hb_given_take(b);
	struct clr_pass w = { .p = p, .b = b, .given = given };
	size_t words = b->dup_ids > 0 ? bits_words(p->h->n) : 0;

	if (words > 0)
		w.seen = xcalloc(words, sizeof *w.seen);
	if (!hb_refs_counted(b))
		refs_counted(&w, cnt);
	/* counted: the counts go before the references come (the build's
	 * peak is theirs and the references') */
	free(cnt->narrow);
	free(cnt->wide);
	cnt->narrow = NULL;
	cnt->wide = NULL;
	if (words > 0)
		memset(w.seen, 0, words * sizeof *w.seen);
	for (size_t i = 0; i < p->ndep; i++) {
		node_t k = hb_find(b, p->dep[i].key);
		if (k != HW_NONE && hb_find(b, p->dep[i].value) != HW_NONE)
			hb_refs_count(b, k, 1);
	}
	w.k = 0;
	if (p->walk_nodes != NULL && hb_refs_counted(b)) {
		w.given = NULL; /* the walk gives each node itself, and may move given */
		p->walk_nodes(p, b, &given, refs_placed_nodes, &w);
	} else
		p->walk(p, 1, refs_placed, &w);
	free(given);
	free(w.seen);
	for (size_t i = 0; i < p->ndep; i++)
		hb_ref(b, p->dep[i].key, p->dep[i].value);
}

/* Each object's generation, by the ranges (both by address); objects in
 * none the GC reported (or in one of the non-GC heap's) are in a frozen
 * segment: the runtime made them there, outside its GC heap, and never
 * frees them. Nothing in the graph need refer to them (code does: a
 * string literal), so without a root they would pass for garbage the
 * dump still has. */
static void generations(struct clr_parts *p, struct heap_builder *b)
{
	struct heap *h = p->h;
	const struct clr_range *rg = p->ranges;
	size_t nr = p->nranges, k = 0;

	if (nr == 0)
		return;
	hw_qsort(p->ranges, nr, sizeof *p->ranges, cmp_first_u64);
	h->node_gen = xmalloc(h->n);
	h->node_gen[0] = CLR_NONGC;
	/* the range of the object before, held: most objects are in it */
	uint64_t start = 0, used = 0;
	uint8_t gen = CLR_NONGC;
	for (node_t v = 1; v < h->n; v++) {
		uint64_t a = h->node_id[v];
		if (a - start < used) { /* (below start: wrapped past used) */
			h->node_gen[v] = gen;
			continue;
		}
		while (k < nr && a >= rg[k].start && a - rg[k].start >= rg[k].used)
			k++;
		if (k < nr && a >= rg[k].start && a - rg[k].start < rg[k].used) {
			start = rg[k].start, used = rg[k].used, gen = rg[k].gen;
			h->node_gen[v] = gen;
			continue;
		}
		h->node_gen[v] = CLR_NONGC;
		hb_root(b, a, clr_root_natives[CLR_ROOT_FROZEN].kind, CLR_ROOT_FROZEN, 0);
	}
}

/* What the graph does not hold: weak handles, dependent handles (by
 * key address: by key node). */
static struct clr_data *handles(const struct clr_parts *p, const struct heap_builder *b)
{
	struct clr_data *cd = xcalloc(1, sizeof *cd);

	cd->weak = xmalloc((p->nweak + 1) * sizeof *cd->weak);
	for (size_t i = 0; i < p->nweak; i++) {
		node_t v = hb_find(b, p->weak[i]);
		if (v != HW_NONE)
			cd->weak[cd->nweak++] = v;
	}
	sort_u32(cd->weak, cd->nweak);
	cd->dep_key = xmalloc((p->ndep + 1) * sizeof *cd->dep_key);
	cd->dep_value = xmalloc((p->ndep + 1) * sizeof *cd->dep_value);
	for (size_t i = 0; i < p->ndep; i++) {
		node_t k = hb_find(b, p->dep[i].key), v = hb_find(b, p->dep[i].value);
		if (k != HW_NONE && v != HW_NONE) {
			cd->dep_key[cd->ndep] = k;
			cd->dep_value[cd->ndep++] = v;
		}
	}
	return cd;
}

/* The builder's limit on references (edge_t), told before its arrays
 * for them are asked of memory. */
static void too_many_refs(const struct clr_parts *p)
{
	if (p->nedges + p->ndep > (uint64_t)UINT32_MAX - 1)
		hw_fatal("%s: more than 2^32 references: not supported yet", esc_str(p->h->path));
}

void clr_build(struct clr_parts *p)
{
	struct heap *h = p->h;
	struct heap_builder b;

	/* the builder's limits (node_t, edge_t), told before its arrays
	 * for them are asked of memory */
	if (p->nnodes >= (uint64_t)UINT32_MAX - 1)
		hw_fatal("%s: more than 2^32 objects: not supported yet", esc_str(h->path));
	too_many_refs(p);
	hb_start(&b, h, &p->nt, p->nnodes, (p->bound_sizes ? HB_DISJOINT : 0) | HB_GIVEN_NODES);
	b.dup_what = "objects at an address the GC reported before; the first report of each is kept";
	struct clr_counts cnt = { .narrow = xmalloc(p->nnodes + 1), .cap = p->nnodes + 1 };
	objects(p, &b, &cnt);
	too_many_refs(p); /* a reader that counts them in this first walk (the .gcdump's) */
	if (p->few_finds) /* (the walk tells) */
		b.flags |= HB_FEW_FINDS;
	hb_nodes_done(&b);
	if (b.cut_sizes > 0)
		warn_add(&h->warn, "%s: %llu %s past the next object's address (or the end of the address "
			 "space); %s cut to it", h->path, (unsigned long long)b.cut_sizes,
			 b.cut_sizes == 1 ? "object reaches" : "objects reach", b.cut_sizes == 1 ? "its size" : "their sizes");
	hw_qsort(p->dep, p->ndep, sizeof *p->dep, cmp_first_u64);
	references(p, &b, &cnt); /* it frees cnt's arrays */
	for (size_t i = 0; i < p->nroots; i++) /* a static variable's carries its name */
		hb_root(&b, p->roots[i].addr, clr_root_natives[p->roots[i].kind].kind, (uint8_t)p->roots[i].kind,
			p->roots[i].name);
	generations(p, &b);
	hb_finish(&b);
	h->fmt_data = handles(p, &b);
	hb_free(&b);
}

void clr_parts_free(struct clr_parts *p)
{
	free(p->node_runs);
	free(p->edge_runs);
	free(p->roots);
	free(p->types);
	free(p->weak);
	free(p->dep);
	free(p->ranges);
	names_free(&p->nt);
}

static int clr_probe(const uint8_t *head, size_t n)
{
	return nt_probe(head, n);
}

static int clr_header(struct heap *h, struct sbuf *err)
{
	(void)err;
	snprintf(h->version, sizeof h->version, ".NET heap (nettrace)");
	h->layout.idsize = 8;
	return 0;
}

/* one, many: what the damage is, said of one and of more; then rest */
static void say_damage(struct heap *h, const struct damage *d, const char *one, const char *many, const char *rest)
{
	if (d->n > 0)
		warn_add(&h->warn, "%s: offset %llu: %llu %s%s", h->path, (unsigned long long)d->at,
			 (unsigned long long)d->n, d->n == 1 ? one : many, rest);
}

/* The error of a trace without objects: the damage that ended the
 * reading or left its objects out, if that is what did; else how to
 * record one. */
static void no_heap(const struct heap *h, const struct nt_trace *t, const struct clr_read *r, struct sbuf *err)
{
	char *ep = esc_str(h->path);

	if (t->stop_why[0] != '\0') {
		char *why = esc_str(t->stop_why);
		sbuf_printf(err, "%s: offset %llu: %s; no heap dump in this trace before it", ep,
			    (unsigned long long)t->stop_at, why);
		free(why);
	} else if (t->undefined > 0) {
		sbuf_printf(err, "%s: offset %llu: an event of no metadata the trace defines (%llu such, skipped: "
			    "what names them damaged or missing); no heap dump in this trace without them", ep,
			    (unsigned long long)t->undefined_at, (unsigned long long)t->undefined);
	} else if (r->bad_nodes.n > 0) {
		sbuf_printf(err, "%s: offset %llu: a GCBulkNode event shorter than its count (%llu such, skipped); no "
			    "heap dump in this trace without them", ep, (unsigned long long)r->bad_nodes.at,
			    (unsigned long long)r->bad_nodes.n);
	} else {
		sbuf_printf(err, "%s: offset 0: no heap dump in this trace (no induced full GC with GCBulkNode events: "
			    "record it with the runtime provider's keywords 0x1980001)", ep);
	}
	free(ep);
}

/* A BulkType of the mark's heap (clr_mark_types), as one of the trace. */
static void mark_type(void *arg, const uint8_t *payload, uint32_t len)
{
	struct nt_event e = { .runtime = 1, .id = EV_BULKTYPE, .payload = payload, .len = len };

	bulk_types(arg, &e);
}

/* clr_parts' walk over the trace's GCBulkNode records, each object's
 * references the next of the GCBulkEdge records. */
static void trace_walk(const struct clr_parts *p, int targets, clr_walk_fn fn, void *arg)
{
	unsigned ps = p->ps;
	uint64_t most = p->h->size / (ps + 4), e = 0; /* as clr_event warned */
	uint64_t *to = NULL;
	size_t cap = 0, er = 0;
	uint32_t ei = 0;

	for (size_t r = 0; r < p->nnode_runs; r++) {
		for (uint32_t i = 0; i < p->node_runs[r].n; i++) {
			const uint8_t *q = p->node_runs[r].at + (size_t)i * (ps + 24);
			__builtin_prefetch(q + 4096); /* the next page's: the processor's own stops at a page's end */
			uint64_t refs = rd64(q + ps + 16);
			struct clr_node c = { rdp(q, ps), rd64(q + ps), rd64(q + ps + 8), refs < most ? refs : most };
			size_t n = c.nedges < p->nedges - e ? c.nedges : p->nedges - e;
			e += n;
			if (targets && n > cap) {
				cap = n > 2 * cap ? n : 2 * cap;
				to = xreallocarray(to, cap, sizeof *to);
			}
			for (size_t k = 0; targets && k < n; k++) {
				while (ei == p->edge_runs[er].n)
					er++, ei = 0;
				const uint8_t *t = p->edge_runs[er].at + (size_t)ei++ * (ps + 4);
				__builtin_prefetch(t + 4096);
				to[k] = rdp(t, ps);
			}
			fn(arg, &c, targets ? to : NULL, n);
		}
	}
	free(to);
}

/* clr_parts' walk_nodes over the trace: as trace_walk's with targets,
 * each target found by its address in the builder's index (an object's
 * node: (*given)[k] is the k-th object's own, not a target's). */
HW_WIDE static void trace_walk_nodes(const struct clr_parts *p, const struct heap_builder *b, node_t **given,
				     clr_walk_nodes_fn fn, void *arg)
{
	const node_t *of = *given;
	size_t obj = 0;
	unsigned ps = p->ps;
	uint64_t most = p->h->size / (ps + 4), e = 0; /* as clr_event warned */
	size_t er = 0;
	uint32_t ei = 0;
	int made = idindex_made(&b->ix); /* hb_find's: none before it is */
	struct idcur cur = { 0, 0, NULL };

	for (size_t r = 0; r < p->nnode_runs; r++) {
		const uint8_t *q = p->node_runs[r].at;
		for (uint32_t i = 0; i < p->node_runs[r].n; i++, q += ps + 24) {
			__builtin_prefetch(q + 4096);
			uint64_t refs = rd64(q + ps + 16);
			refs = refs < most ? refs : most;
			size_t n = refs < p->nedges - e ? refs : p->nedges - e;
			e += n;
			node_t *to = fn(arg, of[obj++], n);
			for (size_t k = 0; k < n;) {
				while (ei == p->edge_runs[er].n)
					er++, ei = 0;
				/* the targets in this edge run, one after another */
				size_t m = p->edge_runs[er].n - ei < n - k ? p->edge_runs[er].n - ei : n - k;
				const uint8_t *t = p->edge_runs[er].at + (size_t)ei * (ps + 4);
				for (size_t j = 0; to != NULL && j < m; j++, t += ps + 4) {
					__builtin_prefetch(t + 4096); /* as trace_walk's */
					uint64_t id = rdp(t, ps);
					node_t v = !made ? HW_NONE : b->ix.blk != NULL ? idindex_find_cur(&b->ix, id, &cur)
										  : idindex_find(&b->ix, id);
					to[k + j] = v == 0 ? HW_NONE : v; /* node_of's: the root is none */
				}
				k += m;
				ei += (uint32_t)m;
			}
		}
	}
}

/* The parts gathered so far dropped (the names stay: h's), for a reading
 * again. */
static void parts_reset(struct clr_parts *p)
{
	struct nametab nt = p->nt;
	struct heap *h = p->h;

	free(p->node_runs), free(p->edge_runs), free(p->roots), free(p->types), free(p->weak), free(p->dep), free(p->ranges);
	memset(p, 0, sizeof *p);
	p->h = h;
	p->nt = nt;
	p->bound_sizes = 1;
	p->walk = trace_walk;
	p->walk_nodes = trace_walk_nodes;
}

/* The types the mark's heap named (clr_mark_types), for those the trace
 * does not name itself: its own names stand. */
static void mark_types(struct heap *h, const struct nt_trace *t, struct clr_read *r)
{
	size_t own = r->p.ntypes, k = own;

	hw_qsort(r->p.types, own, sizeof *r->p.types, cmp_first_u64);
	clr_mark_types(h->path, t->pid, t->sync_qpc, mark_type, r);
	for (size_t i = own; i < r->p.ntypes; i++) {
		size_t lo = lower_bound_u64s(r->p.types, own, sizeof *r->p.types, r->p.types[i].id);
		if (lo >= own || r->p.types[lo].id != r->p.types[i].id)
			r->p.types[k++] = r->p.types[i];
	}
	r->p.ntypes = k;
}

static int cmp_pair(const void *a, const void *b)
{
	const struct clr_pair *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->value < y->value ? -1 : x->value > y->value;
}

/* Each type's module id made its module's file name (0: none the trace
 * names). An id named more than once is one module's twice (its
 * DCStart and DCEnd) or, rarely, an id used again after an unload: then
 * one of its names, the same one for the same file. */
static void type_modules(struct clr_read *r)
{
	size_t k = 0;

	hw_qsort(r->mods, r->nmods, sizeof *r->mods, cmp_pair);
	for (size_t i = 0; i < r->nmods; i++)
		if (k == 0 || r->mods[k - 1].key != r->mods[i].key)
			r->mods[k++] = r->mods[i];
	r->nmods = k;
	for (size_t i = 0; i < r->p.ntypes; i++) {
		size_t lo = lower_bound_u64s(r->mods, r->nmods, sizeof *r->mods, r->p.types[i].module);
		r->p.types[i].module = lo < r->nmods && r->mods[lo].key == r->p.types[i].module ? r->mods[lo].value : 0;
	}
}

static const struct clr_type *cmp_types; /* clr_by_module's sort */

static int cmp_by_name(const void *a, const void *b)
{
	const struct clr_type *x = &cmp_types[*(const uint32_t *)a], *y = &cmp_types[*(const uint32_t *)b];

	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : *(const uint32_t *)a > *(const uint32_t *)b;
}

/* A type's name as both of .NET's dump formats can spell it, appended to
 * out: the runtime's trace spells a generic System.Func`2[A,B], a nested
 * generic Entry[K,V], a compiler's class <>c and an array of two
 * dimensions T[,]; dotnet-gcdump's file System.Func<A,B>, Entry<K,V>, []c
 * and T<,>. Both become System.Func[A,B], Entry[K,V], []c and T[,]: no
 * arity, '[' and ']' for '<' and '>'. */
void clr_spelt_alike(const char *s, struct sbuf *out)
{
	for (; *s != '\0'; s++) {
		if (*s == '`' && s[1] >= '0' && s[1] <= '9') {
			while (s[1] >= '0' && s[1] <= '9')
				s++;
			continue;
		}
		sbuf_addc(out, *s == '<' ? '[' : *s == '>' ? ']' : *s);
	}
}

/* The last " [" in q before s, NULL if none. */
static const char *prev_open(const char *q, const char *s)
{
	while (s > q + 1) {
		s--;
		if (s[0] == '[' && s[-1] == ' ')
			return s - 1;
	}
	return NULL;
}

int clr_name_base(const struct heap *h, uint32_t c, struct sbuf *out)
{
	if (c >= h->ncls || h->cls[c].qual == 0)
		return 0;
	/* qual is "SPELT [module]", a split class's name "NAME [module]":
	 * the suffix they share, after which NAME spelt alike is SPELT */
	const char *q = h->names + h->cls[c].qual - 1, *n = class_name(h, c);
	size_t nl = strlen(n);
	struct sbuf sp;
	int found = 0;

	sbuf_init(&sp);
	/* the last " [" first: a type's own name may hold one ("Foo [Bar]") */
	for (const char *s = q + strlen(q); !found && (s = prev_open(q, s)) != NULL;) {
		size_t sl = strlen(s);
		if (sl >= nl || strcmp(n + nl - sl, s) != 0)
			continue;
		char *base = xstrndup(n, nl - sl);
		sbuf_reset(&sp);
		clr_spelt_alike(base, &sp);
		if (sp.len == (size_t)(s - q) && memcmp(sp.buf, q, sp.len) == 0) {
			sbuf_adds(out, base);
			found = 1;
		}
		free(base);
	}
	sbuf_free(&sp);
	return found;
}

void clr_by_module(struct clr_parts *p)
{
	size_t n = p->ntypes;
	uint32_t *ix = xmalloc((n + 1) * sizeof *ix);
	struct sbuf nm;

	for (size_t i = 0; i < n; i++)
		ix[i] = (uint32_t)i;
	cmp_types = p->types;
	hw_qsort(ix, n, sizeof *ix, cmp_by_name);
	sbuf_init(&nm);
	for (size_t a = 0, b; a < n; a = b) {
		size_t known = a; /* the group's first of a known module (0 sorts first) */
		for (b = a + 1; b < n && p->types[ix[b]].name == p->types[ix[a]].name; b++)
			;
		while (known < b && p->types[ix[known]].module == 0)
			known++;
		/* one module's, or none known: the name alone, qualified for
		 * matching another dump's classes, where one more module may
		 * have the name */
		int split = known < b && p->types[ix[known]].module != p->types[ix[b - 1]].module;
		uint32_t name = p->types[ix[a]].name;
		for (size_t k = known; k < b; k++) {
			struct clr_type *t = &p->types[ix[k]];
			if (k > known && t->module == p->types[ix[k - 1]].module) {
				t->qual = p->types[ix[k - 1]].qual;
				t->name = p->types[ix[k - 1]].name;
				continue;
			}
			/* matched as spelt alike, shown as spelt */
			sbuf_reset(&nm);
			clr_spelt_alike(heap_str(p->h, name), &nm);
			sbuf_printf(&nm, " [%s]", heap_str(p->h, (uint32_t)(t->module - 1)));
			t->qual = names_intern(&p->nt, nm.buf, nm.len) + 1;
			if (split) {
				sbuf_reset(&nm);
				sbuf_printf(&nm, "%s [%s]", heap_str(p->h, name),
					    heap_str(p->h, (uint32_t)(t->module - 1)));
				t->name = names_intern(&p->nt, nm.buf, nm.len);
			}
		}
	}
	/* every type's key, of its name as shown (a name split by modules
	 * among them) */
	for (size_t i = 0; i < n; i++) {
		struct clr_type *t = &p->types[i];
		sbuf_reset(&nm);
		clr_spelt_alike(heap_str(p->h, t->name), &nm);
		t->key = strcmp(nm.buf, heap_str(p->h, t->name)) != 0 ? names_intern(&p->nt, nm.buf, nm.len) + 1 : 0;
	}
	sbuf_free(&nm);
	free(ix);
}

static int clr_parse(struct heap *h, struct progress *p, struct sbuf *err)
{
	struct clr_read r = { .p = { .h = h, .nt = { .h = h }, .bound_sizes = 1, .walk = trace_walk,
				     .walk_nodes = trace_walk_nodes } };
	struct nt_trace t;

	progress_begin(p, "parse", h->size, "MB");
	r.t = &t;
	/* every page is read, a good part of them twice (the objects' and
	 * references' walks): made at once, where memory is not short (as
	 * HPROF's first pass) */
	if (!heap_tight(h->size * 2))
		heap_map_populate(h);
	/* The content hash (--verify-cache) is not made here: the cache
	 * reads the file for it (content_hash), through a buffer, which
	 * took 0.83 s CPU for a 5 M-object trace's open where hashing the
	 * mapping 1 MiB behind the parser took 0.99 s (4 KB pages of a
	 * mapping read at a third of read()'s speed on this kind of
	 * machine) */
	int rc = nt_read(h->path, h->map, h->size, &t, clr_event, &r, &h->warn, err);
	if (rc == 0 && (r.p.nnodes == 0 || !r.done)) {
		/* the GC's start or end where its events are not: several
		 * threads' events (a server GC's) out of order in the stream */
		struct clr_window w;
		clr_window(h->map, h->size, &w);
		if (w.found && w.ended) {
			struct warnings again = { .quiet = 1 }; /* the same as the first time's */
			parts_reset(&r.p);
			free(r.mods); /* named again by the second reading */
			r = (struct clr_read){ .p = r.p, .t = &t, .by_time = 1, .gc_count = w.gc,
					       .gc_start_ts = w.start_ts, .gc_end_ts = w.end_ts };
			rc = nt_read(h->path, h->map, h->size, &t, clr_event, &r, &again, err);
			r.done = 1; /* its end is there, whatever came after it */
			warn_free(&again);
		}
	}
	progress_end(p);
	if (t.year >= 1970 && t.month >= 1 && t.month <= 12 && t.day >= 1 && t.day <= 31)
		h->timestamp_ms = (uint64_t)((days_from_civil(t.year, t.month, t.day) * 86400 + t.hour * 3600 +
					      t.minute * 60 + t.second) * 1000 + (t.millisecond < 1000 ? t.millisecond : 0));
	if (rc == 0 && r.p.nnodes == 0) {
		no_heap(h, &t, &r, err);
		rc = -1;
	}
	if (rc == 0) {
		if (!r.done) { /* what the GC sent after is missing: a dump cut short */
			warn_add(&h->warn, "%s: the trace ends before the heap dump's GC does: the objects sent so far",
				 h->path);
			h->truncated_at = t.stop_at != 0 ? t.stop_at : h->size;
			if (r.p.nranges > 0 && !r.ranges_after_walk) { /* the GC's start's: the objects before it moved */
				warn_add(&h->warn, "%s: the trace ends before the GC's generation ranges at its end: no "
					 "generations (those at its start place the objects as they were before it), "
					 "and no object told for one outside the GC's heap", h->path);
				r.p.nranges = 0;
			}
		}
		say_damage(h, &r.bad, "bulk event shorter than its count", "bulk events shorter than their counts",
			   " (the first here); skipped");
		say_damage(h, &r.cut, "bulk event shorter than its count", "bulk events shorter than their counts",
			   " (the first here); read as far as they go");
		say_damage(h, &r.too_many_refs, "object claims more references than the file holds",
			   "objects claim more references than the file holds", " (the first here); cut to that");
		mark_types(h, &t, &r);
		type_modules(&r);
		clr_by_module(&r.p);
		r.p.ps = t.pointer_size;
		clr_build(&r.p);
		struct clr_data *cd = h->fmt_data;
		cd->pid = t.pid;
		cd->sync_qpc = t.sync_qpc;
		if (r.t->qpc_freq > 0) {
			double ns = 1e9 / (double)r.t->qpc_freq;
			/* GCStart to GCEnd; SuspendEE's start to RestartEE's end */
			if (r.gc_end_ts > r.gc_start_ts && r.gc_start_ts != 0)
				h->dump_gc_ns = (uint64_t)((double)(r.gc_end_ts - r.gc_start_ts) * ns);
			if (r.restart_ts > r.suspend_ts && r.suspend_ts != 0)
				h->dump_pause_ns = (uint64_t)((double)(r.restart_ts - r.suspend_ts) * ns);
		}
	}
	clr_parts_free(&r.p);
	free(r.mods);
	return rc;
}

/* Is there a dependent handle with key k and value v? */
static int is_dependent(const struct clr_data *cd, node_t k, node_t v)
{
	size_t lo = lower_bound_u32(cd->dep_key, cd->ndep, k); /* dep_key ascending */

	for (; lo < cd->ndep && cd->dep_key[lo] == k; lo++)
		if (cd->dep_value[lo] == v)
			return 1;
	return 0;
}

/* References carry no field names in the trace (its field ids are all
 * 0): an array's are its elements ("[]"), an object's are named by the
 * type they refer to; a dependent handle's, so. */
static void ref_name(const struct heap *h, node_t src, node_t dst, struct sbuf *out)
{
	const struct clr_data *cd = h->fmt_data;
	const char *sc = class_name(h, h->node_class[src]);
	size_t n = strlen(sc);

	if (cd != NULL && is_dependent(cd, src, dst))
		sbuf_adds(out, "dependent handle");
	else if (n >= 2 && strcmp(sc + n - 2, "[]") == 0)
		sbuf_adds(out, "[]");
	else {
		sbuf_addc(out, '(');
		sbuf_adds(out, class_name(h, h->node_class[dst]));
		sbuf_addc(out, ')');
	}
}

void clr_edge_label(const struct heap *h, node_t src, node_t dst, struct sbuf *out)
{
	edge_t hi = h->out_start[src + 1];
	size_t e = lower_bound_u32_range(h->out, sizeof *h->out, h->out_start[src], hi, dst); /* by target */

	if (e < hi && h->out[e] == dst) {
		ref_name(h, src, dst, out);
		return;
	}
	/* one moved among the weak ones (a reference left out, a rule's
	 * weak one): the dump's all the same */
	size_t w = h->weak_src != NULL ? lower_bound_pair_u32(h->weak_src, h->weak_dst, h->nweak, src, dst) : h->nweak;
	if (w < h->nweak && h->weak_src[w] == src && h->weak_dst[w] == dst)
		ref_name(h, src, dst, out);
	else
		sbuf_adds(out, "<?>");
}

int clr_fields(const struct heap *h, node_t v, field_fn fn, void *arg)
{
	struct sbuf name;
	int n = 0;

	if (v == 0 || v >= h->n)
		return -1;
	sbuf_init(&name);
	for (edge_t e = h->out_start[v]; e < h->out_start[v + 1]; e++, n++) {
		struct hvalue val = { .type = T_OBJECT, .v.id = h->node_id[h->out[e]] };
		sbuf_reset(&name);
		ref_name(h, v, h->out[e], &name);
		fn(arg, name.buf, &val);
	}
	sbuf_free(&name);
	return n;
}

const struct root_native clr_root_natives[CLR_ROOT_COUNT] = {
	[CLR_ROOT_STACK] = { "stack", RK_STACK, 0 },
	[CLR_ROOT_FINALIZER] = { "finalizer queue", RK_FINALIZER, 0 },
	[CLR_ROOT_HANDLE] = { "strong GC handle", RK_GLOBAL_HANDLE, 0 },
	[CLR_ROOT_OLDER] = { "older generation", RK_OTHER, 0 },
	[CLR_ROOT_SIZEDREF] = { "sized reference handle", RK_GLOBAL_HANDLE, 0 },
	[CLR_ROOT_OTHER] = { "other", RK_OTHER, 0 },
	[CLR_ROOT_REFCOUNTED] = { "ref-counted handle", RK_GLOBAL_HANDLE, 0 },
	[CLR_ROOT_STACK_PINNED] = { "pinned local", RK_STACK, 0 },
	[CLR_ROOT_PINNED] = { "pinned GC handle", RK_GLOBAL_HANDLE, 0 },
	/* its value lives while its key does: no strong handle */
	[CLR_ROOT_DEPENDENT] = { "dependent handle", RK_OTHER, 0 },
	[CLR_ROOT_STATIC] = { "static variable", RK_STATICS, 0 },
	/* the runtime's own data outside the GC's heap */
	[CLR_ROOT_FROZEN] = { "frozen segment", RK_VM_INTERNAL, 0 },
};

/* A static variable's root: the field's name (the trace has no type's),
 * kept in thread_serial as its name's offset + 1. */
void clr_root_detail(const struct heap *h, const struct root *r, struct sbuf *out)
{
	if (r->kind == RK_STATICS && r->native == CLR_ROOT_STATIC && r->thread_serial != 0) {
		sbuf_addc(out, ' ');
		sbuf_adds(out, heap_str(h, r->thread_serial - 1));
	}
}

const char *clr_gen_name(unsigned g)
{
	static const char *const names[CLR_NGENS] = { "gen0", "gen1", "gen2", "loh", "poh", "nongc" };

	return g < CLR_NGENS ? names[g] : NULL;
}

void clr_free_data(struct heap *h)
{
	struct clr_data *cd = h->fmt_data;

	if (cd == NULL)
		return;
	free(cd->weak);
	free(cd->dep_key);
	free(cd->dep_value);
	free(cd);
	h->fmt_data = NULL;
}

/* ---- the index cache: what clr_data keeps ---- */

/* The handles' arrays, and the trace's process and clock in place. */
int clr_data_arrays(struct heap *h, struct fmt_array *a)
{
	struct clr_data *cd = h->fmt_data;

	if (cd == NULL)
		cd = h->fmt_data = xcalloc(1, sizeof *cd);
	a[0] = (struct fmt_array){ (void **)&cd->weak, NULL, sizeof *cd->weak, cd->nweak };
	a[1] = (struct fmt_array){ (void **)&cd->dep_key, NULL, sizeof *cd->dep_key, cd->ndep };
	a[2] = (struct fmt_array){ (void **)&cd->dep_value, NULL, sizeof *cd->dep_value, cd->ndep };
	a[3] = (struct fmt_array){ NULL, &cd->pid, sizeof cd->pid, 1 };
	a[4] = (struct fmt_array){ NULL, &cd->sync_qpc, sizeof cd->sync_qpc, 1 };
	return 5;
}

/* Every handle's objects in the heap, a static variable's name among
 * the names, generations .NET's. */
const char *clr_data_loaded(struct heap *h, const struct fmt_array *a, int n)
{
	struct clr_data *cd = h->fmt_data;

	(void)n;
	cd->nweak = a[0].count;
	cd->ndep = a[1].count;
	if (a[2].count != cd->ndep)
		return "bad handles";
	for (size_t i = 0; i < cd->nweak; i++)
		if (cd->weak[i] == 0 || cd->weak[i] >= h->n)
			return "bad handles";
	for (size_t i = 0; i < cd->ndep; i++)
		if (cd->dep_key[i] == 0 || cd->dep_key[i] >= h->n || cd->dep_value[i] == 0 || cd->dep_value[i] >= h->n)
			return "bad handles";
	for (size_t i = 0; i < h->nroot_rec; i++)
		if (h->root_rec[i].kind == RK_STATICS && h->root_rec[i].native == CLR_ROOT_STATIC &&
		    h->root_rec[i].thread_serial > h->names_len)
			return "bad root";
	for (node_t v = 0; h->node_gen != NULL && v < h->n; v++)
		if (h->node_gen[v] >= CLR_NGENS)
			return "bad generation";
	return NULL;
}

/* The mark file heapwalk snapshot wrote beside the trace, if any. */
static int clr_mark(const struct heap *h, uint8_t **old, int *exact, struct sbuf *how, struct sbuf *err)
{
	const struct clr_data *cd = h->fmt_data;

	return cd == NULL ? 0 : clr_mark_read(h, cd->pid, cd->sync_qpc, old, exact, how, err);
}

/* old the heap of h's mark: the mark file says which objects are the same. */
static int clr_identity(const struct heap *h, const struct heap *old, node_t *same, struct sbuf *how,
			struct sbuf *why)
{
	const struct clr_data *cd = h->fmt_data, *od = old->fmt_data;

	if (cd == NULL || od == NULL) {
		sbuf_adds(why, "no mark file beside the dump");
		return -1;
	}
	return clr_mark_identity(h, cd->pid, cd->sync_qpc, old, od->pid, od->sync_qpc, same, how, why);
}

/* The process the dump was taken of, by its id as the dump's writer
 * saw it (0: not said). */
int clr_run_key(const struct heap *h, uint64_t *key, struct sbuf *words)
{
	const struct clr_data *cd = h->fmt_data;

	if (cd == NULL || cd->pid == 0)
		return 0;
	*key = cd->pid;
	sbuf_printf(words, "process %u", cd->pid);
	return 1;
}

const struct format_ops clr_format = {
	.name = "nettrace",
	.title = ".NET (nettrace)",
	.label = "a .NET heap-dump trace (nettrace)",
	.facts = FF_WEAK_HANDLES,
	.runtime = "clr",
	.rt = &clr_runtime,
	.name_key = clr_spelt_alike,
	.name_base = clr_name_base,
	.cacheable = 1,
	.data_arrays = clr_data_arrays,
	.data_loaded = clr_data_loaded,
	.needs = HP_OUT | HP_CLASS | HP_KIND | HP_IDS,
	.probe = clr_probe,
	.header = clr_header,
	.parse = clr_parse,
	.fields = clr_fields,
	.edge_label = clr_edge_label,
	.root_natives = clr_root_natives,
	.nroot_natives = CLR_ROOT_COUNT,
	.root_detail = clr_root_detail,
	.gen_name = clr_gen_name,
	.gen_told = "a .NET trace does when recorded with the runtime's keyword 0x400000, as heapwalk snapshot "
		    "records",
	.free_data = clr_free_data,
	.mark = clr_mark,
	.identity = clr_identity,
	.run_key = clr_run_key,
	.may_grow = heap_never_grows,
};
