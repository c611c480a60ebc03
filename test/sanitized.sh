#!/usr/bin/env bash
# Runs a command with the sanitizer runtimes preloaded: `--config=asan` runs
# every test and `bazel run` target under it (see .bazelrc).
#   sanitized.sh PROGRAM [ARGS...]
# Programs linked with -fsanitize load the runtimes themselves, but an
# uninstrumented program that loads instrumented libraries, such as the Python
# interpreter importing the extension modules, needs them preloaded, ASan's
# first. They are the runtimes of the compiler that built the code:
# `$CC -print-file-name=...`, CC defaulting to gcc.
set -euo pipefail

compiler=${CC:-gcc}
preload=
for runtime in libasan.so libubsan.so; do
  path=$("$compiler" -print-file-name="$runtime")
  if [[ $path != /* || ! -e $path ]]; then
    echo "sanitized.sh: \`$compiler -print-file-name=$runtime\` finds no runtime" >&2
    exit 1
  fi
  preload+=${preload:+:}$(readlink -f "$path")
done
export LD_PRELOAD=$preload${LD_PRELOAD:+:$LD_PRELOAD}

# Options given in the environment (--test_env=ASAN_OPTIONS=...) come last,
# so they win. No leak checking: shells, pip and CPython leak at exit;
# --config=lsan turns it on in lit tests (test/lit.cfg.py). Allocations too
# large return null, as glibc's do: tests check that jitted code's failed
# allocations raise MemoryError.
export ASAN_OPTIONS=detect_leaks=0:check_initialization_order=1:strict_init_order=1:quarantine_size_mb=16:allocator_may_return_null=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}
# Python objects as malloc blocks, which ASan checks and LeakSanitizer scans
# (they do not see into pymalloc's arenas).
export PYTHONMALLOC=malloc
# For tests that check leaks or behave differently when sanitized.
export MLIR_SANITIZERS=address,undefined

exec "$@"
