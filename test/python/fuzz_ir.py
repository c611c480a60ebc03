# RUN: %PYTHON %s | FileCheck %s
#
# Fuzzes the IR API with hypothesis: random and mutated MLIR text into
# Module.parse, Type.parse and Attribute.parse; attribute edits, then
# verification, lowering and engines; and values of random types into the
# other entry points. Nothing may crash the process, and every failure must
# be a Python exception of an expected type, with a message.
#
# The harness (lib/fuzzing.py) runs each batch in a subprocess of its own;
# FUZZ_SCALE=20 runs twenty times as many examples, random ones.

import numpy as np
from hypothesis import strategies as st

from fixtures import ADD, LOWERING
from fuzzing import (
    CORPUS,
    any_value,
    attempt,
    fuzz,
    main,
    mlir_text,
    successes,
)
from mlir.execution_engine import ExecutionEngine, jit
from mlir.ir import (
    Attribute,
    Context,
    F32Type,
    FunctionType,
    IntegerType,
    Location,
    MemRefType,
    Module,
    StringAttr,
    Type,
)
from mlir.passmanager import PassManager
from mlir.runtime import (
    get_ranked_memref_descriptor,
    get_unranked_memref_descriptor,
    ranked_memref_to_numpy,
)

# A case that crashed once, now fuzzed: Operation.attributes[name] = a value
# of the wrong kind for an inherent attribute (arith.addi's overflowFlags =
# unit).
INHERENT_ATTRIBUTES_CHECKED = True


@successes(0.1)
def batch_parse():
    """Module.parse, Type.parse, Attribute.parse; walks what parses."""
    with Context() as context:

        @fuzz(300, st.tuples(mlir_text(), st.booleans(), st.text(max_size=20)))
        def test(case):
            text, unregistered, name = case
            context.allow_unregistered_dialects = unregistered
            ok, module = attempt("Module.parse", Module.parse, text)
            if ok:
                str(module)
                assert module.operation.verify()
                for op in module.body:
                    op.name, str(op), len(op.attributes), name in op.attributes
                    for named in op.attributes:
                        named.name, str(named.attr)
                    attempt("attributes[]", op.attributes.__getitem__, name)
                    for region in op.regions:
                        for block in region:
                            str(block)
            attempt("Type.parse", Type.parse, text[:60])
            attempt("Attribute.parse", Attribute.parse, text[:60])

        test()


ATTRIBUTES = [
    "unit",
    "1 : i32",
    "1.5 : f32",
    '"s"',
    "@sym",
    "[1, @f]",
    "{a = 1}",
    "i64",
    "(i64) -> i64",
    "() -> ()",
    "(i64, i64) -> i64",
    "dense<1> : tensor<2xi64>",
    "array<i64: 1, 2>",
    "#llvm.linkage<internal>",
    "affine_map<(d0) -> (d0)>",
    "loc(unknown)",
    '"private"',
    '"public"',
    '"nested"',
    "[{}, {}]",
    "[{llvm.noalias}]",
    "0 : index",
    "true",
]
DISCARDABLE_ATTRIBUTES = ["llvm.emit_c_interface", "llvm.linkage", "test.x", "x"]
ATTRIBUTE_NAMES = (
    DISCARDABLE_ATTRIBUTES
    + [
        "sym_name",
        "function_type",
        "sym_visibility",
        "arg_attrs",
        "res_attrs",
        "value",
        "callee",
        "overflowFlags",
        "fastmath",
        "predicate",
        "lowerBound",
        "operandSegmentSizes",
        "name",
    ]
    * INHERENT_ATTRIBUTES_CHECKED
)


def walk(block, ops):
    for op in block:
        ops.append(op)
        for region in op.regions:
            for inner in region:
                walk(inner, ops)
    return ops


@successes(2)
def batch_mutate():
    """Operation.attributes set and deleted at random, then printing,
    verification, lowering and engines."""
    with Context():
        edits = st.lists(
            st.tuples(
                st.integers(0, 100),
                st.sampled_from(ATTRIBUTE_NAMES),
                st.one_of(st.none(), st.sampled_from(ATTRIBUTES)),
            ),
            min_size=1,
            max_size=3,
        )

        @fuzz(150, st.tuples(st.sampled_from(range(len(CORPUS))), edits))
        def test(case):
            index, edits = case
            module = Module.parse(CORPUS[index])
            ops = walk(module.body, [])
            for position, name, value in edits:
                op = ops[position % len(ops)]
                if value is None:
                    attempt("del attributes[]", op.attributes.__delitem__, name)
                else:
                    attempt(
                        "attributes[] =", op.attributes.__setitem__, name, Attribute.parse(value)
                    )
            str(module)
            ok, _ = attempt("verify", module.operation.verify)
            if not ok:
                return
            ok, _ = attempt("PassManager.run", PassManager.parse(LOWERING).run, module)
            if ok:
                attempt("ExecutionEngine", ExecutionEngine, module, opt_level=0)

        test()


@successes(0.02)
def batch_api():
    """Other entry points with values of random types."""
    entry_points = [
        ("Module.parse", lambda x, y: Module.parse(x, context=y)),
        ("Module.parse", lambda x, y: Module.parse(x)),
        ("PassManager.parse", lambda x, y: PassManager.parse(x, context=y)),
        ("PassManager", lambda x, y: PassManager(x, context=y)),
        ("PassManager.run", lambda x, y: PassManager.parse("builtin.module(cse)").run(x)),
        ("Type.parse", lambda x, y: Type.parse(x, context=y)),
        ("Attribute.parse", lambda x, y: Attribute.parse(x)),
        ("IntegerType.get_signless", lambda x, y: IntegerType.get_signless(x)),
        ("MemRefType.get", lambda x, y: MemRefType.get(x, y)),
        ("MemRefType.get", lambda x, y: MemRefType.get(x, F32Type.get())),
        ("FunctionType.get", lambda x, y: FunctionType.get(x, y)),
        ("StringAttr.get", lambda x, y: StringAttr.get(x, context=y)),
        ("Location.file", lambda x, y: Location.file(x, y, y)),
        ("ExecutionEngine", lambda x, y: ExecutionEngine(x, opt_level=y)),
        ("jit", lambda x, y: jit(x, opt_level=y)),
        ("jit", lambda x, y: jit(ADD, pipeline=x)),
        ("get_ranked_memref_descriptor", lambda x, y: get_ranked_memref_descriptor(x)),
        ("get_unranked_memref_descriptor", lambda x, y: get_unranked_memref_descriptor(x)),
    ]
    integer_widths = st.integers(-5, 2**33)

    with Context():

        @fuzz(
            300,
            st.tuples(
                st.sampled_from(range(len(entry_points))),
                st.one_of(any_value, integer_widths, st.lists(integer_widths, max_size=3)),
                any_value,
            ),
        )
        def test(case):
            index, x, y = case
            label, fn = entry_points[index]
            ok, value = attempt(label, fn, x, y)
            if ok and label == "get_ranked_memref_descriptor" and x.dtype.kind in "iufcb":
                # Round trip of a zero-copy descriptor.
                back = ranked_memref_to_numpy([value])
                np.testing.assert_array_equal(back, x)

        test()


main(globals(), __file__)

# CHECK: batch parse: {{[1-9][0-9]*}} examples, no crash, {{[1-9][0-9]*}} successful calls
# CHECK: batch mutate: {{[1-9][0-9]*}} examples, no crash, {{[1-9][0-9]*}} successful calls
# CHECK: batch api: {{[1-9][0-9]*}} examples, no crash, {{[1-9][0-9]*}} successful calls
# CHECK: fuzz: 3 batches, {{[1-9][0-9]*}} examples, 0 failed
# The expected kinds of exception were seen.
# CHECK: exceptions: KeyError={{[1-9][0-9]*}} MLIRError={{[1-9][0-9]*}} RuntimeError={{[1-9][0-9]*}} TypeError={{[1-9][0-9]*}} ValueError={{[1-9][0-9]*}}
