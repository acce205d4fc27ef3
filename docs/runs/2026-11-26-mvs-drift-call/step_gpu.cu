// Experiment: mvs steps of the Sun + 8 planets, one thread per system, the
// Kepler drift inlined (as the kernels do today) against called. Not part
// of the project.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "starling/kepler_drift.h"
#include "starling/launch.h"
#include "../../integrators/mvs/mvs.h"
#include "../../forces/newton/newton.h"
#define NMAX 16
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

template <int HOW, int N>
__global__ void step(int ns, int steps, double h, double jac, const double *X, const double *V, const double *M, double *out)
{
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= ns) return;
    double x[3*N], v[3*N], m[N], ps[10*N], xe[3*N], ve[3*N], a[3*N], fp[8] = {0};
    double pp[8] = {h, 0, 0, jac, 0, 0, 0, 0};
    for (int k = 0; k < 3*N; k++) { x[k] = X[k*ns + s]; v[k] = V[k*ns + s]; }
    for (int i = 0; i < N; i++) m[i] = M[i];
    sl_prop_mvs_open(N, 1, x, v, m, ps, pp);
    double ok = 0;
    for (int t = 0; t < steps; t++) {
        ok += sl_mvs_point(HOW, N, 1, h, m, ps, xe, ve, pp);
        sl_force_newton_acc_perturb(N, 1, xe, ve, m, fp, a);
        sl_prop_mvs_apply(0, N, 1, h, x, v, m, ps, a, NULL, pp);
    }
    for (int k = 0; k < 6*N; k++) out[k*ns + s] = ps[k];
}

int main(int argc, char **argv)
{
    int ns = argc > 1 ? atoi(argv[1]) : 131072, steps = argc > 2 ? atoi(argv[2]) : 1000;
    FILE *f = fopen("tests/data/solar_system.csv", "r"); char line[1024]; double b[9][7]; int n = 0;
    while (fgets(line, sizeof line, f)) { if (line[0] == '#' || !strncmp(line, "body", 4)) continue;
        char *p = strchr(line, ',') + 1; for (int k = 0; k < 7; k++) { b[n][k] = strtod(p, &p); p++; } n++; }
    double dt = 8.0 / 365.25 * 2 * M_PI, M[NMAX];
    size_t sz = (size_t)3 * NMAX * ns;
    double *X0 = (double *)malloc(sz * 8), *V0 = (double *)malloc(sz * 8), *R[2];
    for (int i = 0; i < NMAX; i++) M[i] = b[i % 9][0] * (i >= 9 ? 0.3 : 1.0);
    for (int s = 0; s < ns; s++) for (int i = 0; i < NMAX; i++) for (int d = 0; d < 3; d++) {
        double sc = i >= 9 ? 1.37 + 0.11 * (i - 9) : 1.0;
        X0[(3*i+d)*ns + s] = b[i % 9][1+d] * (i >= 9 ? sc : 1.0);
        V0[(3*i+d)*ns + s] = b[i % 9][4+d] / (i >= 9 ? sqrt(sc) : 1.0) * (1.0 + 1e-7 * (s % 1000)); }
    double *X, *V, *Md, *O; CK(cudaMalloc(&X, sz*8)); CK(cudaMalloc(&V, sz*8)); CK(cudaMalloc(&O, 2*sz*8)); CK(cudaMalloc(&Md, NMAX*8));
    CK(cudaMemcpy(X, X0, sz*8, cudaMemcpyHostToDevice)); CK(cudaMemcpy(V, V0, sz*8, cudaMemcpyHostToDevice)); CK(cudaMemcpy(Md, M, NMAX*8, cudaMemcpyHostToDevice));
#define L(NB) if (nb == NB) { if (mode == 0) step<SL_MVS_INLINE, NB><<<(ns+127)/128, 128>>>(ns, steps, dt, jac, X, V, Md, O); \
            else step<SL_MVS_CALL, NB><<<(ns+127)/128, 128>>>(ns, steps, dt, jac, X, V, Md, O); }
    const int nbs[4] = {6, 7, 8, 8};
    for (int q = 0; q < 3; q++) { int nb = nbs[q];
    for (int jac = 0; jac < 2; jac++)
    for (int mode = 0; mode < 2; mode++) {
        float best = 1e30f;
        for (int rep = 0; rep < 4; rep++) {
            cudaEvent_t a, z; cudaEventCreate(&a); cudaEventCreate(&z);
            cudaEventRecord(a);
            L(6) L(7) L(8)
            CK(cudaGetLastError()); cudaEventRecord(z); CK(cudaEventSynchronize(z));
            float ms; cudaEventElapsedTime(&ms, a, z); if (rep > 0 && ms < best) best = ms;
        }
        R[mode] = (double *)malloc(2*sz * 8); CK(cudaMemcpy(R[mode], O, 2*sz*8, cudaMemcpyDeviceToHost));
        printf("N=%2d %s %-8s %8.2f ms  %.3e system-steps/s\n", nb, jac ? "jacobi" : "dh    ", mode ? "call" : "inline", best, (double)ns*steps/(best*1e-3));
        if (mode == 1) { double md = 0; for (size_t k = 0; k < 2*sz; k++) { double d = fabs(R[0][k]-R[1][k]); if (d > md) md = d; }
            printf("  max |inline - call| %.3e\n", md); free(R[0]); free(R[1]); }
    }
    }
    return 0;
}
