#!/usr/bin/env bash
# Installs the Debian packages t3sim needs to build, test and plot. Idempotent: prints nothing and
# touches nothing when every package is already installed; runs `apt-get update` only when something
# is missing. Needs root (or sudo). Exits non-zero with a message if it cannot install.
set -euo pipefail

packages=(
  build-essential cmake ccache clang-format clang-14 libclang-rt-14-dev
  libboost-program-options-dev libfmt-dev nlohmann-json3-dev libgtest-dev
  libprotobuf-dev protobuf-compiler zlib1g-dev
  libopenmpi-dev openmpi-bin python3-matplotlib python3-numpy
)

installed() {
  [[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" == "installed" ]]
}

missing=()
for p in "${packages[@]}"; do
  installed "$p" || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "bootstrap: installing ${missing[*]}"
if [[ $(id -u) -eq 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  echo "bootstrap: error: need root or password-less sudo to install: ${missing[*]}" >&2
  echo "bootstrap: run: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
if ! "${as_root[@]}" apt-get update -qq; then
  echo "bootstrap: error: 'apt-get update' failed (no network or broken sources?)" >&2
  exit 1
fi
if ! "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
  echo "bootstrap: error: 'apt-get install ${missing[*]}' failed" >&2
  exit 1
fi
for p in "${missing[@]}"; do
  if ! installed "$p"; then
    echo "bootstrap: error: $p is still not installed after apt-get" >&2
    exit 1
  fi
done
echo "bootstrap: done"
