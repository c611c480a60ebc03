#!/usr/bin/env bash
# bench/peers.py (or the broad benchmark, bench/kernels.py, with its
# arguments) in a venv of its own: the hash-pinned JAX and PyTorch (CPU)
# of bench/requirements_peers.txt, and this package's self-contained wheel
# (./bazelw build //:wheel, for the python3 on PATH). Not part of the
# tests: pip fetches JAX and PyTorch the first time (PyTorch's CPU build:
# the machines' pip configuration finds it; a plain torch is several GB).
#   bench/peers.sh        # figures in bench/README.md
#   bench/peers.sh kernels.py --family attention
set -euo pipefail
repository=$(cd "$(dirname "$0")/.." && pwd)
cd "$repository"
./bazelw build //:wheel
work=$(mktemp -d "${TMPDIR:-/tmp}/peers.XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
pip=("$work/venv/bin/python" -m pip --disable-pip-version-check install --quiet)
"${pip[@]}" --require-hashes -r bench/requirements_peers.txt
"${pip[@]}" --no-deps bazel-bin/wheel/*.whl
script=${1:-peers.py}
shift || true
"$work/venv/bin/python" "bench/$script" "$@"
