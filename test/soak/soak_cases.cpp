// Drawing the soak's calls from a seed, and laying out their segments.

#include "soak_cases.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace soak
{
const char* name(kind k)
{
  static const char* const names[] = {"uint32 plus",
                                      "int64 min",
                                      "int8 summed as uint64",
                                      "uint16 xor",
                                      "float plus",
                                      "double plus",
                                      "float max",
                                      "mat2 multiply",
                                      "affine compose",
                                      "interval merge",
                                      "16-byte struct without default constructor"};
  return names[static_cast<int>(k)];
}

const char* name(algorithm a)
{
  static const char* const names[] = {"reduce",
                                      "reduce_into",
                                      "transform_reduce",
                                      "arg_min",
                                      "arg_max",
                                      "arg_max_last",
                                      "arg_min_max",
                                      "segmented_reduce (CSR)",
                                      "segmented_reduce (CUB form)",
                                      "segmented_reduce (fixed size)",
                                      "segmented_arg_min",
                                      "segmented_arg_max",
                                      "reduce_by_key",
                                      "reduce_axes",
                                      "transform_reduce_axes",
                                      "reduce_partial (pieces combined)",
                                      "accumulator"};
  return names[static_cast<int>(a)];
}

const char* name(policy p)
{
  static const char* const names[] = {"rk::seq",         "rk::host",     "rk::device",
                                      "rk::single_pass", "rk::two_pass", "rk::atomic"};
  return names[static_cast<int>(p)];
}

const char* name(layout l)
{
  static const char* const names[] = {"uniform", "mostly empty", "power law", "one huge plus tiny", "equal"};
  return names[static_cast<int>(l)];
}

std::string call::describe() const
{
  std::ostringstream s;
  s << name(a) << " of " << name(k) << " on " << name(p) << ", n = " << n << ", start " << offset
    << " items past an allocation, " << (fancy ? "items from a transform iterator" : "items in memory");
  if (count_on_device())
  {
    s << ", the count in device memory";
  }
  if (segmented())
  {
    s << ", segments " << name(segments) << " around " << typical << " items";
    if (a == algorithm::segmented_csr || a == algorithm::segmented_arg_min || a == algorithm::segmented_arg_max)
    {
      s << (int32_offsets ? ", int32 offsets" : ", int64 offsets");
    }
  }
  if (a == algorithm::reduce_by_key)
  {
    s << (with_init ? ", with init" : ", Thrust's form (no init)");
  }
  if (over_axes())
  {
    s << ", " << make_axes_shape(*this).describe();
  }
  return s.str();
}

std::int64_t axes_shape::items() const
{
  std::int64_t n = 1;
  for (int k = 0; k < rank; ++k)
  {
    n *= extent[k];
  }
  return n;
}

std::string axes_shape::describe() const
{
  std::ostringstream s;
  s << "x of extents (";
  for (int k = 0; k < rank; ++k)
  {
    s << (k ? ", " : "") << extent[k];
  }
  s << ") in "
    << (x_view == view::right  ? "layout_right"
        : x_view == view::left ? "layout_left"
                               : "layout_stride (transposed)")
    << ", axes {";
  for (int k = 0; k < axis_count; ++k)
  {
    s << (k ? ", " : "") << axes[k];
  }
  s << "}";
  return s.str();
}

axes_shape make_axes_shape(const call& c)
{
  rk_test::splitmix r{c.data_seed ^ 0xa4e5ull};
  axes_shape a{};
  a.rank = 1 + static_cast<int>(r.next() % 3);
  // The last extent near the call's typical length (rows of 1 to 2^20 items), the first takes what
  // is left of n, a middle one is small; extents of 0 and 1 come with small n.
  std::int64_t left = c.n;
  for (int k = a.rank - 1; k >= 1; --k)
  {
    const std::int64_t e = k == a.rank - 1 ? std::min<std::int64_t>(c.typical, std::max<std::int64_t>(left, 1))
                                           : 1 + static_cast<std::int64_t>(r.next() % 7);
    a.extent[k]          = e;
    left                 = e > 0 ? left / e : 0;
  }
  a.extent[0] = left;
  a.x_view    = static_cast<axes_shape::view>(r.next() % 3);
  // A random subset of the axes (the empty one too), named in a random order.
  int order[3] = {0, 1, 2};
  for (int k = a.rank - 1; k > 0; --k)
  {
    std::swap(order[k], order[r.next() % static_cast<std::uint64_t>(k + 1)]);
  }
  const unsigned subset = static_cast<unsigned>(r.next() % (1u << a.rank));
  for (int k = 0; k < a.rank; ++k)
  {
    if ((subset >> order[k]) & 1u)
    {
      a.axes[a.axis_count++] = order[k];
    }
  }
  return a;
}

namespace
{
/// Sizes from 0 to 2^max_log2, weighted towards the boundaries of lanes, tiles, windows, blocks
/// and grids, where the kernels change paths.
std::int64_t draw_size(rk_test::splitmix& r, int max_log2)
{
  const double p = r.uniform();
  if (p < 0.06)
  {
    return static_cast<std::int64_t>(r.next() % 4); // empty and nearly empty
  }
  if (p < 0.55)
  {
    static const std::int64_t bounds[] = {4,    8,     32,    64,      256,     1024,    2048,
                                          8192, 32768, 65536, 1 << 17, 1 << 19, 1 << 20, 1 << 22};
    std::int64_t b                     = bounds[r.next() % (sizeof(bounds) / sizeof(bounds[0]))];
    b *= 1 + static_cast<std::int64_t>(r.next() % 3);
    const std::int64_t n = b + static_cast<std::int64_t>(r.next() % 5) - 2;
    return std::clamp<std::int64_t>(n, 0, std::int64_t{1} << max_log2);
  }
  const int top = p < 0.97 ? std::min(max_log2, 22) : max_log2;
  return static_cast<std::int64_t>(std::exp2(r.uniform() * top));
}
} // namespace

call draw_call(std::uint64_t seed, int thread, std::int64_t index, bool gpu, int max_log2)
{
  rk_test::splitmix r{mix(seed ^ mix(static_cast<std::uint64_t>(thread) * 0x100000001b3ull + 0x51ed27ull)
                          ^ static_cast<std::uint64_t>(index) * 0x9e3779b97f4a7c15ull)};
  call c{};
  c.seed      = seed;
  c.thread    = thread;
  c.index     = index;
  c.data_seed = r.next();
  // Graph replays (threads 100 on) and calls left behind by an exiting thread (200 on) draw
  // stream-ordered GPU calls only.
  const bool stream_ordered = gpu && thread >= 100;
  for (;;)
  {
    c.k = static_cast<kind>(r.next() % static_cast<int>(kind::count));
    c.a = static_cast<algorithm>(r.next() % static_cast<int>(algorithm::count));
    if (stream_ordered && c.a != algorithm::reduce_into && c.a != algorithm::segmented_csr
        && c.a != algorithm::segmented_fixed)
    {
      continue;
    }
    const double q = r.uniform();
    if (!gpu)
    {
      c.p = q < 0.4 ? policy::seq : policy::host;
    }
    else if (stream_ordered)
    {
      c.p = q < 0.5 ? policy::device : q < 0.75 ? policy::two_pass : policy::atomic;
    }
    else
    {
      c.p = q < 0.1  ? policy::seq
          : q < 0.2  ? policy::host
          : q < 0.55 ? policy::device
          : q < 0.7  ? policy::single_pass
          : q < 0.85 ? policy::two_pass
                     : policy::atomic;
    }
    if (allowed(c.k, c.a, c.p))
    {
      break;
    }
  }
  c.n                                 = draw_size(r, max_log2);
  c.offset                            = r.next() % 4 == 0 ? 0 : static_cast<int>(1 + r.next() % 3);
  c.fancy                             = fancy_allowed(c.k, c.a, c.p) && r.next() % 3 == 0;
  c.with_init                         = !without_init_allowed(c.k) || r.next() % 4 != 0;
  c.segments                          = static_cast<layout>(r.next() % static_cast<int>(layout::count));
  static const std::int64_t typical[] = {1,   2,   3,   4,   5,    8,    16,   31,   32,    33,
                                         100, 255, 256, 257, 1000, 4095, 4096, 4097, 65536, 1 << 20};
  c.typical                           = typical[r.next() % (sizeof(typical) / sizeof(typical[0]))];
  // At most about 2^22 segments: the host reference and the offsets stay small.
  c.typical       = std::max(c.typical, c.n >> 22);
  c.int32_offsets = c.n < (std::int64_t{1} << 31) && r.next() % 2 == 0;
  return c;
}

std::vector<std::int64_t> make_offsets(const call& c)
{
  if (c.segments == layout::huge_plus_tiny && c.n > 0)
  {
    return rk_test::make_offsets(rk_test::segment_layout::huge_plus_tiny, c.n, c.data_seed);
  }
  rk_test::splitmix r{c.data_seed ^ 0x5e6e5ull};
  std::vector<std::int64_t> offsets{0};
  const std::int64_t t = c.typical;
  while (offsets.back() < c.n)
  {
    std::int64_t len = t;
    switch (c.segments)
    {
      case layout::uniform:
        len = static_cast<std::int64_t>(r.next() % static_cast<std::uint64_t>(2 * t + 1));
        break;
      case layout::mostly_empty:
        len = r.next() % 10 < 7 ? 0 : 1 + static_cast<std::int64_t>(r.next() % static_cast<std::uint64_t>(2 * t));
        break;
      case layout::power_law:
        len = static_cast<std::int64_t>(std::min(1e15, static_cast<double>(t) * std::pow(r.uniform(), -1.26)));
        break;
      default:
        break;
    }
    offsets.push_back(std::min(c.n, offsets.back() + len));
  }
  if (c.n == 0 && r.next() % 2 == 0)
  {
    offsets.push_back(0); // one empty segment over no items
  }
  return offsets;
}
} // namespace soak
