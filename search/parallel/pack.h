/* pack.h - rank results as bytes, for `commhint hints --parallel`: what
 * search/parallel/pack.c (in the analysis library, no MPI) offers the MPI
 * driver (search/parallel/driver.c, its own library that only the command
 * line links) and the fuzzers.  Internal to search/.
 *
 * A bundle is a part of what one analysis process sends to process 0
 * (driver.c sends a process's results as a sequence of them): u32 magic
 * "CHPB", u16 version, u16 0, i32 status, u32 items; with a negative
 * status a message (u32 length, bytes) and no items; else each item is u32
 * kind, i32 rank, then for a result a u64 length and the packed result
 * (search_rank_result_pack), for a failure an i32 status and a message. */
#ifndef COMMHINT_SEARCH_PACK_H
#define COMMHINT_SEARCH_PACK_H

#include "search-private.h"

/* The ranks of a trace analysed by the P processes of an MPI job (mpiexec
 * -n P), each rank by one process, the results gathered on process 0.
 *
 * A result travels packed: little-endian; a header (u32 magic "CHRR", u16
 * version, u16 0, u64 total bytes), the scalar fields, then each array as
 * a u32 count and its items: each per-rank hint kind's part in the
 * registry's order (overlaps with their boxes, statements, leads and
 * windows; groups with their sites, checks with their members and
 * crossings; then any other kind's), the MPI log's rank, clocks and
 * records, the siteinfo site ids.  Site info
 * pointers do not travel: each site reference carries one byte, 1 if it was
 * resolved where it was packed.  Loop lines travel inside the boxes. */

/* Packs r into a malloc'ed buffer (*buf, *len; the caller frees).  Returns
 * 0 or TRACE_ERR_NOMEM. */
int search_rank_result_pack(const struct search_rank_result *r, void **buf, size_t *len);

/* Unpacks a buffer of exactly len bytes into a new result (freed with
 * search_rank_result_free).  Every count and length is checked against the
 * bytes left; TRACE_ERR_FORMAT (or _VERSION, _NOMEM) with err filled (err
 * may be NULL) if the buffer is not a whole packed result.  Site infos of
 * references resolved where the result was packed point to a placeholder
 * (empty file and function) until search_run_parallel resolves them again;
 * the others are NULL. */
int search_rank_result_unpack(const void *buf, size_t len, struct search_rank_result **out,
                              struct trace_err *err);


/* A growing byte buffer; nomem once an allocation failed (then nothing
 * more is written). */
struct pk_buf {
    uint8_t *p;
    size_t len, cap;
    bool nomem;
};

/* A bundle of status 0 with its item count still 0. */
void search_bundle_begin(struct pk_buf *b);
/* Appends the result of rank (or its failure: status and message);
 * without records, its MPI log travels as its header only (rank, clock
 * samples, host), no record: for a process 0 that asks the log's holder
 * (the cross-rank stage's jobs) instead of reading it. */
void search_bundle_add_result(struct pk_buf *b, int rank, const struct search_rank_result *r, bool records);
void search_bundle_add_failure(struct pk_buf *b, int rank, int status, const char *msg);
/* Writes the item count into the header. */
void search_bundle_set_items(struct pk_buf *b, uint32_t nitems);
/* Replaces b by a bundle saying the process failed (status < 0, msg).
 * Without memory for it, the status alone goes into a static buffer:
 * returns true then (b->p must not be freed). */
bool search_bundle_failed(struct pk_buf *b, int status, const char *msg);

/* What process 0 collects from the bundles. */
struct search_collected {
    struct search_rank_result **res;
    int nres, capres;
    struct search_rank_failure *fail;
    int nfail, capfail;
};
int search_collected_add_result(struct search_collected *c, struct search_rank_result *r);
int search_collected_add_failure(struct search_collected *c, int rank, int status, const char *msg);
/* Unpacks the bundle of process src (len bytes at p) into c and resolves
 * its sites through t; owner[rank] is the process each rank was given
 * (world entries).  0, or a negative status with err filled. */
int search_bundle_unpack(struct trace *t, int src, const uint8_t *p, size_t len, const int *owner, int world,
                         struct search_collected *c, struct trace_err *err);
/* Sorts the results and failures by rank. */
void search_collected_sort(struct search_collected *c);
void search_collected_free(struct search_collected *c);

#endif /* COMMHINT_SEARCH_PACK_H */
