#!/usr/bin/env bash
# Rows of loop nests (CHT_REC_ROWS, tracelib/rt/rows.c): a nest whose inner
# loop is recorded at its exit with irregular addresses (programs/rows.c: a
# sparse product's rows of 0 to 20 random columns, rows taken in a
# permuted order with two irregular addresses, rows whose outer stride
# changes half way and one row past a loop's 128-iteration buffer) decodes
# to the same events, loop records included, and gives the same hints as
# the same program built with every iteration recorded
# (COMMHINT_EXIT_LOOPS=0) and as the same binary run without rows
# (COMMHINT_ROWS=0), at -O1, -O2 and -O3, and with a small buffer; the
# sparse product alone writes fewer raw bytes with rows.
source "$(dirname "$0")/lib.sh"
export COMMHINT_FLUSH_MS=0
norand=()
setarch "$(uname -m)" -R true 2>/dev/null && norand=(setarch "$(uname -m)" -R)

prog=tests/e2e/programs/rows.c
MPICH_CC=${CLANG:-clang-16} mpicc -O2 -o "$WORK/plain" "$prog"
plain=$(mpiexec -n 2 "$WORK/plain" 2>&1)
expect_match "uninstrumented rows prints its checksum" "$plain" '^rows: n=6000 sum='

# same NAME DIR_A DIR_B: dump --stable --loops and hints of both identical
# (the hints' JSON names its trace: left out)
same() {
    "$CH" dump "$2" --stable --loops >"$2.dump" 2>&1
    "$CH" dump "$3" --stable --loops >"$3.dump" 2>&1
    same_file "$1: dump --stable --loops identical" "$2.dump" "$3.dump"
    (cd "$(dirname "$2")" && "$CH" hints "$(basename "$2")" --stable --all --format=json --explain --waits |
        sed 's/"trace":"[^"]*"/"trace":"T"/') >"$2.hints" 2>&1
    (cd "$(dirname "$3")" && "$CH" hints "$(basename "$3")" --stable --all --format=json --explain --waits |
        sed 's/"trace":"[^"]*"/"trace":"T"/') >"$3.hints" 2>&1
    same_file "$1: hints identical" "$2.hints" "$3.hints"
    rm -f "$2.dump" "$3.dump"
}

for O in O1 O2 O3; do
    build_prog "$prog" "$WORK/rows-$O" "-$O"
    COMMHINT_EXIT_LOOPS=0 build_prog "$prog" "$WORK/rows0-$O" "-$O"
    n=$(objdump -d "$WORK/rows-$O" | grep -c 'call.*<__commhint_loop_flush@plt>')
    check "$O: the inner loops record their irregular addresses at their exits ($n flush calls)" [ "$n" -ge 3 ]
    for v in rows rows0; do
        trace_run "$WORK/t-$v-$O" 2 "${norand[@]}" "$WORK/$v-$O"
        expect_eq "$O $v: traced run exits 0" "$?" 0
        expect_eq "$O $v: output is the uninstrumented run's" "$(grep '^rows:' "$WORK/t-$v-$O.out")" "$plain"
    done
    same "rows $O, against every iteration recorded" "$WORK/t-rows-$O" "$WORK/t-rows0-$O"
done

for env in COMMHINT_ROWS=0 COMMHINT_BUFFER_KB=64 COMMHINT_QUEUE=0; do
    env "$env" "$CH" run -n 2 -o "$WORK/e-$env" -- "${norand[@]}" "$WORK/rows-O2" >"$WORK/e-$env.out" 2>&1
    expect_eq "O2 with $env: traced run exits 0" "$?" 0
    same "rows O2 with $env, against the default" "$WORK/t-rows-O2" "$WORK/e-$env"
done

# the sparse product alone: each row a few bytes and its columns
for v in 1 0; do
    COMMHINT_ROWS=$v "$CH" run -n 2 -o "$WORK/s$v" -- "${norand[@]}" "$WORK/rows-O2" 3000 3 spmv >"$WORK/s$v.out" 2>&1
    expect_eq "spmv alone, COMMHINT_ROWS=$v: traced run exits 0" "$?" 0
done
same "spmv alone, against COMMHINT_ROWS=0" "$WORK/s1" "$WORK/s0"
raw() { "$CH" info "$1" --format=json | python3 -c 'import json, sys; print(json.load(sys.stdin)["bytes_raw"])'; }
a=$(raw "$WORK/s1")
b=$(raw "$WORK/s0")
check "spmv alone: raw records at most 0.7 times those without rows ($a against $b bytes)" [ $((a * 10)) -le $((b * 7)) ]
