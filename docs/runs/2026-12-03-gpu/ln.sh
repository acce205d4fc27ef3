#!/bin/bash
set -e
v=$1
B=/work/main/build-dev
cd $B
O=integrators/mvs/CMakeFiles/mvs.dir
g++ -fPIC -Wl,--exclude-libs,ALL -shared -o /tmp/var/$v/mvs.so $O/mvs.c.o $O/mvs_cpu_a.c.o $O/mvs_cpu_b.c.o $O/mvs_cpu_c.c.o /tmp/var/$v/mvs_cuda.o -Wl,-rpath,"\$ORIGIN/../..:\$ORIGIN/../../:" lib/libstarling.so* -L/usr/local/cuda/targets/x86_64-linux/lib -lcudart -lm -ldl -lgomp -lpthread
grep -B1 -A3 "_9" /tmp/var/$v/ptxas.log | grep -E "Compiling|registers|spill" | head -12
