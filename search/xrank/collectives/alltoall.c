/* alltoall.c - MPI_Alltoall(v): every rank sends distinct slices of one
 * buffer to every other rank and receives distinct slices of one buffer
 * from every other rank: the send rounds and receive rounds linked by
 * their messages (a component), one of each per rank of the communicator,
 * nothing else linked to them, and every block sent written before its
 * rank received anything of the exchange.
 */
#include <stdlib.h>
#include <string.h>

#include "collectives-private.h"

static bool a2a_candidate(const struct round *ro)
{
    unsigned need = RC_COMPLETE | RC_MATCHED | RC_SLICES;
    return (ro->cls & need) == need;
}

/* The rounds linked to the send round s by their messages, breadth first
 * into queue (*nq), marked with comp = s; false if one of them is not a
 * candidate, of another size, or in another component. */
static bool a2a_component(const struct cx *c, struct rounds *rs, uint32_t s, uint32_t *queue, uint32_t *nq)
{
    const struct round *start = &rs->v[s];
    uint32_t head = 0;
    *nq = 0;
    queue[(*nq)++] = s;
    rs->v[s].comp = (int32_t)s;
    while (head < *nq) {
        const struct round *ro = &rs->v[queue[head++]];
        for (uint32_t k = 0; k < ro->n; k++) {
            struct dg_pos pp = dg_match_peer(c->m, (struct dg_pos){ro->rank, rs->pos[ro->first + k]});
            uint32_t other = coll_valid(c, pp) ? rs->round_of[pp.rank][pp.pos] : NO_ROUND;
            if (other == NO_ROUND || !a2a_candidate(&rs->v[other]) || rs->v[other].p != start->p ||
                (rs->v[other].comp >= 0 && rs->v[other].comp != (int32_t)s))
                return false;
            if (rs->v[other].comp < 0) {
                rs->v[other].comp = (int32_t)s;
                queue[(*nq)++] = other;
            }
        }
    }
    return true;
}

/* Whether the component has one send round and one receive round on each
 * of p ranks; sends, recvs: room for nq ranks. */
static bool a2a_pairs(const struct rounds *rs, const uint32_t *queue, uint32_t nq, uint32_t p, int32_t *sends,
                      int32_t *recvs)
{
    uint32_t ns = 0, nr = 0;
    for (uint32_t k = 0; k < nq; k++) {
        const struct round *ro = &rs->v[queue[k]];
        if (ro->kind == DG_MSG_SEND)
            sends[ns++] = ro->rank;
        else
            recvs[nr++] = ro->rank;
    }
    qsort(sends, ns, sizeof *sends, coll_i32_cmp);
    qsort(recvs, nr, sizeof *recvs, coll_i32_cmp);
    if (ns != p || nr != p)
        return false;
    for (uint32_t k = 0; k < ns; k++)
        if (sends[k] != recvs[k] || (k && sends[k] == sends[k - 1]))
            return false;
    return true;
}

/* Independence: every block sent was written before the rank received
 * anything of the exchange.  *isv set unless every round is regular.
 * first_recv: [P] scratch. */
static bool a2a_independent(const struct cx *c, const struct rounds *rs, const uint32_t *queue, uint32_t nq,
                            uint64_t *first_recv, bool *isv)
{
    *isv = false;
    for (uint32_t k = 0; k < nq; k++) {
        const struct round *rr = &rs->v[queue[k]];
        if (rr->kind == DG_MSG_RECV)
            first_recv[rr->rank] = coll_rec(c, rr->rank, rs->pos[rr->first])->index;
    }
    for (uint32_t k = 0; k < nq; k++) {
        const struct round *ro = &rs->v[queue[k]];
        if (!(ro->cls & RC_REGULAR))
            *isv = true;
        if (ro->kind != DG_MSG_SEND)
            continue;
        for (uint32_t j = 0; j < ro->n; j++)
            if (coll_rec(c, ro->rank, rs->pos[ro->first + j])->version > first_recv[ro->rank])
                return false;
    }
    return true;
}

/* Largest message of an instance (bytes). */
static uint64_t inst_block(const struct cx *c, const struct inst *in)
{
    uint64_t m = 0;
    for (uint32_t i = 0; i < in->n; i++) {
        const struct dg_msgrec *r = coll_rec(c, in->v[i].rank, in->v[i].pos);
        if (r->bytes > m)
            m = r->bytes;
    }
    return m;
}

/* The component's records as one instance. */
static int a2a_emit(struct cx *c, const struct rounds *rs, const uint32_t *queue, uint32_t nq, uint32_t p,
                    bool isv)
{
    struct inst *in = &c->in;
    int rc;
    coll_inst_reset(in, &coll_alltoall, -1, p);
    if (isv)
        in->var |= VAR_V;
    for (uint32_t k = 0; k < nq; k++) {
        const struct round *ro = &rs->v[queue[k]];
        for (uint32_t j = 0; j < ro->n; j++)
            if ((rc = coll_inst_add(in, ro->rank, rs->pos[ro->first + j], false)) < 0)
                return rc;
    }
    /* pairwise exchange above MPICH's short-message threshold (256 bytes
     * a block), Bruck (the default, ceil(log2 p)) below */
    if (inst_block(c, in) > 256)
        in->steps = p - 1;
    return coll_inst_unclaimed(c, in) ? coll_emit(c, in) : 0;
}

static int find_alltoalls(struct cx *c, struct coll_in *src)
{
    struct rounds *rs = src->rs;
    uint32_t *queue = malloc((rs->n ? rs->n : 1) * sizeof *queue);
    uint64_t *first_recv = malloc((size_t)c->P * sizeof *first_recv);
    int32_t *sends = malloc((rs->n ? rs->n : 1) * sizeof *sends);
    int32_t *recvs = malloc((rs->n ? rs->n : 1) * sizeof *recvs);
    int rc = 0;
    if (!queue || !first_recv || !sends || !recvs) {
        rc = TRACE_ERR_NOMEM;
        goto out;
    }
    for (uint32_t i = 0; i < rs->n; i++)
        rs->v[i].comp = -1;
    for (uint32_t s = 0; s < rs->n; s++) {
        const struct round *start = &rs->v[s];
        uint32_t nq;
        bool isv;
        if (start->kind != DG_MSG_SEND || start->comp >= 0 || !a2a_candidate(start))
            continue;
        if (!a2a_component(c, rs, s, queue, &nq) || !a2a_pairs(rs, queue, nq, start->p, sends, recvs) ||
            !a2a_independent(c, rs, queue, nq, first_recv, &isv))
            continue;
        if ((rc = a2a_emit(c, rs, queue, nq, start->p, isv)) < 0)
            goto out;
    }
out:
    free(queue);
    free(first_recv);
    free(sends);
    free(recvs);
    return rc;
}

/* Whether each rank's partners are the code's structure rather than a
 * loop over the ranks: two or more send sites, none of which sent more
 * than one block per rank and instance (LULESH's 26 neighbour sends).
 * Every pair is then covered only at this run's rank count. */
static bool partners_by_site(const struct hacc *h, uint32_t *nsites)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < h->nlocs; i++)
        if (h->locs[i].mask & LM_SEND) {
            if (h->locs[i].per_rank > 1)
                return false;
            n++;
        }
    *nsites = n;
    return n >= 2;
}

static void alltoall_text(struct search_text *b, const struct hacc *h, const struct search_hint *sh)
{
    uint32_t nsites;
    coll_text_calls(b, h, sh);
    if (!partners_by_site(h, &nsites)) {
        search_text_printf(b, " exchange a distinct block between every pair of ranks: use %s (", sh->collective);
        return;
    }
    bool nb = !strncmp(sh->collective, "MPI_I", 5);
    search_text_printf(b,
                       " exchange a distinct block between every pair of ranks, but each block from a call site "
                       "of its own (%u send sites, one partner each): that is every pair with this run's %u "
                       "ranks, not necessarily with others; use %s if the code runs on %u ranks only, else %s "
                       "on a communicator of each rank's partners (MPI_Dist_graph_create_adjacent) (",
                       nsites, h->p, sh->collective, h->p,
                       nb ? "MPI_Ineighbor_alltoallv" : "MPI_Neighbor_alltoallv");
}

/* Both buffers with the block of rank r at slot r, and what the
 * collective does that the calls did not: the rank's own block. */
static void alltoall_fix(struct search_text *b, const struct hacc *h, const struct search_hint *sh)
{
    coll_fix_replace(b, h, sh, NULL);
    if (h->var & VAR_V)
        search_text_printf(b, ": sendcounts, sdispls, recvcounts and rdispls = each block's count and offset from "
                              "the start of the buffer the sends take it from or the receives fill, as in the "
                              "calls; sendbuf and recvbuf = those buffers");
    else {
        search_text_printf(b, ": sendbuf = the buffer the sends take their blocks from and recvbuf = the one the "
                              "receives fill, each from the slot of the lowest rank, the block for (or "
                              "from) rank r r slots after it; sendcount and recvcount with the datatype ");
        coll_fix_bytes(b, h);
    }
    search_text_printf(b, "; the collective also copies each rank's own block from its slot of sendbuf to its "
                          "slot of recvbuf (%sa count of 0 for the rank itself leaves that slot as it is)",
                       (h->var & VAR_V) ? "" : "MPI_Alltoallv with ");
}

const struct coll_pattern coll_alltoall = {
    .name = "alltoall",
    .input = COLL_IN_ROUNDS,
    .find = find_alltoalls,
    .main_call = LM_SEND,
    .mpi = "MPI_Alltoall",
    .mpi_v = "MPI_Alltoallv",
    .text = alltoall_text,
    .fix = alltoall_fix,
};
