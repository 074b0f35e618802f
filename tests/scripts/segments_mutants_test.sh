#!/bin/sh
# segments_mutants_test.sh TEST_SEGMENTS CL_DIR [OCLGRIND_SH] - every piece of
# logic in the segment kernels (cl/segreduce.cl) is needed: a copy of cl/
# with that piece broken by one edit must FAIL test_segments' edge cases
# (exit 1, values wrong), in groups of 8 (64 for the combine's tree levels).
# The unbroken copy passes the same runs. With OCLGRIND_SH (tests/scripts/
# oclgrind.sh): 16-byte loads that forget the input offset's alignment must
# draw oclgrind's diagnostic (a CPU may well read them right).
set -u
ts=$1 cl=$2 og=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -R "$cl"/. "$tmp"/
bad=0 runs=0

for args in "8 int sum" "8 int prod" "64 int sum"; do
  set -- $args
  "$ts" "$1" edges "$tmp" "$2" "$3" >/dev/null ||
    { echo "FAIL: the unbroken copy of $cl does not pass: test_segments $1 edges $2 $3"; exit 1; }
done

# mutant NAME "LOCAL TYPE OP" SED: the edit must apply, and the run must fail.
mutant() {
  name=$1 run=$2 edit=$3
  runs=$((runs + 1))
  sed "$edit" "$cl/segreduce.cl" > "$tmp/segreduce.cl"
  if cmp -s "$cl/segreduce.cl" "$tmp/segreduce.cl"; then
    echo "FAIL: the edit for \"$name\" did not apply"; bad=1; return
  fi
  # shellcheck disable=SC2086
  out=$("$ts" $(echo "$run" | cut -d' ' -f1) edges "$tmp" $(echo "$run" | cut -d' ' -f2-) 2>&1)
  rc=$?
  if [ "$rc" != 1 ] || ! echo "$out" | grep -q "values wrong"; then
    echo "FAIL: \"$name\" passed or broke otherwise (exit $rc): test_segments $run"
    echo "$out" | tail -3; bad=1; return
  fi
  echo "ok: $name FAILED ($(echo "$out" | grep -c "values wrong") cases wrong; $run)"
}

# piece(): the head and the tail, read one by one, and the 16-byte loads
mutant "head not read" "8 int sum" \
  's/for (ulong i = sb + rank; i < a; i += team)/for (ulong i = sb + rank; i < sb; i += team)/'
mutant "tail not read" "8 int sum" \
  's/for (ulong i = tail + rank; i < se; i += team)/for (ulong i = tail + rank; i < tail; i += team)/'
mutant "last vector of a piece not loaded" "8 int sum" \
  's/w\[u\] = at < nv ? v\[at\] : (TV)(0);/w[u] = at + 1 < nv ? v[at] : (TV)(0);/'
mutant "vectors past the piece combined (zeros)" "8 int prod" \
  's/if (i + ((ulong)u << team_log2) < nv) {/if (1) {/'
# run_teams(): the next segment's bounds, the partials' combine, the segment of a slot
mutant "next bounds of the wrong segment" "8 int sum" \
  's/const ulong jn = j + teams;/const ulong jn = j + 1;/'
mutant "last partial of a team dropped" "8 int sum" \
  's/for (uint q = 1; q < w; ++q) {/for (uint q = 1; q + 1 < w; ++q) {/'
mutant "last tree level skipped" "64 int sum" \
  's/h >= SEG_SERIAL; h >>= 1)/h > SEG_SERIAL; h >>= 1)/'
mutant "slot written to the wrong segment" "8 int sum" \
  's/const ulong jr = base + (ulong)r \* teams + t;/const ulong jr = base + (ulong)r + t;/'
# segchunks: the search, and which pieces are parts
mutant "search narrows past the answer" "8 int sum" \
  's/\*hi = min(a + step, \*hi);/*hi = min(a + step - 1, *hi);/'
mutant "search counters not rotated" "8 int sum" \
  's/volatile __local uint \*f = ff + 2 \* r;/volatile __local uint *f = ff;/'
mutant "both ends searched at the chunk start" "8 int sum" \
  's/search_round(SEGS, lo1, hi1, ce - 1, f + 1);/search_round(SEGS, lo1, hi1, cb, f + 1);/'
mutant "a segment starting on the chunk start taken for a part" "8 int sum" \
  's/bound(SEGS, jlo) < cb) jfirst/bound(SEGS, jlo) <= cb) jfirst/'
mutant "a segment ending on the chunk end taken for a part" "8 int sum" \
  's/bound(SEGS, jhi) > ce) jlast/bound(SEGS, jhi) >= ce) jlast/'
# segfix: a work-item's own spans, and the group's long ones
mutant "segfix (own) forgets the first chunk's part" "8 int sum" \
  's/T x = part_last\[ga\];/T x = (T)(OCR_IDENTITY);/'
mutant "segfix (own) forgets the last chunk's part" "8 int sum" \
  's/for (ulong q = ga + 1; q <= gb; ++q) {/for (ulong q = ga + 1; q < gb; ++q) {/'
mutant "segfix (group) forgets the first chunk's part" "8 int sum" \
  's/if (lid == 0) out\[jj\] = OCR_COMBINE(part_last\[ga\], x);/if (lid == 0) out[jj] = x;/'
# offsets past n: bound() clamps them (pieces are also cut to the chunk, or to n)
mutant "offsets not clamped to n" "8 int sum" 's/    return min(b, n);/    return b;/'

# ogmutant NAME "LOCAL TYPE OP" SED DIAGNOSTIC: under oclgrind, DIAGNOSTIC appears.
ogmutant() {
  name=$1 run=$2 edit=$3 diag=$4
  runs=$((runs + 1))
  sed "$edit" "$cl/segreduce.cl" > "$tmp/segreduce.cl"
  if cmp -s "$cl/segreduce.cl" "$tmp/segreduce.cl"; then
    echo "FAIL: the edit for \"$name\" did not apply"; bad=1; return
  fi
  # shellcheck disable=SC2086
  out=$("$og" 0 "$ts" $(echo "$run" | cut -d' ' -f1) edges "$tmp" $(echo "$run" | cut -d' ' -f2-) 2>&1)
  if ! echo "$out" | grep -q "$diag"; then
    echo "FAIL: \"$name\" drew no \"$diag\" from oclgrind: test_segments $run"
    echo "$out" | head -5; bad=1; return
  fi
  echo "ok: $name: oclgrind says \"$diag\" ($run)"
}
if [ -n "$og" ]; then
  ogmutant "16-byte loads aligned without the input offset" "8 int sum" \
    's/const ulong mis = (in_off + sb) & (SEG_VEC - 1);/const ulong mis = sb \& (SEG_VEC - 1);/' \
    "not aligned"
fi

[ "$bad" = 0 ] && echo "ok: all $runs broken copies FAILED (the unbroken one passes)"
exit $bad
