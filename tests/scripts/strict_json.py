"""strict_json.py [--array N] - stdin must be exactly one JSON document with no
NaN or Infinity (not JSON, though Python accepts them by default); with
--array N, an array of N objects."""
import json
import sys


def refuse(name):
    sys.exit(f"not JSON: {name}")


doc = json.loads(sys.stdin.read(), parse_constant=refuse)
if len(sys.argv) == 3 and sys.argv[1] == "--array":
    if not isinstance(doc, list) or len(doc) != int(sys.argv[2]):
        sys.exit(f"expected an array of {sys.argv[2]} elements, got {type(doc).__name__}")
print("ok: one strict JSON document")
