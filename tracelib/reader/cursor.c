/* cursor.c - decoded events of one rank: computation events with their
 * address ranges, MPI calls with their follower records, loop structure
 * folded into per-thread iteration vectors, plus the bookkeeping records
 * (modules, translation units, clock, lost, end) that only update state.
 * CHT_REC_REPEAT and CHT_REC_REPEAT_COL records are expanded here, from a
 * per-thread history of the last COMP/LOOP records, into the records they
 * stand for, or handed over as runs (run.c); CHT_REC_PACK records are decoded here (pack.c) into theirs.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader-private.h"

#include "cursor-state.h"

static int cursor_fail(struct trace_cursor *c, int status)
{
    c->status = status;
    snprintf(c->msg, sizeof(c->msg), "%s", trace_stream_error(c->s));
    return status;
}

int trace_cursor_open(struct trace *t, int rank, unsigned flags, struct trace_cursor **out,
                      struct trace_err *err)
{
    struct trace_cursor *c = NULL;
    const struct cht_file_header *h;
    const char *path;
    int ret;

    if (!t || !out || rank < 0) {
        rd_err(err, "bad argument to trace_cursor_open: rank=%d", rank);
        return TRACE_ERR_ARG;
    }
    *out = NULL;
    path = trace_rank_path(t, rank);
    c = calloc(1, sizeof(*c));
    if (!path || !c) {
        rd_err(err, "out of memory: dir=%s rank=%d", trace_dir(t), rank);
        ret = TRACE_ERR_NOMEM;
        goto fail;
    }
    c->t = t;
    c->rank = rank;
    c->flags = flags;
    c->r = rd_rank_state(t, rank);
    if (!c->r) {
        rd_err(err, "out of memory: dir=%s rank=%d", trace_dir(t), rank);
        ret = TRACE_ERR_NOMEM;
        goto fail;
    }
    ret = trace_stream_open(path, &c->s, err);
    if (ret == TRACE_ERR_NOT_FOUND) {
        rd_err(err, "no stream file for this rank: file=%s rank=%d", path, rank);
        goto fail;
    }
    if (ret)
        goto fail;
    h = trace_stream_header(c->s);
    if (trace_stream_cut_short(c->s)) {
        /* ends inside its file header: nothing recorded, nothing to check */
    } else if (memcmp(h->magic, CHT_MAGIC_RANK, 8) != 0) {
        ret = TRACE_ERR_FORMAT;
        rd_err(err, "not a rank stream: file=%s offset=0 reason=magic is not %s", path,
               CHT_MAGIC_RANK);
        goto fail;
    } else if (h->run_id && trace_run_id(t) && h->run_id != trace_run_id(t)) {
        ret = TRACE_ERR_MISMATCH;
        rd_err(err, "stream belongs to another run: file=%s offset=24 run_id=0x%016" PRIx64
               " meta run_id=0x%016" PRIx64, path, h->run_id, trace_run_id(t));
        goto fail;
    } else if (h->world_size > 0 && trace_world_size(t) > 0 && h->world_size != trace_world_size(t)) {
        ret = TRACE_ERR_MISMATCH;
        rd_err(err, "stream was written by a run of another size: file=%s offset=36 world_size=%d"
               " meta world_size=%d", path, h->world_size, trace_world_size(t));
        goto fail;
    } else if (h->rank != rank) {
        ret = TRACE_ERR_MISMATCH;
        rd_err(err, "stream was written by another rank: file=%s offset=32 rank=%d expected=%d",
               path, h->rank, rank);
        goto fail;
    }
    c->st.exit_status = -1;
    *out = c;
    return 0;
fail:
    trace_cursor_close(c);
    return ret;
}

void trace_cursor_close(struct trace_cursor *c)
{
    size_t i;

    if (!c)
        return;
    trace_stream_close(c->s);
    for (i = 0; i < c->nthreads; i++) {
        free(c->threads[i].stack);
        free(c->threads[i].hist);
        rd_pack_table_free(&c->threads[i].pack);
    }
    free(c->threads);
    rd_modules_free(&c->mods);
    free(c->ranges);
    free(c->complete);
    free(c->run_iters);
    free(c->rep_col);
    rd_pack_free(&c->pack);
    free(c->run_diter);
    free(c->run_sim);
    free(c->run_from);
    free(c->run_dend);
    free(c->run_col);
    free(c->rr_tab.trips);
    free(c->rr_tab.at);
    free(c->rr_tab.itb);
    for (size_t i = 0; i < RD_ROWS_ADDRS; i++)
        free(c->rr_tab.slot[i]);
    free(c->rr_model);
    free(c->rr_row_diter);
    free(c);
}

const char *trace_cursor_error(const struct trace_cursor *c)
{
    return c->msg;
}

bool trace_cursor_cut_short(const struct trace_cursor *c)
{
    return c->cut_short;
}

int trace_cursor_site_producers(const struct trace_cursor *c, uint32_t site, const uint32_t **ids,
                                uint32_t *n)
{
    return rd_rank_producers(c->r, site, ids, n);
}

const struct trace_site_info *trace_cursor_site(const struct trace_cursor *c, uint32_t id)
{
    return rd_rank_site(c->r, id);
}

const struct trace_loop_info *trace_cursor_loop(const struct trace_cursor *c, uint32_t id)
{
    return rd_rank_loop(c->r, id);
}

void trace_cursor_stats(const struct trace_cursor *c, struct trace_cursor_stats *out)
{
    *out = c->st;
    out->bytes_stored = trace_stream_bytes_read(c->s);
    out->bytes_raw = c->s->bytes_raw;
    out->chunks = c->s->next_seq;
}

/* The loop stack of a writer thread, created on first sight. */
static struct rd_thread *thread_state(struct trace_cursor *c, uint32_t thread)
{
    struct rd_thread *th;
    size_t i;

    if (c->last_thread < c->nthreads && c->threads[c->last_thread].thread == thread)
        return &c->threads[c->last_thread];
    for (i = 0; i < c->nthreads; i++)
        if (c->threads[i].thread == thread) {
            c->last_thread = i;
            return &c->threads[i];
        }
    if (c->nthreads == c->threads_cap) {
        size_t n = c->threads_cap ? 2 * c->threads_cap : 4;
        struct rd_thread *p = realloc(c->threads, n * sizeof(*p));
        if (!p)
            return NULL;
        c->threads = p;
        c->threads_cap = n;
    }
    th = &c->threads[c->nthreads];
    th->thread = thread;
    th->depth = 0;
    th->nhist = 0;
    th->head = 0;
    memset(&th->pack, 0, sizeof(th->pack));
    th->stack = calloc(RD_MAX_LOOP_DEPTH, sizeof(*th->stack));
    th->hist = calloc(CHT_REPEAT_PERIOD_MAX, sizeof(*th->hist));
    if (!th->stack || !th->hist) {
        free(th->stack);
        free(th->hist);
        return NULL;
    }
    c->last_thread = c->nthreads++;
    c->st.threads = (uint32_t)c->nthreads;
    return th;
}

static int want_ranges(struct trace_cursor *c, size_t n)
{
    struct trace_range *p;
    size_t cap;

    if (n <= c->ranges_cap)
        return 0;
    cap = c->ranges_cap ? c->ranges_cap : 16;
    while (cap < n)
        cap *= 2;
    p = realloc(c->ranges, cap * sizeof(*p));
    if (!p)
        return -1;
    c->ranges = p;
    c->ranges_cap = cap;
    return 0;
}

static int rec_error(struct trace_cursor *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int rec_error(struct trace_cursor *c, const char *fmt, ...)
{
    char reason[300];
    va_list ap;

    va_start(ap, fmt);
    rd_verr(reason, sizeof(reason), fmt, ap);
    va_end(ap);
    rd_stream_rec_error(c->s, rd_stream_record_offset(c->s), "%s", reason);
    return cursor_fail(c, TRACE_ERR_FORMAT);
}

static int nomem(struct trace_cursor *c)
{
    c->status = TRACE_ERR_NOMEM;
    snprintf(c->msg, sizeof(c->msg), "out of memory: file=%s offset=%" PRIu64,
             trace_stream_path(c->s), trace_stream_chunk_offset(c->s));
    return c->status;
}

static void begin_event(struct trace_cursor *c, int kind, struct rd_thread *th, uint32_t site)
{
    struct trace_event *ev = &c->ev;

    /* after a COMP event, a COMP event sets the only fields set: no memset */
    if (kind != TRACE_EV_COMP || !c->ev_comp_only) {
        memset(ev, 0, sizeof(*ev));
        c->ev_comp_only = kind == TRACE_EV_COMP;
    }
    ev->kind = kind;
    ev->rank = c->rank;
    ev->thread = th->thread;
    ev->index = c->index;
    ev->site = site;
    ev->site_info = rd_rank_site(c->r, site);
    ev->depth = th->depth;
    ev->iters = th->stack;
}

static int decode_comp(struct trace_cursor *c, struct rd_thread *th, const struct cht_rec *rec)
{
    const struct cht_rec_comp *r = (const void *)rec;
    const uint64_t *addr = (const uint64_t *)(r + 1);
    const struct trace_site_info *si;
    uint32_t i, n = rec->aux;

    begin_event(c, TRACE_EV_COMP, th, r->site);
    c->ev.stamp = r->reserved;
    si = c->ev.site_info;
    if (si && si->naccess != n)
        return rec_error(c, "comp record of site=%u has %u addresses but the site has "
                         "naccess=%u", r->site, n, si->naccess);
    if (want_ranges(c, n) < 0)
        return nomem(c);
    for (i = 0; i < n; i++) {
        c->ranges[i].addr = addr[i];
        /* an atomic read-modify-write (both bits) is reported as a write */
        c->ranges[i].len = si ? si->access[i].size : 0;
        c->ranges[i].write = si ? (si->access[i].flags & CHT_ACCESS_WRITE) != 0 : false;
    }
    c->ev.nranges = n;
    c->ev.ranges = c->ranges;
    return 1;
}

static int decode_ranges(struct trace_cursor *c, struct rd_thread *th,
                         const struct cht_rec *rec)
{
    const struct cht_rec_ranges *r = (const void *)rec;
    const struct cht_range *in = (const struct cht_range *)(r + 1);
    uint32_t i, n = rec->aux;

    begin_event(c, TRACE_EV_COMP, th, r->site);
    c->ev.stamp = r->reserved;
    if (want_ranges(c, n) < 0)
        return nomem(c);
    for (i = 0; i < n; i++) {
        c->ranges[i].addr = in[i].addr;
        c->ranges[i].len = in[i].len & CHT_RANGE_LEN_MASK;
        c->ranges[i].write = (in[i].len & CHT_RANGE_WRITE) != 0;
    }
    c->ev.nranges = n;
    c->ev.ranges = c->ranges;
    return 1;
}

static int decode_mpi(struct trace_cursor *c, struct rd_thread *th, const struct cht_rec *rec)
{
    const struct cht_rec_mpi *m = (const void *)rec;
    const struct cht_rec *f;
    size_t ncomplete = 0;
    unsigned i;

    begin_event(c, TRACE_EV_MPI, th, m->site);
    c->ev.mpi = m;
    {
        int known = rd_rank_producers(c->r, m->site, &c->ev.producers, &c->ev.nproducers);
        if (known < 0)
            return nomem(c);
        c->ev.producers_known = known > 0;
    }
    for (i = 0; (f = trace_stream_peek(c->s, i)); i++) {
        if (f->type == CHT_REC_COMPLETE) {
            if (ncomplete == c->complete_cap) {
                size_t n = c->complete_cap ? 2 * c->complete_cap : 16;
                const struct cht_rec_complete **p = realloc(c->complete, n * sizeof(*p));
                if (!p)
                    return nomem(c);
                c->complete = p;
                c->complete_cap = n;
            }
            c->complete[ncomplete++] = (const void *)f;
        } else if (f->type == CHT_REC_BLOCKS && f->aux <= 1) {
            c->ev.blocks[f->aux] = (const void *)f;
        } else if (f->type == CHT_REC_COMM) {
            c->ev.newcomm = (const void *)f;
        } else if (f->type == CHT_REC_CALLNAME) {
            c->ev.call_name = (const char *)f + sizeof(struct cht_rec_callname);
        } else if (f->type == CHT_REC_PATH) {
            if (f->aux > CHT_PATH_MAX || f->size != sizeof(struct cht_rec_path) + 8u * f->aux)
                return rec_error(c, "path record with %u frames in %u bytes (at most %u frames)",
                                 f->aux, f->size, CHT_PATH_MAX);
            c->ev.npath = f->aux;
            c->ev.path = (const uint64_t *)((const char *)f + sizeof(struct cht_rec_path));
        } else if (f->type == CHT_REC_CPU) {
            const struct cht_rec_cpu *u = (const void *)f;
            if (u->cpu_exit >= u->cpu_enter) {
                c->ev.cpu_enter = u->cpu_enter;
                c->ev.cpu_exit = u->cpu_exit;
            }
        } else if (f->type == CHT_REC_ARGS) {
            const struct cht_rec_args *a = (const void *)f;
            const struct cht_range *rg = (const void *)(a + 1);
            int h = a->held ? 1 : 0;
            if (a->h.aux > RD_MAX_ARGS)
                return rec_error(c, "args record with %u ranges (at most %u)", a->h.aux,
                                 RD_MAX_ARGS);
            for (uint32_t k = 0; k < a->h.aux; k++)
                c->args[h][k] = (struct trace_range){rg[k].addr, rg[k].len & CHT_RANGE_LEN_MASK,
                                                     (rg[k].len & CHT_RANGE_WRITE) != 0};
            if (h) {
                c->ev.nheld = a->h.aux;
                c->ev.held = c->args[1];
            } else {
                c->ev.nargs = a->h.aux;
                c->ev.args = c->args[0];
            }
        } else {
            break;
        }
    }
    if ((c->flags & TRACE_CURSOR_CONTEXTS) && c->ev.site_info) {
        int rc;
        const struct trace_site_info *x = rd_ctx_of(c, c->r, rd_trace_call_depth(c->t), m->site,
                                                     m->ret_addr, c->ev.path, c->ev.npath, &rc);
        if (rc < 0)
            return nomem(c);
        if (x) {
            c->ev.site = x->id;
            c->ev.site_info = x;
        }
    }
    trace_stream_skip(c->s, i);
    c->st.records += i;
    c->ev.ncomplete = (uint32_t)ncomplete;
    c->ev.complete = c->complete;
    if (!c->st.t_first)
        c->st.t_first = m->t_enter;
    if (m->t_exit > c->st.t_last)
        c->st.t_last = m->t_exit;
    return 1;
}

static int apply_loop(struct trace_cursor *c, struct rd_thread *th, const struct cht_rec *rec)
{
    int ret = rd_loop_op(th->stack, &th->depth, rec);

    if (ret == -1)
        return rec_error(c, "loop nesting deeper than %d in thread=%u", RD_MAX_LOOP_DEPTH,
                         th->thread);
    if (ret == -2)
        return rec_error(c, "loop record has kind aux=%u", rec->aux);
    return 0;
}

static int add_module(struct trace_cursor *c, const struct cht_rec *rec)
{
    return rd_modules_add(&c->mods, (const struct cht_rec_module *)rec) < 0 ? nomem(c) : 0;
}

/* ---- runs: the history and CHT_REC_REPEAT ------------------------------- */

/* Updates the history with a record of the thread (REPEAT records aside). */
static void hist_note(struct rd_thread *th, const struct cht_rec *rec)
{
    struct rd_hent *e;
    uint32_t n;

    if (rec->type == CHT_REC_COMP && rec->aux > CHT_REPEAT_MAX_ADDRS) {
        th->nhist = 0;
        return;
    }
    if (rec->type != CHT_REC_COMP && rec->type != CHT_REC_LOOP)
        return;
    n = rec->type == CHT_REC_COMP ? rec->aux : 0;
    e = &th->hist[th->head];
    memcpy(e->w, rec, 16 + 8 * (size_t)n); /* the stream checked the size */
    ((struct cht_rec *)e->w)->size = (uint32_t)(16 + 8 * n);
    hist_advance(th);
}

/* Irregular addresses (CHT_REPEAT_IRREGULAR strides) of position j. */
static uint32_t rep_irregular(const struct trace_cursor *c, const struct rd_thread *th, uint32_t j)
{
    uint32_t n = hent_naddr(hist_ent((struct rd_thread *)th, c->rep_period - j)), m = 0;
    for (uint32_t k = 0; k < n; k++)
        m += c->rep_stride[c->rep_off[j] + k] == CHT_REPEAT_IRREGULAR;
    return m;
}

/* Checks a REPEAT or REPEAT_COL record against the thread's history and
 * starts expanding it; 0 or a format error. */
static __attribute__((noinline)) int repeat_start(struct trace_cursor *c, struct rd_thread *th,
                                                  const struct cht_rec *rec)
{
    const struct cht_rec_repeat *r = (const void *)rec;
    const struct cht_rec_repeat_col *rc = (const void *)rec;
    bool col = rec->type == CHT_REC_REPEAT_COL;
    uint32_t period = rec->aux, j, s = 0, count = col ? rc->count : r->count;
    uint32_t nstrides = col ? rc->nstrides : r->nstrides;
    const int64_t *strides = col ? (const void *)(rc + 1) : (const void *)(r + 1);

    if (period < 1 || period > CHT_REPEAT_PERIOD_MAX)
        return rec_error(c, "repeat record has period=%u outside 1..%u", period,
                         CHT_REPEAT_PERIOD_MAX);
    if (period > th->nhist)
        return rec_error(c, "repeat record has period=%u but thread=%u has only %u records "
                         "to repeat", period, th->thread, th->nhist);
    if (count < 1 || count > CHT_REPEAT_COUNT_MAX)
        return rec_error(c, "repeat record has count=%u outside 1..%u", count, CHT_REPEAT_COUNT_MAX);
    for (j = 0; j < period; j++) {
        c->rep_off[j] = s;
        s += hent_naddr(hist_ent(th, period - j));
    }
    if (nstrides != s)
        return rec_error(c, "repeat record has nstrides=%u but the %u records it repeats have "
                         "%u addresses", nstrides, period, s);
    memcpy(c->rep_stride, strides, 8 * (size_t)s); /* the stream checked the size */
    c->rep_period = period;
    c->rep_ncol = c->rep_icol = 0;
    if (col) {
        /* every irregular address of the records it stands for takes one entry */
        uint64_t need = 0;
        for (j = 0; j < period; j++) {
            uint32_t m = rep_irregular(c, th, j);
            need += (uint64_t)m * (count / period + (j < count % period));
        }
        if (need != rc->ncol)
            return rec_error(c, "repeat record has a column of %u entries but its %u records have "
                             "%" PRIu64 " irregular addresses", rc->ncol, count, need);
        if (!c->rep_col && !(c->rep_col = malloc(CHT_REPEAT_COL_MAX * sizeof(*c->rep_col))))
            return nomem(c);
        memcpy(c->rep_col, (const unsigned char *)strides + 8 * (size_t)s, 4 * (size_t)rc->ncol);
        c->rep_ncol = rc->ncol;
    }
    c->rep_is_col = col;
    c->rep_left = count;
    c->rep_count = count;
    c->rep_norun = false;
    c->rep_phase = 0;
    c->rep_thread = (size_t)(th - c->threads);
    return 0;
}

/* The next record of the REPEAT being expanded, entered in the history. */
static const struct cht_rec *repeat_next(struct trace_cursor *c, struct rd_thread *th)
{
    const struct rd_hent *from = hist_ent(th, c->rep_period);
    const int64_t *d = c->rep_stride + c->rep_off[c->rep_phase];
    /* made in its history slot (`from` itself for a period of 16), which
     * holds it until the caller is done; only the words it has */
    struct rd_hent *to = &th->hist[th->head];
    uint32_t n = hent_naddr(from), k;

    to->w[0] = from->w[0];
    to->w[1] = from->w[1];
    for (k = 0; k < n; k++) {
        uint64_t a = from->w[2 + k];
        if (!c->rep_is_col || d[k] != CHT_REPEAT_IRREGULAR)
            a += (uint64_t)d[k];
        else if (c->rep_icol < c->rep_ncol) /* repeat_start counted them */
            a += (uint64_t)(int64_t)c->rep_col[c->rep_icol++];
        to->w[2 + k] = a;
    }
    hist_advance(th);
    if (++c->rep_phase == c->rep_period)
        c->rep_phase = 0;
    c->rep_left--;
    return (const void *)to->w;
}

static int finish(struct trace_cursor *c)
{
    c->finished = true;
    if (trace_stream_cut_short(c->s)) {
        c->cut_short = true;
        snprintf(c->msg, sizeof(c->msg), "%s", trace_stream_error(c->s));
    } else if (!c->st.clean_end) {
        c->cut_short = true;
        snprintf(c->msg, sizeof(c->msg), "stream ends without an end record: the rank was cut "
                 "short: file=%s offset=%" PRIu64, trace_stream_path(c->s),
                 trace_stream_file_size(c->s));
    }
    return 0;
}

int trace_cursor_next(struct trace_cursor *c, const struct trace_event **ev)
{
    return trace_cursor_next_run(c, ev, NULL);
}

/* Starts decoding a PACK record of thread th (pack.c); 0 or an error. */
static __attribute__((noinline)) int pack_start(struct trace_cursor *c, struct rd_thread *th,
                                                const struct cht_rec *rec)
{
    char why[256];
    int ret = rd_pack_start(&c->pack, &th->pack, (const void *)rec, why, sizeof(why));
    if (ret == TRACE_ERR_FORMAT)
        return rec_error(c, "%s", why);
    if (ret < 0)
        return nomem(c);
    c->pack_thread = (size_t)(th - c->threads);
    return 0;
}

/* Starts decoding a ROWS record of thread th (rows.c); 0 or an error. */
static __attribute__((noinline)) int rows_start(struct trace_cursor *c, struct rd_thread *th,
                                                const struct cht_rec *rec)
{
    char why[256];
    if (rd_rows_start(&c->rows, (const void *)rec, why, sizeof(why)) < 0)
        return rec_error(c, "%s", why);
    c->rows_thread = (size_t)(th - c->threads);
    c->rows_norun = 0;
    return 0;
}

/* The rest of a row of the open ROWS record as a REPEAT_COL (a REPEAT if
 * none of its addresses is irregular) of the iteration just decoded into
 * the history: the cursor then expands it, or hands it over as a run, as
 * it does a REPEAT_COL's.  0, or -1 if out of memory. */
static __attribute__((noinline)) int rows_repeat(struct trace_cursor *c)
{
    struct rd_rows *w = &c->rows;
    if (!c->rep_col && !(c->rep_col = malloc(CHT_REPEAT_COL_MAX * sizeof(*c->rep_col))))
        return -1;
    for (uint32_t j = 0; j < w->per; j++)
        c->rep_off[j] = w->loff[j];
    for (uint32_t i = 0; i < w->nal; i++)
        c->rep_stride[i] = w->irr[i] ? CHT_REPEAT_IRREGULAR : w->step[i];
    c->rep_period = w->per;
    c->rep_ncol = w->take * w->nirr;
    c->rep_icol = 0;
    c->rep_is_col = w->nirr > 0;
    c->rep_left = c->rep_count = w->take * w->per;
    c->rep_norun = false;
    c->rep_phase = 0;
    c->rep_thread = c->rows_thread;
    rd_rows_take(w, c->rep_col);
    return 0;
}

/* A PACK record's code is corrupt: the reason is in c->msg. */
static __attribute__((noinline, cold)) int pack_error(struct trace_cursor *c)
{
    char why[sizeof(c->msg)];
    return rec_error(c, "%s", (const char *)memcpy(why, c->msg, sizeof(why)));
}

/* The records other than COMP and LOOP, kept out of the hot loop of
 * trace_cursor_next_run: 1 for an event, 0 for none, or an error. */
static __attribute__((noinline)) int decode_other(struct trace_cursor *c, struct rd_thread *th,
                                                  const struct cht_rec *rec)
{
    char why[256];
    int ret = 0;

    switch (rec->type) {
    case CHT_REC_RANGES:
        ret = decode_ranges(c, th, rec);
        if (ret > 0) {
            c->st.comp_events++;
            c->st.accesses += c->ev.nranges;
        }
        break;
    case CHT_REC_MPI:
        ret = decode_mpi(c, th, rec);
        if (ret > 0)
            c->st.mpi_events++;
        break;
    case CHT_REC_MODULE:
        ret = add_module(c, rec);
        break;
    case CHT_REC_TU:
        ret = rd_rank_add_tu(c->t, c->r, (const void *)rec, why, sizeof(why));
        if (ret == TRACE_ERR_FORMAT)
            return rec_error(c, "%s", why);
        if (ret)
            return nomem(c);
        break;
    case CHT_REC_SITE_TABLE: {
        const struct cht_rec_site_table *st = (const void *)rec;
        ret = rd_add_table(c->t, st + 1, st->blob_size, why, sizeof(why));
        if (ret == TRACE_ERR_FORMAT)
            return rec_error(c, "bad site table: %s", why);
        if (ret)
            return nomem(c);
        rd_rank_attach_tables(c->t, c->r);
        break;
    }
    case CHT_REC_LOST:
        c->st.lost_records += ((const struct cht_rec_lost *)rec)->records;
        break;
    case CHT_REC_END:
        c->st.clean_end = true;
        c->st.exit_status = ((const struct cht_rec_end *)rec)->exit_status;
        break;
    case CHT_REC_CLOCK: {
        const struct cht_rec_clock *k = (const void *)rec;
        int at = rec->aux ? 1 : 0; /* 0: MPI_Init, 1: MPI_Finalize */
        c->st.clock[at].mono_ns = k->mono_ns;
        c->st.clock[at].real_ns = k->real_ns;
        c->st.clock[at].valid = true;
        if (!at && rec->size >= sizeof(*k)) {
            c->st.host.cpus = k->cpus;
            c->st.host.node_ranks = k->node_ranks;
            c->st.host.host_id = k->host_id;
        }
        break;
    }
    default: /* stray followers, unknown types: nothing to return */
        break;
    }
    return ret;
}

int trace_cursor_next_run(struct trace_cursor *c, const struct trace_event **ev,
                          const struct trace_run **run)
{
    const struct cht_rec *rec;
    struct rd_thread *th;
    int ret;

    *ev = NULL;
    if (run)
        *run = NULL;
    if (c->status)
        return c->status;
    if (c->finished)
        return 0;
    for (;;) {
        if (c->rep_left) {
            th = &c->threads[c->rep_thread];
            if (run && !c->rep_norun && c->rep_phase == 0 &&
                (c->flags & (TRACE_CURSOR_RUNS | TRACE_CURSOR_LOOPS)) == TRACE_CURSOR_RUNS) {
                ret = rd_run_start(c, th);
                if (ret < 0)
                    return nomem(c);
                if (ret > 0) {
                    *run = &c->run;
                    return 2;
                }
            }
            rec = repeat_next(c, th);
        } else if (c->pack.left) {
            th = &c->threads[c->pack_thread];
            c->pack.tb = &th->pack; /* threads may have moved since the PACK began */
            rec = (const void *)th->hist[th->head].w; /* decoded into the history */
            if (rd_pack_next(&c->pack, th->hist[th->head].w, c->msg, sizeof(c->msg)) < 0)
                return pack_error(c);
            hist_advance(th);
        } else if (c->rows.active) {
            th = &c->threads[c->rows_thread];
            if (run && c->rows_norun < 2 && !c->rows.between && c->rows.it == 0 && c->rows.phase == 0 &&
                (c->flags & (TRACE_CURSOR_RUNS | TRACE_CURSOR_LOOPS | TRACE_CURSOR_ROWS)) ==
                    (TRACE_CURSOR_RUNS | TRACE_CURSOR_ROWS)) {
                ret = rd_rows_run_start(c, th);
                if (ret < 0)
                    return nomem(c);
                if (ret > 0) {
                    *run = &c->run;
                    return 2;
                }
                if (!c->rows.active)
                    continue;
            }
            rec = (const void *)th->hist[th->head].w; /* decoded into the history */
            if (rd_rows_next(&c->rows, th->hist[th->head].w, c->msg, sizeof(c->msg)) < 0)
                return pack_error(c);
            hist_advance(th);
            if (c->rows.take && rows_repeat(c) < 0)
                return nomem(c);
        } else {
            ret = trace_stream_next(c->s, &rec);
            if (ret < 0)
                return cursor_fail(c, ret);
            if (ret == 0)
                return finish(c);
            th = thread_state(c, trace_stream_chunk(c->s)->thread);
            if (!th)
                return nomem(c);
            if ((rec->type == CHT_REC_REPEAT && trace_stream_header(c->s)->version >= 2) ||
                (rec->type == CHT_REC_REPEAT_COL && trace_stream_header(c->s)->version >= 8)) {
                /* counted as the records it stands for */
                ret = repeat_start(c, th, rec);
                if (ret < 0)
                    return ret;
                continue;
            }
            if (rec->type == CHT_REC_PACK && trace_stream_header(c->s)->version >= 9) {
                /* counted as the records it stands for */
                ret = pack_start(c, th, rec);
                if (ret < 0)
                    return ret;
                continue;
            }
            if (rec->type == CHT_REC_ROWS && trace_stream_header(c->s)->version >= 10) {
                /* counted as the records it stands for */
                ret = rows_start(c, th, rec);
                if (ret < 0)
                    return ret;
                continue;
            }
            hist_note(th, rec);
        }
        c->st.records++;
        ret = 0;
        switch (rec->type) {
        case CHT_REC_COMP:
            ret = decode_comp(c, th, rec);
            if (ret > 0) {
                c->st.comp_events++;
                c->st.accesses += c->ev.nranges;
            }
            break;
        case CHT_REC_LOOP:
            c->st.loop_records++;
            ret = apply_loop(c, th, rec);
            if (ret == 0 && (c->flags & TRACE_CURSOR_LOOPS)) {
                const struct cht_rec_loop *l = (const void *)rec;
                begin_event(c, TRACE_EV_LOOP, th, CHT_NONE);
                c->ev.loop_kind = rec->aux;
                c->ev.loop = l->loop;
                *ev = &c->ev;
                return 1; /* index: the next COMP/MPI event's, not advanced */
            }
            break;
        default: /* the rarer records, out of the hot loop */
            ret = decode_other(c, th, rec);
            break;
        }
        if (ret < 0)
            return ret;
        if (ret > 0) {
            c->index++;
            *ev = &c->ev;
            return 1;
        }
    }
}

int trace_cursor_symbolize(struct trace_cursor *c, uint64_t ret_addr, struct trace_srcloc *out,
                           struct trace_err *err)
{
    return rd_modules_symbolize(&c->mods, c->t, trace_stream_path(c->s), ret_addr, out, err);
}
