/* test-search-property.c - the streaming engine (search/rank/streaming.c) and the
 * reference engine (search/rank/reference.c) must give identical results
 * (search_rank_result_equal) on any event sequence.
 *
 * A seeded generator makes thousands of small random ranks: computation
 * events touching a tiny address space (so that dependences are frequent),
 * MPI events of every role with the ranges and keys the builder would give
 * them (sends, receives and Sendrecv to a few peers on two communicators,
 * nonblocking starts completed later by a Wait carrying their buffers and
 * request keys, collectives, barriers, probes, fences, calls of role
 * OTHER), register and control dependences of MPI calls on the latest
 * events of a few computation sites (vdeps, as the builder gives them),
 * small site pools with weights from 0 (unset: 1) to a million (so that
 * a gap's time is split unevenly), odd times (unknown, exit before enter), and
 * iteration vectors from a simulated loop nest; a small horizon (so that
 * windows are cut) or a huge one, and 1 to 8 boxes per list.
 *
 * On a difference the test shrinks the sequence (drops events while the
 * engines still disagree), prints the seed, the difference and the
 * shrunk sequence, and fails.  It also checks that the generated traces
 * exercise what they are meant to (windows, truncation, groups, boxes
 * lists that overflow) so that it cannot pass vacuously.
 *
 * A second run takes a few long traces (up to 12000 events) so that the
 * streaming engine's batches and ring are crossed.
 *
 * COMMHINT_PROPERTY_TRACES sets the number of short traces (default
 * 10000), COMMHINT_PROPERTY_LONG the number of long ones (default 64),
 * COMMHINT_PROPERTY_SEED the first seed (default 1).
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "search-private.h"
#include "trace-format.h"

#define MAXEV 300    /* events of a short trace */
#define MAXLONG 12000 /* events of a long trace */
#define MAXR 8
#define MAXK 6
#define MAXD 3
#define MAXV 4
#define MAXC 3 /* companions of an MPI event */

/* ---- a random rank ---------------------------------------------------------------- */

/* The ranges, keys and iteration vector of one event. */
struct slot {
    struct dg_range rg[MAXR];
    struct dg_key ky[MAXK];
    struct trace_iter it[MAXD];
    uint64_t vd[MAXV];
    struct dg_range cr[MAXC * MAXR]; /* the companions' reads */
};

struct trace_case {
    size_t n, cap;
    struct dg_event *ev;
    struct slot *sl;
    uint64_t horizon;
    unsigned max_boxes;
};

/* Room for n events, all zero. */
static void tc_reset(struct trace_case *t, size_t n)
{
    if (n > t->cap) {
        free(t->ev);
        free(t->sl);
        t->ev = malloc(n * sizeof(*t->ev));
        t->sl = malloc(n * sizeof(*t->sl));
        assert_non_null(t->ev);
        assert_non_null(t->sl);
        t->cap = n;
    }
    memset(t->ev, 0, n * sizeof(*t->ev));
    memset(t->sl, 0, n * sizeof(*t->sl));
    t->n = n;
}

static void tc_free(struct trace_case *t)
{
    free(t->ev);
    free(t->sl);
    memset(t, 0, sizeof(*t));
}

/* Points the events at their slots and renumbers them. */
static void fix_pointers(struct trace_case *t)
{
    for (size_t i = 0; i < t->n; i++) {
        t->ev[i].index = i;
        t->ev[i].ranges = t->sl[i].rg;
        t->ev[i].keys = t->sl[i].ky;
        t->ev[i].iters = t->sl[i].it;
        t->ev[i].vdeps = t->sl[i].vd;
        t->ev[i].cranges = t->sl[i].cr;
    }
}

static void tc_copy(struct trace_case *d, const struct trace_case *s)
{
    tc_reset(d, s->n);
    memcpy(d->ev, s->ev, s->n * sizeof(*s->ev));
    memcpy(d->sl, s->sl, s->n * sizeof(*s->sl));
    d->horizon = s->horizon;
    d->max_boxes = s->max_boxes;
    fix_pointers(d);
}

/* Removes events [k, k + len). */
static void tc_drop(struct trace_case *t, size_t k, size_t len)
{
    memmove(&t->ev[k], &t->ev[k + len], (t->n - k - len) * sizeof(t->ev[0]));
    memmove(&t->sl[k], &t->sl[k + len], (t->n - k - len) * sizeof(t->sl[0]));
    t->n -= len;
    /* register dependences on dropped events go, later ones move down */
    for (size_t j = 0; j < t->n; j++) {
        uint32_t m = 0;
        for (uint32_t q = 0; q < t->ev[j].nvdeps; q++) {
            uint64_t v = t->sl[j].vd[q];
            if (v < k)
                t->sl[j].vd[m++] = v;
            else if (v >= k + len)
                t->sl[j].vd[m++] = v - len;
        }
        t->ev[j].nvdeps = m;
        /* companions: those still right before it (their reads stay in
         * cranges: a stricter call, the same for both engines) */
        if (t->ev[j].ncompanions && j >= k) {
            uint64_t orig = j + len; /* its index before the drop */
            if (orig - t->ev[j].ncompanions < k + len)
                t->ev[j].ncompanions = (uint32_t)(orig - (k + len));
        }
    }
    fix_pointers(t);
}

static uint64_t rng_state;

static uint64_t rnd(void)
{
    /* splitmix64 */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static uint64_t between(uint64_t lo, uint64_t hi)
{
    return lo + rnd() % (hi - lo + 1);
}

/* True with probability pct %. */
static bool chance(unsigned pct)
{
    return rnd() % 100 < pct;
}

#define BASE 0x1000u /* the address space starts here */

/* The generator's state across the events of one rank. */
struct gen {
    struct pending {
        uint64_t req;
        struct dg_range r;
        bool send;
    } pend[8];             /* requests started and not completed yet */
    size_t npend;
    uint64_t clock;
    unsigned mpi_pct, ncomm, npeer;
    uint64_t space;        /* bytes of the address space (64: tiny) */
};

static void add_range(struct trace_case *t, struct gen *g, struct dg_event *e, bool write)
{
    struct dg_range *r;

    if (e->nranges >= MAXR)
        return;
    r = &t->sl[e->index].rg[e->nranges++];
    r->addr = BASE + between(0, g->space - 1);
    r->len = chance(3) ? 0 : between(1, 8);
    r->write = write;
}

static void add_key(struct trace_case *t, struct dg_event *e, uint32_t cls, uint64_t comm,
                    int32_t peer)
{
    struct dg_key *k;

    if (e->nkeys >= MAXK)
        return;
    k = &t->sl[e->index].ky[e->nkeys++];
    k->cls = cls;
    k->comm = comm;
    k->peer = peer;
}

/* A call site of a role: each role has its own small pool, and a site
 * always has the same call. */
static uint32_t mpi_site(unsigned role, unsigned variant)
{
    if (chance(6))
        return CHT_NONE;
    return 100 + role * 10 + variant;
}

/* What an event of a loop body template is: its kind selector (-1:
 * computation, else the MPI selector of gen_event) and site variant. */
struct templ {
    int sel;
    unsigned v;
    uint32_t comp_site;
};

static uint32_t comp_site(void)
{
    return chance(5) ? CHT_NONE : (uint32_t)between(1, 8);
}

static void gen_event_body(struct trace_case *t, struct gen *g, size_t i, int sel, unsigned v,
                           uint32_t csite);

/* Register and control dependences of an MPI event, as the builder gives
 * them: the latest earlier event of a few computation sites (and now and
 * then any earlier event). */
static void gen_vdeps(struct trace_case *t, size_t i)
{
    struct dg_event *e = &t->ev[i];
    if (e->kind != DG_MPI || !chance(40))
        return;
    unsigned want = (unsigned)between(1, MAXV);
    for (unsigned q = 0; q < want && i; q++) {
        uint64_t pick = UINT64_MAX;
        if (chance(15)) {
            /* any earlier computation event (the builder names no MPI event) */
            for (size_t j = between(0, i - 1) + 1; j-- > 0;)
                if (t->ev[j].kind == DG_COMP) {
                    pick = j;
                    break;
                }
        } else {
            uint32_t site = (uint32_t)between(1, 8);
            for (size_t j = i; j-- > 0;)
                if (t->ev[j].kind == DG_COMP && t->ev[j].site == site) {
                    pick = j;
                    break;
                }
        }
        if (pick != UINT64_MAX)
            t->sl[i].vd[e->nvdeps++] = pick;
    }
    if (!chance(60))
        return;
    /* companions, as the builder makes them: the computation events right
     * before the call, made read-only, none reading what the call writes,
     * out of vdeps (which stay before them), their reads in cranges */
    unsigned k = 0, maxk = (unsigned)between(1, MAXC);
    while (k < maxk && k < i && t->ev[i - 1 - k].kind == DG_COMP)
        k++;
    if (!k)
        return;
    uint32_t m = 0;
    for (uint32_t q = 0; q < e->nvdeps; q++)
        if (t->sl[i].vd[q] < i - k)
            t->sl[i].vd[m++] = t->sl[i].vd[q];
    e->nvdeps = m;
    e->ncompanions = k;
    e->ncranges = 0;
    for (size_t j = i - k; j < i; j++) {
        struct dg_event *x = &t->ev[j];
        uint32_t keep = 0;
        for (uint32_t r = 0; r < x->nranges; r++) {
            struct dg_range rg = t->sl[j].rg[r];
            bool clash = false;
            for (uint32_t w = 0; w < e->nranges; w++) {
                const struct dg_range *cw = &t->sl[i].rg[w];
                clash |= cw->write && cw->len && rg.len && rg.addr < cw->addr + cw->len &&
                         cw->addr < rg.addr + rg.len;
            }
            if (clash)
                continue;
            rg.write = false;
            t->sl[j].rg[keep++] = rg;
            t->sl[i].cr[e->ncranges++] = rg;
        }
        x->nranges = keep;
    }
}

/* The weight of a computation site: unset (the engines take 1), 1, a
 * middling one and a huge one, fixed per site as the pass gives them. */
static uint32_t site_weight(uint32_t site)
{
    static const uint32_t w[4] = {0, 1, 37, 1000000};
    return w[site % 4];
}

/* Fills event i (its iteration vector already set): a computation event
 * if sel < 0, else an MPI event chosen by sel (0..19), sites by v. */
static void gen_event(struct trace_case *t, struct gen *g, size_t i, int sel, unsigned v,
                      uint32_t csite)
{
    gen_event_body(t, g, i, sel, v, csite);
    gen_vdeps(t, i);
    t->ev[i].vdeps = t->sl[i].vd;
}

static void gen_event_body(struct trace_case *t, struct gen *g, size_t i, int sel, unsigned v,
                           uint32_t csite)
{
    struct dg_event *e = &t->ev[i];
    uint64_t comm = between(1, g->ncomm);
    int32_t peer = (int32_t)between(0, g->npeer - 1);

    e->index = i;
    e->peer = CHT_RANK_NONE;
    if (sel < 0) {
        unsigned nr = (unsigned)between(0, 3);
        e->kind = DG_COMP;
        e->site = csite;
        e->site_flags = e->site % 3 == 0 ? CHT_SITEF_CONDITIONAL : 0;
        e->weight = site_weight(e->site);
        for (unsigned k = 0; k < nr; k++)
            add_range(t, g, e, chance(45));
        return;
    }

    e->kind = DG_MPI;
    g->clock += between(0, 100);
    e->t_enter = chance(5) ? 0 : g->clock;
    g->clock += between(0, 200);
    e->t_exit = chance(5) ? 0 : g->clock;
    if (chance(5))
        e->t_exit = e->t_enter > 50 ? e->t_enter - 50 : 0;
    if (chance(3))
        g->clock -= g->clock > 300 ? between(0, 300) : 0;

    switch (sel) {
    case 0: case 1: case 2: case 3: case 4: /* blocking send */
        e->role = DG_ROLE_SEND;
        e->site = mpi_site(e->role, v);
        e->call = (uint16_t)(CHT_MPI_SEND + (e->site == CHT_NONE ? v : e->site) % 4);
        add_range(t, g, e, false);
        add_key(t, e, DG_KEY_SEND, comm, peer);
        e->comm = comm;
        e->peer = peer;
        e->bytes = chance(70) ? t->sl[i].rg[0].len : between(0, 64);
        break;
    case 5: case 6: case 7: /* blocking receive */
        e->role = DG_ROLE_RECV;
        e->call = CHT_MPI_RECV;
        e->site = mpi_site(e->role, v);
        add_range(t, g, e, true);
        add_key(t, e, DG_KEY_RECV, comm, chance(15) ? DG_PEER_ANY : peer);
        e->comm = comm;
        break;
    case 8: /* Sendrecv */
        e->role = DG_ROLE_SENDRECV;
        e->call = CHT_MPI_SENDRECV;
        e->site = mpi_site(e->role, v);
        add_range(t, g, e, false);
        add_range(t, g, e, true);
        add_key(t, e, DG_KEY_SEND, comm, peer);
        add_key(t, e, DG_KEY_RECV, comm, (int32_t)between(0, g->npeer - 1));
        e->comm = comm;
        break;
    case 9: case 10: { /* Isend / Irecv */
        bool used[5] = { false };
        uint64_t req = 0;
        struct pending *p;
        for (size_t k = 0; k < g->npend; k++)
            used[g->pend[k].req] = true;
        for (uint64_t q = between(1, 4), k = 0; k < 4; k++, q = q % 4 + 1)
            if (!used[q]) {
                req = q;
                break;
            }
        if (!req) {
            e->role = DG_ROLE_OTHER;
            e->call = CHT_MPI_IPROBE;
            e->site = mpi_site(DG_ROLE_OTHER, v);
            break;
        }
        p = &g->pend[g->npend++];
        e->role = DG_ROLE_START;
        p->send = sel == 9;
        e->call = p->send ? CHT_MPI_ISEND : CHT_MPI_IRECV;
        e->site = mpi_site(e->role, p->send ? 0 : 1);
        add_range(t, g, e, !p->send);
        add_key(t, e, p->send ? DG_KEY_SEND : DG_KEY_RECV, comm, peer);
        add_key(t, e, DG_KEY_REQ, req, 0);
        e->comm = comm;
        if (p->send) {
            e->peer = peer;
            e->bytes = t->sl[i].rg[0].len;
        }
        p->req = req;
        p->r = t->sl[i].rg[0];
        break;
    }
    case 11: case 12: { /* Wait / Waitall / Test */
        size_t nc = g->npend ? between(1, g->npend < 2 ? g->npend : 2) : 0;
        if (!nc || chance(10)) {
            e->role = DG_ROLE_OTHER; /* a Test that completed nothing */
            e->call = CHT_MPI_TEST;
            e->site = mpi_site(DG_ROLE_COMPLETE, 2);
            break;
        }
        e->role = DG_ROLE_COMPLETE;
        e->site = mpi_site(e->role, nc == 1 ? v % 2 : 2);
        e->call = nc == 1 ? CHT_MPI_WAIT : CHT_MPI_WAITALL;
        if (e->site == 100 + DG_ROLE_COMPLETE * 10 + 2)
            e->call = CHT_MPI_TESTALL;
        for (size_t k = 0; k < nc; k++) {
            size_t which = between(0, g->npend - 1);
            struct dg_range *r = &t->sl[i].rg[e->nranges++];
            *r = g->pend[which].r;
            r->write = !g->pend[which].send;
            add_key(t, e, DG_KEY_REQ, g->pend[which].req, 0);
            g->pend[which] = g->pend[--g->npend];
        }
        break;
    }
    case 13: case 14: /* collective */
        e->role = DG_ROLE_COLL;
        e->site = mpi_site(e->role, v);
        e->call = (uint16_t)(CHT_MPI_BCAST + v);
        add_range(t, g, e, false);
        if (chance(80))
            add_range(t, g, e, true);
        if (chance(20))
            add_range(t, g, e, true);
        add_key(t, e, DG_KEY_COLL, comm, 0);
        e->comm = comm;
        break;
    case 15: /* barrier */
        e->role = DG_ROLE_SYNC;
        e->call = CHT_MPI_BARRIER;
        e->site = mpi_site(e->role, v);
        add_key(t, e, DG_KEY_COLL, comm, 0);
        e->comm = comm;
        break;
    case 16: /* probe */
        e->role = DG_ROLE_PROBE;
        e->call = CHT_MPI_PROBE;
        e->site = mpi_site(e->role, v);
        add_key(t, e, DG_KEY_RECV, comm, chance(30) ? DG_PEER_ANY : peer);
        e->comm = comm;
        break;
    case 17: /* fence, now and then */
        if (chance(40)) {
            e->role = DG_ROLE_FENCE;
            e->call = CHT_MPI_COMM_DUP;
            e->site = mpi_site(e->role, v);
            break;
        }
        /* fall through */
    default: /* a call to MPI_PROC_NULL and the like */
        e->role = DG_ROLE_OTHER;
        e->call = CHT_MPI_SEND;
        e->site = mpi_site(DG_ROLE_SEND, v);
        break;
    }
}

static int pick_sel(const struct gen *g)
{
    return chance(g->mpi_pct) ? (int)(rnd() % 20) : -1;
}

/* A random rank.  Half of the traces have a random loop nest (loops
 * entered, iterated and left at random); the other half are regular
 * nests of 2 or 3 loops whose body is the same sequence of statements
 * and calls every iteration, as in real codes (which is what makes
 * multi-dimensional boxes).
 *
 * Short traces (10..300 events) touch a 64-byte address space, so
 * dependences are frequent and windows short.  Long traces (2000..12000
 * events) reach past the streaming engine's batches (4096 events) and
 * ring (horizon + 2 batches), with a larger address space now and then so
 * that windows grow long, and horizons around the batch size. */
static void generate(struct trace_case *t, uint64_t seed, bool longer)
{
    struct trace_iter stack[MAXD];
    uint32_t depth = 0;
    struct gen g;

    rng_state = seed * 0x2545f4914f6cdd1dull + (longer ? 71 : 17);
    memset(&g, 0, sizeof(g));
    g.clock = 1000;
    g.mpi_pct = (unsigned)between(25, 60);
    g.ncomm = (unsigned)between(1, 2);
    g.npeer = (unsigned)between(1, 4);
    g.space = 64;
    tc_reset(t, longer ? between(2000, MAXLONG) : between(10, MAXEV));
    switch (rnd() % 5) {
    case 0:
        t->horizon = 0; /* default: never reached */
        break;
    case 1:
        t->horizon = between(1, t->n);
        break;
    default:
        t->horizon = between(1, 40);
        break;
    }
    if (longer) {
        switch (rnd() % 4) {
        case 0:
            g.space = 1024;
            t->horizon = between(1000, 9000);
            break;
        case 1:
            g.space = 65536;
            g.mpi_pct = (unsigned)between(3, 10);
            t->horizon = between(3000, 9000);
            break;
        default:
            break;
        }
    }
    t->max_boxes = (unsigned)between(1, 8);

    if (chance(50)) {
        struct templ body[8];
        unsigned nbody = (unsigned)between(2, 8), inner = (unsigned)between(2, 6);
        uint32_t outer_depth = chance(30) ? 2 : 1;
        size_t i = 0;

        for (unsigned b = 0; b < nbody; b++) {
            body[b].sel = pick_sel(&g);
            body[b].v = (unsigned)between(0, 2);
            body[b].comp_site = comp_site();
        }
        if (outer_depth == 2) {
            stack[0].loop = 1;
            stack[0].reserved = 0;
            stack[0].iter = 1;
        }
        for (uint64_t oi = 1; i < t->n; oi++) {
            for (uint64_t ij = 1; ij <= inner && i < t->n; ij++) {
                stack[outer_depth - 1] = (struct trace_iter){ .loop = 2, .iter = oi };
                stack[outer_depth] = (struct trace_iter){ .loop = 3, .iter = ij };
                for (unsigned b = 0; b < nbody && i < t->n; b++, i++) {
                    t->ev[i].depth = outer_depth + 1;
                    memcpy(t->sl[i].it, stack, (outer_depth + 1) * sizeof(stack[0]));
                    gen_event(t, &g, i, body[b].sel, body[b].v, body[b].comp_site);
                }
            }
            /* something between the rows now and then */
            if (i < t->n && chance(30)) {
                t->ev[i].depth = outer_depth;
                memcpy(t->sl[i].it, stack, outer_depth * sizeof(stack[0]));
                gen_event(t, &g, i, pick_sel(&g), (unsigned)between(0, 2), comp_site());
                i++;
            }
        }
        return;
    }

    for (size_t i = 0; i < t->n; i++) {
        /* the loop nest: enter, iterate, leave */
        switch (rnd() % 8) {
        case 0:
            if (depth < MAXD) {
                stack[depth].loop = (uint32_t)(depth * 10 + between(1, 2));
                stack[depth].reserved = 0;
                stack[depth].iter = chance(20) ? 0 : 1;
                depth++;
            }
            break;
        case 1:
        case 2:
        case 3:
            if (depth)
                stack[depth - 1].iter += chance(10) ? 2 : 1;
            break;
        case 4:
            if (depth)
                depth--;
            break;
        default:
            break;
        }
        t->ev[i].depth = depth;
        memcpy(t->sl[i].it, stack, depth * sizeof(stack[0]));
        gen_event(t, &g, i, pick_sel(&g), (unsigned)between(0, 2), comp_site());
    }
}

/* ---- running both engines ------------------------------------------------------------ */

static struct search_rank_result *run_engine(const struct trace_case *t, int engine, int *rc)
{
    struct search_opts o = { .engine = engine, .horizon = t->horizon,
                             .max_boxes = t->max_boxes };
    struct search_engine *e = NULL;
    struct search_rank_result *r = NULL;

    *rc = search_engine_create(&o, 5, &e);
    if (*rc < 0)
        return NULL;
    for (size_t i = 0; i < t->n; i++)
        if ((*rc = search_engine_feed(e, &t->ev[i])) < 0) {
            search_engine_destroy(e);
            return NULL;
        }
    *rc = search_engine_finish(e, &r);
    return *rc < 0 ? NULL : r;
}

/* Whether the engines disagree on t; why says how.  The reference result
 * is handed over in *ref if ref is not NULL. */
static bool differs(const struct trace_case *t, char *why, size_t size,
                    struct search_rank_result **ref)
{
    int rs, rr;
    struct search_rank_result *s = run_engine(t, SEARCH_ENGINE_STREAMING, &rs);
    struct search_rank_result *r = run_engine(t, SEARCH_ENGINE_REFERENCE, &rr);
    bool bad;

    if (rs < 0 || rr < 0) {
        snprintf(why, size, "engine failed: streaming=%d reference=%d", rs, rr);
        bad = true;
    } else {
        /* a = streaming, b = reference */
        bad = !search_rank_result_equal(s, r, why, size);
    }
    search_rank_result_free(s);
    if (ref)
        *ref = r;
    else
        search_rank_result_free(r);
    return bad;
}

/* ---- reporting a failure ------------------------------------------------------------------ */

static const char *key_class(uint32_t cls)
{
    switch (cls) {
    case DG_KEY_SEND: return "SEND";
    case DG_KEY_RECV: return "RECV";
    case DG_KEY_COLL: return "COLL";
    case DG_KEY_REQ: return "REQ";
    default: return "?";
    }
}

#define BLANK_SITE 99 /* site of the events the shrinker blanks out */

static bool is_blank(const struct dg_event *e)
{
    return e->kind == DG_COMP && e->site == BLANK_SITE && !e->nranges && !e->depth;
}

static void dump(const struct trace_case *t)
{
    fprintf(stderr, "# horizon=%" PRIu64 " max_boxes=%u events=%zu\n", t->horizon,
            t->max_boxes, t->n);
    for (size_t i = 0; i < t->n; i++) {
        const struct dg_event *e = &t->ev[i];
        char line[1024];
        size_t off = 0;

        if (is_blank(e)) {
            size_t j = i;
            while (j + 1 < t->n && is_blank(&t->ev[j + 1]))
                j++;
            fprintf(stderr, "# %4zu..%zu: %zu comp site=%d touching nothing, iv=()\n", i, j,
                    j - i + 1, BLANK_SITE);
            i = j;
            continue;
        }
#define P(...) off += (size_t)snprintf(line + off, off < sizeof(line) ? sizeof(line) - off : 0, __VA_ARGS__)
        P("# %4zu ", i);
        if (e->kind == DG_COMP)
            P("comp");
        else
            P("%s call=%u", dg_role_name(e->role), e->call);
        if (e->site == CHT_NONE)
            P(" site=NONE");
        else
            P(" site=%" PRIu32, e->site);
        if (e->site_flags)
            P(" flags=%" PRIu32, e->site_flags);
        if (e->weight)
            P(" weight=%" PRIu32, e->weight);
        if (e->kind == DG_MPI) {
            P(" t=%" PRIu64 "..%" PRIu64, e->t_enter, e->t_exit);
            if (e->peer >= 0)
                P(" comm=%" PRIu64 " peer=%" PRId32 " bytes=%" PRIu64, e->comm, e->peer,
                  e->bytes);
        }
        for (uint32_t k = 0; k < e->nranges; k++)
            P(" %c[%" PRIu64 ",+%" PRIu64 ")", e->ranges[k].write ? 'W' : 'R',
              e->ranges[k].addr - BASE, e->ranges[k].len);
        for (uint32_t k = 0; k < e->nkeys; k++) {
            if (e->keys[k].peer == DG_PEER_ANY)
                P(" %s(%" PRIu64 ",ANY)", key_class(e->keys[k].cls), e->keys[k].comm);
            else
                P(" %s(%" PRIu64 ",%" PRId32 ")", key_class(e->keys[k].cls), e->keys[k].comm,
                  e->keys[k].peer);
        }
        for (uint32_t k = 0; k < e->nvdeps; k++)
            P("%s%" PRIu64, k ? "," : " uses=", e->vdeps[k]);
        if (e->ncompanions)
            P(" companions=%u", e->ncompanions);
        for (uint32_t k = 0; k < e->ncranges; k++)
            P(" CR[%" PRIu64 ",+%" PRIu64 ")", e->cranges[k].addr - BASE, e->cranges[k].len);
        P(" iv=(");
        for (uint32_t k = 0; k < e->depth; k++)
            P("%sL%" PRIu32 ":%" PRIu64, k ? " " : "", e->iters[k].loop, e->iters[k].iter);
        P(")");
#undef P
        fprintf(stderr, "%s\n", line);
    }
}

/* Replaces events [k, k + len) by computation events that touch nothing
 * (which keeps the positions of the others, e.g. batch boundaries). */
static void tc_blank(struct trace_case *t, size_t k, size_t len)
{
    for (size_t i = k; i < k + len; i++) {
        memset(&t->ev[i], 0, sizeof(t->ev[i]));
        t->ev[i].kind = DG_COMP;
        t->ev[i].site = BLANK_SITE;
        t->ev[i].peer = CHT_RANK_NONE;
    }
    fix_pointers(t);
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One shrinking pass: tries to drop (or blank) chunks of events, halving
 * the chunk size down to 1, while the engines still disagree.  Stops at
 * the deadline. */
static void shrink_pass(struct trace_case *t, bool blank, double deadline, char *why,
                        size_t size)
{
    static struct trace_case c;
    size_t chunk = t->n / 2 ? t->n / 2 : 1;

    for (;;) {
        bool progress = false;
        for (size_t k = 0; k < t->n && now_s() < deadline;) {
            size_t len = chunk < t->n - k ? chunk : t->n - k;
            bool all_blank = true;
            for (size_t i = k; i < k + len && all_blank; i++)
                all_blank = is_blank(&t->ev[i]);
            if ((!blank && len == t->n) || (blank && all_blank)) {
                k += len;
                continue;
            }
            tc_copy(&c, t);
            if (blank)
                tc_blank(&c, k, len);
            else
                tc_drop(&c, k, len);
            if (differs(&c, why, size, NULL)) {
                tc_copy(t, &c);
                progress = true;
                if (blank)
                    k += len;
            } else {
                k += len;
            }
        }
        if (now_s() >= deadline)
            break;
        if (chunk == 1) {
            if (!progress)
                break;
            continue; /* once more one by one */
        }
        chunk /= 2;
        if (chunk > t->n / 2)
            chunk = t->n / 2;
        if (!chunk)
            chunk = 1;
    }
    tc_free(&c);
}

/* Makes a failing sequence small: drops events, blanks out those that
 * cannot be dropped (their position matters), drops again, then
 * shortens the horizon; within about half a minute. */
static void shrink(struct trace_case *t, char *why, size_t size)
{
    static struct trace_case c;
    double deadline = now_s() + 30;

    shrink_pass(t, false, deadline, why, size);
    shrink_pass(t, true, deadline, why, size);
    shrink_pass(t, false, deadline, why, size);
    for (uint64_t h = 1; t->horizon != 0 && h < t->horizon && now_s() < deadline; h++) {
        tc_copy(&c, t);
        c.horizon = h;
        if (differs(&c, why, size, NULL)) {
            t->horizon = h;
            break;
        }
    }
    tc_free(&c);
    differs(t, why, size, NULL);
}

/* ---- what the traces exercise --------------------------------------------------------------- */

struct coverage {
    uint64_t traces, events;
    uint64_t overlaps, nb_overlaps, with_window, truncated, both_flags, stmts, longest;
    uint64_t groups, group_sends, multi_site_groups, exchange_groups, isend_groups, box_more, box_ranges, wide_boxes;
    uint64_t leads;
    uint64_t vdep_ends; /* backward windows that a register or control dependence ends */
    uint64_t companions; /* calls with companions */
};

/* Counts the MPI events of t whose backward window (without a horizon) is
 * ended by one of their register or control dependences alone: the first
 * earlier event they depend on would not be without vdeps. */
static void cover_vdeps(struct coverage *cv, const struct trace_case *t)
{
    for (size_t i = 0; i < t->n; i++) {
        const struct dg_event *c = &t->ev[i];
        cv->companions += c->kind == DG_MPI && c->ncompanions;
        if (c->kind != DG_MPI || !c->nvdeps)
            continue;
        struct dg_event bare = *c;
        bare.nvdeps = 0;
        for (size_t k = i; k-- > 0;)
            if (dg_depends(&t->ev[k], c, true)) {
                cv->vdep_ends += !dg_depends(&t->ev[k], &bare, true);
                break;
            }
    }
}

static void box_cover(struct coverage *cv, const struct search_boxes *b)
{
    if (b->more)
        cv->box_more++;
    for (uint32_t i = 0; i < b->n; i++)
        for (uint32_t k = 0; k < b->box[i].depth; k++)
            if (b->box[i].dim[k].lo != b->box[i].dim[k].hi) {
                cv->box_ranges++;
                for (uint32_t m = 0; m < b->box[i].depth; m++)
                    if (m != k && b->box[i].dim[m].lo != b->box[i].dim[m].hi)
                        cv->wide_boxes++;
            }
}

static void cover(struct coverage *cv, const struct search_rank_result *r)
{
    cv->traces++;
    cv->events += r->events;
    for (uint32_t i = 0; i < r->noverlaps; i++) {
        const struct search_overlap *o = &r->overlaps[i];
        cv->overlaps++;
        cv->nb_overlaps += o->needs_buffer;
        cv->with_window += o->with_window;
        cv->truncated += o->truncated;
        cv->leads += o->nleads;
        box_cover(cv, &o->iters);
        for (uint32_t j = 0; j < o->nstmts; j++) {
            cv->stmts++;
            if (o->stmts[j].events > cv->longest)
                cv->longest = o->stmts[j].events;
            if (o->stmts[j].flags == (SEARCH_STMT_BEFORE | SEARCH_STMT_AFTER))
                cv->both_flags++;
            box_cover(cv, &o->stmts[j].iters);
        }
    }
    for (uint32_t i = 0; i < r->ngroups; i++) {
        cv->groups += r->groups[i].groups;
        cv->group_sends += r->groups[i].members;
        cv->multi_site_groups += r->groups[i].nsites > 1;
        for (uint32_t j = 0; j < r->groups[i].nsites; j++)
            if (r->groups[i].sites[j] / 10 == 10 + DG_ROLE_SENDRECV) { /* mpi_site's Sendrecv sites */
                cv->exchange_groups += r->groups[i].groups;
                break;
            } else if (r->groups[i].sites[j] == 100 + DG_ROLE_START * 10) { /* its Isend site */
                cv->isend_groups += r->groups[i].groups;
                break;
            }
    }
}

/* ---- the test ---------------------------------------------------------------------------------- */

static uint64_t env_u64(const char *name, uint64_t dflt)
{
    const char *v = getenv(name);
    char *end;
    unsigned long long x;

    if (!v || !*v)
        return dflt;
    x = strtoull(v, &end, 0);
    return *end ? dflt : (uint64_t)x;
}

/* Runs ntraces traces from seed first; fails on the first difference. */
static void run_traces(bool longer, uint64_t ntraces, uint64_t first, struct coverage *cv)
{
    static struct trace_case t;
    char why[512];
    struct timespec t0, t1;

    memset(cv, 0, sizeof(*cv));
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (uint64_t seed = first; seed < first + ntraces; seed++) {
        struct search_rank_result *r = NULL;

        generate(&t, seed, longer);
        fix_pointers(&t);
        if (differs(&t, why, sizeof(why), &r)) {
            search_rank_result_free(r);
            fprintf(stderr, "# engines differ: %s trace seed=%" PRIu64 " events=%zu horizon=%" PRIu64
                            " max_boxes=%u: %s (streaming != reference)\n",
                    longer ? "long" : "short", seed, t.n, t.horizon, t.max_boxes, why);
            shrink(&t, why, sizeof(why));
            fprintf(stderr, "# shrunk to %zu events: %s\n", t.n, why);
            dump(&t);
            fail_msg("streaming and reference engines differ: seed=%" PRIu64
                     " (rerun with COMMHINT_PROPERTY_SEED=%" PRIu64 " COMMHINT_PROPERTY_%s=1)",
                     seed, seed, longer ? "LONG" : "TRACES");
        }
        assert_non_null(r);
        cover(cv, r);
        cover_vdeps(cv, &t);
        search_rank_result_free(r);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    fprintf(stderr,
            "# %" PRIu64 " %s traces, %" PRIu64 " events in %.2f s: %" PRIu64 " call sites, %" PRIu64
            " instances with a window (%" PRIu64 " needs-buffer sites), %" PRIu64 " truncated, %" PRIu64 " statements (%" PRIu64
            " before and after, up to %" PRIu64 " events), %" PRIu64 " groups (%" PRIu64
            " sends, %" PRIu64 " multi-site summaries, %" PRIu64 " of Sendrecv, %" PRIu64 " of Isend), boxes: %" PRIu64 " ranges, %" PRIu64
            " 2-d, %" PRIu64 " lists full, %" PRIu64 " windows ended by register or control dependences, %" PRIu64 " calls with companions\n",
            cv->traces, longer ? "long" : "short", cv->events,
            (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
            cv->overlaps, cv->with_window, cv->nb_overlaps, cv->truncated, cv->stmts, cv->both_flags,
            cv->longest, cv->groups, cv->group_sends, cv->multi_site_groups, cv->exchange_groups, cv->isend_groups, cv->box_ranges,
            cv->wide_boxes, cv->box_more, cv->vdep_ends, cv->companions);
    tc_free(&t);
}

static void test_engines_agree(void **state)
{
    struct coverage cv;
    uint64_t ntraces = env_u64("COMMHINT_PROPERTY_TRACES", 10000);

    run_traces(false, ntraces, env_u64("COMMHINT_PROPERTY_SEED", 1), &cv);
    /* the traces exercise what they are meant to (the thresholds hold for
     * 1000 traces or more; with fewer only a presence check) */
    if (ntraces >= 1000) {
        assert_true(cv.with_window > ntraces);
        assert_true(cv.truncated > ntraces / 10);
        assert_true(cv.both_flags > ntraces / 10);
        assert_true(cv.groups > ntraces / 10);
        assert_true(cv.nb_overlaps > ntraces / 100); /* needs-buffer variants of overlap */
        assert_true(cv.multi_site_groups > ntraces / 100);
        assert_true(cv.exchange_groups > ntraces / 100); /* groups of Sendrecv too */
        assert_true(cv.isend_groups > ntraces / 500);    /* and of Isend */
        assert_true(cv.box_ranges > ntraces / 10);
        assert_true(cv.wide_boxes > 0);
        assert_true(cv.box_more > ntraces / 100);
        assert_true(cv.leads > ntraces); /* leads are compared too */
        assert_true(cv.vdep_ends > ntraces); /* register/control dependences matter */
        assert_true(cv.companions > ntraces); /* so do companions */
    } else if (ntraces >= 100) {
        assert_true(cv.with_window > 0 && cv.truncated > 0 && cv.groups > 0 &&
                    cv.box_ranges > 0);
    }
}

/* Long traces: the streaming engine's batches and ring are exercised. */
static void test_engines_agree_long(void **state)
{
    struct coverage cv;
    uint64_t ntraces = env_u64("COMMHINT_PROPERTY_LONG", 64);

    run_traces(true, ntraces, env_u64("COMMHINT_PROPERTY_SEED", 1), &cv);
    if (ntraces >= 64) {
        assert_true(cv.truncated > 0);
        assert_true(cv.longest > 4096); /* a statement's events span batches */
        assert_true(cv.groups > 0);
    }
}


/* ---- runs: the streaming engine on whole runs against the same events one
 * by one ------------------------------------------------------------------------------- */

#define COL_REPS 400 /* the longest run with irregular ranges */

struct run_store {
    struct dg_run r;
    struct dg_range rg[DG_RUN_PERIOD_MAX][DG_RUN_MAX_ADDRS];
    int64_t st[DG_RUN_PERIOD_MAX][DG_RUN_MAX_ADDRS];
    struct trace_iter it[DG_RUN_PERIOD_MAX][MAXD];
    uint64_t di[DG_RUN_PERIOD_MAX][MAXD];
    /* irregular ranges (a REPEAT_COL's column): an address per repetition */
    uint64_t col[DG_RUN_PERIOD_MAX][DG_RUN_MAX_ADDRS][COL_REPS];
    const uint64_t *ap[DG_RUN_PERIOD_MAX][DG_RUN_MAX_ADDRS];
};

/* A random run from index first over an address space of `space` bytes:
 * aligned ints and doubles sweeping with small strides (granular), or now
 * and then odd lengths and strides; iteration vectors that advance at the
 * innermost level, at an outer one, or not at all. */
static void gen_run(struct run_store *s, uint64_t first, uint64_t space)
{
    struct dg_run *r = &s->r;
    static const int64_t strides[] = {8, 8, 8, 4, -8, 0, 16, -4, 24};
    bool odd = chance(15);
    uint32_t depth = (uint32_t)between(0, MAXD);
    uint64_t it0 = between(1, 50);

    memset(r, 0, sizeof(*r));
    r->first = first;
    r->period = (uint32_t)between(1, 4);
    r->reps = chance(20) ? between(1, 20) : chance(10) ? between(1000, 5000) : between(20, 400);
    r->granular = !odd;
    for (uint32_t p = 0; p < r->period; p++) {
        struct dg_event *e = &r->ph[p].ev;
        uint32_t nr = (uint32_t)between(0, 3);
        e->index = first + p;
        e->kind = DG_COMP;
        e->site = (uint32_t)between(1, 8);
        e->site_flags = e->site % 3 == 0 ? CHT_SITEF_CONDITIONAL : 0;
        e->weight = site_weight(e->site);
        e->peer = CHT_RANK_NONE;
        for (uint32_t k = 0; k < nr; k++) {
            struct dg_range *x = &s->rg[p][k];
            int64_t st = strides[between(0, sizeof(strides) / sizeof(strides[0]) - 1)];
            x->len = chance(50) ? 8 : 4;
            x->addr = (BASE + between(0, space - 1)) & ~(uint64_t)3;
            x->write = chance(40);
            if (odd) {
                x->len = between(1, 9);
                x->addr = BASE + between(0, space - 1);
                st = (int64_t)between(0, 12) - 6;
            }
            if (st < 0 && x->addr < (uint64_t)(-st) * r->reps + BASE)
                st = -st; /* stay in the address space */
            s->st[p][k] = st;
            s->ap[p][k] = NULL;
            if (r->reps <= COL_REPS && chance(25)) {
                /* no stride: random addresses (a gather), now and then the same */
                for (uint64_t j = 0; j < r->reps; j++) {
                    uint64_t a = BASE + between(0, space - 1);
                    s->col[p][k][j] = j && chance(20) ? s->col[p][k][j - 1] : odd ? a : a & ~(uint64_t)3;
                }
                x->addr = s->col[p][k][0];
                s->st[p][k] = 0;
                s->ap[p][k] = s->col[p][k];
                r->ph[p].addr = s->ap[p];
                r->irregular = true;
            }
        }
        e->nranges = nr;
        e->ranges = s->rg[p];
        e->depth = depth;
        for (uint32_t l = 0; l < depth; l++) {
            s->it[p][l] = (struct trace_iter){.loop = 20 + l, .iter = l + 1 == depth ? it0 + p / 2 : it0};
            s->di[p][l] = l + 1 == depth ? 1 : 0;
        }
        if (depth && chance(20)) /* the vector stays */
            for (uint32_t l = 0; l < depth; l++)
                s->di[p][l] = 0;
        e->iters = s->it[p];
        r->ph[p].stride = s->st[p];
        r->ph[p].diter = s->di[p];
    }
    if (depth >= 2 && chance(30)) /* an outer level moves instead */
        for (uint32_t p = 0; p < r->period; p++)
            s->di[p][depth - 1] = 0, s->di[p][0] = 1;
}

#define ROWS_MAX 40 /* rows of a random run of rows, of at most COL_REPS / ROWS_MAX iterations */

struct rows_store {
    struct run_store rs; /* its phases: ranges, strides, vectors, columns (by iteration) */
    struct trace_rows w;
    uint64_t trips[ROWS_MAX], at[ROWS_MAX + 1], itb[ROWS_MAX + 1];
    uint64_t ra[DG_RUN_PERIOD_MAX][DG_RUN_MAX_ADDRS][ROWS_MAX]; /* inner strided: per row */
    const uint64_t *rap[DG_RUN_PERIOD_MAX][DG_RUN_MAX_ADDRS];
    uint64_t rdi[DG_RUN_PERIOD_MAX][MAXD];
};

/* A random run of rows from index first: 0 to 2 between phases strided by
 * rows, 1 to 3 inner ones strided by iterations from each row's own start
 * or gathering; rows of 1 to 10 iterations; iteration vectors that move
 * with rows, iterations, both or neither. */
static void gen_rows(struct rows_store *s, uint64_t first, uint64_t space)
{
    struct dg_run *r = &s->rs.r;
    struct trace_rows *w = &s->w;
    static const int64_t strides[] = {8, 8, 4, -8, 0, 16, 24};
    uint32_t depth = (uint32_t)between(0, MAXD);
    bool odd = chance(10);

    memset(r, 0, sizeof(*r));
    w->nb = (uint32_t)between(0, 2);
    w->ni = (uint32_t)between(1, 3);
    w->nrows = between(1, ROWS_MAX);
    w->between_last = w->nb && chance(50);
    s->at[0] = s->itb[0] = 0;
    for (uint64_t i = 0; i < w->nrows; i++) {
        s->trips[i] = chance(10) ? 1 : between(1, COL_REPS / ROWS_MAX);
        s->itb[i + 1] = s->itb[i] + s->trips[i];
        s->at[i + 1] = s->at[i] + s->trips[i] * w->ni + (i + 1 < w->nrows || w->between_last ? w->nb : 0);
    }
    w->trips = s->trips, w->at = s->at, w->itb = s->itb;
    r->first = first;
    r->reps = 1;
    r->period = w->nb + w->ni;
    r->rows = w;
    for (uint32_t p = 0; p < r->period; p++) {
        struct dg_event *e = &r->ph[p].ev;
        struct dg_run_phase *ph = &r->ph[p];
        bool inner = p >= w->nb;
        uint32_t nr = (uint32_t)between(0, 3);
        e->kind = DG_COMP;
        e->index = first;
        e->site = (uint32_t)between(1, 8);
        e->site_flags = e->site % 3 == 0 ? CHT_SITEF_CONDITIONAL : 0;
        e->weight = site_weight(e->site);
        e->peer = CHT_RANK_NONE;
        ph->addr = NULL;
        ph->row_addr = inner ? s->rap[p] : NULL;
        ph->row_diter = inner ? s->rdi[p] : NULL;
        for (uint32_t k = 0; k < nr; k++) {
            struct dg_range *x = &s->rs.rg[p][k];
            int64_t st = strides[between(0, sizeof(strides) / sizeof(strides[0]) - 1)];
            uint64_t reps = inner ? COL_REPS / ROWS_MAX : ROWS_MAX;
            x->len = odd ? between(1, 9) : chance(50) ? 8 : 4;
            x->write = chance(40);
            x->addr = (BASE + (uint64_t)(-st > 0 ? -st : 0) * reps + between(0, space - 1)) & ~(uint64_t)(odd ? 0 : 3);
            s->rs.st[p][k] = st;
            s->rs.ap[p][k] = NULL;
            s->rap[p][k] = NULL;
            if (!inner)
                continue;
            if (chance(40)) { /* a gather: an address per iteration */
                for (uint64_t g = 0; g < w->itb[w->nrows]; g++) {
                    uint64_t a = BASE + between(0, space - 1);
                    s->rs.col[p][k][g] = g && chance(20) ? s->rs.col[p][k][g - 1] : odd ? a : a & ~(uint64_t)3;
                }
                s->rs.st[p][k] = 0;
                s->rs.ap[p][k] = s->rs.col[p][k];
                ph->addr = s->rs.ap[p];
                x->addr = s->rs.col[p][k][0];
                r->irregular = true;
            } else { /* strided from each row's own start */
                for (uint64_t i = 0; i < w->nrows; i++)
                    s->ra[p][k][i] = i && chance(50) ? s->ra[p][k][i - 1] + w->trips[i - 1] * (uint64_t)st
                                                     : (x->addr + between(0, space / 2)) & ~(uint64_t)(odd ? 0 : 3);
                s->rap[p][k] = s->ra[p][k];
                x->addr = s->ra[p][k][0];
            }
        }
        e->nranges = nr;
        e->ranges = s->rs.rg[p];
        e->depth = depth;
        for (uint32_t l = 0; l < depth; l++) {
            s->rs.it[p][l] = (struct trace_iter){.loop = 20 + l, .iter = between(1, 30)};
            s->rs.di[p][l] = chance(60);
            s->rdi[p][l] = chance(60);
        }
        e->iters = s->rs.it[p];
        ph->stride = s->rs.st[p];
        ph->diter = s->rs.di[p];
    }
}

/* Feeds t's events with runs (runs of rows too) inserted before some of
 * them, to one engine as runs and to another event by event; the results
 * must be identical. */
static void runs_case(struct trace_case *t, uint64_t seed, uint64_t *nruns, uint64_t *nrows, uint64_t *nevents)
{
    struct search_opts o = {.engine = SEARCH_ENGINE_STREAMING, .horizon = t->horizon,
                            .max_boxes = t->max_boxes};
    struct search_engine *a = NULL, *b = NULL;
    struct search_rank_result *ra = NULL, *rb = NULL;
    static struct run_store rs;
    static struct rows_store ws;
    struct dg_event ev;
    struct dg_range rg[DG_RUN_MAX_ADDRS];
    struct trace_iter it[MAXD];
    uint64_t next = 0, space = 64;
    char why[512];

    for (size_t i = 0; i < t->n; i++)
        for (uint32_t k = 0; k < t->ev[i].nranges; k++)
            if (t->ev[i].ranges[k].addr - BASE + 8 > space)
                space = t->ev[i].ranges[k].addr - BASE + 8;
    assert_int_equal(search_engine_create(&o, 3, &a), 0);
    assert_int_equal(search_engine_create(&o, 3, &b), 0);
    for (size_t i = 0; i <= t->n; i++) {
        if (chance(i == t->n ? 50 : 4)) {
            bool rows = chance(40);
            const struct dg_run *r = rows ? &ws.rs.r : &rs.r;
            if (rows)
                gen_rows(&ws, next, space);
            else
                gen_run(&rs, next, space);
            assert_int_equal(search_engine_feed_run(a, r), 0);
            for (uint64_t u = 0; u < dg_run_events(r); u++) {
                dg_run_event(r, u, &ev, rg, it);
                assert_int_equal(search_engine_feed(b, &ev), 0);
            }
            next += dg_run_events(r);
            *nevents += dg_run_events(r);
            ++*nruns;
            *nrows += rows;
        }
        if (i == t->n)
            break;
        ev = t->ev[i];
        ev.index = next++;
        assert_int_equal(search_engine_feed(a, &ev), 0);
        assert_int_equal(search_engine_feed(b, &ev), 0);
    }
    assert_int_equal(search_engine_finish(a, &ra), 0);
    assert_int_equal(search_engine_finish(b, &rb), 0);
    if (!search_rank_result_equal(ra, rb, why, sizeof(why)))
        fail_msg("runs and their events give different results: seed=%" PRIu64 " horizon=%" PRIu64
                 ": %s (runs != events)", seed, t->horizon, why);
    search_rank_result_free(ra);
    search_rank_result_free(rb);
}

static void test_runs_agree(void **state)
{
    static struct trace_case t;
    uint64_t n = env_u64("COMMHINT_PROPERTY_RUNS", 600), first = env_u64("COMMHINT_PROPERTY_SEED", 1);
    uint64_t nruns = 0, nrows = 0, nevents = 0;
    (void)state;
    for (uint64_t seed = first; seed < first + n; seed++) {
        generate(&t, seed, seed % 8 == 0);
        fix_pointers(&t);
        runs_case(&t, seed, &nruns, &nrows, &nevents);
    }
    fprintf(stderr, "# %" PRIu64 " traces with %" PRIu64 " runs (%" PRIu64 " of rows) of %" PRIu64
            " events in all\n", n, nruns, nrows, nevents);
    tc_free(&t);
    assert_true(nruns > n / 2);
    assert_true(nrows > n / 8);
}

/* The generator is deterministic: the same seed gives the same events. */
static void test_generator_deterministic(void **state)
{
    static struct trace_case a, b;

    for (int longer = 0; longer < 2; longer++) {
        generate(&a, 42, longer);
        generate(&b, 42, longer);
        assert_int_equal(a.n, b.n);
        assert_int_equal(a.horizon, b.horizon);
        for (size_t i = 0; i < a.n; i++) {
            assert_int_equal(a.ev[i].site, b.ev[i].site);
            assert_int_equal(a.ev[i].nranges, b.ev[i].nranges);
            assert_memory_equal(&a.sl[i], &b.sl[i], sizeof(a.sl[i]));
        }
    }
    tc_free(&a);
    tc_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generator_deterministic),
        cmocka_unit_test(test_engines_agree),
        cmocka_unit_test(test_engines_agree_long),
        cmocka_unit_test(test_runs_agree),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
