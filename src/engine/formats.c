/* formats.c — the readers heapwalk has, tried in order by content, and
 * what a front end asks of one without opening a dump. */
#include "engine/open.h"

#include "format/clr.h"
#include "format/hprof.h"
#include "format/mlpd.h"
#include "format/v8.h"
#include "graph/reader.h"

static const struct format_ops *const formats[] = {
	&hprof_format,
	&v8_format,
	&clr_format,
	&gcdump_format,
	&mlpd_format,
};

const struct format_ops *format_at(size_t i)
{
	return i < sizeof formats / sizeof formats[0] ? formats[i] : NULL;
}

void formats_say(struct sbuf *out)
{
	size_t n = sizeof formats / sizeof formats[0];

	for (size_t i = 0; i < n; i++)
		sbuf_printf(out, "%s%s", i == 0 ? "" : i + 1 < n ? ", " : " or ", formats[i]->label);
	sbuf_adds(out, "; each plain or in gzip (jcmd -gz=N, gzip)");
}

const char *format_near(const uint8_t *head, size_t n)
{
	for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
		const char *what = formats[i]->near != NULL ? formats[i]->near(head, n) : NULL;
		if (what != NULL)
			return what;
	}
	return NULL;
}

const struct format_ops *format_find(const uint8_t *head, size_t n)
{
	for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
		if (formats[i]->probe(head, n))
			return formats[i];
	return NULL;
}

int trace_mark_replay(const struct clr_mark_in *in, struct sbuf *out, struct sbuf *said, struct sbuf *err)
{
	return clr_mark_replay(in, out, said, err);
}

void trace_watch(const uint8_t *map, uint64_t size, struct trace_watch *w)
{
	struct clr_watch cw;

	clr_watch(map, size, &cw);
	*w = (struct trace_watch){ cw.started, cw.ended, cw.count, cw.nodes, cw.pause_ms };
}
