/* hprof.h — the HPROF reader (JAVA PROFILE 1.0.1 and 1.0.2, identifier
 * size 4 or 8) over a read-only mapping, and lazy decoding of records
 * for the views. Truncated or corrupt input is read as far as it is
 * valid; every problem is a warning "FILE: offset N: what". */
#ifndef HW_HPROF_H
#define HW_HPROF_H

#include "format/hprof_record.h"
#include "graph/heap.h"
#include "graph/reader.h"
#include "progress.h"

/* Map `path` read-only and check the header. Returns 0, or -1 with a
 * one-line error in err. Sets h->fmt, path, map, size, fd, version,
 * layout.idsize, timestamp_ms. (heap_open() does this for any format.) */
int hprof_map(struct heap *h, const char *path, struct sbuf *err);
int hprof_probe(const uint8_t *head, size_t n);

/* One pass over the records: classes, objects, roots, threads, traces.
 * Then sorts objects into nodes and builds references (build.c).
 * Returns 0: a valid header is enough, what follows is read as far as
 * it is valid and every problem is a warning (err is for formats that
 * can fail later). */
int hprof_parse(struct heap *h, struct progress *p, struct sbuf *err);

/* The format's table (graph/reader.h). */
extern const struct format_ops hprof_format;

/* Calls fn for every instance field of node v (instances: fields of the
 * class then its supers, as stored; classes: static fields). Returns
 * the number of fields, or -1 if v is not such a record. */
int hprof_fields(const struct heap *h, node_t v, field_fn fn, void *arg);

/* Arrays: element count and type, and one element. -1 if not an array. */
int64_t hprof_array_length(const struct heap *h, node_t v, uint8_t *elem_type);
int hprof_array_elem(const struct heap *h, node_t v, uint64_t i, struct hvalue *out);

/* The text of a java.lang.String node (Latin-1 or UTF-16 value array
 * decoded to UTF-8, at most `max` bytes, "..." marks a cut). Returns 0,
 * -1 if v is not a String or its value is missing. Unescaped: callers
 * escape before output. */
int hprof_string_value(const struct heap *h, node_t v, struct sbuf *out, size_t max);

/* How `src` refers to `dst`: field name, "[index]", "<class>",
 * "<super>", "<loader>", "static NAME", "<referent>"... The first match
 * in record order; "<?>" if none. Appended to out. */
void hprof_edge_label(const struct heap *h, node_t src, node_t dst, struct sbuf *out);
/* Does every node's record (node_off[], node_kind[], as an index cache
 * gave them) have the fixed part of its kind inside the mapping? What
 * varies in a record the decoders check as they read it. */
int hprof_nodes_valid(const struct heap *h);
/* The agent's allocation times (hprof_times.c): format_ops.alloc_times. */
int hprof_alloc_times(const struct heap *h, struct alloc_times *t);

#endif
