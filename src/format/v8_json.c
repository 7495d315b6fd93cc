/* v8_json.c — the V8 heap snapshot reader: the top-level object, whose
 * keys may come in any order, and snapshot.meta, which says what the
 * flat arrays hold. The arrays themselves are v8_arrays.c's, the JSON
 * scanner v8_scan.c's. */
#include "format/v8_json.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "format/v8_scan.h"

#define TYPES_MAX 255      /* uint8_t columns: UINT8_MAX is the sentinel */
#define NAME_MAX_LEN 256   /* of a field or type name in meta */

static const char *const key_names[K_N] = { "snapshot", "nodes", "edges", "trace_function_infos",
					    "trace_tree", "samples", "locations", "strings" };

/* ---- snapshot.meta ---- */

struct names {
	char **v;
	unsigned n;
	int seen;
};

/* The entries of meta that are lists of field names. */
enum { M_NODE, M_EDGE, M_TFI, M_TN, M_SAMPLE, M_LOC, M_N };
static const char *const meta_lists[M_N] = { "node_fields", "edge_fields", "trace_function_info_fields",
					     "trace_node_fields", "sample_fields", "location_fields" };

static void names_free(struct names *l)
{
	for (unsigned i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	*l = (struct names){ 0 };
}

/* The string at r->p, decoded, added to l. */
static int add_name(struct rd *r, struct names *l, unsigned cap)
{
	const uint8_t *e = *r->p == '"' ? v8s_str_end(r->p, r->end) : NULL;
	struct sbuf sb;

	if (e == NULL)
		return v8s_problem(r, pos(r), *r->p == '"' ? "unterminated string" : "expected a string in meta");
	if (l->n >= cap)
		return v8s_problem(r, pos(r), "more than %u names in a list of meta", cap);
	sbuf_init(&sb);
	if (v8_string(r->base, (uint64_t)(r->end - r->base), pos(r), &sb, NAME_MAX_LEN) < 0) {
		sbuf_free(&sb);
		return v8s_problem(r, pos(r), "bad escape in a string of meta");
	}
	l->v = xreallocarray(l->v, l->n + 1, sizeof *l->v);
	l->v[l->n++] = sbuf_detach(&sb);
	r->p = e;
	return 0;
}

/* ["name", ...] into l. Strict: anything but a name, or more than
 * cap of them, is a problem (-1). Else such a list is no list of names:
 * it is stepped over and l left empty (0). */
static int read_list(struct rd *r, struct names *l, unsigned cap, int strict)
{
	int other = 0;

	if (v8s_expect(r, '[', "meta") < 0)
		return -1;
	for (int first = 1;; first = 0) {
		ws(r);
		if (r->p < r->end && *r->p == ']') {
			r->p++;
			break;
		}
		if (!first && v8s_expect(r, ',', "meta") < 0)
			return -1;
		ws(r);
		if (r->p >= r->end)
			return v8s_problem(r, pos(r), "truncated in meta");
		if (strict || (!other && *r->p == '"' && l->n < cap)) {
			if (add_name(r, l, cap) < 0)
				return -1;
		} else if ((other = 1, v8s_skip_value(r)) < 0) {
			return -1;
		}
	}
	if (other)
		names_free(l);
	return 0;
}

static int read_names(struct rd *r, struct names *l, unsigned cap)
{
	if (l->seen)
		names_free(l);
	l->seen = 1;
	return read_list(r, l, cap, 1);
}

/* node_types, edge_types: an entry for each field, in the fields'
 * order, that of the "type" field a list of its type names (V8 writes
 * "type" first, but meta says where it is: DevTools looks it up by
 * name, and so does take_meta). Every entry that is a list kept, by
 * its place; the others ("string", "number", ...) stepped over. */
struct types {
	struct names at[V8_FIELDS_MAX];
	unsigned n;
};

static void types_free(struct types *t)
{
	for (unsigned i = 0; i < V8_FIELDS_MAX; i++)
		names_free(&t->at[i]);
	*t = (struct types){ 0 };
}

static int read_types(struct rd *r, struct types *t)
{
	types_free(t); /* one read before: JSON.parse keeps a key's last value, DevTools with it */
	if (v8s_expect(r, '[', "meta") < 0)
		return -1;
	for (int first = 1;; first = 0) {
		ws(r);
		if (r->p < r->end && *r->p == ']') {
			r->p++;
			return 0;
		}
		if (!first && v8s_expect(r, ',', "meta") < 0)
			return -1;
		ws(r);
		if (r->p >= r->end)
			return v8s_problem(r, pos(r), "truncated in meta");
		/* a list that is no list of names, none (take_meta says so
		 * when it is the one at the place of "type"); past as many
		 * entries as a record has fields: none is a field's */
		int rc = *r->p == '[' && t->n < V8_FIELDS_MAX ? read_list(r, &t->at[t->n], TYPES_MAX, 0)
							      : v8s_skip_value(r);
		if (rc < 0)
			return -1;
		t->n++;
	}
}

/* The type names of the field at index f (field()'s: -1 if none), taken
 * from t (NULL where that entry is no list, or an empty one). */
static struct names *types_of(struct types *t, int f)
{
	return f >= 0 && (unsigned)f < t->n && (unsigned)f < V8_FIELDS_MAX && t->at[f].n > 0 ? &t->at[f] : NULL;
}

/* In an object: the next key (in *k, *klen, colon stepped over): 1; 0
 * at the closing brace; -1 after a problem. */
static int next_key(struct rd *r, int *first, const uint8_t **k, size_t *klen, const char *where)
{
	ws(r);
	if (r->p < r->end && *r->p == '}') {
		r->p++;
		return 0;
	}
	if (!*first && v8s_expect(r, ',', where) < 0)
		return -1;
	*first = 0;
	ws(r);
	if (r->p >= r->end)
		return v8s_problem(r, pos(r), "truncated in %s", where);
	const uint8_t *e = *r->p == '"' ? v8s_str_end(r->p, r->end) : NULL;
	if (e == NULL)
		return v8s_problem(r, pos(r), "expected a key in %s", where);
	*k = r->p + 1;
	*klen = (size_t)(e - r->p) - 2;
	r->p = e;
	return v8s_expect(r, ':', where) < 0 ? -1 : 1;
}

static int key_is(const uint8_t *k, size_t klen, const char *name)
{
	return strlen(name) == klen && memcmp(k, name, klen) == 0;
}

struct meta {
	struct names list[M_N];
	struct types node_types, edge_types;
};

static int read_meta(struct rd *r, struct meta *m)
{
	const uint8_t *k;
	size_t klen;
	int first = 1, rc;

	if (v8s_expect(r, '{', "meta") < 0)
		return -1;
	while ((rc = next_key(r, &first, &k, &klen, "meta")) > 0) {
		int i = 0;
		while (i < M_N && !key_is(k, klen, meta_lists[i]))
			i++;
		if (i < M_N)
			rc = read_names(r, &m->list[i], V8_FIELDS_MAX);
		else if (key_is(k, klen, "node_types")) /* a key given twice: the last, as the fields' */
			rc = read_types(r, &m->node_types);
		else if (key_is(k, klen, "edge_types"))
			rc = read_types(r, &m->edge_types);
		else
			rc = v8s_skip_value(r);
		if (rc < 0)
			return -1;
	}
	return rc;
}

/* A number of the snapshot object. */
static int read_count(struct rd *r, uint64_t *v)
{
	int first = 1, rc = next_num(r, &first, v, "snapshot");

	v8s_odd_done(r, "snapshot");
	return rc > 0 ? 0 : rc < 0 ? -1 : v8s_problem(r, pos(r) - 1, "unexpected ']' in snapshot");
}

static int field(const struct names *l, const char *name)
{
	for (unsigned i = 0; i < l->n; i++)
		if (strcmp(l->v[i], name) == 0)
			return (int)i;
	return -1;
}

static unsigned width_or(const struct names *l, unsigned dflt)
{
	return l->n > 0 ? l->n : dflt;
}

/* What the reader needs of meta, else the error; then the layout. */
static int take_meta(struct rd *r, struct meta *m, uint64_t at)
{
	struct v8_snap *s = r->s;
	const struct names *nf = &m->list[M_NODE], *ef = &m->list[M_EDGE], *tn = &m->list[M_TN];

	s->nf_type = field(nf, "type"), s->nf_name = field(nf, "name"), s->nf_id = field(nf, "id");
	s->nf_self_size = field(nf, "self_size"), s->nf_edge_count = field(nf, "edge_count");
	s->nf_trace_node_id = field(nf, "trace_node_id"), s->nf_detachedness = field(nf, "detachedness");
	s->ef_type = field(ef, "type"), s->ef_name = field(ef, "name_or_index"), s->ef_to = field(ef, "to_node");
	if (s->nf_type < 0 || s->nf_name < 0 || s->nf_id < 0 || s->nf_self_size < 0 || s->nf_edge_count < 0)
		return v8s_problem(r, at, "bad snapshot.meta: node_fields lacks type, name, id, self_size or edge_count");
	if (s->ef_type < 0 || s->ef_name < 0 || s->ef_to < 0)
		return v8s_problem(r, at, "bad snapshot.meta: edge_fields lacks type, name_or_index or to_node");
	if (m->node_types.n == 0 || m->edge_types.n == 0)
		return v8s_problem(r, at, "bad snapshot.meta: no node_types or edge_types");
	struct names *nt = types_of(&m->node_types, s->nf_type), *et = types_of(&m->edge_types, s->ef_type);
	if (nt == NULL || et == NULL)
		return v8s_problem(r, at, "bad snapshot.meta: %s has no list of type names at the place of "
				   "the \"type\" field (%d)", nt == NULL ? "node_types" : "edge_types",
				   nt == NULL ? s->nf_type : s->ef_type);
	s->node_fields = nf->n, s->edge_fields = ef->n;
	s->node_types = nt->v, s->n_node_types = nt->n;
	s->edge_types = et->v, s->n_edge_types = et->n;
	*nt = *et = (struct names){ 0 };
	for (unsigned i = 0; i < s->n_edge_types; i++) /* these name their edges by number */
		s->numeric_name[i] = strcmp(s->edge_types[i], "element") == 0 || strcmp(s->edge_types[i], "hidden") == 0;
	s->tfi_fields = width_or(&m->list[M_TFI], 6);
	s->tfi_name = field(&m->list[M_TFI], "name"), s->tfi_script = field(&m->list[M_TFI], "script_name");
	s->tfi_line = field(&m->list[M_TFI], "line");
	s->tt_id = field(tn, "id"), s->tt_fi = field(tn, "function_info_index");
	s->loc_fields = width_or(&m->list[M_LOC], 4);
	s->sample_fields = width_or(&m->list[M_SAMPLE], 2);
	r->tt_width = width_or(tn, 5);
	int children = field(tn, "children");
	r->tt_ok = r->tt_width <= V8_TT_FIELDS_MAX && (tn->n == 0 || children == (int)tn->n - 1);
	s->tt_fields = r->tt_width;
	r->have_meta = 1;
	return 0;
}

static int snapshot_entries(struct rd *r, struct meta *m)
{
	struct v8_snap *s = r->s;
	const uint8_t *k;
	size_t klen;
	int first = 1, rc;

	if (v8s_expect(r, '{', "snapshot") < 0)
		return -1;
	while ((rc = next_key(r, &first, &k, &klen, "snapshot")) > 0) {
		if (key_is(k, klen, "meta"))
			rc = read_meta(r, m);
		else if (key_is(k, klen, "node_count"))
			rc = read_count(r, &s->meta_node_count);
		else if (key_is(k, klen, "edge_count"))
			rc = read_count(r, &s->meta_edge_count);
		else if (key_is(k, klen, "trace_function_count"))
			rc = read_count(r, &s->meta_trace_function_count);
		else if (key_is(k, klen, "root_index"))
			rc = read_count(r, &s->root_index);
		else if (key_is(k, klen, "heapwalk"))
			rc = (s->ids_reset = 1, v8s_skip_value(r));
		else if (key_is(k, klen, "heapwalk_taken_ms"))
			rc = read_count(r, &s->taken_ms);
		else
			rc = v8s_skip_value(r);
		if (rc < 0)
			return -1;
	}
	return rc;
}

static int read_snapshot(struct rd *r)
{
	struct meta m = { 0 };
	uint64_t at = pos(r);
	int rc = snapshot_entries(r, &m);

	if (rc == 0)
		rc = take_meta(r, &m, at);
	for (int i = 0; i < M_N; i++)
		names_free(&m.list[i]);
	types_free(&m.node_types);
	types_free(&m.edge_types);
	return rc;
}

/* ---- the top level ---- */

/* Can the value of k be read where it stands? All but the strings want
 * meta. (The edges are read last, v8_parse_edges.) */
static int ready(const struct rd *r, enum v8_key k)
{
	if (k == K_SNAPSHOT || k == K_STRINGS)
		return 1;
	return r->have_meta;
}

static int read_value(struct rd *r, enum v8_key k)
{
	struct v8_snap *s = r->s;

	r->done[k] = 1;
	switch (k) {
	case K_SNAPSHOT: return read_snapshot(r);
	case K_NODES: return v8s_read_nodes(r);
	case K_TFI: return v8s_read_flat32(r, &s->trace_function_infos, &s->n_tfi, s->tfi_fields, "trace_function_infos");
	case K_TT: return v8s_read_trace_tree(r);
	case K_SAMPLES: return v8s_read_samples(r);
	case K_LOC:
		return r->no_locations ? v8s_skip_array(r, "locations")
				       : v8s_read_flat32(r, &s->locations, &s->n_loc, s->loc_fields, "locations");
	case K_STRINGS: return v8s_read_strings(r);
	default: return v8s_skip_value(r);
	}
}

unsigned long v8_edges_here;

/* The edges where they stand, the nodes and strings read (struct
 * v8_inline): the checks that want all of them made now, the room for
 * the edges bounded by the bytes up to the strings or the file's end
 * (no quick scan counted them), then the edges to the sink the reader
 * gives. A value there that is no array of numbers is stepped over as
 * without in, its problem said by the reading (the rest of the file
 * read on). */
static int edges_here(struct rd *r)
{
	struct v8_snap *s = r->s;
	v8_edge_sink *sink = NULL;
	void *ctx = NULL;

	s->edges_at = pos(r);
	/* before the strings read first, if they are the object's (else the
	 * open is made again without this) */
	r->edges_end = r->last_strings > s->edges_at ? r->last_strings : (uint64_t)(r->end - r->base);
	r->edges_nums = 0;
	v8s_check(r);
	r->checked = 1;
	if (!r->in->ready(r->in->ctx, s, &sink, &ctx)) { /* read later (nothing will: no nodes) */
		r->later[K_EDGES] = s->edges_at;
		return v8s_skip_edges(r);
	}
	r->in->done = 1;
	r->done[K_EDGES] = 1;
	v8_edges_here++;
	if (v8s_read_edges(r, sink, ctx) == 0)
		return 0;
	r->stop = 0;
	r->p = r->base + s->edges_at;
	r->quiet = 1;
	int rc = v8s_skip_value(r);
	r->quiet = 0;
	return rc;
}

static int top_entry(struct rd *r, int *first)
{
	const uint8_t *key;
	size_t klen;
	int rc = next_key(r, first, &key, &klen, "the top-level object");

	if (rc <= 0)
		return rc;
	enum v8_key k = K_SNAPSHOT;
	while (k < K_N && !key_is(key, klen, key_names[k]))
		k++;
	ws(r);
	if (k == K_N)
		return v8s_skip_value(r) < 0 ? -1 : 1;
	if (k == K_STRINGS && r->last_strings != 0) { /* read first */
		if (pos(r) == r->last_strings) {
			r->p = r->base + r->last_strings_end;
			r->last_met = 1;
			return 1;
		}
		warn_add(r->w, "%s: offset %llu: \"strings\" before the last one (offset %llu), which is read; "
			 "skipped", r->path, (unsigned long long)pos(r), (unsigned long long)r->last_strings);
		return v8s_skip_value(r) < 0 ? -1 : 1;
	}
	if (r->done[k] || r->later[k]) {
		warn_add(r->w, "%s: offset %llu: \"%s\" again; skipped", r->path, (unsigned long long)pos(r),
			 key_names[k]);
		return v8s_skip_value(r) < 0 ? -1 : 1;
	}
	if (k == K_EDGES) {
		if (r->in != NULL && r->have_meta && r->done[K_NODES] && r->done[K_STRINGS])
			return edges_here(r) < 0 ? -1 : 1;
		r->later[k] = pos(r); /* read last, after what they name */
		return v8s_skip_edges(r) < 0 ? -1 : 1;
	}
	if (ready(r, k))
		return read_value(r, k) < 0 ? -1 : 1;
	r->later[k] = pos(r); /* before what it needs: read after the rest */
	return v8s_skip_value(r) < 0 ? -1 : 1;
}

static void read_top(struct rd *r)
{
	int first = 1;

	ws(r);
	if (r->p >= r->end || *r->p != '{') {
		v8s_problem(r, pos(r), "not a V8 heap snapshot (no JSON object)");
		return;
	}
	r->p++;
	while (top_entry(r, &first) > 0)
		;
}

/* The values that came before meta, in the order that lets each be
 * checked. */
static void read_later(struct rd *r)
{
	static const enum v8_key order[] = { K_NODES, K_TFI, K_TT, K_SAMPLES, K_LOC };

	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
		if (r->later[order[i]]) {
			r->stop = 0;
			r->p = r->base + r->later[order[i]];
			read_value(r, order[i]);
		}
}

static void map_advice(const uint8_t *map, uint64_t size, int advice)
{
	/* only on a mapping (the fuzzers hand a heap buffer) */
	if (((uintptr_t)map & 4095) == 0 && size > 0)
		madvise((void *)(uintptr_t)map, (size_t)size, advice);
}

#define WIN_BYTES ((uint64_t)256 << 10) /* r.win: within a core's L2 cache */
#define WIN_MARGIN ((uint64_t)4096)

static uint64_t win_bytes = WIN_BYTES;

void v8_parse_window(size_t bytes)
{
	win_bytes = bytes > 0 ? bytes : WIN_BYTES;
}

/* A reading of map from its start: the window over fd when there is
 * one (0: the mapping itself). */
static void rd_init(struct rd *r, const char *path, const uint8_t *map, uint64_t size, int drop, int fd,
		    struct v8_snap *s, struct progress *p, struct warnings *w, struct sbuf *err)
{
	*r = (struct rd){ .base = map, .p = map, .end = map + size, .path = path, .s = s, .pr = p, .w = w,
			  .err = err, .drop = drop, .fd = fd };
	if (fd >= 0) {
		r->win_cap = win_bytes;
		r->win_margin = win_bytes / 2 < WIN_MARGIN ? win_bytes / 2 : WIN_MARGIN;
		r->win = xmalloc((size_t)r->win_cap);
		/* filled whole by the first refill of a file past its size */
		mem_populate(r->win, 0, (size_t)(size < r->win_cap ? size : r->win_cap));
	}
}

/* Is [p, end) a word: letters, digits, '_', one at least? */
static int word(const uint8_t *p, const uint8_t *end)
{
	if (p == end)
		return 0;
	for (; p < end; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return 0;
	return 1;
}

/* The '[' of the value of "strings" when it is the top-level object's
 * last key, as V8 writes it; 0 when the file does not end with an
 * array of strings, or the key before that array is another. From the
 * end back: '}', ']', a string's closing quote (or the empty array's
 * '['), then each '[' in turn until one follows a key: a colon, and
 * before it a word (letters, digits, '_') in quotes. In an array of
 * strings a '[' may follow a colon and a quote too (the string ":[0-9]"
 * of a regular expression, an escaped \"key\":[), but what lies
 * between that quote and the one before it is then no word: a comma
 * between two strings, or a backslash. (The reading from there checks
 * the candidate.) */
static uint64_t last_strings(const uint8_t *map, uint64_t size)
{
	static const char key[] = "\"strings\"";
	const uint8_t *p = map + size;
	const uint8_t *want = (const uint8_t *)"}]";

	for (int i = 0; i < 2; i++) {
		p = skip_ws_back(map, p);
		if (p == map || p[-1] != want[i])
			return 0;
		p--;
	}
	p = skip_ws_back(map, p);
	if (p == map || (p[-1] != '"' && p[-1] != '['))
		return 0;
	while ((p = v8s_last_byte(map, p, '[')) != NULL) {
		const uint8_t *q = skip_ws_back(map, p);
		if (q == map || q[-1] != ':')
			continue;
		q = skip_ws_back(map, q - 1);
		if (q == map || q[-1] != '"')
			continue;
		const uint8_t *open = v8s_last_byte(map, q - 1, '"');
		if (open == NULL || !word(open + 1, q - 1))
			continue;
		size_t n = (size_t)(q - open);
		return n == sizeof key - 1 && memcmp(open, key, n) == 0 ? (uint64_t)(p - map) : 0;
	}
	return 0;
}

/* The strings of last_strings read first: kept when they are an array
 * of strings with nothing wrong and the file's end after it (the
 * top-level object's closing brace, whitespace); else none read, and
 * the pass reads whatever stands there. */
static void strings_first(struct rd *r)
{
	struct v8_snap *s = r->s;
	uint64_t at = last_strings(r->base, (uint64_t)(r->end - r->base));
	struct warnings w = { .quiet = 1 }; /* a look only: nothing said */
	struct sbuf err;
	struct rd q;

	if (at == 0)
		return;
	sbuf_init(&err);
	rd_init(&q, r->path, r->base, (uint64_t)(r->end - r->base), 0, -1, s, NULL, &w, &err);
	q.p = q.base + at;
	q.quiet = 1;
	int ok = v8s_read_strings(&q) == 0 && !q.stop && w.n == 0 && w.suppressed == 0;
	uint64_t end = pos(&q); /* past its ']': the pass goes on from there */
	if (ok) {
		ws(&q);
		ok = q.p < q.end && *q.p == '}';
		if (ok) {
			q.p++;
			ws(&q);
			ok = q.p == q.end;
		}
	}
	if (ok) {
		r->last_strings = at;
		r->last_strings_end = end;
		r->done[K_STRINGS] = 1;
	} else {
		free(s->str_off);
		s->str_off = NULL;
		s->nstr = 0;
		s->strings_at = 0;
	}
	warn_free(&w);
	sbuf_free(&err);
}

int v8_parse_heads(const char *path, const uint8_t *map, uint64_t size, int drop, int fd, struct v8_snap *s,
		   struct progress *p, struct warnings *w, struct sbuf *err, uint64_t *content, int locations,
		   struct v8_inline *in)
{
	struct store_hasher hx;
	struct rd r;

	rd_init(&r, path, map, size, drop, fd, s, p, w, err);
	r.no_locations = !locations;
	r.in = in;
	if (content != NULL) { /* the bytes as the window reads them, while they are in a core's cache */
		store_hash_begin(&hx, 0, size);
		r.hx = &hx;
	}
	memset(s, 0, sizeof *s);
	s->meta_node_count = s->meta_edge_count = s->meta_trace_function_count = UINT64_MAX;
	/* the pass reads every page: v8s_window faults them in a window at
	 * a time ahead of it (a fault per few pages saved) */
	map_advice(map, size, MADV_SEQUENTIAL);
	progress_begin(p, "parse", size, "MB");
	if (in != NULL)
		strings_first(&r);
	v8s_window(&r);
	read_top(&r);
	if (in != NULL && r.last_strings != 0 && !r.last_met) /* not the object's own: what was made is wrong */
		in->stale = 1;
	if (r.have_meta) {
		read_later(&r);
		if (!r.checked)
			v8s_check(&r);
		if (in != NULL && in->done) /* else after the edges' own pass */
			v8_names_said(r.path, r.w, s);
	} else if (err->len == 0) {
		v8s_problem(&r, pos(&r), "no snapshot.meta");
	}
	progress_end(p);
	free(r.win);
	if (content != NULL) { /* what no window held: read through the mapping (the strings) */
		store_hash_add(&hx, map + r.hashed, (size_t)(size - r.hashed));
		*content = store_hash_end(&hx);
	}
	map_advice(map, size, MADV_RANDOM); /* strings are read one by one from now on */
	if (!r.have_meta) {
		v8_snap_free(s);
		return -1;
	}
	return 0;
}

void v8_parse_edges(const char *path, const uint8_t *map, uint64_t size, int drop, int fd, struct v8_snap *s,
		    v8_edge_sink *sink, void *ctx, struct progress *p, struct warnings *w)
{
	struct sbuf err; /* after meta every problem is a warning */
	struct rd r;

	sbuf_init(&err);
	rd_init(&r, path, map, size, drop, fd, s, p, w, &err);
	r.have_meta = 1;
	/* the pages before the edges were let go by the first pass already */
	r.ahead = r.behind = s->edges_at & ~(uint64_t)4095;
	v8s_read_edges(&r, sink, ctx);
	v8_names_said(r.path, r.w, s); /* after the edges: a cut there is what left no strings */
	free(r.win);
	sbuf_free(&err);
}

int v8_parse(const char *path, const uint8_t *map, uint64_t size, int drop, int fd, struct v8_snap *s,
	     struct progress *p, struct warnings *w, struct sbuf *err)
{
	if (v8_parse_heads(path, map, size, drop, fd, s, p, w, err, NULL, 1, NULL) < 0)
		return -1;
	progress_begin(p, "edges", size, "MB");
	v8_parse_edges(path, map, size, drop, fd, s, NULL, NULL, p, w);
	progress_end(p);
	return 0;
}

static void free_names(char **v, unsigned n)
{
	for (unsigned i = 0; v != NULL && i < n; i++)
		free(v[i]);
	free(v);
}

void v8_snap_free(struct v8_snap *s)
{
	void *arrays[] = { s->ntype, s->nname, s->ntrace, s->str_off, s->trace_function_infos,
			   s->trace_tree, s->locations, s->samples };

	v8_snap_free_edges(s);
	v8_snap_free_counts(s);
	v8_snap_free_node_columns(s);

	free_names(s->node_types, s->n_node_types);
	free_names(s->edge_types, s->n_edge_types);
	for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
		free(arrays[i]);
	memset(s, 0, sizeof *s);
}

const char *v8_near(const uint8_t *head, size_t n)
{
	const uint8_t *p = head != NULL ? skip_ws(head, head + n) : NULL;

	return p != NULL && p < head + n && *p == '{' && !v8_probe(head, n)
		       ? "a JSON object, but no V8 heap snapshot: none of its keys (\"snapshot\", \"edges\", "
			 "\"strings\") first"
		       : NULL;
}

int v8_probe(const uint8_t *head, size_t n)
{
	/* the snapshot's own keys: the parser takes them in any order, so
	 * the first may be any of them (V8 writes "snapshot" first); not
	 * "nodes" or "samples", which a CPU profile (.cpuprofile) starts with */
	static const char *const keys[] = { "\"snapshot\"", "\"edges\"", "\"strings\"",
					    "\"trace_function_infos\"", "\"trace_tree\"", "\"locations\"" };
	const uint8_t *end, *p;

	if (head == NULL || n == 0 || *head != '{')
		return 0;
	end = head + n;
	p = skip_ws(head + 1, end);
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		size_t k = strlen(keys[i]);
		if ((size_t)(end - p) >= k && memcmp(p, keys[i], k) == 0)
			return 1;
	}
	return 0;
}
