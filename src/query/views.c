/* views.c — info, classes, biggest objects, objects, paths to GC roots:
 * the data, see views.h; report.c turns it into text, JSON or CSV. */
#include "query/views.h"

#include <stdlib.h>
#include <string.h>

#include "graph/reader.h"
#include "graph/analysis.h"
#include "graph/ownership.h"
#include "graph/reach.h"
#include "graph/rules.h"
#include "graph/retained.h"
#include "query/classcols.h"
#include "query/pattern.h"

/* ---- labels ---- */

void node_label(const struct heap *h, node_t v, struct sbuf *out)
{
	if (v == 0) {
		sbuf_adds(out, "<GC roots>");
		return;
	}
	uint32_t c = h->node_kind[v] == NK_CLASS ? heap_class_of_node(h, v) : HW_NONE;
	if (c != HW_NONE) {
		sbuf_adds(out, "class ");
		sbuf_adds(out, class_name(h, c));
	} else {
		sbuf_adds(out, class_name(h, h->node_class[v]));
	}
	if (h->ntags > 0) { /* a rule's tags follow, bracketed */
		struct sbuf t;
		sbuf_init(&t);
		if (node_tags(h, v, &t)) {
			sbuf_adds(out, " [");
			sbuf_add(out, t.buf, t.len);
			sbuf_addc(out, ']');
		}
		sbuf_free(&t);
	}
}

void node_id_text(const struct heap *h, node_t v, char *buf, size_t n)
{
	snprintf(buf, n, "0x%llx", (unsigned long long)heap_node_id(h, v));
}

void trace_holder(const struct heap *h, node_t x, struct sbuf *out)
{
	sbuf_reset(out);
	uint32_t c = h->node_kind[x] == NK_CLASS ? heap_class_of_node(h, x) : HW_NONE;
	if (c != HW_NONE)
		sbuf_printf(out, "class %s", class_name(h, c));
	else
		sbuf_adds(out, class_name(h, h->node_class[x]));
}

void trace_field(const struct heap *h, node_t src, node_t dst, struct sbuf *out)
{
	size_t k = 0;

	sbuf_reset(out);
	heap_edge_label(h, src, dst, out);
	size_t d = 0;
	while (d < out->len && out->buf[d] >= '0' && out->buf[d] <= '9')
		d++;
	if (d > 0 && d == out->len) { /* a bare number (V8's elements, hidden edges): one slot as another */
		sbuf_reset(out);
		sbuf_adds(out, "[]");
		return;
	}
	for (size_t i = 0; i < out->len; i++) {
		out->buf[k++] = out->buf[i];
		if (out->buf[i] != '[')
			continue;
		size_t j = i + 1; /* "[123]", "[+123]" -> "[]"; "[31mRED" stays */
		if (j < out->len && out->buf[j] == '+')
			j++;
		size_t digits = j;
		while (j < out->len && out->buf[j] >= '0' && out->buf[j] <= '9')
			j++;
		if (j > digits && j < out->len && out->buf[j] == ']')
			i = j - 1;
	}
	out->len = k;
	out->buf[k] = '\0';
}

int node_string(const struct heap *h, node_t v, struct sbuf *out, size_t max)
{
	return heap_string(h, v, out, max);
}

void edge_label(const struct heap *h, node_t src, node_t dst, struct sbuf *out)
{
	heap_edge_label(h, src, dst, out);
}

void weak_hop_why(const struct heap *h, int rule, struct sbuf *out)
{
	switch (rule) { /* a strong reference the analyses set aside */
	case WEAK_IGNORED: sbuf_adds(out, "left out"); return;
	case WEAK_OUTSIDE:
		sbuf_adds(out, h->aroot != 0 ? "from outside the analysis root"
					     : "from what the references left out made garbage");
		return;
	case WEAK_GARBAGE: sbuf_adds(out, "from an unreachable object"); return;
	case WEAK_WEAKLY: sbuf_adds(out, "from an object only weakly reachable"); return;
	default: break;
	}
	sbuf_adds(out, "weak");
	rule_where(h, rule, out);
}

void rule_where(const struct heap *h, int rule, struct sbuf *out)
{
	const struct ruleset *rs = h->rules;

	if (rs != NULL && rule >= 0 && (size_t)rule < rs->n && rs->rules[rule].file != NULL) {
		const struct rule *ru = &rs->rules[rule];
		sbuf_printf(out, ": %s", ru->file);
		if (strchr(ru->file, ':') == NULL && ru->line > 0)
			sbuf_printf(out, ":%u", ru->line);
	} else if (rule == WEAK_BUILTIN) {
		sbuf_adds(out, ": referent");
	}
}

#define LABELS_MAX 8 /* names of one target listed, then "+N more" */

struct labels_of { const struct heap *h; node_t dst; const char *sep, *prefix; struct sbuf *out; uint64_t n; };

static void label_of_field(void *arg, const char *name, const struct hvalue *val)
{
	struct labels_of *l = arg;

	if (val->type == T_OBJECT && val->v.id != 0 && l->n < LABELS_MAX && heap_find_id(l->h, val->v.id) == l->dst)
		sbuf_printf(l->out, "%s%s%s", l->n++ > 0 ? l->sep : "", l->prefix, name);
}

/* How many references src has to dst: strong, weak, or set aside by the
 * analyses (an ignore's, an owns rule's incidental ones). */
static uint64_t refs_between(const struct heap *h, node_t src, node_t dst)
{
	edge_t hi = h->out_start[src + 1];
	uint64_t k = 0;

	for (edge_t e = lower_bound_u32_range(h->out, sizeof *h->out, h->out_start[src], hi, dst);
	     e < hi && h->out[e] == dst; e++)
		k++;
	for (uint64_t i = heap_weak_first(h, src); i < h->nweak && h->weak_src[i] == src; i++)
		k += h->weak_dst[i] == dst;
	for (uint64_t i = 0; i < h->nrx; i++)
		k += h->rx_src[i] == src && h->rx_dst[i] == dst;
	return k;
}

void ref_labels(const struct heap *h, node_t src, node_t dst, const char *sep, struct sbuf *out)
{
	int cls = src < h->n && h->node_kind[src] == NK_CLASS; /* its fields are its statics */
	struct labels_of l = { h, dst, sep, cls ? "static " : "", out, 0 };
	size_t at = out->len;
	uint64_t k = src != 0 && src < h->n && dst < h->n ? refs_between(h, src, dst) : 0;
	struct hvalue v;

	/* one reference: the label every view gives */
	if (k > 1) {
		heap_fields(h, src, label_of_field, &l);
		if (l.n == 0 && !cls)
			for (uint64_t i = 0; l.n < LABELS_MAX && heap_array_elem(h, src, i, &v) == 0; i++)
				if (v.type == T_OBJECT && v.v.id != 0 && heap_find_id(h, v.v.id) == dst)
					sbuf_printf(out, "%s[%llu]", l.n++ > 0 ? sep : "", (unsigned long long)i);
	}
	if (l.n < 2) { /* not told apart by fields or elements */
		out->len = at;
		if (out->buf != NULL)
			out->buf[at] = '\0';
		heap_edge_label(h, src, dst, out);
		l.n = 1;
	}
	if (k > l.n)
		sbuf_printf(out, " +%llu more", (unsigned long long)(k - l.n));
}

struct namefind { uint64_t id; int found; };

static void find_name_field(void *arg, const char *name, const struct hvalue *val)
{
	struct namefind *f = arg;

	if (!f->found && val->type == T_OBJECT && strcmp(name, "name") == 0) {
		f->id = val->v.id;
		f->found = 1;
	}
}

const struct hthread *thread_of_serial(const struct heap *h, uint32_t serial)
{
	/* threads are sorted by serial, their first member */
	size_t lo = lower_bound_u32s(h->threads, h->nthreads, sizeof *h->threads, serial);

	return lo < h->nthreads && h->threads[lo].serial == serial ? &h->threads[lo] : NULL;
}

void thread_label(const struct heap *h, node_t obj, uint32_t serial, struct sbuf *out)
{
	if (obj != HW_NONE && obj != 0) {
		struct namefind f = { 0, 0 };
		heap_fields(h, obj, find_name_field, &f);
		node_t s = f.found ? heap_find_id(h, f.id) : HW_NONE;
		size_t at = out->len;
		sbuf_adds(out, "thread \"");
		if (s != HW_NONE && s != 0 && heap_string(h, s, out, 80) == 0) {
			sbuf_addc(out, '"');
			return;
		}
		out->len = at;
		out->buf[at] = '\0';
	}
	if (serial != 0 || obj == HW_NONE || obj == 0) {
		sbuf_printf(out, "thread %u", serial);
	} else {
		char id[32];
		node_id_text(h, obj, id, sizeof id);
		sbuf_printf(out, "thread @%s", id);
	}
}

/* "Foo.bar(Foo.java:12)", as a Java stack trace line; a frame without
 * a class (a JavaScript function): "bar (app.js:12)", or "bar". */
static void frame_text(const struct heap *h, const struct hframe *f, struct sbuf *out)
{
	if (*heap_str(h, f->class_name) == '\0') {
		sbuf_adds(out, heap_str(h, f->method));
		if (*heap_str(h, f->source) != '\0') {
			sbuf_printf(out, " (%s", heap_str(h, f->source));
			if (f->line > 0)
				sbuf_printf(out, ":%d", f->line);
			sbuf_addc(out, ')');
		}
		return;
	}
	sbuf_printf(out, "%s.%s(", heap_str(h, f->class_name), heap_str(h, f->method));
	if (f->line == -3)
		sbuf_adds(out, "Native Method");
	else if (f->line == -2)
		sbuf_adds(out, "Compiled method");
	else if (*heap_str(h, f->source) == '\0' || f->line == -1)
		sbuf_adds(out, *heap_str(h, f->source) ? heap_str(h, f->source) : "Unknown Source");
	else
		sbuf_adds(out, heap_str(h, f->source));
	if (f->line > 0)
		sbuf_printf(out, ":%d", f->line);
	sbuf_addc(out, ')');
}

void frame_label(const struct heap *h, uint32_t f, struct sbuf *out)
{
	frame_text(h, &h->frames[f], out);
}

uint32_t trace_of_serial(const struct heap *h, uint32_t serial)
{
	/* traces are sorted by serial, their first member */
	size_t lo = lower_bound_u32s(h->traces, h->ntraces, sizeof *h->traces, serial);

	return lo < h->ntraces && h->traces[lo].serial == serial ? (uint32_t)lo : HW_NONE;
}

uint32_t thread_frame_index(const struct heap *h, uint32_t serial, uint32_t frame)
{
	const struct hthread *t = thread_of_serial(h, serial);
	uint32_t k = t != NULL ? trace_of_serial(h, t->trace_serial) : HW_NONE;

	if (k == HW_NONE || frame == HW_NONE || frame >= h->traces[k].nframes)
		return HW_NONE;
	return h->trace_frames[h->traces[k].frame_first + frame];
}

static size_t first_root_rec(const struct heap *h, node_t v)
{
	/* root_rec is sorted by node, its first member */
	return lower_bound_u32s(h->root_rec, h->nroot_rec, sizeof *h->root_rec, v);
}

const char *unreached_why(const struct heap *h, unsigned pseudo)
{
	if (h->aroot != 0)
		return "the analysis root does not reach it";
	if (pseudo & PATH_UNREACHABLE)
		return h->nignored > 0 ? "no GC root holds it without the references left out"
				       : "no GC root holds it (garbage the dump still has)";
	if (pseudo & PATH_WEAK_ONLY)
		return "only weak references lead to it";
	return NULL;
}

void root_label(const struct heap *h, node_t v, struct sbuf *out)
{
	if (h->aroot != 0) { /* the only root the analyses have */
		if (v == h->aroot)
			sbuf_adds(out, "analysis root");
		return;
	}
	for (size_t i = first_root_rec(h, v); i < h->nroot_rec && h->root_rec[i].node == v; i++) {
		const struct root *r = &h->root_rec[i];
		if (i > first_root_rec(h, v))
			sbuf_adds(out, "; ");
		heap_root_kind(h, r->kind, r->native, out);
		heap_root_detail(h, r, out);
		if (!heap_root_has_thread(h, r))
			continue;
		sbuf_adds(out, " (");
		const struct hthread *t = thread_of_serial(h, r->thread_serial);
		thread_label(h, t != NULL ? t->obj : HW_NONE, r->thread_serial, out);
		uint32_t f = thread_frame_index(h, r->thread_serial, r->frame);
		if (f != HW_NONE) {
			sbuf_printf(out, ", frame %u: ", r->frame);
			frame_label(h, f, out);
		} else if (r->frame != HW_NONE) {
			sbuf_printf(out, ", frame %u", r->frame);
		}
		sbuf_addc(out, ')');
	}
}

/* ---- info ---- */

static int cmp_root_count(const void *a, const void *b)
{
	const struct root_count *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->native < y->native ? -1 : x->native > y->native;
}

void view_info(const struct heap *h, const struct objset *set, struct info_view *v)
{
	memset(v, 0, sizeof *v);
	v->set_count = set->count;
	v->set_shallow = set->shallow;
	/* a row per (kind, native kind) present, in the table's order, the
	 * engine's pseudo kinds last */
	v->roots = xcalloc(h->nroot_rec + 1, sizeof *v->roots);
	for (size_t i = 0; i < h->nroot_rec; i++) {
		const struct root *r = &h->root_rec[i];
		int new_node = i == 0 || h->root_rec[i - 1].node != r->node;
		/* sorted by node, kind, native */
		int new_kind = new_node || h->root_rec[i - 1].kind != r->kind || h->root_rec[i - 1].native != r->native;
		if (new_node && r->kind < RK_WEAK_ONLY)
			v->gc_root_objects++;
		size_t k = 0;
		while (k < v->nroots && (v->roots[k].kind != r->kind || v->roots[k].native != r->native))
			k++;
		if (k == v->nroots)
			v->roots[v->nroots++] = (struct root_count){ .kind = r->kind, .native = r->native };
		v->roots[k].records += 1 + (uint64_t)r->copies; /* the dump's, those alike too */
		v->roots[k].objects += new_kind;
	}
	hw_qsort(v->roots, v->nroots, sizeof *v->roots, cmp_root_count);
	v->estimated = xmalloc(((size_t)h->ncls + 1) * sizeof *v->estimated);
	for (uint32_t c = 0; c < h->ncls; c++)
		if ((h->cls[c].flags & HC_ESTIMATED) && h->cls[c].count > 0)
			v->estimated[v->nestimated++] = c;
	v->warnings = h->warn.n + h->warn.suppressed;
	if (h->node_gen != NULL) {
		while (v->ngens < HW_MAX_GENS && heap_gen_name(h, v->ngens) != NULL)
			v->ngens++;
		for (unsigned g = 0; set->bits == NULL && g < v->ngens; g++) { /* the whole heap's */
			v->gens[g].objects = h->gen_objects[g];
			v->gens[g].bytes = h->gen_bytes[g];
		}
		for (node_t n = 1; set->bits != NULL && n < h->n; n++)
			if (bit_get(set->bits, n) && h->node_gen[n] < v->ngens) {
				v->gens[h->node_gen[n]].objects++;
				v->gens[h->node_gen[n]].bytes += h->node_shallow[n];
			}
	}
}

int view_info_sizes(const struct heap *h, const struct objset *set, int weak, struct info_view *v,
		    struct progress *p)
{
	v->retained_bytes = analysis_retained_set(h, set->bits, NULL, &v->retained_count, p);
	if (progress_cancelled(p))
		return -1;
	v->deep_bytes = reach_deep(h, set->bits, weak ? REACH_WEAK : 0, NULL, &v->deep_count, p);
	if (progress_cancelled(p))
		return -1;
	v->sizes = 1;
	return 0;
}

void info_view_free(struct info_view *v)
{
	free(v->roots);
	free(v->estimated);
	memset(v, 0, sizeof *v);
}

/* ---- classes ---- */

int view_sort_valid(const char *s)
{
	return classcols_sort(s, 0) >= 0;
}

/* How cmp_class_row orders. */
struct class_order {
	const struct heap *h;
	enum class_sort key;
	int rev;
};

static int cmp_desc(uint64_t x, uint64_t y) { return x < y ? 1 : x > y ? -1 : 0; }

/* Biggest first for the numbers, names ascending for "name" and for
 * ties, then the class index; --reverse turns the whole order round. */
static int cmp_class_row(const void *a, const void *b, void *ctx)
{
	const struct class_row *x = a, *y = b;
	const struct class_order *o = ctx;
	int r = 0;

	if (o->key == CSORT_INSTANCES)
		r = cmp_desc(x->count, y->count);
	else if (o->key == CSORT_SHALLOW)
		r = cmp_desc(x->shallow, y->shallow);
	else if (o->key == CSORT_RETAINED)
		r = cmp_desc(x->retained_lb, y->retained_lb);
	if (r == 0)
		r = strcmp(class_name(o->h, x->cls), class_name(o->h, y->cls));
	if (r == 0)
		r = x->cls < y->cls ? -1 : x->cls > y->cls;
	return o->rev ? -r : r;
}

/* Exact retained sizes of the instances (in the set) of each row whose
 * class matched: every such row one set of retained_sets, which does 64
 * of them per pass over the heap. */
static void exact_sizes(struct heap *h, const struct objset *set, const uint8_t *match,
			struct class_view *v, struct progress *p)
{
	size_t *start = xmalloc((v->n + 1) * sizeof *start), *row = xmalloc((v->n + 1) * sizeof *row);
	uint32_t *cls = xmalloc((v->n + 1) * sizeof *cls);
	uint64_t *bytes = xmalloc((v->n + 1) * sizeof *bytes);
	size_t n = 0;

	for (size_t i = 0; i < v->n; i++)
		if (match[v->rows[i].cls] && v->rows[i].count > 0) { /* members in the set */
			start[n] = n;
			cls[n] = v->rows[i].cls;
			row[n++] = i;
		}
	start[n] = n;
	struct class_sets cs = { .n = n, .start = start, .cls = cls, .within = set->bits };
	retained_sets(h, &cs, bytes, NULL, p);
	_Static_assert(RETAINED_UNKNOWN == RETAINED_NONE, "a cancelled size reads as none");
	for (size_t k = 0; k < n; k++)
		v->rows[row[k]].retained_exact = bytes[k];
	free(start);
	free(row);
	free(cls);
	free(bytes);
}

int view_classes(struct heap *h, const struct objset *set, const struct view_opts *o,
		 struct class_view *v, struct sbuf *err)
{
	const char *sort = o->sort ? o->sort : "shallow";
	uint8_t *keep = NULL, *exact = NULL;

	memset(v, 0, sizeof *v);
	if (!view_sort_valid(sort)) {
		sbuf_printf(err, "--sort: unknown key '%s' (%s)", sort, classcols_sort_list(0));
		return -1;
	}
	if (o->filter && (keep = class_match(h, o->filter, 1, err)) == NULL)
		return -1;
	if (o->exact && (exact = class_match(h, o->exact, 1, err)) == NULL) {
		free(keep);
		return -1;
	}
	struct class_row *rows = xcalloc((size_t)h->ncls + 1, sizeof *rows);
	for (uint32_t c = 0; c < h->ncls; c++) {
		rows[c].cls = c;
		rows[c].retained_exact = RETAINED_NONE;
	}
	if (h->node_gen != NULL) {
		for (uint32_t c = 0; set->bits == NULL && c < h->ncls; c++) /* the whole heap's */
			rows[c].gens = h->cls[c].gens;
		for (node_t n = 1; set->bits != NULL && n < h->n; n++)
			if (bit_get(set->bits, n) && h->node_gen[n] < HW_MAX_GENS)
				rows[h->node_class[n]].gens |= (uint8_t)(1u << h->node_gen[n]);
		v->gens = 1;
	}
	if (set->bits == NULL) { /* the whole heap: the per-class totals */
		for (uint32_t c = 0; c < h->ncls; c++) {
			rows[c].count = h->cls[c].count;
			rows[c].shallow = h->cls[c].shallow_total;
			rows[c].retained_lb = h->cls[c].retained_lb;
		}
	} else {
		uint64_t *lb = xcalloc((size_t)h->ncls + 1, sizeof *lb);
		for (node_t n = 1; n < h->n; n++)
			if (bit_get(set->bits, n)) {
				rows[h->node_class[n]].count++;
				rows[h->node_class[n]].shallow += h->node_shallow[n];
			}
		analysis_class_lb(h, set->bits, lb);
		for (uint32_t c = 0; c < h->ncls; c++)
			rows[c].retained_lb = lb[c];
		free(lb);
	}
	for (uint32_t c = 0; c < h->ncls; c++)
		if ((rows[c].count > 0 || o->all) && (keep == NULL || keep[c]))
			rows[v->n++] = rows[c];
	v->rows = rows;
	v->set_count = set->count;
	v->set_shallow = set->shallow;
	struct class_order order = { h, (enum class_sort)classcols_sort(sort, 0), o->reverse };
	hw_sort(v->rows, v->n, sizeof *v->rows, cmp_class_row, &order);
	v->matched = v->n;
	if (o->top > 0 && o->top < v->n)
		v->n = o->top;
	v->exact = exact != NULL;
	if (exact != NULL) /* only for the rows shown: 64 of them a pass over the heap */
		exact_sizes(h, set, exact, v, o->progress);
	free(keep);
	free(exact);
	return 0;
}

void class_gens_text(const struct heap *h, uint8_t gens, struct sbuf *out)
{
	const char *name;
	int first = 1;

	for (unsigned g = 0; (name = heap_gen_name(h, g)) != NULL; g++)
		if (gens & (1u << g)) {
			if (!first)
				sbuf_addc(out, ' ');
			sbuf_adds(out, name);
			first = 0;
		}
}

void class_view_free(struct class_view *v)
{
	free(v->rows);
	memset(v, 0, sizeof *v);
}

/* ---- biggest objects (dominator tree) and objects ---- */

/* Retained size descending, then node index. */
static int before(const struct heap *h, node_t x, node_t y)
{
	return h->retained[x] != h->retained[y] ? h->retained[x] > h->retained[y] : x < y;
}

static int cmp_retained(const void *a, const void *b, void *h)
{
	node_t x = *(const node_t *)a, y = *(const node_t *)b;

	return x == y ? 0 : before(h, x, y) ? -1 : 1;
}

static void swap_nodes(node_t *a, size_t i, size_t j)
{
	node_t t = a[i];

	a[i] = a[j];
	a[j] = t;
}

/* Move the k biggest of a[0..n) to a[0..k), sorted, without sorting the
 * rest: a heap of the k best so far with the smallest at its root. A
 * top 20 out of millions must not cost a sort of millions. Returns the
 * number in front (k, or n if k is 0 or k >= n). */
static size_t select_top(const struct heap *h, node_t *a, size_t n, size_t k)
{
	if (k == 0 || k >= n)
		k = n;
	else
		for (size_t i = 0; i < n; i++) {
			size_t at = i;
			if (i < k) { /* sift up */
				for (; at > 0 && before(h, a[(at - 1) / 2], a[at]); at = (at - 1) / 2)
					swap_nodes(a, at, (at - 1) / 2);
				continue;
			}
			if (!before(h, a[i], a[0]))
				continue;
			swap_nodes(a, 0, i); /* the smallest goes out to the rest; sift down */
			for (at = 0;;) {
				size_t l = 2 * at + 1, r = l + 1, m = at;
				if (l < k && before(h, a[m], a[l]))
					m = l;
				if (r < k && before(h, a[m], a[r]))
					m = r;
				if (m == at)
					break;
				swap_nodes(a, at, m);
				at = m;
			}
		}
	hw_sort(a, k, sizeof *a, cmp_retained, (void *)h);
	return k;
}

node_t *view_top_members(struct heap *h, const struct objset *set, size_t *n)
{
	node_t *top = xmalloc((size_t)(set->count + 1) * sizeof *top);
	size_t sp = 0, k = 0;

	if (objset_is_all(h, set)) { /* every object: the root's children, one scan */
		for (node_t v = 1; v < h->n; v++)
			if (h->idom[v] == 0)
				top[k++] = v;
		*n = k;
		return top;
	}
	analysis_domchildren(h);
	node_t *stk = xmalloc(((size_t)h->n + 1) * sizeof *stk);
	stk[sp++] = 0;
	while (sp > 0) { /* a member stops the descent: what is below is not top */
		node_t v = stk[--sp];
		for (node_t j = h->dom_start[v]; j < h->dom_start[v + 1]; j++) {
			node_t c = h->dom_child[j];
			if (objset_has(set, c))
				top[k++] = c;
			else
				stk[sp++] = c;
		}
	}
	free(stk);
	*n = k;
	return top;
}

static void big_add(struct big_view *v, struct big_row r)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 64;
		v->rows = xreallocarray(v->rows, v->cap, sizeof *v->rows);
	}
	v->rows[v->n++] = r;
}

static struct big_row object_row(const struct heap *h, node_t x, unsigned depth, uint64_t parent)
{
	return (struct big_row){ x, depth, 1, h->node_shallow[x], h->retained[x], h->retained[x], parent };
}

/* One row for a[0..n), objects too small to show one by one. */
static struct big_row folded_row(const struct heap *h, const node_t *a, size_t n, unsigned depth,
				 uint64_t parent)
{
	struct big_row r = { HW_NONE, depth, n, 0, 0, 0, parent };

	for (size_t i = 0; i < n; i++) {
		r.shallow += h->node_shallow[a[i]];
		r.retained += h->retained[a[i]];
		if (h->retained[a[i]] > r.largest)
			r.largest = h->retained[a[i]];
	}
	return r;
}

/* A level being listed: the children of one node, biggest first. */
struct level {
	node_t *ch;
	size_t n, i;
	unsigned depth;
	uint64_t parent, min;
};

static void push_level(struct heap *h, struct level **st, size_t *sp, size_t *cap, node_t v,
		       unsigned depth, double cutoff)
{
	node_t n = h->dom_start[v + 1] - h->dom_start[v];

	if (n == 0)
		return;
	if (*sp == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*st = xreallocarray(*st, *cap, sizeof **st);
	}
	struct level *l = &(*st)[(*sp)++];
	l->ch = xmalloc((size_t)n * sizeof *l->ch);
	memcpy(l->ch, h->dom_child + h->dom_start[v], (size_t)n * sizeof *l->ch);
	hw_sort(l->ch, n, sizeof *l->ch, cmp_retained, h);
	l->n = n;
	l->i = 0;
	l->depth = depth;
	l->parent = h->retained[v];
	l->min = (uint64_t)((double)l->parent * cutoff / 100.0);
}

/* The dominator tree below x, depth first, to o->depth levels; an
 * explicit stack, since --depth may be as deep as a long list. */
static void expand(struct heap *h, node_t x, const struct view_opts *o, struct big_view *v)
{
	struct level *st = NULL;
	size_t sp = 0, cap = 0;

	if (o->depth <= 1)
		return;
	analysis_domchildren(h); /* once, and only when a level is expanded */
	push_level(h, &st, &sp, &cap, x, 1, o->cutoff);
	while (sp > 0) {
		struct level *l = &st[sp - 1];
		/* one object under the cutoff is shown as itself: a row for a row */
		if (l->i < l->n && ((h->retained[l->ch[l->i]] >= l->min && h->retained[l->ch[l->i]] > 0) ||
				    l->i + 1 == l->n)) {
			node_t c = l->ch[l->i++];
			unsigned d = l->depth;
			big_add(v, object_row(h, c, d, l->parent));
			if ((int)d + 1 < o->depth)
				push_level(h, &st, &sp, &cap, c, d + 1, o->cutoff);
			continue;
		}
		if (l->i < l->n)
			big_add(v, folded_row(h, l->ch + l->i, l->n - l->i, l->depth, l->parent));
		free(l->ch);
		sp--;
	}
	free(st);
}

void view_biggest(struct heap *h, const struct objset *set, const struct view_opts *o,
		  struct big_view *v)
{
	size_t ntop;
	node_t *top = view_top_members(h, set, &ntop);
	size_t shown = select_top(h, top, ntop, o->top);

	if (shown + 1 == ntop) /* one left over is a row either way: show it, it is in place */
		shown++;

	memset(v, 0, sizeof *v);
	v->set_count = set->count;
	v->set_shallow = set->shallow;
	v->top_level = ntop;
	v->heap_bytes = h->retained[0];
	for (size_t i = 0; i < shown; i++) {
		big_add(v, object_row(h, top[i], 0, v->heap_bytes));
		expand(h, top[i], o, v);
	}
	if (shown < ntop)
		big_add(v, folded_row(h, top + shown, ntop - shown, 0, v->heap_bytes));
	free(top);
}

void big_view_free(struct big_view *v)
{
	free(v->rows);
	memset(v, 0, sizeof *v);
}

void view_objects(struct heap *h, const struct objset *set, const struct view_opts *o,
		  struct objects_view *v)
{
	memset(v, 0, sizeof *v);
	v->nodes = objset_members(h, set);
	v->n = select_top(h, v->nodes, (size_t)set->count, o->top);
	v->set_count = set->count;
	v->set_shallow = set->shallow;
}

void objects_view_free(struct objects_view *v)
{
	free(v->nodes);
	memset(v, 0, sizeof *v);
}

/* ---- paths to GC roots ---- */

/* Does a path end at v? At a GC root; the pseudo roots heapwalk adds
 * (weakly reachable, unreachable) end none: they are noted in *pseudo
 * (PATH_*) for the view to say why there is no path. */
static int path_end(const struct heap *h, node_t v, unsigned *pseudo)
{
	int end = 0;

	if (h->aroot != 0 && v == h->aroot) /* the analysis root: the only root */
		return 1;
	for (size_t i = first_root_rec(h, v); i < h->nroot_rec && h->root_rec[i].node == v; i++)
		if (h->root_rec[i].kind == RK_WEAK_ONLY)
			*pseudo |= PATH_WEAK_ONLY;
		else if (h->root_rec[i].kind == RK_UNREACHABLE)
			*pseudo |= PATH_UNREACHABLE;
		else
			end = h->aroot == 0; /* under an analysis root, GC roots end no path */
	return end;
}

static int cmp_pair(const void *a, const void *b)
{
	const node_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Weak referents as (dst, src) pairs sorted by dst, to walk them
 * backwards with a binary search per object reached; with them the
 * weakly reachable's strong references set aside (WEAK_WEAKLY): a path
 * that weak references may take runs on through those objects. */
static node_t *weak_by_dst(const struct heap *h, uint64_t *n)
{
	node_t *pairs = xmalloc((size_t)(h->nweak + 1) * 2 * sizeof *pairs);
	uint64_t k = 0;

	for (uint64_t i = 0; i < h->nweak; i++)
		if (weak_as_weak(h, i)) {
			pairs[2 * k] = h->weak_dst[i];
			pairs[2 * k + 1] = h->weak_src[i];
			k++;
		}
	*n = k;
	hw_qsort(pairs, k, 2 * sizeof *pairs, cmp_pair);
	return pairs;
}

static uint64_t weak_first(const node_t *pairs, uint64_t n, node_t v)
{
	return lower_bound_u32s(pairs, n, 2 * sizeof *pairs, v); /* (dst, src) pairs */
}

/* The weak reference from src to dst a path follows: of several, one
 * that stays weak (weak_as_weak: a rule's, a Reference's) before one
 * the analyses set aside; its rule, -1 if there is none. */
static int hop_rule(const struct heap *h, node_t src, node_t dst)
{
	uint64_t i = lower_bound_pair_u32(h->weak_src, h->weak_dst, h->nweak, src, dst);
	int rule = -1, stays = 0;

	for (; i < h->nweak && h->weak_src[i] == src && h->weak_dst[i] == dst; i++) {
		int as_weak = h->weak_rule == NULL || weak_as_weak(h, i);
		if (rule < 0 || (as_weak && !stays)) {
			rule = h->weak_rule != NULL ? h->weak_rule[i] : WEAK_BUILTIN;
			stays = as_weak;
		}
	}
	return rule;
}

void view_paths(const struct heap *h, node_t target, const struct view_opts *o, struct path_view *v)
{
	node_t *parent = xmalloc(((size_t)h->n + 1) * sizeof *parent);
	node_t *queue = xmalloc(((size_t)h->n + 1) * sizeof *queue);
	uint64_t nweak = 0;
	node_t *weak = o->weak ? weak_by_dst(h, &nweak) : NULL;
	size_t qh = 0, qt = 0, max = o->max_paths > 0 ? (size_t)o->max_paths : 5;
	node_t *ends = xmalloc(max * sizeof *ends);

	memset(v, 0, sizeof *v);
	v->target = target;
	v->weak = o->weak;
	v->ends = o->path_ends;
	memset(parent, 0xff, ((size_t)h->n + 1) * sizeof *parent);
	parent[target] = target;
	queue[qt++] = target;
	/* breadth first from the object towards the roots: the first roots
	 * reached end the shortest paths, each root once */
	while (qh < qt && v->npaths < max) {
		node_t x = queue[qh++];
		if (path_end(h, x, &v->pseudo)) {
			ends[v->npaths++] = x;
			continue;
		}
		for (edge_t j = h->in_start[x]; j < h->in_start[x + 1]; j++) {
			node_t u = h->in[j];
			if (u != 0 && parent[u] == HW_NONE) {
				parent[u] = x;
				queue[qt++] = u;
			}
		}
		for (uint64_t i = weak ? weak_first(weak, nweak, x) : nweak; i < nweak && weak[2 * i] == x; i++)
			if (parent[weak[2 * i + 1]] == HW_NONE) {
				parent[weak[2 * i + 1]] = x;
				queue[qt++] = weak[2 * i + 1];
			}
	}
	/* each path from its root down: parent[] leads from the root to target */
	v->start = xmalloc((v->npaths + 1) * sizeof *v->start);
	size_t len = 0;
	for (size_t p = 0; p < v->npaths; p++)
		for (node_t x = ends[p];; x = parent[x]) {
			len++;
			if (x == target)
				break;
		}
	v->nodes = xmalloc((len + 1) * sizeof *v->nodes);
	len = 0;
	for (size_t p = 0; p < v->npaths; p++) {
		v->start[p] = len;
		for (node_t x = ends[p];; x = parent[x]) {
			v->nodes[len++] = x;
			if (x == target)
				break;
		}
	}
	v->start[v->npaths] = len;
	if (v->npaths > 0)
		v->pseudo = 0;
	/* following weak references, which steps took one: where no strong
	 * reference from the object above leads there too */
	v->hop = o->weak ? xmalloc((len + 1) * sizeof *v->hop) : NULL;
	for (size_t p = 0; v->hop != NULL && p < v->npaths; p++)
		for (size_t k = v->start[p]; k < v->start[p + 1]; k++) {
			node_t src = v->nodes[k], dst = k + 1 < v->start[p + 1] ? v->nodes[k + 1] : HW_NONE;
			if (dst == HW_NONE) {
				v->hop[k] = -1;
				continue;
			}
			edge_t hi = h->in_start[dst + 1]; /* a target's sources ascend */
			edge_t j = lower_bound_u32_range(h->in, sizeof *h->in, h->in_start[dst], hi, src);
			v->hop[k] = j < hi && h->in[j] == src ? -1 : hop_rule(h, src, dst);
		}
	free(parent);
	free(queue);
	free(weak);
	free(ends);
}

void path_view_free(struct path_view *v)
{
	free(v->start);
	free(v->nodes);
	free(v->hop);
	memset(v, 0, sizeof *v);
}
