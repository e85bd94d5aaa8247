/* relation.c - the dependence relation on two events (docs/dependence.md). */
#include "depgraph.h"

static bool ranges_conflict(const struct dg_event *a, const struct dg_event *b)
{
    for (uint32_t i = 0; i < a->nranges; i++) {
        const struct dg_range *ra = &a->ranges[i];
        if (!ra->len)
            continue;
        for (uint32_t j = 0; j < b->nranges; j++) {
            const struct dg_range *rb = &b->ranges[j];
            if (!rb->len || !(ra->write || rb->write))
                continue;
            if (ra->addr < rb->addr + rb->len && rb->addr < ra->addr + ra->len)
                return true;
        }
    }
    return false;
}

static bool keys_conflict(const struct dg_event *a, const struct dg_event *b,
                          bool same_channel_sends)
{
    if (!same_channel_sends && dg_is_movable_send(a) && dg_is_movable_send(b) &&
        a->comm == b->comm && a->peer == b->peer)
        return false;
    for (uint32_t i = 0; i < a->nkeys; i++)
        for (uint32_t j = 0; j < b->nkeys; j++)
            if (dg_keys_conflict(&a->keys[i], &b->keys[j]))
                return true;
    return false;
}

/* Whether later event b depends on earlier event a through b's register
 * and control dependences or through its companions' reads (a writes what
 * they read). */
static bool uses(const struct dg_event *a, const struct dg_event *b)
{
    for (uint32_t i = 0; i < b->nvdeps; i++)
        if (b->vdeps[i] == a->index)
            return true;
    for (uint32_t i = 0; i < b->ncranges; i++) {
        const struct dg_range *rb = &b->cranges[i];
        for (uint32_t j = 0; j < a->nranges; j++) {
            const struct dg_range *ra = &a->ranges[j];
            if (ra->write && ra->len && rb->len && ra->addr < rb->addr + rb->len &&
                rb->addr < ra->addr + ra->len)
                return true;
        }
    }
    return false;
}

bool dg_depends(const struct dg_event *a, const struct dg_event *b, bool same_channel_sends)
{
    if ((a->kind == DG_MPI && a->role == DG_ROLE_FENCE) ||
        (b->kind == DG_MPI && b->role == DG_ROLE_FENCE))
        return true;
    bool ab = a->index < b->index;
    return uses(ab ? a : b, ab ? b : a) || ranges_conflict(a, b) ||
           keys_conflict(a, b, same_channel_sends);
}

const char *dg_role_name(int role)
{
    static const char *const names[] = {
        [DG_ROLE_NONE] = "comp",         [DG_ROLE_SEND] = "send",
        [DG_ROLE_RECV] = "recv",         [DG_ROLE_SENDRECV] = "sendrecv",
        [DG_ROLE_COLL] = "collective",   [DG_ROLE_SYNC] = "sync",
        [DG_ROLE_START] = "start",       [DG_ROLE_COMPLETE] = "complete",
        [DG_ROLE_PROBE] = "probe",       [DG_ROLE_FENCE] = "fence",
        [DG_ROLE_OTHER] = "other",
    };
    if (role < 0 || role > DG_ROLE_OTHER)
        return "?";
    return names[role];
}
