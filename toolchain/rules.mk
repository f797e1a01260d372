# The module-side toolchain: mpiwasm-cc and mpiwasm-c++ beside the engine
# in $(B)/, their data (mpi.h, the allowed-undefined list, the CMake
# toolchain file) in $(B)/share/mpiwasm/, the layout `make install` keeps
# under $(PREFIX).
PREFIX    ?= /usr/local
TC_SHARE  := $(B)/share/mpiwasm
TC_DRIVERS := $(B)/mpiwasm-cc $(B)/mpiwasm-c++
TC_DATA   := $(TC_SHARE)/mpi-undefined.txt $(TC_SHARE)/lib/crt1-mpiwasm.o \
	$(TC_SHARE)/mpiwasm.cmake $(TC_SHARE)/Platform/WASI.cmake \
	$(TC_SHARE)/libexec/wasm-opt $(TC_SHARE)/engine-mpi.txt
# Which MPI the engine beside the drivers is built for (openmpi or mpich):
# mpiwasm.cmake picks the matching launcher from it.  Rewritten only when
# it changes, like the translator hash.
$(shell mkdir -p $(TC_SHARE) && [ "$$(cat $(TC_SHARE)/engine-mpi.txt 2>/dev/null)" = "$(MPI)" ] || \
  echo "$(MPI)" > $(TC_SHARE)/engine-mpi.txt)
# Until the ABI header lands, the drivers refuse to run (they name the
# missing mpi.h) instead of breaking every engineer's `make`.
TC_HDR    := $(if $(wildcard toolchain/mpi.h),$(TC_SHARE)/include/mpi.h)
# Headers found before libc++'s own by mpiwasm-c++ (-isystem include/c++).
TC_CXXHDR := $(TC_SHARE)/include/c++/fstream
# libmpiwasm-posix: what wasi-libc leaves out (README.md), its headers
# found before wasi-libc's (-isystem include/libc).
TC_PX_SRC := $(wildcard toolchain/libmpiwasm-posix/*.c)
TC_PX_OBJ := $(TC_PX_SRC:%.c=$(B)/%.wasm.o)
TC_PX_INC := $(patsubst toolchain/libmpiwasm-posix/include/%,%,\
  $(wildcard toolchain/libmpiwasm-posix/include/*.h toolchain/libmpiwasm-posix/include/sys/*.h))
TC_LIBCHDR := $(TC_PX_INC:%=$(TC_SHARE)/include/libc/%)
TC_DATA   += $(TC_CXXHDR) $(TC_LIBCHDR) $(TC_SHARE)/lib/libmpiwasm-posix.a
# libmpiwasm-cxxabi: the C++ exception runtime (mpiwasm-c++ links it).
TC_EH_SRC := $(wildcard toolchain/libmpiwasm-cxxabi/*.cpp)
TC_EH_OBJ := $(TC_EH_SRC:%.cpp=$(B)/%.wasm.o)
TC_DATA   += $(TC_SHARE)/lib/libmpiwasm-cxxabi.a
# libmpiwasm-pthread: POSIX threads over wasi-threads for -pthread
# builds (README.md), built with atomics; <pthread.h> is found only by
# -pthread builds (-isystem include/pthread).
TC_PT_DIR := toolchain/libmpiwasm-pthread
TC_PT_OBJ := $(patsubst %.c,$(B)/%.wasm.o,$(wildcard $(TC_PT_DIR)/*.c)) \
  $(B)/$(TC_PT_DIR)/start.wasm.o
TC_DATA   += $(TC_SHARE)/lib/libmpiwasm-pthread.a $(TC_SHARE)/include/pthread/pthread.h

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
MPIWASM_CLANGXX ?= clang++-19
$(TC_SHARE)/lib/crt1-mpiwasm.o: toolchain/crt1.c
	@mkdir -p $(@D)
	$(MPIWASM_CLANG) --target=wasm32-wasi --sysroot=/usr -O2 -Wall -Wextra -c $< -o $@

$(TC_SHARE)/include/mpi.h: toolchain/mpi.h
	@mkdir -p $(@D)
	cp $< $@

# Built like the modules that link it, without -g (no debug sections).
$(B)/toolchain/libmpiwasm-posix/%.wasm.o: toolchain/libmpiwasm-posix/%.c \
		$(wildcard toolchain/libmpiwasm-posix/include/*.h toolchain/libmpiwasm-posix/include/sys/*.h)
	@mkdir -p $(@D)
	$(MPIWASM_CLANG) --target=wasm32-wasi --sysroot=/usr -Itoolchain/libmpiwasm-posix/include \
	  -O2 -Wall -Wextra -Wshadow -Wconversion -c $< -o $@

$(TC_SHARE)/lib/libmpiwasm-posix.a: $(TC_PX_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && llvm-ar-19 rcs $@ $^

$(B)/toolchain/libmpiwasm-cxxabi/%.wasm.o: toolchain/libmpiwasm-cxxabi/%.cpp
	@mkdir -p $(@D)
	$(MPIWASM_CLANGXX) --target=wasm32-wasi --sysroot=/usr -fwasm-exceptions \
	  -O2 -Wall -Wextra -Wshadow -c $< -o $@

$(TC_SHARE)/lib/libmpiwasm-cxxabi.a: $(TC_EH_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && llvm-ar-19 rcs $@ $^

$(B)/$(TC_PT_DIR)/%.wasm.o: $(TC_PT_DIR)/%.c $(TC_PT_DIR)/internal.h \
		$(TC_PT_DIR)/include/pthread.h
	@mkdir -p $(@D)
	$(MPIWASM_CLANG) --target=wasm32-wasi --sysroot=/usr -I$(TC_PT_DIR)/include \
	  -isystem toolchain/libmpiwasm-posix/include \
	  -matomics -mbulk-memory -O2 -Wall -Wextra -Wshadow -c $< -o $@

$(B)/$(TC_PT_DIR)/start.wasm.o: $(TC_PT_DIR)/start.s
	@mkdir -p $(@D)
	$(MPIWASM_CLANG) --target=wasm32-wasi -matomics -mbulk-memory -c $< -o $@

$(TC_SHARE)/lib/libmpiwasm-pthread.a: $(TC_PT_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && llvm-ar-19 rcs $@ $^

$(TC_SHARE)/include/pthread/pthread.h: $(TC_PT_DIR)/include/pthread.h
	@mkdir -p $(@D)
	cp $< $@

$(TC_SHARE)/include/libc/%: toolchain/libmpiwasm-posix/include/%
	@mkdir -p $(@D)
	cp $< $@

$(TC_SHARE)/include/c++/%: toolchain/include-c++/%
	@mkdir -p $(@D)
	cp $< $@

$(TC_SHARE)/libexec/wasm-opt: toolchain/wasm-opt
	@mkdir -p $(@D)
	cp $< $@.tmp && chmod +x $@.tmp && mv $@.tmp $@

$(TC_SHARE)/%: toolchain/%
	@mkdir -p $(@D)
	cp $< $@

# The committed list is what mpi.h declares and the engine registers;
# rebuild it with this after either changes (check-toolchain says when).
toolchain-regen:
	python3 toolchain/gen-undefined.py > toolchain/mpi-undefined.txt

# The engine goes beside the drivers: mpiwasm.cmake finds it there (the
# ctest emulator and MPIEXEC_PREFLAGS) and engine-mpi.txt says which MPI
# it was built for.
install-toolchain: toolchain $(B)/mpiwasm
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/mpiwasm/include \
	  $(DESTDIR)$(PREFIX)/share/mpiwasm/Platform $(DESTDIR)$(PREFIX)/share/mpiwasm/lib \
	  $(DESTDIR)$(PREFIX)/share/mpiwasm/libexec
	install -m 755 $(B)/mpiwasm $(TC_DRIVERS) $(DESTDIR)$(PREFIX)/bin/
	install -d $(DESTDIR)$(PREFIX)/share/mpiwasm/include/c++ \
	  $(DESTDIR)$(PREFIX)/share/mpiwasm/include/libc/sys
	install -m 644 $(TC_SHARE)/include/mpi.h $(DESTDIR)$(PREFIX)/share/mpiwasm/include/
	install -m 644 $(TC_CXXHDR) $(DESTDIR)$(PREFIX)/share/mpiwasm/include/c++/
	for h in $(TC_PX_INC); do install -m 644 $(TC_SHARE)/include/libc/$$h \
	  $(DESTDIR)$(PREFIX)/share/mpiwasm/include/libc/$$h || exit 1; done
	install -m 644 $(TC_SHARE)/lib/libmpiwasm-posix.a $(TC_SHARE)/lib/libmpiwasm-pthread.a \
	  $(TC_SHARE)/lib/libmpiwasm-cxxabi.a \
	  $(DESTDIR)$(PREFIX)/share/mpiwasm/lib/
	install -d $(DESTDIR)$(PREFIX)/share/mpiwasm/include/pthread
	install -m 644 $(TC_SHARE)/include/pthread/pthread.h $(DESTDIR)$(PREFIX)/share/mpiwasm/include/pthread/
	for l in libmpiwasm-malloc.a libmpiwasm-omp.a; do [ ! -f $(TC_SHARE)/lib/$$l ] || \
	  install -m 644 $(TC_SHARE)/lib/$$l $(DESTDIR)$(PREFIX)/share/mpiwasm/lib/ || exit 1; done
	install -m 644 $(TC_SHARE)/mpi-undefined.txt $(TC_SHARE)/mpiwasm.cmake \
	  $(TC_SHARE)/engine-mpi.txt $(DESTDIR)$(PREFIX)/share/mpiwasm/
	install -m 644 $(TC_SHARE)/Platform/WASI.cmake $(DESTDIR)$(PREFIX)/share/mpiwasm/Platform/
	install -m 644 $(TC_SHARE)/lib/crt1-mpiwasm.o $(DESTDIR)$(PREFIX)/share/mpiwasm/lib/
	install -m 755 $(TC_SHARE)/libexec/wasm-opt $(DESTDIR)$(PREFIX)/share/mpiwasm/libexec/
install: install-toolchain

.PHONY: toolchain toolchain-regen install-toolchain install

# libmpiwasm-malloc and libmpiwasm-omp (threaded modules).
include toolchain/threads.mk
