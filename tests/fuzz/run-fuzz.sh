#!/usr/bin/env bash
# tests/fuzz/run-fuzz.sh - `make fuzz`: runs each libFuzzer harness for its
# share of FUZZ_TIME seconds on a working corpus outside the repository.
#   B=<build dir> FUZZ_TIME=300 FUZZ="reader hints unpack" FUZZ_ARGS= bash tests/fuzz/run-fuzz.sh
# The working corpus $B/fuzz/corpus/<harness>/ starts from (and is topped up
# with) the committed seeds tests/fuzz/corpus/<harness>/ and regression
# inputs tests/fuzz/regressions/<harness>/, and keeps what libFuzzer adds
# between runs.  Crashes, hangs (-timeout) and memory blow-ups
# (-rss_limit_mb, -malloc_limit_mb) are written to $B/fuzz/crashes/; each
# run's log is in $B/fuzz/logs/ and one line per run is appended to
# $B/fuzz/runs.tsv (date, harness, seconds, executions, result).
# Exit status 1 if any harness found something.
set -u
cd "$(dirname "$0")/../.."
B=${B:?set B to the build directory}
FUZZ_TIME=${FUZZ_TIME:-300}
FUZZ=${FUZZ:-reader hints unpack}
FUZZ_ARGS=${FUZZ_ARGS:-}

read -r -a harnesses <<<"$FUZZ"
n=${#harnesses[@]}
[ "$n" -gt 0 ] || { echo "run-fuzz: no harness in FUZZ" >&2; exit 2; }
share=$((FUZZ_TIME / n))
[ "$share" -ge 1 ] || share=1
mkdir -p "$B/fuzz/crashes" "$B/fuzz/logs"
found=0
for h in "${harnesses[@]}"; do
    bin=$B/fuzz/fuzz-$h
    if [ ! -x "$bin" ]; then
        echo "run-fuzz: no harness $bin (make fuzz-build)" >&2
        exit 2
    fi
    corpus=$B/fuzz/corpus/$h
    mkdir -p "$corpus"
    for src in tests/fuzz/corpus/$h tests/fuzz/regressions/$h; do
        [ -d "$src" ] && find "$src" -maxdepth 1 -type f ! -name '*.md' -exec cp -n {} "$corpus"/ \;
    done
    dict=()
    [ "$h" != unpack ] && dict=(-dict=tests/fuzz/trace.dict)
    log=$B/fuzz/logs/$h-$(date +%Y%m%d-%H%M%S).log
    before=$(find "$B/fuzz/crashes" -type f | wc -l)
    start=$(date +%s)
    # the harness's scratch trace directory, removed even after a crash
    base=/tmp
    [ -w /dev/shm ] && base=/dev/shm
    COMMHINT_FUZZ_TMP=$(mktemp -d "$base/commhint-fuzz-run.XXXXXX")
    export COMMHINT_FUZZ_TMP
    echo "== fuzz-$h: ${share}s, corpus $corpus ($(find "$corpus" -type f | wc -l) inputs), log $log"
    # shellcheck disable=SC2086
    "$bin" -max_total_time="$share" -timeout=10 -rss_limit_mb=2048 -max_len=131072 \
        -artifact_prefix="$B/fuzz/crashes/$h-" -print_final_stats=1 "${dict[@]}" $FUZZ_ARGS \
        "$corpus" >"$log" 2>&1
    rc=$?
    secs=$(($(date +%s) - start))
    rm -rf "$COMMHINT_FUZZ_TMP"
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    after=$(find "$B/fuzz/crashes" -type f | wc -l)
    result=ok
    if [ "$rc" -ne 0 ] || [ "$after" -ne "$before" ]; then
        result="found (exit $rc)"
        found=1
        grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" | head -5
        ls -t "$B/fuzz/crashes" | head -3 | sed "s|^|   artifact: $B/fuzz/crashes/|"
    fi
    echo "   fuzz-$h: $secs s, ${execs:-?} executions, $result"
    printf '%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$h" "$secs" "${execs:-0}" "$result" \
        >>"$B/fuzz/runs.tsv"
done
exit "$found"
