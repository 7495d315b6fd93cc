/* view_classes_delta.c — the classes view against a baseline: per
 * class the set's new objects and, for the whole dump with a baseline
 * dump, the gone ones (matched by class name); classes only the baseline
 * has get rows of their own. */
#include <stdlib.h>
#include <string.h>

#include "graph/analysis.h"
#include "query/baseline.h"
#include "tui/view_classes.h"

/* Classes matched with the baseline's by class_match_name */
struct qual_names { const struct heap *h; int qual; };

static int cmp_match_name(const void *a, const void *b, void *ctx)
{
	const struct qual_names *q = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(class_match_name(q->h, x, q->qual), class_match_name(q->h, y, q->qual));

	return c ? c : x < y ? -1 : x > y; /* one name, several loaders: by index */
}

/* The class of the open dump named like class oc of old (matched by
 * class_match_name): the first of that name (several loaders: the
 * lowest index), or HW_NONE. byname: h's classes sorted by it. */
static uint32_t namesake(const struct heap *h, const uint32_t *byname, const struct heap *old, uint32_t oc,
			 int qual)
{
	const char *name = class_match_name(old, oc, qual);
	size_t lo = 0, hi = h->ncls;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (strcmp(class_match_name(h, byname[mid], qual), name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < h->ncls && strcmp(class_match_name(h, byname[lo], qual), name) == 0 ? byname[lo] : HW_NONE;
}

/* ctx: the baseline's heap */
static int cmp_only(const void *a, const void *b, void *ctx)
{
	const struct heap *old = ctx;
	const struct gone_only *x = a, *y = b;

	if (x->d.gone_bytes != y->d.gone_bytes)
		return x->d.gone_bytes < y->d.gone_bytes ? 1 : -1;
	return strcmp(class_name(old, x->cls), class_name(old, y->cls));
}

/* New objects per class of the set; for the whole dump with a baseline
 * dump, gone ones too (by class name). Classes whose objects are all gone
 * get rows of their own. */
void classes_delta(struct tui *t, struct tview *v, struct classes_data *cd)
{
	const struct heap *h = t->h;
	const struct baseline *bl = h->baseline;

	cd->d = xcalloc((size_t)h->ncls + 1, sizeof *cd->d);
	for (node_t x = 1; x < h->n; x++)
		if (bit_get(v->st->set.bits, x) && objset_has(&bl->fresh, x) && h->node_class[x] != HW_NONE) {
			cd->d[h->node_class[x]].new_count++;
			cd->d[h->node_class[x]].new_bytes += h->node_shallow[x];
		}
	for (node_t x = 1; x < h->n; x++)
		if (bit_get(v->st->set.bits, x) && baseline_unknown(bl, x) &&
		    h->node_class[x] != HW_NONE)
			cd->d[h->node_class[x]].amb++;
	if (!baseline_has_old(bl) || !objset_is_all(h, &v->st->set))
		return;
	cd->have_gone = 1;
	const struct heap *old = bl->old;
	struct cls_delta *g = xcalloc((size_t)old->ncls + 1, sizeof *g);
	for (node_t x = 1; x < old->n; x++) {
		if (old->node_class[x] == HW_NONE)
			continue;
		if (objset_has(&bl->gone, x)) {
			g[old->node_class[x]].gone_count++;
			g[old->node_class[x]].gone_bytes += old->node_shallow[x];
		} else if (baseline_unknown_old(bl, x)) {
			g[old->node_class[x]].amb++;
		}
	}
	struct qual_names q = { h, classes_qualified(old, h) };
	uint32_t *byname = xmalloc(((size_t)h->ncls + 1) * sizeof *byname);
	for (uint32_t c = 0; c < h->ncls; c++)
		byname[c] = c;
	hw_sort(byname, h->ncls, sizeof *byname, cmp_match_name, &q);
	uint8_t *listed = xcalloc((size_t)h->ncls + 1, 1);
	for (size_t i = 0; i < cd->n; i++)
		listed[cd->rows[i].cls] = 1;
	/* a row each for a class here with none left, a class only there:
	 * at most every class of each, the room doubled as they come */
	size_t rows_cap = cd->n, only_cap = 0;
	for (uint32_t oc = 0; oc < old->ncls; oc++) {
		g[oc].old_count = old->cls[oc].count;
		g[oc].old_bytes = old->cls[oc].shallow_total;
		if (g[oc].gone_count == 0 && g[oc].amb == 0 && g[oc].old_count == 0)
			continue;
		uint32_t c = namesake(h, byname, old, oc, q.qual);
		if (c != HW_NONE) { /* its instances then, beside now's */
			cd->d[c].old_count += g[oc].old_count;
			cd->d[c].old_bytes += g[oc].old_bytes;
		}
		if (g[oc].gone_count == 0 && g[oc].amb == 0)
			continue;
		if (c == HW_NONE) {
			if (cd->nonly == only_cap) {
				only_cap = only_cap ? 2 * only_cap : 16;
				cd->only = xreallocarray(cd->only, only_cap, sizeof *cd->only);
			}
			cd->only[cd->nonly++] = (struct gone_only){ oc, g[oc] };
			continue;
		}
		cd->d[c].gone_count += g[oc].gone_count;
		cd->d[c].gone_bytes += g[oc].gone_bytes;
		cd->d[c].amb += g[oc].amb;
		if (!listed[c]) { /* a class here with no instances left */
			if (cd->n == rows_cap) {
				rows_cap = rows_cap ? 2 * rows_cap : 16;
				cd->rows = xreallocarray(cd->rows, rows_cap, sizeof *cd->rows);
			}
			cd->rows[cd->n++] = (struct class_row){ .cls = c };
			listed[c] = 1;
		}
	}
	hw_sort(cd->only, cd->nonly, sizeof *cd->only, cmp_only, (void *)old);
	free(listed);
	free(byname);
	free(g);
}

/* The baseline's classes whose every object is gone and that the open
 * dump has no class of that name for: after the others, by gone bytes. */
void gone_only_rows(struct tui *t, struct tview *v, struct rowvec *out)
{
	struct classes_data *cd = v->data;
	const struct heap *old = t->h->baseline->old;

	for (size_t i = 0; i < cd->nonly; i++) {
		struct sbuf l;
		struct span nm;
		sbuf_init(&l);
		tv_class_text(old, cd->only[i].cls, &l, &nm);
		if (tui_filter_ok(v, l.buf, class_name(old, cd->only[i].cls))) {
			sbuf_adds(&l, "  (baseline only)");
			struct row *r = rowvec_add(out);
			class_vals(v, r, 0, 0, 0, 0, 0, &cd->only[i].d);
			r->kind = VR_GONECLS;
			r->key = ((uint64_t)cd->only[i].cls << 8) | 0x5;
			tv_rowdata(r)->loader = cd->only[i].cls;
			r->num[0] = cd->only[i].d.gone_count;
			row_set_named(r, l.buf, nm.off, nm.len);
		}
		sbuf_free(&l);
	}
}

int gone_of_class(struct tui *t, const struct heap *of, uint32_t oc, struct use *u)
{
	const struct baseline *bl = t->h->baseline;
	struct heap *old = bl->old;
	uint8_t *m = xcalloc((size_t)old->ncls + 1, 1);
	struct sbuf ex, l;
	int qual = classes_qualified(old, t->h);
	const char *name = class_name(of, oc), *key = class_match_name(of, oc, qual);
	int named = of == old; /* the expression names the baseline's class, where it is evaluated */

	for (uint32_t c = 0; c < old->ncls; c++)
		if ((m[c] = strcmp(class_match_name(old, c, qual), key) == 0) && !named) {
			name = class_name(old, c);
			named = 1;
		}
	objset_empty(old, &u->set);
	for (node_t x = 1; x < old->n; x++)
		if (objset_has(&bl->gone, x) && old->node_class[x] != HW_NONE && m[old->node_class[x]])
			bit_set(u->set.bits, x);
	objset_recount(old, &u->set);
	free(m);
	sbuf_init(&ex);
	sbuf_init(&l);
	sbuf_adds(&ex, "gone | ");
	tv_instances_expr(&ex, name);
	tv_add_esc(&l, name);
	u->title = xasprintf("Gone instances of %s", l.buf);
	u->expr = sbuf_detach(&ex);
	u->h = old;
	sbuf_free(&l);
	return 0;
}

