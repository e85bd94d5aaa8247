#!/usr/bin/env bash
# bench/versus.sh - two builds of commhint on the bundled examples, for a
# change that must not cost more: OLD_B and NEW_B are build directories
# (make all in each tree).  Each example is built by each commhint at
# -O2 with vectorisation and unrolling off in both (the user's flags, so
# that an older `commhint cc` whose own flags lost to -O2 builds the same
# loops), then, alternating old and new so that both see the same load,
# REPS traced runs on NP ranks (median wall time of `commhint run`), the
# trace's records (bytes before compression), and the median time of `commhint hints` on it.
# Prints one table row per example with the new/old ratios.
set -eu
cd "$(dirname "$0")/.."
OLD_B=${OLD_B:?OLD_B=build directory of the old tree}
NEW_B=${NEW_B:-$PWD/build}
REPS=${REPS:-5}
NP=${NP:-2}
EXAMPLES=${EXAMPLES:-"jacobi gauss dft master_worker small_sends"}
# sizes that run long enough (about 0.3-2 s traced) to measure more than start-up
args_of() {
    case $1 in
    jacobi) echo 256 200 ;; gauss) echo 768 ;; dft) echo 36864 ;; # dft: a square, m divisible by the ranks
    master_worker) echo 4800 100 ;; small_sends) echo 65536 800 ;;
    esac
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
secs() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); echo "$e - $s" | bc -l; }
ratio() { echo "scale=3; $1 / $2" | bc -l; }

echo "| example | traced run old (s) | new (s) | ratio | records (bytes before compression) old | new | ratio | hints old (s) | new (s) | ratio |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for ex in $EXAMPLES; do
    for v in old new; do
        b=$OLD_B; [ $v = new ] && b=$NEW_B
        "$b/bin/commhint" cc mpicc -g -O2 -fno-vectorize -fno-slp-vectorize -fno-unroll-loops \
            -o "$tmp/$ex.$v" "examples/$ex.c" -lm 2>/dev/null
        : >"$tmp/run.$v"; : >"$tmp/hints.$v"
    done
    for _ in $(seq "$REPS"); do
        for v in old new; do
            b=$OLD_B; [ $v = new ] && b=$NEW_B
            rm -rf "$tmp/tr.$v"
            secs "$b/bin/commhint" run -n "$NP" -o "$tmp/tr.$v" -- "$tmp/$ex.$v" $(args_of "$ex") >>"$tmp/run.$v"
        done
    done
    for _ in $(seq "$REPS"); do
        for v in old new; do
            b=$OLD_B; [ $v = new ] && b=$NEW_B
            secs "$b/bin/commhint" hints "$tmp/tr.$v" >>"$tmp/hints.$v"
        done
    done
    ro=$(median <"$tmp/run.old"); rn=$(median <"$tmp/run.new")
    # records before compression (zstd's output varies with where chunks are cut)
    raw() { "$1/bin/commhint" info "$2" --format=json | python3 -c 'import json,sys; print(json.load(sys.stdin)["bytes_raw"])'; }
    bo=$(raw "$OLD_B" "$tmp/tr.old"); bn=$(raw "$NEW_B" "$tmp/tr.new")
    ho=$(median <"$tmp/hints.old"); hn=$(median <"$tmp/hints.new")
    printf '| %s | %.3f | %.3f | %s | %s | %s | %s | %.3f | %.3f | %s |\n' "$ex" "$ro" "$rn" \
        "$(ratio "$rn" "$ro")" "$bo" "$bn" "$(ratio "$bn" "$bo")" "$ho" "$hn" "$(ratio "$hn" "$ho")"
done
