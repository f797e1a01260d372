# tests/wasi: `make check-wasi` (see tests/wasi/run.sh).  The test
# programs are built natively and to wasm32-wasi from the same source.
WASI_WASM_CC ?= clang-19 --target=wasm32-wasi --sysroot=/usr
WASI_T       := $(B)/tests/wasi
WASI_PROGS   := p_stdio p_files p_dirs p_time p_misc
WASI_SRC     := src/wasi/wasi.c src/wasi/sandbox.c src/wasi/errno.c

# The host functions with a stand-in runtime (tests/wasi/host_stub.h).
$(WASI_T)/test_sandbox: tests/wasi/test_sandbox.c tests/wasi/host_stub.h \
		$(WASI_SRC) src/wasi/wasi.h src/wasi/wasi_int.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O1 -g $(WARN) -D_GNU_SOURCE -Isrc -Itests/wasi \
	  -o $@ tests/wasi/test_sandbox.c $(WASI_SRC) -lpthread

$(WASI_T)/%.wasm: tests/wasi/progs/%.c tests/wasi/progs/common.h
	@mkdir -p $(@D)
	$(WASI_WASM_CC) -O2 -Wno-unused-result -o $@ $<

$(WASI_T)/%: tests/wasi/progs/%.c tests/wasi/progs/common.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -Wno-unused-result -o $@ $<

# Runs p_misc with a socket as its stdin.
$(WASI_T)/sockrun: tests/wasi/sockrun.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 $(WARN) -o $@ $<

check-wasi: $(WASI_T)/test_sandbox $(WASI_T)/sockrun $(WASI_PROGS:%=$(WASI_T)/%) \
		$(WASI_PROGS:%=$(WASI_T)/%.wasm) $(WASI_T)/e_escape.wasm \
		$(WASI_T)/c_preview1.wasm
	@sh tests/wasi/run.sh $(B)

CHECKS += check-wasi
