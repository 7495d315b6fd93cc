/* pattern.h — reading the arguments steps, views and inspections share:
 * class patterns (a name or a regex) and object ids. Below step.c and
 * the views, which both use it. */
#ifndef HW_PATTERN_H
#define HW_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#include "graph/heap.h"
#include "util.h"

/* Class matcher of the steps and the views: a newly allocated array of
 * ncls flags, 1 for the classes named `pattern` exactly (an array class
 * also as Java writes it: "int[]") or matching it (regex); NULL with
 * "regex /P/: column N: what" in err. */
uint8_t *class_match(const struct heap *h, const char *pattern, int regex, struct sbuf *err);
/* Does pattern compile? 0, or -1 with the same message as class_match.
 * regex_error: 0, or -1 with the byte where compiling stopped in *at and
 * PCRE2's words for why appended to msg. */
int regex_check(const char *pattern, struct sbuf *err);
int regex_error(const char *pattern, size_t *at, struct sbuf *msg);

/* The object id in s: 0x... hex or decimal, with an @ before it or not
 * (DevTools writes a V8 object's id @301, heapwalk's labels @0x12d). 0,
 * or -1 if not a number. */
int parse_object_id(const char *s, uint64_t *id);
/* The object the id text[0..n) names, or HW_NONE with one line in err:
 * "no object with id TEXT in the dump", or, for the dump's own root
 * (heap's root_id: V8's (root), @1), that heapwalk shows it as
 * <GC roots> and it is no object. */
node_t object_by_id(const struct heap *h, const char *text, size_t n, struct sbuf *err);

#endif
