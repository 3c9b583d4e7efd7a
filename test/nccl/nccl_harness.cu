// Shard layouts and the order the properties run in (see nccl_harness.cuh).

#include "nccl_harness.cuh"

#include <exception>
#include <string>

namespace rk_test::nccl
{
const char* to_string(layout l)
{
  switch (l)
  {
    case layout::even:
      return "even";
    case layout::unequal:
      return "unequal";
    case layout::first_empty:
      return "first rank empty";
    case layout::last_only:
      return "last rank only";
    case layout::all_empty:
      return "all empty";
  }
  return "?";
}

shard shard_of(layout l, std::int64_t total, int rank, int ranks)
{
  const std::int64_t r = rank, n = ranks;
  switch (l)
  {
    case layout::even:
      return {total * r / n, total * (r + 1) / n};
    case layout::unequal:
      // Shares 1, 3, 5, ...: rank r starts at total * r^2 / n^2.
      return {total * (r * r) / (n * n), total * ((r + 1) * (r + 1)) / (n * n)};
    case layout::first_empty:
      if (r == 0 || n == 1)
      {
        return {0, 0};
      }
      return {total * (r - 1) / (n - 1), total * r / (n - 1)};
    case layout::last_only:
      return r == n - 1 ? shard{0, total} : shard{0, 0};
    case layout::all_empty:
      return {0, 0};
  }
  return {0, 0};
}

std::int64_t covered(layout l, std::int64_t total, int ranks)
{
  return shard_of(l, total, ranks - 1, ranks).end;
}

void run_all_properties(const rank_env& env, report& out, const std::string& prefix)
{
  using property                                      = void (*)(const rank_env&, report&);
  const std::pair<const char*, property> properties[] = {
    {"sums, min and max of int32, int64, float, double", sums_and_extrema},
    {"the bits of one-GPU rk::reduce whatever the rank count (partials)", rank_count_invariance},
    {"integer sums through the value exchange (rk::atomic local policy)", value_exchange},
    {"non-commutative operators across the rank boundary", non_commutative},
    {"a type without a default constructor", no_default_constructor},
    {"empty shards", empty_shards},
    {"shards of more than 2^31 items", large_shards},
    {"reduce_into back to back, input rewritten between calls", back_to_back},
    {"reduce_into back to back, the ranks held back in turn", out_of_step},
    {"reduce_into captured in a CUDA graph", graph_capture},
    {"errors", errors},
  };
  for (const auto& [name, body] : properties)
  {
    out.property(prefix + name);
    try
    {
      body(env, out);
    }
    catch (const std::exception& e)
    {
      out.expect(false, std::string("unexpected exception: ") + e.what());
    }
  }
}
} // namespace rk_test::nccl
