/* rusage.c - the CPU time of one process, for bench/fastpath.sh.
 *
 * Built as a shared library and put in LD_PRELOAD of a program (traced or
 * not: it defines no MPI function, so it does not come between the program
 * and commhint's MPI wrappers), it prints one line on standard error when
 * the process exits:
 *     rusage: comm=NAME user_ns=U sys_ns=S maxrss_kb=M
 * with the user and system CPU time of all the process's threads
 * (getrusage(RUSAGE_SELF)).  A traced program writes the rest of its trace
 * in MPI_Finalize, before this runs.  Nothing else changes. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>

static unsigned long long tv_ns(struct timeval tv)
{
    return (unsigned long long)tv.tv_sec * 1000000000ull + (unsigned long long)tv.tv_usec * 1000ull;
}

__attribute__((destructor)) static void rusage_report(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return;
    fprintf(stderr, "rusage: comm=%s user_ns=%llu sys_ns=%llu maxrss_kb=%ld\n", program_invocation_short_name,
            tv_ns(ru.ru_utime), tv_ns(ru.ru_stime), ru.ru_maxrss);
}
