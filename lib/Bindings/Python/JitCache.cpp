//===- JitCache.cpp - mlir.jit_cache's calls into the object store --------===//

#include "JitCache.h"
#include "PybindUtils.h"
#include "mlir-c/ExecutionEngineChecked.h"

#include <optional>
#include <string>

#include <pybind11/stl.h>

namespace py = pybind11;
using namespace mlir::python;

namespace {

/// Raises OSError(`code`, `message`), which Python makes the subclass of
/// that errno (PermissionError, NotADirectoryError...); the message names
/// the path, in the file system's encoding.
[[noreturn]] void throwOSError(int code, const std::string &message) {
  py::object text = py::reinterpret_steal<py::object>(
      PyUnicode_DecodeFSDefaultAndSize(message.data(), message.size()));
  if (!text)
    throw py::error_already_set();
  PyErr_SetObject(PyExc_OSError, py::make_tuple(code, text).ptr());
  throw py::error_already_set();
}

/// Calls `storeCall` (a C API function over the cache's files) on the
/// directory `directory` without the GIL (a large or slow directory takes
/// long); raises OSError if it fails.
template <typename StoreCall>
void callStore(const std::string &directory, StoreCall storeCall) {
  int code = 0;
  std::string error;
  MlirLogicalResult result;
  {
    py::gil_scoped_release release;
    result = storeCall(toStringRef(directory), &code, &error);
  }
  if (mlirLogicalResultIsFailure(result))
    throwOSError(code, error);
}

} // namespace

void jit::populateJitCache(py::module_ &m) {
  m.def(
      "_cache_statistics",
      [] {
        MlirExecutionEngineCacheStatistics counts =
            mlirExecutionEngineGetCacheStatistics();
        py::dict result;
        result["hits"] = counts.hits;
        result["misses"] = counts.misses;
        result["stores"] = counts.stores;
        result["compilations"] = counts.compilations;
        return result;
      },
      "What the JIT cache did in this process: hits, misses, stores, and "
      "compilations (modules compiled to object code by any engine).");
  m.def(
      "_cache_max_bytes",
      []() -> std::optional<uint64_t> {
        uint64_t limit;
        if (!mlirExecutionEngineGetCacheMaxBytes(&limit))
          return std::nullopt;
        return limit;
      },
      "The bound MLIR_JIT_CACHE_MAX_BYTES sets, or None if it is invalid.");
  m.def(
      "_cache_contents",
      [](const py::bytes &directory) {
        int64_t entries;
        uint64_t bytes;
        callStore(directory,
                  [&](MlirStringRef path, int *code, std::string *error) {
                    return mlirExecutionEngineGetCacheContents(
                        path, &entries, &bytes, code, appendToString, error);
                  });
        return py::make_tuple(entries, bytes);
      },
      py::arg("directory"),
      "(entries, bytes) of the JIT cache in `directory` (a path in the file "
      "system's encoding); OSError if it or an entry cannot be read.");
  m.def(
      "_cache_clear",
      [](const py::bytes &directory, bool allUsers) {
        int64_t removed, spared;
        callStore(directory, [&](MlirStringRef path, int *code,
                                 std::string *error) {
          return mlirExecutionEngineClearCacheEntries(
              path, allUsers, &removed, &spared, code, appendToString, error);
        });
        return py::make_tuple(removed, spared);
      },
      py::arg("directory"), py::arg("all_users"),
      "Removes this user's JIT cache entries in `directory` (a path in the "
      "file system's encoding) and their temporary files writers left an "
      "hour ago or more; returns (removed, spared): how many entries, and "
      "how many of other users' it left. A directory no cache uses "
      "(another user's, or writable by others and not sticky) is a "
      "PermissionError. With `all_users`, every entry of any directory.");
}
