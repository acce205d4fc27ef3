#!/bin/bash
# mk.sh VARIANT [extra nvcc flags]: mvs.so from the working tree's
# integrators/mvs/mvs_cuda.cu with build-ci's flags (CI's configuration:
# clones off, N = 3,5,8,9,16), linked with build-ci's CPU objects of mvs.
# Output: build-pack/var/VARIANT.so and /tmp/var/VARIANT/ptxas.log.
set -e
v=$1; shift
B=/work/main/build-ci
mkdir -p /tmp/var/$v /work/main/build-pack/var
cd $B
/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -DSL_HAVE_CUDA=1 -DSL_NO_LANE_CLONES=1 -Dmvs_EXPORTS ${INC:-} -I/work/main/forces -I/work/main/core/include -I$B/include -isystem=/usr/local/cuda/include -O3 -DNDEBUG --generate-code=arch=compute_90,code=[compute_90,sm_90] -Xcompiler=-fPIC -Xcompiler=-fvisibility=hidden "$@" -Xptxas -v -x cu -c /work/main/integrators/mvs/mvs_cuda.cu -o /tmp/var/$v/mvs_cuda.o > /tmp/var/$v/ptxas.log 2>&1
O=integrators/mvs/CMakeFiles/mvs.dir
/usr/bin/g++ -fPIC -Wl,--exclude-libs,ALL -shared -o /work/main/build-pack/var/$v.so $O/mvs.c.o $O/mvs_cpu_a.c.o $O/mvs_cpu_b.c.o $O/mvs_cpu_c.c.o /tmp/var/$v/mvs_cuda.o -Wl,-rpath,"\$ORIGIN/../..:\$ORIGIN/../../:" lib/libstarling.so.0.1.0 /usr/local/cuda/lib/libcudart.so -lm -ldl /usr/lib/gcc/x86_64-linux-gnu/12/libgomp.so /usr/lib/x86_64-linux-gnu/libpthread.a -lcudadevrt -lcudart -L/usr/local/cuda/targets/x86_64-linux/lib/stubs -L/usr/local/cuda/targets/x86_64-linux/lib
echo "$v done"
