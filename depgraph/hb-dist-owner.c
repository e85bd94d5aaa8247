/* hb-dist-owner.c - the collective instances a process owns in the spread
 * happens-before replay (hb-dist.c): the members note their arrival
 * (REACHED, with what they knew), their contribution to a nonblocking
 * instance (CONTRIB) or their going past it in a stall (STALLED); the
 * owner lets each go (RELEASE) with what hb.c's rules give it: a blocking
 * instance's givers' union once every member is there (over every rank:
 * once to each process, WORLD), a nonblocking one's group once every other
 * member has contributed (once to every process, GROUP). */
#include <string.h>

#include "hb-dist-private.h"

/* Member j goes, taking set s (NULL: nothing) that it learns from giver
 * `from` (chain mode). */
static void release(struct hd *R, uint32_t inst, uint32_t j, const struct tokset *s, struct dg_pos from)
{
    struct inst *I = &R->in[inst - R->lo];
    uint32_t n = 0;
    const struct dg_pos *mem = dg_match_coll(R->m, inst, &n);
    R->mflag[I->base + j] = (uint8_t)((R->mflag[I->base + j] & ~MB_WAITING) | MB_GONE);
    struct hnote rl = {H_RELEASE, s ? s->n : 0, inst, 0, R->me, 0, mem[j], from};
    hd_note(R, hd_rank_owner(R, mem[j].rank), &rl, s ? s->v : NULL);
}

/* Every member has arrived at a blocking instance: the givers' union (by
 * the call of member k, the one that resolves it) to the takers, unless a
 * member went past it in a stall (then it passes nothing). */
static void resolve_blocking(struct hd *R, uint32_t inst, uint32_t k)
{
    struct inst *I = &R->in[inst - R->lo];
    struct tokset all = {0};
    int dir = coll_dir(R->mcall[I->base + k]);
    uint32_t n = 0;
    const struct dg_pos *mem = dg_match_coll(R->m, inst, &n);
    struct dg_pos from = DG_POS_NONE;
    for (uint32_t j = 0; j < I->n && !I->broken; j++)
        if (gives(dir, R->mflag[I->base + j] & MB_ROOT)) {
            hd_chain_giver(R, &from, mem[j], &R->mset[I->base + j]);
            hd_ts_merge_flat(R, &all, R->mset[I->base + j].v, R->mset[I->base + j].n);
        }
    bool world = !I->broken && dir != 2 && all.n && n == (uint32_t)R->P;
    for (uint32_t j = 0; world && j < n; j++)
        world = mem[j].rank == (int32_t)j;
    if (world) {
        /* known everywhere from each rank's record of it on: once to each
         * process, which releases its ranks */
        for (int q = 0; q < R->K; q++) {
            bool any = false;
            for (int r = 0; r < R->P && !any; r++)
                any = hd_rank_owner(R, r) == q;
            struct hnote w = {H_WORLD, all.n, inst, 0, R->me, (uint32_t)dir, DG_POS_NONE, from};
            if (any)
                hd_note(R, q, &w, all.v);
        }
        for (uint32_t j = 0; j < I->n; j++) {
            hd_ts_free(&R->mset[I->base + j]);
            R->mflag[I->base + j] = (uint8_t)((R->mflag[I->base + j] & ~MB_WAITING) | MB_GONE);
        }
        hd_ts_free(&all);
        return;
    }
    for (uint32_t j = 0; j < I->n; j++) {
        uint8_t f = R->mflag[I->base + j];
        hd_ts_free(&R->mset[I->base + j]);
        if (f & MB_GONE)
            continue;
        release(R, inst, j, !I->broken && takes(dir, f & MB_ROOT) ? &all : NULL, from);
    }
    hd_ts_free(&all);
}

/* Whether waiting nonblocking member j may go: every other member has
 * contributed. */
static bool nb_ready(const struct hd *R, const struct inst *I, uint32_t j)
{
    return I->ncontrib - ((R->mflag[I->base + j] & MB_CONTRIB) ? 1 : 0) + 1 >= I->n;
}

static void release_nb(struct hd *R, uint32_t inst, uint32_t j)
{
    struct inst *I = &R->in[inst - R->lo];
    int dir = coll_dir(R->mcall[I->base + j]);
    if (!takes(dir, R->mflag[I->base + j] & MB_ROOT)) {
        release(R, inst, j, NULL, DG_POS_NONE);
        return;
    }
    uint32_t n = 0;
    const struct dg_pos *mem = dg_match_coll(R->m, inst, &n);
    if (!I->built) { /* what its givers knew at their contributions, so far */
        I->built = 1;
        I->from = DG_POS_NONE;
        for (uint32_t i = 0; i < I->n; i++) {
            if ((R->mflag[I->base + i] & MB_CONTRIB) && gives(dir, R->mflag[I->base + i] & MB_ROOT)) {
                hd_chain_giver(R, &I->from, mem[i], &R->cset[I->base + i]);
                hd_ts_merge_flat(R, &I->group, R->cset[I->base + i].v, R->cset[I->base + i].n);
            }
            hd_ts_free(&R->cset[I->base + i]);
        }
        /* the group, once to every process before any set holds its
         * token: a set then travels with the token */
        for (int q = 0; q < R->K && I->group.n; q++) {
            struct hnote g = {H_GROUP, I->group.n, inst, 0, R->me, 0, DG_POS_NONE, DG_POS_NONE};
            hd_note(R, q, &g, I->group.v);
        }
    }
    int q = hd_rank_owner(R, mem[j].rank);
    if (!I->group.n || q < 0 || q >= R->K) {
        release(R, inst, j, NULL, DG_POS_NONE);
        return;
    }
    R->mflag[I->base + j] = (uint8_t)((R->mflag[I->base + j] & ~MB_WAITING) | MB_GONE);
    struct hnote rl = {H_RELEASE, 0, inst, 0, R->me, 1 /* takes the group */, mem[j], I->from};
    hd_note(R, q, &rl, NULL);
}

static void sweep_nb(struct hd *R, uint32_t inst)
{
    struct inst *I = &R->in[inst - R->lo];
    for (uint32_t j = 0; j < I->n; j++) {
        uint8_t f = R->mflag[I->base + j];
        if ((f & MB_WAITING) && (f & MB_NB) && nb_ready(R, I, j))
            release_nb(R, inst, j);
    }
}

void hd_on_member(struct hd *R, const struct hnote *n, const uint32_t *tok)
{
    if (n->inst < R->lo || n->inst >= R->hi)
        return;
    struct inst *I = &R->in[n->inst - R->lo];
    uint32_t j = dg_match_coll_place(R->m, n->inst, n->at.rank);
    if (j >= I->n)
        return;
    uint8_t *f = &R->mflag[I->base + j];
    if (n->kind == H_STALLED) {
        I->broken = 1;
        *f = (uint8_t)((*f & ~MB_WAITING) | MB_GONE);
        return;
    }
    if (n->kind == H_CONTRIB) {
        if (*f & MB_CONTRIB)
            return;
        *f |= MB_CONTRIB;
        I->ncontrib++;
        if (!I->built) {
            struct tokset *c = &R->cset[I->base + j];
            hd_ts_merge(R, c, tok, n->ntok);
        }
        if (I->ncontrib + 1 >= I->n)
            sweep_nb(R, n->inst);
        return;
    }
    /* reached */
    if (*f & (MB_ARRIVED | MB_GONE))
        return;
    *f |= MB_ARRIVED | MB_WAITING;
    I->narrived++;
    if (I->blocking)
        hd_ts_merge(R, &R->mset[I->base + j], tok, n->ntok);
    if (I->blocking && I->narrived == I->n) {
        uint32_t k = j;
        for (uint32_t i = 0; (*f & MB_NB) && i < I->n; i++)
            if (!(R->mflag[I->base + i] & MB_NB)) {
                k = i; /* a blocking member resolves it */
                break;
            }
        resolve_blocking(R, n->inst, k);
    } else if ((*f & MB_NB) && nb_ready(R, I, j)) {
        release_nb(R, n->inst, j);
    }
}

/* Members, their flags and calls; the SETUP notes of nonblocking instances. */
int hd_inst_setup(struct hd *R)
{
    dg_match_coll_here(R->m, &R->lo, &R->hi);
    uint32_t ni = R->hi - R->lo, total = 0;
    if (!(R->in = calloc(ni ? ni : 1, sizeof *R->in)))
        return TRACE_ERR_NOMEM;
    for (uint32_t i = 0; i < ni; i++) {
        dg_match_coll(R->m, R->lo + i, &R->in[i].n);
        R->in[i].base = total;
        total += R->in[i].n;
    }
    R->mflag = calloc(total ? total : 1, 1);
    R->mcall = calloc(total ? total : 1, sizeof *R->mcall);
    R->mset = calloc(total ? total : 1, sizeof *R->mset);
    R->cset = calloc(total ? total : 1, sizeof *R->cset);
    if (!R->mflag || !R->mcall || !R->mset || !R->cset)
        return TRACE_ERR_NOMEM;
    for (uint32_t i = 0; i < ni; i++) {
        struct inst *I = &R->in[i];
        uint32_t n = 0;
        const struct dg_pos *mem = dg_match_coll(R->m, R->lo + i, &n);
        for (uint32_t j = 0; j < n; j++) {
            const struct dg_msgrec *y = dg_match_rec(R->m, mem[j]);
            bool nb = y && (y->flags & DG_MSGF_NONBLOCKING);
            R->mflag[I->base + j] = (uint8_t)((nb ? MB_NB : 0) | (y && (y->flags & DG_MSGF_ROOT) ? MB_ROOT : 0));
            R->mcall[I->base + j] = y ? y->call : 0;
            I->nb |= nb;
            I->blocking |= !nb;
        }
        for (uint32_t j = 0; I->nb && j < n; j++) {
            const struct dg_msgrec *y = dg_match_rec(R->m, mem[j]);
            bool nb = R->mflag[I->base + j] & MB_NB;
            uint32_t fl = (nb && y && y->fwd_pos < mem[j].pos ? 0 : SET_CONTRIB) | (nb && I->blocking ? SET_CARRY : 0);
            if (fl) {
                struct hnote s = {H_SETUP, 0, R->lo + i, 0, R->me, fl, mem[j], DG_POS_NONE};
                hd_note(R, hd_rank_owner(R, mem[j].rank), &s, NULL);
            }
        }
    }
    return R->rc;
}
