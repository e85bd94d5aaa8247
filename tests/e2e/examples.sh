#!/usr/bin/env bash
# Every bundled example (C, and C++ through mpicxx), instrumented at -O0 and
# -O2, runs on 4 ranks under `commhint run` with the same output as the
# uninstrumented program, and leaves a complete trace: 4 ranks, no rank cut
# short, computation and MPI events on every rank, readable by dump and
# info; every line its hints name is in its own source file.  The largest
# runs at smaller sizes (small_args in lib.sh): dumping halo_staging's 20
# million events took 44 s a build, 2 minutes under ASan; its hints and
# heat_helpers' at their default sizes are judged by case-studies.sh and
# hints.sh.
source "$(dirname "$0")/lib.sh"

for src in examples/*.c examples/*.cpp; do
    ex=$(basename "${src%.c}" .cpp)
    case $src in
        *.cpp) plain=(mpicxx -std=c++17 -O2 -o "$WORK/plain-$ex" "$src") ;;
        *) plain=(mpicc -std=c11 -O2 -o "$WORK/plain-$ex" "$src" -lm) ;;
    esac
    if ! out=$("${plain[@]}" 2>&1); then
        not_ok "$ex: plain build" "$out"; continue
    fi
    read -r -a args <<<"$(small_args "$ex")"
    want=$(mpiexec -n "$NP" "$WORK/plain-$ex" "${args[@]}" 2>&1)
    for O in O0 O2; do
        bin=$B/examples/$O/$ex
        [ -x "$bin" ] || { not_ok "$ex $O: instrumented binary exists" "$bin"; continue; }
        dir=$WORK/$ex-$O
        trace_run "$dir" "$NP" "$bin" "${args[@]}"
        rc=$?
        expect_eq "$ex $O: traced run exits 0" "$rc" 0
        got=$(sed '$d' "$dir.out")
        expect_eq "$ex $O: output identical to the uninstrumented program" "$got" "$want"
        expect_eq "$ex $O: commhint run prints the trace directory last" "$(tail -1 "$dir.out")" "$(cd "$dir" && pwd -P)"
        info=$("$CH" info "$dir" --format=json)
        expect_eq "$ex $O: info exits 0" "$?" 0
        expect_match "$ex $O: 4 ranks" "$info" '"world_size":4,'
        expect_eq "$ex $O: every rank complete" "$(grep -o '"status":"complete"' <<<"$info" | wc -l)" 4
        nz=$(grep -o '"rank":[0-9]*,"present":true,"status":"complete","comp_events":[1-9][0-9]*,"mpi_events":[1-9]' <<<"$info" | wc -l)
        expect_eq "$ex $O: computation and MPI events on every rank" "$nz" 4
        n=$("$CH" dump "$dir" | wc -l)
        ev=$(grep -o '"events":[0-9]*' <<<"$info" | cut -d: -f2)
        expect_eq "$ex $O: dump prints one line per event" "$n" "$ev"
        "$CH" dump "$dir" --format=json --rank 3 >/dev/null
        expect_eq "$ex $O: json dump of rank 3 exits 0" "$?" 0
        # the default text of a hint is a few lines (issue 18): at most 8,
        # every overlap hint has a fix with start and wait, and each hint
        # says what to do after "to apply:"
        txt=$("$CH" hints "$dir" 2>/dev/null)
        most=$(awk '/: note: \[/ {if (n > m) m = n; n = 0} {n++} END {if (n > m) m = n; print m + 0}' <<<"$txt")
        [ "$most" -le 8 ] && ok "$ex $O: every hint's text fits in 8 lines ($most)" ||
            not_ok "$ex $O: every hint's text fits in 8 lines" "the longest has $most"
        expect_eq "$ex $O: every hint says what to apply" "$(grep -c ': note: \[' <<<"$txt")" \
            "$(grep -c ': note:   to apply: ' <<<"$txt")"
        got=$("$CH" hints "$dir" --format=json 2>/dev/null | python3 -c '
import json, sys
bad = [h["line"] for h in json.load(sys.stdin)["hints"] if h["kind"] == "overlap" and
       not (h["fix"].get("start", {}).get("line") and h["fix"].get("wait", {}).get("line") and h["fix"]["call"] is not None)]
print("ok" if not bad else "overlap hints without start or wait at lines %s" % bad)')
        expect_eq "$ex $O: every overlap hint has a fix with start and wait" "$got" ok
        # every line a hint names, with its regions and related lines, is the
        # program's own (issue 21: code inlined from the C++ library or a
        # system header is attributed to the line that calls it)
        all=$("$CH" hints "$dir" --all --verbose 2>/dev/null)
        other=$(grep ': note: ' <<<"$all" | grep -Ev "^(.*/)?${src//./\\.}:" | head -3)
        expect_eq "$ex $O: every hint and related line is in $src" "$other" ""
        if "$CH" dump "$dir" --rank 4 >/dev/null 2>"$WORK/err"; then
            not_ok "$ex $O: --rank beyond the world size is an error"
        else
            expect_match "$ex $O: --rank beyond the world size is an error" "$(cat "$WORK/err")" "no such rank in this trace: rank=4 world_size=4"
        fi
    done
done
