# RUN: %PYTHON %s | FileCheck %s

import gc

from mlir.ir import *


def run(f):
    print("\nTEST: " + f.__name__)
    f()
    gc.collect()
    assert Context._get_live_count() == 0, Context._get_live_count()
    return f


# CHECK-LABEL: TEST: testContext
@run
def testContext():
    # CHECK: live contexts: 0
    print("live contexts:", Context._get_live_count())
    # CHECK: no current context: None
    print("no current context:", Context.current)
    ctx = Context()
    # CHECK: live contexts: 1
    print("live contexts:", Context._get_live_count())
    # CHECK: allow_unregistered_dialects: False
    print("allow_unregistered_dialects:", ctx.allow_unregistered_dialects)
    ctx.allow_unregistered_dialects = True
    # CHECK: allow_unregistered_dialects: True
    print("allow_unregistered_dialects:", ctx.allow_unregistered_dialects)
    with ctx as entered:
        # CHECK: entered is ctx: True
        print("entered is ctx:", entered is ctx)
        # CHECK: current is ctx: True
        print("current is ctx:", Context.current is ctx)
        inner = Context()
        with inner:
            # CHECK: current is inner: True
            print("current is inner:", Context.current is inner)
        # CHECK: current is ctx again: True
        print("current is ctx again:", Context.current is ctx)
        try:
            inner.__exit__(None, None, None)
        except RuntimeError as e:
            # CHECK: bad exit: exiting a Context that is not the innermost one entered
            print("bad exit:", e)
        del inner
    # CHECK: no current context after with: True
    print("no current context after with:", Context.current is None)
    # Without a current context, factories that need one raise.
    try:
        Location.unknown()
    except ValueError as e:
        # CHECK: Location.unknown: no current Context
        print("Location.unknown:", e)
    del ctx, entered
    gc.collect()
    # CHECK: live contexts: 0
    print("live contexts:", Context._get_live_count())


# The C API capsule of a context comes back as the same Python object.
# CHECK-LABEL: TEST: testContextCapsule
@run
def testContextCapsule():
    ctx = Context()
    capsule = ctx._CAPIPtr
    # CHECK: mlir.ir.Context._CAPIPtr
    print(repr(capsule))
    ctx2 = Context._CAPICreate(capsule)
    # CHECK: same object: True
    print("same object:", ctx2 is ctx)
    # CHECK: live contexts: 1
    print("live contexts:", Context._get_live_count())
    try:
        Context._CAPICreate(Module.parse("", ctx)._CAPIPtr)
    except TypeError as e:
        # CHECK: wrong capsule: expected a Context capsule
        print("wrong capsule:", e)


# CHECK-LABEL: TEST: testLocation
@run
def testLocation():
    ctx = Context()
    unknown = Location.unknown(ctx)
    # CHECK: loc(unknown)
    print(unknown)
    with Location.file("foo.mlir", 3, 7, context=ctx) as loc:
        # CHECK: loc("foo.mlir":3:7)
        print(Location.current)
        # Entering a location makes its context current.
        # CHECK: current context: True
        print("current context:", Context.current is ctx)
        # CHECK: location context: True
        print("location context:", loc.context is ctx)
        module = Module.create()
        # CHECK: module {
        # CHECK-NEXT: }
        print(module)
    # CHECK: no current location: None
    print("no current location:", Location.current)


# CHECK-LABEL: TEST: testModuleAndOperations
@run
def testModuleAndOperations():
    with Context() as ctx:
        module = Module.parse(
            r"""
func.func @add(%a: i32, %b: i32) -> i32 attributes { llvm.emit_c_interface } {
  %0 = arith.addi %a, %b : i32
  return %0 : i32
}
func.func private @ext(f32)
"""
        )
        # CHECK: module context: True
        print("module context:", module.context is ctx)
        # CHECK: module {
        # CHECK:   func.func @add(%arg0: i32, %arg1: i32) -> i32 attributes {llvm.emit_c_interface} {
        # CHECK:     %0 = arith.addi %arg0, %arg1 : i32
        # CHECK:     return %0 : i32
        # CHECK:   func.func private @ext(f32)
        print(module)
        op = module.operation
        # CHECK: module op: builtin.module regions: 1
        print("module op:", op.name, "regions:", len(op.regions))
        # CHECK: verify: True
        print("verify:", op.verify())
        # CHECK: same text: True
        print("same text:", str(op) == str(module))
        # CHECK: func.func ['function_type', 'llvm.emit_c_interface', 'sym_name']
        # CHECK-NEXT: StringAttr 'add' TypeAttr FunctionType((i32, i32) -> i32)
        # CHECK-NEXT: in add: arith.addi
        # CHECK-NEXT: in add: func.return
        # CHECK-NEXT: blocks in add: 1
        # CHECK-NEXT: func.func ['function_type', 'sym_name', 'sym_visibility']
        # CHECK-NEXT: StringAttr 'ext' TypeAttr FunctionType((f32) -> ())
        # CHECK-NEXT: blocks in ext: 0
        for func in module.body:
            attributes = func.attributes
            print(func.name, sorted(a.name for a in attributes))
            sym_name = attributes["sym_name"]
            function_type = attributes["function_type"]
            print(
                type(sym_name).__name__,
                repr(sym_name.value),
                type(function_type).__name__,
                repr(function_type.value),
            )
            for region in func.regions:
                for block in region:
                    for inner in block:
                        print("in", sym_name.value + ":", inner.name)
                print("blocks in", sym_name.value + ":", len(region.blocks))
        try:
            op.attributes["nope"]
        except KeyError as e:
            # CHECK: operation 'builtin.module' has no attribute 'nope'
            print(e)


# Operations keep their module (and context) alive.
# CHECK-LABEL: TEST: testOperationKeepsModuleAlive
@run
def testOperationKeepsModuleAlive():
    def make():
        return list(Module.parse("func.func private @f(i64)", Context()).body)

    ops = make()
    gc.collect()
    # CHECK: live contexts: 1
    print("live contexts:", Context._get_live_count())
    # CHECK: func.func private @f(i64)
    print(ops[0])
    del ops


# CHECK-LABEL: TEST: testTypes
@run
def testTypes():
    with Context():
        i32 = Type.parse("i32")
        # CHECK: IntegerType(i32) width: 32 signless: True
        print(repr(i32), "width:", i32.width, "signless:", i32.is_signless)
        # CHECK: si8 signed: True ui16 unsigned: True
        print(
            IntegerType.get_signed(8),
            "signed:",
            IntegerType.get_signed(8).is_signed,
            IntegerType.get_unsigned(16),
            "unsigned:",
            IntegerType.get_unsigned(16).is_unsigned,
        )
        # CHECK: equal: True hash: True
        print(
            "equal:",
            i32 == IntegerType.get_signless(32),
            "hash:",
            hash(i32) == hash(IntegerType.get_signless(32)),
        )
        # CHECK: IndexType(index) F16Type(f16) BF16Type(bf16) F32Type(f32) F64Type(f64)
        print(*[repr(Type.parse(t)) for t in ["index", "f16", "bf16", "f32", "f64"]])
        # CHECK: index f16 bf16 f32 f64
        print(IndexType.get(), F16Type.get(), BF16Type.get(), F32Type.get(), F64Type.get())
        complex_type = Type.parse("complex<f64>")
        # CHECK: ComplexType(complex<f64>) element: F64Type(f64)
        print(repr(complex_type), "element:", repr(complex_type.element_type))
        # CHECK: complex<f32>
        print(ComplexType.get(F32Type.get()))

        memref = Type.parse("memref<2x?xf32>")
        # CHECK: MemRefType(memref<2x?xf32>) rank: 2 element: F32Type(f32) static: False
        print(
            repr(memref),
            "rank:",
            memref.rank,
            "element:",
            repr(memref.element_type),
            "static:",
            memref.has_static_shape,
        )
        dynamic = MemRefType.get_dynamic_size()
        # CHECK: shape: [2, 'dynamic']
        print("shape:", [d if d != dynamic else "dynamic" for d in memref.shape])
        strides, offset = memref.get_strides_and_offset()
        dynamic_stride = MemRefType.get_dynamic_stride_or_offset()
        # CHECK: strides: ['dynamic', 1] offset: 0
        print(
            "strides:",
            [s if s != dynamic_stride else "dynamic" for s in strides],
            "offset:",
            offset,
        )
        strided = Type.parse("memref<4x5xf32, strided<[10, 1], offset: 3>>")
        # CHECK: strided: ([10, 1], 3) layout: strided<[10, 1], offset: 3>
        print("strided:", strided.get_strides_and_offset(), "layout:", strided.layout)
        # CHECK: memref<3x?xf64>
        print(MemRefType.get([3, dynamic], F64Type.get()))
        not_strided = Type.parse("memref<4x4xf32, affine_map<(d0, d1) -> (d0 floordiv 2, d1)>>")
        try:
            not_strided.get_strides_and_offset()
        except ValueError as e:
            # CHECK: not strided: the layout of memref<4x4xf32, affine_map<(d0, d1) -> (d0 floordiv 2, d1)>> is not strided
            print("not strided:", e)

        unranked = Type.parse("memref<*xf16>")
        # CHECK: UnrankedMemRefType(memref<*xf16>) element: F16Type(f16)
        print(repr(unranked), "element:", repr(unranked.element_type))
        # CHECK: memref<*xbf16>
        print(UnrankedMemRefType.get(BF16Type.get()))

        function = Type.parse("(i32, index) -> (f64, complex<f32>)")
        # CHECK: FunctionType((i32, index) -> (f64, complex<f32>))
        print(repr(function))
        # CHECK: inputs: [IntegerType(i32), IndexType(index)]
        print("inputs:", function.inputs)
        # CHECK: results: [F64Type(f64), ComplexType(complex<f32>)]
        print("results:", function.results)
        # CHECK: (index) -> f16
        print(FunctionType.get([IndexType.get()], [F16Type.get()]))


# CHECK-LABEL: TEST: testTypeCasts
@run
def testTypeCasts():
    with Context():
        # A generic Type casts down to the class of what it is.
        generic = Type(IntegerType.get_signless(8))
        # CHECK: Type(i8) -> IntegerType(i8) 8
        print(repr(generic), "->", repr(generic.maybe_downcast()), IntegerType(generic).width)
        # CHECK: isinstance: True False
        print(
            "isinstance:",
            IntegerType.isinstance(generic),
            F32Type.isinstance(generic),
        )
        try:
            IntegerType(F32Type.get())
        except ValueError as e:
            # CHECK: cast error: cannot cast type to IntegerType (from f32)
            print("cast error:", e)
        try:
            MemRefType(Type.parse("memref<*xf32>"))
        except ValueError as e:
            # CHECK: cast error: cannot cast type to MemRefType (from memref<*xf32>)
            print("cast error:", e)
        try:
            ComplexType.get(IndexType.get())
        except ValueError as e:
            # CHECK: complex error: invalid element type for ComplexType: expected integer or floating point, got index
            print("complex error:", e)


# CHECK-LABEL: TEST: testAttributes
@run
def testAttributes():
    with Context():
        string = Attribute.parse('"hello"')
        # CHECK: StringAttr hello
        print(type(string).__name__, string.value)
        # CHECK: "world"
        print(StringAttr.get("world"))
        type_attr = Attribute.parse("memref<4xf32>")
        # CHECK: TypeAttr MemRefType(memref<4xf32>)
        print(type(type_attr).__name__, repr(type_attr.value))
        # CHECK: bf16
        print(TypeAttr.get(BF16Type.get()).value)
        # The type's context is the attribute's; a context given must be it.
        # CHECK: same context: True
        context = Context.current
        print("same context:", TypeAttr.get(BF16Type.get(), context=context).context is context)
        try:
            TypeAttr.get(BF16Type.get(), context=Context())
        except ValueError as e:
            # CHECK: other context: the type bf16 belongs to another Context than the one given
            print("other context:", e)
        integer = Attribute.parse("42 : i32")
        # CHECK: Attribute 42 : i32 type: i32
        print(type(integer).__name__, integer, "type:", integer.type)
        # CHECK: isinstance: True False
        print("isinstance:", StringAttr.isinstance(string), TypeAttr.isinstance(string))
        # CHECK: equal: True
        print("equal:", string == StringAttr.get("hello"))


# A parse error is an MLIRError that carries the diagnostics.
# CHECK-LABEL: TEST: testParseError
@run
def testParseError():
    with Context():
        try:
            Module.parse(
                "func.func @f() -> i32 {\n  %c = arith.constant 1 : i64\n  return %c : i32\n}"
            )
        except MLIRError as e:
            # CHECK: Unable to parse module assembly:
            # CHECK-NEXT: error: {{.*}}"-":3:10{{.*}}: use of value '%c' expects different type than prior uses: 'i32' vs 'i64'
            # CHECK-NEXT: note: {{.*}}"-":2:3{{.*}}: prior use here
            print(str(e))
            diagnostic = e.error_diagnostics[0]
            # CHECK: diagnostics: 1
            print("diagnostics:", len(e.error_diagnostics))
            # CHECK: message: use of value '%c' expects different type than prior uses: 'i32' vs 'i64'
            print("message:", diagnostic.message)
            # CHECK: location: loc("-":3:10)
            print("location:", diagnostic.location)
            # CHECK: severity: DiagnosticSeverity.ERROR
            print("severity:", diagnostic.severity)
            # CHECK: note: prior use here at loc("-":2:3)
            print("note:", diagnostic.notes[0].message, "at", diagnostic.notes[0].location)
        try:
            Type.parse("memref<2xf32")
        except MLIRError as e:
            # CHECK: type error: Unable to parse type: 'memref<2xf32'
            print("type error:", e.message)
            # CHECK: type error message: expected ',' or '>' in memref type
            print("type error message:", e.error_diagnostics[0].message)
        try:
            Attribute.parse("#foo<")
        except MLIRError as e:
            # CHECK: attribute error: Unable to parse attribute: '#foo<'
            print("attribute error:", e.message)
            # CHECK: attribute error message: unbalanced '<' character in pretty dialect name
            print("attribute error message:", e.error_diagnostics[0].message)
        try:
            MemRefType.get([-2], F32Type.get())
        except MLIRError as e:
            # CHECK: memref error: Invalid type: invalid memref size
            print("memref error:", e.message + ":", e.error_diagnostics[0].message)


# Verification failure: a module made of an unregistered op verifies only while
# the context allows unregistered dialects.
# CHECK-LABEL: TEST: testVerifyError
@run
def testVerifyError():
    with Context() as ctx:
        ctx.allow_unregistered_dialects = True
        module = Module.parse('"foo.bar"() : () -> ()')
        # CHECK: "foo.bar"() : () -> ()
        print(module)
        # CHECK: verify: True
        print("verify:", module.operation.verify())
        ctx.allow_unregistered_dialects = False
        try:
            module.operation.verify()
        except MLIRError as e:
            # CHECK: Verification failed:
            # CHECK-NEXT: error: {{.*}}'foo.bar' op created with unregistered dialect
            print(e)
            # CHECK: message: 'foo.bar' op created with unregistered dialect
            print("message:", e.error_diagnostics[0].message)
            # CHECK: location: loc("-":1:1)
            print("location:", e.error_diagnostics[0].location)
        else:
            print("verify passed")
        try:
            Module.parse('"foo.bar"() : () -> ()')
        except MLIRError as e:
            # CHECK: Unable to parse module assembly
            # CHECK-NEXT: error: {{.*}}operation being parsed with an unregistered dialect
            print(e)


# Operation.attributes reads and writes the operation in place.
# CHECK-LABEL: TEST: testAttributeMap
@run
def testAttributeMap():
    with Context():
        module = Module.parse("func.func private @f(i64)")
        func = module.body.operations[0]
        attributes = func.attributes
        # CHECK: 3 True False
        print(len(attributes), "sym_name" in attributes, "llvm.emit_c_interface" in attributes)
        attributes["llvm.emit_c_interface"] = UnitAttr.get()
        # CHECK: func.func private @f(i64) attributes {llvm.emit_c_interface}
        print(func)
        # CHECK: UnitAttr unit
        print(
            type(func.attributes["llvm.emit_c_interface"]).__name__,
            func.attributes["llvm.emit_c_interface"],
        )
        del attributes["llvm.emit_c_interface"]
        # CHECK: func.func private @f(i64){{$}}
        print(func)
        # CHECK: [NamedAttribute(function_type=(i64) -> ()), NamedAttribute(sym_name="f"), NamedAttribute(sym_visibility="private")]
        print(sorted((a for a in attributes), key=lambda a: a.name))
        # CHECK: StringAttr f
        print(
            type(StringAttr(attributes["sym_name"])).__name__,
            StringAttr(attributes["sym_name"]).value,
        )
        # CHECK: FunctionType (i64) -> ()
        print(
            type(TypeAttr(attributes["function_type"]).value).__name__,
            TypeAttr(attributes["function_type"]).value,
        )
        try:
            StringAttr(attributes["function_type"])
        except ValueError as e:
            # CHECK: cannot cast attribute to StringAttr (from (i64) -> ())
            print(e)
        try:
            del attributes["nope"]
        except KeyError as e:
            # CHECK: operation 'func.func' has no attribute 'nope'
            print(e)
        # CHECK: memref<2x?xf32, strided<[?, 1]>, 1> memref<*xi8, 1>
        space = Attribute.parse("1")
        print(
            MemRefType.get(
                [2, MemRefType.get_dynamic_size()],
                F32Type.get(),
                Attribute.parse("strided<[?, 1]>"),
                space,
            ),
            UnrankedMemRefType.get(IntegerType.get_signless(8), space),
        )
