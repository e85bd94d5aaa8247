#!/usr/bin/env bash
# C++ programs (issue 21): tests/e2e/programs/cxx-features.cpp (a class
# template over std::vector buffers given to MPI, lambdas to std::transform
# and std::sort, whose recursive helpers cannot all be inlined, an
# exception thrown through instrumented frames and caught) built with
# `commhint cc` through mpicxx, mpic++ and clang++-16 itself, at -O0 and
# -O2: each traced run prints what the plain build prints, and neither the
# hints (every one, with every related line) nor the events name a file of
# the C++ library or of a system header: their statements are the lines of
# the program that called them.
source "$(dirname "$0")/lib.sh"

src=tests/e2e/programs/cxx-features.cpp
if ! out=$(mpicxx -std=c++17 -O2 -o "$WORK/plain" "$src" 2>&1); then
    not_ok "plain build" "$out"
    exit 0
fi
want=$(mpiexec -n 2 "$WORK/plain" 2>&1)
expect_match "the plain build catches its exceptions" "$want" 'caught=3$'
read -r -a mpich <<<"$(pkg-config --cflags --libs mpich)"

for form in mpicxx mpic++ clang++; do
    for O in O0 O2; do
        bin=$WORK/$form-$O
        case $form in
            clang++) cmd=("$CH" cc "clang++-${CLANG##*-}" -std=c++17 -g "-$O" -o "$bin" "$src" "${mpich[@]}") ;;
            *) cmd=("$CH" cc "$form" -std=c++17 -g "-$O" -o "$bin" "$src") ;;
        esac
        if ! out=$(CLANG=$CLANG "${cmd[@]}" 2>&1); then
            not_ok "$form $O: commhint cc builds it" "$out"
            continue
        fi
        ok "$form $O: commhint cc builds it"
        nm "$bin" | grep -q ' U __commhint_ev' && ok "$form $O: the binary is instrumented" ||
            not_ok "$form $O: the binary is instrumented" "$(nm "$bin" | grep commhint | head -5)"
        # the runtime's wrappers win the link: MPI calls are recorded
        dir=$WORK/$form-$O.trace
        trace_run "$dir" 2 "$bin"
        expect_eq "$form $O: traced run exits 0" "$?" 0
        expect_eq "$form $O: output identical to the plain build" "$(sed '$d' "$dir.out")" "$want"
        info=$("$CH" info "$dir" --format=json)
        expect_match "$form $O: MPI calls recorded" "$info" '"MPI_Allreduce":40'
        expect_match "$form $O: MPI_Sendrecv recorded" "$info" '"MPI_Sendrecv":40'
        [ "$form" = mpicxx ] || continue
        files=$("$CH" dump "$dir" --stable | cut -d: -f1 | sort -u)
        expect_eq "$form $O: every event is at a line of the program" "$files" "$src"
        all=$("$CH" hints "$dir" --all --verbose 2>/dev/null)
        expect_match "$form $O: the MPI_Allreduce overlap hint" "$all" \
            "^$src:66:[0-9]+: note: \[overlap\] MPI_Allreduce can overlap with the computation at line"
        other=$(grep ': note: ' <<<"$all" | grep -Ev "^${src//./\\.}:" | head -3)
        expect_eq "$form $O: every hint and related line is the program's" "$other" ""
        json=$("$CH" hints "$dir" --all --format=json 2>/dev/null)
        expect_no_match "$form $O: no file of the C++ library in the JSON hints" "$json" '/usr/|c\+\+/[0-9]+/bits'
    done
done

# the pass clones what it cannot inline (std::sort's recursive helpers) for
# the calling line: the clones are internal and named after it (checked
# at the end)

# cxx-namespace.cpp: a function template of a namespace makes the MPI call
# and is called from two lines of main.  Its frames are named from the
# debug information inside the namespace's (max_then_sum<double>), never
# by the mangled symbol, and the edit for NS-SECOND, all inside the
# helper, starts where the MPI call is and waits before the NS-USE loop,
# with no request handed between functions.
ns=tests/e2e/programs/cxx-namespace.cpp
mpicxx -std=c++17 -O2 -o "$WORK/ns-plain" "$ns"
nsplain=$(mpiexec -n 2 "$WORK/ns-plain" 2>&1 | grep '^cxx-namespace:')
nsl() { line_of "$ns" "/* $1 */"; }
for O in O0 O2; do
    if ! out=$("$CH" cc mpicxx -std=c++17 -g "-$O" -o "$WORK/ns-$O" "$ns" 2>&1); then
        not_ok "namespace $O: commhint cc builds it" "$out"
        continue
    fi
    trace_run "$WORK/ns-$O.trace" 2 "$WORK/ns-$O"
    expect_eq "namespace $O: output identical to the plain build" \
        "$(grep '^cxx-namespace:' "$WORK/ns-$O.trace.out")" "$nsplain"
    json=$("$CH" hints "$WORK/ns-$O.trace" --all --format=json 2>/dev/null)
    got=$(python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
hs = [h for h in d["hints"] if h["kind"] == "overlap" and h["line"] == int(sys.argv[1])]
if len(hs) != 1:
    print("%d overlap hints at line %s" % (len(hs), sys.argv[1])); sys.exit()
h = hs[0]
names = [f["function"] for f in h["stack"]]
print("yes" if names[-1] == "max_then_sum<double>" and not any(n.startswith("_Z") for n in names) else names)' \
        "$(nsl NS-SECOND)" <<<"$json" 2>&1)
    expect_eq "namespace $O: the path names max_then_sum<double>, not its symbol" "$got" yes
    expect_no_match "namespace $O: no mangled name in the hints" "$json" '"_Z|[ (]_Z[A-Za-z0-9]'
    txt=$("$CH" hints "$WORK/ns-$O.trace" --all 2>/dev/null)
    expect_match "namespace $O: the edit inside the helper starts where the call is and waits before the loop" \
        "$txt" "^$ns:$(nsl NS-SECOND):[0-9]+: note:   to apply: in a copy of max_then_sum<double> for this call \(its other calls keep it as it is\), start the MPI_Allreduce as MPI_Iallreduce where it is \(line $(nsl NS-CALL)\), and MPI_Wait for it right before the loop at line $(nsl NS-USE) \(in max_then_sum<double>\)$"
done

expect_match "the std::sort helpers are cloned for line 69" "$(nm "$WORK/mpicxx-O2")" \
    ' t .*introsort_loop.*\.commhint\.line69$'
