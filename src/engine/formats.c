/* formats.c — the readers heapwalk has, tried in order by content. */
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

const struct format_ops *format_find(const uint8_t *head, size_t n)
{
	for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
		if (formats[i]->probe(head, n))
			return formats[i];
	return NULL;
}
