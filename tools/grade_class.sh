#!/usr/bin/env bash
# grade_class.sh DIR [OUTDIR] - grades every DIR/*.cl (one file per student)
# with oclReduction --grade and writes, in OUTDIR (default DIR/grades):
#   gradebook.csv  student,verdict,passed,checks,first_failure: one row per
#                  file, in name order; the same inputs give the same file
#   speed.csv      student,speed_ratio (kernel time / reduce6's; timing, so it
#                  varies from run to run and is kept apart from the grades)
#   STUDENT.csv    the grader's per-case report; STUDENT.err its messages
# Each file may name its kernel, elements per group and work-group size in a
# line "// grade: kernel=NAME elems=E local=L" (defaults: my_reduce 1024 64).
# OCR names the oclReduction binary (default: oclReduction on PATH);
# GRADE_TIMEOUT the seconds one case may run (default: the grader's, 20).
# Exit status: 0 when every file was graded (whatever the verdicts), 3 when
# the environment is broken (the grader said so for some file).
set -u
dir=${1:?usage: grade_class.sh DIR [OUTDIR]}
out=${2:-$dir/grades}
ocr=${OCR:-oclReduction}
mkdir -p "$out"
files=()
while IFS= read -r f; do files+=("$f"); done < <(find "$dir" -maxdepth 1 -name '*.cl' | LC_ALL=C sort)
[ ${#files[@]} -gt 0 ] || { echo "grade_class.sh: no .cl files in $dir" >&2; exit 2; }
echo "student,verdict,passed,checks,first_failure" > "$out/gradebook.csv"
echo "student,speed_ratio" > "$out/speed.csv"
start=$(date +%s) i=0 rc=0
for f in "${files[@]}"; do
  i=$((i + 1))
  student=$(basename "$f" .cl)
  hdr=$(grep -m1 -o 'grade:.*' "$f" || true)
  val() { sed -n "s/.*$1=\([^ ]*\).*/\1/p" <<<"$hdr"; }
  name=$(val kernel) e=$(val elems) l=$(val local)
  printf '\rgrade_class: %d/%d %-30s %ds' "$i" "${#files[@]}" "$student" $(($(date +%s) - start)) >&2
  args=(--grade --kernel-file "$f" --kernel-name "${name:-my_reduce}" --elems-per-group "${e:-1024}"
        -w "${l:-64}" --format csv)
  [ -n "${GRADE_TIMEOUT:-}" ] && args+=(--timeout "$GRADE_TIMEOUT")
  "$ocr" "${args[@]}" > "$out/$student.csv" 2> "$out/$student.err"
  status=$?
  if [ "$status" -ge 2 ]; then
    echo "$student,ERROR,0,0,\"the grader exited $status: see $student.err\"" >> "$out/gradebook.csv"
    echo "$student," >> "$out/speed.csv"
    [ "$status" = 3 ] && rc=3
    continue
  fi
  # The summary row: summary,,,,,VERDICT,PASSED/CHECKS,RATIO,"FIRST FAILURE"
  IFS=, read -r _ _ _ _ _ verdict score ratio first < <(grep '^summary,' "$out/$student.csv")
  echo "$student,$verdict,${score%/*},${score#*/},${first:-\"\"}" >> "$out/gradebook.csv"
  echo "$student,$ratio" >> "$out/speed.csv"
done
printf '\rgrade_class: %d files in %ds: %s\n' "${#files[@]}" $(($(date +%s) - start)) "$out/gradebook.csv" >&2
exit "$rc"
