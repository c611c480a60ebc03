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

name=fresh_machine
repository=$(git -C "$(dirname "$0")/../.." rev-parse --show-toplevel)
# shellcheck source=test/debian_root.sh
source "$repository/test/debian_root.sh"
make_root bookworm

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
