//===- IRTypes.cpp - Type and the builtin types ---------------------------===//
//
// `_mlir.ir.Type` and the builtin types a JIT signature needs, each returned
// as its most specific Python class.
//
//===----------------------------------------------------------------------===//

#include "IRModule.h"

#include "mlir-c/Bindings/Python/Interop.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

using namespace mlir::python;

namespace {

struct PyIntegerType : PyType {};
struct PyIndexType : PyType {};
struct PyF16Type : PyType {};
struct PyBF16Type : PyType {};
struct PyF32Type : PyType {};
struct PyF64Type : PyType {};
struct PyComplexType : PyType {};
struct PyMemRefType : PyType {};
struct PyUnrankedMemRefType : PyType {};
struct PyRankedTensorType : PyType {};
struct PyVectorType : PyType {};
struct PyFunctionType : PyType {};

/// An optional attribute argument: None is the null attribute.
MlirAttribute optionalAttribute(py::handle attribute) {
  return attribute.is_none() ? mlirAttributeGetNull()
                             : attribute.cast<PyAttribute &>().attribute;
}

/// Binds a concrete type class: `Cls(type)` casts (ValueError if `type` is
/// another kind), `Cls.isinstance(type)` tests.
template <typename T>
py::class_<T, PyType> bindTypeSubclass(py::module_ &m, const char *name,
                                       bool (*isA)(MlirType)) {
  py::class_<T, PyType> cls(m, name);
  cls.def(py::init([isA, name](const PyType &type) {
            if (!isA(type.type))
              throw py::value_error(
                  "cannot cast type to " + std::string(name) + " (from " +
                  printToString(mlirTypePrint, type.type) + ")");
            return T{type};
          }),
          py::arg("cast_from_type"))
      .def_static(
          "isinstance", [isA](const PyType &type) { return isA(type.type); },
          py::arg("other"));
  return cls;
}

void checkIntegerWidth(unsigned width) {
  constexpr unsigned kMaxWidth = (1u << 24) - 1; // IntegerType::kMaxWidth
  if (width > kMaxWidth)
    throw py::value_error("integer width " + std::to_string(width) +
                          " is larger than MLIR's maximum, " +
                          std::to_string(kMaxWidth));
}

/// A builtin type class with a `get(context=None)` factory.
template <typename T>
void bindSimpleType(py::module_ &m, const char *name, bool (*isA)(MlirType),
                    MlirType (*get)(MlirContext)) {
  bindTypeSubclass<T>(m, name, isA)
      .def_static(
          "get",
          [get](py::object context) {
            context = resolveContext(context);
            return T{PyType{get(contextOf(context)), context}};
          },
          py::arg("context") = py::none());
}

std::vector<int64_t> shapeOf(MlirType type) {
  std::vector<int64_t> shape;
  for (intptr_t i = 0, e = mlirShapedTypeGetRank(type); i < e; ++i)
    shape.push_back(mlirShapedTypeGetDimSize(type, i));
  return shape;
}

} // namespace

py::object mlir::python::wrapType(MlirType type, const py::object &context) {
  PyType base{type, context};
  if (mlirTypeIsAInteger(type))
    return py::cast(PyIntegerType{base});
  if (mlirTypeIsAIndex(type))
    return py::cast(PyIndexType{base});
  if (mlirTypeIsAF16(type))
    return py::cast(PyF16Type{base});
  if (mlirTypeIsABF16(type))
    return py::cast(PyBF16Type{base});
  if (mlirTypeIsAF32(type))
    return py::cast(PyF32Type{base});
  if (mlirTypeIsAF64(type))
    return py::cast(PyF64Type{base});
  if (mlirTypeIsAComplex(type))
    return py::cast(PyComplexType{base});
  if (mlirTypeIsAMemRef(type))
    return py::cast(PyMemRefType{base});
  if (mlirTypeIsAUnrankedMemRef(type))
    return py::cast(PyUnrankedMemRefType{base});
  if (mlirTypeIsARankedTensor(type))
    return py::cast(PyRankedTensorType{base});
  if (mlirTypeIsAVector(type))
    return py::cast(PyVectorType{base});
  if (mlirTypeIsAFunction(type))
    return py::cast(PyFunctionType{base});
  return py::cast(base);
}

namespace {

/// Type: parsing, comparison, printing, downcasting.
void bindType(py::module_ &m) {
  py::class_<PyType>(m, "Type")
      .def(py::init([](const PyType &type) { return type; }),
           py::arg("cast_from_type"))
      .def_static(
          "parse",
          [](const std::string &asm_, py::object context) {
            MlirType type =
                parseOrRaise(context, asm_, mlirTypeParseGet, mlirTypeIsNull,
                             "Unable to parse type: '" + asm_ + "'");
            return wrapType(type, context);
          },
          py::arg("asm"), py::arg("context") = py::none())
      .def_property_readonly("context",
                             [](PyType &self) { return self.context; })
      .def("__eq__",
           [](PyType &self, py::object other) {
             return py::isinstance<PyType>(other) &&
                    mlirTypeEqual(self.type, other.cast<PyType &>().type);
           })
      .def("__hash__",
           [](PyType &self) {
             return reinterpret_cast<intptr_t>(self.type.ptr);
           })
      .def("maybe_downcast",
           [](PyType &self) { return wrapType(self.type, self.context); })
      .def("__str__",
           [](PyType &self) { return printToString(mlirTypePrint, self.type); })
      .def("__repr__",
           [](py::object self) {
             return std::string(
                        py::str(py::type::handle_of(self).attr("__name__"))) +
                    "(" +
                    printToString(mlirTypePrint, self.cast<PyType &>().type) +
                    ")";
           })
      .def_property_readonly("_CAPIPtr", [](PyType &self) {
        return py::reinterpret_steal<py::object>(
            mlirPythonTypeToCapsule(self.type));
      });
}

/// IntegerType: signless, signed and unsigned.
void bindIntegerType(py::module_ &m) {
  bindTypeSubclass<PyIntegerType>(m, "IntegerType", mlirTypeIsAInteger)
      .def_static(
          "get_signless",
          [](unsigned width, py::object context) {
            checkIntegerWidth(width);
            context = resolveContext(context);
            return PyIntegerType{
                {mlirIntegerTypeGet(contextOf(context), width), context}};
          },
          py::arg("width"), py::arg("context") = py::none())
      .def_static(
          "get_signed",
          [](unsigned width, py::object context) {
            checkIntegerWidth(width);
            context = resolveContext(context);
            return PyIntegerType{
                {mlirIntegerTypeSignedGet(contextOf(context), width), context}};
          },
          py::arg("width"), py::arg("context") = py::none())
      .def_static(
          "get_unsigned",
          [](unsigned width, py::object context) {
            checkIntegerWidth(width);
            context = resolveContext(context);
            return PyIntegerType{
                {mlirIntegerTypeUnsignedGet(contextOf(context), width),
                 context}};
          },
          py::arg("width"), py::arg("context") = py::none())
      .def_property_readonly(
          "width",
          [](PyType &self) { return mlirIntegerTypeGetWidth(self.type); })
      .def_property_readonly(
          "is_signless",
          [](PyType &self) { return mlirIntegerTypeIsSignless(self.type); })
      .def_property_readonly(
          "is_signed",
          [](PyType &self) { return mlirIntegerTypeIsSigned(self.type); })
      .def_property_readonly("is_unsigned", [](PyType &self) {
        return mlirIntegerTypeIsUnsigned(self.type);
      });
}

/// ComplexType of an integer or float type.
void bindComplexType(py::module_ &m) {
  bindTypeSubclass<PyComplexType>(m, "ComplexType", mlirTypeIsAComplex)
      .def_static(
          "get",
          [](const PyType &elementType) {
            if (!mlirTypeIsAInteger(elementType.type) &&
                !mlirTypeIsAFloat(elementType.type))
              throw py::value_error(
                  "invalid element type for ComplexType: expected integer or "
                  "floating point, got " +
                  printToString(mlirTypePrint, elementType.type));
            return PyComplexType{
                {mlirComplexTypeGet(elementType.type), elementType.context}};
          },
          py::arg("element_type"))
      .def_property_readonly("element_type", [](PyType &self) {
        return wrapType(mlirComplexTypeGetElementType(self.type), self.context);
      });
}

/// MemRefType and UnrankedMemRefType, checked when made.
void bindMemRefTypes(py::module_ &m) {
  bindTypeSubclass<PyMemRefType>(m, "MemRefType", mlirTypeIsAMemRef)
      .def_static(
          "get",
          [](std::vector<int64_t> shape, const PyType &elementType,
             py::object layout, py::object memorySpace, py::object loc) {
            PyLocation location = resolveLocation(loc);
            MlirContext context = contextOf(elementType.context);
            requireSameContext(context,
                               mlirLocationGetContext(location.location),
                               "the location");
            for (py::handle attribute : {layout, memorySpace})
              if (!attribute.is_none())
                requireSameContext(
                    context,
                    mlirAttributeGetContext(
                        attribute.cast<PyAttribute &>().attribute),
                    "the layout or memory space");
            ErrorCapture errors(elementType.context);
            MlirType type = mlirMemRefTypeGetChecked(
                location.location, elementType.type, shape.size(), shape.data(),
                optionalAttribute(layout), optionalAttribute(memorySpace));
            if (mlirTypeIsNull(type))
              errors.raise("Invalid type");
            return PyMemRefType{{type, elementType.context}};
          },
          py::arg("shape"), py::arg("element_type"),
          py::arg("layout") = py::none(), py::arg("memory_space") = py::none(),
          py::arg("loc") = py::none())
      .def_property_readonly("element_type",
                             [](PyType &self) {
                               return wrapType(
                                   mlirShapedTypeGetElementType(self.type),
                                   self.context);
                             })
      .def_property_readonly(
          "rank", [](PyType &self) { return mlirShapedTypeGetRank(self.type); })
      .def_property_readonly("shape",
                             [](PyType &self) { return shapeOf(self.type); })
      .def_property_readonly(
          "has_static_shape",
          [](PyType &self) { return mlirShapedTypeHasStaticShape(self.type); })
      .def_static("get_dynamic_size", &mlirShapedTypeGetDynamicSize)
      .def_static("get_dynamic_stride_or_offset",
                  &mlirShapedTypeGetDynamicStrideOrOffset)
      .def("get_strides_and_offset",
           [](PyType &self) {
             std::vector<int64_t> strides(mlirShapedTypeGetRank(self.type));
             int64_t offset = 0;
             if (mlirLogicalResultIsFailure(mlirMemRefTypeGetStridesAndOffset(
                     self.type, strides.data(), &offset)))
               throw py::value_error("the layout of " +
                                     printToString(mlirTypePrint, self.type) +
                                     " is not strided");
             return py::make_tuple(strides, offset);
           })
      .def_property_readonly("layout", [](PyType &self) {
        return wrapAttribute(mlirMemRefTypeGetLayout(self.type), self.context);
      });

  bindTypeSubclass<PyUnrankedMemRefType>(m, "UnrankedMemRefType",
                                         mlirTypeIsAUnrankedMemRef)
      .def_static(
          "get",
          [](const PyType &elementType, py::object memorySpace,
             py::object loc) {
            PyLocation location = resolveLocation(loc);
            MlirContext context = contextOf(elementType.context);
            requireSameContext(context,
                               mlirLocationGetContext(location.location),
                               "the location");
            if (!memorySpace.is_none())
              requireSameContext(
                  context,
                  mlirAttributeGetContext(
                      memorySpace.cast<PyAttribute &>().attribute),
                  "the memory space");
            ErrorCapture errors(elementType.context);
            MlirType type = mlirUnrankedMemRefTypeGetChecked(
                location.location, elementType.type,
                optionalAttribute(memorySpace));
            if (mlirTypeIsNull(type))
              errors.raise("Invalid type");
            return PyUnrankedMemRefType{{type, elementType.context}};
          },
          py::arg("element_type"), py::arg("memory_space") = py::none(),
          py::arg("loc") = py::none())
      .def_property_readonly("element_type", [](PyType &self) {
        return wrapType(mlirShapedTypeGetElementType(self.type), self.context);
      });
}

/// RankedTensorType, checked when made.
void bindRankedTensorType(py::module_ &m) {
  bindTypeSubclass<PyRankedTensorType>(m, "RankedTensorType",
                                       mlirTypeIsARankedTensor)
      .def_static(
          "get",
          [](std::vector<int64_t> shape, const PyType &elementType,
             py::object encoding, py::object loc) {
            PyLocation location = resolveLocation(loc);
            MlirContext context = contextOf(elementType.context);
            requireSameContext(context,
                               mlirLocationGetContext(location.location),
                               "the location");
            if (!encoding.is_none())
              requireSameContext(context,
                                 mlirAttributeGetContext(
                                     encoding.cast<PyAttribute &>().attribute),
                                 "the encoding");
            ErrorCapture errors(elementType.context);
            MlirType type = mlirRankedTensorTypeGetChecked(
                location.location, shape.size(), shape.data(), elementType.type,
                optionalAttribute(encoding));
            if (mlirTypeIsNull(type))
              errors.raise("Invalid type");
            return PyRankedTensorType{{type, elementType.context}};
          },
          py::arg("shape"), py::arg("element_type"),
          py::arg("encoding") = py::none(), py::arg("loc") = py::none())
      .def_property_readonly("element_type",
                             [](PyType &self) {
                               return wrapType(
                                   mlirShapedTypeGetElementType(self.type),
                                   self.context);
                             })
      .def_property_readonly(
          "rank", [](PyType &self) { return mlirShapedTypeGetRank(self.type); })
      .def_property_readonly("shape",
                             [](PyType &self) { return shapeOf(self.type); });
}

/// VectorType (fixed-size), checked when made.
void bindVectorType(py::module_ &m) {
  bindTypeSubclass<PyVectorType>(m, "VectorType", mlirTypeIsAVector)
      .def_static(
          "get",
          [](std::vector<int64_t> shape, const PyType &elementType,
             py::object loc) {
            PyLocation location = resolveLocation(loc);
            requireSameContext(contextOf(elementType.context),
                               mlirLocationGetContext(location.location),
                               "the location");
            ErrorCapture errors(elementType.context);
            MlirType type =
                mlirVectorTypeGetChecked(location.location, shape.size(),
                                         shape.data(), elementType.type);
            if (mlirTypeIsNull(type))
              errors.raise("Invalid type");
            return PyVectorType{{type, elementType.context}};
          },
          py::arg("shape"), py::arg("element_type"),
          py::arg("loc") = py::none())
      .def_property_readonly("element_type",
                             [](PyType &self) {
                               return wrapType(
                                   mlirShapedTypeGetElementType(self.type),
                                   self.context);
                             })
      .def_property_readonly(
          "rank", [](PyType &self) { return mlirShapedTypeGetRank(self.type); })
      .def_property_readonly("shape",
                             [](PyType &self) { return shapeOf(self.type); })
      .def_property_readonly("scalable", [](PyType &self) {
        return mlirVectorTypeIsScalable(self.type);
      });
}

/// FunctionType: inputs and results.
void bindFunctionType(py::module_ &m) {
  bindTypeSubclass<PyFunctionType>(m, "FunctionType", mlirTypeIsAFunction)
      .def_static(
          "get",
          [](std::vector<PyType> inputs, std::vector<PyType> results,
             py::object context) {
            context = resolveContext(context);
            std::vector<MlirType> in, out;
            // Printed only for the error: printing is as deep as the type.
            auto check = [&](const PyType &t, const char *role) {
              if (!mlirContextEqual(contextOf(context),
                                    mlirTypeGetContext(t.type)))
                requireSameContext(contextOf(context),
                                   mlirTypeGetContext(t.type),
                                   role + printToString(mlirTypePrint, t.type));
            };
            for (PyType &t : inputs) {
              check(t, "input type ");
              in.push_back(t.type);
            }
            for (PyType &t : results) {
              check(t, "result type ");
              out.push_back(t.type);
            }
            return PyFunctionType{
                {mlirFunctionTypeGet(contextOf(context), in.size(), in.data(),
                                     out.size(), out.data()),
                 context}};
          },
          py::arg("inputs"), py::arg("results"),
          py::arg("context") = py::none())
      .def_property_readonly(
          "inputs",
          [](PyType &self) {
            py::list inputs;
            for (intptr_t i = 0, e = mlirFunctionTypeGetNumInputs(self.type);
                 i < e; ++i)
              inputs.append(wrapType(mlirFunctionTypeGetInput(self.type, i),
                                     self.context));
            return inputs;
          })
      .def_property_readonly("results", [](PyType &self) {
        py::list results;
        for (intptr_t i = 0, e = mlirFunctionTypeGetNumResults(self.type);
             i < e; ++i)
          results.append(
              wrapType(mlirFunctionTypeGetResult(self.type, i), self.context));
        return results;
      });
}

} // namespace

void mlir::python::populateIRTypes(py::module_ &m) {
  bindType(m);
  bindIntegerType(m);
  bindSimpleType<PyIndexType>(m, "IndexType", mlirTypeIsAIndex,
                              mlirIndexTypeGet);
  bindSimpleType<PyF16Type>(m, "F16Type", mlirTypeIsAF16, mlirF16TypeGet);
  bindSimpleType<PyBF16Type>(m, "BF16Type", mlirTypeIsABF16, mlirBF16TypeGet);
  bindSimpleType<PyF32Type>(m, "F32Type", mlirTypeIsAF32, mlirF32TypeGet);
  bindSimpleType<PyF64Type>(m, "F64Type", mlirTypeIsAF64, mlirF64TypeGet);
  bindComplexType(m);
  bindMemRefTypes(m);
  bindRankedTensorType(m);
  bindVectorType(m);
  bindFunctionType(m);
}
