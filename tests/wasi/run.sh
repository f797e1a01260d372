#!/bin/sh
# tests/wasi/run.sh BUILD_DIR - the WASI suite:
#  1. test_sandbox: the host functions driven natively (escape attempts
#     and functional checks, under openat2 and under the walker);
#  2. each progs/p_*.c built natively and to wasm32-wasi, run natively and
#     under `mpiwasm --dir .`, each in a fresh temp dir: stdout and exit
#     status must be identical;
#  3. progs/e_escape.c under mpiwasm (both resolvers): every attempt
#     refused and the host around the grant unchanged;
#  4. progs/c_preview1.c under mpiwasm (both resolvers): preview1 rules
#     with no native counterpart (rights, fdflags, refused link targets),
#     each "ok" line one passed check.
# Prints `wasi: N passed, N failed`.
B=${1:-build}
T=$B/tests/wasi
MPIWASM=${MPIWASM:-$B/mpiwasm}
MPIWASM=$(cd "$(dirname "$MPIWASM")" && pwd)/$(basename "$MPIWASM")
T=$(cd "$T" && pwd)
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

out=$(timeout 300 "$T/test_sandbox")
rc=$?
echo "$out" | grep -v '^wasi-sandbox:'
p=$(echo "$out" | sed -n 's/^wasi-sandbox: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
f=$(echo "$out" | sed -n 's/^wasi-sandbox: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
if [ -z "$p" ]; then bad "test_sandbox exited $rc without a summary"; else
	pass=$((pass + p)); fail=$((fail + f)); fi

have_engine=1
if [ ! -x "$MPIWASM" ]; then
	echo "wasi: $MPIWASM is not built: the wasm runs below count as failed"
	have_engine=0
fi

for prog in p_stdio p_files p_dirs p_time p_misc; do
	nd=$(mktemp -d /tmp/wasi-native.XXXXXX)
	wd=$(mktemp -d /tmp/wasi-wasm.XXXXXX)
	# p_misc gets a connected socket as stdin (sockrun is its peer)
	wrap=""
	[ $prog = p_misc ] && wrap="$T/sockrun"
	(cd "$nd" && env -i WASI_TEST_VAR=hello timeout 120 $wrap "$T/$prog" one "two words" \
		> "$nd.out" 2> "$nd.err"); nrc=$?
	if [ $have_engine = 1 ]; then
		(cd "$wd" && timeout 300 $wrap "$MPIWASM" -q --dir . --env WASI_TEST_VAR=hello \
			"$T/$prog.wasm" one "two words" > "$wd.out" 2> "$wd.err"); wrc=$?
	else
		wrc=255; : > "$wd.out"; : > "$wd.err"
	fi
	if grep -q '^FAIL' "$nd.out"; then
		bad "$prog: native run has failures:"; grep '^FAIL' "$nd.out"
	elif [ "$nrc" != "$wrc" ]; then
		bad "$prog: exit status native $nrc, wasm $wrc"; head -5 "$wd.err"
	elif ! cmp -s "$nd.out" "$wd.out"; then
		bad "$prog: outputs differ"; diff "$nd.out" "$wd.out" | head -20
	else
		ok
	fi
	rm -rf "$nd" "$wd" "$nd.out" "$nd.err" "$wd.out" "$wd.err"
done

# Bad grants through the command line: refused with one line naming the
# problem, before the module prints anything.
badgrant() {   # badgrant WHAT EXPECTED_TEXT ARGS...
	what=$1 want=$2; shift 2
	if [ $have_engine = 0 ]; then bad "bad grant ($what): no engine"; return; fi
	timeout 120 "$MPIWASM" -q "$@" "$T/p_stdio.wasm" > "$bg.out" 2> "$bg.err"
	rc=$?
	if [ $rc = 0 ] || [ -s "$bg.out" ] || [ "$(wc -l < "$bg.err")" != 1 ] ||
	   ! grep -q -- "$want" "$bg.err"; then
		bad "bad grant ($what): exit $rc, stdout $(wc -c < "$bg.out") bytes, stderr:"
		cat "$bg.err"
	else
		ok
	fi
}
bg=$(mktemp -d /tmp/wasi-badgrant.XXXXXX)
: > "$bg/file"
badgrant "missing dir" "$bg/missing" --dir "$bg/missing"
badgrant "not a directory" "not a directory" --dir "$bg/file"
badgrant "guest collision" "already granted" --dir "$bg:/data" --dir "/tmp:/data/"
badgrant "read-only missing" "$bg/missing" --dir-ro "$bg/missing:/x"
rm -rf "$bg" "$bg.out" "$bg.err"

snapshot() {
	( cd "$1" && find . -path ./grant -prune -o \
		-printf '%p %y %m %s %n %T@ %C@ %l\n' | sort
	  find . -path ./grant -prune -o -type f -print | sort | xargs md5sum )
}

# run_grant RESOLVER DIR MODULE OUT: the module run in DIR with DIR granted
# as ., under one path resolver (openat2, or the walker); stdout and
# stderr in OUT.out and OUT.err, status in $rc.
run_grant() {
	if [ "$1" = walker ]; then export MPIWASM_WASI_NO_OPENAT2=1; fi
	if [ $have_engine = 1 ]; then
		(cd "$2" && timeout 300 "$MPIWASM" -q --dir . "$3" > "$4.out" 2> "$4.err"); rc=$?
	else
		rc=255; : > "$4.out"; : > "$4.err"
	fi
	unset MPIWASM_WASI_NO_OPENAT2
}

for resolver in openat2 walker; do
	r=$(mktemp -d /tmp/wasi-escape.XXXXXX)
	mkdir -p "$r/grant/sub" "$r/outside/dir"
	echo TOPSECRET > "$r/outside/secret.txt"
	ln -s secret.txt "$r/outside/lnk"
	ln -s "$r/outside/secret.txt" "$r/grant/abs_link"
	ln -s ../outside/secret.txt "$r/grant/rel_link"
	ln -s ../outside "$r/grant/dir_link"
	ln -s chain2 "$r/grant/chain1"
	ln -s sub/up "$r/grant/chain2"
	ln -s ../../outside "$r/grant/sub/up"
	ln -s /proc/self/root "$r/grant/proc_root"
	ln -s ../outside/created "$r/grant/dangle"
	before=$(snapshot "$r")
	run_grant $resolver "$r/grant" "$T/e_escape.wasm" "$r"
	after=$(snapshot "$r")
	n=$(grep -c '^denied' "$r.out")
	if [ "$rc" != 0 ] || grep -q '^LEAK' "$r.out" || [ "$n" -lt 20 ]; then
		bad "e_escape ($resolver): exit $rc, $n attempts denied"; grep '^LEAK' "$r.out"
		head -3 "$r.err"
	elif [ "$before" != "$after" ]; then
		bad "e_escape ($resolver): the host outside the grant changed"
	else
		ok
	fi
	rm -rf "$r" "$r.out" "$r.err"
done

# Preview1 conformance: each check a line; a run that stops early shows
# as fewer passes (tests/expected-counts.txt).
for resolver in openat2 walker; do
	c=$(mktemp -d /tmp/wasi-conf.XXXXXX)
	run_grant $resolver "$c" "$T/c_preview1.wasm" "$c"
	pass=$((pass + $(grep -c '^ok' "$c.out")))
	grep '^FAIL' "$c.out" | while read -r l; do echo "FAIL: c_preview1 ($resolver): $l"; done
	fail=$((fail + $(grep -c '^FAIL' "$c.out")))
	if [ "$rc" != 0 ] && ! grep -q '^FAIL' "$c.out"; then
		bad "c_preview1 ($resolver): exit $rc"; head -3 "$c.err"
	fi
	if [ -n "$(ls -A "$c")" ]; then
		bad "c_preview1 ($resolver): left files: $(ls -A "$c")"
	fi
	rm -rf "$c" "$c.out" "$c.err"
done

echo "wasi: $pass passed, $fail failed"
[ $fail = 0 ]
