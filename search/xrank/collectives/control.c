/* control.c - MPI_Gather / MPI_Scatter of control values: a root that
 * receives one value from every other rank of the communicator into one
 * variable (or sends every rank a value from one variable, rewritten for
 * each), where every value is an argument of a later MPI call (a count or
 * an offset: DG_MSGF_ARG), and no block follows them that would make the
 * offset, length, block protocol (rounds.c): the values become an array
 * of one per rank, filled by one collective.  Runs after scatter and
 * gather have seen every round, so that the protocol claims its control
 * messages first.
 */
#include <string.h>

#include "collectives-private.h"

/* Whether every record of a complete, matched round carries a value a later
 * MPI call used, in one range (and, for sends, not all the same bytes: that
 * is a broadcast); *use: the call site of the root's first. */
static bool control_round(const struct cx *c, const struct rounds *rs, const struct round *ro, uint32_t *use)
{
    const unsigned cm = RC_COMPLETE | RC_MATCHED;
    if ((ro->cls & cm) != cm || (ro->kind == DG_MSG_SEND && (ro->cls & RC_SAME)) || ro->n < 2)
        return false;
    const struct dg_msgrec *x0 = coll_rec(c, ro->rank, rs->pos[ro->first]);
    for (uint32_t k = 0; k < ro->n; k++) {
        const struct dg_msgrec *x = coll_rec(c, ro->rank, rs->pos[ro->first + k]);
        if (!(x->flags & DG_MSGF_ARG) || x->buf != x0->buf || x->bytes != x0->bytes || !x->bytes)
            return false;
    }
    *use = x0->use_site;
    return true;
}

static int find_round(struct cx *c, const struct rounds *rs, const struct round *ro)
{
    uint32_t use;
    if ((ro->kind != DG_MSG_SEND && ro->kind != DG_MSG_RECV) || !control_round(c, rs, ro, &use))
        return 0;
    const struct coll_pattern *pat = ro->kind == DG_MSG_SEND ? &coll_scatter_control : &coll_gather_control;
    struct inst *in = &c->in;
    coll_inst_reset(in, pat, ro->rank, ro->p);
    /* the call that uses the values, named in the message */
    coll_loc_of(c, ro->rank, use, &in->consumer);
    in->has_consumer = true;
    int rc = coll_round_parts(c, rs, ro, in);
    if (rc < 0)
        return rc;
    return coll_inst_unclaimed(c, in) ? coll_emit(c, in) : 0;
}

/* Every round, after scatter and gather have seen them all (COLL_IN_ROUNDS:
 * the protocol claims its control messages first, whichever round comes
 * first). */
static int find_control(struct cx *c, struct coll_in *src)
{
    int rc = 0;
    for (uint32_t r = 0; r < src->rs->n && rc >= 0; r++)
        rc = find_round(c, src->rs, &src->rs->v[r]);
    return rc;
}

/* "the MPI call at line 52" (file:line when in another file). */
static void use_text(struct search_text *b, const struct hacc *h, const struct search_hint *sh)
{
    const char *file = h->consumer.file ? h->consumer.file : "";
    if (sh->file && !strcmp(file, sh->file)) {
        search_text_printf(b, "the MPI call at line %u", h->consumer.line);
        return;
    }
    const char *base = strrchr(file, '/');
    search_text_printf(b, "the MPI call at %s:%u", base ? base + 1 : *file ? file : "??", h->consumer.line);
}

static void gather_control_text(struct search_text *b, const struct hacc *h, const struct search_hint *sh)
{
    coll_text_calls(b, h, sh);
    search_text_printf(b, " receive one value from every rank into one variable, each a count or an offset of ");
    use_text(b, h, sh);
    search_text_printf(b, ", not combined: use %s into an array of one value per rank (", sh->collective);
}

static void scatter_control_text(struct search_text *b, const struct hacc *h, const struct search_hint *sh)
{
    coll_text_calls(b, h, sh);
    search_text_printf(b, " send every rank one value from one variable, each also a count or an offset of ");
    use_text(b, h, sh);
    search_text_printf(b, ": use %s from an array of one value per rank (", sh->collective);
}

/* The values become an array of one per rank, which the call that uses
 * them indexes by rank. */
static void gather_control_fix(struct search_text *b, const struct hacc *h, const struct search_hint *sh)
{
    coll_fix_replace(b, h, sh, NULL);
    coll_fix_root(b, h, sh);
    search_text_printf(b, "; sendbuf = the value sent, MPI_IN_PLACE at the root (it sent itself nothing); "
                          "recvbuf (at the root only) = a new array of one value per rank, which ");
    use_text(b, h, sh);
    search_text_printf(b, " then reads at the index of the rank it is about; count and datatype ");
    coll_fix_bytes(b, h);
}

static void scatter_control_fix(struct search_text *b, const struct hacc *h, const struct search_hint *sh)
{
    coll_fix_replace(b, h, sh, NULL);
    coll_fix_root(b, h, sh);
    search_text_printf(b, "; sendbuf (at the root only) = a new array of the value for each rank, filled before "
                          "the call where the root computes each value now; recvbuf = the variable received "
                          "into (MPI_IN_PLACE at the root); count and datatype ");
    coll_fix_bytes(b, h);
}

const struct coll_pattern coll_gather_control = {
    .name = "gather of control values",
    .input = COLL_IN_ROUNDS,
    .find = find_control,
    .main_call = LM_RECV,
    .mpi = "MPI_Gather",
    .text = gather_control_text,
    .fix = gather_control_fix,
};

/* Found by the same pass as coll_gather_control (its find looks at both
 * kinds of rounds); listed once in the table. */
const struct coll_pattern coll_scatter_control = {
    .name = "scatter of control values",
    .input = COLL_IN_ROUNDS,
    .find = find_control,
    .main_call = LM_SEND,
    .mpi = "MPI_Scatter",
    .text = scatter_control_text,
    .fix = scatter_control_fix,
};
