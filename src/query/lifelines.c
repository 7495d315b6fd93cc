/* lifelines.c — short paths to GC roots or owned objects, grouped by
 * how they read; see lifelines.h. */
#include "query/lifelines.h"

#include <stdlib.h>
#include <string.h>

#include "graph/ownership.h"
#include "graph/reader.h"
#include "graph/rules.h"
#include "query/views.h"

#define DEFAULT_MAX 1000

struct walk {
	const struct heap *h;
	struct lifeline_view *v;
	uint32_t *dist;     /* steps from the target; UINT32_MAX: not reached */
	uint8_t *end;       /* 1: a GC root, 2: owned (the walk stops there) */
	uint8_t *alive;     /* an end lies up the shortest ways from here */
	uint32_t *owned_by; /* end 2: the owning rule */
	struct sbuf tmp;
	size_t capsteps;    /* of v->steps */
};

static uint32_t intern(struct lifeline_view *v, const char *s)
{
	for (size_t i = 0; i < v->nstrs; i++)
		if (strcmp(v->strs[i], s) == 0)
			return (uint32_t)i;
	v->strs = xreallocarray(v->strs, v->nstrs + 1, sizeof *v->strs);
	v->strs[v->nstrs] = xstrdup(s);
	return (uint32_t)v->nstrs++;
}

/* "java.util.HashMap" or "class Foo" (a class object): a holder's kind. */
static uint32_t holder_of(struct walk *w, node_t x)
{
	trace_holder(w->h, x, &w->tmp);
	return intern(w->v, w->tmp.buf);
}

/* The field src refers to dst through, array indexes as "[]": one
 * lifeline for every slot. */
static uint32_t field_of(struct walk *w, node_t src, node_t dst)
{
	trace_field(w->h, src, dst, &w->tmp);
	return intern(w->v, w->tmp.buf);
}

/* Is x where a path ends: a GC root (pseudo roots noted), or owned
 * through an owns rule (the classification's owned objects: a rule's
 * through a collection's inside, .values or .elements, too)? */
static uint8_t end_of(struct walk *w, node_t x)
{
	const struct heap *h = w->h;
	size_t i = lower_bound_u32s(h->root_rec, h->nroot_rec, sizeof *h->root_rec, x);
	int root = 0;

	for (; i < h->nroot_rec && h->root_rec[i].node == x; i++)
		if (h->root_rec[i].kind == RK_WEAK_ONLY)
			w->v->pseudo |= PATH_WEAK_ONLY;
		else if (h->root_rec[i].kind == RK_UNREACHABLE)
			w->v->pseudo |= PATH_UNREACHABLE;
		else
			root = 1;
	if (h->aroot != 0) /* an analysis root: the only root (views.c's path_end) */
		root = x == h->aroot;
	if (root)
		return 1;
	uint64_t k = lower_bound_u32(h->own_node, h->nown, x);
	if (k < h->nown && h->own_node[k] == x && h->rules != NULL && h->own_rule[k] < h->rules->n) {
		w->owned_by[x] = h->own_rule[k];
		return 2;
	}
	return 0;
}

/* Breadth first from the target: distances, ends; then, latest first,
 * which nodes have an end up their shortest ways. */
static void measure(struct walk *w, node_t target)
{
	const struct heap *h = w->h;
	node_t *queue = xmalloc(((size_t)h->n + 1) * sizeof *queue);
	size_t qh = 0, qt = 0;

	w->dist[target] = 0;
	queue[qt++] = target;
	while (qh < qt) {
		node_t x = queue[qh++];
		if (x != target || w->v->root) {
			w->end[x] = x == target ? 1 : end_of(w, x);
			if (w->end[x])
				continue;
		}
		for (edge_t j = h->in_start[x]; j < h->in_start[x + 1]; j++) {
			node_t u = h->in[j];
			if (u != 0 && w->dist[u] == UINT32_MAX) {
				w->dist[u] = w->dist[x] + 1;
				queue[qt++] = u;
			}
		}
	}
	while (qt > 0) {
		node_t x = queue[--qt];
		w->alive[x] = w->end[x] != 0;
		for (edge_t j = h->in_start[x]; !w->alive[x] && !w->end[x] && j < h->in_start[x + 1]; j++) {
			node_t u = h->in[j];
			w->alive[x] = u != 0 && w->dist[u] == w->dist[x] + 1 && w->alive[u];
		}
	}
	free(queue);
}

/* The lifeline of the path on the stack (target first, end last):
 * steps from the end down, runs of one step folded. */
static void record(struct walk *w, const node_t *stack, const uint32_t *field, size_t depth)
{
	struct lifeline_view *v = w->v;
	node_t e = stack[depth - 1];
	size_t first = v->nsteps;

	for (size_t k = depth - 1; k > 0; k--) {
		uint32_t hold = holder_of(w, stack[k]), f = field[k];
		struct lifeline_step *last = v->nsteps > first ? &v->steps[v->nsteps - 1] : NULL;
		if (last != NULL && last->holder == hold && last->field == f) {
			last->min++;
			last->max++;
			continue;
		}
		VEC_GROW(v->steps, v->nsteps, w->capsteps);
		v->steps[v->nsteps++] = (struct lifeline_step){ hold, f, 1, 1 };
	}
	struct lifeline l = { first, v->nsteps - first, 1, w->end[e] == 1 ? LE_ROOT : LE_OWNED, 0, e,
			      (uint32_t)(depth - 1) };
	sbuf_reset(&w->tmp);
	if (l.end == LE_ROOT && w->h->aroot != 0) {
		sbuf_adds(&w->tmp, "analysis root");
	} else if (l.end == LE_ROOT) {
		size_t i = lower_bound_u32s(w->h->root_rec, w->h->nroot_rec, sizeof *w->h->root_rec, e);
		while (w->h->root_rec[i].kind == RK_WEAK_ONLY || w->h->root_rec[i].kind == RK_UNREACHABLE)
			i++;
		heap_root_kind(w->h, w->h->root_rec[i].kind, w->h->root_rec[i].native, &w->tmp);
	} else {
		const struct rule *r = &w->h->rules->rules[w->owned_by[e]];
		rule_to_string(w->h->rules, r, &w->tmp);
		sbuf_printf(&w->tmp, " (%s:%u)", r->file, r->line);
	}
	l.end_what = intern(v, w->tmp.buf);
	/* the same reading as a lifeline found before: count it there */
	for (size_t i = 0; i < v->n; i++) {
		struct lifeline *o = &v->ll[i];
		if (o->end != l.end || o->end_what != l.end_what || o->n != l.n)
			continue;
		size_t s = 0;
		while (s < l.n && v->steps[o->first + s].holder == v->steps[first + s].holder &&
		       v->steps[o->first + s].field == v->steps[first + s].field)
			s++;
		if (s < l.n)
			continue;
		for (s = 0; s < l.n; s++) {
			struct lifeline_step *a = &v->steps[o->first + s], *b = &v->steps[first + s];
			a->min = b->min < a->min ? b->min : a->min;
			a->max = b->max > a->max ? b->max : a->max;
		}
		o->count++;
		v->nsteps = first;
		return;
	}
	v->ll = xreallocarray(v->ll, v->n + 1, sizeof *v->ll);
	v->ll[v->n++] = l;
}

/* Depth first over the shortest ways that lead to an end, an explicit
 * stack of (node, next referrer) frames. */
static void walk_paths(struct walk *w, node_t target)
{
	const struct heap *h = w->h;
	struct lifeline_view *v = w->v;
	size_t cap = 64, depth = 0;
	node_t *stack = xmalloc(cap * sizeof *stack);
	edge_t *next = xmalloc(cap * sizeof *next);
	uint32_t *field = xmalloc(cap * sizeof *field); /* stack[k] -> stack[k - 1] */

	if (v->root) {
		stack[0] = target;
		record(w, stack, field, 1);
		v->paths = 1;
	} else if (w->alive[target]) {
		stack[depth] = target;
		next[depth++] = h->in_start[target];
	}
	while (depth > 0) {
		node_t x = stack[depth - 1], u = 0;
		edge_t j = next[depth - 1];
		for (; j < h->in_start[x + 1]; j++) {
			u = h->in[j];
			if (u != 0 && w->dist[u] == w->dist[x] + 1 && w->alive[u])
				break;
		}
		if (j == h->in_start[x + 1]) {
			depth--;
			continue;
		}
		next[depth - 1] = j + 1;
		if (v->paths >= v->max) {
			v->limited = 1;
			break;
		}
		if (depth == cap) {
			cap *= 2;
			stack = xreallocarray(stack, cap, sizeof *stack);
			next = xreallocarray(next, cap, sizeof *next);
			field = xreallocarray(field, cap, sizeof *field);
		}
		stack[depth] = u;
		field[depth] = field_of(w, u, x);
		next[depth++] = h->in_start[u];
		if (w->end[u]) {
			record(w, stack, field, depth);
			v->paths++;
			depth--;
		}
	}
	free(stack);
	free(next);
	free(field);
}

static int cmp_ll(const void *a, const void *b)
{
	const struct lifeline *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->example_len != y->example_len)
		return x->example_len < y->example_len ? -1 : 1;
	return x->example < y->example ? -1 : x->example > y->example;
}

void view_lifelines(const struct heap *h, node_t target, uint64_t max, struct lifeline_view *v)
{
	struct walk w = { .h = h, .v = v };

	memset(v, 0, sizeof *v);
	v->target = target;
	v->max = max > 0 ? max : DEFAULT_MAX;
	for (size_t i = lower_bound_u32s(h->root_rec, h->nroot_rec, sizeof *h->root_rec, target);
	     i < h->nroot_rec && h->root_rec[i].node == target; i++)
		if (h->root_rec[i].kind == RK_WEAK_ONLY)
			v->pseudo |= PATH_WEAK_ONLY;
		else if (h->root_rec[i].kind == RK_UNREACHABLE)
			v->pseudo |= PATH_UNREACHABLE;
		else
			v->root = 1;
	if (h->aroot != 0) /* an analysis root: the only root */
		v->root = target == h->aroot;
	w.dist = xmalloc(((size_t)h->n + 1) * sizeof *w.dist);
	memset(w.dist, 0xff, ((size_t)h->n + 1) * sizeof *w.dist);
	w.end = xcalloc((size_t)h->n + 1, 1);
	w.alive = xcalloc((size_t)h->n + 1, 1);
	w.owned_by = h->nown > 0 ? xmalloc(((size_t)h->n + 1) * sizeof *w.owned_by) : NULL;
	sbuf_init(&w.tmp);
	measure(&w, target);
	walk_paths(&w, target);
	if (v->n > 0)
		v->pseudo = 0;
	hw_qsort(v->ll, v->n, sizeof *v->ll, cmp_ll);
	sbuf_free(&w.tmp);
	free(w.dist);
	free(w.end);
	free(w.alive);
	free(w.owned_by);
}

void lifeline_view_free(struct lifeline_view *v)
{
	for (size_t i = 0; i < v->nstrs; i++)
		free(v->strs[i]);
	free(v->strs);
	free(v->ll);
	free(v->steps);
	memset(v, 0, sizeof *v);
}
