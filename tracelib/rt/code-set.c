/* code-set.c - the functions that code built with the pass defines.
 *
 * A call from instrumented code to a function the pass did not compile
 * (libc's qsort, a BLAS routine, a file built without the pass) reads and
 * writes memory the trace never sees.  The pass cannot tell such a call
 * from a call into another instrumented file, so it puts
 * __commhint_extern_call(site, callee, name) before every call whose callee
 * it does not define and that hands a pointer into the program's memory;
 * the runtime looks the callee's address up here, and records the call as
 * a fence (CHT_MPI_UNTRACED with the callee's name, CHT_MPI_EXTERN for the
 * readers) when it is not one of these (docs/dependence.md, "Calls into
 * code built without the pass").
 *
 * The set grows when a translation unit registers (before main, or at
 * dlopen) and is read on every such call from any thread: an open-address
 * table published by one atomic pointer, replaced (and the old one kept)
 * when it grows, so that readers take no lock.
 */
#include <signal.h>

#include "recorder-private.h"

struct code_table {
    size_t cap; /* a power of two */
    size_t used;
    uintptr_t slot[]; /* 0: empty */
};

static struct code_table *code_now; /* published with release */
static int code_lock;

static size_t code_hash(uintptr_t p, size_t cap)
{
    uint64_t h = (uint64_t)p * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 17) & (cap - 1);
}

static void code_put(struct code_table *t, uintptr_t p)
{
    size_t i = code_hash(p, t->cap);
    while (t->slot[i] && t->slot[i] != p)
        i = (i + 1) & (t->cap - 1);
    if (!t->slot[i]) {
        t->slot[i] = p;
        t->used++;
    }
}

int rt_code_add(const void *const *fns, uint32_t n)
{
    int rc = 0;
    sigset_t old;
    rt_block_signals(&old);
    rt_lock(&code_lock);
    struct code_table *t = __atomic_load_n(&code_now, __ATOMIC_ACQUIRE);
    size_t need = (t ? t->used : 0) + n;
    if (!t || need * 2 > t->cap) {
        size_t cap = 64;
        while (cap < need * 2)
            cap *= 2;
        struct code_table *g = rt_mem_alloc(sizeof *g + cap * sizeof g->slot[0]); /* zeroed */
        if (!g) {
            rc = -1;
            goto out;
        }
        g->cap = cap;
        for (size_t i = 0; t && i < t->cap; i++)
            if (t->slot[i])
                code_put(g, t->slot[i]);
        /* readers may still hold t: it is never freed (one per doubling) */
        t = g;
    }
    for (uint32_t k = 0; k < n; k++)
        if (fns[k])
            code_put(t, (uintptr_t)fns[k]);
    __atomic_store_n(&code_now, t, __ATOMIC_RELEASE);
out:
    rt_unlock(&code_lock);
    rt_restore_signals(&old);
    return rc;
}

int rt_code_has(const void *fn)
{
    const struct code_table *t = __atomic_load_n(&code_now, __ATOMIC_ACQUIRE);
    uintptr_t p = (uintptr_t)fn;
    if (!t || !p)
        return 0;
    for (size_t i = code_hash(p, t->cap);; i = (i + 1) & (t->cap - 1)) {
        uintptr_t s = __atomic_load_n(&t->slot[i], __ATOMIC_RELAXED);
        if (s == p)
            return 1;
        if (!s)
            return 0;
    }
}
