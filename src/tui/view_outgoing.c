/* view_outgoing.c — outgoing references: the step's objects, each
 * expanding to its fields with their values (references lead on) or its
 * array elements, a page at a time each. The only place that renders
 * decoded field values. */
#include <stdlib.h>
#include <string.h>

#include "graph/reader.h"
#include "query/views.h"
#include "tui/view.h"

#define ELEM_PAGE 100     /* array elements (or fields) listed at once */

struct outgoing_state {
	int nulls;          /* z: null fields shown */
};

static struct outgoing_state *ost(const struct tview *v) { return v->state; }


/* A field's value; for a reference, the object (and where its class name
 * is in sb). */
static void value_text(const struct heap *h, const struct hvalue *val, struct sbuf *sb, node_t *target,
		       struct span *name)
{
	*target = HW_NONE;
	name->off = name->len = 0;
	switch (val->type) {
	case T_OBJECT:
		if (val->v.id == 0) {
			sbuf_adds(sb, "null");
			return;
		}
		*target = heap_find_id(h, val->v.id);
		if (*target == HW_NONE)
			sbuf_printf(sb, "0x%llx (not in the dump)", (unsigned long long)val->v.id);
		else
			tv_object_text(h, *target, sb, name);
		return;
	case T_BOOLEAN: sbuf_adds(sb, val->v.u ? "true" : "false"); return;
	case T_CHAR: {
		uint8_t u[4];
		uint32_t c = (uint32_t)val->v.u;
		size_t n = c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
		if (n == 1) u[0] = (uint8_t)c;
		else if (n == 2) { u[0] = (uint8_t)(0xc0 | c >> 6); u[1] = (uint8_t)(0x80 | (c & 0x3f)); }
		else { u[0] = (uint8_t)(0xe0 | c >> 12); u[1] = (uint8_t)(0x80 | (c >> 6 & 0x3f));
		       u[2] = (uint8_t)(0x80 | (c & 0x3f)); }
		sbuf_addc(sb, '\'');
		if (c >= 0xd800 && c < 0xe000)
			sbuf_printf(sb, "\\u%04x", c);
		else
			esc_append(sb, u, n, 0);
		sbuf_addc(sb, '\'');
		return;
	}
	case T_FLOAT: sbuf_printf(sb, "%g", (double)val->v.f); return;
	case T_DOUBLE: sbuf_printf(sb, "%g", val->v.d); return;
	default: sbuf_printf(sb, "%lld", (long long)val->v.i); return;
	}
}

struct field_ctx {
	struct tui *t;
	struct tview *v;
	struct rowvec *out;
	uint64_t from, seen; /* the page's first field shown; the fields shown or not */
};

static void field_row(void *arg, const char *name, const struct hvalue *val)
{
	struct field_ctx *f = arg;
	const struct heap *h = f->t->h;

	if (val->type == T_OBJECT && val->v.id == 0 && !ost(f->v)->nulls)
		return;
	if (f->seen++ < f->from || f->seen > f->from + ELEM_PAGE) /* not on this page */
		return;
	struct row *r = rowvec_add(f->out);
	struct sbuf l;
	struct span nm;
	node_t target;
	sbuf_init(&l);
	tv_add_esc(&l, name);
	/* a reference's type is its target's class, shown with it */
	if (hw_type_name(val->type) != NULL)
		sbuf_printf(&l, " (%s)", hw_type_name(val->type));
	sbuf_adds(&l, " = ");
	value_text(h, val, &l, &target, &nm);
	r->kind = VR_FIELD;
	r->node = target;
	r->open = target != HW_NONE && tv_has_children_out(h, target) ? 0 : -1;
	if (target != HW_NONE) {
		r->val[0] = h->node_shallow[target];
		r->val[1] = h->retained[target];
	} else {
		r->flags = RF_NOCOLS;
	}
	row_set_named(r, l.buf, nm.off, nm.len);
	sbuf_free(&l);
}

/* The row that lists the next page of x's elements or fields (from
 * `next` on, `last` the last's number), in place. */
static void more_row(struct rowvec *out, node_t x, uint64_t next, uint64_t last, int of_fields)
{
	struct row *r = rowvec_add(out);
	char line[128];

	snprintf(line, sizeof line, "... %s %llu to %llu: + lists %d more", of_fields ? "fields" : "elements",
		 (unsigned long long)next, (unsigned long long)last, ELEM_PAGE);
	row_set(r, line, NULL);
	r->flags = RF_NOCOLS;
	r->more = 1;
	r->kind = VR_ELEM_MORE;
	/* a page's own: a rebuild (z) opens again the pages that were, and
	 * no more (one key for all opened each next one in turn) */
	r->key = UINT64_MAX - next;
	r->node = x;
	r->open = 0;
	r->num[0] = next;
	r->num[1] = (uint64_t)of_fields;
}

/* x's fields shown, from the from-th on (counted from 0), a page of
 * them: an object of thousands of references (a .gcdump's array, whose
 * elements are references without places; V8's global object) lists
 * them as an array lists its elements. */
static void fields(struct tui *t, struct tview *v, node_t x, uint64_t from, struct rowvec *out)
{
	struct field_ctx f = { t, v, out, from, 0 };

	heap_fields(t->h, x, field_row, &f);
	if (f.seen > from + ELEM_PAGE)
		more_row(out, x, from + ELEM_PAGE, f.seen - 1, 1);
}

static void elements(struct tui *t, struct tview *v, node_t x, uint64_t from, struct rowvec *out)
{
	struct field_ctx f = { t, v, out, 0, 0 };
	uint8_t et;
	int64_t n = heap_array_length(t->h, x, &et);

	for (uint64_t i = from; n > 0 && i < (uint64_t)n && i < from + ELEM_PAGE; i++) {
		struct hvalue val;
		char name[32];
		if (heap_array_elem(t->h, x, i, &val) < 0)
			break;
		snprintf(name, sizeof name, "[%llu]", (unsigned long long)i);
		field_row(&f, name, &val);
	}
	if (n > 0 && from + ELEM_PAGE < (uint64_t)n)
		more_row(out, x, from + ELEM_PAGE, (uint64_t)n - 1, 0);
}

static int outgoing_build(struct tui *t, struct tview *v)
{
	tv_object_page(t, v, 0, &v->rows, PAGE_OUT);
	tview_columns(v, tv_object_cols, 2);
	snprintf(v->lefthead, sizeof v->lefthead, "%s",
		 ost(v)->nulls ? "object / field = value (nulls shown)" : "object / field = value");
	return 0;
}

/* A "more" row becomes the next page in place: expand gives the rows,
 * and the caller puts them after it; the row itself then says so. */
static int outgoing_expand(struct tui *t, struct tview *v, size_t i, struct rowvec *out)
{
	struct row *r = &v->rows.v[i];

	if (r->kind == VR_MORE) {
		tv_object_page(t, v, r->num[0], out, PAGE_OUT);
		row_set(r, "(next page)", NULL);
		return 0;
	}
	if (r->kind == VR_ELEM_MORE) {
		if (r->num[1])
			fields(t, v, r->node, r->num[0], out);
		else
			elements(t, v, r->node, r->num[0], out);
		row_set(r, r->num[1] ? "(more fields)" : "(more elements)", NULL);
		return 0;
	}
	if (r->node == HW_NONE)
		return 0;
	uint8_t k = t->h->node_kind[r->node];
	if (k == NK_OBJARRAY || k == NK_PRIMARRAY)
		elements(t, v, r->node, 0, out);
	else
		fields(t, v, r->node, 0, out);
	return 0;
}

static int outgoing_use(struct tui *t, struct tview *v, int reached, struct use *u)
{
	return tv_use_nodes(t, v, reached, u, "Referenced");
}

static int outgoing_nulls(struct tui *t, struct tview *v, enum request r)
{
	(void)r;
	ost(v)->nulls = !ost(v)->nulls;
	tview_rebuild(t, v);
	tui_message(t, 0, ost(v)->nulls ? "null fields shown" : "null fields hidden");
	return 1;
}

static const struct view_key outgoing_keys[] = {
	{ REQ_NULLS, outgoing_nulls },
	{ REQ_NONE, NULL },
};

const struct view_ops outgoing_ops = {
	.name = "Outgoing",
	.short_name = "Out",
	.state_size = sizeof(struct outgoing_state),
	.build = outgoing_build,
	.expand = outgoing_expand,
	.use = outgoing_use,
	.keys = outgoing_keys,
	.row_free = tv_rowdata_free,
	.data_free = tv_page_free,
};

