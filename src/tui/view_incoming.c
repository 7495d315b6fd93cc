/* view_incoming.c — incoming references: the step's objects, each
 * expanding to its referrers and the field they hold it by (references
 * that rules made weak or not owning are said so); or, for one object,
 * the shortest paths from GC roots, or its lifelines (query/lifelines.h). */
#include <stdlib.h>
#include <string.h>

#include "graph/ownership.h"
#include "graph/reader.h"
#include "query/lifelines.h"
#include "query/views.h"
#include "tui/view.h"

struct incoming_state {
	int weak;           /* w: weak references followed */
	int paths;          /* r: paths to GC roots of target; y: LIFELINES, its lifelines */
	node_t target;
};

static struct incoming_state *ist(const struct tview *v) { return v->state; }

extern const struct view_ops incoming_ops;

enum { REF_STRONG, REF_WEAK, REF_INCIDENTAL };

/* "  (weak: jdk.rules:12)": why a reference does not count as strong,
 * with the rule that says so (-1 or the built-in referent: none named). */
static void ref_why(const struct tui *t, const char *what, int rule, struct sbuf *l)
{
	struct sbuf where;

	sbuf_init(&where);
	rule_where(t->h, rule, &where); /* a file's name: escaped */
	sbuf_printf(l, "  (%s", what);
	tv_add_esc(l, where.buf != NULL ? where.buf : "");
	sbuf_addc(l, ')');
	sbuf_free(&where);
}

static struct row *info_row(struct rowvec *out, uint32_t depth, uint8_t kind, const char *text)
{
	struct row *r = rowvec_add(out);

	row_set(r, text, NULL);
	r->depth = depth;
	r->kind = kind;
	r->flags = RF_NOCOLS;
	return r;
}

/* The GC root records of x, each on lines of its own at depth d (a long
 * label cut at 80 columns said nothing): "GC root: stack: Java frame", then
 * the thread and frame number, then the frame's method. */
static void root_rows(const struct heap *h, node_t x, uint32_t d, struct rowvec *out)
{
	/* root_rec is sorted by node, its first member */
	size_t lo = lower_bound_u32s(h->root_rec, h->nroot_rec, sizeof *h->root_rec, x);

	for (size_t i = lo; i < h->nroot_rec && h->root_rec[i].node == x; i++) {
		const struct root *rr = &h->root_rec[i];
		struct sbuf l, raw;
		sbuf_init(&l);
		sbuf_init(&raw);
		sbuf_adds(&l, "GC root: ");
		heap_root_kind(h, rr->kind, rr->native, &raw);
		heap_root_detail(h, rr, &raw);
		tv_add_esc(&l, raw.buf);
		sbuf_reset(&raw);
		info_row(out, d, VR_ROOT, l.buf)->key = i + 1;
		if (heap_root_has_thread(h, rr)) { /* the thread, and the frame when known */
			const struct hthread *th = thread_of_serial(h, rr->thread_serial);
			thread_label(h, th != NULL ? th->obj : HW_NONE, rr->thread_serial, &raw);
			if (rr->frame != HW_NONE)
				sbuf_printf(&raw, ", frame %u", rr->frame);
			sbuf_reset(&l);
			tv_add_esc(&l, raw.buf);
			info_row(out, d + 1, VR_INFO, l.buf);
			uint32_t f = thread_frame_index(h, rr->thread_serial, rr->frame);
			if (f != HW_NONE) {
				sbuf_reset(&raw);
				frame_label(h, f, &raw);
				sbuf_reset(&l);
				sbuf_adds(&l, "at ");
				tv_add_esc(&l, raw.buf);
				struct row *r = info_row(out, d + 1, VR_INFO, "");
				/* the frame's class is abbreviated first */
				size_t cn = strlen(heap_str(h, h->frames[f].class_name));
				row_set_named(r, l.buf, 3, cn <= l.len - 3 ? cn : 0);
			}
		}
		sbuf_free(&l);
		sbuf_free(&raw);
	}
}

/* A referrer of dst; how: REF_*, rule: a weak one's (heap.weak_rule's).
 * The virtual root as a referrer: dst's root records. Rows at depth d
 * (relative, under an expanded row). */
static void referrer_row(struct tui *t, struct rowvec *out, node_t src, node_t dst, int how, int rule, uint32_t d)
{
	const struct heap *h = t->h;
	struct sbuf l, lab;
	struct span nm;

	if (src == 0) {
		root_rows(h, dst, d, out);
		return;
	}
	struct row *r = rowvec_add(out);
	sbuf_init(&l);
	sbuf_init(&lab);
	tv_object_text(h, src, &l, &nm);
	edge_label(h, src, dst, &lab);
	sbuf_adds(&l, "  .");
	tv_add_esc(&l, lab.buf);
	if (how == REF_WEAK)
		ref_why(t, rule == WEAK_IGNORED ? "left out: ^X lists it" : rule == WEAK_OUTSIDE
			? (h->aroot != 0 ? "from outside the analysis root" : "from what the references left out made garbage")
			: rule == WEAK_GARBAGE ? "from an unreachable object (--keep-unreachable counts it)"
			: rule == WEAK_WEAKLY ? "from an object only weakly reachable: it holds nothing the GC roots hold"
			: "weak", rule, &l);
	else if (how == REF_INCIDENTAL)
		ref_why(t, "not owning", -1, &l); /* an owner of higher weight has it */
	r->val[0] = h->node_shallow[src];
	r->val[1] = h->retained[src];
	r->node = src;
	r->kind = VR_OBJ;
	r->open = 0;
	r->depth = d;
	row_set_named(r, l.buf, nm.off, nm.len);
	sbuf_free(&l);
	sbuf_free(&lab);
}

#define PATH_ENDS 200 /* steps shown at each end of a deep path */

static void paths_rows(struct tui *t, struct tview *v, node_t target)
{
	struct heap *h = t->h;
	struct path_view pv;
	struct view_opts o = { .max_paths = 5, .weak = ist(v)->weak };

	view_paths(h, target, &o, &pv);
	struct row *top = tv_object_row(h, &v->rows, target);
	top->open = 1;
	if (pv.npaths == 0) /* no path to draw: why */
		info_row(&v->rows, 1, VR_INFO, h->aroot == 0 && !(pv.pseudo & PATH_UNREACHABLE) &&
			 pv.pseudo & PATH_WEAK_ONLY ? "no path from a GC root but through weak references: press w"
			 : unreached_why(h, pv.pseudo) != NULL ? unreached_why(h, pv.pseudo) : "no path from a GC root");
	for (size_t p = 0; p < pv.npaths; p++) {
		size_t a = pv.start[p], b = pv.start[p + 1];
		char line[128];
		snprintf(line, sizeof line, "path %zu: %zu step%s from %s", p + 1, b - a - 1, b - a == 2 ? "" : "s",
			 h->aroot != 0 ? "the analysis root" : "a GC root");
		struct row *hd = info_row(&v->rows, 1, VR_PATH, line);
		hd->open = 1;
		hd->key = p + 1;
		if (b - a == 1) /* the object is a GC root itself */
			root_rows(h, pv.nodes[a], 2, &v->rows);
		/* target upwards: each row holds the one above it; of a path too
		 * deep to read (a list a million long), the ends and a row for
		 * those between */
		int cut = b - a - 1 > 2 * PATH_ENDS;
		uint32_t d = 2;
		for (size_t k = b - 1; k-- > a; d++) {
			if (cut && k == b - 2 - PATH_ENDS) {
				snprintf(line, sizeof line, "(%zu steps left out: heapwalk paths prints them all)",
					 b - a - 1 - 2 * PATH_ENDS);
				info_row(&v->rows, d, VR_INFO, line);
				k = a + PATH_ENDS;
				continue;
			}
			size_t before = v->rows.n;
			int weak = pv.hop != NULL && pv.hop[k] >= 0;
			referrer_row(t, &v->rows, pv.nodes[k], pv.nodes[k + 1], weak ? REF_WEAK : REF_STRONG,
				     weak ? pv.hop[k] : -1, d);
			v->rows.v[before].open = -1;
			if (k == a) /* the root object: what kind of root, below it */
				root_rows(h, pv.nodes[k], d + 1, &v->rows);
		}
	}
	path_view_free(&pv);
}

#define LIFELINES 2

/* A lifeline a header ("lifeline 1: 4 paths, GC root: JNI global"),
 * then its steps from the end down, one row each. */
static void lifeline_rows(struct tui *t, struct tview *v, node_t target)
{
	struct lifeline_view lv;
	struct sbuf l;

	view_lifelines(t->h, target, 0, &lv);
	sbuf_init(&l);
	tv_object_row(t->h, &v->rows, target)->open = 1;
	if (lv.n == 0)
		info_row(&v->rows, 1, VR_INFO, unreached_why(t->h, lv.pseudo) != NULL
			 ? unreached_why(t->h, lv.pseudo) : "no lifeline");
	if (lv.limited)
		info_row(&v->rows, 1, VR_INFO, "(the walk stopped at its limit: counts are lower bounds)");
	for (size_t i = 0; i < lv.n; i++) {
		const struct lifeline *ll = &lv.ll[i];
		sbuf_reset(&l);
		sbuf_printf(&l, "lifeline %zu: %llu path%s, %s", i + 1, (unsigned long long)ll->count,
			    ll->count == 1 ? "" : "s", ll->end != LE_ROOT ? "owned: " : t->h->aroot ? "" : "GC root: ");
		tv_add_esc(&l, lv.strs[ll->end_what]);
		struct row *hd = info_row(&v->rows, 1, VR_PATH, l.buf);
		hd->open = 1;
		hd->key = i + 1;
		for (size_t k = 0; k < ll->n; k++) {
			const struct lifeline_step *st = &lv.steps[ll->first + k];
			sbuf_reset(&l);
			tv_add_esc(&l, lv.strs[st->holder]);
			sbuf_adds(&l, "  .");
			tv_add_esc(&l, lv.strs[st->field]);
			if (st->max > 1)
				sbuf_printf(&l, st->min == st->max ? "  (x%llu)" : "  (x%llu-%llu)",
					    (unsigned long long)st->min, (unsigned long long)st->max);
			info_row(&v->rows, 2, VR_INFO, l.buf);
		}
	}
	sbuf_free(&l);
	lifeline_view_free(&lv);
}

static int incoming_build(struct tui *t, struct tview *v)
{
	tview_columns(v, tv_object_cols, 2);
	if (ist(v)->paths == LIFELINES) {
		lifeline_rows(t, v, ist(v)->target);
		snprintf(v->lefthead, sizeof v->lefthead, "%s", "lifelines: to GC roots or owned objects");
		return 0;
	}
	if (ist(v)->paths) {
		paths_rows(t, v, ist(v)->target);
		snprintf(v->lefthead, sizeof v->lefthead, "paths %s (%s)",
			 t->h->aroot != 0 ? "from the analysis root" : "to GC roots",
			 ist(v)->weak ? "weak references followed" : "strong references only");
		return 0;
	}
	tv_object_page(t, v, 0, &v->rows, ist(v)->weak ? PAGE_IN_WEAK : PAGE_IN);
	snprintf(v->lefthead, sizeof v->lefthead, "%s",
		 ist(v)->weak ? "object / referrer .field (weak too)" : "object / referrer .field");
	return 0;
}

static int incoming_expand(struct tui *t, struct tview *v, size_t i, struct rowvec *out)
{
	struct heap *h = t->h;
	struct row *r = &v->rows.v[i];

	if (r->kind == VR_MORE) {
		tv_object_page(t, v, r->num[0], out, ist(v)->weak ? PAGE_IN_WEAK : PAGE_IN);
		row_set(r, "(next page)", NULL);
		return 0;
	}
	if (r->node == HW_NONE)
		return 0;
	node_t x = r->node;
	size_t shown = 0;
	for (edge_t j = h->in_start[x]; j < h->in_start[x + 1]; j++) {
		node_t p = h->in[j];
		if (j > h->in_start[x] && h->in[j - 1] == p)
			continue; /* one row per referrer */
		if (shown++ == PAGE) {
			struct row *m = rowvec_add(out);
			char line[96];
			snprintf(line, sizeof line, "... %u more references (use referrers: I)",
				 (unsigned)(h->in_start[x + 1] - j));
			row_set(m, line, NULL);
			m->flags = RF_NOCOLS;
			break;
		}
		referrer_row(t, out, p, x, REF_STRONG, -1, 0);
	}
	/* references a rule made incidental: there, but not owning */
	size_t lo = lower_bound_u32(h->rx_dst, h->nrx, x); /* sorted by target */
	for (size_t k = lo; k < h->nrx && h->rx_dst[k] == x && shown <= PAGE; k++)
		if (k == lo || h->rx_src[k - 1] != h->rx_src[k]) {
			referrer_row(t, out, h->rx_src[k], x, REF_INCIDENTAL, -1, 0);
			shown++;
		}
	/* weak ones with w; garbage's and the weakly reachable's always: they
	 * are strong ones, only set aside so that they keep nothing alive
	 * that the GC roots hold */
	for (uint64_t k = 0; k < h->nweak; k++)
		if (h->weak_dst[k] == x &&
		    (ist(v)->weak || (h->weak_rule != NULL && (h->weak_rule[k] == WEAK_GARBAGE ||
								 h->weak_rule[k] == WEAK_WEAKLY))))
			referrer_row(t, out, h->weak_src[k], x, REF_WEAK,
				     h->weak_rule != NULL ? h->weak_rule[k] : WEAK_BUILTIN, 0);
	return 0;
}

static int incoming_use(struct tui *t, struct tview *v, int reached, struct use *u)
{
	return tv_use_nodes(t, v, reached, u, "Referrers");
}

static int incoming_weak(struct tui *t, struct tview *v, enum request r)
{
	(void)r;
	ist(v)->weak = !ist(v)->weak;
	tview_rebuild(t, v);
	tui_message(t, 0, ist(v)->weak ? "weak references followed" : "strong references only");
	return 1;
}

/* r: the paths to GC roots of the cursor's object, or back; y: its
 * lifelines, or back */
static int incoming_paths(struct tui *t, struct tview *v, enum request r)
{
	struct incoming_state *st = ist(v);
	int want = r == REQ_LIFELINES ? LIFELINES : 1;

	if (st->paths == want) {
		st->paths = 0;
	} else if (st->paths) {
		st->paths = want; /* the same object, the other way */
	} else {
		node_t x = v->cur < v->rows.n ? v->rows.v[v->cur].node : HW_NONE;
		if (x == HW_NONE || x == 0) {
			tui_message(t, 1, "put the cursor on an object first");
			return 1;
		}
		st->target = x;
		st->paths = want;
	}
	tview_rebuild(t, v);
	v->cur = 0;
	return 1;
}

void incoming_show(struct tui *t, struct tview *v, node_t x, int lifelines)
{
	if (v->ops != &incoming_ops || x == HW_NONE || x == 0)
		return;
	ist(v)->target = x;
	ist(v)->paths = lifelines ? LIFELINES : 1;
	tview_rebuild(t, v);
	v->cur = 0;
}

node_t incoming_paths_target(const struct tview *v)
{
	return v->ops == &incoming_ops && ist(v)->paths == 1 ? ist(v)->target : HW_NONE;
}

/* A new step follows weak references if this one did; its paths are its own. */
static void incoming_carry(void *to, const void *from)
{
	((struct incoming_state *)to)->weak = ((const struct incoming_state *)from)->weak;
}

static const struct view_key incoming_keys[] = {
	{ REQ_WEAK, incoming_weak },
	{ REQ_PATHS, incoming_paths },
	{ REQ_LIFELINES, incoming_paths },
	{ REQ_NONE, NULL },
};

const struct view_ops incoming_ops = {
	.name = "Incoming",
	.short_name = "In",
	.state_size = sizeof(struct incoming_state),
	.build = incoming_build,
	.expand = incoming_expand,
	.use = incoming_use,
	.keys = incoming_keys,
	.row_free = tv_rowdata_free,
	.data_free = tv_page_free,
	.state_carry = incoming_carry,
};
