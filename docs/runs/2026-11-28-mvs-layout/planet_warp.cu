// Experiment (2026-11-28): + a warp per planet (the transposed layout). mvs (democratic heliocentric, no corrector, Newton) for the
// Sun + 8 planets with a thread per planet (8 lanes a system) against the
// one-thread step of the project (drift called). Not part of the project.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "starling/kepler_drift.h"
#include "starling/launch.h"
#include "../../../integrators/mvs/mvs.h"
#include "../../../forces/newton/newton.h"
#define N 9
#define G 8
#define FULL 0xffffffffu
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void one(int ns, int steps, double h, const double *X, const double *V, const double *M, double *out)
{
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= ns) return;
    double x[3*N], v[3*N], m[N], ps[10*N], xe[3*N], ve[3*N], a[3*N], fp[8] = {0};
    double pp[8] = {h, 0, 0, 0, 0, 0, 0, 0};
    for (int k = 0; k < 3*N; k++) { x[k] = X[k*ns + s]; v[k] = V[k*ns + s]; }
    for (int i = 0; i < N; i++) m[i] = M[i];
    sl_prop_mvs_open(N, 1, x, v, m, ps, pp);
    for (int t = 0; t < steps; t++) {
        sl_mvs_point(SL_MVS_CALL, N, 1, h, m, ps, xe, ve, pp);
        sl_force_newton_acc_perturb(N, 1, xe, ve, m, fp, a);
        sl_prop_mvs_apply(0, N, 1, h, x, v, m, ps, a, NULL, pp);
    }
    for (int k = 0; k < 6*N; k++) out[k*ns + s] = ps[k];
}

__device__ __forceinline__ double gsum(double x)
{
    for (int o = G / 2; o > 0; o >>= 1) x += __shfl_xor_sync(FULL, x, o, G);
    return x;
}

__global__ void grp(int ns, int steps, double h, const double *X, const double *V, const double *M, double *out)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x, s = tid / G, p = tid % G + 1;
    if (s >= ns) return; /* ns * G a multiple of 32: whole warps leave */
    const double m0 = M[0], mi = M[p];
    double q[3], u[3], w[3];
    /* DH: Q_i = x_i - x_0, V_i = v_i - V_com */
    double mt = gsum(mi) + m0;
    for (int d = 0; d < 3; d++) {
        double vc = (gsum(mi * V[(3*p+d)*ns + s]) + m0 * V[d*ns + s]) / mt;
        q[d] = X[(3*p+d)*ns + s] - X[d*ns + s];
        u[d] = V[(3*p+d)*ns + s] - vc;
    }
    double pend = 0.0;
    for (int t = 0; t < steps; t++) {
        sl_kepler_drift(m0, pend + 0.5 * h, q, u);
        for (int d = 0; d < 3; d++) w[d] = gsum(mi * u[d]) / m0;
        for (int d = 0; d < 3; d++) q[d] += 0.5 * h * w[d];
        double ax = 0, ay = 0, az = 0;
#pragma unroll
        for (int j = 0; j < G; j++) {
            double dx = __shfl_sync(FULL, q[0], j, G) - q[0];
            double dy = __shfl_sync(FULL, q[1], j, G) - q[1];
            double dz = __shfl_sync(FULL, q[2], j, G) - q[2];
            double rinv = SL_RSQRT(dx * dx + dy * dy + dz * dz);
            double f = j + 1 == p ? 0.0 : M[j + 1] * rinv * rinv * rinv;
            ax += f * dx, ay += f * dy, az += f * dz;
        }
        u[0] += h * ax, u[1] += h * ay, u[2] += h * az;
        for (int d = 0; d < 3; d++) w[d] = gsum(mi * u[d]) / m0;
        for (int d = 0; d < 3; d++) q[d] += 0.5 * h * w[d];
        pend = 0.5 * h;
    }
    for (int d = 0; d < 3; d++) { out[(3*p+d)*ns + s] = q[d]; out[(3*N+3*p+d)*ns + s] = u[d]; }
}

/* transposed: a block is 8 warps x 32 systems; warp w is planet w + 1 of the
 * block's 32 systems, so a warp's lanes drift the same planet (they
 * converge together) and a thread holds one planet. */
#define NB 32
__global__ void __launch_bounds__(256) tr(int ns, int steps, double h, const double *X, const double *V, const double *M, double *out)
{
    __shared__ double bj1[G][3][NB], bq[G][3][NB], bj2[G][3][NB];
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5, p = w + 1;
    int s = blockIdx.x * NB + lane;
    int sc = s < ns ? s : ns - 1;
    const double m0 = M[0], mi = M[p];
    double mt = m0;
    for (int j = 1; j <= G; j++) mt += M[j];
    double q[3], u[3];
    for (int d = 0; d < 3; d++) bj1[w][d][lane] = mi * V[(3*p+d)*ns + sc];
    __syncthreads();
    for (int d = 0; d < 3; d++) {
        double sm = 0; for (int j = 0; j < G; j++) sm += bj1[j][d][lane];
        double vc = (sm + m0 * V[d*ns + sc]) / mt;
        q[d] = X[(3*p+d)*ns + sc] - X[d*ns + sc];
        u[d] = V[(3*p+d)*ns + sc] - vc;
    }
    __syncthreads();
    double pend = 0.0;
    for (int t = 0; t < steps; t++) {
        sl_kepler_drift(m0, pend + 0.5 * h, q, u);
        for (int d = 0; d < 3; d++) bj1[w][d][lane] = mi * u[d];
        __syncthreads();
        for (int d = 0; d < 3; d++) {
            double sm = 0; for (int j = 0; j < G; j++) sm += bj1[j][d][lane];
            q[d] += 0.5 * h * (sm / m0);
            bq[w][d][lane] = q[d];
        }
        __syncthreads();
        double ax = 0, ay = 0, az = 0;
#pragma unroll
        for (int j = 0; j < G; j++) {
            double dx = bq[j][0][lane] - q[0];
            double dy = bq[j][1][lane] - q[1];
            double dz = bq[j][2][lane] - q[2];
            double rinv = SL_RSQRT(dx * dx + dy * dy + dz * dz);
            double f = j == w ? 0.0 : M[j + 1] * rinv * rinv * rinv;
            ax += f * dx, ay += f * dy, az += f * dz;
        }
        u[0] += h * ax, u[1] += h * ay, u[2] += h * az;
        for (int d = 0; d < 3; d++) bj2[w][d][lane] = mi * u[d];
        __syncthreads();
        for (int d = 0; d < 3; d++) {
            double sm = 0; for (int j = 0; j < G; j++) sm += bj2[j][d][lane];
            q[d] += 0.5 * h * (sm / m0);
        }
        pend = 0.5 * h;
    }
    if (s < ns)
        for (int d = 0; d < 3; d++) { out[(3*p+d)*ns + s] = q[d]; out[(3*N+3*p+d)*ns + s] = u[d]; }
}

int main(int argc, char **argv)
{
    int ns = argc > 1 ? atoi(argv[1]) : 131072, steps = argc > 2 ? atoi(argv[2]) : 1000;
    FILE *f = fopen("tests/data/solar_system.csv", "r"); char line[1024]; double b[9][7]; int n = 0;
    while (fgets(line, sizeof line, f)) { if (line[0] == '#' || !strncmp(line, "body", 4)) continue;
        char *p = strchr(line, ',') + 1; for (int k = 0; k < 7; k++) { b[n][k] = strtod(p, &p); p++; } n++; }
    double dt = 8.0 / 365.25 * 2 * M_PI, M[N];
    size_t sz = (size_t)3 * N * ns;
    double *X0 = (double *)malloc(sz * 8), *V0 = (double *)malloc(sz * 8), *R[2];
    for (int i = 0; i < N; i++) M[i] = b[i][0];
    for (int s = 0; s < ns; s++) for (int i = 0; i < N; i++) for (int d = 0; d < 3; d++) {
        X0[(3*i+d)*ns + s] = b[i][1+d];
        V0[(3*i+d)*ns + s] = b[i][4+d] * (1.0 + 1e-7 * (s % 1000)); }
    double *X, *V, *Md, *O; CK(cudaMalloc(&X, sz*8)); CK(cudaMalloc(&V, sz*8)); CK(cudaMalloc(&O, 2*sz*8)); CK(cudaMalloc(&Md, N*8));
    CK(cudaMemcpy(X, X0, sz*8, cudaMemcpyHostToDevice)); CK(cudaMemcpy(V, V0, sz*8, cudaMemcpyHostToDevice)); CK(cudaMemcpy(Md, M, N*8, cudaMemcpyHostToDevice));
    double *R3[3]; for (int mode = 0; mode < 3; mode++) {
        float best = 1e30f;
        for (int rep = 0; rep < 4; rep++) {
            CK(cudaMemset(O, 0, 2*sz*8));
            cudaEvent_t a, z; cudaEventCreate(&a); cudaEventCreate(&z);
            cudaEventRecord(a);
            if (mode == 0) one<<<(ns+127)/128, 128>>>(ns, steps, dt, X, V, Md, O);
            else if (mode == 1) grp<<<(ns*G+127)/128, 128>>>(ns, steps, dt, X, V, Md, O);
            else tr<<<(ns+NB-1)/NB, 256>>>(ns, steps, dt, X, V, Md, O);
            CK(cudaGetLastError()); cudaEventRecord(z); CK(cudaEventSynchronize(z));
            float ms; cudaEventElapsedTime(&ms, a, z); if (rep > 0 && ms < best) best = ms;
        }
        R3[mode] = (double *)malloc(2*sz * 8); CK(cudaMemcpy(R3[mode], O, 2*sz*8, cudaMemcpyDeviceToHost));
        printf("%-32s %8.2f ms  %.3e system-steps/s\n", mode == 0 ? "one thread, drift called" : mode == 1 ? "thread per planet (G=8)" : "warp per planet (transposed)", best, (double)ns*steps/(best*1e-3));
    }
    if (argc > 3) { FILE *df = fopen(argv[3], "wb"); fwrite(R3[0], 8, 2*sz, df); fwrite(R3[2], 8, 2*sz, df); fclose(df); }
    for (int cmpm = 1; cmpm < 3; cmpm++) { R[0] = R3[0]; R[1] = R3[cmpm];
    double md = 0, mv = 0, ma = 0, qat = 0;
    for (int i = 1; i < N; i++) for (int d = 0; d < 3; d++) for (int s = 0; s < ns; s++) {
        size_t kq = (size_t)(3*i+d)*ns + s, kv = (size_t)(3*N+3*i+d)*ns + s;
        double dq = fabs(R[0][kq]-R[1][kq]) / fabs(R[0][kq] + 1e-30), dv = fabs(R[0][kv]-R[1][kv]);
        if (dq > md) { md = dq; qat = R[0][kq]; } if (dv > mv) mv = dv;
        if (fabs(R[0][kq]-R[1][kq]) > ma) ma = fabs(R[0][kq]-R[1][kq]); }
    printf("max abs |dQ| %.3e; the worst relative one is on a Q of %.3e\n", ma, qat);
    printf("planets' Q, V: max rel |dQ| %.3e, max |dV| %.3e (after %d steps)\n", md, mv, steps);
    printf("sample Q_1x: one %.17g other %.17g\n", R[0][(size_t)3*ns], R[1][(size_t)3*ns]); }
    return 0;
}
