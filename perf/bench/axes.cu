// rk_bench_axes: rk::reduce_axes and rk::transform_reduce_axes (rk::mean_var) on NVBench, on the
// shapes of issue 33, against a probe that reads x once and writes out once. Axes: T (float,
// double), Elements (2^26, and 2^28 with each shape's largest extent four times longer), Layout
// (x as layout_right; as layout_left; as a layout_stride view of an array whose two leading axes
// are swapped in memory, a transposed view) and Case. x(i...) = (i's row-major index) % 7 in every
// layout, so the sums do not depend on it, and every state is checked against the host before it
// is timed (a mismatch makes the exit status 1): sums are exact while they stay below 2^24 in
// float, and always in double.
//   reduce_axes    sums over one, two or all axes: rows, columns, the last axis at 4 to 8192 items
//                  an output, the first axis of tall and wide arrays, a middle axis, axes 0 and 2;
//   mean_var_axes  layer norm's and batch norm's statistics (rk::mean_var).
// perf/torch_axes.py times torch.sum / torch.var_mean on the same shapes, types and layouts;
// perf/bench_summary.py prints the tables and the targets from the JSON.

#include "common.cuh"

#include <rk/reduce.cuh>

#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace
{
constexpr const char* binary = "rk_bench_axes";

struct axes_case
{
  std::string name;
  std::vector<std::int64_t> extents; // at 2^26 items
  std::vector<int> axes;
};

constexpr std::int64_t mega = std::int64_t{1} << 20;

const std::vector<axes_case>& sum_cases()
{
  static const std::vector<axes_case> cases = {
    {"all axes, 8192 x 8192", {8192, 8192}, {0, 1}},
    {"rows, 8192 x 8192", {8192, 8192}, {1}},
    {"columns, 8192 x 8192", {8192, 8192}, {0}},
    {"last axis, 2^24 x 4", {mega * 16, 4}, {1}},
    {"last axis, 2^23 x 8", {mega * 8, 8}, {1}},
    {"last axis, 2^20 x 64", {mega, 64}, {1}},
    {"last axis, 65536 x 1024", {65536, 1024}, {1}},
    {"first axis, 2^23 x 8", {mega * 8, 8}, {0}},
    {"first axis, 2^20 x 64", {mega, 64}, {0}},
    {"first axis, 64 x 2^20", {64, mega}, {0}},
    {"first axis, 8 x 2^23", {8, mega * 8}, {0}},
    {"middle axis, 64 x 1024 x 1024", {64, 1024, 1024}, {1}},
    {"axes 0 and 2, 32 x 256 x 8192", {32, 256, 8192}, {0, 2}},
    {"axes 0 and 2, 256 x 512 x 512", {256, 512, 512}, {0, 2}},
  };
  return cases;
}

const std::vector<axes_case>& statistics_cases()
{
  static const std::vector<axes_case> cases = {
    {"layer norm, 65536 x 1024", {65536, 1024}, {1}},
    {"batch norm, 32 x 256 x 8192", {32, 256, 8192}, {0, 2}},
  };
  return cases;
}

std::vector<std::string> names_of(const std::vector<axes_case>& cases)
{
  std::vector<std::string> names;
  for (const auto& c : cases)
  {
    names.push_back(c.name);
  }
  return names;
}

const axes_case& find_case(const std::vector<axes_case>& cases, const std::string& name)
{
  for (const auto& c : cases)
  {
    if (c.name == name)
    {
      return c;
    }
  }
  throw std::runtime_error("rk_bench_axes: no case named '" + name + "'");
}

bool is_reduced(const axes_case& c, std::size_t axis)
{
  for (int a : c.axes)
  {
    if (a == static_cast<int>(axis))
    {
      return true;
    }
  }
  return false;
}

/// The case's extents at 2^log2_items items: its largest extent (the first of equals) grown.
std::vector<std::int64_t> extents_at(const axes_case& c, int log2_items)
{
  std::vector<std::int64_t> e = c.extents;
  std::size_t largest         = 0;
  for (std::size_t k = 1; k < e.size(); ++k)
  {
    largest = e[k] > e[largest] ? k : largest;
  }
  e[largest] <<= log2_items - 26;
  return e;
}

/// Exact host sums of x's items per output (row-major over the kept axes): one pass over x, once
/// per shape (every type and layout holds the same values).
const std::vector<double>& host_sums(const axes_case& c, const std::vector<std::int64_t>& extents)
{
  static std::map<std::pair<std::string, std::int64_t>, std::vector<double>> done;
  const std::size_t rank = extents.size();
  std::int64_t outputs = 1, items = 1;
  for (std::size_t k = 0; k < rank; ++k)
  {
    items *= extents[k];
    outputs *= is_reduced(c, k) ? 1 : extents[k];
  }
  std::vector<double>& sums = done[{c.name, items}];
  if (!sums.empty())
  {
    return sums;
  }
  sums.assign(static_cast<std::size_t>(outputs), 0.0);
  std::vector<std::int64_t> digit(rank, 0);
  for (std::int64_t i = 0; i < items; ++i)
  {
    std::int64_t o = 0;
    for (std::size_t k = 0; k < rank; ++k)
    {
      o = is_reduced(c, k) ? o : o * extents[k] + digit[k];
    }
    sums[static_cast<std::size_t>(o)] += static_cast<double>(i % 7);
    for (std::size_t k = rank; k-- > 0;)
    {
      if (++digit[k] < extents[k])
      {
        break;
      }
      digit[k] = 0;
    }
  }
  return sums;
}

enum class layout
{
  right,
  left,
  stride
};

/// Where x's axes lie in memory, outermost first: k for layout_right, reversed for layout_left,
/// the two leading ones swapped for the layout_stride view.
std::vector<int> memory_order(layout l, std::size_t rank)
{
  std::vector<int> order(rank);
  for (std::size_t k = 0; k < rank; ++k)
  {
    order[k] = static_cast<int>(l == layout::left ? rank - 1 - k : k);
  }
  if (l == layout::stride)
  {
    std::swap(order[0], order[1]);
  }
  return order;
}

/// x's strides (in items) for that memory order.
std::vector<std::int64_t> strides_of(const std::vector<std::int64_t>& extents, const std::vector<int>& order)
{
  std::vector<std::int64_t> stride(extents.size());
  std::int64_t step = 1;
  for (std::size_t j = order.size(); j-- > 0;)
  {
    stride[static_cast<std::size_t>(order[j])] = step;
    step *= extents[static_cast<std::size_t>(order[j])];
  }
  return stride;
}

constexpr int max_rank = 3;

/// The item at memory offset m: (its row-major index) % 7.
template <class T>
struct value_at_offset
{
  int rank;
  std::int64_t extent[max_rank];    // in memory order, outermost first
  std::int64_t row_major[max_rank]; // each memory-order axis's row-major stride
  __host__ __device__ T operator()(std::int64_t m) const
  {
    std::int64_t i = 0;
    for (int j = rank; j-- > 0;)
    {
      i += (m % extent[j]) * row_major[j];
      m /= extent[j];
    }
    return static_cast<T>(i % 7);
  }
};

/// Calls f(x as a rank-R mdspan in layout l, the output's rank-K extents): layout_right and
/// layout_left as those layouts, the transposed view as layout_stride.
template <std::size_t R, std::size_t K, class T, class F>
void with_views(const axes_case& c, layout l, const std::vector<std::int64_t>& extents,
                const std::vector<std::int64_t>& stride, const T* x, F&& f)
{
  using x_extents   = cuda::std::dextents<std::int64_t, R>;
  using out_extents = cuda::std::dextents<std::int64_t, K>;
  cuda::std::array<std::int64_t, R> e{}, s{};
  cuda::std::array<std::int64_t, K> kept{};
  std::size_t j = 0;
  for (std::size_t a = 0; a < R; ++a)
  {
    e[a] = extents[a];
    s[a] = stride[a];
    if (!is_reduced(c, a))
    {
      kept[j++] = extents[a];
    }
  }
  switch (l)
  {
    case layout::right:
      f(cuda::std::mdspan<const T, x_extents, cuda::std::layout_right>(x, x_extents(e)), out_extents(kept));
      break;
    case layout::left:
      f(cuda::std::mdspan<const T, x_extents, cuda::std::layout_left>(x, x_extents(e)), out_extents(kept));
      break;
    case layout::stride:
      f(cuda::std::mdspan<const T, x_extents, cuda::std::layout_stride>(
          x, cuda::std::layout_stride::mapping<x_extents>(x_extents(e), s)),
        out_extents(kept));
      break;
  }
}

template <class T, class F>
void with_case_views(const axes_case& c, layout l, const std::vector<std::int64_t>& extents,
                     const std::vector<std::int64_t>& stride, const T* x, F&& f)
{
  const std::size_t kept = extents.size() - c.axes.size();
  if (extents.size() == 2)
  {
    kept == 1 ? with_views<2, 1>(c, l, extents, stride, x, f) : with_views<2, 0>(c, l, extents, stride, x, f);
  }
  else
  {
    kept == 2 ? with_views<3, 2>(c, l, extents, stride, x, f) : with_views<3, 1>(c, l, extents, stride, x, f);
  }
}

template <class T>
void axes_body(nvbench::state& state, bool statistics)
{
  const axes_case& c       = find_case(statistics ? statistics_cases() : sum_cases(), state.get_string("Case"));
  const std::int64_t items = state.get_int64("Elements");
  int log2_items           = 0;
  while ((std::int64_t{1} << log2_items) < items)
  {
    ++log2_items;
  }
  const std::vector<std::int64_t> extents = extents_at(c, log2_items);
  const std::string& layout_name          = state.get_string("Layout");
  const layout l = layout_name == "right" ? layout::right : layout_name == "left" ? layout::left : layout::stride;
  const std::vector<int> order              = memory_order(l, extents.size());
  const std::vector<std::int64_t> stride    = strides_of(extents, order);
  const std::vector<std::int64_t> row_major = strides_of(extents, memory_order(layout::right, extents.size()));
  std::int64_t outputs                      = items;
  for (int a : c.axes)
  {
    outputs /= extents[static_cast<std::size_t>(a)];
  }
  value_at_offset<T> value{static_cast<int>(extents.size()), {}, {}};
  for (std::size_t j = 0; j < order.size(); ++j)
  {
    value.extent[j]    = extents[static_cast<std::size_t>(order[j])];
    value.row_major[j] = row_major[static_cast<std::size_t>(order[j])];
  }
  using stats = rk::mean_var<T>;
  thrust::device_vector<T> x(static_cast<std::size_t>(items));
  thrust::transform(thrust::counting_iterator<std::int64_t>(0), thrust::counting_iterator<std::int64_t>(items),
                    x.begin(), value);
  thrust::device_vector<stats> out(static_cast<std::size_t>(outputs));
  const T* in            = thrust::raw_pointer_cast(x.data());
  void* o                = thrust::raw_pointer_cast(out.data());
  const std::size_t each = statistics ? sizeof(stats) : sizeof(T);
  state.add_element_count(static_cast<std::size_t>(items));
  state.add_global_memory_reads<T>(static_cast<std::size_t>(items));
  state.add_global_memory_writes<unsigned char>(static_cast<std::size_t>(outputs) * each);
  const std::string& impl = state.get_string("Impl");
  if (impl == "probe")
  {
    // The bytes of x and of out, whatever the layout: the same probe under every one.
    thrust::device_vector<unsigned> sink(static_cast<std::size_t>(outputs) * each / 4);
    auto* s          = thrust::raw_pointer_cast(sink.data());
    const int blocks = rk_bench::probe_blocks(rk_bench::read_write_probe);
    state.exec(nvbench::exec_tag::no_batch, [&](nvbench::launch& launch) {
      rk_bench::read_write_probe<<<blocks, rk_bench::probe_threads, 0, launch.get_stream()>>>(
        reinterpret_cast<const uint4*>(in), nullptr, items * static_cast<std::int64_t>(sizeof(T)) / 16, s,
        outputs * static_cast<std::int64_t>(each) / 4);
    });
    return;
  }
  const rk::axes reduced = c.axes.size() == 1 ? rk::axes{c.axes[0]} : rk::axes{c.axes[0], c.axes[1]};
  const auto call        = [&](cudaStream_t stream) {
    with_case_views(c, l, extents, stride, in, [&](auto xv, auto out_extents) {
      using kept = decltype(out_extents);
      if (statistics)
      {
        rk::transform_reduce_axes(rk::device.on(stream), xv, reduced,
                                         cuda::std::mdspan<stats, kept>(static_cast<stats*>(o), out_extents), stats{},
                                         rk::mean_var_op<T>{}, rk::to_mean_var<T>{});
      }
      else
      {
        rk::reduce_axes(rk::device.on(stream), xv, reduced, cuda::std::mdspan<T, kept>(static_cast<T*>(o), out_extents),
                               T(0));
      }
    });
  };
  // Correctness first: a wrong result fails the run.
  const cudaStream_t setup = state.get_cuda_stream();
  call(setup);
  rk_bench::check(cudaStreamSynchronize(setup), "rk::reduce_axes");
  const std::vector<double>& want = host_sums(c, extents);
  const std::int64_t per          = items / outputs;
  std::size_t wrong               = 0;
  if (statistics)
  {
    thrust::host_vector<stats> got(out);
    for (std::size_t i = 0; i < want.size(); ++i)
    {
      const double mean = want[i] / static_cast<double>(per);
      wrong += got[i].count != per || std::abs(got[i].mean - mean) > 1e-3 * (1 + mean);
    }
  }
  else
  {
    const T* sums = static_cast<const T*>(o);
    thrust::host_vector<T> got(thrust::device_pointer_cast(sums), thrust::device_pointer_cast(sums) + outputs);
    // Exact while every partial sum is an integer within T's significand; past it the tree's error
    // bound.
    const double exact     = sizeof(T) == 8 ? 9.0e15 : double(1 << 24);
    const double tolerance = static_cast<double>(per) * 6 < exact ? 0.0 : 1e-6 * std::log2(static_cast<double>(items));
    for (std::size_t i = 0; i < want.size(); ++i)
    {
      wrong += std::abs(static_cast<double>(got[i]) - want[i]) > tolerance * want[i];
    }
  }
  if (wrong != 0)
  {
    rk_bench::fail(state, binary, std::to_string(wrong) + " wrong outputs");
  }
  state.exec(nvbench::exec_tag::no_batch, [&](nvbench::launch& launch) { call(launch.get_stream()); });
}

/// The state's T: float or double.
void typed_body(nvbench::state& state, bool statistics)
{
  if (state.get_string("T") == "F64")
  {
    axes_body<double>(state, statistics);
  }
  else
  {
    axes_body<float>(state, statistics);
  }
}

void reduce_axes(nvbench::state& state)
{
  rk_bench::counting_failures(state, binary, [&] { typed_body(state, false); });
}

void mean_var_axes(nvbench::state& state)
{
  rk_bench::counting_failures(state, binary, [&] { typed_body(state, true); });
}
} // namespace

NVBENCH_BENCH(reduce_axes)
  .set_name("reduce_axes")
  .add_string_axis("T", {"F32", "F64"})
  .add_int64_power_of_two_axis("Elements", {26, 28})
  .add_string_axis("Layout", {"right", "left", "stride"})
  .add_string_axis("Case", names_of(sum_cases()))
  .add_string_axis("Impl", {"rk::device", "probe"});

NVBENCH_BENCH(mean_var_axes)
  .set_name("mean_var_axes")
  .add_string_axis("T", {"F32", "F64"})
  .add_int64_power_of_two_axis("Elements", {26, 28})
  .add_string_axis("Layout", {"right", "left", "stride"})
  .add_string_axis("Case", names_of(statistics_cases()))
  .add_string_axis("Impl", {"rk::device", "probe"});

NVBENCH_MAIN
