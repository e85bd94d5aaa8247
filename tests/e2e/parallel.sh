#!/usr/bin/env bash
# `commhint hints --parallel` end to end: an 8-rank trace of the Jacobi
# example analysed by 1, 2 and 3 MPI processes (mpiexec -n P, P fewer than
# the ranks and not dividing them) prints exactly what the serial run
# prints, on stdout (JSON, text, SARIF) and on stderr (warnings, summary);
# so does a trace with a missing, a truncated and a damaged rank file;
# errors are reported once; plain commands never initialise MPI.
source "$(dirname "$0")/lib.sh"

MPIEXEC=${MPIEXEC:-mpiexec}
# For SAN=1 builds: MPI_Init itself leaks (hwloc topology objects inside
# MPICH); with the full stacks LeakSanitizer can tell those apart.
printf 'leak:libmpich.so\nleak:libhwloc.so\nleak:libucs.so\nleak:libucp.so\nleak:libuct.so\n' >"$WORK/lsan.supp"
export ASAN_OPTIONS=fast_unwind_on_malloc=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}
export LSAN_OPTIONS=suppressions=$WORK/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}
dir=$WORK/jacobi8
trace_run "$dir" 8 "$B/examples/O2/jacobi" 64 20
expect_eq "jacobi: traced on 8 ranks" "$?" 0

# same_as_serial "what" DIR ARGS...: serial and parallel runs (P = 1, 2, 3
# and without mpiexec) give the same stdout, stderr and exit status.
same_as_serial() {
    local what=$1 d=$2; shift 2
    local want_out want_err want_rc got_out got_err got_rc p
    want_out=$("$CH" hints "$d" "$@" 2>"$WORK/serial.err"); want_rc=$?
    want_err=$(cat "$WORK/serial.err")
    for p in 1 2 3 none; do
        if [ "$p" = none ]; then
            got_out=$("$CH" hints --parallel "$d" "$@" 2>"$WORK/par.err"); got_rc=$?
        else
            got_out=$("$MPIEXEC" -n "$p" "$CH" hints --parallel "$d" "$@" 2>"$WORK/par.err"); got_rc=$?
        fi
        got_err=$(cat "$WORK/par.err")
        local tag="$what, $([ "$p" = none ] && echo "without mpiexec" || echo "$p processes")"
        if [ "$got_out" = "$want_out" ] && [ "$got_rc" = "$want_rc" ]; then
            ok "$tag: same output and exit status as serial"
        else
            not_ok "$tag: same output and exit status as serial" "status $got_rc (serial $want_rc)" \
                "$(diff <(echo "$want_out") <(echo "$got_out") | head -20)"
        fi
        expect_eq "$tag: same messages as serial, once" "$got_err" "$want_err"
    done
}

json=$("$CH" hints "$dir" --format=json --stable 2>/dev/null)
expect_match "serial: the 8-rank trace has hints" "$json" '"ranks_analysed":8'
expect_match "serial: ... and an overlap hint" "$json" '"kind":"overlap"'
same_as_serial "json --stable" "$dir" --format=json --stable
same_as_serial "text, with times" "$dir"
same_as_serial "sarif" "$dir" --format=sarif
same_as_serial "json, with times and one rank" "$dir" --format=json --rank=5

# Every example (collectives, nonblocking calls, wildcard receives, many
# small sends...) on 4 ranks, analysed by 1, 2, 4 and 8 processes in turn
# (8: more processes than ranks), and a synthetic 64-rank halo trace by
# each: the MPI logs travel whole, the output is the serial one.  In the
# sanitizer pass the largest examples run at smaller sizes (small_args in
# lib.sh): the serial analysis of halo_staging's default run takes 17 s
# there, and the processes' exchange is the same at any size.
ks=(2 4 8 1)
i=0
for exe in "$B"/examples/O0/*; do
    ex=$(basename "$exe")
    d=$WORK/ex-$ex
    k=${ks[$((i % 4))]}
    i=$((i + 1))
    args=()
    [ -z "${SAN:-}" ] || read -r -a args <<<"$(small_args "$ex")"
    trace_run "$d" 4 "$exe" "${args[@]}"
    expect_eq "$ex: traced on 4 ranks" "$?" 0
    want=$("$CH" hints "$d" --format=json --all --waits 2>&1)
    got=$("$MPIEXEC" -n "$k" "$CH" hints --parallel "$d" --format=json --all --waits 2>&1)
    if [ "$got" = "$want" ]; then ok "$ex, $k processes: same JSON and messages as serial"
    else not_ok "$ex, $k processes: same JSON and messages as serial" "$(diff <(echo "$want") <(echo "$got") | head -20)"; fi
done
expect_eq "every example was analysed in parallel" "$([ "$i" -ge 17 ] && echo yes)" yes
"$B/bench/synth-trace" --ranks 64 --iterations 20 --pattern halo-allreduce -o "$WORK/synth64" >/dev/null
want=$("$CH" hints "$WORK/synth64" --format=json --all --waits 2>&1)
for k in 1 2 4 8; do
    got=$("$MPIEXEC" -n "$k" "$CH" hints --parallel "$WORK/synth64" --format=json --all --waits 2>&1)
    if [ "$got" = "$want" ]; then ok "synthetic 64 ranks, $k processes: same JSON and messages as serial"
    else not_ok "synthetic 64 ranks, $k processes: same JSON and messages as serial" "$(diff <(echo "$want") <(echo "$got") | head -20)"; fi
done

# Programs whose aggregation hints are judged by replays of changed runs
# (the deadlock checks: a group delaying sends past blocking calls on all
# its ranks at once; the replay spread over the processes), on 4 ranks (2
# for deadlock.c) by 2, 3 and 4 processes, with the explanations of the
# groups they forbid; sized-parts, whose merged receives pass a count on
# (the receives' lines, found where the sends' ranks are analysed: the
# aggregation kind's peer facts, packed to process 0); and args-locals,
# whose MPI_Reduce made nonblocking names the other members' call (the
# instance's members' sites, sent by its owner to process 0).
for prog in agg-sendrecv deadlock-symmetric deadlock sized-parts args-locals; do
    bin=$WORK/$prog
    np=4
    [ "$prog" = deadlock ] && np=2
    build_prog "tests/e2e/programs/$prog.c" "$bin" -O0 >/dev/null 2>&1
    trace_run "$WORK/dl-$prog" "$np" "$bin"
    expect_eq "$prog: traced on $np ranks" "$?" 0
    want=$("$CH" hints "$WORK/dl-$prog" --format=json --all --explain --waits 2>&1)
    for k in 2 3 4; do
        got=$("$MPIEXEC" -n "$k" "$CH" hints --parallel "$WORK/dl-$prog" --format=json --all --explain --waits 2>&1)
        if [ "$got" = "$want" ]; then ok "$prog, $k processes: same JSON and messages as serial"
        else not_ok "$prog, $k processes: same JSON and messages as serial" "$(diff <(echo "$want") <(echo "$got") | head -20)"; fi
    done
    # process 0 without any log record (below): the explanations' chains
    # and descriptions come from the processes that hold the logs
    got=$(COMMHINT_SPREAD_REPLAY=1 "$MPIEXEC" -n 2 "$CH" hints --parallel "$WORK/dl-$prog" --format=json --all --explain --waits 2>&1)
    if [ "$got" = "$want" ]; then ok "$prog, 2 processes, no log on process 0: same JSON and messages as serial"
    else not_ok "$prog, 2 processes, no log on process 0: same JSON and messages as serial" "$(diff <(echo "$want") <(echo "$got") | head -20)"; fi
done
# dft's checks ask whether receives happen before what a delayed send's
# call waits for (a group it forbids: 'would deadlock: rank 0 receives that
# message ...'): the happens-before pairs answered by every process
# together (dg_hb_answer_dist), each process asking its ranks' pairs; the
# chain of messages its explanation tells ('then rank 0 sends with ...,
# which rank 2 receives') traced by every process's replay together (the
# CHAIN job, dg_hb_chain_dist).
want=$("$CH" hints "$WORK/ex-dft" --format=json --all --explain 2>&1)
expect_match "dft: a delay forbidden by the happens-before order" "$want" 'would deadlock: rank [0-9]+ receives that message'
expect_match "dft: ... through a chain of messages" "$want" 'then rank [0-9]+ sends with MPI_Send at dft.c:[0-9]+, which rank [0-9]+ receives at dft.c:[0-9]+'
for k in 2 3 4; do
    got=$("$MPIEXEC" -n "$k" "$CH" hints --parallel "$WORK/ex-dft" --format=json --all --explain 2>&1)
    if [ "$got" = "$want" ]; then ok "dft --explain, $k processes: same JSON and messages as serial"
    else not_ok "dft --explain, $k processes: same JSON and messages as serial" "$(diff <(echo "$want") <(echo "$got") | head -20)"; fi
done
expect_match "sized-parts: the receive that takes its count from an earlier part's is named" \
    "$("$CH" hints "$WORK/dl-sized-parts" --format=json --all --explain 2>/dev/null)" 'takes its count or its buffer from what the one at'
expect_match "args-locals: the MPI_Reduce made nonblocking names the other members' call" \
    "$("$CH" hints "$WORK/dl-args-locals" --format=json --all --explain 2>/dev/null)" 'the other members of this MPI_Reduce make it at line'
expect_match "deadlock-symmetric: a group is forbidden by the replay of the changed run" \
    "$("$CH" hints "$WORK/dl-deadlock-symmetric" --format=json --all --explain 2>/dev/null)" 'deadlock'

# The predictions replayed by every process together (each its ranks,
# dg_replay_run_dist, a job of process 0 per replay): process 0 replays
# them itself while it holds every rank's log, unless
# COMMHINT_SPREAD_REPLAY=1, and then it is sent no log record at all
# (what it needs of the logs, the explanations included, it asks of the
# processes).  Examples whose hints change the run in every way a hint
# does (calls made nonblocking, sends merged, point-to-point loops made
# collectives), and the synthetic trace: the serial JSON.
i=0
for ex in small_sends pipeline master_worker ring_allgather dft heat_vector; do
    k=$((2 + i % 2))
    i=$((i + 1))
    want=$("$CH" hints "$WORK/ex-$ex" --format=json --all --waits --explain 2>&1)
    got=$(COMMHINT_SPREAD_REPLAY=1 "$MPIEXEC" -n "$k" "$CH" hints --parallel "$WORK/ex-$ex" --format=json --all --waits --explain 2>&1)
    if [ "$got" = "$want" ]; then ok "$ex, $k processes, predictions replayed spread: same JSON and messages as serial"
    else not_ok "$ex, $k processes, predictions replayed spread: same JSON and messages as serial" "$(diff <(echo "$want") <(echo "$got") | head -20)"; fi
done
want=$("$CH" hints "$WORK/synth64" --format=json --all --waits 2>&1)
got=$(COMMHINT_SPREAD_REPLAY=1 "$MPIEXEC" -n 4 "$CH" hints --parallel "$WORK/synth64" --format=json --all --waits 2>&1)
if [ "$got" = "$want" ]; then ok "synthetic 64 ranks, 4 processes, predictions replayed spread: same JSON and messages as serial"
else not_ok "synthetic 64 ranks, 4 processes, predictions replayed spread: same JSON and messages as serial" "$(diff <(echo "$want") <(echo "$got") | head -20)"; fi

# A missing rank file, a truncated one (cut short) and a damaged one (left out).
bad=$WORK/jacobi8-bad
cp -r "$dir" "$bad"
rm "$bad/rank-00003.chtr"
sz=$(stat -c %s "$bad/rank-00005.chtr")
truncate -s $((sz / 2)) "$bad/rank-00005.chtr"
printf 'this is not a commhint trace file header, it is only text...' |
    dd of="$bad/rank-00006.chtr" conv=notrunc 2>/dev/null
err=$("$CH" hints "$bad" 2>&1 >/dev/null)
expect_match "damaged trace, serial: warns about the missing rank" "$err" "rank 3 has no stream file"
expect_match "damaged trace, serial: warns about the truncated rank" "$err" "rank 5 was cut short"
expect_match "damaged trace, serial: warns about the damaged rank" "$err" "rank 6 could not be analysed"
same_as_serial "damaged trace, text" "$bad"
same_as_serial "damaged trace, json --stable" "$bad" --format=json --stable

# The results travel to process 0 in parts (a bundle each, packed when
# process 0 takes them): with parts of one rank each (COMMHINT_PART_BYTES=1),
# a process's results in many parts give the serial output, and so do
# parts of up to 9 ranks (300,000 bytes: the synthetic trace's 21 ranks of
# a process in 3 parts), with the damaged trace's failed ranks among them.
for parts in 1 300000; do
    for d in "$dir" "$bad" "$WORK/synth64"; do
        want=$("$CH" hints "$d" --format=json --all --waits 2>&1)
        got=$(COMMHINT_PART_BYTES=$parts "$MPIEXEC" -n 3 "$CH" hints --parallel "$d" --format=json --all --waits 2>&1)
        tag="$(basename "$d"), 3 processes, parts closed at $parts bytes: same JSON and messages as serial"
        if [ "$got" = "$want" ]; then ok "$tag"
        else not_ok "$tag" "$(diff <(echo "$want") <(echo "$got") | head -20)"; fi
    done
done

# Output to a file: written by process 0 only, the same as serial.
"$CH" hints "$dir" -o "$WORK/serial.txt" 2>/dev/null
"$MPIEXEC" -n 2 "$CH" hints --parallel "$dir" -o "$WORK/par.txt" 2>/dev/null
expect_eq "-o FILE with 2 processes: exit 0" "$?" 0
if cmp -s "$WORK/serial.txt" "$WORK/par.txt"; then ok "-o FILE with 2 processes: the serial run's file"
else not_ok "-o FILE with 2 processes: the serial run's file" "$(diff "$WORK/serial.txt" "$WORK/par.txt" | head)"; fi

# Errors: reported once, by process 0, exit 1 from the job.
out=$("$MPIEXEC" -n 3 "$CH" hints --parallel "$WORK/none" 2>&1); rc=$?
expect_eq "missing directory, 3 processes: exit 1" "$rc" 1
expect_eq "missing directory, 3 processes: one error line" "$(printf '%s\n' "$out" | grep -c 'error: ')" 1
out=$("$MPIEXEC" -n 3 "$CH" hints --parallel "$dir" --rank=99 2>&1); rc=$?
expect_eq "--rank beyond the world, 3 processes: exit 1" "$rc" 1
expect_eq "--rank beyond the world, 3 processes: one error line" "$(printf '%s\n' "$out" | grep -c 'no such rank')" 1
out=$("$MPIEXEC" -n 2 "$CH" hints --parallel "$dir" -o "$WORK/no/such/dir/x" 2>&1); rc=$?
expect_eq "unwritable output, 2 processes: exit 1" "$rc" 1
expect_eq "unwritable output, 2 processes: one error line" "$(printf '%s\n' "$out" | grep -c 'cannot write the hints')" 1

# Without --parallel nothing initialises MPI: with a PMI address that
# refuses connections MPI_Init would fail, and these commands do not care.
badpmi() { PMI_PORT=127.0.0.1:1 timeout 60 "$@"; }
badpmi "$CH" hints "$dir" >/dev/null 2>&1
expect_eq "hints without --parallel does not initialise MPI" "$?" 0
badpmi "$CH" info "$dir" >/dev/null 2>&1
expect_eq "info does not initialise MPI" "$?" 0
badpmi "$CH" dump "$dir" --rank 1 >/dev/null 2>&1
expect_eq "dump does not initialise MPI" "$?" 0
badpmi "$CH" hints --parallel "$dir" >/dev/null 2>&1
rc=$?
if [ "$rc" -ne 0 ]; then ok "hints --parallel does initialise MPI (the check above can fail)"
else not_ok "hints --parallel does initialise MPI (the check above can fail)" "exit status 0 with PMI_PORT=127.0.0.1:1"; fi

expect_match "hints --help documents --parallel" "$("$CH" hints --help)" "--parallel"
