/* drive_mcp.c — the mcp fuzzer's body (fuzz_mcp, drive.h): the input's
 * lines are messages to a heapwalk mcp server (mcp_message) that has the
 * synthetic rich dump open as d1 and, when FUZZ_DUMPS names a directory
 * with a JDK dump of at most 4 MB, the smallest as d2. Every answer is
 * checked with the tests' own strict reader (tests/jsonck.c), not the
 * server's: one line, JSON-RPC 2.0, the request's id, an answer exactly
 * when one is due, a tool's text JSON itself when it is no error. And
 * the whole input goes through jsonv: what it reads it writes as JSON
 * that reads back the same (numbers' text kept), what the strict reader
 * takes it takes and the other way round (duplicate names and depth
 * aside), any bytes written as a string are a JSON string. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../tests/jsonck.h"
#include "drive.h"
#include "dumps.h"
#include "util.h"

/* The independent reader's values are struct jv (jsonck.h), the
 * server's struct jval (cli/jsonv.h). */

/* ---- the server's side ---- */

#include "cli/jsonv.h"
#include "cli/mcp.h"

static struct mcp *server;
static char *mdir, *jdk;
static struct sbuf initial; /* the dumps tool's answer after set-up */

static void say(struct mcp *m, const char *line, struct sbuf *out)
{
	sbuf_reset(out);
	mcp_message(m, line, strlen(line), out);
}

/* The smallest *.hprof of at most 4 MB in FUZZ_DUMPS (or a directory
 * in it), NULL if none. */
static char *small_jdk_dump(void)
{
	const char *top = getenv("FUZZ_DUMPS");
	char *best = NULL;
	off_t best_size = 4 << 20;

	if (top == NULL || *top == '\0')
		return NULL;
	DIR *d = opendir(top);
	struct dirent *e;
	while (d != NULL && (e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		struct stat st;
		char *p = xasprintf("%s/%s", top, e->d_name);
		if (n > 6 && strcmp(e->d_name + n - 6, ".hprof") == 0 && stat(p, &st) == 0 && S_ISREG(st.st_mode) &&
		    st.st_size <= best_size) {
			free(best);
			best = p;
			best_size = st.st_size;
		} else {
			free(p);
		}
	}
	if (d != NULL)
		closedir(d);
	return best;
}

static void copy_file(const char *from, const char *to)
{
	size_t n;
	FILE *f = fopen(from, "rb");
	struct sbuf sb;
	char buf[65536];

	if (f == NULL)
		hw_fatal("cannot read %s", from);
	sbuf_init(&sb);
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		sbuf_add(&sb, buf, n);
	fclose(f);
	fuzz_put_file(to, sb.buf, sb.len);
	sbuf_free(&sb);
}

/* A server with the dumps open, as at the start of every input. */
static void set_up(void)
{
	struct sbuf err, out;
	struct open_opts oo = { .quiet = 1 };
	const char *dir = mdir;

	sbuf_init(&err);
	sbuf_init(&out);
	if ((server = mcp_new(&dir, 1, &oo, &err)) == NULL)
		hw_fatal("mcp_new: %s", err.buf);
	char *msg = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"tools/call\",\"params\":{\"name\":"
			      "\"open\",\"arguments\":{\"path\":\"%s/rich.hprof\"}}}", mdir);
	say(server, msg, &out);
	free(msg);
	if (strstr(out.buf, "\"isError\":false") == NULL)
		hw_fatal("the rich dump does not open: %s", out.buf);
	if (jdk != NULL) {
		msg = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"tools/call\",\"params\":{\"name\":"
				"\"open\",\"arguments\":{\"path\":\"%s\"}}}", jdk);
		say(server, msg, &out);
		free(msg);
		if (strstr(out.buf, "\"isError\":false") == NULL)
			hw_fatal("the JDK dump does not open: %s", out.buf);
	}
	say(server, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"tools/call\",\"params\":{\"name\":\"dumps\"}}", &initial);
	sbuf_free(&err);
	sbuf_free(&out);
}

static void init_mcp(void)
{
	if (mdir != NULL)
		return;
	mdir = xasprintf("%s/mcp", fuzz_dir());
	if (mkdir(mdir, 0700) < 0)
		hw_fatal("cannot make %s", mdir);
	struct hw w;
	fz_rich(&w);
	free(hw_write_in(&w, mdir, "rich.hprof", SIZE_MAX));
	hw_free(&w);
	char *small = small_jdk_dump();
	if (small != NULL) {
		jdk = xasprintf("%s/jdk.hprof", mdir);
		copy_file(small, jdk);
		free(small);
	}
	sbuf_init(&initial);
	set_up();
}

void fuzz_init_mcp(void)
{
	init_mcp();
}

/* The request's id as the answer must give it back: NULL for null. */
static const struct jval *request_id(const struct jval *req)
{
	const struct jval *id = jval_get(req, "id");

	if (id == NULL || !(id->t == JV_STR || (id->t == JV_NUM && strpbrk(id->s, ".eE") == NULL)))
		return NULL;
	return id;
}

/* Is an answer due? Not to a JSON-RPC 2.0 notification (a string
 * method, no id) nor to a response (no method; result or error). */
static int answer_due(int parsed, const struct jval *req)
{
	if (!parsed || req->t != JV_OBJ)
		return 1;
	const char *jr = jval_str(jval_get(req, "jsonrpc"));
	if (jr == NULL || strcmp(jr, "2.0") != 0)
		return 1;
	const struct jval *method = jval_get(req, "method");
	if (method == NULL)
		return jval_get(req, "result") == NULL && jval_get(req, "error") == NULL;
	return method->t != JV_STR || jval_get(req, "id") != NULL;
}

static int is_tool_call(const struct jval *req, const char *name)
{
	const char *meth = jval_str(jval_get(req, "method"));
	const char *t = jval_str(jval_get(jval_get(req, "params"), "name"));

	return meth != NULL && strcmp(meth, "tools/call") == 0 && t != NULL && (name == NULL || strcmp(t, name) == 0);
}

static void check_answer(const char *line, size_t n, const struct sbuf *out)
{
	struct jval req;
	struct sbuf why;
	char err[256];

	sbuf_init(&why);
	int parsed = jval_parse(line, n, &req, &why) == 0;
	sbuf_free(&why);
	int due = answer_due(parsed, &req);
	if (out->len == 0) {
		if (due)
			fuzz_finding("no answer to a message that needs one: %.*s", (int)(n < 300 ? n : 300), line);
		jval_free(&req);
		return;
	}
	if (!due)
		fuzz_finding("an answer to a notification or response: %s", out->buf);
	if (out->buf[out->len - 1] != '\n' || memchr(out->buf, '\n', out->len - 1) != NULL)
		fuzz_finding("an answer is not one line: %s", out->buf);
	struct jv a;
	if (json_parse(out->buf, out->len - 1, &a, err, sizeof err) < 0)
		fuzz_finding("an answer is no strict JSON (%s): %s", err, out->buf);
	const struct jv *jr = jv_get(&a, "jsonrpc"), *id = jv_get(&a, "id"), *res = jv_get(&a, "result"),
		  *e = jv_get(&a, "error");
	if (a.t != J_OBJ || jr == NULL || jr->t != J_STR || strcmp(jr->s, "2.0") != 0 || id == NULL ||
	    (res == NULL) == (e == NULL))
		fuzz_finding("an answer is no JSON-RPC 2.0 response: %s", out->buf);
	const struct jval *rid = parsed ? request_id(&req) : NULL;
	int same_id = rid == NULL ? id->t == J_NULL
		      : rid->t == JV_STR ? id->t == J_STR && id->len == rid->len && memcmp(id->s, rid->s, rid->len) == 0
					 : id->t == J_NUM && (!id->is_uint || id->u == strtoull(rid->s, NULL, 10));
	if (!same_id)
		fuzz_finding("the answer's id is not the request's: %s", out->buf);
	if (e != NULL) {
		const struct jv *code = jv_get(e, "code"), *msg = jv_get(e, "message");
		if (code == NULL || code->t != J_NUM || msg == NULL || msg->t != J_STR ||
		    (code->num != -32700 && code->num != -32600 && code->num != -32601 && code->num != -32602))
			fuzz_finding("an error of no JSON-RPC code and message: %s", out->buf);
		if ((code->num == -32700) != !parsed)
			fuzz_finding("a parse error answered other than -32700, or -32700 to JSON: %s", out->buf);
	}
	if (res != NULL && parsed && is_tool_call(&req, NULL)) {
		const struct jv *c = jv_get(res, "content"), *ise = jv_get(res, "isError");
		/* the answer's text, and a second of notes (stderr's lines) after an answer */
		const struct jv *text = c != NULL && c->t == J_ARR && (c->n == 1 || c->n == 2) ? jv_get(&c->v[0], "text") : NULL;
		const struct jv *notes = text != NULL && c->n == 2 ? jv_get(&c->v[1], "text") : NULL;
		if (text == NULL || text->t != J_STR || ise == NULL || ise->t != J_BOOL ||
		    (c->n == 2 && (ise->b || notes == NULL || notes->t != J_STR || notes->len == 0)))
			fuzz_finding("a tool's answer without its text and isError: %s", out->buf);
		if (ise->b) {
			if (memchr(text->s, '\n', text->len) != NULL)
				fuzz_finding("a tool's error of more than one line: %s", out->buf);
		} else {
			struct jv t;
			if (json_parse(text->s, text->len, &t, err, sizeof err) < 0)
				fuzz_finding("a tool's answer is no strict JSON (%s): %s", err, text->s);
			jv_free(&t);
			if (text->len > MCP_ANSWER_MAX + 64)
				fuzz_finding("a tool's answer of %zu bytes, over the bound", text->len);
		}
	}
	jv_free(&a);
	jval_free(&req);
}

/* v and w hold the same (numbers' and strings' bytes, names, order). */
static int same(const struct jval *v, const struct jval *w)
{
	if (v->t != w->t || v->n != w->n || v->len != w->len)
		return 0;
	if ((v->t == JV_NUM || v->t == JV_STR) && memcmp(v->s, w->s, v->len) != 0)
		return 0;
	for (size_t i = 0; i < v->n; i++)
		if ((v->t == JV_OBJ && strcmp(v->keys[i], w->keys[i]) != 0) || !same(&v->items[i], &w->items[i]))
			return 0;
	return 1;
}

/* jsonv against itself and against the strict reader. */
static void round_trip(const uint8_t *data, size_t len)
{
	struct jval v, w;
	struct sbuf why, a, b;
	char err[256];
	struct jv c;

	sbuf_init(&why);
	sbuf_init(&a);
	sbuf_init(&b);
	int ours = jval_parse((const char *)data, len, &v, &why) == 0;
	int theirs = json_parse((const char *)data, len, &c, err, sizeof err) == 0;
	jv_free(&c);
	if (ours && !theirs && strstr(err, "twice") == NULL && strstr(err, "nested deeper") == NULL)
		fuzz_finding("jsonv takes what the strict reader refuses (%s)", err);
	if (!ours && theirs && strstr(why.buf, "nested too deep") == NULL)
		fuzz_finding("jsonv refuses strict JSON (%s)", why.buf);
	if (ours) {
		jval_write(&a, &v);
		sbuf_reset(&why);
		if (jval_parse(a.buf, a.len, &w, &why) < 0)
			fuzz_finding("jsonv's own text does not read back (%s): %s", why.buf, a.buf);
		jval_write(&b, &w);
		if (!same(&v, &w) || a.len != b.len || memcmp(a.buf, b.buf, a.len) != 0)
			fuzz_finding("jsonv's text reads back as another value: %s\n%s", a.buf, b.buf);
		if (json_parse(a.buf, a.len, &c, err, sizeof err) < 0 && strstr(err, "twice") == NULL &&
		    strstr(err, "nested deeper") == NULL)
			fuzz_finding("jsonv writes what the strict reader refuses (%s): %s", err, a.buf);
		jv_free(&c);
		jval_free(&w);
		jval_free(&v);
	}
	sbuf_reset(&a);
	jval_write_str(&a, (const char *)data, len);
	if (json_parse(a.buf, a.len, &c, err, sizeof err) < 0 || c.t != J_STR)
		fuzz_finding("bytes written as a string are no JSON string (%s): %s", err, a.buf);
	jv_free(&c);
	sbuf_free(&why);
	sbuf_free(&a);
	sbuf_free(&b);
}

int fuzz_mcp(const uint8_t *data, size_t len)
{
	struct sbuf out, line;

	init_mcp();
	round_trip(data, len);
	sbuf_init(&out);
	sbuf_init(&line);
	for (size_t from = 0; from < len;) {
		const uint8_t *nl = memchr(data + from, '\n', len - from);
		size_t n = nl ? (size_t)(nl - data) - from : len - from;
		sbuf_reset(&line);
		sbuf_add(&line, (const char *)data + from, n);
		from += n + 1;
		/* snapshot runs /proc/self/exe, here the fuzzer itself */
		struct jval req;
		struct sbuf why;
		sbuf_init(&why);
		int skip = jval_parse(line.buf, line.len, &req, &why) == 0 && is_tool_call(&req, "snapshot");
		jval_free(&req);
		sbuf_free(&why);
		if (skip)
			continue;
		sbuf_reset(&out);
		mcp_message(server, line.buf, line.len, &out);
		check_answer(line.buf, line.len, &out);
	}
	/* the next input starts where this one did */
	say(server, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"tools/call\",\"params\":{\"name\":\"dumps\"}}", &out);
	if (out.len != initial.len || memcmp(out.buf, initial.buf, out.len) != 0) {
		mcp_free(server);
		sbuf_reset(&initial);
		set_up();
	}
	sbuf_free(&out);
	sbuf_free(&line);
	return 0;
}
