/* hprofw.h — a small HPROF writer for tests: builds a dump in memory,
 * byte by byte as the format says, and writes it (or a prefix of it) to
 * a file. Owns its buffer; hw_free() releases it. */
#ifndef HW_TEST_HPROFW_H
#define HW_TEST_HPROFW_H

#include <stddef.h>
#include <stdint.h>

#include "graph/heap.h"
#include "util.h"

struct hw {
	struct sbuf b;
	unsigned ids;
	size_t rec_at; /* offset of the open record's length field */
};

void hw_begin(struct hw *w, const char *version, unsigned ids);
void hw_free(struct hw *w);
void hw_u1(struct hw *w, uint8_t v);
void hw_u2(struct hw *w, uint16_t v);
void hw_u4(struct hw *w, uint32_t v);
void hw_u8(struct hw *w, uint64_t v);
void hw_id(struct hw *w, uint64_t v);
void hw_bytes(struct hw *w, const void *p, size_t n);
size_t hw_pos(const struct hw *w);

/* Top-level records. rec_begin/rec_end patch the length. */
void hw_rec_begin(struct hw *w, uint8_t tag);
void hw_rec_end(struct hw *w);
void hw_utf8(struct hw *w, uint64_t id, const char *s);
void hw_load_class(struct hw *w, uint32_t serial, uint64_t cid, uint64_t name_id);
/* A class: its name (string id = cid + 1), LOAD_CLASS; outside segments. */
void hw_class_name(struct hw *w, uint32_t serial, uint64_t cid, const char *name);

/* Heap sub-records, inside hw_rec_begin(w, 0x1c) ... hw_rec_end(w). */
struct hw_field { uint64_t name_id; uint8_t type; uint64_t value; };
void hw_class_dump(struct hw *w, uint64_t cid, uint64_t super, uint64_t loader,
		   const struct hw_field *cp, int ncp, const struct hw_field *statics, int nstatics,
		   const struct hw_field *fields, int nfields);
/* Field values in class-then-super order, each at its type's size. */
void hw_instance(struct hw *w, uint64_t id, uint64_t cid, const struct hw_field *vals, int n);
void hw_objarray(struct hw *w, uint64_t id, uint64_t acid, const uint64_t *elems, uint32_t n);
void hw_primarray(struct hw *w, uint64_t id, uint8_t type, uint32_t n, const void *data);
void hw_root(struct hw *w, uint8_t kind, uint64_t id, uint32_t a, uint32_t b);

/* Write the first `len` bytes (SIZE_MAX: all) to dir/name; returns the
 * path (caller frees). */
char *hw_write(const struct hw *w, const char *name, size_t len);

/* A fresh directory for a test's files, under TEST_BUILDDIR/tmp. */
const char *hw_tmpdir(void);

#endif

/* The sample heap of the graph and reader tests; ids are odd so that they
 * do not pass for addresses (the default layout applies). See
 * test_graph.c for the picture and the expected figures. */
enum {
	S_OBJ = 0x11, S_NODE = 0x21, S_REF = 0x31, S_WEAK = 0x41, S_BARR = 0x51, S_HOLDER = 0x61,
	S_A = 0x1001, S_B = 0x1003, S_C = 0x1005, S_D = 0x1007, S_X = 0x1009, S_W = 0x100b,
	S_E = 0x100d, S_U = 0x100f, S_S = 0x1011,
};
struct hw_sample {
	size_t seg;        /* offset of the heap dump segment record */
	size_t a_at;       /* offset of A's instance record */
	size_t after_a;    /* offset just after A's record */
};
void hw_sample(struct hw *w, const char *version, unsigned ids, struct hw_sample *s);
/* The classes and names part only (no segment): for variations. */
void hw_sample_classes(struct hw *w);
/* Write the sample to a file named `name` and open it (no cache). */
void hw_open_sample(struct heap *h, const char *name);
