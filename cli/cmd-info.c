/* cmd-info.c - `commhint info DIR [--format=text|json]`: what a trace holds:
 * ranks, events by kind and MPI call, bytes on disk and per event and per
 * memory access, duration, and which ranks were cut short. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "search.h"
#include "trace-reader.h"

static void info_help(void)
{
    printf("usage: commhint info DIR [--format=text|json] [--expand-runs]\n\n"
           "Summarises the trace in DIR: program, ranks, events by kind and by MPI call,\n"
           "bytes on disk (per event and per traced memory access), duration, and which\n"
           "ranks were cut short (died or were killed before a clean exit).\n"
           "Repeated records are counted without being expanded, so the time is linear in\n"
           "the records; --expand-runs walks every event instead (the same figures; to time\n"
           "the reader, as bench/analysis.sh does).\n"
           "Exit status 1 if a rank's stream is damaged (the others are still summarised);\n"
           "a rank missing or cut short is reported with a warning (docs/reliability.md).\n");
}

/* Calls recorded as untraced (CHT_MPI_UNTRACED), by function name; the
 * names past UNTRACED_NAMES are counted under "others". */
#define UNTRACED_NAMES 32
struct untraced {
    struct {
        char name[CHT_CALLNAME_MAX + 1];
        uint64_t n;
    } by[UNTRACED_NAMES];
    int nnames;
    uint64_t others;
};

static void untraced_add(struct untraced *u, const char *name, uint64_t n)
{
    for (int i = 0; i < u->nnames; i++)
        if (strcmp(u->by[i].name, name) == 0) {
            u->by[i].n += n;
            return;
        }
    if (u->nnames == UNTRACED_NAMES) {
        u->others += n;
        return;
    }
    snprintf(u->by[u->nnames].name, sizeof u->by[0].name, "%s", name);
    u->by[u->nnames++].n = n;
}

/* A JSON object of the calls by name. */
static void json_by_name(const struct untraced *u)
{
    printf("{");
    for (int i = 0; i < u->nnames; i++) {
        printf("%s", i ? "," : "");
        search_json_string(stdout, u->by[i].name);
        printf(":%" PRIu64, u->by[i].n);
    }
    if (u->others)
        printf("%s\"others\":%" PRIu64, u->nnames ? "," : "", u->others);
    printf("}");
}

/* The calls by name, " name=n" each, and the line's end. */
static void text_by_name(const struct untraced *u)
{
    for (int i = 0; i < u->nnames; i++)
        printf(" %s=%" PRIu64, u->by[i].name, u->by[i].n);
    if (u->others)
        printf(" others=%" PRIu64, u->others);
    printf("\n");
}

struct rank_info {
    /* clocks: the clock reads (CHT_MPI_CLOCK); externs: the calls into code
     * built without the pass (CHT_MPI_EXTERN) */
    struct untraced untraced, clocks, externs;
    bool present;
    bool damaged;
    bool cut_short;
    char why[512];
    uint64_t file_bytes;
    /* per call id and variant: bit 0 large count (_c), bit 1 a start of a
     * persistent request (MPI_Start(MPI_Send_init)) */
    uint64_t calls[CHT_MPI_CALL_MAX + 1][4];
    uint64_t cpu_calls; /* calls with the thread's CPU time (an oversubscribed host) */
    struct trace_cursor_stats st;
};

static uint64_t file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
}

static int variant_of(uint32_t flags)
{
    return (flags & CHT_MPIF_LARGE_COUNT ? 1 : 0) | (flags & CHT_MPIF_STARTED ? 2 : 0);
}

/* The label of call k in variant v ("MPI_Send_c", "MPI_Start(MPI_Send_init)"). */
static const char *call_label(int k, int v, char *buf, size_t n)
{
    uint32_t flags = (v & 1 ? CHT_MPIF_LARGE_COUNT : 0) | (v & 2 ? CHT_MPIF_STARTED : 0);
    return trace_mpi_call_label(k, flags, buf, n);
}

static void scan_rank(struct trace *t, int rank, bool expand, struct rank_info *ri)
{
    memset(ri, 0, sizeof *ri);
    ri->st.exit_status = -1;
    if (!trace_has_rank(t, rank)) {
        snprintf(ri->why, sizeof ri->why, "no stream file: file=%s", trace_rank_path(t, rank));
        return;
    }
    ri->present = true;
    ri->file_bytes = trace_rank_file_size(t, rank);
    struct trace_cursor *cur;
    struct trace_err err;
    /* runs: a REPEAT record costs its period, not its count (the counts
     * come out the same: the cursor adds a run's events to its statistics) */
    if (trace_cursor_open(t, rank, expand ? TRACE_CURSOR_LOOPS : TRACE_CURSOR_RUNS, &cur, &err) < 0) {
        ri->damaged = true;
        snprintf(ri->why, sizeof ri->why, "%s", err.msg);
        return;
    }
    const struct trace_event *ev;
    const struct trace_run *run;
    int rc;
    while ((rc = trace_cursor_next_run(cur, &ev, &run)) > 0)
        if (!run && ev->kind == TRACE_EV_MPI && ev->mpi->h.aux <= CHT_MPI_CALL_MAX) {
            /* clock reads and calls into uninstrumented code are counted
             * apart from the MPI calls */
            int call = trace_event_call(ev);
            bool apart = call == CHT_MPI_CLOCK || call == CHT_MPI_EXTERN;
            ri->calls[apart ? call : ev->mpi->h.aux][apart ? 0 : variant_of(ev->mpi->flags)]++;
            ri->cpu_calls += ev->cpu_exit != 0;
            if (ev->mpi->h.aux == CHT_MPI_UNTRACED)
                untraced_add(call == CHT_MPI_CLOCK    ? &ri->clocks
                             : call == CHT_MPI_EXTERN ? &ri->externs
                                                      : &ri->untraced,
                             ev->call_name ? ev->call_name : "?", 1);
        }
    trace_cursor_stats(cur, &ri->st);
    if (rc < 0) {
        ri->damaged = true;
        snprintf(ri->why, sizeof ri->why, "%s", trace_cursor_error(cur));
    } else if (trace_cursor_cut_short(cur)) {
        ri->cut_short = true;
        snprintf(ri->why, sizeof ri->why, "%s", trace_cursor_error(cur));
    }
    trace_cursor_close(cur);
}

/* The hosts of the run (from the MPI_Init clock samples): how many, the
 * most ranks of the trace on one, the fewest CPUs a rank had, and whether
 * a host had more ranks than CPUs.  0 hosts: no rank says (a trace before
 * version 5). */
struct hosts {
    int n, most;
    uint32_t cpus;
    bool over;
};

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static struct hosts hosts_of(const struct rank_info *ri, int n)
{
    struct hosts h = {0, 0, 0, false};
    uint32_t *id = malloc((n > 0 ? (size_t)n : 1) * sizeof *id);
    if (!id)
        return h;
    int k = 0;
    for (int r = 0; r < n; r++) {
        const struct trace_cursor_stats *s = &ri[r].st;
        if (!s->host.host_id)
            continue;
        id[k++] = s->host.host_id;
        if (s->host.cpus && (!h.cpus || s->host.cpus < h.cpus))
            h.cpus = s->host.cpus;
    }
    qsort(id, (size_t)k, sizeof *id, u32_cmp);
    for (int i = 0, j; i < k; i = j) {
        for (j = i; j < k && id[j] == id[i]; j++)
            ;
        h.n++;
        if (j - i > h.most)
            h.most = j - i;
        for (int r = 0; r < n; r++) /* the host's ranks: more than its CPUs? */
            if (ri[r].st.host.host_id == id[i] && ri[r].st.host.cpus && (uint32_t)(j - i) > ri[r].st.host.cpus)
                h.over = true;
    }
    free(id);
    return h;
}

/* "missing", "damaged", "cut-short" or "complete"; with spaced, "cut short"
 * (for text). */
static const char *rank_status(const struct rank_info *ri, bool spaced)
{
    if (!ri->present)
        return "missing";
    if (ri->damaged)
        return "damaged";
    if (ri->cut_short)
        return spaced ? "cut short" : "cut-short";
    return "complete";
}

static double ratio(uint64_t a, uint64_t b) { return b ? (double)a / (double)b : 0.0; }

int cmd_info(int argc, char **argv)
{
    static const struct option opts[] = {
        {"format", required_argument, NULL, 'f'},
        {"expand-runs", no_argument, NULL, 'x'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    static const char *const formats[] = {"text", "json", NULL};
    bool json = false, expand = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'f': {
            int i = cli_parse_format("info", optarg, formats);
            if (i < 0)
                return CLI_USAGE;
            json = i == 1;
            break;
        }
        case 'x': expand = true; break;
        case 'h': info_help(); return CLI_OK;
        case ':':
            return cli_usage_error("info", "option '%s' needs a value", argv[optind - 1]);
        default:
            return cli_usage_error("info", "unknown option '%s'", argv[optind - 1]);
        }
    }
    const char *dir;
    if (cli_trace_dir_arg("info", argc, argv, optind, &dir) != CLI_OK)
        return CLI_USAGE;

    struct trace *t;
    struct trace_err err;
    if (trace_open(dir, &t, &err) < 0)
        return cli_error("%s", err.msg);
    cli_warn_meta_cut(t);
    int n = trace_world_size(t);
    struct rank_info *ri = calloc(n > 0 ? (size_t)n : 1, sizeof *ri);
    if (!ri) {
        trace_close(t);
        return cli_error("out of memory");
    }
    struct rank_info tot;
    memset(&tot, 0, sizeof tot);
    char meta_path[4096];
    snprintf(meta_path, sizeof meta_path, "%s/%s", trace_dir(t), CHT_META_FILE);
    uint64_t meta_bytes = file_size(meta_path), t_first = 0, t_last = 0;
    int damaged = 0, cut = 0, missing = 0;
    double max_dur = 0;
    for (int r = 0; r < n; r++) {
        scan_rank(t, r, expand, &ri[r]);
        struct trace_cursor_stats *s = &ri[r].st;
        tot.file_bytes += ri[r].file_bytes;
        tot.st.comp_events += s->comp_events;
        tot.st.mpi_events += s->mpi_events;
        tot.st.loop_records += s->loop_records;
        tot.st.accesses += s->accesses;
        tot.st.lost_records += s->lost_records;
        tot.st.bytes_raw += s->bytes_raw;
        for (int k = 0; k <= CHT_MPI_CALL_MAX; k++)
            for (int v = 0; v < 4; v++)
                tot.calls[k][v] += ri[r].calls[k][v];
        for (int i = 0; i < ri[r].untraced.nnames; i++)
            untraced_add(&tot.untraced, ri[r].untraced.by[i].name, ri[r].untraced.by[i].n);
        tot.untraced.others += ri[r].untraced.others;
        for (int i = 0; i < ri[r].clocks.nnames; i++)
            untraced_add(&tot.clocks, ri[r].clocks.by[i].name, ri[r].clocks.by[i].n);
        tot.clocks.others += ri[r].clocks.others;
        for (int i = 0; i < ri[r].externs.nnames; i++)
            untraced_add(&tot.externs, ri[r].externs.by[i].name, ri[r].externs.by[i].n);
        tot.externs.others += ri[r].externs.others;
        damaged += ri[r].damaged;
        cut += ri[r].cut_short;
        missing += !ri[r].present;
        if (s->t_first && s->t_last > s->t_first) {
            double d = (double)(s->t_last - s->t_first) / 1e9;
            if (d > max_dur)
                max_dur = d;
            if (!t_first || s->t_first < t_first)
                t_first = s->t_first;
            if (s->t_last > t_last)
                t_last = s->t_last;
        }
    }
    uint64_t events = tot.st.comp_events + tot.st.mpi_events;
    uint64_t disk = tot.file_bytes + meta_bytes;
    struct hosts hs = hosts_of(ri, n);
    for (int r = 0; r < n; r++)
        tot.cpu_calls += ri[r].cpu_calls;

    if (json) {
        printf("{\"dir\":");
        search_json_string(stdout, trace_dir(t));
        printf(",\"program\":");
        search_json_string(stdout, trace_program(t));
        printf(",\"world_size\":%d,\"run_id\":\"0x%016" PRIx64 "\",\"events\":%" PRIu64
               ",\"comp_events\":%" PRIu64 ",\"mpi_events\":%" PRIu64 ",\"loop_records\":%" PRIu64
               ",\"accesses\":%" PRIu64 ",\"bytes_on_disk\":%" PRIu64 ",\"meta_bytes\":%" PRIu64
               ",\"bytes_raw\":%" PRIu64 ",\"bytes_per_event\":%.3f,\"bytes_per_access\":%.3f"
               ",\"duration_s\":%.6f,\"lost_records\":%" PRIu64 ",\"hosts\":%d,\"oversubscribed\":%s"
               ",\"cpu_time_calls\":%" PRIu64 ",\"mpi_calls\":{",
               n, trace_run_id(t), events, tot.st.comp_events, tot.st.mpi_events, tot.st.loop_records,
               tot.st.accesses, disk, meta_bytes, tot.st.bytes_raw, ratio(disk, events),
               ratio(disk, tot.st.accesses), max_dur, tot.st.lost_records, hs.n, hs.over ? "true" : "false",
               tot.cpu_calls);
        bool first = true;
        char lb[80];
        for (int k = 0; k <= CHT_MPI_CALL_MAX; k++)
            for (int v = 0; v < 4; v++)
                if (tot.calls[k][v] && k != CHT_MPI_CLOCK && k != CHT_MPI_EXTERN) {
                    printf("%s\"%s\":%" PRIu64, first ? "" : ",", call_label(k, v, lb, sizeof lb),
                           tot.calls[k][v]);
                    first = false;
                }
        printf("},\"untraced_mpi_calls\":");
        json_by_name(&tot.untraced);
        printf(",\"clock_reads\":");
        json_by_name(&tot.clocks);
        printf(",\"uninstrumented_calls\":");
        json_by_name(&tot.externs);
        printf(",\"ranks\":[");
        for (int r = 0; r < n; r++) {
            struct trace_cursor_stats *s = &ri[r].st;
            printf("%s{\"rank\":%d,\"present\":%s,\"status\":\"%s\",\"comp_events\":%" PRIu64
                   ",\"mpi_events\":%" PRIu64 ",\"loop_records\":%" PRIu64 ",\"accesses\":%" PRIu64
                   ",\"bytes_on_disk\":%" PRIu64 ",\"threads\":%u,\"chunks\":%" PRIu64 ",\"exit_status\":%d"
                   ",\"cpus\":%u,\"host_ranks\":%u,\"host_id\":%u,\"why\":",
                   r ? "," : "", r, ri[r].present ? "true" : "false",
                   rank_status(&ri[r], false),
                   s->comp_events, s->mpi_events, s->loop_records, s->accesses, ri[r].file_bytes,
                   s->threads, s->chunks, s->exit_status, s->host.cpus, s->host.node_ranks,
                   s->host.host_id);
            search_json_string(stdout, ri[r].why);
            printf("}");
        }
        printf("]}\n");
    } else {
        printf("trace:            %s\n", trace_dir(t));
        printf("program:          %s", trace_program(t));
        for (int i = 1; i < trace_argc(t); i++)
            printf(" %s", trace_argv(t, i));
        printf("\nranks:            %d\n", n);
        printf("run id:           0x%016" PRIx64 "\n", trace_run_id(t));
        printf("duration:         %.6f s (longest rank, first to last MPI call)\n", max_dur);
        if (hs.n)
            printf("hosts:            %d, up to %d rank%s on one with %u CPU%s%s\n", hs.n, hs.most,
                   hs.most == 1 ? "" : "s", hs.cpus, hs.cpus == 1 ? "" : "s",
                   hs.over ? ": oversubscribed (calls recorded their CPU time, the replay shares the CPUs)"
                           : "");
        printf("events:           %" PRIu64 " (computation %" PRIu64 ", MPI %" PRIu64 "), loop records %" PRIu64 "\n",
               events, tot.st.comp_events, tot.st.mpi_events, tot.st.loop_records);
        printf("memory accesses:  %" PRIu64 "\n", tot.st.accesses);
        printf("bytes on disk:    %" PRIu64 " (meta %" PRIu64 ", uncompressed records %" PRIu64 ")\n", disk,
               meta_bytes, tot.st.bytes_raw);
        printf("bytes per event:  %.2f\n", ratio(disk, events));
        printf("bytes per access: %.2f\n", ratio(disk, tot.st.accesses));
        if (tot.st.lost_records)
            printf("lost records:     %" PRIu64 " (the writer dropped them)\n", tot.st.lost_records);
        printf("MPI calls:       ");
        bool any = false;
        char lb[80];
        for (int k = 0; k <= CHT_MPI_CALL_MAX; k++)
            for (int v = 0; v < 4; v++)
                if (tot.calls[k][v] && k != CHT_MPI_CLOCK && k != CHT_MPI_EXTERN) {
                    printf(" %s=%" PRIu64, call_label(k, v, lb, sizeof lb), tot.calls[k][v]);
                    any = true;
                }
        printf("%s\n", any ? "" : " none");
        if (tot.calls[CHT_MPI_UNTRACED][0]) {
            printf("untraced MPI:     %" PRIu64 " calls no wrapper records (fences for the analysis:\n"
                   "                  nothing moves across them):",
                   tot.calls[CHT_MPI_UNTRACED][0]);
            text_by_name(&tot.untraced);
        }
        if (tot.calls[CHT_MPI_CLOCK][0]) {
            printf("clock reads:      %" PRIu64 " (fences for the analysis: no MPI call moves across\n"
                   "                  what the program times):",
                   tot.calls[CHT_MPI_CLOCK][0]);
            text_by_name(&tot.clocks);
        }
        if (tot.calls[CHT_MPI_EXTERN][0]) {
            printf("uninstrumented:   %" PRIu64 " calls into code built without the pass, handed the\n"
                   "                  program's memory (fences for the analysis):",
                   tot.calls[CHT_MPI_EXTERN][0]);
            text_by_name(&tot.externs);
        }
        printf("\n");
        printf("%5s %12s %10s %8s %12s %12s %8s  %s\n", "rank", "computation", "MPI", "threads",
               "bytes", "bytes/event", "exit", "status");
        for (int r = 0; r < n; r++) {
            struct trace_cursor_stats *s = &ri[r].st;
            uint64_t ev = s->comp_events + s->mpi_events;
            char ex[16] = "-";
            if (s->exit_status >= 0)
                snprintf(ex, sizeof ex, "%d", s->exit_status);
            printf("%5d %12" PRIu64 " %10" PRIu64 " %8u %12" PRIu64 " %12.2f %8s  %s\n", r, s->comp_events,
                   s->mpi_events, s->threads, ri[r].file_bytes, ratio(ri[r].file_bytes, ev), ex,
                   rank_status(&ri[r], true));
        }
        if (cut + damaged + missing == 0)
            printf("\ncut short:        none (every rank ended cleanly)\n");
        else {
            printf("\n");
            for (int r = 0; r < n; r++)
                if (ri[r].why[0])
                    printf("rank %d %s: %s\n", r,
                           rank_status(&ri[r], true), ri[r].why);
        }
    }
    for (int r = 0; r < n; r++) {
        if (!ri[r].present)
            cli_warn("rank %d has no stream file: file=%s", r, trace_rank_path(t, r));
        else if (ri[r].cut_short)
            cli_warn("rank %d was cut short; summarising what it recorded: %s", r, ri[r].why);
        else if (ri[r].damaged)
            cli_error("%s", ri[r].why);
    }
    free(ri);
    trace_close(t);
    return damaged ? CLI_ERROR : CLI_OK;
}
