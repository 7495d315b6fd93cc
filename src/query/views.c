/* views.c — info, classes, biggest objects, objects, paths to GC roots. */
#include "query/views.h"

#include <stdlib.h>
#include <string.h>

#include "format/hprof.h"
#include "graph/analysis.h"
#include "query/step.h"

void node_label(const struct heap *h, node_t v, struct sbuf *out)
{
	if (v == 0) {
		sbuf_adds(out, "<GC roots>");
		return;
	}
	if (h->node_kind[v] == NK_CLASS) {
		for (uint32_t c = 0; c < h->ncls; c++)
			if (h->cls[c].node == v) {
				sbuf_printf(out, "class %s", class_name(h, c));
				return;
			}
	}
	sbuf_adds(out, class_name(h, h->node_class[v]));
}

static void id_text(const struct heap *h, node_t v, char *buf, size_t n)
{
	snprintf(buf, n, "0x%llx", (unsigned long long)heap_node_id(h, v));
}

/* ---- info ---- */

int view_info(struct heap *h, const struct objset *set, const struct view_opts *o, struct sbuf *out)
{
	static const struct col cols[] = {
		{ "root_kind", "GC roots by kind", COL_STR }, { "objects", "objects", COL_NUM },
	};
	struct table t;
	struct sbuf est;
	char buf[160];

	table_init(&t, o->fmt, cols, 2);
	table_meta_str(&t, "dump", h->path);
	table_meta_str(&t, "format", h->version);
	table_meta_num(&t, "id_size", h->layout.idsize);
	table_meta_num(&t, "objects", h->n - 1);
	table_meta_num(&t, "heap_bytes", h->total_shallow);
	table_meta_num(&t, "classes", h->ncls);
	table_meta_num(&t, "references", h->nedges);
	table_meta_num(&t, "weak_references", h->nweak);
	table_meta_num(&t, "set_objects", set->count);
	table_meta_num(&t, "set_bytes", set->shallow);
	snprintf(buf, sizeof buf, "%s oops, %s class pointers, %u-byte header, %u-byte alignment",
		 h->layout.compressed_oops ? "compressed" : "uncompressed",
		 h->layout.compressed_class_ptrs ? "compressed" : "uncompressed",
		 h->layout.header, h->layout.align);
	table_meta_str(&t, "layout", buf);
	table_meta_str(&t, "layout_source", h->layout.detected ? "detected from address gaps" : "assumed (ids are not addresses)");
	table_meta_num(&t, "layout_objects_checked", h->layout.checked);
	table_meta_num(&t, "layout_objects_exact", h->layout.exact);
	table_meta_num(&t, "unreachable_objects", h->unreachable_count);
	table_meta_num(&t, "unreachable_bytes", h->unreachable_bytes);
	table_meta_num(&t, "weakly_reachable_objects", h->weakonly_count);
	table_meta_num(&t, "weakly_reachable_bytes", h->weakonly_bytes);
	table_meta_num(&t, "dangling_references", h->dangling_refs);
	table_meta_num(&t, "warnings", h->warn.n + h->warn.suppressed);
	sbuf_init(&est);
	for (uint32_t c = 0; c < h->ncls; c++)
		if ((h->cls[c].flags & HC_ESTIMATED) && h->cls[c].count > 0)
			sbuf_printf(&est, "%s%s", est.len ? " " : "", class_name(h, c));
	table_meta_str(&t, "estimated_size_classes", est.buf);
	sbuf_free(&est);
	/* roots by kind, in kind order */
	unsigned kinds[] = { RK_STICKY_CLASS, RK_THREAD_OBJ, RK_JAVA_FRAME, RK_NATIVE_STACK, RK_JNI_GLOBAL,
			     RK_JNI_LOCAL, RK_THREAD_BLOCK, RK_MONITOR_USED, RK_UNKNOWN, RK_INTERNED_STRING,
			     RK_FINALIZING, RK_DEBUGGER, RK_REFERENCE_CLEANUP, RK_VM_INTERNAL, RK_JNI_MONITOR,
			     RK_UNREACHABLE_ANDROID, RK_WEAK_ONLY, RK_UNREACHABLE };
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		uint64_t cnt = 0;
		for (size_t i = 0; i < h->nroot_rec; i++)
			cnt += h->root_rec[i].kind == kinds[k];
		if (cnt)
			table_row(&t, CS(root_kind_name(kinds[k])), CN(cnt));
	}
	table_end(&t, out);
	return 0;
}

/* ---- classes ---- */

struct crow { uint32_t c; uint64_t count, shallow, lb, exact; int has_exact; };

static const char *sort_key;
static int sort_rev;
static const struct heap *name_heap;

static int cmp_u64_desc(uint64_t x, uint64_t y) { return x < y ? 1 : x > y ? -1 : 0; }

/* Biggest first for the numeric columns, names ascending for "name" and
 * for ties; --reverse turns the whole order around. */
static int cmp_crow(const void *a, const void *b)
{
	const struct crow *x = a, *y = b;
	int r = 0;

	if (strcmp(sort_key, "instances") == 0)
		r = cmp_u64_desc(x->count, y->count);
	else if (strcmp(sort_key, "shallow") == 0)
		r = cmp_u64_desc(x->shallow, y->shallow);
	else if (strcmp(sort_key, "retained") == 0)
		r = cmp_u64_desc(x->lb, y->lb);
	if (r == 0)
		r = strcmp(class_name(name_heap, x->c), class_name(name_heap, y->c));
	if (r == 0)
		r = x->c < y->c ? -1 : x->c > y->c;
	return sort_rev ? -r : r;
}

int view_classes(struct heap *h, const struct objset *set, const struct view_opts *o,
		 struct sbuf *out, struct sbuf *err)
{
	static const struct col cols[] = {
		{ "class", "class", COL_STR }, { "instances", "instances", COL_NUM },
		{ "shallow", "shallow bytes", COL_NUM }, { "retained_lb", "retained >= (bytes)", COL_NUM },
		{ "retained_exact", "retained exact", COL_NUM }, { "shallow_pct", "shallow %", COL_PCT },
	};
	const char *sort = o->sort ? o->sort : "shallow";
	uint8_t *keep = NULL, *exact = NULL;

	if (strcmp(sort, "name") && strcmp(sort, "instances") && strcmp(sort, "shallow") && strcmp(sort, "retained")) {
		sbuf_printf(err, "--sort: unknown column '%s' (name, instances, shallow, retained)", sort);
		return -1;
	}
	if (o->filter && (keep = class_match(h, o->filter, 1, err)) == NULL)
		return -1;
	if (o->exact && (exact = class_match(h, o->exact, 1, err)) == NULL) {
		free(keep);
		return -1;
	}
	struct crow *rows = xcalloc(h->ncls + 1, sizeof *rows);
	uint64_t *lb = xcalloc(h->ncls + 1, sizeof *lb);
	for (uint32_t c = 0; c < h->ncls; c++) {
		rows[c].c = c;
		if (set->bits == NULL) { /* the whole heap: the per-class totals */
			rows[c].count = h->cls[c].count;
			rows[c].shallow = h->cls[c].shallow_total;
			lb[c] = h->cls[c].retained_lb;
		}
	}
	if (set->bits != NULL) {
		for (node_t v = 1; v < h->n; v++)
			if (bit_get(set->bits, v)) {
				rows[h->node_class[v]].count++;
				rows[h->node_class[v]].shallow += h->node_shallow[v];
			}
		analysis_class_lb(h, set->bits, lb);
	}
	size_t nr = 0;
	for (uint32_t c = 0; c < h->ncls; c++) {
		rows[c].lb = lb[c];
		if ((rows[c].count == 0 && !o->all) || (keep && !keep[c]))
			continue;
		rows[nr++] = rows[c];
	}
	for (size_t i = 0; exact && i < nr; i++) {
		if (!exact[rows[i].c] || rows[i].count == 0)
			continue;
		bits_t *b = xcalloc(bits_words(h->n), sizeof *b);
		for (node_t v = 1; v < h->n; v++)
			if (h->node_class[v] == rows[i].c && (set->bits == NULL || bit_get(set->bits, v)))
				bit_set(b, v);
		rows[i].exact = analysis_retained_set(h, b, NULL, NULL, o->progress);
		rows[i].has_exact = 1;
		free(b);
	}
	sort_key = sort;
	sort_rev = o->reverse;
	name_heap = h;
	hw_qsort(rows, nr, sizeof *rows, cmp_crow);
	struct table t;
	table_init(&t, o->fmt, cols, 6);
	table_meta_num(&t, "objects", set->count);
	table_meta_num(&t, "shallow", set->shallow);
	table_meta_str(&t, "retained_lb_note", "dominator-based lower bound: the retained sizes of the instances no other instance of the class dominates");
	size_t limit = o->top > 0 && (size_t)o->top < nr ? (size_t)o->top : nr;
	for (size_t i = 0; i < limit; i++) {
		table_row(&t, CS(class_name(h, rows[i].c)), CN(rows[i].count), CN(rows[i].shallow),
			  CN(rows[i].lb), CN(rows[i].has_exact ? rows[i].exact : UINT64_MAX),
			  CP(set->shallow ? 100.0 * (double)rows[i].shallow / (double)set->shallow : 0));
	}
	table_end(&t, out);
	free(rows);
	free(lb);
	free(keep);
	free(exact);
	return 0;
}

/* ---- biggest objects (dominator tree) ---- */

static const struct heap *ret_heap;

static int cmp_retained(const void *a, const void *b)
{
	node_t x = *(const node_t *)a, y = *(const node_t *)b;
	uint64_t rx = ret_heap->retained[x], ry = ret_heap->retained[y];

	if (rx != ry)
		return rx > ry ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int before(const struct heap *h, node_t x, node_t y) /* biggest first */
{
	return h->retained[x] != h->retained[y] ? h->retained[x] > h->retained[y] : x < y;
}

/* Move the k biggest of a[0..n) to a[0..k), in order, without sorting
 * the rest: a heap of the k best so far whose root is the smallest. A
 * top-20 out of millions must not cost a sort of millions. */
static size_t select_top(const struct heap *h, node_t *a, size_t n, size_t k)
{
	if (k == 0 || k >= n) {
		ret_heap = h;
		hw_qsort(a, n, sizeof *a, cmp_retained);
		return n;
	}
	for (size_t i = 0; i < n; i++) {
		size_t at;
		if (i < k) { /* sift up into a min-heap of the first k */
			at = i;
			a[at] = a[i];
			while (at > 0 && before(h, a[(at - 1) / 2], a[at])) {
				node_t t = a[at];
				a[at] = a[(at - 1) / 2];
				a[(at - 1) / 2] = t;
				at = (at - 1) / 2;
			}
			continue;
		}
		if (!before(h, a[i], a[0]))
			continue;
		node_t out = a[0]; /* swap out the smallest (kept for totals), sift down */
		a[0] = a[i];
		a[i] = out;
		for (at = 0;;) {
			size_t l = 2 * at + 1, r = l + 1, m = at;
			if (l < k && before(h, a[m], a[l]))
				m = l;
			if (r < k && before(h, a[m], a[r]))
				m = r;
			if (m == at)
				break;
			node_t t = a[at];
			a[at] = a[m];
			a[m] = t;
			at = m;
		}
	}
	ret_heap = h;
	hw_qsort(a, k, sizeof *a, cmp_retained);
	return k;
}

/* Members of the set that no other member dominates. */
static node_t *top_members(struct heap *h, const struct objset *set, size_t *n)
{
	node_t *top = xmalloc((set->count + 1) * sizeof *top);
	size_t sp = 0, k = 0;

	if (set->count == h->n - 1) { /* every object: the root's children */
		for (node_t v = 1; v < h->n; v++)
			if (h->idom[v] == 0)
				top[k++] = v;
		*n = k;
		return top;
	}
	node_t *stk = xmalloc(((size_t)h->n + 1) * sizeof *stk);
	analysis_domchildren(h);
	stk[sp++] = 0;
	while (sp > 0) { /* members stop the descent: what is below is not top */
		node_t v = stk[--sp];
		for (node_t j = h->dom_start[v]; j < h->dom_start[v + 1]; j++) {
			node_t c = h->dom_child[j];
			if (bit_get(set->bits, c))
				top[k++] = c;
			else
				stk[sp++] = c;
		}
	}
	free(stk);
	*n = k;
	return top;
}

struct bigctx {
	struct heap *h;
	const struct view_opts *o;
	struct table *t;
};

static void big_row(struct bigctx *b, node_t v, int depth, uint64_t parent)
{
	struct sbuf name;
	char id[32];

	sbuf_init(&name);
	for (int i = 0; i < depth; i++)
		sbuf_adds(&name, b->o->fmt == FMT_TEXT ? "  " : "");
	node_label(b->h, v, &name);
	if (b->h->node_class[v] != HW_NONE &&
	    strcmp(class_name(b->h, b->h->node_class[v]), "java.lang.String") == 0) {
		struct sbuf s;
		sbuf_init(&s);
		if (hprof_string_value(b->h, v, &s, 60) == 0)
			sbuf_printf(&name, " \"%s\"", s.buf);
		sbuf_free(&s);
	}
	id_text(b->h, v, id, sizeof id);
	table_row(b->t, CN(depth), CS(id), CS(name.buf), CN(b->h->node_shallow[v]), CN(b->h->retained[v]),
		  CP(parent ? 100.0 * (double)b->h->retained[v] / (double)parent : 0));
	sbuf_free(&name);
}

/* Children of v, biggest first; those under the cutoff fold into one row. */
static void big_children(struct bigctx *b, node_t v, int depth)
{
	struct heap *h = b->h;

	if (depth >= b->o->depth)
		return;
	analysis_domchildren(h); /* once, and only when a level is expanded */
	node_t n = h->dom_start[v + 1] - h->dom_start[v];
	if (n == 0)
		return;
	node_t *ch = xmalloc((size_t)n * sizeof *ch);
	memcpy(ch, h->dom_child + h->dom_start[v], (size_t)n * sizeof *ch);
	ret_heap = h;
	hw_qsort(ch, n, sizeof *ch, cmp_retained);
	uint64_t parent = h->retained[v], min = (uint64_t)((double)parent * b->o->cutoff / 100.0);
	node_t i = 0;
	for (; i < n && h->retained[ch[i]] >= min && h->retained[ch[i]] > 0; i++) {
		big_row(b, ch[i], depth, parent);
		big_children(b, ch[i], depth + 1);
	}
	if (i < n) {
		uint64_t total = 0;
		for (node_t j = i; j < n; j++)
			total += h->retained[ch[j]];
		char what[96];
		snprintf(what, sizeof what, "%*s%u more objects, largest %llu", b->o->fmt == FMT_TEXT ? depth * 2 : 0,
			 "", n - i, (unsigned long long)h->retained[ch[i]]);
		table_row(b->t, CN(depth), CS(""), CS(what), CN(0), CN(total),
			  CP(parent ? 100.0 * (double)total / (double)parent : 0));
	}
	free(ch);
}

int view_biggest(struct heap *h, const struct objset *set, const struct view_opts *o, struct sbuf *out)
{
	static const struct col cols[] = {
		{ "depth", "depth", COL_NUM }, { "id", "id", COL_STR }, { "object", "object", COL_STR },
		{ "shallow", "shallow", COL_NUM }, { "retained", "retained", COL_NUM },
		{ "retained_pct", "% of parent", COL_PCT },
	};
	struct table t;
	size_t ntop;
	node_t *top = top_members(h, set, &ntop);
	struct bigctx b = { h, o, &t };

	size_t limit = select_top(h, top, ntop, o->top > 0 ? (size_t)o->top : 0);
	table_init(&t, o->fmt, cols, 6);
	table_meta_num(&t, "objects", set->count);
	table_meta_num(&t, "top_level", ntop);
	table_meta_num(&t, "heap_bytes", h->total_shallow);
	for (size_t i = 0; i < limit; i++) {
		big_row(&b, top[i], 0, h->retained[0]);
		big_children(&b, top[i], 1);
	}
	if (limit < ntop) {
		uint64_t total = 0;
		for (size_t i = limit; i < ntop; i++)
			total += h->retained[top[i]];
		char what[64];
		snprintf(what, sizeof what, "%zu more objects", ntop - limit);
		table_row(&t, CN(0), CS(""), CS(what), CN(0), CN(total),
			  CP(h->retained[0] ? 100.0 * (double)total / (double)h->retained[0] : 0));
	}
	table_end(&t, out);
	free(top);
	return 0;
}

/* ---- objects ---- */

int view_objects(struct heap *h, const struct objset *set, const struct view_opts *o, struct sbuf *out)
{
	static const struct col cols[] = {
		{ "id", "id", COL_STR }, { "class", "class", COL_STR }, { "shallow", "shallow", COL_NUM },
		{ "retained", "retained", COL_NUM }, { "value", "value", COL_STR },
	};
	node_t *m = xmalloc((set->count + 1) * sizeof *m);
	size_t k = 0;
	struct table t;

	for (node_t v = 1; v < h->n; v++)
		if (bit_get(set->bits, v))
			m[k++] = v;
	size_t limit = select_top(h, m, k, o->top > 0 ? (size_t)o->top : 0);
	table_init(&t, o->fmt, cols, 5);
	table_meta_num(&t, "objects", set->count);
	for (size_t i = 0; i < limit; i++) {
		struct sbuf name, val;
		char id[32];
		sbuf_init(&name);
		sbuf_init(&val);
		node_label(h, m[i], &name);
		hprof_string_value(h, m[i], &val, 200);
		id_text(h, m[i], id, sizeof id);
		table_row(&t, CS(id), CS(name.buf), CN(h->node_shallow[m[i]]), CN(h->retained[m[i]]), CS(val.buf));
		sbuf_free(&name);
		sbuf_free(&val);
	}
	table_end(&t, out);
	free(m);
	return 0;
}

/* ---- paths to GC roots ---- */

/* Does a path end at v? At any root; but when weak references are
 * followed, a "weakly reachable" pseudo root is a step on the way. */
static int path_end(const struct heap *h, node_t v, int weak)
{
	size_t lo = 0, hi = h->nroot_rec;

	while (lo < hi) { /* root_rec is sorted by node */
		size_t mid = lo + (hi - lo) / 2;
		if (h->root_rec[mid].node < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < h->nroot_rec && h->root_rec[lo].node == v; lo++)
		if (!weak || h->root_rec[lo].kind != RK_WEAK_ONLY)
			return 1;
	return 0;
}

static void root_text(const struct heap *h, node_t v, struct sbuf *out)
{
	int first = 1;

	for (size_t i = 0; i < h->nroot_rec; i++) {
		const struct root *r = &h->root_rec[i];
		if (r->node != v)
			continue;
		sbuf_adds(out, first ? "" : "; ");
		first = 0;
		sbuf_adds(out, root_kind_name(r->kind));
		if (r->kind != RK_JAVA_FRAME && r->kind != RK_JNI_LOCAL && r->kind != RK_THREAD_OBJ)
			continue;
		sbuf_printf(out, " (thread %u", r->thread_serial);
		for (uint32_t t = 0; t < h->nthreads && r->kind != RK_THREAD_OBJ; t++) {
			if (h->threads[t].serial != r->thread_serial)
				continue;
			for (uint32_t k = 0; k < h->ntraces; k++) {
				const struct htrace *tr = &h->traces[k];
				if (tr->serial != h->threads[t].trace_serial || r->frame >= tr->nframes)
					continue;
				const struct hframe *f = &h->frames[h->trace_frames[tr->frame_first + r->frame]];
				sbuf_printf(out, ", frame %u: %s.%s(%s:%d)", r->frame, heap_str(h, f->class_name),
					    heap_str(h, f->method), heap_str(h, f->source), f->line);
			}
		}
		sbuf_addc(out, ')');
	}
}

static int cmp_pair(const void *a, const void *b)
{
	const node_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Weak referents as (dst, src) pairs sorted by dst, for walking them
 * backwards with a binary search per object reached. */
static node_t *weak_by_dst(const struct heap *h)
{
	node_t *pairs = xmalloc((h->nweak + 1) * 2 * sizeof *pairs);

	for (uint64_t i = 0; i < h->nweak; i++) {
		pairs[2 * i] = h->weak_dst[i];
		pairs[2 * i + 1] = h->weak_src[i];
	}
	hw_qsort(pairs, h->nweak, 2 * sizeof *pairs, cmp_pair);
	return pairs;
}

/* Index of the first pair whose dst is v. */
static uint64_t weak_first(const node_t *pairs, uint64_t n, node_t v)
{
	uint64_t lo = 0, hi = n;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (pairs[2 * mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int view_paths(struct heap *h, node_t target, const struct view_opts *o, struct sbuf *out)
{
	static const struct col cols[] = {
		{ "path", "path", COL_NUM }, { "step", "step", COL_NUM }, { "id", "id", COL_STR },
		{ "object", "object", COL_STR }, { "via", "via (field of this object)", COL_STR },
		{ "root", "GC root", COL_STR },
	};
	node_t *parent = xmalloc(((size_t)h->n + 1) * sizeof *parent);
	node_t *queue = xmalloc(((size_t)h->n + 1) * sizeof *queue);
	node_t *weak = o->weak ? weak_by_dst(h) : NULL;
	size_t qh = 0, qt = 0, found = 0;
	int max = o->max_paths > 0 ? o->max_paths : 5;
	node_t *ends = xmalloc((size_t)max * sizeof *ends);
	struct table t;

	memset(parent, 0xff, ((size_t)h->n + 1) * sizeof *parent);
	parent[target] = target;
	queue[qt++] = target;
	/* breadth first from the object towards the roots: the first roots
	 * reached end the shortest paths */
	while (qh < qt && found < (size_t)max) {
		node_t v = queue[qh++];
		if (path_end(h, v, o->weak)) {
			ends[found++] = v;
			continue;
		}
		for (edge_t j = h->in_start[v]; j < h->in_start[v + 1]; j++) {
			node_t u = h->in[j];
			if (u != 0 && parent[u] == HW_NONE) {
				parent[u] = v;
				queue[qt++] = u;
			}
		}
		for (uint64_t i = weak ? weak_first(weak, h->nweak, v) : h->nweak;
		     i < h->nweak && weak[2 * i] == v; i++)
			if (parent[weak[2 * i + 1]] == HW_NONE) {
				parent[weak[2 * i + 1]] = v;
				queue[qt++] = weak[2 * i + 1];
			}
	}
	table_init(&t, o->fmt, cols, 6);
	char id[32];
	id_text(h, target, id, sizeof id);
	table_meta_str(&t, "object", id);
	table_meta_num(&t, "paths", found);
	table_meta_str(&t, "weak_references", o->weak ? "followed" : "excluded");
	for (size_t p = 0; p < found; p++) {
		/* from the root down to the object: collect, then print reversed */
		size_t len = 0;
		for (node_t v = ends[p];; v = parent[v]) {
			queue[len++] = v;
			if (v == target)
				break;
		}
		for (size_t s = 0; s < len; s++) {
			node_t v = queue[s];
			struct sbuf name, via, root;
			sbuf_init(&name);
			sbuf_init(&via);
			sbuf_init(&root);
			node_label(h, v, &name);
			if (s + 1 < len)
				hprof_edge_label(h, v, queue[s + 1], &via);
			if (s == 0)
				root_text(h, v, &root);
			id_text(h, v, id, sizeof id);
			table_row(&t, CN(p + 1), CN(s), CS(id), CS(name.buf), CS(via.buf), CS(root.buf));
			sbuf_free(&name);
			sbuf_free(&via);
			sbuf_free(&root);
		}
	}
	table_end(&t, out);
	free(parent);
	free(queue);
	free(weak);
	free(ends);
	return 0;
}
