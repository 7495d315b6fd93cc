/* v8.c — V8 heap snapshots (.heapsnapshot) into the heap model.
 *
 * v8_json.c reads the JSON into column arrays; this file makes the
 * heap of them, with DevTools' semantics (../shared/docs/formats/v8.md):
 *
 *   - the snapshot's root node is the engine's virtual root: its edges
 *     are the GC roots ("(GC roots)", the global object through a
 *     shortcut edge, the embedder's roots);
 *   - nodes are sorted by id, as every reader's are (V8's ids are stable
 *     within a process, so old/new against a baseline is exact);
 *   - weak edges do not retain (they are the heap's weak references),
 *     shortcut edges retain only from the root (elsewhere they are
 *     dropped);
 *   - classes aggregate as DevTools' Summary does: objects and natives
 *     by name ("Detached " for detached natives), hidden nodes
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
#include "graph/classes.h"
#include "graph/reader.h"

#define V8_NAME_MAX 1000 /* bytes of a class name taken from a node name */

/* V8's edge and node types as this file knows them; the snapshot's
 * meta gives their numbers (v8_data.et_*, nt_*). */
struct v8_data {
	uint64_t *str_off;   /* offset of each string in the file */
	uint32_t nstr;
	char **edge_types;   /* meta's names, for labels */
	unsigned n_edge_types;
	char **node_types;
	unsigned n_node_types;
	int et_element, et_hidden, et_weak, et_shortcut, et_internal;
	int nt_string, nt_cons, nt_sliced, nt_object, nt_native, nt_array;
	uint32_t *node_name; /* per node: string index of its name */
	uint8_t *node_type;  /* per node: index into node_types */
	uint32_t *out_name;  /* per strong edge (h->out): string or element index */
	uint8_t *out_type;   /* per strong edge: index into edge_types */
	uint32_t *weak_name; /* per weak edge (h->weak_*) */
	uint8_t *weak_type;
	uint32_t *node_trace; /* per node: its trace_node_id; NULL without allocation tracking */
};

enum { RK_V8_GC = 0x200, RK_V8_USER = 0x201, RK_V8_EMBEDDER = 0x202 };

static int type_index(char **names, unsigned n, const char *want)
{
	for (unsigned i = 0; i < n; i++)
		if (names[i] != NULL && strcmp(names[i], want) == 0)
			return (int)i;
	return -1;
}

/* String i of the snapshot as the file has it: its bytes after the
 * opening quote (*n of them to the end of the file), NULL if none. */
static const uint8_t *raw_str(const struct heap *h, uint32_t i, uint64_t *n)
{
	const struct v8_data *d = h->fmt_data;
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
	const struct v8_data *d = h->fmt_data;

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
	uint32_t cls_cap;
	/* names offset -> class index, open addressing */
	uint32_t *mkey, *mval;
	size_t mcap, mused;
	uint32_t *cls_of_str;      /* object/native names: string index -> class */
	uint32_t cls_of_type[256]; /* other types: type -> class */
};

static void map_grow(struct v8b *b)
{
	size_t cap = b->mcap ? b->mcap * 2 : 1024;
	uint32_t *key = xmalloc(cap * sizeof *key), *val = xmalloc(cap * sizeof *val);

	memset(key, 0xff, cap * sizeof *key);
	for (size_t i = 0; i < b->mcap; i++)
		if (b->mkey[i] != HW_NONE) {
			size_t j = (b->mkey[i] * 2654435761u) & (cap - 1);
			while (key[j] != HW_NONE)
				j = (j + 1) & (cap - 1);
			key[j] = b->mkey[i];
			val[j] = b->mval[i];
		}
	free(b->mkey);
	free(b->mval);
	b->mkey = key;
	b->mval = val;
	b->mcap = cap;
}

/* The class named `name` (an offset into h->names), made on first use. */
static uint32_t class_named(struct v8b *b, uint32_t name)
{
	struct heap *h = b->h;

	if (b->mused * 2 >= b->mcap)
		map_grow(b);
	size_t j = (name * 2654435761u) & (b->mcap - 1);
	for (; b->mkey[j] != HW_NONE; j = (j + 1) & (b->mcap - 1))
		if (b->mkey[j] == name)
			return b->mval[j];
	VEC_GROW(h->cls, h->ncls, b->cls_cap);
	uint32_t c = h->ncls++;
	h->cls[c] = (struct hclass){ .node = HW_NONE, .name = name, .super = HW_NONE,
				     .referent_off = HW_NONE };
	b->mkey[j] = name;
	b->mval[j] = c;
	b->mused++;
	return c;
}

static uint32_t class_text(struct v8b *b, const char *text, size_t len)
{
	return class_named(b, names_intern(&b->nt, text, len));
}

/* Snapshot node `o`'s class, by DevTools' aggregation. */
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

	if (by_name && !detached && name < s->nstr && b->cls_of_str[name] != HW_NONE)
		return b->cls_of_str[name];
	if (!by_name && b->cls_of_type[t] != HW_NONE)
		return b->cls_of_type[t];
	sbuf_init(&sb);
	if (by_name) {
		if (detached)
			sbuf_adds(&sb, "Detached ");
		if (v8_str(b->h, name, &sb, V8_NAME_MAX) < 0)
			sbuf_adds(&sb, "<?>");
	} else {
		const char *tn = t < d->n_node_types ? d->node_types[t] : NULL;
		sbuf_printf(&sb, "(%s)", tn == NULL ? "unknown" : strcmp(tn, "hidden") == 0 ? "system"
			    : strcmp(tn, "code") == 0 ? "compiled code" : tn);
	}
	c = class_text(b, sb.buf, sb.len);
	sbuf_free(&sb);
	if (by_name && !detached && name < s->nstr)
		b->cls_of_str[name] = c;
	else if (!by_name)
		b->cls_of_type[t] = c;
	return c;
}

/* ---- nodes: sorted by id ---- */

/* Sort ords[0..n) by keys (LSD radix, 11 bits a pass, only the passes
 * the largest key needs). */
static void radix_by_key(uint64_t *keys, uint32_t *ords, size_t n)
{
	uint64_t max = 0;
	uint64_t *k2 = xmalloc((n + 1) * sizeof *k2);
	uint32_t *o2 = xmalloc((n + 1) * sizeof *o2);
	size_t cnt[2048];

	for (size_t i = 0; i < n; i++)
		max |= keys[i];
	uint64_t *ks = keys, *kd = k2;
	uint32_t *os = ords, *od = o2;
	for (unsigned sh = 0; sh < 64 && (max >> sh) != 0; sh += 11) {
		memset(cnt, 0, sizeof cnt);
		for (size_t i = 0; i < n; i++)
			cnt[ks[i] >> sh & 2047]++;
		size_t sum = 0;
		for (size_t i = 0; i < 2048; i++) {
			size_t c = cnt[i];
			cnt[i] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++) {
			size_t at = cnt[ks[i] >> sh & 2047]++;
			kd[at] = ks[i];
			od[at] = os[i];
		}
		uint64_t *kt = ks;
		uint32_t *ot = os;
		ks = kd, kd = kt;
		os = od, od = ot;
	}
	if (ks != keys) { /* an odd number of passes */
		memcpy(keys, ks, n * sizeof *keys);
		memcpy(ords, os, n * sizeof *ords);
	}
	free(k2);
	free(o2);
}

/* Node v of the heap is snapshot node n2o[v]; o2n the other way (the
 * root is node 0). The ids are sorted where the heap keeps them, and
 * the snapshot's column of ids goes before the heap's others come. */
static void make_nodes(struct v8b *b, uint32_t *n2o, uint32_t *o2n)
{
	struct heap *h = b->h;
	struct v8_snap *s = b->s;
	uint32_t root = (uint32_t)s->root_index;
	size_t n = 0;
	h->node_id = xmalloc(((size_t)s->nnodes + 1) * sizeof *h->node_id);
	uint64_t *keys = h->node_id + 1;

	for (uint32_t o = 0; o < s->nnodes; o++)
		if (o != root) {
			keys[n] = s->nid[o];
			n2o[1 + n++] = o;
		}
	free(s->nid);
	s->nid = NULL;
	radix_by_key(keys, n2o + 1, n);
	h->n = (node_t)n + 1;
	h->node_class = xmalloc((n + 1) * sizeof *h->node_class);
	h->node_shallow = xmalloc((n + 1) * sizeof *h->node_shallow);
	h->node_kind = xmalloc(n + 1);
	b->d->node_name = xmalloc((n + 1) * sizeof *b->d->node_name);
	b->d->node_type = xmalloc(n + 1);
	h->node_id[0] = 0;
	h->node_class[0] = HW_NONE;
	h->node_shallow[0] = 0;
	h->node_kind[0] = NK_ROOT;
	b->d->node_name[0] = HW_NONE;
	b->d->node_type[0] = UINT8_MAX;
	o2n[root] = 0;
	size_t dup = 0;
	for (node_t v = 1; v < h->n; v++) {
		uint32_t o = n2o[v];
		o2n[o] = v;
		if (v > 1 && h->node_id[v] == h->node_id[v - 1] && dup++ < 3)
			warn_add(&h->warn, "%s: node %u: id %llu twice; a search by id finds one of them",
				 h->path, o, (unsigned long long)h->node_id[v]);
		uint32_t c = node_class(b, o);
		h->node_class[v] = c;
		h->node_shallow[v] = s->nsize[o];
		h->cls[c].count++;
		h->cls[c].shallow_total += s->nsize[o];
		h->total_shallow += s->nsize[o];
		h->node_kind[v] = NK_INSTANCE;
		b->d->node_name[v] = s->nname[o];
		b->d->node_type[v] = s->ntype[o];
		if (b->d->node_trace != NULL)
			b->d->node_trace[v] = s->ntrace[o];
	}
}

/* ---- allocation stacks (node --track-heap-objects) ---- */

#define TRACE_DEPTH_MAX 256          /* frames kept of a stack, the allocating ones */
#define TRACE_FRAMES_MAX (1u << 25)  /* frames kept of all stacks */

static int tracking(const struct v8_snap *s)
{
	return s->ntrace != NULL && s->n_tt > 0 && s->n_tfi > 0 && s->tt_id >= 0 && s->tt_fi >= 0 &&
	       s->tfi_name >= 0 && (unsigned)s->tt_id + 1 < s->tt_fields &&
	       (unsigned)s->tt_fi + 1 < s->tt_fields && (unsigned)s->tfi_name < s->tfi_fields;
}

static uint32_t intern_str(struct v8b *b, uint32_t i, const char *dflt)
{
	struct sbuf sb;
	uint32_t off;

	sbuf_init(&sb);
	if (i == HW_NONE || v8_str(b->h, i, &sb, V8_NAME_MAX) < 0 || sb.len == 0) {
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

static void root_edge(struct v8b *b, uint32_t e, node_t t, struct root *out)
{
	const struct v8_snap *s = b->s;
	uint16_t kind = RK_V8_EMBEDDER;
	struct sbuf sb;

	if (s->etype[e] == b->d->et_shortcut) {
		kind = RK_V8_USER;
	} else {
		sbuf_init(&sb);
		if (v8_str(b->h, b->d->node_name[t], &sb, 64) == 0 && strcmp(sb.buf, "(GC roots)") == 0)
			kind = RK_V8_GC;
		sbuf_free(&sb);
	}
	*out = (struct root){ t, kind, 0, HW_NONE };
}

static int cmp_rootrec(const void *x, const void *y)
{
	const struct root *a = x, *b = y;

	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	return a->kind < b->kind ? -1 : a->kind > b->kind;
}

struct sedge { node_t to; uint32_t name; uint8_t type; };

#define SMALL_RUN 32 /* edges a node has, up to which they are sorted in place */

static int cmp_sedge(const void *x, const void *y, void *ctx)
{
	const struct sedge *a = x, *b = y;

	(void)ctx;
	return a->to < b->to ? -1 : a->to > b->to;
}

/* A node's n edges (their targets, names and types, three parallel
 * arrays) in target order, equal targets in their order: the order the
 * dominator pass leaves out[] in (it rebuilds it from in[]), so that the
 * names stay parallel to it. The strong edges' out[] and the weak ones'
 * weak_dst[] alike. */
static void sort_by_target(node_t *to, uint32_t *name, uint8_t *type, size_t n)
{
	int sorted = 1;

	for (size_t i = 1; i < n && sorted; i++)
		sorted = to[i - 1] <= to[i];
	if (sorted)
		return;
	if (n <= SMALL_RUN) { /* most nodes: a stable insertion sort in place */
		for (size_t i = 1; i < n; i++) {
			struct sedge x = { to[i], name[i], type[i] };
			size_t j = i;
			for (; j > 0 && to[j - 1] > x.to; j--) {
				to[j] = to[j - 1];
				name[j] = name[j - 1];
				type[j] = type[j - 1];
			}
			to[j] = x.to;
			name[j] = x.name;
			type[j] = x.type;
		}
		return;
	}
	struct sedge *t = xmalloc(n * sizeof *t);
	for (size_t i = 0; i < n; i++)
		t[i] = (struct sedge){ to[i], name[i], type[i] };
	hw_merge_sort(t, n, sizeof *t, cmp_sedge, NULL);
	for (size_t i = 0; i < n; i++) {
		to[i] = t[i].to;
		name[i] = t[i].name;
		type[i] = t[i].type;
	}
	free(t);
}

/* The edges' targets as the heap's nodes (o2n), in place: 0 for no node
 * or the root (such an edge is dropped). o2n can go after this. */
static void remap_targets(struct v8_snap *s, const uint32_t *o2n)
{
	for (uint32_t e = 0; e < s->nedges; e++)
		s->eto[e] = s->eto[e] < s->nnodes ? o2n[s->eto[e]] : 0;
}

/* The heap's references of the snapshot's edges: out[] (with each
 * edge's name and type) and weak_*[], node by node in the heap's order
 * (n2o), each node's in target order; the root's edges are the GC roots.
 * Memory is the build's peak here: the snapshot's edge columns are
 * freed as soon as they are read, nedges_of becomes each node's first
 * edge in place, and every array is allocated at its final size. */
static void make_edges(struct v8b *b, const uint32_t *n2o)
{
	struct heap *h = b->h;
	struct v8_snap *s = b->s;
	struct v8_data *d = b->d;
	uint32_t *first = s->nedges_of; /* counts, made first edges in place */
	uint64_t pos = 0, nstrong = 0, nweak = 0, dropped = 0;
	uint32_t root = (uint32_t)s->root_index;

	for (uint32_t o = 0; o < s->nnodes; o++) {
		uint32_t n = first[o];
		first[o] = (uint32_t)pos;
		for (uint32_t e = (uint32_t)pos; e < pos + n && o != root; e++) {
			if (s->eto[e] == 0)
				dropped++;
			else if (s->etype[e] == d->et_weak)
				nweak++;
			else
				nstrong += s->etype[e] != d->et_shortcut;
		}
		pos += n;
	}
#define EDGES_OF(o) ((o) + 1 < s->nnodes ? first[(o) + 1] : s->nedges)
	/* the root's edges: GC roots */
	h->root_rec = xmalloc(((size_t)(EDGES_OF(root) - first[root]) + 1) * sizeof *h->root_rec);
	for (uint32_t e = first[root]; e < EDGES_OF(root); e++)
		if (s->eto[e] != 0 && s->etype[e] != d->et_weak)
			root_edge(b, e, s->eto[e], &h->root_rec[h->nroot_rec++]);
	hw_qsort(h->root_rec, h->nroot_rec, sizeof *h->root_rec, cmp_rootrec);
	size_t k = 0;
	for (size_t i = 0; i < h->nroot_rec; i++)
		if (k == 0 || cmp_rootrec(&h->root_rec[k - 1], &h->root_rec[i]) != 0)
			h->root_rec[k++] = h->root_rec[i];
	h->nroot_rec = k;
	/* everyone else's, in node order */
	h->out_start = xmalloc(((size_t)h->n + 1) * sizeof *h->out_start);
	h->out = xmalloc((nstrong + 1) * sizeof *h->out);
	d->out_name = xmalloc((nstrong + 1) * sizeof *d->out_name);
	d->out_type = xmalloc(nstrong + 1);
	h->nweak = nweak;
	h->weak_src = xmalloc((nweak + 1) * sizeof *h->weak_src);
	h->weak_dst = xmalloc((nweak + 1) * sizeof *h->weak_dst);
	h->weak_rule = xmalloc((nweak + 1) * sizeof *h->weak_rule);
	d->weak_name = xmalloc((nweak + 1) * sizeof *d->weak_name);
	d->weak_type = xmalloc(nweak + 1);
	edge_t at = 0;
	uint64_t wat = 0;
	h->out_start[0] = h->out_start[1] = 0;
	for (node_t v = 1; v < h->n; v++) {
		uint32_t o = n2o[v];
		uint64_t wfrom = wat;
		h->out_start[v] = at;
		for (uint32_t e = first[o]; e < EDGES_OF(o); e++) {
			uint8_t t = s->etype[e];
			node_t to = s->eto[e];
			if (to == 0) { /* no node, or the root: counted above */
			} else if (t == d->et_weak) {
				h->weak_src[wat] = v;
				h->weak_dst[wat] = to;
				h->weak_rule[wat] = WEAK_BUILTIN;
				d->weak_name[wat] = s->ename[e];
				d->weak_type[wat++] = t;
			} else if (t != d->et_shortcut) {
				h->out[at] = to;
				d->out_name[at] = s->ename[e];
				d->out_type[at++] = t;
			}
		}
		edge_t from = h->out_start[v];
		sort_by_target(h->out + from, d->out_name + from, d->out_type + from, at - from);
		sort_by_target(h->weak_dst + wfrom, d->weak_name + wfrom, d->weak_type + wfrom,
			       (size_t)(wat - wfrom));
	}
#undef EDGES_OF
	h->out_start[h->n] = at;
	h->nedges = at;
	h->dangling_refs = dropped;
	if (dropped > 0)
		warn_add(&h->warn, "%s: %llu edges to no node (or to the root) dropped", h->path,
			 (unsigned long long)dropped);
	free(s->etype);
	free(s->ename);
	free(s->eto);
	free(s->nedges_of);
	s->etype = NULL;
	s->ename = s->eto = s->nedges_of = NULL;
}

/* ---- the format's operations ---- */

static int v8_header(struct heap *h, struct sbuf *err)
{
	(void)err;
	snprintf(h->version, sizeof h->version, "V8 heap snapshot");
	h->layout.idsize = 8;
	return 0;
}

static void v8_free(struct heap *h)
{
	struct v8_data *d = h->fmt_data;

	if (d == NULL)
		return;
	free(d->str_off);
	for (unsigned i = 0; i < d->n_edge_types; i++)
		free(d->edge_types[i]);
	free(d->edge_types);
	for (unsigned i = 0; i < d->n_node_types; i++)
		free(d->node_types[i]);
	free(d->node_types);
	free(d->node_name);
	free(d->node_type);
	free(d->out_name);
	free(d->out_type);
	free(d->weak_name);
	free(d->weak_type);
	free(d->node_trace);
	free(d);
	h->fmt_data = NULL;
}

static int v8_parse_heap(struct heap *h, struct progress *p, struct sbuf *err)
{
	struct v8_snap s;
	struct v8_data *d;

	if (v8_parse(h->path, h->map, h->size, &s, p, &h->warn, err) < 0)
		return -1;
	if (s.nnodes == 0 || s.root_index >= s.nnodes) {
		char *ep = esc_str(h->path);
		sbuf_printf(err, "%s: offset %llu: %s", ep, (unsigned long long)s.nodes_at,
			    s.nnodes == 0 ? "no nodes in the snapshot" : "the root index is past the nodes");
		free(ep);
		v8_snap_free(&s);
		return -1;
	}
	v8_free(h);
	d = xcalloc(1, sizeof *d);
	h->fmt_data = d;
	/* the strings and type names stay with the heap */
	d->str_off = s.str_off;
	d->nstr = s.nstr;
	s.str_off = NULL;
	d->edge_types = s.edge_types;
	d->n_edge_types = s.n_edge_types;
	s.edge_types = NULL;
	s.n_edge_types = 0;
	d->node_types = s.node_types;
	d->n_node_types = s.n_node_types;
	s.node_types = NULL;
	s.n_node_types = 0;
	d->et_element = type_index(d->edge_types, d->n_edge_types, "element");
	d->et_hidden = type_index(d->edge_types, d->n_edge_types, "hidden");
	d->et_weak = type_index(d->edge_types, d->n_edge_types, "weak");
	d->et_shortcut = type_index(d->edge_types, d->n_edge_types, "shortcut");
	d->et_internal = type_index(d->edge_types, d->n_edge_types, "internal");
	d->nt_string = type_index(d->node_types, d->n_node_types, "string");
	d->nt_cons = type_index(d->node_types, d->n_node_types, "concatenated string");
	d->nt_sliced = type_index(d->node_types, d->n_node_types, "sliced string");
	d->nt_object = type_index(d->node_types, d->n_node_types, "object");
	d->nt_native = type_index(d->node_types, d->n_node_types, "native");
	d->nt_array = type_index(d->node_types, d->n_node_types, "array");

	struct v8b b = { .h = h, .s = &s, .d = d, .nt = { .h = h } };
	b.cls_of_str = xmalloc(((size_t)s.nstr + 1) * sizeof *b.cls_of_str);
	memset(b.cls_of_str, 0xff, ((size_t)s.nstr + 1) * sizeof *b.cls_of_str);
	memset(b.cls_of_type, 0xff, sizeof b.cls_of_type);
	uint32_t *n2o = xmalloc(((size_t)s.nnodes + 1) * sizeof *n2o);
	uint32_t *o2n = xmalloc(((size_t)s.nnodes + 1) * sizeof *o2n);
	if (tracking(&s))
		d->node_trace = xmalloc(((size_t)s.nnodes + 1) * sizeof *d->node_trace);
	progress_begin(p, "nodes", s.nnodes, "nodes");
	make_nodes(&b, n2o, o2n);
	progress_end(p);
	if (d->node_trace != NULL) {
		d->node_trace[0] = 0;
		make_traces(&b);
	}
	/* what the nodes' columns had the heap has now: their memory goes
	 * before the references are made (the peak of the build) */
	free(b.cls_of_str);
	b.cls_of_str = NULL;
	free(s.ntype);
	free(s.nname);
	free(s.nid);
	free(s.nsize);
	free(s.ntrace);
	free(s.ndetached);
	s.ntype = s.ndetached = NULL;
	s.nname = s.nsize = s.ntrace = NULL;
	s.nid = NULL;
	remap_targets(&s, o2n);
	free(o2n);
	progress_begin(p, "references", s.nedges, "edges");
	make_edges(&b, n2o);
	progress_end(p);
	free(n2o);
	free(b.cls_of_str);
	free(b.mkey);
	free(b.mval);
	names_free(&b.nt);
	v8_snap_free(&s);
	return 0;
}

/* The target of v's edge named `name` (an internal edge of a string),
 * HW_NONE if none. */
static node_t edge_named(const struct heap *h, node_t v, const char *name)
{
	const struct v8_data *d = h->fmt_data;

	for (edge_t e = h->out_start[v]; e < h->out_start[v + 1]; e++)
		if (name_is(h, d->out_name[e], name))
			return h->out[e];
	return HW_NONE;
}

/* A concatenated string's text: its parts, "first" then "second",
 * each a string of any kind; at most max bytes from `start` of out.
 * The parts visited are bounded by the text made (V8's parts are never
 * empty): a crafted snapshot can share one empty part many times over. */
static int cons_text(const struct heap *h, node_t v, struct sbuf *out, size_t start, size_t max,
		     unsigned depth, size_t *visits)
{
	const struct v8_data *d = h->fmt_data;
	int t = d->node_type[v];

	if (out->len - start >= max)
		return 0;
	if (++*visits > 4096 + 2 * (out->len - start))
		return -1;
	if (t == d->nt_string)
		return v8_str(h, d->node_name[v], out, max - (out->len - start));
	if (t != d->nt_cons || depth > 1000)
		return -1;
	node_t a = edge_named(h, v, "first"), b = edge_named(h, v, "second");
	if (a == HW_NONE || b == HW_NONE)
		return -1;
	return cons_text(h, a, out, start, max, depth + 1, visits) < 0 ||
	       cons_text(h, b, out, start, max, depth + 1, visits) < 0 ? -1 : 0;
}

/* A node's name where it says more than its class: a string's value
 * (a concatenated one's made of its parts), a closure's function, a
 * system object's description. */
static int v8_string_value(const struct heap *h, node_t v, struct sbuf *out, size_t max)
{
	const struct v8_data *d = h->fmt_data;

	if (v == 0 || v >= h->n)
		return -1;
	int t = d->node_type[v];
	if (t == d->nt_object || t == d->nt_native)
		return -1;
	if (t == d->nt_cons) {
		size_t start = out->len, visits = 0;
		if (cons_text(h, v, out, start, max, 0, &visits) == 0)
			return 0;
		out->buf[out->len = start] = '\0'; /* parts missing: its name, as V8 gave it */
	}
	return v8_str(h, d->node_name[v], out, max);
}

static int v8_is_string(const struct heap *h, node_t v)
{
	const struct v8_data *d = h->fmt_data;
	int t = d->node_type[v];

	/* a sliced string's offset into its parent is not in the snapshot */
	return t == d->nt_string || t == d->nt_cons;
}

static void edge_name(const struct heap *h, uint8_t type, uint32_t name, struct sbuf *out)
{
	const struct v8_data *d = h->fmt_data;

	if (type == d->et_element || type == d->et_hidden)
		sbuf_printf(out, "[%u]", name);
	else if (v8_str(h, name, out, 200) < 0)
		sbuf_adds(out, "<?>");
}

/* Every edge of v as a field: strong edges, then weak ones (named with
 * a "weak " prefix), each with its target's id. */
static int v8_fields(const struct heap *h, node_t v, field_fn fn, void *arg)
{
	const struct v8_data *d = h->fmt_data;
	struct sbuf sb;
	int n = 0;

	if (v == 0 || v >= h->n)
		return -1;
	sbuf_init(&sb);
	for (edge_t e = h->out_start[v]; e < h->out_start[v + 1]; e++, n++) {
		struct hvalue val = { .type = T_OBJECT, .v.id = h->node_id[h->out[e]] };
		sbuf_reset(&sb);
		edge_name(h, d->out_type[e], d->out_name[e], &sb);
		fn(arg, sb.buf, &val);
	}
	for (uint64_t i = heap_weak_first(h, v); i < h->nweak && h->weak_src[i] == v; i++, n++) {
		struct hvalue val = { .type = T_OBJECT, .v.id = h->node_id[h->weak_dst[i]] };
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
	const struct v8_data *d = h->fmt_data;

	/* a node's edges are in target order (sort_by_target) */
	edge_t s = h->out_start[src], n = h->out_start[src + 1] - s;
	edge_t e = s + (edge_t)lower_bound_u32(h->out + s, n, dst);
	if (e < s + n && h->out[e] == dst) {
		edge_name(h, d->out_type[e], d->out_name[e], out);
		return;
	}
	for (uint64_t i = heap_weak_first(h, src); i < h->nweak && h->weak_src[i] == src; i++)
		if (h->weak_dst[i] == dst) {
			sbuf_adds(out, "weak ");
			edge_name(h, d->weak_type[i], d->weak_name[i], out);
			return;
		}
	sbuf_adds(out, "<?>");
}


/* V8's arrays as the views count them: an "array" node (a FixedArray:
 * elements, properties, a hash table's store, ...) with its references
 * by index (elements, and internal edges named by an index; the
 * numbers of a FixedDoubleArray are not in the snapshot, so it counts
 * none), and an ArrayBuffer's backing store, its bytes. */
static int64_t v8_array_length(const struct heap *h, node_t v, uint8_t *elem_type)
{
	const struct v8_data *d = h->fmt_data;
	int t = v == 0 || v >= h->n ? -1 : d->node_type[v];

	if (t < 0)
		return -1;
	if (t == d->nt_array) {
		int64_t n = 0;
		for (edge_t e = h->out_start[v]; e < h->out_start[v + 1]; e++) {
			int et = d->out_type[e];
			n += et == d->et_element || (et == d->et_internal && digit_name(h, d->out_name[e]));
		}
		for (uint64_t i = heap_weak_first(h, v); i < h->nweak && h->weak_src[i] == v; i++)
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

static uint32_t v8_alloc_trace(const struct heap *h, node_t v)
{
	const struct v8_data *d = h->fmt_data;

	return d->node_trace != NULL ? d->node_trace[v] : 0;
}

static const char *v8_root_kind_name(unsigned kind)
{
	switch (kind) {
	case RK_V8_GC: return "GC roots";
	case RK_V8_USER: return "user root (global)";
	case RK_V8_EMBEDDER: return "embedder root";
	default: return NULL;
	}
}

const struct format_ops v8_format = {
	.name = "v8",
	.runtime = "v8",
	.cacheable = 0,
	.probe = v8_probe,
	.header = v8_header,
	.parse = v8_parse_heap,
	.fields = v8_fields,
	.array_length = v8_array_length,
	.string_value = v8_string_value,
	.is_string = v8_is_string,
	.edge_label = v8_edge_label,
	.alloc_trace = v8_alloc_trace,
	.alloc_hint = "snapshots taken with allocation tracking (node --track-heap-objects) have them",
	.root_kind_name = v8_root_kind_name,
	.free_data = v8_free,
};
