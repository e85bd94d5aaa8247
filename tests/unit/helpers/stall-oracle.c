/* stall-oracle.c - the serial replay of depgraph/stall.c as it was before
 * the replay was spread over processes (round-robin over every rank until
 * nothing moves): the oracle the distributed replay is checked against
 * (tests/unit/test-xrank-dist.c). */
#include <stdlib.h>
#include <string.h>

#include "stall-oracle.h"

struct order {
    uint32_t n;
    uint32_t *at;     /* slot -> log position (NULL: the identity) */
    uint32_t *slot;   /* log position -> slot */
    uint32_t *start;  /* slot -> first slot of the run of records of one event there */
};

struct replay {
    const struct dg_mpilog *const *logs;
    const struct dg_match *m;
    int P;
    struct order *o;
    uint32_t *cur;          /* per rank: its next slot */
    struct dg_pos *sync;    /* sends that may wait for their receive, sorted */
    size_t nsync;
};

static int pos_cmp(const void *pa, const void *pb)
{
    return dg_pos_cmp(*(const struct dg_pos *)pa, *(const struct dg_pos *)pb);
}

static uint32_t slot_of(const struct replay *R, struct dg_pos p)
{
    const struct order *o = &R->o[p.rank];
    return o->slot ? o->slot[p.pos] : p.pos;
}

static uint32_t pos_at(const struct replay *R, int r, uint32_t s)
{
    const struct order *o = &R->o[r];
    return o->at ? o->at[s] : s;
}

/* Passed: the rank's replay is beyond the record. */
static bool passed(const struct replay *R, struct dg_pos p)
{
    return R->cur[p.rank] > slot_of(R, p);
}

/* Posted: the rank has reached the call the record belongs to. */
static bool posted(const struct replay *R, struct dg_pos p)
{
    const struct order *o = &R->o[p.rank];
    uint32_t s = slot_of(R, p);
    if (o->start)
        s = o->start[s];
    else
        while (s > 0 && R->logs[p.rank]->rec[s - 1].index == R->logs[p.rank]->rec[p.pos].index)
            s--;
    return R->cur[p.rank] >= s;
}

/* The oracle's own order: every record not moved in log order, each
 * followed (recursively) by those moved right after it, in position
 * order; moves to an earlier place and second moves of a record ignored. */
static void emit(const struct dg_move *mv, const uint8_t *valid, uint32_t nmv, uint32_t q, struct order *o, uint32_t *s)
{
    o->at[*s] = q;
    o->slot[q] = (*s)++;
    for (uint32_t pos = 0; pos < o->n; pos++) /* quadratic: the oracle's logs are short */
        for (uint32_t i = 0; i < nmv; i++)
            if (valid[i] && mv[i].after == q && mv[i].pos == pos)
                emit(mv, valid, nmv, pos, o, s);
}

static int order_build(const struct dg_mpilog *log, const struct dg_move *mv, uint32_t nmv, struct order *o)
{
    uint32_t n = log->n;
    o->n = n;
    uint8_t *moved = calloc(n ? n : 1, 1), *valid = calloc(nmv ? nmv : 1, 1);
    o->at = malloc((n ? n : 1) * sizeof *o->at);
    o->slot = malloc((n ? n : 1) * sizeof *o->slot);
    o->start = malloc((n ? n : 1) * sizeof *o->start);
    if (!moved || !valid || !o->at || !o->slot || !o->start) {
        free(moved);
        free(valid);
        return TRACE_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < nmv; i++)
        if (mv[i].pos < n && mv[i].after < n && mv[i].after > mv[i].pos && !moved[mv[i].pos])
            moved[mv[i].pos] = valid[i] = 1;
    uint32_t s = 0;
    for (uint32_t p = 0; p < n; p++)
        if (!moved[p])
            emit(mv, valid, nmv, p, o, &s);
    for (uint32_t k = 0; k < s; k++)
        o->start[k] = k > 0 && log->rec[o->at[k - 1]].index == log->rec[o->at[k]].index ? o->start[k - 1] : k;
    free(moved);
    free(valid);
    return 0;
}

static bool is_sync(const struct replay *R, struct dg_pos p)
{
    return R->nsync && bsearch(&p, R->sync, R->nsync, sizeof *R->sync, pos_cmp);
}

/* Whether rank r can pass the record at its next slot; if not, *waits is
 * the record of another rank it waits for. */
static bool can_pass(const struct replay *R, int r, struct dg_pos *waits)
{
    struct dg_pos p = {r, pos_at(R, r, R->cur[r])};
    const struct dg_msgrec *x = &R->logs[r]->rec[p.pos];
    *waits = DG_POS_NONE;
    if (x->kind == DG_MSG_RECV) {
        struct dg_pos s = dg_match_peer(R->m, p);
        if (s.rank >= 0 && !passed(R, s)) {
            *waits = s;
            return false;
        }
    } else if (x->kind == DG_MSG_SEND) {
        struct dg_pos q;
        if (is_sync(R, p) && (q = dg_match_peer(R->m, p)).rank >= 0 && !posted(R, q)) {
            *waits = q;
            return false;
        }
    } else if (x->kind == DG_MSG_COLL) {
        uint32_t n = 0;
        const struct dg_pos *mem = dg_match_coll(R->m, dg_match_coll_of(R->m, p), &n);
        bool nb = x->flags & DG_MSGF_NONBLOCKING;
        for (uint32_t k = 0; k < n; k++) {
            if (mem[k].rank == r)
                continue;
            const struct dg_msgrec *y = &R->logs[mem[k].rank]->rec[mem[k].pos];
            if (nb && (y->flags & DG_MSGF_NONBLOCKING) && y->fwd_pos < mem[k].pos) {
                struct dg_pos c = {mem[k].rank, (uint32_t)y->fwd_pos};
                if (!passed(R, c)) {
                    *waits = c;
                    return false;
                }
            } else if (R->cur[mem[k].rank] < slot_of(R, mem[k])) {
                *waits = mem[k];
                return false;
            }
        }
    }
    return true;
}

int oracle_stall_check(const struct dg_mpilog *const *logs, int nranks, const struct dg_match *m,
                       const struct dg_move *const *moves, const uint32_t *nmoves, struct dg_stall_wait *blocked,
                       bool *stalled)
{
    int P = nranks, rc = TRACE_ERR_NOMEM;
    struct replay R = {.logs = logs, .m = m, .P = P};
    size_t csync = 0;
    *stalled = false;
    R.o = calloc(P ? P : 1, sizeof *R.o);
    R.cur = calloc(P ? P : 1, sizeof *R.cur);
    if (!R.o || !R.cur)
        goto out;
    for (int r = 0; r < P; r++) {
        R.o[r].n = logs[r] ? logs[r]->n : 0;
        if (!logs[r] || !moves || !moves[r] || !nmoves[r])
            continue;
        if ((rc = order_build(logs[r], moves[r], nmoves[r], &R.o[r])) < 0)
            goto out;
        rc = TRACE_ERR_NOMEM;
        /* a moved receive: its send may wait until it is posted */
        for (uint32_t i = 0; i < nmoves[r]; i++) {
            struct dg_pos q = {r, moves[r][i].pos};
            if (q.pos >= logs[r]->n || logs[r]->rec[q.pos].kind != DG_MSG_RECV)
                continue;
            struct dg_pos s = dg_match_peer(m, q);
            if (s.rank < 0)
                continue;
            if (R.nsync == csync) {
                size_t nc = csync ? csync * 2 : 16;
                struct dg_pos *ns = realloc(R.sync, nc * sizeof *ns);
                if (!ns)
                    goto out;
                R.sync = ns;
                csync = nc;
            }
            R.sync[R.nsync++] = s;
        }
    }
    if (R.nsync > 1)
        qsort(R.sync, R.nsync, sizeof *R.sync, pos_cmp);
    for (;;) {
        bool progress = false, left = false;
        for (int r = 0; r < P; r++) {
            struct dg_pos w;
            while (R.cur[r] < R.o[r].n && can_pass(&R, r, &w)) {
                R.cur[r]++;
                progress = true;
            }
            left |= R.cur[r] < R.o[r].n;
        }
        if (!left || !progress) {
            *stalled = left;
            break;
        }
    }
    if (blocked) {
        for (int r = 0; r < P; r++) {
            blocked[r].at = blocked[r].waits = DG_POS_NONE;
            if (R.cur[r] < R.o[r].n && !can_pass(&R, r, &blocked[r].waits))
                blocked[r].at = (struct dg_pos){r, pos_at(&R, r, R.cur[r])};
        }
    }
    rc = 0;
out:
    for (int r = 0; R.o && r < P; r++) {
        free(R.o[r].at);
        free(R.o[r].slot);
        free(R.o[r].start);
    }
    free(R.o);
    free(R.cur);
    free(R.sync);
    return rc;
}
