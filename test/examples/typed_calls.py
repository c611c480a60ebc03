# RUN: %PYTHON %s | FileCheck %s
#
# Runs examples/typed_calls.py (EXAMPLE) as `./bazelw run //examples:typed_calls`
# does, and checks its output: the callback saw the scaled array, and the
# call returned the callback's total.

import os
import runpy

runpy.run_path(os.environ["EXAMPLE"], run_name="__main__")

# CHECK: report: 16 values, first [0. 2. 4.]
# CHECK-NEXT: scale(arange(16), 2.0) -> total 240.0, data[:4] = [0. 2. 4. 6.]
