#!/usr/bin/env bash
# The layout rules of docs/architecture.md, checked on the sources: the
# front ends (cli/, gui/) name no depgraph type or function and include no
# depgraph header; no source file of the analysis (tracelib/reader/,
# depgraph/, search/) is longer than 1,000 lines, and no function in it
# longer than 150; every search/ source is listed under a stage folder.
source "$(dirname "$0")/lib.sh"

hits=$(grep -nE '\bdg_[a-z_]+|\bDG_[A-Z_]+|#include "depgraph.h"' cli/*.[ch] gui/*.[ch] 2>/dev/null)
if [ -z "$hits" ]; then ok "cli/ and gui/ name no depgraph type, function or header"; else
    not_ok "cli/ and gui/ name no depgraph type, function or header" "$hits"; fi

long=$(for f in tracelib/reader/*.c depgraph/*.c $(find search -name '*.c'); do
    n=$(wc -l <"$f"); [ "$n" -gt 1000 ] && echo "$f: $n lines"; done)
if [ -z "$long" ]; then ok "no analysis source file over 1000 lines"; else
    not_ok "no analysis source file over 1000 lines" "$long"; fi

# A function body: from a "{" at column 0 (the style of every C file here)
# to the next "}" at column 0.
FUNLEN='/^\{/ { start = NR; name = prev } /^\}/ && start { if (NR - start > 150) printf "%s:%d: %d lines: %s\n", FILENAME, start, NR - start, name; start = 0 } { prev = $0 }'
longf=$(for f in tracelib/reader/*.c depgraph/*.c $(find search -name '*.c'); do awk "$FUNLEN" "$f"; done)
if [ -z "$longf" ]; then ok "no analysis function over 150 lines"; else
    not_ok "no analysis function over 150 lines" "$longf"; fi

loose=$(ls search/*.c 2>/dev/null)
if [ -z "$loose" ]; then ok "every search/ source is in a stage folder"; else
    not_ok "every search/ source is in a stage folder" "$loose"; fi

# The checker itself bites: a fabricated long function is found.
tmp=$WORK/long.c
{ echo "static int f(void)"; echo "{"; for i in $(seq 1 160); do echo "    x++;"; done; echo "}"; } >"$tmp"
got=$(awk "$FUNLEN" "$tmp")
expect_match "the function-length check finds a 160-line function" "$got" "long.c:2: 161 lines"
