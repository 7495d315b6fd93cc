/* hprof_build.h — from HPROF's raw records to the heap model: nodes
 * sorted by id, classes resolved, shallow sizes, references in CSR.
 * The pass (hprof.c) fills struct scan and calls build_heap(). */
#ifndef HW_HPROF_BUILD_H
#define HW_HPROF_BUILD_H

#include "graph/heap.h"
#include "progress.h"

struct raw_obj { uint64_t id, off; };
struct raw_root { uint64_t id, off; uint8_t native; uint32_t thread, frame; }; /* native: HPN_* */
struct raw_str { uint64_t id, off; uint32_t len; };       /* UTF8 body after the id */
struct raw_lc { uint64_t cid, name; uint32_t serial; };   /* LOAD_CLASS */
struct raw_frame { uint64_t id, method, sig, source; uint32_t class_serial; int32_t line; };
struct raw_trace { uint32_t serial, thread; uint64_t off; uint32_t nframes; };
struct raw_thread { uint64_t id; uint32_t serial, trace; };

struct scan {
	struct raw_obj *obj;  size_t nobj, capobj;   /* every object record incl. class dumps */
	uint64_t *cd;         size_t ncd, capcd;     /* CLASS_DUMP offsets */
	struct raw_root *root; size_t nroot, caproot;
	struct raw_str *str;  size_t nstr, capstr;
	struct raw_lc *lc;    size_t nlc, caplc;
	struct raw_frame *frame; size_t nframe, capframe;
	struct raw_trace *trace; size_t ntrace, captrace;
	struct raw_thread *thread; size_t nthread, capthread;
	uint64_t heap_bytes;  /* bytes of heap dump segments seen */
};

void scan_free(struct scan *s);

/* Consumes the scan (freed on return). Needs h->map/size/layout.idsize.
 * 0, or -1 with one line in err: no memory for a heap that big. */
int build_heap(struct heap *h, struct scan *s, struct progress *p, struct sbuf *err);

#endif
