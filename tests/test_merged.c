/* test_merged.c — merged outgoing, incoming and dominating references on
 * the sample heap, with the answers worked out by hand from its picture
 * (test_step.c): JNI global -> A; A.next = B, A.other = C; B.next = D;
 * C.next = D; D.next = X (a byte[]); U.next = A; A..E, U, S are class
 * Node; every instance also refers to its class object. Dominators:
 * B, C, D <- A; X <- D; A <- the root. And on a real dump, against a
 * brute-force grouping written here. */
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "format/hprof.h"
#include "engine/open.h"
#include "graph/open.h"
#include "runtime/jvm_coll.h"
#include "graph/rules.h"
#include "hprofw.h"
#include "query/merged.h"
#include "suites.h"

static struct heap h;

static void open_sample(void) { hw_open_sample(&h, "merged.hprof"); }
static void close_sample(void) { heap_free(&h); }

static node_t N(uint64_t id)
{
	node_t v = heap_find_id(&h, id);

	ck_assert_msg(v != HW_NONE, "no node 0x%llx", (unsigned long long)id);
	return v;
}

static uint32_t cls_named(const char *name)
{
	for (uint32_t c = 0; c < h.ncls; c++)
		if (strcmp(class_name(&h, c), name) == 0)
			return c;
	ck_abort_msg("no class %s", name);
	return HW_NONE;
}

/* The group of class `cls` (and field, unless NULL), or NULL. */
static const struct merged_group *find(const struct merged_level *l, uint32_t cls, const char *field)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->groups[i].cls == cls &&
		    (field == NULL || (l->groups[i].field && strcmp(l->groups[i].field, field) == 0)))
			return &l->groups[i];
	return NULL;
}

static void level(enum merged_kind k, enum merged_by by, const uint64_t *ids, size_t n, uint32_t pcls,
		  struct merged_level *l)
{
	node_t from[8];

	for (size_t i = 0; i < n; i++)
		from[i] = N(ids[i]);
	/* from must be sorted */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && from[j] < from[j - 1]; j--) {
			node_t t = from[j];
			from[j] = from[j - 1];
			from[j - 1] = t;
		}
	ck_assert_int_eq(merged_level(&h, k, by, 0, from, n, pcls, l, NULL), 0);
}

START_TEST(test_outgoing_by_class)
{
	struct merged_level l;
	const uint64_t a[] = { S_A };

	level(MG_OUTGOING, MG_BY_CLASS, a, 1, HW_NONE, &l);
	/* A refers to B and C (Node) and to the class object of Node */
	ck_assert_uint_eq(l.n, 2);
	const struct merged_group *g = find(&l, cls_named("Node"), NULL);
	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(g->count, 2);
	ck_assert_uint_eq(g->nodes[0], N(S_B) < N(S_C) ? N(S_B) : N(S_C));
	ck_assert_uint_eq(g->shallow, 48);
	ck_assert_uint_eq(g->nreached, 1);
	ck_assert_uint_eq(g->reached[0], N(S_A));
	ck_assert_ptr_eq(g, &l.groups[0]); /* the bigger group first */
	ck_assert_uint_eq(l.chain, 0);
	merged_level_free(&l);
}
END_TEST

START_TEST(test_incoming_two_counts)
{
	struct merged_level l;
	const uint64_t d[] = { S_D }, a[] = { S_A }, bd[] = { S_B, S_D };

	/* D is held by B and C: two holders, one object reached */
	level(MG_INCOMING, MG_BY_CLASS, d, 1, HW_NONE, &l);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_uint_eq(l.groups[0].cls, cls_named("Node"));
	ck_assert_uint_eq(l.groups[0].count, 2);
	ck_assert_uint_eq(l.groups[0].nreached, 1);
	merged_level_free(&l);
	/* {B, D}: A holds B; B and C hold D: holders A, B, C; both reached */
	level(MG_INCOMING, MG_BY_CLASS, bd, 2, HW_NONE, &l);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_uint_eq(l.groups[0].count, 3);
	ck_assert_uint_eq(l.groups[0].nreached, 2);
	merged_level_free(&l);
	/* A: held by a GC root (the JNI global); U refers to it too, but U
	 * is unreachable: its reference holds nothing (--keep-unreachable
	 * would make it a holder) */
	level(MG_INCOMING, MG_BY_CLASS, a, 1, HW_NONE, &l);
	ck_assert_uint_eq(l.n, 1);
	const struct merged_group *root = find(&l, MG_ROOT, NULL);
	ck_assert_ptr_nonnull(root);
	ck_assert_uint_eq(root->count, 0);
	ck_assert_uint_eq(root->nreached, 1);
	ck_assert_ptr_null(find(&l, cls_named("Node"), NULL));
	merged_level_free(&l);
}
END_TEST

START_TEST(test_by_field)
{
	struct merged_level l;
	const uint64_t a[] = { S_A }, d[] = { S_D }, x[] = { S_X };
	uint32_t node = cls_named("Node");

	level(MG_OUTGOING, MG_BY_FIELD, a, 1, HW_NONE, &l);
	const struct merged_group *n = find(&l, node, "next"), *o = find(&l, node, "other");
	ck_assert_ptr_nonnull(n);
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(n->count, 1);
	ck_assert_uint_eq(n->nodes[0], N(S_B));
	ck_assert_uint_eq(o->nodes[0], N(S_C));
	merged_level_free(&l);
	/* B.next and C.next: one group by class and field, two holders */
	level(MG_INCOMING, MG_BY_FIELD, d, 1, HW_NONE, &l);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_str_eq(l.groups[0].field, "next");
	ck_assert_uint_eq(l.groups[0].count, 2);
	ck_assert_int_eq(l.groups[0].coll, 0);
	merged_level_free(&l);
	/* X's dominator D refers to it itself, through next */
	level(MG_DOMINATING, MG_BY_FIELD, x, 1, HW_NONE, &l);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_uint_eq(l.groups[0].nodes[0], N(S_D));
	ck_assert_str_eq(l.groups[0].field, "next");
	merged_level_free(&l);
	/* D's dominator A holds it only through B or C */
	level(MG_DOMINATING, MG_BY_FIELD, d, 1, HW_NONE, &l);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_uint_eq(l.groups[0].nodes[0], N(S_A));
	ck_assert_str_eq(l.groups[0].field, "<transitive>");
	merged_level_free(&l);
}
END_TEST

START_TEST(test_recursive_chains)
{
	struct merged_level l;
	const uint64_t a[] = { S_A }, d[] = { S_D };
	uint32_t node = cls_named("Node");

	/* expanding a Node group holding A: the Node -> Node chain A -> B,
	 * C -> D folds into it (3 more), and the level is what the chain
	 * refers to outside it: X, a byte[], and Node's class object */
	level(MG_OUTGOING, MG_BY_CLASS, a, 1, node, &l);
	ck_assert_uint_eq(l.chain, 3);
	ck_assert_ptr_null(find(&l, node, NULL));
	const struct merged_group *x = find(&l, cls_named("[B"), NULL);
	ck_assert_ptr_nonnull(x);
	ck_assert_uint_eq(x->count, 1);
	ck_assert_uint_eq(x->nodes[0], N(S_X));
	ck_assert_uint_eq(x->nreached, 1);
	ck_assert_uint_eq(x->reached[0], N(S_D));
	merged_level_free(&l);
	/* dominating from a Node group holding D: D <- A is one chain, and
	 * A's dominator is the root */
	level(MG_DOMINATING, MG_BY_CLASS, d, 1, node, &l);
	ck_assert_uint_eq(l.chain, 1);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_uint_eq(l.groups[0].cls, MG_ROOT);
	ck_assert_uint_eq(l.groups[0].nreached, 1);
	ck_assert_uint_eq(l.groups[0].reached[0], N(S_A));
	merged_level_free(&l);
}
END_TEST

/* ---- a real dump against a brute-force grouping ---- */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

struct plist {
	uint64_t *v;
	size_t n, cap;
};

static void padd(struct plist *p, uint64_t x)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 1024;
		p->v = xreallocarray(p->v, p->cap, sizeof *p->v);
	}
	p->v[p->n++] = x;
}

/* Distinct (class, node) pairs per class. */
static void per_class(struct plist *p, uint64_t *out)
{
	qsort(p->v, p->n, sizeof *p->v, cmp_u64);
	for (size_t i = 0; i < p->n; i++)
		if (i == 0 || p->v[i] != p->v[i - 1])
			out[p->v[i] >> 32]++;
	free(p->v);
}

/* For each class: the distinct neighbours of that class (count) and the
 * distinct members with such a neighbour (reached), by walking every
 * reference of the heap, not the member lists. */
static void brute(const struct heap *hp, const bits_t *in, int incoming, uint64_t *count,
		  uint64_t *reached)
{
	struct plist pn = { 0 }, pr = { 0 };

	memset(count, 0, (hp->ncls + 1) * sizeof *count);
	memset(reached, 0, (hp->ncls + 1) * sizeof *reached);
	for (node_t s = 1; s < hp->n; s++)
		for (edge_t j = hp->out_start[s]; j < hp->out_start[s + 1]; j++) {
			node_t t = hp->out[j], member = incoming ? t : s, nb = incoming ? s : t;
			if (!bit_get(in, member))
				continue;
			padd(&pn, (uint64_t)hp->node_class[nb] << 32 | nb);
			padd(&pr, (uint64_t)hp->node_class[nb] << 32 | member);
		}
	per_class(&pn, count);
	per_class(&pr, reached);
}

/* ---- the virtual root's groups, by a marking of the test's own ----
 * GC roots: what the dump's own roots (or the analysis root alone)
 * reach over strong references; weakly reachable: what of the rest the
 * engine's weak pseudo roots reach so; the rest unreachable (merged.h). */
struct rootmark {
	bits_t *strong, *weakly, *rec, *wonly; /* wonly: only weak pseudo root records */
};

static void mark_strong(const struct heap *hp, bits_t *m, const bits_t *skip, node_t start, node_t *stack)
{
	size_t sp = 0;

	if (bit_get(m, start) || (skip != NULL && bit_get(skip, start)))
		return;
	bit_set(m, start);
	stack[sp++] = start;
	while (sp > 0) {
		node_t u = stack[--sp];
		for (edge_t j = hp->out_start[u]; j < hp->out_start[u + 1]; j++) {
			node_t t = hp->out[j];
			if (!bit_get(m, t) && (skip == NULL || !bit_get(skip, t))) {
				bit_set(m, t);
				stack[sp++] = t;
			}
		}
	}
}

static void rootmark_make(const struct heap *hp, struct rootmark *rm)
{
	node_t *stack = xmalloc(((size_t)hp->n + 1) * sizeof *stack);
	bits_t *real = xcalloc(bits_words(hp->n), sizeof *real);

	rm->strong = xcalloc(bits_words(hp->n), sizeof *rm->strong);
	rm->weakly = xcalloc(bits_words(hp->n), sizeof *rm->weakly);
	rm->rec = xcalloc(bits_words(hp->n), sizeof *rm->rec);
	rm->wonly = xcalloc(bits_words(hp->n), sizeof *rm->wonly);
	if (hp->aroot != 0) { /* the only root: the dump's own are none */
		bit_set(rm->rec, hp->aroot);
		bit_set(real, hp->aroot);
		mark_strong(hp, rm->strong, NULL, hp->aroot, stack);
	}
	for (size_t i = 0; i < hp->nroot_rec; i++) {
		node_t v = hp->root_rec[i].node;
		if (hp->aroot != 0 && hp->root_rec[i].kind < RK_WEAK_ONLY)
			continue;
		bit_set(rm->rec, v);
		if (hp->root_rec[i].kind < RK_WEAK_ONLY) {
			bit_set(real, v);
			mark_strong(hp, rm->strong, NULL, v, stack);
		}
	}
	for (size_t i = 0; i < hp->nroot_rec; i++)
		if (hp->root_rec[i].kind == RK_WEAK_ONLY) {
			mark_strong(hp, rm->weakly, rm->strong, hp->root_rec[i].node, stack);
			if (!bit_get(real, hp->root_rec[i].node))
				bit_set(rm->wonly, hp->root_rec[i].node);
		}
	free(real);
	free(stack);
}

static void rootmark_free(struct rootmark *rm)
{
	free(rm->strong);
	free(rm->weakly);
	free(rm->rec);
	free(rm->wonly);
}

/* The virtual root's groups of level l, computed over the members `in`
 * (no chain), against the marking: every member whose neighbour the root
 * is (incoming: it is a root, but one only weakly reachable when weak
 * holders stand for it; dominating: its immediate dominator is the
 * root) counted in its group; *seen gets bit 1 for a group of the weakly
 * reachable, bit 2 for one of the unreachable. */
static void check_root_groups(const struct heap *hp, const struct merged_level *l, const bits_t *in,
			      enum merged_kind kind, int weak, unsigned *seen)
{
	struct rootmark rm;
	uint64_t want[3] = { 0 };

	rootmark_make(hp, &rm);
	for (node_t x = 1; x < hp->n && kind != MG_OUTGOING; x++) {
		if (!bit_get(in, x))
			continue;
		if (kind == MG_DOMINATING ? hp->idom[x] != 0 : !bit_get(rm.rec, x))
			continue;
		if (kind == MG_INCOMING && weak && hp->nweak > 0 && bit_get(rm.wonly, x))
			continue; /* its weak holders stand for it */
		want[bit_get(rm.strong, x) ? 0 : bit_get(rm.weakly, x) ? 1 : 2]++;
	}
	size_t groups = 0;
	for (size_t i = 0; i < l->n; i++) {
		const struct merged_group *g = &l->groups[i];
		if (!mg_root_group(g->cls))
			continue;
		int k = g->cls == MG_ROOT ? 0 : g->cls == MG_WEAKLY ? 1 : 2;
		ck_assert_msg(g->nreached == want[k] && g->count == 0 && g->shallow == 0 && !g->weak,
			      "%s: reached %zu, the test's marking %llu", merged_cls_name(hp, g->cls), g->nreached,
			      (unsigned long long)want[k]);
		groups++;
		*seen |= k > 0 ? 1u << k : 0;
	}
	ck_assert_uint_eq(groups, (want[0] > 0) + (want[1] > 0) + (want[2] > 0));
	rootmark_free(&rm);
}

/* merged-dom -r from the GC roots down (the tree's top level, the
 * virtual root's children on the way to the members): its objects that
 * the roots reach through weak references alone and those they do not
 * reach, counted against the test's own marking. */
static void check_reverse_top(const struct heap *hp, const node_t *members, size_t n)
{
	struct rootmark rm;
	struct merged_tree t;
	uint64_t want[3] = { 0 };
	bits_t *top = xcalloc(bits_words(hp->n), sizeof *top);

	rootmark_make(hp, &rm);
	for (size_t i = 0; i < n; i++) { /* the top of each member's idom chain */
		node_t v = members[i];
		while (v != 0 && hp->idom[v] != 0 && hp->idom[v] != v && hp->idom[v] != HW_NONE)
			v = hp->idom[v];
		if (v != 0 && hp->idom[v] == 0 && !bit_get(top, v)) {
			bit_set(top, v);
			want[bit_get(rm.strong, v) ? 0 : bit_get(rm.weakly, v) ? 1 : 2]++;
		}
	}
	ck_assert_int_eq(merged_tree((struct heap *)hp, MG_DOMINATING, MG_BY_CLASS, 1, 0, members, n, 1, 0, &t, NULL), 0);
	ck_assert_msg(t.top_weakly_objs == want[1] && t.top_unreachable_objs == want[2],
		      "top level: %llu weakly reachable, %llu unreachable; the test's marking %llu, %llu",
		      (unsigned long long)t.top_weakly_objs, (unsigned long long)t.top_unreachable_objs,
		      (unsigned long long)want[1], (unsigned long long)want[2]);
	merged_tree_free(&t);
	free(top);
	rootmark_free(&rm);
}

START_TEST(test_real_dump_brute_force)
{
	struct heap rh;
	struct open_opts oo = { .quiet = 1 };
	struct sbuf err;

	ensure_dump("coops", "");
	sbuf_init(&err);
	ck_assert_msg(heap_open(&rh, TEST_BUILDDIR "/dumps/coops.hprof", &oo, NULL, &err) == 0, "%s", err.buf);
	sbuf_free(&err);
	heap_need(&rh, HP_ALL, NULL);
	uint64_t *count = xcalloc(rh.ncls + 1, sizeof *count), *reached = xcalloc(rh.ncls + 1, sizeof *reached);
	unsigned pseudo = 0; /* groups of the engine's pseudo roots met */
	srand(7);
	for (int round = 0; round < 6; round++) {
		/* a random set: 1 in 2^(round+2) objects */
		bits_t *in = xcalloc(bits_words(rh.n), sizeof *in);
		node_t *from = xmalloc((size_t)rh.n * sizeof *from);
		size_t n = 0;
		for (node_t v = 1; v < rh.n; v++)
			if ((rand() & ((4 << round) - 1)) == 0) {
				bit_set(in, v);
				from[n++] = v;
			}
		int incoming = round & 1;
		struct merged_level l;
		ck_assert_int_eq(merged_level(&rh, incoming ? MG_INCOMING : MG_OUTGOING, MG_BY_CLASS, 0, from, n,
					      HW_NONE, &l, NULL), 0);
		brute(&rh, in, incoming, count, reached);
		size_t classes = 0;
		for (uint32_t c = 0; c < rh.ncls; c++)
			classes += count[c] > 0;
		size_t groups = 0;
		for (size_t i = 0; i < l.n; i++) {
			const struct merged_group *g = &l.groups[i];
			if (mg_root_group(g->cls))
				continue;
			groups++;
			ck_assert_msg(g->count == count[g->cls] && g->nreached == reached[g->cls],
				      "round %d, %s: %zu/%zu, brute force %llu/%llu", round,
				      class_name(&rh, g->cls), g->count, g->nreached,
				      (unsigned long long)count[g->cls], (unsigned long long)reached[g->cls]);
			if (i > 0)
				ck_assert_uint_ge(l.groups[i - 1].count, g->count);
		}
		ck_assert_uint_eq(groups, classes);
		ck_assert_uint_gt(groups, 10); /* a real spread of classes */
		check_root_groups(&rh, &l, in, incoming ? MG_INCOMING : MG_OUTGOING, 0, &pseudo);
		merged_level_free(&l);
		free(in);
		free(from);
	}
	ck_assert_msg(pseudo & 4, "no unreachable object met"); /* the dump's 131 unreachable roots */
	free(count);
	free(reached);
	heap_free(&rh);
}
END_TEST

/* ---- by field on a real dump, against labels read by the decoder ---- */

/* Label strings to small numbers: a linear-probing table. */
struct strtab {
	char **s;
	size_t n, cap;
	uint32_t *slot;
	size_t hcap;
};

static uint32_t str_id(struct strtab *t, const char *s)
{
	if (2 * (t->n + 1) > t->hcap) {
		size_t cap = t->hcap ? t->hcap * 2 : 1024;
		uint32_t *ns = xcalloc(cap, sizeof *ns);
		for (size_t i = 0; i < t->n; i++) {
			size_t j = strlen(t->s[i]) * 31;
			for (const char *q = t->s[i]; *q; q++)
				j = j * 131 + (uint8_t)*q;
			while (ns[j & (cap - 1)] != 0)
				j++;
			ns[j & (cap - 1)] = (uint32_t)i + 1;
		}
		free(t->slot);
		t->slot = ns;
		t->hcap = cap;
	}
	size_t j = strlen(s) * 31;
	for (const char *q = s; *q; q++)
		j = j * 131 + (uint8_t)*q;
	for (; t->slot[j & (t->hcap - 1)] != 0; j++)
		if (strcmp(t->s[t->slot[j & (t->hcap - 1)] - 1], s) == 0)
			return t->slot[j & (t->hcap - 1)] - 1;
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 1024;
		t->s = xreallocarray(t->s, t->cap, sizeof *t->s);
	}
	t->s[t->n] = xstrdup(s);
	t->slot[j & (t->hcap - 1)] = (uint32_t)t->n + 1;
	return (uint32_t)t->n++;
}

struct fieldlist {
	uint64_t id[4096];
	char name[4096][64];
	int used[4096];
	size_t n;
};

static void collect_field(void *arg, const char *name, const struct hvalue *v)
{
	struct fieldlist *f = arg;

	if (v->type == T_OBJECT && v->v.id != 0 && f->n < 4096) {
		f->id[f->n] = v->v.id;
		snprintf(f->name[f->n], sizeof f->name[f->n], "%s", name);
		f->used[f->n++] = 0;
	}
}

/* The label of each reference of s, in out[] order: an instance's
 * fields in record order, each field once (a target held twice takes
 * two), then its class; "[]" for elements; class records as the
 * decoder labels them. */
static void brute_labels(const struct heap *hp, node_t s, struct fieldlist *f, struct strtab *st, uint32_t *lab)
{
	struct sbuf sb;

	sbuf_init(&sb);
	f->n = 0;
	if (hp->node_kind[s] == NK_INSTANCE)
		hprof_fields(hp, s, collect_field, f);
	int cls_taken = 0;
	for (edge_t j = hp->out_start[s]; j < hp->out_start[s + 1]; j++) {
		node_t t = hp->out[j];
		const char *l = NULL;
		sbuf_reset(&sb);
		if (hp->node_kind[s] == NK_CLASS) {
			hprof_edge_label(hp, s, t, &sb);
			l = sb.buf;
		} else if (hp->node_kind[s] == NK_INSTANCE) {
			uint64_t id = heap_node_id(hp, t);
			for (size_t i = 0; i < f->n && l == NULL; i++)
				if (!f->used[i] && f->id[i] == id) {
					f->used[i] = 1;
					l = f->name[i];
				}
		} else if (hp->node_kind[s] == NK_OBJARRAY) {
			l = t == hp->cls[hp->node_class[s]].node && !cls_taken ? (cls_taken = 1, "<class>") : "[]";
		}
		if (l == NULL)
			l = t == hp->cls[hp->node_class[s]].node ? "<class>" : "<?>";
		lab[j - hp->out_start[s]] = str_id(st, l);
	}
	sbuf_free(&sb);
}

/* Two levels are the same: groups, their nodes and members. */
static void same_levels(const struct merged_level *a, const struct merged_level *b, const char *what)
{
	ck_assert_msg(a->n == b->n, "%s: %zu groups, %zu the other way", what, a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		const struct merged_group *x = &a->groups[i], *y = &b->groups[i];
		ck_assert_msg(x->cls == y->cls && x->coll == y->coll &&
				      strcmp(x->field ? x->field : "", y->field ? y->field : "") == 0,
			      "%s: group %zu differs", what, i);
		ck_assert_msg(x->count == y->count && x->nreached == y->nreached,
			      "%s: group %zu (%s): %zu/%zu, %zu/%zu the other way", what, i, x->field, x->count,
			      x->nreached, y->count, y->nreached);
		ck_assert(memcmp(x->nodes, y->nodes, x->count * sizeof *x->nodes) == 0);
		ck_assert(memcmp(x->reached, y->reached, x->nreached * sizeof *x->reached) == 0);
		ck_assert_uint_eq(x->shallow, y->shallow);
	}
}

/* Incoming by field over much of a heap is read from the referrers'
 * side: the same level as member by member (which the brute-force
 * tests check), on the collections' dump (holders worked out as the
 * references come) and on the JDK dump, whole and half. */
static void referrer_side(struct heap *hp)
{
	node_t *from = xmalloc((size_t)hp->n * sizeof *from);
	unsigned keep = merged_referrer_share;

	srand(5);
	for (int half = 0; half < 2; half++) {
		size_t n = 0;
		for (node_t v = 1; v < hp->n; v++)
			if (!half || (rand() & 1))
				from[n++] = v;
		for (enum merged_by by = MG_BY_FIELD; by <= MG_BY_FIELD_RAW; by++) {
			struct merged_level a, b;
			unsigned long passes = merged_referrer_passes;
			merged_referrer_share = 4;
			ck_assert_int_eq(merged_level(hp, MG_INCOMING, by, 0, from, n, HW_NONE, &a, NULL), 0);
			ck_assert_uint_eq(merged_referrer_passes, passes + 1); /* that way indeed */
			merged_referrer_share = 0;
			ck_assert_int_eq(merged_level(hp, MG_INCOMING, by, 0, from, n, HW_NONE, &b, NULL), 0);
			ck_assert_uint_eq(merged_referrer_passes, passes + 1); /* and not that way */
			ck_assert_uint_gt(a.n, 10);
			same_levels(&a, &b, by == MG_BY_FIELD ? "by field" : "raw");
			merged_level_free(&a);
			merged_level_free(&b);
		}
	}
	merged_referrer_share = keep;
	free(from);
}

START_TEST(test_real_dump_by_field)
{
	struct heap rh;
	struct open_opts oo = { .quiet = 1 };
	struct sbuf err;
	struct strtab st = { 0 };
	struct fieldlist *fl = xmalloc(sizeof *fl);

	ensure_dump("coops", "");
	sbuf_init(&err);
	ck_assert_msg(heap_open(&rh, TEST_BUILDDIR "/dumps/coops.hprof", &oo, NULL, &err) == 0, "%s", err.buf);
	sbuf_free(&err);
	heap_need(&rh, HP_ALL, NULL);
	/* every reference's label, once */
	uint32_t *lab = xmalloc(((size_t)rh.out_start[rh.n] + 1) * sizeof *lab);
	for (node_t s = 1; s < rh.n; s++)
		brute_labels(&rh, s, fl, &st, lab + rh.out_start[s]);
	srand(11);
	for (int round = 0; round < 4; round++) {
		bits_t *in = xcalloc(bits_words(rh.n), sizeof *in);
		node_t *from = xmalloc((size_t)rh.n * sizeof *from);
		size_t n = 0;
		for (node_t v = 1; v < rh.n; v++)
			if ((rand() & (round < 2 ? 1 : 15)) == 0) { /* incoming: half (from the referrers' side), 1/16 */
				bit_set(in, v);
				from[n++] = v;
			}
		int incoming = round & 1;
		/* (class, label) -> distinct neighbours and members, as sorted
		 * (group, node) pairs: group = class << 20 | label */
		struct plist pn = { 0 }, pr = { 0 };
		for (node_t s = 1; s < rh.n; s++)
			for (edge_t j = rh.out_start[s]; j < rh.out_start[s + 1]; j++) {
				node_t t = rh.out[j], member = incoming ? t : s, nb = incoming ? s : t;
				if (!bit_get(in, member))
					continue;
				uint64_t g = (uint64_t)rh.node_class[nb] << 20 | lab[j];
				padd(&pn, g << 32 | nb);
				padd(&pr, g << 32 | member);
			}
		struct merged_level l;
		ck_assert_int_eq(merged_level(&rh, incoming ? MG_INCOMING : MG_OUTGOING, MG_BY_FIELD_RAW, 0, from, n,
					      HW_NONE, &l, NULL), 0);
		qsort(pn.v, pn.n, sizeof *pn.v, cmp_u64);
		qsort(pr.v, pr.n, sizeof *pr.v, cmp_u64);
		size_t groups = 0, checked = 0, q = 0;
		for (size_t i = 0, k = 0; i < pn.n; i = k) {
			uint64_t g = pn.v[i] >> 32;
			size_t cnt = 0, rc = 0;
			for (k = i; k < pn.n && pn.v[k] >> 32 == g; k++)
				cnt += k == i || pn.v[k] != pn.v[k - 1];
			for (size_t q0 = q; q < pr.n && pr.v[q] >> 32 == g; q++) /* both sorted by group */
				rc += q == q0 || pr.v[q] != pr.v[q - 1];
			groups++;
			const struct merged_group *mg = find(&l, (uint32_t)(g >> 20), st.s[g & 0xfffff]);
			ck_assert_msg(mg != NULL, "round %d: no group %s.%s", round, class_name(&rh, (uint32_t)(g >> 20)),
				      st.s[g & 0xfffff]);
			ck_assert_msg(mg->count == cnt && mg->nreached == rc, "round %d, %s.%s: %zu/%zu, brute force %zu/%zu",
				      round, class_name(&rh, mg->cls), mg->field, mg->count, mg->nreached, cnt, rc);
			checked++;
		}
		size_t real_groups = 0;
		for (size_t i = 0; i < l.n; i++)
			real_groups += !mg_root_group(l.groups[i].cls);
		ck_assert_uint_eq(real_groups, groups);
		ck_assert_uint_gt(checked, 20);
		unsigned pseudo = 0;
		check_root_groups(&rh, &l, in, incoming ? MG_INCOMING : MG_OUTGOING, 0, &pseudo);
		merged_level_free(&l);
		free(pn.v);
		free(pr.v);
		free(in);
		free(from);
	}
	referrer_side(&rh);
	for (size_t i = 0; i < st.n; i++)
		free(st.s[i]);
	free(st.s);
	free(st.slot);
	free(lab);
	free(fl);
	heap_free(&rh);
}
END_TEST

static void open_real(struct heap *rh, struct ruleset **rs);

/* ---- reached through a path of rows ----
 * A hand-built heap: items I1..I6 (the set), map-like entries
 * E1 -next-> E2 -next-> E3 holding I1, I2 and I3 (E3 as key and as
 * value), E4 holding I4, E5 holding I5; a table T = Entry[] {E1, E4};
 * boxes B1.item = I5, B2.item = I4; a registry R (table T, box B1,
 * other B2). GC roots: R, E5, I6 (JNI globals) and the classes.
 * Dominators: T, B1, B2 <- R; E1, E4 <- T; E2 <- E1; E3 <- E2; I1 <- E1,
 * I2 <- E2, I3 <- E3, I4 <- R (E4 and B2), I5, E5, I6, R <- the root. */
enum {
	P_ITEM = 0x3001, P_ENTRY = 0x3011, P_BOX = 0x3021, P_REG = 0x3031, P_EARR = 0x3041,
	PF_KEY = 0x3101, PF_VALUE = 0x3103, PF_NEXT = 0x3105, PF_ITEM = 0x3107, PF_TABLE = 0x3109,
	PF_BOX = 0x310b, PF_OTHER = 0x310d,
	P_I1 = 0x4001, P_I2 = 0x4003, P_I3 = 0x4005, P_I4 = 0x4007, P_I5 = 0x4009, P_I6 = 0x400b,
	P_E1 = 0x4101, P_E2 = 0x4103, P_E3 = 0x4105, P_E4 = 0x4107, P_E5 = 0x4109,
	P_B1 = 0x4201, P_B2 = 0x4203, P_T = 0x4301, P_R = 0x4401,
};

static void path_entry(struct hw *w, uint64_t id, uint64_t key, uint64_t value, uint64_t next)
{
	const struct hw_field v[] = { { 0, T_OBJECT, key }, { 0, T_OBJECT, value }, { 0, T_OBJECT, next } };

	hw_instance(w, id, P_ENTRY, v, 3);
}

static char paths_dump[512]; /* where open_paths wrote it */

static void open_paths(void)
{
	static const struct hw_field entry[] = { { PF_KEY, T_OBJECT, 0 }, { PF_VALUE, T_OBJECT, 0 },
						 { PF_NEXT, T_OBJECT, 0 } };
	static const struct hw_field box[] = { { PF_ITEM, T_OBJECT, 0 } };
	static const struct hw_field reg[] = { { PF_TABLE, T_OBJECT, 0 }, { PF_BOX, T_OBJECT, 0 },
					       { PF_OTHER, T_OBJECT, 0 } };
	const uint64_t table[] = { P_E1, P_E4 };
	struct hw w;
	struct open_opts o = { .no_cache = 1, .quiet = 1 };
	struct sbuf err;

	hw_begin(&w, "JAVA PROFILE 1.0.2", 8);
	hw_jdk_names(&w);
	const char *fn[] = { "key", "value", "next", "item", "table", "box", "other" };
	for (int i = 0; i < 7; i++)
		hw_utf8(&w, PF_KEY + 2 * (uint64_t)i, fn[i]);
	hw_class_name(&w, 20, P_ITEM, "Item");
	hw_class_name(&w, 21, P_ENTRY, "Entry");
	hw_class_name(&w, 22, P_BOX, "Box");
	hw_class_name(&w, 23, P_REG, "Reg");
	hw_class_name(&w, 24, P_EARR, "[LEntry;");
	hw_heap_begin(&w);
	hw_jdk_classes(&w);
	hw_class_dump(&w, P_ITEM, J_OBJECT, 0, NULL, 0, NULL, 0, NULL, 0);
	hw_class_dump(&w, P_ENTRY, J_OBJECT, 0, NULL, 0, NULL, 0, entry, 3);
	hw_class_dump(&w, P_BOX, J_OBJECT, 0, NULL, 0, NULL, 0, box, 1);
	hw_class_dump(&w, P_REG, J_OBJECT, 0, NULL, 0, NULL, 0, reg, 3);
	hw_class_dump(&w, P_EARR, J_OBJECT, 0, NULL, 0, NULL, 0, NULL, 0);
	for (uint64_t c = P_ITEM; c <= P_EARR; c += 0x10)
		hw_root(&w, 0x05, c, 0, 0);
	hw_root(&w, 0x01, P_R, 1, 0);
	hw_root(&w, 0x01, P_E5, 2, 0);
	hw_root(&w, 0x01, P_I6, 3, 0);
	for (uint64_t i = P_I1; i <= P_I6; i += 2)
		hw_instance(&w, i, P_ITEM, NULL, 0);
	path_entry(&w, P_E1, 0, P_I1, P_E2);
	path_entry(&w, P_E2, 0, P_I2, P_E3);
	path_entry(&w, P_E3, P_I3, P_I3, 0);
	path_entry(&w, P_E4, 0, P_I4, 0);
	path_entry(&w, P_E5, 0, P_I5, 0);
	const struct hw_field b1[] = { { 0, T_OBJECT, P_I5 } }, b2[] = { { 0, T_OBJECT, P_I4 } };
	hw_instance(&w, P_B1, P_BOX, b1, 1);
	hw_instance(&w, P_B2, P_BOX, b2, 1);
	hw_objarray(&w, P_T, P_EARR, table, 2);
	const struct hw_field r[] = { { 0, T_OBJECT, P_T }, { 0, T_OBJECT, P_B1 }, { 0, T_OBJECT, P_B2 } };
	hw_instance(&w, P_R, P_REG, r, 3);
	hw_heap_end(&w);
	hw_dump_end(&w);
	char *path = hw_write(&w, "paths.hprof", SIZE_MAX);
	snprintf(paths_dump, sizeof paths_dump, "%s", path);
	sbuf_init(&err);
	ck_assert_msg(heap_open(&h, path, &o, NULL, &err) == 0, "%s", err.buf);
	heap_need(&h, HP_ALL, NULL);
	sbuf_free(&err);
	free(path);
	hw_free(&w);
}

/* The brute force's own view of the graph: each reference with the
 * label the record decoder gives it (brute_labels), a neighbour at a
 * time in the view's direction. */
struct bgraph {
	struct heap *h;
	uint32_t *lab;       /* per out[] entry */
	struct strtab st;
	struct fieldlist *fl;
};

static void bgraph_init(struct bgraph *g, struct heap *hp)
{
	memset(g, 0, sizeof *g);
	g->h = hp;
	g->fl = xmalloc(sizeof *g->fl);
	g->lab = xmalloc(((size_t)hp->out_start[hp->n] + 1) * sizeof *g->lab);
	for (node_t s = 1; s < hp->n; s++)
		brute_labels(hp, s, g->fl, &g->st, g->lab + hp->out_start[s]);
}

static void bgraph_free(struct bgraph *g)
{
	for (size_t i = 0; i < g->st.n; i++)
		free(g->st.s[i]);
	free(g->st.s);
	free(g->st.slot);
	free(g->lab);
	free(g->fl);
}

/* Up to 64 (neighbour, label) of u; label NULL for the root. */
struct bnb { node_t y[4096]; const char *l[4096]; size_t n; };

static void bneighbours(const struct bgraph *g, enum merged_kind k, node_t u, struct bnb *r)
{
	const struct heap *hp = g->h;

	r->n = 0;
	if (k == MG_OUTGOING) {
		for (edge_t j = hp->out_start[u]; j < hp->out_start[u + 1] && r->n < 4096; j++, r->n++) {
			r->y[r->n] = hp->out[j];
			r->l[r->n] = g->st.s[g->lab[j]];
		}
	} else if (k == MG_INCOMING) {
		for (edge_t j = hp->in_start[u]; j < hp->in_start[u + 1]; j++) {
			node_t y = hp->in[j];
			if (y == 0) {
				r->y[r->n] = 0;
				r->l[r->n++] = NULL;
				continue;
			}
			if (j > hp->in_start[u] && hp->in[j - 1] == y)
				continue; /* each of y's references to u below, once */
			for (edge_t q = hp->out_start[y]; q < hp->out_start[y + 1] && r->n < 4096; q++)
				if (hp->out[q] == u) {
					r->y[r->n] = y;
					r->l[r->n++] = g->st.s[g->lab[q]];
				}
		}
	} else {
		node_t y = hp->idom[u];
		if (y == HW_NONE || y == u)
			return;
		r->y[0] = y;
		r->l[0] = y == 0 ? NULL : "<transitive>";
		for (edge_t q = hp->out_start[y]; y != 0 && q < hp->out_start[y + 1]; q++)
			if (hp->out[q] == u) {
				r->l[0] = g->st.s[g->lab[q]];
				break;
			}
		r->n = 1;
	}
}

/* brute_reaches' room, a heap's worth each, made once for all the
 * members a walk checks (under ASan a fresh heap-sized block each time,
 * mapped and poisoned, cost most of the merged suite's time) */
struct bscratch { bits_t *on; node_t *cur, *next; };

/* Brute force, one member at a time, forwards: the objects it reaches
 * through each level's group, closed over the chain of the level's
 * class; in[] of each level's closure computed here too. */
static int brute_reaches(const struct bgraph *g, enum merged_kind k, const struct merged_step *path,
			 size_t depth, bits_t **closed, node_t m, struct bnb *nb, struct bscratch *sc)
{
	const struct heap *hp = g->h;
	bits_t *on = sc->on;
	node_t *cur = sc->cur, *next = sc->next;
	size_t nc = 1, nn;
	int root = 0;

	cur[0] = m;
	for (size_t i = 0; i < depth && nc > 0; i++) {
		const struct merged_step *st = &path[i];
		memset(on, 0, bits_words(hp->n) * sizeof *on);
		for (size_t q = 0; q < nc; q++)
			bit_set(on, cur[q]);
		for (size_t q = 0; q < nc && st->parent_cls != HW_NONE; q++) { /* the chain */
			bneighbours(g, k, cur[q], nb);
			for (size_t t = 0; t < nb->n; t++)
				if (nb->y[t] != 0 && hp->node_class[nb->y[t]] == st->parent_cls && !bit_get(on, nb->y[t])) {
					bit_set(on, nb->y[t]);
					cur[nc++] = nb->y[t];
				}
		}
		nn = 0;
		memset(on, 0, bits_words(hp->n) * sizeof *on);
		for (size_t q = 0; q < nc; q++) {
			bneighbours(g, k, cur[q], nb);
			for (size_t t = 0; t < nb->n; t++) {
				node_t y = nb->y[t];
				uint32_t cls = y == 0 ? MG_ROOT : hp->node_class[y];
				if (cls != st->cls || (y != 0 && cls == st->parent_cls && bit_get(closed[i], y)))
					continue;
				if (st->field != NULL && (y == 0 || strcmp(nb->l[t], st->field) != 0))
					continue;
				if (y == 0)
					root = 1;
				else if (!bit_get(on, y)) {
					bit_set(on, y);
					next[nn++] = y;
				}
			}
		}
		node_t *t = cur;
		cur = next;
		next = t;
		nc = nn;
	}
	return nc > 0 || root;
}

/* The closure of each level's from-set, as the brute force sees it. */
static bits_t *brute_closure(const struct bgraph *g, enum merged_kind k, const struct merged_step *st,
			     struct bnb *nb)
{
	const struct heap *hp = g->h;
	bits_t *in = xcalloc(bits_words(hp->n), sizeof *in);
	node_t *list = xmalloc((size_t)hp->n * sizeof *list);
	size_t n = 0;

	for (size_t q = 0; q < st->nfrom; q++) {
		bit_set(in, st->from[q]);
		list[n++] = st->from[q];
	}
	for (size_t q = 0; q < n && st->parent_cls != HW_NONE; q++) {
		bneighbours(g, k, list[q], nb);
		for (size_t t = 0; t < nb->n; t++)
			if (nb->y[t] != 0 && hp->node_class[nb->y[t]] == st->parent_cls && !bit_get(in, nb->y[t])) {
				bit_set(in, nb->y[t]);
				list[n++] = nb->y[t];
			}
	}
	free(list);
	return in;
}

/* merged_reached against the brute force for the members `check`. */
static void check_reached(const struct bgraph *g, enum merged_kind k, enum merged_by by,
			  const struct merged_step *path, size_t depth, const node_t *check, size_t ncheck)
{
	node_t *got;
	size_t ngot;
	struct bnb *nb = xmalloc(sizeof *nb);
	bits_t **closed = xmalloc(depth * sizeof *closed);
	struct bscratch sc = { xcalloc(bits_words(g->h->n), sizeof *sc.on), xmalloc((size_t)g->h->n * sizeof *sc.cur),
			       xmalloc((size_t)g->h->n * sizeof *sc.next) };

	ck_assert_int_eq(merged_reached(g->h, k, by, 0, path, depth, &got, &ngot, NULL), 0);
	for (size_t i = 0; i < depth; i++)
		closed[i] = brute_closure(g, k, &path[i], nb);
	for (size_t i = 1; i < ngot; i++)
		ck_assert_uint_lt(got[i - 1], got[i]);
	for (size_t q = 0; q < ncheck; q++) {
		int want = brute_reaches(g, k, path, depth, closed, check[q], nb, &sc);
		int has = 0;
		for (size_t i = 0; i < ngot && !has; i++)
			has = got[i] == check[q];
		ck_assert_msg(want == has, "kind %d by %d depth %zu: member %u: brute force %d, engine %d", k, by,
			      depth, check[q], want, has);
	}
	for (size_t i = 0; i < depth; i++)
		free(closed[i]);
	free(closed);
	free(sc.on);
	free(sc.cur);
	free(sc.next);
	free(nb);
	free(got);
}

static void sort_nodes_t(node_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && v[j] < v[j - 1]; j--) {
			node_t t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
}

/* The hand-built heap: the figures worked out above, and the brute force. */
START_TEST(test_reached_paths)
{
	node_t items[6], got_set[6];
	struct merged_level l0, l1, l2;
	struct bgraph g;
	node_t *got;
	size_t ngot;

	open_paths();
	uint32_t entry = cls_named("Entry"), earr = cls_named("[LEntry;"), reg = cls_named("Reg"),
		 box = cls_named("Box");
	for (int i = 0; i < 6; i++)
		items[i] = N(P_I1 + 2 * (uint64_t)i);
	sort_nodes_t(items, 6);
	bgraph_init(&g, &h);
	ck_assert_int_eq(merged_level(&h, MG_INCOMING, MG_BY_CLASS, 0, items, 6, HW_NONE, &l0, NULL), 0);
	const struct merged_group *ge = find(&l0, entry, NULL), *gb = find(&l0, box, NULL);
	ck_assert_uint_eq(ge->count, 5);
	ck_assert_uint_eq(ge->nreached, 5);
	ck_assert_int_eq(merged_level(&h, MG_INCOMING, MG_BY_CLASS, 0, ge->nodes, ge->count, entry, &l1, NULL), 0);
	const struct merged_group *gt = find(&l1, earr, NULL);
	ck_assert_uint_eq(gt->count, 1);
	ck_assert_uint_eq(gt->nreached, 2); /* E1 and E4: the row above's objects, not items */
	struct merged_step p[3] = {
		{ items, 6, HW_NONE, entry, NULL, 0, 0 }, { ge->nodes, ge->count, entry, earr, NULL, 0, 0 },
		{ gt->nodes, gt->count, earr, reg, NULL, 0, 0 },
	};
	/* through Entry then Entry[]: I1..I4 (I2 and I3 along the chain), not I5 */
	ck_assert_int_eq(merged_reached(&h, MG_INCOMING, MG_BY_CLASS, 0, p, 2, &got, &ngot, NULL), 0);
	ck_assert_uint_eq(ngot, 4);
	for (int i = 0; i < 4; i++)
		got_set[i] = N(P_I1 + 2 * (uint64_t)i);
	sort_nodes_t(got_set, 4);
	ck_assert_mem_eq(got, got_set, 4 * sizeof *got);
	free(got);
	ck_assert_int_eq(merged_level(&h, MG_INCOMING, MG_BY_CLASS, 0, gt->nodes, gt->count, earr, &l2, NULL), 0);
	ck_assert_ptr_nonnull(find(&l2, reg, NULL));
	check_reached(&g, MG_INCOMING, MG_BY_CLASS, p, 3, items, 6);
	/* depth 1 is the group's own reached */
	ck_assert_int_eq(merged_reached(&h, MG_INCOMING, MG_BY_CLASS, 0, p, 1, &got, &ngot, NULL), 0);
	ck_assert_uint_eq(ngot, ge->nreached);
	ck_assert_mem_eq(got, ge->reached, ngot * sizeof *got);
	free(got);
	/* Box then Reg: I4 and I5; the GC roots below Entry: I5 (E5) */
	struct merged_level lb;
	ck_assert_int_eq(merged_level(&h, MG_INCOMING, MG_BY_CLASS, 0, gb->nodes, gb->count, box, &lb, NULL), 0);
	struct merged_step pb[2] = { { items, 6, HW_NONE, box, NULL, 0, 0 }, { gb->nodes, gb->count, box, reg, NULL, 0, 0 } };
	ck_assert_int_eq(merged_reached(&h, MG_INCOMING, MG_BY_CLASS, 0, pb, 2, &got, &ngot, NULL), 0);
	ck_assert_uint_eq(ngot, 2);
	free(got);
	struct merged_step pr[2] = { p[0], { ge->nodes, ge->count, entry, MG_ROOT, NULL, 0, 0 } };
	ck_assert_int_eq(merged_reached(&h, MG_INCOMING, MG_BY_CLASS, 0, pr, 2, &got, &ngot, NULL), 0);
	ck_assert_uint_eq(ngot, 1);
	ck_assert_uint_eq(got[0], N(P_I5));
	free(got);
	merged_level_free(&lb);
	merged_level_free(&l2);
	merged_level_free(&l1);
	merged_level_free(&l0);
	/* from I3 alone, by field: Entry.key, whose chain E3 <- E2 <- E1 folds
	 * (2 more) into it, then the table's elements: I3 is reached, though
	 * the table refers to E1 only */
	node_t i3 = N(P_I3);
	ck_assert_int_eq(merged_level(&h, MG_INCOMING, MG_BY_FIELD, 0, &i3, 1, HW_NONE, &l0, NULL), 0);
	ge = find(&l0, entry, "key");
	ck_assert_ptr_nonnull(ge);
	ck_assert_int_eq(merged_level(&h, MG_INCOMING, MG_BY_FIELD, 0, ge->nodes, ge->count, entry, &l1, NULL), 0);
	ck_assert_uint_eq(l1.chain, 2);
	gt = find(&l1, earr, "[]");
	ck_assert_ptr_nonnull(gt);
	ck_assert_uint_eq(gt->reached[0], N(P_E1));
	struct merged_step pf[2] = { { &i3, 1, HW_NONE, entry, "key", 0, 0 }, { ge->nodes, ge->count, entry, earr, "[]", 0, 0 } };
	ck_assert_int_eq(merged_reached(&h, MG_INCOMING, MG_BY_FIELD, 0, pf, 2, &got, &ngot, NULL), 0);
	ck_assert_uint_eq(ngot, 1);
	ck_assert_uint_eq(got[0], i3);
	free(got);
	check_reached(&g, MG_INCOMING, MG_BY_FIELD, pf, 2, &i3, 1);
	merged_level_free(&l1);
	merged_level_free(&l0);
	bgraph_free(&g);
	heap_free(&h);
}
END_TEST

/* Merged dominating over the whole heap: every object's immediate
 * dominator is an object of the set or the virtual root. The dominators
 * in the set are still the groups (by hand, from the picture above), and
 * the GC roots row counts, as reached, the objects no object dominates. */
START_TEST(test_dominating_whole_heap)
{
	struct merged_level l;
	struct objset all;

	open_paths();
	objset_all(&h, &all);
	node_t *m = objset_members(&h, &all);
	ck_assert_int_eq(merged_level(&h, MG_DOMINATING, MG_BY_CLASS, 0, m, (size_t)all.count, HW_NONE, &l, NULL), 0);
	const struct merged_group *reg = find(&l, cls_named("Reg"), NULL), *earr = find(&l, cls_named("[LEntry;"), NULL),
				  *entry = find(&l, cls_named("Entry"), NULL), *root = find(&l, MG_ROOT, NULL);
	ck_assert_ptr_nonnull(reg);
	ck_assert_ptr_nonnull(earr);
	ck_assert_ptr_nonnull(entry);
	ck_assert_ptr_nonnull(root);
	ck_assert_uint_eq(reg->count, 1);     /* R dominates T, B1, B2 and I4 */
	ck_assert_uint_eq(reg->nreached, 4);
	ck_assert_uint_eq(earr->nreached, 2); /* T: E1, E4 */
	ck_assert_uint_eq(entry->count, 3);   /* E1, E2, E3: E2, E3, I1, I2, I3 */
	ck_assert_uint_eq(entry->nreached, 5);
	/* the root's rows: no objects, as reached the objects directly under
	 * it, those the GC roots reach apart from the garbage */
	size_t direct = 0;
	unsigned pseudo = 0;
	for (node_t v = 1; v < h.n; v++)
		direct += h.idom[v] == 0;
	ck_assert_uint_eq(root->count, 0);
	ck_assert_uint_ge(direct, 4); /* R, E5, I5, I6 and the class objects */
	bits_t *every = xcalloc(bits_words(h.n), sizeof *every);
	for (node_t v = 1; v < h.n; v++)
		bit_set(every, v);
	check_root_groups(&h, &l, every, MG_DOMINATING, 0, &pseudo);
	const struct merged_group *unr = find(&l, MG_UNREACHABLE, NULL);
	ck_assert_ptr_nonnull(unr); /* the picture's garbage */
	ck_assert_uint_eq(root->nreached + unr->nreached, direct);
	free(every);
	merged_level_free(&l);
	/* a set that the roots hold directly: the GC roots row alone */
	node_t top[4] = { N(P_R), N(P_E5), N(P_I5), N(P_I6) };
	sort_nodes_t(top, 4);
	ck_assert_int_eq(merged_level(&h, MG_DOMINATING, MG_BY_CLASS, 0, top, 4, HW_NONE, &l, NULL), 0);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_uint_eq(l.groups[0].cls, MG_ROOT);
	ck_assert_uint_eq(l.groups[0].nreached, 4);
	merged_level_free(&l);
	/* the batch report says what that row means */
	char cmd[1024];
	int st;
	snprintf(cmd, sizeof cmd, "%s -q --no-cache -f json merged-dom %s -e 'object 0x%x,0x%x,0x%x,0x%x'", heapwalk(),
		 paths_dump, P_R, P_E5, P_I5, P_I6);
	char *out = run(cmd, &st);
	ck_assert_msg(st == 0, "%s", cmd);
	ck_assert_msg(strstr(out, "\"note\":\"no object dominates") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "{\"depth\":0,\"class\":null,\"field\":null,\"collection\":0,\"objects\":0,\"shallow\":0,"
				  "\"reached\":4,\"chain\":null,\"weak\":0,\"not_owning\":0,\"root\":\"gc\"}]}") != NULL, "%s", out);
	free(out);
	free(m);
	objset_free(&all);
	heap_free(&h);
}
END_TEST

/* The whole heap of a real dump, dominating by class, against the idom
 * array read here: every class of dominator, its objects and the objects
 * they dominate directly. */
START_TEST(test_dominating_whole_real)
{
	struct heap rh;
	struct ruleset *rs;
	struct objset all;
	struct merged_level l;

	open_real(&rh, &rs);
	objset_all(&rh, &all);
	node_t *m = objset_members(&rh, &all);
	ck_assert_int_eq(merged_level(&rh, MG_DOMINATING, MG_BY_CLASS, 0, m, (size_t)all.count, HW_NONE, &l, NULL), 0);
	uint64_t *count = xcalloc(rh.ncls + 1, sizeof *count), *reached = xcalloc(rh.ncls + 1, sizeof *reached);
	uint8_t *counted = xcalloc(rh.n, 1);
	uint64_t direct = 0;
	for (node_t v = 1; v < rh.n; v++) {
		node_t d = rh.idom[v];
		if (d == HW_NONE || d == v)
			continue;
		if (d == 0) {
			direct++;
			continue;
		}
		reached[rh.node_class[d]]++;
		if (!counted[d])
			count[rh.node_class[d]]++;
		counted[d] = 1;
	}
	size_t classes = 0;
	for (uint32_t c = 0; c < rh.ncls; c++)
		classes += count[c] > 0;
	size_t root_rows = 0;
	for (size_t i = 0; i < l.n; i++)
		root_rows += mg_root_group(l.groups[i].cls);
	ck_assert_uint_eq(l.n, classes + root_rows);
	bits_t *every = xcalloc(bits_words(rh.n), sizeof *every);
	for (node_t v = 1; v < rh.n; v++)
		bit_set(every, v);
	size_t rows = 0;
	unsigned pseudo = 0;
	check_root_groups(&rh, &l, every, MG_DOMINATING, 0, &pseudo);
	for (size_t i = 0; i < l.n; i++) {
		const struct merged_group *g = &l.groups[i];
		if (mg_root_group(g->cls)) {
			rows += g->nreached;
			continue;
		}
		ck_assert_msg(g->count == count[g->cls] && g->nreached == reached[g->cls], "%s: %zu/%zu, idom %llu/%llu",
			      class_name(&rh, g->cls), g->count, g->nreached, (unsigned long long)count[g->cls],
			      (unsigned long long)reached[g->cls]);
	}
	ck_assert_uint_gt(classes, 50);
	ck_assert_uint_eq(rows, direct); /* every object under the root in one of its rows */
	ck_assert_uint_eq(pseudo, 6);    /* the dump's garbage, its weakly reachable */
	check_reverse_top(&rh, m, (size_t)all.count);
	free(every);
	merged_level_free(&l);
	free(count);
	free(reached);
	free(counted);
	free(m);
	objset_free(&all);
	heap_free(&rh);
	rules_free(rs);
}
END_TEST

/* ---- GC roots to objects, against each member's own dominator chain ----
 * A member's chain from the top, cut into runs of one class: the levels
 * of the reverse tree are those runs; a group is the runs' first objects
 * (by field also how the object above holds the first one). */
struct mchain {
	node_t *v;        /* top first, the member last */
	size_t n;
	size_t *run;      /* start of each run in v */
	size_t nrun;
};

static void member_chain(const struct bgraph *g, node_t m, struct mchain *c, struct bnb *nb)
{
	const struct heap *hp = g->h;
	size_t n = 0;

	(void)nb;
	for (node_t v = m; v != 0 && v != HW_NONE; v = hp->idom[v])
		n++;
	c->v = xmalloc((n + 1) * sizeof *c->v);
	c->run = xmalloc((n + 1) * sizeof *c->run);
	c->n = n;
	c->nrun = 0;
	for (node_t v = m; v != 0 && v != HW_NONE; v = hp->idom[v])
		c->v[--n] = v;
	for (size_t i = 0; i < c->n; i++)
		if (i == 0 || hp->node_class[c->v[i]] != hp->node_class[c->v[i - 1]])
			c->run[c->nrun++] = i;
}

/* How the object above run r's first object holds it, by field; NULL at
 * the top (the virtual root). */
static const char *run_label(const struct bgraph *g, const struct mchain *c, size_t r)
{
	const struct heap *hp = g->h;
	size_t i = c->run[r];

	if (i == 0)
		return NULL;
	for (edge_t q = hp->out_start[c->v[i - 1]]; q < hp->out_start[c->v[i - 1] + 1]; q++)
		if (hp->out[q] == c->v[i])
			return g->st.s[g->lab[q]];
	return "<transitive>";
}

static int run_is(const struct bgraph *g, const struct mchain *c, size_t r, uint32_t cls, const char *field,
		  enum merged_by by)
{
	if (r >= c->nrun || g->h->node_class[c->v[c->run[r]]] != cls)
		return 0;
	if (by == MG_BY_CLASS)
		return 1;
	const char *l = run_label(g, c, r);
	return (l == NULL && field == NULL) || (l != NULL && field != NULL && strcmp(l, field) == 0);
}

static void check_down(struct bgraph *g, enum merged_by by, const node_t *members, size_t n, size_t depth,
		       size_t pick)
{
	struct heap *hp = g->h;
	struct mchain *mc = xcalloc(n + 1, sizeof *mc);
	struct merged_level *lv = xcalloc(depth, sizeof *lv);
	uint8_t *on = xcalloc(n + 1, 1); /* members whose runs match the path so far */
	bits_t *mark = xcalloc(bits_words(hp->n), sizeof *mark);
	const node_t *from = NULL;
	size_t nfrom = 0, d;
	uint32_t pcls = HW_NONE;

	for (size_t i = 0; i < n; i++) {
		member_chain(g, members[i], &mc[i], NULL);
		on[i] = mc[i].n > 0;
	}
	for (d = 0; d < depth; d++) {
		ck_assert_int_eq(merged_level_down(hp, by, members, n, from, nfrom, pcls, &lv[d], NULL), 0);
		/* the chain folded into the row above: its runs' other objects */
		if (d > 0) {
			size_t extra = 0;
			/* on[i]: member i's runs matched the path so far, d of them */
			for (int pass = 0; pass < 2; pass++)
				for (size_t i = 0; i < n; i++) {
					if (!on[i])
						continue;
					size_t end = d < mc[i].nrun ? mc[i].run[d] : mc[i].n;
					for (size_t k = mc[i].run[d - 1]; k < end; k++)
						if (pass == 1)
							bit_clr(mark, mc[i].v[k]);
						else if (!bit_get(mark, mc[i].v[k]) && (bit_set(mark, mc[i].v[k]), 1))
							extra++;
				}
			ck_assert_uint_eq(lv[d].chain, extra - nfrom);
		}
		/* every group: its objects are the first ones of the runs at this
		 * level, its reached the members with such a run */
		size_t brute_members = 0;
		for (size_t i = 0; i < n; i++)
			brute_members += on[i] && mc[i].nrun > d;
		size_t engine_members = 0;
		for (size_t q = 0; q < lv[d].n; q++) {
			const struct merged_group *gr = &lv[d].groups[q];
			size_t cnt = 0, nr = 0;
			for (size_t i = 0; i < n; i++)
				if (on[i] && run_is(g, &mc[i], d, gr->cls, gr->field, by)) {
					node_t f = mc[i].v[mc[i].run[d]];
					if (!bit_get(mark, f)) {
						bit_set(mark, f);
						cnt++;
						int found = 0;
						for (size_t k = 0; k < gr->count && !found; k++)
							found = gr->nodes[k] == f;
						ck_assert_msg(found, "level %zu, %s: object %u missing", d, class_name(hp, gr->cls), f);
					}
					ck_assert_uint_lt(nr, gr->nreached);
					ck_assert_uint_eq(gr->reached[nr], members[i]);
					nr++;
				}
			for (size_t i = 0; i < n; i++)
				if (on[i] && mc[i].nrun > d)
					bit_clr(mark, mc[i].v[mc[i].run[d]]);
			ck_assert_msg(cnt == gr->count && nr == gr->nreached, "level %zu, %s.%s: %zu/%zu, brute force %zu/%zu",
				      d, class_name(hp, gr->cls), gr->field ? gr->field : "", gr->count, gr->nreached, cnt, nr);
			engine_members += nr;
		}
		ck_assert_uint_eq(engine_members, brute_members); /* no group missing */
		/* down the group with the most members below its objects (at the
		 * top the pick-th such), the deepest way */
		const struct merged_group *next = NULL, *best = NULL;
		for (size_t q = 0; q < lv[d].n; q++) {
			const struct merged_group *gr = &lv[d].groups[q];
			if (best == NULL || gr->nreached > best->nreached) {
				next = best;
				best = gr;
			} else if (next == NULL || gr->nreached > next->nreached) {
				next = gr;
			}
		}
		if (d > 0 || pick == 0 || next == NULL)
			next = best;
		if (next == NULL) {
			d++;
			break;
		}
		for (size_t i = 0; i < n; i++)
			on[i] = on[i] && run_is(g, &mc[i], d, next->cls, next->field, by);
		from = next->nodes;
		nfrom = next->count;
		pcls = next->cls;
	}
	ck_assert_uint_ge(d, 2);
	for (size_t i = 0; i < depth; i++)
		merged_level_free(&lv[i]);
	for (size_t i = 0; i < n; i++) {
		free(mc[i].v);
		free(mc[i].run);
	}
	free(mc);
	free(lv);
	free(on);
	free(mark);
}

START_TEST(test_down_paths)
{
	struct merged_level l;
	struct bgraph g;
	node_t items[6];

	open_paths();
	for (int i = 0; i < 6; i++)
		items[i] = N(P_I1 + 2 * (uint64_t)i);
	sort_nodes_t(items, 6);
	/* by hand: Reg {R} over I1..I4, Item {I5, I6} held by the roots */
	ck_assert_int_eq(merged_level_down(&h, MG_BY_CLASS, items, 6, NULL, 0, HW_NONE, &l, NULL), 0);
	ck_assert_uint_eq(l.n, 2);
	const struct merged_group *reg = find(&l, cls_named("Reg"), NULL), *it = find(&l, cls_named("Item"), NULL);
	ck_assert_uint_eq(reg->count, 1);
	ck_assert_uint_eq(reg->nreached, 4);
	ck_assert_uint_eq(it->count, 2);
	ck_assert_uint_eq(it->nreached, 2);
	node_t r = N(P_R);
	merged_level_free(&l);
	/* below R: the table over I1..I3, and I4 itself (R dominates it) */
	ck_assert_int_eq(merged_level_down(&h, MG_BY_CLASS, items, 6, &r, 1, cls_named("Reg"), &l, NULL), 0);
	ck_assert_uint_eq(l.n, 2);
	ck_assert_uint_eq(find(&l, cls_named("[LEntry;"), NULL)->nreached, 3);
	ck_assert_uint_eq(find(&l, cls_named("Item"), NULL)->nodes[0], N(P_I4));
	merged_level_free(&l);
	/* below E1: the chain E1 -> E2 -> E3 folds (2 more), then I1..I3 */
	node_t e1 = N(P_E1);
	ck_assert_int_eq(merged_level_down(&h, MG_BY_CLASS, items, 6, &e1, 1, cls_named("Entry"), &l, NULL), 0);
	ck_assert_uint_eq(l.chain, 2);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_uint_eq(l.groups[0].count, 3);
	merged_level_free(&l);
	/* by field: the table holds E1 through an element, E1 holds I1 as value */
	ck_assert_int_eq(merged_level_down(&h, MG_BY_FIELD, items, 6, &r, 1, cls_named("Reg"), &l, NULL), 0);
	ck_assert_ptr_nonnull(find(&l, cls_named("[LEntry;"), "table"));
	ck_assert_ptr_nonnull(find(&l, cls_named("Item"), "<transitive>")); /* R holds I4 through E4, B2 */
	merged_level_free(&l);
	bgraph_init(&g, &h);
	for (int by = 0; by < 2; by++)
		check_down(&g, (enum merged_by)by, items, 6, 5, 0);
	bgraph_free(&g);
	heap_free(&h);
}
END_TEST

START_TEST(test_down_real_dump)
{
	struct heap rh;
	struct ruleset *rs;
	struct bgraph g;
	static const char *const sets[] = { "java.lang.String", "Workload$Session", "java.util.HashMap$Node" };

	open_real(&rh, &rs);
	bgraph_init(&g, &rh);
	node_t *from = xmalloc((size_t)rh.n * sizeof *from);
	for (size_t sidx = 0; sidx < 3; sidx++) {
		size_t n = 0;
		for (node_t v = 1; v < rh.n; v++)
			if (strcmp(class_name(&rh, rh.node_class[v]), sets[sidx]) == 0)
				from[n++] = v;
		for (int by = 0; by < 2; by++)
			for (size_t pick = 0; pick < 2; pick++)
				check_down(&g, (enum merged_by)by, from, n, 6, pick);
	}
	free(from);
	bgraph_free(&g);
	heap_free(&rh);
	rules_free(rs);
}
END_TEST

/* Walk down `depth` levels from `from`, each time into group `pick` (the
 * biggest with objects, or the next), checking every prefix of the path
 * against the brute force on `ncheck` members. */
static void walk_check(struct bgraph *g, enum merged_kind k, enum merged_by by, const node_t *from, size_t n,
		       size_t depth, size_t pick, const node_t *check, size_t ncheck)
{
	struct merged_level *lv = xcalloc(depth, sizeof *lv);
	struct merged_step *path = xcalloc(depth, sizeof *path);
	const node_t *f = from;
	size_t nf = n, d;
	uint32_t pcls = HW_NONE;

	for (d = 0; d < depth; d++) {
		ck_assert_int_eq(merged_level(g->h, k, by, 0, f, nf, pcls, &lv[d], NULL), 0);
		const struct merged_group *gr = NULL;
		for (size_t i = 0, seen = 0; i < lv[d].n && gr == NULL; i++)
			if (lv[d].groups[i].count > 0 && seen++ == (d == 0 ? pick : 0))
				gr = &lv[d].groups[i];
		if (gr == NULL)
			break;
		path[d] = (struct merged_step){ f, nf, pcls, gr->cls, gr->field, gr->coll, gr->weak };
		check_reached(g, k, by, path, d + 1, check, ncheck);
		f = gr->nodes;
		nf = gr->count;
		pcls = gr->cls;
	}
	ck_assert_uint_ge(d, 2); /* a path two levels deep at least */
	for (size_t i = 0; i < depth; i++)
		merged_level_free(&lv[i]);
	free(lv);
	free(path);
}

START_TEST(test_reached_real_dump)
{
	struct heap rh;
	struct ruleset *rs;
	struct bgraph g;

	open_real(&rh, &rs);
	bgraph_init(&g, &rh);
	/* the Strings: held by many classes, and by chains of them */
	node_t *from = xmalloc((size_t)rh.n * sizeof *from), check[150];
	size_t n = 0, nc = 0;
	for (node_t v = 1; v < rh.n; v++)
		if (strcmp(class_name(&rh, rh.node_class[v]), "java.lang.String") == 0)
			from[n++] = v;
	for (size_t i = 0; i < n && nc < 150; i += n / 150 + 1)
		check[nc++] = from[i];
	for (int k = 0; k < 3; k++)
		for (int by = 0; by < 2; by++)
			for (size_t pick = 0; pick < 2; pick++) /* fields as stored: the brute force's labels */
				walk_check(&g, (enum merged_kind)k, by ? MG_BY_FIELD_RAW : MG_BY_CLASS, from, n, 4, pick,
					   check, nc);
	free(from);
	bgraph_free(&g);
	heap_free(&rh);
	rules_free(rs);
}
END_TEST

/* ---- the JDK's collections by field, on tests/java/Colls ----
 * Counts from Colls.java: AL holds Integer 1000..1006, HM_13 keys
 * 2000..2012, LHM keys 3000..3004, HS elements 4000..4019, TM keys
 * 5000..5049 (values "h"+i, "l"+i, "t"+i), PROPS four "pk"+i -> "pv"+i;
 * Integer.valueOf above 127 makes a new object, "pk"+i a new String:
 * nothing else holds them. */
static struct heap ch;
static struct ruleset *crs;
static struct jcoll *cj;

static void open_colls(void)
{
	char path[512];
	struct open_opts oo = { .quiet = 1 };
	struct sbuf err;

	workload_dump("Colls", "colls", "--add-opens java.base/java.util=ALL-UNNAMED", path, sizeof path);
	crs = rules_new(); /* the rules heapwalk applies by default */
	sbuf_init(&err);
	ck_assert_int_eq(rules_load_default(crs, &err), 0);
	oo.rules = crs;
	ck_assert_msg(heap_open(&ch, path, &oo, NULL, &err) == 0, "%s", err.buf);
	sbuf_free(&err);
	heap_need(&ch, HP_ALL, NULL);
	cj = jcoll_new(&ch);
}

static void close_colls(void)
{
	jcoll_free(cj);
	heap_free(&ch);
	rules_free(crs);
}

static uint32_t ccls(const char *name)
{
	for (uint32_t c = 0; c < ch.ncls; c++)
		if (strcmp(class_name(&ch, c), name) == 0)
			return c;
	ck_abort_msg("no class %s", name);
	return HW_NONE;
}

struct sget { const char *name; uint64_t id; };

static void sget_cb(void *arg, const char *name, const struct hvalue *v)
{
	struct sget *g = arg;

	if (strcmp(name, g->name) == 0 && v->type == T_OBJECT)
		g->id = v->v.id;
}

/* Colls.NAME: a static field, read from the class's record */
static node_t colls_static(const char *name)
{
	struct sget g = { name, 0 };

	hprof_fields(&ch, ch.cls[ccls("Colls")].node, sget_cb, &g);
	node_t v = heap_find_id(&ch, g.id);
	ck_assert_msg(v != HW_NONE, "no Colls.%s", name);
	return v;
}

static const struct merged_group *cfind(const struct merged_level *l, const char *cls, const char *field)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->groups[i].cls != MG_ROOT && strcmp(class_name(&ch, l->groups[i].cls), cls) == 0 &&
		    l->groups[i].field != NULL && strcmp(l->groups[i].field, field) == 0)
			return &l->groups[i];
	ck_abort_msg("no group %s %s", cls, field);
	return NULL;
}

static void expect_coll(const struct merged_level *l, const char *cls, const char *field, size_t count,
			size_t reached, node_t node)
{
	const struct merged_group *g = cfind(l, cls, field);

	ck_assert_msg(g->coll && g->count == count && g->nreached == reached, "%s %s: coll %d, %zu/%zu, not %zu/%zu",
		      cls, field, g->coll, g->count, g->nreached, count, reached);
	if (node != HW_NONE)
		ck_assert_uint_eq(g->nodes[0], node);
}

START_TEST(test_colls_referrer_side)
{
	referrer_side(&ch);
	/* a hash table's nodes are held by its bucket array and by other
	 * nodes, never as contents: by field they read as stored */
	uint32_t node = ccls("java.util.HashMap$Node");
	node_t *from = xmalloc((size_t)ch.n * sizeof *from);
	size_t n = 0;
	for (node_t v = 1; v < ch.n; v++)
		if (ch.node_class[v] == node)
			from[n++] = v;
	ck_assert_uint_gt(n, 20);
	struct merged_level a, b;
	ck_assert_int_eq(merged_level(&ch, MG_INCOMING, MG_BY_FIELD, 0, from, n, HW_NONE, &a, NULL), 0);
	ck_assert_int_eq(merged_level(&ch, MG_INCOMING, MG_BY_FIELD_RAW, 0, from, n, HW_NONE, &b, NULL), 0);
	ck_assert_ptr_nonnull(find(&a, ccls("[Ljava.util.HashMap$Node;"), "[]"));
	same_levels(&a, &b, "nodes");
	merged_level_free(&a);
	merged_level_free(&b);
	free(from);
}
END_TEST

START_TEST(test_colls_incoming)
{
	node_t *from = xmalloc((size_t)ch.n * sizeof *from);
	size_t n = 0;
	uint32_t integer = ccls("java.lang.Integer");
	struct merged_level l;

	for (node_t v = 1; v < ch.n; v++)
		if (ch.node_class[v] == integer) {
			int64_t x = jfield_int(cj, v, "value");
			if ((x >= 1000 && x < 1007) || (x >= 2000 && x < 2013) || (x >= 3000 && x < 3005) ||
			    (x >= 4000 && x < 4020) || (x >= 5000 && x < 5050))
				from[n++] = v;
		}
	ck_assert_uint_eq(n, 95);
	ck_assert_int_eq(merged_level(&ch, MG_INCOMING, MG_BY_FIELD, 0, from, n, HW_NONE, &l, NULL), 0);
	ck_assert_uint_eq(l.n, 5); /* no HashMap$Node, TreeMap$Entry, elementData... */
	expect_coll(&l, "java.util.ArrayList", "element", 1, 7, colls_static("AL"));
	expect_coll(&l, "java.util.HashMap", "map key", 1, 13, colls_static("HM_13"));
	expect_coll(&l, "java.util.LinkedHashMap", "map key", 1, 5, colls_static("LHM"));
	expect_coll(&l, "java.util.HashSet", "element", 1, 20, colls_static("HS"));
	expect_coll(&l, "java.util.TreeMap", "map key", 1, 50, colls_static("TM"));
	merged_level_free(&l);
	/* as stored, the inside shows */
	ck_assert_int_eq(merged_level(&ch, MG_INCOMING, MG_BY_FIELD_RAW, 0, from, n, HW_NONE, &l, NULL), 0);
	const struct merged_group *node = find(&l, ccls("java.util.HashMap$Node"), "key");
	ck_assert_ptr_nonnull(node);
	ck_assert_uint_eq(node->nreached, 13 + 20);
	ck_assert_int_eq(node->coll, 0);
	merged_level_free(&l);
	/* a level down: the collections are Colls's statics */
	ck_assert_int_eq(merged_level(&ch, MG_INCOMING, MG_BY_FIELD, 0, from, n, HW_NONE, &l, NULL), 0);
	const struct merged_group *tm = cfind(&l, "java.util.TreeMap", "map key");
	struct merged_level l2;
	ck_assert_int_eq(merged_level(&ch, MG_INCOMING, MG_BY_FIELD, 0, tm->nodes, tm->count, tm->cls, &l2, NULL), 0);
	const struct merged_group *st = find(&l2, ch.node_class[ch.cls[ccls("Colls")].node], "static TM");
	ck_assert_ptr_nonnull(st);
	/* and the path's members: the 50 keys */
	struct merged_step p[2] = { { from, n, HW_NONE, tm->cls, "map key", 1, 0 },
				    { tm->nodes, tm->count, tm->cls, st->cls, "static TM", 0, 0 } };
	node_t *got;
	size_t ngot;
	ck_assert_int_eq(merged_reached(&ch, MG_INCOMING, MG_BY_FIELD, 0, p, 2, &got, &ngot, NULL), 0);
	ck_assert_uint_eq(ngot, 50);
	free(got);
	merged_level_free(&l2);
	merged_level_free(&l);
	/* Properties (JDK 9+: a ConcurrentHashMap inside): its keys */
	n = 0;
	uint32_t string = ccls("java.lang.String");
	struct sbuf sb;
	sbuf_init(&sb);
	for (node_t v = 1; v < ch.n; v++)
		if (ch.node_class[v] == string) {
			sbuf_reset(&sb);
			if (hprof_string_value(&ch, v, &sb, 16) == 0 && strncmp(sb.buf, "pk", 2) == 0 && sb.len == 3 &&
			    sb.buf[2] >= '0' && sb.buf[2] <= '3')
				from[n++] = v;
		}
	sbuf_free(&sb);
	ck_assert_uint_eq(n, 4);
	ck_assert_int_eq(merged_level(&ch, MG_INCOMING, MG_BY_FIELD, 0, from, n, HW_NONE, &l, NULL), 0);
	ck_assert_uint_eq(l.n, 1);
	expect_coll(&l, "java.util.Properties", "map key", 1, 4, colls_static("PROPS"));
	merged_level_free(&l);
	/* every String: each kind of collection holds its own (Colls.java:
	 * VEC 3, STACK 4, DEQUE 8 of which 3 wrapped, CLQ 8 less 2 polled,
	 * COW 4, COWSET 3, LHS 3, TS 7, IHM 5 keys and 6 values (one for the
	 * null key), TM, LHM, WHM and HT values) */
	static const struct { const char *coll, *role, *name; size_t reached; } want[] = {
		{ "java.util.Vector", "element", "VEC", 3 }, { "java.util.Stack", "element", "STACK", 4 },
		{ "java.util.ArrayDeque", "element", "DEQUE", 8 },
		{ "java.util.concurrent.ConcurrentLinkedQueue", "element", "CLQ", 6 },
		{ "java.util.concurrent.CopyOnWriteArrayList", "element", "COW", 4 },
		{ "java.util.concurrent.CopyOnWriteArraySet", "element", "COWSET", 3 },
		{ "java.util.LinkedHashSet", "element", "LHS", 3 }, { "java.util.TreeSet", "element", "TS", 7 },
		{ "java.util.IdentityHashMap", "map key", "IHM", 5 }, { "java.util.IdentityHashMap", "map value", "IHM", 6 },
		{ "java.util.TreeMap", "map value", "TM", 50 }, { "java.util.LinkedHashMap", "map value", "LHM", 5 },
		{ "java.util.WeakHashMap", "map value", "WHM", 5 }, { "java.util.Hashtable", "map value", "HT", 5 },
	};
	n = 0;
	for (node_t v = 1; v < ch.n; v++)
		if (ch.node_class[v] == string)
			from[n++] = v;
	ck_assert_int_eq(merged_level(&ch, MG_INCOMING, MG_BY_FIELD, 0, from, n, HW_NONE, &l, NULL), 0);
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		expect_coll(&l, want[i].coll, want[i].role, 1, want[i].reached, colls_static(want[i].name));
	merged_level_free(&l);
	free(from);
}
END_TEST

/* Outgoing from a collection: its contents, not its inside. */
static void expect_out(const char *name, const char *field, const char *cls, size_t count, size_t ngroups)
{
	node_t v = colls_static(name);
	struct merged_level l;

	ck_assert_int_eq(merged_level(&ch, MG_OUTGOING, MG_BY_FIELD, 0, &v, 1, HW_NONE, &l, NULL), 0);
	expect_coll(&l, cls, field, count, 1, HW_NONE);
	ck_assert_msg(l.n == ngroups, "Colls.%s: %zu groups, not %zu", name, l.n, ngroups);
	for (size_t i = 0; i < l.n; i++) /* its class, its contents: nothing else */
		ck_assert_msg(l.groups[i].coll || strcmp(l.groups[i].field, "<class>") == 0, "Colls.%s: %s %s", name,
			      class_name(&ch, l.groups[i].cls), l.groups[i].field);
	merged_level_free(&l);
}

START_TEST(test_colls_outgoing)
{
	expect_out("AL", "element", "java.lang.Integer", 7, 2);
	expect_out("HM_13", "map key", "java.lang.Integer", 13, 3);
	expect_out("HM_13", "map value", "java.lang.String", 13, 3);
	expect_out("HS", "element", "java.lang.Integer", 20, 2);
	expect_out("LHM", "map value", "java.lang.String", 5, 3);
	expect_out("TM", "map key", "java.lang.Integer", 50, 3);
	expect_out("PROPS", "map value", "java.lang.String", 4, 3);
	expect_out("LL", "element", "java.lang.String", 10, 2);
	expect_out("UNMOD_LIST", "element", "java.lang.String", 3, 2);
	/* the batch report reads them as JProfiler does */
	char path[512], cmd[1024];
	int st;
	workload_dump("Colls", "colls", "--add-opens java.base/java.util=ALL-UNNAMED", path, sizeof path);
	snprintf(cmd, sizeof cmd, "%s -q merged-in --by field %s -e 'instances Colls$K'", heapwalk(), path);
	char *out = run(cmd, &st);
	ck_assert_msg(st == 0 && strstr(out, "map key of java.util.Hashtable ") != NULL, "%s", out);
	free(out);
}
END_TEST

/* ---- the batch commands against the engine's levels ---- */
#define COOPS TEST_BUILDDIR "/dumps/coops.hprof"

/* The coops dump opened as the command line opens it: with jdk.rules. */
static void open_real(struct heap *rh, struct ruleset **rs)
{
	struct open_opts oo = { .quiet = 1 };
	struct sbuf err;

	ensure_dump("coops", "");
	*rs = rules_new();
	sbuf_init(&err);
	ck_assert_int_eq(rules_load_default(*rs, &err), 0);
	oo.rules = *rs;
	ck_assert_msg(heap_open(rh, COOPS, &oo, NULL, &err) == 0, "%s", err.buf);
	sbuf_free(&err);
	heap_need(rh, HP_ALL, NULL);
}

/* Merged incoming by class over the whole heap, weak holders shown:
 * hundreds of strong groups by class come before the first weak one,
 * whose table was then made too small to hold them all, and the level
 * never ended (`merged-in` on any JDK dump hung). Each holder class
 * once strong and, for the weak, once more: at least one weak group. */
START_TEST(test_weak_after_many_classes)
{
	struct heap rh;
	struct ruleset *rs;
	struct merged_level l;

	open_real(&rh, &rs);
	node_t *all = xmalloc((size_t)rh.n * sizeof *all);
	for (node_t v = 1; v < rh.n; v++)
		all[v - 1] = v;
	ck_assert_int_eq(merged_level(&rh, MG_INCOMING, MG_BY_CLASS, 1, all, rh.n - 1, HW_NONE, &l, NULL), 0);
	size_t weak = 0, strong = 0;
	for (size_t i = 0; i < l.n; i++) {
		weak += l.groups[i].weak != 0;
		strong += l.groups[i].weak == 0;
	}
	ck_assert_uint_gt(strong, 64); /* more than the first table holds */
	ck_assert_uint_ge(weak, 1);
	merged_level_free(&l);
	free(all);
	heap_free(&rh);
	rules_free(rs);
}
END_TEST

static void csv_field(struct sbuf *sb, const char *s)
{
	if (s == NULL)
		return;
	if (strpbrk(s, ", \"\n") == NULL) { /* as csv_append quotes */
		sbuf_adds(sb, s);
		return;
	}
	sbuf_addc(sb, '"');
	for (; *s; s++) {
		if (*s == '"')
			sbuf_addc(sb, '"');
		sbuf_addc(sb, *s);
	}
	sbuf_addc(sb, '"');
}

/* The CSV rows the command should print for the level from `from`,
 * written here from merged_level's groups: the first `top` groups and,
 * at the top level, the roots' wherever they are, each expanded while
 * depth allows. Returns the parent's chain. */
static const node_t *rev_members; /* GC roots to objects: the set; NULL: not reversed */
static size_t rev_n;

static size_t expect_rows(struct heap *rh, enum merged_kind k, enum merged_by by, const node_t *from,
			  size_t n, uint32_t pcls, unsigned depth, unsigned maxdepth, size_t top,
			  struct sbuf *sb)
{
	struct merged_level l;

	if (rev_members != NULL)
		ck_assert_int_eq(merged_level_down(rh, by, rev_members, rev_n, depth ? from : NULL, n, pcls, &l, NULL), 0);
	else
		ck_assert_int_eq(merged_level(rh, k, by, k == MG_INCOMING, from, n, pcls, &l, NULL), 0);
	for (size_t i = 0; i < l.n; i++) {
		const struct merged_group *g = &l.groups[i];
		if (i >= top && !(depth == 0 && mg_root_group(g->cls)))
			continue;
		struct sbuf below;
		size_t chain = 0;
		sbuf_init(&below);
		if (depth + 1 < maxdepth && g->count > 0)
			chain = expect_rows(rh, k, by, g->nodes, g->count, g->cls, depth + 1, maxdepth, top, &below);
		sbuf_printf(sb, "%u,", depth);
		csv_field(sb, mg_root_group(g->cls) ? NULL : class_name(rh, g->cls));
		sbuf_addc(sb, ',');
		csv_field(sb, g->field);
		sbuf_printf(sb, ",%d,%zu,%llu,%zu,", g->coll, g->count, (unsigned long long)g->shallow, g->nreached);
		if (depth + 1 < maxdepth && g->count > 0)
			sbuf_printf(sb, "%zu", chain);
		sbuf_printf(sb, ",%d,%d,%s\n", g->weak == 1, g->weak == MG_NOT_OWNING,
			    g->cls == MG_ROOT ? "gc" : g->cls == MG_WEAKLY ? "weakly_reachable"
			    : g->cls == MG_UNREACHABLE ? "unreachable" : "");
		sbuf_add(sb, below.buf ? below.buf : "", below.len);
		sbuf_free(&below);
	}
	size_t chain = l.chain;
	merged_level_free(&l);
	return chain;
}

/* The lines of s (each ends in a newline). */
static int rows_of(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

START_TEST(test_batch_against_levels)
{
	static const char *const views[] = { "merged-out", "merged-in", "merged-dom" };
	struct heap rh;
	struct ruleset *rs;
	char cmd[1024];
	int st;

	open_real(&rh, &rs);
	/* a set: the instances of Workload$Session, as -e selects it */
	node_t *from = xmalloc((size_t)rh.n * sizeof *from);
	size_t n = 0;
	for (node_t v = 1; v < rh.n; v++)
		if (strcmp(class_name(&rh, rh.node_class[v]), "Workload$Session") == 0)
			from[n++] = v;
	ck_assert_uint_gt(n, 0);
	for (int k = 0; k < 3; k++)
		for (int by = 0; by < 2; by++) {
			struct sbuf want;
			sbuf_init(&want);
			sbuf_adds(&want, "depth,class,field,collection,objects,shallow,reached,chain,weak,not_owning,root\n");
			expect_rows(&rh, (enum merged_kind)k, (enum merged_by)by, from, n, HW_NONE, 0, 3, 4, &want);
			snprintf(cmd, sizeof cmd, "%s -q -f csv %s -d 3 -n 4 --by %s " COOPS
				 " -e 'instances Workload$Session'", heapwalk(), views[k], by ? "field" : "class");
			char *got = run(cmd, &st);
			ck_assert_msg(st == 0, "%s", cmd);
			ck_assert_msg(strcmp(got, want.buf) == 0, "%s:\n%s\nthe engine's levels:\n%s", cmd, got, want.buf);
			free(got);
			sbuf_free(&want);
		}
	/* -n 3 of the Strings: their GC roots' row comes after the third
	 * class (it has no objects) and stays, as the browser shows it; it
	 * was cut with no word of it */
	size_t ns = 0;
	node_t *strs = xmalloc((size_t)rh.n * sizeof *strs);
	for (node_t v = 1; v < rh.n; v++)
		if (strcmp(class_name(&rh, rh.node_class[v]), "java.lang.String") == 0)
			strs[ns++] = v;
	for (int k = 1; k < 3; k++) {
		struct sbuf want;
		sbuf_init(&want);
		sbuf_adds(&want, "depth,class,field,collection,objects,shallow,reached,chain,weak,not_owning,root\n");
		expect_rows(&rh, (enum merged_kind)k, MG_BY_CLASS, strs, ns, HW_NONE, 0, 1, 3, &want);
		snprintf(cmd, sizeof cmd, "%s -q -f csv %s -n 3 " COOPS " -e 'instances java.lang.String'", heapwalk(),
			 views[k]);
		char *got = run(cmd, &st);
		ck_assert_msg(st == 0, "%s", cmd);
		ck_assert_msg(strcmp(got, want.buf) == 0, "%s:\n%s\nthe engine's levels:\n%s", cmd, got, want.buf);
		ck_assert_msg(rows_of(got) > 4 && strstr(got, ",gc\n") != NULL, "%s:\n%s", cmd, got);
		int shown = rows_of(got) - 1;
		free(got);
		sbuf_free(&want);
		/* the summary counts the top level's rows */
		snprintf(cmd, sizeof cmd, "%s -q -f csv %s -n 0 " COOPS " -e 'instances java.lang.String'", heapwalk(),
			 views[k]);
		char *all = run(cmd, &st);
		snprintf(cmd, sizeof cmd, "%s -q -f json %s -n 3 " COOPS " -e 'instances java.lang.String'", heapwalk(),
			 views[k]);
		char *js = run(cmd, &st), w[64];
		snprintf(w, sizeof w, "\"groups\":%d,\"shown\":%d,", rows_of(all) - 1, shown);
		ck_assert_msg(strstr(js, w) != NULL, "%s: not %s: %.400s", cmd, w, js);
		free(all);
		free(js);
	}
	free(strs);
	/* GC roots to objects */
	rev_members = from;
	rev_n = n;
	for (int by = 0; by < 2; by++) {
		struct sbuf want;
		sbuf_init(&want);
		sbuf_adds(&want, "depth,class,field,collection,objects,shallow,reached,chain,weak,not_owning,root\n");
		expect_rows(&rh, MG_DOMINATING, (enum merged_by)by, NULL, 0, HW_NONE, 0, 9, 3, &want);
		snprintf(cmd, sizeof cmd, "%s -q -f csv merged-dom -r -d 9 -n 3 --by %s " COOPS
			 " -e 'instances Workload$Session'", heapwalk(), by ? "field" : "class");
		char *got = run(cmd, &st);
		ck_assert_msg(st == 0, "%s", cmd);
		ck_assert_msg(strcmp(got, want.buf) == 0, "%s:\n%s\nthe engine's levels:\n%s", cmd, got, want.buf);
		ck_assert_msg(strstr(got, "\n7,Workload$Session,") != NULL, "%s: not down to the Sessions:\n%s", cmd, got);
		free(got);
		sbuf_free(&want);
	}
	rev_members = NULL;
	snprintf(cmd, sizeof cmd, "%s -q merged-in -r " COOPS " 2>/dev/null", heapwalk());
	char *e = run(cmd, &st);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1, "%s: status %d", cmd, st);
	free(e);
	free(from);
	heap_free(&rh);
	rules_free(rs);
}
END_TEST

/* Every format, byte-identical with and without the index cache. */
START_TEST(test_batch_cache_same_output)
{
	static const char *const args[] = {
		"merged-in -d 2 --by field", "-f json merged-out -d 2", "-f csv merged-dom -d 3 -n 0",
		"-e 'instances java.lang.String | merged-in' -d 2", "-f csv merged-dom -r -d 4 --by field",
	};
	char cmd[1024], copy[512], cache[600];
	int st;

	ensure_dump("coops", "");
	/* a copy of its own: other suites use the dump's cache meanwhile */
	snprintf(copy, sizeof copy, "%s/coops.hprof", hw_tmpdir());
	snprintf(cache, sizeof cache, "%s.hwi", copy);
	snprintf(cmd, sizeof cmd, "cp " COOPS " %s", copy);
	ck_assert_int_eq(system(cmd), 0);
	for (size_t i = 0; i < sizeof args / sizeof args[0]; i++) {
		unlink(cache);
		snprintf(cmd, sizeof cmd, "%s -q --no-cache %s %s", heapwalk(), args[i], copy);
		char *a = run(cmd, &st);
		ck_assert_msg(st == 0, "%s", cmd);
		snprintf(cmd, sizeof cmd, "%s -q %s %s", heapwalk(), args[i], copy);
		char *b = run(cmd, &st); /* writes the cache */
		ck_assert_int_eq(st, 0);
		struct stat cs;
		ck_assert_msg(stat(cache, &cs) == 0, "no cache written");
		char *c = run(cmd, &st); /* reads it */
		ck_assert_int_eq(st, 0);
		ck_assert_msg(strcmp(a, b) == 0 && strcmp(a, c) == 0, "%s: output differs with the cache", cmd);
		ck_assert_msg(strlen(a) > 200, "%s: %s", cmd, a);
		/* the rows of the pseudo roots: from the analysis's markings on
		 * a cold open, from a marking made at need on a cached one */
		if (i == 2)
			ck_assert_msg(strstr(a, ",weakly_reachable\n") != NULL && strstr(a, ",unreachable\n") != NULL,
				      "%s", a);
		free(a);
		free(b);
		free(c);
	}
}
END_TEST

/* ---- weak and soft holders (merged incoming) ----
 * A heap written here: a root Object[] R holds SoftReferences S1..S5, a
 * WeakReference W1 and a Holder H; S1..S3 -> B1..B3, S4 -> B6, W1 -> B4
 * (t.Buf), S5 -> O1 (t.Other), H.buf -> O1; B6 is a JNI global too. So
 * B1..B4 are only weakly reachable, B6 is a root, and O1 has a strong
 * holder beside its soft one (tests/hprofw.h). The expected groups are
 * counted below from its lists, not from the engine. */
/* How many of `to` (n of them) are in `set` (ns), and of their holders
 * `from` the ones that hold a member: counted from the lists. */
static size_t wk_count(const uint64_t *from, const uint64_t *to, size_t n, const uint64_t *set, size_t ns,
		       size_t *holders)
{
	size_t members = 0;

	*holders = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < ns; k++)
			if (to[i] == set[k]) {
				(*holders)++;
				members++; /* each target here has one holder */
				(void)from;
			}
	return members;
}

START_TEST(test_weak_holders)
{
	char *path = hw_write_weakheld();
	struct open_opts o = { .no_cache = 1, .quiet = 1 };
	struct sbuf err;
	struct heap wh;

	sbuf_init(&err);
	ck_assert_msg(heap_open(&wh, path, &o, NULL, &err) == 0, "%s", err.buf);
	heap_need(&wh, HP_ALL, NULL);
	uint32_t soft = HW_NONE, weakc = HW_NONE, holder = HW_NONE;
	for (uint32_t c = 0; c < wh.ncls; c++) {
		if (strcmp(class_name(&wh, c), "java.lang.ref.SoftReference") == 0)
			soft = c;
		if (strcmp(class_name(&wh, c), "java.lang.ref.WeakReference") == 0)
			weakc = c;
		if (strcmp(class_name(&wh, c), "t.Holder") == 0)
			holder = c;
	}
	ck_assert(soft != HW_NONE && weakc != HW_NONE && holder != HW_NONE);
	node_t bufs[5];
	for (size_t i = 0; i < 5; i++)
		bufs[i] = heap_find_id(&wh, wk_bufs[i]);
	size_t soft_holders, weak_holders;
	size_t soft_members = wk_count(wk_soft, wk_soft_to, 5, wk_bufs, 5, &soft_holders);
	size_t weak_members = wk_count(wk_weak, wk_weak_to, 1, wk_bufs, 5, &weak_holders);
	ck_assert_uint_eq(soft_members, 4); /* the lists say so: a check of the test */
	for (int by = 0; by < 2; by++) {
		struct merged_level l;
		ck_assert_int_eq(merged_level(&wh, MG_INCOMING, (enum merged_by)by, 1, bufs, 5, HW_NONE, &l, NULL), 0);
		const struct merged_group *gs = NULL, *gw = NULL, *gr = NULL;
		for (size_t i = 0; i < l.n; i++) {
			const struct merged_group *g = &l.groups[i];
			if (g->cls == soft)
				gs = g;
			else if (g->cls == weakc)
				gw = g;
			else if (g->cls == MG_ROOT)
				gr = g;
			else
				ck_abort_msg("an unexpected group of %s", class_name(&wh, g->cls));
		}
		ck_assert_msg(gs != NULL && gw != NULL && gr != NULL, "by %d: %zu groups", by, l.n);
		ck_assert(gs->weak && gw->weak && !gr->weak);
		ck_assert_uint_eq(gs->count, soft_holders);
		ck_assert_uint_eq(gs->nreached, soft_members);
		ck_assert_uint_eq(gw->count, weak_holders);
		ck_assert_uint_eq(gw->nreached, weak_members);
		/* the GC roots: B6 alone, its JNI global; the weakly reachable are
		 * their weak holders' */
		ck_assert_uint_eq(gr->nreached, 1);
		ck_assert_uint_eq(gr->reached[0], heap_find_id(&wh, WK_B6));
		if (by)
			ck_assert_str_eq(gs->field, "referent");
		/* the members through the soft group, followed back */
		struct merged_step st = { bufs, 5, HW_NONE, gs->cls, gs->field, gs->coll, gs->weak };
		node_t *got;
		size_t ngot;
		ck_assert_int_eq(merged_reached(&wh, MG_INCOMING, (enum merged_by)by, 1, &st, 1, &got, &ngot, NULL), 0);
		ck_assert_uint_eq(ngot, soft_members);
		free(got);
		merged_level_free(&l);
		/* without: the strong ones alone, B6 under the GC roots, the
		 * weakly reachable in a row of their own, no GC root */
		ck_assert_int_eq(merged_level(&wh, MG_INCOMING, (enum merged_by)by, 0, bufs, 5, HW_NONE, &l, NULL), 0);
		ck_assert_uint_eq(l.n, 2);
		gr = find(&l, MG_ROOT, NULL);
		const struct merged_group *gwk = find(&l, MG_WEAKLY, NULL);
		ck_assert(gr != NULL && gwk != NULL && !gr->weak && !gwk->weak);
		ck_assert_uint_eq(gr->nreached, 1);
		ck_assert_uint_eq(gwk->nreached, 4);
		bits_t *inb = xcalloc(bits_words(wh.n), sizeof *inb);
		for (size_t i = 0; i < 5; i++)
			bit_set(inb, bufs[i]);
		unsigned pseudo = 0;
		check_root_groups(&wh, &l, inb, MG_INCOMING, 0, &pseudo);
		free(inb);
		merged_level_free(&l);
	}
	heap_free(&wh);

	/* the batch command: rows marked, counts, the note */
	char cmd[1024];
	int status;
	snprintf(cmd, sizeof cmd, "%s -q --no-cache merged-in %s -e 'instances t.Buf'", heapwalk(), path);
	char *out = run(cmd, &status);
	ck_assert_msg(status == 0, "%s", cmd);
	ck_assert_msg(strstr(out, "java.lang.ref.SoftReference (weak)") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "only GC roots refer") == NULL, "%s", out);
	char want[200];
	snprintf(want, sizeof want, "weak ones to %zu of them, from %zu objects", soft_members + weak_members,
		 soft_holders + weak_holders);
	ck_assert_msg(strstr(out, want) != NULL, "no '%s' in:\n%s", want, out);
	free(out);
	/* with a strong holder too (t.Holder's t.Other), cut by -n to the
	 * biggest (weak) group: no note says only weak references hold them */
	snprintf(cmd, sizeof cmd, "%s -q --no-cache merged-in -n 1 %s -e 'instances /^t\\.(Buf|Other)$/'", heapwalk(),
		 path);
	out = run(cmd, &status);
	ck_assert_msg(status == 0 && strstr(out, "java.lang.ref.SoftReference (weak)") != NULL &&
			      strstr(out, "t.Holder") == NULL && strstr(out, "only ") == NULL,
		      "%s", out);
	free(out);
	snprintf(cmd, sizeof cmd, "%s -q --no-cache merged-in -n 0 %s -e 'instances /^t\\.(Buf|Other)$/'", heapwalk(),
		 path);
	out = run(cmd, &status);
	ck_assert_msg(status == 0 && strstr(out, "t.Holder") != NULL, "%s", out);
	free(out);
	snprintf(cmd, sizeof cmd, "%s -q --no-cache -f csv merged-in --by field %s -e 'instances t.Buf'", heapwalk(),
		 path);
	out = run(cmd, &status);
	snprintf(want, sizeof want, "0,java.lang.ref.SoftReference,referent,0,%zu,", soft_holders);
	ck_assert_msg(strstr(out, want) != NULL && strstr(out, ",chain,weak,not_owning,root\n") != NULL, "%s", out);
	ck_assert_msg(strstr(strstr(out, want), ",1,0,\n") != NULL, "not marked weak:\n%s", out);
	free(out);
	snprintf(cmd, sizeof cmd, "%s -q --no-cache -f json merged-in %s -e 'instances t.Buf'", heapwalk(), path);
	out = run(cmd, &status);
	ck_assert_msg(strstr(out, "\"weak\":1") != NULL && strstr(out, "\"weak_shown\":true") != NULL, "%s", out);
	free(out);
	/* --strong: left out, and the note still tells of them */
	snprintf(cmd, sizeof cmd, "%s -q --no-cache merged-in --strong %s -e 'instances t.Buf'", heapwalk(), path);
	out = run(cmd, &status);
	ck_assert_msg(status == 0 && strstr(out, "(weak)") == NULL, "%s", out);
	ck_assert_msg(strstr(out, "only GC roots refer") == NULL && strstr(out, "--strong left them out") != NULL,
		      "%s", out);
	free(out);
	/* a strong holder too: no note, both groups, each counted */
	snprintf(cmd, sizeof cmd, "%s -q --no-cache -f csv merged-in %s -e 'instances t.Other'", heapwalk(), path);
	out = run(cmd, &status);
	ck_assert_msg(strstr(out, "0,t.Holder,,0,1,") != NULL && strstr(out, "0,java.lang.ref.SoftReference,,0,1,") != NULL,
		      "%s", out);
	free(out);
	snprintf(cmd, sizeof cmd, "%s -q merged-out --strong %s 2>&1", heapwalk(), path);
	out = run(cmd, &status);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 1 && strstr(out, "--strong goes with merged-in"),
		      "%s", out);
	free(out);
	/* merged-in as -e's last word takes --strong as the command does (it
	 * was refused: "--strong goes with merged-in"); another last word not */
	snprintf(cmd, sizeof cmd, "%s -q --no-cache --strong %s -e 'instances t.Buf | merged-in '", heapwalk(), path);
	out = run(cmd, &status);
	ck_assert_msg(status == 0 && strstr(out, "(weak)") == NULL && strstr(out, "--strong left them out") != NULL,
		      "%s", out);
	free(out);
	snprintf(cmd, sizeof cmd, "%s -q --strong %s -e 'instances t.Buf | merged-out' 2>&1", heapwalk(), path);
	out = run(cmd, &status);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 1 &&
		      strstr(out, "--strong goes with merged-in (in -e: its last word)"), "%s", out);
	free(out);
	sbuf_free(&err);
	free(path);
}
END_TEST

/* A JVM's dump (tests/java/Refs.java): 3 Refs$SoftOnly that only a
 * SoftReference holds each; 4 Refs$WeakOnly only a WeakReference, and a
 * fifth both a WeakReference and a SoftReference. Merged in shows those
 * holders marked weak, as many as Refs.java plants, and no GC roots row
 * (the engine's pseudo roots of the weakly reachable are no GC roots). */
static void weak_row(const char *out, const char *cls, unsigned n)
{
	char want[128];

	snprintf(want, sizeof want, "\n0,%s,,0,%u,", cls, n);
	const char *row = strstr(out, want);
	ck_assert_msg(row != NULL, "no %s row of %u:\n%s", cls, n, out);
	snprintf(want, sizeof want, ",%u,,1,0,\n", n); /* reached n, not expanded, weak, no other kind, no root */
	const char *end = strchr(row + 1, '\n');
	ck_assert_msg(strstr(row, want) == end - strlen(want) + 1, "%s: not %s", cls, want);
}

START_TEST(test_weak_holders_jvm)
{
	const char *path = refs_dump();
	char cmd[1024];
	int st;

	snprintf(cmd, sizeof cmd, "%s -q --no-cache -f csv merged-in %s -e 'instances Refs$SoftOnly'", heapwalk(), path);
	char *out = run(cmd, &st);
	ck_assert_msg(st == 0, "%s", cmd);
	weak_row(out, "java.lang.ref.SoftReference", 3);
	ck_assert_msg(strstr(out, "\n0,,") == NULL, "a GC roots row:\n%s", out);
	free(out);
	snprintf(cmd, sizeof cmd, "%s -q --no-cache -f csv merged-in %s -e 'instances Refs$WeakOnly'", heapwalk(), path);
	out = run(cmd, &st);
	weak_row(out, "java.lang.ref.WeakReference", 5);
	weak_row(out, "java.lang.ref.SoftReference", 1);
	free(out);
	snprintf(cmd, sizeof cmd, "%s -q --no-cache merged-in %s -e 'instances Refs$SoftOnly'", heapwalk(), path);
	out = run(cmd, &st);
	ck_assert_msg(strstr(out, "only weak or soft references refer to the objects of the set: weak ones to 3 of "
				  "them, from 3 objects") != NULL, "%s", out);
	free(out);
}
END_TEST

/* ---- the virtual root's groups: GC roots, or none ----
 * T is held by two GC roots (S1, S2: JNI globals), V by two weakly
 * reachable objects (X1, X2, each a WeakReference's referent, held by
 * the rooted R), U by two objects nothing holds (G1, G2): no object
 * dominates T, U or V, and none has a root record of its own. */
enum {
	RG_ITEM = 0x7001, RG_PAIR = 0x7011, RGF_A = 0x7101, RGF_B = 0x7103,
	RG_T = 0x7201, RG_U = 0x7203, RG_V = 0x7205, RG_S1 = 0x7301, RG_S2 = 0x7303,
	RG_X1 = 0x7305, RG_X2 = 0x7307, RG_G1 = 0x7309, RG_G2 = 0x730b,
	RG_W1 = 0x7401, RG_W2 = 0x7403, RG_R = 0x7501,
};

static char *write_rootgroups(void)
{
	static const struct hw_field pair[] = { { RGF_A, T_OBJECT, 0 }, { RGF_B, T_OBJECT, 0 } };
	struct hw w;

	hw_begin(&w, "JAVA PROFILE 1.0.2", 8);
	hw_jdk_names(&w);
	hw_utf8(&w, RGF_A, "a");
	hw_utf8(&w, RGF_B, "b");
	hw_class_name(&w, 40, RG_ITEM, "t/Item");
	hw_class_name(&w, 41, RG_PAIR, "t/Pair");
	hw_heap_begin(&w);
	hw_jdk_classes(&w);
	hw_jdk_class_roots(&w);
	hw_class_dump(&w, RG_ITEM, J_OBJECT, 0, NULL, 0, NULL, 0, NULL, 0);
	hw_class_dump(&w, RG_PAIR, J_OBJECT, 0, NULL, 0, NULL, 0, pair, 2);
	hw_root(&w, HW_ROOT_STICKY_CLASS, RG_ITEM, 0, 0);
	hw_root(&w, HW_ROOT_STICKY_CLASS, RG_PAIR, 0, 0);
	hw_root(&w, HW_ROOT_JNI_GLOBAL, RG_S1, 1, 0);
	hw_root(&w, HW_ROOT_JNI_GLOBAL, RG_S2, 2, 0);
	hw_root(&w, HW_ROOT_JNI_GLOBAL, RG_R, 3, 0);
	const uint64_t held[][2] = { { RG_S1, RG_T }, { RG_S2, RG_T }, { RG_X1, RG_V },
				     { RG_X2, RG_V }, { RG_G1, RG_U }, { RG_G2, RG_U } };
	for (size_t i = 0; i < 6; i++) {
		const struct hw_field v[] = { { 0, T_OBJECT, held[i][1] }, { 0, T_OBJECT, 0 } };
		hw_instance(&w, held[i][0], RG_PAIR, v, 2);
	}
	for (uint64_t id = RG_T; id <= RG_V; id += 2)
		hw_instance(&w, id, RG_ITEM, NULL, 0);
	hw_jdk_weakref(&w, RG_W1, RG_X1);
	hw_jdk_weakref(&w, RG_W2, RG_X2);
	const uint64_t refs[] = { RG_W1, RG_W2 };
	hw_objarray(&w, RG_R, J_OBJARR, refs, 2);
	hw_heap_end(&w);
	hw_dump_end(&w);
	char *path = hw_write(&w, "rootgroups.hprof", SIZE_MAX);
	hw_free(&w);
	return path;
}

/* The one group of the level with that class: its reached, which are
 * the objects of those ids (n of them). */
static void reached_are(const struct heap *hp, const struct merged_level *l, uint32_t cls, int weak,
			const uint64_t *ids, size_t n)
{
	const struct merged_group *g = NULL;

	for (size_t i = 0; i < l->n; i++)
		if (l->groups[i].cls == cls && l->groups[i].weak == weak) {
			ck_assert_msg(g == NULL, "two groups of %s", merged_cls_name(hp, cls));
			g = &l->groups[i];
		}
	ck_assert_msg(g != NULL, "no group %s", merged_cls_name(hp, cls));
	ck_assert_uint_eq(g->nreached, n);
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(g->reached[i], heap_find_id(hp, ids[i]));
}

START_TEST(test_root_groups)
{
	char *path = write_rootgroups();
	struct open_opts o = { .no_cache = 1, .quiet = 1 };
	struct sbuf err;
	struct heap rh;
	struct merged_level l;

	sbuf_init(&err);
	ck_assert_msg(heap_open(&rh, path, &o, NULL, &err) == 0, "%s", err.buf);
	sbuf_free(&err);
	heap_need(&rh, HP_ALL, NULL);
	/* the picture as the engine has it: the root is their dominator */
	const uint64_t tuv[] = { RG_T, RG_U, RG_V }, sxg[] = { RG_S1, RG_X1, RG_G1 };
	node_t from[3];
	bits_t *in = xcalloc(bits_words(rh.n), sizeof *in);
	for (size_t i = 0; i < 3; i++) {
		from[i] = heap_find_id(&rh, tuv[i]);
		ck_assert_uint_eq(rh.idom[from[i]], 0);
		bit_set(in, from[i]);
	}
	unsigned pseudo = 0;
	ck_assert_int_eq(merged_level(&rh, MG_DOMINATING, MG_BY_CLASS, 0, from, 3, HW_NONE, &l, NULL), 0);
	ck_assert_uint_eq(l.n, 3);
	reached_are(&rh, &l, MG_ROOT, 0, &tuv[0], 1);
	reached_are(&rh, &l, MG_UNREACHABLE, 0, &tuv[1], 1);
	reached_are(&rh, &l, MG_WEAKLY, 0, &tuv[2], 1);
	check_root_groups(&rh, &l, in, MG_DOMINATING, 0, &pseudo);
	merged_level_free(&l);
	/* from the roots down: T, U and V the top level's, U unreachable, V
	 * weakly reachable */
	struct merged_tree mt;
	ck_assert_int_eq(merged_tree(&rh, MG_DOMINATING, MG_BY_CLASS, 1, 0, from, 3, 1, 0, &mt, NULL), 0);
	ck_assert_uint_eq(mt.top_weakly_objs, 1);
	ck_assert_uint_eq(mt.top_unreachable_objs, 1);
	merged_tree_free(&mt);
	check_reverse_top(&rh, from, 3);
	/* incoming: S1 a GC root's, X1 the weak pseudo root's (its weak
	 * holder's with weak holders shown), G1 the unreachable's */
	memset(in, 0, bits_words(rh.n) * sizeof *in);
	for (size_t i = 0; i < 3; i++) {
		from[i] = heap_find_id(&rh, sxg[i]);
		bit_set(in, from[i]);
	}
	for (int weak = 0; weak < 2; weak++) {
		ck_assert_int_eq(merged_level(&rh, MG_INCOMING, MG_BY_CLASS, weak, from, 3, HW_NONE, &l, NULL), 0);
		ck_assert_uint_eq(l.n, 3);
		reached_are(&rh, &l, MG_ROOT, 0, &sxg[0], 1);
		reached_are(&rh, &l, MG_UNREACHABLE, 0, &sxg[2], 1);
		if (weak) {
			uint32_t wr = rh.node_class[heap_find_id(&rh, RG_W1)];
			reached_are(&rh, &l, wr, 1, &sxg[1], 1);
		} else {
			reached_are(&rh, &l, MG_WEAKLY, 0, &sxg[1], 1);
		}
		check_root_groups(&rh, &l, in, MG_INCOMING, weak, &pseudo);
		merged_level_free(&l);
	}
	/* a row followed back: the members it stands for */
	struct merged_step st = { from, 3, HW_NONE, MG_UNREACHABLE, NULL, 0, 0 };
	node_t *got;
	size_t ngot;
	ck_assert_int_eq(merged_reached(&rh, MG_INCOMING, MG_BY_CLASS, 0, &st, 1, &got, &ngot, NULL), 0);
	ck_assert_uint_eq(ngot, 1);
	ck_assert_uint_eq(got[0], heap_find_id(&rh, RG_G1));
	free(got);
	st.cls = MG_WEAKLY;
	ck_assert_int_eq(merged_reached(&rh, MG_INCOMING, MG_BY_CLASS, 0, &st, 1, &got, &ngot, NULL), 0);
	ck_assert_uint_eq(ngot, 1);
	ck_assert_uint_eq(got[0], heap_find_id(&rh, RG_X1));
	free(got);
	/* S1 the analysis root: T its own, V and U and the rest (the JDK's
	 * classes, R, the weak references) not its: every object the root
	 * holds, the whole heap's levels, against the marking from S1 */
	ck_assert_int_eq(heap_set_root(&rh, heap_find_id(&rh, RG_S1), NULL), 0);
	heap_need(&rh, HP_ALL, NULL);
	node_t *every = xmalloc((size_t)rh.n * sizeof *every);
	size_t nevery = 0;
	for (node_t v = 1; v < rh.n; v++) {
		every[nevery++] = v;
		bit_set(in, v);
	}
	for (int k = MG_INCOMING; k <= MG_DOMINATING; k++) {
		unsigned seen = 0;
		ck_assert_int_eq(merged_level(&rh, (enum merged_kind)k, MG_BY_CLASS, 0, every, nevery, HW_NONE, &l, NULL),
				 0);
		const uint64_t s1 = RG_S1;
		reached_are(&rh, &l, MG_ROOT, 0, &s1, 1);
		ck_assert_str_eq(merged_cls_name(&rh, MG_ROOT), "analysis root");
		check_root_groups(&rh, &l, in, (enum merged_kind)k, 0, &seen);
		ck_assert_uint_eq(seen, 4); /* no weak reference from S1: none only weakly its */
		merged_level_free(&l);
	}
	free(every);
	free(in);
	heap_free(&rh);

	/* the batch views: the rows' names, no class, the note */
	char cmd[1024];
	int status;
	snprintf(cmd, sizeof cmd, "%s -q --no-cache -f csv merged-dom %s -e 'object 0x%x,0x%x,0x%x'", heapwalk(), path,
		 RG_T, RG_U, RG_V);
	char *out = run(cmd, &status);
	ck_assert_msg(status == 0, "%s", cmd);
	ck_assert_msg(strstr(out, "\n0,,,0,0,0,1,,0,0,gc\n") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "\n0,,,0,0,0,1,,0,0,weakly_reachable\n") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "\n0,,,0,0,0,1,,0,0,unreachable\n") != NULL, "%s", out);
	/* equal counts: in the order of their names, GC roots first */
	ck_assert_msg(strstr(out, ",gc\n") < strstr(out, ",unreachable\n") &&
			      strstr(out, ",unreachable\n") < strstr(out, ",weakly_reachable\n"),
		      "%s", out);
	free(out);
	snprintf(cmd, sizeof cmd, "%s -q --no-cache -f csv merged-dom %s -e 'root 0x%x | all'", heapwalk(), path, RG_S1);
	out = run(cmd, &status);
	ck_assert_msg(status == 0 && strstr(out, "\n0,,,0,0,0,1,,0,0,analysis\n") != NULL &&
			      strstr(out, ",unreachable\n") != NULL && strstr(out, ",gc\n") == NULL,
		      "%s", out);
	free(out);
	snprintf(cmd, sizeof cmd, "%s -q --no-cache merged-in %s -e 'object 0x%x'", heapwalk(), path, RG_G1);
	out = run(cmd, &status);
	ck_assert_msg(status == 0, "%s", cmd);
	ck_assert_msg(strstr(out, "\nGC roots ") == NULL && strstr(out, "the dump's GC roots do not reach those of "
								  "\"no GC root: unreachable\"") != NULL,
		      "%s", out);
	free(out);
	snprintf(cmd, sizeof cmd, "%s -q --no-cache --strong merged-in %s -e 'object 0x%x'", heapwalk(), path, RG_X1);
	out = run(cmd, &status);
	ck_assert_msg(status == 0, "%s", cmd);
	ck_assert_msg(strstr(out, "only weak or soft references refer to the objects of the set") != NULL &&
			      strstr(out, "\nno GC root: weakly reachable ") != NULL && strstr(out, "\nGC roots ") == NULL,
		      "%s", out);
	free(out);
	/* merged-dom -r on T, U and V: the top level's that no GC root holds */
	snprintf(cmd, sizeof cmd, "%s -q --no-cache -r merged-dom %s -e 'object 0x%x,0x%x,0x%x'", heapwalk(), path, RG_T,
		 RG_U, RG_V);
	out = run(cmd, &status);
	ck_assert_msg(status == 0, "%s", cmd);
	ck_assert_msg(strstr(out, "; 2 of the top level's objects are held by no GC root (1 reached through weak "
				  "references alone, 1 not reached): the engine's pseudo roots hold them") != NULL,
		      "%s", out);
	free(out);
	/* merged-dom on V: the note of the weakly reachable's row */
	snprintf(cmd, sizeof cmd, "%s -q --no-cache merged-dom %s -e 'object 0x%x'", heapwalk(), path, RG_V);
	out = run(cmd, &status);
	ck_assert_msg(status == 0, "%s", cmd);
	ck_assert_msg(strstr(out, "no object dominates an object of the set; the dump's GC roots reach those of "
				  "\"no GC root: weakly reachable\" through weak references alone") != NULL,
		      "%s", out);
	free(out);
	/* under the analysis root S1: U is outside what it holds, said so */
	snprintf(cmd, sizeof cmd, "%s -q --no-cache merged-dom %s -e 'root 0x%x | all | object 0x%x'", heapwalk(), path,
		 RG_S1, RG_U);
	out = run(cmd, &status);
	ck_assert_msg(status == 0 && strstr(out, "the analysis root does not reach those of \"not the analysis root's: "
						 "unreachable\": they are outside what it holds") != NULL &&
			      strstr(out, "garbage") == NULL,
		      "%s", out);
	free(out);
	free(path);
}
END_TEST

Suite *merged_suite(void)
{
	Suite *s = suite_create("merged");
	TCase *tc = tcase_create("sample");
	TCase *real = tcase_create("real");
	TCase *paths = tcase_create("paths");
	TCase *colls = tcase_create("colls");

	tcase_add_checked_fixture(tc, open_sample, close_sample);
	tcase_add_test(tc, test_outgoing_by_class);
	tcase_add_test(tc, test_incoming_two_counts);
	tcase_add_test(tc, test_by_field);
	tcase_add_test(tc, test_recursive_chains);
	tcase_add_test(paths, test_reached_paths);
	tcase_add_test(paths, test_dominating_whole_heap);
	tcase_add_test(paths, test_down_paths);
	tcase_add_test(paths, test_weak_holders);
	tcase_add_test(paths, test_root_groups);
	tcase_set_timeout(real, FIXTURE_TIMEOUT);
	tcase_add_test(real, test_real_dump_brute_force);
	tcase_add_test(real, test_weak_after_many_classes);
	tcase_add_test(real, test_real_dump_by_field);
	tcase_add_test(real, test_reached_real_dump);
	tcase_add_test(real, test_dominating_whole_real);
	tcase_add_test(real, test_down_real_dump);
	tcase_add_test(real, test_batch_against_levels);
	tcase_add_test(real, test_batch_cache_same_output);
	tcase_add_test(real, test_weak_holders_jvm);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, paths);
	suite_add_tcase(s, real);
	tcase_add_unchecked_fixture(colls, open_colls, close_colls);
	tcase_set_timeout(colls, FIXTURE_TIMEOUT);
	tcase_add_test(colls, test_colls_incoming);
	tcase_add_test(colls, test_colls_outgoing);
	tcase_add_test(colls, test_colls_referrer_side);
	suite_add_tcase(s, colls);
	return s;
}
