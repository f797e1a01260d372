# tests/fuzz-bridge: the MPI bridge's host functions driven with hostile
# arguments, natively (guarded linear memory, stub module functions,
# singleton MPI in a child per batch), under ASan+UBSan.
#   make fuzz-bridge         fuzz for FUZZ_TIME seconds from FUZZ_SEED;
#                            findings go to $(B)/fuzz-bridge/findings/
#   make check-fuzz-bridge   replay the regression corpus, then 10 batches from
#                            each of two fixed seeds (the same calls on every
#                            machine, so the same procedures covered; seeds
#                            whose batches meet no known host hang); a call
#                            is a hang after 20 s (a loaded CI machine can take
#                            seconds to start a singleton MPI)
# Not checked: alignment (wasm lets a module pass any address for an int
# or a status; the bridge and the host library access them in place, which
# x86-64 allows).  malloc/calloc of an impossible size returns NULL, as
# glibc's does (the host library checks for it).  kinds.h is generated (tests/fuzz-bridge/gen_kinds.py, run by hand).
FUZZ_TIME  ?= 60
FUZZ_SEED  ?= 1
FZB_DIR    := $(B)/$(MPI)/fuzz-bridge
FZB_SRC    := tests/fuzz-bridge/fuzz_bridge.c tests/fuzz-bridge/fz_rt.c
FZB_CORPUS := $(wildcard tests/fuzz-bridge/corpus/*.txt)
# Findings of the host library not fixed in the bridge: one list per library.
FZB_KNOWN  := tests/fuzz-bridge/known$(if $(filter mpich,$(MPI)),-mpich).txt
FZB_ENV    := ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:allow_user_segv_handler=1:allocator_may_return_null=1 \
              UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

$(FZB_DIR)/fuzz_bridge: $(FZB_SRC) tests/fuzz-bridge/fz.h tests/fuzz-bridge/kinds.h $(MPI_SRC) src/mpi/*.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O1 -g $(WARN) -D_GNU_SOURCE -Isrc -Isrc/mpi -Itests/fuzz-bridge $(MPI_CFLAGS) \
	  -fsanitize=address,undefined -fno-sanitize=alignment -fno-sanitize-recover=all -fno-omit-frame-pointer \
	  -Wl,--wrap=MPI_Abort -o $@ $(FZB_SRC) $(MPI_SRC) $(MPI_LIBS)

fuzz-bridge: $(FZB_DIR)/fuzz_bridge
	@env $(FZB_ENV) nice timeout $$(($(FUZZ_TIME) + 120)) $< -seed $(FUZZ_SEED) -time $(FUZZ_TIME) \
	  -known $(FZB_KNOWN) \
	  -out $(FZB_DIR)/findings -log $(FZB_DIR)/child.log

check-fuzz-bridge: $(FZB_DIR)/fuzz_bridge
	@out=$$( { env $(FZB_ENV) timeout 600 $< -hang 20 -log $(FZB_DIR)/child.log -replay $(FZB_CORPUS); \
	  for s in 2 3; do env $(FZB_ENV) timeout 300 $< -seed $$s -batches 10 -time 240 -hang 20 -known $(FZB_KNOWN) \
	    -log $(FZB_DIR)/child.log -out $(FZB_DIR)/findings; done; } 2>&1 ); \
	echo "$$out" | grep -v '^fuzz-bridge: [0-9]* passed'; \
	p=$$(echo "$$out" | sed -n 's/^fuzz-bridge: \([0-9]*\) passed.*/\1/p' | sort -n | head -1); \
	f=$$(echo "$$out" | sed -n 's/^fuzz-bridge: .*[0-9]* passed, \([0-9]*\) failed/\1/p' | paste -sd+ | bc); \
	test -n "$$p" -a -n "$$f" || { p=0; f=1; }; echo "fuzz-bridge: $$p passed, $$f failed"; test "$$f" = 0

CHECKS += check-fuzz-bridge
.PHONY: fuzz-bridge check-fuzz-bridge
