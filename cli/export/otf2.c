/* otf2.c - `commhint export --format=otf2 -o DIR`: the MPI timeline of a
 * trace as an OTF2 archive (libotf2), for Vampir and Scalasca
 * (docs/export.md, "OTF2").
 *
 * The archive is DIR/traces.otf2 (anchor), DIR/traces.def (global
 * definitions), DIR/traces.marker (the hints) and DIR/traces/ (one event
 * and one local definition file per location).  Per world rank one
 * location (a thread of a location group that is the MPI rank's process,
 * under one system tree node); its events:
 *   - a root region named after the program, from the rank's first MPI
 *     call's entry to its last's exit: its own time is the computation
 *     between the calls;
 *   - per MPI call Enter/Leave of a region per (MPI function, call site),
 *     named after the function, with the site's file and line;
 *   - in it the MPI events OTF2 readers and Scalasca expect: MpiSend at the
 *     entry of a blocking send (and of a Sendrecv), MpiRecv at the exit of
 *     a blocking receive; MpiIsend at the entry of a nonblocking send and
 *     MpiIsendComplete at the exit of the Wait/Test that completed it;
 *     MpiIrecvRequest at the entry of an MPI_Irecv and MpiIrecv at the exit
 *     of the call that completed it; MpiCollectiveBegin/End around a
 *     blocking collective.
 * The analysis gives the calls, their messages and collectives; the
 * pairing of a nonblocking call with the call that completed it is the
 * request id the runtime recorded, and the members of the communicators
 * are those recorded at their creation: both are read from the rank's log
 * with a cursor walked alongside the calls (trace_event.index =
 * search_call.index).
 *
 * Peers, roots and members in OTF2 are ranks in the communicator (the
 * analysis gives world ranks, translated through the communicator's
 * members).  Sends to and receives from MPI_PROC_NULL (or an unknown peer)
 * moved no message and have no message event.  Times are ns on the
 * analysis' common clock from the earliest call, clamped so that a
 * location's times never decrease.
 *
 * Hints are markers (traces.marker): a marker definition per (hint kind,
 * severity class), a marker per (hint, rank it holds on) over the first
 * call of its call site there, scoped to that rank's location. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <otf2/otf2.h>

#include "../cli.h"
#include "export.h"
#include "search.h"

/* The archive's name in DIR, and what makes it ours: the creator. */
#define ARCHIVE_NAME "traces"
#define CREATOR "commhint export 0.1.0"

/* A string definition. */
struct ostr {
    char *s;
    OTF2_StringRef ref;
};

/* A region: an MPI function at a call site, or the root. */
struct oregion {
    uint16_t call;
    OTF2_StringRef name, file, descr;
    uint32_t line;
    int role;
    bool root;
};

/* A communicator as the trace names it, and its members (world ranks). */
struct ocomm {
    uint64_t id, parent;
    uint32_t nmembers;
    int32_t *members; /* NULL: not recorded */
};

/* A rank's nonblocking requests (index: request id): the communicator of
 * the Isend/Irecv and whether its start was written. */
struct oreq {
    uint32_t comm;   /* index in comms */
    uint8_t written; /* 1 Isend, 2 Irecv written */
};

struct otf2 {
    OTF2_Archive *ar;
    char errmsg[512]; /* libotf2's first error */
    struct ostr *strs;
    uint32_t nstrs, capstrs;
    uint32_t *strhash; /* open addressing: index + 1 into strs */
    uint32_t hashcap;
    struct oregion *regions;
    uint32_t nregions, capregions;
    struct ocomm *comms;
    uint32_t ncomms, capcomms;
    struct oreq *reqs;
    uint64_t capreqs;
    uint64_t *nevents; /* per location */
    OTF2_EvtWriter *w; /* the rank being written */
    int rank;
    uint64_t last; /* its latest time */
    bool oom;
    uint64_t offset; /* the clock's global offset, added to every time */
    bool failed;     /* libotf2 reported an error (errmsg): its calls' results need no check each */
};

static struct otf2 *o2(const struct xport *x)
{
    return x->out;
}

/* ---- the output directory ------------------------------------------------------- */

/* True if path is an OTF2 anchor file written by commhint export. */
static bool ours(const char *path)
{
    FILE *f = fopen(path, "rb");
    char buf[8192];
    size_t n;
    if (!f)
        return false;
    n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    return memmem(buf, n, CREATOR, strlen(CREATOR)) != NULL;
}

/* Removes DIR/traces/'s files (N.evt, N.def): false if it holds anything
 * else. */
static bool remove_locations(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/" ARCHIVE_NAME, dir);
    DIR *d = opendir(path);
    if (!d)
        return errno == ENOENT;
    struct dirent *e;
    bool ok = true;
    while (ok && (e = readdir(d))) {
        const char *dot = strrchr(e->d_name, '.');
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (!dot || (strcmp(dot, ".evt") && strcmp(dot, ".def")) ||
            strspn(e->d_name, "0123456789") != (size_t)(dot - e->d_name)) {
            ok = false;
            break;
        }
        char f[4096 + 256];
        snprintf(f, sizeof f, "%s/%s", path, e->d_name);
        ok = unlink(f) == 0;
    }
    closedir(d);
    return ok && rmdir(path) == 0;
}

/* DIR for a new archive: created if missing; an empty directory; or one
 * holding only an archive written by commhint export, which is removed. */
static int prepare_dir(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) < 0) {
        if (errno == ENOENT && mkdir(dir, 0777) == 0)
            return CLI_OK;
        return cli_error("cannot create the OTF2 archive's directory: dir=%s reason=%s", dir,
                         strerror(errno));
    }
    if (!S_ISDIR(st.st_mode))
        return cli_error("the OTF2 output must be a directory, and this is not one: dir=%s", dir);
    DIR *d = opendir(dir);
    if (!d)
        return cli_error("cannot read the OTF2 archive's directory: dir=%s reason=%s", dir, strerror(errno));
    struct dirent *e;
    bool any = false, other = false;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        any = true;
        if (strcmp(e->d_name, ARCHIVE_NAME ".otf2") && strcmp(e->d_name, ARCHIVE_NAME ".def") &&
            strcmp(e->d_name, ARCHIVE_NAME ".marker") && strcmp(e->d_name, ARCHIVE_NAME))
            other = true;
    }
    closedir(d);
    if (!any)
        return CLI_OK;
    char path[4096];
    snprintf(path, sizeof path, "%s/" ARCHIVE_NAME ".otf2", dir);
    if (other || !ours(path))
        return cli_error("refusing to write into a directory that is not empty and not an OTF2 archive of "
                         "commhint export: dir=%s",
                         dir);
    /* an earlier export: replaced (its locations first, which may hold
     * what is not ours) */
    errno = 0;
    if (!remove_locations(dir))
        return cli_error("cannot replace the OTF2 archive: dir=%s/" ARCHIVE_NAME " reason=%s", dir,
                         errno ? strerror(errno) : "it holds other files");
    static const char *const files[] = {ARCHIVE_NAME ".otf2", ARCHIVE_NAME ".def", ARCHIVE_NAME ".marker"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        if (unlink(path) < 0 && errno != ENOENT)
            return cli_error("cannot replace the OTF2 archive: file=%s reason=%s", path, strerror(errno));
    }
    return CLI_OK;
}

/* ---- definitions ------------------------------------------------------------------ */

static uint32_t str_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

static bool grow(void *pp, uint32_t *cap, uint32_t n, size_t size)
{
    if (n < *cap)
        return true;
    uint32_t nc = *cap ? *cap * 2 : 64;
    void *p = realloc(*(void **)pp, (size_t)nc * size);
    if (!p)
        return false;
    *(void **)pp = p;
    *cap = nc;
    return true;
}

/* The string definition of s (made once). */
static OTF2_StringRef str_ref(struct otf2 *o, const char *s)
{
    if (o->nstrs * 2 >= o->hashcap) {
        uint32_t nc = o->hashcap ? o->hashcap * 2 : 256;
        uint32_t *h = calloc(nc, sizeof *h);
        if (!h) {
            o->oom = true;
            return 0;
        }
        for (uint32_t i = 0; i < o->nstrs; i++) {
            uint32_t k = str_hash(o->strs[i].s) & (nc - 1);
            while (h[k])
                k = (k + 1) & (nc - 1);
            h[k] = i + 1;
        }
        free(o->strhash);
        o->strhash = h;
        o->hashcap = nc;
    }
    uint32_t k = str_hash(s) & (o->hashcap - 1);
    for (; o->strhash[k]; k = (k + 1) & (o->hashcap - 1))
        if (!strcmp(o->strs[o->strhash[k] - 1].s, s))
            return o->strs[o->strhash[k] - 1].ref;
    char *dup = strdup(s);
    if (!dup || !grow(&o->strs, &o->capstrs, o->nstrs, sizeof *o->strs)) {
        free(dup);
        o->oom = true;
        return 0;
    }
    o->strs[o->nstrs] = (struct ostr){dup, o->nstrs};
    o->strhash[k] = ++o->nstrs;
    return o->nstrs - 1;
}

static OTF2_RegionRole region_role(uint16_t call)
{
    switch (call) {
    case CHT_MPI_BARRIER: return OTF2_REGION_ROLE_BARRIER;
    case CHT_MPI_BCAST:
    case CHT_MPI_SCATTER:
    case CHT_MPI_SCATTERV: return OTF2_REGION_ROLE_COLL_ONE2ALL;
    case CHT_MPI_REDUCE:
    case CHT_MPI_GATHER:
    case CHT_MPI_GATHERV: return OTF2_REGION_ROLE_COLL_ALL2ONE;
    case CHT_MPI_ALLREDUCE:
    case CHT_MPI_ALLGATHER:
    case CHT_MPI_ALLGATHERV:
    case CHT_MPI_ALLTOALL:
    case CHT_MPI_ALLTOALLV:
    case CHT_MPI_ALLTOALLW:
    case CHT_MPI_REDUCE_SCATTER:
    case CHT_MPI_REDUCE_SCATTER_BLOCK: return OTF2_REGION_ROLE_COLL_ALL2ALL;
    case CHT_MPI_SCAN:
    case CHT_MPI_EXSCAN: return OTF2_REGION_ROLE_COLL_OTHER;
    }
    switch (search_call_class_of(call)) {
    case SEARCH_CALL_SEND:
    case SEARCH_CALL_RECV:
    case SEARCH_CALL_WAIT: return OTF2_REGION_ROLE_POINT2POINT;
    case SEARCH_CALL_COLL: return OTF2_REGION_ROLE_COLL_OTHER;
    default: return OTF2_REGION_ROLE_FUNCTION;
    }
}

/* The collective operation of a blocking collective; -1 for other calls
 * (a nonblocking collective is only its region: OTF2's events for it
 * need the request's completion, which the analysis does not give). */
static int coll_op(uint16_t call)
{
    switch (call) {
    case CHT_MPI_BARRIER: return OTF2_COLLECTIVE_OP_BARRIER;
    case CHT_MPI_BCAST: return OTF2_COLLECTIVE_OP_BCAST;
    case CHT_MPI_GATHER: return OTF2_COLLECTIVE_OP_GATHER;
    case CHT_MPI_GATHERV: return OTF2_COLLECTIVE_OP_GATHERV;
    case CHT_MPI_SCATTER: return OTF2_COLLECTIVE_OP_SCATTER;
    case CHT_MPI_SCATTERV: return OTF2_COLLECTIVE_OP_SCATTERV;
    case CHT_MPI_ALLGATHER: return OTF2_COLLECTIVE_OP_ALLGATHER;
    case CHT_MPI_ALLGATHERV: return OTF2_COLLECTIVE_OP_ALLGATHERV;
    case CHT_MPI_ALLTOALL: return OTF2_COLLECTIVE_OP_ALLTOALL;
    case CHT_MPI_ALLTOALLV: return OTF2_COLLECTIVE_OP_ALLTOALLV;
    case CHT_MPI_ALLTOALLW: return OTF2_COLLECTIVE_OP_ALLTOALLW;
    case CHT_MPI_ALLREDUCE: return OTF2_COLLECTIVE_OP_ALLREDUCE;
    case CHT_MPI_REDUCE: return OTF2_COLLECTIVE_OP_REDUCE;
    case CHT_MPI_REDUCE_SCATTER: return OTF2_COLLECTIVE_OP_REDUCE_SCATTER;
    case CHT_MPI_REDUCE_SCATTER_BLOCK: return OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK;
    case CHT_MPI_SCAN: return OTF2_COLLECTIVE_OP_SCAN;
    case CHT_MPI_EXSCAN: return OTF2_COLLECTIVE_OP_EXSCAN;
    default: return -1;
    }
}

/* The region of an MPI call at its site: one per (function, file, line,
 * column, enclosing function), whatever the site ids of the ranks. */
static OTF2_RegionRef region_of(const struct xport *x, const struct search_call *c)
{
    struct otf2 *o = o2(x);
    const struct trace_site_info *si = c->info;
    const char *name = trace_mpi_call_name(c->call);
    bool known = si && si->file && *si->file;
    const char *file = known ? search_display_path(si->file, true) : "";
    char descr[4096];
    if (known)
        snprintf(descr, sizeof descr, "%s at %s:%u:%u%s%s", name, file, si->line, si->col,
                 si->func && *si->func ? " in " : "", si->func ? si->func : "");
    else
        snprintf(descr, sizeof descr, "%s at an unknown location", name);
    OTF2_StringRef dref = str_ref(o, descr);
    for (uint32_t i = o->nregions; i-- > 0;)
        if (!o->regions[i].root && o->regions[i].call == c->call && o->regions[i].descr == dref)
            return i;
    if (!grow(&o->regions, &o->capregions, o->nregions, sizeof *o->regions)) {
        o->oom = true;
        return 0;
    }
    o->regions[o->nregions] = (struct oregion){.call = c->call,
                                               .name = str_ref(o, name),
                                               .file = str_ref(o, file),
                                               .descr = dref,
                                               .line = known ? si->line : 0,
                                               .role = region_role(c->call)};
    return o->nregions++;
}

/* The index of a communicator in comms (added, members unknown, if new). */
static uint32_t comm_of(struct otf2 *o, uint64_t id)
{
    for (uint32_t i = 0; i < o->ncomms; i++)
        if (o->comms[i].id == id)
            return i;
    if (!grow(&o->comms, &o->capcomms, o->ncomms, sizeof *o->comms)) {
        o->oom = true;
        return 0; /* the world */
    }
    o->comms[o->ncomms] = (struct ocomm){.id = id, .parent = CHT_COMM_UNKNOWN};
    return o->ncomms++;
}

/* Records the members of a communicator created by a call (its first
 * record; every member records the same). */
static void comm_created(struct otf2 *o, const struct cht_rec_comm *nc)
{
    struct ocomm *c = &o->comms[comm_of(o, nc->comm)];
    if (o->oom || c->members)
        return;
    const int32_t *m = (const int32_t *)(nc + 1);
    if (!(c->members = malloc((nc->size ? nc->size : 1) * sizeof *c->members))) {
        o->oom = true;
        return;
    }
    memcpy(c->members, m, nc->size * sizeof *m);
    c->nmembers = nc->size;
    c->parent = nc->parent;
}

/* A world rank as a rank of communicator k: OTF2 peers and roots are
 * those; OTF2_UNDEFINED_UINT32 if not known. */
static uint32_t comm_rank(const struct otf2 *o, uint32_t k, int world_rank)
{
    const struct ocomm *c = &o->comms[k];
    if (world_rank < 0)
        return OTF2_UNDEFINED_UINT32;
    if (c->id == CHT_COMM_WORLD)
        return (uint32_t)world_rank;
    if (c->id == CHT_COMM_SELF)
        return world_rank == o->rank ? 0 : OTF2_UNDEFINED_UINT32;
    for (uint32_t i = 0; i < c->nmembers; i++)
        if (c->members[i] == world_rank)
            return i;
    return OTF2_UNDEFINED_UINT32;
}

/* ---- events ----------------------------------------------------------------------- */

/* The time of an event: never before the location's previous one. */
static OTF2_TimeStamp at(struct otf2 *o, uint64_t t)
{
    t += o->offset;
    if (t < o->last)
        t = o->last;
    o->last = t;
    return t;
}

static struct oreq *req_slot(struct otf2 *o, uint64_t id)
{
    if (id >= o->capreqs) {
        uint64_t nc = o->capreqs ? o->capreqs : 256;
        while (nc <= id)
            nc *= 2;
        struct oreq *p = realloc(o->reqs, nc * sizeof *p);
        if (!p) {
            o->oom = true;
            return NULL;
        }
        memset(p + o->capreqs, 0, (nc - o->capreqs) * sizeof *p);
        o->reqs = p;
        o->capreqs = nc;
    }
    return &o->reqs[id];
}

/* A call's message starts, at its entry: MpiIsend for a send that started
 * a request, else MpiSend; MpiIrecvRequest for an Irecv. */
static void write_starts(struct xport *x, int rank, const struct search_call *c, const struct search_part *pt,
                         const struct cht_rec_mpi *raw, OTF2_TimeStamp t)
{
    struct otf2 *o = o2(x);
    uint32_t k = comm_of(o, c->comm);
    uint64_t req = raw ? raw->request : 0;
    for (uint32_t p = 0; p < c->nparts; p++) {
        const struct search_part *s = &pt[p];
        if (s->kind != SEARCH_PART_SEND || s->peer < 0)
            continue;
        uint32_t peer = comm_rank(o, k, s->peer);
        uint32_t tag = (uint32_t)s->tag;
        if (req) { /* Isend, Issend, ..., Start of a persistent send */
            struct oreq *r = req_slot(o, req);
            if (r)
                *r = (struct oreq){k, 1};
            OTF2_EvtWriter_MpiIsend(o->w, NULL, t, peer, k, tag, s->bytes, req);
        } else {
            OTF2_EvtWriter_MpiSend(o->w, NULL, t, peer, k, tag, s->bytes);
        }
        o->nevents[rank]++;
        if (s->match_rank >= 0 && (x->o->rank < 0 || s->match_rank == x->o->rank))
            x->flows++;
    }
    if (req && (c->call == CHT_MPI_IRECV || c->call == CHT_MPI_IMRECV) && raw->rpeer != CHT_RANK_PROC_NULL) {
        struct oreq *r = req_slot(o, req);
        if (r)
            *r = (struct oreq){k, 2};
        OTF2_EvtWriter_MpiIrecvRequest(o->w, NULL, t, req);
        o->nevents[rank]++;
    }
}

/* A call's completions and receives, at its exit, in completion order:
 * MpiIsendComplete, MpiIrecv (a receive part matched to the completed
 * Irecv request by source and tag), MpiRequestCancelled; then MpiRecv for
 * the receive parts no request completed (blocking receives, Sendrecv). */
static void write_ends(struct xport *x, int rank, const struct search_call *c, const struct search_part *pt,
                       const struct trace_event *ev, OTF2_TimeStamp t)
{
    struct otf2 *o = o2(x);
    uint32_t k = comm_of(o, c->comm);
    uint32_t n = ev ? ev->ncomplete : 0;
    bool used[c->nparts ? c->nparts : 1];
    memset(used, 0, sizeof used);
    for (uint32_t q = 0; q < n; q++) {
        const struct cht_rec_complete *cp = ev->complete[q];
        struct oreq *r = cp->request < o->capreqs ? &o->reqs[cp->request] : NULL;
        if (!r || !r->written)
            continue;
        if (cp->h.aux & CHT_COMPLETE_CANCELLED) {
            OTF2_EvtWriter_MpiRequestCancelled(o->w, NULL, t, cp->request);
        } else if (r->written == 1) {
            OTF2_EvtWriter_MpiIsendComplete(o->w, NULL, t, cp->request);
        } else {
            uint32_t p = 0;
            while (p < c->nparts && (used[p] || pt[p].kind != SEARCH_PART_RECV ||
                                     pt[p].peer != cp->st_source || pt[p].tag != cp->st_tag))
                p++;
            if (p == c->nparts)
                continue; /* no receive part for it: no message */
            used[p] = true;
            OTF2_EvtWriter_MpiIrecv(o->w, NULL, t, comm_rank(o, r->comm, pt[p].peer), r->comm,
                                    (uint32_t)pt[p].tag, pt[p].bytes, cp->request);
        }
        r->written = 0;
        o->nevents[rank]++;
    }
    for (uint32_t p = 0; p < c->nparts; p++) {
        if (used[p] || pt[p].kind != SEARCH_PART_RECV || pt[p].peer < 0)
            continue;
        OTF2_EvtWriter_MpiRecv(o->w, NULL, t, comm_rank(o, k, pt[p].peer), k, (uint32_t)pt[p].tag,
                               pt[p].bytes);
        o->nevents[rank]++;
    }
}

/* One MPI call: Enter, its message and collective events, Leave. */
static int write_call(struct xport *x, int rank, uint32_t i, const struct trace_event *ev)
{
    struct otf2 *o = o2(x);
    const struct search_call *c = search_analysis_call(x->a, rank, i);
    if (c->call == CHT_MPI_EXTERN) /* a fence of the analysis, not an MPI call */
        return 0;
    const struct cht_rec_mpi *raw = ev ? ev->mpi : NULL;
    struct search_part *pt = malloc((c->nparts ? c->nparts : 1) * sizeof *pt);
    if (!pt)
        return -1;
    bool unmatched = false;
    int op = -1;
    const struct search_part *coll = NULL;
    for (uint32_t p = 0; p < c->nparts; p++) {
        search_analysis_part(x->a, rank, c->first + p, &pt[p]);
        if ((pt[p].kind == SEARCH_PART_SEND || pt[p].kind == SEARCH_PART_RECV) && pt[p].match_rank < 0 &&
            pt[p].peer >= 0)
            unmatched = true;
        if (pt[p].kind == SEARCH_PART_COLL && !coll && (op = coll_op(c->call)) >= 0)
            coll = &pt[p];
    }
    OTF2_RegionRef reg = region_of(x, c);
    OTF2_TimeStamp te = at(o, export_call_time(x, rank, i, false));
    OTF2_EvtWriter_Enter(o->w, NULL, te, reg);
    o->nevents[rank]++;
    if (coll) {
        OTF2_EvtWriter_MpiCollectiveBegin(o->w, NULL, te);
        o->nevents[rank]++;
    }
    write_starts(x, rank, c, pt, raw, te);
    OTF2_TimeStamp tx = at(o, export_call_time(x, rank, i, true));
    write_ends(x, rank, c, pt, ev, tx);
    if (coll) {
        uint32_t k = comm_of(o, c->comm);
        OTF2_EvtWriter_MpiCollectiveEnd(o->w, NULL, tx, (OTF2_CollectiveOp)op, k, comm_rank(o, k, coll->peer),
                                        coll->bytes, coll->rbytes);
        o->nevents[rank]++;
    }
    OTF2_EvtWriter_Leave(o->w, NULL, tx, reg);
    o->nevents[rank]++;
    x->calls++;
    x->unmatched += unmatched;
    free(pt);
    return 0;
}

/* The root region, named after the program. */
static OTF2_RegionRef root_region(const struct xport *x)
{
    struct otf2 *o = o2(x);
    for (uint32_t i = 0; i < o->nregions; i++)
        if (o->regions[i].root)
            return i;
    if (!grow(&o->regions, &o->capregions, o->nregions, sizeof *o->regions)) {
        o->oom = true;
        return 0;
    }
    const char *prog = trace_program(x->t), *base = prog ? strrchr(prog, '/') : NULL;
    o->regions[o->nregions] = (struct oregion){
        .call = CHT_MPI_UNKNOWN,
        .name = str_ref(o, base            ? base + 1
                           : prog && *prog ? prog
                                           : "program"),
        .file = str_ref(o, ""),
        .descr = str_ref(o, "the rank's run from its first MPI call's entry to its last's exit; its own "
                            "time is the computation between MPI calls"),
        .role = OTF2_REGION_ROLE_FUNCTION,
        .root = true};
    return o->nregions++;
}

/* Advances the rank's cursor to the MPI event of index idx, recording the
 * communicators created on the way: the event, or NULL if the log has
 * none of that index. */
static const struct trace_event *advance(struct otf2 *o, struct trace_cursor *cur,
                                         const struct trace_event **held, uint64_t idx, int *rc)
{
    const struct trace_event *ev = *held;
    const struct trace_run *run;
    while (!ev || ev->index < idx) {
        *rc = trace_cursor_next_run(cur, &ev, &run);
        if (*rc <= 0) {
            *held = NULL;
            return NULL;
        }
        if (*rc == 2 || ev->kind != TRACE_EV_MPI)
            ev = NULL;
        else if (ev->newcomm)
            comm_created(o, ev->newcomm);
    }
    *held = ev;
    return ev->index == idx ? ev : NULL;
}

/* The clock's global offset: the recorded CLOCK_MONOTONIC of the earliest
 * call, when the common clock is that clock (the analysis' times are from
 * the earliest call, so a rank's first timed call gives it); else 0. */
static void find_offset(struct xport *x)
{
    struct otf2 *o = o2(x);
    if (x->o->stable || search_analysis_clock(x->a) != SEARCH_CLOCK_MONOTONIC)
        return;
    for (int r = 0; r < x->world; r++) {
        uint32_t n = search_analysis_ncalls(x->a, r), i = 0;
        while (i < n && !search_analysis_call(x->a, r, i)->timed)
            i++;
        struct trace_cursor *cur;
        struct trace_err err;
        if (i == n || trace_cursor_open(x->t, r, TRACE_CURSOR_RUNS, &cur, &err) < 0)
            continue;
        const struct search_call *c = search_analysis_call(x->a, r, i);
        const struct trace_event *held = NULL, *ev;
        int rc;
        ev = advance(o, cur, &held, c->index, &rc);
        bool found = ev && ev->mpi->t_enter >= c->t_enter;
        if (found)
            o->offset = ev->mpi->t_enter - c->t_enter;
        trace_cursor_close(cur);
        if (found)
            return;
    }
}

static int write_rank(struct xport *x, int rank)
{
    struct otf2 *o = o2(x);
    struct trace_cursor *cur = NULL;
    struct trace_err err;
    uint32_t n = search_analysis_ncalls(x->a, rank);
    o->rank = rank;
    o->last = 0;
    o->capreqs = 0;
    free(o->reqs);
    o->reqs = NULL;
    if (!(o->w = OTF2_Archive_GetEvtWriter(o->ar, (OTF2_LocationRef)rank)))
        return cli_error("cannot write the OTF2 archive: dir=%s reason=%s", x->o->output, o->errmsg);
    if ((x->o->rank >= 0 && rank != x->o->rank) || !search_analysis_rank(x->a, rank) || !n)
        return CLI_OK;
    if (trace_cursor_open(x->t, rank, TRACE_CURSOR_RUNS, &cur, &err) < 0)
        return cli_error("%s", err.msg);
    OTF2_RegionRef root = root_region(x);
    OTF2_EvtWriter_Enter(o->w, NULL, at(o, export_call_time(x, rank, 0, false)), root);
    o->nevents[rank]++;
    const struct trace_event *held = NULL;
    int rc = 1;
    for (uint32_t i = 0; i < n && !o->oom; i++) {
        const struct search_call *c = search_analysis_call(x->a, rank, i);
        const struct trace_event *ev = rc > 0 ? advance(o, cur, &held, c->index, &rc) : NULL;
        if (write_call(x, rank, i, ev) < 0)
            o->oom = true;
    }
    OTF2_EvtWriter_Leave(o->w, NULL, at(o, export_call_time(x, rank, n - 1, true)), root);
    o->nevents[rank]++;
    if (rc < 0)
        cli_warn("rank %d: the requests and communicators after this point are unknown: %s", rank,
                 trace_cursor_error(cur));
    trace_cursor_close(cur);
    return o->oom ? cli_error("out of memory") : CLI_OK;
}

/* ---- hints as markers ------------------------------------------------------------- */

/* Severity classes of a hint: its estimated saving's share of the run
 * (search_hint.severity); none with --stable, which leaves savings out. */
static OTF2_MarkerSeverity marker_severity(const struct xport *x, const struct search_hint *h)
{
    if (x->o->stable || !isfinite(h->severity))
        return OTF2_SEVERITY_NONE;
    return h->severity >= 0.1    ? OTF2_SEVERITY_HIGH
           : h->severity >= 0.01 ? OTF2_SEVERITY_MEDIUM
                                 : OTF2_SEVERITY_LOW;
}

/* The marker definition of (kind, severity): kind * 4 + severity. */
static OTF2_MarkerRef marker_def(const struct xport *x, const struct search_hint *h)
{
    return (OTF2_MarkerRef)h->kind * 4 + (OTF2_MarkerRef)marker_severity(x, h);
}

/* Each hint on each rank it holds on, over the first call of its call site
 * there (as the chrome format places its instant events). */
static int write_markers(struct xport *x)
{
    struct otf2 *o = o2(x);
    OTF2_MarkerWriter *mw = OTF2_Archive_GetMarkerWriter(o->ar);
    if (!mw)
        return cli_error("cannot write the OTF2 archive: dir=%s reason=%s", x->o->output, o->errmsg);
    static const char *const sev[] = {"none", "low", "medium", "high"};
    bool *defined = calloc(x->nhints ? x->nhints : 1, sizeof *defined);
    if (!defined)
        return cli_error("out of memory");
    for (uint32_t k = 0; k < x->nhints; k++) {
        const struct search_hint *h = x->hints[k].h;
        OTF2_MarkerRef def = marker_def(x, h);
        bool seen = false;
        for (uint32_t j = 0; j < k && !seen; j++)
            seen = defined[j] && marker_def(x, x->hints[j].h) == def;
        if (!seen) {
            char cat[64];
            snprintf(cat, sizeof cat, "%s hint, %s severity", search_kind_name(h->kind),
                     sev[marker_severity(x, h)]);
            OTF2_MarkerWriter_WriteDefMarker(mw, def, "commhint", cat, marker_severity(x, h));
            defined[k] = true;
        }
    }
    free(defined);
    for (uint32_t k = 0; k < x->nhints; k++) {
        const struct search_hint *h = x->hints[k].h;
        const char *file = h->file && *h->file ? h->file : "??";
        const char *base = strrchr(file, '/');
        size_t len = strlen(x->hints[k].message) + 512;
        char *text = malloc(len);
        if (!text)
            return cli_error("out of memory");
        snprintf(text, len, "[%s] %s %s:%u: %s", search_kind_name(h->kind), trace_mpi_call_name(h->call),
                 base ? base + 1 : file, h->line, x->hints[k].message);
        for (int q = 0; q < h->nranks; q++) {
            int rank = h->ranks[q];
            if ((x->o->rank >= 0 && rank != x->o->rank) || !search_analysis_rank(x->a, rank))
                continue;
            uint32_t pos = search_analysis_first_part_of_hint(x->a, rank, h);
            uint64_t t = 0, d = 0;
            if (pos != UINT32_MAX) {
                struct search_part part;
                search_analysis_part(x->a, rank, pos, &part);
                t = export_call_time(x, rank, part.call, false);
                uint64_t e = export_call_time(x, rank, part.call, true);
                d = e > t ? e - t : 0;
            } else {
                x->unlocated++;
            }
            OTF2_MarkerWriter_WriteMarker(mw, o->offset + t, d, marker_def(x, h), OTF2_MARKER_SCOPE_LOCATION,
                                          (uint64_t)rank, text);
            x->instants++;
        }
        free(text);
    }
    OTF2_Archive_CloseMarkerWriter(o->ar, mw);
    return CLI_OK;
}

/* ---- global definitions ----------------------------------------------------------- */

/* A communicator's name: MPI_COMM_WORLD, MPI_COMM_SELF, or its id. */
static const char *comm_name(const struct ocomm *c, char *buf, size_t n)
{
    if (c->id == CHT_COMM_WORLD)
        return "MPI_COMM_WORLD";
    if (c->id == CHT_COMM_SELF)
        return "MPI_COMM_SELF";
    const char *name = trace_comm_name(c->id, buf, n); /* "unknown" is not written into buf */
    if (name != buf)
        snprintf(buf, n, "%s", name);
    if (!c->members)
        snprintf(buf + strlen(buf), n - strlen(buf), " (members unknown)");
    return buf;
}

/* Group 0: the locations of MPI_COMM_WORLD's ranks, which the
 * communicators' groups index; group 1 + k and comm k: comms[k]. */
static void write_comms(struct xport *x, OTF2_GlobalDefWriter *g)
{
    struct otf2 *o = o2(x);
    uint64_t *m = malloc(((size_t)x->world + 1) * sizeof *m);
    if (!m) {
        o->oom = true;
        return;
    }
    for (int r = 0; r < x->world; r++)
        m[r] = (uint64_t)r;
    OTF2_GlobalDefWriter_WriteGroup(g, 0, str_ref(o, "MPI_COMM_WORLD locations"),
                                    OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                    (uint32_t)x->world, m);
    for (uint32_t k = 0; k < o->ncomms; k++) {
        const struct ocomm *c = &o->comms[k];
        char buf[64];
        OTF2_StringRef name = str_ref(o, comm_name(c, buf, sizeof buf));
        if (c->id == CHT_COMM_SELF) {
            OTF2_GlobalDefWriter_WriteGroup(g, 1 + k, name, OTF2_GROUP_TYPE_COMM_SELF, OTF2_PARADIGM_MPI,
                                            OTF2_GROUP_FLAG_NONE, 0, NULL);
        } else if (c->id == CHT_COMM_WORLD) {
            OTF2_GlobalDefWriter_WriteGroup(g, 1 + k, name, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                            OTF2_GROUP_FLAG_NONE, (uint32_t)x->world, m);
        } else {
            uint64_t *mem = malloc((c->nmembers ? c->nmembers : 1) * sizeof *mem);
            if (!mem) {
                o->oom = true;
                break;
            }
            for (uint32_t i = 0; i < c->nmembers; i++)
                mem[i] = (uint64_t)c->members[i];
            OTF2_GlobalDefWriter_WriteGroup(g, 1 + k, name, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                            OTF2_GROUP_FLAG_NONE, c->nmembers, mem);
            free(mem);
        }
        OTF2_CommRef parent = OTF2_UNDEFINED_COMM;
        for (uint32_t j = 0; j < o->ncomms && c->id != CHT_COMM_WORLD; j++)
            if (o->comms[j].id == c->parent && j != k)
                parent = j;
        OTF2_GlobalDefWriter_WriteComm(g, k, name, 1 + k, parent, OTF2_COMM_FLAG_NONE);
    }
    free(m);
}

/* The names of the ranks' location groups and locations. */
static void rank_names(int r, char *group, char *loc, size_t n)
{
    snprintf(group, n, "MPI Rank %d", r);
    snprintf(loc, n, "rank %d", r);
}

/* All definitions; the strings first, since the others refer to them. */
static void write_definitions(struct xport *x, OTF2_GlobalDefWriter *g)
{
    struct otf2 *o = o2(x);
    char group[64], loc[64];
    OTF2_StringRef node = str_ref(o, "machine"), mpi = str_ref(o, "MPI");
    str_ref(o, "MPI_COMM_WORLD locations");
    for (int r = 0; r < x->world; r++) {
        rank_names(r, group, loc, sizeof group);
        str_ref(o, group);
        str_ref(o, loc);
    }
    for (uint32_t k = 0; k < o->ncomms; k++)
        str_ref(o, comm_name(&o->comms[k], group, sizeof group));
    if (o->oom)
        return;
    for (uint32_t i = 0; i < o->nstrs; i++)
        OTF2_GlobalDefWriter_WriteString(g, o->strs[i].ref, o->strs[i].s);

    uint64_t end = 0;
    for (int r = 0; r < x->world; r++) {
        uint32_t n = search_analysis_ncalls(x->a, r);
        if (n && (x->o->rank < 0 || r == x->o->rank)) {
            uint64_t e = export_call_time(x, r, n - 1, true);
            end = e > end ? e : end;
        }
    }
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, o->offset, end, OTF2_UNDEFINED_TIMESTAMP);
    OTF2_GlobalDefWriter_WriteParadigm(g, OTF2_PARADIGM_MPI, mpi, OTF2_PARADIGM_CLASS_PROCESS);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, node, node, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (int r = 0; r < x->world; r++) {
        rank_names(r, group, loc, sizeof group);
        OTF2_GlobalDefWriter_WriteLocationGroup(g, (OTF2_LocationGroupRef)r, str_ref(o, group),
                                                OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(g, (OTF2_LocationRef)r, str_ref(o, loc),
                                           OTF2_LOCATION_TYPE_CPU_THREAD, o->nevents[r],
                                           (OTF2_LocationGroupRef)r);
    }
    for (uint32_t i = 0; i < o->nregions; i++) {
        const struct oregion *rg = &o->regions[i];
        OTF2_GlobalDefWriter_WriteRegion(g, i, rg->name, rg->name, rg->descr, (OTF2_RegionRole)rg->role,
                                         rg->root ? OTF2_PARADIGM_USER : OTF2_PARADIGM_MPI,
                                         OTF2_REGION_FLAG_NONE, rg->file, rg->line, rg->line);
    }
    write_comms(x, g);
}

/* ---- the archive ------------------------------------------------------------------ */

/* libotf2's errors: kept for our message instead of printed. */
static OTF2_ErrorCode otf2_error_cb(void *ctx, const char *file, uint64_t line, const char *func,
                                    OTF2_ErrorCode code, const char *fmt, va_list va)
{
    struct otf2 *o = ctx;
    if (o->failed)
        return code; /* the first error says why */
    o->failed = true;
    int n = snprintf(o->errmsg, sizeof o->errmsg, "%s", OTF2_Error_GetDescription(code));
    if (fmt && *fmt && n > 0 && (size_t)n < sizeof o->errmsg - 3) {
        snprintf(o->errmsg + n, sizeof o->errmsg - n, " (");
        vsnprintf(o->errmsg + n + 2, sizeof o->errmsg - n - 2, fmt, va);
        if (strlen(o->errmsg) < sizeof o->errmsg - 1)
            strcat(o->errmsg, ")");
    }
    return code;
}

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc, void *caller,
                                bool final)
{
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc)
{
    return 0;
}

static OTF2_FlushCallbacks flush_callbacks = {.otf2_pre_flush = pre_flush, .otf2_post_flush = post_flush};

static int otf2_open(struct xport *x)
{
    struct otf2 *o = calloc(1, sizeof *o);
    if (!o || !(o->nevents = calloc((size_t)x->world + 1, sizeof *o->nevents))) {
        free(o);
        return cli_error("out of memory");
    }
    x->out = o;
    OTF2_Error_RegisterCallback(otf2_error_cb, o);
    comm_of(o, CHT_COMM_WORLD); /* comm 0 */
    return prepare_dir(x->o->output);
}

/* The event files (one per location, all of them, so that readers find
 * every location's), the local definition files, the global definitions
 * and the markers. */
static int otf2_write(struct xport *x)
{
    struct otf2 *o = o2(x);
    const char *dir = x->o->output;
    o->ar = OTF2_Archive_Open(dir, ARCHIVE_NAME, OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                              OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!o->ar)
        return cli_error("cannot write the OTF2 archive: dir=%s reason=%s", dir, o->errmsg);
    OTF2_Archive_SetFlushCallbacks(o->ar, &flush_callbacks, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(o->ar);
    OTF2_Archive_SetCreator(o->ar, CREATOR);
    OTF2_Archive_SetDescription(o->ar, "the MPI timeline and hints of a commhint trace");
    find_offset(x);
    if (OTF2_Archive_OpenEvtFiles(o->ar) != OTF2_SUCCESS)
        return cli_error("cannot write the OTF2 archive: dir=%s reason=%s", dir, o->errmsg);
    for (int r = 0; r < x->world; r++) {
        int rc = write_rank(x, r);
        if (o->w)
            OTF2_Archive_CloseEvtWriter(o->ar, o->w);
        o->w = NULL;
        if (rc != CLI_OK)
            return rc;
    }
    if (OTF2_Archive_CloseEvtFiles(o->ar) != OTF2_SUCCESS || OTF2_Archive_OpenDefFiles(o->ar) != OTF2_SUCCESS)
        return cli_error("cannot write the OTF2 archive: dir=%s reason=%s", dir, o->errmsg);
    for (int r = 0; r < x->world; r++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(o->ar, (OTF2_LocationRef)r);
        if (!dw)
            return cli_error("cannot write the OTF2 archive: dir=%s reason=%s", dir, o->errmsg);
        OTF2_Archive_CloseDefWriter(o->ar, dw);
    }
    OTF2_Archive_CloseDefFiles(o->ar);
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(o->ar);
    if (!g)
        return cli_error("cannot write the OTF2 archive: dir=%s reason=%s", dir, o->errmsg);
    write_definitions(x, g);
    if (o->oom)
        return cli_error("out of memory");
    int rc = write_markers(x);
    if (rc != CLI_OK)
        return rc;
    OTF2_ErrorCode e = OTF2_Archive_Close(o->ar);
    o->ar = NULL;
    if (e != OTF2_SUCCESS || o->failed)
        return cli_error("cannot write the OTF2 archive: dir=%s reason=%s", dir, o->errmsg);
    return CLI_OK;
}

static int otf2_close(struct xport *x, int ret)
{
    struct otf2 *o = x->out;
    if (!o)
        return ret;
    if (o->ar)
        OTF2_Archive_Close(o->ar);
    OTF2_Error_RegisterCallback(NULL, NULL); /* libotf2's own again */
    for (uint32_t i = 0; i < o->nstrs; i++)
        free(o->strs[i].s);
    for (uint32_t i = 0; i < o->ncomms; i++)
        free(o->comms[i].members);
    free(o->strs);
    free(o->strhash);
    free(o->regions);
    free(o->comms);
    free(o->reqs);
    free(o->nevents);
    free(o);
    x->out = NULL;
    return ret;
}

const struct export_format export_otf2 = {
    .name = "otf2",
    .output_is_dir = true,
    .open = otf2_open,
    .write = otf2_write,
    .close = otf2_close,
};
