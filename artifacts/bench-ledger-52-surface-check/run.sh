#!/bin/bash
# Paired rounds: the baseline before the product-surface work (bb081c9, built in OLD) against this
# build, alternating (odd rounds old first). Run from the repository root after a release build.
set -u
out=/work/main/artifacts/bench-ledger-52-surface-check
old=/work/wt/base/build/release/bench
new=/work/main/build/release/bench
pg_dir=$(mktemp -d /tmp/veil-pg-bench.XXXXXX)
export VEIL_BENCH_POSTGRES_URL=$(/work/main/scripts/pg-cluster start "$pg_dir")
export VEIL_BENCH_LEDGER_MAX_N=100000
export TMPDIR=/work/tmp-bench; mkdir -p $TMPDIR
L='^BM_Ledger_(GetByKey|GetByAttribute|RangeQuery|Page200|CountSelective)/(sqlite|postgres)/100000/|^BM_Ledger_Write_(OneEntity|Concurrent)/(sqlite|postgres)(/16)?/manual_time|^BM_Calibration'
G='^BM_Guardian_RoundTrip_(Put|Get)/http|^BM_Guardian_Batch_Put/100/|^BM_Calibration'
run() {  # which round
  local which=$1 r=$2 dir
  [ $which = old ] && dir=$old || dir=$new
  VEIL_BENCH_LEDGER_DATA=/work/tmp-bench/data-$which $dir/veil_bench_ledger --benchmark_filter="$L" \
    --benchmark_out=$out/$which-ledger-$r.json --benchmark_out_format=json >/dev/null 2>/dev/null
  $dir/veil_bench_guardian --benchmark_filter="$G" \
    --benchmark_out=$out/$which-guardian-$r.json --benchmark_out_format=json >/dev/null 2>/dev/null
}
for r in 1 2 3 4 5 6 7 8 9 10 11 12; do
  if [ $((r % 2)) = 1 ]; then run old $r; run new $r; else run new $r; run old $r; fi
  echo "round $r done $(date)"
done
/work/main/scripts/pg-cluster stop "$pg_dir"; rm -rf "$pg_dir"
echo finished
