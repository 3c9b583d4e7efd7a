#pragma once
// The NCCL suite's harness. A property runs on every rank of a communicator, each rank in its own
// host thread or process, and makes the same rk::nccl calls in the same order on every rank (a
// rank that skipped one would leave the others waiting in ncclAllGather). So properties report
// through a `report` instead of doctest's assertions: the failures of every rank come back to the
// test case, which checks them on its own thread (rank 1 of the two-process setup prints its own
// and fails its exit status).

#include "../support/reference.hpp"
#include "../support/test_types.hpp"

#include <rk/nccl.cuh>

#include <nccl.h>

#include <cstdint>
#include <string>
#include <vector>

namespace rk_test::nccl
{
/// One rank: its communicator, its place, its GPU (current in its thread) and its stream.
struct rank_env
{
  ncclComm_t comm;
  int rank;
  int ranks;
  int device;
  cudaStream_t stream;
  int visible_gpus; ///< GPUs this process sees (the wrong-device check needs two)
  /// The properties' calls go through this workspace's symmetric step if set, else the
  /// communicator's ncclAllGather step.
  const rk::nccl_workspace* workspace = nullptr;

  /// rk::nccl over this rank's communicator or workspace.
  rk::nccl_policy<rk::gpu_backend::automatic> nccl() const
  {
    return workspace != nullptr ? rk::nccl(*workspace) : rk::nccl(comm);
  }
  template <rk::gpu_backend Backend, class Provider>
  rk::nccl_policy<Backend, Provider> nccl(const rk::gpu_policy<Backend, Provider>& local) const
  {
    return workspace != nullptr ? rk::nccl(*workspace, local) : rk::nccl(comm, local);
  }
};

/// Checks of one rank, with the failures spelled out.
class report
{
public:
  explicit report(std::string who)
      : who_(std::move(who))
  {}

  /// Records a failure unless `ok`; `what` says what was checked, with the values.
  void expect(bool ok, const std::string& what)
  {
    ++checks;
    if (!ok)
    {
      failures.push_back(who_ + ", " + property_ + ": " + what);
    }
  }
  void property(const std::string& name)
  {
    property_ = name;
  }

  int checks = 0;
  std::vector<std::string> failures;

private:
  std::string who_;
  std::string property_;
};

/// How the global index range is cut into shards; every layout covers [0, covered) in rank order.
enum class layout
{
  even,        ///< equal shares (up to rounding)
  unequal,     ///< rank r gets a share proportional to 2r + 1
  first_empty, ///< rank 0 gets nothing, the others equal shares
  last_only,   ///< only the last rank has items
  all_empty,   ///< nobody has items
};

const char* to_string(layout l);

struct shard
{
  std::int64_t begin;
  std::int64_t end;
  std::int64_t size() const
  {
    return end - begin;
  }
};

/// Rank `rank`'s part of [0, total) under `l`.
shard shard_of(layout l, std::int64_t total, int rank, int ranks);

/// The end of the last rank's shard: the shards cover [0, covered()).
std::int64_t covered(layout l, std::int64_t total, int ranks);

inline const layout all_layouts[] = {layout::even, layout::unequal, layout::first_empty, layout::last_only,
                                     layout::all_empty};

// The properties (nccl_properties_*.cu); each makes the same collective calls on every rank.
void sums_and_extrema(const rank_env& env, report& out);
void rank_count_invariance(const rank_env& env, report& out);
void value_exchange(const rank_env& env, report& out);
void non_commutative(const rank_env& env, report& out);
void no_default_constructor(const rank_env& env, report& out);
void empty_shards(const rank_env& env, report& out);
void large_shards(const rank_env& env, report& out);
void back_to_back(const rank_env& env, report& out);
void out_of_step(const rank_env& env, report& out);
void graph_capture(const rank_env& env, report& out);
void errors(const rank_env& env, report& out);

/// Every property above, in one order, each under its name; an exception ends only its property.
/// `prefix` goes before each property's name in the failures.
void run_all_properties(const rank_env& env, report& out, const std::string& prefix = {});
} // namespace rk_test::nccl
