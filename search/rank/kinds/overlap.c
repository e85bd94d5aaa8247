/* overlap.c - the overlap kind (docs/dependence.md, "Communication-
 * computation overlap"): blocking calls that could become nonblocking,
 * and the computation their windows hold.  This file is the kind itself
 * and its per-rank result (search_rank_result.overlaps): freeing,
 * comparing, walking the sites and packing it, and the message of its
 * hints.  The engines' parts are in overlap-stream.c and
 * overlap-reference.c, the merge into hints in overlap-merge.c.
 */
#include <stdio.h>

#include "rank/kinds/overlap.h"

#include "parallel/pack-bytes.h"

/* ---- freeing and comparing ------------------------------------------------------------ */

static void overlap_free(struct search_overlap *o)
{
    for (uint32_t j = 0; j < o->nstmts; j++)
        search_boxes_free(&o->stmts[j].iters);
    free(o->stmts);
    search_boxes_free(&o->iters);
    free(o->windows);
    free(o->leads);
    free(o->partner);
}

void search_overlap_drop_last(struct search_rank_result *r)
{
    overlap_free(&r->overlaps[--r->noverlaps]);
    memset(&r->overlaps[r->noverlaps], 0, sizeof r->overlaps[r->noverlaps]);
}

static void ov_result_free(struct search_rank_result *r)
{
    for (uint32_t i = 0; i < r->noverlaps; i++)
        overlap_free(&r->overlaps[i]);
    free(r->overlaps);
    r->overlaps = NULL;
    r->noverlaps = 0;
}

static bool stmt_diff(const struct search_stmt *a, const struct search_stmt *b, uint32_t osite, char *why,
                      size_t size)
{
    char what[96];

    snprintf(what, sizeof(what), "overlap site=%" PRIu32 " stmt site=%" PRIu32 ": ", osite, a->site);
#define CMP(field) SEARCH_CMP_FIELD(what, field)
    CMP(flags);
    CMP(site_flags);
    CMP(events);
    CMP(total);
    CMP(time_ns);
#undef CMP
    snprintf(what, sizeof(what), "overlap site=%" PRIu32 " stmt site=%" PRIu32 " iters", osite, a->site);
    return search_boxes_diff(&a->iters, &b->iters, what, why, size);
}

/* The statements and leads of two overlaps of the same site. */
static bool stmts_leads_diff(const struct search_overlap *a, const struct search_overlap *b, char *why,
                             size_t size)
{
    for (uint32_t j = 0; j < a->nstmts && j < b->nstmts; j++) {
        if (a->stmts[j].site != b->stmts[j].site)
            return search_differ(why, size, "overlap site=%" PRIu32 ": stmt %" PRIu32 " site=%" PRIu32
                                 " != site=%" PRIu32,
                                 a->site, j, a->stmts[j].site, b->stmts[j].site);
        if (!stmt_diff(&a->stmts[j], &b->stmts[j], a->site, why, size))
            return false;
    }
    if (a->nstmts != b->nstmts)
        return search_differ(why, size,
                             "overlap site=%" PRIu32 ": nstmts %" PRIu32 " != %" PRIu32
                             " (first extra stmt site=%" PRIu32 ")",
                             a->site, a->nstmts, b->nstmts,
                             a->nstmts > b->nstmts ? a->stmts[b->nstmts].site : b->stmts[a->nstmts].site);
    for (uint32_t j = 0; j < a->nleads && j < b->nleads; j++)
        if (a->leads[j].index != b->leads[j].index || a->leads[j].span_ns != b->leads[j].span_ns ||
            a->leads[j].after_ns != b->leads[j].after_ns || a->leads[j].fw_end != b->leads[j].fw_end ||
            a->leads[j].pos != b->leads[j].pos || a->leads[j].t_enter != b->leads[j].t_enter ||
            a->leads[j].t_exit != b->leads[j].t_exit || a->leads[j].fw_exit != b->leads[j].fw_exit)
            return search_differ(why, size,
                                 "overlap site=%" PRIu32 ": lead %" PRIu32 " index=%" PRIu64 " span=%" PRIu64
                                 " != index=%" PRIu64 " span=%" PRIu64,
                                 a->site, j, a->leads[j].index, a->leads[j].span_ns, b->leads[j].index,
                                 b->leads[j].span_ns);
    if (a->nleads != b->nleads)
        return search_differ(why, size, "overlap site=%" PRIu32 ": nleads %" PRIu32 " != %" PRIu32, a->site,
                             a->nleads, b->nleads);
    return true;
}

static bool overlap_diff(const struct search_overlap *a, const struct search_overlap *b, char *why,
                         size_t size)
{
    char what[64];

    snprintf(what, sizeof(what), "overlap site=%" PRIu32 ": ", a->site);
#define CMP(field) SEARCH_CMP_FIELD(what, field)
    CMP(call);
    CMP(role);
    CMP(needs_buffer);
    CMP(over_site);
    CMP(instances);
    CMP(with_window);
    CMP(back_empty);
    CMP(back_empty_outside);
    CMP(dep_loops);
    CMP(fwd_empty);
    CMP(fwd_empty_outside);
    CMP(fwd_chained);
    CMP(recv_bufs_apart);
    CMP(args_differ);
    CMP(nback_others);
    CMP(nfwd_others);
    for (uint8_t k = 0; k < a->nback_others; k++)
        if (a->back_others[k].site != b->back_others[k].site || a->back_others[k].other != b->back_others[k].other ||
            a->back_others[k].n != b->back_others[k].n)
            return search_differ(why, size, "%sback_others[%u] differ", what, k);
    for (uint8_t k = 0; k < a->nfwd_others; k++)
        if (a->fwd_others[k].site != b->fwd_others[k].site || a->fwd_others[k].other != b->fwd_others[k].other ||
            a->fwd_others[k].n != b->fwd_others[k].n)
            return search_differ(why, size, "%sfwd_others[%u] differ", what, k);
    CMP(truncated);
    CMP(comm_ns);
    CMP(comp_ns);
    CMP(saving_ns);
    CMP(dep_site);
    CMP(use_site);
    CMP(dep_earlier);
    CMP(use_later);
#undef CMP
    snprintf(what, sizeof(what), "overlap site=%" PRIu32 " iters", a->site);
    if (!search_boxes_diff(&a->iters, &b->iters, what, why, size))
        return false;
    return stmts_leads_diff(a, b, why, size);
}

/* The windows (display only) are not compared. */
static bool ov_result_equal(const struct search_rank_result *a, const struct search_rank_result *b, char *why,
                            size_t size)
{
    for (uint32_t i = 0; i < a->noverlaps && i < b->noverlaps; i++) {
        if (a->overlaps[i].site != b->overlaps[i].site ||
            a->overlaps[i].needs_buffer != b->overlaps[i].needs_buffer)
            return search_differ(why, size,
                                 "overlap %" PRIu32 ": site=%" PRIu32 " needs_buffer=%d != site=%" PRIu32
                                 " needs_buffer=%d",
                                 i, a->overlaps[i].site, a->overlaps[i].needs_buffer, b->overlaps[i].site,
                                 b->overlaps[i].needs_buffer);
        if (!overlap_diff(&a->overlaps[i], &b->overlaps[i], why, size))
            return false;
    }
    if (a->noverlaps != b->noverlaps)
        return search_differ(why, size, "noverlaps %" PRIu32 " != %" PRIu32 " (first extra site=%" PRIu32 ")",
                             a->noverlaps, b->noverlaps,
                             a->noverlaps > b->noverlaps ? a->overlaps[b->noverlaps].site
                                                         : b->overlaps[a->noverlaps].site);
    return true;
}

/* Each call site, then its statements. */
static bool ov_visit(struct search_rank_result *r, const struct search_site_visitor *v)
{
    for (uint32_t i = 0; i < r->noverlaps; i++) {
        struct search_overlap *o = &r->overlaps[i];
        if (v->site && v->site(v->ctx, o->site, &o->info))
            return true;
        if (o->needs_buffer && v->site && v->site(v->ctx, o->over_site, &o->over_info))
            return true;
        if (o->dep_site != CHT_NONE && v->site && v->site(v->ctx, o->dep_site, &o->dep_info))
            return true;
        if (o->use_site != CHT_NONE && v->site && v->site(v->ctx, o->use_site, &o->use_info))
            return true;
        for (uint8_t k = 0; v->site && k < o->nback_others; k++)
            if (v->site(v->ctx, o->back_others[k].site, &o->back_others[k].info))
                return true;
        for (uint8_t k = 0; v->site && k < o->nfwd_others; k++)
            if (v->site(v->ctx, o->fwd_others[k].site, &o->fwd_others[k].info))
                return true;
        if (v->boxes)
            v->boxes(v->ctx, &o->iters);
        for (uint32_t j = 0; j < o->nstmts; j++) {
            if (v->site && v->site(v->ctx, o->stmts[j].site, &o->stmts[j].info))
                return true;
            if (v->boxes)
                v->boxes(v->ctx, &o->stmts[j].iters);
        }
    }
    return false;
}

/* ---- packing: a u32 count, then each overlap with its statements, leads
 * and windows ----------------------------------------------------------------------------- */

#define OVERLAP_MIN (4u + 2 + 1 + 1 + 1 + 4 + 6 * 8 + BOXES_MIN + 4 + 4 + 4 + 4 + 4 + 2 + 2)
#define LEAD_BYTES (4u * 8 + 4 + 3 * 8)
#define STMT_MIN (4u + 4 + 4 + 1 + 3 * 8 + BOXES_MIN)

static void ov_pack(struct pk_buf *b, const struct search_rank_result *r)
{
    pk_u32(b, r->noverlaps);
    for (uint32_t i = 0; i < r->noverlaps; i++) {
        const struct search_overlap *o = &r->overlaps[i];
        pk_u32(b, o->site);
        pk_u16(b, o->call);
        pk_u8(b, o->role);
        pk_site_flag(b, o->info);
        pk_u8(b, o->needs_buffer);
        pk_u32(b, o->over_site);
        if (o->needs_buffer)
            pk_site_flag(b, o->over_info);
        pk_u64(b, o->instances);
        pk_u64(b, o->with_window);
        pk_u64(b, o->back_empty);
        pk_u64(b, o->back_empty_outside);
        pk_u32(b, o->dep_loops);
        pk_u64(b, o->fwd_empty);
        pk_u64(b, o->fwd_empty_outside);
        pk_u64(b, o->fwd_chained);
        pk_u8(b, o->recv_bufs_apart);
        pk_u8(b, o->args_differ);
        pk_u64(b, o->truncated);
        pk_u64(b, o->comm_ns);
        pk_u64(b, o->comp_ns);
        pk_u64(b, o->saving_ns);
        pk_boxes(b, &o->iters);
        pk_u32(b, o->nstmts);
        for (uint32_t j = 0; j < o->nstmts; j++) {
            const struct search_stmt *s = &o->stmts[j];
            pk_u32(b, s->site);
            pk_u32(b, s->flags);
            pk_u32(b, s->site_flags);
            pk_site_flag(b, s->info);
            pk_u64(b, s->events);
            pk_u64(b, s->total);
            pk_u64(b, s->time_ns);
            pk_boxes(b, &s->iters);
        }
        pk_u32(b, o->nleads);
        for (uint32_t j = 0; j < o->nleads; j++) {
            pk_u64(b, o->leads[j].index);
            pk_u64(b, o->leads[j].span_ns);
            pk_u64(b, o->leads[j].after_ns);
            pk_u64(b, o->leads[j].fw_end);
            pk_u32(b, o->leads[j].pos);
            pk_u64(b, o->leads[j].t_enter);
            pk_u64(b, o->leads[j].t_exit);
            pk_u64(b, o->leads[j].fw_exit);
        }
        pk_u32(b, o->dep_site);
        pk_u32(b, o->use_site);
        pk_u8(b, o->dep_earlier);
        pk_u8(b, o->use_later);
        if (o->dep_site != CHT_NONE)
            pk_site_flag(b, o->dep_info);
        if (o->use_site != CHT_NONE)
            pk_site_flag(b, o->use_info);
        for (int side = 0; side < 2; side++) {
            uint8_t n = side ? o->nfwd_others : o->nback_others;
            const struct search_bound *v = side ? o->fwd_others : o->back_others;
            pk_u8(b, n);
            for (uint8_t k = 0; k < n; k++) {
                pk_u32(b, v[k].site);
                pk_u8(b, v[k].other);
                pk_u64(b, v[k].n);
                pk_site_flag(b, v[k].info);
            }
        }
        pk_u32(b, o->nwindows);
        for (uint32_t j = 0; j < o->nwindows; j++) {
            pk_u64(b, o->windows[j].t_call);
            pk_u64(b, o->windows[j].t_lo);
            pk_u64(b, o->windows[j].t_hi);
        }
    }
}

static void rd_stmts(struct pk_rd *r, struct search_overlap *o)
{
    uint32_t ns = rd_count(r, STMT_MIN);
    if (ns && (o->stmts = rd_alloc(r, ns, sizeof *o->stmts)))
        o->nstmts = ns;
    for (uint32_t j = 0; j < o->nstmts && !r->bad; j++) {
        struct search_stmt *s = &o->stmts[j];
        s->site = rd_u32(r);
        s->flags = rd_u32(r);
        s->site_flags = rd_u32(r);
        s->info = rd_site_flag(r);
        s->events = rd_u64(r);
        s->total = rd_u64(r);
        s->time_ns = rd_u64(r);
        rd_boxes(r, &s->iters);
    }
}

static void rd_leads_windows(struct pk_rd *r, struct search_overlap *o)
{
    uint32_t nl = rd_count(r, LEAD_BYTES);
    if (nl && (o->leads = rd_alloc(r, nl, sizeof *o->leads)))
        o->nleads = nl;
    for (uint32_t j = 0; j < o->nleads && !r->bad; j++) {
        o->leads[j].index = rd_u64(r);
        o->leads[j].span_ns = rd_u64(r);
        o->leads[j].after_ns = rd_u64(r);
        o->leads[j].fw_end = rd_u64(r);
        o->leads[j].pos = rd_u32(r);
        o->leads[j].t_enter = rd_u64(r);
        o->leads[j].t_exit = rd_u64(r);
        o->leads[j].fw_exit = rd_u64(r);
    }
    o->dep_site = rd_u32(r);
    o->use_site = rd_u32(r);
    o->dep_earlier = rd_bool(r);
    o->use_later = rd_bool(r);
    if (o->dep_site != CHT_NONE)
        o->dep_info = rd_site_flag(r);
    if (o->use_site != CHT_NONE)
        o->use_info = rd_site_flag(r);
    for (int side = 0; side < 2 && !r->bad; side++) {
        uint8_t n = rd_u8(r);
        struct search_bound *v = side ? o->fwd_others : o->back_others;
        if (n > SEARCH_OV_OTHERS) {
            rd_fail(r, "too many other bounds");
            break;
        }
        for (uint8_t k = 0; k < n && !r->bad; k++) {
            v[k].site = rd_u32(r);
            v[k].other = rd_bool(r);
            v[k].n = rd_u64(r);
            v[k].info = rd_site_flag(r);
        }
        *(side ? &o->nfwd_others : &o->nback_others) = r->bad ? 0 : n;
    }
    uint32_t nw = rd_count(r, 24);
    if (nw && (o->windows = rd_alloc(r, nw, sizeof *o->windows)))
        o->nwindows = nw;
    for (uint32_t j = 0; j < o->nwindows && !r->bad; j++) {
        o->windows[j].t_call = rd_u64(r);
        o->windows[j].t_lo = rd_u64(r);
        o->windows[j].t_hi = rd_u64(r);
    }
}

static void ov_unpack(struct pk_rd *r, struct search_rank_result *res)
{
    uint32_t n = rd_count(r, OVERLAP_MIN);
    if (n && (res->overlaps = rd_alloc(r, n, sizeof *res->overlaps)))
        res->noverlaps = n;
    for (uint32_t i = 0; i < res->noverlaps && !r->bad; i++) {
        struct search_overlap *o = &res->overlaps[i];
        o->site = rd_u32(r);
        o->call = rd_u16(r);
        o->role = rd_u8(r);
        o->info = rd_site_flag(r);
        o->needs_buffer = rd_bool(r);
        o->over_site = rd_u32(r);
        if (o->needs_buffer)
            o->over_info = rd_site_flag(r);
        o->instances = rd_u64(r);
        o->with_window = rd_u64(r);
        o->back_empty = rd_u64(r);
        o->back_empty_outside = rd_u64(r);
        o->dep_loops = rd_u32(r);
        o->fwd_empty = rd_u64(r);
        o->fwd_empty_outside = rd_u64(r);
        o->fwd_chained = rd_u64(r);
        o->recv_bufs_apart = rd_bool(r);
        o->args_differ = rd_u8(r);
        o->truncated = rd_u64(r);
        o->comm_ns = rd_u64(r);
        o->comp_ns = rd_u64(r);
        o->saving_ns = rd_u64(r);
        rd_boxes(r, &o->iters);
        rd_stmts(r, o);
        rd_leads_windows(r, o);
    }
}

/* ---- the fix's statements, counted by both engines --------------------------------- */

uint64_t search_ov_most(const struct dg_map *m)
{
    uint64_t best = 0, key = CHT_NONE;
    for (size_t i = 0; i < m->cap; i++)
        if (dg_map_used(m, i) && (m->vals[i] > best || (m->vals[i] == best && m->keys[i] < key))) {
            best = m->vals[i];
            key = m->keys[i];
        }
    return key;
}

/* The innermost levels of an iteration vector, as both engines keep them. */
static void innermost(const struct trace_iter **a, uint32_t *na)
{
    if (*na > SEARCH_BOX_DEPTH) {
        *a += *na - SEARCH_BOX_DEPTH;
        *na = SEARCH_BOX_DEPTH;
    }
}

int search_ov_iter_order(const struct trace_iter *a, uint32_t na, const struct trace_iter *b, uint32_t nb)
{
    innermost(&a, &na);
    innermost(&b, &nb);
    for (uint32_t i = 0; i < na; i++)
        for (uint32_t j = 0; j < nb; j++)
            if (a[i].loop == b[j].loop) {
                if (a[i].iter != b[j].iter) {
                    uint64_t d = a[i].iter < b[j].iter ? b[j].iter - a[i].iter : a[i].iter - b[j].iter;
                    return (a[i].iter < b[j].iter ? -1 : 1) * (d > 1 ? 2 : 1);
                }
                break;
            }
    return 0;
}

uint32_t search_ov_loops_outside(const struct trace_iter *a, uint32_t na, const struct trace_iter *b, uint32_t nb)
{
    uint32_t m = 0;
    innermost(&a, &na);
    innermost(&b, &nb);
    if (na == SEARCH_BOX_DEPTH)
        return UINT32_MAX;
    for (uint32_t i = 0; i < na; i++) {
        bool in_b = false;
        for (uint32_t j = 0; j < nb && !in_b; j++)
            in_b = a[i].loop == b[j].loop;
        if (!in_b)
            m |= 1u << (a[i].loop % 32);
    }
    return m;
}

bool search_ov_shares_loop(const struct trace_iter *a, uint32_t na, const struct trace_iter *b, uint32_t nb)
{
    innermost(&a, &na);
    innermost(&b, &nb);
    for (uint32_t i = 0; i < na; i++)
        for (uint32_t j = 0; j < nb; j++)
            if (a[i].loop == b[j].loop)
                return true;
    return false;
}

/* The instances counted in m under another key than k, and not under
 * the site itself when chained is given (*chained: those). */
static uint64_t others(const struct dg_map *m, uint64_t k, uint32_t site, uint64_t *chained)
{
    uint64_t n = 0;
    for (size_t i = 0; i < m->cap; i++)
        if (dg_map_used(m, i) && m->keys[i] != k) {
            if (chained && (uint32_t)m->keys[i] == site)
                *chained += m->vals[i];
            else
                n += m->vals[i];
        }
    return n;
}

static int key_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The keys of m other than k, CHT_NONE and (with site) those of the site
 * itself, into out[0..*nout) (the SEARCH_OV_OTHERS lowest); the instances
 * of the rest are returned. */
static uint64_t other_bounds(const struct dg_map *m, uint64_t k, uint32_t site, struct search_bound *out,
                             uint8_t *nout)
{
    uint64_t keys[64], more = 0;
    size_t nk = 0;
    *nout = 0;
    for (size_t i = 0; i < m->cap; i++) {
        if (!dg_map_used(m, i) || m->keys[i] == k || m->keys[i] == CHT_NONE ||
            (site != CHT_NONE && (uint32_t)m->keys[i] == site))
            continue;
        if (nk < 64)
            keys[nk++] = m->keys[i];
        else
            more += m->vals[i];
    }
    qsort(keys, nk, sizeof *keys, key_cmp);
    for (size_t i = 0; i < nk; i++) {
        const uint64_t *v = dg_map_get(m, keys[i]);
        uint64_t n = v ? *v : 0;
        if (i < SEARCH_OV_OTHERS)
            out[(*nout)++] = (struct search_bound){(uint32_t)keys[i], (keys[i] & SEARCH_OV_OTHER_ITER) != 0, n, NULL};
        else
            more += n;
    }
    return more;
}

void search_ov_set_fix(struct search_overlap *o, const struct dg_map *dep_n, const struct dg_map *use_n,
                       const struct dg_map *dep_empty_n, const struct dg_map *use_empty_n)
{
    uint64_t dep = search_ov_most(dep_n), use = search_ov_most(use_n);
    /* an empty window bounded by the very statement the fix names is
     * served by it (gauss's last step on 2 ranks: nothing runs between
     * line 136 of the step before and the receive) */
    o->back_empty = others(dep_empty_n, dep, 0, NULL);
    o->fwd_chained = 0;
    o->fwd_empty = others(use_empty_n, use, o->site, &o->fwd_chained);
    if (dep != CHT_NONE)
        o->back_empty += other_bounds(dep_n, dep, CHT_NONE, o->back_others, &o->nback_others);
    if (use != CHT_NONE)
        o->fwd_empty += other_bounds(use_n, use, o->site, o->fwd_others, &o->nfwd_others);
    /* a bound further than the iteration right before the call's: the
     * fix's "in the iteration before" would not name it, so the side holds
     * for no call */
    const uint64_t *far;
    if (dep != CHT_NONE && (dep & SEARCH_OV_FAR_ITER) && (far = dg_map_get(dep_n, dep)))
        o->back_empty += *far;

    o->dep_site = (uint32_t)dep;
    o->use_site = (uint32_t)use;
    o->dep_earlier = dep != CHT_NONE && (dep & SEARCH_OV_OTHER_ITER);
    o->use_later = use != CHT_NONE && (use & SEARCH_OV_OTHER_ITER);
}

int search_ov_count(struct dg_map *m, uint64_t key)
{
    uint64_t *n = dg_map_put(m, key, 0);
    if (!n)
        return TRACE_ERR_NOMEM;
    ++*n;
    return 0;
}

const struct search_kind search_kind_overlap = {
    .desc = {SEARCH_HINT_OVERLAP, "overlap", "CommunicationComputationOverlap",
             "Computation that can overlap a blocking MPI call once the call is made nonblocking"},
    .stream = &search_overlap_stream,
    .reference = search_overlap_reference,
    .result_free = ov_result_free,
    .result_equal = ov_result_equal,
    .visit = ov_visit,
    .pack = ov_pack,
    .unpack = ov_unpack,
    .log_facts = search_overlap_log_facts,
    .peer_facts = search_overlap_peer_facts,
    .peer_pack = search_overlap_peer_pack,
    .peer_unpack = search_overlap_peer_unpack,
    .merge = search_overlap_merge,
    .message = search_overlap_message,
};

/* ---- the message of a hint ---------------------------------------------------------- */

/* "MPI_Recv can overlap with the computation at lines 27-28 (ranks 0-3,
 * est. saving 1.2 ms = 38% of its time)"; with shorter waits of other
 * ranks "est. saving 2 ms: 1.2 ms = 38% of its time, 800 us less waiting
 * for it on other ranks"; the needs-buffer variant "MPI_Send can overlap
 * with the computation at lines 73, 84 if each message gets its own
 * buffer (needs a buffer per message: the send buffer at line 74 is
 * overwritten at halo.c:73; ranks 0-3, ...)". */
#define OVERLAP_MESSAGE_LINES 12 /* related lines a message lists; more are named by their regions */

char *search_overlap_message(const struct search_hint *h, bool with_times)
{
    struct search_text b = {0};

    if (h->nrelated > OVERLAP_MESSAGE_LINES && h->nregions) {
        /* a long list of lines would hide the point: the regions */
        const struct search_region *g = &h->regions[0];
        const char *base = strrchr(search_nz(g->file), '/');
        search_text_printf(&b, "%s can overlap with the computation of %u lines in %u region%s, the largest ",
                           trace_mpi_call_name(h->call), h->nrelated, h->nregions, h->nregions == 1 ? "" : "s");
        if (g->loop_line)
            search_text_printf(&b, "the loop at %s:%u in %s", base ? base + 1 : search_nz(g->file), g->loop_line,
                               search_nz(g->func));
        else
            search_text_printf(&b, "%s, %s:%u-%u", search_nz(g->func), base ? base + 1 : search_nz(g->file), g->line_lo,
                               g->line_hi);
    } else {
        search_text_printf(&b, "%s can overlap with the computation at ", trace_mpi_call_name(h->call));
        search_text_lines(&b, h, false);
    }
    if (h->flags & SEARCH_HINT_NEEDS_BUFFER) {
        search_text_printf(&b, " if each message gets its own buffer (");
        search_text_needs_buffer(&b, h);
    } else
        search_text_printf(&b, " (");
    search_text_ranks(&b, h->ranks, h->nranks);
    if (with_times) {
        uint64_t mine = h->saving_ns - (h->partner_ns < h->saving_ns ? h->partner_ns : h->saving_ns);
        search_text_printf(&b, ", est. saving ");
        search_text_time(&b, h->saving_ns);
        if (h->partner_ns) {
            search_text_printf(&b, ": ");
            if (mine) {
                search_text_time(&b, mine);
                if (h->comm_ns)
                    search_text_printf(&b, " = %.0f%% of its time, ",
                                       100.0 * (double)mine / (double)h->comm_ns);
                else
                    search_text_printf(&b, " of its time, ");
            }
            search_text_time(&b, h->partner_ns);
            search_text_printf(&b, " less waiting for it on other ranks");
        } else if (h->comm_ns) {
            search_text_printf(&b, " = %.0f%% of its time",
                               100.0 * (double)h->saving_ns / (double)h->comm_ns);
        }
    }
    search_text_printf(&b, ")");
    return search_text_take(&b);
}
