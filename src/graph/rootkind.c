/* rootkind.c — the table of GC root kinds: names and meanings. */
#include "graph/rootkind.h"

static const struct {
	const char *name, *meaning;
} kinds[RK_NKINDS] = {
	[RK_STATICS] = { "statics", "a class kept loaded with its static variables, or a global variable" },
	[RK_THREAD] = { "thread", "a thread object, kept while its thread runs" },
	[RK_STACK] = { "stack", "a local variable in a thread's stack frame, managed or native" },
	[RK_GLOBAL_HANDLE] = { "global handle", "a strong handle kept until released (JNI global, GC handle)" },
	[RK_LOCAL_HANDLE] = { "local handle", "a handle local to a native call or a thread's handle scope" },
	[RK_MONITOR] = { "busy monitor", "an object whose lock a thread holds" },
	[RK_INTERNED] = { "interned string", "a string in the runtime's table of interned strings" },
	[RK_FINALIZER] = { "finalizer queue", "an object awaiting its finalizer or the runtime's reference processing" },
	[RK_DEBUGGER] = { "debugger", "an object a debugger or profiler holds" },
	[RK_VM_INTERNAL] = { "VM internal", "held by the runtime's own data (its JIT, loader, GC or engine roots)" },
	[RK_NATIVE] = { "native", "held by native code outside the runtime: the embedder, an external root" },
	[RK_OTHER] = { "other", "a root the runtime names that is none of the kinds above" },
	[RK_UNKNOWN] = { "unknown", "a root whose reason the dump does not tell" },
	[RK_WEAK_ONLY] = { "weakly reachable", "no GC root reaches it, a weak reference does (the engine's)" },
	[RK_UNREACHABLE] = { "unreachable", "nothing reaches it, not even weakly (the engine's)" },
};

const char *root_kind_name(unsigned kind)
{
	return kind < RK_NKINDS ? kinds[kind].name : "?";
}

const char *root_kind_meaning(unsigned kind)
{
	return kind < RK_NKINDS ? kinds[kind].meaning : "";
}
