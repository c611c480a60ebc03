# RUN: %PYTHON %s | FileCheck %s
#
# Fuzzes pass pipelines with hypothesis: random, structured and mutated
# pipeline text into PassManager.parse and PassManager.add, runs on the
# corpus of valid modules, then lowering and engines for what lowers (the
# `add` module must then add). Nothing may crash the process, and every
# failure must be a Python exception of an expected type, with a message.
#
# The harness (lib/fuzzing.py) runs each batch in a subprocess of its own;
# FUZZ_SCALE=20 runs twenty times as many examples, random ones.

import ctypes

from hypothesis import strategies as st

from fixtures import ADD, LOWERING
from fuzzing import CORPUS, attempt, fuzz, main, pipeline_text, successes
from mlir.execution_engine import ExecutionEngine
from mlir.ir import Context, Module
from mlir.passmanager import PassManager


@successes(0.4)
def batch_pipeline():
    """PassManager.parse, add, run; engines for what lowers to LLVM."""
    with Context():

        @fuzz(
            150,
            st.tuples(
                pipeline_text(), st.sampled_from(range(len(CORPUS))), st.booleans(), pipeline_text()
            ),
        )
        def test(case):
            text, index, engine, more = case
            ok, pm = attempt("PassManager.parse", PassManager.parse, text)
            if not ok:
                return
            str(pm)
            if more:
                attempt("PassManager.add", pm.add, more)
            module = Module.parse(CORPUS[index])
            ok, _ = attempt("PassManager.run", pm.run, module.operation)
            if not ok or not engine:
                return
            ok, _ = attempt("PassManager.run", PassManager.parse(LOWERING).run, module.operation)
            if not ok:
                return
            ok, ee = attempt("ExecutionEngine", ExecutionEngine, module, opt_level=0)
            if ok and CORPUS[index] is ADD:
                a, b, r = ctypes.c_int64(40), ctypes.c_int64(2), ctypes.c_int64()
                ee.invoke("add", ctypes.pointer(a), ctypes.pointer(b), ctypes.pointer(r))
                assert r.value == 42, (text, r.value)

        test()


main(globals(), __file__)

# CHECK: batch pipeline: {{[1-9][0-9]*}} examples, no crash, {{[1-9][0-9]*}} successful calls
# CHECK: fuzz: 1 batches, {{[1-9][0-9]*}} examples, 0 failed
# The expected kinds of exception were seen (a RuntimeError, from running
# passes, is too rare to expect in the sanitized run's 75 examples).
# CHECK: exceptions: KeyError={{[0-9]+}} MLIRError={{[1-9][0-9]*}} RuntimeError={{[0-9]+}} TypeError={{[0-9]+}} ValueError={{[1-9][0-9]*}}
