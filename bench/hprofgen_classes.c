/* hprofgen_classes.c — the classes of hprofgen's heap, as OpenJDK 17
 * declares them (the JDK's own with their fields as a jcmd dump of it
 * shows them), and their statics. */
#include "hprofgen.h"

/* Instance sizes: those of java.* and jdk.* as `jcmd GC.class_histogram`
 * reports them on OpenJDK 17 (compressed oops, 64-bit); the application's
 * measured the same way on classes declared as the comments say. */
const struct gclass classes[NCLS] = {
	[K_OBJECT] = { "java/lang/Object", -1, 0, "", 16, 0 },
	/* size: where a mirror's statics begin (a mirror without statics
	 * is 112 bytes in a jcmd dump's address gaps) */
	[K_CLASS] = { "java/lang/Class", K_OBJECT, 0,
		"classValueMap:L annotationType:L annotationData:L enumConstantDirectory:L enumConstants:L "
		"genericInfo:L classRedefinedCount:I reflectionData:L componentType:L packageName:L "
		"classData:L classLoader:L module:L name:L cachedConstructor:L", 112, 0 },
	[K_STRING] = { "java/lang/String", K_OBJECT, 0, "hashIsZero:Z hash:I coder:B value:L", 24, 0 },
	[K_NUMBER] = { "java/lang/Number", K_OBJECT, 0, "", 0, 0 },
	[K_LONG] = { "java/lang/Long", K_NUMBER, 0, "value:J", 24, 0 },
	[K_INTEGER] = { "java/lang/Integer", K_NUMBER, 0, "value:I", 16, 0 },
	[K_ABSMAP] = { "java/util/AbstractMap", K_OBJECT, 0, "values:L keySet:L", 0, 0 },
	[K_HASHMAP] = { "java/util/HashMap", K_ABSMAP, 0,
		"loadFactor:F threshold:I modCount:I size:I entrySet:L table:L", 48, 0 },
	[K_NODE] = { "java/util/HashMap$Node", K_OBJECT, 0, "next:L value:L key:L hash:I", 32, 0 },
	[K_ABSCOLL] = { "java/util/AbstractCollection", K_OBJECT, 0, "", 0, 0 },
	[K_ABSLIST] = { "java/util/AbstractList", K_ABSCOLL, 0, "modCount:I", 0, 0 },
	[K_ARRAYLIST] = { "java/util/ArrayList", K_ABSLIST, 0, "size:I elementData:L", 24, 0 },
	[K_LOADER] = { "java/lang/ClassLoader", K_OBJECT, 0,
		"classLoaderValueMap:L classAssertionStatus:L packageAssertionStatus:L "
		"defaultAssertionStatus:Z assertionLock:L libraries:L packages:L defaultDomain:L "
		"classes:L package2certs:L parallelLockMap:L nameAndId:L unnamedModule:L name:L parent:L",
		0, 0 },
	[K_SECURE] = { "java/security/SecureClassLoader", K_LOADER, 0, "pdcache:L", 0, 0 },
	[K_BUILTIN] = { "jdk/internal/loader/BuiltinClassLoader", K_SECURE, 0,
		"resourceCache:L moduleToReader:L nameToModule:L ucp:L parent:L", 0, 0 },
	[K_APPLOADER] = { "jdk/internal/loader/ClassLoaders$AppClassLoader", K_BUILTIN, 0, "", 104, 0 },
	[K_PLATFORMLOADER] = { "jdk/internal/loader/ClassLoaders$PlatformClassLoader", K_BUILTIN, 0, "", 104, 0 },
	/* 368: @Contended padding around the thread-local random fields */
	[K_THREAD] = { "java/lang/Thread", K_OBJECT, 0,
		"threadLocalRandomSecondarySeed:I threadLocalRandomProbe:I threadLocalRandomSeed:J "
		"uncaughtExceptionHandler:L blockerLock:L blocker:L parkBlocker:L threadStatus:I tid:J "
		"stackSize:J inheritableThreadLocals:L threadLocals:L inheritedAccessControlContext:L "
		"contextClassLoader:L group:L target:L eetop:J stillborn:Z interrupted:Z daemon:Z "
		"priority:I name:L", 368, 0 },
	[K_BYTES] = { "[B", K_OBJECT, 0, "", 0, T_BYTE },
	[K_INTS] = { "[I", K_OBJECT, 0, "", 0, T_INT },
	[K_LONGS] = { "[J", K_OBJECT, 0, "", 0, T_LONG },
	[K_BOOLS] = { "[Z", K_OBJECT, 0, "", 0, T_BOOL },
	[K_CHARS] = { "[C", K_OBJECT, 0, "", 0, T_CHAR },
	[K_SHORTS] = { "[S", K_OBJECT, 0, "", 0, T_SHORT },
	[K_FLOATS] = { "[F", K_OBJECT, 0, "", 0, T_FLOAT },
	[K_DOUBLES] = { "[D", K_OBJECT, 0, "", 0, T_DOUBLE },
	[K_OBJECTS] = { "[Ljava/lang/Object;", K_OBJECT, 0, "", 0, T_OBJ },
	[K_NODES] = { "[Ljava/util/HashMap$Node;", K_OBJECT, 0, "", 0, T_OBJ },
	[K_APP] = { "com/example/synth/App", K_OBJECT, 1, "", 0, 0 },
	/* class ChainNode { ChainNode next; int value; } */
	[K_CHAIN] = { "com/example/synth/ChainNode", K_OBJECT, 1, "value:I next:L", 24, 0 },
	/* class Holder { int id; ChainNode chain; HashMap map; Object shared; } */
	[K_HOLDER] = { "com/example/synth/Holder", K_OBJECT, 1, "shared:L map:L chain:L id:I", 32, 0 },
	/* class Registry { String name; ArrayList entries; long created; } */
	[K_REGISTRY] = { "com/example/synth/Registry", K_OBJECT, 1, "created:J entries:L name:L", 32, 0 },
	/* class PluginLoader extends ClassLoader { String plugin; } */
	[K_PLUGIN] = { "com/example/synth/PluginLoader", K_LOADER, 1, "plugin:L", 88, 0 },
};

/* Statics: only long, int and reference ones, which a mirror packs
 * without padding after its 112 bytes (so its size is known here). */
const struct gstatic statics[] = {
	{ K_STRING, "serialVersionUID", 'J', -1, 0xa0f0a4387a3bb342ULL },
	{ K_STRING, "CASE_INSENSITIVE_ORDER", 'L', -1, 0 },
	{ K_LONG, "serialVersionUID", 'J', -1, 0x3b8be490cc8f23dfULL },
	{ K_LONG, "MIN_VALUE", 'J', -1, 0x8000000000000000ULL },
	{ K_LONG, "MAX_VALUE", 'J', -1, 0x7fffffffffffffffULL },
	{ K_INTEGER, "MIN_VALUE", 'I', -1, 0x80000000 },
	{ K_INTEGER, "MAX_VALUE", 'I', -1, 0x7fffffff },
	{ K_HASHMAP, "DEFAULT_INITIAL_CAPACITY", 'I', -1, 16 },
	{ K_HASHMAP, "MAXIMUM_CAPACITY", 'I', -1, 0x40000000 },
	{ K_HASHMAP, "TREEIFY_THRESHOLD", 'I', -1, 8 },
	{ K_HASHMAP, "serialVersionUID", 'J', -1, 0x0507dac1c31660d1ULL },
	{ K_ARRAYLIST, "DEFAULTCAPACITY_EMPTY_ELEMENTDATA", 'L', B_EMPTY, 0 },
	{ K_ARRAYLIST, "DEFAULT_CAPACITY", 'I', -1, 10 },
	{ K_ARRAYLIST, "serialVersionUID", 'J', -1, 0x7881d21d99c7619dULL },
	{ K_LOADER, "scl", 'L', B_APPLOADER, 0 },
	{ K_THREAD, "threadSeqNumber", 'J', -1, NTHREADS },
	{ K_THREAD, "MIN_PRIORITY", 'I', -1, 1 },
	{ K_THREAD, "NORM_PRIORITY", 'I', -1, 5 },
	{ K_THREAD, "MAX_PRIORITY", 'I', -1, 10 },
	{ K_APP, "NAME", 'L', B_NAME, 0 },
	{ K_APP, "COUNTERS", 'L', B_COUNTERS, 0 },
	{ K_APP, "SIZES", 'L', B_SIZES, 0 },
	{ K_APP, "FLAGS", 'L', B_FLAGS, 0 },
	{ K_APP, "SYMBOLS", 'L', B_SYMBOLS, 0 },
	{ K_APP, "PORTS", 'L', B_PORTS, 0 },
	{ K_APP, "RATIOS", 'L', B_RATIOS, 0 },
	{ K_APP, "WEIGHTS", 'L', B_WEIGHTS, 0 },
	{ K_APP, "PLUGINS", 'L', B_PLUGINS, 0 },
	{ K_APP, "started", 'J', -1, 1767225600000ULL },
};
const unsigned nstatics = sizeof statics / sizeof statics[0];

/* The threads and their stacks, top frame first; a frame's local is a
 * Java frame root. */
const struct gthread threads[NTHREADS] = {
	{ "main", 0, 5 },
	{ "Reference Handler", 1, 10 },
	{ "Finalizer", 1, 8 },
	{ "Signal Dispatcher", 1, 9 },
	{ "worker-1", 0, 5 },
	{ "worker-2", 0, 5 },
};

const struct gframe frames[] = {
	{ 0, K_THREAD, "sleep", "(J)V", "Thread.java", -3, LOCAL_NONE },
	{ 0, K_APP, "serve", "()V", "App.java", 57, LOCAL_NAME },
	{ 0, K_APP, "main", "([Ljava/lang/String;)V", "App.java", 31, LOCAL_REGISTRY },
	{ 1, K_OBJECT, "wait", "(J)V", "Object.java", -3, LOCAL_NONE },
	{ 1, K_THREAD, "run", "()V", "Thread.java", 833, LOCAL_NONE },
	{ 2, K_OBJECT, "wait", "(J)V", "Object.java", -3, LOCAL_NONE },
	{ 2, K_THREAD, "run", "()V", "Thread.java", 833, LOCAL_NONE },
	{ 4, K_OBJECT, "wait", "(J)V", "Object.java", -3, LOCAL_NONE },
	{ 4, K_APP, "work", "(I)V", "App.java", 88, LOCAL_RECENT },
	{ 4, K_THREAD, "run", "()V", "Thread.java", 833, LOCAL_NONE },
	{ 5, K_OBJECT, "wait", "(J)V", "Object.java", -3, LOCAL_NONE },
	{ 5, K_APP, "work", "(I)V", "App.java", 88, LOCAL_RECENT },
	{ 5, K_THREAD, "run", "()V", "Thread.java", 833, LOCAL_NONE },
};
const unsigned nframes = sizeof frames / sizeof frames[0];
