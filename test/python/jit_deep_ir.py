# RUN: %PYTHON %s | FileCheck %s
#
# jit() parses and lowers MLIR text on a stack sized for how deeply it nests,
# whatever the calling thread's stack: deep IR is a result or an MLIRError,
# never a stack overflow. (mlir.ir's own Module.parse and PassManager.run
# are upstream's and recurse on the caller's stack.)

import threading

from mlir import ir
from mlir.execution_engine import FAST_PIPELINE, jit
from mlir.ir import MLIRError


def nested(depth, yielded="%c"):
    """func.func @deep(%c: i32) -> i32 returning `yielded` from inside
    `depth` nested scf.execute_region ops."""
    text = "func.func @deep(%c: i32) -> i32 {\n"
    text += "".join(f"%r{i} = scf.execute_region -> i32 {{\n" for i in range(depth))
    text += f"scf.yield {yielded} : i32\n"
    for i in reversed(range(depth)):
        text += "}\n" + (f"scf.yield %r{i} : i32\n" if i else "")
    return text + "return %r0 : i32\n}\n"


def on_small_stack(fn):
    """fn() on a thread with a 512 KB stack: its result or its exception."""
    outcome = []

    def run():
        try:
            outcome.append(fn())
        except Exception as error:
            outcome.append(error)

    threading.stack_size(512 * 1024)
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    threading.stack_size(0)
    return outcome[0]


# CHECK: 5000 deep on the main thread: 42
module = jit(nested(5000), cache_dir=None)
print("5000 deep on the main thread:", module.deep(42))

# CHECK: 3000 deep on a 512 KB stack: 7
module = on_small_stack(lambda: jit(nested(3000), cache_dir=None))
print("3000 deep on a 512 KB stack:", on_small_stack(lambda: module.deep(7)))

# CHECK: error: MLIRError: Unable to parse module assembly:
# CHECK-NEXT: error: "-":{{[0-9]+}}:11: use of undeclared SSA value name
error = on_small_stack(lambda: jit(nested(3000, yielded="%nope"), cache_dir=None))
print("error:", type(error).__name__ + ":", error)
assert isinstance(error, MLIRError)

# What jit() reads of the module, on a small stack: a function type nesting
# 5000 deep (its tensors are looked for), a matmul's attribute 20000 deep
# (FAST_PIPELINE's element types), and an ir.Module with a 20000-deep
# attribute (printed for the cache and for pickling).
# CHECK: deep function type: JitModule, its call: TypeError
deep_type = "tuple<" * 5000 + "i32" + ">" * 5000
module = on_small_stack(lambda: jit(f"func.func @f(%t: {deep_type}) {{ return }}", cache_dir=None))
error = on_small_stack(lambda: module.f(None))
print(f"deep function type: {type(module).__name__}, its call: {type(error).__name__}")

deep_attr = "[" * 20000 + "1" + "]" * 20000
MATMUL = f"""
func.func @g(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>, %c: tensor<2x2xf32>) -> tensor<2x2xf32> {{
  %r = linalg.matmul {{x = {deep_attr}}}
    ins(%a, %b : tensor<2x2xf32>, tensor<2x2xf32>) outs(%c : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}}"""
# CHECK: deep matmul attribute: JitModule
print(
    "deep matmul attribute:",
    type(on_small_stack(lambda: jit(MATMUL, pipeline=FAST_PIPELINE, cache_dir=None))).__name__,
)

# CHECK: ir.Module with a deep attribute: 1
with ir.Context():
    parsed = ir.Module.parse(
        "func.func @g() -> i32 { %c = arith.constant 1 : i32\n return %c : i32 }"
    )
    attribute = ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 1)
    for _ in range(20000):
        attribute = ir.ArrayAttr.get([attribute])
    parsed.body.operations[0].attributes["x"] = attribute
module = on_small_stack(lambda: jit(parsed, cache_dir=None))
print("ir.Module with a deep attribute:", on_small_stack(lambda: module.g()))
