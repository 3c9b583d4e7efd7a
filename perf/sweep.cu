// rk_perf --sweep: rk::single_pass under a small grid of launch shapes, next to CUB and the read
// probe, to choose include/rk/cuda/tuning.cuh's defaults. Its own translation unit because the
// grid instantiates rk's kernels 16 times per type; it compiles in parallel with rk_perf.cu.
// Timing (interleaved trials), inputs and checks are the suite's (harness.cuh, rk_cases.cuh).

#include "sweep.cuh"

#include "ratios.cuh"
#include "rk_cases.cuh"

#include <rk/reduce.cuh>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <tuple>

namespace rk_perf
{
namespace
{
template <int BlockThreads, int LaneUnits, int ChunksInFlight, int MinChunksPerWarp, int Waves>
using shape = rk::fixed_tuning<BlockThreads, LaneUnits, ChunksInFlight, MinChunksPerWarp, Waves>;

// block_threads x lane_units x chunks_in_flight x min_chunks_per_warp x waves, listed rather than
// generated so that what gets compiled is plain to see: every entry instantiates rk's kernels once
// per swept type. Under the reproducible tree (the default) a chunk is one tile and lane_units
// plays no part, so the list varies the others.
// clang-format off
using sweep_shapes = std::tuple<
  shape<256, 2, 2, 1, 1>, shape<256, 2, 2, 4, 1>, shape<256, 2, 4, 2, 1>, shape<256, 2, 4, 4, 1>,
  shape<256, 2, 2, 2, 2>, shape<256, 2, 4, 4, 2>, shape<512, 2, 2, 2, 1>, shape<512, 2, 2, 2, 2>,
  shape<512, 2, 4, 4, 1>, shape<512, 2, 1, 1, 1>, shape<512, 2, 1, 2, 2>, shape<128, 2, 4, 4, 1>,
  shape<128, 2, 4, 2, 2>, shape<128, 2, 2, 2, 2>, shape<1024, 2, 1, 1, 1>, shape<1024, 2, 2, 2, 1>>;
// clang-format on

/// How the row of rk's default tuning is labelled (followed by its shape).
const std::string default_label = "default ";
/// The row of rk's default shapes with the grid-ordered tree: what the reproducible tree is held to.
const std::string grid_label = "grid-ordered";

/// "256/1/4/1": the shape a provider gives T's vectorized path.
template <class Provider, class T>
std::string shape_name()
{
  constexpr rk::reduce_tuning t = Provider::template get<T, true>();
  return std::to_string(t.block_threads) + "/" + std::to_string(t.lane_units) + "/" + std::to_string(t.chunks_in_flight)
       + "/" + std::to_string(t.min_chunks_per_warp) + "/" + std::to_string(t.waves);
}

template <class T>
void sweep_size(run_context& ctx, cub_storage& cub, input_slices<T>& in, int log2, std::vector<measurement>& results)
{
  const std::string type = type_traits<T>::name;
  const T want           = cub_result(ctx, cub, in);

  std::vector<contender> contenders = {cub_contender(ctx, cub, in, "cub"), probe_contender(ctx, in)};
  const std::string default_name    = default_label + shape_name<rk::default_tuning, T>();
  contenders.push_back(
    checked_rk_contender(ctx, type, log2, default_name, rk::single_pass, in, T{}, rk::plus{}, want, "CUB"));
  contenders.push_back(checked_rk_contender(
    ctx, type, log2, grid_label, rk::single_pass.tuned<rk::grid_ordered_tuning>(), in, T{}, rk::plus{}, want, "CUB"));
  std::apply(
    [&](auto... shapes) {
      (contenders.push_back(checked_rk_contender(ctx, type, log2, shape_name<decltype(shapes), T>(),
                                                 rk::single_pass.tuned<decltype(shapes)>(), in, T{}, rk::plus{}, want,
                                                 "CUB")),
       ...);
    },
    sweep_shapes{});
  for (auto& row : measure_interleaved<T>(ctx, type, log2, contenders))
  {
    results.push_back(std::move(row));
  }
}

/// The rows of one type: per size, CUB, the probe, the default shape and the grid.
void print_type(const std::string& type, const std::vector<int>& log2_sizes, const std::vector<measurement>& results)
{
  markdown_table table({"n", "variant", "us/call", "spread %", "GB/s", "% probe", "vs CUB"}, 2);
  markdown_table best({"n", "fastest shape", "us/call", "% probe", "vs default", "vs grid-ordered"}, 2);
  for (const int log2 : log2_sizes)
  {
    const measurement* cub         = find(results, type, log2, "cub");
    const measurement* probe       = find(results, type, log2, "probe");
    const measurement* fastest     = nullptr;
    const measurement* default_row = nullptr;
    const measurement* grid_row    = find(results, type, log2, grid_label);
    for (const auto& m : results)
    {
      if (m.type != type || m.log2n != log2 || !m.device)
      {
        continue;
      }
      table.add_row({power_of_two(log2), m.impl, fixed(m.device->median_us, 2),
                     fixed(spread_percent(m.device->samples_us), 1), fixed(m.gbps(), 1),
                     relative_speed(results, m, probe, 100, 1), relative_speed(results, m, cub, 1, 2)});
      const bool is_default = m.impl.rfind(default_label, 0) == 0;
      const bool is_shape   = !is_default && m.impl != "cub" && m.impl != "probe" && m.impl != grid_label;
      if (is_default)
      {
        default_row = &m;
      }
      else if (is_shape && (fastest == nullptr || m.device->median_us < fastest->device->median_us))
      {
        fastest = &m;
      }
    }
    if (fastest != nullptr)
    {
      best.add_row({power_of_two(log2), fastest->impl, fixed(fastest->device->median_us, 2),
                    relative_speed(results, *fastest, probe, 100, 1),
                    relative_speed(results, *fastest, default_row, 1, 2),
                    relative_speed(results, *fastest, grid_row, 1, 2)});
    }
  }
  std::cout << "\n## " << type << " sum, rk::single_pass\n\n"
            << "variant = block_threads/lane_units/chunks_in_flight/min_chunks_per_warp/waves\n\n";
  table.print(std::cout);
  std::cout << "\nFastest shape per size (vs default = default time / fastest time; vs grid-ordered likewise):\n\n";
  best.print(std::cout);
  std::cout.flush();
}

template <class T>
void sweep_type(run_context& ctx, cub_storage& cub, const std::vector<int>& log2_sizes,
                std::vector<measurement>& results)
{
  const std::string type = type_traits<T>::name;
  for (const int log2 : log2_sizes)
  {
    if (auto in = prepare_case<T>(ctx, log2))
    {
      sweep_size(ctx, cub, *in, log2, results);
    }
  }
  print_type(type, log2_sizes, results);
}
} // namespace

const std::vector<std::string>& sweep_types()
{
  static const std::vector<std::string> types = {"int32", "float", "double"};
  return types;
}

const std::vector<int>& sweep_default_log2_sizes()
{
  static const std::vector<int> sizes = {14, 18, 22, 26, 28};
  return sizes;
}

void run_sweep(run_context& ctx, const std::vector<std::string>& types, const std::vector<int>& log2_sizes,
               std::vector<measurement>& results)
{
  const auto wanted     = [&](const char* name) { return std::find(types.begin(), types.end(), name) != types.end(); };
  std::size_t cub_bytes = 0;
  for_each_type<std::int32_t, float, double>([&](auto tag) {
    using T = typename decltype(tag)::type;
    if (wanted(type_traits<T>::name))
    {
      cub_bytes = std::max(cub_bytes, cub_temp_bytes_for<T>(log2_sizes));
    }
  });
  cub_storage cub(cub_bytes);
  for_each_type<std::int32_t, float, double>([&](auto tag) {
    using T = typename decltype(tag)::type;
    if (wanted(type_traits<T>::name))
    {
      sweep_type<T>(ctx, cub, log2_sizes, results);
    }
  });
}
} // namespace rk_perf
