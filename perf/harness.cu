// The non-template half of rk_perf's shared machinery (see harness.cuh).

#include "harness.cuh"

#include <cub/version.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <utility>

#ifndef RK_PERF_BUILD_TYPE
#  define RK_PERF_BUILD_TYPE "unknown"
#endif

namespace rk_perf
{
// Destructors cannot throw; a failure to free there only follows an earlier, already reported
// (sticky) error, so they ignore the status.

device_buffer::device_buffer(std::size_t bytes)
    : bytes_(bytes)
{
  check(cudaMalloc(&data_, bytes), "cudaMalloc");
}

device_buffer device_buffer::try_allocate(std::size_t bytes)
{
  device_buffer buffer;
  const cudaError_t status = cudaMalloc(&buffer.data_, bytes);
  if (status == cudaErrorMemoryAllocation)
  {
    cudaGetLastError(); // out of memory is not sticky: clear it so later checks do not see it
    buffer.data_ = nullptr;
    return buffer;
  }
  check(status, "cudaMalloc");
  buffer.bytes_ = bytes;
  return buffer;
}

device_buffer::device_buffer(device_buffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr))
    , bytes_(std::exchange(other.bytes_, 0))
{}

device_buffer& device_buffer::operator=(device_buffer&& other) noexcept
{
  if (this != &other)
  {
    static_cast<void>(cudaFree(data_));
    data_  = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

device_buffer::~device_buffer()
{
  static_cast<void>(cudaFree(data_));
}

pinned_buffer::pinned_buffer(std::size_t bytes)
{
  check(cudaMallocHost(&data_, bytes), "cudaMallocHost");
}

pinned_buffer::~pinned_buffer()
{
  static_cast<void>(cudaFreeHost(data_));
}

stream_owner::stream_owner()
{
  check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
}

stream_owner::~stream_owner()
{
  static_cast<void>(cudaStreamDestroy(stream_));
}

// ---------------------------------------------------------------------------------------------

device_info query_device()
{
  device_info info{};
  // Say plainly when there is nothing to measure on: a machine without a GPU (or without a
  // driver) otherwise fails with CUDA's less telling "driver version is insufficient".
  int devices               = 0;
  const cudaError_t counted = cudaGetDeviceCount(&devices);
  if (counted != cudaSuccess || devices == 0)
  {
    throw std::runtime_error(std::string("no usable CUDA GPU on this machine (cudaGetDeviceCount: ")
                             + (counted != cudaSuccess ? cudaGetErrorString(counted) : "0 devices")
                             + "): the perf suite needs an NVIDIA GPU and its driver");
  }
  check(cudaGetDevice(&info.ordinal), "cudaGetDevice");
  cudaDeviceProp properties{};
  check(cudaGetDeviceProperties(&properties, info.ordinal), "cudaGetDeviceProperties");
  info.name                = properties.name;
  info.compute_capability  = properties.major * 10 + properties.minor;
  info.multiprocessors     = properties.multiProcessorCount;
  info.global_memory_bytes = properties.totalGlobalMem;
  int l2_bytes             = 0;
  check(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, info.ordinal), "cudaDeviceGetAttribute(L2)");
  info.l2_bytes = static_cast<std::size_t>(l2_bytes);
  check(cudaDriverGetVersion(&info.driver_version), "cudaDriverGetVersion");
  check(cudaRuntimeGetVersion(&info.runtime_version), "cudaRuntimeGetVersion");
  return info;
}

std::string cuda_version_string(int version)
{
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string utc_timestamp()
{
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string build_type()
{
  return RK_PERF_BUILD_TYPE;
}

// ---------------------------------------------------------------------------------------------

namespace
{
/// The pool is at least this large, and at least this many times L2: rotating over it means a
/// slice has left L2 long before it is read again.
constexpr std::size_t min_pool_bytes = std::size_t{512} << 20;
constexpr std::size_t pool_l2_factor = 4;

std::size_t pool_size_for(const device_info& device)
{
  const std::size_t wanted = std::max(min_pool_bytes, pool_l2_factor * device.l2_bytes);
  return (wanted + input_pool::slice_alignment - 1) / input_pool::slice_alignment * input_pool::slice_alignment;
}
} // namespace

input_pool::input_pool(const device_info& device)
    : pool_(pool_size_for(device))
{}

// ---------------------------------------------------------------------------------------------

namespace
{
constexpr int probe_threads         = 256;
constexpr int probe_loads_in_flight = 4;

__device__ __forceinline__ uint4 xor4(uint4 a, uint4 b)
{
  return make_uint4(a.x ^ b.x, a.y ^ b.y, a.z ^ b.z, a.w ^ b.w);
}

__global__ void __launch_bounds__(probe_threads)
  read_probe_kernel(const uint4* vectors, std::size_t vector_count, const std::uint32_t* tail, unsigned tail_words,
                    uint4 impossible, uint4* sink)
{
  const std::size_t thread = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  uint4 acc                = make_uint4(0, 0, 0, 0);
  std::size_t i            = thread;
  // All loads of an iteration are issued before any is used, so every thread keeps several
  // independent 16-byte requests in flight; consecutive threads read consecutive vectors.
  for (; i + (probe_loads_in_flight - 1) * stride < vector_count; i += probe_loads_in_flight * stride)
  {
    uint4 loaded[probe_loads_in_flight];
#pragma unroll
    for (int k = 0; k < probe_loads_in_flight; ++k)
    {
      loaded[k] = vectors[i + k * stride];
    }
#pragma unroll
    for (int k = 0; k < probe_loads_in_flight; ++k)
    {
      acc = xor4(acc, loaded[k]);
    }
  }
  for (; i < vector_count; i += stride)
  {
    acc = xor4(acc, vectors[i]);
  }
  if (thread < tail_words)
  {
    acc.x ^= tail[thread];
  }
  // True with probability 2^-128, but the compiler cannot know that, so no load is dead code.
  if (acc.x == impossible.x && acc.y == impossible.y && acc.z == impossible.z && acc.w == impossible.w)
  {
    *sink = acc;
  }
}

__global__ void empty_kernel() {}
} // namespace

read_probe::read_probe(const device_info& device)
    : sink_(sizeof(uint4))
{
  int per_sm = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, read_probe_kernel, probe_threads, 0),
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor(read_probe_kernel)");
  max_blocks_ = std::max(per_sm, 1) * device.multiprocessors;
}

void read_probe::launch(const void* data, std::size_t bytes, cudaStream_t stream) const
{
  constexpr std::size_t vector_bytes = sizeof(uint4);
  const std::size_t vector_count     = bytes / vector_bytes;
  const auto* bytes_in               = static_cast<const char*>(data);
  const auto* tail                   = reinterpret_cast<const std::uint32_t*>(bytes_in + vector_count * vector_bytes);
  const auto tail_words              = static_cast<unsigned>(bytes % vector_bytes / sizeof(std::uint32_t));
  // No more blocks than give every thread one full iteration: small inputs need no full wave.
  const std::size_t per_block = std::size_t{probe_threads} * probe_loads_in_flight;
  const std::size_t blocks    = std::clamp<std::size_t>((vector_count + per_block - 1) / per_block, 1, max_blocks_);
  const uint4 impossible      = make_uint4(0x9e3779b9u, 0x7f4a7c15u, 0xf39cc060u, 0x5cedc834u);
  read_probe_kernel<<<static_cast<unsigned>(blocks), probe_threads, 0, stream>>>(
    static_cast<const uint4*>(data), vector_count, tail, tail_words, impossible, static_cast<uint4*>(sink_.get()));
  check(cudaGetLastError(), "launching read_probe_kernel");
}

void read_probe::launch_empty(cudaStream_t stream) const
{
  empty_kernel<<<1, 1, 0, stream>>>();
  check(cudaGetLastError(), "launching empty_kernel");
}

// ---------------------------------------------------------------------------------------------

std::string power_of_two(int log2)
{
  return "2^" + std::to_string(log2);
}

std::string human_bytes(double bytes)
{
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit            = 0;
  while (bytes >= 1024 && unit < 4)
  {
    bytes /= 1024;
    ++unit;
  }
  return fixed(bytes, bytes == std::floor(bytes) ? 0 : 1) + " " + units[unit];
}

std::string fixed(double value, int decimals)
{
  std::ostringstream text;
  text << std::fixed << std::setprecision(decimals) << value;
  return text.str();
}

markdown_table::markdown_table(std::vector<std::string> header, std::size_t text_columns)
    : text_columns_(text_columns)
{
  rows_.push_back(std::move(header));
}

void markdown_table::add_row(std::vector<std::string> cells)
{
  cells.resize(rows_.front().size());
  rows_.push_back(std::move(cells));
}

void markdown_table::print(std::ostream& os) const
{
  std::vector<std::size_t> widths(rows_.front().size(), 3);
  for (const auto& row : rows_)
  {
    for (std::size_t c = 0; c < row.size(); ++c)
    {
      widths[c] = std::max(widths[c], row[c].size());
    }
  }
  const auto print_row = [&](const std::vector<std::string>& row) {
    os << '|';
    for (std::size_t c = 0; c < row.size(); ++c)
    {
      const std::string padding(widths[c] - row[c].size(), ' ');
      os << ' ' << (c < text_columns_ ? row[c] + padding : padding + row[c]) << " |";
    }
    os << '\n';
  };
  print_row(rows_.front());
  os << '|';
  for (std::size_t c = 0; c < widths.size(); ++c)
  {
    os << ' ' << (c < text_columns_ ? std::string(widths[c], '-') : std::string(widths[c] - 1, '-') + ':') << " |";
  }
  os << '\n';
  for (std::size_t r = 1; r < rows_.size(); ++r)
  {
    print_row(rows_[r]);
  }
}

std::string json_string(const std::string& s)
{
  std::string out = "\"";
  for (const char c : s)
  {
    if (c == '"' || c == '\\')
    {
      out += '\\';
      out += c;
    }
    else if (static_cast<unsigned char>(c) < 0x20)
    {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", static_cast<unsigned>(c));
      out += escaped;
    }
    else
    {
      out += c;
    }
  }
  return out + "\"";
}

std::string json_number(double value)
{
  if (!std::isfinite(value))
  {
    return "null";
  }
  std::ostringstream text;
  text << std::setprecision(8) << value;
  return text.str();
}

std::string json_numbers(const std::vector<double>& values)
{
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i)
  {
    out += (i == 0 ? "" : ", ") + json_number(values[i]);
  }
  return out + "]";
}
// ---------------------------------------------------------------------------------------------

double measurement::gbps() const
{
  return device ? gigabytes_per_second(bytes, device->median_us) : std::nan("");
}

std::string to_json(const measurement& m)
{
  std::ostringstream out;
  out << "{\"type\": " << json_string(m.type) << ", \"n\": " << m.n() << ", \"log2n\": " << m.log2n
      << ", \"impl\": " << json_string(m.impl) << ", \"bytes\": " << json_number(m.bytes);
  if (!m.backend.empty())
  {
    out << ", \"backend\": " << json_string(m.backend);
  }
  out << ", \"device_us\": " << json_number(m.device ? m.device->median_us : std::nan(""))
      << ", \"gbps\": " << json_number(m.gbps())
      << ", \"host_us\": " << json_number(m.host ? m.host->median_us : std::nan(""));
  if (m.device)
  {
    out << ", \"spread_pct\": " << json_number(spread_percent(m.device->samples_us))
        << ", \"trial_group\": " << m.device->group << ", \"calls_per_trial\": " << m.device->calls_per_sample
        << ", \"trials_us\": " << json_numbers(m.device->samples_us);
  }
  if (m.host)
  {
    out << ", \"host_spread_pct\": " << json_number(spread_percent(m.host->samples_us))
        << ", \"host_group\": " << m.host->group << ", \"host_reps_us\": " << json_numbers(m.host->samples_us);
  }
  out << "}";
  return out.str();
}

const measurement* find(const std::vector<measurement>& results, const std::string& type, int log2n,
                        const std::string& impl)
{
  for (const auto& m : results)
  {
    if (m.log2n == log2n && m.impl == impl && m.type == type)
    {
      return &m;
    }
  }
  return nullptr;
}

std::string case_name(const std::string& type, int log2n, const std::string& impl)
{
  return type + " " + power_of_two(log2n) + " " + impl;
}

run_context::run_context(const timing_plan& timing)
    : device(query_device())
    , inputs(device)
    , probe(device)
    , plan(timing)
    , result_(max_result_bytes)
{}

run_facts collect_run_facts(run_context& ctx)
{
  const cudaStream_t stream = ctx.stream.get();
  const std::vector<timing> floor =
    time_interleaved(stream, ctx.plan, {contender{"empty kernel", [&] { ctx.probe.launch_empty(stream); }}});
  return run_facts{commit_id(), utc_timestamp(), floor.front().median_us};
}

void print_run_facts(std::ostream& os, const run_context& ctx, const run_facts& facts)
{
  const device_info& d = ctx.device;
  os << "- device: " << d.name << " (sm_" << d.compute_capability << "), " << d.multiprocessors << " SMs, L2 "
     << human_bytes(double(d.l2_bytes)) << ", " << human_bytes(double(d.global_memory_bytes)) << "\n"
     << "- CUDA driver " << cuda_version_string(d.driver_version) << ", runtime "
     << cuda_version_string(d.runtime_version) << "; CUB " << CUB_VERSION / 100000 << "." << CUB_VERSION / 100 % 1000
     << "." << CUB_VERSION % 100 << "\n"
     << "- date " << facts.date << ", commit " << facts.commit << ", build " << build_type() << "\n"
     << "- empty kernel, back to back: " << fixed(facts.launch_floor_us, 2) << " us/call (launch floor)\n";
}

std::string json_run_facts(const run_context& ctx, const run_facts& facts)
{
  const device_info& d = ctx.device;
  std::ostringstream out;
  out << "  \"device\": " << json_string(d.name) << ",\n"
      << "  \"compute_capability\": " << d.compute_capability << ",\n"
      << "  \"multiprocessors\": " << d.multiprocessors << ",\n"
      << "  \"l2_bytes\": " << d.l2_bytes << ",\n"
      << "  \"cuda_driver\": " << json_string(cuda_version_string(d.driver_version)) << ",\n"
      << "  \"cuda_runtime\": " << json_string(cuda_version_string(d.runtime_version)) << ",\n"
      << "  \"cub_version\": " << CUB_VERSION << ",\n"
      << "  \"commit\": " << json_string(facts.commit) << ",\n"
      << "  \"date\": " << json_string(facts.date) << ",\n"
      << "  \"build_type\": " << json_string(build_type()) << ",\n"
      << "  \"launch_floor_us\": " << json_number(facts.launch_floor_us) << ",\n"
      << "  \"initial_trials\": " << ctx.plan.initial_trials << ",\n"
      << "  \"max_trials\": " << ctx.plan.max_trials << ",\n"
      << "  \"wide_spread_pct\": " << json_number(ctx.plan.wide_spread_percent) << ",\n"
      << "  \"mismatches\": " << ctx.checks.mismatches() << ",\n";
  return out.str();
}

std::string json_results(const std::vector<measurement>& results)
{
  std::string out = "  \"results\": [";
  for (std::size_t i = 0; i < results.size(); ++i)
  {
    out += (i == 0 ? "\n    " : ",\n    ") + to_json(results[i]);
  }
  return out + "\n  ]";
}
} // namespace rk_perf
