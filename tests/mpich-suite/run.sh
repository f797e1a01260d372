#!/bin/sh
# tests/mpich-suite/run.sh - MPICH's own MPI test suite (test/mpi of
# mpich 4.0.2, Debian's source package; README.md says how to get it) built
# twice, natively with Open MPI's mpicc and with mpiwasm-cc, and run under
# Open MPI: each test at its test list's rank count (capped at CAP) with a
# timeout, natively and as `mpirun ... mpiwasm --dir . test`.  Writes
# OUT/table.md (pass/fail per test per side, per-directory counts, the
# tests that pass natively and fail as wasm) and OUT/table.tsv.
#
#   tests/mpich-suite/run.sh [SRC]     SRC: the unpacked mpich-4.0.2 (or its
#                                      test/mpi); default $MPICH_SRC
# Environment:
#   B        build dir with mpiwasm, mpiwasm-cc (default: build)
#   OUT      work dir (default: $B/mpich-suite): OUT/native, OUT/wasm (the
#            two configured test trees), OUT/res/SIDE/ (one file a test run)
#   STEPS    any of "build run report" (default: all three)
#   SIDES    "native wasm" (default)
#   DIRS     test/mpi directories (default: the list below)
#   ONLY     run only tests whose id (dir/prog:line) matches this grep -E
#   CAP      rank cap (default 8); TIMEOUT default per-test limit in s (180;
#            a test list's timeLimit= raises it, never above 600)
#   FIRST    1: only the first listing of each program (one run a program
#            instead of every argument variant: a quick pass, 621 of 977)
#   RERUN    "fail": run again the tests whose recorded result is a failure
#
# Resumable: a test whose result file exists is not run again (RERUN=fail
# redoes the failures; rm -r OUT/res/SIDE redoes a side); make resumes the
# builds.  Parallel-safe: one run at a time builds or runs a side, holding
# OUT/lock.SIDE (flock); tests
# run one at a time, compiles use -j2.
#
# Pass rule (MPICH's runtests): exit status 0 and a line " No Errors" in
# the output, except resultTest=TestStatus / TestErrFatal tests, which
# pass when the job exits non-zero.  strict=false tests are skipped (the
# trees are configured with --enable-strictmpi, as for a non-MPICH MPI);
# so are tests asking for more than MEMLIMIT GB (mem=, default 4).
set -u
{
here=$(cd "$(dirname "$0")" && pwd)
B=${B:-build}
B=$(cd "$B" && pwd) || { echo "mpich-suite: no build dir $B"; exit 1; }
SRC=${1:-${MPICH_SRC:-}}
[ -n "$SRC" ] || { echo "mpich-suite: give the unpacked mpich-4.0.2 source (argument or MPICH_SRC; see tests/mpich-suite/README.md)"; exit 1; }
[ -d "$SRC/test/mpi" ] && SRC=$SRC/test/mpi
[ -x "$SRC/configure" ] && [ -f "$SRC/util/mtest.c" ] || { echo "mpich-suite: $SRC is not MPICH's test/mpi (no configure, util/mtest.c)"; exit 1; }
SRC=$(cd "$SRC" && pwd)
OUT=${OUT:-$B/mpich-suite}
STEPS=${STEPS:-build run report}
SIDES=${SIDES:-native wasm}
DIRS=${DIRS:-attr basic coll comm datatype errhan group info init io pt2pt rma spawn topo}
ONLY=${ONLY:-.}
CAP=${CAP:-8}
TIMEOUT=${TIMEOUT:-180}
MEMLIMIT=${MEMLIMIT:-4}
RERUN=${RERUN:-}
FIRST=${FIRST:-}
MPIWASM=$B/mpiwasm
WCC=$B/mpiwasm-cc
NCC=mpicc.openmpi
LAUNCH="mpirun.openmpi --oversubscribe -np"
if [ "$(id -u)" = 0 ]; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# The spawn tests run with PMIx's hash data store, as tests/mpi does
# (Open MPI 4.1 with PMIx 4 hangs now and then in a spawn otherwise).
export PMIX_MCA_gds=hash
export MPIWASM_CACHE_DIR=$OUT/cache
mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)

# lock SIDE: one run at a time builds or runs a side (fd 9 while it does).
lock() {
	exec 9> "$OUT/lock.$1"
	if ! flock -n 9; then
		echo "mpich-suite: another run holds $OUT/lock.$1; waiting"
		flock 9
	fi
}

# configure SIDE: MPICH's own configure for its tests, against Open MPI's
# mpicc (native) or mpiwasm-cc (wasm, as a cross compile: nothing it
# builds can run on the build machine; i686 stands for an ILP32 target,
# config.sub knows no wasm32).  Fortran, C++ and the tests of
# non-standard behaviour are off.  The wasm side has no thread package: no
# test of these directories starts a thread, and the wasm32-wasi sysroot
# has no pthread.h without -pthread (mtest.c includes it otherwise).
configure() {
	s=$1 d=$OUT/$1
	[ -f "$d/config.status" ] && [ -f "$d/Makefile" ] && return 0
	mkdir -p "$d" || return 1
	echo "mpich-suite: configure $s in $d"
	common="--disable-fortran --disable-cxx --enable-romio --enable-spawn --enable-rma
		--disable-perftest --disable-checkerrors --enable-strictmpi --enable-threads=multiple
		--disable-shared"
	if [ "$s" = native ]; then
		# shellcheck disable=SC2086
		(cd "$d" && "$SRC/configure" MPICC="$NCC" CC="$NCC" MPICXX=/bin/false $common) > "$d/configure.log" 2>&1
	else
		# shellcheck disable=SC2086
		(cd "$d" && "$SRC/configure" MPICC="$WCC" CC="$WCC" MPICXX=/bin/false \
			--build=x86_64-pc-linux-gnu --host=i686-pc-linux-gnu --with-thread-package=none $common) > "$d/configure.log" 2>&1
	fi || { echo "mpich-suite: configure $s failed, see $d/configure.log"; rm -f "$d/config.status"; return 1; }
}

# build SIDE: the harness (util: mtest.c and friends), the datatype pool
# library (dtpools, with mpi1compat.h: it calls two procedures removed in
# MPI-3.0), then every directory with make -k: a test that does not
# compile on a side is recorded as not built there.
build() {
	s=$1 d=$OUT/$1
	configure "$s" || return 1
	echo "mpich-suite: build $s"
	# wasi-libc's struct rusage has only the two fields POSIX requires
	# (ru_utime, ru_stime); mtest.c's resource report reads the BSD ones
	# when configure found getrusage: the wasm side reports none.
	[ "$s" = wasm ] && sed -i 's|^#define HAVE_GETRUSAGE 1|/* #undef HAVE_GETRUSAGE (run.sh: wasi-libc rusage has 2 fields) */|' "$d/include/mpitestconf.h"
	make -C "$d/dtpools" -j2 CPPFLAGS="-include $here/mpi1compat.h" > "$d/build-dtpools.log" 2>&1 ||
		{ echo "mpich-suite: dtpools ($s) does not build, see $d/build-dtpools.log"; return 1; }
	make -C "$d/util" -j2 > "$d/build-util.log" 2>&1 ||
		{ echo "mpich-suite: util ($s) does not build, see $d/build-util.log"; return 1; }
	for t in $DIRS; do
		[ -f "$d/$t/Makefile" ] || continue
		make -C "$d/$t" -k -j2 > "$d/build-$t.log" 2>&1 ||
			echo "mpich-suite: $s $t: some programs do not build (see $d/build-$t.log)"
	done
}

# The test list: one line a test, "id np prog dir [key=value ...]", id
# dir/prog:N where N is the line of the list file (a program is listed
# more than once with different arguments).  Lists: the configured
# testlist (or the source's, where it is not generated) and testlist.dtp.
tests() {
	for t in $DIRS; do
		for f in "$OUT/native/$t/testlist" "$SRC/$t/testlist" "$OUT/native/$t/testlist.dtp"; do
			[ -f "$f" ] || continue
			case $f in "$SRC/$t/testlist") [ -f "$OUT/native/$t/testlist" ] && continue ;; esac
			tag=$(basename "$f" | sed 's/testlist//; s/^\.//')
			awk -v t="$t" -v tag="$tag" -v cap="$CAP" '
				/^[ \t]*#/ || NF == 0 { next }
				{ np = ($2 ~ /^[0-9]+$/) ? $2 : 1; if (np > cap) np = cap
				  id = t "/" $1 ":" (tag == "" ? "" : tag ".") NR
				  rest = ""; for (i = 3; i <= NF; i++) rest = rest " " $i
				  print id, np, $1, t rest }' "$f"
		done
	done
}

# run SIDE ID NP PROG DIR OPTS...: one test, result in OUT/res/SIDE/ID
# (slashes as "__"): "pass", "fail why" or "skip why"; output beside it.
run1() {
	s=$1 id=$2 np=$3 prog=$4 dir=$5
	shift 5
	key=$(echo "$id" | sed 's|/|__|g')
	r=$OUT/res/$s/$key
	if [ -f "$r" ]; then
		[ "$RERUN" = fail ] && grep -q '^fail' "$r" || return 0
	fi
	args= envs= tlim=$TIMEOUT rtest= skip=
	for o in "$@"; do
		case $o in
		arg=*) args="$args ${o#arg=}" ;;
		env=*) envs="$envs ${o#env=}" ;;
		timeLimit=*) tlim=${o#timeLimit=}; [ "$tlim" -lt "$TIMEOUT" ] && tlim=$TIMEOUT; [ "$tlim" -gt 600 ] && tlim=600 ;;
		resultTest=*) rtest=${o#resultTest=} ;;
		strict=false) skip="non-strict test (strict MPI mode)" ;;
		mem=*) awk -v m="${o#mem=}" -v l="$MEMLIMIT" 'BEGIN { exit !(m > l) }' && skip="needs ${o#mem=} GB" ;;
		esac
	done
	w=$OUT/$s/$dir
	mkdir -p "$OUT/res/$s"
	if [ -n "$skip" ]; then echo "skip $skip" > "$r.tmp"; mv "$r.tmp" "$r"; return 0; fi
	if [ ! -f "$w/$prog" ]; then echo "fail not built" > "$r.tmp"; mv "$r.tmp" "$r"; return 0; fi
	if [ "$s" = native ]; then
		cmd="$LAUNCH $np ./$prog"
	else
		cmd="$LAUNCH $np $MPIWASM -q --dir . ./$prog"
		# Fill the cache outside the timed run (the first rank to need a
		# module would otherwise compile it while the others wait).
		[ -f "$w/.$prog.compiled" ] || { timeout 900 "$MPIWASM" compile "$w/$prog" > "$w/.$prog.compile.log" 2>&1 < /dev/null && touch "$w/.$prog.compiled"; }
	fi
	rc=0
	# shellcheck disable=SC2086
	(cd "$w" && exec timeout -k 10 "$tlim" env $envs $cmd $args) > "$r.out" 2>&1 < /dev/null || rc=$?
	res=pass
	case $rtest in
	TestStatus|TestErrFatal) [ "$rc" != 0 ] || res="fail exit 0 where a failure is expected" ;;
	*)
		if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then res="fail timeout ${tlim}s"
		elif [ "$rc" != 0 ]; then res="fail exit $rc"
		elif ! grep -Eq '^[[:space:]]*No [Ee]rrors[[:space:]]*$' "$r.out"; then res="fail no \"No Errors\""
		fi ;;
	esac
	echo "$res" > "$r.tmp" && mv "$r.tmp" "$r"
	echo "$s $id np=$np: $res"
}

report() {
	tsv=$OUT/table.tsv md=$OUT/table.md
	tests | while read -r id np prog dir rest; do
		key=$(echo "$id" | sed 's|/|__|g')
		n=$(cat "$OUT/res/native/$key" 2>/dev/null || echo "notrun")
		x=$(cat "$OUT/res/wasm/$key" 2>/dev/null || echo "notrun")
		printf '%s\t%s\t%s\t%s\t%s\n' "$id" "$np" "$n" "$x" "$rest"
	done > "$tsv"
	{
		echo "# MPICH test/mpi, native against wasm"
		echo
		echo "Generated by tests/mpich-suite/run.sh from $OUT/res ($(date -u +%Y-%m-%dT%H:%MZ))."
		echo "Source: $SRC; rank cap $CAP; timeout ${TIMEOUT}s."
		echo
		echo "| dir | tests | skipped | native pass | wasm pass | both pass | native only | wasm only |"
		echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
		awk -F'\t' '
			{ split($1, a, "/"); d = a[1]; n = $3 ~ /^pass/; w = $4 ~ /^pass/
			  sk = ($3 ~ /^skip/) ; T[d]++; S[d] += sk; N[d] += n; W[d] += w; BB[d] += n && w
			  NO[d] += n && !w; WO[d] += w && !n; if (!(d in seen)) { seen[d] = 1; o[++k] = d } }
			END { for (i = 1; i <= k; i++) { d = o[i]
				printf "| %s | %d | %d | %d | %d | %d | %d | %d |\n", d, T[d], S[d], N[d], W[d], BB[d], NO[d], WO[d]
				t += T[d]; s += S[d]; n += N[d]; w += W[d]; b += BB[d]; no += NO[d]; wo += WO[d] }
				printf "| all | %d | %d | %d | %d | %d | %d | %d |\n", t, s, n, w, b, no, wo }' "$tsv"
		echo
		echo "## Pass natively, fail as wasm"
		echo
		awk -F'\t' '$3 ~ /^pass/ && $4 !~ /^pass/ { printf "- `%s` np=%s%s: %s\n", $1, $2, ($5 == "" ? "" : " (" $5 ")"), $4 }' "$tsv"
		echo
		echo "## Pass as wasm, fail natively"
		echo
		awk -F'\t' '$4 ~ /^pass/ && $3 !~ /^pass/ { printf "- `%s` np=%s: native %s\n", $1, $2, $3 }' "$tsv"
		echo
		echo "## Every test"
		echo
		echo "| test | np | native | wasm |"
		echo "| --- | ---: | --- | --- |"
		awk -F'\t' '{ printf "| `%s` | %s | %s | %s |\n", $1, $2, $3, $4 }' "$tsv"
	} > "$md"
	awk -F'\t' '{ n += $3 ~ /^pass/; w += $4 ~ /^pass/; no += ($3 ~ /^pass/ && $4 !~ /^pass/) }
		END { printf "mpich-suite: %d tests, %d pass natively, %d as wasm, %d only natively\n", NR, n, w, no }' "$tsv"
	echo "mpich-suite: table in $md"
}

for s in $SIDES; do
	case " $STEPS " in *" build "*|*" run "*) ;; *) continue ;; esac
	lock "$s"
	case " $STEPS " in *" build "*) build "$s" || exit 1 ;; esac
	case " $STEPS " in *" run "*)
		[ -f "$OUT/native/Makefile" ] && [ -f "$OUT/$s/Makefile" ] ||
			{ echo "mpich-suite: $s not built (STEPS=build first)"; exit 1; }
		tests | grep -E -- "^[^ ]*($ONLY)" |
			if [ "$FIRST" = 1 ]; then awk '!seen[$4 "/" $3]++'; else cat; fi > "$OUT/tests.$s.txt"
		while read -r id np prog dir rest; do
			# shellcheck disable=SC2086
			run1 "$s" "$id" "$np" "$prog" "$dir" $rest
		done < "$OUT/tests.$s.txt" ;;
	esac
	exec 9>&-
done
case " $STEPS " in *" report "*) report ;; esac
exit 0
}
