// Ratios between measurements (see ratios.cuh).

#include "ratios.cuh"

#include "cli.hpp"

#include <algorithm>

namespace rk_perf
{
namespace
{
bool is_probe(const std::string& impl)
{
  return impl == "probe" || ends_with(impl, " probe");
}

/// The probe timed in the same trials as `m`, or null.
const measurement* probe_of(const std::vector<measurement>& results, const measurement& m)
{
  for (const auto& candidate : results)
  {
    if (candidate.type == m.type && candidate.log2n == m.log2n && is_probe(candidate.impl) && candidate.device
        && candidate.device->group == m.device->group)
    {
      return &candidate;
    }
  }
  return nullptr;
}

bool same_trials(const timing& a, const timing& b)
{
  return a.group != 0 && a.group == b.group && a.samples_us.size() == b.samples_us.size();
}

estimate paired(const timing& a, const timing& b)
{
  std::vector<double> ratios(a.samples_us.size());
  for (std::size_t k = 0; k < ratios.size(); ++k)
  {
    ratios[k] = a.samples_us[k] / b.samples_us[k];
  }
  return summarize(ratios);
}
} // namespace

std::optional<ratio> time_ratio(const std::vector<measurement>& results, const measurement& a, const measurement& b,
                                timing_of which)
{
  if (!(a.*which) || !(b.*which))
  {
    return std::nullopt;
  }
  const timing& ta = *(a.*which);
  const timing& tb = *(b.*which);
  if (same_trials(ta, tb))
  {
    return ratio{paired(ta, tb), pairing::paired};
  }
  if (which == &measurement::device)
  {
    const measurement* probe_a = probe_of(results, a);
    const measurement* probe_b = probe_of(results, b);
    if (probe_a != nullptr && probe_b != nullptr && same_trials(ta, *probe_a->device)
        && same_trials(*probe_b->device, tb))
    {
      const estimate to_probe   = paired(ta, *probe_a->device);
      const estimate from_probe = paired(*probe_b->device, tb);
      return ratio{{to_probe.median * from_probe.median, to_probe.low * from_probe.low,
                    to_probe.high * from_probe.high},
                   pairing::via_probe};
    }
  }
  const estimate ea = summarize(ta.samples_us);
  const estimate eb = summarize(tb.samples_us);
  return ratio{{ea.median / eb.median, ea.low / eb.high, ea.high / eb.low}, pairing::unpaired};
}

std::string relative_speed(const std::vector<measurement>& results, const measurement& m, const measurement* reference,
                           double scale, int decimals)
{
  if (reference == nullptr)
  {
    return "";
  }
  const std::optional<ratio> r = time_ratio(results, *reference, m);
  if (!r)
  {
    return "";
  }
  const bool indistinct = reference != &m && r->value.low <= 1 && r->value.high >= 1;
  return (indistinct ? "~" : "") + fixed(scale * r->value.median, decimals);
}

verdict judge(const estimate& value, bool at_most, double limit)
{
  const double best  = at_most ? value.low : value.high;
  const double worst = at_most ? value.high : value.low;
  const auto meets   = [&](double x) { return at_most ? x <= limit : x >= limit; };
  if (meets(worst))
  {
    return verdict::pass;
  }
  return meets(best) ? verdict::within_noise : verdict::miss;
}

const char* to_string(verdict v)
{
  switch (v)
  {
    case verdict::pass:
      return "PASS";
    case verdict::within_noise:
      return "within noise";
    case verdict::miss:
      return "MISS";
  }
  return "?";
}

const char* to_string(pairing p)
{
  switch (p)
  {
    case pairing::paired:
      return "paired";
    case pairing::via_probe:
      return "via probe";
    case pairing::unpaired:
      return "unpaired";
  }
  return "?";
}
} // namespace rk_perf
