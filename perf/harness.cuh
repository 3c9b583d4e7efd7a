#pragma once
// What rk_perf (the suite in rk_perf.cu, the tuning sweep in sweep.cu) and its CUB peer
// (cub_peer.cu) share: CUDA owners, the device facts a report starts with, the input pool and its
// rotation, CUB's two-phase sum, the read-bandwidth probe, measurements and the Markdown/JSON
// output. rk_perf.cu's header describes the method.
//
// No rk header here: the peer compiles this file against another CCCL than rk_perf does, and one
// binary never mixes two CCCL versions. What needs rk lives in rk_cases.cuh.

#include "commit.hpp"
#include "cuda_check.cuh"
#include "inputs.cuh"
#include "trials.cuh"

#include <cub/device/device_reduce.cuh>
#include <thrust/execution_policy.h>
#include <thrust/tabulate.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iomanip>
#include <iostream>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <typeindex>
#include <vector>

namespace rk_perf
{
// ---------------------------------------------------------------------------------------------
// CUDA owners

/// Owns one cudaMalloc allocation.
class device_buffer
{
public:
  device_buffer() = default;
  /// Allocates `bytes`; throws on any failure.
  explicit device_buffer(std::size_t bytes);
  /// Allocates `bytes`, or returns an empty buffer if the device is out of memory.
  static device_buffer try_allocate(std::size_t bytes);

  device_buffer(device_buffer&& other) noexcept;
  device_buffer& operator=(device_buffer&& other) noexcept;
  device_buffer(const device_buffer&)            = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  ~device_buffer();

  void* get() const noexcept
  {
    return data_;
  }
  std::size_t bytes() const noexcept
  {
    return bytes_;
  }
  explicit operator bool() const noexcept
  {
    return data_ != nullptr;
  }

private:
  void* data_        = nullptr;
  std::size_t bytes_ = 0;
};

/// Owns one cudaMallocHost allocation (pinned, so cudaMemcpyAsync into it is truly asynchronous).
class pinned_buffer
{
public:
  explicit pinned_buffer(std::size_t bytes);
  pinned_buffer(const pinned_buffer&)            = delete;
  pinned_buffer& operator=(const pinned_buffer&) = delete;
  ~pinned_buffer();

  void* get() const noexcept
  {
    return data_;
  }

private:
  void* data_ = nullptr;
};

/// Owns a non-blocking stream: the suite's work never waits on the legacy default stream.
class stream_owner
{
public:
  stream_owner();
  stream_owner(const stream_owner&)            = delete;
  stream_owner& operator=(const stream_owner&) = delete;
  ~stream_owner();

  cudaStream_t get() const noexcept
  {
    return stream_;
  }

private:
  cudaStream_t stream_ = nullptr;
};

/// Copies `count` T from device memory to the host once the work queued on `stream` is done.
/// (A plain cudaMemcpy would not wait: it runs on the legacy default stream, which does not
/// synchronize with the suite's non-blocking stream.) For correctness checks only.
template <class T>
void copy_to_host(T* host, const T* device, std::size_t count, cudaStream_t stream)
{
  check(cudaMemcpyAsync(host, device, count * sizeof(T), cudaMemcpyDeviceToHost, stream),
        "cudaMemcpyAsync to the host");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize after a copy to the host");
}

template <class T>
T copy_to_host(const T* device_value, cudaStream_t stream)
{
  T value;
  copy_to_host(&value, device_value, 1, stream);
  return value;
}

// ---------------------------------------------------------------------------------------------
// The device and the run

struct device_info
{
  int ordinal;
  std::string name;
  int compute_capability; ///< major * 10 + minor
  int multiprocessors;
  std::size_t l2_bytes;
  std::size_t global_memory_bytes;
  int driver_version;  ///< cudaDriverGetVersion: 1000 * major + 10 * minor
  int runtime_version; ///< cudaRuntimeGetVersion, same encoding
};

device_info query_device();

/// "13.0" from 13000.
std::string cuda_version_string(int version);

/// The current UTC time, ISO 8601.
std::string utc_timestamp();

/// The CMake build type the suite was compiled with (host code is unoptimized without one).
std::string build_type();

// ---------------------------------------------------------------------------------------------
// Element types

template <class T>
struct type_traits; // name: how reports and options spell the type

// clang-format off
template <> struct type_traits<std::int32_t> { static constexpr const char* name = "int32"; };
template <> struct type_traits<std::int64_t> { static constexpr const char* name = "int64"; };
template <> struct type_traits<float>        { static constexpr const char* name = "float"; };
template <> struct type_traits<double>       { static constexpr const char* name = "double"; };
// clang-format on

/// Calls `f(type_tag<T>{})` for each T of Ts, in order.
template <class T>
struct type_tag
{
  using type = T;
};

template <class... Ts, class F>
void for_each_type(F&& f)
{
  (f(type_tag<Ts>{}), ...);
}

// ---------------------------------------------------------------------------------------------
// Inputs

/// `n`-element inputs for consecutive calls. When several copies fit in the pool, the calls
/// cycle through distinct, 256-byte-aligned slices of it; otherwise every call reads the one
/// buffer (which is then larger than L2 anyway). One object serves every implementation of a
/// case, so its cursor keeps moving and no implementation reads a slice another just warmed.
template <class T>
class input_slices
{
public:
  input_slices(const T* base, std::size_t n, std::size_t stride, std::size_t count)
      : base_(base)
      , n_(n)
      , stride_(stride)
      , count_(count)
  {}

  std::size_t size() const noexcept
  {
    return n_;
  }
  std::size_t count() const noexcept
  {
    return count_;
  }
  /// Slice 0, which the correctness checks read.
  const T* first() const noexcept
  {
    return base_;
  }
  /// The slice the next call reads.
  const T* next() noexcept
  {
    const T* slice = base_ + (cursor_ % count_) * stride_;
    ++cursor_;
    return slice;
  }

private:
  const T* base_;
  std::size_t n_;
  std::size_t stride_; ///< elements between consecutive slices
  std::size_t count_;
  std::size_t cursor_ = 0;
};

/// The device memory the suite reads: one pool of at least 512 MiB and 4x L2, filled with random
/// values of the type being measured, plus a dedicated buffer for inputs larger than the pool.
class input_pool
{
public:
  static constexpr std::size_t slice_alignment = 256;

  explicit input_pool(const device_info& device);

  /// Random inputs of `n` elements of T, or nothing if the device cannot hold them (the caller
  /// reports the skip). Invalidates the slices of earlier calls.
  template <class T>
  std::optional<input_slices<T>> prepare(std::size_t n, cudaStream_t stream);

  std::size_t pool_bytes() const noexcept
  {
    return pool_.bytes();
  }

private:
  device_buffer pool_;
  std::optional<std::type_index> pool_type_; // the type the pool's bytes hold
  device_buffer large_;                      // the input when it exceeds the pool
};

template <class T>
std::optional<input_slices<T>> input_pool::prepare(std::size_t n, cudaStream_t stream)
{
  const std::size_t bytes = n * sizeof(T);
  if (bytes <= pool_.bytes())
  {
    T* pool = static_cast<T*>(pool_.get());
    if (pool_type_ != std::type_index(typeid(T)))
    {
      fill_random(pool, pool_.bytes() / sizeof(T), stream);
      pool_type_ = std::type_index(typeid(T));
    }
    // The pool's size is a multiple of the alignment, so at least one slice fits.
    const std::size_t stride_bytes = (bytes + slice_alignment - 1) / slice_alignment * slice_alignment;
    return input_slices<T>(pool, n, stride_bytes / sizeof(T), pool_.bytes() / stride_bytes);
  }
  large_ = device_buffer{}; // free the previous large input first: the device may hold only one
  large_ = device_buffer::try_allocate(bytes);
  if (!large_)
  {
    return std::nullopt;
  }
  T* data = static_cast<T*>(large_.get());
  fill_random(data, n, stream);
  return input_slices<T>(data, n, 0, 1);
}

// ---------------------------------------------------------------------------------------------
// Baselines

/// cub::DeviceReduce::Sum with 32-bit counts where they suffice (the way most callers use it).
template <class T>
cudaError_t cub_sum(void* temp, std::size_t& temp_bytes, const T* in, T* out, std::int64_t n, cudaStream_t stream)
{
  if (n <= std::numeric_limits<int>::max())
  {
    return cub::DeviceReduce::Sum(temp, temp_bytes, in, out, static_cast<int>(n), stream);
  }
  return cub::DeviceReduce::Sum(temp, temp_bytes, in, out, n, stream);
}

template <class T>
std::size_t cub_sum_temp_bytes(std::int64_t n)
{
  std::size_t bytes = 0;
  check(cub_sum<T>(nullptr, bytes, nullptr, nullptr, n, nullptr), "cub::DeviceReduce::Sum (temp storage query)");
  return bytes;
}

/// CUB's temporary storage, allocated once before any timing for the largest case of the run.
class cub_storage
{
public:
  explicit cub_storage(std::size_t bytes)
      : buffer_(bytes > 0 ? bytes : 1)
  {}

  /// Runs CUB's sum; throws if the case needs more storage than was set aside.
  template <class T>
  void sum(const T* in, T* out, std::int64_t n, cudaStream_t stream)
  {
    std::size_t bytes = buffer_.bytes();
    check(cub_sum(buffer_.get(), bytes, in, out, n, stream), "cub::DeviceReduce::Sum");
  }

private:
  device_buffer buffer_;
};

/// The practical speed of light: a kernel that reads every byte with 16-byte loads (several in
/// flight per thread, a full wave of resident blocks) and does nothing else, plus an empty kernel
/// whose back-to-back time is the launch floor.
class read_probe
{
public:
  explicit read_probe(const device_info& device);

  /// Enqueues one read of [data, data + bytes); `data` 16-byte aligned, `bytes` a multiple of 4.
  void launch(const void* data, std::size_t bytes, cudaStream_t stream) const;
  /// Enqueues one empty kernel.
  void launch_empty(cudaStream_t stream) const;

private:
  int max_blocks_;
  device_buffer sink_; // written only if the xor of the input equals an impossible value
};

// ---------------------------------------------------------------------------------------------
// Output

/// Decimal GB/s of `bytes` read in `us` microseconds.
inline double gigabytes_per_second(double bytes, double us)
{
  return bytes / (us * 1e3);
}

/// "2^20".
std::string power_of_two(int log2);

/// "4 KiB", "512 MiB", "8 GiB".
std::string human_bytes(double bytes);

/// `value` with `decimals` digits after the point.
std::string fixed(double value, int decimals);

/// A Markdown table, columns padded so the plain text is readable too. The first `text_columns`
/// columns (names) are left-aligned, the rest (figures) right-aligned.
class markdown_table
{
public:
  markdown_table(std::vector<std::string> header, std::size_t text_columns);
  void add_row(std::vector<std::string> cells);
  void print(std::ostream& os) const;

private:
  std::vector<std::vector<std::string>> rows_; // rows_[0] is the header
  std::size_t text_columns_;
};

/// `s` as a JSON string literal.
std::string json_string(const std::string& s);

/// `values` as a JSON array of numbers.
std::string json_numbers(const std::vector<double>& values);

/// A JSON number, or null for NaN/infinity.
std::string json_number(double value);

// ---------------------------------------------------------------------------------------------
// Results

/// One implementation's figures for one (type, size).
struct measurement
{
  std::string type; ///< the table it belongs to: "int32", "int64", "float", "double"
  int log2n;
  std::string impl;
  double bytes;        ///< bytes of input one call reads
  std::string backend; ///< rk::device only: the backend rk::explain says it runs
  std::optional<timing> device;
  std::optional<timing> host;

  std::int64_t n() const noexcept
  {
    return std::int64_t{1} << log2n;
  }
  /// NaN when the device time was not measured.
  double gbps() const;
};

std::string to_json(const measurement& m);

/// The measurement of `impl` at (type, log2n), or null.
const measurement* find(const std::vector<measurement>& results, const std::string& type, int log2n,
                        const std::string& impl);

/// Counts results that disagree with their reference and reports each one loudly on stderr.
class check_log
{
public:
  template <class T>
  void compare(const std::string& what, const T& got, const T& want, const char* reference)
  {
    if (!results_match(got, want))
    {
      ++mismatches_;
      std::cerr << std::setprecision(17) << "MISMATCH: " << what << ": got " << got << ", expected " << want << " ("
                << reference << ")\n";
    }
  }

  int mismatches() const noexcept
  {
    return mismatches_;
  }

private:
  int mismatches_ = 0;
};

// ---------------------------------------------------------------------------------------------
// The run

/// What every measurement needs: the device, the suite's stream, the inputs, the probe, the
/// timing plan, the correctness log and the device word stream-ordered calls write.
class run_context
{
public:
  explicit run_context(const timing_plan& plan);

  const device_info device;
  const stream_owner stream;
  input_pool inputs;
  const read_probe probe;
  const timing_plan plan;
  check_log checks;

  template <class T>
  T* result() const noexcept
  {
    static_assert(sizeof(T) <= max_result_bytes, "the result word is too small for this type");
    return static_cast<T*>(result_.get());
  }

private:
  static constexpr std::size_t max_result_bytes = 16;
  device_buffer result_;
};

/// What a report says about the run besides its figures.
struct run_facts
{
  std::string commit;
  std::string date;
  double launch_floor_us;
};

/// Times the empty kernel (the launch floor) and collects the commit and the date.
run_facts collect_run_facts(run_context& ctx);

/// The report's opening lines: device, CUDA versions, date, commit, build, launch floor.
void print_run_facts(std::ostream& os, const run_context& ctx, const run_facts& facts);

/// The same facts as JSON members ("  \"device\": ...,\n" lines), for a report's top object.
std::string json_run_facts(const run_context& ctx, const run_facts& facts);

/// `results` as the members "results" of a JSON object.
std::string json_results(const std::vector<measurement>& results);

/// CUB's two-phase sum of slice 0 (the reference results are checked against).
template <class T>
T cub_result(run_context& ctx, cub_storage& cub, const input_slices<T>& in)
{
  cub.sum(in.first(), ctx.result<T>(), static_cast<std::int64_t>(in.size()), ctx.stream.get());
  return copy_to_host(ctx.result<T>(), ctx.stream.get());
}

/// CUB's two-phase sum, each call on the next slice.
template <class T>
contender cub_contender(run_context& ctx, cub_storage& cub, input_slices<T>& in, std::string name)
{
  return {std::move(name), [&ctx, &cub, &in] {
            cub.sum(in.next(), ctx.result<T>(), static_cast<std::int64_t>(in.size()), ctx.stream.get());
          }};
}

/// The read probe, each call on the next slice.
template <class T>
contender probe_contender(run_context& ctx, input_slices<T>& in, std::string name = "probe")
{
  return {std::move(name), [&ctx, &in] { ctx.probe.launch(in.next(), in.size() * sizeof(T), ctx.stream.get()); }};
}

/// A measurement of `impl` for `n` = 2^log2n elements of T, with nothing timed yet.
template <class T>
measurement make_measurement(const std::string& type, int log2n, const std::string& impl)
{
  return measurement{type,        log2n,
                     impl,        static_cast<double>(sizeof(T)) * static_cast<double>(std::int64_t{1} << log2n),
                     {},          std::nullopt,
                     std::nullopt};
}

/// Times `contenders` in interleaved trials (time_interleaved) and returns one measurement per
/// contender, in order, named after it, for the table of `type` (whose elements are T).
template <class T>
std::vector<measurement> measure_interleaved(run_context& ctx, const std::string& type, int log2n,
                                             const std::vector<contender>& contenders)
{
  std::vector<timing> timings = time_interleaved(ctx.stream.get(), ctx.plan, contenders);
  std::vector<measurement> rows;
  for (std::size_t c = 0; c < contenders.size(); ++c)
  {
    rows.push_back(make_measurement<T>(type, log2n, contenders[c].name));
    rows.back().device = std::move(timings[c]);
  }
  return rows;
}

/// "int32 2^20 rk::two_pass": how progress and mismatch lines name a case.
std::string case_name(const std::string& type, int log2n, const std::string& impl);

/// Random inputs of 2^log2n elements of T from `ctx.inputs`, announced on stderr; or nothing,
/// with a note on stderr, if the device cannot hold them.
template <class T>
std::optional<input_slices<T>> prepare_case(run_context& ctx, int log2n)
{
  const double bytes = static_cast<double>(sizeof(T)) * static_cast<double>(std::int64_t{1} << log2n);
  auto in            = ctx.inputs.prepare<T>(std::size_t{1} << log2n, ctx.stream.get());
  if (!in)
  {
    std::cerr << "rk_perf: skipping " << type_traits<T>::name << " " << power_of_two(log2n) << ": cudaMalloc of "
              << human_bytes(bytes) << " failed (out of memory)\n";
    return in;
  }
  std::cerr << "rk_perf: " << type_traits<T>::name << " " << power_of_two(log2n) << " (" << human_bytes(bytes) << ", "
            << (in->count() == 1 ? std::string("one buffer") : std::to_string(in->count()) + " rotating slices")
            << ")\n";
  return in;
}

/// The largest CUB temporary storage a sum of T needs over the sizes 2^log2 of `log2_sizes`.
template <class T>
std::size_t cub_temp_bytes_for(const std::vector<int>& log2_sizes)
{
  std::size_t most = 0;
  for (const int log2 : log2_sizes)
  {
    most = std::max(most, cub_sum_temp_bytes<T>(std::int64_t{1} << log2));
  }
  return most;
}
} // namespace rk_perf
