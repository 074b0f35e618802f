#!/usr/bin/env bash
# ladder.sh NAME OUTDIR: the ladder, resources, passes and peak on this box's GPU, and
# the ladder on its CPU through POCL (all cores, and 2 cores), plus checks.
name=$1 out=$2  # register the GPU driver first if needed (docs/running.md, "Running on GPUs")
B=${OCR:-build/oclReduction} T=$(dirname "$B")/tests; M=$out; mkdir -p "$M"
ladder() { # FILE REPS ARGS...: reduce0..7 at 2^25 int, one CSV
  f=$1 r=$2; shift 2; $B -n 0 -r $r --format csv "$@" > $f
  for k in 1 2 3 4 5 6 7; do $B -n $k -r $r --format csv "$@" | tail -n +2 >> $f; done; }
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv; nproc; lscpu | grep "Model name"
  ladder $M/ladder-$name.csv 30 -t gpu
  for k in 0 1 2 3 4 5 6 7; do $B -n $k -t gpu -s 1M -r 1 --resources | sed -n '/^Resources/,/^$/p'; done
  $B -n 0 -t gpu -r 30 --passes | sed -n '/^Passes/,$p'
  for k in 6 7; do $B -n $k -t gpu -s 256M -r 30 --peak | grep -E "^(Copy rate|Bandwidth read|T kernels)"; done
  $B -n 7 -t gpu -s 256M -r 30 --peak --type float | grep -E "^(Copy rate|Bandwidth read|T kernels)"
  echo "== checks"; $T/test_kernels random 7 60 | tail -1
  for a in strided:1:1 strided:2:2 blocked:1:1 blocked:2:1; do $T/test_kernels matrix reduce7:$a int,float sum 3,1027,100003 | tail -1; done
  $T/test_verdict tests/fixtures/kernels_verdict | tail -1
} > $M/extras-$name.txt 2>&1
POCL_MAX_PTHREAD_COUNT=2 taskset -c 0,1 bash -c "$(declare -f ladder); B=$B; ladder $M/ladder-pocl-2core.csv 10 -t cpu"
ladder $M/ladder-pocl-$(nproc)core.csv 10 -t cpu
cat $M/extras-$name.txt; for f in $M/ladder-*.csv; do echo "== $f"; cut -d, -f1,4,17,18 $f; done
