#!/usr/bin/env bash
# The remote cache, end to end: starts Debian's nginx as a Bazel HTTP cache on
# 127.0.0.1 (test/remote_cache/serve.sh), builds and tests //test/... from one
# clone in one output root with --config=remote_cache_writer, then again from
# a second clone at another path in a second, fresh output root with
# --config=remote_cache. Passes only if every cacheable action of the second
# build was a remote cache hit, by Bazel's own summary; lists any that missed,
# with its mnemonic. Stops nginx and removes everything whatever happens.
# Prints "remote_cache: PASSED" or "FAILED".
#   bash test/remote_cache/run.sh
# With MLIR_EE_REMOTE_CACHE set to the URL of a cache that a build of this
# commit's //test/... wrote with --config=remote_cache_writer (CI's main
# step, from another clone and output root), only the second build runs,
# against that cache.
set -euo pipefail

say() { echo "remote_cache: $*" >&2; }
trap 'say "failed (exit $?) at line $LINENO: $BASH_COMMAND"' ERR
repository=$(git -C "$(dirname "$0")/../.." rev-parse --show-toplevel)

# nginx's workers run as www-data: they must reach the cache root, so the
# directories above it are searchable by all.
work=$(realpath "$(mktemp -d /var/tmp/remote_cache.XXXXXX)")
chmod 755 "$work"
# Stops the Bazel server of a clone and removes its output root.
remove_output_root() { # CLONE
  [ -d "$work/output_$1" ] || return 0
  # From the clone: the output base is per workspace.
  (cd "$work/$1" && bazel --output_user_root="$work/output_$1" shutdown) >/dev/null 2>&1 || true
  chmod -R u+w "$work/output_$1" 2>/dev/null || true
  rm -rf "$work/output_$1"
}
cleanup() {
  [ ! -s "$work/server/state/nginx.pid" ] || kill "$(cat "$work/server/state/nginx.pid")" 2>/dev/null || true
  remove_output_root first
  remove_output_root second
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

url=${MLIR_EE_REMOTE_CACHE:-}
[ -n "$url" ] || url=$(bash "$repository/test/remote_cache/serve.sh" "$work/server")

# Builds and tests //test/... in the clone at $work/CLONE with output root
# $work/output_CLONE, with the URL in the clone's user.bazelrc as
# docs/build_caches.md says, and the given config. Bazel's output goes to
# $work/CLONE.log.
build() { # CLONE CONFIG
  echo "build:remote_cache --remote_cache=$url" >"$work/$1/user.bazelrc"
  # In the background, so that a signal reaches cleanup at once.
  : >"$work/$1.log"
  # java.io.tmpdir: Bazel's temporary copy of the execution log (100 MB)
  # stays under $work, which cleanup removes, even if the server is killed.
  mkdir -p "$work/tmp_$1"
  (cd "$work/$1" && exec ./bazelw --output_user_root="$work/output_$1" \
    --host_jvm_args="-Djava.io.tmpdir=$work/tmp_$1" test --config="$2" \
    --execution_log_json_file="$work/$1.exec.json" //test/...) >"$work/$1.log" 2>&1 </dev/null &
  local pid=$!
  tail -f --pid="$pid" "$work/$1.log" &
  local status=0
  wait "$pid" || status=$?
  wait
  [ "$status" -eq 0 ] || { say "bazel test in the $1 clone failed"; exit 1; }
}

# Bazel's summary, e.g. "INFO: 120 processes: 95 remote cache hit, 25 internal."
summary() { grep -E '^INFO: [0-9]+ processes?' "$work/$1.log" | tail -n1; }

if [ -z "${MLIR_EE_REMOTE_CACHE:-}" ]; then
  say "first build, uploading"
  git clone --quiet "$repository" "$work/first"
  build first remote_cache_writer
  log=$work/server/state/access.log
  uploads=$(grep -c '^PUT .* 20[14]$' "$log" || true)
  failed_uploads=$(grep -c '^PUT .* [45][0-9][0-9]$' "$log" || true)
  say "first build: $(summary first); $uploads uploads, $failed_uploads failed"
  if [ "$uploads" -le 1 ] || [ "$failed_uploads" -ne 0 ]; then
    say "uploads did not reach the cache; nginx's error log:"
    tail -n 20 "$work/server/state/error.log" >&2
    exit 1
  fi
  # Everything the second build may reuse is in the cache now: the first
  # output root goes, which halves this test's peak disk use.
  remove_output_root first
fi

say "second build, another clone and output root"
git clone --quiet "$repository" "$work/second"
build second remote_cache
line=$(summary second)
say "second build: $line"
# Everything but remote cache hits and Bazel's internal actions ran here.
executed=$(sed -E 's/^INFO: [0-9]+ processes?: //; s/\.$//' <<<"$line" | tr ',' '\n' |
  grep -vE '^ *[0-9]+ (remote cache hit|internal)$' || true)
if [ -n "$executed" ] || ! grep -q 'remote cache hit' <<<"$line"; then
  say "actions that missed the cache (mnemonic, first output):"
  python3 - "$work/second.exec.json" <<'EOF' >&2
import json, sys
text, decoder, position = open(sys.argv[1]).read(), json.JSONDecoder(), 0
while position < len(text.rstrip()):
    spawn, position = decoder.raw_decode(text, position)
    while position < len(text) and text[position].isspace():
        position += 1
    if spawn.get("cacheable") and spawn.get("remotable") and not spawn.get("remoteCacheHit"):
        outputs = spawn.get("listedOutputs") or ["?"]
        print("  %s %s" % (spawn.get("mnemonic"), outputs[0]))
EOF
  echo "remote_cache: FAILED"
  exit 1
fi
echo "remote_cache: PASSED"
