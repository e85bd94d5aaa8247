/* deadlock.c - is an aggregation safe across ranks?  A group delays its
 * sends (to rank q) past blocking calls of its rank r (docs/dependence.md,
 * "Deadlock safety").  Delaying send s past a call w that waits for
 * something X from rank p deadlocks if q's receive of s happens before X
 * is sent: q cannot get s until r passes w, and r cannot pass w until q has
 * got s.  X is the matched send of a receive, or, for a collective, the
 * calls of the members it waits for.  A group of exchanges (Sendrecv)
 * also delays their receives: rank p's send of a delayed receive may
 * wait until the receive is posted (a synchronous or large send), so the
 * delay deadlocks if that send happens before X.  The happens-before
 * order of the recorded run (vector clocks over the matched messages)
 * decides. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search-private.h"

/* "file:line" of a site of rank r, or "an unknown line". */
static void where(const struct search_xrank *x, int r, uint32_t site, char *buf, size_t size)
{
    const struct trace_site_info *i = search_site_info(x->by_rank[r], site);
    if (i && i->file && *i->file) {
        const char *base = strrchr(i->file, '/');
        snprintf(buf, size, "%s:%" PRIu32, base ? base + 1 : i->file, i->line);
    } else {
        snprintf(buf, size, "an unknown line");
    }
}

/* The explanation of one forbidden delay. */
static char *explain(const struct search_xrank *x, struct dg_pos send, struct dg_pos recv,
                     struct dg_pos wait, struct dg_pos what)
{
    struct search_text t = {0};
    char a[256], b[256], c[256], d[256];
    const struct dg_msgrec *s = &x->logs[send.rank]->rec[send.pos];
    /* a delayed receive: recv is on this rank, send on the other */
    bool rhalf = s->kind == DG_MSG_RECV;
    const struct dg_msgrec *w = &x->logs[wait.rank]->rec[wait.pos];
    const struct dg_msgrec *v = &x->logs[what.rank]->rec[what.pos];
    where(x, send.rank, s->site, a, sizeof a);
    where(x, wait.rank, w->site, b, sizeof b);
    where(x, recv.rank, x->logs[recv.rank]->rec[recv.pos].site, c, sizeof c);
    where(x, what.rank, v->site, d, sizeof d);
    if (rhalf) {
        search_text_printf(&t, "delaying the %s at %s (rank %d from rank %d) past the %s at %s could deadlock: ",
            trace_mpi_call_name(s->call), a, send.rank, recv.rank, trace_mpi_call_name(w->call), b);
        search_text_printf(&t, "rank %d sends, at %s, the message received there (a send that may wait "
            "until the receive is posted)", recv.rank, c);
    } else {
        search_text_printf(&t, "delaying the %s at %s (rank %d to rank %d) past the %s at %s would deadlock: ",
            trace_mpi_call_name(s->call), a, send.rank, recv.rank, trace_mpi_call_name(w->call), b);
        search_text_printf(&t, "rank %d receives that message at %s", recv.rank, c);
    }
    struct dg_pos chain[64];
    size_t n = x->hb ? dg_hb_chain(x->hb, recv, what, chain, 64) : 0;
    for (size_t i = 0; i + 1 < n; i += 2) {
        const struct dg_msgrec *cs = &x->logs[chain[i].rank]->rec[chain[i].pos];
        const struct dg_msgrec *cr = &x->logs[chain[i + 1].rank]->rec[chain[i + 1].pos];
        char e[256], f[256];
        where(x, chain[i].rank, cs->site, e, sizeof e);
        where(x, chain[i + 1].rank, cr->site, f, sizeof f);
        search_text_printf(&t, ", then rank %d %s %s at %s, which rank %d %s at %s", chain[i].rank,
            cs->kind == DG_MSG_COLL ? "calls" : "sends with", trace_mpi_call_name(cs->call), e,
            chain[i + 1].rank, cr->kind == DG_MSG_COLL ? "joins" : "receives", f);
    }
    if (v->kind == DG_MSG_COLL)
        search_text_printf(&t, ", and only then calls the %s at %s that rank %d waits for there",
            trace_mpi_call_name(v->call), d, wait.rank);
    else
        search_text_printf(&t, ", and only then sends, at %s, the message rank %d waits for there", d, wait.rank);
    return search_text_take(&t);
}

/* What a blocking record w waits for: matched sends, or collective members. */
static size_t waits_for(const struct search_xrank *x, struct dg_pos w, struct dg_pos *out, size_t max)
{
    const struct dg_msgrec *r = &x->logs[w.rank]->rec[w.pos];
    size_t n = 0;
    if (r->kind == DG_MSG_RECV) {
        struct dg_pos s = dg_match_peer(x->match, w);
        if (s.rank >= 0 && max)
            out[n++] = s;
    } else if (r->kind == DG_MSG_COLL) {
        uint32_t nm = 0;
        const struct dg_pos *mem = dg_match_coll(x->match, dg_match_coll_of(x->match, w), &nm);
        bool root = r->flags & DG_MSGF_ROOT;
        int call = trace_mpi_call_base(r->call);
        bool to_root = call == CHT_MPI_REDUCE || call == CHT_MPI_GATHER || call == CHT_MPI_GATHERV;
        bool from_root = call == CHT_MPI_BCAST || call == CHT_MPI_SCATTER || call == CHT_MPI_SCATTERV;
        for (uint32_t k = 0; k < nm && n < max; k++) {
            if (mem[k].rank == w.rank)
                continue;
            bool mroot = x->logs[mem[k].rank]->rec[mem[k].pos].flags & DG_MSGF_ROOT;
            if ((from_root && !mroot) || (to_root && !root))
                continue; /* a rooted collective waits only for the root / the root for the others */
            out[n++] = mem[k];
        }
    }
    return n;
}

/* Whether delaying the member record `own` (a send, or an exchange's
 * receive) past w, which waits for what[0..nw), deadlocks: the other end
 * of its message (the receive of a send, the send of a receive) happens
 * before one of them.  1 with *why set, 0, or a negative error. */
static int delay_unsafe(const struct search_xrank *x, struct dg_pos own, struct dg_pos w,
                        const struct dg_pos *what, size_t nw, char **why)
{
    int kind = x->logs[own.rank]->rec[own.pos].kind;
    if (kind != DG_MSG_SEND && kind != DG_MSG_RECV)
        return 0;
    struct dg_pos other = dg_match_peer(x->match, own);
    if (other.rank < 0)
        return 0; /* never received, or never sent: nothing can wait on it */
    for (size_t i = 0; i < nw; i++) {
        if (dg_hb_before(x->hb, other, what[i]) || (other.rank == what[i].rank && other.pos < what[i].pos)) {
            *why = explain(x, own, other, w, what[i]);
            return *why ? 1 : TRACE_ERR_NOMEM;
        }
    }
    return 0;
}

int search_group_unsafe(const struct search_xrank *x, int r, uint32_t g, char **why)
{
    *why = NULL;
    const struct search_rank_result *res = r >= 0 && r < x->world_size ? x->by_rank[r] : NULL;
    if (!res)
        return 0;
    const struct dg_mpilog *log = &res->log;
    for (uint32_t c = 0; c < res->nchecks; c++) {
        const struct search_group_check *chk = &res->checks[c];
        if (chk->group != g)
            continue;
        if (!x->hb) {
            *why = strdup("its sends would be delayed past calls that wait for other ranks, and "
                          "the happens-before order of this run is too large to check them");
            return *why ? 1 : TRACE_ERR_NOMEM;
        }
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
                        int rc = delay_unsafe(x, (struct dg_pos){r, sp}, w, what, nw, why);
                        if (rc)
                            return rc;
                    }
                }
            }
        }
    }
    return 0;
}
