# RUN: %PYTHON %s | FileCheck %s
#
# Conformance with upstream LLVM 22's Python API: every upstream name that
# mlir.ir, mlir.passmanager, mlir.execution_engine and mlir.runtime provide
# here, called the way upstream documents it (positional and keyword forms,
# capsules, star imports). README.md lists the upstream names not provided.

import ctypes
import gc
import io
import os
import sys
import tempfile

import numpy as np

from mlir.execution_engine import *
from mlir.ir import *
from mlir.passmanager import *
from mlir.runtime import *

import mlir.execution_engine
import mlir.ir
import mlir.passmanager
import mlir.runtime

TO_LLVM = (
    "builtin.module(convert-func-to-llvm,convert-arith-to-llvm,"
    "finalize-memref-to-llvm,reconcile-unrealized-casts)"
)

TRIPLE = """
func.func @triple(%x: i32) -> i32 attributes { llvm.emit_c_interface } {
  %c3 = arith.constant 3 : i32
  %y = arith.muli %x, %c3 : i32
  return %y : i32
}
"""


def section(name):
    print(f"\nSECTION: {name}")


def check_error(label, fn):
    """Prints the type and first line of the exception fn raises."""
    try:
        fn()
    except Exception as e:
        print(f"{label}: {type(e).__name__}: {str(e).splitlines()[0]}")
    else:
        print(f"{label}: no exception")


# The star imports give the upstream names.
# CHECK-LABEL: SECTION: star imports
section("star imports")
names = {
    "mlir.ir": (
        mlir.ir,
        [
            "Context",
            "Location",
            "Module",
            "Operation",
            "Region",
            "Block",
            "Type",
            "IntegerType",
            "IndexType",
            "F16Type",
            "BF16Type",
            "F32Type",
            "F64Type",
            "ComplexType",
            "MemRefType",
            "UnrankedMemRefType",
            "FunctionType",
            "Attribute",
            "TypeAttr",
            "StringAttr",
            "UnitAttr",
            "NamedAttribute",
            "OpAttributeMap",
            "MLIRError",
            "DiagnosticInfo",
            "DiagnosticSeverity",
        ],
    ),
    "mlir.passmanager": (mlir.passmanager, ["PassManager"]),
    "mlir.execution_engine": (mlir.execution_engine, ["ExecutionEngine"]),
    "mlir.runtime": (
        mlir.runtime,
        [
            "C128",
            "C64",
            "F16",
            "BF16",
            "F8E4M3FN",
            "F8E5M2",
            "as_ctype",
            "to_numpy",
            "make_nd_memref_descriptor",
            "make_zero_d_memref_descriptor",
            "UnrankedMemRefDescriptor",
            "get_ranked_memref_descriptor",
            "get_unranked_memref_descriptor",
            "move_aligned_ptr_by_offset",
            "unranked_memref_to_numpy",
            "ranked_memref_to_numpy",
        ],
    ),
}
for module_name, (module, expected) in names.items():
    missing = [n for n in expected if not hasattr(module, n) or n not in globals()]
    # CHECK: mlir.ir missing: []
    # CHECK: mlir.passmanager missing: []
    # CHECK: mlir.execution_engine missing: []
    # CHECK: mlir.runtime missing: []
    print(module_name, "missing:", missing)


# CHECK-LABEL: SECTION: Context
section("Context")
# CHECK: current outside: None
print("current outside:", Context.current)
with Context() as ctx:
    # CHECK: current is ctx: True
    print("current is ctx:", Context.current is ctx)
    ctx.allow_unregistered_dialects = True
    # CHECK: allow_unregistered_dialects: True
    print("allow_unregistered_dialects:", ctx.allow_unregistered_dialects)
    ctx.allow_unregistered_dialects = False
    ctx.enable_multithreading(False)
    ctx.enable_multithreading(True)
    # CHECK: live modules before: 0
    print("live modules before:", ctx._get_live_module_count())
    m1 = Module.parse(TRIPLE)
    m2 = Module.create()
    # CHECK: live modules: 2
    print("live modules:", ctx._get_live_module_count())
    del m1, m2
    gc.collect()
    # CHECK: live modules after: 0
    print("live modules after:", ctx._get_live_module_count())
    # Capsule round trip: the same Context object back.
    capsule = ctx._CAPIPtr
    # CHECK: capsule: <capsule object "mlir.ir.Context._CAPIPtr"
    print("capsule:", repr(capsule))
    # CHECK: _CAPICreate gives ctx: True
    print("_CAPICreate gives ctx:", Context._CAPICreate(capsule) is ctx)
del ctx
gc.collect()
# CHECK: live contexts: 0
print("live contexts:", Context._get_live_count())


# CHECK-LABEL: SECTION: Location
section("Location")
with Context() as ctx:
    # CHECK: loc(unknown)
    print(Location.unknown())
    # CHECK: loc("kernel.py":4:2)
    print(Location.file("kernel.py", 4, 2))
    # CHECK: loc("a.mlir":1:1)
    print(Location.file(filename="a.mlir", line=1, col=1, context=ctx))
    with Location.file("with.mlir", 7, 3) as loc:
        # CHECK: current location: loc("with.mlir":7:3) same context: True
        print("current location:", Location.current, "same context:", loc.context is ctx)
        # Module.create takes the current location.
        # CHECK: module {
        print(Module.create())
    # CHECK: location outside: None
    print("location outside:", Location.current)


# CHECK-LABEL: SECTION: Module
section("Module")
with Context() as ctx:
    module = Module.parse(TRIPLE)
    # CHECK: context is ctx: True
    print("context is ctx:", module.context is ctx)
    # CHECK: builtin.module
    print(module.operation.name)
    # CHECK: body: func.func
    print("body:", [op.name for op in module.body][0])
    # CHECK: func.func @triple(%arg0: i32) -> i32 attributes {llvm.emit_c_interface}
    print(module)
    module.dump()  # to stderr, as upstream
    # Parse with an explicit context, keyword form.
    other = Context()
    # CHECK: other context: True
    print("other context:", Module.parse(asm=TRIPLE, context=other).context is other)
    # CHECK: empty: module {
    print("empty:", Module.create(loc=Location.unknown()))

    # parseFile: text and bytecode files, locations named after the file.
    directory = tempfile.mkdtemp()
    text_path = os.path.join(directory, "triple.mlir")
    with open(text_path, "w") as f:
        f.write(TRIPLE)
    from_file = Module.parseFile(text_path)
    # CHECK: parseFile: func.func @triple
    print("parseFile:", str(from_file).splitlines()[1].strip()[:17])
    # CHECK: file location: True
    print(
        "file location:",
        f'loc("{text_path}":2:1)' in from_file.operation.get_asm(enable_debug_info=True),
    )
    bytecode_path = os.path.join(directory, "triple.mlirbc")
    with open(bytecode_path, "wb") as f:
        module.operation.write_bytecode(f)
    # CHECK: parseFile bytecode: True
    print("parseFile bytecode:", str(Module.parseFile(bytecode_path, context=ctx)) == str(module))

    # Bytecode: written with write_bytecode, parsed back from bytes.
    buffer = io.BytesIO()
    module.operation.write_bytecode(buffer)
    data = buffer.getvalue()
    # CHECK: bytecode magic: b'ML\xefR'
    print("bytecode magic:", data[:4])
    # CHECK: parse bytes: True
    print("parse bytes:", str(Module.parse(data)) == str(module))
    version_buffer = io.BytesIO()
    module.operation.write_bytecode(version_buffer, desired_version=1)
    # CHECK: parse version 1: True
    print("parse version 1:", str(Module.parse(version_buffer.getvalue())) == str(module))
    # Text as bytes parses too.
    # CHECK: parse text bytes: True
    print("parse text bytes:", str(Module.parse(TRIPLE.encode())) == str(module))

    # Capsules: the same live object back; any object with the capsule is a
    # module to the execution engine (see below).
    capsule = module._CAPIPtr
    # CHECK: module capsule: <capsule object "mlir.ir.Module._CAPIPtr"
    print("module capsule:", repr(capsule))
    # CHECK: _CAPICreate gives module: True
    print("_CAPICreate gives module:", Module._CAPICreate(capsule) is module)

    # CHECK: parse error: MLIRError: Unable to parse module assembly:
    check_error("parse error", lambda: Module.parse("func.func @broken("))
    # CHECK: parseFile error: MLIRError: Unable to parse module assembly:
    check_error("parseFile error", lambda: Module.parseFile(os.path.join(directory, "none")))
del module, other, from_file
gc.collect()


# CHECK-LABEL: SECTION: Operation
section("Operation")
with Context() as ctx:
    op = Operation.parse("func.func @id(%a: i64) -> i64 { return %a : i64 }")
    # CHECK: parsed: func.func context: True
    print("parsed:", op.name, "context:", op.context is ctx)
    # CHECK: operation is op: True
    print("operation is op:", op.operation is op)
    # CHECK: verify: True
    print("verify:", op.verify())
    named = Operation.parse("func.func private @decl()", source_name="decl.mlir", context=ctx)
    # CHECK: source_name: True
    print("source_name:", 'loc("decl.mlir":1:1)' in named.get_asm(enable_debug_info=True))
    # Bytecode parses as an operation too.
    buffer = io.BytesIO()
    op.write_bytecode(buffer)
    # CHECK: from bytecode: func.func
    print("from bytecode:", Operation.parse(buffer.getvalue()).name)
    # CHECK: operation parse error: MLIRError: Unable to parse operation assembly:
    check_error("operation parse error", lambda: Operation.parse("func.func @f("))

    # get_asm: str, or the same text as bytes; upstream's keyword arguments.
    text = op.get_asm()
    # CHECK: get_asm str: True equal to str(): True
    print("get_asm str:", isinstance(text, str), "equal to str():", text == str(op))
    as_bytes = op.get_asm(binary=True)
    # CHECK: get_asm binary: bytes True
    print("get_asm binary:", type(as_bytes).__name__, as_bytes == text.encode())
    # CHECK: generic: "func.func"() <{function_type = (i64) -> i64, sym_name = "id"}>
    print("generic:", op.get_asm(print_generic_op_form=True).splitlines()[0])
    # CHECK: debug info: func.func @id(%arg0: i64 loc("-":1:15)) -> i64 {
    print(
        "debug info:",
        [line for line in op.get_asm(enable_debug_info=True).splitlines() if "func.func" in line][
            0
        ],
    )
    # CHECK: skip regions: func.func @id(%arg0: i64) -> i64
    print("skip regions:", op.get_asm(skip_regions=True).strip())
    elided = Module.parse(
        "func.func @c() -> tensor<8xi32> {\n"
        "  %c = arith.constant dense<[1, 2, 3, 4, 5, 6, 7, 8]> : tensor<8xi32>\n"
        "  return %c : tensor<8xi32>\n}"
    )
    # CHECK: large_elements_limit: dense_resource<__elided__>
    print(
        "large_elements_limit:",
        "dense_resource<__elided__>"
        if "__elided__" in elided.operation.get_asm(large_elements_limit=4)
        else "not elided",
    )
    # CHECK: all options: True
    print(
        "all options:",
        isinstance(
            op.get_asm(
                binary=False,
                large_elements_limit=None,
                large_resource_limit=None,
                enable_debug_info=False,
                pretty_debug_info=False,
                print_generic_op_form=False,
                use_local_scope=True,
                use_name_loc_as_prefix=True,
                assume_verified=True,
                skip_regions=False,
            ),
            str,
        ),
    )

    # Attributes, regions, blocks.
    attributes = op.attributes
    # CHECK: sym_name: "id"
    print("sym_name:", attributes["sym_name"])
    # CHECK: contains: True False len: 2
    print("contains:", "sym_name" in attributes, "nope" in attributes, "len:", len(attributes))
    attributes["note"] = StringAttr.get("hello")
    # CHECK: by index: note = "hello"
    print("by index:", [f"{a.name} = {a.attr}" for a in attributes if a.name == "note"][0])
    # CHECK: first named: function_type
    print("first named:", attributes[0].name)
    del attributes["note"]
    # CHECK: after delete: False
    print("after delete:", "note" in attributes)
    region = op.regions[0]
    block = region.blocks[0]
    # CHECK: blocks: 1 ops: ['func.return']
    print("blocks:", len(list(region)), "ops:", [o.name for o in block])
    # CHECK: block: ^bb0(%arg0: i64):
    print("block:", str(block).splitlines()[0])
    # CHECK: ops list: ['func.return']
    print("ops list:", [o.name for o in block.operations])
del op, named, elided, attributes, region, block
gc.collect()


# CHECK-LABEL: SECTION: Types
section("Types")
with Context() as ctx:
    i8 = IntegerType.get_signless(8)
    # CHECK: i8 si16 ui32 width 8 signless True signed True unsigned True
    print(
        i8,
        IntegerType.get_signed(16),
        IntegerType.get_unsigned(width=32, context=ctx),
        "width",
        i8.width,
        "signless",
        i8.is_signless,
        "signed",
        IntegerType.get_signed(1).is_signed,
        "unsigned",
        IntegerType.get_unsigned(1).is_unsigned,
    )
    # CHECK: index f16 bf16 f32 f64
    print(IndexType.get(), F16Type.get(), BF16Type.get(), F32Type.get(), F64Type.get(context=ctx))
    parsed = Type.parse("memref<4x?xf32, strided<[?, 1], offset: ?>>")
    # CHECK: parsed type: MemRefType(memref<4x?xf32, strided<[?, 1], offset: ?>>)
    print("parsed type:", repr(parsed))
    # CHECK: rank 2 shape [4, {{.*}}] static False element f32
    print(
        "rank",
        parsed.rank,
        "shape",
        parsed.shape,
        "static",
        parsed.has_static_shape,
        "element",
        parsed.element_type,
    )
    # CHECK: dynamic size: True
    print("dynamic size:", parsed.shape[1] == MemRefType.get_dynamic_size())
    strides, offset = parsed.get_strides_and_offset()
    # CHECK: strides dynamic: True True
    print(
        "strides dynamic:",
        strides[0] == MemRefType.get_dynamic_stride_or_offset(),
        offset == MemRefType.get_dynamic_stride_or_offset(),
    )
    # CHECK: layout: strided<[?, 1], offset: ?>
    print("layout:", parsed.layout)
    # CHECK: memref<2x3xi8>
    print(MemRefType.get([2, 3], i8))
    # CHECK: memref<2xf32, 1>
    print(
        MemRefType.get(
            shape=[2],
            element_type=F32Type.get(),
            layout=None,
            memory_space=Attribute.parse("1"),
            loc=Location.unknown(),
        )
    )
    # CHECK: memref<*xf64>
    print(UnrankedMemRefType.get(F64Type.get()))
    # CHECK: unranked element: f64
    print("unranked element:", UnrankedMemRefType(Type.parse("memref<*xf64>")).element_type)
    complex_type = ComplexType.get(F32Type.get())
    # CHECK: complex<f32> element f32
    print(complex_type, "element", complex_type.element_type)
    function_type = FunctionType.get([i8, IndexType.get()], [F32Type.get()])
    # CHECK: (i8, index) -> f32 inputs 2 results 1
    print(function_type, "inputs", len(function_type.inputs), "results", len(function_type.results))
    # Casts and isinstance, as upstream's.
    generic = Type.parse("i8")
    # CHECK: downcast: IntegerType isinstance: True False
    print(
        "downcast:",
        type(generic.maybe_downcast()).__name__,
        "isinstance:",
        IntegerType.isinstance(generic),
        F32Type.isinstance(generic),
    )
    # CHECK: cast: i8 equal: True hash equal: True
    print(
        "cast:",
        IntegerType(generic),
        "equal:",
        Type(i8) == generic,
        "hash equal:",
        hash(i8) == hash(generic),
    )
    # CHECK: type context: True
    print("type context:", i8.context is ctx)
    # CHECK: type capsule: <capsule object "mlir.ir.Type._CAPIPtr"
    print("type capsule:", repr(i8._CAPIPtr))
    # CHECK: bad cast: ValueError: cannot cast type to F32Type (from i8)
    check_error("bad cast", lambda: F32Type(generic))
    # CHECK: type parse error: MLIRError: Unable to parse type: 'memref<'
    check_error("type parse error", lambda: Type.parse("memref<"))


# CHECK-LABEL: SECTION: Attributes
section("Attributes")
with Context() as ctx:
    attr = Attribute.parse('"text"')
    # CHECK: "text" StringAttr value text type none
    print(attr, type(attr).__name__, "value", attr.value, "type", attr.type)
    # CHECK: TypeAttr: i32 value i32
    type_attr = TypeAttr.get(IntegerType.get_signless(32))
    print("TypeAttr:", type_attr, "value", type_attr.value)
    # CHECK: unit isinstance: True
    print("unit isinstance:", UnitAttr.isinstance(UnitAttr.get()))
    # CHECK: StringAttr.get: "s" context: True
    print(
        "StringAttr.get:",
        StringAttr.get("s", context=ctx),
        "context:",
        StringAttr.get("s").context is ctx,
    )
    # CHECK: attr cast: "text" equal: True
    print("attr cast:", StringAttr(Attribute(attr)), "equal:", attr == StringAttr.get("text"))
    # CHECK: attr parse error: MLIRError: Unable to parse attribute: '"open'
    check_error("attr parse error", lambda: Attribute.parse('"open'))


# CHECK-LABEL: SECTION: MLIRError and diagnostics
section("MLIRError and diagnostics")
with Context():
    try:
        Module.parse("func.func @f() -> i32 {\n  return\n}")
    except MLIRError as e:
        diagnostic = e.error_diagnostics[0]
        # CHECK: message: Unable to parse module assembly
        print("message:", e.message)
        # CHECK: severity: True location: loc("-":2:3)
        print(
            "severity:",
            diagnostic.severity == DiagnosticSeverity.ERROR,
            "location:",
            diagnostic.location,
        )
        # CHECK: diagnostic: 'func.return' op has 0 operands, but enclosing function (@f) returns 1
        print("diagnostic:", diagnostic.message)
        # CHECK: notes: 1
        print("notes:", len(diagnostic.notes))
        # CHECK: severities: ERROR WARNING NOTE REMARK
        print(
            "severities:",
            *[
                s.name
                for s in (
                    DiagnosticSeverity.ERROR,
                    DiagnosticSeverity.WARNING,
                    DiagnosticSeverity.NOTE,
                    DiagnosticSeverity.REMARK,
                )
            ],
        )


# CHECK-LABEL: SECTION: PassManager
section("PassManager")
with Context() as ctx:
    pm = PassManager.parse("builtin.module(func.func(canonicalize))")
    # CHECK: builtin.module(func.func(canonicalize{{.*}}))
    print(pm)
    module = Module.parse(TRIPLE)
    pm.run(module.operation)
    pm.run(module)
    pm2 = PassManager("builtin.module", context=ctx)
    pm2.add("cse")
    pm2.add(pipeline="func.func(canonicalize)")
    pm2.enable_verifier(True)
    # CHECK: add: builtin.module(cse,func.func(canonicalize{{.*}}))
    print("add:", pm2)
    # CHECK: default anchor: any()
    print("default anchor:", PassManager())
    # CHECK: parse with context: True
    print(
        "parse with context:",
        str(PassManager.parse("builtin.module(cse)", context=ctx)) == "builtin.module(cse)",
    )
    # Upstream's ValueError text comes first.
    # CHECK: bad pipeline: ValueError: MLIR Textual PassPipeline Parser:1:1: error: 'no-such-pass' does not refer to a registered pass or pass pipeline
    check_error("bad pipeline", lambda: PassManager.parse("builtin.module(no-such-pass)"))
    # CHECK: bad add: ValueError: MLIR Textual PassPipeline Parser:1:1: error: 'no-such-pass' does not refer to a registered pass or pass pipeline
    check_error("bad add", lambda: pm2.add("no-such-pass"))
    # CHECK: run failure: MLIRError: Failure while executing pass pipeline:
    check_error("run failure", lambda: PassManager.parse("func.func(cse)").run(module.operation))

    # IR printing, into a directory tree (stderr by default).
    ctx.enable_multithreading(False)
    tree = tempfile.mkdtemp()
    printing = PassManager.parse("builtin.module(canonicalize,cse)")
    printing.enable_ir_printing(
        print_before_all=True,
        print_after_all=True,
        print_module_scope=True,
        print_after_change=False,
        print_after_failure=False,
        large_elements_limit=16,
        large_resource_limit=64,
        enable_debug_info=False,
        print_generic_op_form=True,
        tree_printing_dir_path=tree,
    )
    printing.run(module)
    dumps = sorted(name for _, _, files in os.walk(tree) for name in files)
    # CHECK: dumps: ['0_canonicalize.mlir', '1_canonicalize.mlir', '2_cse.mlir', '3_cse.mlir']
    print("dumps:", dumps)
    ctx.enable_multithreading(True)
    PassManager.parse("builtin.module(cse)").enable_ir_printing()  # stderr, as upstream

    # Capsules: hand the pass manager to a new owner.
    capsule = pm._CAPIPtr
    # CHECK: pm capsule: <capsule object "mlir.passmanager.PassManager._CAPIPtr"
    print("pm capsule:", repr(capsule))
    pm._testing_release()
    owner = PassManager._CAPICreate(capsule)
    owner.run(module)
    # CHECK: new owner: builtin.module(func.func(canonicalize{{.*}}))
    print("new owner:", owner)
del pm, pm2, printing, owner, module
gc.collect()


# CHECK-LABEL: SECTION: ExecutionEngine
section("ExecutionEngine")
with Context():
    module = Module.parse(
        TRIPLE
        + """
func.func @report(%x: i32) -> i32 attributes { llvm.emit_c_interface } {
  %r = func.call @hook(%x) : (i32) -> i32
  return %r : i32
}
func.func private @hook(i32) -> i32 attributes { llvm.emit_c_interface }
"""
    )
    PassManager.parse(TO_LLVM).run(module.operation)
    engine = ExecutionEngine(
        module, opt_level=2, shared_libs=[], enable_object_dump=True, enable_pic=False
    )

    hook_type = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int32)
    hook = hook_type(lambda x: x + 1000)
    engine.register_runtime("hook", hook)
    engine.initialize()

    # Every pointer form ctypes.cast takes, as upstream.
    x, result = ctypes.c_int32(5), ctypes.c_int32()
    engine.invoke("triple", ctypes.pointer(x), ctypes.pointer(result))
    # CHECK: pointer: 15
    print("pointer:", result.value)
    engine.invoke("triple", ctypes.byref(x), ctypes.byref(result))
    # CHECK: byref: 15
    print("byref:", result.value)
    engine.invoke("triple", ctypes.addressof(x), ctypes.c_void_p(ctypes.addressof(result)))
    # CHECK: address: 15
    print("address:", result.value)
    buffer = (ctypes.c_int32 * 1)(7)
    engine.invoke("triple", buffer, ctypes.cast(ctypes.pointer(result), ctypes.c_void_p))
    # CHECK: array: 21
    print("array:", result.value)
    engine.invoke("report", ctypes.pointer(x), ctypes.pointer(result))
    # CHECK: callback: 1005
    print("callback:", result.value)

    triple = engine.lookup("triple")
    args = (ctypes.c_void_p * 2)(ctypes.addressof(x), ctypes.addressof(result))
    triple(args)
    # CHECK: lookup: 15
    print("lookup:", result.value)
    # raw_lookup: the packed wrapper's address, 0 for unknown names.
    # CHECK: raw_lookup: True 0
    print(
        "raw_lookup:",
        engine.raw_lookup("_mlir_ciface_triple") != 0,
        engine.raw_lookup("no_such_function"),
    )
    if not engine.raw_lookup("no_such_function"):
        # CHECK: not found, as upstream code tests it
        print("not found, as upstream code tests it")
    # CHECK: unknown lookup: RuntimeError: Unknown function no_such_function: the module defines no function 'no_such_function'
    check_error("unknown lookup", lambda: engine.lookup("no_such_function"))
    # CHECK: unknown invoke: RuntimeError: Unknown function no_such_function:
    check_error("unknown invoke", lambda: engine.invoke("no_such_function", ctypes.byref(x)))

    object_path = os.path.join(tempfile.mkdtemp(), "triple.o")
    engine.dump_to_object_file(object_path)
    # CHECK: object file: True
    print("object file:", os.path.getsize(object_path) > 0)

    # raw_register_runtime takes a ctypes object whose .value is the address.
    raw_module = Module.parse("""
func.func @twice(%x: i32) -> i32 attributes { llvm.emit_c_interface } {
  %r = func.call @raw_hook(%x) : (i32) -> i32
  return %r : i32
}
func.func private @raw_hook(i32) -> i32 attributes { llvm.emit_c_interface }
""")
    PassManager.parse(TO_LLVM).run(raw_module.operation)
    raw_engine = ExecutionEngine(raw_module)
    raw_hook = hook_type(lambda x: 2 * x)
    raw_engine.raw_register_runtime("_mlir_ciface_raw_hook", ctypes.cast(raw_hook, ctypes.c_void_p))
    raw_engine.invoke("twice", ctypes.pointer(x), ctypes.pointer(result))
    # CHECK: raw runtime: 10
    print("raw runtime:", result.value)

    # A module given by anything carrying its capsule (another binding's
    # Module), or by the capsule itself.
    class ForeignModule:
        def __init__(self, module):
            self._module = module

        @property
        def _CAPIPtr(self):
            return self._module._CAPIPtr

    foreign = ExecutionEngine(ForeignModule(module))
    foreign.register_runtime("hook", hook)
    foreign.invoke("triple", ctypes.pointer(x), ctypes.pointer(result))
    # CHECK: foreign module: 15
    print("foreign module:", result.value)
    from_capsule = ExecutionEngine(raw_module._CAPIPtr)
    from_capsule.register_runtime("raw_hook", raw_hook)
    from_capsule.invoke("twice", ctypes.pointer(x), ctypes.pointer(result))
    # CHECK: capsule module: 10
    print("capsule module:", result.value)

    # Engine capsules.
    capsule = engine._CAPIPtr
    # CHECK: engine capsule: <capsule object "mlir.execution_engine.ExecutionEngine._CAPIPtr"
    print("engine capsule:", repr(capsule))
    engine._testing_release()
    new_owner = ExecutionEngine._CAPICreate(capsule)
    # CHECK: new owner raw_lookup: True
    print("new owner raw_lookup:", new_owner.raw_lookup("_mlir_ciface_triple") != 0)
del engine, new_owner, raw_engine, foreign, from_capsule, module, raw_module, triple
gc.collect()


# CHECK-LABEL: SECTION: runtime
section("runtime")
with Context():
    module = Module.parse("""
func.func @scale(%m: memref<?xf32>, %out: memref<?xf32>) attributes { llvm.emit_c_interface } {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %m, %c0 : memref<?xf32>
  %two = arith.constant 2.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %m[%i] : memref<?xf32>
    %w = arith.mulf %v, %two : f32
    memref.store %w, %out[%i] : memref<?xf32>
  }
  return
}
func.func @first(%m: memref<*xf32>) -> f32 attributes { llvm.emit_c_interface } {
  %r = memref.cast %m : memref<*xf32> to memref<?xf32>
  %c0 = arith.constant 0 : index
  %v = memref.load %r[%c0] : memref<?xf32>
  return %v : f32
}
""")
    PassManager.parse(
        "builtin.module(convert-scf-to-cf,convert-cf-to-llvm,convert-func-to-llvm,"
        "convert-arith-to-llvm,finalize-memref-to-llvm,reconcile-unrealized-casts)"
    ).run(module.operation)
    engine = ExecutionEngine(module)
    data = np.arange(4, dtype=np.float32)
    out = np.zeros(4, dtype=np.float32)
    engine.invoke(
        "scale",
        ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(data))),
        ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(out))),
    )
    # CHECK: ranked: [0. 2. 4. 6.]
    print("ranked:", out)
    first = ctypes.c_float()
    shifted_data = data + 9
    engine.invoke(
        "first",
        ctypes.pointer(ctypes.pointer(get_unranked_memref_descriptor(shifted_data))),
        ctypes.pointer(first),
    )
    # CHECK: unranked: 9.0
    print("unranked:", first.value)

    descriptor = get_ranked_memref_descriptor(np.arange(6, dtype=np.int64).reshape(2, 3))
    as_array = ranked_memref_to_numpy(ctypes.pointer(descriptor))
    # CHECK: ranked_memref_to_numpy: (2, 3) [0 1 2 3 4 5]
    print("ranked_memref_to_numpy:", as_array.shape, as_array.ravel())
    unranked = get_unranked_memref_descriptor(np.arange(3, dtype=np.float64))
    # CHECK: unranked_memref_to_numpy: [0. 1. 2.]
    print(
        "unranked_memref_to_numpy:", unranked_memref_to_numpy(ctypes.pointer(unranked), np.float64)
    )
    # CHECK: descriptor types: True ['allocated', 'aligned', 'offset', 'shape', 'strides']
    print(
        "descriptor types:",
        isinstance(unranked, UnrankedMemRefDescriptor),
        [f[0] for f in make_nd_memref_descriptor(2, ctypes.c_float)._fields_],
    )
    zero_d = make_zero_d_memref_descriptor(ctypes.c_double)()
    # CHECK: zero-d fields: ['allocated', 'aligned', 'offset']
    print("zero-d fields:", [f[0] for f in zero_d._fields_])
    # CHECK: as_ctype: True True True True
    print(
        "as_ctype:",
        as_ctype(np.float32) is ctypes.c_float,
        as_ctype(np.complex64) is C64,
        as_ctype(np.float16) is F16,
        as_ctype(np.complex128) is C128,
    )
    # CHECK: to_numpy: complex64
    print("to_numpy:", to_numpy(np.ctypeslib.as_array((C64 * 2)())).dtype)
    shifted = move_aligned_ptr_by_offset(descriptor.aligned, 2)
    # CHECK: move_aligned_ptr_by_offset: 2
    print("move_aligned_ptr_by_offset:", shifted[0])
    # CHECK: struct types: C128 BF16 F8E4M3FN F8E5M2
    print("struct types:", C128.__name__, BF16.__name__, F8E4M3FN.__name__, F8E5M2.__name__)
del engine, module
# Everything that refers into a Context, then the contexts themselves.
for name in [
    "ctx",
    "loc",
    "i8",
    "parsed",
    "generic",
    "complex_type",
    "function_type",
    "attr",
    "type_attr",
    "diagnostic",
]:
    globals().pop(name, None)
gc.collect()
# CHECK: end live contexts: 0
print("end live contexts:", Context._get_live_count())
