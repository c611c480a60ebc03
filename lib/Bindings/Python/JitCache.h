//===- JitCache.h - mlir.jit_cache's calls into the object store ----------===//

#ifndef MLIR_BINDINGS_PYTHON_JITCACHE_H
#define MLIR_BINDINGS_PYTHON_JITCACHE_H

#include <pybind11/pybind11.h>

namespace mlir::python::jit {

/// Adds `_cache_statistics`, `_cache_max_bytes`, `_cache_contents` and
/// `_cache_clear` to the module: the object cache's counters, bound and
/// files, as the engine's object store knows them (mlir.jit_cache).
void populateJitCache(pybind11::module_ &m);

} // namespace mlir::python::jit

#endif // MLIR_BINDINGS_PYTHON_JITCACHE_H
