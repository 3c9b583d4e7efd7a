// rk_bench_tuning: rk::single_pass under a grid of launch shapes, to choose the defaults of
// include/rk/cuda/tuning.cuh (its figures come from here). Its own binary because every shape
// instantiates rk's kernels once per type. Compare with rk_bench_reduce's CUB and probe rows of
// the same run: perf/bench_summary.py reads 'reduce.json+tuning.json' as one run.
//
// Axes: T (int32, float, double), Impl (a type axis: the shape, "block_threads/lane_units/
// chunks_in_flight/min_chunks_per_warp/waves", or "default" for rk::default_tuning and
// "grid-ordered" for its shapes with the grid-ordered tree), Elements (2^10 to 2^30). Under the
// reproducible tree (the default) a chunk is one tile and lane_units plays no part, so the list
// varies the others. Every result is checked against rk::two_pass's sum (the same bits: the tree
// does not depend on the backend or the shape; the grid-ordered tree to a tolerance).
//
//   rk_bench_tuning --no-batch --max-noise 1 --timeout 0.5 -a 'Elements[pow2]=[24,28]' --json F

#include "common.cuh"
#include "inputs.cuh"

#include <rk/reduce.cuh>

#include <thrust/device_vector.h>

#include <cstdint>
#include <string>

namespace
{
template <int BlockThreads, int LaneUnits, int ChunksInFlight, int MinChunksPerWarp, int Waves>
using shape = rk::fixed_tuning<BlockThreads, LaneUnits, ChunksInFlight, MinChunksPerWarp, Waves>;

// Listed rather than generated, so that what gets compiled is plain to see.
// clang-format off
using shapes = nvbench::type_list<
  rk::default_tuning, rk::grid_ordered_tuning,
  shape<256, 2, 2, 1, 1>, shape<256, 2, 2, 4, 1>, shape<256, 2, 4, 2, 1>, shape<256, 2, 4, 4, 1>,
  shape<256, 2, 2, 2, 2>, shape<256, 2, 4, 4, 2>, shape<512, 2, 2, 2, 1>, shape<512, 2, 2, 2, 2>,
  shape<512, 2, 4, 4, 1>, shape<512, 2, 1, 1, 1>, shape<512, 2, 1, 2, 2>, shape<128, 2, 4, 4, 1>,
  shape<128, 2, 4, 2, 2>, shape<128, 2, 2, 2, 2>, shape<1024, 2, 1, 1, 1>, shape<1024, 2, 2, 2, 1>>;
// clang-format on
using value_types = nvbench::type_list<std::int32_t, float, double>;

template <class T, class Shape>
void tuning_body(nvbench::state& state)
{
  const std::int64_t n     = state.get_int64("Elements");
  const cudaStream_t setup = state.get_cuda_stream();
  thrust::device_vector<T> in(static_cast<std::size_t>(n));
  thrust::device_vector<T> out(1);
  rk_bench::fill_random(thrust::raw_pointer_cast(in.data()), static_cast<std::size_t>(n), setup);
  const T* first   = thrust::raw_pointer_cast(in.data());
  T* result        = thrust::raw_pointer_cast(out.data());
  const auto tuned = rk::single_pass.tuned<Shape>();
  state.add_element_count(static_cast<std::size_t>(n));
  state.add_global_memory_reads<T>(static_cast<std::size_t>(n));
  state.add_global_memory_writes<T>(1);

  // Another backend's sum: the reproducible tree does not depend on the backend or the shape.
  const T want  = rk::reduce(rk::two_pass.on(setup), first, first + n, T{}, rk::plus{});
  const T got   = rk::reduce(tuned.on(setup), first, first + n, T{}, rk::plus{});
  const bool ok = std::is_same_v<Shape, rk::grid_ordered_tuning> ? rk_bench::results_match(got, want)
                                                                 : rk_bench::same_bits(got, want);
  if (!ok)
  {
    rk_bench::fail(state, "rk_bench_tuning",
                   std::to_string(static_cast<double>(got)) + ", the default tuning "
                     + std::to_string(static_cast<double>(want)));
  }
  state.exec(nvbench::exec_tag::no_batch, [&](nvbench::launch& launch) {
    rk::reduce_into(tuned.on(launch.get_stream()), first, first + n, result, T{}, rk::plus{});
  });
}

template <class T, class Shape>
void tuning(nvbench::state& state, nvbench::type_list<T, Shape>)
{
  rk_bench::counting_failures(state, "rk_bench_tuning", [&] { tuning_body<T, Shape>(state); });
}
} // namespace

// The shapes' names in tables and on the command line (-a 'Impl=256/2/4/4/1').
namespace nvbench
{
template <int B, int L, int C, int M, int W>
struct type_strings<shape<B, L, C, M, W>>
{
  static std::string input_string()
  {
    return std::to_string(B) + "/" + std::to_string(L) + "/" + std::to_string(C) + "/" + std::to_string(M) + "/"
         + std::to_string(W);
  }
  static std::string description()
  {
    return "block_threads/lane_units/chunks_in_flight/min_chunks_per_warp/waves";
  }
};
} // namespace nvbench
NVBENCH_DECLARE_TYPE_STRINGS(rk::default_tuning, "default", "rk::default_tuning");
NVBENCH_DECLARE_TYPE_STRINGS(rk::grid_ordered_tuning, "grid-ordered", "rk::grid_ordered_tuning");

NVBENCH_BENCH_TYPES(tuning, NVBENCH_TYPE_AXES(value_types, shapes))
  .set_name("tuning")
  .set_type_axes_names({"T", "Impl"})
  .add_int64_power_of_two_axis("Elements", nvbench::range(10, 30, 2));

NVBENCH_MAIN
