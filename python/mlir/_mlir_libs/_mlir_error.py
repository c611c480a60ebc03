"""MLIRError, which the `_mlir` extension module raises and exports as
`mlir.ir.MLIRError` (it imports this module while it initializes, so this
module must not import `_mlir`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._mlir.ir import DiagnosticInfo


class MLIRError(Exception):
    """An MLIR failure, with the error diagnostics that explain it."""

    def __init__(self, message: str, error_diagnostics: list[DiagnosticInfo]) -> None:
        super().__init__(message, error_diagnostics)
        self.message = message
        self.error_diagnostics = error_diagnostics

    def __str__(self) -> str:
        def describe(diagnostic: DiagnosticInfo) -> str:
            # As upstream: `"file":1:2`, not `loc("file":1:2)`; continuation
            # lines indented.
            location = str(diagnostic.location)
            if location.startswith("loc(") and location.endswith(")"):
                location = location[4:-1]
            return location + ": " + diagnostic.message.replace("\n", "\n  ")

        text = self.message
        if self.error_diagnostics:
            text += ":"
        for diagnostic in self.error_diagnostics:
            text += "\nerror: " + describe(diagnostic)
            for note in diagnostic.notes:
                text += "\n note: " + describe(note)
        return text
