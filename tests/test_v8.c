/* test_v8.c — the V8 heap snapshot reader: strings and their escapes,
 * small snapshots written here by hand (keys in any order, every check
 * of the reader), and the snapshots of tests/node/workload.js compared
 * with an independent reading by JSON.parse (tests/node/snapcheck.js)
 * and with what the workload says it made; then the same snapshot cut
 * short everywhere and damaged at random, which must come back with a
 * warning or an error naming an offset, never a crash. */
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/open.h"
#include "format/v8_json.h"
#include "format/v8_scan.h"
#include "graph/cache.h"
#include "graph/open.h"
#include "graph/reader.h"
#include "graph/resident.h"
#include "graph/store.h"
#include "jsonck.h"
#include "hprofw.h"
#include "suites.h"

#define V8DUMPS TEST_BUILDDIR "/dumps/v8"
#define CLASSES "TreeNode Leaky MapVal WKey WVal WTarget Leaf AddedHolder"

/* ---- parsing from memory ---- */

struct parsed {
	uint8_t *map; /* a copy of exactly the bytes, so that ASan sees a read past them */
	size_t size;
	struct v8_snap s;
	struct warnings w;
	struct sbuf err;
	int rc;
};

/* The snapshot data[0..n) parsed from a copy of it in memory; with
 * fd >= 0 (a file of the same bytes), its numbers read from fd through
 * a window of `win` bytes (0: the parser's own). */
static void parse_through(struct parsed *p, const char *name, const void *data, size_t n, int fd,
			  size_t win)
{
	memset(p, 0, sizeof *p);
	p->map = xmalloc(n ? n : 1);
	memcpy(p->map, data, n);
	p->size = n;
	p->w.quiet = 1;
	sbuf_init(&p->err);
	v8_parse_window(win);
	p->rc = v8_parse(name, p->map, n, 0, fd, &p->s, NULL, &p->w, &p->err);
	v8_parse_window(0);
}

static void parse_bytes(struct parsed *p, const char *name, const void *data, size_t n)
{
	parse_through(p, name, data, n, -1, 0);
}

static void parsed_free(struct parsed *p)
{
	v8_snap_free(&p->s);
	warn_free(&p->w);
	sbuf_free(&p->err);
	free(p->map);
}

static void parse_file(struct parsed *p, const char *path)
{
	size_t n;
	char *data = file_bytes(path, &n);

	parse_bytes(p, path, data, n);
	free(data);
}

/* A warning holding both strings (what may be NULL). */
static int warned(const struct parsed *p, const char *what, const char *also)
{
	for (size_t i = 0; i < p->w.n; i++)
		if ((what == NULL || strstr(p->w.msg[i], what)) && (also == NULL || strstr(p->w.msg[i], also)))
			return 1;
	return 0;
}

static void show_warnings(const struct parsed *p)
{
	for (size_t i = 0; i < p->w.n; i++)
		fprintf(stderr, "  warning: %s\n", p->w.msg[i]);
}

#define ck_warned(p, what, also)                                                        \
	do {                                                                             \
		if (!warned(p, what, also))                                              \
			show_warnings(p);                                                \
		ck_assert_msg(warned(p, what, also), "no warning \"%s\" with \"%s\"", what, \
			      (also) ? (const char *)(also) : "");                       \
	} while (0)

/* The name of node i, decoded. */
static char *node_name(const struct parsed *p, uint32_t i)
{
	struct sbuf sb;

	sbuf_init(&sb);
	if (p->s.nname[i] != HW_NONE)
		v8_string(p->map, p->size, p->s.str_off[p->s.nname[i]], &sb, 4096);
	return sbuf_detach(&sb);
}

/* What holds whatever the input: every index in range or the sentinel,
 * the edge counts adding up to the edges. (Counted, then asserted once:
 * each Check assertion writes a line, millions of them take minutes.) */
static void check_consistent(const struct parsed *p)
{
	const struct v8_snap *s = &p->s;
	uint64_t sum = 0, bad_node = 0, bad_edge = 0, bad_str = 0, bad_tt = 0;

	for (uint32_t i = 0; i < s->nnodes; i++) {
		bad_node += !(s->nname[i] == HW_NONE || s->nname[i] < s->nstr) ||
			    !(s->ntype[i] == UINT8_MAX || s->ntype[i] < s->n_node_types);
		sum += s->nedges_of[i];
	}
	for (uint32_t i = 0; i < s->nedges; i++)
		bad_edge += !(s->eto[i] == HW_NONE || s->eto[i] < s->nnodes) ||
			    !(s->etype[i] == UINT8_MAX || s->etype[i] < s->n_edge_types);
	for (uint32_t i = 0; i < s->nstr; i++)
		bad_str += !(s->str_off[i] == UINT64_MAX || s->str_off[i] < p->size);
	for (uint64_t i = 0; i < s->n_tt; i++) {
		uint32_t parent = s->trace_tree[i * s->tt_fields + s->tt_fields - 1];
		bad_tt += !(parent == HW_NONE || parent < i); /* pre-order */
	}
	ck_assert_uint_eq(sum, s->nedges);
	ck_assert_uint_eq(bad_node, 0);
	ck_assert_uint_eq(bad_edge, 0);
	ck_assert_uint_eq(bad_str, 0);
	ck_assert_uint_eq(bad_tt, 0);
}

/* ---- strings ---- */

static const char escapes[] = "[\"plain\",\"a\\\"b\\\\c\\nd\\t\\/\",\"caf\\u00e9\",\"\\ud83d\\ude00!\","
			      "\"x\\udc00y\",\"\\ud800\",\"h\\u00e9llo\",\"raw \xc3\xa9t\xc3\xa9\",\"\"]";

/* Offset of the k-th string of escapes (the k-th opening quote at the
 * top level of the array, found by hand: the strings hold no commas). */
static uint64_t nth_string(int k)
{
	const char *p = escapes + 1;

	for (int i = 0; i < k; i++)
		p = strstr(p, "\",\"") + 2;
	return (uint64_t)(p - escapes);
}

static void ck_string(int k, size_t max, const char *want, long len)
{
	struct sbuf sb;

	sbuf_init(&sb);
	sbuf_adds(&sb, "<");
	long n = v8_string((const uint8_t *)escapes, strlen(escapes), nth_string(k), &sb, max);
	ck_assert_msg(n == len, "string %d: length %ld, not %ld", k, n, len);
	ck_assert_msg(strcmp(sb.buf + 1, want) == 0, "string %d: \"%s\", not \"%s\"", k, sb.buf + 1, want);
	ck_assert(sb.buf[0] == '<'); /* appended, not replaced */
	sbuf_free(&sb);
}

START_TEST(test_string_escapes)
{
	ck_string(0, 100, "plain", 5);
	ck_string(1, 100, "a\"b\\c\nd\t/", 9);
	ck_string(2, 100, "caf\xc3\xa9", 5);
	ck_string(3, 100, "\xf0\x9f\x98\x80!", 5); /* U+1F600 from its surrogate pair */
	ck_string(4, 100, "x\xef\xbf\xbdy", 5);    /* a lone low surrogate */
	ck_string(5, 100, "\xef\xbf\xbd", 3);      /* a lone high one at the end */
	ck_string(7, 100, "raw \xc3\xa9t\xc3\xa9", 9);
	ck_string(8, 100, "", 0);
	/* cut at max bytes, never inside a character, then "..." */
	ck_string(6, 2, "h...", 6);
	ck_string(6, 3, "h\xc3\xa9...", 6);
	ck_string(7, 5, "raw ...", 9);
	ck_string(6, 6, "h\xc3\xa9llo", 6);
}
END_TEST

START_TEST(test_string_bad)
{
	static const char *bad[] = { "\"unterminated", "\"bad \\x escape\"", "\"short \\u12\"", "\"cut \\u00",
				     "\"ends in a backslash\\", "not a string" };
	struct sbuf sb;

	sbuf_init(&sb);
	sbuf_adds(&sb, "kept");
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ck_assert_msg(v8_string((const uint8_t *)bad[i], strlen(bad[i]), 0, &sb, 100) == -1, "%s", bad[i]);
		ck_assert_str_eq(sb.buf, "kept");
	}
	/* an offset at or past the end */
	ck_assert_int_eq(v8_string((const uint8_t *)"\"a\"", 3, 3, &sb, 10), -1);
	ck_assert_int_eq(v8_string((const uint8_t *)"\"a\"", 3, 99, &sb, 10), -1);
	/* the closing quote is the last byte of the buffer, \" is no end */
	ck_assert_int_eq(v8_string((const uint8_t *)"\"a\\\"\"", 5, 0, &sb, 10), 2);
	ck_assert_str_eq(sb.buf, "kepta\"");
	sbuf_free(&sb);
}
END_TEST

START_TEST(test_probe)
{
	static const char *yes[] = { "{\"snapshot\":{", "{ \n\t\"snapshot\"", "{\"strings\":[", "{\"edges\":[" };
	/* a CPU profile starts {"nodes":[ */
	static const char *no[] = { "", "{", "{\"snap", "[\"snapshot\"", " {\"snapshot\"", "{\"nodes\":[]",
				    "{\"samples\":[", "{\"meta\":{}", "JAVA PROFILE 1.0.2" };

	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
		ck_assert_msg(v8_probe((const uint8_t *)yes[i], strlen(yes[i])), "%s", yes[i]);
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
		ck_assert_msg(!v8_probe((const uint8_t *)no[i], strlen(no[i])), "%s", no[i]);
}
END_TEST

/* ---- snapshots written by hand ---- */

#define META6                                                                                          \
	"\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\",\"edge_count\",\"trace_node_id\"]," \
	"\"node_types\":[[\"hidden\",\"array\",\"string\",\"object\"],\"string\",\"number\",\"number\",\"number\",\"number\"]," \
	"\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],"                                    \
	"\"edge_types\":[[\"context\",\"element\",\"property\",\"internal\",\"hidden\",\"shortcut\",\"weak\"],\"string_or_number\",\"node\"]," \
	"\"trace_node_fields\":[\"id\",\"function_info_index\",\"count\",\"size\",\"children\"],"       \
	"\"location_fields\":[\"object_index\",\"script_id\",\"line\",\"column\"],\"unknown\":{\"x\":[[1],{}]}}"

static void parse_text(struct parsed *p, const char *text)
{
	parse_bytes(p, "hand.heapsnapshot", text, strlen(text));
}

/* The columns of the heap that test_hand_any_order and
 * test_hand_field_order write: three nodes, four edges. */
static void hand_heap_columns(struct parsed *p)
{
	const struct v8_snap *s = &p->s;
	static const uint8_t ntype[] = { 3, 3, 1 };
	static const uint64_t nid[] = { 1, 3, 5 };
	static const uint32_t nsize[] = { 10, 20, 30 }, nedges[] = { 2, 1, 1 }, nname[] = { 1, 2, 3 };
	for (int i = 0; i < 3; i++) {
		ck_assert_uint_eq(s->ntype[i], ntype[i]);
		ck_assert_uint_eq(s->nid[i], nid[i]);
		ck_assert_uint_eq(s->nsize[i], nsize[i]);
		ck_assert_uint_eq(s->nedges_of[i], nedges[i]);
		ck_assert_uint_eq(s->nname[i], nname[i]);
	}
	static const uint32_t eto[] = { 1, 2, 2, 0 }, ename[] = { 3, 7, 3, 1 };
	static const uint8_t etype[] = { 2, 1, 6, 3 };
	for (int i = 0; i < 4; i++) {
		ck_assert_uint_eq(s->eto[i], eto[i]);
		ck_assert_uint_eq(s->ename[i], ename[i]); /* element 7: an index, not checked against 4 strings */
		ck_assert_uint_eq(s->etype[i], etype[i]);
	}
	char *name = node_name(p, 1);
	ck_assert_str_eq(name, "Thing");
	free(name);
}

/* Three nodes, four edges; keys in an odd order: strings first, edges
 * before nodes, nodes before the snapshot object, an unknown key. */
START_TEST(test_hand_any_order)
{
	struct parsed p;

	parse_text(&p, "{\"strings\":[\"\",\"Root\",\"Thing\",\"x\"],\n"
		       "\"edges\":[2,3,6, 1,7,12, 6,3,12,\n 3,1,0],\n"
		       "\"extra\":[\"]\",{\"[\":[]}],"
		       "\"nodes\":[3,1,1,10,2,0, 3,2,3,20,1,0, 1,3,5,30,1,0],\n"
		       "\"trace_tree\":[1,0,1,10,[2,1,1,20,[],3,2,1,30,[4,3,1,40,[]]],5,0,0,0,[]],"
		       "\"locations\":[6,1,2,3, 12,4,5,6],"
		       "\"snapshot\":{" META6 ",\"node_count\":3,\"edge_count\":4,\"root_index\":6}}");
	ck_assert_msg(p.rc == 0, "%s", p.err.buf);
	show_warnings(&p);
	ck_assert_uint_eq(p.w.n, 0);
	const struct v8_snap *s = &p.s;
	ck_assert_uint_eq(s->node_fields, 6);
	ck_assert_uint_eq(s->root_index, 1); /* 6 numbers into "nodes" */
	ck_assert_int_eq(s->nf_detachedness, -1);
	ck_assert_ptr_null(s->ndetached);
	ck_assert_uint_eq(s->nnodes, 3);
	ck_assert_uint_eq(s->nedges, 4);
	ck_assert_uint_eq(s->nstr, 4);
	ck_assert_str_eq(s->node_types[3], "object");
	ck_assert_str_eq(s->edge_types[6], "weak");
	hand_heap_columns(&p);
	/* the tree flattened in pre-order: four numbers, then the parent */
	static const uint32_t tt[] = { 1, 0, 1, 10, HW_NONE, 2, 1, 1, 20, 0, 3, 2, 1, 30, 0,
				       4, 3, 1, 40, 2, 5, 0, 0, 0, HW_NONE };
	ck_assert_uint_eq(s->tt_fields, 5);
	ck_assert_uint_eq(s->n_tt, 5);
	ck_assert_mem_eq(s->trace_tree, tt, sizeof tt);
	ck_assert_uint_eq(s->n_loc, 2);
	ck_assert_uint_eq(s->locations[4], 12);
	check_consistent(&p);
	parsed_free(&p);
}
END_TEST

/* Meta says where each field is, "type" too: node_fields and
 * edge_fields in another order than V8 writes them (node_types and
 * edge_types in theirs, the list of type names at the place of
 * "type"), each record's numbers in that order. The heap of
 * test_hand_any_order, read the same; and with every key of meta
 * given twice, the last kept. A "type" whose entry in node_types is no
 * list is refused with a line that says so. */
/* test_hand_field_order's meta (the rest of the snapshot object with
 * it), and test_hand_any_order's records, their numbers in the order of
 * its fields */
#define HAND_REORDERED_META                                                                  \
	"\"node_fields\":[\"name\",\"id\",\"edge_count\",\"self_size\",\"trace_node_id\",\"type\"],"  \
	"\"node_types\":[\"string\",\"number\",\"number\",\"number\",\"number\","                 \
	"[\"hidden\",\"array\",\"string\",\"object\"]],"                                           \
	"\"edge_fields\":[\"to_node\",\"type\",\"name_or_index\"],"                                 \
	"\"edge_types\":[\"node\",[\"context\",\"element\",\"property\",\"internal\",\"hidden\","    \
	"\"shortcut\",\"weak\"],\"string_or_number\"]},\"node_count\":3,\"edge_count\":4,"         \
	"\"root_index\":6},\n"
#define HAND_REORDERED_BODY                                             \
	"\"nodes\":[1,1,2,10,0,3, 2,3,1,20,0,3, 3,5,1,30,0,1],\n"           \
	"\"edges\":[6,2,3, 12,1,7, 12,6,3, 0,3,1],\n"                       \
	"\"strings\":[\"\",\"Root\",\"Thing\",\"x\"]}"

START_TEST(test_hand_field_order)
{
	struct parsed p;

	parse_text(&p, "{\"snapshot\":{\"meta\":{" HAND_REORDERED_META HAND_REORDERED_BODY);
	ck_assert_msg(p.rc == 0, "%s", p.err.buf);
	show_warnings(&p);
	ck_assert_uint_eq(p.w.n, 0);
	const struct v8_snap *s = &p.s;
	ck_assert_uint_eq(s->nnodes, 3);
	ck_assert_uint_eq(s->nedges, 4);
	ck_assert_uint_eq(s->root_index, 1);
	ck_assert_uint_eq(s->n_node_types, 4);
	ck_assert_str_eq(s->node_types[3], "object");
	ck_assert_uint_eq(s->n_edge_types, 7);
	ck_assert_str_eq(s->edge_types[6], "weak");
	hand_heap_columns(&p);
	check_consistent(&p);
	parsed_free(&p);

	/* another list among node_types' entries, not of names (a field
	 * that is no type's): passed over; the heap read the same */
	parse_text(&p, "{\"snapshot\":{\"meta\":{\"node_fields\":[\"name\",\"id\",\"edge_count\",\"self_size\","
		       "\"trace_node_id\",\"type\"],\"node_types\":[\"string\",[1,[2]],\"number\",[],"
		       "\"number\",[\"hidden\",\"array\",\"string\",\"object\"]],"
		       "\"edge_fields\":[\"to_node\",\"type\",\"name_or_index\"],"
		       "\"edge_types\":[[\"x\",7],[\"context\",\"element\",\"property\",\"internal\",\"hidden\","
		       "\"shortcut\",\"weak\"],\"string_or_number\"]},\"node_count\":3,\"edge_count\":4,"
		       "\"root_index\":6},\n"
		       HAND_REORDERED_BODY);
	ck_assert_msg(p.rc == 0, "%s", p.err.buf);
	ck_assert_uint_eq(p.w.n, 0);
	ck_assert_uint_eq(p.s.n_node_types, 4);
	ck_assert_uint_eq(p.s.n_edge_types, 7);
	hand_heap_columns(&p);
	parsed_free(&p);

	/* a key of meta given twice: the last value, as JSON.parse (and
	 * DevTools) keep it, for the type lists as for the fields */
	parse_text(&p, "{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\"],"
		       "\"node_types\":[[\"wrong\"],\"string\"],\"edge_types\":[\"node\",[\"wrong\"]],"
		       HAND_REORDERED_META HAND_REORDERED_BODY);
	ck_assert_msg(p.rc == 0, "%s", p.err.buf);
	show_warnings(&p);
	ck_assert_uint_eq(p.w.n, 0);
	ck_assert_uint_eq(p.s.n_node_types, 4);
	ck_assert_str_eq(p.s.node_types[3], "object");
	ck_assert_uint_eq(p.s.n_edge_types, 7);
	hand_heap_columns(&p);
	parsed_free(&p);

	/* the list at the place of "type" with a number in it: refused */
	parse_text(&p, "{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\","
		       "\"edge_count\"],\"node_types\":[[\"hidden\",3],\"string\",\"number\",\"number\",\"number\"],"
		       "\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],"
		       "\"edge_types\":[[\"element\"],\"string_or_number\",\"node\"]}},"
		       "\"nodes\":[1,1,1,10,0],\"edges\":[],\"strings\":[\"\",\"A\"]}");
	ck_assert_int_ne(p.rc, 0);
	ck_assert_msg(strstr(p.err.buf, "node_types has no list of type names at the place of the \"type\" field (0)") !=
			      NULL,
		      "%s", p.err.buf);
	parsed_free(&p);

	/* "type" second, but node_types' list first: no list at its place */
	parse_text(&p, "{\"snapshot\":{\"meta\":{\"node_fields\":[\"name\",\"type\",\"id\",\"self_size\","
		       "\"edge_count\"],\"node_types\":[[\"hidden\",\"object\"],\"string\",\"number\",\"number\","
		       "\"number\"],\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],"
		       "\"edge_types\":[[\"element\"],\"string_or_number\",\"node\"]}},"
		       "\"nodes\":[1,1,1,10,0],\"edges\":[],\"strings\":[\"\",\"A\"]}");
	ck_assert_int_ne(p.rc, 0);
	ck_assert_msg(strstr(p.err.buf, "hand.heapsnapshot: offset 12: bad snapshot.meta: node_types has no list of type "
					"names at the place of the \"type\" field (1)") != NULL,
		      "%s", p.err.buf);
	parsed_free(&p);
}
END_TEST

/* Every check of the reader, each with its warning and its sentinel. */
START_TEST(test_hand_checks)
{
	struct parsed p;

	/* node 1 names string 9 (there are 3); node 2 has type 7 (4 types);
	 * an edge to 7 (not a multiple of 6), one to 18 (past 3 nodes); the
	 * edge counts add up to 5 for 4 edges; a partial node; odd numbers */
	parse_text(&p, "{\"snapshot\":{" META6 ",\"node_count\":4,\"edge_count\":4,\"root_index\":7},\n"
		       "\"nodes\":[3,1,1,10,2,0, 3,9,3,-20,1,0, 7,2,5,3.5e1,2,0, 3,1],\n"
		       "\"edges\":[2,1,7, 2,2,18, 2,1,0, 2,2,6],\n"
		       "\"strings\":[\"\",\"A\",\"B\"]}");
	ck_assert_msg(p.rc == 0, "%s", p.err.buf);
	const struct v8_snap *s = &p.s;
	ck_assert_uint_eq(s->nnodes, 3);
	ck_warned(&p, "nodes: the last record has 2 of its 6 numbers", "offset ");
	ck_warned(&p, "snapshot.node_count is 4, 3 nodes read", NULL);
	ck_assert_uint_eq(s->nname[1], HW_NONE);
	ck_warned(&p, "nodes: 1 names past the 3 strings", NULL);
	ck_assert_uint_eq(s->ntype[2], UINT8_MAX);
	ck_warned(&p, "nodes: 1 types not in meta's list", NULL);
	ck_assert_uint_eq(s->nsize[1], 0);  /* -20 */
	ck_assert_uint_eq(s->nsize[2], 35); /* 3.5e1 */
	ck_warned(&p, "nodes: 2 values that are not unsigned integers", NULL);
	ck_assert_uint_eq(s->eto[0], HW_NONE);
	ck_assert_uint_eq(s->eto[1], HW_NONE);
	ck_assert_uint_eq(s->eto[2], 0);
	ck_assert_uint_eq(s->eto[3], 1);
	ck_warned(&p, "edges: 2 targets (to_node) that are no node's record", NULL);
	ck_warned(&p, "edge counts add up to 5, but there are 4 edges", NULL);
	ck_assert_uint_eq(s->nedges_of[2], 1); /* cut from 2 */
	ck_warned(&p, "snapshot.root_index 7 is no node's record", NULL);
	ck_assert_uint_eq(s->root_index, 0);
	check_consistent(&p);
	parsed_free(&p);

	/* more edges than the counts say: the rest dropped */
	parse_text(&p, "{\"snapshot\":{" META6 "},\"nodes\":[3,1,1,10,1,0],\"edges\":[2,1,0, 2,1,0, 2,1],"
		       "\"strings\":[\"\",\"A\"]}");
	ck_assert_int_eq(p.rc, 0);
	ck_assert_uint_eq(p.s.nedges, 1);
	ck_warned(&p, "edge counts add up to 1, but there are 2 edges", NULL);
	ck_warned(&p, "edges: the last record has 2 of its 3 numbers", NULL);
	check_consistent(&p);
	parsed_free(&p);
}
END_TEST

/* Nothing usable: -1 and one line naming the file and an offset. */
static void ck_fails(const char *text, const char *what)
{
	struct parsed p;

	parse_text(&p, text);
	ck_assert_msg(p.rc == -1, "parsed: %s", text);
	ck_assert_msg(strncmp(p.err.buf, "hand.heapsnapshot: offset ", 26) == 0, "%s", p.err.buf);
	ck_assert_msg(strstr(p.err.buf, what) != NULL, "\"%s\" not in \"%s\"", what, p.err.buf);
	ck_assert(strchr(p.err.buf, '\n') == NULL);
	ck_assert_uint_eq(p.s.nnodes, 0);
	ck_assert_ptr_null(p.s.ntype); /* left empty */
	parsed_free(&p);
}

START_TEST(test_nothing_usable)
{
	ck_fails("", "offset 0: not a V8 heap snapshot");
	ck_fails("JAVA PROFILE 1.0.2", "offset 0: not a V8 heap snapshot");
	ck_fails("  [1,2]", "offset 2: not a V8 heap snapshot");
	ck_fails("{}", "no snapshot.meta");
	ck_fails("{\"nodes\":[1,2,3]}", "no snapshot.meta");
	ck_fails("{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\"]}}}", "bad snapshot.meta: node_fields lacks");
	ck_fails("{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\",\"edge_count\"],"
		 "\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"]}}}", "no node_types or edge_types");
	ck_fails("{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",", "offset 43: truncated in meta"); /* its end */
	ck_fails("{\"snapshot\":{\"meta\":{\"node_fields\":[1]}}}", "offset 36: expected a string in meta");
	/* the file name is escaped */
	struct parsed p;
	parse_bytes(&p, "evil\x1b[2J.heapsnapshot", "x", 1);
	ck_assert_int_eq(p.rc, -1);
	ck_assert_msg(strstr(p.err.buf, "evil\\x1b[2J.heapsnapshot: offset 0:") != NULL, "%s", p.err.buf);
	parsed_free(&p);
}
END_TEST

/* Nesting 20 000 deep: an error before meta, a warning after it; no
 * recursion to overflow either way. */
START_TEST(test_deep_nesting)
{
	struct sbuf sb;
	struct parsed p;

	sbuf_init(&sb);
	sbuf_adds(&sb, "{\"deep\":");
	for (int i = 0; i < 20000; i++)
		sbuf_addc(&sb, '[');
	parse_text(&p, sb.buf);
	ck_assert_int_eq(p.rc, -1);
	ck_assert_msg(strstr(p.err.buf, "offset 10008: nested deeper than 10000") != NULL, "%s", p.err.buf);
	parsed_free(&p);

	sbuf_reset(&sb);
	sbuf_adds(&sb, "{\"snapshot\":{" META6 "},\"nodes\":[3,0,1,1,0,0],\"trace_tree\":");
	for (int i = 0; i < 20000; i++)
		sbuf_adds(&sb, "[1,0,1,1,");
	parse_text(&p, sb.buf);
	ck_assert_int_eq(p.rc, 0);
	ck_assert_uint_eq(p.s.nnodes, 1);
	ck_warned(&p, "trace_tree: nested deeper than 10000", "offset ");
	ck_assert_uint_eq(p.s.n_tt, 10000);
	check_consistent(&p);
	parsed_free(&p);
	sbuf_free(&sb);
}
END_TEST

/* The probe's classes of hostile input, opened as a heap by the program:
 * counts near 2^32 and 2^64 in every count field (snapshot.node_count,
 * edge_count, a node's edge_count), sizes and ids at 2^64 - 1 and past
 * it, a string index and a to_node far beyond the file, and a cycle
 * (A <-> B, B -> B). Sizes saturate at 2^32 - 1 and their sums are not
 * wrapped; the cycle is retained whole by A; every damage is a warning. */
#define HOSTILE_SNAP "\"snapshot\":{" META6 ",\"node_count\":18446744073709551614,\"edge_count\":4294967296,\"root_index\":0}"
#define HOSTILE_NODES                                                                                 \
	"\"nodes\":[0,1,1,0,1,0, 3,2,3,18446744073709551615,4294967295,0, 3,2,5,4294967295,3,0,"      \
	" 3,3,18446744073709551615,4294967296,0,0]"
#define HOSTILE_EDGES \
	"\"edges\":[5,0,6, 2,4,12, 2,4,6, 2,4,12, 2,4294967296,18446744073709551615, 2,18446744073709551615,4294967296]"
#define HOSTILE_STRINGS "\"strings\":[\"\",\"(GC roots)\",\"Big\",\"x\",\"Other\"]"
#define HOSTILE "{" HOSTILE_SNAP ",\n" HOSTILE_NODES ",\n" HOSTILE_EDGES ",\n" HOSTILE_STRINGS "}"

/* The JSON member that begins with key (a number's), and its comma,
 * taken out of s. */
static void drop_member(char *s, const char *key)
{
	char *at = strstr(s, key);

	if (at != NULL) {
		char *end = at + strcspn(at, ",}");
		end += *end == ',';
		memmove(at, end, strlen(end) + 1);
	}
}

START_TEST(test_hostile_counts)
{
	const char *path = TEST_BUILDDIR "/tmp/hostile.heapsnapshot";
	char cmd[1024];
	int st;

	mkdir(TEST_BUILDDIR "/tmp", 0755);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(HOSTILE, f);
	ck_assert_int_eq(fclose(f), 0);

	snprintf(cmd, sizeof cmd, "%s -q --no-cache biggest -f json %s", heapwalk(), path);
	char *out = run(cmd, &st);
	ck_assert_msg(st == 0, "%s: %s", cmd, out);
	/* three sizes of 2^32 - 1 (saturated), not wrapped in 64 bits */
	ck_assert_msg(strstr(out, "\"objects\":3,\"shallow\":12884901885,") != NULL, "%s", out);
	/* the cycle A <-> B (and B's loop) is A's: 2 x (2^32 - 1) */
	ck_assert_msg(strstr(out, "{\"depth\":0,\"id\":\"0x3\",\"object\":\"Big\",\"shallow\":4294967295,"
				  "\"retained\":8589934590,") != NULL, "%s", out);
	/* an id of 2^64 - 1 read exactly (20 digits) */
	ck_assert_msg(strstr(out, "\"id\":\"0xffffffffffffffff\",\"object\":\"x\"") != NULL, "%s", out);
	free(out);

	snprintf(cmd, sizeof cmd, "%s -q --no-cache info %s 2>&1", heapwalk(), path);
	out = run(cmd, &st);
	ck_assert_msg(st == 0, "%s: %s", cmd, out);
	ck_assert_msg(strstr(out, "snapshot.node_count is 18446744073709551614, 4 nodes read") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "snapshot.edge_count is 4294967296, 6 edges read") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "values too large for their field (saturated)") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "edges to no node (or to the root) dropped") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "edges: 2 names past the 5 strings") != NULL, "%s", out);
	free(out);

	/* the same snapshot with "strings" first and "snapshot" last opens
	 * to the same objects: the reader takes the keys in any order */
	snprintf(cmd, sizeof cmd, "%s -q --no-cache biggest -f json %s", heapwalk(), path);
	char *want = run(cmd, &st);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("{" HOSTILE_STRINGS ",\n" HOSTILE_EDGES ",\n" HOSTILE_NODES ",\n" HOSTILE_SNAP "}", f);
	ck_assert_int_eq(fclose(f), 0);
	out = run(cmd, &st);
	/* (where each file stops being whole differs: each says its own) */
	drop_member(out, "\"truncated_at\":");
	drop_member(want, "\"truncated_at\":");
	ck_assert_msg(st == 0 && strcmp(out, want) == 0, "%s\nwant\n%s", out, want);
	free(out);
	free(want);
}
END_TEST

/* path made (its directory too) to hold text. */
static void put_file(const char *path, const char *text)
{
	mkdir(TEST_BUILDDIR "/tmp", 0755);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

/* duplicate-strings on concatenated strings: one made of its parts
 * ("xy" + "z") is the text "xyz", and two of them are two copies; one
 * whose parts the snapshot lacks is named "(concatenated string)" by
 * V8, which is no text: four of them are no group of copies (on tsc's
 * snapshot 2,538 such strings read as copies of that name), and no
 * value of theirs is shown. */
#define CONS_META                                                                                     \
	"\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\",\"edge_count\"],"          \
	"\"node_types\":[[\"hidden\",\"array\",\"string\",\"object\",\"code\",\"closure\",\"regexp\"," \
	"\"number\",\"native\",\"synthetic\",\"concatenated string\",\"sliced string\"],"             \
	"\"string\",\"number\",\"number\",\"number\"],"                                              \
	"\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],"                                   \
	"\"edge_types\":[[\"context\",\"element\",\"property\",\"internal\",\"hidden\",\"shortcut\","  \
	"\"weak\"],\"string_or_number\",\"node\"]}"

START_TEST(test_cons_strings_without_parts)
{
	const char *path = TEST_BUILDDIR "/tmp/cons.heapsnapshot";
	char cmd[1024];
	int st;

	/* 0 the root, 1-2 "abc", 3 "xy", 4 "z", 5-6 "xy" + "z", 7-10 no parts */
	put_file(path, "{\"snapshot\":{" CONS_META "},\n\"nodes\":[9,7,1,0,10, 2,1,3,16,0, 2,1,5,16,0, 2,3,7,16,0, "
	         "2,4,9,16,0, 10,2,11,32,2, 10,2,13,32,2, 10,2,15,32,0, 10,2,17,32,0, 10,2,19,32,0, 10,2,21,32,0],\n"
	         "\"edges\":[1,1,5, 1,2,10, 1,3,15, 1,4,20, 1,5,25, 1,6,30, 1,7,35, 1,8,40, 1,9,45, 1,10,50, "
	         "3,5,15, 3,6,20, 3,5,15, 3,6,20],\n"
	         "\"strings\":[\"\",\"abc\",\"(concatenated string)\",\"xy\",\"z\",\"first\",\"second\",\"(root)\"]}");
	snprintf(cmd, sizeof cmd, "%s -q --no-cache inspect %s duplicate-strings -f csv", heapwalk(), path);
	char *out = run(cmd, &st);
	ck_assert_msg(st == 0, "%s: %s", cmd, out);
	ck_assert_msg(strstr(out, "\"\"\"abc\"\" (2 copies)\"") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "\"\"\"xyz\"\" (2 copies)\"") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "concatenated") == NULL, "%s", out);
	free(out);
	/* the biggest objects' values: the made one's text, none for the others */
	snprintf(cmd, sizeof cmd, "%s -q --no-cache biggest -f json -n 20 %s", heapwalk(), path);
	out = run(cmd, &st);
	ck_assert_msg(st == 0, "%s: %s", cmd, out);
	ck_assert_msg(strstr(out, "\"xyz\"") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "\"value\":\"(concatenated string)\"") == NULL, "%s", out);
	free(out);
	/* the class by its name, blank and all, in quotes (a trial of this
	 * stop: no quoting could name it, only a regex) */
	snprintf(cmd, sizeof cmd, "%s -q --no-cache -e \"instances '(concatenated string)'\" info %s", heapwalk(), path);
	out = run(cmd, &st);
	ck_assert_msg(st == 0 && strstr(out, "\nset_objects:              6\n") != NULL, "%s: %s", cmd, out);
	free(out);
}
END_TEST

/* A concatenated string's text cut where it is shown (60 bytes in
 * duplicate-strings) says "..." as a cut flat string does: two
 * strings of 65 bytes whose first 60 are 30 a's and 30 b's (its first
 * part, itself concatenated, fills the 60 exactly) read as a whole text
 * of 60 (a trial of this stop: two groups of copies alike to the eye). */
START_TEST(test_cons_strings_cut)
{
	const char *path = TEST_BUILDDIR "/tmp/conscut.heapsnapshot";
	char cmd[1024];
	int st;

	/* 0 the root, 1 a*30, 2 b*30, 3 c*5, 4 = 1 + 2, 5-6 = 4 + 3 */
	put_file(path, "{\"snapshot\":{" CONS_META "},\n\"nodes\":[9,1,1,0,6, 2,3,3,32,0, 2,4,5,32,0, 2,5,7,16,0, "
	         "10,2,9,32,2, 10,2,11,32,2, 10,2,13,32,2],\n"
	         "\"edges\":[1,0,5, 1,1,10, 1,2,15, 1,3,20, 1,4,25, 1,5,30, 3,6,5, 3,7,10, 3,6,20, 3,7,15, 3,6,20, 3,7,15],\n"
	         "\"strings\":[\"\",\"(root)\",\"(concatenated string)\",\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\","
	         "\"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\",\"ccccc\",\"first\",\"second\"]}");
	snprintf(cmd, sizeof cmd, "%s -q --no-cache inspect %s duplicate-strings -f csv", heapwalk(), path);
	char *out = run(cmd, &st);
	ck_assert_msg(st == 0, "%s: %s", cmd, out);
	ck_assert_msg(strstr(out, ",\"\"\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbbbbbbbbbbbbbbb...\"\" (2 copies)\"") !=
		      NULL, "%s", out);
	free(out);
}
END_TEST

/* A node's name is its value where it says more than its class, but an
 * empty name says nothing of a node that is no string: an (array) V8
 * gave no name showed as "" in the browser and "value":"" in JSON (a
 * trial: a stray "" after the arrays of a path), where an empty string
 * is "" and rightly so. */
START_TEST(test_empty_names)
{
	const char *path = TEST_BUILDDIR "/tmp/emptynames.heapsnapshot";
	char cmd[1024], want[128];
	int st;

	/* 0 the root; 1 an array named "", 2 one named "(object properties)",
	 * 3 the string "", 4 a closure named "" */
	put_file(path, "{\"snapshot\":{" CONS_META "},\n\"nodes\":[9,1,1,0,4, 1,0,3,16,0, 1,2,5,24,0, 2,0,7,32,0, "
	         "5,0,9,40,0],\n\"edges\":[1,0,5, 1,1,10, 1,2,15, 1,3,20],\n"
	         "\"strings\":[\"\",\"(root)\",\"(object properties)\"]}");
	snprintf(cmd, sizeof cmd, "%s -q --no-cache objects -f json -n 0 %s", heapwalk(), path);
	char *out = run(cmd, &st);
	ck_assert_msg(st == 0, "%s: %s", cmd, out);
	static const struct { const char *id, *value; } rows[] = {
		{ "0x3", "null" }, { "0x5", "\"(object properties)\"" }, { "0x7", "\"\"" }, { "0x9", "null" },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		snprintf(want, sizeof want, "{\"id\":\"%s\",", rows[i].id);
		const char *row = strstr(out, want), *end = row ? strchr(row, '}') : NULL;
		ck_assert_msg(end != NULL, "%s: %s", want, out);
		snprintf(want, sizeof want, "\"value\":%s}", rows[i].value);
		ck_assert_msg(strncmp(end + 1 - strlen(want), want, strlen(want)) == 0, "%s: %s", want, out);
	}
	free(out);
}
END_TEST

/* The snapshot's (root), @1 in DevTools, is heapwalk's <GC roots>, no
 * object: asked for by id it said "no object with id 0x1 in the dump"
 * (a trial), which the file shows false; it says what it is, from the
 * cache too. Another id no node has keeps its line. */
START_TEST(test_root_by_id)
{
	const char *path = TEST_BUILDDIR "/tmp/rootid.heapsnapshot";
	char cmd[1024], cache[1024];
	int st;

	/* the root's id 5, the string's 7 */
	put_file(path, "{\"snapshot\":{" CONS_META "},\n\"nodes\":[9,1,5,0,1, 2,0,7,32,0],\n"
	         "\"edges\":[1,0,5],\n\"strings\":[\"\",\"(root)\"]}");
	snprintf(cache, sizeof cache, "%s.hwi", path);
	unlink(cache);
	for (int pass = 0; pass < 2; pass++) { /* parsed, then from its cache */
		snprintf(cmd, sizeof cmd, "%s -q paths %s 0x5 2>&1", heapwalk(), path);
		char *out = run(cmd, &st);
		ck_assert_msg(WEXITSTATUS(st) == 2 && strstr(out, ": 0x5 is the dump's root, which heapwalk shows as "
							     "<GC roots>: no object of its own\n") != NULL,
			      "pass %d: %s", pass, out);
		free(out);
		ck_assert_int_eq(access(cache, F_OK), 0);
	}
	/* between too, its first id zero-padded past 32 characters (the
	 * shared lookup cut ids at 32: no object) */
	snprintf(cmd, sizeof cmd, "%s -q between %s 0x0000000000000000000000000000000000000007 0x5 2>&1", heapwalk(),
		 path);
	char *b = run(cmd, &st);
	ck_assert_msg(WEXITSTATUS(st) == 2 && strstr(b, ": 0x5 is the dump's root, which heapwalk shows as ") != NULL,
		      "%s", b);
	free(b);
	snprintf(cmd, sizeof cmd, "%s -q -e 'object 0x7,0x9' info %s 2>&1", heapwalk(), path);
	char *out = run(cmd, &st);
	ck_assert_msg(WEXITSTATUS(st) == 2 && strstr(out, ": no object with id 0x9 in the dump\n") != NULL, "%s", out);
	free(out);
	unlink(cache);
}
END_TEST

/* DevTools' propagation of the detached state among natives: A, an
 * attached div, holds T1; D, a detached div, holds T2 (which holds S,
 * the one Span); T1, T3 through a hidden edge, T4 through a weak one and
 * O, a JavaScript object holding T5; every Text and S unmarked.
 * Detached: D by its own mark, T2 and S from it; T1 stays attached (A
 * reaches it too), T3 and T4 are not reached by kinds that carry the
 * state, T5 not through JavaScript (a trial of this stop: a Chromium
 * page's 500 Text nodes of detached divs read as Text, DevTools'
 * Detached Text). Span, left with no object, is no class: info counted
 * it (a Node snapshot's 145 classes, 144 listed), classes --all listed
 * it with none. */
START_TEST(test_detached_propagated)
{
	const char *path = TEST_BUILDDIR "/tmp/detached.heapsnapshot";
	char cmd[1024];
	int st;

	/* nodes: type, name, id, self_size, edge_count, detachedness; 0 the
	 * root, 1 A, 2 D, 3 T1, 4 T2, 5 T3, 6 T4, 7 O, 8 T5, 9 S */
	put_file(path, "{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\",\"edge_count\","
	         "\"detachedness\"],\"node_types\":[[\"hidden\",\"array\",\"string\",\"object\",\"code\",\"closure\","
	         "\"regexp\",\"number\",\"native\",\"synthetic\"],\"string\",\"number\",\"number\",\"number\",\"number\"],"
	         "\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],\"edge_types\":[[\"context\",\"element\","
	         "\"property\",\"internal\",\"hidden\",\"shortcut\",\"weak\"],\"string_or_number\",\"node\"]}},\n"
	         "\"nodes\":[9,1,1,0,9,0, 8,2,3,40,1,1, 8,2,5,40,5,2, 8,3,7,20,0,0, 8,3,9,20,1,0, 8,3,11,20,0,0, "
	         "8,3,13,20,0,0, 3,4,15,30,1,0, 8,3,17,20,0,0, 8,7,19,20,0,0],\n"
	         "\"edges\":[1,0,6, 1,1,12, 1,2,18, 1,3,24, 1,4,30, 1,5,36, 1,6,42, 1,7,48, 1,8,54, "
	         "2,5,18, 2,5,24, 2,6,18, 4,0,30, 6,6,36, 2,5,42, 2,5,54, 2,5,48],\n"
	         "\"strings\":[\"\",\"(root)\",\"HTMLDivElement\",\"Text\",\"Obj\",\"a\",\"b\",\"Span\"]}");
	for (int cached = 0; cached < 2; cached++) {
		snprintf(cmd, sizeof cmd, "%s -q %s classes --all -f csv -n 0 %s", heapwalk(), cached ? "" : "--no-cache",
			 path);
		char *out = run(cmd, &st);
		ck_assert_msg(st == 0 && strstr(out, "\n\"Detached Text\",1,20,") != NULL && strstr(out, "\nText,4,80,") != NULL &&
			      strstr(out, "\n\"Detached HTMLDivElement\",1,40,") != NULL &&
			      strstr(out, "\nHTMLDivElement,1,40,") != NULL && strstr(out, "\n\"Detached Span\",1,20,") != NULL &&
			      strstr(out, "\nSpan,") == NULL, "%s: %s", cmd, out);
		free(out);
		/* info's classes: those six (and the root's) */
		snprintf(cmd, sizeof cmd, "%s -q %s info -f json %s", heapwalk(), cached ? "" : "--no-cache", path);
		out = run(cmd, &st);
		ck_assert_msg(st == 0 && strstr(out, "\"classes\":6,") != NULL, "%s: %s", cmd, out);
		free(out);
	}
	snprintf(cmd, sizeof cmd, "%s -q --no-cache -e \"instances 'Detached Text'\" objects -f csv %s", heapwalk(), path);
	char *out = run(cmd, &st);
	ck_assert_msg(st == 0 && strstr(out, "\n0x9,") != NULL && strstr(out, "\n0x13,") == NULL, "%s: %s", cmd, out);
	free(out);
	snprintf(cmd, sizeof cmd, "%s -q -e \"instances 'Detached Span'\" objects -f csv %s", heapwalk(), path);
	out = run(cmd, &st);
	ck_assert_msg(st == 0 && strstr(out, "\n0x13,") != NULL, "%s: %s", cmd, out);
	free(out);
}
END_TEST

/* Class names of objects longer than 1000 bytes: two of 1015 and 1014
 * that differ only past the 1000th (3 and 5 objects), which were cut
 * there and made one class of 8; two of 4101 bytes (past what is taken
 * of a name: 2 and 1 objects), which stay two classes, cut and told
 * apart by their strings. */
START_TEST(test_long_class_names)
{
	const char *path = TEST_BUILDDIR "/tmp/long.heapsnapshot";
	static const int name_of[] = { 2, 2, 2, 3, 3, 3, 3, 3, 4, 4, 5 }; /* the objects' names */
	const int n = (int)(sizeof name_of / sizeof *name_of);
	struct sbuf sb;
	char cmd[1024];
	int st;

	mkdir(TEST_BUILDDIR "/tmp", 0755);
	sbuf_init(&sb);
	sbuf_printf(&sb, "{\"snapshot\":{" CONS_META "},\n\"nodes\":[9,1,1,0,%d", n);
	for (int i = 0; i < n; i++)
		sbuf_printf(&sb, ", 3,%d,%d,56,0", name_of[i], 3 + 2 * i);
	sbuf_adds(&sb, "],\n\"edges\":[");
	for (int i = 0; i < n; i++)
		sbuf_printf(&sb, "%s1,%d,%d", i ? ", " : "", i, 5 * (i + 1));
	sbuf_adds(&sb, "],\n\"strings\":[\"\",\"(root)\"");
	static const char *const tail[] = { "AlphaClass", "BetaClass", "X", "Y" };
	for (int k = 0; k < 4; k++) {
		sbuf_adds(&sb, ",\"");
		for (int i = 0; i < (k < 2 ? 1005 : 4100); i++)
			sbuf_addc(&sb, k < 2 ? 'L' : 'M');
		sbuf_printf(&sb, "%s\"", tail[k]);
	}
	sbuf_adds(&sb, "]}");
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(sb.buf, 1, sb.len, f), sb.len);
	ck_assert_int_eq(fclose(f), 0);
	sbuf_free(&sb);
	snprintf(cmd, sizeof cmd, "%s -q --no-cache classes -f csv -n 0 %s", heapwalk(), path);
	char *out = run(cmd, &st);
	ck_assert_msg(st == 0, "%s: %s", cmd, out);
	/* rows: name,instances,shallow,...: 3 Alpha, 5 Beta, two of M */
	unsigned rows = 0, alpha = 0, beta = 0, m2 = 0, m1 = 0;
	for (char *l = strchr(out, '\n'); l != NULL && l[1] != '\0'; l = strchr(l + 1, '\n')) {
		const char *q = l + 1 + (l[1] == '"'); /* quoted: the cut ones, for their blanks */
		size_t len = strcspn(q, q > l + 1 ? "\"" : ",");
		unsigned inst = (unsigned)strtoul(q + len + 1 + (q > l + 1), NULL, 10);
		if (*q != 'L' && *q != 'M')
			continue;
		rows++;
		if (len == 1015 && strncmp(q + 1005, "AlphaClass", 10) == 0)
			alpha = inst;
		else if (len == 1014 && strncmp(q + 1005, "BetaClass", 9) == 0)
			beta = inst;
		else if (*q == 'M' && inst == 2 && len > 4096 && len < 4120)
			m2++;
		else if (*q == 'M' && inst == 1 && len > 4096 && len < 4120)
			m1++;
	}
	ck_assert_msg(rows == 4 && alpha == 3 && beta == 5 && m2 == 1 && m1 == 1, "%u rows, %u %u %u %u: %.3000s",
		      rows, alpha, beta, m2, m1, out);
	free(out);
	snprintf(cmd, sizeof cmd, "%s -q --no-cache -e 'instances /BetaClass$/' info %s", heapwalk(), path);
	out = run(cmd, &st);
	ck_assert_msg(st == 0 && strstr(out, "\nset_objects:              5\n") != NULL, "%s: %s", cmd, out);
	free(out);
}
END_TEST

/* ---- the snapshots of a Node workload ---- */

static int have_node(void)
{
	int st;
	char *out = run("command -v node", &st);
	int ok = st == 0 && out[0] != '\0';

	free(out);
	return ok;
}

/* V8DUMPS/{a,b}.heapsnapshot and workload.json, made unless newer than
 * the workload; the same in V8DUMPS/tracked with allocation tracking
 * (trace_tree, trace_function_infos); 0 (and a line saying why) without
 * node. */
static int node_dumps(void)
{
	struct stat d, w;

	if (!have_node()) {
		fprintf(stderr, "v8: node is not installed: the Node snapshot tests are skipped\n");
		return 0;
	}
	if (stat(V8DUMPS "/workload.json", &d) == 0 && stat(TEST_SRCDIR "/node/workload.js", &w) == 0 &&
	    d.st_mtime >= w.st_mtime && d.st_size > 0 && stat(V8DUMPS "/tracked/b.heapsnapshot", &d) == 0)
		return 1; /* workload.json is made last */
	ck_assert_int_eq(system("mkdir -p " V8DUMPS "/tracked"), 0);
	ck_assert_int_eq(system("node --expose-gc --track-heap-objects " TEST_SRCDIR "/node/workload.js " V8DUMPS
				"/tracked > " V8DUMPS "/tracked/workload.json"), 0);
	ck_assert_int_eq(system("node --expose-gc " TEST_SRCDIR "/node/workload.js " V8DUMPS " > " V8DUMPS
				"/workload.tmp && mv " V8DUMPS "/workload.tmp " V8DUMPS "/workload.json"), 0);
	return 1;
}

static void read_json(const char *text, struct jv *v)
{
	char err[256];

	ck_assert_msg(json_parse(text, strlen(text), v, err, sizeof err) == 0, "%s: %s", err, text);
}

static uint64_t num(const struct jv *o, const char *key)
{
	const struct jv *v = jv_get(o, key);

	ck_assert_msg(v != NULL, "no %s", key);
	if (v->t == J_STR)
		return strtoull(v->s, NULL, 10);
	ck_assert_msg(v->t == J_NUM && v->is_uint, "%s is no unsigned integer", key);
	return v->u;
}

/* Count of name in a {name: count} object, 0 when absent. */
static uint64_t count_of(const struct jv *o, const char *name)
{
	const struct jv *v = jv_get(o, name);

	return v == NULL ? 0 : v->u;
}

struct stats {
	uint64_t types[256], etypes[256], self, ids, ecount, to, sbytes;
	uint32_t hash;
};

static void stats_of(const struct parsed *p, struct stats *st)
{
	const struct v8_snap *s = &p->s;
	struct sbuf sb;

	memset(st, 0, sizeof *st);
	for (uint32_t i = 0; i < s->nnodes; i++) {
		st->types[s->ntype[i]]++;
		st->self += s->nsize[i];
		st->ids += s->nid[i];
		st->ecount += s->nedges_of[i];
	}
	for (uint32_t i = 0; i < s->nedges; i++) {
		st->etypes[s->etype[i]]++;
		st->to += s->eto[i];
	}
	st->hash = 0x811c9dc5;
	sbuf_init(&sb);
	uint64_t bad = 0;
	for (uint32_t i = 0; i < s->nstr; i++) {
		sbuf_reset(&sb);
		bad += v8_string(p->map, p->size, s->str_off[i], &sb, SIZE_MAX) != (long)sb.len;
		st->sbytes += sb.len;
		for (size_t k = 0; k <= sb.len; k++) /* the NUL too: a 0 between strings */
			st->hash = (st->hash ^ (uint8_t)sb.buf[k]) * 0x01000193u;
	}
	ck_assert_uint_eq(bad, 0);
	sbuf_free(&sb);
}

/* Object nodes named cls. */
static uint64_t class_count(const struct parsed *p, const char *cls)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < p->s.nnodes; i++)
		if (p->s.ntype[i] < p->s.n_node_types && strcmp(p->s.node_types[p->s.ntype[i]], "object") == 0) {
			char *name = node_name(p, i);
			n += strcmp(name, cls) == 0;
			free(name);
		}
	return n;
}

/* Sum of the trace tree's parents (top-level nodes adding nothing). */
static uint64_t parent_sum(const struct v8_snap *s)
{
	uint64_t sum = 0;

	for (uint64_t i = 0; i < s->n_tt; i++) {
		uint32_t parent = s->trace_tree[i * s->tt_fields + s->tt_fields - 1];
		sum += parent == HW_NONE ? 0 : parent;
	}
	return sum;
}

/* The reader against snapcheck.js (JSON.parse), and the classes against
 * what the workload made (which = "a" or "b", in the directory dir). */
static void compare_with_reference(const char *dir, const char *which)
{
	char path[512], cmd[1024], made_path[512];
	struct parsed p;
	struct stats st;
	struct jv ref, made;
	int status;

	snprintf(path, sizeof path, "%s/%s.heapsnapshot", dir, which);
	snprintf(made_path, sizeof made_path, "%s/workload.json", dir);
	parse_file(&p, path);
	ck_assert_msg(p.rc == 0, "%s", p.err.buf);
	show_warnings(&p);
	ck_assert_uint_eq(p.w.n, 0);
	check_consistent(&p);
	snprintf(cmd, sizeof cmd, "node " TEST_SRCDIR "/node/snapcheck.js %s " CLASSES, path);
	char *out = run(cmd, &status);
	ck_assert_msg(status == 0, "%s", cmd);
	read_json(out, &ref);
	stats_of(&p, &st);
	ck_assert_uint_eq(p.s.nnodes, num(&ref, "nodes"));
	ck_assert_uint_eq(p.s.nedges, num(&ref, "edges"));
	ck_assert_uint_eq(p.s.nstr, num(&ref, "strings"));
	ck_assert_uint_eq(st.self, num(&ref, "self_size"));
	ck_assert_uint_eq(st.ids, num(&ref, "id_sum"));
	ck_assert_uint_eq(st.ecount, num(&ref, "edge_count_sum"));
	ck_assert_uint_eq(st.to, num(&ref, "to_sum"));
	ck_assert_uint_eq(st.sbytes, num(&ref, "string_bytes"));
	ck_assert_uint_eq(st.hash, num(&ref, "string_hash"));
	ck_assert_uint_eq(p.s.n_tfi, num(&ref, "tfi"));
	ck_assert_uint_eq(p.s.n_loc, num(&ref, "locations"));
	ck_assert_uint_eq(p.s.n_samples, num(&ref, "samples"));
	ck_assert_uint_eq(p.s.n_tt, num(&ref, "trace_nodes"));
	ck_assert_uint_eq(parent_sum(&p.s), num(&ref, "trace_parent_sum"));
	const struct jv *types = jv_get(&ref, "types"), *etypes = jv_get(&ref, "edge_types");
	for (unsigned t = 0; t < p.s.n_node_types; t++)
		ck_assert_msg(st.types[t] == count_of(types, p.s.node_types[t]), "%s nodes: %llu, reference %llu",
			      p.s.node_types[t], (unsigned long long)st.types[t],
			      (unsigned long long)count_of(types, p.s.node_types[t]));
	for (unsigned t = 0; t < p.s.n_edge_types; t++)
		ck_assert_msg(st.etypes[t] == count_of(etypes, p.s.edge_types[t]), "%s edges", p.s.edge_types[t]);
	ck_assert_uint_eq(st.types[UINT8_MAX] + st.etypes[UINT8_MAX], 0);
	/* the classes: as the reference reads them, and as the workload made them */
	char *w = file_bytes(made_path, &(size_t){ 0 });
	read_json(w, &made);
	const struct jv *want = jv_get(&made, which), *refc = jv_get(&ref, "classes");
	ck_assert(want != NULL && refc != NULL && want->n == 8);
	for (size_t i = 0; i < want->n; i++) {
		uint64_t n = class_count(&p, want->keys[i]);
		ck_assert_msg(n == want->v[i].u, "%s: %s objects %llu, the workload made %llu", which, want->keys[i],
			      (unsigned long long)n, (unsigned long long)want->v[i].u);
		ck_assert_uint_eq(n, count_of(refc, want->keys[i]));
	}
	jv_free(&made);
	jv_free(&ref);
	free(w);
	free(out);
	parsed_free(&p);
}

START_TEST(test_node_reference_a)
{
	if (node_dumps())
		compare_with_reference(V8DUMPS, "a");
}
END_TEST

START_TEST(test_node_reference_b)
{
	if (node_dumps())
		compare_with_reference(V8DUMPS, "b");
}
END_TEST

/* With allocation tracking: the trace tree flattened as JSON.parse
 * reads it, every node's trace_node_id one of its ids. */
START_TEST(test_node_reference_tracked)
{
	struct parsed p;

	if (!node_dumps())
		return;
	compare_with_reference(V8DUMPS "/tracked", "b");
	parse_file(&p, V8DUMPS "/tracked/a.heapsnapshot");
	ck_assert_int_eq(p.rc, 0);
	ck_assert(p.s.n_tt > 100 && p.s.n_tfi > 10 && p.s.ntrace != NULL);
	uint64_t traced = 0, unknown = 0;
	for (uint32_t i = 0; i < p.s.nnodes; i++) {
		if (p.s.ntrace[i] == 0)
			continue;
		traced++;
		uint64_t k = 0;
		while (k < p.s.n_tt && p.s.trace_tree[k * p.s.tt_fields] != p.s.ntrace[i])
			k++;
		unknown += k == p.s.n_tt;
	}
	ck_assert(traced > 1000); /* the workload's objects, made after tracking began */
	ck_assert_uint_eq(unknown, 0);
	parsed_free(&p);
}
END_TEST

/* Ids of the object nodes named cls, sorted; their number in *n. */
static uint64_t *class_ids(const struct parsed *p, const char *cls, size_t *n)
{
	uint64_t *ids = xreallocarray(NULL, p->s.nnodes + 1, sizeof *ids);

	*n = 0;
	for (uint32_t i = 0; i < p->s.nnodes; i++)
		if (strcmp(p->s.node_types[p->s.ntype[i]], "object") == 0) {
			char *name = node_name(p, i);
			if (strcmp(name, cls) == 0)
				ids[(*n)++] = p->s.nid[i];
			free(name);
		}
	for (size_t i = 1; i < *n; i++) /* insertion sort: a few hundred */
		for (size_t k = i; k > 0 && ids[k - 1] > ids[k]; k--) {
			uint64_t t = ids[k];
			ids[k] = ids[k - 1], ids[k - 1] = t;
		}
	return ids;
}

/* What the reader's columns say about the workload's structures: ids
 * stay from a to b, new objects get larger ids, dropped leaves are the
 * ones gone, the WeakRef's target edge is weak and named "target", each
 * TreeNode has its payload and its children array. */
START_TEST(test_node_structures)
{
	struct parsed a, b;
	size_t na, nb;

	if (!node_dumps())
		return;
	parse_file(&a, V8DUMPS "/a.heapsnapshot");
	parse_file(&b, V8DUMPS "/b.heapsnapshot");
	ck_assert(a.rc == 0 && b.rc == 0);
	uint64_t *ta = class_ids(&a, "TreeNode", &na), *tb = class_ids(&b, "TreeNode", &nb);
	ck_assert_uint_eq(na, 1000);
	ck_assert_uint_eq(nb, 1000);
	ck_assert_mem_eq(ta, tb, na * sizeof *ta); /* the same objects, the same ids */
	free(ta), free(tb);
	uint64_t *la = class_ids(&a, "Leaf", &na), *lb = class_ids(&b, "Leaf", &nb);
	ck_assert_uint_eq(na, 500);
	ck_assert_uint_eq(nb, 300);
	for (size_t i = 0; i < nb; i++) /* every leaf of b was in a */
		ck_assert(lower_bound_u64(la, na, lb[i]) < na && la[lower_bound_u64(la, na, lb[i])] == lb[i]);
	uint64_t max_a = 0;
	for (uint32_t i = 0; i < a.s.nnodes; i++)
		if (a.s.nid[i] % 2 == 1 && a.s.nid[i] > max_a)
			max_a = a.s.nid[i];
	uint64_t *ha = class_ids(&b, "AddedHolder", &na);
	ck_assert_uint_eq(na, 200);
	ck_assert(ha[0] > max_a);
	free(la), free(lb), free(ha);
	/* the WeakRef: a weak edge "target" to the WTarget */
	int weak_target = 0, payloads = 0;
	uint32_t e = 0;
	for (uint32_t i = 0; i < a.s.nnodes; e += a.s.nedges_of[i], i++) {
		char *name = node_name(&a, i);
		for (uint32_t k = e; k < e + a.s.nedges_of[i]; k++) {
			const char *et = a.s.edge_types[a.s.etype[k]];
			char *to = node_name(&a, a.s.eto[k]), *en = NULL;
			if (strcmp(et, "element") != 0 && strcmp(et, "hidden") != 0) {
				struct sbuf sb;
				sbuf_init(&sb);
				v8_string(a.map, a.size, a.s.str_off[a.s.ename[k]], &sb, 100);
				en = sbuf_detach(&sb);
			}
			if (strcmp(name, "WeakRef") == 0 && strcmp(et, "weak") == 0 && strcmp(en, "target") == 0 &&
			    strcmp(to, "WTarget") == 0)
				weak_target++;
			if (strcmp(name, "TreeNode") == 0 && strcmp(et, "property") == 0 && strcmp(en, "payload") == 0 &&
			    strcmp(to, "Float64Array") == 0)
				payloads++;
			free(to), free(en);
		}
		free(name);
	}
	ck_assert_uint_eq(e, a.s.nedges);
	ck_assert_int_eq(weak_target, 1);
	ck_assert_int_eq(payloads, 1000);
	parsed_free(&a);
	parsed_free(&b);
}
END_TEST

/* ---- damage ---- */

/* Cut to n bytes: 0 with a warning naming an offset, or -1 with one
 * line naming the file; what was read holds together. */
static void ck_cut(const char *data, size_t n, uint32_t full_nodes)
{
	struct parsed p;

	parse_bytes(&p, "cut.heapsnapshot", data, n);
	if (p.rc == 0) {
		ck_assert_msg(p.w.n > 0, "cut at %zu: no warning", n);
		ck_assert_msg(strncmp(p.w.msg[0], "cut.heapsnapshot: offset ", 25) == 0, "%s", p.w.msg[0]);
		ck_assert(p.s.nnodes <= full_nodes);
		check_consistent(&p);
	} else {
		ck_assert_int_eq(p.rc, -1);
		ck_assert_msg(strncmp(p.err.buf, "cut.heapsnapshot: offset ", 25) == 0, "%s", p.err.buf);
		ck_assert(strchr(p.err.buf, '\n') == NULL);
	}
	parsed_free(&p);
}

START_TEST(test_truncated_everywhere)
{
	struct parsed full;
	size_t n;

	if (!node_dumps())
		return;
	char *data = file_bytes(V8DUMPS "/a.heapsnapshot", &n);
	parse_bytes(&full, "full", data, n);
	ck_assert_int_eq(full.rc, 0);
	for (size_t k = 0; k < 50; k++) /* every 1/50 of the file */
		ck_cut(data, n * k / 50, full.s.nnodes);
	for (size_t k = 0; k < 20; k++) { /* inside strings, inside one string */
		size_t at = full.s.strings_at + (n - full.s.strings_at) * k / 20;
		ck_cut(data, at, full.s.nnodes);
		ck_cut(data, at + 3, full.s.nnodes);
	}
	for (size_t k = 1; k < 700; k += 7) /* inside meta */
		ck_cut(data, k, full.s.nnodes);
	/* in the middle of nodes: the complete records before the cut */
	struct parsed p;
	size_t mid = full.s.nodes_at + (full.s.edges_at - full.s.nodes_at) / 2;
	parse_bytes(&p, "cut.heapsnapshot", data, mid);
	ck_assert_int_eq(p.rc, 0);
	ck_assert(p.s.nnodes > full.s.nnodes / 3 && p.s.nnodes < full.s.nnodes);
	ck_assert_mem_eq(p.s.nid, full.s.nid, p.s.nnodes * sizeof *p.s.nid);
	char at[64];
	snprintf(at, sizeof at, "offset %zu: truncated in nodes", mid);
	ck_warned(&p, at, NULL);
	/* the edges never reached: said at the file's end, not at offset 0 */
	snprintf(at, sizeof at, "offset %zu: snapshot.edge_count is ", mid);
	ck_warned(&p, at, "but the file has no \"edges\"");
	for (size_t i = 0; i < p.w.n; i++)
		ck_assert_msg(strstr(p.w.msg[i], ": offset 0: ") == NULL, "%s", p.w.msg[i]);
	parsed_free(&p);
	parsed_free(&full);
	free(data);
}
END_TEST

START_TEST(test_corrupt_bytes)
{
	static const char junk[] = "[]{}\",:\\-.e9 0x";
	size_t n;

	if (!node_dumps())
		return;
	char *data = file_bytes(V8DUMPS "/a.heapsnapshot", &n);
	srand(12345);
	for (int round = 0; round < 60; round++) {
		char *copy = xmalloc(n);
		memcpy(copy, data, n);
		for (int k = 0; k < 1 + round % 8; k++) { /* a few bytes: JSON's own or random */
			size_t at = (size_t)rand() % (round % 3 == 0 ? 2000 : n);
			copy[at] = rand() % 2 ? junk[rand() % (int)(sizeof junk - 1)] : (char)rand();
		}
		struct parsed p;
		parse_bytes(&p, "corrupt.heapsnapshot", copy, n);
		if (p.rc == 0)
			check_consistent(&p);
		else
			ck_assert(strncmp(p.err.buf, "corrupt.heapsnapshot: offset ", 29) == 0);
		parsed_free(&p);
		free(copy);
	}
	free(data);
}
END_TEST

/* ---- the window: the numeric arrays read with pread, not the map ---- */

/* data parsed as parse_bytes does, and again with its file (under
 * the tests' tmp) read through a window of each size in windows (the
 * first nwin of them: the small ones cost a read a record): the same
 * result, warning for warning, column for column. */
static void ck_window_same(const char *what, const char *data, size_t n, size_t nwin)
{
	static const size_t windows[] = { 0, 4096, 64, 100, 333 };
	struct parsed want;
	char path[] = TEST_BUILDDIR "/tmp/window.XXXXXX";
	mkdir(TEST_BUILDDIR "/tmp", 0755);
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	unlink(path); /* read through fd only: gone whatever fails below */
	ck_assert_int_eq(write(fd, data, n), (ssize_t)n);
	parse_bytes(&want, "w.heapsnapshot", data, n);
	for (size_t i = 0; i < nwin && i < sizeof windows / sizeof windows[0]; i++) {
		struct parsed got;
		parse_through(&got, "w.heapsnapshot", data, n, fd, windows[i]);
		const struct v8_snap *a = &want.s, *b = &got.s;
		ck_assert_msg(got.rc == want.rc && strcmp(got.err.buf, want.err.buf) == 0 && got.w.n == want.w.n,
			      "%s, window %zu: rc %d/%d, %zu/%zu warnings, \"%s\"/\"%s\"", what, windows[i], got.rc,
			      want.rc, got.w.n, want.w.n, got.err.buf, want.err.buf);
		for (size_t k = 0; k < want.w.n; k++)
			ck_assert_str_eq(got.w.msg[k], want.w.msg[k]);
		ck_assert_msg(b->nnodes == a->nnodes && b->nedges == a->nedges && b->nstr == a->nstr &&
			      b->n_loc == a->n_loc && b->n_samples == a->n_samples && b->n_tfi == a->n_tfi &&
			      b->n_tt == a->n_tt && b->root_index == a->root_index,
			      "%s, window %zu: %u/%u nodes, %u/%u edges", what, windows[i], b->nnodes, a->nnodes,
			      b->nedges, a->nedges);
		if (want.rc == 0) {
			uint32_t nn = a->nnodes, ne = a->nedges;
			ck_assert(memcmp(b->ntype, a->ntype, nn) == 0 && memcmp(b->nname, a->nname, nn * 4) == 0 &&
				  memcmp(b->nid, a->nid, nn * 8) == 0 && memcmp(b->nsize, a->nsize, nn * 4) == 0 &&
				  memcmp(b->nedges_of, a->nedges_of, nn * 4) == 0);
			ck_assert((a->ntrace == NULL) == (b->ntrace == NULL) &&
				  (a->ntrace == NULL || memcmp(b->ntrace, a->ntrace, nn * 4) == 0));
			ck_assert((a->ndetached == NULL) == (b->ndetached == NULL) &&
				  (a->ndetached == NULL || memcmp(b->ndetached, a->ndetached, nn) == 0));
			ck_assert(memcmp(b->etype, a->etype, ne) == 0 && memcmp(b->ename, a->ename, ne * 4) == 0 &&
				  memcmp(b->eto, a->eto, ne * 4) == 0);
			ck_assert(memcmp(b->str_off, a->str_off, a->nstr * sizeof *a->str_off) == 0);
			ck_assert(a->n_loc == 0 ||
				  memcmp(b->locations, a->locations, a->n_loc * a->loc_fields * 4) == 0);
			ck_assert(a->n_samples == 0 ||
				  memcmp(b->samples, a->samples, a->n_samples * a->sample_fields * 8) == 0);
			ck_assert(a->n_tfi == 0 || memcmp(b->trace_function_infos, a->trace_function_infos,
							  a->n_tfi * a->tfi_fields * 4) == 0);
		}
		parsed_free(&got);
	}
	parsed_free(&want);
	close(fd);
}

/* The bytes of the array at `at` with the i-th of k places in it (past
 * its first record) set to `text`: a damaged record among good ones. */
static char *with_text(const char *data, size_t n, size_t from, size_t to, unsigned i, unsigned k,
		       const char *text, size_t *len)
{
	size_t at = from + (to - from) * (i + 1) / (k + 1), t = strlen(text);
	char *out = xmalloc(n + t);

	while (at < to && data[at] != ',') /* on a separator: the text replaces a number */
		at++;
	at++;
	size_t end = at;
	while (end < to && data[end] >= '0' && data[end] <= '9')
		end++;
	memcpy(out, data, at);
	memcpy(out + at, text, t);
	memcpy(out + at + t, data + end, n - end);
	*len = at + t + n - end;
	return out;
}

/* Records as V8 writes them ("\n," between records, ',' within), so
 * that each after the first is read whole at once, with ids of every
 * length: up to 19 digits plain numbers, 20 and more not (counted,
 * saturated), as next_num reads them one by one. Read from memory and
 * through the window alike. */
START_TEST(test_fast_records)
{
	static const char *const ids[] = { "7", "1234567", "12345678", "123456789", "4294967297",
					   "1234567890123456789", "9999999999999999999",
					   "18446744073709551615", "99999999999999999999", "123456789012345678901",
					   "00000000000000000042" };
	const size_t nids = sizeof ids / sizeof ids[0];
	struct sbuf t;
	struct parsed p;
	uint64_t odd = 0;

	sbuf_init(&t);
	sbuf_adds(&t, "{\"snapshot\":{" META6 "},\n\"nodes\":[3,1,1,10,0,0");
	/* every third record of three long numbers: its size and trace
	 * node too (saturated in their 32 bits) */
	for (size_t i = 1; i <= 4 * nids; i++)
		if (i % 3 == 0)
			sbuf_printf(&t, "\n,3,1,%s,1234567890123456789,0,%s", ids[i % nids], ids[(i + 5) % nids]);
		else
			sbuf_printf(&t, "\n,3,1,%s,%zu,0,0", ids[i % nids], i);
	sbuf_adds(&t, "],\n\"edges\":[],\n\"strings\":[\"\",\"A\"]}");
	parse_bytes(&p, "fast.heapsnapshot", t.buf, t.len);
	ck_assert_msg(p.rc == 0, "%s", p.err.buf);
	ck_assert_uint_eq(p.s.nnodes, 4 * nids + 1);
	for (size_t i = 1; i <= 4 * nids; i++) {
		const char *id = ids[i % nids];
		int plain = strlen(id) <= 19;
		uint64_t want = strtoull(id, NULL, 10); /* saturates as the reader does */
		odd += !plain + (i % 3 == 0 && strlen(ids[(i + 5) % nids]) > 19);
		ck_assert_msg(p.s.nid[i] == want, "node %zu: id %llu for %s", i, (unsigned long long)p.s.nid[i], id);
		ck_assert_uint_eq(p.s.nsize[i], i % 3 == 0 ? UINT32_MAX : i);
		if (i % 3 == 0) {
			uint64_t tr = strtoull(ids[(i + 5) % nids], NULL, 10);
			ck_assert_uint_eq(p.s.ntrace[i], tr > UINT32_MAX ? UINT32_MAX : tr);
		}
	}
	char msg[80];
	snprintf(msg, sizeof msg, "nodes: %llu values that are not unsigned integers", (unsigned long long)odd);
	ck_warned(&p, msg, NULL);
	parsed_free(&p);
	ck_window_same("ids", t.buf, t.len, 5);
	/* records longer than the small windows: cut at their ends */
	sbuf_reset(&t);
	sbuf_adds(&t, "{\"snapshot\":{" META6 "},\n\"nodes\":[3,1,1,10,0,0");
	size_t at[65];
	for (size_t i = 1; i <= 64; i++) {
		at[i] = t.len;
		for (int k = 0; k < 6; k++)
			sbuf_printf(&t, "%s%zu", k == 0 ? "\n," : ",", (size_t)1234567890123456789u + i * 7 + k);
	}
	size_t whole = t.len;
	sbuf_adds(&t, "],\n\"edges\":[],\n\"strings\":[\"\",\"A\"]}");
	ck_window_same("long records", t.buf, t.len, 5);
	/* the file cut inside a record: the records before it, and the
	 * one cut in its last number (a number the file's end cuts reads
	 * as its digits there, as ever); no byte past the end read */
	for (size_t cut = at[60]; cut < whole; cut += 3) {
		size_t i = 60;
		while (i < 64 && at[i + 1] <= cut)
			i++;
		/* "\n," and 19 digits, then 4 times ',' and 19 digits, then ',' */
		size_t nodes = cut > at[i] + 2 + 19 + 4 * 20 + 1 ? i + 1 : i;
		parse_bytes(&p, "cut.heapsnapshot", t.buf, cut);
		ck_assert_msg(p.rc == 0, "%s", p.err.buf);
		ck_assert_msg(p.s.nnodes == nodes, "cut at %zu (record %zu): %u nodes", cut, i, p.s.nnodes);
		ck_assert_uint_eq(p.s.nid[nodes - 1], (size_t)1234567890123456789u + (nodes - 1) * 7 + 2);
		ck_warned(&p, "truncated in nodes", NULL);
		parsed_free(&p);
		ck_window_same("long records cut", t.buf, cut, 5);
	}
	sbuf_free(&t);
}
END_TEST

/* The fast reading of a record at its bounds: numbers of 1 to 21
 * digits (a word of 8 and one past it, 19 the most read plain,
 * UINT32_MAX and one past it), fractions and exponents, in every
 * field of a record and so at every offset from a record's start, the
 * last field (whose end alone is looked at for '.', 'e' and 'E') too;
 * read from memory, and through windows of every size from 40 to 200
 * bytes, so that numbers end on, before and after a window's end and
 * its margin. Each value against strtoull's or strtod's reading of its
 * text, not the reader's; the count of numbers that are not plain
 * against the texts'. */
static void ck_bounds(const struct parsed *p, const char *const *vals, size_t nv, size_t nrec, const char *how)
{
	uint64_t odd = 0;

	ck_assert_msg(p->rc == 0, "%s: %s", how, p->err.buf);
	ck_assert_msg(p->s.nnodes == nrec + 1, "%s: %u nodes", how, p->s.nnodes);
	for (size_t i = 1; i <= nrec; i++) {
		const char *t[3] = { vals[i % nv], vals[(i + 3) % nv], vals[(i + 7) % nv] };
		uint64_t want[3];
		for (int f = 0; f < 3; f++) {
			size_t len = strlen(t[f]);
			int plain = strspn(t[f], "0123456789") == len && len <= 19;
			odd += !plain;
			want[f] = strpbrk(t[f], ".eE") != NULL ? (uint64_t)strtod(t[f], NULL) : strtoull(t[f], NULL, 10);
		}
		ck_assert_msg(p->s.nid[i] == want[0], "%s: node %zu: id %llu for %s", how, i,
			      (unsigned long long)p->s.nid[i], t[0]);
		ck_assert_msg(p->s.nsize[i] == (want[1] > UINT32_MAX ? UINT32_MAX : want[1]),
			      "%s: node %zu: size %u for %s", how, i, p->s.nsize[i], t[1]);
		ck_assert_msg(p->s.ntrace[i] == (want[2] > UINT32_MAX ? UINT32_MAX : want[2]),
			      "%s: node %zu: trace node %u for %s", how, i, p->s.ntrace[i], t[2]);
	}
	char msg[80];
	snprintf(msg, sizeof msg, "nodes: %llu values that are not unsigned integers", (unsigned long long)odd);
	ck_assert_msg(warned(p, msg, NULL), "%s: no \"%s\"", how, msg);
}

START_TEST(test_fast_bounds)
{
	static const char *const vals[] = { "0", "9", "10", "1234567", "12345678", "123456789",
					    "4294967295", "4294967296", "9999999999999999999",
					    "10000000000000000000", "18446744073709551615",
					    "184467440737095516150", "1.5", "2e3", "3E1", "7.", "12345678.5",
					    "123456789e2", "1234567e1", "00000000000000000000042" };
	const size_t nv = sizeof vals / sizeof vals[0], nrec = 5 * nv;
	struct sbuf t;
	struct parsed p;
	char path[] = TEST_BUILDDIR "/tmp/bounds.XXXXXX";

	sbuf_init(&t);
	sbuf_adds(&t, "{\"snapshot\":{" META6 "},\n\"nodes\":[3,1,1,10,0,0");
	for (size_t i = 1; i <= nrec; i++)
		sbuf_printf(&t, "\n,3,1,%s,%s,0,%s", vals[i % nv], vals[(i + 3) % nv], vals[(i + 7) % nv]);
	sbuf_adds(&t, "],\n\"edges\":[],\n\"strings\":[\"\",\"A\"]}");
	parse_bytes(&p, "bounds.heapsnapshot", t.buf, t.len);
	ck_bounds(&p, vals, nv, nrec, "memory");
	parsed_free(&p);
	mkdir(TEST_BUILDDIR "/tmp", 0755);
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	unlink(path); /* read through fd only: gone whatever fails below */
	ck_assert_int_eq(write(fd, t.buf, t.len), (ssize_t)t.len);
	for (size_t win = 40; win <= 200; win++) {
		char how[32];
		parse_through(&p, "bounds.heapsnapshot", t.buf, t.len, fd, win);
		snprintf(how, sizeof how, "window %zu", win);
		ck_bounds(&p, vals, nv, nrec, how);
		parsed_free(&p);
	}
	close(fd);
	sbuf_free(&t);
}
END_TEST

/* The records read in batches, against the test's own reading of what
 * it wrote: random nodes and edges of plain numbers (1 to 19 digits),
 * hostile ones among them (fractions, exponents, 20 digits and more, a
 * space before a number, ",\n" between records, types past meta's,
 * targets that are no node's record), read from memory and through
 * windows of many sizes (batches cut by a window's end and its margin).
 * Each column against the texts' strtoull or strtod reading and the
 * reader's documented clamps, not against the reader's careful path. */
static uint64_t xs_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static uint64_t text_value(const char *t)
{
	while (*t == ' ')
		t++;
	return strpbrk(t, ".eE") != NULL ? (uint64_t)strtod(t, NULL) : strtoull(t, NULL, 10);
}

static int text_odd(const char *t)
{
	while (*t == ' ') /* whitespace before a number is no oddity */
		t++;
	size_t len = strlen(t);

	return !(strspn(t, "0123456789") == len && len <= 19);
}

struct fast_want {
	uint8_t *ntype, *etype;
	uint32_t *nname, *nsize, *nedg, *ename, *eto;
	uint64_t *nid, odd_nodes, odd_edges;
	size_t nnodes, ne;
};

static void ck_fast(const struct parsed *p, const struct fast_want *w, const char *how)
{
	const struct v8_snap *s = &p->s;

	ck_assert_msg(p->rc == 0, "%s: %s", how, p->err.buf);
	ck_assert_msg(s->nnodes == w->nnodes && s->nedges == w->ne, "%s: %u nodes, %u edges", how, s->nnodes,
		      s->nedges);
	for (size_t i = 0; i < w->nnodes; i++)
		ck_assert_msg(s->ntype[i] == w->ntype[i] && s->nname[i] == w->nname[i] && s->nid[i] == w->nid[i] &&
				      s->nsize[i] == w->nsize[i] && s->nedges_of[i] == w->nedg[i],
			      "%s: node %zu: type %u/%u name %u/%u id %llu/%llu size %u/%u edges %u/%u", how, i,
			      s->ntype[i], w->ntype[i], s->nname[i], w->nname[i], (unsigned long long)s->nid[i],
			      (unsigned long long)w->nid[i], s->nsize[i], w->nsize[i], s->nedges_of[i], w->nedg[i]);
	for (size_t i = 0; i < w->ne; i++)
		ck_assert_msg(s->etype[i] == w->etype[i] && s->ename[i] == w->ename[i] && s->eto[i] == w->eto[i],
			      "%s: edge %zu: type %u/%u name %u/%u to %u/%u", how, i, s->etype[i], w->etype[i],
			      s->ename[i], w->ename[i], s->eto[i], w->eto[i]);
	char msg[80];
	snprintf(msg, sizeof msg, "nodes: %llu values that are not", (unsigned long long)w->odd_nodes);
	ck_assert_msg(w->odd_nodes == 0 || warned(p, msg, NULL), "%s: no \"%s\"", how, msg);
	snprintf(msg, sizeof msg, "edges: %llu values that are not", (unsigned long long)w->odd_edges);
	ck_assert_msg(w->odd_edges == 0 || warned(p, msg, NULL), "%s: no \"%s\"", how, msg);
}

/* A number's text: a plain one below `below` mostly, a hostile one now
 * and then (one in `rare`). */
static const char *fast_pick(uint64_t *seed, uint64_t below, unsigned rare, char *buf, size_t n)
{
	static const char *const hostile[] = { "1.5", "2e3", "3E1", "12345678.5", "123456789e2",
					       "12345678901234567890", "18446744073709551615",
					       "184467440737095516150", "00000000000000000000042", " 7",
					       "4294967295", "4294967296", "12345678", "9999999999999999999" };

	if (xs_next(seed) % rare == 0)
		return hostile[xs_next(seed) % (sizeof hostile / sizeof hostile[0])];
	snprintf(buf, n, "%llu", (unsigned long long)(xs_next(seed) % below));
	return buf;
}

static const char *fast_sep(uint64_t *seed)
{
	return xs_next(seed) % 5 == 0 ? ",\n" : xs_next(seed) % 3 == 0 ? "\n," : ",";
}

static void fast_nodes(struct sbuf *t, struct fast_want *w, uint64_t *seed, unsigned rare, uint32_t nstr)
{
	static const uint64_t mods[] = { 10, 100, 100000, 10000000, 100000000000ull, 10000000000000000000ull };

	w->nnodes = 300 + xs_next(seed) % 300;
	w->ntype = xcalloc(w->nnodes, 1);
	w->nname = xcalloc(w->nnodes, 4);
	w->nsize = xcalloc(w->nnodes, 4);
	w->nedg = xcalloc(w->nnodes, 4);
	w->nid = xcalloc(w->nnodes, 8);
	for (size_t i = 0; i < w->nnodes; i++) {
		char f[6][32], b[32];
		snprintf(f[0], 32, "%s", fast_pick(seed, 5, rare, b, sizeof b));
		snprintf(f[1], 32, "%s", fast_pick(seed, 50, rare, b, sizeof b));
		snprintf(f[2], 32, "%s", fast_pick(seed, mods[xs_next(seed) % 6], rare, b, sizeof b));
		snprintf(f[3], 32, "%s", fast_pick(seed, mods[xs_next(seed) % 6], rare, b, sizeof b));
		snprintf(f[4], 32, "%llu", (unsigned long long)(xs_next(seed) % 12));
		snprintf(f[5], 32, "%s", fast_pick(seed, 3, rare, b, sizeof b));
		sbuf_printf(t, "%s%s,%s,%s,%s,%s,%s", i == 0 ? "" : fast_sep(seed), f[0], f[1], f[2], f[3], f[4],
			    f[5]);
		uint64_t v[6];
		for (int k = 0; k < 6; k++) {
			v[k] = text_value(f[k]);
			w->odd_nodes += (uint64_t)text_odd(f[k]);
		}
		w->ntype[i] = v[0] < 4 ? (uint8_t)v[0] : UINT8_MAX;
		w->nname[i] = v[1] < nstr ? (uint32_t)v[1] : HW_NONE;
		w->nid[i] = v[2];
		w->nsize[i] = v[3] > UINT32_MAX ? UINT32_MAX : (uint32_t)v[3];
		w->nedg[i] = (uint32_t)v[4];
		w->ne += v[4];
	}
}

static void fast_edges(struct sbuf *t, struct fast_want *w, uint64_t *seed, unsigned rare, uint32_t nstr)
{
	const unsigned nf = 6;

	w->etype = xcalloc(w->ne + 1, 1);
	w->ename = xcalloc(w->ne + 1, 4);
	w->eto = xcalloc(w->ne + 1, 4);
	for (size_t i = 0; i < w->ne; i++) {
		char f[3][32], b[32];
		uint64_t node = xs_next(seed) % (w->nnodes + 2), r = xs_next(seed) % 16;
		snprintf(f[0], 32, "%s", fast_pick(seed, 8, rare, b, sizeof b));
		snprintf(f[1], 32, "%s", fast_pick(seed, r < 8 ? 60 : 5000000, rare, b, sizeof b));
		if (r == 0) /* no node's first number */
			snprintf(f[2], 32, "%llu", (unsigned long long)(node * nf + 1 + r % 5));
		else
			snprintf(f[2], 32, "%s", r == 1 ? fast_pick(seed, 10, 1, b, sizeof b)
							: (snprintf(b, sizeof b, "%llu", (unsigned long long)(node * nf)), b));
		sbuf_printf(t, "%s%s,%s,%s", i == 0 ? "" : fast_sep(seed), f[0], f[1], f[2]);
		uint64_t v[3];
		for (int k = 0; k < 3; k++) {
			v[k] = text_value(f[k]);
			w->odd_edges += (uint64_t)text_odd(f[k]);
		}
		w->etype[i] = v[0] < 7 ? (uint8_t)v[0] : UINT8_MAX;
		int numeric = w->etype[i] == 1 || w->etype[i] == 4; /* element, hidden */
		uint32_t name = v[1] < HW_NONE ? (uint32_t)v[1] : HW_NONE - 1;
		w->ename[i] = numeric || name < nstr ? name : HW_NONE;
		w->eto[i] = v[2] <= UINT32_MAX && v[2] % nf == 0 && v[2] / nf < w->nnodes ? (uint32_t)(v[2] / nf)
											 : HW_NONE;
	}
}

static void fast_want_free(struct fast_want *w)
{
	free(w->ntype);
	free(w->etype);
	free(w->nname);
	free(w->nsize);
	free(w->nedg);
	free(w->ename);
	free(w->eto);
	free(w->nid);
}

START_TEST(test_fast_batches)
{
	const uint32_t nstr = 40;
	/* hostile numbers: none, a few, many */
	static const unsigned rares[] = { 1u << 30, 40, 6 };
	uint64_t seed = 0x9e3779b97f4a7c15ull + (uint64_t)_i * 0x2545f4914f6cdd1dull;
	struct fast_want w = { 0 };
	struct sbuf t;
	struct parsed p;
	char path[] = TEST_BUILDDIR "/tmp/batches.XXXXXX";
	unsigned rare = rares[_i % 3];

	sbuf_init(&t);
	sbuf_adds(&t, "{\"snapshot\":{" META6 "},\n\"nodes\":[");
	fast_nodes(&t, &w, &seed, rare, nstr);
	sbuf_adds(&t, "],\n\"edges\":[");
	fast_edges(&t, &w, &seed, rare, nstr);
	sbuf_adds(&t, "],\n\"strings\":[\"\"");
	for (uint32_t i = 1; i < nstr; i++)
		sbuf_printf(&t, ",\"s%u\"", i);
	sbuf_adds(&t, "]}");
	parse_bytes(&p, "batches.heapsnapshot", t.buf, t.len);
	ck_fast(&p, &w, "memory");
	parsed_free(&p);
	mkdir(TEST_BUILDDIR "/tmp", 0755);
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	unlink(path); /* read through fd only: gone whatever fails below */
	ck_assert_int_eq(write(fd, t.buf, t.len), (ssize_t)t.len);
	static const size_t wins[] = { 40, 41, 57, 64, 99, 100, 128, 173, 200, 256, 1000, 4096, 8192, 0 };
	for (size_t i = 0; i < sizeof wins / sizeof wins[0]; i++) {
		char how[32];
		parse_through(&p, "batches.heapsnapshot", t.buf, t.len, fd, wins[i]);
		snprintf(how, sizeof how, "seed %d, window %zu", _i, wins[i]);
		ck_fast(&p, &w, how);
		parsed_free(&p);
	}
	close(fd);
	fast_want_free(&w);
	sbuf_free(&t);
}
END_TEST

/* The records read 64 bytes at a time (v8s_recs_fast) against
 * recs_at, which reads them a number after another: on random bytes
 * (mostly digits, commas and newlines as V8 writes them, now and then
 * a byte of any other kind, a separator doubled or turned round, a
 * number of up to 25 digits), at every width a snapshot has, the
 * records it reads are the ones recs_at reads there, bytes and values
 * alike (it may stop sooner, never read more or otherwise; recs_at
 * is given room past the bytes, as it asks for a record's room ahead
 * and next_num reads the same there). On records
 * as V8 writes them it reads all of them but the last 80 bytes', so
 * that a fast path that reads nothing does not pass for one that is
 * only careful. The buffer is exactly the bytes: ASan sees a read past
 * them. */
static size_t fast_text(uint64_t *seed, char *buf, size_t cap, unsigned w, int clean)
{
	size_t n = 0;
	unsigned k = 0;

	while (n + 32 < cap) {
		const char *sep = k == 0 ? "\n," : ",";
		if (!clean) {
			static const char *const odd[] = { ",,", ",\n", ",\n,", "\n,\n,", "\n\n,", "\n", "", " ,",
							   ", ", ".", "e", "]", "-", "\r\n,", "\",", ",x" };
			if (xs_next(seed) % 40 == 0)
				sep = odd[xs_next(seed) % (sizeof odd / sizeof odd[0])];
		}
		n += (size_t)snprintf(buf + n, cap - n, "%s", sep);
		unsigned digits = 1 + (unsigned)(xs_next(seed) % (clean || xs_next(seed) % 8 ? 9 : 25));
		for (unsigned d = 0; d < digits && n + 1 < cap; d++)
			buf[n++] = (char)('0' + xs_next(seed) % 10);
		k = (k + 1) % w;
	}
	return n;
}

START_TEST(test_fast_blocks)
{
	static const unsigned widths[] = { 1, 3, 4, 6, 7, 64 };
	uint64_t seed = 0x243f6a8885a308d3ull;
	char text[2048];
	uint64_t a[V8_BATCH_NUMS], b[V8_BATCH_NUMS];
	size_t read_clean = 0, clean = 0;

	for (int round = 0; round < 20000; round++) {
		unsigned w = widths[round % 6];
		int is_clean = round % 4 == 0;
		size_t cap = 100 + xs_next(&seed) % (sizeof text - 100);
		size_t len = fast_text(&seed, text, cap, w, is_clean);
		size_t max = 1 + xs_next(&seed) % (V8_BATCH_NUMS / w + 4);
		uint8_t *exact = xmalloc(len);
		memcpy(exact, text, len);
		size_t la, lb;
		size_t na = v8s_recs_fast(exact, exact + len, a, w, max, &la);
		ck_assert_msg(na <= max, "round %d: %zu records of at most %zu", round, na, max);
		ck_assert_msg(na * w <= V8_BATCH_NUMS, "round %d: %zu records of %u", round, na, w);
		/* recs_at, for as many: the same (it needs room for a whole
		 * record's longest numbers: given it here, the same bytes) */
		uint8_t *roomy = xcalloc(len + 64 * 20 + 16, 1);
		memcpy(roomy, text, len);
		size_t nb = recs_at(roomy, roomy + len + 64 * 20 + 16, b, w, na, &lb);
		ck_assert_msg(nb == na && lb == la, "round %d (width %u): %zu records in %zu bytes, recs_at %zu in %zu",
			      round, w, na, la, nb, lb);
		ck_assert_msg(la <= len, "round %d: %zu bytes of %zu", round, la, len);
		for (size_t i = 0; i < na * w; i++)
			ck_assert_msg(a[i] == b[i], "round %d: number %zu: %llu, recs_at %llu", round, i,
				      (unsigned long long)a[i], (unsigned long long)b[i]);
		if (is_clean && max * w <= V8_BATCH_NUMS && len > 160) {
			/* all it may read: records whole, up to max, to 80 bytes before the end */
			size_t want = 0, at = 0, l;
			uint64_t c[V8_FIELDS_MAX];
			while (want < max && (l = 0, recs_at(roomy + at, roomy + len + 64 * 20 + 16, c, w, 1, &l)) == 1 &&
			       at + l + 80 + 2 + 9 * w <= len)
				at += l, want++;
			clean++;
			read_clean += na >= want;
		}
		free(roomy);
		free(exact);
	}
	ck_assert_msg(clean > 1000 && read_clean == clean, "read all it could on %zu of %zu clean texts", read_clean,
		      clean);
}
END_TEST

/* Under the sanitizers (each parse several times slower) one cut at
 * each place rather than three a byte apart, and each odd number at one
 * place of the two: the -Werror build's check runs them all. */
#ifdef HW_TEST_ASAN
#define WINDOW_CUTS 1
#define WINDOW_PLACES 1
#else
#define WINDOW_CUTS 3
#define WINDOW_PLACES 2
#endif
START_TEST(test_window_same)
{
	/* numbers the record at once does not take, or takes only whole */
	static const char *const odd[] = { "1.5", "2e3", "12345678", "1234567890123456789",
					   "12345678901234567890", " 7", "\n7", "", "-4", "\"x\"", "3\n", "4 " };
	size_t n;

	if (!node_dumps())
		return;
	char *data = file_bytes(V8DUMPS "/tracked/a.heapsnapshot", &n);
	struct parsed full;
	parse_bytes(&full, "full", data, n);
	ck_assert_int_eq(full.rc, 0);
	size_t arrays[][2] = { { full.s.nodes_at, full.s.edges_at }, { full.s.edges_at, full.s.strings_at } };
	ck_window_same("whole", data, n, 5);
	for (size_t a = 0; a < 2; a++) {
		for (unsigned i = 0; i < 3; i++) { /* cut inside the array: a record cut short */
			size_t cut = arrays[a][0] + (arrays[a][1] - arrays[a][0]) * (2 * i + 1) / 6;
			for (size_t d = 0; d < WINDOW_CUTS; d++)
				ck_window_same("cut", data, cut + d, 3);
		}
		for (size_t o = 0; o < sizeof odd / sizeof odd[0]; o++)
			for (unsigned i = 0; i < WINDOW_PLACES; i++) {
				size_t len;
				char *bad = with_text(data, n, arrays[a][0], arrays[a][1], i, 2, odd[o], &len);
				ck_window_same(odd[o], bad, len, 2);
				free(bad);
			}
	}
	parsed_free(&full);
	free(data);
}
END_TEST

/* A gzip file of stored (level 0) deflate blocks: the snapshot's own
 * text inside it, shifted by the headers. Opened, the dump is the
 * inflated copy, and fd the .gz: the window must not read the .gz (it
 * once took records from the shifted text and lost the nodes). */
START_TEST(test_window_gzip_stored)
{
	size_t n;
	char path[600], cmd[2048];
	int st;

	if (!node_dumps())
		return;
	char *data = file_bytes(V8DUMPS "/tracked/a.heapsnapshot", &n);
	snprintf(path, sizeof path, "%s/stored.heapsnapshot.gz", hw_tmpdir());
	FILE *f = fopen(path, "wb");
	ck_assert(f != NULL);
	static const uint8_t head[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff };
	fwrite(head, 1, sizeof head, f);
	for (size_t at = 0; at < n || n == 0;) {
		size_t len = n - at > 65535 ? 65535 : n - at;
		uint8_t b[5] = { at + len == n, (uint8_t)len, (uint8_t)(len >> 8), (uint8_t)~len, (uint8_t)(~len >> 8) };
		fwrite(b, 1, 5, f);
		fwrite(data + at, 1, len, f);
		at += len;
		if (n == 0)
			break;
	}
	uint32_t crc = libdeflate_crc32(0, data, n), isize = (uint32_t)n;
	uint8_t tail[8] = { (uint8_t)crc, (uint8_t)(crc >> 8), (uint8_t)(crc >> 16), (uint8_t)(crc >> 24),
			    (uint8_t)isize, (uint8_t)(isize >> 8), (uint8_t)(isize >> 16), (uint8_t)(isize >> 24) };
	fwrite(tail, 1, 8, f);
	ck_assert_int_eq(fclose(f), 0);
	/* the same objects and references as the plain file, no warning */
	char *want[2];
	const char *files[2] = { V8DUMPS "/tracked/a.heapsnapshot", path };
	for (int i = 0; i < 2; i++) {
		snprintf(cmd, sizeof cmd, "%s --no-cache info %s 2>&1 | grep -E '^(objects|references|heap_bytes|warning)'",
			 heapwalk(), files[i]);
		want[i] = run(cmd, &st);
	}
	ck_assert_msg(strstr(want[0], "objects:") != NULL && strcmp(want[0], want[1]) == 0, "plain:\n%s\nstored gzip:\n%s",
		      want[0], want[1]);
	free(want[0]);
	free(want[1]);
	free(data);
}
END_TEST

/* ---- old, new and gone between two snapshots of one process ---- */

#define IDDUMPS V8DUMPS "/identity"

/* IDDUMPS/{a,b}.heapsnapshot and made.json of tests/node/identity.js,
 * and heapwalk's diff of them as JSON (diff.json), made unless newer
 * than the workload; 0 without node. */
static int identity_dumps(void)
{
	struct stat d, w;

	if (!have_node()) {
		fprintf(stderr, "v8: node is not installed: the old/new tests are skipped\n");
		return 0;
	}
	if (!(stat(IDDUMPS "/made.json", &d) == 0 && stat(TEST_SRCDIR "/node/identity.js", &w) == 0 &&
	      d.st_mtime >= w.st_mtime && d.st_size > 0)) {
		ck_assert_int_eq(system("mkdir -p " IDDUMPS " && node --expose-gc " TEST_SRCDIR "/node/identity.js "
					IDDUMPS " > " IDDUMPS "/made.tmp && mv " IDDUMPS "/made.tmp " IDDUMPS
					"/made.json"), 0);
	}
	/* heapwalk's answer, afresh: it is what is tested */
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "'%s' diff -f json " IDDUMPS "/a.heapsnapshot " IDDUMPS "/b.heapsnapshot > "
		 IDDUMPS "/diff.json", heapwalk());
	ck_assert_int_eq(system(cmd), 0);
	return 1;
}

/* The row of class cls in heapwalk's diff, or NULL. */
static const struct jv *diff_row(const struct jv *diff, const char *cls)
{
	const struct jv *rows = jv_get(diff, "rows");

	ck_assert_ptr_nonnull(rows);
	for (size_t i = 0; i < rows->n; i++) {
		const struct jv *c = jv_get(&rows->v[i], "class");
		if (c != NULL && c->t == J_STR && strcmp(c->s, cls) == 0)
			return &rows->v[i];
	}
	return NULL;
}

static int64_t field(const struct jv *row, const char *key)
{
	const struct jv *v = jv_get(row, key);

	ck_assert_msg(v != NULL && v->t == J_NUM, "no number %s", key);
	return (int64_t)v->num;
}

/* The script's own classes: new and gone are what it made and dropped. */
START_TEST(test_node_identity_truth)
{
	struct jv made, diff;

	if (!identity_dumps())
		return;
	char *m = file_bytes(IDDUMPS "/made.json", &(size_t){ 0 });
	char *d = file_bytes(IDDUMPS "/diff.json", &(size_t){ 0 });
	read_json(m, &made);
	read_json(d, &diff);
	const struct jv *a = jv_get(&made, "a"), *b = jv_get(&made, "b"), *mk = jv_get(&made, "made");
	ck_assert(a != NULL && b != NULL && mk != NULL && a->n == 5);
	for (size_t i = 0; i < a->n; i++) {
		const char *cls = a->keys[i];
		int64_t before = (int64_t)a->v[i].u, now = (int64_t)jv_get(b, cls)->u, born = (int64_t)jv_get(mk, cls)->u;
		int64_t gone = before - (now - born);
		const struct jv *r = diff_row(&diff, cls);
		if (before == 0 && now == 0) {
			ck_assert_msg(r == NULL, "%s: a row, with no object in either snapshot", cls);
			continue;
		}
		ck_assert_msg(r != NULL, "%s: no row", cls);
		ck_assert_msg(field(r, "instances_before") == before && field(r, "instances") == now,
			      "%s: %lld -> %lld objects, the script held %lld -> %lld", cls,
			      (long long)field(r, "instances_before"), (long long)field(r, "instances"),
			      (long long)before, (long long)now);
		ck_assert_msg(field(r, "new") == born && field(r, "gone") == gone,
			      "%s: new %lld gone %lld, the script made %lld and dropped %lld", cls,
			      (long long)field(r, "new"), (long long)field(r, "gone"), (long long)born, (long long)gone);
		ck_assert_int_eq(field(r, "unidentified") + field(r, "unidentified_before"), 0);
	}
	jv_free(&made);
	jv_free(&diff);
	free(m);
	free(d);
}
END_TEST

/* Every class, against tests/node/idcheck.js's own reading of the two
 * snapshots; and the case the issue reported, an id passed from a dead
 * object to a new one of another class, happened and was counted. */
START_TEST(test_node_identity_every_class)
{
	struct jv diff, ref;
	int st;

	if (!identity_dumps())
		return;
	char *out = run("node " TEST_SRCDIR "/node/idcheck.js " IDDUMPS "/a.heapsnapshot " IDDUMPS
			"/b.heapsnapshot " IDDUMPS "/diff.json", &st);
	ck_assert_msg(st == 0, "heapwalk's diff and idcheck.js differ: %s", out);
	read_json(out, &ref);
	uint64_t reused = jv_get(&ref, "reused")->u;
	ck_assert_msg(reused > 0, "no id passed to an object of another class: the churn no longer shows it");
	char *d = file_bytes(IDDUMPS "/diff.json", &(size_t){ 0 });
	read_json(d, &diff);
	const struct jv *id = jv_get(&diff, "identity");
	char want[64];
	snprintf(want, sizeof want, "one gone and one new: %llu)", (unsigned long long)reused);
	ck_assert_msg(id != NULL && strstr(id->s, want) != NULL && strstr(id->s, "not identified") != NULL,
		      "%s", id ? id->s : "(no identity)");
	ck_assert_msg(strstr(id->s, "exact: ") == NULL, "%s", id->s);
	jv_free(&ref);
	jv_free(&diff);
	free(d);
	free(out);
}
END_TEST

/* What exact promises, for every class: the identified objects change
 * by new less gone, and no row is flagged. */
START_TEST(test_node_identity_invariant)
{
	struct jv diff;

	if (!identity_dumps())
		return;
	char *d = file_bytes(IDDUMPS "/diff.json", &(size_t){ 0 });
	read_json(d, &diff);
	const struct jv *rows = jv_get(&diff, "rows");
	ck_assert(rows != NULL && rows->n > 50);
	size_t bad = 0;
	for (size_t i = 0; i < rows->n; i++) {
		const struct jv *r = &rows->v[i];
		int64_t ident = (field(r, "instances") - field(r, "unidentified")) -
				(field(r, "instances_before") - field(r, "unidentified_before"));
		if (ident != field(r, "new") - field(r, "gone") || field(r, "unexplained") != 0) {
			fprintf(stderr, "v8: %s: identified %+lld, new %lld, gone %lld, unexplained %lld\n",
				jv_get(r, "class")->s, (long long)ident, (long long)field(r, "new"),
				(long long)field(r, "gone"), (long long)field(r, "unexplained"));
			bad++;
		}
	}
	ck_assert_uint_eq(bad, 0);
	ck_assert_int_eq(field(&diff, "unexplained_classes"), 0);
	jv_free(&diff);
	free(d);
}
END_TEST

/* Two snapshots that node wrote (v8.writeHeapSnapshot), with an inspector
 * session of its own between them that took a snapshot and ended
 * (tests/node/reset.js): V8 numbered its objects afresh, and the later
 * snapshot's ids name other objects. With many objects made since (their
 * ids past all of the older snapshot's), the pair was compared by ids as
 * exact, the 1000 objects that lived through both counted 1000 new and
 * 1000 gone (a trial). Now: inferred, saying why, and none of them new
 * or gone. With few made since, the pair is refused as out of order (the
 * reason naming the renumbering too) or inferred, never exact. */
START_TEST(test_node_ids_renumbered)
{
	static const char *const born[] = { "60000", "300" };
	int st;

	if (!have_node()) {
		fprintf(stderr, "v8: node is not installed: the renumbered snapshots test is skipped\n");
		return;
	}
	for (size_t k = 0; k < 2; k++) {
		char cmd[2048];
		snprintf(cmd, sizeof cmd, "mkdir -p " V8DUMPS "/reset && rm -f " V8DUMPS "/reset/*.heapsnapshot* && "
			 "node " TEST_SRCDIR "/node/reset.js " V8DUMPS "/reset %s", born[k]);
		char *made = run(cmd, &st);
		ck_assert_msg(st == 0, "%s", made);
		free(made);
		snprintf(cmd, sizeof cmd, "'%s' -q -f json diff " V8DUMPS "/reset/a.heapsnapshot " V8DUMPS
			 "/reset/b.heapsnapshot 2>/dev/null", heapwalk());
		char *out = run(cmd, &st);
		ck_assert_msg(st == 0, "%s", out);
		struct jv diff;
		read_json(out, &diff);
		const struct jv *id = jv_get(&diff, "identity");
		ck_assert_msg(id != NULL && id->t == J_STR && strncmp(id->s, "exact", 5) != 0, "%s Born: %s", born[k],
			      id ? id->s : "(no identity)");
		const struct jv *kept = diff_row(&diff, "Kept"), *b = diff_row(&diff, "Born");
		ck_assert(kept != NULL && b != NULL);
		ck_assert_msg(field(kept, "instances_before") == 1000 && field(kept, "instances") == 1000 &&
			      field(b, "instances") == atoi(born[k]), "%s", out);
		if (k == 0) {
			/* V8's snapshots say no time: which is the earlier
			 * is taken on trust, and said */
			ck_assert_msg(strncmp(id->s, "inferred", 8) == 0 &&
				      strstr(id->s, "V8 numbered its objects afresh") != NULL &&
				      strstr(id->s, "which is the earlier is not checked") != NULL, "%s", id->s);
			/* none of the Born old: each new or not identified */
			int64_t born_old = field(b, "instances") - field(b, "new") - field(b, "unidentified");
			ck_assert_msg(field(kept, "new") == 0 && field(kept, "gone") == 0 && born_old == 0,
				      "Kept: new %lld gone %lld; Born old %lld: %s", (long long)field(kept, "new"),
				      (long long)field(kept, "gone"), (long long)born_old, id->s);
		} else {
			ck_assert_msg(strstr(id->s, "V8 numbered its objects afresh") != NULL, "%s", id->s);
		}
		jv_free(&diff);
		free(out);
	}
}
END_TEST

/* A hand-made snapshot of the root and n objects of class Alpha (ids
 * 3, 5, 7, ...), the first k of them of class Beta instead, then
 * `extra` more of class Gamma at higher ids. */
static void classed_snapshot(const char *path, unsigned n, unsigned k, unsigned extra)
{
	struct sbuf nodes, edges;
	unsigned all = n + extra;

	sbuf_init(&nodes);
	sbuf_init(&edges);
	sbuf_printf(&nodes, "0,0,1,0,%u,0", all);
	for (unsigned i = 0; i < all; i++) {
		sbuf_printf(&nodes, ",\n3,%u,%u,32,0,0", i >= n ? 3 : i < k ? 2 : 1, 2 * i + 3);
		sbuf_printf(&edges, "%s1,%u,%u", i > 0 ? "," : "", i, (i + 1) * 6);
	}
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "{\"snapshot\":{" META6 ",\"node_count\":%u,\"edge_count\":%u},\n\"nodes\":[%s],\n\"edges\":[%s],"
		"\n\"strings\":[\"\",\"Alpha\",\"Beta\",\"Gamma\"]}", all + 1, all, nodes.buf, edges.buf);
	ck_assert_int_eq(fclose(f), 0);
	sbuf_free(&nodes);
	sbuf_free(&edges);
}

/* The sign of V8 ids numbered afresh, at its bound: more than 1 in 100
 * of the ids both snapshots have (where no change in place explains
 * it) passed to an object of another type, class or text. 200 objects
 * in both, 100 new ones after them (above the old ids: in order); of
 * the 200, 2 changed class: 1 in 100, still exact, each counted one
 * gone and one new; 3: the pair is matched by content, and why is
 * said with the counts. */
START_TEST(test_renumbered_bound)
{
	const char *dir = V8DUMPS "/bound";
	char cmd[1024];
	int st;

	ck_assert_int_eq(system("mkdir -p " V8DUMPS "/bound"), 0);
	classed_snapshot(V8DUMPS "/bound/a.heapsnapshot", 200, 0, 0);
	for (unsigned k = 2; k <= 3; k++) {
		char b[256];
		snprintf(b, sizeof b, "%s/b%u.heapsnapshot", dir, k);
		classed_snapshot(b, 200, k, 100);
		snprintf(cmd, sizeof cmd, "'%s' -q --no-cache -f json diff %s/a.heapsnapshot %s 2>/dev/null", heapwalk(),
			 dir, b);
		char *out = run(cmd, &st);
		ck_assert_msg(st == 0, "%s: %s", cmd, out);
		struct jv diff;
		read_json(out, &diff);
		const struct jv *id = jv_get(&diff, "identity"), *beta = diff_row(&diff, "Beta");
		ck_assert_msg(id != NULL && id->t == J_STR, "%s", out);
		if (k == 2) {
			ck_assert_msg(strncmp(id->s, "exact", 5) == 0 &&
				      strstr(id->s, "counts as one gone and one new: 2)") != NULL, "%s", id->s);
			ck_assert_msg(beta != NULL && field(beta, "instances") == 2 && field(beta, "new") == 2, "%s", out);
		} else {
			ck_assert_msg(strncmp(id->s, "inferred", 8) == 0 &&
				      strstr(id->s, "(of the 200 ids both have that no change in place could explain, 3 "
						    "passed to an object of another type, class or text)") != NULL,
				      "%s", id->s);
		}
		jv_free(&diff);
		free(out);
	}
}
END_TEST

/* long-chains on a snapshot of Node: the lists tests/node/chains.js
 * made, each of the length it counted walking it; a doubly linked one
 * as two chains, one through each field; a ring whole. Without the
 * labels' links (the HPROF field table only), no group at all. */
START_TEST(test_node_chains)
{
	int st;

	if (!have_node()) {
		fprintf(stderr, "v8: node is not installed: the Node long-chains test is skipped\n");
		return;
	}
	char *json = run("mkdir -p " V8DUMPS " && rm -f " V8DUMPS "/chains.heapsnapshot && node --expose-gc "
			 TEST_SRCDIR "/node/chains.js " V8DUMPS "/chains.heapsnapshot", &st);
	ck_assert_msg(st == 0, "%s", json);
	chain_found(V8DUMPS "/chains.heapsnapshot", "Link.next", json_count(json, "Link"));
	chain_found(V8DUMPS "/chains.heapsnapshot", "DLink.next", json_count(json, "DLink"));
	chain_found(V8DUMPS "/chains.heapsnapshot", "DLink.prev", json_count(json, "DLink"));
	chain_found(V8DUMPS "/chains.heapsnapshot", "Ring.next", json_count(json, "Ring"));
	free(json);
	/* the trial's gate, which passed on this heap when nothing was examined */
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "printf 'inspection long-chains 100 : count == 0\\n' > " V8DUMPS "/chains.gates && "
		 "%s check " V8DUMPS "/chains.heapsnapshot --rules " V8DUMPS "/chains.gates", heapwalk());
	char *out = run(cmd, &st);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1 && strstr(out, " FAIL ") != NULL, "%s", out);
	free(out);
}
END_TEST

/* Every reference's label, after the step ignore has left out the
 * first reference of the heap (which moves it to the weak ones and
 * every other one up a place in h->out), is the file's: its edge's
 * name, read here from the parser's columns, "weak " before a weak
 * edge's, the first edge in the file's order where a node has several
 * to one target. Broken (labels by their place in h->out): the path of
 * the workload's tree read "normalize" and "__proto__" where the file
 * says "children" and "[1]". */
START_TEST(test_node_labels_after_ignore)
{
	struct parsed p;
	struct heap h;
	struct open_opts o = { .no_cache = 1, .quiet = 1 };
	struct sbuf err, want, got;
	uint64_t checked = 0, wrong = 0;

	if (!node_dumps())
		return;
	parse_file(&p, V8DUMPS "/a.heapsnapshot");
	ck_assert_msg(p.rc == 0, "%s", p.err.buf);
	sbuf_init(&err);
	sbuf_init(&want);
	sbuf_init(&got);
	ck_assert_msg(heap_open(&h, V8DUMPS "/a.heapsnapshot", &o, NULL, &err) == 0, "%s", err.buf);
	heap_need(&h, HP_ALL, NULL);
	node_t first = 1;
	while (first < h.n && h.out_start[first] == h.out_start[first + 1])
		first++;
	ck_assert(first < h.n);
	ck_assert_int_eq(heap_ignore(&h, first, h.out[h.out_start[first]], 1, NULL), 0);
	heap_need(&h, HP_ALL, NULL);
	const struct v8_snap *s = &p.s;
	int et_weak = -1, et_short = -1, et_elem = -1, et_hidden = -1;
	for (unsigned k = 0; k < s->n_edge_types; k++) {
		const char *t = s->edge_types[k];
		et_weak = strcmp(t, "weak") == 0 ? (int)k : et_weak;
		et_short = strcmp(t, "shortcut") == 0 ? (int)k : et_short;
		et_elem = strcmp(t, "element") == 0 ? (int)k : et_elem;
		et_hidden = strcmp(t, "hidden") == 0 ? (int)k : et_hidden;
	}
	uint64_t e0 = 0;
	for (uint32_t n = 0; n < s->nnodes; e0 += s->nedges_of[n], n++) {
		node_t src = heap_find_id(&h, s->nid[n]);
		if (n == s->root_index || src == HW_NONE)
			continue;
		for (uint64_t e = e0; e < e0 + s->nedges_of[n]; e++) {
			if (s->eto[e] >= s->nnodes || s->eto[e] == s->root_index || s->etype[e] == et_short)
				continue;
			node_t dst = heap_find_id(&h, s->nid[s->eto[e]]);
			/* the label of the first strong edge to that target, else of the first weak one */
			uint64_t pick = UINT64_MAX, weak = UINT64_MAX;
			for (uint64_t f = e0; f < e0 + s->nedges_of[n]; f++)
				if (s->eto[f] == s->eto[e] && s->etype[f] != et_short) {
					if (s->etype[f] != et_weak && pick == UINT64_MAX)
						pick = f;
					if (s->etype[f] == et_weak && weak == UINT64_MAX)
						weak = f;
				}
			if (pick == UINT64_MAX)
				pick = weak;
			sbuf_reset(&want);
			if (s->etype[pick] == et_weak)
				sbuf_adds(&want, "weak ");
			if (s->etype[pick] == et_elem || s->etype[pick] == et_hidden)
				sbuf_printf(&want, "[%u]", s->ename[pick]);
			else if (s->ename[pick] == HW_NONE || v8_string(p.map, p.size, s->str_off[s->ename[pick]], &want, 200) < 0)
				sbuf_adds(&want, "<?>");
			sbuf_reset(&got);
			heap_edge_label(&h, src, dst, &got);
			if (strcmp(want.buf, got.buf) != 0 && wrong++ < 3)
				fprintf(stderr, "v8: 0x%llx -> 0x%llx: the file says \"%s\", heapwalk \"%s\"\n",
					(unsigned long long)s->nid[n], (unsigned long long)s->nid[s->eto[e]], want.buf, got.buf);
			checked++;
		}
	}
	ck_assert_msg(wrong == 0 && checked > 10000, "%llu of %llu labels wrong", (unsigned long long)wrong,
		      (unsigned long long)checked);
	heap_free(&h);
	sbuf_free(&err);
	sbuf_free(&want);
	sbuf_free(&got);
	parsed_free(&p);
}
END_TEST

/* The edges are read after the nodes are made, each straight into its
 * node's room (v8.c's make_edges): what each label keeps, from a cold
 * open and from the cache. A's element indexes from 2^28 on, and an
 * edge of a ninth type, do not fit the packed word and are kept beside
 * it; B claims four billion edges and has one (its room is no more than
 * the edges' bytes can hold); the edges are CR LF separated, and one
 * number has a fraction, so that the quick scan past them gives way to
 * the general one. */
#define SIDE_META                                                                                       \
	"\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\",\"edge_count\"],"            \
	"\"node_types\":[[\"hidden\",\"object\"],\"string\",\"number\",\"number\",\"number\"],"          \
	"\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],"                                     \
	"\"edge_types\":[[\"context\",\"element\",\"property\",\"internal\",\"hidden\",\"shortcut\","    \
	"\"weak\",\"seventh\",\"eighth\"],\"string_or_number\",\"node\"]}"

struct label_list {
	struct sbuf sb;
};

static void add_label(void *arg, const char *name, const struct hvalue *val)
{
	struct label_list *l = arg;

	sbuf_printf(&l->sb, "%s>%llu;", name, (unsigned long long)val->v.id);
}

static void ck_side_labels(const char *path, int cached, int from_cache, const char *want_a, const char *want_b)
{
	struct heap h;
	struct open_opts o = { .quiet = 1, .no_cache = !cached };
	struct sbuf err;
	struct label_list l;

	sbuf_init(&err);
	sbuf_init(&l.sb);
	ck_assert_msg(heap_open(&h, path, &o, NULL, &err) == 0, "%s", err.buf);
	ck_assert_int_eq(h.from_cache, from_cache);
	heap_need(&h, HP_ALL, NULL);
	ck_assert_uint_eq(h.n, 4);
	heap_fields(&h, heap_find_id(&h, 3), add_label, &l);
	ck_assert_str_eq(l.sb.buf, want_a);
	sbuf_reset(&l.sb);
	heap_fields(&h, heap_find_id(&h, 5), add_label, &l);
	ck_assert_str_eq(l.sb.buf, want_b);
	ck_assert_uint_eq(h.nedges, 6);
	ck_assert_uint_eq(h.nweak, 1);
	heap_free(&h);
	sbuf_free(&l.sb);
	sbuf_free(&err);
}

START_TEST(test_stream_side_labels)
{
	const char *path = TEST_BUILDDIR "/tmp/side.heapsnapshot";
	char *cache = xasprintf("%s.hwi", path);
	/* nodes: the root (to A), A (id 3), B (id 5), C (id 7) */
	static const char text[] =
		"{\"snapshot\":{" SIDE_META ",\"node_count\":4,\"edge_count\":8},\r\n"
		"\"nodes\":[0,0,1,0,1,1,1,3,10,6,1,2,5,20,4000000000,1,3,7,30,0],\r\n"
		"\"edges\":[1,0,5\r\n,1,300000000,10\r\n,2,4,15\r\n,8,5,15\r\n,1,4294967294,10\r\n,2,4,10"
		"\r\n,6,5,15.0\r\n,2,4,15],\r\n"
		"\"strings\":[\"\",\"A\",\"B\",\"C\",\"x\",\"y\"]}";
	const char *want_a = "[300000000]>5;[4294967294]>5;x>5;x>7;y>7;weak y>7;";

	mkdir(TEST_BUILDDIR "/tmp", 0755);
	unlink(cache);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, sizeof text - 1, f), sizeof text - 1);
	ck_assert_int_eq(fclose(f), 0);
	ck_side_labels(path, 0, 0, want_a, "x>7;");
	ck_side_labels(path, 1, 0, want_a, "x>7;"); /* makes the cache */
	ck_side_labels(path, 1, 1, want_a, "x>7;");
	/* the parser's columns say the same, and B's count is cut to what
	 * the edges' bytes can hold */
	struct parsed p;
	parse_text(&p, text);
	ck_assert_msg(p.rc == 0, "%s", p.err.buf);
	ck_assert_uint_eq(p.s.nedges, 8);
	ck_assert_uint_eq(p.s.ename[1], 300000000);
	ck_assert_uint_eq(p.s.etype[3], 8);
	ck_assert_uint_eq(p.s.nedges_of[2], 1);
	ck_warned(&p, "edge counts add up to", "the last nodes' counts are cut");
	parsed_free(&p);
	unlink(cache);
	unlink(path);
	free(cache);
}
END_TEST

/* Damage inside an array is said before the record cut short at its end
 * that follows from it (the open's one line names the first warning):
 * test_hand_any_order's edges with "7,12" of the second made "XXX", one
 * number that is none where there were two. */
START_TEST(test_damage_said_first)
{
	struct parsed p;

	parse_text(&p, "{\"strings\":[\"\",\"Root\",\"Thing\",\"x\"],\n"
		       "\"edges\":[2,3,6, 1,XXX, 6,3,12,\n 3,1,0],\n"
		       "\"nodes\":[3,1,1,10,2,0, 3,2,3,20,1,0, 1,3,5,30,1,0],\n"
		       "\"snapshot\":{" META6 ",\"node_count\":3,\"edge_count\":4,\"root_index\":6}}");
	ck_assert_msg(p.rc == 0, "%s", p.err.buf);
	show_warnings(&p);
	size_t odd = p.w.n, cut = p.w.n;
	for (size_t i = 0; i < p.w.n; i++) {
		if (odd == p.w.n && strstr(p.w.msg[i], "edges: 1 values that are not unsigned integers") != NULL)
			odd = i;
		if (cut == p.w.n && strstr(p.w.msg[i], "edges: the last record has 2 of its 3 numbers") != NULL)
			cut = i;
	}
	ck_assert_msg(odd < cut && cut < p.w.n, "the odd value's warning %zu, the cut record's %zu", odd, cut);
	parsed_free(&p);
}
END_TEST

/* The heap's open of `text` (written to a file; no cache): its warnings
 * joined in *warned, whether a class is named `cls`. */
static int opened_with_class(const char *text, const char *cls, struct sbuf *warned)
{
	const char *path = TEST_BUILDDIR "/tmp/loc.heapsnapshot";
	struct open_opts o = { .quiet = 1, .no_cache = 1 };
	struct heap h;
	struct sbuf err;
	int found = 0;

	mkdir(TEST_BUILDDIR "/tmp", 0755);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, strlen(text), f), strlen(text));
	ck_assert_int_eq(fclose(f), 0);
	sbuf_init(&err);
	ck_assert_msg(heap_open(&h, path, &o, NULL, &err) == 0, "%s", err.buf);
	for (uint32_t c = 0; c < h.ncls; c++)
		found |= strcmp(heap_str(&h, h.cls[c].name), cls) == 0;
	for (size_t i = 0; i < h.warn.n; i++)
		sbuf_printf(warned, "%s\n", h.warn.msg[i]);
	heap_free(&h);
	sbuf_free(&err);
	unlink(path);
	return found;
}

/* A file cut short in its edges has no strings (V8 writes them last):
 * the cut is said first (the open's one line names it), and the names
 * read as none are said to follow from it, not to be past 0 strings.
 * Through the heap's open (edges read where they stand) and the parser
 * (edges in a pass of their own). */
START_TEST(test_cut_before_strings)
{
	static const char text[] =
		"{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\",\"edge_count\"],"
		"\"node_types\":[[\"hidden\",\"array\",\"string\",\"object\"]],\"edge_fields\":[\"type\","
		"\"name_or_index\",\"to_node\"],\"edge_types\":[[\"context\",\"element\",\"property\"]]}},\n"
		"\"nodes\":[0,0,1,0,2\n,3,1,3,24,0\n,3,2,5,24,0],\n\"edges\":[1,0,5,\n1,1,";
	struct sbuf said;

	sbuf_init(&said);
	opened_with_class(text, "Thing", &said);
	size_t first = strcspn(said.buf, "\n");
	const char *cut = strstr(said.buf, "truncated in edges");
	ck_assert_msg(cut != NULL && (size_t)(cut - said.buf) < first, "not said first: %s", said.buf);
	ck_assert_msg(strstr(said.buf, "nodes: 3 names read as none: the file is cut short before its strings\n") != NULL &&
		      strstr(said.buf, "past the 0 strings") == NULL, "%s", said.buf);
	sbuf_free(&said);
	struct parsed p;
	parse_text(&p, text);
	ck_assert_msg(p.rc == 0, "%s", p.err.buf);
	ck_assert_msg(p.w.n >= 2 && strstr(p.w.msg[0], "truncated in edges") != NULL, "%s",
		      p.w.n > 0 ? p.w.msg[0] : "no warning");
	ck_warned(&p, "nodes: 3 names read as none: the file is cut short before its strings", NULL);
	parsed_free(&p);
	/* cut just inside the strings: the same, "in" them */
	static const char in_strings[] =
		"{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\",\"edge_count\"],"
		"\"node_types\":[[\"hidden\",\"array\",\"string\",\"object\"]],\"edge_fields\":[\"type\","
		"\"name_or_index\",\"to_node\"],\"edge_types\":[[\"context\",\"element\",\"property\"]]}},\n"
		"\"nodes\":[0,0,1,0,1\n,3,1,3,24,0],\n\"edges\":[1,0,5],\n\"strings\":[";
	sbuf_init(&said);
	opened_with_class(in_strings, "Thing", &said);
	ck_assert_msg(strstr(said.buf, "nodes: 2 names read as none: the file is cut short in its strings\n") != NULL &&
		      strstr(said.buf, "past the 0 strings") == NULL, "%s", said.buf);
	sbuf_free(&said);
}
END_TEST

/* "locations", which no view shows, is stepped over by the heap's open,
 * not read: values its reading refuses ("-1" stopped the pass there,
 * and the strings after it were lost) are no problem; a file that ends
 * inside it is said to, as when it was read. The parser that reads it
 * (v8_parse) still says what is odd in it. */
#define LOC_HEAD                                                                                          \
	"{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\",\"edge_count\"],"   \
	"\"node_types\":[[\"hidden\",\"array\",\"string\",\"object\"]],\"edge_fields\":[\"type\","          \
	"\"name_or_index\",\"to_node\"],\"edge_types\":[[\"context\",\"element\",\"property\"]],"            \
	"\"location_fields\":[\"object_index\",\"script_id\",\"line\",\"column\"]}},\n"                     \
	"\"nodes\":[0,0,1,0,1\n,3,1,3,24,0],\n\"edges\":[1,0,5],\n\"locations\":["
START_TEST(test_locations_skipped)
{
	struct sbuf w;
	struct parsed p;
	const char *odd = LOC_HEAD "-1,1.5,\"x\",[2],{\"a\":3}],\n\"strings\":[\"\",\"Thing\"]}";

	sbuf_init(&w);
	ck_assert(opened_with_class(odd, "Thing", &w));
	ck_assert_msg(w.len == 0, "%s", w.buf);
	parse_text(&p, odd);
	ck_assert_int_eq(p.rc, 0);
	ck_assert_uint_gt(p.w.n, 0); /* read, the odd values are said */
	parsed_free(&p);
	/* a long one, the file's end inside it */
	struct sbuf cut;
	sbuf_init(&cut);
	sbuf_adds(&cut, LOC_HEAD);
	for (int i = 0; i < 200000; i++)
		sbuf_adds(&cut, "5,1,20,7,\n");
	sbuf_reset(&w);
	opened_with_class(cut.buf, "Thing", &w);
	ck_assert_msg(strstr(w.buf, "truncated in locations") != NULL, "%s", w.buf);
	sbuf_free(&cut);
	sbuf_free(&w);
}
END_TEST

/* What the nodes' edge counts are believed to before the edges are
 * read: as many edges as the numbers there make, however much
 * whitespace pads them (a megabyte of spaces claimed room for 175,000
 * edges, four bytes each and their labels', however many nodes claim
 * them), and what a tab or CR between them does not stop the quick scan
 * over. */
START_TEST(test_edges_room)
{
	struct sbuf t;
	struct parsed p;

	sbuf_init(&t);
	sbuf_adds(&t, "{\"snapshot\":{" SIDE_META "},\n"
		      "\"nodes\":[0,0,1,0,4000000000,1,1,3,10,4000000000],\n\"edges\":[1,0,5,\t2,5,5\r\n");
	for (int i = 0; i < (1 << 20); i++)
		sbuf_addc(&t, ' ');
	sbuf_adds(&t, "],\n\"strings\":[\"\",\"A\"]}");
	parse_bytes(&p, "pad.heapsnapshot", t.buf, t.len);
	ck_assert_msg(p.rc == 0, "%s", p.err.buf);
	ck_assert_uint_eq(p.s.edges_room, 2);
	ck_assert_uint_eq(p.s.nedges, 2);
	ck_assert_uint_eq(p.s.nedges_of[0], 2);
	ck_assert_uint_eq(p.s.nedges_of[1], 0);
	ck_assert_uint_eq(p.s.eto[1], 1);
	ck_warned(&p, "edge counts add up to 8000000000, but there are 2 edges", "the last nodes' counts are cut");
	parsed_free(&p);

	/* 5,000 edges, their separators of every kind the scan passes:
	 * room for exactly them (the commas counted sixteen bytes at a
	 * time, in lanes summed every 255 rounds, and a byte at a time) */
	static const char *const sep[] = { ",", ",\n", ", ", "\r\n,", "\t,", " ,  " };
	sbuf_reset(&t);
	sbuf_adds(&t, "{\"snapshot\":{" SIDE_META "},\n"
		      "\"nodes\":[0,0,1,0,5000,1,1,3,10,0],\n\"edges\":[");
	for (int i = 0; i < 5000; i++)
		sbuf_printf(&t, "%s2%s0%s%d", i > 0 ? sep[i % 6] : "", sep[(i / 6) % 6], sep[(i / 36) % 6], 5 * (i % 2));
	sbuf_adds(&t, "],\n\"strings\":[\"\",\"A\"]}");
	parse_bytes(&p, "seps.heapsnapshot", t.buf, t.len);
	ck_assert_msg(p.rc == 0, "%s", p.err.buf);
	show_warnings(&p);
	ck_assert_uint_eq(p.w.n, 0);
	ck_assert_uint_eq(p.s.edges_room, 5000);
	ck_assert_uint_eq(p.s.nedges, 5000);
	ck_assert_uint_eq(p.s.eto[4999], 1);
	parsed_free(&p);
	sbuf_free(&t);
}
END_TEST

/* The heap's open reads the edges where they stand (struct
 * v8_inline), the strings first from the file's end; with "edges"
 * before "nodes" it cannot, and reads them in a pass of their own after
 * the rest, as before. The same snapshot both ways, Node's own (with
 * allocation tracking too, whose arrays come after the edges): the same
 * answer, view for view, and no warning either way. */
static void write_bytes(const char *path, const char *a, size_t na, const char *b, size_t nb, const char *c,
			size_t nc, const char *d, size_t nd)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert(fwrite(a, 1, na, f) == na && fwrite(b, 1, nb, f) == nb && fwrite(c, 1, nc, f) == nc &&
		  fwrite(d, 1, nd, f) == nd);
	ck_assert_int_eq(fclose(f), 0);
}

static void ck_edges_where(const char *dump)
{
	const char *here = TEST_BUILDDIR "/tmp/here.heapsnapshot", *later = TEST_BUILDDIR "/tmp/later.heapsnapshot";
	size_t n;
	char *data = file_bytes(dump, &n);
	ck_assert_ptr_nonnull(data);
	/* V8 writes each top-level key on a line of its own */
	char *nodes = strstr(data, "\n\"nodes\":["), *edges = strstr(data, "\n\"edges\":["),
	     *after = edges != NULL ? strstr(edges, "\n\"trace_function_infos\":[") : NULL;
	ck_assert(nodes != NULL && edges != NULL && after != NULL && nodes < edges);
	mkdir(TEST_BUILDDIR "/tmp", 0755);
	write_bytes(here, data, n, "", 0, "", 0, "", 0);
	write_bytes(later, data, (size_t)(nodes - data), edges, (size_t)(after - edges), nodes, (size_t)(edges - nodes),
		    after, n - (size_t)(after - data));
	/* the one pass taken for the first (the counter), not for the second; no warning either way */
	for (int i = 0; i < 2; i++) {
		struct open_opts o = { .quiet = 1, .no_cache = 1 };
		struct heap h;
		struct sbuf err;
		unsigned long before = v8_edges_here;
		sbuf_init(&err);
		ck_assert_msg(heap_open(&h, i ? later : here, &o, NULL, &err) == 0, "%s", err.buf);
		ck_assert_msg(v8_edges_here - before == (i ? 0u : 1u), "%s: the edges read where they stand %lu times",
			      i ? later : here, v8_edges_here - before);
		ck_assert_msg(h.warn.n == 0, "%s: %s", i ? later : here, h.warn.n ? h.warn.msg[0] : "");
		heap_free(&h);
		sbuf_free(&err);
	}
	static const char *const views[] = { "classes %s", "biggest -n 300 %s", "inspect %s largest-arrays",
					     "inspect %s duplicate-strings", "-e 'instances Object' merged-in -n 100 %s",
					     "-e 'instances Object' objects -n 300 %s", "info %s",
					     "allocations -n 100 %s" };
	for (size_t v = 0; v < sizeof views / sizeof *views; v++) {
		char *out[2];
		for (int i = 0; i < 2; i++) {
			char cmd[1024], view[512];
			int st;
			snprintf(view, sizeof view, views[v], i ? later : here);
			snprintf(cmd, sizeof cmd, "%s --no-cache -q %s 2>&1", heapwalk(), view);
			out[i] = run(cmd, &st);
			ck_assert_msg(st == 0, "%s: %s", cmd, out[i]);
			if (strncmp(views[v], "info", 4) == 0) { /* but the file's name and size */
				char *e = strstr(out[i], "\n");
				ck_assert_ptr_nonnull(e);
				memmove(out[i], e, strlen(e) + 1);
			}
		}
		ck_assert_msg(strcmp(out[0], out[1]) == 0, "%s, %s: edges where they stand:\n%.2000s\nin a pass of "
			      "their own:\n%.2000s", dump, views[v], out[0], out[1]);
		ck_assert_uint_gt(strlen(out[0]), 100);
		free(out[0]);
		free(out[1]);
	}
	unlink(here);
	unlink(later);
	free(data);
}

START_TEST(test_edges_where_they_stand)
{
	if (!node_dumps())
		return;
	ck_edges_where(V8DUMPS "/a.heapsnapshot");
	ck_edges_where(V8DUMPS "/tracked/a.heapsnapshot");
}
END_TEST

/* The strings read first are those of the last key when the file ends
 * with them: found past strings that hold what a key looks like (a
 * colon and a bracket after an escaped quote or at a string's start, as
 * in a regular expression of Node's own, "strings" itself), and
 * read rather than a "strings" before them (JSON.parse keeps a key's
 * last value), which a warning names. Where the file ends otherwise,
 * the strings are read where they stand, the first of two. */
#define TWICE_HEAD                                                                                        \
	"{\"snapshot\":{" SIDE_META "},\n\"nodes\":[0,0,1,0,1,1,1,3,10,0],\n"
START_TEST(test_strings_first)
{
	struct sbuf w;

	sbuf_init(&w);
	const char *tricky = TWICE_HEAD "\"strings\":[\"\",\"First\"],\n\"edges\":[1,0,5],\n"
				       "\"strings\":[\"\",\"Last\",\"x\\\":[\",\"strings\",\"{\\\"strings\\\":[1]}\","
				       "\" \\\"strings\\\" : [\",\"^[a-z]+:\",\":[0-9]*$\",\"a\\\\\"]}\n";
	ck_assert(opened_with_class(tricky, "Last", &w));
	ck_assert_msg(strstr(w.buf, "\"strings\" before the last one (offset ") != NULL, "%s", w.buf);
	sbuf_reset(&w);
	/* not the last key: the first read, the second said and skipped */
	const char *other = TWICE_HEAD "\"strings\":[\"\",\"First\"],\n\"edges\":[1,0,5],\n"
				      "\"strings\":[\"\",\"Last\"],\"x\":[\"a\",\"b\"]}";
	ck_assert(opened_with_class(other, "First", &w));
	ck_assert_msg(strstr(w.buf, "\"strings\" again; skipped") != NULL, "%s", w.buf);
	sbuf_reset(&w);
	/* the last, but not followed by the object's end only */
	const char *trailing = TWICE_HEAD "\"strings\":[\"\",\"First\"],\n\"edges\":[1,0,5],\n"
					 "\"strings\":[\"\",\"Last\"]} x";
	ck_assert(opened_with_class(trailing, "First", &w));
	ck_assert_msg(strstr(w.buf, "before the last one") == NULL, "%s", w.buf);
	sbuf_reset(&w);
	/* another document after the snapshot, ending in strings: not the
	 * snapshot's (the pass never meets them), the snapshot read again
	 * the plain way; its own strings name its classes */
	unsigned long before = v8_edges_here;
	ck_assert(opened_with_class(TWICE_HEAD "\"edges\":[1,0,5],\n\"strings\":[\"\",\"Mine\"]}\n"
				    "{\"strings\":[\"\",\"Other\"]}\n", "Mine", &w));
	ck_assert_msg(strstr(w.buf, "before the last one") == NULL, "%s", w.buf);
	ck_assert_uint_eq(v8_edges_here - before, 1); /* taken, then undone */
	sbuf_reset(&w);
	/* the last strings no clean array of strings: not read first, and
	 * what is odd in them said once, when the pass reads them */
	ck_assert(opened_with_class(TWICE_HEAD "\"edges\":[1,0,5],\n\"strings\":[\"\",\"Alpha\",5,\"Beta\"]}", "Alpha", &w));
	const char *odd = strstr(w.buf, "entries that are not strings");
	ck_assert_msg(odd != NULL && strstr(odd + 1, "entries that are not strings") == NULL, "%s", w.buf);
	sbuf_reset(&w);
	/* ... and the look from the end says nothing of its own: -q is quiet */
	const char *path = TEST_BUILDDIR "/tmp/odd-strings.heapsnapshot";
	FILE *f = fopen(path, "w");
	ck_assert(f != NULL && fputs(TWICE_HEAD "\"edges\":[1,0,5],\n\"strings\":[\"\",\"Alpha\",5,\"Beta\"]}", f) >= 0 &&
		  fclose(f) == 0);
	char cmd[1024];
	int st;
	snprintf(cmd, sizeof cmd, "%s --no-cache -q info %s 2>&1 >/dev/null", heapwalk(), path);
	char *said = run(cmd, &st);
	ck_assert_msg(st == 0 && said[0] == '\0', "%s", said);
	free(said);
	unlink(path);
	/* one "strings", the last key, as V8 writes: no warning */
	ck_assert(opened_with_class(TWICE_HEAD "\"edges\":[1,0,5],\n\"strings\":[\"\",\"Only\"]\n}\n", "Only", &w));
	ck_assert_msg(w.len == 0, "%s", w.buf);
	sbuf_free(&w);
}
END_TEST

/* The scratch file filling up at any point of a cold open (a file size
 * limit, SIGXFSZ ignored as a shell may), the V8 reader's arrays parked
 * there before it (or after, some of them): they are read back all the
 * same, and the answer is the one a roomy disk gives; with the index
 * cache, one that could not be written whole is not left behind as
 * one. Before, a write that failed after them ended the open ("cannot
 * read back what the V8 reader parked on disk"), and the cache was
 * written with their sections empty. A snapshot of 60,000 objects,
 * three edges each, made here. */
/* A snapshot of 60,000 objects of three references each, some weak,
 * written to path. */
static void write_wide_n(const char *path, int nodes)
{
	uint64_t x = 12345;

	mkdir(TEST_BUILDDIR "/tmp", 0755);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("{\"snapshot\":{" SIDE_META "},\n\"nodes\":[0,0,1,0,1", f);
	for (int i = 1; i <= nodes; i++)
		fprintf(f, ",\n1,%d,%d,%d,3", 1 + i % 3, 1 + 2 * i, 16 + i % 64);
	fputs("],\n\"edges\":[1,0,5", f);
	for (int i = 1; i <= nodes; i++)
		for (int k = 0; k < 3; k++)
			fprintf(f, ",\n%d,%d,%llu", k == 2 ? 6 : 2, 4 + k, (unsigned long long)(5 * (1 + xs_next(&x) % (uint64_t)nodes)));
	fputs("],\n\"strings\":[\"\",\"A\",\"B\",\"C\",\"x\",\"y\",\"z\"]}", f);
	ck_assert_int_eq(fclose(f), 0);
}

static void write_wide(const char *path)
{
	write_wide_n(path, 60000);
}

#ifdef HW_TEST_ASAN
#define SCRATCH_STEP 4
#else
#define SCRATCH_STEP 2
#endif
START_TEST(test_scratch_full)
{
	const char *path = TEST_BUILDDIR "/tmp/full.heapsnapshot";
	char *cache = xasprintf("%s.hwi", path);
	char args[1024], cmd[4096];
	int st;

	write_wide(path);
	static const char *const views[] = { "info", "graph -d 2 -n 300" };
	for (size_t v = 0; v < sizeof views / sizeof views[0]; v++)
		for (int cached = 0; cached < 2; cached++) {
			snprintf(args, sizeof args, "-q %s %s '%s'", cached ? "" : "--no-cache", views[v], path);
			unlink(cache);
			snprintf(cmd, sizeof cmd, "'%s' %s 2>/dev/null", heapwalk(), args);
			char *want = run(cmd, &st);
			ck_assert_msg(st == 0, "%s", want);
			/* the file's limit at each power of two; under the
			 * sanitizers every other one (the -Werror build's check
			 * runs them all) */
			for (unsigned blocks = 32; blocks <= 4096; blocks *= SCRATCH_STEP) {
				unlink(cache);
				snprintf(cmd, sizeof cmd, "trap '' XFSZ; ulimit -f %u; '%s' %s 2>/dev/null", blocks,
					 heapwalk(), args);
				char *got = run(cmd, &st);
				ck_assert_msg(st == 0, "ulimit -f %u: %s", blocks, got);
				ck_assert_msg(strcmp(got, want) == 0, "ulimit -f %u, %s: %s\nwant %s", blocks, args, got, want);
				free(got);
				if (cached) { /* a cache left is a whole one: the same again from it */
					snprintf(cmd, sizeof cmd, "'%s' %s 2>/dev/null", heapwalk(), args);
					got = run(cmd, &st);
					ck_assert_msg(st == 0 && strcmp(got, want) == 0, "after ulimit -f %u, %s: %s", blocks,
						      args, got);
					free(got);
				}
			}
			free(want);
		}
	/* and says so: what was to wait on disk is in memory, past what
	 * the memory counted on allows */
	snprintf(cmd, sizeof cmd, "trap '' XFSZ; ulimit -f 32; '%s' --no-cache info '%s' 2>&1 >/dev/null", heapwalk(),
		 path);
	char *said = run(cmd, &st);
	ck_assert_msg(st == 0 && strstr(said, "full.heapsnapshot: the scratch file could not be written (") != NULL,
		      "%s", said);
	free(said);
	unlink(cache);
	unlink(path);
	free(cache);
}
END_TEST

/* The reader's arrays per node and per reference wait in the cache once
 * it is written, and after a cached open, until a view reads them: the
 * open that writes it shows `graph` as --no-cache does; then with the
 * labels' section damaged, `classes` opens from the cache, says nothing
 * and shows what a cold open shows; `graph`, which reads the labels,
 * finds the damage, says so and reads the dump again, its output a cold
 * open's. */
START_TEST(test_lazy_from_cache)
{
	const char *path = TEST_BUILDDIR "/tmp/lazy.heapsnapshot", *err = TEST_BUILDDIR "/tmp/lazy.err";
	char *cache = xasprintf("%s.hwi", path), cmd[4096];
	static const char *const views[] = { "classes", "graph -d 2 -n 300" };
	char *want[2];
	int st;

	write_wide(path);
	unlink(cache);
	for (int v = 0; v < 2; v++) {
		snprintf(cmd, sizeof cmd, "'%s' -q --no-cache %s '%s' 2>/dev/null", heapwalk(), views[v], path);
		want[v] = run(cmd, &st);
		ck_assert_msg(st == 0, "%s", want[v]);
	}
	/* the first open writes the cache, the labels read from it since */
	snprintf(cmd, sizeof cmd, "'%s' -q %s '%s' 2>/dev/null", heapwalk(), views[1], path);
	char *first = run(cmd, &st);
	ck_assert_msg(st == 0 && strcmp(first, want[1]) == 0, "first open: %.300s\nwant %.300s", first, want[1]);
	free(first);
	/* a byte of the labels' first chunk changed: its checksum fails */
	size_t len;
	uint8_t *c = (uint8_t *)file_bytes(cache, &len);
	ck_assert_ptr_nonnull(c);
	struct cache_header hd;
	ck_assert_uint_ge(len, sizeof hd);
	memcpy(&hd, c, sizeof hd);
	int hit = 0;
	for (uint32_t i = 0; i < hd.nsect && sizeof hd + (i + 1) * sizeof(struct store_sect) <= len; i++) {
		struct store_sect sc;
		memcpy(&sc, c + sizeof hd + i * sizeof sc, sizeof sc);
		if (sc.id == cache_reader_section(3) && sc.comp > 8 && sc.off + sc.comp <= len) {
			c[sc.off + 6] ^= 0x5a;
			hit = 1;
		}
	}
	ck_assert_msg(hit, "no section of the labels in the cache");
	FILE *f = fopen(cache, "r+b");
	ck_assert(f != NULL && fwrite(c, 1, len, f) == len && fclose(f) == 0);
	for (int v = 0; v < 2; v++) {
		snprintf(cmd, sizeof cmd, "'%s' %s '%s' 2>'%s'", heapwalk(), views[v], path, err);
		size_t elen, clen;
		char *got = run(cmd, &st), *e = file_bytes(err, &elen);
		ck_assert_msg(st == 0 && strcmp(got, want[v]) == 0, "%s: %.300s\nwant %.300s", views[v], got, want[v]);
		ck_assert_ptr_nonnull(e);
		if (v == 0) { /* the labels not read: the cache used as it is (not made anew), nothing said */
			char *now = file_bytes(cache, &clen);
			ck_assert_msg(now != NULL && clen == len && memcmp(now, c, len) == 0, "the cache was made anew");
			ck_assert_msg(strstr(e, "corrupt") == NULL, "%s", e);
			free(now);
		} else {
			ck_assert_msg(strstr(e, "corrupt (the reader's arrays)") != NULL, "%s", e);
		}
		free(e);
		free(got);
		free(want[v]);
	}
	free(c);
	unlink(cache);
	unlink(path);
	unlink(err);
	free(cache);
}
END_TEST

/* The content hash the first pass makes as it reads (for the index
 * cache's --verify-cache) is the hash of every byte of the file, made
 * here at once from the file's bytes: whatever windows it read
 * through, the keys in any order, pages let go behind it (a mapping of
 * more than a few MiB), a file cut short; and it is the one the cache
 * written by an ordinary open keeps. */
static void sink_none(void *ctx, uint64_t at, size_t n, const uint8_t *type, const uint32_t *name,
		      const uint32_t *to)
{
	(void)at, (void)type, (void)name, (void)to;
	*(uint64_t *)ctx += n;
}

static int ready_none(void *ctx, struct v8_snap *s, v8_edge_sink **sink, void **sink_ctx)
{
	(void)s;
	*sink = sink_none;
	*sink_ctx = ctx;
	return 1;
}

static void hash_of_file(const char *path, size_t win, int drop, int use_fd)
{
	size_t n;
	char *data = file_bytes(path, &n);
	ck_assert_ptr_nonnull(data);
	uint64_t want = store_hash(data, n, 0), got = 0;
	int fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	void *map = mmap(NULL, n ? n : 1, PROT_READ, MAP_PRIVATE, fd, 0);
	ck_assert(map != MAP_FAILED);
	/* the locations stepped over (the heap's open) or read; the edges
	 * stepped over or read where they stand (the heap's open) */
	for (int loc = 0; loc < 2; loc++)
	for (int here = 0; here < 2; here++) {
		struct v8_snap s;
		struct warnings w = { .quiet = 1 };
		struct sbuf err;
		uint64_t edges = 0;
		struct v8_inline in = { .ready = ready_none, .ctx = &edges };
		sbuf_init(&err);
		v8_parse_window(win);
		int rc = v8_parse_heads(path, map, n, drop, use_fd ? fd : -1, &s, NULL, &w, &err, &got, loc,
					here ? &in : NULL);
		v8_parse_window(0);
		ck_assert_msg(got == want, "%s, window %zu (fd %d), drop %d, locations %d, edges here %d: %016llx, "
			      "want %016llx", path, win, use_fd, drop, loc, here, (unsigned long long)got,
			      (unsigned long long)want);
		if (rc == 0)
			v8_snap_free(&s);
		warn_free(&w);
		sbuf_free(&err);
	}
	munmap(map, n ? n : 1);
	close(fd);
	free(data);
}

START_TEST(test_content_hash)
{
	const char *wide = TEST_BUILDDIR "/tmp/hash.heapsnapshot", *odd = TEST_BUILDDIR "/tmp/hash-odd.heapsnapshot";
	const char *cut = TEST_BUILDDIR "/tmp/hash-cut.heapsnapshot";
	static const char odd_text[] = "{\"strings\":[\"\",\"Root\",\"Thing\",\"x\"],\n"
				       "\"edges\":[2,3,6, 1,7,12, 6,3,12,\n 3,1,0],\n\"extra\":[\"]\",{\"[\":[]}],"
				       "\"nodes\":[3,1,1,10,2,0, 3,2,3,20,1,0, 1,3,5,30,1,0],\n"
				       "\"snapshot\":{" META6 ",\"node_count\":3,\"edge_count\":4,\"root_index\":6}}";
	size_t n;

	write_wide_n(wide, 300000); /* past the pages kept behind the reader: some let go */
	FILE *f = fopen(odd, "w");
	ck_assert(f != NULL && fputs(odd_text, f) >= 0 && fclose(f) == 0);
	char *data = file_bytes(wide, &n);
	ck_assert_uint_gt(n, 12u << 20);
	f = fopen(cut, "w");
	ck_assert(f != NULL && fwrite(data, 1, n / 3, f) == n / 3 && fclose(f) == 0);
	free(data);
	const char *files[] = { wide, odd, cut, V8DUMPS "/tracked/a.heapsnapshot" };
	for (size_t i = 0; i < 4; i++) {
		if (i == 3 && !node_dumps())
			break;
		for (int drop = 0; drop < 2; drop++) {
			hash_of_file(files[i], 0, drop, 0); /* the mapping alone */
			hash_of_file(files[i], 4096, drop, 1);
#ifndef HW_TEST_ASAN /* (each parse several times slower there: these in the -Werror build's check) */
			hash_of_file(files[i], 0, drop, 1);
			hash_of_file(files[i], 65536 + 13, drop, 1);
#endif
		}
		/* the cache an open writes keeps it */
		char *cache = xasprintf("%s.hwi", files[i]), cmd[2048];
		int st;
		unlink(cache);
		snprintf(cmd, sizeof cmd, "'%s' -q info '%s' >/dev/null 2>&1", heapwalk(), files[i]);
		free(run(cmd, &st));
		ck_assert_int_eq(st, 0);
		size_t clen;
		char *c = file_bytes(cache, &clen), *d = file_bytes(files[i], &n);
		struct cache_header hd;
		ck_assert_msg(c != NULL && clen >= sizeof hd, "%s: no cache", files[i]);
		memcpy(&hd, c, sizeof hd);
		ck_assert_msg(hd.content == store_hash(d, n, 0), "%s: the cache's content hash", files[i]);
		free(c);
		free(d);
		unlink(cache);
		free(cache);
	}
	unlink(wide);
	unlink(odd);
	unlink(cut);
}
END_TEST

/* The memory a view needs counts the reader's arrays that wait on disk
 * as well as the heap's parts: a budget (HEAPWALK_MEMORY_MB) that the
 * parts fit in but not with the arrays refuses, in the browser's way
 * (heap_try_need) and the command line's (heap_need: one line, exit 3,
 * 'graph' reads the labels); one with room for both loads them. Cached
 * and with --no-cache (the arrays then wait in the scratch file). */
START_TEST(test_room_counts_reader)
{
	const char *path = TEST_BUILDDIR "/tmp/room.heapsnapshot";
	char *cache = xasprintf("%s.hwi", path), cmd[2048];
	int st;

	write_wide_n(path, 300000);
	unlink(cache);
	snprintf(cmd, sizeof cmd, "'%s' -q info '%s' >/dev/null 2>&1", heapwalk(), path);
	free(run(cmd, &st)); /* the cache written */
	ck_assert_int_eq(st, 0);
	for (int cached = 1; cached >= 0; cached--) {
		struct open_opts o = { .quiet = 1, .no_cache = !cached };
		struct heap h;
		struct sbuf err;
		sbuf_init(&err);
		ck_assert_msg(heap_open(&h, path, &o, NULL, &err) == 0, "%s", err.buf);
		ck_assert_int_eq(h.from_cache, cached);
		unsigned parts = HP_ALL | h.fmt->needs;
		uint64_t part = h.backing != NULL && !cache_has(&h, parts) ? cache_part_bytes(&h, parts) : 0;
		uint64_t reader = h.fmt->data_waiting(&h);
		ck_assert_msg(reader > (4u << 20), "the arrays that wait: %llu bytes", (unsigned long long)reader);
		uint64_t tight = (part + reader / 2) >> 20, roomy = ((part + reader) >> 20) + 2;
		char mb[32];
		snprintf(mb, sizeof mb, "%llu", (unsigned long long)tight);
		setenv("HEAPWALK_MEMORY_MB", mb, 1);
		ck_assert_int_eq(heap_try_need(&h, HP_ALL, NULL, &err), -1);
		/* the bytes said are the reader's arrays' too, and it says so */
		ck_assert_msg(strstr(err.buf, "loading the object graph and the format's own arrays needs") &&
			      strstr(err.buf, "is available"), "%s", err.buf);
		ck_assert_uint_eq(h.fmt->data_waiting(&h), reader); /* nothing read */
		snprintf(cmd, sizeof cmd, "HEAPWALK_MEMORY_MB=%s '%s' -q %s graph -d 1 -n 3 '%s' 2>&1 >/dev/null", mb,
			 heapwalk(), cached ? "" : "--no-cache", path);
		char *out = run(cmd, &st);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 3 && strstr(out, "is available"), "%d: %s", st, out);
		free(out);
		snprintf(mb, sizeof mb, "%llu", (unsigned long long)roomy);
		setenv("HEAPWALK_MEMORY_MB", mb, 1);
		sbuf_reset(&err);
		ck_assert_msg(heap_try_need(&h, HP_ALL, NULL, &err) == 0, "%s", err.buf);
		ck_assert_uint_eq(h.fmt->data_waiting(&h), 0);
		unsetenv("HEAPWALK_MEMORY_MB");
		heap_free(&h);
		sbuf_free(&err);
	}
	unlink(cache);
	unlink(path);
	free(cache);
}
END_TEST

/* A check's growth rule on a site that only the later snapshot's
 * stacks have (the workload's AddedHolder, made between the two):
 * none there before, as for a class new since, not an error. The
 * workload made 200, each at that line (workload.json says so). */
START_TEST(test_growth_new_site)
{
	if (!node_dumps())
		return;
	size_t n;
	char *json = file_bytes(V8DUMPS "/tracked/workload.json", &n);
	ck_assert_msg(strstr(json, "\"AddedHolder\":0") && strstr(json, "\"AddedHolder\":200"), "%s", json);
	free(json);
	/* the frame as b's hot spots name it (the script's path is the one
	 * node was given when the snapshots were made) */
	char cmd[2048];
	int st;
	snprintf(cmd, sizeof cmd, "'%s' -q -f csv allocations -n 0 " V8DUMPS "/tracked/b.heapsnapshot", heapwalk());
	char *csv = run(cmd, &st), *fr = strstr(csv, ",\"AddedHolder (");
	ck_assert_msg(st == 0 && fr != NULL, "%.300s", csv);
	fr += 2;
	fr[strcspn(fr, "\"")] = '\0';
	const char *rules = TEST_BUILDDIR "/tmp/site.rules";
	FILE *f = fopen(rules, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "growth site %s : count >= 200\n", fr);
	ck_assert_int_eq(fclose(f), 0);
	free(csv);
	snprintf(cmd, sizeof cmd, "'%s' -q -b " V8DUMPS "/tracked/a.heapsnapshot --rules %s check " V8DUMPS
		 "/tracked/b.heapsnapshot 2>&1", heapwalk(), rules);
	char *out = run(cmd, &st);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0 && strstr(out, "  pass  "), "%d: %.600s", st, out);
	free(out);
	unlink(rules);
}
END_TEST

Suite *v8_suite(void)
{
	Suite *s = suite_create("v8");
	TCase *tc = tcase_create("reader");

	tcase_set_timeout(tc, FIXTURE_TIMEOUT);
	tcase_add_test(tc, test_string_escapes);
	tcase_add_test(tc, test_string_bad);
	tcase_add_test(tc, test_probe);
	tcase_add_test(tc, test_hand_any_order);
	tcase_add_test(tc, test_hand_field_order);
	tcase_add_test(tc, test_locations_skipped);
	tcase_add_test(tc, test_damage_said_first);
	tcase_add_test(tc, test_cut_before_strings);
	tcase_add_test(tc, test_hand_checks);
	tcase_add_test(tc, test_nothing_usable);
	tcase_add_test(tc, test_deep_nesting);
	tcase_add_test(tc, test_hostile_counts);
	tcase_add_test(tc, test_stream_side_labels);
	tcase_add_test(tc, test_edges_room);
	tcase_add_test(tc, test_scratch_full);
	tcase_add_test(tc, test_lazy_from_cache);
	tcase_add_test(tc, test_cons_strings_without_parts);
	tcase_add_test(tc, test_long_class_names);
	tcase_add_test(tc, test_cons_strings_cut);
	tcase_add_test(tc, test_empty_names);
	tcase_add_test(tc, test_root_by_id);
	tcase_add_test(tc, test_detached_propagated);
	tcase_add_test(tc, test_node_reference_a);
	tcase_add_test(tc, test_node_reference_b);
	tcase_add_test(tc, test_node_reference_tracked);
	tcase_add_test(tc, test_node_structures);
	tcase_add_test(tc, test_node_labels_after_ignore);
	tcase_add_test(tc, test_node_chains);
	tcase_add_test(tc, test_node_identity_truth);
	tcase_add_test(tc, test_node_identity_every_class);
	tcase_add_test(tc, test_node_identity_invariant);
	tcase_add_test(tc, test_node_ids_renumbered);
	tcase_add_test(tc, test_renumbered_bound);
	tcase_add_test(tc, test_truncated_everywhere);
	tcase_add_test(tc, test_corrupt_bytes);
	tcase_add_test(tc, test_fast_bounds);
	tcase_add_test(tc, test_fast_blocks);
	tcase_add_loop_test(tc, test_fast_batches, 0, 12);
	tcase_add_test(tc, test_window_same);
	tcase_add_test(tc, test_window_gzip_stored);
	tcase_add_test(tc, test_content_hash);
	tcase_add_test(tc, test_edges_where_they_stand);
	tcase_add_test(tc, test_strings_first);
	tcase_add_test(tc, test_room_counts_reader);
	tcase_add_test(tc, test_growth_new_site);
	tcase_add_test(tc, test_fast_records);
	suite_add_tcase(s, tc);
	return s;
}
