# RUN: %PYTHON %s | FileCheck %s
#
# Runs examples/callback_into_python.py (EXAMPLE) as `./bazelw run
# //examples:callback_into_python` does, and checks what the README says it
# prints.

import os
import runpy

runpy.run_path(os.environ["EXAMPLE"], run_name="__main__")

# CHECK: callback_test(42.0, 2) = 44.0
