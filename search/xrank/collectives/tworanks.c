/* tworanks.c - for --explain: point-to-point call sites the collective
 * search does not look at because every message they move travels on a
 * communicator of two ranks (docs/collectives.md, "Two ranks per
 * communicator").  There every round is one message, which a collective
 * would send too, so no pattern is searched; without this, a hand-written
 * broadcast along the rows of a 2x2 process grid gets no hint and no word
 * why.
 *
 * One dropped entry per pair of sending and receiving call sites whose
 * matched messages all travel on communicators of exactly two ranks, at
 * the send, over all ranks and messages.  None in a run of two ranks in
 * all (every message would get one, and the rank count says it already),
 * none for a site that also moves data on a communicator of another size
 * (it is searched there), and none for a site that already has a
 * collective hint or a rejected reduce.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "collectives-private.h"

/* A matched message of one sending rank on a communicator of two ranks. */
struct tmsg {
    uint32_t ssite, rsite; /* the sender's and the receiver's call site ids */
    int32_t rrank;         /* the receiving rank */
    uint32_t spos, rpos;   /* log positions of the send and the receive */
};

/* A pair of call sites, over ranks and messages. */
struct tpair {
    struct loc send, recv;
    uint16_t scall, rcall;
    uint64_t messages;
    uint8_t *ranks; /* [P] */
};

struct two {
    struct dg_map *wide; /* [P] site ids of a rank that move data on a communicator of another size */
    struct tmsg *m;      /* scratch: one rank's messages */
    uint32_t nm, capm;
    struct tpair *v;
    uint32_t n, cap;
    struct loc *searched; /* sites searched or already reported: sorted */
    uint32_t ns, caps;
};

static void two_free(struct two *t, int P)
{
    if (t->wide)
        for (int r = 0; r < P; r++)
            dg_map_free(&t->wide[r]);
    free(t->wide);
    free(t->m);
    for (uint32_t i = 0; i < t->n; i++)
        free(t->v[i].ranks);
    free(t->v);
    free(t->searched);
}

static int tmsg_cmp(const void *pa, const void *pb)
{
    const struct tmsg *a = pa, *b = pb;
    int c;
    if ((c = coll_cmp_u64(a->ssite, b->ssite)) ||
        (c = coll_cmp_u64((uint32_t)a->rrank, (uint32_t)b->rrank)) || (c = coll_cmp_u64(a->rsite, b->rsite)))
        return c;
    return coll_cmp_u64(a->spos, b->spos);
}

static int tpair_cmp(const void *pa, const void *pb)
{
    const struct tpair *a = pa, *b = pb;
    int c = coll_loc_cmp(&a->send, &b->send);
    return c ? c : coll_loc_cmp(&a->recv, &b->recv);
}

static int loc_qcmp(const void *pa, const void *pb)
{
    return coll_loc_cmp(pa, pb);
}

static int mark_wide(struct two *t, int rank, uint32_t site)
{
    return dg_map_put(&t->wide[rank], site, 1) ? 0 : TRACE_ERR_NOMEM;
}

/* One rank's records: the matched messages it sends on communicators of
 * two ranks into t->m, and the sites of the other messages into t->wide
 * (a message's size is its send's: a receive completed by a Wait does not
 * carry its communicator's).  It reads the whole logs: records the
 * patterns did not look at (candidates.c) count, only those in a hint's
 * instances are left out. */
static int scan_rank(const struct cx *c, struct two *t, int s)
{
    const struct dg_mpilog *g = c->logs[s];
    t->nm = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        const struct dg_msgrec *x = &g->rec[i];
        if ((x->kind != DG_MSG_SEND && x->kind != DG_MSG_RECV) || c->claimed[s][i] == CLAIM_FOUND)
            continue;
        struct dg_pos pp = dg_match_peer(c->m, (struct dg_pos){s, i});
        bool matched = coll_valid(c, pp) && c->claimed[pp.rank][pp.pos] != CLAIM_FOUND;
        int rc = 0;
        if (x->kind == DG_MSG_RECV) {
            /* a matched receive is seen from its send */
            if (!matched && x->comm_size != 2)
                rc = mark_wide(t, s, x->site);
        } else if (x->comm_size != 2) {
            if ((rc = mark_wide(t, s, x->site)) >= 0 && matched)
                rc = mark_wide(t, pp.rank, coll_rec(c, pp.rank, pp.pos)->site);
        } else if (matched) {
            if ((rc = coll_grow(&t->m, &t->capm, (uint64_t)t->nm + 1, sizeof *t->m)) >= 0)
                t->m[t->nm++] =
                    (struct tmsg){x->site, coll_rec(c, pp.rank, pp.pos)->site, pp.rank, i, pp.pos};
        }
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Adds the messages of t->m[a, b) (one sending site, receiving rank and
 * site) to the pair of their locations. */
static int add_pair(const struct cx *c, struct two *t, int s, uint32_t a, uint32_t b)
{
    const struct tmsg *e = &t->m[a];
    struct tpair key = {0};
    coll_loc_of(c, s, e->ssite, &key.send);
    coll_loc_of(c, e->rrank, e->rsite, &key.recv);
    struct tpair *p = NULL;
    for (uint32_t i = 0; i < t->n && !p; i++)
        if (!tpair_cmp(&t->v[i], &key))
            p = &t->v[i];
    if (!p) {
        if (coll_grow(&t->v, &t->cap, (uint64_t)t->n + 1, sizeof *t->v) < 0 ||
            !(key.ranks = calloc((size_t)c->P, 1)))
            return TRACE_ERR_NOMEM;
        key.scall = coll_rec_call(coll_rec(c, s, e->spos));
        key.rcall = coll_rec_call(coll_rec(c, e->rrank, e->rpos));
        p = &t->v[t->n++];
        *p = key;
    }
    p->messages += b - a;
    p->ranks[s] = 1;
    p->ranks[e->rrank] = 1;
    return 0;
}

static int add_searched(struct two *t, const struct loc *l)
{
    if (coll_grow(&t->searched, &t->caps, (uint64_t)t->ns + 1, sizeof *t->searched) < 0)
        return TRACE_ERR_NOMEM;
    t->searched[t->ns++] = *l;
    return 0;
}

/* The sites searched for collectives or already reported: those moving
 * data on communicators of other sizes, those of the hints and of the
 * rejected reduces (sorted for bsearch). */
static int collect_searched(const struct cx *c, struct two *t)
{
    int rc = 0;
    for (int r = 0; r < c->P && rc >= 0; r++)
        for (size_t i = 0; i < t->wide[r].cap && rc >= 0; i++)
            if (dg_map_used(&t->wide[r], i)) {
                struct loc l;
                coll_loc_of(c, r, (uint32_t)t->wide[r].keys[i], &l);
                rc = add_searched(t, &l);
            }
    for (uint32_t i = 0; i < c->nh && rc >= 0; i++)
        for (uint32_t k = 0; k < c->h[i].nlocs && rc >= 0; k++)
            rc = add_searched(t, &c->h[i].locs[k].loc);
    for (uint32_t i = 0; i < c->nrej && rc >= 0; i++)
        rc = add_searched(t, &c->rej[i].recv);
    if (rc >= 0 && t->ns)
        qsort(t->searched, t->ns, sizeof *t->searched, loc_qcmp);
    return rc;
}

static bool is_searched(const struct two *t, const struct loc *l)
{
    return t->ns && bsearch(l, t->searched, t->ns, sizeof *t->searched, loc_qcmp);
}

/* "the MPI_Send calls at line 40 and the MPI_Recv calls at line 45 move
 * data only between the two ranks of their communicator (6 messages)". */
static char *pair_message(const struct tpair *p)
{
    struct search_text b = {0};
    search_text_printf(&b, "the %s calls at line %u", trace_mpi_call_name(p->scall), p->send.line);
    if (coll_loc_cmp(&p->send, &p->recv)) {
        const char *f = strrchr(p->recv.file, '/');
        f = f ? f + 1 : p->recv.file;
        search_text_printf(&b, " and the %s calls at ", trace_mpi_call_name(p->rcall));
        if (strcmp(p->recv.file, p->send.file))
            search_text_printf(&b, "%s:", *f ? f : "??");
        else
            search_text_printf(&b, "line ");
        search_text_printf(&b, "%u", p->recv.line);
    }
    search_text_printf(&b,
                       " move data only between the two ranks of their communicator (%" PRIu64 " message%s)",
                       p->messages, p->messages == 1 ? "" : "s");
    return search_text_take(&b);
}

static const char pair_explain[] =
    "each round is one message, which a collective on two ranks (MPI_Bcast, MPI_Scatter, MPI_Gather, "
    "MPI_Reduce) would send too: nothing to gain; with 3 or more ranks per communicator these sites are "
    "checked for collectives";

/* The kept pairs, sorted, as dropped hints appended to *out. */
static int pairs_hints(const struct cx *c, struct two *t, struct search_hint **out, uint32_t *nout)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        if (is_searched(t, &t->v[i].send) || is_searched(t, &t->v[i].recv)) {
            free(t->v[i].ranks);
            continue;
        }
        t->v[k++] = t->v[i];
    }
    t->n = k;
    if (t->n)
        qsort(t->v, t->n, sizeof *t->v, tpair_cmp);
    for (uint32_t i = 0; i < t->n; i++) {
        const struct tpair *p = &t->v[i];
        int rc = coll_dropped_add(c, out, nout, &p->send, p->scall, NULL, -1, p->messages, p->ranks,
                                  pair_message(p), strdup(pair_explain));
        if (rc < 0)
            return rc;
    }
    return 0;
}

int coll_two_ranks_hints(const struct cx *c, struct search_hint **out, uint32_t *nout)
{
    struct two t = {0};
    int rc = 0;
    if (c->P <= 2)
        return 0;
    if (!(t.wide = calloc((size_t)c->P, sizeof *t.wide))) {
        rc = TRACE_ERR_NOMEM;
        goto out;
    }
    for (int s = 0; s < c->P; s++) {
        if (!c->logs[s])
            continue;
        if ((rc = scan_rank(c, &t, s)) < 0)
            goto out;
        if (t.nm)
            qsort(t.m, t.nm, sizeof *t.m, tmsg_cmp);
        for (uint32_t a = 0, b; a < t.nm; a = b) {
            for (b = a + 1; b < t.nm && t.m[b].ssite == t.m[a].ssite && t.m[b].rrank == t.m[a].rrank &&
                            t.m[b].rsite == t.m[a].rsite;
                 b++)
                ;
            if ((rc = add_pair(c, &t, s, a, b)) < 0)
                goto out;
        }
    }
    if ((rc = collect_searched(c, &t)) >= 0)
        rc = pairs_hints(c, &t, out, nout);
out:
    two_free(&t, c->P);
    return rc;
}
