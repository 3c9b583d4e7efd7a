// rk_perf: rk's performance suite. One run on one GPU measures, for int32, int64, float and double
// sums over 2^k elements, rk::device, rk::single_pass, rk::two_pass and rk::atomic against
// cub::DeviceReduce::Sum, thrust::reduce and a read-bandwidth probe (the practical speed of
// light), plus a non-commutative operator on the deterministic backends; and, when the CUB peer
// (cub_peer.cu) is built, the newest CUB's modes in the same tables. It prints Markdown tables
// (for perf/RESULTS.md), checks the figures against rk's targets, and writes every figure to a
// JSON file (perf/plot.py draws it).
//
// Method.
//  - Interleaved trials. A case (type, size) times all its implementations together: each trial
//    times every implementation once, the order rotated from one trial to the next (A B C, then
//    B C A, then C A B, ...), so a slow spell of the machine falls on all of them alike instead of
//    on whichever ran during it (issue 7: timed one after the other, rk::device int32 2^16 read
//    25.17 us in one run and 4.89 us in the next).
//  - Device time per call, within a trial: CUDA events around R back-to-back calls of the
//    stream-ordered API (rk::reduce_into, CUB with temporary storage allocated once, the probe
//    kernel) on one non-blocking stream, nothing synchronizing in between; per call = elapsed /
//    R, with R chosen per implementation so its part of a trial lasts about 3 ms (10 to 2000
//    calls). Before the trials, each implementation's sizing runs and then discarded interleaved
//    rounds make at least 30 ms of warm-up per case. For small inputs this is the rate calls can be
//    issued back to back, launch overhead included.
//  - Adaptive trials: every case gets 7 trials (3 with --quick); while the spread of any of its
//    implementations exceeds 5 %, one more trial is added, up to 31 (9 with --quick). Spread =
//    interquartile range of the trials / median, in percent. Reported per implementation: the
//    median and the spread.
//  - Ratios (vs CUB, % probe, the targets) are paired: computed per trial from the two times of
//    that trial, and reported as the median of the per-trial ratios with their interquartile
//    interval. A table's ratio whose interval holds 1 is printed with "~" (this run does not tell
//    the two apart). A target is PASS or MISS only if the interval of every case lies on one side
//    of its limit; if some case's interval straddles it, the target reads "within noise".
//  - The CUB peer runs in its own process (another CCCL), so its rows share no trial with
//    rk_perf's. Both time the probe in every trial, and a ratio to a peer row is taken through
//    the probes: rk / probe (paired, here) x peer probe / peer row (paired, there); its interval
//    multiplies the two intervals.
//  - Host round trip: steady_clock around each value-returning call (rk::reduce with rk::device;
//    thrust::reduce; CUB plus a copy of the result to pinned memory plus cudaStreamSynchronize),
//    interleaved the same way, one round = one call of each; the median over rounds.
//  - Inputs are random (a hash of the index, fixed seed). An input that fits several times in a
//    pool of at least 512 MiB and 4x L2 rotates over distinct, 256-byte-aligned slices of it, so
//    consecutive calls read DRAM as a single call on cold data would, and not a copy L2 kept
//    from the previous call; larger inputs are read once per call anyway. The implementations of
//    a case share one rotation, each carrying on where the previous one stopped. The affine rows
//    read the int64 case's bytes as maps, so they share its trials.
//  - Before timing, every result is checked once against CUB's (exactly for integers, to 1e-4
//    relative for float and 1e-10 for double). A mismatch is printed on stderr and makes the
//    exit status nonzero.

#include "affine.cuh"
#include "cli.hpp"
#include "harness.cuh"
#include "peer_figures.cuh"
#include "ratios.cuh"
#include "rk_cases.cuh"
#include "sweep.cuh"

#include <rk/reduce.cuh>

#include <thrust/reduce.h>

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace rk_perf
{
// ---------------------------------------------------------------------------------------------
// The non-commutative operator (affine.cuh): printing and random maps for the harness.

std::ostream& operator<<(std::ostream& os, const affine& f)
{
  return os << "{a=" << f.a << ", b=" << f.b << "}";
}

template <>
struct type_traits<affine>
{
  static constexpr const char* name = "affine";
};

/// Random maps with odd slopes: with even ones the product of slopes would reach 0 mod 2^32
/// after about 32 maps, and only the last few maps would influence the result, hiding any
/// reordering.
template <>
struct random_value<affine>
{
  std::uint64_t seed;

  __host__ __device__ affine operator()(std::uint64_t i) const
  {
    const std::uint64_t h = splitmix64(seed ^ splitmix64(i));
    return affine{static_cast<std::uint32_t>(h) | 1u, static_cast<std::uint32_t>(h >> 32)};
  }
};

// ---------------------------------------------------------------------------------------------
// Options

/// The implementations --impls can name. "affine" adds single_pass_affine and two_pass_affine
/// to the int64 table.
const std::vector<std::string> known_impls = {"device",       "single_pass", "two_pass", "atomic", "affine",
                                              "grid_ordered", "cub",         "thrust",   "probe"};

/// The order rows appear in a table; rows of other names (the CUB peer's) follow in the order
/// they were measured.
const std::vector<std::string> table_order = {
  "device",        "single_pass", "two_pass", "atomic", "single_pass_affine", "two_pass_affine", "single_pass_grid",
  "two_pass_grid", "cub",         "thrust",   "probe"};

#ifdef RK_PERF_PEER_EXE
/// The peer executable built beside rk_perf (perf/CMakeLists.txt), run unless --peer or --no-peer.
const char* const built_peer = RK_PERF_PEER_EXE;
#else
const char* const built_peer = nullptr;
#endif

struct options : common_options
{
  std::vector<std::string> impls;
  bool sweep = false;
  std::string peer; ///< the CUB peer's executable or JSON; "" for none

  bool wants(const std::string& impl) const
  {
    return std::find(impls.begin(), impls.end(), impl) != impls.end();
  }
};

void print_usage(std::ostream& os)
{
  os << "usage: rk_perf [options]\n"
     << common_usage
     << "  --impls LIST      of device,single_pass,two_pass,atomic,affine,cub,thrust,probe (default all;\n"
        "                    affine: the non-commutative operator, in the int64 table)\n"
        "  --peer PATH       the CUB peer: its executable (run first, on the same cases; its JSON goes\n"
        "                    beside --json's, as *.cub_peer.json) or a JSON file it wrote; its rows and\n"
        "                    ratios join the tables and targets. Default: the peer built beside rk_perf\n"
     << "                    (" << (built_peer != nullptr ? built_peer : "none in this build") << ")\n"
     << "  --no-peer         no CUB peer rows\n"
        "  --sweep           tuning sweep instead of the suite: rk::single_pass with a grid of launch\n"
        "                    shapes, int32/float/double at 2^14,18,22,26,28 (--sizes/--types narrow it)\n"
        "Default --json: rk_perf.json.\n"
        "Environment: RK_COMMIT overrides the commit recorded at build time.\n"
        "Exit status: 0, 1 if a result disagreed with its reference, 2 on an error.\n";
}

bool is_file(const std::string& path)
{
  struct stat info
  {};
  return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

options parse_options(int argc, char** argv)
{
  options opt;
  opt.json_path = "rk_perf.json";
  bool no_peer  = false;
  parse_arguments(argc, argv, opt, [&](const std::string& arg, const std::function<std::string()>& value) {
    if (arg == "--sweep")
    {
      opt.sweep = true;
    }
    else if (arg == "--impls")
    {
      opt.impls = parse_names(arg, value(), known_impls);
    }
    else if (arg == "--peer")
    {
      opt.peer = value();
    }
    else if (arg == "--no-peer")
    {
      no_peer = true;
    }
    else
    {
      return false;
    }
    return true;
  });

  if (opt.sweep)
  {
    if (opt.log2_sizes.empty())
    {
      opt.log2_sizes = sweep_default_log2_sizes();
    }
    if (opt.types.empty())
    {
      opt.types = sweep_types();
    }
    for (const auto& type : opt.types)
    {
      if (std::find(sweep_types().begin(), sweep_types().end(), type) == sweep_types().end())
      {
        throw usage_error("--sweep is compiled for int32, float and double only, not " + type);
      }
    }
  }
  finish_common_options(opt, default_log2_sizes());
  if (opt.impls.empty())
  {
    opt.impls = known_impls;
  }
  if (no_peer || opt.sweep)
  {
    opt.peer.clear();
  }
  else if (opt.peer.empty() && built_peer != nullptr)
  {
    if (is_file(built_peer))
    {
      opt.peer = built_peer;
    }
    else
    {
      std::cerr << "rk_perf: the CUB peer " << built_peer << " is not built: no CUB peer rows\n";
    }
  }
  else if (!opt.peer.empty() && !is_file(opt.peer))
  {
    throw usage_error("--peer: no file " + opt.peer);
  }
  return opt;
}

// ---------------------------------------------------------------------------------------------
// The suite

class suite
{
public:
  /// `peer_rows`: the CUB peer's measurements, shown in the tables with rk_perf's own.
  suite(run_context& ctx, const options& opt, std::vector<measurement> peer_rows)
      : ctx_(ctx)
      , opt_(opt)
      , cub_(largest_cub_temp_bytes(opt))
      , host_result_(16)
      , results_(std::move(peer_rows))
  {}

  /// Measures every requested size of T, then prints T's table.
  template <class T>
  void run_type()
  {
    const std::string type = type_traits<T>::name;
    if (!opt_.wants_type(type))
    {
      return;
    }
    explanation_.clear();
    const bool with_affine = std::is_same_v<T, std::int64_t> && opt_.wants("affine");
    if (with_affine)
    {
      verify_affine_against_host();
    }
    for (const int log2 : opt_.log2_sizes)
    {
      if (auto in = prepare_case<T>(ctx_, log2))
      {
        run_case(*in, log2, with_affine);
        explanation_ = rk::explain(rk::device, in->first(), in->first() + in->size(), T{}, rk::plus{}).to_string();
      }
    }
    print_table(type);
  }

  const std::vector<measurement>& results() const noexcept
  {
    return results_;
  }

private:
  static std::size_t largest_cub_temp_bytes(const options& opt)
  {
    std::size_t most = 0;
    for_each_type<std::int32_t, std::int64_t, float, double>([&](auto tag) {
      using T = typename decltype(tag)::type;
      if (opt.wants_type(type_traits<T>::name))
      {
        most = std::max(most, cub_temp_bytes_for<T>(opt.log2_sizes));
      }
    });
    return most;
  }

  /// Checks every requested implementation of the case once, then times them all in interleaved
  /// trials (device time), and the value-returning calls in interleaved rounds (host time).
  template <class T>
  void run_case(input_slices<T>& in, int log2, bool with_affine)
  {
    const std::string type = type_traits<T>::name;
    const auto n           = static_cast<std::int64_t>(in.size());
    const cudaStream_t s   = ctx_.stream.get();
    T* out                 = ctx_.result<T>();
    const T want           = cub_result(ctx_, cub_, in);
    std::vector<contender> device_calls;
    std::vector<contender> host_calls;

    const auto add_rk = [&](const std::string& impl, const auto& policy) {
      if (opt_.wants(impl))
      {
        device_calls.push_back(checked_rk_contender(ctx_, type, log2, impl, policy, in, T{}, rk::plus{}, want, "CUB"));
      }
    };
    add_rk("device", rk::device);
    if (opt_.wants("device"))
    {
      ctx_.checks.compare(case_name(type, log2, "rk::reduce (value-returning)"),
                          rk::reduce(rk::device.on(s), in.first(), in.first() + n, T{}, rk::plus{}), want, "CUB");
      host_calls.push_back({"device", [&in, s, n] {
                              const T* first = in.next();
                              static_cast<void>(rk::reduce(rk::device.on(s), first, first + n, T{}, rk::plus{}));
                            }});
    }
    add_rk("single_pass", rk::single_pass);
    add_rk("two_pass", rk::two_pass);
    add_rk("atomic", rk::atomic);
    if (opt_.wants("grid_ordered"))
    {
      // rk before the reproducible tree (issue 9): the same shapes with the grid-ordered tree.
      const auto want_for = [&](const auto& policy) {
        return std::is_floating_point_v<T> ? rk_result(ctx_, policy, in, T{}, rk::plus{}) : want;
      };
      const auto single_grid = rk::single_pass.tuned<rk::grid_ordered_tuning>();
      const auto two_grid    = rk::two_pass.tuned<rk::grid_ordered_tuning>();
      device_calls.push_back(checked_rk_contender(ctx_, type, log2, "single_pass_grid", single_grid, in, T{},
                                                  rk::plus{}, want_for(single_grid), "itself (grid-ordered floats)"));
      device_calls.push_back(checked_rk_contender(ctx_, type, log2, "two_pass_grid", two_grid, in, T{}, rk::plus{},
                                                  want_for(two_grid), "itself (grid-ordered floats)"));
    }
    if constexpr (std::is_same_v<T, std::int64_t>)
    {
      if (with_affine)
      {
        // The same bytes read as affine maps: the deterministic backends must agree exactly.
        const affine want_maps = rk_result(ctx_, rk::two_pass, in, identity_map, compose_affine{});
        device_calls.push_back(checked_rk_contender(ctx_, type, log2, "single_pass_affine", rk::single_pass, in,
                                                    identity_map, compose_affine{}, want_maps, "rk::two_pass"));
        device_calls.push_back(checked_rk_contender(ctx_, type, log2, "two_pass_affine", rk::two_pass, in, identity_map,
                                                    compose_affine{}, want_maps,
                                                    "an earlier rk::two_pass call (determinism)"));
      }
    }
    if (opt_.wants("cub"))
    {
      device_calls.push_back(cub_contender(ctx_, cub_, in, "cub"));
      host_calls.push_back({"cub", [this, &in, out, n, s] {
                              cub_.sum(in.next(), out, n, s);
                              check(cudaMemcpyAsync(host_result_.get(), out, sizeof(T), cudaMemcpyDeviceToHost, s),
                                    "cudaMemcpyAsync of CUB's result");
                              check(cudaStreamSynchronize(s), "cudaStreamSynchronize after CUB");
                            }});
    }
    if (opt_.wants("thrust"))
    {
      // Value-returning only: thrust::reduce synchronizes, so it has a host time and no device time.
      ctx_.checks.compare(case_name(type, log2, "thrust"),
                          thrust::reduce(thrust::cuda::par.on(s), in.first(), in.first() + n), want, "CUB");
      host_calls.push_back({"thrust", [&in, s, n] {
                              const T* first = in.next();
                              static_cast<void>(thrust::reduce(thrust::cuda::par.on(s), first, first + n));
                            }});
    }
    if (opt_.wants("probe"))
    {
      device_calls.push_back(probe_contender(ctx_, in));
    }

    std::vector<measurement> rows  = measure_interleaved<T>(ctx_, type, log2, device_calls);
    std::vector<timing> host_times = time_host_interleaved(ctx_.plan, host_calls);
    for (std::size_t c = 0; c < host_calls.size(); ++c)
    {
      const auto row = std::find_if(rows.begin(), rows.end(),
                                    [&](const measurement& m) { return m.impl == host_calls[c].name; });
      if (row == rows.end())
      {
        rows.push_back(make_measurement<T>(type, log2, host_calls[c].name));
        rows.back().host = std::move(host_times[c]);
      }
      else
      {
        row->host = std::move(host_times[c]);
      }
    }
    for (measurement& m : rows)
    {
      if (m.impl == "device")
      {
        // Device time comes from rk::reduce_into, so label the backend that call runs.
        m.backend = rk::explain(rk::device, in.first(), in.first() + n, T{}, rk::plus{}).stream_ordered_backend;
      }
      results_.push_back(std::move(m));
    }
  }

  /// The exact check of the non-commutative operator: 2^20 random maps composed on the device by
  /// each deterministic backend and by a sequential fold on the host.
  void verify_affine_against_host()
  {
    constexpr int log2 = 20;
    auto maps          = prepare_case<affine>(ctx_, log2);
    if (!maps)
    {
      return;
    }
    std::vector<affine> host(maps->size());
    copy_to_host(host.data(), maps->first(), host.size(), ctx_.stream.get());
    affine want = identity_map;
    for (const affine& f : host)
    {
      want = compose_affine{}(want, f);
    }
    const char* reference = "sequential fold on the host";
    ctx_.checks.compare(case_name("affine", log2, "rk::two_pass"),
                        rk_result(ctx_, rk::two_pass, *maps, identity_map, compose_affine{}), want, reference);
    ctx_.checks.compare(case_name("affine", log2, "rk::single_pass"),
                        rk_result(ctx_, rk::single_pass, *maps, identity_map, compose_affine{}), want, reference);
    ctx_.checks.compare(case_name("affine", log2, "rk::device"),
                        rk_result(ctx_, rk::device, *maps, identity_map, compose_affine{}), want, reference);
  }

  /// The rows of (type, log2) in table order: table_order's first, then the others as measured.
  std::vector<const measurement*> rows_of(const std::string& type, int log2) const
  {
    std::vector<const measurement*> rows;
    for (const auto& impl : table_order)
    {
      if (const measurement* m = find(results_, type, log2, impl))
      {
        rows.push_back(m);
      }
    }
    for (const auto& m : results_)
    {
      if (m.type == type && m.log2n == log2
          && std::find(table_order.begin(), table_order.end(), m.impl) == table_order.end())
      {
        rows.push_back(&m);
      }
    }
    return rows;
  }

  void print_table(const std::string& type) const
  {
    markdown_table table({"n", "impl", "us/call", "spread %", "GB/s", "vs CUB", "% probe", "host us", "trials"}, 2);
    for (const int log2 : opt_.log2_sizes)
    {
      const measurement* cub   = find(results_, type, log2, "cub");
      const measurement* probe = find(results_, type, log2, "probe");
      for (const measurement* m : rows_of(type, log2))
      {
        table.add_row({power_of_two(log2), m->backend.empty() ? m->impl : m->impl + " (" + m->backend + ")",
                       m->device ? fixed(m->device->median_us, 2) : "",
                       m->device ? fixed(spread_percent(m->device->samples_us), 1) : "",
                       m->device ? fixed(m->gbps(), 1) : "", relative_speed(results_, *m, cub, 1, 2),
                       relative_speed(results_, *m, probe, 100, 1), m->host ? fixed(m->host->median_us, 1) : "",
                       m->device ? std::to_string(m->device->samples_us.size()) : ""});
      }
    }
    std::cout << "\n## " << type << "\n\n";
    table.print(std::cout);
    if (!explanation_.empty())
    {
      std::cout << "\n" << explanation_ << "\n";
    }
    std::cout.flush();
  }

  run_context& ctx_;
  const options& opt_;
  cub_storage cub_;
  pinned_buffer host_result_;
  std::vector<measurement> results_;
  std::string explanation_; // rk::explain for rk::device at the type's largest measured size
};

// ---------------------------------------------------------------------------------------------
// Targets

struct target
{
  std::string name;
  bool at_most; ///< the value must be <= limit (else >= limit)
  double limit;
  std::optional<ratio> value;    ///< of the worst case (by median)
  std::string where;             ///< the worst case
  std::optional<verdict> status; ///< the worst verdict over all cases (a MISS anywhere is a MISS)

  std::string status_text() const
  {
    return status ? to_string(*status) : "n/a";
  }
};

/// A ratio computed for one (type, size), if its measurements exist.
using case_metric = std::function<std::optional<ratio>(const std::string& type, int log2)>;

/// The worst median of `metric` over `types` and the sizes in [low, high] among `log2_sizes`,
/// and the worst verdict over them.
target evaluate(std::string name, bool at_most, double limit, const std::vector<std::string>& types,
                const std::vector<int>& log2_sizes, int low, int high, const case_metric& metric)
{
  target t{std::move(name), at_most, limit, std::nullopt, "", std::nullopt};
  for (const auto& type : types)
  {
    for (const int log2 : log2_sizes)
    {
      if (log2 < low || log2 > high)
      {
        continue;
      }
      const std::optional<ratio> r = metric(type, log2);
      if (!r)
      {
        continue;
      }
      const double median = r->value.median;
      if (!t.value || (at_most ? median > t.value->value.median : median < t.value->value.median))
      {
        t.value = r;
        t.where = type + " " + power_of_two(log2);
      }
      const verdict v = judge(r->value, at_most, limit);
      t.status        = t.status ? std::max(*t.status, v) : v;
    }
  }
  return t;
}

/// The CUB rows rk::device must be at or ahead of: the toolkit's ("cub") and every mode of the
/// CUB peer (its rows other than its probe).
std::vector<std::string> cub_impls(const std::vector<measurement>& results)
{
  std::vector<std::string> impls = {"cub"};
  for (const auto& m : results)
  {
    const bool peer_cub = m.impl.rfind("cub", 0) == 0 && m.impl != "cub" && m.impl.find("probe") == std::string::npos;
    if (peer_cub && std::find(impls.begin(), impls.end(), m.impl) == impls.end())
    {
      impls.push_back(m.impl);
    }
  }
  return impls;
}

std::vector<target> evaluate_targets(const std::vector<measurement>& results, const options& opt)
{
  // Each metric is a/b for two implementations of the same case (the same bytes), so a bandwidth
  // fraction impl GB/s / probe GB/s is the time ratio probe / impl.
  const auto ratio_of = [&](timing_of which, std::string a, std::string b) -> case_metric {
    return [&results, which, a, b](const std::string& type, int log2) -> std::optional<ratio> {
      const measurement* x = find(results, type, log2, a);
      const measurement* y = find(results, type, log2, b);
      if (x == nullptr || y == nullptr)
      {
        return std::nullopt;
      }
      return time_ratio(results, *x, *y, which);
    };
  };
  const auto device_ratio = [&](std::string a, std::string b) { return ratio_of(&measurement::device, a, b); };
  const auto host_ratio   = [&](std::string a, std::string b) { return ratio_of(&measurement::host, a, b); };

  const std::vector<int>& sizes         = opt.log2_sizes;
  const std::vector<std::string>& types = opt.types;
  constexpr int all                     = max_log2_size;
  std::vector<target> targets;
  for (const auto& cub : cub_impls(results))
  {
    targets.push_back(evaluate("(1) rk::device time / " + cub + " time, every case (max)", true, 1.00, types, sizes, 0,
                               all, device_ratio("device", cub)));
  }
  for (const auto& type : types)
  {
    targets.push_back(evaluate("(2) rk::device GB/s / probe GB/s, " + type + ", n >= 2^26 (min)", false, 0.97, {type},
                               sizes, 26, all, device_ratio("probe", "device")));
  }
  targets.push_back(evaluate("(2) float rk::device speedup over CUB, n >= 2^26 (min)", false, 1.10, {"float"}, sizes,
                             26, all, device_ratio("cub", "device")));
  targets.push_back(evaluate("(3) rk::device time / probe time, 2^14 <= n <= 2^22 (max)", true, 1.25, types, sizes, 14,
                             22, device_ratio("device", "probe")));
  targets.push_back(evaluate("(4) rk::reduce host round trip / thrust::reduce's, n <= 2^20 (max)", true, 0.5, types,
                             sizes, 0, 20, host_ratio("device", "thrust")));
  targets.push_back(evaluate("(5) rk::single_pass GB/s / probe GB/s, n >= 2^26 (min)", false, 0.97, types, sizes, 26,
                             all, device_ratio("probe", "single_pass")));
  targets.push_back(evaluate("(5) rk::two_pass GB/s / probe GB/s, n >= 2^26 (min)", false, 0.95, types, sizes, 26, all,
                             device_ratio("probe", "two_pass")));
  targets.push_back(evaluate("(5) rk::atomic GB/s / probe GB/s, int32, n >= 2^26 (min)", false, 0.95, {"int32"}, sizes,
                             26, all, device_ratio("probe", "atomic")));
  targets.push_back(evaluate("(9) reproducible rk::single_pass time / grid-ordered, every case (max)", true, 1.02,
                             types, sizes, 0, all, device_ratio("single_pass", "single_pass_grid")));
  targets.push_back(evaluate("(9) reproducible rk::two_pass time / grid-ordered, every case (max)", true, 1.02, types,
                             sizes, 0, all, device_ratio("two_pass", "two_pass_grid")));
  targets.push_back(evaluate("(5) rk::single_pass affine time / int64 plus time, n >= 2^26 (max)", true, 1.10,
                             {"int64"}, sizes, 26, all, device_ratio("single_pass_affine", "single_pass")));
  targets.push_back(evaluate("(5) rk::two_pass affine time / int64 plus time, n >= 2^26 (max)", true, 1.10, {"int64"},
                             sizes, 26, all, device_ratio("two_pass_affine", "two_pass")));
  return targets;
}

void print_targets(std::ostream& os, const std::vector<target>& targets)
{
  markdown_table table({"target", "value", "interval", "goal", "worst case", "status"}, 1);
  for (const auto& t : targets)
  {
    const std::string interval =
      t.value ? fixed(t.value->value.low, 3) + "-" + fixed(t.value->value.high, 3)
                  + (t.value->how == pairing::paired ? "" : std::string(" (") + to_string(t.value->how) + ")")
              : "";
    table.add_row({t.name, t.value ? fixed(t.value->value.median, 3) : "no data", interval,
                   (t.at_most ? "<= " : ">= ") + fixed(t.limit, 2), t.where, t.status_text()});
  }
  os << "\n## Targets (rk::device unless named)\n\n"
     << "value: median over the trials of the worst case's per-trial ratio; interval: its quartiles. "
        "status: PASS/MISS when every case's interval lies on one side of the goal, else within noise.\n\n";
  table.print(os);
}

// ---------------------------------------------------------------------------------------------
// Report header and JSON

void print_header(std::ostream& os, const run_context& ctx, const options& opt, const run_facts& facts,
                  const std::optional<peer_figures>& peer)
{
  os << "# rk_perf" << (opt.sweep ? " --sweep" : "") << "\n\n";
  print_run_facts(os, ctx, facts);
  os << "- method: interleaved trials (each trial times every implementation of a case once, in rotating "
        "order); device us/call = median of "
     << ctx.plan.initial_trials << " to " << ctx.plan.max_trials
     << " trials (more while an implementation's spread exceeds " << fixed(ctx.plan.wide_spread_percent, 0)
     << " %) of events around back-to-back stream-ordered calls; spread % = interquartile range / median; "
        "ratios = median of per-trial ratios, \"~\" when their quartiles hold 1; host us = median round trip of "
        "the value-returning call; inputs under "
     << human_bytes(double(ctx.inputs.pool_bytes()))
     << " rotate over slices of a pool so no call finds its input in L2; GB/s = input bytes / device time "
        "(decimal); vs CUB = CUB time / impl time; % probe = impl GB/s / probe GB/s\n";
  if (peer)
  {
    os << "- CUB peer: CUB " << peer->cub_version << " (" << peer->source
       << "), another process; ratios to its rows go through the probe of each side\n";
  }
  os.flush();
}

void write_json(const std::string& path, const run_context& ctx, const options& opt, const run_facts& facts,
                const std::vector<measurement>& results, const std::vector<target>& targets,
                const std::optional<peer_figures>& peer)
{
  std::ofstream out(path);
  if (!out)
  {
    throw std::runtime_error("cannot open " + path + " for writing");
  }
  out << "{\n  \"mode\": " << json_string(opt.sweep ? "sweep" : "suite") << ",\n"
      << json_run_facts(ctx, facts) << "  \"quick\": " << (opt.quick ? "true" : "false") << ",\n";
  if (peer)
  {
    out << "  \"peer\": {\"source\": " << json_string(peer->source)
        << ", \"cub_version\": " << json_string(peer->cub_version) << ", \"mismatches\": " << peer->mismatches
        << "},\n";
  }
  out << json_results(results) << ",\n  \"targets\": [";
  for (std::size_t i = 0; i < targets.size(); ++i)
  {
    const target& t     = targets[i];
    const auto value_of = [&](double estimate::*field) {
      return json_number(t.value ? t.value->value.*field : std::nan(""));
    };
    out << (i == 0 ? "\n    " : ",\n    ") << "{\"name\": " << json_string(t.name)
        << ", \"value\": " << value_of(&estimate::median) << ", \"low\": " << value_of(&estimate::low)
        << ", \"high\": " << value_of(&estimate::high)
        << ", \"pairing\": " << json_string(t.value ? to_string(t.value->how) : "")
        << ", \"relation\": " << json_string(t.at_most ? "<=" : ">=") << ", \"limit\": " << json_number(t.limit)
        << ", \"where\": " << json_string(t.where) << ", \"status\": " << json_string(t.status_text()) << "}";
  }
  out << "\n  ]\n}\n";
  if (!out)
  {
    throw std::runtime_error("writing " + path + " failed");
  }
}

/// Where rk_perf has the peer write its JSON: beside rk_perf's, "x.json" -> "x.cub_peer.json".
std::string peer_json_path(const std::string& json_path)
{
  const std::string suffix = ".json";
  return (ends_with(json_path, suffix) ? json_path.substr(0, json_path.size() - suffix.size()) : json_path)
       + ".cub_peer.json";
}

int run(const options& opt)
{
  // The peer first, while this process holds no GPU memory yet.
  // A failing peer costs its rows only, not the suite's (said on stderr and in the report).
  std::optional<peer_figures> peer;
  std::string peer_failure;
  if (!opt.peer.empty())
  {
    try
    {
      peer = load_peer(opt.peer, opt, peer_json_path(opt.json_path));
    }
    catch (const std::runtime_error& e)
    {
      peer_failure = e.what();
      std::cerr << "rk_perf: WARNING: " << peer_failure << ": no CUB peer rows in this report\n";
    }
  }
  run_context ctx(make_timing_plan(opt.quick, opt.trials, opt.max_trials));
  const run_facts facts = collect_run_facts(ctx);
  print_header(std::cout, ctx, opt, facts, peer);
  if (!peer_failure.empty())
  {
    std::cout << "- CUB peer FAILED: " << peer_failure << "\n";
  }

  std::vector<measurement> results;
  std::vector<target> targets;
  if (opt.sweep)
  {
    run_sweep(ctx, opt.types, opt.log2_sizes, results);
  }
  else
  {
    suite s(ctx, opt, peer ? peer->rows : std::vector<measurement>{});
    for_each_type<std::int32_t, std::int64_t, float, double>(
      [&](auto tag) { s.template run_type<typename decltype(tag)::type>(); });
    results = s.results();
    targets = evaluate_targets(results, opt);
    print_targets(std::cout, targets);
  }
  write_json(opt.json_path, ctx, opt, facts, results, targets, peer);
  std::cerr << "rk_perf: wrote " << opt.json_path << "\n";
  const int mismatches = ctx.checks.mismatches() + (peer ? peer->mismatches : 0);
  if (mismatches > 0)
  {
    std::cerr << "rk_perf: " << mismatches << " MISMATCH(ES): results disagreed with their reference\n";
    return 1;
  }
  return 0;
}
} // namespace rk_perf

int main(int argc, char** argv)
{
  return rk_perf::run_main("rk_perf", rk_perf::print_usage, [&] {
    const rk_perf::options opt = rk_perf::parse_options(argc, argv);
    if (opt.help)
    {
      rk_perf::print_usage(std::cout);
      return 0;
    }
    return rk_perf::run(opt);
  });
}
