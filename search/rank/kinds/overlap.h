/* overlap.h - what the files of the overlap kind share (overlap.c: the
 * kind and its per-rank result; overlap-stream.c, overlap-reference.c:
 * the two engines; overlap-merge.c: hints across ranks). */
#ifndef COMMHINT_SEARCH_KIND_OVERLAP_H
#define COMMHINT_SEARCH_KIND_OVERLAP_H

#include "rank/kind.h"

/* The needs-buffer variant (docs/dependence.md, "Needs a buffer per
 * message"): blocking sends get it.  Their forward window in the variant
 * ends at the first event that depends on the send as search_ov_nb_event
 * returns it: for a movable send that writes nothing, the send without
 * its buffer ranges, so that an event writing the send buffer (an anti
 * dependence, search_ag_buffer_only) does not end it; else the send
 * itself (the variant window is the plain one). */
static inline bool search_ov_has_nb(const struct dg_event *e)
{
    return search_has_forward(e) && e->role == DG_ROLE_SEND;
}

static inline struct dg_event search_ov_nb_event(const struct dg_event *e)
{
    struct dg_event x = *e;
    bool writes = false;
    for (uint32_t i = 0; i < e->nranges; i++)
        writes |= e->ranges[i].write;
    if (dg_is_movable_send(e) && !writes)
        x.nranges = 0;
    return x;
}

/* The fix's statements (search_overlap.dep_site, use_site): both engines
 * count, per call site, the statement that bounded each window in a map
 * keyed by site | SEARCH_OV_OTHER_ITER (it ran in another iteration of a
 * loop around the call than the call) and take the key counted most (the
 * lowest on a tie), CHT_NONE for a backward window no statement bounds. */
#define SEARCH_OV_OTHER_ITER (1ull << 32)
uint64_t search_ov_most(const struct dg_map *m);
/* Whether iteration vector a (the innermost SEARCH_BOX_DEPTH levels of
 * depth na) is in an earlier (< 0) or later (> 0) iteration of a loop it
 * shares with b than b, 0 if in the same ones (or none): -1 and 1 for the
 * iteration right before or after, -2 and 2 for any further one. */
int search_ov_iter_order(const struct trace_iter *a, uint32_t na, const struct trace_iter *b, uint32_t nb);
/* A backward bound in an iteration further than the one right before the
 * call's: "in the iteration before" would not name it (gauss's back
 * substitution, whose receive skips the rank's own steps).  A forward one
 * needs no such mark: a wait placed before a statement waits whenever that
 * statement next runs. */
#define SEARCH_OV_FAR_ITER (1ull << 34)
/* The key of a bound at site: with SEARCH_OV_OTHER_ITER when it is in an
 * earlier (back) or later (forward) iteration, order being
 * search_ov_iter_order(bound, call), and SEARCH_OV_FAR_ITER (back only)
 * beyond the iteration right before. */
static inline uint64_t search_ov_key(uint32_t site, int order, bool back)
{
    bool other = back ? order < 0 : order > 0;
    return site | (other ? SEARCH_OV_OTHER_ITER : 0) | (back && other && order < -1 ? SEARCH_OV_FAR_ITER : 0);
}
/* The loops of iteration vector a that are not in b (innermost
 * SEARCH_BOX_DEPTH levels), as a mask of bits id % 32: every bit when a
 * keeps SEARCH_BOX_DEPTH levels (deeper ones are not known). */
uint32_t search_ov_loops_outside(const struct trace_iter *a, uint32_t na, const struct trace_iter *b, uint32_t nb);
/* Whether two iteration vectors share a loop (on the innermost levels both
 * engines keep): false when one runs outside every loop around the other. */
bool search_ov_shares_loop(const struct trace_iter *a, uint32_t na, const struct trace_iter *b, uint32_t nb);
/* An instance's empty window, by its bound (back_empty/fwd_empty and their
 * _outside counts of struct search_overlap). */
enum { SEARCH_OV_ROOM = 0, SEARCH_OV_EMPTY = 1, SEARCH_OV_EMPTY_OUTSIDE = 2 };
/* The key of an empty window whose bound is not known (never a fix's). */
#define SEARCH_OV_NO_KEY (1ull << 33)
/* Sets o's dep and use from the counts, and back_empty/fwd_empty from the
 * keys of the empty windows of instances with a window (inside a loop
 * around the call). */
void search_ov_set_fix(struct search_overlap *o, const struct dg_map *dep_n, const struct dg_map *use_n,
                       const struct dg_map *dep_empty_n, const struct dg_map *use_empty_n);
/* Counts key in m: 0 or TRACE_ERR_NOMEM. */
int search_ov_count(struct dg_map *m, uint64_t key);

extern const struct search_stream_methods search_overlap_stream;
int search_overlap_reference(struct search_ref *x, struct search_rank_result *r);
int search_overlap_merge(const struct search_merge *m);
int search_overlap_log_facts(struct search_rank_result *r);
int search_overlap_peer_facts(struct search_xrank *x, struct search_rank_result *r);
void search_overlap_peer_pack(struct pk_buf *b, const struct search_rank_result *r);
void search_overlap_peer_unpack(struct pk_rd *rd, struct search_rank_result *r);
char *search_overlap_message(const struct search_hint *h, bool with_times);
/* Frees the last overlap of r and takes it out. */
void search_overlap_drop_last(struct search_rank_result *r);

#endif /* COMMHINT_SEARCH_KIND_OVERLAP_H */
