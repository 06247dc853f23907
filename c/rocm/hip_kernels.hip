/* hip_kernels: HIP kernels of different kinds, each result checked on the
 * host: static shared memory, dynamic shared memory (extern __shared__),
 * atomics (int and float atomicAdd, atomicCAS, atomicMax/Min/Exch, shared
 * memory atomics), wave shuffles (__shfl_xor, __shfl, __shfl_up/down),
 * ballots (__ballot, __popcll), 1-D partial, 2-D and 3-D grids, a struct
 * passed by value, private (scratch) arrays, doubles, <<<>>> and
 * hipLaunchKernelGGL. Usage: hip_kernels. Output and exit status: check.h. */
#include <math.h>
#include <stdint.h>

#include "hipcheck.h"

#define BLOCK 256

__global__ void reduce_static(const int *in, int *out) {
  __shared__ int s[BLOCK];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * BLOCK + t];
  __syncthreads();
  for (int w = BLOCK / 2; w > 0; w >>= 1) {
    if (t < w) s[t] += s[t + w];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

__global__ void reverse_dynamic(const float *in, float *out, int n) {
  extern __shared__ float dyn[];
  int t = threadIdx.x, base = blockIdx.x * blockDim.x;
  dyn[t] = in[base + t];
  dyn[blockDim.x + t] = 2.0f * in[base + t];
  __syncthreads();
  int r = blockDim.x - 1 - t;
  if (base + t < n) out[base + t] = dyn[r] + dyn[blockDim.x + r];
}

__global__ void atomics(int *icount, float *fsum, int *cascount, int *imax, int *imin, int *exch, int *lds_out) {
  __shared__ int local;
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) local = 0;
  __syncthreads();
  atomicAdd(icount, 1);
  atomicAdd(fsum, 0.5f);
  int old = *(volatile int *)cascount, seen;
  while ((seen = atomicCAS(cascount, old, old + 1)) != old) old = seen;
  atomicMax(imax, g * 3);
  atomicMin(imin, 1000000 - g);
  atomicExch(exch, 7);
  atomicAdd(&local, threadIdx.x + 1);
  __syncthreads();
  if (threadIdx.x == 0) lds_out[blockIdx.x] = local;
}

__global__ void shuffles(int *xor_sum, int *bcast, int *down, int *up) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % warpSize;
  int v = lane;
  for (int m = warpSize / 2; m > 0; m >>= 1) v += __shfl_xor(v, m);
  xor_sum[g] = v;
  bcast[g] = __shfl(g * 10, (lane + 1) % warpSize);
  down[g] = __shfl_down(g, 1);
  up[g] = __shfl_up(g, 2);
}

__global__ void ballots(unsigned long long *mask, int *pop, int *wsize) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % warpSize;
  unsigned long long m = __ballot(lane % 3 == 0 || g == 71);
  if (lane == 0) {
    mask[g / warpSize] = m;
    pop[g / warpSize] = __popcll(m);
  }
  if (g == 0) *wsize = warpSize;
}

__global__ void grid2d(int *out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) out[y * width + x] = x * 1000 + y;
}

__global__ void grid3d(int *out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < nx && y < ny && z < nz) out[(z * ny + y) * nx + x] = (x << 20) | (y << 10) | z;
}

__global__ void partial(int *out, int n) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g < n) out[g] = g ^ 0x5555;
}

struct params {
  int8_t a;
  double b;
  int16_t c;
  float d[3];
  uint64_t e;
};

__global__ void by_value(params p, double *out) {
  if (threadIdx.x == 0 && blockIdx.x == 0) out[0] = p.a + p.b + p.c + p.d[0] + p.d[1] + p.d[2] + (double)p.e;
}

#define SCRATCH 320
__global__ void scratch(const int *idx, int *out) {
  int a[SCRATCH];
  int g = blockIdx.x * blockDim.x + threadIdx.x, k = idx[g];
  for (int i = 0; i < SCRATCH; i++) a[i] = i * g + k;
  for (int i = 1; i < SCRATCH; i++) a[(i * k) % SCRATCH] += a[i - 1] & 1;
  out[g] = a[(k * 7) % SCRATCH];
}

__global__ void dmath(const double *in, double *out, int n) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g < n) out[g] = sqrt(in[g]) * 2.0 + 1.0 / (in[g] + 1.0);
}

/* eqi compares n ints and names the first difference. */
static int eqi(const char *name, const int *got, const int *want, int n) {
  for (int i = 0; i < n; i++)
    if (got[i] != want[i]) return check(0, name, "element %d of %d is %d, want %d", i, n, got[i], want[i]);
  return check(1, name, "%d elements", n);
}

/* run launches (the caller did) and synchronizes, recording both. */
static int launched(const char *name) {
  char n1[96], n2[96];
  snprintf(n1, sizeof n1, "%s-launch", name);
  snprintf(n2, sizeof n2, "%s-sync", name);
  return hipok(n1, hipGetLastError()) && hipok(n2, hipDeviceSynchronize());
}

template <typename T>
static T *dev(size_t n) {
  T *p = NULL;
  must("malloc", hipMalloc((void **)&p, n * sizeof(T)));
  must("memset", hipMemset(p, 0, n * sizeof(T)));
  return p;
}

template <typename T>
static void get(T *h, const T *d, size_t n) {
  must("readback", hipMemcpy(h, d, n * sizeof(T), hipMemcpyDeviceToHost));
}

int main(void) {
  watchdog("hip_kernels", 120);
  device_init();

  { /* static shared memory */
    const int blocks = 64, n = blocks * BLOCK;
    int *h = (int *)malloc(n * sizeof(int)), want[blocks], got[blocks];
    for (int i = 0; i < n; i++) h[i] = (i * 7) % 1001 - 300;
    for (int b = 0; b < blocks; b++) {
      want[b] = 0;
      for (int t = 0; t < BLOCK; t++) want[b] += h[b * BLOCK + t];
    }
    int *din = dev<int>(n), *dout = dev<int>(blocks);
    must("static-shared-upload", hipMemcpy(din, h, n * sizeof(int), hipMemcpyHostToDevice));
    begin("static-shared");
    reduce_static<<<blocks, BLOCK>>>(din, dout);
    if (launched("static-shared")) {
      get(got, dout, blocks);
      eqi("static-shared-data", got, want, blocks);
    }
    dfree(din);
    dfree(dout);
    free(h);
  }

  { /* dynamic shared memory */
    const int b = 128, n = 1000, blocks = (n + b - 1) / b;
    float *h = (float *)malloc(blocks * b * sizeof(float)), *got = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < blocks * b; i++) h[i] = (float)i * 0.25f;
    float *din = dev<float>(blocks * b), *dout = dev<float>(n);
    must("dynamic-shared-upload", hipMemcpy(din, h, blocks * b * sizeof(float), hipMemcpyHostToDevice));
    begin("dynamic-shared");
    hipLaunchKernelGGL(reverse_dynamic, dim3(blocks), dim3(b), 2 * b * sizeof(float), 0, din, dout, n);
    if (launched("dynamic-shared")) {
      get(got, dout, n);
      int bad = -1;
      for (int i = 0; i < n && bad < 0; i++) {
        int base = i / b * b, r = b - 1 - (i - base);
        if (got[i] != 3.0f * h[base + r]) bad = i;
      }
      check(bad < 0, "dynamic-shared-data", bad < 0 ? "%d elements" : "element %d wrong", bad < 0 ? n : bad);
    }
    dfree(din);
    dfree(dout);
    free(h);
    free(got);
  }

  { /* atomics */
    const int blocks = 64, threads = blocks * BLOCK;
    int *ic = dev<int>(1), *cas = dev<int>(1), *mx = dev<int>(1), *mn = dev<int>(1), *ex = dev<int>(1),
        *lds = dev<int>(blocks);
    float *fs = dev<float>(1);
    int big = 1 << 30;
    must("atomics-init", hipMemcpy(mn, &big, sizeof big, hipMemcpyHostToDevice));
    begin("atomics");
    atomics<<<blocks, BLOCK>>>(ic, fs, cas, mx, mn, ex, lds);
    if (launched("atomics")) {
      int v;
      float f;
      int l[blocks], wl[blocks];
      get(&v, ic, 1);
      check(v == threads, "atomic-add-int", "%d, want %d", v, threads);
      get(&f, fs, 1);
      check(f == 0.5f * threads, "atomic-add-float", "%g, want %g", f, 0.5f * threads);
      get(&v, cas, 1);
      check(v == threads, "atomic-cas", "%d increments, want %d", v, threads);
      get(&v, mx, 1);
      check(v == (threads - 1) * 3, "atomic-max", "%d, want %d", v, (threads - 1) * 3);
      get(&v, mn, 1);
      check(v == 1000000 - (threads - 1), "atomic-min", "%d, want %d", v, 1000000 - (threads - 1));
      get(&v, ex, 1);
      check(v == 7, "atomic-exch", "%d, want 7", v);
      get(l, lds, blocks);
      for (int b = 0; b < blocks; b++) wl[b] = BLOCK * (BLOCK + 1) / 2;
      eqi("atomic-add-shared", l, wl, blocks);
    }
    dfree(ic);
    dfree(cas);
    dfree(mx);
    dfree(mn);
    dfree(ex);
    dfree(lds);
    dfree(fs);
  }

  { /* shuffles */
    const int n = 4 * BLOCK;
    int *xs = dev<int>(n), *bc = dev<int>(n), *dn = dev<int>(n), *up = dev<int>(n);
    begin("shuffle");
    shuffles<<<4, BLOCK>>>(xs, bc, dn, up);
    if (launched("shuffle")) {
      int *got = (int *)malloc(n * sizeof(int)), *want = (int *)malloc(n * sizeof(int));
      get(got, xs, n);
      for (int i = 0; i < n; i++) want[i] = 63 * 64 / 2;
      eqi("shfl-xor", got, want, n);
      get(got, bc, n);
      for (int i = 0; i < n; i++) want[i] = (i / 64 * 64 + (i % 64 + 1) % 64) * 10;
      eqi("shfl", got, want, n);
      get(got, dn, n);
      for (int i = 0; i < n; i++) want[i] = i % 64 == 63 ? i : i + 1;
      eqi("shfl-down", got, want, n);
      get(got, up, n);
      for (int i = 0; i < n; i++) want[i] = i % 64 < 2 ? i : i - 2;
      eqi("shfl-up", got, want, n);
      free(got);
      free(want);
    }
    dfree(xs);
    dfree(bc);
    dfree(dn);
    dfree(up);
  }

  { /* ballots */
    const int waves = 4;
    unsigned long long *m = dev<unsigned long long>(waves);
    int *pop = dev<int>(waves), *ws = dev<int>(1);
    begin("ballot");
    ballots<<<2, 128>>>(m, pop, ws);
    if (launched("ballot")) {
      unsigned long long got[waves];
      int p[waves], w;
      get(got, m, waves);
      get(p, pop, waves);
      get(&w, ws, 1);
      check(w == 64, "ballot-warpsize", "warpSize %d in the kernel", w);
      for (int i = 0; i < waves; i++) {
        unsigned long long want = 0;
        for (int l = 0; l < 64; l++)
          if (l % 3 == 0 || i * 64 + l == 71) want |= 1ull << l;
        char name[32];
        snprintf(name, sizeof name, "ballot-wave-%d", i);
        check(got[i] == want, name, "%#llx, want %#llx", got[i], want);
        snprintf(name, sizeof name, "popc-wave-%d", i);
        check(p[i] == __builtin_popcountll(want), name, "%d, want %d", p[i], __builtin_popcountll(want));
      }
    }
    dfree(m);
    dfree(pop);
    dfree(ws);
  }

  { /* 2-D grid with partial blocks */
    const int w = 7 * 16 - 5, hgt = 5 * 8 - 3;
    int *d = dev<int>(w * hgt);
    begin("grid-2d");
    hipLaunchKernelGGL(grid2d, dim3(7, 5), dim3(16, 8), 0, 0, d, w, hgt);
    if (launched("grid-2d")) {
      int *got = (int *)malloc(w * hgt * sizeof(int)), *want = (int *)malloc(w * hgt * sizeof(int));
      get(got, d, w * hgt);
      for (int y = 0; y < hgt; y++)
        for (int x = 0; x < w; x++) want[y * w + x] = x * 1000 + y;
      eqi("grid-2d-data", got, want, w * hgt);
      free(got);
      free(want);
    }
    dfree(d);
  }

  { /* 3-D grid */
    const int nx = 3 * 4, ny = 4 * 4, nz = 5 * 4 - 1, n = nx * ny * nz;
    int *d = dev<int>(n);
    begin("grid-3d");
    grid3d<<<dim3(3, 4, 5), dim3(4, 4, 4)>>>(d, nx, ny, nz);
    if (launched("grid-3d")) {
      int *got = (int *)malloc(n * sizeof(int)), *want = (int *)malloc(n * sizeof(int));
      get(got, d, n);
      for (int z = 0; z < nz; z++)
        for (int y = 0; y < ny; y++)
          for (int x = 0; x < nx; x++) want[(z * ny + y) * nx + x] = (x << 20) | (y << 10) | z;
      eqi("grid-3d-data", got, want, n);
      free(got);
      free(want);
    }
    dfree(d);
  }

  { /* a 1-D grid with a partial last block, and a large grid */
    const int n = (1 << 20) + 77;
    int *d = dev<int>(n);
    begin("grid-1d");
    partial<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(d, n);
    if (launched("grid-1d")) {
      int *got = (int *)malloc(n * sizeof(int)), *want = (int *)malloc(n * sizeof(int));
      get(got, d, n);
      for (int i = 0; i < n; i++) want[i] = i ^ 0x5555;
      eqi("grid-1d-data", got, want, n);
      free(got);
      free(want);
    }
    dfree(d);
  }

  { /* a struct by value */
    params p = {-3, 1.5, 300, {0.25f, 0.5f, 0.125f}, 1ull << 40};
    double *d = dev<double>(1), got = 0, want = -3 + 1.5 + 300 + 0.25 + 0.5 + 0.125 + (double)(1ull << 40);
    begin("by-value");
    by_value<<<1, 64>>>(p, d);
    if (launched("by-value")) {
      get(&got, d, 1);
      check(got == want, "by-value-data", "%.17g, want %.17g", got, want);
    }
    dfree(d);
  }

  { /* private arrays (scratch) */
    const int n = 2 * BLOCK;
    int hidx[n], want[n], got[n];
    for (int i = 0; i < n; i++) {
      int k = hidx[i] = (i * 37 + 11) % 200, a[SCRATCH];
      for (int j = 0; j < SCRATCH; j++) a[j] = j * i + k;
      for (int j = 1; j < SCRATCH; j++) a[(j * k) % SCRATCH] += a[j - 1] & 1;
      want[i] = a[(k * 7) % SCRATCH];
    }
    int *di = dev<int>(n), *dout = dev<int>(n);
    must("scratch-upload", hipMemcpy(di, hidx, sizeof hidx, hipMemcpyHostToDevice));
    begin("scratch");
    scratch<<<2, BLOCK>>>(di, dout);
    if (launched("scratch")) {
      get(got, dout, n);
      eqi("scratch-data", got, want, n);
    }
    dfree(di);
    dfree(dout);
  }

  { /* doubles */
    const int n = 1000;
    double h[n], got[n];
    for (int i = 0; i < n; i++) h[i] = i * 1.75 + 0.5;
    double *din = dev<double>(n), *dout = dev<double>(n);
    must("double-upload", hipMemcpy(din, h, sizeof h, hipMemcpyHostToDevice));
    begin("double");
    dmath<<<(n + 127) / 128, 128>>>(din, dout, n);
    if (launched("double")) {
      get(got, dout, n);
      int bad = -1;
      for (int i = 0; i < n && bad < 0; i++) {
        double want = sqrt(h[i]) * 2.0 + 1.0 / (h[i] + 1.0);
        if (fabs(got[i] - want) > 1e-12 * fabs(want)) bad = i;
      }
      check(bad < 0, "double-data", bad < 0 ? "%d elements" : "element %d wrong", bad < 0 ? n : bad);
    }
    dfree(din);
    dfree(dout);
  }
  return finish();
}
