/* test_step.c — selection steps and views: the text form round-trips,
 * errors name the column, each step gives the set worked out by hand on
 * the sample heap (see test_graph.c for its picture), the views give the
 * rows worked out by hand, and the reports escape what the dump says.
 *
 * The sample heap, in short: JNI global -> A; A.next = B, A.other = C;
 * B.next = D; C.next = D; D.next = X (byte[100], 120 bytes); unknown
 * root -> W, a WeakReference to E; U.next = A, nothing refers to U;
 * class Holder's static so = S. Nodes are 24 bytes, W 32.
 * Dominators: B, C, D <- A; X <- D; S <- class Holder; A, W, E (weakly
 * reachable), U (unreachable) and the classes <- the root.
 * Retained: A 216, D 144, X 120, class Holder 88 + 24 = 112. */
#include <stdlib.h>
#include <string.h>

#include "engine/open.h"
#include "graph/reader.h"
#include "hprofw.h"
#include "query/cmd.h"
#include "query/report.h"
#include "query/step.h"
#include "query/views.h"
#include "suites.h"

/* ---- parsing ---- */

static char *reprint(const char *expr)
{
	struct pipeline pl;
	struct sbuf err, out;

	sbuf_init(&err);
	sbuf_init(&out);
	ck_assert_msg(pipeline_parse(expr, &pl, &err) == 0, "%s: %s", expr, err.buf);
	pipeline_to_string(&pl, &out);
	pipeline_free(&pl);
	sbuf_free(&err);
	return sbuf_detach(&out);
}

START_TEST(test_round_trip)
{
	static const char *exprs[] = {
		"instances java.util.HashMap | retained | classes",
		"instances /^java\\.util\\..*Map$/ | referrers weak | dominated",
		"instances /a\\/b/",
		"instances /a\\\\\\/b/",  /* a pattern with a backslash before a slash */
		"object 0x7f00 | referents | biggest",
		"all | retained",
		"instanceof java.util.AbstractMap | referents weak | objects",
		"instances [Ljava.lang.String; | info",
		"object 4107 | paths",
		"instances /a|b/ | referrers",  /* '|' inside a regex is the regex's */
		"instances //",
		"all | top | instances Node | class-objects",
		"instances java.util.HashMap | elements | elements keys | elements values | loaded",
		"inspection boxed-primitives group 3 | inspection boxed-primitives group 1,4,12",
		"loader 0x7f00 | loader 0 | root 0x7f00 | ignore 0x7f00 next | unignore 0x7f00 [3] | root gc",
		/* names in quotes, as they must be written back */
		"instances 'Foo [app.dll]' | retained",
		"instances 'a|b' | instanceof 'X | retained'",
		"instances 'it\\'s \\\\ here' | instances ''",
		"instances '\"quoted\"' | instances '/not a regex/'",
		/* frames take the step's rest, blanks and all: no quotes */
		"site A.b(A.java:1) <- C.d(C.java:2) | calls A.b() -> C.d()",
	};
	for (size_t i = 0; i < sizeof exprs / sizeof exprs[0]; i++) {
		char *got = reprint(exprs[i]);
		ck_assert_str_eq(got, exprs[i]);
		char *again = reprint(got); /* and the text form parses to the same */
		ck_assert_str_eq(again, exprs[i]);
		free(got);
		free(again);
	}
}
END_TEST

/* Other spellings print in the canonical form. */
START_TEST(test_canonical)
{
	static const struct { const char *in, *out; } v[] = {
		{ "  instances   X|retained  ", "instances X | retained" },
		{ "referrers --weak|referents\tweak", "referrers weak | referents weak" },
		{ "referrers weakly", NULL }, /* not the word weak: an error, below */
		{ "classes", "classes" },
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		if (v[i].out == NULL)
			continue;
		char *got = reprint(v[i].in);
		ck_assert_str_eq(got, v[i].out);
		free(got);
	}
	/* a step made by hand (as the TUI will) prints with its slash escaped */
	struct step s = { .op = ST_INSTANCES, .arg = "java/lang/.*", .regex = 1 };
	struct sbuf out;
	sbuf_init(&out);
	step_to_string(&s, &out);
	ck_assert_str_eq(out.buf, "instances /java\\/lang\\/.*/");
	sbuf_free(&out);
}
END_TEST

START_TEST(test_parse_errors)
{
	static const struct { const char *expr, *want; int rc; } bad[] = {
		{ "instances X | frobnicate", "column 15: unknown step 'frobnicate'", STEP_ESYNTAX },
		{ "instances", "column 10: 'instances' needs a class name or /regex/", STEP_ESYNTAX },
		{ "instances /abc", "column 11: unclosed /regex/", STEP_ESYNTAX },
		{ "classes | retained", "column 1: the view 'classes' must come last", STEP_ESYNTAX },
		{ "retained retained", "column 10: expected '|'", STEP_ESYNTAX },
		{ "referrers weakly", "column 11: expected '|'", STEP_ESYNTAX },
		{ "", "column 1: expected a step", STEP_ESYNTAX },
		{ "retained |", "column 11: expected a step", STEP_ESYNTAX },
		{ "retained || all", "column 11: expected a step", STEP_ESYNTAX },
		{ "/x/", "column 1: expected a step", STEP_ESYNTAX },
		{ "object /x/", "column 8: 'object' needs an object id (0x... hex or decimal, @ before it or not), not '/x/'",
		  STEP_ESYNTAX },
		{ "object 12ab", "column 8: 'object' needs an object id (0x... hex or decimal, @ before it or not), not '12ab'",
		  STEP_ESYNTAX },
		{ "object", "column 7: 'object' needs an object id", STEP_ESYNTAX },
		{ "bogus\x1b", "column 1: unknown step 'bogus\\x1b'", STEP_ESYNTAX },
		/* the regex's error column counts in the expression: "(unclosed"
		 * is missing its ')' at its end, the closing slash, column 21 */
		{ "instances /(unclosed/", "column 21: bad regex: missing closing parenthesis", STEP_EREGEX },
		/* 'a', an escaped slash (two columns), '(' and then the end at 16 */
		{ "instances /a\\/(/", "column 16: bad regex: missing closing parenthesis", STEP_EREGEX },
		{ "all | instanceof /x{2,1}/",
		  "column 24: bad regex: numbers out of order in {} quantifier", STEP_EREGEX },
		{ "instances 'Foo [app.dll] | all", "column 11: unclosed quote", STEP_ESYNTAX },
		{ "instances \"Foo\\\" | all", "column 11: unclosed quote", STEP_ESYNTAX }, /* \" is no end */
		{ "instances", "column 10: 'instances' needs a class name or /regex/", STEP_ESYNTAX },
		{ "object ''", "column 8: 'object' needs an object id", STEP_ESYNTAX },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct pipeline pl;
		struct sbuf err;
		sbuf_init(&err);
		ck_assert_int_eq(pipeline_parse(bad[i].expr, &pl, &err), bad[i].rc);
		ck_assert_str_eq(err.buf, bad[i].want);
		pipeline_free(&pl);
		sbuf_free(&err);
	}
}
END_TEST

START_TEST(test_object_ids)
{
	uint64_t id;

	ck_assert_int_eq(parse_object_id("0x1f", &id), 0);
	ck_assert_uint_eq(id, 0x1f);
	ck_assert_int_eq(parse_object_id("0X1F", &id), 0);
	ck_assert_uint_eq(id, 0x1f);
	ck_assert_int_eq(parse_object_id("4107", &id), 0);
	ck_assert_uint_eq(id, 4107);
	ck_assert_int_eq(parse_object_id("0755", &id), 0); /* decimal, never octal */
	ck_assert_uint_eq(id, 755);
	ck_assert_int_eq(parse_object_id("0", &id), 0);
	ck_assert_uint_eq(id, 0);
	ck_assert_int_eq(parse_object_id("-1", &id), -1);
	ck_assert_int_eq(parse_object_id(" 1", &id), -1);
	ck_assert_int_eq(parse_object_id("0x", &id), -1);
	ck_assert_int_eq(parse_object_id("1x", &id), -1);
	ck_assert_int_eq(parse_object_id("99999999999999999999999", &id), -1);
	/* an @ before the id, as DevTools writes a V8 object's (@301) and
	 * heapwalk's labels (@0x12d); one, then an id as above */
	ck_assert_int_eq(parse_object_id("@301", &id), 0);
	ck_assert_uint_eq(id, 301);
	ck_assert_int_eq(parse_object_id("@0755", &id), 0);
	ck_assert_uint_eq(id, 755);
	ck_assert_int_eq(parse_object_id("@0x1f", &id), 0);
	ck_assert_uint_eq(id, 0x1f);
	ck_assert_int_eq(parse_object_id("@", &id), -1);
	ck_assert_int_eq(parse_object_id("@67f", &id), -1);
	ck_assert_int_eq(parse_object_id("@-1", &id), -1);
	ck_assert_int_eq(parse_object_id("@ 1", &id), -1);
	ck_assert_int_eq(parse_object_id("@@1", &id), -1);
	ck_assert_int_eq(parse_object_id("@99999999999999999999999", &id), -1);
}
END_TEST

/* ---- evaluation on the sample heap ---- */

static struct heap h;

static void open_sample(void) { hw_open_sample(&h, "step.hprof"); }

static void close_sample(void) { heap_free(&h); }

static node_t N(uint64_t id)
{
	node_t v = heap_find_id(&h, id);

	ck_assert_msg(v != HW_NONE, "no node 0x%llx", (unsigned long long)id);
	return v;
}

/* Run the steps of expr on start (NULL: all objects); the members' ids,
 * ascending, as text, or the error. */
static char *eval_from(const char *expr, struct objset *start, int *rc)
{
	struct pipeline pl;
	struct objset set;
	struct sbuf err, out;

	sbuf_init(&err);
	sbuf_init(&out);
	ck_assert_msg(pipeline_parse(expr, &pl, &err) == 0, "%s", err.buf);
	if (start != NULL)
		set = *start;
	else
		objset_all(&h, &set);
	*rc = 0;
	for (size_t i = 0; i < pl.n && *rc == 0; i++)
		*rc = step_apply(&h, &pl.steps[i], &set, NULL, &err);
	if (*rc != 0) {
		sbuf_adds(&out, err.buf);
	} else {
		uint64_t count = 0, shallow = 0;
		for (node_t v = 1; v < h.n; v++)
			if (bit_get(set.bits, v)) {
				sbuf_printf(&out, "%s%llx", out.len ? " " : "", (unsigned long long)heap_node_id(&h, v));
				count++;
				shallow += h.node_shallow[v];
			}
		ck_assert_uint_eq(set.count, count);
		ck_assert_uint_eq(set.shallow, shallow);
		ck_assert(!bit_get(set.bits, 0));
	}
	objset_free(&set);
	pipeline_free(&pl);
	sbuf_free(&err);
	return sbuf_detach(&out);
}

static char *eval(const char *expr, int *rc) { return eval_from(expr, NULL, rc); }

#define EXPECT(expr, want) do { \
	int rc_; \
	char *got_ = eval(expr, &rc_); \
	ck_assert_msg(rc_ == 0, "%s: %s", expr, got_); \
	ck_assert_msg(strcmp(got_, want) == 0, "%s: got %s, want %s", expr, got_, want); \
	free(got_); \
} while (0)

START_TEST(test_steps)
{
	/* Node instances: A B C D E U S */
	EXPECT("instances Node", "1001 1003 1005 1007 100d 100f 1011");
	/* the regex matches Reference and WeakReference; only W is an instance */
	EXPECT("instances /^java\\.lang\\.ref\\./", "100b");
	/* exact names: [B, or as Java writes it */
	EXPECT("instances [B", "1009");
	EXPECT("instances byte[]", "1009");
	/* a name in quotes, blanks its own (a class "Foo [app.dll]",
	 * "system / Context"): the same class; '|' too (below) */
	EXPECT("instances 'Node'", "1001 1003 1005 1007 100d 100f 1011");
	EXPECT("instances \"[B\"", "1009");
	/* W is a WeakReference, a subclass of Reference, which has none itself */
	EXPECT("instances java.lang.ref.Reference", "");
	EXPECT("instanceof java.lang.ref.Reference", "100b");
	EXPECT("instanceof /Reference$/", "100b");
	/* every instance and array; class objects are java.lang.Class's */
	EXPECT("instanceof java.lang.Object", "1001 1003 1005 1007 1009 100b 100d 100f 1011");
	/* B and C together retain D and X */
	EXPECT("object 0x1003 | referrers", "1001");
	EXPECT("object 0x1007 | referrers", "1003 1005");
	/* A's referrers: U; the virtual root is never a member */
	EXPECT("object 0x1001 | referrers", "100f");
	/* A refers to B, C and its class */
	EXPECT("object 0x1001 | referents", "21 1003 1005");
	EXPECT("object 0x1001 | referents | instances Node", "1003 1005");
	/* E is only a weak referent of W */
	EXPECT("object 0x100d | referrers", "");
	EXPECT("object 0x100d | referrers weak", "100b");
	EXPECT("object 0x100b | referents", "41");
	EXPECT("object 0x100b | referents weak", "41 100d");
	EXPECT("object 0x1001 | dominated", "1003 1005 1007");
	EXPECT("object 0x61 | dominated", "1011");
	/* children of Node instances: B C D (of A) and X (of D) */
	EXPECT("instances Node | dominated", "1003 1005 1007 1009");
	EXPECT("object 0x1001 | retained", "1001 1003 1005 1007 1009");
	/* U keeps nothing but itself: A has a root of its own */
	EXPECT("object 0x100f | retained", "100f");
	/* without the Nodes, X goes too; W stays */
	EXPECT("instances Node | retained", "1001 1003 1005 1007 1009 100d 100f 1011");
	EXPECT("instances Node | instances /^N/ | object 4107", "100b"); /* decimal id */
	EXPECT("object 0x1009 | all | instances [B", "1009");
	/* top: members no other member dominates (A dominates B, C, D; D X) */
	EXPECT("object 0x1001,0x1003,0x1007,0x1009 | top", "1001");
	EXPECT("object 0x1003,0x1005,0x1007 | top", "1003 1005 1007"); /* D's idom is A */
	EXPECT("object 0x1007,0x1009,0x100b | top", "1007 100b");
	EXPECT("instances Node | top", "1001 100d 100f 1011");
	/* the class objects of the members' classes: Node 0x21, the
	 * WeakReference class 0x41, byte[]'s 0x51 */
	EXPECT("object 0x1001,0x1003 | class-objects", "21");
	EXPECT("object 0x1001,0x100b | class-objects", "21 41");
	EXPECT("object 0x1009 | class-objects", "51");
	/* no collections, no loaders in the sample: nothing */
	EXPECT("all | elements", "");
	EXPECT("all | loaded", "");
}
END_TEST

/* A set without bits (the whole heap, as the CLI starts) gets them. */
START_TEST(test_whole_set)
{
	struct objset whole;
	int rc;

	objset_whole(&h, &whole);
	ck_assert_uint_eq(whole.count, h.n - 1);
	char *got = eval_from("instances Node | dominated", &whole, &rc);
	ck_assert_int_eq(rc, 0);
	ck_assert_str_eq(got, "1003 1005 1007 1009");
	free(got);
	struct objset all;
	objset_all(&h, &all); /* its count and bytes are what a recount says */
	uint64_t c = all.count, s = all.shallow;
	objset_recount(&h, &all);
	ck_assert_uint_eq(all.count, c);
	ck_assert_uint_eq(all.shallow, s);
	ck_assert_uint_eq(all.shallow, h.total_shallow);
	objset_free(&all);
}
END_TEST

START_TEST(test_step_errors)
{
	static const struct { const char *expr, *want; } bad[] = {
		{ "object 0x999", "no object with id 0x999 in the dump" },
		{ "object 0", "no object with id 0 in the dump" }, /* the virtual root is none */
		{ "instances Zilch", "no class named 'Zilch'" },
		{ "instances 'No de'", "no class named 'No de': did you mean Node?" }, /* the blank its own */
		{ "instances 'Node|B'", "no class named 'Node|B': did you mean Node?" }, /* '|' too: no second step */
		{ "instances Nope", "no class named 'Nope': did you mean Node?" },
		{ "instanceof /^Nope/", "no class matches /^Nope/" },
		/* a name an edit or two from a class's: the nearest named */
		{ "instances node", "no class named 'node': did you mean Node?" },
		{ "instances java.lang.ref.Referense", "no class named 'java.lang.ref.Referense': did you mean java.lang.ref.Reference?" },
		{ "instances java.lang.ref.Refrnc", "no class named 'java.lang.ref.Refrnc'" }, /* three */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int rc;
		char *got = eval(bad[i].expr, &rc);
		ck_assert_int_eq(rc, -1);
		ck_assert_str_eq(got, bad[i].want);
		free(got);
	}
	/* a hand-made step with a bad regex (the parser catches them first) */
	struct step s = { .op = ST_INSTANCES, .arg = "(", .regex = 1 };
	struct objset set;
	struct sbuf err;
	objset_all(&h, &set);
	sbuf_init(&err);
	ck_assert_int_eq(step_apply(&h, &s, &set, NULL, &err), -1);
	ck_assert_str_eq(err.buf, "regex /(/: column 2: missing closing parenthesis");
	ck_assert_uint_eq(set.count, h.n - 1); /* a failed step leaves the set alone */
	objset_free(&set);
	sbuf_free(&err);
}
END_TEST

/* ---- views ---- */

static struct objset set_of(const char *expr)
{
	struct pipeline pl;
	struct objset set;
	struct sbuf err;

	sbuf_init(&err);
	ck_assert_msg(pipeline_parse(expr, &pl, &err) == 0, "%s", err.buf);
	objset_all(&h, &set);
	for (size_t i = 0; i < pl.n; i++)
		ck_assert_msg(step_apply(&h, &pl.steps[i], &set, NULL, &err) == 0, "%s", err.buf);
	pipeline_free(&pl);
	sbuf_free(&err);
	return set;
}

static char *classes_report(const char *expr, struct view_opts *o, enum fmt f)
{
	struct objset set;
	struct class_view v;
	struct sbuf err, out;

	if (expr != NULL)
		set = set_of(expr);
	else
		objset_whole(&h, &set);
	sbuf_init(&err);
	sbuf_init(&out);
	ck_assert_msg(view_classes(&h, &set, o, &v, &err) == 0, "%s", err.buf);
	report_classes(&h, &v, f, &out);
	class_view_free(&v);
	objset_free(&set);
	sbuf_free(&err);
	return sbuf_detach(&out);
}

/* Nodes: 7 of 24 bytes; no other Node dominates A (216), E, U and S (24
 * each): 288. Exactly, the Nodes retain themselves and X: 168 + 120. */
START_TEST(test_classes_view)
{
	struct view_opts o = { .filter = "^(Node|\\[.)$" };
	char *got;

	got = classes_report(NULL, &o, FMT_CSV);
	ck_assert_str_eq(got, "class,instances,shallow,retained_lb\nNode,7,168,288\n[B,1,120,120\n");
	free(got);
	o.reverse = 1; /* the whole order round, ties too */
	got = classes_report(NULL, &o, FMT_CSV);
	ck_assert_str_eq(got, "class,instances,shallow,retained_lb\n[B,1,120,120\nNode,7,168,288\n");
	free(got);
	o.reverse = 0;
	o.sort = "name"; /* byte order: 'N' < '[' */
	o.all = 1;       /* the other primitive arrays have no instances */
	o.top = 3;
	got = classes_report(NULL, &o, FMT_CSV);
	ck_assert_str_eq(got, "class,instances,shallow,retained_lb\nNode,7,168,288\n[B,1,120,120\n[C,0,0,0\n");
	free(got);
	o = (struct view_opts){ .exact = "^Node$", .filter = "^(Node|\\[B)$" };
	got = classes_report(NULL, &o, FMT_JSON);
	ck_assert_str_eq(got, "{\"view\":\"classes\",\"objects\":15,\"shallow\":648,\"classes\":2,\"shown\":2,\"rows\":[\n"
			 "{\"class\":\"Node\",\"instances\":7,\"shallow\":168,\"retained_lb\":288,\"retained_exact\":288},\n"
			 "{\"class\":\"[B\",\"instances\":1,\"shallow\":120,\"retained_lb\":120,\"retained_exact\":null}]}\n");
	free(got);
	/* over a subset, B and C: 24 each; D and X are theirs together, counted
	 * for neither by the bound, but exactly they retain 24 + 24 + 24 + 120 */
	o = (struct view_opts){ .exact = "." };
	got = classes_report("object 0x1007 | referrers", &o, FMT_CSV);
	ck_assert_str_eq(got, "class,instances,shallow,retained_lb,retained_exact\nNode,2,48,48,192\n");
	free(got);
	o = (struct view_opts){ 0 };
	got = classes_report("instances Node", &o, FMT_TEXT);
	ck_assert_str_eq(got, "objects:    7\n"
			 "shallow:    168 (168 B)\n"
			 "classes:    1\n"
			 "shown:      1\n"
			 "retained>=: a lower bound: the retained sizes of the instances that no other instance "
			 "of their class dominates\n"
			 "\n"
			 "class  instances  shallow  retained>=  shallow%\n"
			 "Node           7      168         288    100.0%\n");
	free(got);
}
END_TEST

START_TEST(test_classes_errors)
{
	struct view_opts o = { .sort = "size" };
	struct objset set;
	struct class_view v;
	struct sbuf err;

	objset_whole(&h, &set);
	sbuf_init(&err);
	ck_assert_int_eq(view_classes(&h, &set, &o, &v, &err), -1);
	ck_assert_str_eq(err.buf, "--sort: unknown key 'size' (name, instances, shallow, retained)");
	sbuf_reset(&err);
	o = (struct view_opts){ .filter = "a)" };
	ck_assert_int_eq(view_classes(&h, &set, &o, &v, &err), -1);
	ck_assert_str_eq(err.buf, "regex /a)/: column 2: unmatched closing parenthesis");
	sbuf_free(&err);
}
END_TEST

struct want_row { uint64_t id; unsigned depth; uint64_t count, retained; };

static void check_biggest(const char *expr, struct view_opts *o, const struct want_row *w, size_t n,
			  uint64_t top_level)
{
	struct objset set;
	struct big_view v;

	if (expr != NULL)
		set = set_of(expr);
	else
		objset_all(&h, &set);
	view_biggest(&h, &set, o, &v);
	ck_assert_uint_eq(v.top_level, top_level);
	ck_assert_uint_ge(v.n, n);
	for (size_t i = 0; i < n; i++) {
		ck_assert_msg(w[i].id == 0 ? v.rows[i].node == HW_NONE : v.rows[i].node == N(w[i].id),
			      "row %zu", i);
		ck_assert_uint_eq(v.rows[i].depth, w[i].depth);
		ck_assert_uint_eq(v.rows[i].count, w[i].count);
		ck_assert_uint_eq(v.rows[i].retained, w[i].retained);
	}
	big_view_free(&v);
	objset_free(&set);
}

START_TEST(test_biggest_view)
{
	struct view_opts o = { .depth = 3, .cutoff = 0 };
	/* A first (216); its children D (144, with X), then B and C (24 each,
	 * by node index); then class Holder (112) and S */
	static const struct want_row full[] = {
		{ S_A, 0, 1, 216 }, { S_D, 1, 1, 144 }, { S_X, 2, 1, 120 }, { S_B, 1, 1, 24 },
		{ S_C, 1, 1, 24 }, { S_HOLDER, 0, 1, 112 }, { S_S, 1, 1, 24 },
	};
	/* the root's children: A, W, E, U and the six classes */
	check_biggest(NULL, &o, full, 7, 10);
	/* a cutoff of 50%: B and C (11% of A each) fold into one row */
	static const struct want_row folded[] = {
		{ S_A, 0, 1, 216 }, { S_D, 1, 1, 144 }, { 0, 1, 2, 48 }, { S_HOLDER, 0, 1, 112 },
	};
	o = (struct view_opts){ .depth = 2, .cutoff = 50 };
	check_biggest(NULL, &o, folded, 4, 10);
	/* Nodes no other Node dominates: A, then E, U, S (24 each) */
	static const struct want_row nodes[] = {
		{ S_A, 0, 1, 216 }, { S_E, 0, 1, 24 }, { S_U, 0, 1, 24 }, { S_S, 0, 1, 24 },
	};
	o = (struct view_opts){ .depth = 1 };
	check_biggest("instances Node", &o, nodes, 4, 4);
	/* the top two, the other two in one row */
	static const struct want_row top2[] = { { S_A, 0, 1, 216 }, { S_E, 0, 1, 24 }, { 0, 0, 2, 48 } };
	o.top = 2;
	check_biggest("instances Node", &o, top2, 3, 4);
	/* the top three: the fourth is shown rather than folded alone */
	o.top = 3;
	check_biggest("instances Node", &o, nodes, 4, 4);
}
END_TEST

START_TEST(test_objects_view)
{
	struct view_opts o = { .top = 3 };
	struct objset set;
	struct objects_view v;
	struct sbuf out;

	objset_whole(&h, &set);
	view_objects(&h, &set, &o, &v);
	ck_assert_uint_eq(v.n, 3); /* A 216, D 144, X 120 */
	ck_assert_uint_eq(v.nodes[0], N(S_A));
	ck_assert_uint_eq(v.nodes[1], N(S_D));
	ck_assert_uint_eq(v.nodes[2], N(S_X));
	sbuf_init(&out);
	report_objects(&h, &v, FMT_CSV, &out);
	ck_assert_str_eq(out.buf, "id,class,shallow,retained,value\n0x1001,Node,24,216,\n"
			 "0x1007,Node,24,144,\n0x1009,[B,120,120,\n");
	objects_view_free(&v);
	sbuf_free(&out);
}
END_TEST

START_TEST(test_info_view)
{
	struct objset set;
	struct info_view v;

	objset_whole(&h, &set);
	view_info(&h, &set, &v);
	ck_assert_uint_eq(v.set_count, 15);
	/* six classes, A (JNI global) and W (unknown) */
	ck_assert_uint_eq(v.gc_root_objects, 8);
	/* the dump's sticky classes, JNI global and unknown root, in the
	 * table's order, with the names HPROF's tags have */
	static const struct { unsigned kind; const char *name; uint64_t records, objects; } want[] = {
		{ RK_STATICS, "statics: system class", 6, 6 }, { RK_GLOBAL_HANDLE, "global handle: JNI global", 1, 1 },
		{ RK_UNKNOWN, "unknown", 1, 1 }, { RK_WEAK_ONLY, "weakly reachable", 1, 1 },
		{ RK_UNREACHABLE, "unreachable", 1, 1 },
	};
	ck_assert_uint_eq(v.nroots, 5);
	for (size_t i = 0; i < 5; i++) {
		struct sbuf name;
		sbuf_init(&name);
		heap_root_kind(&h, v.roots[i].kind, v.roots[i].native, &name);
		ck_assert_str_eq(name.buf, want[i].name);
		sbuf_free(&name);
		ck_assert_uint_eq(v.roots[i].kind, want[i].kind);
		ck_assert_uint_eq(v.roots[i].records, want[i].records);
		ck_assert_uint_eq(v.roots[i].objects, want[i].objects);
	}
	info_view_free(&v);
}
END_TEST

static char *paths_report(uint64_t id, struct view_opts *o, enum fmt f)
{
	struct path_view v;
	struct sbuf out;

	sbuf_init(&out);
	view_paths(&h, N(id), o, &v);
	report_paths(&h, &v, f, &out);
	path_view_free(&v);
	return sbuf_detach(&out);
}

/* E is reachable only as W's referent. Without weak references it has
 * no path, and the view says why (heapwalk's "weakly reachable" pseudo
 * root is no GC root to draw a path to); with them it runs through W to
 * W's root. X's shortest path: the JNI global A, then A.next B, B.next
 * D, D.next X (A.other C is as short but found second). */
START_TEST(test_paths)
{
	struct view_opts o = { .max_paths = 5 };
	char *got;

	got = paths_report(S_E, &o, FMT_CSV);
	ck_assert_str_eq(got, "path,step,id,object,via,root,value\n");
	free(got);
	got = paths_report(S_E, &o, FMT_JSON);
	ck_assert_msg(strstr(got, "\"paths\":0,\"reachable\":\"only through weak references") != NULL, "%s", got);
	free(got);
	o.weak = 1;
	got = paths_report(S_E, &o, FMT_CSV);
	/* the step through the referent says it is weak: the Reference's own
	 * (no rules here) */
	ck_assert_str_eq(got, "path,step,id,object,via,root,value\n"
			 "1,0,0x100b,java.lang.ref.WeakReference,\"referent (weak: referent)\",unknown,\n"
			 "1,1,0x100d,Node,,,\n");
	free(got);
	o = (struct view_opts){ .max_paths = 1 };
	got = paths_report(S_X, &o, FMT_CSV);
	ck_assert_str_eq(got, "path,step,id,object,via,root,value\n"
			 "1,0,0x1001,Node,next,\"global handle: JNI global\",\n"
			 "1,1,0x1003,Node,next,,\n"
			 "1,2,0x1007,Node,next,,\n"
			 "1,3,0x1009,[B,,,\n");
	free(got);
	/* S hangs off a static field of class Holder, a system class */
	got = paths_report(S_S, &o, FMT_JSON);
	ck_assert_str_eq(got, "{\"view\":\"paths\",\"object\":\"0x1011\",\"class\":\"Node\","
			 "\"weak_references_followed\":false,\"paths\":1,\"rows\":[\n"
			 "{\"path\":1,\"step\":0,\"id\":\"0x61\",\"object\":\"class Holder\",\"via\":\"static so\","
			 "\"root\":\"statics: system class\",\"value\":null},\n"
			 "{\"path\":1,\"step\":1,\"id\":\"0x1011\",\"object\":\"Node\",\"via\":null,\"root\":null,\"value\":null}]}\n");
	free(got);
	/* U is unreachable: no path to a pseudo root, but the view says so */
	got = paths_report(S_U, &o, FMT_CSV);
	ck_assert_str_eq(got, "path,step,id,object,via,root,value\n");
	free(got);
	got = paths_report(S_U, &o, FMT_JSON);
	ck_assert_msg(strstr(got, "\"paths\":0,\"reachable\":\"no: no GC root holds it") != NULL, "%s", got);
	free(got);
	o.weak = 1; /* weak references lead nowhere else either */
	got = paths_report(S_U, &o, FMT_JSON);
	ck_assert_msg(strstr(got, "\"paths\":0,\"reachable\":\"no: no GC root holds it") != NULL, "%s", got);
	free(got);
}
END_TEST

/* ---- what the dump says is escaped in every format ---- */

static void open_evil(struct heap *eh)
{
	struct open_opts oo = { .no_cache = 1, .quiet = 1 };
	struct sbuf err;
	char *path = hw_write_evil();

	sbuf_init(&err);
	ck_assert_msg(heap_open(eh, path, &oo, NULL, &err) == 0, "%s", err.buf);
	heap_need(eh, HP_ALL, NULL);
	sbuf_free(&err);
	free(path);
}

static void no_raw_controls(const char *s)
{
	for (const char *p = s; *p; p++)
		ck_assert_msg((unsigned char)*p >= 0x20 || *p == '\n', "raw control 0x%02x in %s", *p, s);
}

START_TEST(test_escaping)
{
	struct heap eh;
	struct objset set;
	struct class_view cv;
	struct objects_view ov;
	struct view_opts o = { .filter = "^Evil|String$" };
	struct sbuf out, err;

	open_evil(&eh);
	objset_whole(&eh, &set);
	sbuf_init(&out);
	sbuf_init(&err);
	ck_assert_int_eq(view_classes(&eh, &set, &o, &cv, &err), 0);
	ck_assert_uint_eq(cv.n, 2);
	static const char *want[] = { "Evil\\x1b]0;pwned\\x07,\"x\"", "Evil\\u001b]0;pwned\\u0007,\\\"x\\\"",
				      "\"Evil\\x1b]0;pwned\\x07,\"\"x\"\"\"" };
	for (enum fmt f = FMT_TEXT; f <= FMT_CSV; f++) {
		sbuf_reset(&out);
		report_classes(&eh, &cv, f, &out);
		no_raw_controls(out.buf);
		ck_assert_msg(strstr(out.buf, want[f]) != NULL, "format %d: %s", f, out.buf);
	}
	class_view_free(&cv);
	/* the String's text: a NUL inside does not end it */
	o = (struct view_opts){ 0 };
	view_objects(&eh, &set, &o, &ov);
	static const char *wantv[] = { "hi\\x1b[2J\\n\"q\",\\x00end", "\"hi\\u001b[2J\\n\\\"q\\\",\\u0000end\"",
				       "\"hi\\x1b[2J\\n\"\"q\"\",\\x00end\"" };
	for (enum fmt f = FMT_TEXT; f <= FMT_CSV; f++) {
		sbuf_reset(&out);
		report_objects(&eh, &ov, f, &out);
		no_raw_controls(out.buf);
		ck_assert_msg(strstr(out.buf, wantv[f]) != NULL, "format %d: %s", f, out.buf);
	}
	objects_view_free(&ov);
	sbuf_free(&out);
	sbuf_free(&err);
	heap_free(&eh);
}
END_TEST

/* ---- the commands' table ---- */

/* What the man page (written by hand) says follows a command. */
static enum cmd_arg man_arg(const char *rest)
{
	static const struct { const char *text; enum cmd_arg arg; } forms[] = {
		{ "", CMD_ARG_NONE }, { "Ar object", CMD_ARG_OBJECT_REQ }, { "Op Ar object", CMD_ARG_OBJECT },
		{ "Ar from to", CMD_ARG_FROM_TO }, { "Ar old new", CMD_ARG_DUMPS },
		{ "Ar name Op Ar arg", CMD_ARG_NAME }, { "Ar pid Op Ar file", CMD_ARG_PID },
		{ "Ar pid file", CMD_ARG_PID_FILE }, { "Ar base target final", CMD_ARG_SERIES },
	};
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
		if (strcmp(rest, forms[i].text) == 0)
			return forms[i].arg;
	ck_abort_msg("man page: no such argument form '%s'", rest);
	return CMD_ARG_NONE;
}

/* The table against heapwalk(1)'s COMMANDS: the same commands in the
 * same order, each taking what its item says. */
START_TEST(test_cmd_man)
{
	char *path = xasprintf("%s/../man/heapwalk.1", TEST_SRCDIR);
	FILE *f = fopen(path, "r");
	char line[512];
	size_t k = 0;
	int in = 0;

	ck_assert_msg(f != NULL, "%s", path);
	while (fgets(line, sizeof line, f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, ".Sh ", 4) == 0)
			in = strcmp(line, ".Sh COMMANDS") == 0;
		if (!in || strncmp(line, ".It Cm ", 7) != 0)
			continue;
		char *p = line + 7, *names[4];
		size_t n = 0;
		for (;;) { /* "merged-out , merged-in , merged-dom": one item */
			names[n++] = p;
			p += strcspn(p, " ");
			if (*p != '\0')
				*p++ = '\0';
			if (strncmp(p, ", ", 2) != 0 || n == 4)
				break;
			p += 2;
		}
		enum cmd_arg arg = man_arg(p);
		for (size_t i = 0; i < n; i++, k++) {
			ck_assert_msg(k < CMD_N, "the man page has more commands than the table: %s", names[i]);
			ck_assert_str_eq(cmd_table[k].name, names[i]);
			/* rules takes no dump: the man page writes it as one that takes nothing more */
			ck_assert_msg(cmd_table[k].arg == arg || (arg == CMD_ARG_NONE && cmd_table[k].arg == CMD_ARG_NOTHING),
				      "%s: the table says %d, the man page %d", names[i], cmd_table[k].arg, arg);
		}
	}
	fclose(f);
	free(path);
	ck_assert_uint_eq(k, CMD_N);
}
END_TEST

/* The readers' table against heapwalk(1)'s FORMATS: an item for each
 * format, by its title, in the table's order, and gzip (the container);
 * nothing else. The words the table gives in --help and for a file no
 * reader takes name every format. */
START_TEST(test_formats_man)
{
	char *path = xasprintf("%s/../man/heapwalk.1", TEST_SRCDIR);
	FILE *f = fopen(path, "r");
	char line[512];
	size_t k = 0;
	int in = 0, gzip = 0;

	ck_assert_msg(f != NULL, "%s", path);
	while (fgets(line, sizeof line, f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, ".Sh ", 4) == 0)
			in = strcmp(line, ".Sh FORMATS") == 0;
		if (!in || strncmp(line, ".It ", 4) != 0)
			continue;
		if (strcmp(line + 4, "gzip") == 0) {
			gzip = 1;
			continue;
		}
		const struct format_ops *fo = format_at(k++);
		ck_assert_msg(fo != NULL, "the man page's FORMATS has %s, the table no more formats", line + 4);
		ck_assert_msg(fo->title != NULL && strcmp(fo->title, line + 4) == 0,
			      "FORMATS item %zu is %s, the table's %s", k, line + 4, fo->title ? fo->title : "(none)");
	}
	fclose(f);
	free(path);
	ck_assert_msg(gzip, "the man page's FORMATS has no gzip");
	ck_assert_msg(format_at(k) == NULL, "the table's %s is not in the man page's FORMATS", format_at(k)->title);
	struct sbuf say;
	sbuf_init(&say);
	formats_say(&say);
	for (size_t i = 0; format_at(i) != NULL; i++) {
		ck_assert_msg(format_at(i)->label != NULL && strstr(say.buf, format_at(i)->label) != NULL,
			      "%s: no label in \"%s\"", format_at(i)->name, say.buf);
	}
	sbuf_free(&say);
}
END_TEST

/* The rows that are views end a pipeline, the others do not; the browser
 * shows views only; a command without a function takes no dump. */
START_TEST(test_cmd_views)
{
	/* heapwalk --help: "a last word info, classes, ... or graph picks the view" */
	static const char *const views[] = { "info", "classes", "biggest", "objects", "paths", "lifelines",
					     "allocations", "times", "merged-out", "merged-in", "merged-dom", "graph" };
	size_t nviews = 0;

	for (size_t k = 0; k < CMD_N; k++) {
		const struct cmd_entry *e = &cmd_table[k];
		struct pipeline pl = { 0 };
		int listed = 0;
		for (size_t i = 0; i < sizeof views / sizeof views[0]; i++)
			listed |= strcmp(views[i], e->name) == 0;
		ck_assert_msg(listed == !!(e->flags & CMD_VIEW), "%s: a view to --help %d, to the table %d", e->name,
			      listed, !!(e->flags & CMD_VIEW));
		nviews += listed;
		struct sbuf err;
		char *expr = xasprintf("all | %s", e->name);
		sbuf_init(&err);
		int rc = pipeline_parse(expr, &pl, &err);
		if (e->flags & CMD_VIEW) {
			ck_assert_msg(rc == 0 && pl.view != NULL && strcmp(pl.view, e->name) == 0, "%s: %s", expr,
				      err.buf ? err.buf : "no view");
			ck_assert_ptr_eq(cmd_view(e->name), e);
		} else {
			ck_assert_msg(rc != 0 && strstr(err.buf, "unknown step") != NULL, "%s: parsed", expr);
			ck_assert_ptr_null(cmd_view(e->name));
			ck_assert_msg(!(e->flags & CMD_BROWSER), "%s: in the browser, not a view", e->name);
		}
		ck_assert_msg((e->run == NULL) == (e->arg == CMD_ARG_PID || e->arg == CMD_ARG_PID_FILE ||
						   e->arg == CMD_ARG_NOTHING || e->arg == CMD_ARG_SERIES ||
						   strcmp(e->name, "check") == 0), "%s", e->name);
		ck_assert_msg(strncmp(e->help, "  ", 2) == 0 && strncmp(e->help + 2, e->name, strlen(e->name)) == 0,
			      "%s: help '%s'", e->name, e->help);
		ck_assert_ptr_eq(cmd_find(e->name), e);
		pipeline_free(&pl);
		sbuf_free(&err);
		free(expr);
	}
	ck_assert_uint_eq(nviews, sizeof views / sizeof views[0]);
	ck_assert_ptr_null(cmd_find("nosuch"));
}
END_TEST

Suite *step_suite(void)
{
	Suite *s = suite_create("step");
	TCase *tc = tcase_create("parse");
	TCase *ev = tcase_create("eval");
	TCase *vw = tcase_create("views");

	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_canonical);
	tcase_add_test(tc, test_parse_errors);
	tcase_add_test(tc, test_object_ids);
	tcase_add_test(tc, test_cmd_man);
	tcase_add_test(tc, test_formats_man);
	tcase_add_test(tc, test_cmd_views);
	tcase_add_checked_fixture(ev, open_sample, close_sample);
	tcase_add_test(ev, test_steps);
	tcase_add_test(ev, test_whole_set);
	tcase_add_test(ev, test_step_errors);
	tcase_add_checked_fixture(vw, open_sample, close_sample);
	tcase_add_test(vw, test_classes_view);
	tcase_add_test(vw, test_classes_errors);
	tcase_add_test(vw, test_biggest_view);
	tcase_add_test(vw, test_objects_view);
	tcase_add_test(vw, test_info_view);
	tcase_add_test(vw, test_paths);
	tcase_add_test(vw, test_escaping);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, ev);
	suite_add_tcase(s, vw);
	return s;
}
