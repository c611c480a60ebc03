//===- JitFunction.cpp - Typed calls into jitted code ---------------------===//
//
// A typed call is a builtin function (METH_FASTCALL) over a `JitFunction`: it
// converts its arguments straight into the slots the packed wrapper of the
// function's C interface reads (`_mlir__mlir_ciface_<name>`), runs it, and
// converts the results back.
//
//===----------------------------------------------------------------------===//

#include "JitFunction.h"
#include "DeepStack.h"
#include "JitMemRefs.h"
#include "JitScalars.h"
#include "JitThreadState.h"
#include "JitValues.h"
#include "NumpyApi.h"
#include "PybindUtils.h"

#include "mlir-c/Bindings/Python/Interop.h"
#include "mlir-c/ExecutionEngineChecked.h"

#include <algorithm>
#include <alloca.h>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace py = pybind11;

namespace mlir::python::jit {

bool checkOpenMPThreads(bool read) {
  std::string error;
  if (mlirLogicalResultIsSuccess(
          mlirExecutionEngineCheckOpenMPThreads(read, appendToString, &error)))
    return true;
  PyErr_SetString(PyExc_ValueError, error.c_str());
  return false;
}

bool raiseOpenMPThreadsError(MlirExecutionEngine engine) {
  return mlirExecutionEngineUsesOpenMP(engine) &&
         !checkOpenMPThreads(/*read=*/false);
}

namespace {

struct JitFunction {
  std::string name;
  Signature signature;
  bool releaseGil;
  /// The call may be stopped: a Python callback may run during it, or a
  /// runtime function its code calls (an allocation) may fail. It needs
  /// this thread's state (JitThreadState); calls of other functions skip
  /// it.
  bool mayStop;
  /// A callback that raises, or a runtime function that fails, stops the
  /// call (runJitted): only the module's own code runs between the two
  /// (mlir.jit decides).
  bool stoppable;
  bool byPointer;
  /// Called on the first call: returns the ExecutionEngine (compiling the
  /// module once); the engine then stays referenced here.
  py::object compile;
  py::object engine;
  /// The list where exceptions callbacks raised on threads Python never
  /// created wait (shared with the module's callback slots), or null.
  py::object errors;
  void (*packed)(void **) = nullptr;

  // Frame layout: packed pointers, argument slots, memref descriptors and
  // vectors, results.
  size_t slotsOffset, resultsOffset, frameSize;
  size_t frameAlignment = 16;            // vectors may want more
  std::vector<size_t> descriptorOffsets; // for each argument
  std::vector<size_t> memRefArgs;        // the memref arguments' indices
  std::vector<size_t> writableTensors;   // of tensors written in place
  std::vector<size_t> writtenMemRefs;    // of memrefs it may write
  std::vector<size_t> resultOffsets;     // within the results area

  /// The callable's definition: a builtin function calling callJitFunction
  /// (METH_FASTCALL), which CPython's interpreter calls directly, the
  /// quickest way there is into C. (Keywords are refused by it, with this
  /// function's name.)
  PyMethodDef method{};
  std::string doc;

  void layOut() {
    const auto &args = signature.args, &results = signature.results;
    byPointer = resultsByPointer(results);
    size_t numPacked = args.size() + (byPointer ? 1 : results.size());
    slotsOffset = alignTo(numPacked * sizeof(void *), 16);
    size_t offset = slotsOffset + kSlotSize * args.size();
    for (const ValueSpec &arg : args) {
      if (arg.kind == kMemRef)
        memRefArgs.push_back(descriptorOffsets.size());
      if (arg.writableTensor)
        writableTensors.push_back(descriptorOffsets.size());
      if (arg.mayWrite)
        writtenMemRefs.push_back(descriptorOffsets.size());
      if (arg.kind == kVector) {
        frameAlignment = std::max(frameAlignment, alignOf(arg));
        offset = alignTo(offset, alignOf(arg));
      }
      descriptorOffsets.push_back(offset);
      if (arg.kind == kMemRef)
        offset += arg.unranked ? 8 * kUnrankedAreaWords : sizeOf(arg);
      if (arg.kind == kVector)
        offset += sizeOf(arg);
    }
    size_t resultsAlignment = 16;
    for (const ValueSpec &result : results)
      resultsAlignment = std::max(resultsAlignment, alignOf(result));
    frameAlignment = std::max(frameAlignment, resultsAlignment);
    // With results by pointer, the struct follows a slot holding its address.
    resultsOffset =
        alignTo(alignTo(offset, 16) + (byPointer ? 16 : 0), resultsAlignment);
    size_t resultsSize = kSlotSize;
    if (byPointer)
      resultOffsets = structLayout(results, resultsSize);
    else
      resultOffsets = {0};
    if (!byPointer && results.size() == 1)
      resultsSize = std::max(resultsSize, sizeOf(results[0]));
    frameSize = resultsOffset + alignTo(resultsSize, 16);
  }

  /// Compiles the module if needed and finds the packed wrapper.
  bool link() {
    PyObject *returned = PyObject_CallNoArgs(compile.ptr());
    if (!returned)
      return false;
    engine = py::reinterpret_steal<py::object>(returned);
    try {
      MlirExecutionEngine jit = unwrapCapsule(
          engine, mlirPythonCapsuleToExecutionEngine, "an ExecutionEngine");
      std::string symbol = "_mlir_ciface_" + name, error;
      packed = reinterpret_cast<void (*)(void **)>(
          lookupOnCompileStack(jit, symbol, error));
      // The lookup of code that calls LLVM's OpenMP runtime has the runtime
      // read OMP_NUM_THREADS, once checked (mlirExecutionEngineLookupChecked).
      if (!packed && !raiseOpenMPThreadsError(jit))
        PyErr_Format(PyExc_RuntimeError, "cannot call '%s': %s", name.c_str(),
                     error.c_str());
    } catch (py::error_already_set &e) {
      e.restore();
    } catch (const std::exception &e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    }
    return packed != nullptr;
  }
};

/// What a function's callable (a builtin function, below) holds as its
/// `__self__`: the JitFunction.
struct JitFunctionObject {
  PyObject_HEAD;
  JitFunction *function;
};

/// The memref result at `descriptor` as an array: a view of the argument
/// whose memory it is (read-only if the argument is), a read-only view of a
/// global, or an array owning memory the jitted code allocated. `owners`
/// holds a reference to the owner of each allocation seen so far, so that
/// memory returned twice is freed once, after the last array over it.
PyObject *memRefResult(JitFunction &function, const ValueSpec &spec,
                       MemRefView descriptor, PyObject *const *args,
                       std::vector<std::pair<char *, PyObject *>> &owners) {
  char *allocated = descriptor.allocated();
  if (isUnowned(allocated)) {
    Py_INCREF(function.engine.ptr());
    return memRefToArray(spec, descriptor, function.engine.ptr(),
                         /*writeable=*/false);
  }
  const auto &params = function.signature.args;
  for (size_t i = 0; i < params.size(); ++i) {
    auto *arg = reinterpret_cast<PyArrayObject *>(args[i]);
    if (params[i].kind == kMemRef && PyArray_DATA(arg) == allocated) {
      Py_INCREF(args[i]);
      return memRefToArray(spec, descriptor, args[i], PyArray_ISWRITEABLE(arg));
    }
  }
  PyObject *base = nullptr;
  for (auto &owner : owners)
    if (owner.first == allocated)
      base = owner.second;
  if (!base && allocated) {
    base = ownerOfAllocation(allocated);
    if (!base)
      return nullptr;
    owners.emplace_back(allocated, base); // owners' own reference
  }
  Py_XINCREF(base);
  return memRefToArray(spec, descriptor, base, /*writeable=*/true);
}

/// A scalar or vector result.
PyObject *loadValue(const ValueSpec &spec, const char *field) {
  return spec.kind == kVector ? loadVector(spec, field)
                              : loadScalar(spec, field);
}

/// Converts the results in `results` to a Python value (None, the value, or
/// a tuple). Converts all of them even after a failure, so that memory the
/// call allocated is freed with them.
PyObject *convertResults(JitFunction &function, char *results,
                         PyObject *const *args) {
  const auto &specs = function.signature.results;
  if (specs.empty())
    Py_RETURN_NONE;
  if (specs.size() == 1 && specs[0].kind != kMemRef)
    return loadValue(specs[0], results + function.resultOffsets[0]);
  std::vector<std::pair<char *, PyObject *>> owners;
  PyObject *tuple = PyTuple_New(specs.size());
  bool ok = tuple != nullptr;
  for (size_t i = 0; i < specs.size(); ++i) {
    const ValueSpec &spec = specs[i];
    char *field = results + function.resultOffsets[i];
    PyObject *value =
        spec.kind == kMemRef
            ? memRefResult(function, spec,
                           memRefAt(spec, reinterpret_cast<int64_t *>(field)),
                           args, owners)
            : loadValue(spec, field);
    // An unranked result's descriptor is a copy the callee malloc'ed.
    if (spec.unranked)
      std::free(reinterpret_cast<void **>(field)[1]);
    if (!value || !tuple) {
      ok = false;
      Py_XDECREF(value);
      continue;
    }
    PyTuple_SET_ITEM(tuple, i, value);
  }
  for (auto &owner : owners)
    Py_DECREF(owner.second);
  if (!ok) {
    Py_XDECREF(tuple);
    return nullptr;
  }
  if (specs.size() > 1)
    return tuple;
  PyObject *single = PyTuple_GET_ITEM(tuple, 0);
  Py_INCREF(single);
  Py_DECREF(tuple);
  return single;
}

/// Bufferization writes a writable tensor's array in place, assuming no
/// other argument shares its memory: refuses arguments that do.
bool checkNoAliasing(const JitFunction &function, PyObject *const *args) {
  for (size_t i : function.writableTensors)
    for (size_t j : function.memRefArgs)
      if (j != i && overlap(args[i], args[j])) {
        PyErr_Format(PyExc_ValueError,
                     "%s: shares memory with argument %zu; the function "
                     "writes it in place (bufferization.writable = true), "
                     "assuming no other argument does: pass a copy",
                     function.signature.args[i].label.c_str(), j);
        return false;
      }
  return true;
}

/// The arguments a call reads: the caller's, but where the function may
/// write an argument that overlaps another one it does not write
/// (f(buf[:-1], buf[1:])), a copy of the latter, so that every input is
/// read before any output is written, as numpy's ufuncs do, whatever the
/// order the code (sequential or parallel) writes in. The copies live as
/// long as this object.
class CallArguments {
public:
  CallArguments(PyObject *const *args, size_t count)
      : args(args), count(count) {}
  CallArguments(const CallArguments &) = delete;
  ~CallArguments() {
    for (PyObject *copy : copies)
      Py_DECREF(copy);
  }

  /// Copies the arguments `function` does not write that overlap one it may
  /// write, and points their descriptors in `frame` at the copies.
  bool copyOverlappingInputs(const JitFunction &function, char *frame) {
    const std::vector<size_t> &written = function.writtenMemRefs;
    for (size_t j : function.memRefArgs) {
      const ValueSpec &spec = function.signature.args[j];
      if (spec.mayWrite || spec.writableTensor ||
          std::none_of(written.begin(), written.end(),
                       [&](size_t i) { return overlap(args[i], args[j]); }))
        continue;
      PyObject *copy = copyOf(args[j], spec);
      if (!copy)
        return false;
      copies.push_back(copy);
      if (pointed.empty())
        pointed.assign(args, args + count);
      pointed[j] = copy;
      auto *words =
          reinterpret_cast<int64_t *>(frame + function.descriptorOffsets[j]);
      if (spec.unranked
              ? !storeUnrankedMemRef(copy, spec, words)
              : !storeMemRef(copy, spec, MemRefView{words, spec.rank()}))
        return false;
    }
    return true;
  }

  /// What the call reads: `args`, or with the copies in place.
  PyObject *const *get() const {
    return pointed.empty() ? args : pointed.data();
  }

private:
  /// A copy of the elements of `object`, an array `spec` accepted, that it
  /// accepts too: compact, or where the type fixes strides or an offset,
  /// of the same layout; read-only if `object` is.
  static PyObject *copyOf(PyObject *object, const ValueSpec &spec) {
    auto *array = reinterpret_cast<PyArrayObject *>(object);
    bool fixedLayout =
        spec.offset != kDynamic ||
        std::any_of(spec.strides.begin(), spec.strides.end(),
                    [](int64_t stride) { return stride != kDynamic; });
    PyObject *copy =
        fixedLayout ? copyWithLayout(object)
                    : PyArray_NewCopy(array, spec.unranked || spec.contiguous
                                                 ? NPY_CORDER
                                                 : NPY_KEEPORDER);
    if (copy && !PyArray_ISWRITEABLE(array))
      PyArray_CLEARFLAGS(reinterpret_cast<PyArrayObject *>(copy),
                         NPY_ARRAY_WRITEABLE);
    return copy;
  }

  PyObject *const *args;
  size_t count;
  std::vector<PyObject *> copies, pointed;
};

/// Refuses keywords, a wrong number of arguments and a function whose
/// module the garbage collector cleared. Inlined, as packArguments: called
/// (or with runMayStop inlined), the typed call of `add` took 35 ns, not 22.
__attribute__((always_inline)) inline bool
checkCall(const JitFunction &function, Py_ssize_t nargs, PyObject *kwnames) {
  const auto &params = function.signature.args;
  if (kwnames && PyTuple_GET_SIZE(kwnames) > 0) {
    PyErr_Format(PyExc_TypeError, "%s() takes no keyword arguments",
                 function.name.c_str());
    return false;
  }
  if (static_cast<size_t>(nargs) != params.size()) {
    PyErr_Format(PyExc_TypeError,
                 "%s() takes %zu arguments, got %zd (its type is %s)",
                 function.name.c_str(), params.size(), nargs,
                 function.signature.text.c_str());
    return false;
  }
  if (!function.compile) {
    PyErr_Format(PyExc_RuntimeError,
                 "%s(): its JitModule was cleared by the garbage collector",
                 function.name.c_str());
    return false;
  }
  return true;
}

/// Stores the arguments in `frame` (aligned, frameSize bytes) as the packed
/// wrapper reads them, and their addresses (and the results') in the
/// wrapper's array at the frame's start. Inlined: the typed call's hot path.
__attribute__((always_inline)) inline bool
packArguments(const JitFunction &function, PyObject *const *args, char *frame) {
  const auto &params = function.signature.args;
  void **packed = reinterpret_cast<void **>(frame);
  char *slots = frame + function.slotsOffset;
  char *results = frame + function.resultsOffset;
  size_t next = 0;
  if (function.byPointer) {
    char **resultPointer = reinterpret_cast<char **>(results - 16);
    *resultPointer = results;
    packed[next++] = resultPointer;
  }
  for (size_t i = 0; i < params.size(); ++i) {
    const ValueSpec &spec = params[i];
    char *slot = slots + kSlotSize * i;
    if (spec.kind == kMemRef) {
      auto *words =
          reinterpret_cast<int64_t *>(frame + function.descriptorOffsets[i]);
      if (spec.unranked
              ? !storeUnrankedMemRef(args[i], spec, words)
              : !storeMemRef(args[i], spec, MemRefView{words, spec.rank()}))
        return false;
      *reinterpret_cast<int64_t **>(slot) = words;
    } else if (spec.kind == kVector) {
      // Passed by value: the wrapper reads the vector where it lies.
      slot = frame + function.descriptorOffsets[i];
      if (!storeVector(args[i], spec, slot))
        return false;
    } else if (!storeScalar(args[i], spec, slot)) {
      return false;
    }
    packed[next++] = slot;
  }
  if (!function.byPointer && !function.signature.results.empty())
    packed[next++] = results;
  return function.writableTensors.empty() || checkNoAliasing(function, args);
}

/// Runs a call that a callback's exception or a failed allocation may end
/// (function.mayStop), and raises that error, or converts the results. Not
/// inlined: its frame would weigh on every call.
__attribute__((noinline)) PyObject *runMayStop(JitFunction &function,
                                               PyObject *const *args,
                                               void **packed, char *results) {
  // Callbacks get read-only views of read-only arrays.
  JitThreadState &state = threadState();
  PyObject *outerError = beginCall(state);
  size_t readOnlyMark = state.numReadOnly;
  for (size_t i : function.memRefArgs)
    if (!PyArray_ISWRITEABLE(reinterpret_cast<PyArrayObject *>(args[i])))
      state.addReadOnly(
          PyArray_DATA(reinterpret_cast<PyArrayObject *>(args[i])));
  bool returned = runJitted(state, function.releaseGil, function.stoppable,
                            function.packed, packed);
  state.numReadOnly = readOnlyMark;

  // A stopped call wrote no results.
  if (!returned && state.failureType) {
    endCall(state, outerError); // a failure stopped it: no callback raised
    PyErr_SetString(state.failureType, state.failureMessage);
    state.failureType = nullptr;
    return nullptr;
  }
  PyObject *value =
      returned ? convertResults(function, results, args) : nullptr;
  // A callback's exception, raised during the call ...
  if (state.error.isSet()) {
    Py_CLEAR(value);
    PyErr_Clear();
  }
  if (!endCall(state, outerError))
    return nullptr;
  // ... or raised while this call ran (by a thread it started).
  if (!raiseForeignError(function.errors.ptr())) {
    Py_XDECREF(value);
    return nullptr;
  }
  return value;
}

/// The METH_FASTCALL function of a JitFunction's callable. Its frame area
/// is sized from the signature alone, never from the arguments: no stack
/// protector canary (a hot path).
__attribute__((no_stack_protector)) PyObject *
callJitFunction(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                PyObject *kwnames) {
  JitFunction &function =
      *reinterpret_cast<JitFunctionObject *>(self)->function;
  if (!checkCall(function, nargs, kwnames))
    return nullptr;
  char *frame = static_cast<char *>(
      alloca(function.frameSize + function.frameAlignment - 1));
  frame = reinterpret_cast<char *>(
      alignTo(reinterpret_cast<uintptr_t>(frame), function.frameAlignment));
  if (!packArguments(function, args, frame))
    return nullptr;
  // Only a function that may write an array and takes another compares them.
  std::optional<CallArguments> copied;
  if (!function.writtenMemRefs.empty() && function.memRefArgs.size() > 1) {
    copied.emplace(args, nargs);
    if (!copied->copyOverlappingInputs(function, frame))
      return nullptr;
    args = copied->get();
  }
  void **packed = reinterpret_cast<void **>(frame);
  char *results = frame + function.resultsOffset;

  // The first call compiles the module (and checks the callbacks), once the
  // arguments are known to be right.
  if (!function.packed && !function.link())
    return nullptr;
  // A callback's exception from a thread Python never created, raised since
  // the module's last call: this call re-raises it instead of running.
  if (!raiseForeignError(function.errors.ptr()))
    return nullptr;
  if (function.mayStop)
    return runMayStop(function, args, packed, results);
  if (function.releaseGil) {
    Py_BEGIN_ALLOW_THREADS;
    function.packed(packed);
    Py_END_ALLOW_THREADS;
  } else {
    function.packed(packed);
  }
  return convertResults(function, results, args);
}

// Functions take part in garbage collection: a callback may refer to the
// JitModule whose functions refer to the callbacks' state.
int traverseJitFunction(PyObject *self, visitproc visit, void *arg) {
  JitFunction &function =
      *reinterpret_cast<JitFunctionObject *>(self)->function;
  Py_VISIT(function.compile.ptr());
  Py_VISIT(function.engine.ptr());
  Py_VISIT(function.errors.ptr());
  return 0;
}

int clearJitFunction(PyObject *self) {
  JitFunction &function =
      *reinterpret_cast<JitFunctionObject *>(self)->function;
  function.compile = py::object();
  function.engine = py::object();
  function.errors = py::object();
  function.packed = nullptr;
  return 0;
}

void deallocJitFunction(PyObject *self) {
  PyObject_GC_UnTrack(self);
  delete reinterpret_cast<JitFunctionObject *>(self)->function;
  PyObject_GC_Del(self);
}

PyObject *reprJitFunction(PyObject *self) {
  JitFunction &function =
      *reinterpret_cast<JitFunctionObject *>(self)->function;
  return PyUnicode_FromFormat("<jitted function %s%s>", function.name.c_str(),
                              function.signature.text.c_str());
}

PyTypeObject jitFunctionType = {PyVarObject_HEAD_INIT(nullptr, 0)};

void initJitFunctionType() {
  jitFunctionType.tp_name = "_mlirExecutionEngine.JitFunction";
  jitFunctionType.tp_doc =
      "A function of a JitModule: the `__self__` of the builtin function "
      "that calls it with Python values and numpy arrays.";
  jitFunctionType.tp_basicsize = sizeof(JitFunctionObject);
  jitFunctionType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC;
  jitFunctionType.tp_traverse = traverseJitFunction;
  jitFunctionType.tp_clear = clearJitFunction;
  jitFunctionType.tp_dealloc = deallocJitFunction;
  jitFunctionType.tp_repr = reprJitFunction;
  if (PyType_Ready(&jitFunctionType) < 0)
    throw py::error_already_set();
}

/// The callable of a JitFunction for the func.func `name` (see
/// `_make_jit_function`'s doc).
py::object makeJitFunction(const std::string &name, py::object operation,
                           py::sequence dtypes, bool releaseGil, bool mayStop,
                           bool stoppable, py::object compile,
                           py::object errors) {
  MlirOperation op = unwrapCapsule(operation, mlirPythonCapsuleToOperation,
                                   "an mlir.ir.Operation");
  auto function = std::make_unique<JitFunction>();
  function->name = name;
  function->signature = describeSignature(op, name, dtypes);
  function->releaseGil = releaseGil;
  function->mayStop = mayStop;
  function->stoppable = mayStop && stoppable;
  function->compile = std::move(compile);
  if (!errors.is_none() && !PyList_Check(errors.ptr()))
    throw py::type_error("errors must be a list or None");
  if (!errors.is_none()) // else null: no list to check
    function->errors = std::move(errors);
  function->layOut();
  auto *object = PyObject_GC_New(JitFunctionObject, &jitFunctionType);
  if (!object)
    throw py::error_already_set();
  JitFunction &made = *function.release();
  object->function = &made;
  PyObject_GC_Track(object);
  auto self =
      py::reinterpret_steal<py::object>(reinterpret_cast<PyObject *>(object));
  made.doc = "jitted function " + made.name + made.signature.text;
  made.method.ml_name = made.name.c_str();
  made.method.ml_meth = reinterpret_cast<PyCFunction>(
      reinterpret_cast<void (*)()>(callJitFunction));
  made.method.ml_flags = METH_FASTCALL | METH_KEYWORDS;
  made.method.ml_doc = made.doc.c_str();
  // The builtin keeps `self`, which keeps `method`.
  PyObject *callable = PyCFunction_New(&made.method, self.ptr());
  if (!callable)
    throw py::error_already_set();
  return py::reinterpret_steal<py::object>(callable);
}

} // namespace

void populateJitFunctions(py::module_ &m) {
  initJitFunctionType();
  Py_INCREF(&jitFunctionType);
  m.add_object("JitFunction",
               py::handle(reinterpret_cast<PyObject *>(&jitFunctionType)));

  m.def("_make_jit_function", &makeJitFunction, py::arg("name"),
        py::arg("function"), py::arg("dtypes"), py::arg("release_gil"),
        py::arg("may_stop"), py::arg("stoppable"), py::arg("compile"),
        py::arg("errors") = py::none(),
        "The callable for `function`, the func.func `name` (see mlir.jit): "
        "a builtin function whose `__self__` is its JitFunction, "
        "made before the module is lowered. `compile()` returns the "
        "ExecutionEngine; the first call calls it. `may_stop`: a Python "
        "callback may run during a call, or an allocation may fail. If "
        "`stoppable` (only the module's own code runs between a call and its "
        "callbacks or runtime functions), a callback that raises, or a failed "
        "allocation, stops the call. "
        "`errors` is the module's list of exceptions its callbacks "
        "raised on threads Python never created, which calls re-raise.");

  m.def(
      "_check_openmp_threads",
      [](bool read) {
        if (!checkOpenMPThreads(read))
          throw py::error_already_set();
      },
      py::arg("read"),
      "Raise ValueError if LLVM's OpenMP runtime, which has yet to read "
      "OMP_NUM_THREADS in this process, would abort the process on it; with "
      "`read`, the runtime then reads it.");

  m.def(
      "_bind_runtime_support",
      [](py::object engine) {
        registerRuntimeSupport(unwrapCapsule(
            engine, mlirPythonCapsuleToExecutionEngine, "an ExecutionEngine"));
      },
      py::arg("engine"),
      "Register on `engine`, before its first lookup, the runtime functions "
      "lowered memref code calls (memrefCopy).");

  m.def(
      "_mark_tensor_arguments_immutable",
      [](py::object operation) {
        markTensorArgumentsImmutable(unwrapCapsule(
            operation, mlirPythonCapsuleToOperation, "an mlir.ir.Operation"));
      },
      py::arg("function"),
      "Declare the tensor arguments of the func.func `function` "
      "`bufferization.writable = false` unless they say otherwise.");

  m.def(
      "_copy_module",
      [](py::object module) {
        MlirOperation original = mlirModuleGetOperation(unwrapCapsule(
            module, mlirPythonCapsuleToModule, "an mlir.ir.Module"));
        MlirOperation copy;
        runOnStackFor(original, "copy",
                      [&] { copy = mlirOperationClone(original); });
        return py::reinterpret_steal<py::object>(
            mlirPythonModuleToCapsule(mlirModuleFromOperation(copy)));
      },
      py::arg("module"),
      "A copy of `module`, as a capsule for Module._CAPICreate: jit() "
      "lowers the copy, so the caller's module and the operations taken "
      "from it stay as they were.");

  m.def(
      "_call_packed",
      [](py::object function, py::tuple arguments, py::object foreignErrors) {
        if (!foreignErrors.is_none() && !PyList_Check(foreignErrors.ptr()))
          throw py::type_error("foreign_errors must be a list or None");
        PyObject *result =
            callPacked(function.ptr(), arguments.ptr(),
                       foreignErrors.is_none() ? nullptr : foreignErrors.ptr());
        if (!result)
          throw py::error_already_set();
        return py::reinterpret_steal<py::object>(result);
      },
      py::arg("function"), py::arg("arguments"), py::arg("foreign_errors"),
      "Call `function` (a ctypes function over jitted code) with "
      "`arguments`; raise the first exception a callback raised on this "
      "thread meanwhile, else one raised on a thread Python never created "
      "(kept in the list `foreign_errors`, or None).");

  m.def(
      "_keep_callback_error",
      [](py::object error) { return keepPackedCallError(error.ptr()); },
      py::arg("error"),
      "Keep `error`, which a ctypes callback raised, for the call of jitted "
      "code through ctypes running on this thread to raise; False if none "
      "runs.");
}

} // namespace mlir::python::jit
