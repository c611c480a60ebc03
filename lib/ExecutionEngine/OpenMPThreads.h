//===- OpenMPThreads.h - OMP_NUM_THREADS as LLVM's OpenMP runtime reads it ===//
//
// LLVM's OpenMP runtime (libomp.so.5) reads OMP_NUM_THREADS once, when it
// starts (at the first parallel region of the process, and again in a
// forked child, in fork()), and aborts the process (SIGABRT) on much of
// what it cannot read, or reads uninitialized memory as a thread count. The
// engine checks the variable against what the runtime takes before it lets
// the runtime read it, and keeps a value it cannot read from a forked
// child's runtime.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_EXECUTION_ENGINE_OPENMPTHREADS_H
#define MLIR_EXECUTION_ENGINE_OPENMPTHREADS_H

#include <string>

namespace mlir_execution_engine {

/// Whether LLVM's OpenMP runtime can read OMP_NUM_THREADS without aborting
/// the process (more threads than one a core: whether the process can start
/// them now), unless it has read it already in this process; with `read`,
/// the runtime then reads it (starts), so that a value set later is not
/// read. A forked child's runtime, which starts again in fork(), then reads
/// the value set since if it can, else the one it read (the variable is
/// that during fork(), and restored after). Returns false with `error`
/// saying why and what to do.
bool checkOpenMPThreads(bool read, std::string &error);

} // namespace mlir_execution_engine

#endif // MLIR_EXECUTION_ENGINE_OPENMPTHREADS_H
