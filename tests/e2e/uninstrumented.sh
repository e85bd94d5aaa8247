#!/usr/bin/env bash
# Programs not compiled with the pass still trace their MPI calls, linked
# with -lcommhint or loaded with `commhint run --preload`; call sites come
# from the DWARF line tables (libdwarf), at -O0 and -O2.
source "$(dirname "$0")/lib.sh"
SRC=tests/e2e/programs/facts.c
L_SEND=$(line_of $SRC FACT:send)
L_RECV=$(line_of $SRC FACT:recv)
for O in -O0 -O2; do
    check "$O: plain build linked with -lcommhint" \
        env MPICH_CC=$CLANG mpicc -g $O -o "$WORK/linked$O" $SRC -L"$B/lib" -Wl,-rpath,"$B/lib" -lcommhint
    check "$O: plain build without commhint" env MPICH_CC=$CLANG mpicc -g $O -o "$WORK/plain$O" $SRC
    for kind in linked plain; do
        dir=$WORK/t-$kind$O
        if [ $kind = plain ]; then
            "$CH" run --preload -n 2 -o "$dir" -- "$WORK/plain$O" >"$dir.out" 2>&1
        else
            trace_run "$dir" 2 "$WORK/linked$O"
        fi
        expect_eq "$O $kind: traced run exits 0" "$?" 0
        info=$("$CH" info "$dir" --format=json)
        expect_match "$O $kind: MPI events only" "$info" '"comp_events":0,"mpi_events":[1-9]'
        d0=$("$CH" dump "$dir" --rank 0)
        expect_match "$O $kind: MPI_Send symbolised to facts.c:$L_SEND" "$d0" "facts.c:$L_SEND:[0-9]+: MPI_Send rank=0 .*sbuf=0x[0-9a-f]+\+800 dest=1 tag=7"
        d1=$("$CH" dump "$dir" --rank 1 --format=json --stable)
        expect_match "$O $kind: MPI_Recv symbolised to facts.c:$L_RECV" "$d1" "\"kind\":\"MPI_Recv\",\"file\":\"[^\"]*facts.c\",\"line\":$L_RECV,"
    done
done
