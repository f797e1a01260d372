# Unit tests: every tests/unit/test_<module>.c is a program, silent on
# success, non-zero on failure, linked against the engine library.
UNIT_SRC  := $(wildcard tests/unit/test_*.c)
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/unit/%)

$(B)/tests/unit/%: tests/unit/%.c $(B)/libmpiwasm.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -rdynamic -o $@ $< \
	  -Wl,--whole-archive $(B)/libmpiwasm.a -Wl,--no-whole-archive $(LDLIBS)

check-unit: $(UNIT_BIN)
	@pass=0; fail=0; for t in $(UNIT_BIN); do \
	  if timeout 300 $$t; then pass=$$((pass+1)); \
	  else echo "FAIL: $$t"; fail=$$((fail+1)); fi; \
	done; echo "unit: $$pass passed, $$fail failed"; [ $$fail = 0 ]

CHECKS += check-unit

# The unit tests again on an AddressSanitizer+UBSan build of the engine
# (build-asan/); any report fails the test.  test_alloc_fail is left out:
# it replaces malloc itself, which ASan's allocator must own.
ASAN_OPT := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
check-asan:
	@$(MAKE) --no-print-directory B=build-asan OPT="$(ASAN_OPT)" LDFLAGS="-fsanitize=address,undefined" \
	  UNIT_SKIP=test_alloc_fail check-unit-asan

check-unit-asan: $(filter-out $(B)/tests/unit/$(UNIT_SKIP),$(UNIT_BIN))
	@pass=0; fail=0; for t in $^; do \
	  if ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 timeout 300 $$t; \
	  then pass=$$((pass+1)); else echo "FAIL (asan): $$t"; fail=$$((fail+1)); fi; \
	done; echo "asan: $$pass passed, $$fail failed"; [ $$fail = 0 ]

CHECKS += check-asan
.PHONY: check-asan check-unit-asan
