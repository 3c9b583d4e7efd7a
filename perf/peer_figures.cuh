#pragma once
// rk_perf's side of the CUB peer (cub_peer.cu, a separate executable built against a newer CCCL):
// running it on the same cases and reading the figures it wrote, so that its rows and ratios
// join rk_perf's report. The two never share a binary, so they never share a trial either:
// ratios to the peer's rows go through each side's probe (ratios.cuh, pairing::via_probe).

#include "cli.hpp"
#include "harness.cuh"

#include <string>
#include <vector>

namespace rk_perf
{
struct peer_figures
{
  std::string source;      ///< the JSON file the rows came from
  std::string cub_version; ///< "3.6.0"
  std::vector<measurement> rows;
  int mismatches = 0; ///< results the peer found disagreeing with its two-phase CUB sum
};

/// The peer's figures for the cases of `opt`. `peer` is either a JSON file the peer wrote
/// (ends in ".json") or the peer executable, which is then run (its report on stderr) with the
/// cases of `opt`, writing `json_path`. Throws std::runtime_error if the peer fails or its JSON
/// cannot be read.
peer_figures load_peer(const std::string& peer, const common_options& opt, const std::string& json_path);
} // namespace rk_perf
