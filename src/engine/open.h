/* open.h — open a dump of any format heapwalk reads: map it, pick its
 * reader by content, load the index cache or parse, build and analyse,
 * save the cache. The one entry point the front ends use. */
#ifndef HW_ENGINE_OPEN_H
#define HW_ENGINE_OPEN_H

#include "format/clr_mark.h"
#include "graph/heap.h"
#include "graph/open.h"
#include "progress.h"

struct format_ops;
struct ruleset;

struct open_opts {
	int no_cache;   /* neither read nor write the cache */
	int quiet;      /* no progress, warnings only collected */
	int verbose;    /* every warning on stderr, not one line for them all */
	int verify_cache; /* hash the whole dump before trusting its cache */
	/* of a file of several heaps (Mono's heapshots), which one (1-based;
	 * 0: the last); a path "FILE:N" that names no file asks for N too */
	unsigned snapshot;
	/* reference-classifier rules to apply (graph/ownership.h), borrowed;
	 * NULL: the built-in default (Reference.referent weak, nothing else) */
	struct ruleset *rules;
	/* unreachable objects keep what they refer to (struct heap's
	 * keep_unreachable); 0: what the GC roots reach is analysed alone */
	int keep_unreachable;
};

/* Returns 0 and a ready heap, or -1 with a one-line error in err
 * ("FILE: offset N: what" or "FILE: what"). On failure h needs no free. */
int heap_open(struct heap *h, const char *path, const struct open_opts *o,
	      struct progress *p, struct sbuf *err);

/* Work about to read most of the dump at random (the matcher, an
 * inspection over most of the heap) calls this first: a gzip dump read
 * through a view (its members inflated as they are read, a few kept)
 * would inflate each of them again and again, so it is inflated once
 * into a file (in the private cache directory, or $TMPDIR), mapped in
 * the view's place at the same addresses, and the file removed (its
 * pages stay while mapped). Where there is no room on disk, the view
 * keeps every member it makes when memory has room for them all; and
 * where neither has, h's warnings say so (the work goes on through the
 * view, slowly). Nothing for any other dump, or a second time. */
void heap_whole(struct heap *h, struct progress *p);

/* Whether the file out would be (it need not exist) one heapwalk reads or
 * keeps with the dump at path ("FILE:N" too): its index cache (beside
 * it or in the private cache directory, a heapshot's too), a .NET mark
 * file, a gzip dump's index or inflated copy. Writing over one would
 * lose what the dump cannot give again (a mark file is the GC's record
 * of a moment gone). */
int dump_companion(const char *out, const char *path);

/* The readers, in the order they are tried: the i-th, NULL past them. */
const struct format_ops *format_at(size_t i);
/* What heapwalk reads, in words, into out: each reader's label, "or"
 * before the last, then the container ("; each plain or in gzip ..."). */
void formats_say(struct sbuf *out);

/* The reader for a file that starts with head[0..n), NULL if none. */
const struct format_ops *format_find(const uint8_t *head, size_t n);
/* What head[0..n) is when no reader takes it but one knows its kind
 * (format_ops' near: "a JSON object, but no V8 heap snapshot..."); NULL. */
const char *format_near(const uint8_t *head, size_t n);

/* A .NET trace being recorded (cli/dotnet.c): how far its heap dump has
 * come in the bytes written so far (map[0..size)), its reader's answer
 * (format/clr.h's clr_watch): the dump's GC started, ended, its count,
 * the objects told so far, the GC's own time in ms once it has ended
 * (GCStart to GCEnd; -1: not known). Front ends parse nothing
 * themselves. */
struct trace_watch { int started, ended; uint32_t count; uint64_t nodes; double pause_ms; };
void trace_watch(const uint8_t *map, uint64_t size, struct trace_watch *w);

/* A .NET mark's file (cli/dotnet_mark.c): the mark's heap and the
 * recorder's stream replayed to the snapshot, its reader's work
 * (format/clr_mark.h's clr_mark_replay, whose answer this is). */
int trace_mark_replay(const struct clr_mark_in *in, struct sbuf *out, struct sbuf *said, struct sbuf *err);

#endif
