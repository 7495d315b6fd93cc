/* v8.h — the V8 heap snapshot reader (format/v8.c over v8_json.c). */
#ifndef HW_V8_H
#define HW_V8_H

#include "graph/reader.h"

extern const struct format_ops v8_format;

#endif
