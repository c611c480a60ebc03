//===- JitThreadState.cpp - Errors and the GIL across jitted code ---------===//

#include "JitThreadState.h"
#include "JitMemRefs.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace mlir::python::jit {

void PendingError::take() {
  if (isSet()) {
    PyErr_Clear();
    return;
  }
  PyObject *type, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  PyErr_NormalizeException(&type, &value, &traceback);
  if (traceback)
    PyException_SetTraceback(value, traceback);
  Py_XDECREF(type);
  Py_XDECREF(traceback);
}

thread_local JitThreadState currentThreadState;

namespace {

/// Runs `run(argument)` until it returns or a callback on this thread stops
/// it (dispatchCallback jumps back here): returns whether it returned. Apart
/// so that nothing else lives in a frame that is returned to twice.
__attribute__((noinline)) bool
runUntilStopped(JitThreadState &state, void (*run)(void **), void **argument) {
  jmp_buf here;
  jmp_buf *outer = state.stopCall;
  std::unordered_set<void *> *outerAllocations = state.allocations;
  std::unordered_set<void *> allocations;
  state.stopCall = &here;
  state.allocations = &allocations;
  if (_setjmp(here) != 0) {
    state.stopCall = outer;
    state.allocations = outerAllocations;
    for (void *memory : allocations)
      releaseMemory(memory);
    return false;
  }
  run(argument);
  state.stopCall = outer;
  state.allocations = outerAllocations;
  return true;
}

} // namespace

bool runJitted(JitThreadState &state, bool releaseGil, bool stoppable,
               void (*run)(void **), void **argument) {
  PyThreadState *outerReleased = state.released;
  bool outerGilHeld = state.gilHeld;
  bool returned = true;
  if (releaseGil) {
    state.gilHeld = false;
    state.released = PyEval_SaveThread();
  } else {
    state.gilHeld = true;
  }
  if (stoppable)
    returned = runUntilStopped(state, run, argument);
  else
    run(argument);
  if (releaseGil) {
    PyThreadState *saved = state.released;
    state.released = nullptr;
    PyEval_RestoreThread(saved);
  }
  state.released = outerReleased;
  state.gilHeld = outerGilHeld;
  return returned;
}

void stopCallWith(PyObject *type, const char *format, ...) {
  JitThreadState &state = threadState();
  if (!state.stopCall)
    return;
  va_list arguments;
  va_start(arguments, format);
  std::vsnprintf(state.failureMessage, sizeof state.failureMessage, format,
                 arguments);
  va_end(arguments);
  state.failureType = type;
  _longjmp(*state.stopCall, 1);
}

bool endCall(JitThreadState &state, PyObject *outer) {
  PyObject *raised = state.error.release();
  state.error.reset(outer);
  if (!raised)
    return true;
  PyErr_SetObject(reinterpret_cast<PyObject *>(Py_TYPE(raised)), raised);
  Py_DECREF(raised);
  return false;
}

PyObject *callPacked(PyObject *function, PyObject *arguments,
                     PyObject *foreignErrors) {
  // One raised on a thread Python never created since the last call.
  if (!raiseForeignError(foreignErrors))
    return nullptr;
  JitThreadState &state = threadState();
  PyObject *outer = beginCall(state);
  ++state.packedCalls;
  PyObject *result = PyObject_Call(function, arguments, nullptr);
  --state.packedCalls;
  if (!result) {
    // The call itself failed (ctypes refused the arguments): its error
    // stands, and replaces this call's callbacks'.
    state.error.reset(outer);
    return nullptr;
  }
  if (!endCall(state, outer) || !raiseForeignError(foreignErrors))
    Py_CLEAR(result);
  return result;
}

bool keepPackedCallError(PyObject *error) {
  JitThreadState &state = threadState();
  if (state.packedCalls == 0)
    return false;
  state.error.keep(error);
  return true;
}

bool raiseFirstForeignError(PyObject *errors) {
  PyObject *error = PyList_GET_ITEM(errors, 0);
  Py_INCREF(error);
  if (PyList_SetSlice(errors, 0, 1, nullptr) < 0) {
    Py_DECREF(error);
    return false;
  }
  PyErr_SetObject(reinterpret_cast<PyObject *>(Py_TYPE(error)), error);
  Py_DECREF(error);
  return false;
}

} // namespace mlir::python::jit
