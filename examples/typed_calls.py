"""Typed calls: Python values and numpy arrays in, a Python callback out."""

import numpy as np
import numpy.typing as npt

from mlir.execution_engine import jit

SOURCE = """
func.func @scale(%x: memref<?xf32>, %s: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    %w = arith.mulf %v, %s : f32
    memref.store %w, %x[%i] : memref<?xf32>
  }
  %total = func.call @report(%n, %x) : (index, memref<?xf32>) -> f32
  return %total : f32
}
func.func private @report(index, memref<?xf32>) -> f32
"""


def main() -> None:
    module = jit(SOURCE)

    @module.callback("report")
    def report(count: int, values: npt.NDArray[np.float32]) -> float:
        # `values` views the caller's array; it is valid during the call.
        print(f"report: {count} values, first {values[:3]}")
        return float(values.sum())

    data = np.arange(16, dtype=np.float32)
    total = module.scale(data, 2.0)
    print(f"scale(arange(16), 2.0) -> total {total}, data[:4] = {data[:4]}")


if __name__ == "__main__":
    main()
