"""docs/python.md's example runs as written: its ```python blocks, in order, in one namespace (as cells of a
notebook), and the per-dollar answer computed by hand is the one select(objective="cost") gives.
Usage: python3 test_python_docs.py PERFPRED_BINARY REPO_ROOT  (exit 0 pass, 77 skip, else fail)."""

import contextlib
import io
import os
import re
import sys

ROOT = sys.argv[2]
try:
    import perfpred  # noqa: F401
    import torch  # noqa: F401
    import torchvision  # noqa: F401
except ImportError as e:
    print(f"skip: {e} (the example needs the built module, torch and torchvision)")
    sys.exit(77)

doc = open(os.path.join(ROOT, "docs", "python.md")).read()
cells = re.findall(r"```python\n(.*?)```", doc, re.S)
if len(cells) < 3:
    print(f"FAIL: docs/python.md has {len(cells)} python blocks, expected the 3 of the example")
    sys.exit(1)
ns = {}
out = io.StringIO()
for i, cell in enumerate(cells):
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(cell, f"docs/python.md block {i + 1}", "exec"), ns)
    except Exception as e:
        print(out.getvalue())
        print(f"FAIL: docs/python.md block {i + 1}: {type(e).__name__}: {e}")
        sys.exit(1)
print(out.getvalue())
fail = 0
if ns["best"] != ns["ranking"].best():
    print(f"FAIL: by hand {ns['best']} is fastest per dollar, select(objective='cost') says {ns['ranking'].best()}")
    fail = 1
if {row["gpu"] for row in ns["rows"]} != set(ns["prices"]):
    print("FAIL: the example did not predict every priced GPU")
    fail = 1
if "fastest per dollar:" not in out.getvalue() or len(ns["r"].layers) < 50:
    print("FAIL: the example's output or the winner's layers are missing")
    fail = 1
print("PASS" if not fail else "")
sys.exit(fail)
