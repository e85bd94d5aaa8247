#!/usr/bin/env bash
# bench/case-studies.sh - the case studies of docs/case-studies.md: each
# example before and after applying commhint's hints (examples/<name>.c and
# examples/<name>_after.c), measured against the saving commhint estimated.
#
# Per case and problem size:
#  - plain builds of both versions (MPICH_CC=clang-16 mpicc -std=c11 -O2, no
#    instrumentation) run on NP ranks (default 4) REPS times each (default
#    5), alternating (before, after, after, before, ...); a run's time is
#    measured as commhint measures a traced run (run_ns): from the start of
#    MPI_Init to the end of MPI_Finalize, on the slowest rank (bench/mpi-span.c,
#    preloaded), so mpiexec's start-up is left out.  The medians are compared,
#    and the pairs in which after was faster are counted.  Both versions
#    must print the same output;
#  - the original built with `commhint cc mpicc -g -O2` is traced once at the
#    same size, and `commhint hints --format=json` gives the estimated saving
#    of the hints that were applied (which hints count is set per case
#    below, by kind and by the source lines of the calls): the largest over
#    ranks of the sum of the overlap hints' savings on that rank (by_rank),
#    plus the saving_ns of the other hints; also the time in those calls
#    (the sum of their comm_ns) and the traced run's length (run_ns).
# The estimate is a time of the traced run, so it is compared as a fraction:
# est % = estimated saving / traced run; predicted = est % x plain before.
# CH_BASE=<another commhint> adds its estimate on the same traces (the sum
# of the applied hints' saving_ns), e.g. a build from before a change to
# the estimate.  Writes bench/results/case-studies.md (or OUT); CASES, REPS,
# NP, SIZES_<case> and KEEP=1 (keep the temporary directory) can be set.
set -eu -o pipefail
cd "$(dirname "$0")/.."
B=${B:-$PWD/build}
CH=$B/bin/commhint
CLANG=${CLANG:-clang-16}
REPS=${REPS:-5}
NP=${NP:-4}
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
    awk -F'ns=' '/^mpi-span: / { if ($2 > m) m = $2 } END { if (!m) exit 1; printf "%.6f\n", m / 1e9 }' "$tmp/err" ||
        die "no mpi-span lines from: $*"
}
# held_out CASE: true if CASE is in HELD_OUT
held_out() { case " $HELD_OUT " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# mark CASE: copies a table row, with "(held out)" after the case's name if it is
mark() { if held_out "$1"; then sed 's/^| \([^|]*[^ |]\) |/| \1 (held out) |/'; else cat; fi; }
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
    rm -rf "$tmp/tr"
    "$CH" run -n "$NP" -o "$tmp/tr" -- "$tmp/$c.traced" "$@" >/dev/null 2>"$tmp/err" ||
        { cat "$tmp/err" >&2; die "traced run failed: $c $*"; }
    "$CH" hints "$tmp/tr" --format=json >"$tmp/$c.json" 2>/dev/null
    local bm am est comm run base=-
    bm=$(median "${bt[@]}"); am=$(median "${at[@]}")
    est=$(jq "[.hints[] | select($sel)] as \$h
        | ([\$h[] | select(.kind == \"overlap\") | .by_rank[]] | group_by(.rank)
           | map(map(.saving_ns) | add) | max // 0)
          + ([\$h[] | select(.kind != \"overlap\") | .saving_ns] | add // 0)" "$tmp/$c.json")
    if [ -n "${CH_BASE:-}" ]; then
        base=$("$CH_BASE" hints "$tmp/tr" --format=json 2>/dev/null |
            jq "[.hints[] | select($sel) | .saving_ns] | add // 0" | awk '{ printf "%.3f", $1 / 1e6 }')
    fi
    comm=$(jq "[.hints[] | select($sel) | .comm_ns] | add // 0" "$tmp/$c.json")
    run=$(jq .run_ns "$tmp/$c.json")
    cp "$tmp/$c.json" "$tmp/$c-$(echo "$*" | tr ' ' _).json"
    # case | args | before | after | saving s | saving % | after faster |
    # traced run | time in the applied calls | base est. | est. saving | est. % | predicted |
    # measured / predicted
    awk -v c="$c" -v a="$*" -v b="$bm" -v f="$am" -v w="$wins" -v r="$REPS" -v run="$run" \
        -v comm="$comm" -v est="$est" -v base="$base" 'BEGIN {
        s = b - f; ep = 100 * est / run; pred = ep / 100 * b
        printf "| %s | %s | %.3f | %.3f | %.3f | %.1f%% | %d of %d | %.3f | %.3f | %s | %.3f | %.2f%% | %.3f | %s |\n",
            c, a, b, f, s, 100 * s / b, w, r, run / 1e9, comm / 1e9, base, est / 1e6, ep, pred,
            (pred > 0 ? sprintf("%.2f", s / pred) : "-")
    }'
}

{
echo "# Case studies: before and after applying the hints"
echo
echo "$(date -u +%Y-%m-%d), $(nproc) cores, $CLANG, MPICH $(mpichversion 2>/dev/null | sed -n 's/^MPICH Version:[[:space:]]*//p'), $NP ranks."
echo "*before*, *after*: plain \`mpicc -O2\` builds, time from the start of MPI_Init to the end of"
echo "MPI_Finalize on the slowest rank (as run_ns; bench/mpi-span.c), median of $REPS runs each,"
echo "alternating; *after faster*: in how many of the $REPS pairs of"
echo "neighbouring runs. *traced run*: run_ns of the original's trace at the same size (first to last MPI"
echo "call of the longest rank); *time in the calls*: sum of the applied hints' comm_ns (largest rank of"
echo "each); *est. saving*: the largest over ranks of the applied overlap hints' savings on the rank"
echo "(by_rank), plus the other applied hints' saving_ns; *base est.*: the sum of the applied hints'"
echo "saving_ns from CH_BASE on the same trace (- without it); *est. %* = est. saving / traced run;"
echo "*predicted* = est. % x before; the last column is measured saving / predicted. See"
echo "docs/case-studies.md. *(held out)*: a case written after the prediction model was fixed"
echo "(HELD_OUT: $HELD_OUT)."
echo
echo "| case | args | before (s) | after (s) | saving (s) | saving | after faster | traced run (s) | time in the calls (s) | base est. (ms) | est. saving (ms) | est. % | predicted (s) | measured / predicted |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
MPICH_CC=$CLANG mpicc -std=c11 -O2 -shared -fPIC -o "$tmp/libmpispan.so" bench/mpi-span.c
for c in $CASES; do
    setup "$c"
    MPICH_CC=$CLANG mpicc -std=c11 -O2 -o "$tmp/$c.before" "$before" -lm
    # shellcheck disable=SC2086
    MPICH_CC=$CLANG mpicc -std=c11 -O2 $aflags -o "$tmp/$c.after" "$after" -lm
    CLANG=$CLANG "$CH" cc mpicc -g -O2 -o "$tmp/$c.traced" "$before" -lm
    sizes_var=SIZES_$c
    for s in ${!sizes_var}; do
        # shellcheck disable=SC2046
        row "$c" $(echo "$s" | tr , ' ') | mark "$c"
    done
done
echo
echo "Applied hints per case:"
for c in $CASES; do
    setup "$c"
    echo "- $c$(held_out "$c" && echo " (held out)"): $applied ($after${aflags:+ built with $aflags})."
done
} | tee "${OUT:-$out/case-studies.md}"
