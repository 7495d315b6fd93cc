/* hprofw.h — a small HPROF writer for tests: builds a dump in memory,
 * byte by byte as the format says (big-endian, identifiers of 4 or 8
 * bytes), and writes it (or a prefix of it) to a file.
 *
 * Ownership: struct hw owns its buffer and its table of written classes;
 * hw_free() releases both. Paths returned by hw_write*() belong to the
 * caller (free()). The writer is independent of the reader: it shares no
 * code with src/format, so a reader bug cannot cancel out in a test. */
#ifndef HW_TEST_HPROFW_H
#define HW_TEST_HPROFW_H

#include <stddef.h>
#include <stdint.h>

#include "graph/heap.h"
#include "util.h"

/* A class dump written so far: its id, super and HPROF instance bytes of
 * its own fields (to fill in the instance size of subclasses). */
struct hw_cls { uint64_t id, super; uint32_t own_bytes; };

struct hw {
	struct sbuf b;
	unsigned ids;
	size_t rec_at;       /* offset of the open record's length field */
	struct hw_cls *cls;  /* class dumps written, for instance sizes */
	size_t ncls, capcls;
};

/* A buffer that starts with the header "version\0", u4 ids, u8 time. */
void hw_begin(struct hw *w, const char *version, unsigned ids);
/* An empty buffer, no header (for garbage and hand-made headers). */
void hw_init(struct hw *w, unsigned ids);
void hw_free(struct hw *w);

/* Raw big-endian values; raw bytes for corruption. */
void hw_u1(struct hw *w, uint8_t v);
void hw_u2(struct hw *w, uint16_t v);
void hw_u4(struct hw *w, uint32_t v);
void hw_u8(struct hw *w, uint64_t v);
void hw_id(struct hw *w, uint64_t v);
void hw_bytes(struct hw *w, const void *p, size_t n);
size_t hw_pos(const struct hw *w);
/* Drop everything from offset len on (no-op if len >= current length). */
void hw_truncate(struct hw *w, size_t len);
/* Bytes of a value of HPROF basic type `type` (0 for an unknown type). */
unsigned hw_type_size(uint8_t type, unsigned ids);

/* Top-level records. rec_begin/rec_end patch the length (one record
 * open at a time). */
void hw_rec_begin(struct hw *w, uint8_t tag);
void hw_rec_end(struct hw *w);
void hw_utf8(struct hw *w, uint64_t id, const char *s);
void hw_load_class(struct hw *w, uint32_t serial, uint64_t cid, uint64_t name_id);
/* A class: its name (string id = cid + 1), LOAD_CLASS; outside segments. */
void hw_class_name(struct hw *w, uint32_t serial, uint64_t cid, const char *name);
/* FRAME: ids of the frame and of the method name, signature and source
 * file strings, the LOAD_CLASS serial, the line (>0, 0, -1..-3). */
void hw_frame(struct hw *w, uint64_t fid, uint64_t method, uint64_t sig, uint64_t source,
	      uint32_t class_serial, int32_t line);
/* TRACE: serial, thread serial, frame ids (top first). */
void hw_trace(struct hw *w, uint32_t serial, uint32_t thread_serial, const uint64_t *frames,
	      uint32_t nframes);
/* HEAP_DUMP_SEGMENT (0x1c) ... end; HEAP_DUMP (0x0c) with hw_rec_begin. */
void hw_heap_begin(struct hw *w);
void hw_heap_end(struct hw *w);
/* HEAP_DUMP_END: an empty 0x2c record. */
void hw_dump_end(struct hw *w);

/* Heap sub-records, between hw_heap_begin and hw_heap_end. */
struct hw_field { uint64_t name_id; uint8_t type; uint64_t value; };
/* CLASS_DUMP. cp[i].name_id is the constant pool index. The instance
 * size written is the HPROF bytes of these fields plus those of the
 * supers dumped before it (as HotSpot counts). */
void hw_class_dump(struct hw *w, uint64_t cid, uint64_t super, uint64_t loader,
		   const struct hw_field *cp, int ncp, const struct hw_field *statics, int nstatics,
		   const struct hw_field *fields, int nfields);
/* INSTANCE_DUMP: field values in class-then-super order, each at its
 * type's size (name_id unused). */
void hw_instance(struct hw *w, uint64_t id, uint64_t cid, const struct hw_field *vals, int n);
void hw_objarray(struct hw *w, uint64_t id, uint64_t acid, const uint64_t *elems, uint32_t n);
/* PRIM_ARRAY_DUMP; data is n elements already big-endian, NULL: zeros. */
void hw_primarray(struct hw *w, uint64_t id, uint8_t type, uint32_t n, const void *data);
/* Android: primitive array without data (0xc3), HEAP_DUMP_INFO (0xfe). */
void hw_primarray_nodata(struct hw *w, uint64_t id, uint8_t type, uint32_t n);
void hw_heap_info(struct hw *w, uint32_t heap_id, uint64_t name_id);
/* Root sub-record tags, as the HPROF format (and Android's) numbers them. */
enum {
	HW_ROOT_UNKNOWN = 0xff, HW_ROOT_JNI_GLOBAL = 0x01, HW_ROOT_JNI_LOCAL = 0x02, HW_ROOT_JAVA_FRAME = 0x03,
	HW_ROOT_NATIVE_STACK = 0x04, HW_ROOT_STICKY_CLASS = 0x05, HW_ROOT_THREAD_BLOCK = 0x06,
	HW_ROOT_MONITOR_USED = 0x07, HW_ROOT_THREAD_OBJ = 0x08,
};
/* A root of any kind: a and b are what follows the id, as the kind has
 * them (JNI global: a is the JNI ref id; JNI local, Java frame, Android
 * JNI monitor: thread serial a, frame/depth b; native stack, thread
 * block: thread a; thread object: thread serial a, stack serial b). */
void hw_root(struct hw *w, uint8_t kind, uint64_t id, uint32_t a, uint32_t b);

/* Write the first `len` bytes (SIZE_MAX: all) to dir/name; returns the
 * path (caller frees). Fatal if the file cannot be written. */
char *hw_write_in(const struct hw *w, const char *dir, const char *name, size_t len);
/* The same under hw_tmpdir(). */
char *hw_write(const struct hw *w, const char *name, size_t len);

/* A dump whose class name ("Evil\x1b]0;pwned\x07,\"x\"") and String
 * value ("hi\x1b[2J\n\"q\",\0end", field `who` of the one instance, a
 * JNI global) carry control characters; written under hw_tmpdir(),
 * the path returned (caller frees). */
char *hw_write_evil(void);
/* The same dump, built in w (hw_free it). */
void hw_evil(struct hw *w);

/* A fresh directory for a test's files, under TEST_BUILDDIR/tmp. */
const char *hw_tmpdir(void);

/* A minimal JDK-like class set: java.lang.Object, Class, String (value,
 * hash, coder, hashIsZero), ref.Reference (referent, queue, next,
 * discovered), ref.WeakReference, ClassLoader (parent), and the class
 * of Object[]. hw_jdk_names writes UTF8 and LOAD_CLASS records (serials
 * 1..7, names in internal form "java/lang/Object"); hw_jdk_classes the
 * class dumps, inside a segment. Ids are odd (no addresses). */
enum {
	J_OBJECT = 0x201, J_CLASS = 0x211, J_STRING = 0x221, J_REFERENCE = 0x231,
	J_WEAKREF = 0x241, J_LOADER = 0x251, J_OBJARR = 0x261,
	JF_VALUE = 0xa01, JF_HASH = 0xa03, JF_CODER = 0xa05, JF_HASHZERO = 0xa07,
	JF_REFERENT = 0xa09, JF_QUEUE = 0xa0b, JF_NEXT = 0xa0d, JF_DISCOVERED = 0xa0f,
	JF_PARENT = 0xa11,
};
void hw_jdk_names(struct hw *w);
void hw_jdk_classes(struct hw *w);
/* Each of those classes a sticky-class GC root (as a JVM's are). */
void hw_jdk_class_roots(struct hw *w);
/* A small JDK-like dump: begun (w's header, the names, a segment with
 * the classes, rooted), the caller's objects into the segment, then
 * ended and written (hw_write's path, w freed). */
void hw_jdk_open(struct hw *w);
char *hw_jdk_close(struct hw *w, const char *name);
/* Instances of them: a Latin-1 String on byte array `value`; a
 * WeakReference to `referent`; a ClassLoader with `parent`. */
void hw_jdk_string(struct hw *w, uint64_t id, uint64_t value);
void hw_jdk_weakref(struct hw *w, uint64_t id, uint64_t referent);
void hw_jdk_loader(struct hw *w, uint64_t id, uint64_t parent);

/* Weak and soft holders (test_merged.c, test_tui.c): a root Object[] R
 * holds SoftReferences S1..S5, a WeakReference W1 and a t.Holder H;
 * wk_soft[i] -> wk_soft_to[i], wk_weak[i] -> wk_weak_to[i], H.buf ->
 * O1 (t.Other); the t.Buf objects are wk_bufs, B1..B4 only weakly
 * reachable, B6 (WK_B6) also a JNI global. Returns the path (free it). */
enum {
	WK_SOFT = 0x3001, WK_BUF = 0x3011, WK_OTHER = 0x3021, WK_HOLDER = 0x3031, WKF_BUF = 0x3101,
	WK_R = 0x4001, WK_H = 0x4031, WK_O1 = 0x4201, WK_B6 = 0x4109,
};
extern const uint64_t wk_soft[5], wk_soft_to[5], wk_weak[1], wk_weak_to[1], wk_bufs[5];
char *hw_write_weakheld(void);

/* Accumulations (test_retain.c, leak-suspects): t.Buf AB_BUF[0..4],
 * each with a byte[1000] (`data`), reachable only through SoftReferences
 * AB_SOFT[0..3] and the WeakReference AB_WEAK (in the root Object[]
 * AC_R1); t.Item AI_ITEM[0..5], each with a long[60] (`payload`), held
 * by t.Owner AI_OWNER[i] (`item`, the owners in the root AC_R2) and by
 * the root Object[] AC_R3; AI_ITEM[0] is a JNI global too; the root
 * t.Bag AC_BAGOBJ holds (`cells`, an Object[]) 4 t.Cell, each with a
 * long[100], and (`blob`) a byte[12000]: an object suspect, which the
 * Cells' accumulation is part of. Returns the path (free it). */
enum {
	AC_BUF = 0x5001, AC_ITEM = 0x5011, AC_OWNER = 0x5021, AC_BAG = 0x5031, AC_CELL = 0x5041,
	AC_SOFTREF = 0x5051, ACF_DATA = 0x5101, ACF_PAYLOAD = 0x5103, ACF_ITEM = 0x5105, ACF_CELLS = 0x5107,
	ACF_BLOB = 0x5109,
	AC_R1 = 0x6001, AC_R2 = 0x6003, AC_R3 = 0x6005, AC_BAGOBJ = 0x6007, AC_CELLS = 0x6009, AC_BLOB = 0x600b,
};
extern const uint64_t ab_buf[5], ab_soft[4], ab_weak, ai_item[6], ai_owner[6];
char *hw_write_accum(void);

/* A list n long: n Links, each referring to the next by `next`, the
 * first (HW_CHAIN_FIRST) held by an unknown root, the i-th at
 * HW_CHAIN_FIRST + 16 * i; written to dir/name, the path returned
 * (caller frees). */
#define HW_CHAIN_FIRST 0x10000u
char *hw_write_chain(const char *dir, const char *name, unsigned n);

/* The sample heap of the graph and reader tests; ids are odd so that they
 * do not pass for addresses (the default layout applies). See
 * test_graph.c for the picture and the expected figures. */
enum {
	S_OBJ = 0x11, S_NODE = 0x21, S_REF = 0x31, S_WEAK = 0x41, S_BARR = 0x51, S_HOLDER = 0x61,
	S_A = 0x1001, S_B = 0x1003, S_C = 0x1005, S_D = 0x1007, S_X = 0x1009, S_W = 0x100b,
	S_E = 0x100d, S_U = 0x100f, S_S = 0x1011,
};
/* Names of the sample's fields, and of Holder's statics (sb sz sc ss si
 * sj sf sd so: byte, boolean, char, short, int, long, float, double,
 * object, at F_STATIC + 2 * i). */
enum { F_NEXT = 0x901, F_OTHER = 0x903, F_VAL = 0x905, F_REFERENT = 0x907, F_QUEUE = 0x909,
       F_DISC = 0x90b, F_STATIC = 0x911 };
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

/* ---- random graphs, for brute-force references ----
 * A graph as the writer writes it, kept so that a test's reference
 * follows the very references of the dump: objects 0..n-1 (ids
 * hw_graph_id(i)), each an instance of t.C<k> (class id HWG_CLS +
 * 0x10 * k, with nfields[k] reference fields f0..), an Object[] or a
 * WeakReference (its referent in ref[i][0]). */
enum { HWG_MAX = 72, HWG_REFS = 6, HWG_FIELDS = 4, HWG_CLS = 0x3001, HWG_FIELD = 0xb01,
       HWG_OBJ = 0x100001 };
enum hwg_kind { HWG_INSTANCE, HWG_ARRAY, HWG_WEAK };
/* Which classes are sticky-class GC roots: none, the JDK's, all. As in
 * a JVM (all), an instance then never retains its class. */
enum hwg_class_roots { HWG_CROOTS_NONE, HWG_CROOTS_JDK, HWG_CROOTS_ALL };

struct hw_graph {
	uint32_t n, ncls;
	uint8_t kind[HWG_MAX];          /* enum hwg_kind */
	uint32_t cls[HWG_MAX];          /* an instance's class k */
	uint32_t nref[HWG_MAX];         /* its fields, the array's length; 1 for a WeakReference */
	int ref[HWG_MAX][HWG_REFS];     /* object index, -1: null */
	uint8_t root[HWG_MAX];          /* a GC root (of unknown kind) */
	uint8_t nfields[HWG_MAX];       /* of class k, up to HWG_FIELDS */
	enum hwg_class_roots class_roots;
	node_t node[HWG_MAX];           /* once opened (hw_open_graph): each object's node */
};

/* What hw_graph_random draws: percentages of Object[]s and of
 * WeakReferences (the rest are instances, of a class at random or with
 * `each` instance i of class i); the chance that a slot is null, drawn
 * once per graph from null_min to null_min + null_span - 1 (a referent
 * is null with half that chance); 1 to `roots` GC roots. */
struct hw_shape {
	unsigned arrays, weaks, null_min, null_span, roots;
	int each;
	enum hwg_class_roots class_roots;
};

/* A small linear congruential generator: the same graphs on every run. */
uint32_t hw_rnd(uint32_t *seed);
uint64_t hw_graph_id(uint32_t i);
/* n objects (2..HWG_MAX) of ncls classes (1..HWG_MAX; Ck has k % 4 + 1
 * fields), references at random: cycles, self loops, shared targets,
 * objects no root reaches, some reached only through a referent. */
void hw_graph_random(struct hw_graph *g, uint32_t *seed, uint32_t n, uint32_t ncls,
		     const struct hw_shape *s);
/* The dump of g, in w (hw_free it). */
void hw_graph_dump(struct hw *w, const struct hw_graph *g);
/* Write g under hw_tmpdir() as name and open it into h (no cache, every
 * part loaded), each object's node into g->node. Fatal if it fails. */
void hw_open_graph(struct heap *h, struct hw_graph *g, const char *name);

#endif
