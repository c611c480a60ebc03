//===- ExecutionEngineModule.cpp - The _mlirExecutionEngine module --------===//
//
// Upstream's ExecutionEngine binding over the checked C API: each failure is
// a RuntimeError with its reason, and every callback registered with the
// engine stays referenced for as long as the engine can call it.
//
//===----------------------------------------------------------------------===//

#include "JitCache.h"
#include "JitCallbacks.h"
#include "JitFunction.h"
#include "JitIR.h"
#include "PybindUtils.h"

// This file imports numpy's C API for the module's files (NumpyApi.h).
#define MLIR_JIT_IMPORT_NUMPY
#include "NumpyApi.h"

#include "mlir-c/Bindings/Python/Interop.h"
#include "mlir-c/ExecutionEngineChecked.h"
#include "mlir-c/JitPasses.h"

#include <pybind11/stl.h>

#include <fcntl.h>
#include <pthread.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <future>
#include <mutex>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

namespace py = pybind11;
using namespace mlir::python;
using mlir::python::jit::compileStackOf;
using mlir::python::jit::lookupOnCompileStack;

namespace {

/// What Python keeps for each live engine, by engine: it outlives the
/// object owning the engine when that object releases it to another
/// (_testing_release, then _CAPICreate of its capsule).
struct EngineRecord {
  /// The stack compiling its module may need.
  size_t compileStack = 0;
  /// The one owner of what its code calls back into (ctypes callbacks,
  /// typed callbacks' slots): a callback's closure may refer back to the
  /// engine, so the owning object shows it to the garbage collector.
  py::list keptAlive;
};

/// Never destroyed: entries hold Python objects, which must not be released
/// after the interpreter is gone.
std::unordered_map<void *, EngineRecord> &engineRecords() {
  static auto *records = new std::unordered_map<void *, EngineRecord>();
  return *records;
}

/// The record of `engine`, made if there is none. It is made before the
/// table is touched: making a list may run the garbage collector, and with
/// it code that makes or frees other engines.
EngineRecord &recordOf(MlirExecutionEngine engine) {
  EngineRecord fresh;
  return engineRecords()
      .try_emplace(engine.ptr, std::move(fresh))
      .first->second;
}

class PyExecutionEngine {
public:
  /// Owns `engine`; `compileStack` is 0 for an engine made elsewhere (a
  /// capsule), which keeps the record of an earlier owner that released it.
  PyExecutionEngine(MlirExecutionEngine engine, size_t compileStack)
      : engine(engine) {
    EngineRecord &record = recordOf(engine);
    if (compileStack)
      record.compileStack = compileStack;
  }
  ~PyExecutionEngine() {
    if (mlirExecutionEngineIsNull(engine))
      return;
    py::list keptAlive;
    auto found = engineRecords().find(engine.ptr);
    if (found != engineRecords().end()) {
      keptAlive = std::move(found->second.keptAlive);
      engineRecords().erase(found);
    }
    mlirExecutionEngineDestroy(engine);
    // `keptAlive` is released only now, after the engine is gone.
  }
  PyExecutionEngine(const PyExecutionEngine &) = delete;
  PyExecutionEngine &operator=(const PyExecutionEngine &) = delete;

  MlirExecutionEngine get() const {
    if (mlirExecutionEngineIsNull(engine))
      throw std::runtime_error(
          "the ExecutionEngine has been released (_testing_release)");
    return engine;
  }

  /// Gives up ownership of the engine (for tests of the capsule API). What
  /// its code calls stays alive with the engine's record, for the object
  /// that takes it over.
  void release() { engine = MlirExecutionEngine{nullptr}; }

  /// Keeps `object`, which the engine's code calls (a ctypes callback, a
  /// typed callback's slot), alive as long as the engine.
  void keepAlive(py::handle object) {
    recordOf(get()).keptAlive.append(object);
  }

  /// The garbage collector's view of the engine: what it keeps alive (found,
  /// never made: nothing is allocated while the collector runs).
  int traverse(visitproc visit, void *arg) {
    auto found = engineRecords().find(engine.ptr);
    if (!mlirExecutionEngineIsNull(engine) && found != engineRecords().end())
      Py_VISIT(found->second.keptAlive.ptr());
    return 0;
  }
  /// Breaks a cycle through the engine, which is garbage. What it kept is
  /// released once the table is no longer used.
  void clear() {
    py::list kept;
    auto found = engineRecords().find(engine.ptr);
    if (!mlirExecutionEngineIsNull(engine) && found != engineRecords().end())
      std::swap(kept, found->second.keptAlive);
  }

private:
  MlirExecutionEngine engine;
};

/// The engine object `self` holds, or null while it is being made. Read
/// from pybind11's instance layout, not through a cast: the garbage
/// collector may look at an object pybind11 is still laying out.
PyExecutionEngine *constructedEngine(PyObject *self) {
  auto *instance = reinterpret_cast<py::detail::instance *>(self);
  if (!instance->simple_layout || !instance->simple_holder_constructed)
    return nullptr;
  return static_cast<PyExecutionEngine *>(instance->simple_value_holder[0]);
}

/// Makes ExecutionEngine objects visible to the garbage collector: what an
/// engine keeps alive may refer back to it.
void traverseEngines(PyHeapTypeObject *heapType) {
  PyTypeObject *type = &heapType->ht_type;
  type->tp_flags |= Py_TPFLAGS_HAVE_GC;
  type->tp_traverse = [](PyObject *self, visitproc visit, void *arg) {
    Py_VISIT(Py_TYPE(self)); // a heap type, which its instances refer to
    PyExecutionEngine *engine = constructedEngine(self);
    return engine ? engine->traverse(visit, arg) : 0;
  };
  type->tp_clear = [](PyObject *self) {
    if (PyExecutionEngine *engine = constructedEngine(self))
      engine->clear();
    return 0;
  };
}

} // namespace

void jit::keepAliveWithEngine(py::handle engine, py::handle object) {
  py::cast<PyExecutionEngine &>(engine).keepAlive(object);
}

namespace {

/// Raises RuntimeError("<what>: <reason>"), `reason` being the message a
/// checked C API call reported.
[[noreturn]] void raise(const std::string &what, const std::string &reason) {
  throw std::runtime_error(what + ": " + reason);
}

/// Refuses a path or a symbol name with an embedded NUL, which the C
/// library's file calls and LLVM's symbol tables would cut short: they would
/// use another file or symbol.
void checkNoNul(const std::string &path, const std::string &what) {
  size_t nul = path.find('\0');
  if (nul != std::string::npos)
    throw py::value_error(what + " '" + path.substr(0, nul) +
                          "\\0...' contains a NUL character");
}

/// The address held by `callback.value` for runtime `name`: an int in
/// [1, 2**64).
void *runtimeAddress(py::handle callback, const std::string &name) {
  if (!py::hasattr(callback, "value"))
    throw py::type_error(
        "callback for '" + name +
        "' must be a ctypes pointer with a .value address, such as "
        "ctypes.cast(a_CFUNCTYPE_function, ctypes.c_void_p)");
  py::object value = callback.attr("value");
  if (value.is_none())
    throw py::value_error("callback for '" + name + "' is a null pointer");
  if (!PyLong_Check(value.ptr()))
    throw py::type_error("callback for '" + name +
                         "' must have an int .value address, got " +
                         std::string(py::str(py::type::handle_of(value))));
  unsigned long long address = PyLong_AsUnsignedLongLong(value.ptr());
  if (address == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    throw py::value_error("callback for '" + name + "' has .value " +
                          std::string(py::repr(value)) +
                          ", which is not a valid address (an address is an "
                          "int from 1 to 2**64 - 1)");
  }
  if (address == 0)
    throw py::value_error("callback for '" + name + "' is a null pointer");
  return reinterpret_cast<void *>(static_cast<uintptr_t>(address));
}

} // namespace

size_t mlir::python::jit::compileStackOf(MlirExecutionEngine engine) {
  auto found = engineRecords().find(engine.ptr);
  return found == engineRecords().end() ? 0 : found->second.compileStack;
}

void *mlir::python::jit::lookupOnCompileStack(MlirExecutionEngine engine,
                                              const std::string &symbol,
                                              std::string &error) {
  void *fn = nullptr;
  runOnStack(compileStackOf(engine), "compile", [&] {
    fn = mlirExecutionEngineLookupChecked(engine, toStringRef(symbol),
                                          /*packed=*/true, appendToString,
                                          &error);
  });
  return fn;
}

namespace {

/// What an ExecutionEngine is created with, beyond the module.
struct EngineOptions {
  int optLevel = 2;
  std::vector<std::string> sharedLibs;
  bool enableObjectDump = true;
  bool enablePIC = false;
  bool enableGDBListener = true;
  bool enablePerfListener = false;
  std::optional<std::string> cacheDir;
  std::string cacheKey;
  std::string cacheAnnotation;
};

/// The C API's options for `options`; `libPaths` holds the paths.
MlirExecutionEngineOptions toCOptions(const EngineOptions &options,
                                      std::vector<MlirStringRef> &libPaths) {
  MlirExecutionEngineOptions c = mlirExecutionEngineOptionsGetDefault();
  c.optLevel = options.optLevel;
  for (const std::string &path : options.sharedLibs) {
    checkNoNul(path, "shared library path");
    libPaths.push_back(toStringRef(path));
  }
  c.numSharedLibPaths = libPaths.size();
  c.sharedLibPaths = libPaths.data();
  c.enableObjectDump = options.enableObjectDump;
  c.enablePIC = options.enablePIC;
  c.enableGDBListener = options.enableGDBListener;
  c.enablePerfListener = options.enablePerfListener;
  if (options.cacheDir) {
    checkNoNul(*options.cacheDir, "cache directory");
    c.cacheDir = toStringRef(*options.cacheDir);
  }
  c.cacheKey = toStringRef(options.cacheKey);
  c.cacheAnnotation = toStringRef(options.cacheAnnotation);
  return c;
}

/// An engine from the cache alone, or a null one: on a miss without error.
struct CacheLoad {
  MlirExecutionEngine engine{nullptr};
  std::string error;
};

CacheLoad loadFromCache(const EngineOptions &options) {
  std::vector<MlirStringRef> libPaths;
  MlirExecutionEngineOptions c = toCOptions(options, libPaths);
  CacheLoad load;
  load.engine =
      mlirExecutionEngineCreateFromCache(&c, appendToString, &load.error);
  return load;
}

/// The cache loads under way, which fork() waits for. A load runs without
/// the GIL on a thread of its own and takes LLVM's global locks (loading
/// the runtime libraries): a child forked meanwhile would find them held
/// forever by a thread it does not have, and the load's future never ready.
/// (Other native code takes such locks with the GIL, which os.fork holds.)
class LoadsUnderWay {
public:
  static LoadsUnderWay &get() {
    static LoadsUnderWay *loads = [] {
      pthread_atfork([] { get().waitAndHold(); }, [] { get().release(); },
                     [] { get().release(); });
      return new LoadsUnderWay; // never destroyed: threads may finish late
    }();
    return *loads;
  }
  /// On the thread that starts a load, before its thread starts.
  void begin() {
    std::lock_guard<std::mutex> lock(mutex);
    ++count;
  }
  /// On the load's thread, when it is done.
  void end() {
    std::lock_guard<std::mutex> lock(mutex);
    if (--count == 0)
      done.notify_all();
  }

private:
  /// Before fork(): no load under way, and none starting until after it.
  void waitAndHold() {
    std::unique_lock<std::mutex> lock(mutex);
    done.wait(lock, [&] { return count == 0; });
    lock.release();
  }
  /// After fork(), in the parent and in the child (whose one thread is the
  /// one that forked).
  void release() { mutex.unlock(); }

  std::mutex mutex;
  std::condition_variable done;
  int64_t count = 0;
};

/// A load from the cache on a thread of its own, so that jit() parses its
/// source meanwhile. Unless taken, the engine is destroyed with it.
class PyCacheLoad {
public:
  explicit PyCacheLoad(EngineOptions options) {
    LoadsUnderWay &loads = LoadsUnderWay::get();
    loads.begin();
    try {
      result = std::async(std::launch::async, [options, &loads] {
        struct Ended {
          LoadsUnderWay &loads;
          ~Ended() { loads.end(); }
        } ended{loads};
        return loadFromCache(options);
      });
    } catch (...) {
      loads.end(); // no thread started
      throw;
    }
  }
  ~PyCacheLoad() {
    if (result.valid()) {
      CacheLoad load = result.get();
      if (!mlirExecutionEngineIsNull(load.engine))
        mlirExecutionEngineDestroy(load.engine);
    }
  }
  CacheLoad take() {
    if (!result.valid())
      throw std::runtime_error("the cache load was taken already");
    py::gil_scoped_release release;
    return result.get();
  }

private:
  std::future<CacheLoad> result;
};

/// The engine `load` made, or KeyError if the cache had no entry.
PyExecutionEngine *takeCacheLoad(PyCacheLoad &load) {
  CacheLoad loaded = load.take();
  if (!loaded.error.empty())
    throw std::runtime_error("Failure while creating the ExecutionEngine. " +
                             loaded.error);
  if (mlirExecutionEngineIsNull(loaded.engine))
    throw py::key_error("the cache has no entry for the key");
  return new PyExecutionEngine(loaded.engine, /*compileStack=*/0);
}

/// Whether `size` bytes at `address` can be read, and written if
/// `writable`, found through a pipe: the kernel copies them into it (and
/// back in place), failing with EFAULT where it cannot. For where a seccomp
/// filter forbids process_vm_readv.
bool accessibleThroughPipe(char *address, size_t size, bool writable) {
  int ends[2];
  if (pipe2(ends, O_CLOEXEC) != 0)
    return false;
  bool accessible = true;
  char chunk[4096];
  for (size_t done = 0; accessible && done < size; done += sizeof chunk) {
    size_t n = std::min(sizeof chunk, size - done);
    accessible = write(ends[1], address + done, n) == static_cast<ssize_t>(n) &&
                 read(ends[0], chunk, n) == static_cast<ssize_t>(n);
    if (accessible && writable)
      accessible = write(ends[1], chunk, n) == static_cast<ssize_t>(n) &&
                   read(ends[0], address + done, n) == static_cast<ssize_t>(n);
  }
  close(ends[0]);
  close(ends[1]);
  return accessible;
}

/// Whether `size` bytes at `address` are memory of this process that can be
/// read, and written if `writable`, found without a fault: the kernel
/// copies them out, and back in place if `writable` (what is written is
/// what was there), failing where it cannot. Where these system calls are
/// not allowed (a seccomp filter), through a pipe.
bool isAccessible(uintptr_t address, size_t size, bool writable) {
  if (size == 0)
    return true;
  if (address + size < address)
    return false;
  std::vector<char> copy(size);
  iovec local{copy.data(), size};
  iovec remote{reinterpret_cast<void *>(address), size};
  ssize_t read = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
  if (read < 0 && (errno == ENOSYS || errno == EPERM))
    return accessibleThroughPipe(reinterpret_cast<char *>(address), size,
                                 writable);
  if (read != static_cast<ssize_t>(size))
    return false;
  return !writable || process_vm_writev(getpid(), &local, 1, &remote, 1, 0) ==
                          static_cast<ssize_t>(size);
}

/// Creates an engine for `module`. A cache that cannot be used is a
/// RuntimeWarning, once for each directory.
PyExecutionEngine *create(MlirModule module, const EngineOptions &options) {
  std::vector<MlirStringRef> libPaths;
  MlirExecutionEngineOptions c = toCOptions(options, libPaths);
  std::string warning;
  c.onCacheWarning = appendToString;
  c.cacheWarningUserData = &warning;
  std::string error;
  // Translating to LLVM IR and compiling recurse on how deeply the module
  // nests.
  size_t compileStack =
      stackForDepth(nestingDepth(mlirModuleGetOperation(module)), "compile");
  MlirExecutionEngine engine;
  runOnStack(compileStack, "compile", [&] {
    engine = mlirExecutionEngineCreateWithOptions(module, &c, appendToString,
                                                  &error);
  });
  static auto *warned = new std::set<std::string>();
  if (!warning.empty() && warned->insert(*options.cacheDir).second &&
      PyErr_WarnEx(PyExc_RuntimeWarning,
                   ("the JIT cache is not used: " + warning).c_str(), 1) < 0) {
    if (!mlirExecutionEngineIsNull(engine))
      mlirExecutionEngineDestroy(engine);
    throw py::error_already_set(); // warnings turned into errors
  }
  // Upstream's message, then the reason.
  if (mlirExecutionEngineIsNull(engine)) {
    throw std::runtime_error("Failure while creating the ExecutionEngine. " +
                             error);
  }
  return new PyExecutionEngine(engine, compileStack);
}

/// The constructor, and the capsule an engine crosses C API users in.
void defineCreation(py::class_<PyExecutionEngine> &engine) {
  engine
      .def(
          py::init([](py::object module, int optLevel,
                      std::vector<std::string> sharedLibs,
                      bool enableObjectDump, bool enablePIC,
                      bool enableGDBListener, bool enablePerfListener,
                      std::optional<std::string> cacheDir, std::string cacheKey,
                      std::string cacheAnnotation, PyCacheLoad *cacheLoad) {
            // mlir.jit's warm path: the engine `cacheLoad` made from the
            // cache alone, KeyError if it had no entry.
            if (module.is_none() && cacheLoad)
              return takeCacheLoad(*cacheLoad);
            MlirModule mlirModule = unwrapCapsule(
                module, mlirPythonCapsuleToModule, "an mlir.ir.Module");
            if (cacheDir && cacheDir->empty())
              throw py::value_error("cache_dir is empty: give a directory, "
                                    "or None for no cache");
            EngineOptions options{optLevel,
                                  std::move(sharedLibs),
                                  enableObjectDump,
                                  enablePIC,
                                  enableGDBListener,
                                  enablePerfListener,
                                  std::move(cacheDir),
                                  std::move(cacheKey),
                                  std::move(cacheAnnotation)};
            return create(mlirModule, options);
          }),
          py::arg("module"), py::arg("opt_level") = 2,
          py::arg("shared_libs") = std::vector<std::string>(),
          py::arg("enable_object_dump") = true, py::arg("enable_pic") = false,
          py::kw_only(), py::arg("enable_gdb_listener") = true,
          py::arg("enable_perf_listener") = false,
          py::arg("cache_dir") = py::none(), py::arg("_cache_key") = "",
          py::arg("_cache_annotation") = "", py::arg("_cache_load") = nullptr,
          "Create a new ExecutionEngine instance for the given Module. The "
          "module must contain only dialects that can be translated to LLVM. "
          "Perform transformations and code generation at the optimization "
          "level `opt_level` if specified, or otherwise at the default "
          "level of two (-O2). Load a list of libraries specified in "
          "`shared_libs`. `enable_gdb_listener`/`enable_perf_listener` tell "
          "GDB and perf about the jitted code. With `cache_dir`, the "
          "compiled object is loaded from, or stored in, that directory's "
          "persistent cache (see mlir.jit_cache).")
      .def_property_readonly(
          "_CAPIPtr",
          [](PyExecutionEngine &self) {
            return py::reinterpret_steal<py::object>(
                mlirPythonExecutionEngineToCapsule(self.get()));
          })
      .def_static(
          "_CAPICreate",
          [](py::object capsule) {
            MlirExecutionEngine engine =
                mlirPythonCapsuleToExecutionEngine(capsule.ptr());
            if (mlirExecutionEngineIsNull(engine)) {
              PyErr_Clear();
              throw py::type_error("expected an ExecutionEngine capsule");
            }
            return new PyExecutionEngine(engine, /*compileStack=*/0);
          },
          py::arg("capsule"),
          "Take ownership of the engine in `capsule`; its previous owner "
          "must have released it.")
      .def("_testing_release", &PyExecutionEngine::release,
           "Release the engine without destroying it (for testing).");
}

/// What the engine's functions are, and the symbols Python adds.
void defineSymbols(py::class_<PyExecutionEngine> &engine) {
  engine
      .def(
          "raw_lookup",
          [](PyExecutionEngine &self, const std::string &name) -> uintptr_t {
            checkNoNul(name, "symbol name");
            // Upstream's contract: 0 for a name the module does not define
            // (callers test `if not engine.raw_lookup(...)`).
            if (mlirExecutionEngineGetNumPackedArguments(self.get(),
                                                         toStringRef(name)) < 0)
              return 0;
            // A function that exists but cannot be linked is an error with a
            // reason, not "unknown".
            std::string error;
            void *fn = lookupOnCompileStack(self.get(), name, error);
            if (!fn && mlir::python::jit::raiseOpenMPThreadsError(self.get()))
              throw py::error_already_set();
            if (!fn)
              raise("cannot look up '" + name + "'", error);
            return reinterpret_cast<uintptr_t>(fn);
          },
          py::arg("func_name"),
          "Lookup function `func` in the ExecutionEngine; returns the address "
          "of its packed wrapper `void(void **)`, or 0 if the module defines "
          "no such function. Raises RuntimeError if the function exists but "
          "uses symbols that are neither defined nor registered.")
      .def(
          "_packed_arguments",
          [](PyExecutionEngine &self,
             const std::string &name) -> std::optional<py::list> {
            MlirStringRef ref = toStringRef(name);
            int64_t count =
                mlirExecutionEngineGetNumPackedArguments(self.get(), ref);
            if (count < 0)
              return std::nullopt;
            py::list pointers;
            for (int64_t i = 0; i < count; ++i) {
              bool isResult = false;
              int64_t size = mlirExecutionEngineGetPackedArgumentSize(
                  self.get(), ref, i, &isResult);
              pointers.append(py::make_tuple(size, isResult));
            }
            return pointers;
          },
          py::arg("func_name"),
          "The pointers the packed wrapper of `func_name` reads, arguments "
          "then the result, each as (size of its target in bytes, whether "
          "it is the result, which is written); None if there is no such "
          "function.")
      .def(
          "_declared_function_type",
          [](PyExecutionEngine &self,
             const std::string &name) -> std::optional<std::string> {
            std::string type;
            if (!mlirExecutionEngineGetDeclaredFunctionType(
                    self.get(), toStringRef(name), appendToString, &type))
              return std::nullopt;
            return type;
          },
          py::arg("name"),
          "The LLVM dialect function type of `name` (such as "
          "'!llvm.func<f32 (f32, i64)>') if the module declares it without "
          "defining it, else None.")
      .def(
          "raw_register_runtime",
          [](py::object self, const std::string &name, py::object callback) {
            checkNoNul(name, "symbol name");
            void *address = runtimeAddress(callback, name);
            std::string error;
            if (mlirLogicalResultIsFailure(
                    mlirExecutionEngineRegisterSymbolChecked(
                        self.cast<PyExecutionEngine &>().get(),
                        toStringRef(name), address, appendToString, &error)))
              raise("Failure while registering runtime '" + name + "'", error);
            self.cast<PyExecutionEngine &>().keepAlive(callback);
          },
          py::arg("name"), py::arg("callback"),
          "Register `callback` (a ctypes object whose `.value` is the "
          "function's address) as the symbol `name` in the jitted code. The "
          "engine keeps `callback` referenced for its whole lifetime. "
          "Register runtimes before the first lookup or invocation.");
}

/// Its global constructors, its object code and its cache entry.
void defineLifecycle(py::class_<PyExecutionEngine> &engine) {
  engine
      .def(
          "initialize",
          [](PyExecutionEngine &self) {
            std::string error;
            MlirLogicalResult result;
            runOnStack(compileStackOf(self.get()), "compile", [&] {
              result = mlirExecutionEngineInitializeChecked(
                  self.get(), appendToString, &error);
            });
            if (mlirLogicalResultIsFailure(result))
              raise("Failure while initializing the ExecutionEngine", error);
          },
          "Initialize the ExecutionEngine: run the module's global "
          "constructors, once. Register runtimes first.")
      .def(
          "dump_to_object_file",
          [](PyExecutionEngine &self, const std::string &fileName) {
            checkNoNul(fileName, "object file name");
            std::string error;
            MlirLogicalResult result;
            runOnStack(compileStackOf(self.get()), "compile", [&] {
              result = mlirExecutionEngineDumpToObjectFileChecked(
                  self.get(), toStringRef(fileName), appendToString, &error);
            });
            if (mlirLogicalResultIsFailure(result))
              raise("Failure while dumping the object file", error);
          },
          py::arg("file_name"), "Dump ExecutionEngine to an object file.")
      .def_property_readonly(
          "_cache_annotation",
          [](PyExecutionEngine &self) {
            std::string annotation;
            mlirExecutionEngineGetCacheAnnotation(self.get(), appendToString,
                                                  &annotation);
            return annotation;
          },
          "The caller's data stored with the cache entry (mlir.jit's "
          "analysis of the module).")
      .def(
          "_remove_cache_entry",
          [](PyExecutionEngine &self) {
            return mlirExecutionEngineRemoveCacheEntry(self.get());
          },
          "Removes the cache entry the engine was loaded from (its "
          "annotation is unusable); False if it was not loaded from one.");
}

} // namespace

PYBIND11_MODULE(_mlirExecutionEngine, m) {
  m.doc() = "MLIR JIT execution engine over the MLIR C API";
  registerUtf8SafeExceptions();
  // For jit()'s pipelines, and any pipeline text that names them.
  mlirRegisterJitPasses();

  py::class_<PyExecutionEngine> engine(m, "ExecutionEngine",
                                       py::custom_type_setup(traverseEngines));
  defineCreation(engine);
  defineSymbols(engine);
  defineLifecycle(engine);

  py::class_<PyCacheLoad>(m, "_CacheLoad",
                          "A load from the JIT cache on a thread of its own "
                          "(ExecutionEngine(None, _cache_load=...) takes it).");
  m.def(
      "_load_from_cache",
      [](const std::string &cacheDir, const std::string &cacheKey, int optLevel,
         std::vector<std::string> sharedLibs, bool enableGDBListener,
         bool enablePerfListener) {
        checkNoNul(cacheDir, "cache directory");
        for (const std::string &path : sharedLibs)
          checkNoNul(path, "shared library path");
        EngineOptions options;
        options.optLevel = optLevel;
        options.sharedLibs = std::move(sharedLibs);
        options.enableGDBListener = enableGDBListener;
        options.enablePerfListener = enablePerfListener;
        options.cacheDir = cacheDir;
        options.cacheKey = cacheKey;
        return new PyCacheLoad(std::move(options));
      },
      py::arg("cache_dir"), py::arg("cache_key"), py::arg("opt_level"),
      py::arg("shared_libs"), py::arg("enable_gdb_listener"),
      py::arg("enable_perf_listener"),
      "Starts loading the engine cached under `cache_key` on a thread of its "
      "own; ExecutionEngine(None, _cache_load=...) takes the result.");

  m.def("_is_accessible", &isAccessible, py::arg("address"), py::arg("size"),
        py::arg("writable"),
        "Whether `size` bytes at `address` are memory of this process that "
        "can be read, and written if `writable`, without touching them.");

  jit::populateJitCache(m);
  // The typed layer (mlir.jit): calls into and out of jitted code.
  if (_import_array() < 0)
    throw py::error_already_set();
  jit::populateJitFunctions(m);
  jit::populateJitIR(m);
  jit::populateJitCallbacks(m);
}
