/* clr.h — what the .NET runtime (the CLR) reports of its heap, as the
 * .NET readers (format/clr.c, gcdump.c) put it into the heap model, for
 * the inspections that read it: root kinds and generations; its handles
 * through struct runtime_ops (clr_runtime, runtime/clr.c). */
#ifndef HW_RUNTIME_CLR_H
#define HW_RUNTIME_CLR_H

#include "graph/reader.h"

/* The reader's own root kinds (struct root's native; format/clr.c's
 * clr_root_natives map them to the table of kinds): the runtime's
 * GCRootKind (stack, finalizer queue, GC handle, older generation,
 * sized reference, other), then the kinds heapwalk tells apart by the
 * root's flags or event. */
enum {
	CLR_ROOT_STACK, CLR_ROOT_FINALIZER, CLR_ROOT_HANDLE, CLR_ROOT_OLDER, CLR_ROOT_SIZEDREF, CLR_ROOT_OTHER,
	CLR_ROOT_REFCOUNTED,   /* a ref-counted (COM) handle */
	CLR_ROOT_STACK_PINNED, /* a pinned local */
	CLR_ROOT_PINNED,       /* a pinned GC handle */
	CLR_ROOT_DEPENDENT,    /* a dependent handle's value (.gcdump: its key is not told) */
	CLR_ROOT_STATIC,       /* a static variable */
	CLR_ROOT_FROZEN,       /* in a frozen (non-GC) segment: never collected */
	CLR_ROOT_COUNT
};

/* Generations (h->node_gen): the runtime's 0-4, then the objects in no
 * generation's range: the frozen segments' (string literals, RuntimeType
 * objects and the like the runtime allocates outside the GC's heap and
 * never collects), rooted as CLR_ROOT_FROZEN when the ranges are told. */
enum { CLR_GEN0, CLR_GEN1, CLR_GEN2, CLR_LOH, CLR_POH, CLR_NONGC, CLR_NGENS };

/* The .NET runtime's table (graph/reader.h): its handles. */
extern const struct runtime_ops clr_runtime;
/* Mono's (format/mlpd.c): the arrays, told by their classes' names. */
extern const struct runtime_ops mono_runtime;

/* What the reader keeps beyond the graph (h->fmt_data): the readers'
 * and clr_runtime's, nobody else's. */
struct clr_data {
	/* the targets of weak (short and long) GC handles: no roots */
	node_t *weak;
	size_t nweak;
	/* dependent handles: (key, value) pairs, by key; each is also a
	 * reference from the key to the value */
	node_t *dep_key, *dep_value;
	size_t ndep;
	/* the trace's process and clock, which bind a mark file to it */
	uint32_t pid;
	uint64_t sync_qpc;
};

#endif
