/* clr.h — .NET heaps: a nettrace heap-dump trace into the heap model
 * (format/clr.c). */
#ifndef HW_CLR_H
#define HW_CLR_H

#include "graph/reader.h"

extern const struct format_ops clr_format;

#endif
