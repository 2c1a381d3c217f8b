/* A stand-in libcuda for measuring kernellab's host side on a machine without a GPU (bench only).
   Build and use:  gcc -O2 -shared -fPIC -o /tmp/fakecuda/libcuda.so.1 bench/stand_in_libcuda.c
                   LD_LIBRARY_PATH=/tmp/fakecuda python bench/launch_overhead_cuda.py --no-check
   (also bench/cold_start.py --target cuda --no-check).  Every call succeeds; device memory is host
   memory; a launch only counts itself and keeps its first parameters; no kernel runs. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
typedef int CUresult;
static int ctx_current = 0;
static int attrs[128];
unsigned long long fake_launches = 0;
unsigned long long fake_last_params[16];
unsigned int fake_last_grid[3], fake_last_block[3];
unsigned long long fake_last_stream, fake_last_function;
CUresult cuInit(unsigned f) { (void)f;
  attrs[1]=1024; attrs[2]=1024; attrs[3]=1024; attrs[4]=64; attrs[5]=2147483647; attrs[6]=65535; attrs[7]=65535;
  attrs[8]=49152; attrs[9]=65536; attrs[10]=32; attrs[12]=65536; attrs[13]=1980000; attrs[16]=132; attrs[36]=3201000;
  attrs[37]=6144; attrs[38]=62914560; attrs[39]=2048; attrs[41]=1; attrs[75]=9; attrs[76]=0; attrs[81]=233472;
  attrs[82]=65536; attrs[97]=232448; return 0; }
CUresult cuDriverGetVersion(int *v) { *v = 13000; return 0; }
CUresult cuGetErrorName(int c, const char **s) { (void)c; *s = "CUDA_ERROR_FAKE"; return 0; }
CUresult cuGetErrorString(int c, const char **s) { (void)c; *s = "fake"; return 0; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
CUresult cuDeviceGet(int *d, int o) { *d = o; return 0; }
CUresult cuDeviceGetAttribute(int *v, int a, int d) { (void)d; *v = attrs[a & 127]; return 0; }
CUresult cuDeviceGetName(char *s, int n, int d) { (void)d; strncpy(s, "Fake H200", n); return 0; }
CUresult cuDeviceTotalMem_v2(size_t *b, int d) { (void)d; *b = (size_t)141 << 30; return 0; }
CUresult cuDevicePrimaryCtxRetain(void **c, int d) { (void)d; *c = (void *)0x1000; return 0; }
CUresult cuCtxGetCurrent(void **c) { *c = ctx_current ? (void *)0x1000 : 0; return 0; }
CUresult cuCtxSetCurrent(void *c) { ctx_current = c != 0; return 0; }
CUresult cuCtxGetDevice(int *d) { *d = 0; return 0; }
CUresult cuCtxSynchronize(void) { return 0; }
CUresult cuStreamSynchronize(void *s) { (void)s; return 0; }
CUresult cuModuleLoadDataEx(void **m, const void *img, unsigned n, int *o, void **v) { (void)img; (void)n; (void)o; (void)v; *m = malloc(8); return 0; }
CUresult cuModuleUnload(void *m) { free(m); return 0; }
CUresult cuModuleGetFunction(void **f, void *m, const char *name) { (void)m; (void)name; *f = (void *)0xF00D; return 0; }
CUresult cuFuncGetAttribute(int *v, int a, void *f) { (void)f; *v = a == 0 ? 1024 : a == 4 ? 16 : a == 6 ? 90 : 0; return 0; }
CUresult cuFuncSetAttribute(void *f, int a, int v) { (void)f; (void)a; (void)v; return 0; }
CUresult cuMemAlloc_v2(unsigned long long *p, size_t n) { *p = (unsigned long long)(uintptr_t)aligned_alloc(256, (n + 255) & ~(size_t)255); return 0; }
CUresult cuMemFree_v2(unsigned long long p) { free((void *)(uintptr_t)p); return 0; }
CUresult cuMemGetInfo_v2(size_t *f, size_t *t) { *f = (size_t)140 << 30; *t = (size_t)141 << 30; return 0; }
CUresult cuMemcpyHtoD_v2(unsigned long long d, const void *s, size_t n) { memcpy((void *)(uintptr_t)d, s, n); return 0; }
CUresult cuMemcpyDtoH_v2(void *d, unsigned long long s, size_t n) { memcpy(d, (void *)(uintptr_t)s, n); return 0; }
CUresult cuMemcpyDtoD_v2(unsigned long long d, unsigned long long s, size_t n) { memcpy((void *)(uintptr_t)d, (void *)(uintptr_t)s, n); return 0; }
CUresult cuMemsetD8_v2(unsigned long long d, unsigned char v, size_t n) { memset((void *)(uintptr_t)d, v, n); return 0; }
CUresult cuPointerGetAttribute(void *out, int a, unsigned long long p) {
  switch (a) { case 2: *(unsigned *)out = 2; break; case 3: *(unsigned long long *)out = p; break;
  case 9: *(int *)out = 0; break; case 11: *(unsigned long long *)out = p; break; case 12: *(size_t *)out = 1 << 20; break; }
  return 0; }
typedef struct { unsigned gx, gy, gz, bx, by, bz, shared; void *stream; void *attrs; unsigned nattrs; } Config;
CUresult cuLaunchKernelEx(const Config *c, void *f, void **params, void **extra) { (void)extra;
  fake_launches++; fake_last_grid[0] = c->gx; fake_last_grid[1] = c->gy; fake_last_grid[2] = c->gz;
  fake_last_block[0] = c->bx; fake_last_stream = (unsigned long long)(uintptr_t)c->stream; fake_last_function = (unsigned long long)(uintptr_t)f;
  for (int i = 0; i < 4 && params; i++) fake_last_params[i] = *(unsigned long long *)params[i];
  return 0; }
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, void *stream, void **params, void **extra) { (void)by; (void)bz; (void)shared; (void)extra;
  fake_launches++; fake_last_grid[0] = gx; fake_last_grid[1] = gy; fake_last_grid[2] = gz; fake_last_block[0] = bx;
  fake_last_stream = (unsigned long long)(uintptr_t)stream; fake_last_function = (unsigned long long)(uintptr_t)f;
  for (int i = 0; i < 4 && params; i++) fake_last_params[i] = *(unsigned long long *)params[i];
  return 0; }
/* events: the host clock when recorded (elapsed times are host times; nothing runs) */
#include <time.h>
CUresult cuEventCreate(void **e, unsigned f) { (void)f; *e = calloc(1, sizeof(double)); return 0; }
CUresult cuEventRecord(void *e, void *s) { (void)s; struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
  *(double *)e = t.tv_sec * 1e3 + t.tv_nsec / 1e6; return 0; }
CUresult cuEventSynchronize(void *e) { (void)e; return 0; }
CUresult cuEventElapsedTime(float *ms, void *a, void *b) { *ms = (float)(*(double *)b - *(double *)a); return 0; }
CUresult cuEventDestroy_v2(void *e) { free(e); return 0; }
