#!/usr/bin/env bash
# The self-contained wheel on plain systems with no LLVM: a Debian 12 root
# (bookworm, its python3 3.11: the cp311 wheel) and a Debian 13 root (trixie,
# python3 3.13: the cp313 wheel), each made by debootstrap with only python3
# and python3-venv. In a chroot with a clean environment, the wheel and the
# numpy and ml_dtypes it needs (@pip_wheel_test's newest, hash-pinned) are
# pip-installed into a venv from local files (--no-index: nothing is
# downloaded at test time) and scenario.py runs: the callback example, a typed
# memref call, a tensor kernel through FAST_PIPELINE and a warm start from the
# object cache; then test/python/client_runtime_libraries.py, a client of
# upstream's bindings using MLIR's runtime libraries from mlir/_mlir_libs,
# its output checked by FileCheck outside the root. Builds each wheel with ./bazelw and PYTHON_BIN_PATH (3.13 from
# pyenv or PATH); arguments are Bazel startup options (CI's output root).
# Needs root and debootstrap. Prints "wheel_machines: PASSED" or "FAILED".
#   bash test/wheel/machines.sh [--output_user_root=DIR]
set -euo pipefail

name=wheel_machines
repository=$(git -C "$(dirname "$0")/../.." rev-parse --show-toplevel)
# shellcheck source=test/debian_root.sh
source "$repository/test/debian_root.sh"
startup=("$@")

# A CPython X.Y to build the wheel with: python3 if it is X.Y, else pyenv's
# newest X.Y, else pythonX.Y on PATH.
python_for() { # X.Y
  local python
  for python in python3 "$(find /root/.pyenv/versions -maxdepth 3 -path "*/versions/$1.*/bin/python3" 2>/dev/null | sort -V | tail -n1)" "python$1"; do
    if [ -n "$python" ] && command -v "$python" >/dev/null &&
      [ "$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')" = "$1" ]; then
      command -v "$python"
      return
    fi
  done
  say "no CPython $1 to build its wheel with (pyenv's or python$1 on PATH)"
  return 1
}

# Builds //:wheel for CPython X.Y and copies it, and the numpy and ml_dtypes
# wheels for that version, to DIR. (Called where a failure is checked, so
# errexit is off: each step is checked here.)
build_wheels() { # X.Y DIR
  local python bazel_bin output_base
  python=$(python_for "$1") || return 1
  say "building the cp${1/./} wheel with $python"
  cd "$repository" || return 1
  # MLIR_EE_REMOTE_CACHE (.ci/run sets it): a Bazel HTTP cache to read from.
  PYTHON_BIN_PATH=$python ./bazelw "${startup[@]}" build \
    ${MLIR_EE_REMOTE_CACHE:+"--remote_cache=$MLIR_EE_REMOTE_CACHE" --noremote_upload_local_results} \
    //:wheel @pip_wheel_test//:newest >&2 &&
    bazel_bin=$(PYTHON_BIN_PATH=$python ./bazelw "${startup[@]}" info bazel-bin 2>/dev/null) &&
    output_base=$(PYTHON_BIN_PATH=$python ./bazelw "${startup[@]}" info output_base 2>/dev/null) &&
    cp "$bazel_bin"/wheel/*.whl "$output_base"/external/pip_wheel_test/newest/* "$2"
}

# Runs scenario.py with the wheel installed on a plain SUITE whose python3 is X.Y.
check_machine() { # SUITE X.Y
  local status=0
  # The wheels go into the root, which remove_root removes whatever happens.
  make_root "$1" --include=python3,python3-venv
  if [ -e "$root/usr/lib/llvm-22" ]; then
    say "$1's root has LLVM 22"
    status=1
  fi
  if [ "$status" -eq 0 ]; then
    mkdir -p "$root/root/wheels" &&
      build_wheels "$2" "$root/root/wheels" &&
      cp "$repository/test/wheel/scenario.py" "$repository/test/python/client_runtime_libraries.py" \
        "$root/root/wheels/" &&
      mount_in_root proc proc /proc &&
      mount_in_root bind /dev /dev || status=1
  fi
  if [ "$status" -eq 0 ]; then
    say "$1: pip install the wheel (offline) and run scenario.py"
    # shellcheck disable=SC2016 # expanded in the chroot
    env -i HOME=/root LANG=C.UTF-8 PATH=/usr/sbin:/usr/bin:/sbin:/bin chroot "$root" /bin/bash -c '
        set -e
        cd /root/wheels
        python3 -m venv /root/venv
        pip="/root/venv/bin/python -m pip --disable-pip-version-check --no-cache-dir install --quiet --no-index"
        $pip --find-links . --require-hashes -r requirements.txt
        $pip mlir_execution_engine-*.whl
        /root/venv/bin/python scenario.py /root/venv
        /root/venv/bin/python client_runtime_libraries.py >client.output
      ' >"$root.output" 2>&1 </dev/null || status=$?
    cat "$root.output" "$root/root/wheels/client.output"
    grep -qxF "wheel scenario: OK" "$root.output" || status=1
    "$(llvm-config-22 --bindir)/FileCheck" "$repository/test/python/client_runtime_libraries.py" \
      <"$root/root/wheels/client.output" || status=1
  fi
  remove_root
  if [ "$status" -ne 0 ]; then
    say "$1 (CPython $2): FAILED"
    return 1
  fi
  say "$1 (CPython $2): passed"
}

result=PASSED
# Debian 13 first: CI's wheel step ends with the output root configured for 3.13.
check_machine trixie 3.13 || result=FAILED
check_machine bookworm 3.11 || result=FAILED
echo "$name: $result"
[ "$result" = PASSED ]
