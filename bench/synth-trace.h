/* synth-trace.h - what the patterns of bench/synth-trace.c and the trace
 * writer of bench/synth-write.c share: the options, the state of the
 * generation (the ranks' streams and clocks) and the writer's calls.
 */
#ifndef COMMHINT_SYNTH_TRACE_H
#define COMMHINT_SYNTH_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <zstd.h>

#include "trace-format.h"

#define INIT_NS 1000000u /* MPI_Init: 1 ms */

enum pattern { PAT_HALO, PAT_MASTER, PAT_PIPELINE };

struct opts {
    int ranks;
    long iters;
    int every;
    int dims;
    uint64_t bytes;      /* per message */
    uint64_t compute_ns; /* per step, item or task */
    double jitter;
    uint64_t latency_ns;
    double bandwidth; /* bytes per ns (= GB/s) */
    uint64_t call_ns;
    uint64_t seed;
    enum pattern pat;
    const char *dir;
};

/* One MPI call site of a pattern's fictitious source (the line of the
 * same call in the real program). */
struct site_def {
    uint16_t call; /* enum cht_mpi_call */
    uint32_t line;
    uint16_t col;
};

struct table {
    const struct site_def *s[2];
    size_t n[2];
};

/* A rank's stream: records pending for its next chunk, and where it is. */
struct rank_out {
    unsigned char *buf;
    size_t len;
    uint64_t seq; /* next chunk number */
    uint64_t end; /* file size */
    uint64_t file_id;
    uint64_t nrec;     /* records written */
    uint64_t next_req; /* next request id, from 1 */
    uint64_t t;        /* the rank's clock, ns */
};

struct gen {
    struct opts o;
    struct rank_out *r;
    size_t cap; /* raw bytes per chunk */
    ZSTD_CCtx *cctx;
    unsigned char *zbuf;
    size_t zcap;
    uint64_t run_id, t0, real0;
    uint64_t tu_key;
    uint32_t nsites;
    struct table tab;    /* the pattern's call sites */
    const char *file;    /* its fictitious source file */
    const char *pattern; /* its name */
    int failed;
};

/* Local site ids, in table order: every pattern's table starts with
 * MPI_Init and MPI_Finalize. */
enum { S_INIT, S_FINALIZE, S_A, S_B, S_C, S_D };

/* Site ids are global: the TU record maps local id i to site_base + i. */
#define SITE_BASE 0u
#define GSITE(i) (SITE_BASE + (uint32_t)(i))

/* ---- the model (synth-write.c) ---- */
uint64_t synth_mix(uint64_t x); /* splitmix64 */
/* Computation time of rank r at step s: compute_ns scaled by [1-F, 1+F]. */
uint64_t synth_compute_time(const struct gen *g, int r, long s);
/* Time a message of `bytes` takes from send to arrival, ns. */
uint64_t synth_msg_time(const struct gen *g, uint64_t bytes);
uint64_t synth_now_ns(clockid_t c);

/* ---- the files (synth-write.c); errors are reported once on stderr and
 * set g->failed, after which nothing more is written ---- */
/* The meta file (PROGRAM and the site table of g->tab); 0 or -1. */
int synth_write_meta(struct gen *g);
/* Creates every rank's stream and records MPI_Init on all; 0 or -1. */
int synth_open_ranks(struct gen *g);
/* Records MPI_Finalize on every rank at its clock and ends the streams. */
int synth_close_ranks(struct gen *g);
/* Appends n bytes of whole records (nrec of them) to rank r's chunk. */
void synth_put(struct gen *g, int r, const void *p, size_t n, unsigned nrec);
void synth_put_mpi(struct gen *g, int r, const struct cht_rec_mpi *m);

/* ---- records (synth-write.c) ---- */
/* An MPI record of `call` with every field unused (0, -1 for ranks and tags). */
struct cht_rec_mpi synth_mpi_rec(const struct gen *g, uint16_t call, uint32_t site, uint64_t t_enter,
                                 uint64_t t_exit);
/* Buffer k of rank r (0, 1: the Allreduce's; 2 + d: sent in direction d;
 * 8 + d: received). */
uint64_t synth_buf_addr(int r, unsigned k);
/* MPI_Send or MPI_Isend (a new request) of rank r at t, from buffer `buf`. */
void synth_send(struct gen *g, int r, uint16_t call, uint32_t site, uint64_t t, int dest, int tag,
                uint64_t bytes, uint64_t seq, unsigned buf);
/* MPI_Recv of rank r of a message from src (tag `tag`, arriving at
 * `arrive`), posted with rtag and the CHT_MPIF_ANY_* flags; advances the
 * rank's clock past it. */
void synth_recv(struct gen *g, int r, uint32_t site, int src, int rtag, int tag, uint64_t bytes,
                uint64_t rseq, uint64_t arrive, unsigned flags);
/* Writes a COMPLETE record at p; returns its size. */
size_t synth_complete(unsigned char *p, int recv, uint64_t req, int src, int tag, uint64_t bytes,
                      uint64_t rseq);

#endif /* COMMHINT_SYNTH_TRACE_H */
