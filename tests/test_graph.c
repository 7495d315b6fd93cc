/* test_graph.c — the graph built from the sample heap (hprofw.c), with
 * dominators and sizes worked out by hand:
 *
 *   JNI global -> A;  A.next = B, A.other = C;  B.next = D;  C.next = D;
 *   D.next = X (byte[100]);  unknown root -> W, a WeakReference whose
 *   referent is E;  U.next = A, but nothing refers to U;  Holder.so
 *   (static) = S.  Every class is a system-class root.
 *
 * Sizes, default 64-bit layout (12-byte header, 4-byte references, 8-byte
 * alignment; the odd ids are no addresses to infer one from):
 *   Node (next, other, val)  12 + 4 + 4 + 4 = 24
 *   WeakReference            12 + 4 * 4 = 28 -> 32
 *   byte[100]                16 + 100 = 116 -> 120
 * Dominators: A, W <- root; B, C, D <- A (two paths into D); X <- D;
 * E <- root as a weakly reachable pseudo root; U <- root as an
 * unreachable one; S <- class Holder.
 * Retained: X 120, D 24 + 120 = 144, B 24, C 24, A 24 * 3 + 144 = 216. */
#include <stdlib.h>
#include <string.h>

#include "graph/analysis.h"
#include "graph/open.h"
#include "hprofw.h"
#include "suites.h"

static struct heap h;

static void open_sample(void) { hw_open_sample(&h, "graph.hprof"); }

static void close_sample(void) { heap_free(&h); }

static node_t N(uint64_t id)
{
	node_t v = heap_find_id(&h, id);

	ck_assert_msg(v != HW_NONE, "no node for id 0x%llx", (unsigned long long)id);
	return v;
}

static node_t class_node(uint64_t cid) { return N(cid); }

START_TEST(test_nodes_sorted)
{
	ck_assert_uint_eq(heap_node_id(&h, 0), 0);
	ck_assert_uint_eq(h.node_kind[0], NK_ROOT);
	for (node_t v = 2; v < h.n; v++)
		ck_assert(heap_node_id(&h, v) > heap_node_id(&h, v - 1));
	/* 6 classes and 9 objects */
	ck_assert_uint_eq(h.n, 1 + 6 + 9);
	ck_assert_uint_eq(h.node_kind[N(S_X)], NK_PRIMARRAY);
	ck_assert_uint_eq(h.node_kind[N(S_NODE)], NK_CLASS);
	ck_assert_str_eq(class_name(&h, h.node_class[N(S_A)]), "Node");
	ck_assert_str_eq(class_name(&h, h.node_class[N(S_W)]), "java.lang.ref.WeakReference");
}
END_TEST

static int has_edge(const node_t *e, edge_t from, edge_t to, node_t t)
{
	for (edge_t j = from; j < to; j++)
		if (e[j] == t)
			return 1;
	return 0;
}

static int out_edge(node_t a, node_t b) { return has_edge(h.out, h.out_start[a], h.out_start[a + 1], b); }

START_TEST(test_references)
{
	ck_assert(out_edge(N(S_A), N(S_B)));
	ck_assert(out_edge(N(S_A), N(S_C)));
	ck_assert(out_edge(N(S_D), N(S_X)));
	ck_assert(out_edge(N(S_A), class_node(S_NODE)));        /* <class> */
	ck_assert(out_edge(class_node(S_HOLDER), N(S_S)));      /* static field */
	ck_assert(out_edge(class_node(S_NODE), class_node(S_OBJ))); /* <super> */
	ck_assert(!out_edge(N(S_W), N(S_E)));                   /* referent: weak */
	ck_assert_uint_eq(h.nweak, 1);
	ck_assert_uint_eq(h.weak_src[0], N(S_W));
	ck_assert_uint_eq(h.weak_dst[0], N(S_E));
	/* in[] is out[] reversed, plus the root for every root object */
	uint64_t total = 0;
	for (node_t v = 1; v < h.n; v++)
		for (edge_t j = h.out_start[v]; j < h.out_start[v + 1]; j++) {
			node_t t = h.out[j];
			ck_assert(has_edge(h.in, h.in_start[t], h.in_start[t + 1], v));
			total++;
		}
	ck_assert_uint_eq(total, h.nedges);
	ck_assert_uint_eq(h.in_start[h.n], h.nedges + h.nroots);
	for (size_t i = 0; i < h.nroots; i++)
		ck_assert(has_edge(h.in, h.in_start[h.roots[i]], h.in_start[h.roots[i] + 1], 0));
}
END_TEST

static int root_kind_of(node_t v, unsigned kind)
{
	for (size_t i = 0; i < h.nroot_rec; i++)
		if (h.root_rec[i].node == v && h.root_rec[i].kind == kind)
			return 1;
	return 0;
}

START_TEST(test_roots_and_pseudo_roots)
{
	ck_assert(root_kind_of(N(S_A), RK_JNI_GLOBAL));
	ck_assert(root_kind_of(N(S_W), RK_UNKNOWN));
	ck_assert(root_kind_of(class_node(S_NODE), RK_STICKY_CLASS));
	ck_assert(root_kind_of(N(S_E), RK_WEAK_ONLY));
	ck_assert(root_kind_of(N(S_U), RK_UNREACHABLE));
	ck_assert(!root_kind_of(N(S_B), RK_UNREACHABLE));
	ck_assert_uint_eq(h.weakonly_count, 1);
	ck_assert_uint_eq(h.weakonly_bytes, 24);
	ck_assert_uint_eq(h.unreachable_count, 1);
	ck_assert_uint_eq(h.unreachable_bytes, 24);
}
END_TEST

START_TEST(test_sizes)
{
	ck_assert_uint_eq(h.layout.header, 12);
	ck_assert_uint_eq(h.layout.ref_size, 4);
	ck_assert_int_eq(h.layout.detected, 0);
	ck_assert_uint_eq(h.node_shallow[N(S_A)], 24);
	ck_assert_uint_eq(h.node_shallow[N(S_W)], 32);
	ck_assert_uint_eq(h.node_shallow[N(S_X)], 120);
}
END_TEST

START_TEST(test_dominators_and_retained)
{
	ck_assert_uint_eq(h.idom[N(S_A)], 0);
	ck_assert_uint_eq(h.idom[N(S_W)], 0);
	ck_assert_uint_eq(h.idom[N(S_B)], N(S_A));
	ck_assert_uint_eq(h.idom[N(S_C)], N(S_A));
	ck_assert_uint_eq(h.idom[N(S_D)], N(S_A));
	ck_assert_uint_eq(h.idom[N(S_X)], N(S_D));
	ck_assert_uint_eq(h.idom[N(S_E)], 0);
	ck_assert_uint_eq(h.idom[N(S_U)], 0);
	ck_assert_uint_eq(h.idom[N(S_S)], class_node(S_HOLDER));
	ck_assert_uint_eq(h.retained[N(S_X)], 120);
	ck_assert_uint_eq(h.retained[N(S_D)], 144);
	ck_assert_uint_eq(h.retained[N(S_B)], 24);
	ck_assert_uint_eq(h.retained[N(S_A)], 216);
	ck_assert_uint_eq(h.retained[N(S_W)], 32); /* not E: the referent is weak */
	ck_assert_uint_eq(h.retained[0], h.total_shallow);
}
END_TEST

START_TEST(test_retained_set)
{
	bits_t *set = xcalloc(bits_words(h.n), sizeof *set);
	bits_t *out = xcalloc(bits_words(h.n), sizeof *out);
	uint64_t cnt;

	/* B alone retains itself; B and C together also retain D and X */
	bit_set(set, N(S_B));
	ck_assert_uint_eq(analysis_retained_set(&h, set, NULL, &cnt, NULL), 24);
	ck_assert_uint_eq(cnt, 1);
	bit_set(set, N(S_C));
	ck_assert_uint_eq(analysis_retained_set(&h, set, out, &cnt, NULL), 24 + 24 + 144);
	ck_assert_uint_eq(cnt, 4);
	ck_assert(bit_get(out, N(S_D)) && bit_get(out, N(S_X)) && !bit_get(out, N(S_A)));
	/* one object: the same as its dominator-tree retained size */
	memset(set, 0, bits_words(h.n) * sizeof *set);
	bit_set(set, N(S_A));
	ck_assert_uint_eq(analysis_retained_set(&h, set, NULL, NULL, NULL), h.retained[N(S_A)]);
	free(set);
	free(out);
}
END_TEST

START_TEST(test_class_lower_bound)
{
	uint32_t node_cls = h.node_class[N(S_A)];
	uint64_t *lb = xcalloc(h.ncls, sizeof *lb);

	/* Node instances no other Node dominates: A 216, E 24, U 24, S 24 */
	ck_assert_uint_eq(h.cls[node_cls].retained_lb, 288);
	ck_assert_uint_eq(h.cls[node_cls].count, 7);
	ck_assert_uint_eq(h.cls[node_cls].shallow_total, 7 * 24);
	/* restricted to {B, C, D}: each is top within the set, none dominates
	 * another except nothing: B 24 + C 24 + D 144 */
	bits_t *set = xcalloc(bits_words(h.n), sizeof *set);
	bit_set(set, N(S_B));
	bit_set(set, N(S_C));
	bit_set(set, N(S_D));
	analysis_class_lb(&h, set, lb);
	ck_assert_uint_eq(lb[node_cls], 24 + 24 + 144);
	free(set);
	free(lb);
}
END_TEST

Suite *graph_suite(void)
{
	Suite *s = suite_create("graph");
	TCase *tc = tcase_create("sample");

	tcase_add_checked_fixture(tc, open_sample, close_sample);
	tcase_add_test(tc, test_nodes_sorted);
	tcase_add_test(tc, test_references);
	tcase_add_test(tc, test_roots_and_pseudo_roots);
	tcase_add_test(tc, test_sizes);
	tcase_add_test(tc, test_dominators_and_retained);
	tcase_add_test(tc, test_retained_set);
	tcase_add_test(tc, test_class_lower_bound);
	suite_add_tcase(s, tc);
	return s;
}
