"""The persistent object cache: from source text to the first call's result,
in a new process, with the cache empty (cold) and filled (warm).

Each measure runs `jit(source)` and the first call in a new Python process,
timing them inside it (not the interpreter's start or the imports). Cold
and warm runs take turns; each keeps its median. Also compares the cold time
against no cache at all (the cache's cost on a miss: writing the entry).

`--baseline DIR` also times, in the same turns, the package at DIR (such as
`bazel-bin/python` of a build before the cache: `git worktree add /tmp/old
<commit>`, then `./bazelw build //python:mlir` there) without a cache: cold
compiles must be no slower than before.

`--short` (or BENCH_SHORT=1) runs a few rounds, for a smoke test (CI): the
figures then mean nothing.
"""

import os
import shutil
import statistics
import subprocess
import sys
import tempfile

SHORT = "--short" in sys.argv[1:] or os.environ.get("BENCH_SHORT") == "1"
BASELINE = sys.argv[sys.argv.index("--baseline") + 1] if "--baseline" in sys.argv else None
ROUNDS = 2 if SHORT else 15

# Runs in the new process: argv = [functions, cache_dir or ""]; prints seconds.
CHILD = r"""
import sys, time
from mlir.execution_engine import jit
count = int(sys.argv[1])
if count == 0:
    source = '''func.func @f0(%a: f64, %b: f64) -> f64 {
  %c = arith.addf %a, %b : f64
  return %c : f64
}'''
else:
    source = "\n".join(f'''func.func @f{i}(%a: f64, %b: f64) -> f64 {{
  %c = arith.mulf %a, %b : f64
  %d = arith.addf %c, %a : f64
  %e = math.sqrt %d : f64
  %f = arith.divf %e, %b : f64
  return %f : f64
}}''' for i in range(count))
start = time.perf_counter()
# argv[2] "-": a package without the cache's parameter.
module = jit(source) if sys.argv[2] == "-" else jit(source, cache_dir=sys.argv[2] or None)
result = module.f0(2.0, 3.0)
print(time.perf_counter() - start)
"""


def run(functions: int, cache_dir: str | None, package: str | None = None) -> float:
    env = dict(os.environ)
    if package:
        env["PYTHONPATH"] = os.pathsep.join([package, env.get("PYTHONPATH", "")])
    output = subprocess.run(
        [sys.executable, "-c", CHILD, str(functions), cache_dir or ""],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout
    return float(output)


def main() -> None:
    print("jit() to the first call's result, in a new process (median of", ROUNDS, "rounds)")
    for name, functions, goal in (("add", 0, 1 / 5), ("200 functions", 200, 1 / 20)):
        directory = tempfile.mkdtemp(prefix="jit_cache_bench_")
        try:
            uncached, cold, warm, baseline = [], [], [], []
            for _ in range(ROUNDS):
                shutil.rmtree(directory, ignore_errors=True)
                uncached.append(run(functions, None))
                cold.append(run(functions, directory))
                warm.append(run(functions, directory))
                if BASELINE:
                    baseline.append(run(functions, "-", BASELINE))
        finally:
            shutil.rmtree(directory, ignore_errors=True)
        u, c, w = (statistics.median(x) for x in (uncached, cold, warm))
        line = (
            f"{name}: no cache {u * 1e3:.1f} ms, cold {c * 1e3:.1f} ms, warm {w * 1e3:.1f} ms; "
            f"warm/cold {w / c:.3f} (goal <= {goal:.3f}), cold/no cache {c / u:.2f}"
        )
        if baseline:
            b = statistics.median(baseline)
            line += f"; before the cache {b * 1e3:.1f} ms, cold/before {c / b:.2f} (goal <= 1.10)"
        print(line)


if __name__ == "__main__":
    main()
