/* clr.c — the .NET runtime's table (struct runtime_ops): the handles
 * the .NET readers keep beside the graph (struct clr_data). */
#include "runtime/clr.h"

#include <string.h>

static void clr_handles(const struct heap *h, handle_fn fn, void *arg)
{
	const struct clr_data *cd = h->fmt_data;

	for (size_t i = 0; cd != NULL && i < cd->nweak; i++)
		fn(arg, cd->weak[i], HK_WEAK);
	for (size_t i = 0; cd != NULL && i < cd->ndep; i++)
		fn(arg, cd->dep_value[i], HK_DEPENDENT);
}

/* An array type's name ends in its rank: "System.Int64[]", "Entry[K,V][]"
 * (a nested generic's arguments are no rank), "System.String[,]", which
 * dotnet-gcdump spells "System.String<,>". */
static int clr_array_class(const struct heap *h, uint32_t c)
{
	const char *n = class_name(h, c);
	size_t len = strlen(n);

	if (len < 3 || (n[len - 1] != ']' && n[len - 1] != '>'))
		return 0;
	char open = n[len - 1] == ']' ? '[' : '<';
	size_t i = len - 1;
	while (i > 0 && n[i - 1] == ',')
		i--;
	return i > 0 && n[i - 1] == open && (open == '[' || i < len - 1); /* "<>" is no rank */
}

const struct runtime_ops clr_runtime = {
	.name = "clr",
	.handles = clr_handles,
	.array_class = clr_array_class,
};

/* Mono runs the same type system, its arrays named the same way; its
 * log profiler's heapshots record no GC handle, so nothing more. */
const struct runtime_ops mono_runtime = {
	.name = "mono",
	.array_class = clr_array_class,
};
