/* view_inspect.c — inspections: the table of inspections by category;
 * Enter runs one on the step's set (its argument asked for), and the
 * groups of its result become steps. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "query/inspect.h"
#include "query/step.h"
#include "tui/view.h"

/* The rows: a category, its inspections, and once one has run (Enter)
 * the groups of its result. What has run stays with the step: the
 * results, their arguments, what is open; build lays the rows out from
 * that, so opening and closing never runs anything again. */
struct insp_state {
	struct insp_result res;
	char *arg;          /* the argument it ran with; NULL: none or the default */
	int ran, open;
	size_t shown;       /* groups listed (a page at a time) */
	uint32_t runs;      /* how many times it ran: a group of another run is another row */
};

struct insp_view {
	const struct inspection *all;
	size_t n;
	struct insp_state *s;   /* per inspection */
	const char **cats;      /* the categories, in the table's order */
	uint8_t *cat_closed;
	size_t ncats;
};

static struct insp_view *insp_data(struct tview *v)
{
	struct insp_view *iv = v->data;

	if (iv != NULL)
		return iv;
	iv = v->data = xcalloc(1, sizeof *iv);
	iv->all = inspect_all(&iv->n);
	iv->s = xcalloc(iv->n + 1, sizeof *iv->s);
	iv->cats = xcalloc(iv->n + 1, sizeof *iv->cats);
	iv->cat_closed = xcalloc(iv->n + 1, 1);
	for (size_t i = 0; i < iv->n; i++) {
		size_t c = 0;
		while (c < iv->ncats && strcmp(iv->cats[c], iv->all[i].category) != 0)
			c++;
		if (c == iv->ncats)
			iv->cats[iv->ncats++] = iv->all[i].category;
	}
	return iv;
}

static void insp_data_free(void *data)
{
	struct insp_view *iv = data;

	if (iv == NULL)
		return;
	for (size_t i = 0; i < iv->n; i++) {
		insp_result_free(&iv->s[i].res);
		free(iv->s[i].arg);
	}
	free(iv->s);
	free(iv->cats);
	free(iv->cat_closed);
	free(iv);
}

static const char *const prio_names[] = { "", "low", "medium", "high", "total", NULL };
#define PRIO_TOTAL 4 /* an inspection's row: the total of its groups */

/* The columns: priority, objects, shallow bytes and the inspection's own
 * figure (bytes, or a count: RF_COUNT), titled for the cursor's row. */
static const struct column insp_cols[] = {
	{ .title = "priority", .type = COL_ENUM, .val = 0, .names = prio_names, .drop = 1 },
	{ .title = "objects", .type = COL_COUNT, .val = 1 },
	{ .title = "shallow", .type = COL_BYTES, .val = 2 },
	{ .title = "", .type = COL_FIGURE, .val = 3 },
};

static void insp_vals(struct row *r, uint64_t prio, uint64_t count, uint64_t shallow,
		      const struct inspection *in, uint64_t x)
{
	r->val[0] = prio;
	r->val[1] = count;
	r->val[2] = shallow;
	r->val[3] = x;
	if (in->extra_name == NULL)
		r->unknown |= 1u << 3;
	else if (!in->extra_bytes)
		r->flags |= RF_COUNT;
}

/* The headers say what the inspection under the cursor found and what
 * its last column is. */
static void insp_head(struct tview *v)
{
	const struct insp_view *iv = v->data;
	const char *x = "";

	snprintf(v->lefthead, sizeof v->lefthead, "%s", "inspection / group  (Enter: run one)");
	if (iv != NULL && v->cur < v->rows.n && v->rows.v[v->cur].kind != VR_CAT) {
		size_t i = v->rows.v[v->cur].num[0];
		const struct inspection *in = &iv->all[i];
		const struct insp_state *st = &iv->s[i];
		if (in->extra_name != NULL)
			x = in->extra_name;
		if (st->ran)
			snprintf(v->lefthead, sizeof v->lefthead, "%s: %zu group%s, %llu examined", in->name,
				 st->res.n, st->res.n == 1 ? "" : "s", (unsigned long long)st->res.examined);
		else
			snprintf(v->lefthead, sizeof v->lefthead, "%s: Enter runs it", in->name);
	}
	tview_columns(v, insp_cols, 4);
	v->cols[3].title = x;
}

/* The label of group k: its name, escaped, cut short (a duplicated
 * string's value can be megabytes); a class name in it is the row's
 * name, which a narrow screen shortens, keeping it before the rest. */
static void insp_group_row(struct tview *v, size_t i, size_t k)
{
	const struct insp_view *iv = v->data;
	const struct insp_group *g = &iv->s[i].res.g[k];
	struct row *r = rowvec_add(&v->rows);
	struct sbuf l;
	size_t n = strlen(g->name);

	size_t off = 0, len = 0;
	sbuf_init(&l);
	sbuf_printf(&l, "%zu ", k + 1);
	if (g->cls_len > 0 && (size_t)g->cls_off + g->cls_len <= (n > 300 ? 300 : n)) {
		esc_append(&l, (const uint8_t *)g->name, g->cls_off, 0);
		off = l.len;
		esc_append(&l, (const uint8_t *)g->name + g->cls_off, g->cls_len, 0);
		len = l.len - off;
		esc_append(&l, (const uint8_t *)g->name + g->cls_off + g->cls_len,
			   (n > 300 ? 300 : n) - g->cls_off - g->cls_len, 0);
	} else {
		esc_append(&l, (const uint8_t *)g->name, n > 300 ? 300 : n, 0);
	}
	if (n > 300)
		sbuf_adds(&l, "...");
	insp_vals(r, g->priority <= IP_HIGH ? (uint64_t)g->priority : 0, g->count, g->shallow, &iv->all[i],
		  g->extra);
	r->kind = VR_IGROUP;
	r->key = (uint64_t)iv->s[i].runs << 32 | (k + 1);
	r->depth = 2;
	r->num[0] = i;
	r->num[1] = k;
	row_set_named(r, l.buf, off, len);
	sbuf_free(&l);
}

/* Inspection i's row and, when open, its groups. */
static void insp_rows(struct tview *v, size_t i)
{
	const struct insp_view *iv = v->data;
	const struct inspection *in = &iv->all[i];
	const struct insp_state *st = &iv->s[i];
	struct row *r = rowvec_add(&v->rows);
	struct sbuf l;

	sbuf_init(&l);
	tv_add_esc(&l, in->name);
	if (st->ran) { /* what it found first: the title is cut on a narrow screen */
		const struct insp_total *tot = &st->res.total; /* each object once */
		sbuf_adds(&l, " ");
		if (st->arg != NULL) { /* typed by the user: as typed, control characters aside */
			tui_typed(&l, st->arg);
			sbuf_adds(&l, " ");
		}
		sbuf_printf(&l, "[%zu group%s%s]", st->res.n, st->res.n == 1 ? "" : "s",
			    tot->overlap ? ", overlapping: totals count each object once" : "");
		insp_vals(r, PRIO_TOTAL, tot->count, tot->shallow, in, tot->extra);
	} else {
		r->flags = RF_NOCOLS;
	}
	sbuf_adds(&l, "  ");
	tv_add_esc(&l, in->title);
	r->kind = VR_INSP;
	r->key = i + 1;
	r->depth = 1;
	r->num[0] = i;
	r->open = st->ran && st->open ? 1 : 0;
	row_set(r, l.buf, NULL);
	sbuf_free(&l);
	if (!st->ran || !st->open)
		return;
	if (st->res.note != NULL) { /* what the dump did not tell it: first */
		struct row *e = rowvec_add(&v->rows);
		struct sbuf nl;
		sbuf_init(&nl);
		sbuf_adds(&nl, "not here: ");
		tv_add_esc(&nl, st->res.note);
		row_set(e, nl.buf, NULL);
		sbuf_free(&nl);
		e->flags = RF_NOCOLS;
		e->kind = VR_INFO;
		e->depth = 2;
		e->num[0] = i;
	}
	if (st->res.n == 0) {
		struct row *e = rowvec_add(&v->rows);
		char line[96];
		snprintf(line, sizeof line, "nothing found in %llu objects",
			 (unsigned long long)st->res.examined);
		row_set(e, line, NULL);
		e->flags = RF_NOCOLS;
		e->kind = VR_INFO;
		e->depth = 2;
		e->num[0] = i;
		return;
	}
	size_t k;
	for (k = 0; k < st->res.n && k < st->shown; k++)
		insp_group_row(v, i, k);
	if (k < st->res.n) {
		struct row *m = rowvec_add(&v->rows);
		char line[128];
		snprintf(line, sizeof line, "... %zu more groups: + lists %d more", st->res.n - k, PAGE);
		row_set(m, line, NULL);
		m->flags = RF_NOCOLS;
		m->more = 1;
		m->kind = VR_MORE;
		m->key = UINT64_MAX;
		m->depth = 2;
		m->open = 0;
		m->num[0] = i;
	}
}

/* Does the filter take inspection i (by name and title)? */
static int insp_visible(const struct tui *t, const struct tview *v, const struct inspection *in)
{
	struct sbuf l;

	if (!inspect_applies(in, t->h)) /* JVM only, on another heap */
		return 0;
	if (v->filter_re == NULL)
		return 1;
	sbuf_init(&l);
	sbuf_printf(&l, "%s  %s", in->name, in->title);
	int ok = tui_filter_ok(v, l.buf, NULL);
	sbuf_free(&l);
	return ok;
}

static int insp_build(struct tui *t, struct tview *v)
{
	struct insp_view *iv = insp_data(v);

	for (size_t c = 0; c < iv->ncats; c++) {
		size_t nvis = 0;
		for (size_t i = 0; i < iv->n; i++)
			nvis += strcmp(iv->all[i].category, iv->cats[c]) == 0 && insp_visible(t, v, &iv->all[i]);
		if (nvis == 0)
			continue;
		struct row *r = rowvec_add(&v->rows);
		char line[128];
		snprintf(line, sizeof line, "%s (%zu)", iv->cats[c], nvis);
		row_set(r, line, NULL);
		r->flags = RF_NOCOLS;
		r->kind = VR_CAT;
		r->key = c + 1;
		r->num[0] = c;
		r->open = iv->cat_closed[c] ? 0 : 1;
		if (iv->cat_closed[c])
			continue;
		for (size_t i = 0; i < iv->n; i++)
			if (strcmp(iv->all[i].category, iv->cats[c]) == 0 && insp_visible(t, v, &iv->all[i]))
				insp_rows(v, i);
	}
	insp_head(v);
	return 0;
}

/* Does inspection in take a regex (written /.../ in a step)? */
static int insp_arg_is_regex(const struct inspection *in, const char *arg)
{
	if (strpbrk(arg, " \t|") != NULL || arg[0] == '/' || strcmp(arg, "group") == 0)
		return 1; /* not a word: only the slashes can hold it */
	for (const char *p = in->arg; *p; p++)
		if (strncasecmp(p, "regex", 5) == 0 || strncasecmp(p, "regular expression", 18) == 0)
			return 1;
	return strstr(in->name, "regex") != NULL;
}

/* Run inspection i on the step's set; its argument asked for first.
 * Cancelled, or a bad argument: the view stays as it was. */
static void insp_run_one(struct tui *t, struct tview *v, size_t i)
{
	struct insp_view *iv = insp_data(v);
	const struct inspection *in = &iv->all[i];
	struct insp_result res;
	struct sbuf err;
	char *arg = NULL;

	if (in->arg != NULL) {
		char *label = xasprintf("%s: %s%s: ", in->name, in->arg,
					in->arg_required ? "" : " (Enter: the default)");
		arg = tui_prompt(t, label, NULL, NULL);
		free(label);
		if (arg == NULL)
			return;
		if (*arg == '\0') {
			free(arg);
			arg = NULL;
			if (in->arg_required) {
				tui_message(t, 1, "%s needs an argument: %s", in->name, in->arg);
				return;
			}
		}
	}
	sbuf_init(&err);
	tui_work_begin(t, in->title);
	heap_need(t->h, HP_ALL, &t->prog);
	int rc = inspect_run(t->h, in, arg, &v->st->set, &res, &t->prog, &err);
	int cancelled = tui_work_end(t) < 0;
	if (rc < 0) {
		tui_message(t, 1, "%s", err.buf);
	} else if (cancelled || res.cancelled) {
		insp_result_free(&res);
		tui_message(t, 1, "%s cancelled: %s", in->name,
			    iv->s[i].ran ? "the result before stays" : "not run");
	} else {
		struct insp_state *st = &iv->s[i];
		insp_result_free(&st->res);
		free(st->arg);
		st->res = res;
		st->arg = arg;
		arg = NULL;
		st->ran = st->open = 1;
		st->runs++;
		st->shown = PAGE;
		tview_rebuild(t, v);
		tui_message(t, 0, "%s: %zu group%s (%llu objects examined)", in->name, res.n,
			    res.n == 1 ? "" : "s", (unsigned long long)res.examined);
	}
	free(arg);
	sbuf_free(&err);
}

/* The inspection a row belongs to, or -1 (a category row). */
static long insp_of_row(const struct row *r)
{
	return r->kind == VR_INSP || r->kind == VR_IGROUP || r->kind == VR_MORE || r->kind == VR_INFO
	       ? (long)r->num[0] : -1;
}

/* The keys that open, close and run; the rest is the frame's. */
static int insp_key(struct tui *t, struct tview *v, enum request rq)
{
	struct insp_view *iv = insp_data(v);
	struct row *r = v->cur < v->rows.n ? &v->rows.v[v->cur] : NULL;
	int any = 0;

	if (r == NULL)
		return 0;
	for (size_t i = 0; i < v->rows.n; i++)
		any |= v->rows.v[i].marked;
	long i = insp_of_row(r);
	switch (rq) {
	case REQ_PATHS: /* r: again */
		if (i < 0) {
			tui_message(t, 1, "put the cursor on an inspection");
			return 1;
		}
		insp_run_one(t, v, (size_t)i);
		return 1;
	case REQ_USE:
		if (any || r->kind == VR_IGROUP)
			return 0; /* the frame uses the groups */
		/* fall through */
	case REQ_EXPAND:
		if (r->kind == VR_CAT) {
			iv->cat_closed[r->num[0]] = rq == REQ_USE ? !iv->cat_closed[r->num[0]] : 0;
		} else if (r->kind == VR_INSP && !iv->s[i].ran) {
			insp_run_one(t, v, (size_t)i);
			return 1;
		} else if (r->kind == VR_INSP) {
			iv->s[i].open = rq == REQ_USE ? !iv->s[i].open : 1;
		} else if (r->kind == VR_MORE) {
			iv->s[i].shown += PAGE;
		} else {
			return 1;
		}
		tview_rebuild(t, v);
		return 1;
	case REQ_COLLAPSE:
		if (r->kind == VR_CAT && !iv->cat_closed[r->num[0]]) {
			iv->cat_closed[r->num[0]] = 1;
		} else if (r->kind == VR_INSP && iv->s[i].ran && iv->s[i].open) {
			iv->s[i].open = 0;
		} else { /* to the parent row */
			size_t k = v->cur;
			while (k > 0 && v->rows.v[k - 1].depth >= r->depth)
				k--;
			if (k > 0 && r->depth > 0)
				v->cur = k - 1;
			return 1;
		}
		tview_rebuild(t, v);
		return 1;
	default:
		return 0;
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The marked groups (or the cursor's): their members; groups of one
 * inspection are "inspection NAME [ARG] group K[,K...]" after the
 * step's expression. */
static int insp_use(struct tui *t, struct tview *v, int reached, struct use *u)
{
	struct insp_view *iv = insp_data(v);
	size_t ng = 0, last = 0;
	int any = 0;

	(void)reached;
	for (size_t i = 0; i < v->rows.n; i++)
		any |= v->rows.v[i].marked;
	objset_empty(t->h, &u->set);
	for (size_t i = 0; i < v->rows.n; i++) {
		const struct row *r = &v->rows.v[i];
		if (r->kind != VR_IGROUP || !(any ? r->marked : i == v->cur))
			continue;
		const struct insp_group *g = &iv->s[r->num[0]].res.g[r->num[1]];
		for (uint64_t k = 0; k < g->count; k++)
			bit_set(u->set.bits, g->nodes[k]);
		ng++;
		last = i;
	}
	if (ng == 0) {
		objset_free(&u->set);
		tui_message(t, 1, "%s", any ? "no group is marked: mark groups of a result"
					    : "put the cursor on a group (Enter runs an inspection)");
		return -1;
	}
	objset_recount(t->h, &u->set);
	const struct row *r = &v->rows.v[last];
	const struct inspection *in = &iv->all[r->num[0]];
	const struct insp_state *st = &iv->s[r->num[0]];
	struct step s = { .op = ST_INSPECTION, .insp = (char *)in->name, .arg = st->arg,
			  .regex = st->arg != NULL && insp_arg_is_regex(in, st->arg) };
	int one = 1; /* the groups of one inspection: "group 1,3" names them */
	uint32_t *gs = xmalloc(ng * sizeof *gs);
	size_t k = 0;
	for (size_t i = 0; i < v->rows.n; i++) {
		const struct row *ri = &v->rows.v[i];
		if (ri->kind != VR_IGROUP || !(any ? ri->marked : i == v->cur))
			continue;
		one &= ri->num[0] == r->num[0];
		gs[k++] = (uint32_t)ri->num[1] + 1;
	}
	qsort(gs, ng, sizeof *gs, cmp_u32);
	s.group = gs[0];
	s.more = gs + 1;
	s.nmore = ng - 1;
	struct sbuf ex;
	sbuf_init(&ex);
	step_to_string(&s, &ex);
	u->expr = one ? sbuf_detach(&ex) : NULL; /* of several inspections: no step names it */
	/* "group 7 of 30617 objects" read as one of 30617 groups: the
	 * step's own count follows its title anyway */
	if (ng > 1)
		u->title = xasprintf("%zu inspection groups", ng);
	else
		u->title = xasprintf("%s group %u", in->name, s.group);
	sbuf_free(&ex);
	free(gs);
	return 0;
}

static const struct view_key insp_keys[] = {
	{ REQ_PATHS, insp_key },      /* r: again */
	{ REQ_USE, insp_key },
	{ REQ_EXPAND, insp_key },
	{ REQ_COLLAPSE, insp_key },
	{ REQ_NONE, NULL },
};

/* A group's text whole, as its row has it but not cut at 300 bytes (v) */
static void insp_row_label(const struct tview *v, const struct row *r, struct sbuf *out)
{
	const struct insp_view *iv = v->data;

	if (r->kind != VR_IGROUP || iv == NULL) {
		sbuf_adds(out, r->left);
		return;
	}
	const struct insp_group *g = &iv->s[r->num[0]].res.g[r->num[1]];
	sbuf_printf(out, "%llu ", (unsigned long long)r->num[1] + 1);
	esc_append(out, (const uint8_t *)g->name, strlen(g->name), 0);
}

/* Enter, +, - and r are its own (insp_key): no expand */
const struct view_ops insp_ops = {
	.name = "Inspections",
	.flags = VO_FILTER,
	.short_name = "Inspect",
	.build = insp_build,
	.use = insp_use,
	.keys = insp_keys,
	.data_free = insp_data_free,
	.head = insp_head,
	.row_label = insp_row_label,
};
