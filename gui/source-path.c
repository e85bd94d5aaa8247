/* source-path.c - resolving recorded source paths against the source
 * directories (see source-path.h). */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "source-path.h"

static bool is_file(const char *p)
{
    struct stat sb;
    return p && *p && stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* dir + "/" + tail, malloc'ed (NULL on out-of-memory). */
static char *join(const char *dir, const char *tail)
{
    size_t dl = strlen(dir), tl = strlen(tail);
    while (dl > 1 && dir[dl - 1] == '/')
        dl--;
    char *p = malloc(dl + tl + 2);
    if (!p)
        return NULL;
    memcpy(p, dir, dl);
    p[dl] = '/';
    memcpy(p + dl + 1, tail, tl + 1);
    return p;
}

static char *try_join(const char *dir, const char *tail)
{
    if (!*tail)
        return NULL;
    char *p = join(dir, tail);
    if (p && is_file(p))
        return p;
    free(p);
    return NULL;
}

char *cv_source_find(const char *recorded, const char *const *dirs, size_t ndirs)
{
    if (!recorded || !*recorded)
        return NULL;
    if (is_file(recorded))
        return strdup(recorded);
    for (size_t i = 0; dirs && i < ndirs; i++) {
        const char *dir = dirs[i];
        if (!dir || !*dir)
            continue;
        char *p;
        /* the tails of the path, longest first (a relative path itself
         * first): each drops one more leading component */
        const char *tail = recorded;
        while (*tail == '/')
            tail++;
        while (*tail) {
            if ((p = try_join(dir, tail)))
                return p;
            const char *s = strchr(tail, '/');
            if (!s)
                break;
            tail = s + 1;
            while (*tail == '/')
                tail++;
        }
    }
    return NULL;
}

char *cv_source_where(const char *recorded, const char *found)
{
    if (!found)
        return NULL;
    char *abs = realpath(found, NULL);
    const char *shown = abs ? abs : found;
    char *out;
    if (recorded && strcmp(recorded, shown) != 0) {
        size_t n = strlen(shown) + strlen(recorded) + 32;
        out = malloc(n);
        if (out)
            snprintf(out, n, "%s (the trace names %s)", shown, recorded);
    } else {
        out = strdup(shown);
    }
    free(abs);
    return out;
}
