#!/bin/sh
# tests/toolchain/run.sh - the toolchain suite: link tests the way
# configure scripts write them, C++ file streams, the POSIX emulation,
# the debug sections of linked modules.  Programs are built with
# mpiwasm-cc/mpiwasm-c++ and, where an output is compared, natively with
# cc/c++.  Last line: `toolchain: N passed, N failed`.
#
# Environment: B (build dir, default build), OUT (scratch, default
# $B/tests/toolchain).
set -u
{
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
B=${B:-build}
B=$(cd "$B" && pwd) || { echo "tests/toolchain/run.sh: no build dir $B"; exit 1; }
OUT=${OUT:-$B/tests/toolchain}
CC_W=$B/mpiwasm-cc
CXX_W=$B/mpiwasm-c++
MPIWASM=$B/mpiwasm
P=$here/progs
rm -rf "$OUT" && mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
excerpt() { [ -f "$1" ] && sed -n '1,12s/^/     | /p' "$1"; }
# A module run alone (no mpirun): -q, no cache chatter.
run_w() { timeout 120 "$MPIWASM" -q "$@"; }

# ---- 1. the link allow-list ----------------------------------------------
t=$OUT/link
mkdir -p "$t"
# The committed list is what gen-undefined.py makes from mpi.h and the
# engine's registry now.
if python3 "$root/toolchain/gen-undefined.py" "$root" > "$t/regen.txt" 2>/dev/null &&
	cmp -s "$t/regen.txt" "$root/toolchain/mpi-undefined.txt"; then
	ok "link: mpi-undefined.txt is current (make toolchain-regen)"
else
	bad "link: mpi-undefined.txt differs from what gen-undefined.py makes (make toolchain-regen)"
	diff "$root/toolchain/mpi-undefined.txt" "$t/regen.txt" | head -5
fi
# autoconf's AC_CHECK_FUNC / AC_SEARCH_LIBS program, verbatim in shape: a
# prototype of its own, the call, nothing else.
actest() {
	printf '/* confdefs.h */\nchar %s ();\nint main (void)\n{\nreturn %s ();\n  ;\n  return 0;\n}\n' \
		"$1" "$1" > "$t/$1.c"
	"$CC_W" -o "$t/$1.wasm" "$t/$1.c" > "$t/$1.err" 2>&1
}
# Declared in mpi.h but not provided by the engine (MPI_Op_create_c and
# the rest gen-undefined.py names), MPI-4 only (MPI_Session_init), macros.
declared_only=$(python3 "$root/toolchain/gen-undefined.py" "$root" 2>&1 >/dev/null |
	sed -n 's/.*(will not link): //p')
[ -n "$declared_only" ] || bad "link: gen-undefined.py names nothing mpi.h declares and the engine lacks"
for f in $declared_only MPI_Session_init MPI_COMM_DUP_FN; do
	if actest $f; then
		bad "link: configure's test of $f links (the engine refuses it at load time)"
	elif grep -q "undefined symbol: $f" "$t/$f.err"; then
		ok "link: configure's test of $f fails to link"
	else
		bad "link: configure's test of $f failed for another reason"; excerpt "$t/$f.err"
	fi
done
for f in MPI_File_read MPI_Send PMPI_File_read MPI_File_open MPI_Type_size_x \
	MPI_File_read_c MPI_Send_c PMPI_File_read_c MPI_Alltoallv_c MPI_Type_size_c; do
	if actest $f; then
		ok "link: configure's test of $f links"
	else
		bad "link: configure's test of $f does not link"; excerpt "$t/$f.err"
	fi
done
# Every allowed MPI name, through mpi.h, in one module: it links, and the
# engine accepts each import with the header's signature.
{
	echo '#include <mpi.h>'
	echo '#include <stdio.h>'
	echo 'static void *volatile tab[] = {'
	grep -E '^P?MPI_' "$root/toolchain/mpi-undefined.txt" | sed 's/.*/(void *)\&&,/'
	echo '};'
	printf '%s\n' 'int main(void) { printf("%d\n", (int)(sizeof tab / sizeof tab[0])); return 0; }'
} > "$t/all.c"
n=$(grep -cE '^P?MPI_' "$root/toolchain/mpi-undefined.txt")
if ! "$CC_W" -o "$t/all.wasm" "$t/all.c" > "$t/all.err" 2>&1; then
	bad "link: a module referencing every allowed MPI name does not link"; excerpt "$t/all.err"
elif [ "$(run_w "$t/all.wasm" 2> "$t/all.rerr")" = "$n" ]; then
	ok "link: all $n allowed MPI names link and the engine accepts them"
else
	bad "link: the engine refused a module importing the $n allowed MPI names"; excerpt "$t/all.rerr"
fi

# ---- 2. C++ file streams -------------------------------------------------
t=$OUT/fstream
mkdir -p "$t/wasm" "$t/native"
if ! "$CXX_W" -O2 -Wall -Wextra -Werror -o "$t/fstreams.wasm" "$P/fstreams.cc" > "$t/cc.err" 2>&1; then
	bad "fstream: std::ofstream/ifstream/fstream program does not build"; excerpt "$t/cc.err"
elif ! c++ -O2 -o "$t/fstreams" "$P/fstreams.cc" > "$t/ncc.err" 2>&1 ||
	! "$t/fstreams" "$t/native" > "$t/native.out" 2>&1; then
	bad "fstream: the native build failed"; excerpt "$t/native.out"
elif ! (cd "$t" && run_w --dir wasm fstreams.wasm wasm > wasm.out 2>&1); then
	bad "fstream: the module failed under mpiwasm --dir"; excerpt "$t/wasm.out"
elif ! cmp -s "$t/native.out" "$t/wasm.out"; then
	bad "fstream: output differs from the native build"; diff "$t/native.out" "$t/wasm.out" | head -8
elif ! diff -r "$t/native" "$t/wasm" > /dev/null; then
	bad "fstream: the files written differ from the native build's"
else
	ok "fstream: write, read back, modes, binary, seek: same output and files as native ($(grep -c '^ok ' "$t/wasm.out") checks)"
fi
# Every standard since C++11 (HPCG builds with the default, C++17).
for std in c++11 c++14 c++20 c++23; do
	if "$CXX_W" -std=$std -Wall -Wextra -pedantic -Werror -o "$t/$std.wasm" -x c++ - \
		> "$t/$std.err" 2>&1 <<'CXX'
#include <fstream>
#include <mpi.h>
int main() { std::ofstream o("x.txt"); std::ifstream i; std::fstream f; return !o.is_open(); }
CXX
	then ok "fstream: <fstream> with mpi.h builds with -std=$std"
	else bad "fstream: <fstream> with -std=$std"; excerpt "$t/$std.err"
	fi
done
# The opt-out gives libc++'s header alone, which has no file streams.
if printf '#include <fstream>\nstd::ofstream o;\n' |
	"$CXX_W" -DMPIWASM_NO_FSTREAM -fsyntax-only -x c++ - > "$t/optout.err" 2>&1; then
	bad "fstream: -DMPIWASM_NO_FSTREAM still defined std::ofstream (is libc++'s own usable now?)"
elif grep -q "undefined template" "$t/optout.err"; then
	ok "fstream: -DMPIWASM_NO_FSTREAM leaves libc++'s header (no file streams)"
else
	bad "fstream: -DMPIWASM_NO_FSTREAM failed for another reason"; excerpt "$t/optout.err"
fi

# ---- 3. POSIX procedures wasi-libc lacks -----------------------------------
t=$OUT/posix
mkdir -p "$t/d"
if ! "$CC_W" -O2 -Wall -Wextra -Werror -o "$t/posix.wasm" "$P/posix.c" > "$t/cc.err" 2>&1; then
	bad "posix: the program does not build with mpiwasm-cc"; excerpt "$t/cc.err"
else
	ok "posix: statfs, realpath, getuid, mknod, flock, lockf, mmap, getpid, system, signal, clock, extern int errno build and link"
	(cd "$t" && run_w --dir d posix.wasm d > run.out 2>&1)
	rc=$?
	n=$(grep -c '^ok ' "$t/run.out")
	if [ "$rc" = 0 ] && [ "$n" -ge 34 ] && ! grep -q '^FAIL' "$t/run.out"; then
		ok "posix: all $n checks give the documented results under mpiwasm"
	else
		bad "posix: status $rc, $n checks passed"; grep -v '^ok ' "$t/run.out" | head -12
	fi
fi
# The same headers compile as C++, strictly, and as -std=c99 (where
# wasi-libc hides its own BSD/XSI declarations).
if "$CXX_W" -Wall -Wextra -Werror -fsyntax-only -x c++ "$P/posix.c" > "$t/cxx.err" 2>&1; then
	ok "posix: the same program compiles as C++"
else
	bad "posix: the program does not compile as C++"; excerpt "$t/cxx.err"
fi
if "$CC_W" -std=c99 -D_XOPEN_SOURCE=700 -Wall -Wextra -pedantic -Werror -o "$t/c99.wasm" "$P/posix.c" \
	> "$t/c99.err" 2>&1; then
	ok "posix: the program builds with -std=c99 -pedantic -Werror"
else
	bad "posix: -std=c99 -pedantic -Werror"; excerpt "$t/c99.err"
fi
# -nostdlib and -nodefaultlibs keep every library out, ours included.
case $("$CC_W" -show -nodefaultlibs x.o) in
*libmpiwasm-posix*|*wasi-emulated*) bad "posix: -nodefaultlibs still links the emulation libraries" ;;
*) ok "posix: -nodefaultlibs links none of the emulation libraries" ;;
esac
case $("$CC_W" -showme:link) in
*libmpiwasm-posix.a*-lwasi-emulated-mman*-lwasi-emulated-process-clocks*)
	ok "posix: -showme:link names the emulation libraries" ;;
*) bad "posix: -showme:link: $("$CC_W" -showme:link)" ;;
esac

# printf/scanf of long double (wasi-libc's long-double printscan library,
# linked by default): the same output as native.
t=$OUT/ldprint
mkdir -p "$t"
if ! "$CC_W" -O2 -Wall -Wextra -Werror -o "$t/ldprint.wasm" "$P/ldprint.c" > "$t/cc.err" 2>&1 ||
   ! cc -O2 -o "$t/ldprint" "$P/ldprint.c" > "$t/ncc.err" 2>&1; then
	bad "ldprint: the program does not build"; excerpt "$t/cc.err"; excerpt "$t/ncc.err"
else
	run_w "$t/ldprint.wasm" > "$t/wasm.out" 2> "$t/wasm.err"
	rc=$?
	"$t/ldprint" > "$t/native.out" 2>&1
	if [ "$rc" = 0 ] && [ -s "$t/native.out" ] && cmp -s "$t/native.out" "$t/wasm.out"; then
		ok "ldprint: printf/scanf/strtold of long double as native"
	else
		bad "ldprint: status $rc, output differs from native"; excerpt "$t/wasm.out"; excerpt "$t/wasm.err"
	fi
fi

# ---- 4. debug sections -----------------------------------------------------
t=$OUT/debug
mkdir -p "$t"
cat > "$t/hello.c" <<'EOF_C'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	printf("hello from %d\n", rank);
	MPI_Finalize();
	return 0;
}
EOF_C
cat > "$t/hello.cc" <<'EOF_CXX'
#include <iostream>
#include <mpi.h>
int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	std::cout << "hello from " << rank << std::endl;
	MPI_Finalize();
	return 0;
}
EOF_CXX
# The custom sections of a module, one name a line.
sections() { wasm-objdump -h "$1" | sed -n 's/.*Custom .*"\(.*\)"$/\1/p'; }
for lang in c cc; do
	drv=$CC_W
	[ $lang = cc ] && drv=$CXX_W
	for o in -O0 -O2; do
		m=$t/hello-$lang$o
		if ! "$drv" $o -o "$m.wasm" "$t/hello.$lang" > "$m.err" 2>&1 ||
			! "$drv" $o -g -o "$m-g.wasm" "$t/hello.$lang" > "$m-g.err" 2>&1; then
			bad "debug: hello.$lang $o does not build"; excerpt "$m.err"; excerpt "$m-g.err"
			continue
		fi
		s=$(sections "$m.wasm")
		sg=$(sections "$m-g.wasm")
		size=$(wc -c < "$m.wasm")
		sizeg=$(wc -c < "$m-g.wasm")
		if printf '%s\n' "$s" | grep -q '^\.debug_'; then
			bad "debug: hello.$lang $o without -g has debug sections: $(echo $s)"
		elif ! printf '%s\n' "$s" | grep -qx name; then
			bad "debug: hello.$lang $o without -g has no name section: $(echo $s)"
		else
			ok "debug: hello.$lang $o without -g: no .debug_*, name kept ($size bytes)"
		fi
		if printf '%s\n' "$sg" | grep -qx '\.debug_info' && printf '%s\n' "$sg" | grep -qx name; then
			ok "debug: hello.$lang $o -g keeps .debug_* and name ($sizeg bytes)"
		else
			bad "debug: hello.$lang $o -g: sections $(echo $sg)"
		fi
	done
done
# -g0 after -g means no debug information, as in clang.
"$CC_W" -O2 -g -g0 -o "$t/g0.wasm" "$t/hello.c" 2> "$t/g0.err"
if sections "$t/g0.wasm" | grep -q '^\.debug_'; then
	bad "debug: -g -g0 kept debug sections"
else
	ok "debug: -g -g0 strips them"
fi
# A trap in an optimized module without -g still names the function.
cat > "$t/trap.c" <<'EOF_T'
#include <stdio.h>
__attribute__((noinline)) void mpiwasm_trap_here(volatile int *p) { if (*p) __builtin_trap(); }
/* Called through memory: binaryen's inliner does not honour noinline. */
void (*volatile call)(volatile int *) = mpiwasm_trap_here;
int main(void) { volatile int one = 1; puts("before"); call(&one); return 0; }
EOF_T
if ! "$CC_W" -O2 -o "$t/trap.wasm" "$t/trap.c" > "$t/trap.cerr" 2>&1; then
	bad "debug: trap program does not build"; excerpt "$t/trap.cerr"
else
	run_w "$t/trap.wasm" > "$t/trap.out" 2> "$t/trap.err"
	rc=$?
	if [ $rc = 134 ] && grep -q mpiwasm_trap_here "$t/trap.err"; then
		ok "debug: a trap at -O2 without -g names the function"
	else
		bad "debug: trap: status $rc, message: $(head -2 "$t/trap.err")"
	fi
fi

# ---- 5. C++ exceptions -----------------------------------------------------
# mpiwasm-c++ compiles with -fwasm-exceptions unless -fno-exceptions is
# given, and links libmpiwasm-cxxabi (throw, catch, the personality).
t=$OUT/exceptions
mkdir -p "$t"
if ! "$CXX_W" -O2 -Wall -Wextra -Werror -o "$t/exceptions.wasm" "$P/exceptions.cc" > "$t/cc.err" 2>&1; then
	bad "exceptions: the throwing program does not build"; excerpt "$t/cc.err"
elif ! c++ -O2 -o "$t/exceptions" "$P/exceptions.cc" > "$t/ncc.err" 2>&1 ||
	! "$t/exceptions" > "$t/native.out" 2>&1; then
	bad "exceptions: the native build failed"; excerpt "$t/native.out"
elif ! run_w "$t/exceptions.wasm" > "$t/wasm.out" 2>&1; then
	bad "exceptions: the module failed"; excerpt "$t/wasm.out"
elif ! cmp -s "$t/native.out" "$t/wasm.out"; then
	bad "exceptions: output differs from the native build"; diff "$t/native.out" "$t/wasm.out" | head -8
elif grep -q FAILED "$t/wasm.out" || [ "$(grep -c '^ok ' "$t/wasm.out")" -lt 24 ]; then
	bad "exceptions: a check failed or went missing"; excerpt "$t/wasm.out"
else
	ok "exceptions: throw/catch by value, base reference, pointer, catch (...), rethrow, nested, 21 frames, function pointer, exception_ptr, vector::at: same output as native ($(grep -c '^ok ' "$t/wasm.out") checks)"
fi
# An exception leaving main: the type and what() as libc++abi says them
# natively, then abort (a trap, status 134), not a hang or a bare trap.
if [ -f "$t/exceptions.wasm" ]; then
	run_w "$t/exceptions.wasm" escape > "$t/escape.out" 2> "$t/escape.err"
	rc=$?
	if [ $rc = 134 ] && [ "$(cat "$t/escape.out")" = "about to escape" ] &&
		grep -q "terminating due to uncaught exception of type std::runtime_error: runtime boom" "$t/escape.err"; then
		ok "exceptions: an exception escaping main names its type and what(), status 134"
	else
		bad "exceptions: escaping main: status $rc"; excerpt "$t/escape.err"
	fi
	run_w "$t/exceptions.wasm" noexcept > "$t/noexcept.out" 2> "$t/noexcept.err"
	rc=$?
	if [ $rc = 134 ] &&
		grep -q "terminating due to uncaught exception of type std::runtime_error: runtime boom" "$t/noexcept.err"; then
		ok "exceptions: throwing out of a noexcept function calls std::terminate, which names the exception"
	else
		bad "exceptions: noexcept violation: status $rc"; excerpt "$t/noexcept.err"
	fi
fi
# -fno-exceptions is as before: throw is a compile error, and a program
# without exceptions still builds and runs.
printf 'int main() { throw 1; }\n' > "$t/throw.cc"
if "$CXX_W" -fno-exceptions -c -o "$t/throw.o" "$t/throw.cc" > "$t/noexc.err" 2>&1; then
	bad "exceptions: -fno-exceptions accepted a throw"
elif grep -q "exceptions disabled" "$t/noexc.err"; then
	ok "exceptions: -fno-exceptions refuses throw as clang does"
else
	bad "exceptions: -fno-exceptions failed for another reason"; excerpt "$t/noexc.err"
fi
cat > "$t/plain.cc" <<'EOF_P'
#include <cstdio>
#include <string>
#include <vector>
int main() { std::vector<std::string> v; for (int i = 0; i < 10; i++) v.push_back(std::to_string(i)); printf("%zu %s\n", v.size(), v[3].c_str()); return 0; }
EOF_P
for mode in -fno-exceptions -fexceptions; do
	if "$CXX_W" -O2 $mode -o "$t/plain$mode.wasm" "$t/plain.cc" > "$t/plain$mode.err" 2>&1 &&
		[ "$(run_w "$t/plain$mode.wasm" 2>&1)" = "10 3" ]; then
		ok "exceptions: a program that does not throw builds and runs with $mode"
	else
		bad "exceptions: program without throw, $mode"; excerpt "$t/plain$mode.err"
	fi
done
# Size of a program that does not throw (its library may): exception
# handling adds the throw paths of libc++'s headers and this runtime.
if [ -f "$t/plain-fno-exceptions.wasm" ] && [ -f "$t/plain-fexceptions.wasm" ]; then
	s0=$(wc -c < "$t/plain-fno-exceptions.wasm") s1=$(wc -c < "$t/plain-fexceptions.wasm")
	if [ "$s1" -lt $((s0 * 2)) ]; then
		ok "exceptions: module size $s1 bytes with exceptions, $s0 without (less than twice)"
	else
		bad "exceptions: module size $s1 bytes with exceptions, $s0 without"
	fi
fi

echo "toolchain: $pass passed, $fail failed"
test "$fail" = 0
}
