# Exception handling (the legacy proposal clang -fwasm-exceptions emits):
# this project's own .wast files, converted with wast2json
# --enable-exceptions and run by the spec harness (tests/spec) with cc and
# with clang-19 (tests/eh/run.sh).
#
#   make check-eh

EH_NAMES  := $(addprefix eh/,$(notdir $(basename $(wildcard tests/eh/*.wast))))

$(B)/spec/eh/%/converted: tests/eh/%.wast
	@mkdir -p $(dir $(@D))
	@t=$$(mktemp -d $(@D).tmp.XXXXXX) && \
	echo "wast2json --enable-exceptions $< -o $(@D)/$*.json" && \
	wast2json --enable-exceptions $< -o $$t/$*.json && \
	touch $$t/converted && chmod 755 $$t && rm -rf $(@D) && mv $$t $(@D)

# (spelled out: tests/spec/rules.mk, which names it SPEC_RUN, is read
# after this file)
check-eh: $(B)/tests/spec/spec_run $(EH_NAMES:%=$(B)/spec/%/converted)
	@sh tests/eh/run.sh $(B) $(foreach n,$(EH_NAMES),$(B)/spec/$(n)/$(notdir $(n)).json)

CHECKS += check-eh
.PHONY: check-eh
