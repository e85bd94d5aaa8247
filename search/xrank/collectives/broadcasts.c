/* broadcasts.c - the complete broadcasts among the unclaimed records,
 * shared by the bcast, allgather and allreduce patterns: where the bytes of
 * each received message come from (through the ranks that forwarded them
 * unchanged), grouped by root, range and version into sends whose bytes
 * reach every other rank of the communicator once.
 */
#include <stdlib.h>
#include <string.h>

#include "collectives-private.h"

#define NOT_SET (-2)
#define IN_PROGRESS (-3)

/* ---- where the bytes of each message come from ----------------------------------------------- */

/* Follows the receive at cur back through forwarding ranks to its origin
 * send; marks the records on the way (path) IN_PROGRESS and then sets them. */
static int origin_of(const struct cx *c, struct dg_pos **o, struct dg_pos cur, uint64_t total,
                     struct dg_pos **path, uint32_t *cappath)
{
    struct dg_pos res = DG_POS_NONE;
    uint32_t npath = 0;
    for (uint64_t steps = 0;; steps++) {
        if (o[cur.rank][cur.pos].rank != NOT_SET && o[cur.rank][cur.pos].rank != IN_PROGRESS) {
            res = o[cur.rank][cur.pos];
            break;
        }
        if (coll_grow(path, cappath, (uint64_t)npath + 1, sizeof **path) < 0)
            return TRACE_ERR_NOMEM;
        (*path)[npath++] = cur;
        o[cur.rank][cur.pos].rank = IN_PROGRESS;
        struct dg_pos s = dg_match_peer(c->m, cur);
        if (!coll_valid(c, s))
            break;
        const struct dg_msgrec *sr = coll_rec(c, s.rank, s.pos);
        res = s;
        if (!(sr->flags & DG_MSGF_FORWARD) || sr->fwd_pos >= c->logs[s.rank]->n || steps > total)
            break;
        const struct dg_msgrec *pr = coll_rec(c, s.rank, (uint32_t)sr->fwd_pos);
        struct dg_pos prev = {s.rank, (uint32_t)sr->fwd_pos};
        if (pr->kind != DG_MSG_RECV || pr->bytes != sr->bytes || pr->comm != sr->comm ||
            o[prev.rank][prev.pos].rank == IN_PROGRESS)
            break;
        cur = prev;
    }
    for (uint32_t k = 0; k < npath; k++)
        o[(*path)[k].rank][(*path)[k].pos] = res;
    return 0;
}

/* origin[rank][pos] of every RECV record: the SEND record whose bytes it
 * received, through the ranks that forwarded them unchanged. */
static int origins_build(const struct cx *c, struct dg_pos ***out)
{
    struct dg_pos **o = calloc((size_t)c->P, sizeof *o);
    struct dg_pos *path = NULL;
    uint32_t cappath = 0;
    uint64_t total = 0;
    int rc = TRACE_ERR_NOMEM;
    if (!o)
        return rc;
    for (int r = 0; r < c->P; r++) {
        const struct dg_mpilog *g = c->logs[r];
        if (!g)
            continue;
        total += g->n;
        o[r] = malloc((g->n ? g->n : 1) * sizeof **o);
        if (!o[r])
            goto out;
        for (uint32_t i = 0; i < g->n; i++)
            o[r][i] = (struct dg_pos){NOT_SET, 0};
    }
    for (int r = 0; r < c->P; r++) {
        const struct dg_mpilog *g = c->logs[r];
        for (uint32_t i = 0; g && i < g->n; i++)
            if (g->rec[i].kind == DG_MSG_RECV && o[r][i].rank == NOT_SET &&
                origin_of(c, o, (struct dg_pos){r, i}, total, &path, &cappath) < 0)
                goto out;
    }
    rc = 0;
out:
    free(path);
    if (rc < 0) {
        for (int r = 0; r < c->P; r++)
            free(o[r]);
        free(o);
        o = NULL;
    }
    *out = o;
    return rc;
}

/* ---- broadcasts -------------------------------------------------------------------------------- */

static int oent_cmp(const void *pa, const void *pb)
{
    const struct oent *a = pa, *b = pb;
    if (a->origin.rank != b->origin.rank)
        return a->origin.rank < b->origin.rank ? -1 : 1;
    int c = coll_cmp_u64(a->origin.pos, b->origin.pos);
    if (c)
        return c;
    if (a->recv.rank != b->recv.rank)
        return a->recv.rank < b->recv.rank ? -1 : 1;
    return coll_cmp_u64(a->recv.pos, b->recv.pos);
}

static int osend_key_cmp(const void *pa, const void *pb)
{
    const struct osend *a = pa, *b = pb;
    if (a->root != b->root)
        return a->root < b->root ? -1 : 1;
    int c;
    if ((c = coll_cmp_u64(a->comm, b->comm)) || (c = coll_cmp_u64(a->buf, b->buf)) ||
        (c = coll_cmp_u64(a->bytes, b->bytes)) || (c = coll_cmp_u64(a->version, b->version)))
        return c;
    return coll_cmp_u64(a->pos, b->pos);
}

void coll_bcasts_free(struct bcasts *bc)
{
    free(bc->ents);
    free(bc->os);
    free(bc->b);
    free(bc->by_root);
    memset(bc, 0, sizeof *bc);
}

int coll_binst_parts(struct cx *c, const struct bcasts *bc, const struct binst *b, struct inst *in)
{
    int rc;
    for (uint32_t s = b->s0; s < b->s0 + b->ns; s++) {
        const struct osend *os = &bc->os[s];
        if ((rc = coll_inst_add(in, os->root, os->pos, true)) < 0)
            return rc;
        for (uint32_t e = os->e0; e < os->e0 + os->ne; e++) {
            struct dg_pos rv = bc->ents[e].recv;
            struct dg_pos sd = dg_match_peer(c->m, rv);
            if ((rc = coll_inst_add(in, rv.rank, rv.pos, false)) < 0)
                return rc;
            if (coll_valid(c, sd) && !(sd.rank == os->root && sd.pos == os->pos) &&
                (rc = coll_inst_add(in, sd.rank, sd.pos, false)) < 0)
                return rc;
        }
    }
    return 0;
}

static uint64_t sig_hash(const struct iloc *l, uint32_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (uint32_t i = 0; i < n; i++) {
        for (const char *s = l[i].loc.file; *s; s++)
            h = (h ^ (uint8_t)*s) * 1099511628211ull;
        uint64_t w[4] = {l[i].loc.line, l[i].loc.col, l[i].loc.site, l[i].mask & (LM_SEND | LM_RECV)};
        for (int k = 0; k < 4; k++)
            h = (h ^ w[k]) * 1099511628211ull;
    }
    return h;
}

/* A broadcast's signature, for grouping broadcasts into allgathers. */
static int binst_sig(struct cx *c, const struct bcasts *bc, struct binst *b)
{
    struct inst tmp = {0};
    struct iloc *locs;
    uint32_t nlocs;
    int rc;
    if ((rc = coll_binst_parts(c, bc, b, &tmp)) < 0) {
        free(tmp.v);
        return rc;
    }
    qsort(tmp.v, tmp.n, sizeof *tmp.v, coll_part_cmp);
    if ((rc = coll_inst_locs(c, &tmp, &locs, &nlocs)) < 0) {
        free(tmp.v);
        return rc;
    }
    b->sig = sig_hash(locs, nlocs) ^ b->comm;
    free(locs);
    free(tmp.v);
    return 0;
}

/* Finishes a broadcast candidate: kept if its receivers are every other
 * rank of the communicator, each once. */
static int binst_close(struct cx *c, struct bcasts *bc, uint32_t s0, uint32_t ns, bool bad, uint32_t nrecv)
{
    const struct osend *os = &bc->os[s0];
    const struct dg_msgrec *x = coll_rec(c, os->root, os->pos);
    if (bad || x->comm_size < 3 || nrecv != x->comm_size - 1 || !x->bytes)
        return 0;
    int rc;
    if ((rc = coll_grow(&bc->b, &bc->capb, (uint64_t)bc->nb + 1, sizeof *bc->b)) < 0)
        return rc;
    struct binst *b = &bc->b[bc->nb];
    *b = (struct binst){os->root, os->pos,    s0,           ns, x->comm, x->buf,
                        x->bytes, x->version, x->comm_size, 0,  false,   false};
    for (uint32_t s = s0; s < s0 + ns; s++) {
        if (bc->os[s].pos < b->first_pos)
            b->first_pos = bc->os[s].pos;
        for (uint32_t e = bc->os[s].e0; e < bc->os[s].e0 + bc->os[s].ne; e++) {
            struct dg_pos sd = dg_match_peer(c->m, bc->ents[e].recv);
            if (sd.rank != os->root)
                b->forwarded = true;
        }
    }
    if ((rc = binst_sig(c, bc, b)) < 0)
        return rc;
    bc->nb++;
    return 0;
}

int coll_bref_cmp(const void *pa, const void *pb)
{
    const struct bref *a = pa, *b = pb;
    int c = coll_cmp_u64(a->sig, b->sig);
    if (c)
        return c;
    if (a->root != b->root)
        return a->root < b->root ? -1 : 1;
    return coll_cmp_u64(a->first_pos, b->first_pos);
}

/* The messages received, by origin send (bc->ents), and the sends they
 * come from, by root, communicator, range, version and position (bc->os). */
static int origin_sends(struct cx *c, struct dg_pos **origin, struct bcasts *bc)
{
    uint64_t n = 0;
    for (int r = 0; r < c->P; r++)
        for (uint32_t i = 0; c->logs[r] && i < c->logs[r]->n; i++)
            n += origin[r][i].rank >= 0;
    bc->ents = malloc((n ? n : 1) * sizeof *bc->ents);
    bc->os = malloc((n ? n : 1) * sizeof *bc->os);
    if (!bc->ents || !bc->os)
        return TRACE_ERR_NOMEM;
    for (int r = 0; r < c->P; r++)
        for (uint32_t i = 0; c->logs[r] && i < c->logs[r]->n; i++) {
            struct dg_pos o = origin[r][i];
            if (o.rank < 0 || !coll_valid(c, o) || c->claimed[r][i] || c->claimed[o.rank][o.pos])
                continue;
            bc->ents[bc->nents++] = (struct oent){o, {r, i}};
        }
    qsort(bc->ents, bc->nents, sizeof *bc->ents, oent_cmp);
    for (uint32_t e = 0; e < bc->nents;) {
        uint32_t f = e;
        while (f < bc->nents && bc->ents[f].origin.rank == bc->ents[e].origin.rank &&
               bc->ents[f].origin.pos == bc->ents[e].origin.pos)
            f++;
        const struct dg_msgrec *x = coll_rec(c, bc->ents[e].origin.rank, bc->ents[e].origin.pos);
        bc->os[bc->nos++] = (struct osend){
            bc->ents[e].origin.rank, bc->ents[e].origin.pos, e, f - e, x->comm, x->buf, x->bytes, x->version};
        e = f;
    }
    qsort(bc->os, bc->nos, sizeof *bc->os, osend_key_cmp);
    return 0;
}

/* The broadcasts among the sends bc->os[a, b) of one root, communicator,
 * range and version, in send order: a broadcast closes where a receiver
 * would come again. */
static int root_bcasts(struct cx *c, struct bcasts *bc, uint32_t a, uint32_t b)
{
    int root = bc->os[a].root;
    uint32_t s0 = a, nrecv = 0;
    bool bad = false;
    int st = coll_next_stamp(c);
    int rc;
    for (uint32_t s = a; s < b; s++) {
        bool again = false;
        for (uint32_t e = bc->os[s].e0; e < bc->os[s].e0 + bc->os[s].ne; e++) {
            int q = bc->ents[e].recv.rank;
            if (q == root || c->stamp[q] == st)
                again = true;
        }
        if (again && s > s0) {
            if ((rc = binst_close(c, bc, s0, s - s0, bad, nrecv)) < 0)
                return rc;
            s0 = s;
            nrecv = 0;
            bad = false;
            st = coll_next_stamp(c);
        }
        for (uint32_t e = bc->os[s].e0; e < bc->os[s].e0 + bc->os[s].ne; e++) {
            int q = bc->ents[e].recv.rank;
            if (q == root || c->stamp[q] == st)
                bad = true; /* a rank gets the bytes twice within one send's chain */
            else {
                c->stamp[q] = st;
                nrecv++;
            }
        }
    }
    return binst_close(c, bc, s0, b - s0, bad, nrecv);
}

/* Indexes the broadcasts by (root, first send). */
static int bcasts_by_root(struct bcasts *bc)
{
    bc->by_root = malloc((bc->nb ? bc->nb : 1) * sizeof *bc->by_root);
    struct bref *t = malloc((bc->nb ? bc->nb : 1) * sizeof *t);
    if (!bc->by_root || !t) {
        free(t);
        return TRACE_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < bc->nb; i++)
        t[i] = (struct bref){0, bc->b[i].root, bc->b[i].first_pos, i};
    qsort(t, bc->nb, sizeof *t, coll_bref_cmp);
    for (uint32_t i = 0; i < bc->nb; i++)
        bc->by_root[i] = t[i].b;
    free(t);
    return 0;
}

int coll_bcasts_build(struct cx *c, struct bcasts *bc)
{
    struct dg_pos **origin = NULL;
    int rc;
    memset(bc, 0, sizeof *bc);
    if ((rc = origins_build(c, &origin)) < 0)
        return rc;
    if ((rc = origin_sends(c, origin, bc)) < 0)
        goto out;
    for (uint32_t a = 0; a < bc->nos;) {
        uint32_t b = a;
        const struct osend *xa = &bc->os[a];
        while (b < bc->nos && bc->os[b].root == xa->root && bc->os[b].comm == xa->comm &&
               bc->os[b].buf == xa->buf && bc->os[b].bytes == xa->bytes && bc->os[b].version == xa->version)
            b++;
        if ((rc = root_bcasts(c, bc, a, b)) < 0)
            goto out;
        a = b;
    }
    rc = bcasts_by_root(bc);
out:
    for (int r = 0; r < c->P; r++)
        free(origin[r]);
    free(origin);
    if (rc < 0)
        coll_bcasts_free(bc);
    return rc;
}
