/* insp_search.c — the Search inspections, see inspect.h: string-regex,
 * largest-arrays, long-chains. Each is one pass over the per-node
 * arrays plus reads of the mapped records it needs; nothing is
 * allocated per object. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "query/inspect.h"

#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "graph/reader.h"
#include "graph/analysis.h"
#include "query/pattern.h"
#include "query/views.h"

#define POLL 0xfffff              /* progress and cancellation every 1M nodes */
#define VALUE_MAX (64 * 1024)     /* bytes of a String matched, at most */
#define NAME_MAX_BYTES 80         /* of a value in a group name */

/* N of "largest-arrays N": absent is def; else a whole number >= 1. */
static int parse_n(const char *insp, const char *arg, uint64_t def, uint64_t *n, struct sbuf *err)
{
	char *end;

	*n = def;
	if (arg == NULL || *arg == '\0')
		return 0;
	unsigned long long v = arg[0] >= '0' && arg[0] <= '9' ? strtoull(arg, &end, 10) : 0;
	if (v == 0 || *end != '\0' || v > UINT32_MAX) {
		sbuf_printf(err, "inspection %s: N must be a number from 1 to %u, not '", insp, UINT32_MAX);
		esc_append_again(err, (const uint8_t *)arg, strlen(arg)); /* as written */
		sbuf_addc(err, '\'');
		return -1;
	}
	*n = v;
	return 0;
}

/* ---- string-regex ---- */

/* One matching String: its value's bytes in the arena, and its hash. */
struct smatch {
	uint64_t hash;
	size_t off, len;
	node_t node;
};

struct regex_run {
	const struct heap *h;
	pcre2_code *re;
	pcre2_match_data *md;
	uint32_t string_cls;
	int value_off, coder_off;  /* -1 if absent */
	struct sbuf text;          /* scratch for decoded values */
	struct sbuf arena;         /* values of the matches */
	struct smatch *m;
	size_t n, cap;
};

static uint64_t hash_bytes(const uint8_t *s, size_t n)
{
	uint64_t x = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		x = (x ^ s[i]) * 0x100000001b3ull;
	return x;
}

/* A String's value bytes when they are ASCII Latin-1 (the common case,
 * matched in place); NULL when it needs decoding. */
static const uint8_t *ascii_value(const struct regex_run *x, node_t v, size_t *len)
{
	const struct heap *h = x->h;
	uint32_t nb;
	const uint8_t *d = heap_inst_data(h, v, &nb);
	struct harray arr;

	if (d == NULL || x->value_off < 0)
		return NULL;
	if (x->coder_off >= 0 && ((uint32_t)x->coder_off >= nb || d[x->coder_off] != 0))
		return NULL;
	uint64_t id = inst_ref_at(d, nb, (uint32_t)x->value_off, h->layout.idsize);
	node_t a = HW_NONE;
	for (edge_t e = h->out_start[v]; e < h->out_start[v + 1] && a == HW_NONE && id != 0; e++)
		if (h->node_kind[h->out[e]] == NK_PRIMARRAY && heap_node_id(h, h->out[e]) == id)
			a = h->out[e];
	if (a == HW_NONE || heap_array_data(h, a, &arr) < 0 || arr.data == NULL || arr.type != T_BYTE)
		return NULL;
	const uint8_t *q = arr.data;
	uint64_t n = arr.len;
	if (n > VALUE_MAX)
		n = VALUE_MAX;
	for (uint64_t i = 0; i < n; i++)
		if (q[i] >= 0x80)
			return NULL;
	*len = (size_t)n;
	return q;
}

/* Match String v; remember it if it matches. */
static void match_string(struct regex_run *x, node_t v)
{
	size_t len;
	const uint8_t *s = ascii_value(x, v, &len);

	if (s == NULL) {
		sbuf_reset(&x->text);
		if (node_string(x->h, v, &x->text, VALUE_MAX) != 0)
			return;
		if (x->text.len > VALUE_MAX) /* cut: drop the "..." mark */
			x->text.len -= 3;
		s = (const uint8_t *)x->text.buf;
		len = x->text.len;
	}
	if (pcre2_match(x->re, s, len, 0, 0, x->md, NULL) < 0)
		return;
	if (x->n == x->cap) {
		x->cap = x->cap ? x->cap * 2 : 256;
		x->m = xreallocarray(x->m, x->cap, sizeof *x->m);
	}
	x->m[x->n++] = (struct smatch){ hash_bytes(s, len), x->arena.len, len, v };
	sbuf_add(&x->arena, (const char *)s, len);
}

/* Hash, length and bytes of the value (in the arena, the context), node. */
static int cmp_smatch(const void *a, const void *b, void *ctx)
{
	const struct smatch *x = a, *y = b;
	const char *arena = ctx;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	int c = memcmp(arena + x->off, arena + y->off, x->len);
	if (c != 0)
		return c;
	return x->node < y->node ? -1 : x->node > y->node;
}

static int same_value(const struct regex_run *x, const struct smatch *a, const struct smatch *b)
{
	return a->hash == b->hash && a->len == b->len &&
	       memcmp(x->arena.buf + a->off, x->arena.buf + b->off, a->len) == 0;
}

/* The value, cut at 80 bytes on a character boundary; a NUL in it is
 * kept as C0 80 (a group name is a C string), which reports escape \x00. */
static char *value_name(const char *s, size_t len)
{
	size_t k = len;
	struct sbuf sb;

	if (len > NAME_MAX_BYTES) {
		k = NAME_MAX_BYTES;
		while (k > 0 && ((uint8_t)s[k] & 0xc0) == 0x80)
			k--;
	}
	sbuf_init(&sb);
	for (size_t i = 0; i < k; i++)
		if (s[i] == '\0') /* as names keep it: escaped \x00 like every view */
			sbuf_add(&sb, "\xc0\x80", 2);
		else
			sbuf_addc(&sb, s[i]);
	if (k < len)
		sbuf_adds(&sb, "...");
	if (sb.buf == NULL)
		sbuf_adds(&sb, "");
	return sbuf_detach(&sb);
}

static void regex_groups(struct regex_run *x, struct insp_result *r)
{
	hw_sort(x->m, x->n, sizeof *x->m, cmp_smatch, x->arena.buf);
	for (size_t i = 0, j; i < x->n; i = j) {
		for (j = i + 1; j < x->n && same_value(x, &x->m[i], &x->m[j]); j++)
			;
		node_t *nodes = xmalloc((j - i) * sizeof *nodes);
		for (size_t k = i; k < j; k++)
			nodes[k - i] = x->m[k].node;
		insp_add(r, x->h, value_name(x->arena.buf + x->m[i].off, x->m[i].len), IP_MEDIUM, nodes,
			 j - i, j - i);
	}
}

static uint32_t string_class(const struct heap *h)
{
	for (uint32_t c = 0; c < h->ncls; c++)
		if (strcmp(class_name(h, c), "java.lang.String") == 0)
			return c;
	return HW_NONE;
}

static int run_regex(struct heap *h, const struct objset *set, const char *arg,
		     struct insp_result *r, struct progress *p, struct sbuf *err)
{
	struct regex_run x = { .h = h, .value_off = -1, .coder_off = -1 };
	int code;
	PCRE2_SIZE at;
	uint8_t t;

	x.re = pcre2_compile((PCRE2_SPTR)arg, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &code, &at, NULL);
	if (x.re == NULL) {
		regex_check(arg, err); /* the message the rest of heapwalk gives */
		return -1;
	}
	pcre2_jit_compile(x.re, PCRE2_JIT_COMPLETE); /* where available; plain matching else */
	x.md = pcre2_match_data_create_from_pattern(x.re, NULL);
	/* a JVM's Strings by their class (their Latin-1 bytes read in
	 * place); another runtime's as its reader tells them (V8's strings
	 * and concatenations, their text as duplicate-strings reads it) */
	int jvm = heap_runtime_is(h, "jvm");
	x.string_cls = jvm ? string_class(h) : HW_NONE;
	if (x.string_cls != HW_NONE) {
		const struct runtime_ops *rt = heap_runtime(h);
		void *ctx = rt != NULL && rt->field_offset != NULL ? rt->open(h) : NULL;
		x.value_off = ctx != NULL ? rt->field_offset(ctx, x.string_cls, "value", &t) : -1;
		if (x.value_off >= 0 && t != T_OBJECT)
			x.value_off = -1;
		x.coder_off = ctx != NULL ? rt->field_offset(ctx, x.string_cls, "coder", &t) : -1;
		if (x.coder_off >= 0 && t != T_BYTE)
			x.coder_off = -1;
		if (ctx != NULL)
			rt->close(ctx);
	}
	sbuf_init(&x.text);
	sbuf_init(&x.arena);
	progress_begin(p, "string regex", h->n, "objects");
	for (node_t v = 1; v < h->n && (x.string_cls != HW_NONE || !jvm) && !progress_cancelled(p); v++) {
		if ((v & POLL) == 0)
			progress_update(p, v);
		if (!objset_has(set, v))
			continue;
		if (jvm ? h->node_class[v] != x.string_cls || h->node_kind[v] != NK_INSTANCE : !heap_is_string(h, v))
			continue;
		r->examined++;
		match_string(&x, v);
	}
	progress_end(p);
	regex_groups(&x, r);
	free(x.m);
	sbuf_free(&x.arena);
	sbuf_free(&x.text);
	pcre2_match_data_free(x.md);
	pcre2_code_free(x.re);
	return 0;
}

/* ---- largest-arrays ---- */

/* Is a smaller than b: less shallow, or as much and a later node? */
static int arr_less(const struct heap *h, node_t a, node_t b)
{
	if (h->node_shallow[a] != h->node_shallow[b])
		return h->node_shallow[a] < h->node_shallow[b];
	return a > b;
}

/* A min-heap of the n largest so far: hp[0] is the smallest. */
static void heap_down(const struct heap *h, node_t *hp, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < n && arr_less(h, hp[l], hp[m]))
			m = l;
		if (l + 1 < n && arr_less(h, hp[l + 1], hp[m]))
			m = l + 1;
		if (m == i)
			return;
		node_t t = hp[i];
		hp[i] = hp[m];
		hp[m] = t;
		i = m;
	}
}

static void heap_up(const struct heap *h, node_t *hp, size_t i)
{
	while (i > 0 && arr_less(h, hp[i], hp[(i - 1) / 2])) {
		node_t t = hp[i];
		hp[i] = hp[(i - 1) / 2];
		hp[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

/* A JVM array is one of kind NK_*ARRAY; another runtime's is what its
 * reader gives a length (V8: FixedArrays, ArrayBuffer stores), or of a
 * class its runtime names an array (.NET: by_class, array_class). */
static int is_array(const struct heap *h, int jvm, const uint8_t *by_class, node_t v)
{
	uint8_t t;

	if (jvm)
		return h->node_kind[v] == NK_OBJARRAY || h->node_kind[v] == NK_PRIMARRAY;
	return (by_class != NULL && by_class[h->node_class[v]]) || heap_array_length(h, v, &t) >= 0;
}

/* "int[1000000] @0x...", "java.lang.String[12][] @0x...": the Java
 * spelling of the class ("[I", "[[Ljava.lang.String;") with the length
 * in the first brackets. Another runtime's: its name (or class) and
 * length, "(object elements)[5000] @0x...", the length left out when
 * the reader knows of no element. */
static char *array_name(const struct heap *h, node_t v)
{
	static const char *const prim[128] = {
		['Z'] = "boolean", ['C'] = "char", ['F'] = "float", ['D'] = "double",
		['B'] = "byte", ['S'] = "short", ['I'] = "int", ['J'] = "long",
	};
	const char *cn = class_name(h, h->node_class[v]), *e = cn;
	uint8_t t;
	int64_t len = heap_array_length(h, v, &t);
	char id[32];
	struct sbuf sb;

	sbuf_init(&sb);
	if (!heap_runtime_is(h, "jvm")) {
		if (heap_string(h, v, &sb, NAME_MAX_BYTES) < 0 || sb.len == 0) {
			sbuf_reset(&sb);
			sbuf_adds(&sb, cn);
		}
		if (len > 0) /* none: none known (V8 leaves a FixedDoubleArray's numbers out) */
			sbuf_printf(&sb, "[%lld]", (long long)len);
		node_id_text(h, v, id, sizeof id);
		sbuf_printf(&sb, " @%s", id);
		return sbuf_detach(&sb);
	}
	while (*e == '[')
		e++;
	size_t dims = (size_t)(e - cn), elen = strlen(e);
	if (dims == 0)
		sbuf_adds(&sb, cn);
	else if (*e == 'L' && elen >= 2 && e[elen - 1] == ';')
		sbuf_add(&sb, e + 1, elen - 2);
	else if (elen == 1 && (unsigned char)*e < 128 && prim[(unsigned char)*e] != NULL)
		sbuf_adds(&sb, prim[(unsigned char)*e]);
	else
		sbuf_adds(&sb, e);
	sbuf_printf(&sb, "[%lld]", (long long)len);
	for (size_t i = 1; i < dims; i++)
		sbuf_adds(&sb, "[]");
	node_id_text(h, v, id, sizeof id);
	sbuf_printf(&sb, " @%s", id);
	return sbuf_detach(&sb);
}

static int run_arrays(struct heap *h, const struct objset *set, const char *arg,
		      struct insp_result *r, struct progress *p, struct sbuf *err)
{
	uint64_t want;

	if (parse_n("largest-arrays", arg, 20, &want, err) < 0)
		return -1;
	size_t cap = want < h->n ? (size_t)want : h->n, n = 0;
	node_t *hp = xmalloc((cap + 1) * sizeof *hp);
	int jvm = heap_runtime_is(h, "jvm");
	const struct runtime_ops *rt = heap_runtime(h);
	uint8_t *by_class = NULL;
	if (!jvm && rt != NULL && rt->array_class != NULL) {
		by_class = xcalloc((size_t)h->ncls + 1, 1);
		for (uint32_t c = 0; c < h->ncls; c++)
			by_class[c] = (uint8_t)(rt->array_class(h, c) != 0);
	}
	progress_begin(p, "largest arrays", h->n, "objects");
	for (node_t v = 1; v < h->n && !progress_cancelled(p); v++) {
		if ((v & POLL) == 0)
			progress_update(p, v);
		if (!objset_has(set, v) || !is_array(h, jvm, by_class, v))
			continue;
		r->examined++;
		if (n < cap) {
			hp[n++] = v;
			heap_up(h, hp, n - 1);
		} else if (n > 0 && arr_less(h, hp[0], v)) {
			hp[0] = v;
			heap_down(h, hp, n, 0);
		}
	}
	progress_end(p);
	for (size_t i = 0; i < n; i++) {
		node_t *one = xmalloc(sizeof *one);
		*one = hp[i];
		insp_add(r, h, array_name(h, hp[i]), IP_MEDIUM, one, 1, h->retained[hp[i]]);
	}
	free(hp);
	free(by_class);
	return 0;
}

/* ---- long-chains ---- */

/* Links between members of one class through one reference field:
 * v.field == w. key: where the heap has a field table (h->refoffs),
 * the field's index there (a class and one of its reference fields);
 * elsewhere a (class, label) pair of struct labels. */
struct links {
	node_t *v, *w;
	uint32_t *key;
	size_t n, cap;
};

static void link_add(struct links *l, node_t v, node_t w, uint32_t key)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 4096;
		l->v = xreallocarray(l->v, l->cap, sizeof *l->v);
		l->w = xreallocarray(l->w, l->cap, sizeof *l->w);
		l->key = xreallocarray(l->key, l->cap, sizeof *l->key);
	}
	l->v[l->n] = v;
	l->w[l->n] = w;
	l->key[l->n++] = key;
}

/* v's strong references to members of its own class (cand), each
 * matched to the field that holds it by comparing ids: one read of the
 * target's record per such reference, and none when the class has one
 * reference field only. */
static void node_links(const struct heap *h, const struct objset *set, node_t v, struct links *l,
		       node_t *cand, uint64_t *cid)
{
	uint32_t c = h->node_class[v], nb;
	const struct hclass *k = &h->cls[c];
	size_t nc = 0;

	for (edge_t e = h->out_start[v]; e < h->out_start[v + 1]; e++) {
		node_t w = h->out[e];
		if (w != v && h->node_class[w] == c && h->node_kind[w] == NK_INSTANCE && objset_has(set, w))
			cand[nc++] = w;
	}
	if (nc == 0)
		return;
	if (k->nrefs == 1) {
		link_add(l, v, cand[0], k->ref_first);
		return;
	}
	const uint8_t *d = heap_inst_data(h, v, &nb);
	if (d == NULL)
		return;
	for (size_t i = 0; i < nc; i++)
		cid[i] = heap_node_id(h, cand[i]);
	for (uint32_t j = 0; j < k->nrefs; j++) {
		uint64_t id = inst_ref_at(d, nb, h->refoffs[k->ref_first + j], h->layout.idsize);
		for (size_t i = 0; i < nc && id != 0; i++)
			if (cid[i] == id) {
				link_add(l, v, cand[i], k->ref_first + j);
				break;
			}
	}
}

/* The (class, label) pairs of the links of a heap with no field table:
 * a label as heap_edge_label tells it, interned to a small id. */
struct labels {
	uint32_t *slot;      /* id + 1, 0 empty; open addressing, grown at half */
	size_t cap;
	uint32_t *cls, *at;  /* per id: the class, the label's offset in text */
	uint32_t n, room;
	struct sbuf text;    /* the labels, each ending in a NUL */
};

static uint64_t label_hash(uint32_t c, const char *s, size_t n)
{
	return hw_fnv(s, n) ^ (c + 1) * 0x9e3779b97f4a7c15ULL;
}

static uint32_t label_id(struct labels *t, uint32_t c, const char *s, size_t len)
{
	if (2 * ((size_t)t->n + 1) > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		uint32_t *slot = xcalloc(cap, sizeof *slot);
		for (uint32_t i = 0; i < t->n; i++) {
			const char *x = t->text.buf + t->at[i];
			size_t k = label_hash(t->cls[i], x, strlen(x)) & (cap - 1);
			while (slot[k] != 0)
				k = (k + 1) & (cap - 1);
			slot[k] = i + 1;
		}
		free(t->slot);
		t->slot = slot;
		t->cap = cap;
	}
	size_t k = label_hash(c, s, len) & (t->cap - 1);
	for (; t->slot[k] != 0; k = (k + 1) & (t->cap - 1)) {
		uint32_t i = t->slot[k] - 1;
		if (t->cls[i] == c && strncmp(t->text.buf + t->at[i], s, len) == 0 &&
		    t->text.buf[t->at[i] + len] == '\0')
			return i;
	}
	if (t->n == t->room) {
		t->room = t->room ? 2 * t->room : 256;
		t->cls = xreallocarray(t->cls, t->room, sizeof *t->cls);
		t->at = xreallocarray(t->at, t->room, sizeof *t->at);
	}
	t->cls[t->n] = c;
	t->at[t->n] = (uint32_t)t->text.len;
	sbuf_add(&t->text, s, len);
	sbuf_addc(&t->text, '\0');
	t->slot[k] = ++t->n;
	return t->n - 1;
}

static void labels_free(struct labels *t)
{
	free(t->slot);
	free(t->cls);
	free(t->at);
	sbuf_free(&t->text);
}

/* v's strong references to other members of its own class, each keyed
 * by its label: heap_edge_label's text, asked only of those. An
 * array's element ("[3]", "[]") is no field: left out. */
static void labelled_links(const struct heap *h, const struct objset *set, node_t v, struct links *l,
			   struct labels *t, struct sbuf *tmp)
{
	uint32_t c = h->node_class[v];
	node_t last = HW_NONE;

	for (edge_t e = h->out_start[v]; e < h->out_start[v + 1]; e++) {
		node_t w = h->out[e];
		if (w == v || w == last || h->node_class[w] != c || h->node_kind[w] != NK_INSTANCE ||
		    !objset_has(set, w))
			continue;
		last = w;
		sbuf_reset(tmp);
		heap_edge_label(h, v, w, tmp);
		if (tmp->buf[0] != '[')
			link_add(l, v, w, label_id(t, c, tmp->buf, tmp->len));
	}
}

/* The name of the reference field at instance-data offset off of class c. */
static const char *ref_field_name(const struct heap *h, uint32_t c, uint32_t off)
{
	const struct hfield *f = class_field_at(h, c, off);

	return f != NULL && f->type == T_OBJECT ? heap_str(h, f->name) : "?";
}

/* One (class, field): links V[i] -> W[i], V ascending. */
struct chainset {
	const struct heap *h;
	uint32_t key;
	const node_t *V, *W;
	size_t n;
	bits_t *pred, *seen;
	node_t *walk;        /* the chain being walked */
	size_t wcap;
	uint64_t min;        /* chains longer than this are groups */
	struct insp_result *r;
	const struct labels *lab; /* the keys' labels; NULL: h->refoffs' fields */
};

static int cmp_node_t(const void *a, const void *b)
{
	node_t x = *(const node_t *)a, y = *(const node_t *)b;

	return x < y ? -1 : x > y;
}

static node_t chain_next(const struct chainset *s, node_t v)
{
	size_t lo = lower_bound_u32(s->V, s->n, v);

	return lo < s->n && s->V[lo] == v ? s->W[lo] : HW_NONE;
}

/* Walk from v until the end or an object already taken; a group when long. */
static void chain_walk(struct chainset *s, node_t v)
{
	const struct heap *h = s->h;
	size_t n = 0;

	for (; v != HW_NONE && !bit_get(s->seen, v); v = chain_next(s, v)) {
		bit_set(s->seen, v);
		if (n == s->wcap) {
			s->wcap = s->wcap ? s->wcap * 2 : 4096;
			s->walk = xreallocarray(s->walk, s->wcap, sizeof *s->walk);
		}
		s->walk[n++] = v;
	}
	if (n <= s->min)
		return;
	node_t head = s->walk[0];
	uint32_t c = h->node_class[head];
	const char *field = s->lab != NULL ? s->lab->text.buf + s->lab->at[s->key]
					   : ref_field_name(h, c, h->refoffs[s->key]);
	char id[32];
	node_id_text(h, head, id, sizeof id);
	node_t *nodes = xmalloc(n * sizeof *nodes);
	memcpy(nodes, s->walk, n * sizeof *nodes);
	hw_qsort(nodes, n, sizeof *nodes, cmp_node_t);
	insp_add(s->r, h, xasprintf("%s.%s: %zu objects from @%s", class_name(h, c), field, n, id),
		 IP_MEDIUM, nodes, n, n);
}

/* Heads first (members no link of this field points to), in index
 * order, then what is left: cycles, each from its lowest node. */
static void chains_of_field(struct chainset *s)
{
	for (size_t i = 0; i < s->n; i++)
		bit_set(s->pred, s->W[i]);
	for (size_t i = 0; i < s->n; i++)
		if (!bit_get(s->pred, s->V[i]))
			chain_walk(s, s->V[i]);
	for (size_t i = 0; i < s->n; i++)
		if (!bit_get(s->seen, s->V[i]))
			chain_walk(s, s->V[i]);
	for (size_t i = 0; i < s->n; i++) {
		bit_clr(s->pred, s->W[i]);
		bit_clr(s->seen, s->V[i]);
		bit_clr(s->seen, s->W[i]);
	}
}

/* A key's links V[0..n) -> W, V ascending, without the same link
 * twice (one target through two references the label does not tell
 * apart): their new count. *two: some source has two targets. */
static size_t links_once(node_t *V, node_t *W, size_t n, int *two)
{
	size_t m = 0;

	*two = 0;
	for (size_t i = 0; i < n; i++) {
		if (m > 0 && V[m - 1] == V[i]) {
			*two |= W[m - 1] != W[i];
			continue;
		}
		V[m] = V[i];
		W[m++] = W[i];
	}
	return m;
}

/* Does a source of V[0..n) -> W (V ascending) have two targets? */
static int two_targets(const node_t *V, const node_t *W, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (V[i] == V[i - 1] && W[i] != W[i - 1])
			return 1;
	return 0;
}

/* Scratch per node for path_bounded, zero between calls. */
struct pathwork {
	uint32_t *indeg, *dist, *first; /* first: 1 + a node's first link (V ascending), 0 none */
	node_t *queue;
};

/* Whether no path through a key's links V[0..n) -> W (V ascending, a
 * source's links together) passes more than min objects: the links
 * without a cycle, and the longest path (Kahn's order) of min objects at
 * most. A chain through any one field is such a path: where this holds,
 * links the label does not tell apart hide no chain longer than min (a
 * sorted set's tree nodes, Left and Right both named by their type). */
static int path_bounded(struct pathwork *pw, const node_t *V, const node_t *W, size_t n, uint64_t min)
{
	size_t nq = 0, done = 0, nodes = 0;
	int ok = 1;

	for (size_t i = 0; i < n; i++) {
		if (pw->first[V[i]] == 0)
			pw->first[V[i]] = (uint32_t)i + 1;
		pw->indeg[W[i]]++;
	}
	/* every node once: the sources (their first link), the targets that are none */
	for (size_t i = 0; i < n; i++) {
		node_t x[2] = { V[i], W[i] };
		for (int k = 0; k < 2; k++)
			if (pw->dist[x[k]] == 0 && (k == 0 ? pw->first[V[i]] == i + 1 : pw->first[W[i]] == 0)) {
				pw->dist[x[k]] = 1;
				nodes++;
				if (pw->indeg[x[k]] == 0)
					pw->queue[nq++] = x[k];
			}
	}
	while (done < nq && ok) {
		node_t u = pw->queue[done++];
		for (size_t i = pw->first[u]; i > 0 && i <= n && V[i - 1] == u; i++) {
			node_t w = W[i - 1];
			if (pw->dist[u] + 1 > pw->dist[w])
				pw->dist[w] = pw->dist[u] + 1;
			if (pw->dist[w] > min)
				ok = 0;
			if (--pw->indeg[w] == 0)
				pw->queue[nq++] = w;
		}
	}
	ok = ok && done == nodes; /* a cycle leaves some never freed */
	for (size_t i = 0; i < n; i++) {
		pw->first[V[i]] = pw->indeg[V[i]] = pw->dist[V[i]] = 0;
		pw->first[W[i]] = pw->indeg[W[i]] = pw->dist[W[i]] = 0;
	}
	return ok;
}

/* Links grouped by key (a counting sort, stable: V stays ascending),
 * then each key's chains. nkeys: h->nrefoffs, or lab's count. 0, or
 * -1 with err when a key could hold a chain longer than min but its
 * label names no one field (the dump's "<?>", or one label for two
 * references of an object). */
static int chains(const struct heap *h, struct links *l, uint32_t nkeys, const struct labels *lab,
		  uint64_t min, struct insp_result *r, struct progress *p, struct sbuf *err)
{
	uint32_t *start = xcalloc((size_t)nkeys + 2, sizeof *start);
	node_t *V = xmalloc((l->n + 1) * sizeof *V), *W = xmalloc((l->n + 1) * sizeof *W);
	struct chainset s = { .h = h, .min = min, .r = r, .lab = lab };
	int rc = 0;

	for (size_t i = 0; i < l->n; i++)
		start[l->key[i] + 1]++;
	for (uint32_t k = 0; k <= nkeys; k++)
		start[k + 1] += start[k];
	uint32_t *pos = xmalloc(((size_t)nkeys + 1) * sizeof *pos);
	memcpy(pos, start, ((size_t)nkeys + 1) * sizeof *pos);
	for (size_t i = 0; i < l->n; i++) {
		V[pos[l->key[i]]] = l->v[i];
		W[pos[l->key[i]]++] = l->w[i];
	}
	free(pos);
	s.pred = xcalloc(bits_words(h->n), sizeof *s.pred);
	s.seen = xcalloc(bits_words(h->n), sizeof *s.seen);
	struct pathwork pw = { 0 };
	for (uint32_t k = 0; k < nkeys && !progress_cancelled(p); k++) {
		if (start[k + 1] - start[k] < 1)
			continue;
		const char *label = lab != NULL ? lab->text.buf + lab->at[k] : NULL;
		size_t all = start[k + 1] - start[k];
		/* a label that names no one field, with links enough for a
		 * chain longer than min: whether they could make one at all,
		 * asked of all of them (links_once keeps one a source) */
		int bounded = 0;
		if (label != NULL && all >= min &&
		    (strcmp(label, "<?>") == 0 || two_targets(V + start[k], W + start[k], all))) {
			if (pw.indeg == NULL) { /* path_bounded's room, once */
				pw.indeg = xcalloc((size_t)h->n + 1, sizeof *pw.indeg);
				pw.dist = xcalloc((size_t)h->n + 1, sizeof *pw.dist);
				pw.first = xcalloc((size_t)h->n + 1, sizeof *pw.first);
				pw.queue = xmalloc(((size_t)h->n + 1) * sizeof *pw.queue);
			}
			bounded = path_bounded(&pw, V + start[k], W + start[k], all, min);
		}
		int two;
		s.V = V + start[k];
		s.W = W + start[k];
		s.n = links_once(V + start[k], W + start[k], all, &two);
		s.key = k;
		if (label != NULL && (two || strcmp(label, "<?>") == 0)) {
			/* no chain of more than min objects: it cannot matter */
			if (s.n < min || bounded)
				continue;
			/* the names are the dump's: escaped for the terminal */
			char *cn = esc_str(class_name(h, lab->cls[k])), *el = esc_str(label);
			if (two)
				sbuf_printf(err, "inspection long-chains: objects of %s refer to two of their class "
					    "through references the dump names alike ('%s'), which tells no one "
					    "field to follow (-e without them runs it on the others)", cn, el);
			else
				sbuf_printf(err, "inspection long-chains: the dump names no field of %s's "
					    "references to its own class (%zu of them), which tells none to "
					    "follow (-e without them runs it on the others)", cn, s.n);
			free(cn);
			free(el);
			rc = -1;
			break;
		}
		chains_of_field(&s);
	}
	free(s.walk);
	free(s.pred);
	free(s.seen);
	free(pw.indeg);
	free(pw.dist);
	free(pw.first);
	free(pw.queue);
	free(V);
	free(W);
	free(start);
	return rc;
}

static int run_chains(struct heap *h, const struct objset *set, const char *arg,
		      struct insp_result *r, struct progress *p, struct sbuf *err)
{
	uint64_t min;
	struct links l = { 0 };
	uint32_t most = 1;
	int rc = 0;

	if (parse_n("long-chains", arg, 1000, &min, err) < 0)
		return -1;
	/* a heap with a field table (HPROF's) matches references to its
	 * fields; the others are told by their labels */
	int fields = h->nrefoffs > 0;
	struct labels lab = { 0 };
	struct sbuf tmp;
	sbuf_init(&lab.text);
	sbuf_init(&tmp);
	for (uint32_t c = 0; c < h->ncls; c++) /* candidate buffers: out-degree bound */
		if (h->cls[c].nrefs + 1 > most)
			most = h->cls[c].nrefs + 1;
	node_t *cand = xmalloc(((size_t)most + 1) * sizeof *cand);
	uint64_t *cid = xmalloc(((size_t)most + 1) * sizeof *cid);
	progress_begin(p, "long chains", h->n, "objects");
	for (node_t v = 1; v < h->n && !progress_cancelled(p); v++) {
		if ((v & POLL) == 0)
			progress_update(p, v);
		if (h->node_kind[v] != NK_INSTANCE || !objset_has(set, v))
			continue;
		if (!fields) {
			r->examined += h->out_start[v + 1] > h->out_start[v];
			labelled_links(h, set, v, &l, &lab, &tmp);
			continue;
		}
		if (h->cls[h->node_class[v]].nrefs == 0)
			continue;
		r->examined++;
		node_links(h, set, v, &l, cand, cid);
	}
	progress_end(p);
	if (!progress_cancelled(p))
		rc = fields ? chains(h, &l, h->nrefoffs, NULL, min, r, p, err)
			    : chains(h, &l, lab.n, &lab, min, r, p, err);
	free(cand);
	free(cid);
	free(l.v);
	free(l.w);
	free(l.key);
	labels_free(&lab);
	sbuf_free(&tmp);
	return rc;
}

const struct inspection insp_search[] = {
	{ "string-regex", "Search", "Strings whose value matches a regex, per value",
	  "a PCRE2 regex", 1, "strings", 0, run_regex, 1, NULL, 1 },
	{ "largest-arrays", "Search", "The largest arrays", "N, how many (20)", 0, "retained", 1,
	  run_arrays, 1, NULL, 0 },
	{ "long-chains", "Search", "Chains of one class through one field longer than N",
	  "N, the length (1000)", 0, "length", 0, run_chains, 1, NULL, 0 },
	{ .name = NULL },
};
