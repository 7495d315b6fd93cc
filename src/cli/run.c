/* run.c — one command on dumps already open (see run.h). */
#include "cli/run.h"

#include <stdlib.h>
#include <string.h>

#include "graph/resident.h"

void run_path_error(struct sbuf *err, const char *path, const char *msg)
{
	char *ep = esc_str(path);
	struct sbuf sb;

	sbuf_init(&sb);
	sbuf_printf(&sb, "%s: %s", ep, msg);
	sbuf_reset(err);
	sbuf_add(err, sb.buf, sb.len);
	sbuf_free(&sb);
	free(ep);
}

/* 1: the steps want a baseline (new, old, gone...); 2: the command
 * shows one when there is (info, report); 0: neither. */
static int wants_baseline(const struct pipeline *pl, const struct cmd_entry *e)
{
	for (size_t i = 0; i < pl->n; i++)
		if (step_on_baseline(pl->steps[i].op) || pl->steps[i].op == ST_GONE)
			return 1;
	return e->baseline == CMD_BL_SHOWN ? 2 : 0;
}

int run_baseline(struct heap *h, struct heap *old, const struct pipeline *pl, const struct cmd_entry *e,
		 struct baseline *bl, struct progress *p, struct sbuf *note, struct sbuf *err)
{
	int want = wants_baseline(pl, e);

	if (old != NULL) {
		if (baseline_compare(h, old, bl, p, err) < 0)
			return -1;
		h->baseline = bl;
	} else if (want == 1 || (want == 2 && baseline_has_mark(h))) {
		struct sbuf why;
		sbuf_init(&why);
		if (baseline_from_mark(h, bl, &why) == 0) {
			h->baseline = bl;
		} else if (want == 2) { /* info, report: the dump all the same (a .NET mark file damaged) */
			sbuf_printf(note, "%snote: %s", note->len ? "\n" : "", why.buf);
		} else {
			run_path_error(err, h->path, why.buf);
			sbuf_free(&why);
			return -1;
		}
		sbuf_free(&why);
	}
	return 0;
}

int run_steps(struct heap *h, struct heap *old, struct baseline *bl, const struct pipeline *fpl,
	      const struct pipeline *pl, const struct cmd_entry *e, struct cmd_opts *o, struct objset *set,
	      struct progress *p, struct sbuf *out, struct sbuf *note, struct sbuf *err)
{
	/* gone: the rest of the pipeline runs on the baseline's side */
	struct heap *cur = h;
	size_t first = 0;
	struct sbuf why;

	if (pl->n > 0 && pl->steps[0].op == ST_GONE) {
		if (old == NULL || !baseline_has_old(bl)) {
			sbuf_adds(err, "-e: 'gone' needs --baseline OLD");
			return -1;
		}
		cur = old;
		first = 1;
	}
	cur->identity = first == 1 ? bl : h->baseline; /* reports say what new, old, gone rest on */
	unsigned parts = cmd_parts(e, o, o->object ? 0 : pl->n + fpl->n);
	if (parts != 0)
		heap_need(cur, parts, p);
	sbuf_init(&why);
	if (fpl->n > 0) { /* the focus is the open dump's; its set is the start */
		heap_need(h, HP_ALL, p);
		objset_all(h, set);
		for (size_t i = 0; i < fpl->n; i++)
			if (step_apply(h, &fpl->steps[i], set, p, &why) < 0) {
				run_path_error(err, h->path, why.buf);
				sbuf_free(&why);
				return -1;
			}
	}
	if (first == 1) {
		objset_free(set);
		objset_empty(cur, set);
		memcpy(set->bits, bl->gone.bits, bits_words(cur->n) * sizeof *set->bits);
		objset_recount(cur, set);
	} else if (fpl->n > 0) {
		/* the set the focus left */
	} else if (parts == 0) {
		objset_whole(cur, set);
	} else {
		objset_all(cur, set);
	}
	int rc = 0;
	for (size_t i = first; i < pl->n && rc == 0; i++)
		if (step_apply(cur, &pl->steps[i], set, p, &why) < 0)
			rc = -1;
	struct cmd_ctx x = { .h = cur, .set = set, .o = o, .old = old, .bl = bl, .p = p,
			     .out = out, .err = &why, .note = note };
	if (rc == 0 && (cmd_check_set(e, set->count, &why) < 0 || e->run(&x) < 0))
		rc = -1;
	if (rc != 0)
		run_path_error(err, cur->path, why.buf);
	sbuf_free(&why);
	return rc;
}
