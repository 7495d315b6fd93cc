/* test_step.c — selection steps: the text form round-trips, errors name
 * the column, and each step gives the set worked out by hand on the
 * sample heap (see test_graph.c for its picture). */
#include <stdlib.h>
#include <string.h>

#include "graph/open.h"
#include "hprofw.h"
#include "query/step.h"
#include "query/views.h"
#include "suites.h"

START_TEST(test_round_trip)
{
	static const char *exprs[] = {
		"instances java.util.HashMap | retained | classes",
		"instances /^java\\.util\\..*Map$/ | referrers weak | dominated",
		"instances /a\\/b/",
		"object 0x7f00 | referents | biggest",
		"all | retained",
	};
	for (size_t i = 0; i < sizeof exprs / sizeof exprs[0]; i++) {
		struct pipeline pl;
		struct sbuf err, out;
		sbuf_init(&err);
		sbuf_init(&out);
		ck_assert_msg(pipeline_parse(exprs[i], &pl, &err) == 0, "%s: %s", exprs[i], err.buf);
		pipeline_to_string(&pl, &out);
		ck_assert_str_eq(out.buf, exprs[i]);
		pipeline_free(&pl);
		sbuf_free(&err);
		sbuf_free(&out);
	}
}
END_TEST

START_TEST(test_parse_errors)
{
	static const struct { const char *expr, *want; } bad[] = {
		{ "instances X | frobnicate", "column 15: unknown step 'frobnicate'" },
		{ "instances", "column 10: 'instances' needs an argument" },
		{ "instances /abc", "column 11: 'instances' needs an argument (unclosed /regex/)" },
		{ "classes | retained", "column 1: the view 'classes' must come last" },
		{ "retained retained", "column 10: expected '|'" },
		{ "", "column 1: expected a step" },
		{ "object /x/", "column 8: 'object' takes no /regex/" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct pipeline pl;
		struct sbuf err;
		sbuf_init(&err);
		ck_assert_int_eq(pipeline_parse(bad[i].expr, &pl, &err), -1);
		ck_assert_str_eq(err.buf, bad[i].want);
		sbuf_free(&err);
	}
}
END_TEST

static struct heap h;

static void open_sample(void) { hw_open_sample(&h, "step.hprof"); }

static void close_sample(void) { heap_free(&h); }

/* Run expr from all objects; the members' ids, ascending, as text. */
static char *eval(const char *expr, int *rc)
{
	struct pipeline pl;
	struct objset set;
	struct sbuf err, out;

	sbuf_init(&err);
	sbuf_init(&out);
	ck_assert_msg(pipeline_parse(expr, &pl, &err) == 0, "%s", err.buf);
	objset_all(&h, &set);
	*rc = 0;
	for (size_t i = 0; i < pl.n && *rc == 0; i++)
		*rc = step_apply(&h, &pl.steps[i], &set, NULL, &err);
	if (*rc != 0) {
		sbuf_adds(&out, err.buf);
	} else {
		for (node_t v = 1; v < h.n; v++)
			if (bit_get(set.bits, v))
				sbuf_printf(&out, "%s%llx", out.len ? " " : "", (unsigned long long)heap_node_id(&h, v));
	}
	objset_free(&set);
	pipeline_free(&pl);
	sbuf_free(&err);
	return sbuf_detach(&out);
}

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
	/* B and C together retain D and X */
	EXPECT("object 0x1003 | referrers", "1001");
	EXPECT("object 0x1007 | referrers", "1003 1005");
	/* A refers to B, C and its class */
	EXPECT("object 0x1001 | referents", "21 1003 1005");
	/* E is only a weak referent of W */
	EXPECT("object 0x100d | referrers", "");
	EXPECT("object 0x100d | referrers weak", "100b");
	EXPECT("object 0x100b | referents weak", "41 100d");
	EXPECT("object 0x1001 | dominated", "1003 1005 1007");
	EXPECT("object 0x1001 | retained", "1001 1003 1005 1007 1009");
	EXPECT("instances Node | instances /^N/ | object 4107", "100b"); /* decimal id */
}
END_TEST

START_TEST(test_step_errors)
{
	int rc;
	char *got = eval("object 0x999", &rc);

	ck_assert_int_eq(rc, -1);
	ck_assert_str_eq(got, "no object with id 0x999 in the dump");
	free(got);
	got = eval("instances /(unclosed/", &rc);
	ck_assert_int_eq(rc, -1);
	ck_assert_msg(strstr(got, "regex /(unclosed/: column 10:") != NULL, "%s", got);
	free(got);
}
END_TEST

/* Paths to GC roots on the sample heap: E is reachable only as W's
 * referent. Without weak references its path ends at itself, a
 * "weakly reachable" pseudo root; with them it runs through W to W's
 * root. X's shortest path: the JNI global A, then A.next B, B.next D,
 * D.next X (A.other C is as short but found second). */
START_TEST(test_paths)
{
	struct view_opts o = { .fmt = FMT_CSV, .max_paths = 5 };
	struct sbuf out;

	sbuf_init(&out);
	view_paths(&h, heap_find_id(&h, S_E), &o, &out);
	ck_assert_str_eq(out.buf, "path,step,id,object,via,root\n1,0,0x100d,Node,,\"weakly reachable\"\n");
	sbuf_reset(&out);
	o.weak = 1;
	view_paths(&h, heap_find_id(&h, S_E), &o, &out);
	ck_assert_str_eq(out.buf, "path,step,id,object,via,root\n"
			 "1,0,0x100b,java.lang.ref.WeakReference,referent,unknown\n"
			 "1,1,0x100d,Node,,\n");
	sbuf_reset(&out);
	o.weak = 0;
	o.max_paths = 1;
	view_paths(&h, heap_find_id(&h, S_X), &o, &out);
	ck_assert_str_eq(out.buf, "path,step,id,object,via,root\n"
			 "1,0,0x1001,Node,next,\"JNI global\"\n"
			 "1,1,0x1003,Node,next,\n"
			 "1,2,0x1007,Node,next,\n"
			 "1,3,0x1009,[B,,\n");
	sbuf_free(&out);
}
END_TEST

Suite *step_suite(void)
{
	Suite *s = suite_create("step");
	TCase *tc = tcase_create("parse");
	TCase *ev = tcase_create("eval");

	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_parse_errors);
	tcase_add_checked_fixture(ev, open_sample, close_sample);
	tcase_add_test(ev, test_steps);
	tcase_add_test(ev, test_step_errors);
	tcase_add_test(ev, test_paths);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, ev);
	return s;
}
