# src/xlate - translator checks that need a back-end C compiler run
# (the translator itself is built as part of CORE in the Makefile).
#   make check-xlate    src/xlate/test/*.wast with gcc and clang-19

check-xlate: $(B)/tests/spec/spec_run
	sh src/xlate/test/run.sh $(B)

CHECKS += check-xlate
.PHONY: check-xlate
