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

/// The nodes' work: each node's tree split into parts as rk::reduce's plan would split it if it had
/// the node's share of the grid (its share of the piece's items), at least one part each.
template <class Agent, class T>
partial_work plan_partial_work(const partial<T>& shape, offset_t max_blocks)
{
  partial_work work{};
  work.node_count = shape.node_count;
  const piece_lanes lanes{shape.offset, shape.length, shape.lane_items};
  const offset_t full_items = (lanes.end_full_lane() - lanes.first_full_lane()) * lanes.lane_items;
  offset_t begin            = lanes.first_full_lane() * lanes.lane_items - shape.offset;
  offset_t values           = 0;
  for (int k = 0; k < shape.node_count; ++k)
  {
    partial_node_work& w = work.node[k];
    work.level[k]        = shape.node_level[k];
    w.begin              = begin;
    w.items              = (offset_t{1} << shape.node_level[k]) * lanes.lane_items;
    // The node's share of the grid, in floating point: items * max_blocks can pass 2^63.
    const double share   = static_cast<double>(w.items) / static_cast<double>(full_items);
    const offset_t want  = static_cast<offset_t>(share * static_cast<double>(max_blocks));
    const tree_plan plan = Agent::plan(w.items, want > 1 ? want : 1);
    w.parts              = plan.split.parts;
    w.first_block        = work.blocks;
    w.values             = values;
    work.blocks += w.parts;
    values += Agent::partial_values(plan);
    begin += w.items;
  }
  work.values = values;
  return work;
}

/// The launch of one rk::reduce_partial: the items from `input` (what the kernel reads: see
/// to_device_input), standing at the shape's offset, into a record in device memory. The nodes'
/// values go to scratch_bytes() of the caller's scratch and their arrivals to counter_words() of
/// its counters, so a caller that needs scratch of its own (rk::nccl) takes both in one lease.
/// Made by make_partial_launch.
template <class T, class Provider, class Input, class Op>
class partial_launch
{
  // Whatever the policy's tree shape: a partial is made of the reproducible tree's nodes.
  using provider               = with_tree_shape<Provider, tree_shape::pairwise_tiles>;
  using vector_agent           = reduce_agent<provider, Input, T>;
  using element_agent          = typename element_agent_of<vector_agent::vectorized, provider, Input, T>::type;
  using item                   = typename vector_agent::item;
  static constexpr auto kernel = partial_kernel<vector_agent, element_agent, Input, T, Op>;

public:
  partial_launch(cudaStream_t stream, Input input, Op op, const device_facts& device, const partial<T>& shape)
      : stream_(stream)
      , input_(input)
      , op_(op)
      , device_(device)
      , shape_(shape)
      , work_(plan_partial_work<vector_agent>(
          shape, vector_agent::grid_cap(max_grid<kernel>(vector_agent::tuning, vector_agent::block_threads, device))))
  {}

  std::size_t scratch_bytes() const
  {
    return static_cast<std::size_t>(work_.values) * sizeof(T);
  }
  /// Counter words the launch synchronizes through (one per node), zero before and after it.
  static constexpr std::size_t counter_words()
  {
    return partial<T>::max_nodes;
  }
  const device_facts& device() const
  {
    return device_;
  }

  /// Enqueues the launch; `scratch` holds scratch_bytes(), aligned for T, and `counters`
  /// counter_words() words of a lease's counters.
  void enqueue(partial<T>* out, void* scratch, unsigned* counters) const
  {
    const piece_lanes lanes{shape_.offset, shape_.length, shape_.lane_items};
    const partial_ends ends{shape_.offset,     shape_.length,     lanes.tail_begin() - shape_.offset,
                            shape_.lane_items, shape_.head_count, shape_.has_tail};
    launch_kernel(kernel, static_cast<unsigned>(work_.blocks + 1), vector_agent::block_threads, stream_,
                  "rk::reduce_partial: launching its kernel", input_, ends, work_, static_cast<T*>(scratch), counters,
                  out, op_);
  }

private:
  cudaStream_t stream_;
  Input input_;
  Op op_;
  const device_facts& device_;
  partial<T> shape_;
  partial_work work_;
};

/// The launch of rk::reduce_partial of the n items from `first`, standing at `offset`, on the
/// policy's stream: the call's checks, the operator and input the kernels take, the record's shape.
template <class T, gpu_backend Backend, class Provider, class InputIt, class BinaryOp>
auto make_partial_launch(const gpu_policy<Backend, Provider>& policy, InputIt first, offset_t n, offset_t offset,
                         const BinaryOp& user_op)
{
  check_partial_backend<Backend>();
  const auto op              = gpu_operator<Backend, InputIt, T>(user_op);
  const device_facts& device = current_device_facts();
  // An empty piece reads nothing, anywhere: its iterator is not checked.
  const auto input = to_device_input(first, n > 0 ? &device : nullptr);
  return partial_launch<T, Provider, std::remove_const_t<decltype(input)>, std::remove_const_t<decltype(op)>>(
    policy.stream, input, op, device, partial_shape<T, InputIt>(offset, n));
}

/// Enqueues rk::reduce_partial into the record `out` in device memory, with scratch of its own.
template <class T, gpu_backend Backend, class Provider, class InputIt, class BinaryOp>
void enqueue_partial(const gpu_policy<Backend, Provider>& policy, InputIt first, offset_t n, offset_t offset,
                     partial<T>* out, const BinaryOp& user_op)
{
  const auto launch = make_partial_launch<T>(policy, first, n, offset, user_op);
  check_device_accessible(out, "the partial's record", launch.device());
  scratch_lease scratch = lease_scratch(launch.device().ordinal, policy.stream, launch.counter_words(), sizeof(T),
                                        launch.scratch_bytes() > 0 ? launch.scratch_bytes() : sizeof(T));
  launch.enqueue(out, scratch.partials, scratch.counters);
  scratch.close();
}

/// Enqueues *out = rk::combine(*a, *b, op) on `stream` (records in device memory; out may be a or b).
template <class T, class BinaryOp>
void enqueue_combine(cudaStream_t stream, const partial<T>* a, const partial<T>* b, partial<T>* out,
                     const BinaryOp& user_op)
{
  const auto op = device_operator<BinaryOp>::get(user_op);
  launch_kernel(combine_partials_kernel<T, std::remove_const_t<decltype(op)>>, 1, 1, stream,
                "rk::combine_into: launching the combine", a, b, out, op);
}
} // namespace rk::detail
