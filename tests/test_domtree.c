/* test_domtree.c — dominators on graphs whose dominators are known by
 * hand, and on random graphs checked against the definition (d dominates
 * v when v cannot be reached from the root without passing d). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/domtree.h"
#include "suites.h"

struct g {
	node_t n;
	edge_t *os, *is;
	node_t *o, *in;
};

/* CSR out and in from an edge list of pairs. */
static void build(struct g *g, node_t n, const node_t *e, size_t m)
{
	g->n = n;
	g->os = xcalloc((size_t)n + 1, sizeof *g->os);
	g->is = xcalloc((size_t)n + 1, sizeof *g->is);
	g->o = xmalloc((m + 1) * sizeof *g->o);
	g->in = xmalloc((m + 1) * sizeof *g->in);
	for (size_t k = 0; k < m; k++) {
		g->os[e[2 * k] + 1]++;
		g->is[e[2 * k + 1] + 1]++;
	}
	for (node_t v = 0; v < n; v++) {
		g->os[v + 1] += g->os[v];
		g->is[v + 1] += g->is[v];
	}
	edge_t *po = xmalloc(((size_t)n + 1) * sizeof *po), *pi = xmalloc(((size_t)n + 1) * sizeof *pi);
	memcpy(po, g->os, ((size_t)n + 1) * sizeof *po);
	memcpy(pi, g->is, ((size_t)n + 1) * sizeof *pi);
	for (size_t k = 0; k < m; k++) {
		g->o[po[e[2 * k]]++] = e[2 * k + 1];
		g->in[pi[e[2 * k + 1]]++] = e[2 * k];
	}
	free(po);
	free(pi);
}

static void gfree(struct g *g)
{
	free(g->os);
	free(g->is);
	free(g->o);
	free(g->in);
}

static const edge_t *in_starts(void *arg)
{
	return ((const struct g *)arg)->is;
}

/* Dominators by domtree_compute, in memory (spill 0) or with its work
 * arrays and the out-edges' second reading in a store on a scratch file
 * (spill 1), or the predecessors from the in-edges in that store (spill
 * 2): the ways the engine runs it on a heap. *order (if order is not
 * NULL) is made here. */
static node_t *doms_by(const struct g *g, node_t **order, node_t *norder, int spill)
{
	struct dgraph d = { .n = g->n, .root = 0, .out_start = g->os, .out = g->o };
	struct store st;
	node_t *idom;
	FILE *f = NULL;

	if (spill) {
		f = tmpfile();
		ck_assert(f != NULL);
		store_init(&st, fileno(f), 64);
		ck_assert_int_eq(store_put(&st, 7, g->o, sizeof *g->o, g->os[g->n]), 0);
		ck_assert_int_eq(store_put(&st, 8, g->in, sizeof *g->in, g->is[g->n]), 0);
		d.out_store = &st;
		d.out_id = 7;
		d.scratch = &st;
		d.scratch_id = 100;
	}
	if (spill == 2) {
		d.in_starts = in_starts;
		d.after_dfs_arg = (void *)g;
		d.in_store = &st;
		d.in_id = 8;
	}
	domtree_compute(&d, &idom, order, norder, NULL, NULL);
	if (spill) {
		ck_assert(store_ok(&st));
		ck_assert_uint_eq(st.nsect, 2); /* the work arrays are gone */
		store_free(&st);
		fclose(f);
	}
	return idom;
}

/* All three ways, which must agree: the one in memory is returned. */
static node_t *doms(const struct g *g, node_t **order, node_t *norder)
{
	node_t *idom = doms_by(g, order, norder, 0);

	for (int spill = 1; spill <= 2; spill++) {
		node_t *o2 = NULL, n2 = 0;
		node_t *idom2 = doms_by(g, order != NULL ? &o2 : NULL, order != NULL ? &n2 : NULL, spill);
		ck_assert_msg(memcmp(idom, idom2, (size_t)g->n * sizeof *idom) == 0, "idoms differ (%d)", spill);
		if (order != NULL) {
			ck_assert_uint_eq(*norder, n2);
			ck_assert(memcmp(*order, o2, (size_t)n2 * sizeof *o2) == 0);
		}
		free(idom2);
		free(o2);
	}
	ck_assert_msg(domtree_is_tree(idom, g->n, 0), "a computed idom is no tree");
	return idom;
}

#define N HW_NONE

static void expect(node_t n, const node_t *edges, size_t m, const node_t *want)
{
	struct g g;

	build(&g, n, edges, m);
	node_t *idom = doms(&g, NULL, NULL);
	for (node_t v = 0; v < n; v++)
		ck_assert_msg(idom[v] == want[v], "node %u: idom %u, want %u", v, idom[v], want[v]);
	free(idom);
	gfree(&g);
}

START_TEST(test_diamond)
{
	/* 0 -> 1, 2 -> 3: 3's idom is 0, not 1 or 2 */
	static const node_t e[] = { 0, 1, 0, 2, 1, 3, 2, 3 };
	static const node_t want[] = { 0, 0, 0, 0 };
	expect(4, e, 4, want);
}
END_TEST

START_TEST(test_lengauer_tarjan_paper)
{
	/* The example graph of Lengauer and Tarjan (1979): R=0, A..L=1..12.
	 * Edges: R->A,B,C; A->D; B->A,D,E; C->F,G; D->L; E->H; F->I; G->I,J;
	 * H->E,K; I->K; J->I; K->I,R; L->H. Their idoms: A,B,C,D,E,I,K <- R;
	 * F,G <- C; J <- G; H <- R; L <- D. */
	enum { R, A, B, C, D, E, F, G, H, I, J, K, L };
	static const node_t e[] = {
		R, A, R, B, R, C, A, D, B, A, B, D, B, E, C, F, C, G, D, L, E, H, F, I,
		G, I, G, J, H, E, H, K, I, K, J, I, K, I, K, R, L, H,
	};
	static const node_t want[] = { R, R, R, R, R, R, C, C, R, R, G, R, D };
	expect(13, e, sizeof e / sizeof e[0] / 2, want);
}
END_TEST

START_TEST(test_irreducible)
{
	/* two entries into the cycle 3 <-> 4: from 1 and from 2, so neither
	 * 3 nor 4 is dominated by the other; 5 hangs below 4 only */
	static const node_t e[] = { 0, 1, 0, 2, 1, 3, 2, 4, 3, 4, 4, 3, 4, 5 };
	static const node_t want[] = { 0, 0, 0, 0, 0, 4 };
	expect(6, e, 7, want);
}
END_TEST

START_TEST(test_self_loops_duplicates_unreachable)
{
	/* 1 loops on itself and is referenced twice; 3 -> 2 but 3 is not
	 * reachable, so it neither counts nor gets a dominator */
	static const node_t e[] = { 0, 1, 0, 1, 1, 1, 1, 2, 3, 2, 3, 3 };
	static const node_t want[] = { 0, 0, 1, N };
	expect(4, e, 6, want);
}
END_TEST

START_TEST(test_root_succ)
{
	/* the CSR gives the root no edges; root_succ replaces them */
	static const node_t e[] = { 1, 2, 3, 2 };
	struct g g;
	node_t rs[] = { 1, 3 };

	build(&g, 4, e, 2);
	/* the in-CSR must list the root as predecessor of its successors */
	static const node_t e2[] = { 0, 1, 0, 3, 1, 2, 3, 2 };
	struct g gi;
	build(&gi, 4, e2, 4);
	struct dgraph d = { .n = 4, .root = 0, .out_start = g.os, .out = g.o, .root_succ = rs, .nroot_succ = 2 };
	node_t *idom;
	domtree_compute(&d, &idom, NULL, NULL, NULL, NULL);
	ck_assert_uint_eq(idom[1], 0);
	ck_assert_uint_eq(idom[2], 0);
	ck_assert_uint_eq(idom[3], 0);
	free(idom);
	gfree(&g);
	gfree(&gi);
}
END_TEST

START_TEST(test_million_chain)
{
	node_t n = 1000000;
	node_t *e = xmalloc((size_t)n * 2 * sizeof *e);
	struct g g;

	for (node_t v = 0; v + 1 < n; v++) {
		e[2 * v] = v;
		e[2 * v + 1] = v + 1;
	}
	build(&g, n, e, n - 1);
	node_t *idom = doms(&g, NULL, NULL);
	for (node_t v = 1; v < n; v++)
		ck_assert_uint_eq(idom[v], v - 1);
	free(idom);
	gfree(&g);
	/* the same chain with a back edge from every node to the root: the
	 * chain still dominates itself */
	e = xreallocarray(e, (size_t)n * 4, sizeof *e);
	size_t m = n - 1;
	for (node_t v = 1; v < n; v++) {
		e[2 * m] = v;
		e[2 * m + 1] = 0;
		m++;
	}
	build(&g, n, e, m);
	idom = doms(&g, NULL, NULL);
	ck_assert_uint_eq(idom[n - 1], n - 2);
	ck_assert_uint_eq(idom[n / 2], n / 2 - 1);
	free(idom);
	gfree(&g);
	free(e);
}
END_TEST

START_TEST(test_million_star)
{
	node_t n = 1000001;
	node_t *e = xmalloc((size_t)n * 2 * sizeof *e);
	struct g g;

	for (node_t v = 1; v < n; v++) {
		e[2 * (v - 1)] = 0;
		e[2 * (v - 1) + 1] = v;
	}
	build(&g, n, e, n - 1);
	node_t *idom = doms(&g, NULL, NULL);
	for (node_t v = 0; v < n; v++)
		ck_assert_uint_eq(idom[v], 0);
	free(idom);
	gfree(&g);
	free(e);
}
END_TEST

START_TEST(test_list_values_held_by_array)
{
	/* A linked list whose values an array also holds: the root holds
	 * list item a1 (node 1) and then the array X (the last node); item
	 * a_i -> a_{i+1} (its next), then -> its value c_i; X -> every c_i.
	 * The DFS runs down the whole list before it reaches X, so c_i's DFS
	 * parent is a_i, deep in a dominator chain, while c_i's idom is the
	 * root (two ways in). An algorithm that climbs the dominator tree
	 * from each DFS parent up to the semidominator (Semi-NCA's last step)
	 * does i steps for c_i: 10^11 at half a million items, far past the
	 * tcase's timeout. Items are 1..k, values k+1..2k. */
	node_t k = 500000, n = 2 * k + 2, x = n - 1;
	size_t m = 0;
	node_t *e = xmalloc((size_t)k * 8 * sizeof *e);
	struct g g;

	e[m++] = 0;
	e[m++] = 1;
	e[m++] = 0;
	e[m++] = x;
	for (node_t i = 1; i <= k; i++) {
		if (i < k) {
			e[m++] = i;
			e[m++] = i + 1;
		}
		e[m++] = i;
		e[m++] = k + i;
		e[m++] = x;
		e[m++] = k + i;
	}
	build(&g, n, e, m / 2);
	node_t norder, *order;
	node_t *idom = doms(&g, &order, &norder);
	ck_assert_uint_eq(norder, n);
	ck_assert_uint_eq(order[k], k);         /* the DFS went down the list first */
	ck_assert_uint_eq(order[n - 1], x);     /* and reached the array last */
	ck_assert_uint_eq(idom[1], 0);
	ck_assert_uint_eq(idom[x], 0);
	for (node_t i = 2; i <= k; i++)
		ck_assert_uint_eq(idom[i], i - 1);
	for (node_t i = 1; i <= k; i++)
		ck_assert_uint_eq(idom[k + i], 0);
	free(order);
	free(idom);
	gfree(&g);
	free(e);
}
END_TEST

/* Is t reachable from 0 without passing `skip` (HW_NONE: no skip)? */
static int reach(const struct g *g, node_t skip, node_t t, uint8_t *seen, node_t *stack)
{
	size_t sp = 0;

	if (skip == 0)
		return 0;
	memset(seen, 0, g->n);
	seen[0] = 1;
	stack[sp++] = 0;
	while (sp > 0) {
		node_t v = stack[--sp];
		if (v == t)
			return 1;
		for (edge_t j = g->os[v]; j < g->os[v + 1]; j++)
			if (g->o[j] != skip && !seen[g->o[j]]) {
				seen[g->o[j]] = 1;
				stack[sp++] = g->o[j];
			}
	}
	return 0;
}

/* The definition, slowly: idom(v) is the strict dominator of v that every
 * other strict dominator of v dominates. */
static node_t brute_idom(const struct g *g, node_t v, uint8_t *seen, node_t *stack)
{
	if (!reach(g, HW_NONE, v, seen, stack))
		return HW_NONE;
	if (v == 0)
		return 0;
	node_t best = HW_NONE;
	for (node_t d = 0; d < g->n; d++) {
		if (d == v || reach(g, d, v, seen, stack))
			continue;
		int closest = 1;
		for (node_t e = 0; e < g->n && closest; e++)
			if (e != v && e != d && !reach(g, e, v, seen, stack) && reach(g, e, d, seen, stack))
				closest = 0;
		if (closest)
			best = d;
	}
	return best;
}

START_TEST(test_random_against_definition)
{
	unsigned seed = 12345;
	int graphs = 0;

	for (int iter = 0; iter < RANDOM_HEAPS(300); iter++) {
		seed = seed * 1103515245u + 12345u;
		node_t n = 1 + (seed >> 16) % 40;
		size_t m = (seed >> 8) % (n * 3 + 1);
		node_t *e = xmalloc((m + 1) * 2 * sizeof *e);
		for (size_t k = 0; k < 2 * m; k++) {
			seed = seed * 1103515245u + 12345u;
			e[k] = (seed >> 16) % n;
		}
		struct g g;
		build(&g, n, e, m);
		node_t *order, norder;
		node_t *idom = doms(&g, &order, &norder);
		uint8_t *seen = xmalloc(n);
		node_t *stack = xmalloc(((size_t)n + m + 1) * sizeof *stack);
		size_t reached = 0;
		for (node_t v = 0; v < n; v++) {
			node_t want = brute_idom(&g, v, seen, stack);
			ck_assert_msg(idom[v] == want, "graph %d, node %u: idom %u, want %u", iter, v, idom[v], want);
			reached += want != HW_NONE;
		}
		/* order: the reached nodes once each, root first, each node's
		 * dominator before it */
		ck_assert_uint_eq(norder, reached);
		ck_assert_uint_eq(order[0], 0);
		memset(seen, 0, n);
		for (node_t i = 0; i < norder; i++) {
			ck_assert(!seen[order[i]]);
			ck_assert(i == 0 || seen[idom[order[i]]]);
			seen[order[i]] = 1;
		}
		free(seen);
		free(stack);
		free(order);
		free(idom);
		free(e);
		gfree(&g);
		graphs++;
	}
	ck_assert_int_eq(graphs, RANDOM_HEAPS(300));
}
END_TEST

START_TEST(test_is_tree_forged)
{
	/* what a forged index cache may hold, beside what the pass makes */
	static const node_t good[] = { 0, 0, 1, 1, N, 3 };
	static const node_t cycle[] = { 0, 2, 3, 1, N, 0 };     /* 1 -> 2 -> 3 -> 1 */
	static const node_t self[] = { 0, 0, 2, 1, N, 3 };      /* 2 its own */
	static const node_t far[] = { 0, 0, 1, 6, N, 3 };       /* past the nodes */
	static const node_t unreached[] = { 0, 0, 1, 4, N, 3 }; /* under 4, unreached */
	static const node_t rootless[] = { 1, 0, 1, 1, N, 3 };  /* the root's is not the root */
	static const node_t late[] = { 0, 0, 1, 1, 5, 4 };      /* 4 -> 5 -> 4, met last */

	ck_assert_int_eq(domtree_is_tree(good, 6, 0), 1);
	ck_assert_int_eq(domtree_is_tree(cycle, 6, 0), 0);
	ck_assert_int_eq(domtree_is_tree(self, 6, 0), 0);
	ck_assert_int_eq(domtree_is_tree(far, 6, 0), 0);
	ck_assert_int_eq(domtree_is_tree(unreached, 6, 0), 0);
	ck_assert_int_eq(domtree_is_tree(rootless, 6, 0), 0);
	ck_assert_int_eq(domtree_is_tree(late, 6, 0), 0);
	ck_assert_int_eq(domtree_is_tree(good, 6, 6), 0);
	/* a million-long chain, known to reach the root only at its end */
	node_t n = 1000000, *chain = xmalloc(n * sizeof *chain);
	chain[0] = 0;
	for (node_t v = 1; v < n; v++)
		chain[v] = v == n - 1 ? 0 : v + 1;
	ck_assert_int_eq(domtree_is_tree(chain, n, 0), 1);
	chain[n - 1] = 1;
	ck_assert_int_eq(domtree_is_tree(chain, n, 0), 0);
	free(chain);
}
END_TEST

Suite *domtree_suite(void)
{
	Suite *s = suite_create("domtree");
	TCase *tc = tcase_create("known");
	TCase *big = tcase_create("big");

	tcase_add_test(tc, test_diamond);
	tcase_add_test(tc, test_is_tree_forged);
	tcase_add_test(tc, test_lengauer_tarjan_paper);
	tcase_add_test(tc, test_irreducible);
	tcase_add_test(tc, test_self_loops_duplicates_unreachable);
	tcase_add_test(tc, test_root_succ);
	tcase_add_test(tc, test_random_against_definition);
	tcase_set_timeout(big, HANG_TIMEOUT);
	tcase_add_test(big, test_million_chain);
	tcase_add_test(big, test_million_star);
	tcase_add_test(big, test_list_values_held_by_array);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, big);
	return s;
}
