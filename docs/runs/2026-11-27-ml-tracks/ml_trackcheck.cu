// Standalone check of the wip branch's light-curve kernel (ml_cuda.cu of
// wip/ml-tracks) against the host reader on the same SL_HD code, over a
// ray-shot binary map made on the device; core's device helpers stubbed.
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
#include "ml_cuda.cu"
int main(int argc, char **argv) {
  double px = argc > 1 ? atof(argv[1]) : 4e-4, rpp = argc > 2 ? atof(argv[2]) : 300;
  sl_ml_map_spec m; memset(&m, 0, sizeof m); double s = 1.1, q = 0.01; m.lenses.n = 2; m.lenses.m[0] = 1/(1+q); m.lenses.m[1] = q/(1+q); m.lenses.x[0] = -s*m.lenses.m[1]; m.lenses.x[1] = s*m.lenses.m[0];
  m.x0 = 0.08; m.x1 = 0.12; m.y0 = -0.08; m.y1 = 0.08; m.nx = (int)lround(0.04/px); m.ny = (int)lround(0.16/px); m.rays_per_pixel = rpp; m.seed = 5;
  ml_map_grid g; g.h = px; g.rays_per_cell = (long long)llround(rpp);
  double b0 = -s*m.lenses.m[1] - 1, b1 = 0.12 + 1 > s*m.lenses.m[0] + 1 ? 0.12 + 1 : s*m.lenses.m[0] + 1; g.lx0 = fmin(0.08 - 1, b0); g.ly0 = -1.08; g.ncx = (long long)ceil((b1 - g.lx0)/px); g.ncy = (long long)ceil(2.16/px);
  sl_backend be; memset(&be, 0, sizeof be); be.kind = SL_BACKEND_CUDA;
  ml_active a; if (sl_ml_cuda_active(&be, &m, &g, &a)) return 1;
  std::vector<uint32_t> cnt((size_t)m.nx*m.ny); double sec; if (sl_ml_cuda_shoot(&be, &m, &g, &a, cnt.data(), &sec)) return 1;
  std::vector<double> A(cnt.size()); double norm = g.h*g.h/(g.rays_per_cell*px*px); for (size_t i = 0; i < A.size(); i++) A[i] = cnt[i]*norm;
  sl_ml_map map; memset(&map, 0, sizeof map); map.nx = m.nx; map.ny = m.ny; map.x0 = m.x0; map.x1 = m.x1; map.y0 = m.y0; map.y1 = m.y1; map.A = A.data();
  // reference file rows
  FILE *f = fopen("binary_fs_lc.csv", "r"); char line[512]; int hdr = 0; std::vector<double> ts, Au, Ald, y2s;
  while (fgets(line, sizeof line, f)) { if (line[0] == '#') continue; if (!hdr) { hdr = 1; continue; } double t, y1, y2, u, l; sscanf(line, "%lf,%lf,%lf,%lf,%lf", &t, &y1, &y2, &u, &l); if (fabs(y2) > 0.08 - 0.002 - 2*px) continue; ts.push_back(t); Au.push_back(u); Ald.push_back(l); y2s.push_back(y2); }
  int nt = ts.size(); double par[5] = {0, 0.1, 10, 90, 2e-3};
  for (int ld = 0; ld < 2; ld++) {
    sl_ml_tracks tr = {1, par, nt, ts.data(), ld ? 0.5 : 0.0, 0.0}; std::vector<double> G(nt), H(nt);
    auto t0 = std::chrono::steady_clock::now(); if (sl_ml_cuda_tracks(&be, &map, &tr, G.data())) return 1; double tg = std::chrono::duration<double>(std::chrono::steady_clock::now()-t0).count();
    sl_ml_grid2 g2 = {A.data(), m.nx, m.ny, m.x0, m.y0, px, px};
    double worst = 0, wref = 0; int at = 0;
    for (int j = 0; j < nt; j++) { double cx, cy; sl_ml_trajectory(ts[j], 0, 0.1, 10, 90, &cx, &cy); H[j] = sl_ml_track_point(&g2, cx, cy, 2e-3, ld ? 0.5 : 0.0, 0.0);
      worst = fmax(worst, fabs(G[j]/H[j]-1)); double e = fabs(G[j]/(ld ? Ald[j] : Au[j]) - 1); if (e > wref) { wref = e; at = j; } }
    printf("px %.1e rays/px %g (%.3g rays, %.3f s): ld %d: gpu vs host reader %.2e; vs VBMicrolensing worst %.2e at y2 = %.4f; tracks call %.4f s\n", px, rpp, (double)a.n*g.rays_per_cell, sec, ld, worst, wref, y2s[at], tg);
  }
}
