/* mpi-record.c - builds CHT_REC_MPI records (and the CHT_REC_BLOCKS records
 * that follow collectives) from the arguments of an MPI call: buffers as the
 * bytes the call touches, peers as world ranks, statuses, sequence numbers.
 * See mpi-private.h for the pattern the wrappers follow.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi-private.h"

/* ---- datatypes -------------------------------------------------------------- */

/* The predefined datatypes a collective's record names (enum cht_mpi_dtype). */
static const struct {
    MPI_Datatype type;
    uint32_t code;
} predefined[] = {
    {MPI_CHAR, CHT_DT_CHAR}, {MPI_SIGNED_CHAR, CHT_DT_SIGNED_CHAR},
    {MPI_UNSIGNED_CHAR, CHT_DT_UNSIGNED_CHAR}, {MPI_BYTE, CHT_DT_BYTE}, {MPI_SHORT, CHT_DT_SHORT},
    {MPI_UNSIGNED_SHORT, CHT_DT_UNSIGNED_SHORT}, {MPI_INT, CHT_DT_INT},
    {MPI_UNSIGNED, CHT_DT_UNSIGNED}, {MPI_LONG, CHT_DT_LONG}, {MPI_UNSIGNED_LONG, CHT_DT_UNSIGNED_LONG},
    {MPI_LONG_LONG, CHT_DT_LONG_LONG}, {MPI_UNSIGNED_LONG_LONG, CHT_DT_UNSIGNED_LONG_LONG},
    {MPI_FLOAT, CHT_DT_FLOAT}, {MPI_DOUBLE, CHT_DT_DOUBLE}, {MPI_LONG_DOUBLE, CHT_DT_LONG_DOUBLE},
    {MPI_C_BOOL, CHT_DT_C_BOOL}, {MPI_INT8_T, CHT_DT_INT8}, {MPI_INT16_T, CHT_DT_INT16},
    {MPI_INT32_T, CHT_DT_INT32}, {MPI_INT64_T, CHT_DT_INT64}, {MPI_UINT8_T, CHT_DT_UINT8},
    {MPI_UINT16_T, CHT_DT_UINT16}, {MPI_UINT32_T, CHT_DT_UINT32}, {MPI_UINT64_T, CHT_DT_UINT64},
    {MPI_WCHAR, CHT_DT_WCHAR}, {MPI_FLOAT_INT, CHT_DT_FLOAT_INT}, {MPI_DOUBLE_INT, CHT_DT_DOUBLE_INT},
    {MPI_LONG_INT, CHT_DT_LONG_INT}, {MPI_2INT, CHT_DT_2INT}, {MPI_SHORT_INT, CHT_DT_SHORT_INT},
    {MPI_LONG_DOUBLE_INT, CHT_DT_LONG_DOUBLE_INT}, {MPI_C_FLOAT_COMPLEX, CHT_DT_C_FLOAT_COMPLEX},
    {MPI_C_DOUBLE_COMPLEX, CHT_DT_C_DOUBLE_COMPLEX}, {MPI_AINT, CHT_DT_AINT},
    {MPI_OFFSET, CHT_DT_OFFSET}, {MPI_COUNT, CHT_DT_COUNT}, {MPI_PACKED, CHT_DT_PACKED},
};

static uint32_t dtype_code(MPI_Datatype type)
{
    for (size_t i = 0; i < sizeof predefined / sizeof *predefined; i++)
        if (predefined[i].type == type)
            return predefined[i].code;
    return CHT_DT_UNKNOWN;
}

void mpi_type_describe(MPI_Datatype type, struct mpi_type *t)
{
    MPI_Aint lb, extent, true_lb, true_extent;
    int size;
    memset(t, 0, sizeof(*t));
    if (type == MPI_DATATYPE_NULL)
        return;
    if (PMPI_Type_get_true_extent(type, &true_lb, &true_extent) != MPI_SUCCESS ||
        PMPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_size(type, &size) != MPI_SUCCESS) {
        rt_warn_once(MPI_WARN_CALL, "cannot query a datatype: its buffer is recorded as empty: "
                     "datatype=0x%x", (unsigned)type);
        return;
    }
    t->true_lb = true_lb;
    t->true_extent = true_extent;
    t->extent = extent;
    t->size = size > 0 ? (uint32_t)size : 0;
    t->code = dtype_code(type);
}

int64_t mpi_type_span(const struct mpi_type *t, int64_t count)
{
    return count > 0 ? (count - 1) * t->extent + t->true_extent : 0;
}

/* ---- starting a record ------------------------------------------------------ */

void mpi_ev_begin(struct mpi_ev *ev, enum cht_mpi_call call, MPI_Comm comm, void *ret_addr)
{
    memset(ev, 0, sizeof(*ev));
    struct cht_rec_mpi *r = &ev->rec;
    r->h.type = CHT_REC_MPI;
    r->h.aux = (uint16_t)call;
    r->h.size = sizeof(*r);
    r->site = rt_take_mpi_site();
    r->ret_addr = (uint64_t)(uintptr_t)ret_addr;
    if (ret_addr)
        ev->npath = rt_callpath(r->ret_addr, ev->path, rt_callpath_depth());
    r->peer = r->rpeer = r->st_source = CHT_RANK_NONE;
    r->tag = r->rtag = r->st_tag = CHT_TAG_NONE;
    ev->comm = comm;
    ev->cv.id = CHT_COMM_WORLD; /* the "unused" 0 for calls without a communicator */
    if (comm != MPI_COMM_NULL) {
        mpi_comm_view(comm, &ev->cv);
        r->comm = ev->cv.id;
        r->comm_size = ev->cv.size > 0 ? (uint32_t)ev->cv.size : 0;
        if (ev->cv.inter)
            r->flags |= CHT_MPIF_INTERCOMM;
    }
}

void mpi_ev_comm_as(struct mpi_ev *ev, MPI_Comm comm, const struct mpi_comm_view *cv)
{
    struct cht_rec_mpi *r = &ev->rec;
    ev->comm = comm;
    ev->cv = *cv;
    r->comm = cv->id;
    r->comm_size = cv->size > 0 ? (uint32_t)cv->size : 0;
    if (cv->inter)
        r->flags |= CHT_MPIF_INTERCOMM;
}

void mpi_ev_begin_as(struct mpi_ev *ev, enum cht_mpi_call call, MPI_Comm comm,
                     const struct mpi_ev *first)
{
    uint32_t site = first->rec.site;
    uint64_t ra = first->rec.ret_addr;
    mpi_ev_begin(ev, call, comm, NULL); /* first took the pending site */
    ev->rec.site = site;
    ev->rec.ret_addr = ra;
    ev->npath = first->npath;
    memcpy(ev->path, first->path, first->npath * sizeof *ev->path);
}

/* ---- buffers ---------------------------------------------------------------- */

/* Sets rec.count/datatype from the first buffer described (a large count
 * is clamped into the 32-bit field; the byte fields stay exact). */
static void ev_count(struct mpi_ev *ev, int64_t count, const struct mpi_type *t)
{
    if (ev->counted)
        return;
    ev->counted = 1;
    ev->rec.count = count > INT32_MAX ? INT32_MAX : count < INT32_MIN ? INT32_MIN : (int32_t)count;
    ev->rec.datatype = t->size;
    ev->dtype = t->code;
}

void mpi_ev_buf(struct mpi_ev *ev, int side, const void *buf, MPI_Count count, MPI_Datatype type)
{
    struct mpi_type t;
    uint64_t *addr = side ? &ev->rec.rbuf : &ev->rec.sbuf;
    uint64_t *bytes = side ? &ev->rec.rbytes : &ev->rec.sbytes;
    if (buf == MPI_IN_PLACE) {
        ev->rec.flags |= side ? CHT_MPIF_RECV_IN_PLACE : CHT_MPIF_SEND_IN_PLACE;
        return;
    }
    mpi_type_describe(type, &t);
    ev_count(ev, count, &t);
    *addr = (uint64_t)(uintptr_t)buf + (uint64_t)t.true_lb;
    *bytes = (uint64_t)mpi_type_span(&t, count);
}

void mpi_ev_sbuf(struct mpi_ev *ev, const void *buf, int count, MPI_Datatype type)
{
    mpi_ev_buf(ev, 0, buf, count, type);
}

void mpi_ev_rbuf(struct mpi_ev *ev, const void *buf, int count, MPI_Datatype type)
{
    mpi_ev_buf(ev, 1, buf, count, type);
}

void mpi_ev_sbuf_c(struct mpi_ev *ev, const void *buf, MPI_Count count, MPI_Datatype type)
{
    mpi_ev_buf(ev, 0, buf, count, type);
}

void mpi_ev_rbuf_c(struct mpi_ev *ev, const void *buf, MPI_Count count, MPI_Datatype type)
{
    mpi_ev_buf(ev, 1, buf, count, type);
}

/* Block i of s: *start = bytes from the buffer argument to its first byte,
 * *bytes = its span (0 if its peer is MPI_PROC_NULL).  `common` is the
 * layout of s->type. */
static void block_at(const struct mpi_blockspec *s, const struct mpi_type *common, int i,
                     int64_t *start, int64_t *bytes, struct mpi_type *t)
{
    if (s->types)
        mpi_type_describe(s->types[i], t);
    else
        *t = *common;
    int64_t count = s->counts ? mpi_count_at(s->counts, i, s->large) : s->count;
    int64_t displ = s->displs ? mpi_displ_at(s->displs, i, s->aint) : (int64_t)i * s->count;
    *start = (s->bytes ? displ : displ * t->extent) + t->true_lb;
    *bytes = s->peers && s->peers[i] == MPI_PROC_NULL ? 0 : mpi_type_span(t, count);
}

void mpi_ev_blocks(struct mpi_ev *ev, int side, const void *buf, const struct mpi_blockspec *s)
{
    struct mpi_blocks *b = &ev->blocks[side];
    uint64_t *addr = side ? &ev->rec.rbuf : &ev->rec.sbuf;
    uint64_t *bytes = side ? &ev->rec.rbytes : &ev->rec.sbytes;
    struct mpi_type common, t;
    int64_t lo = 0, hi = 0, start, len;
    int any = 0, n = s->n > 0 ? s->n : 0;
    if (buf == MPI_IN_PLACE) {
        ev->rec.flags |= side ? CHT_MPIF_RECV_IN_PLACE : CHT_MPIF_SEND_IN_PLACE;
        return;
    }
    mpi_type_describe(s->types ? MPI_DATATYPE_NULL : s->type, &common);
    free(b->blk);
    b->n = 0;
    b->blk = n ? malloc((size_t)n * sizeof *b->blk) : NULL;
    if (n && b->blk == NULL)
        rt_warn_once(MPI_WARN_SIZE, "cannot allocate the per-rank blocks of a collective: "
                     "recorded without them: blocks=%d", n);
    /* the buffer is the hull of the non-empty blocks */
    for (int i = 0; i < n; i++) {
        block_at(s, &common, i, &start, &len, &t);
        if (i == 0)
            ev_count(ev, s->counts ? mpi_count_at(s->counts, 0, s->large) : s->count, &t);
        if (b->blk != NULL)
            b->blk[i] = (struct cht_block){start, (uint64_t)(len > 0 ? len : 0)};
        if (len <= 0)
            continue;
        lo = any && lo < start ? lo : start;
        hi = any && hi > start + len ? hi : start + len;
        any = 1;
    }
    if (n == 0)
        ev_count(ev, 0, &common);
    if (b->blk != NULL) {
        b->n = (uint32_t)n;
        for (int i = 0; i < n; i++)
            b->blk[i].offset -= lo;
    }
    *addr = (uint64_t)(uintptr_t)buf + (uint64_t)lo;
    *bytes = (uint64_t)(hi - lo);
}

/* ---- point to point ----------------------------------------------------------- */

/* World rank for a peer argument, with the sentinels and their flags. */
static int32_t ev_peer(struct mpi_ev *ev, int rank)
{
    if (rank == MPI_ANY_SOURCE) {
        ev->rec.flags |= CHT_MPIF_ANY_SOURCE;
        return CHT_RANK_ANY;
    }
    if (rank == MPI_PROC_NULL) {
        ev->rec.flags |= CHT_MPIF_PROC_NULL;
        return CHT_RANK_PROC_NULL;
    }
    return mpi_comm_world_rank(ev->comm, rank, 1);
}

static int32_t ev_tag(struct mpi_ev *ev, int tag)
{
    if (tag == MPI_ANY_TAG) {
        ev->rec.flags |= CHT_MPIF_ANY_TAG;
        return CHT_TAG_ANY;
    }
    return tag;
}

void mpi_ev_send(struct mpi_ev *ev, const void *buf, int count, MPI_Datatype type, int dest,
                 int tag)
{
    mpi_ev_send_c(ev, buf, count, type, dest, tag);
}

void mpi_ev_send_c(struct mpi_ev *ev, const void *buf, MPI_Count count, MPI_Datatype type,
                   int dest, int tag)
{
    mpi_ev_buf(ev, 0, buf, count, type);
    ev->rec.peer = ev_peer(ev, dest);
    ev->rec.tag = tag;
    if (dest != MPI_PROC_NULL)
        ev->rec.seq = mpi_chan_next(ev->cv.id, dest, tag, MPI_DIR_SEND);
}

void mpi_ev_probe(struct mpi_ev *ev, int source, int tag)
{
    ev->rec.rpeer = ev_peer(ev, source);
    ev->rec.rtag = ev_tag(ev, tag);
}

void mpi_ev_recv(struct mpi_ev *ev, void *buf, int count, MPI_Datatype type, int source, int tag)
{
    mpi_ev_recv_c(ev, buf, count, type, source, tag);
}

void mpi_ev_recv_c(struct mpi_ev *ev, void *buf, MPI_Count count, MPI_Datatype type, int source,
                   int tag)
{
    mpi_ev_buf(ev, 1, buf, count, type);
    mpi_ev_probe(ev, source, tag);
    if (source >= 0 && tag != MPI_ANY_TAG)
        ev->rec.rseq = mpi_chan_next(ev->cv.id, source, tag, MPI_DIR_RECV);
}

int mpi_status_read(uint64_t comm_id, MPI_Comm comm, const MPI_Status *st, int consume,
                    int32_t *source, int32_t *tag, uint64_t *bytes, uint64_t *rseq)
{
    MPI_Count n = 0;
    if (st == NULL || st->MPI_SOURCE == MPI_PROC_NULL) {
        *source = CHT_RANK_PROC_NULL;
        *tag = CHT_TAG_NONE;
        *bytes = 0;
        return 0;
    }
    *source = mpi_comm_world_rank_if(comm, comm_id, st->MPI_SOURCE, 1);
    *tag = st->MPI_TAG;
    if (PMPI_Get_elements_x(st, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED || n < 0)
        n = 0;
    *bytes = (uint64_t)n;
    if (consume && *rseq == 0)
        *rseq = mpi_chan_next(comm_id, st->MPI_SOURCE, st->MPI_TAG, MPI_DIR_RECV);
    return 1;
}

void mpi_ev_status(struct mpi_ev *ev, const MPI_Status *st, int consume)
{
    struct cht_rec_mpi *r = &ev->rec;
    if (ev->ret != MPI_SUCCESS)
        return;
    if (r->rpeer == CHT_RANK_PROC_NULL)
        st = NULL;
    mpi_status_read(ev->cv.id, ev->comm, st, consume, &r->st_source, &r->st_tag, &r->st_bytes,
                    &r->rseq);
    r->flags |= CHT_MPIF_HAS_STATUS;
}

/* ---- collectives ------------------------------------------------------------- */

void mpi_ev_coll(struct mpi_ev *ev)
{
    ev->is_coll = 1;
    ev->rec.seq = mpi_comm_coll_next(ev->comm);
}

int mpi_ev_root(struct mpi_ev *ev, int root)
{
    mpi_ev_coll(ev);
    if (ev->cv.inter) {
        /* Intercommunicator: the root passes MPI_ROOT, its group MPI_PROC_NULL,
         * the other group the root's rank in the remote group. */
        if (root == MPI_PROC_NULL) {
            ev->rec.peer = ev_peer(ev, root);
            return -1;
        }
        if (root != MPI_ROOT) {
            ev->rec.peer = ev_peer(ev, root);
            return 0;
        }
        ev->rec.peer = mpi_world_rank();
        ev->rec.flags |= CHT_MPIF_ROOT;
        return 1;
    }
    ev->rec.peer = mpi_comm_world_rank(ev->comm, root, 0);
    if (root != ev->cv.rank)
        return 0;
    ev->rec.flags |= CHT_MPIF_ROOT;
    return 1;
}

void mpi_ev_op(struct mpi_ev *ev, MPI_Op op)
{
    static const struct {
        MPI_Op op;
        enum cht_mpi_op id;
    } ops[] = {
        {MPI_SUM, CHT_OP_SUM},       {MPI_PROD, CHT_OP_PROD},     {MPI_MAX, CHT_OP_MAX},
        {MPI_MIN, CHT_OP_MIN},       {MPI_LAND, CHT_OP_LAND},     {MPI_BAND, CHT_OP_BAND},
        {MPI_LOR, CHT_OP_LOR},       {MPI_BOR, CHT_OP_BOR},       {MPI_LXOR, CHT_OP_LXOR},
        {MPI_BXOR, CHT_OP_BXOR},     {MPI_MAXLOC, CHT_OP_MAXLOC}, {MPI_MINLOC, CHT_OP_MINLOC},
        {MPI_REPLACE, CHT_OP_REPLACE}, {MPI_NO_OP, CHT_OP_NO_OP}, {MPI_OP_NULL, CHT_OP_NONE},
    };
    ev->rec.op = CHT_OP_USER;
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (ops[i].op == op)
            ev->rec.op = ops[i].id;
}

/* ---- writing ------------------------------------------------------------------ */

void *mpi_ev_reserve(struct mpi_ev *ev, size_t extra)
{
    if (ev->ret != MPI_SUCCESS)
        ev->rec.flags |= CHT_MPIF_ERROR;
    struct cht_rec_mpi *r = rt_reserve(sizeof(*r) + extra);
    if (r == NULL)
        return NULL;
    memcpy(r, &ev->rec, sizeof(*r));
    if (ev->is_coll && r->tag == CHT_TAG_NONE) /* collectives: the datatype */
        r->tag = (int32_t)ev->dtype;
    return r + 1;
}

static size_t blocks_size(const struct mpi_blocks *b)
{
    return b->n ? sizeof(struct cht_rec_blocks) + (size_t)b->n * sizeof(struct cht_block) : 0;
}

/* Writes b as a CHT_REC_BLOCKS record at p; returns the end. */
static char *blocks_write(char *p, const struct mpi_blocks *b, int side)
{
    struct cht_rec_blocks *h = (struct cht_rec_blocks *)p;
    *h = (struct cht_rec_blocks){{CHT_REC_BLOCKS, (uint16_t)side, (uint32_t)blocks_size(b)},
                                 b->n, 0};
    memcpy(h + 1, b->blk, (size_t)b->n * sizeof *b->blk);
    return (char *)(h + 1) + (size_t)b->n * sizeof *b->blk;
}

void mpi_ev_arg(struct mpi_ev *ev, const void *addr, size_t len, int write, int held)
{
    int h = held ? 1 : 0;
    if (addr == NULL || addr == MPI_STATUS_IGNORE || addr == MPI_STATUSES_IGNORE || len == 0)
        return;
    if (ev->nargs[h] == MPI_ARGS_MAX) {
        rt_warn_once(MPI_WARN_CALL, "an MPI call touches more argument ranges than a record "
                     "holds: the rest are not recorded: call=%u", ev->rec.h.aux);
        return;
    }
    ev->args[h][ev->nargs[h]++] =
        (struct cht_range){(uint64_t)(uintptr_t)addr,
                           ((uint64_t)len & CHT_RANGE_LEN_MASK) | (write ? CHT_RANGE_WRITE : 0)};
}

int mpi_cpu_times;

size_t mpi_ev_args_size(const struct mpi_ev *ev)
{
    size_t n = ev->cpu[0] && ev->cpu[1] ? sizeof(struct cht_rec_cpu) : 0;
    if (ev->npath)
        n += sizeof(struct cht_rec_path) + ev->npath * sizeof(uint64_t);
    for (int h = 0; h < 2; h++)
        if (ev->nargs[h])
            n += sizeof(struct cht_rec_args) + (size_t)ev->nargs[h] * sizeof(struct cht_range);
    return n;
}

char *mpi_ev_args_write(const struct mpi_ev *ev, char *p)
{
    if (ev->cpu[0] && ev->cpu[1]) {
        struct cht_rec_cpu c = {{CHT_REC_CPU, 0, sizeof c}, ev->cpu[0], ev->cpu[1]};
        memcpy(p, &c, sizeof c);
        p += sizeof c;
    }
    if (ev->npath) {
        size_t size = sizeof(struct cht_rec_path) + ev->npath * sizeof(uint64_t);
        struct cht_rec_path h = {{CHT_REC_PATH, (uint16_t)ev->npath, (uint32_t)size}};
        memcpy(p, &h, sizeof h);
        memcpy(p + sizeof h, ev->path, ev->npath * sizeof(uint64_t));
        p += size;
    }
    for (int h = 0; h < 2; h++) {
        if (!ev->nargs[h])
            continue;
        struct cht_rec_args *a = (struct cht_rec_args *)p;
        size_t size = sizeof(*a) + (size_t)ev->nargs[h] * sizeof(struct cht_range);
        *a = (struct cht_rec_args){{CHT_REC_ARGS, (uint16_t)ev->nargs[h], (uint32_t)size},
                                   (uint32_t)h, 0};
        memcpy(a + 1, ev->args[h], (size_t)ev->nargs[h] * sizeof(struct cht_range));
        p += size;
    }
    return p;
}

static void blocks_free(struct mpi_ev *ev)
{
    for (int side = 0; side < 2; side++) {
        free(ev->blocks[side].blk);
        ev->blocks[side] = (struct mpi_blocks){0, NULL};
    }
}

int mpi_ev_end(struct mpi_ev *ev)
{
    /* Records hold at most 64 KiB of blocks, so n is far below any int limit. */
    size_t args = mpi_ev_args_size(ev);
    size_t extra = blocks_size(&ev->blocks[0]) + blocks_size(&ev->blocks[1]);
    if (sizeof(struct cht_rec_mpi) + args + extra > MPI_RESERVE_MAX) {
        rt_warn_once(MPI_WARN_SIZE, "per-rank blocks of a collective do not fit in one record "
                     "group: recorded without them: comm_size=%u", ev->rec.comm_size);
        extra = 0;
    }
    char *p = mpi_ev_reserve(ev, args + extra);
    if (p == NULL) {
        blocks_free(ev);
        return ev->ret;
    }
    p = mpi_ev_args_write(ev, p);
    for (int side = 0; extra != 0 && side < 2; side++)
        if (ev->blocks[side].n)
            p = blocks_write(p, &ev->blocks[side], side);
    rt_commit(sizeof(struct cht_rec_mpi) + args + extra);
    blocks_free(ev);
    return ev->ret;
}
