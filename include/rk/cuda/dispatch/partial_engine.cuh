#pragma once
// The partial engine: the launch of one rk::reduce_partial (all its tree nodes on a grid shared by
// the nodes in proportion to their items, a node that took several blocks finished by the last of
// them, and one more block for the record's cut lanes and shape) and of rk::combine on the device.
// rk::reduce_partial runs it, and so do rk::accumulator and rk::nccl's exchange of partials.

#include <rk/cuda/agent/reduce_agent.cuh>
#include <rk/cuda/agent/segment_parts.cuh>
#include <rk/cuda/dispatch/common.cuh>
#include <rk/cuda/kernels/reduce_partial.cuh>
#include <rk/cuda/launch.cuh>
#include <rk/partial.hpp>

#include <cstdint>
#include <type_traits>

namespace rk::detail
{
template <gpu_backend Backend>
constexpr void check_partial_backend()
{
  static_assert(Backend != gpu_backend::atomic,
                "rk::reduce_partial needs rk::reduce's tree, which rk::atomic does not keep: use rk::device, "
                "rk::single_pass or rk::two_pass");
}

/// The launch of one rk::reduce_partial: the items from `input` (what the kernel reads: see
/// to_device_input), standing at the shape's offset, into a record in device memory. The nodes'
/// values go to scratch_bytes() of the caller's scratch and their arrivals to counter_words() of
/// its counters, so a caller that needs scratch of its own (rk::nccl) takes both in one lease.
/// Where only the GPU will know the offset (rk::nccl's shards), the launch is made from the length
/// alone: a block earlier on the stream makes the plan there (plan_partial_in_block, on `planner`
/// and limits()), and the scratch and the grid are sized for any offset. Made by
/// make_partial_launch.
template <class T, class Provider, class Input, class Op>
class partial_launch
{
  // Whatever the policy's tree shape: a partial is made of the reproducible tree's nodes.
  using provider                       = with_tree_shape<Provider, tree_shape::pairwise_tiles>;
  using vector_agent                   = reduce_agent<provider, Input, T>;
  using element_agent                  = typename element_agent_of<vector_agent::vectorized, provider, Input, T>::type;
  static constexpr auto kernel         = partial_kernel<vector_agent, element_agent, Input, T, Op>;
  static constexpr auto planned_kernel = planned_partial_kernel<vector_agent, element_agent, Input, T, Op>;

public:
  /// The agent whose plan the nodes take, for plan_partial_in_block.
  using planner = vector_agent;
  /// What the piece's blocks run on, for a kernel of the caller's that runs them itself
  /// (reduce_planned_partial_block: rk::nccl's one-kernel call).
  using planned_element_agent = element_agent;
  using input_type            = Input;
  using operator_type         = Op;

  /// A piece at a known offset: planned here.
  partial_launch(cudaStream_t stream, Input input, Op op, const device_facts& device, offset_t offset, offset_t n)
      : partial_launch(stream, input, op, device, n)
  {
    planned_here_ = true;
    ends_         = make_partial_ends(offset, n, vector_agent::lane_items);
    work_         = plan_partial_work<vector_agent>(offset, n, limits_.max_blocks);
  }
  /// A piece whose offset only the GPU will know: enqueue_planned runs it on a plan made there.
  partial_launch(cudaStream_t stream, Input input, Op op, const device_facts& device, offset_t n)
      : stream_(stream)
      , input_(input)
      , op_(op)
      , device_(device)
      , limits_(partial_plan_limits_for<vector_agent>(
          n, vector_agent::grid_cap(max_grid<kernel>(vector_agent::tuning, vector_agent::block_threads, device))))
  {}

  /// Scratch the nodes write: the plan's, or for a plan made on the GPU, the most any offset needs.
  std::size_t scratch_bytes() const
  {
    return static_cast<std::size_t>(planned_here_ ? work_.values : limits_.values) * sizeof(T);
  }
  /// Counter words the launch synchronizes through (one per node, and the grid's), zero before
  /// and after it.
  static constexpr std::size_t counter_words()
  {
    return partial<T>::max_nodes + 1;
  }
  const device_facts& device() const
  {
    return device_;
  }
  const partial_plan_limits& limits() const
  {
    return limits_;
  }
  /// The plan made here, for a piece at a known offset.
  const partial_ends& ends() const
  {
    return ends_;
  }
  const partial_work& work() const
  {
    return work_;
  }
  /// Scratch the nodes of a plan made on the GPU write, at any offset.
  std::size_t any_offset_scratch_bytes() const
  {
    return static_cast<std::size_t>(limits_.values) * sizeof(T);
  }
  const Input& input() const
  {
    return input_;
  }
  const Op& op() const
  {
    return op_;
  }

  /// Enqueues the launch planned here; `scratch` holds scratch_bytes(), aligned for T, and
  /// `counters` counter_words() words of a lease's counters. Where `append_to` is not null, the
  /// record is then appended to *append_to (rk::combine in place), in the same launch, and the
  /// launch is dependent on the kernel ahead of it (the accumulator's last chunk, as a rule): its
  /// blocks start while that one's last blocks run (16 chunks of 2^24 floats: 512 -> 488 us, H100).
  void enqueue(partial<T>* out, void* scratch, unsigned* counters, partial<T>* append_to = nullptr) const
  {
    launch_dependent_kernel(kernel, append_to != nullptr && waits_for_prior_grid<kernel>(device_.ordinal),
                            static_cast<unsigned>(work_.blocks + 1), vector_agent::block_threads, stream_,
                            "rk::reduce_partial: launching its kernel", input_, ends_, work_, static_cast<T*>(scratch),
                            counters, out, append_to, op_);
  }
  /// Enqueues the launch on the plan that the kernel just ahead of it on the stream makes on the
  /// GPU, within limits(): launched dependent on that kernel, its blocks start while the plan is
  /// made (2 us a call less at 2^10-2^20 items, 2x H200, rk_perf_nccl).
  void enqueue_planned(const partial_device_plan* plan, partial<T>* out, void* scratch, unsigned* counters) const
  {
    launch_dependent_kernel(planned_kernel, waits_for_prior_grid<planned_kernel>(device_.ordinal),
                            static_cast<unsigned>(limits_.grid), vector_agent::block_threads, stream_,
                            "rk::reduce_partial: launching its kernel (planned on the GPU)", input_, plan,
                            static_cast<T*>(scratch), counters, out, op_);
  }

private:
  cudaStream_t stream_;
  Input input_;
  Op op_;
  const device_facts& device_;
  partial_plan_limits limits_;
  bool planned_here_ = false;
  partial_ends ends_{};
  partial_work work_{};
};

/// Where a piece's offset is known only on the GPU (make_partial_launch's tag).
struct offset_on_device_t
{};
inline constexpr offset_on_device_t offset_on_device{};

/// The launch of rk::reduce_partial of the n items from `first`, standing at `offset` (or at an
/// offset that only the GPU will know: offset_on_device), on the policy's stream: the call's
/// checks, the operator and input the kernels take, the record's shape.
template <class T, gpu_backend Backend, class Provider, class InputIt, class Offset, class BinaryOp>
auto make_partial_launch(const gpu_policy<Backend, Provider>& policy, InputIt first, offset_t n, Offset offset,
                         const BinaryOp& user_op)
{
  check_partial_backend<Backend>();
  const auto op              = gpu_operator<Backend, InputIt, T>(user_op);
  const device_facts& device = current_device_facts();
  // An empty piece reads nothing, anywhere: its iterator is not checked.
  const auto input = to_device_input(first, n > 0 ? &device : nullptr);
  using launch = partial_launch<T, Provider, std::remove_const_t<decltype(input)>, std::remove_const_t<decltype(op)>>;
  static_assert(launch::planner::lane_items == tile_lane_items<tree_item_t<InputIt>>,
                "the kernel reads the items the record's lanes count");
  if constexpr (std::is_same_v<Offset, offset_on_device_t>)
  {
    return launch(policy.stream, input, op, device, n);
  }
  else
  {
    return launch(policy.stream, input, op, device, static_cast<offset_t>(offset), n);
  }
}

/// Enqueues rk::reduce_partial into the record `out` in device memory, with scratch of its own;
/// where `append_to` is not null, then *append_to = rk::combine(*append_to, *out) in place, in the
/// same launch (rk::accumulator).
template <class T, gpu_backend Backend, class Provider, class InputIt, class BinaryOp>
void enqueue_partial(const gpu_policy<Backend, Provider>& policy, InputIt first, offset_t n, offset_t offset,
                     partial<T>* out, const BinaryOp& user_op, partial<T>* append_to = nullptr)
{
  const auto launch = make_partial_launch<T>(policy, first, n, offset, user_op);
  check_device_accessible(out, "the partial's record", launch.device());
  scratch_lease scratch = lease_scratch(launch.device().ordinal, policy.stream, launch.counter_words(), sizeof(T),
                                        launch.scratch_bytes() > 0 ? launch.scratch_bytes() : sizeof(T));
  launch.enqueue(out, scratch.partials, scratch.counters, append_to);
  scratch.close();
}

/// Enqueues *out = rk::combine(*a, *b, op) on `stream` (records in device memory; out may be a or b).
template <class T, class BinaryOp>
void enqueue_combine(cudaStream_t stream, const partial<T>* a, const partial<T>* b, partial<T>* out,
                     const BinaryOp& user_op)
{
  const auto op              = device_operator<BinaryOp>::get(user_op);
  const device_facts& device = current_device_facts();
  check_device_accessible(a, "rk::combine_into's first record", device);
  check_device_accessible(b, "rk::combine_into's second record", device);
  check_device_accessible(out, "rk::combine_into's output record", device);
  launch_kernel(combine_partials_kernel<T, std::remove_const_t<decltype(op)>>, 1, 1, stream,
                "rk::combine_into: launching the combine", a, b, out, op);
}
} // namespace rk::detail
