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
