/* step.c — parsing, printing and applying selection steps, see step.h. */
#include "query/step.h"

#include <stdlib.h>
#include <string.h>

#include "graph/analysis.h"
#include "graph/classes.h"
#include "graph/open.h"
#include "graph/ownership.h"
#include "graph/reader.h"
#include "query/alloctime.h"
#include "query/alloc.h"
#include "query/baseline.h"
#include "query/between.h"
#include "query/cmd.h"
#include "query/inspect.h"

enum argkind { A_NONE, A_CLASS, A_ID, A_WEAK, A_INSP, A_ROLE, A_GEN, A_ROOT, A_REF, A_PATH, A_TIME, A_FRAMES };

static const struct {
	const char *name;
	enum step_op op;
	enum argkind arg;
} ops[] = {
	{ "all", ST_ALL, A_NONE }, { "instances", ST_INSTANCES, A_CLASS },
	{ "instanceof", ST_INSTANCEOF, A_CLASS }, { "retained", ST_RETAINED, A_NONE },
	{ "referrers", ST_REFERRERS, A_WEAK }, { "referents", ST_REFERENTS, A_WEAK },
	{ "dominated", ST_DOMINATED, A_NONE }, { "object", ST_OBJECT, A_ID },
	{ "new", ST_NEW, A_NONE }, { "old", ST_OLD, A_NONE }, { "gone", ST_GONE, A_NONE },
	{ "inspection", ST_INSPECTION, A_INSP }, { "top", ST_TOP, A_NONE },
	{ "class-objects", ST_CLASSOBJ, A_NONE }, { "elements", ST_ELEMENTS, A_ROLE },
	{ "loaded", ST_LOADED, A_NONE }, { "generation", ST_GENERATION, A_GEN },
	{ "unreachable", ST_UNREACHABLE, A_NONE }, { "live", ST_LIVE, A_NONE },
	{ "unidentified", ST_UNIDENTIFIED, A_NONE },
	{ "root", ST_ROOT, A_ROOT }, { "ignore", ST_IGNORE, A_REF }, { "unignore", ST_UNIGNORE, A_REF },
	{ "reachable", ST_REACHABLE, A_WEAK }, { "path", ST_PATH, A_PATH }, { "allocated", ST_ALLOCATED, A_TIME },
	{ "loader", ST_LOADER, A_ID }, { "site", ST_SITE, A_FRAMES }, { "calls", ST_CALLS, A_FRAMES },
};

#define NELEM(a) (sizeof (a) / sizeof (a)[0])

const char *step_word(size_t i)
{
	if (i < NELEM(ops))
		return ops[i].name;
	for (size_t k = 0, j = NELEM(ops); k < CMD_N; k++) /* then the views' */
		if ((cmd_table[k].flags & CMD_VIEW) && j++ == i)
			return cmd_table[k].name;
	return NULL;
}

/* ---- parsing ---- */

struct lexer {
	const char *expr, *p;
	struct sbuf *err;
};

static int col(const struct lexer *lx, const char *at) { return (int)(at - lx->expr) + 1; }

static void skip_space(struct lexer *lx)
{
	while (*lx->p == ' ' || *lx->p == '\t')
		lx->p++;
}

/* One word up to a blank or '|', a word in quotes, ' or " (blanks and
 * '|' in it its own: a class "Foo [app.dll]", "system / Context"; the
 * quote and a backslash inside written with a backslash before), or a
 * /regex/ (a slash inside written \/). *start gets where it began.
 * Returns NULL on an unclosed regex or quote. */
static char *word(struct lexer *lx, int *regex, const char **start)
{
	struct sbuf sb;
	const char *q;

	skip_space(lx);
	*start = lx->p;
	*regex = *lx->p == '/';
	sbuf_init(&sb);
	if (*lx->p == '"' || *lx->p == '\'') {
		char quote = *lx->p;
		for (q = lx->p + 1; *q && *q != quote; q++) {
			if (q[0] == '\\' && (q[1] == quote || q[1] == '\\'))
				q++;
			sbuf_addc(&sb, *q);
		}
		if (*q != quote) {
			sbuf_free(&sb);
			return NULL;
		}
		lx->p = q + 1;
		return sbuf_detach(&sb);
	}
	if (!*regex) {
		for (q = lx->p; *q && *q != ' ' && *q != '\t' && *q != '|'; q++)
			sbuf_addc(&sb, *q);
		lx->p = q;
		return sbuf_detach(&sb);
	}
	for (q = lx->p + 1; *q && *q != '/'; q++) {
		if (q[0] == '\\' && q[1] == '/')
			q++;
		sbuf_addc(&sb, *q);
	}
	if (*q != '/') {
		sbuf_free(&sb);
		return NULL;
	}
	lx->p = q + 1;
	return sbuf_detach(&sb);
}

/* The column in expr of byte `off` of a regex unescaped from `start`. */
static int regex_col(const struct lexer *lx, const char *start, size_t off)
{
	const char *q = start + 1;

	for (size_t i = 0; i < off && *q && *q != '/'; i++)
		q += q[0] == '\\' && q[1] == '/' ? 2 : 1;
	return col(lx, q);
}

/* A step's /regex/ argument that does not compile: the lexer's error,
 * with the column in expr where PCRE2 stopped; else 0. */
static int bad_regex(struct lexer *lx, const char *start, const char *pattern)
{
	struct sbuf msg;
	size_t at;
	int rc = 0;

	sbuf_init(&msg);
	if (regex_error(pattern, &at, &msg) < 0) {
		sbuf_printf(lx->err, "column %d: bad regex: ", regex_col(lx, start, at));
		sbuf_adds(lx->err, msg.buf);
		rc = STEP_EREGEX;
	}
	sbuf_free(&msg);
	return rc;
}

/* "ID" or "ID,ID,...": 0 if every id is a number. */
static int id_list_check(const char *arg)
{
	uint64_t id;

	for (const char *q = arg;;) {
		const char *c = strchr(q, ',');
		size_t n = c ? (size_t)(c - q) : strlen(q);
		char buf[32];
		if (n == 0 || n >= sizeof buf)
			return -1;
		memcpy(buf, q, n);
		buf[n] = '\0';
		if (parse_object_id(buf, &id) < 0)
			return -1;
		if (c == NULL)
			return 0;
		q = c + 1;
	}
}

static int parse_arg(struct lexer *lx, struct step *s, const char *opname, enum argkind kind)
{
	const char *start;

	s->arg = word(lx, &s->regex, &start);
	if (s->arg == NULL) {
		sbuf_printf(lx->err, "column %d: unclosed %s", col(lx, start), *start == '/' ? "/regex/" : "quote");
		return STEP_ESYNTAX;
	}
	if (*s->arg == '\0' && !s->regex && (kind != A_CLASS || (*start != '\'' && *start != '"'))) {
		/* (a class's name in quotes may be empty: a V8 constructor's) */
		sbuf_printf(lx->err, "column %d: '%s' needs %s", col(lx, start), opname,
			    kind == A_ID ? "an object id" : kind == A_GEN ? "a generation's name (as info lists the dump's: gen0, loh, nursery...)"
			    : "a class name or /regex/");
		return STEP_ESYNTAX;
	}
	if (kind == A_GEN && s->regex) {
		sbuf_printf(lx->err, "column %d: '%s' needs a generation's name, not a /regex/", col(lx, start),
			    opname);
		return STEP_ESYNTAX;
	}
	if (kind == A_ID && (s->regex || id_list_check(s->arg) < 0)) {
		sbuf_printf(lx->err, "column %d: '%s' needs an object id (0x... hex or decimal, @ before it or not), not '",
			    col(lx, start), opname);
		esc_append(lx->err, (const uint8_t *)start, (size_t)(lx->p - start), 0);
		sbuf_addc(lx->err, '\'');
		return STEP_ESYNTAX;
	}
	return s->regex ? bad_regex(lx, start, s->arg) : 0;
}

/* "ignore ID LABEL": LABEL is the rest of the step, blanks inside kept
 * ("static LISTENERS"), a leading '.' dropped. */
static int parse_ref(struct lexer *lx, struct step *s, const char *opname)
{
	int rc = parse_arg(lx, s, opname, A_ID);

	if (rc != 0)
		return rc;
	if (strchr(s->arg, ',') != NULL) {
		sbuf_printf(lx->err, "column %d: '%s' takes one object", col(lx, lx->p), opname);
		return STEP_ESYNTAX;
	}
	skip_space(lx);
	const char *a = lx->p, *b = a;
	while (*b != '\0' && *b != '|')
		b++;
	lx->p = b;
	while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
		b--;
	if (a < b && *a == '.')
		a++;
	while (a < b && (*a == ' ' || *a == '\t')) /* ". next" reads as "next", as it prints */
		a++;
	if (a == b) {
		sbuf_printf(lx->err, "column %d: '%s' needs the reference: a field's name, [INDEX] or the "
			    "target's id", col(lx, a), opname);
		return STEP_ESYNTAX;
	}
	s->field = xstrndup(a, (size_t)(b - a));
	return 0;
}

/* "site F <- F ...", "calls F -> F ...": the rest of the step, each
 * frame's text trimmed, kept in arg joined by sep. */
static int parse_frames(struct lexer *lx, struct step *s, const char *opname, const char *sep)
{
	const char *a, *b, *end;
	struct sbuf sb;
	const char *bare = strcmp(sep, SITE_SEP) == 0 ? "<-" : "->";

	skip_space(lx);
	for (end = lx->p; *end != '\0' && *end != '|'; end++)
		;
	sbuf_init(&sb);
	for (a = lx->p;; a = b + strlen(bare)) { /* up to each arrow; after the last, the end */
		b = a;
		while (b < end && strncmp(b, bare, strlen(bare)) != 0)
			b++;
		const char *x = a, *y = b;
		while (x < y && (*x == ' ' || *x == '\t'))
			x++;
		while (y > x && (y[-1] == ' ' || y[-1] == '\t'))
			y--;
		if (x == y) {
			sbuf_printf(lx->err, "column %d: '%s' needs frames as the Allocations view names them, "
				    "joined by '%s'", col(lx, x), opname, bare);
			sbuf_free(&sb);
			return STEP_ESYNTAX;
		}
		if (sb.len > 0)
			sbuf_adds(&sb, sep);
		sbuf_add(&sb, x, (size_t)(y - x));
		if (b == end)
			break;
	}
	lx->p = end;
	s->arg = sbuf_detach(&sb);
	return 0;
}

/* "inspection NAME [ARG] group K". */
static int parse_inspection(struct lexer *lx, struct step *s)
{
	const char *start;
	int rx;
	char *w = word(lx, &rx, &start);
	const struct inspection *in = w != NULL && !rx ? inspect_find(w) : NULL;

	if (in == NULL) {
		sbuf_printf(lx->err, "column %d: 'inspection' needs the name of one (heapwalk "
			    "inspect --list): not '", col(lx, start));
		if (w != NULL)
			esc_append(lx->err, (const uint8_t *)w, strlen(w), 0);
		sbuf_addc(lx->err, '\'');
		free(w);
		return STEP_ESYNTAX;
	}
	s->insp = w;
	w = word(lx, &rx, &start);
	if (w != NULL && !rx && strcmp(w, "group") != 0) {
		s->arg = w;
		w = word(lx, &rx, &start);
	} else if (w != NULL && rx) {
		s->arg = w;
		s->regex = 1;
		if (bad_regex(lx, start, s->arg) != 0)
			return STEP_EREGEX;
		w = word(lx, &rx, &start);
	}
	if (w == NULL || rx || strcmp(w, "group") != 0) {
		sbuf_printf(lx->err, "column %d: expected 'group K' after the inspection", col(lx, start));
		free(w);
		return STEP_ESYNTAX;
	}
	free(w);
	w = word(lx, &rx, &start);
	char *end = w, *q = w;
	for (int first = 1; w != NULL && !rx; first = 0) { /* K or K,K,... */
		unsigned long k = *q >= '1' && *q <= '9' ? strtoul(q, &end, 10) : 0;
		if (k == 0 || k > UINT32_MAX || (*end != '\0' && *end != ','))
			break;
		if (first) {
			s->group = (uint32_t)k;
		} else {
			s->more = xreallocarray(s->more, s->nmore + 1, sizeof *s->more);
			s->more[s->nmore++] = (uint32_t)k;
		}
		if (*end == '\0')
			break;
		q = end + 1;
	}
	if (w == NULL || rx || s->group == 0 || *end != '\0') {
		sbuf_printf(lx->err, "column %d: expected a group number (1, 2, ...) or numbers (1,3)", col(lx, start));
		free(w);
		return STEP_ESYNTAX;
	}
	free(w);
	if ((in->arg_required && s->arg == NULL) || (in->arg == NULL && s->arg != NULL)) {
		sbuf_printf(lx->err, "column %d: inspection %s %s", col(lx, start), in->name,
			    in->arg == NULL ? "takes no argument" : "needs an argument");
		return STEP_ESYNTAX;
	}
	return 0;
}

/* Is the next word w (a whole word)? Then it is taken. */
static int take_word(struct lexer *lx, const char *w)
{
	size_t n = strlen(w);
	const char *q;

	skip_space(lx);
	q = lx->p;
	if (strncmp(q, w, n) != 0 || (q[n] != '\0' && q[n] != ' ' && q[n] != '\t' && q[n] != '|'))
		return 0;
	lx->p += n;
	return 1;
}

/* "path FROM TO [undirected] [weak]", the options in either order. */
static int parse_path(struct lexer *lx, struct step *s)
{
	char **id[2] = { &s->arg, &s->to };
	uint64_t v;

	for (int i = 0; i < 2; i++) {
		const char *start;
		int rx;
		*id[i] = word(lx, &rx, &start);
		if (*id[i] == NULL || rx || parse_object_id(*id[i], &v) < 0) {
			sbuf_printf(lx->err, "column %d: 'path' needs two object ids (0x... hex or decimal, @ before it or not): FROM TO",
				    col(lx, start));
			return STEP_ESYNTAX;
		}
	}
	for (int more = 1; more;) {
		more = 0;
		if (!s->undirected && take_word(lx, "undirected"))
			more = s->undirected = 1;
		if (!s->weak && (take_word(lx, "weak") || take_word(lx, "--weak")))
			more = s->weak = 1;
	}
	return 0;
}

/* "allocated FROM..TO": the interval kept in its canonical text. */
static int parse_interval(struct lexer *lx, struct step *s)
{
	const char *start;
	int rx;
	uint64_t from, to;
	char *w = word(lx, &rx, &start);
	struct sbuf why;

	sbuf_init(&why);
	if (w == NULL || rx || *w == '\0' || time_range_parse(w, &from, &to, &why) < 0) {
		sbuf_printf(lx->err, "column %d: 'allocated' needs an interval: %s", col(lx, start),
			    why.len ? why.buf : "FROM..TO (seconds; ..TO and FROM.. leave an end open)");
		sbuf_free(&why);
		free(w);
		return STEP_ESYNTAX;
	}
	sbuf_free(&why);
	free(w);
	struct sbuf t;
	sbuf_init(&t);
	time_range_text(from, to, &t);
	s->arg = sbuf_detach(&t);
	return 0;
}

/* One step or, last, a view name. */
static int parse_one(struct lexer *lx, struct pipeline *pl)
{
	const char *start;
	int rx, rc = 0;
	char *w = word(lx, &rx, &start);

	if (w == NULL || *w == '\0' || rx) {
		sbuf_printf(lx->err, "column %d: expected a step", col(lx, start));
		free(w);
		return STEP_ESYNTAX;
	}
	if (cmd_view(w) != NULL) {
		skip_space(lx);
		if (*lx->p != '\0') {
			sbuf_printf(lx->err, "column %d: the view '%s' must come last", col(lx, start), w);
			free(w);
			return STEP_ESYNTAX;
		}
		pl->view = w;
		return 0;
	}
	size_t i = 0;
	while (i < NELEM(ops) && strcmp(w, ops[i].name) != 0)
		i++;
	if (i == NELEM(ops)) {
		sbuf_printf(lx->err, "column %d: unknown step '", col(lx, start));
		esc_append(lx->err, (const uint8_t *)w, strlen(w), 0);
		sbuf_addc(lx->err, '\'');
		free(w);
		return STEP_ESYNTAX;
	}
	free(w);
	struct step s = { .op = ops[i].op };
	if (ops[i].arg == A_CLASS || ops[i].arg == A_ID || ops[i].arg == A_GEN) {
		rc = parse_arg(lx, &s, ops[i].name, ops[i].arg);
		if (rc == 0 && s.op == ST_LOADER && strchr(s.arg, ',') != NULL) {
			sbuf_printf(lx->err, "column %d: 'loader' takes one id", col(lx, lx->p));
			rc = STEP_ESYNTAX;
		}
	} else if (ops[i].arg == A_INSP) {
		rc = parse_inspection(lx, &s);
	} else if (ops[i].arg == A_ROOT) {
		skip_space(lx);
		if (strncmp(lx->p, "gc", 2) == 0 && (lx->p[2] == '\0' || strchr(" \t|", lx->p[2]) != NULL)) {
			s.arg = xstrdup("gc");
			lx->p += 2;
		} else {
			rc = parse_arg(lx, &s, ops[i].name, A_ID);
			if (rc == 0 && strchr(s.arg, ',') != NULL) {
				sbuf_printf(lx->err, "column %d: 'root' takes one object", col(lx, lx->p));
				rc = STEP_ESYNTAX;
			}
		}
	} else if (ops[i].arg == A_REF) {
		rc = parse_ref(lx, &s, ops[i].name);
	} else if (ops[i].arg == A_PATH) {
		rc = parse_path(lx, &s);
	} else if (ops[i].arg == A_FRAMES) {
		rc = parse_frames(lx, &s, ops[i].name, ops[i].op == ST_SITE ? SITE_SEP : CALLS_SEP);
	} else if (ops[i].arg == A_TIME) {
		rc = parse_interval(lx, &s);
	} else if (ops[i].arg == A_WEAK) {
		skip_space(lx);
		const char *q = lx->p;
		size_t n = strncmp(q, "--weak", 6) == 0 ? 6 : strncmp(q, "weak", 4) == 0 ? 4 : 0;
		if (n > 0 && (q[n] == '\0' || q[n] == ' ' || q[n] == '\t' || q[n] == '|')) {
			s.weak = 1;
			lx->p += n;
		}
	} else if (ops[i].arg == A_ROLE) { /* elements [keys|values] */
		skip_space(lx);
		const char *q = lx->p;
		size_t n = strncmp(q, "keys", 4) == 0 ? 4 : strncmp(q, "values", 6) == 0 ? 6 : 0;
		if (n > 0 && (q[n] == '\0' || q[n] == ' ' || q[n] == '\t' || q[n] == '|')) {
			s.arg = xstrndup(q, n);
			lx->p += n;
		}
	}
	if (rc != 0) {
		free(s.arg);
		free(s.insp);
		free(s.more);
		free(s.field);
		free(s.to);
		return rc;
	}
	pl->steps = xreallocarray(pl->steps, pl->n + 1, sizeof *pl->steps);
	pl->steps[pl->n++] = s;
	return 0;
}

int pipeline_parse(const char *expr, struct pipeline *pl, struct sbuf *err)
{
	struct lexer lx = { expr, expr, err };

	memset(pl, 0, sizeof *pl);
	for (;;) {
		int rc = parse_one(&lx, pl);
		if (rc != 0)
			return rc;
		skip_space(&lx);
		if (*lx.p == '\0')
			return 0;
		if (*lx.p != '|') {
			sbuf_printf(err, "column %d: expected '|'", col(&lx, lx.p));
			return STEP_ESYNTAX;
		}
		lx.p++;
	}
}

void pipeline_free(struct pipeline *pl)
{
	for (size_t i = 0; i < pl->n; i++) {
		free(pl->steps[i].arg);
		free(pl->steps[i].insp);
		free(pl->steps[i].more);
		free(pl->steps[i].field);
		free(pl->steps[i].to);
	}
	free(pl->steps);
	free(pl->view);
	memset(pl, 0, sizeof *pl);
}

void step_to_string(const struct step *s, struct sbuf *out)
{
	enum argkind kind = A_NONE;

	for (size_t i = 0; i < NELEM(ops); i++)
		if (ops[i].op == s->op) {
			sbuf_adds(out, ops[i].name);
			kind = ops[i].arg;
		}
	if (s->op == ST_INSPECTION) {
		sbuf_addc(out, ' ');
		sbuf_adds(out, s->insp);
	}
	if (s->arg != NULL && s->regex) {
		sbuf_adds(out, " /");
		for (const char *c = s->arg; *c; c++) {
			if (*c == '/')
				sbuf_addc(out, '\\');
			sbuf_addc(out, *c);
		}
		sbuf_addc(out, '/');
	} else if (s->arg != NULL && (kind == A_CLASS || kind == A_GEN) &&
		   (*s->arg == '\0' || *s->arg == '\'' || *s->arg == '"' || *s->arg == '/' || strpbrk(s->arg, " \t|") != NULL)) {
		sbuf_adds(out, " '"); /* as word() reads it back (parse_arg): the name its own */
		for (const char *c = s->arg; *c; c++) {
			if (*c == '\'' || *c == '\\')
				sbuf_addc(out, '\\');
			sbuf_addc(out, *c);
		}
		sbuf_addc(out, '\'');
	} else if (s->arg != NULL) {
		sbuf_addc(out, ' ');
		sbuf_adds(out, s->arg);
	}
	if (s->field != NULL && (s->op == ST_IGNORE || s->op == ST_UNIGNORE)) {
		sbuf_adds(out, s->field[0] == '.' ? " ." : " "); /* the parser drops one */
		sbuf_adds(out, s->field);
	}
	if (s->to != NULL)
		sbuf_printf(out, " %s", s->to);
	if (s->undirected)
		sbuf_adds(out, " undirected");
	if (s->weak && (s->op == ST_REFERRERS || s->op == ST_REFERENTS || s->op == ST_REACHABLE ||
			s->op == ST_PATH))
		sbuf_adds(out, " weak");
	if (s->op == ST_INSPECTION) {
		sbuf_printf(out, " group %u", s->group);
		for (size_t i = 0; i < s->nmore; i++)
			sbuf_printf(out, ",%u", s->more[i]);
	}
}

void pipeline_to_string(const struct pipeline *pl, struct sbuf *out)
{
	for (size_t i = 0; i < pl->n; i++) {
		if (i > 0)
			sbuf_adds(out, " | ");
		step_to_string(&pl->steps[i], out);
	}
	if (pl->view != NULL) {
		if (pl->n > 0)
			sbuf_adds(out, " | ");
		sbuf_adds(out, pl->view);
	}
}

/* ---- evaluation ---- */

/* ": did you mean NAME?" for the first class whose name is the fewest
 * edits from name (at most one for a name of four letters, else two),
 * if any is */
static void nearest_class(const struct heap *h, const char *name, struct sbuf *err)
{
	size_t max = strlen(name) <= 4 ? 1 : 2, least = max + 1;
	uint32_t best = HW_NONE;

	for (uint32_t c = 0; c < h->ncls && least > 1; c++) {
		size_t k = str_edits(name, class_name(h, c), least - 1);
		if (k < least)
			least = k, best = c;
	}
	if (best != HW_NONE) {
		sbuf_adds(err, ": did you mean ");
		esc_append(err, (const uint8_t *)class_name(h, best), strlen(class_name(h, best)), 0);
		sbuf_addc(err, '?');
	}
}

/* Classes matching the step, with subclasses for instanceof. NULL and
 * err when the regex is bad or nothing matches. */
static uint8_t *step_classes(const struct heap *h, const struct step *s, struct sbuf *err)
{
	uint8_t *m;
	uint32_t c, any = 0;

	if (s->op == ST_INSTANCEOF && !heap_knows_supers(h)) { /* its answer would be instances' without a word */
		sbuf_printf(err, "instanceof: this dump's format (%s) names no class's superclass, so no subclass "
			    "can be told; instances selects the class alone", h->fmt != NULL ? h->fmt->label : "none");
		return NULL;
	}
	if ((m = class_match(h, s->arg, s->regex, err)) == NULL)
		return NULL;
	for (c = 0; c < h->ncls; c++)
		any |= m[c];
	if (!any) {
		sbuf_adds(err, s->regex ? "no class matches /" : "no class named '");
		esc_append_again(err, (const uint8_t *)s->arg, strlen(s->arg)); /* the user's words: as written */
		sbuf_adds(err, s->regex ? "/" : "'");
		if (!s->regex)
			nearest_class(h, s->arg, err);
		free(m);
		return NULL;
	}
	if (s->op != ST_INSTANCEOF)
		return m;
	uint8_t *sub = xcalloc((size_t)h->ncls + 1, 1);
	for (c = 0; c < h->ncls; c++) { /* walk up: a few levels each, and a cycle stops at ncls */
		uint32_t k = c;
		for (uint32_t depth = 0; k != HW_NONE && k < h->ncls && depth <= h->ncls; depth++) {
			if (m[k]) {
				sub[c] = 1;
				break;
			}
			k = h->cls[k].super;
		}
	}
	free(m);
	return sub;
}

/* One step along strong references, in or out (and weak referents). */
static void neighbours(const struct heap *h, const struct objset *in, struct objset *out,
		       int incoming, int weak)
{
	const edge_t *start = incoming ? h->in_start : h->out_start;
	const node_t *adj = incoming ? h->in : h->out;

	for (node_t v = 1; v < h->n; v++) {
		if (!bit_get(in->bits, v))
			continue;
		for (edge_t j = start[v]; j < start[v + 1]; j++)
			bit_set(out->bits, adj[j]);
	}
	for (uint64_t i = 0; i < h->nweak; i++) {
		node_t a = h->weak_src[i], b = h->weak_dst[i];
		/* the focus's: moved strong ones always, left out ones never */
		int outside = weak_moved(h, i);
		if (!outside && (!weak || weak_left_out(h, i)))
			continue;
		if (bit_get(in->bits, incoming ? b : a))
			bit_set(out->bits, incoming ? a : b);
	}
	/* incidental references (an owner of higher weight holds the
	 * target) are references all the same */
	for (uint64_t i = 0; i < h->nrx; i++) {
		node_t a = h->rx_src[i], b = h->rx_dst[i];
		if (bit_get(in->bits, incoming ? b : a))
			bit_set(out->bits, incoming ? a : b);
	}
}

/* The members no other member dominates: the dominator tree walked
 * once, depth first, each node knowing whether a member is above it. */
static void top_members(struct heap *h, const struct objset *set, struct objset *r)
{
	size_t cap = 1024, sp = 0;
	node_t *stk = xmalloc(cap * sizeof *stk);
	uint8_t *under = xmalloc(cap);

	analysis_domchildren(h);
	stk[sp] = 0;
	under[sp++] = 0;
	while (sp > 0) {
		node_t v = stk[--sp];
		int below = under[sp];
		if (v != 0 && bit_get(set->bits, v)) {
			if (!below)
				bit_set(r->bits, v);
			below = 1;
		}
		for (node_t j = h->dom_start[v]; j < h->dom_start[v + 1]; j++) {
			if (sp == cap) {
				cap *= 2;
				stk = xreallocarray(stk, cap, sizeof *stk);
				under = xreallocarray(under, cap, 1);
			}
			stk[sp] = h->dom_child[j];
			under[sp++] = (uint8_t)below;
		}
	}
	free(stk);
	free(under);
}

static void add_element(void *arg, node_t holder, node_t target, enum coll_role role)
{
	struct objset *r = arg;

	(void)holder;
	(void)role;
	if (target != HW_NONE && target != 0)
		bit_set(r->bits, target);
}

/* The elements (keys, values) of the members that are collections. */
static void collection_elements(struct heap *h, const struct step *s, const struct objset *set,
				struct objset *r)
{
	const struct runtime_ops *rt = heap_runtime(h);
	unsigned roles = s->arg == NULL ? CR_ELEMENT | CR_KEY | CR_VALUE
		       : strcmp(s->arg, "keys") == 0 ? CR_KEY : CR_VALUE;

	if (rt == NULL || rt->coll_walk == NULL) /* collections of a runtime that knows none */
		return;
	void *ctx = rt->open(h);
	for (node_t v = 1; v < h->n; v++)
		if (bit_get(set->bits, v))
			rt->coll_walk(ctx, v, roles, add_element, r);
	rt->close(ctx);
}

static int cmp_u64(const void *a, const void *b, void *ctx)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	(void)ctx;
	return x < y ? -1 : x > y;
}

/* The instances of the classes the member class loaders define. */
static void loaded_instances(struct heap *h, const struct objset *set, struct objset *r)
{
	uint64_t *ids = xmalloc(((size_t)set->count + 1) * sizeof *ids);
	size_t n = 0;
	uint8_t *m = xcalloc((size_t)h->ncls + 1, 1);

	for (node_t v = 1; v < h->n; v++)
		if (bit_get(set->bits, v) && h->node_class[v] != HW_NONE &&
		    (h->cls[h->node_class[v]].flags & HC_LOADER))
			ids[n++] = heap_node_id(h, v);
	hw_sort(ids, n, sizeof *ids, cmp_u64, NULL);
	for (uint32_t c = 0; c < h->ncls; c++) {
		uint64_t l = h->cls[c].loader_id;
		size_t lo = lower_bound_u64(ids, n, l);
		m[c] = l != 0 && lo < n && ids[lo] == l;
	}
	for (node_t v = 1; v < h->n; v++)
		if (h->node_class[v] != HW_NONE && m[h->node_class[v]])
			bit_set(r->bits, v);
	free(ids);
	free(m);
}

/* The members of one group of an inspection run on set. */
static int inspection_group(struct heap *h, const struct step *s, const struct objset *set,
			    struct objset *r, struct progress *p, struct sbuf *err)
{
	const struct inspection *in = inspect_find(s->insp);
	struct insp_result res;

	if (in == NULL) {
		sbuf_printf(err, "no inspection named %s", s->insp);
		return -1;
	}
	if (inspect_run(h, in, s->arg, set, &res, p, err) < 0)
		return -1;
	for (size_t k = 0; k <= s->nmore; k++) {
		uint32_t gi = k == 0 ? s->group : s->more[k - 1];
		if (gi > res.n) {
			sbuf_printf(err, "inspection %s has %zu group%s here, not %u", in->name, res.n,
				    res.n == 1 ? "" : "s", gi);
			insp_result_free(&res);
			return -1;
		}
		const struct insp_group *g = &res.g[gi - 1];
		for (uint64_t i = 0; i < g->count; i++)
			bit_set(r->bits, g->nodes[i]);
	}
	insp_result_free(&res);
	return 0;
}

/* Does src refer to t by label (its edge label, or t's id)? */
static int ref_named(const struct heap *h, node_t src, node_t t, const char *label, struct sbuf *tmp)
{
	sbuf_reset(tmp);
	heap_edge_label(h, src, t, tmp);
	return tmp->buf != NULL && strcmp(tmp->buf, label) == 0;
}

/* Is name one of the ", "-separated names of list? */
static int name_listed(const struct sbuf *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list->buf; p != NULL && *p;) {
		const char *e = strstr(p, ", ");
		size_t len = e != NULL ? (size_t)(e - p) : strlen(p);
		if (len == n && memcmp(p, name, n) == 0)
			return 1;
		p = e != NULL ? e + 2 : p + len;
	}
	return 0;
}

/* Does src refer to t, by a strong, weak or incidental reference? */
static int refers_to(const struct heap *h, node_t src, node_t t)
{
	for (edge_t j = h->out_start[src]; j < h->out_start[src + 1]; j++)
		if (h->out[j] == t)
			return 1;
	for (uint64_t i = heap_weak_first(h, src); i < h->nweak && h->weak_src[i] == src; i++)
		if (h->weak_dst[i] == t)
			return 1;
	for (uint64_t i = 0; i < h->nrx; i++)
		if (h->rx_src[i] == src && h->rx_dst[i] == t)
			return 1;
	return 0;
}

struct field_find {
	const struct heap *h;
	const char *name;
	node_t found;
	int seen;
};

/* The first field named so (the class's own before a super's). */
static void field_find_cb(void *arg, const char *name, const struct hvalue *val)
{
	struct field_find *f = arg;

	if (f->seen || strcmp(name, f->name) != 0)
		return;
	f->seen = 1;
	if (val->type == T_OBJECT && val->v.id != 0)
		f->found = heap_find_id(f->h, val->v.id);
}

/* The object src refers to by label: an array's element "[i]", a field
 * by its name, else among its strong, weak and incidental references
 * the one the views label so, else the one whose id it is; HW_NONE with
 * err naming those it has. */
node_t step_ref_target(const struct heap *h, node_t src, const char *label, struct sbuf *err)
{
	struct sbuf tmp, names;
	node_t found = HW_NONE;
	size_t n = 0;
	char *end;

	if (label[0] == '[' && label[1] >= '0' && label[1] <= '9') {
		struct hvalue val;
		unsigned long long i = strtoull(label + 1, &end, 10);
		if (strcmp(end, "]") == 0 && heap_array_elem(h, src, i, &val) == 0 && val.type == T_OBJECT &&
		    val.v.id != 0 && (found = heap_find_id(h, val.v.id)) != HW_NONE)
			return found;
	}
	/* a class object's statics, named as the views name them */
	const char *fname = h->node_kind[src] == NK_CLASS && strncmp(label, "static ", 7) == 0 ? label + 7 : label;
	struct field_find ff = { h, fname, HW_NONE, 0 };
	if (heap_fields(h, src, field_find_cb, &ff) > 0 && ff.found != HW_NONE && ff.found != 0)
		return ff.found;
	sbuf_init(&tmp);
	sbuf_init(&names);
	/* the names: a target's every name once (two fields that hold one
	 * object are two references to it; one left out is among the weak
	 * or the incidental ones while the other stays), and a name that
	 * other targets have too once (a class's constant pool: eight of
	 * them said nothing and hid the statics after them) */
	node_t named[8];
#define TRY(t) do { \
		node_t t_ = (t); \
		size_t k_ = 0; \
		while (k_ < n && k_ < 8 && named[k_] != t_) \
			k_++; \
		if (found == HW_NONE && ref_named(h, src, t_, label, &tmp)) { \
			found = t_; \
		} else if (found == HW_NONE && (k_ == n || k_ == 8)) { /* the names, while none is found */ \
			sbuf_reset(&tmp); \
			ref_labels(h, src, t_, ", ", &tmp); \
			if (tmp.buf != NULL && name_listed(&names, tmp.buf)) \
				break; \
			if (n < 8) { \
				named[n] = t_; \
				sbuf_printf(&names, "%s%s", n > 0 ? ", " : "", tmp.buf ? tmp.buf : ""); \
			} \
			n++; \
		} \
	} while (0)
	for (edge_t j = h->out_start[src]; j < h->out_start[src + 1]; j++)
		TRY(h->out[j]);
	for (uint64_t i = heap_weak_first(h, src); i < h->nweak && h->weak_src[i] == src; i++)
		TRY(h->weak_dst[i]);
	for (uint64_t i = 0; i < h->nrx; i++)
		if (h->rx_src[i] == src)
			TRY(h->rx_dst[i]);
#undef TRY
	/* else the id of one it refers to: after every label, so that a
	 * reference labelled "12" or "@1" is taken before the object of
	 * that id */
	uint64_t id;
	node_t t = HW_NONE;
	if (found == HW_NONE && parse_object_id(label, &id) == 0 && (t = heap_find_id(h, id)) != HW_NONE &&
	    refers_to(h, src, t))
		found = t;
	if (found == HW_NONE) {
		char sid[32];
		node_id_text(h, src, sid, sizeof sid);
		trace_holder(h, src, &tmp); /* its class, or "class X" for a class */
		sbuf_printf(err, "the object %s (", sid);
		esc_append(err, (const uint8_t *)tmp.buf, tmp.len, 0);
		sbuf_adds(err, ") has no reference '");
		esc_append(err, (const uint8_t *)label, strlen(label), 0);
		sbuf_adds(err, "'");
		if (n > 0) {
			sbuf_adds(err, " (it has: ");
			esc_append(err, (const uint8_t *)names.buf, names.len, 0);
			sbuf_adds(err, n > 8 ? ", ...)" : ")");
		}
	}
	sbuf_free(&tmp);
	sbuf_free(&names);
	return found;
}

/* root, ignore, unignore: the analyses again, then the set. */
static int focus_step(struct heap *h, const struct step *s, const struct objset *set, struct objset *r,
		      struct progress *p, struct sbuf *err)
{
	node_t v = 0, t = HW_NONE;

	if (s->op != ST_ROOT || strcmp(s->arg, "gc") != 0)
		if ((v = object_by_id(h, s->arg, strlen(s->arg), err)) == HW_NONE)
			return -1;
	if (s->op != ST_ROOT && (t = step_ref_target(h, v, s->field, err)) == HW_NONE)
		return -1;
	int rc = s->op == ST_ROOT ? heap_set_root(h, v, p) : heap_ignore(h, v, t, s->op == ST_IGNORE, p);
	if (rc < 0) {
		sbuf_adds(err, "cancelled: the analyses are as they were");
		return -1;
	}
	if (s->op != ST_ROOT) { /* the same objects, other analyses */
		memcpy(r->bits, set->bits, bits_words(h->n) * sizeof *r->bits);
	} else if (v == 0) {
		for (node_t x = 1; x < h->n; x++)
			bit_set(r->bits, x);
	} else { /* what the root reaches: its subtree of the dominator tree */
		node_t *stack = xmalloc(((size_t)h->n + 1) * sizeof *stack);
		size_t sp = 0;
		bit_set(r->bits, v);
		stack[sp++] = v;
		while (sp > 0) {
			node_t x = stack[--sp];
			for (edge_t j = h->out_start[x]; j < h->out_start[x + 1]; j++)
				if (!bit_get(r->bits, h->out[j])) {
					bit_set(r->bits, h->out[j]);
					stack[sp++] = h->out[j];
				}
		}
		free(stack);
	}
	return 0;
}

/* The objects on a shortest path from s->arg to s->to; none is an error. */
static int path_objects(const struct heap *h, const struct step *s, struct objset *r,
			struct progress *p, struct sbuf *err)
{
	struct between b;
	unsigned flags = (s->weak ? REACH_WEAK : 0) | (s->undirected ? REACH_UNDIRECTED : 0);

	if (between_ids(h, s->arg, s->to, flags, &b, p, err) < 0)
		return -1;
	if (!b.found)
		between_none(h, &b, err);
	int found = b.found;
	for (size_t i = 0; i < b.path.n; i++)
		bit_set(r->bits, b.path.nodes[i]);
	between_free(&b);
	return found ? 0 : -1;
}

/* Steps that ask what the dump's format cannot tell: 0, or -1 with
 * err saying so (an empty set would read as "none"; err NULL: not
 * said). */
static int step_answerable(const struct heap *h, const struct step *s, struct sbuf *err)
{
	struct sbuf quiet;

	if (err == NULL) {
		sbuf_init(&quiet);
		int rc = step_answerable(h, s, &quiet);
		sbuf_free(&quiet);
		return rc;
	}
	const struct runtime_ops *rt = heap_runtime(h);
	const char *fmt = h->fmt != NULL ? h->fmt->label : "none";

	switch (s->op) {
	case ST_ELEMENTS:
		if (rt != NULL && rt->coll_walk != NULL)
			return 0;
		sbuf_printf(err, "elements: heapwalk knows no collections of this dump's runtime (%s, %s); referents "
			    "selects what the members refer to", h->fmt != NULL ? h->fmt->runtime : "none", fmt);
		return -1;
	case ST_LOADED:
	case ST_LOADER:
		if (heap_knows_loaders(h))
			return 0;
		sbuf_printf(err, "%s: this dump's format (%s) names no class loader, so no class can be told by one",
			    s->op == ST_LOADED ? "loaded" : "loader", fmt);
		return -1;
	case ST_CLASSOBJ:
		for (uint32_t c = 0; c < h->ncls; c++)
			if (h->cls[c].node != HW_NONE)
				return 0;
		sbuf_printf(err, "class-objects: no class is an object in this dump (its format: %s)", fmt);
		return -1;
	default:
		return 0;
	}
}

int step_applies(const struct heap *h, enum step_op op)
{
	struct step s = { .op = op };

	return step_answerable(h, &s, NULL) == 0;
}

int step_apply(struct heap *h, const struct step *s, struct objset *set, struct progress *p,
	       struct sbuf *err)
{
	struct objset r;
	uint8_t *m;
	uint64_t id;
	node_t v;

	if (step_answerable(h, s, err) < 0)
		return -1;
	objset_materialize(h, set);
	objset_empty(h, &r);
	switch (s->op) {
	case ST_ALL:
		objset_free(&r);
		objset_all(h, &r);
		break;
	case ST_INSTANCES:
	case ST_INSTANCEOF:
		if ((m = step_classes(h, s, err)) == NULL)
			goto fail;
		for (v = 1; v < h->n; v++)
			if (bit_get(set->bits, v) && m[h->node_class[v]])
				bit_set(r.bits, v);
		free(m);
		break;
	case ST_RETAINED:
		analysis_retained_set(h, set->bits, r.bits, NULL, p);
		break;
	case ST_REFERRERS:
	case ST_REFERENTS:
		neighbours(h, set, &r, s->op == ST_REFERRERS, s->weak);
		break;
	case ST_DOMINATED:
		for (v = 1; v < h->n; v++)
			if (bit_get(set->bits, h->idom[v]))
				bit_set(r.bits, v);
		break;
	case ST_NEW:
	case ST_OLD:
	case ST_UNIDENTIFIED:
		if (h->baseline == NULL) {
			sbuf_adds(err, "no baseline: give --baseline OLD, or a dump heapwalk took after a mark "
				  "(heapwalk mark PID, then heapwalk snapshot PID FILE: a JVM or .NET process)");
			goto fail;
		}
		/* old: neither new nor one whose identity the ids cannot tell */
		for (v = 1; v < h->n; v++)
			if (bit_get(set->bits, v) &&
			    (s->op == ST_UNIDENTIFIED ? baseline_unknown(h->baseline, v)
			     : baseline_unknown(h->baseline, v) ? s->loose
								 : objset_has(&h->baseline->fresh, v) == (s->op == ST_NEW)))
				bit_set(r.bits, v);
		break;
	case ST_GONE: /* the front end switches to the baseline's side */
		sbuf_adds(err, "gone: the objects gone since the baseline are in the baseline dump; "
			  "'gone' must be the first step, with --baseline OLD");
		goto fail;
	case ST_INSPECTION:
		if (inspection_group(h, s, set, &r, p, err) < 0)
			goto fail;
		break;
	case ST_TOP:
		top_members(h, set, &r);
		break;
	case ST_CLASSOBJ:
		m = xcalloc((size_t)h->ncls + 1, 1);
		for (v = 1; v < h->n; v++)
			if (bit_get(set->bits, v) && h->node_class[v] != HW_NONE)
				m[h->node_class[v]] = 1;
		for (uint32_t c = 0; c < h->ncls; c++)
			if (m[c] && h->cls[c].node != HW_NONE)
				bit_set(r.bits, h->cls[c].node);
		free(m);
		break;
	case ST_ELEMENTS:
		collection_elements(h, s, set, &r);
		break;
	case ST_LOADED:
		loaded_instances(h, set, &r);
		break;
	case ST_UNREACHABLE:
	case ST_LIVE: {
		bits_t *live = analysis_live_set(h);
		int want = s->op == ST_LIVE;
		for (v = 1; v < h->n; v++)
			if (bit_get(set->bits, v) && bit_get(live, v) == want)
				bit_set(r.bits, v);
		free(live);
		break;
	}
	case ST_GENERATION: {
		int g = heap_gen_find(h, s->arg);
		if (g < 0) {
			const char *name;
			if (heap_gen_name(h, 0) == NULL) {
				sbuf_adds(err, "generation: ");
				heap_gen_none(h, err);
				goto fail;
			}
			sbuf_adds(err, "no generation '");
			esc_append_again(err, (const uint8_t *)s->arg, strlen(s->arg)); /* the user's words: as written */
			sbuf_adds(err, "' in this dump: ");
			for (unsigned k = 0; (name = heap_gen_name(h, k)) != NULL; k++)
				sbuf_printf(err, "%s%s", k ? ", " : "", name);
			goto fail;
		}
		for (v = 1; v < h->n; v++)
			if (bit_get(set->bits, v) && h->node_gen[v] == g)
				bit_set(r.bits, v);
		break;
	}
	case ST_SITE:
	case ST_CALLS: {
		if (h->ntraces == 0) {
			sbuf_printf(err, "%s: this dump records no allocation stacks (%s)", s->op == ST_SITE ? "site"
				    : "calls", heap_alloc_hint(h));
			goto fail;
		}
		const char *sep = s->op == ST_SITE ? SITE_SEP : CALLS_SEP;
		char **labels = NULL;
		size_t n = 0;
		for (const char *q = s->arg;;) {
			const char *e = strstr(q, sep);
			labels = xreallocarray(labels, n + 1, sizeof *labels);
			labels[n++] = e ? xstrndup(q, (size_t)(e - q)) : xstrdup(q);
			if (e == NULL)
				break;
			q = e + strlen(sep);
		}
		/* a frame no stack has, like a class no object has, is an
		 * error: not an empty set that reads as none allocated there */
		size_t bad = 0;
		while (bad < n && alloc_frame_known(h, labels[bad]))
			bad++;
		if (bad < n) {
			sbuf_printf(err, "%s: no frame '", s->op == ST_SITE ? "site" : "calls");
			esc_append(err, (const uint8_t *)labels[bad], strlen(labels[bad]), 0);
			sbuf_adds(err, "' in this dump's allocation stacks (a frame reads FUNCTION (FILE:LINE), as the "
				       "allocations view shows it)");
			for (size_t k = 0; k < n; k++)
				free(labels[k]);
			free(labels);
			goto fail;
		}
		objset_free(&r);
		alloc_select_path(h, set, s->op == ST_SITE, labels, n, &r);
		for (size_t k = 0; k < n; k++)
			free(labels[k]);
		free(labels);
		break;
	}
	case ST_LOADER:
		if (strchr(s->arg, ',') != NULL || parse_object_id(s->arg, &id) < 0) {
			sbuf_adds(err, "loader takes one id (0: the bootstrap loader)");
			goto fail;
		}
		for (v = 1; v < h->n; v++)
			if (bit_get(set->bits, v) && h->node_class[v] != HW_NONE &&
			    h->cls[h->node_class[v]].loader_id == id)
				bit_set(r.bits, v);
		break;
	case ST_ROOT:
	case ST_IGNORE:
	case ST_UNIGNORE:
		if (focus_step(h, s, set, &r, p, err) < 0)
			goto fail;
		break;
	case ST_REACHABLE:
		reach_deep(h, set->bits, s->weak ? REACH_WEAK : 0, r.bits, NULL, p);
		break;
	case ST_PATH:
		if (path_objects(h, s, &r, p, err) < 0)
			goto fail;
		break;
	case ST_ALLOCATED: {
		uint64_t from, to;
		if (time_range_parse(s->arg, &from, &to, err) < 0)
			goto fail;
		if (heap_alloc_times(h)->n == 0) {
			sbuf_printf(err, "allocated: this dump records no allocation times (%s)", heap_time_hint(h));
			goto fail;
		}
		objset_free(&r);
		time_select(h, set, from, to, &r);
		break;
	}
	case ST_OBJECT:
		for (const char *q = s->arg;;) {
			const char *c = strchr(q, ',');
			size_t n = c ? (size_t)(c - q) : strlen(q);
			if ((v = object_by_id(h, q, n, err)) == HW_NONE)
				goto fail;
			bit_set(r.bits, v);
			if (c == NULL)
				break;
			q = c + 1;
		}
		break;
	}
	objset_recount(h, &r);
	objset_free(set);
	*set = r;
	return 0;
fail:
	objset_free(&r);
	return -1;
}
