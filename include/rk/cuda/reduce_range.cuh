#pragma once
// PROVISIONAL: replaced by the lead's no-init kernel path.
//
// rk::detail::reduce_range_into, the no-init reduction rk::nccl runs on each rank's shard. This
// stand-in lifts every item to a maybe<T> record (valid, value) through a transform iterator and
// reduces the records with rk::reduce_into, starting from an empty record, under the operator
// "empty ⊕ x = x ⊕ empty = x, else op": exact, no identity, every guarantee of the policy's
// backend. Its costs, which the real path does not have: records instead of items (generic loads,
// no 16-byte vectors), one temporary record per call from a stream-ordered pool (cudaMallocAsync
// while the stream is captured), and a copy of the value out of it. rk::atomic cannot combine
// records (the lifted operator does not commute), so it runs rk::single_pass here.

#include <rk/cuda/dispatch.cuh>
#include <rk/cuda/error.cuh>
#include <rk/cuda/functional.cuh>
#include <rk/cuda/input.cuh>
#include <rk/cuda/policy.cuh>
#include <rk/cuda/runtime.cuh>
#include <rk/cuda/warp_reduce.cuh>
#include <rk/detail/range.hpp>

#include <thrust/device_ptr.h>
#include <thrust/iterator/iterator_traits.h>
#include <thrust/iterator/transform_iterator.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <type_traits>

namespace rk::detail
{
/// Item -> a valid record holding static_cast<T>(item).
template <class T, class Item>
struct lift_to_record
{
  __host__ __device__ maybe<T> operator()(const Item& x) const
  {
    maybe<T> r;
    ::new (static_cast<void*>(&r.slot.value)) T(static_cast<T>(x));
    r.valid = true;
    return r;
  }
};

/// `op` on records: an empty record is the identity.
template <class T, class Op>
struct record_operator
{
  mutable Op op;

  __device__ maybe<T> operator()(const maybe<T>& a, const maybe<T>& b) const
  {
    if (!b.valid)
    {
      return a;
    }
    if (!a.valid)
    {
      return b;
    }
    maybe<T> r = a;
    r.slot.value = op(a.slot.value, b.slot.value);
    return r;
  }
};

/// A pool per device that keeps what it has (release threshold: everything), so that a
/// temporary record costs no mapping after the first call.
inline cudaMemPool_t provisional_record_pool(int device)
{
  static std::array<std::once_flag, 64> once;
  static std::array<cudaMemPool_t, 64> pools{};
  if (device < 0 || device >= 64)
  {
    throw error("rk: device ordinal " + std::to_string(device) + " is out of the supported range");
  }
  std::call_once(once[device], [device] {
    cudaMemPoolProps props{};
    props.allocType     = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id   = device;
    throw_on_error(cudaMemPoolCreate(&pools[device], &props), "rk: creating a memory pool");
    std::uint64_t keep = ~std::uint64_t{0};
    throw_on_error(cudaMemPoolSetAttribute(pools[device], cudaMemPoolAttrReleaseThreshold, &keep),
                   "rk: setting a memory pool's release threshold");
  });
  return pools[device];
}

template <gpu_backend Backend, class Provider, class Input, class T, class Op>
void reduce_records_into(const gpu_policy<Backend, Provider>& policy, Input input, std::int64_t n, T* value,
                         const Op& op)
{
  using record = maybe<T>;
  using item   = std::remove_cv_t<iterator_item_t<Input>>;
  constexpr gpu_backend backend = Backend == gpu_backend::atomic ? gpu_backend::single_pass : Backend;
  gpu_policy<backend, Provider> lifted_policy;
  lifted_policy.stream = policy.stream;

  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  throw_on_error(cudaStreamIsCapturing(policy.stream, &capture), "rk: cudaStreamIsCapturing");
  const bool captured = capture == cudaStreamCaptureStatusActive;
  void* temporary     = nullptr;
  throw_on_error(captured ? cudaMallocAsync(&temporary, sizeof(record), policy.stream)
                          : cudaMallocFromPoolAsync(&temporary, sizeof(record),
                                                    provisional_record_pool(current_device_facts().ordinal),
                                                    policy.stream),
                 "rk: allocating a temporary record");
  try
  {
    record empty;
    std::memset(static_cast<void*>(&empty), 0, sizeof(empty));
    const auto lifted = thrust::make_transform_iterator(input, lift_to_record<T, item>{});
    rk::reduce_into(lifted_policy, lifted, lifted + n, static_cast<record*>(temporary), empty,
                    record_operator<T, Op>{op});
    throw_on_error(cudaMemcpyAsync(value, &static_cast<record*>(temporary)->slot.value, sizeof(T), cudaMemcpyDefault,
                                   policy.stream),
                   "rk: copying the shard's result");
  }
  catch (...)
  {
    cudaFreeAsync(temporary, policy.stream);
    throw;
  }
  throw_on_error(cudaFreeAsync(temporary, policy.stream), "rk: freeing a temporary record");
}

/// Enqueues the in-order op-fold of [first, last), n = last - first >= 1, WITHOUT init, storing it to
/// device memory *value on policy.stream. Same checks and guarantees as rk::reduce_into otherwise.
template <gpu_backend Backend, class Provider, class InputIt, class T, class Op>
void reduce_range_into(const gpu_policy<Backend, Provider>& policy, InputIt first, InputIt last, T* value, const Op& op)
{
  using device_op = device_operator_t<Op>;
  check_gpu_call<Backend, InputIt, T, device_op>();
  const std::int64_t n = checked_distance(first, last);
  if (n < 1)
  {
    throw error("rk::detail::reduce_range_into: needs at least one item (an empty range has no value)");
  }
  const device_facts& device = current_device_facts();
  check_device_accessible(value, "the output pointer", device);
  // A raw pointer is checked like rk::reduce_into checks it, then read as a thrust::device_ptr
  // so that the transform iterator over it counts as device memory.
  auto input = to_kernel_input(first);
  if constexpr (std::is_pointer_v<decltype(input)>)
  {
    if constexpr (!std::is_same_v<typename thrust::iterator_system<InputIt>::type, thrust::device_system_tag>)
    {
      check_device_accessible(input, "the input range", device);
    }
    reduce_records_into(policy, thrust::device_pointer_cast(input), n, value, to_device_operator(op));
  }
  else
  {
    reduce_records_into(policy, input, n, value, to_device_operator(op));
  }
}
} // namespace rk::detail
