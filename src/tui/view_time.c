/* view_time.c — when the step's objects were allocated: a histogram of
 * the allocation times the dump records (the agent's sampled objects),
 * a row per bucket; Enter on a bucket, or on marked adjacent ones, makes
 * the step "allocated FROM..TO". */
#include <stdlib.h>
#include <string.h>

#include "graph/reader.h"
#include "query/alloctime.h"
#include "tui/view.h"

#define TIME_BUCKETS 20

static int time_build(struct tui *t, struct tview *v)
{
	struct time_view *tv = v->data;
	struct sbuf l;

	if (tv == NULL) {
		tv = v->data = xmalloc(sizeof *tv);
		view_times(t->h, &v->st->set, TIME_BUCKETS, tv);
	}
	static const struct column cols[] = {
		{ .title = "objects", .type = COL_COUNT, .val = 0 },
		{ .title = "bytes", .type = COL_BYTES, .val = 1, .drop = 2 },
		{ .title = "%", .type = COL_PCT, .val = 0, .den = -1, .drop = 3 },
		{ .title = "", .type = COL_BAR, .val = 2, .den = -1, .drop = 1 },
	};
	tview_columns(v, cols, 4);
	if (tv->timed_count == 0) {
		struct row *r = rowvec_add(&v->rows);
		sbuf_init(&l);
		time_none_note(t->h, tv, &l);
		row_set(r, l.buf, NULL);
		sbuf_free(&l);
		r->kind = VR_INFO;
		r->flags = RF_NOCOLS;
		snprintf(v->lefthead, sizeof v->lefthead, "allocated");
		return 0;
	}
	uint64_t most = 0;
	sbuf_init(&l);
	for (size_t k = 0; k < tv->nb; k++) {
		const struct time_bucket *b = &tv->b[k];
		sbuf_reset(&l);
		time_range_text(b->from, b->to, &l);
		if (!tui_filter_ok(v, l.buf, NULL))
			continue;
		struct row *r = rowvec_add(&v->rows);
		r->kind = VR_TIME;
		r->num[0] = k;
		r->key = k + 1;
		r->open = -1;
		r->val[0] = r->val[2] = b->count;
		r->val[1] = b->bytes;
		row_set(r, l.buf, NULL);
		most = b->count > most ? b->count : most;
	}
	sbuf_free(&l);
	v->whole[0] = tv->timed_count;
	v->whole[2] = most;
	struct sbuf w;
	sbuf_init(&w);
	time_seconds(tv->width, &w);
	snprintf(v->lefthead, sizeof v->lefthead, "s after %s, %s s each: %llu timed", tv->origin,
		 w.buf, (unsigned long long)tv->timed_count);
	sbuf_free(&w);
	return 0;
}

/* The interval of the marked buckets (adjacent ones), or the cursor's:
 * 0, or -1 with a message. */
static int time_interval(struct tui *t, struct tview *v, uint64_t *from, uint64_t *to)
{
	const struct time_view *tv = v->data;
	size_t first = SIZE_MAX, last = 0, n = 0;
	int any = 0;

	for (size_t i = 0; i < v->rows.n; i++)
		any |= v->rows.v[i].marked;
	for (size_t i = 0; i < v->rows.n; i++) {
		const struct row *r = &v->rows.v[i];
		if (r->kind != VR_TIME || !(any ? r->marked : i == v->cur))
			continue;
		if (n > 0 && r->num[0] != last + 1) {
			tui_message(t, 1, "mark adjacent buckets: a step takes one interval");
			return -1;
		}
		first = n == 0 ? (size_t)r->num[0] : first;
		last = (size_t)r->num[0];
		n++;
	}
	if (tv == NULL || n == 0) {
		tui_message(t, 1, "no bucket of allocation times on this row");
		return -1;
	}
	*from = tv->b[first].from;
	*to = tv->b[last].to;
	return 0;
}

static int time_use(struct tui *t, struct tview *v, int reached, struct use *u)
{
	uint64_t from, to;
	struct sbuf iv;

	(void)reached;
	if (time_interval(t, v, &from, &to) < 0)
		return -1;
	time_select(t->h, &v->st->set, from, to, &u->set);
	sbuf_init(&iv);
	time_range_text(from, to, &iv);
	u->title = xasprintf("Allocated %s s", iv.buf);
	u->expr = xasprintf("allocated %s", iv.buf);
	sbuf_free(&iv);
	return 0;
}

static void time_data_free(void *data)
{
	if (data != NULL)
		time_view_free(data);
	free(data);
}

const struct view_ops time_ops = {
	.name = "Time",
	.flags = VO_FILTER,
	.build = time_build,
	.use = time_use,
	.data_free = time_data_free,
};
