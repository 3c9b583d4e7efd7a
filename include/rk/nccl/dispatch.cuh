#pragma once
// rk::reduce, rk::reduce_into and rk::explain for rk::nccl policies. With a local policy that keeps
// rk::reduce's tree, each rank reduces its shard to an rk::partial at its offset in the
// concatenation (unless the caller gives it, found on the GPU from the shard lengths, which the
// ranks exchange as they exchange values),
// the ranks share the partials (one kernel over an rk::nccl_workspace's symmetric memory, else one
// ncclAllGather), and every rank combines them in rank order and finishes after init: one-GPU
// rk::reduce's bits, whatever the rank count. With rk::atomic each rank
// reduces its shard without init, then shares a (valid, value) record with every rank and folds
// the records in rank order after init: through one ncclAllGather between two small kernels, or,
// with an rk::nccl_workspace that has symmetric memory, in one kernel. Everything is enqueued on
// the policy's stream; rk::reduce waits for it, rk::reduce_into does not.

#include <rk/cuda/dispatch/common.cuh>
#include <rk/cuda/dispatch/flat_engine.cuh>
#include <rk/cuda/dispatch/partial_engine.cuh>
#include <rk/cuda/error.cuh>
#include <rk/cuda/functional.cuh>
#include <rk/cuda/launch.cuh>
#include <rk/cuda/primitives/warp_reduce.cuh>
#include <rk/cuda/runtime.cuh>
#include <rk/detail/range.hpp>
#include <rk/nccl/error.cuh>
#include <rk/nccl/kernels.cuh>
#include <rk/nccl/partial_kernels.cuh>
#include <rk/nccl/policy.cuh>

#include <nccl.h>

#include <thrust/iterator/iterator_traits.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace rk
{
namespace detail
{
/// This rank's place in its communicator.
struct nccl_rank
{
  int rank;
  int ranks;
  int device;
};

/// Asks `comm` who this rank is, and checks that its GPU is the current device (rk's GPU policies
/// run on the current device, and so does the stream the caller passes).
inline nccl_rank query_rank(ncclComm_t comm, const char* what)
{
  nccl_rank me{};
  const std::string call(what);
  check_nccl(ncclCommCount(comm, &me.ranks), comm, (call + ": ncclCommCount").c_str());
  check_nccl(ncclCommUserRank(comm, &me.rank), comm, (call + ": ncclCommUserRank").c_str());
  check_nccl(ncclCommCuDevice(comm, &me.device), comm, (call + ": ncclCommCuDevice").c_str());
  int current = 0;
  throw_on_error(cudaGetDevice(&current), "rk::nccl: cudaGetDevice");
  if (current != me.device)
  {
    throw error(call + ": the communicator's rank " + std::to_string(me.rank) + " is on GPU "
                + std::to_string(me.device) + " but the current device is GPU " + std::to_string(current)
                + ": call cudaSetDevice(" + std::to_string(me.device) + ") in this rank's thread first");
  }
  return me;
}

/// The gather-and-fold step: shares this rank's record (the shard's result at `shard_value`, or
/// an empty record if null) with every rank and folds the records in rank order after `init` into
/// `out` (device memory, or a pinned host slot). Stream-ordered on `stream`.
/// - With a workspace that has symmetric memory: one kernel (symmetric_gather_fold_kernel).
/// - Otherwise: a kernel stores the record, one in-place ncclAllGather gathers the records, a
///   kernel folds them. The records live in this call's scratch, leased only now, after the local
///   reduction has been enqueued (that one leases the same stream's scratch itself).
template <class T, class Op>
void gather_and_fold(ncclComm_t comm, const nccl_workspace* workspace, const nccl_rank& me, const T* shard_value,
                     const T& init, T* out, const Op& op, cudaStream_t stream, const device_facts& device)
{
#if RK_NCCL_DEVICE_API
  if (workspace != nullptr && workspace->symmetric())
  {
    launch_kernel(symmetric_gather_fold_kernel<T, Op>, 1, warp_threads, stream,
                  "rk::nccl: gathering and folding the shard records (symmetric memory)", workspace->device_comm(),
                  workspace->buffer(), shard_value, init, out, op);
    return;
  }
#endif
  (void) workspace;
  using record          = maybe<T>;
  scratch_lease scratch = lease_scratch(device.ordinal, stream, 0, sizeof(record),
                                        static_cast<std::size_t>(me.ranks) * sizeof(record));
  record* records       = static_cast<record*>(scratch.partials);
  launch_kernel(store_shard_record_kernel<T>, 1, 1, stream, "rk::nccl: storing this rank's record", shard_value,
                records + me.rank);
  // In place: this rank's record already sits at its slot of the receive buffer.
  check_nccl(ncclAllGather(records + me.rank, records, sizeof(record), ncclUint8, comm, stream), comm,
             "rk::nccl: ncclAllGather of the shard records");
  launch_kernel(fold_shard_records_kernel<T, Op>, 1, 1, stream, "rk::nccl: folding the shard records", records,
                me.ranks, init, out, op);
  scratch.close();
}
/// Whether rk::nccl over this local backend exchanges partials (the reproducible tree) or values.
template <gpu_backend Backend>
inline constexpr bool nccl_exchanges_partials_v = Backend != gpu_backend::atomic;

/// Whether rk::nccl exchanges values through the policy's workspace (its symmetric memory).
template <gpu_backend Backend, class Provider>
bool exchanges_values_symmetrically(const nccl_policy<Backend, Provider>& policy)
{
  return RK_NCCL_DEVICE_API && policy.workspace != nullptr && policy.workspace->symmetric();
}

/// Whether rk::nccl shares partials of T through the policy's workspace: it has symmetric memory,
/// and its slots hold the record at its alignment.
template <class T, gpu_backend Backend, class Provider>
bool shares_partials_symmetrically(const nccl_policy<Backend, Provider>& policy)
{
  return exchanges_values_symmetrically(policy) && alignof(partial<T>) <= symmetric_records::record_align;
}

/// Whether rk::nccl reduces this rank's n items in one kernel on a guessed offset
/// (reduce_shard_on_guess): partials shared through symmetric memory, no offset given, and a
/// shard of at most nccl_guessed_offset_max_bytes.
template <class T, gpu_backend Backend, class Provider>
bool reduces_on_guessed_offset(const nccl_policy<Backend, Provider>& policy, offset_t n)
{
  return policy.shard_offset < 0 && shares_partials_symmetrically<T>(policy)
      && static_cast<std::size_t>(n) <= nccl_guessed_offset_max_bytes / sizeof(T);
}

#if RK_NCCL_DEVICE_API
/// The partials step through symmetric memory where the caller did not give the offset: one
/// kernel (symmetric_shard_partials_kernel) reduces the shard at the offset it would have if
/// every rank before this one had as many items, checks that guess against the lengths the ranks
/// exchange meanwhile, redoes the shard at the offset found where it was wrong, and shares and
/// combines the partials. Even shards pay for the lengths' exchange in parallel with the
/// reduction: 13.5-14.8 us a call at 2^10-2^20 floats a rank, against 17.7-19.1 with the exchange,
/// the plan on the GPU and the partial in three kernels (2x H200, rk_bench_nccl).
template <gpu_backend Backend, class Provider, class InputIt, class T, class BinaryOp>
void reduce_shard_on_guess(const nccl_policy<Backend, Provider>& policy, const nccl_rank& me, InputIt first, offset_t n,
                           T init, T* out, const BinaryOp& user_op, const device_facts& device)
{
  // Past 2^62 items before this rank the guess is 0: wrong, and still correct.
  const offset_t guess = n > 0 && me.rank > (offset_t{1} << 62) / n ? 0 : n * me.rank;
  const auto piece     = make_partial_launch<T>(policy.local, first, n, guess, user_op);
  using launch         = std::remove_const_t<decltype(piece)>;
  using planner        = typename launch::planner;
  // The piece's device operator reduces the shard and combines the records.
  constexpr auto kernel =
    symmetric_shard_partials_kernel<planner, typename launch::planned_element_agent, typename launch::input_type, T,
                                    typename launch::operator_type>;
  // One lease: the two records, the plan at the offset found, the two plans' values; the two
  // records' arrivals, then the kernel's words.
  const std::size_t record_bytes  = align_up(sizeof(partial<T>), 256);
  const std::size_t plan_bytes    = align_up(sizeof(partial_device_plan), 256);
  const std::size_t guess_bytes   = align_up(piece.scratch_bytes(), 256);
  const std::size_t arrival_words = launch::counter_words();
  scratch_lease scratch           = lease_scratch(device.ordinal, policy.stream(),
                                                  2 * arrival_words + shard_partials_counter_words, sizeof(T),
                                                  2 * record_bytes + plan_bytes + guess_bytes + piece.any_offset_scratch_bytes());
  auto* bytes                     = static_cast<unsigned char*>(scratch.partials);
  shard_partials_scratch<T> where{};
  where.guessed          = reinterpret_cast<partial<T>*>(bytes);
  where.found            = reinterpret_cast<partial<T>*>(bytes + record_bytes);
  where.found_plan       = reinterpret_cast<partial_device_plan*>(bytes + 2 * record_bytes);
  where.guessed_values   = reinterpret_cast<T*>(bytes + 2 * record_bytes + plan_bytes);
  where.found_values     = reinterpret_cast<T*>(bytes + 2 * record_bytes + plan_bytes + guess_bytes);
  where.guessed_arrivals = scratch.counters;
  where.found_arrivals   = scratch.counters + arrival_words;
  where.counters         = reinterpret_cast<shard_partials_counters*>(scratch.counters + 2 * arrival_words);
  // The first block checks the guess; the others take the blocks of either plan, which fit the
  // limits' grid.
  const offset_t workers = std::max<offset_t>(piece.limits().grid, piece.work().blocks + 1);
  launch_kernel(kernel, static_cast<unsigned>(workers + 1), planner::block_threads, policy.stream(),
                "rk::nccl: the shard's partial on a guessed offset, checked, and the partials' exchange (symmetric "
                "memory)",
                policy.workspace->device_comm(), policy.workspace->buffer(), piece.input(), piece.ends(), piece.work(),
                piece.limits(), where, init, out, piece.op());
  scratch.close();
}
#endif

/// The partials step: this rank's shard as an rk::partial at its offset, shared with every rank,
/// combined in rank order and finished after `init` into `out` (device memory, or a pinned host
/// slot), on every rank. Shared through the workspace's symmetric memory in one kernel where it
/// has it, else with one ncclAllGather of the records and a kernel that combines them. Where the
/// caller did not give the offset, the ranks first exchange their shard lengths the same way, and
/// one block plans the partial on the GPU at the offset they sum to: nothing waits on the host
/// (the host's wait for the lengths had cost ~30 us a call, 2x H200), and the call is capturable.
template <gpu_backend Backend, class Provider, class InputIt, class T, class BinaryOp>
void reduce_shards_exactly(const nccl_policy<Backend, Provider>& policy, const nccl_rank& me, InputIt first, offset_t n,
                           T init, T* out, const BinaryOp& user_op, const device_facts& device)
{
  const bool offset_given = policy.shard_offset >= 0;
  if (offset_given && n > std::numeric_limits<offset_t>::max() - policy.shard_offset)
  {
    throw error("rk::nccl: the shard's offset (.with_offset) plus its length is more than 2^63 - 1 items");
  }
#if RK_NCCL_DEVICE_API
  if (reduces_on_guessed_offset<T>(policy, n))
  {
    reduce_shard_on_guess(policy, me, first, n, init, out, user_op, device);
    return;
  }
#endif
  const auto piece     = offset_given ? make_partial_launch<T>(policy.local, first, n, policy.shard_offset, user_op)
                                      : make_partial_launch<T>(policy.local, first, n, offset_on_device, user_op);
  using planner        = typename std::remove_const_t<decltype(piece)>::planner;
  const auto op        = device_operator<BinaryOp>::get(user_op);
  const bool symmetric = shares_partials_symmetrically<T>(policy);
  const cudaStream_t stream = policy.stream();
  // One lease: the records (its own, or every rank's: the gather's receive buffer), then where the
  // offset is found on the GPU its plan and the gathered lengths, then the nodes' values.
  const std::size_t records_bytes = align_up(static_cast<std::size_t>(symmetric ? 1 : me.ranks) * sizeof(partial<T>),
                                             256);
  const std::size_t plan_bytes    = offset_given ? 0 : align_up(sizeof(partial_device_plan), 256);
  // The gathered lengths, where they are gathered (no workspace to exchange them through).
  const bool gathers_lengths      = !offset_given && !exchanges_values_symmetrically(policy);
  const std::size_t lengths_bytes = gathers_lengths
                                    ? align_up(static_cast<std::size_t>(me.ranks) * sizeof(offset_t), 256)
                                    : 0;
  scratch_lease scratch           = lease_scratch(device.ordinal, stream, piece.counter_words(), sizeof(T),
                                                  records_bytes + plan_bytes + lengths_bytes + piece.scratch_bytes());
  auto* bytes                     = static_cast<unsigned char*>(scratch.partials);
  auto* records                   = reinterpret_cast<partial<T>*>(bytes);
  auto* plan                      = reinterpret_cast<partial_device_plan*>(bytes + records_bytes);
  auto* lengths                   = reinterpret_cast<offset_t*>(bytes + records_bytes + plan_bytes);
  void* values                    = bytes + records_bytes + plan_bytes + lengths_bytes;
  partial<T>* mine                = symmetric ? records : records + me.rank;
  if (offset_given)
  {
    piece.enqueue(mine, values, scratch.counters);
  }
  else
  {
#if RK_NCCL_DEVICE_API
    if (exchanges_values_symmetrically(policy))
    {
      launch_kernel(symmetric_shard_plan_kernel<planner>, 1, partial_plan_threads, stream,
                    "rk::nccl: exchanging the shard lengths and planning the shard's partial (symmetric memory)",
                    policy.workspace->device_comm(), policy.workspace->buffer(), piece.limits(), plan);
    }
    else
#endif
    {
      // From a kernel parameter: capturable, unlike a copy from the host's stack.
      launch_kernel(store_init_kernel<offset_t>, 1, 1, stream, "rk::nccl: storing this rank's shard length", n,
                    lengths + me.rank);
      check_nccl(ncclAllGather(lengths + me.rank, lengths, sizeof(offset_t), ncclUint8, policy.comm, stream),
                 policy.comm, "rk::nccl: ncclAllGather of the shard lengths");
      launch_kernel(summed_offset_plan_kernel<planner>, 1, partial_plan_threads, stream,
                    "rk::nccl: planning the shard's partial", lengths, me.rank, piece.limits(), plan);
    }
    piece.enqueue_planned(plan, mine, values, scratch.counters);
  }
#if RK_NCCL_DEVICE_API
  if (symmetric)
  {
    // Dependent on the partial's kernel: the step's launch overlaps that kernel's run (1 us a call
    // less, 2x H200, rk_perf_nccl); it waits for that kernel's end before it reads the record.
    constexpr auto gather = symmetric_gather_partials_kernel<T, decltype(op)>;
    launch_dependent_kernel(gather, waits_for_prior_grid<gather>(device.ordinal), 1, warp_threads, stream,
                            "rk::nccl: sharing and combining the shard partials (symmetric memory)",
                            policy.workspace->device_comm(), policy.workspace->buffer(), mine, init, out, op);
    scratch.close();
    return;
  }
#endif
  check_nccl(ncclAllGather(mine, records, sizeof(partial<T>), ncclUint8, policy.comm, stream), policy.comm,
             "rk::nccl: ncclAllGather of the shard partials");
  launch_kernel(fold_shard_partials_kernel<T, decltype(op)>, 1, 1, stream, "rk::nccl: combining the shard partials",
                records, me.ranks, init, out, op);
  scratch.close();
}

/// This rank's part of one rk::nccl reduction, enqueued on the policy's stream: `init ⊕ shard_0 ⊕ …`
/// into `out` (device memory, or a pinned host slot) on every rank, through the exchange the local
/// backend calls for: partials for the reproducible tree, values (valid, value records) for
/// rk::atomic, whose shard result waits in *out for the gather.
template <gpu_backend Backend, class Provider, class InputIt, class T, class BinaryOp>
void reduce_shards(const nccl_policy<Backend, Provider>& policy, const nccl_rank& me, InputIt first, InputIt last,
                   offset_t n, const T& init, T* out, const BinaryOp& user_op, const device_facts& device)
{
  if constexpr (nccl_exchanges_partials_v<Backend>)
  {
    reduce_shards_exactly(policy, me, first, n, init, out, user_op, device);
  }
  else
  {
    const auto op = gpu_operator<Backend, InputIt, T>(user_op);
    if (n > 0)
    {
      reduce_range_into(policy.local, first, last, out, user_op);
    }
    gather_and_fold(policy.comm, policy.workspace, me, n > 0 ? out : nullptr, init, out, op, policy.stream(), device);
  }
}
} // namespace detail

/// `init ⊕ shard_0 ⊕ shard_1 ⊕ … ⊕ shard_{R-1}` on every rank of `policy.comm`, where shard_r is
/// the range [first, last) rank r passed: the reduction of the concatenation of the shards in rank
/// order, `init` combined once, on the left. Shards may differ in length and may be empty; if all
/// are, the result is `init` and `op` is never called. Every rank must make the same calls on its
/// communicator in the same order, with the same `T` and `op` (NCCL gathers sizeof(T) + a flag
/// per rank; a rank that disagrees gets garbage or hangs the others, and rk cannot check it
/// cheaply). Call it from one host thread per rank, with that rank's GPU current, outside any
/// ncclGroupStart/ncclGroupEnd. Waits for the policy's stream only.
///
/// \code
/// float s = rk::reduce(rk::nccl(comm).on(stream), shard.begin(), shard.end(), 0.0f, rk::plus{});
/// \endcode
template <gpu_backend Backend, class Provider, class InputIt, class T, class BinaryOp>
T reduce_dispatch(const nccl_policy<Backend, Provider>& policy, InputIt first, InputIt last, T init, BinaryOp user_op)
{
  (void) detail::gpu_operator<Backend, InputIt, T>(user_op); // the call's compile-time checks, first
  const std::int64_t n       = detail::checked_distance(first, last);
  const detail::nccl_rank me = detail::query_rank(policy.comm, "rk::reduce with rk::nccl");
  const cudaStream_t stream  = policy.stream();
  detail::check_not_capturing(stream, "rk::reduce with rk::nccl");
  const detail::device_facts& device = detail::current_device_facts();
  // The shard's result and then the final one go through a pinned slot, which kernels write directly;
  // but rk::atomic's blocks combine into the shard's result with atomics, which need device memory
  // (as in rk::reduce's value-returning calls), so there both go through a device buffer, copied to
  // the slot behind them.
  const detail::pinned_slot result = detail::acquire_pinned_slot();
  if constexpr (detail::nccl_exchanges_partials_v<Backend>)
  {
    detail::reduce_shards(policy, me, first, last, n, init, static_cast<T*>(result.get()), user_op, device);
  }
  else
  {
    const detail::device_buffer on_device = detail::take_device_buffer(device.ordinal, sizeof(T));
    try
    {
      detail::reduce_shards(policy, me, first, last, n, init, static_cast<T*>(on_device.ptr), user_op, device);
      detail::throw_on_error(cudaMemcpyAsync(result.get(), on_device.ptr, sizeof(T), cudaMemcpyDeviceToHost, stream),
                             "rk::reduce with rk::nccl: copying the result back");
    }
    catch (...)
    {
      detail::park_device_buffer(device.ordinal, on_device.ptr, on_device.bytes, stream);
      throw;
    }
    detail::park_device_buffer(device.ordinal, on_device.ptr, on_device.bytes, stream);
  }
  detail::throw_on_error(cudaStreamSynchronize(stream), "rk::reduce with rk::nccl: waiting for the reduction");
  detail::uninitialized<T> value;
  std::memcpy(static_cast<void*>(&value), result.get(), sizeof(T));
  return value.value;
}

/// Stream-ordered form: writes `init ⊕ shard_0 ⊕ … ⊕ shard_{R-1}` to device memory `out` (a `T*`
/// or thrust::device_ptr<T>) on every rank and returns without waiting. Same rules as rk::reduce
/// with rk::nccl. Capturable in a CUDA graph where NCCL's collectives are (every rank captures
/// its own; a captured call allocates its scratch inside the graph).
///
/// \code
/// rk::reduce_into(rk::nccl(comm).on(stream), shard.begin(), shard.end(), d_out, init, op);
/// \endcode
template <gpu_backend Backend, class Provider, class InputIt, class OutputPtr, class T, class BinaryOp>
void reduce_into(const nccl_policy<Backend, Provider>& policy, InputIt first, InputIt last, OutputPtr out, T init,
                 BinaryOp user_op)
{
  (void) detail::gpu_operator<Backend, InputIt, T>(user_op); // the call's compile-time checks, first
  const std::int64_t n               = detail::checked_distance(first, last);
  const detail::nccl_rank me         = detail::query_rank(policy.comm, "rk::reduce_into with rk::nccl");
  const detail::device_facts& device = detail::current_device_facts();
  detail::reduce_shards(policy, me, first, last, n, init, detail::to_device_result<T>(out, device), user_op, device);
}

template <gpu_backend Backend, class Provider, class InputIt, class OutputPtr, class T>
void reduce_into(const nccl_policy<Backend, Provider>& policy, InputIt first, InputIt last, OutputPtr out, T init)
{
  reduce_into(policy, first, last, out, init, plus{});
}

/// What the local policy would run on this rank's shard, and the gather that follows. Runs
/// nothing; asks the communicator how many ranks it has.
template <gpu_backend Backend, class Provider, class InputIt, class T, class BinaryOp>
explanation explain_dispatch(const nccl_policy<Backend, Provider>& policy, InputIt first, InputIt last, const T& init,
                             const BinaryOp& op)
{
  explanation e = explain_dispatch(policy.local, first, last, init, op);
  int ranks     = 0;
  detail::check_nccl(ncclCommCount(policy.comm, &ranks), policy.comm, "rk::explain with rk::nccl: ncclCommCount");
  e.policy = "nccl(" + e.policy + ")";
  if constexpr (detail::nccl_exchanges_partials_v<Backend>)
  {
    e.reason += "; across the " + std::to_string(ranks) + " ranks: this rank's shard is reduced to an rk::partial "
              + "record (" + std::to_string(sizeof(partial<T>)) + " bytes: the tree's nodes inside the shard) at its "
              + "offset in the concatenation ("
              + (policy.shard_offset >= 0 ? std::string("given")
                 : detail::reduces_on_guessed_offset<T>(policy, static_cast<detail::offset_t>(e.size))
                   ? std::string("guessed as if every rank before had as many items, reduced there in one kernel while "
                                 "the shard lengths are exchanged through symmetric memory, and reduced again at the "
                                 "offset found if the guess was wrong")
                   : std::string("found on the GPU from the shard lengths, exchanged ")
                       + (detail::exchanges_values_symmetrically(policy) ? "through symmetric memory"
                                                                         : "with one ncclAllGather")
                       + ", where one block plans the partial")
              + (detail::shares_partials_symmetrically<T>(policy)
                   ? std::string("), one kernel stores the record into every rank's symmetric memory "
                                 "(rk::nccl_workspace)")
                   : std::string("), one ncclAllGather shares the records")
                       + (policy.workspace != nullptr
                            ? " (the workspace has no symmetric memory: " + policy.workspace->reason() + ")"
                            : std::string()))
              + ", and every rank combines them in rank order and finishes after init: the bits of one-GPU "
                "rk::reduce over the concatenation, whatever the rank count";
    e.reproducible = true;
  }
  else
  {
    e.reason += "; across the " + std::to_string(ranks) + " ranks: this rank's shard is reduced without init "
              + (e.size == 0 ? std::string("(empty here: nothing runs for it)") : std::string("by '") + e.backend + "'")
              + (policy.workspace != nullptr && policy.workspace->symmetric()
                   ? std::string(", then one kernel stores this rank's (valid, value) record into every rank's "
                                 "symmetric memory (rk::nccl_workspace) and folds the records in rank order after "
                                 "init, on every rank")
                   : ", then one ncclAllGather of " + std::to_string(sizeof(detail::maybe<T>))
                       + "-byte (valid, value) records per rank and a fold of the records in rank order after init, "
                         "on every rank"
                       + (policy.workspace != nullptr
                            ? " (the workspace has no symmetric memory: " + policy.workspace->reason() + ")"
                            : std::string()));
  }
  return e;
}
} // namespace rk
