# RUN: %PYTHON %s | FileCheck %s
#
# Fuzzes two hardening promises of the IR bindings (errors.py's header, 1 and
# 2) with hypothesis:
# - deep nesting of every kind MLIR's parsers recurse on (angle brackets,
#   affine sums, unary minus signs, parentheses in affine expressions,
#   brackets), parsed through each entry point, on threads with stacks from
#   256 KB to 8 MB: each parse succeeds or raises MLIRError/ValueError;
# - stale handles: handles taken at random points of a module, then a pass
#   run (or none), then random uses of them: each use works or raises
#   RuntimeError, and one taken before a run never reads freed memory.
#
# Each batch runs in an interpreter of its own (`fuzz_ir_hardening.py BATCH`):
# a crash fails that batch, which then prints the example it was running.
# Examples are derandomized and their number fixed; FUZZ_SCALE=20 runs twenty
# times as many, random ones.

import collections
import gc
import json
import os
import subprocess
import sys
import tempfile
import threading

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mlir.ir import Attribute, Context, MLIRError, Module, Operation, Type
from mlir.passmanager import PassManager

# The harness's scale (FUZZ_SCALE), halved under sanitizers unless given.
from fuzzing import SANITIZED_FACTOR, SCALE

# The deepest nesting fuzzed: 120,000 levels, needing stacks of gigabytes.
# Under sanitizers 20,000 (still 20 times what overflowed a 1 MB stack):
# ASan maps and clears shadow memory for each such stack, which made the
# batch run for hours at FUZZ_SCALE=20. The deeper inputs run unsanitized.
MAX_DEPTH = 20000 if os.environ.get("MLIR_SANITIZERS") else 120000

EXPECTED = (MLIRError, ValueError, RuntimeError)

outcomes = collections.Counter()
examples = 0


def record(what):
    """Writes what is about to run where the parent finds it after a crash."""
    path = os.environ.get("FUZZ_LAST_EXAMPLE")
    if path:
        with open(path, "w") as f:
            f.write(what[:3000])


def attempt(fn):
    try:
        fn()
    except EXPECTED as error:
        assert str(error), f"{type(error).__name__} without a message"
        outcomes[type(error).__name__] += 1
        return
    outcomes["ok"] += 1


def fuzz(max_examples, strategy):
    def decorate(test):
        def counted(case):
            global examples
            examples += 1
            record(repr(case))
            test(case)

        counted.__name__ = test.__name__
        return settings(
            max_examples=max(1, int(max_examples * SCALE * SANITIZED_FACTOR)),
            derandomize=SCALE == 1,
            database=None,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            print_blob=False,
        )(given(strategy)(counted))

    return decorate


NESTINGS = {
    "tuple": ("type", lambda n: "tuple<" * n + "i32" + ">" * n),
    "sum": ("attribute", lambda n: "affine_map<(d0) -> (" + " + ".join(["d0"] * n) + ")>"),
    "minus": ("attribute", lambda n: "affine_map<(d0) -> (" + "-" * n + "d0)>"),
    "parens": ("attribute", lambda n: "affine_map<(d0) -> (" + "-(" * n + "d0" + ")" * n + ")>"),
    "array": ("attribute", lambda n: "[" * n + "]" * n),
    "llvm": ("type", lambda n: "!llvm.struct<(" * n + "i32" + ")>" * n),
}


def parse(entry, kind, text):
    if entry == "direct":
        (Type.parse if kind == "type" else Attribute.parse)(text)
    elif kind == "type":
        (Module.parse if entry == "module" else Operation.parse)(
            "func.func private @f(" + text + ")"
        )
    else:
        (Module.parse if entry == "module" else Operation.parse)(
            "func.func private @f() attributes {a = " + text + "}"
        )


def batch_nesting():
    @fuzz(
        20,
        st.tuples(
            st.sampled_from(sorted(NESTINGS)),
            st.integers(1, MAX_DEPTH),
            st.sampled_from(["direct", "module", "operation"]),
            st.sampled_from([256 << 10, 1 << 20, 8 << 20]),
            st.booleans(),  # truncate the input: a parse error deep inside
        ),
    )
    def test(case):
        name, depth, entry, stack, truncate = case
        kind, make = NESTINGS[name]
        text = make(depth)
        if truncate:
            text = text[: len(text) * 2 // 3]

        def run():
            with Context():
                attempt(lambda: parse(entry, kind, text))

        threading.stack_size(stack)
        thread = threading.Thread(target=run)
        thread.start()
        thread.join()
        threading.stack_size(0)

    test()


MODULE = """
func.func @f(%a: i64, %b: i64) -> i64 {
  %r = arith.addi %a, %b : i64
  %c = arith.cmpi slt, %r, %a : i64
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  return %r : i64
^bb2:
  return %a : i64
}
func.func @g(%x: f32) -> f32 {
  %y = arith.addf %x, %x : f32
  return %y : f32
}
"""

PIPELINES = [
    None,
    "builtin.module(canonicalize)",
    "builtin.module(cse)",
    "builtin.module(convert-func-to-llvm,convert-arith-to-llvm,"
    "convert-cf-to-llvm,reconcile-unrealized-casts)",
    "builtin.module(func.func(canonicalize))",
]


def handles(module):
    """Every handle reachable from the module, with how it was reached."""
    found = [("module.operation", module.operation), ("module.body", module.body)]
    for i, op in enumerate(module.body.operations):
        found.append((f"op{i}", op))
        found.append((f"op{i}.attributes", op.attributes))
        for j, region in enumerate(op.regions):
            found.append((f"op{i}.region{j}", region))
            for k, block in enumerate(region.blocks):
                found.append((f"op{i}.region{j}.block{k}", block))
                for m, inner in enumerate(block.operations):
                    found.append((f"op{i}.region{j}.block{k}.op{m}", inner))
    return found


def use(handle):
    """Reads what the handle refers to, through every accessor it has."""
    kind = type(handle).__name__
    if kind == "Operation":
        handle.name, str(handle), len(handle.regions), len(list(handle.attributes))
    elif kind == "Block":
        str(handle), [op.name for op in handle.operations]
    elif kind == "Region":
        [str(block) for block in handle.blocks]
    elif kind == "OpAttributeMap":
        len(handle), [named.name for named in handle]


def batch_stale():
    @fuzz(
        25,
        st.tuples(
            st.sampled_from(range(len(PIPELINES))),
            st.lists(st.integers(0, 60), min_size=1, max_size=8),
            st.booleans(),  # run on the module, or on its first function
        ),
    )
    def test(case):
        pipeline, picks, on_module = case
        with Context():
            module = Module.parse(MODULE)
            taken = handles(module)
            chosen = [taken[p % len(taken)] for p in picks]
            if PIPELINES[pipeline] is not None:
                target = module.operation if on_module else module.body.operations[0]
                attempt(lambda: PassManager.parse(PIPELINES[pipeline]).run(target))
            for label, handle in chosen:
                record(f"{case!r}: using {label}")
                attempt(lambda: use(handle))
            # Taken again after the run, every handle works.
            for label, handle in handles(module):
                use(handle)
            del module, taken, chosen
        gc.collect()

    test()


BATCHES = {name[len("batch_") :]: fn for name, fn in globals().items() if name.startswith("batch_")}


def run_batch(name):
    BATCHES[name]()
    gc.collect()
    assert Context._get_live_count() == 0, f"{Context._get_live_count()} contexts alive"
    print("RESULT " + json.dumps({"examples": examples, "outcomes": dict(outcomes)}), flush=True)


def main():
    failed = 0
    for name in BATCHES:
        with tempfile.NamedTemporaryFile("r", suffix=".txt") as last:
            env = dict(os.environ, FUZZ_LAST_EXAMPLE=last.name)
            process = subprocess.run(
                [sys.executable, __file__, name],
                env=env,
                capture_output=True,
                text=True,
                timeout=900 * SCALE,  # catches hangs, not long runs
            )
            results = [line for line in process.stdout.splitlines() if line.startswith("RESULT ")]
            if process.returncode != 0 or not results:
                failed += 1
                print(f"batch {name}: FAILED with exit code {process.returncode}")
                print(f"  last example: {open(last.name).read()!r}")
                print("  stderr: " + process.stderr[-4000:].replace("\n", "\n  "))
                continue
        result = json.loads(results[-1][len("RESULT ") :])
        counts = ", ".join(f"{k} {v}" for k, v in sorted(result["outcomes"].items()))
        print(f"batch {name}: {result['examples']} examples, no crash ({counts})")
    print(f"fuzz_ir_hardening: {len(BATCHES)} batches, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        run_batch(sys.argv[1])
    else:
        main()

# CHECK: batch nesting: {{[0-9]+}} examples, no crash ({{.*}}ok
# CHECK: batch stale: {{[0-9]+}} examples, no crash ({{.*}}RuntimeError {{[1-9]}}
# CHECK: fuzz_ir_hardening: 2 batches, 0 failed
