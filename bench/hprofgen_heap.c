/* hprofgen_heap.c — hprofgen's objects: each written where the previous
 * one ends (its JVM size is the address gap), so an object's forward
 * references are sums of the sizes of what comes between; see hprofgen.c. */
#include <stdlib.h>

#include "hprofgen.h"

#define TAG_INSTANCE 0x21
#define TAG_OBJ_ARRAY 0x22
#define TAG_PRIM_ARRAY 0x23
#define STACK_SERIAL 1 /* HotSpot's dummy trace, on every object */

/* splitmix64: small, fast, and the same everywhere */
uint64_t rnd(struct gen *g)
{
	uint64_t z = (g->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* a value in [lo, hi] */
static uint32_t pick(struct gen *g, uint32_t lo, uint32_t hi)
{
	return lo + (uint32_t)(rnd(g) % ((uint64_t)hi - lo + 1));
}

unsigned type_size(uint8_t t)
{
	switch (t) {
	case T_BOOL: case T_BYTE: return 1;
	case T_CHAR: case T_SHORT: return 2;
	case T_INT: case T_FLOAT: return 4;
	default: return 8;
	}
}

uint64_t arr_size(unsigned esize, uint64_t n)
{
	return (16 + esize * n + 7) & ~(uint64_t)7;
}

uint64_t str_size(uint32_t len)
{
	return classes[K_STRING].size + arr_size(1, len);
}

uint64_t new_obj(struct gen *g, int k, uint64_t size)
{
	uint64_t id = g->addr;

	g->addr += size;
	g->count[k]++;
	g->bytes[k] += size;
	g->objects++;
	g->heap_bytes += size;
	return id;
}

/* INSTANCE_DUMP's header; the fields follow, then inst_end. */
uint64_t inst(struct gen *g, int k)
{
	struct out *o = &g->o;
	uint32_t n = g->hsize[k];

	if (classes[k].size == 0)
		abort(); /* a bug: an abstract class */
	out_sub(o, 25 + (uint64_t)n);
	uint64_t id = new_obj(g, k, classes[k].size);
	put1(o, TAG_INSTANCE);
	put8(o, id);
	put4(o, STACK_SERIAL);
	put8(o, g->mirror[k]);
	put4(o, n);
	g->rec_end = o->len + n;
	return id;
}

/* The writer put exactly the fields the class dump announced. */
void inst_end(struct gen *g)
{
	if (g->o.len != g->rec_end)
		abort();
}

/* ids[0..n) then nulls up to cap */
uint64_t obj_array(struct gen *g, int k, const uint64_t *ids, uint32_t n, uint32_t cap)
{
	struct out *o = &g->o;

	if (out_sub(o, 25 + 8 * (uint64_t)cap))
		abort(); /* MAX_ENTRIES keeps object arrays within a segment */
	uint64_t id = new_obj(g, k, arr_size(4, cap));
	put1(o, TAG_OBJ_ARRAY);
	put8(o, id);
	put4(o, STACK_SERIAL);
	put4(o, cap);
	put8(o, g->mirror[k]);
	for (uint32_t i = 0; i < n; i++)
		put8(o, ids[i]);
	for (uint32_t i = n; i < cap; i++)
		put8(o, 0);
	return id;
}

/* data: n elements in the dump's byte order, or NULL for zeros */
uint64_t prim_array(struct gen *g, int k, uint64_t n, const void *data)
{
	struct out *o = &g->o;
	unsigned es = type_size(classes[k].elem);
	int big = out_sub(o, 18 + n * es);
	uint64_t id = new_obj(g, k, arr_size(es, n));

	put1(o, TAG_PRIM_ARRAY);
	put8(o, id);
	put4(o, STACK_SERIAL);
	put4(o, (uint32_t)n);
	put1(o, classes[k].elem);
	if (big && data)
		out_bytes(o, data, n * es);
	else if (big)
		out_fill(o, 0, n * es);
	else if (data)
		putn(o, data, n * es);
	else {
		memset(o->buf + o->len, 0, n * es);
		o->len += n * es;
	}
	return id;
}

/* java.lang.String.hashCode of a Latin-1 string */
static uint32_t java_hash(const char *s, uint32_t len)
{
	uint32_t h = 0;

	for (uint32_t i = 0; i < len; i++)
		h = 31 * h + (unsigned char)s[i];
	return h;
}

/* A String and its byte[] (Latin-1, as compact strings store it). */
uint64_t string(struct gen *g, const char *s, uint32_t len, int hashed)
{
	struct out *o = &g->o;
	uint64_t id = inst(g, K_STRING);

	put1(o, 0); /* hashIsZero */
	put4(o, hashed ? java_hash(s, len) : 0); /* 0: not asked for yet */
	put1(o, 0); /* coder: LATIN1 */
	put8(o, id + classes[K_STRING].size);
	inst_end(g);
	prim_array(g, K_BYTES, len, s);
	return id;
}

/* len (<= 64) characters made unique by x, in buf */
static void text(char *buf, uint32_t len, uint64_t x)
{
	static const char pool[] = "session-user-order-item-cache-entry-config-value-request-handler-"
				   "metric-counter-token-buffer-record-payload-listener-node-key-";
	static const char digits[] = "0123456789abcdefghijklmnopqrstuv";

	memcpy(buf, pool + (x * 7) % 48, len);
	for (uint32_t i = len; i > 0 && x > 0; i--, x >>= 5)
		buf[i - 1] = digits[x & 31];
}

static uint64_t boxed_long(struct gen *g, uint64_t v)
{
	uint64_t id = inst(g, K_LONG);

	put8(&g->o, v);
	inst_end(g);
	return id;
}

static uint64_t boxed_int(struct gen *g, uint32_t v)
{
	uint64_t id = inst(g, K_INTEGER);

	put4(&g->o, v);
	inst_end(g);
	return id;
}

uint64_t array_list(struct gen *g, uint32_t size, uint64_t data)
{
	struct out *o = &g->o;
	uint64_t id = inst(g, K_ARRAYLIST);

	put4(o, size);
	put8(o, data);
	put4(o, size); /* AbstractList.modCount: one add per element */
	inst_end(g);
	return id;
}

/* ArrayList's capacity after n adds: 10, then grown by half */
uint32_t list_cap(uint32_t n)
{
	uint32_t cap = 10;

	while (cap < n)
		cap += cap >> 1;
	return n == 0 ? 0 : cap;
}

/* n ChainNodes, each the next one's predecessor; the first is returned */
uint64_t chain(struct gen *g, uint32_t n)
{
	struct out *o = &g->o;
	uint64_t first = g->addr;

	for (uint32_t i = 0; i < n; i++) {
		uint64_t id = inst(g, K_CHAIN);
		put4(o, i); /* value */
		put8(o, i + 1 < n ? id + classes[K_CHAIN].size : 0); /* next */
		inst_end(g);
	}
	return n ? first : 0;
}

/* ---- maps and lists: laid out first, then written ---- */

enum { V_STRING, V_INTEGER, V_LONG, V_SHARED };

static uint64_t value_size(int kind, uint32_t len)
{
	switch (kind) {
	case V_STRING: return str_size(len);
	case V_INTEGER: return classes[K_INTEGER].size;
	case V_LONG: return classes[K_LONG].size;
	default: return 0; /* an earlier object */
	}
}

static void write_value(struct gen *g, int kind, uint32_t len, uint64_t seq, uint64_t want)
{
	char buf[64];
	uint64_t id = want;

	switch (kind) {
	case V_STRING:
		text(buf, len, seq);
		id = string(g, buf, len, 0);
		break;
	case V_INTEGER: id = boxed_int(g, (uint32_t)seq); break;
	case V_LONG: id = boxed_long(g, seq * 1000003); break;
	default: return;
	}
	if (id != want)
		abort(); /* a bug: the layout and the writer disagree */
}

static uint32_t table_cap(uint32_t n)
{
	uint32_t cap = 16;

	while (n > cap / 4 * 3)
		cap *= 2;
	return n == 0 ? 0 : cap;
}

/* Node i's key (a String) and value follow it; keys are hashed into
 * their buckets as HashMap.put does, collisions chained by next. */
static void map_layout(struct gen *g, uint32_t n, uint32_t cap, int strings_only, uint64_t at, uint64_t seq)
{
	char buf[64];

	for (uint32_t b = 0; b < cap; b++)
		g->tab[b] = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t r = (uint32_t)rnd(g);
		g->klen[i] = (uint8_t)(6 + r % 26);
		r >>= 8;
		g->kind[i] = strings_only || r % 10 < 3 ? V_STRING : r % 10 < 8 ? V_INTEGER : V_LONG;
		text(buf, g->klen[i], seq + 2 * i);
		uint32_t h = java_hash(buf, g->klen[i]);
		g->hash[i] = h ^ (h >> 16);
		g->ids[i] = at;
		at += classes[K_NODE].size + str_size(g->klen[i]) + value_size(g->kind[i], g->klen[i]);
		g->next[i] = UINT32_MAX;
		uint32_t b = g->hash[i] & (cap - 1);
		if (g->tab[b] == 0)
			g->tab[b] = g->ids[i];
		else
			g->next[g->tail[b]] = i;
		g->tail[b] = i;
	}
}

uint64_t hash_map(struct gen *g, uint32_t n, int strings_only)
{
	struct out *o = &g->o;
	uint32_t cap = table_cap(n);
	uint64_t seq = g->seq;
	uint64_t table = cap ? g->addr + classes[K_HASHMAP].size : 0;

	if (cap > MAX_ENTRIES)
		abort(); /* a bug: the scratch arrays hold MAX_ENTRIES */
	g->seq += 2 * (uint64_t)n;
	map_layout(g, n, cap, strings_only, table + arr_size(4, cap), seq);
	uint64_t id = inst(g, K_HASHMAP);
	put4(o, 0x3f400000); /* loadFactor 0.75f */
	put4(o, cap / 4 * 3); /* threshold */
	put4(o, n); /* modCount */
	put4(o, n); /* size */
	put8(o, 0); /* entrySet */
	put8(o, table);
	put8(o, 0); /* AbstractMap.values */
	put8(o, 0); /* keySet */
	inst_end(g);
	if (cap)
		obj_array(g, K_NODES, g->tab, cap, cap);
	for (uint32_t i = 0; i < n; i++) {
		char buf[64];
		uint64_t node = inst(g, K_NODE), key = node + classes[K_NODE].size;
		uint64_t val = key + str_size(g->klen[i]);
		put8(o, g->next[i] == UINT32_MAX ? 0 : g->ids[g->next[i]]);
		put8(o, val);
		put8(o, key);
		put4(o, g->hash[i]);
		inst_end(g);
		text(buf, g->klen[i], seq + 2 * i);
		string(g, buf, g->klen[i], 1);
		write_value(g, g->kind[i], g->klen[i], seq + 2 * i + 1, val);
	}
	return id;
}

/* ---- the units of the bulk ---- */

static uint64_t unit_string(struct gen *g)
{
	char buf[64];
	uint32_t len = pick(g, 4, 48);

	text(buf, len, g->seq++);
	uint64_t id = string(g, buf, len, 0);
	g->ring[g->ring_n++ % RING] = id;
	return id;
}

/* An ArrayList of fresh Strings and boxed numbers, some elements
 * Strings made earlier (shared, so not dominated by the list). */
static uint64_t unit_list(struct gen *g)
{
	uint64_t r = rnd(g);
	uint32_t n = r % 100 < 75 ? pick(g, 0, 10) : r % 100 < 98 ? pick(g, 11, 60) : pick(g, 61, 1000);
	uint32_t cap = list_cap(n);
	uint64_t at = g->addr + classes[K_ARRAYLIST].size + (n ? arr_size(4, cap) : 0), seq = g->seq;

	if (n > MAX_ENTRIES)
		abort();
	g->seq += n;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t p = (uint32_t)(rnd(g) % 100);
		g->klen[i] = (uint8_t)pick(g, 4, 40);
		g->kind[i] = p < 55 ? V_STRING : p < 75 && g->ring_n ? V_SHARED : p < 90 ? V_LONG : V_INTEGER;
		g->ids[i] = g->kind[i] == V_SHARED ? g->ring[rnd(g) % (g->ring_n < RING ? g->ring_n : RING)] : at;
		at += value_size(g->kind[i], g->klen[i]);
	}
	uint64_t id = array_list(g, n, n ? g->addr + classes[K_ARRAYLIST].size : g->boot[B_EMPTY]);
	if (n)
		obj_array(g, K_OBJECTS, g->ids, n, cap);
	for (uint32_t i = 0; i < n; i++)
		write_value(g, g->kind[i], g->klen[i], seq + i, g->ids[i]);
	return id;
}

static uint64_t unit_map(struct gen *g)
{
	uint64_t r = rnd(g);
	uint32_t n = r % 1000 < 650 ? pick(g, 0, 8) : r % 1000 < 985 ? pick(g, 9, 64) : pick(g, 65, 2000);

	return hash_map(g, n, 0);
}

/* Mostly short chains, some long, a few very long (deep dominator trees) */
static uint64_t unit_chain(struct gen *g)
{
	uint64_t r = rnd(g) % 10000;
	uint32_t n = r < 9500 ? pick(g, 1, 32) : r < 9990 ? pick(g, 33, 2048) : pick(g, 2049, 100000);

	return chain(g, n);
}

static uint64_t unit_prim(struct gen *g)
{
	uint64_t r = rnd(g) % 1000;
	static const int kinds[10] = { K_BYTES, K_BYTES, K_BYTES, K_INTS, K_INTS, K_LONGS, K_LONGS,
				       K_CHARS, K_DOUBLES, K_INTS };
	int k = kinds[r % 10];
	uint32_t n = r < 850 ? pick(g, 0, 256) : r < 995 ? pick(g, 257, 16384) : pick(g, 16385, 1 << 20);

	return prim_array(g, k, n, NULL);
}

uint64_t unit(struct gen *g)
{
	unsigned p = (unsigned)(rnd(g) % 100);

	if (p < 45)
		return unit_string(g);
	if (p < 70)
		return unit_list(g);
	if (p < 88)
		return unit_map(g);
	if (p < 96)
		return unit_chain(g);
	return unit_prim(g);
}
