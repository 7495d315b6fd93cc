/* dumps.h — the synthetic dumps the fuzzers start from: the shapes of
 * the test suite's writer (tests/hprofw.h), small enough that a run
 * takes milliseconds. Each fills w (caller hw_free()s it). */
#ifndef HW_FUZZ_DUMPS_H
#define HW_FUZZ_DUMPS_H

#include <stddef.h>

#include "../tests/hprofw.h"

struct fz_shape {
	const char *name;          /* a file name: "sample.hprof" */
	void (*make)(struct hw *w);
};

/* Every shape, in a fixed order; *n their number. */
const struct fz_shape *fz_shapes(size_t *n);

/* The sample heap of test_graph.c (ids of 8 bytes). */
void fz_sample(struct hw *w);
/* The JDK-like classes with Strings (two equal), a weak reference, class
 * loaders, object arrays, a thread with frames and a trace: the dump
 * the cache and rules fuzzers open. */
void fz_rich(struct hw *w);
/* Two snapshots of one JVM session as heapwalk's agent writes them
 * (phase 1 before any mark, phase 2 after one): a String gone between
 * them, one new since the mark. */
void fz_agent(struct hw *w, int phase);

#endif
