/* cmd-view.c - `commhint view DIR [options]`: runs the viewer,
 * commhint-gui, from the directory the commhint executable is in (the
 * build tree's bin/ or the installed bin/), with the same arguments.  The
 * viewer is a separate program so that the command line does not link GTK. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define VIEWER "commhint-gui"

/* The viewer next to this executable, into buf; false if it cannot be
 * named. */
static bool viewer_path(char *buf, size_t size)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return false;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return false;
    *slash = '\0';
    int w = snprintf(buf, size, "%s/%s", exe, VIEWER);
    return w > 0 && (size_t)w < size;
}

int cmd_view(int argc, char **argv)
{
    char path[PATH_MAX];
    if (!viewer_path(path, sizeof path))
        return cli_error("cannot find the directory of the commhint executable: reason=%s", strerror(errno));
    if (access(path, X_OK) != 0)
        return cli_error("the viewer is not installed next to commhint: file=%s reason=%s (it is built by "
                         "'make' when GTK 3 and GtkSourceView 4 are present: make deps)",
                         path, strerror(errno));
    /* argv[0] is "view"; the viewer gets its own name and the rest */
    char **args = calloc((size_t)argc + 1, sizeof *args);
    if (!args)
        return cli_error("out of memory");
    args[0] = path;
    for (int i = 1; i < argc; i++)
        args[i] = argv[i];
    fflush(NULL);
    execv(path, args);
    int e = errno;
    free(args);
    return cli_error("cannot run the viewer: file=%s reason=%s", path, strerror(e));
}
