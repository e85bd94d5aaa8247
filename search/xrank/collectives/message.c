/* message.c - the texts of collective hints: the pieces the patterns'
 * text hooks share (the calls and their lines, the accumulating
 * statement), the message as a whole (the pattern's part, the root, the
 * ranks, the instances and the estimated saving), and the message without
 * its saving for outputs compared across runs (search_collective_message).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "collectives-private.h"

/* The file of a hint, "" if none. */
static const char *hint_file(const struct search_hint *sh)
{
    return sh->file ? sh->file : "";
}

/* Set members of a [P] byte map as "0-3", "0, 2". */
static void sb_set(struct search_text *b, const uint8_t *set, int P)
{
    bool first = true;
    for (int i = 0; i < P;) {
        if (!set[i]) {
            i++;
            continue;
        }
        int j = i;
        while (j + 1 < P && set[j + 1])
            j++;
        search_text_printf(b, "%s", first ? "" : ", ");
        if (j > i)
            search_text_printf(b, "%d-%d", i, j);
        else
            search_text_printf(b, "%d", i);
        first = false;
        i = j + 1;
    }
}

int coll_set_count(const uint8_t *set, int P)
{
    int n = 0;
    for (int i = 0; i < P; i++)
        n += set[i] != 0;
    return n;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* "line 12" / "lines 12, 14" of the sites with this call and mask bit, as
 * "file.c:12" when not in the hint's file; a site without a line (line 0:
 * the compiler merged calls of several lines, or no debug information) as
 * "an unknown line in f()", once per function. */
void coll_text_lines(struct search_text *b, const struct hacc *h, const struct search_hint *sh, uint16_t call,
                     unsigned bit)
{
    const char *file = hint_file(sh);
    uint32_t n = 0;
    for (uint32_t i = 0; i < h->nlocs; i++)
        n += h->locs[i].call == call && (h->locs[i].mask & bit) && h->locs[i].loc.line;
    if (n)
        search_text_printf(b, n == 1 ? "line " : "lines ");
    bool first = true;
    uint32_t last_line = 0;
    const char *last_file = NULL;
    for (uint32_t i = 0; i < h->nlocs; i++) {
        const struct iloc *l = &h->locs[i];
        if (l->call != call || !(l->mask & bit) || !l->loc.line)
            continue;
        if (last_file && !strcmp(last_file, l->loc.file) && last_line == l->loc.line)
            continue;
        search_text_printf(b, "%s", first ? "" : ", ");
        if (strcmp(l->loc.file, file))
            search_text_printf(b, "%s:", *l->loc.file ? base_name(l->loc.file) : "??");
        search_text_printf(b, "%u", l->loc.line);
        first = false;
        last_file = l->loc.file;
        last_line = l->loc.line;
    }
    const char *last_func = NULL;
    bool unknown = false;
    for (uint32_t i = 0; i < h->nlocs; i++) {
        const struct iloc *l = &h->locs[i];
        if (l->call != call || !(l->mask & bit) || l->loc.line)
            continue;
        const char *func = l->loc.func && *l->loc.func ? l->loc.func : NULL;
        if (unknown && (last_func == func || (last_func && func && !strcmp(last_func, func))))
            continue;
        search_text_printf(b, "%san unknown line", first ? "" : " and ");
        if (func)
            search_text_printf(b, " in %s()", func);
        first = false;
        unknown = true;
        last_func = func;
    }
}

/* "the MPI_Send calls at line 129 and the MPI_Recv calls at line 131": the
 * calls of each kind (sends, then receives, then collectives) in order of
 * their first site. */
void coll_text_calls(struct search_text *b, const struct hacc *h, const struct search_hint *sh)
{
    struct callgroup {
        uint16_t call;
        unsigned bit;
    } g[64];
    uint32_t ng = 0;
    static const unsigned bits[] = {LM_SEND, LM_RECV, LM_COLL};
    for (unsigned k = 0; k < 3; k++)
        for (uint32_t i = 0; i < h->nlocs && ng < 64; i++) {
            const struct iloc *l = &h->locs[i];
            if (!(l->mask & bits[k]))
                continue;
            /* a Sendrecv site is named once, with the sends */
            if (bits[k] == LM_RECV && (l->mask & LM_SEND))
                continue;
            bool seen = false;
            for (uint32_t j = 0; j < ng; j++)
                if (g[j].call == l->call)
                    seen = true;
            if (!seen)
                g[ng++] = (struct callgroup){l->call, bits[k]};
        }
    for (uint32_t j = 0; j < ng; j++) {
        search_text_printf(b, "%s", j == 0 ? "the " : j + 1 == ng ? " and the " : ", the ");
        search_text_printf(b, "%s calls at ", trace_mpi_call_name(g[j].call));
        coll_text_lines(b, h, sh, g[j].call, g[j].bit == LM_SEND ? LM_SEND : g[j].bit);
    }
}

void coll_text_consumer(struct search_text *b, const struct hacc *h, const struct search_hint *sh)
{
    const char *file = hint_file(sh);
    if (!h->has_consumer || !h->consumer.line) {
        search_text_printf(b, "a statement");
        return;
    }
    if (strcmp(h->consumer.file, file))
        search_text_printf(b, "%s:%u", base_name(h->consumer.file), h->consumer.line);
    else
        search_text_printf(b, "line %u", h->consumer.line);
    if (!(h->var & VAR_LOCAL))
        search_text_printf(b, " (%s)", trace_site_op_name(h->op));
}

/* Whether a point-to-point call returns before its message is done: the
 * I- forms and the starts of persistent requests. */
static bool p2p_nonblocking(uint16_t call)
{
    return call != CHT_MPI_MRECV && call != CHT_MPI_MPROBE && trace_mpi_call_base(call) != call;
}

/* The nonblocking form of a collective (MPI-3), or NULL: from the call
 * table (trace_mpi_call_base maps each MPI_I... to its blocking form). */
static const char *nonblocking_name(const char *name)
{
    for (int c = CHT_MPI_IBARRIER; c <= CHT_MPI_IEXSCAN; c++)
        if (!strcmp(name, trace_mpi_call_name(trace_mpi_call_base(c))))
            return trace_mpi_call_name(c);
    return NULL;
}

/* The collective to call: its nonblocking form when the hand-written
 * calls it replaces include nonblocking ones (the program overlaps them
 * with work, which a blocking collective would give up). */
const char *coll_collective_name(const struct hacc *h, uint16_t call)
{
    if (!h->pat->mpi)
        return trace_mpi_call_name(call);
    const char *name = (h->var & VAR_V) && h->pat->mpi_v ? h->pat->mpi_v : h->pat->mpi;
    for (uint32_t k = 0; k < h->nlocs; k++)
        if ((h->locs[k].mask & (LM_SEND | LM_RECV)) && p2p_nonblocking(h->locs[k].call)) {
            const char *nb = nonblocking_name(name);
            return nb ? nb : name;
        }
    return name;
}

/* "root = rank 0; " or "root = the sending rank, ranks 0-3 in turn; ". */
static void sb_root(struct search_text *b, const struct hacc *h, int P)
{
    int nroots = coll_set_count(h->roots, P);
    const char *who = h->pat->main_call == LM_SEND ? "sending" : "receiving";
    if (nroots == 1) {
        search_text_printf(b, "root = rank ");
        sb_set(b, h->roots, P);
    } else {
        search_text_printf(b, "root = the %s rank, ranks ", who);
        sb_set(b, h->roots, P);
        search_text_printf(b, " in turn");
    }
    search_text_printf(b, "; ");
}

char *coll_hint_message(const struct hacc *h, const struct search_hint *sh, int P)
{
    struct search_text b = {0};
    h->pat->text(&b, h, sh);
    /* a hint with a root names it: the patterns without one leave roots
     * empty, and a repeated collective has it in its calls */
    if (h->pat->main_call != LM_COLL && coll_set_count(h->roots, P))
        sb_root(&b, h, P);
    search_text_printf(&b, "%s ", sh->nranks == 1 ? "rank" : "ranks");
    for (int i = 0; i < sh->nranks;) {
        int j = i;
        while (j + 1 < sh->nranks && sh->ranks[j + 1] == sh->ranks[j] + 1)
            j++;
        if (j > i)
            search_text_printf(&b, "%s%d-%d", i ? ", " : "", sh->ranks[i], sh->ranks[j]);
        else
            search_text_printf(&b, "%s%d", i ? ", " : "", sh->ranks[i]);
        i = j + 1;
    }
    search_text_printf(&b, ", %" PRIu64 " instance%s", sh->with_window, sh->with_window == 1 ? "" : "s");
    search_text_printf(&b, ", est. saving ");
    search_text_time(&b, sh->saving_ns);
    search_text_printf(&b, ")");
    return search_text_take(&b);
}

/* The message of a collective hint as stored (with_times) or without its
 * estimated saving, for outputs compared across runs.  Malloc'ed. */
char *search_collective_message(const struct search_hint *h, bool with_times)
{
    if (!h->message)
        return NULL;
    char *s = strdup(h->message);
    if (!s || with_times)
        return s;
    char *at = strstr(s, ", est. saving ");
    if (!at) /* the replay's prediction, which the report put in its place */
        at = strstr(s, ", predicted ");
    if (at) {
        char *end = strchr(at + 2, ')');
        memmove(at, end ? end : at + strlen(at), strlen(end ? end : at + strlen(at)) + 1);
    }
    return s;
}
