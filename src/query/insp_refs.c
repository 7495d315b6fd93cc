/* insp_refs.c — the References and Rules inspections, see inspect.h:
 * weak-reachable, pending-finalization, unowned, ambiguous-owners,
 * tagged, floating. Reachability here starts from the real GC roots (no pseudo
 * roots) and goes through weak references in stages. */
#include "query/inspect.h"

#include <stdlib.h>
#include <string.h>

#include "graph/analysis.h"
#include "graph/ownership.h"
#include "graph/reader.h"
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

	for (uint64_t lo = heap_weak_first(h, u); lo < h->nweak && h->weak_src[lo] == u; lo++)
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
	const struct runtime_ops *rt = heap_runtime(h); /* the referent's id, read by the runtime */

	for (uint32_t c = 0; c < h->ncls; c++)
		ck[c] = (uint8_t)ref_kind(h, c);
	for (uint64_t i = 0; i < h->nweak && rt != NULL && rt->field_raw != NULL; i++) {
		node_t s = h->weak_src[i];
		const struct hclass *cl = &h->cls[h->node_class[s]];
		if (ck[h->node_class[s]] == 0 || h->node_kind[s] != NK_INSTANCE ||
		    cl->referent_off == HW_NONE)
			continue;
		uint64_t id = rt->field_raw(h, s, (int)cl->referent_off, T_OBJECT); /* bounds-checked */
		if (id != 0 && id == heap_node_id(h, h->weak_dst[i]))
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

/* Members keyed 0..nkeys-1 (key[i] for node[i], nodes ascending; a key
 * of UINT32_MAX drops it) into one group per key, by a counting sort:
 * one pass however many groups. name(arg, key) names a group. */
static void groups_by_key(struct insp_result *r, const struct heap *h, const node_t *node,
			  const uint32_t *key, uint64_t n, uint32_t nkeys, enum insp_priority prio,
			  int retained, char *(*name)(const struct heap *, void *, uint32_t), void *arg)
{
	uint64_t *start = xcalloc((size_t)nkeys + 2, sizeof *start);

	for (uint64_t i = 0; i < n; i++)
		if (key[i] < nkeys)
			start[key[i] + 1]++;
	for (uint32_t k = 0; k < nkeys; k++)
		start[k + 1] += start[k];
	node_t *all = xmalloc((start[nkeys] + 1) * sizeof *all);
	uint64_t *pos = xmalloc(((size_t)nkeys + 1) * sizeof *pos);
	memcpy(pos, start, (size_t)nkeys * sizeof *pos);
	for (uint64_t i = 0; i < n; i++) /* stable: each group stays ascending */
		if (key[i] < nkeys)
			all[pos[key[i]]++] = node[i];
	for (uint32_t k = 0; k < nkeys; k++) {
		uint64_t c = start[k + 1] - start[k];
		if (c == 0)
			continue;
		node_t *nodes = xmalloc(c * sizeof *nodes);
		memcpy(nodes, all + start[k], c * sizeof *nodes);
		insp_add(r, h, name(h, arg, k), prio, nodes, c,
			 retained ? insp_retained(h, nodes, c, NULL) : c);
	}
	free(pos);
	free(all);
	free(start);
}

/* Members of a bitset (or a sorted list), keyed by class. */
static void groups_by_class(struct insp_result *r, const struct heap *h, const node_t *node,
			    uint64_t n, enum insp_priority prio, int retained,
			    char *(*name)(const struct heap *, void *, uint32_t), void *arg)
{
	uint32_t *key = xmalloc((n + 1) * sizeof *key);

	for (uint64_t i = 0; i < n; i++)
		key[i] = h->node_class[node[i]];
	groups_by_key(r, h, node, key, n, h->ncls, prio, retained, name, arg);
	free(key);
}

/* The members of bits, ascending; *n their count. */
static node_t *bits_list(const struct heap *h, const bits_t *bits, uint64_t *n)
{
	uint64_t k = 0;

	for (node_t v = 1; v < h->n; v++)
		k += bit_get(bits, v);
	node_t *list = xmalloc((k + 1) * sizeof *list);
	*n = 0;
	for (node_t v = 1; v < h->n; v++)
		if (bit_get(bits, v))
			list[(*n)++] = v;
	return list;
}

static char *name_pending(const struct heap *h, void *arg, uint32_t c)
{
	(void)arg;
	return xasprintf("%s awaiting finalization", class_name(h, c));
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
	uint64_t n;
	node_t *list = bits_list(h, pend, &n);
	groups_by_class(r, h, list, n, IP_MEDIUM, 1, name_pending, NULL);
	free(list);
	r->examined = set->count;
	free(pend);
	free(wk);
	marker_free(&m);
	return 0;
}

/* "weak Foo bar (file:line)": the rule k of the rules applied. */
static char *name_rule(const struct heap *h, void *arg, uint32_t k)
{
	struct sbuf sb;

	(void)arg;
	sbuf_init(&sb);
	if (h->rules != NULL && k < h->rules->n) {
		const struct rule *ru = &h->rules->rules[k];
		rule_to_string(h->rules, ru, &sb);
		sbuf_printf(&sb, " (%s:%u)", ru->file, ru->line);
	} else {
		sbuf_adds(&sb, "weak by a rule");
	}
	return sbuf_detach(&sb);
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
			if (wk[i] != 0 || !bit_get(m.seen, h->weak_src[i]) || bit_get(m.seen, t) ||
			    weak_left_out(h, i)) /* the analyses' focus: no rule's */
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
	/* one group per rule: the members in index order, keyed by rule */
	uint32_t nrules = h->rules != NULL ? (uint32_t)h->rules->n : 0;
	uint64_t n = 0;
	for (node_t v = 1; v < h->n; v++)
		n += by[v] != UINT32_MAX && objset_has(set, v);
	node_t *list = xmalloc((n + 1) * sizeof *list);
	uint32_t *key = xmalloc((n + 1) * sizeof *key);
	n = 0;
	for (node_t v = 1; v < h->n; v++)
		if (by[v] != UINT32_MAX && objset_has(set, v)) {
			list[n] = v;
			key[n++] = by[v] < nrules ? by[v] : nrules;
		}
	groups_by_key(r, h, list, key, n, nrules + 1, IP_MEDIUM, 1, name_rule, NULL);
	free(list);
	free(key);
	r->examined = set->count;
	free(by);
	free(wk);
	marker_free(&m);
	return 0;
}

static char *name_ambiguous(const struct heap *h, void *arg, uint32_t c)
{
	(void)arg;
	return xasprintf("%s with owners of equal weight", class_name(h, c));
}

static int ambiguous_owners(struct heap *h, const struct objset *set, const char *arg,
			    struct insp_result *r, struct progress *p, struct sbuf *err)
{
	(void)arg;
	(void)err;
	(void)p;
	uint64_t n = 0;
	node_t *list = xmalloc((h->nambiguous + 1) * sizeof *list);
	for (uint64_t i = 0; i < h->nambiguous; i++)
		if (objset_has(set, h->ambiguous[i]))
			list[n++] = h->ambiguous[i];
	groups_by_class(r, h, list, n, IP_MEDIUM, 0, name_ambiguous, NULL);
	free(list);
	r->examined = set->count;
	return 0;
}

static char *name_label(const struct heap *h, void *arg, uint32_t k)
{
	const char *label = h->tag_labels;

	(void)arg;
	for (uint32_t i = 0; i < k; i++)
		label += strlen(label) + 1;
	return xstrdup(label);
}

static int tagged(struct heap *h, const struct objset *set, const char *arg,
		  struct insp_result *r, struct progress *p, struct sbuf *err)
{
	node_t *list = xmalloc((h->ntags + 1) * sizeof *list);
	uint32_t *key = xmalloc((h->ntags + 1) * sizeof *key);
	uint64_t n = 0;

	(void)arg;
	(void)err;
	(void)p;
	for (uint64_t i = 0; i < h->ntags; i++) /* by node: each label's list ascends */
		if (objset_has(set, h->tag_node[i])) {
			list[n] = h->tag_node[i];
			key[n++] = h->tag_label[i];
		}
	groups_by_key(r, h, list, key, n, h->tag_nlabels, IP_LOW, 1, name_label, NULL);
	free(list);
	free(key);
	r->examined = set->count;
	return 0;
}

static char *name_floating(const struct heap *h, void *arg, uint32_t c)
{
	(void)arg;
	return xstrdup(class_name(h, c));
}

/* HIGH when the bytes are >= 10% of the heap, MEDIUM >= 1%, else LOW. */
static enum insp_priority prio_share(const struct heap *h, uint64_t bytes)
{
	uint64_t total = h->retained[0];

	if (bytes > 0 && bytes * 10 >= total)
		return IP_HIGH;
	if (bytes > 0 && bytes * 100 >= total)
		return IP_MEDIUM;
	return IP_LOW;
}

/* Objects whose immediate dominator is the virtual root though they are
 * no root (nor pseudo root) themselves: two or more roots' subgraphs
 * reach them, so nothing below the root keeps them alone. The idoms are
 * those of the rules applied, so an `owns` rule that names one holder
 * takes the object out. */
static int floating(struct heap *h, const struct objset *set, const char *arg,
		    struct insp_result *r, struct progress *p, struct sbuf *err)
{
	uint64_t n = 0;

	(void)arg;
	(void)err;
	(void)p;
	for (node_t v = 1; v < h->n; v++)
		n += h->idom[v] == 0 && objset_has(set, v);
	node_t *list = xmalloc((n + 1) * sizeof *list);
	n = 0;
	for (node_t v = 1; v < h->n; v++) {
		if (h->idom[v] != 0 || !objset_has(set, v))
			continue;
		size_t k = lower_bound_u32(h->roots, h->nroots, v);
		if (k == h->nroots || h->roots[k] != v)
			list[n++] = v;
	}
	size_t first = r->n;
	groups_by_class(r, h, list, n, IP_LOW, 1, name_floating, NULL);
	for (size_t i = first; i < r->n; i++)
		r->g[i].priority = prio_share(h, r->g[i].extra);
	free(list);
	r->examined = set->count;
	return 0;
}

const struct inspection insp_refs[] = {
	{ "weak-reachable", "References", "Objects reachable only through soft, weak, finalizer "
	  "or phantom references, by the strongest kind", NULL, 0, "retained", 1, weak_reachable, 1, NULL, 0 },
	{ "pending-finalization", "References", "Objects that only their Finalizer keeps: "
	  "finalize() runs before they are freed", NULL, 0, "retained", 1, pending_finalization, 0, NULL, 0 },
	{ "unowned", "Rules", "Objects reachable only through references a rule calls weak",
	  NULL, 0, "retained", 1, unowned, 0, NULL, 0 },
	{ "ambiguous-owners", "Rules", "Objects with two owners of equal weight", NULL, 0,
	  NULL, 0, ambiguous_owners, 0, NULL, 0 },
	{ "tagged", "Rules", "Objects a rule tags, by label", NULL, 0, "retained", 1, tagged, 0, NULL, 0 },
	{ "floating", "Rules", "Objects no GC root holds that only the virtual root dominates "
	  "(held from several places: where an owns rule helps), by class", NULL, 0, "retained", 1,
	  floating, 1, NULL, 0 },
	{ .name = NULL },
};
