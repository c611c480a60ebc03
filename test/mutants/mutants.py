"""The mutant suite: small deliberate bugs the tests must catch (issue 17).

Each mutant is data: `file` (relative to the repository root), `search` (an
exact snippet that occurs exactly once in the file, short enough to survive a
reformat), `replace`, `tests` (the Bazel test targets that must fail with the
mutant applied) and `why` (what the bug is and what should catch it).
`run.py` applies them one at a time in a scratch copy of the repository; a
snippet that is not found exactly once is an error, never a kill.

`compile_error: True` would mark a mutant expected not to build (counted as
killed); none is: each of these builds, and only a test can kill it.
"""

CAPI = "lib/CAPI/ExecutionEngine/ExecutionEngine.cpp"
BINDINGS = "lib/Bindings/Python/"
CAPI_TEST = "//test/CAPI:execution_engine"
PY = "//test/python:"

MUTANTS = [
    # --- C API (lib/CAPI) ----------------------------------------------------
    {
        "name": "capi_opt_level_range",
        "file": CAPI,
        "search": "optLevel > 3",
        "replace": "optLevel > 7",
        "tests": [CAPI_TEST],
        "why": "opt-level validation accepts 4..7; LLVM gets an invalid CodeGenOptLevel",
    },
    {
        "name": "capi_duplicate_symbol",
        "file": CAPI,
        "search": "if (!jit.registeredSymbols.insert(symbolName).second)",
        "replace": "if (!jit.registeredSymbols.insert(symbolName).second && false)",
        "tests": [CAPI_TEST],
        "why": "a runtime registered twice is not refused (ORC then reports a duplicate definition on stderr)",
    },
    {
        "name": "capi_defined_symbol",
        "file": CAPI,
        "search": "if (jit.moduleSymbols.contains(symbolName))",
        "replace": "if (false && jit.moduleSymbols.contains(symbolName))",
        "tests": [CAPI_TEST],
        "why": "registering a symbol the module defines is not refused",
    },
    {
        "name": "capi_late_register",
        "file": CAPI,
        "search": "if (jit.compiled)",
        "replace": "if (false)",
        "tests": [CAPI_TEST],
        "why": "registering after compilation is silently accepted and has no effect",
    },
    {
        "name": "capi_skip_missing_symbol_check",
        "file": CAPI,
        "search": "if (!missing.empty()) {",
        "replace": "if (false) {",
        "tests": [CAPI_TEST],
        "why": "missing symbols are not found before compiling: ORC fails the compilation and no later registration repairs the engine",
    },
    {
        "name": "capi_missing_symbols_inverted",
        "file": CAPI,
        "search": "if (!jit.registeredSymbols.contains(name) &&",
        "replace": "if (jit.registeredSymbols.contains(name) &&",
        "tests": [CAPI_TEST],
        "why": "the missing-symbol scan looks at the registered symbols instead of the unregistered ones: the message no longer names the missing symbol",
    },
    {
        "name": "capi_dump_without_enable",
        "file": CAPI,
        "search": "if (!jit.enableObjectDump)",
        "replace": "if (false)",
        "tests": [CAPI_TEST],
        "why": "DumpToObjectFile ignores enableObjectDump=false",
    },
    {
        "name": "capi_initialize_skipped",
        "file": CAPI,
        "search": "jit.engine->initialize();",
        "replace": "(void)jit.engine;",
        "tests": [CAPI_TEST],
        "why": "Initialize compiles but never runs the module's global constructors",
    },
    {
        "name": "capi_bf16_double_rounding",
        "file": CAPI,
        "search": "bits |= 1;",
        "replace": "bits |= 0;",
        "tests": [PY + "jit"],
        "why": "__truncdfbf2 rounds twice (f64 -> f32 -> bf16) instead of once: 1 + 2**-8 + 2**-40 gives 1.0 instead of 1.0078125",
    },
    # --- C++ bindings (lib/Bindings/Python) -----------------------------------
    {
        "name": "halffloat_round_once",
        "file": BINDINGS + "HalfFloat.cpp",
        "search": "return floatOf(bitsOf(rounded) | 1);",
        "replace": "return rounded;",
        "tests": [PY + "typed_call_hardening"],
        "why": "f16/bf16 conversions of a double round twice (through float) instead of once",
    },
    {
        "name": "halffloat_ties_away",
        "file": BINDINGS + "HalfFloat.cpp",
        "search": "(rest == middle && (half & 1))",
        "replace": "(rest == middle)",
        "tests": [PY + "typed_call_layout"],
        "why": "f16 ties round away from zero instead of to even: 1 + 2**-11 gives 1.0009765625 instead of 1.0",
    },
    {
        "name": "halffloat_bf16_ties_down",
        "file": BINDINGS + "HalfFloat.cpp",
        "search": "bits += 0x7fff + ((bits >> 16) & 1);",
        "replace": "bits += 0x7fff;",
        "tests": [PY + "typed_call_layout"],
        "why": "bf16 ties round toward zero instead of to even: 1 + 3 * 2**-8 gives 1.0078125 instead of 1.015625",
    },
    {
        "name": "jitvalues_field_alignment",
        "file": BINDINGS + "JitValues.cpp",
        "search": "size = alignTo(size, alignOf(field));",
        "replace": "size = alignTo(size, 1);",
        "tests": [PY + "typed_call_layout"],
        "why": "the results struct packs its fields without alignment: (i8, i64) results are read at the wrong offset",
    },
    {
        "name": "jitvalues_memref_descriptor_size",
        "file": BINDINGS + "JitValues.cpp",
        "search": "8 * (3 + 2 * spec.rank())",
        "replace": "8 * (2 + 2 * spec.rank())",
        "tests": [PY + "jit"],
        "why": "a memref descriptor is laid out one word short: the next field of a results struct overlaps its last stride",
    },
    {
        "name": "jitmemrefs_readonly",
        "file": BINDINGS + "JitMemRefs.cpp",
        "search": "if (!spec.readOnly && !PyArray_ISWRITEABLE(array))",
        "replace": "if (false)",
        "tests": [PY + "typed_call_hardening"],
        "why": "a read-only array is passed to a parameter the function may write",
    },
    {
        "name": "jitmemrefs_stride_off_by_one",
        "file": BINDINGS + "JitMemRefs.cpp",
        "search": "int64_t stride = empty ? 0 : strides[d] >> spec.elementShift;",
        "replace": "int64_t stride = empty ? 0 : (strides[d] >> spec.elementShift) + 1;",
        "tests": [PY + "jit"],
        "why": "dynamic strides passed to jitted code are one element too large",
    },
    {
        "name": "jitmemrefs_static_stride_check",
        "file": BINDINGS + "JitMemRefs.cpp",
        "search": "if (!empty && dims[d] > 1 && stride != spec.strides[d])",
        "replace": "if (false)",
        "tests": [PY + "jit"],
        "why": "a strided view is passed to a parameter with static (contiguous) strides: the jitted code reads the wrong elements",
    },
    {
        "name": "jitmemrefs_static_offset",
        "file": BINDINGS + "JitMemRefs.cpp",
        "search": "descriptor.aligned() = data - offset * itemsize;",
        "replace": "descriptor.aligned() = data;",
        "tests": [PY + "jit"],
        "why": "a static offset in the memref type is not compensated: the jitted code starts `offset` elements past the array's first",
    },
    {
        "name": "jitscalars_no_upper_bound",
        "file": BINDINGS + "JitScalars.cpp",
        "search": "value < low || value > high",
        "replace": "value < low",
        "tests": [PY + "jit", PY + "errors"],
        "why": "integers above the type's maximum are silently truncated instead of raising",
    },
    {
        "name": "jitfunction_pending_error_dropped",
        "file": BINDINGS + "JitFunction.cpp",
        "search": "if (state.error.isSet()) {",
        "replace": "if (false) {",
        "tests": [PY + "typed_call_hardening", PY + "jit"],
        "why": "an exception a callback raised is not re-raised by the typed call that ran the jitted code",
    },
    {
        "name": "jitcallbacks_gil_not_reacquired",
        "file": BINDINGS + "JitCallbacks.cpp",
        "search": "PyEval_RestoreThread(released);",
        "replace": "(void)released;",
        "tests": [PY + "jit"],
        "why": "a callback from jitted code that released the GIL runs Python without taking the GIL back",
    },
    {
        "name": "jitthreadstate_error_not_restored",
        "file": BINDINGS + "JitThreadState.cpp",
        "search": "error.restore();",
        "replace": "error.clear();\n  return true;",
        "tests": [PY + "typed_call_hardening", PY + "jit"],
        "why": "raisePendingError drops the pending callback error instead of setting it",
    },
    {
        "name": "engine_module_callback_not_kept_alive",
        "file": BINDINGS + "ExecutionEngineModule.cpp",
        "search": "self.keepAlive(callback);",
        "replace": "(void)callback;",
        "tests": [PY + "execution_engine"],
        "why": "raw_register_runtime does not keep the ctypes callback alive: a collected callback is called from jitted code",
    },
    # --- Python package (python/mlir) ----------------------------------------
    {
        "name": "engine_callback_error_not_reraised",
        "file": "python/mlir/_engine.py",
        "search": "if caught:",
        "replace": "if False:",
        "tests": [PY + "engine_callback_errors"],
        "why": "an exception raised by a ctypes callback during invoke is only reported to sys.unraisablehook, not re-raised",
    },
    {
        "name": "engine_invoke_arg_count",
        "file": "python/mlir/_engine.py",
        "search": "expected >= 0 and len(ctypes_args) != expected",
        "replace": "False",
        "tests": [PY + "errors"],
        "why": "invoke with the wrong number of pointers is not refused: the jitted code reads past the array",
    },
    {
        "name": "engine_invoke_null_pointer",
        "file": "python/mlir/_engine.py",
        "search": "raise ValueError(f\"argument {index} of '{name}' is a null pointer\")",
        "replace": "pass",
        "tests": [PY + "errors"],
        "why": "invoke passes a null pointer to the jitted code",
    },
    {
        "name": "engine_register_runtime_prefix",
        "file": "python/mlir/_engine.py",
        "search": 'raw_register_runtime("_mlir_ciface_" + name',
        "replace": "raw_register_runtime(name",
        "tests": [PY + "execution_engine"],
        "why": "register_runtime registers the bare name instead of the C interface symbol",
    },
    {
        "name": "np_to_memref_strides_in_bytes",
        "file": "python/mlir/runtime/np_to_memref.py",
        "search": "[s // itemsize for s in nparray.strides]",
        "replace": "[s for s in nparray.strides]",
        "tests": [PY + "execution_engine"],
        "why": "memref strides are given in bytes instead of elements",
    },
    {
        "name": "np_to_memref_offset_in_bytes",
        "file": "python/mlir/runtime/np_to_memref.py",
        "search": "shift = offset * ctypes.sizeof(aligned_ptr._type_)",
        "replace": "shift = offset",
        "tests": [PY + "execution_engine"],
        "why": "move_aligned_ptr_by_offset moves by bytes instead of elements, so memref results with an offset are read from the wrong place",
    },
    {
        "name": "np_to_memref_wrong_dtype",
        "file": "python/mlir/runtime/np_to_memref.py",
        "search": '"f64": "float64",',
        "replace": '"f64": "float32",',
        "tests": [PY + "jit"],
        "why": "the runtime's element-type table maps f64 to float32: typed calls refuse float64 arrays for memref<?xf64>",
    },
    {
        "name": "np_to_memref_complex_table",
        "file": "python/mlir/runtime/np_to_memref.py",
        "search": 'C128: "complex128",',
        "replace": 'C128: "complex64",',
        "tests": [PY + "upstream_api"],
        "why": "the stand-in struct table maps C128 to complex64: complex64 arrays get 16-byte elements",
    },
    {
        "name": "jit_missing_callbacks_check",
        "file": "python/mlir/_jit.py",
        "search": "if missing:",
        "replace": "if False:",
        "tests": [PY + "errors", PY + "jit"],
        "why": "calling a function whose callbacks are not all registered is not refused",
    },
    {
        "name": "jit_callback_arity_off_by_one",
        "file": "python/mlir/_jit.py",
        "search": "signature.bind(*range(count))",
        "replace": "signature.bind(*range(count + 1))",
        "tests": [PY + "jit"],
        "why": "register refuses every callback taking exactly the declared number of arguments",
    },
    {
        "name": "jit_register_undeclared",
        "file": "python/mlir/_jit.py",
        "search": "if name not in state.declarations:",
        "replace": "if False:",
        "tests": [PY + "errors", PY + "jit"],
        "why": "registering a callback for a name the module does not declare is not refused",
    },
    # --- Added with the fixes of issue 19's last round ----------------------
    {
        "name": "capi_nul_symbol_accepted",
        "file": CAPI,
        "search": "if (!nulSymbol.empty())",
        "replace": "if (false)",
        "tests": [CAPI_TEST, PY + "engine_errors"],
        "why": "a module symbol with a NUL reaches ORC, where it collides with the name before the NUL",
    },
    {
        "name": "nesting_depth_uncounted",
        "file": "lib/CAPI/IR/NestingDepth.cpp",
        "search": "depths[element] = deepest + 1;",
        "replace": "depths[element] = 1;",
        "tests": [PY + "ir_hardening"],
        "why": "types and attributes count as one level however deep: deep IR is printed on a stack too small for it",
    },
    {
        "name": "print_on_callers_stack",
        "file": BINDINGS + "PybindUtils.h",
        "search": """runOnStackFor(object, "print",""",
        "replace": """runOnStackFor(MlirDiagnostic{nullptr}, "print",""",
        "tests": [PY + "ir_hardening"],
        "why": "printing runs on the caller's stack whatever the depth of what it prints",
    },
]

# Run by CI (`run.py --sample`): one C API mutant, two C++ and two Python.
SAMPLE = [
    "capi_opt_level_range",
    "jitmemrefs_readonly",
    "halffloat_round_once",
    "engine_invoke_arg_count",
    "np_to_memref_strides_in_bytes",
]
