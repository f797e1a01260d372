# tests/fuzz: libFuzzer over the decoder and validator.
#   make fuzz         fuzz for FUZZ_TIME seconds (seeds: the regression
#                     corpus and the spec suite's binaries)
#   make check-fuzz   replay the regression corpus under ASan+UBSan
# The corpus is kept as source: .wat (compiled here with wat2wasm) and .hex
# (crash inputs found by fuzzing, as hexadecimal text).
FUZZ_TIME  ?= 60
SPEC_DIR   ?= $(SHARED)/wasm-spec-tests
FUZZ_DIR   := $(B)/fuzz
FUZZ_SRC   := $(wildcard src/wasm/*.c)
FUZZ_WAT   := $(wildcard tests/fuzz/corpus/*.wat tests/unit/wat/*.wat)
FUZZ_HEX   := $(wildcard tests/fuzz/corpus/*.hex)
FUZZ_SEEDS := $(foreach w,$(FUZZ_WAT),$(FUZZ_DIR)/seeds/$(notdir $(w:.wat=.wasm)))
FUZZ_FLAGS := -std=gnu11 -O1 -g -Isrc -D_GNU_SOURCE -fno-omit-frame-pointer

$(FUZZ_DIR)/fuzz_decode: tests/fuzz/fuzz_decode.c $(FUZZ_SRC) src/wasm/wasm.h src/wasm/opcodes.def
	@mkdir -p $(@D)
	clang-19 $(FUZZ_FLAGS) -fsanitize=fuzzer,address,undefined -o $@ tests/fuzz/fuzz_decode.c $(FUZZ_SRC)

$(FUZZ_DIR)/fuzz_replay: tests/fuzz/fuzz_decode.c $(FUZZ_SRC) src/wasm/wasm.h src/wasm/opcodes.def
	@mkdir -p $(@D)
	$(CC) $(FUZZ_FLAGS) -DFUZZ_REPLAY -fsanitize=address,undefined -fno-sanitize-recover=all \
	  -o $@ tests/fuzz/fuzz_decode.c $(FUZZ_SRC)

$(FUZZ_DIR)/seeds/%.wasm: tests/fuzz/corpus/%.wat
	@mkdir -p $(@D)
	wat2wasm --debug-names $< -o $@

$(FUZZ_DIR)/seeds/%.wasm: tests/unit/wat/%.wat
	@mkdir -p $(@D)
	wat2wasm --debug-names $< -o $@

check-fuzz: $(FUZZ_DIR)/fuzz_replay $(FUZZ_SEEDS)
	@timeout 300 $(FUZZ_DIR)/fuzz_replay $(FUZZ_SEEDS) $(FUZZ_HEX)

# Spec-suite binaries make good seeds; converted once into the build dir.
$(FUZZ_DIR)/spec.stamp:
	@mkdir -p $(FUZZ_DIR)/spec
	@for f in $(SPEC_DIR)/*.wast; do \
	  wast2json "$$f" -o $(FUZZ_DIR)/spec/$$(basename $$f .wast).json >/dev/null 2>&1 || true; \
	done; touch $@

fuzz: $(FUZZ_DIR)/fuzz_decode $(FUZZ_SEEDS) $(FUZZ_DIR)/spec.stamp
	@mkdir -p $(FUZZ_DIR)/work $(FUZZ_DIR)/crashes
	cp $(FUZZ_SEEDS) $(FUZZ_DIR)/work/
	nice timeout $$(($(FUZZ_TIME) + 60)) $(FUZZ_DIR)/fuzz_decode -max_total_time=$(FUZZ_TIME) \
	  -max_len=4096 -rss_limit_mb=1024 -artifact_prefix=$(FUZZ_DIR)/crashes/ \
	  $(FUZZ_DIR)/work $(FUZZ_DIR)/spec

# The spec suite's verdicts (module ok, malformed/invalid refused) on the
# decoder and validator alone; a development aid, not in CHECKS.
$(FUZZ_DIR)/spec_agree: tests/fuzz/spec_agree.c $(B)/libmpiwasm.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(B)/libmpiwasm.a $(LDLIBS)

spec-agree: $(FUZZ_DIR)/spec_agree $(FUZZ_DIR)/spec.stamp
	@timeout 300 $(FUZZ_DIR)/spec_agree $$(ls $(FUZZ_DIR)/spec/*.json | grep -v /simd_)

CHECKS += check-fuzz
.PHONY: fuzz check-fuzz spec-agree
