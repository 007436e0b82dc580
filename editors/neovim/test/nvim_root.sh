#!/usr/bin/env bash
# Unpacks Debian's neovim from another suite (trixie: 0.10, unstable: 0.12) into a
# private root, without touching the system's apt state or packages.
#   editors/neovim/test/nvim_root.sh SUITE CACHE_DIR
# Prints the root's path. A root already unpacked under CACHE_DIR is reused.
set -eu
SUITE=$1
CACHE=$2
ROOT=$CACHE/$SUITE/root
if [ -x "$ROOT/usr/bin/nvim" ]; then echo "$ROOT"; exit 0; fi
APT=$CACHE/$SUITE/apt
rm -rf "$CACHE/$SUITE"
mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial" "$APT/debs" "$ROOT"
MIRROR=$(grep -hoE '^URIs: *http[^ ]*debian/?$' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1 | sed 's/^URIs: *//')
MIRROR=${MIRROR:-http://deb.debian.org/debian}
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR $SUITE main" >"$APT/sources.list"
: >"$APT/empty"
OPTS=(-o "Dir::Etc::sourcelist=$APT/sources.list" -o "Dir::Etc::sourceparts=$APT/none"
  -o "Dir::State::Lists=$APT/lists" -o "Dir::Cache=$APT/cache" -o "Dir::State::status=$APT/empty"
  -o "APT::Get::List-Cleanup=0" -o Debug::NoLocking=1)
apt-get "${OPTS[@]}" update >&2
# The dependency closure of neovim against an empty status: libc6 included (0.12 needs
# unstable's), recommends left out.
PKGS=$(apt-cache "${OPTS[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts \
  --no-breaks --no-replaces --no-enhances neovim | grep -E '^[a-z0-9]' | sort -u \
  | grep -vE '^(debconf|perl-base|dpkg|tar|install-info|gcc-.*-base|base-files|bash|coreutils|usrmerge|libselinux1|libpcre2-8-0|libacl1|libattr1|libbz2-1.0|liblzma5|libzstd1|zlib1g|libmd0)$')
(cd "$APT/debs" && apt-get "${OPTS[@]}" download $PKGS >&2)
for d in "$APT/debs"/*.deb; do dpkg -x "$d" "$ROOT"; done
rm -rf "$APT/debs" "$APT/cache"
[ -x "$ROOT/usr/bin/nvim" ] || { echo "no nvim in $ROOT" >&2; exit 1; }
echo "$ROOT"
