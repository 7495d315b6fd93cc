/* dumps.c — the synthetic dumps of the fuzzers, see dumps.h. */
#include "dumps.h"

#include <stdio.h>
#include <string.h>

void fz_sample(struct hw *w)
{
	struct hw_sample s;

	hw_sample(w, "JAVA PROFILE 1.0.2", 8, &s);
}

static void sample4(struct hw *w)
{
	struct hw_sample s;

	hw_sample(w, "JAVA PROFILE 1.0.1", 4, &s);
}

enum { R_ARR = 0x3001, R_S1 = 0x3011, R_S2 = 0x3013, R_B1 = 0x3015, R_B2 = 0x3017,
       R_WEAK = 0x3019, R_L1 = 0x301b, R_L2 = 0x301d, R_THR = 0x301f, R_LOCAL = 0x3021,
       R_EMPTY = 0x3023, RUN = 0x5001, VSIG = 0x5003, SRC = 0x5005, MAINCLS = 0x4001,
       FR1 = 0x7001, FR2 = 0x7003 };

/* FRAME and TRACE records for the thread of fz_rich: serial 9, trace 5. */
static void rich_frames(struct hw *w)
{
	const uint64_t frames[] = { FR1, FR2 };

	hw_utf8(w, RUN, "run");
	hw_utf8(w, VSIG, "()V");
	hw_utf8(w, SRC, "Main.java");
	hw_class_name(w, 8, MAINCLS, "app/Main");
	hw_frame(w, FR1, RUN, VSIG, SRC, 8, 12);
	hw_frame(w, FR2, RUN, VSIG, SRC, 8, -3);
	hw_trace(w, 5, 9, frames, 2);
	hw_trace(w, 1, 0, NULL, 0);
}

void fz_rich(struct hw *w)
{
	static const char text[] = "duplicate";
	const uint64_t elems[] = { R_S1, R_S2, 0, R_WEAK, R_L2, 0, 0, 0, 0, 0 };

	hw_begin(w, "JAVA PROFILE 1.0.2", 8);
	hw_jdk_names(w);
	rich_frames(w);
	hw_heap_begin(w);
	hw_jdk_classes(w);
	hw_root(w, 0x01, R_ARR, 0x77, 0);
	hw_root(w, 0x08, R_THR, 9, 5);
	hw_root(w, 0x03, R_LOCAL, 9, 1);
	hw_root(w, 0x02, R_L1, 9, 0);
	hw_root(w, 0x05, J_OBJECT, 0, 0);
	hw_objarray(w, R_ARR, J_OBJARR, elems, 10);
	hw_objarray(w, R_EMPTY, J_OBJARR, NULL, 0);
	hw_jdk_string(w, R_S1, R_B1);
	hw_jdk_string(w, R_S2, R_B2);
	hw_primarray(w, R_B1, T_BYTE, sizeof text - 1, text);
	hw_primarray(w, R_B2, T_BYTE, sizeof text - 1, text);
	hw_jdk_weakref(w, R_WEAK, R_S1);
	hw_jdk_loader(w, R_L1, 0);
	hw_jdk_loader(w, R_L2, R_L1);
	hw_instance(w, R_THR, J_OBJECT, NULL, 0);
	hw_instance(w, R_LOCAL, J_OBJECT, NULL, 0);
	hw_heap_end(w);
	hw_dump_end(w);
}

/* Arrays of every primitive type, empty and sparse ones, in a HEAP_DUMP
 * record (not a segment), ids of 4 bytes. */
static void arrays(struct hw *w)
{
	static const uint8_t types[] = { T_BOOLEAN, T_CHAR, T_FLOAT, T_DOUBLE, T_BYTE, T_SHORT,
					 T_INT, T_LONG };
	uint8_t data[64];

	memset(data, 0, sizeof data);
	data[3] = 7;
	hw_begin(w, "JAVA PROFILE 1.0.2", 4);
	hw_jdk_names(w);
	hw_rec_begin(w, 0x0c);
	hw_jdk_classes(w);
	for (unsigned i = 0; i < sizeof types; i++) {
		uint32_t id = 0x9001 + 16 * i;
		hw_root(w, 0x05, id, 0, 0);
		hw_primarray(w, id, types[i], 8, data);
		hw_primarray(w, id + 2, types[i], 0, NULL);
		hw_primarray_nodata(w, id + 4, types[i], 3);
	}
	hw_heap_info(w, 1, JF_VALUE);
	hw_rec_end(w);
	hw_dump_end(w);
}

/* The string heapwalk's agent writes into its dumps (hprof.c reads it). */
static void agent_text(struct hw *w, int phase)
{
	char text[200];

	snprintf(text, sizeof text, "heapwalk-agent/1 session=5eed0f pid=4242 watermark=%u marks=%d mark_ms=1500 "
		 "dump_ms=%d ref=4 header=12 array_header=16 align=8", phase == 1 ? 0 : 0x3fff, phase - 1,
		 1000 * phase);
	hw_utf8(w, 0x7101, text);
}

void fz_agent(struct hw *w, int phase)
{
	static const char text[] = "agent";
	const uint64_t elems[] = { R_S1, phase == 1 ? R_S2 : 0x4001 };

	hw_begin(w, "JAVA PROFILE 1.0.2", 8);
	agent_text(w, phase);
	hw_jdk_names(w);
	hw_heap_begin(w);
	hw_jdk_classes(w);
	hw_root(w, 0x05, R_ARR, 0, 0);
	hw_objarray(w, R_ARR, J_OBJARR, elems, 2);
	hw_jdk_string(w, R_S1, R_B1);
	hw_primarray(w, R_B1, T_BYTE, sizeof text - 1, text);
	if (phase == 1) { /* R_S2 is gone by phase 2, 0x4001 new since the mark */
		hw_jdk_string(w, R_S2, R_B2);
		hw_primarray(w, R_B2, T_BYTE, sizeof text - 1, text);
	} else {
		hw_jdk_string(w, 0x4001, 0x4003);
		hw_primarray(w, 0x4003, T_BYTE, sizeof text - 1, text);
	}
	hw_heap_end(w);
	hw_dump_end(w);
}

static void agent1(struct hw *w) { fz_agent(w, 1); }
static void agent2(struct hw *w) { fz_agent(w, 2); }

static const struct fz_shape shapes[] = {
	{ "sample.hprof", fz_sample },
	{ "sample4.hprof", sample4 },
	{ "rich.hprof", fz_rich },
	{ "arrays.hprof", arrays },
	{ "evil.hprof", hw_evil },
	{ "agent-1.hprof", agent1 },
	{ "agent-2.hprof", agent2 },
};

const struct fz_shape *fz_shapes(size_t *n)
{
	*n = sizeof shapes / sizeof shapes[0];
	return shapes;
}
