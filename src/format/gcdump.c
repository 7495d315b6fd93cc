/* gcdump.c — .NET heaps from dotnet-gcdump's .gcdump files (PerfView's
 * GCHeapDump) into the heap model.
 *
 * The file is PerfView's FastSerialization of a GCHeapDump object: the
 * header string "!FastSerialization.1", then objects, each a BeginObject
 * tag, its type (itself an object: version, oldest reader version, full
 * name; later uses of the type refer back to its offset), its fields,
 * an EndObject tag. GCHeapDump's first field is the MemoryGraph that
 * dotnet-gcdump built from the runtime's heap-dump events:
 *
 *   int64 total size, int32 root node, int32 types and per type
 *   {string name, int32 size of its first node, string module},
 *   int32 nodes and per node an int32 offset into the blob, int32 blob
 *   length and the blob, then int32 addresses and one int64 per node.
 *
 * A node in the blob is a compressed int "type << 1 | has size", the
 * size if it differs from its type's, a compressed child count and
 * each child as a compressed (child - node). Strings are an int32 count
 * of UTF-16 units, each written as its own 1-3 byte UTF-8 sequence.
 *
 * Objects are the nodes with an address; the graph's other nodes are
 * dotnet-gcdump's grouping of the roots: "[.NET Roots]" holds "[local
 * vars]", "[static vars]" (one "[static var Type.field]" per variable),
 * "[other roots]" with "[finalizer Handles]", "[strong Handles]",
 * "[pinning Handles]", "[Dependent Handles]"..., and their children are
 * the roots. The reader gathers the same parts as the nettrace reader
 * and clr_build() makes the heap, so both look alike to the views. */
#include "format/clr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/builder.h"
#include "graph/idindex.h"
#include "graph/reader.h"
#include "graph/resident.h"
#include "graph/store.h"
#include "runtime/clr.h"

enum { TAG_NULL = 1, TAG_OBJREF = 2, TAG_BEGIN = 4, TAG_BEGIN_PRIVATE = 5, TAG_END = 6, TAG_BYTE = 8 };

static const char MAGIC[] = "!FastSerialization.1";
/* .NET's DateTime ticks (100 ns since year 1) at 1970-01-01 */
#define TICKS_1970 621355968000000000ULL

/* A cursor over the file; a read past its end sets cut. str_at and
 * str_len: where the last string began and the length it gave. */
struct cur {
	const uint8_t *b;
	size_t n, pos;
	int cut;
	size_t str_at;
	int32_t str_len;
};

static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

static int has(struct cur *c, size_t k)
{
	if (c->cut || c->n - c->pos < k) {
		c->cut = 1;
		return 0;
	}
	return 1;
}

static unsigned get8(struct cur *c) { return has(c, 1) ? c->b[c->pos++] : 0; }
static int32_t get32(struct cur *c) { int32_t v = has(c, 4) ? (int32_t)rd32(c->b + c->pos) : 0; c->pos += c->cut ? 0 : 4; return v; }
static uint64_t get64(struct cur *c) { uint64_t v = has(c, 8) ? rd64(c->b + c->pos) : 0; c->pos += c->cut ? 0 : 8; return v; }
static float getf(struct cur *c) { uint32_t u = (uint32_t)get32(c); float f; memcpy(&f, &u, 4); return f; }

/* A string into out as UTF-8 (surrogate pairs joined); -1 for null or
 * past the end. */
static int get_str(struct cur *c, struct sbuf *out)
{
	size_t at = c->pos;
	int was_cut = c->cut;
	int32_t n = get32(c);

	if (!was_cut) { /* the string that went past the end, not those read after it */
		c->str_at = at;
		c->str_len = c->cut ? 0 : n;
	}
	sbuf_reset(out);
	if (c->cut || n < 0)
		return -1;
	unsigned hi = 0; /* a high surrogate waiting for its low one */
	uint32_t cp[2];
	for (int32_t i = 0; i < n; i++) {
		unsigned b = get8(c), u;
		if (b < 0x80)
			u = b;
		else if (b < 0xe0)
			u = (b & 0x1f) << 6 | (get8(c) & 0x3f);
		else {
			u = (b & 0x0f) << 12;
			u |= (get8(c) & 0x3f) << 6;
			u |= get8(c) & 0x3f;
		}
		if (c->cut)
			return -1;
		for (int k = 0, m = utf16_join(&hi, u, cp); k < m; k++)
			sbuf_add_utf8(out, cp[k]);
	}
	if (utf16_flush(&hi, cp)) /* as a trace's names read it */
		sbuf_add_utf8(out, cp[0]);
	return 0;
}

/* An object's type: its full name into name, its version; 0, or -1 if
 * what is there is no type. A type written before is a reference to
 * its offset. */
static int get_type(struct cur *c, struct sbuf *name, int32_t *version, int32_t *min_reader)
{
	unsigned tag = get8(c);

	if (tag == TAG_OBJREF) {
		uint32_t at = (uint32_t)get32(c);
		if (c->cut || at >= c->n)
			return -1;
		struct cur t = { c->b, c->n, at, 0, 0, 0 };
		return get8(&t) == TAG_OBJREF ? -1 : (t.pos = at, get_type(&t, name, version, min_reader));
	}
	if (tag != TAG_BEGIN || get8(c) != TAG_NULL) /* a type's own type is null */
		return -1;
	*version = get32(c);
	*min_reader = get32(c);
	if (get_str(c, name) != 0 || get8(c) != TAG_END)
		return -1;
	return 0;
}

/* The start of an object of type want: 1, 0 for a null reference, -1
 * for anything else. */
static int begin_object(struct cur *c, const char *want, int32_t *version, int32_t *min_reader, struct sbuf *name)
{
	unsigned tag = get8(c);

	if (tag == TAG_NULL)
		return 0;
	if ((tag != TAG_BEGIN && tag != TAG_BEGIN_PRIVATE) || get_type(c, name, version, min_reader) != 0)
		return -1;
	return strcmp(name->buf, want) == 0 ? 1 : -1;
}

/* A compressed int at blob[*at] (< len): big-endian 7-bit groups, all
 * but the last with bit 7 set, the first sign-extended; 0, or -1 if it
 * runs past the blob or is longer than 5 bytes. */
static inline int compressed(const uint8_t *blob, size_t len, size_t *at, int32_t *out)
{
	if (*at >= len)
		return -1;
	uint8_t b = blob[(*at)++];
	if (!(b & 0x80)) { /* one byte: most are */
		*out = (int32_t)((b & 0x40) ? (b & 0x7fu) | 0xffffff80u : b);
		return 0;
	}
	uint32_t v = (b & 0x40) ? (b & 0x7fu) | 0xffffff80u : b & 0x7fu; /* the low 7 bits, signed */

	for (int k = 1; b & 0x80; k++) {
		if (k == 5 || *at >= len)
			return -1;
		b = blob[(*at)++];
		v = v << 7 | (b & 0x7f);
	}
	*out = (int32_t)v;
	return 0;
}

/* The root kind of a group dotnet-gcdump made, by its name; parent's
 * for one it does not name. */
static uint16_t group_kind(const char *name, uint16_t parent)
{
	static const struct { const char *name; uint16_t kind; } groups[] = {
		{ "[local vars]", CLR_ROOT_STACK },
		{ "[finalizer Handles]", CLR_ROOT_FINALIZER },
		{ "[strong Handles]", CLR_ROOT_HANDLE },
		{ "[pinning Handles]", CLR_ROOT_PINNED },
		{ "[Dependent Handles]", CLR_ROOT_DEPENDENT },
		{ "[COM/WinRT Objects]", CLR_ROOT_REFCOUNTED },
		{ "[static vars]", CLR_ROOT_STATIC },
		{ "[thread static vars]", CLR_ROOT_STATIC },
		{ "[other Handles]", CLR_ROOT_OTHER },
		{ "[other roots]", CLR_ROOT_OTHER },
	};

	for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
		if (strcmp(name, groups[i].name) == 0)
			return groups[i].kind;
	return parent;
}

/* Damage of one kind among the nodes: how many, and the file offset of
 * the first. */
struct damage {
	uint64_t n;
	size_t at;
};

/* What the file says, as read. */
struct gcd {
	struct clr_parts p;
	uint32_t root, ntypes, nnodes, naddrs;
	uint32_t *type_name; /* per type: its name's offset */
	int32_t *type_size;
	const uint8_t *offsets, *blob, *addrs; /* int32 per node, the blob, int64 per node */
	size_t blob_len;
	uint32_t undefined; /* the type "UNDEFINED" (an address never defined), or UINT32_MAX */
	/* which nodes are objects (gather_walk's): node i's bit, and per 64
	 * nodes the objects before them, so that an object's place among
	 * the objects as the walk gives them is a count of bits */
	uint64_t *objbits;
	uint32_t *objrank;
	/* the first walk (clr_build's objects) finds the objects, as it
	 * gives them: gathered once it has */
	int gathered;
	struct progress *pr;
	/* the multipliers after the graph (multiplier()): the most above 1
	 * (0: none), and the first that is no multiplier, with offsets */
	float sampled, odd_mult;
	size_t sampled_at, odd_mult_at;
	uint32_t pid; /* the process's id, as dotnet-gcdump was given it (0: not read) */
	/* references malformed or to no node of the graph (damage), as the
	 * last walk that read the targets counted them */
	struct damage bad_refs;
};

/* Node i's decoding: type, size (as the file has it: negative is
 * damage), children (count and where they start in the blob); 0, or -1
 * if it is not all there. Inline wherever it is called (calls of it:
 * 2.4% more instructions on a 5 M-object .gcdump's open). */
__attribute__((always_inline)) static inline int node_at(const struct gcd *g, uint32_t i, uint32_t *type,
							 int32_t *size, int32_t *nch, size_t *children)
{
	size_t at = rd32(g->offsets + 4 * (size_t)i);
	int32_t ts, sz;

	if (compressed(g->blob, g->blob_len, &at, &ts) != 0 || ts < 0)
		return -1;
	*type = (uint32_t)ts >> 1;
	if (ts & 1) {
		if (compressed(g->blob, g->blob_len, &at, &sz) != 0)
			return -1;
	} else {
		sz = *type < g->ntypes ? g->type_size[*type] : 0;
	}
	*size = sz;
	if (compressed(g->blob, g->blob_len, &at, nch) != 0 || *nch < 0 || (size_t)*nch > g->blob_len - at)
		return -1;
	*children = at;
	return 0;
}

/* Node i's address: 0 for dotnet-gcdump's own nodes; one made up (top
 * bit set) where the file was cut before its address. */
static uint64_t node_addr(const struct gcd *g, uint32_t i)
{
	return i < g->naddrs ? rd64(g->addrs + 8 * (size_t)i) : (1ULL << 63) | i;
}

/* A size as the heap has it: a negative one 0. */
static uint64_t usize(int32_t s)
{
	return s < 0 ? 0 : (uint64_t)s;
}

static inline int is_object(const struct gcd *g, uint32_t i, uint32_t type, int32_t size)
{
	uint64_t a = node_addr(g, i);

	if (type == g->undefined)
		return 0;
	if (i >= g->naddrs) /* cut: its name tells */
		return !(size == 0 && type < g->ntypes && heap_str(g->p.h, g->type_name[type])[0] == '[');
	return a != 0;
}

static void damaged(struct damage *d, size_t at)
{
	if (d->n++ == 0)
		d->at = at;
}

static void say_damage(struct heap *h, const struct damage *d, const char *what)
{
	if (d->n > 0)
		warn_add(&h->warn, "%s: offset %zu: %llu %s", h->path, d->at, (unsigned long long)d->n, what);
}

/* What the nodes' damage was, counted by object(). */
struct node_damage {
	struct damage lost, shared, type, size, undef;
	uint64_t undef_objects; /* of undef, those with an address */
	/* nodes with an address at the undefined record (offset 0): the
	 * writer's for a reference's target never defined (none in the files
	 * recorded here), or objects whose offsets are damaged (zeroed). The
	 * first's place in the offset table */
	struct damage at_undef;
};

/* Where node i's data is in the file (damage said there). */
static size_t node_data(const struct gcd *g, uint32_t i)
{
	return (size_t)(g->blob - g->p.h->map) + rd32(g->offsets + 4 * (size_t)i);
}

/* Node i, if an object (1): *c, its references' count as the walk
 * gives them (edges: those of the nodes before it), *at where their
 * targets start in the blob; its damage counted in nd (gather_walk's
 * reading: the walks after it read with object_again). */
static int object(const struct gcd *g, uint32_t i, uint64_t edges, struct node_damage *nd, struct clr_node *c,
		  size_t *at)
{
	uint32_t type;
	int32_t size, nch;

	if (node_at(g, i, &type, &size, &nch, at) != 0) { /* its offset's place in the file */
		damaged(&nd->lost, (size_t)(g->offsets - g->p.h->map) + 4 * (size_t)i);
		return 0;
	}
	/* the writer points every node it never defined at one record of
	 * type UNDEFINED, its first (offset 0): elsewhere, data that reads
	 * so is damaged (zeroed), whatever node it was */
	if (type == g->undefined && rd32(g->offsets + 4 * (size_t)i) != 0) {
		damaged(&nd->undef, node_data(g, i));
		nd->undef_objects += i < g->naddrs && node_addr(g, i) != 0;
		return 0;
	}
	if (type == g->undefined && i < g->naddrs && node_addr(g, i) != 0)
		damaged(&nd->at_undef, (size_t)(g->offsets - g->p.h->map) + 4 * (size_t)i);
	if (!is_object(g, i, type, size))
		return 0;
	if (type >= g->ntypes)
		damaged(&nd->type, node_data(g, i));
	if (size < 0)
		damaged(&nd->size, node_data(g, i));
	/* each child takes a byte of the blob at least, and no two nodes
	 * share bytes: more children than the blob has bytes are nodes
	 * pointing into each other's data (a damaged file) */
	if ((uint64_t)nch > g->blob_len - edges) {
		damaged(&nd->shared, node_data(g, i));
		nch = 0;
	}
	*c = (struct clr_node){ node_addr(g, i), usize(size), type, (uint64_t)nch };
	return 1;
}

/* object() once more, after gather_walk(): its objbits say which nodes are
 * objects, and an object's node decodes as it did then (the same bytes,
 * the same count before it), so only what *c and *at need is read. */
__attribute__((always_inline)) static inline int object_again(const struct gcd *g, uint32_t i, uint64_t edges,
							      struct clr_node *c, size_t *at)
{
	uint32_t type;
	int32_t size, nch;

	if (!(g->objbits[i / 64] >> (i % 64) & 1) || node_at(g, i, &type, &size, &nch, at) != 0)
		return 0;
	if ((uint64_t)nch > g->blob_len - edges)
		nch = 0;
	*c = (struct clr_node){ node_addr(g, i), usize(size), type, (uint64_t)nch };
	return 1;
}

/* A reference read at `was` that is none (rc: compressed()'s, the read
 * ended at `at`): damage, counted in bad, unless it ran past the end of
 * a file cut short there (the cut's warning tells that). */
static void bad_ref(const struct gcd *g, struct damage *bad, size_t was, size_t at, int rc)
{
	if (!(rc != 0 && at >= g->blob_len && g->p.h->truncated_at != 0))
		damaged(bad, (size_t)(g->blob - g->p.h->map) + was);
}

/* Object c's references' targets, from the blob at `at` (node i's);
 * those malformed or to no node counted in bad. */
static void targets_of(const struct gcd *g, uint32_t i, const struct clr_node *c, size_t at, uint64_t *to,
		       struct damage *bad)
{
	for (uint64_t k = 0; k < c->nedges; k++) {
		int32_t d;
		size_t was = at;
		to[k] = 0; /* 0: no object, a dangling reference */
		int rc = compressed(g->blob, g->blob_len, &at, &d);
		if (rc == 0 && (int64_t)i + d >= 0 && (int64_t)i + d < g->nnodes)
			to[k] = node_addr(g, (uint32_t)((int64_t)i + d));
		else
			bad_ref(g, bad, was, at, rc);
	}
}

static void gather_walk(struct gcd *g, clr_walk_fn fn, void *arg);

/* clr_parts' walk: the nodes that are objects, in the file's order
 * (the first walk finds them: gather_walk). */
static void gcd_walk(const struct clr_parts *p, int targets, clr_walk_fn fn, void *arg)
{
	struct gcd *g = p->src;
	uint64_t edges = 0, *to = NULL;
	size_t cap = 0, at;
	struct clr_node c;

	if (!g->gathered) {
		gather_walk(g, fn, arg);
		if (!targets)
			return;
	}
	struct damage bad = { 0, 0 };
	for (uint32_t i = 0; i < g->nnodes; i++) {
		if (!object_again(g, i, edges, &c, &at))
			continue;
		edges += c.nedges;
		if (targets && c.nedges > cap) {
			cap = c.nedges > 2 * cap ? c.nedges : 2 * cap;
			to = xreallocarray(to, cap, sizeof *to);
		}
		if (targets)
			targets_of(g, i, &c, at, to, &bad);
		fn(arg, &c, targets ? to : NULL, c.nedges);
	}
	if (targets)
		g->bad_refs = bad;
	free(to);
}

/* Node j's node as a target: its object's (given: by the objects'
 * order), else found by its address, as a walk by address would find
 * it. */
static inline node_t target_node(const struct gcd *g, const struct heap_builder *b, const node_t *given, uint32_t j)
{
	uint64_t w = g->objbits[j / 64], below = w & (((uint64_t)1 << (j % 64)) - 1);

	if (w >> (j % 64) & 1)
		return given[g->objrank[j / 64] + idindex_bits_wide(below)];
	return hb_find(b, node_addr(g, j));
}

/* Whether the nodes that are no objects are few (one in 16 at most,
 * once gather_walk has counted the objects): by_node's room for them,
 * and the builder's lookups of them by address (HB_FEW_FINDS). */
static int few_others(const struct gcd *g)
{
	return g->nnodes - g->p.nnodes <= g->p.nnodes / 16;
}

/* Every node's node as a target (target_node's), indexed by node, made
 * of *given in its place (each object's place by node at or past its
 * place by object: from the last down, none read is overwritten); NULL
 * where the nodes that are no objects are not few_others (the room
 * they would take). */
HW_WIDE static node_t *by_node(const struct gcd *g, const struct heap_builder *b, node_t **given)
{
	if (!few_others(g))
		return NULL;
	node_t *by = xreallocarray(*given, (size_t)g->nnodes + 1, sizeof *by);
	*given = by;
	for (uint32_t j = g->nnodes; j-- > 0;)
		by[j] = target_node(g, b, by, j);
	return by;
}

/* clr_parts' walk_nodes: as gcd_walk, each target the node of the
 * object at its place (target_node); through by_node's index where it
 * makes one. */
HW_WIDE static void gcd_walk_nodes(const struct clr_parts *p, const struct heap_builder *b, node_t **given,
				   clr_walk_nodes_fn fn, void *arg)
{
	struct gcd *g = p->src;
	uint64_t edges = 0, k = 0;
	size_t at;
	struct clr_node c;
	const node_t *by = by_node(g, b, given), *of = *given;
	struct damage bad = { 0, 0 };

	for (uint32_t i = 0; i < g->nnodes; i++) {
		if (!object_again(g, i, edges, &c, &at))
			continue;
		edges += c.nedges;
		node_t *to = fn(arg, by != NULL ? by[i] : of[k++], c.nedges);
		if (to == NULL)
			continue;
		for (uint64_t e = 0; e < c.nedges; e++) {
			int32_t d;
			to[e] = HW_NONE;
			size_t was = at;
			int rc = compressed(g->blob, g->blob_len, &at, &d);
			if (rc != 0 || (int64_t)i + d < 0 || (int64_t)i + d >= g->nnodes) {
				bad_ref(g, &bad, was, at, rc);
				continue;
			}
			uint32_t j = (uint32_t)((int64_t)i + d);
			to[e] = by != NULL ? by[j] : target_node(g, b, of, j);
		}
	}
	g->bad_refs = bad;
}

/* The roots: down dotnet-gcdump's groups from its root node (each group
 * once: they may be in a cycle). */
static void group_roots(struct gcd *g)
{
	struct clr_parts *p = &g->p;
	/* mapped, not malloc's: a few pages of each are touched, and freed
	 * they would raise malloc's threshold for mapping, leaving the
	 * heap's arrays in holes it keeps (big_alloc's are zeroed) */
	size_t m = (size_t)g->nnodes + 1;
	uint32_t *stack = big_alloc(m * sizeof *stack);
	uint16_t *kind = big_alloc(m * sizeof *kind);
	uint32_t *name = big_alloc(m * sizeof *name);
	uint8_t *seen = big_alloc(m);
	size_t sp = 0;
	if (g->root < g->nnodes) {
		stack[sp++] = g->root;
		kind[g->root] = CLR_ROOT_OTHER;
		name[g->root] = 0;
		seen[g->root] = 1;
	}
	while (sp > 0) {
		uint32_t i = stack[--sp], type;
		int32_t size, nch;
		size_t at;
		if (node_at(g, i, &type, &size, &nch, &at) != 0)
			continue;
		if (is_object(g, i, type, size)) { /* the root node an object: a root of its own */
			VEC_GROW(p->roots, p->nroots, p->croots);
			p->roots[p->nroots++] = (struct clr_root){ node_addr(g, i), kind[i], name[i] };
			continue;
		}
		if (p->nroots + (uint64_t)nch > g->blob_len) /* as for references: overlapping data */
			continue;
		for (int32_t k = 0; k < nch; k++) {
			int32_t d;
			if (compressed(g->blob, g->blob_len, &at, &d) != 0)
				break;
			int64_t c = (int64_t)i + d;
			uint32_t ct;
			int32_t cs, cn;
			size_t cat;
			if (c < 0 || c >= g->nnodes || node_at(g, (uint32_t)c, &ct, &cs, &cn, &cat) != 0)
				continue;
			if (is_object(g, (uint32_t)c, ct, cs)) {
				VEC_GROW(p->roots, p->nroots, p->croots);
				p->roots[p->nroots++] = (struct clr_root){ node_addr(g, (uint32_t)c), kind[i], name[i] };
				continue;
			}
			if (seen[c] || ct == g->undefined || ct >= g->ntypes)
				continue;
			const char *gn = heap_str(p->h, g->type_name[ct]);
			seen[c] = 1;
			kind[c] = group_kind(gn, kind[i]);
			name[c] = name[i];
			size_t len = strlen(gn);
			if (strncmp(gn, "[static var ", 12) == 0 && len > 13 && gn[len - 1] == ']') {
				/* "[static var Type.field]": the field's name (the type
				 * is the value's, not the one declaring it) */
				const char *f = gn + len - 1;
				while (f > gn + 12 && f[-1] != '.')
					f--;
				kind[c] = CLR_ROOT_STATIC;
				name[c] = names_intern(&p->nt, f, (size_t)(gn + len - 1 - f)) + 1;
			}
			stack[sp++] = (uint32_t)c;
		}
	}
	big_free(stack, m * sizeof *stack);
	big_free(kind, m * sizeof *kind);
	big_free(name, m * sizeof *name);
	big_free(seen, m);
}

/* The bytes of the nodes' data that are no node's: the data less the
 * records the offsets point at (the undefined record once), each read
 * whole. The writer's records fill the data, one after another, each
 * once: none are left unless offsets are damaged. */
static size_t data_unowned(const struct gcd *g)
{
	size_t owned = 0;
	int undef = 0;

	for (uint32_t i = 0; i < g->nnodes; i++) {
		size_t from = rd32(g->offsets + 4 * (size_t)i), at;
		uint32_t type;
		int32_t size, nch, d;
		if ((from == 0 && undef++) || node_at(g, i, &type, &size, &nch, &at) != 0)
			continue;
		for (int32_t k = 0; k < nch && compressed(g->blob, g->blob_len, &at, &d) == 0; k++)
			;
		owned += at - from;
	}
	return owned < g->blob_len ? g->blob_len - owned : 0;
}

/* The nodes' damage, said once they are all read. */
static void say_node_damage(const struct gcd *g, const struct node_damage *nd)
{
	char what[224];

	snprintf(what, sizeof what, "of the %u nodes lie past the end of the file or are malformed; left out",
		 g->nnodes);
	say_damage(g->p.h, &nd->lost, what);
	say_damage(g->p.h, &nd->shared, "nodes claim more references than the file's node data can hold (their data "
		   "overlaps others'); their references are left out");
	snprintf(what, sizeof what, "objects of a type past the graph's %u; named by its index", g->ntypes);
	say_damage(g->p.h, &nd->type, what);
	say_damage(g->p.h, &nd->size, "objects of a negative size; counted as 0");
	snprintf(what, sizeof what, "nodes (%llu of them objects, by their address) read as of type UNDEFINED away "
		 "from the graph's undefined record: damaged data; left out", (unsigned long long)nd->undef_objects);
	say_damage(g->p.h, &nd->undef, what);
	/* nodes with an address at the undefined record: an extra walk of
	 * the nodes tells whether there are records no offset points at, as
	 * a damaged (zeroed) offset table leaves, or none (an address the
	 * writer was given as a reference's target and never defined). Not
	 * where the nodes' data is damaged already: bytes that damage leaves
	 * unread are no sign of the offsets' (that damage is said above) */
	int other = nd->lost.n || nd->shared.n || nd->type.n || nd->size.n || nd->undef.n;
	size_t unowned = nd->at_undef.n > 0 && !other ? data_unowned(g) : 0;
	if (unowned > 0) {
		snprintf(what, sizeof what, "nodes with an address point at the graph's undefined record, while %zu bytes "
			 "of the nodes' data are no node's, as a damaged offset table leaves them: up to %llu objects "
			 "lost", unowned, (unsigned long long)nd->at_undef.n);
		say_damage(g->p.h, &nd->at_undef, what);
	}
}

static void no_object(void *arg, const struct clr_node *c, const uint64_t *to, size_t n)
{
	(void)arg, (void)c, (void)to, (void)n;
}

/* Whether the graph has an object: the first found; where there is
 * none, every node read as the first walk reads them (gather_walk), and
 * their damage said. */
static int any_object(struct gcd *g)
{
	for (uint32_t i = 0; i < g->nnodes; i++) {
		uint32_t type;
		int32_t size, nch;
		size_t at;
		if (node_at(g, i, &type, &size, &nch, &at) == 0 && is_object(g, i, type, size))
			return 1;
	}
	gather_walk(g, no_object, NULL);
	return 0;
}

/* The first walk of the objects (clr_build's, as they are given): each
 * node read whole, which are objects kept (objbits, objrank) for the
 * walks after it, the objects and their references counted (p->nnodes
 * was the nodes', a bound of them, for the builder's room), and the
 * nodes' damage said once they are all read. */
static void gather_walk(struct gcd *g, clr_walk_fn fn, void *arg)
{
	struct clr_parts *p = &g->p;
	struct node_damage nd = { { 0, 0 }, { 0, 0 }, { 0, 0 }, { 0, 0 }, { 0, 0 }, 0, { 0, 0 } };
	size_t words = (size_t)g->nnodes / 64 + 1;
	g->objbits = xcalloc(words, sizeof *g->objbits);
	g->objrank = xcalloc(words, sizeof *g->objrank);
	p->nnodes = 0;
	p->nedges = 0;
	progress_begin(g->pr, "objects", g->nnodes, "objects");
	for (uint32_t i = 0; i < g->nnodes; i++) {
		if ((i & 0xffff) == 0)
			progress_update(g->pr, i);
		if (i % 64 == 0)
			g->objrank[i / 64] = (uint32_t)p->nnodes;
		struct clr_node c;
		size_t at;
		if (object(g, i, p->nedges, &nd, &c, &at)) {
			g->objbits[i / 64] |= (uint64_t)1 << (i % 64);
			p->nnodes++;
			p->nedges += c.nedges;
			fn(arg, &c, NULL, c.nedges);
		}
	}
	progress_end(g->pr);
	g->gathered = 1;
	/* the targets that are no objects are looked up once each, by
	 * by_node: no index of the ids is worth its making */
	p->few_finds = few_others(g);
	say_node_damage(g, &nd);
}


/* Skip a Graph's deferred region: a forward reference whose place the
 * file's forward-reference table (found from its last 4 bytes) holds. */
static int skip_deferred(struct cur *c)
{
	int32_t idx = get32(c);

	if (c->cut || c->n < 4 || idx < 0)
		return -1;
	uint32_t trailer = rd32(c->b + c->n - 4);
	if ((uint64_t)trailer + 4 > c->n)
		return -1;
	uint32_t table = rd32(c->b + trailer);
	if ((uint64_t)table + 4 > c->n)
		return -1;
	uint32_t count = rd32(c->b + table);
	if ((uint32_t)idx >= count || (uint64_t)table + 4 + 4 * ((uint64_t)idx + 1) > c->n)
		return -1;
	uint32_t to = rd32(c->b + table + 4 + 4 * (size_t)idx);
	if (to > c->n || to < c->pos)
		return -1;
	c->pos = to;
	return 0;
}

/* Does the file end as FastSerialization ends one? An unbalanced
 * EndObject tag, the table of forward references (a count and an
 * offset each), the trailer (the table's offset, maybe more), and the
 * trailer's offset in the last 4 bytes. Every .gcdump has them, cut
 * short it has not (nor anything else at the end). */
static int closed(const struct cur *c)
{
	if (c->n < 13)
		return 0;
	uint64_t trailer = rd32(c->b + c->n - 4);
	if (trailer + 8 > c->n)
		return 0;
	uint64_t table = rd32(c->b + trailer);
	if (table < 1 || table + 4 > trailer || c->b[table - 1] != TAG_END)
		return 0;
	return table + 4 + 4 * (uint64_t)rd32(c->b + table) <= trailer;
}

/* The addresses after the nodes' data: as many as there are nodes (a
 * count that differs is damage: the nodes' own count wins). NULL, or
 * "the addresses" if the file ends inside them. */
static const char *read_addrs(struct gcd *g, struct cur *c)
{
	struct heap *h = g->p.h;
	size_t at = c->pos;
	int32_t na = get32(c);

	g->addrs = c->b + c->pos;
	if (c->cut)
		return "the addresses";
	if ((uint32_t)na != g->nnodes) {
		warn_add(&h->warn, "%s: offset %zu: %d addresses for the graph's %u nodes; %u read", h->path, at, na,
			 g->nnodes, g->nnodes);
	}
	g->naddrs = g->nnodes;
	if ((uint64_t)g->naddrs * 8 > c->n - c->pos) {
		g->naddrs = (uint32_t)((c->n - c->pos) / 8);
		c->pos = c->n;
		return "the addresses";
	}
	c->pos += (size_t)g->naddrs * 8;
	return NULL;
}

/* The nodes' offsets, the blob and the addresses: what the file has of
 * them (a cut file opens as far as it goes, with a warning; damage gets
 * one of its own). NULL, or what the file ends inside. */
static const char *read_arrays(struct gcd *g, struct cur *c, int32_t gmv)
{
	struct heap *h = g->p.h;
	const char *cut_in = NULL;

	g->offsets = c->b + c->pos;
	if ((uint64_t)g->nnodes * 4 > c->n - c->pos) {
		g->nnodes = (uint32_t)((c->n - c->pos) / 4);
		cut_in = "the nodes' offsets";
		c->pos = c->n;
	} else {
		c->pos += (size_t)g->nnodes * 4;
	}
	size_t at = c->pos;
	int32_t bl = get32(c);
	g->blob = c->b + c->pos;
	if (cut_in == NULL && !c->cut && bl < 0) { /* damage: its end unknown, the rest taken */
		warn_add(&h->warn, "%s: offset %zu: the nodes' data of a negative length (%d): the rest of the file "
			 "taken for it, the nodes' addresses lost", h->path, at, bl);
		g->blob_len = c->n - c->pos;
		return "the nodes' data";
	}
	if (cut_in == NULL && (c->cut || (uint64_t)bl > c->n - c->pos)) {
		cut_in = "the nodes' data";
		g->blob_len = c->n - c->pos;
		c->pos = c->n;
	} else if (cut_in == NULL) {
		g->blob_len = (size_t)bl;
		c->pos += (size_t)bl;
	}
	if (cut_in == NULL && gmv >= 1 && skip_deferred(c) != 0)
		cut_in = "the graph's deferred types";
	if (cut_in == NULL)
		cut_in = read_addrs(g, c);
	if (cut_in != NULL) {
		h->truncated_at = h->size;
		warn_add(&h->warn, "%s: offset %zu: the file ends inside %s: %u of the graph's nodes have their "
			 "address; opened as far as it goes", h->path, (size_t)h->size, cut_in, g->naddrs);
	}
	return cut_in;
}

/* A multiplier after the graph (sampled count * multiplier = the heap's
 * count): 1 where the writer kept every object, as dotnet-gcdump does;
 * more where it kept a sample (PerfView's HeapDump does past a number
 * of objects), the most kept with its offset; anything else is damage
 * (the first kept). */
static void multiplier(struct gcd *g, size_t at, float f)
{
	if (f == 1)
		return;
	if (f > 1 && f < 1e30f) {
		if (f > g->sampled) {
			g->sampled = f;
			g->sampled_at = at;
		}
	} else if (g->odd_mult_at == 0) { /* 0, below 1, NaN, infinite */
		g->odd_mult = f;
		g->odd_mult_at = at;
	}
}

/* After the graph: the time the dump was taken and the generations'
 * segments, when the file has them (PerfView's; dotnet-gcdump leaves
 * both out). Best effort: a file that differs keeps its graph. 0, or -1
 * where it is damaged or cut (c->pos). */
static int after_graph(struct gcd *g, struct cur *c, int32_t version, struct sbuf *name)
{
	struct heap *h = g->p.h;
	int32_t v, mv;

	if (version < 9)
		return 0;
	get8(c); /* Is64Bit */
	for (int k = 0; k < 2; k++) { /* the count's and the size's multiplier */
		size_t at = c->pos;
		float f = getf(c);
		if (!c->cut)
			multiplier(g, at, f);
	}
	int js = begin_object(c, "JSHeapInfo", &v, &mv, name);
	if (js < 0 || (js == 1 && get8(c) != TAG_END))
		return -1;
	int dn = begin_object(c, "DotNetHeapInfo", &v, &mv, name);
	if (dn < 0)
		return -1;
	if (dn == 1) {
		get64(c); /* the size of all segments */
		int32_t n = get32(c);
		for (int32_t i = 0; i < n && !c->cut; i++) {
			int32_t sv;
			if (begin_object(c, "GCHeapDumpSegment", &sv, &mv, name) != 1)
				return -1;
			uint64_t s[7] = { 0 };
			for (int k = 0; k < (sv >= 1 ? 7 : 6); k++)
				s[k] = get64(c);
			if (get8(c) != TAG_END)
				return -1;
			/* {start, end, gen0..4 end}: the one generation set is
			 * the segment's (PerfView makes one per range) */
			for (int k = 0; k < 5; k++)
				if (s[2 + k] != 0 && s[1] > s[0]) {
					VEC_GROW(g->p.ranges, g->p.nranges, g->p.cranges);
					g->p.ranges[g->p.nranges++] = (struct clr_range){ s[0], s[1] - s[0], (uint8_t)k };
					break;
				}
		}
		if (get8(c) != TAG_END)
			return -1;
	}
	if (get_str(c, name) < 0 && c->cut) /* the collection log */
		return -1;
	uint64_t ticks = get64(c);
	if (!c->cut && ticks > TICKS_1970)
		h->timestamp_ms = (ticks - TICKS_1970) / 10000;
	/* the machine's and the process's names, its id, commit and working
	 * set, then the multipliers by type (PerfView's sampling keeps the
	 * big objects and the paths to them, so each type has its own) */
	for (int k = 0; k < 2; k++)
		if (get_str(c, name) < 0 && c->cut)
			return -1;
	uint32_t pid = get32(c);
	if (!c->cut)
		g->pid = pid;
	get64(c);
	get64(c);
	int32_t nt = get32(c);
	for (int32_t i = 0; i < nt && !c->cut; i++) {
		size_t at = c->pos;
		float f = getf(c);
		if (!c->cut)
			multiplier(g, at, f);
	}
	return c->cut ? -1 : 0;
}

static int gcd_probe(const uint8_t *head, size_t n)
{
	return head != NULL && n >= 24 && rd32(head) == 20 && memcmp(head + 4, MAGIC, 20) == 0;
}

/* The entry object: a GCHeapDump of a version read here; its version,
 * or -1 with err. */
static int32_t entry(struct heap *h, struct cur *c, struct sbuf *name, struct sbuf *err)
{
	int32_t version = 0, mv;
	char *ep = esc_str(h->path);

	c->pos = 24;
	if (!gcd_probe(h->map, h->size)) {
		sbuf_printf(err, "%s: offset 0: not a .gcdump (no \"!FastSerialization.1\" header)", ep);
		version = -1;
	} else if (begin_object(c, "GCHeapDump", &version, &mv, name) != 1) {
		char *en = esc_str(name->buf);
		if (c->cut)
			sbuf_printf(err, "%s: offset %zu: not a .gcdump: the file ends inside its first object", ep, c->n);
		else if (name->len > 0)
			sbuf_printf(err, "%s: offset 24: not a .gcdump: the file holds a %s object, no GCHeapDump", ep, en);
		else
			sbuf_printf(err, "%s: offset 24: not a .gcdump: no object where its GCHeapDump starts", ep);
		free(en);
		version = -1;
	} else if (version < 4 || version == 8) {
		sbuf_printf(err, "%s: offset 24: GCHeapDump version %d, which heapwalk does not read (4 to 7, and 9 on)",
			    ep, version);
		version = -1;
	}
	free(ep);
	return version;
}

static int gcd_header(struct heap *h, struct sbuf *err)
{
	struct cur c = { h->map, h->size, 0, 0, 0, 0 };
	struct sbuf name;

	sbuf_init(&name);
	int32_t version = entry(h, &c, &name, err);
	sbuf_free(&name);
	if (version < 0)
		return -1;
	snprintf(h->version, sizeof h->version, ".NET heap (gcdump)");
	h->layout.idsize = 8;
	return 0;
}

/* " (Bytes > 10K)": dotnet-gcdump's mark of a big array, cut so that
 * its class is the type's. */
static size_t name_len(const char *s)
{
	size_t n = strlen(s);
	const char *p = n > 0 && s[n - 1] == ')' ? strstr(s, " (Bytes > ") : NULL;

	return p != NULL ? (size_t)(p - s) : n;
}

static int gcd_parse(struct heap *h, struct progress *pr, struct sbuf *err)
{
	struct gcd g = { .p = { .h = h, .nt = { .h = h }, .walk = gcd_walk, .walk_nodes = gcd_walk_nodes },
			 .undefined = UINT32_MAX };

	g.p.src = &g;
	struct cur c = { h->map, h->size, 0, 0, 0, 0 };
	struct sbuf name;
	int32_t version, gv, gmv;
	int rc = -1;
	char *ep = esc_str(h->path);

	heap_map_populate(h); /* every page is read (the nodes' data twice, at random) */
	if (h->cache_file != NULL && h->file_map == NULL) { /* the content hash (--verify-cache) from the pages made */
		h->content = store_hash(h->map, (size_t)h->size, 0);
		h->content_known = 1;
	}
	sbuf_init(&name);
	version = entry(h, &c, &name, err);
	if (version < 0)
		goto out;
	size_t at = c.pos;
	if (begin_object(&c, "Graphs.MemoryGraph", &gv, &gmv, &name) != 1) {
		sbuf_printf(err, "%s: offset %zu: the GCHeapDump holds no MemoryGraph", ep, at);
		goto out;
	}
	get64(&c); /* the nodes' total size */
	size_t root_at = c.pos;
	g.root = (uint32_t)get32(&c);
	int32_t n = get32(&c);
	if (c.cut || n < 0) {
		sbuf_printf(err, "%s: offset %zu: %s", ep, c.pos,
			    c.cut ? "the file ends inside the graph's header" : "a negative type count");
		goto out;
	}
	/* the types: a name (its " (Bytes > 10K)" cut) and the size of its
	 * first node; at least 12 bytes each, so no more than the file has
	 * room for are allocated */
	size_t room = (c.n - c.pos) / 12 + 1;
	g.ntypes = (uint32_t)n;
	g.type_name = xmalloc(((size_t)n < room ? (size_t)n + 1 : room) * sizeof *g.type_name);
	g.type_size = xmalloc(((size_t)n < room ? (size_t)n + 1 : room) * sizeof *g.type_size);
	g.p.types = xmalloc(((size_t)n < room ? (size_t)n + 1 : room) * sizeof *g.p.types);
	g.p.ctypes = (size_t)n < room ? (size_t)n + 1 : room;
	uint32_t unnamed = 0, real = 0;
	size_t types_at = c.pos;
	for (int32_t i = 0; i < n; i++) {
		at = c.pos;
		int null_name = get_str(&c, &name) != 0;
		/* dotnet-gcdump's name for a type the runtime did not name;
		 * of the types not its own ("[static vars]") */
		if (!null_name && !c.cut && name.buf[0] != '[' && strcmp(name.buf, "UNDEFINED") != 0) {
			real++;
			unnamed += strncmp(name.buf, "UNKNOWN 0x", 10) == 0;
		}
		uint32_t nm = c.cut ? 0 : names_intern(&g.p.nt, null_name ? "" : name.buf, null_name ? 0 : name_len(name.buf));
		int32_t size = get32(&c);
		get_str(&c, &name); /* the module's path: its file's name kept */
		if (c.cut && c.str_len > 0 && c.str_at <= c.n - 4 && (size_t)c.str_len > c.n - c.str_at - 4) {
			/* a length no file of this size holds (a character a
			 * byte at least): cut there, or a damaged length */
			sbuf_printf(err, "%s: offset %zu: the graph's types run past the end of the file (%d of %d read): "
				    "the string at offset %zu is of %d characters, and %zu bytes are left: the file is "
				    "cut short or damaged there", ep, at, i, n, c.str_at, c.str_len, c.n - c.str_at - 4);
			goto out;
		}
		if (c.cut) {
			sbuf_printf(err, "%s: offset %zu: the file ends inside the graph's types (%d of %d read)", ep, at,
				    i, n);
			goto out;
		}
		g.type_size[i] = size;
		g.type_name[i] = nm;
		g.p.types[g.p.ntypes++] = (struct clr_type){ (uint64_t)i, clr_module_name(&g.p.nt, name.buf), nm, 0, 0 };
		if (g.undefined == UINT32_MAX && strcmp(heap_str(h, nm), "UNDEFINED") == 0)
			g.undefined = (uint32_t)i;
	}
	/* nine in ten of the types unnamed: a runtime that sent no type
	 * names (another session, such as heapwalk's mark recorder, had
	 * asked for its events) */
	if (unnamed > 0 && (uint64_t)unnamed * 10 >= (uint64_t)real * 9)
		warn_add(&h->warn, "%s: offset %zu: %u of the graph's %u types have no name (\"UNKNOWN 0x...\": the "
			 "runtime did not say them, as when another session listens to it): classes are told by "
			 "their type handles only, and no class matches another dump's by name", h->path,
			 types_at, unnamed, real);
	clr_by_module(&g.p); /* "[]c" of two modules two classes */
	for (uint32_t i = 0; i < g.p.ntypes; i++)
		g.type_name[i] = g.p.types[i].name;
	at = c.pos;
	n = get32(&c);
	if (c.cut || n < 0) {
		sbuf_printf(err, "%s: offset %zu: %s", ep, at,
			    c.cut ? "the file ends before the graph's nodes" : "a negative node count");
		goto out;
	}
	g.nnodes = (uint32_t)n;
	const char *cut_in = read_arrays(&g, &c, gmv);
	if (cut_in == NULL && g.root >= g.nnodes)
		warn_add(&h->warn, "%s: offset %zu: root node %u, past the graph's %u nodes: no roots", h->path, root_at,
			 g.root, g.nnodes);
	/* MemoryGraph's tagged Is64Bit and its end, then GCHeapDump's fields */
	if (cut_in == NULL && get8(&c) == TAG_BYTE) {
		get8(&c);
		if (get8(&c) == TAG_END && after_graph(&g, &c, version, &name) < 0)
			warn_add(&h->warn, "%s: offset %zu: what follows the graph (the heap's segments, the time of the "
				 "dump) is damaged or cut short; the rest of it left out", h->path, c.pos);
	}
	if (g.sampled > 0)
		warn_add(&h->warn, "%s: offset %zu: the dump holds a sample of the heap, not all of it (its writer kept "
			 "as few as one object in %.4g): every count and size here is of the objects kept", h->path,
			 g.sampled_at, (double)g.sampled);
	if (g.odd_mult_at > 0)
		warn_add(&h->warn, "%s: offset %zu: a sampling multiplier of %g, which is none (1 for every object, "
			 "more for a sample): taken as 1", h->path, g.odd_mult_at, (double)g.odd_mult);
	if (cut_in == NULL && !closed(&c))
		warn_add(&h->warn, "%s: offset %zu: the file does not end as a .gcdump does (with FastSerialization's "
			 "table of forward references): cut short or damaged after the graph, which is read whole",
			 h->path, (size_t)h->size);
	/* the roots first: the objects are found as clr_build walks them
	 * (gather_walk); until then their count is bounded by the nodes' */
	group_roots(&g);
	g.pr = pr;
	g.p.nnodes = any_object(&g) ? g.nnodes : 0;
	if (g.p.nnodes == 0) {
		if (cut_in != NULL)
			sbuf_printf(err, "%s: offset %zu: the file ends inside %s, before any object's data", ep, h->size,
				    cut_in);
		else
			sbuf_printf(err, "%s: offset %zu: no objects in the graph", ep, at);
		goto out;
	}
	clr_build(&g.p);
	say_damage(h, &g.bad_refs, "references malformed or to no node of the graph (damaged data); left dangling");
	((struct clr_data *)h->fmt_data)->pid = g.pid;
	rc = 0;
out:
	clr_parts_free(&g.p);
	free(g.objbits);
	free(g.objrank);
	free(g.type_name);
	free(g.type_size);
	sbuf_free(&name);
	free(ep);
	return rc;
}

const struct format_ops gcdump_format = {
	.name = "gcdump",
	.title = ".NET (gcdump)",
	.label = "dotnet-gcdump's .gcdump",
	.runtime = "clr",
	.rt = &clr_runtime,
	.name_key = clr_spelt_alike,
	.name_base = clr_name_base,
	.cacheable = 1,
	.data_arrays = clr_data_arrays,
	.data_loaded = clr_data_loaded,
	.needs = HP_OUT | HP_CLASS | HP_KIND | HP_IDS,
	.probe = gcd_probe,
	.header = gcd_header,
	.parse = gcd_parse,
	.fields = clr_fields,
	.edge_label = clr_edge_label,
	.root_natives = clr_root_natives,
	.nroot_natives = CLR_ROOT_COUNT,
	.root_detail = clr_root_detail,
	.gen_name = clr_gen_name,
	.gen_told = "dotnet-gcdump's .gcdump files do not; a .NET trace recorded with the runtime's keyword "
		    "0x400000 does, as heapwalk snapshot records",
	.free_data = clr_free_data,
	.may_grow = heap_never_grows,
	.run_key = clr_run_key,
};
