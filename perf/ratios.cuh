#pragma once
// The report layer's ratios: a / b for two measurements of one (type, size), with the interval
// that says whether the difference it claims is larger than the noise.

#include "harness.cuh"

#include <optional>
#include <string>
#include <vector>

namespace rk_perf
{
/// How a ratio was formed, best first.
enum class pairing
{
  paired,    ///< both timed in the same trials: the median and quartiles of the per-trial ratios
  via_probe, ///< timed in different processes (the CUB peer): a / probe_a x probe_b / b, each
             ///< factor paired within its own trials, quartiles multiplied (wider, not narrower)
  unpaired,  ///< no common trials, no probes: ratio of medians, interval q1(a)/q3(b)..q3(a)/q1(b)
};

struct ratio
{
  estimate value;
  pairing how;
};

/// Which timing of a measurement a ratio reads.
using timing_of = std::optional<timing> measurement::*;

/// a's time / b's time, or nothing if either lacks the timing. `results` holds the probes a
/// via_probe ratio needs (the rows whose impl is "probe" or ends in " probe", timed in a's and
/// in b's trials).
std::optional<ratio> time_ratio(const std::vector<measurement>& results, const measurement& a, const measurement& b,
                                timing_of which = &measurement::device);

/// reference's time / m's time, scaled, as text for a table ("" if not measured), prefixed with
/// "~" when its interval holds the scale (m and the reference are not told apart by this run).
std::string relative_speed(const std::vector<measurement>& results, const measurement& m, const measurement* reference,
                           double scale, int decimals);

enum class verdict
{
  pass,
  within_noise, ///< the interval straddles the limit: this run cannot tell
  miss,
};

/// PASS if the whole interval meets the limit, MISS if none of it does, else within noise.
verdict judge(const estimate& value, bool at_most, double limit);

const char* to_string(verdict v);
const char* to_string(pairing p);
} // namespace rk_perf
