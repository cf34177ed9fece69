#!/usr/bin/env bash
# Installs what gestell needs to build and test on Debian 12, skipping what is
# already there. Safe to run again. Needs root or sudo for apt.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"

apt_packages=(
  cmake ninja-build g++ pkg-config
  llvm-22-dev llvm-22-tools libzstd-dev     # LLVM Support/Object, lit, FileCheck
  clang-tidy-22                              # function size (ctest tidy.function-size)
  libtomlplusplus-dev                        # config and rule packs
  zlib1g-dev                                 # libz.a: gzip traces, linked in
  libboost-dev                               # Boost.DLL for plugins (header-only)
  libgtest-dev                               # unit tests
  python3                                    # lit
  chromium                                   # headless check of the HTML diff report
  dpkg-dev file                              # the .deb: dpkg-shlibdeps, CPack's ELF search
  binutils                                   # readelf, objdump: ELF checks, the wheel's tag
  python3-venv                               # the wheel, pip-installed into a venv
)
missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js may come from elsewhere (nodesource) and already carry npm.
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)   # SARIF validators
if ((${#missing[@]})); then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "gestell: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# npm tools for SARIF validation live in tests/sarif/node_modules (pinned by
# its package-lock.json).
if [ -f "$here/tests/sarif/package.json" ] && [ ! -d "$here/tests/sarif/node_modules" ]; then
  (cd "$here/tests/sarif" && npm ci --no-audit --no-fund --loglevel=error >&2)
fi
