/* mpi-wait.c - wrappers of the completion calls (Wait*, Test*,
 * MPI_Request_free).
 *
 * Each takes its requests out of the request table before calling PMPI
 * (which sets completed handles to MPI_REQUEST_NULL) and puts back those
 * that did not complete; taking rather than looking up gives each
 * occurrence of a shared MPICH handle (see mpi_req_add) its own request.
 * It then writes the call's MPI record followed by
 * one CHT_REC_COMPLETE per request it completed, in completion order, with
 * one rt_reserve so that they land in one chunk.  A request counts as
 * completed when PMPI reported it (index, outcount, flag) and its handle is
 * now MPI_REQUEST_NULL.  Statuses are read from the user's array, or from a
 * local one passed to PMPI instead of MPI_STATUS(ES)_IGNORE.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mpi-private.h"

#define REQSET_STACK 16

/* The requests of one completion call as they were before it, and the
 * COMPLETE records built after it. */
struct reqset {
    int n;                          /* requests */
    struct mpi_req *req;            /* n entries */
    struct cht_rec_complete *comp;  /* room for n */
    MPI_Status *st;                 /* statuses PMPI fills; NULL if we have none */
    void *heap;                     /* what we allocated, or NULL */
    struct mpi_req req_buf[REQSET_STACK];
    struct cht_rec_complete comp_buf[REQSET_STACK];
    MPI_Status st_buf[REQSET_STACK];
};

/* Which requests a call completed: the k-th is request idx[k] (idx NULL:
 * request k) and its status is st[k]. */
struct completions {
    const int *idx;
    int n;
};

/* Looks up n requests; nst is the number of statuses the call fills (n, 1 or
 * 0), user_st the user's status argument. */
static void reqset_open(struct mpi_ev *ev, struct reqset *rs, int n, const MPI_Request *reqs,
                        int nst, MPI_Status *user_st)
{
    int ignore = user_st == MPI_STATUS_IGNORE || user_st == MPI_STATUSES_IGNORE;
    size_t nreq = n > 0 ? (size_t)n : 0, nmine = ignore && nst > 0 ? (size_t)nst : 0;
    rs->n = (int)nreq;
    rs->heap = NULL;
    rs->req = rs->req_buf;
    rs->comp = rs->comp_buf;
    rs->st = ignore ? rs->st_buf : user_st;
    if (nreq > REQSET_STACK || nmine > REQSET_STACK) {
        rs->heap = malloc(nreq * (sizeof(struct mpi_req) + sizeof(struct cht_rec_complete)) +
                          nmine * sizeof(MPI_Status));
        if (rs->heap == NULL) {
            rt_warn_once(RT_WARN_TABLES, "cannot allocate request scratch space: completions "
                         "not recorded: reason=out of memory requests=%d", n);
            rs->n = 0;
            rs->st = ignore ? NULL : user_st;
            return;
        }
        rs->req = rs->heap;
        rs->comp = (struct cht_rec_complete *)(rs->req + nreq);
        if (ignore)
            rs->st = (MPI_Status *)(rs->comp + nreq);
    }
    for (int i = 0; i < rs->n; i++) {
        mpi_req_take(reqs[i], &rs->req[i]);
        /* a request no wrapper made: what its completion touches is unknown */
        if (rs->req[i].id == 0 && reqs[i] != MPI_REQUEST_NULL && !mpi_persist_known(reqs[i]))
            ev->rec.flags |= CHT_MPIF_UNKNOWN_REQUEST;
    }
}

/* Puts back the requests that did not complete (newest first, so that
 * requests sharing a handle keep their order) and frees rs. */
static void reqset_close(struct reqset *rs)
{
    for (int i = rs->n - 1; i >= 0; i--)
        if (rs->req[i].id != 0)
            mpi_req_put_back(&rs->req[i]);
    free(rs->heap);
}

/* Statuses to pass to PMPI: ours or the user's, or the user's ignore marker
 * if we could not allocate. */
static MPI_Status *reqset_statuses(const struct reqset *rs, MPI_Status *user_st)
{
    return rs->st != NULL ? rs->st : user_st;
}

/* Whether request r, on which MPI_Cancel was called, was cancelled (its
 * status says so); if it was, gives back the channel number it took at
 * posting, so that the messages after it keep matching. */
static int was_cancelled(const struct mpi_req *r, const MPI_Status *st)
{
    int flag = 0;
    if (PMPI_Test_cancelled(st, &flag) != MPI_SUCCESS || !flag)
        return 0;
    if (r->is_recv ? r->rseq == 0 : r->seq == 0)
        return 1; /* a wildcard receive is numbered at completion: nothing taken */
    if (!r->numbered || !mpi_chan_give_back(r->comm, r->chan_peer, r->chan_tag,
                                            r->is_recv ? MPI_DIR_RECV : MPI_DIR_SEND,
                                            r->is_recv ? r->rseq : r->seq))
        rt_warn_once(MPI_WARN_CALL, "a cancelled request took a channel number that cannot be "
                     "given back (later messages were numbered, or a persistent or "
                     "Isendrecv request): later messages of its channel may not be matched "
                     "across ranks: request=%" PRIu64, r->id);
    return 1;
}

/* Builds the COMPLETE record of request i into *c and marks the request
 * done (id 0).  st is its status, NULL if undefined.  Returns 0 if request i
 * did not complete or is not one of ours. */
static int complete_one(const struct mpi_ev *ev, struct reqset *rs, const MPI_Request *reqs,
                        int i, const MPI_Status *st, struct cht_rec_complete *c)
{
    if (i < 0 || i >= rs->n || rs->req[i].id == 0)
        return 0;
    struct mpi_req *r = &rs->req[i];
    /* A persistent request's handle stays valid: it completed if the call
     * reported it and did not fail for it. */
    if (r->persistent ? !(ev->ret == MPI_SUCCESS ||
                          (ev->ret == MPI_ERR_IN_STATUS && st != NULL &&
                           st->MPI_ERROR == MPI_SUCCESS))
                      : reqs[i] != MPI_REQUEST_NULL)
        return 0;
    *c = (struct cht_rec_complete){{CHT_REC_COMPLETE, (uint16_t)r->is_recv, sizeof(*c)},
                                   r->id, CHT_RANK_NONE, CHT_TAG_NONE, 0, r->rseq};
    /* After MPI_ERR_IN_STATUS only the statuses without an error are defined. */
    int defined = st != NULL && (ev->ret == MPI_SUCCESS || st->MPI_ERROR == MPI_SUCCESS);
    if (r->is_recv && r->proc_null)
        c->st_source = CHT_RANK_PROC_NULL;
    else if (r->cancel && defined && was_cancelled(r, st)) {
        c->h.aux |= CHT_COMPLETE_CANCELLED;
        c->rseq = 0;
    } else if (r->is_recv && r->no_status) {
        if (r->posted_source >= 0 && r->posted_tag >= 0) { /* numbered at posting */
            c->st_source = r->posted_source;
            c->st_tag = r->posted_tag;
            c->st_bytes = r->posted_bytes;
        }
    } else if (r->is_recv && defined)
        mpi_status_read(r->comm, r->comm_handle, st, 1, &c->st_source, &c->st_tag,
                        &c->st_bytes, &c->rseq);
    r->id = 0;
    return 1;
}

/* Writes the MPI record and m COMPLETE records.  More than fit in one
 * reservation (about 1600) go in further reservations right after it, which
 * keeps them consecutive in this thread's stream. */
static void write_completions(struct mpi_ev *ev, const struct cht_rec_complete *c, size_t m)
{
    const size_t per = sizeof(*c), args = mpi_ev_args_size(ev);
    size_t k = (MPI_RESERVE_MAX - sizeof(struct cht_rec_mpi) - args) / per;
    k = m < k ? m : k;
    char *p = mpi_ev_reserve(ev, args + k * per);
    if (p == NULL)
        return;
    p = mpi_ev_args_write(ev, p);
    memcpy(p, c, k * per);
    rt_commit(sizeof(struct cht_rec_mpi) + args + k * per);
    if (k < m)
        rt_warn_once(MPI_WARN_SIZE, "completions of one call span several reservations: "
                     "requests=%zu", m);
    while (k < m) {
        size_t b = m - k < MPI_RESERVE_MAX / per ? m - k : MPI_RESERVE_MAX / per;
        if ((p = rt_reserve(b * per)) == NULL)
            return;
        memcpy(p, c + k, b * per);
        rt_commit(b * per);
        k += b;
    }
}

/* Finishes a completion call: builds one COMPLETE per completed request,
 * copies the status of a single completion into the MPI record when `single`
 * (Wait, Test, Waitany, Testany), writes everything, closes rs and returns
 * PMPI's return code. */
static int end_completion(struct mpi_ev *ev, struct reqset *rs, const MPI_Request *reqs,
                          struct completions cmp, int single)
{
    int statuses = rs->st != NULL && (ev->ret == MPI_SUCCESS || ev->ret == MPI_ERR_IN_STATUS);
    size_t m = 0;
    for (int k = 0; k < cmp.n; k++) {
        int i = cmp.idx ? cmp.idx[k] : k;
        if (complete_one(ev, rs, reqs, i, statuses ? &rs->st[k] : NULL, &rs->comp[m]))
            m++;
    }
    if (single && m == 1) {
        const struct cht_rec_complete *c = &rs->comp[0];
        ev->rec.request = c->request;
        ev->rec.st_source = c->st_source;
        ev->rec.st_tag = c->st_tag;
        ev->rec.st_bytes = c->st_bytes;
        ev->rec.rseq = c->rseq;
        if (c->h.aux == CHT_COMPLETE_RECV) /* a receive, not cancelled */
            ev->rec.flags |= CHT_MPIF_HAS_STATUS;
    }
    write_completions(ev, rs->comp, m);
    reqset_close(rs);
    return ev->ret;
}

/* Single-request calls record the request and its communicator even when it
 * does not complete. */
static void note_single(struct mpi_ev *ev, const struct reqset *rs)
{
    if (rs->n == 1 && rs->req[0].id != 0) {
        ev->rec.request = rs->req[0].id;
        ev->rec.comm = rs->req[0].comm;
    }
}

/* What Wait*, Waitall and Testall completed: all or (after an error that
 * leaves them undefined) whichever handles became null. */
static struct completions all_of(int n) { return (struct completions){NULL, n}; }

/* What Waitany/Testany/Waitsome/Testsome completed, from index or outcount
 * (MPI_UNDEFINED: no active request). */
static struct completions some_of(const struct mpi_ev *ev, int n, const int *idx, int outcount)
{
    if (ev->ret != MPI_SUCCESS && ev->ret != MPI_ERR_IN_STATUS)
        return all_of(n);
    return (struct completions){idx, outcount == MPI_UNDEFINED ? 0 : outcount};
}

/* Test*: flag false means nothing completed. */
static struct completions if_found(struct mpi_ev *ev, int found, struct completions cmp)
{
    if (ev->ret == MPI_SUCCESS && !found) {
        ev->rec.flags |= CHT_MPIF_NOT_FOUND;
        return all_of(0);
    }
    return cmp;
}

/* The arguments a completion call touches: its requests (read, and set to
 * MPI_REQUEST_NULL), the statuses it fills, and its outputs (flag, index,
 * outcount, indices). */
static void completion_args(struct mpi_ev *ev, MPI_Request *reqs, int n, MPI_Status *st,
                            int nst, int *flag, int *index, int *outcount, int *indices)
{
    if (n > 0)
        mpi_ev_arg(ev, reqs, (size_t)n * sizeof(MPI_Request), 1, 0);
    if (nst > 0 && st != MPI_STATUS_IGNORE && st != MPI_STATUSES_IGNORE)
        mpi_ev_arg(ev, st, (size_t)nst * sizeof(MPI_Status), 1, 0);
    mpi_ev_arg(ev, flag, sizeof(int), 1, 0);
    mpi_ev_arg(ev, index, sizeof(int), 1, 0);
    mpi_ev_arg(ev, outcount, sizeof(int), 1, 0);
    if (n > 0)
        mpi_ev_arg(ev, indices, (size_t)n * sizeof(int), 1, 0);
}

COMMHINT_EXPORT int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    struct mpi_ev ev;
    struct reqset rs;
    MPI_EV_BEGIN(&ev, CHT_MPI_WAIT, MPI_COMM_NULL);
    completion_args(&ev, request, 1, status, 1, NULL, NULL, NULL, NULL);
    reqset_open(&ev, &rs, 1, request, 1, status);
    note_single(&ev, &rs);
    MPI_EV_CALL(&ev, PMPI_Wait(request, reqset_statuses(&rs, status)));
    return end_completion(&ev, &rs, request, all_of(1), 1);
}

COMMHINT_EXPORT int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    struct mpi_ev ev;
    struct reqset rs;
    MPI_EV_BEGIN(&ev, CHT_MPI_TEST, MPI_COMM_NULL);
    completion_args(&ev, request, 1, status, 1, flag, NULL, NULL, NULL);
    reqset_open(&ev, &rs, 1, request, 1, status);
    note_single(&ev, &rs);
    MPI_EV_CALL(&ev, PMPI_Test(request, flag, reqset_statuses(&rs, status)));
    return end_completion(&ev, &rs, request, if_found(&ev, *flag, all_of(1)), 1);
}

COMMHINT_EXPORT int MPI_Waitall(int count, MPI_Request array_of_requests[],
                                MPI_Status array_of_statuses[])
{
    struct mpi_ev ev;
    struct reqset rs;
    MPI_EV_BEGIN(&ev, CHT_MPI_WAITALL, MPI_COMM_NULL);
    completion_args(&ev, array_of_requests, count, array_of_statuses, count, NULL, NULL, NULL, NULL);
    ev.rec.count = count;
    reqset_open(&ev, &rs, count, array_of_requests, count, array_of_statuses);
    MPI_EV_CALL(&ev, PMPI_Waitall(count, array_of_requests,
                                  reqset_statuses(&rs, array_of_statuses)));
    return end_completion(&ev, &rs, array_of_requests, all_of(count), 0);
}

COMMHINT_EXPORT int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
                                MPI_Status array_of_statuses[])
{
    struct mpi_ev ev;
    struct reqset rs;
    MPI_EV_BEGIN(&ev, CHT_MPI_TESTALL, MPI_COMM_NULL);
    completion_args(&ev, array_of_requests, count, array_of_statuses, count, flag, NULL, NULL, NULL);
    ev.rec.count = count;
    reqset_open(&ev, &rs, count, array_of_requests, count, array_of_statuses);
    MPI_EV_CALL(&ev, PMPI_Testall(count, array_of_requests, flag,
                                  reqset_statuses(&rs, array_of_statuses)));
    return end_completion(&ev, &rs, array_of_requests, if_found(&ev, *flag, all_of(count)), 0);
}

COMMHINT_EXPORT int MPI_Waitany(int count, MPI_Request array_of_requests[], int *indx,
                                MPI_Status *status)
{
    struct mpi_ev ev;
    struct reqset rs;
    MPI_EV_BEGIN(&ev, CHT_MPI_WAITANY, MPI_COMM_NULL);
    completion_args(&ev, array_of_requests, count, status, 1, NULL, indx, NULL, NULL);
    ev.rec.count = count;
    reqset_open(&ev, &rs, count, array_of_requests, 1, status);
    MPI_EV_CALL(&ev, PMPI_Waitany(count, array_of_requests, indx, reqset_statuses(&rs, status)));
    return end_completion(&ev, &rs, array_of_requests,
                          some_of(&ev, count, indx, *indx == MPI_UNDEFINED ? MPI_UNDEFINED : 1),
                          1);
}

COMMHINT_EXPORT int MPI_Testany(int count, MPI_Request array_of_requests[], int *indx, int *flag,
                                MPI_Status *status)
{
    struct mpi_ev ev;
    struct reqset rs;
    MPI_EV_BEGIN(&ev, CHT_MPI_TESTANY, MPI_COMM_NULL);
    completion_args(&ev, array_of_requests, count, status, 1, flag, indx, NULL, NULL);
    ev.rec.count = count;
    reqset_open(&ev, &rs, count, array_of_requests, 1, status);
    MPI_EV_CALL(&ev, PMPI_Testany(count, array_of_requests, indx, flag,
                                  reqset_statuses(&rs, status)));
    return end_completion(
        &ev, &rs, array_of_requests,
        if_found(&ev, *flag,
                 some_of(&ev, count, indx, *indx == MPI_UNDEFINED ? MPI_UNDEFINED : 1)),
        1);
}

COMMHINT_EXPORT int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                                 int array_of_indices[], MPI_Status array_of_statuses[])
{
    struct mpi_ev ev;
    struct reqset rs;
    MPI_EV_BEGIN(&ev, CHT_MPI_WAITSOME, MPI_COMM_NULL);
    completion_args(&ev, array_of_requests, incount, array_of_statuses, incount, NULL, NULL, outcount, array_of_indices);
    ev.rec.count = incount;
    reqset_open(&ev, &rs, incount, array_of_requests, incount, array_of_statuses);
    MPI_EV_CALL(&ev, PMPI_Waitsome(incount, array_of_requests, outcount, array_of_indices,
                                   reqset_statuses(&rs, array_of_statuses)));
    return end_completion(&ev, &rs, array_of_requests,
                          some_of(&ev, incount, array_of_indices, *outcount), 0);
}

COMMHINT_EXPORT int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                                 int array_of_indices[], MPI_Status array_of_statuses[])
{
    struct mpi_ev ev;
    struct reqset rs;
    MPI_EV_BEGIN(&ev, CHT_MPI_TESTSOME, MPI_COMM_NULL);
    completion_args(&ev, array_of_requests, incount, array_of_statuses, incount, NULL, NULL, outcount, array_of_indices);
    ev.rec.count = incount;
    reqset_open(&ev, &rs, incount, array_of_requests, incount, array_of_statuses);
    MPI_EV_CALL(&ev, PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices,
                                   reqset_statuses(&rs, array_of_statuses)));
    return end_completion(&ev, &rs, array_of_requests,
                          if_found(&ev, *outcount != 0,
                                   some_of(&ev, incount, array_of_indices, *outcount)),
                          0);
}

COMMHINT_EXPORT int MPI_Request_free(MPI_Request *request)
{
    struct mpi_ev ev;
    struct reqset rs;
    MPI_EV_BEGIN(&ev, CHT_MPI_REQUEST_FREE, MPI_COMM_NULL);
    completion_args(&ev, request, 1, MPI_STATUS_IGNORE, 0, NULL, NULL, NULL, NULL);
    reqset_open(&ev, &rs, 1, request, 0, MPI_STATUS_IGNORE);
    note_single(&ev, &rs);
    MPI_Request h = *request;
    MPI_EV_CALL(&ev, PMPI_Request_free(request));
    if (ev.ret == MPI_SUCCESS && *request == MPI_REQUEST_NULL) {
        mpi_persist_forget(h);
        mpi_part_forget(h);
    }
    rs.st = NULL; /* no status: the request may still be in progress */
    if (rs.n == 1)
        rs.req[0].persistent = 0; /* freed: completes by its handle, as any other */
    return end_completion(&ev, &rs, request, all_of(1), 0);
}

/* MPI_Cancel marks the request; the completion call that completes it then
 * says (CHT_COMPLETE_CANCELLED) whether it was cancelled. */
COMMHINT_EXPORT int MPI_Cancel(MPI_Request *request)
{
    struct mpi_ev ev;
    struct mpi_req r;
    MPI_EV_BEGIN(&ev, CHT_MPI_CANCEL, MPI_COMM_NULL);
    mpi_ev_arg(&ev, request, sizeof *request, 0, 0);
    MPI_Request h = *request;
    MPI_EV_CALL(&ev, PMPI_Cancel(request));
    mpi_req_take(h, &r);
    if (r.id != 0) {
        ev.rec.request = r.id;
        ev.rec.comm = r.comm;
        r.cancel = ev.ret == MPI_SUCCESS;
        mpi_req_put_back(&r);
    } else if (h != MPI_REQUEST_NULL && !mpi_persist_known(h)) {
        ev.rec.flags |= CHT_MPIF_UNKNOWN_REQUEST;
    }
    return mpi_ev_end(&ev);
}
