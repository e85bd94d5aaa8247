#!/usr/bin/env bash
# More ranks than CPUs (docs/prediction.md, "Ranks that share CPUs"): the
# runtime sees the host oversubscribed at MPI_Init and its calls record the
# thread's CPU time (COMMHINT_CPU_TIMES=1 asks for it anywhere, =0
# nowhere); `info` says so; the replay keeps the ranks' turns on the CPUs
# and reproduces the run; --model=slice=0 turns that off.
source "$(dirname "$0")/lib.sh"

cpus=$(nproc)
bin=$B/examples/O2/gauss
[ -x "$bin" ] || { not_ok "the O2 examples are built" "no $bin"; exit 0; }

# ---- 4 ranks ----------------------------------------------------------------
trace_run "$WORK/g4" 4 "$bin"
expect_eq "gauss on 4 ranks: traced run exits 0" "$?" 0
"$CH" info "$WORK/g4" --format=json >"$WORK/g4.info" 2>&1
"$CH" hints "$WORK/g4" --format=json >"$WORK/g4.json" 2>/dev/null
if [ "$cpus" -lt 4 ]; then
    expect_eq "4 ranks on $cpus CPUs: info says the host is oversubscribed" \
        "$(jq .oversubscribed "$WORK/g4.info")" true
    expect_match "4 ranks on $cpus CPUs: info's text says so" "$("$CH" info "$WORK/g4" 2>&1)" \
        "^hosts: +1, up to 4 ranks on one with $cpus CPUs?: oversubscribed"
    expect_eq "4 ranks on $cpus CPUs: every call between MPI_Init and MPI_Finalize recorded its CPU time" \
        "$(jq '.cpu_time_calls == .mpi_events - 2 * .world_size - ([.uninstrumented_calls[]] | add // 0) - ([.clock_reads[]] | add // 0)' "$WORK/g4.info")" true
    expect_match "dump shows a call's CPU time" "$("$CH" dump "$WORK/g4" --rank 1 2>&1)" \
        "MPI_Recv.* cpu=[0-9.]+us"
    expect_eq "the replay shares the CPUs out (a slice is fitted)" \
        "$(jq '.model.slice_ns > 1000' "$WORK/g4.json")" true
    # the ranks' turns are the run's own: the replay reproduces the run.
    # Work outside the run (another tenant of a shared machine, a stalled
    # disk) is not in the turns and can put one run off by tens of percent
    # (docs/prediction.md, "Machine load"), so up to two more traces are
    # made before the bound is judged: one of three must meet it.
    errs=$(jq '.model.error' "$WORK/g4.json")
    ok=$(jq '.model.error | fabs < 0.10' "$WORK/g4.json")
    for again in 1 2; do
        [ "$ok" = true ] && break
        trace_run "$WORK/g4r$again" 4 "$bin"
        "$CH" hints "$WORK/g4r$again" --format=json >"$WORK/g4r$again.json" 2>/dev/null
        errs="$errs, $(jq '.model.error' "$WORK/g4r$again.json")"
        ok=$(jq '.model.error | fabs < 0.10' "$WORK/g4r$again.json")
    done
    expect_eq "the replay of the oversubscribed run is within 10% of it (errors: $errs)" "$ok" true
    off=$("$CH" hints "$WORK/g4" --model=slice=0 --format=json 2>/dev/null | jq '.model.slice_ns')
    expect_eq "--model=slice=0: the CPUs are not modelled" "$off" 0
else
    echo "ok # skip 4 ranks do not oversubscribe $cpus CPUs"
fi
jq -e '.ranks | all(.host_ranks == 4 and .cpus >= 1) and ([.[].host_id] | unique | length == 1 and .[0] > 0)' \
    "$WORK/g4.info" >/dev/null
expect_eq "info's ranks name their host: one host id, 4 ranks on it as mpiexec says" "$?" 0

COMMHINT_CPU_TIMES=0 trace_run "$WORK/g4n" 4 "$bin"
"$CH" info "$WORK/g4n" --format=json >"$WORK/g4n.info" 2>&1
expect_eq "COMMHINT_CPU_TIMES=0: no call records its CPU time" "$(jq .cpu_time_calls "$WORK/g4n.info")" 0
expect_eq "COMMHINT_CPU_TIMES=0: the replay cannot share the CPUs out" \
    "$("$CH" hints "$WORK/g4n" --format=json 2>/dev/null | jq '.model.slice_ns')" 0

# ---- 2 ranks ----------------------------------------------------------------
trace_run "$WORK/g2" 2 "$bin"
"$CH" info "$WORK/g2" --format=json >"$WORK/g2.info" 2>&1
if [ "$cpus" -ge 2 ]; then
    expect_eq "2 ranks on $cpus CPUs: not oversubscribed" "$(jq .oversubscribed "$WORK/g2.info")" false
    expect_eq "2 ranks on $cpus CPUs: no call records its CPU time" "$(jq .cpu_time_calls "$WORK/g2.info")" 0
fi
COMMHINT_CPU_TIMES=1 trace_run "$WORK/g2c" 2 "$bin"
"$CH" info "$WORK/g2c" --format=json >"$WORK/g2c.info" 2>&1
expect_eq "COMMHINT_CPU_TIMES=1: the calls record their CPU time anyway" \
    "$(jq '.cpu_time_calls > 0' "$WORK/g2c.info")" true
# (a 2 ms run: its replay error is not a test of anything)
expect_eq "COMMHINT_CPU_TIMES=1: the trace replays, the slice reported" \
    "$("$CH" hints "$WORK/g2c" --format=json 2>/dev/null | jq '.model.replayed and .model.slice_ns >= 0')" true
expect_eq "tracing with CPU times leaves the program's output alone" \
    "$(grep -v "$WORK" "$WORK/g2c.out")" "$(grep -v "$WORK" "$WORK/g2.out")"

# ---- --model ----------------------------------------------------------------
got=$("$CH" hints "$WORK/g2" --model=L=3us,G=0.5,o=1us,or=500ns,eager=100 --format=json 2>/dev/null |
      jq -c '[.model.latency_ns, .model.ns_per_byte, .model.send_overhead_ns, .model.recv_overhead_ns, .model.eager_max]')
expect_eq "--model sets the parameters instead of fitting them" "$got" "[3000,0.5,1000,500,100]"
"$CH" hints "$WORK/g2" --model=X=1 >/dev/null 2>"$WORK/bad.err"
st=$?
expect_eq "--model with an unknown key: usage error" "$st" 2
expect_match "--model with an unknown key: one line saying what it needs" "$(cat "$WORK/bad.err")" \
    "^commhint hints: --model needs KEY=VALUE pairs"
