/* aggregate-facts.c - what the aggregation merge and its hints' changes
 * need of the MPI logs, taken into the rank's result so that they read
 * the result and not the logs:
 *   - of the rank's own log, when it is taken (search_kind.log_facts): per
 *     group span, the send that carries the group's bytes, the first
 *     member's send and the members merged into it (the replay's merge
 *     changes, with the merged sends' times); the rank's sends per call
 *     site (whether the groups hold every send made at their member
 *     lines); each deadlock check's moves (the group applied in the log);
 *   - of the other ranks' records, in the cross-rank stage on the process
 *     that holds the rank's log (search_kind.peer_facts): where each span's
 *     messages are received, and the first pair of members whose receives
 *     pass a count or a buffer place on, packed to the process that merges.
 */
#include "rank/kinds/aggregate.h"

#include "parallel/pack-bytes.h"

/* Room for one more of n items of `size` bytes in *p (*cap of them,
 * doubled from `first` when full): false if memory ran out (*p kept). */
static bool room(void *pp, uint32_t n, uint32_t *cap, uint32_t first, size_t size)
{
    void **p = pp;
    if (n < *cap)
        return true;
    uint32_t nc = *cap ? 2 * *cap : first;
    void *q = realloc(*p, (size_t)nc * size);
    if (!q)
        return false;
    *p = q;
    *cap = nc;
    return true;
}

/* ---- the rank's own log -------------------------------------------------------------- */

static int site_cmp(const void *a, const void *b)
{
    const struct search_site_sends *x = a, *y = b;
    return x->site < y->site ? -1 : x->site > y->site;
}

/* The rank's sends per call site. */
static int site_sends(struct search_rank_result *r)
{
    free(r->site_sends);
    r->site_sends = NULL;
    r->nsite_sends = 0;
    uint32_t cap = 0;
    for (uint32_t p = 0; p < r->log.n; p++) {
        const struct dg_msgrec *a = &r->log.rec[p];
        if (a->kind != DG_MSG_SEND)
            continue;
        uint32_t k = 0; /* sites are few: a linear search, sorted at the end */
        while (k < r->nsite_sends && r->site_sends[k].site != a->site)
            k++;
        if (k == r->nsite_sends) {
            if (!room(&r->site_sends, k, &cap, 8, sizeof *r->site_sends))
                return TRACE_ERR_NOMEM;
            r->site_sends[r->nsite_sends++] = (struct search_site_sends){a->site, 0};
        }
        r->site_sends[k].sends++;
    }
    if (r->nsite_sends > 1)
        qsort(r->site_sends, r->nsite_sends, sizeof *r->site_sends, site_cmp);
    return 0;
}

/* Span sp's carrying send, first member's send and merged members. */
static int span_facts(struct search_rank_result *r, struct search_group_span *sp, uint32_t *cap)
{
    const struct dg_mpilog *log = &r->log;
    sp->carry = sp->first_send = UINT32_MAX;
    sp->merge_off = r->nspan_merged;
    sp->nmerged = 0;
    /* the last member's send carries the group's bytes */
    uint32_t c = dg_mpilog_find(log, sp->last);
    while (c < log->n && log->rec[c].index == sp->last && log->rec[c].kind != DG_MSG_SEND)
        c++;
    if (c >= log->n || log->rec[c].index != sp->last)
        return 0;
    const struct dg_msgrec *carry = &log->rec[c];
    sp->carry = c;
    uint32_t f = dg_mpilog_find(log, sp->first);
    while (f < c && (log->rec[f].kind != DG_MSG_SEND || log->rec[f].comm != carry->comm ||
                     log->rec[f].peer != carry->peer))
        f++;
    sp->first_send = f;
    for (uint32_t p = dg_mpilog_find(log, sp->first); p < c; p++) {
        const struct dg_msgrec *a = &log->rec[p];
        if (a->kind != DG_MSG_SEND || a->comm != carry->comm || a->peer != carry->peer)
            continue;
        if (!room(&r->span_merged, r->nspan_merged, cap, 64, sizeof *r->span_merged))
            return TRACE_ERR_NOMEM;
        r->span_merged[r->nspan_merged++] =
            (struct search_merged_send){p, a->t_enter, a->t_exit};
        sp->nmerged++;
    }
    return 0;
}

/* Check chk's moves: its members' records before its last crossing, each
 * moved right after that crossing's records (where the group is sent, or
 * later: nothing blocking comes between). */
static int check_moves(struct search_rank_result *r, struct search_group_check *chk, uint32_t *cap)
{
    const struct dg_mpilog *log = &r->log;
    chk->move_off = r->ncheck_moves;
    chk->nmoves = 0;
    if (!chk->ncross)
        return 0;
    uint64_t last = chk->cross[chk->ncross - 1];
    uint32_t after = dg_mpilog_find(log, last);
    if (after >= log->n)
        return 0;
    while (after + 1 < log->n && log->rec[after + 1].index == last)
        after++;
    for (uint32_t m = 0; m < chk->nmembers; m++) {
        if (chk->members[m] >= last)
            continue;
        for (uint32_t sp = dg_mpilog_find(log, chk->members[m]);
             sp < log->n && log->rec[sp].index == chk->members[m]; sp++) {
            if (!room(&r->check_moves, r->ncheck_moves, cap, 64, sizeof *r->check_moves))
                return TRACE_ERR_NOMEM;
            r->check_moves[r->ncheck_moves++] = (struct dg_move){sp, after};
            chk->nmoves++;
        }
    }
    return 0;
}

int search_aggregate_log_facts(struct search_rank_result *r)
{
    free(r->check_moves);
    r->check_moves = NULL;
    r->ncheck_moves = 0;
    uint32_t mcap = 0;
    for (uint32_t c = 0; c < r->nchecks; c++) {
        int rc = check_moves(r, &r->checks[c], &mcap);
        if (rc < 0)
            return rc;
    }
    free(r->span_merged);
    r->span_merged = NULL;
    r->nspan_merged = 0;
    uint32_t cap = 0;
    for (uint32_t k = 0; k < r->nspans; k++) {
        int rc = span_facts(r, &r->spans[k], &cap);
        if (rc < 0)
            return rc;
    }
    return site_sends(r);
}

/* ---- the other ranks' records -------------------------------------------------------- */

/* The receive matched with rank r's send at log position p: its rank and
 * site (rank -1: not matched, or its record is not known here). */
static void matched_recv(const struct search_xrank *x, int r, uint32_t p, int32_t *rank, uint32_t *site)
{
    struct dg_pos q = dg_match_peer(x->match, (struct dg_pos){r, p});
    const struct dg_msgrec *b = q.rank >= 0 && q.rank < x->world_size ? dg_match_rec(x->match, q) : NULL;
    *rank = b ? q.rank : -1;
    *site = b ? b->site : CHT_NONE;
}

/* Whether, on the receiver, a member's receive took its count or its
 * buffer's place from a value an earlier member's receive brought
 * (DG_MSGF_ARG on that receive, with the later one's site): merged, the
 * one receive cannot know them before the message comes (mpi_mm's rows,
 * then rows * NCA doubles).  The sends of rank r from log position first
 * to carry (the group's last, which fixes the peer); the first such pair's
 * receives go into pp->arg_*. */
static void recv_arg(const struct search_xrank *x, int r, const struct dg_mpilog *log, uint32_t first,
                     uint32_t carry, struct search_span_peers *pp)
{
    const struct dg_msgrec *last = &log->rec[carry];
    struct dg_pos prev[16]; /* the earlier members' receives */
    uint32_t n = 0;
    for (uint32_t p = first; p <= carry && n < 16; p++) {
        const struct dg_msgrec *a = &log->rec[p];
        if (a->kind != DG_MSG_SEND || a->comm != last->comm || a->peer != last->peer)
            continue;
        struct dg_pos q = dg_match_peer(x->match, (struct dg_pos){r, p});
        const struct dg_msgrec *b = q.rank >= 0 && q.rank < x->world_size ? dg_match_rec(x->match, q) : NULL;
        if (!b)
            continue;
        for (uint32_t k = 0; k < n; k++) {
            const struct dg_msgrec *e = dg_match_rec(x->match, prev[k]);
            if (prev[k].rank != q.rank || !e || !(e->flags & DG_MSGF_ARG) || e->use_site != b->site ||
                b->site == CHT_NONE)
                continue;
            pp->arg_rank[0] = prev[k].rank;
            pp->arg_site[0] = e->site;
            pp->arg_rank[1] = q.rank;
            pp->arg_site[1] = b->site;
            return;
        }
        prev[n++] = q;
    }
}

int search_aggregate_peer_facts(struct search_xrank *x, struct search_rank_result *r)
{
    free(r->span_peers);
    r->span_peers = r->nspans ? calloc(r->nspans, sizeof *r->span_peers) : NULL;
    if (r->nspans && !r->span_peers)
        return TRACE_ERR_NOMEM;
    const struct dg_mpilog *log = x->logs[r->rank];
    for (uint32_t k = 0; k < r->nspans; k++) {
        const struct search_group_span *sp = &r->spans[k];
        struct search_span_peers *pp = &r->span_peers[k];
        *pp = (struct search_span_peers){-1, -1, CHT_NONE, CHT_NONE, {-1, -1}, {CHT_NONE, CHT_NONE}};
        if (sp->carry >= log->n || !x->match)
            continue;
        matched_recv(x, r->rank, sp->carry, &pp->carry_rank, &pp->carry_site);
        matched_recv(x, r->rank, sp->first_send, &pp->first_rank, &pp->first_site);
        recv_arg(x, r->rank, log, dg_mpilog_find(log, sp->first), sp->carry, pp);
    }
    return 0;
}

void search_aggregate_peer_pack(struct pk_buf *b, const struct search_rank_result *r)
{
    pk_u32(b, r->span_peers ? r->nspans : 0);
    for (uint32_t k = 0; r->span_peers && k < r->nspans; k++) {
        const struct search_span_peers *pp = &r->span_peers[k];
        pk_i32(b, pp->carry_rank);
        pk_u32(b, pp->carry_site);
        pk_i32(b, pp->first_rank);
        pk_u32(b, pp->first_site);
        for (int i = 0; i < 2; i++) {
            pk_i32(b, pp->arg_rank[i]);
            pk_u32(b, pp->arg_site[i]);
        }
    }
}

void search_aggregate_peer_unpack(struct pk_rd *rd, struct search_rank_result *r)
{
    free(r->span_peers);
    r->span_peers = NULL;
    uint32_t n = rd_count(rd, 32);
    if (!rd->bad && n && n != r->nspans) {
        rd_fail(rd, "span facts of another result");
        return;
    }
    if (n && !(r->span_peers = rd_alloc(rd, n, sizeof *r->span_peers)))
        return;
    for (uint32_t k = 0; k < n && !rd->bad; k++) {
        struct search_span_peers *pp = &r->span_peers[k];
        pp->carry_rank = rd_i32(rd);
        pp->carry_site = rd_u32(rd);
        pp->first_rank = rd_i32(rd);
        pp->first_site = rd_u32(rd);
        for (int i = 0; i < 2; i++) {
            pp->arg_rank[i] = rd_i32(rd);
            pp->arg_site[i] = rd_u32(rd);
        }
    }
}
