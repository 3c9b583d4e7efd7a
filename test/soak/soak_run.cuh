#pragma once
// Running one drawn call and checking it against the host: the pieces every algorithm's runner
// shares (inputs in memory or computed, device buffers, the policy object, the comparison rules).

#include "soak_cases.hpp"

#include <rk/reduce.cuh>

#include <thrust/device_ptr.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace soak
{
/// What a call found: `checks` results compared, and the first mismatch, if any.
struct outcome
{
  bool ok = true;
  std::string what;
  std::int64_t checks = 0;

  void fail(const std::string& why)
  {
    if (ok)
    {
      ok   = false;
      what = why;
    }
  }
};

outcome run_flat(const call& c, cudaStream_t stream);
outcome run_segmented(const call& c, cudaStream_t stream);
outcome run_by_key(const call& c, cudaStream_t stream);
outcome run_axes(const call& c, cudaStream_t stream);
outcome run_pieces(const call& c, cudaStream_t stream);

inline void check_cuda(cudaError_t e, const char* what)
{
  if (e != cudaSuccess)
  {
    cudaGetLastError();
    throw std::runtime_error(std::string("rk_soak: ") + what + ": " + cudaGetErrorString(e));
  }
}

/// Device buffers for the soak's own arrays, kept for reuse instead of freed: with CUDA's
/// stream-ordered allocator (cudaMallocAsync / cudaFreeAsync on each call's stream) the 8-thread
/// soak stopped for good in its graph round whenever another process shared the GPU, with the
/// library of 5518386 and of 7b0f2fe alike (perf/RESULTS.md); and cudaFree would wait for the
/// whole device after every call. A buffer comes back only once its stream's work is done.
void* take_buffer(std::size_t bytes);
void give_back_buffer(void* p, std::size_t bytes) noexcept;

/// `count` values of X in device memory, written on `stream`, every byte set to `fill`.
template <class X>
class device_array
{
public:
  device_array(std::size_t count, cudaStream_t stream, unsigned char fill = 0xcd)
      : count_(count)
      , stream_(stream)
  {
    data_ = static_cast<X*>(take_buffer(bytes()));
    if (const cudaError_t e = cudaMemsetAsync(data_, fill, bytes(), stream); e != cudaSuccess)
    {
      give_back_buffer(data_, bytes());
      check_cuda(e, "cudaMemsetAsync");
    }
  }
  device_array(device_array&& other) noexcept
      : data_(std::exchange(other.data_, nullptr))
      , count_(other.count_)
      , stream_(other.stream_)
  {}
  ~device_array()
  {
    if (data_ != nullptr)
    {
      cudaStreamSynchronize(stream_);
      give_back_buffer(data_, bytes());
    }
  }
  device_array(const device_array&)            = delete;
  device_array& operator=(const device_array&) = delete;

  X* get() const
  {
    return data_;
  }
  thrust::device_ptr<X> ptr(std::size_t at = 0) const
  {
    return thrust::device_ptr<X>(data_ + at);
  }
  /// The values back on the host, as bytes (X may have no default constructor).
  std::vector<unsigned char> download(std::size_t count) const
  {
    std::vector<unsigned char> bytes(count * sizeof(X));
    if (count > 0)
    {
      check_cuda(cudaMemcpyAsync(bytes.data(), data_, count * sizeof(X), cudaMemcpyDeviceToHost, stream_),
                 "copying a result back");
    }
    check_cuda(cudaStreamSynchronize(stream_), "waiting for a result");
    return bytes;
  }

private:
  std::size_t bytes() const
  {
    return (count_ ? count_ : 1) * sizeof(X);
  }

  X* data_ = nullptr;
  std::size_t count_;
  cudaStream_t stream_;
};

/// Reads value i of type X from bytes.
template <class X>
X at(const std::vector<unsigned char>& bytes, std::size_t i)
{
  alignas(X) unsigned char raw[sizeof(X)];
  std::memcpy(raw, bytes.data() + i * sizeof(X), sizeof(X));
  return *reinterpret_cast<const X*>(raw);
}

/// A call's items on the host (the reference's copy): the first offset + n items of the
/// allocation; the call reads from `offset` on.
template <class C>
struct host_items
{
  using item = typename C::item;
  std::vector<unsigned char> bytes;
  std::int64_t offset;

  host_items(const call& c)
      : bytes(static_cast<std::size_t>(c.offset + c.n) * sizeof(item) + 16)
      , offset(c.offset)
  {
    const make_item<C> make{c.data_seed};
    for (std::int64_t i = 0; i < c.offset + c.n; ++i)
    {
      ::new (static_cast<void*>(data() + i)) item(make(i));
    }
  }
  item* data()
  {
    return reinterpret_cast<item*>(bytes.data());
  }
  const item* begin() const
  {
    return reinterpret_cast<const item*>(bytes.data()) + offset;
  }
};

/// The call's items on the device, from the same allocation offset.
template <class C>
struct device_items
{
  using item = typename C::item;
  device_array<item> array;
  std::int64_t offset;

  device_items(const call& c, const host_items<C>& host, cudaStream_t stream)
      : array(static_cast<std::size_t>(c.offset + c.n), stream)
      , offset(c.offset)
  {
    check_cuda(cudaMemcpyAsync(array.get(), host.bytes.data(), static_cast<std::size_t>(c.offset + c.n) * sizeof(item),
                               cudaMemcpyHostToDevice, stream),
               "uploading the items");
  }
  thrust::device_ptr<const item> begin() const
  {
    return thrust::device_ptr<const item>(array.get() + offset);
  }
};

/// The computed form of the same items: item i of the allocation is make_item(i).
template <class C>
auto computed_items(const call& c)
{
  return thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(c.offset), make_item<C>{c.data_seed});
}

/// Calls f(policy) with the policy object of `p` (GPU policies on `stream`); only the
/// combinations `allowed` names are compiled.
template <kind K, algorithm A, class F>
void with_policy(policy p, cudaStream_t stream, F&& f)
{
  switch (p)
  {
    case policy::seq:
      if constexpr (allowed(K, A, policy::seq))
      {
        return f(rk::seq);
      }
      break;
    case policy::host:
      if constexpr (allowed(K, A, policy::host))
      {
        return f(rk::host);
      }
      break;
    case policy::device:
      if constexpr (allowed(K, A, policy::device))
      {
        return f(rk::device.on(stream));
      }
      break;
    case policy::single_pass:
      if constexpr (allowed(K, A, policy::single_pass))
      {
        return f(rk::single_pass.on(stream));
      }
      break;
    case policy::two_pass:
      if constexpr (allowed(K, A, policy::two_pass))
      {
        return f(rk::two_pass.on(stream));
      }
      break;
    case policy::atomic:
      if constexpr (allowed(K, A, policy::atomic))
      {
        return f(rk::atomic.on(stream));
      }
      break;
    default:
      break;
  }
  throw std::logic_error("rk_soak: a call drew a combination it does not compile");
}

/// Calls f(policy) with the host policy the reference runs on, never the policy under test:
/// rk::host for the GPU policies' float sums (rk::host computes their tree, so its bits are theirs)
/// and for rk::seq; rk::seq otherwise (exact kinds, and rk::host's float sums, which `agrees`
/// then judges within the rounding bound: rk::host's bits against the GPU's are the GPU suites').
template <class C, class F>
decltype(auto) with_reference(const call& c, F&& f)
{
  if (c.p == policy::seq || (C::judge == rule::float_sum && c.p != policy::host))
  {
    return f(rk::host);
  }
  return f(rk::seq);
}

/// Whether a policy computes rk::reduce's tree (so a float result has rk::host's bits).
inline bool reproducible(policy p)
{
  return p == policy::host || p == policy::device || p == policy::single_pass || p == policy::two_pass;
}

template <class X>
std::string show(const X& x)
{
  char buf[128];
  if constexpr (std::is_floating_point_v<X>)
  {
    std::snprintf(buf, sizeof(buf), "%a (%.9g)", static_cast<double>(x), static_cast<double>(x));
    return buf;
  }
  else if constexpr (std::is_integral_v<X>)
  {
    return std::to_string(x);
  }
  else
  {
    std::string s = "bytes";
    const auto* b = reinterpret_cast<const unsigned char*>(&x);
    for (std::size_t i = 0; i < sizeof(X); ++i)
    {
      std::snprintf(buf, sizeof(buf), " %02x", b[i]);
      s += buf;
    }
    return s;
  }
}

/// Whether `got` passes against `want` (with_reference's) under the kind's rule: the same value
/// for exact kinds; for float sums the same bits on the GPU policies with rk::reduce's tree, and
/// within the rounding bound of a sum of `count` terms whose magnitudes add to `magnitude` for
/// rk::atomic and for the host policies (each against the other's grouping).
template <class C>
bool agrees(const typename C::T& got, const typename C::T& want, policy p, double count, double magnitude)
{
  using T = typename C::T;
  if constexpr (C::judge == rule::float_sum)
  {
    if (p == policy::atomic || p == policy::seq || p == policy::host)
    {
      const double eps = std::numeric_limits<T>::epsilon();
      return std::fabs(static_cast<double>(got) - static_cast<double>(want)) <= 2.0 * (count + 2.0) * eps * magnitude;
    }
    return std::memcmp(&got, &want, sizeof(T)) == 0;
  }
  else
  {
    return got == want;
  }
}

/// The sum of magnitudes of `count` items from `first`, and |init| (the atomic bound's scale).
template <class C>
double magnitude(const typename C::item* first, std::int64_t count)
{
  double m = 0;
  if constexpr (C::judge == rule::float_sum)
  {
    m = std::fabs(static_cast<double>(C::init()));
    for (std::int64_t i = 0; i < count; ++i)
    {
      m += std::fabs(static_cast<double>(first[i]));
    }
  }
  return m;
}

template <class P>
constexpr bool is_gpu_policy_v = !std::is_same_v<std::decay_t<P>, rk::seq_policy>
                              && !std::is_same_v<std::decay_t<P>, rk::host_policy>;

template <class P>
constexpr policy policy_of()
{
  using p = std::decay_t<P>;
  if constexpr (std::is_same_v<p, rk::seq_policy>)
  {
    return policy::seq;
  }
  else if constexpr (std::is_same_v<p, rk::host_policy>)
  {
    return policy::host;
  }
  else if constexpr (std::is_same_v<p, std::decay_t<decltype(rk::single_pass)>>)
  {
    return policy::single_pass;
  }
  else if constexpr (std::is_same_v<p, std::decay_t<decltype(rk::two_pass)>>)
  {
    return policy::two_pass;
  }
  else if constexpr (std::is_same_v<p, std::decay_t<decltype(rk::atomic)>>)
  {
    return policy::atomic;
  }
  else
  {
    return policy::device;
  }
}

/// Calls f(first) with the call's input as the policy reads it: computed (where the call drew it
/// and `fancy_allowed` compiles it), in device memory, or the host copy.
template <kind K, algorithm A, class C, class P, class F>
void with_input(const call& c, const P&, const host_items<C>& host, cudaStream_t stream, F&& f)
{
  if constexpr (fancy_allowed(K, A, policy_of<P>()))
  {
    if (c.fancy)
    {
      f(computed_items<C>(c));
      return;
    }
  }
  if constexpr (is_gpu_policy_v<P>)
  {
    const device_items<C> items(c, host, stream);
    f(items.begin());
  }
  else
  {
    f(host.begin());
  }
}

/// Two arg results agree: the same index, and (where there is one) the same value.
template <class R>
bool same_arg(const R& a, const R& b)
{
  return a.index == b.index && (a.index < 0 || a.value == b.value);
}

template <class F, int... Ks>
void with_kind(kind k, F&& f, std::integer_sequence<int, Ks...>)
{
  ((static_cast<int>(k) == Ks ? f(std::integral_constant<kind, static_cast<kind>(Ks)>{}) : void()), ...);
}

/// Calls f(std::integral_constant<kind, K>{}) for the kind `k`.
template <class F>
void with_kind(kind k, F&& f)
{
  with_kind(k, f, std::make_integer_sequence<int, static_cast<int>(kind::count)>{});
}
} // namespace soak
