/* rootkind.h — the one table of GC root kinds, every runtime's.
 *
 * A root record's kind is a row of this table; a reader maps each kind
 * of root its format has (its "native" kinds: HPROF's sub-record tags,
 * .NET's root flags, Mono's root sources, V8's root edges) to one row,
 * and keeps its own name for it (struct format_ops' root_natives) as
 * the record's detail when that says more. The kinds are in the order
 * they are shown; the two pseudo kinds, the engine's own, come last
 * (real roots are those below RK_WEAK_ONLY). */
#ifndef HW_ROOTKIND_H
#define HW_ROOTKIND_H

enum root_kind {
	RK_STATICS,       /* a class kept loaded with its statics, a static or global variable */
	RK_THREAD,        /* a thread object, alive while its thread runs */
	RK_STACK,         /* a local in a thread's stack frame (managed or native) */
	RK_GLOBAL_HANDLE, /* a strong handle held until released (JNI global, GC handle) */
	RK_LOCAL_HANDLE,  /* a handle local to a native call or a thread's handle scope */
	RK_MONITOR,       /* an object whose monitor (lock) is held */
	RK_INTERNED,      /* an interned string */
	RK_FINALIZER,     /* awaiting its finalizer or the runtime's reference processing */
	RK_DEBUGGER,      /* held by a debugger or profiler */
	RK_VM_INTERNAL,   /* held by the runtime's own data (JIT, loader, GC, engine roots) */
	RK_NATIVE,        /* held by native code: the embedder, an external root */
	RK_OTHER,         /* a root the runtime names but that is none of the above */
	RK_UNKNOWN,       /* a root whose reason the dump does not tell */
	RK_WEAK_ONLY,     /* pseudo: reachable only through a weak referent */
	RK_UNREACHABLE,   /* pseudo: not reachable from any GC root */
	RK_NKINDS
};

/* A kind's name as shown ("stack"), "?" past the table. */
const char *root_kind_name(unsigned kind);
/* Its meaning in one line, "" past the table. */
const char *root_kind_meaning(unsigned kind);

#endif
