#!/usr/bin/env bash
# grade_include_test.sh SRC OCR PYTHON [class] - no include reaches the
# compiler, however it is spelled. A student file that includes a classmate's
# kernel (or the teacher's ANSWERS.md) through a macro, <...>, a
# backslash-newline splice, %:, ??=, a comment inside the directive,
# #include_next or #import would be resolved by the compiler from the working
# directory (here the class's parent, as a teacher runs it) and pass: each
# must be refused with its file:line, through --kernel-file (exit 3) and
# --grade (BUILD_ERROR, the message in the detail). With "class": the same
# files as students of a class graded by classroom/grade_class.sh, plus a
# flat folder where bob.cl is only '#include "alice.cl"': every one
# BUILD_ERROR, alice PASS, and the answers' text in no output.
set -u
src=$1 ocr=$2 py=$3 mode=${4:-files}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
other='submissions/Other, Student_2_/alias.cl'
mkdir -p "submissions/Other, Student_2_"
grep -v '#include' "$src/tests/fixtures/kernels_grade/tree.cl" > "$other"
printf 'ANSWERS_SECRET_TOKEN = 42;\n' > submissions/ANSWERS.md
# name | the line(s) after '#include "reduce_common.h"' | the line the refusal names
spellings=(
  "macro|#define X \"$other\"\n#include X|3"
  "angle|#include <$other>|2"
  "splice|#inc\\\\\nlude \"$other\"|2"
  "splice_blank|#include \\\\\t\n\"$other\"|2"
  "digraph|%%:include \"$other\"|2"
  "trigraph|??=include \"$other\"|2"
  "comment|#/* x */include \"$other\"|2"
  "comment_lines|/* x\n */ #  include \"$other\"|3"
  "include_next|#include_next \"$other\"|2"
  "import|#import \"$other\"|2"
  "has_include|#if __has_include(\"$other\")\n#endif|2"
  "answers|#define A \"submissions/ANSWERS.md\"\n#include A|3"
)
for s in "${spellings[@]}"; do
  IFS='|' read -r name body line <<< "$s"
  mkdir -p "submissions/Eve $name, Student_9_"
  f="submissions/Eve $name, Student_9_/k.cl"
  printf "#include \"reduce_common.h\"\n$body\n" > "$f"
  [ "$name" = has_include ] && grep -v '#include' "$other" >> "$f"
  [ "$mode" = class ] && continue
  "$ocr" --kernel-file "$f" --kernel-name tree_reduce --elems-per-group 1024 -s 4096 > out 2> err
  rc=$?
  [ $rc = 3 ] || bad "$name: --kernel-file exit $rc, not 3 ($(tail -c 200 err))"
  grep -qF "$f:$line: \`" err && grep -qF "an include the compiler would resolve itself" err ||
    bad "$name: --kernel-file: no refusal naming $f:$line: $(head -c 300 err)"
  grep -q SECRET_TOKEN out err && bad "$name: the answers' text in the output"
  "$ocr" --grade --kernel-file "$f" --kernel-name tree_reduce --elems-per-group 1024 \
    --grade-types int --grade-ops sum --format json > out.json 2> err
  rc=$?
  "$py" - out.json "$f:$line: " <<'PY' || bad "$name: --grade (exit $rc)"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["summary"]
assert s["verdict"] == "BUILD_ERROR", s["verdict"]
detail = " ".join(c.get("detail", "") for c in d["cases"])
assert sys.argv[2] in detail and "an include the compiler would resolve itself" in detail, detail[:400]
assert "SECRET_TOKEN" not in json.dumps(d)
PY
done
# What only looks like an include is not one: in comments, in a string, a
# file beside the kernel included the plain way (with blanks), a line that
# a comment ends.
if [ "$mode" = files ]; then
  mkdir -p benign
  printf '#define HELPER_ONE 1\n' > benign/helper.h
  { printf '#include "reduce_common.h"\n  #  include "helper.h"\n'
    printf '// #include <stdio.h> and #include X\n/* a comment\n#include <secret.h>\n*/\n'
    printf '#define WORDS "#include <x>, __has_include"\n'
    grep -v '#include' "$other"; } > benign/k.cl
  "$ocr" --kernel-file benign/k.cl --kernel-name tree_reduce --elems-per-group 1024 -s 4096 > out 2> err ||
    bad "benign: exit $?: $(head -c 300 err)"
fi
if [ "$mode" = class ]; then
  cp "$src/tests/fixtures/kernels_grade/tree.cl" submissions/alice.cl
  printf '#include "alice.cl"\n' > submissions/bob.cl
  OCR=$ocr timeout 1200 "$src/classroom/grade_class.sh" --kernel tree_reduce --types int --ops sum \
    --speed-runs 0 submissions out > class.out 2> class.err || bad "grade_class exit $?: $(tail -3 class.err)"
  "$py" - out <<'PY' || bad "the class's gradebook"
import csv, sys
rows = {r["student"]: r for r in csv.DictReader(open(sys.argv[1] + "/gradebook.csv"))}
print({k: r["verdict"] for k, r in rows.items()})
assert rows["alice"]["verdict"] in ("PASS", "PASS_UNCHECKED"), rows["alice"]
assert rows["bob"]["verdict"] == "BUILD_ERROR", rows["bob"]
eves = [r for k, r in rows.items() if k.startswith("Eve ")]
assert len(eves) == 12, len(eves)
for r in eves:
    assert r["verdict"] == "BUILD_ERROR", r
PY
  grep -rq SECRET_TOKEN out && bad "the answers' text in the class's output: $(grep -rl SECRET_TOKEN out)"
  grep -q 'cannot find included file "alice.cl"' out/feedback/bob.txt out/logs/bob.log ||
    bad "bob's feedback does not say alice.cl is not his"
fi
[ $fail = 0 ] && echo "PASS: every spelling refused ($mode)"
exit $fail
