#!/usr/bin/env bash
# bench/case-studies.sh - the case studies of docs/case-studies.md: each
# example before and after applying commhint's hints (examples/<name>.c and
# examples/<name>_after.c), measured against the saving commhint predicted.
#
# Per number of ranks (NPS, default "2 4": one per core, and oversubscribed
# on a 2-core machine), case and problem size:
#  - plain builds of both versions (MPICH_CC=clang-16 mpicc -std=c11 -O2, no
#    instrumentation) run REPS times each (default 5), alternating (before,
#    after, after, before, ...); a run's time is measured as commhint's
#    replay measures a traced run: from MPI_Init to MPI_Finalize, on the
#    slowest rank (bench/mpi-span.c, preloaded), so mpiexec's start-up is
#    left out.  The medians are compared, and the pairs in which after was
#    faster are counted.  Both versions must print the same output;
#  - the original built with `commhint cc mpicc -g -O2` is traced once at the
#    same size; the hints that were applied are selected by kind and source
#    line (per case below) and `commhint hints --predict=LIST` replays the
#    run with exactly those applied together (docs/prediction.md): the
#    predicted saving as a fraction of the traced run, and the replay's
#    error on the unchanged run.  The predicted saving in seconds is that
#    fraction of the plain before.
# Cases named in HELD_OUT were measured only after the model was fixed.
# CH_BASE=<another commhint> adds the sum of the applied hints' saving_ns
# from that build on the same traces (e.g. a build from before a change).
# Writes bench/results/case-studies.md and .json (or OUT and JSON_OUT);
# CASES, REPS, NPS, SIZES_<case> and KEEP=1 (keep the temporary directory)
# can be set.
set -eu -o pipefail
cd "$(dirname "$0")/.."
B=${B:-$PWD/build}
CH=$B/bin/commhint
CLANG=${CLANG:-clang-16}
REPS=${REPS:-5}
NPS=${NPS:-"2 4"}
CASES=${CASES:-"jacobi gauss gauss_bcast_x master_worker small_sends halo_staging pipeline ring_allgather"}
# cases written after the prediction model was fixed: their rows are marked
# "held out" (a test of the model, not data it was fitted on)
HELD_OUT=${HELD_OUT:-"pipeline ring_allgather"}
SIZES_jacobi=${SIZES_jacobi:-"128,100 256,100 512,100"}
SIZES_gauss=${SIZES_gauss:-"128 256 512"}
SIZES_gauss_bcast_x=${SIZES_gauss_bcast_x:-"128 256 512"}
SIZES_master_worker=${SIZES_master_worker:-"96,100 960,100 9600,100"}
SIZES_small_sends=${SIZES_small_sends:-"1024,200 16384,200 65536,200"}
# rows,cols,steps: messages of 2, 8 and 32 KB (three per step), after merging
# 6, 24 and 96 KB; fewer steps at 4096 columns, where each send is a rendezvous
SIZES_halo_staging=${SIZES_halo_staging:-"32,256,400 32,1024,400 32,4096,100"}
# n,iters,blocks: a pipeline of 4 blocks per sweep on a small and a large
# grid, and of 64 blocks, where the pipeline's fill is a small part
SIZES_pipeline=${SIZES_pipeline:-"256,30,4 1024,20,4 1024,20,64"}
# N,steps: from a step that is its messages (64 bodies) to one that is its
# N^2/ranks force computation (4096 bodies)
SIZES_ring_allgather=${SIZES_ring_allgather:-"64,50 512,40 4096,10"}
# one size per case and number of ranks (SIZES_<case>_<ranks>; empty: all
# of SIZES_<case>): plain runs of 0.1-2 s. On 2 ranks (one per core) the
# programs run 10-50 times faster than oversubscribed, so larger sizes.
SIZES_jacobi_2=${SIZES_jacobi_2-"1024,200"} SIZES_jacobi_4=${SIZES_jacobi_4-"256,100"}
SIZES_gauss_2=${SIZES_gauss_2-"1024"} SIZES_gauss_4=${SIZES_gauss_4-"256"}
SIZES_gauss_bcast_x_2=${SIZES_gauss_bcast_x_2-"1024"} SIZES_gauss_bcast_x_4=${SIZES_gauss_bcast_x_4-"256"}
SIZES_master_worker_2=${SIZES_master_worker_2-"24000,100"} SIZES_master_worker_4=${SIZES_master_worker_4-"960,100"}
SIZES_small_sends_2=${SIZES_small_sends_2-"262144,200"} SIZES_small_sends_4=${SIZES_small_sends_4-"16384,200"}
SIZES_halo_staging_2=${SIZES_halo_staging_2-"32,4096,100"} SIZES_halo_staging_4=${SIZES_halo_staging_4-"32,4096,100"}
SIZES_pipeline_2=${SIZES_pipeline_2-"1024,20,4"} SIZES_pipeline_4=${SIZES_pipeline_4-"1024,20,4"}
SIZES_ring_allgather_2=${SIZES_ring_allgather_2-"512,40"} SIZES_ring_allgather_4=${SIZES_ring_allgather_4-"512,40"}
out=bench/results
mkdir -p "$out"
tmp=$(mktemp -d)
if [ "${KEEP:-0}" = 1 ]; then echo "bench/case-studies.sh: keeping $tmp" >&2; else trap 'rm -rf "$tmp"' EXIT; fi

die() { echo "bench/case-studies.sh: $*" >&2; exit 1; }
[ -x "$CH" ] || die "no commhint at $CH (build it, or set B)"
command -v jq >/dev/null || die "needs jq (apt-get install jq)"

# lines FILE ERE: the line numbers of FILE matching ERE, as a JSON array
lines() { grep -nE -- "$2" "$1" | cut -d: -f1 | paste -sd, | sed 's/^/[/; s/$/]/'; }

# Per case: the original, the improved source and its extra flags, and a jq
# condition selecting the hints (of the original's trace) that were applied.
P2P='MPI_(Send|Recv)\('
setup() {
    case $1 in
    jacobi)
        before=examples/jacobi.c after=examples/jacobi_after.c aflags=
        applied="overlap at the halo exchange's MPI_Send/MPI_Recv"
        sel=".kind == \"overlap\" and (.line as \$l | $(lines "$before" "$P2P") | index(\$l) != null)" ;;
    gauss)
        before=examples/gauss.c after=examples/gauss_after.c aflags=
        applied="overlap at the pivot row's MPI_Send/MPI_Recv (look-ahead)"
        sel=".kind == \"overlap\" and (.line as \$l | $(lines "$before" 'MPI_(Send\(&prow|Recv\(&pivot)') | index(\$l) != null)" ;;
    gauss_bcast_x)
        before=examples/gauss.c after=examples/gauss_after.c aflags=-DBCAST_X
        applied="as gauss, and collective (MPI_Bcast) at x[i]'s MPI_Send"
        sel="(.kind == \"overlap\" and (.line as \$l | $(lines "$before" 'MPI_(Send\(&prow|Recv\(&pivot)') | index(\$l) != null))
             or (.kind == \"collective\" and (.line as \$l | $(lines "$before" 'MPI_Send\(&x') | index(\$l) != null))" ;;
    master_worker)
        before=examples/master_worker.c after=examples/master_worker_after.c aflags=
        applied="collective: MPI_Bcast, MPI_Scatter, MPI_Gather, MPI_Reduce"
        sel='.kind == "collective"' ;;
    small_sends)
        before=examples/small_sends.c after=examples/small_sends_after.c aflags=
        applied="aggregate, overlap at the exchange's MPI_Send/MPI_Recv, collective (one MPI_Gatherv)"
        sel=".kind == \"aggregate\" or .kind == \"collective\" or (.kind == \"overlap\" and (.line as \$l | $(lines "$before" "$P2P") | index(\$l) != null))" ;;
    halo_staging)
        before=examples/halo_staging.c after=examples/halo_staging_after.c aflags=
        applied="aggregate (needs-buffer) at the staged rows' MPI_Send"
        sel=".kind == \"aggregate\" and (.flags | index(\"needs-buffer\") != null)
             and (.line as \$l | $(lines "$before" 'MPI_Send\(stage') | index(\$l) != null)" ;;
    pipeline)
        before=examples/pipeline.c after=examples/pipeline_after.c aflags=
        applied="overlap at the block boundary's MPI_Recv/MPI_Send"
        sel=".kind == \"overlap\" and (.line as \$l | $(lines "$before" "$P2P") | index(\$l) != null)" ;;
    ring_allgather)
        before=examples/ring_allgather.c after=examples/ring_allgather_after.c aflags=
        applied="collective (MPI_Allgather) and aggregate at the ring's MPI_Sendrecv"
        sel="(.kind == \"collective\" or .kind == \"aggregate\")
             and (.line as \$l | $(lines "$before" 'MPI_Sendrecv\(') | index(\$l) != null)" ;;
    *) die "unknown case: $1" ;;
    esac
}

# secs OUTFILE CMD...: runs CMD (an mpiexec of a plain program) with its
# standard output in OUTFILE and bench/mpi-span.c preloaded, prints the
# span of its slowest rank in seconds; fails the script if it fails
secs() {
    local o=$1; shift
    LD_PRELOAD=$tmp/libmpispan.so "$@" >"$o" 2>"$tmp/err" || { cat "$tmp/err" >&2; die "command failed: $*"; }
    awk '/^mpi-span: / { split($3, i, "="); split($4, f, "=");
                         if (lo == "" || i[2] < lo) lo = i[2]; if (f[2] > hi) hi = f[2] }
         END { if (hi == "") exit 1; printf "%.6f\n", (hi - lo) / 1e9 }' "$tmp/err" ||
        die "no mpi-span lines from: $*"
}
# held_out CASE: true if CASE is in HELD_OUT
held_out() { case " $HELD_OUT " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

row() { # case args...
    local c=$1; shift
    local bt=() at=() wins=0 i x y
    for ((i = 0; i < REPS; i++)); do
        if ((i % 2 == 0)); then
            x=$(secs "$tmp/out.b" mpiexec -n "$NP" "$tmp/$c.before" "$@")
            y=$(secs "$tmp/out.a" mpiexec -n "$NP" "$tmp/$c.after" "$@")
        else
            y=$(secs "$tmp/out.a" mpiexec -n "$NP" "$tmp/$c.after" "$@")
            x=$(secs "$tmp/out.b" mpiexec -n "$NP" "$tmp/$c.before" "$@")
        fi
        cmp -s "$tmp/out.b" "$tmp/out.a" ||
            die "$c $*: outputs differ: before: $(cat "$tmp/out.b") after: $(cat "$tmp/out.a")"
        bt+=("$x"); at+=("$y")
        if [ "$(echo "$y < $x" | bc -l)" = 1 ]; then wins=$((wins + 1)); fi
    done
    local tr="$tmp/tr-$c-$NP-$(echo "$*" | tr ' ' _)" # kept with KEEP=1, to predict again
    rm -rf "$tr"
    "$CH" run -n "$NP" -o "$tr" -- "$tmp/$c.traced" "$@" >/dev/null 2>"$tmp/err" ||
        { cat "$tmp/err" >&2; die "traced run failed: $c $*"; }
    "$CH" hints "$tr" --all --format=json >"$tmp/$c.json" 2>/dev/null
    local bm am list pred perr scale comm run base=-
    bm=$(median "${bt[@]}"); am=$(median "${at[@]}")
    # the applied hints, predicted together by the replay model
    list=$(jq -r "[.hints[] | select($sel) | \"\\(.kind):\\(.line)\"] | unique | join(\",\")" "$tmp/$c.json")
    # for the plain run: its time given, the traced computation scaled to it
    "$CH" hints "$tr" --all --predict="$list" --plain-time="${bm}s" --format=json >"$tmp/$c.pred.json" 2>/dev/null
    pred=$(jq '.model.applied_ns / .model.measured_ns' "$tmp/$c.pred.json")
    perr=$(jq '.model.error' "$tmp/$c.json")
    scale=$(jq '.model.compute_scale' "$tmp/$c.pred.json")
    if [ -n "${CH_BASE:-}" ]; then
        base=$("$CH_BASE" hints "$tr" --format=json 2>/dev/null |
            jq "[.hints[] | select($sel) | .saving_ns] | add // 0" | awk '{ printf "%.3f", $1 / 1e6 }')
    fi
    comm=$(jq "[.hints[] | select($sel) | .comm_ns] | add // 0" "$tmp/$c.json")
    run=$(jq .model.measured_ns "$tmp/$c.json")
    cp "$tmp/$c.json" "$tmp/$c-$(echo "$*" | tr ' ' _).json"
    local held=""
    if held_out "$c"; then held=" (held out)"; fi
    # case | args | before | after | saving s | saving % | after faster |
    # traced run | replay error | time in the calls | base est. | predicted % | predicted s |
    # measured - predicted (points)
    awk -v c="$c$held" -v a="$*" -v b="$bm" -v f="$am" -v w="$wins" -v r="$REPS" -v run="$run" \
        -v comm="$comm" -v pf="$pred" -v perr="$perr" -v base="$base" -v sc="$scale" 'BEGIN {
        s = b - f; pred = pf * b
        printf "| %s | %s | %.3f | %.3f | %.3f | %.1f%% | %d of %d | %.3f | %+.1f%% | %.3f | %.3f | %s | %.1f%% | %.3f | %+.1f |\n",
            c, a, b, f, s, 100 * s / b, w, r, run / 1e9, 100 * perr, sc, comm / 1e9, base, 100 * pf, pred,
            100 * s / b - 100 * pf
    }'
    # the JSON row (bench/results/case-studies.json)
    jq -n --arg case "$c" --arg args "$*" --argjson ranks "$NP" --argjson before "$bm" --argjson after "$am" \
        --argjson pred "$pred" --argjson err "$perr" --argjson scale "$scale" --arg applied "$applied" \
        --arg list "$list" \
        --argjson held "$([ -n "$held" ] && echo true || echo false)" \
        '{case: $case, args: $args, ranks: $ranks, before_s: $before, after_s: $after,
          measured_saving: (($before - $after) / $before), predicted_saving: $pred, replay_error: $err,
          compute_scale: $scale,
          applied: $applied, hints: ($list | split(",")), held_out: $held}' >>"$tmp/rows.jsonl"
}

{
echo "# Case studies: before and after applying the hints"
echo
echo "$(date -u +%Y-%m-%d), $(nproc) cores, $CLANG, MPICH $(mpichversion 2>/dev/null | sed -n 's/^MPICH Version:[[:space:]]*//p')."
echo "*before*, *after*: plain \`mpicc -O2\` builds, time from MPI_Init to MPI_Finalize on the slowest"
echo "rank (bench/mpi-span.c), median of $REPS runs each, alternating; *after faster*: in how many of the"
echo "$REPS pairs of neighbouring runs. *traced run*: the original's trace at the same size, MPI_Init's"
echo "return to the last rank's MPI_Finalize (model.measured_ns); *replay error*: the replay model on the"
echo "unchanged run against that; *computation scale*: what \`--plain-time\` (the plain *before*) scaled the"
echo "traced computation by (1: the plain run is no faster, or its messages alone replay longer); *time"
echo "in the calls*: sum of the applied hints' comm_ns; *base est.*:"
echo "the sum of the applied hints' saving_ns from CH_BASE (- without it); *predicted*: \`commhint hints"
echo "--predict\` of exactly the applied hints together with \`--plain-time\` of *before*, as a share of"
echo "*before* and in seconds; the last column is the measured saving less the predicted one, in"
echo "percentage points of the run. See docs/case-studies.md and docs/prediction.md. *(held out)*: a"
echo "case written after the prediction model was fixed (HELD_OUT: $HELD_OUT)."
MPICH_CC=$CLANG mpicc -std=c11 -O2 -shared -fPIC -o "$tmp/libmpispan.so" bench/mpi-span.c
for c in $CASES; do
    setup "$c"
    MPICH_CC=$CLANG mpicc -std=c11 -O2 -o "$tmp/$c.before" "$before" -lm
    # shellcheck disable=SC2086
    MPICH_CC=$CLANG mpicc -std=c11 -O2 $aflags -o "$tmp/$c.after" "$after" -lm
    CLANG=$CLANG "$CH" cc mpicc -g -O2 -o "$tmp/$c.traced" "$before" -lm
done
for NP in $NPS; do
    echo
    echo "## $NP ranks"
    echo
    echo "| case | args | before (s) | after (s) | saving (s) | saving | after faster | traced run (s) | replay error | computation scale | time in the calls (s) | base est. (ms) | predicted | predicted (s) | measured - predicted (points) |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    for c in $CASES; do
        setup "$c"
        sizes_var=SIZES_${c}_$NP # per number of ranks, else per case
        [ -n "${!sizes_var:-}" ] || sizes_var=SIZES_$c
        for s in ${!sizes_var}; do
            # shellcheck disable=SC2046
            row "$c" $(echo "$s" | tr , ' ')
        done
    done
done
echo
echo "Applied hints per case:"
for c in $CASES; do
    setup "$c"
    echo "- $c$(held_out "$c" && echo " (held out)"): $applied ($after${aflags:+ built with $aflags})."
done
} | tee "${OUT:-$out/case-studies.md}"
jq -s . "$tmp/rows.jsonl" >"${JSON_OUT:-$out/case-studies.json}"
