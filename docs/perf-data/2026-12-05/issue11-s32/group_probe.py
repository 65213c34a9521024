"""Probe: does a thread that owns G contiguous bytes of each stream (packed short rows) lose
to a warp that loads the warp's 32*G bytes in 16-byte pieces through shared memory?

Two inputs read, one output written (the shape of RMSNorm backward's x, dy -> dx), each
stream `BYTES` long. Variants per G:
  direct : each thread loads its G bytes of x and dy in the widest aligned pieces, writes G.
  warp   : each warp loads its 32*G bytes in 16-byte pieces (coalesced) into shared memory,
           each thread reads its G bytes there, writes its result there, the warp stores
           32*G bytes in 16-byte pieces.
  copy   : a 16-byte grid-stride kernel with the same three streams.
Timed like do_bench: a 256 MiB memset before each call, CUDA events, median of 100.
"""
import sys
import cupy as cp
import numpy as np

BYTES = 3 * 2**25 * 2 // 2 * 2  # ~100 MiB a stream (rounded below to 32*G multiples)
SRC = r'''
#define G %(G)d
#define PW %(PW)d          // direct piece width in bytes (16 or 8 or 4)
template<int W> struct P;
template<> struct P<16> { typedef uint4 T; };
template<> struct P<8>  { typedef uint2 T; };
template<> struct P<4>  { typedef unsigned T; };
typedef P<PW>::T T;
__device__ __forceinline__ unsigned f(unsigned a, unsigned b) { return a * 3u + b; }
// A byte copy nvrtc compiles to register moves (no <cstring> under nvrtc).
__device__ __forceinline__ void memcpy_(void* d, const void* s, int n) {
  for (int i = 0; i < n / 4; i++) ((unsigned*)d)[i] = ((const unsigned*)s)[i];
}

extern "C" __global__ void direct(const char* __restrict__ x, const char* __restrict__ dy,
                                   char* __restrict__ out, long long ngroups) {
  const int NP = G / PW;
  for (long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x; g < ngroups;
       g += (long long)gridDim.x * blockDim.x) {
    const T* px = (const T*)(x + g * G); const T* pd = (const T*)(dy + g * G);
    T* po = (T*)(out + g * G);
    unsigned a[G / 4], b[G / 4];
#pragma unroll
    for (int p = 0; p < NP; p++) {
      T va = __ldg(px + p), vb = __ldg(pd + p);
      memcpy_(&a[p * PW / 4], &va, PW); memcpy_(&b[p * PW / 4], &vb, PW);
    }
    unsigned s = 0;
#pragma unroll
    for (int i = 0; i < G / 4; i++) s += a[i] ^ b[i];
#pragma unroll
    for (int i = 0; i < G / 4; i++) a[i] = f(a[i], b[i]) + s;
#pragma unroll
    for (int p = 0; p < NP; p++) { T v; memcpy_(&v, &a[p * PW / 4], PW); po[p] = v; }
  }
}

// A warp's span is 32*G bytes; Q = ceil(32*G/512) 16-byte pieces a lane.
extern "C" __global__ void warp(const char* __restrict__ x, const char* __restrict__ dy,
                                 char* __restrict__ out, long long ngroups) {
  const int SPAN = 32 * G, Q = (SPAN + 511) / 512, NP = G / PW;
  extern __shared__ __align__(16) char sm[];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  char* sx = sm + w * 2 * SPAN; char* sd = sx + SPAN;
  long long nw = ngroups / 32;
  for (long long wg = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5; wg < nw;
       wg += ((long long)gridDim.x * blockDim.x) >> 5) {
    const char* bx = x + wg * SPAN; const char* bd = dy + wg * SPAN;
    uint4 va[Q], vb[Q];
#pragma unroll
    for (int q = 0; q < Q; q++) {
      int o = (lane + 32 * q) * 16;
      if (o < SPAN) { va[q] = __ldg((const uint4*)(bx + o)); vb[q] = __ldg((const uint4*)(bd + o)); }
    }
#pragma unroll
    for (int q = 0; q < Q; q++) {
      int o = (lane + 32 * q) * 16;
      if (o < SPAN) { *(uint4*)(sx + o) = va[q]; *(uint4*)(sd + o) = vb[q]; }
    }
    __syncwarp();
    unsigned a[G / 4], b[G / 4];
#pragma unroll
    for (int p = 0; p < NP; p++) {
      T ta = *(const T*)(sx + lane * G + p * PW), tb = *(const T*)(sd + lane * G + p * PW);
      memcpy_(&a[p * PW / 4], &ta, PW); memcpy_(&b[p * PW / 4], &tb, PW);
    }
    unsigned s = 0;
#pragma unroll
    for (int i = 0; i < G / 4; i++) s += a[i] ^ b[i];
#pragma unroll
    for (int i = 0; i < G / 4; i++) a[i] = f(a[i], b[i]) + s;
    __syncwarp();
#pragma unroll
    for (int p = 0; p < NP; p++) { T v; memcpy_(&v, &a[p * PW / 4], PW); *(T*)(sx + lane * G + p * PW) = v; }
    __syncwarp();
    char* bo = out + wg * SPAN;
#pragma unroll
    for (int q = 0; q < Q; q++) {
      int o = (lane + 32 * q) * 16;
      if (o < SPAN) *(uint4*)(bo + o) = *(const uint4*)(sx + o);
    }
    __syncwarp();
  }
}

extern "C" __global__ void copy3(const uint4* __restrict__ x, const uint4* __restrict__ dy,
                                  uint4* __restrict__ out, long long n16) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n16;
       i += (long long)gridDim.x * blockDim.x) {
    uint4 a = __ldg(x + i), b = __ldg(dy + i);
    out[i] = make_uint4(a.x ^ b.x, a.y ^ b.y, a.z ^ b.z, a.w ^ b.w);
  }
}
'''

dev = cp.cuda.Device()
sms = dev.attributes['MultiProcessorCount']
name = cp.cuda.runtime.getDeviceProperties(0)['name'].decode()
flush = cp.empty(256 * 2**20, dtype=cp.uint8)


def time_it(fn, runs=100, warm=10):
    for _ in range(warm):
        fn()
    ts = []
    for _ in range(runs):
        flush.fill(1)
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record(); fn(); e.record(); e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e) * 1000.0)
    return float(np.median(ts))


rows = []
print(f"device {name}, {sms} SMs", flush=True)
for G in [int(a) for a in sys.argv[1:]] or [16, 32, 48, 56, 64, 80, 112, 128]:
    PW = 16 if G % 16 == 0 else (8 if G % 8 == 0 else 4)
    mod = cp.RawModule(code=SRC % {'G': G, 'PW': PW}, options=('-std=c++17', '-arch=sm_90'),
                       name_expressions=None)
    span = 32 * G
    nbytes = (BYTES // (span * 8)) * span * 8
    ng = nbytes // G
    x = cp.random.randint(0, 2**31, nbytes // 4, dtype=cp.uint32).view(cp.uint8)
    d = cp.random.randint(0, 2**31, nbytes // 4, dtype=cp.uint32).view(cp.uint8)
    o1 = cp.empty(nbytes, cp.uint8); o2 = cp.empty(nbytes, cp.uint8); o3 = cp.empty(nbytes, cp.uint8)
    kd, kw, kc = mod.get_function('direct'), mod.get_function('warp'), mod.get_function('copy3')
    smem = 8 * 2 * span
    kw.max_dynamic_shared_size_bytes = smem
    res = {}
    for blocks_per_sm in (4, 8):
        grid = sms * blocks_per_sm
        res[f'direct/{blocks_per_sm}'] = time_it(lambda: kd((grid,), (256,), (x, d, o1, cp.int64(ng))))
        if smem * blocks_per_sm <= 227 * 1024:
            res[f'warp/{blocks_per_sm}'] = time_it(lambda: kw((grid,), (256,), (x, d, o2, cp.int64(ng)), shared_mem=smem))
    res['copy'] = time_it(lambda: kc((sms * 8,), (256,), (x, d, o3, cp.int64(nbytes // 16))))
    ok = bool(cp.all(o1 == o2))
    floor = 3 * nbytes / 1e6  # MB -> us at 1 TB/s... computed below
    line = f"G={G:3d} PW={PW:2d} bytes/stream={nbytes/2**20:.1f}MiB same={ok} " + " ".join(
        f"{k}={v:.1f}" for k, v in res.items())
    print(line, flush=True)
    rows.append(line)
print("\n".join(rows))
