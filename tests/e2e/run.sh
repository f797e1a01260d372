#!/bin/bash
# tests/e2e/run.sh - the mpiwasm command end to end.
#   MPIWASM=build/mpiwasm bash tests/e2e/run.sh [NAME...]
# Builds its modules from sources into a scratch dir, runs every test (or
# the named ones) and prints `e2e: N passed, N failed`; exits non-zero on
# any failure.  Each test has its own cache dir.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
MPIWASM=${MPIWASM:-$root/build/mpiwasm}
case $MPIWASM in /*) ;; *) MPIWASM=$root/$MPIWASM ;; esac
WASM_CC=${WASM_CC:-clang-19 --target=wasm32-wasi --sysroot=/usr}
T=${E2E_TIMEOUT:-300}

W=$(mktemp -d /tmp/mpiwasm-e2e-XXXXXX)
trap 'umount "$W/full" 2>/dev/null; rm -rf "$W"' EXIT
mkdir -p "$W/tmp"
export TMPDIR=$W/tmp          # so that leftovers of compiles can be checked
unset MPIWASM_CACHE_DIR MPIWASM_CC MPIWASM_CACHE_LOG MPIWASM_KEEP_TEMP

pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "PASS $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; [ -f "$W/err" ] && sed 's/^/    | /' "$W/err" | head -20; }

# run CACHE_DIR ARGS...: mpiwasm with stdout in $W/out, stderr in $W/err,
# status in $rc.
run() {
	local c=$1; shift
	MPIWASM_CACHE_DIR=$c timeout "$T" "$MPIWASM" "$@" >"$W/out" 2>"$W/err"
	rc=$?
}
lines() { grep -c '' "$1"; }
# What a build left in $TMPDIR: anything but the per-user fallback cache
# dirs (mpiwasm-UID, a cache like any other), and in those, build leftovers.
tmp_left() {
	ls -A "$W/tmp" | grep -Ev '^mpiwasm-[0-9]+$'
	ls -A "$W"/tmp/mpiwasm-[0-9]* 2>/dev/null | grep '^\.tmp'
}
compiles() { [ -f "$1" ] && grep -c '^compile ' "$1" || echo 0; }

if [ ! -x "$MPIWASM" ]; then
	echo "e2e: $MPIWASM is missing (make first)"
	echo "e2e: 0 passed, 1 failed"
	exit 1
fi

# ---- modules ------------------------------------------------------------
build_ok=1
$WASM_CC -O2 "$root/examples/hello.c" -o "$W/hello.wasm" || build_ok=0
$WASM_CC -O2 "$here/exit3.c" -o "$W/exit3.wasm" || build_ok=0
$WASM_CC -O1 "$here/trap.c" -o "$W/trap.wasm" || build_ok=0
$WASM_CC -O1 "$here/tier_loop.c" -o "$W/tier_loop.wasm" || build_ok=0
wat2wasm "$here/unknown_import.wat" -o "$W/unknown_import.wasm" || build_ok=0
wat2wasm "$here/nostart.wat" -o "$W/nostart.wasm" || build_ok=0
wat2wasm --debug-names "$here/trap.wat" -o "$W/trap_named.wasm" || build_ok=0
wat2wasm --debug-names "$here/cxa_throw.wat" -o "$W/cxa_throw.wasm" || build_ok=0
wat2wasm --enable-exceptions --debug-names "$here/uncaught.wat" -o "$W/uncaught.wasm" || build_ok=0
# A second module with other bytes, for tests that need a cold cache.
cp "$W/hello.wasm" "$W/hello2.wasm" && printf '\0\x09\x08mpiwasm2' >> "$W/hello2.wasm"
printf '\0asm\1\0\0\0\x01\xff\xff\xff\xff\x0f' > "$W/malformed.wasm"
printf 'this is not wasm at all\n' > "$W/text.wasm"
# MPI modules need mpiwasm-cc (built beside mpiwasm by toolchain/rules.mk).
MPIWASM_CC_DRIVER=$(dirname "$MPIWASM")/mpiwasm-cc
have_mpi=0
if [ -x "$MPIWASM_CC_DRIVER" ] &&
   "$MPIWASM_CC_DRIVER" -O2 "$root/examples/mpi_ring.c" -o "$W/mpi_ring.wasm" 2>"$W/mpicc.err" &&
   "$MPIWASM_CC_DRIVER" -O1 "$here/mpi_fault.c" -o "$W/mpi_fault.wasm" 2>>"$W/mpicc.err"; then
	have_mpi=1
fi
# Built with the driver at -O2 (clang then runs wasm-opt): with names, and
# stripped on request.
have_named=0
if [ -x "$MPIWASM_CC_DRIVER" ] &&
   "$MPIWASM_CC_DRIVER" -O2 "$here/named_trap.c" -o "$W/named_O2.wasm" 2>"$W/named.err" &&
   "$MPIWASM_CC_DRIVER" -O2 -s "$here/named_trap.c" -o "$W/named_O2_s.wasm" 2>>"$W/named.err" &&
   "$MPIWASM_CC_DRIVER" -O2 -Wl,--strip-all "$here/named_trap.c" -o "$W/named_O2_sa.wasm" 2>>"$W/named.err"; then
	have_named=1
fi
if [ -n "${MPIRUN:-}" ]; then :
elif [ "${MPI:-openmpi}" = mpich ]; then MPIRUN=mpiexec.mpich
else MPIRUN="env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 mpirun.openmpi"
fi
if [ $build_ok = 0 ]; then
	echo "e2e: could not build the test modules"
	echo "e2e: 0 passed, 1 failed"
	exit 1
fi

want_hello() {   # output of `hello.wasm a b` without a directory
	printf 'hello from wasm\nargv[0] = %s\nargv[1] = a\nargv[2] = b\nGREETING = (unset)\n' "$1"
}

# ---- tests ----------------------------------------------------------------

t_version() {
	run "$W/c-version" --version
	[ $rc = 0 ] && grep -Eq '^mpiwasm .*MPI bridge built for (Open MPI|MPICH) [0-9]' "$W/out" &&
		ok version || bad version "rc=$rc: $(cat "$W/out")"
	run "$W/c-version" --help
	[ $rc = 0 ] && grep -q 'usage: mpiwasm' "$W/out" && ok help || bad help "rc=$rc"
}

t_hello() {
	local c=$W/c-hello log=$W/c-hello.log
	MPIWASM_CACHE_LOG=$log run "$c" "$W/hello.wasm" a b
	if [ $rc = 0 ] && diff -u <(want_hello "$W/hello.wasm") "$W/out" >/dev/null &&
	   grep -q '^mpiwasm: compiling hello.wasm (first run; later runs use the cache)$' "$W/err"; then
		ok hello-first-run
	else
		bad hello-first-run "rc=$rc, output or compile line wrong"
	fi
	local so; so=$(ls "$c"/*.so 2>/dev/null)
	local m1; m1=$(stat -c %Y.%i "$so" 2>/dev/null)
	MPIWASM_CACHE_LOG=$log run "$c" --timings "$W/hello.wasm" a b
	local m2; m2=$(stat -c %Y.%i "$so" 2>/dev/null)
	if [ $rc = 0 ] && [ "$(compiles "$log")" = 1 ] && [ -n "$m1" ] && [ "$m1" = "$m2" ] &&
	   grep -q '(cache hit)$' "$W/err" && ! grep -q compiling "$W/err" &&
	   diff <(want_hello "$W/hello.wasm") "$W/out" >/dev/null; then
		ok second-run-uses-cache
		sed -n 's/^mpiwasm: timings: /    cached run: /p' "$W/err"
	else
		bad second-run-uses-cache "rc=$rc compiles=$(compiles "$log") entry $m1 -> $m2"
	fi
	MPIWASM_CACHE_LOG=$log run "$c" -q "$W/hello.wasm" a b
	[ $rc = 0 ] && [ ! -s "$W/err" ] && ok quiet-hit || bad quiet-hit "rc=$rc or stderr not empty"
}

# MPIWasm's embedder spelled its flags -t (--timings), -d DIR and -V:
# its published run scripts work unchanged.
t_mpiwasm_flags() {
	local d=$W/mpiwasm-flags
	mkdir -p "$d/data"
	run "$W/c-mwflags" -t "$W/hello.wasm" a b
	if [ $rc = 0 ] && diff <(want_hello "$W/hello.wasm") "$W/out" >/dev/null &&
	   grep -q '^mpiwasm: timings: ' "$W/err"; then
		ok mpiwasm-t-runs-with-timings
	else
		bad mpiwasm-t-runs-with-timings "rc=$rc, output or timings line wrong"
	fi
	local od=$PWD
	cd "$d" && run "$W/c-mwflags" -t -d data "$W/hello.wasm" a b
	cd "$od" || return
	[ $rc = 0 ] && grep -q '^mpiwasm: timings: ' "$W/err" &&
		ok mpiwasm-t-with-d || bad mpiwasm-t-with-d "rc=$rc"
	run "$W/c-mwflags" -V
	[ $rc = 0 ] && grep -q '^mpiwasm ' "$W/out" && ok mpiwasm-V-version ||
		bad mpiwasm-V-version "rc=$rc"
	run "$W/c-mwflags" --help
	grep -q -- '-t, --timings' "$W/out" && ok help-names-t || bad help-names-t "no -t in --help"
}

t_quiet_miss() {
	run "$W/c-quiet" -q "$W/hello.wasm" a b
	[ $rc = 0 ] && [ ! -s "$W/err" ] && ok quiet-miss || bad quiet-miss "rc=$rc or stderr not empty"
}

t_concurrent() {
	local c=$W/c-conc log=$W/c-conc.log pids="" i okc=0
	for i in 1 2 3 4; do
		MPIWASM_CACHE_DIR=$c MPIWASM_CACHE_LOG=$log timeout "$T" "$MPIWASM" -q \
			"$W/hello.wasm" a b >"$W/conc$i.out" 2>"$W/conc$i.err" &
		pids="$pids $!"
	done
	i=0
	for p in $pids; do
		i=$((i + 1))
		wait "$p" && diff <(want_hello "$W/hello.wasm") "$W/conc$i.out" >/dev/null &&
			okc=$((okc + 1))
	done
	local n; n=$(compiles "$log")
	[ $okc = 4 ] && [ "$n" = 1 ] && [ -z "$(ls -A "$c" | grep '^\.tmp')" ] &&
		ok four-simultaneous-runs-compile-once ||
		bad four-simultaneous-runs-compile-once "$okc of 4 succeeded, $n compiles"
}

t_damaged() {
	local c=$W/c-dmg log=$W/c-dmg.log so
	run "$c" -q "$W/hello.wasm" a b
	so=$(ls "$c"/*.so 2>/dev/null)
	if [ -z "$so" ]; then bad truncated-entry-rebuilt "no entry after the first run"; return; fi
	truncate -s 1000 "$so"
	MPIWASM_CACHE_LOG=$log run "$c" "$W/hello.wasm" a b
	[ $rc = 0 ] && [ "$(compiles "$log")" = 1 ] && grep -q damaged "$W/err" &&
	   diff <(want_hello "$W/hello.wasm") "$W/out" >/dev/null &&
		ok truncated-entry-rebuilt || bad truncated-entry-rebuilt "rc=$rc compiles=$(compiles "$log")"
	# Same size, one byte changed: only the checksum can tell.
	printf '\x5a' | dd of="$so" bs=1 seek=600 conv=notrunc status=none
	MPIWASM_CACHE_LOG=$log run "$c" -q "$W/hello.wasm" a b
	[ $rc = 0 ] && [ "$(compiles "$log")" = 2 ] &&
		ok corrupted-entry-rebuilt || bad corrupted-entry-rebuilt "rc=$rc compiles=$(compiles "$log")"
	# A record without its object (an install cut short).
	rm -f "$so"
	MPIWASM_CACHE_LOG=$log run "$c" -q "$W/hello.wasm" a b
	[ $rc = 0 ] && [ "$(compiles "$log")" = 3 ] && [ -f "$so" ] &&
		ok missing-object-rebuilt || bad missing-object-rebuilt "rc=$rc"
}

t_unwritable() {
	# A path below a regular file cannot be created, even by root.
	: > "$W/plainfile"
	run "$W/plainfile/cache" "$W/hello.wasm" a b
	[ $rc = 0 ] && grep -q '^mpiwasm: warning: cache dir .* is not usable' "$W/err" &&
	   [ "$(grep -c warning "$W/err")" = 1 ] &&
	   diff <(want_hello "$W/hello.wasm") "$W/out" >/dev/null &&
	   [ -z "$(tmp_left)" ] &&
		ok unwritable-cache-dir-warns-and-runs ||
		bad unwritable-cache-dir-warns-and-runs "rc=$rc, leftovers: $(tmp_left)"
}

t_readonly_dir() {
	# Permission bits do not stop root: run as nobody when we are root.
	# nobody may not be able to enter the directory that holds the
	# checkout (a clone inside a private 0700 directory): it runs a copy of
	# the engine from the scratch dir, which the test opens up itself.
	local as="" engine=$MPIWASM
	if [ "$(id -u)" = 0 ]; then
		command -v runuser >/dev/null && id nobody >/dev/null 2>&1 || {
			echo "SKIP read-only-cache-dir: no runuser/nobody"; return; }
		as="runuser -u nobody --"
		chmod 755 "$W"
		chmod 1777 "$W/tmp"
		chmod 644 "$W/hello.wasm"
		mkdir -p "$W/bin" && cp "$MPIWASM" "$W/bin/mpiwasm" &&
			chmod 755 "$W/bin" "$W/bin/mpiwasm" && engine=$W/bin/mpiwasm
	fi
	# Ours (else it is refused as not safe) but not writable.
	mkdir -p "$W/c-ro" && chmod 555 "$W/c-ro"
	[ -n "$as" ] && chown nobody "$W/c-ro"
	MPIWASM_CACHE_DIR=$W/c-ro timeout "$T" $as env HOME=/nonexistent TMPDIR="$W/tmp" \
		"$engine" "$W/hello.wasm" a b >"$W/out" 2>"$W/err"
	rc=$?
	[ $rc = 0 ] && grep -q 'warning: cache dir .* is not usable (Permission denied)' "$W/err" &&
	   diff <(want_hello "$W/hello.wasm") "$W/out" >/dev/null &&
	   [ -z "$(ls -A "$W/c-ro")" ] && [ -z "$(tmp_left)" ] &&
		ok read-only-cache-dir-warns-and-runs ||
		bad read-only-cache-dir-warns-and-runs "rc=$rc left: $(ls -A "$W/c-ro") $(tmp_left)"
	chmod 700 "$W"
}

t_full_disk() {
	# A 16 KiB file system holds the lock and the compiler's identity but
	# not the object: the write fails with ENOSPC half-way.
	mkdir -p "$W/full"
	if ! mount -t tmpfs -o size=16k tmpfs "$W/full" 2>/dev/null; then
		echo "SKIP full-disk: cannot mount a small tmpfs (not root?)"
		return
	fi
	run "$W/full/cache" "$W/hello.wasm" a b
	# Left: the lock, the compiler's identity and compiled units that fit
	# (complete files the next build reuses), nothing half-written.
	local left; left=$(ls -A "$W/full/cache" | grep -Ev '\.lock$|^cc-|^u-[0-9a-f]{64}\.o$')
	[ $rc = 0 ] && grep -q 'warning: cannot store the compiled hello.wasm .*No space left on device' "$W/err" &&
	   diff <(want_hello "$W/hello.wasm") "$W/out" >/dev/null &&
	   [ -z "$left" ] && [ -z "$(tmp_left)" ] &&
		ok full-disk-warns-runs-leaves-nothing ||
		bad full-disk-warns-runs-leaves-nothing "rc=$rc left: $left $(tmp_left)"
	umount "$W/full"
}

# one_line NAME WANT_RC PATTERN: exactly one line on stderr matching PATTERN.
one_line() {
	if [ "$rc" = "$2" ] && [ "$(lines "$W/err")" = 1 ] && grep -Eq "$3" "$W/err"; then
		ok "$1"
	else
		bad "$1" "rc=$rc (want $2), stderr $(lines "$W/err") lines"
	fi
}

t_errors() {
	local c=$W/c-err log=$W/c-err.log
	run "$c" "$W/missing.wasm"
	one_line missing-file 2 '^mpiwasm: cannot open .*missing\.wasm: No such file'
	run "$c" --frobnicate "$W/hello.wasm"
	one_line unknown-option 2 "^mpiwasm: unknown option '--frobnicate'"
	run "$c" "$W/text.wasm"
	one_line not-a-wasm-file 2 '^mpiwasm: .*text\.wasm: not a WebAssembly module'
	cp /bin/true "$W/native.wasm"
	run "$c" "$W/native.wasm"
	one_line native-program-hint 2 'native\.wasm: not a WebAssembly module.*\(a native program\? compile the source with mpiwasm-cc\)'
	run "$c" -q "$W/malformed.wasm"
	one_line malformed-module 2 '^mpiwasm: .*malformed\.wasm'
	MPIWASM_CACHE_LOG=$log run "$c" -q "$W/unknown_import.wasm"
	if [ "$rc" = 2 ] && grep -q 'env.*nonexistent' "$W/err" && grep -q also_missing "$W/err" &&
	   [ "$(grep -vc '^mpiwasm: ' "$W/err")" = 0 ] && [ "$(compiles "$log")" = 0 ]; then
		ok unknown-import-refused-before-compiling
	else
		bad unknown-import-refused-before-compiling "rc=$rc compiles=$(compiles "$log")"
	fi
	run "$c" -q "$W/nostart.wasm"
	one_line no-start-export 2 '^mpiwasm: .*nostart\.wasm: no exported function _start'
	run "$c"
	[ $rc = 2 ] && ok no-arguments || bad no-arguments "rc=$rc"
	run "$c" --dir "$W/does-not-exist" -q "$W/hello.wasm"
	one_line bad-dir-option 2 'does-not-exist'
}

t_exit_status() {
	run "$W/c-exit" -q "$W/exit3.wasm"
	[ $rc = 3 ] && grep -q 'leaving with 3' "$W/out" && ok proc-exit-3 || bad proc-exit-3 "rc=$rc"
}

t_exceptions() {
	run "$W/c-exc" -q "$W/uncaught.wasm"
	if [ $rc = 134 ] && [ "$(lines "$W/err")" = 1 ] &&
	   grep -Eq '^mpiwasm: trap: uncaught wasm exception \(tag 0\) in thrower \(function 0\)$' "$W/err"; then
		ok uncaught-exception-message
	else
		bad uncaught-exception-message "rc=$rc (want 134)"
	fi
	run "$W/c-exc" -q "$W/cxa_throw.wasm"
	if [ $rc = 134 ] && grep -q 'C++ exception thrown before MPI was initialized' "$W/err" &&
	   ! grep -q 'rank -1' "$W/err"; then
		ok cxa-throw-before-mpi-init-message
	else
		bad cxa-throw-before-mpi-init-message "rc=$rc (want 134)"
	fi
}

t_trap() {
	# From C: Debian's wasm-ld writes no name section, so the function may
	# be given by number only.
	run "$W/c-trap" -q "$W/trap.wasm"
	if [ $rc = 134 ] && [ "$(lines "$W/err")" = 1 ] &&
	   grep -Eq '^mpiwasm: trap: integer divide by zero in (.+ \()?function [0-9]+\)?$' "$W/err" &&
	   grep -q 'before the trap' "$W/out"; then
		ok trap-message
	else
		bad trap-message "rc=$rc (want 134)"
	fi
	run "$W/c-trap" -q "$W/trap_named.wasm"
	if [ $rc = 134 ] && [ "$(lines "$W/err")" = 1 ] &&
	   grep -Eq '^mpiwasm: trap: integer divide by zero in divide \(function 0\)$' "$W/err"; then
		ok trap-message-names-function
	else
		bad trap-message-names-function "rc=$rc (want 134)"
	fi
	if [ $have_named = 0 ]; then
		bad trap-names-function-at-O2 "mpiwasm-cc could not build named_trap.c: $(head -3 "$W/named.err")"
		return
	fi
	run "$W/c-trap" -q "$W/named_O2.wasm"
	if [ $rc = 134 ] && [ "$(lines "$W/err")" = 1 ] &&
	   grep -Eq '^mpiwasm: trap: integer divide by zero in divide_by \(function [0-9]+\)$' "$W/err"; then
		ok trap-names-function-at-O2
	else
		bad trap-names-function-at-O2 "rc=$rc (want 134)"
	fi
	local f
	for f in named_O2_s named_O2_sa; do
		run "$W/c-trap" -q "$W/$f.wasm"
		[ $rc = 134 ] && grep -Eq '^mpiwasm: trap: integer divide by zero in function [0-9]+$' "$W/err" &&
			ok "stripped-$f-has-no-names" || bad "stripped-$f-has-no-names" "rc=$rc"
	done
}

t_wasi() {
	mkdir -p "$W/data"
	run "$W/c-wasi" -q --dir "$W/data:/data" --env GREETING=hi --env HELLO_DIR=/data \
		"$W/hello.wasm" x
	[ $rc = 0 ] && grep -q '^GREETING = hi$' "$W/out" &&
	   grep -q '^read back: written by hello.wasm$' "$W/out" &&
	   grep -q 'written by hello.wasm' "$W/data/hello.txt" &&
		ok dir-and-env || bad dir-and-env "rc=$rc"
	rm -f "$W/data/hello.txt"
	(cd "$W" && MPIWASM_CACHE_DIR=$W/c-wasi timeout "$T" "$MPIWASM" -q -d data \
		--env HELLO_DIR=/data hello.wasm >"$W/out" 2>"$W/err")
	rc=$?
	[ $rc = 0 ] && [ -f "$W/data/hello.txt" ] && ok d-option-maps-to-slash-dir ||
		bad d-option-maps-to-slash-dir "rc=$rc"
	GREETING=inherited run "$W/c-wasi" -q --inherit-env "$W/hello.wasm"
	[ $rc = 0 ] && grep -q '^GREETING = inherited$' "$W/out" && ok inherit-env ||
		bad inherit-env "rc=$rc"
	GREETING=inherited run "$W/c-wasi" -q "$W/hello.wasm"
	[ $rc = 0 ] && grep -q '^GREETING = (unset)$' "$W/out" && ok no-env-by-default ||
		bad no-env-by-default "rc=$rc"
}

t_wasi_more() {
	mkdir -p "$W/rodata"
	run "$W/c-wasi" -q --dir-ro "$W/rodata:/data" --env HELLO_DIR=/data "$W/hello.wasm"
	[ $rc = 1 ] && [ ! -e "$W/rodata/hello.txt" ] && ok dir-ro-refuses-writes ||
		bad dir-ro-refuses-writes "rc=$rc, file: $(ls "$W/rodata")"
	GREETING=inherited run "$W/c-wasi" -q --inherit-env --env GREETING=given "$W/hello.wasm"
	[ $rc = 0 ] && grep -q '^GREETING = given$' "$W/out" && ok env-overrides-inherited ||
		bad env-overrides-inherited "rc=$rc"
	run "$W/c-wasi" -q --env =oops "$W/hello.wasm"
	one_line env-needs-a-name 2 'NAME=VALUE or NAME'
	# --env NAME: the host's value, as docker run --env NAME.
	GREETING=from-host run "$W/c-wasi" -q --env GREETING "$W/hello.wasm"
	[ $rc = 0 ] && grep -q '^GREETING = from-host$' "$W/out" && ok env-name-passes-host-value ||
		bad env-name-passes-host-value "rc=$rc: $(grep GREETING "$W/out")"
	(unset GREETING; run "$W/c-wasi" -q --env GREETING "$W/hello.wasm"
	 [ $rc = 0 ] && grep -q '^GREETING = (unset)$' "$W/out") && ok env-name-unset-stays-unset ||
		bad env-name-unset-stays-unset "$(grep GREETING "$W/out")"
}

t_key_has_compiler() {
	command -v clang-19 >/dev/null || { echo "SKIP key-has-compiler: no clang-19"; return; }
	local c=$W/c-key log=$W/c-key.log
	MPIWASM_CACHE_LOG=$log run "$c" -q "$W/hello.wasm"
	MPIWASM_CC=clang-19 MPIWASM_CACHE_LOG=$log run "$c" -q "$W/hello.wasm"
	local n; n=$(ls "$c"/*.so 2>/dev/null | wc -l)
	[ $rc = 0 ] && [ "$(compiles "$log")" = 2 ] && [ "$n" = 2 ] &&
		ok other-compiler-other-entry || bad other-compiler-other-entry "rc=$rc entries=$n"
	MPIWASM_CC=clang-19 MPIWASM_CACHE_LOG=$log run "$c" -q "$W/hello.wasm"
	[ $rc = 0 ] && [ "$(compiles "$log")" = 2 ] && ok each-compiler-its-own-hit ||
		bad each-compiler-its-own-hit "rc=$rc compiles=$(compiles "$log")"
}

t_cache_cmds() {
	local c=$W/c-cmd log=$W/c-cmd.log
	MPIWASM_CACHE_LOG=$log run "$c" compile "$W/hello.wasm"
	[ $rc = 0 ] && [ "$(compiles "$log")" = 1 ] && ok compile-command ||
		bad compile-command "rc=$rc"
	MPIWASM_CACHE_LOG=$log run "$c" run --timings "$W/hello.wasm" a b
	[ $rc = 0 ] && [ "$(compiles "$log")" = 1 ] && grep -q '(cache hit)' "$W/err" &&
		ok run-after-compile-is-a-hit || bad run-after-compile-is-a-hit "rc=$rc"
	run "$c" cache show
	[ $rc = 0 ] && grep -q "^cache dir: $c\$" "$W/out" &&
	   grep -Eq '^[0-9a-f]{64} +[0-9]+ +[0-9]+[smhd]  hello\.wasm$' "$W/out" &&
	   grep -q '^1 entry' "$W/out" && ok cache-show || bad cache-show "rc=$rc: $(cat "$W/out")"
	[ -n "$(ls "$c" | grep '\.lock$')" ] && ! grep -q 'lock' "$W/out" && ok cache-show-omits-lock-files ||
		bad cache-show-omits-lock-files "locks: $(ls "$c" | grep lock), shown: $(grep lock "$W/out")"
	# Options after the action word, as after the module of compile.
	run "$W" cache show --cache-dir "$c"
	[ $rc = 0 ] && grep -q "^cache dir: $c\$" "$W/out" && grep -q '^1 entry' "$W/out" &&
		ok cache-show-option-after-action || bad cache-show-option-after-action "rc=$rc: $(cat "$W/out")"
	run "$W/c-unused" compile "$W/hello.wasm" --cache-dir "$c" -q
	[ $rc = 0 ] && [ ! -s "$W/out" ] && [ ! -e "$W/c-unused" ] &&
		ok compile-options-after-module || bad compile-options-after-module "rc=$rc"
	run "$c" cache clean
	[ $rc = 0 ] && [ -z "$(ls -A "$c")" ] && ok cache-clean-removes-locks-too ||
		bad cache-clean-removes-locks-too "rc=$rc: $(ls -A "$c")"
	# compile: one line, not also "compiling ...".
	run "$c" compile "$W/hello.wasm"
	[ $rc = 0 ] && [ ! -s "$W/err" ] && [ "$(lines "$W/out")" = 1 ] &&
	   grep -q '^mpiwasm: .*hello\.wasm: compiled and cached as ' "$W/out" &&
		ok compile-prints-one-line || bad compile-prints-one-line "rc=$rc: $(cat "$W/err" "$W/out")"
	run "$c" cache clean
	[ $rc = 0 ] && [ -z "$(ls -A "$c")" ] && ok cache-clean || bad cache-clean "rc=$rc: $(ls -A "$c")"
	run "$c" cache show
	[ $rc = 0 ] && grep -q '^0 entries' "$W/out" && ok cache-show-empty || bad cache-show-empty "rc=$rc"
	run "$c" cache frob
	one_line cache-unknown-action 2 "unknown action 'frob'"
}

# A rebuilt module reuses the compiled units of the old one (src/cache,
# "compiled units"): a module of many functions, then the same program with
# one function changed (only its unit compiled again), then with only a
# string changed (nothing compiled: the link alone); and a kept unit that
# is damaged (hello.wasm's only one, truncated) makes the next build with
# it (hello2.wasm: the same code) compile again and run.  Outputs compared
# with the native build.
t_units() {
	# The module's C is over 512 KB (several units); --tier=1 keeps the
	# test on the ordinary compile, whose units are kept, whatever the
	# tiering threshold.
	local c=$W/c-units d=$W/units n
	mkdir -p "$d"
	sh "$root/bench/kernels/gen-big.sh" 200 > "$d/a.c" || { bad units-setup "gen-big.sh failed"; return; }
	n=$(grep -n 'uint32_t acc = x ^ ' "$d/a.c" | sed -n 150p | cut -d: -f1)
	sed "${n}s/acc = x ^ [0-9]*u;/acc = x ^ 77u;/" "$d/a.c" > "$d/b.c"
	sed 's/"big: /"BIG: /' "$d/b.c" > "$d/c.c"
	local v
	for v in a b c; do
		if ! $WASM_CC -O1 "$d/$v.c" -o "$d/$v.wasm" || ! cc -O0 "$d/$v.c" -o "$d/$v.native" ||
		   ! "$d/$v.native" > "$d/$v.want"; then
			bad units-setup "cannot build $v.c"; return
		fi
	done
	run "$c" -q -t --tier=1 "$d/a.wasm"
	local total
	total=$(sed -n 's/.*cache miss; 0 of \([0-9]*\) units compiled before.*/\1/p' "$W/err")
	[ $rc = 0 ] && [ -n "$total" ] && [ "$total" -ge 3 ] && diff -q "$d/a.want" "$W/out" >/dev/null &&
		ok units-first-compile || { bad units-first-compile "rc=$rc units=${total:-?}"; return; }
	run "$c" -q -t --tier=1 "$d/b.wasm"
	[ $rc = 0 ] && grep -q "cache miss; $((total - 1)) of $total units compiled before" "$W/err" &&
	   diff -q "$d/b.want" "$W/out" >/dev/null &&
		ok units-one-function-changed || bad units-one-function-changed "rc=$rc"
	run "$c" -q -t --tier=1 "$d/c.wasm"
	[ $rc = 0 ] && grep -q "cache miss; $total of $total units compiled before" "$W/err" &&
	   diff -q "$d/c.want" "$W/out" >/dev/null &&
		ok units-only-data-changed || bad units-only-data-changed "rc=$rc"
	local cd=$W/c-units-dmg u
	run "$cd" -q "$W/hello.wasm" a b
	for u in "$cd"/u-*.o; do truncate -s 100 "$u"; done
	run "$cd" -q -t "$W/hello2.wasm" a b
	[ $rc = 0 ] && grep -q "cache miss; 0 of 1 units compiled before" "$W/err" &&
	   diff <(want_hello "$W/hello2.wasm") "$W/out" >/dev/null &&
		ok units-damaged-compiled-again || bad units-damaged-compiled-again "rc=$rc"
}

t_cc_identity_cached() {
	local c=$W/c-ccid wrap=$W/cc-counting
	printf '#!/bin/sh\necho "$*" >> %s/cc-calls\nexec cc "$@"\n' "$W" > "$wrap"
	chmod +x "$wrap"
	: > "$W/cc-calls"
	MPIWASM_CC=$wrap run "$c" -q "$W/hello.wasm"
	MPIWASM_CC=$wrap run "$c" -q "$W/hello.wasm"
	local nv; nv=$(grep -c '^-v$' "$W/cc-calls")
	[ $rc = 0 ] && [ "$nv" = 1 ] && ok cc-identity-computed-once || bad cc-identity-computed-once "cc -v ran $nv times"
}

t_compiler_failure() {
	local c=$W/c-ccfail wrap=$W/cc-failing
	printf '#!/bin/sh\n[ "$*" = -v ] && exec cc -v\necho "fake-cc: deliberate failure" >&2\nexit 1\n' > "$wrap"
	chmod +x "$wrap"
	MPIWASM_CC=$wrap run "$c" -q "$W/hello2.wasm"
	if [ $rc = 1 ] && grep -q 'fake-cc: deliberate failure' "$W/err" &&
	   grep -q '^mpiwasm: .*hello2\.wasm: cache: C compiler .* failed' "$W/err" &&
	   [ -z "$(ls -A "$c" | grep -v '\.lock$' | grep -v '^cc-')" ] && [ -z "$(tmp_left)" ]; then
		ok compiler-failure-shown-and-cleaned
	else
		bad compiler-failure-shown-and-cleaned "rc=$rc, left: $(ls -A "$c" "$W/tmp")"
	fi
}

t_signal_cleanup() {
	local c=$W/c-sig wrap=$W/cc-slow
	# Slow only when linking, i.e. when the temp object is being written.
	printf '#!/bin/sh\ncase "$*" in *-shared*) sleep 29.71;; esac\nexec cc "$@"\n' > "$wrap"
	chmod +x "$wrap"
	MPIWASM_CC=$wrap MPIWASM_CACHE_DIR=$c "$MPIWASM" "$W/hello2.wasm" >"$W/out" 2>"$W/err" &
	local p=$! i
	for i in $(seq 1 600); do
		pgrep -f "sleep 29.71" >/dev/null && break
		sleep 0.1
	done
	kill -TERM $p
	wait $p
	rc=$?
	# The killed compiler's group is gone once init has reaped it: on a
	# loaded machine that takes a moment.
	for i in $(seq 1 50); do
		pgrep -f "sleep 29.71" >/dev/null || break
		sleep 0.1
	done
	local left; left=$( { ls -A "$c"; tmp_left; } | grep -E '\.so|\.meta|\.tmp|mpiwasm-')
	[ $rc = 143 ] && [ -z "$left" ] && ! pgrep -f "sleep 29.71" >/dev/null &&
		ok sigterm-during-compile-leaves-nothing ||
		bad sigterm-during-compile-leaves-nothing "rc=$rc left: $left"
}

# A compiler that, while compiling a unit, leaves a temp file in its
# $TMPDIR (as gcc's cc*.s without -pipe), records its arguments, TMPDIR and
# process group, then sleeps: the build can be interrupted at that point.
slow_cc() {
	cat > "$W/cc-slow-unit" <<-EOF
	#!/bin/sh
	case "\$*" in
	*" -c "*)
		[ -e "$W/slow-on" ] || exec cc "\$@"
		echo "\$TMPDIR \$*" >> "$W/slow-args"
		echo leftover > "\$TMPDIR/ccFAKE\$\$.s"
		echo \$\$ >> "$W/slow-pgids"
		sleep 29.72 ;;
	esac
	exec cc "\$@"
	EOF
	chmod +x "$W/cc-slow-unit"
	: > "$W/slow-args"
	: > "$W/slow-pgids"
	: > "$W/slow-on"
}
wait_slow() {   # until a compiler sleeps (at most 60 s)
	local i
	for i in $(seq 1 600); do
		[ -s "$W/slow-pgids" ] && return 0
		sleep 0.1
	done
	return 1
}
kill_slow() {   # the compilers the test started, by process group
	local g
	for g in $(cat "$W/slow-pgids"); do kill -KILL -- "-$g" 2>/dev/null; done
	rm -f "$W/slow-on"
}

t_interrupt_compile() {
	local c=$W/c-int p rc2 left
	slow_cc
	# Ctrl-C: SIGINT to the process group of mpiwasm (setsid makes one).
	MPIWASM_CC=$W/cc-slow-unit MPIWASM_CACHE_DIR=$c setsid "$MPIWASM" "$W/hello.wasm" \
		>"$W/out" 2>"$W/err" &
	p=$!
	wait_slow
	kill -INT -- "-$p" 2>/dev/null || kill -INT "$p"
	wait "$p"
	rc=$?
	sleep 0.2
	left=$( { ls -A "$c"; tmp_left; } | grep -Ev '\.lock$|^cc-.*\.id$')
	[ $rc = 130 ] && [ -z "$left" ] && ok sigint-during-compile-leaves-nothing ||
		bad sigint-during-compile-leaves-nothing "rc=$rc left: $left"
	# The compiler ran with -pipe and a TMPDIR inside the cache dir.
	grep -q "^$c/\.tmp-[0-9a-f]\{64\}-[0-9]*-.* -pipe " "$W/slow-args" &&
		ok compiler-gets-pipe-and-private-tmpdir ||
		bad compiler-gets-pipe-and-private-tmpdir "$(head -c 300 "$W/slow-args")"
	kill_slow

	# SIGKILL: nothing can clean up; what is left is a .tmp-KEY-* dir in
	# the cache dir, removed by the next build of that module.
	slow_cc
	MPIWASM_CC=$W/cc-slow-unit MPIWASM_CACHE_DIR=$c "$MPIWASM" -q "$W/hello.wasm" \
		>"$W/out" 2>"$W/err" &
	p=$!
	wait_slow
	kill -KILL "$p"
	wait "$p" 2>/dev/null
	kill_slow
	left=$(ls -A "$c" | grep '^\.tmp-')
	MPIWASM_CC=$W/cc-slow-unit run "$c" -q "$W/hello.wasm" a b
	rc2=$rc
	[ -n "$left" ] && [ -z "$(tmp_left)" ] && [ $rc2 = 0 ] &&
	   [ -z "$(ls -A "$c" | grep '^\.tmp-')" ] &&
		ok sigkill-leftovers-removed-by-next-build ||
		bad sigkill-leftovers-removed-by-next-build "after kill: '$left', rc=$rc2, then: $(ls -A "$c" "$W/tmp")"
	# ... and by cache clean (another program: hello2.wasm's code is
	# hello.wasm's, whose compiled units the cache now keeps).
	slow_cc
	MPIWASM_CC=$W/cc-slow-unit MPIWASM_CACHE_DIR=$c "$MPIWASM" -q "$W/exit3.wasm" \
		>"$W/out" 2>"$W/err" &
	p=$!
	wait_slow
	kill -KILL "$p"
	wait "$p" 2>/dev/null
	kill_slow
	left=$(ls -A "$c" | grep '^\.tmp-')
	run "$c" cache clean
	[ -n "$left" ] && [ $rc = 0 ] && [ -z "$(ls -A "$c")" ] &&
		ok cache-clean-removes-killed-builds ||
		bad cache-clean-removes-killed-builds "rc=$rc after kill: '$left', then: $(ls -A "$c")"

	# Ctrl-C of an MPI job during its first compile: the launcher gets
	# SIGINT and ends the ranks however it does; nothing may be left
	# outside the cache dir, and the next run leaves no .tmp-* either.
	if [ $have_mpi = 0 ]; then echo "SKIP sigint-mpi-job: no mpi module"; return; fi
	slow_cc
	c=$W/c-int-mpi
	MPIWASM_CC=$W/cc-slow-unit MPIWASM_CACHE_DIR=$c setsid $MPIRUN -np 2 "$MPIWASM" \
		"$W/mpi_ring.wasm" >"$W/out" 2>"$W/err" &
	p=$!
	wait_slow
	sleep 0.5
	kill -INT -- "-$p" 2>/dev/null || kill -INT "$p"
	local i
	for i in $(seq 1 300); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	kill -KILL -- "-$p" 2>/dev/null
	wait "$p"
	rc=$?
	kill_slow
	sleep 0.2
	left=$(tmp_left)
	MPIWASM_CC=$W/cc-slow-unit MPIWASM_CACHE_DIR=$c timeout 120 $MPIRUN -np 2 "$MPIWASM" -q \
		"$W/mpi_ring.wasm" >"$W/out" 2>"$W/err"
	rc2=$?
	[ $rc != 0 ] && [ -z "$left" ] && [ $rc2 = 0 ] && [ -z "$(ls -A "$c" | grep '^\.tmp-')" ] &&
		ok sigint-mpi-job-during-compile-leaves-nothing ||
		bad sigint-mpi-job-during-compile-leaves-nothing "rc=$rc, in TMPDIR: '$left', rerun rc=$rc2, cache: $(ls -A "$c")"
}

# mpirun NP ARGS...: a job with a bounded run time, output as for run().
mpirun_() {
	local np=$1; shift
	MPIWASM_CACHE_DIR=$W/c-mpi timeout 120 $MPIRUN -np "$np" "$MPIWASM" "$@" >"$W/out" 2>"$W/err"
	rc=$?
}

t_mpi() {
	if [ $have_mpi = 0 ]; then
		echo "SKIP mpi tests: no working $MPIWASM_CC_DRIVER ($(head -1 "$W/mpicc.err" 2>/dev/null))"
		return
	fi
	mpirun_ 2 -q "$W/mpi_ring.wasm"
	[ $rc = 0 ] && grep -q 'ring of 2: token 2 (expect 2), sum of ranks 1 (expect 1)' "$W/out" &&
		ok mpi-ring-2-ranks || bad mpi-ring-2-ranks "rc=$rc"
	local t0=$SECONDS
	mpirun_ 2 -q "$W/mpi_fault.wasm" trap
	[ $rc != 0 ] && [ $rc != 124 ] &&
	   grep -Eq '^mpiwasm: rank 1: trap: integer divide by zero in (.+ \()?function [0-9]+\)?$' "$W/err" &&
		ok mpi-trap-in-one-rank-ends-job || bad mpi-trap-in-one-rank-ends-job "rc=$rc after $((SECONDS - t0)) s"
	t0=$SECONDS
	mpirun_ 2 -q "$W/mpi_fault.wasm" exit
	[ $rc != 0 ] && [ $rc != 124 ] && grep -q 'without MPI_Finalize' "$W/err" &&
		ok mpi-exit-without-finalize-ends-job ||
		bad mpi-exit-without-finalize-ends-job "rc=$rc after $((SECONDS - t0)) s"
}

# ---- tiered start (src/load) -------------------------------------------------
# The tier-1 compile runs at the module's own priority (the default; set
# here so that a user's setting cannot starve it on a loaded machine).
export MPIWASM_TIER1_NICE=0

# tier_bg NAME CACHE ARGS...: mpiwasm in the background, stdout and stderr
# in $W/NAME.out and $W/NAME.err; its pid in $bgpid.
tier_bg() {
	local n=$1 c=$2; shift 2
	MPIWASM_CACHE_DIR=$c timeout "$T" "$MPIWASM" "$@" >"$W/$n.out" 2>"$W/$n.err" &
	bgpid=$!
}
# tier_wait FILE REGEX: until FILE has a line matching REGEX (240 s at most).
tier_wait() {
	local i
	for i in $(seq 1 480); do
		grep -Eq "$2" "$1" 2>/dev/null && return 0
		sleep 0.5
	done
	return 1
}
# Processes whose command line names cache dir $1 (compilers of its builds).
tier_procs() { pgrep -af -- "$1/" | grep -v pgrep; }

t_tier() {
	local c=$W/c-tier fl=$W/tierflag want w1 w0
	mkdir -p "$fl"
	# Forced: a small module starts on tier 0 with the output of before.
	run "$c" -q -t --tier=up "$W/hello.wasm" a b
	[ $rc = 0 ] && diff <(want_hello "$W/hello.wasm") "$W/out" >/dev/null &&
	   grep -q 'tier 0 by [^ ]* -O0' "$W/err" &&
		ok tier-forced-hello-same-output || bad tier-forced-hello-same-output "rc=$rc"
	# Automatic: a small module is compiled as before, not tiered.
	run "$W/c-tier-small" -q -t "$W/hello.wasm" a b
	[ $rc = 0 ] && grep -q 'cache miss; 0 of 1 units compiled before)' "$W/err" &&
	   ! grep -q 'tier' "$W/err" &&
		ok tier-auto-small-module-untiered || bad tier-auto-small-module-untiered "rc=$rc"
	# Tier 0 alone and tier 1 alone compute the same; a trap found by its
	# code address names the same function, with the trap's status.
	run "$W/c-tier0" -q --tier=0 "$W/tier_loop.wasm" - 0 oob
	w0=$(grep '^mpiwasm: trap' "$W/err"); want=$(cat "$W/out")
	run "$W/c-tier0" -q --tier=1 "$W/tier_loop.wasm" - 0
	w1=$(cat "$W/out")
	[ $rc = 0 ] && [ -n "$want" ] && [ "$want" = "$w1" ] &&
	   [[ "$w0" =~ ^mpiwasm:\ trap:\ out\ of\ bounds\ memory\ access\ in\ function\ [0-9]+$ ]] &&
		ok tier0-and-tier1-same-output || bad tier0-and-tier1-same-output "rc=$rc [$want] [$w1] [$w0]"
	run "$W/c-tier0" -q --tier=0 "$W/trap.wasm"
	[ $rc = 134 ] && grep -Eq '^mpiwasm: trap: integer divide by zero in (.+ \()?function [0-9]+\)?$' "$W/err" &&
	   grep -q 'before the trap' "$W/out" &&
		ok tier0-trap-status-134 || bad tier0-trap-status-134 "rc=$rc"
	run "$W/c-tier0" -q --tier=0 "$W/exit3.wasm"
	[ $rc = 3 ] && ok tier0-proc-exit-3 || bad tier0-proc-exit-3 "rc=$rc"
	# Exception handling (tier 0 by the tier-1 compiler: setjmp buffers of
	# one compiler) and threads sharing one memory, on tier 0.
	run "$W/c-tier0" -q --tier=0 "$W/uncaught.wasm"
	[ $rc = 134 ] && grep -Eq '^mpiwasm: trap: uncaught wasm exception \(tag 0\) in thrower \(function 0\)$' "$W/err" &&
		ok tier0-uncaught-exception || bad tier0-uncaught-exception "rc=$rc"
	if [ -x "$MPIWASM_CC_DRIVER" ] &&
	   "$MPIWASM_CC_DRIVER" -O1 -pthread "$root/tests/threads/progs/t_mutex.c" -o "$W/t_mutex.wasm" 2>"$W/err"; then
		run "$W/c-tier0" -q --tier=1 "$W/t_mutex.wasm"; w1=$(cat "$W/out"); local r1=$rc
		run "$W/c-tier0" -q --tier=0 "$W/t_mutex.wasm"
		[ $rc = 0 ] && [ $r1 = 0 ] && [ -n "$w1" ] && [ "$(cat "$W/out")" = "$w1" ] &&
			ok tier0-threads-same-output || bad tier0-threads-same-output "rc=$rc/$r1"
	else
		bad tier0-threads-same-output "cannot build t_mutex.c with $MPIWASM_CC_DRIVER -pthread"
	fi
	# A running module switches to tier 1; then it traps there, and the
	# trap names the function as tier 0 did.
	rm -f "$fl/go"
	tier_bg up "$c" -t --tier=up --dir "$fl" "$W/tier_loop.wasm" "$fl/go" 240 oob
	local p=$bgpid
	tier_wait "$W/up.err" '^mpiwasm: tier 1 active after [0-9.]+ s \([0-9]+ functions; compiled by this process\)$'
	touch "$fl/go"
	wait $p; rc=$?
	cp "$W/up.err" "$W/err"
	if [ $rc = 134 ] && [ "$(cat "$W/up.out")" = "$want" ] &&
	   grep -q '^mpiwasm: tier 1 active after' "$W/up.err" &&
	   grep -q 'tier 0 by [^ ]* -O0, tier 1 active after' "$W/up.err" &&
	   [ "$(grep '^mpiwasm: trap' "$W/up.err")" = "$w0" ]; then
		ok tier-switches-to-tier1-and-traps-there
	else
		bad tier-switches-to-tier1-and-traps-there "rc=$rc, trap line '$(grep '^mpiwasm: trap' "$W/up.err")', want '$w0'"
	fi
	# The next run finds tier 1 in the cache: loaded as any entry.
	run "$c" -q -t "$W/tier_loop.wasm" - 0
	[ $rc = 0 ] && [ "$(cat "$W/out")" = "$want" ] && grep -q '(cache hit)' "$W/err" &&
	   ! grep -q 'tier 0' "$W/err" &&
		ok tier1-from-cache-next-run || bad tier1-from-cache-next-run "rc=$rc"
	# The module ends while tier 1 compiles: no compiler and no temp file
	# are left, and no tier-1 entry was installed.
	local ce=$W/c-tier-exit
	run "$ce" -q -t --tier=up "$W/tier_loop.wasm" - 0
	local left; left=$(tier_procs "$ce")
	if [ $rc = 0 ] && [ "$(cat "$W/out")" = "$want" ] &&
	   grep -q 'tier 1 not active' "$W/err" && [ -z "$left" ] &&
	   [ -z "$(ls -A "$ce" | grep '^\.tmp')" ] && [ "$(ls "$ce" | grep -c '\.so$')" = 1 ] &&
	   [ -z "$(tmp_left)" ]; then
		ok tier-exit-leaves-no-compiler-or-temp
	else
		bad tier-exit-leaves-no-compiler-or-temp "rc=$rc, left: $left $(ls -A "$ce")"
	fi
	# Two processes at once: one compile of each tier, both switch.
	local c2=$W/c-tier-two log=$W/tier-two.log
	rm -f "$fl/go"
	MPIWASM_CACHE_LOG=$log tier_bg two1 "$c2" -q -t --tier=up --dir "$fl" "$W/tier_loop.wasm" "$fl/go" 240
	local p1=$bgpid
	MPIWASM_CACHE_LOG=$log tier_bg two2 "$c2" -q -t --tier=up --dir "$fl" "$W/tier_loop.wasm" "$fl/go" 240
	local p2=$bgpid
	tier_wait "$W/two1.err" '^mpiwasm: tier 1 active' && tier_wait "$W/two2.err" '^mpiwasm: tier 1 active'
	touch "$fl/go"
	wait $p1; local r1=$?
	wait $p2; local r2=$?
	cat "$W/two1.err" "$W/two2.err" > "$W/err"
	if [ $r1 = 0 ] && [ $r2 = 0 ] && [ "$(cat "$W/two1.out")" = "$want" ] &&
	   [ "$(cat "$W/two2.out")" = "$want" ] && [ "$(compiles "$log")" = 2 ] &&
	   [ "$(cut -d' ' -f2 "$log" | sort -u | wc -l)" = 2 ] &&
	   [ "$(grep -c 'compiled by this process' "$W/err")" = 1 ] &&
	   [ "$(grep -c 'compiled by another process' "$W/err")" = 1 ]; then
		ok tier-two-processes-one-compile-per-tier
	else
		bad tier-two-processes-one-compile-per-tier "rc=$r1/$r2, compiles $(compiles "$log")"
	fi
	# A tier-1 compile that fails: one warning line, the module goes on at
	# tier 0, nothing installed for tier 1.
	local cf=$W/c-tier-fail wrap=$W/cc-tier1-failing
	printf '#!/bin/sh\n[ "$*" = -v ] && exec cc -v\necho "fake-cc: deliberate failure" >&2\nexit 1\n' > "$wrap"
	chmod +x "$wrap"
	rm -f "$fl/go"
	MPIWASM_CC=$wrap MPIWASM_TIER0_CC=clang-19 tier_bg fail "$cf" -q --tier=up --dir "$fl" \
		"$W/tier_loop.wasm" "$fl/go" 240
	p=$bgpid
	tier_wait "$W/fail.err" 'warning: tier 1'
	touch "$fl/go"
	wait $p; rc=$?
	cp "$W/fail.err" "$W/err"
	if [ $rc = 0 ] && [ "$(cat "$W/fail.out")" = "$want" ] &&
	   [ "$(grep -c '^mpiwasm: warning' "$W/fail.err")" = 1 ] &&
	   grep -q '^mpiwasm: warning: tier 1 not compiled (.*C compiler .* failed.*); going on at tier 0$' "$W/fail.err" &&
	   [ "$(grep -vc '^tier_loop: ' "$W/fail.err")" = 1 ] &&
	   [ "$(ls "$cf" | grep -c '\.so$')" = 1 ] && [ -z "$(ls -A "$cf" | grep '^\.tmp')" ] &&
	   [ -z "$(tier_procs "$cf")" ]; then
		ok tier1-compile-failure-one-warning
	else
		bad tier1-compile-failure-one-warning "rc=$rc, $(ls -A "$cf")"
	fi
	# An MPI job of 2 ranks: both start on tier 0 compiled once.
	if [ $have_mpi = 0 ]; then
		bad tier-mpi-2-ranks "no working $MPIWASM_CC_DRIVER"
		return
	fi
	local lm=$W/tier-mpi.log
	MPIWASM_CACHE_DIR=$W/c-tier-mpi MPIWASM_CACHE_LOG=$lm timeout 120 $MPIRUN -np 2 \
		"$MPIWASM" -q -t --tier=up "$W/mpi_ring.wasm" >"$W/out" 2>"$W/err"
	rc=$?
	[ $rc = 0 ] && grep -q 'ring of 2: token 2 (expect 2), sum of ranks 1 (expect 1)' "$W/out" &&
	   [ "$(grep -c 'tier 0 \(by\|cached, of\) [^ ]* -O0' "$W/err")" = 2 ] &&
	   [ "$(grep '^compile ' "$lm" | cut -d' ' -f2 | sort | uniq -d)" = "" ] &&
	   [ -z "$(tier_procs "$W/c-tier-mpi")" ] && [ -z "$(ls -A "$W/c-tier-mpi" | grep '^\.tmp')" ] &&
		ok tier-mpi-2-ranks || bad tier-mpi-2-ranks "rc=$rc"
}

# ---- trust of the cache dir (ssh's model) ---------------------------------
# A planted entry: planted.so, whose constructor writes $EVIL_MARKER, under
# hello.wasm's key with a record that matches it (size and checksum), as a
# user who can write someone's cache dir could make.
plant_setup() {
	[ -f "$W/planted.so" ] && return 0
	cc -shared -fPIC -O1 "$here/planted.c" -o "$W/planted.so" || return 1
	run "$W/c-plantkey" -q "$W/hello.wasm"
	local so; so=$(ls "$W"/c-plantkey/*.so 2>/dev/null)
	[ -n "$so" ] || return 1
	PKEY=$(basename "$so" .so)
	local sz sum
	sz=$(stat -c %s "$W/planted.so")
	sum=$(sha256sum "$W/planted.so" | cut -d' ' -f1)
	sed -e "s/^size .*/size $sz/" -e "s/^sha256 .*/sha256 $sum/" \
		"$W/c-plantkey/$PKEY.meta" > "$W/planted.meta"
}
# plant DIR [link]: the entry in DIR (the object a symlink with "link").
plant() {
	mkdir -p "$1"
	if [ "${2:-}" = link ]; then
		cp "$W/planted.so" "$W/planted-outside.so"
		ln -sf "$W/planted-outside.so" "$1/$PKEY.so"
	else
		cp "$W/planted.so" "$1/$PKEY.so"
	fi
	cp "$W/planted.meta" "$1/$PKEY.meta"
}
# trusted_run NAME DIR WANT: hello.wasm runs with cache dir DIR, the
# planted code never runs, and stderr is exactly the lines matching WANT
# (an extended regex; "" for none).
trusted_run() {
	local name=$1 c=$2 want=$3 before after
	rm -f "$W/marker"
	before=$(ls -lA --time-style=+%s.%N "$c" 2>/dev/null)
	EVIL_MARKER=$W/marker run "$c" "$W/hello.wasm" a b
	after=$(ls -lA --time-style=+%s.%N "$c" 2>/dev/null)
	local nl; nl=$(grep -vc '^mpiwasm: compiling' "$W/err")
	if [ $rc != 0 ] || ! diff <(want_hello "$W/hello.wasm") "$W/out" >/dev/null; then
		bad "$name" "rc=$rc or output wrong"
	elif [ -e "$W/marker" ]; then
		bad "$name" "the planted object was loaded: $(cat "$W/marker")"
	elif [ -n "$want" ] && { [ "$nl" != 1 ] || ! grep -Eq "$want" "$W/err"; }; then
		bad "$name" "want one line /$want/, got $nl lines"
	elif [ -z "$want" ] && [ "$nl" != 0 ] && ! grep -q 'is damaged' "$W/err"; then
		bad "$name" "unexpected stderr"
	elif [ -n "$want" ] && [ "$before" != "$after" ]; then
		bad "$name" "the refused dir changed"
	else
		ok "$name"
	fi
}

t_trust() {
	plant_setup || { bad cache-trust-setup "cannot build the planted entry"; return; }
	local c
	# Another user's dir: refused with one line, nothing loaded from it.
	c=$W/c-other
	plant "$c"
	chown -R nobody "$c" && chmod 755 "$c"
	trusted_run cache-dir-of-another-user-refused "$c" \
		"^mpiwasm: warning: cache dir $c is not safe \(owned by uid $(id -u nobody)\); using a private directory$"
	# Ours but writable by everyone.
	c=$W/c-777
	plant "$c"
	chmod 777 "$c"
	trusted_run cache-dir-writable-by-others-refused "$c" \
		"^mpiwasm: warning: cache dir $c is not safe \(writable by others\); using a private directory$"
	# Ours, but its parent is writable by everyone (and not sticky).
	mkdir -p "$W/open-parent"
	chmod 777 "$W/open-parent"
	c=$W/open-parent/cache
	plant "$c"
	chmod 700 "$c"
	trusted_run cache-dir-under-open-parent-refused "$c" \
		"^mpiwasm: warning: cache dir $c is not safe \(parent $W/open-parent writable by others\)"
	# The dir itself a symlink (to a dir holding the planted entry).
	plant "$W/c-target"
	chmod 700 "$W/c-target"
	ln -sfn "$W/c-target" "$W/c-dirlink"
	trusted_run cache-dir-symlink-refused "$W/c-dirlink" \
		"^mpiwasm: warning: cache dir $W/c-dirlink is not safe \(a symlink\)"
	# A safe dir whose entry is a symlink to the planted object: not
	# followed; the entry is rebuilt in its place.
	c=$W/c-solink
	mkdir -p "$c" && chmod 700 "$c"
	plant "$c" link
	trusted_run cache-entry-symlink-not-followed "$c" ""
	[ -f "$c/$PKEY.so" ] && [ ! -L "$c/$PKEY.so" ] && ok cache-entry-symlink-replaced ||
		bad cache-entry-symlink-replaced "$(ls -l "$c")"
	# A planted entry that is not ours in our own dir: rebuilt, not loaded.
	c=$W/c-notours
	mkdir -p "$c" && chmod 700 "$c"
	plant "$c"
	chown nobody "$c/$PKEY.so"
	trusted_run cache-entry-of-another-user-not-loaded "$c" ""
}

t_cache_modes() {
	local c=$W/c-modes
	run "$c" -q "$W/hello.wasm"
	local m; m=$(cd "$c" 2>/dev/null && stat -c '%a %n' . *.so *.meta *.lock cc-*.id | sort | tr '\n' ' ')
	if [ $rc = 0 ] && [ "$(stat -c %a "$c")" = 700 ] &&
	   [ -z "$(cd "$c" && find . -mindepth 1 ! -perm 600)" ]; then
		ok cache-dir-0700-entries-0600
	else
		bad cache-dir-0700-entries-0600 "modes: $m"
	fi
	# Created parents are private too.
	run "$W/c-deep/a/b" -q "$W/hello.wasm"
	[ $rc = 0 ] && [ "$(stat -c %a "$W/c-deep" "$W/c-deep/a" "$W/c-deep/a/b" | sort -u)" = 700 ] &&
		ok cache-dir-parents-created-0700 ||
		bad cache-dir-parents-created-0700 "$(stat -c '%a %n' "$W/c-deep" "$W/c-deep/a" "$W/c-deep/a/b")"
}

# Without HOME (nor XDG_*, MPIWASM_CACHE_DIR): another user who made the
# well-known names first (the old /tmp/mpiwasm-cache-UID and the fallback
# /tmp/mpiwasm-UID) gets nothing loaded; without them the fallback is made
# 0700 and reused.  Runs in a mount namespace with a /tmp of its own.
t_no_home() {
	command -v unshare >/dev/null || { echo "SKIP no-home: no unshare"; return; }
	plant_setup || { bad no-home-setup "cannot build the planted entry"; return; }
	local nt=$W/ns-tmp uid; uid=$(id -u)
	rm -rf "$nt"; mkdir -p "$nt"; chmod 1777 "$nt"
	cp "$W/hello.wasm" "$nt/hello.wasm"
	plant "$nt/mpiwasm-cache-$uid"
	plant "$nt/mpiwasm-$uid"
	chown -R nobody "$nt/mpiwasm-cache-$uid" "$nt/mpiwasm-$uid"
	chmod 777 "$nt/mpiwasm-cache-$uid" "$nt/mpiwasm-$uid"
	# The namespace's /tmp hides a checkout that lives under /tmp: it runs
	# a copy of the engine from its own /tmp.
	mkdir -p "$nt/engine" && cp "$MPIWASM" "$nt/engine/mpiwasm" || { bad no-home-setup "cannot copy the engine"; return; }
	nsrun() {
		timeout "$T" unshare -m sh -c 'mount --bind "$1" /tmp && shift && exec "$@"' sh "$nt" \
			env -u HOME -u XDG_CACHE_HOME -u XDG_RUNTIME_DIR -u TMPDIR -u MPIWASM_CACHE_DIR \
			EVIL_MARKER=/tmp/marker /tmp/engine/mpiwasm "$@" >"$W/out" 2>"$W/err"
		rc=$?
	}
	nsrun /tmp/hello.wasm a b
	if [ $rc = 0 ] && [ ! -e "$nt/marker" ] && diff <(want_hello /tmp/hello.wasm) "$W/out" >/dev/null &&
	   grep -q "^mpiwasm: warning: cache dir /tmp/mpiwasm-$uid is not safe (owned by uid" "$W/err"; then
		ok no-home-squatted-fallback-refused
	else
		bad no-home-squatted-fallback-refused "rc=$rc marker: $(cat "$nt/marker" 2>/dev/null)"
	fi
	# Each process on its own then: a private dir, removed after the load.
	[ -z "$(ls -A "$nt" | grep -Ev "^(engine|hello\.wasm|mpiwasm-cache-$uid|mpiwasm-$uid)$")" ] &&
		ok no-home-private-dirs-removed || bad no-home-private-dirs-removed "$(ls -A "$nt")"
	rm -rf "$nt/mpiwasm-cache-$uid" "$nt/mpiwasm-$uid"
	nsrun -q /tmp/hello.wasm
	nsrun --timings /tmp/hello.wasm
	local d; d=$(stat -c '%a %u' "$nt/mpiwasm-$uid" 2>/dev/null)
	[ $rc = 0 ] && [ "$d" = "700 $uid" ] && grep -q '(cache hit)' "$W/err" && [ ! -e "$nt/marker" ] &&
		ok no-home-fallback-private-and-reused ||
		bad no-home-fallback-private-and-reused "rc=$rc dir: '$d' $(ls -A "$nt")"
}

# An unusable cache dir with 4 ranks on one node: they meet in the
# fallback dir and one compiles.
t_unusable_mpi() {
	: > "$W/plainfile"
	local log=$W/c-unusable-mpi.log okr=0 n
	rm -rf "$W/tmp4"; mkdir -p "$W/tmp4"
	MPIWASM_CACHE_DIR=$W/plainfile/cache MPIWASM_CACHE_LOG=$log TMPDIR=$W/tmp4 \
		timeout 300 $MPIRUN --oversubscribe -np 4 "$MPIWASM" "$W/hello2.wasm" a b \
		>"$W/out" 2>"$W/err"
	rc=$?
	okr=$(grep -c '^hello from wasm$' "$W/out")
	n=$(compiles "$log")
	[ $rc = 0 ] && [ "$okr" = 4 ] && [ "$n" = 1 ] &&
		ok unusable-cache-4-ranks-compile-once ||
		bad unusable-cache-4-ranks-compile-once "rc=$rc, $okr ranks ran, $n compiles"
}

# make install into a scratch prefix, then the CMake project of tests/mpi
# configured with the installed toolchain file alone: it must find the
# installed engine and the launcher of the MPI the engine is built for.
t_install() {
	local bdir pre=$W/prefix cm=$W/cmake-inst want
	bdir=$(dirname "$MPIWASM")
	case $bdir in "$root"/*) bdir=${bdir#"$root"/} ;; esac
	if ! (cd "$root" && timeout 600 make --no-print-directory -s B="$bdir" MPI="${MPI:-openmpi}" \
			PREFIX="$pre" install) > "$W/install.log" 2>&1; then
		bad make-install "$(tail -5 "$W/install.log")"
		return
	fi
	[ -x "$pre/bin/mpiwasm" ] && [ -x "$pre/bin/mpiwasm-cc" ] && [ -x "$pre/bin/mpiwasm-c++" ] &&
	   [ -x "$pre/share/mpiwasm/libexec/wasm-opt" ] &&
	   [ "$(cat "$pre/share/mpiwasm/engine-mpi.txt")" = "${MPI:-openmpi}" ] &&
		ok make-install-puts-engine-beside-drivers ||
		bad make-install-puts-engine-beside-drivers "$(ls -R "$pre" | head -20)"
	command -v cmake >/dev/null || { echo "SKIP installed-cmake: no cmake"; return; }
	mkdir -p "$cm"
	if ! (cd "$cm" && timeout 300 cmake -DCMAKE_TOOLCHAIN_FILE="$pre/share/mpiwasm/mpiwasm.cmake" \
			"$root/tests/mpi/cmake" && timeout 300 make) > "$W/cmake.log" 2>&1; then
		bad installed-cmake-builds "$(tail -8 "$W/cmake.log")"
		return
	fi
	ok installed-cmake-builds
	case ${MPI:-openmpi} in mpich) want=mpich ;; *) want=openmpi ;; esac
	local ex pf
	ex=$(sed -n 's/^MPIEXEC_EXECUTABLE:[A-Z]*=//p' "$cm/CMakeCache.txt")
	pf=$(sed -n 's/^MPIEXEC_PREFLAGS:[A-Z]*=//p' "$cm/CMakeCache.txt")
	case $(basename "$ex") in *"$want"*) ok "installed-cmake-picks-$want-launcher" ;;
	*) bad "installed-cmake-picks-$want-launcher" "MPIEXEC_EXECUTABLE=$ex" ;; esac
	[ "$pf" = "$pre/bin/mpiwasm" ] && ok installed-cmake-runs-installed-engine ||
		bad installed-cmake-runs-installed-engine "MPIEXEC_PREFLAGS=$pf"
	if (cd "$cm" && MPIWASM_CACHE_DIR=$W/c-inst OMPI_ALLOW_RUN_AS_ROOT=1 \
			OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
			timeout 300 ctest --output-on-failure) > "$W/ctest.log" 2>&1; then
		ok installed-cmake-ctest-passes
	else
		bad installed-cmake-ctest-passes "$(tail -8 "$W/ctest.log")"
	fi
}

all="t_version t_hello t_mpiwasm_flags t_quiet_miss t_concurrent t_damaged t_unwritable t_readonly_dir t_full_disk t_errors
     t_exit_status t_trap t_exceptions t_wasi t_wasi_more t_key_has_compiler t_cache_cmds t_units t_cc_identity_cached
     t_compiler_failure t_signal_cleanup t_interrupt_compile t_mpi t_trust t_cache_modes t_no_home
     t_unusable_mpi t_install t_tier"
sel=${*:-$all}
for t in $sel; do
	case $t in t_*) ;; *) t=t_$t ;; esac
	"$t"
done
echo "e2e: $pass passed, $fail failed"
[ $fail = 0 ]
