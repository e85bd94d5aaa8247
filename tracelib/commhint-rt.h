/* commhint-rt.h - entry points of the trace runtime (libcommhint) that code
 * instrumented by the commhint pass calls.
 *
 * This is an ABI between clang_pass/ (which emits calls to these functions,
 * by name and with exactly these C signatures) and tracelib/rt/ (which
 * defines them).  Users never call them by hand.  Ids passed here are
 * global: the pass computes local_id + *site_base (or *loop_base) where the
 * bases are filled in by __commhint_register_tu before main runs.
 *
 * Hot-path functions (ev*, mem*, loop_*, mpi_site) never allocate, lock or
 * make a system call except when a thread's buffer is full.
 */
#ifndef COMMHINT_RT_H
#define COMMHINT_RT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 3: __commhint_mpi_after, 4: the queue, 5: __commhint_loop_affine, 6: the
 * irregular addresses of loops recorded at their exits, 7:
 * __commhint_register_code and __commhint_extern_call */
#define COMMHINT_RT_ABI_VERSION 7

/* Global site and loop ids are below COMMHINT_RT_BAD_BASE.  A base that was
 * not (or could not be) assigned holds COMMHINT_RT_BAD_BASE, so that
 * base + local id lands at or above it, where the runtime ignores it
 * (a translation unit has fewer than 2^31 sites). */
#define COMMHINT_RT_BAD_BASE 0x80000000u

/* Registers one translation unit's site table (a blob laid out as
 * struct cht_tu_header + tables, see trace-format.h; it must stay valid for
 * the life of the process: it is constant data of the object).  Called from a
 * constructor the pass adds to each instrumented module.  Writes the global
 * id of the TU's local site 0 to *site_base and of its loop 0 to *loop_base.
 * abi_version is COMMHINT_RT_ABI_VERSION as the pass knew it; on a mismatch
 * the runtime warns once and leaves the TU untraced (bases set to
 * COMMHINT_RT_BAD_BASE, events of that TU are then ignored). */
void __commhint_register_tu(uint32_t abi_version, const void *blob,
                            uint32_t blob_size, uint32_t *site_base,
                            uint32_t *loop_base);

/* One computation event of site `site` touching the given addresses; the
 * site's access list (in its table) gives size and direction per address,
 * in this order. */
void __commhint_ev1(uint32_t site, const void *a0);
void __commhint_ev2(uint32_t site, const void *a0, const void *a1);
void __commhint_ev3(uint32_t site, const void *a0, const void *a1,
                    const void *a2);
void __commhint_ev4(uint32_t site, const void *a0, const void *a1,
                    const void *a2, const void *a3);
/* Same for n > 4 addresses, passed in an array. */
void __commhint_evn(uint32_t site, uint32_t n, const void *const *addrs);

/* memcpy/memmove of n bytes (reads src, writes dst) and memset (writes dst)
 * as one computation event with explicit ranges. */
void __commhint_memcpy(uint32_t site, const void *dst, const void *src,
                       uint64_t n);
void __commhint_memset(uint32_t site, const void *dst, uint64_t n);

/* Heap blocks (CHT_SITEF_HEAP sites): right after malloc/calloc/realloc
 * returned p, a block of n bytes (nothing if p is NULL); right before
 * free(p), the block p (its usable size).  Each is a write of the whole
 * block: an MPI call whose buffer is the block stays between them. */
void __commhint_alloc(uint32_t site, const void *p, uint64_t n);
void __commhint_free(uint32_t site, const void *p);

/* Loop structure: enter in the preheader, iter at the top of the header
 * (each execution of the header starts an iteration, the first is 1), exit in
 * each exit block naming the outermost loop that the exit leaves. */
void __commhint_loop_enter(uint32_t loop);
void __commhint_loop_iter(uint32_t loop);
void __commhint_loop_exit(uint32_t loop);

/* A loop recorded at its exit (ABI version 5, clang_pass/ExitRecorded.h):
 * an innermost loop of one block whose iterations make the same records
 * with addresses start + i * step makes no call per iteration.  Its frame
 * (on the stack of the function) describes it; in the preheader the pass
 * fills it, done = made = 0, prev = __commhint_fast.loop, and (after a
 * signal fence) sets __commhint_fast.loop to it; each iteration stores the
 * number of iterations done (a volatile store); at each exit, before its
 * exit record, __commhint_loop_affine(frame, trips) unlinks the frame and
 * makes the records its iterations made..trips-1 would have made: per
 * iteration the loop's iter record, then each site's COMP record.  A
 * fatal signal's handler (and a thread that rt_finish asks at exit) writes
 * the records of iterations made..done-1 of every linked frame and sets
 * made to done.
 *
 * desc (constant, u64 words): word 0 the loop's local id | number of sites
 * << 32; then per site its local id | number of addresses (1 to
 * COMMHINT_RT_FAST_ADDRS) << 32; then per address of the sites, in order,
 * its step in bytes (i64), or COMMHINT_RT_IRREGULAR for an address that
 * is not affine in the loop (x[col[j]]: ABI version 6).  Ids are local:
 * the loop's is loop_base + its local id, a site's site_base + its own.
 * starts holds each affine address's value in iteration 0 (0 for an
 * irregular one).
 *
 * Irregular addresses: each iteration i stores them, in address order
 * (nirr of them), at irr[(i % COMMHINT_RT_LOOP_BUF) * nirr + k] (volatile
 * stores, before its store of done); when i % COMMHINT_RT_LOOP_BUF is
 * COMMHINT_RT_LOOP_BUF - 1 it then calls __commhint_loop_flush(frame),
 * which makes the records of iterations made..done-1 and sets made to
 * done (frame linked throughout), so that the buffer never holds more
 * than COMMHINT_RT_LOOP_BUF iterations whose records are not made.  irr
 * is 0 in a loop without irregular addresses. */
#define COMMHINT_RT_IRREGULAR INT64_MIN /* the step of an irregular address */
#define COMMHINT_RT_LOOP_BUF 128        /* iterations the irregular buffer holds */
#define COMMHINT_RT_LOOP_IRR 4          /* irregular addresses a loop may have */
struct commhint_rt_loop_frame {
    const uint64_t *desc;
    uint32_t loop_base, site_base;
    uint64_t done; /* iterations done, stored by each */
    uint64_t made; /* iterations whose records are made */
    struct commhint_rt_loop_frame *prev;
    uint64_t *irr;     /* the irregular addresses of the last iterations, or 0 */
    uint64_t starts[]; /* one per address */
};
void __commhint_loop_affine(struct commhint_rt_loop_frame *frame, uint64_t trips);
void __commhint_loop_flush(struct commhint_rt_loop_frame *frame);

/* Emitted right before a call to an MPI function: the next MPI event of this
 * thread records `site` as its call site. */
void __commhint_mpi_site(uint32_t site);

/* Emitted right after a call to an MPI function that is not local
 * (mpi-local.h), with the function's name: if no wrapper recorded the call
 * (the site is still pending), the runtime records it as an untraced call
 * (CHT_MPI_UNTRACED, a fence for the analysis) timed from the
 * __commhint_mpi_site before it. */
void __commhint_mpi_after(uint32_t site, const char *name);

/* Called from the same constructor as __commhint_register_tu, before it:
 * the addresses of the n functions the translation unit defines and the
 * pass instrumented (external ones, and local ones whose address is
 * taken).  The array must stay valid for the life of the process. */
void __commhint_register_code(const void *const *fns, uint32_t n);

/* Emitted right before a call whose callee the translation unit does not
 * define (a declaration, or a function pointer) and that hands a pointer
 * into the program's memory: when `callee` is not a registered function,
 * the call ran code built without the pass, whose reads and writes the
 * trace does not hold, and the runtime records it as an untraced call
 * named `name` (NULL through a function pointer: the symbol dladdr finds),
 * which the analysis takes as a fence (docs/dependence.md, "Calls into
 * code built without the pass"). */
void __commhint_extern_call(uint32_t site, const void *callee, const char *name);

/* The inline fast path (ABI version 2).  While a thread's records repeat
 * with a period (a run, CHT_REC_REPEAT in trace-format.h), the runtime keeps
 * here, per position of the period, the record it expects next: its key and
 * its addresses.  Before calling __commhint_ev1..4 or __commhint_loop_*, the
 * pass emits code that compares the record with slot[phase]; when key and
 * addresses are equal and left is not 0 it absorbs the record without a
 * call:
 *
 *     s->next[k] = a[k] + s->stride[k]   (each address k of the record)
 *     phase = phase + 1 == period ? 0 : phase + 1
 *     left = left - 1                     (last: the record then counts)
 *
 * and otherwise makes the call, which does the same or ends the run.  A key
 * is type | aux << 16 | id << 32 of the record (COMP: aux = number of
 * addresses, id = site; LOOP: aux = CHT_LOOP_*, id = loop); 0 never matches.
 * Only the owning thread touches its own copy; a signal handler sees every
 * record whose `left` decrement is done.
 *
 * The queue (ABI version 4).  When no run takes the record, the pass emits
 * code that appends it to the thread's queue instead of making the call,
 * if there is room (qpos + 8 * (1 + n) <= qend, as integers):
 *
 *     qpos[1 + k] = a[k]                  (each address k, n of them)
 *     qpos[0] = key
 *     signal fence, then qpos = qpos + 1 + n
 *
 * The runtime codes the queued records, in order, at its next call from
 * the thread (before anything else it records) and whenever it writes the
 * thread's records out.  It keeps qend 0 (no room) while a run is open, so
 * that a record the run does not take is a call that ends it, and before
 * the thread's first call, while tracing is off and in a stamping run
 * (COMMHINT_STMT_CLOCK), so that every record is then a call. */
#define COMMHINT_RT_FAST_SLOTS 16 /* CHT_REPEAT_PERIOD_MAX */
#define COMMHINT_RT_FAST_ADDRS 4  /* addresses the inline path compares */

struct commhint_rt_slot {
    uint64_t key;
    uint64_t next[COMMHINT_RT_FAST_ADDRS];  /* expected addresses */
    int64_t stride[COMMHINT_RT_FAST_ADDRS]; /* bytes */
};

struct commhint_rt_fast {
    uint32_t phase;  /* slot of the next record */
    uint32_t left;   /* records the run may still absorb; 0: call */
    uint32_t period; /* slots in use */
    uint32_t reserved;
    struct commhint_rt_slot slot[COMMHINT_RT_FAST_SLOTS];
    uint64_t *qpos; /* where the next queued record goes */
    uint64_t *qend; /* end of the queue's room; 0: call */
    struct commhint_rt_loop_frame *loop; /* innermost loop recorded at its exit running, or 0 */
};

/* Per thread, initial-exec TLS (libcommhint is loaded at start-up). */
extern __thread struct commhint_rt_fast __commhint_fast;

#ifdef __cplusplus
}
#endif

#endif /* COMMHINT_RT_H */
