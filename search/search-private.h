/* search-private.h - what the files of search/ share: the engine interface
 * each engine implements, and small helpers. */
#ifndef COMMHINT_SEARCH_PRIVATE_H
#define COMMHINT_SEARCH_PRIVATE_H

#include "search.h"

/* An engine: search_engine_create picks one by search_opts.engine. */
struct search_engine_ops {
    int (*feed)(void *state, const struct dg_event *ev);
    /* Hands over the result; the state is freed whether or not it succeeds. */
    int (*finish)(void *state, struct search_rank_result **out);
    void (*destroy)(void *state);
};

/* search/stream.c: the streaming engine. */
int search_stream_create(const struct search_opts *o, int rank, void **state,
                         const struct search_engine_ops **ops);
/* search/reference.c: the reference engine. */
int search_reference_create(const struct search_opts *o, int rank, void **state,
                            const struct search_engine_ops **ops);

/* Options with defaults filled in. */
static inline uint64_t search_horizon(const struct search_opts *o)
{
    return o && o->horizon ? o->horizon : SEARCH_DEFAULT_HORIZON;
}
static inline unsigned search_max_boxes(const struct search_opts *o)
{
    return o && o->max_boxes ? o->max_boxes : SEARCH_DEFAULT_MAX_BOXES;
}

/* Roles that are overlap candidates, and which windows they get. */
static inline bool search_has_backward(const struct dg_event *e)
{
    return e->kind == DG_MPI && e->site != 0xffffffffu &&
           (e->role == DG_ROLE_SEND || e->role == DG_ROLE_RECV || e->role == DG_ROLE_SENDRECV ||
            e->role == DG_ROLE_COLL);
}
static inline bool search_has_forward(const struct dg_event *e)
{
    return search_has_backward(e) ||
           (e->kind == DG_MPI && e->site != 0xffffffffu && e->role == DG_ROLE_COMPLETE);
}

/* A blocking MPI call that may wait for another rank: a send is never
 * delayed past one (docs/dependence.md, "Classification"). */
static inline bool search_blocks_groups(const struct dg_event *e)
{
    return e->kind == DG_MPI &&
           (e->role == DG_ROLE_RECV || e->role == DG_ROLE_SENDRECV || e->role == DG_ROLE_COLL ||
            e->role == DG_ROLE_SYNC || e->role == DG_ROLE_PROBE || e->role == DG_ROLE_COMPLETE);
}

/* t_exit - t_enter, 0 if unknown or negative. */
static inline uint64_t search_call_ns(const struct dg_event *e)
{
    return e->t_exit > e->t_enter && e->t_enter ? e->t_exit - e->t_enter : 0;
}

#endif /* COMMHINT_SEARCH_PRIVATE_H */
