# SL_GROUP_MIN_BLOCKS for G = 8 at 1..4 blocks: the sweep built at G = 8 (pair terms at N = 8)
# against d836700's headers with the cap edited; H200, 2026-11-28 18:30 UTC.
export LD_LIBRARY_PATH=$PWD/.criterion/lib
[ -d build ] || { rm -rf .device; tar -xJf build-pack/device.tar.xz; }
R="bash .device/run.sh"
b=/tmp/mb; rm -rf $b; mkdir -p $b
for mb in 1 2 3 4; do
  rm -rf $b/inc$mb; cp -r core/include $b/inc$mb
  sed -i "s/#define SL_GROUP_MIN_BLOCKS(G) ((G) >= 16 ? 4 : 2)/#define SL_GROUP_MIN_BLOCKS(G) ((G) >= 16 ? 4 : $mb)/" $b/inc$mb/starling/internal/group.h
  grep -c "? 4 : $mb)" $b/inc$mb/starling/internal/group.h
  $R nvcc -O3 -arch=sm_90 -Xptxas -v -DSL_SWEEP_G=8 -Ibuild/include -I$b/inc$mb -I. -cudart shared -o $b/g8_$mb bench/group_sweep.cu -Lbuild/lib -lstarling -Xlinker -rpath=$PWD/build/lib > $b/ptxas$mb.log 2>&1 &
done; wait
for mb in 1 2 3 4; do grep -A1 "hermite_newton_8" $b/ptxas$mb.log | grep -o "Used [0-9]* registers.*" | head -1; $R $b/g8_$mb 131072 500 $b mb$mb | grep -E "N=(8|9|10|12) "; done
