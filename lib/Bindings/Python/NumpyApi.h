//===- NumpyApi.h - numpy's C API, shared by the extension's files
//---------===//
//
// numpy's C API is a table of function pointers that `_import_array` fills
// once per extension module: every file includes numpy through this header,
// and only the one defining MLIR_JIT_IMPORT_NUMPY (ExecutionEngineModule.cpp)
// owns it.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_BINDINGS_PYTHON_NUMPYAPI_H
#define MLIR_BINDINGS_PYTHON_NUMPYAPI_H

#include <Python.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL mlir_jit_numpy_api
#ifndef MLIR_JIT_IMPORT_NUMPY
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#endif // MLIR_BINDINGS_PYTHON_NUMPYAPI_H
