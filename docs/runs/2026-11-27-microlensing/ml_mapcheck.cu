// Standalone check of ml_cuda.cu's map path (active cells + shooting) against
// the host loop on the same SL_HD code; core's device helpers stubbed.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdarg>
#include <vector>
#include <chrono>
#include <cuda_runtime.h>
#include "starling/status.h"
#include "starling/backend.h"
extern "C" {
sl_status sl_fail(sl_status c, const char *f, ...) { va_list a; va_start(a, f); vfprintf(stderr, f, a); va_end(a); fprintf(stderr, "\n"); return c; }
sl_status sl_dev_alloc(void **p, size_t b, const char *w) { return cudaMalloc(p, b) ? sl_fail(SL_ERR_NOMEM, "%s", w) : SL_OK; }
void sl_dev_free(void *p) { cudaFree(p); }
sl_status sl_dev_upload(void *d, const void *s, size_t b, const char *w) { return cudaMemcpy(d, s, b, cudaMemcpyHostToDevice) ? sl_fail(SL_ERR_CUDA, "%s", w) : SL_OK; }
sl_status sl_dev_download(void *d, const void *s, size_t b, const char *w) { return cudaMemcpy(d, s, b, cudaMemcpyDeviceToHost) ? sl_fail(SL_ERR_CUDA, "%s", w) : SL_OK; }
sl_status sl_dev_zero(void *p, size_t b, const char *w) { return cudaMemset(p, 0, b) ? sl_fail(SL_ERR_CUDA, "%s", w) : SL_OK; }
}
#include "../../plugins/microlensing/ml_cuda.cu"
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 512; double rpp = argc > 2 ? atof(argv[2]) : 50;
  sl_ml_map_spec m; memset(&m, 0, sizeof m); double s = 1.1, q = 0.01; m.lenses.n = 2; m.lenses.m[0] = 1/(1+q); m.lenses.m[1] = q/(1+q); m.lenses.x[0] = -s*m.lenses.m[1]; m.lenses.x[1] = s*m.lenses.m[0];
  m.x0 = -0.35; m.x1 = 0.35; m.y0 = -0.35; m.y1 = 0.35; m.nx = m.ny = n; m.rays_per_pixel = rpp; m.seed = 1;
  ml_map_grid g; double dx = 0.7/n; g.h = dx; g.rays_per_cell = (long long)llround(rpp); g.lx0 = -1.35; g.ly0 = -1.35; g.ncx = (long long)ceil(3.44/dx); g.ncy = (long long)ceil(2.7/dx);
  sl_backend be; memset(&be, 0, sizeof be); be.kind = SL_BACKEND_CUDA;
  ml_active a; auto t0 = std::chrono::steady_clock::now();
  if (sl_ml_cuda_active(&be, &m, &g, &a)) return 1;
  double ta = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::vector<uint32_t> gc((size_t)n*n), hc((size_t)n*n, 0); double sec;
  if (sl_ml_cuda_shoot(&be, &m, &g, &a, gc.data(), &sec)) return 1;
  long long hn = 0; int hedge = 0;
  for (long long c = 0; c < g.ncx*g.ncy; c++) { long long cy = c / g.ncx, cx = c - cy*g.ncx;
    if (sl_ml_cell_active(&m, g.lx0, g.ly0, g.h, cx, cy)) { hn++; if (cx==0||cy==0||cx==g.ncx-1||cy==g.ncy-1) hedge=1;
      if (n <= 1024) { uint32_t *count = hc.data(); sl_ml_shoot_cell(&m, g.lx0, g.ly0, g.h, g.ncx, g.rays_per_cell, c, n/0.7, n/0.7, count); } } }
  long long moved = 0, tot = 0; for (size_t i = 0; i < hc.size(); i++) { moved += llabs((long long)gc[i] - (long long)hc[i]); tot += hc[i]; }
  printf("%d^2: active gpu %lld host %lld, edge %d/%d; active-cell time %.3f s; shoot %.4f s = %.3g rays/s; rays moved %lld of %lld\n",
         n, (long long)a.n, hn, a.edge, hedge, ta, sec, (double)a.n*g.rays_per_cell/sec, moved, tot);
  sl_ml_cuda_active_free(&a);
}
