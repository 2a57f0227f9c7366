"""How much `%load_ext jupyter_accel` adds to a kernel, measured side by side in one run.

Each trial is a fresh interpreter that builds an IPython shell (what a kernel has before the user's first cell)
and then, in the "with" variant, runs `%load_ext jupyter_accel`. Trials alternate so machine load hits both
alike. Also lists heavy modules the load imported (there must be none) and the biggest imports (-X importtime).

    python benchmarks/load_ext.py [--trials 9]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("kubernetes", "pydantic", "ray", "jupyter_server", "ipywidgets", "tornado")
BUDGET = 0.3

TRIAL = """
import json, sys, time
t0 = time.perf_counter()
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
t1 = time.perf_counter()
before = set(sys.modules)
if {load!r}:
    shell.run_line_magic("load_ext", "jupyter_accel")
t2 = time.perf_counter()
heavy = sorted(m for m in set(sys.modules) - before if m.split(".")[0] in {heavy!r})
print(json.dumps({{"shell": t1 - t0, "load": t2 - t1, "heavy": heavy}}))
"""


def trial(load: bool) -> dict:
    code = TRIAL.format(load=load, heavy=HEAVY)
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def import_profile(top: int = 8) -> list[tuple[int, str]]:
    """The biggest cumulative imports of `import jupyter_accel.notebook.magics` beyond what IPython loads."""
    code = "import IPython.core.interactiveshell\nimport jupyter_accel.notebook.magics"
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    rows = []
    seen_ipython = False
    for line in out.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = (p.strip() for p in line[len("import time:") :].split("|"))
        if name == "IPython.core.interactiveshell":
            seen_ipython = True
            continue
        if seen_ipython and cumulative.isdigit() and not name.startswith("IPython"):
            rows.append((int(cumulative), name))
    return sorted(rows, reverse=True)[:top]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=9)
    args = parser.parse_args()
    bare, loaded = [], []
    for _ in range(args.trials):
        bare.append(trial(load=False))
        loaded.append(trial(load=True))
    shell_bare = statistics.median(t["shell"] for t in bare)
    shell_loaded = statistics.median(t["shell"] for t in loaded)
    load = statistics.median(t["load"] for t in loaded)
    heavy = sorted({m for t in loaded for m in t["heavy"]})
    print(f"trials: {args.trials} of each, alternating")
    print(f"bare kernel shell start (median):   {shell_bare * 1000:7.1f} ms")
    print(f"shell start, 'with' runs (median):  {shell_loaded * 1000:7.1f} ms")
    print(
        f"%load_ext jupyter_accel (median):   {load * 1000:7.1f} ms  (max {max(t['load'] for t in loaded) * 1000:.1f})"
    )
    print(f"ratio (shell + load_ext) / shell:   {(shell_loaded + load) / shell_loaded:7.3f}")
    print(f"heavy modules imported by load_ext: {heavy or 'none'}")
    print("largest imports after IPython (cumulative, us):")
    for us, name in import_profile():
        print(f"  {us:8d}  {name}")
    ok = load < BUDGET and not heavy
    print(f"budget {BUDGET * 1000:.0f} ms and no heavy imports: {'OK' if ok else 'EXCEEDED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
