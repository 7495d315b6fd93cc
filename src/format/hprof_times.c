/* hprof_times.c — the allocation times heapwalk's agent writes into its
 * snapshots (contrib/agent/agent.c), in a string record that other HPROF
 * readers store and ignore:
 *
 *   heapwalk-times/1 start_ms=N origin=jvm|agent ID:MS ID:MS ...
 *
 * start_ms: time 0, in ms since the epoch (origin "jvm": the JVM's start;
 * "agent": when the agent was loaded); per object its id (hex) and the
 * ms from time 0 to its allocation. Words this reader does not know are
 * skipped, so that later agents can add some; a malformed pair is
 * skipped, and an id that is no object of the dump too. */
#include "format/hprof.h"

#include <stdlib.h>
#include <string.h>

struct stamp {
	node_t node;
	uint64_t ms;
};

static int by_node(const void *a, const void *b, void *ctx)
{
	const struct stamp *x = a, *y = b;

	(void)ctx;
	return x->node < y->node ? -1 : x->node > y->node ? 1 : (x->ms > y->ms) - (x->ms < y->ms);
}

/* The digits of [p, end) in base (10 or 16) into *v: 0, or -1 if there
 * are none, another character, or too many. */
static int number(const char *p, const char *end, unsigned base, uint64_t *v)
{
	*v = 0;
	if (p == end || end - p > 16)
		return -1;
	for (; p < end; p++) {
		int d = *p >= '0' && *p <= '9' ? *p - '0' : base == 16 && *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
		if (d < 0)
			return -1;
		*v = *v * base + (unsigned)d;
	}
	return 0;
}

/* One word: a key=value the reader knows, or an id:ms pair. */
static void take_word(const struct heap *h, struct alloc_times *t, const char *w, const char *end,
		      struct stamp **s, size_t *n, size_t *cap)
{
	const char *colon = memchr(w, ':', (size_t)(end - w));
	uint64_t id, ms;

	if (end - w > 9 && memcmp(w, "start_ms=", 9) == 0) {
		if (number(w + 9, end, 10, &ms) == 0)
			t->origin_ms = ms;
	} else if (end - w == 10 && memcmp(w, "origin=jvm", 10) == 0) {
		t->origin = "JVM start";
	} else if (end - w == 12 && memcmp(w, "origin=agent", 12) == 0) {
		t->origin = "agent load";
	} else if (colon != NULL && number(w, colon, 16, &id) == 0 && number(colon + 1, end, 10, &ms) == 0) {
		node_t v = heap_find_id(h, id);
		if (v == HW_NONE || v == 0)
			return;
		VEC_GROW(*s, *n, *cap);
		(*s)[(*n)++] = (struct stamp){ v, ms };
	}
}

int hprof_alloc_times(const struct heap *h, struct alloc_times *t)
{
	const char *p = (const char *)h->map + h->agent.times_off;
	const char *end = p + h->agent.times_len;
	struct stamp *s = NULL;
	size_t n = 0, cap = 0;

	if (h->agent.times_off == 0)
		return -1;
	while (p < end) {
		const char *w = p;
		while (p < end && *p != ' ')
			p++;
		if (p > w)
			take_word(h, t, w, p, &s, &n, &cap);
		p++;
	}
	hw_sort(s, n, sizeof *s, by_node, NULL);
	t->node = xmalloc((n ? n : 1) * sizeof *t->node);
	t->ms = xmalloc((n ? n : 1) * sizeof *t->ms);
	t->n = 0;
	for (size_t i = 0; i < n; i++) /* an object twice: its first time */
		if (i == 0 || s[i].node != s[i - 1].node) {
			t->node[t->n] = s[i].node;
			t->ms[t->n++] = s[i].ms;
		}
	free(s);
	return 0;
}
