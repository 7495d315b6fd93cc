/* rules_screen.c — the rules screen (C): the groups of the
 * reference-classifier rules turned on and off, then applied to the
 * open dump and its baseline, with progress; Esc leaves them as they
 * were. */
#include <stdlib.h>
#include <string.h>

#include "engine/open.h"
#include "graph/ownership.h"
#include "graph/rules.h"
#include "tui/frame.h"

struct rules_ui {
	struct ruleset *rs;
	int *was;           /* the groups' flags as applied */
	size_t *nrules;     /* rules per group */
	size_t sel, top;
};

static void rules_draw(struct tui *t, struct rules_ui *u)
{
	int h = t->rows - 3 > 1 ? t->rows - 3 : 1;
	struct sbuf l;

	erase();
	draw_line(0, C_TITLE, " Rules: Space turns a group on or off, Enter or a applies (recomputes), "
			      "q or Esc closes");
	sbuf_init(&l);
	size_t on = 0, changed = 0;
	for (size_t i = 0; i < u->rs->ngroups; i++) {
		on += u->rs->groups[i].enabled != 0;
		changed += (u->rs->groups[i].enabled != 0) != (u->was[i] != 0);
	}
	if (changed == 0)
		sbuf_printf(&l, " %zu of %zu groups on; none changed", on, u->rs->ngroups);
	else
		sbuf_printf(&l, " %zu of %zu groups on; %zu changed, not applied yet (Enter applies)", on,
			    u->rs->ngroups, changed);
	draw_line(1, C_STEP, l.buf);
	if (u->sel < u->top)
		u->top = u->sel;
	if (u->sel >= u->top + (size_t)h)
		u->top = u->sel - (size_t)h + 1;
	if (u->top + (size_t)h > u->rs->ngroups) /* a taller screen: the list fills it again */
		u->top = u->rs->ngroups > (size_t)h ? u->rs->ngroups - (size_t)h : 0;
	for (int y = 0; y < h && u->top + (size_t)y < u->rs->ngroups; y++) {
		size_t i = u->top + (size_t)y;
		const struct rule_group *g = &u->rs->groups[i];
		sbuf_reset(&l);
		sbuf_adds(&l, g->enabled ? " [x] " : " [ ] ");
		esc_append(&l, (const uint8_t *)g->name, strlen(g->name), 0);
		sbuf_printf(&l, "  (%zu rule%s, ", u->nrules[i], u->nrules[i] == 1 ? "" : "s");
		esc_append(&l, (const uint8_t *)(g->file ? g->file : "?"), strlen(g->file ? g->file : "?"), 0);
		sbuf_adds(&l, ")  ");
		if (g->description)
			esc_append(&l, (const uint8_t *)g->description, strlen(g->description), 0);
		draw_line(2 + y, i == u->sel ? C_CURSOR : C_CRUMB, l.buf);
	}
	sbuf_free(&l);
	draw_line(t->rows - 1, t->msg && t->msg_error ? C_ERROR : C_HINT,
		  t->msg ? t->msg : " Space on/off  v whole  Enter apply  q close without applying");
	refresh();
}

static void rules_under(struct tui *t, void *arg)
{
	getmaxyx(stdscr, t->rows, t->cols);
	rules_draw(t, arg);
}

/* v: the group at the cursor whole (its line cuts its description at
 * the screen's edge), with its rules. */
static void rules_whole(struct tui *t, struct rules_ui *u)
{
	const struct rule_group *g = &u->rs->groups[u->sel];
	struct sbuf text, r;

	sbuf_init(&text);
	sbuf_init(&r);
	esc_append(&text, (const uint8_t *)g->name, strlen(g->name), 0);
	sbuf_printf(&text, " (%s%s)\n%zu rule%s, first named in ", g->enabled ? "on" : "off",
		    (g->enabled != 0) != (u->was[u->sel] != 0) ? ", not applied yet" : "", u->nrules[u->sel],
		    u->nrules[u->sel] == 1 ? "" : "s");
	esc_append(&text, (const uint8_t *)(g->file ? g->file : "?"), strlen(g->file ? g->file : "?"), 0);
	if (g->description != NULL && *g->description) {
		sbuf_adds(&text, "\n\n");
		esc_append(&text, (const uint8_t *)g->description, strlen(g->description), 0);
	}
	if (u->nrules[u->sel] > 0)
		sbuf_adds(&text, "\n");
	for (size_t i = 0; i < u->rs->n; i++) {
		if (u->rs->rules[i].group != u->sel)
			continue;
		sbuf_reset(&r);
		rule_to_string(u->rs, &u->rs->rules[i], &r); /* as a rules file writes it: escaped once */
		sbuf_adds(&text, "\n");
		esc_append_again(&text, (const uint8_t *)r.buf, r.len);
		sbuf_printf(&text, "   # line %u", u->rs->rules[i].line); /* as heapwalk rules says it */
	}
	text_box_over(t, "The rule group, whole", text.buf, "any key closes", rules_under, u);
	sbuf_free(&r);
	sbuf_free(&text);
}

/* Apply the groups as flagged to the open dump (and the baseline dump):
 * 0, or -1 if cancelled, with every dump as before. */
static int rules_apply(struct tui *t)
{
	struct ruleset *rs = t->oo.rules;
	int rc;

	tui_work_begin(t, "applying the rules");
	rc = heap_apply_rules(t->main, rs, &t->prog);
	if (rc == 0 && t->old != NULL && heap_apply_rules(t->old, rs, &t->prog) < 0)
		rc = 1; /* the open dump has them, its baseline not */
	tui_work_end(t);
	return rc;
}

/* C: the groups of the rules, turned on and off, then applied; the
 * views of every step are built again (the sets stay). */
void rules_screen(struct tui *t)
{
	struct rules_ui u = { .rs = t->oo.rules };

	if (u.rs == NULL || u.rs->ngroups == 0) {
		tui_message(t, 1, "no rules loaded (heapwalk --rules FILE loads some)");
		return;
	}
	u.was = xmalloc(u.rs->ngroups * sizeof *u.was);
	u.nrules = xcalloc(u.rs->ngroups, sizeof *u.nrules);
	for (size_t i = 0; i < u.rs->ngroups; i++)
		u.was[i] = u.rs->groups[i].enabled;
	for (size_t i = 0; i < u.rs->n; i++)
		if (u.rs->rules[i].group < u.rs->ngroups)
			u.nrules[u.rs->rules[i].group]++;
	free(t->msg);
	t->msg = NULL;
	int apply = 0;
	for (;;) {
		rules_draw(t, &u);
		int c = read_key(stdscr);
		enum request r = key_request(c);
		size_t page = t->rows > 4 ? (size_t)t->rows - 4 : 1;
		free(t->msg);
		t->msg = NULL;
		if (c == KEY_RESIZE)
			getmaxyx(stdscr, t->rows, t->cols);
		else if (r == REQ_UP && u.sel > 0)
			u.sel--;
		else if (r == REQ_DOWN && u.sel + 1 < u.rs->ngroups)
			u.sel++;
		else if (r == REQ_PAGE_UP)
			u.sel = u.sel > page ? u.sel - page : 0;
		else if (r == REQ_PAGE_DOWN)
			u.sel = u.sel + page < u.rs->ngroups ? u.sel + page : u.rs->ngroups - 1;
		else if (r == REQ_TOP)
			u.sel = 0;
		else if (r == REQ_BOTTOM)
			u.sel = u.rs->ngroups - 1;
		else if (r == REQ_MARK)
			rules_enable(u.rs, u.rs->groups[u.sel].name, !u.rs->groups[u.sel].enabled);
		else if (r == REQ_ROW)
			rules_whole(t, &u);
		else if (r == REQ_USE || c == 'a') {
			apply = 1;
			break;
		} else if (c == 27 || r == REQ_QUIT || r == REQ_BACK || r == REQ_RULES)
			break;
		else if (c != ERR)
			tui_message(t, 1, "Space: on or off, v: the group whole, Enter: apply, q: close");
	}
	int changed = 0;
	for (size_t i = 0; i < u.rs->ngroups; i++)
		changed |= (u.rs->groups[i].enabled != 0) != (u.was[i] != 0);
	int rc = apply && changed ? rules_apply(t) : -1;
	if (rc != 0) { /* not applied (or cancelled): the flags as they were */
		for (size_t i = 0; i < u.rs->ngroups; i++)
			u.rs->groups[i].enabled = u.was[i];
	}
	if (rc == 1) /* the baseline's was cancelled: the open dump's back */
		heap_apply_rules(t->main, u.rs, NULL);
	if (rc == 0) {
		views_reset(t, 1);
		struct sbuf st;
		sbuf_init(&st);
		rules_state(t, &st);
		tui_message(t, 0, "applied: %s; every view is computed again", st.buf);
		sbuf_free(&st);
	} else if (apply && changed) {
		tui_message(t, 1, "cancelled: the rules are as they were");
	} else if (apply) {
		tui_message(t, 0, "no group changed: nothing to apply");
	}
	free(u.was);
	free(u.nrules);
	touchwin(stdscr);
}
