/* cli.h - shared helpers of the commhint command-line front end.
 *
 * Each command lives in its own cmd-<name>.c and exposes one
 * `int cmd_<name>(int argc, char **argv)` returning the process exit code:
 * 0 on success, 1 on error, 2 on bad usage.  Results go to stdout,
 * diagnostics to stderr as one sentence followed by key=value facts.
 */
#ifndef COMMHINT_CLI_H
#define COMMHINT_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum cli_exit { CLI_OK = 0, CLI_ERROR = 1, CLI_USAGE = 2 };

struct cli_command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
};

int cmd_cc(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_hints(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_view(int argc, char **argv);

/* "commhint: error: <message>" on stderr; returns CLI_ERROR. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "commhint <cmd>: <message>" plus a pointer to --help on stderr; returns
 * CLI_USAGE. */
/* After the options (argv[first..]): the one trace directory argument of cmd in *dir, or a
 * usage error (missing, or more than one).  Returns CLI_OK or CLI_USAGE. */
int cli_trace_dir_arg(const char *cmd, int argc, char **argv, int first, const char **dir);
int cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* "commhint: warning: <message>" on stderr. */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* After trace_open: the warning that the trace's meta file was cut short
 * (site tables after the cut unknown), if it was. */
struct trace;
void cli_warn_meta_cut(const struct trace *t);

/* Directory holding commhint-pass.so and libcommhint.so: <dir of the
 * commhint executable>/../lib, or $COMMHINT_LIBDIR.  Borrowed, static. */
const char *cli_libdir(void);

/* Parses a --format value against a NULL-terminated list of allowed names;
 * returns its index or -1 after printing a usage error listing them. */
int cli_parse_format(const char *cmd, const char *value, const char *const *allowed);

/* Parses a --min-saving value (COMMHINT_MIN_SAVING): a time such as 500us
 * into *ns (and *frac 0), or a share of the run such as 0.5% into *frac
 * (and *ns 0); false if s is neither. */
bool cli_parse_min_saving(const char *s, double *frac, uint64_t *ns);

/* Parses a non-negative decimal integer; false if s is not one. */
bool cli_parse_uint(const char *s, unsigned long *out);

/* JSON strings and paths shown relative to the current directory are the
 * analysis library's (search_json_string, search_display_path), shared
 * with the report's formats. */

#endif /* COMMHINT_CLI_H */
