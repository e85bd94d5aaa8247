/* pack.h - rank results as bytes, for `commhint hints --parallel`: what
 * search/parallel/pack.c (in the analysis library, no MPI) offers the MPI
 * driver (search/parallel/driver.c, its own library that only the command
 * line links) and the fuzzers.  Internal to search/.
 *
 * A bundle is what one analysis process sends to process 0: u32 magic
 * "CHPB", u16 version, u16 0, i32 status, u32 items; with a negative
 * status a message (u32 length, bytes) and no items; else each item is u32
 * kind, i32 rank, then for a result a u64 length and the packed result
 * (search_rank_result_pack), for a failure an i32 status and a message. */
#ifndef COMMHINT_SEARCH_PACK_H
#define COMMHINT_SEARCH_PACK_H

#include "search-private.h"

/* A growing byte buffer; nomem once an allocation failed (then nothing
 * more is written). */
struct pk_buf {
    uint8_t *p;
    size_t len, cap;
    bool nomem;
};

/* A bundle of status 0 with its item count still 0. */
void search_bundle_begin(struct pk_buf *b);
/* Appends the result of rank (or its failure: status and message). */
void search_bundle_add_result(struct pk_buf *b, int rank, const struct search_rank_result *r);
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
