# select_device.sh - sourced by tests (bash and sh scripts alike: POSIX sh
# only) that need a particular OpenCL device, so that they hold on any
# machine: one whose default device is a GPU with its vendor's OpenCL, or
# another CPU runtime, as well as POCL alone. A test that
# cannot find what it needs says SKIPPED with the reason and exits 77 (its
# SKIP_RETURN_CODE), never fails for it.

# skip_test REASON: say why and end the test as skipped.
skip_test() { echo "SKIPPED: $*"; exit 77; }

# pocl_platform [env V=X ...] OCR: POCL's platform index, found by name in
# OCR --list (status 1 if there is none).
pocl_platform() {
  local p
  p=$("$@" --list 2>/dev/null | sed -n 's/^Platform \([0-9]*\): Portable Computing Language.*/\1/p' | head -1)
  [ -n "$p" ] && echo "$p"
}

# icd_vendors_work OCR EMPTY_DIR: 0 if OCL_ICD_VENDORS pointing at an empty
# directory hides every platform (ocl-icd, the Khronos loader); some vendors'
# loaders ignore the variable and still list their platforms.
icd_vendors_work() {
  ! OCL_ICD_VENDORS=$2 "$1" --list 2>/dev/null | grep -q '^Platform '
}

# need_loads_within KB [env V=X ...] OCR: returns if OCR --list shows a
# platform under `ulimit -v KB`. A driver may need more address space than a
# test's limit allows (NVIDIA's maps several GiB; POCL a few hundred MiB):
# where none loads, as OCR itself reports, the test is skipped; where --list
# fails otherwise, that is OCR's failure and the test fails.
need_loads_within() {
  local kb=$1 out why
  shift
  out=$( (ulimit -v "$kb" && exec "$@" --list) 2>&1)
  printf '%s\n' "$out" | grep -q '^Platform ' && return 0
  why=$(printf '%s\n' "$out" | grep -m1 .)
  case "$why" in
    *"no OpenCL platform could be loaded"*)
      skip_test "no OpenCL driver here loads within ulimit -v $kb: $why" ;;
  esac
  echo "FAIL: --list under ulimit -v $kb shows no platform, and not because no driver loads: $why"
  exit 1
}

# device_where REGEX [env V=X ...] OCR: "P D", the platform and device index
# of the first device whose lines in OCR --list (its name, type and limits)
# match REGEX (grep -E); status 1 if none does.
device_where() {
  local re=$1 pd
  shift
  pd=$("$@" --list 2>/dev/null | awk -v re="$re" '
    function done() { if (d != "" && block ~ re) { print p, d; found = 1; exit } }
    /^Platform [0-9]+:/ { done(); p = $2; sub(":", "", p); d = ""; block = ""; next }
    /^  Device [0-9]+:/ { done(); d = $2; sub(":", "", d); block = $0; next }
    { block = block " " $0 }
    END { if (!found) done() }')
  [ -n "$pd" ] && echo "$pd"
}
