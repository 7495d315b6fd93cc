/* hprof_record.h — where things are in HPROF heap sub-records, by name,
 * so that nobody else needs the layouts by heart.
 *
 * Two levels. The record accessors take `r`, the address of a record's
 * sub-tag byte (always that byte: no other base), and the identifier
 * size; they read what the pass over the dump has bounds-checked
 * (hprof.c), so they check nothing. The node accessors take a node and
 * check what they are given: the kind of record, and that the data lies
 * inside the mapping (a node from a cache is only as good as the cache).
 * They are what the rest of the engine uses; a format table can later
 * put heap_inst_data() / heap_array_data() in front of them with the
 * same arguments.
 *
 * Records (HPROF 1.0.2, all integers big-endian, "id" of `ids` bytes):
 *   INSTANCE_DUMP    tag, id, u4 trace, class id, u4 n, n bytes of fields
 *   OBJ_ARRAY_DUMP   tag, id, u4 trace, u4 len, class id, len ids
 *   PRIM_ARRAY_DUMP  tag, id, u4 trace, u4 len, u1 type, len elements
 *   (Android 0xc3: the same without the elements)
 *   CLASS_DUMP       tag, id, u4 trace, super, loader, signers,
 *                    protection domain, 2 reserved ids, u4 instance size,
 *                    u2 n + constant pool, u2 n + statics, u2 n + fields */
#ifndef HW_HPROF_RECORD_H
#define HW_HPROF_RECORD_H

#include "graph/heap.h"
#include "graph/reader.h"

/* Heap sub-record tags of GC roots. */
enum {
	HPROF_ROOT_UNKNOWN = 0xff, HPROF_ROOT_JNI_GLOBAL = 0x01, HPROF_ROOT_JNI_LOCAL = 0x02,
	HPROF_ROOT_JAVA_FRAME = 0x03, HPROF_ROOT_NATIVE_STACK = 0x04, HPROF_ROOT_STICKY_CLASS = 0x05,
	HPROF_ROOT_THREAD_BLOCK = 0x06, HPROF_ROOT_MONITOR_USED = 0x07, HPROF_ROOT_THREAD_OBJ = 0x08,
	/* Android's */
	HPROF_ROOT_INTERNED_STRING = 0x89, HPROF_ROOT_FINALIZING = 0x8a, HPROF_ROOT_DEBUGGER = 0x8b,
	HPROF_ROOT_REFERENCE_CLEANUP = 0x8c, HPROF_ROOT_VM_INTERNAL = 0x8d,
	HPROF_ROOT_JNI_MONITOR = 0x8e, HPROF_ROOT_UNREACHABLE = 0x90,
};

/* The reader's own root kinds (struct root's native, hprof.c's
 * hprof_root_natives[]), one per root sub-record tag. */
enum {
	HPN_UNKNOWN, HPN_JNI_GLOBAL, HPN_JNI_LOCAL, HPN_JAVA_FRAME, HPN_NATIVE_STACK,
	HPN_STICKY_CLASS, HPN_THREAD_BLOCK, HPN_MONITOR_USED, HPN_THREAD_OBJ,
	HPN_INTERNED_STRING, HPN_FINALIZING, HPN_DEBUGGER, HPN_REFERENCE_CLEANUP,
	HPN_VM_INTERNAL, HPN_JNI_MONITOR, HPN_UNREACHABLE, HPN_COUNT
};
extern const struct root_native hprof_root_natives[HPN_COUNT];

/* The native kind of a root sub-record tag, -1 if the tag is no root. */
static inline int hprof_root_native(unsigned tag)
{
	switch (tag) {
	case HPROF_ROOT_UNKNOWN: return HPN_UNKNOWN;
	case HPROF_ROOT_JNI_GLOBAL: return HPN_JNI_GLOBAL;
	case HPROF_ROOT_JNI_LOCAL: return HPN_JNI_LOCAL;
	case HPROF_ROOT_JAVA_FRAME: return HPN_JAVA_FRAME;
	case HPROF_ROOT_NATIVE_STACK: return HPN_NATIVE_STACK;
	case HPROF_ROOT_STICKY_CLASS: return HPN_STICKY_CLASS;
	case HPROF_ROOT_THREAD_BLOCK: return HPN_THREAD_BLOCK;
	case HPROF_ROOT_MONITOR_USED: return HPN_MONITOR_USED;
	case HPROF_ROOT_THREAD_OBJ: return HPN_THREAD_OBJ;
	case HPROF_ROOT_INTERNED_STRING: return HPN_INTERNED_STRING;
	case HPROF_ROOT_FINALIZING: return HPN_FINALIZING;
	case HPROF_ROOT_DEBUGGER: return HPN_DEBUGGER;
	case HPROF_ROOT_REFERENCE_CLEANUP: return HPN_REFERENCE_CLEANUP;
	case HPROF_ROOT_VM_INTERNAL: return HPN_VM_INTERNAL;
	case HPROF_ROOT_JNI_MONITOR: return HPN_JNI_MONITOR;
	case HPROF_ROOT_UNREACHABLE: return HPN_UNREACHABLE;
	default: return -1;
	}
}

/* Heap sub-record tags beyond the roots. */
enum {
	HPROF_CLASS_DUMP = 0x20, HPROF_INSTANCE = 0x21, HPROF_OBJ_ARRAY = 0x22,
	HPROF_PRIM_ARRAY = 0x23, HPROF_PRIM_ARRAY_NODATA = 0xc3, HPROF_HEAP_INFO = 0xfe,
};

static inline unsigned hprof_type_size(uint8_t type, unsigned idsize) { return field_type_size(type, idsize); }

/* ---- any object record ---- */

static inline const uint8_t *hprof_node_rec(const struct heap *h, node_t v)
{
	return h->map + h->node_off[v];
}
static inline uint8_t hprof_rec_tag(const uint8_t *r) { return r[0]; }
static inline uint64_t hprof_rec_id(const uint8_t *r, unsigned ids) { return beid(r + 1, ids); }
/* The stack trace serial of the allocation (0: none). */
static inline uint32_t hprof_rec_trace(const uint8_t *r, unsigned ids) { return be32(r + 1 + ids); }

/* ---- INSTANCE_DUMP ---- */

static inline uint64_t hprof_inst_class(const uint8_t *r, unsigned ids) { return beid(r + 1 + ids + 4, ids); }
static inline uint32_t hprof_inst_nbytes(const uint8_t *r, unsigned ids) { return be32(r + 1 + 2 * ids + 4); }
static inline size_t hprof_inst_hdr(unsigned ids) { return 1 + 2 * (size_t)ids + 8; }
static inline const uint8_t *hprof_inst_fields(const uint8_t *r, unsigned ids) { return r + hprof_inst_hdr(ids); }

/* ---- OBJ_ARRAY_DUMP, PRIM_ARRAY_DUMP (with data or not) ---- */

static inline uint32_t hprof_arr_len(const uint8_t *r, unsigned ids) { return be32(r + 1 + ids + 4); }
static inline uint64_t hprof_objarr_class(const uint8_t *r, unsigned ids) { return beid(r + 1 + ids + 8, ids); }
static inline size_t hprof_objarr_hdr(unsigned ids) { return 1 + 2 * (size_t)ids + 8; }
static inline const uint8_t *hprof_objarr_elems(const uint8_t *r, unsigned ids) { return r + hprof_objarr_hdr(ids); }
static inline uint8_t hprof_primarr_type(const uint8_t *r, unsigned ids) { return r[1 + ids + 8]; }
static inline size_t hprof_primarr_hdr(unsigned ids) { return 1 + (size_t)ids + 9; }
static inline const uint8_t *hprof_primarr_elems(const uint8_t *r, unsigned ids) { return r + hprof_primarr_hdr(ids); }

/* ---- CLASS_DUMP ---- */

/* The ids after the class's own: CD_SUPER .. CD_PROTECTION_DOMAIN. */
enum { CD_SUPER = 1, CD_LOADER, CD_SIGNERS, CD_PROTECTION_DOMAIN };
static inline uint64_t hprof_cd_link(const uint8_t *r, unsigned ids, unsigned which)
{
	return beid(r + 1 + which * ids + 4, ids);
}
/* Where the constant pool, the static fields and the instance fields
 * start, each at its u2 count (hprof_list() reads it and steps over).
 * Entries: constant pool u2 index, u1 type, value; static: name id, u1
 * type, value; field: name id, u1 type. */
static inline const uint8_t *hprof_list(const uint8_t *p, unsigned *n)
{
	*n = be16(p);
	return p + 2;
}
static inline const uint8_t *hprof_cd_pool(const uint8_t *r, unsigned ids) { return r + 1 + 7 * ids + 8; }
const uint8_t *hprof_cd_statics(const uint8_t *r, unsigned ids);
const uint8_t *hprof_cd_fields(const uint8_t *r, unsigned ids);
static inline uint8_t hprof_pool_type(const uint8_t *e) { return e[2]; }
static inline const uint8_t *hprof_pool_value(const uint8_t *e) { return e + 3; }
static inline const uint8_t *hprof_pool_next(const uint8_t *e, unsigned ids)
{
	return e + 3 + hprof_type_size(e[2], ids);
}
/* A static or an instance field entry: its name (a string id), its type. */
static inline uint64_t hprof_entry_name(const uint8_t *e, unsigned ids) { return beid(e, ids); }
static inline uint8_t hprof_entry_type(const uint8_t *e, unsigned ids) { return e[ids]; }
static inline const uint8_t *hprof_static_value(const uint8_t *e, unsigned ids) { return e + ids + 1; }
static inline const uint8_t *hprof_static_next(const uint8_t *e, unsigned ids)
{
	return e + ids + 1 + hprof_type_size(e[ids], ids);
}
static inline const uint8_t *hprof_field_next(const uint8_t *e, unsigned ids) { return e + ids + 1; }

/* ---- by node ---- */

/* The bytes every record of a node of this kind (enum node_kind) has
 * before what varies: what a cache's node offsets are checked against. */
static inline uint64_t hprof_rec_min(unsigned kind, unsigned ids)
{
	switch (kind) {
	case NK_INSTANCE: return hprof_inst_hdr(ids);
	case NK_OBJARRAY: return hprof_objarr_hdr(ids);
	case NK_PRIMARRAY: return hprof_primarr_hdr(ids);
	case NK_CLASS: return 1 + 7 * (uint64_t)ids + 8 + 2; /* up to the pool's count */
	default: return hprof_inst_hdr(ids); /* id and trace serial, as every record */
	}
}

/* Does node v's record have n bytes inside the mapping? */
static inline int hprof_rec_fits(const struct heap *h, node_t v, uint64_t n)
{
	return h->node_off[v] <= h->size && n <= h->size - h->node_off[v];
}

/* Instance v's field bytes and their count (cut at the end of the
 * mapping); NULL if v's record is no INSTANCE_DUMP. */
static inline const uint8_t *hprof_inst_data(const struct heap *h, node_t v, uint32_t *len)
{
	unsigned ids = h->layout.idsize;
	uint64_t off, hdr = hprof_inst_hdr(ids);
	const uint8_t *r;

	if (v == 0 || v >= h->n)
		return NULL;
	off = h->node_off[v];
	r = h->map + off;
	if (hprof_rec_tag(r) != HPROF_INSTANCE || off + hdr > h->size)
		return NULL;
	*len = hprof_inst_nbytes(r, ids);
	if (*len > h->size - off - hdr)
		*len = (uint32_t)(h->size - off - hdr);
	return r + hdr;
}

/* The object id in the reference field at byte `off` of instance data
 * of `len` bytes; 0 (null) where the data is too short. */
static inline uint64_t hprof_ref_at(const uint8_t *data, uint32_t len, uint32_t off, unsigned ids)
{
	return inst_ref_at(data, len, off, ids);
}

/* Array v: 0 with *a filled, or -1 if v's record is no array or its
 * elements run past the mapping. */
static inline int hprof_array_data(const struct heap *h, node_t v, struct harray *a)
{
	unsigned ids = h->layout.idsize;
	uint64_t off, hdr;
	const uint8_t *r;

	if (v == 0 || v >= h->n)
		return -1;
	off = h->node_off[v];
	r = h->map + off;
	switch (hprof_rec_tag(r)) {
	case HPROF_OBJ_ARRAY:
		hdr = hprof_objarr_hdr(ids);
		a->type = T_OBJECT;
		a->esize = ids;
		break;
	case HPROF_PRIM_ARRAY: case HPROF_PRIM_ARRAY_NODATA:
		hdr = hprof_primarr_hdr(ids);
		if (off + hdr > h->size)
			return -1;
		a->type = hprof_primarr_type(r, ids);
		a->esize = a->type == T_OBJECT ? 0 : hprof_type_size(a->type, ids);
		break;
	default:
		return -1;
	}
	if (off + hdr > h->size || a->esize == 0)
		return -1;
	a->len = hprof_arr_len(r, ids);
	a->data = hprof_rec_tag(r) == HPROF_PRIM_ARRAY_NODATA ? NULL : r + hdr;
	if (a->data != NULL && a->len * a->esize > h->size - off - hdr)
		return -1;
	return 0;
}

/* The stack trace serial of the allocation of object v (0: none). */
static inline uint32_t hprof_node_trace(const struct heap *h, node_t v)
{
	return hprof_rec_trace(hprof_node_rec(h, v), h->layout.idsize);
}

#endif
