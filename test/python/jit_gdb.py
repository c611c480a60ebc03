# RUN: %PYTHON %s | FileCheck %s
#
# GDB sees jitted code through the GDB JIT interface: an ExecutionEngine made
# with enable_gdb_listener=True (the default) registers each object it links
# with __jit_debug_register_code, which gdb reads by itself. So a backtrace
# taken while jitted code runs names the jitted functions, and gdb unwinds
# through them with their unwind tables; with enable_gdb_listener=False gdb
# knows nothing about the code and names no such frame.
#
# How: a child Python process (this interpreter, this environment) runs under
# `gdb -batch`. Its jitted function @jitted_frame_marker calls a ctypes
# callback registered with register_runtime, which sends SIGUSR1 to its own
# thread; gdb stops there (handle SIGUSR1 stop nopass), prints `bt`, then
# lets the child finish (the signal is not delivered). Checked for each run:
#   - gdb stopped inside the callback (the signal, which only the callback
#     sends, arrived; libc's own frames may be nameless where it is stripped);
#   - which frames of the backtrace are jitted_frame_marker's or its C
#     interface wrappers' (at opt_level=0 each is a frame of its own; at
#     opt_level=2, the default, they may be inlined into the outermost);
#   - with the listener, gdb unwinds past them into libffi's ffi_call, which
#     called the jitted code;
#   - the child then finished normally (its result printed).
#
# Environment: gdb gets this process's environment but for the variables
# that would act on gdb itself (LD_PRELOAD, which the sanitizer config uses to
# preload ASan into Python, and the Python ones, which gdb's own embedded
# Python would read): gdb hands those to the child with `set environment`.
# LeakSanitizer cannot run under ptrace (it stops the process with ptrace at
# exit): detect_leaks=0 is added to the child's ASAN_OPTIONS. gdb is
# required: without it the test fails, saying so.

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

TIMEOUT_SECONDS = 120
MARKER = "jitted_frame_marker"

CHILD = r'''
import ctypes
import signal
import sys
import threading

from mlir.execution_engine import ExecutionEngine
from mlir.ir import Context, Module
from mlir.passmanager import PassManager

LOWERING = (
    "builtin.module(convert-func-to-llvm,convert-arith-to-llvm,"
    "reconcile-unrealized-casts)"
)
# The call is not a tail call (its result is used), so that the jitted
# frame stays on the stack while the callback runs.
SOURCE = """
func.func @jitted_frame_marker(%a: i64) -> i64 attributes { llvm.emit_c_interface } {
  %r = func.call @stop_in_callback(%a) : (i64) -> i64
  %one = arith.constant 1 : i64
  %s = arith.addi %r, %one : i64
  return %s : i64
}
func.func private @stop_in_callback(i64) -> i64 attributes { llvm.emit_c_interface }
"""

listener = sys.argv[1] == "on"
opt_level = int(sys.argv[2])


@ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)
def stop_in_callback(x):
    # To this thread (a process-directed kill could stop another thread).
    signal.pthread_kill(threading.get_ident(), signal.SIGUSR1)
    return 2 * x


with Context():
    module = Module.parse(SOURCE)
    PassManager.parse(LOWERING).run(module.operation)
    engine = ExecutionEngine(module, opt_level=opt_level, enable_gdb_listener=listener)
engine.register_runtime("stop_in_callback", stop_in_callback)
arg, result = ctypes.c_int64(20), ctypes.c_int64()
engine.invoke("jitted_frame_marker", ctypes.pointer(arg), ctypes.pointer(result))
print(f"child result {result.value}", flush=True)
'''

# A frame line of `bt` with `set print frame-arguments none`:
#   #15 0x00007ffff74550a6 in _mlir__mlir_ciface_jitted_frame_marker ()
#   #3  signal_pthread_kill (...) at ./Modules/clinic/signalmodule.c.h:588
FRAME = re.compile(r"^#(\d+)\s+(?:0x[0-9a-fA-F]+ in )?(\S+) \(")

# Variables for the child only: they would act on gdb itself.
CHILD_ONLY = ["LD_PRELOAD", "PYTHONPATH", "PYTHONHOME"]


def find_gdb():
    gdb = shutil.which("gdb") or ("/usr/bin/gdb" if os.access("/usr/bin/gdb", os.X_OK) else None)
    if gdb is None:
        message = (
            "FAIL: gdb is not installed (not on PATH, not /usr/bin/gdb): "
            "jit_gdb.py needs it to check the GDB JIT listener; install gdb "
            "(apt-get install gdb)"
        )
        print(message)
        print(message, file=sys.stderr)
        sys.exit(1)
    return gdb


def run_under_gdb(gdb, child_path, listener, opt_level):
    """gdb's output (stdout and stderr, the child's output among it)."""
    env = dict(os.environ)
    commands = [
        "set pagination off",
        "set confirm off",
        "set width 0",
        "set startup-with-shell off",
        "set print frame-arguments none",
        "handle SIGUSR1 stop print nopass",
    ]
    for name in CHILD_ONLY:
        value = env.pop(name, None)
        if value:
            commands.append(f"set environment {name}={value}")
    env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"), "detect_leaks=0"]))
    commands += ["run", "bt 200", "continue"]
    argv = [
        gdb,
        "-batch",
        "-nx",
        # Before the program is loaded: no auto-loaded scripts (CPython's
        # python-gdb.py), no downloads.
        "-iex",
        "set auto-load python-scripts off",
        "-iex",
        "set debuginfod enabled off",
    ]
    for command in commands:
        argv += ["-ex", command]
    argv += ["--args", sys.executable, child_path, listener, str(opt_level)]
    process = subprocess.Popen(
        argv,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        start_new_session=True,
    )
    try:
        output, _ = process.communicate(timeout=TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        # gdb and the child (in gdb's process group: there is no terminal).
        os.killpg(process.pid, signal.SIGKILL)
        try:
            output, _ = process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            output = "(no output: a process outside gdb's group holds its output open)"
        output += f"\n(gdb timed out after {TIMEOUT_SECONDS} s and was killed)"
    return output


def check(gdb, child_path, listener, opt_level):
    output = run_under_gdb(gdb, child_path, listener, opt_level)
    frames = [m.group(2) for m in map(FRAME.match, output.splitlines()) if m]
    marked = [index for index, name in enumerate(frames) if MARKER in name]
    stopped = "received signal SIGUSR1" in output
    unwound = bool(marked) and "ffi_call" in frames[marked[-1] + 1 :]
    finished = "child result 41" in output and "exited normally" in output
    prefix = f"listener {listener}, opt_level {opt_level}:"
    print(f"{prefix} stopped in the callback: {stopped}")
    print(f"{prefix} jitted frame named: {bool(marked)}")
    print(f"{prefix} jitted frames: {[frames[index] for index in marked]}")
    if listener == "on":
        print(f"{prefix} unwound past them to ffi_call: {unwound}")
    print(f"{prefix} child finished: {finished}")
    expected = stopped and finished and (bool(marked) == (listener == "on"))
    if listener == "on":
        expected = expected and unwound
    if not expected:
        print(f"--- gdb output ({prefix}) ---", file=sys.stderr)
        print(output, file=sys.stderr)
        print("--- end of gdb output ---", file=sys.stderr)


def main():
    gdb = find_gdb()
    directory = tempfile.mkdtemp(prefix="jit_gdb_", dir=os.environ.get("TEST_TMPDIR"))
    child_path = os.path.join(directory, "child.py")
    with open(child_path, "w") as file:
        file.write(CHILD)

    # At opt_level=0 each function is a frame of its own: the packed wrapper
    # (invoke's entry) calls the C interface, which calls the function.
    # CHECK: listener on, opt_level 0: stopped in the callback: True
    # CHECK-NEXT: listener on, opt_level 0: jitted frame named: True
    # CHECK-NEXT: listener on, opt_level 0: jitted frames: ['jitted_frame_marker', '_mlir_ciface_jitted_frame_marker', '_mlir__mlir_ciface_jitted_frame_marker']
    # CHECK-NEXT: listener on, opt_level 0: unwound past them to ffi_call: True
    # CHECK-NEXT: listener on, opt_level 0: child finished: True
    check(gdb, child_path, "on", 0)

    # The default opt_level: which wrapper the code is inlined into is the
    # optimizer's business.
    # CHECK: listener on, opt_level 2: stopped in the callback: True
    # CHECK-NEXT: listener on, opt_level 2: jitted frame named: True
    # CHECK-NEXT: listener on, opt_level 2: jitted frames: ['{{[a-z_]*}}jitted_frame_marker'{{.*}}]
    # CHECK-NEXT: listener on, opt_level 2: unwound past them to ffi_call: True
    # CHECK-NEXT: listener on, opt_level 2: child finished: True
    check(gdb, child_path, "on", 2)

    # CHECK: listener off, opt_level 2: stopped in the callback: True
    # CHECK-NEXT: listener off, opt_level 2: jitted frame named: False
    # CHECK-NEXT: listener off, opt_level 2: jitted frames: []
    # CHECK-NEXT: listener off, opt_level 2: child finished: True
    check(gdb, child_path, "off", 2)

    shutil.rmtree(directory, ignore_errors=True)


main()
