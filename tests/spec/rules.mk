# The official WebAssembly test suite through the production path.
#
#   make check-spec                  the core set (no SIMD, no threads)
#   make check-spec SPEC_SET=simd    simd_*.wast
#   make check-spec SPEC_SET=threads threads/*.wast (wast2json --enable-threads)
#   make check-spec SPEC_FILES="i32 call"   just these files
#
# Each .wast is converted once into $(B)/spec/<name>/ and run by
# spec_run, SPEC_JOBS files at a time; compiled modules stay in
# $(B)/spec-cache, so a rerun compiles nothing.

SPEC_DIR     ?= /work/shared/wasm-spec-tests
SPEC_SET     ?= core
SPEC_JOBS    ?= 2
SPEC_TIMEOUT ?= 1800
SPEC_ALL     := $(notdir $(basename $(wildcard $(SPEC_DIR)/*.wast)))
SPEC_core    := $(filter-out simd_%,$(SPEC_ALL))
SPEC_simd    := $(filter simd_%,$(SPEC_ALL))
SPEC_threads := $(addprefix threads/,$(notdir $(basename $(wildcard $(SPEC_DIR)/threads/*.wast))))
SPEC_FILES   ?= $(SPEC_$(SPEC_SET))
SPEC_STAMPS  := $(SPEC_FILES:%=$(B)/spec/%/converted)
SPEC_RUN     := $(B)/tests/spec/spec_run

# --whole-archive: generated code resolves rt_* from the executable, so
# every runtime object must be in it, referenced by the driver or not.
$(SPEC_RUN): tests/spec/spec_run.c $(B)/libmpiwasm.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -rdynamic -o $@ $< -Wl,--whole-archive $(B)/libmpiwasm.a \
	  -Wl,--no-whole-archive $(LDLIBS)

$(B)/spec/%/converted: $(SPEC_DIR)/%.wast
	@rm -rf $(@D) && mkdir -p $(@D)
	wast2json $(if $(filter threads/%,$*),--enable-threads) $< -o $(@D)/$(notdir $*).json
	@touch $@

spec-convert: $(SPEC_STAMPS)

check-spec: $(SPEC_RUN) $(SPEC_STAMPS)
	@sh tests/spec/run.sh "$(SPEC_RUN)" "$(B)" "$(SPEC_JOBS)" "$(SPEC_TIMEOUT)" $(SPEC_FILES)

CHECKS += check-spec
.PHONY: spec-convert
