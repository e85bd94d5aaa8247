/* allgather.c - MPI_Allgather(v): one broadcast from every rank of the
 * communicator (the k-th broadcast of each root with the same call sites
 * make round k), every rank receiving the others' blocks into distinct
 * slices of one buffer, its own block overlapping none of them and written
 * before it received any (the blocks do not depend on each other).
 */
#include <stdlib.h>

#include "collectives-private.h"

/* A block a rank received in a candidate allgather. */
struct agrecv {
    int32_t rank;    /* the receiving rank */
    struct slice sl; /* member: the root of the block */
    uint64_t index;  /* event index of the receive */
};

static int agrecv_cmp(const void *pa, const void *pb)
{
    const struct agrecv *a = pa, *b = pb;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return coll_cmp_u64(a->sl.addr, b->sl.addr);
}

/* The blocks received in the broadcasts set[0..n), by receiving rank and
 * address (rv: room for all); their number. */
static uint64_t allgather_recvs(struct cx *c, const struct bcasts *bc, const uint32_t *set, uint32_t n,
                                struct agrecv *rv)
{
    uint64_t nrv = 0;
    for (uint32_t i = 0; i < n; i++) {
        const struct binst *b = &bc->b[set[i]];
        for (uint32_t s = b->s0; s < b->s0 + b->ns; s++)
            for (uint32_t e = bc->os[s].e0; e < bc->os[s].e0 + bc->os[s].ne; e++) {
                struct dg_pos p = bc->ents[e].recv;
                const struct dg_msgrec *x = coll_rec(c, p.rank, p.pos);
                rv[nrv++] = (struct agrecv){p.rank, {x->buf, x->bytes, b->root}, x->index};
            }
    }
    qsort(rv, nrv, sizeof *rv, agrecv_cmp);
    return nrv;
}

/* Whether every member mem[qi] received the others' blocks (rv, sorted)
 * into disjoint slices that miss its own block (own[qi]), written before
 * the first of them arrived; *v set when they are not equal blocks in rank
 * order.  sl: room for n slices. */
static bool allgather_blocks(const struct agrecv *rv, uint64_t nrv, const int32_t *mem,
                             const struct binst *const *own, uint32_t n, struct slice *sl, bool *v)
{
    for (uint64_t a = 0, qi = 0; qi < n; qi++) {
        int q = mem[qi];
        uint64_t b = a;
        while (b < nrv && rv[b].rank == q)
            b++;
        if (a < nrv && rv[a].rank < q)
            return false; /* a rank outside the communicator received a block */
        uint32_t nsl = 0;
        uint64_t first_recv = UINT64_MAX;
        for (uint64_t k = a; k < b; k++) {
            sl[nsl++] = rv[k].sl;
            if (rv[k].index < first_recv)
                first_recv = rv[k].index;
            if (nsl > n - 1)
                return false;
        }
        a = b;
        const struct binst *mine = own[qi];
        if (nsl != n - 1 || !coll_slices_disjoint(sl, nsl))
            return false;
        for (uint32_t i = 0; i < nsl; i++)
            if (coll_overlap(sl[i].addr, sl[i].len, mine->buf, mine->bytes))
                return false;
        if (mine->version > first_recv)
            return false;
        if (!coll_slices_regular(sl, nsl, mem, n))
            *v = true;
    }
    return true;
}

/* Whether the broadcasts set[0..n) (one per rank of the communicator) are
 * an allgather (*ok), and the v-variant (*v). */
static int allgather_check(struct cx *c, struct bcasts *bc, const uint32_t *set, uint32_t n, bool *ok,
                           bool *v)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t s = bc->b[set[i]].s0; s < bc->b[set[i]].s0 + bc->b[set[i]].ns; s++)
            total += bc->os[s].ne;
    struct agrecv *rv = malloc((total ? total : 1) * sizeof *rv);
    struct slice *sl = malloc((n ? n : 1) * sizeof *sl);
    int32_t *mem = malloc((n ? n : 1) * sizeof *mem);
    const struct binst **own = calloc(n ? n : 1, sizeof *own);
    int rc = 0;
    *ok = false;
    *v = false;
    if (!rv || !sl || !mem || !own) {
        rc = TRACE_ERR_NOMEM;
        goto out;
    }
    for (uint32_t i = 0; i < n; i++)
        mem[i] = bc->b[set[i]].root;
    qsort(mem, n, sizeof *mem, coll_i32_cmp);
    for (uint32_t i = 0; i < n; i++) {
        const struct binst *b = &bc->b[set[i]];
        const int32_t *at = bsearch(&b->root, mem, n, sizeof *mem, coll_i32_cmp);
        own[at - mem] = b;
    }
    uint64_t nrv = allgather_recvs(c, bc, set, n, rv);
    *ok = allgather_blocks(rv, nrv, mem, own, n, sl, v);
out:
    free(rv);
    free(sl);
    free(mem);
    free(own);
    return rc;
}

/* Emits the broadcasts set[0..n) as one allgather if they are one. */
static int allgather_emit(struct cx *c, struct bcasts *bc, const uint32_t *set, uint32_t n, uint32_t p)
{
    bool ok, isv;
    int rc;
    if ((rc = allgather_check(c, bc, set, n, &ok, &isv)) < 0 || !ok)
        return rc;
    struct inst *in = &c->in;
    coll_inst_reset(in, &coll_allgather, -1, p);
    for (uint32_t i = 0; i < n; i++) {
        if (bc->b[set[i]].forwarded)
            in->var |= VAR_FORWARD;
        if ((rc = coll_binst_parts(c, bc, &bc->b[set[i]], in)) < 0)
            return rc;
    }
    if (isv)
        in->var |= VAR_V;
    if (!coll_inst_unclaimed(c, in))
        return 0;
    for (uint32_t i = 0; i < n; i++)
        bc->b[set[i]].used = true;
    return coll_emit(c, in);
}

/* The allgathers among the broadcasts v[a, b) of one signature: per root,
 * its broadcasts in order; the k-th of every root make round k.  set,
 * start: scratch. */
static int allgather_rounds(struct cx *c, struct bcasts *bc, const struct bref *v, uint32_t a, uint32_t b,
                            uint32_t *set, uint32_t *start)
{
    uint32_t p = bc->b[v[a].b].p;
    uint32_t nroots = 0;
    int rc;
    for (uint32_t i = a; i < b; i++)
        if (i == a || v[i].root != v[i - 1].root)
            start[nroots++] = i;
    start[nroots] = b;
    if (nroots != p)
        return 0;
    for (uint32_t k = 0;; k++) {
        uint32_t nset = 0;
        for (uint32_t i = 0; i < nroots; i++)
            if (start[i] + k < start[i + 1])
                set[nset++] = v[start[i] + k].b;
        if (nset < p)
            return 0;
        if ((rc = allgather_emit(c, bc, set, nset, p)) < 0)
            return rc;
    }
}

static int find_allgathers(struct cx *c, struct coll_in *src)
{
    struct bcasts *bc = src->bc;
    struct bref *v = malloc((bc->nb ? bc->nb : 1) * sizeof *v);
    uint32_t *set = NULL, *start = NULL, nv = 0;
    int rc = 0;
    if (!v)
        return TRACE_ERR_NOMEM;
    for (uint32_t i = 0; i < bc->nb; i++)
        if (!bc->b[i].used)
            v[nv++] = (struct bref){bc->b[i].sig, bc->b[i].root, bc->b[i].first_pos, i};
    qsort(v, nv, sizeof *v, coll_bref_cmp);
    set = malloc((nv ? nv : 1) * sizeof *set);
    start = malloc(((size_t)nv + 1) * sizeof *start);
    if (!set || !start) {
        rc = TRACE_ERR_NOMEM;
        goto out;
    }
    for (uint32_t a = 0; a < nv;) {
        uint32_t b = a;
        while (b < nv && v[b].sig == v[a].sig)
            b++;
        if ((rc = allgather_rounds(c, bc, v, a, b, set, start)) < 0)
            goto out;
        a = b;
    }
out:
    free(v);
    free(set);
    free(start);
    return rc;
}

static void allgather_text(struct search_text *b, const struct hacc *h, const struct search_hint *sh)
{
    coll_text_calls(b, h, sh);
    search_text_printf(b, " pass every rank's block to every other rank%s: use %s (",
                       h->var & VAR_FORWARD ? " along a ring" : "", sh->collective);
}

/* The receive buffer with rank r's block at slot r, and the send buffer
 * (MPI_IN_PLACE when every rank's own block already sits at its slot). */
static void allgather_fix(struct search_text *b, const struct hacc *h, const struct search_hint *sh)
{
    coll_fix_replace(b, h, sh, NULL);
    if (h->var & VAR_V)
        search_text_printf(b, ": recvcounts and displs = each rank's block's count and offset from the start of "
                              "the buffer the blocks arrive in, as in the calls; recvbuf = that buffer");
    else {
        search_text_printf(b, ": recvbuf = the buffer the blocks arrive in, from the slot of the lowest rank, "
                              "rank r's block r slots after it; sendcount and recvcount with the datatype ");
        coll_fix_bytes(b, h);
    }
    if (h->fx.own_in_place)
        search_text_printf(b, "; sendbuf = MPI_IN_PLACE (every rank's own block already sits at its slot)");
    else
        search_text_printf(b, "; sendbuf = the rank's own block (the first block it sends)");
}

const struct coll_pattern coll_allgather = {
    .name = "allgather",
    .input = COLL_IN_BCASTS,
    .find = find_allgathers,
    .main_call = LM_SEND,
    .mpi = "MPI_Allgather",
    .mpi_v = "MPI_Allgatherv",
    .text = allgather_text,
    .fix = allgather_fix,
};
