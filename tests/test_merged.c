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
#include <unistd.h>

#include "graph/open.h"
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
	ck_assert_int_eq(merged_level(&h, k, by, from, n, pcls, l, NULL), 0);
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
	/* A: held by U and by a GC root (the JNI global) */
	level(MG_INCOMING, MG_BY_CLASS, a, 1, HW_NONE, &l);
	ck_assert_uint_eq(l.n, 2);
	const struct merged_group *root = find(&l, MG_ROOT, NULL);
	ck_assert_ptr_nonnull(root);
	ck_assert_uint_eq(root->count, 0);
	ck_assert_uint_eq(root->nreached, 1);
	const struct merged_group *u = find(&l, cls_named("Node"), NULL);
	ck_assert_ptr_nonnull(u);
	ck_assert_uint_eq(u->count, 1);
	ck_assert_uint_eq(u->nodes[0], N(S_U));
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
		ck_assert_int_eq(merged_level(&rh, incoming ? MG_INCOMING : MG_OUTGOING, MG_BY_CLASS, from, n,
					      HW_NONE, &l, NULL), 0);
		brute(&rh, in, incoming, count, reached);
		size_t classes = 0;
		for (uint32_t c = 0; c < rh.ncls; c++)
			classes += count[c] > 0;
		size_t groups = 0;
		for (size_t i = 0; i < l.n; i++) {
			const struct merged_group *g = &l.groups[i];
			if (g->cls == MG_ROOT)
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
		merged_level_free(&l);
		free(in);
		free(from);
	}
	free(count);
	free(reached);
	heap_free(&rh);
}
END_TEST

/* ---- by field on a real dump, against labels read by the decoder ---- */
#include "format/hprof.h"

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
			if ((rand() & ((2 << round) - 1)) == 0) {
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
		ck_assert_int_eq(merged_level(&rh, incoming ? MG_INCOMING : MG_OUTGOING, MG_BY_FIELD, from, n,
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
			real_groups += l.groups[i].cls != MG_ROOT;
		ck_assert_uint_eq(real_groups, groups);
		ck_assert_uint_gt(checked, 20);
		merged_level_free(&l);
		free(pn.v);
		free(pr.v);
		free(in);
		free(from);
	}
	for (size_t i = 0; i < st.n; i++)
		free(st.s[i]);
	free(st.s);
	free(st.slot);
	free(lab);
	free(fl);
	heap_free(&rh);
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
 * written here from merged_level's groups: the first `top` groups,
 * each expanded while depth allows. Returns the parent's chain. */
static size_t expect_rows(struct heap *rh, enum merged_kind k, enum merged_by by, const node_t *from,
			  size_t n, uint32_t pcls, unsigned depth, unsigned maxdepth, size_t top,
			  struct sbuf *sb)
{
	struct merged_level l;

	ck_assert_int_eq(merged_level(rh, k, by, from, n, pcls, &l, NULL), 0);
	for (size_t i = 0; i < l.n && i < top; i++) {
		const struct merged_group *g = &l.groups[i];
		struct sbuf below;
		size_t chain = 0;
		sbuf_init(&below);
		if (depth + 1 < maxdepth && g->count > 0)
			chain = expect_rows(rh, k, by, g->nodes, g->count, g->cls, depth + 1, maxdepth, top, &below);
		sbuf_printf(sb, "%u,", depth);
		csv_field(sb, g->cls == MG_ROOT ? NULL : class_name(rh, g->cls));
		sbuf_addc(sb, ',');
		csv_field(sb, g->field);
		sbuf_printf(sb, ",%zu,%llu,%zu,", g->count, (unsigned long long)g->shallow, g->nreached);
		if (depth + 1 < maxdepth && g->count > 0)
			sbuf_printf(sb, "%zu", chain);
		sbuf_addc(sb, '\n');
		sbuf_add(sb, below.buf ? below.buf : "", below.len);
		sbuf_free(&below);
	}
	size_t chain = l.chain;
	merged_level_free(&l);
	return chain;
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
			sbuf_adds(&want, "depth,class,field,objects,shallow,reached,chain\n");
			expect_rows(&rh, (enum merged_kind)k, (enum merged_by)by, from, n, HW_NONE, 0, 3, 4, &want);
			snprintf(cmd, sizeof cmd, "%s -q -f csv %s -d 3 -n 4 --by %s " COOPS
				 " -e 'instances Workload$Session'", heapwalk(), views[k], by ? "field" : "class");
			char *got = run(cmd, &st);
			ck_assert_msg(st == 0, "%s", cmd);
			ck_assert_msg(strcmp(got, want.buf) == 0, "%s:\n%s\nthe engine's levels:\n%s", cmd, got, want.buf);
			free(got);
			sbuf_free(&want);
		}
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
		"-e 'instances java.lang.String | merged-in' -d 2",
	};
	char cmd[1024];
	int st;

	ensure_dump("coops", "");
	for (size_t i = 0; i < sizeof args / sizeof args[0]; i++) {
		unlink(COOPS ".hwi");
		snprintf(cmd, sizeof cmd, "%s -q --no-cache %s " COOPS, heapwalk(), args[i]);
		char *a = run(cmd, &st);
		ck_assert_msg(st == 0, "%s", cmd);
		snprintf(cmd, sizeof cmd, "%s -q %s " COOPS, heapwalk(), args[i]);
		char *b = run(cmd, &st); /* writes the cache */
		ck_assert_int_eq(st, 0);
		struct stat cs;
		ck_assert_msg(stat(COOPS ".hwi", &cs) == 0, "no cache written");
		char *c = run(cmd, &st); /* reads it */
		ck_assert_int_eq(st, 0);
		ck_assert_msg(strcmp(a, b) == 0 && strcmp(a, c) == 0, "%s: output differs with the cache", cmd);
		ck_assert_msg(strlen(a) > 200, "%s: %s", cmd, a);
		free(a);
		free(b);
		free(c);
	}
}
END_TEST

Suite *merged_suite(void)
{
	Suite *s = suite_create("merged");
	TCase *tc = tcase_create("sample");
	TCase *real = tcase_create("real");

	tcase_add_checked_fixture(tc, open_sample, close_sample);
	tcase_add_test(tc, test_outgoing_by_class);
	tcase_add_test(tc, test_incoming_two_counts);
	tcase_add_test(tc, test_by_field);
	tcase_add_test(tc, test_recursive_chains);
	tcase_set_timeout(real, 300);
	tcase_add_test(real, test_real_dump_brute_force);
	tcase_add_test(real, test_real_dump_by_field);
	tcase_add_test(real, test_batch_against_levels);
	tcase_add_test(real, test_batch_cache_same_output);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, real);
	return s;
}
