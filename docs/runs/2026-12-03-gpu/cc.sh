#!/bin/bash
# compile only: variant name, then nvcc flags
set -e
v=$1; shift
B=/work/main/build-dev
cd $B
/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -DSL_HAVE_CUDA=1 -DSL_NO_LANE_CLONES=1 -Dmvs_EXPORTS -I/work/main/forces -I/work/main/core/include -I$B/include -isystem=/usr/local/cuda/include -O3 -DNDEBUG --generate-code=arch=compute_90,code=[compute_90,sm_90] -Xcompiler=-fPIC -Xcompiler=-fvisibility=hidden "$@" -Xptxas -v -x cu -c /tmp/var/$v/integrators/mvs/mvs_cuda.cu -o /tmp/var/$v/mvs_cuda.o > /tmp/var/$v/ptxas.log 2>&1
echo "$v compiled"
