# mpiwasm - one Makefile; each area adds its own rules in a small
# fragment (src/*/rules.mk, tests/*/rules.mk, bench/rules.mk,
# toolchain/rules.mk) so that the areas can be read one at a time.
#
#   make            build build/mpiwasm and the toolchain
#   make demo       install packages, build, compile examples, run one
#   make check      every test suite (what .ci/run calls)
#   make asan       the same build with AddressSanitizer+UBSan in build-asan/
#   make MPI=mpich  build the MPI bridge against MPICH instead of Open MPI

.DEFAULT_GOAL := all

MPI      ?= openmpi
ifeq ($(MPI),mpich)
B        ?= build-mpich
else
B        ?= build
endif
CC       ?= cc
ifeq ($(origin CC),default)
CC       := cc
endif
OPT      ?= -O2 -g
WARN     := -Wall -Wextra -Wshadow -Wno-unused-parameter
CFLAGS   += -std=gnu11 $(OPT) $(WARN) -fvisibility=hidden -D_GNU_SOURCE -Isrc
LDLIBS   += -ldl -lpthread -lm

ifeq ($(MPI),mpich)
MPI_PC   := mpich
else
MPI_PC   := ompi-c
endif
MPI_CFLAGS = $(shell pkg-config --cflags $(MPI_PC) 2>/dev/null)
MPI_LIBS   = $(shell pkg-config --libs $(MPI_PC) 2>/dev/null)

# The engine: everything but the MPI bridge and the command line.
CORE_DIRS := src/wasm src/xlate src/rt src/cache src/load src/wasi src/coll
CORE_SRC  := $(foreach d,$(CORE_DIRS),$(wildcard $(d)/*.c))
CORE_OBJ  := $(CORE_SRC:%.c=$(B)/%.o)
MPI_SRC   := $(wildcard src/mpi/*.c)
MPI_OBJ   := $(MPI_SRC:%.c=$(B)/$(MPI)/%.o)
CLI_SRC   := $(wildcard src/cli/*.c)
CLI_OBJ   := $(CLI_SRC:%.c=$(B)/%.o)

# The project's shared data (the WebAssembly test suite, the MPI Standard's
# API list) lives beside the checkout.
SHARED   ?= $(abspath $(CURDIR)/../shared)

# The generated code depends on the translator's and the runtime contract's
# source; their hash is part of every cache key, so an engine rebuilt with a
# changed translator never loads objects compiled by the old one (a
# forgotten XLATE_VERSION bump cannot serve stale code).
XLATE_HASH := $(shell cat $(sort $(wildcard src/xlate/*.c src/xlate/*.h)) src/rt/rt.h | sha256sum | cut -c1-16)
XLATE_HASH_H := $(B)/gen/xlate_source.h
HASHMARK := \#
$(shell mkdir -p $(B)/gen && l='$(HASHMARK)define XLATE_SOURCE_HASH "$(XLATE_HASH)"' && \
  [ "$$(cat $(XLATE_HASH_H) 2>/dev/null)" = "$$l" ] || echo "$$l" > $(XLATE_HASH_H))
$(B)/src/cache/cache.o: $(XLATE_HASH_H)
$(B)/src/cache/cache.o: CFLAGS += -I$(B)/gen

CHECKS :=

all: $(B)/mpiwasm

$(B)/libmpiwasm.a: $(CORE_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(B)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(B)/$(MPI)/src/mpi/%.o: src/mpi/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(MPI_CFLAGS) -MMD -MP -c $< -o $@

# -rdynamic: generated code resolves the runtime's rt_* ABI from the binary;
# --whole-archive: including the parts nothing in the binary itself calls.
$(B)/mpiwasm: $(CLI_OBJ) $(MPI_OBJ) $(B)/libmpiwasm.a
	$(CC) $(LDFLAGS) -rdynamic -o $@ $(CLI_OBJ) $(MPI_OBJ) \
	  -Wl,--whole-archive $(B)/libmpiwasm.a -Wl,--no-whole-archive $(MPI_LIBS) $(LDLIBS)

-include $(wildcard src/*/rules.mk tests/*/rules.mk bench/rules.mk toolchain/rules.mk examples/rules.mk)

deps:
	sh scripts/install-deps.sh

demo: deps all
	$(MAKE) --no-print-directory demo-run

# check installs nothing: a machine without the packages gets make's own
# error for the first missing tool; `make deps` (as root) installs them.
# Fast suites first, so that a broken build shows in seconds.
CHECK_FIRST := check-mpi-h check-gen check-unit check-xlate check-fuzz check-coll \
  check-e2e check-wasi check-examples check-mpib
# Suites that run beside the MPI suites, in a second lane, from
# CHECK_FORK_AT on: they start no MPI job whose timing a test judges
# closely, and build nothing the first lane builds (the toolchain is part
# of `all`, built before either lane starts).  The MPI suites leave much of
# the second core idle (ranks waiting on each other, launcher start-up), so
# the whole check takes about 2 minutes less.  The examples, OpenMP and
# threads suites start MPI jobs, but only compare their output (with
# limits of minutes, not seconds); in the second lane they take about 90 s
# off the first, which is the longer.  check-coll (about 50 s idle: tune
# measures seven collectives) judges no timing: that Open MPI follows a
# rules file is counted in messages by Open MPI's pml monitoring (a timed
# check with a 100x margin failed once in CI under load), and it asserts
# none of tune's own decisions, only that each rule it kept was
# measured faster in its own run; it runs last in the second lane.
# check-fuzz-bridge (about 40 s) runs the bridge in its own ASan binary
# with singleton MPI, no job of the first lane's, and calls a hang only
# past 20 s in one call.
# check-mpib-jobs (whole jobs through both engines, limits of minutes)
# runs there too; it and the first lane's check-cluster and
# check-mpi-mpich each build build-mpich first, one at a time
# (MPICH_BUILD takes a lock, the later ones find it built).
# check-miniapp (about 15 s) runs small jobs on 1, 2 and 4 ranks and
# compares their checksums, no timing judged.  Lanes 684 and 683 s
# on a clean clone on 2 idle cores (2026-12-02), before the first lane
# took the second lane's last suites once its own were done
# (run-checks.sh) and check-mpi-ob1 ran only its comparison; 597 and
# about 595 s after (990 CPU s in all, was 1107).
CHECK_BESIDE := check-unit check-xlate check-fuzz check-fuzz-bridge check-wasi \
  check-examples check-spec check-eh check-toolchain check-asan \
  check-bench-kernels check-miniapp check-omp check-threads check-coll check-mpib-jobs
CHECK_FORK_AT := check-e2e
# The MPICH build of the engine (build-mpich/), for the suites that need
# it: under a lock, since suites in both lanes may ask for it at once.
MPICH_BUILD = mkdir -p build-mpich && flock build-mpich/.build-lock \
  $(MAKE) --no-print-directory MPI=mpich B=build-mpich all
CHECK_ORDER = $(filter-out $(CHECK_BESIDE),$(filter $(CHECKS),$(CHECK_FIRST)) \
  $(filter-out $(CHECK_FIRST),$(CHECKS)))

# Each suite's own builds (test programs, benchmark binaries, the ASan
# engine) use both cores.
CHECK_JOBS ?= 2
check: all
	@MAKE="$(MAKE) -j$(CHECK_JOBS)" sh scripts/run-checks.sh \
	  --beside "$(filter $(CHECKS),$(CHECK_BESIDE))" --fork-at $(CHECK_FORK_AT) $(CHECK_ORDER)

asan:
	$(MAKE) B=build-asan OPT="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer" \
	  LDFLAGS="-fsanitize=address,undefined" all

clean:
	rm -rf build build-*

.PHONY: all deps demo demo-run check asan clean $(CHECKS)
-include $(CORE_OBJ:.o=.d) $(MPI_OBJ:.o=.d) $(CLI_OBJ:.o=.d)
