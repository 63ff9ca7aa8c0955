// The CUB baseline of the GPU table (issue 23): CUB's device-wide algorithms and a
// device-to-device copy (the bandwidth ceiling) on one GPU, timed with CUDA events over warm
// repetitions (the median), one tab-separated line per (algorithm, type, n) in the format of
// qd's side (benches/examples/gpu_algorithms.rs):
//
//   cub   ALGO TYPE N MEDIAN_MS INPUT_GB/s events -
//   error ALGO TYPE N MESSAGE
//
// INPUT_GB/s is n * sizeof(TYPE) bytes per second (keys and values for the pairs sort). The
// inputs match qd's in kind: random bits (u32, u64), small integers (f32, so sums are exact),
// random 0/1 flags, u32 keys in runs of 1..16.
//
//   cub_bench [--exps 20,24,28] [--types u32,f32,u64] [--reps 10]
//
// Built by benches/cuda/build.sh (SASS for sm_90, static cudart). Exit status 2 when there is
// no CUDA device.
#include <cub/cub.cuh>
#include <cuda/std/functional>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

__device__ __host__ inline uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

template <typename T> __device__ T value_of(uint64_t h);
template <> __device__ uint32_t value_of<uint32_t>(uint64_t h) { return (uint32_t)h; }
template <> __device__ uint64_t value_of<uint64_t>(uint64_t h) { return h; }
template <> __device__ float value_of<float>(uint64_t h) { return (float)(h % 1000); }

template <typename T> __global__ void fill(T* a, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    a[i] = value_of<T>(mix(seed ^ i));
}

__global__ void fill_flags(char* f, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    f[i] = (char)(mix(0xf1a9 ^ i) & 1);
}

// Keys in runs of 1..16: the run starting at i has length 1 + mix(i / 16) % 16 within each
// 16-element window, so runs end at window borders too (about 8.5 elements each).
__global__ void fill_keys(uint32_t* k, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    size_t w = i / 16, off = i % 16, len = 1 + mix(w) % 16;
    k[i] = (uint32_t)(w * 16 + off / len);
  }
}

struct Failure {
  std::string what;
};

void check(cudaError_t e, const char* call) {
  if (e != cudaSuccess) throw Failure{std::string(call) + ": " + cudaGetErrorString(e)};
}
#define CK(call) check((call), #call)

// Device memory freed at scope exit.
struct Mem {
  void* p = nullptr;
  explicit Mem(size_t bytes) { CK(cudaMalloc(&p, bytes ? bytes : 1)); }
  ~Mem() { cudaFree(p); }
  template <typename T> T* as() const { return static_cast<T*>(p); }
};

template <typename T> const char* type_name();
template <> const char* type_name<uint32_t>() { return "u32"; }
template <> const char* type_name<float>() { return "f32"; }
template <> const char* type_name<uint64_t>() { return "u64"; }

// The median event time of `reps` runs of `run` after two warm-up runs, in ms.
template <typename F> double median_ms(int reps, F run) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 2; ++i) run();
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(a));
    run();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void report(const char* algo, const char* type, size_t n, double ms, double bytes) {
  std::printf("cub\t%s\t%s\t%zu\t%.4f\t%.2f\tevents\t-\n", algo, type, n, ms, bytes / (ms * 1e-3) / 1e9);
  std::fflush(stdout);
}

// Runs `body` (which measures one algorithm) and turns a CUDA failure into an `error` line.
template <typename F> void guarded(const char* algo, const char* type, size_t n, F body) {
  try {
    body();
  } catch (const Failure& f) {
    std::printf("error\t%s\t%s\t%zu\t%s\n", algo, type, n, f.what.c_str());
    std::fflush(stdout);
    cudaGetLastError();
  }
}

// CUB's two-phase call: asks `call` for its temporary size, allocates it, and returns the median
// time of `call` with it.
template <typename F> double timed_call(int reps, F call) {
  size_t bytes = 0;
  CK(call(nullptr, bytes));
  Mem temp(bytes);
  return median_ms(reps, [&] { CK(call(temp.p, bytes)); });
}

template <typename T> void bench_type(size_t n, int reps) {
  const char* tn = type_name<T>();
  const size_t s = sizeof(T);
  Mem in(n * s), out(n * s);
  fill<T><<<1024, 256>>>(in.as<T>(), n, 0x5eed);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  guarded("copy", tn, n, [&] {
    double ms = median_ms(reps, [&] { CK(cudaMemcpyAsync(out.p, in.p, n * s, cudaMemcpyDeviceToDevice)); });
    report("copy", tn, n, ms, double(n * s));
  });
  guarded("reduce_add", tn, n, [&] {
    Mem one(s);
    double ms = timed_call(reps, [&](void* t, size_t& b) {
      return cub::DeviceReduce::Sum(t, b, in.as<T>(), one.as<T>(), (int64_t)n);
    });
    report("reduce_add", tn, n, ms, double(n * s));
  });
  guarded("exclusive_scan_add", tn, n, [&] {
    double ms = timed_call(reps, [&](void* t, size_t& b) {
      return cub::DeviceScan::ExclusiveSum(t, b, in.as<T>(), out.as<T>(), (int64_t)n);
    });
    report("exclusive_scan_add", tn, n, ms, double(n * s));
  });
  guarded("select", tn, n, [&] {
    Mem flags(n), count(sizeof(int64_t));
    fill_flags<<<1024, 256>>>(flags.as<char>(), n);
    CK(cudaGetLastError());
    double ms = timed_call(reps, [&](void* t, size_t& b) {
      return cub::DeviceSelect::Flagged(t, b, in.as<T>(), flags.as<char>(), out.as<T>(), count.as<int64_t>(), (int64_t)n);
    });
    report("select", tn, n, ms, double(n * s));
  });
  guarded("reduce_by_key_add", tn, n, [&] {
    Mem keys(n * 4), ukeys(n * 4), runs(sizeof(int64_t));
    fill_keys<<<1024, 256>>>(keys.as<uint32_t>(), n);
    CK(cudaGetLastError());
    double ms = timed_call(reps, [&](void* t, size_t& b) {
      return cub::DeviceReduce::ReduceByKey(t, b, keys.as<uint32_t>(), ukeys.as<uint32_t>(), in.as<T>(), out.as<T>(),
                                            runs.as<int64_t>(), ::cuda::std::plus<T>{}, (int64_t)n);
    });
    report("reduce_by_key_add", tn, n, ms, double(n * (s + 4)));
  });
  guarded("sort_keys", tn, n, [&] {
    double ms = timed_call(reps, [&](void* t, size_t& b) {
      return cub::DeviceRadixSort::SortKeys(t, b, in.as<T>(), out.as<T>(), (int64_t)n);
    });
    report("sort_keys", tn, n, ms, double(n * s));
  });
  guarded("sort_pairs", tn, n, [&] {
    Mem vin(n * 4), vout(n * 4);
    fill<uint32_t><<<1024, 256>>>(vin.as<uint32_t>(), n, 0xa11);
    CK(cudaGetLastError());
    double ms = timed_call(reps, [&](void* t, size_t& b) {
      return cub::DeviceRadixSort::SortPairs(t, b, in.as<T>(), out.as<T>(), vin.as<uint32_t>(), vout.as<uint32_t>(),
                                             (int64_t)n);
    });
    report("sort_pairs", tn, n, ms, double(n * (s + 4)));
  });
}

std::vector<std::string> split(const char* s) {
  std::vector<std::string> out;
  std::string cur;
  for (; *s; ++s) {
    if (*s == ',') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += *s;
    }
  }
  out.push_back(cur);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> exps = {"20", "24", "28"}, types = {"u32", "f32", "u64"};
  int reps = 10;
  for (int i = 1; i < argc; ++i) {
    if (i + 1 < argc && !std::strcmp(argv[i], "--exps")) exps = split(argv[++i]);
    else if (i + 1 < argc && !std::strcmp(argv[i], "--types")) types = split(argv[++i]);
    else if (i + 1 < argc && !std::strcmp(argv[i], "--reps")) reps = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: cub_bench [--exps 20,24,28] [--types u32,f32,u64] [--reps 10]\n");
      return 2;
    }
  }
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::fprintf(stderr, "cub_bench: no CUDA device (%s)\n", e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    return 2;
  }
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  int drv = 0, rt = 0;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  std::printf("# device\t%s\tsm_%d%d\t%d SMs\tdriver CUDA %d.%d\truntime %d.%d\tCUB %d.%d.%d\n", p.name, p.major, p.minor,
              p.multiProcessorCount, drv / 1000, (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10, CUB_MAJOR_VERSION,
              CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION);
  for (const auto& ex : exps) {
    size_t n = size_t(1) << std::atoi(ex.c_str());
    for (const auto& t : types) {
      if (t == "u32") bench_type<uint32_t>(n, reps);
      else if (t == "f32") bench_type<float>(n, reps);
      else if (t == "u64") bench_type<uint64_t>(n, reps);
      else std::fprintf(stderr, "cub_bench: unknown type %s\n", t.c_str());
    }
  }
  return 0;
}
