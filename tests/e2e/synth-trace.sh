#!/usr/bin/env bash
# bench/synth-trace (docs/performance.md, "Synthetic traces at scale")
# against real runs of the same patterns: tests/e2e/programs/synth-halo.c
# (2-D and 3-D), synth-master.c and synth-pipeline.c, traced on 4 and 8
# ranks (SYNTH_NPS).  For each pattern and size the synthetic trace of the
# same parameters must read like the real one: the same MPI calls per function
# (`info --format=json`) and per call site (line, column and call of
# `dump`: the fictitious file has the real program's lines), every message
# and collective matched (`hints --format=json`: no unmatched sends,
# receives or collectives), and the same calls and ranks per call site in
# the wait states; `hints` exits 0 on it, and gives the same output serial
# and under `mpiexec -n 2 ... --parallel`.  Then bad usage, a write error
# (a file size limit), and a 1,024-rank trace of 100 steps written and
# analysed (its times are printed as a comment).
source "$(dirname "$0")/lib.sh"

SYNTH=$B/bench/synth-trace
MPIEXEC=${MPIEXEC:-mpiexec}
DOUBLES=256 # per message: 2 KiB
NPS=${SYNTH_NPS:-4 8} # SYNTH_NPS="16 32": larger real runs (slower)
if [ ! -x "$SYNTH" ]; then
    not_ok "synth-trace is built ($SYNTH; run make)"
    exit 0
fi

# ---- usage -------------------------------------------------------------------
out=$("$SYNTH" --help 2>&1)
expect_eq "--help exits 0" "$?" 0
expect_match "--help lists the patterns" "$out" "halo-allreduce, master-worker or pipeline"
bad_usage() { # what expected-message args...
    local what=$1 msg=$2 rc err
    shift 2
    err=$("$SYNTH" "$@" 2>&1 >/dev/null)
    rc=$?
    if [ "$rc" = 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && printf '%s' "$err" | grep -q -- "$msg"; then
        ok "bad usage: $what: exit 2 and one line"
    else
        not_ok "bad usage: $what: exit 2 and one line" "exit $rc" "$err"
    fi
}
bad_usage "no options" "are required"
bad_usage "unknown pattern" "must be halo-allreduce" --ranks 4 --iterations 2 --pattern ring -o "$WORK/x"
bad_usage "zero ranks" "ranks must be" --ranks 0 --iterations 2 --pattern pipeline -o "$WORK/x"
bad_usage "ranks not a number" "ranks must be" --ranks 4x --iterations 2 --pattern pipeline -o "$WORK/x"
bad_usage "dims 4" "dims must be 2 or 3" --ranks 4 --iterations 2 --pattern halo-allreduce --dims 4 -o "$WORK/x"
bad_usage "bytes not a multiple of 8" "multiple of 8" --ranks 4 --iterations 2 --pattern pipeline --bytes 12 -o "$WORK/x"
bad_usage "master-worker on one rank" "2 ranks or more" --ranks 1 --iterations 2 --pattern master-worker -o "$WORK/x"
bad_usage "jitter above 1" "jitter must be" --ranks 4 --iterations 2 --pattern pipeline --jitter 2 -o "$WORK/x"
mkdir -p "$WORK/full" && touch "$WORK/full/something"
err=$("$SYNTH" --ranks 2 --iterations 1 --pattern pipeline -o "$WORK/full" 2>&1)
rc=$?
expect_eq "a non-empty output directory: exit 1 (${err:-no message})" "$rc" 1
expect_match "a non-empty output directory: the message says so" "$err" "not empty"

err=$(ulimit -f 20; "$SYNTH" --ranks 4 --iterations 20000 --pattern halo-allreduce -o "$WORK/big-files" 2>&1)
rc=$?
expect_eq "past a file size limit: exit 1 (${err:-no message})" "$rc" 1
expect_eq "past a file size limit: one line on stderr" "$(printf '%s\n' "$err" | wc -l)" 1
expect_match "past a file size limit: the message names the file and the reason" "$err" \
    "cannot write the trace: file=.*rank-0000[0-3].chtr reason=File too large"
rm -rf "$WORK/big-files"

# ---- the real programs -------------------------------------------------------
for p in halo master pipeline; do
    if ! build_prog tests/e2e/programs/synth-$p.c "$WORK/synth-$p" -O2 >"$WORK/build-$p.log" 2>&1; then
        not_ok "synth-$p.c builds" "$(cat "$WORK/build-$p.log")"
    fi
done

# sites DIR: "line:col: call count" per call site, from dump
sites() {
    "$CH" dump "$1" 2>/dev/null | sed -n 's/^[^ ]*:\([0-9]*:[0-9]*\): \(MPI_[A-Za-z_]*\) .*/\1 \2/p' | sort | uniq -c
}
# facts DIR: the MPI calls per function, the unmatched counts and the wait
# states per call site (line, call, ranks, calls), from info and hints
facts() {
    "$CH" info "$1" --format=json >"$WORK/f-info.json" 2>"$WORK/f.err" &&
        "$CH" hints "$1" --format=json >"$WORK/f-hints.json" 2>>"$WORK/f.err" &&
        python3 - "$WORK/f-info.json" "$WORK/f-hints.json" <<'EOF' || echo "ERROR $(cat "$WORK/f.err")"
import json, sys
info = json.load(open(sys.argv[1]))
hints = json.load(open(sys.argv[2]))
print("calls", sorted(info["mpi_calls"].items()))
print("unmatched", sorted(hints["unmatched"].items()))
for w in sorted(hints["wait_states"], key=lambda w: (w["line"], w["call"])):
    print("site %d %s ranks=%d calls=%d" % (w["line"], w["call"], w["ranks"], w["calls"]))
EOF
}

# compare NAME NP REAL-ARGS -- SYNTH-ARGS
compare() {
    local name=$1 np=$2 prog=$3 args=$4 sargs=$5
    local real=$WORK/real-$name-$np syn=$WORK/syn-$name-$np
    if [ ! -x "$WORK/synth-$prog" ]; then
        not_ok "$name on $np ranks: the real program is built"
        return
    fi
    # shellcheck disable=SC2086
    trace_run "$real" "$np" "$WORK/synth-$prog" $args
    expect_eq "$name on $np ranks: the real run exits 0" "$?" 0
    # shellcheck disable=SC2086
    check "$name on $np ranks: synth-trace exits 0" "$SYNTH" --ranks "$np" $sargs -o "$syn"
    local rf sf
    rf=$(facts "$real")
    sf=$(facts "$syn")
    expect_no_match "$name on $np ranks: hints and info read the synthetic trace" "$sf" "^ERROR"
    expect_eq "$name on $np ranks: the same calls, matching and wait-state sites" "$sf" "$rf"
    expect_match "$name on $np ranks: no unmatched sends, receives or collectives" "$sf" \
        "^unmatched \[\('collectives', 0\), \('recvs', 0\), \('sends', 0\)\]$"
    expect_eq "$name on $np ranks: the same calls per call site (line, column)" "$(sites "$syn")" "$(sites "$real")"
    "$CH" hints "$syn" --stable --waits >"$syn.serial" 2>&1
    expect_eq "$name on $np ranks: hints --stable --waits exits 0" "$?" 0
    "$MPIEXEC" -n 2 "$CH" hints "$syn" --stable --waits --parallel >"$syn.par" 2>&1
    expect_eq "$name on $np ranks: mpiexec -n 2 hints --parallel exits 0" "$?" 0
    same_file "$name on $np ranks: serial and parallel hints agree" "$syn.serial" "$syn.par"
    rm -rf "$real" "$real".out "$real".err
}

for np in $NPS; do
    compare halo-2d $np halo "2 12 4 $DOUBLES" \
        "--iterations 12 --pattern halo-allreduce --dims 2 --every 4 --bytes $((DOUBLES * 8))"
    compare master-worker $np master "3 $DOUBLES" "--iterations 3 --pattern master-worker --bytes $((DOUBLES * 8))"
    compare pipeline $np pipeline "5 $DOUBLES" "--iterations 5 --pattern pipeline --bytes $((DOUBLES * 8))"
done
compare halo-3d 8 halo "3 6 3 $DOUBLES" \
    "--iterations 6 --pattern halo-allreduce --dims 3 --every 3 --bytes $((DOUBLES * 8))"

# ---- at scale ----------------------------------------------------------------
big=$WORK/big
t0=$(date +%s.%N)
"$SYNTH" --ranks 1024 --iterations 100 --pattern halo-allreduce -o "$big" 2>"$WORK/big.err"
rc=$?
t1=$(date +%s.%N)
expect_eq "1024 ranks x 100 steps: written ($(cat "$WORK/big.err"))" "$rc" 0
out=$("$CH" hints "$big" --format=json 2>"$WORK/big-hints.err" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["world_size"], d["ranks_analysed"], d["events"], sorted(d["unmatched"].values()))' 2>&1 ||
    cat "$WORK/big-hints.err")
t2=$(date +%s.%N)
expect_eq "1024 ranks x 100 steps: analysed, every message matched" "$out" "1024 1024 908288 [0, 0, 0]"
echo "# 1024 ranks x 100 steps: written in $(echo "$t1 - $t0" | bc) s ($(du -sk "$big" | cut -f1) KB), hints in $(echo "$t2 - $t1" | bc) s"
rm -rf "$big"
