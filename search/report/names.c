/* names.c - what every front end calls the hint kinds (with the registry
 * of per-rank kinds, search/rank/kinds.c) and the roles of related lines
 * (text, JSON, SARIF, the viewer, the timeline export), and the one
 * formatter of durations. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rank/kind.h"

/* The hint kinds found across ranks.  A per-rank kind carries its own
 * entry (struct search_kind in search/rank/kind.h) and the registry
 * (search/rank/kinds.c) gives it its hint kind. */
static const struct search_kind_desc cross[] = {
    {SEARCH_HINT_COLLECTIVE, "collective", "CollectiveCommunication",
     "Point-to-point calls that can be one collective call"},
};

const struct search_kind_desc *search_kind_cross(int kind, const char *name)
{
    for (size_t i = 0; i < sizeof cross / sizeof cross[0]; i++)
        if (cross[i].kind == kind || (name && !strcmp(cross[i].name, name)))
            return &cross[i];
    return NULL;
}

unsigned search_kind_count(void)
{
    return search_kinds_count() + sizeof cross / sizeof cross[0];
}

const struct search_kind_desc *search_kind_at(unsigned i)
{
    /* in the order of the hint kinds: they are below 32 */
    for (int kind = 1; kind < 32; kind++) {
        const struct search_kind_desc *d = search_kind_desc(kind);
        if (d && !i--)
            return d;
    }
    return NULL;
}

const struct search_kind_desc *search_kind_desc(int kind)
{
    const struct search_kind_desc *d = search_kind_cross(kind, NULL);
    for (unsigned i = 0; !d && i < search_kinds_count(); i++)
        if (search_kinds_desc(i)->kind == kind)
            d = search_kinds_desc(i);
    return d;
}

const char *search_kind_name(int kind)
{
    const struct search_kind_desc *d = search_kind_desc(kind);
    return d ? d->name : "?";
}

void search_hint_calls(const struct search_hint *h, uint64_t *held, uint64_t *of)
{
    if (h->kind == SEARCH_HINT_AGGREGATE) {
        *held = h->members;
        *of = h->site_calls;
    } else {
        *held = h->with_window;
        *of = h->instances;
    }
}

int search_kind_from_name(const char *name)
{
    for (unsigned i = 0; name && i < search_kind_count(); i++)
        if (!strcmp(name, search_kind_at(i)->name))
            return search_kind_at(i)->kind;
    return 0;
}

static const struct search_role_desc roles[] = {
    {SEARCH_REL_BEFORE, "before", "can move after the call", "can move after the call"},
    {SEARCH_REL_AFTER, "after", "can run before the wait", "can run before the wait"},
    {SEARCH_REL_MEMBER, "member", "send merged into it", "send merged into it"},
    {SEARCH_REL_SEND, "send", "sends of the pattern", "send of the pattern"},
    {SEARCH_REL_RECV, "recv", "receives of the pattern", "receive of the pattern"},
    {SEARCH_REL_COLL, "collective", "collective merged into it", "collective merged into it"},
};

const struct search_role_desc *search_role_desc(int role)
{
    for (size_t i = 0; i < sizeof roles / sizeof roles[0]; i++)
        if (roles[i].role == role)
            return &roles[i];
    return NULL;
}

const char *search_role_name(int role)
{
    const struct search_role_desc *d = search_role_desc(role);
    return d ? d->name : "?";
}

const char *search_role_text(int role, bool one)
{
    const struct search_role_desc *d = search_role_desc(role);
    return d ? (one ? d->text_one : d->text) : "related";
}

char *search_format_ns(char *buf, size_t size, uint64_t ns)
{
    static const char *const unit[] = {"ns", "us", "ms", "s"};
    if (!buf || !size)
        return buf;
    if (!ns) {
        snprintf(buf, size, "0");
        return buf;
    }
    if (ns < 1000) {
        snprintf(buf, size, "%" PRIu64 " ns", ns);
        return buf;
    }
    double v = (double)ns;
    int u = 0;
    /* up while the value would print as 1000 or more: 999.7 us is 1.0 ms */
    while (u < 3 && v >= 999.5) {
        v /= 1000.0;
        u++;
    }
    snprintf(buf, size, v < 9.95 ? "%.1f %s" : "%.0f %s", v, unit[u]);
    return buf;
}

const char *search_close_why_name(int why)
{
    static const char *const names[SEARCH_CLOSE_WHY_COUNT] = {
        [SEARCH_CLOSE_OTHER] = "depends",         [SEARCH_CLOSE_FENCE] = "fence",
        [SEARCH_CLOSE_FLOW] = "flow",             [SEARCH_CLOSE_OUTPUT] = "output",
        [SEARCH_CLOSE_ANTI] = "anti",             [SEARCH_CLOSE_ANTI_WAITED] = "anti-after-wait",
        [SEARCH_CLOSE_NB_WAIT] = "needs-buffer-waits", [SEARCH_CLOSE_SEND_KEY] = "send-order",
        [SEARCH_CLOSE_RECV_KEY] = "recv-order",   [SEARCH_CLOSE_RECV_ANY] = "recv-any-order",
        [SEARCH_CLOSE_REQ_ALL] = "completed",     [SEARCH_CLOSE_REQ_PART] = "request-alone",
    };
    return why >= 0 && why < SEARCH_CLOSE_WHY_COUNT ? names[why] : "?";
}
