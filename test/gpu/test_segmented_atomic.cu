// rk::segmented_reduce on rk::atomic, and on rk::device where it picks rk::atomic (integers bit
// for bit against rk::host, floats within the issue's bound, a compare-and-swap route, the three
// forms), and the long list's overflow on every GPU backend: more long-segment parts than the list
// holds, the segments left over going to warps.

#include "../support/segments.hpp"
#include "../support/spread.hpp"
#include "gpu_harness.cuh"
#include "segmented_suite.cuh"

#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/fill.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>
#include <thrust/transform.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

using rk_test::segment_layout;

namespace
{
using rk_test::layout_items;
using rk_test::spread_item;

template <class Item>
struct layout_input
{
  std::vector<std::int64_t> offsets;
  std::vector<Item> host_items;
  thrust::device_vector<Item> items;
  thrust::device_vector<std::int64_t> d_offsets;

  explicit layout_input(segment_layout layout)
      : offsets(rk_test::make_offsets(layout, layout_items()))
  {
    const auto n = static_cast<std::size_t>(offsets.back());
    items.resize(n);
    thrust::transform(thrust::counting_iterator<std::int64_t>(0),
                      thrust::counting_iterator<std::int64_t>(static_cast<std::int64_t>(n)), items.begin(),
                      spread_item<Item>{});
    host_items.resize(n);
    thrust::copy(items.begin(), items.end(), host_items.begin());
    d_offsets.assign(offsets.begin(), offsets.end());
  }

  std::size_t segments() const
  {
    return offsets.size() - 1;
  }

  template <class T, class Op, class Policy = decltype(rk::atomic)>
  std::vector<T> on_gpu(T init, Op op, Policy policy = rk::atomic) const
  {
    thrust::device_vector<T> out(segments());
    rk::segmented_reduce(policy, items.begin(), d_offsets.begin(), d_offsets.end(), out.begin(), init, op);
    std::vector<T> got(segments());
    thrust::copy(out.begin(), out.end(), got.begin());
    return got;
  }

  template <class T, class Op>
  std::vector<T> on_host(T init, Op op) const
  {
    std::vector<T> expected(segments());
    rk::segmented_reduce(rk::host, host_items.begin(), offsets.begin(), offsets.end(), expected.begin(), init, op);
    return expected;
  }
};

/// Integer results do not depend on the order of the atomics: rk::host's, exactly.
template <class T, class Item, class Op, class Policy = decltype(rk::atomic)>
void exact_on_every_layout(T init, Op op, Policy policy = rk::atomic)
{
  for (segment_layout layout : rk_test::all_layouts())
  {
    CAPTURE(rk_test::name(layout));
    const layout_input<Item> in(layout);
    CHECK(in.on_gpu(init, op, policy) == in.on_host(init, op));
  }
}
} // namespace

RK_GPU_TEST_CASE("segmented_reduce: rk::atomic, integers exact on every layout (add, min, max, int8 -> int64)")
{
  exact_on_every_layout<int, int>(3, rk::plus{});
  exact_on_every_layout<std::int64_t, std::int8_t>(std::int64_t{-7}, rk::plus{});
  exact_on_every_layout<int, int>(1 << 30, rk::minimum{});
  exact_on_every_layout<unsigned, unsigned>(5u, rk::maximum{});
  // rk::device runs rk::atomic here (integer T, hardware atomic, contiguous output of T).
  exact_on_every_layout<int, int>(3, rk::plus{}, rk::device);
  exact_on_every_layout<std::int64_t, std::int8_t>(std::int64_t{-7}, rk::bit_xor{}, rk::device);
}

RK_GPU_TEST_CASE("segmented_reduce: rk::atomic, float sums within (len+1) eps sum|x|, float max by compare-and-swap")
{
  for (segment_layout layout : rk_test::all_layouts())
  {
    CAPTURE(rk_test::name(layout));
    const layout_input<float> in(layout);
    const float init  = 0.25f;
    const auto got    = in.on_gpu(init, rk::plus{});
    std::size_t wrong = 0;
    std::size_t first = got.size();
    for (std::size_t s = 0; s < got.size(); ++s)
    {
      double exact = init, magnitude = std::fabs(init);
      for (std::int64_t i = in.offsets[s]; i < in.offsets[s + 1]; ++i)
      {
        exact += in.host_items[static_cast<std::size_t>(i)];
        magnitude += std::fabs(in.host_items[static_cast<std::size_t>(i)]);
      }
      const double len   = static_cast<double>(in.offsets[s + 1] - in.offsets[s]);
      const double bound = (len + 1) * std::numeric_limits<float>::epsilon() * magnitude;
      if (!(std::fabs(static_cast<double>(got[s]) - exact) <= bound))
      {
        first = wrong++ == 0 ? s : first;
      }
    }
    CAPTURE(first);
    CHECK(wrong == 0);
    // max is exact whatever the order; float has no hardware atomic max, so this takes the CAS loop.
    CHECK(in.on_gpu(-1e30f, rk::maximum{}) == in.on_host(-1e30f, rk::maximum{}));
  }
}

RK_GPU_TEST_CASE("segmented_reduce: rk::atomic, the fixed-size form, and the CUB form out of order, overlapping")
{
  rk_test::fixed_and_cub_forms(rk::atomic);
}

// Named, not in an anonymous namespace: explain_segmented only names their types, and nvcc warns
// of an unreferenced call operator in an anonymous namespace.
namespace rk_test
{
struct explain_identity
{
  __host__ __device__ int operator()(int x) const
  {
    return x;
  }
};
/// Associative, not commutative.
struct explain_first
{
  __host__ __device__ int operator()(int a, int) const
  {
    return a;
  }
};
} // namespace rk_test

RK_GPU_TEST_CASE("segmented_reduce: rk::explain_segmented on rk::atomic, and rk::device's choice from the call's types")
{
  thrust::device_vector<float> floats(10);
  thrust::device_vector<int> ints(10);
  const rk::explanation a = rk::explain_segmented(rk::atomic, floats.begin(), 7, floats.begin(), 0.0f);
  CHECK(a.policy == "atomic");
  CHECK(a.backend == "atomic");
  CHECK_FALSE(a.reproducible); // float atomics combine in arrival order
  CHECK(a.reason.find("atomics into the output") != std::string::npos);
  CHECK(rk::explain_segmented(rk::atomic, ints.begin(), 7, ints.begin(), 0).reproducible); // exact
  // rk::device: what segmented_dispatch instantiates for the same types, which is what runs
  // (segmented_backend_v keeps rk::device's `automatic` where it does not switch to atomic, and
  // segmented_launch runs that as single_pass's last-block join).
  const auto device_runs = [](auto explanation, rk::gpu_backend ran) {
    return explanation.backend == (ran == rk::gpu_backend::automatic ? "single_pass" : rk::to_string(ran));
  };
  const rk::explanation di = rk::explain_segmented(rk::device, ints.begin(), 7, ints.begin(), 0, rk::plus{});
  CHECK(device_runs(
    di,
    rk::detail::segmented_backend_v<rk::gpu_backend::automatic, int, rk::plus, thrust::device_vector<int>::iterator>));
  CHECK(di.backend == "atomic");
  CHECK(di.reproducible);
  CHECK(di.reason.find("rk::device runs rk::atomic here") != std::string::npos);
  const rk::explanation df = rk::explain_segmented(rk::device, floats.begin(), 7, floats.begin(), 0.0f, rk::plus{});
  CHECK(df.backend == "single_pass");
  CHECK(df.reproducible);
  // An integer sum into a fancy output cannot take atomics: single_pass, and explain says so.
  const auto fancy         = thrust::make_transform_output_iterator(ints.begin(), rk_test::explain_identity{});
  const rk::explanation dt = rk::explain_segmented(rk::device, ints.begin(), 7, fancy, 0, rk::plus{});
  CHECK(dt.backend == "single_pass");
  CHECK(device_runs(dt, rk::detail::segmented_backend_v<rk::gpu_backend::automatic, int, rk::plus, decltype(fancy)>));
  // min has a hardware atomic on int; an operator that does not commute never gets atomics.
  CHECK(rk::explain_segmented(rk::device, ints.begin(), 7, ints.begin(), 0, rk::minimum{}).backend == "atomic");
  CHECK(rk::explain_segmented(rk::device, ints.begin(), 7, ints.begin(), 0, rk_test::explain_first{}).backend
        == "single_pass");
}

namespace
{
/// Item i of the overflow test: small signed integers, so sums are exact in int64.
struct small_item
{
  __host__ __device__ int operator()(std::int64_t i) const
  {
    return static_cast<int>(i % 9 - 4);
  }
};

/// The sum of small_item over [0, end): every whole run of nine sums to zero.
std::int64_t small_items_prefix(std::int64_t end)
{
  std::int64_t sum = 0;
  for (std::int64_t i = end / 9 * 9; i < end; ++i)
  {
    sum += i % 9 - 4;
  }
  return sum;
}

/// Offset s of the overflow test: equal segments of `size` items.
struct equal_offsets
{
  std::int64_t size;
  __host__ __device__ std::int64_t operator()(std::int64_t s) const
  {
    return s * size;
  }
};

/// `segments` equal segments of `tiles` int32 tiles (256 items each), items and CSR offsets through
/// iterators (the fixed-size form has its own engine and no list), on every GPU backend, against
/// sums computed here.
void check_equal_long_segments(std::int64_t tiles, std::int64_t segments)
{
  const std::int64_t size = tiles * 256;
  const auto items        = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), small_item{});
  const auto offsets = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), equal_offsets{size});
  std::vector<std::int64_t> expected(static_cast<std::size_t>(segments));
  for (std::int64_t s = 0; s < segments; ++s)
  {
    expected[static_cast<std::size_t>(s)] = 2 + small_items_prefix((s + 1) * size) - small_items_prefix(s * size);
  }
  thrust::device_vector<std::int64_t> out(static_cast<std::size_t>(segments));
  std::vector<std::int64_t> got(static_cast<std::size_t>(segments));
  const auto check_backend = [&](auto policy) {
    thrust::fill(out.begin(), out.end(), std::int64_t{-1});
    rk::segmented_reduce(policy, items, offsets, offsets + segments + 1, out.begin(), std::int64_t{2});
    thrust::copy(out.begin(), out.end(), got.begin());
    CHECK(got == expected);
  };
  check_backend(rk::single_pass);
  check_backend(rk::two_pass);
  check_backend(rk::atomic);
  check_backend(rk::device);
}
} // namespace

RK_GPU_TEST_CASE(
  "segmented_reduce: more long-segment parts than the long list holds (more than 2^31 items), on every GPU backend")
{
  // A segment of 257 tiles is cut into three parts, so the segment that finds the list full has
  // two of its parts inside it (marked as nobody's); 300 segments more than the list holds go to
  // warps; 2.9 billion items in all.
  static_assert(rk::detail::long_segment_split(257).parts == 3, "a 257-tile segment is three parts");
  static_assert(rk::detail::long_segment_part_capacity % 3 == 2, "the last segment listed leaves two parts free");
  check_equal_long_segments(257, rk::detail::long_segment_part_capacity / 3 + 300);
  // Segments of 33 tiles are one part each: the list holds as many segments as parts (more than
  // half its parts' worth: two_pass's list of segments must hold them all), then is full.
  static_assert(rk::detail::long_segment_split(33).parts == 1, "a 33-tile segment is one part");
  check_equal_long_segments(33, rk::detail::long_segment_part_capacity + 300);
}
