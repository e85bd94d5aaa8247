/* bcast.c - MPI_Bcast: a root that sends the same bytes (one range and
 * version) to every other rank of the communicator, directly, along a ring
 * or down a tree of ranks that forward them unchanged, with a fixed or a
 * rotating root (broadcasts.c finds them).  Runs after allreduce and
 * allgather, which take the broadcasts they are made of.
 */
#include "collectives-private.h"

static int emit_binst(struct cx *c, struct bcasts *bc, struct binst *b)
{
    struct inst *in = &c->in;
    coll_inst_reset(in, &coll_bcast, b->root, b->p);
    if (b->forwarded)
        in->var |= VAR_FORWARD;
    int rc = coll_binst_parts(c, bc, b, in);
    if (rc < 0)
        return rc;
    if (!coll_inst_unclaimed(c, in))
        return 0;
    b->used = true;
    return coll_emit(c, in);
}

static int find_bcasts(struct cx *c, struct coll_in *src)
{
    int rc;
    for (uint32_t i = 0; i < src->bc->nb; i++)
        if (!src->bc->b[i].used && (rc = emit_binst(c, src->bc, &src->bc->b[i])) < 0)
            return rc;
    return 0;
}

static void bcast_text(struct search_text *b, const struct hacc *h, const struct search_hint *sh)
{
    coll_text_calls(b, h, sh);
    search_text_printf(b, " send the same bytes from the root to every rank%s: use %s (",
                       h->var & VAR_FORWARD ? ", forwarded from rank to rank" : "", sh->collective);
}

/* "every rank of the pattern calls one MPI_Bcast in place of ...; root =
 * rank 0; buffer = ...; count and datatype as in the calls (64 bytes)" */
static void bcast_fix(struct search_text *b, const struct hacc *h, const struct search_hint *sh)
{
    coll_fix_replace(b, h, sh, NULL);
    coll_fix_root(b, h, sh);
    search_text_printf(b, "; buffer = the one sent at the root and the one received into elsewhere; count and "
                          "datatype ");
    coll_fix_bytes(b, h);
}

const struct coll_pattern coll_bcast = {
    .name = "bcast",
    .input = COLL_IN_BCASTS,
    .find = find_bcasts,
    .main_call = LM_SEND,
    .mpi = "MPI_Bcast",
    .text = bcast_text,
    .fix = bcast_fix,
};
