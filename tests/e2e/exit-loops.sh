#!/usr/bin/env bash
# Loops recorded at their exits (clang_pass/ExitRecorded.h): a program built
# with them decodes to the same events, loop records included, as the same
# program built with every iteration recorded (COMMHINT_EXIT_LOOPS=0), and
# gives the same hints.  Checked on programs/exit-loops.c (affine loops of
# every shape, loops with irregular addresses (a sparse product's rows of
# random columns, an indirect access strided after all) and loops with
# calls) at -O1, -O2 and
# -O3, with each encoding of the runtime and with more than a run's 2^20
# records in one loop, and on every bundled example at -O2 (the largest at
# smaller sizes: small_args in lib.sh).  The program's
# output is the uninstrumented build's.
source "$(dirname "$0")/lib.sh"
export COMMHINT_FLUSH_MS=0
norand=()
setarch "$(uname -m)" -R true 2>/dev/null && norand=(setarch "$(uname -m)" -R)

prog=tests/e2e/programs/exit-loops.c
MPICH_CC=${CLANG:-clang-16} mpicc -O2 -o "$WORK/plain" "$prog" -lm
plain=$(mpiexec -n 2 "$WORK/plain" 2>&1)
expect_match "uninstrumented exit-loops prints its checksum" "$plain" '^exit-loops: n=1003 sum='

# same_events NAME DIR_A DIR_B: dump --stable --loops of both identical
# (compared by digest: the large run's dumps take gigabytes)
same_events() {
    local da db
    da=$(set -o pipefail; "$CH" dump "$2" --stable --loops 2>"$2.derr" | md5sum) &&
        db=$(set -o pipefail; "$CH" dump "$3" --stable --loops 2>"$3.derr" | md5sum)
    expect_eq "$1: both dumps exit 0" "$?" 0
    if [ -n "$da" ] && [ "$da" = "$db" ]; then
        ok "$1: dump --stable --loops identical"
    else
        not_ok "$1: dump --stable --loops identical" \
            "$(diff <("$CH" dump "$2" --stable --loops | head -100000) <("$CH" dump "$3" --stable --loops | head -100000) | head -10)"
    fi
}

for O in O1 O2 O3; do
    build_prog "$prog" "$WORK/el-$O" "-$O"
    COMMHINT_EXIT_LOOPS=0 build_prog "$prog" "$WORK/el0-$O" "-$O"
    n=$(objdump -d "$WORK/el-$O" | grep -c 'call.*<__commhint_loop_affine@plt>')
    check "$O: at least 6 loops recorded at their exits ($n calls)" [ "$n" -ge 6 ]
    n=$(objdump -d "$WORK/el-$O" | grep -c 'call.*<__commhint_loop_flush@plt>')
    check "$O: at least 2 of them with irregular addresses ($n flush calls)" [ "$n" -ge 2 ]
    n=$(objdump -d "$WORK/el0-$O" | grep -c 'call.*<__commhint_loop_affine@plt>')
    expect_eq "$O: none with COMMHINT_EXIT_LOOPS=0" "$n" 0
    for v in el el0; do
        trace_run "$WORK/t-$v-$O" 2 "${norand[@]}" "$WORK/$v-$O"
        expect_eq "$O $v: traced run exits 0" "$?" 0
        expect_eq "$O $v: output is the uninstrumented run's" "$(grep '^exit-loops:' "$WORK/t-$v-$O.out")" "$plain"
    done
    same_events "exit-loops $O" "$WORK/t-el-$O" "$WORK/t-el0-$O"
    # a REPEAT_COL's repetitions reach the engine as one run (its irregular
    # addresses listed): the same hints as event by event and as the
    # reference engine's
    h=(hints "$WORK/t-el-$O" --format=json --stable --all --waits)
    "$CH" "${h[@]}" >"$WORK/h-$O.runs" 2>/dev/null
    "$CH" "${h[@]}" --expand-runs >"$WORK/h-$O.events" 2>/dev/null
    "$CH" "${h[@]}" --engine=reference >"$WORK/h-$O.ref" 2>/dev/null
    same_file "exit-loops $O: hints on whole runs identical to --expand-runs" "$WORK/h-$O.events" "$WORK/h-$O.runs"
    same_file "exit-loops $O: hints on whole runs identical to the reference engine's" "$WORK/h-$O.ref" "$WORK/h-$O.runs"
done

# every encoding of the runtime, and a stamping run, make the same records
"$CH" dump "$WORK/t-el0-O2" --stable --loops >"$WORK/ref.dump"
for env in COMMHINT_RUNS=0 COMMHINT_PACK=0 COMMHINT_QUEUE=0 COMMHINT_COLUMNS=1 COMMHINT_COLUMNS=0 COMMHINT_STMT_CLOCK=1 COMMHINT_BUFFER_KB=64; do
    env "$env" "$CH" run -n 2 -o "$WORK/t-$env" -- "${norand[@]}" "$WORK/el-O2" >"$WORK/t-$env.out" 2>&1
    expect_eq "O2 with $env: traced run exits 0" "$?" 0
    "$CH" dump "$WORK/t-$env" --stable --loops >"$WORK/t-$env.dump" 2>/dev/null
    same_file "O2 with $env: same events as every iteration recorded" "$WORK/ref.dump" "$WORK/t-$env.dump"
    rm -f "$WORK/t-$env.dump"
done
rm -f "$WORK/ref.dump"

# loops of 600,000 iterations, two records each: more than one run holds
for v in el el0; do
    trace_run "$WORK/big-$v" 2 "${norand[@]}" "$WORK/$v-O2" 600000 1
    expect_eq "O2 $v, n=600000: traced run exits 0" "$?" 0
done
same_events "exit-loops O2 n=600000" "$WORK/big-el" "$WORK/big-el0"
a=$(cat "$WORK/big-el"/rank-*.chtr | wc -c); b=$(cat "$WORK/big-el0"/rank-*.chtr | wc -c)
check "n=600000: trace no larger than 1.1x the per-iteration one ($a vs $b bytes)" [ $((a * 10)) -le $((b * 11)) ]

# a fault inside such a loop (programs/exit-fault.c, one rank): the
# handler writes the iterations done, so the trace holds the events the
# build with every iteration recorded holds (whose trace has one more
# record: the faulting iteration's iter record)
for v in 1 0; do
    COMMHINT_EXIT_LOOPS=$v build_prog tests/e2e/programs/exit-fault.c "$WORK/ef$v" -O2 -fno-vectorize -fno-unroll-loops
    "$CH" run -n 1 -o "$WORK/tf$v" -- "$WORK/ef$v" >"$WORK/tf$v.out" 2>&1
    check "exit-fault (COMMHINT_EXIT_LOOPS=$v): the run fails" [ $? -ne 0 ]
    "$CH" dump "$WORK/tf$v" --stable >"$WORK/tf$v.dump" 2>/dev/null
done
n=$(objdump -d "$WORK/ef1" | grep -c 'call.*<__commhint_loop_affine@plt>')
check "exit-fault: its loops are recorded at their exits ($n calls)" [ "$n" -ge 1 ]
n=$(grep -c 'W:' "$WORK/tf1.dump")
check "exit-fault: the 3100 stores before the fault are in the trace ($n)" [ "$n" -ge 3100 ]
same_file "exit-fault: the same events as with every iteration recorded" "$WORK/tf0.dump" "$WORK/tf1.dump"

# the bundled examples
for src in examples/*.c; do
    ex=$(basename "$src" .c)
    bin=$B/examples/O2/$ex
    [ -x "$bin" ] || { not_ok "$ex: instrumented binary exists" "$bin"; continue; }
    # the same program name in both builds (the dumps and hints show it)
    mkdir -p "$WORK/exit" "$WORK/perit" "$WORK/pb/$ex"
    COMMHINT_EXIT_LOOPS=0 build_prog "$src" "$WORK/pb/$ex/$ex" -O2
    a=$WORK/exit/$ex
    b=$WORK/perit/$ex
    read -r -a args <<<"$(small_args "$ex")"
    trace_run "$a" "$NP" "${norand[@]}" "$bin" "${args[@]}"
    expect_eq "$ex: traced run exits 0" "$?" 0
    trace_run "$b" "$NP" "${norand[@]}" "$WORK/pb/$ex/$ex" "${args[@]}"
    expect_eq "$ex: traced run (per iteration) exits 0" "$?" 0
    same_events "$ex O2" "$a" "$b"
    "$CH" hints "$a" --format=json --stable >"$a.hints" 2>/dev/null
    "$CH" hints "$b" --format=json --stable >"$b.hints" 2>/dev/null
    same_file "$ex O2: hints --format=json --stable identical" "$a.hints" "$b.hints"
done
