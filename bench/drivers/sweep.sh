#!/usr/bin/env bash
# sweep.sh - kernels x sizes x types with oclReduction, into one CSV, a
# comparison table and two PNG plots (gnuplot).
#
#   bench/drivers/sweep.sh [-k "0 1 2 3 4 5 6 7"] [-s "10 26"] [-t "int"] [-n 25] [-r 5]
#                        [-o OUTDIR] [-- extra oclReduction options]
#
#   -k  kernels (numbers or names)           -s  log2 of the first and last size
#                                                (0..40, first <= last; else exit 2)
#   -t  element types                        -n  log2 of N for the table and the
#   -r  timed runs per measurement               time-breakdown plot (within -s)
#   -o  output directory (default: a new directory under $TMPDIR)
#
# Writes OUT/sweep.csv (oclReduction's CSV columns, docs/output.md),
# OUT/table.txt (kernel | t gpu | t kernel | speedup at 2^n, as in the
# tutorial), OUT/bandwidth.png (GB/s against N, log x axis, a line per kernel
# and type, drawn by bench/plot.py) and OUT/breakdown.png (H2D / kernels /
# D2H / CPU per kernel at 2^n).
# OCR selects the binary (default build/oclReduction).
# With --kernel-file among the extra options, the sweep runs that one kernel
# (-k does not apply, and no -n is passed: oclReduction refuses -n with it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
OCR=${OCR:-$here/../../build/oclReduction}
kernels="0 1 2 3 4 5 6 7" sizes="10 26" types="int" table_n=25 reps=5 out="" k_given=0
while getopts "k:s:t:n:r:o:" opt; do
  case $opt in
    k) kernels=$OPTARG k_given=1 ;; s) sizes=$OPTARG ;; t) types=$OPTARG ;;
    n) table_n=$OPTARG ;; r) reps=$OPTARG ;; o) out=$OPTARG ;;
    *) sed -n '2,20p' "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
# A --kernel-file run: one kernel, named by --kernel-name, selected without -n.
user_file=0 user_name=""
args=("$@")
for ((j = 0; j < ${#args[@]}; j++)); do
  case ${args[j]} in
    --kernel-file | --kernel-file=*) user_file=1 ;;
    --kernel-name) user_name=${args[j + 1]:-} ;;
    --kernel-name=*) user_name=${args[j]#*=} ;;
  esac
done
if [ "$user_file" = 1 ]; then
  if [ "$k_given" = 1 ]; then
    echo "sweep: -k picks built-in kernels; it cannot go with --kernel-file" >&2
    exit 2
  fi
  kernels=${user_name:-user}
fi
# Sizes: log2 of N, as whole numbers within what oclReduction -s takes
# (1 to 2^40 elements, host/cli/cli.c), first <= last; refused before any run
# (bash's 1 << 64 would wrap to N = 1).
usage() { echo "sweep: $*" >&2; exit 2; }
read -r lo hi extra <<<"$sizes" || true; hi=${hi:-$lo}
int='^[0-9]{1,2}$'
[[ $lo =~ $int && $hi =~ $int && -z ${extra:-} ]] ||
  usage "-s takes the log2 of the first and last size, e.g. -s \"10 26\" (got \"$sizes\")"
lo=$((10#$lo)) hi=$((10#$hi))
[ "$hi" -le 40 ] || usage "-s \"$sizes\": sizes go up to 2^40 elements (oclReduction -s), not 2^$hi"
[ "$lo" -le "$hi" ] || usage "-s \"$sizes\": the first size is larger than the last (2^$lo > 2^$hi)"
[[ $table_n =~ $int ]] || usage "-n takes the log2 of N for the table, e.g. -n 25 (got \"$table_n\")"
[[ $reps =~ ^[1-9][0-9]{0,5}$ ]] || usage "-r takes a number of timed runs, e.g. -r 5 (got \"$reps\")"
if [ "$table_n" -lt "$lo" ] || [ "$table_n" -gt "$hi" ]; then table_n=$hi; fi
[ -n "$out" ] || out=$(mktemp -d "${TMPDIR:-/tmp}/ocr-sweep.XXXXXX")
mkdir -p "$out"
csv=$out/sweep.csv
: > "$csv"
total=$(( $(wc -w <<<"$kernels") * $(wc -w <<<"$types") * (hi - lo + 1) ))
i=0
for t in $types; do
  for k in $kernels; do
    for ((s = lo; s <= hi; s++)); do
      i=$((i + 1))
      printf '\r[%d/%d] kernel %s, %s, N = 2^%d   ' "$i" "$total" "$k" "$t" "$s" >&2
      rc=0
      kopt=(-n "$k")
      [ "$user_file" = 0 ] || kopt=()
      rows=$("$OCR" ${kopt[@]+"${kopt[@]}"} --type "$t" -s $((1 << s)) -r "$reps" --format csv "$@") || rc=$?
      if [ "$rc" != 0 ]; then
        printf '\nsweep: kernel %s %s 2^%d failed (exit %d)\n%s\n' "$k" "$t" "$s" "$rc" "$rows" >&2
        exit 1
      fi
      if [ -s "$csv" ]; then tail -n +2 <<<"$rows" >> "$csv"; else echo "$rows" > "$csv"; fi
    done
  done
done
echo >&2

# col NAME: the column number of NAME in the CSV header
col() { head -1 "$csv" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1; }
ck=$(col kernel) ct=$(col type) cn=$(col n) cg=$(col t_gpu_tutorial_ms) ckk=$(col t_kernels_ms)
csp=$(col speedup_tutorial) ce=$(col t_gpu_ms) cse=$(col speedup)
ch=$(col h2d_ms) cd=$(col d2h_ms) cc=$(col cpu_ms) cp=$(col passed)
# The device column is quoted and may hold commas: read fields from a copy
# with quoted strings blanked.
plain=$out/.plain.csv
sed -E 's/"[^"]*"/""/g' "$csv" > "$plain"

n=$((1 << table_n))
# The tutorial's comparison table in its definitions (t gpu: kernels + read-back
# + CPU finish, no upload; speedup: t ref / t gpu), then ours, upload included.
{
  printf '%-10s %-7s %12s %12s %9s | %14s %11s\n' kernel type "t gpu" "t kernel" speedup \
    "t end-to-end" "speedup e2e"
  awk -F, -v n="$n" -v ck="$ck" -v ct="$ct" -v cn="$cn" -v cg="$cg" -v ckk="$ckk" -v csp="$csp" \
    -v ce="$ce" -v cse="$cse" 'NR > 1 && $cn == n {
      printf "%-10s %-7s %9.3f ms %9.3f ms %9.2f | %11.3f ms %11.2f\n", $ck, $ct, $cg, $ckk, $csp, $ce, $cse }' "$plain"
  echo "(t gpu and speedup as the tutorial defines them: upload excluded; docs/output.md)"
} | tee "$out/table.txt"
fails=$(awk -F, -v cp="$cp" 'NR > 1 && $cp != 1' "$plain" | wc -l)
[ "$fails" = 0 ] || echo "sweep: $fails run(s) FAILED their check (column passed = 0)" >&2

if ! command -v gnuplot >/dev/null; then
  echo "sweep: gnuplot not found, no plots (apt-get install gnuplot-nox)" >&2
  exit 0
fi
# The bandwidth lines: the project's plotting command (bench/plot.py, which
# draws the pictures of docs/ too), a line per kernel and type.
if ! python3 "$here/../plot.py" "$csv" -x n -y bandwidth_gbs --series kernel,type --logx 2 --xformat '2^%L' \
  --xlabel 'N (elements)' --ylabel 'GB/s' --title 'Bandwidth read (bytes every pass reads / kernel time)' \
  -o "$out/bandwidth.png" > /dev/null; then
  echo "sweep: no bandwidth plot (bench/plot.py failed)" >&2
  exit 1
fi
t0=$(awk '{print $1; exit}' <<<"$types")
awk -F, -v cn="$cn" -v ct="$ct" -v n="$n" -v t="$t0" -v ck="$ck" -v ch="$ch" -v ckk="$ckk" -v cd="$cd" -v cc="$cc" \
  'NR > 1 && $cn == n && $ct == t { print $ck, $ch, $ckk, $cd, $cc }' "$plain" > "$out/.breakdown.dat"
if [ ! -s "$out/.breakdown.dat" ]; then
  echo "sweep: no run at N = 2^$table_n for $t0: no breakdown plot" >&2
  rm -f "$out/.breakdown.dat" "$plain"
  exit 0
fi
gnuplot <<GP
set terminal pngcairo size 900,560 noenhanced
set output '$out/breakdown.png'
set title 'Where the end-to-end time goes at N = 2^$table_n ($t0)'
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.7
set ylabel 'ms'
set key left top
set grid y
plot '$out/.breakdown.dat' using 2:xtic(1) title 'H2D', '' using 3 title 'kernels', '' using 4 title 'D2H', '' using 5 title 'CPU finish'
GP
rm -f "$out/.breakdown.dat" "$plain"
echo "sweep: wrote $csv, $out/table.txt, $out/bandwidth.png, $out/breakdown.png" >&2
