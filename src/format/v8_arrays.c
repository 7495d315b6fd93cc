/* v8_arrays.c — the flat arrays of a V8 snapshot, numbers written
 * straight into the columns of struct v8_snap; the nested trace_tree
 * flattened; the strings as offsets; and the checks that need all of
 * it read. */
#include <stdlib.h>
#include <string.h>

#include "format/v8_scan.h"

#define NUM_MIN 2 /* bytes of the shortest number with its comma: "0," */
#define MAX_RECORDS ((uint64_t)UINT32_MAX - 1) /* UINT32_MAX is the sentinel */

/* Values that did not fit their column, counted per array. */
struct clamps {
	uint64_t big, type;
};

static void *resize(void *a, uint64_t n, size_t elem)
{
	return xreallocarray(a, (size_t)(n ? n : 1), elem);
}

/* How many records a batch may take at n, within the records' room
 * (cap), the pages made (ahead), the numbers' buffer, and the next
 * multiple of tick's period: tick(n) after each batch then does what a
 * tick after each record would. */
static size_t batch_max(uint64_t n, uint64_t cap, uint64_t ahead, unsigned width)
{
	uint64_t m = V8_BATCH_NUMS / width, t = 0x4000 - (n & 0x3fff);

	m = m < t ? m : t;
	m = m < cap - n ? m : cap - n;
	return (size_t)(m < ahead - n ? m : ahead - n);
}

static void tick(struct rd *r, uint64_t i)
{
	if ((i & 0x3fff) == 0) {
		v8s_window(r);
		if ((i & 0xffff) == 0)
			progress_update(r->pr, pos(r));
	}
}

static uint32_t clamp32(uint64_t v, struct clamps *c)
{
	if (v > UINT32_MAX) {
		c->big++;
		return UINT32_MAX;
	}
	return (uint32_t)v;
}

/* A name: a string index, or an element's index. One too large for 32
 * bits is counted and saturates short of the sentinel, so that the
 * names' check sees a string index past the strings. */
static uint32_t index32(uint64_t v, struct clamps *c)
{
	if (v < HW_NONE)
		return (uint32_t)v;
	c->big++;
	return HW_NONE - 1;
}

static uint8_t clamp8(uint64_t v, struct clamps *c)
{
	if (v > UINT8_MAX) {
		c->big++;
		return UINT8_MAX;
	}
	return (uint8_t)v;
}

static uint8_t type8(uint64_t v, unsigned ntypes, struct clamps *c)
{
	if (v >= ntypes) {
		c->type++;
		return UINT8_MAX;
	}
	return (uint8_t)v;
}

static void clamps_done(struct rd *r, uint64_t at, const char *what, const struct clamps *c)
{
	if (c->big > 0)
		warn_add(r->w, "%s: offset %llu: %s: %llu values too large for their field (saturated)",
			 r->path, (unsigned long long)at, what, (unsigned long long)c->big);
	if (c->type > 0)
		warn_add(r->w, "%s: offset %llu: %s: %llu types not in meta's list (read as none)", r->path,
			 (unsigned long long)at, what, (unsigned long long)c->type);
}

/* A record cut short by the array's end (not by the file's). */
static void partial(struct rd *r, const char *what, unsigned k, unsigned width)
{
	if (k != 0)
		warn_add(r->w, "%s: offset %llu: %s: the last record has %u of its %u numbers; dropped",
			 r->path, (unsigned long long)pos(r), what, k, width);
}

/* Room for one more record at n: grown by doubling; 0 at the bound. */
static int more(struct rd *r, uint64_t n, uint64_t *cap, const char *what)
{
	if (n < *cap)
		return 1;
	if (n >= MAX_RECORDS) {
		v8s_problem(r, pos(r), "%s: more than %llu records; the rest is not read", what,
			    (unsigned long long)MAX_RECORDS);
		return 0;
	}
	*cap = *cap * 2 < MAX_RECORDS ? *cap * 2 : MAX_RECORDS;
	return 1;
}

/* The pages of the next this many records (elements) of the columns
 * made at once, not a fault each: a window ahead of what is read, never
 * the count the file's meta claims (a file may claim far more than it
 * holds). */
#define COLS_AHEAD 65536
#define FLAT_AHEAD 16384

/* ---- nodes ---- */

static void nodes_resize(struct v8_snap *s, uint64_t cap)
{
	s->ntype = resize(s->ntype, cap, sizeof *s->ntype);
	s->nname = resize(s->nname, cap, sizeof *s->nname);
	if (s->ntrace != NULL) /* made by the first node with a trace */
		s->ntrace = resize(s->ntrace, cap, sizeof *s->ntrace);
	/* the columns the builder copies are let go behind it, page by page
	 * (v8_snap_release_nodes, v8_snap_release_counts): mappings of
	 * their own, not malloc's */
	uint64_t was = s->ncap ? s->ncap : 1, now = cap ? cap : 1;
	s->nedges_of = big_resize(s->nedges_of, was * sizeof *s->nedges_of, now * sizeof *s->nedges_of);
	s->nid = big_resize(s->nid, was * sizeof *s->nid, now * sizeof *s->nid);
	s->nsize = big_resize(s->nsize, was * sizeof *s->nsize, now * sizeof *s->nsize);
	if (s->nf_detachedness >= 0)
		s->ndetached = big_resize(s->ndetached, was * sizeof *s->ndetached, now * sizeof *s->ndetached);
	s->ncap = cap;
}

/* Records rec[0..got) as nodes n, n + 1, ...: what the loop needs of s
 * in locals, since a store through a uint8_t column may change anything
 * as far as the compiler knows, s's fields included. */
static void nodes_put(struct v8_snap *s, const uint64_t *rec, uint64_t n, size_t got, struct clamps *c)
{
	uint8_t *restrict ntype = s->ntype + n;
	uint32_t *restrict nname = s->nname + n, *restrict nsize = s->nsize + n, *restrict nedges = s->nedges_of + n;
	uint64_t *restrict nid = s->nid + n;
	uint32_t *ntrace = s->ntrace != NULL ? s->ntrace + n : NULL;
	uint8_t *ndet = s->ndetached != NULL ? s->ndetached + n : NULL;
	unsigned nf = s->node_fields, ntypes = s->n_node_types;
	unsigned ft = (unsigned)s->nf_type, fn = (unsigned)s->nf_name, fi = (unsigned)s->nf_id;
	unsigned fs = (unsigned)s->nf_self_size, fe = (unsigned)s->nf_edge_count;
	int ftr = s->nf_trace_node_id, fd = s->nf_detachedness;
	struct clamps k = *c;

	for (size_t i = 0; i < got; i++, rec += nf) {
		ntype[i] = type8(rec[ft], ntypes, &k);
		nname[i] = index32(rec[fn], &k);
		nid[i] = rec[fi];
		nsize[i] = clamp32(rec[fs], &k);
		nedges[i] = clamp32(rec[fe], &k);
		if (ftr >= 0) {
			uint32_t t = clamp32(rec[ftr], &k);
			if (t != 0 && ntrace == NULL) { /* the nodes before had none */
				s->ntrace = xcalloc((size_t)s->ncap, sizeof *s->ntrace);
				ntrace = s->ntrace + n;
			}
			if (ntrace != NULL)
				ntrace[i] = t;
		}
		if (ndet != NULL)
			ndet[i] = clamp8(rec[fd], &k);
	}
	*c = k;
}

int v8s_read_nodes(struct rd *r)
{
	struct v8_snap *s = r->s;
	unsigned nf = s->node_fields, k = 0;
	uint64_t rec[V8_BATCH_NUMS], v, n = 0, cap, ahead = 0;
	struct clamps c = { 0 };
	int first = 1, rc;

	ws(r);
	s->nodes_at = pos(r);
	if (v8s_expect(r, '[', "nodes") < 0)
		return -1;
	cap = v8s_room(r, s->meta_node_count, nf, NUM_MIN);
	nodes_resize(s, cap);
	for (;;) {
		if (n >= ahead && n < cap) { /* the pages of the next records at once */
			uint64_t to = n + COLS_AHEAD < cap ? n + COLS_AHEAD : cap;
			mem_populate(s->ntype, n * sizeof *s->ntype, to * sizeof *s->ntype);
			mem_populate(s->nname, n * sizeof *s->nname, to * sizeof *s->nname);
			mem_populate(s->nedges_of, n * sizeof *s->nedges_of, to * sizeof *s->nedges_of);
			mem_populate(s->nid, n * sizeof *s->nid, to * sizeof *s->nid);
			mem_populate(s->nsize, n * sizeof *s->nsize, to * sizeof *s->nsize);
			mem_populate(s->ndetached, n * sizeof *s->ndetached, to * sizeof *s->ndetached);
			ahead = to;
		}
		size_t got;
		if (k == 0 && !first && n < cap && (got = next_recs(r, rec, nf, batch_max(n, cap, ahead, nf))) > 0) {
			nodes_put(s, rec, n, got, &c);
			n += got;
			tick(r, n);
			continue;
		}
		if ((rc = next_num(r, &first, &v, "nodes")) <= 0)
			break;
		rec[k] = v;
		if (++k < nf)
			continue;
		k = 0;
		if (n == cap) {
			if (!more(r, n, &cap, "nodes"))
				break;
			nodes_resize(s, cap);
		}
		nodes_put(s, rec, n++, 1, &c);
		tick(r, n);
	}
	s->nnodes = (uint32_t)n;
	if (cap > n)
		nodes_resize(s, n);
	/* what is wrong inside first: the record cut short at the end
	 * follows from it where a number was lost or split */
	v8s_odd_done(r, "nodes");
	clamps_done(r, s->nodes_at, "nodes", &c);
	if (rc == 0)
		partial(r, "nodes", k, nf);
	return r->stop ? -1 : 0;
}

/* ---- edges ---- */

/* to_node, an index into the nodes' numbers, as a node ordinal: the
 * quotient by a multiply (Lemire's: exact for 32-bit numerators), not
 * a division per edge. HW_NONE when it is no node's first number. */
static inline uint32_t ordinal(uint64_t v, unsigned nf, uint64_t inv, uint32_t nnodes)
{
	if (v > UINT32_MAX)
		return HW_NONE;
	uint64_t q = nf == 1 ? v : (uint64_t)(((unsigned __int128)inv * v) >> 64);
	return q * nf == v && q < nnodes ? (uint32_t)q : HW_NONE;
}

/* The edge columns (v8_parse's; the heap's reader takes the edges a
 * batch at a time instead), big_alloc'd as the node columns are. */
static void edges_resize(struct v8_snap *s, uint64_t cap)
{
	cap = cap ? cap : 1;
	s->etype = big_resize(s->etype, s->ecap * sizeof *s->etype, cap * sizeof *s->etype);
	s->ename = big_resize(s->ename, s->ecap * sizeof *s->ename, cap * sizeof *s->ename);
	s->eto = big_resize(s->eto, s->ecap * sizeof *s->eto, cap * sizeof *s->eto);
	s->ecap = cap;
}

void v8_snap_release_nodes(struct v8_snap *s, uint64_t from, uint64_t to)
{
	big_release(s->nid, from * sizeof *s->nid, to * sizeof *s->nid);
	big_release(s->nsize, from * sizeof *s->nsize, to * sizeof *s->nsize);
	if (s->ndetached != NULL)
		big_release(s->ndetached, from * sizeof *s->ndetached, to * sizeof *s->ndetached);
}

void v8_snap_free_node_columns(struct v8_snap *s)
{
	uint64_t n = s->ncap ? s->ncap : 1;

	big_free(s->nid, n * sizeof *s->nid);
	big_free(s->nsize, n * sizeof *s->nsize);
	big_free(s->ndetached, n * sizeof *s->ndetached);
	s->nid = NULL;
	s->nsize = NULL;
	s->ndetached = NULL;
}

void v8_snap_release_counts(struct v8_snap *s, uint64_t from, uint64_t to)
{
	big_release(s->nedges_of, from * sizeof *s->nedges_of, to * sizeof *s->nedges_of);
}

void v8_snap_free_counts(struct v8_snap *s)
{
	big_free(s->nedges_of, (s->ncap ? s->ncap : 1) * sizeof *s->nedges_of);
	s->nedges_of = NULL;
}

void v8_snap_free_edges(struct v8_snap *s)
{
	big_free(s->etype, s->ecap * sizeof *s->etype);
	big_free(s->ename, s->ecap * sizeof *s->ename);
	big_free(s->eto, s->ecap * sizeof *s->eto);
	s->etype = NULL;
	s->ename = s->eto = NULL;
	s->ecap = 0;
}

/* What the edges' reading counts of what it met. */
struct edge_tally {
	struct clamps c;
	uint64_t bad_to, bad_name;
};

/* Records rec[0..got) decoded into type, name and to: what the loop
 * needs of s in locals, since a store through a uint8_t array may
 * change anything as far as the compiler knows, s's fields included. */
static void edges_decode(const struct v8_snap *s, const uint64_t *rec, size_t got, uint64_t inv,
			 struct edge_tally *et, uint8_t *restrict type, uint32_t *restrict name, uint32_t *restrict to)
{
	unsigned ef = s->edge_fields, nf = s->node_fields, ntypes = s->n_edge_types;
	unsigned ft = (unsigned)s->ef_type, fn = (unsigned)s->ef_name, fto = (unsigned)s->ef_to;
	uint32_t nnodes = s->nnodes, nstr = s->nstr;
	const uint8_t *numeric = s->numeric_name;
	struct clamps k = et->c;
	uint64_t bad = 0, bad_name = 0;

	for (size_t i = 0; i < got; i++, rec += ef) {
		type[i] = type8(rec[ft], ntypes, &k);
		uint32_t nm = index32(rec[fn], &k);
		/* a string's index past the strings: none (an element's is its index) */
		int past = !numeric[type[i]] && nm >= nstr && nm != HW_NONE;
		bad_name += past;
		name[i] = past ? HW_NONE : nm;
		to[i] = ordinal(rec[fto], nf, inv, nnodes);
		bad += to[i] == HW_NONE;
	}
	et->c = k;
	et->bad_to += bad;
	et->bad_name += bad_name;
}

/* The edge columns as a sink: grown as the edges come (from room for
 * what the file can hold, v8s_room), the pages of the next records
 * made at once. */
struct cols {
	struct v8_snap *s;
	uint64_t ahead;
};

static void cols_put(void *ctx, uint64_t at, size_t n, const uint8_t *type, const uint32_t *name, const uint32_t *to)
{
	struct cols *c = ctx;
	struct v8_snap *s = c->s;

	if (at + n > s->ecap) {
		uint64_t cap = s->ecap * 2 < MAX_RECORDS ? s->ecap * 2 : MAX_RECORDS;
		edges_resize(s, cap > at + n ? cap : at + n);
	}
	if (at + n > c->ahead) {
		uint64_t to_ = at + n + COLS_AHEAD < s->ecap ? at + n + COLS_AHEAD : s->ecap;
		mem_populate(s->etype, at * sizeof *s->etype, to_ * sizeof *s->etype);
		mem_populate(s->ename, at * sizeof *s->ename, to_ * sizeof *s->ename);
		mem_populate(s->eto, at * sizeof *s->eto, to_ * sizeof *s->eto);
		c->ahead = to_;
	}
	memcpy(s->etype + at, type, n * sizeof *type);
	memcpy(s->ename + at, name, n * sizeof *name);
	memcpy(s->eto + at, to, n * sizeof *to);
}

/* The nodes' edge counts must add up to the edges: the edges of node
 * k are found by that sum, so they are cut to agree (sum: what they
 * add up to in the file, read is the edges read). */
static void check_edge_counts(struct rd *r, uint64_t sum, uint64_t read, int cut)
{
	struct v8_snap *s = r->s;

	if (sum == read)
		return;
	warn_add(r->w, "%s: offset %llu: the nodes' edge counts add up to %llu, but there are %llu edges; "
		 "%s", r->path, (unsigned long long)s->nodes_at, (unsigned long long)sum,
		 (unsigned long long)read,
		 sum > read ? "the last nodes' counts are cut" : "the edges past their sum are dropped");
	if (!cut) /* a sink's reader has counted on them: it knows which came */
		return;
	uint64_t left = s->nedges;
	for (uint32_t i = 0; i < s->nnodes; i++) {
		if (s->nedges_of[i] > left)
			s->nedges_of[i] = (uint32_t)left;
		left -= s->nedges_of[i];
	}
}

/* What names no string is of: with the file cut short before or in its
 * strings, a consequence of the cut (said before this), else damage. */
static const char *names_past(const struct v8_snap *s, char *buf, size_t n)
{
	int cut = s->cut_at != 0 && (s->strings_at == 0 || s->cut_at >= s->strings_at);

	if (cut && s->nstr == 0)
		snprintf(buf, n, "names read as none: the file is cut short %s its strings",
			 s->strings_at == 0 ? "before" : "in");
	else if (cut)
		snprintf(buf, n, "names past the %u strings read before the cut (read as none)", s->nstr);
	else
		snprintf(buf, n, "names past the %u strings (read as none)", s->nstr);
	return buf;
}

int v8s_read_edges(struct rd *r, v8_edge_sink *sink, void *ctx)
{
	struct v8_snap *s = r->s;
	unsigned ef = s->edge_fields, nf = s->node_fields, k = 0;
	uint64_t rec[V8_BATCH_NUMS], v, n = 0, sum = 0;
	uint64_t inv = nf > 1 ? UINT64_MAX / nf + 1 : 0;
	uint8_t type[V8_BATCH_NUMS];
	uint32_t name[V8_BATCH_NUMS], to[V8_BATCH_NUMS];
	struct edge_tally et = { 0 };
	struct cols cols = { .s = s };
	int first = 1, rc = 0, go = s->edges_at != 0;

	for (uint32_t i = 0; i < s->nnodes; i++)
		sum += s->nedges_of[i];
	if (sink == NULL) {
		sink = cols_put;
		ctx = &cols;
	}
	if (go) {
		r->p = r->base + s->edges_at;
		go = v8s_expect(r, '[', "edges") == 0;
		rc = go ? 0 : -1;
	}
	if (sink == cols_put)
		edges_resize(s, go ? v8s_room(r, s->meta_edge_count, ef, NUM_MIN) : 0);
	while (go) {
		size_t got;
		if (k == 0 && !first && (got = next_recs(r, rec, ef, batch_max(n, MAX_RECORDS, MAX_RECORDS, ef))) > 0)
			goto put;
		if ((rc = next_num(r, &first, &v, "edges")) <= 0)
			break;
		rec[k] = v;
		if (++k < ef)
			continue;
		k = 0;
		got = 1;
		if (n >= MAX_RECORDS) {
			v8s_problem(r, pos(r), "edges: more than %llu records; the rest is not read",
				    (unsigned long long)MAX_RECORDS);
			break;
		}
	put:
		edges_decode(s, rec, got, inv, &et, type, name, to);
		if (n < sum) /* none past the nodes' counts */
			sink(ctx, n, sum - n < got ? (size_t)(sum - n) : got, type, name, to);
		n += got;
		tick(r, n);
	}
	s->nedges = (uint32_t)(n < sum ? n : sum);
	if (sink == cols_put)
		edges_resize(s, s->nedges);
	/* what is wrong inside first, as the nodes' */
	v8s_odd_done(r, "edges");
	clamps_done(r, s->edges_at, "edges", &et.c);
	if (et.bad_to > 0)
		warn_add(r->w, "%s: offset %llu: edges: %llu targets (to_node) that are no node's record "
			 "(read as none)", r->path, (unsigned long long)s->edges_at, (unsigned long long)et.bad_to);
	if (et.bad_name > 0) {
		char why[80];
		warn_add(r->w, "%s: offset %llu: edges: %llu %s", r->path,
			 (unsigned long long)s->edges_at, (unsigned long long)et.bad_name, names_past(s, why, sizeof why));
	}
	if (rc == 0 && s->edges_at != 0)
		partial(r, "edges", k, ef); /* at the closing bracket */
	check_edge_counts(r, sum > s->edges_claimed ? sum : s->edges_claimed, n, sink == cols_put);
	if (s->meta_edge_count != UINT64_MAX && s->meta_edge_count != s->nedges && s->edges_at != 0)
		warn_add(r->w, "%s: offset %llu: snapshot.edge_count is %llu, %u edges read", r->path,
			 (unsigned long long)s->edges_at, (unsigned long long)s->meta_edge_count, s->nedges);
	else if (s->meta_edge_count != UINT64_MAX && s->meta_edge_count != s->nedges) /* no "edges" (a cut file) */
		warn_add(r->w, "%s: offset %llu: snapshot.edge_count is %llu, but the file has no \"edges\"",
			 r->path, (unsigned long long)(r->end - r->base), (unsigned long long)s->meta_edge_count);
	if (s->meta_edge_count != UINT64_MAX && s->meta_edge_count > s->nedges && s->cut_at == 0)
		s->cut_at = s->edges_at != 0 ? s->edges_at : (uint64_t)(r->end - r->base);
	return r->stop ? -1 : 0;
}

/* ---- strings ---- */

/* The next element of an array of any values: 1 one follows (at r->p,
 * separator passed), 0 the array ended, -1 a problem. */
static int next_elem(struct rd *r, int *first, const char *where)
{
	ws(r);
	if (r->p < r->end && *r->p == ']') {
		r->p++;
		return 0;
	}
	if (!*first && v8s_expect(r, ',', where) < 0)
		return -1;
	*first = 0;
	ws(r);
	return r->p < r->end ? 1 : v8s_problem(r, pos(r), "truncated in %s", where);
}

int v8s_read_strings(struct rd *r)
{
	struct v8_snap *s = r->s;
	uint64_t n = 0, cap = 4096, odd = 0, odd_at = 0, ahead = 0;
	int first = 1, rc;

	ws(r);
	s->strings_at = pos(r);
	if (v8s_expect(r, '[', "strings") < 0)
		return -1;
	s->str_off = resize(s->str_off, cap, sizeof *s->str_off);
	while ((rc = next_elem(r, &first, "strings")) > 0) {
		uint64_t at = pos(r);
		if (n == cap) {
			if (!more(r, n, &cap, "strings"))
				break;
			s->str_off = resize(s->str_off, cap, sizeof *s->str_off);
		}
		if (n >= ahead) { /* the next pages at once, not a fault each */
			ahead = n + FLAT_AHEAD < cap ? n + FLAT_AHEAD : cap;
			mem_populate(s->str_off, n * sizeof *s->str_off, ahead * sizeof *s->str_off);
		}
		if (*r->p == '"') {
			const uint8_t *e = v8s_str_end(r->p, r->end);
			if (e == NULL) {
				v8s_problem(r, at, "strings: string %llu is unterminated", (unsigned long long)n);
				break;
			}
			r->p = e;
		} else { /* not a string: kept as none, so that the indexes stay right */
			odd_at = odd++ ? odd_at : at;
			at = UINT64_MAX;
			if (v8s_skip_value(r) < 0)
				break;
		}
		s->str_off[n++] = at;
		tick(r, n);
	}
	s->nstr = (uint32_t)n;
	s->str_off = resize(s->str_off, n, sizeof *s->str_off);
	if (odd > 0)
		warn_add(r->w, "%s: offset %llu: strings: %llu entries that are not strings (read as none)",
			 r->path, (unsigned long long)odd_at, (unsigned long long)odd);
	return r->stop ? -1 : 0;
}

/* ---- flat arrays of allocation tracking ---- */

static int read_flat(struct rd *r, void **a, uint64_t *nrec, unsigned width, int wide, const char *what)
{
	size_t elem = wide ? sizeof(uint64_t) : sizeof(uint32_t);
	uint64_t v, n = 0, cap = v8s_room(r, UINT64_MAX, width, NUM_MIN) * width, ahead = 0;
	struct clamps c = { 0 };
	unsigned k = 0;
	int first = 1, rc;

	ws(r);
	uint64_t at = pos(r);
	if (v8s_expect(r, '[', what) < 0)
		return -1;
	*a = resize(*a, cap, elem);
	for (;;) {
		uint64_t rec[V8_BATCH_NUMS];
		size_t got;
		if (n >= ahead) { /* the next pages at once, not a fault each */
			ahead = n + FLAT_AHEAD < cap ? n + FLAT_AHEAD : cap;
			mem_populate(*a, n * elem, ahead * elem);
		}
		/* a batch of whole records, within the room and the pages made */
		uint64_t room = (ahead - n) / width;
		size_t max = room < V8_BATCH_NUMS / width ? (size_t)room : V8_BATCH_NUMS / width;
		if (k == 0 && !first && width - 1 < V8_FIELDS_MAX && max > 0 && (got = next_recs(r, rec, width, max)) > 0) {
			uint64_t was = n;
			for (size_t i = 0; i < got * width; i++)
				if (wide)
					((uint64_t *)*a)[n++] = rec[i];
				else
					((uint32_t *)*a)[n++] = clamp32(rec[i], &c);
			if (n >> 14 != was >> 14) /* past a multiple of tick's period */
				tick(r, n & ~(uint64_t)0x3fff);
			continue;
		}
		if ((rc = next_num(r, &first, &v, what)) <= 0)
			break;
		if (n == cap) {
			if (!more(r, n, &cap, what))
				break;
			*a = resize(*a, cap, elem);
		}
		if (wide)
			((uint64_t *)*a)[n++] = v;
		else
			((uint32_t *)*a)[n++] = clamp32(v, &c);
		k = (k + 1) % width;
		tick(r, n);
	}
	*nrec = n / width;
	*a = resize(*a, *nrec * width, elem);
	v8s_odd_done(r, what); /* what is wrong inside first, as the nodes' */
	clamps_done(r, at, what, &c);
	if (rc == 0)
		partial(r, what, k, width);
	return r->stop ? -1 : 0;
}

int v8s_read_flat32(struct rd *r, uint32_t **a, uint64_t *nrec, unsigned width, const char *what)
{
	void *p = *a;
	int rc = read_flat(r, &p, nrec, width, 0, what);

	*a = p;
	return rc;
}

int v8s_read_samples(struct rd *r)
{
	void *p = r->s->samples;
	int rc = read_flat(r, &p, &r->s->n_samples, r->s->sample_fields, 1, "samples");

	r->s->samples = p;
	return rc;
}

/* ---- trace_tree ---- */

/* [id, function_info_index, count, size, [children...], id, ...]: each
 * node's numbers then the array of its children, nested as deep as the
 * call stacks. Read with a stack of parents, not recursion. */
struct tt {
	uint32_t cur[V8_TT_FIELDS_MAX]; /* the node's numbers so far */
	unsigned k;       /* how many */
	uint32_t *par;    /* the parent record of each open level */
	size_t depth, pcap;
	uint64_t n, cap;
};

/* The children array of the node in t->cur opens: the node is a record. */
static int tt_open(struct rd *r, struct tt *t)
{
	struct v8_snap *s = r->s;
	unsigned w = s->tt_fields;

	if (t->depth > V8_DEPTH_MAX)
		return v8s_problem(r, pos(r), "trace_tree: nested deeper than %d", V8_DEPTH_MAX);
	if (t->n == t->cap) {
		if (!more(r, t->n, &t->cap, "trace_tree"))
			return -1;
		s->trace_tree = resize(s->trace_tree, t->cap * w, sizeof *s->trace_tree);
	}
	memcpy(s->trace_tree + t->n * w, t->cur, (w - 1) * sizeof *t->cur);
	s->trace_tree[t->n * w + w - 1] = t->par[t->depth - 1];
	if (t->depth == t->pcap) {
		t->pcap *= 2;
		t->par = xreallocarray(t->par, t->pcap, sizeof *t->par);
	}
	t->par[t->depth++] = (uint32_t)t->n++;
	t->k = 0;
	r->p++;
	return 0;
}

/* One element at the current level: a number or a children array. */
static int tt_elem(struct rd *r, struct tt *t)
{
	uint64_t v;
	int first = 1;

	if (t->k == r->s->tt_fields - 1) {
		if (*r->p != '[')
			return v8s_problem(r, pos(r), "trace_tree: expected a node's children");
		return tt_open(r, t);
	}
	if (next_num(r, &first, &v, "trace_tree") <= 0) /* ']' was seen before */
		return -1;
	t->cur[t->k++] = sat32(v);
	return 0;
}

int v8s_read_trace_tree(struct rd *r)
{
	struct v8_snap *s = r->s;
	struct tt t = { .pcap = 64, .cap = 256 };
	int first = 1, rc = 0;

	if (!r->tt_ok) {
		warn_add(r->w, "%s: offset %llu: trace_tree: meta's trace_node_fields do not end with "
			 "children; not read", r->path, (unsigned long long)pos(r));
		return v8s_skip_value(r);
	}
	if (v8s_expect(r, '[', "trace_tree") < 0)
		return -1;
	t.par = xreallocarray(NULL, t.pcap, sizeof *t.par);
	s->trace_tree = resize(s->trace_tree, t.cap * s->tt_fields, sizeof *s->trace_tree);
	t.par[t.depth++] = HW_NONE;
	while (t.depth > 0 && rc >= 0) {
		rc = next_elem(r, &first, "trace_tree");
		if (rc == 0) { /* a children array (or the whole) closed */
			if (t.k != 0) {
				rc = v8s_problem(r, pos(r) - 1, "trace_tree: a node with %u of its numbers", t.k);
				break;
			}
			t.depth--;
			first = 0;
			rc = 1;
		} else if (rc > 0) {
			int was = t.k == s->tt_fields - 1;
			rc = tt_elem(r, &t);
			first = was ? 1 : first; /* in a new children array */
		}
	}
	s->n_tt = t.n;
	s->trace_tree = resize(s->trace_tree, t.n * s->tt_fields, sizeof *s->trace_tree);
	free(t.par);
	v8s_odd_done(r, "trace_tree");
	return rc < 0 ? -1 : 0;
}

/* ---- checks over the whole ---- */

static void check_names(struct rd *r)
{
	struct v8_snap *s = r->s;
	uint64_t bad = 0;

	for (uint32_t i = 0; i < s->nnodes; i++)
		if (s->nname[i] >= s->nstr && s->nname[i] != HW_NONE)
			s->nname[i] = HW_NONE, bad++;
	s->names_bad = bad; /* said after the edges: a cut that leaves no strings is found there */
}

void v8_names_said(const char *path, struct warnings *w, struct v8_snap *s)
{
	char why[80];

	if (s->names_bad > 0)
		warn_add(w, "%s: offset %llu: nodes: %llu %s", path, (unsigned long long)s->nodes_at,
			 (unsigned long long)s->names_bad, names_past(s, why, sizeof why));
	s->names_bad = 0;
}

static void check_counts(struct rd *r)
{
	struct v8_snap *s = r->s;

	if (s->meta_node_count != UINT64_MAX && s->meta_node_count != s->nnodes)
		warn_add(r->w, "%s: offset %llu: snapshot.node_count is %llu, %u nodes read", r->path,
			 (unsigned long long)s->nodes_at, (unsigned long long)s->meta_node_count, s->nnodes);
	if (s->meta_node_count != UINT64_MAX && s->meta_node_count > s->nnodes && s->cut_at == 0)
		s->cut_at = s->nodes_at > 0 ? s->nodes_at : 1;
	/* root_index counts numbers of "nodes", as to_node does */
	uint64_t root = s->root_index;
	s->root_index = root / s->node_fields;
	if (root % s->node_fields != 0 || (s->root_index >= s->nnodes && root != 0)) {
		warn_add(r->w, "%s: offset 0: snapshot.root_index %llu is no node's record; node 0 is the root",
			 r->path, (unsigned long long)root);
		s->root_index = 0;
	}
}

/* What the value of "edges" can hold, and the nodes' edge counts cut
 * to it: a count is believed before the edges are read only as far as
 * the numbers there can make edges (counted by the quick scan, or else
 * two bytes a number at the least), so that no file makes room claimed
 * for edges it has not. */
static void room_for_edges(struct rd *r)
{
	struct v8_snap *s = r->s;
	uint64_t left;

	if (s->edges_at == 0)
		s->edges_room = 0;
	else if (r->edges_nums > 0) /* counted */
		s->edges_room = r->edges_nums / s->edge_fields;
	else
		s->edges_room = (r->edges_end - s->edges_at) / ((uint64_t)NUM_MIN * s->edge_fields) + 1;
	left = s->edges_room < MAX_RECORDS ? s->edges_room : MAX_RECORDS;
	s->edges_claimed = 0;
	for (uint32_t i = 0; i < s->nnodes; i++) {
		s->edges_claimed += s->nedges_of[i];
		if (s->nedges_of[i] > left)
			s->nedges_of[i] = (uint32_t)left;
		left -= s->nedges_of[i];
	}
}

void v8s_check(struct rd *r)
{
	struct v8_snap *s = r->s;

	if (s->ntype == NULL) /* no "nodes": empty columns all the same */
		nodes_resize(s, 0);
	if (s->str_off == NULL)
		s->str_off = resize(NULL, 0, sizeof *s->str_off);
	check_names(r);
	check_counts(r);
	room_for_edges(r);
}
