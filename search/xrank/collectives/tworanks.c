/* tworanks.c - for --explain: point-to-point call sites the collective
 * search does not look at because every message they move travels on a
 * communicator of two ranks (docs/collectives.md, "Two ranks per
 * communicator").  There every round is one message, which a collective
 * would send too, so no pattern is searched; without this, a hand-written
 * broadcast along the rows of a 2x2 process grid gets no hint and no word
 * why.
 *
 * One dropped entry per pair of sending and receiving call sites whose
 * matched messages all travel on communicators of exactly two ranks, at
 * the send, over all ranks and messages.  None in a run of two ranks in
 * all (every message would get one, and the rank count says it already),
 * none for a site that also moves data on a communicator of another size
 * (it is searched there), and none for a site that already has a
 * collective hint or a rejected reduce.
 *
 * The messages are read where the whole logs are (jobs.c, the TWORANKS
 * job): the search (on process 0) sends each process the records its
 * hints claimed on its ranks and on their peers, by whole position; each
 * process scans its ranks' logs (a message's receive through the match's
 * copy of it) and answers with its ranks' pairs of call site ids and
 * message counts and the sites that move data on communicators of
 * another size; process 0 turns site ids into locations.  With one
 * process the same code runs on every log.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "collectives-private.h"

/* A matched message of one sending rank on a communicator of two ranks. */
struct tmsg {
    uint32_t ssite, rsite; /* the sender's and the receiver's call site ids */
    int32_t rrank;         /* the receiving rank */
    uint32_t spos;         /* log position of the send */
    uint16_t scall, rcall;
};

/* A pair of call sites, over ranks and messages. */
struct tpair {
    struct loc send, recv;
    uint16_t scall, rcall;
    uint64_t messages;
    uint8_t *ranks; /* [P] */
};

struct two {
    struct dg_map *wide; /* [P] site ids of a rank that move data on a communicator of another size */
    struct tpair *v;
    uint32_t n, cap;
    struct loc *searched; /* sites searched or already reported: sorted */
    uint32_t ns, caps;
};

static uint64_t pos_key(int rank, uint32_t pos)
{
    return (uint64_t)(uint32_t)rank << 32 | pos;
}

static int tmsg_cmp(const void *pa, const void *pb)
{
    const struct tmsg *a = pa, *b = pb;
    int c;
    if ((c = coll_cmp_u64(a->ssite, b->ssite)) ||
        (c = coll_cmp_u64((uint32_t)a->rrank, (uint32_t)b->rrank)) || (c = coll_cmp_u64(a->rsite, b->rsite)))
        return c;
    return coll_cmp_u64(a->spos, b->spos);
}

static int ent_cmp(const void *pa, const void *pb)
{
    const struct search_tworanks_ent *a = pa, *b = pb;
    int c;
    if ((c = coll_cmp_u64((uint32_t)a->srank, (uint32_t)b->srank)) || (c = coll_cmp_u64(a->ssite, b->ssite)) ||
        (c = coll_cmp_u64((uint32_t)a->rrank, (uint32_t)b->rrank)))
        return c;
    return coll_cmp_u64(a->rsite, b->rsite);
}

/* ---- the answer (every process) ------------------------------------------------------------ */

struct scan {
    const struct search_xrank *d;
    struct dg_map claims; /* pos_key of the records the hints claimed */
    struct dg_map wide;   /* pos_key(rank, site) of sites answered as wide */
    struct tmsg *m;       /* one rank's messages */
    uint32_t nm, capm;
    struct dg_bytes *ans;
};

static bool is_claimed(const struct scan *s, struct dg_pos p)
{
    return dg_map_get(&s->claims, pos_key(p.rank, p.pos)) != NULL;
}

/* Answers (rank, site) as wide, once. */
static int answer_wide(struct scan *s, int rank, uint32_t site)
{
    uint64_t key = pos_key(rank, site);
    if (dg_map_get(&s->wide, key))
        return 0;
    struct search_tworanks_ent e = {rank, site, -1, 0, 0, 0, 0, 0};
    return dg_map_put(&s->wide, key, 1) && dg_bytes_put(s->ans, &e, sizeof e) ? 0 : TRACE_ERR_NOMEM;
}

/* One rank's records: the matched messages it sends on communicators of
 * two ranks into s->m, and the sites of the other messages answered as
 * wide (a message's size is its send's: a receive completed by a Wait
 * does not carry its communicator's).  Records the patterns did not look
 * at (candidates.c) count, only those in a hint's instances are left
 * out. */
static int scan_rank(struct scan *s, int r)
{
    const struct dg_mpilog *g = s->d->logs[r];
    s->nm = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        const struct dg_msgrec *x = &g->rec[i];
        if ((x->kind != DG_MSG_SEND && x->kind != DG_MSG_RECV) || is_claimed(s, (struct dg_pos){r, i}))
            continue;
        struct dg_pos pp = dg_match_peer(s->d->match, (struct dg_pos){r, i});
        const struct dg_msgrec *px = pp.rank >= 0 ? dg_match_rec(s->d->match, pp) : NULL;
        bool matched = px && !is_claimed(s, pp);
        int rc = 0;
        if (x->kind == DG_MSG_RECV) {
            /* a matched receive is seen from its send */
            if (!matched && x->comm_size != 2)
                rc = answer_wide(s, r, x->site);
        } else if (x->comm_size != 2) {
            if ((rc = answer_wide(s, r, x->site)) >= 0 && matched)
                rc = answer_wide(s, pp.rank, px->site);
        } else if (matched) {
            if ((rc = coll_grow(&s->m, &s->capm, (uint64_t)s->nm + 1, sizeof *s->m)) >= 0)
                s->m[s->nm++] =
                    (struct tmsg){x->site, px->site, pp.rank, i, coll_rec_call(x), coll_rec_call(px)};
        }
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* s->m, sorted, answered per sending site, receiving rank and site (the
 * calls of its first message). */
static int answer_pairs(struct scan *s, int r)
{
    if (s->nm)
        qsort(s->m, s->nm, sizeof *s->m, tmsg_cmp);
    for (uint32_t a = 0, b; a < s->nm; a = b) {
        const struct tmsg *e = &s->m[a];
        for (b = a + 1; b < s->nm && s->m[b].ssite == e->ssite && s->m[b].rrank == e->rrank &&
                        s->m[b].rsite == e->rsite;
             b++)
            ;
        struct search_tworanks_ent t = {r, e->ssite, e->rrank, e->rsite, e->scall, e->rcall, 0, b - a};
        if (!dg_bytes_put(s->ans, &t, sizeof t))
            return TRACE_ERR_NOMEM;
    }
    return 0;
}

int search_coll_tworanks_local(const struct search_xrank *d, const uint8_t *p, size_t len, struct dg_bytes *ans)
{
    struct scan s = {.d = d, .ans = ans};
    int rc = len % sizeof(struct dg_pos) ? TRACE_ERR_FORMAT : 0;
    for (size_t off = 0; off < len && rc >= 0; off += sizeof(struct dg_pos)) {
        struct dg_pos q;
        memcpy(&q, p + off, sizeof q);
        if (q.rank < 0 || q.rank >= d->world_size)
            rc = TRACE_ERR_FORMAT;
        else if (!dg_map_put(&s.claims, pos_key(q.rank, q.pos), 1))
            rc = TRACE_ERR_NOMEM;
    }
    for (int r = 0; r < d->world_size && rc >= 0; r++)
        if (d->logs[r] && (rc = scan_rank(&s, r)) >= 0)
            rc = answer_pairs(&s, r);
    dg_map_free(&s.claims);
    dg_map_free(&s.wide);
    free(s.m);
    return rc;
}

/* ---- the question and the hints (process 0) ------------------------------------------------ */

static void two_free(struct two *t, int P)
{
    if (t->wide)
        for (int r = 0; r < P; r++)
            dg_map_free(&t->wide[r]);
    free(t->wide);
    for (uint32_t i = 0; i < t->n; i++)
        free(t->v[i].ranks);
    free(t->v);
    free(t->searched);
}

int search_coll_tworanks_ask(const struct search_xrank *x, struct dg_pos w, int peer_rank, struct dg_bytes *part)
{
    int q = search_xrank_proc_of(x, w.rank);
    if (!dg_bytes_put(&part[q], &w, sizeof w))
        return TRACE_ERR_NOMEM;
    int pq = peer_rank >= 0 ? search_xrank_proc_of(x, peer_rank) : q;
    return pq == q || dg_bytes_put(&part[pq], &w, sizeof w) ? 0 : TRACE_ERR_NOMEM;
}

/* The records the hints claimed, by whole position, to the process of
 * their rank and to that of their peer's. */
static int ask(const struct cx *c, struct dg_bytes *part)
{
    int rc = 0;
    for (int r = 0; r < c->P && rc == 0; r++) {
        const struct dg_mpilog *g = c->logs[r];
        for (uint32_t i = 0; g && i < g->n && rc == 0; i++) {
            if (c->claimed[r][i] != CLAIM_FOUND)
                continue;
            int peer = -1;
            if (g->rec[i].kind == DG_MSG_SEND || g->rec[i].kind == DG_MSG_RECV) {
                struct dg_pos pp = dg_match_peer(c->m, (struct dg_pos){r, i});
                peer = coll_valid(c, pp) ? pp.rank : -1;
            }
            rc = search_coll_tworanks_ask(c->x, (struct dg_pos){r, coll_orig_pos(c, r, i)}, peer, part);
        }
    }
    return rc;
}

static int tpair_cmp(const void *pa, const void *pb)
{
    const struct tpair *a = pa, *b = pb;
    int c = coll_loc_cmp(&a->send, &b->send);
    return c ? c : coll_loc_cmp(&a->recv, &b->recv);
}

static int loc_qcmp(const void *pa, const void *pb)
{
    return coll_loc_cmp(pa, pb);
}

/* Adds the messages of an answer to the pair of their locations. */
static int add_pair(const struct cx *c, struct two *t, const struct search_tworanks_ent *e)
{
    struct tpair key = {0};
    coll_loc_of(c, e->srank, e->ssite, &key.send);
    coll_loc_of(c, e->rrank, e->rsite, &key.recv);
    struct tpair *p = NULL;
    for (uint32_t i = 0; i < t->n && !p; i++)
        if (!tpair_cmp(&t->v[i], &key))
            p = &t->v[i];
    if (!p) {
        if (coll_grow(&t->v, &t->cap, (uint64_t)t->n + 1, sizeof *t->v) < 0 ||
            !(key.ranks = calloc((size_t)c->P, 1)))
            return TRACE_ERR_NOMEM;
        key.scall = e->scall;
        key.rcall = e->rcall;
        p = &t->v[t->n++];
        *p = key;
    }
    p->messages += e->n;
    p->ranks[e->srank] = 1;
    p->ranks[e->rrank] = 1;
    return 0;
}

/* The processes' answers (input it distrusts) into t: the wide sites,
 * and the pairs in the order of their sending rank, site, receiving rank
 * and site, as a scan of every log in rank order adds them. */
static int read_answers(const struct cx *c, struct two *t, const struct dg_bytes *all)
{
    size_t n = all->len / sizeof(struct search_tworanks_ent);
    if (all->len % sizeof(struct search_tworanks_ent))
        return TRACE_ERR_FORMAT;
    struct search_tworanks_ent *e = malloc((n ? n : 1) * sizeof *e);
    if (!e)
        return TRACE_ERR_NOMEM;
    if (n)
        memcpy(e, all->p, n * sizeof *e);
    int rc = 0;
    for (size_t i = 0; i < n && rc >= 0; i++)
        if (e[i].srank < 0 || e[i].srank >= c->P || (e[i].n && (e[i].rrank < 0 || e[i].rrank >= c->P)))
            rc = TRACE_ERR_FORMAT;
    if (rc >= 0 && n)
        qsort(e, n, sizeof *e, ent_cmp);
    for (size_t i = 0; i < n && rc >= 0; i++)
        if (!e[i].n)
            rc = dg_map_put(&t->wide[e[i].srank], e[i].ssite, 1) ? 0 : TRACE_ERR_NOMEM;
        else
            rc = add_pair(c, t, &e[i]);
    free(e);
    return rc;
}

static int add_searched(struct two *t, const struct loc *l)
{
    if (coll_grow(&t->searched, &t->caps, (uint64_t)t->ns + 1, sizeof *t->searched) < 0)
        return TRACE_ERR_NOMEM;
    t->searched[t->ns++] = *l;
    return 0;
}

/* The sites searched for collectives or already reported: those moving
 * data on communicators of other sizes, those of the hints and of the
 * rejected reduces (sorted for bsearch). */
static int collect_searched(const struct cx *c, struct two *t)
{
    int rc = 0;
    for (int r = 0; r < c->P && rc >= 0; r++)
        for (size_t i = 0; i < t->wide[r].cap && rc >= 0; i++)
            if (dg_map_used(&t->wide[r], i)) {
                struct loc l;
                coll_loc_of(c, r, (uint32_t)t->wide[r].keys[i], &l);
                rc = add_searched(t, &l);
            }
    for (uint32_t i = 0; i < c->nh && rc >= 0; i++)
        for (uint32_t k = 0; k < c->h[i].nlocs && rc >= 0; k++)
            rc = add_searched(t, &c->h[i].locs[k].loc);
    for (uint32_t i = 0; i < c->nrej && rc >= 0; i++)
        rc = add_searched(t, &c->rej[i].recv);
    if (rc >= 0 && t->ns)
        qsort(t->searched, t->ns, sizeof *t->searched, loc_qcmp);
    return rc;
}

static bool is_searched(const struct two *t, const struct loc *l)
{
    return t->ns && bsearch(l, t->searched, t->ns, sizeof *t->searched, loc_qcmp);
}

/* "the MPI_Send calls at line 40 and the MPI_Recv calls at line 45 move
 * data only between the two ranks of their communicator (6 messages)". */
static char *pair_message(const struct tpair *p)
{
    struct search_text b = {0};
    search_text_printf(&b, "the %s calls at line %u", trace_mpi_call_name(p->scall), p->send.line);
    if (coll_loc_cmp(&p->send, &p->recv)) {
        const char *f = strrchr(p->recv.file, '/');
        f = f ? f + 1 : p->recv.file;
        search_text_printf(&b, " and the %s calls at ", trace_mpi_call_name(p->rcall));
        if (strcmp(p->recv.file, p->send.file))
            search_text_printf(&b, "%s:", *f ? f : "??");
        else
            search_text_printf(&b, "line ");
        search_text_printf(&b, "%u", p->recv.line);
    }
    search_text_printf(&b,
                       " move data only between the two ranks of their communicator (%" PRIu64 " message%s)",
                       p->messages, p->messages == 1 ? "" : "s");
    return search_text_take(&b);
}

static const char pair_explain[] =
    "each round is one message, which a collective on two ranks (MPI_Bcast, MPI_Scatter, MPI_Gather, "
    "MPI_Reduce) would send too: nothing to gain; with 3 or more ranks per communicator these sites are "
    "checked for collectives";

/* The kept pairs, sorted, as dropped hints appended to *out. */
static int pairs_hints(const struct cx *c, struct two *t, struct search_hint **out, uint32_t *nout)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        if (is_searched(t, &t->v[i].send) || is_searched(t, &t->v[i].recv)) {
            free(t->v[i].ranks);
            continue;
        }
        t->v[k++] = t->v[i];
    }
    t->n = k;
    if (t->n)
        qsort(t->v, t->n, sizeof *t->v, tpair_cmp);
    for (uint32_t i = 0; i < t->n; i++) {
        const struct tpair *p = &t->v[i];
        int rc = coll_dropped_add(c, out, nout, &p->send, p->scall, NULL, -1, p->messages, p->ranks,
                                  pair_message(p), strdup(pair_explain));
        if (rc < 0)
            return rc;
    }
    return 0;
}

int coll_two_ranks_hints(const struct cx *c, struct search_hint **out, uint32_t *nout)
{
    struct two t = {0};
    if (c->P <= 2)
        return 0;
    int K = search_xrank_nprocs(c->x);
    struct dg_bytes *part = dg_bytes_per_proc(K), all = {0};
    int rc = part && (t.wide = calloc((size_t)c->P, sizeof *t.wide)) ? 0 : TRACE_ERR_NOMEM;
    if (rc >= 0)
        rc = ask(c, part);
    rc = search_xrank_coll_tworanks(c->x, part, rc, &all);
    if (rc >= 0 && (rc = read_answers(c, &t, &all)) >= 0 && (rc = collect_searched(c, &t)) >= 0)
        rc = pairs_hints(c, &t, out, nout);
    dg_bytes_per_proc_free(part, K);
    dg_bytes_free(&all);
    two_free(&t, c->P);
    return rc;
}
