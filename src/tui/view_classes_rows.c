/* view_classes_rows.c — the classes view's rows and their numbers, for
 * its other files: a class's row, its columns and exact figure, what the
 * filter takes, the exact sizes of package and loader rows. */
#include <stdlib.h>
#include <string.h>

#include "graph/retained.h"
#include "tui/view_classes.h"

/* The exact figure of a class row: computed in this view, or known to
 * the heap when the row has every instance of the class (from an
 * earlier step, say). */
int class_exact(const struct tview *v, const struct class_row *r, uint64_t *bytes)
{
	const struct classes_data *cd = v->data;
	const struct heap *h = v->st->h;

	if (cd->exact && cd->exact[r->cls] != UINT64_MAX) {
		*bytes = cd->exact[r->cls];
		return 1;
	}
	return r->count == h->cls[r->cls].count && retained_class_known(h, r->cls, bytes, NULL);
}

uint64_t class_ret(const struct tview *v, const struct class_row *r)
{
	uint64_t b;

	return class_exact(v, r, &b) ? b : r->retained_lb;
}

int group_exact_get(const struct classes_data *cd, uint64_t key, uint64_t *bytes)
{
	for (size_t i = 0; i < cd->ngexact; i++)
		if (cd->gexact[i].key == key) {
			*bytes = cd->gexact[i].bytes;
			return 1;
		}
	return 0;
}

void group_exact_set(struct classes_data *cd, uint64_t key, uint64_t bytes)
{
	uint64_t old;

	if (group_exact_get(cd, key, &old))
		return;
	cd->gexact = xreallocarray(cd->gexact, cd->ngexact + 1, sizeof *cd->gexact);
	cd->gexact[cd->ngexact++] = (struct group_exact){ key, bytes };
}

/* The columns: instances, shallow, retained with their percentages of
 * the step (instances, shallow) and of the heap (retained); or, against
 * a baseline, instances, new, gone, shallow, new and gone bytes. */
const struct column classes_cols_plain[] = {
	{ .title = "instances", .type = COL_COUNT, .val = 0 },
	{ .title = "%inst", .type = COL_PCT, .val = 0, .den = -1, .drop = 2 },
	{ .title = "shallow", .type = COL_BYTES, .val = 1 },
	{ .title = "%shal", .type = COL_PCT, .val = 1, .den = -1, .drop = 3 },
	{ .title = "retained", .type = COL_RET, .val = 2 },
	{ .title = "%ret", .type = COL_PCT, .val = 2, .den = -1, .drop = 1 },
	{ .title = "gens", .type = COL_GENS, .val = 7, .drop = 4 }, /* where the dump tells them */
};
const struct column classes_cols_delta[] = {
	{ .title = "instances", .type = COL_COUNT, .val = 0 },
	{ .title = "new", .type = COL_SCOUNT, .val = 3, .sign = '+' },
	{ .title = "gone", .type = COL_SCOUNT, .val = 4, .sign = '-' },
	{ .title = "shallow", .type = COL_BYTES, .val = 1 },
	{ .title = "new bytes", .type = COL_SBYTES, .val = 5, .sign = '+', .drop = 2 },
	{ .title = "gone bytes", .type = COL_SBYTES, .val = 6, .sign = '-', .drop = 1 },
};

void class_vals(struct tview *v, struct row *r, uint64_t count, uint64_t shallow, uint64_t ret, int exact,
		int known, const struct cls_delta *d)
{
	const struct classes_data *cd = v->data;

	r->val[0] = count;
	r->val[1] = shallow;
	r->val[2] = ret;
	r->flags = exact ? RF_EXACT : 0;
	r->unknown = known ? 0 : 1u << 2;
	if (d != NULL) {
		r->val[3] = d->new_count;
		r->val[4] = d->gone_count;
		r->val[5] = d->new_bytes;
		r->val[6] = d->gone_bytes;
		if (!cd->have_gone)
			r->unknown |= 1u << 4 | 1u << 6;
		if (d->amb > 0) { /* the baseline could not tell them all: "?" */
			r->unknown |= 1u << 3 | 1u << 4 | 1u << 5 | 1u << 6;
			r->flags |= RF_UNTOLD;
		}
	}
}

struct row *class_row_make(struct tui *t, struct tview *v, struct rowvec *out, const struct class_row *cr)
{
	struct classes_data *cd = v->data;
	struct row *r = rowvec_add(out);
	struct sbuf l;
	struct span nm;

	sbuf_init(&l);
	tv_class_text(t->h, cr->cls, &l, &nm);
	uint64_t b = cr->retained_lb;
	int exact = class_exact(v, cr, &b);
	class_vals(v, r, cr->count, cr->shallow, b, exact, 1, cd->d ? &cd->d[cr->cls] : NULL);
	r->cls = cr->cls;
	r->kind = VR_CLASS;
	r->key = (uint64_t)cr->cls + 1;
	r->num[0] = cr->count;
	r->val[7] = cr->gens;
	row_set_named(r, l.buf, nm.off, nm.len);
	sbuf_free(&l);
	return r;
}

int class_visible(struct tui *t, struct tview *v, uint32_t c)
{
	struct sbuf l;

	if (v->filter_re == NULL)
		return 1;
	sbuf_init(&l);
	tv_add_esc(&l, class_name(t->h, c));
	int ok = tui_filter_ok(v, l.buf);
	sbuf_free(&l);
	return ok;
}

void add_delta(struct cls_delta *sum, const struct classes_data *cd, uint32_t c)
{
	if (cd->d == NULL)
		return;
	sum->new_count += cd->d[c].new_count;
	sum->new_bytes += cd->d[c].new_bytes;
	sum->gone_count += cd->d[c].gone_count;
	sum->gone_bytes += cd->d[c].gone_bytes;
	sum->amb += cd->d[c].amb;
}
