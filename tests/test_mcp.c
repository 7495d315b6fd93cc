/* test_mcp.c — heapwalk mcp: its JSON reader and writer (src/cli/jsonv.c,
 * linked in: its names jval_*, the strict reader's jv_*), checked against RFC
 * 8259 cases and the tests' own strict reader (jsonck.c); and the real
 * server through pipes on a real JDK dump: JSON-RPC's errors, lines too
 * long, CR LF, a last line without its newline, a client that goes
 * away, dumps unmapped when closed and at most 16 open, paths outside
 * its directory refused, a dump that shrinks under a call. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hprofw.h"
#include "jsonck.h"
#include "suites.h"
#include "util.h"

/* ---- jsonv (struct jval) ---- */

#include "cli/jsonv.h"

static int jv_ok(const char *text, size_t n)
{
	struct jval v;
	struct sbuf err;

	sbuf_init(&err);
	int rc = jval_parse(text, n, &v, &err);
	if (rc == 0)
		jval_free(&v);
	else
		ck_assert_msg(strncmp(err.buf, "at byte ", 8) == 0, "an error without its place: %s", err.buf);
	sbuf_free(&err);
	return rc == 0;
}

static const struct {
	const char *text;
	size_t n; /* 0: strlen */
	int ok;
} cases[] = {
	{ "{}", 0, 1 }, { "[]", 0, 1 }, { " \t\r\n[1, 2 ]\n", 0, 1 }, { "\"\"", 0, 1 }, { "null", 0, 1 },
	{ "true", 0, 1 }, { "false", 0, 1 }, { "0", 0, 1 }, { "-0", 0, 1 }, { "-0.0e-0", 0, 1 },
	{ "1E+400", 0, 1 }, { "123456789012345678901234567890", 0, 1 },
	/* numbers' grammar */
	{ "01", 0, 0 }, { "-", 0, 0 }, { "+1", 0, 0 }, { "1.", 0, 0 }, { ".5", 0, 0 }, { "1e", 0, 0 },
	{ "1e+", 0, 0 }, { "0x10", 0, 0 }, { "NaN", 0, 0 }, { "Infinity", 0, 0 }, { "-Infinity", 0, 0 },
	{ "1.5.2", 0, 0 }, { "--1", 0, 0 }, { "-01", 0, 0 },
	/* surrogates */
	{ "\"\\ud83d\\ude00\"", 0, 1 }, { "\"\\uD83D\\uDE00\"", 0, 1 }, { "\"\\ud83d\"", 0, 0 },
	{ "\"\\ude00\"", 0, 0 }, { "\"\\ud83d\\u0041\"", 0, 0 }, { "\"\\ud83dx\"", 0, 0 },
	{ "\"\\ude00\\ud83d\"", 0, 0 }, { "\"\\u00e9\\u0000\"", 0, 1 }, { "\"\\u12\"", 0, 0 }, { "\"\\u12G4\"", 0, 0 },
	/* UTF-8 */
	{ "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"", 0, 1 }, { "\"\xc3\"", 0, 0 }, { "\"\xc0\xaf\"", 0, 0 },
	{ "\"\xe0\x80\xaf\"", 0, 0 }, { "\"\xed\xa0\x80\"", 0, 0 }, { "\"\xf4\x90\x80\x80\"", 0, 0 },
	{ "\"\xff\"", 0, 0 }, { "\"\x80\"", 0, 0 }, { "\"\xf0\x9f\x98\"", 0, 0 },
	/* control characters, escapes */
	{ "\"a\tb\"", 0, 0 }, { "\"a\nb\"", 0, 0 }, { "\"\x1f\"", 0, 0 }, { "\"\x7f\"", 0, 1 },
	{ "\"a\0b\"", 5, 0 }, { "\"\\/\\b\\f\\n\\r\\t\\\"\\\\\"", 0, 1 }, { "\"\\x41\"", 0, 0 }, { "\"\\'\"", 0, 0 },
	/* structure, trailing data */
	{ "", 0, 0 }, { " ", 0, 0 }, { "[1,]", 0, 0 }, { "{\"a\":1,}", 0, 0 }, { "{\"a\" 1}", 0, 0 },
	{ "{a:1}", 0, 0 }, { "{1:1}", 0, 0 }, { "[1 2]", 0, 0 }, { "[", 0, 0 }, { "{\"a\":1", 0, 0 },
	{ "\"abc", 0, 0 }, { "{} {}", 0, 0 }, { "1 2", 0, 0 }, { "[]]", 0, 0 }, { "null x", 0, 0 },
	{ "nul", 0, 0 }, { "truex", 0, 0 }, { "[1]\0", 4, 0 }, { "'a'", 0, 0 }, { "[1]//", 0, 0 },
	{ "\xef\xbb\xbf[]", 0, 0 },
};

START_TEST(test_jsonv_rfc8259)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t n = cases[i].n ? cases[i].n : strlen(cases[i].text);
		ck_assert_msg(jv_ok(cases[i].text, n) == cases[i].ok, "case %zu '%s': %s", i, cases[i].text,
			      cases[i].ok ? "refused" : "taken");
		/* the strict reader agrees (it is the independent judge) */
		struct jv c;
		char err[256];
		int theirs = json_parse(cases[i].text, n, &c, err, sizeof err) == 0;
		jv_free(&c);
		ck_assert_msg(theirs == cases[i].ok, "case %zu: the strict reader disagrees with the table", i);
	}
}
END_TEST

/* JV_MAX_DEPTH arrays nest; one more is refused, as is an object that deep */
START_TEST(test_jsonv_depth)
{
	struct sbuf s;

	for (int extra = 0; extra <= 1; extra++)
		for (int obj = 0; obj <= 1; obj++) {
			sbuf_init(&s);
			for (int i = 0; i < JV_MAX_DEPTH + extra; i++)
				sbuf_adds(&s, obj ? "{\"k\":" : "[");
			sbuf_adds(&s, "1");
			for (int i = 0; i < JV_MAX_DEPTH + extra; i++)
				sbuf_adds(&s, obj ? "}" : "]");
			ck_assert_msg(jv_ok(s.buf, s.len) == !extra, "%d levels of %s: %s", JV_MAX_DEPTH + extra,
				      obj ? "objects" : "arrays", extra ? "taken" : "refused");
			sbuf_free(&s);
		}
	/* and a line of 100000 '[' is refused, without a crash */
	sbuf_init(&s);
	for (int i = 0; i < 100000; i++)
		sbuf_addc(&s, '[');
	ck_assert(!jv_ok(s.buf, s.len));
	sbuf_free(&s);
}
END_TEST

/* parse, write, parse: the same text, numbers exactly as read; the text
 * is strict JSON that the other reader decodes to the same strings */
START_TEST(test_jsonv_round_trip)
{
	static const char in[] = " { \"n\" : [ -0 , 1.50e-3 , 12345678901234567890123456789 , 0.0E+0 , 1E400 , -7 ] ,"
				 " \"s\" : \"a\\u0000b\\u001f\\ud83d\\ude00\\u00e9\\\"\\\\\\/\\t\" , \"o\" : { } ,"
				 " \"a\" : [ true , false , null , [ ] ] } ";
	static const char want[] = "{\"n\":[-0,1.50e-3,12345678901234567890123456789,0.0E+0,1E400,-7],";
	struct jval v, w;
	struct sbuf err, a, b;

	sbuf_init(&err);
	sbuf_init(&a);
	sbuf_init(&b);
	ck_assert_msg(jval_parse(in, sizeof in - 1, &v, &err) == 0, "%s", err.buf);
	jval_write(&a, &v);
	ck_assert_msg(strncmp(a.buf, want, sizeof want - 1) == 0, "numbers changed: %s", a.buf);
	ck_assert_msg(jval_parse(a.buf, a.len, &w, &err) == 0, "%s", err.buf);
	jval_write(&b, &w);
	ck_assert_msg(a.len == b.len && memcmp(a.buf, b.buf, a.len) == 0, "%s\nthen\n%s", a.buf, b.buf);
	const struct jval *s = jval_get(&v, "s");
	ck_assert(s != NULL && s->t == JV_STR && s->len == 14 && memcmp(s->s, "a\0b\x1f\xf0\x9f\x98\x80\xc3\xa9\"\\/\t", 14) == 0);
	ck_assert(jval_str(s) == NULL); /* it holds a NUL */
	long long x;
	ck_assert(jval_int(&jval_get(&v, "n")->items[5], -10, 10, &x) == 0 && x == -7);
	ck_assert(jval_int(&jval_get(&v, "n")->items[1], -10, 10, &x) < 0);
	struct jv c;
	char e[256];
	ck_assert_msg(json_parse(a.buf, a.len, &c, e, sizeof e) == 0, "%s: %s", e, a.buf);
	const struct jv *cs = jv_get(&c, "s");
	ck_assert(cs != NULL && cs->t == J_STR && cs->len == s->len && memcmp(cs->s, s->s, s->len) == 0);
	jv_free(&c);
	/* any bytes written as a string: strict JSON, a string */
	sbuf_reset(&b);
	jval_write_str(&b, "\x01\x7f\xff\xc3\xa9\xed\xa0\x80\n\"", 10);
	ck_assert_msg(json_parse(b.buf, b.len, &c, e, sizeof e) == 0 && c.t == J_STR, "%s: %s", e, b.buf);
	jv_free(&c);
	jval_free(&v);
	jval_free(&w);
	sbuf_free(&err);
	sbuf_free(&a);
	sbuf_free(&b);
}
END_TEST

/* ---- the server through pipes ---- */

struct srv {
	pid_t pid;
	int to, from;
	struct sbuf in; /* read, not yet a line */
};

static char dir[1024], dump[1100];
/* The server's memory after a call cut short (SIGBUS) is not all freed,
 * by design (mcp.c: what the call had allocated is let go of, as the
 * browser does): a sanitizer build's leak check is off for such a test. */
static int leaks_expected;

/* The server with argv (after "heapwalk mcp"; NULL-ended). */
static void srv_start_argv(struct srv *s, const char *const *args)
{
	int a[2], b[2];

	signal(SIGPIPE, SIG_IGN);
	ck_assert(pipe(a) == 0 && pipe(b) == 0);
	s->pid = fork();
	ck_assert(s->pid >= 0);
	if (s->pid == 0) {
		signal(SIGPIPE, SIG_DFL); /* as a client would leave it, not as this test does */
		if (leaks_expected) {
			const char *was = getenv("ASAN_OPTIONS");
			char *o = xasprintf("%s%sdetect_leaks=0", was ? was : "", was && *was ? ":" : "");
			setenv("ASAN_OPTIONS", o, 1);
		}
		dup2(a[0], 0);
		dup2(b[1], 1);
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 2);
		close(a[0]), close(a[1]), close(b[0]), close(b[1]);
		const char *argv[16] = { "heapwalk", "mcp" };
		for (size_t i = 0; args[i] != NULL && i + 3 < sizeof argv / sizeof *argv; i++)
			argv[i + 2] = args[i];
		execv(heapwalk(), (char *const *)(uintptr_t)argv);
		_exit(127);
	}
	close(a[0]);
	close(b[1]);
	s->to = a[1];
	s->from = b[0];
	sbuf_init(&s->in);
}

static void srv_start(struct srv *s, const char *opt, const char *d)
{
	const char *args[] = { opt != NULL ? opt : d, opt != NULL ? d : NULL, NULL };

	srv_start_argv(s, args);
}

static void srv_send(struct srv *s, const char *text, size_t n)
{
	ck_assert_msg(write_full(s->to, text, n) == 0, "the server took no input: %s", strerror(errno));
}

/* The next line (caller frees), NULL at the end of the output. */
static char *srv_line(struct srv *s)
{
	double end = now_seconds() + hang_seconds(120);

	for (;;) {
		char *nl = s->in.len ? memchr(s->in.buf, '\n', s->in.len) : NULL;
		if (nl != NULL) {
			size_t n = (size_t)(nl - s->in.buf);
			char *line = xstrndup(s->in.buf, n);
			memmove(s->in.buf, nl + 1, s->in.len - n - 1);
			s->in.len -= n + 1;
			return line;
		}
		struct pollfd p = { s->from, POLLIN, 0 };
		ck_assert_msg(now_seconds() < end, "no answer from the server");
		if (poll(&p, 1, 1000) <= 0)
			continue;
		char buf[65536];
		ssize_t k = read(s->from, buf, sizeof buf);
		if (k <= 0)
			return NULL;
		sbuf_add(&s->in, buf, (size_t)k);
	}
}

/* Its wait status, once its input is closed. */
static int srv_end(struct srv *s)
{
	int st;

	if (s->to >= 0)
		close(s->to);
	if (s->from >= 0)
		close(s->from);
	ck_assert(waitpid(s->pid, &st, 0) == s->pid);
	sbuf_free(&s->in);
	return st;
}

/* One line sent, its answer parsed (strict), its id checked. */
static void ask(struct srv *s, const char *line, const char *id, struct jv *ans)
{
	char err[256];

	srv_send(s, line, strlen(line));
	srv_send(s, "\n", 1);
	char *a = srv_line(s);
	ck_assert_msg(a != NULL, "no answer to %s", line);
	ck_assert_msg(json_parse(a, strlen(a), ans, err, sizeof err) == 0, "%s: %s", err, a);
	const struct jv *jr = jv_get(ans, "jsonrpc"), *i = jv_get(ans, "id");
	ck_assert_msg(jr != NULL && jr->t == J_STR && strcmp(jr->s, "2.0") == 0, "%s", a);
	if (id == NULL)
		ck_assert_msg(i != NULL && i->t == J_NULL, "id not null: %s", a);
	else
		ck_assert_msg(i != NULL && ((i->t == J_STR && strcmp(i->s, id) == 0) ||
					    (i->t == J_NUM && i->is_uint && i->u == strtoull(id, NULL, 10))),
			      "id not %s: %s", id, a);
	free(a);
}

static long error_code(const struct jv *ans)
{
	const struct jv *e = jv_get(ans, "error"), *c = jv_get(e, "code");

	ck_assert_msg(c != NULL && c->t == J_NUM && jv_get(ans, "result") == NULL, "no error");
	return (long)c->num;
}

/* A tool called: its text (caller frees), *is_error. */
static char *tool(struct srv *s, const char *name, const char *args, int *is_error)
{
	static int n;
	char id[32];
	struct jv a;

	snprintf(id, sizeof id, "%d", ++n);
	char *line = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\","
			       "\"arguments\":%s}}", id, name, args);
	ask(s, line, id, &a);
	const struct jv *r = jv_get(&a, "result"), *c = jv_get(r, "content"), *e = jv_get(r, "isError");
	/* a second text: notes (an open's: the environment may cause some) */
	ck_assert_msg(c != NULL && c->t == J_ARR && e != NULL && e->t == J_BOOL && (c->n == 1 || (c->n == 2 && !e->b)),
		      "%s", line);
	const struct jv *t = jv_get(&c->v[0], "text");
	ck_assert(t != NULL && t->t == J_STR);
	char *text = xstrndup(t->s, t->len);
	*is_error = e->b;
	jv_free(&a);
	free(line);
	return text;
}

/* a tool's answer that is no error, strictly JSON (freed) */
static void tool_ok(struct srv *s, const char *name, const char *args, struct jv *out)
{
	int e;
	char err[256];
	char *t = tool(s, name, args, &e);

	ck_assert_msg(!e, "%s %s: %s", name, args, t);
	ck_assert_msg(json_parse(t, strlen(t), out, err, sizeof err) == 0, "%s: %s", err, t);
	free(t);
}

static void tool_err(struct srv *s, const char *name, const char *args, const char *want)
{
	int e;
	char *t = tool(s, name, args, &e);

	ck_assert_msg(e, "%s %s: no error: %.200s", name, args, t);
	ck_assert_msg(strchr(t, '\n') == NULL, "not one line: %s", t);
	ck_assert_msg(want == NULL || strstr(t, want) != NULL, "%s %s: '%s' does not say '%s'", name, args, t, want);
	free(t);
}

/* The between dump copied into a directory of the test's own. */
static void setup(void)
{
	char src[512];

	workload_dump("Between", "between", "-Xmx64m", src, sizeof src);
	snprintf(dir, sizeof dir, "%s/tmp/mcp-%d", TEST_BUILDDIR, (int)getpid());
	snprintf(dump, sizeof dump, "%s/d.hprof", dir);
	char *cmd = xasprintf("rm -rf '%s' && mkdir -p '%s' && cp '%s' '%s'", dir, dir, src, dump);
	int st;
	free(run(cmd, &st));
	free(cmd);
	ck_assert(st == 0);
}

static void teardown(void)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	int st;
	free(run(cmd, &st));
	free(cmd);
}

/* JSON-RPC's errors; the server goes on after each */
START_TEST(test_protocol)
{
	struct srv s;
	struct jv a;

	srv_start(&s, NULL, dir);
	ask(&s, "{bad", NULL, &a);
	ck_assert_int_eq(error_code(&a), -32700);
	jv_free(&a);
	ask(&s, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", NULL, &a);
	ck_assert_int_eq(error_code(&a), -32600);
	jv_free(&a);
	ask(&s, "{\"jsonrpc\":\"1.0\",\"id\":7,\"method\":\"ping\"}", "7", &a);
	ck_assert_int_eq(error_code(&a), -32600);
	jv_free(&a);
	ask(&s, "{\"id\":8,\"method\":\"ping\"}", "8", &a);
	ck_assert_int_eq(error_code(&a), -32600);
	jv_free(&a);
	ask(&s, "{\"jsonrpc\":\"2.0\",\"id\":\"m\"}", "m", &a);
	ck_assert_int_eq(error_code(&a), -32600);
	jv_free(&a);
	ask(&s, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"resources/read\"}", "9", &a);
	ck_assert_int_eq(error_code(&a), -32601);
	jv_free(&a);
	ask(&s, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/call\",\"params\":{\"name\":\"nosuch\"}}", "10", &a);
	ck_assert_int_eq(error_code(&a), -32602);
	jv_free(&a);
	/* notifications: no answer (the ping after them is the next line) */
	const char *quiet = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
			    "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"name\":\"dumps\"}}\n"
			    "{\"jsonrpc\":\"2.0\",\"method\":\"nosuch\"}\n";
	srv_send(&s, quiet, strlen(quiet));
	ask(&s, "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"ping\"}", "11", &a);
	ck_assert(jv_get(&a, "result") != NULL);
	jv_free(&a);
	/* wrong arguments: an error answer, one line */
	tool_err(&s, "classes", "{\"dump\":1}", "'dump' must be a string");
	tool_err(&s, "dumps", "{\"x\":1}", "unknown argument 'x'");
	tool_err(&s, "open", "{\"path\":\"d.hprof\",\"heapshot\":\"2\"}", "'heapshot' must be a whole number");
	tool_err(&s, "open", "{\"path\":[]}", "'path' must be a string");
	tool_err(&s, "classes", "{\"dump\":\"d1\"}", "no dump open as 'd1'");
	struct jv o;
	char *open = xasprintf("{\"path\":\"%s\"}", dump);
	tool_ok(&s, "open", open, &o);
	jv_free(&o);
	free(open);
	tool_err(&s, "classes", "{\"dump\":\"d1\",\"limit\":0}", "'limit' must be a whole number from 1 to 1000");
	tool_err(&s, "classes", "{\"dump\":\"d1\",\"limit\":1.5}", "'limit'");
	tool_err(&s, "classes", "{\"dump\":\"d1\",\"reverse\":\"yes\"}", "'reverse' must be true or false");
	tool_err(&s, "classes", "{\"dump\":\"d1\",\"depth\":2}", "unknown argument 'depth'");
	tool_err(&s, "biggest", "{\"dump\":\"d1\",\"object\":\"zz\"}", "not an object id");
	/* the views' arguments that the view the steps end in does not read:
	 * refused, not ignored, as the command line's options are */
	tool_err(&s, "query", "{\"dump\":\"d1\",\"steps\":\"all | biggest\",\"sort\":\"name\"}",
		 "'sort' goes with classes, not biggest");
	tool_err(&s, "query", "{\"dump\":\"d1\",\"steps\":\"all | info\",\"depth\":2}",
		 "'depth' goes with biggest, allocations, merged-*, graph and report, not info");
	tool_err(&s, "query", "{\"dump\":\"d1\",\"steps\":\"all | objects\",\"max\":2}", "'max' goes with");
	tool_err(&s, "query", "{\"dump\":\"d1\",\"steps\":\"all\",\"filter\":\"x\",\"reverse\":true,\"max\":3}",
		 "'max' goes with paths, lifelines, graph and report, not classes");
	tool_ok(&s, "query", "{\"dump\":\"d1\",\"steps\":\"all | biggest\",\"depth\":2,\"limit\":2}", &o);
	jv_free(&o);
	tool_ok(&s, "classes", "{\"dump\":\"d1\",\"limit\":3}", &o);
	ck_assert(jv_get(&o, "rows") != NULL && jv_get(&o, "rows")->n == 3);
	jv_free(&o);
	int st = srv_end(&s);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
}
END_TEST

/* a line over 4 MiB: one -32600, and the next is answered; CR LF; the
 * last line without its newline */
START_TEST(test_lines)
{
	struct srv s;
	struct jv a;
	size_t big = (4u << 20) + 100;
	char *line = xmalloc(big + 1);

	srv_start(&s, NULL, dir);
	memcpy(line, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":\"", 46);
	memset(line + 46, 'a', big - 48);
	memcpy(line + big - 2, "\"}", 2);
	line[big] = '\n';
	srv_send(&s, line, big + 1);
	free(line);
	char *l = srv_line(&s);
	ck_assert(l != NULL);
	char err[256];
	ck_assert_msg(json_parse(l, strlen(l), &a, err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(error_code(&a), -32600);
	ck_assert(jv_get(&a, "id")->t == J_NULL);
	jv_free(&a);
	free(l);
	ask(&s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}", "2", &a);
	jv_free(&a);
	ask(&s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\r", "3", &a);
	ck_assert(jv_get(&a, "result") != NULL);
	jv_free(&a);
	const char *last = "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}";
	srv_send(&s, last, strlen(last));
	close(s.to);
	s.to = -1;
	l = srv_line(&s);
	ck_assert_msg(l != NULL && strstr(l, "\"id\":4") != NULL && strstr(l, "\"result\"") != NULL, "%s", l);
	free(l);
	ck_assert(srv_line(&s) == NULL);
	int st = srv_end(&s);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
}
END_TEST

/* A client that goes away while big answers are written: the server ends
 * 0, not by a signal (so no core) */
START_TEST(test_client_gone)
{
	struct srv s;
	struct jv o;

	srv_start(&s, NULL, dir);
	char *open = xasprintf("{\"path\":\"%s\"}", dump);
	tool_ok(&s, "open", open, &o);
	jv_free(&o);
	free(open);
	close(s.from);
	s.from = -1;
	struct sbuf many;
	sbuf_init(&many);
	for (int i = 0; i < 50; i++)
		sbuf_printf(&many, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/list\"}\n"
			    "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"query\","
			    "\"arguments\":{\"dump\":\"d1\",\"steps\":\"all | objects\",\"limit\":1000}}}\n", 2 * i, 2 * i + 1);
	write_full(s.to, many.buf, many.len); /* may fail: the server is gone */
	sbuf_free(&many);
	int st = srv_end(&s);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d (signal %d)", st,
		      WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	/* and one whose input ends: 0 */
	srv_start(&s, NULL, dir);
	st = srv_end(&s);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
}
END_TEST

/* A call cancelled while it works (notifications/cancelled, sent with
 * it: the server has read it before the work's first tick) goes
 * unanswered, and the server answers what comes next; the dump is whole
 * after it. A cancellation of nothing in progress changes nothing. */
START_TEST(test_cancel)
{
	struct srv s;
	struct jv o, a;

	srv_start(&s, NULL, dir);
	char *open = xasprintf("{\"path\":\"%s\"}", dump);
	tool_ok(&s, "open", open, &o);
	jv_free(&o);
	free(open);
	static const char call[] =
		"{\"jsonrpc\":\"2.0\",\"id\":\"c1\",\"method\":\"tools/call\",\"params\":{\"name\":\"query\","
		"\"arguments\":{\"dump\":\"d1\",\"steps\":\"all | reachable | info\"}}}\n"
		"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"c1\"}}\n";
	srv_send(&s, call, sizeof call - 1);
	ask(&s, "{\"jsonrpc\":\"2.0\",\"id\":77,\"method\":\"ping\"}", "77", &a); /* c1's answer would come first */
	jv_free(&a);
	ask(&s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"zz\"}}\n"
		"{\"jsonrpc\":\"2.0\",\"id\":78,\"method\":\"ping\"}", "78", &a);
	jv_free(&a);
	tool_ok(&s, "query", "{\"dump\":\"d1\",\"steps\":\"all | reachable | info\"}", &o);
	const struct jv *n = jv_get(&o, "set_objects"), *all = jv_get(&o, "objects");
	ck_assert_msg(n != NULL && all != NULL && n->num > 0 && n->num <= all->num, "the set after a cancelled call");
	jv_free(&o);
	int st = srv_end(&s);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
	/* an open cancelled while it reads (no cache: it works, and looks)
	 * is unanswered, and keeps no handle that the client never heard of
	 * (it held memory and one of the slots) */
	srv_start(&s, "--no-cache", dir);
	char *oc = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":\"o1\",\"method\":\"tools/call\",\"params\":{\"name\":\"open\","
			     "\"arguments\":{\"path\":\"%s\"}}}\n"
			     "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"o1\"}}\n",
			     dump);
	srv_send(&s, oc, strlen(oc));
	free(oc);
	ask(&s, "{\"jsonrpc\":\"2.0\",\"id\":79,\"method\":\"ping\"}", "79", &a); /* o1's answer would come first */
	jv_free(&a);
	tool_ok(&s, "dumps", "{}", &o);
	ck_assert_msg(jv_get(&o, "dumps")->n == 0, "%zu dumps open after a cancelled open", jv_get(&o, "dumps")->n);
	jv_free(&o);
	st = srv_end(&s);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
}
END_TEST

/* how many lines of /proc/PID/maps name path */
static int mapped(pid_t pid, const char *path)
{
	char p[64];
	size_t n;
	int k = 0;

	snprintf(p, sizeof p, "/proc/%d/maps", (int)pid);
	char *maps = file_bytes(p, &n);
	for (char *l = maps; l != NULL && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l), pl = strlen(path);
		k += len >= pl && memcmp(l + len - pl, path, pl) == 0;
	}
	free(maps);
	return k;
}

/* What an open says on the command line's stderr comes with its answer,
 * as a second text: the user's rules not applied to a .NET dump, each
 * file named (a trial: the server dropped it, and named the first
 * file alone). */
START_TEST(test_open_notes)
{
	struct srv s;
	struct jv a;
	char r1[600], r2[600];

	snprintf(r1, sizeof r1, "%s/mcp-a.rules", hw_tmpdir());
	snprintf(r2, sizeof r2, "%s/mcp-b.rules", hw_tmpdir());
	for (int i = 0; i < 2; i++) {
		FILE *f = fopen(i ? r2 : r1, "w");
		ck_assert(f != NULL && fputs("weak java.util.HashMap *\n", f) >= 0 && fclose(f) == 0);
	}
	const char *args[] = { "--no-cache", "--rules", r1, "--rules", r2, TEST_SRCDIR "/dotnet", NULL };
	srv_start_argv(&s, args);
	ask(&s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"open\","
		"\"arguments\":{\"path\":\"workload.gcdump\"}}}", "1", &a);
	const struct jv *r = jv_get(&a, "result"), *c = jv_get(r, "content");
	const struct jv *ie = jv_get(r, "isError");
	ck_assert_msg(c != NULL && c->t == J_ARR && c->n == 2 && ie != NULL && ie->t == J_BOOL && !ie->b,
		      "the open's answer");
	const struct jv *t = jv_get(&c->v[1], "text");
	char *want = xasprintf(": the rules of %s, %s are not applied: they classify the references of JVM heaps, "
			       "and this is a .NET (gcdump) dump", r1, r2);
	ck_assert_msg(t != NULL && t->t == J_STR && strstr(t->s, want) != NULL, "%s", t != NULL ? t->s : "no text");
	free(want);
	jv_free(&a);
	/* the next call says nothing of it again */
	struct jv o;
	tool_ok(&s, "classes", "{\"dump\":\"d1\",\"limit\":1}", &o);
	jv_free(&o);
	int st = srv_end(&s);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
}
END_TEST

/* closed, a dump is no longer mapped, nor its index; 16 open at most */
START_TEST(test_close_unmaps)
{
	struct srv s;
	struct jv o;
	char hwi[1200];

	srv_start(&s, NULL, dir);
	char *open = xasprintf("{\"path\":\"%s\"}", dump);
	tool_ok(&s, "open", open, &o);
	jv_free(&o);
	tool_ok(&s, "biggest", "{\"dump\":\"d1\",\"limit\":2}", &o);
	jv_free(&o);
	snprintf(hwi, sizeof hwi, "%s.hwi", dump);
	ck_assert_msg(mapped(s.pid, dump) > 0, "the open dump is not mapped (the test sees nothing)");
	ck_assert_msg(access(hwi, F_OK) == 0, "no index cache beside the dump");
	tool_ok(&s, "close", "{\"dump\":\"d1\"}", &o);
	jv_free(&o);
	ck_assert_msg(mapped(s.pid, dump) == 0, "%s still mapped after close", dump);
	ck_assert_msg(mapped(s.pid, hwi) == 0, "%s still mapped after close", hwi);
	for (int i = 0; i < 16; i++) {
		tool_ok(&s, "open", open, &o);
		jv_free(&o);
	}
	tool_err(&s, "open", open, "16 dumps are open");
	free(open);
	int st = srv_end(&s);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
}
END_TEST

/* only regular files under the directory */
START_TEST(test_paths)
{
	struct srv s;
	char sub[1100], p[1300];

	snprintf(sub, sizeof sub, "%s/in", dir);
	ck_assert(mkdir(sub, 0700) == 0);
	srv_start(&s, NULL, sub);
	snprintf(p, sizeof p, "{\"path\":\"%s\"}", dump); /* outside */
	tool_err(&s, "open", p, "d.hprof: outside the directories");
	snprintf(p, sizeof p, "{\"path\":\"%s/../d.hprof\"}", sub);
	tool_err(&s, "open", p, "/in/../d.hprof: outside the directories");
	char link[1200];
	snprintf(link, sizeof link, "%s/link.hprof", sub);
	ck_assert(symlink(dump, link) == 0);
	snprintf(p, sizeof p, "{\"path\":\"%s\"}", link);
	tool_err(&s, "open", p, "link.hprof: outside the directories");
	/* what is missing outside answers as what is there: nothing of the
	 * files outside is told */
	snprintf(p, sizeof p, "{\"path\":\"%s/no-such.hprof\"}", dir);
	tool_err(&s, "open", p, "no-such.hprof: outside the directories");
	tool_err(&s, "open", "{\"path\":\"../no-such-dir/x.hprof\"}", "x.hprof: outside the directories");
	snprintf(p, sizeof p, "{\"path\":\"%s/../no-such.hprof\"}", link);
	tool_err(&s, "open", p, "no-such.hprof: outside the directories");
	/* and inside, the missing file is said to be missing */
	tool_err(&s, "open", "{\"path\":\"no-such.hprof\"}", "no-such.hprof: No such file or directory");
	char fifo[1200];
	snprintf(fifo, sizeof fifo, "%s/fifo.hprof", sub);
	ck_assert(mkfifo(fifo, 0600) == 0);
	snprintf(p, sizeof p, "{\"path\":\"%s\"}", fifo);
	tool_err(&s, "open", p, "fifo.hprof: not a regular file");
	snprintf(p, sizeof p, "{\"path\":\"%s/.\"}", sub);
	tool_err(&s, "open", p, "/in/.: not a regular file");
	/* a name with a control character, escaped in the answer */
	tool_err(&s, "open", "{\"path\":\"../x\\u001by\"}", "\\x1b");
	int st = srv_end(&s);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
}
END_TEST

/* A path 500 steps deep: its first and last 100 steps, a row for the 300
 * between and the summary's count (the command line's is whole); an
 * error quoting a huge argument: its first 4096 bytes and a count of the
 * rest, not all of it back */
START_TEST(test_deep_path_and_long_error)
{
	enum { N = 500, FIRST = HW_CHAIN_FIRST };
	struct srv s;
	struct jv o;

	char *path = hw_write_chain(dir, "chain.hprof", N);
	srv_start(&s, NULL, dir);
	char *args = xasprintf("{\"path\":\"%s\"}", path);
	tool_ok(&s, "open", args, &o);
	jv_free(&o);
	free(args);
	args = xasprintf("{\"dump\":\"d1\",\"object\":\"0x%x\"}", FIRST + 16 * (N - 1));
	tool_ok(&s, "paths", args, &o);
	free(args);
	const struct jv *rows = jv_get(&o, "rows"), *left = jv_get(&o, "steps_left_out");
	ck_assert_msg(rows != NULL && rows->n == 201, "%zu rows", rows ? rows->n : 0);
	ck_assert_msg(left != NULL && left->t == J_STR && strstr(left->s, ": 300 steps left out") != NULL, "no summary");
	for (size_t i = 0; i < rows->n; i++) {
		const struct jv *r = &rows->v[i], *id = jv_get(r, "id");
		size_t step = (size_t)jv_get(r, "step")->u, want = i <= 100 ? i : i + 299;
		ck_assert_msg(step == want, "row %zu: step %zu, not %zu", i, step, want);
		if (i == 100)
			ck_assert_msg(id->t == J_NULL && strcmp(jv_get(r, "object")->s, "(300 steps left out)") == 0, "row 100");
		else
			ck_assert_msg(id->t == J_STR && strtoull(id->s, NULL, 16) == FIRST + 16 * step, "row %zu: %s", i, id->s);
	}
	jv_free(&o);
	struct sbuf huge;
	sbuf_init(&huge);
	sbuf_adds(&huge, "{\"path\":\"");
	for (int i = 0; i < 100000; i++)
		sbuf_addc(&huge, 'A');
	sbuf_adds(&huge, "\"}");
	int e;
	char *t = tool(&s, "open", huge.buf, &e);
	ck_assert_msg(e && strlen(t) < 4200 && strstr(t, " bytes more)") != NULL, "%zu bytes: %.100s", strlen(t), t);
	free(t);
	sbuf_free(&huge);
	int st = srv_end(&s);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
	/* the command line's: whole */
	char *cmd = xasprintf("%s -q -f csv paths %s 0x%x", heapwalk(), path, FIRST + 16 * (N - 1));
	char *out = run(cmd, &st);
	size_t lines = 0;
	for (const char *c = out; *c; c++)
		lines += *c == '\n';
	ck_assert_msg(st == 0 && lines == N + 1, "%zu lines", lines);
	free(out);
	free(cmd);
	free(path);
}
END_TEST

/* snapshot of a live Node process: the file, and what the command line
 * says of it (it said "" : its summary went to /dev/null) */
START_TEST(test_snapshot_said)
{
	struct srv s;
	struct jv o;

	if (!have("node")) {
		fprintf(stderr, "mcp: no node: the snapshot tool is not tried\n");
		return;
	}
	char *ready = xasprintf("%s/node.ready", dir);
	char *js = xasprintf("global.kept = []; setInterval(() => kept.push({}), 100); "
			     "require('fs').writeFileSync('%s', 'ready')", ready);
	pid_t pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0), dup2(null, 1), dup2(null, 2);
		execlp("node", "node", "-e", js, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 1200 && access(ready, F_OK) != 0; i++) /* running, its signal handlers set */
		usleep(100000);
	ck_assert_msg(access(ready, F_OK) == 0, "node did not start");
	free(ready);
	free(js);
	srv_start(&s, NULL, dir);
	char *args = xasprintf("{\"pid\":%ld,\"path\":\"live.heapsnapshot\"}", (long)pid);
	tool_ok(&s, "snapshot", args, &o);
	free(args);
	const struct jv *said = jv_get(&o, "said"), *file = jv_get(&o, "file");
	ck_assert_msg(said != NULL && said->t == J_STR && strstr(said->s, "bytes of V8 heap snapshot") != NULL &&
		      file != NULL && strstr(file->s, "/live.heapsnapshot") != NULL, "said: %s", said ? said->s : "none");
	jv_free(&o);
	int st = srv_end(&s);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
	kill(pid, SIGKILL); /* ours, started above */
	waitpid(pid, &st, 0);
}
END_TEST

/* a dump cut short while open: the call says so, the dump is closed,
 * the server goes on */
START_TEST(test_shrink)
{
	leaks_expected = 1;
	for (int cache = 0; cache <= 1; cache++) {
		struct srv s;
		struct jv o;
		char copy[1200];

		snprintf(copy, sizeof copy, "%s/shrink%d.hprof", dir, cache);
		char *cmd = xasprintf("cp '%s' '%s'", dump, copy);
		int st;
		free(run(cmd, &st));
		free(cmd);
		srv_start(&s, cache ? NULL : "--no-cache", dir);
		char *open = xasprintf("{\"path\":\"%s\"}", copy);
		tool_ok(&s, "open", open, &o);
		jv_free(&o);
		free(open);
		/* the array of references that retains most, read element by element */
		tool_ok(&s, "query", "{\"dump\":\"d1\",\"steps\":\"instances [Ljava.lang.Object; | objects\","
				     "\"limit\":1}", &o);
		const struct jv *rows = jv_get(&o, "rows");
		ck_assert(rows != NULL && rows->n == 1);
		char *args = xasprintf("{\"dump\":\"d1\",\"object\":\"%s\",\"limit\":1000}", jv_get(&rows->v[0], "id")->s);
		jv_free(&o);
		ck_assert(truncate(copy, 4096) == 0);
		tool_err(&s, "object", args, "closed d1: the dump file changed or shrank while being read (SIGBUS)");
		tool_ok(&s, "dumps", "{}", &o);
		ck_assert_msg(jv_get(&o, "dumps")->n == 0, "the dump is still open");
		jv_free(&o);
		tool_err(&s, "classes", "{\"dump\":\"d1\"}", "no dump open as 'd1'");
		open = xasprintf("{\"path\":\"%s\"}", dump);
		tool_ok(&s, "open", open, &o);
		jv_free(&o);
		free(open);
		tool_ok(&s, "classes", "{\"dump\":\"d2\",\"limit\":2}", &o);
		jv_free(&o);
		free(args);
		st = srv_end(&s);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
	}
}
END_TEST

Suite *mcp_suite(void)
{
	Suite *s = suite_create("mcp");
	TCase *tc = tcase_create("jsonv");

	tcase_set_timeout(tc, HANG_TIMEOUT);
	tcase_add_test(tc, test_jsonv_rfc8259);
	tcase_add_test(tc, test_jsonv_depth);
	tcase_add_test(tc, test_jsonv_round_trip);
	suite_add_tcase(s, tc);
	tc = tcase_create("server");
	tcase_set_timeout(tc, FIXTURE_TIMEOUT);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_protocol);
	tcase_add_test(tc, test_lines);
	tcase_add_test(tc, test_client_gone);
	tcase_add_test(tc, test_cancel);
	tcase_add_test(tc, test_deep_path_and_long_error);
	tcase_add_test(tc, test_snapshot_said);
	tcase_add_test(tc, test_close_unmaps);
	tcase_add_test(tc, test_paths);
	tcase_add_test(tc, test_shrink);
	suite_add_tcase(s, tc);
	tc = tcase_create("notes"); /* the recorded .gcdump: no JDK */
	tcase_set_timeout(tc, FIXTURE_TIMEOUT);
	tcase_add_test(tc, test_open_notes);
	suite_add_tcase(s, tc);
	return s;
}
