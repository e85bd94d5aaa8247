/* test-parallel.c - unit tests of the packed form in which `commhint hints
 * --parallel` moves per-rank results between processes (search/parallel/pack.c and driver.c):
 * a round trip of a fabricated result that fills every field (overlaps
 * with statements and boxes, groups, checks, the MPI log and its clocks,
 * site infos), and the rejection of every truncated prefix, of trailing
 * bytes and of corrupted counts and values, without a crash (the suite also
 * runs under ASan).  The MPI side is covered by tests/e2e/parallel.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pack.h"
#include "parallel.h"

static struct trace_site_info info_a = {.id = 10, .file = "/src/a.c", .func = "f", .line = 12, .col = 3};
static struct trace_site_info info_b = {.id = 11, .file = "/src/a.c", .func = "g", .line = 40, .col = 5};

/* A box of depth d with distinct values. */
static struct search_box mk_box(uint32_t d, uint64_t seed)
{
    struct search_box b;
    memset(&b, 0, sizeof b);
    b.depth = d;
    for (uint32_t k = 0; k < d; k++) {
        b.dim[k].loop = 100 + k + (uint32_t)seed;
        b.dim[k].line = 20 + k;
        b.dim[k].lo = seed * 10 + k;
        b.dim[k].hi = seed * 10 + k + 7;
    }
    return b;
}

static void mk_boxes(struct search_boxes *x, uint32_t n, uint64_t seed)
{
    x->n = x->cap = n;
    x->more = seed * 3;
    x->box = n ? calloc(n, sizeof *x->box) : NULL;
    for (uint32_t i = 0; i < n; i++)
        x->box[i] = mk_box(i == 0 ? 0 : (i % SEARCH_BOX_DEPTH) + 1, seed + i);
}

static uint64_t *mk_u64s(uint32_t n, uint64_t base)
{
    uint64_t *p = calloc(n ? n : 1, sizeof *p);
    for (uint32_t i = 0; i < n; i++)
        p[i] = base + 3 * i;
    return p;
}

/* Every field set, most to distinct values; nrec log records. */
static struct search_rank_result *rich_result(uint32_t nrec)
{
    struct search_rank_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    r->rank = 5;
    r->events = 123456789012ull;
    r->comp_events = 120000000000ull;
    r->mpi_events = 3456789012ull;
    r->t_first = 1000;
    r->t_last = 0xfedcba9876543210ull;
    r->msg_latency_ns = 1234.5625;
    r->peak_bytes = 56u << 20;
    r->cut_short = true;

    r->noverlaps = 3;
    r->overlaps = calloc(3, sizeof *r->overlaps);
    for (uint32_t i = 0; i < 3; i++) {
        struct search_overlap *o = &r->overlaps[i];
        o->site = 10 + i;
        o->call = (uint16_t)(7 + i);
        o->role = (uint8_t)(1 + i);
        o->instances = 1000 + i;
        o->with_window = 900 + i;
        o->truncated = i;
        o->comm_ns = 5000000 + i;
        o->comp_ns = 4000000 + i;
        o->saving_ns = 3000000 + i;
        o->info = i == 1 ? NULL : &info_a;
        o->over_site = CHT_NONE;
        if (i == 2) { /* a needs-buffer variant */
            o->needs_buffer = true;
            o->over_site = 300;
            o->over_info = &info_b;
        }
        mk_boxes(&o->iters, i == 2 ? 0 : 4, 7 + i);
        o->nstmts = i;
        o->stmts = i ? calloc(i, sizeof *o->stmts) : NULL;
        for (uint32_t j = 0; j < i; j++) {
            struct search_stmt *s = &o->stmts[j];
            s->site = 200 + j;
            s->flags = SEARCH_STMT_BEFORE | (j ? SEARCH_STMT_AFTER : 0);
            s->site_flags = 0x40 + j;
            s->events = 77 + j;
            s->total = 99 + j;
            s->time_ns = 555 + j;
            s->info = j ? &info_b : NULL;
            mk_boxes(&s->iters, SEARCH_DEFAULT_MAX_BOXES, 30 + j);
        }
        o->nleads = 2 - i;
        o->leads = o->nleads ? calloc(o->nleads, sizeof *o->leads) : NULL;
        for (uint32_t j = 0; j < o->nleads; j++)
            o->leads[j] = (struct search_lead){.index = 40 + 3 * j, .span_ns = 123456 + j, .after_ns = 777 + j, .fw_end = 41 + 3 * j, .pos = 5 + j, .t_enter = 900 + j, .t_exit = 950 + j, .fw_exit = 990 + j};
    }

    r->ngroups = 2;
    r->groups = calloc(2, sizeof *r->groups);
    for (uint32_t i = 0; i < 2; i++) {
        struct search_group *g = &r->groups[i];
        g->comm = 0x1234567890ull + i;
        g->peer = i ? -7 : 3;
        g->nsites = 3 + i;
        g->sites = calloc(g->nsites, sizeof *g->sites);
        g->info = calloc(g->nsites, sizeof *g->info);
        for (uint32_t j = 0; j < g->nsites; j++) {
            g->sites[j] = 40 + 2 * j;
            g->info[j] = j == 1 ? NULL : &info_b;
        }
        g->groups = 50 + i;
        g->members = 150 + i;
        g->bytes = 1u << 20;
        g->send_ns = 999999 + i;
        g->min_size = 2;
        g->max_size = 3 + i;
        g->needs_buffer = i == 1;
        g->buf_site = i ? 42 : CHT_NONE;
        g->over_site = i ? 77 : CHT_NONE;
        g->buf_info = i ? &info_b : NULL;
    }

    r->nchecks = 2;
    r->checks = calloc(2, sizeof *r->checks);
    r->checks[0] = (struct search_group_check){
        .group = 1, .nmembers = 3, .members = mk_u64s(3, 17), .ncross = 2, .cross = mk_u64s(2, 18)};
    r->checks[1] = (struct search_group_check){
        .group = 0, .nmembers = 2, .members = mk_u64s(2, 1000), .ncross = 0, .cross = mk_u64s(0, 0)};

    r->log.rank = 5;
    r->log.cut_short = true;
    r->log.clock[0] = (struct dg_clock){.mono_ns = 11, .real_ns = 1700000000000000000ull, .valid = true};
    r->log.clock[1] = (struct dg_clock){.mono_ns = 99, .real_ns = 0, .valid = false};
    r->log.n = r->log.cap = nrec;
    r->log.rec = calloc(nrec ? nrec : 1, sizeof *r->log.rec);
    if (nrec % 2) /* CPU times in logs of an odd number of records */
        r->log.cpu = calloc(nrec, sizeof *r->log.cpu);
    for (uint32_t i = 0; i < nrec; i++) {
        struct dg_msgrec *m = &r->log.rec[i];
        uint64_t s = (uint64_t)i * 97;
        m->index = s + 1;
        m->site = (uint32_t)(s + 2);
        m->call = (uint16_t)(s + 3);
        m->kind = (uint8_t)(1 + i % 4);
        m->role = (uint8_t)(i % 11);
        m->flags = (uint32_t)(i % 32) & ~(uint32_t)DG_MSGF_FORWARD;
        if (i > 0 && i % 5 == 0) {
            m->flags |= DG_MSGF_FORWARD;
            m->fwd_pos = i - 1;
        }
        m->peer = (int32_t)(i % 3) - 1;
        m->tag = -(int32_t)i;
        m->comm = s + 4;
        m->seq = s + 5;
        m->comm_size = 8;
        m->use_site = 0xabcd;
        m->t_enter = s + 6;
        m->t_exit = s + 7;
        m->buf = 0x7fff00000000ull + s;
        m->bytes = s + 8;
        m->rbuf = 0x7ffe00000000ull + s;
        m->rbytes = s + 9;
        m->version = s + 10;
        m->mpi_op = (uint8_t)(i % 15);
        m->dtype = (uint8_t)(0xa0 + i % 7);
        if (r->log.cpu && i % 4)
            r->log.cpu[i] = (struct dg_cputime){s + 17, s + 18};
        if (i % 3 == 1) { /* every third record has a consumer */
            m->flags |= DG_MSGF_CONSUMED;
            struct dg_consumer c = {.index = s + 11, .addr = s + 15, .len = s + 16, .pos = i,
                                    .site = (uint32_t)(s + 12), .flags = (uint32_t)(s + 14),
                                    .op = (uint8_t)(s + 13), .kind = (uint8_t)(1 + i % 2)};
            assert_int_equal(dg_mpilog_set_consumer(&r->log, &c), 0);
        }
    }

    r->nsiteinfo = 4;
    r->siteinfo = calloc(4, sizeof *r->siteinfo);
    for (uint32_t i = 0; i < 4; i++) {
        r->siteinfo[i].site = 10 + i;
        r->siteinfo[i].info = i == 2 ? NULL : &info_a;
    }
    return r;
}

#define EQ(field) assert_true((a->field) == (b->field))

static void assert_boxes_same(const struct search_boxes *a, const struct search_boxes *b)
{
    EQ(n);
    EQ(more);
    for (uint32_t i = 0; i < a->n; i++) {
        EQ(box[i].depth);
        for (uint32_t k = 0; k < a->box[i].depth; k++) {
            EQ(box[i].dim[k].loop);
            EQ(box[i].dim[k].line);
            EQ(box[i].dim[k].lo);
            EQ(box[i].dim[k].hi);
        }
    }
}

static void assert_msgrec_same(const struct dg_msgrec *a, const struct dg_msgrec *b)
{
    EQ(index);
    EQ(site);
    EQ(call);
    EQ(kind);
    EQ(role);
    EQ(flags);
    EQ(peer);
    EQ(tag);
    EQ(comm);
    EQ(seq);
    EQ(comm_size);
    EQ(use_site);
    EQ(t_enter);
    EQ(t_exit);
    EQ(buf);
    EQ(bytes);
    EQ(rbuf);
    EQ(rbytes);
    EQ(version);
    EQ(fwd_pos);
    EQ(mpi_op);
    EQ(dtype);
}

static void assert_consumer_same(const struct dg_consumer *a, const struct dg_consumer *b)
{
    EQ(index);
    EQ(addr);
    EQ(len);
    EQ(pos);
    EQ(site);
    EQ(flags);
    EQ(op);
    EQ(kind);
}

/* a is the original, b the unpacked copy: infos of b are non-NULL
 * (placeholders) exactly where a's are. */
static void assert_same(const struct search_rank_result *a, const struct search_rank_result *b)
{
    char why[256];
    assert_true(search_rank_result_equal(a, b, why, sizeof why));
    /* what search_rank_result_equal leaves out */
    EQ(peak_bytes);
    EQ(cut_short);
    assert_memory_equal(&a->msg_latency_ns, &b->msg_latency_ns, sizeof(double));
    for (uint32_t i = 0; i < a->noverlaps; i++) {
        EQ(overlaps[i].info == NULL);
        EQ(overlaps[i].over_info == NULL);
        assert_boxes_same(&a->overlaps[i].iters, &b->overlaps[i].iters);
        for (uint32_t j = 0; j < a->overlaps[i].nstmts; j++) {
            EQ(overlaps[i].stmts[j].info == NULL);
            assert_boxes_same(&a->overlaps[i].stmts[j].iters, &b->overlaps[i].stmts[j].iters);
        }
    }
    for (uint32_t i = 0; i < a->ngroups; i++) {
        assert_non_null(b->groups[i].info);
        for (uint32_t j = 0; j < a->groups[i].nsites; j++)
            EQ(groups[i].info[j] == NULL);
    }
    EQ(nchecks);
    for (uint32_t i = 0; i < a->nchecks; i++) {
        EQ(checks[i].group);
        EQ(checks[i].nmembers);
        EQ(checks[i].ncross);
        for (uint32_t j = 0; j < a->checks[i].nmembers; j++)
            EQ(checks[i].members[j]);
        for (uint32_t j = 0; j < a->checks[i].ncross; j++)
            EQ(checks[i].cross[j]);
    }
    EQ(log.rank);
    EQ(log.n);
    EQ(log.cut_short);
    for (int k = 0; k < 2; k++) {
        EQ(log.clock[k].mono_ns);
        EQ(log.clock[k].real_ns);
        EQ(log.clock[k].valid);
    }
    for (uint32_t i = 0; i < a->log.n; i++)
        assert_msgrec_same(&a->log.rec[i], &b->log.rec[i]);
    EQ(log.cpu == NULL);
    for (uint32_t i = 0; a->log.cpu && i < a->log.n; i++) {
        EQ(log.cpu[i].enter);
        EQ(log.cpu[i].exit);
    }
    EQ(log.ncons);
    for (uint32_t i = 0; i < a->log.ncons; i++)
        assert_consumer_same(&a->log.cons[i], &b->log.cons[i]);
    if (a->log.n > 4) /* found by position */
        assert_int_equal(dg_consumer_of(&b->log, 4)->site, 4 * 97 + 12);
    EQ(nsiteinfo);
    for (uint32_t i = 0; i < a->nsiteinfo; i++) {
        EQ(siteinfo[i].site);
        EQ(siteinfo[i].info == NULL);
    }
}
#undef EQ

static void test_round_trip(void **state)
{
    (void)state;
    struct search_rank_result *r = rich_result(23), *u = NULL;
    void *buf;
    size_t len;
    struct trace_err err;

    assert_int_equal(search_rank_result_pack(r, &buf, &len), 0);
    if (search_rank_result_unpack(buf, len, &u, &err) != 0)
        fail_msg("%s", err.msg);
    assert_same(r, u);
    /* placeholders are harmless to print */
    assert_string_equal(u->overlaps[0].info->file, "");
    assert_null(u->overlaps[1].info);

    /* packing the copy gives the same bytes */
    void *buf2;
    size_t len2;
    assert_int_equal(search_rank_result_pack(u, &buf2, &len2), 0);
    assert_int_equal(len2, len);
    assert_memory_equal(buf, buf2, len);
    free(buf2);
    free(buf);
    search_rank_result_free(u);
    search_rank_result_free(r);
}

static void test_empty_result(void **state)
{
    (void)state;
    struct search_rank_result r, *u = NULL;
    void *buf;
    size_t len;
    memset(&r, 0, sizeof r);
    r.rank = 0;
    assert_int_equal(search_rank_result_pack(&r, &buf, &len), 0);
    assert_int_equal(search_rank_result_unpack(buf, len, &u, NULL), 0);
    assert_same(&r, u);
    assert_int_equal(u->noverlaps + u->ngroups + u->nchecks + u->log.n + u->nsiteinfo, 0);
    free(buf);
    search_rank_result_free(u);
}

/* A result sent without records (process 0 asks the log's holder
 * instead): the same result with the log's header (rank, clocks, host)
 * and no record, CPU time or consumer. */
static void test_bundle_without_records(void **state)
{
    (void)state;
    struct search_rank_result *r = rich_result(41), *whole = NULL, *u = NULL;
    assert_true(r->log.n == 41 && r->log.cpu && r->log.ncons);
    r->log.host = (struct dg_host){.cpus = 2, .node_ranks = 4, .host_id = 77};
    struct pk_buf b = {0};
    search_bundle_begin(&b);
    search_bundle_add_result(&b, r->rank, r, false);
    search_bundle_set_items(&b, 1);
    assert_false(b.nomem);
    /* the bundle's header (16 bytes), the item's kind, rank and length */
    uint64_t n;
    memcpy(&n, b.p + 24, sizeof n);
    assert_int_equal(32 + n, b.len);
    assert_int_equal(search_rank_result_unpack(b.p + 32, (size_t)n, &u, NULL), 0);
    void *buf;
    size_t len;
    assert_int_equal(search_rank_result_pack(r, &buf, &len), 0);
    assert_true(n < len);
    assert_int_equal(search_rank_result_unpack(buf, len, &whole, NULL), 0);
    free(whole->log.rec);
    free(whole->log.cpu);
    free(whole->log.cons);
    whole->log.rec = NULL;
    whole->log.cpu = NULL;
    whole->log.cons = NULL;
    whole->log.n = whole->log.cap = whole->log.ncons = whole->log.capcons = 0;
    assert_same(whole, u);
    assert_int_equal(u->log.host.cpus, 2);
    assert_int_equal(u->log.host.node_ranks, 4);
    assert_int_equal(u->log.host.host_id, 77);
    free(buf);
    free(b.p);
    search_rank_result_free(whole);
    search_rank_result_free(u);
    search_rank_result_free(r);
}

/* A large log: the packer's buffer grows, the count checks hold. */
static void test_large_log(void **state)
{
    (void)state;
    struct search_rank_result *r = rich_result(200000), *u = NULL;
    void *buf;
    size_t len;
    assert_int_equal(search_rank_result_pack(r, &buf, &len), 0);
    assert_true(len > 200000u * 100);
    assert_int_equal(search_rank_result_unpack(buf, len, &u, NULL), 0);
    assert_same(r, u);
    free(buf);
    search_rank_result_free(u);
    search_rank_result_free(r);
}

/* Every prefix is rejected cleanly, and so are trailing bytes. */
static void test_truncated(void **state)
{
    (void)state;
    struct search_rank_result *r = rich_result(7), *u;
    void *buf;
    size_t len;
    struct trace_err err;
    assert_int_equal(search_rank_result_pack(r, &buf, &len), 0);
    for (size_t n = 0; n < len; n++) {
        /* a copy of exactly n bytes, so ASan sees any read past them */
        uint8_t *p = malloc(n ? n : 1);
        memcpy(p, buf, n);
        u = (void *)1;
        err.msg[0] = '\0';
        int rc = search_rank_result_unpack(p, n, &u, &err);
        if (rc != TRACE_ERR_FORMAT)
            fail_msg("prefix of %zu of %zu bytes: status %d", n, len, rc);
        assert_null(u);
        assert_true(strstr(err.msg, "cannot unpack a rank result") != NULL);
        /* and with the header's length made to agree, so that the reader
         * runs into the end somewhere inside the fields */
        if (n >= 16) {
            for (int i = 0; i < 8; i++)
                p[8 + i] = (uint8_t)((uint64_t)n >> (8 * i));
            u = (void *)1;
            rc = search_rank_result_unpack(p, n, &u, &err);
            if (rc != TRACE_ERR_FORMAT)
                fail_msg("prefix of %zu of %zu bytes with its length: status %d", n, len, rc);
            assert_null(u);
        }
        free(p);
    }
    uint8_t *p = malloc(len + 1);
    memcpy(p, buf, len);
    p[len] = 0;
    assert_int_equal(search_rank_result_unpack(p, len + 1, &u, &err), TRACE_ERR_FORMAT);
    assert_null(u);
    /* the header's length agrees with the buffer's: fix it up, then the
     * trailing byte itself is found */
    uint64_t total = len + 1;
    for (int i = 0; i < 8; i++)
        p[8 + i] = (uint8_t)(total >> (8 * i));
    assert_int_equal(search_rank_result_unpack(p, len + 1, &u, &err), TRACE_ERR_FORMAT);
    assert_true(strstr(err.msg, "bytes left") != NULL);
    free(p);
    free(buf);
    search_rank_result_free(r);
}

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Offsets of the fixed layout (search/parallel/pack.c): header 16, rank 4,
 * cut_short 1, unknown_producers, 5 u64, 1 f64 and peak_bytes, then the
 * overlap count. */
#define OFF_RANK 16
#define OFF_NOVERLAPS (16 + 4 + 1 + 8 * 8)

static int unpack_copy(const uint8_t *buf, size_t len, struct trace_err *err)
{
    struct search_rank_result *u = NULL;
    uint8_t *p = malloc(len);
    memcpy(p, buf, len);
    int rc = search_rank_result_unpack(p, len, &u, err);
    free(p);
    search_rank_result_free(u);
    return rc;
}

static void test_corrupted(void **state)
{
    (void)state;
    struct search_rank_result *r = rich_result(7);
    uint8_t *buf, *p;
    size_t len;
    struct trace_err err;
    assert_int_equal(search_rank_result_pack(r, (void **)&buf, &len), 0);
    p = malloc(len);

    /* bad magic */
    memcpy(p, buf, len);
    p[0] ^= 0xff;
    assert_int_equal(unpack_copy(p, len, &err), TRACE_ERR_FORMAT);
    assert_true(strstr(err.msg, "magic") != NULL);
    /* another version */
    memcpy(p, buf, len);
    p[4] = 99;
    assert_int_equal(unpack_copy(p, len, &err), TRACE_ERR_VERSION);
    /* a huge overlap count: refused before any allocation */
    memcpy(p, buf, len);
    assert_int_equal(get_u32(p + OFF_NOVERLAPS), r->noverlaps);
    put_u32(p + OFF_NOVERLAPS, 0xffffffffu);
    assert_int_equal(unpack_copy(p, len, &err), TRACE_ERR_FORMAT);
    assert_true(strstr(err.msg, "count") != NULL);
    /* a negative rank */
    memcpy(p, buf, len);
    put_u32(p + OFF_RANK, 0x80000000u);
    assert_int_equal(unpack_copy(p, len, &err), TRACE_ERR_FORMAT);
    /* a rank that differs from the log's */
    memcpy(p, buf, len);
    put_u32(p + OFF_RANK, 6);
    assert_int_equal(unpack_copy(p, len, &err), TRACE_ERR_FORMAT);
    assert_true(strstr(err.msg, "another rank") != NULL);
    /* a flag byte other than 0 or 1 (cut_short) */
    memcpy(p, buf, len);
    p[OFF_RANK + 4] = 2;
    assert_int_equal(unpack_copy(p, len, &err), TRACE_ERR_FORMAT);
    /* the first box of the first overlap deeper than SEARCH_BOX_DEPTH:
     * overlap = site 4, call 2, role 1, flag 1, needs_buffer 1, over_site
     * 4 (no over flag: not a variant), 4 x u64, dep_loops u32, 3 x u64,
     * recv_bufs_apart 1, args_differ 1, 4 x u64, then boxes n 4, more 8,
     * then the first box's depth */
    memcpy(p, buf, len);
    size_t depth_off = OFF_NOVERLAPS + 4 + 4 + 2 + 1 + 1 + 1 + 4 + 88 + 2 + 4 + 4 + 8;
    assert_int_equal(get_u32(p + depth_off), 0);
    put_u32(p + depth_off, SEARCH_BOX_DEPTH + 1);
    assert_int_equal(unpack_copy(p, len, &err), TRACE_ERR_FORMAT);

    /* any single byte changed: never a crash, a leak or a read out of
     * bounds, whether the result is accepted or not */
    for (size_t i = 0; i < len; i++) {
        for (int bit = 0; bit < 8; bit += 3) {
            memcpy(p, buf, len);
            p[i] ^= (uint8_t)(1u << bit);
            (void)unpack_copy(p, len, &err);
        }
        memcpy(p, buf, len);
        p[i] = 0xff;
        (void)unpack_copy(p, len, &err);
    }
    free(p);
    free(buf);
    search_rank_result_free(r);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    struct search_rank_result *u = (void *)1;
    void *buf = (void *)1;
    size_t len = 1;
    assert_int_equal(search_rank_result_unpack(NULL, 5, &u, NULL), TRACE_ERR_ARG);
    assert_null(u);
    assert_int_equal(search_rank_result_unpack(NULL, 0, &u, NULL), TRACE_ERR_FORMAT);
    assert_int_equal(search_rank_result_pack(NULL, &buf, &len), TRACE_ERR_ARG);
    assert_null(buf);
    assert_int_equal(len, 0);
    /* without search_parallel_begin: agree is the identity, run refuses */
    bool root_ok = false;
    assert_true(search_parallel_agree(true, &root_ok));
    assert_true(root_ok);
    assert_false(search_parallel_agree(false, NULL));
    struct search_rank_result **res = (void *)1;
    int n = 5;
    struct trace_err err;
    assert_int_equal(search_run_parallel(NULL, NULL, NULL, NULL, &res, &n, NULL, NULL, &err), TRACE_ERR_ARG);
    assert_null(res);
    assert_int_equal(n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip), cmocka_unit_test(test_empty_result),
        cmocka_unit_test(test_large_log),  cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_bundle_without_records),
        cmocka_unit_test(test_corrupted),  cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
