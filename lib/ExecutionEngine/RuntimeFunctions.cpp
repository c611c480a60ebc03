//===- RuntimeFunctions.cpp - Runtime functions the host may lack --------===//

#include "RuntimeFunctions.h"

#include "llvm/Support/DynamicLibrary.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>

namespace mlir_execution_engine {
namespace {

/// float/double -> bf16 with IEEE rounding (to nearest, ties to even), for
/// the compiler-runtime calls LLVM emits on CPUs without native bf16
/// conversion: gcc 12's libgcc lacks them, so without these a process built
/// with it cannot run bf16 code. The x86-64 ABI returns a bf16 in the low 16
/// bits of xmm0, as it returns a float: the bits travel inside a float.
float bf16InFloat(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  uint32_t bf16 = value != value ? 0x7fc0 // a quiet NaN
                                 : (bits + 0x7fff + ((bits >> 16) & 1)) >> 16;
  float carrier;
  std::memcpy(&carrier, &bf16, sizeof(carrier));
  return carrier;
}

float truncSFBF2(float value) { return bf16InFloat(value); }

float truncDFBF2(double value) {
  // Round once: first to a float rounded to odd (truncated, with a sticky
  // last bit if anything was lost), which keeps enough bits for the second
  // rounding to give the correctly rounded bf16.
  float nearest = static_cast<float>(value);
  if (static_cast<double>(nearest) != value && value == value) {
    uint32_t bits;
    std::memcpy(&bits, &nearest, sizeof(bits));
    if (std::fabs(static_cast<double>(nearest)) > std::fabs(value))
      bits -= 1;
    bits |= 1;
    std::memcpy(&nearest, &bits, sizeof(bits));
  }
  return bf16InFloat(nearest);
}

/// `value` rounded to a double by rounding to odd (truncated, with a sticky
/// last bit if anything was lost): rounding that again to fewer bits rounds
/// as once.
template <typename Wide> double doubleRoundedToOdd(Wide value) {
  double nearest = static_cast<double>(value);
  if (static_cast<Wide>(nearest) != value && value == value &&
      std::isfinite(nearest)) {
    uint64_t bits;
    std::memcpy(&bits, &nearest, sizeof(bits));
    if (std::fabs(nearest) > (value < 0 ? -value : value))
      bits -= 1;
    bits |= 1;
    std::memcpy(&nearest, &bits, sizeof(bits));
  }
  return nearest;
}

float truncXFBF2(long double value) {
  return truncDFBF2(doubleRoundedToOdd(value));
}

float truncTFBF2(__float128 value) {
  return truncDFBF2(doubleRoundedToOdd(value));
}

} // namespace

llvm::Error defineMissingRuntimeFunctions(OrcEngine &engine) {
  std::pair<const char *, void *> functions[] = {
      {"__truncsfbf2", reinterpret_cast<void *>(&truncSFBF2)},
      {"__truncdfbf2", reinterpret_cast<void *>(&truncDFBF2)},
      {"__truncxfbf2", reinterpret_cast<void *>(&truncXFBF2)},
      {"__trunctfbf2", reinterpret_cast<void *>(&truncTFBF2)},
  };
  for (auto [name, address] : functions)
    if (!llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(name))
      if (llvm::Error error = engine.define(name, address))
        return error;
  return llvm::Error::success();
}

} // namespace mlir_execution_engine
