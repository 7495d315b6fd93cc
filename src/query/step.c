/* step.c — parsing and applying selection steps, see step.h. */
#include "query/step.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <ctype.h>
#include <errno.h>
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

static const struct { const char *name; enum step_op op; int takes_arg; } ops[] = {
	{ "all", ST_ALL, 0 }, { "instances", ST_INSTANCES, 1 }, { "retained", ST_RETAINED, 0 },
	{ "referrers", ST_REFERRERS, 0 }, { "referents", ST_REFERENTS, 0 },
	{ "dominated", ST_DOMINATED, 0 }, { "object", ST_OBJECT, 1 },
};
static const char *views[] = { "classes", "biggest", "objects", "info" };

#define NELEM(a) (sizeof (a) / sizeof (a)[0])

static const char *skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* One word, or a /regex/ (a slash inside is written \/). */
static const char *word(const char *p, char **out, int *regex)
{
	const char *q = p;
	struct sbuf sb;

	sbuf_init(&sb);
	*regex = 0;
	if (*p == '/') {
		*regex = 1;
		for (q = p + 1; *q && *q != '/'; q++) {
			if (q[0] == '\\' && q[1] == '/')
				q++;
			sbuf_addc(&sb, *q);
		}
		if (*q != '/') {
			sbuf_free(&sb);
			*out = NULL;
			return NULL;
		}
		q++;
	} else {
		while (*q && *q != ' ' && *q != '\t' && *q != '|')
			sbuf_addc(&sb, *q++);
	}
	*out = sbuf_detach(&sb);
	return q;
}

static int parse_one(const char *expr, const char **pp, struct pipeline *pl, struct sbuf *err)
{
	const char *p = skip_space(*pp), *start = p;
	char *w;
	int rx;

	p = word(p, &w, &rx);
	if (p == NULL || *w == '\0') {
		sbuf_printf(err, "column %d: expected a step", (int)(start - expr) + 1);
		free(w);
		return -1;
	}
	for (size_t i = 0; i < NELEM(ops); i++) {
		if (strcmp(w, ops[i].name) != 0)
			continue;
		struct step s = { .op = ops[i].op };
		free(w);
		const char *a = skip_space(p);
		if (ops[i].takes_arg) {
			p = word(a, &s.arg, &s.regex);
			if (p == NULL || *s.arg == '\0') {
				sbuf_printf(err, "column %d: '%s' needs an argument%s", (int)(a - expr) + 1,
					    ops[i].name, p == NULL ? " (unclosed /regex/)" : "");
				free(s.arg);
				return -1;
			}
			if (s.regex && s.op != ST_INSTANCES) {
				sbuf_printf(err, "column %d: '%s' takes no /regex/", (int)(a - expr) + 1, ops[i].name);
				free(s.arg);
				return -1;
			}
		} else if ((s.op == ST_REFERRERS || s.op == ST_REFERENTS) && strncmp(a, "weak", 4) == 0 &&
			   (a[4] == '\0' || a[4] == ' ' || a[4] == '|')) {
			s.weak = 1;
			p = a + 4;
		}
		pl->steps = xreallocarray(pl->steps, pl->n + 1, sizeof *pl->steps);
		pl->steps[pl->n++] = s;
		*pp = p;
		return 0;
	}
	for (size_t i = 0; i < NELEM(views); i++)
		if (strcmp(w, views[i]) == 0) {
			const char *rest = skip_space(p);
			if (*rest != '\0') {
				sbuf_printf(err, "column %d: the view '%s' must come last",
					    (int)(start - expr) + 1, w);
				free(w);
				return -1;
			}
			pl->view = w;
			*pp = rest;
			return 0;
		}
	sbuf_printf(err, "column %d: unknown step '%s'", (int)(start - expr) + 1, w);
	free(w);
	return -1;
}

int pipeline_parse(const char *expr, struct pipeline *pl, struct sbuf *err)
{
	const char *p = expr;

	memset(pl, 0, sizeof *pl);
	for (;;) {
		if (parse_one(expr, &p, pl, err) < 0) {
			pipeline_free(pl);
			return -1;
		}
		p = skip_space(p);
		if (*p == '\0')
			return 0;
		if (*p != '|' || pl->view != NULL) {
			sbuf_printf(err, "column %d: expected '|'", (int)(p - expr) + 1);
			pipeline_free(pl);
			return -1;
		}
		p++;
	}
}

void pipeline_free(struct pipeline *pl)
{
	for (size_t i = 0; i < pl->n; i++)
		free(pl->steps[i].arg);
	free(pl->steps);
	free(pl->view);
	memset(pl, 0, sizeof *pl);
}

void step_to_string(const struct step *s, struct sbuf *out)
{
	for (size_t i = 0; i < NELEM(ops); i++)
		if (ops[i].op == s->op)
			sbuf_adds(out, ops[i].name);
	if (s->arg != NULL) {
		sbuf_addc(out, ' ');
		if (s->regex) {
			sbuf_addc(out, '/');
			for (const char *c = s->arg; *c; c++) {
				if (*c == '/')
					sbuf_addc(out, '\\');
				sbuf_addc(out, *c);
			}
			sbuf_addc(out, '/');
		} else {
			sbuf_adds(out, s->arg);
		}
	}
	if (s->weak)
		sbuf_adds(out, " weak");
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

uint8_t *class_match(const struct heap *h, const char *pattern, int regex, struct sbuf *err)
{
	uint8_t *m = xcalloc(h->ncls + 1, 1);

	if (!regex) {
		for (uint32_t c = 0; c < h->ncls; c++)
			m[c] = strcmp(class_name(h, c), pattern) == 0;
		return m;
	}
	int code;
	PCRE2_SIZE at;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &code, &at, NULL);
	if (re == NULL) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(code, msg, sizeof msg);
		sbuf_printf(err, "regex /%s/: column %zu: %s", pattern, (size_t)at + 1, (char *)msg);
		free(m);
		return NULL;
	}
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	for (uint32_t c = 0; c < h->ncls; c++) {
		const char *n = class_name(h, c);
		m[c] = pcre2_match(re, (PCRE2_SPTR)n, strlen(n), 0, 0, md, NULL) >= 0;
	}
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	return m;
}

static int parse_id(const char *s, uint64_t *id)
{
	char *end;

	errno = 0;
	*id = strtoull(s, &end, 0); /* 0x... hex, else decimal */
	return errno == 0 && *end == '\0' && end != s ? 0 : -1;
}

/* One step along references, in or out, strong (and weak if asked). */
static void neighbours(const struct heap *h, const struct objset *in, struct objset *out, int incoming,
		       int weak)
{
	for (node_t v = 1; v < h->n; v++) {
		if (!bit_get(in->bits, v))
			continue;
		const node_t *e = incoming ? h->in + h->in_start[v] : h->out + h->out_start[v];
		edge_t ne = incoming ? h->in_start[v + 1] - h->in_start[v] : h->out_start[v + 1] - h->out_start[v];
		for (edge_t j = 0; j < ne; j++)
			bit_set(out->bits, e[j]);
	}
	for (uint64_t i = 0; weak && i < h->nweak; i++) {
		node_t a = h->weak_src[i], b = h->weak_dst[i];
		if (bit_get(in->bits, incoming ? b : a))
			bit_set(out->bits, incoming ? a : b);
	}
}

int step_apply(struct heap *h, const struct step *s, struct objset *set, struct progress *p,
	       struct sbuf *err)
{
	struct objset r;
	uint64_t id;

	objset_empty(h, &r);
	switch (s->op) {
	case ST_ALL:
		objset_free(&r);
		objset_all(h, &r);
		break;
	case ST_INSTANCES: {
		uint8_t *m = class_match(h, s->arg, s->regex, err);
		if (m == NULL)
			goto fail;
		for (node_t v = 1; v < h->n; v++)
			if (bit_get(set->bits, v) && m[h->node_class[v]])
				bit_set(r.bits, v);
		free(m);
		break;
	}
	case ST_RETAINED:
		analysis_retained_set(h, set->bits, r.bits, NULL, p);
		break;
	case ST_REFERRERS:
	case ST_REFERENTS:
		neighbours(h, set, &r, s->op == ST_REFERRERS, s->weak);
		break;
	case ST_DOMINATED:
		for (node_t v = 1; v < h->n; v++)
			if (h->idom[v] != HW_NONE && bit_get(set->bits, h->idom[v]))
				bit_set(r.bits, v);
		break;
	case ST_OBJECT: {
		node_t v = parse_id(s->arg, &id) == 0 ? heap_find_id(h, id) : HW_NONE;
		if (v == HW_NONE) {
			sbuf_printf(err, "no object with id %s in the dump", s->arg);
			goto fail;
		}
		bit_set(r.bits, v);
		break;
	}
	}
	objset_recount(h, &r);
	objset_free(set);
	*set = r;
	return 0;
fail:
	objset_free(&r);
	return -1;
}
