# commhint - top-level GNU Makefile.
#
#   make            build everything into build/ (O=dir to build elsewhere)
#   make deps       install the Debian packages the project needs (apt-get)
#   make demo       trace the Jacobi example on 4 ranks, print its hints, compare with them applied
#   make check      build, then run the whole test suite
#   make examples   build the examples (C and C++), instrumented, at -O0 and -O2
#   make bench      measure compression, tracing overhead, analysis speed serial and parallel, scaling
#                   (also on synthetic traces of 64-4096 ranks, bench/synth-trace),
#                   the error of the static costs (bench/results/)
#   make fuzz       fuzz the trace reader and the hints pipeline (FUZZ_TIME=300 s; docs/reliability.md)
#   make install PREFIX=/usr/local DESTDIR=
#   V=1 shows full commands, SAN=1 builds the C tools and tests with ASan+UBSan.

LLVM_VERSION ?= 16
LLVM_CONFIG  ?= llvm-config-$(LLVM_VERSION)
CLANG        ?= clang-$(LLVM_VERSION)
CLANGXX      ?= clang++-$(LLVM_VERSION)
OPT          ?= opt-$(LLVM_VERSION)
FILECHECK    ?= FileCheck-$(LLVM_VERSION)
NPROCS       ?= 4
PREFIX       ?= /usr/local
DESTDIR      ?=
O            ?= build

CC  := $(CLANG)
CXX := $(CLANGXX)

Q := $(if $(V),,@)
msg = $(if $(V),,@printf '  %-8s %s\n' $(1) $(2);)

B := $(abspath $(O))
OBJ := $(B)/obj

# Debian packages: see `make deps`.
DEB_PACKAGES := clang-$(LLVM_VERSION) llvm-$(LLVM_VERSION)-dev llvm-$(LLVM_VERSION)-tools \
	libclang-rt-$(LLVM_VERSION)-dev mpich libmpich-dev libdwarf-dev libelf-dev \
	libgtk-3-dev libgtksourceview-4-dev libcmocka-dev libzstd-dev liblz4-dev xvfb xauth \
	pkg-config make gawk bc python3 time gnuplot-nox libomp-$(LLVM_VERSION)-dev valgrind strace cmake \
	libotf2-trace-dev otf2-tools python3-otf2

MPI_CFLAGS := $(shell pkg-config --cflags mpich 2>/dev/null)
MPI_LIBS   := $(shell pkg-config --libs mpich 2>/dev/null)

WARN   := -Wall -Wextra -Wstrict-prototypes -Wno-unused-parameter
comma := ,
SANFLAGS := $(if $(SAN),-fsanitize=address$(comma)undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined,)
# DWARF 4: valgrind 3.19 (Debian 12) cannot read clang 16's default DWARF 5
# (tests/e2e/valgrind.sh runs the analysis under memcheck).
CFLAGS ?= -O2 -g -gdwarf-4
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) -MMD -MP

# Each component compiles with the include paths of what it may use, so
# layering is enforced by the compiler (docs/architecture.md):
#   tracelib/      the trace format and the reader          -Itracelib
#   depgraph/      dependences, on the reader               + -Idepgraph
#   search/        the analysis, on depgraph                + -Isearch
#   cli/, gui/     front ends: the analysis' public header  -Itracelib -Isearch
INC_TRACELIB := -Itracelib
INC_DEPGRAPH := $(INC_TRACELIB) -Idepgraph
INC_SEARCH   := $(INC_DEPGRAPH) -Isearch
INC_FRONT    := $(INC_TRACELIB) -Isearch

# Objects are rebuilt when the flags that shape them change (SAN=1 after a
# plain build in the same O=, another LLVM_VERSION or CFLAGS): the stamp is
# rewritten only when its text changes, and every object depends on it.
FLAGS_STAMP := $(OBJ)/flags.stamp
# The command line's objects also depend on PREFIX (its default libdir).
FLAGS_NOW := $(subst ',,$(CC) $(CXX) $(CFLAGS) $(SANFLAGS) $(LLVM_VERSION) $(LLVM_CONFIG))
FLAGS_CLI_STAMP := $(OBJ)/flags-cli.stamp
stamp = $(shell mkdir -p $(OBJ) && { [ -f $(1) ] && [ "$$(cat $(1))" = '$(2)' ] || printf '%s\n' '$(2)' >$(1); })
$(call stamp,$(FLAGS_STAMP),$(FLAGS_NOW))
$(call stamp,$(FLAGS_CLI_STAMP),$(subst ',,$(PREFIX) $(CLANG)))

# ---- the Clang pass ------------------------------------------------------
PASS_SRC := $(wildcard clang_pass/*.cpp)
PASS_OBJ := $(PASS_SRC:%.cpp=$(OBJ)/%.o)
PASS_SO  := $(B)/lib/commhint-pass.so
PASS_CXXFLAGS = $(shell $(LLVM_CONFIG) --cxxflags) -fPIC -O2 -g -Wall -Wextra \
	-Wno-unused-parameter -MMD -MP $(INC_TRACELIB)

# ---- the trace runtime (linked into traced programs) -----------------------
RT_SRC := $(wildcard tracelib/rt/*.c)
RT_OBJ := $(RT_SRC:%.c=$(OBJ)/%.o)
RT_SO  := $(B)/lib/libcommhint.so
RT_A   := $(B)/lib/libcommhint.a
RT_CFLAGS := -fPIC -fvisibility=hidden -ftls-model=initial-exec -fno-omit-frame-pointer $(MPI_CFLAGS)
RT_LIBS := -lzstd $(MPI_LIBS) -lpthread

# ---- the analysis library: the reader, depgraph/ and search/ ----------------
# search/parallel/driver.c is the MPI driver of `hints --parallel`: a
# library of its own that only the command line links (with MPICH), so the
# viewer, the benchmarks and the fuzzers do not link MPI.
PAR_SRC := search/parallel/driver.c
PAR_OBJ := $(PAR_SRC:%.c=$(OBJ)/%.o)
PAR_A   := $(B)/lib/libcommhint-parallel.a
ANA_SRC := $(filter-out $(PAR_SRC),$(wildcard tracelib/reader/*.c depgraph/*.c search/*.c search/*/*.c search/*/*/*.c))
ANA_OBJ := $(ANA_SRC:%.c=$(OBJ)/%.o)
ANA_A   := $(B)/lib/libcommhint-analysis.a
ANA_LIBS := -lzstd -ldwarf -lelf -lz -lm -lpthread
$(OBJ)/tracelib/reader/%.o: INC := $(INC_TRACELIB)
$(OBJ)/depgraph/%.o: INC := $(INC_DEPGRAPH)
$(OBJ)/search/%.o: INC := $(INC_SEARCH)
$(PAR_OBJ): ALL_CFLAGS += $(MPI_CFLAGS)

# ---- the command line ------------------------------------------------------
# a command per cli/cmd-*.c, an export format per cli/export/*.c
CLI_SRC := $(wildcard cli/*.c cli/export/*.c)
CLI_OBJ := $(CLI_SRC:%.c=$(OBJ)/%.o)
CLI_BIN := $(B)/bin/commhint
# build-system glue (cli/build-systems/, rules below)
CC_WRAPPER_NAMES := commhint-mpicc commhint-mpicxx commhint-clang commhint-clang++
CC_WRAPPERS := $(CC_WRAPPER_NAMES:%=$(B)/bin/%)
CMAKE_TOOLCHAIN := $(B)/share/commhint/commhint.cmake
# `commhint export --format=otf2` writes with libotf2 (Debian's
# libotf2-trace-dev ships otf2.pc)
OTF2_CFLAGS := $(shell pkg-config --cflags otf2 2>/dev/null)
OTF2_LIBS   := $(shell pkg-config --libs otf2 2>/dev/null)
CLI_CFLAGS := $(OTF2_CFLAGS) -DCOMMHINT_LLVM_MAJOR=$(LLVM_VERSION) -DCOMMHINT_DEFAULT_CLANG='"$(CLANG)"' \
	-DCOMMHINT_DEFAULT_LIBDIR='"$(PREFIX)/lib"'

# ---- the viewer: GTK 3 + GtkSourceView 4 -------------------------------------
GUI_PKGS   := gtk+-3.0 gtksourceview-4
GUI_CFLAGS := $(shell pkg-config --cflags $(GUI_PKGS) 2>/dev/null)
GUI_LIBS   := $(shell pkg-config --libs $(GUI_PKGS) 2>/dev/null)
GLIB_COMPILE_RESOURCES ?= glib-compile-resources
# The view models (no GTK): the document and the panes' logic, unit-tested
# without a display; the GTK front end and the unit tests link them.
GUIMODEL_SRC := gui/document.c gui/source-path.c $(wildcard gui/*-model.c)
GUIMODEL_OBJ := $(GUIMODEL_SRC:%.c=$(OBJ)/%.o)
GUIMODEL_A   := $(B)/lib/libcommhint-guimodel.a
GUI_SRC := $(filter-out $(GUIMODEL_SRC),$(wildcard gui/*.c))
GUI_RES_XML := gui/commhint.gresource.xml
GUI_RES_C   := $(B)/gen/gui/resources.c
GUI_OBJ := $(GUI_SRC:%.c=$(OBJ)/%.o) $(OBJ)/gui/resources.o
GUI_BIN := $(B)/bin/commhint-gui

# ---- unit tests -------------------------------------------------------------
UNIT_SRC := $(wildcard tests/unit/test-*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/unit/%)
UNIT_HELPERS := $(wildcard tests/unit/helpers/*.c)

PC_FILE := $(B)/lib/pkgconfig/commhint.pc

# synthetic traces of thousands of ranks without MPI (bench/synth-trace.c):
# in `all`, since tests/e2e/synth-trace.sh checks it against real runs
SYNTH_BIN := $(B)/bench/synth-trace

.PHONY: all deps demo check examples install clean llvm-check tests bench fuzz fuzz-build fuzz-seeds
all: llvm-check $(PASS_SO) $(RT_SO) $(RT_A) $(ANA_A) $(CLI_BIN) $(GUIMODEL_A) $(GUI_BIN) $(PC_FILE) $(CC_WRAPPERS) $(CMAKE_TOOLCHAIN) $(SYNTH_BIN)

# The plugin is loaded into the clang that compiles user code; both must be
# the same LLVM major version.
llvm-check:
	@cv=$$($(CLANG) --version 2>/dev/null | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -1); \
	lv=$$($(LLVM_CONFIG) --version 2>/dev/null | cut -d. -f1); \
	if [ -z "$$cv" ] || [ -z "$$lv" ]; then \
	  echo "error: $(CLANG) or $(LLVM_CONFIG) not found: run 'make deps' or set CLANG and LLVM_CONFIG" >&2; exit 1; fi; \
	if [ "$$cv" != "$$lv" ]; then \
	  echo "error: CLANG is clang $$cv but LLVM_CONFIG is LLVM $$lv: the pass plugin must be built and loaded by the same LLVM major version" >&2; exit 1; fi

deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing$$missing"; \
	  SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null || \
	  { echo "make deps: apt-get install failed for:$$missing" >&2; exit 1; }; \
	fi

$(OBJ)/clang_pass/%.o: clang_pass/%.cpp $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(call msg,CXX,$<)$(CXX) $(PASS_CXXFLAGS) -c $< -o $@

$(PASS_SO): $(PASS_OBJ)
	@mkdir -p $(dir $@)
	$(call msg,LD,$@)$(CXX) -shared -o $@ $^ $(shell $(LLVM_CONFIG) --ldflags) -Wl,-z,nodelete

$(OBJ)/tracelib/rt/%.o: tracelib/rt/%.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)$(CC) $(ALL_CFLAGS) $(INC_TRACELIB) $(RT_CFLAGS) -c $< -o $@

$(RT_SO): $(RT_OBJ)
	@mkdir -p $(dir $@)
	$(call msg,LD,$@)$(CC) -shared -Wl,-soname,libcommhint.so -o $@ $^ $(RT_LIBS)

# With SAN=1 the unit tests link a second, sanitized copy of the runtime:
# libcommhint itself stays uninstrumented, since it is loaded into programs
# built without the sanitizers.
RT_SAN_OBJ := $(RT_SRC:%.c=$(OBJ)/san-rt/%.o)
RT_SAN_A := $(B)/lib/libcommhint-san.a
UNIT_RT_A := $(if $(SAN),$(RT_SAN_A),$(RT_A))

$(OBJ)/san-rt/tracelib/rt/%.o: tracelib/rt/%.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(call msg,CC-SAN,$<)$(CC) $(ALL_CFLAGS) $(INC_TRACELIB) $(RT_CFLAGS) $(SANFLAGS) -c $< -o $@

$(RT_SAN_A): $(RT_SAN_OBJ)
	@mkdir -p $(dir $@)
	$(call msg,AR,$@)rm -f $@ && ar rcs $@ $^

$(RT_A): $(RT_OBJ)
	@mkdir -p $(dir $@)
	$(call msg,AR,$@)rm -f $@ && ar rcs $@ $^

$(OBJ)/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)$(CC) $(ALL_CFLAGS) $(INC) $(SANFLAGS) -c $< -o $@

$(OBJ)/cli/%.o: cli/%.c $(FLAGS_STAMP) $(FLAGS_CLI_STAMP)
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)$(CC) $(ALL_CFLAGS) $(INC_FRONT) -Isearch/parallel $(SANFLAGS) $(CLI_CFLAGS) -c $< -o $@

$(ANA_A): $(ANA_OBJ)
	@mkdir -p $(dir $@)
	$(call msg,AR,$@)rm -f $@ && ar rcs $@ $^

$(PAR_A): $(PAR_OBJ)
	@mkdir -p $(dir $@)
	$(call msg,AR,$@)rm -f $@ && ar rcs $@ $^

$(CLI_BIN): $(CLI_OBJ) $(PAR_A) $(ANA_A)
	@mkdir -p $(dir $@)
	$(call msg,LD,$@)$(CC) $(SANFLAGS) -o $@ $(CLI_OBJ) $(PAR_A) $(ANA_A) $(ANA_LIBS) $(MPI_LIBS) $(OTF2_LIBS)

# ---- the viewer ---------------------------------------------------------------
# The widget templates (gui/ui/*.ui) are compiled into the program.
$(GUI_RES_C): $(GUI_RES_XML) $(wildcard gui/ui/*)
	@mkdir -p $(dir $@)
	$(call msg,GEN,$@)$(GLIB_COMPILE_RESOURCES) --sourcedir=gui --generate-source --c-name commhint \
	  --target=$@ $<

$(OBJ)/gui/resources.o: $(GUI_RES_C) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)$(CC) $(ALL_CFLAGS) $(SANFLAGS) $(GUI_CFLAGS) -c $< -o $@

# The models are built without the GTK flags, so that they cannot use GTK.
$(OBJ)/gui/%.o: gui/%.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)$(CC) $(ALL_CFLAGS) $(INC_FRONT) $(SANFLAGS) -Igui $(if $(filter $@,$(GUIMODEL_OBJ)),,$(GUI_CFLAGS)) \
	  -c $< -o $@

$(GUIMODEL_A): $(GUIMODEL_OBJ)
	@mkdir -p $(dir $@)
	$(call msg,AR,$@)rm -f $@ && ar rcs $@ $^

$(GUI_BIN): $(GUI_OBJ) $(GUIMODEL_A) $(ANA_A)
	@mkdir -p $(dir $@)
	$(call msg,LD,$@)$(CC) $(SANFLAGS) -o $@ $(GUI_OBJ) $(GUIMODEL_A) $(ANA_A) $(GUI_LIBS) $(ANA_LIBS)

# Unit tests link the view models too (tests/unit/test-gui-models.c and the
# timeline's), which need no display, and the parallel driver
# (tests/unit/test-parallel.c).  They see every component's internals
# (white-box tests), and are compiled to objects with dependency files, so
# that editing a header they use rebuilds them (a static pattern rule: its
# objects are kept, not intermediate).
UNIT_CFLAGS = $(ALL_CFLAGS) $(SANFLAGS) $(MPI_CFLAGS) $(INC_SEARCH) -Isearch/parallel -Itests/unit -Igui
UNIT_HELPER_OBJ := $(UNIT_HELPERS:%.c=$(OBJ)/%.o)

$(OBJ)/tests/unit/%.o: tests/unit/%.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)$(CC) $(UNIT_CFLAGS) -c $< -o $@

$(UNIT_BIN): $(B)/tests/unit/%: $(OBJ)/tests/unit/%.o $(UNIT_HELPER_OBJ) $(GUIMODEL_A) $(PAR_A) $(ANA_A) $(UNIT_RT_A)
	@mkdir -p $(dir $@)
	$(call msg,LD,$@)$(CC) $(SANFLAGS) -o $@ $< $(UNIT_HELPER_OBJ) \
	  $(GUIMODEL_A) $(PAR_A) $(ANA_A) $(UNIT_RT_A) $(ANA_LIBS) $(RT_LIBS) -lcmocka

# Build-system glue (cli/build-systems/): `commhint cc <compiler>` as one
# command per compiler, and a CMake toolchain file that uses them.

$(CC_WRAPPERS): cli/build-systems/commhint-wrapper.sh
	@mkdir -p $(dir $@)
	$(Q)install -m 755 $< $@

$(CMAKE_TOOLCHAIN): cli/build-systems/commhint.cmake
	@mkdir -p $(dir $@)
	$(Q)install -m 644 $< $@

# pkg-config file for the build tree; `make install` writes one for PREFIX.
pc_lines = 'prefix=$(1)' 'libdir=$${prefix}/lib' 'plugin=$${libdir}/commhint-pass.so' '' \
	'Name: commhint' 'Description: commhint trace runtime and Clang pass for MPI programs' \
	'Version: 0.1.0' 'Cflags: -g -fpass-plugin=$${plugin}' \
	'Libs: -L$${libdir} -Wl,-rpath,$${libdir} -lcommhint' 'Libs.private: -lzstd -lpthread'

$(PC_FILE): Makefile
	@mkdir -p $(dir $@)
	$(Q)printf '%s\n' $(call pc_lines,$(B)) >$@

# ---- examples ---------------------------------------------------------------
EXAMPLES := $(basename $(notdir $(wildcard examples/*.c) $(wildcard examples/*.cpp)))
EX_BINS := $(foreach o,O0 O2,$(EXAMPLES:%=$(B)/examples/$(o)/%))

examples: all $(EX_BINS)

$(B)/examples/O0/%: examples/%.c $(PASS_SO) $(RT_SO) $(CLI_BIN)
	@mkdir -p $(dir $@)
	$(call msg,CC-O0,$<)CLANG=$(CLANG) $(CLI_BIN) cc mpicc -g -O0 -o $@ $< -lm

$(B)/examples/O2/%: examples/%.c $(PASS_SO) $(RT_SO) $(CLI_BIN)
	@mkdir -p $(dir $@)
	$(call msg,CC-O2,$<)CLANG=$(CLANG) $(CLI_BIN) cc mpicc -g -O2 -o $@ $< -lm

# C++ examples: through the MPI C++ wrapper, which commhint cc points at clang++
$(B)/examples/O0/%: examples/%.cpp $(PASS_SO) $(RT_SO) $(CLI_BIN)
	@mkdir -p $(dir $@)
	$(call msg,CXX-O0,$<)CLANG=$(CLANG) $(CLI_BIN) cc mpicxx -std=c++17 -g -O0 -o $@ $<

$(B)/examples/O2/%: examples/%.cpp $(PASS_SO) $(RT_SO) $(CLI_BIN)
	@mkdir -p $(dir $@)
	$(call msg,CXX-O2,$<)CLANG=$(CLANG) $(CLI_BIN) cc mpicxx -std=c++17 -g -O2 -o $@ $<

# ---- demo, tests ------------------------------------------------------------
DEMO_DIR := $(B)/demo-trace
DEMO_AFTER_DIR := $(B)/demo-trace-after

demo: deps
	$(Q)$(MAKE) --no-print-directory all examples
	@echo "== tracing examples/jacobi.c (-O2) on $(NPROCS) ranks"
	$(Q)$(CLI_BIN) run -n $(NPROCS) -o $(DEMO_DIR) -- $(B)/examples/O2/jacobi
	@echo "== commhint info $(DEMO_DIR)"
	$(Q)$(CLI_BIN) info $(DEMO_DIR)
	@echo "== the top hints (commhint hints $(DEMO_DIR) --top=3)"
	$(Q)$(CLI_BIN) hints $(DEMO_DIR) --top=3
	@echo "== the hints applied: examples/jacobi_after.c, the halo exchange made nonblocking; traced on $(NPROCS) ranks"
	$(Q)$(CLI_BIN) run -n $(NPROCS) -o $(DEMO_AFTER_DIR) -- $(B)/examples/O2/jacobi_after
	@echo "== did it work? (commhint compare $(DEMO_DIR) $(DEMO_AFTER_DIR))"
	$(Q)$(CLI_BIN) compare $(DEMO_DIR) $(DEMO_AFTER_DIR)

tests: all examples $(UNIT_BIN)

# `make check` runs the suite on this build, then again on a second build with
# ASan+UBSan in $(B)-san (its own tally line; tests/run.sh's last line counts each
# distinct check once, failed if it failed in either pass).
# CHECK_SAN=0 leaves the second pass out; `make check SAN=1` runs the suite
# once, on the sanitized build.
CHECK_SAN ?= 1
CHECK_SAN_B := $(if $(SAN),,$(if $(filter 1,$(CHECK_SAN)),$(B)-san))

check: deps
	$(Q)$(MAKE) --no-print-directory tests
	$(if $(CHECK_SAN_B),$(Q)$(MAKE) --no-print-directory O=$(CHECK_SAN_B) SAN=1 tests)
	$(Q)B=$(B) SAN=$(SAN) SAN_B=$(CHECK_SAN_B) CLANG=$(CLANG) OPT=$(OPT) FILECHECK=$(FILECHECK) \
	  bash tests/run.sh

# ---- benchmarks (numbers for docs/, not part of the timed tests) ------------
bench: all examples $(B)/bench/compress-chunks $(B)/bench/cost-check $(B)/bench/hb-queries
	$(Q)B=$(B) bash bench/compression.sh
	$(Q)B=$(B) CLANG=$(CLANG) bash bench/overhead.sh
	$(Q)B=$(B) CLANG=$(CLANG) bash bench/fastpath.sh
	$(Q)B=$(B) CLANG=$(CLANG) bash bench/analysis.sh
	$(Q)B=$(B) CLANG=$(CLANG) bash bench/parallel.sh
	$(Q)B=$(B) CLANG=$(CLANG) bash bench/tracing.sh
	$(Q)B=$(B) CLANG=$(CLANG) bash bench/scaling.sh
	$(Q)B=$(B) bash bench/cost-check.sh
	$(Q)B=$(B) bash bench/callpath.sh
	$(Q)B=$(B) CLANG=$(CLANG) bash bench/irregular.sh
	$(Q)B=$(B) bash bench/synth-scaling.sh
	$(Q)B=$(B) bash bench/hb-queries.sh

$(B)/bench/compress-chunks: bench/compress-chunks.c $(ANA_A)
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)$(CC) $(ALL_CFLAGS) $(INC_TRACELIB) -o $@ $< $(ANA_A) $(ANA_LIBS) -llz4

# sanitized with SAN=1 like the other C tools; only the format header and zstd
SYNTH_SRC := bench/synth-trace.c bench/synth-write.c
$(SYNTH_BIN): $(SYNTH_SRC) bench/synth-trace.h tracelib/trace-format.h $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) $(filter-out -MMD -MP,$(ALL_CFLAGS)) $(SANFLAGS) $(INC_TRACELIB) -o $@ $(SYNTH_SRC) -lzstd

# the static cost weights against a validation run (bench/cost-check.sh)
$(B)/bench/cost-check: bench/cost-check.c $(ANA_A)
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)$(CC) $(ALL_CFLAGS) $(INC_DEPGRAPH) -o $@ $< $(ANA_A) $(ANA_LIBS)

# the happens-before replay at scale, on logs made in memory (bench/hb-queries.sh)
$(B)/bench/hb-queries: bench/hb-queries.c $(ANA_A)
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)$(CC) $(ALL_CFLAGS) $(INC_DEPGRAPH) -o $@ $< $(ANA_A) $(ANA_LIBS)

# ---- fuzzing (make fuzz, fuzz-build, fuzz-seeds) ----------------------------
include tests/fuzz/fuzz.mk

# ---- install ----------------------------------------------------------------
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/commhint
	install -m 755 $(CLI_BIN) $(DESTDIR)$(PREFIX)/bin/commhint
	install -m 755 $(GUI_BIN) $(DESTDIR)$(PREFIX)/bin/commhint-gui
	for w in $(CC_WRAPPER_NAMES); do install -m 755 cli/build-systems/commhint-wrapper.sh $(DESTDIR)$(PREFIX)/bin/$$w; done
	install -d $(DESTDIR)$(PREFIX)/share/commhint
	install -m 644 cli/build-systems/commhint.cmake $(DESTDIR)$(PREFIX)/share/commhint/
	install -m 755 $(PASS_SO) $(RT_SO) $(DESTDIR)$(PREFIX)/lib/
	install -m 644 $(RT_A) $(ANA_A) $(PAR_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 644 tracelib/trace-format.h tracelib/trace-reader.h $(DESTDIR)$(PREFIX)/include/commhint/
	printf '%s\n' $(call pc_lines,$(PREFIX)) >$(DESTDIR)$(PREFIX)/lib/pkgconfig/commhint.pc
	chmod 644 $(DESTDIR)$(PREFIX)/lib/pkgconfig/commhint.pc

clean:
	rm -rf $(B)

-include $(shell find $(OBJ) -name '*.d' 2>/dev/null)
