# RUN: %PYTHON %s | FileCheck %s
#
# Typed calls (mlir.execution_engine.jit): the memory layout of results and
# the rounding of f16/bf16 arguments, on the cases the mutant suite
# (test/mutants) found untested.
# - Several results of mixed sizes come back from the struct the jitted code
#   writes, each field at its natural alignment (as LLVM lays out
#   !llvm.struct<(i8, f64, ...)>), from a function and from a callback.
# - f16 and bf16 values exactly halfway between two representable values
#   round to the even one (as arith.truncf), not away from zero.

from mlir.execution_engine import jit


def show(name, fn):
    print(f"CASE: {name}")
    try:
        print(f"  -> {fn()!r}")
    except Exception as error:
        print(f"  {type(error).__name__}: {error}")


MODULE = jit("""
func.func @mixed(%a: i8, %b: i64, %c: f32, %d: f64, %e: i1, %f: i16)
    -> (i8, f64, i1, i64, f32, i16) {
  return %a, %d, %e, %b, %c, %f : i8, f64, i1, i64, f32, i16
}
func.func @call_mixed(%a: i8) -> (i16, f64, i8, i64) {
  %r:4 = func.call @mixed_cb(%a) : (i8) -> (i16, f64, i8, i64)
  return %r#0, %r#1, %r#2, %r#3 : i16, f64, i8, i64
}
func.func private @mixed_cb(i8) -> (i16, f64, i8, i64)
func.func @id_f16(%x: f16) -> f16 {
  return %x : f16
}
func.func @id_bf16(%x: bf16) -> bf16 {
  return %x : bf16
}
""")
MODULE.register("mixed_cb", lambda a: (-300, 0.25, a + 1, 2**40 + 7))

# CHECK-LABEL: CASE: results of mixed sizes
# CHECK: -> (-5, 2.5, True, 1099511627776, 1.5, 1234)
show("results of mixed sizes", lambda: MODULE.mixed(-5, 2**40, 1.5, 2.5, True, 1234))

# CHECK-LABEL: CASE: callback results of mixed sizes
# CHECK: -> (-300, 0.25, 8, 1099511627783)
show("callback results of mixed sizes", lambda: MODULE.call_mixed(7))

# Halfway between 1 and the next f16 (1 + 2**-10): to even, 1.0; halfway
# between 1 + 2**-10 and 1 + 2**-9: to even, 1 + 2**-9.
# CHECK-LABEL: CASE: f16 ties to even
# CHECK: -> (1.0, 1.001953125, -1.0)
show(
    "f16 ties to even",
    lambda: (
        MODULE.id_f16(1 + 2**-11),
        MODULE.id_f16(1 + 3 * 2**-11),
        MODULE.id_f16(-(1 + 2**-11)),
    ),
)

# The same for bf16 (7 mantissa bits).
# CHECK-LABEL: CASE: bf16 ties to even
# CHECK: -> (1.0, 1.015625, -1.015625)
show(
    "bf16 ties to even",
    lambda: (
        MODULE.id_bf16(1 + 2**-8),
        MODULE.id_bf16(1 + 3 * 2**-8),
        MODULE.id_bf16(-(1 + 3 * 2**-8)),
    ),
)
