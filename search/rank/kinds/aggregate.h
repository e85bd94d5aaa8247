/* aggregate.h - what the files of the aggregation kind share (aggregate.c:
 * the kind and its per-rank result; aggregate-stream.c,
 * aggregate-reference.c: the two engines; aggregate-merge.c: hints across
 * ranks). */
#ifndef COMMHINT_SEARCH_KIND_AGGREGATE_H
#define COMMHINT_SEARCH_KIND_AGGREGATE_H

#include "rank/kind.h"

extern const struct search_stream_methods search_aggregate_stream;
int search_aggregate_reference(struct search_ref *x, struct search_rank_result *r);
int search_aggregate_merge(const struct search_merge *m);
int search_aggregate_log_facts(struct search_rank_result *r);
int search_aggregate_peer_facts(struct search_xrank *x, struct search_rank_result *r);
void search_aggregate_peer_pack(struct pk_buf *b, const struct search_rank_result *r);
void search_aggregate_peer_unpack(struct pk_rd *rd, struct search_rank_result *r);
char *search_aggregate_message(const struct search_hint *h, bool with_times);

/* Order of group summaries in a result: comm, peer, the member sites,
 * then the first member's call. */
int search_group_cmp(const struct search_group *a, const struct search_group *b);
/* Gives every group of r its info array (nsites entries, NULL until
 * search_run_rank resolves them), as results always have. */
int search_groups_make_info(struct search_rank_result *r);

/* An exchange that aggregation may merge (docs/dependence.md, "Message
 * aggregation", "Exchanges"): a Sendrecv or Sendrecv_replace with a send
 * to a real rank and a receive from a named rank (not MPI_ANY_SOURCE).
 * Its channel is (communicator, *dest, *src). */
static inline bool search_ag_exchange(const struct dg_event *e, int32_t *dest, int32_t *src)
{
    if (e->kind != DG_MPI || e->role != DG_ROLE_SENDRECV)
        return false;
    *dest = *src = -1;
    for (uint32_t i = 0; i < e->nkeys; i++) {
        if (e->keys[i].cls == DG_KEY_SEND)
            *dest = e->keys[i].peer;
        else if (e->keys[i].cls == DG_KEY_RECV)
            *src = e->keys[i].peer;
    }
    return *dest >= 0 && *src >= 0;
}

/* A nonblocking send that aggregation may merge ("Nonblocking sends"):
 * an Isend, Issend, Ibsend or Irsend (or the start of a persistent one)
 * to a real rank, with a request.  Its channel is (communicator, *dest);
 * *req is its request id. */
static inline bool search_ag_isend(const struct dg_event *e, int32_t *dest, uint64_t *req)
{
    if (e->kind != DG_MPI || e->role != DG_ROLE_START || e->call < CHT_MPI_ISEND || e->call > CHT_MPI_IRSEND)
        return false;
    bool has_req = false;
    *dest = -1;
    for (uint32_t i = 0; i < e->nkeys; i++) {
        if (e->keys[i].cls == DG_KEY_SEND)
            *dest = e->keys[i].peer;
        else if (e->keys[i].cls == DG_KEY_REQ) {
            *req = e->keys[i].comm;
            has_req = true;
        }
    }
    return *dest >= 0 && has_req;
}

/* Whether e completes (or otherwise acts on) request req: it carries its
 * REQ key. */
static inline bool search_ag_touches_req(const struct dg_event *e, uint64_t req)
{
    for (uint32_t i = 0; i < e->nkeys; i++)
        if (e->keys[i].cls == DG_KEY_REQ && e->keys[i].comm == req)
            return true;
    return false;
}

/* Whether two events are exchanges on the same channel. */
static inline bool search_ag_same_exchange(const struct dg_event *a, const struct dg_event *b)
{
    int32_t ad, as, bd, bs;
    return search_ag_exchange(a, &ad, &as) && search_ag_exchange(b, &bd, &bs) && a->comm == b->comm &&
           ad == bd && as == bs;
}

/* Whether two events are nonblocking sends on the same channel. */
static inline bool search_ag_same_isend(const struct dg_event *a, const struct dg_event *b)
{
    int32_t ad, bd;
    uint64_t ar, br;
    return search_ag_isend(a, &ad, &ar) && search_ag_isend(b, &bd, &br) && a->comm == b->comm && ad == bd;
}

/* The relation as aggregation sees it: dg_depends with the shared keys of
 * two movable sends, two exchanges or two nonblocking sends of one
 * channel left out (that is what merging them means; two open requests
 * never share an id). */
static inline bool search_ag_depends(const struct dg_event *a, const struct dg_event *b)
{
    if (search_ag_same_exchange(a, b) || search_ag_same_isend(a, b)) {
        struct dg_event x = *a, y = *b;
        x.nkeys = y.nkeys = 0;
        return dg_depends(&x, &y, false);
    }
    return dg_depends(a, b, false);
}

/* Whether later event e depends on movable send m only by writing bytes
 * that m's send buffer read (an anti dependence, docs/dependence.md,
 * "Needs a buffer per message"): no key, no fence, no value; giving the
 * message its own buffer removes it. */
static inline bool search_ag_buffer_only(const struct dg_event *m, const struct dg_event *e)
{
    for (uint32_t i = 0; i < m->nranges; i++)
        if (m->ranges[i].write)
            return false;
    struct dg_event x = *m;
    x.nranges = 0;
    return dg_is_movable_send(m) && !dg_depends(&x, e, false) && dg_depends(m, e, false);
}

/* The first range of m that e writes (some byte of), or NULL. */
static inline const struct dg_range *search_ag_overwritten(const struct dg_event *m, const struct dg_event *e)
{
    for (uint32_t i = 0; i < m->nranges; i++) {
        const struct dg_range *r = &m->ranges[i];
        for (uint32_t j = 0; r->len && j < e->nranges; j++) {
            const struct dg_range *w = &e->ranges[j];
            if (w->write && w->len && r->addr < w->addr + w->len && w->addr < r->addr + r->len)
                return r;
        }
    }
    return NULL;
}

/* ---- closed groups (docs/dependence.md, "What --explain says of closed
 * groups"): both engines describe a group the way the closing event met
 * it, and the reason is computed from that by one function ---------------------- */

/* A range of a member of an open group, in member order. */
struct search_ag_mrange {
    uint64_t index;
    uint32_t site;
    uint16_t call;
    struct dg_range r;
};

/* A request of a nonblocking member, in member order. */
struct search_ag_mreq {
    uint64_t req;
    uint32_t site;
    uint16_t call;
};

enum search_ag_family { SEARCH_AG_SEND, SEARCH_AG_EXCHANGE, SEARCH_AG_ISEND };

/* An open group as the event that closes it finds it. */
struct search_ag_open {
    uint8_t family;                     /* enum search_ag_family */
    uint64_t comm;
    int32_t dest, src;                  /* src: exchanges only */
    const struct search_ag_mrange *mr;  /* the members' ranges (sends: before
                                           needs-buffer mode) */
    size_t nmr;
    const struct search_ag_mreq *mq;    /* nonblocking: the members' requests */
    size_t nmq;
    bool nb;                            /* sends: in needs-buffer mode */
    uint32_t nb_buf, nb_over;           /* its member's site and the overwrite's */
    uint16_t nb_buf_call, nb_over_call;
    bool nb_over_mpi;
    bool waited;                        /* sends: passed a call that may wait */
    uint32_t wait_site;                 /* the first such call (it may be x) */
    uint16_t wait_call;
    uint32_t last_site;                 /* the last member so far */
    uint16_t last_call;
};

/* Why x closes the open group g: fills the reason, the member, the
 * closing event and aux of *out (not site, next_site, count). */
void search_ag_close_why(const struct search_ag_open *g, const struct dg_event *x, struct search_closed *out);

/* The closed pairs of one rank as an engine collects them: the
 * SEARCH_CLOSED_MAX smallest (search_closed_cmp) with their counts, and
 * how many occurrences were left out.  The smallest are kept whatever the
 * order of arrival, so both engines keep the same ones. */
struct search_closed_set {
    struct search_closed *v;
    uint32_t n;
    uint64_t more;
};
int search_closed_cmp(const struct search_closed *a, const struct search_closed *b);
/* Counts one occurrence of c (count ignored). */
int search_closed_add(struct search_closed_set *s, const struct search_closed *c);
/* Hands the set over into r, sorted; empties s. */
void search_closed_result(struct search_closed_set *s, struct search_rank_result *r);

#endif /* COMMHINT_SEARCH_KIND_AGGREGATE_H */
