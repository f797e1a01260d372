# tests/toolchain: `make check-toolchain` (see tests/toolchain/run.sh):
# what mpiwasm-cc and mpiwasm-c++ accept, link, emulate and strip, checked
# by building real programs and running them under build/mpiwasm.
check-toolchain: toolchain $(B)/mpiwasm
	@B=$(B) timeout 600 sh tests/toolchain/run.sh

CHECKS += check-toolchain
.PHONY: check-toolchain
