#!/usr/bin/env bash
# expect.sh - runs one command and checks its exit status and output.
#   expect.sh [--rc N] [--out RE] [--err RE] [--no-out RE] [--no-err RE]
#             [--golden-out FILE] [--golden-err FILE] [--empty-err] [--env V=X]
#             [--pocl | --device-matching RE] [--hide-platforms DIR] [--ulimit-v KB]
#             -- CMD ARGS...
# Regular expressions are grep -E patterns, matched against any line.
# --pocl: the test needs POCL (CMD is oclReduction): its platform is found by
# name in CMD --list and replaces @P@ in ARGS, or is passed as -p P if no
# argument holds @P@; without POCL the test says SKIPPED and exits 77 (the
# test's SKIP_RETURN_CODE), so it holds on machines whose default device is
# another (tests/select_device.sh).
# --device-matching RE: likewise, the first device whose lines in CMD --list
# (with the --env settings) match RE, passed as -p P -d D.
# --hide-platforms DIR: runs CMD with OCL_ICD_VENDORS=DIR (an empty directory:
# no platform), or says SKIPPED where the ICD loader ignores the variable.
# --ulimit-v KB: runs CMD under `ulimit -v KB`, or says SKIPPED where no
# driver here loads within that limit (CMD --list run under it says so).
set -u
rc_want=0 outs=() errs=() no_outs=() no_errs=() gout="" gerr="" empty_err=0 envs=() pocl=0 match="" hide= limit=
while [ $# -gt 0 ]; do
  case "$1" in
    --rc) rc_want=$2; shift 2 ;;
    --out) outs+=("$2"); shift 2 ;;
    --err) errs+=("$2"); shift 2 ;;
    --no-out) no_outs+=("$2"); shift 2 ;;
    --no-err) no_errs+=("$2"); shift 2 ;;
    --golden-out) gout=$2; shift 2 ;;
    --golden-err) gerr=$2; shift 2 ;;
    --empty-err) empty_err=1; shift ;;
    --env) envs+=("$2"); shift 2 ;;
    --pocl) pocl=1; shift ;;
    --device-matching) match=$2; shift 2 ;;
    --hide-platforms) hide=$2; shift 2 ;;
    --ulimit-v) limit=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "expect.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
. "$(dirname "$0")/select_device.sh"
if [ -n "$hide" ]; then
  icd_vendors_work "$1" "$hide" ||
    skip_test "this machine's OpenCL ICD loader ignores OCL_ICD_VENDORS (NVIDIA's does), so no platform can be hidden"
  envs+=("OCL_ICD_VENDORS=$hide")
fi
[ -z "$limit" ] || need_loads_within "$limit" env ${envs[@]+"${envs[@]}"} "$1"
if [ -n "$match" ]; then
  pd=$(device_where "$match" env ${envs[@]+"${envs[@]}"} "$1") ||
    skip_test "no OpenCL device here matches /$match/ in $1 --list"
  set -- "$1" -p "${pd% *}" -d "${pd#* }" "${@:2}"
fi
if [ "$pocl" = 1 ]; then
  p=$(pocl_platform env ${envs[@]+"${envs[@]}"} "$1") ||
    skip_test "needs POCL: no 'Portable Computing Language' platform in $1 --list"
  cmd=("$1") subst=0
  for a in "${@:2}"; do [ "${a//@P@/}" = "$a" ] || subst=1; cmd+=("${a//@P@/$p}"); done
  [ "$subst" = 1 ] || cmd=("$1" -p "$p" "${@:2}")
  set -- "${cmd[@]}"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(if [ -n "$limit" ]; then ulimit -v "$limit" || exit 125; fi
 exec env ${envs[@]+"${envs[@]}"} "$@") >"$tmp/out" 2>"$tmp/err"
rc=$?
fail=0
say() { echo "FAIL: $*"; fail=1; }
[ "$rc" = "$rc_want" ] || say "exit status $rc, expected $rc_want"
for re in ${outs[@]+"${outs[@]}"}; do grep -Eq -- "$re" "$tmp/out" || say "stdout lacks /$re/"; done
for re in ${errs[@]+"${errs[@]}"}; do grep -Eq -- "$re" "$tmp/err" || say "stderr lacks /$re/"; done
for re in ${no_outs[@]+"${no_outs[@]}"}; do grep -Eq -- "$re" "$tmp/out" && say "stdout has /$re/"; done
for re in ${no_errs[@]+"${no_errs[@]}"}; do grep -Eq -- "$re" "$tmp/err" && say "stderr has /$re/"; done
[ -z "$gout" ] || diff -u "$gout" "$tmp/out" || say "stdout differs from $gout"
[ -z "$gerr" ] || diff -u "$gerr" "$tmp/err" || say "stderr differs from $gerr"
# Sanitizer builds: any report fails, whatever the exit status (a leak in a run
# that must exit 1 would otherwise pass).
grep -Eq "Sanitizer|runtime error:" "$tmp/err" && say "a sanitizer reported on stderr"
[ "$empty_err" = 0 ] || [ ! -s "$tmp/err" ] || say "stderr is not empty"
if [ "$fail" != 0 ]; then
  echo "--- command: $*"; echo "--- stdout:"; cat "$tmp/out"; echo "--- stderr:"; cat "$tmp/err"
  exit 1
fi
echo "ok: $*"
