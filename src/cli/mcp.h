/* mcp.h — heapwalk mcp: the engine as tools for coding agents, a Model
 * Context Protocol server over standard input and output (JSON-RPC 2.0,
 * a message a line). Dumps stay open between calls, each by a handle;
 * the answers are the command line's JSON, paged and bounded. Only
 * files under the directories it was given are opened or written. */
#ifndef HW_MCP_H
#define HW_MCP_H

#include <stddef.h>

#include "engine/open.h"
#include "util.h"

#define MCP_LINE_MAX (4u << 20)    /* one message from the client */
#define MCP_ANSWER_MAX (1u << 20)  /* one tool's answer, its text */
#define MCP_ERROR_MAX 4096         /* an error's text, cut past it */
#define MCP_DUMPS_MAX 16           /* dumps open at once */
#define MCP_OPEN_NOTES 20          /* an open's notes said with its answer, at most */
#define MCP_LIMIT_DEFAULT 50       /* rows of an answer unless the call says */
#define MCP_LIMIT_MAX 1000
#define MCP_PATH_ENDS 100          /* paths: each path's first and last steps */

struct mcp;

/* A server: dirs the directories whose files it may open (made
 * absolute, links resolved; none: the working directory), oo how it
 * opens dumps (borrowed). NULL with err when a directory is none. */
struct mcp *mcp_new(const char *const *dirs, size_t ndirs, const struct open_opts *oo, struct sbuf *err);
/* One message (a line, without its newline): the answer appended to
 * out, a line with its newline, or nothing for a notification. */
void mcp_message(struct mcp *m, const char *line, size_t n, struct sbuf *out);
/* The answer to a line over MCP_LINE_MAX, appended to out. */
void mcp_too_long(struct sbuf *out);
/* Every dump closed, the server freed. */
void mcp_free(struct mcp *m);

/* The server on fds in and out until in ends or out is gone: 0, or 2
 * with a line on stderr. */
int mcp_serve(struct mcp *m, int in, int out);

#endif
