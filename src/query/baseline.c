/* baseline.c — old, new and gone objects, and class deltas; see baseline.h. */
#include "query/baseline.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/open.h"
#include "graph/reader.h"
#include "graph/resident.h"
#include "query/match.h"

static void when(uint64_t ms, char *out, size_t n)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	if (ms == 0 || gmtime_r(&t, &tm) == NULL)
		snprintf(out, n, "an unknown time");
	else
		strftime(out, n, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

/* Old: every object that is neither new nor not identified (the heap's
 * totals less theirs). */
static void count_old(const struct heap *h, struct baseline *b)
{
	b->nold = (h->n - 1) - b->fresh.count - b->unknown.count;
	b->old_bytes = h->total_shallow - b->fresh.shallow - b->unknown.shallow;
}

int baseline_has_mark(const struct heap *h)
{
	struct sbuf ignored;

	if (h->agent.present)
		return h->agent.marks > 0;
	if (h->fmt == NULL || h->fmt->mark == NULL)
		return 0;
	sbuf_init(&ignored);
	int r = h->fmt->mark(h, NULL, NULL, NULL, &ignored);
	sbuf_free(&ignored);
	return r != 0;
}

/* The mark the format's files record (format_ops.mark): 0 with b made,
 * 1 when there is none, -1 with err. */
static int from_format_mark(struct heap *h, struct baseline *b, struct sbuf *err)
{
	struct sbuf how;
	uint8_t *old = NULL;
	int exact = 0;

	if (h->fmt == NULL || h->fmt->mark == NULL)
		return 1;
	heap_need(h, HP_NODES, NULL);
	sbuf_init(&how);
	int r = h->fmt->mark(h, &old, &exact, &how, err);
	if (r <= 0) {
		sbuf_free(&how);
		return r < 0 ? -1 : 1;
	}
	b->mode = BL_MARK;
	b->inexact = !exact;
	b->how = sbuf_detach(&how);
	objset_empty(h, &b->fresh);
	for (node_t v = 1; v < h->n; v++)
		if (!old[v])
			bit_set(b->fresh.bits, v);
	free(old);
	objset_recount(h, &b->fresh);
	count_old(h, b);
	return 0;
}

int baseline_from_mark(struct heap *h, struct baseline *b, struct sbuf *err)
{
	memset(b, 0, sizeof *b);
	if (!h->agent.present) {
		int r = from_format_mark(h, b, err);
		if (r <= 0)
			return r;
		/* whoever wrote it (a runtime, a tool, heapwalk without a mark) */
		if (h->nsnaps > 1 && h->snap > 1)
			sbuf_printf(err, "no baseline: the dump has no mark and no --baseline was given: give "
				    "--baseline OLD, or an earlier heapshot of this file (--baseline FILE:N, N below %u)",
				    h->snap);
		else
			sbuf_adds(err, "no baseline: the dump has no mark and no --baseline was given: give --baseline "
				  "OLD, or a dump heapwalk took after a mark (heapwalk mark PID, then heapwalk snapshot "
				  "PID FILE: a JVM or .NET process)");
		return -1;
	}
	if (h->agent.marks == 0) {
		sbuf_adds(err, "no baseline: the agent wrote this dump before any mark (heapwalk mark PID "
			  "first), and no --baseline was given");
		return -1;
	}
	heap_need(h, HP_NODES, NULL);
	b->mode = BL_MARK;
	objset_empty(h, &b->fresh);
	/* nodes are in id order: the new ones are a tail */
	for (node_t v = h->n - 1; v >= 1 && heap_node_id(h, v) > h->agent.watermark; v--)
		bit_set(b->fresh.bits, v);
	objset_recount(h, &b->fresh);
	count_old(h, b);
	return 0;
}

/* Is v's id one that names it (always, without a format's word)? */
static int identifies(const struct heap *h, node_t v, int ids)
{
	return !ids || h->fmt->id_identifies(h, v);
}

/* An object of h alone (i) or of old alone (j): new or gone when its id
 * names it, else not identified. */
static void mark_new(const struct heap *h, node_t i, int ids, struct baseline *b)
{
	bit_set(identifies(h, i, ids) ? b->fresh.bits : b->unknown.bits, i);
}

static void mark_gone(const struct heap *old, node_t j, int ids, struct baseline *b)
{
	bit_set(identifies(old, j, ids) ? b->gone.bits : b->unknown_old.bits, j);
}

/* One id in both: the same object, or (when the format says the id
 * passed to another object) one gone and one new. */
static void mark_both(const struct heap *h, node_t i, const struct heap *old, node_t j, int ids,
		      struct baseline *b)
{
	if (!ids)
		return;
	if (!identifies(h, i, ids) || !identifies(old, j, ids)) {
		mark_new(h, i, ids, b);
		mark_gone(old, j, ids, b);
		return;
	}
	int telling = h->fmt->id_in_place == NULL || !h->fmt->id_in_place(old, j, h, i);
	b->telling += (uint64_t)telling;
	if (h->fmt->id_same != NULL && !h->fmt->id_same(old, j, h, i)) {
		bit_set(b->fresh.bits, i);
		bit_set(b->gone.bits, j);
		b->reused++;
		b->passed_on += (uint64_t)telling;
	}
}

/* Ids that last within a process name other objects in h and old: more
 * than one in a hundred of those both have (but the pairs a change in
 * place could make, id_in_place: alike or not, they tell nothing) have
 * passed to an object of another type, class or text. While its
 * numbering lasts, an id passes on only now and then, to a new object at
 * a dead one's address. Numbered afresh between the two, or two
 * processes: the words, owned, or NULL. */
static char *ids_other_objects(const struct heap *h, const struct heap *old, const struct baseline *b)
{
	if (b->passed_on == 0 || 100 * b->passed_on <= b->telling)
		return NULL;
	return xasprintf("%s name other objects in the two dumps (of the %llu ids both have that no change in place "
			 "could explain, %llu passed to an object of another type, class or text): %s%s, or they come "
			 "from two processes", h->fmt->id_source, (unsigned long long)b->telling,
			 (unsigned long long)b->passed_on,
			 h->fmt->id_reset != NULL ? h->fmt->id_reset : "the runtime numbered its objects afresh",
			 h->fmt->id_reset != NULL ? "" : " between them");
}

/* h against old by content and references (match.h): BL_MATCHED,
 * inferred; why (owned, or NULL) says why no ids could tell. */
static void matched(struct heap *h, struct heap *old, struct baseline *b, char *why, struct progress *p)
{
	struct match_result r;

	match_dumps(old, h, 0, &r, p);
	b->mode = BL_MATCHED;
	b->old = old;
	b->fresh = r.fresh;
	b->gone = r.gone;
	b->unknown = r.amb_new;
	b->unknown_old = r.amb_gone;
	b->took_place = r.took_place;
	b->pairs = r.pairs;
	b->pairs_unknown = r.pairs_amb;
	b->confidence = r.confidence;
	b->how = why;
	count_old(h, b);
}

/* Matching that paired no object of two heaps that have some: every
 * object would be new and every one gone, at the confidence of each
 * alone. Dumps of one process have always some in common (classes,
 * strings, what lives long); none: two programs, or a dump whose type
 * names are missing (dotnet-gcdump's UNKNOWN 0x...). -1, err set. */
static int nothing_paired(const struct heap *h, const struct heap *old, struct baseline *b, struct sbuf *err)
{
	if (b->pairs > 0 || h->n <= 1 || old->n <= 1)
		return 0;
	sbuf_printf(err, "no object of %s pairs with one of %s by class and contents: nothing tells which "
		    "objects are new (dumps of two programs, or one whose type names are missing)", old->path, h->path);
	baseline_free(b);
	return -1;
}

/* Both node lists are in id order: one merge. */
static void merge_ids(const struct heap *h, const struct heap *old, int ids, struct baseline *b)
{
	node_t i = 1, j = 1;
	uint64_t a = i < h->n ? heap_node_id(h, i) : 0, o = j < old->n ? heap_node_id(old, j) : 0;

	while (i < h->n || j < old->n) {
		if (j >= old->n || (i < h->n && a < o)) {
			mark_new(h, i, ids, b);
			if (++i < h->n)
				a = heap_node_id(h, i);
		} else if (i >= h->n || o < a) {
			mark_gone(old, j, ids, b);
			if (++j < old->n)
				o = heap_node_id(old, j);
		} else {
			mark_both(h, i, old, j, ids, b);
			if (++i < h->n)
				a = heap_node_id(h, i);
			if (++j < old->n)
				o = heap_node_id(old, j);
		}
	}
}

/* By ids: the new objects that took a gone, smaller one's place, for
 * the leaks' clusters to look through (match.h's took_place): an old
 * object refers to the new one by the name by which it referred to a
 * gone one of the same class and less size (a list's grown array; an
 * object of one size put in a field in another's place is not one).
 * Holders of a few fields only (HOLDER_MAX references: a list, a map, a
 * JS array's object): an array's elements are no container's place, and
 * a new element of an old big array would cost a look at all of it. */
#define HOLDER_MAX 64
void baseline_places(struct heap *h, struct baseline *b, struct progress *p)
{
	struct heap *old = b->old;
	struct sbuf la, lb;

	if (b->mode != BL_IDS || b->took_place.bits != NULL)
		return; /* matched: made by the matching; else none */

	heap_need(h, HP_IN | HP_OUT | HP_CLASS | HP_SHALLOW, p);
	heap_need(old, HP_OUT | HP_CLASS | HP_SHALLOW, p);
	objset_empty(h, &b->took_place);
	sbuf_init(&la);
	sbuf_init(&lb);
	for (node_t v = 1; v < h->n; v++) {
		if (!objset_has(&b->fresh, v) || baseline_unknown(b, v))
			continue;
		const char *cls = class_match_name(h, h->node_class[v], 0);
		for (edge_t e = h->in_start[v]; e < h->in_start[v + 1] && !bit_get(b->took_place.bits, v); e++) {
			node_t q = h->in[e], o;
			if (q == 0 || objset_has(&b->fresh, q) || baseline_unknown(b, q) ||
			    h->out_start[q + 1] - h->out_start[q] > HOLDER_MAX ||
			    (o = heap_find_id(old, heap_node_id(h, q))) == HW_NONE ||
			    old->out_start[o + 1] - old->out_start[o] > HOLDER_MAX)
				continue;
			sbuf_reset(&la); /* made when a candidate comes */
			for (edge_t f = old->out_start[o]; f < old->out_start[o + 1]; f++) {
				node_t a = old->out[f];
				if (!objset_has(&b->gone, a) || old->node_shallow[a] >= h->node_shallow[v] ||
				    strcmp(class_match_name(old, old->node_class[a], 0), cls) != 0)
					continue;
				if (la.len == 0)
					heap_edge_label(h, q, v, &la);
				sbuf_reset(&lb);
				heap_edge_label(old, o, a, &lb);
				if (strcmp(la.buf, lb.buf) == 0) {
					bit_set(b->took_place.bits, v);
					break;
				}
			}
		}
	}
	objset_recount(h, &b->took_place);
	sbuf_free(&la);
	sbuf_free(&lb);
}

/* Heaps of two runs of the program, as their files (both of one format)
 * or their objects tell: no object of one is one of the other's, and
 * pairing them by content would pass lookalikes off as the same. 1 with
 * why in err. */
static int two_runs(struct heap *h, struct heap *old, struct progress *p, struct sbuf *err)
{
	struct sbuf wa, wb;
	uint64_t a = 0, b = 0;
	int known = 0;

	sbuf_init(&wa);
	sbuf_init(&wb);
	if (h->fmt != NULL && h->fmt == old->fmt && h->fmt->run_key != NULL &&
	    h->fmt->run_key(old, &a, &wa) == 1 && h->fmt->run_key(h, &b, &wb) == 1)
		known = 1;
	const struct runtime_ops *rt = h->fmt != NULL ? h->fmt->rt : NULL;
	if (!known && rt != NULL && old->fmt != NULL && old->fmt->rt == rt && rt->run_key != NULL) {
		heap_need(h, HP_NODES, p);
		heap_need(old, HP_NODES, p);
		sbuf_reset(&wa);
		sbuf_reset(&wb);
		known = rt->run_key(old, &a, &wa) == 1 && rt->run_key(h, &b, &wb) == 1;
	}
	if (known && a != b)
		sbuf_printf(err, "%s and %s are heaps of two runs of the program (%s; %s): no object of one is one "
			    "of the other's, there is nothing to compare object by object", old->path, h->path, wa.buf,
			    wb.buf);
	sbuf_free(&wa);
	sbuf_free(&wb);
	return known && a != b;
}

/* Where the heapshots' numbers or the dumps' times say that old is the
 * later one: -1, err set. */
static int out_of_order(const struct heap *h, const struct heap *old, struct sbuf *err)
{
	uint64_t t_old = old->agent.present ? old->agent.dump_ms : old->timestamp_ms;
	uint64_t t_new = h->agent.present ? h->agent.dump_ms : h->timestamp_ms;
	if (old->nsnaps > 0 && h->nsnaps > 0 && strcmp(old->path, h->path) == 0 && old->snap > h->snap) {
		sbuf_printf(err, "the baseline, heapshot %u of %s, is later than heapshot %u: give the earlier "
			    "heapshot as the baseline", old->snap, old->path, h->snap);
		return -1;
	}
	if (t_old > t_new && t_new != 0) { /* a dump of no time (a .gcdump's) is no later nor earlier */
		char a[40], c[40];
		when(t_old, a, sizeof a);
		when(t_new, c, sizeof c);
		sbuf_printf(err, "the baseline %s (%s) is later than %s (%s): give the earlier dump as the baseline",
			    old->path, a, h->path, c);
		return -1;
	}
	return 0;
}

/* order_only: whether old is the earlier is all that is wanted (by ids:
 * cheap), not the answer; 0 without one where ids tell no order. */
static int compare_dumps(struct heap *h, struct heap *old, struct baseline *b,
			 struct progress *p, struct sbuf *err, int order_only)
{
	memset(b, 0, sizeof *b);
	/* what no order of the two mends, first: then which is the later */
	if (h->agent.present && old->agent.present && h->agent.session != old->agent.session) {
		sbuf_printf(err, "%s and %s come from different JVMs (agent sessions %016llx and %016llx): "
			    "there is nothing to compare object by object", old->path, h->path,
			    (unsigned long long)old->agent.session, (unsigned long long)h->agent.session);
		return -1;
	}
	if (h->fmt != NULL && old->fmt != NULL && h->fmt->runtime != NULL && old->fmt->runtime != NULL &&
	    strcmp(h->fmt->runtime, old->fmt->runtime) != 0) {
		sbuf_printf(err, "%s is a heap of %s and %s one of %s: no object of one runtime is one of the "
			    "other's, there is nothing to compare object by object", old->path, old->fmt->runtime,
			    h->path, h->fmt->runtime);
		return -1;
	}
	if (two_runs(h, old, p, err)) {
		b->two_runs = 1;
		return -1;
	}
	if (out_of_order(h, old, err) < 0)
		return -1;
	/* the baseline is the dump itself (one file, one heap of it, made
	 * into the same nodes): every object is itself, whatever the ids */
	int itself = h->file_ino != 0 && h->file_dev == old->file_dev && h->file_ino == old->file_ino &&
		     h->file_mtime_s == old->file_mtime_s && h->file_mtime_ns == old->file_mtime_ns &&
		     h->size == old->size && h->file_size == old->file_size; /* as both were when mapped */
	/* or a copy of it: the same bytes read the same way make the same
	 * nodes (a .NET trace's copy was compared by content, most of it
	 * left unidentified: a trial) */
	if (h->snap == old->snap && h->n == old->n && h->total_shallow == old->total_shallow &&
	    (itself || heap_same_bytes(h, old))) {
		b->mode = BL_FILE;
		b->old = old;
		b->how = itself ? xasprintf("exact: the dump is its own baseline (%s): every object is itself", old->path)
			 : xasprintf("exact: %s holds the same bytes as %s: every object is itself", h->path, old->path);
		objset_empty(h, &b->fresh);
		objset_empty(old, &b->gone);
		count_old(h, b);
		return 0;
	}
	/* a file of several heaps may tell which objects are the same */
	char *why_not = NULL;
	if (h->fmt != NULL && h->fmt == old->fmt && h->fmt->identity != NULL) {
		struct sbuf how, why;
		sbuf_init(&how);
		sbuf_init(&why);
		heap_need(h, HP_NODES, p);
		heap_need(old, HP_NODES, p);
		node_t *same = xmalloc(((size_t)h->n + 1) * sizeof *same);
		if (h->fmt->identity(h, old, same, &how, &why) == 0) {
			b->mode = BL_FILE;
			b->old = old;
			b->how = sbuf_detach(&how);
			b->part_inferred = strncmp(b->how, "inferred for ", 13) == 0;
			objset_empty(h, &b->fresh);
			objset_empty(old, &b->gone);
			for (node_t v = 1; v < old->n; v++)
				bit_set(b->gone.bits, v);
			for (node_t v = 1; v < h->n; v++)
				if (same[v] == HW_NONE || same[v] == 0 || same[v] >= old->n)
					bit_set(b->fresh.bits, v);
				else
					bit_clear(b->gone.bits, same[v]);
			free(same);
			sbuf_free(&why);
			objset_recount(h, &b->fresh);
			objset_recount(old, &b->gone);
			count_old(h, b);
			return 0;
		}
		free(same);
		sbuf_free(&how);
		why_not = sbuf_detach(&why);
	}
	/* a format whose ids last within a process (V8's) says which */
	int ids = h->fmt != NULL && h->fmt == old->fmt && h->fmt->id_identifies != NULL;
	if (!ids && (!h->agent.present || !old->agent.present)) {
		/* ids are addresses: pair the objects by what they are */
		matched(h, old, b, why_not, p);
		return nothing_paired(h, old, b, err);
	}
	/* ids the runtime cleared after the old dump was written (V8's when
	 * an inspector session closes): not the content of the dumps but
	 * where the old one came from says so */
	const char *ended = ids && old->fmt->ids_ended != NULL ? old->fmt->ids_ended(old) : NULL;
	if (ended != NULL) {
		free(why_not);
		matched(h, old, b, xstrdup(ended), p);
		return nothing_paired(h, old, b, err);
	}
	free(why_not);
	heap_need(h, HP_NODES, p);
	heap_need(old, HP_NODES, p);
	b->mode = BL_IDS;
	b->old = old;
	objset_empty(h, &b->fresh);
	objset_empty(old, &b->gone);
	if (ids) {
		objset_empty(h, &b->unknown);
		objset_empty(old, &b->unknown_old);
	}
	merge_ids(h, old, ids, b);
	char *other = ids ? ids_other_objects(h, old, b) : NULL;
	if (other != NULL) { /* the ids tell nothing: the objects paired by what they are */
		baseline_free(b);
		if (order_only) {
			free(other);
			return 0;
		}
		matched(h, old, b, other, p);
		return nothing_paired(h, old, b, err);
	}
	objset_recount(h, &b->fresh);
	objset_recount(old, &b->gone);
	if (ids) {
		objset_recount(h, &b->unknown);
		objset_recount(old, &b->unknown_old);
		/* a runtime that numbers objects as it first meets them (V8)
		 * gives the ones made after the old dump ids above all of its;
		 * most new ones below its highest: the dumps are the other way
		 * round, or of two processes (V8's own snapshots say no time) */
		uint64_t top = 0, below = 0;
		for (node_t v = 1; v < old->n; v++)
			if (!objset_has(&b->unknown_old, v) && heap_node_id(old, v) > top)
				top = heap_node_id(old, v);
		for (node_t v = 1; v < h->n; v++)
			if (objset_has(&b->fresh, v) && heap_node_id(h, v) < top)
				below++;
		if (b->fresh.count > 0 && 2 * below > b->fresh.count) {
			sbuf_printf(err, "%s's new objects have ids below %s's highest (%llu of %llu): %s is the later "
				    "dump, they come from two processes, or %s; give the earlier dump of one process as "
				    "the baseline", h->path, old->path, (unsigned long long)below,
				    (unsigned long long)b->fresh.count, old->path,
				    h->fmt->id_reset != NULL ? h->fmt->id_reset : "the runtime numbered its objects afresh "
										  "between them");
			baseline_free(b);
			return -1;
		}
	}
	count_old(h, b);
	return 0;
}

/* A dump cut short lacks what followed the cut: an object of the other
 * dump that it does not have may lie past it. Those the comparison
 * called gone (the current dump cut) or new (the baseline cut) are not
 * identified instead, and the answer is not exact (b->partial says why). */
static void cut_short(struct heap *h, struct heap *old, struct baseline *b)
{
	struct objset *was[2] = { &b->gone, &b->fresh }, *to[2] = { &b->unknown_old, &b->unknown };
	struct heap *cut[2] = { h, old }, *of[2] = { old, h };
	struct sbuf why;

	sbuf_init(&why);
	for (int k = 0; k < 2; k++) {
		if (cut[k]->truncated_at == 0)
			continue;
		sbuf_printf(&why, "%s%s is truncated at offset %llu: what %s has and it lacks may lie past the cut, "
			    "counted not identified, not %s", why.len ? "; " : "", cut[k]->path,
			    (unsigned long long)cut[k]->truncated_at, of[k]->path, k == 0 ? "gone" : "new");
		if (to[k]->bits == NULL)
			objset_empty(of[k], to[k]);
		for (node_t v = 1; v < of[k]->n; v++)
			if (was[k]->bits != NULL && objset_has(was[k], v)) {
				bit_clear(was[k]->bits, v);
				bit_set(to[k]->bits, v);
			}
		if (was[k]->bits != NULL)
			objset_recount(of[k], was[k]);
		objset_recount(of[k], to[k]);
	}
	if (why.len > 0) {
		b->partial = sbuf_detach(&why);
		b->inexact = 1;
		if (b->unknown.bits == NULL) /* both or neither: the views count them per class */
			objset_empty(h, &b->unknown);
		if (b->unknown_old.bits == NULL)
			objset_empty(old, &b->unknown_old);
		count_old(h, b);
	}
	sbuf_free(&why);
}

/* Paired by content, new and gone would only swap were the dumps the
 * other way round: where a dump says not when it was taken (a .gcdump,
 * a V8 snapshot), that the baseline is the earlier is taken on trust,
 * and said. Ids that number objects as they come (V8's) say it where
 * they compare (compare_dumps); heapshots of one file by their number. */
static void unordered(const struct heap *h, const struct heap *old, struct baseline *b)
{
	uint64_t t_old = old->agent.present ? old->agent.dump_ms : old->timestamp_ms;
	uint64_t t_new = h->agent.present ? h->agent.dump_ms : h->timestamp_ms;

	if (b->mode != BL_MATCHED || (t_old != 0 && t_new != 0) ||
	    (old->nsnaps > 0 && h->nsnaps > 0 && strcmp(old->path, h->path) == 0))
		return;
	if (t_old == 0 && t_new == 0)
		b->unordered = xasprintf("neither %s nor %s says when it was taken: which is the earlier is not "
					 "checked, %s (the baseline) taken to be", old->path, h->path, old->path);
	else
		b->unordered = xasprintf("%s says not when it was taken: which is the earlier is not checked, %s "
					 "(the baseline) taken to be", t_old == 0 ? old->path : h->path, old->path);
}

int baseline_compare(struct heap *h, struct heap *old, struct baseline *b,
		     struct progress *p, struct sbuf *err)
{
	if (compare_dumps(h, old, b, p, err, 0) < 0)
		return -1;
	cut_short(h, old, b);
	unordered(h, old, b);
	return 0;
}

int baseline_in_order(struct heap *h, struct heap *old, struct progress *p, struct sbuf *err)
{
	struct baseline b;

	if (out_of_order(h, old, err) < 0)
		return -1;
	/* ids that last within a process (V8's) say it too, as they are
	 * merged: cheap, where pairing by content is not (nor where the
	 * runtime cleared them after the old dump: no order in them) */
	if (h->fmt == NULL || h->fmt != old->fmt || h->fmt->id_identifies == NULL ||
	    (old->fmt->ids_ended != NULL && old->fmt->ids_ended(old) != NULL))
		return 0;
	if (compare_dumps(h, old, &b, p, err, 1) < 0)
		return -1;
	baseline_free(&b);
	return 0;
}

void baseline_free(struct baseline *b)
{
	objset_free(&b->fresh);
	objset_free(&b->gone);
	objset_free(&b->unknown);
	objset_free(&b->unknown_old);
	objset_free(&b->took_place);
	free(b->how);
	free(b->partial);
	free(b->unordered);
	memset(b, 0, sizeof *b);
}

static void num_bytes(struct sbuf *out, const char *what, uint64_t n, uint64_t bytes)
{
	char hb[32];

	fmt_bytes(hb, sizeof hb, bytes);
	sbuf_printf(out, "%s %llu (%s)", what, (unsigned long long)n, hb);
}

/* "inferred (N%)" and then: the confidence of new, where there are new
 * objects (of none, no figure says anything) */
static void inferred(const struct baseline *b, struct sbuf *out, const char *then)
{
	if (b->fresh.count > 0)
		sbuf_printf(out, "inferred (%.0f%%)%s", b->confidence * 100.0, then);
	else
		sbuf_printf(out, "inferred%s", then);
}

/* "exact except N objects inferred: ..." (a .NET mark's replay, in any
 * mode) or "inferred for N objects counted old, exact for the rest: ...":
 * some objects' identity inferred, the rest exact */
int baseline_partly_inferred(const struct baseline *b)
{
	return b->part_inferred || (b->how != NULL && strncmp(b->how, "exact except ", 13) == 0);
}

int baseline_exact(const struct baseline *b)
{
	return b->mode != BL_MATCHED && !b->inexact && !baseline_partly_inferred(b) &&
	       (b->unknown.bits == NULL || (b->unknown.count == 0 && b->unknown_old.count == 0));
}

void baseline_summary(const struct baseline *b, struct sbuf *out)
{
	if (b->mode == BL_MATCHED) /* first, so that a narrow screen still says it */
		inferred(b, out, ": ");
	else if (b->inexact)
		sbuf_adds(out, "not exact: ");
	else if (baseline_partly_inferred(b)) { /* "exact except 10 objects inferred: " */
		sbuf_add(out, b->how, strcspn(b->how, ":"));
		sbuf_adds(out, ": ");
	}
	num_bytes(out, "new", b->fresh.count, b->fresh.shallow);
	num_bytes(out, ", old", b->nold, b->old_bytes);
	if (baseline_has_old(b))
		num_bytes(out, ", gone", b->gone.count, b->gone.shallow);
	if (b->unknown.count + b->unknown_old.count > 0)
		sbuf_printf(out, "; %s %llu (%llu before)", b->mode == BL_MATCHED ? "ambiguous" : "not identified",
			    (unsigned long long)b->unknown.count, (unsigned long long)b->unknown_old.count);
}

/* By ids of a format's that some objects' ids do not name (V8's), not
 * the agent's tags */
static int by_format_ids(const struct baseline *b)
{
	return b->mode == BL_IDS && b->old->fmt != NULL && b->old->fmt->id_identifies != NULL;
}

void baseline_label(const struct baseline *b, struct sbuf *out)
{
	if (b->mode == BL_MATCHED)
		inferred(b, out, b->partial ? ", a dump cut short" : b->unordered ? ", the order not checked" : "");
	else if (b->partial != NULL)
		sbuf_adds(out, "not exact: a dump cut short");
	else if (b->inexact && b->how != NULL && strncmp(b->how, "not exact", 9) == 0)
		sbuf_adds(out, b->how); /* a mark's reason says so itself */
	else if (b->inexact)
		sbuf_printf(out, "not exact: %s", b->how ? b->how : "");
	else if (baseline_partly_inferred(b)) /* "exact except N objects inferred", "inferred for N objects counted
					* old, exact for the rest" */
		sbuf_add(out, b->how, strcspn(b->how, ":"));
	else if (by_format_ids(b))
		sbuf_adds(out, "exact for the objects whose ids identify them");
	else
		sbuf_adds(out, "exact");
}

void baseline_source(const struct heap *h, const struct baseline *b, struct sbuf *out)
{
	char t[40];

	if (b->partial != NULL && b->mode != BL_MATCHED) /* first: what follows holds of the others only */
		sbuf_printf(out, "not exact: %s; the others ", b->partial);
	if (b->mode == BL_MARK && b->how != NULL) {
		sbuf_adds(out, b->how);
	} else if (b->mode == BL_MARK) {
		when(h->agent.mark_ms, t, sizeof t);
		sbuf_printf(out, "exact: mark %llu of the agent, at %s", (unsigned long long)h->agent.marks, t);
	} else if (by_format_ids(b)) {
		sbuf_printf(out, "exact for the objects %s identify, against %s (an id that passed to an "
			    "object of another type, class or text counts as one gone and one new: %llu); not "
			    "identified, class deltas only: %llu objects now and %llu before, the %s",
			    h->fmt->id_source, b->old->path, (unsigned long long)b->reused,
			    (unsigned long long)b->unknown.count, (unsigned long long)b->unknown_old.count,
			    h->fmt->id_unknown);
	} else if (b->mode == BL_IDS) {
		when(b->old->agent.dump_ms, t, sizeof t);
		sbuf_printf(out, "exact: stable ids, against %s (dumped at %s)", b->old->path, t);
	} else if (b->mode == BL_FILE) {
		sbuf_adds(out, b->how);
	} else if (b->mode == BL_MATCHED) {
		sbuf_printf(out, "inferred: %llu object%s of %s paired by content and references",
			    (unsigned long long)b->pairs, b->pairs == 1 ? "" : "s", b->old->path);
		if (b->pairs_unknown > 0) /* the pairs a guess made: not old (see ambiguous below) */
			sbuf_printf(out, ", %llu of them unidentified", (unsigned long long)b->pairs_unknown);
		if (b->fresh.count > 0)
			sbuf_printf(out, "; confidence of new %.1f%%", b->confidence * 100.0);
		if (b->unknown.count || b->unknown_old.count)
			sbuf_printf(out, "; ambiguous: %llu objects now and %llu before have lookalikes (class "
				    "and contents) that nothing tells apart from them, unpaired or paired only by "
				    "their place among them, or were paired from such a pair: they are neither "
				    "new, old nor gone, counted per class as unidentified",
				    (unsigned long long)b->unknown.count, (unsigned long long)b->unknown_old.count);
		if (b->how != NULL)
			sbuf_printf(out, " (not exact: %s)", b->how);
	}
	if (b->partial != NULL && b->mode == BL_MATCHED)
		sbuf_printf(out, "; not exact: %s", b->partial);
	if (b->unordered != NULL)
		sbuf_printf(out, "; %s", b->unordered);
}

/* ---- class deltas ---- */

/* name: what classes match by (class_match_name), shown: what a row says */
struct named { const char *name, *shown; uint32_t c; };

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct named *)a)->name, ((const struct named *)b)->name);
}

static struct named *sorted_classes(const struct heap *h, int qual)
{
	struct named *v = xmalloc(((size_t)h->ncls + 1) * sizeof *v);

	for (uint32_t c = 0; c < h->ncls; c++)
		v[c] = (struct named){ class_match_name(h, c, qual), class_name(h, c), c };
	hw_qsort(v, h->ncls, sizeof *v, by_name);
	return v;
}

static int by_shown(const void *a, const void *b, void *ctx)
{
	const struct class_delta *rows = ctx;

	return strcmp(rows[*(const size_t *)a].name, rows[*(const size_t *)b].name);
}

/* Rows matched by qualified names (keys[r]) and shown by a dump's names:
 * two rows of one shown name (a name the other dump had of one module
 * and this of another) say their qualified names. */
static void shown_apart(struct diff_view *v, const char **keys)
{
	size_t *by = xmalloc((v->n + 1) * sizeof *by);

	for (size_t r = 0; r < v->n; r++)
		by[r] = r;
	hw_sort(by, v->n, sizeof *by, by_shown, v->rows);
	for (size_t r = 0, e; r < v->n; r = e) {
		for (e = r + 1; e < v->n && strcmp(v->rows[by[e]].name, v->rows[by[r]].name) == 0; e++)
			;
		for (size_t k = r; e - r > 1 && k < e; k++)
			v->rows[by[k]].name = keys[by[k]];
	}
	free(by);
}

static int64_t growth(const struct class_delta *d)
{
	return (int64_t)d->bytes - (int64_t)d->old_bytes;
}

static int by_growth(const void *a, const void *b)
{
	const struct class_delta *x = a, *y = b;
	int64_t gx = growth(x), gy = growth(y);

	if (gx != gy)
		return gx > gy ? -1 : 1;
	int64_t cx = (int64_t)x->count - (int64_t)x->old_count, cy = (int64_t)y->count - (int64_t)y->old_count;
	if (cx != cy)
		return cx > cy ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The objects not identified, per row. */
static void count_unknown(const struct heap *old, const struct heap *h, const struct baseline *b,
			  const uint32_t *row_old, const uint32_t *row_new, struct diff_view *v)
{
	if (b->unknown.bits == NULL)
		return;
	for (node_t x = 1; x < h->n; x++)
		if (objset_has(&b->unknown, x) && h->node_class[x] != HW_NONE)
			v->rows[row_new[h->node_class[x]]].unknown++;
	for (node_t x = 1; x < old->n; x++)
		if (objset_has(&b->unknown_old, x) && old->node_class[x] != HW_NONE)
			v->rows[row_old[old->node_class[x]]].unknown_old++;
	v->have_unknown = b->unknown.count + b->unknown_old.count > 0;
}

/* What exact promises: the identified objects of a class change by new
 * less gone. A row where they do not is flagged, never left silent. */
static void check_rows(struct diff_view *v)
{
	for (size_t r = 0; r < v->n; r++) {
		struct class_delta *d = &v->rows[r];
		int64_t ident = ((int64_t)d->count - (int64_t)d->unknown) - ((int64_t)d->old_count - (int64_t)d->unknown_old);
		d->unexplained = ident - ((int64_t)d->new_count - (int64_t)d->gone_count);
		v->unexplained += d->unexplained != 0;
	}
}

/* a hidden class's name up to its address (runtime_ops.class_key_len) */
struct start { const char *s; size_t len; uint32_t c; };

/* by the start alone */
static int start_cmp(const struct start *x, const struct start *y)
{
	int c = memcmp(x->s, y->s, x->len < y->len ? x->len : y->len);

	return c != 0 ? c : (x->len > y->len) - (x->len < y->len);
}

static int cmp_start(const void *a, const void *b)
{
	const struct start *x = a, *y = b;
	int c = start_cmp(x, y);

	return c != 0 ? c : (x->c > y->c) - (x->c < y->c);
}

static int same_start(const struct start *x, const struct start *y)
{
	return start_cmp(x, y) == 0;
}

/* h's classes that have a start, sorted by it; *n of them */
static struct start *starts_of(const struct heap *h, size_t (*key_len)(const char *), size_t *n)
{
	struct start *v = xmalloc(((size_t)h->ncls + 1) * sizeof *v);

	*n = 0;
	for (uint32_t c = 0; c < h->ncls; c++) {
		size_t len = key_len(class_name(h, c));
		if (len > 0)
			v[(*n)++] = (struct start){ class_name(h, c), len, c };
	}
	hw_qsort(v, *n, sizeof *v, cmp_start);
	return v;
}

/* Is v[i]'s start v's alone? */
static int start_alone(const struct start *v, size_t n, size_t i)
{
	return (i == 0 || !same_start(&v[i - 1], &v[i])) && (i + 1 == n || !same_start(&v[i + 1], &v[i]));
}

/* Heaps of two runs: a class the runtime names by where it made it (a
 * JVM's hidden class, "Lam$$Lambda$1/0x00007f6338003a10", at another
 * address in another run) that its name left alone on each side (a row
 * of the old dump's class alone, a row of the new one's alone) is one
 * class where each dump has one class of that start and no other: the
 * new one's row takes the old one's counts. Two of one start in either
 * dump (the JDK's LambdaForm$MH/0x..., by the dozen) stay apart. */
static void pair_starts(const struct heap *old, const struct heap *h, uint32_t *row_old, const uint32_t *row_new,
			struct diff_view *v)
{
	const struct runtime_ops *rt = h->fmt != NULL ? h->fmt->rt : NULL;
	size_t na, nb;

	if (rt == NULL || rt->class_key_len == NULL || old->fmt == NULL || old->fmt->rt != rt)
		return;
	struct start *a = starts_of(old, rt->class_key_len, &na), *b = starts_of(h, rt->class_key_len, &nb);
	/* the classes of each row, by side */
	uint32_t *sides = xcalloc(2 * (v->n + 1), sizeof *sides);
	for (uint32_t c = 0; c < old->ncls; c++)
		sides[2 * row_old[c]]++;
	for (uint32_t c = 0; c < h->ncls; c++)
		sides[2 * row_new[c] + 1]++;
	for (size_t i = 0, j = 0; i < na && j < nb;) {
		int c = start_cmp(&a[i], &b[j]);
		if (c != 0) {
			if (c < 0)
				i++;
			else
				j++;
			continue;
		}
		uint32_t ro = row_old[a[i].c], rn = row_new[b[j].c];
		if (start_alone(a, na, i) && start_alone(b, nb, j) && ro != rn && sides[2 * ro] == 1 &&
		    sides[2 * ro + 1] == 0 && sides[2 * rn] == 0 && sides[2 * rn + 1] == 1) {
			v->rows[rn].old_count += v->rows[ro].old_count;
			v->rows[rn].old_bytes += v->rows[ro].old_bytes;
			v->rows[ro].old_count = v->rows[ro].old_bytes = 0; /* a row of nothing: dropped */
			row_old[a[i].c] = rn;
			sides[2 * rn]++;
			sides[2 * ro]--;
		}
		for (size_t k = i; i < na && same_start(&a[i], &a[k]); i++)
			;
		for (size_t k = j; j < nb && same_start(&b[j], &b[k]); j++)
			;
	}
	free(sides);
	free(a);
	free(b);
}

void diff_classes(const struct heap *old, const struct heap *h, const struct baseline *b, int runs_apart,
		  struct diff_view *v)
{
	int qual = classes_qualified(old, h);
	struct named *a = sorted_classes(old, qual), *n = sorted_classes(h, qual);
	uint32_t *row_old = xmalloc(((size_t)old->ncls + 1) * sizeof *row_old);
	uint32_t *row_new = xmalloc(((size_t)h->ncls + 1) * sizeof *row_new);
	const char **keys = xmalloc(((size_t)old->ncls + h->ncls + 1) * sizeof *keys);
	size_t i = 0, j = 0;

	memset(v, 0, sizeof *v);
	v->rows = xcalloc((size_t)old->ncls + h->ncls + 1, sizeof *v->rows);
	/* one row per class name: a merge of the two sorted name lists; a
	 * row shows the open dump's name where it has the class */
	while (i < old->ncls || j < h->ncls) {
		int c = i >= old->ncls ? 1 : j >= h->ncls ? -1 : strcmp(a[i].name, n[j].name);
		const char *key = c <= 0 ? a[i].name : n[j].name;
		if (v->n == 0 || strcmp(keys[v->n - 1], key) != 0) {
			keys[v->n] = key;
			v->rows[v->n++].name = c >= 0 ? n[j].shown : a[i].shown;
		}
		struct class_delta *d = &v->rows[v->n - 1];
		if (c <= 0) {
			d->old_count += old->cls[a[i].c].count;
			d->old_bytes += old->cls[a[i].c].shallow_total;
			row_old[a[i].c] = (uint32_t)(v->n - 1);
			i++;
		}
		if (c >= 0) {
			d->count += h->cls[n[j].c].count;
			d->bytes += h->cls[n[j].c].shallow_total;
			row_new[n[j].c] = (uint32_t)(v->n - 1);
			j++;
		}
	}
	if (runs_apart)
		pair_starts(old, h, row_old, row_new, v);
	if (b != NULL && b->mode != BL_NONE) {
		v->have_identity = 1;
		for (node_t x = 1; x < h->n; x++)
			if (objset_has(&b->fresh, x)) {
				struct class_delta *d = &v->rows[row_new[h->node_class[x]]];
				d->new_count++;
				d->new_bytes += h->node_shallow[x];
			}
		if (baseline_has_old(b))
			for (node_t x = 1; x < old->n; x++)
				if (objset_has(&b->gone, x)) {
					struct class_delta *d = &v->rows[row_old[old->node_class[x]]];
					d->gone_count++;
					d->gone_bytes += old->node_shallow[x];
				}
		count_unknown(old, h, b, row_old, row_new, v);
	}
	/* classes with no instances on either side say nothing */
	size_t k = 0;
	for (size_t r = 0; r < v->n; r++)
		if (v->rows[r].count || v->rows[r].old_count) {
			keys[k] = keys[r];
			v->rows[k++] = v->rows[r];
		}
	v->n = k;
	if (qual)
		shown_apart(v, keys);
	free(keys);
	if (v->have_identity && baseline_has_old(b))
		check_rows(v);
	hw_qsort(v->rows, v->n, sizeof *v->rows, by_growth);
	v->old_objects = old->n - 1;
	v->old_total = old->total_shallow;
	v->objects = h->n - 1;
	v->total = h->total_shallow;
	free(a);
	free(n);
	free(row_old);
	free(row_new);
}

void diff_view_free(struct diff_view *v)
{
	free(v->rows);
	free(v->no_identity);
	memset(v, 0, sizeof *v);
}
