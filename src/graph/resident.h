/* resident.h — which parts of a heap are in memory, and the memory
 * they may take: below the analyses, which load what they read through
 * here (the driver that builds and analyses is graph/open.h). */
#ifndef HW_RESIDENT_H
#define HW_RESIDENT_H

#include "graph/heap.h"
#include "progress.h"

/* Make sure the parts (HP_* of heap.h) of h are in memory: after an
 * open the big arrays are loaded when first needed; a cache that proves
 * corrupt then is replaced by parsing the dump again (with a warning).
 * Call before using the per-node or per-reference arrays.
 * heap_park: the parts written to the file behind h (once) and let go
 * of, until heap_need loads them again; with no such file (or no room
 * left on its disk) they stay. */
void heap_need(struct heap *h, unsigned parts, struct progress *p);
/* heap_need, with a refusal as a value: 0, or -1 with the one line in
 * err (the dump, what loading the parts needs, what there is) when the
 * memory budget does not hold them; then nothing is loaded. heap_need
 * itself refuses with hw_refuse. */
int heap_try_need(struct heap *h, unsigned parts, struct progress *p, struct sbuf *err);
void heap_park(struct heap *h, unsigned parts);
/* Work on h cut short by a jump out of it (a refusal, SIGBUS: the
 * browser goes on after either): h is busy no more, and a section the
 * work was writing to the file behind h is let go, never ended (else
 * the next section there would be refused as written over it). The
 * blocks the work kept to make again (hw_recycle) are let go. */
void heap_unwound(struct heap *h);
/* free(p), or hw_recycle(p) while work on h goes on (h->busy: the build,
 * an analysis), whose end lets go what is kept: a view's work keeps
 * nothing past it. */
void heap_recycle(const struct heap *h, void *p);
/* heap_need without what the reader's decoding reads: exactly those
 * parts (the engine's own passes over the arrays). */
void heap_load(struct heap *h, unsigned parts, struct progress *p);

/* The memory the engine may count on, in bytes: HEAPWALK_MEMORY_MB when
 * set (tests make it small to take the thrifty ways), else what the
 * system has available (0: unknown). heap_tight: would `bytes` more take
 * over half of it? Then a phase takes its slower way that holds less.
 * heap_room_for: may a heap of `nodes` objects be built and analysed
 * (HEAP_BUILD_BYTES an object at the peak and `extra` bytes besides;
 * against the system's memory, what the process holds already counted
 * as its own; against HEAPWALK_MEMORY_MB, that is all)? 0, or -1 with one line in err naming the
 * dump, the memory needed and the memory there is: refused before the
 * work starts rather than killed halfway. (analysis_roots keeps its in-
 * and out-references within HEAP_BUILD_BYTES an object too: past it, the
 * targets wait on disk while in[] is made.) */
#define HEAP_BUILD_BYTES 28
uint64_t heap_memory_budget(void);
int heap_tight(uint64_t bytes);
int heap_room_for(const struct heap *h, uint64_t nodes, uint64_t extra, struct sbuf *err);

/* madvise() the dump's mapping (MADV_SEQUENTIAL before a pass in file
 * order; MADV_DONTNEED after it, to let its pages go from this process:
 * they stay in the page cache, the kernel's to keep or drop, and are
 * read again as needed; MADV_RANDOM, which also takes back
 * heap_map_populate's huge pages); nothing for a gzip dump read at
 * random. */
void heap_map_advise(struct heap *h, int advice);
/* The same for the pages within bytes [from, to) of the dump. */
void heap_map_advise_range(struct heap *h, uint64_t from, uint64_t to, int advice);
/* The whole dump's pages mapped in one call before a pass that reads
 * them all (not a fault each few pages), when it surely fits in memory
 * (8 GiB at most), those read from disk in huge pages; nothing for a
 * gzip dump read at random. */
void heap_map_populate(struct heap *h);
/* A pass over the dump in file order lets its pages go behind it when
 * the dump is large beside the memory (over a quarter of it: `on`):
 * heap_behind(h, b, to) gives up what lies before `to`, 256 MiB at a
 * time. */
struct behind {
	int on;
	uint64_t done;
};
void heap_behind_init(struct heap *h, struct behind *b);
void heap_behind(struct heap *h, struct behind *b, uint64_t to);

/* Map `path` read-only into h (path, map, size, fd): 0, or -1 with one
 * line in err (the file named, escaped). An empty file maps as NULL, 0. */
int heap_map_file(struct heap *h, const char *path, struct sbuf *err);
/* Do the files of a and b (as on disk: a gzip dump's compressed bytes)
 * hold the same bytes? Read through their mappings, a MB at a time. */
int heap_same_bytes(const struct heap *a, const struct heap *b);

#endif
