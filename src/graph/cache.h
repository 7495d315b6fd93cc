/* cache.h — the LZ4-compressed index cache beside the dump (or under
 * $XDG_CACHE_HOME): the built graph and its analyses, so that a reopen
 * skips parsing. Never trusted: versioned header, dump identity
 * (size, mtime, inode, sampled content hash), per-section checksums. */
#ifndef HW_CACHE_H
#define HW_CACHE_H

#include "graph/heap.h"
#include "graph/store.h"

/* The file starts with this header (in the machine's byte order), then
 * the table of sections and the sections. `check` is cache_checksum()
 * of the header's bytes before it. A cache of another format is never
 * read: the number goes up whenever what is stored changes (8: struct
 * hfield got its offset; 9: the hash of the whole dump; 10: where the
 * agent's allocation times are; 11: where a truncated dump ends; 12: the
 * sections where the table says, in chunks (4 MiB then), graph/store.h; 13:
 * integer sections as differences, their bytes shuffled; 15: every
 * format's, with its reader's own arrays; 16: each generation's totals;
 * 17: root records of the one table of kinds, with the reader's own;
 * 18: the references the CDS archive's roots miss, counted; 19: V8's
 * mark of heapwalk's own snapshots, whose ids were reset after them;
 * 20: chunks of 1 MiB, not 4; 21: V8's edge labels that do not fit
 * their word kept beside it, for every format of edge types; 22: a
 * .NET trace's type names whole, not ASCII with '?' for the rest; 23:
 * type names of more than one module, one class per module (a .gcdump's,
 * a trace's with the rundown's modules), a trace's type names past 1000
 * bytes whole, a .gcdump's warnings of a sample or a file not ended,
 * and the weakly reachable's references into what the roots hold set
 * aside, WEAK_WEAKLY, with a pseudo root for every weak referent; 24:
 * classes' qualified names, hclass.qual; 25: their keys, hclass.key;
 * 26: a root record's copies, the file's records alike to it; 27: a
 * Mono heapshot's time its start's, not its end's; 28: truncated_at of
 * a V8 snapshot, a .NET trace or a Mono file that lost part of its heap,
 * and of an HPROF cut between records; 29: a .gcdump's pid; 30: the owned
 * objects and their owns rules, own_node and own_rule; 31: V8 class
 * names whole up to 4096 bytes, a longer one told apart by its string; a
 * cut .NET trace's generations; a trace's time to the millisecond; 32:
 * V8 natives Detached as DevTools propagates the mark; 34: chunks of
 * 256 KiB; 35: a cut Mono heapshot's count of objects in the list, an
 * object cut after its size counted as the heap keeps it). */
#define CACHE_FORMAT 35
struct cache_ident {
	uint64_t size, mtime_s, mtime_ns, ino, dev, sample;
};
struct cache_header {
	char magic[8];
	uint32_t format, endian, node_size, edge_size;
	struct cache_ident id;
	uint64_t content;     /* hash of the whole dump, for --verify-cache */
	uint32_t nsect, pad;
	uint64_t table_check; /* of the section table */
	uint64_t check;       /* of everything above */
};
uint64_t cache_checksum(const void *p, size_t n, uint64_t seed);

/* The cache's path for this dump: "DUMP.hwi" when the dump's directory
 * is writable and no file is there that another user could have put or
 * could change (not a regular file, not ours, writable by others); else
 * in the private directory, $XDG_CACHE_HOME/heapwalk/<hash>-NAME.hwi
 * (~/.cache without it, $TMPDIR/heapwalk-UID without HOME), made 0700
 * and checked (ours, no symlink, closed to others). NULL if there is
 * no such directory: then no cache. Why a file beside the dump was
 * refused, or why there is no cache, goes to note (escaped; may be
 * NULL). Caller frees. */
char *cache_choose(const char *dump_path, struct sbuf *note);
/* The cache of heap `snap` of a file of several (Mono's heapshots):
 * "DUMP.N.hwi", chosen as the cache is; snap 0 (the one a plain open
 * reads) is the cache's own name. */
char *cache_choose_snap(const char *dump_path, uint32_t snap, struct sbuf *note);
/* The same without the note. */
char *cache_path(const char *dump_path);
/* The start of the name the private directory gives a file of this
 * dump, "<dir>/<hash>-NAME" (a suffix to be added: the cache's is
 * ".hwi"), the directory made and checked as for the cache; NULL without
 * one. Caller frees. */
char *cache_private_base(const char *dump_path);
/* The private directory itself ($XDG_CACHE_HOME/heapwalk, ...), made
 * and checked as for the cache; NULL when it cannot be trusted. Caller
 * frees. */
char *cache_private_dir(void);

/* Fill h (already mapped: path, map, size, fd, cache_file set) from the
 * cache, which must be a regular file of ours closed to others: the
 * scalars and the small tables (classes, names, roots, threads) at
 * once; the per-node and per-reference arrays stay NULL until
 * heap_need() (resident.h) loads them. Returns 0 on success; -1 if absent,
 * stale, foreign, truncated or corrupt, with a reason in *why (static
 * string) — then h is unchanged apart from what heap_free() releases. */
int cache_load(struct heap *h, int verify, const char **why);

/* Array i of the reader's own (format_ops' data_arrays), which the
 * cache kept waiting (data_lazy), read from it: a new array of count
 * elements of elem bytes and room for one more; NULL if it cannot be
 * read (corrupt). */
void *cache_reader_get(struct heap *h, int i, uint32_t elem, uint64_t count);
/* Does the index cache h reads (opened, or written by cache_finish)
 * hold the reader's arrays, for cache_reader_get? */
int cache_holds_reader(const struct heap *h);
/* The id of that array's section in a cache file (for the tests). */
uint32_t cache_reader_section(int i);

/* Is there a cache at cache_file for the dump h knows (its file: fd and
 * file_map, or map), of this version, ours? Its header only: a cheap
 * look before choosing how to read the dump; cache_load decides. */
int cache_current(const struct heap *h, const char *cache_file);

/* Load the parts (HP_*) not in memory from the file behind h, the
 * bytes loaded told to p (NULL: none; its phase begun by the caller). -1
 * with *why if a section of a cache turns out corrupt: then every big
 * array is NULL again and the file is let go (a scratch file of this
 * run's that fails to read back ends the program: nothing else has
 * it). With may_cancel, p cancelled between two parts ends it: 1, the
 * parts loaded so far kept. */
int cache_load_rest(struct heap *h, unsigned parts, struct progress *p, int may_cancel, const char **why);
void cache_lazy_free(struct heap *h);
/* Are the parts in memory? Is the file behind h a cache of an earlier
 * run (what is loaded from it is checked)? */
int cache_has(const struct heap *h, unsigned part);
/* The parts whose arrays are all empty and NULL (none was made, or
 * they were parked) get one zeroed entry each: the passes take the
 * address of an array's start, which C leaves undefined for NULL.
 * Not HP_IDS, whose NULL means the ids are kept another way. */
void cache_fill_empty(struct heap *h, unsigned parts);
int cache_from_disk(const struct heap *h);
/* The bytes of the parts' arrays not in memory. */
uint64_t cache_part_bytes(struct heap *h, unsigned parts);

/* Writing, as a heap is built (engine/open.c, the readers, graph/
 * analysis.c). cache_begin gives h the file its big arrays can be
 * parked in: the index cache's temporary file (h->cache_file set), or
 * else a scratch file, unlinked at once, beside where the cache or the
 * dump is, or in $TMPDIR; 0, or -1 when no file can be made (all stays
 * in memory). A heap that had a file (a cached open) lets it go: what it
 * keeps must be in memory. heap_park (resident.h) writes a part there once
 * and frees it; cache_changed says a part's arrays were made anew
 * since (parking writes them again). cache_finish writes the rest and
 * the header, syncs, and renames the cache into place (the dump's
 * read/write bits and group, never wider); a scratch file has nothing
 * to finish. Either way the heap reads what is parked from the open
 * file afterwards. 0, or -1 with a note in h->notes (the cache not
 * written). cache_save: both at once, for a heap whose every part is in
 * memory. heap_scratch: the store of that file for arrays of a phase's
 * own (ids from STORE_SCRATCH; drop them when done), NULL without one
 * or once a write to it failed. */
int cache_begin(struct heap *h);
void cache_changed(struct heap *h, unsigned parts);
/* The heap is built: a part neither in memory nor in the file is one
 * its reader does not make (V8 has no node_off), and heap_need leaves
 * it NULL. */
void cache_built(struct heap *h);
/* The one array of part is section id of heap_scratch(h) (written
 * there piece by piece by a reader), cache_scratch_id(part) best: as if
 * parked; cache_finish moves it into the cache. */
void cache_adopt(struct heap *h, unsigned part, uint32_t id);
uint32_t cache_scratch_id(unsigned part);
/* heap_scratch, even once a write there failed (what was written before
 * stays readable), for reading back; NULL without one. heap_scratch_done:
 * the scratch file let go if nothing is left there. */
struct store *heap_scratch_kept(struct heap *h);
void heap_scratch_done(struct heap *h);
int cache_finish(struct heap *h);
/* A note when the scratch file could not be written during the open
 * (a full disk): what was to be parked stayed in memory, past what the
 * memory counted on allows. */
void cache_spill_note(struct heap *h);
int cache_save(struct heap *h);
#define STORE_SCRATCH 1000      /* the analyses' (domtree: 1000..1015) */
struct store *heap_scratch(struct heap *h);
/* The parts written to the file behind h (those not there yet), kept in
 * memory: 0, or -1 if one could not be (no file, no room, not made).
 * heap_section: where the array of a part of one array (HP_OUT_TO...)
 * is in that file, to read it in order (store.h's seq); NULL if not
 * written there. */
int heap_store(struct heap *h, unsigned parts);
const struct store *heap_section(struct heap *h, unsigned part, uint32_t *id);

/* For the fuzzers (fuzz/drive.c): make a cache file's bytes in buf pass
 * the checks cache_load() makes before it decodes them: the dump's
 * identity set to h's (an open heap of the dump), the format this
 * heapwalk's (CACHE_FORMAT), each well-formed section's checksum, the
 * table's and the header's recomputed. 0, or -1 if buf is too short to
 * hold the header and the table. */
int cache_reseal(uint8_t *buf, size_t len, const struct heap *h);
/* For the cache fuzzer's mutator: section `which` (modulo those whose
 * first chunk is whole in buf) of the cache file in buf[0..len) given
 * to mutate as its values, not its compressed bytes: its first chunk
 * inflated, mutate(bytes, n, n) called on them (what it returns of the
 * n bytes; the rest kept), compressed again and put, with the section's
 * other chunks as they were, past len (the table pointed there). The new
 * length, or 0 when nothing was done (no such section, no room in max). */
size_t cache_mutate_section(uint8_t *buf, size_t len, size_t max, unsigned which,
			    size_t (*mutate)(uint8_t *p, size_t n, size_t max));

#endif
