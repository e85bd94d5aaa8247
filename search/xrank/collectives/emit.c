/* emit.c - what a found instance adds to its hint (struct hacc): one hint
 * per pattern and set of call sites, with the instances, the messages and
 * bytes involved, the time of the calls, and an estimated saving.
 *
 * The saving of an instance: the largest time a rank spent in the
 * point-to-point calls involved (each call at most as long as the fastest
 * call of its kind and size in the run: waiting for another rank is not
 * saved by a collective), less a model of the collective's cost (rounds of
 * messages x the instance's fastest call); never below 0.  Repeated
 * collectives bring their own (repeat.c).
 */
#include <stdlib.h>
#include <string.h>

#include "collectives-private.h"

/* Class of a SEND or RECV record for its wait-free time: kind and size
 * within a factor of two (the bit length of its byte count), over all
 * ranks; an index of coll_fastest's array. */
static unsigned class_of(const struct dg_msgrec *r)
{
    unsigned bits = 0;
    for (uint64_t b = r->bytes; b; b >>= 1)
        bits++;
    return (r->kind == DG_MSG_RECV) * 65u + bits;
}

void coll_fastest_of(const struct dg_mpilog *const *logs, int P, int64_t *v)
{
    for (unsigned k = 0; k < COLL_NCLASS; k++)
        v[k] = INT64_MAX;
    for (int r = 0; r < P; r++) {
        const struct dg_mpilog *g = logs[r];
        for (uint32_t i = 0; g && i < g->n; i++) {
            const struct dg_msgrec *x = &g->rec[i];
            uint64_t ns = coll_rec_ns(x);
            unsigned k = class_of(x);
            if ((x->kind == DG_MSG_SEND || x->kind == DG_MSG_RECV) && ns && ns < (uint64_t)v[k])
                v[k] = (int64_t)ns;
        }
    }
}

static uint64_t wait_free_ns(const struct cx *c, const struct dg_msgrec *r)
{
    int64_t v = c->fastest[class_of(r)];
    uint64_t ns = coll_rec_ns(r);
    return v != INT64_MAX && (uint64_t)v < ns ? (uint64_t)v : ns;
}

/* Per rank, the time in the instance's calls (each MPI event once), as
 * measured (*raw) and wait-free (*wfree: no call slower than the fastest
 * of its class); the largest over ranks of each; and the fastest call of
 * the instance, wait-free (*fastest). */
static void inst_times(const struct cx *c, const struct inst *in, uint64_t *raw, uint64_t *wfree,
                       uint64_t *fastest)
{
    *raw = *wfree = *fastest = 0;
    uint64_t sum = 0, fsum = 0;
    for (uint32_t i = 0; i < in->n; i++) {
        const struct part *pt = &in->v[i];
        const struct dg_msgrec *r = coll_rec(c, pt->rank, pt->pos);
        if (i && in->v[i - 1].rank != pt->rank)
            sum = fsum = 0;
        bool again =
            i && in->v[i - 1].rank == pt->rank && coll_rec(c, pt->rank, in->v[i - 1].pos)->index == r->index;
        uint64_t ns = wait_free_ns(c, r);
        if (!again) {
            sum += coll_rec_ns(r);
            fsum += ns;
        }
        if (sum > *raw)
            *raw = sum;
        if (fsum > *wfree)
            *wfree = fsum;
        if ((r->kind == DG_MSG_SEND || r->kind == DG_MSG_RECV) && ns && (!*fastest || ns < *fastest))
            *fastest = ns;
    }
}

void coll_hacc_free(struct hacc *h)
{
    free(h->locs);
    free(h->ch);
    free(h->ranks);
    free(h->roots);
}

/* Whether an instance belongs to a hint: same pattern, call sites and
 * masks, accumulating statement and op (only reduces set them). */
static bool same_signature(const struct hacc *h, const struct inst *in, const struct iloc *locs, uint32_t n)
{
    if (h->pat != in->pat || h->nlocs != n || h->has_consumer != in->has_consumer)
        return false;
    if (h->op != in->op || ((h->var ^ in->var) & VAR_LOCAL))
        return false;
    if (h->has_consumer && coll_loc_cmp(&h->consumer, &in->consumer))
        return false;
    for (uint32_t i = 0; i < n; i++)
        if (coll_loc_cmp(&h->locs[i].loc, &locs[i].loc) || h->locs[i].mask != locs[i].mask)
            return false;
    return true;
}

/* The hint of an instance whose call sites are locs, a new one at the end
 * if none has its signature; takes locs over. */
static int hacc_of(struct cx *c, const struct inst *in, struct iloc *locs, uint32_t nlocs, struct hacc **out)
{
    int rc;
    for (uint32_t i = 0; i < c->nh; i++)
        if (same_signature(&c->h[i], in, locs, nlocs)) {
            for (uint32_t k = 0; k < nlocs; k++) {
                struct iloc *l = &c->h[i].locs[k];
                l->events += locs[k].events;
                if (locs[k].per_rank > l->per_rank)
                    l->per_rank = locs[k].per_rank;
                if (!l->loop)
                    l->loop = locs[k].loop;
                l->nonroot |= locs[k].nonroot;
            }
            free(locs);
            *out = &c->h[i];
            return 0;
        }
    if ((rc = coll_grow(&c->h, &c->caph, (uint64_t)c->nh + 1, sizeof *c->h)) < 0) {
        free(locs);
        return rc;
    }
    struct hacc *h = &c->h[c->nh];
    memset(h, 0, sizeof *h);
    h->ranks = calloc((size_t)c->P, 1);
    h->roots = calloc((size_t)c->P, 1);
    if (!h->ranks || !h->roots) {
        coll_hacc_free(h);
        free(locs);
        return TRACE_ERR_NOMEM;
    }
    c->nh++;
    h->pat = in->pat;
    h->op = in->op;
    h->consumer = in->consumer;
    h->has_consumer = in->has_consumer;
    h->locs = locs;
    h->nlocs = nlocs;
    h->p = in->p;
    h->group_min = UINT64_MAX;
    *out = h;
    return 0;
}

/* The instance as the replay model applies it: its point-to-point
 * records become one collective of the instance's steps. */
static int inst_changes(struct cx *c, struct hacc *h, const struct inst *in)
{
    uint32_t id = c->ninst++;
    uint64_t steps = in->steps ? in->steps : coll_ceil_log2(in->p);
    for (uint32_t i = 0; i < in->n; i++) {
        if (h->nch == h->capch) {
            uint32_t cap = h->capch ? 2 * h->capch : 16;
            struct dg_change *p = realloc(h->ch, cap * sizeof *p);
            if (!p)
                return TRACE_ERR_NOMEM;
            h->ch = p;
            h->capch = cap;
        }
        h->ch[h->nch++] = (struct dg_change){.kind = DG_CHANGE_COLL, .rank = in->v[i].rank, .pos = coll_orig_pos(c, in->v[i].rank, in->v[i].pos),
                                             .id = id, .steps = (uint32_t)steps};
    }
    return 0;
}

int coll_emit(struct cx *c, struct inst *in)
{
    struct iloc *locs = NULL;
    uint32_t nlocs = 0;
    struct hacc *h;
    int rc;
    if (!in->n)
        return 0;
    qsort(in->v, in->n, sizeof *in->v, coll_part_cmp);
    if ((rc = coll_inst_locs(c, in, &locs, &nlocs)) < 0 || (rc = hacc_of(c, in, locs, nlocs, &h)) < 0)
        return rc;
    h->var |= in->var;
    coll_fix_facts(c, in, &h->fx, !h->matched && !h->unmatched_rounds);
    h->matched++;
    if (in->root >= 0)
        h->roots[in->root] = 1;
    if (in->ngroup) {
        h->group_sum += in->ngroup;
        if (in->ngroup < h->group_min)
            h->group_min = in->ngroup;
        if (in->ngroup > h->group_max)
            h->group_max = in->ngroup;
        h->members += in->n;
        h->saving_ns += in->saving_ns;
    }
    uint64_t raw, wfree, fastest;
    inst_times(c, in, &raw, &wfree, &fastest);
    h->comm_ns += raw;
    if (!in->ngroup) {
        /* rounds of messages the collective takes: a tree or recursive
         * doubling unless the pattern knows better */
        uint64_t steps = in->steps ? in->steps : coll_ceil_log2(in->p);
        uint64_t model = steps * fastest;
        h->saving_ns += wfree > model ? wfree - model : 0;
    }
    if (in->ngroup)
        h->unpredicted = true;
    else if ((rc = inst_changes(c, h, in)) < 0)
        return rc;
    for (uint32_t i = 0; i < in->n; i++) {
        const struct part *pt = &in->v[i];
        const struct dg_msgrec *r = coll_rec(c, pt->rank, pt->pos);
        h->ranks[pt->rank] = 1;
        c->claimed[pt->rank][pt->pos] = CLAIM_FOUND;
        if (!in->ngroup && r->kind == DG_MSG_SEND) {
            h->members++;
            h->bytes += r->bytes;
        }
        if (in->ngroup)
            h->bytes += r->bytes + r->rbytes;
    }
    return 0;
}
