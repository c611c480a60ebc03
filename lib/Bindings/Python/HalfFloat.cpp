//===- HalfFloat.cpp - f16 and bf16 bit conversions -----------------------===//

#include "HalfFloat.h"

#include <cmath>
#include <cstring>

namespace mlir::python::jit {
namespace {

uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

float floatOf(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

/// `value` rounded to float with round-to-odd: an inexact result keeps its
/// lowest mantissa bit set. Rounding that float once more, to a format at
/// least two bits narrower (f16, bf16), gives the correctly rounded result of
/// `value`: going through float never rounds twice.
float toFloatRoundToOdd(double value) {
  float rounded = static_cast<float>(value);
  if (std::isnan(value) || static_cast<double>(rounded) == value)
    return rounded;
  if (std::fabs(static_cast<double>(rounded)) > std::fabs(value))
    rounded = std::nextafter(rounded, 0.0f); // truncate toward zero
  return floatOf(bitsOf(rounded) | 1);
}

uint16_t floatToHalf(float value) {
  uint32_t bits = bitsOf(value);
  uint32_t sign = (bits >> 16) & 0x8000;
  uint32_t exponent = (bits >> 23) & 0xff;
  uint32_t mantissa = bits & 0x7fffff;
  if (exponent == 0xff) // inf, or nan: keep the payload's top bits, quiet
    return sign | 0x7c00 | (mantissa ? 0x200 | (mantissa >> 13) : 0);
  int32_t halfExponent = static_cast<int32_t>(exponent) - 127 + 15;
  if (halfExponent >= 31)
    return sign | 0x7c00;
  uint32_t shift, half;
  if (halfExponent <= 0) { // subnormal or zero
    if (halfExponent < -10)
      return sign;
    mantissa |= 0x800000;
    shift = 14 - halfExponent;
    half = mantissa >> shift;
  } else {
    shift = 13;
    half = (static_cast<uint32_t>(halfExponent) << 10) | (mantissa >> 13);
  }
  // Round to nearest, ties to even; a carry correctly bumps the exponent.
  uint32_t rest = mantissa & ((1u << shift) - 1), middle = 1u << (shift - 1);
  if (rest > middle || (rest == middle && (half & 1)))
    ++half;
  return sign | half;
}

uint16_t floatToBF16(float value) {
  uint32_t bits = bitsOf(value);
  if ((bits & 0x7fffffff) > 0x7f800000) // nan: keep it a quiet nan
    return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fff + ((bits >> 16) & 1); // round to nearest, ties to even
  return static_cast<uint16_t>(bits >> 16);
}

} // namespace

uint16_t doubleToHalf(double value) {
  return floatToHalf(toFloatRoundToOdd(value));
}

uint16_t doubleToBF16(double value) {
  return floatToBF16(toFloatRoundToOdd(value));
}

float halfToFloat(uint16_t half) {
  uint32_t sign = (half & 0x8000u) << 16;
  uint32_t exponent = (half >> 10) & 0x1f;
  uint32_t mantissa = half & 0x3ff;
  if (exponent == 0 && mantissa == 0)
    return floatOf(sign);
  if (exponent == 0) { // subnormal: normalize
    exponent = 127 - 15 + 1;
    while (!(mantissa & 0x400)) {
      mantissa <<= 1;
      --exponent;
    }
    return floatOf(sign | (exponent << 23) | ((mantissa & 0x3ff) << 13));
  }
  if (exponent == 31)
    return floatOf(sign | 0x7f800000 | (mantissa << 13));
  return floatOf(sign | ((exponent + 127 - 15) << 23) | (mantissa << 13));
}

float bf16ToFloat(uint16_t bits) {
  return floatOf(static_cast<uint32_t>(bits) << 16);
}

} // namespace mlir::python::jit
