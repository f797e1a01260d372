# The official WebAssembly test suite through the production path.
#
#   make check-spec                  every set: core, simd and threads
#   make check-spec SPEC_SET=core    the core set (no SIMD, no threads)
#   make check-spec SPEC_SET=simd    simd_*.wast
#   make check-spec SPEC_SET=threads threads/*.wast (wast2json --enable-threads)
#   make check-spec SPEC_FILES="i32 call"   just these files
#
# Each .wast is converted once into $(B)/spec/<name>/ and run by
# spec_run, SPEC_JOBS files at a time; compiled modules stay in
# $(B)/spec-cache, so a rerun compiles nothing.

SPEC_DIR     ?= $(SHARED)/wasm-spec-tests
SPEC_SET     ?= all
SPEC_JOBS    ?= 2
SPEC_TIMEOUT ?= 1800
SPEC_ALL     := $(notdir $(basename $(wildcard $(SPEC_DIR)/*.wast)))
SPEC_core    := $(filter-out simd_%,$(SPEC_ALL))
SPEC_simd    := $(filter simd_%,$(SPEC_ALL))
SPEC_threads := $(addprefix threads/,$(notdir $(basename $(wildcard $(SPEC_DIR)/threads/*.wast))))
SPEC_all     := $(SPEC_core) $(SPEC_simd) $(SPEC_threads)
SPEC_FILES   ?= $(SPEC_$(SPEC_SET))
SPEC_STAMPS  := $(SPEC_FILES:%=$(B)/spec/%/converted)
SPEC_RUN     := $(B)/tests/spec/spec_run

# --whole-archive: generated code resolves rt_* from the executable, so
# every runtime object must be in it, referenced by the driver or not.
$(SPEC_RUN): tests/spec/spec_run.c $(B)/libmpiwasm.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -rdynamic -o $@ $< -Wl,--whole-archive $(B)/libmpiwasm.a \
	  -Wl,--no-whole-archive $(LDLIBS)

# Converted in a scratch directory and renamed into place, so that a
# concurrent run never sees half a conversion.
$(B)/spec/%/converted: $(SPEC_DIR)/%.wast
	@mkdir -p $(dir $(@D))
	@t=$$(mktemp -d $(@D).tmp.XXXXXX) && \
	echo "wast2json $(if $(filter threads/%,$*),--enable-threads) $< -o $(@D)/$(notdir $*).json" && \
	wast2json $(if $(filter threads/%,$*),--enable-threads) $< -o $$t/$(notdir $*).json && \
	touch $$t/converted && chmod 755 $$t && rm -rf $(@D) && mv $$t $(@D)

spec-convert: $(SPEC_STAMPS)

# The harness's own test, first: right answers pass (self-pass.wast) and
# wrong ones fail (self-fail.wast: all 18 assertions must fail).
SPEC_SELF := self-pass self-fail

$(B)/spec-self/%/converted: tests/spec/self/%.wast
	@rm -rf $(@D) && mkdir -p $(@D)
	wast2json $< -o $(@D)/$*.json
	@touch $@

check-spec-self: $(SPEC_RUN) $(SPEC_SELF:%=$(B)/spec-self/%/converted)
	@mkdir -p $(B)/spec-cache
	@p=$$($(SPEC_RUN) -c $(B)/spec-cache $(B)/spec-self/self-pass/self-pass.json | tail -n 1); \
	f=$$($(SPEC_RUN) -c $(B)/spec-cache $(B)/spec-self/self-fail/self-fail.json | tail -n 1); \
	echo "$$p"; echo "$$f"; ok=0; bad=0; \
	case "$$p" in "self-pass: 27 passed, 0 failed, 1 skipped "*) ok=$$((ok+1));; *) bad=$$((bad+1));; esac; \
	case "$$f" in "self-fail: 1 passed, 18 failed, 0 skipped "*) ok=$$((ok+1));; *) bad=$$((bad+1));; esac; \
	echo "spec-self: $$ok passed, $$bad failed"; [ $$bad = 0 ]

# A full run must execute exactly this many commands (core 27,355, SIMD
# 25,466, threads 594 at the pinned testsuite commit, see README); a
# partial one (SPEC_SET, SPEC_FILES) at least one.
SPEC_EXPECT_all ?= 53415
SPEC_EXPECT_core ?= 27355
SPEC_EXPECT_simd ?= 25466
SPEC_EXPECT_threads ?= 594
SPEC_EXPECT := $(if $(filter $(origin SPEC_FILES),file),$(SPEC_EXPECT_$(SPEC_SET)),)

check-spec-found:
	@if [ -z "$(strip $(SPEC_FILES))" ]; then \
	  echo "check-spec: no .wast files in SPEC_DIR=$(SPEC_DIR)"; \
	  echo "check-spec: get the WebAssembly testsuite (github.com/WebAssembly/testsuite," \
	       "commit 3a04b2cf93bd8fce277458d419eea8d9c326345c) and run make check SPEC_DIR=/path/to/it"; \
	  echo "check-spec: 0 passed, 1 failed"; exit 1; fi

check-spec: check-spec-found check-spec-self $(SPEC_RUN) $(SPEC_STAMPS)
	@SPEC_EXPECT="$(SPEC_EXPECT)" sh tests/spec/run.sh "$(SPEC_RUN)" "$(B)" "$(SPEC_JOBS)" "$(SPEC_TIMEOUT)" $(SPEC_FILES)

CHECKS += check-spec
.PHONY: spec-convert check-spec-self check-spec-found
