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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/analysis.h"
#include "engine/open.h"
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

/* out[] and in[] agree: in[] is out[] reversed plus the virtual root as
 * the predecessor of every root object; node 0 has no out-edges of its
 * own (roots[] are its successors) and no predecessors. */
static void check_csr(void)
{
	edge_t *indeg = xcalloc((size_t)h.n + 1, sizeof *indeg);
	uint64_t total = 0;

	ck_assert_uint_eq(h.out_start[0], 0);
	ck_assert_uint_eq(h.out_start[1], 0);
	ck_assert_uint_eq(h.in_start[0], 0);
	ck_assert_uint_eq(h.in_start[1], 0);
	for (node_t v = 1; v < h.n; v++) {
		ck_assert(h.out_start[v] <= h.out_start[v + 1]);
		ck_assert(h.in_start[v] <= h.in_start[v + 1]);
		for (edge_t j = h.out_start[v]; j < h.out_start[v + 1]; j++) {
			node_t t = h.out[j];
			ck_assert(t > 0 && t < h.n);
			ck_assert_msg(has_edge(h.in, h.in_start[t], h.in_start[t + 1], v),
				      "edge %u -> %u not in in[]", v, t);
			indeg[t]++;
			total++;
		}
	}
	ck_assert_uint_eq(total, h.nedges);
	ck_assert_uint_eq(h.out_start[h.n], h.nedges);
	for (size_t i = 0; i < h.nroots; i++) {
		node_t r = h.roots[i];
		ck_assert(r > 0 && r < h.n);
		ck_assert(i == 0 || h.roots[i - 1] < r); /* sorted, unique */
		ck_assert(has_edge(h.in, h.in_start[r], h.in_start[r + 1], 0));
		indeg[r]++;
	}
	for (node_t v = 1; v < h.n; v++) /* the same multiset: counts match */
		ck_assert_msg(h.in_start[v + 1] - h.in_start[v] == indeg[v],
			      "node %u: %u predecessors in in[], %u edges", v,
			      h.in_start[v + 1] - h.in_start[v], indeg[v]);
	ck_assert_uint_eq(h.in_start[h.n], h.nedges + h.nroots);
	free(indeg);
}

START_TEST(test_references)
{
	ck_assert(out_edge(N(S_A), N(S_B)));
	ck_assert(out_edge(N(S_A), N(S_C)));
	ck_assert(out_edge(N(S_D), N(S_X)));
	ck_assert(out_edge(N(S_A), class_node(S_NODE)));        /* <class> */
	ck_assert(out_edge(class_node(S_HOLDER), N(S_S)));      /* static field */
	ck_assert(out_edge(class_node(S_NODE), class_node(S_OBJ))); /* <super> */
	ck_assert(!out_edge(N(S_W), N(S_E)));                   /* referent: weak */
	/* unreachable U's references into the live heap (U.next = A, and
	 * U's class Node, a root) are moved aside: they keep nothing alive;
	 * so is weakly reachable E's to its class: it holds nothing the
	 * roots hold */
	ck_assert(!out_edge(N(S_U), N(S_A)));
	ck_assert(!out_edge(N(S_U), class_node(S_NODE)));
	ck_assert(!out_edge(N(S_E), class_node(S_NODE)));
	ck_assert_uint_eq(h.nweak, 4);
	for (uint64_t i = 0; i < h.nweak; i++) {
		int referent = h.weak_src[i] == N(S_W) && h.weak_dst[i] == N(S_E);
		int garbage = h.weak_src[i] == N(S_U) && (h.weak_dst[i] == N(S_A) || h.weak_dst[i] == class_node(S_NODE));
		int weakly = h.weak_src[i] == N(S_E) && h.weak_dst[i] == class_node(S_NODE);
		ck_assert_msg(referent || garbage || weakly, "weak reference %u -> %u", h.weak_src[i], h.weak_dst[i]);
		ck_assert_uint_eq(h.weak_rule[i], referent ? WEAK_BUILTIN : garbage ? WEAK_GARBAGE : WEAK_WEAKLY);
		ck_assert(i == 0 || h.weak_src[i - 1] < h.weak_src[i] ||
			  (h.weak_src[i - 1] == h.weak_src[i] && h.weak_dst[i - 1] < h.weak_dst[i]));
	}
	check_csr();
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
	ck_assert(root_kind_of(N(S_A), RK_GLOBAL_HANDLE));
	ck_assert(root_kind_of(N(S_W), RK_UNKNOWN));
	ck_assert(root_kind_of(class_node(S_NODE), RK_STATICS));
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

	/* B alone retains itself, C alone too (D has the other); B and C
	 * together also retain their shared child D, and X under it */
	bit_set(set, N(S_C));
	ck_assert_uint_eq(analysis_retained_set(&h, set, out, &cnt, NULL), 24);
	ck_assert_uint_eq(cnt, 1);
	ck_assert(bit_get(out, N(S_C)) && !bit_get(out, N(S_D)));
	memset(set, 0, bits_words(h.n) * sizeof *set);
	memset(out, 0, bits_words(h.n) * sizeof *out);
	bit_set(set, N(S_B));
	ck_assert_uint_eq(analysis_retained_set(&h, set, out, &cnt, NULL), 24);
	ck_assert_uint_eq(cnt, 1);
	ck_assert(bit_get(out, N(S_B)) && !bit_get(out, N(S_D)));
	memset(out, 0, bits_words(h.n) * sizeof *out);
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

/* ---- a second graph, on the JDK-like classes (hprofw.h) ----
 *
 *   roots: JNI global R1, L (a ClassLoader); Java frame R2; every class.
 *   R1.a = ARR (Object[3] {S1, P, WR2}), R1.b = P
 *   R2.a = P, R2.b = WR (WeakReference, referent T)
 *   P.a = Q;  Q.a = R, Q.b = S2;  R.a = P (a cycle back to P)
 *   S1.value = BA1, S2.value = BA1 (Strings sharing one byte[5])
 *   WR2 (WeakReference, referent S1: strongly reachable anyway)
 *   T.a = BA3 (byte[100]): T and BA3 are reachable only through WR
 *   Z3.a = Z4: unreachable, Z3 with no predecessor;
 *   Z5.a = Z6, Z6.a = Z5: an unreachable cycle
 *   class Item (loaded by L): static CACHE = M
 * P, Q, R, R1, R2, T, Z3..Z6, M are Items (fields a, b).
 *
 * Sizes (ids of 8 bytes, odd: no addresses, so the default 64-bit layout
 * with compressed oops: 12-byte header, 4-byte references, align 8):
 *   Item          12 + 2 * 4 = 20 -> 24
 *   String        12 + value 4 + hash 4 + coder 1 + hashIsZero 1 = 22 -> 24
 *   WeakReference 12 + 4 * 4 (referent, queue, next, discovered) = 28 -> 32
 *   Object[3]     16 + 3 * 4 = 28 -> 32
 *   byte[5]       16 + 5 = 21 -> 24;  byte[100]  16 + 100 = 116 -> 120
 * Dominators: R1, R2, P (four ways in: R1, R2, ARR, R), BA1 (via S1 under
 * R1 and via S2 under P), T (weak-only pseudo root), Z3 and Z5 (unreachable
 * pseudo roots) <- root; ARR <- R1; S1, WR2 <- ARR; Q <- P; R, S2 <- Q;
 * WR <- R2; BA3 <- T; Z4 <- Z3; Z6 <- Z5; M <- class Item.
 * Retained:
 *   R 24, S2 24, Q 24 + 24 + 24 = 72, P 24 + 72 = 96
 *   S1 24, WR2 32, ARR 32 + 24 + 32 = 88, R1 24 + 88 = 112
 *   WR 32, R2 24 + 32 = 56, BA1 24, BA3 120, T 24 + 120 = 144
 *   Z4 24, Z3 48, Z6 24, Z5 48, M 24 */
enum {
	IT = 0x301, FA = 0xb01, FB = 0xb03, FCACHE = 0xb05,
	R1 = 0x5001, R2 = 0x5003, P = 0x5005, Q = 0x5007, R = 0x5009, ARR = 0x500b,
	S1 = 0x500d, S2 = 0x500f, BA1 = 0x5011, WR = 0x5013, T = 0x5015, BA3 = 0x5017,
	Z3 = 0x5019, Z4 = 0x501b, Z5 = 0x501d, Z6 = 0x501f, M = 0x5021, L = 0x5023,
	WR2 = 0x5025,
};

static void item(struct hw *w, uint64_t id, uint64_t a, uint64_t b)
{
	const struct hw_field v[] = { { 0, T_OBJECT, a }, { 0, T_OBJECT, b } };

	hw_instance(w, id, IT, v, 2);
}

static void write_jdk_graph(struct hw *w)
{
	static const struct hw_field fields[] = { { FA, T_OBJECT, 0 }, { FB, T_OBJECT, 0 } };
	static const struct hw_field statics[] = { { FCACHE, T_OBJECT, M } };
	static const uint64_t classes[] = { J_OBJECT, J_CLASS, J_STRING, J_REFERENCE, J_WEAKREF,
					    J_LOADER, J_OBJARR, IT };
	const uint64_t elems[] = { S1, P, WR2 };

	hw_begin(w, "JAVA PROFILE 1.0.2", 8);
	hw_jdk_names(w);
	hw_utf8(w, FA, "a");
	hw_utf8(w, FB, "b");
	hw_utf8(w, FCACHE, "CACHE");
	hw_class_name(w, 10, IT, "app/Item");
	hw_heap_begin(w);
	hw_jdk_classes(w);
	hw_class_dump(w, IT, J_OBJECT, L, NULL, 0, statics, 1, fields, 2);
	for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
		hw_root(w, 0x05, classes[i], 0, 0);
	hw_root(w, 0x01, R1, 0x9001, 0);
	hw_root(w, 0x01, L, 0x9003, 0);
	hw_root(w, 0x03, R2, 1, 0);
	hw_heap_end(w);
	hw_heap_begin(w); /* objects in a second segment, not in id order */
	item(w, P, Q, 0);
	item(w, R1, ARR, P);
	item(w, R2, P, WR);
	hw_objarray(w, ARR, J_OBJARR, elems, 3);
	item(w, Q, R, S2);
	item(w, R, P, 0);
	hw_jdk_string(w, S1, BA1);
	hw_jdk_string(w, S2, BA1);
	hw_primarray(w, BA1, T_BYTE, 5, "hello");
	hw_jdk_weakref(w, WR, T);
	hw_jdk_weakref(w, WR2, S1);
	item(w, T, BA3, 0);
	hw_primarray(w, BA3, T_BYTE, 100, NULL);
	item(w, Z6, Z5, 0);
	item(w, Z5, Z6, 0);
	item(w, Z3, Z4, 0);
	item(w, Z4, 0, 0);
	item(w, M, 0, 0);
	hw_jdk_loader(w, L, 0);
	hw_heap_end(w);
	hw_dump_end(w);
}

static void open_jdk(void)
{
	struct hw w;
	struct open_opts o = { .no_cache = 1, .quiet = 1 };
	struct progress p;
	struct sbuf err;

	write_jdk_graph(&w);
	char *path = hw_write(&w, "jdkgraph.hprof", SIZE_MAX);
	progress_init(&p, 1);
	sbuf_init(&err);
	ck_assert_msg(heap_open(&h, path, &o, &p, &err) == 0, "%s", err.buf);
	heap_need(&h, HP_ALL, &p);
	for (size_t i = 0; i < h.warn.n; i++)
		fprintf(stderr, "  warning: %s\n", h.warn.msg[i]);
	sbuf_free(&err);
	free(path);
	hw_free(&w);
}

START_TEST(test_jdk_nodes)
{
	ck_assert_uint_eq(h.warn.n, 0);
	ck_assert_uint_eq(h.n, 1 + 8 + 19); /* root, 8 classes, 19 objects */
	ck_assert_uint_eq(heap_node_id(&h, 0), 0);
	ck_assert_uint_eq(h.node_kind[0], NK_ROOT);
	for (node_t v = 2; v < h.n; v++)
		ck_assert(heap_node_id(&h, v) > heap_node_id(&h, v - 1));
	/* written out of order, found by id */
	ck_assert_uint_eq(heap_node_id(&h, N(P)), P);
	ck_assert_uint_eq(heap_node_id(&h, N(R1)), R1);
	ck_assert(N(R1) < N(P) && N(P) < N(Q));
	ck_assert_uint_eq(h.node_kind[N(ARR)], NK_OBJARRAY);
	ck_assert_uint_eq(h.node_kind[N(BA1)], NK_PRIMARRAY);
	ck_assert_uint_eq(h.node_kind[N(S1)], NK_INSTANCE);
	ck_assert_uint_eq(h.node_kind[N(IT)], NK_CLASS);
	ck_assert_str_eq(class_name(&h, h.node_class[N(P)]), "app.Item");
	ck_assert_str_eq(class_name(&h, h.node_class[N(S1)]), "java.lang.String");
	ck_assert_str_eq(class_name(&h, h.node_class[N(IT)]), "java.lang.Class");
	ck_assert(heap_find_id(&h, 0x5002) == HW_NONE);
	ck_assert(heap_find_id(&h, 0x9999) == HW_NONE);
}
END_TEST

START_TEST(test_jdk_references)
{
	ck_assert(out_edge(N(R1), N(ARR)));
	ck_assert(out_edge(N(R1), N(P)));
	ck_assert(out_edge(N(ARR), N(S1)));
	ck_assert(out_edge(N(ARR), N(P)));
	ck_assert(out_edge(N(ARR), N(WR2)));
	ck_assert(out_edge(N(ARR), N(J_OBJARR)));     /* <class> */
	ck_assert(out_edge(N(R), N(P)));
	ck_assert(out_edge(N(S1), N(BA1)));
	ck_assert(out_edge(N(S2), N(BA1)));
	ck_assert(out_edge(N(T), N(BA3)));
	ck_assert(out_edge(N(Z6), N(Z5)));
	ck_assert(out_edge(N(IT), N(M)));              /* static CACHE */
	ck_assert(out_edge(N(IT), N(L)));              /* <loader> */
	ck_assert(out_edge(N(IT), N(J_OBJECT)));       /* <super> */
	ck_assert(out_edge(N(P), N(IT)));              /* <class> */
	/* referents are weak: not in out[], in weak_src/weak_dst by source */
	ck_assert(!out_edge(N(WR), N(T)));
	ck_assert(!out_edge(N(WR2), N(S1)));
	/* and the unreachable Items' references to their class (live: a
	 * root) are moved aside, as is weakly reachable T's; by source: WR,
	 * T, Z3..Z6, WR2 (id order) */
	ck_assert_uint_eq(h.nweak, 2 + 1 + 4);
	ck_assert_uint_eq(h.weak_src[0], N(WR));
	ck_assert_uint_eq(h.weak_dst[0], N(T));
	ck_assert_uint_eq(h.weak_rule[0], WEAK_BUILTIN);
	ck_assert_uint_eq(h.weak_src[1], N(T));
	ck_assert_uint_eq(h.weak_dst[1], N(IT));
	ck_assert_uint_eq(h.weak_rule[1], WEAK_WEAKLY);
	ck_assert(!out_edge(N(T), N(IT)));
	ck_assert(out_edge(N(T), N(BA3))); /* weakly reachable too: kept */
	ck_assert_uint_eq(h.weak_src[6], N(WR2));
	ck_assert_uint_eq(h.weak_dst[6], N(S1));
	const uint64_t z[] = { Z3, Z4, Z5, Z6 };
	for (int i = 0; i < 4; i++) {
		ck_assert_uint_eq(h.weak_src[2 + i], N(z[i]));
		ck_assert_uint_eq(h.weak_dst[2 + i], N(IT));
		ck_assert_uint_eq(h.weak_rule[2 + i], WEAK_GARBAGE);
		ck_assert(!out_edge(N(z[i]), N(IT)));
	}
	check_csr();
}
END_TEST

START_TEST(test_jdk_roots)
{
	ck_assert(root_kind_of(N(R1), RK_GLOBAL_HANDLE));
	ck_assert(root_kind_of(N(R2), RK_STACK));
	ck_assert(root_kind_of(N(IT), RK_STATICS));
	/* T (and BA3 under it) only through WR's referent */
	ck_assert(root_kind_of(N(T), RK_WEAK_ONLY));
	ck_assert(!root_kind_of(N(BA3), RK_WEAK_ONLY));
	ck_assert(!root_kind_of(N(S1), RK_WEAK_ONLY)); /* WR2's referent, held strongly */
	ck_assert_uint_eq(h.weakonly_count, 2);
	ck_assert_uint_eq(h.weakonly_bytes, 24 + 120);
	/* Z3 has no predecessor; of the cycle Z5 <-> Z6 the lower index */
	ck_assert(root_kind_of(N(Z3), RK_UNREACHABLE));
	ck_assert(root_kind_of(N(Z5), RK_UNREACHABLE));
	ck_assert(!root_kind_of(N(Z4), RK_UNREACHABLE));
	ck_assert(!root_kind_of(N(Z6), RK_UNREACHABLE));
	ck_assert(!root_kind_of(N(P), RK_UNREACHABLE));
	ck_assert_uint_eq(h.unreachable_count, 4);
	ck_assert_uint_eq(h.unreachable_bytes, 4 * 24);
	/* the virtual root's successors: 8 classes, R1, L, R2, T, Z3, Z5 */
	ck_assert_uint_eq(h.nroots, 8 + 3 + 1 + 2);
}
END_TEST

START_TEST(test_jdk_sizes)
{
	ck_assert_int_eq(h.layout.detected, 0);
	ck_assert_uint_eq(h.layout.header, 12);
	ck_assert_uint_eq(h.layout.ref_size, 4);
	ck_assert_uint_eq(h.node_shallow[N(P)], 24);
	ck_assert_uint_eq(h.node_shallow[N(S1)], 24);
	ck_assert_uint_eq(h.node_shallow[N(WR)], 32);
	ck_assert_uint_eq(h.node_shallow[N(ARR)], 32);
	ck_assert_uint_eq(h.node_shallow[N(BA1)], 24);
	ck_assert_uint_eq(h.node_shallow[N(BA3)], 120);
}
END_TEST

START_TEST(test_jdk_dominators)
{
	static const struct { uint64_t id, idom; uint64_t retained; } want[] = {
		{ R1, 0, 112 }, { R2, 0, 56 }, { P, 0, 96 }, { BA1, 0, 24 }, { T, 0, 144 },
		{ Z3, 0, 48 }, { Z5, 0, 48 }, { ARR, R1, 88 }, { S1, ARR, 24 }, { WR2, ARR, 32 },
		{ Q, P, 72 }, { R, Q, 24 }, { S2, Q, 24 }, { WR, R2, 32 }, { BA3, T, 120 },
		{ Z4, Z3, 24 }, { Z6, Z5, 24 }, { M, IT, 24 },
	};

	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		node_t v = N(want[i].id);
		node_t d = want[i].idom ? N(want[i].idom) : 0;
		ck_assert_msg(h.idom[v] == d, "idom(0x%llx) = node %u, want %u",
			      (unsigned long long)want[i].id, h.idom[v], d);
		ck_assert_msg(h.retained[v] == want[i].retained, "retained(0x%llx) = %llu, want %llu",
			      (unsigned long long)want[i].id, (unsigned long long)h.retained[v],
			      (unsigned long long)want[i].retained);
	}
	ck_assert_uint_eq(h.idom[0], 0);
	ck_assert_uint_eq(h.idom[N(IT)], 0);
	ck_assert_uint_eq(h.retained[0], h.total_shallow);
}
END_TEST

/* analysis_retained_set for a set given by ids; *out the retained set. */
static uint64_t retained_of(const uint64_t *ids, int n, bits_t *out, uint64_t *count)
{
	bits_t *set = xcalloc(bits_words(h.n), sizeof *set);

	if (out != NULL)
		memset(out, 0, bits_words(h.n) * sizeof *out);
	for (int i = 0; i < n; i++)
		bit_set(set, N(ids[i]));
	uint64_t b = analysis_retained_set(&h, set, out, count, NULL);
	free(set);
	return b;
}

START_TEST(test_jdk_retained_set)
{
	bits_t *out = xcalloc(bits_words(h.n), sizeof *out);
	uint64_t cnt;

	/* S1 and S2 share BA1: neither alone retains it, the pair does:
	 * 24 + 24 + 24 = 72 */
	const uint64_t s1[] = { S1 }, s2[] = { S2 }, pair[] = { S1, S2 };
	ck_assert_uint_eq(retained_of(s1, 1, out, &cnt), 24);
	ck_assert(!bit_get(out, N(BA1)));
	ck_assert_uint_eq(retained_of(s2, 1, out, &cnt), 24);
	ck_assert(!bit_get(out, N(BA1)));
	ck_assert_uint_eq(retained_of(pair, 2, out, &cnt), 72);
	ck_assert_uint_eq(cnt, 3);
	ck_assert(bit_get(out, N(BA1)) && bit_get(out, N(S1)) && bit_get(out, N(S2)));
	/* R1 and R2 share P (and through S1 and S2, BA1): alone 112 and 56,
	 * together also P's 96 and BA1's 24: 112 + 56 + 96 + 24 = 288, 11
	 * objects (R1 R2 ARR S1 WR2 WR P Q R S2 BA1); T stays (its pseudo
	 * root), Z3..Z6 too */
	const uint64_t r1[] = { R1 }, r2[] = { R2 }, rr[] = { R1, R2 };
	ck_assert_uint_eq(retained_of(r1, 1, out, &cnt), 112);
	ck_assert_uint_eq(cnt, 4);
	ck_assert(!bit_get(out, N(P)));
	ck_assert_uint_eq(retained_of(r2, 1, out, &cnt), 56);
	ck_assert_uint_eq(cnt, 2);
	ck_assert(!bit_get(out, N(P)));
	ck_assert_uint_eq(retained_of(rr, 2, out, &cnt), 288);
	ck_assert_uint_eq(cnt, 11);
	ck_assert(bit_get(out, N(P)) && bit_get(out, N(BA1)) && bit_get(out, N(WR)));
	ck_assert(!bit_get(out, N(T)) && !bit_get(out, N(BA3)) && !bit_get(out, N(M)));
	/* P and R: R alone is 24; with P the cycle goes: P's 96 */
	const uint64_t pr[] = { P, R };
	ck_assert_uint_eq(retained_of(pr, 2, NULL, NULL), 96);
	/* a single object: its dominator-tree retained size */
	const uint64_t q[] = { Q };
	ck_assert_uint_eq(retained_of(q, 1, NULL, &cnt), h.retained[N(Q)]);
	ck_assert_uint_eq(cnt, 3);
	free(out);
}
END_TEST

START_TEST(test_jdk_class_lb)
{
	uint32_t item_c = h.node_class[N(P)], str_c = h.node_class[N(S1)];
	uint32_t bytes_c = h.node_class[N(BA1)], weak_c = h.node_class[N(WR)];
	uint64_t *lb = xcalloc(h.ncls, sizeof *lb);
	bits_t *set = xcalloc(bits_words(h.n), sizeof *set);

	/* Items no other Item dominates: R1 112 + R2 56 + P 96 + T 144 +
	 * Z3 48 + Z5 48 + M 24 (its dominator is a class) = 528; Q, R, Z4
	 * and Z6 are inside one of those */
	ck_assert_uint_eq(h.cls[item_c].count, 11);
	ck_assert_uint_eq(h.cls[item_c].shallow_total, 11 * 24);
	ck_assert_uint_eq(h.cls[item_c].retained_lb, 528);
	ck_assert_uint_eq(h.cls[str_c].retained_lb, 24 + 24);
	/* byte[]: BA1 24 + BA3 120 (dominated by T, an Item: not a byte[]) */
	ck_assert_uint_eq(h.cls[bytes_c].count, 2);
	ck_assert_uint_eq(h.cls[bytes_c].retained_lb, 24 + 120);
	ck_assert_uint_eq(h.cls[weak_c].retained_lb, 32 + 32);
	/* all objects, asked for: the same figures */
	analysis_class_lb(&h, NULL, lb);
	ck_assert_uint_eq(lb[item_c], 528);
	ck_assert_uint_eq(lb[bytes_c], 144);
	/* within {Q, R, S2, BA1}: Q dominates R, so Items 72; S2 24; BA1 24 */
	bit_set(set, N(Q));
	bit_set(set, N(R));
	bit_set(set, N(S2));
	bit_set(set, N(BA1));
	memset(lb, 0, h.ncls * sizeof *lb);
	analysis_class_lb(&h, set, lb);
	ck_assert_uint_eq(lb[item_c], 72);
	ck_assert_uint_eq(lb[str_c], 24);
	ck_assert_uint_eq(lb[bytes_c], 24);
	ck_assert_uint_eq(lb[weak_c], 0);
	/* within {R, T, Z4}: none dominates another: 24 + 144 + 24 */
	memset(set, 0, bits_words(h.n) * sizeof *set);
	bit_set(set, N(R));
	bit_set(set, N(T));
	bit_set(set, N(Z4));
	analysis_class_lb(&h, set, lb);
	ck_assert_uint_eq(lb[item_c], 192);
	free(set);
	free(lb);
}
END_TEST

#define RND() (seed = seed * 6364136223846793005ull + 1442695040888963407ull, seed >> 33)

/* w's weak references sorted by source, then target. */
static void sort_weak(struct heap *w)
{
	for (uint64_t i = 1; i < w->nweak; i++)
		for (uint64_t j = i; j > 0 && (w->weak_src[j - 1] > w->weak_src[j] ||
			(w->weak_src[j - 1] == w->weak_src[j] && w->weak_dst[j - 1] > w->weak_dst[j])); j--) {
			node_t a = w->weak_src[j], b = w->weak_dst[j];
			w->weak_src[j] = w->weak_src[j - 1];
			w->weak_dst[j] = w->weak_dst[j - 1];
			w->weak_src[j - 1] = a;
			w->weak_dst[j - 1] = b;
		}
}

/* The test's own marking over out[] from v into seen. */
static uint64_t mark_brute(const struct heap *w, bits_t *seen, node_t v)
{
	node_t *stack = xmalloc(((size_t)w->n + 1) * sizeof *stack);
	size_t sp = 0;
	uint64_t count = 0;

	if (bit_get(seen, v)) {
		free(stack);
		return 0;
	}
	bit_set(seen, v);
	stack[sp++] = v;
	while (sp > 0) {
		node_t u = stack[--sp];
		count++;
		for (edge_t j = w->out_start[u]; j < w->out_start[u + 1]; j++)
			if (!bit_get(seen, w->out[j])) {
				bit_set(seen, w->out[j]);
				stack[sp++] = w->out[j];
			}
	}
	free(stack);
	return count;
}

/* The pseudo roots of objects only weakly reachable (analysis_roots) on
 * random heaps without a file, with chains of weak references many
 * links deep (a referent's own weak referents, and so on): exactly the
 * referents of the weak references from what the roots reach, strongly
 * or through such referents, that nothing strong reaches; and as many
 * objects weakly reachable as they mark. Against the test's own
 * fixpoint, one pass over every weak reference at a time. (All of them
 * weak made the analysis pass over all of them once for each link of
 * the deepest chain: 32 s on the coops dump.) */
START_TEST(test_weak_roots_brute)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	for (int round = 0; round < 300; round++) {
		struct heap w;
		memset(&w, 0, sizeof w);
		w.fd = -1;
		w.n = 3 + (node_t)(RND() % (round < 150 ? 30 : 2000));
		w.out_start = xmalloc(((size_t)w.n + 1) * sizeof *w.out_start);
		size_t cap = (size_t)w.n * 4 + 1, ne = 0;
		w.out = xmalloc(cap * sizeof *w.out);
		unsigned strong_pct = (unsigned)(RND() % 60);
		for (node_t v = 0; v < w.n; v++) {
			w.out_start[v] = (edge_t)ne;
			unsigned k = v == 0 || RND() % 100 >= strong_pct ? 0 : 1 + (unsigned)(RND() % 2);
			node_t t = 0;
			for (unsigned i = 0; i < k && ne < cap; i++) {
				t += 1 + (node_t)(RND() % (w.n / 3 + 1));
				if (t >= w.n)
					break;
				w.out[ne++] = t;
			}
		}
		w.out_start[w.n] = (edge_t)ne;
		w.nedges = ne;
		/* weak references: a chain through a run of nodes, and random ones */
		w.nweak = w.n / 2 + RND() % w.n;
		w.weak_src = xmalloc((w.nweak + 1) * sizeof *w.weak_src);
		w.weak_dst = xmalloc((w.nweak + 1) * sizeof *w.weak_dst);
		for (uint64_t i = 0; i < w.nweak; i++) { /* the chain down: one link a round after the first */
			int chain = i < w.nweak / 2;
			w.weak_src[i] = chain ? (node_t)(w.n - 1 - i % (w.n - 2)) : (node_t)(1 + RND() % (w.n - 1));
			w.weak_dst[i] = chain ? (node_t)(w.n - 2 - i % (w.n - 2)) : (node_t)(1 + RND() % (w.n - 1));
		}
		sort_weak(&w);
		if (round % 3 == 1) { /* some left out: never followed */
			w.weak_rule = xmalloc((w.nweak + 1) * sizeof *w.weak_rule);
			for (uint64_t i = 0; i < w.nweak; i++)
				w.weak_rule[i] = RND() % 4 == 0 ? WEAK_IGNORED : WEAK_BUILTIN;
		}
		w.node_shallow = xmalloc(((size_t)w.n + 1) * sizeof *w.node_shallow);
		for (node_t v = 0; v < w.n; v++)
			w.node_shallow[v] = 8 + v % 5;
		w.nroot_rec = 1 + RND() % 3;
		w.root_rec = xcalloc(w.nroot_rec, sizeof *w.root_rec);
		for (size_t i = 0; i < w.nroot_rec; i++)
			w.root_rec[i] = (struct root){ .node = (node_t)(1 + RND() % (w.n - 1)), .kind = RK_STACK };
		heap_roots_unique(&w);
		/* what should come out */
		size_t words = bits_words(w.n);
		bits_t *strong = xcalloc(words, sizeof *strong), *seen, *rooted = xcalloc(words, sizeof *rooted);
		for (size_t i = 0; i < w.nroot_rec; i++)
			mark_brute(&w, strong, w.root_rec[i].node);
		seen = xmalloc(words * sizeof *seen);
		memcpy(seen, strong, words * sizeof *seen);
		uint64_t marked = 0;
		for (int changed = 1; changed;) {
			changed = 0;
			for (uint64_t i = 0; i < w.nweak; i++)
				if (bit_get(seen, w.weak_src[i]) && !bit_get(strong, w.weak_dst[i]) &&
				    !bit_get(rooted, w.weak_dst[i]) && (w.weak_rule == NULL || w.weak_rule[i] != WEAK_IGNORED)) {
					bit_set(rooted, w.weak_dst[i]);
					marked += mark_brute(&w, seen, w.weak_dst[i]);
					changed = 1;
				}
		}
		analysis_roots(&w, NULL);
		bits_t *got = xcalloc(words, sizeof *got);
		for (size_t i = 0; i < w.nroot_rec; i++)
			if (w.root_rec[i].kind == RK_WEAK_ONLY) {
				ck_assert_msg(!bit_get(got, w.root_rec[i].node), "round %d: node %u a pseudo root twice",
					      round, w.root_rec[i].node);
				bit_set(got, w.root_rec[i].node);
			}
		for (node_t v = 0; v < w.n; v++)
			ck_assert_msg(bit_get(got, v) == bit_get(rooted, v), "round %d (%u nodes): node %u %s", round,
				      w.n, v, bit_get(rooted, v) ? "no pseudo root" : "a pseudo root it should not be");
		ck_assert_msg(w.weakonly_count == marked, "round %d: %llu weakly reachable, want %llu", round,
			      (unsigned long long)w.weakonly_count, (unsigned long long)marked);
		free(strong);
		free(seen);
		free(rooted);
		free(got);
		heap_free(&w);
	}
}
END_TEST

/* A random heap without a file for test_garbage_roots_same (the
 * same seed, the same heap): references, weak ones with every rule,
 * root records (some on the virtual root). */
static void random_heap(struct heap *w, uint64_t seed0)
{
	uint64_t seed = seed0;

	memset(w, 0, sizeof *w);
	w->fd = -1;
	w->n = 2 + (node_t)(RND() % (seed0 % 2 ? 30 : 600));
	w->out_start = xmalloc(((size_t)w->n + 1) * sizeof *w->out_start);
	size_t cap = (size_t)w->n * 4 + 1, ne = 0;
	w->out = xmalloc(cap * sizeof *w->out);
	unsigned strong_pct = (unsigned)(RND() % 70);
	for (node_t v = 0; v < w->n; v++) {
		w->out_start[v] = (edge_t)ne;
		unsigned k = v == 0 || RND() % 100 >= strong_pct ? 0 : 1 + (unsigned)(RND() % 3);
		node_t t = 0;
		for (unsigned i = 0; i < k && ne < cap; i++) {
			t += 1 + (node_t)(RND() % (w->n / 3 + 1));
			if (t >= w->n)
				break;
			w->out[ne++] = t;
		}
	}
	w->out_start[w->n] = (edge_t)ne;
	w->nedges = ne;
	w->nweak = RND() % (w->n + 1);
	w->weak_src = xmalloc((w->nweak + 1) * sizeof *w->weak_src);
	w->weak_dst = xmalloc((w->nweak + 1) * sizeof *w->weak_dst);
	for (uint64_t i = 0; i < w->nweak; i++) {
		w->weak_src[i] = (node_t)(1 + RND() % (w->n - 1));
		w->weak_dst[i] = (node_t)(1 + RND() % (w->n - 1));
	}
	sort_weak(w);
	if (RND() % 2) {
		static const uint16_t rules[] = { WEAK_IGNORED, WEAK_GARBAGE, WEAK_WEAKLY, WEAK_OUTSIDE, WEAK_BUILTIN,
						  WEAK_BUILTIN, WEAK_BUILTIN, WEAK_BUILTIN };
		w->weak_rule = xmalloc((w->nweak + 1) * sizeof *w->weak_rule);
		for (uint64_t i = 0; i < w->nweak; i++)
			w->weak_rule[i] = rules[RND() % 8];
	}
	w->node_shallow = xmalloc(((size_t)w->n + 1) * sizeof *w->node_shallow);
	for (node_t v = 0; v < w->n; v++)
		w->node_shallow[v] = 8 + v % 5;
	w->nroot_rec = 1 + RND() % 4;
	w->root_rec = xcalloc(w->nroot_rec, sizeof *w->root_rec);
	for (size_t i = 0; i < w->nroot_rec; i++)
		w->root_rec[i] = (struct root){ .node = (node_t)(RND() % 5 == 0 ? 0 : 1 + RND() % (w->n - 1)),
						.kind = (uint8_t)(RND() % 2 ? RK_STACK : RK_VM_INTERNAL) };
	heap_roots_unique(w);
}

/* The open's garbage cut and roots in one (analysis_garbage_roots, the
 * roots' first marking taken from the cut's marking over the strong
 * references) against the two apart (analysis_roots marking afresh),
 * on random heaps with weak references of every rule and garbage: the
 * same root records, roots, counts and bytes, references moved and
 * kept. */
START_TEST(test_garbage_roots_same)
{
	for (uint64_t round = 1; round < 3000; round++) {
		struct heap a, b;
		random_heap(&a, round * 7919);
		random_heap(&b, round * 7919);
		analysis_garbage_roots(&a, NULL);
		analysis_cut_garbage(&b, NULL);
		analysis_roots(&b, NULL);
		ck_assert_msg(a.nroot_rec == b.nroot_rec, "round %llu: %zu root records, apart %zu",
			      (unsigned long long)round, a.nroot_rec, b.nroot_rec);
		ck_assert(memcmp(a.root_rec, b.root_rec, a.nroot_rec * sizeof *a.root_rec) == 0);
		ck_assert(a.nroots == b.nroots && memcmp(a.roots, b.roots, a.nroots * sizeof *a.roots) == 0);
		ck_assert_msg(a.weakonly_count == b.weakonly_count && a.unreachable_count == b.unreachable_count &&
			      a.weakonly_bytes == b.weakonly_bytes && a.unreachable_bytes == b.unreachable_bytes &&
			      a.garbage_refs == b.garbage_refs, "round %llu: the counts", (unsigned long long)round);
		ck_assert(a.nedges == b.nedges && a.nweak == b.nweak);
		ck_assert(memcmp(a.out, b.out, a.nedges * sizeof *a.out) == 0);
		heap_free(&a);
		heap_free(&b);
	}
}
END_TEST

/* Reference (v, t) against the border of in, from a source from holds
 * (NULL: any): moved aside? The test's own reading of analysis.h. */
static int moves(const bits_t *in, const bits_t *from, node_t v, node_t t)
{
	return v != 0 && bit_get(in, v) != bit_get(in, t) && (from == NULL || bit_get(from, v));
}

/* analysis_weaken_across on random heaps without a file (some nodes with
 * no references, some with many, repeated targets, weak references
 * there already), random borders and sources (none, a few, most, all,
 * all outside the border with the bits past the nodes; and NULL): out[] afterwards holds exactly the references that do not
 * move, in their order, with their starts; the weak ones are those
 * before and the moved ones, sorted by source then target, the moved
 * with the rule given; the count returned is the moved ones'. Against
 * the test's own pass over every reference. */
START_TEST(test_weaken_across_brute)
{
	uint64_t seed = 0x2545f4914f6cdd1dull;
	for (int round = 0; round < 400; round++) {
		struct heap w;
		memset(&w, 0, sizeof w);
		w.n = 1 + (node_t)(RND() % (round < 200 ? 40 : 3000));
		w.out_start = xmalloc(((size_t)w.n + 1) * sizeof *w.out_start);
		size_t cap = (size_t)w.n * 8 + 1, ne = 0;
		w.out = xmalloc(cap * sizeof *w.out);
		for (node_t v = 0; v < w.n; v++) {
			w.out_start[v] = (edge_t)ne;
			unsigned k = v == 0 ? 0 : (unsigned)(RND() % 4 == 0 ? RND() % 9 : RND() % 2);
			node_t t = 0;
			for (unsigned i = 0; i < k && ne < cap; i++) { /* ascending, some twice */
				t += (node_t)(RND() % 3 == 0 ? 0 : RND() % (w.n / 4 + 2));
				if (t >= w.n)
					break;
				w.out[ne++] = t;
			}
		}
		w.out_start[w.n] = (edge_t)ne;
		w.nedges = ne;
		w.nweak = w.n > 1 ? RND() % 4 : 0;
		w.weak_src = xmalloc((w.nweak + 1) * sizeof *w.weak_src);
		w.weak_dst = xmalloc((w.nweak + 1) * sizeof *w.weak_dst);
		for (uint64_t i = 0; i < w.nweak; i++) {
			w.weak_src[i] = (node_t)(1 + (i * w.n) / 4 % (w.n > 1 ? w.n - 1 : 1));
			w.weak_dst[i] = (node_t)(RND() % w.n);
		}
		sort_weak(&w);
		size_t words = bits_words(w.n);
		bits_t *in = xcalloc(words, sizeof *in), *from = xcalloc(words, sizeof *from);
		unsigned in_pct = (unsigned)(RND() % 101), shape = round % 6;
		for (node_t v = 0; v < w.n; v++) {
			if (RND() % 100 < in_pct)
				bit_set(in, v);
			if (shape == 1 ? RND() % 50 == 0 : shape == 2 ? RND() % 5 != 0 : shape == 3)
				bit_set(from, v);
		}
		if (shape == 5) /* outside in, as garbage is: bits past the nodes too */
			for (size_t i = 0; i < words; i++)
				from[i] = ~in[i];
		const bits_t *fp = shape == 4 ? NULL : from;
		/* what should come out */
		node_t *want = xmalloc(cap * sizeof *want), *ws = xmalloc((w.nweak + cap + 1) * sizeof *ws),
		       *wd = xmalloc((w.nweak + cap + 1) * sizeof *wd);
		uint16_t *wr = xmalloc((w.nweak + cap + 1) * sizeof *wr);
		edge_t *wstart = xmalloc(((size_t)w.n + 1) * sizeof *wstart);
		size_t nw = 0, nk = 0, nmv = 0;
		for (uint64_t i = 0; i < w.nweak; i++, nw++) {
			ws[nw] = w.weak_src[i];
			wd[nw] = w.weak_dst[i];
			wr[nw] = WEAK_BUILTIN;
		}
		for (node_t v = 0; v < w.n; v++) {
			wstart[v] = (edge_t)nk;
			for (edge_t j = w.out_start[v]; j < w.out_start[v + 1]; j++)
				if (moves(in, fp, v, w.out[j])) {
					ws[nw] = v;
					wd[nw] = w.out[j];
					wr[nw++] = 7;
					nmv++;
				} else {
					want[nk++] = w.out[j];
				}
		}
		wstart[w.n] = (edge_t)nk;
		for (size_t i = 1; i < nw; i++) /* stable: the weak ones before equal moved ones */
			for (size_t j = i; j > 0 && (ws[j - 1] > ws[j] || (ws[j - 1] == ws[j] && wd[j - 1] > wd[j])); j--) {
				node_t a = ws[j], b = wd[j];
				uint16_t r = wr[j];
				ws[j] = ws[j - 1];
				wd[j] = wd[j - 1];
				wr[j] = wr[j - 1];
				ws[j - 1] = a;
				wd[j - 1] = b;
				wr[j - 1] = r;
			}
		uint64_t got = analysis_weaken_across(&w, in, fp, 7);
		ck_assert_msg(got == nmv, "round %d: %llu moved, want %zu", round, (unsigned long long)got, nmv);
		ck_assert_uint_eq(w.nedges, nk);
		ck_assert_msg(memcmp(w.out_start, wstart, ((size_t)w.n + 1) * sizeof *wstart) == 0, "round %d: starts",
			      round);
		ck_assert_msg(nk == 0 || memcmp(w.out, want, nk * sizeof *want) == 0, "round %d: out[]", round);
		ck_assert_uint_eq(w.nweak, nw);
		for (size_t i = 0; i < nw; i++)
			ck_assert_msg(w.weak_src[i] == ws[i] && w.weak_dst[i] == wd[i] &&
					      (w.weak_rule != NULL ? w.weak_rule[i] : WEAK_BUILTIN) == wr[i],
				      "round %d: weak %zu", round, i);
		free(want);
		free(ws);
		free(wd);
		free(wr);
		free(wstart);
		free(in);
		free(from);
		free(w.out_start);
		free(w.out);
		free(w.weak_src);
		free(w.weak_dst);
		free(w.weak_rule);
	}
#undef RND
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

	tc = tcase_create("weaken");
	tcase_add_test(tc, test_weaken_across_brute);
	tcase_add_test(tc, test_weak_roots_brute);
	tcase_add_test(tc, test_garbage_roots_same);
	suite_add_tcase(s, tc);

	tc = tcase_create("jdk");
	tcase_add_checked_fixture(tc, open_jdk, close_sample);
	tcase_add_test(tc, test_jdk_nodes);
	tcase_add_test(tc, test_jdk_references);
	tcase_add_test(tc, test_jdk_roots);
	tcase_add_test(tc, test_jdk_sizes);
	tcase_add_test(tc, test_jdk_dominators);
	tcase_add_test(tc, test_jdk_retained_set);
	tcase_add_test(tc, test_jdk_class_lb);
	suite_add_tcase(s, tc);
	return s;
}
