#!/bin/bash
# Iterations a drift for each limit of the series start, against a copy of
# kepler_drift.h with the limit replaced (run from the repository root).
# The header of 8ac0791 has two limits (SL_KDRIFT_NEAR, hyperbolas, and
# SL_KDRIFT_NEAR_ELLIPSE); this script, written for the header before it,
# replaced the one limit both shared: for today's header it sets the
# ellipses' limit.
set -e
mkdir -p /tmp/kd/starling
for nr in ${LIMITS:-0.9 1.2 1.5 2.0 2.5 3.0}; do
  sed "s/#define SL_KDRIFT_NEAR_ELLIPSE 2.0/#define SL_KDRIFT_NEAR_ELLIPSE $nr/" \
      core/include/starling/kepler_drift.h > /tmp/kd/starling/kepler_drift.h
  for p in mercury ellipses hyperbolas; do
    gcc -O2 -I/tmp/kd -Icore/include docs/runs/2026-12-02-joint/iters/$p.c -o /tmp/kd/$p -lm
  done
  for run in mercury "ellipses 0 0.9" "ellipses 0.9 0.9999" hyperbolas; do
    echo "limit $nr, $run:"; /tmp/kd/$run
  done
done
