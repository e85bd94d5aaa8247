/* test-kinds.c - a per-rank hint kind is a unit (search/rank/kind.h,
 * docs/kinds.md): a trivial kind written and registered here, in this
 * file alone, goes through both engines, the comparison of results, the
 * packing of --parallel, the merge into hints and the kind tables.
 *
 * The test kind, "sends-per-peer", counts the blocking sends of a rank per
 * destination and merges them into one hint per destination, located at
 * the first send site of the lowest rank that sends there.  It keeps its
 * per-rank data in the result's generic slot (search_rank_result_kind_data).
 *
 * The merged report is then written as JSON, SARIF and text by the
 * library's writers (search_report_write, what `commhint hints` prints):
 * the kind's name, rule and description come from the kind tables.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pack-bytes.h"
#include "rank/kind.h"
#include "trace-format.h"

/* ---- the test kind ------------------------------------------------------------------ */

/* Its per-rank data: the sends to each destination, sorted by peer. */
struct peer_sends {
    int32_t peer;
    uint32_t site;   /* of the first send */
    uint64_t sends;
    uint64_t bytes;
};
struct sends_data {
    uint32_t n;
    struct peer_sends *v;
};

extern const struct search_kind sends_kind;

/* Counts a send into d (peers are few: a linear search). */
static int sends_add(struct sends_data *d, const struct dg_event *e)
{
    uint32_t i = 0;
    while (i < d->n && d->v[i].peer < e->peer)
        i++;
    if (i == d->n || d->v[i].peer != e->peer) {
        struct peer_sends *p = realloc(d->v, (d->n + 1) * sizeof *p);
        if (!p)
            return TRACE_ERR_NOMEM;
        d->v = p;
        memmove(&d->v[i + 1], &d->v[i], (d->n - i) * sizeof *p);
        d->v[i] = (struct peer_sends){e->peer, e->site, 0, 0};
        d->n++;
    }
    d->v[i].sends++;
    d->v[i].bytes += e->bytes;
    return 0;
}

static void sends_data_free(struct sends_data *d)
{
    if (d)
        free(d->v);
    free(d);
}

/* Hands d over to r's slot. */
static int sends_give(struct sends_data *d, struct search_rank_result *r)
{
    int rc = search_rank_result_set_kind_data(r, &sends_kind, d);
    if (rc < 0)
        sends_data_free(d);
    return rc;
}

static int sends_stream_create(struct search_stream *s, void **state)
{
    *state = calloc(1, sizeof(struct sends_data));
    return *state ? 0 : TRACE_ERR_NOMEM;
}

static void sends_stream_destroy(void *state)
{
    sends_data_free(state);
}

static int sends_stream_event(void *state, struct search_stream *s, const struct dg_event *e)
{
    return dg_is_movable_send(e) ? sends_add(state, e) : 0;
}

/* Runs are computation events: nothing to see in them. */
static uint64_t sends_run_alone(void *state, struct search_stream *s, const struct dg_run *r, uint64_t t,
                                uint64_t x)
{
    return x;
}

static int sends_stream_finish(void *state, struct search_stream *s, struct search_rank_result *r)
{
    struct sends_data *d = calloc(1, sizeof *d);
    if (!d)
        return TRACE_ERR_NOMEM;
    *d = *(struct sends_data *)state; /* moved */
    memset(state, 0, sizeof *d);
    return sends_give(d, r);
}

static int sends_reference(struct search_ref *x, struct search_rank_result *r)
{
    struct sends_data *d = calloc(1, sizeof *d);
    if (!d)
        return TRACE_ERR_NOMEM;
    for (size_t i = 0; i < x->n; i++)
        if (dg_is_movable_send(&x->ev[i]) && sends_add(d, &x->ev[i]) < 0) {
            sends_data_free(d);
            return TRACE_ERR_NOMEM;
        }
    return sends_give(d, r);
}

static void sends_result_free(struct search_rank_result *r)
{
    struct sends_data *d = search_rank_result_kind_data(r, &sends_kind);
    if (d) {
        sends_data_free(d);
        search_rank_result_set_kind_data(r, &sends_kind, NULL);
    }
}

static bool sends_result_equal(const struct search_rank_result *a, const struct search_rank_result *b,
                               char *why, size_t size)
{
    const struct sends_data *x = search_rank_result_kind_data(a, &sends_kind);
    const struct sends_data *y = search_rank_result_kind_data(b, &sends_kind);
    uint32_t nx = x ? x->n : 0, ny = y ? y->n : 0;
    for (uint32_t i = 0; i < nx && i < ny; i++) {
        const struct peer_sends *p = &x->v[i], *q = &y->v[i];
        if (p->peer != q->peer || p->site != q->site)
            return search_differ(why, size, "sends-per-peer %" PRIu32 ": peer=%d site=%" PRIu32
                                 " != peer=%d site=%" PRIu32, i, p->peer, p->site, q->peer, q->site);
        if (p->sends != q->sends || p->bytes != q->bytes)
            return search_differ(why, size, "sends-per-peer peer=%d: sends %" PRIu64 " != %" PRIu64
                                 " or bytes %" PRIu64 " != %" PRIu64, p->peer, p->sends, q->sends,
                                 p->bytes, q->bytes);
    }
    if (nx != ny)
        return search_differ(why, size, "sends-per-peer: peers %" PRIu32 " != %" PRIu32, nx, ny);
    return true;
}

static void sends_pack(struct pk_buf *b, const struct search_rank_result *r)
{
    const struct sends_data *d = search_rank_result_kind_data(r, &sends_kind);
    pk_u32(b, d ? d->n : 0);
    for (uint32_t i = 0; d && i < d->n; i++) {
        pk_i32(b, d->v[i].peer);
        pk_u32(b, d->v[i].site);
        pk_u64(b, d->v[i].sends);
        pk_u64(b, d->v[i].bytes);
    }
}

static void sends_unpack(struct pk_rd *rd, struct search_rank_result *r)
{
    uint32_t n = rd_count(rd, 24);
    struct sends_data *d = rd_alloc(rd, 1, sizeof *d);
    if (!d)
        return;
    if (n && (d->v = rd_alloc(rd, n, sizeof *d->v)))
        d->n = n;
    for (uint32_t i = 0; i < d->n && !rd->bad; i++) {
        d->v[i].peer = rd_i32(rd);
        d->v[i].site = rd_u32(rd);
        d->v[i].sends = rd_u64(rd);
        d->v[i].bytes = rd_u64(rd);
    }
    if (sends_give(d, r) < 0)
        rd_fail(rd, "out of memory");
}

/* One merge entry: a rank's sends to one peer. */
struct sends_ent {
    int32_t peer;
    int rank;
    const struct search_rank_result *res;
    const struct peer_sends *p;
};

static int sends_ent_cmp(const void *pa, const void *pb)
{
    const struct sends_ent *a = pa, *b = pb;
    if (a->peer != b->peer)
        return a->peer < b->peer ? -1 : 1;
    return a->rank < b->rank ? -1 : a->rank > b->rank;
}

/* The hint of the entries [i, j), which send to the same peer. */
static int sends_hint(const struct search_merge *m, const struct sends_ent *e, size_t i, size_t j)
{
    struct search_hint *h = search_hints_push(m->hints);
    if (!h || search_hint_alloc_ranks(h, j - i) < 0)
        return TRACE_ERR_NOMEM;
    struct search_loc at;
    search_loc_of(search_site_info(e[i].res, e[i].p->site), e[i].p->site, &at);
    h->kind = m->kind;
    h->call = CHT_MPI_SEND;
    h->file = at.file;
    h->func = at.func;
    h->line = at.line;
    h->col = at.col;
    for (size_t k = i; k < j; k++) {
        search_hint_add_rank(h, e[k].rank);
        h->instances += e[k].p->sends;
        h->members += e[k].p->sends;
        h->bytes += e[k].p->bytes;
    }
    return 0;
}

static int sends_merge(const struct search_merge *m)
{
    size_t n = 0, ne = 0;
    for (int r = 0; r < m->n; r++) {
        const struct sends_data *d = search_rank_result_kind_data(m->ranks[r], &sends_kind);
        n += d ? d->n : 0;
    }
    struct sends_ent *e = calloc(n ? n : 1, sizeof *e);
    if (!e)
        return TRACE_ERR_NOMEM;
    for (int r = 0; r < m->n; r++) {
        const struct sends_data *d = search_rank_result_kind_data(m->ranks[r], &sends_kind);
        for (uint32_t k = 0; d && k < d->n; k++)
            e[ne++] = (struct sends_ent){d->v[k].peer, m->ranks[r]->rank, m->ranks[r], &d->v[k]};
    }
    qsort(e, ne, sizeof *e, sends_ent_cmp);
    int rc = 0;
    for (size_t i = 0; i < ne && rc == 0;) {
        size_t j = i + 1;
        while (j < ne && e[j].peer == e[i].peer)
            j++;
        rc = sends_hint(m, e, i, j);
        i = j;
    }
    free(e);
    return rc;
}

/* "3 MPI_Send calls to one rank from line 42 (ranks 0-1)" */
static char *sends_message(const struct search_hint *h, bool with_times)
{
    struct search_text b = {0};
    const char *call = trace_mpi_call_name(h->call);
    search_text_printf(&b, "%" PRIu64 " %s calls to one rank from ", h->instances, call);
    search_text_lines(&b, h, true);
    search_text_printf(&b, " (");
    search_text_ranks(&b, h->ranks, h->nranks);
    search_text_printf(&b, ")");
    return search_text_take(&b);
}

const struct search_kind sends_kind = {
    .desc = {0, "sends-per-peer", "SendsPerPeer", "Blocking sends to one destination rank (a test kind)"},
    .stream = &(const struct search_stream_methods){
        .create = sends_stream_create,
        .destroy = sends_stream_destroy,
        .event = sends_stream_event,
        .run_alone = sends_run_alone,
        .finish = sends_stream_finish,
    },
    .reference = sends_reference,
    .result_free = sends_result_free,
    .result_equal = sends_result_equal,
    .pack = sends_pack,
    .unpack = sends_unpack,
    .merge = sends_merge,
    .message = sends_message,
};

static int sends_id; /* the hint kind the registry gave it */

/* ---- events --------------------------------------------------------------------------- */

#define MAXEV 64
#define ADDR 0x10000u

static const struct trace_iter no_iters[1]; /* events outside every loop */

struct seq {
    size_t n;
    struct dg_event ev[MAXEV];
    struct dg_range rg[MAXEV];
    struct dg_key ky[MAXEV];
};

static struct dg_event *add_ev(struct seq *s, uint8_t kind, uint32_t site, uint64_t addr, bool write)
{
    assert_true(s->n < MAXEV);
    struct dg_event *e = &s->ev[s->n];
    memset(e, 0, sizeof *e);
    e->index = s->n;
    e->site = site;
    e->kind = kind;
    e->peer = CHT_RANK_NONE;
    s->rg[s->n] = (struct dg_range){addr, 8, write};
    e->ranges = &s->rg[s->n];
    e->nranges = 1;
    e->keys = &s->ky[s->n];
    e->iters = no_iters;
    s->n++;
    return e;
}

static void comp(struct seq *s, uint64_t addr)
{
    add_ev(s, DG_COMP, 1, addr, true);
}

/* A blocking point-to-point call on communicator 1 with its key. */
static struct dg_event *p2p(struct seq *s, uint32_t site, uint8_t role, uint32_t cls, int32_t peer,
                            uint64_t addr)
{
    struct dg_event *e = add_ev(s, DG_MPI, site, addr, role == DG_ROLE_RECV);
    e->role = role;
    e->call = role == DG_ROLE_RECV ? CHT_MPI_RECV : CHT_MPI_SEND;
    e->t_enter = 1000 * s->n;
    e->t_exit = e->t_enter + 100;
    e->comm = 1;
    s->ky[e->index] = (struct dg_key){cls, peer, 1};
    e->nkeys = 1;
    return e;
}

static void send(struct seq *s, uint32_t site, int32_t dest, uint64_t addr, uint64_t bytes)
{
    struct dg_event *e = p2p(s, site, DG_ROLE_SEND, DG_KEY_SEND, dest, addr);
    e->peer = dest;
    e->bytes = bytes;
}

static void recv(struct seq *s, uint32_t site, int32_t src, uint64_t addr)
{
    p2p(s, site, DG_ROLE_RECV, DG_KEY_RECV, src, addr);
}

/* Rank 0 sends 3 times to rank 1 (site 40) and once to rank 2 (site 42);
 * rank 1 twice to rank 0 (site 44) and twice to rank 2 (site 42). */
static void rank_events(struct seq *s, int rank)
{
    memset(s, 0, sizeof *s);
    comp(s, ADDR);
    if (rank == 0) {
        send(s, 40, 1, ADDR, 8);
        send(s, 40, 1, ADDR + 8, 8);
        comp(s, ADDR + 8);
        send(s, 40, 1, ADDR + 8, 8);
        send(s, 42, 2, ADDR + 16, 16);
        recv(s, 50, 1, ADDR + 32);
    } else {
        send(s, 44, 0, ADDR, 8);
        send(s, 42, 2, ADDR + 8, 4);
        send(s, 44, 0, ADDR + 16, 8);
        recv(s, 50, 0, ADDR);
        send(s, 42, 2, ADDR, 4);
    }
    comp(s, ADDR + 64);
}

/* A run of computation events after the rank's events: one phase reading
 * 8 bytes further on each repetition. */
static void make_run(struct dg_run *r, uint64_t first, struct dg_range *rg, int64_t *stride)
{
    memset(r, 0, sizeof *r);
    r->first = first;
    r->reps = 40;
    r->period = 1;
    r->granular = true;
    *rg = (struct dg_range){ADDR + 0x1000, 8, false};
    *stride = 8;
    struct dg_event *e = &r->ph[0].ev;
    e->index = first;
    e->kind = DG_COMP;
    e->site = 2;
    e->peer = CHT_RANK_NONE;
    e->nranges = 1;
    e->ranges = rg;
    e->iters = no_iters;
    r->ph[0].stride = stride;
}

/* The rank's events (and a run after them, given to the streaming engine
 * whole and to the reference one event by event) through one engine. */
static struct search_rank_result *analyse(int rank, int engine)
{
    static struct seq s;
    struct search_opts o = {.engine = engine};
    struct search_engine *e = NULL;
    struct search_rank_result *r = NULL;
    struct dg_run run;
    struct dg_range rg, ranges[DG_RUN_MAX_ADDRS];
    struct trace_iter iters[TRACE_MAX_LOOP_DEPTH];
    int64_t stride;
    struct dg_event ev;

    rank_events(&s, rank);
    assert_int_equal(search_engine_create(&o, rank, &e), 0);
    for (size_t i = 0; i < s.n; i++)
        assert_int_equal(search_engine_feed(e, &s.ev[i]), 0);
    make_run(&run, s.n, &rg, &stride);
    if (engine == SEARCH_ENGINE_STREAMING) {
        assert_int_equal(search_engine_feed_run(e, &run), 0);
    } else {
        for (uint64_t t = 0; t < run.reps * run.period; t++) {
            dg_run_event(&run, t, &ev, ranges, iters);
            assert_int_equal(search_engine_feed(e, &ev), 0);
        }
    }
    assert_int_equal(search_engine_finish(e, &r), 0);
    assert_non_null(r);
    r->log.rank = rank; /* as search_run_rank leaves it: packing checks it */
    return r;
}

/* ---- tests ------------------------------------------------------------------------------ */

static int register_kind(void **state)
{
    (void)state;
    sends_id = search_kind_register(&sends_kind);
    return sends_id > 0 ? 0 : -1;
}

/* The registry gave the kind the first free hint kind, and the tables
 * every output uses know it. */
static void test_registered(void **state)
{
    (void)state;
    assert_int_equal(sends_id, SEARCH_HINT_COLLECTIVE + 1);
    assert_string_equal(search_kind_name(sends_id), "sends-per-peer");
    assert_int_equal(search_kind_from_name("sends-per-peer"), sends_id);
    const struct search_kind_desc *d = search_kind_desc(sends_id);
    assert_non_null(d);
    assert_int_equal(d->kind, sends_id);
    assert_string_equal(d->rule_id, "SendsPerPeer");
    assert_non_null(strstr(d->description, "test kind"));
    /* the built-in kinds are where they were, the new one comes last */
    assert_int_equal(search_kind_count(), 4);
    assert_int_equal(search_kind_at(0)->kind, SEARCH_HINT_OVERLAP);
    assert_int_equal(search_kind_at(1)->kind, SEARCH_HINT_AGGREGATE);
    assert_int_equal(search_kind_at(2)->kind, SEARCH_HINT_COLLECTIVE);
    assert_ptr_equal(search_kind_at(3), d);
    assert_ptr_equal(search_kinds_find(sends_id), &sends_kind);
}

/* A kind is refused when its name or hint kind is taken or a required
 * method is missing. */
static void test_register_refused(void **state)
{
    (void)state;
    struct search_kind k = sends_kind;
    assert_int_equal(search_kind_register(&sends_kind), TRACE_ERR_ARG);
    k.desc.name = "overlap";
    assert_int_equal(search_kind_register(&k), TRACE_ERR_ARG);
    k.desc.name = "collective";
    assert_int_equal(search_kind_register(&k), TRACE_ERR_ARG);
    k.desc.name = "another";
    k.desc.kind = SEARCH_HINT_AGGREGATE;
    assert_int_equal(search_kind_register(&k), TRACE_ERR_ARG);
    k.desc.kind = 0;
    k.merge = NULL;
    assert_int_equal(search_kind_register(&k), TRACE_ERR_ARG);
    k = sends_kind;
    k.desc.name = "another";
    k.unpack = NULL; /* pack without unpack */
    assert_int_equal(search_kind_register(&k), TRACE_ERR_ARG);
    assert_int_equal(search_kind_count(), 4);
}

static const struct peer_sends *peer_of(const struct search_rank_result *r, int32_t peer)
{
    const struct sends_data *d = search_rank_result_kind_data(r, &sends_kind);
    assert_non_null(d);
    for (uint32_t i = 0; i < d->n; i++)
        if (d->v[i].peer == peer)
            return &d->v[i];
    return NULL;
}

/* Both engines give the kind's data, the same, and a difference in it is
 * found and told. */
static void test_engines(void **state)
{
    (void)state;
    char why[256];
    for (int rank = 0; rank < 2; rank++) {
        struct search_rank_result *s = analyse(rank, SEARCH_ENGINE_STREAMING);
        struct search_rank_result *r = analyse(rank, SEARCH_ENGINE_REFERENCE);
        if (!search_rank_result_equal(s, r, why, sizeof why))
            fail_msg("rank %d: the engines differ: %s", rank, why);
        assert_int_equal(s->events, 48 - rank); /* its events and the run's 40 */
        const struct sends_data *d = search_rank_result_kind_data(s, &sends_kind);
        assert_int_equal(d->n, 2);
        const struct peer_sends *p = peer_of(s, rank == 0 ? 1 : 0), *q = peer_of(s, 2);
        assert_int_equal(p->sends, rank == 0 ? 3 : 2);
        assert_int_equal(p->bytes, rank == 0 ? 24 : 16);
        assert_int_equal(p->site, rank == 0 ? 40 : 44);
        assert_int_equal(q->sends, rank == 0 ? 1 : 2);
        assert_int_equal(q->bytes, rank == 0 ? 16 : 8);
        /* the other kinds are there too: the sends are overlap candidates */
        assert_true(s->noverlaps >= 2);
        ((struct peer_sends *)p)->sends++;
        assert_false(search_rank_result_equal(s, r, why, sizeof why));
        assert_non_null(strstr(why, "sends-per-peer peer="));
        search_rank_result_free(s);
        search_rank_result_free(r);
    }
}

/* The kind's data travels with a packed result (--parallel). */
static void test_pack(void **state)
{
    (void)state;
    struct search_rank_result *s = analyse(0, SEARCH_ENGINE_STREAMING), *u = NULL;
    void *buf;
    size_t len;
    char why[256];
    struct trace_err err;
    assert_int_equal(search_rank_result_pack(s, &buf, &len), 0);
    assert_int_equal(search_rank_result_unpack(buf, len, &u, &err), 0);
    if (!search_rank_result_equal(s, u, why, sizeof why))
        fail_msg("unpacked result differs: %s", why);
    assert_int_equal(peer_of(u, 1)->sends, 3);
    /* cut short: refused, nothing leaked */
    search_rank_result_free(u);
    u = NULL;
    assert_int_equal(search_rank_result_unpack(buf, len - 1, &u, &err), TRACE_ERR_FORMAT);
    assert_null(u);
    free(buf);
    search_rank_result_free(s);
}

/* Site infos as search_run_rank would give them. */
static struct trace_site_info info40, info42, info44;

static void give_sites(struct search_rank_result *r)
{
    static const struct trace_site_info *infos[] = {&info40, &info42, &info44};
    r->siteinfo = calloc(3, sizeof *r->siteinfo);
    assert_non_null(r->siteinfo);
    for (uint32_t i = 0; i < 3; i++)
        r->siteinfo[r->nsiteinfo++] = (struct search_siteinfo){infos[i]->id, infos[i]};
}

static const struct search_hint *hint_at(const struct search_report *rep, uint32_t line)
{
    const struct search_hint *found = NULL;
    for (uint32_t i = 0; i < rep->nhints; i++)
        if (rep->hints[i].kind == sends_id && rep->hints[i].line == line) {
            assert_null(found);
            found = &rep->hints[i];
        }
    assert_non_null(found);
    return found;
}

/* Two ranks' results merge into one hint per destination, with the kind's
 * message; the kind filter of the report knows the kind. */
static void test_merge(void **state)
{
    (void)state;
    struct search_rank_result *r[2];
    struct search_report *rep = NULL;
    info40 = (struct trace_site_info){.id = 40, .file = "/src/ex.c", .func = "f", .line = 40, .col = 5};
    info42 = (struct trace_site_info){.id = 42, .file = "/src/ex.c", .func = "f", .line = 42, .col = 5};
    info44 = (struct trace_site_info){.id = 44, .file = "/src/ex.c", .func = "g", .line = 44, .col = 5};
    for (int k = 0; k < 2; k++) {
        r[k] = analyse(k, SEARCH_ENGINE_STREAMING);
        give_sites(r[k]);
    }
    assert_int_equal(search_report_build(r, 2, 3, NULL, &rep), 0);
    uint32_t n = 0;
    for (uint32_t i = 0; i < rep->nhints; i++)
        n += rep->hints[i].kind == sends_id;
    assert_int_equal(n, 3);

    /* to rank 2: from both ranks, at rank 0's site */
    const struct search_hint *h = hint_at(rep, 42);
    assert_string_equal(search_kind_name(h->kind), "sends-per-peer");
    assert_string_equal(h->file, "/src/ex.c");
    assert_string_equal(h->func, "f");
    assert_int_equal(h->call, CHT_MPI_SEND);
    assert_int_equal(h->nranks, 2);
    assert_int_equal(h->ranks[0], 0);
    assert_int_equal(h->ranks[1], 1);
    assert_int_equal(h->instances, 3);
    assert_int_equal(h->bytes, 24);
    assert_int_equal(h->root, -1);
    assert_string_equal(h->message, "3 MPI_Send calls to one rank from line 42 (ranks 0-1)");
    char *m = search_hint_message(h, false);
    assert_string_equal(m, h->message);
    free(m);
    /* to rank 1 from rank 0, to rank 0 from rank 1 */
    h = hint_at(rep, 40);
    assert_int_equal(h->nranks, 1);
    assert_int_equal(h->ranks[0], 0);
    assert_int_equal(h->instances, 3);
    assert_string_equal(h->message, "3 MPI_Send calls to one rank from line 40 (rank 0)");
    h = hint_at(rep, 44);
    assert_int_equal(h->ranks[0], 1);
    assert_int_equal(h->bytes, 16);
    assert_string_equal(h->message, "2 MPI_Send calls to one rank from line 44 (rank 1)");

    /* the outputs of `commhint hints`: JSON, SARIF and text */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct search_format_opts fo = {.stable = true, .trace_dir = "/tmp/x.trace"};
    assert_int_equal(search_report_write(f, rep, SEARCH_FORMAT_JSON, &fo), 0);
    fclose(f);
    assert_non_null(strstr(buf, "{\"kind\":\"sends-per-peer\",\"call\":\"MPI_Send\",\"file\":\"/src/ex.c\","
                                "\"line\":42,"));
    assert_non_null(strstr(buf, "\"message\":\"3 MPI_Send calls to one rank from line 42 (ranks 0-1)\""));
    free(buf);
    f = open_memstream(&buf, &len);
    assert_int_equal(search_report_write(f, rep, SEARCH_FORMAT_SARIF, &fo), 0);
    fclose(f);
    assert_non_null(strstr(buf, "{\"id\":\"sends-per-peer\",\"name\":\"SendsPerPeer\""));
    assert_non_null(strstr(buf, "{\"ruleId\":\"sends-per-peer\",\"ruleIndex\":3,"));
    free(buf);
    f = open_memstream(&buf, &len);
    assert_int_equal(search_report_write(f, rep, SEARCH_FORMAT_TEXT, &fo), 0);
    fclose(f);
    assert_non_null(strstr(buf, "/src/ex.c:42:5: note: [sends-per-peer] 3 MPI_Send calls to one rank from line 42 "
                                "(ranks 0-1)\n"));
    free(buf);
    search_report_free(rep);

    /* only the kind: --kind=sends-per-peer */
    struct search_report_opts o = {.kinds = 1u << search_kind_from_name("sends-per-peer"), .rank = -1};
    assert_int_equal(search_report_build(r, 2, 3, &o, &rep), 0);
    assert_int_equal(rep->nhints, 3);
    for (uint32_t i = 0; i < rep->nhints; i++)
        assert_int_equal(rep->hints[i].kind, sends_id);
    search_report_free(rep);
    search_rank_result_free(r[0]);
    search_rank_result_free(r[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registered),
        cmocka_unit_test(test_register_refused),
        cmocka_unit_test(test_engines),
        cmocka_unit_test(test_pack),
        cmocka_unit_test(test_merge),
    };
    return cmocka_run_group_tests(tests, register_kind, NULL);
}
