/* nettrace.h — EventPipe's nettrace stream, as the .NET runtime writes it
 * (the "Nettrace" magic, FastSerialization objects: a Trace object, then
 * metadata, event, stack and sequence-point blocks; format V4, V5 the
 * same with optional metadata tags), read into events.
 *
 * The runtime's own events carry no field list in their metadata: an
 * event is known by its provider, id and version, and its payload's
 * layout is the manifest's (the caller's). The file is untrusted:
 * nothing past map[size - 1] is read; a block or event that does not
 * fit ends the reading there, with a warning "PATH: offset N: what". */
#ifndef HW_NETTRACE_H
#define HW_NETTRACE_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* The provider whose events a heap dump is made of. */
#define NT_RUNTIME_PROVIDER "Microsoft-Windows-DotNETRuntime"
/* The one whose events name what is loaded when a session ends (with
 * rundown asked for): the modules' files among them. */
#define NT_RUNDOWN_PROVIDER "Microsoft-Windows-DotNETRuntimeRundown"

struct nt_trace {
	uint32_t pointer_size; /* 4 or 8: the size of every Pointer field */
	uint32_t pid;
	uint64_t sync_qpc, qpc_freq;
	uint16_t year, month, day, hour, minute, second, millisecond; /* UTC, at the start */
	/* damage or a cut that ended the reading before the end mark: where
	 * and what (the warning's words, unescaped); "" if none */
	uint64_t stop_at;
	char stop_why[200];
	/* events skipped for naming no metadata (damaged or missing): how
	 * many, the first's offset */
	uint64_t undefined, undefined_at;
};

struct nt_event {
	int runtime;           /* from NT_RUNTIME_PROVIDER */
	int rundown;           /* from NT_RUNDOWN_PROVIDER */
	uint32_t id, version;  /* as the metadata says */
	uint64_t timestamp;    /* QPC ticks */
	uint64_t thread;
	const uint8_t *payload;
	uint32_t len;
	uint64_t at;           /* file offset of the payload */
	/* the session's count of the events of the thread that wrote it
	 * (capture_thread): one more for each event that thread wrote, a
	 * gap for each one the session dropped (its buffer full) */
	uint32_t seq;
	uint64_t capture_thread;
};

/* Called for each event in file order; nonzero stops the reading. */
typedef int (*nt_event_fn)(void *arg, const struct nt_event *e);

/* Is head[0..n) the start of a nettrace stream? */
int nt_probe(const uint8_t *head, size_t n);

/* Read the stream in map[0..size): the Trace object into *t, every
 * event through fn. 0, possibly with warnings in w (damage or
 * truncation: what came before it was read); -1 with one line
 * "PATH: offset N: what" in err when not even the Trace object is
 * there, or when fn stopped it. */
int nt_read(const char *path, const uint8_t *map, uint64_t size, struct nt_trace *t, nt_event_fn fn,
	    void *arg, struct warnings *w, struct sbuf *err);

#endif
