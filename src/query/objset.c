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
	objset_empty(h, s);
	for (node_t v = 1; v < h->n; v++)
		bit_set(s->bits, v);
	objset_recount(h, s);
}

void objset_recount(const struct heap *h, struct objset *s)
{
	s->count = s->shallow = 0;
	bit_clr(s->bits, 0); /* the virtual root is never a member */
	for (node_t v = 1; v < h->n; v++)
		if (bit_get(s->bits, v)) {
			s->count++;
			s->shallow += h->node_shallow[v];
		}
}

void objset_free(struct objset *s)
{
	free(s->bits);
	s->bits = NULL;
}
