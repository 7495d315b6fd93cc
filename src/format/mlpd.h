/* mlpd.h — Mono's log-profiler heapshots (format/mlpd.c). */
#ifndef HW_MLPD_H
#define HW_MLPD_H

#include "graph/reader.h"

extern const struct format_ops mlpd_format;

#endif
