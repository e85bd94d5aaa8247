/* run.c - a REPEAT or REPEAT_COL record's repetitions handed over as one
 * run by the cursor (trace_cursor_next_run, cursor.c) instead of event by
 * event: the run made from the thread's history and loop stack, a
 * column's addresses rebuilt, and the events of a run. */
#include <stdlib.h>
#include <string.h>

#include "cursor-state.h"

/* Each of a column run's nb irregular accesses, from cur[b] (its address
 * one repetition before the run), moved by the column's entries col[0 ..
 * nb*R) in the order expanding takes them (repetition, then access): access
 * b's address in repetition j into out[b*R + j]. */
static void rd_run_column(uint64_t *out, uint32_t nb, uint32_t R, uint64_t *cur, const int32_t *col)
{
    for (uint32_t j = 0; j < R; j++)
        for (uint32_t b = 0; b < nb; b++)
            out[(size_t)b * R + j] = cur[b] += (uint64_t)(int64_t)*col++;
}

void trace_run_event(const struct trace_run *r, uint64_t t, struct trace_event *ev,
                     struct trace_range *ranges, struct trace_iter *iters)
{
    uint64_t j = t / r->period, i = 0, m = 0;
    const struct trace_run_phase *ph = &r->ph[t % r->period];
    const struct trace_rows *w = r->rows;
    uint32_t k, p;

    if (w) {
        trace_rows_locate(w, t, &i, &p, &m);
        ph = &r->ph[p];
        j = p < w->nb ? i : m;
    }
    *ev = ph->ev;
    ev->index = r->first + t;
    for (k = 0; k < ev->nranges; k++) {
        ranges[k] = ev->ranges[k];
        if (w && ph->row_addr)
            ranges[k].addr = ph->row_addr[k] ? ph->row_addr[k][i] + m * (uint64_t)ph->stride[k]
                                             : ph->addr[k][w->itb[i] + m];
        else
            ranges[k].addr = trace_run_addr(ph, k, j);
    }
    for (k = 0; k < ev->depth; k++) {
        iters[k] = ev->iters[k];
        iters[k].iter += j * ph->diter[k];
        if (w && ph->row_diter)
            iters[k].iter += i * ph->row_diter[k];
    }
    ev->ranges = ranges;
    ev->iters = iters;
}

/* A REPEAT as a run: its whole repetitions become one run if the loop
 * records of a repetition leave the shape of the loop stack (depth and
 * loops) as they found it.  Then every later repetition applies the same
 * operations to the same shape: levels that stay get the same number of
 * ITERs each time, levels pushed inside start afresh, so each event's
 * iteration vector grows linearly from the second repetition on.  The
 * first one may differ (what it finds on the stack was left by other
 * code): it is in the run only if its events' vectors lie on the same
 * lines, else it is expanded and the run starts at the second.  Simulating
 * the first repetitions on a copy of the stack gives the start and the
 * slope.  Leaves the cursor as expanding the run would: index,
 * statistics, loop stack and history. */
#define RUN_MIN_EVENTS 8
/* A column's run, even of a few events, costs the engine less than its
 * events one by one (spmv's rows of 8: 7 events a run) */
#define RUN_MIN_COL_EVENTS 2

/* Repetitions 0 .. lead+1 of the REPEAT's records `base` on a copy of the
 * thread's stack: the vectors of their events into run_iters[q] and
 * run_depth[q], the stack after the first `lead` into run_from, its change
 * over the next one into run_dend.  Whether they make a run. */
static bool run_simulate(struct trace_cursor *c, const struct rd_thread *th, const struct rd_hent *base,
                         uint32_t P, uint32_t lead)
{
    uint32_t depth = th->depth, q, pos, e = 0, k;

    memcpy(c->run_sim, th->stack, depth * sizeof(*c->run_sim));
    for (q = 0; q < lead + 2; q++) {
        if (q == lead) {
            memcpy(c->run_from, c->run_sim, depth * sizeof(*c->run_sim));
            c->run_from_depth = depth;
        }
        for (pos = 0, e = 0; pos < P; pos++) {
            const struct cht_rec *h = (const void *)base[pos].w;
            if (h->type == CHT_REC_LOOP) {
                if (rd_loop_op(c->run_sim, &depth, h) < 0)
                    return false; /* expanding reports it */
                continue;
            }
            memcpy(c->run_iters + ((size_t)q * CHT_REPEAT_PERIOD_MAX + e) * RD_MAX_LOOP_DEPTH,
                   c->run_sim, depth * sizeof(*c->run_sim));
            c->run_depth[q][e++] = depth;
        }
        if (q == lead) {
            if (depth != c->run_from_depth)
                return false;
            for (k = 0; k < depth; k++) {
                if (c->run_sim[k].loop != c->run_from[k].loop)
                    return false;
                c->run_dend[k] = c->run_sim[k].iter - c->run_from[k].iter;
            }
        }
    }
    /* the first repetition: on the lines of the next two */
    for (uint32_t x = 0; lead && x < e; x++) {
        const struct trace_iter *v0 = c->run_iters + (size_t)x * RD_MAX_LOOP_DEPTH;
        const struct trace_iter *v1 = v0 + (size_t)CHT_REPEAT_PERIOD_MAX * RD_MAX_LOOP_DEPTH;
        const struct trace_iter *v2 = v1 + (size_t)CHT_REPEAT_PERIOD_MAX * RD_MAX_LOOP_DEPTH;
        if (c->run_depth[0][x] != c->run_depth[1][x])
            return false;
        for (k = 0; k < c->run_depth[0][x]; k++)
            if (v0[k].loop != v1[k].loop || v1[k].iter - v0[k].iter != v2[k].iter - v1[k].iter)
                return false;
    }
    return true;
}

/* A REPEAT_COL's run of R repetitions (the P records of `base` one
 * repetition before its first): the addresses of its irregular accesses,
 * rebuilt from the column as expanding would, into c->run_addr (a block
 * of R per access, of the comp records at comp_pos[0 .. pc-1]); the column
 * is then taken up to the run's end.  0, or -1 if out of memory. */
static int run_columns(struct trace_cursor *c, const struct rd_hent *base, const uint32_t *comp_pos,
                       uint32_t pc, uint32_t R)
{
    uint64_t cur[CHT_REPEAT_PERIOD_MAX * CHT_REPEAT_MAX_ADDRS];
    uint32_t nb = 0;

    if (!c->run_col && !(c->run_col = malloc(CHT_REPEAT_COL_MAX * sizeof(*c->run_col))))
        return -1;
    for (uint32_t e = 0; e < pc; e++) {
        const struct rd_hent *h = &base[comp_pos[e]];
        const int64_t *d = c->rep_stride + c->rep_off[comp_pos[e]];
        for (uint32_t k = 0, n = hent_naddr(h); k < n; k++) {
            c->run_addr[e][k] = NULL;
            if (d[k] != CHT_REPEAT_IRREGULAR)
                continue;
            cur[nb] = h->w[2 + k];
            c->run_addr[e][k] = c->run_col + (size_t)nb++ * R;
        }
    }
    /* repeat_start counted the column: nb * R of its entries are left */
    rd_run_column(c->run_col, nb, R, cur, c->rep_col + c->rep_icol);
    c->rep_icol += nb * R;
    return 0;
}

int rd_run_buffers(struct trace_cursor *c)
{
    if (!c->run_iters)
        c->run_iters = malloc(3 * CHT_REPEAT_PERIOD_MAX * RD_MAX_LOOP_DEPTH * sizeof(*c->run_iters));
    if (!c->run_diter)
        c->run_diter = malloc(CHT_REPEAT_PERIOD_MAX * RD_MAX_LOOP_DEPTH * sizeof(*c->run_diter));
    if (!c->run_sim)
        c->run_sim = malloc(RD_MAX_LOOP_DEPTH * sizeof(*c->run_sim));
    if (!c->run_from)
        c->run_from = malloc(RD_MAX_LOOP_DEPTH * sizeof(*c->run_from));
    if (!c->run_dend)
        c->run_dend = malloc(RD_MAX_LOOP_DEPTH * sizeof(*c->run_dend));
    return c->run_iters && c->run_diter && c->run_sim && c->run_from && c->run_dend ? 0 : -1;
}

int rd_run_start(struct trace_cursor *c, struct rd_thread *th)
{
    uint32_t P = c->rep_period, R = c->rep_left / P, pc = 0, pos, k, e;
    /* first with the REPEAT's first repetition, then once after it */
    uint32_t lead = c->rep_left == c->rep_count;
    uint32_t comp_pos[CHT_REPEAT_PERIOD_MAX];
    struct rd_hent base[CHT_REPEAT_PERIOD_MAX];
    uint64_t naddr = 0;

    c->rep_norun = !lead;
    if (R < 1)
        return 0;
    for (pos = 0; pos < P; pos++) {
        base[pos] = *hist_ent(th, P - pos);
        if (((const struct cht_rec *)base[pos].w)->type == CHT_REC_COMP) {
            comp_pos[pc++] = pos;
            naddr += ((const struct cht_rec *)base[pos].w)->aux;
        }
    }
    if (!pc || (uint64_t)R * pc < (c->rep_is_col ? RUN_MIN_COL_EVENTS : RUN_MIN_EVENTS))
        return 0;
    if (rd_run_buffers(c) < 0)
        return -1;
    if (!run_simulate(c, th, base, P, lead))
        return 0;
    /* the events of the run's first repetition, and their slopes */
    if (c->rep_is_col && run_columns(c, base, comp_pos, pc, R) < 0)
        return -1;
    for (e = 0; e < pc; e++) {
        const struct cht_rec_comp *rc = (const void *)base[comp_pos[e]].w;
        const uint64_t *addr = (const uint64_t *)(rc + 1);
        const int64_t *d = c->rep_stride + c->rep_off[comp_pos[e]];
        struct trace_run_phase *ph = &c->run_ph[e];
        struct trace_event *ev = &ph->ev;
        const struct trace_iter *v0 = c->run_iters + (size_t)e * RD_MAX_LOOP_DEPTH;
        const struct trace_iter *v1 = v0 + (size_t)lead * CHT_REPEAT_PERIOD_MAX * RD_MAX_LOOP_DEPTH;
        const struct trace_iter *v2 = v1 + (size_t)CHT_REPEAT_PERIOD_MAX * RD_MAX_LOOP_DEPTH;
        uint64_t *diter = c->run_diter + (size_t)e * RD_MAX_LOOP_DEPTH;
        const struct trace_site_info *si = rd_rank_site(c->r, rc->site);
        uint32_t n = rc->h.aux;

        if (si && si->naccess != n)
            return 0; /* expanding reports it */
        memset(ev, 0, sizeof(*ev));
        ev->kind = TRACE_EV_COMP;
        ev->rank = c->rank;
        ev->thread = th->thread;
        ev->index = c->index + e;
        ev->site = rc->site;
        ev->site_info = si;
        ph->addr = NULL;
        for (k = 0; k < n; k++) {
            bool irr = c->rep_is_col && d[k] == CHT_REPEAT_IRREGULAR;
            c->run_ranges[e][k].addr = irr ? c->run_addr[e][k][0] : addr[k] + (uint64_t)d[k];
            c->run_ranges[e][k].len = si ? si->access[k].size : 0;
            c->run_ranges[e][k].write = si ? (si->access[k].flags & CHT_ACCESS_WRITE) != 0 : false;
            c->run_stride[e][k] = irr ? 0 : d[k];
            if (irr)
                ph->addr = c->run_addr[e];
        }
        ev->nranges = n;
        ev->ranges = c->run_ranges[e];
        ev->depth = c->run_depth[0][e];
        ev->iters = v0;
        for (k = 0; k < ev->depth; k++)
            diter[k] = v2[k].iter - v1[k].iter;
        ph->stride = c->run_stride[e];
        ph->diter = diter;
        ph->row_addr = NULL;
        ph->row_diter = NULL;
    }
    c->run.first = c->index;
    c->run.reps = R;
    c->run.period = pc;
    c->run.ph = c->run_ph;
    c->run.rows = NULL;

    /* the cursor as after expanding it */
    c->index += (uint64_t)R * pc;
    c->st.records += (uint64_t)R * P;
    c->st.comp_events += (uint64_t)R * pc;
    c->st.accesses += (uint64_t)R * naddr;
    c->st.loop_records += (uint64_t)R * (P - pc);
    th->depth = c->run_from_depth;
    for (k = 0; k < th->depth; k++) {
        th->stack[k] = c->run_from[k];
        th->stack[k].iter += (uint64_t)(R - lead) * c->run_dend[k];
    }
    {
        /* the history's last records: record r of the run (r from 0) is
         * base[r % P] in repetition r / P of the run */
        uint64_t total = (uint64_t)R * P, r;
        uint64_t from = total > CHT_REPEAT_PERIOD_MAX ? total - CHT_REPEAT_PERIOD_MAX : 0;
        uint64_t j = from / P;
        uint32_t e_of[CHT_REPEAT_PERIOD_MAX], at = (uint32_t)(from % P);
        for (e = 0; e < pc; e++)
            e_of[comp_pos[e]] = e;
        for (r = from; r < total; r++) {
            struct rd_hent *h = &th->hist[th->head];
            uint32_t n = hent_naddr(&base[at]);
            h->w[0] = base[at].w[0];
            h->w[1] = base[at].w[1];
            for (k = 0; k < n; k++)
                h->w[2 + k] = trace_run_addr(&c->run_ph[e_of[at]], k, j);
            hist_advance(th);
            if (++at == P)
                at = 0, j++;
        }
    }
    c->rep_left -= R * P;
    return 1;
}
