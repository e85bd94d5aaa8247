#!/usr/bin/env bash
# `make install PREFIX= DESTDIR=` installs the command, the viewer, the plugin, the
# libraries and commhint.pc; a program built with plain clang-16 and
# pkg-config (installed and build-tree .pc) traces; the installed
# `commhint cc` compiles with the installed plugin and its program traces;
# so does the installed wrapper commhint-mpicc (the CMake toolchain file's).
source "$(dirname "$0")/lib.sh"
check "make install with DESTDIR" make -s --no-print-directory install O="$B" PREFIX=/opt/commhint DESTDIR="$WORK/stage"
for f in bin/commhint bin/commhint-gui bin/commhint-mpicc bin/commhint-mpicxx bin/commhint-clang bin/commhint-clang++ \
    share/commhint/commhint.cmake lib/commhint-pass.so lib/libcommhint.so lib/libcommhint.a lib/pkgconfig/commhint.pc; do
    [ -e "$WORK/stage/opt/commhint/$f" ] && ok "installs $f" || not_ok "installs $f"
done
expect_match "installed commhint.pc points at PREFIX" "$(cat "$WORK/stage/opt/commhint/lib/pkgconfig/commhint.pc")" '^prefix=/opt/commhint$'
check "make install to a real PREFIX" make -s --no-print-directory install O="$B" PREFIX="$WORK/inst"
expect_match "installed commhint view runs the installed viewer" "$("$WORK/inst/bin/commhint" view --help 2>&1)" \
    "^usage: commhint view DIR"
SRC=tests/e2e/programs/facts.c
L_LOOP=$(line_of $SRC FACT:loop)
for pc in "$WORK/inst/lib/pkgconfig" "$B/lib/pkgconfig"; do
    flags=$(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs commhint mpich)
    check "plain clang-16 with pkg-config ($pc)" $CLANG -O2 -o "$WORK/app" $SRC $flags
    dir=$WORK/t-$(basename "$(dirname "$(dirname "$pc")")")
    "$WORK/inst/bin/commhint" run -n 2 -o "$dir" -- "$WORK/app" >/dev/null 2>&1
    expect_eq "installed commhint run exits 0" "$?" 0
    d=$("$WORK/inst/bin/commhint" dump "$dir" --rank 0 --stable)
    expect_eq "pkg-config build traces the loop statement" "$(grep -c "facts.c:$L_LOOP:[0-9]*: comp " <<<"$d")" 10
done
# commhint cc from PREFIX: COMMHINT_VERBOSE=1 prints the command it runs;
# its -fpass-plugin is PREFIX's plugin, the program it builds is
# instrumented (the loop statement is traced, as with pkg-config above) and
# runs against PREFIX's runtime.
v=$(COMMHINT_VERBOSE=1 "$WORK/inst/bin/commhint" cc mpicc -O2 -o "$WORK/app2" $SRC 2>&1)
expect_eq "installed commhint cc exits 0" "$?" 0
plugins=$(printf '%s\n' "$v" | grep -m1 '^mpicc ' | tr ' ' '\n' | sed -n 's/^-fpass-plugin=//p')
expect_eq "installed commhint cc passes the installed plugin" "$plugins" "$WORK/inst/lib/commhint-pass.so"
rt=$(ldd "$WORK/app2" 2>&1 | sed -n 's/^[[:space:]]*libcommhint\.so => \([^ ]*\) .*/\1/p')
expect_eq "a program built by installed commhint cc loads the installed runtime" "$rt" "$WORK/inst/lib/libcommhint.so"
"$WORK/inst/bin/commhint" run -n 2 -o "$WORK/t-cc" -- "$WORK/app2" >/dev/null 2>&1
expect_eq "installed commhint run of the commhint cc build exits 0" "$?" 0
d=$("$WORK/inst/bin/commhint" dump "$WORK/t-cc" --rank 0 --stable 2>&1)
expect_eq "installed commhint cc build traces the loop statement" "$(grep -c "facts.c:$L_LOOP:[0-9]*: comp " <<<"$d")" 10
v=$(COMMHINT_VERBOSE=1 "$WORK/inst/bin/commhint-mpicc" -O2 -o "$WORK/app3" $SRC 2>&1)
expect_eq "installed commhint-mpicc exits 0" "$?" 0
plugins=$(printf '%s\n' "$v" | grep -m1 '^mpicc ' | tr ' ' '\n' | sed -n 's/^-fpass-plugin=//p')
expect_eq "installed commhint-mpicc passes the installed plugin" "$plugins" "$WORK/inst/lib/commhint-pass.so"
