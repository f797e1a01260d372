# The module-side toolchain: mpiwasm-cc and mpiwasm-c++ beside the engine
# in $(B)/, their data (mpi.h, the allowed-undefined list, the CMake
# toolchain file) in $(B)/share/mpiwasm/, the layout `make install` keeps
# under $(PREFIX).
PREFIX    ?= /usr/local
TC_SHARE  := $(B)/share/mpiwasm
TC_DRIVERS := $(B)/mpiwasm-cc $(B)/mpiwasm-c++
TC_DATA   := $(TC_SHARE)/mpi-undefined.txt $(TC_SHARE)/lib/crt1-mpiwasm.o \
	$(TC_SHARE)/mpiwasm.cmake $(TC_SHARE)/Platform/WASI.cmake
# Until the ABI header lands, the drivers refuse to run (they name the
# missing mpi.h) instead of breaking every engineer's `make`.
TC_HDR    := $(if $(wildcard toolchain/mpi.h),$(TC_SHARE)/include/mpi.h)

toolchain: $(TC_DRIVERS) $(TC_DATA) $(TC_HDR)
	@$(if $(TC_HDR),:,echo "toolchain: warning: toolchain/mpi.h missing; mpiwasm-cc will not work" >&2)
all: toolchain

$(B)/mpiwasm-cc: toolchain/mpiwasm-cc.in
	@mkdir -p $(@D)
	sed -e 's/@LANG@/c/' -e 's/@NAME@/mpiwasm-cc/' $< > $@.tmp
	chmod +x $@.tmp && mv $@.tmp $@

$(B)/mpiwasm-c++: toolchain/mpiwasm-cc.in
	@mkdir -p $(@D)
	sed -e 's/@LANG@/c++/' -e 's/@NAME@/mpiwasm-c++/' $< > $@.tmp
	chmod +x $@.tmp && mv $@.tmp $@

MPIWASM_CLANG ?= clang-19
$(TC_SHARE)/lib/crt1-mpiwasm.o: toolchain/crt1.c
	@mkdir -p $(@D)
	$(MPIWASM_CLANG) --target=wasm32-wasi --sysroot=/usr -O2 -Wall -Wextra -c $< -o $@

$(TC_SHARE)/include/mpi.h: toolchain/mpi.h
	@mkdir -p $(@D)
	cp $< $@

$(TC_SHARE)/%: toolchain/%
	@mkdir -p $(@D)
	cp $< $@

# The committed list is generated from the MPI Standard; rebuild it with this.
toolchain-regen:
	python3 toolchain/gen-undefined.py $(SHARED)/mpi-standard/apis.json > toolchain/mpi-undefined.txt

install-toolchain: toolchain
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/mpiwasm/include \
	  $(DESTDIR)$(PREFIX)/share/mpiwasm/Platform $(DESTDIR)$(PREFIX)/share/mpiwasm/lib
	install -m 755 $(TC_DRIVERS) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(TC_SHARE)/include/mpi.h $(DESTDIR)$(PREFIX)/share/mpiwasm/include/
	install -m 644 $(TC_SHARE)/mpi-undefined.txt $(TC_SHARE)/mpiwasm.cmake \
	  $(DESTDIR)$(PREFIX)/share/mpiwasm/
	install -m 644 $(TC_SHARE)/Platform/WASI.cmake $(DESTDIR)$(PREFIX)/share/mpiwasm/Platform/
	install -m 644 $(TC_SHARE)/lib/crt1-mpiwasm.o $(DESTDIR)$(PREFIX)/share/mpiwasm/lib/
install: install-toolchain

.PHONY: toolchain toolchain-regen install-toolchain install
