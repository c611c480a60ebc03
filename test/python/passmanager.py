# RUN: %PYTHON %s | FileCheck %s

import gc

from mlir.ir import *
from mlir.passmanager import *


def run(f):
    print("\nTEST: " + f.__name__)
    f()
    gc.collect()
    assert Context._get_live_count() == 0, Context._get_live_count()
    return f


FOLDABLE = r"""
func.func @f(%a: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %r = arith.addi %a, %c0 : i32
  return %r : i32
}
"""


# CHECK-LABEL: TEST: testParseSuccess
@run
def testParseSuccess():
    with Context():
        pm = PassManager.parse("builtin.module(canonicalize,func.func(cse))")
        # CHECK: builtin.module(canonicalize{{.*}},func.func(cse))
        print(pm)
        # The printed pipeline parses back to the same pipeline.
        # CHECK: round trip: True
        print("round trip:", str(PassManager.parse(str(pm))) == str(pm))
        # CHECK: builtin.module(func.func(cse))
        print(PassManager.parse("builtin.module(func.func(cse))"))


# CHECK-LABEL: TEST: testParseFail
@run
def testParseFail():
    with Context():
        try:
            PassManager.parse("builtin.module(unknown-pass)")
        except ValueError as e:
            # CHECK: ValueError: MLIR Textual PassPipeline Parser:1:1: error: 'unknown-pass' does not refer to a registered pass or pass pipeline
            print("ValueError:", str(e).splitlines()[0])
        else:
            print("no exception raised")
        try:
            PassManager.parse("canonicalize")
        except ValueError as e:
            # CHECK: ValueError: expected pass pipeline to be wrapped with the anchor operation type, e.g. 'builtin.module(...)'
            print("ValueError:", e)
        try:
            PassManager.parse("builtin.module(func.func(convert-func-to-llvm))")
        except ValueError as e:
            # CHECK: ValueError: Can't add pass 'ConvertFuncToLLVMPass' restricted to 'builtin.module' on a PassManager intended to run on 'func.func', did you intend to nest?
            print("ValueError:", str(e).splitlines()[0])


# CHECK-LABEL: TEST: testAdd
@run
def testAdd():
    with Context():
        pm = PassManager("builtin.module")
        # CHECK: builtin.module()
        print(pm)
        pm.add("func.func(canonicalize)")
        pm.add("cse")
        # CHECK: builtin.module(func.func(canonicalize{{.*}}),cse)
        print(pm)
        try:
            pm.add("not-a-pass")
        except ValueError as e:
            # CHECK: ValueError: MLIR Textual PassPipeline Parser:1:1: error: 'not-a-pass' does not refer to a registered pass or pass pipeline
            print("ValueError:", str(e).splitlines()[0])
        # The failed add left the pipeline unchanged.
        # CHECK: builtin.module(func.func(canonicalize{{.*}}),cse)
        print(pm)
        module = Module.parse(FOLDABLE)
        pm.run(module)
        # CHECK: func.func @f(%arg0: i32) -> i32 {
        # CHECK-NEXT: return %arg0 : i32
        print(module)


# run() takes an operation or a module.
# CHECK-LABEL: TEST: testRun
@run
def testRun():
    with Context():
        pm = PassManager.parse("builtin.module(func.func(canonicalize))")
        module = Module.parse(FOLDABLE)
        pm.run(module.operation)
        # CHECK: addi after run on operation: False
        print("addi after run on operation:", "arith.addi" in str(module))
        module = Module.parse(FOLDABLE)
        pm.run(module)
        # CHECK: addi after run on module: False
        print("addi after run on module:", "arith.addi" in str(module))
        # A pipeline that lowers to the LLVM dialect.
        module = Module.parse(
            r"""
func.func @g(%a: i32) -> i32 {
  %r = arith.muli %a, %a : i32
  return %r : i32
}
"""
        )
        PassManager.parse(
            "builtin.module(convert-func-to-llvm,convert-arith-to-llvm,reconcile-unrealized-casts)"
        ).run(module.operation)
        # CHECK: llvm.func @g(%arg0: i32) -> i32
        # CHECK: llvm.mul %arg0, %arg0 : i32
        # CHECK: llvm.return
        print(module)


# CHECK-LABEL: TEST: testRunWrongType
@run
def testRunWrongType():
    with Context():
        pm = PassManager.parse("builtin.module(cse)")
        for target in ["not an operation", 42, None, Module]:
            try:
                pm.run(target)
            except TypeError as e:
                # CHECK: TypeError: expected an Operation or a Module, got <class 'str'>
                # CHECK: TypeError: expected an Operation or a Module, got <class 'int'>
                # CHECK: TypeError: expected an Operation or a Module, got <class 'NoneType'>
                # CHECK: TypeError: expected an Operation or a Module, got <class '{{.*}}type'>
                print("TypeError:", e)
            else:
                print("no exception raised")
        other = Context()
        try:
            pm.run(Module.parse(FOLDABLE, other))
        except ValueError as e:
            # CHECK: ValueError: the operation belongs to another Context than the PassManager
            print("ValueError:", e)


# A failing pass raises MLIRError with the pass's diagnostics.
# CHECK-LABEL: TEST: testRunFailure
@run
def testRunFailure():
    with Context():
        module = Module.parse(FOLDABLE)
        # The transform interpreter needs an entry point the module lacks.
        pm = PassManager.parse("builtin.module(func.func(cse),transform-interpreter)")
        try:
            pm.run(module.operation)
        except MLIRError as e:
            # CHECK: Failure while executing pass pipeline:
            # CHECK-NEXT: error: {{.*}}"-":0:0{{.*}}: could not find a nested named sequence with name: __transform_main
            print(str(e).split("\n note:")[0])
            # CHECK: diagnostics: 1
            print("diagnostics:", len(e.error_diagnostics))
            # CHECK: message: could not find a nested named sequence with name: __transform_main
            print("message:", e.error_diagnostics[0].message)
            # CHECK: location: loc("-":0:0)
            print("location:", e.error_diagnostics[0].location)
        else:
            print("no exception raised")

        # A pipeline anchored on another op than the one it is run on.
        pm = PassManager.parse("func.func(canonicalize)")
        try:
            pm.run(module)
        except MLIRError as e:
            # CHECK: Failure while executing pass pipeline:
            # CHECK-NEXT: error: {{.*}}: can't run 'func.func' pass manager on 'builtin.module' op
            print(e)
            # CHECK: message: can't run 'func.func' pass manager on 'builtin.module' op
            print("message:", e.error_diagnostics[0].message)

        # A pass that fails without a diagnostic: the canonicalizer asked to
        # converge in one iteration when the first one changes the IR.
        pm = PassManager.parse(
            "builtin.module(canonicalize{max-iterations=1 test-convergence=true})"
        )
        try:
            pm.run(module)
        except MLIRError as e:
            # CHECK: no diagnostics: 'Failure while executing pass pipeline' []
            print("no diagnostics:", repr(str(e)), e.error_diagnostics)


# The verifier runs after each pass only when enabled.
# CHECK-LABEL: TEST: testEnableVerifier
@run
def testEnableVerifier():
    for enable in [False, True]:
        with Context() as ctx:
            # An op of an unregistered dialect: valid only while allowed.
            ctx.allow_unregistered_dialects = True
            module = Module.parse(
                r"""
func.func @f(%a: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %r = arith.addi %a, %c0 : i32
  "foo.bar"() : () -> ()
  return %r : i32
}
"""
            )
            ctx.allow_unregistered_dialects = False
            pm = PassManager.parse("builtin.module(func.func(canonicalize))")
            pm.enable_verifier(enable)
            try:
                pm.run(module)
                # CHECK: verifier False: success, addi folded: True
                folded = "arith.addi" not in str(module)
                print(f"verifier {enable}: success, addi folded: {folded}")
            except MLIRError as e:
                # CHECK: verifier True: MLIRError: Failure while executing pass pipeline
                # CHECK-NEXT: message: 'foo.bar' op created with unregistered dialect
                # CHECK-NEXT: location: loc("-":5:3)
                print(f"verifier {enable}: MLIRError: {e.message}")
                print("message:", e.error_diagnostics[0].message)
                print("location:", e.error_diagnostics[0].location)
