//===- JitCallbacks.cpp - Calls from jitted code into Python --------------===//
//
// A callback is a declaration `func.func private @name(...)` bound to a
// Python function. Its C interface `_mlir_ciface_<name>` becomes a trampoline
// generated here, in the LLVM dialect: it stores its arguments in 16-byte
// slots and calls the dispatcher with the callback's CallbackSlot, which
// converts them, calls the Python function and writes its results back to
// slots.
//
// The trampolines reach the dispatcher and their slot through symbols
// (`_jit_callback_dispatch`, `_jit_callback_slot_<name>`) registered on the
// engine, never through addresses written into the code: compiled code is
// the same in every process.
//
//===----------------------------------------------------------------------===//

#include "JitCallbacks.h"
#include "JitMemRefs.h"
#include "JitScalars.h"
#include "JitThreadState.h"
#include "JitValues.h"
#include "PybindUtils.h"

#include "mlir-c/Bindings/Python/Interop.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/ExecutionEngineChecked.h"
#include "mlir-c/IR.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace mlir::python::jit {
namespace {

constexpr const char *kDispatchSymbol = "_jit_callback_dispatch";
constexpr const char *kSlotSymbolPrefix = "_jit_callback_slot_";

struct CallbackSlot {
  std::string name;
  Signature signature;
  /// Borrowed: the slot's `function` attribute holds it, where the garbage
  /// collector sees it.
  PyObject *function = nullptr;
  /// Borrowed, held by the slot's `errors` attribute: the list, shared by
  /// the module's calls, where an exception raised on a thread Python never
  /// created waits for a call to re-raise it.
  PyObject *errors = nullptr;
};

/// Where the trampoline wants memref or vector result `i` written: it put
/// the address in the result's slot.
int64_t *memRefResultTarget(char *resultSlots, size_t i) {
  return *reinterpret_cast<int64_t **>(resultSlots + kSlotSize * i);
}

/// The results of a callback that failed: zeros (memrefs of zeros).
void storeZeroResults(const CallbackSlot &slot, char *resultSlots) {
  const auto &specs = slot.signature.results;
  for (size_t i = 0; i < specs.size(); ++i)
    if (specs[i].kind == kMemRef)
      storeZeroMemRef(specs[i], memRefResultTarget(resultSlots, i));
    else if (specs[i].kind == kVector)
      std::memset(memRefResultTarget(resultSlots, i), 0, sizeOf(specs[i]));
    else
      std::memset(resultSlots + kSlotSize * i, 0, kSlotSize);
}

/// Stores `values` (one a result) in `resultSlots`: scalars and vectors
/// first, then the memrefs' copies, so that a failure leaves no copy behind.
bool storeResultValues(const CallbackSlot &slot, PyObject *const *values,
                       char *resultSlots) {
  const auto &specs = slot.signature.results;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].kind == kVector
            ? !storeVector(
                  values[i], specs[i],
                  reinterpret_cast<char *>(memRefResultTarget(resultSlots, i)))
            : specs[i].kind != kMemRef &&
                  !storeScalar(values[i], specs[i],
                               resultSlots + kSlotSize * i))
      return false;
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].kind != kMemRef)
      continue;
    if (!storeMemRefResult(values[i], specs[i],
                           memRefResultTarget(resultSlots, i))) {
      for (size_t j = 0; j < i; ++j)
        if (specs[j].kind == kMemRef)
          freeMemRefResult(specs[j], memRefResultTarget(resultSlots, j));
      return false;
    }
  }
  return true;
}

/// Converts the results a callback returned into `resultSlots`.
bool storeCallbackResults(CallbackSlot &slot, PyObject *returned,
                          char *resultSlots) {
  const auto &specs = slot.signature.results;
  if (specs.empty()) {
    if (returned == Py_None)
      return true;
    PyErr_Format(PyExc_TypeError,
                 "callback '%s' is declared %s, without results: it must "
                 "return None, got %s",
                 slot.name.c_str(), slot.signature.text.c_str(),
                 Py_TYPE(returned)->tp_name);
    return false;
  }
  if (specs.size() == 1 && specs[0].kind < kMemRef) // a scalar: hot
    return storeScalar(returned, specs[0], resultSlots);
  if (specs.size() == 1)
    return storeResultValues(slot, &returned, resultSlots);
  if (!PyTuple_Check(returned)) {
    PyErr_Format(PyExc_TypeError,
                 "callback '%s' must return a tuple of %zu values, got %s",
                 slot.name.c_str(), specs.size(), Py_TYPE(returned)->tp_name);
    return false;
  }
  if (static_cast<size_t>(PyTuple_GET_SIZE(returned)) != specs.size()) {
    PyErr_Format(PyExc_TypeError,
                 "callback '%s' must return a tuple of %zu values, got %zd",
                 slot.name.c_str(), specs.size(), PyTuple_GET_SIZE(returned));
    return false;
  }
  return storeResultValues(slot, &PyTuple_GET_ITEM(returned, 0), resultSlots);
}

/// Calls the Python function with the arguments in `argSlots`; the GIL is
/// held. Returns false if it failed, writing no results (finishCallback).
bool callPython(JitThreadState &state, CallbackSlot &slot, char *argSlots,
                char *resultSlots) {
  // After a callback failed, the rest of the call only unwinds.
  if (state.error.isSet() || !slot.function) {
    storeZeroResults(slot, resultSlots);
    return true;
  }
  const auto &params = slot.signature.args;
  size_t count = params.size();
  // One slot before the arguments lets the callee prepend `self`
  // (PY_VECTORCALL_ARGUMENTS_OFFSET) without copying them.
  constexpr size_t kInline = 8;
  PyObject *inlineArgs[kInline + 1];
  std::vector<PyObject *> heapArgs(count > kInline ? count + 1 : 0);
  PyObject **args = (count > kInline ? heapArgs.data() : inlineArgs) + 1;
  size_t converted = 0;
  for (; converted < count; ++converted) {
    const ValueSpec &spec = params[converted];
    char *argSlot = argSlots + kSlotSize * converted;
    if (spec.kind == kMemRef) {
      MemRefView view = memRefAt(spec, *reinterpret_cast<int64_t **>(argSlot));
      // Constant globals live in read-only memory; read-only arrays stay so.
      bool writeable = !spec.readOnly && !isUnowned(view.allocated()) &&
                       !state.isReadOnly(view.allocated());
      args[converted] = memRefToArray(spec, view, nullptr, writeable);
    } else if (spec.kind == kVector) {
      args[converted] =
          loadVector(spec, *reinterpret_cast<const char **>(argSlot));
    } else {
      args[converted] = loadScalar(spec, argSlot);
    }
    if (!args[converted])
      break;
  }
  PyObject *returned = nullptr;
  if (converted == count) {
    // Jitted code the function runs (a typed call that cannot be stopped, or
    // one through ctypes) allocates memory of its own, not this call's: the
    // call, if stopped, must not free it.
    std::unordered_set<void *> *allocations =
        std::exchange(state.allocations, nullptr);
    returned = PyObject_Vectorcall(
        slot.function, args, count | PY_VECTORCALL_ARGUMENTS_OFFSET, nullptr);
    state.allocations = allocations;
  }
  bool stored = returned && storeCallbackResults(slot, returned, resultSlots);
  if (!stored)
    state.error.take();
  Py_XDECREF(returned);
  // Memory the stopped call allocated that views still reach, and the
  // capsule that now owns it.
  std::vector<std::pair<char *, PyObject *>> handedOver;
  for (size_t i = 0; i < converted; ++i) {
    // A view kept beyond the call (stored, sliced, or in a traceback's
    // locals) would read memory the jitted code may free: it becomes empty.
    if (params[i].kind == kMemRef && Py_REFCNT(args[i]) > 1) {
      // If the call stops here (the callback failed), nothing frees this
      // call's memory but the stop: what views still reach is theirs.
      char *allocated =
          memRefAt(params[i],
                   *reinterpret_cast<int64_t **>(argSlots + kSlotSize * i))
              .allocated();
      auto owner = std::find_if(
          handedOver.begin(), handedOver.end(),
          [&](const auto &entry) { return entry.first == allocated; });
      if (owner == handedOver.end() && !stored && state.allocations &&
          state.allocations->erase(allocated)) {
        PyObject *capsule = ownerOfAllocation(allocated);
        if (!capsule)
          PyErr_Clear(); // then it is kept for good, a leak, not a crash
        owner = handedOver.insert(handedOver.end(), {allocated, capsule});
      }
      PyObject *capsule = owner == handedOver.end() ? nullptr : owner->second;
      Py_XINCREF(capsule);
      forgetMemory(args[i], capsule);
    }
    Py_DECREF(args[i]);
  }
  for (auto &entry : handedOver)
    Py_XDECREF(entry.second);
  return stored;
}

/// While the Python function runs, this thread is in Python, not in the
/// typed call's jitted code: jitted code it calls (through ctypes, say) must
/// not take the typed call's way of holding the GIL for its own.
bool callPythonFromJit(JitThreadState &state, CallbackSlot &slot,
                       char *argSlots, char *resultSlots) {
  PyThreadState *released = state.released;
  bool gilHeld = state.gilHeld;
  jmp_buf *stopCall = state.stopCall;
  state.released = nullptr;
  state.gilHeld = false;
  state.stopCall = nullptr; // Python's frames must not be jumped over
  bool stored = callPython(state, slot, argSlots, resultSlots);
  state.released = released;
  state.gilHeld = gilHeld;
  state.stopCall = stopCall;
  return stored;
}

/// After a callback failed without results (`stored` false), stops the
/// typed call running the jitted code, if it can be stopped: jumps back
/// into runJitted over the jitted frames (which frees the memory they
/// allocated, but for what views of the callbacks' arguments still reach).
/// Otherwise the code goes on, getting zeros from this callback and every later
/// one. Nothing of this frame needs unwinding either. The GIL is as the jitted
/// code had it.
void finishCallback(JitThreadState &state, CallbackSlot &slot,
                    char *resultSlots, bool stored) {
  if (stored)
    return;
  if (state.stopCall && state.error.isSet())
    _longjmp(*state.stopCall, 1);
  storeZeroResults(slot, resultSlots);
}

/// How many callbacks run, the GIL kept, before other threads get a turn.
constexpr unsigned kCallbacksPerYield = 128;

/// Passes `error` (owned), which callback `slot` raised where no caller
/// raises it (on a thread Python never created, `foreignThread`, or in code
/// called through a raw ctypes function, not through the module or its
/// engine's invoke/lookup), to whoever can raise it. The module's running
/// call, or its next one, re-raises the first such error; one that arrives
/// while another is pending is reported through sys.unraisablehook, naming
/// the callback. The GIL is held.
void handOverForeignError(CallbackSlot &slot, PyObject *error,
                          bool foreignThread) {
  if (slot.errors && PyList_Check(slot.errors) &&
      PyList_GET_SIZE(slot.errors) == 0 &&
      PyList_Append(slot.errors, error) == 0) {
    Py_DECREF(error);
    return;
  }
  PyErr_Clear();
  PyErr_SetObject(reinterpret_cast<PyObject *>(Py_TYPE(error)), error);
  Py_DECREF(error);
  PyObject *where = PyUnicode_FromFormat(
      "callback '%s' called %s (an earlier exception of its module is still "
      "to be re-raised)",
      slot.name.c_str(),
      foreignThread ? "on a thread Python did not create"
                    : "by jitted code no call of its module ran");
  PyErr_WriteUnraisable(where);
  Py_XDECREF(where);
}

/// The dispatcher the trampolines call (registered as kDispatchSymbol).
extern "C" void dispatchCallback(CallbackSlot *slot, char *argSlots,
                                 char *resultSlots) {
  JitThreadState &state = threadState();
  if (state.gilHeld) { // the typed call on this thread kept the GIL
    // Let other Python threads run now and then, as the interpreter does.
    if (++state.callbacksSinceYield >= kCallbacksPerYield) {
      state.callbacksSinceYield = 0;
      Py_BEGIN_ALLOW_THREADS;
      Py_END_ALLOW_THREADS;
    }
    bool stored = callPythonFromJit(state, *slot, argSlots, resultSlots);
    finishCallback(state, *slot, resultSlots, stored);
    return;
  }
  if (PyThreadState *released = state.released) {
    PyEval_RestoreThread(released);
    bool stored = callPythonFromJit(state, *slot, argSlots, resultSlots);
    state.released = PyEval_SaveThread();
    finishCallback(state, *slot, resultSlots, stored);
    return;
  }
  // A thread Python never saw, or one that called the jitted code without a
  // typed call (ctypes through invoke or lookup releases the GIL, and
  // ExecutionEngine's lookup re-raises the error this thread keeps; a raw
  // ctypes function raises none: the module keeps it then).
  bool foreign = PyGILState_GetThisThreadState() == nullptr;
  PyGILState_STATE gil = PyGILState_Ensure();
  if (!callPython(state, *slot, argSlots, resultSlots))
    storeZeroResults(*slot, resultSlots);
  if ((foreign || state.packedCalls == 0) && state.error.isSet())
    handOverForeignError(*slot, state.error.release(), foreign);
  PyGILState_Release(gil);
}

/// `name` as an MLIR symbol reference, quoted and escaped.
std::string symbolRef(const std::string &name) {
  std::string text = "@\"";
  for (unsigned char c : name) {
    if (c == '"' || c == '\\' || c < 0x20 || c >= 0x7f) {
      const char *hex = "0123456789ABCDEF";
      text += '\\';
      text += hex[c >> 4];
      text += hex[c & 15];
    } else {
      text += static_cast<char>(c);
    }
  }
  return text + "\"";
}

/// The LLVM dialect definition of callback `slot`'s C interface and the
/// declaration of its slot symbol.
std::string trampoline(const CallbackSlot &slot) {
  const auto &args = slot.signature.args, &results = slot.signature.results;
  bool byPointer = resultsByPointer(results);
  std::string params = byPointer ? "%result: !llvm.ptr" : "";
  for (size_t i = 0; i < args.size(); ++i)
    params += std::string(params.empty() ? "" : ", ") + "%a" +
              std::to_string(i) + ": " + llvmTypeOf(args[i]);
  std::string returns =
      results.size() == 1 && !byPointer ? " -> " + llvmTypeOf(results[0]) : "";
  std::string slotArray = "array<" + std::to_string(kSlotSize / 8) + " x i64>";
  auto slotsType = [&](size_t count) {
    return "!llvm.array<" + std::to_string(std::max<size_t>(count, 1)) + " x " +
           slotArray + ">";
  };
  std::string argSlots = slotsType(args.size()),
              resultSlots = slotsType(results.size());
  std::string slotSymbol = symbolRef(kSlotSymbolPrefix + slot.name);
  std::string text = "llvm.mlir.global external " + slotSymbol + "() : i8\n" +
                     "llvm.func " + symbolRef("_mlir_ciface_" + slot.name) +
                     "(" + params + ")" + returns + " {\n" +
                     "  %one = llvm.mlir.constant(1 : i64) : i64\n"
                     "  %args = llvm.alloca %one x " +
                     argSlots + " : (i64) -> !llvm.ptr\n" +
                     "  %results = llvm.alloca %one x " + resultSlots +
                     " : (i64) -> !llvm.ptr\n";
  // A vector, larger than a slot, is stored on the stack and its slot
  // holds its address.
  for (size_t i = 0; i < args.size(); ++i) {
    std::string n = std::to_string(i), type = llvmTypeOf(args[i]);
    text += "  %p" + n + " = llvm.getelementptr %args[0, " + n +
            "] : (!llvm.ptr) -> !llvm.ptr, " + argSlots + "\n";
    if (args[i].kind == kVector)
      text += "  %v" + n + " = llvm.alloca %one x " + type +
              " : (i64) -> !llvm.ptr\n" + "  llvm.store %a" + n + ", %v" + n +
              " : " + type + ", !llvm.ptr\n" + "  llvm.store %v" + n + ", %p" +
              n + " : !llvm.ptr, !llvm.ptr\n";
    else
      text +=
          "  llvm.store %a" + n + ", %p" + n + " : " + type + ", !llvm.ptr\n";
  }
  // Each result's slot and, returned by pointer, its field. A memref
  // result's field address goes in its slot: the dispatcher writes the
  // descriptor there itself. A vector result's slot holds the address of
  // stack space the dispatcher writes it to.
  std::string fields;
  for (const ValueSpec &result : results)
    fields +=
        std::string(fields.empty() ? "" : ", ") + llvmStorageTypeOf(result);
  std::vector<std::string> fieldOf(results.size(), "%result");
  for (size_t i = 0; i < results.size(); ++i) {
    std::string n = std::to_string(i);
    text += "  %q" + n + " = llvm.getelementptr %results[0, " + n +
            "] : (!llvm.ptr) -> !llvm.ptr, " + resultSlots + "\n";
    if (byPointer && results.size() > 1) {
      fieldOf[i] = "%f" + n;
      text += "  %f" + n + " = llvm.getelementptr %result[0, " + n +
              "] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(" + fields + ")>\n";
    }
    if (results[i].kind == kMemRef)
      text += "  llvm.store " + fieldOf[i] + ", %q" + n +
              " : !llvm.ptr, !llvm.ptr\n";
    if (results[i].kind == kVector)
      text += "  %w" + n + " = llvm.alloca %one x " + llvmTypeOf(results[i]) +
              " : (i64) -> !llvm.ptr\n" + "  llvm.store %w" + n + ", %q" + n +
              " : !llvm.ptr, !llvm.ptr\n";
  }
  text += "  %slot = llvm.mlir.addressof " + slotSymbol + " : !llvm.ptr\n" +
          "  llvm.call " + symbolRef(kDispatchSymbol) +
          "(%slot, %args, %results) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> "
          "()\n";
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i].kind == kMemRef)
      continue;
    std::string n = std::to_string(i), type = llvmTypeOf(results[i]);
    text += "  %r" + n + " = llvm.load " +
            (results[i].kind == kVector ? "%w" : "%q") + n +
            " : !llvm.ptr -> " + type + "\n";
    if (byPointer)
      text += "  llvm.store %r" + n + ", " + fieldOf[i] + " : " + type +
              ", !llvm.ptr\n";
  }
  text += results.size() == 1 && !byPointer
              ? "  llvm.return %r0 : " + llvmTypeOf(results[0]) + "\n}\n"
              : "  llvm.return\n}\n";
  return text;
}

/// The top-level operation of `body` whose sym_name is `name`, or null.
MlirOperation findSymbol(MlirBlock body, const std::string &name) {
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    MlirAttribute symbol = mlirOperationGetAttributeByName(
        op, mlirStringRefCreateFromCString("sym_name"));
    if (!mlirAttributeIsNull(symbol) && mlirAttributeIsAString(symbol) &&
        mlirStringRefEqual(mlirStringAttrGetValue(symbol), toStringRef(name)))
      return op;
  }
  return MlirOperation{nullptr};
}

/// Replaces the C interface declarations of `slots` in `module`, lowered to
/// the LLVM dialect, by their trampolines.
void addTrampolines(py::object module, py::list slotList) {
  MlirModule target =
      unwrapCapsule(module, mlirPythonCapsuleToModule, "an mlir.ir.Module");
  std::vector<CallbackSlot *> slots;
  for (py::handle slot : slotList)
    slots.push_back(&slot.cast<CallbackSlot &>());
  MlirBlock body = mlirModuleGetBody(target);
  std::vector<std::string> reserved = {kDispatchSymbol};
  for (CallbackSlot *slot : slots)
    reserved.push_back(kSlotSymbolPrefix + slot->name);
  for (const std::string &name : reserved)
    if (!mlirOperationIsNull(findSymbol(body, name)))
      throw py::value_error("the module defines '" + name +
                            "', a name the callbacks' generated code uses; "
                            "rename it");
  std::string text = "llvm.func " + symbolRef(kDispatchSymbol) +
                     "(!llvm.ptr, !llvm.ptr, !llvm.ptr)\n";
  for (CallbackSlot *slot : slots)
    text += trampoline(*slot);
  MlirModule definitions =
      mlirModuleCreateParse(mlirModuleGetContext(target), toStringRef(text));
  if (mlirModuleIsNull(definitions))
    throw std::runtime_error("internal error: a callback trampoline does not "
                             "parse:\n" +
                             text);
  MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(definitions));
  while (!mlirOperationIsNull(op)) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    MlirAttribute symbol = mlirOperationGetAttributeByName(
        op, mlirStringRefCreateFromCString("sym_name"));
    MlirStringRef name = mlirStringAttrGetValue(symbol);
    MlirOperation existing =
        findSymbol(body, std::string(name.data, name.length));
    if (!mlirOperationIsNull(existing))
      mlirOperationDestroy(existing);
    mlirOperationRemoveFromParent(op);
    mlirBlockAppendOwnedOperation(body, op);
    op = next;
  }
  mlirModuleDestroy(definitions);
}

/// Registers the dispatcher and the slots of `slots` on `engine`, and makes
/// the engine keep them alive: its code calls them as long as it lives.
void bindToEngine(py::object engine, py::list slots) {
  MlirExecutionEngine jit = unwrapCapsule(
      engine, mlirPythonCapsuleToExecutionEngine, "an ExecutionEngine");
  auto registerSymbol = [&](const std::string &name, void *address) {
    std::string error;
    if (mlirLogicalResultIsFailure(mlirExecutionEngineRegisterSymbolChecked(
            jit, toStringRef(name), address, appendToString, &error)))
      throw std::runtime_error("cannot bind callbacks: " + error);
  };
  registerSymbol(kDispatchSymbol, reinterpret_cast<void *>(&dispatchCallback));
  for (py::handle handle : slots) {
    CallbackSlot &slot = handle.cast<CallbackSlot &>();
    registerSymbol(kSlotSymbolPrefix + slot.name, &slot);
  }
  for (py::handle slot : slots)
    keepAliveWithEngine(engine, slot);
  // Where ExecutionEngine's lookup finds the exceptions callbacks raised on
  // threads Python never created.
  if (!slots.empty()) {
    py::object errors = slots[0].attr("errors");
    if (!errors.is_none())
      engine.attr("_callback_errors") = errors;
  }
}

} // namespace

void populateJitCallbacks(py::module_ &m) {
  py::class_<CallbackSlot>(m, "_CallbackSlot", py::dynamic_attr())
      .def(py::init([](const std::string &name, py::object operation,
                       py::sequence dtypes) {
             MlirOperation op =
                 unwrapCapsule(operation, mlirPythonCapsuleToOperation,
                               "an mlir.ir.Operation");
             auto slot = std::make_unique<CallbackSlot>();
             slot->name = name;
             slot->signature = describeSignature(op, name, dtypes);
             return slot.release();
           }),
           py::arg("name"), py::arg("declaration"), py::arg("dtypes"),
           "The native side of callback `name`, declared by the func.func "
           "`declaration`; `dtypes` as for `_make_jit_function`.")
      .def_property(
          "function",
          [](py::object self) -> py::object {
            return self.attr("__dict__").attr("get")("function");
          },
          [](py::object self, py::object function) {
            self.attr("__dict__")["function"] = function;
            self.cast<CallbackSlot &>().function = function.ptr();
          },
          "The Python function the callback calls.")
      .def_property(
          "errors",
          [](py::object self) -> py::object {
            return self.attr("__dict__").attr("get")("errors");
          },
          [](py::object self, py::list errors) {
            self.attr("__dict__")["errors"] = errors;
            self.cast<CallbackSlot &>().errors = errors.ptr();
          },
          "The list, shared with the module's calls, where an exception the "
          "callback raised on a thread Python never created waits to be "
          "re-raised.");

  m.def("_add_callback_trampolines", &addTrampolines, py::arg("module"),
        py::arg("slots"),
        "Define the C interfaces of the callbacks `slots` in `module`, "
        "lowered to the LLVM dialect.");
  m.def("_bind_callbacks", &bindToEngine, py::arg("engine"), py::arg("slots"),
        "Register the callbacks `slots` on `engine`, before its first "
        "lookup; the engine keeps them alive.");
}

} // namespace mlir::python::jit
