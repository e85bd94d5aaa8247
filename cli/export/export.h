/* export.h - the formats of `commhint export` (cli/cmd-export.c).
 *
 * cmd-export.c parses the options, loads the trace as `commhint hints`
 * does (search_analyse with the ranks' calls kept), makes the hints'
 * messages and counts what cannot be exported; a format is one file here
 * that writes what the analysis holds, registered in export_formats[]
 * (cmd-export.c).  Its methods return a CLI exit code, having printed the
 * error (cli_error) themselves. */
#ifndef COMMHINT_CLI_EXPORT_H
#define COMMHINT_CLI_EXPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "search.h"

struct export_opts {
    int format;         /* index in export_formats[] */
    bool stable;        /* logical times, no savings, relative paths */
    int rank;           /* only this world rank; -1 = all */
    const char *output; /* NULL or "-": stdout (file formats) */
};

/* A hint as exported: the report's hint and its message. */
struct xhint {
    const struct search_hint *h;
    char *message;
};

/* The state of one export, common to the formats. */
struct xport {
    const struct export_opts *o;
    struct trace *t;
    const struct search_analysis *a;
    const struct search_report *rep;
    int world;
    struct xhint *hints; /* sorted by location with --stable */
    uint32_t nhints;
    void *out; /* the format's own state, from open to close */
    /* counts, for the summary line: the format's */
    uint64_t calls, flows, unmatched, instants, unlocated;
    /* and cmd-export.c's */
    uint64_t untimed, missing_calls;
};

struct export_format {
    const char *name;
    /* -o names a directory the format writes (then -o is required) */
    bool output_is_dir;
    /* Before the analysis, which can be long: claims the output, so that a
     * bad path fails at once.  x->t, x->world and x->o are set. */
    int (*open)(struct xport *x);
    /* Writes the export; every field of x is set. */
    int (*write)(struct xport *x);
    /* Releases what open made, whatever happened; returns ret, or an error
     * if finishing the output failed. */
    int (*close)(struct xport *x, int ret);
};

extern const struct export_format export_chrome, export_otf2;

/* Shown time of a call's entry or exit, ns from the earliest call (with
 * --stable: call k at k us, its exit half a microsecond later). */
uint64_t export_call_time(const struct xport *x, int rank, uint32_t call, bool exit);

#endif /* COMMHINT_CLI_EXPORT_H */
