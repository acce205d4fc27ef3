# Pair-shared forces in the grouped loop: group_sweep with the new headers
# and with HEAD's (pairold/), same build of libstarling, same machine.
# pairold/ was `git archive 9db0b69 core/include forces integrators bench`, unpacked in the
# working tree (removed after the runs; diff2.sh also wants pairold/bench/group_sweep_nudge.cu,
# this commit's bench/group_sweep.cu).
export CRITERION_PREFIX=$PWD/.criterion; c=$CRITERION_PREFIX; export PKG_CONFIG_PATH=$c/lib/pkgconfig LIBRARY_PATH=$c/lib LD_LIBRARY_PATH=$c/lib
rm -rf .device build; tar -xJf build-pack/device.tar.xz
R="bash .device/run.sh"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; lscpu | grep "Model name"; nproc; date -u; } > $OUT/device.txt; cat $OUT/device.txt
mkdir -p $OUT/new $OUT/old
$R bash bench/group_sweep.sh build $OUT/new > $OUT/new.log 2>&1; tail -30 $OUT/new.log
$R bash pairold/bench/group_sweep.sh build $OUT/old > $OUT/old.log 2>&1; tail -30 $OUT/old.log
date -u
