#!/usr/bin/env bash
# split.sh OUTDIR - one reduction split over every GPU of the host
# (--split all) against one GPU, in one run: 2^30 int, two rounds, plus a
# correctness sweep (types, operators, ladder kernels, M = 1) on all GPUs.
# Prints the device-resident aggregate over one GPU's kernel rate, and the
# end-to-end rate from host memory over one GPU's pinned H2D rate (the goals of
# docs/scale.md). Environment: OCR (default build/oclReduction).
set -uo pipefail
OUT=${1:?usage: split.sh OUTDIR}
mkdir -p "$OUT"
B=${OCR:-$(dirname "$0")/../../build/oclReduction}
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id --format=csv,noheader; nvidia-smi topo -m | head -5; $B --list | head -12; } > $OUT/env.txt 2>&1
for r in 1 2; do
  $B -n 7 --type int -s 1G -r 10 -t gpu --format json > $OUT/one_$r.json
  $B --split all -t gpu -n 7 --type int -s 1G -r 10 --format json > $OUT/split_$r.json
done
$B --split all -t gpu -n 7 --type int -s 1G -r 10 > $OUT/split.txt 2>&1
$B --split all -t gpu -n 7 --type int -s 1G -r 10 --split-shares rate > $OUT/split_rate.txt 2>&1
$B --split all -t gpu -n 7 --type float -s 1G -r 10 > $OUT/split_float.txt 2>&1
{ for t in int float double long; do for o in sum max; do echo "$t $o $($B --split all -t gpu -n 7 --type $t --op $o -s 100000007 -r 5 | grep -E '^Test')"; done; done
  for k in 0 3 6; do echo "reduce$k $($B --split all -t gpu -n $k -s 33554467 -r 3 | grep -E '^Test')"; done
  echo "M=1 $($B --split all -t gpu -n 7 -M 1 -s 33554467 -r 3 | grep -E '^Test')"; } > $OUT/checks.txt 2>&1
python3 - $OUT <<'P'
import json,sys,glob
o=sys.argv[1]
for r in (1,2):
    one=json.load(open(f'{o}/one_{r}.json')); sp=json.load(open(f'{o}/split_{r}.json'))
    n=one['n']*4
    h2d=n/one['median']['h2d_ms']/1e6
    print('round',r,'one: kernel GB/s %.0f, pinned H2D GB/s %.1f, e2e %.1f' % (one['bandwidth_gbs'], h2d, n/one['median']['t_gpu_ms']/1e6))
    print('  split: keys', [k for k in sp if not isinstance(sp[k],(list,dict))][:40])
    print('  split: bandwidth %s e2e %s median %s passed %s' % (sp.get('bandwidth_gbs'), sp.get('bandwidth_e2e_gbs'), sp.get('median'), sp.get('passed')))
    print('  ratios: resident %.3f x one GPU; e2e %.3f x one pinned H2D' % (sp['bandwidth_gbs']/one['bandwidth_gbs'], sp['bandwidth_e2e_gbs']/h2d))
P
cat $OUT/split.txt $OUT/checks.txt
