#!/usr/bin/env bash
# readme_sample_test.sh README OCR PYTHON - the README's "Sample output" is what
# the binary prints: runs the command the section names (its first
# `oclReduction ...` in backquotes) and compares the output with the section's
# first code block line by line, with every number, the kernel's path and the
# platform's and device's names masked (they belong to the machine).
set -u
readme=$1 ocr=$2 py=$3
"$py" - "$readme" "$ocr" <<'PY'
import re, subprocess, sys
readme, ocr = sys.argv[1], sys.argv[2]
text = open(readme, encoding="utf-8").read()
sec = text[text.index("## Sample output"):]
sec = sec[:sec.index("\n## ", 3)]
cmd = re.search(r"`oclReduction ([^`]*)`", sec).group(1).split()
block = re.search(r"```\n(.*?)```", sec, re.S).group(1)
out = subprocess.run([ocr] + cmd, stdout=subprocess.PIPE, check=True, text=True).stdout

def mask(s):
    lines = []
    for line in s.rstrip("\n").split("\n"):
        line = re.sub(r"^(Using kernel '\w+') \(.*\)$", r"\1 (PATH)", line)
        line = re.sub(r"^(Platform|Will use this device): .*", r"\1: NAME", line)
        lines.append(re.sub(r"[-+]?\d+(\.\d+)?(e[-+]?\d+)?", "#", line))
    return lines

want, got = mask(block), mask(out)
for i, (w, g) in enumerate(zip(want, got)):
    if w != g:
        sys.exit(f"FAIL: line {i + 1} differs:\n  README: {w}\n  binary: {g}")
if len(want) != len(got):
    sys.exit(f"FAIL: the README shows {len(want)} lines, the binary prints {len(got)}")
print(f"ok: the README's sample is what `oclReduction {' '.join(cmd)}` prints ({len(got)} lines)")
PY
