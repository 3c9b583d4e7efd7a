// Property suites for rk::atomic, over the operators and types it accepts (commutative, with an
// atomic route); the others are compile errors, checked by test/compile_fail.

#include "gpu_harness.cuh"

using harness = rk_test::gpu_harness<rk::atomic_policy, true>;

RK_GPU_PROPERTY_SUITES("rk::atomic", harness)

namespace
{
/// Greatest common divisor: associative and commutative, with no hardware atomic.
struct gcd_op
{
  __host__ __device__ std::uint64_t operator()(std::uint64_t a, std::uint64_t b) const
  {
    while (b != 0)
    {
      const std::uint64_t r = a % b;
      a                     = b;
      b                     = r;
    }
    return a;
  }
};
} // namespace

template <>
struct rk::is_commutative<gcd_op> : std::true_type
{};

RK_GPU_TEST_CASE("rk::atomic: a user commutative op goes through the compare-and-swap route")
{
  static_assert(rk::detail::atomic_kind_v<gcd_op, std::uint64_t> == rk::detail::atomic_kind::compare_and_swap);
  // Marked commutative above: rk::check_operator agrees.
  const auto check = rk::check_operator<std::uint64_t>(gcd_op{},
                                                       std::vector<std::uint64_t>{0, 1, 12, 18, 42, 97, 1u << 20});
  CHECK(check.associative);
  CHECK(check.commutative);
  std::vector<std::uint64_t> items;
  for (std::uint64_t i = 0; i < 3000000; ++i)
  {
    items.push_back(42 * (i % 1000 + 1));
  }
  const thrust::device_vector<std::uint64_t> input(items.begin(), items.end());
  CHECK(rk::reduce(rk::atomic, input.begin(), input.end(), std::uint64_t{0}, gcd_op{}) == 42);
  CHECK(rk::reduce(rk::atomic, input.begin() + 1, input.end(), std::uint64_t{84 * 5}, gcd_op{}) == 42);
  CHECK(rk::reduce(rk::atomic, input.begin() + 1, input.begin() + 2, std::uint64_t{84 * 5}, gcd_op{}) == 84);
}
