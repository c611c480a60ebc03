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

/// Raises OSError(`message`): the cache's files cannot be read or removed.
[[noreturn]] void throwOSError(const std::string &message) {
  PyErr_SetString(PyExc_OSError, message.c_str());
  throw py::error_already_set();
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
      [](const std::string &directory) {
        int64_t entries;
        uint64_t bytes;
        std::string error;
        if (mlirLogicalResultIsFailure(mlirExecutionEngineGetCacheContents(
                toStringRef(directory), &entries, &bytes, appendToString,
                &error)))
          throwOSError(error);
        return py::make_tuple(entries, bytes);
      },
      py::arg("directory"),
      "(entries, bytes) of the JIT cache in `directory`; OSError if it "
      "cannot be read.");
  m.def(
      "_cache_clear",
      [](const std::string &directory) {
        int64_t removed;
        std::string error;
        if (mlirLogicalResultIsFailure(mlirExecutionEngineClearCache(
                toStringRef(directory), &removed, appendToString, &error)))
          throwOSError(error);
        return removed;
      },
      py::arg("directory"),
      "Removes the JIT cache's entries in `directory` and the temporary files "
      "writers left an hour ago or more; returns how many entries.");
}
