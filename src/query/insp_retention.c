/* insp_retention.c — the Retention and Class loaders inspections, see
 * inspect.h: thread-locals, thread-stacks, outer-instances,
 * leak-suspects, class-loaders, duplicate-classes.
 *
 * Fields are read by name (runtime/jvm_coll.h) from the mapped records; the
 * per-object passes read only the flat per-node arrays, so that each
 * inspection over 22 million objects stays within a second or two.
 * Thread names are raw dump text, escaped by whoever prints them. */
#include "query/inspect.h"

#include <stdlib.h>
#include <string.h>

#include "graph/reader.h"
#include "graph/analysis.h"
#include "query/views.h"

#define POLL 0xfffff       /* progress and cancellation every 1M nodes */
#define NAME_MAX_BYTES 80  /* of a thread name in a group name */

/* HIGH when the bytes are >= 10% of the heap, MEDIUM >= 1%, else LOW. */
static enum insp_priority prio_heap(const struct heap *h, uint64_t bytes)
{
	uint64_t total = h->retained[0];

	if (bytes * 10 >= total && bytes > 0)
		return IP_HIGH;
	if (bytes * 100 >= total && bytes > 0)
		return IP_MEDIUM;
	return IP_LOW;
}

/* ---- node lists: a growable array sorted and deduplicated at the end ---- */

struct nvec {
	node_t *v;
	size_t n, cap;
};

static void nvec_push(struct nvec *a, node_t v)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 64;
		a->v = xreallocarray(a->v, a->cap, sizeof *a->v);
	}
	a->v[a->n++] = v;
}

static int cmp_node(const void *a, const void *b)
{
	node_t x = *(const node_t *)a, y = *(const node_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sort and drop repeats; hands over the array (NULL when empty). */
static node_t *nvec_take(struct nvec *a, uint64_t *count)
{
	size_t k = 0;

	hw_qsort(a->v, a->n, sizeof *a->v, cmp_node);
	for (size_t i = 0; i < a->n; i++)
		if (k == 0 || a->v[k - 1] != a->v[i])
			a->v[k++] = a->v[i];
	node_t *out = a->v;
	*count = k;
	if (k == 0) {
		free(out);
		out = NULL;
	}
	memset(a, 0, sizeof *a);
	return out;
}

/* Add a group of the nodes in a, named name, with their retained bytes. */
static void add_retained(struct insp_result *r, const struct heap *h, char *name, struct nvec *a,
			 struct progress *p)
{
	uint64_t count;
	node_t *nodes = nvec_take(a, &count);

	if (count == 0) {
		free(name);
		return;
	}
	uint64_t ret = insp_retained(h, nodes, count, p);
	insp_add(r, h, name, prio_heap(h, ret), nodes, count, ret);
}

/* ---- threads ---- */

/* Is class c java.lang.Thread or a subclass? Per class, bounded walk. */
static uint8_t *thread_classes(const struct heap *h)
{
	uint8_t *is = xcalloc((size_t)h->ncls + 1, 1);

	for (uint32_t c = 0; c < h->ncls; c++)
		for (uint32_t d = c, k = 0; d != HW_NONE && k < h->ncls; d = h->cls[d].super, k++)
			if (strcmp(class_name(h, d), "java.lang.Thread") == 0) {
				is[c] = 1;
				break;
			}
	return is;
}

/* The values of ThreadLocalMap `map`'s entries that are members. */
static void map_values(const struct runtime_ops *rt, void *ctx, const struct heap *h, const struct objset *set,
		       node_t map, struct nvec *out)
{
	node_t tab = insp_field(h, rt, ctx, map, "table");
	uint8_t t;
	int64_t len = tab != HW_NONE ? heap_array_length(h, tab, &t) : -1;

	if (len < 0 || t != T_OBJECT)
		return;
	for (int64_t i = 0; i < len; i++) {
		struct hvalue e;
		if (heap_array_elem(h, tab, (uint64_t)i, &e) < 0 || e.v.id == 0)
			continue;
		node_t ent = heap_find_id(h, e.v.id);
		node_t val = insp_field(h, rt, ctx, ent, "value");
		if (val != HW_NONE && val != 0 && objset_has(set, val))
			nvec_push(out, val);
	}
}

static int run_locals(struct heap *h, const struct objset *set, const char *arg,
		      struct insp_result *r, struct progress *p, struct sbuf *err)
{
	static const char *const maps[] = { "threadLocals", "inheritableThreadLocals" };
	uint8_t *is = thread_classes(h);
	const struct runtime_ops *rt = heap_runtime(h);
	void *ctx = rt != NULL && rt->open != NULL ? rt->open(h) : NULL;
	struct nvec vals = { 0 };
	struct sbuf name;

	(void)arg;
	(void)err;
	sbuf_init(&name);
	progress_begin(p, "thread locals", h->n, "objects");
	for (node_t v = 1; v < h->n && !progress_cancelled(p); v++) {
		if ((v & POLL) == 0)
			progress_update(p, v);
		if (h->node_kind[v] != NK_INSTANCE || !is[h->node_class[v]])
			continue;
		for (int m = 0; m < 2; m++)
			map_values(rt, ctx, h, set, insp_field(h, rt, ctx, v, maps[m]), &vals);
		if (vals.n == 0)
			continue;
		sbuf_reset(&name);
		thread_label(h, v, 0, &name);
		add_retained(r, h, sbuf_detach(&name), &vals, NULL);
	}
	progress_end(p);
	r->examined = set->count;
	sbuf_free(&name);
	if (ctx != NULL)
		rt->close(ctx);
	free(is);
	return 0;
}

/* One stack root: its thread, its frame (HW_NONE: the thread only). */
struct sroot {
	uint32_t serial, frame;
	node_t node;
};

static int cmp_sroot(const void *a, const void *b)
{
	const struct sroot *x = a, *y = b;

	if (x->serial != y->serial)
		return x->serial < y->serial ? -1 : 1;
	if (x->frame != y->frame)
		return x->frame < y->frame ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}


static char *stack_name(const struct heap *h, const struct sroot *s)
{
	struct sbuf sb;

	sbuf_init(&sb);
	const struct hthread *t = thread_of_serial(h, s->serial);
	thread_label(h, t != NULL ? t->obj : HW_NONE, s->serial, &sb);
	if (s->frame != HW_NONE) {
		sbuf_printf(&sb, ", frame %u: ", s->frame);
		frame_label(h, thread_frame_index(h, s->serial, s->frame), &sb);
	}
	return sbuf_detach(&sb);
}

static int run_stacks(struct heap *h, const struct objset *set, const char *arg,
		      struct insp_result *r, struct progress *p, struct sbuf *err)
{
	struct sroot *s = xmalloc((h->nroot_rec + 1) * sizeof *s);
	size_t n = 0;

	(void)arg;
	(void)err;
	for (size_t i = 0; i < h->nroot_rec; i++) {
		const struct root *rr = &h->root_rec[i];
		if ((rr->kind != RK_STACK && rr->kind != RK_LOCAL_HANDLE) || !heap_root_has_thread(h, rr))
			continue;
		if (rr->thread_serial == 0 || !objset_has(set, rr->node))
			continue;
		uint32_t f = thread_frame_index(h, rr->thread_serial, rr->frame) != HW_NONE ? rr->frame : HW_NONE;
		s[n++] = (struct sroot){ rr->thread_serial, f, rr->node };
	}
	hw_qsort(s, n, sizeof *s, cmp_sroot);
	struct nvec a = { 0 };
	for (size_t i = 0; i < n && !progress_cancelled(p); i++) {
		nvec_push(&a, s[i].node);
		if (i + 1 < n && s[i + 1].serial == s[i].serial && s[i + 1].frame == s[i].frame)
			continue;
		add_retained(r, h, stack_name(h, &s[i]), &a, NULL);
	}
	free(a.v);
	r->examined = n;
	free(s);
	return 0;
}

/* ---- outer instances ---- */

/* A this$N field: the class it is declared in, its name, its offset in
 * the instance data of class `cls` (which has it, own or inherited). */
struct outer_field {
	uint32_t decl, name, off;
};

/* Is s "this$" followed by digits? */
static int is_outer_name(const char *s)
{
	if (strncmp(s, "this$", 5) != 0 || s[5] == '\0')
		return 0;
	for (s += 5; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* Every class's this$N fields: of[start[c]..start[c+1]). Offsets as in
 * an instance record: the class's own fields first, then its super's. */
static struct outer_field *outer_fields(const struct heap *h, uint32_t **startp)
{
	uint32_t *start = xcalloc((size_t)h->ncls + 1, sizeof *start);
	struct outer_field *of = NULL;
	size_t n = 0, cap = 0;

	for (uint32_t c = 0; c < h->ncls; c++) {
		start[c] = (uint32_t)n;
		for (uint32_t d = c, k = 0; d != HW_NONE && k < h->ncls; d = h->cls[d].super, k++)
			for (unsigned i = 0; i < h->cls[d].nfields; i++) {
				const struct hfield *f = &h->fields[h->cls[d].field_first + i];
				if (f->type != T_OBJECT || !is_outer_name(heap_str(h, f->name)))
					continue;
				if (n == cap) {
					cap = cap ? cap * 2 : 16;
					of = xreallocarray(of, cap, sizeof *of);
				}
				of[n++] = (struct outer_field){ d, f->name, class_field_base(h, c, d) + f->off };
			}
	}
	start[h->ncls] = (uint32_t)n;
	*startp = start;
	return of;
}

/* v's reference field at off, if v dominates its target directly. */
static node_t dominated_ref(const struct heap *h, node_t v, uint32_t off)
{
	uint32_t nbytes;
	const uint8_t *d = heap_inst_data(h, v, &nbytes);
	uint64_t id = d != NULL ? inst_ref_at(d, nbytes, off, h->layout.idsize) : 0;

	if (id == 0)
		return HW_NONE;
	for (edge_t e = h->out_start[v]; e < h->out_start[v + 1]; e++) {
		node_t w = h->out[e];
		if (h->idom[w] == v && heap_node_id(h, w) == id)
			return w;
	}
	return HW_NONE;
}

struct opair {
	uint32_t decl, name; /* the group: declaring class and field */
	node_t outer;
};

static int cmp_opair(const void *a, const void *b)
{
	const struct opair *x = a, *y = b;

	if (x->decl != y->decl)
		return x->decl < y->decl ? -1 : 1;
	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	return x->outer < y->outer ? -1 : x->outer > y->outer;
}

static void outer_groups(struct insp_result *r, const struct heap *h, struct opair *op, size_t n)
{
	struct nvec a = { 0 };

	hw_qsort(op, n, sizeof *op, cmp_opair);
	for (size_t i = 0; i < n; i++) {
		nvec_push(&a, op[i].outer);
		if (i + 1 < n && op[i + 1].decl == op[i].decl && op[i + 1].name == op[i].name)
			continue;
		add_retained(r, h, xasprintf("%s.%s", class_name(h, op[i].decl), heap_str(h, op[i].name)),
			     &a, NULL);
	}
	free(a.v);
}

static int run_outer(struct heap *h, const struct objset *set, const char *arg,
		     struct insp_result *r, struct progress *p, struct sbuf *err)
{
	uint32_t *start;
	struct outer_field *of = outer_fields(h, &start);
	struct opair *op = NULL;
	size_t n = 0, cap = 0;

	(void)arg;
	(void)err;
	progress_begin(p, "outer instances", h->n, "objects");
	for (node_t v = 1; v < h->n && !progress_cancelled(p); v++) {
		if ((v & POLL) == 0)
			progress_update(p, v);
		uint32_t c = h->node_class[v];
		if (h->node_kind[v] != NK_INSTANCE || start[c] == start[c + 1])
			continue;
		for (uint32_t k = start[c]; k < start[c + 1]; k++) {
			node_t o = dominated_ref(h, v, of[k].off);
			if (o == HW_NONE || !objset_has(set, o))
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 256;
				op = xreallocarray(op, cap, sizeof *op);
			}
			op[n++] = (struct opair){ of[k].decl, of[k].name, o };
		}
	}
	progress_end(p);
	outer_groups(r, h, op, n);
	r->examined = set->count;
	free(op);
	free(of);
	free(start);
	return 0;
}

/* ---- leak suspects ---- */

#define SUSPECT_PCT 20 /* of the heap */
#define ACCUM_PCT 10   /* of the heap, a class's instances together: MAT's threshold */
#define DROP_PCT 80    /* a child below this share of its parent ends the walk */

/* The child of v in the dominator tree that retains most (lowest index
 * on ties), HW_NONE if v has none. */
static node_t biggest_child(const struct heap *h, node_t v)
{
	node_t best = HW_NONE;

	for (node_t k = h->dom_start[v]; k < h->dom_start[v + 1]; k++) {
		node_t c = h->dom_child[k];
		if (best == HW_NONE || h->retained[c] > h->retained[best] ||
		    (h->retained[c] == h->retained[best] && c < best))
			best = c;
	}
	return best;
}

/* Down the biggest-child chain while the child keeps >= 80%, and stop
 * where a chain of one class starts (a linked list's nodes each keep
 * most of the rest: its head is where the objects accumulate, not its
 * tail, and the walk stays short however long the list). */
static node_t accumulation_point(const struct heap *h, node_t v)
{
	for (;;) {
		node_t b = biggest_child(h, v);
		if (b == HW_NONE || h->retained[b] * 100 < h->retained[v] * DROP_PCT ||
		    h->node_class[b] == h->node_class[v])
			return v;
		v = b;
	}
}

static double pct(const struct heap *h, uint64_t bytes)
{
	return h->retained[0] ? 100.0 * (double)bytes / (double)h->retained[0] : 0.0;
}

static void object_text(const struct heap *h, node_t v, struct sbuf *out)
{
	char id[32];

	node_label(h, v, out);
	node_id_text(h, v, id, sizeof id);
	sbuf_printf(out, " @%s", id);
}

/* The members among the dominator children of point; point itself when
 * none is (a leaf, or a subset without them) and it is a member; else
 * the suspect, a member above the point (a subset that holds neither
 * the point nor its children). */
static node_t *point_members(const struct heap *h, const struct objset *set, node_t point,
			     node_t suspect, uint64_t *count)
{
	struct nvec a = { 0 };

	for (node_t k = h->dom_start[point]; k < h->dom_start[point + 1]; k++)
		if (objset_has(set, h->dom_child[k]))
			nvec_push(&a, h->dom_child[k]);
	if (a.n == 0)
		nvec_push(&a, objset_has(set, point) ? point : suspect);
	return nvec_take(&a, count);
}

/* The object suspects: members retaining >= 20% of the heap that no
 * other member above them in the dominator tree does (whose retained is
 * never smaller): a walk down from the root through nodes that retain
 * enough, stopping at members. */
static void object_suspects(const struct heap *h, const struct objset *set, struct nvec *out)
{
	uint64_t limit = h->retained[0] * SUSPECT_PCT;
	struct nvec stack = { 0 };

	nvec_push(&stack, 0);
	while (stack.n > 0) {
		node_t v = stack.v[--stack.n];
		if (v != 0 && objset_has(set, v)) {
			nvec_push(out, v);
			continue;
		}
		for (node_t k = h->dom_start[v]; k < h->dom_start[v + 1]; k++)
			if (h->retained[h->dom_child[k]] * 100 >= limit)
				nvec_push(&stack, h->dom_child[k]);
	}
	free(stack.v);
	hw_qsort(out->v, out->n, sizeof *out->v, cmp_node);
}

/* A copy of the n nodes at v, ascending: a group's anchors. */
static node_t *anchors_of(const node_t *v, size_t n)
{
	node_t *a = xmalloc((n + 1) * sizeof *a);

	if (n > 0)
		memcpy(a, v, n * sizeof *a);
	hw_qsort(a, n, sizeof *a, cmp_node);
	return a;
}

/* A suspect's group: its accumulation point's objects, its bytes those
 * of the suspect (top: NULL), or of its class's top instances (top, ntop:
 * the group's anchors, whose retained size bytes is). */
static void add_suspect(struct insp_result *r, const struct heap *h, const struct objset *set,
			const char *what, uint64_t bytes, node_t suspect, node_t point, const node_t *top,
			size_t ntop)
{
	struct sbuf sb;
	uint64_t count;

	sbuf_init(&sb);
	sbuf_printf(&sb, "%s retains %.1f%%; accumulation point: ", what, pct(h, bytes));
	object_text(h, point, &sb);
	sbuf_printf(&sb, " (%.1f%%)", pct(h, h->retained[point]));
	node_t *m = point_members(h, set, point, suspect, &count);
	struct insp_group *g = insp_add(r, h, sbuf_detach(&sb), IP_HIGH, m, count, bytes);
	g->point = point;
	g->anchors = top != NULL ? anchors_of(top, ntop) : anchors_of(&suspect, 1);
	g->nanchors = top != NULL ? ntop : 1;
}

/* Per class of a member, its members' dominator-based retained bytes. */
static uint64_t *class_retained(struct heap *h, const struct objset *set)
{
	uint64_t *lb = xcalloc((size_t)h->ncls + 1, sizeof *lb);

	if (set->bits == NULL)
		for (uint32_t c = 0; c < h->ncls; c++)
			lb[c] = h->cls[c].retained_lb;
	else
		analysis_class_lb(h, set->bits, lb);
	return lb;
}

/* The class suspects: classes whose members retain (lb) >= 10% of the heap
 * (java.lang.Class aside: its instances are classes, each its own
 * object). cand[c] is 2 for those at 20% or more, 1 below; big[c] gets
 * the member of class c that retains most, cnt[c] their number. Returns
 * how many. */
static uint32_t class_candidates(struct heap *h, const struct objset *set, const uint64_t *lb,
				 uint8_t *cand, node_t *big, uint64_t *cnt, struct progress *p)
{
	uint32_t k = 0;

	for (uint32_t c = 0; c < h->ncls; c++) {
		big[c] = HW_NONE;
		cand[c] = lb[c] * 100 >= h->retained[0] * ACCUM_PCT && lb[c] > 0 &&
			  strcmp(class_name(h, c), "java.lang.Class") != 0;
		cand[c] += cand[c] && lb[c] * 100 >= h->retained[0] * SUSPECT_PCT;
		k += cand[c] != 0;
	}
	for (node_t v = 1; v < h->n && k > 0 && !progress_cancelled(p); v++) {
		uint32_t c = h->node_class[v];
		if (h->node_kind[v] == NK_CLASS || !cand[c] || !objset_has(set, v))
			continue;
		cnt[c]++;
		if (big[c] == HW_NONE || h->retained[v] > h->retained[big[c]])
			big[c] = v;
	}
	return k;
}

/* Members of the classes of track[c] that no member of their class
 * dominates (per[c]): a walk of the dominator tree counting, per class,
 * the members on the current path (as analysis_class_lb does). own[c]
 * gets those of them that lie below no top member of another tracked
 * class (not char[] in buffers: the buffers hold them) and below no
 * object suspect (sus: that suspect tells their bytes), their bytes in
 * ownb[c], less those of the object suspects below them: no byte is
 * told twice. post gets the tree's nodes as the walk leaves them,
 * children before their parent (the root last), for class_holder's
 * sums. */
static void top_instances(const struct heap *h, const struct objset *set, const uint8_t *track,
			  const bits_t *sus, struct nvec *per, struct nvec *own, uint64_t *ownb, node_t *post,
			  struct progress *p)
{
	size_t np = 0;
	uint32_t nact = 0;  /* tracked classes with a member on the path */
	uint32_t nsus = 0;  /* object suspects on the path (one at most: no suspect is below another) */
	node_t owner = 0;   /* the own member on the path, 0 if none */

	uint32_t *active = xcalloc((size_t)h->ncls + 1, sizeof *active);
	struct nvec stk = { 0 }, nxt = { 0 };

	nvec_push(&stk, 0);
	nvec_push(&nxt, h->dom_start[0]);
	while (stk.n > 0 && !progress_cancelled(p)) {
		node_t v = stk.v[stk.n - 1];
		if (nxt.v[nxt.n - 1] == h->dom_start[v + 1]) { /* leaving v */
			post[np++] = v;
			if (v != 0 && track[h->node_class[v]] && h->node_kind[v] != NK_CLASS && objset_has(set, v))
				nact -= --active[h->node_class[v]] == 0;
			nsus -= bit_get(sus, v) != 0;
			owner = owner == v ? 0 : owner;
			stk.n--;
			nxt.n--;
			continue;
		}
		node_t c = h->dom_child[nxt.v[nxt.n - 1]++];
		uint32_t k = h->node_class[c];
		if (bit_get(sus, c)) {
			if (owner != 0) /* an object suspect tells these bytes */
				ownb[h->node_class[owner]] -= h->retained[c];
			nsus++;
		}
		if (track[k] && h->node_kind[c] != NK_CLASS && objset_has(set, c) && active[k]++ == 0) {
			nvec_push(&per[k], c);
			if (nact++ == 0 && nsus == 0) {
				nvec_push(&own[k], c);
				ownb[k] += h->retained[c];
				owner = c;
			}
		}
		nvec_push(&stk, c);
		nvec_push(&nxt, h->dom_start[c]);
	}
	if (np == 0 || post[np - 1] != 0) /* cancelled: the list still ends */
		post[np] = 0;
	free(stk.v);
	free(nxt.v);
	free(active);
}

/* Where a spread class's bytes accumulate: sum[v], the bytes of the
 * class's top members in v's dominator subtree (one pass over post, the
 * tree's nodes children first), then from the root down the child
 * holding most while it holds 80% of them, stopping short of the members
 * themselves and of chains of one class. 0 (the root) when no object
 * holds that much: the class is big, but nothing in particular keeps it. */
static node_t class_holder(const struct heap *h, const node_t *top, uint64_t ntop, uint64_t *sum,
			   const node_t *post, struct progress *p)
{
	uint32_t cls = ntop ? h->node_class[top[0]] : HW_NONE;

	memset(sum, 0, ((size_t)h->n + 1) * sizeof *sum);
	for (uint64_t i = 0; i < ntop; i++)
		sum[top[i]] = h->retained[top[i]];
	for (size_t i = 0; post[i] != 0 && !progress_cancelled(p); i++)
		sum[h->idom[post[i]]] += sum[post[i]];
	node_t v = 0;
	for (;;) {
		node_t best = HW_NONE;
		for (node_t k = h->dom_start[v]; k < h->dom_start[v + 1]; k++) {
			node_t c = h->dom_child[k];
			if (best == HW_NONE || sum[c] > sum[best])
				best = c;
		}
		if (best == HW_NONE || sum[best] * 100 < sum[0] * DROP_PCT || h->node_class[best] == cls ||
		    (v != 0 && h->node_class[best] == h->node_class[v]))
			return v;
		v = best;
	}
}

/* The top members under point in the dominator tree: a walk of its
 * subtree (not one up the tree per member: a long list is deep). */
static node_t *members_under(const struct heap *h, const node_t *top, uint64_t ntop, node_t point,
			     uint64_t *count)
{
	bits_t *is = xcalloc(bits_words(h->n), sizeof *is);
	struct nvec a = { 0 }, stk = { 0 };

	for (uint64_t i = 0; i < ntop; i++)
		bit_set(is, top[i]);
	nvec_push(&stk, point);
	while (stk.n > 0) {
		node_t v = stk.v[--stk.n];
		if (bit_get(is, v)) {
			nvec_push(&a, v);
			continue; /* no top member under a top member */
		}
		for (node_t k = h->dom_start[v]; k < h->dom_start[v + 1]; k++)
			nvec_push(&stk, h->dom_child[k]);
	}
	free(stk.v);
	free(is);
	hw_qsort(a.v, a.n, sizeof *a.v, cmp_node);
	return nvec_take(&a, count);
}

/* Is the accumulation whose top members' bytes class_holder summed in
 * sum[] one a suspect already tells: 80% of them below an object suspect
 * or a point already named, or gathered at such a point? */
static int told(const uint64_t *sum, node_t holder, const node_t *sus, size_t nsus, const struct insp_result *r)
{
	for (size_t i = 0; i < nsus; i++)
		if (sum[sus[i]] * 100 >= sum[0] * DROP_PCT)
			return 1;
	for (size_t i = 0; i < r->n; i++) {
		node_t pt = r->g[i].point;
		if (pt != HW_NONE && (pt == holder || sum[pt] * 100 >= sum[0] * DROP_PCT))
			return 1;
	}
	return 0;
}

/* Are all of nodes[0..count) held by the runtime's own roots (its
 * engine's, JIT's, loader's: RK_VM_INTERNAL) or its embedder's
 * (RK_NATIVE: V8's root groups)? */
static int vm_internal(const struct heap *h, const node_t *nodes, uint64_t count)
{
	bits_t *in = xcalloc(bits_words(h->n), sizeof *in);
	uint64_t n = 0;

	for (uint64_t i = 0; i < count; i++)
		bit_set(in, nodes[i]);
	for (size_t i = 0; i < h->nroot_rec; i++) {
		node_t v = h->root_rec[i].node;
		unsigned k = h->root_rec[i].kind;
		if ((k == RK_VM_INTERNAL || k == RK_NATIVE) && v < h->n && bit_get(in, v)) {
			bit_clear(in, v);
			n++;
		}
	}
	free(in);
	return n == count;
}

/* "accumulated in instances of X": class c's top members (top, taken:
 * those below no other class's accumulation), retaining lb together,
 * with who holds them; all: the class's members; its point the object
 * below which 80% of their bytes gather, if one does (holder != 0).
 * High priority from 20% of the heap, medium below. Members that no
 * object holds and only the runtime's own or its embedder's roots do
 * (V8's synthetic root groups, .NET's frozen segments) are the
 * engine's, no suspect (a native leak of such roots goes unsaid here:
 * the roots by kind in info show it). */
static void accum_suspect(struct insp_result *r, const struct heap *h, uint32_t c, struct nvec *top,
			  uint64_t lb, uint64_t all, node_t holder, const uint64_t *sum)
{
	struct sbuf sb;
	uint64_t count;
	node_t *m = nvec_take(top, &count);

	sbuf_init(&sb);
	sbuf_adds(&sb, "accumulated in instances of ");
	size_t off = sb.len;
	sbuf_printf(&sb, "%s: %llu ", class_name(h, c), (unsigned long long)count);
	if (count != all) /* the others are below them */
		sbuf_printf(&sb, "of its %llu ", (unsigned long long)all);
	sbuf_printf(&sb, "instance%s %.1f%%, ", count == 1 ? " retains" : "s retain", pct(h, lb));
	if (holder == 0) {
		sbuf_adds(&sb, count == 1 ? "no one object keeps it alive" : "no one object keeps them alive");
	} else {
		sbuf_printf(&sb, "%.1f%% of the heap below ", pct(h, sum[holder]));
		object_text(h, holder, &sb);
	}
	sbuf_adds(&sb, "; ");
	if (insp_holders(h, m, count, &sb) == 0 && vm_internal(h, m, count)) {
		sbuf_free(&sb);
		free(m);
		return;
	}
	enum insp_priority pri = lb * 100 >= h->retained[0] * SUSPECT_PCT ? IP_HIGH : IP_MEDIUM;
	struct insp_group *g = insp_add(r, h, sbuf_detach(&sb), pri, m, count, lb);
	g->point = holder != 0 ? holder : HW_NONE;
	g->cls_off = (uint32_t)off;
	g->cls_len = (uint32_t)strlen(class_name(h, c));
}

/* A class suspect of 20% or more, as it always was: a class whose
 * biggest member holds >= 80% of the class's bytes walks down from that
 * member; one whose point is an object suspect's says nothing new and
 * is left out. Else (spread) its point is where its top members' bytes
 * gather (class_holder), and its group those members under it. Returns
 * 0, or 1 when no object holds them (the accumulated rule's then). */
static int class_suspect(struct insp_result *r, struct heap *h, const struct objset *set, uint32_t c,
			 const struct nvec *top, const uint64_t *lb, const uint64_t *cnt, node_t big,
			 const node_t *pts, size_t npts, uint64_t *sum, const node_t *post, struct progress *p)
{
	struct sbuf sb;
	node_t pt;
	int seen = 0;

	if (h->retained[big] * 100 >= lb[c] * DROP_PCT)
		pt = accumulation_point(h, big);
	else if ((pt = class_holder(h, top->v, top->n, sum, post, p)) == 0)
		return 1;
	for (size_t i = 0; i < npts && !seen; i++)
		seen = pts[i] == pt;
	if (seen)
		return 0;
	sbuf_init(&sb);
	sbuf_printf(&sb, "class %s (%llu instances)", class_name(h, c), (unsigned long long)cnt[c]);
	if (h->retained[big] * 100 >= lb[c] * DROP_PCT) {
		add_suspect(r, h, set, sb.buf, lb[c], big, pt, top->v, top->n);
		sbuf_free(&sb);
		return 0;
	}
	uint64_t count;
	node_t *m = members_under(h, top->v, top->n, pt, &count);
	struct sbuf nm;
	sbuf_init(&nm);
	sbuf_printf(&nm, "%s retains %.1f%%; accumulation point: ", sb.buf, pct(h, lb[c]));
	object_text(h, pt, &nm);
	sbuf_printf(&nm, " (%.1f%%, %llu of its instances)", pct(h, sum[pt]), (unsigned long long)count);
	struct insp_group *g = insp_add(r, h, sbuf_detach(&nm), IP_HIGH, m, count, lb[c]);
	g->point = pt;
	g->anchors = anchors_of(top->v, top->n); /* lb[c]: the bytes of them all */
	g->nanchors = top->n;
	sbuf_free(&nm);
	sbuf_free(&sb);
	return 0;
}

/* The class suspects: first those of 20% or more as they always were
 * (class_suspect); then the accumulations no suspect tells yet: classes
 * whose top members below no top member of another class of 10% retain
 * 10% of the heap or more (the char[] inside buffers are the buffers'
 * accumulation, said once, not the char[]'s too), unless an object
 * suspect or a point already named holds 80% of those bytes (told):
 * "accumulated in instances of X" (accum_suspect). */
static void class_suspects(struct heap *h, const struct objset *set, const node_t *sus, const node_t *pts,
			   size_t npts, struct insp_result *r, struct progress *p)
{
	uint8_t *cand = xcalloc((size_t)h->ncls + 1, 1), *accum = xcalloc((size_t)h->ncls + 1, 1);
	node_t *big = xmalloc(((size_t)h->ncls + 1) * sizeof *big);
	uint64_t *lb = class_retained(h, set), *cnt = xcalloc((size_t)h->ncls + 1, sizeof *cnt);
	uint64_t *ownb = xcalloc((size_t)h->ncls + 1, sizeof *ownb);
	struct nvec *per = xcalloc((size_t)h->ncls + 1, sizeof *per), *own = xcalloc((size_t)h->ncls + 1, sizeof *own);
	uint64_t *sum = NULL;       /* class_holder's, 8 bytes a node */
	node_t *post = NULL;        /* the dominator tree, children first, root last */
	int ntrack = 0;

	class_candidates(h, set, lb, cand, big, cnt, p);
	for (uint32_t c = 0; c < h->ncls; c++) {
		cand[c] = big[c] != HW_NONE ? cand[c] : 0;
		ntrack += cand[c] != 0;
	}
	if (ntrack > 0) {
		post = xmalloc(((size_t)h->n + 1) * sizeof *post);
		sum = xmalloc(((size_t)h->n + 1) * sizeof *sum);
		bits_t *sb = xcalloc(bits_words(h->n), sizeof *sb);
		for (size_t i = 0; i < npts; i++)
			bit_set(sb, sus[i]);
		top_instances(h, set, cand, sb, per, own, ownb, post, p);
		free(sb);
	}
	for (uint32_t c = 0; c < h->ncls && !progress_cancelled(p); c++)
		accum[c] = cand[c] == 1 ||
			   (cand[c] == 2 && class_suspect(r, h, set, c, &per[c], lb, cnt, big[c], pts, npts, sum, post, p));
	for (uint32_t c = 0; c < h->ncls && !progress_cancelled(p); c++) {
		if (!accum[c] || ownb[c] * 100 < h->retained[0] * ACCUM_PCT)
			continue;
		node_t holder = class_holder(h, own[c].v, own[c].n, sum, post, p);
		if (!told(sum, holder, sus, npts, r))
			accum_suspect(r, h, c, &own[c], ownb[c], cnt[c], holder, sum);
	}
	for (uint32_t c = 0; c < h->ncls; c++) {
		free(per[c].v);
		free(own[c].v);
	}
	free(own);
	free(per);
	free(sum);
	free(post);
	free(ownb);
	free(cnt);
	free(lb);
	free(big);
	free(accum);
	free(cand);
}

static int run_suspects(struct heap *h, const struct objset *set, const char *arg,
			struct insp_result *r, struct progress *p, struct sbuf *err)
{
	struct nvec sus = { 0 };
	struct sbuf sb;

	(void)arg;
	(void)err;
	analysis_domchildren(h);
	object_suspects(h, set, &sus);
	node_t *pts = xmalloc((sus.n + 1) * sizeof *pts);
	sbuf_init(&sb);
	for (size_t i = 0; i < sus.n; i++) {
		pts[i] = accumulation_point(h, sus.v[i]);
		sbuf_reset(&sb);
		object_text(h, sus.v[i], &sb);
		add_suspect(r, h, set, sb.buf, h->retained[sus.v[i]], sus.v[i], pts[i], NULL, 0);
	}
	class_suspects(h, set, sus.v, pts, sus.n, r, p);
	r->examined = set->count;
	sbuf_free(&sb);
	free(pts);
	free(sus.v);
	return 0;
}

/* ---- class loaders ---- */

/* The distinct loader ids of the classes with a class object, sorted;
 * lg[c]: the index of class c's loader among them (HW_NONE: none). */
static uint64_t *loader_ids(const struct heap *h, uint32_t *lg, uint32_t *nl)
{
	uint64_t *ids = xmalloc(((size_t)h->ncls + 1) * sizeof *ids);
	uint32_t n = 0, k = 0;

	for (uint32_t c = 0; c < h->ncls; c++)
		ids[n++] = h->cls[c].loader_id;
	hw_qsort(ids, n, sizeof *ids, cmp_u64);
	for (uint32_t i = 0; i < n; i++)
		if (k == 0 || ids[k - 1] != ids[i])
			ids[k++] = ids[i];
	for (uint32_t c = 0; c < h->ncls; c++)
		lg[c] = (uint32_t)lower_bound_u64(ids, k, h->cls[c].loader_id);
	*nl = k;
	return ids;
}

/* "bootstrap", or the loader object's class and id. */
static char *loader_name(const struct heap *h, uint64_t id)
{
	if (id == 0)
		return xstrdup("bootstrap");
	node_t v = heap_find_id(h, id);
	if (v == HW_NONE)
		return xasprintf("loader @0x%llx (not in the dump)", (unsigned long long)id);
	return xasprintf("%s @0x%llx", class_name(h, h->node_class[v]), (unsigned long long)id);
}

/* The loader group of member v: its class's, or for a class object the
 * loader of the class it describes. */
static uint32_t group_of(const struct heap *h, const uint32_t *lg, node_t v, uint32_t *cls)
{
	uint32_t c = h->node_kind[v] == NK_CLASS ? heap_class_of_node(h, v) : h->node_class[v];

	*cls = c;
	return c == HW_NONE ? HW_NONE : lg[c];
}

static int run_loaders(struct heap *h, const struct objset *set, const char *arg,
		       struct insp_result *r, struct progress *p, struct sbuf *err)
{
	uint32_t *lg = xmalloc(((size_t)h->ncls + 1) * sizeof *lg), nl, c;
	uint64_t *ids = loader_ids(h, lg, &nl);
	uint64_t *cnt = xcalloc((size_t)nl + 1, sizeof *cnt), *ncls = xcalloc((size_t)nl + 1, sizeof *ncls);
	uint8_t *used = xcalloc((size_t)h->ncls + 1, 1);
	node_t **m = xcalloc((size_t)nl + 1, sizeof *m);

	(void)arg;
	(void)err;
	progress_begin(p, "class loaders", (uint64_t)h->n * 2, "objects");
	for (node_t v = 1; v < h->n && !progress_cancelled(p); v++) {
		if ((v & POLL) == 0)
			progress_update(p, v);
		uint32_t g = objset_has(set, v) ? group_of(h, lg, v, &c) : HW_NONE;
		if (g == HW_NONE)
			continue;
		cnt[g]++;
		ncls[g] += !used[c];
		used[c] = 1;
	}
	for (uint32_t g = 0; g < nl; g++)
		m[g] = cnt[g] ? xmalloc(cnt[g] * sizeof **m) : NULL;
	memset(cnt, 0, ((size_t)nl + 1) * sizeof *cnt);
	for (node_t v = 1; v < h->n && !progress_cancelled(p); v++) {
		if ((v & POLL) == 0)
			progress_update(p, (uint64_t)h->n + v);
		uint32_t g = objset_has(set, v) ? group_of(h, lg, v, &c) : HW_NONE;
		if (g != HW_NONE)
			m[g][cnt[g]++] = v;
	}
	progress_end(p);
	for (uint32_t g = 0; g < nl; g++)
		if (cnt[g] > 0)
			insp_add(r, h, loader_name(h, ids[g]), IP_LOW, m[g], cnt[g], ncls[g]);
		else
			free(m[g]);
	r->examined = set->count;
	free(m);
	free(used);
	free(ncls);
	free(cnt);
	free(ids);
	free(lg);
	return 0;
}

/* Classes with a class object, by name then loader. */
static int cmp_cls_name(const void *a, const void *b, void *ctx)
{
	const struct heap *h = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(class_name(h, x), class_name(h, y));

	if (c != 0)
		return c;
	if (h->cls[x].loader_id != h->cls[y].loader_id)
		return h->cls[x].loader_id < h->cls[y].loader_id ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* One name's classes cs[0..n): a group of their class objects (members)
 * when two or more loaders define it. */
static void dup_group(struct insp_result *r, const struct heap *h, const struct objset *set,
		      const uint32_t *cs, size_t n)
{
	uint64_t loaders = 0;
	struct nvec a = { 0 };

	for (size_t i = 0; i < n; i++) {
		loaders += i == 0 || h->cls[cs[i]].loader_id != h->cls[cs[i - 1]].loader_id;
		if (objset_has(set, h->cls[cs[i]].node))
			nvec_push(&a, h->cls[cs[i]].node);
	}
	uint64_t count;
	node_t *m = nvec_take(&a, &count);
	if (loaders < 2 || count == 0) {
		free(m);
		return;
	}
	insp_add(r, h, xasprintf("%s (%llu loaders)", class_name(h, cs[0]), (unsigned long long)loaders),
		 IP_MEDIUM, m, count, loaders);
}

static int run_dupclasses(struct heap *h, const struct objset *set, const char *arg,
			  struct insp_result *r, struct progress *p, struct sbuf *err)
{
	uint32_t *cs = xmalloc(((size_t)h->ncls + 1) * sizeof *cs);
	size_t n = 0;

	(void)arg;
	(void)err;
	(void)p;
	for (uint32_t c = 0; c < h->ncls; c++)
		if (h->cls[c].node != HW_NONE)
			cs[n++] = c;
	hw_sort(cs, n, sizeof *cs, cmp_cls_name, h);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && strcmp(class_name(h, cs[i]), class_name(h, cs[j])) == 0; j++)
			;
		dup_group(r, h, set, cs + i, j - i);
	}
	r->examined = set->count;
	free(cs);
	return 0;
}

const struct inspection insp_retention[] = {
	{ "thread-locals", "Retention", "Objects retained by ThreadLocals, per thread", NULL, 0,
	  "retained", 1, run_locals, 0, NULL, 0 },
	{ "thread-stacks", "Retention", "Objects held by thread stacks, per thread and frame", NULL, 0,
	  "retained", 1, run_stacks, 0, NULL, 0 },
	{ "outer-instances", "Retention", "Outer instances kept alive by inner-class this$0", NULL, 0,
	  "retained", 1, run_outer, 0, NULL, 0 },
	{ "leak-suspects", "Retention", "Objects retaining 20% of the heap, classes' instances 10% together", NULL, 0,
	  "retained", 1, run_suspects, 1, NULL, 0 },
	{ "class-loaders", "Class loaders", "Classes and their instances, per defining loader", NULL, 0,
	  "classes", 0, run_loaders, 0, NULL, 0 },
	{ "duplicate-classes", "Class loaders", "Classes defined by more than one loader", NULL, 0,
	  "loaders", 0, run_dupclasses, 0, NULL, 0 },
	{ .name = NULL },
};
