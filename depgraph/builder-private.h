/* builder-private.h - what the builder's parts share inside depgraph/: the
 * one-sided part (rma.c) adds ranges, keys and requests to the event
 * builder.c is building.  Not for use outside depgraph/. */
#ifndef COMMHINT_BUILDER_PRIVATE_H
#define COMMHINT_BUILDER_PRIVATE_H

#include "depgraph.h"

/* Adds a range (ignored if addr or len is 0) / a key to the event being
 * built.  0 or TRACE_ERR_NOMEM. */
int dg_builder_add_range(struct dg_builder *b, uint64_t addr, uint64_t len, bool write);
int dg_builder_add_key(struct dg_builder *b, uint32_t cls, uint64_t comm, int32_t peer);

/* Starts request `id` with no buffer of its own: what it holds until its
 * completion are the trace event's held argument ranges; adds its REQ key. */
int dg_builder_request_start(struct dg_builder *b, uint64_t id, const struct trace_event *tev);

/* The builder's window table (rma.c), created on first use. */
struct dg_rma;
struct dg_rma **dg_builder_rma(struct dg_builder *b);

/* One-sided calls (ids CHT_MPI_WIN_CREATE .. CHT_MPI_WIN_SYNC): role, ranges
 * and keys of e (docs/dependence.md, "One-sided communication"). */
int dg_rma_convert(struct dg_builder *b, const struct trace_event *tev, struct dg_event *e);

/* Every MPI event while windows are open: reads and writes the memory of
 * every open window and carries each window's key. */
int dg_rma_open_windows(struct dg_builder *b);

void dg_rma_destroy(struct dg_rma *w);

#endif /* COMMHINT_BUILDER_PRIVATE_H */
