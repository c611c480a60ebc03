# Type stubs for `_mlir.passmanager` (lib/Bindings/Python/Pass.cpp).

from .ir import Context, Module, Operation

class PassManager:
    def __init__(self, anchor_op: str = "any", context: Context | None = None) -> None: ...
    @staticmethod
    def parse(pipeline: str, context: Context | None = None) -> PassManager:
        """Raises ValueError if `pipeline` is not a valid textual pipeline;
        the message starts with MLIR's own."""

    def add(self, pipeline: str) -> None:
        """Raises ValueError if `pipeline` is not a valid textual pipeline."""

    def enable_verifier(self, enable: bool) -> None: ...
    def enable_ir_printing(
        self,
        print_before_all: bool = False,
        print_after_all: bool = True,
        print_module_scope: bool = False,
        print_after_change: bool = False,
        print_after_failure: bool = False,
        large_elements_limit: int | None = None,
        large_resource_limit: int | None = None,
        enable_debug_info: bool = False,
        print_generic_op_form: bool = False,
        tree_printing_dir_path: str | None = None,
    ) -> None:
        """Prints to stderr, or to files under `tree_printing_dir_path`.
        Raises ValueError for print_module_scope=True while the Context has
        multithreading enabled, or a directory it cannot create."""

    def run(self, operation: Operation | Module) -> None:
        """Runs on an Operation, or on anything with an `.operation` (a
        Module); raises MLIRError on failure."""

    def __str__(self) -> str: ...
    @property
    def _CAPIPtr(self) -> object: ...
    @staticmethod
    def _CAPICreate(capsule: object) -> PassManager: ...
    def _testing_release(self) -> None: ...
