/* ownership.c — applying rules to a heap, see ownership.h.
 *
 * Every reference goes into one pool (CSR by source, targets ascending);
 * the rules mark some as weak or owning; the pool is then split into
 * strong (out), weak and incidental references, and the analyses run
 * again. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "graph/ownership.h"

#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "graph/analysis.h"
#include "graph/cache.h"
#include "graph/classes.h"
#include "graph/resident.h"
#include "graph/reader.h"

/* A reference a rule classified. */
struct mark {
	node_t src, dst;
	uint32_t slot;    /* the field's offset; SLOT_SEQ|n for a slot found otherwise */
	uint16_t rule;    /* index of the rule, or WEAK_BUILTIN */
	uint16_t weight;  /* 0: weak; else owning with this weight */
};
#define SLOT_SEQ 0x80000000u /* array and collection slots: each hit its own */

struct tagged { node_t node; uint32_t label; };

/* Every reference of a source, of any kind (strong, weak, incidental),
 * targets ascending: what the rules see. Sources come one after the
 * other, ascending; the strong references are read in order, from
 * memory or from the file behind the heap, so that they need not be in
 * memory at once. */
struct pool {
	int open;
	struct seq out;
	node_t v;            /* the source held; 0: none yet */
	node_t next;         /* the first source whose out-edges are unread */
	uint64_t wi, ri;     /* the next weak and incidental (by source) one */
	node_t *rx;          /* incidental ones as (source, target), sorted */
	node_t *buf;         /* v's */
	size_t n, cap;
};

struct apply {
	struct heap *h;
	const struct ruleset *rs;
	struct pool pool;
	const struct runtime_ops *rt; /* fields by name, collections: NULL, none */
	void *ctx;                    /* rt's, for this application */
	struct mark *m;
	size_t nm, capm;
	struct tagged *tg;
	size_t ntg, captg;
	uint16_t cur_rule, cur_weight;
	uint32_t cur_slot;   /* the field of the current hit (runtime_ops.field_ref's slot), or 0 */
	uint32_t seq;        /* numbers the hits that are no field */
	int cur_tag;      /* the current rule tags targets */
	uint8_t *field_seen; /* per rule: some matching class has the field */
	/* without a pool (ignored_marks): the references of one source, and
	 * the incidental ones as (src, dst) pairs sorted by source */
	node_t *one;
	size_t none, capone;
	node_t *rx_by_src;
};

/* ---- the pool of every reference ---- */

static int cmp_pair(const void *x, const void *y);

static void pool_open(struct heap *h, struct pool *pl)
{
	uint32_t id;

	if ((uint64_t)h->nedges + h->nweak + h->nrx > (uint64_t)UINT32_MAX - 1)
		hw_fatal("%s: more than 2^32 references: not supported yet", esc_str(h->path));
	memset(pl, 0, sizeof *pl);
	heap_load(h, HP_OUT_AT | HP_WEAK, NULL);
	const struct store *st = h->out == NULL ? heap_section(h, HP_OUT_TO, &id) : NULL;
	if (st == NULL) {
		heap_load(h, HP_OUT_TO, NULL);
		seq_mem(&pl->out, h->out, sizeof *h->out);
	} else if (seq_open(&pl->out, st, id, sizeof *h->out) < 0) {
		hw_fatal("%s: cannot read the references back from the index file", esc_str(h->path));
	}
	pl->rx = xmalloc(((size_t)h->nrx + 1) * 2 * sizeof *pl->rx);
	for (uint64_t i = 0; i < h->nrx; i++) {
		pl->rx[2 * i] = h->rx_src[i];
		pl->rx[2 * i + 1] = h->rx_dst[i];
	}
	hw_qsort(pl->rx, h->nrx, 2 * sizeof *pl->rx, cmp_pair);
	pl->next = 1;
	pl->open = 1;
}

/* v's references (v above every source asked for before); out_start
 * holds the strong ones' places as they were when the pool opened for
 * v and the sources after it. */
static const node_t *pool_of(const struct heap *h, struct pool *pl, node_t v, size_t *n)
{
	if (v == pl->v) {
		*n = pl->n;
		return pl->buf;
	}
	if (v > pl->next && seq_skip(&pl->out, h->out_start[v] - h->out_start[pl->next]) < 0)
		hw_fatal("%s: cannot read the references back from the index file", esc_str(h->path));
	edge_t ns = h->out_start[v + 1] - h->out_start[v];
	const node_t *e = seq_span(&pl->out, ns);
	if (e == NULL)
		hw_fatal("%s: cannot read the references back from the index file", esc_str(h->path));
	pl->next = v + 1;
	pl->v = v;
	pl->n = 0;
	while (pl->wi < h->nweak && h->weak_src[pl->wi] < v)
		pl->wi++;
	while (pl->ri < h->nrx && pl->rx[2 * pl->ri] < v)
		pl->ri++;
	size_t want = ns;
	for (uint64_t i = pl->wi; i < h->nweak && h->weak_src[i] == v; i++)
		want++;
	for (uint64_t i = pl->ri; i < h->nrx && pl->rx[2 * i] == v; i++)
		want++;
	if (want > pl->cap) {
		pl->cap = want * 2;
		pl->buf = xreallocarray(pl->buf, pl->cap, sizeof *pl->buf);
	}
	if (ns > 0)
		memcpy(pl->buf, e, ns * sizeof *e);
	pl->n = ns;
	for (; pl->wi < h->nweak && h->weak_src[pl->wi] == v; pl->wi++)
		pl->buf[pl->n++] = h->weak_dst[pl->wi];
	for (; pl->ri < h->nrx && pl->rx[2 * pl->ri] == v; pl->ri++)
		pl->buf[pl->n++] = pl->rx[2 * pl->ri + 1];
	if (pl->n > ns) /* targets ascending: the strong ones are already (heap.h) */
		sort_u32(pl->buf, pl->n);
	*n = pl->n;
	return pl->buf;
}

static void pool_close(struct pool *pl)
{
	if (!pl->open)
		return;
	seq_end(&pl->out);
	free(pl->rx);
	free(pl->buf);
	memset(pl, 0, sizeof *pl);
}

/* ---- marking references ---- */

static void add_mark(struct apply *a, node_t src, node_t dst)
{
	if (src == HW_NONE || dst == HW_NONE || src == 0 || dst == 0)
		return;
	if (a->nm == a->capm) {
		a->capm = a->capm ? a->capm * 2 : 1024;
		a->m = xreallocarray(a->m, a->capm, sizeof *a->m);
	}
	uint32_t slot = a->cur_slot ? a->cur_slot : SLOT_SEQ | (a->seq++ & ~SLOT_SEQ);
	a->m[a->nm++] = (struct mark){ src, dst, slot, a->cur_rule, a->cur_weight };
}

static void add_tag(struct apply *a, node_t v, uint32_t label)
{
	if (v == HW_NONE || v == 0)
		return;
	if (a->ntg == a->captg) {
		a->captg = a->captg ? a->captg * 2 : 256;
		a->tg = xreallocarray(a->tg, a->captg, sizeof *a->tg);
	}
	a->tg[a->ntg++] = (struct tagged){ v, label };
}

/* A reference src -> dst found by a rule: a mark, or a tag of dst. */
static void hit(struct apply *a, node_t src, node_t dst)
{
	if (a->cur_tag >= 0)
		add_tag(a, dst, (uint32_t)a->cur_tag);
	else
		add_mark(a, src, dst);
}

static void walk_cb(void *arg, node_t holder, node_t target, enum coll_role role)
{
	(void)role;
	hit(arg, holder, target);
}

/* Every reference of v, of any kind: the pool's; or, with no pool (one
 * source at a time, owning_ref()), gathered from the heap's arrays. */
static const node_t *refs_of(struct apply *a, node_t v, size_t *n)
{
	const struct heap *h = a->h;

	if (a->pool.open)
		return pool_of(h, &a->pool, v, n);
	a->none = 0;
	for (edge_t j = h->out_start[v]; j < h->out_start[v + 1]; j++) {
		VEC_GROW(a->one, a->none, a->capone);
		a->one[a->none++] = h->out[j];
	}
	for (uint64_t i = heap_weak_first(h, v); i < h->nweak && h->weak_src[i] == v; i++) {
		VEC_GROW(a->one, a->none, a->capone);
		a->one[a->none++] = h->weak_dst[i];
	}
	for (uint64_t i = lower_bound_u32s(a->rx_by_src, h->nrx, 2 * sizeof *a->rx_by_src, v);
	     i < h->nrx && a->rx_by_src[2 * i] == v; i++) {
		VEC_GROW(a->one, a->none, a->capone);
		a->one[a->none++] = a->rx_by_src[2 * i + 1];
	}
	*n = a->none;
	return a->one;
}

/* Every reference of v but the one to its class. */
static void all_refs(struct apply *a, node_t v)
{
	const struct heap *h = a->h;
	node_t cn = h->cls[h->node_class[v]].node;
	size_t n;
	const node_t *t = refs_of(a, v, &n);

	for (size_t j = 0; j < n; j++)
		if (t[j] != cn || h->node_kind[v] == NK_CLASS)
			hit(a, v, t[j]);
}

static const unsigned reach_roles[] = { 0, CR_VALUE, CR_KEY, CR_ELEMENT };

/* The contents of collection t (as the runtime knows collections). */
static void coll_walk(struct apply *a, node_t t, unsigned roles)
{
	if (a->rt != NULL && a->rt->coll_walk != NULL)
		a->rt->coll_walk(a->ctx, t, roles, walk_cb, a);
}

/* One field selector of the current rule on instance v. */
static void apply_field(struct apply *a, const struct rule_field *f, node_t v, size_t ri)
{
	const struct heap *h = a->h;
	node_t t = v;

	if (strcmp(f->name, RULE_ANY_FIELD) == 0 || strcmp(f->name, RULE_ELEMS) == 0) {
		a->field_seen[ri] = 1;
		if (f->reach == RR_FIELD) {
			if (strcmp(f->name, RULE_ANY_FIELD) == 0 || h->node_kind[v] == NK_OBJARRAY)
				all_refs(a, v);
			return;
		}
		/* "*.values": through every collection v refers to */
		size_t n;
		const node_t *refs = refs_of(a, v, &n);
		for (size_t j = 0; j < n; j++)
			coll_walk(a, refs[j], reach_roles[f->reach]);
		return;
	}
	if (strcmp(f->name, RULE_THIS) != 0) {
		uint32_t slot;
		if (a->rt == NULL || a->rt->field_ref == NULL ||
		    a->rt->field_ref(a->ctx, v, f->name, &t, &slot) < 0)
			return;
		a->field_seen[ri] = 1;
		if (t == HW_NONE)
			return;
		if (f->reach == RR_FIELD) {
			a->cur_slot = slot;
			hit(a, v, t);
			a->cur_slot = 0;
			return;
		}
	} else {
		a->field_seen[ri] = 1;
	}
	coll_walk(a, t, reach_roles[f->reach]);
}

/* The first field of that name heap_fields() gives (the class's own
 * before a super's): is its value zero? */
struct zero_probe { const char *name; int found, zero; };

static void zero_cb(void *arg, const char *name, const struct hvalue *val)
{
	struct zero_probe *z = arg;

	if (z->found || strcmp(name, z->name) != 0)
		return;
	z->found = 1;
	if (val->type == T_FLOAT)
		z->zero = val->v.f == 0.0f; /* -0.0 too */
	else if (val->type == T_DOUBLE)
		z->zero = val->v.d == 0.0;
	else
		z->zero = val->v.u == 0;    /* null, false, 0 */
}

/* tag-if-zero, tag-if-nonzero: field values are read from the dump
 * through the format, like the outgoing view's; an instance without
 * the field is left alone (and the rule may be warned about). */
static void tag_if(struct apply *a, const struct rule *r, node_t v, size_t ri, uint32_t label)
{
	struct zero_probe z = { r->fields[0].name, 0, 0 };

	heap_fields(a->h, v, zero_cb, &z);
	if (!z.found)
		return;
	a->field_seen[ri] = 1;
	if (z.zero == (r->verb == RV_TAG_ZERO))
		add_tag(a, v, label);
}

/* Does rule r select class c, before subclasses? */
static void select_classes(const struct heap *h, const struct rule *r, uint8_t *sel)
{
	pcre2_code *re = NULL;
	pcre2_match_data *md = NULL;

	if (r->type_regex) {
		int code;
		PCRE2_SIZE off;
		re = pcre2_compile((PCRE2_SPTR)r->type, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &code, &off, NULL);
		md = re != NULL ? pcre2_match_data_create_from_pattern(re, NULL) : NULL;
	}
	char *alt = class_internal_name(r->type); /* "Foo[]" is "[LFoo;" */
	for (uint32_t c = 0; c < h->ncls; c++) {
		const char *nm = class_name(h, c);
		if (re != NULL)
			sel[c] = pcre2_match(re, (PCRE2_SPTR)nm, strlen(nm), 0, 0, md, NULL) >= 0;
		else
			sel[c] = !r->type_regex && (strcmp(nm, r->type) == 0 || strcmp(nm, alt) == 0);
	}
	free(alt);
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	if (!r->subclasses)
		return;
	uint8_t *sub = xmalloc((size_t)h->ncls + 1);
	for (uint32_t c = 0; c < h->ncls; c++) {
		sub[c] = sel[c];
		for (uint32_t k = h->cls[c].super, d = 0; !sub[c] && k != HW_NONE && d < h->ncls;
		     k = h->cls[k].super, d++)
			sub[c] = sel[k];
	}
	memcpy(sel, sub, h->ncls);
	free(sub);
}

/* Per class: the enabled rules whose TYPE selects it, in rule order
 * (CSR over classes: list[start[c] .. start[c + 1])). */
static void rules_by_class(const struct heap *h, const struct ruleset *rs, uint32_t **startp,
			   uint16_t **listp)
{
	uint8_t *sel = xmalloc((size_t)h->ncls + 1);
	uint32_t *start = xcalloc((size_t)h->ncls + 2, sizeof *start);
	struct { uint32_t c; uint16_t ri; } *pair = NULL;
	size_t np = 0, cap = 0;

	/* (class, rule) pairs in rule order, then a counting sort by class */
	for (size_t ri = 0; ri < rs->n && ri < WEAK_BUILTIN; ri++) {
		if (!rs->groups[rs->rules[ri].group].enabled)
			continue;
		select_classes(h, &rs->rules[ri], sel);
		for (uint32_t c = 0; c < h->ncls; c++) {
			if (!sel[c])
				continue;
			VEC_GROW(pair, np, cap);
			pair[np].c = c;
			pair[np++].ri = (uint16_t)ri;
			start[c + 1]++;
		}
	}
	for (uint32_t c = 0; c < h->ncls; c++)
		start[c + 1] += start[c];
	uint16_t *list = xmalloc((np + 1) * sizeof *list);
	uint32_t *pos = xmalloc(((size_t)h->ncls + 1) * sizeof *pos);
	memcpy(pos, start, ((size_t)h->ncls + 1) * sizeof *pos);
	for (size_t i = 0; i < np; i++)
		list[pos[pair[i].c]++] = pair[i].ri;
	free(pos);
	free(pair);
	free(sel);
	*startp = start;
	*listp = list;
}

static uint32_t label_index(struct heap *h, const char *label)
{
	uint32_t i = 0;
	for (uint32_t off = 0; off < h->tag_labels_len; off += (uint32_t)strlen(h->tag_labels + off) + 1, i++)
		if (strcmp(h->tag_labels + off, label) == 0)
			return i;
	size_t n = strlen(label) + 1;
	h->tag_labels = xrealloc(h->tag_labels, h->tag_labels_len + n);
	memcpy(h->tag_labels + h->tag_labels_len, label, n);
	h->tag_labels_len += (uint32_t)n;
	return h->tag_nlabels++;
}

/* Run every enabled rule over the instances of the classes it selects;
 * 0, or -1 if cancelled. */
static int evaluate(struct apply *a, struct progress *p)
{
	struct heap *h = a->h;
	const struct ruleset *rs = a->rs;

	if (rs == NULL) { /* the built-in default: referents are weak */
		a->cur_rule = WEAK_BUILTIN;
		a->cur_tag = -1;
		for (node_t v = 1; v < h->n && a->rt != NULL && a->rt->referent != NULL; v++) {
			uint32_t slot;
			node_t t = a->rt->referent(a->ctx, v, &slot);
			if (t != HW_NONE) {
				a->cur_slot = slot;
				add_mark(a, v, t);
			}
		}
		/* without a runtime that finds them, the weak references are
		 * the reader's (V8's weak edges): they stay weak, each one */
		a->cur_slot = 0;
		for (uint64_t i = 0; (a->rt == NULL || a->rt->referent == NULL) && i < h->nweak; i++)
			if (h->weak_rule == NULL || h->weak_rule[i] == WEAK_BUILTIN)
				add_mark(a, h->weak_src[i], h->weak_dst[i]);
		return 0;
	}
	uint32_t *start;
	uint16_t *list;
	int32_t *label = xmalloc((rs->n + 1) * sizeof *label);
	rules_by_class(h, rs, &start, &list);
	for (size_t ri = 0; ri < rs->n; ri++)
		label[ri] = RULE_TAGS(&rs->rules[ri]) ? (int32_t)label_index(h, rs->rules[ri].label) : -1;
	progress_begin(p, "rules", h->n, "objects");
	for (node_t v = 1; v < h->n; v++) {
		uint32_t c = h->node_class[v];
		if ((v & 0xffff) == 0) {
			progress_update(p, v);
			if (progress_cancelled(p))
				break;
		}
		for (uint32_t k = start[c]; k < start[c + 1]; k++) {
			const struct rule *r = &rs->rules[list[k]];
			a->cur_rule = list[k];
			a->cur_weight = r->verb == RV_OWNS ? (uint16_t)r->weight : 0;
			a->cur_tag = r->verb == RV_TAG && r->nfields > 0 ? label[list[k]] : -1;
			if (r->verb == RV_TAG && r->nfields == 0) {
				add_tag(a, v, (uint32_t)label[list[k]]);
				a->field_seen[list[k]] = 1;
			}
			if (r->verb == RV_TAG_ZERO || r->verb == RV_TAG_NONZERO) {
				tag_if(a, r, v, list[k], (uint32_t)label[list[k]]);
				continue;
			}
			for (size_t f = 0; f < r->nfields; f++)
				apply_field(a, &r->fields[f], v, list[k]);
		}
	}
	progress_end(p);
	int cancelled = progress_cancelled(p);
	/* rules that selected classes with instances but no field of them: say so */
	uint8_t *selects = xcalloc(rs->n + 1, 1);
	for (uint32_t c = 0; c < h->ncls; c++)
		for (uint32_t k = start[c]; k < start[c + 1] && h->cls[c].count > 0; k++)
			selects[list[k]] = 1;
	for (size_t ri = 0; ri < rs->n && !cancelled; ri++) {
		const struct rule *r = &rs->rules[ri];
		if (selects[ri] && !a->field_seen[ri]) {
			struct sbuf sb;
			sbuf_init(&sb);
			rule_to_string(rs, r, &sb);
			/* of this run's rules, not of the dump: said, never
			 * kept in its index cache with the dump's warnings (a
			 * later run without the rules was told it) */
			warn_add(&h->notes, "%s:%u: no class that '%s' selects has that field; the rule does "
				 "nothing here", r->file, r->line, sb.buf);
			sbuf_free(&sb);
		}
	}
	free(selects);
	free(start);
	free(list);
	free(label);
	return cancelled ? -1 : 0;
}

/* ---- splitting the pool ---- */

/* The mark that wins a reference: one the user left out, then the
 * highest weight (owning before weak), then the rule written first. */
static int cmp_mark_win(const void *x, const void *y)
{
	const struct mark *a = x, *b = y;

	if ((a->rule == WEAK_IGNORED) != (b->rule == WEAK_IGNORED)) /* left out: before any rule */
		return a->rule == WEAK_IGNORED ? -1 : 1;
	if (a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	if (a->rule != b->rule)
		return a->rule < b->rule ? -1 : 1;
	return a->slot < b->slot ? -1 : a->slot > b->slot;
}

/* By reference, then slot (to drop a slot's second mark), then the
 * mark that wins: the highest weight first (owning before weak), then
 * the rule written first. */
static int cmp_mark(const void *x, const void *y)
{
	const struct mark *a = x, *b = y;

	if (a->src != b->src)
		return a->src < b->src ? -1 : 1;
	if (a->dst != b->dst)
		return a->dst < b->dst ? -1 : 1;
	if (a->slot != b->slot)
		return a->slot < b->slot ? -1 : 1;
	return cmp_mark_win(a, b);
}


static int cmp_tagged(const void *x, const void *y)
{
	const struct tagged *a = x, *b = y;

	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	return a->label < b->label ? -1 : a->label > b->label;
}

/* rx sorted by target, then source. */
struct pair { node_t a, b; };
static int cmp_pair(const void *x, const void *y)
{
	const struct pair *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return p->b < q->b ? -1 : p->b > q->b;
}

/* Marks what is reachable over out[] from v (and from the root's real
 * root records when v is 0). */
static void reach(const struct heap *h, bits_t *seen, node_t *stack, node_t v)
{
	size_t sp = 0;

	if (v == 0 && h->aroot != 0) {
		bit_set(seen, h->aroot);
		stack[sp++] = h->aroot;
	} else if (v == 0) {
		for (size_t i = 0; i < h->nroot_rec; i++) {
			node_t r = h->root_rec[i].node;
			if (h->root_rec[i].kind < RK_WEAK_ONLY && !bit_get(seen, r)) {
				bit_set(seen, r);
				stack[sp++] = r;
			}
		}
	} else if (!bit_get(seen, v)) {
		bit_set(seen, v);
		stack[sp++] = v;
	}
	while (sp > 0) {
		node_t u = stack[--sp];
		for (edge_t j = h->out_start[u]; j < h->out_start[u + 1]; j++)
			if (!bit_get(seen, h->out[j])) {
				bit_set(seen, h->out[j]);
				stack[sp++] = h->out[j];
			}
	}
}

/* The incidental references into revived objects go back into out[]
 * (each source's targets stay ascending); the rest become rx_src/dst. */
static void restore(struct heap *h, const struct pair *rx, uint64_t nx, const bits_t *revive)
{
	uint64_t nb = 0, k = 0;

	for (uint64_t i = 0; i < nx; i++)
		nb += bit_get(revive, rx[i].a);
	struct pair *back = xmalloc(((size_t)nb + 1) * sizeof *back);
	h->rx_src = xmalloc(((size_t)(nx - nb) + 1) * sizeof *h->rx_src);
	h->rx_dst = xmalloc(((size_t)(nx - nb) + 1) * sizeof *h->rx_dst);
	h->nrx = 0;
	for (uint64_t i = 0; i < nx; i++)
		if (bit_get(revive, rx[i].a)) {
			back[k++] = (struct pair){ rx[i].b, rx[i].a };
		} else {
			h->rx_src[h->nrx] = rx[i].b;
			h->rx_dst[h->nrx++] = rx[i].a;
		}
	if (nb == 0) {
		free(back);
		return;
	}
	hw_qsort(back, nb, sizeof *back, cmp_pair);
	node_t *out = xmalloc(((size_t)h->nedges + nb + 1) * sizeof *out);
	uint64_t o = 0, b = 0;
	for (node_t v = 0; v < h->n; v++) {
		edge_t j = h->out_start[v], e = h->out_start[v + 1];
		h->out_start[v] = (edge_t)o;
		while (j < e || (b < nb && back[b].a == v))
			if (b < nb && back[b].a == v && (j == e || back[b].b < h->out[j]))
				out[o++] = back[b++].b;
			else
				out[o++] = h->out[j++];
	}
	h->out_start[h->n] = (edge_t)o;
	cache_changed(h, HP_OUT);
	free(h->out);
	h->out = out;
	h->nedges = o;
	free(back);
}

/* The highest weight of an owning reference to a target (the targets
 * of owning marks only, sorted), and the first owner of that weight met. */
struct owned {
	node_t t, owner;
	uint16_t w, rule;
};

static int cmp_owned(const void *x, const void *y)
{
	const struct owned *p = x, *q = y;

	if (p->t != q->t)
		return p->t < q->t ? -1 : 1;
	if (p->w != q->w)
		return p->w > q->w ? -1 : 1; /* the highest first */
	return p->rule < q->rule ? -1 : p->rule > q->rule; /* of those, the first rule */
}

static struct owned *owned_of(struct owned *o, size_t n, node_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (o[mid].t < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && o[lo].t == t ? &o[lo] : NULL;
}

/* What the marks of source v (marks[*mi ..], sorted by source, target,
 * then best first) make of v's references (pool: n, ascending): each
 * mark takes one reference of its pair, best mark first; cls 0 strong,
 * 1 weak, 2 owning (the rest stays 0); w the weight, rule the rule. */
static void apply_marks(const struct apply *a, size_t *mi, node_t v, const node_t *pool, size_t n,
			uint8_t *cls, uint16_t *w, uint16_t *rule)
{
	memset(cls, 0, n);
	while (*mi < a->nm && a->m[*mi].src < v)
		(*mi)++;
	for (size_t i = *mi, e; i < a->nm && a->m[i].src == v; i = e) {
		const struct mark *m = &a->m[i];
		for (e = i + 1; e < a->nm && a->m[e].src == v && a->m[e].dst == m->dst; e++)
			;
		size_t lo = lower_bound_u32(pool, n, m->dst);
		for (size_t q = i; q < e && lo < n && pool[lo] == m->dst; q++, lo++) {
			cls[lo] = a->m[q].weight ? 2 : 1;
			w[lo] = a->m[q].weight;
			rule[lo] = a->m[q].rule;
		}
	}
}

/* The references to put where the marks say, two passes over the pool:
 * the first finds the targets' highest owning weights, the second
 * writes the strong ones (out[], where they wait: the scratch file, or
 * memory), the weak and the incidental ones, and the owners. */
static void split(struct apply *a)
{
	struct heap *h = a->h;
	struct pool pl;
	struct owned *ow = NULL;
	size_t now = 0, capow = 0, mi, n;
	uint8_t *cls = NULL;
	uint16_t *w = NULL, *rule = NULL;
	size_t capc = 0;

	/* one mark per slot (the winning one), then per pair of objects the
	 * pool's slots of that pair take the marks, best first: a pair held
	 * through two fields of which a rule names one keeps the other
	 * strong */
	hw_qsort(a->m, a->nm, sizeof *a->m, cmp_mark);
	size_t kept = 0;
	for (size_t i = 0; i < a->nm; i++)
		if (kept == 0 || a->m[i].src != a->m[kept - 1].src || a->m[i].dst != a->m[kept - 1].dst ||
		    a->m[i].slot != a->m[kept - 1].slot)
			a->m[kept++] = a->m[i];
	a->nm = kept;
	for (size_t i = 0, e; i < a->nm; i = e) {
		for (e = i + 1; e < a->nm && a->m[e].src == a->m[i].src && a->m[e].dst == a->m[i].dst; e++)
			;
		if (e - i > 1)
			hw_qsort(&a->m[i], e - i, sizeof *a->m, cmp_mark_win);
	}
#define CLS_ROOM(k) do { if ((k) > capc) { capc = (k) * 2; cls = xrealloc(cls, capc); \
	w = xreallocarray(w, capc, sizeof *w); rule = xreallocarray(rule, capc, sizeof *rule); } } while (0)
	/* pass 1: the owning marks that land on a reference, by target */
	pool_open(h, &pl);
	mi = 0;
	for (size_t i = 0; i < a->nm; i++) {
		node_t v = a->m[i].src;
		if (i > 0 && v == a->m[i - 1].src)
			continue;
		const node_t *e = pool_of(h, &pl, v, &n);
		CLS_ROOM(n + 1);
		apply_marks(a, &mi, v, e, n, cls, w, rule);
		for (size_t j = 0; j < n; j++)
			if (cls[j] == 2) {
				VEC_GROW(ow, now, capow);
				ow[now++] = (struct owned){ e[j], 0, w[j], rule[j] };
			}
	}
	pool_close(&pl);
	hw_qsort(ow, now, sizeof *ow, cmp_owned);
	size_t k = 0;
	for (size_t i = 0; i < now; i++)
		if (k == 0 || ow[k - 1].t != ow[i].t)
			ow[k++] = ow[i];
	now = k;
	bits_t *owned = xcalloc(bits_words(h->n), sizeof *owned);
	for (size_t i = 0; i < now; i++)
		bit_set(owned, ow[i].t);
	/* pass 2, into new starts (the old ones read as it goes); the
	 * strong references to the scratch file, or, where there is none or
	 * it fails (a full disk), the same pass again into memory */
	struct store *st = heap_scratch(h);
	struct store_writer wr;
	uint32_t out_id = cache_scratch_id(HP_OUT_TO);
	node_t *out = NULL, *ws = NULL, *wd = NULL, *amb = NULL;
	uint64_t nout, capout = 0, nw, capw = 0, nx, capx = 0;
	uint16_t *wrl = NULL;
	struct pair *rx = NULL;
	size_t namb, capamb = 0;
	edge_t *start = xmalloc(((size_t)h->n + 1) * sizeof *start);
	int filed = 0;
	for (int to_file = st != NULL;; to_file = 0) {
		if (to_file)
			store_begin(st, &wr, out_id, sizeof *out);
		nout = nw = nx = namb = 0;
		for (size_t i = 0; i < now; i++)
			ow[i].owner = 0;
		pool_open(h, &pl);
		mi = 0;
		start[0] = 0;
		for (node_t v = 1; v < h->n; v++) {
			const node_t *e = pool_of(h, &pl, v, &n);
			start[v] = (edge_t)nout;
			CLS_ROOM(n + 1);
			apply_marks(a, &mi, v, e, n, cls, w, rule);
			for (size_t j = 0; j < n; j++) {
				node_t t = e[j];
				if ((cls[j] == 0 || cls[j] == 2) && bit_get(owned, t)) {
					struct owned *o = owned_of(ow, now, t);
					if (cls[j] == 0 || w[j] < o->w) {
						cls[j] = 3;
					} else if (o->owner == 0) {
						o->owner = v;
					} else if (o->owner != v) {
						VEC_GROW(amb, namb, capamb);
						amb[namb++] = t;
					}
				}
				if (cls[j] == 0 || cls[j] == 2) {
					if (to_file) {
						store_write(&wr, &t, sizeof t);
					} else {
						VEC_GROW(out, nout, capout);
						out[nout] = t;
					}
					nout++;
				} else if (cls[j] == 1) {
					VEC_GROW(ws, nw, capw);
					wd = xreallocarray(wd, capw, sizeof *wd);
					wrl = xreallocarray(wrl, capw, sizeof *wrl);
					ws[nw] = v;
					wd[nw] = t;
					wrl[nw++] = rule[j];
				} else {
					VEC_GROW(rx, nx, capx);
					rx[nx++] = (struct pair){ t, v };
				}
			}
		}
		start[h->n] = (edge_t)nout;
		pool_close(&pl);
		if (!to_file)
			break;
		if (store_end(&wr) == 0) {
			filed = 1;
			break;
		}
	}
#undef CLS_ROOM
	free(cls);
	free(w);
	free(rule);
	free(owned);
	/* the owned objects, and below, once known, not those whose owners
	 * are out of reach (what reaches them counts again) */
	free(h->own_node);
	free(h->own_rule);
	h->own_node = xmalloc((now + 1) * sizeof *h->own_node);
	h->own_rule = xmalloc((now + 1) * sizeof *h->own_rule);
	for (size_t i = 0; i < now; i++) {
		h->own_node[i] = ow[i].t;
		h->own_rule[i] = ow[i].rule;
	}
	free(ow);
	/* the new arrays in place of the old */
	h->nedges = nout;
	cache_changed(h, HP_OUT | HP_WEAK);
	free(h->out);
	free(h->out_start);
	h->out_start = start;
	h->out = NULL;
	if (filed)
		cache_adopt(h, HP_OUT_TO, out_id);
	else
		h->out = xreallocarray(out, (size_t)nout + 1, sizeof *out);
	free(h->weak_src);
	free(h->weak_dst);
	free(h->weak_rule);
	free(h->rx_src);
	free(h->rx_dst);
	h->weak_src = xreallocarray(ws, (size_t)nw + 1, sizeof *ws);
	h->weak_dst = xreallocarray(wd, (size_t)nw + 1, sizeof *wd);
	h->weak_rule = xreallocarray(wrl, (size_t)nw + 1, sizeof *wrl);
	h->nweak = nw;
	h->rx_src = h->rx_dst = NULL;
	/* an object whose owners are out of reach: its incidental
	 * references count again, as many rounds as that reaches more */
	hw_qsort(rx, nx, sizeof *rx, cmp_pair);
	bits_t *revive = xcalloc(bits_words(h->n), sizeof *revive);
	if (nx > 0) { /* no incidental reference (no owns rule hit): nothing to revive */
		bits_t *seen = xcalloc(bits_words(h->n), sizeof *seen);
		node_t *stack = xmalloc(((size_t)h->n + 1) * sizeof *stack);
		heap_load(h, HP_OUT, NULL);
		reach(h, seen, stack, 0);
		for (int changed = 1; changed;) {
			changed = 0;
			for (uint64_t i = 0; i < nx; i++)
				if (bit_get(seen, rx[i].b) && !bit_get(seen, rx[i].a)) {
					bit_set(revive, rx[i].a);
					reach(h, seen, stack, rx[i].a);
					changed = 1;
				}
		}
		free(seen);
		free(stack);
	}
	restore(h, rx, nx, revive);
	h->nown = 0;
	for (size_t i = 0; i < now; i++)
		if (!bit_get(revive, h->own_node[i])) {
			h->own_node[h->nown] = h->own_node[i];
			h->own_rule[h->nown++] = h->own_rule[i];
		}
	free(revive);
	free(rx);
	/* ambiguous owners, ascending, each once */
	sort_u32(amb, namb);
	size_t na = 0;
	for (size_t i = 0; i < namb; i++)
		if (na == 0 || amb[na - 1] != amb[i])
			amb[na++] = amb[i];
	free(h->ambiguous);
	h->ambiguous = xreallocarray(amb, na + 1, sizeof *h->ambiguous);
	h->nambiguous = na;
}

/* Tags: sorted, a node once per label. */
static void set_tags(struct heap *h, struct apply *a)
{
	hw_qsort(a->tg, a->ntg, sizeof *a->tg, cmp_tagged);
	free(h->tag_node);
	free(h->tag_label);
	h->tag_node = xmalloc((a->ntg + 1) * sizeof *h->tag_node);
	h->tag_label = xmalloc((a->ntg + 1) * sizeof *h->tag_label);
	h->ntags = 0;
	for (size_t i = 0; i < a->ntg; i++)
		if (i == 0 || cmp_tagged(&a->tg[i], &a->tg[i - 1]) != 0) {
			h->tag_node[h->ntags] = a->tg[i].node;
			h->tag_label[h->ntags++] = a->tg[i].label;
		}
}

/* ---- the analyses' focus ---- */

/* Every pool reference from src to dst of a pair left out: a mark that
 * wins over any rule's (cmp_mark_win), each with a slot of its own. */
static void ignored_marks(struct apply *a)
{
	struct heap *h = a->h;

	if (h->nignored == 0)
		return;
	a->cur_rule = WEAK_IGNORED;
	a->cur_weight = 0;
	a->cur_slot = 0;
	heap_load(h, HP_OUT | HP_WEAK, NULL);
	a->rx_by_src = xmalloc(((size_t)h->nrx + 1) * 2 * sizeof *a->rx_by_src);
	for (uint64_t i = 0; i < h->nrx; i++) {
		a->rx_by_src[2 * i] = h->rx_src[i];
		a->rx_by_src[2 * i + 1] = h->rx_dst[i];
	}
	hw_qsort(a->rx_by_src, h->nrx, 2 * sizeof *a->rx_by_src, cmp_pair);
	for (size_t i = 0; i < h->nignored; i++) {
		node_t s = h->ignored[i].src, d = h->ignored[i].dst;
		size_t n;
		const node_t *e = refs_of(a, s, &n); /* the pool is closed: gathered */
		for (size_t j = 0; j < n; j++)
			if (e[j] == d)
				add_mark(a, s, d);
	}
	free(a->rx_by_src);
	a->rx_by_src = NULL;
}

/* Is u -> t the reference of an object to its own class? */
static int is_class_ref(const struct heap *h, node_t u, node_t t)
{
	return h->node_kind[u] != NK_CLASS && h->node_class[u] != HW_NONE && h->cls[h->node_class[u]].node == t;
}

/* With a focus, what the roots reach is inside: from an analysis root,
 * not counting the references of objects to their classes (through
 * them, and the class loaders' statics, a JVM object reaches nearly
 * everything); from the GC roots, everything they reach once references
 * are left out. The strong references across the border become weak
 * (WEAK_OUTSIDE), so that nothing outside holds anything inside and
 * nothing inside holds its classes: under an analysis root, from all
 * the rest; from the GC roots, from what the references left out made
 * garbage (it does not keep what it refers to; the dump's own garbage
 * is analysis_cut_garbage's).
 * weak_src/dst stay sorted. */
static void outside_weak(struct heap *h)
{
	bits_t *in = xcalloc(bits_words(h->n), sizeof *in);
	node_t *stack = xmalloc(((size_t)h->n + 1) * sizeof *stack);

	size_t sp = 0;
	if (h->aroot != 0) {
		bit_set(in, h->aroot);
		stack[sp++] = h->aroot;
	} else {
		reach(h, in, stack, 0); /* the GC roots: everything they hold is inside */
	}
	while (sp > 0) { /* not through an object's reference to its class */
		node_t u = stack[--sp];
		for (edge_t j = h->out_start[u]; j < h->out_start[u + 1]; j++) {
			node_t t = h->out[j];
			if (!bit_get(in, t) && !is_class_ref(h, u, t)) {
				bit_set(in, t);
				stack[sp++] = t;
			}
		}
	}
	/* from the GC roots: the border is around what the references left
	 * out cut off, which they reached before; other garbage is as it was */
	bits_t *was = NULL;
	if (h->aroot == 0) {
		was = xcalloc(bits_words(h->n), sizeof *was);
		memcpy(was, in, bits_words(h->n) * sizeof *was);
		for (size_t i = 0; i < h->nignored; i++)
			if (bit_get(was, h->ignored[i].src) && !bit_get(was, h->ignored[i].dst)) {
				bit_set(was, h->ignored[i].dst);
				stack[sp++] = h->ignored[i].dst;
			}
		while (sp > 0) { /* ignored ones are weak now: followed by hand */
			node_t u = stack[--sp];
			for (edge_t j = h->out_start[u]; j < h->out_start[u + 1]; j++)
				if (!bit_get(was, h->out[j])) {
					bit_set(was, h->out[j]);
					stack[sp++] = h->out[j];
				}
			for (uint64_t i = heap_weak_first(h, u); i < h->nweak && h->weak_src[i] == u; i++)
				if (h->weak_rule[i] == WEAK_IGNORED && !bit_get(was, h->weak_dst[i])) {
					bit_set(was, h->weak_dst[i]);
					stack[sp++] = h->weak_dst[i];
				}
		}
	}
	free(stack);
	h->outside_refs = analysis_weaken_across(h, in, was, WEAK_OUTSIDE);
	h->ignored_refs = 0;
	for (uint64_t i = 0; i < h->nweak; i++)
		h->ignored_refs += h->weak_rule[i] == WEAK_IGNORED;
	free(in);
	free(was);
}

int ownership_classify(struct heap *h, const struct ruleset *rs, struct progress *p)
{
	struct apply a = { .h = h, .rs = rs };
	char *labels = h->tag_labels;
	uint32_t labels_len = h->tag_labels_len, nlabels = h->tag_nlabels;

	h->tag_labels = NULL;
	h->tag_labels_len = h->tag_nlabels = 0;
	heap_refs_changing(h); /* the split below makes out[] and the weak ones anew */
	/* the rules read objects (their records, fields by name, collections)
	 * and each object's references in turn */
	heap_load(h, HP_OFF | HP_CLASS | HP_KIND | HP_IDS, p);
	pool_open(h, &a.pool);
	a.rt = heap_runtime(h);
	a.ctx = a.rt != NULL && a.rt->open != NULL ? a.rt->open(h) : NULL;
	a.field_seen = xcalloc((rs ? rs->n : 0) + 1, 1);
	int cancelled = evaluate(&a, p) < 0;
	pool_close(&a.pool);
	if (a.ctx != NULL)
		a.rt->close(a.ctx);
	free(a.field_seen);
	if (cancelled) { /* nothing changed */
		free(h->tag_labels);
		h->tag_labels = labels;
		h->tag_labels_len = labels_len;
		h->tag_nlabels = nlabels;
		free(a.m);
		free(a.tg);
		return -1;
	}
	free(labels);
	free(a.one);
	a.one = NULL;
	a.none = a.capone = 0;
	ignored_marks(&a);
	free(a.one);
	/* the nodes wait on disk through the split (where there is a file);
	 * not their sizes, four bytes an object that the reachability pass
	 * next reads (parked here, they were inflated again at once) */
	heap_park(h, HP_OFF | HP_CLASS | HP_KIND | HP_IDS);
	progress_begin(p, "rules applied", h->nedges, "references");
	split(&a);
	progress_end(p);
	h->outside_refs = h->ignored_refs = 0;
	if (h->aroot != 0 || h->nignored > 0) {
		heap_load(h, HP_OUT | HP_WEAK | HP_CLASS | HP_KIND, p);
		outside_weak(h);
		cache_changed(h, HP_OUT | HP_WEAK);
	}
	free(a.m);
	set_tags(h, &a);
	free(a.tg);
	h->rules_fp = rules_fingerprint(rs);
	h->rules = rs;
	return 0;
}

int node_tags(const struct heap *h, node_t v, struct sbuf *out)
{
	uint64_t lo = lower_bound_u32(h->tag_node, h->ntags, v);
	int any = 0;

	for (; lo < h->ntags && h->tag_node[lo] == v; lo++) {
		const char *l = h->tag_labels;
		for (uint32_t i = 0; i < h->tag_label[lo]; i++)
			l += strlen(l) + 1;
		if (any++)
			sbuf_adds(out, "; ");
		sbuf_adds(out, l);
	}
	return any > 0;
}

int ref_is_weak(const struct heap *h, node_t src, node_t dst)
{
	uint64_t lo = lower_bound_pair_u32(h->weak_src, h->weak_dst, h->nweak, src, dst);

	if (lo < h->nweak && h->weak_src[lo] == src && h->weak_dst[lo] == dst)
		return h->weak_rule != NULL ? h->weak_rule[lo] : WEAK_BUILTIN;
	return -1;
}

int ref_is_incidental(const struct heap *h, node_t src, node_t dst)
{
	uint64_t lo = lower_bound_pair_u32(h->rx_dst, h->rx_src, h->nrx, dst, src);

	return lo < h->nrx && h->rx_dst[lo] == dst && h->rx_src[lo] == src ? 0 : -1;
}

