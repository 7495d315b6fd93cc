/* objset.c — object sets, see objset.h. */
#include "query/objset.h"

#include <stdlib.h>
#include <string.h>

void objset_empty(const struct heap *h, struct objset *s)
{
	s->bits = xcalloc(bits_words(h->n), sizeof *s->bits);
	s->count = s->shallow = 0;
}

void objset_whole(const struct heap *h, struct objset *s)
{
	s->bits = NULL;
	s->count = h->n - 1;
	s->shallow = h->total_shallow;
}

void objset_all(const struct heap *h, struct objset *s)
{
	size_t nw = bits_words(h->n);

	s->bits = xmalloc(nw * sizeof *s->bits);
	memset(s->bits, 0xff, nw * sizeof *s->bits);
	if (h->n % 64 != 0) /* no members past the end */
		s->bits[nw - 1] = ((uint64_t)1 << (h->n % 64)) - 1;
	bit_clr(s->bits, 0);
	s->count = h->n - 1;
	s->shallow = h->total_shallow;
}

void objset_materialize(const struct heap *h, struct objset *s)
{
	if (s->bits == NULL)
		objset_all(h, s);
}

void objset_recount(const struct heap *h, struct objset *s)
{
	s->count = s->shallow = 0;
	bit_clr(s->bits, 0);
	for (size_t w = 0; w < bits_words(h->n); w++) {
		for (uint64_t b = s->bits[w]; b != 0; b &= b - 1) {
			node_t v = (node_t)(w * 64 + (size_t)__builtin_ctzll(b));
			s->count++;
			s->shallow += h->node_shallow[v];
		}
	}
}

void objset_free(struct objset *s)
{
	free(s->bits);
	s->bits = NULL;
	s->count = s->shallow = 0;
}

node_t *objset_members(const struct heap *h, const struct objset *s)
{
	node_t *m = xmalloc((size_t)(s->count + 1) * sizeof *m);
	size_t k = 0;

	for (node_t v = 1; v < h->n && k < s->count; v++)
		if (objset_has(s, v))
			m[k++] = v;
	return m;
}
