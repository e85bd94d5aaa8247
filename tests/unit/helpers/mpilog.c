/* mpilog.c - MPI logs made by hand (mpilog.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpilog.h"

struct dg_msgrec *mpilog_push(struct dg_mpilog *g)
{
    if (g->n == g->cap) {
        uint32_t cap = g->cap ? g->cap * 2 : 16;
        struct dg_msgrec *rec = realloc(g->rec, cap * sizeof *rec);
        if (!rec) {
            fprintf(stderr, "mpilog_push: out of memory\n");
            abort();
        }
        g->rec = rec;
        g->cap = cap;
    }
    struct dg_msgrec *r = &g->rec[g->n];
    memset(r, 0, sizeof *r);
    r->index = g->n;
    r->peer = -1;
    r->tag = -1;
    r->site = CHT_NONE;
    g->n++;
    return r;
}
