#!/usr/bin/env bash
# Installs what starling builds with, from Debian's packages. Idempotent.
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config liblua5.4-dev lua5.4 libcriterion-dev
  libpng-dev libcfitsio-dev liberfa-dev libfftw3-dev libplplot-dev plplot-driver-cairo libhdf5-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
sudo=""
if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update
$sudo apt-get install -y --no-install-recommends "${missing[@]}"
