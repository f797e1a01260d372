# Threads in modules, the toolchain half that is not pthreads itself:
# libmpiwasm-malloc (the allocator mpiwasm-cc -pthread links before libc)
# and libmpiwasm-omp (the OpenMP runtime mpiwasm-cc -fopenmp links), with
# omp.h.  Both are also built natively (the same sources over glibc's
# pthreads), which tests/omp and bench/threads use.  See README.md,
# "Threads: the allocator" and "Threads: OpenMP".
TC_THR_CFLAGS := -O2 -Wall -Wextra -Wshadow -Wconversion
# The wasm objects need a <pthread.h>; Debian's wasi-libc has none, the
# project's pthreads library brings it.  Without it they are not built.
TC_PTHREAD_INC ?= toolchain/libmpiwasm-pthread/include
TC_THR_WASM := $(if $(wildcard $(TC_PTHREAD_INC)/pthread.h),1)
TC_THR_NATIVE := $(B)/toolchain/native/libmpiwasm-malloc.a \
  $(B)/toolchain/native/libmpiwasm-malloc-onelock.a $(B)/toolchain/native/libmpiwasm-omp.a
TC_THR_HDR := toolchain/libmpiwasm-malloc/futex.h toolchain/libmpiwasm-omp/include/omp.h

ifeq ($(TC_THR_WASM),1)
TC_THR_DATA := $(TC_SHARE)/lib/libmpiwasm-malloc.a $(TC_SHARE)/lib/libmpiwasm-omp.a \
  $(TC_SHARE)/include/omp/omp.h
toolchain: $(TC_THR_DATA)
bench-threads: $(B)/toolchain/wasm/malloc-onelock.o
install-toolchain: install-toolchain-threads
endif

install-toolchain-threads: $(TC_THR_DATA)
	install -d $(DESTDIR)$(PREFIX)/share/mpiwasm/lib $(DESTDIR)$(PREFIX)/share/mpiwasm/include/omp
	install -m 644 $(TC_SHARE)/lib/libmpiwasm-malloc.a $(TC_SHARE)/lib/libmpiwasm-omp.a \
	  $(DESTDIR)$(PREFIX)/share/mpiwasm/lib/
	install -m 644 $(TC_SHARE)/include/omp/omp.h $(DESTDIR)$(PREFIX)/share/mpiwasm/include/omp/
.PHONY: install-toolchain-threads

# As modules are built: libmpiwasm-posix's headers first (a plain errno,
# as in Debian's libc.a).  -matomics -mbulk-memory: atomics,
# memory.atomic.wait32/notify, and the thread-local storage _Thread_local
# needs in a shared memory.
TC_THR_WASMFLAGS = $(MPIWASM_CLANG) --target=wasm32-wasi --sysroot=/usr -matomics -mbulk-memory \
  -isystem $(TC_PTHREAD_INC) -isystem toolchain/libmpiwasm-posix/include \
  -Itoolchain/libmpiwasm-omp/include $(TC_THR_CFLAGS)

$(B)/toolchain/wasm/malloc.o: toolchain/libmpiwasm-malloc/malloc.c $(TC_THR_HDR)
	@mkdir -p $(@D)
	$(TC_THR_WASMFLAGS) -c $< -o $@

$(B)/toolchain/wasm/malloc-onelock.o: toolchain/libmpiwasm-malloc/malloc.c $(TC_THR_HDR)
	@mkdir -p $(@D)
	$(TC_THR_WASMFLAGS) -DMALLOC_ONE_LOCK -c $< -o $@

$(B)/toolchain/wasm/omp.o: toolchain/libmpiwasm-omp/omp.c $(TC_THR_HDR)
	@mkdir -p $(@D)
	$(TC_THR_WASMFLAGS) -c $< -o $@

$(TC_SHARE)/lib/libmpiwasm-malloc.a: $(B)/toolchain/wasm/malloc.o
	@mkdir -p $(@D)
	rm -f $@ && llvm-ar-19 rcs $@ $^

$(B)/toolchain/wasm/atomic.o: toolchain/libmpiwasm-omp/atomic.c $(TC_THR_HDR)
	@mkdir -p $(@D)
	$(TC_THR_WASMFLAGS) -c $< -o $@

# atomic.o: the generic __atomic_* calls (natively, libatomic has them).
$(TC_SHARE)/lib/libmpiwasm-omp.a: $(B)/toolchain/wasm/omp.o $(B)/toolchain/wasm/atomic.o
	@mkdir -p $(@D)
	rm -f $@ && llvm-ar-19 rcs $@ $^

$(TC_SHARE)/include/omp/omp.h: toolchain/libmpiwasm-omp/include/omp.h
	@mkdir -p $(@D)
	cp $< $@

# Native builds, for the tests and the benchmarks (never installed).
$(B)/toolchain/native/malloc.o: toolchain/libmpiwasm-malloc/malloc.c $(TC_THR_HDR)
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(TC_THR_CFLAGS) -c $< -o $@

$(B)/toolchain/native/malloc-onelock.o: toolchain/libmpiwasm-malloc/malloc.c $(TC_THR_HDR)
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(TC_THR_CFLAGS) -DMALLOC_ONE_LOCK -c $< -o $@

$(B)/toolchain/native/omp.o: toolchain/libmpiwasm-omp/omp.c $(TC_THR_HDR)
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(TC_THR_CFLAGS) -Itoolchain/libmpiwasm-omp/include -c $< -o $@

$(B)/toolchain/native/libmpiwasm-malloc.a: $(B)/toolchain/native/malloc.o
	rm -f $@ && ar rcs $@ $^
$(B)/toolchain/native/libmpiwasm-malloc-onelock.a: $(B)/toolchain/native/malloc-onelock.o
	rm -f $@ && ar rcs $@ $^
$(B)/toolchain/native/libmpiwasm-omp.a: $(B)/toolchain/native/omp.o
	rm -f $@ && ar rcs $@ $^

toolchain-threads-native: $(TC_THR_NATIVE)
.PHONY: toolchain-threads-native
