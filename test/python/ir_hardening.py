# RUN: %PYTHON %s | FileCheck %s
#
# Hardening of the IR and pass-manager bindings (issue 19, round two): no use
# of them crashes the process or silently gives a wrong answer. errors.py's
# header says what is promised for each class. Cases that crashed or hung
# before run in a subprocess, which must exit with 0.

import gc
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import threading

from fixtures import expect_error
from mlir.execution_engine import *
from mlir.ir import *
from mlir.passmanager import *

LOWERING = "builtin.module(convert-func-to-llvm,convert-arith-to-llvm,reconcile-unrealized-casts)"

ADD = """
func.func @add(%a: i64, %b: i64) -> i64 attributes { llvm.emit_c_interface } {
  %r = arith.addi %a, %b : i64
  return %r : i64
}
"""


def in_subprocess(name, code, timeout=300):
    """Runs `code` (with this file's imports and helpers) in a new interpreter;
    prints what it printed and its exit code."""
    print(f"CASE: {name}", flush=True)
    prelude = open(__file__).read().split("# END " + "PRELUDE")[0]
    try:
        result = subprocess.run(
            [sys.executable, "-c", prelude + "\n" + textwrap.dedent(code)],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        print("  timed out")
        return
    for line in result.stdout.splitlines():
        print("  " + line)
    print(f"  exit code: {result.returncode}", flush=True)


def tuple_nest(depth):
    return "tuple<" * depth + "i32" + ">" * depth


def on_thread(stack_size, work, *args):
    """Runs `work(*args)` on a new thread with a stack of `stack_size`
    bytes, and waits for it."""
    threading.stack_size(stack_size)
    thread = threading.Thread(target=work, args=args)
    thread.start()
    thread.join()
    threading.stack_size(0)


# END PRELUDE

# ---------------------------------------------------------------------------
# 1. The parser's stack: every parse entry point runs on a stack sized for its
# input, so nesting of any kind (not only brackets) and any calling thread's
# stack size are safe.

# CHECK-LABEL: CASE: angle brackets 200000 deep
# CHECK: Type.parse: parsed
# CHECK: Module.parse: parsed
# CHECK: Operation.parse: parsed
# CHECK: Module.parseFile: parsed
# CHECK: exit code: 0
in_subprocess(
    "angle brackets 200000 deep",
    """
    with Context():
        t = tuple_nest(200000)
        Type.parse(t)
        print("Type.parse: parsed")
        Module.parse("func.func private @f(" + t + ")")
        print("Module.parse: parsed")
        Operation.parse("func.func private @f(" + t + ")")
        print("Operation.parse: parsed")
        with tempfile.NamedTemporaryFile("w", suffix=".mlir") as f:
            f.write("func.func private @f(" + t + ")")
            f.flush()
            Module.parseFile(f.name)
        print("Module.parseFile: parsed")
    """,
)

# CHECK-LABEL: CASE: affine sum of 300000 terms
# CHECK: affine_map<(d0) -> (d0 * 300000)>
# CHECK: exit code: 0
in_subprocess(
    "affine sum of 300000 terms",
    """
    with Context():
        print(Attribute.parse("affine_map<(d0) -> (" + " + ".join(["d0"] * 300000) + ")>"))
    """,
)

# CHECK-LABEL: CASE: 300000 unary minus signs
# CHECK: affine_map<(d0) -> (d0)>
# CHECK: exit code: 0
in_subprocess(
    "300000 unary minus signs",
    """
    with Context():
        print(Attribute.parse("affine_map<(d0) -> (" + "-" * 300000 + "d0)>"))
    """,
)

# CHECK-LABEL: CASE: 999-deep bracket nests on a thread with a 1 MB stack
# CHECK: Attribute.parse: parsed
# CHECK: Module.parse: parsed
# CHECK: bytecode: parsed
# CHECK: PassManager.parse: parsed
# CHECK: exit code: 0
in_subprocess(
    "999-deep bracket nests on a thread with a 1 MB stack",
    """
    import io
    nest = '"test.op"() ({' * 499 + "}) : () -> ()" * 499
    with Context() as ctx:
        ctx.allow_unregistered_dialects = True
        buffer = io.BytesIO()
        Module.parse(nest).operation.write_bytecode(buffer)
    def run():
        with Context() as ctx:
            ctx.allow_unregistered_dialects = True
            Attribute.parse("[" * 999 + "]" * 999)
            print("Attribute.parse: parsed")
            Module.parse(nest)
            print("Module.parse: parsed")
            Module.parse(buffer.getvalue())
            print("bytecode: parsed")
            PassManager.parse("builtin.module(" * 499 + "cse" + ")" * 499)
            print("PassManager.parse: parsed")
    on_thread(1 << 20, run)
    """,
)

# A parse error on the parser's own thread is still an MLIRError with its
# diagnostics.
# CHECK-LABEL: CASE: error in a deep input
# CHECK: MLIRError: expected '>' in tuple type
# CHECK: exit code: 0
in_subprocess(
    "error in a deep input",
    """
    with Context():
        try:
            Type.parse("tuple<" * 50000 + ">")
        except MLIRError as error:
            print("MLIRError:", error.error_diagnostics[0].message)
    """,
)

# What parses deep is as deep to print, verify, write, transform or compile:
# each runs on a stack sized by the IR's nesting depth (types and attributes
# included), also on a thread whose own stack is small.
# CHECK-LABEL: CASE: printing, verifying and running passes on deep IR
# CHECK: str(type): 1400003 characters
# CHECK: str(built type): 1600002 characters
# CHECK: str(TypeAttr): 1400003 characters
# CHECK: str(module): 1400097 characters
# CHECK: get_asm: 1400097 characters
# CHECK: bytecode: written
# CHECK: verify: True
# CHECK: passes: ran
# CHECK: ExecutionEngine: created, f found
# CHECK: 1 MB thread: 999-deep nest printed, verified, passes ran
# CHECK: exit code: 0
in_subprocess(
    "printing, verifying and running passes on deep IR",
    """
    import io
    with Context():
        t = Type.parse(tuple_nest(200000))
        print(f"str(type): {len(str(t))} characters")
        built = IntegerType.get_signless(8)
        for _ in range(200000):
            built = FunctionType.get([built], [])
        print(f"str(built type): {len(str(built))} characters")
        print(f"str(TypeAttr): {len(str(TypeAttr.get(t)))} characters")
        m = Module.parse("llvm.func @f() attributes {llvm.emit_c_interface} { llvm.return }")
        m.body.operations[0].attributes["deep"] = TypeAttr.get(t)
        print(f"str(module): {len(str(m))} characters")
        print(f"get_asm: {len(m.operation.get_asm())} characters")
        m.operation.write_bytecode(io.BytesIO())
        print("bytecode: written")
        print("verify:", m.operation.verify())
        PassManager.parse("builtin.module(canonicalize,cse)").run(m.operation)
        print("passes: ran")
        engine = ExecutionEngine(m, opt_level=0)
        print("ExecutionEngine: created, f found" if engine.raw_lookup("f") else "f missing")
    def run():
        with Context() as ctx:
            ctx.allow_unregistered_dialects = True
            nest = Module.parse('"test.op"() ({' * 499 + "}) : () -> ()" * 499)
            str(nest)
            nest.operation.verify()
            PassManager.parse("builtin.module(cse)").run(nest.operation)
            print("1 MB thread: 999-deep nest printed, verified, passes ran")
    on_thread(1 << 20, run)
    """,
)

# Operations are destroyed by recursion on their nesting: a module freed on
# a thread with a small stack is destroyed on a stack sized for it, whether
# it came from text or from bytecode. jit() walks deep functions without
# recursing in Python either.
# CHECK-LABEL: CASE: deep modules freed on small stacks
# CHECK: text, 500 deep, 64 KiB thread: freed
# CHECK: bytecode, 990 deep, 128 KiB thread: freed
# CHECK: jit of a function 900 deep: 3
# CHECK: exit code: 0
in_subprocess(
    "deep modules freed on small stacks",
    """
    import io
    def nest(n):
        return ("func.func @f() -> i64 {" + "scf.execute_region {" * n + "scf.yield "
                + "} scf.yield " * (n - 1) + "} %c = arith.constant 3 : i64 "
                + "return %c : i64 }")
    buffer = io.BytesIO()
    with Context():
        Module.parse(nest(990)).operation.write_bytecode(buffer)
    def free(source, what):
        m = Module.parse(source, context=Context())
        del m
        gc.collect()
        print(what + ": freed", flush=True)
    on_thread(64 << 10, free, nest(500), "text, 500 deep, 64 KiB thread")
    on_thread(128 << 10, free, buffer.getvalue(), "bytecode, 990 deep, 128 KiB thread")
    print("jit of a function 900 deep:", jit(nest(900)).f(), flush=True)
    """,
)

# ---------------------------------------------------------------------------
# 2. Stale IR handles: handles into a module taken before a pass run on it
# raise RuntimeError after the run; the module, its operation and its body
# stay valid, and handles taken after the run work.

# CHECK-LABEL: CASE: handles taken before a pass run
# CHECK: name: RuntimeError: this Operation was taken before a pass run (PassManager.run) on its module, which may have erased or replaced it; get it again from the module
# CHECK: str: RuntimeError: this Operation was taken before a pass run
# CHECK: attributes: RuntimeError: this Operation was taken before a pass run
# CHECK: attribute map: RuntimeError: this Operation was taken before a pass run
# CHECK: region: RuntimeError: this Region was taken before a pass run (PassManager.run) on its module, which may have erased or replaced it; get it again from the module
# CHECK: block: RuntimeError: this Block was taken before a pass run (PassManager.run) on its module, which may have erased or replaced it; get it again from the module
# CHECK: block str: RuntimeError: this Block was taken before a pass run
# CHECK: named attribute: function_type
# CHECK: module operation: builtin.module
# CHECK: old body: llvm.func
# CHECK: new handle: llvm.func
# CHECK: new block: 2 operations
# CHECK: exit code: 0
in_subprocess(
    "handles taken before a pass run",
    """
    def attempt(what, fn):
        try:
            print(what + ":", fn())
        except Exception as error:
            print(f"{what}: {type(error).__name__}: {error}")

    with Context():
        module = Module.parse(ADD)
        operation = module.operation
        body = module.body
        func = module.body.operations[0]
        attributes = func.attributes
        named = attributes[0]
        region = func.regions[0]
        block = region.blocks[0]
        PassManager.parse(LOWERING).run(module.operation)
        attempt("name", lambda: func.name)
        attempt("str", lambda: str(func))
        attempt("attributes", lambda: func.attributes)
        attempt("attribute map", lambda: len(attributes))
        attempt("region", lambda: region.blocks)
        attempt("block", lambda: [op.name for op in block])
        attempt("block str", lambda: str(block))
        # A NamedAttribute is a copy of the name and the attribute (which
        # lives in the Context): it stays readable.
        attempt("named attribute", lambda: named.name)
        attempt("module operation", lambda: operation.name)
        attempt("old body", lambda: body.operations[0].name)
        func = module.body.operations[0]
        attempt("new handle", lambda: func.name)
        attempt("new block", lambda: f"{len(func.regions[0].blocks[0].operations)} operations")
    """,
)

# The typed layer lowers a copy of a module given to jit(): handles taken
# from it stay valid.
# CHECK-LABEL: CASE: handles taken before jit()
# CHECK: 1 + 2 = 3
# CHECK: still func.func
# CHECK: exit code: 0
in_subprocess(
    "handles taken before jit()",
    """
    with Context():
        module = Module.parse(ADD)
        func = module.body.operations[0]
        compiled = jit(module)
        print("1 + 2 =", compiled.add(1, 2))
        print("still", func.name)
    """,
)

# ---------------------------------------------------------------------------
# 3. Capsules of destroyed objects are refused; a capsule of a live object
# gives back that object, as upstream's.

# CHECK-LABEL: CASE: capsules of destroyed objects
# CHECK: RuntimeError: the Module of this capsule has been destroyed
# CHECK: RuntimeError: the Context of this capsule has been destroyed
# CHECK: RuntimeError: the PassManager of this capsule has been destroyed
# CHECK: RuntimeError: the Module of this capsule has been destroyed
# CHECK: live module: True
# CHECK: exit code: 0
in_subprocess(
    "capsules of destroyed objects",
    """
    with Context():
        capsule = Module.parse(ADD)._CAPIPtr
        gc.collect()
        expect_error("module", lambda: Module._CAPICreate(capsule))
        context_capsule = Context()._CAPIPtr
        gc.collect()
        expect_error("context", lambda: Context._CAPICreate(context_capsule))
        pm_capsule = PassManager.parse("builtin.module(cse)")._CAPIPtr
        gc.collect()
        expect_error("pass manager", lambda: PassManager._CAPICreate(pm_capsule))
        expect_error("engine", lambda: ExecutionEngine(capsule))
        module = Module.parse(ADD)
        print("live module:", Module._CAPICreate(module._CAPIPtr) is module)
    """,
)

with Context():
    # -----------------------------------------------------------------------
    # 4. NUL in paths is a ValueError, not a silently truncated path.

    # CHECK-LABEL: CASE: parseFile path with a NUL
    # CHECK: ValueError: path contains a NUL character: '/tmp/a\x00b'
    expect_error("parseFile path with a NUL", lambda: Module.parseFile("/tmp/a\0b"))

    # CHECK-LABEL: CASE: tree printing path with a NUL
    # CHECK: ValueError: path contains a NUL character: '/tmp/a\x00b'
    expect_error(
        "tree printing path with a NUL",
        lambda: PassManager.parse("builtin.module(cse)").enable_ir_printing(
            tree_printing_dir_path="/tmp/a\0b"
        ),
    )

    # -----------------------------------------------------------------------
    # 6. Diagnostics that quote invalid UTF-8 show it as \x escapes.

    # CHECK-LABEL: CASE: diagnostic with invalid UTF-8
    # CHECK: MLIRError: Unable to parse module assembly:
    # CHECK-NEXT: error: "-":1:{{[0-9]+}}: redefinition of symbol named '\xff'
    expect_error(
        "diagnostic with invalid UTF-8",
        lambda: Module.parse(b'func.func @"\xff"() { return } func.func @"\xff"() { return }'),
    )

    # CHECK-LABEL: CASE: diagnostic message with invalid UTF-8
    # CHECK: redefinition of symbol named '\xff'
    try:
        Module.parse(b'func.func @"\xff"() { return } func.func @"\xff"() { return }')
    except MLIRError as error:
        print("CASE: diagnostic message with invalid UTF-8")
        print(error.error_diagnostics[0].message)
        repr(error)

    # CHECK-LABEL: CASE: attribute error quoting invalid UTF-8
    # CHECK: MLIRError: Unable to parse attribute: '"\xff'
    expect_error("attribute error quoting invalid UTF-8", lambda: Attribute.parse(b'"\xff'))

    # -----------------------------------------------------------------------
    # 7. IR printing that cannot write its tree is an exception of the run.

    # CHECK-LABEL: CASE: tree printing directory replaced by a file
    # CHECK: RuntimeError: IR printing could not write under tree_printing_dir_path '{{.*}}': {{.*}}Not a directory
    def tree_dir_replaced():
        root = tempfile.mkdtemp()
        tree = os.path.join(root, "tree")
        pm = PassManager.parse("builtin.module(cse)")
        pm.enable_ir_printing(tree_printing_dir_path=tree)
        shutil.rmtree(tree)
        open(tree, "w").close()
        try:
            pm.run(Module.parse(ADD).operation)
        finally:
            shutil.rmtree(root)

    expect_error("tree printing directory replaced by a file", tree_dir_replaced)

    # CHECK-LABEL: CASE: tree printing of a symbol too long for a file name
    # CHECK: RuntimeError: IR printing could not write under tree_printing_dir_path '{{.*}}': {{.*}}File name too long
    def tree_name_too_long():
        root = tempfile.mkdtemp()
        pm = PassManager.parse("builtin.module(func.func(cse))")
        pm.enable_ir_printing(tree_printing_dir_path=root)
        try:
            pm.run(Module.parse("func.func @" + "a" * 300 + "() { return }").operation)
        finally:
            shutil.rmtree(root)

    expect_error("tree printing of a symbol too long for a file name", tree_name_too_long)

# ---------------------------------------------------------------------------
# 5. parseFile of a file that is not a regular file (a device, a FIFO) is a
# ValueError, not a read that never ends.

# CHECK-LABEL: CASE: parseFile of /dev/zero
# CHECK: ValueError: cannot parse '/dev/zero': not a regular file
# CHECK: exit code: 0
in_subprocess(
    "parseFile of /dev/zero",
    """
    with Context():
        expect_error("", lambda: Module.parseFile("/dev/zero"))
    """,
    timeout=60,
)

# CHECK-LABEL: CASE: parseFile of a FIFO
# CHECK: ValueError: cannot parse '{{.*}}fifo': not a regular file
# CHECK: exit code: 0
in_subprocess(
    "parseFile of a FIFO",
    """
    root = tempfile.mkdtemp()
    os.mkfifo(os.path.join(root, "fifo"))
    with Context():
        expect_error("", lambda: Module.parseFile(os.path.join(root, "fifo")))
    shutil.rmtree(root)
    """,
    timeout=60,
)

# A discardable attribute named like the segment sizes: convert-func-to-llvm
# copied it onto the llvm.call it made, and MLIR crashed reading it (found by
# fuzz_ir at FUZZ_SCALE=20).
# CHECK-LABEL: CASE: segment sizes as a discardable attribute
# CHECK: ValueError: cannot set 'operandSegmentSizes' on 'func.call': it has no such inherent attribute, and ops that lowering creates from it would take it for their segment sizes; give a discardable attribute a dialect-prefixed name
with Context():
    calls = Module.parse("""
    func.func private @g()
    func.func @f() {
      func.call @g() : () -> ()
      return
    }""")
    call = None
    for op in calls.body:
        if op.name == "func.func" and list(op.regions[0]):
            call = list(list(op.regions[0])[0])[0]
    expect_error(
        "segment sizes as a discardable attribute",
        lambda: call.attributes.__setitem__("operandSegmentSizes", Attribute.parse("1.5 : f32")),
    )
    del calls, call, op

gc.collect()
# CHECK: live contexts: 0
print("live contexts:", Context._get_live_count())
