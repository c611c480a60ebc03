# shellcheck shell=bash
# Sourced by the scripts that run commands in a fresh Debian root made by
# debootstrap (test/fresh_machine/run.sh, test/wheel/machines.sh). Needs root
# and debootstrap. The sourcing script sets `name` (its messages' prefix) and
# calls:
#   make_root SUITE [DEBOOTSTRAP_OPTION...]  a minbase root of SUITE at $root
#   mount_in_root TYPE-OR-BIND SOURCE DIRECTORY
#   remove_root                             also run at exit, whatever happens
# The mirror is the one this machine's apt uses for bookworm.

: "${name:?the sourcing script sets name}"
say() { echo "$name: $*" >&2; }
trap 'say "failed (exit $?) at line $LINENO: $BASH_COMMAND"' ERR
[ "$(id -u)" = 0 ] || { say "needs root (debootstrap, chroot, mount)"; exit 1; }
command -v debootstrap >/dev/null || { say "needs debootstrap (apt-get install debootstrap)"; exit 1; }

root=
mounts=()
debootstrap_pid=

remove_root() {
  [ -n "$root" ] || return 0
  [ -z "$debootstrap_pid" ] || kill -9 -- "-$debootstrap_pid" 2>/dev/null || true
  debootstrap_pid=
  # Processes left in the root (a Bazel server) hold its mounts.
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
  mounts=()
  # Never delete through a mount that is still there (a bound /dev).
  if grep -qF " $root/" /proc/mounts; then
    say "mounts remain under $root; not removing it"
  else
    rm -rf --one-file-system "$root"
  fi
  rm -f "$root.debootstrap.log" "$root.output"
  root=
}
trap remove_root EXIT
# A signal ends the script through remove_root; children run in the
# background (waited for) so that the signal is handled at once.
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
debian_mirror() {
  local mirror
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
  head -n1 <<<"$mirror"
}

make_root() { # SUITE [DEBOOTSTRAP_OPTION...]
  local suite=$1 mirror log
  shift
  mirror=$(debian_mirror)
  [ -n "$mirror" ] || { say "no bookworm mirror in this machine's apt sources"; exit 1; }
  # The resolved path: /proc/PID/root shows it so.
  root=$(realpath "$(mktemp -d /var/tmp/"$name".XXXXXX)")
  # A machine's / is 0755 (mktemp made it 0700): other users, which tests
  # act as, reach its files.
  chmod 755 "$root"
  log="$root.debootstrap.log"
  say "debootstrap --variant=minbase $* $suite from $mirror"
  setsid debootstrap --variant=minbase "$@" "$suite" "$root" "$mirror" >"$log" 2>&1 &
  debootstrap_pid=$!
  if ! wait "$debootstrap_pid"; then
    tail -n 30 "$log" >&2
    say "debootstrap failed"
    exit 1
  fi
  debootstrap_pid=
}
