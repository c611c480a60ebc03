//===- DeepStack.h - Running MLIR's recursive code on a large stack -------===//
//
// MLIR's parsers, printers, verifier, passes and translation recurse on how
// deeply their input nests. These run such work on a stack sized for it,
// whatever the input and whatever the calling thread's stack: inline when
// the calling thread has room to spare, else on a thread kept for it, else
// on a thread of its own whose stack is sized for the work, while the caller
// waits (holding the GIL: nothing Python runs meanwhile, and the work must
// not touch Python objects).
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_BINDINGS_PYTHON_DEEPSTACK_H
#define MLIR_BINDINGS_PYTHON_DEEPSTACK_H

#include <cstddef>
#include <cstdint>
#include <functional>

namespace mlir::python {

/// The stack that parsing `inputSize` bytes may need, however they nest
/// (angle brackets, affine expressions, unary minus signs, ...).
size_t stackForInput(size_t inputSize);

/// The stack that printing, verifying, transforming or translating IR of
/// nesting depth `depth` (mlirOperationGetNestingDepth and its type and
/// attribute forms) may need.
size_t stackForDepth(intptr_t depth, const char *what);

/// Runs `fn` on a stack of at least `needed` bytes. `what` names the work
/// in errors ("parse", "print"). Rethrows what `fn` throws; raises
/// MemoryError if no such stack can be had.
void runOnStack(size_t needed, const char *what,
                const std::function<void()> &fn);

} // namespace mlir::python

#endif // MLIR_BINDINGS_PYTHON_DEEPSTACK_H
