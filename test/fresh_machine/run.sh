#!/usr/bin/env bash
# A new user's machine: builds a minimal Debian 12 root (debootstrap
# --variant=minbase bookworm), clones this repository into it, and runs the
# README's two commands exactly as written, in a chroot with a clean
# environment. Passes only if the example prints its result and every test
# passes. The root gets this machine's apt sources, its CA bundle (for a
# network whose TLS is inspected) and its DNS resolver, nothing else.
# Needs root and debootstrap; everything it mounts and creates is removed
# whatever happens. Prints "fresh_machine: PASSED" or "FAILED".
#   bash test/fresh_machine/run.sh
set -euo pipefail

say() { echo "fresh_machine: $*" >&2; }
trap 'say "failed (exit $?) at line $LINENO: $BASH_COMMAND"' ERR
repository=$(git -C "$(dirname "$0")/../.." rev-parse --show-toplevel)
[ "$(id -u)" = 0 ] || { say "needs root (debootstrap, chroot, mount)"; exit 1; }
command -v debootstrap >/dev/null || { say "needs debootstrap (apt-get install debootstrap)"; exit 1; }

# The resolved path: /proc/PID/root shows it so.
root=$(realpath "$(mktemp -d /var/tmp/fresh_machine.XXXXXX)")
# A machine's / is 0755 (mktemp made it 0700): other users, which tests act
# as, reach its files.
chmod 755 "$root"
mounts=()
debootstrap_pid=
cleanup() {
  [ -z "$debootstrap_pid" ] || kill -9 -- "-$debootstrap_pid" 2>/dev/null || true
  # Processes left in the root (the Bazel server) hold its mounts.
  for proc in /proc/[0-9]*; do
    if [ "$(readlink "$proc/root" 2>/dev/null)" = "$root" ]; then
      kill -9 "${proc#/proc/}" 2>/dev/null || true
    fi
  done
  sleep 1
  local i
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
    umount "${mounts[i]}" 2>/dev/null || umount -l "${mounts[i]}" || true
  done
  # Never delete through a mount that is still there (a bound /dev).
  if grep -qF " $root/" /proc/mounts; then
    say "mounts remain under $root; not removing it"
  else
    rm -rf --one-file-system "$root"
  fi
  rm -f "$root.debootstrap.log" "$root.output"
}
trap cleanup EXIT
# A signal ends the script through cleanup; children run in the background
# (waited for) so that the signal is handled at once.
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

mount_in_root() { # TYPE-OR-BIND SOURCE DIRECTORY
  mkdir -p "$root$3"
  if [ "$1" = bind ]; then mount --bind "$2" "$root$3"; else mount -t "$1" "$2" "$root$3"; fi
  mounts+=("$root$3")
}

# The Debian mirror this machine's apt uses for bookworm, from one-line
# (`deb [options] URI bookworm ...`) or deb822 (`URIs:`/`Suites:`) sources.
mirror=$(
  cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
    awk '$1 == "deb" { i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
                       if ($(i + 1) == "bookworm") { print $i; exit } }'
  for file in /etc/apt/sources.list.d/*.sources; do
    [ -e "$file" ] || continue
    awk 'BEGIN { RS = ""; FS = "\n" }
         { uri = ""; bookworm = 0
           for (n = 1; n <= NF; n++) {
             if ($n ~ /^URIs:/) { split($n, f, /[ \t]+/); uri = f[2] }
             if ($n ~ /^Suites:/ && $n ~ /[ \t]bookworm([ \t]|$)/) bookworm = 1
           }
           if (bookworm && uri != "") print uri }' "$file"
  done
)
mirror=$(head -n1 <<<"$mirror")
[ -n "$mirror" ] || { say "no bookworm mirror in this machine's apt sources"; exit 1; }

log="$root.debootstrap.log"
say "debootstrap --variant=minbase bookworm from $mirror"
setsid debootstrap --variant=minbase bookworm "$root" "$mirror" >"$log" 2>&1 &
debootstrap_pid=$!
if ! wait "$debootstrap_pid"; then
  tail -n 30 "$log" >&2
  say "debootstrap failed"
  exit 1
fi
debootstrap_pid=

# This machine's apt sources (with the keyrings they name and its Acquire
# settings: proxies, validity checks), CA bundle and resolver.
rm -f "$root/etc/apt/sources.list"
for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
  [ -e "$file" ] || continue
  mkdir -p "$root$(dirname "$file")"
  cp "$file" "$root$file"
  { grep -ohE '(signed-by=|Signed-By:[[:space:]]*)/[^] ,]+' "$file" || true; } |
    sed -E 's/^(signed-by=|Signed-By:[[:space:]]*)//' | while read -r keyring; do
    if [ -f "$keyring" ]; then
      mkdir -p "$root$(dirname "$keyring")"
      cp "$keyring" "$root$keyring"
    fi
  done
done
for file in /etc/apt/apt.conf /etc/apt/apt.conf.d/*; do
  if [ -f "$file" ] && grep -q 'Acquire::' "$file"; then cp "$file" "$root$file"; fi
done
mkdir -p "$root/etc/ssl/certs" "$root/usr/local/share/ca-certificates"
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
# Kept if the ca-certificates package is installed later and rebuilds the bundle.
cp /etc/ssl/certs/ca-certificates.crt "$root/usr/local/share/ca-certificates/host.crt"
cp -L /etc/resolv.conf "$root/etc/resolv.conf"

mount_in_root proc proc /proc
mount_in_root sysfs sysfs /sys
mount_in_root bind /dev /dev
mount_in_root tmpfs tmpfs /dev/shm

git clone --quiet "$repository" "$root/root/mlir_execution_engine"

say "running the README's commands in the chroot"
output="$root.output"
# A clean environment, but for the network's proxies.
environment=(HOME=/root LANG=C.UTF-8 PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin)
for name in http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY; do
  [ -z "${!name:-}" ] || environment+=("$name=${!name}")
done
: >"$output"
env -i "${environment[@]}" chroot "$root" /bin/bash -c '
    set -e
    cd /root/mlir_execution_engine
    ./bazelw run //examples:callback_into_python
    ./bazelw test //test/...
  ' >"$output" 2>&1 </dev/null &
chroot_pid=$!
tail -f --pid="$chroot_pid" "$output" &
status=0
wait "$chroot_pid" || status=$?
wait

expected="callback_test(42.0, 2) = 44.0"
if [ "$status" -eq 0 ] && grep -qxF "$expected" "$output"; then
  result=PASSED
else
  grep -qxF "$expected" "$output" || say "the example did not print: $expected"
  result=FAILED
fi
echo "fresh_machine: $result"
[ "$result" = PASSED ]
