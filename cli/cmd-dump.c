/* cmd-dump.c - `commhint dump DIR [--rank R] [--format=text|json]`: every
 * event of a trace with its site as file:line:col, iteration vector,
 * read/write ranges, MPI arguments and times.
 *
 * Text lines start with the location the way compilers print it, so editors
 * can jump to them; JSON is one object per line (JSON Lines).  --stable
 * leaves out what changes from run to run (addresses, times, absolute
 * paths) so outputs can be compared with expected files. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "search.h"
#include "trace-reader.h"

struct dump_opts {
    bool json;
    bool stable;
    bool loops;
};

static void dump_help(void)
{
    printf("usage: commhint dump DIR [--rank R] [--format=text|json] [--loops] [--stable]\n\n"
           "Prints every event of the trace in DIR (all ranks, or rank R).\n"
           "  --rank R        only rank R\n"
           "  --format=FMT    text (default; lines start with file:line:col:) or json\n"
           "                  (one JSON object per line)\n"
           "  --loops         also print loop entry, iteration and exit records\n"
           "  --stable        leave out addresses, times and absolute paths (for comparisons)\n"
           "Computation events show iter=[L<line>=<n> ...]: the n-th iteration (from 1) of the\n"
           "loop at that line, outermost first, and R:/W: ranges as address+bytes.\n");
}

static const char *rank_name(int32_t r, char *buf, size_t n)
{
    if (r == CHT_RANK_ANY)
        return "ANY";
    if (r == CHT_RANK_PROC_NULL)
        return "PROC_NULL";
    snprintf(buf, n, "%d", r);
    return buf;
}

static const char *tag_name(int32_t t, char *buf, size_t n)
{
    if (t == CHT_TAG_ANY)
        return "ANY";
    snprintf(buf, n, "%d", t);
    return buf;
}

/* Where an event happened: its site, or for MPI calls in code built without
 * the pass, the symbolised return address. */
struct where {
    const char *file;
    const char *func;
    uint32_t line, col;
    struct trace_srcloc loc;
    bool symbolized;
};

static void locate(struct trace_cursor *cur, const struct trace_event *ev, struct where *w)
{
    memset(w, 0, sizeof *w);
    w->file = "??";
    w->func = "";
    if (ev->site_info) {
        w->file = ev->site_info->file[0] ? ev->site_info->file : "??";
        w->func = ev->site_info->func;
        w->line = ev->site_info->line;
        w->col = ev->site_info->col;
        return;
    }
    if (ev->kind == TRACE_EV_LOOP) {
        const struct trace_loop_info *li = trace_cursor_loop(cur, ev->loop);
        if (li) {
            w->file = li->file[0] ? li->file : "??";
            w->func = li->func;
            w->line = li->line;
            w->col = li->col;
        }
        return;
    }
    if (ev->kind == TRACE_EV_MPI && ev->mpi->ret_addr) {
        struct trace_err err;
        if (trace_cursor_symbolize(cur, ev->mpi->ret_addr, &w->loc, &err) == 1 && w->loc.nframes) {
            w->symbolized = true;
            w->file = w->loc.frames[0].file ? w->loc.frames[0].file : "??";
            w->func = w->loc.frames[0].func ? w->loc.frames[0].func : "";
            w->line = w->loc.frames[0].line;
            w->col = w->loc.frames[0].col;
        }
    }
}

static const char *kind_name(const struct trace_event *ev)
{
    switch (ev->kind) {
    case TRACE_EV_COMP:
        if (ev->site_info && (ev->site_info->flags & CHT_SITEF_HEAP))
            return "heap"; /* an allocation or a free: the whole block */
        return ev->site_info ? trace_site_kind_name(ev->site_info->kind) : "comp";
    case TRACE_EV_MPI:
        /* an untraced call by its own name ("MPI_Put (untraced)"), a
         * clock read too ("MPI_Wtime (clock read)"), and a call into code
         * built without the pass ("qsort (uninstrumented)") */
        if (ev->call_name) {
            static _Thread_local char buf[CHT_CALLNAME_MAX + 16];
            snprintf(buf, sizeof buf, "%s (%s)", ev->call_name,
                     trace_event_call(ev) == CHT_MPI_CLOCK    ? "clock read"
                     : trace_event_call(ev) == CHT_MPI_EXTERN ? "uninstrumented"
                                                              : "untraced");
            return buf;
        }
        {
            static _Thread_local char label[CHT_CALLNAME_MAX + 16];
            return trace_mpi_call_label(ev->mpi->h.aux, ev->mpi->flags, label, sizeof label);
        }
    case TRACE_EV_LOOP:
        return ev->loop_kind == CHT_LOOP_ENTER ? "loop-enter"
               : ev->loop_kind == CHT_LOOP_ITER ? "loop-iter" : "loop-exit";
    }
    return "?";
}

/* Family of an MPI call, for choosing which fields to show. */
enum family { F_SEND, F_RECV, F_SENDRECV, F_PROBE, F_COMPLETE, F_COLL, F_COMM, F_RMA, F_PART, F_OTHER };

static enum family family_of(int call)
{
    call = trace_mpi_call_base(call); /* Ibcast as Bcast, Send_init as Send... */
    switch (call) {
    case CHT_MPI_SEND: case CHT_MPI_SSEND: case CHT_MPI_BSEND: case CHT_MPI_RSEND:
    case CHT_MPI_ISEND: case CHT_MPI_ISSEND: case CHT_MPI_IBSEND: case CHT_MPI_IRSEND:
        return F_SEND;
    case CHT_MPI_RECV: case CHT_MPI_IRECV:
        return F_RECV;
    case CHT_MPI_SENDRECV: case CHT_MPI_SENDRECV_REPLACE:
        return F_SENDRECV;
    case CHT_MPI_PROBE: case CHT_MPI_IPROBE:
        return F_PROBE;
    case CHT_MPI_PREADY: case CHT_MPI_PREADY_RANGE: case CHT_MPI_PREADY_LIST:
    case CHT_MPI_PARRIVED:
        return F_PART;
    default:
        break;
    }
    if (call >= CHT_MPI_WAIT && call <= CHT_MPI_CANCEL)
        return F_COMPLETE;
    if ((call >= CHT_MPI_BARRIER && call <= CHT_MPI_EXSCAN) || call == CHT_MPI_ALLTOALLW ||
        (call >= CHT_MPI_NEIGHBOR_ALLGATHER && call <= CHT_MPI_NEIGHBOR_ALLTOALLW))
        return F_COLL;
    if (call >= CHT_MPI_COMM_DUP && call <= CHT_MPI_DIST_GRAPH_CREATE_ADJACENT)
        return F_COMM;
    if (call >= CHT_MPI_WIN_CREATE && call <= CHT_MPI_WIN_SYNC)
        return F_RMA;
    return F_OTHER;
}

static void text_buf(FILE *f, const char *name, uint64_t addr, uint64_t bytes, bool stable)
{
    if (stable)
        fprintf(f, " %s=+%" PRIu64, name, bytes);
    else
        fprintf(f, " %s=0x%" PRIx64 "+%" PRIu64, name, addr, bytes);
}

/* The other memory a call touches (CHT_REC_ARGS): " args=w:0x...+8,r:0x...+16"
 * (without addresses with --stable). */
static void text_args(FILE *f, const char *name, const struct trace_range *r, uint32_t n,
                      bool stable)
{
    for (uint32_t k = 0; k < n; k++) {
        fprintf(f, k ? "," : " %s=", name);
        if (stable)
            fprintf(f, "%c+%" PRIu64, r[k].write ? 'w' : 'r', r[k].len);
        else
            fprintf(f, "%c:0x%" PRIx64 "+%" PRIu64, r[k].write ? 'w' : 'r', r[k].addr, r[k].len);
    }
}

/* One-sided calls: the window ("W<world rank of its namer>.<n>"), the
 * target, the origin buffers, the window's collective number. */
static void text_rma(FILE *f, const struct cht_rec_mpi *m, const struct dump_opts *o)
{
    char b1[32];
    if (m->seq & CHT_WIN_ID_BIT)
        fprintf(f, " win=W%u.%u", (unsigned)((m->seq >> 32) & 0x7fffffffu) - 1,
                (unsigned)(m->seq & 0xffffffffu));
    else
        fprintf(f, " win=unknown");
    if (m->peer != CHT_RANK_NONE)
        fprintf(f, " target=%s", rank_name(m->peer, b1, sizeof b1));
    if (m->tag == CHT_LOCK_EXCLUSIVE || m->tag == CHT_LOCK_SHARED)
        fprintf(f, " lock=%s", m->tag == CHT_LOCK_EXCLUSIVE ? "exclusive" : "shared");
    bool mem = m->h.aux <= CHT_MPI_WIN_DETACH; /* creation, attach: the window memory */
    if (m->sbytes)
        text_buf(f, "origin", m->sbuf, m->sbytes, o->stable);
    if (m->rbytes || m->h.aux == CHT_MPI_WIN_DETACH)
        text_buf(f, mem ? "mem" : "result", m->rbuf, m->rbytes, o->stable);
    if (m->op)
        fprintf(f, " op=%s", trace_mpi_op_name(m->op));
    if (m->rseq)
        fprintf(f, " wseq=%" PRIu64, m->rseq);
    if (m->flags & CHT_MPIF_NOT_FOUND)
        fprintf(f, " flag=false");
}

static void text_mpi(FILE *f, const struct trace_event *ev, const struct dump_opts *o, uint64_t t0)
{
    const struct cht_rec_mpi *m = ev->mpi;
    char b1[32], b2[32];
    /* an init call (MPI_Send_init...) describes nothing; its starts do */
    bool init = !(m->flags & CHT_MPIF_STARTED) && trace_mpi_call_started(m->h.aux) != m->h.aux;
    enum family fam = init ? F_OTHER : family_of(m->h.aux);
    bool send = fam == F_SEND || fam == F_SENDRECV;
    bool recv = fam == F_RECV || fam == F_SENDRECV || fam == F_PROBE;
    if (send) {
        if (!(m->flags & CHT_MPIF_SEND_IN_PLACE))
            text_buf(f, "sbuf", m->sbuf, m->sbytes, o->stable);
        fprintf(f, " dest=%s tag=%d seq=%" PRIu64, rank_name(m->peer, b1, sizeof b1), m->tag, m->seq);
    }
    if (recv) {
        if (fam != F_PROBE)
            text_buf(f, "rbuf", m->rbuf, m->rbytes, o->stable);
        fprintf(f, " src=%s tag=%s", rank_name(m->rpeer, b1, sizeof b1), tag_name(m->rtag, b2, sizeof b2));
        if (m->flags & CHT_MPIF_HAS_STATUS)
            fprintf(f, " status=%d:%d:%" PRIu64, m->st_source, m->st_tag, m->st_bytes);
        if (m->rseq)
            fprintf(f, " rseq=%" PRIu64, m->rseq);
    }
    if (fam == F_COLL) {
        if (m->peer >= 0)
            fprintf(f, " root=%d%s", m->peer, (m->flags & CHT_MPIF_ROOT) ? "(me)" : "");
        if (m->sbytes || (m->flags & CHT_MPIF_SEND_IN_PLACE))
            (m->flags & CHT_MPIF_SEND_IN_PLACE) ? (void)fprintf(f, " sbuf=IN_PLACE")
                                                : text_buf(f, "sbuf", m->sbuf, m->sbytes, o->stable);
        if (m->rbytes || (m->flags & CHT_MPIF_RECV_IN_PLACE))
            (m->flags & CHT_MPIF_RECV_IN_PLACE) ? (void)fprintf(f, " rbuf=IN_PLACE")
                                                : text_buf(f, "rbuf", m->rbuf, m->rbytes, o->stable);
        if (m->op)
            fprintf(f, " op=%s", trace_mpi_op_name(m->op));
        fprintf(f, " seq=%" PRIu64, m->seq);
        for (int s = 0; s < 2; s++)
            if (ev->blocks[s])
                fprintf(f, " %sblocks=%u", s ? "r" : "s", ev->blocks[s]->count);
    }
    if (fam == F_RMA)
        text_rma(f, m, o);
    if (fam == F_PART) {
        /* the partitions handed to MPI (Pready*) or found arrived (Parrived) */
        if (m->sbytes)
            text_buf(f, "parts", m->sbuf, m->sbytes, o->stable);
        if (m->rbytes)
            text_buf(f, "parts", m->rbuf, m->rbytes, o->stable);
        fprintf(f, " partitions=%d", m->count);
    }
    if (m->request)
        fprintf(f, " req=%" PRIu64, m->request);
    text_args(f, "args", ev->args, ev->nargs, o->stable);
    text_args(f, "held", ev->held, ev->nheld, o->stable);
    if (fam == F_COMPLETE || fam == F_PART) {
        if (m->flags & CHT_MPIF_NOT_FOUND)
            fprintf(f, " flag=false");
        for (uint32_t i = 0; i < ev->ncomplete; i++) {
            const struct cht_rec_complete *c = ev->complete[i];
            if (c->h.aux & CHT_COMPLETE_CANCELLED)
                fprintf(f, " done=req%" PRIu64 ":%s:cancelled", c->request,
                        (c->h.aux & CHT_COMPLETE_RECV) ? "recv" : "send");
            else if (c->h.aux & CHT_COMPLETE_RECV)
                fprintf(f, " done=req%" PRIu64 ":recv:%d:%d:%" PRIu64 ":rseq%" PRIu64, c->request,
                        c->st_source, c->st_tag, c->st_bytes, c->rseq);
            else
                fprintf(f, " done=req%" PRIu64 ":send", c->request);
        }
    }
    fprintf(f, " comm=%s", trace_comm_name(m->comm, b1, sizeof b1));
    if (ev->newcomm) {
        const struct cht_rec_comm *nc = ev->newcomm;
        const int32_t *ranks = (const int32_t *)(nc + 1);
        fprintf(f, " newcomm=%s size=%u myrank=%d members=[", trace_comm_name(nc->comm, b1, sizeof b1),
                nc->size, nc->my_rank);
        for (uint32_t i = 0; i < nc->size && i < 64; i++)
            fprintf(f, "%s%d", i ? "," : "", ranks[i]);
        fprintf(f, "%s]", nc->size > 64 ? ",..." : "");
    }
    if (m->flags & CHT_MPIF_ERROR)
        fprintf(f, " error");
    if (!o->stable)
        fprintf(f, " t=%.6fms dur=%.3fus", (double)(m->t_enter - t0) / 1e6,
                (double)(m->t_exit - m->t_enter) / 1e3);
    if (!o->stable && ev->cpu_exit)
        fprintf(f, " cpu=%.3fus", (double)(ev->cpu_exit - ev->cpu_enter) / 1e3);
    if (!o->stable && ev->npath) { /* the return addresses above the caller */
        fputs(" path=", f);
        for (uint32_t k = 0; k < ev->npath; k++)
            fprintf(f, "%s0x%" PRIx64, k ? "," : "", ev->path[k]);
    }
}

/* An event's text line, built in memory and written in one go (text_mpi's
 * part of an MPI event's line goes straight to the file, after what the
 * buffer holds): a dump writes tens of millions of lines, and printf and
 * per-piece stdio calls were most of its time. */
struct line {
    FILE *f;
    size_t n;
    char b[4096];
};

static void line_flush(struct line *l)
{
    fwrite(l->b, 1, l->n, l->f);
    l->n = 0;
}

static void line_put(struct line *l, const char *s, size_t len)
{
    if (len > sizeof l->b - l->n) {
        line_flush(l);
        if (len > sizeof l->b) {
            fwrite(s, 1, len, l->f);
            return;
        }
    }
    memcpy(l->b + l->n, s, len);
    l->n += len;
}

static void line_str(struct line *l, const char *s) { line_put(l, s, strlen(s)); }

/* s with search_write_escaped's escapes */
static void line_escaped(struct line *l, const char *s)
{
    size_t len = strlen(s), n = search_escape_free(s, len);
    if (n == len) {
        line_put(l, s, len);
    } else {
        line_flush(l);
        search_write_escaped(l->f, s, len);
    }
}

static void line_u64(struct line *l, uint64_t v)
{
    char b[20];
    size_t n = sizeof b;
    do
        b[--n] = (char)('0' + v % 10);
    while (v /= 10);
    line_put(l, b + n, sizeof b - n);
}

static void line_hex(struct line *l, uint64_t v)
{
    char b[16];
    size_t n = sizeof b;
    do
        b[--n] = "0123456789abcdef"[v & 15];
    while (v >>= 4);
    line_put(l, b + n, sizeof b - n);
}

static void text_event(FILE *f, struct trace_cursor *cur, const struct trace_event *ev,
                       const struct dump_opts *o, uint64_t t0)
{
    struct where w;
    locate(cur, ev, &w);
    /* Text is read by people and editors started in the source tree: paths
     * below the current directory are shown relative to it. */
    /* names that came from the trace, escaped: they cannot drive the terminal */
    struct line l;
    l.f = f;
    l.n = 0;
    line_escaped(&l, search_display_path(w.file, true));
    line_put(&l, ":", 1);
    line_u64(&l, w.line);
    line_put(&l, ":", 1);
    line_u64(&l, w.col);
    line_put(&l, ": ", 2);
    line_escaped(&l, kind_name(ev));
    line_str(&l, " rank=");
    if (ev->rank < 0)
        line_put(&l, "-", 1);
    line_u64(&l, ev->rank < 0 ? -(uint64_t)(int64_t)ev->rank : (uint64_t)ev->rank);
    line_str(&l, " ev=");
    line_u64(&l, ev->index);
    if (ev->thread) {
        line_str(&l, " thread=");
        line_u64(&l, ev->thread);
    }
    if (ev->depth) {
        line_str(&l, " iter=[");
        for (uint32_t i = 0; i < ev->depth; i++) {
            const struct trace_loop_info *li = trace_cursor_loop(cur, ev->iters[i].loop);
            line_str(&l, i ? " L" : "L");
            line_u64(&l, li ? li->line : 0);
            line_put(&l, "=", 1);
            line_u64(&l, ev->iters[i].iter);
        }
        line_put(&l, "]", 1);
    }
    if (ev->kind == TRACE_EV_COMP) {
        for (uint32_t i = 0; i < ev->nranges; i++) {
            const struct trace_range *r = &ev->ranges[i];
            line_str(&l, r->write ? " W:" : " R:");
            if (!o->stable) {
                line_str(&l, "0x");
                line_hex(&l, r->addr);
            }
            line_put(&l, "+", 1);
            line_u64(&l, r->len);
        }
    } else if (ev->kind == TRACE_EV_MPI) {
        line_flush(&l); /* text_mpi writes to f: what l holds goes first */
        text_mpi(f, ev, o, t0);
    } else if (ev->kind == TRACE_EV_LOOP) {
        const struct trace_loop_info *li = trace_cursor_loop(cur, ev->loop);
        line_str(&l, " loop=L");
        line_u64(&l, li ? li->line : 0);
    }
    if (w.func && *w.func) {
        line_str(&l, " func=");
        line_escaped(&l, w.func);
    }
    if (w.symbolized)
        for (unsigned i = 1; i < w.loc.nframes; i++) {
            line_str(&l, " inlined-at=");
            line_escaped(&l, search_display_path(w.loc.frames[i].file, true));
            line_put(&l, ":", 1);
            line_u64(&l, w.loc.frames[i].line);
            line_put(&l, ":", 1);
            line_u64(&l, w.loc.frames[i].col);
        }
    line_put(&l, "\n", 1);
    line_flush(&l);
}

static void json_u64(FILE *f, const char *k, uint64_t v) { fprintf(f, ",\"%s\":%" PRIu64, k, v); }
static void json_i64(FILE *f, const char *k, int64_t v) { fprintf(f, ",\"%s\":%" PRId64, k, v); }
static void json_addr(FILE *f, const char *k, uint64_t v) { fprintf(f, ",\"%s\":\"0x%" PRIx64 "\"", k, v); }

static void json_event(FILE *f, struct trace_cursor *cur, const struct trace_event *ev,
                       const struct dump_opts *o)
{
    struct where w;
    locate(cur, ev, &w);
    fprintf(f, "{\"rank\":%d,\"ev\":%" PRIu64 ",\"thread\":%u,\"kind\":", ev->rank, ev->index, ev->thread);
    search_json_string(f, kind_name(ev));
    fputs(",\"file\":", f);
    search_json_string(f, search_display_path(w.file, o->stable));
    fprintf(f, ",\"line\":%u,\"col\":%u,\"func\":", w.line, w.col);
    search_json_string(f, w.func);
    if (ev->site != CHT_NONE)
        json_u64(f, "site", ev->site);
    if (ev->site_info)
        fprintf(f, ",\"site_flags\":%u,\"site_op\":\"%s\"", ev->site_info->flags,
                trace_site_op_name(ev->site_info->op));
    fputs(",\"iter\":[", f);
    for (uint32_t i = 0; i < ev->depth; i++) {
        const struct trace_loop_info *li = trace_cursor_loop(cur, ev->iters[i].loop);
        fprintf(f, "%s{\"loop\":%u,\"line\":%u,\"iter\":%" PRIu64 "}", i ? "," : "", ev->iters[i].loop,
                li ? li->line : 0, ev->iters[i].iter);
    }
    fputc(']', f);
    if (ev->kind == TRACE_EV_COMP) {
        fputs(",\"ranges\":[", f);
        for (uint32_t i = 0; i < ev->nranges; i++) {
            const struct trace_range *r = &ev->ranges[i];
            fprintf(f, "%s{", i ? "," : "");
            if (!o->stable)
                fprintf(f, "\"addr\":\"0x%" PRIx64 "\",", r->addr);
            fprintf(f, "\"len\":%" PRIu64 ",\"access\":\"%s\"}", r->len, r->write ? "write" : "read");
        }
        fputc(']', f);
    } else if (ev->kind == TRACE_EV_LOOP) {
        const struct trace_loop_info *li = trace_cursor_loop(cur, ev->loop);
        fprintf(f, ",\"loop\":%u,\"loop_line\":%u", ev->loop, li ? li->line : 0);
    } else if (ev->kind == TRACE_EV_MPI) {
        const struct cht_rec_mpi *m = ev->mpi;
        fprintf(f, ",\"flags\":%u", m->flags);
        if (!o->stable) {
            json_addr(f, "ret_addr", m->ret_addr);
            json_u64(f, "t_enter", m->t_enter);
            json_u64(f, "t_exit", m->t_exit);
            if (ev->cpu_exit) {
                json_u64(f, "cpu_enter", ev->cpu_enter);
                json_u64(f, "cpu_exit", ev->cpu_exit);
            }
            json_addr(f, "sbuf", m->sbuf);
            json_addr(f, "rbuf", m->rbuf);
        }
        json_u64(f, "comm", m->comm);
        json_u64(f, "sbytes", m->sbytes);
        json_u64(f, "rbytes", m->rbytes);
        json_i64(f, "peer", m->peer);
        json_i64(f, "tag", m->tag);
        json_i64(f, "rpeer", m->rpeer);
        json_i64(f, "rtag", m->rtag);
        json_i64(f, "st_source", m->st_source);
        json_i64(f, "st_tag", m->st_tag);
        json_u64(f, "st_bytes", m->st_bytes);
        json_u64(f, "request", m->request);
        json_u64(f, "seq", m->seq);
        json_u64(f, "rseq", m->rseq);
        json_i64(f, "count", m->count);
        json_u64(f, "datatype_size", m->datatype);
        json_u64(f, "comm_size", m->comm_size);
        fputs(",\"op\":", f);
        search_json_string(f, m->op ? trace_mpi_op_name(m->op) : "");
        fputs(",\"completed\":[", f);
        for (uint32_t i = 0; i < ev->ncomplete; i++) {
            const struct cht_rec_complete *c = ev->complete[i];
            /* "cancelled" only when true, last: older readers of this output see no change */
            fprintf(f, "%s{\"request\":%" PRIu64 ",\"recv\":%s,\"st_source\":%d,\"st_tag\":%d,"
                       "\"st_bytes\":%" PRIu64 ",\"rseq\":%" PRIu64 "%s}",
                    i ? "," : "", c->request, (c->h.aux & CHT_COMPLETE_RECV) ? "true" : "false",
                    c->st_source, c->st_tag, c->st_bytes, c->rseq,
                    (c->h.aux & CHT_COMPLETE_CANCELLED) ? ",\"cancelled\":true" : "");
        }
        fputc(']', f);
        for (int s = 0; s < 2; s++) {
            if (!ev->blocks[s])
                continue;
            const struct cht_block *bl = (const struct cht_block *)(ev->blocks[s] + 1);
            fprintf(f, ",\"%s\":[", s ? "rblocks" : "sblocks");
            for (uint32_t i = 0; i < ev->blocks[s]->count; i++)
                fprintf(f, "%s[%" PRId64 ",%" PRIu64 "]", i ? "," : "", bl[i].offset, bl[i].bytes);
            fputc(']', f);
        }
        if (ev->newcomm) {
            const struct cht_rec_comm *nc = ev->newcomm;
            const int32_t *ranks = (const int32_t *)(nc + 1);
            fprintf(f, ",\"newcomm\":{\"id\":%" PRIu64 ",\"parent\":%" PRIu64 ",\"size\":%u,\"my_rank\":%d,\"members\":[",
                    nc->comm, nc->parent, nc->size, nc->my_rank);
            for (uint32_t i = 0; i < nc->size + nc->remote_size; i++)
                fprintf(f, "%s%d", i ? "," : "", ranks[i]);
            fputs("]}", f);
        }
    }
    if (w.symbolized && w.loc.nframes > 1) {
        fputs(",\"inlined_at\":[", f);
        for (unsigned i = 1; i < w.loc.nframes; i++) {
            fprintf(f, "%s{\"file\":", i > 1 ? "," : "");
            search_json_string(f, search_display_path(w.loc.frames[i].file, o->stable));
            fprintf(f, ",\"line\":%u,\"col\":%u}", w.loc.frames[i].line, w.loc.frames[i].col);
        }
        fputc(']', f);
    }
    fputs("}\n", f);
}

/* Dumps one rank; returns CLI_OK, or CLI_ERROR after printing why. */
static int dump_rank(struct trace *t, int rank, const struct dump_opts *o)
{
    struct trace_err err;
    struct trace_cursor *cur;
    int rc = trace_cursor_open(t, rank, o->loops ? TRACE_CURSOR_LOOPS : 0, &cur, &err);
    if (rc < 0)
        return cli_error("%s", err.msg);
    const struct trace_event *ev;
    uint64_t t0 = 0;
    while ((rc = trace_cursor_next(cur, &ev)) == 1) {
        if (ev->kind == TRACE_EV_MPI && !t0)
            t0 = ev->mpi->t_enter;
        if (o->json)
            json_event(stdout, cur, ev, o);
        else
            text_event(stdout, cur, ev, o, t0);
    }
    int ret = CLI_OK;
    if (rc < 0)
        ret = cli_error("%s", trace_cursor_error(cur));
    else if (trace_cursor_cut_short(cur))
        cli_warn("rank %d was cut short; events up to there were shown: %s", rank, trace_cursor_error(cur));
    trace_cursor_close(cur);
    return ret;
}

int cmd_dump(int argc, char **argv)
{
    static const struct option opts[] = {
        {"rank", required_argument, NULL, 'r'},
        {"format", required_argument, NULL, 'f'},
        {"loops", no_argument, NULL, 'l'},
        {"stable", no_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    static const char *const formats[] = {"text", "json", NULL};
    struct dump_opts o = {0};
    long rank = -1;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":r:h", opts, NULL)) != -1) {
        switch (c) {
        case 'r': {
            unsigned long v;
            if (!cli_parse_uint(optarg, &v) || v > 10000000)
                return cli_usage_error("dump", "--rank needs a rank number, not '%s'", optarg);
            rank = (long)v;
            break;
        }
        case 'f': {
            int i = cli_parse_format("dump", optarg, formats);
            if (i < 0)
                return CLI_USAGE;
            o.json = i == 1;
            break;
        }
        case 'l': o.loops = true; break;
        case 's': o.stable = true; break;
        case 'h': dump_help(); return CLI_OK;
        case ':':
            return cli_usage_error("dump", "option '%s' needs a value", argv[optind - 1]);
        default:
            return cli_usage_error("dump", "unknown option '%s'", argv[optind - 1]);
        }
    }
    const char *dir;
    if (cli_trace_dir_arg("dump", argc, argv, optind, &dir) != CLI_OK)
        return CLI_USAGE;
    struct trace *t;
    struct trace_err err;
    if (trace_open(dir, &t, &err) < 0)
        return cli_error("%s", err.msg);
    cli_warn_meta_cut(t);
    int n = trace_world_size(t), ret = CLI_OK;
    if (rank >= 0 && rank >= n) {
        trace_close(t);
        return cli_error("no such rank in this trace: rank=%ld world_size=%d", rank, n);
    }
    for (int r = rank >= 0 ? (int)rank : 0; r < (rank >= 0 ? (int)rank + 1 : n); r++) {
        if (!trace_has_rank(t, r)) {
            cli_warn("rank %d has no stream file and is skipped: file=%s", r, trace_rank_path(t, r));
            continue;
        }
        if (dump_rank(t, r, &o) != CLI_OK)
            ret = CLI_ERROR;
    }
    trace_close(t);
    return ret;
}
