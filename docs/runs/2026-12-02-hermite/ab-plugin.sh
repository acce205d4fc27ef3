#!/usr/bin/env bash
# The Hermite plugin of this commit against fbd43fb's CUDA object (built in
# the sandbox from fbd43fb's headers with the build's own nvcc command and
# linked with this build's CPU objects: build-pack/old/hermite.so), in one
# call, through starling-bench (its test systems, with and without the
# close-encounter and ejection monitors).
set -uo pipefail
tar -xJf build-pack/device.tar.xz
R="bash .device/run.sh"
B="build-ci/bench/starling-bench --systems 131072 --bodies 8,16 --backend cuda --integrators hermite --repeats 3"
p=.device/build/lib/starling/plugins/hermite.so
cp $p /tmp/new-hermite.so
date -u
for pass in 1 2; do
  for v in new old; do
    cp /tmp/new-hermite.so $p; [ $v = old ] && cp build-pack/old/hermite.so $p
    for mon in "" --monitors; do echo "== pass $pass $v ${mon:-no monitors}"; $R $B $mon 2>&1 | grep "^| hermite"; done
  done
done
date -u
