/* leaks.c — the leaked objects of three heaps grouped by their retainer
 * traces; see leaks.h. */
#include "query/leaks.h"

#include <stdlib.h>
#include <string.h>

#include "graph/analysis.h"
#include "graph/reader.h"
#include "graph/resident.h"
#include "query/baseline.h"
#include "query/views.h"

#define NONE32 UINT32_MAX

/* ---- interned strings and traces (open addressing, grown at half) ---- */

struct strtab {
	char ***strs;        /* the view's array */
	size_t *nstrs;
	size_t cstrs;        /* its room */
	uint32_t *slot;      /* index + 1 into strs, 0 empty */
	size_t cap;
};

static uint32_t str_intern(struct strtab *t, const char *s)
{
	if (2 * (*t->nstrs + 1) > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 1024;
		uint32_t *slot = xcalloc(cap, sizeof *slot);
		for (size_t i = 0; i < *t->nstrs; i++) {
			const char *x = (*t->strs)[i];
			size_t k = hw_fnv(x, strlen(x)) & (cap - 1);
			while (slot[k] != 0)
				k = (k + 1) & (cap - 1);
			slot[k] = (uint32_t)i + 1;
		}
		free(t->slot);
		t->slot = slot;
		t->cap = cap;
	}
	size_t k = hw_fnv(s, strlen(s)) & (t->cap - 1);
	for (; t->slot[k] != 0; k = (k + 1) & (t->cap - 1))
		if (strcmp((*t->strs)[t->slot[k] - 1], s) == 0)
			return t->slot[k] - 1;
	if (*t->nstrs == t->cstrs) {
		t->cstrs = t->cstrs ? 2 * t->cstrs : 256;
		*t->strs = xreallocarray(*t->strs, t->cstrs, sizeof **t->strs);
	}
	(*t->strs)[*t->nstrs] = xstrdup(s);
	t->slot[k] = (uint32_t)++*t->nstrs;
	return (uint32_t)(*t->nstrs - 1);
}

/* A trace is a node of a trie: its parent trace and the step to it (a
 * root trace: parent NONE32, holder the root kind's words and field the
 * root object's class); handed to the view as its leak_tnode. */
struct tnode {
	uint32_t parent, holder, field;
};
_Static_assert(sizeof(struct tnode) == sizeof(struct leak_tnode), "a trie node is a leak_tnode");

struct trie {
	struct tnode *t;
	size_t n, cap;
	uint32_t *slot;      /* index + 1, 0 empty */
	size_t scap;
};

static uint64_t tkey(uint32_t parent, uint32_t holder, uint32_t field)
{
	uint32_t k[3] = { parent, holder, field };
	return hw_fnv(k, sizeof k);
}

static uint32_t trie_get(struct trie *tr, uint32_t parent, uint32_t holder, uint32_t field)
{
	if (2 * (tr->n + 1) > tr->scap) {
		size_t cap = tr->scap ? 2 * tr->scap : 1024;
		uint32_t *slot = xcalloc(cap, sizeof *slot);
		for (size_t i = 0; i < tr->n; i++) {
			size_t k = tkey(tr->t[i].parent, tr->t[i].holder, tr->t[i].field) & (cap - 1);
			while (slot[k] != 0)
				k = (k + 1) & (cap - 1);
			slot[k] = (uint32_t)i + 1;
		}
		free(tr->slot);
		tr->slot = slot;
		tr->scap = cap;
	}
	size_t k = tkey(parent, holder, field) & (tr->scap - 1);
	for (; tr->slot[k] != 0; k = (k + 1) & (tr->scap - 1)) {
		const struct tnode *x = &tr->t[tr->slot[k] - 1];
		if (x->parent == parent && x->holder == holder && x->field == field)
			return tr->slot[k] - 1;
	}
	if (tr->n == tr->cap) {
		tr->cap = tr->cap ? 2 * tr->cap : 1024;
		tr->t = xreallocarray(tr->t, tr->cap, sizeof *tr->t);
	}
	tr->t[tr->n] = (struct tnode){ parent, holder, field };
	tr->slot[k] = (uint32_t)++tr->n;
	return (uint32_t)(tr->n - 1);
}

struct walk {
	struct heap *h;
	struct leaks_view *v;
	struct strtab st;
	struct trie tr;
	node_t *parent;      /* breadth first from the GC roots: the way back; a root: itself */
	uint32_t *tid;       /* each node's trace, NONE32 until made */
	size_t capsteps;     /* room in v->steps */
	struct sbuf tmp;
};

/* The words of a GC root's first real kind ("static field", "JNI global"). */
static uint32_t root_words(struct walk *w, node_t x)
{
	const struct heap *h = w->h;
	size_t i = lower_bound_u32s(h->root_rec, h->nroot_rec, sizeof *h->root_rec, x);

	for (; i < h->nroot_rec && h->root_rec[i].node == x; i++)
		if (h->root_rec[i].kind != RK_WEAK_ONLY && h->root_rec[i].kind != RK_UNREACHABLE)
			break;
	sbuf_reset(&w->tmp);
	if (i < h->nroot_rec && h->root_rec[i].node == x)
		heap_root_kind(h, h->root_rec[i].kind, h->root_rec[i].native, &w->tmp);
	else
		sbuf_adds(&w->tmp, "root");
	return str_intern(&w->st, w->tmp.buf);
}

/* Is x a GC root (not one of the pseudo roots heapwalk adds)? */
static int real_root(const struct heap *h, node_t x)
{
	size_t i = lower_bound_u32s(h->root_rec, h->nroot_rec, sizeof *h->root_rec, x);

	for (; i < h->nroot_rec && h->root_rec[i].node == x; i++)
		if (h->root_rec[i].kind != RK_WEAK_ONLY && h->root_rec[i].kind != RK_UNREACHABLE)
			return 1;
	return 0;
}

static uint32_t holder_label(struct walk *w, node_t x)
{
	trace_holder(w->h, x, &w->tmp);
	return str_intern(&w->st, w->tmp.buf);
}

/* A holder of more references than this (a dictionary, a JS object used
 * as a map) reads as one slot, "[*]": one cluster for every key. Not a
 * class's statics, nor a GC root's fields (a JavaScript global object's
 * variables): each its own way in, as one holder of many of them. */
#define MANY_FIELDS 32

static uint32_t field_label(struct walk *w, node_t src, node_t dst)
{
	const struct heap *h = w->h;

	if (h->node_kind[src] != NK_CLASS && h->out_start[src + 1] - h->out_start[src] > MANY_FIELDS &&
	    !real_root(h, src))
		return str_intern(&w->st, "[*]");
	trace_field(h, src, dst, &w->tmp);
	return str_intern(&w->st, w->tmp.buf);
}

/* The trace of x (reached from a root): made for x and the nodes up its
 * way back that have none yet, each node once in all. */
static uint32_t trace_of(struct walk *w, node_t target, node_t *stk)
{
	size_t sp = 0;
	node_t x = target;

	while (w->tid[x] == NONE32) {
		stk[sp++] = x;
		if (w->parent[x] == x)
			break;
		x = w->parent[x];
	}
	while (sp > 0) {
		node_t y = stk[--sp];
		if (w->tid[y] != NONE32)
			continue;
		node_t p = w->parent[y];
		if (p == y) {
			w->tid[y] = trie_get(&w->tr, NONE32, root_words(w, y), holder_label(w, y));
			continue;
		}
		uint32_t hl = holder_label(w, p), fl = field_label(w, p, y), pt = w->tid[p];
		const struct tnode *pn = &w->tr.t[pt];
		/* a run of one holder class (a linked list, a tree, whatever
		 * the fields) reads as one step, its first field */
		w->tid[y] = pn->parent != NONE32 && pn->holder == hl ? pt : trie_get(&w->tr, pt, hl, fl);
	}
	return w->tid[target];
}

/* ---- clusters ---- */

struct top {
	node_t node;
	uint32_t trace, cls;
	uint64_t objects, shallow, retained;
};

static int cmp_top(const void *a, const void *b)
{
	const struct top *x = a, *y = b;

	if (x->trace != y->trace)
		return x->trace < y->trace ? -1 : 1;
	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

static int cmp_cluster(const void *a, const void *b)
{
	const struct leak_cluster *x = a, *y = b;

	if (x->retained != y->retained)
		return x->retained > y->retained ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->example < y->example ? -1 : x->example > y->example;
}

/* Breadth first from every GC root: the way back to one for each
 * object they reach (the shortest), in parent[]; HW_NONE: not reached. */
static void ways_back(struct heap *h, node_t *parent, node_t *queue)
{
	size_t qh = 0, qt = 0;

	memset(parent, 0xff, (size_t)h->n * sizeof *parent);
	for (size_t i = 0; i < h->nroots; i++) {
		node_t r = h->roots[i];
		if (r != 0 && parent[r] == HW_NONE && real_root(h, r)) {
			parent[r] = r;
			queue[qt++] = r;
		}
	}
	while (qh < qt) {
		node_t x = queue[qh++];
		for (edge_t j = h->out_start[x]; j < h->out_start[x + 1]; j++) {
			node_t y = h->out[j];
			if (parent[y] == HW_NONE) {
				parent[y] = x;
				queue[qt++] = y;
			}
		}
	}
}

/* The example's way from its root down, runs of one step counted: of
 * one holder class by one field (a list's next.next...); a step by
 * another field of the same class is a step of its own (a trial:
 * app.registry then registry.slots, both Object, read "Object registry
 * times 2"). */
static void example_path(struct walk *w, struct leak_cluster *c, node_t *stk)
{
	struct leaks_view *v = w->v;
	size_t sp = 0;

	for (node_t x = c->example;; x = w->parent[x]) {
		stk[sp++] = x;
		if (w->parent[x] == x)
			break;
	}
	c->root_node = stk[sp - 1];
	c->first = v->nsteps;
	for (size_t i = sp - 1; i > 0; i--) {
		node_t p = stk[i], y = stk[i - 1];
		uint32_t hl = holder_label(w, p);
		sbuf_reset(&w->tmp); /* the example's own field, its index too */
		heap_edge_label(w->h, p, y, &w->tmp);
		uint32_t fl = str_intern(&w->st, w->tmp.buf);
		if (v->nsteps > c->first && v->steps[v->nsteps - 1].holder == hl && v->steps[v->nsteps - 1].field == fl) {
			v->steps[v->nsteps - 1].times++;
			continue;
		}
		if (v->nsteps == w->capsteps) {
			w->capsteps = w->capsteps ? 2 * w->capsteps : 256;
			v->steps = xreallocarray(v->steps, w->capsteps, sizeof *v->steps);
		}
		v->steps[v->nsteps++] = (struct leak_step){ hl, fl, p, 1 };
	}
	c->nsteps = v->nsteps - c->first;
}

void view_leaks(struct heap *h, const struct objset *leaked, size_t shown, struct leaks_view *v)
{
	struct walk w = { .h = h, .v = v };
	node_t *queue = xmalloc(((size_t)h->n + 1) * sizeof *queue);
	struct objset live;

	memset(v, 0, sizeof *v);
	w.st.strs = &v->strs;
	w.st.nstrs = &v->nstrs;
	sbuf_init(&w.tmp);
	w.parent = xmalloc(((size_t)h->n + 1) * sizeof *w.parent);
	ways_back(h, w.parent, queue);
	/* the leaked objects the roots reach */
	objset_empty(h, &live);
	for (node_t x = 1; x < h->n; x++)
		if (objset_has(leaked, x)) {
			if (w.parent[x] != HW_NONE)
				bit_set(live.bits, x);
			else
				v->unreachable++;
		}
	objset_recount(h, &live);
	v->leaked = live.count;
	v->leaked_bytes = live.shallow;

	size_t ntop = 0;
	node_t *topn = view_top_members(h, &live, &ntop);
	struct top *tops = xcalloc(ntop + 1, sizeof *tops);
	w.tid = xmalloc(((size_t)h->n + 1) * sizeof *w.tid);
	memset(w.tid, 0xff, ((size_t)h->n + 1) * sizeof *w.tid);
	analysis_domchildren(h);
	v->tops = ntop;
	for (size_t i = 0; i < ntop; i++) {
		struct top *t = &tops[i];
		node_t x = topn[i];
		t->node = x;
		t->trace = trace_of(&w, x, queue);
		t->cls = holder_label(&w, x);
		t->retained = h->retained[x];
		v->retained += t->retained;
		/* the leaked objects it retains: its dominator subtree's members */
		size_t sp = 0;
		queue[sp++] = x;
		while (sp > 0) {
			node_t y = queue[--sp];
			if (bit_get(live.bits, y)) {
				t->objects++;
				t->shallow += h->node_shallow[y];
			}
			for (node_t j = h->dom_start[y]; j < h->dom_start[y + 1]; j++)
				queue[sp++] = h->dom_child[j];
		}
	}
	free(topn);
	if (ntop > 0)
		qsort(tops, ntop, sizeof *tops, cmp_top);
	/* a cluster for each run of one trace and class: ntop at most */
	v->cl = xmalloc((ntop + 1) * sizeof *v->cl);
	for (size_t i = 0; i < ntop;) {
		size_t j = i;
		struct leak_cluster c = { .trace = tops[i].trace, .cls = tops[i].cls, .example = tops[i].node };
		uint64_t best = tops[i].retained;
		for (; j < ntop && tops[j].trace == c.trace && tops[j].cls == c.cls; j++) {
			c.count++;
			c.objects += tops[j].objects;
			c.shallow += tops[j].shallow;
			c.retained += tops[j].retained;
			if (tops[j].retained > best) { /* ties: the lowest node, the first */
				best = tops[j].retained;
				c.example = tops[j].node;
			}
		}
		c.members = xmalloc(c.count * sizeof *c.members);
		for (size_t k = i; k < j; k++)
			c.members[k - i] = tops[k].node;
		uint32_t r = c.trace;
		while (w.tr.t[r].parent != NONE32)
			r = w.tr.t[r].parent;
		c.root = w.tr.t[r].holder;
		v->cl[v->n++] = c; /* room for ntop made first */
		i = j;
	}
	if (v->n > 0)
		qsort(v->cl, v->n, sizeof *v->cl, cmp_cluster);
	v->shown = shown == 0 || shown > v->n ? v->n : shown;
	for (size_t i = 0; i < v->shown; i++)
		example_path(&w, &v->cl[i], queue);
	v->trie = (struct leak_tnode *)w.tr.t; /* the same three members */
	v->ntrie = w.tr.n;
	free(tops);
	free(w.tid);
	free(w.parent);
	free(queue);
	free(w.st.slot);
	free(w.tr.slot);
	sbuf_free(&w.tmp);
	objset_free(&live);
}

void leaks_view_free(struct leaks_view *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->cl[i].members);
	free(v->cl);
	free(v->steps);
	free(v->trie);
	for (size_t i = 0; i < v->nstrs; i++)
		free(v->strs[i]);
	free(v->strs);
	memset(v, 0, sizeof *v);
}

/* ---- the leaked objects ---- */

static int exact_mode(const struct baseline *b)
{
	return (b->mode == BL_IDS || b->mode == BL_FILE) && !b->inexact && !baseline_partly_inferred(b);
}

int leaks_find(struct heap *base, struct heap *target, struct heap *fin, struct leak_find *r,
	       struct progress *p, struct sbuf *err)
{
	struct baseline bt, bb, btf;
	struct sbuf why, la, lb, lc;
	int rc = -1;

	memset(r, 0, sizeof *r);
	memset(&bt, 0, sizeof bt);
	memset(&bb, 0, sizeof bb);
	memset(&btf, 0, sizeof btf);
	sbuf_init(&why);
	if (baseline_compare(target, base, &bt, p, &why) < 0 || baseline_compare(fin, base, &bb, p, &why) < 0 ||
	    baseline_compare(fin, target, &btf, p, &why) < 0) {
		sbuf_adds(err, why.buf);
		goto done;
	}
	r->made = bt.fresh.count;
	baseline_places(fin, &bb, p);
	/* made after base (new against it) and there at target (old against it) */
	objset_empty(fin, &r->leaked);
	objset_empty(fin, &r->maybe);
	for (node_t v = 1; v < fin->n; v++) {
		if (baseline_unknown(&bb, v) || baseline_unknown(&btf, v)) {
			r->unidentified++;
			bit_set(r->maybe.bits, v);
			continue;
		}
		/* a container that took an old one's place (a grown array's new
		 * store) is new, but what accumulates is what it holds: those
		 * are the leaks, clustered by their own traces */
		if (objset_has(&bb.fresh, v) && !objset_has(&btf.fresh, v)) {
			if (!baseline_took_place(&bb, v))
				bit_set(r->leaked.bits, v);
			else
				r->in_place++; /* followed all the same: its fate is known */
		}
	}
	objset_recount(fin, &r->leaked);
	r->still = r->leaked.count;
	/* what became of the objects the action made: known gone, found
	 * leaked, or neither (an object of fin left out above may be one,
	 * and then it leaked); the bytes of all those not known gone are
	 * what the leaked ones' are at most */
	heap_need(target, HP_SHALLOW, p);
	uint64_t kept_bytes = 0;
	for (node_t t = 1; t < target->n; t++) {
		if (!objset_has(&bt.fresh, t))
			continue;
		if (objset_has(&btf.gone, t) && !baseline_unknown_old(&btf, t))
			r->freed++;
		else
			kept_bytes += target->node_shallow[t];
	}
	if (r->made > r->freed + r->still + r->in_place) {
		r->fate_unknown = r->made - r->freed - r->still - r->in_place;
		r->fate_unknown_bytes = kept_bytes;
	}
	for (size_t i = 0; i < bits_words(fin->n); i++)
		r->maybe.bits[i] |= r->leaked.bits[i];
	objset_recount(fin, &r->maybe);
	r->exact = exact_mode(&bt) && exact_mode(&bb) && exact_mode(&btf);
	sbuf_init(&la);
	sbuf_init(&lb);
	sbuf_init(&lc);
	baseline_label(&bt, &la);
	baseline_label(&bb, &lb);
	baseline_label(&btf, &lc);
	if (r->exact && strcmp(la.buf, lb.buf) == 0 && strcmp(lb.buf, lc.buf) == 0)
		r->identity = xstrdup(la.buf);
	else
		r->identity = xasprintf("%s: base to target %s; base to final %s; target to final %s",
					r->exact ? "exact" : "not exact", la.buf, lb.buf, lc.buf);
	if (r->fate_unknown > 0) { /* the leaks found are the least there are */
		char *was = r->identity;
		r->identity = xasprintf("%s; %llu of the %llu objects the action made could not be followed to the "
					"final dump: the leaks are at least those shown, at most %llu object%s more",
					was, (unsigned long long)r->fate_unknown, (unsigned long long)r->made,
					(unsigned long long)r->fate_unknown, r->fate_unknown == 1 ? "" : "s");
		free(was);
	}
	sbuf_free(&la);
	sbuf_free(&lb);
	sbuf_free(&lc);
	rc = 0;
done:
	baseline_free(&bt);
	baseline_free(&bb);
	baseline_free(&btf);
	sbuf_free(&why);
	return rc;
}

void leak_find_free(struct leak_find *r)
{
	objset_free(&r->leaked);
	objset_free(&r->maybe);
	free(r->identity);
	memset(r, 0, sizeof *r);
}

/* leaks_trace_text, each string of the trie through map (NULL: as it is) */
static void trace_text_map(const struct leaks_view *v, size_t k, const char *(*map)(const char *, void *), void *ctx,
			   struct sbuf *out)
{
	const struct leak_cluster *c = &v->cl[k];
	size_t n = 0, cap = 64;
	uint32_t *path = xmalloc(cap * sizeof *path);
#define STR(i) (map != NULL ? map(v->strs[i], ctx) : v->strs[i])

	sbuf_reset(out);
	for (uint32_t t = c->trace; t != NONE32; t = v->trie[t].parent) {
		if (n == cap) {
			cap *= 2;
			path = xreallocarray(path, cap, sizeof *path);
		}
		path[n++] = t;
	}
	/* the root: its kind and class */
	const struct leak_tnode *r = &v->trie[path[n - 1]];
	sbuf_printf(out, "%s: %s", STR(r->holder), STR(r->field));
	for (size_t i = n - 1; i-- > 0;)
		sbuf_printf(out, " .%s -> %s", STR(v->trie[path[i]].field),
			    i > 0 ? STR(v->trie[path[i - 1]].holder) : STR(c->cls));
	if (n == 1)
		sbuf_printf(out, " = %s", STR(c->cls));
#undef STR
	free(path);
}

void leaks_trace_text(const struct leaks_view *v, size_t k, struct sbuf *out)
{
	trace_text_map(v, k, NULL, NULL, out);
}

/* ---- a series ---- */

void growth_init(struct growth *g, size_t nsnaps)
{
	memset(g, 0, sizeof *g);
	g->nsnaps = nsnaps;
	g->exact = 1;
}

static size_t growth_hash(int cluster, const char *name, size_t cap)
{
	return (hw_fnv(name, strlen(name)) ^ (uint64_t)cluster) & (cap - 1);
}

static const char *row_key(const struct growth_row *r)
{
	return r->key != NULL ? r->key : r->name;
}

/* The row of cluster or class `key` in t (shown as name, its first
 * dump's), nsnaps counts each */
static struct growth_row *growth_row(struct growth_tab *t, size_t nsnaps, int cluster, const char *name,
				     const char *key)
{
	if (2 * (t->n + 1) > t->scap) {
		size_t cap = t->scap ? 2 * t->scap : 1024;
		uint32_t *slot = xcalloc(cap, sizeof *slot);
		for (size_t i = 0; i < t->n; i++) {
			size_t k = growth_hash(t->rows[i].cluster, row_key(&t->rows[i]), cap);
			while (slot[k] != 0)
				k = (k + 1) & (cap - 1);
			slot[k] = (uint32_t)i + 1;
		}
		free(t->slot);
		t->slot = slot;
		t->scap = cap;
	}
	size_t k = growth_hash(cluster, key, t->scap);
	for (; t->slot[k] != 0; k = (k + 1) & (t->scap - 1)) {
		struct growth_row *r = &t->rows[t->slot[k] - 1];
		if (r->cluster == cluster && strcmp(row_key(r), key) == 0)
			return r;
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->rows = xreallocarray(t->rows, t->cap, sizeof *t->rows);
	}
	struct growth_row *r = &t->rows[t->n];
	memset(r, 0, sizeof *r);
	r->cluster = cluster;
	r->name = xstrdup(name);
	r->key = strcmp(key, name) != 0 ? xstrdup(key) : NULL;
	r->count = xcalloc(nsnaps, sizeof *r->count);
	r->bytes = xcalloc(nsnaps, sizeof *r->bytes);
	t->slot[k] = (uint32_t)++t->n;
	return r;
}

static void row_add(struct growth_tab *t, size_t nsnaps, size_t i, int cluster, const char *name, const char *key,
		    uint64_t count, uint64_t bytes)
{
	struct growth_row *r = growth_row(t, nsnaps, cluster, name, key);
	r->count[i] += count;
	r->bytes[i] += bytes;
}

static void rows_free(struct growth_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].name);
		free(rows[i].key);
		free(rows[i].count);
		free(rows[i].bytes);
	}
	free(rows);
}

static void tab_free(struct growth_tab *t)
{
	rows_free(t->rows, t->n);
	free(t->slot);
	memset(t, 0, sizeof *t);
}

/* A dump's class names that differ from the names they are matched by
 * (class_match_name), sorted, for a cluster's trace in those (a class
 * object's holder, "class NAME", too) */
struct qual_name { const char *name, *qual; };
/* tmp: "class QUAL" texts, two (a printf of the trace takes two at once) */
struct quals { struct qual_name *v; size_t n; struct sbuf tmp[2]; unsigned next; };

static int cmp_qual_name(const void *a, const void *b)
{
	return strcmp(((const struct qual_name *)a)->name, ((const struct qual_name *)b)->name);
}

static void quals_make(const struct heap *h, int qual, struct quals *q)
{
	q->v = xmalloc(((size_t)h->ncls + 1) * sizeof *q->v);
	for (uint32_t c = 0; c < h->ncls; c++)
		if (strcmp(class_match_name(h, c, qual), class_name(h, c)) != 0)
			q->v[q->n++] = (struct qual_name){ class_name(h, c), class_match_name(h, c, qual) };
	hw_qsort(q->v, q->n, sizeof *q->v, cmp_qual_name);
	sbuf_init(&q->tmp[0]);
	sbuf_init(&q->tmp[1]);
}

static void quals_free(struct quals *q)
{
	free(q->v);
	sbuf_free(&q->tmp[0]);
	sbuf_free(&q->tmp[1]);
	memset(q, 0, sizeof *q);
}

static const char *qual_of(const char *s, void *ctx)
{
	struct quals *q = ctx;
	int cls = strncmp(s, "class ", 6) == 0;
	struct qual_name want = { cls ? s + 6 : s, NULL };
	const struct qual_name *f = q->n > 0 ? bsearch(&want, q->v, q->n, sizeof *q->v, cmp_qual_name) : NULL;

	if (f == NULL)
		return s;
	if (!cls)
		return f->qual;
	struct sbuf *t = &q->tmp[q->next++ & 1];
	sbuf_reset(t);
	sbuf_printf(t, "class %s", f->qual);
	return t->buf;
}

int growth_add(struct growth *g, size_t i, struct heap *first, struct heap *h, struct progress *p,
	       struct sbuf *err)
{
	/* by qualified names where the dump has them, and by names: the
	 * first kept where every dump has them, else the second (as diff
	 * matches two dumps, one of them an older .NET trace without) */
	int qual = classes_qualified(h, h);
	size_t ns = g->nsnaps;
	g->nqual += qual != 0;
	for (uint32_t c = 0; c < h->ncls; c++) {
		const struct hclass *k = &h->cls[c];
		if (k->count == 0)
			continue;
		row_add(&g->by_name, ns, i, 0, class_name(h, c), class_match_name(h, c, 0), k->count, k->shallow_total);
		if (qual)
			row_add(&g->by_qual, ns, i, 0, class_name(h, c), class_match_name(h, c, 1), k->count,
				k->shallow_total);
	}
	if (first == NULL)
		return 0;
	struct baseline b;
	struct sbuf sb;
	if (baseline_compare(h, first, &b, p, err) < 0)
		return -1;
	struct objset fresh;
	baseline_places(h, &b, p);
	objset_empty(h, &fresh);
	for (node_t v = 1; v < h->n; v++) /* a new container in an old one's place: looked through (leaks_find) */
		if (objset_has(&b.fresh, v) && !baseline_unknown(&b, v) && !baseline_took_place(&b, v))
			bit_set(fresh.bits, v);
	objset_recount(h, &fresh);
	int was_exact = g->exact, ex = exact_mode(&b);
	g->exact &= ex;
	struct sbuf label;
	sbuf_init(&label);
	baseline_label(&b, &label);
	sbuf_init(&sb);
	if (!ex) { /* which two, and that it is not */
		char *a = heap_dump_name(first), *z = heap_dump_name(h);
		sbuf_printf(&sb, "not exact: %s to %s: ", a, z);
		free(a);
		free(z);
	}
	/* "not exact: a dump cut short": the prefix says the first part */
	const char *said = label.buf != NULL ? label.buf : "";
	sbuf_adds(&sb, !ex && strncmp(said, "not exact: ", 11) == 0 ? said + 11 : said);
	sbuf_free(&label);
	if (b.unknown.bits != NULL && b.unknown.count > 0) /* "inferred (100%)" alone would overstate it */
		sbuf_printf(&sb, "; %llu objects of the dump that the comparison could not tell new or old: left "
			    "out of the clusters, which hold at least what grew", (unsigned long long)b.unknown.count);
	if (was_exact || !ex) { /* the last comparison's words, but an exact one's never over one that was not */
		free(g->identity);
		g->identity = sbuf_detach(&sb);
	} else {
		sbuf_free(&sb);
	}
	baseline_free(&b);
	heap_need(h, HP_ALL, p);
	struct leaks_view v;
	view_leaks(h, &fresh, 1, &v);
	sbuf_init(&sb);
	struct quals qn = { 0 }, qq = { 0 };
	struct sbuf key;
	sbuf_init(&key);
	quals_make(h, 0, &qn);
	if (qual)
		quals_make(h, 1, &qq);
	for (size_t k = 0; k < v.n; k++) { /* matched by its trace in the names classes match by */
		leaks_trace_text(&v, k, &sb);
		trace_text_map(&v, k, qual_of, &qn, &key);
		row_add(&g->by_name, ns, i, 1, sb.buf, key.buf, v.cl[k].count, v.cl[k].retained);
		if (qual) {
			trace_text_map(&v, k, qual_of, &qq, &key);
			row_add(&g->by_qual, ns, i, 1, sb.buf, key.buf, v.cl[k].count, v.cl[k].retained);
		}
	}
	quals_free(&qn);
	quals_free(&qq);
	sbuf_free(&key);
	sbuf_free(&sb);
	leaks_view_free(&v);
	objset_free(&fresh);
	return 0;
}

/* Clusters, then classes, each by growth, largest first, then name. */
static int cmp_growth(const void *a, const void *b)
{
	const struct growth_row *x = a, *y = b;

	if (x->cluster != y->cluster)
		return x->cluster ? -1 : 1;
	if (x->grew != y->grew)
		return x->grew > y->grew ? -1 : 1;
	int c = strcmp(x->name, y->name);
	return c ? c : strcmp(row_key(x), row_key(y));
}

void growth_finish(struct growth *g)
{
	size_t k = 0, n = g->nsnaps;
	int qual = g->nqual == n && n > 0;
	struct growth_tab *t = qual ? &g->by_qual : &g->by_name;

	tab_free(qual ? &g->by_name : &g->by_qual);
	g->rows = t->rows; /* its rows move: the table ends */
	g->n = t->n;
	free(t->slot);
	memset(t, 0, sizeof *t);
	for (size_t i = 0; i < g->n; i++) {
		struct growth_row *r = &g->rows[i];
		int grew = n > 1 && (!r->cluster || r->count[1] > 0);
		for (size_t s = r->cluster ? 2 : 1; s < n && grew; s++)
			grew = r->count[s] > r->count[s - 1];
		if (grew) {
			r->grew = r->count[n - 1] - r->count[0];
			g->rows[k++] = *r;
		} else {
			free(r->name);
			free(r->key);
			free(r->count);
			free(r->bytes);
		}
	}
	g->n = k;
	if (k > 0)
		qsort(g->rows, k, sizeof *g->rows, cmp_growth);
}

void growth_free(struct growth *g)
{
	rows_free(g->rows, g->n);
	tab_free(&g->by_qual);
	tab_free(&g->by_name);
	free(g->identity);
	memset(g, 0, sizeof *g);
}
