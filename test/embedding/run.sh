#!/usr/bin/env bash
# Builds and tests test/embedding, a workspace that embeds this component as an
# external repository, with the main repository's bazelw, in a Bazel output
# root of its own that is removed at the end. Prints Bazel's output and exits
# with its status.
set -uo pipefail
cd "$(dirname "$0")" || exit 1

output_root=$(mktemp -d /tmp/mlir_execution_engine_embedding.XXXXXX)
cleanup() {
  bazel --output_user_root="$output_root" shutdown >/dev/null 2>&1 || true
  chmod -R u+w "$output_root" 2>/dev/null
  rm -rf "$output_root"
}
trap cleanup EXIT

# The embedding's own tests, and the component's tests run as an external
# repository (they catch labels that only resolve in the main workspace).
# --symlink_prefix=/: no bazel-* links into the output root we remove.
../../bazelw --output_user_root="$output_root" test --symlink_prefix=/ \
  //... @mlir_execution_engine//test/... 2>&1
status=$?
echo "embedding: $([ "$status" -eq 0 ] && echo PASSED || echo FAILED)"
exit "$status"
