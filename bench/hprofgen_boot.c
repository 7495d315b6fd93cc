/* hprofgen_boot.c — what hprofgen's heap starts with (class loaders,
 * threads, the arrays of App's statics), the planted holders, and the
 * lists that gather the bulk up to the registry; see hprofgen.c. */
#include <stdio.h>
#include <stdlib.h>

#include "hprofgen.h"

/* Where the heap starts: 24 GB, so that a heap of up to 8 GB ends below
 * 32 GB as compressed oops need; a bigger one runs past it, as no JVM
 * would, which no reader can tell (the ids are just numbers to it). */
#define HEAP_BASE 0x600000000ULL

static const char PLATFORM_NAME[] = "platform", APP_NAME[] = "app";
static const char REGISTRY_NAME[] = "synthetic-registry";
static const char SHARED_TEXT[] = "shared by two holders";

/* App's statics: one array of each primitive type, as a JVM has */
static const struct { int boot, k; } boot_arrays[] = {
	{ B_COUNTERS, K_LONGS }, { B_SIZES, K_INTS }, { B_FLAGS, K_BOOLS }, { B_SYMBOLS, K_CHARS },
	{ B_PORTS, K_SHORTS }, { B_RATIOS, K_FLOATS }, { B_WEIGHTS, K_DOUBLES },
};
#define BOOT_ARRAY_LEN 16

/* chain length, map entries, refers to the shared String */
static const struct plant { uint32_t chain, entries; int shared; } plants[NPLANTS] = {
	{ 5000, 100, 1 }, { 300, 20, 1 }, { 20000, 0, 0 }, { 0, 500, 0 },
};

static uint32_t app_classes(void)
{
	uint32_t n = 0;

	for (int k = 0; k < NCLS; k++)
		n += classes[k].app;
	return n;
}

/* Mirrors, then the boot objects' addresses: the class dumps' statics
 * refer to them before they are written. */
void plan(struct gen *g)
{
	uint64_t a;

	g->addr = HEAP_BASE;
	for (int k = 0; k < NCLS; k++) {
		uint32_t s = classes[K_CLASS].size;
		for (unsigned i = 0; i < nstatics; i++)
			if (statics[i].cls == k)
				s += statics[i].type == 'J' ? 8 : 4;
		g->mirror_size[k] = (s + 7) & ~7u;
		g->mirror[k] = new_obj(g, K_CLASS, g->mirror_size[k]);
	}
	a = g->addr;
	g->boot[B_EMPTY] = a;
	a += arr_size(4, 0);
	g->boot[B_PLATFORM] = a;
	a += classes[K_PLATFORMLOADER].size + str_size(sizeof PLATFORM_NAME - 1);
	g->boot[B_APPLOADER] = a;
	a += classes[K_APPLOADER].size + str_size(sizeof APP_NAME - 1);
	g->boot[B_APP_CLASSES] = a;
	a += classes[K_ARRAYLIST].size + arr_size(4, list_cap(app_classes()));
	g->boot[B_PLUGINS] = a;
	a += arr_size(4, NPLUGINS);
	for (int i = 0; i < NPLUGINS; i++) {
		g->plugin[i] = a;
		a += classes[K_PLUGIN].size + str_size(8); /* "plugin-N" */
	}
	for (size_t i = 0; i < sizeof boot_arrays / sizeof boot_arrays[0]; i++) {
		g->boot[boot_arrays[i].boot] = a;
		a += arr_size(type_size(classes[boot_arrays[i].k].elem), BOOT_ARRAY_LEN);
	}
	g->boot[B_NAME] = a;
	a += str_size(sizeof REGISTRY_NAME - 1);
	for (int t = 0; t < NTHREADS; t++) {
		g->thread[t] = a;
		a += classes[K_THREAD].size + str_size((uint32_t)strlen(threads[t].name));
	}
	g->boot[B_SHARED] = a;
}

static void at(const struct gen *g, uint64_t want)
{
	if (g->addr != want)
		abort(); /* a bug: plan() and the writers disagree */
}

/* ClassLoader's own fields, in the dump's order */
static void loader_fields(struct out *o, uint64_t self, uint64_t list, uint64_t name, uint64_t parent)
{
	put8(o, 0); /* classLoaderValueMap */
	put8(o, 0); /* classAssertionStatus */
	put8(o, 0); /* packageAssertionStatus */
	put1(o, 0); /* defaultAssertionStatus */
	put8(o, self); /* assertionLock: the loader itself unless parallel capable */
	for (int i = 0; i < 3; i++) /* libraries, packages, defaultDomain */
		put8(o, 0);
	put8(o, list); /* classes */
	for (int i = 0; i < 4; i++) /* package2certs, parallelLockMap, nameAndId, unnamedModule */
		put8(o, 0);
	put8(o, name);
	put8(o, parent);
}

/* AppClassLoader or PlatformClassLoader, then its name */
static void builtin_loader(struct gen *g, int k, const char *name, uint64_t list, uint64_t parent)
{
	struct out *o = &g->o;
	uint64_t id = inst(g, k), name_id = id + classes[k].size;

	for (int i = 0; i < 4; i++) /* resourceCache, moduleToReader, nameToModule, ucp */
		put8(o, 0);
	put8(o, parent);
	put8(o, 0); /* SecureClassLoader.pdcache */
	loader_fields(o, id, list, name_id, parent);
	inst_end(g);
	string(g, name, (uint32_t)strlen(name), 1);
}

static void plugins(struct gen *g)
{
	at(g, g->boot[B_PLUGINS]);
	obj_array(g, K_OBJECTS, g->plugin, NPLUGINS, NPLUGINS);
	for (int i = 0; i < NPLUGINS; i++) {
		char name[20];
		snprintf(name, sizeof name, "plugin-%d", i + 1);
		at(g, g->plugin[i]);
		uint64_t id = inst(g, K_PLUGIN), name_id = id + classes[K_PLUGIN].size;
		put8(&g->o, name_id); /* plugin */
		loader_fields(&g->o, id, 0, name_id, g->boot[B_APPLOADER]);
		inst_end(g);
		string(g, name, 8, 1);
	}
}

static void thread(struct gen *g, int t)
{
	struct out *o = &g->o;
	uint64_t id = inst(g, K_THREAD);

	put4(o, 0); /* threadLocalRandomSecondarySeed */
	put4(o, 0); /* threadLocalRandomProbe */
	put8(o, 0); /* threadLocalRandomSeed */
	for (int i = 0; i < 4; i++) /* uncaughtExceptionHandler, blockerLock, blocker, parkBlocker */
		put8(o, 0);
	put4(o, 0x191); /* threadStatus: waiting */
	put8(o, (uint64_t)t + 1); /* tid */
	put8(o, 0); /* stackSize */
	for (int i = 0; i < 3; i++) /* inheritableThreadLocals, threadLocals, inheritedAccessControlContext */
		put8(o, 0);
	put8(o, g->boot[B_APPLOADER]); /* contextClassLoader */
	put8(o, 0); /* group */
	put8(o, 0); /* target */
	put8(o, 0x7f3a30000000ULL + 0x1000 * (uint64_t)t); /* eetop: the native thread */
	put1(o, 0); /* stillborn */
	put1(o, 0); /* interrupted */
	put1(o, (unsigned)threads[t].daemon);
	put4(o, (uint32_t)threads[t].priority);
	put8(o, id + classes[K_THREAD].size); /* name */
	inst_end(g);
	string(g, threads[t].name, (uint32_t)strlen(threads[t].name), 0);
}

void write_boot(struct gen *g)
{
	uint64_t app[NCLS];
	uint32_t napp = 0;

	for (int k = 0; k < NCLS; k++)
		if (classes[k].app)
			app[napp++] = g->mirror[k];
	at(g, g->boot[B_EMPTY]);
	obj_array(g, K_OBJECTS, NULL, 0, 0);
	at(g, g->boot[B_PLATFORM]);
	builtin_loader(g, K_PLATFORMLOADER, PLATFORM_NAME, 0, 0);
	at(g, g->boot[B_APPLOADER]);
	builtin_loader(g, K_APPLOADER, APP_NAME, g->boot[B_APP_CLASSES], g->boot[B_PLATFORM]);
	at(g, g->boot[B_APP_CLASSES]);
	array_list(g, napp, g->addr + classes[K_ARRAYLIST].size);
	obj_array(g, K_OBJECTS, app, napp, list_cap(napp));
	plugins(g);
	for (size_t i = 0; i < sizeof boot_arrays / sizeof boot_arrays[0]; i++) {
		at(g, g->boot[boot_arrays[i].boot]);
		prim_array(g, boot_arrays[i].k, BOOT_ARRAY_LEN, NULL);
	}
	at(g, g->boot[B_NAME]);
	string(g, REGISTRY_NAME, sizeof REGISTRY_NAME - 1, 1);
	for (int t = 0; t < NTHREADS; t++) {
		at(g, g->thread[t]);
		thread(g, t);
	}
	at(g, g->boot[B_SHARED]);
	uint64_t objs = g->objects, bytes = g->heap_bytes;
	string(g, SHARED_TEXT, sizeof SHARED_TEXT - 1, 1);
	g->shared_objs = g->objects - objs;
	g->shared_bytes = g->heap_bytes - bytes;
}

/* A holder, its chain, its map: nothing else refers into them. */
void write_planted(struct gen *g)
{
	for (int i = 0; i < NPLANTS; i++) {
		const struct plant *p = &plants[i];
		uint64_t objs = g->objects, bytes = g->heap_bytes;
		uint64_t id = inst(g, K_HOLDER), chain_at = id + classes[K_HOLDER].size;
		uint64_t map_at = chain_at + (uint64_t)p->chain * classes[K_CHAIN].size;
		put8(&g->o, p->shared ? g->boot[B_SHARED] : 0);
		put8(&g->o, map_at);
		put8(&g->o, p->chain ? chain_at : 0);
		put4(&g->o, (uint32_t)i);
		inst_end(g);
		if (chain(g, p->chain) != (p->chain ? chain_at : 0) || hash_map(g, p->entries, 1) != map_at)
			abort();
		g->holder[i] = id;
		g->holder_objs[i] = g->objects - objs;
		g->holder_bytes[i] = g->heap_bytes - bytes;
		g->holder_deep[i] = g->holder_bytes[i] + (p->shared ? g->shared_bytes : 0);
	}
}

/* ---- the registry: lists of GROUP units, lists of those, ... ---- */

static void group(struct gen *g, unsigned l)
{
	struct level *v = &g->lv[l];
	uint32_t n = v->n;
	uint64_t id = array_list(g, n, n ? g->addr + classes[K_ARRAYLIST].size : g->boot[B_EMPTY]);

	if (n)
		obj_array(g, K_OBJECTS, v->id, n, list_cap(n));
	v->n = 0;
	push(g, l + 1, id);
}

void push(struct gen *g, unsigned l, uint64_t id)
{
	if (l == MAX_LEVELS)
		abort();
	g->lv[l].id[g->lv[l].n++] = id;
	if (g->lv[l].n == GROUP)
		group(g, l);
}

/* Gather what is left into one list, the registry's entries. */
static uint64_t close_levels(struct gen *g)
{
	for (unsigned l = 0; l < MAX_LEVELS; l++) {
		int higher = 0;
		for (unsigned k = l + 1; k < MAX_LEVELS; k++)
			higher |= g->lv[k].n > 0;
		if (l > 0 && !higher && g->lv[l].n == 1)
			return g->lv[l].id[0];
		if (g->lv[l].n > 0 || (l == 0 && !higher))
			group(g, l);
	}
	abort();
}

void write_registry(struct gen *g)
{
	uint64_t entries = close_levels(g);

	g->registry = inst(g, K_REGISTRY);
	put8(&g->o, DUMP_TIME_MS - 3600000); /* created */
	put8(&g->o, entries);
	put8(&g->o, g->boot[B_NAME]);
	inst_end(g);
}

