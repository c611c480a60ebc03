# RUN: %PYTHON %s | FileCheck %s
#
# jit() parses and lowers MLIR text on a stack sized for how deeply it nests,
# whatever the calling thread's stack: deep IR is a result or an MLIRError,
# never a stack overflow. (mlir.ir's own Module.parse and PassManager.run
# are upstream's and recurse on the caller's stack.)

import threading

from mlir.execution_engine import jit
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


# CHECK: 20000 deep on the main thread: 42
module = jit(nested(20000), cache_dir=None)
print("20000 deep on the main thread:", module.deep(42))

# CHECK: 3000 deep on a 512 KB stack: 7
module = on_small_stack(lambda: jit(nested(3000), cache_dir=None))
print("3000 deep on a 512 KB stack:", on_small_stack(lambda: module.deep(7)))

# CHECK: error: MLIRError: Unable to parse module assembly:
# CHECK-NEXT: error: "-":{{[0-9]+}}:11: use of undeclared SSA value name
error = on_small_stack(lambda: jit(nested(3000, yielded="%nope"), cache_dir=None))
print("error:", type(error).__name__ + ":", error)
assert isinstance(error, MLIRError)
