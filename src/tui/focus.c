/* focus.c — the analyses' focus (the root, the references left out) in
 * the words of the steps that make it: for the commands the browser
 * writes (A, X, ^X and x). Calls nothing of the browser's. */
#include <stdlib.h>
#include <string.h>

#include "graph/reader.h"
#include "query/step.h"
#include "query/views.h"
#include "tui/frame.h"

/* How src refers to dst in a step: its label, or dst's id where the
 * label would not read back (blanks are fine, '|' and controls not). */
void focus_ref_text(const struct heap *h, node_t src, node_t dst, struct sbuf *out)
{
	struct sbuf l;
	char id[32];

	sbuf_init(&l);
	heap_edge_label(h, src, dst, &l);
	int ok = l.len > 0 && l.buf[0] != '<' && l.buf[0] != '.' && l.buf[0] != ' ' && l.buf[l.len - 1] != ' ';
	for (size_t i = 0; ok && i < l.len; i++)
		ok = (unsigned char)l.buf[i] >= ' ' && l.buf[i] != '|' && l.buf[i] != 0x7f;
	if (ok) { /* it names this reference (a super's field of the same name would not) */
		struct sbuf err;
		sbuf_init(&err);
		ok = step_ref_target(h, src, l.buf, &err) == dst;
		sbuf_free(&err);
	}
	if (ok) {
		sbuf_adds(out, l.buf);
	} else {
		node_id_text(h, dst, id, sizeof id);
		sbuf_adds(out, id);
	}
	sbuf_free(&l);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The analyses' focus as steps' words: the root ("" for none) and the
 * references left out ("ID LABEL" each, ascending) */
struct focus_words {
	char *root;
	char **ign;
	size_t n;
};

static void focus_words_free(struct focus_words *f)
{
	free(f->root);
	for (size_t i = 0; i < f->n; i++)
		free(f->ign[i]);
	free(f->ign);
	memset(f, 0, sizeof *f);
}

static int focus_same(const struct focus_words *a, const struct focus_words *b)
{
	if (strcmp(a->root, b->root) != 0 || a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->ign[i], b->ign[i]) != 0)
			return 0;
	return 1;
}

/* h's focus as it is */
static void focus_now(const struct heap *h, struct focus_words *f)
{
	char id[32];

	f->root = xstrdup("");
	if (h->aroot != 0) {
		node_id_text(h, h->aroot, id, sizeof id);
		free(f->root);
		f->root = xstrdup(id);
	}
	f->n = h->nignored;
	f->ign = xmalloc((f->n + 1) * sizeof *f->ign);
	for (size_t i = 0; i < h->nignored; i++) {
		struct sbuf e;
		sbuf_init(&e);
		node_id_text(h, h->ignored[i].src, id, sizeof id);
		sbuf_printf(&e, "%s ", id);
		focus_ref_text(h, h->ignored[i].src, h->ignored[i].dst, &e);
		f->ign[i] = sbuf_detach(&e);
	}
	qsort(f->ign, f->n, sizeof *f->ign, cmp_str);
}

/* An id as a step gives it (decimal, @301, 0X1F), as focus_now writes
 * it: 0x and lower-case hex. */
static char *id_words(const char *arg)
{
	uint64_t id;

	return parse_object_id(arg, &id) == 0 ? xasprintf("0x%llx", (unsigned long long)id) : xstrdup(arg);
}

/* f after the focus steps of pl, in order */
static void focus_after(struct focus_words *f, const struct pipeline *pl)
{
	for (size_t i = 0; i < pl->n; i++) {
		const struct step *s = &pl->steps[i];
		if (s->op == ST_ROOT) {
			free(f->root);
			f->root = strcmp(s->arg, "gc") == 0 ? xstrdup("") : id_words(s->arg);
		} else if (s->op == ST_IGNORE || s->op == ST_UNIGNORE) {
			char *id = id_words(s->arg);
			char *w = xasprintf("%s %s", id, s->field != NULL ? s->field : "");
			free(id);
			size_t k = 0;
			while (k < f->n && strcmp(f->ign[k], w) != 0)
				k++;
			if (s->op == ST_IGNORE && k == f->n) {
				f->ign = xreallocarray(f->ign, f->n + 2, sizeof *f->ign);
				f->ign[f->n++] = w;
				w = NULL;
			} else if (s->op == ST_UNIGNORE && k < f->n) {
				free(f->ign[k]);
				memmove(f->ign + k, f->ign + k + 1, (f->n - k - 1) * sizeof *f->ign);
				f->n--;
			}
			free(w);
		}
	}
	qsort(f->ign, f->n, sizeof *f->ign, cmp_str);
}

char *focus_expr(const struct heap *h, const char *expr, int *exact)
{
	struct focus_words now = { 0 }, made = { 0 };
	struct pipeline pl = { 0 };
	struct sbuf err;
	char *out;

	*exact = 1;
	sbuf_init(&err);
	focus_now(h, &now);
	made.root = xstrdup("");
	made.ign = xmalloc(sizeof *made.ign);
	if (pipeline_parse(expr, &pl, &err) == 0)
		focus_after(&made, &pl);
	if (focus_same(&now, &made)) { /* the step makes them itself */
		out = xstrdup(expr);
	} else {
		struct sbuf e;
		sbuf_init(&e);
		if (now.root[0] != '\0')
			sbuf_printf(&e, "root %s | ", now.root);
		for (size_t i = 0; i < now.n; i++)
			sbuf_printf(&e, "ignore %s | ", now.ign[i]);
		sbuf_printf(&e, "all | %s", expr);
		/* from the focus as it is, the step's own focus steps again */
		focus_words_free(&made);
		focus_now(h, &made);
		focus_after(&made, &pl);
		*exact = focus_same(&now, &made);
		out = sbuf_detach(&e);
	}
	pipeline_free(&pl);
	focus_words_free(&now);
	focus_words_free(&made);
	sbuf_free(&err);
	return out;
}

