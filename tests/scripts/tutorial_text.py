"""tutorial_text.py N ELEM_SIZE - reads oclReduction's text report from stdin
and checks that its first figures are the tutorial's, in the tutorial's
definitions (docs/output.md), up to the printed precision:
  GPU Memory IO        = (N/2) / T kernels in ms        (memops/ms; the
                         tutorial's "T memops/sec", so the line says both)
  GPU Memory bandwidth = (N/2) * element size / T kernels, in GB/s
  T gpu                = kernels + read-back + CPU finish (no upload), so
                         T kernels <= T gpu <= T total
  Speedup              = T ref / T gpu
and that our own end-to-end figures come under their own labels."""
import re
import sys

n, es = int(sys.argv[1]), int(sys.argv[2])
text = sys.stdin.read()


def num(label):
    m = re.search(r"^" + re.escape(label) + r" ([0-9.e+-]+)", text, re.M)
    if not m:
        sys.exit(f"no line '{label} ...'")
    return float(m.group(1))


tk, tg, tref, tt = num("T kernels:"), num("T gpu:"), num("T ref:"), num("T total:")
checks = [("GPU Memory IO:", (n // 2) / tk), ("GPU Memory bandwidth:", (n // 2) * es / (tk * 1e6)),
          ("Speedup:", tref / tg)]
for label, want in checks:  # printed to 4-5 significant digits (bandwidth: 3 decimals)
    got = num(label)
    if abs(got - want) > 1e-3 * abs(want) + 1e-3:
        sys.exit(f"{label} {got}, but the tutorial's definition gives {want}")
if not tk <= tg <= tt * (1 + 1e-4):
    sys.exit(f"expected T kernels {tk} <= T gpu {tg} <= T total {tt}")
if not re.search(r"^GPU Memory IO: \S+ memops/ms \(the tutorial's \"T memops/sec\"", text, re.M):
    sys.exit("the GPU Memory IO line does not say memops/ms and name the tutorial's label")
for label in ("T wall:", "Speedup end to end:"):
    num(label)
if "Bandwidth read:" not in text:
    sys.exit("no 'Bandwidth read:' line")
print("ok: the tutorial's figures follow its definitions")
