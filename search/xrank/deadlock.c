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
 * order of the recorded run decides (delays.c: every process judges its
 * ranks' checks, and process 0 keeps the verdicts).
 *
 * That judges a change on one rank with the others running as recorded.
 * But a hint changes source lines, and every rank that runs them changes
 * with it: the hint's groups on all its ranks are applied at once to the
 * matched logs, and the changed run is replayed (dg_stall_check); if it
 * stalls, the wait cycle it stalled on is the explanation (ranks in pairs
 * that each send, then receive the other's message, then send again: each
 * rank alone may delay its first send, all of them together deadlock). */
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

/* The explanation of one forbidden delay (*why, malloc'ed): its records
 * and the chain of messages between recv and what, described where their
 * ranks' logs are.  0 or a negative status. */
static int explain(const struct search_xrank *x, struct dg_pos send, struct dg_pos recv, struct dg_pos wait,
                   struct dg_pos what, char **why)
{
    enum { SEND, WAIT, RECV, WHAT, CHAIN, MAXCHAIN = 64 };
    struct dg_pos pos[CHAIN + MAXCHAIN] = {[SEND] = send, [WAIT] = wait, [RECV] = recv, [WHAT] = what};
    struct search_rec_desc d[CHAIN + MAXCHAIN];
    size_t n = 0;
    int rc = search_xrank_chain(x, recv, what, pos + CHAIN, MAXCHAIN, &n);
    if (rc < 0 || (rc = search_xrank_describe(x, pos, CHAIN + n, d)) < 0)
        return rc;
    struct search_text t = {0};
    char a[256], b[256], c[256], e[256];
    /* a delayed receive: recv is on this rank, send on the other */
    bool rhalf = d[SEND].kind == DG_MSG_RECV;
    where(x, send.rank, d[SEND].site, a, sizeof a);
    where(x, wait.rank, d[WAIT].site, b, sizeof b);
    where(x, recv.rank, d[RECV].site, c, sizeof c);
    where(x, what.rank, d[WHAT].site, e, sizeof e);
    if (rhalf) {
        search_text_printf(&t, "delaying the %s at %s (rank %d from rank %d) past the %s at %s could deadlock: ",
            trace_mpi_call_name(d[SEND].call), a, send.rank, recv.rank, trace_mpi_call_name(d[WAIT].call), b);
        search_text_printf(&t, "rank %d sends, at %s, the message received there (a send that may wait "
            "until the receive is posted)", recv.rank, c);
    } else {
        search_text_printf(&t, "delaying the %s at %s (rank %d to rank %d) past the %s at %s would deadlock: ",
            trace_mpi_call_name(d[SEND].call), a, send.rank, recv.rank, trace_mpi_call_name(d[WAIT].call), b);
        search_text_printf(&t, "rank %d receives that message at %s", recv.rank, c);
    }
    for (size_t i = CHAIN; i + 1 < CHAIN + n; i += 2) {
        const struct search_rec_desc *cs = &d[i], *cr = &d[i + 1];
        char f[256], g[256];
        where(x, pos[i].rank, cs->site, f, sizeof f);
        where(x, pos[i + 1].rank, cr->site, g, sizeof g);
        search_text_printf(&t, ", then rank %d %s %s at %s, which rank %d %s at %s", pos[i].rank,
            cs->kind == DG_MSG_COLL ? "calls" : "sends with", trace_mpi_call_name(cs->call), f,
            pos[i + 1].rank, cr->kind == DG_MSG_COLL ? "joins" : "receives", g);
    }
    if (d[WHAT].kind == DG_MSG_COLL)
        search_text_printf(&t, ", and only then calls the %s at %s that rank %d waits for there",
            trace_mpi_call_name(d[WHAT].call), e, wait.rank);
    else
        search_text_printf(&t, ", and only then sends, at %s, the message rank %d waits for there", e, wait.rank);
    *why = search_text_take(&t);
    return *why ? 0 : TRACE_ERR_NOMEM;
}

int search_group_unsafe(const struct search_xrank *x, int r, uint32_t g, char **why)
{
    *why = NULL;
    const struct search_rank_result *res = r >= 0 && r < x->world_size ? x->by_rank[r] : NULL;
    if (!res)
        return 0;
    for (uint32_t c = 0; c < res->nchecks; c++) {
        const struct search_group_check *chk = &res->checks[c];
        if (chk->group != g)
            continue;
        if (search_check_truncated(chk)) {
            *why = strdup("it would delay sends past calls that wait for other ranks, more sends or "
                          "calls than the deadlock check keeps (64 of each): not proven safe");
            return *why ? 1 : TRACE_ERR_NOMEM;
        }
        const struct search_check_verdict *v = search_check_verdict(x, r, c);
        if (v) {
            int rc = explain(x, v->own, v->other, v->w, v->what, why);
            return rc < 0 ? rc : 1;
        }
    }
    return 0;
}

/* ---- the hint applied on every rank at once --------------------------------- */

struct moves {
    struct dg_move **mv;
    uint32_t *n, *cap;
};

static int move_push(struct moves *M, int r, uint32_t pos, uint32_t after)
{
    if (M->n[r] == M->cap[r]) {
        uint32_t nc = M->cap[r] ? M->cap[r] * 2 : 16;
        struct dg_move *p = realloc(M->mv[r], nc * sizeof *p);
        if (!p)
            return TRACE_ERR_NOMEM;
        M->mv[r] = p;
        M->cap[r] = nc;
    }
    M->mv[r][M->n[r]++] = (struct dg_move){pos, after};
    return 0;
}

/* The moves of group g of rank r: each check's members before its last
 * crossing go right after that crossing's records (the kind's facts of
 * the log: search_group_check.move_off). */
static int group_moves(const struct search_xrank *x, int r, uint32_t g, struct moves *M)
{
    const struct search_rank_result *res = x->by_rank[r];
    for (uint32_t c = 0; c < res->nchecks; c++) {
        const struct search_group_check *chk = &res->checks[c];
        if (chk->group != g)
            continue;
        for (uint32_t k = 0; k < chk->nmoves; k++) {
            const struct dg_move *m = &res->check_moves[chk->move_off + k];
            if (move_push(M, r, m->pos, m->after) < 0)
                return TRACE_ERR_NOMEM;
        }
    }
    return 0;
}

/* The record a moved record was moved after, if it was. */
static bool moved_after(const struct moves *M, struct dg_pos p, struct dg_pos *after)
{
    for (uint32_t i = 0; i < M->n[p.rank]; i++)
        if (M->mv[p.rank][i].pos == p.pos) {
            *after = (struct dg_pos){p.rank, M->mv[p.rank][i].after};
            return true;
        }
    return false;
}

/* One step of the wait cycle: rank `at.rank` cannot pass `at` (ra), which
 * waits for `w` (rw) on another rank; w moved past `after` (rf: known if
 * it was). */
static void cycle_step(struct search_text *t, const struct search_xrank *x, struct dg_pos at, struct dg_pos w,
                       struct dg_pos after, const struct search_rec_desc *ra, const struct search_rec_desc *rw,
                       const struct search_rec_desc *rf)
{
    char a[256], b[256], c[256];
    where(x, at.rank, ra->site, a, sizeof a);
    where(x, w.rank, rw->site, b, sizeof b);
    if (ra->kind == DG_MSG_SEND) /* a send whose receive is delayed */
        search_text_printf(t, "rank %d's %s at %s waits until rank %d posts the receive at %s "
                           "(a send that may wait so)", at.rank, trace_mpi_call_name(ra->call), a, w.rank, b);
    else if (ra->kind == DG_MSG_COLL)
        search_text_printf(t, "rank %d waits in the %s at %s for rank %d to reach its %s at %s", at.rank,
                           trace_mpi_call_name(ra->call), a, w.rank, trace_mpi_call_name(rw->call), b);
    else
        search_text_printf(t, "rank %d waits in the %s at %s for the message rank %d sends with the %s at %s",
                           at.rank, trace_mpi_call_name(ra->call), a, w.rank, trace_mpi_call_name(rw->call), b);
    if (rf->known) {
        where(x, after.rank, rf->site, c, sizeof c);
        search_text_printf(t, ", which the change delays past its %s at %s", trace_mpi_call_name(rf->call), c);
    }
}

#define CYCLE_STEPS 8 /* steps of a wait cycle told, then "..." */

/* The explanation of a stalled changed run: the wait cycle reached from a
 * rank the change moves records of. */
static char *cycle_explain(const struct search_xrank *x, const struct moves *M, const struct dg_stall_wait *b)
{
    int P = x->world_size, r = -1;
    for (int k = 0; k < P && r < 0; k++)
        if (M->n[k] && b[k].at.rank >= 0)
            r = k;
    for (int k = 0; k < P && r < 0; k++)
        if (b[k].at.rank >= 0)
            r = k;
    struct search_text t = {0};
    search_text_printf(&t, "applied on every rank that has it, the change deadlocks: ");
    if (r < 0)
        return search_text_take(&t);
    /* walk the waits until a rank repeats: that rank starts the cycle */
    uint8_t *seen = calloc((size_t)P, 1);
    if (!seen) {
        free(search_text_take(&t));
        return NULL;
    }
    int k = r;
    while (k >= 0 && !seen[k] && b[k].at.rank >= 0 && b[k].waits.rank >= 0) {
        seen[k] = 1;
        k = b[k].waits.rank;
    }
    free(seen);
    int start = k >= 0 && b[k].at.rank >= 0 ? k : r, steps = 0;
    /* the steps' records (at, waits, moved after: 3 per step), described
     * where their ranks' logs are */
    struct dg_pos pos[3 * CYCLE_STEPS];
    struct search_rec_desc desc[3 * CYCLE_STEPS];
    bool more = false;
    k = start;
    do {
        if (steps == CYCLE_STEPS) {
            more = true;
            break;
        }
        struct dg_pos *p = &pos[3 * steps++];
        p[0] = b[k].at;
        p[1] = b[k].waits;
        if (!moved_after(M, b[k].waits, &p[2]))
            p[2] = DG_POS_NONE;
        k = b[k].waits.rank;
    } while (k >= 0 && k != start && b[k].at.rank >= 0 && b[k].waits.rank >= 0);
    if (search_xrank_describe(x, pos, 3 * (size_t)steps, desc) < 0) {
        free(search_text_take(&t));
        return NULL;
    }
    for (int s = 0; s < steps; s++) {
        if (s)
            search_text_printf(&t, "; ");
        cycle_step(&t, x, pos[3 * s], pos[3 * s + 1], pos[3 * s + 2], &desc[3 * s], &desc[3 * s + 1],
                   &desc[3 * s + 2]);
    }
    if (more)
        search_text_printf(&t, "; ...");
    return search_text_take(&t);
}

int search_hint_unsafe(const struct search_xrank *x, const int *ranks, const uint32_t *groups, size_t n,
                       char **why)
{
    *why = NULL;
    int P = x->world_size, rc = TRACE_ERR_NOMEM;
    if (x->stalls || P <= 0)
        return 0; /* the recorded run does not replay: nothing to judge against */
    struct moves M = {calloc((size_t)P, sizeof *M.mv), calloc((size_t)P, sizeof *M.n),
                      calloc((size_t)P, sizeof *M.cap)};
    struct dg_stall_wait *b = calloc((size_t)P, sizeof *b);
    bool any = false, stalled = false;
    if (!M.mv || !M.n || !M.cap || !b)
        goto out;
    for (size_t k = 0; k < n; k++)
        if (ranks[k] >= 0 && ranks[k] < P && x->by_rank[ranks[k]] && group_moves(x, ranks[k], groups[k], &M) < 0)
            goto out;
    for (int r = 0; r < P; r++)
        any |= M.n[r] > 0;
    rc = 0;
    if (!any)
        goto out; /* no group delays a send past a blocking call */
    /* spread (--parallel): every process replays its ranks of the changed run */
    if ((rc = x->dist ? search_xrank_stall_job(x->dist, M.mv, M.n, b, &stalled)
                      : dg_stall_check(x->logs, P, x->match, (const struct dg_move *const *)M.mv, M.n, b,
                                       &stalled)) < 0)
        goto out;
    if (stalled) {
        rc = (*why = cycle_explain(x, &M, b)) ? 1 : TRACE_ERR_NOMEM;
    }
out:
    for (int r = 0; M.mv && r < P; r++)
        free(M.mv[r]);
    free(M.mv);
    free(M.n);
    free(M.cap);
    free(b);
    return rc;
}
