/* delays.c - which delays of the aggregation checks the happens-before
 * order forbids (docs/dependence.md, "Deadlock safety"; deadlock.c tells
 * why).  A check of rank r delays its member records (a send, or an
 * exchange's receive) past the blocking records of the calls it crosses;
 * delaying `own` past w, which waits for what[0..nw), is forbidden if the
 * other end of own's message happens before one of them (or comes before
 * it on the same rank).  A check's verdict is its first forbidden delay,
 * in the order of its crossings, then its members' records, then what w
 * waits for.
 *
 * Every process judges the checks of its ranks (search_deadlock_verdicts;
 * with one process, all of them): the delays and what they wait for are
 * taken from its ranks' logs (a receive waits for its matched send, which
 * the match's copy gives); what a collective waits for is known to the
 * instance's owner, so the delay goes there (a request), and the owner
 * asks about and judges it.  The pairs of every process are answered by
 * one spread replay (dg_hb_answer_dist); the owners send their judgements
 * back, in the order asked, and each process its forbidden delays to
 * process 0, which keeps them by (rank, check): the merges on process 0
 * read these verdicts, never a log. */
#include <stdlib.h>
#include <string.h>

#include "search-private.h"

/* ---- what a blocking record waits for ------------------------------------------ */

/* The members of instance ci (held here) that collective record w (its
 * record r) waits for. */
static size_t waits_for_coll(const struct search_xrank *x, struct dg_pos w, const struct dg_msgrec *r, uint32_t ci,
                             struct dg_pos *out, size_t max)
{
    size_t n = 0;
    uint32_t nm = 0;
    const struct dg_pos *mem = dg_match_coll(x->match, ci, &nm);
    bool root = r->flags & DG_MSGF_ROOT;
    int call = trace_mpi_call_base(r->call);
    bool to_root = call == CHT_MPI_REDUCE || call == CHT_MPI_GATHER || call == CHT_MPI_GATHERV;
    bool from_root = call == CHT_MPI_BCAST || call == CHT_MPI_SCATTER || call == CHT_MPI_SCATTERV;
    for (uint32_t k = 0; k < nm && n < max; k++) {
        if (mem[k].rank == w.rank)
            continue;
        const struct dg_msgrec *y = dg_match_rec(x->match, mem[k]);
        bool mroot = y && (y->flags & DG_MSGF_ROOT);
        if ((from_root && !mroot) || (to_root && !root))
            continue; /* a rooted collective waits only for the root / the root for the others */
        out[n++] = mem[k];
    }
    return n;
}

/* What a blocking record w waits for: matched sends, or collective members
 * (none here if its instance is another process's). */
static size_t waits_for(const struct search_xrank *x, struct dg_pos w, struct dg_pos *out, size_t max)
{
    const struct dg_msgrec *r = &x->logs[w.rank]->rec[w.pos];
    if (r->kind == DG_MSG_RECV) {
        struct dg_pos s = dg_match_peer(x->match, w);
        if (s.rank >= 0 && max) {
            out[0] = s;
            return 1;
        }
    } else if (r->kind == DG_MSG_COLL) {
        return waits_for_coll(x, w, r, dg_match_coll_of(x->match, w), out, max);
    }
    return 0;
}

/* ---- the delays of a check ---------------------------------------------------------- */

/* A delay of a check: own (whose message's other end is `other`) past w.
 * What w waits for is what[off .. off + n) here (to < 0), or judged by
 * process `to`, the instance's owner, as its off-th request from here. */
struct delay {
    int32_t rank;
    uint32_t check;
    struct dg_pos own, other, w;
    int32_t to;
    uint32_t off, n;
};

/* A request to an instance's owner: a delay past its member w. */
struct qreq {
    struct dg_pos other, w;
    uint32_t ci, pad;
};

/* A request an owner got: from process `from`; what w waits for is
 * what[off .. off + n). */
struct oreq {
    int32_t from;
    struct dg_pos other;
    uint32_t off, n;
};

struct judging {
    const struct search_xrank *x;
    int me, K;
    int32_t rank; /* the check being enumerated */
    uint32_t check;
    struct delay *d;
    size_t nd, capd;
    struct oreq *o;
    size_t no, capo;
    struct dg_pos *what;
    size_t nwhat, capwhat;
    struct dg_hb_query *q; /* the pairs this process asks */
    size_t nq, capq;
    uint8_t *ans;
    uint32_t *nsent;       /* [K]: requests to each process */
    struct dg_bytes *out, *in;
};

/* Room for one more of n elements of `size` bytes in *pp (*cap of them). */
static bool more(void *pp, size_t n, size_t *cap, size_t size)
{
    void **p = pp;
    if (n < *cap)
        return true;
    size_t nc = *cap ? *cap * 2 : 64;
    void *q = realloc(*p, nc * size);
    if (!q)
        return false;
    *p = q;
    *cap = nc;
    return true;
}

/* What w waits for, kept (what[]), and the pairs about it asked. */
static int keep_what(struct judging *J, struct dg_pos other, const struct dg_pos *what, size_t nw, uint32_t *off)
{
    *off = (uint32_t)J->nwhat;
    for (size_t i = 0; i < nw; i++) {
        if (!more(&J->what, J->nwhat, &J->capwhat, sizeof *J->what))
            return TRACE_ERR_NOMEM;
        J->what[J->nwhat++] = what[i];
        if (what[i].rank == other.rank)
            continue; /* on one rank: the log order says */
        if (!more(&J->q, J->nq, &J->capq, sizeof *J->q))
            return TRACE_ERR_NOMEM;
        J->q[J->nq++] = (struct dg_hb_query){other, what[i]};
    }
    return 0;
}

/* each_delay's callback: the delay kept, what it waits for kept here or
 * asked of the instance's owner. */
static int collect(const struct search_xrank *x, struct dg_pos own, struct dg_pos w, const struct dg_pos *what,
                   size_t nw, void *ctx)
{
    struct judging *J = ctx;
    int kind = x->logs[own.rank]->rec[own.pos].kind;
    if (kind != DG_MSG_SEND && kind != DG_MSG_RECV)
        return 0;
    struct dg_pos other = dg_match_peer(x->match, own);
    if (other.rank < 0)
        return 0; /* never received, or never sent: nothing can wait on it */
    const struct dg_msgrec *wr = &x->logs[w.rank]->rec[w.pos];
    uint32_t ci = wr->kind == DG_MSG_COLL ? dg_match_coll_of(x->match, w) : UINT32_MAX;
    int to = ci != UINT32_MAX ? dg_match_coll_owner(x->match, ci) : J->me;
    if (to < 0 || to >= J->K)
        return 0;
    if (!more(&J->d, J->nd, &J->capd, sizeof *J->d))
        return TRACE_ERR_NOMEM;
    struct delay *d = &J->d[J->nd++];
    *d = (struct delay){J->rank, J->check, own, other, w, -1, 0, 0};
    if (to == J->me) {
        d->n = (uint32_t)nw;
        return keep_what(J, other, what, nw, &d->off);
    }
    struct qreq r = {other, w, ci, 0};
    d->to = to;
    d->off = J->nsent[to]++;
    return dg_bytes_put(&J->out[to], &r, sizeof r) ? 0 : TRACE_ERR_NOMEM;
}

int search_each_delay(const struct search_xrank *x, int r, const struct search_group_check *chk,
                      search_delay_fn fn, void *ctx)
{
    const struct dg_mpilog *log = x->logs[r];
    for (uint32_t k = 0; k < chk->ncross; k++) {
        /* the blocking records of the crossed call: the call itself and
         * the receives a Wait completed */
        for (uint32_t wp = dg_mpilog_find(log, chk->cross[k]);
             wp < log->n && log->rec[wp].index == chk->cross[k]; wp++) {
            struct dg_pos w = {r, wp}, what[64];
            size_t nw = waits_for(x, w, what, 64);
            for (uint32_t m = 0; m < chk->nmembers; m++) {
                if (chk->members[m] >= chk->cross[k])
                    continue; /* not delayed past it */
                /* the member's records: its send, and an exchange's receive */
                for (uint32_t sp = dg_mpilog_find(log, chk->members[m]);
                     sp < log->n && log->rec[sp].index == chk->members[m]; sp++) {
                    int rc = fn(x, (struct dg_pos){r, sp}, w, what, nw, ctx);
                    if (rc)
                        return rc;
                }
            }
        }
    }
    return 0;
}

/* The requests other processes sent here: what each w waits for, and the
 * pairs about it asked. */
static int take_requests(struct judging *J)
{
    int rc = 0;
    for (int p = 0; rc == 0 && p < J->K; p++)
        for (size_t off = 0; rc == 0 && off + sizeof(struct qreq) <= J->in[p].len; off += sizeof(struct qreq)) {
            struct qreq r;
            struct dg_pos what[64];
            memcpy(&r, J->in[p].p + off, sizeof r);
            const struct dg_msgrec *wr = dg_match_rec(J->x->match, r.w);
            size_t nw = wr ? waits_for_coll(J->x, r.w, wr, r.ci, what, 64) : 0;
            if (!more(&J->o, J->no, &J->capo, sizeof *J->o))
                return TRACE_ERR_NOMEM;
            struct oreq *o = &J->o[J->no++];
            *o = (struct oreq){p, r.other, 0, (uint32_t)nw};
            rc = keep_what(J, r.other, what, nw, &o->off);
        }
    return rc;
}

/* ---- judging -------------------------------------------------------------------------- */

/* A pair and its answer, sorted by the pair. */
struct pa {
    struct dg_hb_query q;
    uint8_t ans;
};

static int pa_cmp(const void *pa, const void *pb)
{
    const struct pa *a = pa, *b = pb;
    int c = dg_pos_cmp(a->q.a, b->q.a);
    return c ? c : dg_pos_cmp(a->q.b, b->q.b);
}

/* The first of what[0..n) that `other` comes before: on its rank, or by
 * the answers (sorted); DG_POS_NONE if none. */
static struct dg_pos forbidding(const struct pa *v, size_t nv, struct dg_pos other, const struct dg_pos *what,
                                size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (other.rank == what[i].rank) {
            if (other.pos < what[i].pos)
                return what[i];
            continue;
        }
        struct pa key = {{other, what[i]}, 0};
        const struct pa *f = bsearch(&key, v, nv, sizeof key, pa_cmp);
        if (f && f->ans == 1)
            return what[i];
    }
    return DG_POS_NONE;
}

static int verdict_cmp(const void *pa, const void *pb)
{
    const struct search_check_verdict *a = pa, *b = pb;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return a->check < b->check ? -1 : a->check > b->check;
}

/* The owners' judgements of the requests, back to their askers (in J->in,
 * in the order asked). */
static int reply(struct judging *J, const struct pa *v, size_t nv)
{
    const struct dg_xchg *xc = J->x->xchg;
    int st = 0;
    for (size_t i = 0; i < J->no && st == 0; i++) {
        const struct oreq *o = &J->o[i];
        struct dg_pos f = forbidding(v, nv, o->other, o->n ? J->what + o->off : NULL, o->n);
        if (!dg_bytes_put(&J->out[o->from], &f, sizeof f))
            st = TRACE_ERR_NOMEM;
    }
    int rc = xc->alltoall(xc->ctx, st, J->out, J->in);
    return rc < 0 ? rc : 0;
}

/* Each delay of this process judged, and a check's first forbidden one
 * kept as its verdict (*vout, *nvout). */
static int judge(const struct judging *J, const struct pa *v, size_t nv, struct search_check_verdict **vout,
                 size_t *nvout)
{
    struct search_check_verdict *vv = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < J->nd; i++) {
        const struct delay *d = &J->d[i];
        if (n && vv[n - 1].rank == d->rank && vv[n - 1].check == d->check)
            continue; /* its check has its verdict */
        struct dg_pos f = DG_POS_NONE;
        if (d->to < 0)
            f = forbidding(v, nv, d->other, d->n ? J->what + d->off : NULL, d->n);
        else if (J->in[d->to].len >= ((size_t)d->off + 1) * sizeof f)
            memcpy(&f, J->in[d->to].p + (size_t)d->off * sizeof f, sizeof f);
        if (f.rank < 0)
            continue;
        if (!more(&vv, n, &cap, sizeof *vv)) {
            free(vv);
            return TRACE_ERR_NOMEM;
        }
        vv[n++] = (struct search_check_verdict){d->rank, d->check, d->own, d->other, d->w, f};
    }
    *vout = vv;
    *nvout = n;
    return 0;
}

/* Every process's verdicts (this one's: v[0..n), or status st) to
 * process 0 (x->verdicts, sorted); every process gets the status. */
static int gather(struct judging *J, struct search_check_verdict *v, size_t n, int st)
{
    struct search_xrank *x = (struct search_xrank *)J->x;
    const struct dg_xchg *xc = x->xchg;
    if (st == 0 && xc->proc != 0 && n && !dg_bytes_put(&J->out[0], v, n * sizeof *v))
        st = TRACE_ERR_NOMEM;
    int rc = xc->alltoall(xc->ctx, st, J->out, J->in);
    if (rc < 0)
        return rc;
    if (xc->proc != 0)
        return dg_xchg_agree(xc, 0);
    size_t all = n;
    for (int q = 1; q < J->K; q++)
        all += J->in[q].len / sizeof *v;
    x->verdicts = malloc((all ? all : 1) * sizeof *v);
    if (!x->verdicts)
        return dg_xchg_agree(xc, TRACE_ERR_NOMEM);
    if (n)
        memcpy(x->verdicts, v, n * sizeof *v);
    x->nverdicts = n;
    for (int q = 1; q < J->K; q++) {
        size_t k = J->in[q].len / sizeof *v;
        if (k)
            memcpy(x->verdicts + x->nverdicts, J->in[q].p, k * sizeof *v);
        x->nverdicts += k;
    }
    if (x->nverdicts > 1)
        qsort(x->verdicts, x->nverdicts, sizeof *v, verdict_cmp);
    return dg_xchg_agree(xc, 0);
}

static void free_in(struct judging *J)
{
    for (int q = 0; q < J->K; q++)
        dg_bytes_free(&J->in[q]);
}

/* The pairs answered, sorted with their answers (*v). */
static int answer(struct judging *J, struct pa **v)
{
    const struct search_xrank *x = J->x;
    J->ans = malloc(J->nq ? J->nq : 1);
    *v = malloc((J->nq ? J->nq : 1) * sizeof **v);
    int rc = dg_xchg_agree(x->xchg, J->ans && *v ? 0 : TRACE_ERR_NOMEM);
    if (rc == 0)
        rc = dg_hb_answer_dist(x->logs, x->world_size, x->match, x->owner, x->xchg, J->q, J->nq, J->ans);
    for (size_t i = 0; rc == 0 && i < J->nq; i++)
        (*v)[i] = (struct pa){J->q[i], J->ans[i]};
    if (rc == 0 && J->nq > 1)
        qsort(*v, J->nq, sizeof **v, pa_cmp);
    return rc;
}

int search_deadlock_verdicts(struct search_xrank *x)
{
    const struct dg_xchg *xc = x->xchg;
    struct judging J = {.x = x, .me = xc->proc, .K = xc->nprocs};
    J.out = dg_bytes_per_proc(J.K);
    J.in = dg_bytes_per_proc(J.K);
    J.nsent = calloc((size_t)J.K, sizeof *J.nsent);
    int rc = dg_xchg_agree(xc, J.out && J.in && J.nsent ? 0 : TRACE_ERR_NOMEM);
    bool go = rc == 0; /* on every process alike */
    for (int r = 0; rc == 0 && r < x->world_size; r++) {
        const struct search_rank_result *res = x->logs[r] ? x->by_rank[r] : NULL;
        for (uint32_t c = 0; rc == 0 && res && c < res->nchecks; c++) {
            J.rank = r;
            J.check = c;
            if (!search_check_truncated(&res->checks[c]))
                rc = search_each_delay(x, r, &res->checks[c], collect, &J);
        }
    }
    struct pa *v = NULL;
    struct search_check_verdict *mine = NULL;
    size_t nmine = 0;
    if (go) {
        rc = xc->alltoall(xc->ctx, rc, J.out, J.in);
        if (rc >= 0)
            rc = dg_xchg_agree(xc, take_requests(&J));
        free_in(&J);
        if (rc >= 0)
            rc = answer(&J, &v);
        if (rc >= 0)
            rc = reply(&J, v, J.nq);
        if (rc >= 0) {
            int st = judge(&J, v, J.nq, &mine, &nmine);
            free_in(&J);
            rc = gather(&J, mine, nmine, st);
        }
        free_in(&J);
    }
    dg_bytes_per_proc_free(J.out, J.K);
    dg_bytes_per_proc_free(J.in, J.K);
    free(J.nsent);
    free(J.d);
    free(J.o);
    free(J.what);
    free(J.q);
    free(J.ans);
    free(v);
    free(mine);
    return rc < 0 ? rc : 0;
}

const struct search_check_verdict *search_check_verdict(const struct search_xrank *x, int r, uint32_t c)
{
    struct search_check_verdict key = {r, c, DG_POS_NONE, DG_POS_NONE, DG_POS_NONE, DG_POS_NONE};
    return x->nverdicts ? bsearch(&key, x->verdicts, x->nverdicts, sizeof key, verdict_cmp) : NULL;
}
