#pragma once
// The timing layer of rk_perf and of its CUB peer: interleaved trials of every implementation of a
// case, and the statistics read from them. Knows CUDA events and std::chrono, nothing of rk or CUB.
//
// Why interleaved: the GPU and its host go through slow spells (clocks, other tenants, the
// driver) that last longer than one implementation's trials. Timed one after the other, a spell
// lands on one implementation only and flips a ratio (issue 7: rk::device int32 2^16 read 25.17 us
// in one run and 4.89 us in the next). Timed A B C, B C A, C A B, ..., a spell lands on all of
// them in the same trial, and a ratio taken within each trial cancels it.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace rk_perf
{
/// One implementation of a case: `call` enqueues one run of it (device timing: stream-ordered
/// work only, on the suite's stream) or runs it to completion (host timing).
struct contender
{
  std::string name;
  std::function<void()> call;
};

/// The times of one contender.
struct timing
{
  double median_us = 0;
  std::vector<double> samples_us; ///< device: per-call time of each trial; host: each call
  int calls_per_sample = 1;
  /// Samples k of two timings with the same group were taken in the same trial (the same round
  /// of host calls): their ratio is paired. 0: timed alone.
  int group = 0;
};

/// How many trials and repetitions a case gets.
struct timing_plan
{
  int initial_trials;         ///< device trials every case gets...
  int max_trials;             ///< ...and at most this many, added one at a time...
  double wide_spread_percent; ///< ...while some contender's spread exceeds this
  double host_total_us;       ///< host rounds stop after this much time per contender...
  int host_min_reps;          ///< ...once at least this many ran...
  int host_max_reps;          ///< ...or at this many
};

/// The defaults: 7 trials growing to 31 while a spread exceeds 5 % (3 growing to 9 with quick).
timing_plan make_timing_plan(bool quick, int initial_trials, int max_trials);

/// Device time per call of each contender (in order), in trials that time every contender once,
/// each trial starting one contender later than the previous (A B C, B C A, C A B, ...). Every
/// returned timing has the same number of samples and one fresh group.
std::vector<timing> time_interleaved(cudaStream_t stream, const timing_plan& plan,
                                     const std::vector<contender>& contenders);

/// Host round trip of each contender's call (which must return only once its result is on the
/// host), in rotating rounds like time_interleaved's trials.
std::vector<timing> time_host_interleaved(const timing_plan& plan, const std::vector<contender>& contenders);

/// A group id no timing of this process has yet (for timings read from elsewhere, such as the
/// CUB peer's JSON, whose samples pair only among themselves).
int new_timing_group();

// ---------------------------------------------------------------------------------------------
// Statistics

double median(std::vector<double> values);

/// The q-quantile (0 <= q <= 1) with linear interpolation between order statistics.
double quantile(std::vector<double> values, double q);

/// Interquartile range of `samples` as a percentage of their median: the spread reported for
/// every timing and used by the adaptive rule (robust to one stray trial, unlike min-max).
double spread_percent(const std::vector<double>& samples);

/// A figure with its interquartile interval.
struct estimate
{
  double median;
  double low;  ///< first quartile
  double high; ///< third quartile
};

estimate summarize(const std::vector<double>& values);
} // namespace rk_perf
