/* rules.c — parsing reference-classifier rules, see rules.h. */
#include "graph/rules.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <fcntl.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct ruleset *rules_new(void)
{
	return xcalloc(1, sizeof(struct ruleset));
}

static void rule_clear(struct rule *r)
{
	for (size_t i = 0; i < r->nfields; i++)
		free(r->fields[i].name);
	free(r->fields);
	free(r->type);
	free(r->label);
	free(r->file);
}

void rules_free(struct ruleset *rs)
{
	if (rs == NULL)
		return;
	for (size_t i = 0; i < rs->n; i++)
		rule_clear(&rs->rules[i]);
	for (size_t i = 0; i < rs->ngroups; i++) {
		free(rs->groups[i].name);
		free(rs->groups[i].description);
		free(rs->groups[i].file);
	}
	free(rs->rules);
	free(rs->groups);
	free(rs->files);
	free(rs);
}

static char *dupn(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);

	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

/* ---- the lexer: one line at a time ---- */

struct lex {
	const char *file;
	const char *line;   /* the line's first byte */
	const char *p, *end;/* the cursor and the line's end */
	unsigned lineno;
	struct sbuf *err;
};

static int lex_error(struct lex *lx, const char *at, const char *fmt, const char *what)
{
	char *f = esc_str(lx->file); /* a file name may hold control characters */

	sbuf_printf(lx->err, "%s:%u:%d: ", f, lx->lineno, (int)(at - lx->line) + 1);
	free(f);
	sbuf_printf(lx->err, fmt, what);
	return -1;
}

static void skip_blank(struct lex *lx)
{
	while (lx->p < lx->end && (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\r'))
		lx->p++;
	if (lx->p < lx->end && *lx->p == '#')
		lx->p = lx->end;
}

static int at_end(struct lex *lx)
{
	skip_blank(lx);
	return lx->p == lx->end;
}

/* A bare word: up to a blank or '#'. Empty if none. */
static char *bare(struct lex *lx, const char **start)
{
	skip_blank(lx);
	*start = lx->p;
	while (lx->p < lx->end && *lx->p != ' ' && *lx->p != '\t' && *lx->p != '\r' && *lx->p != '#')
		lx->p++;
	return dupn(*start, (size_t)(lx->p - *start));
}

/* A "quoted string" with \" and \\; NULL (error set) if unclosed. */
static char *quoted(struct lex *lx)
{
	const char *start = lx->p;
	struct sbuf sb;

	sbuf_init(&sb);
	for (lx->p++; lx->p < lx->end && *lx->p != '"'; lx->p++) {
		if (*lx->p == '\\' && lx->p + 1 < lx->end && (lx->p[1] == '"' || lx->p[1] == '\\'))
			lx->p++;
		sbuf_addc(&sb, *lx->p);
	}
	if (lx->p == lx->end) {
		sbuf_free(&sb);
		lex_error(lx, start, "%s", "unclosed \"string\"");
		return NULL;
	}
	lx->p++;
	return sbuf_detach(&sb);
}

/* ---- rules ---- */

static uint32_t group_index(struct ruleset *rs, const char *name, const char *file, int create)
{
	for (size_t i = 0; i < rs->ngroups; i++)
		if (strcmp(rs->groups[i].name, name) == 0)
			return (uint32_t)i;
	if (!create)
		return UINT32_MAX;
	if (rs->ngroups == rs->capgroups) {
		rs->capgroups = rs->capgroups ? rs->capgroups * 2 : 8;
		rs->groups = xreallocarray(rs->groups, rs->capgroups, sizeof *rs->groups);
	}
	rs->groups[rs->ngroups] = (struct rule_group){ xstrdup(name), xstrdup(""), xstrdup(file), 1 };
	return (uint32_t)rs->ngroups++;
}

static int valid_name(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s; s++)
		if (!(*s == '_' || *s == '$' || *s == '-' || *s == '.' || *s == '[' || *s == ']' ||
		      (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z') || (unsigned char)*s >= 0x80))
			return 0;
	return 1;
}

/* TYPE: a name, NAME+, /REGEX/ or /REGEX/+. */
static int parse_type(struct lex *lx, struct rule *r)
{
	const char *start;

	skip_blank(lx);
	start = lx->p;
	if (lx->p < lx->end && *lx->p == '/') {
		struct sbuf sb;
		sbuf_init(&sb);
		for (lx->p++; lx->p < lx->end && *lx->p != '/'; lx->p++) {
			if (*lx->p == '\\' && lx->p + 1 < lx->end && lx->p[1] == '/')
				lx->p++;
			sbuf_addc(&sb, *lx->p);
		}
		if (lx->p == lx->end) {
			sbuf_free(&sb);
			return lex_error(lx, start, "%s", "unclosed /regex/");
		}
		lx->p++;
		r->type = sbuf_detach(&sb);
		r->type_regex = 1;
		int code;
		PCRE2_SIZE off;
		pcre2_code *re = pcre2_compile((PCRE2_SPTR)r->type, PCRE2_ZERO_TERMINATED, PCRE2_UTF,
					       &code, &off, NULL);
		if (re == NULL) {
			PCRE2_UCHAR msg[256];
			pcre2_get_error_message(code, msg, sizeof msg);
			return lex_error(lx, start + 1 + off, "bad regex: %s", (const char *)msg);
		}
		pcre2_code_free(re);
		if (lx->p < lx->end && *lx->p == '+') {
			r->subclasses = 1;
			lx->p++;
		}
		if (lx->p < lx->end && *lx->p != ' ' && *lx->p != '\t' && *lx->p != '#')
			return lex_error(lx, lx->p, "%s", "expected a blank after the /regex/");
		return 0;
	}
	r->type = bare(lx, &start);
	size_t n = strlen(r->type);
	if (n > 0 && r->type[n - 1] == '+') {
		r->subclasses = 1;
		r->type[n - 1] = '\0';
	}
	if (*r->type == '\0')
		return lex_error(lx, start, "%s", "expected a class name or /regex/");
	if (!valid_name(r->type))
		return lex_error(lx, start, "'%s' is not a class name (a /regex/ goes between slashes)",
				 r->type);
	return 0;
}

/* FIELD: name, *, [] or this, then .values, .keys or .elements. */
static int parse_field(struct lex *lx, const char *start, char *w, struct rule_field *f)
{
	static const struct { const char *suffix; enum rule_reach reach; } reach[] = {
		{ ".values", RR_VALUES }, { ".keys", RR_KEYS }, { ".elements", RR_ELEMENTS },
	};
	size_t n = strlen(w);

	f->reach = RR_FIELD;
	for (size_t i = 0; i < sizeof reach / sizeof *reach; i++) {
		size_t k = strlen(reach[i].suffix);
		if (n > k && strcmp(w + n - k, reach[i].suffix) == 0) {
			f->reach = reach[i].reach;
			w[n - k] = '\0';
			break;
		}
	}
	f->name = w;
	if (strcmp(w, RULE_THIS) == 0 && f->reach == RR_FIELD)
		return lex_error(lx, start, "%s", "'this' needs .values, .keys or .elements");
	if (strcmp(w, RULE_ANY_FIELD) == 0 || strcmp(w, RULE_ELEMS) == 0 || strcmp(w, RULE_THIS) == 0)
		return 0;
	for (const char *c = w; *c; c++)
		if (!(*c == '_' || *c == '$' || (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') ||
		      (*c >= 'A' && *c <= 'Z') || (unsigned char)*c >= 0x80))
			return lex_error(lx, start + (c - w), "%s",
					 "bad field: a field name, *, [] or this, then .values, .keys or .elements");
	if (*w == '\0')
		return lex_error(lx, start, "%s", "expected a field");
	return 0;
}

/* tag-if-zero and tag-if-nonzero read one field's value: exactly one
 * field, named (no *, [], this or reach through); f was written at start. */
static int check_conditional(struct lex *lx, const struct rule *r, const struct rule_field *f,
			     const char *start)
{
	if (r->verb != RV_TAG_ZERO && r->verb != RV_TAG_NONZERO)
		return 0;
	if (r->nfields > 1)
		return lex_error(lx, start, "'%s' takes one field, then the \"label\"",
				 rule_verb_name(r->verb));
	if (f->reach != RR_FIELD || strcmp(f->name, RULE_ANY_FIELD) == 0 ||
	    strcmp(f->name, RULE_ELEMS) == 0 || strcmp(f->name, RULE_THIS) == 0)
		return lex_error(lx, start, "'%s' reads a field by its name (not *, [], this or "
				 ".values, .keys, .elements)", rule_verb_name(r->verb));
	return 0;
}

/* The words after TYPE: fields, then "weight N" (owns) or "LABEL" (tag). */
static int parse_tail(struct lex *lx, struct rule *r)
{
	while (!at_end(lx)) {
		const char *start = lx->p;
		if (*lx->p == '"') {
			if (!RULE_TAGS(r))
				return lex_error(lx, start, "%s", "only the tag verbs take a \"label\"");
			if ((r->label = quoted(lx)) == NULL)
				return -1;
			if (*r->label == '\0')
				return lex_error(lx, start, "%s", "empty label");
			if (!at_end(lx))
				return lex_error(lx, lx->p, "%s", "nothing may follow the label");
			if ((r->verb == RV_TAG_ZERO || r->verb == RV_TAG_NONZERO) && r->nfields == 0)
				return lex_error(lx, start, "'%s' needs a field before the \"label\"",
						 rule_verb_name(r->verb));
			return 0;
		}
		char *w = bare(lx, &start);
		if (strcmp(w, "weight") == 0) {
			free(w);
			if (r->verb != RV_OWNS)
				return lex_error(lx, start, "%s", "only 'owns' takes a weight");
			w = bare(lx, &start);
			char *e;
			errno = 0;
			unsigned long v = *w >= '0' && *w <= '9' ? strtoul(w, &e, 10) : 0;
			int bad = v < 1 || v > 1000 || errno != 0 || *e != '\0';
			free(w);
			if (bad)
				return lex_error(lx, start, "%s", "the weight is a number from 1 to 1000");
			r->weight = (unsigned)v;
			if (!at_end(lx))
				return lex_error(lx, lx->p, "%s", "nothing may follow the weight");
			return 0;
		}
		r->fields = xreallocarray(r->fields, r->nfields + 1, sizeof *r->fields);
		r->nfields++;
		if (parse_field(lx, start, w, &r->fields[r->nfields - 1]) < 0 ||
		    check_conditional(lx, r, &r->fields[r->nfields - 1], start) < 0)
			return -1;
	}
	if (RULE_TAGS(r) && r->label == NULL)
		return lex_error(lx, lx->p, "'%s' needs a \"label\" at the end", rule_verb_name(r->verb));
	if (r->verb != RV_TAG && r->nfields == 0)
		return lex_error(lx, lx->p, "%s", "expected a field (a name, *, [] or this.values)");
	return 0;
}

/* "group NAME [off] ["description"]" */
static int parse_group(struct ruleset *rs, struct lex *lx, uint32_t *cur)
{
	const char *start;
	char *name = bare(lx, &start);

	if (*name == '\0' || !valid_name(name)) {
		free(name);
		return lex_error(lx, start, "%s", "expected a group name (letters, digits, . _ $ -)");
	}
	int on = 1;
	char *desc = NULL;
	while (!at_end(lx)) {
		const char *at = lx->p;
		if (*lx->p == '"') {
			free(desc);
			if ((desc = quoted(lx)) == NULL) {
				free(name);
				return -1;
			}
			continue;
		}
		char *w = bare(lx, &at);
		int ok = strcmp(w, "off") == 0 || strcmp(w, "on") == 0;
		on = strcmp(w, "off") != 0;
		free(w);
		if (!ok) {
			free(name);
			free(desc);
			return lex_error(lx, at, "%s", "expected 'on', 'off' or a \"description\"");
		}
	}
	*cur = group_index(rs, name, lx->file, 1);
	rs->groups[*cur].enabled = on;
	if (desc != NULL) {
		free(rs->groups[*cur].description);
		rs->groups[*cur].description = desc;
	}
	free(name);
	return 0;
}

static int parse_line(struct ruleset *rs, struct lex *lx, uint32_t *cur)
{
	const char *start;
	char *verb;
	struct rule r = { .weight = 1, .line = lx->lineno };

	if (at_end(lx))
		return 0;
	verb = bare(lx, &start);
	if (strcmp(verb, "group") == 0) {
		free(verb);
		return parse_group(rs, lx, cur);
	}
	if (strcmp(verb, "weak") == 0)
		r.verb = RV_WEAK;
	else if (strcmp(verb, "owns") == 0)
		r.verb = RV_OWNS;
	else if (strcmp(verb, "tag") == 0)
		r.verb = RV_TAG;
	else if (strcmp(verb, "tag-if-zero") == 0)
		r.verb = RV_TAG_ZERO;
	else if (strcmp(verb, "tag-if-nonzero") == 0)
		r.verb = RV_TAG_NONZERO;
	else {
		lex_error(lx, start, "unknown verb '%s' (group, weak, owns, tag, tag-if-zero or "
			  "tag-if-nonzero)", verb);
		free(verb);
		return -1;
	}
	free(verb);
	if (*cur == UINT32_MAX)
		*cur = group_index(rs, "default", lx->file, 1);
	r.group = *cur;
	r.file = xstrdup(lx->file);
	if (parse_type(lx, &r) < 0 || parse_tail(lx, &r) < 0) {
		rule_clear(&r);
		return -1;
	}
	if (rs->n >= RULES_MAX) {
		rule_clear(&r);
		return lex_error(lx, lx->line, "more than %s rules in all", "10000");
	}
	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? rs->cap * 2 : 32;
		rs->rules = xreallocarray(rs->rules, rs->cap, sizeof *rs->rules);
	}
	rs->rules[rs->n++] = r;
	return 0;
}

int rules_parse(struct ruleset *rs, const char *file, const char *text, size_t len,
		struct sbuf *err)
{
	struct lex lx = { .file = file, .err = err };
	size_t n0 = rs->n, g0 = rs->ngroups;
	uint32_t cur = UINT32_MAX;
	const char *end = text + len;

	for (const char *p = text; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		lx.line = lx.p = p;
		lx.end = nl ? nl : end;
		lx.lineno++;
		if (memchr(p, '\0', (size_t)(lx.end - p)) != NULL) {
			lex_error(&lx, p, "%s", "a NUL byte: not a rules file");
			goto fail;
		}
		if (parse_line(rs, &lx, &cur) < 0)
			goto fail;
		p = nl ? nl + 1 : end;
	}
	return 0;
fail:
	while (rs->n > n0)
		rule_clear(&rs->rules[--rs->n]);
	while (rs->ngroups > g0) {
		struct rule_group *g = &rs->groups[--rs->ngroups];
		free(g->name);
		free(g->description);
		free(g->file);
	}
	return -1;
}

/* "FILE: what" in err, the name escaped (it may hold control
 * characters); -1. */
static int file_error(struct sbuf *err, const char *path, const char *what)
{
	char *ep = esc_str(path);

	sbuf_printf(err, "%s: %s", ep, what);
	free(ep);
	return -1;
}

int rules_load_file(struct ruleset *rs, const char *path, struct sbuf *err)
{
	/* not blocking on a FIFO, and only a regular file */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	FILE *f = NULL;
	struct sbuf text;
	char buf[65536];
	size_t n;

	if (fd >= 0 && fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
		close(fd);
		return file_error(err, path, "not a regular file");
	}
	if (fd < 0 || (f = fdopen(fd, "rb")) == NULL) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return file_error(err, path, strerror(e));
	}
	sbuf_init(&text);
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		sbuf_add(&text, buf, n);
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		sbuf_free(&text);
		return file_error(err, path, "read error");
	}
	int rc = rules_parse(rs, path, text.buf ? text.buf : "", text.len, err);
	sbuf_free(&text);
	if (rc == 0) {
		size_t had = rs->files != NULL ? strlen(rs->files) : 0, len = strlen(path);
		rs->files = xrealloc(rs->files, had + 2 + len + 1);
		if (had > 0) {
			memcpy(rs->files + had, ", ", 2);
			had += 2;
		}
		memcpy(rs->files + had, path, len + 1);
	}
	return rc;
}

int rules_load_default(struct ruleset *rs, struct sbuf *err)
{
	return rules_parse(rs, "jdk.rules", rules_jdk_text, strlen(rules_jdk_text), err);
}

int rules_enable(struct ruleset *rs, const char *group, int on)
{
	uint32_t g = group_index(rs, group, "", 0);

	if (g == UINT32_MAX)
		return -1;
	rs->groups[g].enabled = on;
	return 0;
}

const char *rule_verb_name(enum rule_verb v)
{
	static const char *const verbs[] = { "weak", "owns", "tag", "tag-if-zero", "tag-if-nonzero" };

	return verbs[v];
}

void rule_to_string(const struct ruleset *rs, const struct rule *r, struct sbuf *out)
{
	static const char *const reach[] = { "", ".values", ".keys", ".elements" };

	(void)rs;
	sbuf_adds(out, rule_verb_name(r->verb));
	sbuf_adds(out, r->type_regex ? " /" : " ");
	for (const char *c = r->type; *c; c++) { /* a regex's slash is read as \/ (parse_type) */
		if (r->type_regex && *c == '/')
			sbuf_addc(out, '\\');
		sbuf_addc(out, *c);
	}
	sbuf_adds(out, r->type_regex ? "/" : "");
	sbuf_adds(out, r->subclasses ? "+" : "");
	for (size_t i = 0; i < r->nfields; i++)
		sbuf_printf(out, " %s%s", r->fields[i].name, reach[r->fields[i].reach]);
	if (r->verb == RV_OWNS)
		sbuf_printf(out, " weight %u", r->weight);
	if (r->label != NULL) {
		sbuf_adds(out, " \"");
		for (const char *c = r->label; *c; c++) {
			if (*c == '"' || *c == '\\')
				sbuf_addc(out, '\\');
			sbuf_addc(out, *c);
		}
		sbuf_addc(out, '"');
	}
}

uint64_t rules_fingerprint(const struct ruleset *rs)
{
	uint64_t hsh = 0;
	struct sbuf sb;

	if (rs == NULL)
		return 0; /* the built-in default */
	sbuf_init(&sb);
	/* every rule, on or off: the analyses name rules by their index */
	for (size_t i = 0; i < rs->n; i++) {
		sbuf_adds(&sb, rs->groups[rs->rules[i].group].enabled ? "+ " : "- ");
		rule_to_string(rs, &rs->rules[i], &sb);
		sbuf_addc(&sb, '\n');
	}
	if (sb.len > 0) { /* FNV-1a; 1 keeps "some rules" apart from "none" */
		hsh = 0xcbf29ce484222325ULL;
		for (size_t i = 0; i < sb.len; i++)
			hsh = (hsh ^ (uint8_t)sb.buf[i]) * 0x100000001b3ULL;
		hsh |= 1;
	} else {
		hsh = 1; /* no rule at all: not the built-in default */
	}
	sbuf_free(&sb);
	return hsh;
}
