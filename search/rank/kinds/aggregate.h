/* aggregate.h - what the files of the aggregation kind share (aggregate.c:
 * the kind and its per-rank result; aggregate-stream.c,
 * aggregate-reference.c: the two engines; aggregate-merge.c: hints across
 * ranks). */
#ifndef COMMHINT_SEARCH_KIND_AGGREGATE_H
#define COMMHINT_SEARCH_KIND_AGGREGATE_H

#include "rank/kind.h"

extern const struct search_stream_methods search_aggregate_stream;
int search_aggregate_reference(struct search_ref *x, struct search_rank_result *r);
int search_aggregate_merge(const struct search_merge *m);
char *search_aggregate_message(const struct search_hint *h, bool with_times);

/* Order of group summaries in a result: comm, peer, then the member
 * sites. */
int search_group_cmp(const struct search_group *a, const struct search_group *b);
/* Gives every group of r its info array (nsites entries, NULL until
 * search_run_rank resolves them), as results always have. */
int search_groups_make_info(struct search_rank_result *r);

/* An exchange that aggregation may merge (docs/dependence.md, "Message
 * aggregation", "Exchanges"): a Sendrecv or Sendrecv_replace with a send
 * to a real rank and a receive from a named rank (not MPI_ANY_SOURCE).
 * Its channel is (communicator, *dest, *src). */
static inline bool search_ag_exchange(const struct dg_event *e, int32_t *dest, int32_t *src)
{
    if (e->kind != DG_MPI || e->role != DG_ROLE_SENDRECV)
        return false;
    *dest = *src = -1;
    for (uint32_t i = 0; i < e->nkeys; i++) {
        if (e->keys[i].cls == DG_KEY_SEND)
            *dest = e->keys[i].peer;
        else if (e->keys[i].cls == DG_KEY_RECV)
            *src = e->keys[i].peer;
    }
    return *dest >= 0 && *src >= 0;
}

/* Whether two events are exchanges on the same channel. */
static inline bool search_ag_same_exchange(const struct dg_event *a, const struct dg_event *b)
{
    int32_t ad, as, bd, bs;
    return search_ag_exchange(a, &ad, &as) && search_ag_exchange(b, &bd, &bs) && a->comm == b->comm &&
           ad == bd && as == bs;
}

/* The relation as aggregation sees it: dg_depends with the shared keys of
 * two movable sends, or of two exchanges, of one channel left out (that
 * is what merging them means). */
static inline bool search_ag_depends(const struct dg_event *a, const struct dg_event *b)
{
    if (search_ag_same_exchange(a, b)) {
        struct dg_event x = *a, y = *b;
        x.nkeys = y.nkeys = 0;
        return dg_depends(&x, &y, false);
    }
    return dg_depends(a, b, false);
}

#endif /* COMMHINT_SEARCH_KIND_AGGREGATE_H */
