# RUN: %PYTHON %s | FileCheck %s
#
# Contexts, Locations and InsertionPoints left entered (scripts, notebooks,
# error paths) never abort or crash the interpreter at exit, on the main
# thread or on others: the exit status is the script's. Upstream 22.1.8's
# bindings dropped the entries' references after finalization (SIGABRT,
# "PyThreadState_Get: the GIL is released", or SIGSEGV); the fix is the patch
# bazel/upstream_patches/thread_context_stack_at_exit.patch.

import subprocess
import sys
import textwrap

ENTER = """
from mlir.ir import Context, InsertionPoint, Location, Module
def enter():
    Context().__enter__()
    Location.unknown().__enter__()
    InsertionPoint(Module.create().body).__enter__()
"""

CASES = {
    "main thread": "enter()",
    "main thread, sys.exit(7)": "enter(); import sys; sys.exit(7)",
    "main thread, an uncaught exception": "enter(); raise KeyError('left entered')",
    "main thread, nested twice": "enter(); enter()",
    "a thread that ended, sys.exit(3)": """
        import sys, threading
        t = threading.Thread(target=enter); t.start(); t.join()
        sys.exit(3)
    """,
    "50 threads that ended": """
        import threading
        threads = [threading.Thread(target=enter) for _ in range(50)]
        for t in threads: t.start()
        for t in threads: t.join()
        import gc; gc.collect()
        enter()
    """,
    "a daemon thread still running": """
        import threading, time
        started = threading.Event()
        def run():
            enter(); started.set(); time.sleep(60)
        threading.Thread(target=run, daemon=True).start()
        started.wait()
    """,
    "threads that ended after a subinterpreter existed": """
        import threading
        try:
            import _xxsubinterpreters as interpreters
        except ImportError:
            import _interpreters as interpreters
        interpreters.destroy(interpreters.create())
        threads = [threading.Thread(target=enter) for _ in range(20)]
        for t in threads: t.start()
        for t in threads: t.join()
    """,
    "a jitted call under the entered context": """
        enter()
        from mlir.execution_engine import jit
        module = jit("func.func @f(%a: i64) -> i64 { return %a : i64 }")
        assert module.f(5) == 5
    """,
}

# CHECK: main thread: exit status 0
# CHECK-NEXT: main thread, sys.exit(7): exit status 7
# CHECK-NEXT: main thread, an uncaught exception: exit status 1, KeyError: 'left entered'
# CHECK-NEXT: main thread, nested twice: exit status 0
# CHECK-NEXT: a thread that ended, sys.exit(3): exit status 3
# CHECK-NEXT: 50 threads that ended: exit status 0
# CHECK-NEXT: a daemon thread still running: exit status 0
# CHECK-NEXT: threads that ended after a subinterpreter existed: exit status 0
# CHECK-NEXT: a jitted call under the entered context: exit status 0
for name, code in CASES.items():
    result = subprocess.run(
        [sys.executable, "-c", ENTER + textwrap.dedent(code)], capture_output=True, text=True
    )
    last_error = result.stderr.strip().splitlines()[-1:] if result.returncode else []
    print(f"{name}: exit status {result.returncode}", *[", " + line for line in last_error], sep="")
    if result.returncode not in (0, 1, 3, 7):
        print(result.stderr)
