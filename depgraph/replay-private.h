/* replay-private.h - what the timed replay (replay.c), its fitting
 * (replay-fit.c) and the ranks' turns on the CPUs of an oversubscribed
 * host (cpu-turns.c) share; depgraph.h holds the replay's interface
 * (docs/prediction.md). */
#ifndef COMMHINT_REPLAY_PRIVATE_H
#define COMMHINT_REPLAY_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "depgraph.h"

/* A rank's turns on the CPUs of its host (cpu-turns.c). */
struct turns {
    bool on;          /* an oversubscribed host, and the rank's calls say it lost its CPU */
    double *off;      /* during the run: the stretches it was off its CPU, [start, end) pairs
                         (ns from the run's start), in order */
    size_t noff;
    double last;      /* the run's last time of the rank */
    uint32_t a, b;    /* after it: slots on, then off, in a row */
    uint32_t phase;   /* slot j is on if (j + phase) mod (a + b) < a */
};

enum {
    TURN_MAX = 16,   /* at most this many slots on or off in a row */
    TURN_SAMPLES = 5 /* stretches off its CPU a rank's own turns are fitted from */
};

/* The run's start: the first MPI_Init return (0: none). */
uint64_t dg_run_start(const struct dg_mpilog *const *logs, int P);

/* The median of v[n] (sorted in place); fallback if n is 0 (replay-fit.c). */
double dg_median(double *v, size_t n, double fallback);

/* Whether the log's calls carry the thread's CPU times. */
bool dg_has_cpu_times(const struct dg_mpilog *log);

/* The values dg_off_stats may need room for, for any of the logs. */
size_t dg_off_capacity(const struct dg_mpilog *const *logs, int P);

/* A rank's stretches off its CPU: their median (from 100 us; tmp holds
 * 2 * log->n values), how many, and the share of its run it had a CPU. */
void dg_off_stats(const struct dg_mpilog *log, double *tmp, double *med, size_t *count, double *share);

/* Slot j of slices of q ns runs from phase + (j - 1) * q. */
uint64_t dg_slot_at(double t, double q, double phase);

/* Each rank's turns (t[P]), slices of q ns from t0; false if out of
 * memory.  dg_turns_free frees them. */
bool dg_turns_of(const struct dg_mpilog *const *logs, int P, double q, uint64_t t0, struct turns *t);
/* The same spread over the processes of x (every process calls it; logs:
 * this process's ranks, whose turns it fills): the hosts' facts travel to
 * every process (16 bytes per rank).  0 or a negative status, agreed. */
int dg_turns_of_dist(const struct dg_mpilog *const *logs, int P, const struct dg_xchg *x, double q, uint64_t t0,
                     struct turns *t);
void dg_turns_free(struct turns *t, int P);

/* The first time from t at which the rank of turns k runs, and when it
 * has had w ns of CPU from t (pp: the slice after the run). */
double dg_turns_notice(const struct turns *k, const struct dg_replay_params *pp, double t);
double dg_turns_run(const struct turns *k, const struct dg_replay_params *pp, double t, double w);

/* ---- the timed replay's state (replay.c: the ranks; replay-owner.c: the
 * collective instances a process owns) -------------------------------------- */

/* What one process tells another during a spread replay (replay.c's
 * header says when each goes). */
enum rp_note_kind {
    RN_ARRIVAL = 1, /* to a receive's process: its message arrives at t */
    RN_SENT,        /* to a receive's process: a rendezvous send posted at t (bytes) */
    RN_PULLED,      /* to a send's process: its rendezvous message arrived at t */
    RN_REACHED,     /* to a recorded instance's owner: a member's record posted at t */
    RN_STARTED,     /* to a recorded instance's owner: a nonblocking member's start posted at t */
    RN_DONE,        /* to a member's process: its collective record completes at t */
    RN_LEAD,        /* to a changed instance's owner: a rank's first member posted at t */
    RN_INSTDONE     /* to every process: changed instance `inst` completes at t */
};

struct rp_note {
    uint32_t kind;
    uint32_t inst;    /* REACHED, STARTED: the recorded instance; LEAD, INSTDONE: the change's id */
    struct dg_pos at; /* the record the note is about */
    double t;
    uint64_t bytes;   /* SENT */
};

enum rp_item_kind { IT_COMP, IT_CALL, IT_POST, IT_WAIT };

struct rp_item {
    uint8_t kind;
    uint32_t call;  /* IT_CALL, IT_POST, IT_WAIT: the call (index in the rank's calls) */
    double ns;      /* IT_COMP */
};

/* A rank of this process: its calls (the first record of each, in log
 * order) and items. */
struct rp_rank {
    struct turns tn;
    uint32_t ncalls;
    uint32_t *first;  /* log position of the call's first record */
    struct rp_item *it;
    size_t nit, cit;
    size_t next;      /* next item */
    double t;         /* its clock */
    bool queued;      /* on the work list */
    double *at;       /* per log position: when the record was posted (NAN: not yet) */
    double *done;     /* per log position (NAN: not known): a SEND's arrival at its receiver,
                         a RECV's message's arrival, a COLL record's completion */
    /* the changes, per log position; NULL for a rank no change of that
     * kind touches (into and extra: merges; coll and lead: instances) */
    uint32_t *into;   /* MERGE target (UINT32_MAX: none) */
    uint64_t *extra;  /* bytes carried for merged sends */
    uint32_t *coll;   /* changed instance + 1 (0: none) */
    bool *lead;       /* the rank's first member of its changed instance */
};

/* A member of a recorded instance this process owns. */
struct rp_member {
    double reached;   /* its record's post (NAN: not yet) */
    double started;   /* a nonblocking member's start's post (NAN: not yet) */
    uint32_t pending; /* a tree: members it waits for not reached yet */
    bool done;
};

enum { SHAPE_FLAT, SHAPE_UP, SHAPE_DOWN, SHAPE_ODD };

/* A recorded instance this process owns. */
struct rp_inst {
    uint32_t base;      /* its members: mem[base .. base + n) */
    uint32_t cnt[2];    /* members whose post counts, blocking [0] and nonblocking [1] */
    double ready[2];    /* the latest of those posts */
    double least;       /* the least time a member spent in it (NAN: not computed) */
    uint8_t shape;      /* SHAPE_*: how its members wait (SHAPE_ODD: members disagree) */
    uint32_t root;      /* a tree's root's place */
};

struct rp_state {
    const struct dg_mpilog *const *logs; /* this process's ranks */
    const struct dg_match *m;
    const struct dg_replay_params *pp;
    const int *owner;
    int P, K, me, rc;
    struct rp_rank *rk;
    int *work;
    size_t nwork;
    struct dg_bytes *out, *in;
    struct dg_map starts;    /* (rank, start position) -> the nonblocking COLL record's position */
    struct dg_map rdv;       /* receive -> index in pend: rendezvous sends noted before its post */
    double *pend;            /* pairs: the send's post, its transfer's time */
    size_t npend, cpend;
    struct dg_pos *carried;  /* pairs (carrier, send) of this process's merged sends, by carrier */
    size_t ncarried;
    struct dg_map collof;    /* (rank, position) -> changed instance + 1, every rank's */
    /* the changed instances (ids of struct dg_change), every process */
    uint32_t ninst;
    uint32_t *inst_steps, *inst_ranks, *inst_posted;
    uint64_t *inst_bytes;
    double *inst_ready, *inst_done;
    /* the recorded instances this process owns */
    uint32_t lo, hi;
    struct rp_inst *ri;
    struct rp_member *mem;
};

uint64_t rp_key(struct dg_pos p);
double rp_xfer(const struct dg_replay_params *pp, uint64_t bytes);
double rp_coll_steps(int call, uint32_t p);
/* A note to process q: taken at once if q is this process. */
void rp_note(struct rp_state *S, int q, const struct rp_note *n);
/* replay-owner.c: the owned instances set up, a REACHED, STARTED or LEAD
 * note taken, and their state freed. */
int rp_owner_setup(struct rp_state *S);
void rp_owner_take(struct rp_state *S, const struct rp_note *n);
void rp_owner_free(struct rp_state *S);

#endif
