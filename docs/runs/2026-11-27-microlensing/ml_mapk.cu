// Standalone timing of the map kernel (the same code as ml_cuda.cu's
// ml_map_kernel) on a 4096^2 binary map: host active cells, device rays.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#include "ml_map.h"
struct grid { double lx0, ly0, h; long long ncx, ncy, rpc; };
__global__ void kern(sl_ml_map_spec m, grid g, const long long *cells, long long n_rays, double idx, double idy, unsigned *count) {
  for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < n_rays; r += (long long)gridDim.x * blockDim.x) {
    long long a = r / g.rpc, k = r - a * g.rpc; long long c = cells[a], cy = c / g.ncx, cx = c - cy * g.ncx;
    double x, y; sl_ml_ray(m.seed, c, k, g.lx0, g.ly0, g.h, cx, cy, &x, &y);
    long long p = sl_ml_ray_pixel(&m, idx, idy, x, y); if (p >= 0) atomicAdd(&count[p], 1u); } }
__device__ __forceinline__ void map1div(const sl_ml_map_spec &m, double x, double y, double *sx, double *sy) {
  double dx0 = x - m.lenses.x[0], dy0 = y - m.lenses.y[0], dx1 = x - m.lenses.x[1], dy1 = y - m.lenses.y[1];
  double r0 = dx0*dx0 + dy0*dy0, r1 = dx1*dx1 + dy1*dy1, inv = 1.0 / (r0 * r1);
  double f0 = m.lenses.m[0] * r1 * inv, f1 = m.lenses.m[1] * r0 * inv;
  *sx = x - f0*dx0 - f1*dx1; *sy = y - f0*dy0 - f1*dy1; }
__global__ void kern_cell(sl_ml_map_spec m, grid g, const long long *cells, long long na, double idx, double idy, unsigned *count, int onediv) {
  for (long long a = (long long)blockIdx.x * blockDim.x + threadIdx.x; a < na; a += (long long)gridDim.x * blockDim.x) {
    long long c = cells[a], cy = c / g.ncx, cx = c - cy * g.ncx;
    for (long long k = 0; k < g.rpc; k++) {
      double x, y; sl_ml_ray(m.seed, c, k, g.lx0, g.ly0, g.h, cx, cy, &x, &y);
      double sx, sy;
      if (onediv) map1div(m, x, y, &sx, &sy); else sl_ml_shoot_map(&m.lenses, x, y, &sx, &sy);
      double fx = (sx - m.x0) * idx, fy = (sy - m.y0) * idy;
      if (fx >= 0.0 && fx < m.nx && fy >= 0.0 && fy < m.ny) atomicAdd(&count[(long long)fy * m.nx + (long long)fx], 1u); } } }
__global__ void kern_run(sl_ml_map_spec m, grid g, const long long *cells, long long na, double idx, double idy, unsigned *count, int slots) {
  for (long long a = (long long)blockIdx.x * blockDim.x + threadIdx.x; a < na; a += (long long)gridDim.x * blockDim.x) {
    long long c = cells[a], cy = c / g.ncx, cx = c - cy * g.ncx;
    long long pend[4] = {-1,-1,-1,-1}; unsigned run[4] = {0,0,0,0};
    for (long long k = 0; k < g.rpc; k++) {
      double x, y; sl_ml_ray(m.seed, c, k, g.lx0, g.ly0, g.h, cx, cy, &x, &y);
      double sx, sy; sl_ml_shoot_map(&m.lenses, x, y, &sx, &sy);
      double fx = (sx - m.x0) * idx, fy = (sy - m.y0) * idy;
      if (!(fx >= 0.0 && fx < m.nx && fy >= 0.0 && fy < m.ny)) continue;
      long long p = (long long)fy * m.nx + (long long)fx;
      int hit = -1;
      for (int i = 0; i < slots; i++) if (pend[i] == p) hit = i;
      if (hit >= 0) { run[hit]++; continue; }
      int victim = 0; for (int i = 1; i < slots; i++) if (run[i] < run[victim]) victim = i;
      if (pend[victim] >= 0) atomicAdd(&count[pend[victim]], run[victim]);
      pend[victim] = p; run[victim] = 1; }
    for (int i = 0; i < slots; i++) if (pend[i] >= 0) atomicAdd(&count[pend[i]], run[i]); } }
__device__ __forceinline__ void bin(const sl_ml_map_spec &m, double x, double y, double idx, double idy, unsigned *count) {
  double sx, sy; sl_ml_shoot_map(&m.lenses, x, y, &sx, &sy);
  double fx = (sx - m.x0) * idx, fy = (sy - m.y0) * idy;
  if (fx >= 0.0 && fx < m.nx && fy >= 0.0 && fy < m.ny) atomicAdd(&count[(long long)fy * m.nx + (long long)fx], 1u); }
__global__ void kern_pair(sl_ml_map_spec m, grid g, const long long *cells, long long na, double idx, double idy, unsigned *count) {
  const double u = 1.0 / 4294967296.0;
  for (long long a = (long long)blockIdx.x * blockDim.x + threadIdx.x; a < na; a += (long long)gridDim.x * blockDim.x) {
    long long c = cells[a], cy = c / g.ncx, cx = c - cy * g.ncx;
    double bx = g.lx0 + g.h * cx, by = g.ly0 + g.h * cy, hu = g.h * u;
    for (long long k = 0; k < g.rpc; k += 2) {
      sl_u32x4 r = sl_rng_block(m.seed, (uint64_t)c, (uint64_t)(k >> 1));
      bin(m, bx + hu * ((double)r.v[0] + 0.5), by + hu * ((double)r.v[1] + 0.5), idx, idy, count);
      if (k + 1 < g.rpc) bin(m, bx + hu * ((double)r.v[2] + 0.5), by + hu * ((double)r.v[3] + 0.5), idx, idy, count);
    } } }
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4096; double rpp = argc > 2 ? atof(argv[2]) : 100;
  sl_ml_map_spec m = {}; double s = 1.1, q = 0.01; m.lenses.n = 2; m.lenses.m[0] = 1/(1+q); m.lenses.m[1] = q/(1+q); m.lenses.x[0] = -s*m.lenses.m[1]; m.lenses.x[1] = s*m.lenses.m[0];
  m.x0 = -0.35; m.x1 = 0.35; m.y0 = -0.35; m.y1 = 0.35; m.nx = m.ny = n; m.rays_per_pixel = rpp; m.seed = 1;
  grid g; double dx = 0.7/n; g.h = dx; g.rpc = (long long)llround(rpp); g.lx0 = -1.35; g.ly0 = -1.35; g.ncx = (long long)ceil(3.44/dx); g.ncy = (long long)ceil(2.7/dx);
  std::vector<long long> cells;
  for (long long c = 0; c < g.ncx*g.ncy; c++) { long long cy = c / g.ncx, cx = c - cy*g.ncx; double x = g.lx0 + g.h*cx, y = g.ly0 + g.h*cy;
    double px[5]={0,1,0,1,.5}, py[5]={0,0,1,1,.5}, bx0=1e300,bx1=-1e300,by0=1e300,by1=-1e300; int lens=0;
    for (int i=0;i<2;i++) if (m.lenses.x[i]>=x && m.lenses.x[i]<x+g.h && m.lenses.y[i]>=y && m.lenses.y[i]<y+g.h) lens=1;
    for (int k=0;k<5;k++){ double sx,sy; sl_ml_shoot_map(&m.lenses,x+g.h*px[k],y+g.h*py[k],&sx,&sy); bx0=fmin(bx0,sx);bx1=fmax(bx1,sx);by0=fmin(by0,sy);by1=fmax(by1,sy);}
    if (lens || (bx1>=m.x0 && bx0<m.x1 && by1>=m.y0 && by0<m.y1)) cells.push_back(c); }
  long long na = cells.size(), nr = na * g.rpc;
  long long *dc; unsigned *dcount; cudaMalloc(&dc, na*8); cudaMalloc(&dcount, (size_t)n*n*4);
  cudaMemcpy(dc, cells.data(), na*8, cudaMemcpyHostToDevice);
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  for (int onediv = 0; onediv < 2; onediv++) for (int bs : {128, 256}) {
    cudaMemset(dcount, 0, (size_t)n*n*4);
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    long long blocks = (na + bs - 1)/bs;
    cudaEventRecord(e0); kern_cell<<<blocks, bs>>>(m, g, dc, na, n/0.7, n/0.7, dcount, onediv); cudaEventRecord(e1); cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1);
    printf("cell-loop onediv %d block %d: %.2f ms, %.3g rays/s (%s)\n", onediv, bs, ms, nr/(ms*1e-3), cudaGetErrorString(cudaGetLastError()));
  }
  std::vector<unsigned> ref((size_t)n*n), got((size_t)n*n);
  cudaMemset(dcount, 0, (size_t)n*n*4); kern_cell<<<(na+127)/128,128>>>(m, g, dc, na, n/0.7, n/0.7, dcount, 0); cudaMemcpy(ref.data(), dcount, (size_t)n*n*4, cudaMemcpyDeviceToHost);
  for (int bs : {128, 256}) {
    cudaMemset(dcount, 0, (size_t)n*n*4);
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    cudaEventRecord(e0); kern_pair<<<(na+bs-1)/bs, bs>>>(m, g, dc, na, n/0.7, n/0.7, dcount); cudaEventRecord(e1); cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1);
    cudaMemcpy(got.data(), dcount, (size_t)n*n*4, cudaMemcpyDeviceToHost); double sa = 0, sb = 0; for (size_t i = 0; i < got.size(); i++) { sa += got[i]; sb += ref[i]; }
    printf("pair (32-bit uniforms) block %d: %.2f ms, %.3g rays/s, total rays in box %.6g vs %.6g (%s)\n", bs, ms, nr/(ms*1e-3), sa, sb, cudaGetErrorString(cudaGetLastError()));
  }
  for (int slots : {4}) for (int bs : {128}) {
    cudaMemset(dcount, 0, (size_t)n*n*4);
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    cudaEventRecord(e0); kern_run<<<(na+bs-1)/bs, bs>>>(m, g, dc, na, n/0.7, n/0.7, dcount, slots); cudaEventRecord(e1); cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1);
    cudaMemcpy(got.data(), dcount, (size_t)n*n*4, cudaMemcpyDeviceToHost); long long diff = 0; for (size_t i = 0; i < got.size(); i++) diff += got[i] != ref[i];
    printf("run slots %d block %d: %.2f ms, %.3g rays/s, pixels differing from per-ray atomics %lld (%s)\n", slots, bs, ms, nr/(ms*1e-3), diff, cudaGetErrorString(cudaGetLastError()));
  }
  for (int bs : {128}) for (int per : {256}) {
    cudaMemset(dcount, 0, (size_t)n*n*4);
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    long long blocks = (nr + bs - 1)/bs, cap = (long long)sms*per; if (blocks > cap) blocks = cap;
    cudaEventRecord(e0); kern<<<blocks, bs>>>(m, g, dc, nr, n/0.7, n/0.7, dcount); cudaEventRecord(e1); cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1);
    printf("%d^2, %lld active cells, %.3g rays, block %d x %d/SM: %.2f ms, %.3g rays/s (%s)\n", n, na, (double)nr, bs, per, ms, nr/(ms*1e-3), cudaGetErrorString(cudaGetLastError()));
  }
}
