#!/usr/bin/env bash
# Starts Debian's nginx as a Bazel HTTP remote cache
# (bazel/remote_cache/nginx.conf) on a free port of 127.0.0.1, storing under
# DIR/cache, with its pid file, logs and upload temporaries under DIR/state;
# checks that it stores what is PUT and prints its URL. DIR (created) and the
# directories above it must be searchable by nginx's workers (www-data).
# Stop it with: kill "$(cat DIR/state/nginx.pid)".
#   url=$(bash test/remote_cache/serve.sh DIR)
set -euo pipefail

say() { echo "remote_cache: $*" >&2; }
repository=$(git -C "$(dirname "$0")/../.." rev-parse --show-toplevel)
[ $# -eq 1 ] || { say "usage: serve.sh DIR"; exit 2; }
command -v nginx >/dev/null || { say "needs nginx (apt-get install nginx)"; exit 1; }
mkdir -p "$1/cache" "$1/state"
dir=$(realpath "$1")
chmod 755 "$dir"
# The workers run as www-data and write the cache.
[ "$(id -u)" != 0 ] || chown www-data "$dir/cache"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url="http://127.0.0.1:$port"
sed -e "s|@LISTEN@|127.0.0.1:$port|" -e "s|@ROOT@|$dir/cache|" -e "s|@STATE@|$dir/state|" \
  "$repository/bazel/remote_cache/nginx.conf" >"$dir/state/nginx.conf"
nginx -c "$dir/state/nginx.conf"

# A write and a read, before Bazel, which would only warn on failed uploads.
if ! python3 - "$url" <<'PROBE'
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
PROBE
then
  say "the cache at $url does not store uploads; nginx's error log:"
  cat "$dir/state/error.log" >&2
  kill "$(cat "$dir/state/nginx.pid")" 2>/dev/null || true
  exit 1
fi
echo "$url"
