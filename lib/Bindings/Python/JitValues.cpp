//===- JitValues.cpp - The value ABI of typed calls and callbacks ---------===//

#include "JitValues.h"
#include "PybindUtils.h"

#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/JitCallProperties.h"

#include <algorithm>
#include <string>
#include <vector>

namespace py = pybind11;

namespace mlir::python::jit {
namespace {

constexpr const char *kSupported =
    "i1, i8, i16, i32, i64, index, f16, bf16, f32, f64, complex<f32>, "
    "complex<f64>, memrefs (ranked or unranked) and ranked tensors of those "
    "(or of f8 types), and vectors of those but i1";

/// The kind of a scalar type, or false if it is not a supported scalar.
bool scalarKind(MlirType type, Kind &kind) {
  if (mlirTypeIsAInteger(type)) {
    if (!mlirIntegerTypeIsSignless(type))
      return false;
    switch (mlirIntegerTypeGetWidth(type)) {
    case 1:
      return kind = kI1, true;
    case 8:
      return kind = kI8, true;
    case 16:
      return kind = kI16, true;
    case 32:
      return kind = kI32, true;
    case 64:
      return kind = kI64, true;
    }
    return false;
  }
  if (mlirTypeIsAIndex(type))
    return kind = kIndex, true;
  if (mlirTypeIsAF16(type))
    return kind = kF16, true;
  if (mlirTypeIsABF16(type))
    return kind = kBF16, true;
  if (mlirTypeIsAF32(type))
    return kind = kF32, true;
  if (mlirTypeIsAF64(type))
    return kind = kF64, true;
  if (mlirTypeIsAComplex(type)) {
    MlirType element = mlirComplexTypeGetElementType(type);
    if (mlirTypeIsAF32(element))
      return kind = kComplex64, true;
    if (mlirTypeIsAF64(element))
      return kind = kComplex128, true;
  }
  return false;
}

/// The LLVM type of a vector element in memory, or null if vectors of it are
/// not supported (i1 vectors are packed as bits; complex ones do not exist).
const char *vectorElementType(MlirType element) {
  if (mlirTypeIsAIndex(element))
    return "i64";
  if (mlirTypeIsAInteger(element)) {
    switch (mlirIntegerTypeGetWidth(element)) {
    case 8:
      return "i8";
    case 16:
      return "i16";
    case 32:
      return "i32";
    case 64:
      return "i64";
    }
    return nullptr;
  }
  if (mlirTypeIsAF16(element))
    return "f16";
  if (mlirTypeIsABF16(element))
    return "bf16";
  if (mlirTypeIsAF32(element))
    return "f32";
  if (mlirTypeIsAF64(element))
    return "f64";
  if (mlirTypeIsAFloat(element) && mlirFloatTypeGetWidth(element) == 8)
    return "i8"; // f8 types are bytes to LLVM
  return nullptr;
}

/// The spec of a value of vector type `type`, which `describeValue` saw.
void describeVector(MlirType type, const std::string &text, ValueSpec &spec) {
  spec.kind = kVector;
  MlirType elementType = mlirShapedTypeGetElementType(type);
  const char *element = vectorElementType(elementType);
  if (mlirTypeIsAInteger(elementType) &&
      mlirIntegerTypeGetWidth(elementType) == 1)
    throw py::type_error(spec.label + ": type " + text +
                         " is not supported: LLVM packs vectors of i1 as "
                         "bits, which typed calls do not convert");
  if (mlirVectorTypeIsScalable(type))
    throw py::type_error(spec.label + ": type " + text +
                         " is not supported: a scalable vector's size is "
                         "known only when it runs");
  if (!element)
    throw py::type_error(spec.label + ": type " + text +
                         " is not supported; typed calls support " +
                         kSupported);
  intptr_t rank = mlirShapedTypeGetRank(type);
  for (intptr_t d = 0; d < rank; ++d)
    spec.shape.push_back(mlirShapedTypeGetDimSize(type, d));
  // LLVM pads a vector to a power of two bytes: only those have no padding
  // (and rank 0 is a scalar to LLVM).
  int64_t innerBytes = (rank ? spec.shape.back() : 0) << spec.elementShift;
  if (innerBytes == 0 || (innerBytes & (innerBytes - 1)) != 0)
    throw py::type_error(
        spec.label + ": type " + text +
        " is not supported: typed calls take vectors whose innermost "
        "dimension is a power of two bytes (LLVM pads the others)");
  spec.llvmType =
      "vector<" + std::to_string(spec.shape.back()) + "x" + element + ">";
  for (intptr_t d = rank - 2; d >= 0; --d)
    spec.llvmType = "!llvm.array<" + std::to_string(spec.shape[d]) + " x " +
                    spec.llvmType + ">";
}

ValueSpec describeValue(MlirType type, std::string label, py::handle dtype,
                        bool readOnly) {
  ValueSpec spec{kMemRef, std::move(label)};
  spec.readOnly = readOnly;
  if (scalarKind(type, spec.kind))
    return spec;
  std::string text = printToString(mlirTypePrint, type);
  bool vector = mlirTypeIsAVector(type);
  bool tensor = mlirTypeIsARankedTensor(type);
  spec.unranked = mlirTypeIsAUnrankedMemRef(type);
  if (!(mlirTypeIsAMemRef(type) || tensor || spec.unranked || vector) ||
      dtype.is_none())
    throw py::type_error(spec.label + ": type " + text +
                         " is not supported; typed calls support " +
                         kSupported);
  spec.dtype = py::reinterpret_borrow<py::object>(dtype);
  auto itemsize = spec.dtype.attr("itemsize").cast<int64_t>();
  while ((int64_t{1} << spec.elementShift) < itemsize)
    ++spec.elementShift;
  if ((int64_t{1} << spec.elementShift) != itemsize)
    throw py::type_error(spec.label + ": elements of " +
                         std::to_string(itemsize) +
                         " bytes are not supported (not a power of two)");
  if (vector)
    describeVector(type, text, spec);
  if (spec.unranked || vector)
    return spec;
  intptr_t rank = mlirShapedTypeGetRank(type);
  for (intptr_t d = 0; d < rank; ++d)
    spec.shape.push_back(mlirShapedTypeIsDynamicDim(type, d)
                             ? -1
                             : mlirShapedTypeGetDimSize(type, d));
  // A tensor is bufferized to a memref of any strides and offset
  // (jit()'s BUFFERIZATION_PIPELINE): any view of an array passes uncopied.
  spec.strides.assign(rank, kDynamic);
  spec.writableTensor = tensor && !readOnly;
  if (tensor)
    return spec;
  MlirAttribute layout = mlirMemRefTypeGetLayout(type);
  spec.contiguous = mlirAttributeIsAAffineMap(layout) &&
                    mlirAffineMapIsIdentity(mlirAffineMapAttrGetValue(layout));
  if (mlirLogicalResultIsFailure(mlirMemRefTypeGetStridesAndOffset(
          type, spec.strides.data(), &spec.offset)))
    throw py::type_error(spec.label + ": the layout of " + text +
                         " is not strided");
  for (int64_t &stride : spec.strides)
    if (mlirShapedTypeIsDynamicStrideOrOffset(stride))
      stride = kDynamic;
  if (mlirShapedTypeIsDynamicStrideOrOffset(spec.offset))
    spec.offset = kDynamic;
  // Static strides are checked one by one: only dynamic ones (outer
  // dimensions of dynamic size) need the contiguity check.
  spec.contiguous &=
      std::count(spec.strides.begin(), spec.strides.end(), kDynamic) > 0;
  return spec;
}

/// The attribute `name` of argument `i` of `function`, or null.
MlirAttribute argumentAttribute(MlirOperation function, intptr_t i,
                                const char *name) {
  MlirAttribute argAttrs = mlirOperationGetAttributeByName(
      function, mlirStringRefCreateFromCString("arg_attrs"));
  if (mlirAttributeIsNull(argAttrs) || !mlirAttributeIsAArray(argAttrs) ||
      i >= mlirArrayAttrGetNumElements(argAttrs))
    return MlirAttribute{nullptr};
  MlirAttribute attrs = mlirArrayAttrGetElement(argAttrs, i);
  if (!mlirAttributeIsADictionary(attrs))
    return MlirAttribute{nullptr};
  return mlirDictionaryAttrGetElementByName(
      attrs, mlirStringRefCreateFromCString(name));
}

/// Whether the function never writes argument `i`: declared
/// `llvm.readonly`, or a tensor (a value: bufferization copies it before
/// writing) unless declared `bufferization.writable = true`.
bool isReadOnly(MlirOperation function, intptr_t i, MlirType type,
                const std::string &label) {
  MlirAttribute writable =
      argumentAttribute(function, i, "bufferization.writable");
  bool written = !mlirAttributeIsNull(writable) &&
                 mlirAttributeIsABool(writable) &&
                 mlirBoolAttrGetValue(writable);
  if (!mlirAttributeIsNull(argumentAttribute(function, i, "llvm.readonly"))) {
    if (written) // read-only arrays would be written
      throw py::type_error(label +
                           ": declared both llvm.readonly and "
                           "bufferization.writable = true; declare one");
    return true;
  }
  return mlirTypeIsARankedTensor(type) && !written;
}

} // namespace

void markTensorArgumentsImmutable(MlirOperation function) {
  MlirAttribute typeAttr = mlirOperationGetAttributeByName(
      function, mlirStringRefCreateFromCString("function_type"));
  if (mlirAttributeIsNull(typeAttr) || !mlirAttributeIsAType(typeAttr) ||
      !mlirTypeIsAFunction(mlirTypeAttrGetValue(typeAttr)))
    throw py::type_error("not a func.func");
  MlirType functionType = mlirTypeAttrGetValue(typeAttr);
  MlirContext context = mlirOperationGetContext(function);
  MlirIdentifier writable = mlirIdentifierGet(
      context, mlirStringRefCreateFromCString("bufferization.writable"));
  MlirAttribute argAttrs = mlirOperationGetAttributeByName(
      function, mlirStringRefCreateFromCString("arg_attrs"));
  bool changed = false;
  std::vector<MlirAttribute> dictionaries;
  for (intptr_t i = 0; i < mlirFunctionTypeGetNumInputs(functionType); ++i) {
    std::vector<MlirNamedAttribute> entries;
    if (!mlirAttributeIsNull(argAttrs) && mlirAttributeIsAArray(argAttrs) &&
        i < mlirArrayAttrGetNumElements(argAttrs)) {
      MlirAttribute attrs = mlirArrayAttrGetElement(argAttrs, i);
      for (intptr_t e = 0; mlirAttributeIsADictionary(attrs) &&
                           e < mlirDictionaryAttrGetNumElements(attrs);
           ++e)
        entries.push_back(mlirDictionaryAttrGetElement(attrs, e));
    }
    if (mlirTypeIsARankedTensor(mlirFunctionTypeGetInput(functionType, i)) &&
        mlirAttributeIsNull(
            argumentAttribute(function, i, "bufferization.writable"))) {
      entries.push_back(
          mlirNamedAttributeGet(writable, mlirBoolAttrGet(context, 0)));
      changed = true;
    }
    dictionaries.push_back(
        mlirDictionaryAttrGet(context, entries.size(), entries.data()));
  }
  if (changed)
    mlirOperationSetAttributeByName(
        function, mlirStringRefCreateFromCString("arg_attrs"),
        mlirArrayAttrGet(context, dictionaries.size(), dictionaries.data()));
}

Signature describeSignature(MlirOperation function, const std::string &name,
                            py::sequence dtypes) {
  MlirAttribute typeAttr = mlirOperationGetAttributeByName(
      function, mlirStringRefCreateFromCString("function_type"));
  if (mlirAttributeIsNull(typeAttr) || !mlirAttributeIsAType(typeAttr) ||
      !mlirTypeIsAFunction(mlirTypeAttrGetValue(typeAttr)))
    throw py::type_error("'" + name + "' is not a func.func");
  MlirType functionType = mlirTypeAttrGetValue(typeAttr);
  Signature signature;
  signature.text = printToString(mlirTypePrint, functionType);
  intptr_t numArgs = mlirFunctionTypeGetNumInputs(functionType);
  intptr_t numResults = mlirFunctionTypeGetNumResults(functionType);
  if (static_cast<intptr_t>(py::len(dtypes)) != numArgs + numResults)
    throw py::value_error("describeSignature: one dtype a value expected");
  auto labelOf = [&](const char *what, intptr_t i, MlirType type) {
    return std::string(what) + " " + std::to_string(i) + " of '" + name +
           "' (" + printToString(mlirTypePrint, type) + ")";
  };
  for (intptr_t i = 0; i < numArgs; ++i) {
    MlirType type = mlirFunctionTypeGetInput(functionType, i);
    std::string label = labelOf("argument", i, type);
    bool readOnly = isReadOnly(function, i, type, label);
    signature.args.push_back(
        describeValue(type, std::move(label), dtypes[i], readOnly));
    signature.args.back().mayWrite =
        !readOnly &&
        (mlirTypeIsAMemRef(type) || mlirTypeIsAUnrankedMemRef(type)) &&
        mlirJitFunctionMayWriteArgument(function, i);
  }
  for (intptr_t i = 0; i < numResults; ++i) {
    MlirType type = mlirFunctionTypeGetResult(functionType, i);
    signature.results.push_back(describeValue(type, labelOf("result", i, type),
                                              dtypes[numArgs + i], false));
  }
  return signature;
}

size_t sizeOf(const ValueSpec &spec) {
  switch (spec.kind) {
  case kI1:
  case kI8:
    return 1;
  case kI16:
  case kF16:
  case kBF16:
    return 2;
  case kI32:
  case kF32:
    return 4;
  case kI64:
  case kIndex:
  case kF64:
  case kComplex64:
    return 8;
  case kComplex128:
    return 16;
  case kMemRef: // {allocated, aligned, offset, sizes[rank], strides[rank]}
    return spec.unranked ? 16 : 8 * (3 + 2 * spec.rank()); // or {rank, ptr}
  case kVector: {
    size_t count = 1;
    for (int64_t size : spec.shape)
      count *= size;
    return count << spec.elementShift;
  }
  }
  return 0;
}

size_t alignOf(const ValueSpec &spec) {
  switch (spec.kind) {
  case kComplex64:
    return 4;
  case kComplex128:
  case kMemRef:
    return 8;
  case kVector: // LLVM aligns a vector to its size (a power of two here)
    return static_cast<size_t>(spec.shape.back()) << spec.elementShift;
  default:
    return sizeOf(spec);
  }
}

std::string llvmTypeOf(const ValueSpec &spec) {
  switch (spec.kind) {
  case kI1:
    return "i1";
  case kI8:
    return "i8";
  case kI16:
    return "i16";
  case kI32:
    return "i32";
  case kI64:
  case kIndex:
    return "i64";
  case kF16:
    return "f16";
  case kBF16:
    return "bf16";
  case kF32:
    return "f32";
  case kF64:
    return "f64";
  case kComplex64:
    return "!llvm.struct<(f32, f32)>";
  case kComplex128:
    return "!llvm.struct<(f64, f64)>";
  case kMemRef: // a pointer to the descriptor
    return "!llvm.ptr";
  case kVector:
    return spec.llvmType;
  }
  return "";
}

std::string llvmStorageTypeOf(const ValueSpec &spec) {
  if (spec.kind != kMemRef)
    return llvmTypeOf(spec);
  if (spec.unranked)
    return "!llvm.struct<(i64, ptr)>";
  std::string array = "array<" + std::to_string(spec.rank()) + " x i64>";
  return spec.rank() == 0
             ? "!llvm.struct<(ptr, ptr, i64)>"
             : "!llvm.struct<(ptr, ptr, i64, " + array + ", " + array + ")>";
}

bool resultsByPointer(const std::vector<ValueSpec> &results) {
  return results.size() > 1 ||
         (results.size() == 1 &&
          (results[0].kind == kComplex64 || results[0].kind == kComplex128 ||
           results[0].kind == kMemRef));
}

std::vector<size_t> structLayout(const std::vector<ValueSpec> &fields,
                                 size_t &size) {
  std::vector<size_t> offsets;
  size = 0;
  size_t alignment = 1;
  for (const ValueSpec &field : fields) {
    size = alignTo(size, alignOf(field));
    offsets.push_back(size);
    size += sizeOf(field);
    alignment = std::max(alignment, alignOf(field));
  }
  size = alignTo(size, alignment);
  return offsets;
}

} // namespace mlir::python::jit
