/* overlap-facts.c - what the overlap merge needs of the MPI logs, taken
 * into the rank's result so that the merge and the hints' changes read
 * the result and not the logs:
 *   - of the rank's own log, when it is taken (search_kind.log_facts): per
 *     lead, its call's record and times and where its wait can go
 *     (search_change_overlap); per entry, whether the calls' arguments
 *     differ from one call to the next (the merge's args_differ) and
 *     whether back-to-back receives of the site write apart (its chain
 *     check);
 *   - of the other ranks' records, in the cross-rank stage on the process
 *     that holds the rank's log (search_kind.peer_facts): the waits of the
 *     leads' matched calls that an earlier start shortens (the merge's
 *     partner waits) and the collective instance of the first lead's call
 *     (whose members' sites the stage gathers), packed to the process
 *     that merges.
 */
#include "rank/kinds/overlap.h"

#include "parallel/pack-bytes.h"

/* Per lead: the call's first record, its times, and the exit of the last
 * MPI record of its forward window after it. */
static void lead_facts(const struct dg_mpilog *log, struct search_lead *l)
{
    l->pos = UINT32_MAX;
    l->t_enter = l->t_exit = l->fw_exit = 0;
    uint32_t p = dg_mpilog_find(log, l->index);
    if (p >= log->n || log->rec[p].index != l->index)
        return;
    const struct dg_msgrec *a = &log->rec[p];
    if (!a->t_enter || !a->t_exit)
        return;
    l->pos = p;
    l->t_enter = a->t_enter;
    l->t_exit = a->t_exit;
    /* the wait goes after the MPI calls its forward window crosses: their
     * order stays, so it is no earlier than the last one's exit */
    uint32_t lo = p, hi = log->n; /* the first record after the window */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (log->rec[mid].index <= l->fw_end)
            lo = mid + 1;
        else
            hi = mid;
    }
    const struct dg_msgrec *z = lo > 0 ? &log->rec[lo - 1] : NULL;
    if (z && z->index > l->index)
        l->fw_exit = z->t_exit;
}

/* What of the call's arguments differs between consecutive leads on this
 * rank: the buffer of each message record (alternating between two
 * addresses, as swapped arrays do, or changing otherwise), its peer, its
 * size and the tag of its message.  The merge ORs the entries' and keeps
 * BUF_CHANGES over BUF_ALTERNATES. */
static uint8_t args_differ(const struct dg_mpilog *log, const struct search_overlap *ov)
{
    uint8_t d = 0;
    /* per message record of a call (a Sendrecv has two): the last two
     * buffers seen, and whether the buffer ever failed to alternate */
    uint64_t prev[2][2] = {{0}}, peer[2] = {0}, size[2] = {0}, tag[2] = {0};
    uint32_t seen[2] = {0};
    bool alt_broken[2] = {false, false}, buf_moved[2] = {false, false};
    for (uint32_t l = 0; l < ov->nleads; l++) {
        uint32_t slot = 0;
        for (uint32_t p = dg_mpilog_find(log, ov->leads[l].index);
             p < log->n && log->rec[p].index == ov->leads[l].index && slot < 2; p++) {
            const struct dg_msgrec *a = &log->rec[p];
            if (a->kind != DG_MSG_SEND && a->kind != DG_MSG_RECV && a->kind != DG_MSG_COLL)
                continue;
            uint64_t buf = a->kind == DG_MSG_COLL && a->rbytes ? a->rbuf : a->buf;
            uint32_t s = slot++;
            /* b_k alternates: b_k != b_k-1 and b_k == b_k-2 */
            if (seen[s] >= 1) {
                if (buf != prev[s][0])
                    buf_moved[s] = true;
                else
                    alt_broken[s] = true;
                if (seen[s] >= 2 && buf != prev[s][1])
                    alt_broken[s] = true;
                /* a receive's size is the status's (a count larger than
                 * the message): not its argument; its source is the
                 * status's too, but a source that changes must be the
                 * next call's unless it takes any source (the master's
                 * receive from each worker in turn) */
                if ((uint64_t)(int64_t)a->peer != peer[s])
                    d |= SEARCH_FIX_PEER_CHANGES;
                if (a->kind != DG_MSG_RECV && a->bytes + a->rbytes != size[s])
                    d |= SEARCH_FIX_COUNT_CHANGES;
                /* a tag that changes (an iteration number) matters to a
                 * receive too: started early with this call's tag, it
                 * would wait for a message that never comes */
                if (a->kind != DG_MSG_COLL && (uint64_t)(int64_t)a->tag != tag[s])
                    d |= SEARCH_FIX_TAG_CHANGES;
            }
            prev[s][1] = prev[s][0];
            prev[s][0] = buf;
            peer[s] = (uint64_t)(int64_t)a->peer;
            size[s] = a->bytes + a->rbytes;
            tag[s] = (uint64_t)(int64_t)a->tag;
            seen[s]++;
        }
    }
    for (int s = 0; s < 2; s++)
        if (buf_moved[s])
            d |= alt_broken[s] ? SEARCH_FIX_BUF_CHANGES : SEARCH_FIX_BUF_ALTERNATES;
    return d;
}

/* Whether no two consecutive receives of the site on the rank write
 * overlapping buffers (two pending receives into one buffer are
 * erroneous); false if the log has none. */
static bool recv_bufs_apart(const struct dg_mpilog *log, uint32_t site)
{
    const struct dg_msgrec *prev = NULL;
    for (uint32_t p = 0; p < log->n; p++) {
        const struct dg_msgrec *a = &log->rec[p];
        if (a->site != site || a->kind != DG_MSG_RECV)
            continue;
        if (prev && a->bytes && prev->bytes && a->buf < prev->buf + prev->bytes && prev->buf < a->buf + a->bytes)
            return false;
        prev = a;
    }
    return prev != NULL; /* the calls are in the log: their buffers are known */
}

int search_overlap_log_facts(struct search_rank_result *r)
{
    for (uint32_t i = 0; i < r->noverlaps; i++) {
        struct search_overlap *ov = &r->overlaps[i];
        for (uint32_t k = 0; k < ov->nleads; k++)
            lead_facts(&r->log, &ov->leads[k]);
        ov->args_differ = args_differ(&r->log, ov);
        /* only the merge's check of fwd_chained receives asks */
        ov->recv_bufs_apart = ov->role != DG_ROLE_SEND && ov->fwd_chained && recv_bufs_apart(&r->log, ov->site);
    }
    return 0;
}

/* ---- the other ranks' records ---------------------------------------------------------- */

/* The waits of the other ends of lead k's blocking send or receive
 * (docs/dependence.md, "Estimated saving"): the matched receive of a send
 * waited as long as the send entered after it (late sender, up to its
 * time in the call); the matched blocking send of a receive as long as it
 * entered before the receive and was still in the call then (late
 * receiver). */
static int lead_partners(const struct search_xrank *x, int r, const struct dg_mpilog *log, uint32_t k,
                         struct search_overlap *ov, uint32_t *cap)
{
    const struct search_lead *l = &ov->leads[k];
    const struct dg_clockmap *cm = x->clocks.cm;
    for (uint32_t p = dg_mpilog_find(log, l->index); p < log->n && log->rec[p].index == l->index; p++) {
        const struct dg_msgrec *a = &log->rec[p];
        bool send = a->kind == DG_MSG_SEND && !(a->flags & DG_MSGF_NONBLOCKING);
        bool recv = a->kind == DG_MSG_RECV && (a->flags & DG_MSGF_BLOCKS) && !(a->flags & DG_MSGF_NONBLOCKING);
        if ((!send && !recv) || !a->t_enter)
            continue;
        struct dg_pos q = dg_match_peer(x->match, (struct dg_pos){r, p});
        const struct dg_msgrec *b = q.rank >= 0 && q.rank < x->world_size ? dg_match_rec(x->match, q) : NULL;
        if (!b || !b->t_enter || b->t_exit < b->t_enter)
            continue;
        int64_t gap = dg_clock_at(&cm[r], a->t_enter) - dg_clock_at(&cm[q.rank], b->t_enter);
        uint64_t dur = b->t_exit - b->t_enter, wait = 0;
        if (send && (b->flags & DG_MSGF_BLOCKS)) {
            if (gap > 0) /* late sender: the receive entered first and waited */
                wait = (uint64_t)gap < dur ? (uint64_t)gap : dur;
        } else if (recv && !(b->flags & DG_MSGF_NONBLOCKING) &&
                   (b->call == CHT_MPI_SEND || b->call == CHT_MPI_SSEND)) {
            /* late receiver: the send entered first and was still in the
             * call when the receive was posted */
            if (gap > 0 && dur > (uint64_t)gap)
                wait = (uint64_t)gap;
        }
        if (!wait)
            continue;
        if (ov->npartner == *cap) {
            uint32_t nc = *cap ? 2 * *cap : 4;
            struct search_partner_wait *np = realloc(ov->partner, nc * sizeof *np);
            if (!np)
                return TRACE_ERR_NOMEM;
            ov->partner = np;
            *cap = nc;
        }
        ov->partner[ov->npartner++] = (struct search_partner_wait){k, q.rank, wait};
    }
    return 0;
}

/* The collective instance of the first lead's call (a collective made
 * nonblocking must be so on every member: the merge names the members'
 * other call sites), asked for from the stage. */
static int first_coll(struct search_xrank *x, int r, const struct dg_mpilog *log, struct search_overlap *ov)
{
    ov->coll_inst = UINT32_MAX;
    if (!x->match || !ov->nleads)
        return 0;
    uint32_t p = dg_mpilog_find(log, ov->leads[0].index);
    for (; p < log->n && log->rec[p].index == ov->leads[0].index; p++)
        if (log->rec[p].kind == DG_MSG_COLL)
            break;
    if (p >= log->n || log->rec[p].index != ov->leads[0].index)
        return 0;
    ov->coll_inst = dg_match_coll_of(x->match, (struct dg_pos){r, p});
    return ov->coll_inst == UINT32_MAX ? 0 : search_xrank_want_coll(x, ov->coll_inst);
}

int search_overlap_peer_facts(struct search_xrank *x, struct search_rank_result *r)
{
    const struct dg_mpilog *log = x->logs[r->rank];
    for (uint32_t i = 0; i < r->noverlaps; i++) {
        struct search_overlap *ov = &r->overlaps[i];
        free(ov->partner); /* a report built again finds them again */
        ov->partner = NULL;
        ov->npartner = 0;
        uint32_t cap = 0;
        for (uint32_t k = 0; x->match && x->clocks.cm && k < ov->nleads; k++) {
            int rc = lead_partners(x, r->rank, log, k, ov, &cap);
            if (rc < 0)
                return rc;
        }
        int rc = first_coll(x, r->rank, log, ov);
        if (rc < 0)
            return rc;
    }
    return 0;
}

void search_overlap_peer_pack(struct pk_buf *b, const struct search_rank_result *r)
{
    pk_u32(b, r->noverlaps);
    for (uint32_t i = 0; i < r->noverlaps; i++) {
        const struct search_overlap *ov = &r->overlaps[i];
        pk_u32(b, ov->coll_inst);
        pk_u32(b, ov->npartner);
        for (uint32_t k = 0; k < ov->npartner; k++) {
            pk_u32(b, ov->partner[k].lead);
            pk_i32(b, ov->partner[k].rank);
            pk_u64(b, ov->partner[k].wait_ns);
        }
    }
}

void search_overlap_peer_unpack(struct pk_rd *rd, struct search_rank_result *r)
{
    if (rd_u32(rd) != r->noverlaps) {
        rd_fail(rd, "overlap facts of another result");
        return;
    }
    for (uint32_t i = 0; i < r->noverlaps && !rd->bad; i++) {
        struct search_overlap *ov = &r->overlaps[i];
        free(ov->partner);
        ov->partner = NULL;
        ov->npartner = 0;
        ov->coll_inst = rd_u32(rd);
        uint32_t n = rd_count(rd, 16);
        if (n && (ov->partner = rd_alloc(rd, n, sizeof *ov->partner)))
            ov->npartner = n;
        for (uint32_t k = 0; k < ov->npartner && !rd->bad; k++) {
            struct search_partner_wait *w = &ov->partner[k];
            w->lead = rd_u32(rd);
            w->rank = rd_i32(rd);
            w->wait_ns = rd_u64(rd);
            if (w->lead >= ov->nleads || w->rank < 0)
                rd_fail(rd, "a partner wait out of range");
        }
    }
}
