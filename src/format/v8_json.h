/* v8_json.h — a reader of V8 heap snapshots (.heapsnapshot, the JSON
 * that Node's v8.writeHeapSnapshot and Chrome DevTools write).
 *
 * The reader fills column arrays straight from the mapped file: no tree
 * of JSON values, no allocation per value. One pass reads all but the
 * edges, whose end a quick scan finds; a second reads them, into their
 * columns or a batch at a time to the caller. Strings are not copied: their
 * offsets are kept, v8_string decodes one when it is shown. The file is
 * untrusted; nothing past map[size - 1] is read. */
#ifndef HW_V8_JSON_H
#define HW_V8_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "progress.h"
#include "util.h"

/* Column arrays, one entry per node / edge, in file order. Everything
 * is owned by the struct and freed by v8_snap_free. */
struct v8_snap {
	/* from snapshot.meta: index of each field in a node/edge record, -1 if absent */
	unsigned node_fields, edge_fields; /* record widths */
	int nf_type, nf_name, nf_id, nf_self_size, nf_edge_count, nf_trace_node_id, nf_detachedness;
	int ef_type, ef_name, ef_to;
	char **node_types; unsigned n_node_types; /* meta.node_types[0], the enum of `type` */
	char **edge_types; unsigned n_edge_types; /* meta.edge_types[0] */
	/* the root's node ordinal, 0 if snapshot.root_index is absent; the
	 * file's value counts numbers of "nodes" as to_node does (DevTools
	 * reads it so) and is divided here; one that is no node's record is
	 * a warning and 0 */
	uint64_t root_index;
	/* snapshot.node_count / edge_count / trace_function_count, UINT64_MAX if absent */
	uint64_t meta_node_count, meta_edge_count, meta_trace_function_count;
	/* set: the reading stopped there (the file's end, damage) or found
	 * fewer nodes or edges than meta claims, at their array: what the
	 * file had past it is missing (the heap's truncated_at) */
	uint64_t cut_at;
	/* snapshot.heapwalk present: heapwalk took the snapshot through an
	 * inspector session it closed, which cleared V8's ids (node.c) */
	int ids_reset;
	/* snapshot.heapwalk_taken_ms: when heapwalk took it, milliseconds
	 * since 1970 (V8's own snapshots say not); 0 if absent */
	uint64_t taken_ms;
	uint32_t nnodes, nedges; /* as read (complete records only) */
	/* Nodes. type, name, id, self_size and edge_count are required by the
	 * reader, so those arrays exist; ntrace and ndetached are NULL when
	 * meta has no such field (V8 before 2021 had no detachedness), and
	 * ntrace also when every node's is 0 (no allocation tracking).
	 * ntype: index into node_types, UINT8_MAX when the file's value is
	 * not one; nname: index into the strings, HW_NONE when past them;
	 * nsize and ntrace saturate at UINT32_MAX; nedges_of: the edges of
	 * each node, which follow those of the nodes before it (their sum
	 * is nedges, the reader trims it so). */
	uint8_t *ntype; uint32_t *nname; uint64_t *nid; uint32_t *nsize; uint32_t *nedges_of;
	uint32_t *ntrace; uint8_t *ndetached;
	uint64_t ncap; /* records the node columns have room for */
	/* Edges. etype: index into edge_types (UINT8_MAX: not one); ename:
	 * a string index (HW_NONE when past the strings), or for the edge
	 * types named "element" and "hidden" the element index as written;
	 * eto: the target's node ordinal (to_node / node_fields), HW_NONE
	 * when to_node is not a node's record. */
	uint8_t *etype; uint32_t *ename; uint32_t *eto;
	uint64_t ecap; /* records the edge columns have room for */
	/* File offset of each string's opening quote; UINT64_MAX for an
	 * entry of "strings" that is no string. */
	uint64_t *str_off; uint32_t nstr;
	/* Allocation tracking (node --track-heap-objects), numbers as in the
	 * file, empty when absent. n_tfi, n_loc, n_samples count records of
	 * tfi_fields, loc_fields, sample_fields numbers; u32 fields saturate. */
	uint32_t *trace_function_infos; uint64_t n_tfi; unsigned tfi_fields;
	/* index of these fields in a trace_function_infos / trace_tree
	 * record (meta's trace_function_info_fields, trace_node_fields), -1
	 * if absent; line is 1-based (0: unknown), as V8 writes it */
	int tfi_name, tfi_script, tfi_line, tt_id, tt_fi;
	/* trace_tree, flattened in pre-order (a parent before its children):
	 * n_tt records of tt_fields numbers, the fields of meta's
	 * trace_node_fields in their order without "children" (id,
	 * function_info_index, count, size), then the parent's record number
	 * in this array (HW_NONE for a top-level node). */
	uint32_t *trace_tree; uint64_t n_tt; unsigned tt_fields;
	uint32_t *locations; uint64_t n_loc; unsigned loc_fields;
	uint64_t *samples; uint64_t n_samples; unsigned sample_fields;
	/* offset of the value of "nodes" / "edges" / "strings", 0 if absent */
	uint64_t nodes_at, edges_at, strings_at;
	uint64_t names_bad; /* nodes' names past the strings, said after the edges (v8_names_said) */
	/* the most edges the value of "edges" can hold (what v8_parse_edges
	 * can give: a bound for the nodes' edge counts, which the file
	 * claims before its edges are read) */
	uint64_t edges_room;
	uint64_t edges_claimed; /* the nodes' edge counts' sum as the file has them */
	uint8_t numeric_name[256]; /* edge types whose name_or_index is an index */
};

/* Parse the snapshot held in map[0..size) (a read-only mapping of the
 * file): v8_parse_heads, then v8_parse_edges into the edge columns.
 * Numbers are written straight into the arrays,
 * sized from snapshot.node_count / edge_count when present (and
 * possible in a file of that size), grown otherwise. The top-level
 * keys may come in any order (a value that needs meta and comes before
 * it is read after it: a second look at those bytes).
 * Returns 0, possibly with what was read before truncation or damage,
 * each problem a warning "PATH: offset N: what" added to w; or -1, with
 * one line "PATH: offset N: what" in err, when nothing usable is there
 * (no JSON object, no or bad snapshot.meta); s is then left empty. On
 * 0 the caller frees s with v8_snap_free. p may be NULL. drop: map is
 * a read-only mapping of a file, whose pages the pass lets go behind it
 * (the file is never resident whole; what is read again later comes
 * back from the page cache); 0 for memory of any other kind. fd: the
 * file that map shows, whose numeric arrays are read from it with
 * pread a window at a time, not through the mapping; -1: none. */
int v8_parse(const char *path, const uint8_t *map, uint64_t size, int drop, int fd, struct v8_snap *s,
	     struct progress *p, struct warnings *w, struct sbuf *err);

/* What v8_parse reads but the edges' numbers, whose place is noted
 * (edges_at, edges_room) and whose columns stay empty: a reader that
 * builds from the nodes first and then takes the edges one batch at a
 * time (v8_parse_edges) never holds them all. The edges are read last
 * whatever their place in the file, after the nodes and strings they
 * name; or, with in (not NULL), where they stand when those are read by
 * then (struct v8_inline, below), the room for them then bounded by the
 * rest of the file rather than by a count of their numbers. Returns as
 * v8_parse. content, unless NULL: the hash of all
 * of map[0..size) (store_hash's, seed 0), made as the pass reads the
 * bytes (from its window where it has them), the rest from map after
 * it, whatever the pass found. locations: 0, the allocation sites'
 * source positions are stepped over, not read (s->n_loc 0). */
struct v8_inline;
int v8_parse_heads(const char *path, const uint8_t *map, uint64_t size, int drop, int fd, struct v8_snap *s,
		   struct progress *p, struct warnings *w, struct sbuf *err, uint64_t *content, int locations,
		   struct v8_inline *in);

/* A batch of edges [at, at + n) in the file's order, each its type,
 * name and target as the edge columns hold them (struct v8_snap: names
 * past the strings already none, targets that are no node's HW_NONE). */
typedef void v8_edge_sink(void *ctx, uint64_t at, size_t n, const uint8_t *type, const uint32_t *name,
			  const uint32_t *to);

/* The edges read where they stand, in v8_parse_heads' one pass, not
 * stepped over and read again by v8_parse_edges (in, when not NULL).
 * They name the nodes and strings, which V8 writes before and after
 * them: the strings are found from the file's end first (the last key
 * of the top-level object; read only when the file ends with it, as
 * V8 writes it, else where they stand). When the pass meets "edges"
 * after meta, the nodes and the strings, ready(ctx, s) is called, s as
 * v8_parse_heads leaves it but for the values after the edges, and
 * gives the sink (1), the edges then read into it there and `done`
 * set; or 0, and they are read later, by v8_parse_edges, as without
 * in. A "strings" key met before the last one is then stepped over,
 * with a warning: the last is read (as JSON.parse keeps a key's last
 * value), where without in the first is. `stale`: the strings read
 * first proved no key's of the object the pass read (the pass ended, or
 * stopped, before it met them: another document after it, or damage);
 * what was made of them is wrong, and the caller reads the file again
 * without in. */
struct v8_inline {
	int (*ready)(void *ctx, struct v8_snap *s, v8_edge_sink **sink, void **sink_ctx);
	void *ctx;
	int done, stale;
};

/* Edge values read where they stand (struct v8_inline), counted: for
 * the tests, which see the one pass taken. */
extern unsigned long v8_edges_here;

/* After v8_parse_heads (same file, map and fd): the edges, to sink a
 * batch at a time (NULL: into s's edge columns), their problems
 * warnings in w. Edges past the nodes' edge counts' sum are not given;
 * s->nedges is then the number given. Into the columns, the counts are
 * cut to agree with it (a count past the edges read has no edges
 * there); a sink's reader, which counted on them, finds them as they
 * were. */
void v8_parse_edges(const char *path, const uint8_t *map, uint64_t size, int drop, int fd, struct v8_snap *s,
		    v8_edge_sink *sink, void *ctx, struct progress *p, struct warnings *w);
/* The nodes' names past the strings (s->names_bad), said once in w: by
 * the parse after the edges (a cut there is what left no strings), or
 * by a reader that stops before them. */
void v8_names_said(const char *path, struct warnings *w, struct v8_snap *s);
/* The bytes of v8_parse's window (0: its own, 256 KB); for the tests,
 * which make it small enough to end inside records. */
void v8_parse_window(size_t bytes);

/* Is this the start of a V8 snapshot? By content, not by name: '{',
 * optional whitespace, then one of the snapshot's keys ("snapshot",
 * "edges", "strings", ...: the parser takes them in any order; not
 * "nodes", a CPU profile's first key). */
int v8_probe(const uint8_t *head, size_t n);
/* format_ops' near: a JSON object that is no snapshot. */
const char *v8_near(const uint8_t *head, size_t n);

/* Decode the JSON string whose opening quote is at map + off to UTF-8
 * appended to out: escapes undone, \uXXXX surrogate pairs joined, a
 * lone surrogate U+FFFD. At most max bytes are appended (cut at a
 * character boundary), then "..." when the string is longer. Bytes of
 * the file pass as they are (the caller escapes them for a terminal).
 * Returns the length of the whole decoded string, or -1 (out
 * unchanged) when off holds no quote or the string is unterminated
 * before size or has a bad escape. */
long v8_string(const uint8_t *map, uint64_t size, uint64_t off, struct sbuf *out, size_t max);

/* Nodes [from, to) are given to the builder: the whole pages of their
 * ids, sizes and detachedness within let go (zeros from now on). */
void v8_snap_release_nodes(struct v8_snap *s, uint64_t from, uint64_t to);
/* The columns v8_snap_release_nodes lets go (ids, sizes, detachedness),
 * freed whole. */
void v8_snap_free_node_columns(struct v8_snap *s);
/* The nodes' edge counts [from, to) are read: their whole pages let go
 * (zeros from now on); v8_snap_free_counts frees them whole. */
void v8_snap_release_counts(struct v8_snap *s, uint64_t from, uint64_t to);
void v8_snap_free_counts(struct v8_snap *s);
/* The edge columns freed (v8_snap_free does it too). */
void v8_snap_free_edges(struct v8_snap *s);

/* Frees the arrays; s is left zeroed. Accepts a zeroed struct. */
void v8_snap_free(struct v8_snap *s);

#endif
