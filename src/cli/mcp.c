/* mcp.c — heapwalk mcp (see mcp.h). Three parts: the tools (each turns
 * its arguments into the steps and the command the command line would
 * run, and runs it on the dumps it keeps open: run.c, as main does),
 * their answers paged and bounded, and JSON-RPC around them. */
#include "cli/mcp.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/jsonv.h"
#include "cli/run.h"
#include "config.h"
#include "graph/open.h"
#include "graph/reader.h"
#include "graph/resident.h"
#include "query/inspect.h"
#include "query/leaks.h"
#include "query/pattern.h"

extern char **environ;

/* The protocol's revisions this server speaks, the newest first. */
static const char *const versions[] = { "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05" };

struct dump {
	int open;
	unsigned serial; /* its handle: "d<serial>" */
	char *path;      /* as resolved */
	struct heap h;
};

struct mcp {
	struct dump d[MCP_DUMPS_MAX];
	unsigned serial;
	char **dirs;
	size_t ndirs;
	struct open_opts oo;
	struct progress p;
	struct dump *used[4]; /* the dumps the call being answered uses */
	size_t nused;
	struct sbuf note;     /* what the command line would say on stderr: a second text */
	/* the input: what was read and not yet answered, the client's end */
	int in, out, eof;
	struct sbuf pending;
	size_t scanned;       /* of pending, the lines a call's tick has looked at */
	const struct jval *current; /* the id of the request being answered */
	int cancelled;        /* it was cancelled (or the client has gone) */
};

/* ---- a call's failure contained ----
 * A dump that shrinks under a call (SIGBUS) and a part of the index
 * refused after all (hw_refuse) unwind to tools_call; the dumps the call
 * used (m->used) are let go of, closed: what the call had allocated,
 * and their memory, which may be half made, are not freed. */
static sigjmp_buf guard;
static volatile sig_atomic_t guarded, failed;

static void on_bus(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	if (guarded) {
		guarded = 0;
		failed = sig;
		siglongjmp(guard, 1);
	}
	map_fault_exit(si != NULL ? si->si_addr : NULL, 2);
}

static void on_oom(size_t n)
{
	(void)n;
	if (guarded && hw_refusal() != NULL) {
		guarded = 0;
		failed = 1;
		siglongjmp(guard, 1);
	}
}

/* ---- arguments ---- */

struct args {
	const struct jval *a;
	struct sbuf *err;
};

static const struct jval *arg(const struct args *x, const char *key)
{
	const struct jval *v = jval_get(x->a, key);

	return v != NULL && v->t == JV_NULL ? NULL : v;
}

/* A string argument: 0 with *s (NULL when absent and not required), -1 with err. */
static int arg_str(const struct args *x, const char *key, int required, const char **s)
{
	const struct jval *v = arg(x, key);

	*s = NULL;
	if (v == NULL) {
		if (!required)
			return 0;
		sbuf_printf(x->err, "'%s' is required", key);
		return -1;
	}
	if ((*s = jval_str(v)) == NULL) {
		sbuf_printf(x->err, "'%s' must be a string (without NUL)", key);
		return -1;
	}
	return 0;
}

static int arg_int(const struct args *x, const char *key, long long min, long long max, long long def,
		   long long *out)
{
	const struct jval *v = arg(x, key);

	*out = def;
	if (v == NULL)
		return 0;
	if (jval_int(v, min, max, out) < 0) {
		sbuf_printf(x->err, "'%s' must be a whole number from %lld to %lld", key, min, max);
		return -1;
	}
	return 0;
}

static int arg_bool(const struct args *x, const char *key, int *out)
{
	const struct jval *v = arg(x, key);

	*out = 0;
	if (v == NULL)
		return 0;
	if (v->t != JV_TRUE && v->t != JV_FALSE) {
		sbuf_printf(x->err, "'%s' must be true or false", key);
		return -1;
	}
	*out = v->t == JV_TRUE;
	return 0;
}

/* Every argument is one the tool takes (names: "a,b,c"). */
static int args_known(const struct args *x, const char *names)
{
	if (x->a == NULL)
		return 0;
	for (size_t i = 0; i < x->a->n; i++) {
		const char *k = x->a->keys[i], *p = names;
		size_t n = strlen(k);
		int found = 0;
		while (*p && !found) {
			const char *c = strchr(p, ',');
			size_t len = c ? (size_t)(c - p) : strlen(p);
			found = len == n && memcmp(p, k, n) == 0;
			p += len + (c != NULL);
		}
		if (!found) {
			sbuf_adds(x->err, "unknown argument '");
			json_append(x->err, (const uint8_t *)k, n);
			sbuf_printf(x->err, "' (this tool takes: %s)", *names ? names : "none");
			return -1;
		}
	}
	return 0;
}

/* An object id as the steps take it: 0x... or decimal, @ before it or not, nothing else. */
static int arg_object(const struct args *x, const char *key, int required, char *buf, size_t n)
{
	const struct jval *v = arg(x, key);
	uint64_t id;

	buf[0] = '\0';
	if (v == NULL) {
		if (!required)
			return 0;
		sbuf_printf(x->err, "'%s' is required: an object id (\"0x...\" or decimal, \"@\" before it or not)", key);
		return -1;
	}
	const char *s = v->t == JV_NUM || v->t == JV_STR ? v->s : NULL;
	if (s == NULL || strlen(s) >= n || parse_object_id(s, &id) < 0) {
		sbuf_printf(x->err, "'%s' is not an object id: \"0x...\" hex or decimal, \"@\" before it or not", key);
		return -1;
	}
	memcpy(buf, s, strlen(s) + 1);
	return 0;
}

static struct dump *dump_of(struct mcp *m, const struct args *x, const char *key, int required, int *rc)
{
	const char *s;

	*rc = 0;
	if (arg_str(x, key, required, &s) < 0) {
		*rc = -1;
		return NULL;
	}
	if (s == NULL)
		return NULL;
	for (size_t i = 0; i < MCP_DUMPS_MAX; i++) {
		char name[16];
		snprintf(name, sizeof name, "d%u", m->d[i].serial);
		if (m->d[i].open && strcmp(name, s) == 0) {
			if (m->nused < sizeof m->used / sizeof m->used[0])
				m->used[m->nused++] = &m->d[i];
			return &m->d[i];
		}
	}
	sbuf_printf(x->err, "'%s': no dump open as '", key);
	json_append(x->err, (const uint8_t *)s, strlen(s));
	sbuf_adds(x->err, "' (open gives a handle; dumps lists them)");
	*rc = -1;
	return NULL;
}

/* ---- files: only under the server's directories ---- */

static int under(const struct mcp *m, const char *real)
{
	for (size_t i = 0; i < m->ndirs; i++) {
		size_t n = strlen(m->dirs[i]);
		if (strncmp(real, m->dirs[i], n) == 0 && (real[n] == '/' || real[n] == '\0' || n == 1))
			return 1;
	}
	return 0;
}

/* Is the deepest part of path that exists outside every directory of
 * the server's? A path that does not resolve is judged by it, so that
 * what is missing outside them and what is there answer alike: the
 * server tells nothing of what lies outside. */
static int outside(const struct mcp *m, const char *path)
{
	char *p = xstrdup(path);
	int out = 1;

	for (;;) {
		char *r = realpath(*p ? p : "/", NULL);
		if (r != NULL) {
			out = !under(m, r);
			free(r);
			break;
		}
		char *slash = strrchr(p, '/');
		if (slash == NULL)
			break;
		*slash = '\0';
	}
	free(p);
	return out;
}

/* given resolved into a new string (relative to the first directory),
 * when it lies under a directory of the server's: an existing regular
 * file (exist), or a file to make whose directory exists and which does
 * not. NULL with err. */
static char *allowed(const struct mcp *m, const char *given, int exist, struct sbuf *err)
{
	char *real = NULL, *joined = NULL;
	struct stat st;
	const char *path = given;

	if (*path == '\0') {
		sbuf_adds(err, "an empty path");
		return NULL;
	}
	if (*path != '/') /* relative: to the first directory */
		path = joined = xasprintf("%s/%s", m->dirs[0], given);
	int e = 0;
	if (exist) {
		real = realpath(path, NULL);
		e = errno;
	} else {
		char *dir = xstrdup(path), *slash = strrchr(dir, '/');
		const char *base = slash ? slash + 1 : path;
		if (slash == dir)
			slash[1] = '\0';
		else if (slash)
			*slash = '\0';
		char *rd = realpath(slash ? dir : ".", NULL);
		if (rd != NULL && *base != '\0' && strcmp(base, ".") != 0 && strcmp(base, "..") != 0)
			real = xasprintf("%s%s%s", rd, strcmp(rd, "/") == 0 ? "" : "/", base);
		free(rd);
		free(dir);
	}
	char *ep = esc_str(given);
	if (real == NULL && outside(m, path))
		sbuf_printf(err, "%s: outside the directories this server was given", ep);
	else if (real == NULL)
		sbuf_printf(err, "%s: %s", ep, exist ? strerror(e) : "no such directory, or no file name");
	else if (!under(m, real))
		sbuf_printf(err, "%s: outside the directories this server was given", ep);
	else if (exist && (stat(real, &st) < 0 || !S_ISREG(st.st_mode)))
		sbuf_printf(err, "%s: not a regular file", ep);
	else if (!exist && lstat(real, &st) == 0)
		sbuf_printf(err, "%s: exists already", ep);
	else {
		free(ep);
		free(joined);
		return real;
	}
	free(ep);
	free(joined);
	free(real);
	return NULL;
}

/* ---- the answers: rows paged, size bounded ---- */

struct page {
	int paged;               /* the view has rows at its top level */
	long long offset, limit;
	int total_known;         /* total: how many top level rows there are (leaks' clusters) */
	long long total;
};

/* Is row r one at the top level (no "depth", or depth 0)? The views
 * that show a tree give its rows in order, each after its parent. */
static int top_row(const struct jval *r)
{
	const struct jval *d = jval_get(r, "depth"), *st = jval_get(r, "step");

	if (st != NULL && st->t == JV_NUM && strcmp(st->s, "0") != 0) /* a path's later step: with its first (leaks; no other paged view has steps) */
		return 0;
	return d == NULL || d->t != JV_NUM || strcmp(d->s, "0") == 0;
}

/* The command's JSON into out, compact: when paged, the rows of top
 * level rows [offset, offset+limit) with the rows under them (the
 * command ran with offset+limit of them at each level) and a row that
 * sums up those after them (biggest's: no id), "shown" the top level
 * rows given where the view says it, "next_offset" when the page is
 * full (more may follow). */
static int answer(const struct sbuf *json, const struct page *pg, struct sbuf *out, struct sbuf *err)
{
	struct jval v;
	struct sbuf why;

	sbuf_init(&why);
	if (jval_parse(json->buf, json->len, &v, &why) < 0) { /* a bug: the reports write JSON */
		sbuf_printf(err, "internal error: the answer is no JSON (%s)", why.buf);
		sbuf_free(&why);
		return -1;
	}
	sbuf_free(&why);
	struct jval *rows = NULL;
	for (size_t i = 0; v.t == JV_OBJ && i < v.n; i++)
		if (strcmp(v.keys[i], "rows") == 0 && v.items[i].t == JV_ARR)
			rows = &v.items[i];
	if (pg->paged && rows != NULL) {
		size_t k = 0, tops = 0, given = 0;
		long long t = -1; /* the top level row the rows are of */
		int rest = 0;
		for (size_t i = 0; i < rows->n; i++) {
			const struct jval *id = jval_get(&rows->items[i], "id");
			if (top_row(&rows->items[i]) && id != NULL && id->t == JV_NULL) {
				/* biggest's "N more objects": those after this page */
				rest = 1;
				rows->items[k++] = rows->items[i];
				continue;
			}
			if (top_row(&rows->items[i]))
				t++;
			if (t >= pg->offset && t < pg->offset + pg->limit) {
				given += top_row(&rows->items[i]);
				rows->items[k++] = rows->items[i];
			} else {
				jval_free(&rows->items[i]);
			}
		}
		tops = (size_t)(t + 1);
		rows->n = k;
		int shown = 0;
		char num[32];
		snprintf(num, sizeof num, "%zu", given);
		for (size_t i = 0; i < v.n; i++)
			if (strcmp(v.keys[i], "shown") == 0) {
				jval_set_num(&v.items[i], num);
				shown = 1;
			}
		if (!shown && pg->total_known) /* the view says it only when it cut */
			jval_set_num(jval_put(&v, "shown"), num);
		if (pg->total_known ? pg->offset + pg->limit < pg->total : tops == (size_t)(pg->offset + pg->limit) || rest) {
			snprintf(num, sizeof num, "%lld", pg->offset + pg->limit);
			jval_set_num(jval_put(&v, "next_offset"), num);
		}
	}
	size_t at = out->len;
	jval_write(out, &v);
	jval_free(&v);
	if (out->len - at > MCP_ANSWER_MAX) {
		size_t n = out->len - at;
		out->len = at;
		out->buf[at] = '\0';
		sbuf_printf(err, "the answer is %zu bytes, over the %u a call gives: ask for less (limit, depth, max, "
			    "narrower steps)", n, MCP_ANSWER_MAX);
		return -1;
	}
	return 0;
}

/* ---- running a command on open dumps ---- */

struct call {
	struct dump *d, *base;   /* the dump, its baseline (another open dump) or NULL */
	struct sbuf steps;       /* the pipeline's text */
	const struct cmd_entry *e; /* NULL: the view the steps end in, else classes */
	struct cmd_opts o;
	struct page pg;
};

static void call_init(struct call *c)
{
	memset(c, 0, sizeof *c);
	sbuf_init(&c->steps);
	c->o.vo.depth = 1;
	c->o.vo.cutoff = 0.5;
	c->o.vo.max_paths = 5;
	c->o.ninsps = -1;
	c->o.fmt = FMT_JSON;
}

/* The analyses' focus as it was before the call (the steps root and
 * ignore change it): the dump's GC roots, nothing left out. */
static void unfocus(struct heap *h, struct progress *p)
{
	while (h->nignored > 0)
		heap_ignore(h, h->ignored[h->nignored - 1].src, h->ignored[h->nignored - 1].dst, 0, p);
	if (h->aroot != 0)
		heap_set_root(h, 0, p);
}

/* The dumps a call uses: their parts loaded first (a refusal is an
 * answer), then the work guarded. */
static int need(struct heap *h, unsigned parts, struct progress *p, struct sbuf *err)
{
	return parts == 0 ? 0 : heap_try_need(h, parts, p, err);
}

static void close_dump(struct dump *d)
{
	if (!d->open)
		return;
	heap_free(&d->h);
	free(d->path);
	d->path = NULL;
	d->open = 0;
}

static void contained(struct mcp *m, struct sbuf *err)
{
	sbuf_reset(err);
	for (size_t i = 0; i < m->nused; i++) {
		if (!m->used[i]->open)
			continue;
		sbuf_printf(err, "%sd%u", err->len ? ", " : "closed ", m->used[i]->serial);
		m->used[i]->open = 0;
	}
	sbuf_printf(err, "%s%s", err->len ? ": " : "",
		    failed == SIGBUS ? "the dump file changed or shrank while being read (SIGBUS)"
		    : hw_refusal() != NULL ? hw_refusal() : "refused");
	hw_refusal_clear();
	hw_recycle_flush(); /* what the work cut short kept to make again */
}

/* Does the view's -n say how many rows its top level shows? */
static int pages(const struct cmd_entry *e)
{
	static const char *const paged[] = { "classes", "biggest", "objects", "merged-out", "merged-in", "merged-dom",
					     "inspect", "diff" };

	for (size_t i = 0; i < sizeof paged / sizeof paged[0]; i++)
		if (strcmp(e->name, paged[i]) == 0)
			return 1;
	return 0;
}

static int run_call(struct mcp *m, struct call *c, struct sbuf *out, struct sbuf *err)
{
	struct pipeline pl = { 0 }, fpl = { 0 };
	struct sbuf json, note, why;
	struct baseline bl = { 0 };
	struct objset set = { 0 };
	int rc = -1;

	sbuf_init(&why);
	if (c->steps.len > 0) {
		int prc = pipeline_parse(c->steps.buf, &pl, &why);
		if (prc != 0) {
			sbuf_printf(err, "steps: %s", why.buf);
			pipeline_free(&pl); /* what the steps before the error made */
			sbuf_free(&why);
			return -1;
		}
	}
	const struct cmd_entry *e = c->e ? c->e : cmd_view(pl.view ? pl.view : "classes");
	if (!pages(e)) /* rows of another kind: a path's steps, a histogram's buckets */
		c->pg.paged = 0;
	if (c->e != NULL && pl.view != NULL && cmd_view(pl.view) != c->e)
		sbuf_printf(err, "the steps end in the view '%s'; this tool shows %s (the tool query takes any view)",
			    pl.view, c->e->name);
	else if (!(e->formats & CMD_FMT(FMT_JSON)))
		sbuf_printf(err, "%s has no JSON form", e->name);
	const char *misuse = err->len == 0 ? cmd_view_option_misuse(&c->o, 0, c->steps.len > 0, e->flags) : NULL;
	if (misuse != NULL) { /* "--sort goes with classes": the argument's name, quoted */
		size_t n = strcspn(misuse + 2, " ");
		sbuf_printf(err, "'%.*s'%s, not %s", (int)n, misuse + 2, misuse + 2 + n, e->name);
	}
	for (size_t i = 1; i < pl.n && err->len == 0; i++)
		if (pl.steps[i].op == ST_GONE)
			sbuf_adds(err, "steps: 'gone' can only be the first step");
	for (size_t i = 0; i < pl.n && err->len == 0 && c->o.vo.weak; i++)
		if (pl.steps[i].op == ST_REFERRERS || pl.steps[i].op == ST_REFERENTS ||
		    pl.steps[i].op == ST_REACHABLE || pl.steps[i].op == ST_PATH)
			pl.steps[i].weak = 1;
	unsigned parts = cmd_parts(e, &c->o, c->o.object ? 0 : pl.n);
	if (err->len == 0 && need(&c->d->h, parts ? HP_ALL : 0, &m->p, &why) < 0)
		sbuf_add(err, why.buf, why.len);
	if (err->len == 0 && c->base != NULL && need(&c->base->h, HP_ALL, &m->p, &why) < 0)
		sbuf_add(err, why.buf, why.len);
	if (err->len > 0) {
		pipeline_free(&pl);
		sbuf_free(&why);
		return -1;
	}
	sbuf_init(&json);
	sbuf_init(&note);
	c->o.vo.progress = &m->p;
	c->o.top_set = c->pg.paged || c->o.top_set;
	if (c->pg.paged)
		c->o.vo.top = (size_t)(c->pg.offset + c->pg.limit);
	struct dump *used[2] = { c->d, c->base };
	if (run_baseline(&c->d->h, c->base ? &c->base->h : NULL, &pl, e, &bl, &m->p, &note, err) == 0 &&
	    run_steps(&c->d->h, c->base ? &c->base->h : NULL, &bl, &fpl, &pl, e, &c->o, &set, &m->p, &json, &note,
		      err) == 0)
		rc = 0;
	for (size_t i = 0; i < 2; i++)
		if (used[i] != NULL)
			unfocus(&used[i]->h, &m->p);
	for (size_t i = 0; i < 2; i++)
		if (used[i] != NULL)
			used[i]->h.baseline = used[i]->h.identity = NULL;
	if (rc == 0)
		rc = answer(&json, &c->pg, out, err);
	if (rc == 0 && note.len > 0)
		sbuf_printf(&m->note, "%s%s", m->note.len ? "\n" : "", note.buf);
	objset_free(&set);
	baseline_free(&bl);
	pipeline_free(&pl);
	sbuf_free(&json);
	sbuf_free(&note);
	sbuf_free(&why);
	return rc;
}

/* ---- the tools ---- */

/* The arguments of most: steps, the baseline, the page. */
static int common(struct mcp *m, const struct args *x, struct call *c, int paged)
{
	const char *steps;
	int rc;

	if ((c->d = dump_of(m, x, "dump", 1, &rc)) == NULL)
		return -1;
	c->base = dump_of(m, x, "baseline", 0, &rc);
	if (rc < 0)
		return -1;
	if (c->base == c->d && c->d != NULL) {
		sbuf_adds(x->err, "'baseline' is the dump itself");
		return -1;
	}
	if (arg_str(x, "steps", 0, &steps) < 0)
		return -1;
	if (steps != NULL)
		sbuf_adds(&c->steps, steps);
	c->pg.paged = paged;
	if (paged && (arg_int(x, "offset", 0, 1000000000, 0, &c->pg.offset) < 0 ||
		      arg_int(x, "limit", 1, MCP_LIMIT_MAX, MCP_LIMIT_DEFAULT, &c->pg.limit) < 0))
		return -1;
	return 0;
}

/* "STEPS | word" or "word" */
static void then(struct call *c, const char *word)
{
	sbuf_printf(&c->steps, "%s%s", c->steps.len ? " | " : "", word);
}

static int tool_open(struct mcp *m, const struct args *x, struct sbuf *out)
{
	const char *path;
	long long shot;
	size_t slot = 0;

	if (arg_str(x, "path", 1, &path) < 0 || arg_int(x, "heapshot", 1, 1000000, 0, &shot) < 0)
		return -1;
	while (slot < MCP_DUMPS_MAX && m->d[slot].open)
		slot++;
	struct dump *const d = slot < MCP_DUMPS_MAX ? &m->d[slot] : NULL;
	if (d == NULL) {
		sbuf_printf(x->err, "%d dumps are open, the most at once: close one", MCP_DUMPS_MAX);
		return -1;
	}
	char *real = allowed(m, path, 1, x->err);
	if (real == NULL)
		return -1;
	struct open_opts oo = m->oo;
	oo.snapshot = (unsigned)shot;
	struct sbuf why;
	sbuf_init(&why);
	int rc = heap_open(&d->h, real, &oo, &m->p, &why);
	if (rc < 0) {
		sbuf_add(x->err, why.buf, why.len);
		sbuf_free(&why);
		free(real);
		return -1;
	}
	sbuf_free(&why);
	/* what the open said (the command line's stderr without -q): the
	 * rules it did not apply, a cache it could not write; the first
	 * MCP_OPEN_NOTES of them, and how many more */
	size_t said = d->h.notes.n < MCP_OPEN_NOTES ? d->h.notes.n : MCP_OPEN_NOTES;
	for (size_t i = 0; i < said; i++)
		sbuf_printf(&m->note, "%s%s", m->note.len ? "\n" : "", d->h.notes.msg[i]);
	if (d->h.notes.n + d->h.notes.suppressed > said)
		sbuf_printf(&m->note, "\n(%zu notes more)", d->h.notes.n + d->h.notes.suppressed - said);
	d->open = 1;
	d->serial = ++m->serial;
	d->path = real;
	if (m->cancelled) { /* cancelled past where the open looks: no handle the client never hears of */
		close_dump(d);
		return -1;
	}
	m->used[m->nused++] = d;
	struct call c;
	call_init(&c);
	c.d = d;
	c.e = cmd_find("info");
	sbuf_printf(out, "{\"dump\":\"d%u\",\"info\":", d->serial);
	if (run_call(m, &c, out, x->err) < 0 || m->cancelled) { /* no handle said: none kept */
		sbuf_free(&c.steps);
		close_dump(d);
		return -1;
	}
	sbuf_addc(out, '}');
	sbuf_free(&c.steps);
	return 0;
}

static int tool_close(struct mcp *m, const struct args *x, struct sbuf *out)
{
	int rc;
	struct dump *d = dump_of(m, x, "dump", 1, &rc);

	if (d == NULL)
		return -1;
	sbuf_printf(out, "{\"closed\":\"d%u\"}", d->serial);
	close_dump(d);
	return 0;
}

static int tool_dumps(struct mcp *m, const struct args *x, struct sbuf *out)
{
	int first = 1;

	(void)x;
	sbuf_adds(out, "{\"dumps\":[");
	for (size_t i = 0; i < MCP_DUMPS_MAX; i++)
		if (m->d[i].open) {
			sbuf_printf(out, "%s{\"dump\":\"d%u\",\"path\":", first ? "" : ",", m->d[i].serial);
			jval_write_str(out, m->d[i].path, strlen(m->d[i].path));
			sbuf_printf(out, ",\"objects\":%llu}", (unsigned long long)(m->d[i].h.n - 1));
			first = 0;
		}
	sbuf_adds(out, "]}");
	return 0;
}

/* "max": paths, lifelines (and the views query ends in) */
static int arg_max(const struct args *x, struct call *c)
{
	long long max;

	if (arg_int(x, "max", 1, 10000, 0, &max) < 0)
		return -1;
	if (max > 0) {
		c->o.vo.max_paths = (int)max;
		c->o.max_set = 1;
	}
	return 0;
}

/* summary, classes, biggest, query...: a view of the set the steps leave */
static int view_tool(struct mcp *m, const struct args *x, struct sbuf *out, const char *view, int paged,
		     const char *word)
{
	struct call c;
	int rc = -1;
	char id[64];

	call_init(&c);
	if (common(m, x, &c, paged) < 0)
		goto done;
	c.e = view ? cmd_find(view) : NULL;
	if (word != NULL) { /* referrers, referents, dominated: of the object, or of the set */
		if (arg_object(x, "object", 0, id, sizeof id) < 0)
			goto done;
		if (id[0] && c.steps.len) {
			sbuf_adds(x->err, "give 'object' or 'steps', not both");
			goto done;
		}
		if (id[0])
			sbuf_printf(&c.steps, "object %s", id);
		if (c.steps.len == 0 && strcmp(word, "dominated") != 0) {
			sbuf_adds(x->err, "'object' or 'steps' is required");
			goto done;
		}
		if (strcmp(word, "dominated") != 0 || id[0]) /* biggest of steps: the top of their set */
			then(&c, word);
	}
	int b;
	if (arg_bool(x, "weak", &b) < 0)
		goto done;
	c.o.vo.weak = b;
	const char *sort, *filter;
	if (arg_str(x, "sort", 0, &sort) < 0 || arg_str(x, "filter", 0, &filter) < 0 ||
	    arg_bool(x, "reverse", &c.o.vo.reverse) < 0)
		goto done;
	if (sort != NULL && !view_sort_valid(sort)) {
		sbuf_adds(x->err, "'sort': shallow, retained, instances or name");
		goto done;
	}
	c.o.vo.sort = sort;
	if (filter != NULL) {
		struct sbuf why;
		sbuf_init(&why);
		if (regex_check(filter, &why) < 0) {
			sbuf_printf(x->err, "'filter': %s", why.buf);
			sbuf_free(&why);
			goto done;
		}
		sbuf_free(&why);
		c.o.vo.filter = filter;
	}
	long long depth;
	if (arg_int(x, "depth", 1, 64, 1, &depth) < 0 || arg_max(x, &c) < 0)
		goto done;
	c.o.vo.depth = (int)depth;
	c.o.depth_set = arg(x, "depth") != NULL;
	rc = run_call(m, &c, out, x->err);
done:
	sbuf_free(&c.steps);
	return rc;
}

static int tool_summary(struct mcp *m, const struct args *x, struct sbuf *out)
{
	return view_tool(m, x, out, "info", 0, NULL);
}

static int tool_classes(struct mcp *m, const struct args *x, struct sbuf *out)
{
	return view_tool(m, x, out, "classes", 1, NULL);
}

static int tool_biggest(struct mcp *m, const struct args *x, struct sbuf *out)
{
	return view_tool(m, x, out, "biggest", 1, "dominated");
}

static int tool_referrers(struct mcp *m, const struct args *x, struct sbuf *out)
{
	return view_tool(m, x, out, "objects", 1, "referrers");
}

static int tool_referents(struct mcp *m, const struct args *x, struct sbuf *out)
{
	return view_tool(m, x, out, "objects", 1, "referents");
}

static int tool_query(struct mcp *m, const struct args *x, struct sbuf *out)
{
	const char *s;

	if (arg_str(x, "steps", 1, &s) < 0)
		return -1;
	return view_tool(m, x, out, NULL, 1, NULL);
}

/* paths, lifelines: of one object */
static int one_object(struct mcp *m, const struct args *x, struct sbuf *out, const char *view)
{
	struct call c;
	char id[64];
	int rc = -1, b;

	call_init(&c);
	if (common(m, x, &c, 0) < 0 || arg_object(x, "object", 1, id, sizeof id) < 0 || arg_bool(x, "weak", &b) < 0 ||
	    arg_max(x, &c) < 0)
		goto done;
	sbuf_printf(&c.steps, "object %s", id);
	c.e = cmd_find(view);
	c.o.object = id;
	c.o.vo.weak = b;
	c.o.vo.path_ends = MCP_PATH_ENDS; /* a list a million steps deep is of no use to read */
	rc = run_call(m, &c, out, x->err);
done:
	sbuf_free(&c.steps);
	return rc;
}

static int tool_paths(struct mcp *m, const struct args *x, struct sbuf *out)
{
	return one_object(m, x, out, "paths");
}

static int tool_lifelines(struct mcp *m, const struct args *x, struct sbuf *out)
{
	return one_object(m, x, out, "lifelines");
}

static int tool_merged(struct mcp *m, const struct args *x, struct sbuf *out)
{
	struct call c;
	const char *dir, *by;
	long long depth;
	int rc = -1;

	call_init(&c);
	if (common(m, x, &c, 1) < 0 || arg_str(x, "direction", 1, &dir) < 0 || arg_str(x, "by", 0, &by) < 0 ||
	    arg_int(x, "depth", 1, 16, 1, &depth) < 0 || arg_bool(x, "strong", &c.o.strong) < 0 ||
	    arg_bool(x, "reverse", &c.o.vo.reverse) < 0)
		goto done;
	c.e = strcmp(dir, "in") == 0 ? cmd_find("merged-in") : strcmp(dir, "out") == 0 ? cmd_find("merged-out")
				  : strcmp(dir, "dom") == 0 ? cmd_find("merged-dom") : NULL;
	if (c.e == NULL || (by != NULL && strcmp(by, "class") != 0 && strcmp(by, "field") != 0)) {
		sbuf_adds(x->err, c.e == NULL ? "'direction': in, out or dom" : "'by': class or field");
		goto done;
	}
	if ((c.o.strong && strcmp(dir, "in") != 0) || (c.o.vo.reverse && strcmp(dir, "dom") != 0)) {
		sbuf_adds(x->err, c.o.strong ? "'strong' goes with direction in" : "'reverse' goes with direction dom");
		goto done;
	}
	c.o.by = by != NULL && by[0] == 'f' ? MG_BY_FIELD : MG_BY_CLASS;
	c.o.vo.depth = (int)depth;
	c.o.depth_set = 1;
	rc = run_call(m, &c, out, x->err);
done:
	sbuf_free(&c.steps);
	return rc;
}

static int tool_inspect(struct mcp *m, const struct args *x, struct sbuf *out)
{
	struct call c;
	const char *name, *iarg;
	int rc = -1;

	if (arg_str(x, "name", 0, &name) < 0 || arg_str(x, "arg", 0, &iarg) < 0)
		return -1;
	if (name == NULL) { /* the list */
		struct sbuf json;
		struct page pg = { 0 };
		sbuf_init(&json);
		report_inspect_list(FMT_JSON, &json);
		rc = answer(&json, &pg, out, x->err);
		sbuf_free(&json);
		return rc;
	}
	const struct inspection *in = inspect_find(name);
	if (in == NULL) {
		sbuf_adds(x->err, "no inspection named '");
		json_append(x->err, (const uint8_t *)name, strlen(name));
		sbuf_adds(x->err, "' (inspect without a name lists them)");
		return -1;
	}
	if ((in->arg_required && iarg == NULL) || (in->arg == NULL && iarg != NULL)) {
		sbuf_printf(x->err, iarg ? "%s takes no argument" : "%s needs its 'arg'", in->name);
		return -1;
	}
	call_init(&c);
	if (common(m, x, &c, 1) == 0) {
		c.e = cmd_find("inspect");
		c.o.insp = name;
		c.o.insp_arg = iarg;
		rc = run_call(m, &c, out, x->err);
	}
	sbuf_free(&c.steps);
	return rc;
}

static int tool_diff(struct mcp *m, const struct args *x, struct sbuf *out)
{
	struct dump *old, *d;
	int rc;
	long long offset, limit;

	if ((old = dump_of(m, x, "old", 1, &rc)) == NULL || (d = dump_of(m, x, "new", 1, &rc)) == NULL)
		return -1;
	if (old == d) {
		sbuf_adds(x->err, "'old' and 'new' are one dump");
		return -1;
	}
	if (arg_int(x, "offset", 0, 1000000000, 0, &offset) < 0 ||
	    arg_int(x, "limit", 1, MCP_LIMIT_MAX, MCP_LIMIT_DEFAULT, &limit) < 0)
		return -1;
	struct sbuf why, json, note;
	sbuf_init(&why);
	if (need(&old->h, HP_ALL, &m->p, &why) < 0 || need(&d->h, HP_ALL, &m->p, &why) < 0) {
		sbuf_add(x->err, why.buf, why.len);
		sbuf_free(&why);
		return -1;
	}
	struct cmd_opts o = { .fmt = FMT_JSON, .top_set = 1 };
	struct baseline bl = { 0 };
	struct page pg = { .paged = 1, .offset = offset, .limit = limit };
	o.vo.top = (size_t)(offset + limit);
	o.vo.progress = &m->p;
	sbuf_init(&json);
	sbuf_init(&note);
	struct cmd_ctx c = { .h = &d->h, .o = &o, .old = &old->h, .bl = &bl, .p = &m->p, .out = &json,
			     .err = &why, .note = &note };
	rc = cmd_find("diff")->run(&c);
	d->h.baseline = d->h.identity = NULL;
	if (note.len > 0)
		sbuf_add(&m->note, note.buf, note.len);
	if (rc == 0)
		rc = answer(&json, &pg, out, x->err);
	else
		sbuf_add(x->err, why.buf, why.len);
	baseline_free(&bl);
	sbuf_free(&why);
	sbuf_free(&json);
	sbuf_free(&note);
	return rc;
}

static int tool_leaks(struct mcp *m, const struct args *x, struct sbuf *out)
{
	struct dump *s[3];
	static const char *const names[3] = { "base", "target", "final" };
	long long offset, limit;
	int rc;

	for (int i = 0; i < 3; i++)
		if ((s[i] = dump_of(m, x, names[i], 1, &rc)) == NULL)
			return -1;
	if (s[0] == s[1] || s[1] == s[2] || s[0] == s[2]) {
		sbuf_adds(x->err, "base, target and final must be three dumps");
		return -1;
	}
	if (arg_int(x, "offset", 0, 1000000000, 0, &offset) < 0 || arg_int(x, "limit", 1, MCP_LIMIT_MAX, 20, &limit) < 0)
		return -1;
	struct sbuf why, json;
	sbuf_init(&why);
	for (int i = 0; i < 3; i++)
		if (need(&s[i]->h, HP_ALL, &m->p, &why) < 0) {
			sbuf_add(x->err, why.buf, why.len);
			sbuf_free(&why);
			return -1;
		}
	sbuf_init(&json);
	struct leak_find lf;
	struct leaks_view v;
	int found = 0, viewed = 0;
	rc = leaks_find(&s[0]->h, &s[1]->h, &s[2]->h, &lf, &m->p, &why);
	if (rc == 0) {
		found = 1;
		view_leaks(&s[2]->h, &lf.leaked, (size_t)(offset + limit), &v);
		viewed = 1;
		struct leaks_meta lm;
		leaks_meta_of(&lm, &lf, s[0]->path, s[1]->path, s[2]->path, 0);
		report_leaks(&s[2]->h, &v, &lm, FMT_JSON, &json);
		if (!lf.exact)
			sbuf_printf(&m->note, "leaks: %s", lf.identity);
	}
	for (int i = 0; i < 3; i++)
		s[i]->h.baseline = s[i]->h.identity = NULL;
	if (rc == 0) { /* by cluster: each with its path's rows; how many there are is known */
		struct page pg = { .paged = 1, .offset = offset, .limit = limit, .total_known = 1, .total = (long long)v.n };
		rc = answer(&json, &pg, out, x->err);
	} else {
		sbuf_add(x->err, why.buf, why.len);
	}
	if (viewed)
		leaks_view_free(&v);
	if (found)
		leak_find_free(&lf);
	sbuf_free(&why);
	sbuf_free(&json);
	return rc;
}

/* ---- object: its row, then its fields or elements ---- */

struct fields {
	const struct heap *h;
	struct sbuf *out;
	long long skip, left; /* the page */
	size_t n, given;
};

static void value_json(const struct heap *h, const struct hvalue *val, struct sbuf *out)
{
	char buf[64];

	switch (val->type) {
	case T_OBJECT: {
		if (val->v.id == 0) {
			sbuf_adds(out, "null");
			return;
		}
		node_t t = heap_find_id(h, val->v.id);
		if (t == HW_NONE) {
			sbuf_printf(out, "{\"ref\":\"0x%llx\",\"missing\":true}", (unsigned long long)val->v.id);
			return;
		}
		struct sbuf l;
		sbuf_init(&l);
		node_id_text(h, t, buf, sizeof buf);
		node_label(h, t, &l);
		sbuf_printf(out, "{\"ref\":\"%s\",\"class\":", buf);
		jval_write_str(out, l.buf, l.len);
		sbuf_free(&l);
		l = (struct sbuf){ 0 };
		sbuf_init(&l);
		if (node_string(h, t, &l, 200) == 0) {
			sbuf_adds(out, ",\"string\":");
			jval_write_str(out, l.buf, l.len);
		}
		sbuf_free(&l);
		sbuf_printf(out, ",\"retained\":%llu}", (unsigned long long)h->retained[t]);
		return;
	}
	case T_BOOLEAN: sbuf_adds(out, val->v.u ? "true" : "false"); return;
	case T_CHAR: {
		uint32_t cp = (uint32_t)val->v.u;
		if (cp >= 0xd800 && cp < 0xe000) {
			sbuf_printf(out, "\"\\\\u%04x\"", cp);
		} else {
			struct sbuf s;
			sbuf_init(&s);
			sbuf_add_utf8(&s, cp);
			jval_write_str(out, s.buf, s.len);
			sbuf_free(&s);
		}
		return;
	}
	case T_FLOAT:
	case T_DOUBLE: {
		double d = val->type == T_FLOAT ? (double)val->v.f : val->v.d;
		if (d != d || d - d != 0) /* NaN, infinities: no JSON number */
			sbuf_printf(out, "\"%g\"", d);
		else
			sbuf_printf(out, "%.17g", d);
		return;
	}
	default: sbuf_printf(out, "%lld", (long long)val->v.i); return;
	}
}

static const char *type_name(uint8_t t)
{
	return t == T_OBJECT ? "reference" : hw_type_name(t) ? hw_type_name(t) : "unknown";
}

static void one_field(void *arg, const char *name, const struct hvalue *val)
{
	struct fields *f = arg;

	f->n++;
	if (f->skip > 0) {
		f->skip--;
		return;
	}
	if (f->left <= 0)
		return;
	f->left--;
	sbuf_adds(f->out, f->given++ ? ",{\"name\":" : "{\"name\":");
	jval_write_str(f->out, name, strlen(name));
	sbuf_printf(f->out, ",\"type\":\"%s\",\"value\":", type_name(val->type));
	value_json(f->h, val, f->out);
	sbuf_addc(f->out, '}');
}

static int tool_object(struct mcp *m, const struct args *x, struct sbuf *out)
{
	struct call c;
	char id[64];
	int rc = -1;
	struct sbuf row;

	call_init(&c);
	sbuf_init(&row);
	if (common(m, x, &c, 1) < 0 || arg_object(x, "object", 1, id, sizeof id) < 0)
		goto done;
	if (c.steps.len > 0 || c.base != NULL) {
		sbuf_adds(x->err, "object takes no steps nor baseline");
		goto done;
	}
	long long offset = c.pg.offset, limit = c.pg.limit;
	sbuf_printf(&c.steps, "object %s", id);
	c.e = cmd_find("objects");
	c.pg = (struct page){ 0 };
	if (run_call(m, &c, &row, x->err) < 0)
		goto done;
	/* the row of the objects view, then what the object holds */
	struct jval v;
	struct sbuf why;
	sbuf_init(&why);
	if (jval_parse(row.buf, row.len, &v, &why) < 0 || jval_get(&v, "rows") == NULL || jval_get(&v, "rows")->n != 1) {
		sbuf_adds(x->err, "internal error: no row for the object");
		sbuf_free(&why);
		goto done;
	}
	sbuf_free(&why);
	const struct jval *r = &jval_get(&v, "rows")->items[0];
	sbuf_adds(out, "{\"view\":\"object\"");
	for (size_t i = 0; i < r->n; i++) {
		sbuf_addc(out, ',');
		jval_write_str(out, r->keys[i], strlen(r->keys[i]));
		sbuf_addc(out, ':');
		jval_write(out, &r->items[i]);
	}
	jval_free(&v);
	uint64_t nid;
	parse_object_id(id, &nid);
	const struct heap *h = &c.d->h;
	node_t n = heap_find_id(h, nid);
	struct fields f = { h, out, offset, limit, 0, 0 };
	uint8_t et;
	int64_t len = n == HW_NONE ? -1 : heap_array_length(h, n, &et);
	struct sbuf rl;
	sbuf_init(&rl);
	if (n != HW_NONE)
		root_label(h, n, &rl);
	sbuf_adds(out, ",\"gc_root\":");
	if (rl.len)
		jval_write_str(out, rl.buf, rl.len);
	else
		sbuf_adds(out, "null");
	sbuf_free(&rl);
	if (len >= 0) {
		sbuf_printf(out, ",\"length\":%lld,\"element_type\":\"%s\",\"elements\":[", (long long)len, type_name(et));
		for (long long i = offset; i < len && i < offset + limit; i++) {
			struct hvalue val;
			if (heap_array_elem(h, n, (uint64_t)i, &val) < 0)
				break;
			if (i > offset)
				sbuf_addc(out, ',');
			value_json(h, &val, out);
		}
		sbuf_addc(out, ']');
		if (offset + limit < len)
			sbuf_printf(out, ",\"next_offset\":%lld", offset + limit);
	} else if (n != HW_NONE) {
		sbuf_adds(out, ",\"fields\":[");
		int k = heap_fields(h, n, one_field, &f);
		sbuf_addc(out, ']');
		if (k >= 0 && f.n > (size_t)(offset + limit))
			sbuf_printf(out, ",\"next_offset\":%lld", offset + limit);
	}
	sbuf_addc(out, '}');
	if (out->len > MCP_ANSWER_MAX) {
		sbuf_reset(out);
		sbuf_printf(x->err, "the answer is over the %u bytes a call gives: ask for less (limit)", MCP_ANSWER_MAX);
		goto done;
	}
	rc = 0;
done:
	sbuf_free(&row);
	sbuf_free(&c.steps);
	return rc;
}

/* snapshot: heapwalk snapshot PID FILE, run as a process of its own (it
 * waits on another process; its output kept off the protocol). */
static int tool_snapshot(struct mcp *m, const struct args *x, struct sbuf *out)
{
	long long pid;
	const char *path;
	int plain;

	if (arg_int(x, "pid", 1, INT_MAX, 0, &pid) < 0 || arg_str(x, "path", 1, &path) < 0 ||
	    arg_bool(x, "plain", &plain) < 0)
		return -1;
	if (pid == 0) {
		sbuf_adds(x->err, "'pid' is required");
		return -1;
	}
	char *real = allowed(m, path, 0, x->err);
	if (real == NULL)
		return -1;
	char pids[32];
	snprintf(pids, sizeof pids, "%lld", pid);
	/* its lines (no progress: not to a terminal) are the answer's said */
	char *argv[] = { "heapwalk", "snapshot", pids, real, plain ? "--plain" : NULL, NULL };
	int pfd[2], rc = -1;
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		sbuf_printf(x->err, "pipe: %s", strerror(errno));
		free(real);
		return -1;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1); /* its summary */
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 2);
	pid_t child;
	int e = posix_spawn(&child, "/proc/self/exe", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	struct sbuf said;
	sbuf_init(&said);
	if (e != 0) {
		sbuf_printf(x->err, "heapwalk snapshot: %s", strerror(e));
	} else {
		char buf[4096];
		ssize_t k;
		while ((k = read(pfd[0], buf, sizeof buf)) > 0 || (k < 0 && errno == EINTR))
			if (k > 0 && said.len < 65536)
				sbuf_add(&said, buf, (size_t)k);
		int st;
		while (waitpid(child, &st, 0) < 0 && errno == EINTR)
			;
		while (said.len > 0 && said.buf[said.len - 1] == '\n')
			said.buf[--said.len] = '\0';
		const char *line = said.buf;
		if (strncmp(line, "heapwalk: ", 10) == 0)
			line += 10;
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
			sbuf_adds(out, "{\"file\":");
			jval_write_str(out, real, strlen(real));
			sbuf_adds(out, ",\"said\":");
			jval_write_str(out, said.buf, said.len);
			sbuf_adds(out, "}");
			rc = 0;
		} else {
			sbuf_add(x->err, line, strlen(line));
			if (*line == '\0')
				sbuf_adds(x->err, "heapwalk snapshot failed");
		}
	}
	close(pfd[0]);
	sbuf_free(&said);
	free(real);
	return rc;
}

/* ---- the table of tools ---- */

#define S_DUMP "\"dump\":{\"type\":\"string\",\"description\":\"a handle open gave: d1, d2...\"}"
#define S_STEPS "\"steps\":{\"type\":\"string\",\"description\":\"selection steps, as heapwalk -e takes them: " \
	"'instances java.util.HashMap | retained' (see the query tool)\"}"
#define S_BASE "\"baseline\":{\"type\":\"string\",\"description\":\"an earlier dump's handle: the steps new, old, gone refer to it\"}"
#define S_PAGE "\"offset\":{\"type\":\"integer\",\"minimum\":0,\"description\":\"rows to skip (next_offset of the last answer)\"}," \
	"\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000,\"description\":\"rows at most (default 50)\"}"
#define S_OBJ "\"object\":{\"type\":\"string\",\"description\":\"an object id as the answers give it: 0x... (or decimal; @ before it or not, as DevTools writes V8's: @301)\"}"
#define S_WEAK "\"weak\":{\"type\":\"boolean\",\"description\":\"follow weak references too\"}"
#define SCHEMA(props, req) "{\"type\":\"object\",\"properties\":{" props "},\"required\":[" req "],\"additionalProperties\":false}"

struct tool {
	const char *name, *title, *desc;
	const char *schema;
	const char *takes; /* the argument names, for args_known */
	int readonly;
	int (*run)(struct mcp *m, const struct args *x, struct sbuf *out);
};

static const struct tool tools[] = {
	{ "open", "Open a heap dump",
	  "Open a heap dump (HPROF, V8 heap snapshot, .NET nettrace or gcdump, Mono .mlpd; plain or gzip) by its path "
	  "and return a handle for the other tools, with the dump's summary (and, as a second text, the notes the open "
	  "gave: rules not applied, an index cache not written). The index cache makes a second open quick.",
	  SCHEMA("\"path\":{\"type\":\"string\"},\"heapshot\":{\"type\":\"integer\",\"minimum\":1,\"description\":"
		 "\"of a Mono .mlpd: heapshot N (default the last)\"}", "\"path\""),
	  "path,heapshot", 0, tool_open },
	{ "close", "Close a dump", "Close an open dump and free its memory.", SCHEMA(S_DUMP, "\"dump\""), "dump", 1,
	  tool_close },
	{ "dumps", "Open dumps", "The dumps open now: handle, path, objects.", SCHEMA("", ""), "", 1, tool_dumps },
	{ "summary", "Summary", "The dump or a set of its objects: counts, bytes, layout, GC roots by kind, unreachable.",
	  SCHEMA(S_DUMP "," S_STEPS "," S_BASE, "\"dump\""), "dump,steps,baseline", 1, tool_summary },
	{ "classes", "Class histogram",
	  "The class histogram of the dump or of the set the steps select: instances, shallow and retained bytes "
	  "(retained_lb: a lower bound), sorted and paged.",
	  SCHEMA(S_DUMP "," S_STEPS "," S_BASE "," S_PAGE ",\"sort\":{\"enum\":[\"shallow\",\"retained\",\"instances\","
		 "\"name\"]},\"reverse\":{\"type\":\"boolean\"},\"filter\":{\"type\":\"string\",\"description\":"
		 "\"a PCRE2 regex on the class name\"}", "\"dump\""),
	  "dump,steps,baseline,offset,limit,sort,reverse,filter", 1, tool_classes },
	{ "biggest", "Biggest objects",
	  "The biggest objects by retained size: the top of the dominator tree, or the dominator-tree children of "
	  "'object', or the top of the set 'steps' select; depth levels shown.",
	  SCHEMA(S_DUMP "," S_OBJ "," S_STEPS "," S_BASE "," S_PAGE ",\"depth\":{\"type\":\"integer\",\"minimum\":1,"
		 "\"maximum\":64}", "\"dump\""),
	  "dump,object,steps,baseline,offset,limit,depth", 1, tool_biggest },
	{ "object", "Object details",
	  "One object: class, shallow and retained size, its string value, GC root records, and its fields with "
	  "values (references with their class and id), or an array's elements, paged.",
	  SCHEMA(S_DUMP "," S_OBJ "," S_PAGE, "\"dump\",\"object\""), "dump,object,offset,limit", 1, tool_object },
	{ "referrers", "Referrers", "The objects that refer to 'object' (or to a member of the set 'steps' select), "
	  "biggest retained first.",
	  SCHEMA(S_DUMP "," S_OBJ "," S_STEPS "," S_BASE "," S_PAGE "," S_WEAK, "\"dump\""),
	  "dump,object,steps,baseline,offset,limit,weak", 1, tool_referrers },
	{ "referents", "Referents", "The objects 'object' (or a member of the set 'steps' select) refers to, biggest "
	  "retained first.",
	  SCHEMA(S_DUMP "," S_OBJ "," S_STEPS "," S_BASE "," S_PAGE "," S_WEAK, "\"dump\""),
	  "dump,object,steps,baseline,offset,limit,weak", 1, tool_referents },
	{ "paths", "Paths to GC roots", "Shortest paths from GC roots to 'object', each to another root (max, default 5); "
	  "of a path over 200 steps, its first and last 100, and a row for the steps between.",
	  SCHEMA(S_DUMP "," S_OBJ "," S_WEAK ",\"max\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":10000}",
		 "\"dump\",\"object\""),
	  "dump,object,weak,max", 1, tool_paths },
	{ "lifelines", "Lifelines", "What keeps 'object' alive: its short paths to GC roots grouped by the classes and "
	  "fields along them, counted (max paths walked, default 1000).",
	  SCHEMA(S_DUMP "," S_OBJ ",\"max\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":10000}", "\"dump\",\"object\""),
	  "dump,object,max", 1, tool_lifelines },
	{ "merged", "Merged references",
	  "Merged references of the set 'steps' select, by class (or by field): what refers to it (in), what it refers "
	  "to (out), or its immediate dominators (dom; reverse: from the GC roots down); depth levels.",
	  SCHEMA(S_DUMP "," S_STEPS "," S_BASE "," S_PAGE ",\"direction\":{\"enum\":[\"in\",\"out\",\"dom\"]},\"by\":"
		 "{\"enum\":[\"class\",\"field\"]},\"depth\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":16},"
		 "\"strong\":{\"type\":\"boolean\"},\"reverse\":{\"type\":\"boolean\"}", "\"dump\",\"direction\""),
	  "dump,steps,baseline,offset,limit,direction,by,depth,strong,reverse", 1, tool_merged },
	{ "inspect", "Inspections",
	  "Run an inspection (duplicate strings, empty collections, boxed primitives, class loaders, search...) on the "
	  "dump or the set 'steps' select, its groups paged; without 'name' and 'dump': the list of inspections.",
	  SCHEMA(S_DUMP "," S_STEPS "," S_BASE "," S_PAGE ",\"name\":{\"type\":\"string\"},\"arg\":{\"type\":\"string\"}",
		 ""),
	  "dump,steps,baseline,offset,limit,name,arg", 1, tool_inspect },
	{ "diff", "Diff two dumps",
	  "Class deltas from dump 'old' to dump 'new', with new and gone objects by class (exact with stable ids).",
	  SCHEMA("\"old\":{\"type\":\"string\"},\"new\":{\"type\":\"string\"}," S_PAGE, "\"old\",\"new\""),
	  "old,new,offset,limit", 1, tool_diff },
	{ "leaks", "Leaks over three snapshots",
	  "What an action leaked: objects new in 'target' (after 'base') still alive in 'final' (after the action was "
	  "undone), in clusters by their path from a GC root, biggest retained first, each with a step that selects it.",
	  SCHEMA("\"base\":{\"type\":\"string\"},\"target\":{\"type\":\"string\"},\"final\":{\"type\":\"string\"},"
		 "\"offset\":{\"type\":\"integer\",\"minimum\":0,\"description\":\"clusters to skip (next_offset of the "
		 "last answer)\"},\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000,\"description\":"
		 "\"clusters at most (default 20)\"}", "\"base\",\"target\",\"final\""),
	  "base,target,final,offset,limit", 1, tool_leaks },
	{ "query", "Selection steps",
	  "Any selection the heapwalk prompt takes: steps separated by '|' (all, instances NAME|'NAME with blanks'|/REGEX/, "
	  "instanceof (HPROF), "
	  "retained, referrers, referents, dominated, top, object ID, new, old, gone, unreachable, live, elements, "
	  "inspection NAME group K, root ID, ignore ID LABEL, path FROM TO, ...), ending in a view (classes, biggest, "
	  "objects, info, paths, lifelines, allocations, times, merged-out, merged-in, merged-dom; default classes).",
	  SCHEMA(S_DUMP "," S_STEPS "," S_BASE "," S_PAGE ",\"sort\":{\"enum\":[\"shallow\",\"retained\",\"instances\","
		 "\"name\"]},\"reverse\":{\"type\":\"boolean\"},\"filter\":{\"type\":\"string\"},\"depth\":{\"type\":"
		 "\"integer\",\"minimum\":1,\"maximum\":64},\"max\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":10000},"
		 S_WEAK, "\"dump\",\"steps\""),
	  "dump,steps,baseline,offset,limit,sort,reverse,filter,depth,max,weak", 1, tool_query },
	{ "snapshot", "Snapshot a live process",
	  "Take a heap snapshot of a running JVM, .NET or Node process of this user into 'path' (a new file), as "
	  "heapwalk snapshot PID FILE does: the process is identified first and refused if it is none of those; "
	  "plain: a JVM's own HotSpot dump. Then open it.",
	  SCHEMA("\"pid\":{\"type\":\"integer\",\"minimum\":1},\"path\":{\"type\":\"string\"},\"plain\":{\"type\":"
		 "\"boolean\"}", "\"pid\",\"path\""),
	  "pid,path,plain", 0, tool_snapshot },
};

/* ---- JSON-RPC ---- */

static void reply_head(struct sbuf *out, const struct jval *id)
{
	sbuf_adds(out, "{\"jsonrpc\":\"2.0\",\"id\":");
	if (id != NULL)
		jval_write(out, id);
	else
		sbuf_adds(out, "null");
}

static void reply_error(struct sbuf *out, const struct jval *id, int code, const char *msg)
{
	reply_head(out, id);
	sbuf_printf(out, ",\"error\":{\"code\":%d,\"message\":", code);
	jval_write_str(out, msg, strlen(msg));
	sbuf_adds(out, "}}\n");
}

static void tools_list(struct sbuf *out)
{
	sbuf_adds(out, "{\"tools\":[");
	for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
		const struct tool *t = &tools[i];
		sbuf_printf(out, "%s{\"name\":\"%s\",\"title\":", i ? "," : "", t->name);
		jval_write_str(out, t->title, strlen(t->title));
		sbuf_adds(out, ",\"description\":");
		jval_write_str(out, t->desc, strlen(t->desc));
		sbuf_printf(out, ",\"inputSchema\":%s,\"annotations\":{\"readOnlyHint\":%s,\"openWorldHint\":false}}",
			    t->schema, t->readonly ? "true" : "false");
	}
	sbuf_adds(out, "]}");
}

/* Is line a notifications/cancelled for the request id? */
static int cancels(const char *line, size_t n, const struct jval *id)
{
	struct jval v;
	struct sbuf err;
	int yes = 0;

	sbuf_init(&err);
	if (jval_parse(line, n, &v, &err) == 0) {
		const char *meth = jval_str(jval_get(&v, "method"));
		const struct jval *r = jval_get(jval_get(&v, "params"), "requestId");
		yes = meth != NULL && strcmp(meth, "notifications/cancelled") == 0 && r != NULL && r->t == id->t &&
		      (r->t == JV_STR || r->t == JV_NUM) && r->len == id->len && memcmp(r->s, id->s, r->len) == 0;
		jval_free(&v);
	}
	sbuf_free(&err);
	return yes;
}

/* A few times a second while a call works (struct progress' tick):
 * what the client has sent since is read, without waiting, and kept for
 * its turn; a cancellation of this call, or the answers' reader gone,
 * stops the work where it looks (progress_cancelled) and the call goes
 * unanswered. */
static void on_tick(struct progress *p, uint64_t done)
{
	struct mcp *m = p->tick_arg;
	char buf[65536];

	(void)done;
	if (m->current == NULL || m->in < 0)
		return;
	while (!m->eof && m->pending.len < 2 * (size_t)MCP_LINE_MAX) {
		struct pollfd pf = { m->in, POLLIN, 0 };
		if (poll(&pf, 1, 0) <= 0)
			break;
		ssize_t k = read(m->in, buf, sizeof buf);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) { /* the input's end: the calls read so far are answered still */
			m->eof = 1;
			break;
		}
		sbuf_add(&m->pending, buf, (size_t)k);
	}
	for (;;) {
		char *nl = memchr(m->pending.buf + m->scanned, '\n', m->pending.len - m->scanned);
		if (nl == NULL)
			break;
		size_t at = m->scanned, n = (size_t)(nl - (m->pending.buf + at));
		m->scanned = (size_t)(nl - m->pending.buf) + 1;
		if (n <= MCP_LINE_MAX && cancels(m->pending.buf + at, n, m->current))
			m->cancelled = 1;
	}
	struct pollfd po = { m->out, 0, 0 }; /* no one reads the answers any more */
	if (m->out >= 0 && poll(&po, 1, 0) > 0 && (po.revents & (POLLERR | POLLHUP)))
		m->cancelled = 1;
	if (m->cancelled)
		p->cancelled = 1;
}

static void tools_call(struct mcp *m, const struct jval *params, const struct jval *id, struct sbuf *out)
{
	const char *name = jval_str(jval_get(params, "name"));
	const struct jval *a = jval_get(params, "arguments");
	const struct tool *t = NULL;

	if (name == NULL) {
		reply_error(out, id, -32602, "tools/call: 'name' must be a string");
		return;
	}
	for (size_t i = 0; i < sizeof tools / sizeof tools[0] && t == NULL; i++)
		if (strcmp(tools[i].name, name) == 0)
			t = &tools[i];
	if (t == NULL) {
		struct sbuf msg;
		sbuf_init(&msg);
		sbuf_adds(&msg, "Unknown tool: ");
		json_append(&msg, (const uint8_t *)name, strlen(name));
		reply_error(out, id, -32602, msg.buf);
		sbuf_free(&msg);
		return;
	}
	if (a != NULL && a->t != JV_OBJ && a->t != JV_NULL) {
		reply_error(out, id, -32602, "tools/call: 'arguments' must be an object");
		return;
	}
	struct sbuf res, err;
	sbuf_init(&res);
	sbuf_init(&err);
	struct args x = { a != NULL && a->t == JV_OBJ ? a : NULL, &err };
	volatile int rc = -1;
	m->nused = 0;
	sbuf_reset(&m->note);
	m->current = id;
	m->cancelled = 0;
	m->p.cancelled = 0;
	failed = 0;
	if (sigsetjmp(guard, 1) != 0) {
		sbuf_reset(&res);
		contained(m, &err);
	} else if (args_known(&x, t->takes) == 0) {
		guarded = 1;
		rc = t->run(m, &x, &res);
		guarded = 0;
	}
	m->current = NULL;
	m->p.cancelled = 0;
	if (m->cancelled) { /* cancelled, or the client gone: no answer */
		sbuf_free(&res);
		sbuf_free(&err);
		return;
	}
	if (rc < 0 && err.len == 0)
		sbuf_adds(&err, "failed");
	if (rc < 0 && err.len > MCP_ERROR_MAX) { /* it quotes a huge argument: not all of it back */
		size_t cut = MCP_ERROR_MAX, more;
		while (cut > 0 && ((unsigned char)err.buf[cut] & 0xc0) == 0x80) /* a whole character */
			cut--;
		more = err.len - cut;
		err.len = cut;
		err.buf[cut] = '\0';
		sbuf_printf(&err, "... (%zu bytes more)", more);
	}
	reply_head(out, id);
	sbuf_adds(out, ",\"result\":{\"content\":[{\"type\":\"text\",\"text\":");
	if (rc == 0)
		jval_write_str(out, res.buf, res.len);
	else
		jval_write_str(out, err.buf, err.len);
	if (rc == 0 && m->note.len > 0) { /* the notes the command line prints on stderr */
		sbuf_adds(out, "},{\"type\":\"text\",\"text\":");
		jval_write_str(out, m->note.buf, m->note.len);
	}
	sbuf_printf(out, "}],\"isError\":%s}}\n", rc == 0 ? "false" : "true");
	sbuf_free(&res);
	sbuf_free(&err);
}

static void initialize(const struct jval *params, const struct jval *id, struct sbuf *out)
{
	const char *want = jval_str(jval_get(params, "protocolVersion"));
	const char *v = versions[0];

	if (want == NULL) {
		reply_error(out, id, -32602, "initialize: 'protocolVersion' must be a string");
		return;
	}
	for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++)
		if (strcmp(want, versions[i]) == 0)
			v = versions[i];
	reply_head(out, id);
	sbuf_printf(out, ",\"result\":{\"protocolVersion\":\"%s\",\"capabilities\":{\"tools\":{\"listChanged\":false}},"
		    "\"serverInfo\":{\"name\":\"heapwalk\",\"title\":\"heapwalk heap walker\",\"version\":\"%s\"},"
		    "\"instructions\":",
		    v, PACKAGE_VERSION);
	static const char how[] =
		"Open a heap dump with open (a handle: d1), then ask: summary, classes, biggest, object, referrers, "
		"referents, paths, lifelines, merged, inspect; diff two dumps or find leaks over three; query takes "
		"any selection steps. Object ids (0x...) in answers can be passed back. Answers are JSON, paged: "
		"pass next_offset as offset for more.";
	jval_write_str(out, how, sizeof how - 1);
	sbuf_adds(out, "}}\n");
}

void mcp_message(struct mcp *m, const char *line, size_t n, struct sbuf *out)
{
	struct jval v;
	struct sbuf err;

	sbuf_init(&err);
	if (jval_parse(line, n, &v, &err) < 0) {
		struct sbuf msg;
		sbuf_init(&msg);
		sbuf_printf(&msg, "Parse error: %s", err.buf);
		reply_error(out, NULL, -32700, msg.buf);
		sbuf_free(&msg);
		sbuf_free(&err);
		return;
	}
	sbuf_free(&err);
	const struct jval *id = jval_get(&v, "id"), *method = jval_get(&v, "method"), *params = jval_get(&v, "params");
	const char *jr = jval_str(jval_get(&v, "jsonrpc"));
	const char *meth = jval_str(method);
	int id_ok = id != NULL && (id->t == JV_STR || (id->t == JV_NUM && strpbrk(id->s, ".eE") == NULL));
	if (v.t == JV_ARR) {
		reply_error(out, NULL, -32600, "Invalid Request: batches are not taken (one message a line)");
	} else if (v.t != JV_OBJ || jr == NULL || strcmp(jr, "2.0") != 0) {
		reply_error(out, id_ok ? id : NULL, -32600, "Invalid Request: not a JSON-RPC 2.0 message");
	} else if (method == NULL) {
		/* a response to a request of ours: there are none */
		if (jval_get(&v, "result") == NULL && jval_get(&v, "error") == NULL)
			reply_error(out, id_ok ? id : NULL, -32600, "Invalid Request: no method");
	} else if (meth == NULL) {
		reply_error(out, id_ok ? id : NULL, -32600, "Invalid Request: the method is no string");
	} else if (id == NULL) {
		/* a notification (initialized, cancelled...): nothing to answer */
	} else if (!id_ok) {
		reply_error(out, NULL, -32600, "Invalid Request: an id is a string or a whole number");
	} else if (params != NULL && params->t != JV_OBJ) {
		reply_error(out, id, -32602, "Invalid params: params must be an object");
	} else if (strcmp(meth, "initialize") == 0) {
		initialize(params, id, out);
	} else if (strcmp(meth, "ping") == 0) {
		reply_head(out, id);
		sbuf_adds(out, ",\"result\":{}}\n");
	} else if (strcmp(meth, "tools/list") == 0) {
		reply_head(out, id);
		sbuf_adds(out, ",\"result\":");
		tools_list(out);
		sbuf_adds(out, "}\n");
	} else if (strcmp(meth, "tools/call") == 0) {
		tools_call(m, params, id, out);
	} else {
		struct sbuf msg;
		sbuf_init(&msg);
		sbuf_adds(&msg, "Method not found: ");
		json_append(&msg, (const uint8_t *)meth, strlen(meth));
		reply_error(out, id, -32601, msg.buf);
		sbuf_free(&msg);
	}
	jval_free(&v);
}

void mcp_too_long(struct sbuf *out)
{
	char msg[96];

	snprintf(msg, sizeof msg, "Invalid Request: a message over %u bytes", MCP_LINE_MAX);
	reply_error(out, NULL, -32600, msg);
}

struct mcp *mcp_new(const char *const *dirs, size_t ndirs, const struct open_opts *oo, struct sbuf *err)
{
	struct mcp *m = xcalloc(1, sizeof *m);
	static const char *const here[] = { "." };

	if (ndirs == 0) {
		dirs = here;
		ndirs = 1;
	}
	m->dirs = xcalloc(ndirs, sizeof *m->dirs);
	for (size_t i = 0; i < ndirs; i++) {
		struct stat st;
		char *r = realpath(dirs[i], NULL);
		if (r == NULL || stat(r, &st) < 0 || !S_ISDIR(st.st_mode)) {
			char *e = esc_str(dirs[i]);
			sbuf_printf(err, "%s: %s", e, r == NULL ? strerror(errno) : "not a directory");
			free(e);
			free(r);
			mcp_free(m);
			return NULL;
		}
		m->dirs[m->ndirs++] = r;
	}
	m->oo = *oo;
	m->oo.quiet = 1;
	sbuf_init(&m->note);
	sbuf_init(&m->pending);
	m->in = m->out = -1;
	progress_init(&m->p, 1);
	m->p.tick = on_tick;
	m->p.tick_arg = m;
	return m;
}

void mcp_free(struct mcp *m)
{
	if (m == NULL)
		return;
	for (size_t i = 0; i < MCP_DUMPS_MAX; i++)
		close_dump(&m->d[i]);
	for (size_t i = 0; i < m->ndirs; i++)
		free(m->dirs[i]);
	free(m->dirs);
	sbuf_free(&m->note);
	sbuf_free(&m->pending);
	free(m);
}

/* The next line of the input into line (its newline left out): 1, 0 at
 * the input's end, -1 on a read error (errno). *toolong: it was over
 * MCP_LINE_MAX, dropped. What a call's tick read first comes first. */
static int next_line(struct mcp *m, struct sbuf *line, int *toolong)
{
	char buf[65536];
	size_t skip = 0; /* bytes of an overlong line dropped */

	*toolong = 0;
	sbuf_reset(line);
	for (;;) {
		char *nl = memchr(m->pending.buf, '\n', m->pending.len);
		size_t n = nl ? (size_t)(nl - m->pending.buf) : m->pending.len;
		if (nl == NULL && m->eof && n > 0) /* the last line, without its newline */
			nl = m->pending.buf + n;
		if (nl != NULL || n > MCP_LINE_MAX) {
			*toolong |= skip + n > MCP_LINE_MAX;
			if (!*toolong)
				sbuf_add(line, m->pending.buf, n);
			size_t used = nl != NULL ? (n < m->pending.len ? n + 1 : n) : n;
			memmove(m->pending.buf, m->pending.buf + used, m->pending.len - used);
			m->pending.len -= used;
			m->pending.buf[m->pending.len] = '\0';
			m->scanned = m->scanned > used ? m->scanned - used : 0;
			if (nl != NULL)
				return 1;
			skip += n; /* over the bound, no newline yet: dropped as it comes */
		}
		if (m->eof)
			return *toolong ? 1 : 0;
		ssize_t k = read(m->in, buf, sizeof buf);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			m->eof = 1;
		else
			sbuf_add(&m->pending, buf, (size_t)k);
	}
}

int mcp_serve(struct mcp *m, int in, int out)
{
	struct sbuf line, ans;
	int rc = 0, toolong, got;
	struct sigaction sa;

	signal(SIGPIPE, SIG_IGN); /* a client gone: the write fails, the server ends */
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_bus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGBUS, &sa, NULL);
	hw_set_oom(on_oom);
	sbuf_init(&line);
	sbuf_init(&ans);
	m->in = in;
	m->out = out;
	while ((got = next_line(m, &line, &toolong)) > 0) {
		if (toolong) {
			mcp_too_long(&ans);
		} else {
			size_t n = line.len, b = 0;
			if (n > 0 && line.buf[n - 1] == '\r')
				n--;
			while (b < n && (line.buf[b] == ' ' || line.buf[b] == '\t'))
				b++;
			if (b < n)
				mcp_message(m, line.buf + b, n - b, &ans);
		}
		if (ans.len > 0) {
			if (write_full(out, ans.buf, ans.len) != 0)
				break; /* the client went away: nothing more to say */
			sbuf_reset(&ans);
		}
	}
	if (got < 0) {
		fprintf(stderr, "heapwalk: mcp: standard input: %s\n", strerror(errno));
		rc = 2;
	}
	m->in = m->out = -1;
	sbuf_free(&line);
	sbuf_free(&ans);
	return rc;
}
