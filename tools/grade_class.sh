#!/usr/bin/env bash
# grade_class.sh DIR [OUTDIR] - grades every DIR/*.cl (one file per student)
# with oclReduction --grade and writes, in OUTDIR (default DIR/grades):
#   gradebook.csv  student,verdict,passed,checks,first_failure: one row per
#                  file, in name order; the same inputs give the same file
#   speed.csv      student,speed_ratio (kernel time / reduce6's; timing, so it
#                  varies from run to run and is kept apart from the grades)
#   STUDENT.csv    the grader's per-case report
#   STUDENT.err    the student's log: the grader's messages and what the
#                  kernel printed (capped at 64 KiB), never in the reports
# The teacher decides the geometry: GRADE_ELEMS elements per group (default
# 1024) and GRADE_LOCAL work-items (default 64); the grader also tries a
# second geometry of its own. A student's line "// grade: kernel=NAME" may
# name the kernel (default my_reduce), nothing else: elems= or local= there
# are ignored (and the log says so).
# OCR names the oclReduction binary (default: oclReduction on PATH);
# GRADE_TIMEOUT the seconds one case may run (default: the grader's, 20).
# Exit status: 0 when every file was graded (whatever the verdicts), 3 when
# the environment is broken (the grader said so for some file).
set -u
dir=${1:?usage: grade_class.sh DIR [OUTDIR]}
out=${2:-$dir/grades}
ocr=${OCR:-oclReduction}
elems=${GRADE_ELEMS:-1024} local=${GRADE_LOCAL:-64}
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
  name=$(sed -n 's/.*kernel=\([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' <<<"$hdr")
  printf '\rgrade_class: %d/%d %-30s %ds' "$i" "${#files[@]}" "$student" $(($(date +%s) - start)) >&2
  args=(--grade --kernel-file "$f" --kernel-name "${name:-my_reduce}" --elems-per-group "$elems"
        -w "$local" --format csv)
  [ -n "${GRADE_TIMEOUT:-}" ] && args+=(--timeout "$GRADE_TIMEOUT")
  {
    if grep -Eq '(^|[[:space:]])(elems|local)=' <<<"$hdr"; then
      echo "grade_class.sh: ignored in '// $hdr': the teacher's geometry is $elems elements per group, $local work-items" >&2
    fi
    "$ocr" "${args[@]}" > "$out/$student.csv"
  } 2> "$out/$student.err"
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
