// rk_perf: rk's performance suite. One run on one GPU measures, for int32, int64, float and double
// sums over 2^k elements, rk::device, rk::single_pass, rk::two_pass and rk::atomic against
// cub::DeviceReduce::Sum, thrust::reduce and a read-bandwidth probe (the practical speed of
// light), plus a non-commutative operator on the deterministic backends. It prints Markdown
// tables (for perf/RESULTS.md), checks the figures against rk's targets, and writes every figure
// to a JSON file (perf/plot.py draws it).
//
// Method.
//  - Device time per call: CUDA events around R back-to-back calls of the stream-ordered API
//    (rk::reduce_into, CUB with temporary storage allocated once, the probe kernel) on one
//    non-blocking stream, nothing synchronizing in between; per call = elapsed / R, with R chosen
//    so a trial lasts about 3 ms (10 to 2000 calls). At least 30 ms of discarded warm-up trials
//    come first, the last of which sizes R; the figure is the median of the trials (7, or 3 with
//    --quick). For small inputs this is the rate calls can be issued back to back, launch
//    overhead included.
//  - Host round trip: steady_clock around each value-returning call (rk::reduce with rk::device;
//    thrust::reduce; CUB plus a copy of the result to pinned memory plus cudaStreamSynchronize);
//    the median over repetitions.
//  - Inputs are random (a hash of the index, fixed seed). An input that fits several times in a
//    pool of at least 512 MiB and 4x L2 rotates over distinct, 256-byte-aligned slices of it, so
//    consecutive calls read DRAM as a single call on cold data would, and not a copy L2 kept
//    from the previous call; larger inputs are read once per call anyway. The implementations of
//    a case share one rotation, each carrying on where the previous one stopped.
//  - Before timing, every result is checked once against CUB's (exactly for integers, to 1e-4
//    relative for float and 1e-10 for double). A mismatch is printed on stderr and makes the
//    exit status nonzero.

#include "harness.cuh"
#include "sweep.cuh"

#include <rk/reduce.cuh>

#include <thrust/reduce.h>

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
// The non-commutative operator: composition of affine maps x -> a*x + b (mod 2^32). Associative,
// not commutative, 8 bytes like int64, so its time compares directly with int64 plus.

struct affine
{
  std::uint32_t a;
  std::uint32_t b;
};

/// compose(f, g) applies f, then g: g(f(x)) = g.a*f.a*x + g.a*f.b + g.b.
struct compose_affine
{
  __host__ __device__ affine operator()(const affine& f, const affine& g) const
  {
    return affine{g.a * f.a, g.a * f.b + g.b};
  }
};

inline constexpr affine identity_map{1, 0};

bool operator==(const affine& x, const affine& y)
{
  return x.a == y.a && x.b == y.b;
}

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

static_assert(std::is_trivially_copyable_v<affine> && sizeof(affine) == sizeof(std::int64_t));

// ---------------------------------------------------------------------------------------------
// Options

/// The implementations --impls can name. "affine" adds single_pass_affine and two_pass_affine
/// to the int64 table.
const std::vector<std::string> known_impls = {"device", "single_pass", "two_pass", "atomic", "affine",
                                              "cub",    "thrust",      "probe"};
const std::vector<std::string> known_types = {"int32", "int64", "float", "double"};

/// The order rows appear in a table.
const std::vector<std::string> table_order = {"device",  "single_pass", "two_pass", "atomic", "single_pass_affine",
                                              "two_pass_affine", "cub", "thrust", "probe"};

constexpr int max_log2_size = 33;

struct options
{
  std::vector<int> log2_sizes;
  std::vector<std::string> types;
  std::vector<std::string> impls;
  int trials = 0;
  bool quick = false;
  bool sweep = false;
  bool help  = false;
  std::string json_path = "rk_perf.json";

  bool wants(const std::string& impl) const
  {
    return std::find(impls.begin(), impls.end(), impl) != impls.end();
  }
  bool wants_type(const std::string& type) const
  {
    return std::find(types.begin(), types.end(), type) != types.end();
  }
};

class usage_error : public std::runtime_error
{
public:
  using std::runtime_error::runtime_error;
};

void print_usage(std::ostream& os)
{
  os << "usage: rk_perf [options]\n"
        "  --quick           sizes 2^10,14,18,22,26 and 3 trials (well under a minute)\n"
        "  --sizes 10,14,20  log2 of the element counts (default 10,12,...,30)\n"
        "  --types LIST      of int32,int64,float,double (default all)\n"
        "  --impls LIST      of device,single_pass,two_pass,atomic,affine,cub,thrust,probe (default all;\n"
        "                    affine: the non-commutative operator, in the int64 table)\n"
        "  --trials N        device-time trials per case, median reported (default 7; 3 with --quick)\n"
        "  --json PATH       where to write every figure (default rk_perf.json)\n"
        "  --sweep           tuning sweep instead of the suite: rk::single_pass with a grid of launch\n"
        "                    shapes, int32/float/double at 2^14,18,22,26,28 (--sizes/--types narrow it)\n"
        "  --help            this text\n"
        "Environment: RK_COMMIT overrides the commit recorded at configure time.\n"
        "Exit status: 0, 1 if a result disagreed with its reference, 2 on an error.\n";
}

std::vector<std::string> split_list(const std::string& text)
{
  std::vector<std::string> items;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
  {
    if (!item.empty())
    {
      items.push_back(item);
    }
  }
  return items;
}

std::vector<std::string> parse_names(const std::string& option, const std::string& text,
                                     const std::vector<std::string>& known)
{
  std::vector<std::string> names = split_list(text);
  for (const auto& name : names)
  {
    if (std::find(known.begin(), known.end(), name) == known.end())
    {
      throw usage_error(option + ": unknown name '" + name + "'");
    }
  }
  if (names.empty())
  {
    throw usage_error(option + " needs a comma-separated list");
  }
  return names;
}

int parse_int(const std::string& option, const std::string& text, int low, int high)
{
  std::size_t used = 0;
  int value        = 0;
  try
  {
    value = std::stoi(text, &used);
  }
  catch (const std::exception&)
  {
    used = 0;
  }
  if (used != text.size() || value < low || value > high)
  {
    throw usage_error(option + ": expected an integer in [" + std::to_string(low) + ", " + std::to_string(high)
                      + "], got '" + text + "'");
  }
  return value;
}

options parse_options(int argc, char** argv)
{
  options opt;
  for (int i = 1; i < argc; ++i)
  {
    const std::string arg = argv[i];
    const auto value      = [&]() -> std::string {
      if (i + 1 >= argc)
      {
        throw usage_error(arg + " needs a value");
      }
      return argv[++i];
    };
    if (arg == "--quick")
    {
      opt.quick = true;
    }
    else if (arg == "--sweep")
    {
      opt.sweep = true;
    }
    else if (arg == "--help" || arg == "-h")
    {
      opt.help = true;
    }
    else if (arg == "--sizes")
    {
      opt.log2_sizes.clear();
      for (const auto& item : split_list(value()))
      {
        opt.log2_sizes.push_back(parse_int(arg, item, 0, max_log2_size));
      }
      if (opt.log2_sizes.empty())
      {
        throw usage_error("--sizes needs a comma-separated list");
      }
    }
    else if (arg == "--types")
    {
      opt.types = parse_names(arg, value(), known_types);
    }
    else if (arg == "--impls")
    {
      opt.impls = parse_names(arg, value(), known_impls);
    }
    else if (arg == "--trials")
    {
      opt.trials = parse_int(arg, value(), 1, 1000);
    }
    else if (arg == "--json")
    {
      opt.json_path = value();
    }
    else
    {
      throw usage_error("unknown option '" + arg + "'");
    }
  }

  // Defaults that depend on the mode.
  if (opt.log2_sizes.empty())
  {
    if (opt.sweep)
    {
      opt.log2_sizes = sweep_default_log2_sizes();
    }
    else if (opt.quick)
    {
      opt.log2_sizes = {10, 14, 18, 22, 26};
    }
    else
    {
      for (int k = 10; k <= 30; k += 2)
      {
        opt.log2_sizes.push_back(k);
      }
    }
  }
  std::sort(opt.log2_sizes.begin(), opt.log2_sizes.end());
  opt.log2_sizes.erase(std::unique(opt.log2_sizes.begin(), opt.log2_sizes.end()), opt.log2_sizes.end());
  if (opt.types.empty())
  {
    opt.types = opt.sweep ? sweep_types() : known_types;
  }
  if (opt.sweep)
  {
    for (const auto& type : opt.types)
    {
      if (std::find(sweep_types().begin(), sweep_types().end(), type) == sweep_types().end())
      {
        throw usage_error("--sweep is compiled for int32, float and double only, not " + type);
      }
    }
  }
  if (opt.impls.empty())
  {
    opt.impls = known_impls;
  }
  if (opt.trials == 0)
  {
    opt.trials = opt.quick ? 3 : 7;
  }
  return opt;
}

// ---------------------------------------------------------------------------------------------
// The suite

class suite
{
public:
  suite(run_context& ctx, const options& opt)
      : ctx_(ctx)
      , opt_(opt)
      , cub_(largest_cub_temp_bytes(opt))
      , host_result_(16)
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
        run_case(*in, log2);
        explanation_ = rk::explain(rk::device, in->first(), in->first() + in->size(), T{}, rk::plus{}).to_string();
      }
      if (with_affine)
      {
        if (auto maps = prepare_case<affine>(ctx_, log2))
        {
          run_affine_case(*maps, log2);
        }
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

  template <class T, class Policy, class Op>
  void add_rk(const std::string& type, int log2, const std::string& impl, const Policy& policy,
              input_slices<T>& in, const T& init, Op op, const T& want, const char* reference)
  {
    results_.push_back(measure_rk(ctx_, type, log2, impl, policy, in, init, op, want, reference));
  }

  template <class T>
  void run_case(input_slices<T>& in, int log2)
  {
    const std::string type = type_traits<T>::name;
    const auto n           = static_cast<std::int64_t>(in.size());
    const cudaStream_t s   = ctx_.stream.get();
    T* out                 = ctx_.result<T>();
    const T want           = cub_result(ctx_, cub_, in);

    if (opt_.wants("device"))
    {
      add_rk(type, log2, "device", rk::device, in, T{}, rk::plus{}, want, "CUB");
      measurement& m = results_.back();
      // Device time comes from rk::reduce_into, so label the backend that call runs.
      m.backend = rk::explain(rk::device, in.first(), in.first() + n, T{}, rk::plus{}).stream_ordered_backend;
      ctx_.checks.compare(case_name(type, log2, "rk::reduce (value-returning)"),
                          rk::reduce(rk::device.on(s), in.first(), in.first() + n, T{}, rk::plus{}), want, "CUB");
      m.host = time_host(ctx_.plan, [&] {
        const T* first = in.next();
        static_cast<void>(rk::reduce(rk::device.on(s), first, first + n, T{}, rk::plus{}));
      });
    }
    if (opt_.wants("single_pass"))
    {
      add_rk(type, log2, "single_pass", rk::single_pass, in, T{}, rk::plus{}, want, "CUB");
    }
    if (opt_.wants("two_pass"))
    {
      add_rk(type, log2, "two_pass", rk::two_pass, in, T{}, rk::plus{}, want, "CUB");
    }
    if (opt_.wants("atomic"))
    {
      add_rk(type, log2, "atomic", rk::atomic, in, T{}, rk::plus{}, want, "CUB");
    }
    if (opt_.wants("cub"))
    {
      measurement m = make_measurement<T>(type, log2, "cub");
      m.device      = time_cub(ctx_, cub_, in);
      m.host        = time_host(ctx_.plan, [&] {
        cub_.sum(in.next(), out, n, s);
        check(cudaMemcpyAsync(host_result_.get(), out, sizeof(T), cudaMemcpyDeviceToHost, s),
              "cudaMemcpyAsync of CUB's result");
        check(cudaStreamSynchronize(s), "cudaStreamSynchronize after CUB");
      });
      results_.push_back(std::move(m));
    }
    if (opt_.wants("thrust"))
    {
      // Value-returning only: thrust::reduce synchronizes, so it has a host time and no device time.
      measurement m = make_measurement<T>(type, log2, "thrust");
      ctx_.checks.compare(case_name(type, log2, "thrust"),
                          thrust::reduce(thrust::cuda::par.on(s), in.first(), in.first() + n), want, "CUB");
      m.host = time_host(ctx_.plan, [&] {
        const T* first = in.next();
        static_cast<void>(thrust::reduce(thrust::cuda::par.on(s), first, first + n));
      });
      results_.push_back(std::move(m));
    }
    if (opt_.wants("probe"))
    {
      measurement m = make_measurement<T>(type, log2, "probe");
      m.device      = time_probe(ctx_, in);
      results_.push_back(std::move(m));
    }
  }

  /// The deterministic backends with the non-commutative operator. They must agree exactly with
  /// each other (verify_affine_against_host checked them against a sequential fold once); the
  /// rows go in the int64 table, whose rows read the same number of bytes.
  void run_affine_case(input_slices<affine>& maps, int log2)
  {
    const affine want = rk_result(ctx_, rk::two_pass, maps, identity_map, compose_affine{});
    add_rk("int64", log2, "single_pass_affine", rk::single_pass, maps, identity_map, compose_affine{}, want,
           "rk::two_pass");
    add_rk("int64", log2, "two_pass_affine", rk::two_pass, maps, identity_map, compose_affine{}, want,
           "an earlier rk::two_pass call (determinism)");
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

  void print_table(const std::string& type) const
  {
    markdown_table table({"n", "impl", "us/call", "GB/s", "vs CUB", "% probe", "host us"}, 2);
    for (const int log2 : opt_.log2_sizes)
    {
      const measurement* cub   = find(results_, type, log2, "cub");
      const measurement* probe = find(results_, type, log2, "probe");
      for (const auto& impl : table_order)
      {
        const measurement* m = find(results_, type, log2, impl);
        if (m == nullptr)
        {
          continue;
        }
        table.add_row({power_of_two(log2), m->backend.empty() ? impl : impl + " (" + m->backend + ")",
                       m->device ? fixed(m->device->median_us, 2) : "", m->device ? fixed(m->gbps(), 1) : "",
                       relative_speed(*m, cub, 1, 2), relative_speed(*m, probe, 100, 1),
                       m->host ? fixed(m->host->median_us, 1) : ""});
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
  std::optional<double> value;
  std::string where; ///< the case that gave the worst value

  std::string status() const
  {
    if (!value)
    {
      return "n/a";
    }
    return (at_most ? *value <= limit : *value >= limit) ? "PASS" : "MISS";
  }
};

/// A figure computed for one (type, size), if its measurements exist.
using case_metric = std::function<std::optional<double>(const std::string& type, int log2)>;

/// The worst value of `metric` over `types` and the sizes in [low, high] among `log2_sizes`.
target evaluate(std::string name, bool at_most, double limit, const std::vector<std::string>& types,
                const std::vector<int>& log2_sizes, int low, int high, const case_metric& metric)
{
  target t{std::move(name), at_most, limit, std::nullopt, ""};
  for (const auto& type : types)
  {
    for (const int log2 : log2_sizes)
    {
      if (log2 < low || log2 > high)
      {
        continue;
      }
      const std::optional<double> value = metric(type, log2);
      if (value && (!t.value || (at_most ? *value > *t.value : *value < *t.value)))
      {
        t.value = value;
        t.where = type + " " + power_of_two(log2);
      }
    }
  }
  return t;
}

std::vector<target> evaluate_targets(const std::vector<measurement>& results, const options& opt)
{
  // Each metric is a/b for two implementations of the same case (the same bytes), so a bandwidth
  // fraction impl GB/s / probe GB/s is the time ratio probe / impl.
  using timing_of = std::optional<timing> measurement::*;
  const auto ratio  = [&](timing_of which, std::string a, std::string b) -> case_metric {
    return [&results, which, a, b](const std::string& type, int log2) -> std::optional<double> {
      const measurement* x = find(results, type, log2, a);
      const measurement* y = find(results, type, log2, b);
      if (x == nullptr || y == nullptr || !(x->*which) || !(y->*which))
      {
        return std::nullopt;
      }
      return (x->*which)->median_us / (y->*which)->median_us;
    };
  };
  const auto device_ratio = [&](std::string a, std::string b) { return ratio(&measurement::device, a, b); };
  const auto host_ratio   = [&](std::string a, std::string b) { return ratio(&measurement::host, a, b); };

  const std::vector<int>& sizes         = opt.log2_sizes;
  const std::vector<std::string>& types = opt.types;
  constexpr int all                     = max_log2_size;
  std::vector<target> targets;
  targets.push_back(evaluate("(1) rk::device time / CUB time, every case (max)", true, 1.00, types, sizes, 0, all,
                             device_ratio("device", "cub")));
  for (const auto& type : types)
  {
    targets.push_back(evaluate("(2) rk::device GB/s / probe GB/s, " + type + ", n >= 2^26 (min)", false, 0.97,
                               {type}, sizes, 26, all, device_ratio("probe", "device")));
  }
  targets.push_back(evaluate("(2) float rk::device speedup over CUB, n >= 2^26 (min)", false, 1.10, {"float"}, sizes,
                             26, all, device_ratio("cub", "device")));
  targets.push_back(evaluate("(3) rk::device time / probe time, 2^14 <= n <= 2^22 (max)", true, 1.25, types, sizes,
                             14, 22, device_ratio("device", "probe")));
  targets.push_back(evaluate("(4) rk::reduce host round trip / thrust::reduce's, n <= 2^20 (max)", true, 0.5, types,
                             sizes, 0, 20, host_ratio("device", "thrust")));
  targets.push_back(evaluate("(5) rk::single_pass GB/s / probe GB/s, n >= 2^26 (min)", false, 0.97, types, sizes, 26,
                             all, device_ratio("probe", "single_pass")));
  targets.push_back(evaluate("(5) rk::two_pass GB/s / probe GB/s, n >= 2^26 (min)", false, 0.95, types, sizes, 26,
                             all, device_ratio("probe", "two_pass")));
  targets.push_back(evaluate("(5) rk::atomic GB/s / probe GB/s, int32, n >= 2^26 (min)", false, 0.95, {"int32"},
                             sizes, 26, all, device_ratio("probe", "atomic")));
  targets.push_back(evaluate("(5) rk::single_pass affine time / int64 plus time, n >= 2^26 (max)", true, 1.10,
                             {"int64"}, sizes, 26, all, device_ratio("single_pass_affine", "single_pass")));
  targets.push_back(evaluate("(5) rk::two_pass affine time / int64 plus time, n >= 2^26 (max)", true, 1.10,
                             {"int64"}, sizes, 26, all, device_ratio("two_pass_affine", "two_pass")));
  return targets;
}

void print_targets(std::ostream& os, const std::vector<target>& targets)
{
  markdown_table table({"target", "value", "goal", "worst case", "status"}, 1);
  for (const auto& t : targets)
  {
    table.add_row({t.name, t.value ? fixed(*t.value, 3) : "no data", (t.at_most ? "<= " : ">= ") + fixed(t.limit, 2),
                   t.where, t.status()});
  }
  os << "\n## Targets (rk::device unless named)\n\n";
  table.print(os);
}

// ---------------------------------------------------------------------------------------------
// Report header and JSON

struct run_facts
{
  std::string commit;
  std::string date;
  double launch_floor_us;
};

void print_header(std::ostream& os, const run_context& ctx, const options& opt, const run_facts& facts)
{
  const device_info& d = ctx.device;
  os << "# rk_perf" << (opt.sweep ? " --sweep" : "") << "\n\n"
     << "- device: " << d.name << " (sm_" << d.compute_capability << "), " << d.multiprocessors << " SMs, L2 "
     << human_bytes(double(d.l2_bytes)) << ", " << human_bytes(double(d.global_memory_bytes)) << "\n"
     << "- CUDA driver " << cuda_version_string(d.driver_version) << ", runtime "
     << cuda_version_string(d.runtime_version) << "\n"
     << "- date " << facts.date << ", commit " << facts.commit << ", build " << build_type() << "\n"
     << "- empty kernel, back to back: " << fixed(facts.launch_floor_us, 2) << " us/call (launch floor)\n"
     << "- method: device us/call = median of " << opt.trials
     << " trials of events around back-to-back stream-ordered calls; host us = median round trip of the "
        "value-returning call; inputs under "
     << human_bytes(double(ctx.inputs.pool_bytes()))
     << " rotate over slices of a pool so no call finds its input in L2; GB/s = input bytes / device time "
        "(decimal); vs CUB = CUB time / impl time; % probe = impl GB/s / probe GB/s\n";
  os.flush();
}

void write_json(const std::string& path, const run_context& ctx, const options& opt, const run_facts& facts,
                const std::vector<measurement>& results, const std::vector<target>& targets)
{
  std::ofstream out(path);
  if (!out)
  {
    throw std::runtime_error("cannot open " + path + " for writing");
  }
  const device_info& d = ctx.device;
  out << "{\n  \"mode\": " << json_string(opt.sweep ? "sweep" : "suite") << ",\n"
      << "  \"device\": " << json_string(d.name) << ",\n"
      << "  \"compute_capability\": " << d.compute_capability << ",\n"
      << "  \"multiprocessors\": " << d.multiprocessors << ",\n"
      << "  \"l2_bytes\": " << d.l2_bytes << ",\n"
      << "  \"cuda_driver\": " << json_string(cuda_version_string(d.driver_version)) << ",\n"
      << "  \"cuda_runtime\": " << json_string(cuda_version_string(d.runtime_version)) << ",\n"
      << "  \"commit\": " << json_string(facts.commit) << ",\n"
      << "  \"date\": " << json_string(facts.date) << ",\n"
      << "  \"build_type\": " << json_string(build_type()) << ",\n"
      << "  \"launch_floor_us\": " << json_number(facts.launch_floor_us) << ",\n"
      << "  \"trials\": " << opt.trials << ",\n"
      << "  \"quick\": " << (opt.quick ? "true" : "false") << ",\n"
      << "  \"mismatches\": " << ctx.checks.mismatches() << ",\n"
      << "  \"results\": [";
  for (std::size_t i = 0; i < results.size(); ++i)
  {
    out << (i == 0 ? "\n    " : ",\n    ") << to_json(results[i]);
  }
  out << "\n  ],\n  \"targets\": [";
  for (std::size_t i = 0; i < targets.size(); ++i)
  {
    const target& t = targets[i];
    out << (i == 0 ? "\n    " : ",\n    ") << "{\"name\": " << json_string(t.name)
        << ", \"value\": " << json_number(t.value ? *t.value : std::nan(""))
        << ", \"relation\": " << json_string(t.at_most ? "<=" : ">=") << ", \"limit\": " << json_number(t.limit)
        << ", \"where\": " << json_string(t.where) << ", \"status\": " << json_string(t.status()) << "}";
  }
  out << "\n  ]\n}\n";
  if (!out)
  {
    throw std::runtime_error("writing " + path + " failed");
  }
}

int run(const options& opt)
{
  run_context ctx(make_timing_plan(opt.quick, opt.trials));
  const timing floor = time_device(ctx.stream.get(), ctx.plan, [&] { ctx.probe.launch_empty(ctx.stream.get()); });
  const run_facts facts{commit_id(), utc_timestamp(), floor.median_us};
  print_header(std::cout, ctx, opt, facts);

  std::vector<measurement> results;
  std::vector<target> targets;
  if (opt.sweep)
  {
    run_sweep(ctx, opt.types, opt.log2_sizes, results);
  }
  else
  {
    suite s(ctx, opt);
    for_each_type<std::int32_t, std::int64_t, float, double>([&](auto tag) {
      s.template run_type<typename decltype(tag)::type>();
    });
    results = s.results();
    targets = evaluate_targets(results, opt);
    print_targets(std::cout, targets);
  }
  write_json(opt.json_path, ctx, opt, facts, results, targets);
  std::cerr << "rk_perf: wrote " << opt.json_path << "\n";
  if (ctx.checks.mismatches() > 0)
  {
    std::cerr << "rk_perf: " << ctx.checks.mismatches() << " MISMATCH(ES): results disagreed with their reference\n";
    return 1;
  }
  return 0;
}
} // namespace rk_perf

int main(int argc, char** argv)
{
  try
  {
    const rk_perf::options opt = rk_perf::parse_options(argc, argv);
    if (opt.help)
    {
      rk_perf::print_usage(std::cout);
      return 0;
    }
    return rk_perf::run(opt);
  }
  catch (const rk_perf::usage_error& e)
  {
    std::cerr << "rk_perf: " << e.what() << "\n";
    rk_perf::print_usage(std::cerr);
    return 2;
  }
  catch (const std::exception& e)
  {
    std::cerr << "rk_perf: error: " << e.what() << "\n";
    return 2;
  }
}
