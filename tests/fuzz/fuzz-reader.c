/* fuzz-reader.c - libFuzzer harness for the trace reader (tracelib/reader):
 * the input (a trace directory, format in fuzz-common.h) is opened with
 * trace_open, every rank stream it holds is read to the end with a cursor,
 * touching every byte of every event the cursor hands out (ranges,
 * iteration vectors, site and loop info, MPI followers) so that the
 * sanitizers see out-of-bounds borrows, and the cheap lookups (names,
 * symbolisation of a few return addresses) are exercised on what was read.
 * Each rank file is also read record by record with the low-level stream.
 *
 * What it asserts beyond "no crash, no leak, no hang": every error comes
 * with a message, and a stream's records stay within their chunk.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-common.h"
#include "trace-reader.h"

/* Events per rank and pass.  The first pass returns loop records too, so
 * that this bounds the work: one REPEAT record can stand for 2^20 of them,
 * which a cursor without TRACE_CURSOR_LOOPS reads within one call. */
#define MAX_EVENTS (1u << 15)
#define MAX_SYMBOLIZE 2       /* return addresses looked up per rank */

static volatile uint64_t sink; /* keeps the reads below */

static void need_message(int rc, const char *msg, const char *what)
{
    if (rc < 0 && (!msg || !msg[0])) {
        fprintf(stderr, "fuzz-reader: %s failed with status %d but no message\n", what, rc);
        abort();
    }
}

static void touch_str(const char *s)
{
    if (s)
        sink += strlen(s);
}

static void touch_site(const struct trace_site_info *si)
{
    if (!si)
        return;
    touch_str(si->file);
    touch_str(si->func);
    sink += si->line + si->col + si->kind + si->op + si->flags + si->loop;
    for (uint32_t i = 0; i < si->naccess; i++)
        sink += si->access[i].size + si->access[i].flags;
    touch_str(trace_site_op_name(si->op));
    touch_str(trace_site_kind_name(si->kind));
}

static void touch_loop(const struct trace_loop_info *li)
{
    if (!li)
        return;
    touch_str(li->file);
    touch_str(li->func);
    sink += li->line + li->col + li->depth + li->parent;
}

static void touch_event(struct trace_cursor *c, const struct trace_event *ev, unsigned *nsym)
{
    touch_site(ev->site_info);
    if (ev->site_info != trace_cursor_site(c, ev->site)) {
        fprintf(stderr, "fuzz-reader: event site_info differs from trace_cursor_site\n");
        abort();
    }
    for (uint32_t d = 0; d < ev->depth; d++) {
        sink += ev->iters[d].iter;
        touch_loop(trace_cursor_loop(c, ev->iters[d].loop));
    }
    switch (ev->kind) {
    case TRACE_EV_COMP:
        for (uint32_t i = 0; i < ev->nranges; i++)
            sink += ev->ranges[i].addr + ev->ranges[i].len + ev->ranges[i].write;
        break;
    case TRACE_EV_MPI: {
        const struct cht_rec_mpi *m = ev->mpi;
        sink += m->t_enter + m->t_exit + m->comm + m->peer + m->rpeer + m->seq + m->rseq;
        touch_str(trace_mpi_call_name(m->h.aux));
        touch_str(trace_mpi_op_name(m->op));
        for (uint32_t i = 0; i < ev->ncomplete; i++)
            sink += ev->complete[i]->request + ev->complete[i]->rseq;
        for (int s = 0; s < 2; s++) {
            const struct cht_rec_blocks *b = ev->blocks[s];
            if (!b)
                continue;
            const struct cht_block *blk = (const struct cht_block *)(b + 1);
            for (uint32_t i = 0; i < b->count; i++)
                sink += (uint64_t)blk[i].offset + blk[i].bytes;
        }
        if (ev->newcomm) {
            const struct cht_rec_comm *cm = ev->newcomm;
            const int32_t *w = (const int32_t *)(cm + 1);
            for (uint64_t i = 0; i < (uint64_t)cm->size + cm->remote_size; i++)
                sink += (uint32_t)w[i];
        }
        if (*nsym < MAX_SYMBOLIZE) {
            struct trace_srcloc loc;
            struct trace_err err;
            int rc;
            err.msg[0] = '\0';
            ++*nsym;
            rc = trace_cursor_symbolize(c, m->ret_addr, &loc, &err);
            need_message(rc, err.msg, "trace_cursor_symbolize");
            for (unsigned f = 0; rc >= 0 && f < loc.nframes && f < TRACE_MAX_INLINE; f++) {
                touch_str(loc.frames[f].file);
                touch_str(loc.frames[f].func);
            }
        }
        break;
    }
    case TRACE_EV_LOOP:
        sink += (uint64_t)ev->loop_kind + ev->loop;
        touch_loop(trace_cursor_loop(c, ev->loop));
        break;
    default:
        fprintf(stderr, "fuzz-reader: event of unknown kind %d\n", ev->kind);
        abort();
    }
}

/* The low-level stream: every record, peeks included. */
static void read_stream(const char *path)
{
    struct trace_stream *s;
    struct trace_err err;
    const struct cht_rec *rec;
    uint64_t n = 0;
    int rc;

    err.msg[0] = '\0';
    rc = trace_stream_open(path, &s, &err);
    need_message(rc, err.msg, "trace_stream_open");
    if (rc < 0)
        return;
    while (n++ < MAX_EVENTS && (rc = trace_stream_next(s, &rec)) > 0) {
        const struct cht_chunk_header *ch = trace_stream_chunk(s);
        const struct cht_rec *p = trace_stream_peek(s, 0);
        if (!ch || rec->size < 8 || rec->size % 8 || rec->size > ch->raw_size) {
            fprintf(stderr, "fuzz-reader: record outside its chunk\n");
            abort();
        }
        if (p)
            sink += p->type + p->size;
    }
    need_message(rc, trace_stream_error(s), "trace_stream_next");
    if (rc == 0 && trace_stream_cut_short(s))
        touch_str(trace_stream_error(s));
    sink += trace_stream_bytes_read(s) + trace_stream_file_size(s);
    trace_stream_close(s);
}

/* Reads a rank with a cursor; true if it got to the end (or an error)
 * within max_events. */
static bool read_rank(struct trace *t, int rank, unsigned flags, uint64_t max_events)
{
    struct trace_cursor *c;
    struct trace_err err;
    struct trace_cursor_stats st;
    const struct trace_event *ev;
    unsigned nsym = 0;
    uint64_t n = 0;
    int rc;

    err.msg[0] = '\0';
    rc = trace_cursor_open(t, rank, flags, &c, &err);
    need_message(rc, err.msg, "trace_cursor_open");
    if (rc < 0)
        return true;
    while (n++ < max_events && (rc = trace_cursor_next(c, &ev)) > 0)
        touch_event(c, ev, &nsym);
    need_message(rc, trace_cursor_error(c), "trace_cursor_next");
    if (rc == 0 && trace_cursor_cut_short(c))
        touch_str(trace_cursor_error(c));
    trace_cursor_stats(c, &st);
    sink += st.records + st.comp_events + st.mpi_events + st.bytes_raw + st.threads;
    trace_cursor_close(c);
    return rc <= 0;
}

/* Reads a rank to its end as `commhint info` does, runs counted without
 * being expanded: no limit on the events the input claims, since a REPEAT
 * record costs its period here. */
static void read_runs(struct trace *t, int rank)
{
    struct trace_cursor *c;
    struct trace_err err;
    struct trace_cursor_stats st;
    const struct trace_event *ev;
    const struct trace_run *run;
    unsigned nsym = 0;
    int rc;

    err.msg[0] = '\0';
    rc = trace_cursor_open(t, rank, TRACE_CURSOR_RUNS | TRACE_CURSOR_ROWS, &c, &err);
    need_message(rc, err.msg, "trace_cursor_open (runs)");
    if (rc < 0)
        return;
    while ((rc = trace_cursor_next_run(c, &ev, &run)) > 0) {
        if (run) {
            /* its first and last events (a run of rows: through its tables) */
            static struct trace_iter it[TRACE_MAX_LOOP_DEPTH];
            struct trace_range rg[CHT_REPEAT_MAX_ADDRS];
            struct trace_event e;
            uint64_t n = trace_run_events(run);
            trace_run_event(run, 0, &e, rg, it);
            sink += e.index + (e.nranges ? rg[0].addr : 0);
            trace_run_event(run, n - 1, &e, rg, it);
            sink += e.index + (e.nranges ? rg[e.nranges - 1].addr : 0) + (e.depth ? it[e.depth - 1].iter : 0);
        } else {
            touch_event(c, ev, &nsym);
        }
    }
    need_message(rc, trace_cursor_error(c), "trace_cursor_next_run");
    trace_cursor_stats(c, &st);
    sink += st.comp_events + st.mpi_events + st.loop_records + st.accesses;
    trace_cursor_close(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *dir = fz_scratch_dir();
    struct fz_files files;
    struct trace *t;
    struct trace_err err;
    size_t idlen;
    int rc;

    if (fz_write_dir(data, size, dir, &files) < 0) {
        perror("fuzz-reader: cannot write the input's trace directory");
        abort();
    }
    err.msg[0] = '\0';
    rc = trace_open(dir, &t, &err);
    need_message(rc, err.msg, "trace_open");
    if (rc < 0)
        return 0;
    touch_str(trace_program(t));
    for (int i = 0; i < trace_argc(t); i++)
        touch_str(trace_argv(t, i));
    const uint8_t *id = trace_build_id(t, &idlen);
    for (size_t i = 0; i < idlen; i++)
        sink += id[i];
    sink += (uint64_t)trace_world_size(t) + trace_run_id(t) + trace_meta_header(t)->version;
    bool whole0 = false;
    for (int r = 0; r < files.nranks; r++) {
        read_stream(trace_rank_path(t, r));
        bool whole = read_rank(t, r, TRACE_CURSOR_LOOPS, MAX_EVENTS);
        read_runs(t, r);
        if (r == 0)
            whole0 = whole;
    }
    /* a second cursor on rank 0, without loop events and with calling
     * contexts (the PATH records symbolised), reuses the rank's id mapping
     * (only when the first got to the end: the same work) */
    if (whole0 && trace_has_rank(t, 0))
        read_rank(t, 0, TRACE_CURSOR_CONTEXTS, MAX_EVENTS);
    trace_close(t);
    return 0;
}
