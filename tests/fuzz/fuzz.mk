# tests/fuzz/fuzz.mk - fuzzing the trace reader and the hints pipeline with
# libFuzzer; included from the top Makefile.  See docs/reliability.md,
# "Fuzzing".
#
#   make fuzz [FUZZ_TIME=300] [FUZZ="reader hints unpack"] [FUZZ_ARGS=...]
#       builds the harnesses into $(B)/fuzz/ and runs each for its share of
#       FUZZ_TIME seconds on a working corpus in $(B)/fuzz/corpus/<harness>/
#       (the committed seeds and regression inputs are copied into it);
#       crashes, hangs and memory blow-ups are saved in $(B)/fuzz/crashes/.
#       FUZZ_ARGS adds libFuzzer options (e.g. -fork=1 -ignore_crashes=1).
#   make fuzz-build     the harnesses and fuzz-pack only; `make tests` builds
#                       them for tests/e2e/fuzz-corpus.sh, which runs each
#                       once over the committed corpus and regressions.
#   make fuzz-seeds     regenerates tests/fuzz/corpus/ (tests/fuzz/make-seeds.sh).
#
# The analysis sources are compiled a second time, with the fuzzer's
# coverage instrumentation and ASan + UBSan, into $(B)/fuzz/obj/; the
# normal objects and SAN= are not affected.

FUZZ_TIME ?= 300
FUZZ ?= reader hints unpack
FUZZ_ARGS ?=
FUZZ_HARNESSES := reader hints unpack
FUZZ_DIR := $(B)/fuzz
FUZZ_OBJ := $(FUZZ_DIR)/obj
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) -O1 -g -MMD -MP $(INC_SEARCH) -Isearch/parallel \
	-Itests/fuzz $(FUZZ_SAN) -fsanitize=fuzzer-no-link
FUZZ_ANA_OBJ := $(ANA_SRC:%.c=$(FUZZ_OBJ)/%.o)
FUZZ_BINS := $(FUZZ_HARNESSES:%=$(FUZZ_DIR)/fuzz-%)
FUZZ_PACK := $(FUZZ_DIR)/fuzz-pack

$(FUZZ_OBJ)/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(call msg,CC-FUZZ,$<)$(CC) $(FUZZ_CFLAGS) -c $< -o $@

# (a static pattern rule: its objects are kept, not intermediate)
$(FUZZ_BINS): $(FUZZ_DIR)/fuzz-%: $(FUZZ_OBJ)/tests/fuzz/fuzz-%.o $(FUZZ_OBJ)/tests/fuzz/fuzz-common.o $(FUZZ_ANA_OBJ)
	@mkdir -p $(dir $@)
	$(call msg,LD,$@)$(CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $(filter %.o,$^) $(ANA_LIBS)

# The seed and crash tool: a normal build (no fuzzer; the sanitizers only
# with SAN=1, since it links $(ANA_A)).
$(FUZZ_PACK): tests/fuzz/fuzz-pack.c tests/fuzz/fuzz-common.c tests/fuzz/fuzz-common.h $(ANA_A)
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)$(CC) -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) $(SANFLAGS) $(INC_SEARCH) -Isearch/parallel \
	  -Itests/fuzz -o $@ tests/fuzz/fuzz-pack.c tests/fuzz/fuzz-common.c $(ANA_A) $(ANA_LIBS)

fuzz-build: $(FUZZ_BINS) $(FUZZ_PACK)

fuzz: fuzz-build
	$(Q)B=$(B) FUZZ_TIME=$(FUZZ_TIME) FUZZ="$(FUZZ)" FUZZ_ARGS="$(FUZZ_ARGS)" bash tests/fuzz/run-fuzz.sh

fuzz-seeds: all $(FUZZ_PACK)
	$(Q)B=$(B) bash tests/fuzz/make-seeds.sh

tests: fuzz-build

-include $(shell find $(FUZZ_OBJ) -name '*.d' 2>/dev/null)
