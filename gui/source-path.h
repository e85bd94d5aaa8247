/* source-path.h - finding the source files a trace names, the way a
 * debugger's source path does, without GTK (unit-tested with the view
 * models).  The trace records each file as the debug info has it (usually
 * an absolute path on the machine that built the program); when the trace
 * is opened elsewhere, the viewer looks for it in the source directories
 * the user chose. */
#ifndef COMMHINT_GUI_SOURCE_PATH_H
#define COMMHINT_GUI_SOURCE_PATH_H

#include <stddef.h>

/* The path of an existing regular file for the recorded path, or NULL:
 *   1. the recorded path itself (relative paths: to the current directory);
 *   2. for each directory of dirs in order: DIR/recorded (relative paths
 *      only), then DIR/<the recorded path less its first components>, from
 *      the longest such tail to the basename ("/home/me/app/src/a.c" in
 *      /work gives /work/home/me/app/src/a.c ... /work/src/a.c, /work/a.c).
 * dirs may hold NULL or empty entries (skipped).  Returns a malloc'ed path
 * (the caller frees), NULL if none exists or recorded is NULL or empty. */
char *cv_source_find(const char *recorded, const char *const *dirs, size_t ndirs);

/* Where a source was read from, as the viewer shows it: the absolute,
 * canonical path of found (symbolic links and "..": what the file really
 * is), followed by " (the trace names RECORDED)" when the trace named it
 * otherwise (a relative path, one found in a source directory).  A trace
 * can name any file; this says which one is on the screen.  malloc'ed
 * (the caller frees), NULL if found is NULL or on out-of-memory. */
char *cv_source_where(const char *recorded, const char *found);

#endif /* COMMHINT_GUI_SOURCE_PATH_H */
