/* alloctime.c — allocation times: histogram, selection, text; see
 * alloctime.h. */
#include "query/alloctime.h"

#include <stdlib.h>
#include <string.h>

#include "graph/reader.h"

/* The smallest of 1, 2, 5, 10, 20, 50... ms that is at least w. */
static uint64_t round_width(uint64_t w)
{
	for (uint64_t p = 1;; p *= 10) {
		if (w <= p)
			return p;
		if (w <= 2 * p)
			return 2 * p;
		if (w <= 5 * p)
			return 5 * p;
		if (p > UINT64_MAX / 100)
			return w;
	}
}

void view_times(struct heap *h, const struct objset *set, size_t nbuckets, struct time_view *v)
{
	const struct alloc_times *t = heap_alloc_times(h);

	memset(v, 0, sizeof *v);
	v->set_count = set->count;
	v->set_shallow = set->shallow;
	v->origin_ms = t->origin_ms;
	v->origin = t->origin;
	v->dump_timed = t->n;
	v->first = UINT64_MAX;
	for (uint64_t i = 0; i < t->n; i++) {
		if (!objset_has(set, t->node[i]))
			continue;
		v->timed_count++;
		v->timed_bytes += h->node_shallow[t->node[i]];
		v->first = t->ms[i] < v->first ? t->ms[i] : v->first;
		v->last = t->ms[i] > v->last ? t->ms[i] : v->last;
	}
	if (v->timed_count == 0) {
		v->first = 0;
		return;
	}
	if (nbuckets == 0)
		nbuckets = 1;
	uint64_t span = v->last - v->first + 1;
	v->width = round_width(span / nbuckets + (span % nbuckets != 0));
	uint64_t start = v->first - v->first % v->width;
	v->nb = (size_t)((v->last - start) / v->width + 1);
	v->b = xcalloc(v->nb, sizeof *v->b);
	for (size_t k = 0; k < v->nb; k++) {
		v->b[k].from = start + k * v->width;
		v->b[k].to = v->b[k].from + v->width - 1;
	}
	for (uint64_t i = 0; i < t->n; i++)
		if (objset_has(set, t->node[i])) {
			struct time_bucket *b = &v->b[(t->ms[i] - start) / v->width];
			b->count++;
			b->bytes += h->node_shallow[t->node[i]];
		}
}

void time_view_free(struct time_view *v)
{
	free(v->b);
	memset(v, 0, sizeof *v);
}

void time_none_note(const struct heap *h, const struct time_view *v, struct sbuf *out)
{
	if (v->dump_timed == 0)
		sbuf_printf(out, "this dump records no allocation times (%s)", heap_time_hint(h));
	else
		sbuf_printf(out, "no object of the set has an allocation time (the dump records one for %llu "
			    "objects)", (unsigned long long)v->dump_timed);
}

void time_select(struct heap *h, const struct objset *set, uint64_t from, uint64_t to, struct objset *out)
{
	const struct alloc_times *t = heap_alloc_times(h);

	objset_empty(h, out);
	for (uint64_t i = 0; i < t->n; i++)
		if ((from == TIME_OPEN || t->ms[i] >= from) && (to == TIME_OPEN || t->ms[i] <= to) &&
		    objset_has(set, t->node[i]))
			bit_set(out->bits, t->node[i]);
	objset_recount(h, out);
}

/* Seconds with up to three decimals at [p, end) into *ms: 0, or -1. */
static int seconds(const char *p, const char *end, uint64_t *ms)
{
	uint64_t s = 0, frac = 0;
	int digits = 0, decimals = -1;

	for (; p < end; p++) {
		if (*p == '.' && decimals < 0 && digits > 0) {
			decimals = 0;
			continue;
		}
		if (*p < '0' || *p > '9' || digits >= 16) /* as many as the times record may have: they read back */
			return -1;
		digits++;
		if (decimals < 0) {
			s = s * 10 + (unsigned)(*p - '0');
		} else {
			if (++decimals > 3)
				return -1;
			frac = frac * 10 + (unsigned)(*p - '0');
		}
	}
	if (digits == 0 || decimals == 0)
		return -1;
	for (int k = decimals < 0 ? 0 : decimals; k < 3; k++)
		frac *= 10;
	*ms = s * 1000 + frac;
	return 0;
}

int time_range_parse(const char *s, uint64_t *from, uint64_t *to, struct sbuf *err)
{
	const char *dots = strstr(s, "..");
	const char *end = s + strlen(s);

	if (dots == NULL || (dots == s && dots + 2 == end)) {
		sbuf_adds(err, "expected FROM..TO (seconds, ..TO and FROM.. leave an end open)");
		return -1;
	}
	*from = *to = TIME_OPEN;
	if ((dots > s && seconds(s, dots, from) < 0) || (dots + 2 < end && seconds(dots + 2, end, to) < 0)) {
		sbuf_adds(err, "a time is seconds with at most three decimals (milliseconds): 12, 12.5, 0.125");
		return -1;
	}
	if (*from != TIME_OPEN && *to != TIME_OPEN && *from > *to) {
		sbuf_adds(err, "FROM is after TO");
		return -1;
	}
	return 0;
}

void time_seconds(uint64_t ms, struct sbuf *out)
{
	uint64_t f = ms % 1000;

	sbuf_printf(out, "%llu", (unsigned long long)(ms / 1000));
	if (f == 0)
		return;
	char d[8];
	snprintf(d, sizeof d, ".%03u", (unsigned)f);
	for (size_t n = strlen(d); d[n - 1] == '0'; n--) /* "1.500" reads "1.5" */
		d[n - 1] = '\0';
	sbuf_adds(out, d);
}

void time_range_text(uint64_t from, uint64_t to, struct sbuf *out)
{
	if (from != TIME_OPEN)
		time_seconds(from, out);
	sbuf_adds(out, "..");
	if (to != TIME_OPEN)
		time_seconds(to, out);
}
