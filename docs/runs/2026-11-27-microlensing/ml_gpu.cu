// Standalone check of the microlensing physics on the GPU against the CPU
// (same SL_HD code): binary lens point source, random models and epochs.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <chrono>
#include <cuda_runtime.h>
#include "ml_model.h"
static unsigned long long rng = 0x2545f4914f6cdd1dULL;
static double ur() { rng = rng * 6364136223846793005ULL + 1442695040888963407ULL; return (double)(rng >> 11) / 9007199254740992.0; }
__global__ void k(int model, int np, long long nm, const double *par, long long nt, const double *t, double *A) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nm * nt) return;
  long long m = i / nt, j = i - m * nt;
  double p[6]; for (int c = 0; c < np; c++) p[c] = par[m * np + c];
  A[i] = sl_ml_eval((sl_ml_model)model, p, t[j]);
}
int main(int argc, char **argv) {
  int model = argc > 1 ? atoi(argv[1]) : 2; long long nm = argc > 2 ? atoll(argv[2]) : 100000, nt = 100;
  int np = sl_ml_npar((sl_ml_model)model);
  double *par = (double*)malloc(nm*np*8), *t = (double*)malloc(nt*8), *A = (double*)malloc(nm*nt*8), *B = (double*)malloc(nm*nt*8);
  for (long long i = 0; i < nm; i++) { double *p = par + i*np; p[0]=0; p[1]=-1+2*ur(); p[2]=5+95*ur();
    if (model==1) { p[3]=pow(10,-3+2*ur()); p[4]=0.6*ur(); } else if (model==2) { p[3]=pow(10,-0.5+ur()); p[4]=pow(10,-5+5*ur()); p[5]=360*ur(); } }
  for (int j = 0; j < nt; j++) t[j] = -200 + 400.0*j/(nt-1);
  double *dp,*dt,*dA; cudaMalloc(&dp,nm*np*8); cudaMalloc(&dt,nt*8); cudaMalloc(&dA,nm*nt*8);
  cudaMemcpy(dp,par,nm*np*8,cudaMemcpyHostToDevice); cudaMemcpy(dt,t,nt*8,cudaMemcpyHostToDevice);
  long long n = nm*nt; int bs = 128;
  k<<<(n+bs-1)/bs,bs>>>(model,np,nm,dp,nt,dt,dA); cudaDeviceSynchronize();
  cudaEvent_t e0,e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaEventRecord(e0); for (int r=0;r<3;r++) k<<<(n+bs-1)/bs,bs>>>(model,np,nm,dp,nt,dt,dA); cudaEventRecord(e1); cudaEventSynchronize(e1);
  float ms; cudaEventElapsedTime(&ms,e0,e1); printf("model %d: %lld x %lld: kernel %.3f ms, %.3e magnifications/s (%s)\n", model, nm, nt, ms/3, n/(ms/3e3), cudaGetErrorString(cudaGetLastError()));
  cudaMemcpy(B,dA,n*8,cudaMemcpyDeviceToHost);
  long long ncpu = nm < 20000 ? nm : 20000;
  auto c0 = std::chrono::steady_clock::now();
  #pragma omp parallel for schedule(dynamic,256)
  for (long long i = 0; i < ncpu*nt; i++) { long long m = i/nt, j = i - m*nt; A[i] = sl_ml_eval((sl_ml_model)model, par+m*np, t[j]); }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now()-c0).count();
  double worst=0; long long at=0; for (long long i=0;i<ncpu*nt;i++){ double r=fabs(B[i]-A[i])/fabs(A[i]); if(!(r<=worst)){worst=r;at=i;} }
  printf("cpu (omp) %lld x %lld: %.3f s, %.3e /s; worst rel cpu-gpu %.2e at %lld (%.17g vs %.17g)\n", ncpu, nt, s, ncpu*nt/s, worst, at, A[at], B[at]);
}
