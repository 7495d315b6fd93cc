/* tname.c — a type's name said shorter: the name is read once into
 * its namespace segments and its outer generic group, and each form is
 * the name copied with some segments initials or gone and the group's
 * arguments cut. Only dots and brackets are read: no runtime's rules. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "query/tname.h"

#define NONE SIZE_MAX
#define MAX_STEPS 64 /* abbreviation forms at most; more segments go by several */

struct parsed {
	size_t lead;             /* "[[L" of a JVM array's name: kept as is */
	size_t *seg, *segend;    /* namespace segments: start, and their dot */
	size_t nseg, nouter;     /* segments; those of the outer type (first) */
	size_t open, close;      /* the outer type's generic group, NONE if none */
	size_t *comma, ncomma;   /* its arguments' separators */
	int brackets;
};

/* What ends a word: a segment of a namespace is a word before a dot. */
static int structural(char c)
{
	return c == '.' || c == '<' || c == '>' || c == '[' || c == ']' || c == ',' || c == ' ' || c == '*' ||
	       c == '&';
}

static void push(size_t **v, size_t *n, size_t x)
{
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	(*v)[(*n)++] = x;
}

/* '<' opens a generic group after a word ("List<"); at a word's start
 * it is a compiler's name ("<Main>d__0", "<>c"), and so is its '>'. */
static int angle_opens(const char *s, size_t i, size_t lead)
{
	if (i == lead)
		return 0;
	char b = s[i - 1];
	return !structural(b) && b != '+' && b != '/' && b != '$';
}

static void parse(const char *s, size_t len, struct parsed *p)
{
	char *stack = xmalloc(len + 1); /* the open groups' brackets */
	size_t depth = 0, word = 0;
	int angle_name = 0;

	memset(p, 0, sizeof *p);
	p->open = p->close = NONE;
	while (p->lead < len && s[p->lead] == '[')
		p->lead++;
	if (p->lead > 0 && p->lead < len && s[p->lead] == 'L')
		p->lead++;
	word = p->lead;
	for (size_t i = p->lead; i < len; i++) {
		char c = s[i];
		if (c == '<' && (angle_name || !angle_opens(s, i, p->lead))) {
			angle_name = 1;
			continue;
		}
		if (c == '>' && angle_name) {
			angle_name = 0;
			continue;
		}
		if (!structural(c))
			continue;
		if (c == '.' && i > word && i + 1 < len && !structural(s[i + 1])) {
			size_t n = p->nseg;
			push(&p->seg, &p->nseg, word);
			push(&p->segend, &n, i);
		}
		if (c == '[' && i + 1 < len && (s[i + 1] == ']' || s[i + 1] == ',')) { /* an array: [] [,] */
			size_t j = i + 1;
			while (j < len && s[j] == ',')
				j++;
			if (j < len && s[j] == ']')
				i = j;
			p->brackets = 1;
		} else if (c == '<' || c == '[') {
			if (depth == 0 && p->open == NONE) {
				p->open = i;
				p->nouter = p->nseg;
			}
			stack[depth++] = c;
			p->brackets = 1;
		} else if ((c == '>' || c == ']') && depth > 0 && stack[depth - 1] == (c == '>' ? '<' : '[')) {
			if (--depth == 0 && p->close == NONE && p->open != NONE)
				p->close = i;
		} else if (c == ',' && depth == 1 && p->open != NONE && p->close == NONE) {
			push(&p->comma, &p->ncomma, i);
		}
		word = i + 1;
	}
	if (p->open == NONE || p->close == NONE) /* unclosed: nothing to cut */
		p->ncomma = 0;
	if (p->open == NONE)
		p->nouter = p->nseg;
	if (p->close == NONE)
		p->open = NONE;
	free(stack);
}

/* A segment's first character (whole, in UTF-8) and its dot. */
static void add_initial(struct sbuf *t, const char *seg, size_t n)
{
	size_t k = 1;

	while (k < n && (seg[k] & 0xc0) == 0x80)
		k++;
	sbuf_add(t, seg, n ? k : 0);
	sbuf_addc(t, '.');
}

static const char *ellipsis(void) { return MB_CUR_MAX > 1 ? "\xe2\x80\xa6" : ".."; }

/* One form: the first ninit segments initials, the arguments' (and the
 * outer type's) dropped if asked, the group's arguments past `keep` cut
 * (NONE: all kept). */
static void build(const char *s, size_t len, const struct parsed *p, size_t ninit, int drop_args, int drop_outer,
		  size_t keep, struct sbuf *out, size_t *gopen, size_t *gclose)
{
	size_t start = out->len;
	size_t cut = keep == NONE || p->open == NONE ? NONE : keep == 0 ? p->open + 1 : p->comma[keep - 1];
	size_t g = 0;

	for (size_t i = 0; i < len;) {
		while (g < p->nseg && p->seg[g] < i)
			g++;
		if (i == p->open && gopen != NULL)
			*gopen = out->len - start;
		if (i == p->close && gclose != NULL)
			*gclose = out->len - start;
		if (i == cut) {
			if (keep > 0)
				sbuf_addc(out, ',');
			sbuf_adds(out, ellipsis());
			i = p->close;
			continue;
		}
		if (g < p->nseg && i == p->seg[g]) {
			int drop = g < p->nouter ? drop_outer : drop_args;
			if (!drop && g < ninit)
				add_initial(out, s + i, p->segend[g] - i);
			else if (!drop)
				sbuf_add(out, s + i, p->segend[g] + 1 - i);
			i = p->segend[g] + 1;
			continue;
		}
		sbuf_addc(out, s[i++]);
	}
}

/* Kept when shorter than the form before it (an initial of a
 * one-letter segment saves nothing). */
static void keep_form(struct tname_forms *f, struct sbuf *b)
{
	if (f->n > 0 && b->len >= strlen(f->v[f->n - 1]))
		return;
	f->v = xreallocarray(f->v, f->n + 1, sizeof *f->v);
	f->v[f->n++] = xstrndup(b->buf ? b->buf : "", b->len);
}

void tname_forms(const char *name, size_t len, struct tname_forms *f)
{
	struct parsed p;
	struct sbuf b;

	memset(f, 0, sizeof *f);
	parse(name, len, &p);
	f->brackets = p.brackets;
	sbuf_init(&b);
	size_t step = p.nseg / MAX_STEPS + 1;
	for (size_t k = 0;; k += step) {
		if (k > p.nseg)
			k = p.nseg;
		sbuf_reset(&b);
		build(name, len, &p, k, 0, 0, NONE, &b, NULL, NULL);
		keep_form(f, &b);
		if (k == p.nseg)
			break;
	}
	f->initials = f->n - 1;
	f->gopen = f->gclose = NONE;
	for (int drop_outer = 0; drop_outer < 2; drop_outer++) {
		sbuf_reset(&b);
		build(name, len, &p, p.nseg, 1, drop_outer, NONE, &b, &f->gopen, &f->gclose);
		keep_form(f, &b);
	}
	f->bare = f->n - 1;
	if (p.open == NONE)
		f->gopen = f->gclose = NONE;
	if (p.open != NONE) {
		size_t cstep = p.ncomma / (MAX_STEPS / 2) + 1;
		for (size_t keep = p.ncomma + 1;;) { /* arguments kept */
			keep = keep > cstep ? keep - cstep : 0;
			sbuf_reset(&b);
			build(name, len, &p, p.nseg, 1, 1, keep, &b, NULL, NULL);
			keep_form(f, &b);
			if (keep == 0)
				break;
		}
	}
	sbuf_free(&b);
	free(p.seg);
	free(p.segend);
	free(p.comma);
}

void tname_forms_free(struct tname_forms *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i]);
	free(f->v);
	memset(f, 0, sizeof *f);
}

void tname_cut(const char *form, int brackets, int avail, struct sbuf *out)
{
	const char *ell = ellipsis();
	int ew = text_width(ell), used;

	if (avail <= ew) {
		sbuf_add(out, form, text_fit(form, avail, &used));
		return;
	}
	if (brackets) { /* the end is brackets: the simple name's start says more */
		sbuf_add(out, form, text_fit(form, avail - ew, &used));
		sbuf_adds(out, ell);
		return;
	}
	sbuf_adds(out, ell);
	sbuf_adds(out, form + text_tail(form, avail - ew, &used));
}

int tname_squeeze(const struct tname_forms *f, int avail, struct sbuf *out)
{
	if (f->gopen == NONE || f->bare >= f->n)
		return 0;
	const char *s = f->v[f->bare], *ell = ellipsis();
	if (f->gclose >= strlen(s) || f->gopen >= f->gclose)
		return 0;
	char *head = xstrndup(s, f->gopen + 1), *args = xstrndup(s + f->gopen + 1, f->gclose - f->gopen - 1);
	int room = avail - text_width(head) - text_width(s + f->gclose) - text_width(ell), used, ok = 0;
	size_t k = room >= 3 ? text_fit(args, room, &used) : 0;
	if (k > 0 && k < strlen(args)) {
		sbuf_adds(out, head);
		sbuf_add(out, args, k);
		sbuf_adds(out, ell);
		sbuf_adds(out, s + f->gclose);
		ok = 1;
	}
	free(head);
	free(args);
	return ok;
}

void tname_fit(const char *name, size_t len, int avail, struct sbuf *out)
{
	struct tname_forms f;

	tname_forms(name, len, &f);
	for (size_t i = 0; i < f.n; i++)
		if (text_width(f.v[i]) <= avail || (i == f.bare && tname_squeeze(&f, avail, out))) {
			if (text_width(f.v[i]) <= avail)
				sbuf_adds(out, f.v[i]);
			tname_forms_free(&f);
			return;
		}
	tname_cut(f.v[f.n - 1], f.brackets, avail, out);
	tname_forms_free(&f);
}
