/* overlap-merge.c - overlap hints across ranks (docs/dependence.md, "From
 * ranks to hints" and "Shorter waits on other ranks"); what their fix
 * places between the start and the wait.
 *
 * Overlap results merge by the source location of the call (file, line,
 * column, function).  Decisions beyond the document:
 *   - a call site present on a rank without any window does not count for
 *     that rank (it is not in the hint's ranks, its counts are not summed);
 *   - the statements of an overlap hint merge into one related line per
 *     (file, line): its role is AFTER if some merged statement was in a
 *     forward window, else BEFORE; its column and function are those of the
 *     merged statement with the smallest column; events and totals are
 *     summed, the time is summed per rank and the largest rank's is kept;
 *     the iterations are those of the lowest rank's statement with the
 *     smallest column;
 *   - statements without a site info, a file or a line (code without a
 *     debug location) are left out, and an overlap hint without any related
 *     line is dropped (it names nothing to move);
 *   - one edit applies the hint on every rank: its start goes after a
 *     statement (its wait before one) that bounds the backward (forward)
 *     windows of some merged entry, the lowest rank's that fits every
 *     entry: the same bound, or a statement that runs inside the entry's
 *     windows on that side in the same iteration (the edit then moves
 *     part of what that entry could move).  Only the entries with that
 *     very bound have their statements on that side listed, replayed and
 *     credited.  With no bound fitting every entry, a backward side
 *     shows the lines (in the call's function) that every entry moves,
 *     and the call starts right before the first of them (not credited:
 *     the replay keeps such a call where it is); without such lines, or
 *     on the forward side, it is dropped (the call starts where it is,
 *     or is waited for right after it).  A
 *     root that reads the counts of an MPI_Gatherv computed just before
 *     it and ranks that do not read them have different backward windows:
 *     moving the counts after the call would be wrong on the root;
 *   - the needs-buffer variant of a call (docs/dependence.md, "Needs a
 *     buffer per message") merges apart from its plain entries, into a
 *     hint of its own flagged SEARCH_HINT_NEEDS_BUFFER; the buffer is the
 *     call's send buffer, the overwriting statement the lowest rank's.
 */
#include "rank/kinds/overlap.h"

struct ov_ent {
    struct search_loc key;
    int rank;
    const struct search_rank_result *res;
    const struct search_overlap *ov;
};

static int ov_ent_cmp(const void *pa, const void *pb)
{
    const struct ov_ent *a = pa, *b = pb;
    int c = search_loc_cmp(&a->key, &b->key, true);
    if (c || (c = search_cmp_u64(a->ov->needs_buffer, b->ov->needs_buffer)))
        return c;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return search_cmp_u64(a->ov->site, b->ov->site);
}

struct st_ent {
    const char *file;
    uint32_t line;
    int rank;
    uint32_t kept; /* the flags of st on the sides the hint keeps */
    const struct search_stmt *st;
};

static int st_ent_cmp(const void *pa, const void *pb)
{
    const struct st_ent *a = pa, *b = pb;
    int c = strcmp(a->file, b->file);
    if (c || (c = search_cmp_u64(a->line, b->line)))
        return c;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    if ((c = search_cmp_u64(a->st->info->col, b->st->info->col)))
        return c;
    return search_cmp_u64(a->st->site, b->st->site);
}

/* Which sides of an entry's windows a merged hint keeps (see the top). */
struct ov_sides {
    bool back, fwd;
    bool common; /* the backward side is shown only by the lines every entry moves (not credited) */
};

/* Whether a statement of a merged entry is shown and credited, and the
 * flags it keeps. */
static uint32_t stmt_kept(const struct search_stmt *st, struct ov_sides s)
{
    return st->flags & ((s.back ? SEARCH_STMT_BEFORE : 0) | (s.fwd ? SEARCH_STMT_AFTER : 0));
}

/* One side of an entry's windows: the statement that bounds it (NULL:
 * none, the windows reach the horizon), whether that one runs in another
 * iteration, and whether the windows have statements on that side. */
struct ov_bound {
    const struct trace_site_info *at;
    bool other, any;
};

static struct ov_bound bound_of(const struct search_overlap *ov, bool back)
{
    struct ov_bound b = {NULL, false, false};
    uint32_t flag = back ? SEARCH_STMT_BEFORE : SEARCH_STMT_AFTER;
    if (back && ov->dep_site != CHT_NONE)
        b = (struct ov_bound){ov->dep_info, ov->dep_earlier, false};
    else if (!back && ov->use_site != CHT_NONE)
        b = (struct ov_bound){ov->use_info, ov->use_later, false};
    for (uint32_t s = 0; s < ov->nstmts && !b.any; s++)
        b.any = (ov->stmts[s].flags & flag) != 0;
    return b;
}

static bool same_info(const struct trace_site_info *a, const struct trace_site_info *b)
{
    return a && b && a->line == b->line && a->col == b->col && !strcmp(search_nz(a->file), search_nz(b->file));
}

static bool same_bound(struct ov_bound a, struct ov_bound b)
{
    if (a.any != b.any || a.other != b.other || !a.at != !b.at)
        return false;
    return !a.at || same_info(a.at, b.at);
}

/* Whether the edit bounded by c is also right on entry ov: the same bound,
 * or c's statement runs inside ov's windows on that side (in the same
 * iteration), so that the edit moves part of what ov could move. */
static bool bound_fits(struct ov_bound c, const struct search_overlap *ov, bool back)
{
    struct ov_bound b = bound_of(ov, back);
    if (same_bound(c, b))
        return true;
    if (!c.at || c.other)
        return false;
    uint32_t flag = back ? SEARCH_STMT_BEFORE : SEARCH_STMT_AFTER;
    for (uint32_t s = 0; s < ov->nstmts; s++)
        if ((ov->stmts[s].flags & flag) && same_info(ov->stmts[s].info, c.at))
            return true;
    return false;
}

/* One side of the edit of the entries [i, j): the first entry (lowest
 * rank) whose bound fits every entry, NULL if none does; sd[k - i] says
 * whether entry k has that very bound (its statements on that side are
 * then listed and credited). */
static const struct search_overlap *overlap_side(const struct ov_ent *e, size_t i, size_t j, bool back,
                                                 struct ov_sides *sd)
{
    const struct search_overlap *best = NULL;
    for (size_t c = i; c < j && !best; c++) {
        struct ov_bound cb = bound_of(e[c].ov, back);
        size_t k = i;
        while (k < j && bound_fits(cb, e[k].ov, back))
            k++;
        if (k == j)
            best = e[c].ov;
    }
    struct ov_bound bb = best ? bound_of(best, back) : (struct ov_bound){0};
    for (size_t k = i; k < j; k++) {
        bool keep = best && same_bound(bb, bound_of(e[k].ov, back));
        if (back)
            sd[k - i].back = keep;
        else
            sd[k - i].fwd = keep;
    }
    return best;
}

/* A source line as a key of the lines every entry moves. */
struct ov_line {
    const char *file;
    uint32_t line;
};

static int ov_line_cmp(const void *pa, const void *pb)
{
    const struct ov_line *a = pa, *b = pb;
    int c = strcmp(a->file, b->file);
    return c ? c : search_cmp_u64(a->line, b->line);
}

/* The lines (in h's file and function) that every entry [i, j) can move
 * after the call, sorted: the backward side when the entries' bounds
 * differ (the call then starts right before the first of them).  *out is
 * NULL when there are none.  Returns their count or TRACE_ERR_NOMEM. */
static long common_before(const struct search_hint *h, const struct ov_ent *e, size_t i, size_t j,
                          struct ov_line **out)
{
    struct ov_line *all = NULL, *mine = NULL;
    size_t nall = 0;
    long rc = 0;
    *out = NULL;
    for (size_t k = i; k < j; k++) {
        const struct search_overlap *ov = e[k].ov;
        size_t n = 0;
        free(mine);
        mine = malloc((ov->nstmts ? ov->nstmts : 1) * sizeof *mine);
        if (!mine) {
            rc = TRACE_ERR_NOMEM;
            goto out;
        }
        for (uint32_t s = 0; s < ov->nstmts; s++) {
            const struct search_stmt *st = &ov->stmts[s];
            if (!(st->flags & SEARCH_STMT_BEFORE) || !st->info || !st->info->line ||
                strcmp(search_nz(st->info->file), search_nz(h->file)) ||
                strcmp(search_nz(st->info->func), search_nz(h->func)))
                continue;
            mine[n++] = (struct ov_line){search_nz(st->info->file), st->info->line};
        }
        qsort(mine, n, sizeof *mine, ov_line_cmp);
        if (k == i) {
            all = mine;
            nall = n;
            mine = NULL;
        } else { /* keep what this entry moves too */
            size_t m = 0;
            for (size_t a = 0; a < nall; a++)
                if (bsearch(&all[a], mine, n, sizeof *mine, ov_line_cmp))
                    all[m++] = all[a];
            nall = m;
        }
    }
    size_t m = 0; /* one per line */
    for (size_t a = 0; a < nall; a++)
        if (!m || ov_line_cmp(&all[m - 1], &all[a]))
            all[m++] = all[a];
    rc = (long)m;
    if (m)
        *out = all;
    else
        free(all);
    all = NULL;
out:
    free(mine);
    free(all);
    return rc;
}

/* The related lines of the overlap entries [i, j) into h, on the sides
 * kept.  Returns 0 or TRACE_ERR_NOMEM. */
static int overlap_related(struct search_hint *h, const struct ov_ent *e, size_t i, size_t j,
                           const struct ov_sides *sd, const struct ov_line *common, size_t ncommon)
{
    size_t n = 0, cap = 0;
    struct st_ent *v = NULL;
    int rc = 0;

    for (size_t k = i; k < j; k++)
        cap += e[k].ov->nstmts;
    if (!cap)
        return 0;
    v = malloc(cap * sizeof *v);
    if (!v)
        return TRACE_ERR_NOMEM;
    for (size_t k = i; k < j; k++)
        for (uint32_t s = 0; s < e[k].ov->nstmts; s++) {
            const struct search_stmt *st = &e[k].ov->stmts[s];
            if (!st->info || !st->info->file || !st->info->file[0] || !st->info->line)
                continue;
            /* the loads of a call's arguments belong to the call's statement:
             * listed alone they would read as the whole call moving */
            if (st->site_flags & CHT_SITEF_ARGS_ONLY)
                continue;
            uint32_t kept = stmt_kept(st, sd[k - i]);
            struct ov_line key = {search_nz(st->info->file), st->info->line};
            if (sd[k - i].common && (st->flags & SEARCH_STMT_BEFORE) &&
                bsearch(&key, common, ncommon, sizeof *common, ov_line_cmp))
                kept |= SEARCH_STMT_BEFORE;
            if (!kept)
                continue;
            v[n++] = (struct st_ent){st->info->file, st->info->line, e[k].rank, kept, st};
        }
    /* a loop's exit test without any statement of that loop's body is its
     * last evaluation alone (the loop ended before the window): listed,
     * its `for` line would read as the whole loop moving */
    uint32_t *body = malloc((n ? n : 1) * sizeof *body);
    size_t nbody = 0, m = 0;
    if (!body) {
        rc = TRACE_ERR_NOMEM;
        goto out;
    }
    for (size_t a = 0; a < n; a++)
        if (!(v[a].st->site_flags & CHT_SITEF_LOOP_TEST) && v[a].st->info->loop != CHT_NONE)
            body[nbody++] = v[a].st->info->loop;
    qsort(body, nbody, sizeof *body, search_u32_cmp);
    for (size_t a = 0; a < n; a++) {
        const struct search_stmt *st = v[a].st;
        if (!(st->site_flags & CHT_SITEF_LOOP_TEST) ||
            (st->info->loop != CHT_NONE &&
             bsearch(&st->info->loop, body, nbody, sizeof *body, search_u32_cmp)))
            v[m++] = v[a];
    }
    free(body);
    n = m;
    if (!n)
        goto out;
    qsort(v, n, sizeof *v, st_ent_cmp);
    h->related = calloc(n, sizeof *h->related);
    if (!h->related) {
        rc = TRACE_ERR_NOMEM;
        goto out;
    }
    for (size_t a = 0; a < n;) {
        size_t b = a;
        while (b + 1 < n && !strcmp(v[b + 1].file, v[a].file) && v[b + 1].line == v[a].line)
            b++;
        struct search_related *r = &h->related[h->nrelated++];
        const struct search_stmt *best = v[a].st;
        uint64_t rank_time = 0;
        bool after = false;
        r->file = v[a].file;
        r->line = v[a].line;
        for (size_t k = a; k <= b; k++) {
            const struct search_stmt *st = v[k].st;
            if (st->info->col < best->info->col)
                best = st;
            after |= (v[k].kept & SEARCH_STMT_AFTER) != 0;
            r->events += st->events;
            r->total += st->total;
            r->conditional |= (st->site_flags & CHT_SITEF_CONDITIONAL) != 0;
            r->condition |= st->info->condition;
            rank_time += st->time_ns;
            if (k == b || v[k + 1].rank != v[k].rank) {
                if (rank_time > r->time_ns)
                    r->time_ns = rank_time;
                rank_time = 0;
            }
        }
        r->col = best->info->col;
        r->func = search_nz(best->info->func);
        /* its region: the outermost loop around it in its function that
         * does not run the call too */
        const struct trace_loop_info *l = best->info->loop_info;
        for (unsigned d = 0; l && d < 256 && !search_hint_encloses(h, l->id) && !strcmp(search_nz(l->func), r->func);
             l = l->parent_info, d++)
            r->loop = l;
        r->role = after ? SEARCH_REL_AFTER : SEARCH_REL_BEFORE;
        /* v[a] is the lowest rank's statement with the smallest column. */
        if ((rc = search_boxes_copy(&r->iters, &v[a].st->iters)) < 0)
            goto out;
        a = b + 1;
    }
    qsort(h->related, h->nrelated, sizeof *h->related, search_related_cmp);
out:
    free(v);
    return rc;
}

/* Shorter waits of other ranks for the calls of one overlap entry whose
 * start can move earlier (docs/dependence.md, "Estimated saving"): for
 * each lead, the matched receive of a send waited min(late sender, lead)
 * less; the matched blocking send of a receive, min(late receiver, lead)
 * less (the waits: search_overlap.partner, as search_waitstates measures
 * them), the lead taken at the share `back` of its span that the fix
 * keeps.  Added to partner[rank of the waiting call] (P ranks). */
static void partner_waits(const struct search_overlap *ov, double back, uint64_t *partner, int P)
{
    for (uint32_t k = 0; k < ov->npartner; k++) {
        const struct search_partner_wait *w = &ov->partner[k];
        if (w->rank < 0 || w->rank >= P || w->lead >= ov->nleads)
            continue;
        uint64_t span = (uint64_t)((double)ov->leads[w->lead].span_ns * back);
        partner[w->rank] += w->wait_ns < span ? w->wait_ns : span;
    }
}

/* The ranks' clock maps when the clocks are aligned (NULL otherwise): the
 * cross-rank stage's common clock (search/xrank/clocks.c), borrowed. */
static int clockmaps(const struct search_xrank *xr, bool aligned, const struct dg_clockmap **out)
{
    *out = aligned && xr && xr->world_size ? xr->clocks.cm : NULL;
    return 0;
}

/* What the hints of one merge share: the clock maps and, per world rank,
 * the saving of the hint being made (own and credited). */
struct ov_merge {
    const struct search_merge *m;
    const struct dg_clockmap *cm;
    uint64_t *own, *partner;
    int P;
};

/* Of an entry's windows, what the hint keeps: the sides kept (sd), less
 * the lines the fix leaves out of the windows (drop, sorted): the share
 * of each side's computation (by its statements' estimated times; 0: the
 * side is not kept) and the computation kept. */
struct ov_share {
    double back, fwd;
    uint64_t comp;
};

static struct ov_share entry_share(const struct search_overlap *ov, struct ov_sides sides, const struct ov_line *drop,
                                   size_t ndrop)
{
    uint64_t all = 0, kept = 0, side_all[2] = {0, 0}, side_kept[2] = {0, 0};
    struct ov_share sh = {sides.back ? 1.0 : 0.0, sides.fwd ? 1.0 : 0.0, ov->comp_ns};
    if (sides.back && sides.fwd && !ndrop)
        return sh;
    for (uint32_t s = 0; s < ov->nstmts; s++) {
        const struct search_stmt *st = &ov->stmts[s];
        struct ov_line key = {st->info ? search_nz(st->info->file) : "", st->info ? st->info->line : 0};
        bool out = ndrop && st->info && bsearch(&key, drop, ndrop, sizeof *drop, ov_line_cmp);
        all += st->time_ns;
        if (stmt_kept(st, sides) && !out)
            kept += st->time_ns;
        for (int d = 0; d < 2; d++)
            if (st->flags & (d ? SEARCH_STMT_AFTER : SEARCH_STMT_BEFORE)) {
                side_all[d] += st->time_ns;
                side_kept[d] += out ? 0 : st->time_ns;
            }
    }
    sh.comp = all ? (uint64_t)((double)ov->comp_ns * (double)kept / (double)all) : 0;
    if (sides.back && side_all[0])
        sh.back = (double)side_kept[0] / (double)side_all[0];
    if (sides.fwd && side_all[1])
        sh.fwd = (double)side_kept[1] / (double)side_all[1];
    return sh;
}

/* Sums the entries [i, j) of one location into h, on the sides kept and
 * without the lines drop[ndrop] (sorted). */
static int overlap_sums(struct ov_merge *x, struct search_hint *h, const struct ov_ent *e, size_t i,
                        size_t j, const struct ov_sides *sd, const struct ov_line *drop, size_t ndrop,
                        uint64_t *truncated)
{
    uint64_t comm = 0, comp = 0;
    for (size_t k = i; k < j; k++) {
        const struct search_overlap *ov = e[k].ov;
        struct ov_share sh = entry_share(ov, sd[k - i], drop, ndrop);
        uint64_t saving = ov->saving_ns, part = sh.comp;
        if (part < ov->comp_ns) /* a side dropped: its share of the computation gone */
            saving = ov->comp_ns ? (uint64_t)((double)saving * (double)part / (double)ov->comp_ns) : 0;
        comm += ov->comm_ns;
        comp += part;
        if (e[k].rank >= 0 && e[k].rank < x->P)
            x->own[e[k].rank] += saving;
        if (x->cm && sh.back > 0)
            partner_waits(ov, sh.back, x->partner, x->P);
        if (search_change_overlap(x->m->xr, e[k].rank, ov, sh.back, sh.fwd, h) < 0)
            return TRACE_ERR_NOMEM;
        h->instances += ov->instances;
        h->with_window += ov->with_window;
        *truncated += ov->truncated;
        if (k + 1 == j || e[k + 1].rank != e[k].rank) {
            if (comm > h->comm_ns)
                h->comm_ns = comm;
            if (comp > h->comp_ns)
                h->comp_ns = comp;
            comm = comp = 0;
        }
    }
    return 0;
}

/* Per rank: its calls' own saving and its shorter waits for the calls of
 * the others; the hint gains what its best rank gains. */
static int overlap_by_rank(struct ov_merge *x, struct search_hint *h)
{
    int nb = 0;
    for (int r = 0; r < x->P; r++)
        nb += x->own[r] + x->partner[r] > 0;
    if (nb && !(h->by_rank = calloc(nb, sizeof *h->by_rank)))
        return TRACE_ERR_NOMEM;
    for (int r = 0; r < x->P; r++) {
        uint64_t t = x->own[r] + x->partner[r];
        if (!t)
            continue;
        h->by_rank[h->nby_rank++] = (struct search_rank_saving){r, t, x->partner[r]};
        if (t > h->saving_ns || (t == h->saving_ns && x->partner[r] < h->partner_ns)) {
            h->saving_ns = t;
            h->partner_ns = x->partner[r];
        }
        x->own[r] = x->partner[r] = 0;
    }
    return 0;
}

/* A collective made nonblocking must be nonblocking on every member: a
 * blocking and a nonblocking collective do not match.  The first call site
 * other than the hint's where a member of one of its instances (the
 * lowest rank's first lead, search_overlap.coll_inst; its members' sites
 * gathered by the cross-rank stage) made the same collective: the fix
 * names it.  Sites are compared by location. */
static void coll_partner_site(const struct search_xrank *x, const struct ov_ent *e, struct search_hint *h)
{
    const struct search_overlap *ov = e->ov;
    uint32_t n = 0;
    const struct search_coll_member *mem =
        x && ov->coll_inst != UINT32_MAX ? search_xrank_coll_sites(x, ov->coll_inst, &n) : NULL;
    for (uint32_t k = 0; mem && k < n; k++) {
        const struct search_rank_result *rr =
            mem[k].rank >= 0 && mem[k].rank < x->world_size && x->by_rank ? x->by_rank[mem[k].rank] : NULL;
        const struct trace_site_info *si = rr && mem[k].site != CHT_NONE ? search_site_info(rr, mem[k].site) : NULL;
        if (!si || !si->line || (si->line == h->line && !strcmp(search_nz(si->file), search_nz(h->file))))
            continue;
        if (e->ov->info && si->line == e->ov->info->line &&
            !strcmp(search_nz(si->file), search_nz(e->ov->info->file)))
            continue; /* the hint's own call, shown above it through a helper */
        h->coll_peer_file = si->file;
        h->coll_peer_line = si->line;
        return;
    }
}

/* What of the call's arguments differs between consecutive calls of the
 * entries [i, j) with windows (their leads, in order, on each rank;
 * search_overlap.args_differ): the buffer of each message record
 * (alternating between two addresses, as swapped arrays do, or changing
 * otherwise), its peer, its size and the tag of its message (enum
 * search_fix_differs).  A start placed in the iteration before must be
 * given the next call's arguments (jacobi's receive into u's halo row
 * receives into unew's when started in the sweep before). */
static uint8_t args_differ(const struct search_xrank *x, const struct ov_ent *e, size_t i, size_t j)
{
    uint8_t d = 0;
    for (size_t k = i; x && k < j; k++)
        d |= e[k].ov->args_differ;
    if (d & SEARCH_FIX_BUF_CHANGES)
        d &= (uint8_t)~SEARCH_FIX_BUF_ALTERNATES;
    return d;
}

/* Whether the calls of an entry that follow one another at once (its
 * fwd_chained instances) can all be pending together: pending sends only
 * read their buffers; no two consecutive receives of the site on the
 * rank write overlapping buffers (search_overlap.recv_bufs_apart; not
 * known without the cross-rank stage). */
static bool chain_ok(const struct search_xrank *x, const struct ov_ent *e)
{
    return e->ov->role == DG_ROLE_SEND || (x && e->ov->recv_bufs_apart);
}

/* Whether the helper an MPI call is made in (hint shown above the call,
 * at ctx's anchor) does more than that call: the call is inside a loop of
 * the helper, or the helper makes another MPI call any rank's results
 * know.  Calling the helper earlier then moves the rest of it too, which
 * the call's windows say nothing about (ring_allgather's share_positions:
 * the y send after the x one, and the next rounds; heat_helpers'
 * halo_swap: two Sendrecv). */
static bool helper_loops(const struct ov_ent *e, size_t i, const struct trace_callctx *ctx)
{
    const struct trace_site_info *ci = e[i].ov->info;
    return ci && ci->loop_info && !strcmp(search_nz(ci->loop_info->func), search_nz(ctx->frames[0].func));
}

static bool helper_busy(const struct ov_ent *e, size_t i, size_t j, const struct trace_callctx *ctx)
{
    const char *hf = search_nz(ctx->frames[0].func), *hfile = search_nz(ctx->frames[0].file);
    if (helper_loops(e, i, ctx))
        return true;
    for (size_t k = i; k < j; k++)
        for (uint32_t o = 0; e[k].res && o < e[k].res->noverlaps; o++) {
            const struct trace_site_info *oi = e[k].res->overlaps[o].info;
            if (oi && oi->line != ctx->frames[0].line && !strcmp(search_nz(oi->func), hf) &&
                !strcmp(search_nz(oi->file), hfile))
                return true;
        }
    return false;
}

static bool same_place(const struct search_fix_loc *a, const struct search_fix_loc *b)
{
    return a->where == b->where && a->line == b->line && a->other_iteration == b->other_iteration &&
           !strcmp(search_nz(a->file), search_nz(b->file));
}

/* Whether p is the plain hint at the same call as the needs-buffer hint
 * h, with the same edit. */
static bool same_edit(const struct search_hint *p, const struct search_hint *h)
{
    return p->kind == h->kind && !(p->flags & SEARCH_HINT_NEEDS_BUFFER) && p->line == h->line &&
           p->col == h->col && p->ctx == h->ctx && !strcmp(search_nz(p->file), search_nz(h->file)) &&
           same_place(&p->fix.start, &h->fix.start) && same_place(&p->fix.wait, &h->fix.wait);
}

/* The sides of the edit of the entries [i, j) that hold for every call
 * (docs/dependence.md, "The fix"): *back and *fwd are the entries whose
 * bounds the fix takes, NULL for a side not kept; *no_back says the
 * backward side was ruled out (no lines every entry moves either).  Sets
 * h->iters.  Returns 0 or TRACE_ERR_NOMEM. */
static int overlap_sides(const struct ov_merge *x, struct search_hint *h, const struct ov_ent *e, size_t i,
                         size_t j, struct ov_sides *sd, const struct search_overlap **backp,
                         const struct search_overlap **fwdp, bool *no_backp)
{
    /* a call with a window on one side only (gauss's pivot receive,
     * whose backward window is empty when the step before eliminated
     * with the previous pivot row): the one edit cannot move that side
     * for any call, so the side is not kept on any rank */
    bool no_back = false, no_fwd = false, back_out = false, fwd_out = false;
    for (size_t k = i; k < j; k++) {
        no_back |= e[k].ov->back_empty > 0;
        no_fwd |= e[k].ov->fwd_empty > 0 || (e[k].ov->fwd_chained && !chain_ok(x->m->xr, &e[k]));
        back_out |= e[k].ov->back_empty_outside > 0;
        fwd_out |= e[k].ov->fwd_empty_outside > 0;
    }
    const struct search_overlap *back = no_back ? NULL : overlap_side(e, i, j, true, sd);
    const struct search_overlap *fwd = no_fwd ? NULL : overlap_side(e, i, j, false, sd);

    /* windows bounded by other statements than the fix's: the edit holds
     * for them only if they run outside the loop the fix's place is in
     * (pipeline's first block of a sweep, bounded by the statement after
     * the previous sweep; not gauss's elimination with another rank's
     * pivot row, in the same loop as the fix's bound) */
    if (search_boxes_copy(&h->iters, &e[i].ov->iters) < 0)
        return TRACE_ERR_NOMEM;
    for (size_t k = i; k < j; k++) {
        const struct search_overlap *ov = e[k].ov;
        /* a start in the iteration before is placed in every iteration:
         * right only if the call runs in each (its instances make one box
         * of consecutive iterations; gauss's owner sends every other step
         * on 2 ranks, so a send started in every step would start calls
         * that never come) */
        if (back && back->dep_earlier && (ov->iters.n > 1 || ov->iters.more))
            back = NULL, no_back = true;
        for (uint8_t b = 0; back && b < ov->nback_others; b++)
            if (!search_fix_bound_fits(h, back->dep_info, &ov->back_others[b]))
                back = NULL, no_back = true;
        for (uint8_t b = 0; fwd && b < ov->nfwd_others; b++)
            if (!search_fix_bound_fits(h, fwd->use_info, &ov->fwd_others[b]))
                fwd = NULL, no_fwd = true;
    }
    /* through a helper: calling the helper earlier moves all it does, so
     * it holds only for a helper that does nothing but the call (the
     * windows are the call's alone); waiting after the helper returns
     * holds only if what needs the call is not another MPI call inside it
     * (ring_allgather's next round, in share_positions' loop), which the
     * fix would place at the helper's call */
    if (h->ctx && h->ctx->anchor > 0) {
        if (back && helper_busy(e, i, j, h->ctx))
            back = NULL, no_back = true;
        /* a call in a loop of the helper: one request cannot be returned
         * for all its rounds */
        if (fwd && helper_loops(e, i, h->ctx))
            fwd = NULL, no_fwd = true;
        /* an MPI call inside the helper (its next round) needs it: the
         * fix would lift that bound to the helper's call, after it */
        for (uint32_t f = 0; fwd && fwd->use_info && fwd->use_info->ctx && f < h->ctx->anchor; f++)
            if (!strcmp(search_nz(fwd->use_info->func), search_nz(h->ctx->frames[f].func)))
                fwd = NULL, no_fwd = true;
    }
    /* a call that runs first in its loop nest with no room before it
     * (jacobi's first sweep: the halo row was just initialised) is served
     * by a start in the iteration before ("the first one right before the
     * loop"), not by one in the same iteration; likewise the last wait */
    if (back && back_out && !(back->dep_site != CHT_NONE && back->dep_earlier)) {
        back = NULL;
        no_back = true;
    }
    if (fwd && fwd_out && !(fwd->use_site != CHT_NONE && fwd->use_later)) {
        fwd = NULL;
        no_fwd = true;
    }
    for (size_t k = i; k < j; k++) {
        sd[k - i].back &= back != NULL;
        sd[k - i].fwd &= fwd != NULL;
    }
    *backp = back;
    *fwdp = fwd;
    *no_backp = no_back;
    return 0;
}

/* The related lines the fix does not place between the start and the
 * wait (search_fix_places: the last wait right after the loop, and lines
 * after that loop in the last call's window) leave the hint, and its
 * sums are taken again without them: what it lists, credits and replays
 * is what the edit overlaps (mpi_array's gather of results, whose last
 * receive's window ran on into the printing of them after the loop). */
static int fix_window(struct ov_merge *x, struct search_hint *h, const struct ov_ent *e, size_t i, size_t j,
                      const struct ov_sides *sd, uint64_t *truncated)
{
    size_t ndrop = 0;
    struct ov_line *drop = NULL;
    uint32_t m = 0;
    bool *keep = malloc((h->nrelated ? h->nrelated : 1) * sizeof *keep);
    if (!keep)
        return TRACE_ERR_NOMEM;
    /* all decided before any line moves (the fix points at some) */
    for (uint32_t k = 0; k < h->nrelated; k++)
        ndrop += !(keep[k] = search_fix_places(h, &h->related[k]));
    h->fix.start.rel = h->fix.wait.rel = NULL;
    if (!ndrop || !(drop = malloc(ndrop * sizeof *drop))) {
        free(keep);
        return ndrop ? TRACE_ERR_NOMEM : 0;
    }
    ndrop = 0;
    for (uint32_t k = 0; k < h->nrelated; k++) {
        struct search_related *r = &h->related[k];
        if (keep[k]) {
            h->related[m++] = *r;
            continue;
        }
        drop[ndrop++] = (struct ov_line){search_nz(r->file), r->line};
        free(r->iters.box);
    }
    free(keep);
    h->nrelated = m;
    qsort(drop, ndrop, sizeof *drop, ov_line_cmp);
    free(h->by_rank);
    h->by_rank = NULL;
    h->nby_rank = 0;
    h->nchanges = 0;
    h->comm_ns = h->comp_ns = h->saving_ns = h->partner_ns = 0;
    h->instances = h->with_window = 0;
    *truncated = 0;
    int rc = m ? overlap_sums(x, h, e, i, j, sd, drop, ndrop, truncated) : 0;
    if (!rc && m)
        rc = overlap_by_rank(x, h);
    free(drop);
    return rc;
}

/* The hint of the entries [i, j), which have the same location: kept, or
 * dropped without related lines. */
static int overlap_hint(struct ov_merge *x, const struct ov_ent *e, size_t i, size_t j)
{
    struct search_hints *hs = x->m->hints;
    struct search_hint *h = search_hints_push(hs);
    uint64_t truncated = 0;
    if (!h || search_hint_alloc_ranks(h, j - i) < 0)
        return TRACE_ERR_NOMEM;
    h->kind = x->m->kind;
    h->call = e[i].ov->call;
    h->file = e[i].key.file;
    h->func = e[i].key.func;
    h->line = e[i].key.line;
    h->col = e[i].key.col;
    h->ctx = e[i].key.ctx;
    h->path = e[i].ov->info ? e[i].ov->info->ctx : NULL;
    h->call_loop = e[i].ov->info ? e[i].ov->info->loop_info : NULL;
    h->call_conditional = e[i].ov->info && (e[i].ov->info->flags & CHT_SITEF_CONDITIONAL);
    h->call_arg_vars = e[i].ov->info && (e[i].ov->info->flags & CHT_SITEF_ARG_VARS);
    for (size_t k = i; k < j; k++)
        search_hint_add_rank(h, e[k].rank);
    if (h->nranks < search_ranks_running(x->m->ranks, x->m->n, &e[i].key)) {
        /* a rank that runs the call without any window needs its result
         * at once (or feeds it right before): the one edit, made in the
         * source every rank runs, would be wrong there (well-written.c's
         * root reads the Allreduce's result right after it, the others
         * free two arrays); decided before any of the hint's work */
        search_hint_clear(h);
        hs->n--;
        return 0;
    }
    struct ov_sides *sd = calloc(j - i, sizeof *sd);
    if (!sd)
        return TRACE_ERR_NOMEM;
    const struct search_overlap *back = NULL, *fwd = NULL;
    bool no_back = false;
    if (overlap_sides(x, h, e, i, j, sd, &back, &fwd, &no_back) < 0) {
        free(sd);
        return TRACE_ERR_NOMEM;
    }
    struct ov_line *common = NULL;
    long ncommon = back || no_back ? 0 : common_before(h, e, i, j, &common);
    if (ncommon < 0) {
        free(sd);
        return TRACE_ERR_NOMEM;
    }
    for (size_t k = i; k < j && ncommon; k++)
        sd[k - i].common = true;
    int rc = overlap_sums(x, h, e, i, j, sd, NULL, 0, &truncated);
    if (!rc)
        rc = overlap_by_rank(x, h);
    if (!rc)
        rc = overlap_related(h, e, i, j, sd, common, (size_t)ncommon);
    free(common);
    if (rc < 0) {
        free(sd);
        return TRACE_ERR_NOMEM;
    }
    if (!h->nrelated) {
        free(sd);
        search_hint_clear(h);
        hs->n--;
        return 0;
    }
    if (e[i].ov->needs_buffer) {
        struct search_loc o;
        search_loc_of(e[i].ov->over_info, e[i].ov->over_site, &o);
        h->flags |= SEARCH_HINT_NEEDS_BUFFER;
        h->buf_file = h->file;
        h->buf_line = h->line;
        h->over_file = o.file;
        h->over_line = o.line;
        h->over_frees = e[i].ov->over_info && (e[i].ov->over_info->flags & CHT_SITEF_HEAP);
    }
    /* the fix: bounded where every entry allows it (a side no bound fits
     * starts or waits at the call) */
    const struct search_overlap *dep = back && back->dep_site != CHT_NONE ? back : NULL;
    const struct search_overlap *use = fwd && fwd->use_site != CHT_NONE ? fwd : NULL;
    uint32_t dep_loops = 0;
    for (size_t k = i; k < j; k++)
        dep_loops |= e[k].ov->dep_loops;
    search_fix_overlap(h, dep ? dep->dep_info : NULL, dep && dep->dep_earlier, use ? use->use_info : NULL,
                       use && use->use_later, dep_loops);
    rc = fix_window(x, h, e, i, j, sd, &truncated);
    free(sd);
    if (rc < 0)
        return rc;
    if (!h->nrelated) {
        /* the fix places none of it between the start and the wait */
        search_hint_clear(h);
        hs->n--;
        return 0;
    }
    for (uint32_t k = 0; k < h->nrelated; k++)
        if (h->related[k].conditional)
            h->flags |= SEARCH_HINT_CONDITIONAL;
    if (h->fix.start.other_iteration)
        h->fix.start.differs = args_differ(x->m->xr, e, i, j);
    coll_partner_site(x->m->xr, &e[i], h);
    if (search_fix_changes_nothing(h)) {
        /* started where it is and waited for right after it: whatever
         * the windows hold, the hint names nothing to do */
        search_hint_clear(h);
        hs->n--;
        return 0;
    }
    if (h->with_window < h->instances)
        h->flags |= SEARCH_HINT_SOME_ITERATIONS;
    if ((h->fix.start.per_call || h->fix.wait.per_call) && h->call_loop && h->with_window == h->instances &&
        search_fix_first_iteration(h, h->call_loop->id))
        /* one request per call of a loop that ran once each time: no
         * second iteration showed whether its writes meet a call still in
         * flight (miniFE's send of a local int in a loop over neighbours,
         * one neighbour on 2 ranks) */
        h->flags |= SEARCH_HINT_ONE_PASS;
    if (truncated)
        h->flags |= SEARCH_HINT_TRUNCATED;
    if (e[i].ov->needs_buffer && hs->n >= 2 && same_edit(&hs->v[hs->n - 2], h)) {
        /* the plain hint at the same call makes the same edit: the
         * overwrite comes after the wait, no copy is needed (jacobi's
         * sends, whose buffers are freed after the loop) */
        search_hint_clear(h);
        hs->n--;
    }
    return 0;
}

int search_overlap_merge(const struct search_merge *m)
{
    struct search_rank_result *const *ranks = m->ranks;
    struct ov_merge x = {.m = m, .P = m->xr ? m->xr->world_size : 0};
    size_t cap = 0, ne = 0;
    struct ov_ent *e = NULL;
    int rc = 0;

    for (int r = 0; r < m->n; r++)
        if (ranks[r])
            cap += ranks[r]->noverlaps;
    if (!cap)
        return 0;
    e = malloc(cap * sizeof *e);
    x.own = calloc(x.P ? x.P : 1, sizeof *x.own);
    x.partner = calloc(x.P ? x.P : 1, sizeof *x.partner);
    if (!e || !x.own || !x.partner || clockmaps(m->xr, m->clocks_aligned, &x.cm) < 0) {
        rc = TRACE_ERR_NOMEM;
        goto out;
    }
    for (int r = 0; r < m->n; r++) {
        const struct search_rank_result *res = ranks[r];
        for (uint32_t k = 0; res && k < res->noverlaps; k++) {
            const struct search_overlap *ov = &res->overlaps[k];
            if (!ov->with_window)
                continue;
            struct ov_ent *y = &e[ne++];
            search_loc_of(ov->info, ov->site, &y->key);
            y->rank = res->rank;
            y->res = res;
            y->ov = ov;
        }
    }
    qsort(e, ne, sizeof *e, ov_ent_cmp);
    for (size_t i = 0; i < ne && rc == 0;) {
        size_t j = i + 1;
        while (j < ne && !search_loc_cmp(&e[j].key, &e[i].key, true) &&
               e[j].ov->needs_buffer == e[i].ov->needs_buffer)
            j++;
        rc = overlap_hint(&x, e, i, j);
        i = j;
    }
out:
    free(x.partner);
    free(x.own);
    free(e);
    return rc;
}
