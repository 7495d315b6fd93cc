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

/* The columns, from the class histogram's schema (query/classcols.c):
 * instances, shallow, retained with their percentages of the step
 * (instances, shallow) and of the heap (retained), and the generations
 * where the dump tells them; or, against a baseline (delta), instances,
 * new, gone, shallow, new and gone bytes. A row's numbers are at the
 * indices of their figures (enum class_fig). */
int classes_columns(int delta, int gens, struct column *out)
{
	static const uint8_t types[] = { [CU_COUNT] = COL_COUNT, [CU_BYTES] = COL_BYTES, [CU_PCT] = COL_PCT,
					 [CU_RET] = COL_RET, [CU_SCOUNT] = COL_SCOUNT, [CU_SBYTES] = COL_SBYTES,
					 [CU_GENS] = COL_GENS };
	const struct class_col *cc[CC_MAX];
	size_t n = classcols_of(delta ? CC_DELTA : CC_PLAIN, cc);
	int k = 0;

	for (size_t i = 0; i < n && k < VIEW_COLS; i++)
		if (gens || cc[i]->fig != CFIG_GENS)
			out[k++] = (struct column){ .title = cc[i]->bhead, .type = types[cc[i]->unit],
						    .val = (uint8_t)cc[i]->fig, .den = cc[i]->unit == CU_PCT ? -1 : 0,
						    .drop = (uint8_t)cc[i]->drop, .sign = cc[i]->sign };
	return k;
}

void class_vals(struct tview *v, struct row *r, uint64_t count, uint64_t shallow, uint64_t ret, int exact,
		int known, const struct cls_delta *d)
{
	const struct classes_data *cd = v->data;

	r->val[CFIG_COUNT] = count;
	r->val[CFIG_SHALLOW] = shallow;
	r->val[CFIG_RETAINED] = ret;
	r->flags = exact ? RF_EXACT : 0;
	r->unknown = known ? 0 : 1u << CFIG_RETAINED;
	if (d != NULL) {
		r->val[CFIG_NEW] = d->new_count;
		r->val[CFIG_GONE] = d->gone_count;
		r->val[CFIG_NEW_BYTES] = d->new_bytes;
		r->val[CFIG_GONE_BYTES] = d->gone_bytes;
		r->val[CFIG_DELTA] = (uint64_t)((int64_t)count - (int64_t)d->old_count);
		if (!cd->have_gone) /* of a subset: nothing to compare its count with */
			r->unknown |= 1u << CFIG_GONE | 1u << CFIG_GONE_BYTES | 1u << CFIG_DELTA;
		if (d->amb > 0) /* the baseline could not tell them all: those told, "?" after */
			r->flags |= RF_UNTOLD;
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
	r->val[CFIG_GENS] = cr->gens;
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
	int ok = tui_filter_ok(v, l.buf, class_name(t->h, c));
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
	sum->old_count += cd->d[c].old_count;
	sum->old_bytes += cd->d[c].old_bytes;
}
