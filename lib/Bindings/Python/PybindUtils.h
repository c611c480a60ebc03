//===- PybindUtils.h - Helpers shared by the extension modules ------------===//
//
// The engine module talks to MLIR only through the C API; these helpers
// turn C API strings and callbacks into Python values.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_BINDINGS_PYTHON_PYBINDUTILS_H
#define MLIR_BINDINGS_PYTHON_PYBINDUTILS_H

#include "DeepStack.h"

#include "mlir-c/IR.h"
#include "mlir-c/NestingDepth.h"
#include "mlir-c/Support.h"

#include <pybind11/pybind11.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>

namespace mlir::python {

/// An MlirStringCallback that appends to the std::string at `userData`.
inline void appendToString(MlirStringRef part, void *userData) {
  static_cast<std::string *>(userData)->append(part.data, part.length);
}

/// How deeply an object nests (mlir-c/NestingDepth.h): how deeply MLIR's
/// printer recurses on it.
inline intptr_t nestingDepth(MlirType type) {
  return mlirTypeGetNestingDepth(type);
}
inline intptr_t nestingDepth(MlirOperation op) {
  return mlirOperationGetNestingDepth(op);
}

/// Runs `fn` (C API calls that recurse over `object`, such as printing,
/// verifying, running passes on or translating it, and no Python) on a stack
/// deep enough for `object`. `what` names the work in errors.
template <typename T>
void runOnStackFor(T object, const char *what,
                   const std::function<void()> &fn) {
  runOnStack(stackForDepth(nestingDepth(object), what), what, fn);
}

/// Prints an MLIR object with a C API print function into a std::string, on
/// a stack deep enough for it.
template <typename T>
std::string printToString(void (*print)(T, MlirStringCallback, void *),
                          T object) {
  std::string text;
  runOnStackFor(object, "print", [&] { print(object, appendToString, &text); });
  return text;
}

inline MlirStringRef toStringRef(const std::string &s) {
  return mlirStringRefCreate(s.data(), s.size());
}

/// `text` as a str; bytes that are not UTF-8 (file names, symbol names and
/// string literals of the input quoted by a diagnostic) are shown as \x
/// escapes instead of making the conversion fail.
inline pybind11::str toPyStrLossless(const std::string &text) {
  PyObject *str =
      PyUnicode_DecodeUTF8(text.data(), text.size(), "backslashreplace");
  if (!str)
    throw pybind11::error_already_set();
  return pybind11::reinterpret_steal<pybind11::str>(str);
}

/// Extracts the C API pointer from a capsule, or from a Python object's
/// `_CAPIPtr` capsule (so objects of another binding of the same MLIR serve,
/// as with upstream's type casters), raising TypeError naming `expected` if it
/// has none.
template <typename T>
T unwrapCapsule(pybind11::handle object, T (*fromCapsule)(PyObject *),
                const char *expected) {
  pybind11::object capsule;
  if (PyCapsule_CheckExact(object.ptr()))
    capsule = pybind11::reinterpret_borrow<pybind11::object>(object);
  else {
    // Only a missing attribute means "not one": an exception the object's
    // `_CAPIPtr` raised propagates, not a misleading TypeError.
    PyObject *attribute = PyObject_GetAttrString(object.ptr(), "_CAPIPtr");
    if (!attribute) {
      if (!PyErr_ExceptionMatches(PyExc_AttributeError))
        throw pybind11::error_already_set();
      PyErr_Clear();
      throw pybind11::type_error(
          std::string("expected ") + expected + ", got " +
          std::string(pybind11::str(pybind11::type::handle_of(object))));
    }
    capsule = pybind11::reinterpret_steal<pybind11::object>(attribute);
  }
  T value = fromCapsule(capsule.ptr());
  if (!value.ptr) {
    PyErr_Clear(); // set by PyCapsule_GetPointer
    throw pybind11::type_error(std::string("expected ") + expected +
                               ": the capsule has the wrong type");
  }
  return value;
}

/// Makes the exceptions this module raises from C++ safe for messages that
/// quote user input which is not valid UTF-8 (such as bytes given for a pass
/// pipeline): undecodable bytes are shown as \x escapes instead of leaving an
/// exception without its message.
inline void registerUtf8SafeExceptions() {
  pybind11::register_local_exception_translator([](std::exception_ptr error) {
    auto raise = [](PyObject *type, const char *message) {
      PyObject *text = PyUnicode_DecodeUTF8(message, std::strlen(message),
                                            "backslashreplace");
      PyErr_SetObject(type, text);
      Py_XDECREF(text);
    };
    try {
      std::rethrow_exception(error);
    } catch (const pybind11::value_error &e) {
      raise(PyExc_ValueError, e.what());
    } catch (const pybind11::type_error &e) {
      raise(PyExc_TypeError, e.what());
    } catch (const pybind11::key_error &e) {
      raise(PyExc_KeyError, e.what());
    } catch (const pybind11::index_error &e) {
      raise(PyExc_IndexError, e.what());
    } catch (const pybind11::builtin_exception &) {
      throw; // StopIteration, AttributeError, ...: pybind11's own mapping
    } catch (const std::runtime_error &e) {
      raise(PyExc_RuntimeError, e.what());
    }
  });
}

} // namespace mlir::python

#endif // MLIR_BINDINGS_PYTHON_PYBINDUTILS_H
