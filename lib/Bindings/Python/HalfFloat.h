//===- HalfFloat.h - f16 and bf16 bit conversions -------------------------===//
//
// C++17 has no 16-bit float types: these convert between double and the bit
// patterns of IEEE half (f16) and bfloat16, rounding once to nearest even as
// `arith.truncf` and numpy do.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_BINDINGS_PYTHON_HALFFLOAT_H
#define MLIR_BINDINGS_PYTHON_HALFFLOAT_H

#include <cstdint>

namespace mlir::python::jit {

uint16_t doubleToHalf(double value);
uint16_t doubleToBF16(double value);
float halfToFloat(uint16_t half);
float bf16ToFloat(uint16_t bits);

} // namespace mlir::python::jit

#endif // MLIR_BINDINGS_PYTHON_HALFFLOAT_H
