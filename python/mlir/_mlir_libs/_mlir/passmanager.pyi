# Type stubs for `_mlir.passmanager` (lib/Bindings/Python/MainModule.cpp,
# bindPassManager).

from .ir import Context, Module, Operation

class PassManager:
    def __init__(self, anchor_op: str = "any", context: Context | None = None) -> None: ...
    @staticmethod
    def parse(pipeline: str, context: Context | None = None) -> PassManager:
        """Raises ValueError if `pipeline` is not a valid textual pipeline."""

    def add(self, pipeline: str) -> None:
        """Raises ValueError if `pipeline` is not a valid textual pipeline."""

    def enable_verifier(self, enable: bool) -> None: ...
    def run(self, operation: Operation | Module) -> None:
        """Runs on an Operation, or on anything with an `.operation` (a
        Module); raises MLIRError on failure."""

    def __str__(self) -> str: ...
    @property
    def _CAPIPtr(self) -> object: ...
