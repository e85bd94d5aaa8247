/* rows-run.c - the rows of a ROWS record handed over as one run of rows
 * (trace_run.rows, TRACE_CURSOR_ROWS) instead of record by record: a
 * sparse product's rows of a few nonzeros each cost the engine one run
 * for thousands of them rather than a run and a few events per row.
 *
 * Every row applies the same records, so the loop stack moves the same
 * way in each, given its trip count.  Simulating three rows twice on a
 * copy of the stack (trip counts 2, 3, 2 and 1, 1, 1) gives each event's
 * iteration vector in row 0, iteration 0, and its slopes per iteration
 * and per row, and checks that they hold in every simulated row, that
 * the stack after a row does not depend on its trip count, and that it
 * keeps its shape; otherwise the row goes record by record, and the next
 * one is tried once more (the record's first row may start from a stack
 * the others do not), then the record goes record by record.  Leaves
 * the cursor as expanding the rows would: index, statistics, loop stack,
 * history and the ROWS decoder. */
#include <stdlib.h>
#include <string.h>

#include "cursor-state.h"

#define RR_DEPTH 24                          /* deeper stacks: no run of rows */
#define RR_SIM (RR_DEPTH + 4 * CHT_REPEAT_PERIOD_MAX) /* room while simulating */
#define RR_ROWS 4096                         /* rows of a run at most */
#define RR_ITERS 65536                       /* iterations of a run at most */
#define RR_COLUMN (1u << 19)                 /* irregular addresses of a run at most (4 MiB) */

struct rr_vec {
    uint32_t depth;
    struct trace_iter it[RR_SIM];
};

/* What the simulation learns and checks: per phase (between phases first,
 * then inner ones, as in the run) its vector at row 0 (iteration 0) and
 * its slopes, and the stack's slopes per row and per iteration. */
struct rr_model {
    uint32_t nph, nb;                   /* phases; the between ones */
    uint32_t ph_rec[CHT_REPEAT_PERIOD_MAX]; /* each phase's record in the keys */
    struct rr_vec base[CHT_REPEAT_PERIOD_MAX];
    uint64_t dm[CHT_REPEAT_PERIOD_MAX][RR_SIM]; /* inner: per iteration; between: per row */
    uint64_t di[CHT_REPEAT_PERIOD_MAX][RR_SIM]; /* inner: per row */
    bool have_dm[CHT_REPEAT_PERIOD_MAX], have_di[CHT_REPEAT_PERIOD_MAX];
    struct rr_vec s0;                   /* the stack where the run starts */
    uint64_t drow[RR_SIM], dit[RR_SIM]; /* the stack's change per row (with its between
                                           records) and per iteration */
    bool have_drow, have_dit;
};

/* Applies a LOOP record to a simulated stack: false if it would not fit. */
static bool sim_op(struct rr_vec *v, uint64_t key)
{
    struct cht_rec_loop l = {{(uint16_t)(key & 0xffff), (uint16_t)(key >> 16 & 0xffff), 16}, (uint32_t)(key >> 32), 0};
    if (v->depth >= RR_SIM - 1)
        return false;
    return rd_loop_op(v->it, &v->depth, &l.h) == 0;
}

static bool same_shape(const struct rr_vec *a, const struct rr_vec *b)
{
    if (a->depth != b->depth)
        return false;
    for (uint32_t l = 0; l < a->depth; l++)
        if (a->it[l].loop != b->it[l].loop)
            return false;
    return true;
}

/* v == base + i * di + m * dm, level by level (modulo 2^64). */
static bool on_model(const struct rr_vec *v, const struct rr_vec *base, const uint64_t *di, uint64_t i,
                     const uint64_t *dm, uint64_t m)
{
    if (!same_shape(v, base))
        return false;
    for (uint32_t l = 0; l < v->depth; l++)
        if (v->it[l].iter != base->it[l].iter + i * di[l] + m * dm[l])
            return false;
    return true;
}

static void slope(uint64_t *d, const struct rr_vec *v, const struct rr_vec *base)
{
    for (uint32_t l = 0; l < v->depth; l++)
        d[l] = v->it[l].iter - base->it[l].iter;
}

static const uint64_t zero[RR_SIM];

/* Phase p's event at row i, iteration m (m unused for a between phase):
 * learns from the first points, checks the others. */
static bool sim_event(struct rr_model *md, uint32_t p, const struct rr_vec *v, uint64_t i, uint64_t m,
                      bool learn)
{
    bool between = p < md->nb;
    uint64_t along = between ? i : m; /* what dm is the slope of */
    if (learn && i == 0 && m == 0) {
        md->base[p] = *v;
        return true;
    }
    if (learn && along == 1 && (between || i == 0) && !md->have_dm[p]) {
        if (!same_shape(v, &md->base[p]))
            return false;
        slope(md->dm[p], v, &md->base[p]);
        md->have_dm[p] = true;
        return true;
    }
    if (learn && !between && i == 1 && m == 0 && !md->have_di[p]) {
        if (!same_shape(v, &md->base[p]))
            return false;
        slope(md->di[p], v, &md->base[p]);
        md->have_di[p] = true;
        return true;
    }
    if (between)
        return md->have_dm[p] || i == 0 ? on_model(v, &md->base[p], zero, 0, md->dm[p], along) : false;
    return md->have_dm[p] && md->have_di[p] && on_model(v, &md->base[p], md->di[p], i, md->dm[p], m);
}

/* Simulates three rows of trips[0..2] iterations, each with its between
 * records, from the stack s0: false if a check fails. */
static bool simulate(struct rr_model *md, const struct rd_rows *w, const uint64_t trips[3], bool learn)
{
    struct rr_vec v = md->s0, rs = md->s0; /* the stack, and at the row's start */
    for (uint64_t i = 0; i < 3; i++) {
        uint32_t ph = md->nb;
        for (uint64_t m = 0; m < trips[i]; m++) {
            ph = md->nb;
            for (uint32_t r = 0; r < w->per; r++) {
                uint64_t key = w->key[w->nb + r];
                if ((key & 0xffff) == CHT_REC_LOOP) {
                    if (!sim_op(&v, key))
                        return false;
                } else if (!sim_event(md, ph++, &v, i, m, learn)) {
                    return false;
                }
            }
            /* the stack after m + 1 iterations of the row */
            if (learn && i == 0 && m == 0) {
                if (!same_shape(&v, &md->s0))
                    return false;
                slope(md->dit, &v, &md->s0);
                md->have_dit = true;
            } else if (!md->have_dit || !on_model(&v, &rs, zero, 0, md->dit, m + 1)) {
                return false;
            }
        }
        ph = 0;
        for (uint32_t r = 0; r < w->nb; r++) {
            uint64_t key = w->key[r];
            if ((key & 0xffff) == CHT_REC_LOOP) {
                if (!sim_op(&v, key))
                    return false;
            } else if (!sim_event(md, ph++, &v, i, 0, learn)) {
                return false;
            }
        }
        /* the stack after row i and its between records */
        if (learn && i == 0) {
            if (!same_shape(&v, &md->s0))
                return false;
            slope(md->drow, &v, &md->s0);
            md->have_drow = true;
        } else if (!md->have_drow || !on_model(&v, &md->s0, zero, 0, md->drow, i + 1)) {
            return false;
        }
        rs = v;
    }
    return true;
}

/* The tables' room for the record's addresses (w->nal per iteration, of
 * which w->nirr irregular: RR_COLUMN entries among them at most): 0, or
 * -1 if out of memory. */
static int tables_room(struct trace_cursor *c, const struct rd_rows *w)
{
    struct rd_rows_tables *t = &c->rr_tab;
    if (!t->trips) {
        t->cap_rows = RR_ROWS;
        t->trips = malloc(RR_ROWS * sizeof(*t->trips));
        t->at = malloc((RR_ROWS + 1) * sizeof(*t->at));
        t->itb = malloc((RR_ROWS + 1) * sizeof(*t->itb));
        if (!t->trips || !t->at || !t->itb)
            return -1;
    }
    t->cap_iters = w->nirr ? RR_COLUMN / w->nirr : RR_ITERS;
    if (t->cap_iters > RR_ITERS)
        t->cap_iters = RR_ITERS;
    for (uint32_t i = 0; i < w->nal; i++) {
        uint64_t need = w->irr[i] ? t->cap_iters : RR_ROWS;
        if (c->rr_slot_cap[i] != need) {
            free(t->slot[i]);
            t->slot[i] = malloc(need * sizeof(uint64_t));
            c->rr_slot_cap[i] = t->slot[i] ? need : 0;
            if (!t->slot[i])
                return -1;
        }
    }
    return 0;
}

/* Record r (0 .. nb + per - 1: between records, then an iteration's) of
 * the run of rows, at row i, iteration m, into the history entry h. */
static void rr_record(const struct trace_cursor *c, const struct rd_rows *w, uint32_t r, uint64_t i, uint64_t m,
                      struct rd_hent *h)
{
    const struct rd_rows_tables *t = &c->rr_tab;
    uint64_t key = w->key[r], a[CHT_REPEAT_MAX_ADDRS];
    uint32_t n = (key & 0xffff) == CHT_REC_COMP ? (uint32_t)(key >> 16 & 0xffff) : 0;
    for (uint32_t k = 0; k < n; k++) {
        if (r < w->nb) {
            uint32_t s = w->boff[r] + k;
            a[k] = c->rr_bcur0[s] + i * (uint64_t)w->bstride[s];
        } else {
            uint32_t s = w->loff[r - w->nb] + k;
            a[k] = w->irr[s] ? t->slot[s][t->itb[i] + m] : t->slot[s][i] + m * (uint64_t)w->step[s];
        }
    }
    rd_rows_emit(h->w, key, a);
}

/* The history's last records after the run, oldest first. */
static void rr_history(struct trace_cursor *c, struct rd_thread *th, const struct rd_rows *w)
{
    const struct rd_rows_tables *t = &c->rr_tab;
    struct {
        uint64_t i, m;
        uint32_t r;
    } last[CHT_REPEAT_PERIOD_MAX];
    uint32_t n = 0;
    /* backwards from the run's last record */
    for (uint64_t i = t->rows; i-- > 0 && n < CHT_REPEAT_PERIOD_MAX;) {
        if (i + 1 < t->rows || t->between_last)
            for (uint32_t r = w->nb; r-- > 0 && n < CHT_REPEAT_PERIOD_MAX;)
                last[n].i = i, last[n].m = 0, last[n++].r = r;
        for (uint64_t m = t->trips[i]; m-- > 0 && n < CHT_REPEAT_PERIOD_MAX;)
            for (uint32_t r = w->per; r-- > 0 && n < CHT_REPEAT_PERIOD_MAX;)
                last[n].i = i, last[n].m = m, last[n++].r = w->nb + r;
    }
    while (n-- > 0) {
        rr_record(c, w, last[n].r, last[n].i, last[n].m, &th->hist[th->head]);
        hist_advance(th);
    }
}

int rd_rows_run_start(struct trace_cursor *c, struct rd_thread *th)
{
    struct rd_rows *w = &c->rows;
    struct rd_rows_tables *t = &c->rr_tab;
    struct rr_model *md = c->rr_model;
    uint32_t nbc = 0, nic = 0, bal = 0, ial = 0;
    static const uint64_t sim_b[3] = {2, 3, 2}, sim_a[3] = {1, 1, 1};

    if (th->depth > RR_DEPTH)
        return 0;
    if (!md && !(md = c->rr_model = malloc(sizeof(*md))))
        return -1;
    /* the phases: the between records' COMPs, then an iteration's */
    memset(md->have_dm, 0, sizeof(md->have_dm));
    memset(md->have_di, 0, sizeof(md->have_di));
    md->have_drow = md->have_dit = false;
    md->nph = 0;
    for (uint32_t r = 0; r < w->nb + w->per; r++) {
        uint64_t key = w->key[r];
        if ((key & 0xffff) != CHT_REC_COMP)
            continue;
        if (md->nph == CHT_REPEAT_PERIOD_MAX)
            return 0; /* more phases than a run has */
        const struct trace_site_info *si = rd_rank_site(c->r, (uint32_t)(key >> 32));
        uint32_t n = (uint32_t)(key >> 16 & 0xffff);
        if (si && si->naccess != n)
            return 0; /* expanding reports it */
        md->ph_rec[md->nph++] = r;
        if (r < w->nb)
            nbc++, bal += n;
        else
            nic++, ial += n;
    }
    md->nb = nbc;
    if (!nic)
        return 0;
    md->s0.depth = th->depth;
    memcpy(md->s0.it, th->stack, th->depth * sizeof(*th->stack));
    if (!simulate(md, w, sim_b, true) || !simulate(md, w, sim_a, false)) {
        /* the record's first row may start from a stack its other rows do
         * not (the inner loop entered before the record, a count left by
         * an earlier one): its next row is tried once more */
        c->rows_norun++;
        return 0;
    }
    if (tables_room(c, w) < 0)
        return -1;
    if (rd_run_buffers(c) < 0)
        return -1;
    if (!c->rr_row_diter &&
        !(c->rr_row_diter = malloc(CHT_REPEAT_PERIOD_MAX * RD_MAX_LOOP_DEPTH * sizeof(*c->rr_row_diter))))
        return -1;

    /* the rows */
    for (uint32_t s = 0; s < w->nab; s++)
        c->rr_bcur0[s] = w->bcur[s];
    t->nb = nbc;
    t->ni = nic;
    if (rd_rows_bulk(w, t, RR_ITERS) < 0)
        return -1;
    if (!t->rows)
        return 0;

    /* the phases' events in row 0, iteration 0, and their slopes */
    for (uint32_t p = 0; p < md->nph; p++) {
        uint32_t r = md->ph_rec[p];
        bool between = r < w->nb;
        uint64_t key = w->key[r];
        uint32_t site = (uint32_t)(key >> 32), n = (uint32_t)(key >> 16 & 0xffff);
        const struct trace_site_info *si = rd_rank_site(c->r, site);
        struct trace_run_phase *ph = &c->run_ph[p];
        struct trace_event *ev = &ph->ev;
        struct trace_iter *iters = c->run_iters + (size_t)p * RD_MAX_LOOP_DEPTH;
        uint64_t *diter = c->run_diter + (size_t)p * RD_MAX_LOOP_DEPTH;
        uint64_t *row_diter = c->rr_row_diter + (size_t)p * RD_MAX_LOOP_DEPTH;
        bool any_irr = false;

        memset(ev, 0, sizeof(*ev));
        ev->kind = TRACE_EV_COMP;
        ev->rank = c->rank;
        ev->thread = th->thread;
        ev->index = c->index;
        ev->site = site;
        ev->site_info = si;
        for (uint32_t k = 0; k < n; k++) {
            uint32_t s = (between ? w->boff[r] : w->loff[r - w->nb]) + k;
            struct trace_range *x = &c->run_ranges[p][k];
            x->len = si ? si->access[k].size : 0;
            x->write = si ? (si->access[k].flags & CHT_ACCESS_WRITE) != 0 : false;
            if (between) {
                x->addr = c->rr_bcur0[s];
                c->run_stride[p][k] = w->bstride[s];
                continue;
            }
            c->rr_row_addr[p][k] = w->irr[s] ? NULL : t->slot[s];
            c->run_addr[p][k] = w->irr[s] ? t->slot[s] : NULL;
            c->run_stride[p][k] = w->irr[s] ? 0 : w->step[s];
            x->addr = t->slot[s][0]; /* row 0's iteration 0 (an irregular one's: its column's first) */
            any_irr |= w->irr[s];
        }
        ev->nranges = n;
        ev->ranges = c->run_ranges[p];
        ev->depth = md->base[p].depth;
        memcpy(iters, md->base[p].it, ev->depth * sizeof(*iters));
        ev->iters = iters;
        for (uint32_t l = 0; l < ev->depth; l++) {
            diter[l] = md->have_dm[p] ? md->dm[p][l] : 0;
            row_diter[l] = between ? 0 : md->di[p][l];
        }
        ph->stride = c->run_stride[p];
        ph->diter = diter;
        ph->addr = any_irr ? c->run_addr[p] : NULL;
        ph->row_addr = between ? NULL : c->rr_row_addr[p];
        ph->row_diter = between ? NULL : row_diter;
    }
    c->rr.nrows = t->rows;
    c->rr.nb = nbc;
    c->rr.ni = nic;
    c->rr.between_last = t->between_last;
    c->rr.trips = t->trips;
    c->rr.at = t->at;
    c->rr.itb = t->itb;
    c->run.first = c->index;
    c->run.reps = 1;
    c->run.period = md->nph;
    c->run.ph = c->run_ph;
    c->run.rows = &c->rr;

    /* the cursor as after expanding them */
    uint64_t nbetween = t->rows - 1 + t->between_last, iters = t->itb[t->rows];
    uint64_t records = iters * w->per + nbetween * w->nb, events = t->at[t->rows];
    c->index += events;
    c->st.records += records;
    c->st.comp_events += events;
    c->st.accesses += iters * ial + nbetween * bal;
    c->st.loop_records += records - events;
    th->depth = md->s0.depth;
    for (uint32_t l = 0; l < th->depth; l++) {
        /* the stack after nbetween rows with their between records, then
         * the last row's iterations if it has none */
        th->stack[l] = md->s0.it[l];
        th->stack[l].iter += nbetween * md->drow[l];
        if (!t->between_last)
            th->stack[l].iter += t->trips[t->rows - 1] * md->dit[l];
    }
    rr_history(c, th, w);
    return 1;
}
