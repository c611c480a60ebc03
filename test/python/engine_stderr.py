# RUN: %PYTHON %s | FileCheck %s
#
# No JIT session error reaches stderr. ORC reports what a failed link lacked
# ("JIT session error: Symbols not found: [ ... ]") to the execution
# session's error reporter, which by default prints it to stderr; the engine
# keeps it instead for the exception of the call that linked. So a module
# calling a function that is neither defined, registered nor in a loaded
# library makes each of ExecutionEngine.lookup, invoke, raw_lookup,
# initialize and dump_to_object_file raise RuntimeError naming the missing
# symbol, every time it is called, and writes nothing to stderr:
#   - without shared libraries, the engine knows the missing symbols before
#     linking (its own message, and the engine stays usable: registering the
#     symbol afterwards makes the call work);
#   - with a shared library loaded (whose initializer could define symbols
#     the engine cannot see), ORC's link fails: the message carries ORC's
#     session error ("Symbols not found: [ missing_symbol_xyz ]") the first
#     time, and still names the symbol afterwards;
#   - the same from several threads at once, from an engine loaded from the
#     persistent cache, and through the typed layer (mlir.execution_engine.jit);
#   - modules that do link (a registered runtime, a shared library's
#     function) work, so that the test is not vacuous.
# Everything runs in a child interpreter whose stderr is captured, up to and
# including its exit (engines destroyed after failed links included): it must
# be empty.

import os
import subprocess
import sys

if len(sys.argv) > 1 and sys.argv[1] == "child":
    import ctypes
    import gc
    import re
    import shutil
    import tempfile
    import threading

    from fixtures import lowered
    from mlir import jit_cache
    from mlir.execution_engine import ExecutionEngine, jit
    from mlir.ir import Context

    MISSING = """
    func.func @uses_missing(%a: i64) -> i64 attributes { llvm.emit_c_interface } {
      %r = llvm.call @missing_symbol_xyz(%a) : (i64) -> i64
      return %r : i64
    }
    llvm.func @missing_symbol_xyz(i64) -> i64
    """

    # call(a) = hook(a) + jit_test_triple(a): a registered runtime and a
    # function of a shared library.
    LINKS = """
    func.func @call(%a: i64) -> i64 attributes { llvm.emit_c_interface } {
      %h = func.call @hook(%a) : (i64) -> i64
      %t = llvm.call @jit_test_triple(%a) : (i64) -> i64
      %r = arith.addi %h, %t : i64
      return %r : i64
    }
    func.func private @hook(i64) -> i64 attributes { llvm.emit_c_interface }
    llvm.func @jit_test_triple(i64) -> i64
    """

    I64_FN = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)
    C_RUNNER_UTILS = os.environ["MLIR_C_RUNNER_UTILS"]
    HELPER = os.environ["JIT_TEST_HELPER"]
    TMP = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))

    def engine(source, **kwargs):
        with Context():
            return ExecutionEngine(lowered(source), opt_level=0, **kwargs)

    def shown(error):
        """`Type: message`, with ORC's list of the symbols it failed to
        materialize (in no fixed order) elided."""
        message = re.sub(
            r"Failed to materialize symbols: \{.*?\}\) \}",
            "Failed to materialize symbols: {...}",
            str(error),
        )
        return f"{type(error).__name__}: {message}"

    def call(engine, name, value):
        arg, result = ctypes.c_int64(value), ctypes.c_int64(-1)
        engine.invoke(name, ctypes.pointer(arg), ctypes.pointer(result))
        return result.value

    OPERATIONS = {
        "lookup": lambda e: e.lookup("uses_missing"),
        "invoke": lambda e: call(e, "uses_missing", 1),
        "raw_lookup": lambda e: e.raw_lookup("uses_missing"),
        "initialize": lambda e: e.initialize(),
        "dump_to_object_file": lambda e: e.dump_to_object_file(os.path.join(TMP, "dumped.o")),
    }

    def each_operation_twice(**kwargs):
        """Each operation, twice, on an engine of its own."""
        for name, operation in OPERATIONS.items():
            missing = engine(MISSING, **kwargs)
            for attempt in (1, 2):
                try:
                    operation(missing)
                    print(f"  {name} {attempt}: no exception")
                except Exception as error:
                    print(f"  {name} {attempt}: {shown(error)}")
        print(f"  object file written: {os.path.exists(os.path.join(TMP, 'dumped.o'))}")

    print("CASE: missing symbol, no shared library")
    each_operation_twice()

    print("CASE: missing symbol, a shared library loaded")
    each_operation_twice(shared_libs=[C_RUNNER_UTILS])

    print("CASE: missing symbol registered after a failed lookup")
    late = engine(MISSING)
    try:
        late.lookup("uses_missing")
    except RuntimeError as error:
        print(f"  {shown(error)}")
    triple = I64_FN(lambda x: 3 * x)
    late.raw_register_runtime("missing_symbol_xyz", ctypes.cast(triple, ctypes.c_void_p))
    print(f"  then uses_missing(4) = {call(late, 'uses_missing', 4)}")

    print("CASE: a module that links")
    links = engine(LINKS, shared_libs=[HELPER])
    links.register_runtime("hook", I64_FN(lambda x: x + 100))
    print(f"  call(5) = {call(links, 'call', 5)}")

    print("CASE: missing symbol, 4 threads looking up at once")
    shared = engine(MISSING, shared_libs=[C_RUNNER_UTILS])
    outcomes = []

    def look_up():
        for _ in range(10):
            try:
                shared.lookup("uses_missing")
                outcomes.append("no exception")
            except RuntimeError as error:
                outcomes.append(f"RuntimeError naming it: {'missing_symbol_xyz' in str(error)}")

    threads = [threading.Thread(target=look_up) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(f"  {len(outcomes)} lookups: {sorted(set(outcomes))}")

    print("CASE: missing symbol, engine from the persistent cache")
    cache = os.path.join(TMP, "cache")
    for attempt in ("stored", "loaded"):
        hits = jit_cache.statistics()["hits"]
        cached = engine(MISSING, shared_libs=[C_RUNNER_UTILS], cache_dir=cache)
        try:
            cached.lookup("uses_missing")
            print(f"  {attempt}: no exception")
        except RuntimeError as error:
            print(f"  {attempt}: {shown(error)}")
        print(f"  cache hit: {jit_cache.statistics()['hits'] > hits}")

    print("CASE: missing symbol, typed call")
    for libs in ([], [C_RUNNER_UTILS]):
        typed = jit(MISSING, shared_libs=libs)
        try:
            typed.uses_missing(1)
            print(f"  {len(libs)} shared libraries: no exception")
        except RuntimeError as error:
            print(f"  {len(libs)} shared libraries: {shown(error)}")

    del late, links, shared, cached, typed
    gc.collect()
    shutil.rmtree(TMP)
    print("CASE: done")
    sys.exit(0)

result = subprocess.run(
    [sys.executable, __file__, "child"],
    capture_output=True,
    text=True,
    timeout=300,
)
print(result.stdout, end="")
print(f"exit code: {result.returncode}")
print(f"stderr: {result.stderr!r}")

# Without shared libraries the engine names the missing symbols itself.
# CHECK-LABEL: CASE: missing symbol, no shared library
# CHECK-NEXT: lookup 1: RuntimeError: cannot look up '_mlir_ciface_uses_missing': symbols used by the module are neither defined nor registered: missing_symbol_xyz; register them before the first lookup or invocation, or load the shared library that defines them
# CHECK-NEXT: lookup 2: RuntimeError: cannot look up '_mlir_ciface_uses_missing': symbols used by the module are neither defined nor registered: missing_symbol_xyz; register them before the first lookup or invocation, or load the shared library that defines them
# CHECK-NEXT: invoke 1: RuntimeError: cannot look up '_mlir_ciface_uses_missing': symbols used by the module are neither defined nor registered: missing_symbol_xyz; register them
# CHECK-NEXT: invoke 2: RuntimeError: cannot look up '_mlir_ciface_uses_missing': symbols used by the module are neither defined nor registered: missing_symbol_xyz; register them
# CHECK-NEXT: raw_lookup 1: RuntimeError: cannot look up 'uses_missing': symbols used by the module are neither defined nor registered: missing_symbol_xyz; register them
# CHECK-NEXT: raw_lookup 2: RuntimeError: cannot look up 'uses_missing': symbols used by the module are neither defined nor registered: missing_symbol_xyz; register them
# CHECK-NEXT: initialize 1: RuntimeError: Failure while initializing the ExecutionEngine: symbols used by the module are neither defined nor registered: missing_symbol_xyz; register them
# CHECK-NEXT: initialize 2: RuntimeError: Failure while initializing the ExecutionEngine: symbols used by the module are neither defined nor registered: missing_symbol_xyz; register them
# CHECK-NEXT: dump_to_object_file 1: RuntimeError: Failure while dumping the object file: symbols used by the module are neither defined nor registered: missing_symbol_xyz; register them
# CHECK-NEXT: dump_to_object_file 2: RuntimeError: Failure while dumping the object file: symbols used by the module are neither defined nor registered: missing_symbol_xyz; register them
# CHECK-NEXT: object file written: False

# With a shared library, ORC's link fails: its session error ("Symbols not
# found") is part of each exception, not printed.
# CHECK-LABEL: CASE: missing symbol, a shared library loaded
# CHECK-NEXT: lookup 1: RuntimeError: cannot look up '_mlir_ciface_uses_missing': symbols used by the module are neither defined nor registered: missing_symbol_xyz; register them before the first lookup or invocation, or load the shared library that defines them (Symbols not found: [ missing_symbol_xyz ] (Failed to materialize symbols: {...}))
# CHECK-NEXT: lookup 2: RuntimeError: cannot look up '_mlir_ciface_uses_missing': symbols used by the module are neither defined nor registered: missing_symbol_xyz; register them before the first lookup or invocation, or load the shared library that defines them (Symbols not found: [ missing_symbol_xyz ] (Failed to materialize symbols: {...}))
# CHECK-NEXT: invoke 1: RuntimeError: cannot look up '_mlir_ciface_uses_missing': symbols used by the module are neither defined nor registered: missing_symbol_xyz; {{.*}} (Symbols not found: [ missing_symbol_xyz ] (Failed to materialize symbols: {...}))
# CHECK-NEXT: invoke 2: RuntimeError: cannot look up '_mlir_ciface_uses_missing': symbols used by the module are neither defined nor registered: missing_symbol_xyz; {{.*}} (Symbols not found: [ missing_symbol_xyz ] (Failed to materialize symbols: {...}))
# CHECK-NEXT: raw_lookup 1: RuntimeError: cannot look up 'uses_missing': symbols used by the module are neither defined nor registered: missing_symbol_xyz; {{.*}} (Symbols not found: [ missing_symbol_xyz ] (Failed to materialize symbols: {...}))
# CHECK-NEXT: raw_lookup 2: RuntimeError: cannot look up 'uses_missing': symbols used by the module are neither defined nor registered: missing_symbol_xyz; {{.*}} (Symbols not found: [ missing_symbol_xyz ] (Failed to materialize symbols: {...}))
# CHECK-NEXT: initialize 1: RuntimeError: Failure while initializing the ExecutionEngine: symbols used by the module are neither defined nor registered: missing_symbol_xyz; {{.*}} (Symbols not found: [ missing_symbol_xyz ] (Failed to materialize symbols: {...}))
# CHECK-NEXT: initialize 2: RuntimeError: Failure while initializing the ExecutionEngine: symbols used by the module are neither defined nor registered: missing_symbol_xyz; {{.*}} (Symbols not found: [ missing_symbol_xyz ] (Failed to materialize symbols: {...}))
# CHECK-NEXT: dump_to_object_file 1: RuntimeError: Failure while dumping the object file: symbols used by the module are neither defined nor registered: missing_symbol_xyz; {{.*}} (Symbols not found: [ missing_symbol_xyz ] (Failed to materialize symbols: {...}))
# CHECK-NEXT: dump_to_object_file 2: RuntimeError: Failure while dumping the object file: symbols used by the module are neither defined nor registered: missing_symbol_xyz; {{.*}} (Symbols not found: [ missing_symbol_xyz ] (Failed to materialize symbols: {...}))
# CHECK-NEXT: object file written: False

# CHECK-LABEL: CASE: missing symbol registered after a failed lookup
# CHECK-NEXT: RuntimeError: cannot look up '_mlir_ciface_uses_missing': symbols used by the module are neither defined nor registered: missing_symbol_xyz; register them
# CHECK-NEXT: then uses_missing(4) = 12

# CHECK-LABEL: CASE: a module that links
# CHECK-NEXT: call(5) = 120

# CHECK-LABEL: CASE: missing symbol, 4 threads looking up at once
# CHECK-NEXT: 40 lookups: ['RuntimeError naming it: True']

# CHECK-LABEL: CASE: missing symbol, engine from the persistent cache
# CHECK-NEXT: stored: RuntimeError: cannot look up '_mlir_ciface_uses_missing': symbols used by the module are neither defined nor registered: missing_symbol_xyz; {{.*}} (Symbols not found: [ missing_symbol_xyz ] (Failed to materialize symbols: {...}))
# CHECK-NEXT: cache hit: False
# CHECK-NEXT: loaded: RuntimeError: cannot look up '_mlir_ciface_uses_missing': symbols used by the module are neither defined nor registered: missing_symbol_xyz; {{.*}} (Symbols not found: [ missing_symbol_xyz ] (Failed to materialize symbols: {...}))
# CHECK-NEXT: cache hit: True

# CHECK-LABEL: CASE: missing symbol, typed call
# CHECK-NEXT: 0 shared libraries: RuntimeError: cannot call 'uses_missing': symbols used by the module are neither defined nor registered: missing_symbol_xyz; register them
# CHECK-NEXT: 1 shared libraries: RuntimeError: cannot call 'uses_missing': symbols used by the module are neither defined nor registered: missing_symbol_xyz; {{.*}} (Symbols not found: [ missing_symbol_xyz ] (Failed to materialize symbols: {...}))

# CHECK-NEXT: CASE: done
# CHECK-NEXT: exit code: 0
# CHECK-NEXT: stderr: ''{{$}}
