// NCCL properties over values: sums, min and max of the four arithmetic types, a type with no
// default constructor, and empty shards. Every rank makes the same calls in the same order.

#include "../support/spread.hpp"
#include "nccl_support.cuh"

#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cstring>
#include <functional>
#include <vector>

namespace rk_test::nccl
{
namespace
{
/// Every layout and total: this rank's shard in a device_vector, and both calls checked against
/// the left fold of the whole range (floating-point sums against the rounding bound).
template <class E, class Op>
void check_values(const rank_env& env, report& out, const char* op_name, E init, Op op, bool is_sum)
{
  const value_at<E> item{run_seed()};
  for (const std::int64_t total : {std::int64_t{1}, std::int64_t{3}, std::int64_t{4099}, (std::int64_t{1} << 20) + 3})
  {
    for (const layout l : {layout::even, layout::unequal, layout::first_empty, layout::last_only, layout::all_empty})
    {
      const shard s = shard_of(l, total, env.rank, env.ranks);
      std::vector<E> all;
      for (std::int64_t i = 0; i < covered(l, total, env.ranks); ++i)
      {
        all.push_back(item(i));
      }
      std::vector<E> mine(all.begin() + s.begin, all.begin() + s.end);
      const thrust::device_vector<E> input(mine.begin(), mine.end());
      const E expected = fold(all.begin(), all.end(), init, op);
      const auto check = [&](E got, const char* call) {
        const std::string what = std::string(call) + " " + op_name + " (" + where(l, total, s) + ")";
        if (std::is_floating_point_v<E> && is_sum)
        {
          out.expect(sum_within_bound(got, all, init),
                     what + " = " + describe(got) + ", beyond the rounding bound of " + describe(expected));
        }
        else
        {
          out.expect(got == expected, mismatch(what, got, expected));
        }
      };
      const auto policy = env.nccl().on(env.stream);
      check(rk::reduce(policy, input.begin(), input.end(), init, op), "rk::reduce");
      device_slot<E> result;
      rk::reduce_into(policy, input.begin(), input.end(), result.get(), init, op);
      check(result.read(env.stream), "rk::reduce_into");
    }
  }
}

template <class E>
void check_type(const rank_env& env, report& out, const char* type)
{
  const std::string t(type);
  check_values<E>(env, out, (t + " plus").c_str(), E(7), rk::plus{}, true);
  check_values<E>(env, out, (t + " minimum").c_str(), E(50), rk::minimum{}, false);
  check_values<E>(env, out, (t + " maximum").c_str(), E(-50), rk::maximum{}, false);
}
} // namespace

void sums_and_extrema(const rank_env& env, report& out)
{
  check_type<std::int32_t>(env, out, "int32");
  check_type<std::int64_t>(env, out, "int64");
  check_type<float>(env, out, "float");
  check_type<double>(env, out, "double");
  // std::plus has a host-only call operator: rk runs its cuda::std twin on the device.
  check_values<std::int32_t>(env, out, "int32 std::plus", 1, std::plus<std::int32_t>{}, true);
}

void no_default_constructor(const rank_env& env, report& out)
{
  const auto policy = env.nccl().on(env.stream);
  for (const std::int64_t total : {std::int64_t{2}, std::int64_t{100003}})
  {
    for (const layout l : {layout::even, layout::unequal, layout::first_empty})
    {
      const shard s    = shard_of(l, total, env.rank, env.ranks);
      const auto first = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(s.begin),
                                                         to_no_default{});
      const no_default init(5);
      const auto all        = generating_iterator<to_no_default>(to_no_default{}, 0);
      const no_default want = fold(all, all + covered(l, total, env.ranks), init, no_default_plus{});
      const std::string at  = " (" + where(l, total, s) + ")";
      const no_default got  = rk::reduce(policy, first, first + s.size(), init, no_default_plus{});
      out.expect(got == want, mismatch("rk::reduce" + at, got, want));
      device_slot<no_default> result;
      rk::reduce_into(policy, first, first + s.size(), result.get(), init, no_default_plus{});
      const no_default into = result.read(env.stream);
      out.expect(into == want, mismatch("rk::reduce_into" + at, into, want));
    }
  }
}

namespace
{
/// The shards of every layout reduced with rk::nccl over this communicator: the bits of one-GPU
/// rk::reduce (rk::device, this rank's GPU) over the concatenation, with the offset found by rk and
/// given by the caller.
template <class E, class Op, class Make>
void check_same_bits(const rank_env& env, report& out, const char* what, E init, Op op, Make make)
{
  for (const std::int64_t total : {std::int64_t{1}, std::int64_t{3}, std::int64_t{4099}, (std::int64_t{1} << 20) + 3})
  {
    for (const layout l : {layout::even, layout::unequal, layout::first_empty, layout::last_only, layout::all_empty})
    {
      const shard s = shard_of(l, total, env.rank, env.ranks);
      std::vector<E> all;
      for (std::int64_t i = 0; i < covered(l, total, env.ranks); ++i)
      {
        all.push_back(make(i));
      }
      const thrust::device_vector<E> whole(all.begin(), all.end());
      const E one_gpu      = rk::reduce(rk::device.on(env.stream), whole.begin(), whole.end(), init, op);
      const auto mine      = whole.begin() + s.begin;
      const std::string at = std::string(what) + " (" + where(l, total, s) + ")";
      const E got          = rk::reduce(env.nccl().on(env.stream), mine, mine + s.size(), init, op);
      out.expect(std::memcmp(&got, &one_gpu, sizeof(E)) == 0, mismatch("rk::reduce " + at, got, one_gpu));
      device_slot<E> result;
      rk::reduce_into(env.nccl(rk::two_pass).on(env.stream).with_offset(s.begin), mine, mine + s.size(), result.get(),
                      init, op);
      const E into = result.read(env.stream);
      out.expect(std::memcmp(&into, &one_gpu, sizeof(E)) == 0,
                 mismatch("rk::reduce_into (rk::two_pass, offset given) " + at, into, one_gpu));
    }
  }
}
} // namespace

void rank_count_invariance(const rank_env& env, report& out)
{
  const spread_value<float> f{};
  const spread_value<double> d{};
  check_same_bits<float>(env, out, "float plus", 0.5f, rk::plus{}, [&](std::int64_t i) { return f(i); });
  check_same_bits<double>(env, out, "double plus", -0.25, rk::plus{}, [&](std::int64_t i) { return d(i); });
  check_same_bits<affine>(env, out, "affine compose", affine{3u, 1u}, affine_compose{}, [](std::int64_t i) {
    return affine{static_cast<std::uint32_t>(2 * i + 1), static_cast<std::uint32_t>(i * 7)};
  });
  // Odd diagonals and even corners: odd determinants, so the products are invertible mod 2^32 and
  // never collapse to zero (matrices of even determinant made every expected product 0).
  check_same_bits<mat2>(env, out, "mat2 multiply", mat2{1u, 2u, 3u, 7u}, mat2_multiply{}, [](std::int64_t i) {
    const auto k = static_cast<std::uint32_t>(i);
    return mat2{2 * k + 1, 2 * (k % 3), 2 * (k % 5), 5u};
  });
  check_same_bits<segment>(env, out, "segment merge", segment{-3, 0}, segment_merge{},
                           [](std::int64_t i) { return segment{i, i + 1}; });
}

/// With an rk::atomic local policy the ranks exchange values, not partials (through the workspace's
/// one-kernel step where the harness gives one): integer sums, exact, every layout.
void value_exchange(const rank_env& env, report& out)
{
  const value_at<std::int64_t> item{run_seed()};
  const auto policy = env.nccl(rk::atomic).on(env.stream);
  for (const std::int64_t total : {std::int64_t{1}, std::int64_t{4099}, (std::int64_t{1} << 20) + 3})
  {
    for (const layout l : {layout::even, layout::unequal, layout::first_empty, layout::last_only, layout::all_empty})
    {
      const shard s = shard_of(l, total, env.rank, env.ranks);
      std::vector<std::int64_t> all;
      for (std::int64_t i = 0; i < covered(l, total, env.ranks); ++i)
      {
        all.push_back(item(i));
      }
      const std::vector<std::int64_t> mine(all.begin() + s.begin, all.begin() + s.end);
      const thrust::device_vector<std::int64_t> input(mine.begin(), mine.end());
      const std::int64_t want = fold(all.begin(), all.end(), std::int64_t{5}, rk::plus{});
      const std::string at    = " (rk::atomic locally, " + where(l, total, s) + ")";
      const std::int64_t got  = rk::reduce(policy, input.begin(), input.end(), std::int64_t{5}, rk::plus{});
      out.expect(got == want, mismatch("rk::reduce" + at, got, want));
      device_slot<std::int64_t> result;
      rk::reduce_into(policy, input.begin(), input.end(), result.get(), std::int64_t{5}, rk::plus{});
      const std::int64_t into = result.read(env.stream);
      out.expect(into == want, mismatch("rk::reduce_into" + at, into, want));
    }
  }
}

void empty_shards(const rank_env& env, report& out)
{
  // All shards empty: init comes back and op is never called (must_not_be_called traps if it is).
  const thrust::device_vector<std::int32_t> items(3, 1);
  const auto policy = env.nccl().on(env.stream);
  out.expect(rk::reduce(policy, items.begin(), items.begin(), 42, must_not_be_called{}) == 42,
             "rk::reduce of empty shards everywhere did not return init");
  device_slot<std::int32_t> result;
  rk::reduce_into(policy, items.end(), items.end(), result.get(), -3, must_not_be_called{});
  out.expect(result.read(env.stream) == -3, "rk::reduce_into of empty shards everywhere did not store init");
  const auto none   = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(9), to_segment{});
  const segment got = rk::reduce(policy, none, none, segment{1, 2}, must_not_be_called{});
  out.expect(got == segment{1, 2}, mismatch("rk::reduce of empty segment shards", got, segment{1, 2}));
  // Only some shards empty: a single item on one rank, on each rank in turn.
  for (int holder = 0; holder < env.ranks; ++holder)
  {
    const std::int64_t n = env.rank == holder ? 1 : 0;
    const auto gen       = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), to_segment{});
    const segment one    = rk::reduce(policy, gen, gen + n, segment{-4, 0}, segment_merge{});
    out.expect(one == segment{-4, 1},
               mismatch("one item, on rank " + std::to_string(holder) + " only", one, segment{-4, 1}));
  }
}
} // namespace rk_test::nccl
