//===- JitThreadState.h - Errors and the GIL across jitted code -----------===//
//
// What a thread running jitted code shares with the callbacks that code
// calls: how to hold the GIL in a callback (the typed call kept it, released
// it, or the thread is one Python never saw), and the first exception a
// callback raised, kept until the Python caller of the jitted code re-raises
// it.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_BINDINGS_PYTHON_JITTHREADSTATE_H
#define MLIR_BINDINGS_PYTHON_JITTHREADSTATE_H

#include <Python.h>

#include <algorithm>
#include <csetjmp>
#include <unordered_set>

namespace mlir::python::jit {

/// An exception a callback raised (the same object, with its traceback).
class PendingError {
public:
  bool isSet() const { return value != nullptr; }
  /// Takes the current Python error, unless one is already kept (the first
  /// one explains the failure).
  void take();
  /// Keeps `error` (an exception), unless one is already kept.
  void keep(PyObject *error) {
    if (!isSet()) {
      Py_INCREF(error);
      value = error;
    }
  }
  /// Gives up the kept error (a new reference, or null if none).
  PyObject *release() {
    PyObject *error = value;
    value = nullptr;
    return error;
  }
  /// Keeps `error` (a reference it takes over, or null) instead.
  void reset(PyObject *error) {
    Py_XDECREF(value);
    value = error;
  }

private:
  PyObject *value = nullptr;
};

/// This thread's state while it runs jitted code (all fields need the GIL or
/// belong to this thread only). Trivially constructible, so that reaching it
/// costs one thread-local lookup: typed calls are hot.
struct JitThreadState {
  /// Set by a typed call that released the GIL, so that a callback on the
  /// same thread takes it back without PyGILState's bookkeeping.
  PyThreadState *released = nullptr;
  /// A typed call kept the GIL: callbacks on this thread just run.
  bool gilHeld = false;
  /// Calls of jitted code through ctypes (ExecutionEngine's lookup and
  /// invoke, callPacked) running on this thread: the exceptions ctypes
  /// callbacks raise meanwhile are kept in `error` too.
  unsigned packedCalls = 0;
  /// Callbacks run while the GIL is kept, since it was last let go.
  unsigned callbacksSinceYield = 0;
  /// Where a callback that raised stops the typed call running on this
  /// thread (runJitted), or null: only jitted code, which needs no unwinding,
  /// runs between the two. Null while a callback's Python function runs.
  jmp_buf *stopCall = nullptr;
  /// The memory the stoppable call running on this thread allocated
  /// (memref.alloc, bufferization's buffers) and has not freed yet: freed
  /// when the call is stopped, as nothing of it is returned then. Null
  /// outside such calls.
  std::unordered_set<void *> *allocations = nullptr;
  /// The first exception a callback (typed, or ctypes during a packed call)
  /// raised on this thread during the running call of jitted code, for its
  /// caller to raise: the one channel of callbacks' errors on a thread
  /// Python knows. (On threads Python never created, or where no call raises
  /// them, they go to the module's list: handOverForeignError.)
  PendingError error;
  /// Why a runtime function the jitted code called (an allocation, a copy)
  /// stopped the call: the exception type and message to raise.
  PyObject *failureType = nullptr;
  char failureMessage[256] = {};
  /// The data of read-only arrays passed to the typed calls running on this
  /// thread: callbacks get read-only views of them. Beyond the capacity, all
  /// views are read-only.
  static constexpr size_t kReadOnlyCapacity = 32;
  const void *readOnlyData[kReadOnlyCapacity] = {};
  size_t numReadOnly = 0;

  void addReadOnly(const void *data) {
    if (numReadOnly < kReadOnlyCapacity)
      readOnlyData[numReadOnly] = data;
    ++numReadOnly;
  }
  bool isReadOnly(const void *data) const {
    if (numReadOnly > kReadOnlyCapacity)
      return true;
    return std::find(readOnlyData, readOnlyData + numReadOnly, data) !=
           readOnlyData + numReadOnly;
  }
};

extern thread_local JitThreadState currentThreadState;
inline JitThreadState &threadState() { return currentThreadState; }

/// Runs jitted code `run(argument)` from a thread holding the GIL: releases
/// the GIL around it if `releaseGil`, and tells callbacks on this thread how
/// to hold it. Nests (a callback may make typed calls). If `stoppable` (the
/// code reaches no code but its module's and callbacks, so no frame between
/// here and a callback needs unwinding), a callback that raises stops the
/// code there: returns false then, and the results were never written.
bool runJitted(JitThreadState &state, bool releaseGil, bool stoppable,
               void (*run)(void **), void **argument);

/// Stops the typed call running on this thread, if it can be stopped, from a
/// runtime function its jitted code called: the call raises `type` with the
/// printf-style message. Returns only if it cannot (no such call, or its
/// code cannot be jumped over). Needs no GIL.
[[gnu::format(printf, 2, 3)]] void stopCallWith(PyObject *type,
                                                const char *format, ...);

/// Starts a call of jitted code on this thread: sets aside, and returns for
/// endCall, the exception a callback of an enclosing call raised (that call
/// raises it; a callback that went on made this call).
inline PyObject *beginCall(JitThreadState &state) {
  return state.error.release();
}

/// Ends the call `beginCall` started: raises the first exception a callback
/// raised during it, if any, and returns false then; puts `outer` back.
bool endCall(JitThreadState &state, PyObject *outer);

/// Calls `function` (a ctypes function over jitted code) with `arguments`,
/// as ExecutionEngine's lookup and invoke do: raises the first exception a
/// callback raised on this thread meanwhile (a ctypes callback's is kept by
/// keepPackedCallError), else one raised on a thread Python never created,
/// kept in `foreignErrors` (the engine's list, or null), as raiseForeignError.
PyObject *callPacked(PyObject *function, PyObject *arguments,
                     PyObject *foreignErrors);

/// Keeps `error`, which a ctypes callback raised (ctypes reports it through
/// sys.unraisablehook), for the packed call running on this thread to raise;
/// returns false if none runs.
bool keepPackedCallError(PyObject *error);

/// Raises, and removes, the first exception of the non-empty list `errors`;
/// returns false.
bool raiseFirstForeignError(PyObject *errors);

/// Raises, and removes, the first exception of `errors` (a list of the
/// exceptions callbacks raised on threads Python never created, kept for
/// the module's calls; or null), if any: returns false then. Inline: each
/// typed call checks.
inline bool raiseForeignError(PyObject *errors) {
  if (!errors || PyList_GET_SIZE(errors) == 0)
    return true;
  return raiseFirstForeignError(errors);
}

} // namespace mlir::python::jit

#endif // MLIR_BINDINGS_PYTHON_JITTHREADSTATE_H
