/* v8.c — V8 heap snapshots (.heapsnapshot) into the heap model.
 *
 * v8_json.c reads the JSON: everything but the edges into column
 * arrays, which this file hands to the builder (graph/builder.h: nodes
 * by place); then the edges, a batch at a time, straight into the
 * builder's room for each node (counted first from the nodes' edge
 * counts), with DevTools' semantics (../shared/docs/formats/v8.md):
 *
 *   - the snapshot's root node is the engine's virtual root: its edges
 *     are the GC roots ("(GC roots)", the global object through a
 *     shortcut edge, the embedder's roots);
 *   - nodes are sorted by id, as every reader's are; V8's ids name an
 *     object for its life within a process, but not every id and not
 *     always (v8_id_identifies below), which old/new says;
 *   - weak edges do not retain (they are the heap's weak references),
 *     shortcut edges retain only from the root (elsewhere they are
 *     dropped);
 *   - classes aggregate as DevTools' Summary does: objects and natives
 *     by name ("Detached " for detached natives, the snapshot's mark
 *     propagated as DevTools does: dom_state), hidden nodes
 *     "(system)", code "(compiled code)", any other type "(TYPE)";
 *   - an object's size is the snapshot's self_size.
 *
 * Edge names and node names stay in the file: the heap keeps each
 * edge's type and name index, each node's type and name index, and the
 * offsets of the strings (struct v8_data), decoding one when a view
 * shows it. */
#include "format/v8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/v8_json.h"
#include "graph/analysis.h"
#include "graph/builder.h"
#include "graph/cache.h"
#include "graph/classes.h"
#include "graph/reader.h"
#include "graph/resident.h"
#include "graph/store.h"

/* bytes of a class name taken from a node name: more than V8 writes
 * (1024 characters, at most 3 bytes each in UTF-8), so that no name of
 * a snapshot is cut; a longer one is cut and told apart by its string's
 * index (node_class), never merged with another of the same start */
#define V8_NAME_MAX 4096

/* V8's edge and node types as this file knows them; the snapshot's
 * meta gives their numbers (v8_data.et_*, nt_*). */
struct v8_data {
	uint64_t *str_off;   /* offset of each string in the file */
	uint32_t nstr;
	char **edge_types;   /* meta's names, for labels */
	unsigned n_edge_types;
	char **node_types;
	unsigned n_node_types;
	int et_element, et_hidden, et_weak, et_shortcut, et_internal, et_invisible;
	int nt_string, nt_cons, nt_sliced, nt_object, nt_native, nt_array, nt_code;
	uint32_t *node_name; /* per node: string index of its name */
	uint8_t *node_type;  /* per node: index into node_types */
	/* per strong edge (h->out): its name (a string or element index)
	 * and type (an index into edge_types), read by edge_nt(): in one
	 * word, the type in the low PACK_BITS bits; a name or type that
	 * does not fit there (an element's index from PACK_SIDE on, a type
	 * past the sixth) in side[], whose index the word holds instead
	 * (the name, and the type above 32 bits) */
	uint32_t *out_name;
	uint64_t *side;
	uint32_t nside, cside;
	uint32_t *weak_name; /* per weak edge (h->weak_*) */
	uint8_t *weak_type;
	uint32_t *node_trace; /* per node: its trace_node_id; NULL without allocation tracking */
	uint32_t *id32;       /* per node: its id, when every id fits (else h->node_id) */
	uint64_t nout, nwlab; /* the lengths of out_name, weak_name (weak_type) */
	unsigned parked;      /* the arrays in the scratch file (park_arrays), a bit each */
	unsigned waiting;     /* ... in the index cache (data_lazy), a bit each of data_arrays' */
	/* the references the names above are parallel to: h's arrays as
	 * built, or their copy once the analyses change those (refs_change) */
	struct hb_refs refs;
	/* for the index cache: the type names, edge types' then node types',
	 * NUL-separated (made when a cache is written, or read from one) */
	char *type_names;
	uint64_t type_names_len;
	unsigned ids_reset; /* v8_snap's: heapwalk's snapshot, whose session cleared the ids */
};

/* The root's edges' kinds (struct root's native, v8_root_natives). */
enum { V8R_GC, V8R_USER, V8R_EMBEDDER, V8R_COUNT };

#define PACK_BITS 3                       /* V8 has 7 edge types */
#define PACK_NONE ((1u << PACK_BITS) - 1) /* the packed type of none (UINT8_MAX) */
#define PACK_NAMES (UINT32_MAX >> PACK_BITS) /* the packed name of none (HW_NONE) */
#define PACK_SIDE (1u << 28) /* packed names from here (but PACK_NAMES): side[name - PACK_SIDE] */

/* Strong edge e's name and type. */
static inline uint32_t edge_nt(const struct v8_data *d, edge_t e, uint8_t *type)
{
	uint32_t w = d->out_name[e], f = w >> PACK_BITS;

	if (f >= PACK_SIDE && f != PACK_NAMES) { /* in side[], if there (a cache may say anything) */
		uint64_t x = f - PACK_SIDE < d->nside ? d->side[f - PACK_SIDE] : (uint64_t)UINT8_MAX << 32 | HW_NONE;
		*type = (uint8_t)(x >> 32);
		return (uint32_t)x;
	}
	*type = (w & PACK_NONE) == PACK_NONE ? UINT8_MAX : (uint8_t)(w & PACK_NONE);
	return f == PACK_NAMES ? HW_NONE : f;
}

static int type_index(char **names, unsigned n, const char *want)
{
	for (unsigned i = 0; i < n; i++)
		if (names[i] != NULL && strcmp(names[i], want) == 0)
			return (int)i;
	return -1;
}

static int load_arrays(struct heap *h);
static void cache_failed(struct heap *h);

/* The reader's data, for the format's operations: the arrays that wait
 * on disk (from the edges' reading on; after the open until the first
 * use; in the index cache) read back first, when no view asked for them
 * (heap_need, which makes the heap anew where the cache proves corrupt) */
static const struct v8_data *v8_d(const struct heap *h)
{
	const struct v8_data *d = h->fmt_data;

	/* the reader's own, made when first read */
	if (d != NULL && (d->parked != 0 || d->waiting != 0) && load_arrays((struct heap *)h) < 0)
		cache_failed((struct heap *)h);
	return d;
}

/* String i of the snapshot as the file has it: its bytes after the
 * opening quote (*n of them to the end of the file), NULL if none. */
static const uint8_t *raw_str(const struct heap *h, uint32_t i, uint64_t *n)
{
	const struct v8_data *d = v8_d(h);
	uint64_t at = i < d->nstr ? d->str_off[i] : UINT64_MAX;

	if (at >= h->size - 1)
		return NULL;
	*n = h->size - at - 1;
	return h->map + at + 1;
}

/* Is string i `lit`, a name V8 writes without escapes? In place. */
static int name_is(const struct heap *h, uint32_t i, const char *lit)
{
	uint64_t n, len = strlen(lit);
	const uint8_t *p = raw_str(h, i, &n);

	return p != NULL && n > len && memcmp(p, lit, len) == 0 && p[len] == '"';
}

/* Does string i start with a digit (an edge named by an index, as a
 * FixedArray's internal ones are)? In place. */
static int digit_name(const struct heap *h, uint32_t i)
{
	uint64_t n;
	const uint8_t *p = raw_str(h, i, &n);

	return p != NULL && *p >= '0' && *p <= '9';
}

/* String i of the snapshot, decoded, appended to out (at most max). */
static int v8_str(const struct heap *h, uint32_t i, struct sbuf *out, size_t max)
{
	const struct v8_data *d = v8_d(h);

	if (i >= d->nstr || d->str_off[i] == UINT64_MAX)
		return -1;
	return v8_string(h->map, h->size, d->str_off[i], out, max) < 0 ? -1 : 0;
}

/* ---- classes ---- */

/* The build's state. */
struct v8b {
	struct heap *h;
	struct v8_snap *s;
	struct v8_data *d;
	struct nametab nt;
	struct heap_builder hb;
	uint32_t *type_of_str;      /* object/native names: string index -> type */
	uint32_t type_of_type[256]; /* other node types: type -> builder's type */
	/* DevTools' detached DOM state (dom_state): the natives by ordinal,
	 * ascending, with the state the snapshot marks (0 unknown, 1
	 * attached, 2 detached), a bit each among the ordinals; and their
	 * edges to natives of the kinds that carry a state (not hidden,
	 * invisible or weak), in the file's order. The bits and edges only
	 * where a native is marked detached (nat_bits NULL otherwise). */
	uint32_t *nat_o;
	uint8_t *nat_state;
	uint32_t nnat, cnat;
	bits_t *nat_bits;
	uint32_t *ne_from, *ne_to;
	size_t nne, cne;
};

/* Snapshot node `o`'s type for the builder, one per class by DevTools'
 * aggregation. */
static uint32_t node_class(struct v8b *b, uint32_t o)
{
	const struct v8_snap *s = b->s;
	const struct v8_data *d = b->d;
	uint8_t t = s->ntype[o];
	int by_name = t == d->nt_object || t == d->nt_native;
	int detached = t == d->nt_native && s->ndetached != NULL && s->ndetached[o] == 2;
	uint32_t name = s->nname[o];
	struct sbuf sb;
	uint32_t c;

	if (by_name && !detached && name < s->nstr && b->type_of_str[name] != HW_NONE)
		return b->type_of_str[name];
	if (!by_name && b->type_of_type[t] != HW_NONE)
		return b->type_of_type[t];
	sbuf_init(&sb);
	if (by_name) {
		if (detached)
			sbuf_adds(&sb, "Detached ");
		long len = name < d->nstr && d->str_off[name] != UINT64_MAX
			? v8_string(b->h->map, b->h->size, d->str_off[name], &sb, V8_NAME_MAX) : -1;
		if (len < 0)
			sbuf_adds(&sb, "<?>");
		else if ((unsigned long)len > V8_NAME_MAX) /* cut: "...", and which name */
			sbuf_printf(&sb, " (string %u)", name);
	} else {
		const char *tn = t < d->n_node_types ? d->node_types[t] : NULL;
		sbuf_printf(&sb, "(%s)", tn == NULL ? "unknown" : strcmp(tn, "hidden") == 0 ? "system"
			    : strcmp(tn, "code") == 0 ? "compiled code" : tn);
	}
	c = hb_type_str(&b->hb, sb.buf, sb.len, 0);
	sbuf_free(&sb);
	if (by_name && !detached && name < s->nstr)
		b->type_of_str[name] = c;
	else if (!by_name)
		b->type_of_type[t] = c;
	return c;
}

/* ---- the reader's arrays parked while nothing reads them ---- */

#define PARK_ID (STORE_SCRATCH + 200) /* and on, one a parked array */
#define PARK_STR_OFF 0 /* str_off's place among them (parkable) */
#define PARK_TRACE 3   /* node_trace's */

/* data_arrays' that a cached open leaves in the cache until read: per
 * node and per reference (the names, types, labels, traces and ids;
 * each read with bounds of its own), not the strings' offsets, which
 * v8_data_loaded checks */
#define V8_LAZY (1u << 1 | 1u << 2 | 1u << 3 | 1u << 5 | 1u << 6 | 1u << 7 | 1u << 8)

/* The arrays of d that may wait in the scratch file, with their
 * lengths: those per node and per string always, those per edge too
 * with `edges` (once the references are made). */
static int parkable(struct heap *h, struct v8_data *d, int edges, struct fmt_array *a)
{
	int n = 0;

	a[n++] = (struct fmt_array){ (void **)&d->str_off, NULL, sizeof *d->str_off, d->nstr }; /* PARK_STR_OFF */
	a[n++] = (struct fmt_array){ (void **)&d->node_name, NULL, sizeof *d->node_name, h->n };
	a[n++] = (struct fmt_array){ (void **)&d->node_type, NULL, sizeof *d->node_type, h->n };
	a[n++] = (struct fmt_array){ (void **)&d->node_trace, NULL, sizeof *d->node_trace, h->n }; /* PARK_TRACE */
	a[n++] = (struct fmt_array){ (void **)&d->id32, NULL, sizeof *d->id32, h->n };
	if (edges) {
		a[n++] = (struct fmt_array){ (void **)&d->out_name, NULL, sizeof *d->out_name, d->nout };
		a[n++] = (struct fmt_array){ (void **)&d->weak_name, NULL, sizeof *d->weak_name, d->nwlab };
		a[n++] = (struct fmt_array){ (void **)&d->weak_type, NULL, sizeof *d->weak_type, d->nwlab };
	}
	return n;
}

/* Those arrays written to the scratch file and let go (d->parked says
 * which); without a scratch file, or short of room there, they stay. */
static void park_arrays(struct heap *h, int edges)
{
	struct v8_data *d = h->fmt_data;
	struct store *st = heap_scratch(h);
	struct fmt_array a[8];
	int n = parkable(h, d, edges, a);

	for (int i = 0; i < n && st != NULL; i++)
		if (*a[i].ptr != NULL && !(d->parked & 1u << i) && a[i].count > 0 &&
		    store_put(st, PARK_ID + (uint32_t)i, *a[i].ptr, (uint32_t)a[i].elem, a[i].count) == 0) {
			free(*a[i].ptr);
			*a[i].ptr = NULL;
			d->parked |= 1u << i;
		}
}

static int v8_data_arrays(struct heap *h, struct fmt_array *a);

/* Back from the scratch file, as it was (room for one more, as made),
 * and its section let go: the parked array at place i (parkable), or
 * every one (i < 0). */
static void load_parked_at(struct heap *h, int i)
{
	struct v8_data *d = h->fmt_data;
	struct store *st = heap_scratch_kept(h); /* a write that failed after them leaves them there */
	struct fmt_array a[8];
	int n = parkable(h, d, 1, a);

	for (int k = i < 0 ? 0 : i; k < n && d->parked != 0 && (i < 0 || k == i); k++) {
		if (!(d->parked & 1u << k))
			continue;
		void *p = st == NULL ? NULL : xmalloc((size_t)(a[k].count + 1) * a[k].elem);
		if (p == NULL || store_load(st, PARK_ID + (uint32_t)k, (uint32_t)a[k].elem, a[k].count, p) < 0)
			hw_fatal("%s: cannot read back what the V8 reader parked on disk", esc_str(h->path));
		store_drop(st, PARK_ID + (uint32_t)k);
		*a[k].ptr = p;
		d->parked &= ~(1u << k);
	}
	heap_scratch_done(h);
}

static void load_parked(struct heap *h)
{
	load_parked_at(h, -1);
}

/* Those parked, then those that waited in the index cache (a cached
 * open's, or since the cache was written), read from it: 0, or -1 when
 * one of those cannot be read (it waits still). */
static int load_arrays(struct heap *h)
{
	struct v8_data *d = h->fmt_data;
	struct fmt_array a[FMT_ARRAYS];
	int rc = 0;

	load_parked(h);
	int n = d->waiting != 0 ? v8_data_arrays(h, a) : 0;
	for (int i = 0; i < n; i++)
		if (d->waiting & 1u << i) {
			void *p = cache_reader_get(h, i, (uint32_t)a[i].elem, a[i].count);
			if (p == NULL) {
				rc = -1;
				continue;
			}
			*a[i].ptr = p;
			d->waiting &= ~(1u << i);
		}
	return rc;
}

/* What load_arrays would allocate: the arrays parked (room for one more
 * each, as made) and those waiting in the index cache. */
static uint64_t v8_data_waiting(struct heap *h)
{
	struct v8_data *d = h->fmt_data;
	struct fmt_array a[FMT_ARRAYS];
	uint64_t bytes = 0;

	if (d == NULL)
		return 0;
	int n = d->parked != 0 ? parkable(h, d, 1, a) : 0;
	for (int i = 0; i < n; i++)
		if (d->parked & 1u << i)
			bytes += (a[i].count + 1) * a[i].elem;
	n = d->waiting != 0 ? v8_data_arrays(h, a) : 0;
	for (int i = 0; i < n; i++)
		if (d->waiting & 1u << i)
			bytes += a[i].count * a[i].elem;
	return bytes;
}

/* Arrays that waited in a cache that proved corrupt since it was opened,
 * asked for by an operation of the reader's (no view's heap_need, which
 * would have read the dump again): zeros, said so, rather than none. */
static void cache_failed(struct heap *h)
{
	struct v8_data *d = h->fmt_data;
	struct fmt_array a[FMT_ARRAYS];
	int n = v8_data_arrays(h, a);

	for (int i = 0; i < n; i++)
		if (d->waiting & 1u << i)
			*a[i].ptr = xcalloc((size_t)a[i].count + 1, a[i].elem);
	d->waiting = 0;
	warn_add(&h->warn, "%s: the index cache proved corrupt after it was opened: the names of objects and "
		 "references are not shown; --no-cache reads the dump again", h->path);
}

/* data_arrays' array i, when parked: its section of heap_scratch(h),
 * which the index cache copies as it is (compressed once) */
static int v8_data_parked(struct heap *h, int i, uint32_t *id)
{
	static const int8_t park_of[] = { 0, 1, 2, 5, -1, 6, 7, 3, 4 }; /* data_arrays' to parkable's */
	const struct v8_data *d = h->fmt_data;

	if (d == NULL || i < 0 || i >= (int)sizeof park_of || park_of[i] < 0 || !(d->parked & 1u << park_of[i]))
		return 0;
	*id = PARK_ID + (uint32_t)park_of[i];
	return 1;
}

/* format_ops': while the analyses run, and after the open until they
 * are read, they wait (those of the nodes from the edges' reading on,
 * make_edges) */
static void v8_park_data(struct heap *h)
{
	if (h->fmt_data != NULL)
		park_arrays(h, 1);
}

static int v8_load_data(struct heap *h)
{
	return h->fmt_data != NULL ? load_arrays(h) : 0;
}

/* The cache written holds what is parked: those arrays wait there (as
 * after a cached open), the strings' offsets come back (as a cached
 * open has them), and the scratch file goes. */
static void v8_data_cached(struct heap *h)
{
	static const int8_t data_of[] = { 0, 1, 2, 7, 8, 3, 5, 6 }; /* parkable's to data_arrays' */
	struct v8_data *d = h->fmt_data;
	struct store *st = heap_scratch_kept(h);

	if (d == NULL)
		return;
	for (int i = 0; i < (int)sizeof data_of; i++)
		if ((d->parked & 1u << i) && (V8_LAZY & 1u << data_of[i])) {
			if (st != NULL)
				store_drop(st, PARK_ID + (uint32_t)i);
			d->parked &= ~(1u << i);
			d->waiting |= 1u << data_of[i];
		}
	load_parked(h);
}

/* ---- nodes ---- */

/* V8's ids are 32-bit numbers (SnapshotObjectId): kept so, in d->id32,
 * unless a file has larger ones (then in h->node_id); max: the ids or'ed. */
static void narrow_ids(struct heap *h, struct v8_data *d, uint64_t max)
{
	if (max > UINT32_MAX)
		return;
	d->id32 = xmalloc(((size_t)h->n + 1) * sizeof *d->id32);
	mem_populate(d->id32, 0, ((size_t)h->n + 1) * sizeof *d->id32); /* written whole */
	for (node_t v = 0; v < h->n; v++)
		d->id32[v] = (uint32_t)h->node_id[v];
	free(h->node_id);
	h->node_id = NULL;
}

/* A column of the snapshot's nodes in the heap's order (o2n: a snapshot
 * node's heap node, one each), root (node 0) given; the snapshot's
 * column goes. */
#define PERMUTE_COL(type, fn)                                                           \
	static type *fn(type **col, const uint32_t *o2n, uint32_t nnodes, node_t n, type root) \
	{                                                                               \
		type *out = xmalloc(((size_t)n + 1) * sizeof *out);                     \
		mem_populate(out, 0, ((size_t)n + 1) * sizeof *out); /* written whole */ \
		for (uint32_t o = 0; o < nnodes; o++)                                   \
			out[o2n[o]] = (*col)[o];                                        \
		out[0] = root;                                                          \
		free(*col);                                                             \
		*col = NULL;                                                            \
		return out;                                                             \
	}
PERMUTE_COL(uint32_t, permute32)
PERMUTE_COL(uint8_t, permute8)

/* Nodes of one id (V8 gives none; a crafted file may): the first few
 * said, by the snapshot's node number of the later one. */
static void warn_twice(struct heap *h, const uint32_t *o2n, uint32_t nnodes)
{
	node_t twice[3];
	unsigned n = 0;

	for (node_t v = 2; v < h->n && n < 3; v++)
		if (heap_node_id(h, v) == heap_node_id(h, v - 1))
			twice[n++] = v;
	for (unsigned i = 0; i < n; i++)
		for (uint32_t o = 0; o < nnodes; o++)
			if (o2n[o] == twice[i]) {
				warn_add(&h->warn, "%s: node %u: id %llu twice; a search by id finds one of them",
					 h->path, o, (unsigned long long)heap_node_id(h, twice[i]));
				break;
			}
}

#define RELEASE_NODES (1u << 18) /* nodes given between lettings go of their columns */
/* ... in make_nodes, where their 13 bytes a node not yet let go are
 * beside the builder's node arrays, whole, at the end: 0.8 MB of them,
 * not 3.4 */
#define RELEASE_NODE_COLS (1u << 16)

#define PARK_COUNTS (PARK_ID + 16) /* the nodes' edge counts, while the nodes are made */

/* The nodes' edge counts, which nothing reads until the edges, to the
 * scratch file and their pages let go (0: no file, or short of room:
 * they stay). */
static int park_counts(struct heap *h, struct v8_snap *s)
{
	struct store *st = heap_scratch(h);

	if (st == NULL || s->nnodes == 0 ||
	    store_put(st, PARK_COUNTS, s->nedges_of, sizeof *s->nedges_of, s->nnodes) != 0)
		return 0;
	v8_snap_release_counts(s, 0, s->nnodes);
	return 1;
}

/* ... back into their pages. */
static void load_counts(struct heap *h, struct v8_snap *s)
{
	struct store *st = heap_scratch_kept(h);

	if (st == NULL || store_load(st, PARK_COUNTS, sizeof *s->nedges_of, s->nnodes, s->nedges_of) < 0)
		hw_fatal("%s: cannot read back what the V8 reader parked on disk", esc_str(h->path));
	store_drop(st, PARK_COUNTS);
	heap_scratch_done(h);
}

/* The heap's nodes, through the builder (which sorts them by id and
 * makes the classes): each snapshot node but the root an object of its
 * id; then their names and types, and o2n, a snapshot node's heap node
 * (the root's 0). The snapshot's node columns go as soon as they are
 * read. */
static uint32_t *make_nodes(struct v8b *b)
{
	struct heap *h = b->h;
	struct v8_snap *s = b->s;
	struct v8_data *d = b->d;
	uint32_t root = (uint32_t)s->root_index;

	int counts_parked = park_counts(h, s);
	h->root_id = s->nid[root]; /* no object's: node 0 stands for it */
	hb_start(&b->hb, h, &b->nt, s->nnodes - 1, HB_LABELS | HB_GIVEN | HB_PLACES | HB_TWICE | HB_RUNS);
	uint64_t max = 0;
	uint32_t done = 0;
	int detached = 0;
	for (uint32_t o = 0; o < s->nnodes; o++) {
		if (o != root) {
			hb_object(&b->hb, s->nid[o], node_class(b, o), s->nsize[o], NK_INSTANCE);
			max |= s->nid[o];
		}
		if (s->ndetached != NULL && s->ntype[o] == d->nt_native) {
			if (b->nnat == b->cnat) {
				b->cnat = b->cnat ? 2 * b->cnat : 256;
				b->nat_o = xreallocarray(b->nat_o, b->cnat, sizeof *b->nat_o);
				b->nat_state = xreallocarray(b->nat_state, b->cnat, 1);
			}
			b->nat_state[b->nnat] = s->ndetached[o];
			b->nat_o[b->nnat++] = o;
			detached |= s->ndetached[o] == 2;
		}
		/* the builder's copy grows as the columns read go: not both whole */
		if (o + 1 - done >= RELEASE_NODE_COLS) {
			v8_snap_release_nodes(s, done, o + 1);
			done = o + 1;
		}
	}
	v8_snap_free_node_columns(s);
	if (detached) { /* else no name changes: the edges' pass notes nothing */
		b->nat_bits = xcalloc(((size_t)s->nnodes + 63) / 64 + 1, sizeof *b->nat_bits);
		for (uint32_t i = 0; i < b->nnat; i++)
			bit_set(b->nat_bits, b->nat_o[i]);
	}
	hb_nodes_done(&b->hb);
	narrow_ids(h, d, max);
	uint32_t *o2n = hb_given_take(&b->hb); /* room for the root's */
	memmove(o2n + root + 1, o2n + root, (size_t)(s->nnodes - 1 - root) * sizeof *o2n);
	o2n[root] = 0;
	if (b->hb.dup_ids > 0)
		warn_twice(h, o2n, s->nnodes);
	d->node_name = permute32(&s->nname, o2n, s->nnodes, h->n, HW_NONE);
	d->node_type = permute8(&s->ntype, o2n, s->nnodes, h->n, UINT8_MAX);
	if (s->ntrace != NULL) /* some node's trace: kept if the snapshot has traces (v8_parse_heap) */
		d->node_trace = permute32(&s->ntrace, o2n, s->nnodes, h->n, 0);
	free(s->ntrace);
	s->ntrace = NULL;
	if (counts_parked)
		load_counts(h, s);
	return o2n;
}

/* ---- allocation stacks (node --track-heap-objects) ---- */

#define TRACE_DEPTH_MAX 256          /* frames kept of a stack, the allocating ones */
#define TRACE_FRAMES_MAX (1u << 25)  /* frames kept of all stacks */

static int tracking(const struct v8_snap *s)
{
	return s->nf_trace_node_id >= 0 && s->n_tt > 0 && s->n_tfi > 0 && s->tt_id >= 0 && s->tt_fi >= 0 &&
	       s->tfi_name >= 0 && (unsigned)s->tt_id + 1 < s->tt_fields &&
	       (unsigned)s->tt_fi + 1 < s->tt_fields && (unsigned)s->tfi_name < s->tfi_fields;
}

/* String i, decoded (the build's: the strings' offsets alone read back
 * if they wait on disk, not every array parked, as v8_str would). */
static uint32_t intern_str(struct v8b *b, uint32_t i, const char *dflt)
{
	struct v8_data *d = b->d;
	struct sbuf sb;
	uint32_t off;

	if (d->parked & 1u << PARK_STR_OFF)
		load_parked_at(b->h, PARK_STR_OFF);
	sbuf_init(&sb);
	if (i >= d->nstr || d->str_off[i] == UINT64_MAX ||
	    v8_string(b->h->map, b->h->size, d->str_off[i], &sb, V8_NAME_MAX) < 0 || sb.len == 0) {
		sbuf_reset(&sb);
		sbuf_adds(&sb, dflt);
	}
	off = names_intern(&b->nt, sb.buf, sb.len);
	sbuf_free(&sb);
	return off;
}

static int cmp_trace(const void *x, const void *y)
{
	const struct htrace *a = x, *c = y;

	return a->serial < c->serial ? -1 : a->serial > c->serial;
}

/* The heap's frames and traces of the snapshot's allocation tracking:
 * a frame per function info (its name, script and line), a trace per
 * node of trace_tree (the functions from it up to the top, the
 * allocating one first), named by the node's id, which the objects'
 * trace_node_id give (v8_alloc_trace). */
static void make_traces(struct v8b *b)
{
	const struct v8_snap *s = b->s;
	struct heap *h = b->h;
	unsigned fw = s->tfi_fields, tw = s->tt_fields;
	uint32_t empty = names_intern(&b->nt, "", 0);

	h->nframes = (uint32_t)(s->n_tfi < HW_NONE - 1 ? s->n_tfi : HW_NONE - 1);
	h->frames = xmalloc(((size_t)h->nframes + 1) * sizeof *h->frames);
	for (uint32_t i = 0; i < h->nframes; i++) {
		const uint32_t *f = s->trace_function_infos + (size_t)i * fw;
		int64_t line = s->tfi_line >= 0 && (unsigned)s->tfi_line < fw ? f[s->tfi_line] : 0;
		h->frames[i] = (struct hframe){
			.id = i, .class_name = empty, .signature = empty,
			.method = intern_str(b, f[s->tfi_name], "(anonymous)"),
			.source = s->tfi_script >= 0 && (unsigned)s->tfi_script < fw
				? intern_str(b, f[s->tfi_script], "") : empty,
			.line = line > 0 && line < INT32_MAX ? (int32_t)line : 0,
		};
	}
	/* each record's depth below the top (pre-order: parents first) */
	size_t nt = s->n_tt < HW_NONE - 1 ? (size_t)s->n_tt : HW_NONE - 1;
	uint32_t *depth = xmalloc((nt + 1) * sizeof *depth);
	uint64_t total = 0;
	for (size_t r = 0; r < nt; r++) {
		uint32_t par = s->trace_tree[r * tw + tw - 1];
		depth[r] = par < r ? (depth[par] < TRACE_DEPTH_MAX ? depth[par] + 1 : TRACE_DEPTH_MAX) : 0;
		total += depth[r];
	}
	if (total > TRACE_FRAMES_MAX) {
		warn_add(&h->warn, "%s: trace_tree: %llu frames in all; the stacks keep the first %u", h->path,
			 (unsigned long long)total, TRACE_FRAMES_MAX);
		total = TRACE_FRAMES_MAX;
	}
	h->traces = xmalloc((nt + 1) * sizeof *h->traces);
	h->trace_frames = xmalloc(((size_t)total + 1) * sizeof *h->trace_frames);
	h->ntraces = (uint32_t)nt;
	h->ntrace_frames = 0;
	for (size_t r = 0; r < nt; r++) {
		const uint32_t *t = s->trace_tree + r * tw;
		struct htrace *o = &h->traces[r];
		*o = (struct htrace){ t[s->tt_id], 0, h->ntrace_frames, 0 };
		/* the top record is the tree's root, "(root)": no frame */
		size_t k = r;
		for (uint32_t n = 0; n < depth[r] && h->ntrace_frames < total; n++) {
			uint32_t fi = s->trace_tree[k * tw + s->tt_fi];
			if (fi < h->nframes)
				h->trace_frames[h->ntrace_frames++] = fi;
			k = s->trace_tree[k * tw + tw - 1];
		}
		o->nframes = h->ntrace_frames - o->frame_first;
	}
	free(depth);
	hw_qsort(h->traces, h->ntraces, sizeof *h->traces, cmp_trace);
}

/* ---- edges ---- */

/* The synthetic root's edges: to "(GC roots)", the engine's strong
 * roots; shortcuts to the user roots (a context's global object, where
 * a script's globals live); the rest to the embedder's (the DOM's). */
static const struct root_native v8_root_natives[V8R_COUNT] = {
	[V8R_GC] = { "GC roots", RK_VM_INTERNAL, 0 },
	[V8R_USER] = { "user root (global)", RK_STATICS, 0 },
	[V8R_EMBEDDER] = { "embedder root", RK_NATIVE, 0 },
};

static uint8_t root_native(struct v8b *b, uint8_t type, node_t t)
{
	uint8_t native = V8R_EMBEDDER;
	struct sbuf sb;

	if (type == b->d->et_shortcut)
		return V8R_USER;
	sbuf_init(&sb);
	if (v8_str(b->h, b->d->node_name[t], &sb, 64) == 0 && strcmp(sb.buf, "(GC roots)") == 0)
		native = V8R_GC;
	sbuf_free(&sb);
	return native;
}

enum edge_use { E_DROP, E_NONE, E_ROOT, E_WEAK, E_STRONG };

/* What a snapshot edge of node o is to the heap, by its type and
 * target: dropped (to no node or to the root: dangling), none (a
 * shortcut off the root, an edge of the root's that is weak), a GC root
 * (the root's), weak, or strong. */
static inline enum edge_use edge_use(const struct v8b *b, uint32_t o, uint8_t type, uint32_t t)
{
	const struct v8_snap *s = b->s;
	uint32_t root = (uint32_t)s->root_index;

	if (t >= s->nnodes || t == root)
		return o == root ? E_NONE : E_DROP;
	if (o == root)
		return type == b->d->et_weak ? E_NONE : E_ROOT;
	if (type == b->d->et_weak)
		return E_WEAK;
	return type == b->d->et_shortcut ? E_NONE : E_STRONG;
}

/* An edge's label for the builder: its name and type packed in a word,
 * or the place of the two in d->side. */
static uint32_t pack_label(struct v8_data *d, uint32_t name, uint8_t type, uint64_t *lost)
{
	if ((name < PACK_SIDE || name == HW_NONE) && (type < PACK_NONE || type == UINT8_MAX))
		return (name == HW_NONE ? PACK_NAMES : name) << PACK_BITS | (type == UINT8_MAX ? PACK_NONE : type);
	if (d->nside >= PACK_NAMES - PACK_SIDE) { /* 2^28 of them: the name is lost */
		++*lost;
		return PACK_NAMES << PACK_BITS | (type < PACK_NONE ? type : PACK_NONE);
	}
	if (d->nside == d->cside) {
		d->cside = d->cside ? d->cside * 2 : 64;
		d->side = xreallocarray(d->side, d->cside, sizeof *d->side);
	}
	d->side[d->nside] = (uint64_t)type << 32 | name;
	return (PACK_SIDE + d->nside++) << PACK_BITS;
}

/* The edges as they are read (v8_parse_edges), into the builder: each
 * node's strong ones into the room counted for all its edges (the
 * others there left holes that hb_finish closes), weak ones and the
 * root's (the GC roots) to theirs. */
struct esink {
	struct v8b *b;
	const uint32_t *o2n;
	uint32_t o;      /* the node whose edges come next */
	uint64_t left;   /* of its edges, still to come */
	uint64_t dropped, lost;
	uint32_t released; /* the nodes' edge counts let go below it */
	int parked;      /* the reader's arrays let go (once past the root's edges) */
};

/* Native o's edges (n of them) to natives, of the kinds that carry a
 * DOM state, noted for dom_state. */
static void native_edges(struct v8b *b, uint32_t o, const uint8_t *type, const uint32_t *to, size_t n)
{
	const struct v8_data *d = b->d;

	for (size_t i = 0; i < n; i++) {
		int t = type[i];
		if (to[i] >= b->s->nnodes || !bit_get(b->nat_bits, to[i]) || t == d->et_hidden || t == d->et_invisible ||
		    t == d->et_weak)
			continue;
		if (b->nne == b->cne) {
			b->cne = b->cne ? 2 * b->cne : 256;
			b->ne_from = xreallocarray(b->ne_from, b->cne, sizeof *b->ne_from);
			b->ne_to = xreallocarray(b->ne_to, b->cne, sizeof *b->ne_to);
		}
		b->ne_from[b->nne] = o;
		b->ne_to[b->nne++] = to[i];
	}
}

/* The next node with edges to come (none: o is nnodes). */
static void next_node(struct esink *k)
{
	const struct v8_snap *s = k->b->s;

	while (k->left == 0 && ++k->o < k->b->s->nnodes)
		k->left = s->nedges_of[k->o];
}

static void edges_in(void *ctx, uint64_t at, size_t n, const uint8_t *type, const uint32_t *name, const uint32_t *to)
{
	struct esink *k = ctx;
	struct v8b *b = k->b;
	uint32_t root = (uint32_t)b->s->root_index;

	(void)at;
	for (size_t i = 0; i < n;) {
		next_node(k);
		if (k->o >= b->s->nnodes) /* the reader gives none past the counts */
			return;
		/* past the root's edges (the GC roots, named by their targets'
		 * names) nothing reads the names: they wait on disk, as do the
		 * counts read */
		if (!k->parked && k->o > root) {
			park_arrays(b->h, 0);
			k->parked = 1;
		}
		if (k->o - k->released >= RELEASE_NODES) {
			v8_snap_release_counts(b->s, k->released, k->o);
			k->released = k->o;
		}
		size_t m = n - i < k->left ? n - i : (size_t)k->left;
		node_t v = k->o2n[k->o], *room = NULL;
		uint32_t *label = NULL;
		if (k->o != root)
			room = hb_refs_room(&b->hb, v, m, &label);
		if (b->nat_bits != NULL && bit_get(b->nat_bits, k->o))
			native_edges(b, k->o, type + i, to + i, m);
		for (size_t j = 0; j < m; j++, i++) {
			node_t t = to[i] < b->s->nnodes ? k->o2n[to[i]] : HW_NONE;
			enum edge_use u = edge_use(b, k->o, type[i], to[i]);
			if (room != NULL)
				room[j] = u == E_STRONG ? t : HW_NONE;
			if (u == E_STRONG)
				label[j] = pack_label(b->d, name[i], type[i], &k->lost);
			else if (u == E_WEAK)
				hb_weak_node(&b->hb, v, t, name[i]);
			else if (u == E_ROOT) {
				uint8_t rn = root_native(b, type[i], t);
				hb_root_node(&b->hb, t, v8_root_natives[rn].kind, rn, 0);
			}
			k->dropped += u == E_DROP;
		}
		k->left -= m;
	}
}

/* DevTools' propagation of the DOM state (its propagateDOMState): a
 * native the snapshot leaves unmarked
 * takes the state of a marked native that reaches it through natives,
 * along edges of the kinds that carry it; attached first, so that one
 * reached both ways is attached; never through a JavaScript object.
 * The natives it makes detached, as nodes of h: *out (the caller's to
 * free), their count returned. */
static size_t dom_state(struct v8b *b, const uint32_t *o2n, node_t **out)
{
	uint32_t m = b->nnat, *start = xcalloc((size_t)m + 2, sizeof *start);
	uint32_t *stack = xmalloc(((size_t)m + 1) * sizeof *stack), *to = xmalloc((b->nne + 1) * sizeof *to);
	uint8_t *st = xmalloc((size_t)m + 1), *seen = xcalloc((size_t)m + 1, 1);
	size_t nren = 0, sp = 0;

	*out = xmalloc(((size_t)m + 1) * sizeof **out);
	/* the edges by native (they came in the nodes' order), to natives' places */
	for (size_t e = 0; e < b->nne; e++) {
		size_t i = lower_bound_u32(b->nat_o, m, b->ne_from[e]);
		to[e] = (uint32_t)lower_bound_u32(b->nat_o, m, b->ne_to[e]);
		start[i + 1]++;
	}
	for (uint32_t i = 0; i < m; i++)
		start[i + 1] += start[i];
	memcpy(st, b->nat_state, m);
	for (int pass = 1; pass <= 2; pass++) { /* attached, then detached */
		for (uint32_t i = 0; i < m; i++)
			if (st[i] == pass)
				stack[sp++] = i;
		for (uint32_t i = 0; pass == 1 && i < m; i++)
			seen[i] = st[i] != 0; /* the marked ones keep their mark */
		while (sp > 0) {
			uint32_t i = stack[--sp];
			for (uint32_t e = start[i]; e < start[i + 1]; e++) {
				uint32_t j = to[e];
				if (j >= m || seen[j])
					continue;
				seen[j] = 1;
				st[j] = (uint8_t)pass;
				stack[sp++] = j;
				if (pass == 2 && o2n[b->nat_o[j]] != 0 && o2n[b->nat_o[j]] != HW_NONE)
					(*out)[nren++] = o2n[b->nat_o[j]];
			}
		}
	}
	free(start);
	free(stack);
	free(to);
	free(st);
	free(seen);
	return nren;
}

/* The classes a renaming emptied (a bit each in gone, for the first
 * ngone classes) let go, the others numbered anew in their order: a class of a
 * snapshot is its objects' name, and one that names none is no class
 * there (DevTools lists none such). */
static void drop_emptied(struct heap *h, const bits_t *gone, uint32_t ngone)
{
	uint32_t *map = xmalloc(((size_t)h->ncls + 1) * sizeof *map), k = 0;

	for (uint32_t c = 0; c < h->ncls; c++)
		if (c < ngone && bit_get(gone, c) && h->cls[c].count == 0) {
			map[c] = HW_NONE;
		} else {
			map[c] = k;
			h->cls[k++] = h->cls[c];
		}
	if (k < h->ncls) {
		for (node_t v = 0; v < h->n; v++)
			if (h->node_class[v] < h->ncls)
				h->node_class[v] = map[h->node_class[v]];
		for (uint32_t c = 0; c < k; c++)
			if (h->cls[c].super < h->ncls)
				h->cls[c].super = map[h->cls[c].super];
		h->ncls = k;
	}
	free(map);
}

/* The natives dom_state made detached, each of class "Detached NAME"
 * (the class of that name, made if none is), the classes' totals moved
 * with them, and a class left with none let go; once the classes are
 * made and parked, so loaded and parked again. */
static void name_detached(struct v8b *b, const node_t *ren, size_t nren)
{
	struct heap *h = b->h;
	uint32_t from[64], into[64];
	size_t nmap = 0;
	struct sbuf name;
	uint32_t ncls = h->ncls;
	bits_t *left = xcalloc(bits_words(ncls), sizeof *left); /* a class that lost an object */

	heap_load(h, HP_CLASS | HP_SHALLOW, NULL);
	sbuf_init(&name);
	for (size_t r = 0; r < nren; r++) {
		node_t v = ren[r];
		uint32_t c = h->node_class[v], nc = HW_NONE;
		for (size_t k = 0; k < nmap && nc == HW_NONE; k++)
			if (from[k] == c)
				nc = into[k];
		if (nc == HW_NONE) {
			sbuf_reset(&name);
			sbuf_adds(&name, "Detached ");
			sbuf_adds(&name, heap_str(h, h->cls[c].name));
			for (uint32_t x = 0; x < h->ncls && nc == HW_NONE; x++)
				if (strcmp(heap_str(h, h->cls[x].name), name.buf) == 0)
					nc = x;
			if (nc == HW_NONE) {
				uint32_t off = names_intern(&b->nt, name.buf, name.len);
				h->cls = xreallocarray(h->cls, (size_t)h->ncls + 1, sizeof *h->cls);
				h->cls[h->ncls] = (struct hclass){ .node = HW_NONE, .name = off, .super = HW_NONE,
								   .referent_off = HW_NONE };
				nc = h->ncls++;
			}
			if (nmap < sizeof from / sizeof *from) {
				from[nmap] = c;
				into[nmap++] = nc;
			}
		}
		h->node_class[v] = nc;
		bit_set(left, c);
		h->cls[c].count--;
		h->cls[c].shallow_total -= h->node_shallow[v];
		h->cls[nc].count++;
		h->cls[nc].shallow_total += h->node_shallow[v];
	}
	sbuf_free(&name);
	drop_emptied(h, left, ncls);
	free(left);
	cache_changed(h, HP_CLASS);
	heap_park(h, HP_CLASS | HP_SHALLOW);
}

/* The heap's references of the snapshot's edges, through the builder,
 * read from the file once the nodes are made (where they stand, or in a
 * pass of their own after the rest: struct v8_inline): out[] (with each
 * edge's name and type, the builder's labels) and weak_*[], each node's
 * in target order, equal targets in the file's; the root's edges are
 * the GC roots. Each node's room is counted first from the nodes' edge
 * counts, so that the edges go straight to their places as they are
 * read: no column of them all is ever made. The reader's arrays of
 * the nodes wait on disk from past the root's edges, and the labels as
 * they are made, until they are first read after the open (v8_d,
 * v8_load_data; in the index cache once it is written: v8_data_cached).
 * o2n is freed. */
static void edges_begin(struct v8b *b, struct esink *k, const uint32_t *o2n)
{
	struct v8_snap *s = b->s;
	uint32_t root = (uint32_t)s->root_index;

	for (uint32_t o = 0; o < s->nnodes; o++)
		if (o != root && s->nedges_of[o] > 0)
			hb_refs_count(&b->hb, o2n[o], s->nedges_of[o]);
	*k = (struct esink){ .b = b, .o2n = o2n, .o = 0, .left = s->nnodes > 0 ? s->nedges_of[0] : 0 };
}

/* ... and once they are read. */
static void make_edges(struct v8b *b, struct esink *k, uint32_t *o2n)
{
	struct heap *h = b->h;
	struct v8_snap *s = b->s;
	struct v8_data *d = b->d;
	uint32_t root = (uint32_t)s->root_index;

	if (s->cut_at != 0) /* the heads' reading, or the edges' */
		h->truncated_at = s->cut_at;
	node_t *ren = NULL;
	size_t nren = b->nat_bits != NULL ? dom_state(b, o2n, &ren) : 0;
	/* the counts past the edges read: holes */
	for (next_node(k); k->o < s->nnodes; k->left = 0, next_node(k))
		if (k->o != root) {
			node_t *room = hb_refs_room(&b->hb, o2n[k->o], (size_t)k->left, NULL);
			for (uint64_t j = 0; j < k->left; j++)
				room[j] = HW_NONE;
		}
	v8_snap_free_counts(s);
	heap_recycle(h, o2n); /* a column's size: hb_finish loads two */
	hb_finish(&b->hb); /* the arrays parked stay so, past the open (v8_load_data) */
	if (nren > 0)
		name_detached(b, ren, nren);
	free(ren);
	d->nout = h->nedges;
	/* the labels waited on disk as they came (HB_RUNS): they stay there */
	if (hb_labels_park(&b->hb, heap_scratch(h), PARK_ID + 5) == 0)
		d->parked |= 1u << 5;
	else
		d->out_name = hb_labels_take(&b->hb);
	d->weak_name = hb_weak_labels_take(&b->hb);
	d->nwlab = h->nweak;
	d->weak_type = xmalloc(h->nweak + 1);
	memset(d->weak_type, d->et_weak, h->nweak + 1);
	h->dangling_refs = k->dropped;
	if (k->dropped > 0)
		warn_add(&h->warn, "%s: %llu edges to no node (or to the root) dropped", h->path,
			 (unsigned long long)k->dropped);
	if (k->lost > 0)
		warn_add(&h->warn, "%s: %llu edges past the 2^28th whose index or type needs a word of its own: "
			 "their names are not kept", h->path, (unsigned long long)k->lost);
}

/* ---- the format's operations ---- */

static int v8_header(struct heap *h, struct sbuf *err)
{
	(void)err;
	snprintf(h->version, sizeof h->version, "V8 heap snapshot");
	h->layout.idsize = 8;
	return 0;
}

/* The types the reader tells apart, by their names in the meta. */
static void find_types(struct v8_data *d)
{
	d->et_element = type_index(d->edge_types, d->n_edge_types, "element");
	d->et_hidden = type_index(d->edge_types, d->n_edge_types, "hidden");
	d->et_weak = type_index(d->edge_types, d->n_edge_types, "weak");
	d->et_shortcut = type_index(d->edge_types, d->n_edge_types, "shortcut");
	d->et_internal = type_index(d->edge_types, d->n_edge_types, "internal");
	d->et_invisible = type_index(d->edge_types, d->n_edge_types, "invisible");
	d->nt_string = type_index(d->node_types, d->n_node_types, "string");
	d->nt_cons = type_index(d->node_types, d->n_node_types, "concatenated string");
	d->nt_sliced = type_index(d->node_types, d->n_node_types, "sliced string");
	d->nt_object = type_index(d->node_types, d->n_node_types, "object");
	d->nt_native = type_index(d->node_types, d->n_node_types, "native");
	d->nt_array = type_index(d->node_types, d->n_node_types, "array");
	d->nt_code = type_index(d->node_types, d->n_node_types, "code");
}

static void v8_free(struct heap *h)
{
	struct v8_data *d = h->fmt_data;

	if (d == NULL)
		return;
	free(d->str_off);
	for (unsigned i = 0; d->edge_types != NULL && i < d->n_edge_types; i++)
		free(d->edge_types[i]);
	free(d->edge_types);
	for (unsigned i = 0; d->node_types != NULL && i < d->n_node_types; i++)
		free(d->node_types[i]);
	free(d->node_types);
	free(d->node_name);
	free(d->node_type);
	free(d->out_name);
	free(d->side);
	free(d->weak_name);
	free(d->weak_type);
	free(d->node_trace);
	free(d->id32);
	free(d->type_names);
	hb_refs_free(&d->refs);
	free(d);
	h->fmt_data = NULL;
}

/* The build's state let go (the heap's own stays). */
static void build_free(struct v8b *b)
{
	hb_free(&b->hb);
	names_free(&b->nt);
	free(b->type_of_str);
	free(b->nat_o);
	free(b->nat_state);
	free(b->nat_bits);
	free(b->ne_from);
	free(b->ne_to);
}

/* The open's state between the parse and the builder. */
struct v8open {
	struct v8b b;
	struct esink k;
	uint32_t *o2n;
	struct progress *p;
	int made; /* the nodes */
};

/* The nodes read (and the strings, meta): the reader's data of the
 * heap, the heap's nodes, and the room for their edges (0 if there are
 * none: the open fails). `here`: within the parse's phase, which the
 * edges' then is (struct v8_inline). */
static int nodes_made(struct v8open *o, struct v8_snap *s, int here)
{
	struct heap *h = o->b.h;
	struct v8_data *d;

	if (s->nnodes == 0 || s->root_index >= s->nnodes)
		return 0;
	v8_free(h);
	d = xcalloc(1, sizeof *d);
	h->fmt_data = d;
	/* the strings and type names stay with the heap */
	d->str_off = s->str_off;
	d->nstr = s->nstr;
	d->ids_reset = s->ids_reset != 0;
	h->timestamp_ms = s->taken_ms; /* heapwalk's own snapshots say when (node.c); 0: not known */
	s->str_off = NULL;
	d->edge_types = s->edge_types;
	d->n_edge_types = s->n_edge_types;
	s->edge_types = NULL; /* its count stays: the edges, read later, are checked against it */
	d->node_types = s->node_types;
	d->n_node_types = s->n_node_types;
	s->node_types = NULL;
	s->n_node_types = 0;
	find_types(d);

	struct v8b *b = &o->b;
	*b = (struct v8b){ .h = h, .s = s, .d = d, .nt = { .h = h } };
	b->type_of_str = xmalloc(((size_t)s->nstr + 1) * sizeof *b->type_of_str);
	mem_populate(b->type_of_str, 0, ((size_t)s->nstr + 1) * sizeof *b->type_of_str); /* written whole */
	memset(b->type_of_str, 0xff, ((size_t)s->nstr + 1) * sizeof *b->type_of_str);
	memset(b->type_of_type, 0xff, sizeof b->type_of_type);
	if (here)
		progress_end(o->p);
	progress_begin(o->p, "nodes", s->nnodes, "nodes");
	o->o2n = make_nodes(b);
	progress_end(o->p);
	free(b->type_of_str);
	b->type_of_str = NULL;
	progress_begin(o->p, "references", h->size, "MB"); /* the edges are read now */
	edges_begin(b, &o->k, o->o2n);
	o->made = 1;
	return 1;
}

static int edges_here(void *ctx, struct v8_snap *s, v8_edge_sink **sink, void **sink_ctx)
{
	struct v8open *o = ctx;

	if (!nodes_made(o, s, 1))
		return 0;
	*sink = edges_in;
	*sink_ctx = &o->k;
	return 1;
}

static int v8_parse_heap(struct heap *h, struct progress *p, struct sbuf *err)
{
	struct v8_snap s;
	struct v8open o = { .b = { .h = h }, .p = p };
	struct v8_inline in = { .ready = edges_here, .ctx = &o };

	/* fd only where it is the map's own file: not a .gz whose inflated copy is the map */
	/* the content hash of the index cache's file (a gzip dump's is of
	 * its compressed bytes: not this pass's); the allocation sites'
	 * source positions not read, which no view shows (16 bytes a site,
	 * 3 bytes an object of the bench's snapshot, beside the nodes and
	 * then the edges; read, 1.3% of its cold open) */
	int hash = h->cache_file != NULL && h->file_map == NULL;
	int fd = h->container == NULL && h->file_map == NULL ? h->fd : -1;
	if (v8_parse_heads(h->path, h->map, h->size, h->container == NULL, fd, &s, p, &h->warn, err,
			   hash ? &h->content : NULL, 0, h->plain_parse ? NULL : &in) < 0)
		return -1;
	if (in.stale) { /* the strings read first were another's: the file again, the plain way */
		build_free(&o.b);
		free(o.o2n);
		v8_snap_free(&s);
		return HEAP_PARSE_AGAIN;
	}
	h->content_known = hash;
	if (!in.done && !nodes_made(&o, &s, 0)) {
		v8_names_said(h->path, &h->warn, &s); /* no edges' pass to say them after */
		char *ep = esc_str(h->path);
		sbuf_printf(err, "%s: offset %llu: %s", ep, (unsigned long long)s.nodes_at,
			    s.nnodes == 0 ? "no nodes in the snapshot" : "the root index is past the nodes");
		free(ep);
		v8_snap_free(&s);
		return -1;
	}
	if (!in.done) /* in a pass of their own */
		v8_parse_edges(h->path, h->map, h->size, h->container == NULL, fd, &s, edges_in, &o.k, p, &h->warn);
	struct v8b *b = &o.b;
	progress_end(p); /* the edges' reading (its pass's, or the parse's) */
	progress_begin(p, "reference ends", h->n, "objects");
	make_edges(b, &o.k, o.o2n); /* frees o2n */
	/* the allocation stacks, whose arrays V8 writes after the edges: the
	 * nodes' trace ids (made, perhaps parked, with the nodes) kept only
	 * where the snapshot has them */
	struct v8_data *d = b->d;
	if (tracking(&s)) {
		if (d->node_trace == NULL && !(d->parked & 1u << PARK_TRACE)) /* no node with a trace: all 0 */
			d->node_trace = xcalloc((size_t)h->n + 1, sizeof *d->node_trace);
		make_traces(b);
	} else {
		free(d->node_trace);
		d->node_trace = NULL;
		struct store *st = d->parked & 1u << PARK_TRACE ? heap_scratch_kept(h) : NULL;
		if (st != NULL)
			store_drop(st, PARK_ID + PARK_TRACE);
		d->parked &= ~(1u << PARK_TRACE);
		if (st != NULL)
			heap_scratch_done(h);
	}
	progress_end(p);
	build_free(b);
	v8_snap_free(&s);
	return 0;
}

/* The target of v's edge named `name` (an internal edge of a string),
 * HW_NONE if none. */
static node_t edge_named(const struct heap *h, node_t v, const char *name)
{
	const struct v8_data *d = v8_d(h);
	struct hb_refs r;
	uint8_t t;

	hb_refs_view(h, &d->refs, &r);
	for (edge_t e = r.start[v]; e < r.start[v + 1]; e++)
		if (name_is(h, edge_nt(d, e, &t), name))
			return r.to[e];
	return HW_NONE;
}

/* A concatenated string's text: its parts, "first" then "second",
 * each a string of any kind; at most max bytes from `start` of out,
 * then "..." once (*cut) where there is more, as a string cut says it.
 * The parts visited are bounded by the text made (V8's parts are never
 * empty, so that a part past max is more text): a crafted snapshot can
 * share one empty part many times over. */
static int cons_text(const struct heap *h, node_t v, struct sbuf *out, size_t start, size_t max,
		     unsigned depth, size_t *visits, int *cut)
{
	const struct v8_data *d = v8_d(h);
	int t = d->node_type[v];

	if (out->len - start >= max) {
		if (!*cut)
			sbuf_adds(out, "...");
		*cut = 1;
		return 0;
	}
	if (++*visits > 4096 + 2 * (out->len - start))
		return -1;
	if (t == d->nt_string) {
		uint32_t i = d->node_name[v];
		size_t room = max - (out->len - start);
		long n = i < d->nstr && d->str_off[i] != UINT64_MAX ? v8_string(h->map, h->size, d->str_off[i], out, room)
								     : -1;
		if (n > 0 && (unsigned long)n > room) /* it said "..." */
			*cut = 1;
		return n < 0 ? -1 : 0;
	}
	if (t != d->nt_cons || depth > 1000)
		return -1;
	node_t a = edge_named(h, v, "first"), b = edge_named(h, v, "second");
	if (a == HW_NONE || b == HW_NONE)
		return -1;
	return cons_text(h, a, out, start, max, depth + 1, visits, cut) < 0 ||
	       cons_text(h, b, out, start, max, depth + 1, visits, cut) < 0 ? -1 : 0;
}

/* A node's name where it says more than its class: a string's value
 * (a concatenated one's made of its parts), a closure's function, a
 * system object's description; none where that name is empty and the
 * node no string. */
static int v8_string_value(const struct heap *h, node_t v, struct sbuf *out, size_t max)
{
	const struct v8_data *d = v8_d(h);

	if (v == 0 || v >= h->n)
		return -1;
	int t = d->node_type[v];
	if (t == d->nt_object || t == d->nt_native)
		return -1;
	if (t == d->nt_cons) {
		size_t start = out->len, visits = 0;
		int cut = 0;
		if (cons_text(h, v, out, start, max, 0, &visits, &cut) == 0)
			return 0;
		/* parts missing: its name as V8 gave it ("(concatenated
		 * string)"), which is no value: not compared, not shown as one */
		out->buf[out->len = start] = '\0';
		return v8_str(h, d->node_name[v], out, max) < 0 ? -1 : 1;
	}
	size_t start = out->len;
	if (v8_str(h, d->node_name[v], out, max) < 0)
		return -1;
	/* an empty name is a string's value, "", but says nothing of any
	 * other node (an (array) V8 gave no name): none, not "" */
	if (out->len == start && t != d->nt_string && t != d->nt_sliced)
		return -1;
	return 0;
}

static int v8_is_string(const struct heap *h, node_t v)
{
	const struct v8_data *d = v8_d(h);
	int t = d->node_type[v];

	/* a sliced string's offset into its parent is not in the snapshot */
	return t == d->nt_string || t == d->nt_cons;
}

static void edge_name(const struct heap *h, uint8_t type, uint32_t name, struct sbuf *out)
{
	const struct v8_data *d = v8_d(h);

	if (type == d->et_element || type == d->et_hidden)
		sbuf_printf(out, "[%u]", name);
	else if (v8_str(h, name, out, 200) < 0)
		sbuf_adds(out, "<?>");
}

/* Every edge of v as a field: strong edges, then weak ones (named with
 * a "weak " prefix), each with its target's id. */
static int v8_fields(const struct heap *h, node_t v, field_fn fn, void *arg)
{
	const struct v8_data *d = v8_d(h);
	struct sbuf sb;
	int n = 0;

	if (v == 0 || v >= h->n)
		return -1;
	struct hb_refs r;
	hb_refs_view(h, &d->refs, &r);
	sbuf_init(&sb);
	for (edge_t e = r.start[v]; e < r.start[v + 1]; e++, n++) {
		struct hvalue val = { .type = T_OBJECT, .v.id = heap_node_id(h, r.to[e]) };
		sbuf_reset(&sb);
		uint8_t t;
		uint32_t name = edge_nt(d, e, &t);
		edge_name(h, t, name, &sb);
		fn(arg, sb.buf, &val);
	}
	for (uint64_t i = hb_refs_weak_first(&r, v); i < r.nweak && r.wsrc[i] == v; i++, n++) {
		struct hvalue val = { .type = T_OBJECT, .v.id = heap_node_id(h, r.wdst[i]) };
		sbuf_reset(&sb);
		sbuf_adds(&sb, "weak ");
		edge_name(h, d->weak_type[i], d->weak_name[i], &sb);
		fn(arg, sb.buf, &val);
	}
	sbuf_free(&sb);
	return n;
}

static void v8_edge_label(const struct heap *h, node_t src, node_t dst, struct sbuf *out)
{
	const struct v8_data *d = v8_d(h);
	struct hb_refs r;
	int64_t e, w;

	hb_refs_view(h, &d->refs, &r);
	if ((e = hb_refs_find(&r, src, dst)) >= 0) { /* a node's edges in target order */
		uint8_t t;
		uint32_t name = edge_nt(d, (edge_t)e, &t);
		edge_name(h, t, name, out);
	} else if ((w = hb_refs_find_weak(&r, src, dst)) >= 0) {
		sbuf_adds(out, "weak ");
		edge_name(h, d->weak_type[w], d->weak_name[w], out);
	} else {
		sbuf_adds(out, "<?>");
	}
}


/* V8's arrays as the views count them: an "array" node (a FixedArray:
 * elements, properties, a hash table's store, ...) with its references
 * by index (elements, and internal edges named by an index; the
 * numbers of a FixedDoubleArray are not in the snapshot, so it counts
 * none), and an ArrayBuffer's backing store, its bytes. */
static int64_t v8_array_length(const struct heap *h, node_t v, uint8_t *elem_type)
{
	const struct v8_data *d = v8_d(h);
	int t = v == 0 || v >= h->n ? -1 : d->node_type[v];

	if (t < 0)
		return -1;
	if (t == d->nt_array) {
		int64_t n = 0;
		struct hb_refs r;
		hb_refs_view(h, &d->refs, &r);
		for (edge_t e = r.start[v]; e < r.start[v + 1]; e++) {
			uint8_t et;
			uint32_t name = edge_nt(d, e, &et);
			n += et == d->et_element || (et == d->et_internal && digit_name(h, name));
		}
		for (uint64_t i = hb_refs_weak_first(&r, v); i < r.nweak && r.wsrc[i] == v; i++)
			n += digit_name(h, d->weak_name[i]);
		*elem_type = T_OBJECT;
		return n;
	}
	if (t == d->nt_native && name_is(h, d->node_name[v], "system / JSArrayBufferData")) {
		*elem_type = T_BYTE;
		return h->node_shallow[v];
	}
	return -1;
}

static uint64_t v8_node_id(const struct heap *h, node_t v)
{
	const struct v8_data *d = v8_d(h);

	return d->id32 != NULL ? d->id32[v] : 0; /* neither (a forged cache): 0 */
}

static uint32_t v8_alloc_trace(const struct heap *h, node_t v)
{
	const struct v8_data *d = v8_d(h);

	return d->node_trace != NULL ? d->node_trace[v] : 0;
}

/* ---- one object in two snapshots of one process ---- */

/* Does v's id name v alone for its life? V8's heap profiler keys ids by
 * address (HeapObjectsMap): it follows an object through the GC's
 * moves, but a dead object's entry stays until the next snapshot, and
 * an object placed at that address without a move (allocated straight
 * into old or code space, or malloc'd) takes the dead one's id. Code
 * and its metadata (bytecode, feedback, scope infos, allocated straight
 * into old and code space) do so with objects of their own kind, and a
 * native's id is a malloc address (odd for an ArrayBuffer's backing
 * store, even for the embedder's objects): no test tells such an
 * object from the one it replaced, so none of them is identified. */
static int v8_id_identifies(const struct heap *h, node_t v)
{
	const struct v8_data *d = v8_d(h);
	int t = d->node_type[v];

	return (heap_node_id(h, v) & 1) && t != d->nt_native && t != d->nt_code;
}

/* V8 grows no object in place (a FixedArray is trimmed, never
 * extended: a grown array's elements are a new store); a native's size
 * is the embedder's figure, which may change. */
static int v8_may_grow(const struct heap *h, node_t v)
{
	const struct v8_data *d = v8_d(h);

	return d->node_type[v] == d->nt_native;
}

/* heapwalk's own snapshot of a Node process (snapshot.heapwalk): the
 * inspector session it came through was closed, and V8 clears its ids
 * when one closes: the next snapshot numbers its objects afresh, and
 * the same numbers come again for other objects. */
static const char *v8_ids_ended(const struct heap *h)
{
	const struct v8_data *d = v8_d(h);

	return d != NULL && d->ids_reset ? "the older snapshot is heapwalk's own, whose inspector session, once "
					   "closed, reset V8's object ids: its ids name nothing in later snapshots"
					 : NULL;
}

static const char *type_name(const struct v8_data *d, node_t v)
{
	return d->node_type[v] < d->n_node_types ? d->node_types[d->node_type[v]] : "";
}

#define SAME_TEXT_MAX 4096 /* bytes of two strings compared; their sizes too */

/* Are o of old and v of h, which have one id, one object? Not when the
 * id passed to another object: its type or class differs, or it is a
 * string of other text (a string's text never changes in place). */
static int v8_id_same(const struct heap *old, node_t o, const struct heap *h, node_t v)
{
	const struct v8_data *a = v8_d(old), *b = v8_d(h);

	if (strcmp(type_name(a, o), type_name(b, v)) != 0 ||
	    strcmp(class_name(old, old->node_class[o]), class_name(h, h->node_class[v])) != 0)
		return 0;
	if (b->node_type[v] != b->nt_string)
		return 1;
	if (old->node_shallow[o] != h->node_shallow[v])
		return 0;
	struct sbuf x, y;
	sbuf_init(&x);
	sbuf_init(&y);
	int same = v8_str(old, a->node_name[o], &x, SAME_TEXT_MAX) == v8_str(h, b->node_name[v], &y, SAME_TEXT_MAX) &&
		   x.len == y.len && memcmp(x.buf, y.buf, x.len) == 0;
	sbuf_free(&x);
	sbuf_free(&y);
	return same;
}

static int string_kind(const struct v8_data *d, node_t v)
{
	int t = d->node_type[v];

	return t == d->nt_string || t == d->nt_cons || t == d->nt_sliced;
}

/* A string made into another string in place: a concatenated one
 * flattened or internalized keeps its id (tests/node/rewrite.js makes
 * 50,000 at once). */
static int v8_id_in_place(const struct heap *old, node_t o, const struct heap *h, node_t v)
{
	return string_kind(v8_d(old), o) && string_kind(v8_d(h), v);
}

/* ---- the index cache: what v8_data keeps ---- */

/* The type names in one run of NUL-terminated strings. */
static void join_types(struct v8_data *d)
{
	struct sbuf sb;

	sbuf_init(&sb);
	for (unsigned i = 0; i < d->n_edge_types; i++)
		sbuf_add(&sb, d->edge_types[i], strlen(d->edge_types[i]) + 1);
	for (unsigned i = 0; i < d->n_node_types; i++)
		sbuf_add(&sb, d->node_types[i], strlen(d->node_types[i]) + 1);
	d->type_names_len = sb.len;
	d->type_names = sbuf_detach(&sb);
}

static void v8_refs_change(struct heap *h)
{
	struct v8_data *d = h->fmt_data;

	if (d != NULL)
		hb_refs_keep(h, &d->refs);
}

static int v8_data_arrays(struct heap *h, struct fmt_array *a)
{
	struct v8_data *d = h->fmt_data;

	if (d == NULL)
		d = h->fmt_data = xcalloc(1, sizeof *d);
	else if (d->type_names == NULL)
		join_types(d);
	a[0] = (struct fmt_array){ (void **)&d->str_off, NULL, sizeof *d->str_off, d->nstr };
	a[1] = (struct fmt_array){ (void **)&d->node_name, NULL, sizeof *d->node_name, h->n };
	a[2] = (struct fmt_array){ (void **)&d->node_type, NULL, sizeof *d->node_type, h->n };
	a[3] = (struct fmt_array){ (void **)&d->out_name, NULL, sizeof *d->out_name, d->nout };
	a[4] = (struct fmt_array){ (void **)&d->side, NULL, sizeof *d->side, d->nside };
	a[5] = (struct fmt_array){ (void **)&d->weak_name, NULL, sizeof *d->weak_name, d->nwlab };
	a[6] = (struct fmt_array){ (void **)&d->weak_type, NULL, sizeof *d->weak_type, d->nwlab };
	/* (parked or waiting in the cache, they are there all the same:
	 * bits 3 and 4 of parkable's, 7 and 8 of waiting) */
	a[7] = (struct fmt_array){ (void **)&d->node_trace, NULL, sizeof *d->node_trace,
				   d->node_trace || (d->parked & 0x8) || (d->waiting & 1u << 7) ? h->n : 0 };
	a[8] = (struct fmt_array){ (void **)&d->id32, NULL, sizeof *d->id32,
				   d->id32 || (d->parked & 0x10) || (d->waiting & 1u << 8) ? h->n : 0 };
	a[9] = (struct fmt_array){ (void **)&d->type_names, NULL, 1, d->type_names_len };
	a[10] = (struct fmt_array){ NULL, &d->n_edge_types, sizeof d->n_edge_types, 1 };
	a[11] = (struct fmt_array){ NULL, &d->n_node_types, sizeof d->n_node_types, 1 };
	a[12] = (struct fmt_array){ NULL, &d->ids_reset, sizeof d->ids_reset, 1 };
	return 13 + hb_refs_arrays(h, &d->refs, a + 13);
}

/* What v8_data's arrays index and where strings are read: in range;
 * the type names split again. */
static const char *v8_data_loaded(struct heap *h, const struct fmt_array *a, int n)
{
	struct v8_data *d = h->fmt_data;

	d->waiting = 0;
	for (int i = 0; i < n; i++) /* left in the cache (data_lazy) */
		if ((V8_LAZY & 1u << i) && a[i].ptr != NULL && *a[i].ptr == NULL && a[i].count > 0)
			d->waiting |= 1u << i;
	d->nstr = (uint32_t)a[0].count;
	d->nout = a[3].count;
	d->nside = d->cside = a[4].count > PACK_NAMES - PACK_SIDE ? 0 : (uint32_t)a[4].count;
	d->nwlab = a[5].count;
	d->type_names_len = a[9].count;
	if (!hb_refs_loaded(h, &d->refs, a + 13))
		return "bad V8 references";
	if (a[0].count > UINT32_MAX || a[1].count != h->n || a[2].count != h->n ||
	    d->nout != (d->refs.own ? d->refs.n : h->nedges) || a[4].count > PACK_NAMES - PACK_SIDE ||
	    a[6].count != d->nwlab || d->nwlab != (d->refs.own ? d->refs.nweak : h->nweak) ||
	    (a[7].count != 0 && a[7].count != h->n) || (a[8].count != 0 && a[8].count != h->n))
		return "bad V8 arrays";
	for (uint32_t i = 0; i < d->nstr; i++)
		if (d->str_off[i] != UINT64_MAX && d->str_off[i] >= h->size)
			return "bad V8 string";
	if (d->n_edge_types > 255 || d->n_node_types > 255 ||
	    d->type_names_len == 0 || d->type_names[d->type_names_len - 1] != '\0')
		return "bad V8 types";
	uint64_t nuls = 0;
	for (uint64_t at = 0; at < d->type_names_len; at++)
		nuls += d->type_names[at] == '\0';
	if (nuls != (uint64_t)d->n_edge_types + d->n_node_types)
		return "bad V8 types";
	d->edge_types = xcalloc(d->n_edge_types + 1, sizeof *d->edge_types);
	d->node_types = xcalloc(d->n_node_types + 1, sizeof *d->node_types);
	const char *nm = d->type_names;
	for (unsigned i = 0; i < d->n_edge_types + d->n_node_types; i++, nm += strlen(nm) + 1)
		if (i < d->n_edge_types)
			d->edge_types[i] = xstrdup(nm);
		else
			d->node_types[i - d->n_edge_types] = xstrdup(nm);
	find_types(d);
	return NULL;
}

const struct format_ops v8_format = {
	.name = "v8",
	.title = "V8",
	.label = "a V8 heap snapshot (Node, Chrome)",
	.runtime = "v8",
	.cacheable = 1,
	.data_arrays = v8_data_arrays,
	.data_loaded = v8_data_loaded,
	.data_lazy = V8_LAZY,
	.needs = HP_OUT | HP_WEAK | HP_CLASS | HP_KIND | HP_SHALLOW | HP_IDS,
	.probe = v8_probe,
	.near = v8_near,
	.header = v8_header,
	.parse = v8_parse_heap,
	.node_id = v8_node_id,
	.fields = v8_fields,
	.array_length = v8_array_length,
	.string_value = v8_string_value,
	.is_string = v8_is_string,
	.edge_label = v8_edge_label,
	.alloc_trace = v8_alloc_trace,
	.alloc_hint = "snapshots taken with allocation tracking (node --track-heap-objects) have them",
	.root_natives = v8_root_natives,
	.nroot_natives = V8R_COUNT,
	.free_data = v8_free,
	.park_data = v8_park_data,
	.load_data = v8_load_data,
	.data_waiting = v8_data_waiting,
	.data_cached = v8_data_cached,
	.data_parked = v8_data_parked,
	.refs_change = v8_refs_change,
	.id_identifies = v8_id_identifies,
	.may_grow = v8_may_grow,
	.id_same = v8_id_same,
	.id_in_place = v8_id_in_place,
	.ids_ended = v8_ids_ended,
	.id_source = "V8's heap object ids",
	.id_unknown = "natives (the embedder's objects, ArrayBuffer backing stores) and compiled code, "
		      "whose ids pass to the next object at their address",
	.id_reset = "V8 numbered its objects afresh between them: an inspector session that took a snapshot or "
		    "tracked allocations ended (DevTools closed, a heapwalk snapshot taken)",
};
