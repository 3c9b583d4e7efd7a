#pragma once
// rk's side of a case: checking an rk policy's result and making it a contender of the
// interleaved trials. The only perf header that includes rk (harness.cuh stays rk-free so that
// the CUB peer can compile it against another CCCL).

#include "harness.cuh"

#include <rk/reduce.cuh>

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

namespace rk_perf
{
/// The first slice of `in` read as elements of Item: a case may read its bytes as another type
/// of the same size (the int64 case's bytes as affine maps), so both share one rotation and one
/// set of trials.
template <class Item, class Slice>
const Item* slice_as(const Slice* slice)
{
  static_assert(sizeof(Item) == sizeof(Slice) && std::is_trivially_copyable_v<Item>);
  return reinterpret_cast<const Item*>(slice);
}

/// rk::reduce_into with `policy` over slice 0 of `in` (read as T), result copied back.
template <class T, class Slice, class Policy, class Op>
T rk_result(run_context& ctx, const Policy& policy, const input_slices<Slice>& in, const T& init, Op op)
{
  const T* first = slice_as<T>(in.first());
  rk::reduce_into(policy.on(ctx.stream.get()), first, first + in.size(), ctx.result<T>(), init, op);
  return copy_to_host(ctx.result<T>(), ctx.stream.get());
}

/// Checks rk::reduce_into with `policy` against `want` (from `reference`) and returns the
/// contender `name` that times it, each call on the next slice.
template <class T, class Slice, class Policy, class Op>
contender checked_rk_contender(run_context& ctx, const std::string& type, int log2n, std::string name,
                               const Policy& policy, input_slices<Slice>& in, const T& init, Op op, const T& want,
                               const char* reference)
{
  ctx.checks.compare(case_name(type, log2n, name), rk_result(ctx, policy, in, init, op), want, reference);
  const auto on_stream = policy.on(ctx.stream.get());
  return {std::move(name), [&ctx, &in, on_stream, init, op] {
            const T* first = slice_as<T>(in.next());
            rk::reduce_into(on_stream, first, first + in.size(), ctx.result<T>(), init, op);
          }};
}
} // namespace rk_perf
