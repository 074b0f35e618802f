#!/usr/bin/env bash
# peers_test.sh SRC PEERS BOOST CLBLAST - bench/drivers/peers.sh at small sizes on the
# default device: every side that was built is in the table with every answer
# right, the C and Python sides agree on the exact sums, ratios are against
# ours; a missing peer is skipped with a message; a wrong reduce7 is caught.
# BOOST and CLBLAST (1 or 0) say whether the build found them; PyOpenCL is
# expected whenever a python3 here imports it.
set -u
src=$1 peers=$2 boost=$3 clblast=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }
export PEERS=$peers SIZES="10 14" REPS=3

"$src/bench/drivers/peers.sh" "$tmp/ok" > "$tmp/ok.out" 2>&1 || say "peers.sh exited $?: $(tail -5 "$tmp/ok.out")"
csv=$tmp/ok/peers.csv
want="ours ours_m1"
# A peer library that crashes on this device is skipped, saying so (Boost.Compute
# 1.83's GPU reduce on NVIDIA's OpenCL): its rows are not expected then.
if grep -q "Boost.Compute skipped: it crashed" "$tmp/ok/log.txt"; then
  echo "note: $(grep -m1 'Boost.Compute skipped' "$tmp/ok/log.txt")"
  boost=0
fi
[ "$boost" = 1 ] && want="$want boost_reduce boost_accumulate"
py=0
for p in python3 /usr/bin/python3; do "$p" -c 'import pyopencl.array, pyopencl.reduction' 2>/dev/null && py=1 && break; done
[ "$py" = 1 ] && want="$want pyopencl_sum pyopencl_rk"
for t in int float; do
  for n in 1024 16384; do
    sides=$want
    [ "$clblast" = 1 ] && [ $t = float ] && sides="$sides clblast_sum clblast_asum"
    for s in $sides; do
      row=$(awk -F, -v t=$t -v n=$n -v s=$s '$5 == t && $6 == n && $7 == s' "$csv")
      [ -n "$row" ] || { say "no row for $s $t n=$n"; continue; }
      echo "$row" | awk -F, '{ split($14, c, "/"); exit !(c[1] == c[2] && c[1] == 3) }' ||
        say "$s $t n=$n: answers right: $(echo "$row" | cut -d, -f12-15)"
    done
    # One exact sum per (type, size) whoever computed it (xASUM has its own).
    k=$(awk -F, -v t=$t -v n=$n '$5 == t && $6 == n && $7 != "clblast_asum" { print $13 }' "$csv" | sort -u | wc -l)
    [ "$k" = 1 ] || say "$t n=$n: the sides disagree on the exact sum"
    awk -F, -v t=$t -v n=$n '$5 == t && $6 == n && $7 == "ours" { exit !($16 == "1.000") }' "$csv" ||
      say "$t n=$n: ours' ratio is not 1.000"
  done
done
grep -q '^| type | n | best peer ' "$tmp/ok/peers.md" || say "peers.md has no best-peer table"
[ "$py" = 1 ] || grep -q "PyOpenCL skipped" "$tmp/ok/log.txt" || say "no message for the missing PyOpenCL"

# A peer that cannot be loaded is skipped, with a message, and the run goes on.
OCR_PEERS_CLBLAST=/nonexistent/libclblast.so.1 SIZES=10 "$src/bench/drivers/peers.sh" "$tmp/skip" > "$tmp/skip.out" 2>&1 ||
  say "peers.sh without CLBlast exited $?"
grep -q "CLBlast skipped" "$tmp/skip.out" || say "no message for the missing CLBlast"
grep -q ",clblast_" "$tmp/skip/peers.csv" && say "CLBlast rows without CLBlast"

# A peer library that crashes (a stand-in with Boost's entry points that
# raises SIGSEGV): skipped with a message naming the signal, ours still
# measured and right, exit 0.
cat > "$tmp/crash.c" <<'EOF'
#include <signal.h>
#include <stddef.h>
int ocr_peers_boost_sum(void *q, void *x, size_t n, const char *t, const char *a, void *out,
                        char *err, size_t len) {
    (void)q, (void)x, (void)n, (void)t, (void)a, (void)out, (void)err, (void)len;
    raise(SIGSEGV);
    return 0;
}
const char *ocr_peers_boost_version(void) { return "a crashing stand-in"; }
EOF
if cc -shared -fPIC -o "$tmp/libcrash.so" "$tmp/crash.c" 2>"$tmp/cc.err"; then
  OCR_PEERS_BOOST=$tmp/libcrash.so SIZES=10 TYPES=int "$src/bench/drivers/peers.sh" "$tmp/crash" > "$tmp/crash.out" 2>&1 ||
    say "a crashing peer: peers.sh exited $?: $(tail -3 "$tmp/crash.out")"
  grep -q "Boost.Compute skipped: it crashed (signal 11) in a probe run" "$tmp/crash/log.txt" ||
    say "a crashing peer is not named: $(tail -3 "$tmp/crash/log.txt")"
  grep -q ",boost_" "$tmp/crash/peers.csv" && say "rows for a peer that crashed"
  awk -F, '$7 == "ours" && $14 == "3/3"' "$tmp/crash/peers.csv" | grep -q . ||
    say "ours is not measured beside a crashing peer"
else
  say "cannot build the crashing stand-in: $(cat "$tmp/cc.err")"
fi

# A reduce7 that adds 1 per group: exit 1 and WRONG in its row.
mkdir -p "$tmp/cl"
cp -r "$src/cl/." "$tmp/cl/"
sed -i 's/out\[out_off + get_group_id(0)\] = ACC_VALUE(x);/out[out_off + get_group_id(0)] = ACC_VALUE(x) + (T)1;/' "$tmp/cl/reduce7.cl"
grep -q 'ACC_VALUE(x) + (T)1' "$tmp/cl/reduce7.cl" || say "could not plant the wrong reduce7"
KDIR=$tmp/cl SIZES=14 TYPES=int "$src/bench/drivers/peers.sh" "$tmp/wrong" > "$tmp/wrong.out" 2>&1
rc=$?
[ "$rc" = 1 ] || say "a wrong reduce7: exit $rc, expected 1"
grep -q '^| int | 2^14 | ours | .*\*\*WRONG\*\*' "$tmp/wrong/peers.md" || say "a wrong reduce7 is not marked WRONG"

[ "$fail" = 0 ] && echo "ok: peers.sh ($want$([ "$clblast" = 1 ] && echo " clblast_sum clblast_asum"))"
exit $fail
