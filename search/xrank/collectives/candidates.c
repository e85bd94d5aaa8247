/* candidates.c - the point-to-point records the collective search can use
 * (its candidates); every other one is claimed before the patterns run, so
 * the search looks only at what it could find something in.  This is the
 * set process 0 will be sent once the collective search no longer needs
 * every log there (docs/architecture.md, "collective patterns"; issue 22):
 * on the halo exchanges of stencil codes it is empty.
 *
 * A point-to-point record is a candidate when
 *   1. its stream (rank, kind, communicator, tag) has every other rank of
 *      the communicator as a peer somewhere: a round is a part of a
 *      stream (of a stream and a call site on the second pass), and the
 *      rooted patterns and the all-to-all need a complete round, with
 *      every other rank as a peer (communicators of two ranks: every
 *      stream, for the explanations of tworanks.c);
 *   2. it is a send whose group (rank, communicator, buffer range and
 *      version: the bytes it sends) goes to every other rank, a
 *      broadcast's root's sends without forwarding;
 *   3. it is a send that forwards received bytes, or the receive it
 *      forwards;
 *   4. it is a send of the group of the send that a forwarded receive
 *      matched: a broadcast's bytes reach a rank that is not a
 *      destination of its root only through a forwarded receive, so a
 *      group none of whose messages is forwarded reaches only its
 *      destinations, and is complete only under 2;
 *   5. it is the other end of a candidate (every instance holds its
 *      records' other ends); or
 *   6. it is one of the control messages right before a candidate: of its
 *      kind, to or from its peer on its communicator, carrying a value its
 *      call used (the offset, length, block protocol, rounds.c).
 * Rules 1-3 are each rank's own; 4, 5 and 6 follow the messages, to a
 * fixed point.  search_coll_candidates finds them spread over the
 * processes of a distributed cross-rank stage, each for its ranks: a note
 * to the process of a forwarded receive's send (4), then notes along the
 * match, a round of the exchange each, until no process has one (5, 6);
 * the serial search calls it with one process.
 *
 * A record that is no candidate is in no complete round and in no
 * broadcast, so no pattern can hold it: the search finds the same with
 * or without it.  Where a stream is kept only in part (5, 6), its rounds
 * differ from those of the whole stream, but none is complete in either.
 * Collective records are kept; the other records (waits, starts, ...)
 * and the sends and receives without a peer among the ranks are left
 * out, the kinds of those between two kept records noted (sparse.c).
 *
 * The patterns read only the candidates and the collective records, in
 * sparse logs (coll_candidates_sparse, sparse.c); the hints count every
 * round and record of the whole logs at their call sites, those left out
 * too (collectives.c, tworanks.c).
 *
 * COMMHINT_COLL_EVERY_RECORD=1 searches every record.  The unit tests
 * (test-collectives.c) run every search both ways and require the same
 * hints; tests/e2e/collectives-candidates.sh compares both on every
 * example, the collective test programs and programs/coll-tree.c (a
 * broadcast forwarded along a binomial tree).
 */
#include <stdlib.h>
#include <string.h>

#include "collectives-private.h"

static bool p2p(const struct dg_msgrec *x, int P)
{
    return (x->kind == DG_MSG_SEND || x->kind == DG_MSG_RECV) && x->peer >= 0 && x->peer < P;
}

/* ---- each rank's own rules (1-4) --------------------------------------------------------------- */

/* A record by its stream and peer (rule 1) or by its send group (rules 2, 4). */
struct key {
    uint64_t a, b, c, d;
    int32_t peer;
    uint32_t pos;
};

static int key_cmp(const void *pa, const void *pb)
{
    const struct key *x = pa, *y = pb;
    int c;
    if ((c = coll_cmp_u64(x->a, y->a)) || (c = coll_cmp_u64(x->b, y->b)) || (c = coll_cmp_u64(x->c, y->c)) ||
        (c = coll_cmp_u64(x->d, y->d)))
        return c;
    return x->peer != y->peer ? (x->peer < y->peer ? -1 : 1) : coll_cmp_u64(x->pos, y->pos);
}

static bool same_group(const struct key *x, const struct key *y)
{
    return x->a == y->a && x->b == y->b && x->c == y->c && x->d == y->d;
}

/* Sorts v[0, n) by key and marks every record of a group (same key but
 * peer and position) whose distinct peers other than rank cover a
 * communicator of size[group]'s ranks but one; sets group[pos] to the
 * group's first index in v when group is not NULL. */
static void mark_covering(struct key *v, uint32_t n, int rank, const struct dg_mpilog *g, uint8_t *mk,
                          uint32_t *group)
{
    qsort(v, n, sizeof *v, key_cmp);
    for (uint32_t a = 0, b; a < n; a = b) {
        uint32_t distinct = 0;
        for (b = a; b < n && same_group(&v[b], &v[a]); b++)
            if (v[b].peer != rank && (b == a || v[b].peer != v[b - 1].peer))
                distinct++;
        uint32_t size = g->rec[v[a].pos].comm_size;
        for (uint32_t k = a; k < b; k++) {
            if (size >= 2 && distinct + 1 >= size)
                mk[v[k].pos] = 1;
            if (group)
                group[v[k].pos] = a;
        }
    }
}

/* Rules 1-3 on rank r's log; its sends sorted by group into *sends (with
 * group[pos] their group's first index) for rule 4. */
static int mark_own(const struct dg_mpilog *g, int r, int P, uint8_t *mk, struct key **sends, uint32_t *nsends,
                    uint32_t *group)
{
    struct key *v = malloc((g->n ? g->n : 1) * sizeof *v);
    struct key *s = malloc((g->n ? g->n : 1) * sizeof *s);
    if (!v || !s) {
        free(v);
        free(s);
        return TRACE_ERR_NOMEM;
    }
    uint32_t nv = 0, ns = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        const struct dg_msgrec *x = &g->rec[i];
        if (!p2p(x, P))
            continue;
        v[nv++] = (struct key){x->kind, x->comm, (uint64_t)(uint32_t)x->tag, 0, x->peer, i};
        if (x->kind == DG_MSG_SEND)
            s[ns++] = (struct key){x->comm, x->buf, x->bytes, x->version, x->peer, i};
        if (x->kind == DG_MSG_SEND && (x->flags & DG_MSGF_FORWARD) && x->fwd_pos < g->n &&
            p2p(&g->rec[x->fwd_pos], P))
            mk[i] = mk[x->fwd_pos] = 1;
    }
    mark_covering(v, nv, r, g, mk, NULL);
    mark_covering(s, ns, r, g, mk, group);
    free(v);
    *sends = s;
    *nsends = ns;
    return 0;
}

/* ---- following the messages (rules 4-6) -------------------------------------------------------- */

/* One process's part: its ranks' logs (logs[r] non-NULL), their marks, and
 * the notes to the other processes. */
struct cand {
    const struct dg_mpilog *const *logs;
    int P;
    const int *owner; /* NULL: every rank here */
    const struct dg_xchg *x;
    const struct dg_match *m;
    uint8_t **mk;          /* 1: a candidate, 2: one followed */
    struct key **sends;    /* [rank] its sends by group (rule 4) */
    uint32_t *nsends;      /* [rank] */
    uint32_t **group;      /* [rank][pos] a send's group: its first index in sends */
    struct dg_pos *todo;   /* candidates to follow */
    uint32_t n, cap;
    struct dg_bytes *out, *in; /* per process: positions to mark there */
    int st;                /* this process's status */
};

static bool here(const struct cand *c, struct dg_pos p)
{
    return p.rank >= 0 && p.rank < c->P && c->logs[p.rank] && p.pos < c->logs[p.rank]->n;
}

/* Rule 4 at p, a send here: its group. */
static void mark_group(struct cand *c, struct dg_pos p)
{
    if (!here(c, p) || c->logs[p.rank]->rec[p.pos].kind != DG_MSG_SEND)
        return;
    const struct key *v = c->sends[p.rank];
    uint32_t g = c->group[p.rank][p.pos];
    for (uint32_t k = g; k < c->nsends[p.rank] && same_group(&v[k], &v[g]); k++)
        if (!c->mk[p.rank][v[k].pos])
            c->mk[p.rank][v[k].pos] = 1;
}

/* Rule 5 at p: a candidate to follow if it is a point-to-point record here. */
static void mark_follow(struct cand *c, struct dg_pos p)
{
    if (!here(c, p) || !p2p(&c->logs[p.rank]->rec[p.pos], c->P) || c->mk[p.rank][p.pos] == 2)
        return;
    c->mk[p.rank][p.pos] = 2;
    if (coll_grow(&c->todo, &c->cap, (uint64_t)c->n + 1, sizeof *c->todo) < 0)
        c->st = TRACE_ERR_NOMEM;
    else
        c->todo[c->n++] = p;
}

/* Does fn at p where p's rank is held: at once here, else as a note to
 * its process for the next exchange. */
static void note(struct cand *c, struct dg_pos p, void (*fn)(struct cand *, struct dg_pos))
{
    if (p.rank < 0 || p.rank >= c->P)
        return;
    if (c->logs[p.rank]) {
        fn(c, p);
        return;
    }
    int q = c->owner ? c->owner[p.rank] : -1;
    if (q >= 0 && q < c->x->nprocs && q != c->x->proc && !dg_bytes_put(&c->out[q], &p, sizeof p))
        c->st = TRACE_ERR_NOMEM;
}

/* One exchange of the notes; fn on each received.  The exchange's result:
 * 1 if any process sent a note, 0 if none did, < 0 if one failed. */
static int exchange(struct cand *c, void (*fn)(struct cand *, struct dg_pos))
{
    int rc = c->x->alltoall(c->x->ctx, c->st, c->out, c->in);
    for (int q = 0; q < c->x->nprocs; q++) {
        for (size_t off = 0; rc > 0 && off + sizeof(struct dg_pos) <= c->in[q].len; off += sizeof(struct dg_pos)) {
            struct dg_pos p;
            memcpy(&p, c->in[q].p + off, sizeof p);
            fn(c, p);
        }
        dg_bytes_free(&c->in[q]);
    }
    return rc;
}

/* Rules 5 and 6 of every candidate to follow here. */
static void follow_all(struct cand *c)
{
    while (c->n && c->st == 0) {
        struct dg_pos p = c->todo[--c->n];
        const struct dg_mpilog *g = c->logs[p.rank];
        const struct dg_msgrec *x = &g->rec[p.pos];
        note(c, dg_match_peer(c->m, p), mark_follow);
        for (uint32_t i = p.pos; i-- > 0;) {
            const struct dg_msgrec *y = &g->rec[i];
            if (y->kind != x->kind || y->peer != x->peer || y->comm != x->comm || !(y->flags & DG_MSGF_ARG) ||
                y->use_site != x->site)
                break;
            mark_follow(c, (struct dg_pos){p.rank, i});
        }
    }
}

/* Every process's part: rules 1-3 on its logs, rule 4 (one exchange: a
 * forwarded receive's process tells its send's), then 5 and 6 to a fixed
 * point (an exchange a round, until no process has a note). */
static int cand_run(struct cand *c)
{
    for (int r = 0; r < c->P && c->st == 0; r++)
        if (c->logs[r] && !(c->group[r] = malloc((c->logs[r]->n ? c->logs[r]->n : 1) * sizeof **c->group)))
            c->st = TRACE_ERR_NOMEM;
    for (int r = 0; r < c->P && c->st == 0; r++)
        if (c->logs[r])
            c->st = mark_own(c->logs[r], r, c->P, c->mk[r], &c->sends[r], &c->nsends[r], c->group[r]);
    for (int r = 0; r < c->P && c->st == 0; r++) {
        const struct dg_mpilog *g = c->logs[r];
        for (uint32_t i = 0; g && i < g->n; i++) {
            const struct dg_msgrec *x = &g->rec[i];
            if (x->kind == DG_MSG_SEND && (x->flags & DG_MSGF_FORWARD) && x->fwd_pos < g->n)
                note(c, dg_match_peer(c->m, (struct dg_pos){r, x->fwd_pos}), mark_group);
        }
    }
    int rc = exchange(c, mark_group);
    for (int r = 0; r < c->P && rc >= 0 && c->st == 0; r++) {
        const struct dg_mpilog *g = c->logs[r];
        for (uint32_t i = 0; g && i < g->n; i++)
            if (c->mk[r][i] == 1)
                mark_follow(c, (struct dg_pos){r, i});
    }
    while (rc >= 0) {
        follow_all(c);
        if ((rc = exchange(c, mark_follow)) <= 0)
            break;
    }
    return rc < 0 ? rc : c->st;
}

int search_coll_candidates(const struct dg_mpilog *const *logs, int P, const int *owner, const struct dg_xchg *x,
                           const struct dg_match *m, uint8_t **mark)
{
    struct cand c = {.logs = logs, .P = P, .owner = owner, .x = x, .m = m, .mk = mark};
    c.sends = calloc((size_t)P, sizeof *c.sends);
    c.nsends = calloc((size_t)P, sizeof *c.nsends);
    c.group = calloc((size_t)P, sizeof *c.group);
    c.out = dg_bytes_per_proc(x->nprocs);
    c.in = dg_bytes_per_proc(x->nprocs);
    c.st = c.sends && c.nsends && c.group && c.out && c.in ? 0 : TRACE_ERR_NOMEM;
    int rc = dg_xchg_agree(x, c.st);
    if (rc == 0)
        rc = cand_run(&c);
    for (int r = 0; r < P; r++) {
        if (c.sends)
            free(c.sends[r]);
        if (c.group)
            free(c.group[r]);
    }
    free(c.sends);
    free(c.nsends);
    free(c.group);
    free(c.todo);
    dg_bytes_per_proc_free(c.out, x->nprocs);
    dg_bytes_per_proc_free(c.in, x->nprocs);
    return dg_xchg_agree(x, rc);
}

int coll_candidates_sparse(const struct cx *c, struct coll_sparse *sp, bool *on)
{
    const char *every = getenv("COMMHINT_COLL_EVERY_RECORD");
    memset(sp, 0, sizeof *sp);
    *on = !(every && *every && strcmp(every, "0"));
    if (!*on || c->x->csparse) /* built with the context (search_coll_sparse_dist) */
        return 0;
    uint8_t **mk = calloc((size_t)c->P, sizeof *mk);
    int rc = mk ? 0 : TRACE_ERR_NOMEM;
    for (int r = 0; r < c->P && rc >= 0; r++)
        if (c->logs[r] && !(mk[r] = calloc(c->logs[r]->n ? c->logs[r]->n : 1, 1)))
            rc = TRACE_ERR_NOMEM;
    if (rc >= 0)
        rc = search_coll_candidates(c->logs, c->P, NULL, dg_xchg_serial(), c->m, mk);
    if (rc >= 0)
        rc = coll_sparse_build(c->logs, c->P, mk, sp);
    for (int r = 0; mk && r < c->P; r++)
        free(mk[r]);
    free(mk);
    return rc;
}
