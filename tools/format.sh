#!/usr/bin/env bash
# Formats the files git tracks: C/C++ under lib/, include/, test/ and bench/
# with clang-format (.clang-format), Python with ruff format (ruff.toml),
# BUILD, WORKSPACE and .bzl files with buildifier. Run it through Bazel, which
# passes the pinned tools:
#   ./bazelw run //tools:format             # rewrite in place
#   ./bazelw run //tools:format -- --check  # print the diff, fail on any
# Arguments: CLANG_FORMAT RUFF BUILDIFIER [--check]
set -euo pipefail

if [ $# -lt 3 ]; then
  echo "usage: format.sh CLANG_FORMAT RUFF BUILDIFIER [--check] (or ./bazelw run //tools:format [-- --check])" >&2
  exit 2
fi
# The tools' paths are relative to the runfiles directory Bazel runs this in.
clang_format=$(realpath "$1")
ruff=$(realpath "$2")
buildifier=$(realpath "$3")
shift 3
check=false
case "${1:-}" in
"") ;;
--check) check=true ;;
*)
  echo "format.sh: unknown argument $1; the only one is --check" >&2
  exit 2
  ;;
esac

cd "${BUILD_WORKSPACE_DIRECTORY:-.}"
git rev-parse --show-toplevel >/dev/null
cd "$(git rev-parse --show-toplevel)"

# Writes FILE, formatted, to stdout. (ruff's --stdin-filename only names the
# file it reads from stdin; nothing writes to it.)
# shellcheck disable=SC2094
format() { # FILE
  case "$1" in
  *.c | *.cpp | *.h) "$clang_format" --style=file --assume-filename="$1" <"$1" ;;
  *.py) "$ruff" format --quiet --config ruff.toml --stdin-filename "$1" - <"$1" ;;
  *) "$buildifier" --type=auto --path="$1" <"$1" ;;
  esac
}

changed=0
failed=0
formatted=$(mktemp)
trap 'rm -f "$formatted"' EXIT
while IFS= read -r file; do
  [ -f "$file" ] || continue # deleted in the work tree, not yet in git
  if ! format "$file" >"$formatted"; then
    echo "format.sh: cannot format $file" >&2
    failed=$((failed + 1))
    continue
  fi
  cmp -s "$file" "$formatted" && continue
  changed=$((changed + 1))
  if $check; then
    diff -u --label "a/$file" --label "b/$file" "$file" "$formatted" || true
  else
    cat "$formatted" >"$file"
    echo "formatted $file"
  fi
done < <(git ls-files -- \
  'lib/*.c' 'lib/*.cpp' 'lib/*.h' 'include/*.c' 'include/*.cpp' 'include/*.h' \
  'test/*.c' 'test/*.cpp' 'test/*.h' 'bench/*.c' 'bench/*.cpp' 'bench/*.h' \
  '*.py' 'BUILD' '*/BUILD' 'BUILD.bazel' '*/BUILD.bazel' '*.BUILD' 'WORKSPACE' '*/WORKSPACE' '*.bzl')

if [ "$failed" -ne 0 ]; then
  echo "format.sh: $failed file(s) could not be formatted" >&2
  exit 1
fi
if $check && [ "$changed" -ne 0 ]; then
  echo "format.sh: $changed file(s) are not formatted; run ./bazelw run //tools:format" >&2
  exit 1
fi
echo "format.sh: $changed file(s) $($check && echo "would change" || echo "formatted")"
