// Interleaved trials and their statistics (see trials.cuh).

#include "trials.cuh"

#include "cuda_check.cuh"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

namespace rk_perf
{
// The error check of every perf executable (declared in cuda_check.cuh); here because they all
// link this file.
void check(cudaError_t code, const char* what)
{
  if (code != cudaSuccess)
  {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(code) + ": " + cudaGetErrorString(code));
  }
}

namespace
{
constexpr int min_calls_per_trial = 10;
constexpr int max_calls_per_trial = 2000;
/// A trial of one contender should last at least 2 ms (event resolution and launch jitter become
/// noise); aim higher because the calls per trial come from a short estimate.
constexpr double target_trial_us = 3000;
/// Warm-up before the trials of a case, at least: on an H200 the first ~25 ms of calls on a
/// freshly written 1 GiB input ran 14% slower than the rest (clocks and first touches settling).
constexpr double min_warmup_us  = 30000;
constexpr int host_warmup_calls = 2;

class event_pair
{
public:
  event_pair()
  {
    check(cudaEventCreate(&start_), "cudaEventCreate");
    const cudaError_t status = cudaEventCreate(&stop_);
    if (status != cudaSuccess)
    {
      static_cast<void>(cudaEventDestroy(start_));
      check(status, "cudaEventCreate");
    }
  }
  event_pair(const event_pair&)            = delete;
  event_pair& operator=(const event_pair&) = delete;
  ~event_pair()
  {
    static_cast<void>(cudaEventDestroy(start_));
    static_cast<void>(cudaEventDestroy(stop_));
  }

  /// Microseconds the GPU spent between the start of the first of `calls` calls and the end of
  /// the last one, all enqueued back to back.
  double time_calls(cudaStream_t stream, int calls, const std::function<void()>& call)
  {
    check(cudaEventRecord(start_, stream), "cudaEventRecord");
    for (int i = 0; i < calls; ++i)
    {
      call();
    }
    check(cudaEventRecord(stop_, stream), "cudaEventRecord");
    check(cudaEventSynchronize(stop_), "cudaEventSynchronize (the timed calls failed)");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return static_cast<double>(ms) * 1e3;
  }

private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_  = nullptr;
};

/// Discarded trials of one contender, growing until one lasts a good part of the target (a few
/// calls on an idle queue run faster than a long back-to-back series, so short trials misjudge
/// the time per call). Returns the calls per trial that make a trial last about the target, and
/// adds the time spent to `warmed_us`.
int size_trials(event_pair& events, cudaStream_t stream, const std::function<void()>& call, double& warmed_us)
{
  int calls = min_calls_per_trial;
  for (;;)
  {
    const double elapsed_us = events.time_calls(stream, calls, call);
    warmed_us += elapsed_us;
    if (elapsed_us >= target_trial_us / 4 || calls == max_calls_per_trial)
    {
      const double wanted = std::ceil(target_trial_us * calls / std::max(elapsed_us, 1e-3));
      return static_cast<int>(std::clamp(wanted, double{min_calls_per_trial}, double{max_calls_per_trial}));
    }
    calls = std::min(calls * 4, max_calls_per_trial);
  }
}

/// Calls `visit(c)` for every contender index c of round `round`, the order rotated by `round`
/// so that each contender takes every position in turn.
template <class Visit>
void in_rotating_order(std::size_t contenders, int round, Visit&& visit)
{
  for (std::size_t i = 0; i < contenders; ++i)
  {
    visit((static_cast<std::size_t>(round) + i) % contenders);
  }
}

bool some_spread_is_wide(const std::vector<timing>& timings, double limit_percent)
{
  return std::any_of(timings.begin(), timings.end(),
                     [&](const timing& t) { return spread_percent(t.samples_us) > limit_percent; });
}

void finish(std::vector<timing>& timings)
{
  const int group = new_timing_group();
  for (timing& t : timings)
  {
    t.median_us = median(t.samples_us);
    t.group     = group;
  }
}
} // namespace

int new_timing_group()
{
  static int last = 0;
  return ++last;
}

timing_plan make_timing_plan(bool quick, int initial_trials, int max_trials)
{
  constexpr double wide_spread_percent = 5;
  timing_plan plan                     = quick ? timing_plan{3, 9, wide_spread_percent, 5e3, 5, 50}
                                               : timing_plan{7, 31, wide_spread_percent, 20e3, 10, 200};
  if (initial_trials > 0)
  {
    plan.initial_trials = initial_trials;
  }
  if (max_trials > 0)
  {
    plan.max_trials = max_trials;
  }
  plan.max_trials = std::max(plan.max_trials, plan.initial_trials);
  return plan;
}

std::vector<timing> time_interleaved(cudaStream_t stream, const timing_plan& plan,
                                     const std::vector<contender>& contenders)
{
  event_pair events;
  std::vector<timing> timings(contenders.size());
  double warmed_us = 0;
  for (std::size_t c = 0; c < contenders.size(); ++c)
  {
    timings[c].calls_per_sample = size_trials(events, stream, contenders[c].call, warmed_us);
  }
  const auto run_trial = [&](int round, bool keep) {
    in_rotating_order(contenders.size(), round, [&](std::size_t c) {
      timing& t               = timings[c];
      const double elapsed_us = events.time_calls(stream, t.calls_per_sample, contenders[c].call);
      warmed_us += elapsed_us;
      if (keep)
      {
        t.samples_us.push_back(elapsed_us / t.calls_per_sample);
      }
    });
  };
  for (int round = 0; warmed_us < min_warmup_us; ++round)
  {
    run_trial(round, false);
  }
  int trials = 0;
  while (trials < plan.initial_trials
         || (trials < plan.max_trials && some_spread_is_wide(timings, plan.wide_spread_percent)))
  {
    run_trial(trials++, true);
  }
  finish(timings);
  return timings;
}

std::vector<timing> time_host_interleaved(const timing_plan& plan, const std::vector<contender>& contenders)
{
  using clock = std::chrono::steady_clock;
  for (const contender& c : contenders)
  {
    for (int i = 0; i < host_warmup_calls; ++i)
    {
      c.call();
    }
  }
  std::vector<timing> timings(contenders.size());
  const double budget_us = plan.host_total_us * static_cast<double>(contenders.size());
  double total_us        = 0;
  for (int round = 0; round < plan.host_max_reps && (total_us < budget_us || round < plan.host_min_reps); ++round)
  {
    in_rotating_order(contenders.size(), round, [&](std::size_t c) {
      const auto start = clock::now();
      contenders[c].call();
      const double us = std::chrono::duration<double, std::micro>(clock::now() - start).count();
      timings[c].samples_us.push_back(us);
      total_us += us;
    });
  }
  finish(timings);
  return timings;
}

// ---------------------------------------------------------------------------------------------

double quantile(std::vector<double> values, double q)
{
  if (values.empty())
  {
    return std::nan("");
  }
  std::sort(values.begin(), values.end());
  const double position   = q * static_cast<double>(values.size() - 1);
  const auto below        = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, values.size() - 1);
  return values[below] + (position - static_cast<double>(below)) * (values[above] - values[below]);
}

double median(std::vector<double> values)
{
  return quantile(std::move(values), 0.5);
}

estimate summarize(const std::vector<double>& values)
{
  return estimate{quantile(values, 0.5), quantile(values, 0.25), quantile(values, 0.75)};
}

double spread_percent(const std::vector<double>& samples)
{
  const estimate e = summarize(samples);
  return e.median > 0 ? 100 * (e.high - e.low) / e.median : std::nan("");
}
} // namespace rk_perf
