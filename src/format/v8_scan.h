/* v8_scan.h — private to the V8 snapshot reader (v8_*.c): the reading
 * state and the JSON scanner under it. The scanner never reads past
 * r->end; a problem it meets ends the value being read (v8s_problem). */
#ifndef HW_V8_SCAN_H
#define HW_V8_SCAN_H

#include <stdint.h>
#include <string.h>

#include "format/v8_json.h"
#include "graph/store.h"

#define V8_DEPTH_MAX 10000 /* deeper nesting is damage, not a snapshot */
#define V8_FIELDS_MAX 64    /* numbers of a node or edge record */
#define V8_TT_FIELDS_MAX 16 /* of a trace tree node, children included */

enum v8_key { K_SNAPSHOT, K_NODES, K_EDGES, K_TFI, K_TT, K_SAMPLES, K_LOC, K_STRINGS, K_N };

struct rd {
	const uint8_t *base, *p, *end;
	const char *path;
	struct v8_snap *s;
	struct progress *pr;
	struct warnings *w;
	struct sbuf *err;
	int stop;      /* the value being read cannot be read on */
	int have_meta; /* a valid start: problems are warnings from now on */
	int done[K_N];
	uint64_t later[K_N]; /* offsets of values to read after meta, 0 none */
	unsigned tt_width;   /* trace_node_fields, children included */
	int tt_ok;           /* and children is the last of them */
	int quiet;     /* a problem ends the value, but is no warning (its reading proper says it) */
	int no_locations; /* "locations" stepped over (v8s_skip_array), not read */
	uint64_t edges_end; /* past the value of "edges" (v8s_skip_edges), or the file's end */
	uint64_t edges_nums; /* the most numbers there, by the quick scan's count (0: not counted) */
	struct v8_inline *in; /* the edges read where they stand (v8_json.h), or NULL */
	uint64_t last_strings, last_strings_end; /* the value of the last key, "strings", read first; 0 none */
	int last_met; /* and the pass met it, a key of the object it read */
	int checked; /* v8s_check done (before edges read where they stand) */
	/* numbers that were no unsigned integer, in the array being read */
	uint64_t odd, odd_at;
	/* the pages of the file around the reader (v8s_window): faulted in
	 * up to `ahead`; with `drop`, let go below `behind` */
	int drop;
	uint64_t ahead, behind;
	/* The file's bytes [win_at, win_at + win_len) in win, read with
	 * pread from fd (v8s_refill): the records of the numeric arrays
	 * are read there, not through the mapping, whose pages each cost a
	 * fault and a place in the page tables (in a virtual machine the
	 * mapping alone cost as much as a copy three times over). NULL: no
	 * file to read (the map is memory, or the read failed). */
	int fd;
	uint8_t *win;
	uint64_t win_at, win_len, win_cap;
	uint64_t win_margin; /* refilled when fewer bytes are left ahead */
	/* offsets at in [win_keep_at, win_keep_at + win_keep_len] need no
	 * refill (v8s_refill sets them; the zeros before it fail for every
	 * record's offset): one test a record, the whole one past them */
	uint64_t win_keep_at, win_keep_len;
	/* the file's bytes [0, hashed) are in hx (NULL: no hash made) */
	struct store_hasher *hx;
	uint64_t hashed;
};

static inline uint64_t pos(const struct rd *r)
{
	return (uint64_t)(r->p - r->base);
}

static inline const uint8_t *skip_ws(const uint8_t *p, const uint8_t *end)
{
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	return p;
}

/* skip_ws backwards: p moved back over the whitespace before it, not
 * before from. */
static inline const uint8_t *skip_ws_back(const uint8_t *from, const uint8_t *p)
{
	while (p > from && (p[-1] == ' ' || p[-1] == '\n' || p[-1] == '\r' || p[-1] == '\t'))
		p--;
	return p;
}

static inline void ws(struct rd *r)
{
	r->p = skip_ws(r->p, r->end);
}

static inline uint32_t sat32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* Keep the file's pages around the reader resident: the next few MB
 * faulted in at once, and with r->drop those well behind it let go (a
 * read-only file mapping: they come back from the page cache if read
 * again). Called often; does something every few MB. */
void v8s_window(struct rd *r);

/* A problem that ends the value being read (r->stop): before meta the
 * error of the whole parse (the first problem only), after it a
 * warning. "PATH: offset AT: what". Returns -1. */
int v8s_problem(struct rd *r, uint64_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Past the closing quote of the string that opens at p; NULL when it
 * is unterminated before end. */
const uint8_t *v8s_str_end(const uint8_t *p, const uint8_t *end);
/* The last byte c in [from, to), NULL if none. */
const uint8_t *v8s_last_byte(const uint8_t *from, const uint8_t *to, uint8_t c);
/* Skip one value of any shape (0, or -1 after a problem). */
int v8s_skip_value(struct rd *r);
/* Byte c after whitespace, stepped over (0), or a problem naming where. */
int v8s_expect(struct rd *r, uint8_t c, const char *where);
/* A number that is no plain unsigned integer: see next_num. */
int v8s_num_slow(struct rd *r, uint64_t *v);
/* After an array: one warning for its odd numbers, if any. */
void v8s_odd_done(struct rd *r, const char *where);
/* How many records of `width` numbers to make room for: n (UINT64_MAX:
 * unknown, a start) believed only as far as the rest of the file can
 * hold records of at least min bytes a number. */
uint64_t v8s_room(const struct rd *r, uint64_t n, unsigned width, unsigned min);

/* The value of 8 decimal digits, one a byte, the first the lowest
 * byte (as read from memory, little-endian): pairs, quads and the eight
 * combined by multiplications. */
static inline uint64_t swar_value(uint64_t x)
{
	x = (x * (10 * 256 + 1)) >> 8;
	x = ((x & 0x00ff00ff00ff00ffu) * (100 * 65536 + 1)) >> 16;
	return ((x & 0x0000ffff0000ffffu) * (10000 * (1ull << 32) + 1)) >> 32;
}

/* The leading decimal digits of the 8 bytes at p (all readable): how
 * many (0 to 8), their value in *v. Eight bytes at a time: most numbers
 * of a snapshot have 1 to 8 digits, and a byte loop with a bounds check
 * and a branch per digit is most of the time of the whole parse. */
static inline unsigned swar_digits(const uint8_t *p, uint64_t *v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t c;

	memcpy(&c, p, 8);
	/* a byte's top bit set in either term: not '0'..'9' (carries and
	 * borrows only go up, past the first such byte, which is all we want) */
	uint64_t nd = ((c + 0x4646464646464646u) | (c - 0x3030303030303030u)) & 0x8080808080808080u;
	unsigned len = nd ? (unsigned)__builtin_ctzll(nd) >> 3 : 8;
	if (len == 0) {
		*v = 0;
		return 0;
	}
	/* the digits to the top, zeros (leading zeros) below */
	*v = swar_value((c - 0x3030303030303030u) << (64 - 8 * len));
	return len;
#else
	unsigned len = 0;
	uint64_t x = 0;

	while (len < 8 && (unsigned)(p[len] - '0') < 10)
		x = x * 10 + (unsigned)(p[len++] - '0');
	*v = x;
	return len;
#endif
}

/* The next element of a numeric array into *v; *first is set until an
 * element is read. Returns 1 for a value, 0 at the closing bracket
 * (stepped over), -1 after a problem. Anything but an unsigned integer
 * (a sign, a fraction, an exponent, 20 digits, no number at all) is
 * counted in r->odd and read by v8s_num_slow: its integer part,
 * saturated, negatives and non-numbers 0. Inline: it is the loop that
 * reads most of the file. */
static inline __attribute__((always_inline)) int next_num(struct rd *r, int *first, uint64_t *v,
								 const char *where)
{
	const uint8_t *p = r->p, *end = r->end;

	if (p < end && *p == ',' && !*first) { /* the common case: "1,2" */
		p++;
	} else {
		p = skip_ws(p, end);
		if (p < end && *p == ']') {
			r->p = p + 1;
			return 0;
		}
		if (!*first) {
			r->p = p;
			if (p >= end)
				return v8s_problem(r, pos(r), "truncated in %s", where);
			if (*p != ',')
				return v8s_problem(r, pos(r), "expected ',' or ']' in %s", where);
			p++;
		}
		*first = 0;
	}
	if (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p = skip_ws(p, end);
	const uint8_t *q = p;
	uint64_t x = 0;
	unsigned d;
	if (end - p >= 8) {
		unsigned len = swar_digits(p, &x);
		p += len;
		if (len == 8) /* more digits than a word: V8's big ids, or damage */
			while (p < end && (d = (unsigned)(*p - '0')) < 10) {
				x = x * 10 + d;
				p++;
			}
	} else {
		while (p < end && (d = (unsigned)(*p - '0')) < 10) {
			x = x * 10 + d;
			p++;
		}
	}
	if (p > q && p - q <= 19 && (p == end || (*p != '.' && *p != 'e' && *p != 'E'))) {
		r->p = p;
		*v = x;
		return 1;
	}
	r->p = q;
	if (q >= end)
		return v8s_problem(r, pos(r), "truncated in %s", where);
	if (r->odd++ == 0)
		r->odd_at = pos(r);
	return v8s_num_slow(r, v);
}

/* The digits of a number past its first 8 (p just past them, x their
 * value): p past them all, x their value; NULL when the number has more
 * than 19 digits, reaches end, or leaves less than `room` bytes after
 * it (for the rest of the record). V8's big ids, or damage. */
static inline const uint8_t *long_tail(const uint8_t *p, const uint8_t *end, uint64_t *x, uint64_t room)
{
	const uint8_t *q = p - 8;
	unsigned d;

	while (p < end && (d = (unsigned)(*p - '0')) < 10 && p - q < 20) {
		*x = *x * 10 + d;
		p++;
	}
	if (p == end || p - q > 19 || (uint64_t)(end - p) < room)
		return NULL;
	return p;
}

/* A whole record of w numbers at p, before end: each after its
 * separator (',' or "\n,", as V8 writes them) and an unsigned integer
 * of at most 19 digits, as next_num reads one: the shape of nearly
 * every record of a snapshot, read without next_num's branches for
 * every other shape. Returns how many bytes the record takes, with the
 * numbers in rec; 0 when it is of another shape or near end (next_num
 * reads it then: refusing more than needed is always safe, taking
 * what next_num would read otherwise never is).
 *
 * Room: at the k-th number at least (w - k) * 10 + 16 bytes are left
 * before end, checked once for the record: a number of up to 7 digits
 * takes at most 9 bytes with its separator, and the 8 bytes where its
 * digits start are readable; only a longer one checks end as it goes
 * (and then the room for the rest). A number is followed by a
 * separator or, the last, by anything but '.', 'e' and 'E': within the
 * record the next separator's check refuses those, so only the last
 * number's end is looked at. */
static inline __attribute__((always_inline)) size_t rec_at(const uint8_t *p, const uint8_t *end,
							   uint64_t *rec, unsigned w)
{
	const uint8_t *start = p;

	if (p > end || (uint64_t)(end - p) < (uint64_t)w * 10 + 16)
		return 0;
#pragma GCC unroll 8
	for (unsigned k = 0; k < w; k++) {
		if (__builtin_expect(*p == ',', 1))
			p++;
		else if (p[0] == '\n' && p[1] == ',')
			p += 2;
		else
			return 0;
		uint64_t x;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		/* swar_digits, its cases apart: one digit (a type, a count,
		 * a flag: most numbers of a record), a number within the
		 * word, and one of 8 digits or more */
		uint64_t c;
		memcpy(&c, p, 8);
		uint64_t dg = c - 0x3030303030303030u;
		uint64_t nd = ((c + 0x4646464646464646u) | dg) & 0x8080808080808080u;
		if (__builtin_expect(nd != 0, 1)) {
			unsigned bits = (unsigned)__builtin_ctzll(nd) & 56; /* 8 * the digits */
			if (bits == 8)
				x = dg & 0xff;
			else if (bits == 0)
				return 0;
			else
				x = swar_value(dg << (64 - bits));
			p += bits >> 3;
		} else {
			x = swar_value(dg);
			p = long_tail(p + 8, end, &x, (uint64_t)(w - 1 - k) * 10 + 16);
			if (p == NULL)
				return 0;
		}
#else
		unsigned len = swar_digits(p, &x);
		if (len == 0)
			return 0;
		p += len;
		if (len == 8 && (p = long_tail(p, end, &x, (uint64_t)(w - 1 - k) * 10 + 16)) == NULL)
			return 0;
#endif
		rec[k] = x;
	}
	if (*p == '.' || *p == 'e' || *p == 'E') /* the last number: not an unsigned integer */
		return 0;
	return (size_t)(p - start);
}

/* Up to max whole records of w numbers at p (rec_at's), their numbers
 * one record after another in rec: how many, with *len the bytes they
 * take. The loop that reads most of a snapshot, with nothing in it but
 * the records. */
static inline __attribute__((always_inline)) size_t recs_at(const uint8_t *p, const uint8_t *end,
							    uint64_t *rec, unsigned w, size_t max, size_t *len)
{
	const uint8_t *start = p;
	size_t i, n;

	for (i = 0; i < max && (n = rec_at(p, end, rec + i * w, w)) != 0; i++)
		p += n;
	*len = (size_t)(p - start);
	return i;
}

/* recs_at for a width known here: V8's edges (3), nodes (7, 6 before
 * detachedness) and locations (4) unrolled. */
static inline __attribute__((always_inline)) size_t recs_at_w(const uint8_t *p, const uint8_t *end,
							      uint64_t *rec, unsigned w, size_t max, size_t *len)
{
	switch (w) {
	case 3:
		return recs_at(p, end, rec, 3, max, len);
	case 4: /* locations */
		return recs_at(p, end, rec, 4, max, len);
	case 6:
		return recs_at(p, end, rec, 6, max, len);
	case 7:
		return recs_at(p, end, rec, 7, max, len);
	default:
		return recs_at(p, end, rec, w, max, len);
	}
}

/* Reads the file from offset at into r->win: 1, or 0 (r->win let go)
 * when the read fails. */
int v8s_refill(struct rd *r, uint64_t at);

/* The numbers of a batch of records (next_recs): room for at least one
 * record of any width a snapshot may have. */
#define V8_BATCH_NUMS 256

/* Up to max whole records of w numbers at p, as recs_at reads them,
 * many at once: the digits, commas and newlines of 64 bytes found
 * together (SSE2), then each number from where they say it is, so that
 * no number waits for the one before it to be read to be found (rec_at
 * reads a record's numbers one after another, each from where the last
 * ended: a chain of loads that was most of the parse). How many, *len
 * the bytes they take; it stops (0 or fewer than max) at anything
 * recs_at would not take, and 80 bytes before end: the rest is
 * recs_at's and next_num's. Nearer end than recs_at's room for a
 * record (w * 10 + 16 bytes) it reads records that recs_at leaves to
 * next_num, which reads the same values from them: each number it
 * reads has its separator after it within [p, end). */
size_t v8s_recs_fast(const uint8_t *p, const uint8_t *end, uint64_t *rec, unsigned w, size_t max, size_t *len);

/* Up to max whole records of w numbers at r->p (recs_at), through r->win
 * when there is one: how many (0 when the first is of another shape or
 * too near an end: next_num reads on), r->p past them. The window is
 * refilled before the first record only: a batch stopped short by the
 * window's end is followed by another, which refills it. After the
 * array's first number only (a separator comes first). */
static inline __attribute__((always_inline)) size_t next_recs(struct rd *r, uint64_t *rec, unsigned w,
							      size_t max)
{
	size_t n, len;
	uint64_t at = pos(r);

	if (r->win != NULL && at - r->win_keep_at > r->win_keep_len) {
		uint64_t wend = r->win_at + r->win_len;
		if (at < r->win_at || at > wend ||
		    (wend - at < r->win_margin && wend < (uint64_t)(r->end - r->base)))
			v8s_refill(r, at); /* on failure r->win is NULL: the mapping from now on */
	}
	if (r->win != NULL) {
		const uint8_t *a = r->win + (at - r->win_at), *e = r->win + r->win_len;
		size_t more;
		n = v8s_recs_fast(a, e, rec, w, max, &len);
		if (n < max) { /* where it stopped: the record by rec_at, or next_num */
			n += recs_at_w(a + len, e, rec + n * w, w, max - n, &more);
			len += more;
		}
	} else {
		/* the file's bytes come from memory, not the cache, and the
		 * hardware's prefetch stops at each 4 KB page: ask ahead of
		 * it (within the mapping: a pointer past its end is no
		 * pointer); a record at a time, each asking */
		for (n = len = 0; n < max; n++) {
			const uint8_t *p = r->p + len;
			size_t k;
			if (p < r->end && r->end - p > 1024)
				__builtin_prefetch(p + 1024);
			if (recs_at_w(p, r->end, rec + n * w, w, 1, &k) == 0)
				break;
			len += k;
		}
	}
	r->p += len;
	return n;
}

/* v8_arrays.c: the values of the top-level keys after snapshot */
int v8s_read_nodes(struct rd *r);
/* The edges, from s->edges_at, to sink (NULL: s's edge columns), a batch at a time. */
int v8s_read_edges(struct rd *r, v8_edge_sink *sink, void *ctx);
/* Step over the value of "edges" (an array of numbers, a fast scan for
 * its end), noting where it is and what it can hold; no warning for a
 * problem (the edges' own reading meets it again): -1, r->stop set. */
int v8s_skip_edges(struct rd *r);
/* Step over an array that nothing reads (the value of `what`): of
 * numbers by the quick scan, else the general way, which takes any
 * JSON (a number the reader would refuse, "-1", "1.5", is no problem
 * here); where the file ends in it, a warning as the reading's. */
int v8s_skip_array(struct rd *r, const char *what);
int v8s_read_strings(struct rd *r);
int v8s_read_trace_tree(struct rd *r);
int v8s_read_samples(struct rd *r);
/* A flat array of records of width u32 numbers. */
int v8s_read_flat32(struct rd *r, uint32_t **a, uint64_t *nrec, unsigned width, const char *what);
/* v8_check.c: after everything is read, what needs all of it: edge
 * counts against the edges, names against the strings, counts
 * against meta. */
void v8s_check(struct rd *r);

#endif
