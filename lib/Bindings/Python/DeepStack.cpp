//===- DeepStack.cpp - Running MLIR's recursive code on a large stack -----===//

#include "DeepStack.h"

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <exception>
#include <mutex>
#include <pthread.h>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

#include <Python.h>
#include <pybind11/pybind11.h>

namespace py = pybind11;

namespace {

/// The most stack MLIR's parsers were measured to use per byte of input is
/// about 1150 bytes (a chain of unary minus signs in an affine expression;
/// brackets in an affine expression take 630, a dictionary attribute 230, a
/// region 150, `tuple<` 42). Allowing 4096 keeps a margin of 3.5 over that.
constexpr size_t kStackPerInputByte = 4096;
/// For printing, verifying, transforming, translating or destroying, per
/// level of nesting (mlirOperationGetNestingDepth). Not measured on its own:
/// the parser's allowance per input byte, as every level of text takes at
/// least a byte to write (the 200,000-deep tests pass with it).
constexpr size_t kStackPerLevel = kStackPerInputByte;
/// For what the work uses whatever the input: the C API's entry, the
/// verifier, diagnostics.
constexpr size_t kStackBase = size_t(1) << 20;
constexpr size_t kMinThreadStack = size_t(8) << 20;

/// The lowest address of the calling thread's stack, or 0 if unknown.
uintptr_t stackLowEnd() {
  thread_local uintptr_t low = [] {
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
      return uintptr_t(0);
    void *address = nullptr;
    size_t size = 0;
    int error = pthread_attr_getstack(&attr, &address, &size);
    pthread_attr_destroy(&attr);
    // A guard page or two below: stay one page clear of them.
    return error ? uintptr_t(0)
                 : reinterpret_cast<uintptr_t>(address) + 2 * 4096;
  }();
  return low;
}

/// Bytes of stack left below the caller's frame.
size_t stackLeft() {
  uintptr_t low = stackLowEnd();
  auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  return low && here > low ? here - low : 0;
}

[[noreturn]] void raiseMemoryError(const std::string &message) {
  PyErr_SetString(PyExc_MemoryError, message.c_str());
  throw py::error_already_set();
}

/// Starts `entry(arg)` on a new thread whose stack is `size` bytes (rounded
/// up to pages), reserved but not committed, with a guard page below it.
/// Returns 0 or an errno value; `memory`/`mapped` get the mapping to unmap
/// after joining.
int startThread(size_t size, void *(*entry)(void *), void *arg, pthread_t &id,
                void *&memory, size_t &mapped) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size = (std::max(size, kMinThreadStack) + page - 1) / page * page;
  mapped = size + page;
  // Only the pages the parser touches cost memory.
  memory = mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (memory == MAP_FAILED)
    return errno;
  // Guard page: an overflow faults instead of writing into other memory.
  mprotect(memory, page, PROT_NONE);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstack(&attr, static_cast<char *>(memory) + page, size);
  int error = pthread_create(&id, &attr, entry, arg);
  pthread_attr_destroy(&attr);
  if (error)
    munmap(memory, mapped);
  return error;
}

struct StackThread {
  const std::function<void()> *fn;
  std::exception_ptr error;
};

void *runStackThread(void *arg) {
  auto *thread = static_cast<StackThread *>(arg);
  try {
    (*thread->fn)();
  } catch (...) {
    thread->error = std::current_exception();
  }
  return nullptr;
}

/// One thread kept for work needing up to kStack bytes of stack, so that it
/// pays neither for a new thread nor for MLIR's thread-local caches starting
/// cold each time (together ~100 us, measured). Its stack is
/// reserved, not committed: what stays resident is what the deepest work
/// touched, at most kStack.
class StackWorker {
public:
  static constexpr size_t kStack = size_t(128) << 20;

  /// The worker, started on first use; null if it cannot be started.
  static StackWorker *get() {
    static bool registered = [] {
      // A forked child has no worker thread: it starts its own.
      pthread_atfork(nullptr, nullptr, [] { instance = nullptr; });
      return true;
    }();
    (void)registered;
    if (!instance) {
      auto *worker = new StackWorker();
      pthread_t id;
      void *memory;
      size_t mapped;
      if (startThread(kStack, loop, worker, id, memory, mapped) != 0) {
        delete worker;
        return nullptr;
      }
      pthread_detach(id);
      instance = worker; // runs as long as the process
    }
    return instance;
  }

  void run(const std::function<void()> &fn) {
    std::lock_guard<std::mutex> one(submit);
    std::unique_lock<std::mutex> lock(mutex);
    job = &fn;
    error = nullptr;
    ready.notify_all();
    ready.wait(lock, [&] { return job == nullptr; });
    if (error)
      std::rethrow_exception(error);
  }

private:
  static void *loop(void *arg) {
    auto *self = static_cast<StackWorker *>(arg);
    std::unique_lock<std::mutex> lock(self->mutex);
    for (;;) {
      self->ready.wait(lock, [&] { return self->job != nullptr; });
      try {
        (*self->job)();
      } catch (...) {
        self->error = std::current_exception();
      }
      self->job = nullptr;
      self->ready.notify_all();
    }
    return nullptr;
  }

  static inline StackWorker *instance = nullptr;
  std::mutex submit; // one job at a time
  std::mutex mutex;
  std::condition_variable ready;
  const std::function<void()> *job = nullptr;
  std::exception_ptr error;
};

} // namespace

size_t mlir::python::stackForInput(size_t inputSize) {
  if (inputSize > (SIZE_MAX - kStackBase) / kStackPerInputByte / 2)
    raiseMemoryError("the input is too large to parse: " +
                     std::to_string(inputSize) + " bytes");
  return kStackBase + inputSize * kStackPerInputByte;
}

size_t mlir::python::stackForDepth(intptr_t depth, const char *what) {
  size_t levels = depth < 0 ? 0 : static_cast<size_t>(depth);
  if (levels > (SIZE_MAX - kStackBase) / kStackPerLevel / 2)
    raiseMemoryError(std::string("the IR nests too deeply to ") + what + ": " +
                     std::to_string(levels) + " levels");
  return kStackBase + levels * kStackPerLevel;
}

void mlir::python::runOnStack(size_t needed, const char *what,
                              const std::function<void()> &fn) {
  if (needed <= stackLeft()) {
    fn(); // room to spare
    return;
  }
  if (needed <= StackWorker::kStack)
    if (StackWorker *worker = StackWorker::get()) {
      worker->run(fn);
      return;
    }
  // Deeper still: a thread of its own, sized for the work.
  StackThread thread{&fn, nullptr};
  pthread_t id;
  void *memory;
  size_t mapped;
  int error = startThread(needed, runStackThread, &thread, id, memory, mapped);
  if (error == ENOMEM || (error && memory == MAP_FAILED))
    raiseMemoryError("cannot reserve a stack of " +
                     std::to_string(needed >> 20) + " MB to " + what + ": " +
                     std::strerror(error));
  if (error)
    raiseMemoryError(std::string("cannot start a thread to ") + what +
                     " on: " + std::strerror(error));
  pthread_join(id, nullptr);
  munmap(memory, mapped);
  if (thread.error)
    std::rethrow_exception(thread.error);
}
