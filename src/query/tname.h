/* tname.h — a type's name said shorter, for a narrow column: its
 * namespaces (packages) abbreviated, then dropped, then its generic
 * arguments cut, the outer type's simple name kept whole as long as
 * anything can be. Names are read as dotted words and brackets only,
 * no runtime's rules: "a.b.C", "a.b.C<d.E,f.G>", "a.b.C`2[d.E,f.G][]",
 * "C`1[[d.E, asm]]", "d.E[,]", "[[La.b.C;", "a.P+<>c", nested at any
 * depth. */
#ifndef HW_TNAME_H
#define HW_TNAME_H

#include <stddef.h>

#include "util.h"

/* The forms of a name, longest first, each shorter than the one before:
 * v[0] is the name as it is; then one namespace after another reduced
 * to its initial, left to right over the whole name (outer type first,
 * then its arguments: "System.Collections.Generic.List<Foo.Bar>" ->
 * "S.Collections.Generic.List<Foo.Bar>" -> ... -> "S.C.G.List<F.Bar>");
 * v[initials] is the form where every namespace is an initial. Then
 * the generic arguments' namespaces dropped ("S.C.G.List<Bar>"), then
 * the outer type's ("List<Bar>"); then the outer type's generic
 * arguments cut from the last ("Dictionary<Int32,…>", "Dictionary<…>").
 * A name of very many namespaces abbreviates several a form (at most
 * about a hundred forms). v and its strings are owned: tname_forms_free. */
struct tname_forms {
	char **v;
	size_t n, initials;
	size_t bare;          /* every namespace gone, the arguments whole */
	size_t gopen, gclose; /* its outer generic group's brackets, SIZE_MAX: none */
	int brackets;         /* the name has generic arguments or an array's [] */
};
void tname_forms(const char *name, size_t len, struct tname_forms *f);
void tname_forms_free(struct tname_forms *f);

/* Between the bare form and the arguments cut at commas: the bare form
 * with as much of its arguments as fits `avail` cells, cut with an
 * ellipsis ("Entry[VirtualDispatchHelpers+Virt…][]"), appended to out.
 * 0 (out as it was) when the name has no arguments or fewer than 3 cells
 * of them would show. */
int tname_squeeze(const struct tname_forms *f, int avail, struct sbuf *out);

/* The longest form that fits `avail` cells (the squeeze tried after the
 * bare form), appended to out; when none does, the shortest, cut with an ellipsis: a name with brackets keeps
 * the start of its outer simple name ("Dictiona…"), a plain one its end
 * ("…ree$JCIdent"). */
void tname_fit(const char *name, size_t len, int avail, struct sbuf *out);

/* The last resort of tname_fit: form (of a name with brackets or not)
 * cut to `avail` cells with an ellipsis. */
void tname_cut(const char *form, int brackets, int avail, struct sbuf *out);

#endif
