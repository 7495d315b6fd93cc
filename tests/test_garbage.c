/* test_garbage.c — unreachable objects that refer into the live heap:
 * by default they keep nothing alive (dominators and retained sizes are
 * of what the GC roots reach), with keep_unreachable they count as
 * holders (pseudo roots, as before); the index cache never hands one
 * over for the other.
 *
 * A hand-made heap (hprofw.c), figures worked out by hand:
 *
 *   JNI global -> R;  R.a = L;  L.a = C, L.b = BA (byte[100]);
 *   G1.a = L, G1.b = G2;  G2.a = C  (G1, G2 unreachable: no root, no
 *   referrer but each other). Every class is a system-class root.
 *
 * Sizes (ids of 8 bytes, odd: the default layout, 12-byte header, 4-byte
 * references, align 8): Item 12 + 2 * 4 = 20 -> 24, byte[100] 120.
 *
 *   default: L <- R, C and BA <- L, G2 <- G1; retained C 24, BA 120,
 *            L 24 + 24 + 120 = 168, R 24 + 168 = 192, G1 48, G2 24.
 *   keep:    L has R and G1 for holders, C has L and G2: both <- root;
 *            retained L 24 + 120 = 144, R 24, C 24, G1 48, G2 24.
 *
 * And a real one: tests/java/Garbage runs out of memory with
 * -XX:+HeapDumpOnOutOfMemoryError, which dumps without a GC first, with
 * garbage referring into its live structure: its retained size and
 * dominator against a brute force here over what the roots reach. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/open.h"
#include "graph/analysis.h"
#include "hprofw.h"
#include "query/step.h"
#include "suites.h"
#include "term.h"

enum {
	IT = 0x301, FA = 0xb01, FB = 0xb03,
	R = 0x5001, L = 0x5003, C = 0x5005, BA = 0x5007, G1 = 0x5009, G2 = 0x500b,
};

static void item(struct hw *w, uint64_t id, uint64_t a, uint64_t b)
{
	const struct hw_field v[] = { { 0, T_OBJECT, a }, { 0, T_OBJECT, b } };

	hw_instance(w, id, IT, v, 2);
}

/* A dump of the JDK's classes and app.Item (fields a, b), every class a
 * system-class root: its heap begun in w. */
static void begin_items(struct hw *w)
{
	static const struct hw_field fields[] = { { FA, T_OBJECT, 0 }, { FB, T_OBJECT, 0 } };

	hw_begin(w, "JAVA PROFILE 1.0.2", 8);
	hw_jdk_names(w);
	hw_utf8(w, FA, "a");
	hw_utf8(w, FB, "b");
	hw_class_name(w, 10, IT, "app/Item");
	hw_heap_begin(w);
	hw_jdk_classes(w);
	hw_class_dump(w, IT, J_OBJECT, 0, NULL, 0, NULL, 0, fields, 2);
	hw_jdk_class_roots(w);
	hw_root(w, HW_ROOT_STICKY_CLASS, IT, 0, 0);
}

static char *write_garbage(void)
{
	struct hw w;

	begin_items(&w);
	hw_root(&w, 0x01, R, 0x9001, 0);
	item(&w, R, L, 0);
	item(&w, L, C, BA);
	item(&w, C, 0, 0);
	hw_primarray(&w, BA, T_BYTE, 100, NULL);
	item(&w, G1, L, G2);
	item(&w, G2, C, 0);
	hw_heap_end(&w);
	hw_dump_end(&w);
	char *path = hw_write(&w, "garbage.hprof", SIZE_MAX);
	hw_free(&w);
	return path;
}

static void open_heap(struct heap *h, const char *path, int keep, int cache)
{
	struct open_opts o = { .no_cache = !cache, .quiet = 1, .keep_unreachable = keep };
	struct sbuf err;

	sbuf_init(&err);
	ck_assert_msg(heap_open(h, path, &o, NULL, &err) == 0, "%s", err.buf);
	sbuf_free(&err);
	heap_need(h, HP_ALL, NULL);
}

static node_t N(const struct heap *h, uint64_t id)
{
	node_t v = heap_find_id(h, id);

	ck_assert_msg(v != HW_NONE, "no node for id 0x%llx", (unsigned long long)id);
	return v;
}

static uint64_t exact_of(const struct heap *h, node_t v)
{
	bits_t *set = xcalloc(bits_words(h->n), sizeof *set);

	bit_set(set, v);
	uint64_t b = analysis_retained_set(h, set, NULL, NULL, NULL);
	free(set);
	return b;
}

/* The figures of the top of the file, default (keep 0) or kept. */
static void check_hand(const struct heap *h, int keep)
{
	const char *how = keep ? "keep" : "default";
	struct { uint64_t id, idom, retained; } want[] = {
		{ R, 0, keep ? 24 : 192 },
		{ L, keep ? 0 : R, keep ? 144 : 168 },
		{ C, keep ? 0 : L, 24 },
		{ BA, L, 120 },
		{ G1, 0, 48 },
		{ G2, G1, 24 },
	};

	ck_assert_int_eq(h->keep_unreachable, keep);
	ck_assert_uint_eq(h->unreachable_count, 2);
	ck_assert_uint_eq(h->unreachable_bytes, 48);
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		node_t v = N(h, want[i].id), d = want[i].idom ? N(h, want[i].idom) : 0;
		ck_assert_msg(h->idom[v] == d, "%s: idom of 0x%llx is node %u, not %u", how,
			      (unsigned long long)want[i].id, h->idom[v], d);
		ck_assert_msg(h->retained[v] == want[i].retained, "%s: retained of 0x%llx is %llu, not %llu",
			      how, (unsigned long long)want[i].id, (unsigned long long)h->retained[v],
			      (unsigned long long)want[i].retained);
		/* the exact retained size of the one object: the same answer */
		ck_assert_uint_eq(exact_of(h, v), want[i].retained);
	}
}

START_TEST(test_hand_default)
{
	struct heap h;
	char *path = write_garbage();

	open_heap(&h, path, 0, 0);
	check_hand(&h, 0);
	heap_free(&h);
	free(path);
}
END_TEST

START_TEST(test_hand_keep)
{
	struct heap h;
	char *path = write_garbage();

	open_heap(&h, path, 1, 0);
	check_hand(&h, 1);
	heap_free(&h);
	free(path);
}
END_TEST

/* How many times needle is in s. */
static int count_in(const char *s, const char *needle)
{
	int n = 0;

	for (const char *p = strstr(s, needle); p != NULL; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* ---- what only a weak reference keeps ----
 *
 *   JNI global -> R;  R.a = L;  L.a = BA (byte[100]);
 *   JNI global -> W1, W2 (WeakReferences, 32 bytes each);
 *   W1.referent = S;  S.a = L, S.b = T;  W2.referent = T.
 *
 * S and T are only weakly reachable (a soft cache's values), L is held
 * by R strongly and by S. Figures by hand, as the retained size is
 * defined (what strong references from the GC roots no longer reach
 * once the object is gone): S's reference to L holds nothing, so L's
 * dominator is R, and R retains 24 + 24 + 120 = 168 (it was 24, L and
 * BA the virtual root's, with S for a second holder); T, a referent of
 * its own, has its own pseudo root: its dominator is the virtual root,
 * not S (S retains 24, not 48). */
enum { WR1 = 0x5101, WR2 = 0x5103, S = 0x5105, T = 0x5107 };

static char *write_weakly_held(void)
{
	struct hw w;

	begin_items(&w);
	hw_root(&w, 0x01, R, 0x9001, 0);
	hw_root(&w, 0x01, WR1, 0x9003, 0);
	hw_root(&w, 0x01, WR2, 0x9005, 0);
	item(&w, R, L, 0);
	item(&w, L, BA, 0);
	hw_primarray(&w, BA, T_BYTE, 100, NULL);
	hw_jdk_weakref(&w, WR1, S);
	hw_jdk_weakref(&w, WR2, T);
	item(&w, S, L, T);
	item(&w, T, 0, 0);
	hw_heap_end(&w);
	hw_dump_end(&w);
	char *path = hw_write(&w, "weakly-held.hprof", SIZE_MAX);
	hw_free(&w);
	return path;
}

START_TEST(test_hand_weakly_held)
{
	char *path = write_weakly_held();
	char *hwi = xasprintf("%s.hwi", path);
	struct heap h;
	struct { uint64_t id, idom, retained; } want[] = {
		{ R, 0, 168 }, { L, R, 144 }, { BA, L, 120 }, { S, 0, 24 }, { T, 0, 24 },
	};

	unlink(hwi);
	for (int cached = 0; cached < 2; cached++) {
		open_heap(&h, path, 0, 1);
		ck_assert_int_eq(h.from_cache, cached);
		ck_assert_uint_eq(h.weakonly_count, 2);
		for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
			node_t v = N(&h, want[i].id), d = want[i].idom ? N(&h, want[i].idom) : 0;
			ck_assert_msg(h.idom[v] == d, "idom of 0x%llx is node %u, not %u", (unsigned long long)want[i].id,
				      h.idom[v], d);
			ck_assert_msg(h.retained[v] == want[i].retained, "retained of 0x%llx is %llu, not %llu",
				      (unsigned long long)want[i].id, (unsigned long long)h.retained[v],
				      (unsigned long long)want[i].retained);
			ck_assert_uint_eq(exact_of(&h, v), want[i].retained); /* the exact one agrees */
		}
		/* S's reference to L is kept, among the weak ones, marked */
		node_t s = N(&h, S), l = N(&h, L);
		int kept = 0;
		for (uint64_t i = 0; i < h.nweak; i++)
			kept += h.weak_src[i] == s && h.weak_dst[i] == l && h.weak_rule[i] == WEAK_WEAKLY;
		ck_assert_int_eq(kept, 1);
		heap_free(&h);
	}
	/* a path to L runs from R's root; with -w, one through W1 and S too */
	char cmd[1024];
	int st;
	snprintf(cmd, sizeof cmd, "'%s' -q --no-cache paths '%s' 0x%x 2>&1", heapwalk(), path, L);
	char *out = run(cmd, &st);
	ck_assert_msg(st == 0 && strstr(out, "JNI global") && !strstr(out, "weakly reachable"), "%s", out);
	free(out);
	snprintf(cmd, sizeof cmd, "'%s' -q --no-cache -w paths '%s' 0x%x 2>&1", heapwalk(), path, L);
	out = run(cmd, &st);
	ck_assert_msg(st == 0 && strstr(out, "0x5101  java.lang.ref.WeakReference  referent") &&
		      strstr(out, "0x5105  app.Item"), "%s", out);
	/* each step no strong reference takes says why, as the Incoming
	 * view does: the referent by jdk.rules' rule (its line read here),
	 * S's strong reference set aside (S is held weakly alone); R's is
	 * strong and says nothing */
	FILE *rf = fopen(TEST_SRCDIR "/../rules/jdk.rules", "r");
	char line[512], said[640];
	unsigned ln = 0, at = 0;
	ck_assert(rf != NULL);
	while (at == 0 && fgets(line, sizeof line, rf) != NULL)
		if (++ln && strcmp(line, "weak java.lang.ref.Reference+ referent\n") == 0)
			at = ln;
	fclose(rf);
	ck_assert_uint_gt(at, 0);
	snprintf(said, sizeof said, "java.lang.ref.WeakReference  referent (weak: jdk.rules:%u)", at);
	ck_assert_msg(strstr(out, said) != NULL, "not '%s': %s", said, out);
	ck_assert_msg(strstr(out, "  app.Item  ") != NULL && strstr(out, "  a (from an object only weakly reachable)") != NULL,
		      "%s", out);
	ck_assert_int_eq(count_in(out, "(weak"), 1);
	ck_assert_int_eq(count_in(out, "(from an object only weakly reachable)"), 1);
	free(out);
	/* merged-in of L: R's reference, and S's as a weak holder's (S is
	 * held no better than weakly) */
	snprintf(cmd, sizeof cmd, "'%s' -q --no-cache merged-in -e 'object 0x%x' '%s' 2>&1", heapwalk(), L, path);
	out = run(cmd, &st);
	ck_assert_msg(st == 0 && strstr(out, "\napp.Item (weak)        1") && strstr(out, "\nweak_holders: 1"), "%s", out);
	free(out);
	/* the leak suspects' holders of accumulated arrays (each held by two
	 * Items, a GC root each): the strong ones, and a weakly reachable
	 * object's strong reference apart, not left out (nor counted as
	 * strong) */
	{
		struct hw w2;
		begin_items(&w2);
		hw_root(&w2, 0x01, WR1, 0x9003, 0);
		hw_jdk_weakref(&w2, WR1, S);
		item(&w2, S, 0x70000, 0);
		for (uint64_t i = 0; i < 200; i++) {
			hw_root(&w2, 0x01, 0x60000 + 16 * i, 0x9100 + 2 * i, 0);
			item(&w2, 0x60000 + 16 * i, 0x70000 + 16 * i, 0x70000 + 16 * ((i + 1) % 200));
			hw_primarray(&w2, 0x70000 + 16 * i, T_BYTE, 1000, NULL);
		}
		hw_heap_end(&w2);
		hw_dump_end(&w2);
		char *acc = hw_write(&w2, "weakly-held-accum.hprof", SIZE_MAX);
		hw_free(&w2);
		snprintf(cmd, sizeof cmd, "'%s' -q --no-cache inspect '%s' leak-suspects 2>&1", heapwalk(), acc);
		out = run(cmd, &st);
		ck_assert_msg(st == 0 && strstr(out, "accumulated in instances of [B: 200 instances") &&
			      strstr(out, "held by 200 strong holders (200 app.Item.") &&
			      strstr(out, "), 1 weakly reachable (1 app.Item.a)"), "%s", out);
		free(out);
		free(acc);
	}
	/* the dump's weak references are its two referents: S's set aside
	 * are counted among the strong ones, as the dump has them */
	snprintf(cmd, sizeof cmd, "'%s' -q --no-cache info '%s' 2>&1", heapwalk(), path);
	out = run(cmd, &st);
	const char *wr = strstr(out, "\nweak_references:");
	ck_assert_msg(st == 0 && wr != NULL && strtol(wr + 17, NULL, 10) == 2, "%s", out);
	free(out);
	unlink(hwi);
	free(hwi);
	free(path);
}
END_TEST

/* Through the index cache, in turns: each open answers as asked, never
 * as the cache was written. */
START_TEST(test_hand_cache)
{
	struct heap h;
	char *path = write_garbage();
	char *hwi = xasprintf("%s.hwi", path);
	const int turns[] = { 0, 0, 1, 1, 0, 1 };
	struct stat st;

	unlink(hwi);
	for (size_t i = 0; i < sizeof turns / sizeof turns[0]; i++) {
		open_heap(&h, path, turns[i], 1);
		ck_assert_msg(i == 0 || h.from_cache, "turn %zu: not from the cache", i);
		check_hand(&h, turns[i]);
		heap_free(&h);
		ck_assert_msg(stat(hwi, &st) == 0, "no index cache %s", hwi);
	}
	unlink(hwi);
	free(hwi);
	free(path);
}
END_TEST

/* The browser: Z in the classes view shows the unreachable objects
 * alone (G1, G2: two Items, 48 bytes), Z again the live ones (R, L, C),
 * a third time every object; L's
 * referrers list G1's reference, said to be garbage's. */
START_TEST(test_hand_browser)
{
	struct term t;
	char *path = write_garbage();
	char args[600];

	snprintf(args, sizeof args, "--no-cache %s", path);
	term_start(&t, 120, 30, "", args);
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, "Z");
	char *s = wait_for(&t, "Step 1: All objects (unreachable)");
	has(s, "they retain no live object");
	has(s, "2 objects");
	has(s, "app.Item");
	lacks(s, "  [B  ");
	free(s);
	keys(&t, "Z");
	s = wait_for(&t, "Step 1: All objects (live)");
	has(s, "only the objects the GC roots reach");
	has(s, "  [B  ");
	has(s, "|  12 objects,"); /* 14 less G1 and G2 */
	char *line = line_of(s, "app.Item"), *row = squeeze(line);
	/* R, L, C: 3 of the 12 */
	ck_assert_msg(strncmp(row, "app.Item325.0%", 14) == 0, "live Items: %s", line);
	free(row);
	free(line);
	free(s);
	keys(&t, "Z");
	s = wait_for(&t, "every object again");
	has(s, "  [B  ");
	free(s);
	keys(&t, "Tab Tab Tab"); /* Biggest, Outgoing, Incoming */
	free(wait_for(&t, "object / referrer .field"));
	keys(&t, "/");
	type(&t, "^app.Item 0x5003");
	keys(&t, "Enter +");
	s = wait_for(&t, "from an unreachable object");
	has(s, "app.Item 0x5009");
	free(s);
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
	free(path);
}
END_TEST

/* ---- the real dump ---- */

static const char *oom_dump(void)
{
	static char path[512];
	char cmd[2048];
	struct stat d, s;

	snprintf(path, sizeof path, TEST_BUILDDIR "/dumps/garbage-oom.hprof");
	if (stat(path, &d) == 0 && stat(TEST_SRCDIR "/java/Garbage.java", &s) == 0 && d.st_mtime >= s.st_mtime)
		return path;
	ck_assert_msg(getenv("JAVA") && *getenv("JAVA"), "JAVA is not set: the JDK is a test dependency");
	const char *javac = getenv("JAVAC") && *getenv("JAVAC") ? getenv("JAVAC") : "javac";
	/* -Xmn above what the program allocates: no GC before the dump */
	snprintf(cmd, sizeof cmd,
		 "mkdir -p " TEST_BUILDDIR "/dumps/classes && rm -f %s && "
		 "%s -d " TEST_BUILDDIR "/dumps/classes " TEST_SRCDIR "/java/Garbage.java && "
		 "%s -Xmx64m -Xmn32m -XX:+UseSerialGC -XX:+HeapDumpOnOutOfMemoryError -XX:HeapDumpPath=%s "
		 "-cp " TEST_BUILDDIR "/dumps/classes Garbage >/dev/null 2>&1; test -s %s",
		 path, javac, getenv("JAVA"), path, path);
	ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
	return path;
}

/* The strong references as the dump has them: out[] and the ones the
 * analyses moved aside (garbage's into the live heap), by source. */
struct refs {
	edge_t *start;
	node_t *to;
};

static void refs_make(const struct heap *h, struct refs *r)
{
	r->start = xcalloc((size_t)h->n + 1, sizeof *r->start);
	for (node_t v = 1; v < h->n; v++)
		r->start[v + 1] = h->out_start[v + 1] - h->out_start[v];
	for (uint64_t i = 0; i < h->nweak; i++)
		if (weak_moved(h, i))
			r->start[h->weak_src[i] + 1]++;
	for (node_t v = 0; v < h->n; v++)
		r->start[v + 1] += r->start[v];
	edge_t *at = xmalloc(((size_t)h->n + 1) * sizeof *at);
	memcpy(at, r->start, ((size_t)h->n + 1) * sizeof *at);
	r->to = xmalloc(((size_t)r->start[h->n] + 1) * sizeof *r->to);
	for (node_t v = 1; v < h->n; v++)
		for (edge_t j = h->out_start[v]; j < h->out_start[v + 1]; j++)
			r->to[at[v]++] = h->out[j];
	for (uint64_t i = 0; i < h->nweak; i++)
		if (weak_moved(h, i))
			r->to[at[h->weak_src[i]]++] = h->weak_dst[i];
	free(at);
}

/* Marks from the root records of kinds `kinds` says (0: the dump's own,
 * 1: and the weakly reachable pseudo ones, 2: and the unreachable ones)
 * over the strong references, and with weak over the weak ones too, not
 * entering skip; restricted to `within` (NULL: all). */
static bits_t *mark(const struct heap *h, const struct refs *r, int kinds, int weak, node_t skip,
		    const bits_t *within)
{
	bits_t *seen = xcalloc(bits_words(h->n), sizeof *seen);
	node_t *stack = xmalloc(((size_t)h->n + 1) * sizeof *stack);
	size_t sp = 0;

	for (size_t i = 0; i < h->nroot_rec; i++) {
		unsigned k = h->root_rec[i].kind;
		node_t v = h->root_rec[i].node;
		if ((k == RK_WEAK_ONLY && kinds < 1) || (k == RK_UNREACHABLE && kinds < 2))
			continue;
		if (v != skip && !bit_get(seen, v)) {
			bit_set(seen, v);
			stack[sp++] = v;
		}
	}
	while (sp > 0) {
		node_t u = stack[--sp];
		for (edge_t j = r->start[u]; j < r->start[u + 1]; j++) {
			node_t t = r->to[j];
			if (t != skip && !bit_get(seen, t) && (within == NULL || bit_get(within, t))) {
				bit_set(seen, t);
				stack[sp++] = t;
			}
		}
		for (uint64_t i = heap_weak_first(h, u); weak && i < h->nweak && h->weak_src[i] == u; i++)
			if (!weak_moved(h, i) && !weak_left_out(h, i) && !bit_get(seen, h->weak_dst[i])) {
				bit_set(seen, h->weak_dst[i]);
				stack[sp++] = h->weak_dst[i];
			}
	}
	free(stack);
	return seen;
}

/* Bytes that `all` has and without x the roots reach no more. */
static uint64_t brute_retained(const struct heap *h, const struct refs *r, int kinds, const bits_t *all,
			       const bits_t *within, node_t x)
{
	bits_t *still = mark(h, r, kinds, 0, x, within);
	uint64_t b = 0;

	for (node_t v = 1; v < h->n; v++)
		if (bit_get(all, v) && !bit_get(still, v))
			b += h->node_shallow[v];
	free(still);
	return b;
}

/* Every object, through the one step `text`. */
static struct objset step_set(struct heap *h, const char *text)
{
	struct pipeline pl;
	struct objset set;
	struct sbuf err;

	sbuf_init(&err);
	ck_assert_msg(pipeline_parse(text, &pl, &err) == 0, "%s: %s", text, err.buf);
	objset_all(h, &set);
	ck_assert_msg(step_apply(h, &pl.steps[0], &set, NULL, &err) == 0, "%s: %s", text, err.buf);
	pipeline_free(&pl);
	sbuf_free(&err);
	return set;
}

/* The one instance of class `name`. */
static node_t instance_of(const struct heap *h, const char *name)
{
	node_t found = HW_NONE;

	for (node_t v = 1; v < h->n; v++)
		if (h->node_kind[v] != NK_CLASS && h->node_class[v] != HW_NONE &&
		    strcmp(class_name(h, h->node_class[v]), name) == 0) {
			ck_assert_msg(found == HW_NONE, "two instances of %s", name);
			found = v;
		}
	ck_assert_msg(found != HW_NONE, "no instance of %s", name);
	return found;
}

static uint64_t count_of(const struct heap *h, const char *name, const bits_t *in)
{
	uint64_t n = 0;

	for (node_t v = 1; v < h->n; v++)
		if (h->node_kind[v] != NK_CLASS && strcmp(class_name(h, h->node_class[v]), name) == 0 &&
		    (in == NULL || bit_get(in, v)))
			n++;
	return n;
}

START_TEST(test_oom_dump)
{
	struct heap h, k;
	struct refs r;

	open_heap(&h, oom_dump(), 0, 0);
	refs_make(&h, &r);
	/* alive: what the dump's GC roots reach, weak references too; the
	 * weakly reachable pseudo roots then stand for those */
	bits_t *live = mark(&h, &r, 0, 1, HW_NONE, NULL);
	/* every Holder was dropped before the error: all 300 garbage */
	ck_assert_uint_eq(count_of(&h, "Garbage$Holder", NULL), 300);
	ck_assert_uint_eq(count_of(&h, "Garbage$Holder", live), 0);
	uint64_t dead = 0, dead_bytes = 0;
	for (node_t v = 1; v < h.n; v++)
		if (!bit_get(live, v)) {
			dead++;
			dead_bytes += h.node_shallow[v];
		}
	ck_assert_uint_eq(h.unreachable_count, dead);
	ck_assert_uint_eq(h.unreachable_bytes, dead_bytes);
	/* the steps live and unreachable: the brute force's two halves */
	for (int want_live = 0; want_live <= 1; want_live++) {
		struct objset set = step_set(&h, want_live ? "live" : "unreachable");
		ck_assert_uint_eq(set.count, (want_live ? h.n - 1 - dead : dead));
		for (node_t v = 1; v < h.n; v++)
			ck_assert_msg(bit_get(set.bits, v) == (bit_get(live, v) == want_live),
				      "step %s: node %u", want_live ? "live" : "unreachable", v);
		objset_free(&set);
	}

	node_t lv = instance_of(&h, "Garbage$Live");
	uint64_t want = brute_retained(&h, &r, 1, live, live, lv);
	/* Live holds 200 Nodes with their byte[100..299], the Node[200] and
	 * a long[500]: at least those bytes */
	ck_assert_uint_ge(want, 200 * (16 + 100) + 16 + 500 * 8);
	ck_assert_uint_eq(h.retained[lv], want);
	ck_assert_uint_eq(exact_of(&h, lv), want);
	/* its dominator: the class Garbage (static field `live`) */
	node_t d = h.idom[lv];
	ck_assert_msg(d != 0 && h.node_kind[d] == NK_CLASS, "Live's dominator is node %u", d);
	bits_t *without = mark(&h, &r, 1, 0, d, live);
	ck_assert(!bit_get(without, lv)); /* d dominates it */
	free(without);
	/* every Node: dominated by Live's chain, retained over live objects */
	for (node_t v = 1; v < h.n; v++)
		if (h.node_kind[v] != NK_CLASS && strcmp(class_name(&h, h.node_class[v]), "Garbage$Node") == 0 &&
		    v % 17 == 0)
			ck_assert_uint_eq(h.retained[v], brute_retained(&h, &r, 1, live, live, v));

	/* kept: garbage counts as a holder: what Live retains shrinks, and
	 * is the brute force with the unreachable pseudo roots as roots */
	open_heap(&k, oom_dump(), 1, 0);
	struct refs rk;
	refs_make(&k, &rk);
	bits_t *all = mark(&k, &rk, 2, 0, HW_NONE, NULL);
	node_t lk = instance_of(&k, "Garbage$Live");
	uint64_t kept = brute_retained(&k, &rk, 2, all, NULL, lk);
	ck_assert_uint_eq(k.retained[lk], kept);
	ck_assert_msg(kept < want, "kept %llu, default %llu", (unsigned long long)kept, (unsigned long long)want);
	ck_assert_uint_eq(k.idom[lk], 0); /* a holder among the garbage and the class: the root */
	free(all);
	free(rk.start);
	free(rk.to);
	heap_free(&k);

	free(live);
	free(r.start);
	free(r.to);
	heap_free(&h);
}
END_TEST

/* The same output from a parse and from the index cache, either way, in
 * turns (the cache written by one way, then read by the other): a copy of
 * the dump, so that its cache is this test's own. */
START_TEST(test_oom_cache_output)
{
	const char *views[] = { "info", "biggest -d 4 -n 30", "classes -s retained -n 40",
				"classes -e unreachable -n 40", "objects -e 'instances Garbage$Live' -n 0" };
	char copy[512], cmd[2048];
	int st;

	snprintf(copy, sizeof copy, "%s/garbage-oom-copy.hprof", hw_tmpdir());
	snprintf(cmd, sizeof cmd, "cp '%s' '%s' && rm -f '%s.hwi'", oom_dump(), copy, copy);
	ck_assert_int_eq(system(cmd), 0);
	for (int keep = 0; keep < 2; keep++)
		for (size_t i = 0; i < sizeof views / sizeof views[0]; i++) {
			const char *k = keep ? "--keep-unreachable" : "";
			snprintf(cmd, sizeof cmd, "'%s' -q --no-cache %s %s '%s' | grep -v '^dump:'", heapwalk(), k, views[i], copy);
			char *fresh = run(cmd, &st);
			ck_assert_int_eq(st, 0);
			snprintf(cmd, sizeof cmd, "'%s' -q %s %s '%s' | grep -v '^dump:'", heapwalk(), k, views[i], copy);
			char *first = run(cmd, &st), *again = run(cmd, &st);
			ck_assert_msg(strcmp(fresh, first) == 0, "%s %s: parse\n%s\nfirst cached open\n%s", k, views[i],
				      fresh, first);
			ck_assert_msg(strcmp(fresh, again) == 0, "%s %s: parse\n%s\nfrom the cache\n%s", k, views[i],
				      fresh, again);
			free(fresh);
			free(first);
			free(again);
		}
	unlink(copy);
	snprintf(cmd, sizeof cmd, "%s.hwi", copy);
	unlink(cmd);
}
END_TEST

Suite *garbage_suite(void)
{
	Suite *s = suite_create("garbage");
	TCase *tc = tcase_create("hand");
	tcase_set_timeout(tc, HANG_TIMEOUT); /* the browser's: wait_for says what never came */

	tcase_add_test(tc, test_hand_default);
	tcase_add_test(tc, test_hand_keep);
	tcase_add_test(tc, test_hand_cache);
	tcase_add_test(tc, test_hand_browser);
	tcase_add_test(tc, test_hand_weakly_held);
	suite_add_tcase(s, tc);
	tc = tcase_create("oom");
	tcase_set_timeout(tc, FIXTURE_TIMEOUT);
	tcase_add_test(tc, test_oom_dump);
	tcase_add_test(tc, test_oom_cache_output);
	suite_add_tcase(s, tc);
	return s;
}
