/* mpi-tables.c - the state the MPI wrappers keep between calls: the
 * communicator table (handle -> agreed id, members' world ranks, collective
 * counter), channel sequence counters and the request table.
 *
 * All three live in small open-addressing hash tables guarded by one mutex.
 * MPI calls are not the hot path of the runtime, so one lock is enough; no
 * MPI call that can block is made while it is held.
 *
 * Channel numbering and wildcards.  A send takes the next number of its
 * channel (communicator, sender, receiver, tag) when it is posted.  A receive
 * with a specific source and tag takes the next number of its channel when it
 * is posted too, which is right because MPI matches messages of one channel
 * in order (non-overtaking).  A receive with MPI_ANY_SOURCE or MPI_ANY_TAG
 * can only be numbered when it completes, from the channel its status names.
 * If a process mixes wildcard and specific receives that can match the same
 * channel while both are pending, the order in which MPI matched them may
 * differ from the order of numbering, and a pair may then carry different
 * numbers.  Programs that use only one kind per channel at a time (the usual
 * case) are numbered exactly.  Channels are keyed by the peer's rank in the
 * communicator, which for known communicators is equivalent to its world
 * rank; all communicators of unknown origin share the id CHT_COMM_UNKNOWN, so
 * their numbers are best effort.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mpi-private.h"

/* ---- a small hash table: 128-bit key -> fixed-size value ------------------ */

struct map_key {
    uint64_t a, b;
};

/* Slots are laid out as [key | used | value], `stride` bytes each.  Pointers
 * to values stay valid until the next map_put. */
struct map {
    size_t cap;    /* slots, a power of two, 0 until the first put */
    size_t len;    /* used slots */
    size_t vsize;  /* bytes of one value */
    unsigned char *slots;
};

struct map_slot {
    struct map_key key;
    uint64_t used;
    /* value follows */
};

static size_t map_stride(const struct map *m)
{
    return sizeof(struct map_slot) + mpi_pad8(m->vsize);
}

static struct map_slot *map_slot_at(const struct map *m, size_t i)
{
    return (struct map_slot *)(m->slots + i * map_stride(m));
}

static void *map_value(struct map_slot *s) { return s + 1; }

static size_t map_hash(struct map_key k)
{
    uint64_t x = k.a * 0x9e3779b97f4a7c15ull ^ (k.b + 0x632be59bd9b4e019ull);
    x ^= x >> 30; /* splitmix64 finaliser */
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return (size_t)x;
}

static int map_key_eq(struct map_key x, struct map_key y) { return x.a == y.a && x.b == y.b; }

/* Index of the slot holding k, or of the empty slot where it would go. */
static size_t map_probe(const struct map *m, struct map_key k)
{
    size_t i = map_hash(k) & (m->cap - 1);
    for (;;) {
        struct map_slot *s = map_slot_at(m, i);
        if (!s->used || map_key_eq(s->key, k))
            return i;
        i = (i + 1) & (m->cap - 1);
    }
}

/* The value stored under k, or NULL. */
static void *map_get(const struct map *m, struct map_key k)
{
    if (m->cap == 0)
        return NULL;
    struct map_slot *s = map_slot_at(m, map_probe(m, k));
    return s->used ? map_value(s) : NULL;
}

static int map_grow(struct map *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    struct map bigger = {cap, 0, m->vsize, calloc(cap, map_stride(m))};
    if (bigger.slots == NULL)
        return -1;
    for (size_t i = 0; i < m->cap; i++) {
        struct map_slot *s = map_slot_at(m, i);
        if (s->used)
            memcpy(map_slot_at(&bigger, map_probe(&bigger, s->key)), s, map_stride(m));
    }
    bigger.len = m->len;
    free(m->slots);
    *m = bigger;
    return 0;
}

/* The value stored under k, created zero-filled if absent (*created = 1);
 * NULL when out of memory. */
static void *map_put(struct map *m, struct map_key k, int *created)
{
    *created = 0;
    if (m->cap != 0) {
        struct map_slot *s = map_slot_at(m, map_probe(m, k));
        if (s->used)
            return map_value(s);
    }
    if ((m->len + 1) * 2 > m->cap && map_grow(m) != 0)
        return NULL;
    struct map_slot *s = map_slot_at(m, map_probe(m, k));
    s->key = k;
    s->used = 1;
    memset(map_value(s), 0, m->vsize);
    m->len++;
    *created = 1;
    return map_value(s);
}

/* Removes k (backward-shift deletion keeps probe chains intact). */
static void map_del(struct map *m, struct map_key k)
{
    if (m->cap == 0)
        return;
    size_t mask = m->cap - 1, hole = map_probe(m, k);
    if (!map_slot_at(m, hole)->used)
        return;
    for (size_t i = (hole + 1) & mask;; i = (i + 1) & mask) {
        struct map_slot *s = map_slot_at(m, i);
        if (!s->used)
            break;
        size_t home = map_hash(s->key) & mask;
        /* s may move into the hole if its home is not in (hole, i]. */
        if (((i - home) & mask) >= ((i - hole) & mask)) {
            memcpy(map_slot_at(m, hole), s, map_stride(m));
            hole = i;
        }
    }
    map_slot_at(m, hole)->used = 0;
    m->len--;
}

/* ---- state ------------------------------------------------------------------ */

struct comm_ent {
    struct mpi_comm_view v;
    int32_t *world;     /* v.size + v.remote_size world ranks, NULL = unknown
                           (or identity for MPI_COMM_WORLD) */
    uint64_t coll_seq;  /* collective calls made on it so far */
};

/* Requests entered under one handle value, oldest first. */
struct req_list {
    uint32_t n, cap;   /* entries; room in v (0: the entry is `one`) */
    struct mpi_req *v;
    struct mpi_req one;
};

static pthread_mutex_t tables_lock = PTHREAD_MUTEX_INITIALIZER;
static struct map comms = {0, 0, sizeof(struct comm_ent), NULL};
static struct map chans = {0, 0, sizeof(uint64_t), NULL};
static struct map reqs = {0, 0, sizeof(struct req_list), NULL};
static uint64_t next_req_id = 1;
static uint64_t comms_created; /* communicators this process named as their rank 0 */
static int world_rank = -1, world_size;
static int32_t self_world[1];

static struct map_key handle_key(uint64_t handle) { return (struct map_key){handle, 0}; }

/* MPICH handles are ints. */
static uint64_t comm_handle(MPI_Comm c) { return (uint64_t)(uint32_t)c; }
static uint64_t req_handle(MPI_Request r) { return (uint64_t)(uint32_t)r; }

int mpi_world_rank(void) { return world_rank; }

void mpi_tables_init(int rank, int size)
{
    int created;
    pthread_mutex_lock(&tables_lock);
    world_rank = rank;
    world_size = size;
    self_world[0] = rank;
    struct comm_ent *w = map_put(&comms, handle_key(comm_handle(MPI_COMM_WORLD)), &created);
    if (w != NULL)
        w->v = (struct mpi_comm_view){CHT_COMM_WORLD, size, 0, rank, 0};
    struct comm_ent *s = map_put(&comms, handle_key(comm_handle(MPI_COMM_SELF)), &created);
    if (s != NULL) {
        s->v = (struct mpi_comm_view){CHT_COMM_SELF, 1, 0, 0, 0};
        s->world = self_world;
    }
    pthread_mutex_unlock(&tables_lock);
    if (w == NULL || s == NULL)
        rt_warn_once(RT_WARN_TABLES, "cannot allocate the communicator table: reason=out of memory");
}

/* Entry of `comm`, entered as unknown if absent; NULL if out of memory.
 * Caller holds tables_lock. */
static struct comm_ent *comm_lookup_locked(MPI_Comm comm)
{
    int created;
    struct comm_ent *e = map_put(&comms, handle_key(comm_handle(comm)), &created);
    if (e == NULL || !created)
        return e;
    /* Local queries only: these cannot block. */
    e->v.id = CHT_COMM_UNKNOWN;
    PMPI_Comm_test_inter(comm, &e->v.inter);
    PMPI_Comm_size(comm, &e->v.size);
    PMPI_Comm_rank(comm, &e->v.rank);
    if (e->v.inter)
        PMPI_Comm_remote_size(comm, &e->v.remote_size);
    rt_warn_once(MPI_WARN_COMM,
                 "communicator made by a call commhint does not wrap: its peers are "
                 "recorded as unknown: handle=0x%x size=%d", (unsigned)comm, e->v.size);
    return e;
}

void mpi_comm_view(MPI_Comm comm, struct mpi_comm_view *v)
{
    *v = (struct mpi_comm_view){CHT_COMM_UNKNOWN, 0, 0, -1, 0};
    if (comm == MPI_COMM_NULL)
        return;
    pthread_mutex_lock(&tables_lock);
    struct comm_ent *e = comm_lookup_locked(comm);
    if (e != NULL)
        *v = e->v;
    pthread_mutex_unlock(&tables_lock);
}

/* Rank translation on entry e (may be NULL).  Caller holds tables_lock. */
static int32_t comm_translate_locked(const struct comm_ent *e, int rank, int remote)
{
    if (e == NULL || rank < 0)
        return CHT_RANK_NONE;
    int idx = (remote && e->v.inter) ? e->v.size + rank : rank;
    if (idx >= e->v.size + e->v.remote_size)
        return CHT_RANK_NONE;
    if (e->v.id == CHT_COMM_WORLD)
        return idx;
    return e->world != NULL ? e->world[idx] : CHT_RANK_NONE;
}

int32_t mpi_comm_world_rank(MPI_Comm comm, int rank, int remote)
{
    if (comm == MPI_COMM_NULL)
        return CHT_RANK_NONE;
    pthread_mutex_lock(&tables_lock);
    int32_t w = comm_translate_locked(comm_lookup_locked(comm), rank, remote);
    pthread_mutex_unlock(&tables_lock);
    return w;
}

int32_t mpi_comm_world_rank_if(MPI_Comm comm, uint64_t id, int rank, int remote)
{
    if (id == CHT_COMM_UNKNOWN)
        return CHT_RANK_NONE;
    pthread_mutex_lock(&tables_lock);
    const struct comm_ent *e = map_get(&comms, handle_key(comm_handle(comm)));
    int32_t w = comm_translate_locked(e != NULL && e->v.id == id ? e : NULL, rank, remote);
    pthread_mutex_unlock(&tables_lock);
    return w;
}

uint64_t mpi_comm_coll_next(MPI_Comm comm)
{
    uint64_t seq = 0;
    if (comm == MPI_COMM_NULL)
        return 0;
    pthread_mutex_lock(&tables_lock);
    struct comm_ent *e = comm_lookup_locked(comm);
    if (e != NULL)
        seq = ++e->coll_seq;
    pthread_mutex_unlock(&tables_lock);
    return seq;
}

/* World ranks of the members of `group` (MPI_UNDEFINED becomes -1), or NULL
 * if out of memory.  `out` has room for n. */
static int translate_group(MPI_Group group, int n, int32_t *out)
{
    MPI_Group world_group;
    int *in = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int *res = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int rc = -1;
    if (in == NULL || res == NULL)
        goto out;
    for (int i = 0; i < n; i++)
        in[i] = i;
    PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
    if (PMPI_Group_translate_ranks(group, n, in, world_group, res) == MPI_SUCCESS) {
        for (int i = 0; i < n; i++)
            out[i] = res[i] == MPI_UNDEFINED ? -1 : res[i];
        rc = 0;
    }
    PMPI_Group_free(&world_group);
out:
    free(res);
    free(in);
    return rc;
}

/* Members of `comm` as world ranks, local group first; NULL on failure. */
static int32_t *comm_members(MPI_Comm comm, const struct mpi_comm_view *v)
{
    MPI_Group g;
    int32_t *world = malloc(sizeof(int32_t) * (size_t)(v->size + v->remote_size));
    if (world == NULL)
        return NULL;
    PMPI_Comm_group(comm, &g);
    int rc = translate_group(g, v->size, world);
    PMPI_Group_free(&g);
    if (rc == 0 && v->inter) {
        PMPI_Comm_remote_group(comm, &g);
        rc = translate_group(g, v->remote_size, world + v->size);
        PMPI_Group_free(&g);
    }
    if (rc != 0) {
        free(world);
        return NULL;
    }
    return world;
}

/* A fresh id for a communicator whose rank 0 this process is. */
static uint64_t comm_new_id(void)
{
    pthread_mutex_lock(&tables_lock);
    uint64_t id = ((uint64_t)(world_rank + 1) << 32) | (++comms_created & 0xffffffffu);
    pthread_mutex_unlock(&tables_lock);
    return id;
}

/* Agrees on the id of `comm` with its other members (collective over comm).
 * Intracommunicator: its rank 0 names it and broadcasts.  Intercommunicator:
 * the rank 0 of the group whose rank 0 has the lower world rank names it,
 * sends it to the other group, whose rank 0 sends it back to the rest of the
 * first group (an intercommunicator broadcast only reaches the remote
 * group).  Every member takes the same path, decided from world ranks all of
 * them know, so this cannot deadlock. */
static uint64_t comm_agree_id(MPI_Comm comm, const struct mpi_comm_view *v, const int32_t *world)
{
    uint64_t id = CHT_COMM_UNKNOWN;
    if (!v->inter) {
        if (v->rank == 0)
            id = comm_new_id();
        PMPI_Bcast(&id, 1, MPI_UINT64_T, 0, comm);
        return id;
    }
    int32_t mine = world[0], theirs = world[v->size];
    if (mine < 0 || theirs < 0)
        return CHT_COMM_UNKNOWN; /* a group outside MPI_COMM_WORLD: same answer on both sides */
    int first = mine < theirs; /* my group names it */
    for (int round = 0; round < 2; round++) {
        int sending = (round == 0) == first; /* my group's rank 0 sends this round */
        int root = sending ? (v->rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        if (round == 0 && sending && v->rank == 0)
            id = comm_new_id();
        PMPI_Bcast(&id, 1, MPI_UINT64_T, root, comm);
    }
    return id;
}

void mpi_comm_register(MPI_Comm newcomm, struct mpi_comm_new *out)
{
    struct mpi_comm_view v = {CHT_COMM_UNKNOWN, 0, 0, -1, 0};
    int created;
    PMPI_Comm_test_inter(newcomm, &v.inter);
    PMPI_Comm_size(newcomm, &v.size);
    PMPI_Comm_rank(newcomm, &v.rank);
    if (v.inter)
        PMPI_Comm_remote_size(newcomm, &v.remote_size);
    int32_t *world = comm_members(newcomm, &v);
    /* Every member takes part in the agreement, even one that could not
     * translate its members, so that the others do not wait forever. */
    if (world != NULL || !v.inter)
        v.id = comm_agree_id(newcomm, &v, world);
    if (world == NULL) {
        v.id = CHT_COMM_UNKNOWN;
        rt_warn_once(RT_WARN_TABLES, "cannot translate the members of a new communicator: "
                     "reason=out of memory or not in MPI_COMM_WORLD size=%d", v.size);
    }
    pthread_mutex_lock(&tables_lock);
    struct comm_ent *e = map_put(&comms, handle_key(comm_handle(newcomm)), &created);
    if (e != NULL) {
        if (!created && e->world != self_world)
            free(e->world); /* a stale entry for a reused handle */
        *e = (struct comm_ent){v, world, 0};
    }
    pthread_mutex_unlock(&tables_lock);
    if (e == NULL) {
        rt_warn_once(RT_WARN_TABLES, "cannot grow the communicator table: reason=out of memory");
        free(world);
        world = NULL;
    }
    out->v = v;
    out->world = world;
}

void mpi_comm_forget(MPI_Comm comm)
{
    pthread_mutex_lock(&tables_lock);
    struct comm_ent *e = map_get(&comms, handle_key(comm_handle(comm)));
    if (e != NULL) {
        if (e->world != self_world)
            free(e->world);
        map_del(&comms, handle_key(comm_handle(comm)));
    }
    pthread_mutex_unlock(&tables_lock);
}

/* Key of a channel.  Tags are at most MPI_TAG_UB < 2^31, which leaves bit 31
 * for the direction. */
static struct map_key chan_key(uint64_t comm_id, int peer, int tag, enum mpi_dir dir)
{
    return (struct map_key){comm_id, (uint64_t)(uint32_t)peer << 32 | (uint64_t)dir << 31 |
                                         ((uint32_t)tag & 0x7fffffffu)};
}

int mpi_chan_give_back(uint64_t comm_id, int peer, int tag, enum mpi_dir dir, uint64_t seq)
{
    int done = 0;
    pthread_mutex_lock(&tables_lock);
    uint64_t *c = map_get(&chans, chan_key(comm_id, peer, tag, dir));
    if (c != NULL && seq != 0 && *c == seq) {
        --*c;
        done = 1;
    }
    pthread_mutex_unlock(&tables_lock);
    return done;
}

uint64_t mpi_chan_next(uint64_t comm_id, int peer, int tag, enum mpi_dir dir)
{
    struct map_key k = chan_key(comm_id, peer, tag, dir);
    uint64_t seq = 0;
    int created;
    pthread_mutex_lock(&tables_lock);
    uint64_t *c = map_put(&chans, k, &created);
    if (c != NULL)
        seq = ++*c;
    pthread_mutex_unlock(&tables_lock);
    if (c == NULL)
        rt_warn_once(RT_WARN_TABLES, "cannot grow the channel table: reason=out of memory");
    return seq;
}

/* Makes room for one more entry in l (moving `one` into v if needed).
 * Caller holds tables_lock. */
static int req_list_grow(struct req_list *l)
{
    if (l->cap == 0) {
        struct mpi_req *v = malloc(4 * sizeof(*v));
        if (v == NULL)
            return -1;
        v[0] = l->one;
        l->v = v;
        l->cap = 4;
    } else if (l->n == l->cap) {
        struct mpi_req *v = realloc(l->v, 2 * (size_t)l->cap * sizeof(*v));
        if (v == NULL)
            return -1;
        l->v = v;
        l->cap *= 2;
    }
    return 0;
}

/* Inserts r into the list of its handle, last (age order) or first (put
 * back).  Returns -1 when out of memory. */
static int req_insert(const struct mpi_req *r, int first)
{
    int created, rc = 0;
    pthread_mutex_lock(&tables_lock);
    struct req_list *l = map_put(&reqs, handle_key(req_handle(r->handle)), &created);
    if (l == NULL) {
        rc = -1;
    } else if (created) {
        l->one = *r;
        l->n = 1;
    } else if (req_list_grow(l) != 0) {
        rc = -1;
    } else {
        if (first)
            memmove(l->v + 1, l->v, l->n * sizeof(*l->v));
        l->v[first ? 0 : l->n] = *r;
        l->n++;
    }
    pthread_mutex_unlock(&tables_lock);
    if (rc != 0)
        rt_warn_once(RT_WARN_TABLES, "cannot grow the request table: completions not recorded: "
                     "reason=out of memory");
    return rc;
}

uint64_t mpi_req_add(MPI_Request h, const struct mpi_req *r)
{
    struct mpi_req e = *r;
    pthread_mutex_lock(&tables_lock);
    e.id = next_req_id++;
    pthread_mutex_unlock(&tables_lock);
    e.handle = h;
    req_insert(&e, 0);
    return e.id;
}

void mpi_req_take(MPI_Request h, struct mpi_req *out)
{
    memset(out, 0, sizeof(*out));
    out->handle = h;
    if (h == MPI_REQUEST_NULL)
        return;
    pthread_mutex_lock(&tables_lock);
    struct req_list *l = map_get(&reqs, handle_key(req_handle(h)));
    if (l != NULL) {
        *out = l->cap ? l->v[0] : l->one;
        if (l->cap)
            memmove(l->v, l->v + 1, --l->n * sizeof(*l->v));
        else
            l->n = 0;
        if (l->n == 0) {
            free(l->v);
            map_del(&reqs, handle_key(req_handle(h)));
        }
    }
    pthread_mutex_unlock(&tables_lock);
    if (l == NULL && !mpi_persist_known(h)) /* an inactive persistent request is ours */
        rt_warn_once(MPI_WARN_REQUEST, "request not made by a wrapped call (a call commhint "
                     "records as untraced, or a generalized request): its completion "
                     "is recorded without its buffers: handle=0x%x", (unsigned)h);
}

void mpi_req_put_back(const struct mpi_req *r)
{
    req_insert(r, 1);
}
