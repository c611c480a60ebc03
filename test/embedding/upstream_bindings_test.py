"""A consumer's own extension module over upstream's binding headers, in one
process with the component's `mlir` package: it reads a module built with
upstream's dialect builders, which the component's engine then runs."""

import os
import unittest

import _embedding_consumer
from mlir.dialects import arith, func
from mlir.execution_engine import jit
from mlir.ir import Context, F32Type, InsertionPoint, Location, Module


class UpstreamBindingsTest(unittest.TestCase):
    def test_consumer_reads_what_the_engine_runs(self):
        with Context(), Location.unknown():
            module = Module.create()
            with InsertionPoint(module.body):

                @func.FuncOp.from_py_func(F32Type.get())
                def double(x):
                    return arith.AddFOp(x, x).result

            self.assertEqual(_embedding_consumer.function_names(module), ["double"])
            self.assertEqual(jit(module, cache_dir=None).double(2.5), 5.0)

    def test_one_mlir_in_the_process(self):
        with open("/proc/self/maps") as maps:
            loaded = {line.split()[-1] for line in maps if ".so" in line}
        for name in ("libMLIRPythonCAPI.so", "libnanobind-mlir.so", "libMLIR.so"):
            copies = {os.path.realpath(p) for p in loaded if os.path.basename(p).startswith(name)}
            self.assertEqual(len(copies), 1, copies)


if __name__ == "__main__":
    unittest.main()
