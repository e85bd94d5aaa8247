/* sym.c - input of tests/unit/test-symbolize.c: built with clang -g at -O0
 * and -O2, run, and the return addresses it prints are symbolised.  The
 * test finds the expected lines by the LINE_* markers in comments, so edit
 * freely but keep each marker on the line of its call.  At -O2 `inner` is
 * inlined into `outer`.
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <stdint.h>

__attribute__((noinline)) void *probe(void)
{
    __asm__ volatile("" ::: "memory");
    return __builtin_return_address(0);
}

static inline void *inner(int x)
{
    void *r = probe(); /* LINE_INNER */
    return x ? r : (void *)0;
}

__attribute__((noinline)) void *outer(int x)
{
    return inner(x) /* LINE_OUTER */;
}

static int first_object(struct dl_phdr_info *info, size_t size, void *data)
{
    uintptr_t *out = data;
    int i;

    (void)size;
    out[0] = info->dlpi_addr;
    out[1] = UINTPTR_MAX;
    out[2] = 0;
    for (i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        if (p->p_type != PT_LOAD)
            continue;
        if (info->dlpi_addr + p->p_vaddr < out[1])
            out[1] = info->dlpi_addr + p->p_vaddr;
        if (info->dlpi_addr + p->p_vaddr + p->p_memsz > out[2])
            out[2] = info->dlpi_addr + p->p_vaddr + p->p_memsz;
    }
    return 1; /* the executable comes first */
}

int main(int argc, char **argv)
{
    uintptr_t mod[3];
    void *a = probe(); /* LINE_MAIN */
    void *b = outer(argc);

    (void)argv;
    dl_iterate_phdr(first_object, mod);
    printf("%lx %lx %lx %lx %lx\n", (unsigned long)mod[0], (unsigned long)mod[1],
           (unsigned long)mod[2], (unsigned long)(uintptr_t)a, (unsigned long)(uintptr_t)b);
    return 0;
}
