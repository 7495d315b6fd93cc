/* clr.c — the .NET runtime's table (struct runtime_ops): the handles
 * the .NET readers keep beside the graph (struct clr_data). */
#include "runtime/clr.h"

static void clr_handles(const struct heap *h, handle_fn fn, void *arg)
{
	const struct clr_data *cd = h->fmt_data;

	for (size_t i = 0; cd != NULL && i < cd->nweak; i++)
		fn(arg, cd->weak[i], HK_WEAK);
	for (size_t i = 0; cd != NULL && i < cd->ndep; i++)
		fn(arg, cd->dep_value[i], HK_DEPENDENT);
}

const struct runtime_ops clr_runtime = {
	.name = "clr",
	.handles = clr_handles,
};
