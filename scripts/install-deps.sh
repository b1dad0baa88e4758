#!/usr/bin/env bash
# Installs the Debian 12 packages fedgrid builds and runs with. Idempotent: apt-get is only
# called when a package is missing. Works as root, uses sudo otherwise.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config
  libsimgrid-dev libns3-dev libtorch-dev libopenblas0-openmp
  libspdlog-dev libfmt-dev libyaml-cpp-dev nlohmann-json3-dev libfccp-dev
  libeigen3-dev liblbfgspp-dev libboost-dev libboost-program-options-dev libboost-filesystem-dev libgtest-dev libgmock-dev libzip-dev zlib1g-dev libzfp-dev
  libopenmpi-dev openmpi-bin
  clang libclang-rt-14-dev
  dataset-fashion-mnist
  python3-matplotlib python3-pandas python3-scipy python3-torch
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# libopenblas0-pthread next to the openmp build loads both BLAS runtimes (2x slower).
if dpkg-query -W -f='${Status}' libopenblas0-pthread 2>/dev/null | grep -q "install ok installed"; then
  conflicting=1
else
  conflicting=0
fi

if [ ${#missing[@]} -eq 0 ] && [ $conflicting -eq 0 ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ $conflicting -eq 1 ]; then
  $SUDO apt-get remove -y -qq libopenblas0-pthread >/dev/null
fi
