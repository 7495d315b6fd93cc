/* insp_refs.c — the References and Rules inspections, see inspect.h:
 * weak-reachable, pending-finalization, unowned, ambiguous-owners,
 * tagged. Reachability here starts from the real GC roots (no pseudo
 * roots) and goes through weak references in stages. */
#include "query/inspect.h"

#include <stdlib.h>
#include <string.h>

#include "graph/analysis.h"
#include "graph/ownership.h"
#include "graph/rules.h"

/* Marks, over strong references, what v reaches and seen lacks; stage[]
 * (if not NULL) gets k for each newly marked object. With wk (the kind
 * of each weak reference, weak_kinds()), the references a rule calls
 * weak count as strong too: the JVM's own reachability, which rules do
 * not change. */
struct marker {
	const struct heap *h;
	bits_t *seen;
	node_t *stack;
	uint8_t *stage;
	const uint8_t *wk;
};

static void push(struct marker *m, size_t *sp, node_t t)
{
	if (!bit_get(m->seen, t)) {
		bit_set(m->seen, t);
		m->stack[(*sp)++] = t;
	}
}

/* The weak references from u that a rule (not a Reference) made weak. */
static void push_rule_weak(struct marker *m, size_t *sp, node_t u)
{
	const struct heap *h = m->h;
	uint64_t lo = 0, hi = h->nweak;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (h->weak_src[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < h->nweak && h->weak_src[lo] == u; lo++)
		if (m->wk[lo] == 0)
			push(m, sp, h->weak_dst[lo]);
}

static void mark(struct marker *m, node_t v, uint8_t k)
{
	size_t sp = 0;

	if (bit_get(m->seen, v))
		return;
	bit_set(m->seen, v);
	m->stack[sp++] = v;
	while (sp > 0) {
		node_t u = m->stack[--sp];
		if (m->stage != NULL)
			m->stage[u] = k;
		for (edge_t j = m->h->out_start[u]; j < m->h->out_start[u + 1]; j++)
			push(m, &sp, m->h->out[j]);
		if (m->wk != NULL)
			push_rule_weak(m, &sp, u);
	}
}

static void marker_init(struct marker *m, const struct heap *h, int stages, const uint8_t *wk)
{
	m->h = h;
	m->wk = wk;
	m->seen = xcalloc(bits_words(h->n), sizeof *m->seen);
	m->stack = xmalloc(((size_t)h->n + 1) * sizeof *m->stack);
	m->stage = stages ? xcalloc((size_t)h->n + 1, 1) : NULL;
	bit_set(m->seen, 0);
	for (size_t i = 0; i < h->nroot_rec; i++) /* the real roots: no pseudo ones */
		if (h->root_rec[i].kind < RK_WEAK_ONLY)
			mark(m, h->root_rec[i].node, 0);
}

static void marker_free(struct marker *m)
{
	free(m->seen);
	free(m->stack);
	free(m->stage);
}

/* The kind of reference object class c is: 1 soft, 2 weak, 3 finalizer,
 * 4 phantom, 0 none (a rule's weak reference elsewhere). */
static int ref_kind(const struct heap *h, uint32_t c)
{
	static const char *const names[] = { "java.lang.ref.SoftReference", "java.lang.ref.WeakReference",
					     "java.lang.ref.FinalReference", "java.lang.ref.PhantomReference" };

	for (uint32_t d = 0; c != HW_NONE && d < h->ncls; c = h->cls[c].super, d++)
		for (int k = 0; k < 4; k++)
			if (strcmp(class_name(h, c), names[k]) == 0)
				return k + 1;
	return 0;
}

/* Per weak reference: 1..4 as ref_kind when it is a Reference's
 * referent, 0 when a rule made some other reference weak. */
static uint8_t *weak_kinds(const struct heap *h)
{
	uint8_t *ck = xmalloc((size_t)h->ncls + 1), *k = xcalloc(h->nweak + 1, 1);

	for (uint32_t c = 0; c < h->ncls; c++)
		ck[c] = (uint8_t)ref_kind(h, c);
	for (uint64_t i = 0; i < h->nweak; i++) {
		node_t s = h->weak_src[i];
		const struct hclass *cl = &h->cls[h->node_class[s]];
		if (ck[h->node_class[s]] == 0 || h->node_kind[s] != NK_INSTANCE ||
		    cl->referent_off == HW_NONE)
			continue;
		const uint8_t *q = h->map + h->node_off[s];
		unsigned ids = h->layout.idsize;
		uint64_t id = beid(q + 1 + 2 * ids + 8 + cl->referent_off, ids);
		if (id == heap_node_id(h, h->weak_dst[i]))
			k[i] = ck[h->node_class[s]];
	}
	free(ck);
	return k;
}

/* Collect the members of set with stage[v] == k into a group. */
static void stage_group(struct insp_result *r, const struct heap *h, const struct objset *set,
			const uint8_t *stage, uint8_t k, char *name, enum insp_priority prio)
{
	uint64_t n = 0;

	for (node_t v = 1; v < h->n; v++)
		n += stage[v] == k && objset_has(set, v);
	if (n == 0) {
		free(name);
		return;
	}
	node_t *nodes = xmalloc(n * sizeof *nodes);
	n = 0;
	for (node_t v = 1; v < h->n; v++)
		if (stage[v] == k && objset_has(set, v))
			nodes[n++] = v;
	insp_add(r, h, name, prio, nodes, n, insp_retained(h, nodes, n, NULL));
}

static int weak_reachable(struct heap *h, const struct objset *set, const char *arg,
			  struct insp_result *r, struct progress *p, struct sbuf *err)
{
	static const char *const names[] = { "", "softly reachable (SoftReference)",
					     "weakly reachable (WeakReference)",
					     "reachable through a finalizer (FinalReference)",
					     "phantom reachable (PhantomReference)" };
	struct marker m;
	uint8_t *wk = weak_kinds(h);

	(void)arg;
	(void)err;
	(void)p;
	marker_init(&m, h, 1, wk);
	memset(m.stage, 0, h->n);
	for (uint8_t k = 1; k <= 4; k++)
		for (int changed = 1; changed;) {
			changed = 0;
			for (uint64_t i = 0; i < h->nweak; i++)
				if (wk[i] != 0 && wk[i] <= k && bit_get(m.seen, h->weak_src[i]) &&
				    !bit_get(m.seen, h->weak_dst[i])) {
					mark(&m, h->weak_dst[i], (uint8_t)(k + 10));
					changed = 1;
				}
		}
	r->examined = set->count;
	for (uint8_t k = 1; k <= 4; k++)
		stage_group(r, h, set, m.stage, (uint8_t)(k + 10), xstrdup(names[k]),
			    k == 3 ? IP_MEDIUM : IP_LOW);
	marker_free(&m);
	free(wk);
	return 0;
}

/* Referents of java.lang.ref.Finalizer objects out of strong reach. */
static int pending_finalization(struct heap *h, const struct objset *set, const char *arg,
				struct insp_result *r, struct progress *p, struct sbuf *err)
{
	struct marker m;
	uint8_t *wk = weak_kinds(h);
	bits_t *pend = xcalloc(bits_words(h->n), sizeof *pend);

	(void)arg;
	(void)err;
	(void)p;
	marker_init(&m, h, 0, wk);
	for (uint64_t i = 0; i < h->nweak; i++)
		if (wk[i] == 3 && strcmp(class_name(h, h->node_class[h->weak_src[i]]),
					 "java.lang.ref.Finalizer") == 0 &&
		    !bit_get(m.seen, h->weak_dst[i]) && objset_has(set, h->weak_dst[i]))
			bit_set(pend, h->weak_dst[i]);
	/* one group per class of the objects awaiting finalization */
	uint64_t *cnt = xcalloc((size_t)h->ncls + 1, sizeof *cnt);
	for (node_t v = 1; v < h->n; v++)
		if (bit_get(pend, v))
			cnt[h->node_class[v]]++;
	for (uint32_t c = 0; c < h->ncls; c++) {
		if (cnt[c] == 0)
			continue;
		node_t *nodes = xmalloc(cnt[c] * sizeof *nodes);
		uint64_t n = 0;
		for (node_t v = 1; v < h->n; v++)
			if (bit_get(pend, v) && h->node_class[v] == c)
				nodes[n++] = v;
		insp_add(r, h, xasprintf("%s awaiting finalization", class_name(h, c)), IP_MEDIUM, nodes,
			 n, insp_retained(h, nodes, n, NULL));
	}
	r->examined = set->count;
	free(cnt);
	free(pend);
	free(wk);
	marker_free(&m);
	return 0;
}

/* Objects that only references a rule calls weak reach: reachability
 * with every Reference's referent first, then through the rule's. */
static int unowned(struct heap *h, const struct objset *set, const char *arg,
		   struct insp_result *r, struct progress *p, struct sbuf *err)
{
	struct marker m;
	uint8_t *wk = weak_kinds(h);

	(void)arg;
	(void)err;
	(void)p;
	marker_init(&m, h, 0, NULL); /* the rules' weak references come last */
	for (int changed = 1; changed;) {
		changed = 0;
		for (uint64_t i = 0; i < h->nweak; i++)
			if (wk[i] != 0 && bit_get(m.seen, h->weak_src[i]) && !bit_get(m.seen, h->weak_dst[i])) {
				mark(&m, h->weak_dst[i], 0);
				changed = 1;
			}
	}
	/* per rule: what its references reach first */
	uint32_t *by = xmalloc(((size_t)h->n + 1) * sizeof *by);
	for (node_t v = 0; v < h->n; v++)
		by[v] = UINT32_MAX;
	for (int changed = 1; changed;) {
		changed = 0;
		for (uint64_t i = 0; i < h->nweak; i++) {
			node_t t = h->weak_dst[i];
			if (wk[i] != 0 || !bit_get(m.seen, h->weak_src[i]) || bit_get(m.seen, t))
				continue;
			/* mark, and note the rule for what this reaches */
			size_t sp = 0;
			bit_set(m.seen, t);
			m.stack[sp++] = t;
			while (sp > 0) {
				node_t u = m.stack[--sp];
				by[u] = h->weak_rule != NULL ? h->weak_rule[i] : WEAK_BUILTIN;
				for (edge_t j = h->out_start[u]; j < h->out_start[u + 1]; j++)
					if (!bit_get(m.seen, h->out[j])) {
						bit_set(m.seen, h->out[j]);
						m.stack[sp++] = h->out[j];
					}
			}
			changed = 1;
		}
	}
	size_t nrules = h->rules != NULL ? h->rules->n : 0;
	uint64_t *cnt = xcalloc(nrules + 2, sizeof *cnt);
	for (node_t v = 1; v < h->n; v++)
		if (by[v] != UINT32_MAX && objset_has(set, v))
			cnt[by[v] < nrules ? by[v] : nrules]++;
	for (size_t k = 0; k <= nrules; k++) {
		if (cnt[k] == 0)
			continue;
		node_t *nodes = xmalloc(cnt[k] * sizeof *nodes);
		uint64_t n = 0;
		for (node_t v = 1; v < h->n; v++)
			if (by[v] != UINT32_MAX && objset_has(set, v) &&
			    (by[v] < nrules ? by[v] : nrules) == k)
				nodes[n++] = v;
		struct sbuf sb;
		sbuf_init(&sb);
		if (k < nrules) {
			const struct rule *ru = &h->rules->rules[k];
			rule_to_string(h->rules, ru, &sb);
			sbuf_printf(&sb, " (%s:%u)", ru->file, ru->line);
		} else {
			sbuf_adds(&sb, "weak by a rule");
		}
		insp_add(r, h, sbuf_detach(&sb), IP_MEDIUM, nodes, n, insp_retained(h, nodes, n, NULL));
	}
	r->examined = set->count;
	free(cnt);
	free(by);
	free(wk);
	marker_free(&m);
	return 0;
}

/* Group the members of a sorted node list by class. */
static void by_class(struct insp_result *r, const struct heap *h, const struct objset *set,
		     const node_t *list, uint64_t n, const char *what, enum insp_priority prio)
{
	uint64_t *cnt = xcalloc((size_t)h->ncls + 1, sizeof *cnt);

	for (uint64_t i = 0; i < n; i++)
		if (objset_has(set, list[i]))
			cnt[h->node_class[list[i]]]++;
	for (uint32_t c = 0; c < h->ncls; c++) {
		if (cnt[c] == 0)
			continue;
		node_t *nodes = xmalloc(cnt[c] * sizeof *nodes);
		uint64_t k = 0;
		for (uint64_t i = 0; i < n; i++)
			if (objset_has(set, list[i]) && h->node_class[list[i]] == c)
				nodes[k++] = list[i];
		insp_add(r, h, xasprintf("%s %s", class_name(h, c), what), prio, nodes, k, k);
	}
	free(cnt);
}

static int ambiguous_owners(struct heap *h, const struct objset *set, const char *arg,
			    struct insp_result *r, struct progress *p, struct sbuf *err)
{
	(void)arg;
	(void)err;
	(void)p;
	by_class(r, h, set, h->ambiguous, h->nambiguous, "with owners of equal weight", IP_MEDIUM);
	r->examined = set->count;
	return 0;
}

static int tagged(struct heap *h, const struct objset *set, const char *arg,
		  struct insp_result *r, struct progress *p, struct sbuf *err)
{
	(void)arg;
	(void)err;
	(void)p;
	const char *label = h->tag_labels;
	for (uint32_t k = 0; k < h->tag_nlabels; k++, label += strlen(label) + 1) {
		uint64_t n = 0;
		for (uint64_t i = 0; i < h->ntags; i++)
			n += h->tag_label[i] == k && objset_has(set, h->tag_node[i]);
		if (n == 0)
			continue;
		node_t *nodes = xmalloc(n * sizeof *nodes);
		n = 0;
		for (uint64_t i = 0; i < h->ntags; i++)
			if (h->tag_label[i] == k && objset_has(set, h->tag_node[i]))
				nodes[n++] = h->tag_node[i];
		insp_add(r, h, xstrdup(label), IP_LOW, nodes, n, insp_retained(h, nodes, n, NULL));
	}
	r->examined = set->count;
	return 0;
}

const struct inspection insp_refs[] = {
	{ "weak-reachable", "References", "Objects reachable only through soft, weak, finalizer "
	  "or phantom references, by the strongest kind", NULL, 0, "retained", 1, weak_reachable },
	{ "pending-finalization", "References", "Objects that only their Finalizer keeps: "
	  "finalize() runs before they are freed", NULL, 0, "retained", 1, pending_finalization },
	{ "unowned", "Rules", "Objects reachable only through references a rule calls weak",
	  NULL, 0, "retained", 1, unowned },
	{ "ambiguous-owners", "Rules", "Objects with two owners of equal weight", NULL, 0,
	  NULL, 0, ambiguous_owners },
	{ "tagged", "Rules", "Objects a rule tags, by label", NULL, 0, "retained", 1, tagged },
	{ .name = NULL },
};
