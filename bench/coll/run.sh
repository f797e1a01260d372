#!/bin/sh
# bench/coll/run.sh - model-based collective tuning, measured (Open MPI).
#
#   B=build sh bench/coll/run.sh        (make bench-coll)
#
# For np = 2 and 4 (--oversubscribe): `mpiwasm tune` (alpha, beta, gamma
# and the rules file), then MPI_Allreduce and MPI_Bcast latency for 8 B ..
# 4 MiB (bench/coll/collbench.c, median of 7 batches, slowest rank) under
#   native       mpicc -O2, Open MPI's default selection
#   default      mpiwasm --no-coll-tuning (the library's default selection)
#   tuned        mpiwasm with the rules of `mpiwasm tune`
# alternating in each of PASSES passes (median of the passes).  Then, on
# the last np, every algorithm forced natively at a few sizes beside the
# model's prediction.  Writes bench/coll/REPORT.md (BENCH_REPORT=path).
# Environment: PASSES=3, NPS="2 4", BENCH_REPORT.
set -u
here=$(cd "$(dirname "$0")" && pwd)
B=${B:-build}
MPI=${MPI:-openmpi}
PASSES=${PASSES:-3}
NPS=${NPS:-"2 4"}
REPORT=${BENCH_REPORT:-$here/REPORT.md}
OUT=$B/bench/coll
die() { echo "bench/coll/run.sh: $*" >&2; exit 1; }
[ "$MPI" = openmpi ] || die "collective tuning writes Open MPI's rules file: run with MPI=openmpi (mpiwasm tune refuses under $MPI)"
[ -x "$B/mpiwasm" ] || die "$B/mpiwasm missing: make first"
mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for v in $(env | sed -n 's/^\(OMPI_MCA_coll_tuned_[A-Za-z_]*\)=.*/\1/p'); do unset "$v"; done
unset MPIWASM_COLL_LOG
LAUNCH="timeout 900 nice mpirun.openmpi --oversubscribe -np"
C=$OUT/cache
rm -rf "$C"

mpicc.openmpi -O2 -o "$OUT/collbench" "$here/collbench.c" || die "mpicc failed"
"$B/mpiwasm-cc" -O2 -o "$OUT/collbench.wasm" "$here/collbench.c" || die "mpiwasm-cc failed"
"$B/mpiwasm" compile -q --cache-dir "$C" "$OUT/collbench.wasm" >/dev/null || die "mpiwasm compile failed"

for np in $NPS; do
	$LAUNCH "$np" "$B/mpiwasm" tune --cache-dir "$C" > "$OUT/tune-np$np.txt" || die "mpiwasm tune -np $np failed"
	cat "$OUT/tune-np$np.txt"
done

# variant lines: "np variant op bytes us"
: > "$OUT/raw.txt"
for pass in $(seq "$PASSES"); do
	for np in $NPS; do
		for v in native default tuned; do
			case $v in
			native)  cmd="$OUT/collbench" ;;
			default) cmd="$B/mpiwasm --cache-dir $C --no-coll-tuning $OUT/collbench.wasm" ;;
			tuned)   cmd="$B/mpiwasm --cache-dir $C $OUT/collbench.wasm" ;;
			esac
			$LAUNCH "$np" $cmd both 8 4194304 2>"$OUT/err" |
				awk -v np="$np" -v v="$v" '{ print np, v, $0 }' >> "$OUT/raw.txt" ||
				die "pass $pass np $np $v failed: $(head -3 "$OUT/err")"
		done
	done
	echo "bench/coll: pass $pass of $PASSES done"
done

# Every algorithm forced natively on the last np of NPS (dynamic rules on, no file; the
# segment size and fanout the model assumes: see write_model in main.c).
FNP=$(echo $NPS | awk "{ print \$NF }")
: > "$OUT/forced.txt"
for op in allreduce bcast; do
	n=$([ $op = allreduce ] && echo 6 || echo 9)
	for alg in $(seq "$n"); do
		$LAUNCH $FNP -x OMPI_MCA_coll_tuned_use_dynamic_rules=1 \
			-x OMPI_MCA_coll_tuned_${op}_algorithm=$alg \
			-x OMPI_MCA_coll_tuned_${op}_algorithm_segmentsize=$([ $op = bcast ] && [ "$alg" -ge 2 ] && [ "$alg" -le 5 ] && echo 32768 || { [ $op = allreduce ] && [ "$alg" = 5 ] && echo 65536 || echo 0; }) \
			-x OMPI_MCA_coll_tuned_${op}_algorithm_chain_fanout=$([ "$alg" = 2 ] && echo 2 || echo 1) \
			"$OUT/collbench" $op 8 2097152 2>"$OUT/err" |
			awk -v a="$alg" '{ print $1, a, $2, $3 }' >> "$OUT/forced.txt" ||
			die "forced $op $alg failed: $(head -3 "$OUT/err")"
	done
done

# ---- report ---------------------------------------------------------------
# median over passes: "np op bytes native default tuned"
awk '{ k = $1 " " $3 " " $4; v[k, $2, ++n[k, $2]] = $5; keys[k] = 1 }
     function med(k, w,   m, i, j, t, a) { m = n[k, w]; for (i = 1; i <= m; i++) a[i] = v[k, w, i];
       for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
       return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
     END { for (k in keys) print k, med(k, "native"), med(k, "default"), med(k, "tuned") }' \
	"$OUT/raw.txt" | sort -k1,1n -k2,2 -k3,3n > "$OUT/table.txt"

# the rules file's algorithm for (np, op, bytes): Open MPI's lookup
rules_alg() {   # np op bytes
	f=$(ls "$C"/coll/*-np"$1"-*.rules | head -1)
	if grep -q "^# mpiwasm: no verified rule" "$f"; then printf 'none applied'; return; fi
	awk -v p="$1" -v id="$([ "$2" = allreduce ] && echo 2 || echo 7)" -v n="$3" '
		{ sub(/#.*/, ""); for (i = 1; i <= NF; i++) t[++nt] = $i }
		END { k = 1; nc = t[k++]
		  for (c = 0; c < nc; c++) { cid = t[k++]; ns = t[k++]
		    for (s = 0; s < ns; s++) { cs = t[k++]; nl = t[k++]
		      for (l = 0; l < nl; l++) { m = t[k++]; a = t[k++]; fo = t[k++]; sg = t[k++]
		        if (cid == id && cs == p && m <= n) { best = a; bseg = sg } } } }
		  names2 = "basic_linear nonoverlapping recursive_doubling ring segmented_ring rabenseifner"
		  names7 = "basic_linear chain pipeline split_binary_tree binary_tree binomial knomial scatter_allgather scatter_allgather_ring"
		  split(id == 2 ? names2 : names7, nm, " ")
		  printf "%s%s", best ? nm[best] : "fixed", bseg ? sprintf(" (%d KiB seg)", bseg / 1024) : "" }' "$f"
}
human() { awk -v b="$1" 'BEGIN { if (b >= 1048576) printf "%d MiB", b / 1048576; else if (b >= 1024) printf "%d KiB", b / 1024; else printf "%d B", b }'; }

{
	echo "# Model-based collective tuning: measured"
	echo
	echo "Generated by \`make bench-coll\` (bench/coll/run.sh) on $(date -u +%Y-%m-%d): $(uname -m),"
	echo "$(nproc) cores, $(mpirun.openmpi --version 2>/dev/null | head -1), shared-memory transport (one host)."
	echo "Program: bench/coll/collbench.c (MPI_Allreduce of doubles with MPI_SUM, MPI_Bcast of doubles),"
	echo "\`mpicc -O2\` natively and \`mpiwasm-cc -O2\`; each figure is the median of 7 batches of the slowest"
	echo "rank's time per call, then the median of $PASSES passes in which native, mpiwasm with the library's"
	echo "default selection (\`--no-coll-tuning\`) and mpiwasm with the rules of \`mpiwasm tune\` alternate."
	echo "np=4 is oversubscribed (4 ranks on $(nproc) cores)."
	echo
	echo "## Measured network parameters (\`mpirun -np N mpiwasm tune\`)"
	echo
	echo "| np | alpha us | beta ns/B | bandwidth GB/s | gamma ns/B (MPI_SUM doubles) |"
	echo "| ---: | ---: | ---: | ---: | ---: |"
	for np in $NPS; do
		sed -n 's/.*alpha \([0-9.e+-]*\) us, beta \([0-9.e+-]*\) ns\/B (\([0-9.e+-]*\) GB\/s), gamma \([0-9.e+-]*\) ns\/B.*/\1 \2 \3 \4/p' \
			"$OUT/tune-np$np.txt" | while read -r a b bw g; do
			echo "| $np | $a | $b | $bw | $g |"
		done
	done
	echo
	echo "Choices written (\`mpiwasm tune\` output):"
	echo
	echo '```'
	for np in $NPS; do grep -E "MPI_(Allreduce|Bcast) on" "$OUT/tune-np$np.txt" | sed 's/^mpiwasm: tune: //'; done
	echo '```'
	echo
	echo "## Summary: tuned / default (mpiwasm), geometric mean over 8 B .. 4 MiB"
	echo
	echo "| np | op | tuned/default | sizes tuned >5% faster | sizes tuned >5% slower | default/native | tuned/native |"
	echo "| ---: | --- | ---: | ---: | ---: | ---: | ---: |"
	awk '{ k = $1 " " $2; c[k]++; r[k] += log($6 / $5); dn[k] += log($5 / $4); tn[k] += log($6 / $4)
	       if ($6 < 0.95 * $5) f[k]++; if ($6 > 1.05 * $5) s[k]++ }
	     END { for (k in c) { split(k, a, " "); printf "| %s | %s | %.3f | %d | %d | %.3f | %.3f |\n",
	           a[1], a[2], exp(r[k] / c[k]), f[k], s[k], exp(dn[k] / c[k]), exp(tn[k] / c[k]) } }' \
		"$OUT/table.txt" | sort
	for np in $NPS; do
		for op in allreduce bcast; do
			echo
			echo "## $op, $np ranks"
			echo
			echo "| size | native us | mpiwasm default us | mpiwasm tuned us | tuned/default | tuned algorithm |"
			echo "| ---: | ---: | ---: | ---: | ---: | --- |"
			awk -v np="$np" -v op="$op" '$1 == np && $2 == op' "$OUT/table.txt" |
			while read -r p o b n d t; do
				printf '| %s | %.3f | %.3f | %.3f | %.3f | %s |\n' "$(human "$b")" "$n" "$d" "$t" \
					"$(awk -v d="$d" -v t="$t" 'BEGIN { print t / d }')" "$(rules_alg "$p" "$o" "$b")"
			done
		done
	done
	echo
	echo "## Model vs measurement, every algorithm forced ($FNP ranks, native)"
	echo
	echo "Predicted: the Hockney model with the np=$FNP alpha/beta/gamma above (src/coll/model.c; the"
	echo "\`.model\` file beside the rules).  Measured: the algorithm forced with"
	echo "\`OMPI_MCA_coll_tuned_<op>_algorithm\` (bcast chain/pipeline/trees with 32 KiB segments, chain"
	echo "fanout 2; segmented ring 64 KiB segments).  us, predicted / measured."
	echo
	model=$(ls "$C"/coll/*-np$FNP-*.rules.model | head -1)
	echo "| op | algorithm | 8 B | 512 B | 32 KiB | 2 MiB |"
	echo "| --- | --- | ---: | ---: | ---: | ---: |"
	awk 'NR == FNR { if ($1 !~ /^#/) { pred[$1, $2, $7] = $8 * 1e6; name[$1, $2] = $3 } next }
	     { meas[$1, $2, $3] = $4; if (!(($1, $2) in seen)) { seen[$1, $2] = 1; order[++no] = $1 SUBSEP $2 } }
	     END { for (i = 1; i <= no; i++) { split(order[i], a, SUBSEP); line = "| " a[1] " | " name[a[1], a[2]]
	             nsz = split("8 512 32768 2097152", sz, " ")
	             for (j = 1; j <= nsz; j++) line = line sprintf(" | %.3g / %.3g", pred[a[1], a[2], sz[j]], meas[a[1], a[2], sz[j]])
	             print line " |" } }' "$model" "$OUT/forced.txt"
} > "$OUT/REPORT.body.md"

if [ -f "$here/FINDINGS.md" ]; then
	cat "$OUT/REPORT.body.md" "$here/FINDINGS.md" > "$REPORT"
else
	cp "$OUT/REPORT.body.md" "$REPORT"
fi
cat "$OUT/REPORT.body.md"
echo "bench-coll: raw figures in $OUT/raw.txt, $OUT/forced.txt; report $REPORT"
