// Experiment: the Kepler drift of 8 planets per thread on the GPU, general
// (inlined, loop with early exit) against fast (straight line, 4 its) with
// a per-body fallback call. Not part of the project.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "starling/kepler_drift.h"
#define NP 8
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

template <int MODE>
__global__ void drift(int ns, int steps, double gm, double dt, double *X, double *V, int *slow)
{
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= ns) return;
    double q[NP][3], u[NP][3];
    for (int i = 0; i < NP; i++) for (int d = 0; d < 3; d++) { q[i][d] = X[(3*i+d)*ns + s]; u[i][d] = V[(3*i+d)*ns + s]; }
    int ns_ = 0;
    for (int t = 0; t < steps; t++) {
#pragma unroll
        for (int i = 0; i < NP; i++) {
            if (MODE == 0) sl_kepler_drift(gm, dt, q[i], u[i]);
            else if (MODE == 1) { if (sl_kepler_drift_fast(gm, dt, 1, q[i], u[i]) == 0.0) { ns_++; sl_kepler_drift_call(gm, dt, q[i], u[i]); } }
            else { sl_kepler_drift_call(gm, dt, q[i], u[i]); }
        }
    }
    for (int i = 0; i < NP; i++) for (int d = 0; d < 3; d++) { X[(3*i+d)*ns + s] = q[i][d]; V[(3*i+d)*ns + s] = u[i][d]; }
    if (ns_) atomicAdd(slow, ns_);
}

int main(int argc, char **argv)
{
    int ns = argc > 1 ? atoi(argv[1]) : 131072, steps = argc > 2 ? atoi(argv[2]) : 1000;
    FILE *f = fopen("tests/data/solar_system.csv", "r"); char line[1024]; double b[9][7]; int n = 0;
    while (fgets(line, sizeof line, f)) { if (line[0] == '#' || !strncmp(line, "body", 4)) continue;
        char *p = strchr(line, ',') + 1; for (int k = 0; k < 7; k++) { b[n][k] = strtod(p, &p); p++; } n++; }
    double dt = 8.0 / 365.25 * 2 * M_PI, gm = b[0][0];
    size_t sz = (size_t)3 * NP * ns;
    double *X0 = (double *)malloc(sz * 8), *V0 = (double *)malloc(sz * 8), *R[3];
    for (int s = 0; s < ns; s++) for (int i = 0; i < NP; i++) for (int d = 0; d < 3; d++) {
        X0[(3*i+d)*ns + s] = b[i+1][1+d] - b[0][1+d];
        V0[(3*i+d)*ns + s] = (b[i+1][4+d] - b[0][4+d]) * (1.0 + 1e-7 * (s % 1000)); }
    double *X, *V; int *slow; CK(cudaMalloc(&X, sz*8)); CK(cudaMalloc(&V, sz*8)); CK(cudaMalloc(&slow, 4));
    const char *names[3] = {"general inline", "fast + fallback call", "general call"};
    for (int mode = 0; mode < 3; mode++) {
        float best = 1e30f; int sl = 0;
        for (int rep = 0; rep < 4; rep++) {
            CK(cudaMemcpy(X, X0, sz*8, cudaMemcpyHostToDevice)); CK(cudaMemcpy(V, V0, sz*8, cudaMemcpyHostToDevice));
            CK(cudaMemset(slow, 0, 4));
            cudaEvent_t a, z; cudaEventCreate(&a); cudaEventCreate(&z);
            cudaEventRecord(a);
            if (mode == 0) drift<0><<<(ns+127)/128, 128>>>(ns, steps, gm, dt, X, V, slow);
            if (mode == 1) drift<1><<<(ns+127)/128, 128>>>(ns, steps, gm, dt, X, V, slow);
            if (mode == 2) drift<2><<<(ns+127)/128, 128>>>(ns, steps, gm, dt, X, V, slow);
            CK(cudaGetLastError()); cudaEventRecord(z); CK(cudaEventSynchronize(z));
            float ms; cudaEventElapsedTime(&ms, a, z); if (rep > 0 && ms < best) best = ms;
            CK(cudaMemcpy(&sl, slow, 4, cudaMemcpyDeviceToHost));
        }
        R[mode] = (double *)malloc(sz * 8); CK(cudaMemcpy(R[mode], X, sz*8, cudaMemcpyDeviceToHost));
        printf("%-22s %8.2f ms  %.3e drifts/s  slow %d\n", names[mode], best, (double)ns*steps*NP/(best*1e-3), sl);
    }
    double md = 0; for (size_t k = 0; k < sz; k++) { double d = fabs(R[0][k]-R[1][k]); if (d > md) md = d; }
    printf("max |general - fast| position: %.3e\n", md);
    return 0;
}
