/* callpath.c - the call path of an MPI call (CHT_REC_PATH): the return
 * addresses of the frames above the function that made the call, read by
 * walking the frame-pointer chain.
 *
 * Why frame pointers: an MPI call is not the hot path, but some codes make
 * millions; an unwinder from .eh_frame costs microseconds per call, the
 * walk a few nanoseconds per frame.  The pass gives every function it
 * builds a frame pointer ("frame-pointer"="all"), and the runtime is built
 * with -fno-omit-frame-pointer.  A function built without one (a library,
 * libc's start code) leaves a frame pointer that may point anywhere: the
 * walk only follows frames that lie on this thread's stack, above the
 * last one, 16-byte aligned, and the reader keeps a frame only when the
 * function it was read from is the program's own (docs/trace-format.md,
 * "Call paths").
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "rt-private.h"

/* Frames recorded per call (COMMHINT_CALLPATH, 0 = none); -1 until read. */
static int path_depth = -1;

/* This thread's stack: [lo, hi); hi 0 until known, UINTPTR_MAX if it
 * cannot be known (then no path is recorded). */
static __thread uintptr_t stack_lo, stack_hi;

unsigned rt_callpath_depth(void)
{
    int d = __atomic_load_n(&path_depth, __ATOMIC_RELAXED);
    if (d < 0) {
        const char *v = getenv("COMMHINT_CALLPATH");
        char *end;
        long n = v && *v ? strtol(v, &end, 10) : CHT_PATH_DEFAULT;
        if (v && *v && (*end || n < 0)) {
            rt_warn_once(RT_WARN_ENV, "COMMHINT_CALLPATH is not a number of frames: the default is "
                         "used: value=%s default=%d", v, CHT_PATH_DEFAULT);
            n = CHT_PATH_DEFAULT;
        }
        d = n > CHT_PATH_MAX ? CHT_PATH_MAX : (int)n;
        __atomic_store_n(&path_depth, d, __ATOMIC_RELAXED);
    }
    return (unsigned)d;
}

static int stack_bounds(void)
{
    pthread_attr_t a;
    void *addr;
    size_t size;

    if (stack_hi)
        return stack_hi != UINTPTR_MAX;
    stack_hi = UINTPTR_MAX;
    if (pthread_getattr_np(pthread_self(), &a))
        return 0;
    if (!pthread_attr_getstack(&a, &addr, &size) && addr && size) {
        stack_lo = (uintptr_t)addr;
        stack_hi = (uintptr_t)addr + size;
    }
    pthread_attr_destroy(&a);
    return stack_hi != UINTPTR_MAX;
}

/* A frame record at fp can be read: on the stack, above `below`, aligned. */
static inline int frame_ok(uintptr_t fp, uintptr_t below)
{
    return fp > below && fp >= stack_lo && fp <= stack_hi - 2 * sizeof(uintptr_t) &&
           !(fp & (2 * sizeof(uintptr_t) - 1));
}

unsigned rt_callpath(uint64_t ret_addr, uint64_t *out, unsigned max)
{
#if defined(__x86_64__) || defined(__aarch64__)
    uintptr_t fp = (uintptr_t)__builtin_frame_address(0), below = 0;
    unsigned n = 0, k;

    if (!max || !ret_addr || !stack_bounds())
        return 0;
    below = fp - 1;
    /* the runtime's own frames, up to the wrapper's: its return address
     * is the caller's ret_addr */
    for (k = 0; k < 6; k++) {
        if (!frame_ok(fp, below))
            return 0;
        const uintptr_t *f = (const uintptr_t *)fp;
        below = fp;
        fp = f[0];
        if ((uint64_t)f[1] == ret_addr)
            break;
    }
    if (k == 6)
        return 0;
    /* fp: the frame of the function that made the call */
    while (n < max && frame_ok(fp, below)) {
        const uintptr_t *f = (const uintptr_t *)fp;
        if (!f[1])
            break;
        out[n++] = (uint64_t)f[1];
        below = fp;
        fp = f[0];
    }
    return n;
#else
    (void)ret_addr;
    (void)out;
    (void)max;
    return 0;
#endif
}
