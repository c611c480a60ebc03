# Type stubs for the `_mlir` extension module (lib/Bindings/Python/MainModule.cpp).
# It has no attributes of its own besides its two submodules.

from . import ir as ir
from . import passmanager as passmanager
