#!/bin/sh
# Installs the xbench binary from a GitHub release.
#
#   curl -fsSL https://raw.githubusercontent.com/xbench/xbench/main/install.sh | sh
#   curl -fsSL .../install.sh | sh -s -- 0.1.0        # a pinned version (or XBENCH_VERSION=0.1.0)
#
# XBENCH_INSTALL       folder to install into (default ~/.local/bin)
# XBENCH_VERSION       version to install (default: the latest release)
# XBENCH_DOWNLOAD_URL  releases base URL (default https://github.com/xbench/xbench/releases):
#                      GitHub's layout (<base>/download/v<version>/, <base>/latest/download/),
#                      else a flat folder holding SHA256SUMS and the archives (a plain copy of
#                      dist/release; file:///path works for an air-gapped machine)
#
# The archive is checked against the release's SHA256SUMS before anything is unpacked; on a
# mismatch nothing is installed.
set -eu

BASE_URL=${XBENCH_DOWNLOAD_URL:-https://github.com/xbench/xbench/releases}
INSTALL_DIR=${XBENCH_INSTALL:-$HOME/.local/bin}
VERSION=${1:-${XBENCH_VERSION:-latest}}
VERSION=${VERSION#v}

say() { printf 'xbench-install: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

# The release target of this machine, as `bun build.ts --release` names it.
detect_target() {
  os=$(uname -s)
  arch=$(uname -m)
  case "$os" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    MINGW* | MSYS* | CYGWIN*) die "on Windows, download xbench-<version>-windows-x64.zip from the release page" ;;
    *) die "no xbench release for this platform ($os $arch); see the README for building from source" ;;
  esac
  case "$arch" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) die "no xbench release for this platform ($os $arch); see the README for building from source" ;;
  esac
  libc=""
  if [ "$os" = linux ] && is_musl; then
    [ "$arch" = x64 ] || die "no xbench release for this platform (linux $arch musl); see the README for building from source"
    libc=-musl
  fi
  printf '%s-%s%s\n' "$os" "$arch" "$libc"
}

# glibc answers getconf GNU_LIBC_VERSION; musl's ldd names itself. A glibc host with musl-tools
# installed also has /lib/ld-musl-*, so that file alone decides only when both are silent.
is_musl() {
  if getconf GNU_LIBC_VERSION >/dev/null 2>&1; then return 1; fi
  if ldd --version 2>&1 | grep -qi musl; then return 0; fi
  for f in /lib/ld-musl-*; do [ -e "$f" ] && return 0; done
  return 1
}

# Downloads url to file: 0 when done, 4 when the server (or folder) has no such file, else 1.
try_fetch() { # url file
  if command -v curl >/dev/null 2>&1; then
    # 22: an HTTP error such as 404; 37: a file:// path that does not exist.
    curl -fsL --retry 2 -o "$2" "$1" 2>/dev/null || case $? in 22 | 37) return 4 ;; *) return 1 ;; esac
  elif command -v wget >/dev/null 2>&1; then
    # 8: the server answered with an error such as 404.
    wget -q -O "$2" "$1" || case $? in 8) return 4 ;; *) return 1 ;; esac
  else
    die "need curl or wget to download xbench"
  fi
}

fetch() { # url file
  try_fetch "$1" "$2" || die "download failed: $1"
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d' ' -f1
  else
    die "need sha256sum or shasum to check the download"
  fi
}

target=$(detect_target)
if [ "$VERSION" = latest ]; then
  github_url="$BASE_URL/latest/download"
  wanted="xbench-[^ ]*-$target\.tar\.gz"
else
  github_url="$BASE_URL/download/v$VERSION"
  wanted="xbench-$(printf '%s' "$VERSION" | sed 's/[.[\*^$]/\\&/g')-$target\.tar\.gz"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/xbench-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# GitHub's layout first, then a flat folder (a mirror or a copy of dist/release). Only a "no
# such file" from both means there is no such release; any other failure is the network's.
status=0
try_fetch "$github_url/SHA256SUMS" "$tmp/SHA256SUMS" || status=$?
if [ "$status" = 0 ]; then
  release_url=$github_url
elif [ "$status" = 4 ]; then
  status=0
  try_fetch "$BASE_URL/SHA256SUMS" "$tmp/SHA256SUMS" || status=$?
  [ "$status" = 1 ] && die "download failed: $BASE_URL/SHA256SUMS"
  if [ "$status" = 4 ]; then
    [ "$VERSION" = latest ] && die "no release at $BASE_URL (neither latest/download/SHA256SUMS nor SHA256SUMS there)"
    die "no release $VERSION at $BASE_URL"
  fi
  release_url=$BASE_URL
else
  die "download failed: $github_url/SHA256SUMS"
fi
# The latest version is read from the checksum list, so no API call (and no rate limit) is needed.
archive=$(sed -n "s/^[0-9a-f]\{64\}  \($wanted\)$/\1/p" "$tmp/SHA256SUMS" | head -n 1)
if [ -z "$archive" ]; then
  # A flat folder may hold other versions only: that is no such release, not a missing platform.
  if [ "$VERSION" != latest ] && ! grep -q "  xbench-$VERSION-" "$tmp/SHA256SUMS"; then die "no release $VERSION at $BASE_URL"; fi
  die "release $VERSION has no archive for $target"
fi
expected=$(grep "  $archive\$" "$tmp/SHA256SUMS" | cut -d' ' -f1)

say "downloading $archive"
fetch "$release_url/$archive" "$tmp/$archive"
actual=$(sha256_of "$tmp/$archive")
if [ "$actual" != "$expected" ]; then
  die "checksum mismatch for $archive (expected $expected, got $actual); nothing installed"
fi
say "verified SHA-256 of $archive"

tar -xzf "$tmp/$archive" -C "$tmp"
folder="$tmp/${archive%.tar.gz}"
[ -x "$folder/xbench" ] || die "$archive holds no xbench binary; nothing installed"
mkdir -p "$INSTALL_DIR"
# Copy beside the target and rename over it, so a running xbench is never half-written.
cp "$folder/xbench" "$INSTALL_DIR/.xbench.new"
chmod 755 "$INSTALL_DIR/.xbench.new"
mv -f "$INSTALL_DIR/.xbench.new" "$INSTALL_DIR/xbench"

if version=$("$INSTALL_DIR/xbench" --version 2>/dev/null); then
  say "installed xbench $version to $INSTALL_DIR/xbench"
else
  say "installed ${archive%.tar.gz} to $INSTALL_DIR/xbench, but it does not start here"
  # Bun's musl build links musl's C++ runtime, which musl systems do not install by default.
  case "$target" in *-musl) say "the musl build needs libstdc++ and libgcc: apk add libstdc++ (Alpine)" ;; esac
fi
case ":${PATH:-}:" in
  *":$INSTALL_DIR:"*) ;;
  *) say "add it to PATH: export PATH=\"$INSTALL_DIR:\$PATH\" (in ~/.profile or your shell's rc file)" ;;
esac
