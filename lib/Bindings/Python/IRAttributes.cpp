//===- IRAttributes.cpp - Attribute and the builtin attributes ------------===//
//
// `_mlir.ir.Attribute` and the builtin attributes a JIT user reads and sets,
// each returned as its most specific Python class.
//
//===----------------------------------------------------------------------===//

#include "IRModule.h"

#include "mlir-c/BuiltinAttributes.h"

using namespace mlir::python;

namespace {

struct PyTypeAttr : PyAttribute {};
struct PyStringAttr : PyAttribute {};
struct PyUnitAttr : PyAttribute {};

/// Binds a concrete attribute class: `Cls(attr)` casts (ValueError if `attr`
/// is another kind), `Cls.isinstance(attr)` tests.
template <typename T>
py::class_<T, PyAttribute> bindAttributeSubclass(py::module_ &m,
                                                 const char *name,
                                                 bool (*isA)(MlirAttribute)) {
  py::class_<T, PyAttribute> cls(m, name);
  cls.def(py::init([isA, name](const PyAttribute &attribute) {
            if (!isA(attribute.attribute))
              throw py::value_error(
                  "cannot cast attribute to " + std::string(name) + " (from " +
                  printToString(mlirAttributePrint, attribute.attribute) + ")");
            return T{attribute};
          }),
          py::arg("cast_from_attr"))
      .def_static(
          "isinstance",
          [isA](const PyAttribute &attribute) {
            return isA(attribute.attribute);
          },
          py::arg("other"));
  return cls;
}

} // namespace

py::object mlir::python::wrapAttribute(MlirAttribute attribute,
                                       const py::object &context) {
  PyAttribute base{attribute, context};
  if (mlirAttributeIsAType(attribute))
    return py::cast(PyTypeAttr{base});
  if (mlirAttributeIsAString(attribute))
    return py::cast(PyStringAttr{base});
  if (mlirAttributeIsAUnit(attribute))
    return py::cast(PyUnitAttr{base});
  return py::cast(base);
}

void mlir::python::populateIRAttributes(py::module_ &m) {
  py::class_<PyAttribute>(m, "Attribute")
      .def(py::init([](const PyAttribute &attribute) { return attribute; }),
           py::arg("cast_from_attr"))
      .def_static(
          "parse",
          [](const std::string &asm_, py::object context) {
            MlirAttribute attribute = parseOrRaise(
                context, asm_, mlirAttributeParseGet, mlirAttributeIsNull,
                "Unable to parse attribute: '" + asm_ + "'");
            return wrapAttribute(attribute, context);
          },
          py::arg("asm"), py::arg("context") = py::none())
      .def_property_readonly("context",
                             [](PyAttribute &self) { return self.context; })
      .def_property_readonly(
          "type",
          [](PyAttribute &self) {
            return wrapType(mlirAttributeGetType(self.attribute), self.context);
          })
      .def("__eq__",
           [](PyAttribute &self, py::object other) {
             return py::isinstance<PyAttribute>(other) &&
                    mlirAttributeEqual(self.attribute,
                                       other.cast<PyAttribute &>().attribute);
           })
      .def("__hash__",
           [](PyAttribute &self) {
             return reinterpret_cast<intptr_t>(self.attribute.ptr);
           })
      .def("__str__", [](PyAttribute &self) {
        return printToString(mlirAttributePrint, self.attribute);
      });

  bindAttributeSubclass<PyTypeAttr>(m, "TypeAttr", mlirAttributeIsAType)
      .def_static(
          "get",
          [](const PyType &type, py::object context) {
            // MLIR makes the attribute in the type's context: a context
            // given must be that one, or the attribute would name the wrong
            // owner.
            if (!context.is_none() &&
                !mlirContextEqual(contextOf(resolveContext(context)),
                                  mlirTypeGetContext(type.type)))
              throw py::value_error(
                  "the type " + printToString(mlirTypePrint, type.type) +
                  " belongs to another Context than the one given");
            return PyTypeAttr{{mlirTypeAttrGet(type.type), type.context}};
          },
          py::arg("value"), py::arg("context") = py::none())
      .def_property_readonly("value", [](PyAttribute &self) {
        return wrapType(mlirTypeAttrGetValue(self.attribute), self.context);
      });

  bindAttributeSubclass<PyStringAttr>(m, "StringAttr", mlirAttributeIsAString)
      .def_static(
          "get",
          [](const std::string &value, py::object context) {
            context = resolveContext(context);
            return PyStringAttr{
                {mlirStringAttrGet(contextOf(context), toStringRef(value)),
                 context}};
          },
          py::arg("value"), py::arg("context") = py::none())
      .def_property_readonly("value", [](PyAttribute &self) {
        MlirStringRef value = mlirStringAttrGetValue(self.attribute);
        return std::string(value.data, value.length);
      });

  bindAttributeSubclass<PyUnitAttr>(m, "UnitAttr", mlirAttributeIsAUnit)
      .def_static(
          "get",
          [](py::object context) {
            context = resolveContext(context);
            return PyUnitAttr{{mlirUnitAttrGet(contextOf(context)), context}};
          },
          py::arg("context") = py::none());
}
