#!/usr/bin/env bash
# Copies MLIR's runtime libraries into OUT_DIR under the names clients open
# (libmlir_c_runner_utils.so.22.1 -> libmlir_c_runner_utils.so), so that an
# `mlir` package carries them in mlir/_mlir_libs as upstream-style packages do:
# each one's soname is that name, its NEEDED entries name its neighbours by
# theirs (libmlir_*.so.<version> -> libmlir_*.so), and its RUNPATH is $ORIGIN
# (its neighbours) then the directories it searched where it was installed
# (LLVM's lib directory, for libLLVM and libMLIR), made absolute.
#   runtime_libraries.sh PATCHELF OUT_DIR [LIBRARY NAME]...
set -euo pipefail
patchelf=$1
out_dir=$2
shift 2
mkdir -p "$out_dir"
while [ "$#" -ge 2 ]; do
  real=$(readlink -f "$1")
  name=$2
  shift 2
  out="$out_dir/$name"
  cp "$real" "$out"
  chmod u+w "$out"
  "$patchelf" --set-soname "$name" "$out"
  for needed in $("$patchelf" --print-needed "$out"); do
    case "$needed" in
    libmlir_*.so.*) "$patchelf" --replace-needed "$needed" "${needed%%.so*}.so" "$out" ;;
    esac
  done
  # shellcheck disable=SC2016 # the loader's $ORIGIN, literally
  rpath='$ORIGIN'
  IFS=: read -ra entries <<<"$("$patchelf" --print-rpath "$real")"
  for entry in "${entries[@]}"; do
    [ -n "$entry" ] || continue
    entry=${entry//\$\{ORIGIN\}/\$ORIGIN}
    entry=${entry//\$ORIGIN/$(dirname "$real")}
    rpath="$rpath:$(realpath -m "$entry")"
  done
  "$patchelf" --set-rpath "$rpath" "$out"
done
