#!/usr/bin/env bash
# The remote cache, end to end: starts Debian's nginx as a Bazel HTTP cache
# (bazel/remote_cache/nginx.conf) on 127.0.0.1, builds and tests //... from
# one clone in one output root with --config=remote_cache_writer, then again
# from a second clone at another path in a second, fresh output root with
# --config=remote_cache. Passes only if every cacheable action of the second
# build was a remote cache hit, by Bazel's own summary; lists any that missed,
# with its mnemonic. Stops nginx and removes everything whatever happens.
# Prints "remote_cache: PASSED" or "FAILED".
#   bash test/remote_cache/run.sh
set -euo pipefail

say() { echo "remote_cache: $*" >&2; }
trap 'say "failed (exit $?) at line $LINENO: $BASH_COMMAND"' ERR
repository=$(git -C "$(dirname "$0")/../.." rev-parse --show-toplevel)
command -v nginx >/dev/null || { say "needs nginx (apt-get install nginx)"; exit 1; }

# nginx's workers run as www-data: they must reach the cache root, so the
# directories above it are searchable by all and the root is theirs.
work=$(realpath "$(mktemp -d /var/tmp/remote_cache.XXXXXX)")
chmod 755 "$work"
mkdir -p "$work/cache" "$work/state"
[ "$(id -u)" != 0 ] || chown www-data "$work/cache"
# Stops the Bazel server of a clone and removes its output root.
remove_output_root() { # CLONE
  [ -d "$work/output_$1" ] || return 0
  # From the clone: the output base is per workspace.
  (cd "$work/$1" && bazel --output_user_root="$work/output_$1" shutdown) >/dev/null 2>&1 || true
  chmod -R u+w "$work/output_$1" 2>/dev/null || true
  rm -rf "$work/output_$1"
}
cleanup() {
  [ ! -s "$work/state/nginx.pid" ] || kill "$(cat "$work/state/nginx.pid")" 2>/dev/null || true
  remove_output_root first
  remove_output_root second
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url="http://127.0.0.1:$port"
sed -e "s|@LISTEN@|127.0.0.1:$port|" -e "s|@ROOT@|$work/cache|" -e "s|@STATE@|$work/state|" \
  "$repository/bazel/remote_cache/nginx.conf" >"$work/state/nginx.conf"
nginx -c "$work/state/nginx.conf"

# A write and a read, before Bazel, which would only warn on failed uploads.
if ! python3 - "$url" <<'EOF'
import sys, time, urllib.request
url = sys.argv[1] + "/cas/probe"
for attempt in range(50):
    try:
        urllib.request.urlopen(urllib.request.Request(url, data=b"probe", method="PUT"))
        break
    except urllib.error.HTTPError as error:
        sys.exit(f"PUT {url}: {error} (can nginx's worker user write the cache root?)")
    except OSError:
        time.sleep(0.1)  # not listening yet
assert urllib.request.urlopen(url).read() == b"probe", "GET returned other bytes"
EOF
then
  say "the cache at $url does not store uploads; nginx's error log:"
  cat "$work/state/error.log" >&2
  exit 1
fi

# Two clones of one commit, at different paths.
git clone --quiet "$repository" "$work/first"
git clone --quiet "$work/first" "$work/second"

# Builds and tests //... in the clone at $work/CLONE with output root
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
    --execution_log_json_file="$work/$1.exec.json" //...) >"$work/$1.log" 2>&1 </dev/null &
  local pid=$!
  tail -f --pid="$pid" "$work/$1.log" &
  local status=0
  wait "$pid" || status=$?
  wait
  [ "$status" -eq 0 ] || { say "bazel test in the $1 clone failed"; exit 1; }
}

# Bazel's summary, e.g. "INFO: 120 processes: 95 remote cache hit, 25 internal."
summary() { grep -E '^INFO: [0-9]+ processes?' "$work/$1.log" | tail -n1; }

say "first build, uploading"
build first remote_cache_writer
uploads=$(grep -c '^PUT .* 20[14]$' "$work/state/access.log" || true)
failed_uploads=$(grep -c '^PUT .* [45][0-9][0-9]$' "$work/state/access.log" || true)
say "first build: $(summary first); $uploads uploads, $failed_uploads failed"
if [ "$uploads" -le 1 ] || [ "$failed_uploads" -ne 0 ]; then
  say "uploads did not reach the cache; nginx's error log:"
  tail -n 20 "$work/state/error.log" >&2
  exit 1
fi

# Everything the second build may reuse is in the cache now: the first
# output root goes, which halves this test's peak disk use.
remove_output_root first

say "second build, another clone and output root"
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
