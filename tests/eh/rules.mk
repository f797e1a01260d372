# Exception handling (the legacy proposal clang -fwasm-exceptions emits):
# this project's own .wast files, converted with wast2json
# --enable-exceptions and run by the spec harness (tests/spec).
#
#   make check-eh

EH_NAMES  := $(addprefix eh/,$(notdir $(basename $(wildcard tests/eh/*.wast))))
# Every command of the files must pass (raise with the files).
EH_EXPECT ?= 60

$(B)/spec/eh/%/converted: tests/eh/%.wast
	@mkdir -p $(dir $(@D))
	@t=$$(mktemp -d $(@D).tmp.XXXXXX) && \
	echo "wast2json --enable-exceptions $< -o $(@D)/$*.json" && \
	wast2json --enable-exceptions $< -o $$t/$*.json && \
	touch $$t/converted && chmod 755 $$t && rm -rf $(@D) && mv $$t $(@D)

check-eh: $(SPEC_RUN) $(EH_NAMES:%=$(B)/spec/%/converted)
	@SPEC_EXPECT="$(EH_EXPECT)" sh tests/spec/run.sh "$(SPEC_RUN)" "$(B)" "$(SPEC_JOBS)" "$(SPEC_TIMEOUT)" $(EH_NAMES)

CHECKS += check-eh
.PHONY: check-eh
