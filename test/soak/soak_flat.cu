// The soak's flat reductions: rk::reduce, rk::reduce_into, rk::transform_reduce and the arg
// reductions, each against rk::seq (exact kinds) or rk::host (float sums: the GPU's bits) on the
// host.

#include "soak_run.cuh"

#include <optional>
#include <type_traits>
#include <utility>

namespace soak
{
namespace
{
template <class C>
typename C::T reference_reduce(const call& c, const typename C::item* first)
{
  return with_reference<C>(c, [&](auto p) -> typename C::T {
    return rk::reduce(p, first, first + c.n, C::init(), typename C::op{});
  });
}

template <kind K>
void check_reduce(const call& c, cudaStream_t stream, outcome& o)
{
  using C = typename kind_of<K>::type;
  using T = typename C::T;
  const host_items<C> host(c);
  const T want = reference_reduce<C>(c, host.begin());
  std::optional<T> got;
  with_policy<K, algorithm::reduce>(c.p, stream, [&](auto p) {
    with_input<K, algorithm::reduce>(c, p, host, stream, [&](auto first) {
      got.emplace(rk::reduce(p, first, first + c.n, C::init(), typename C::op{}));
    });
  });
  ++o.checks;
  if (!agrees<C>(*got, want, c.p, static_cast<double>(c.n), magnitude<C>(host.begin(), c.n)))
  {
    o.fail("result " + show(*got) + ", the host's " + show(want));
  }
}

template <kind K>
void check_reduce_into(const call& c, cudaStream_t stream, outcome& o)
{
  using C = typename kind_of<K>::type;
  using T = typename C::T;
  const host_items<C> host(c);
  const T want = reference_reduce<C>(c, host.begin());
  const device_array<T> out(1, stream);
  with_policy<K, algorithm::reduce_into>(c.p, stream, [&](auto p) {
    if constexpr (is_gpu_policy_v<decltype(p)>)
    {
      const device_items<C> items(c, host, stream);
      if constexpr (!std::is_same_v<std::decay_t<decltype(p)>, rk::atomic_policy>)
      {
        if (c.count_on_device())
        {
          // The count in device memory, written on the stream just before (rk::device_count).
          const device_array<std::int64_t> count(1, stream);
          check_cuda(cudaMemcpyAsync(count.get(), &c.n, sizeof(c.n), cudaMemcpyHostToDevice, stream),
                     "writing the count");
          rk::reduce_into(p, items.begin(), rk::device_count(count.get()), out.ptr(), C::init(), typename C::op{});
          return;
        }
      }
      rk::reduce_into(p, items.begin(), items.begin() + c.n, out.ptr(), C::init(), typename C::op{});
    }
  });
  const T got = at<T>(out.download(1), 0);
  ++o.checks;
  if (!agrees<C>(got, want, c.p, static_cast<double>(c.n), magnitude<C>(host.begin(), c.n)))
  {
    o.fail("result " + show(got) + ", the host's " + show(want));
  }
}

template <kind K>
void check_transform_reduce(const call& c, cudaStream_t stream, outcome& o)
{
  using C = typename kind_of<K>::type;
  using T = typename C::T;
  const host_items<C> host(c);
  const auto* first = host.begin();
  const T want      = with_reference<C>(c, [&](auto p) -> T {
    return rk::transform_reduce(p, first, first + c.n, C::init(), typename C::op{}, transform_of<C>{});
  });
  std::optional<T> got;
  with_policy<K, algorithm::transform_reduce>(c.p, stream, [&](auto p) {
    with_input<K, algorithm::transform_reduce>(c, p, host, stream, [&](auto in) {
      got.emplace(rk::transform_reduce(p, in, in + c.n, C::init(), typename C::op{}, transform_of<C>{}));
    });
  });
  ++o.checks;
  if (!agrees<C>(*got, want, c.p, static_cast<double>(c.n), 4.0 * magnitude<C>(first, c.n) * magnitude<C>(first, c.n)))
  {
    o.fail("result " + show(*got) + ", the host's " + show(want));
  }
}

template <kind K, algorithm A>
void check_arg(const call& c, cudaStream_t stream, outcome& o)
{
  using C = typename kind_of<K>::type;
  const host_items<C> host(c);
  const auto* first = host.begin();
  const auto run    = [&](auto p, auto b) {
    if constexpr (A == algorithm::arg_min)
    {
      return rk::arg_min(p, b, b + c.n);
    }
    else if constexpr (A == algorithm::arg_max)
    {
      return rk::arg_max(p, b, b + c.n);
    }
    else if constexpr (A == algorithm::arg_max_last)
    {
      return rk::arg_max_last(p, b, b + c.n);
    }
    else
    {
      return rk::arg_min_max(p, b, b + c.n);
    }
  };
  const auto want = run(rk::seq, first);
  std::optional<decltype(want)> got;
  with_policy<K, A>(c.p, stream,
                    [&](auto p) { with_input<K, A>(c, p, host, stream, [&](auto in) { got.emplace(run(p, in)); }); });
  ++o.checks;
  bool same = false;
  if constexpr (A == algorithm::arg_min_max)
  {
    same = same_arg(got->min, want.min) && same_arg(got->max, want.max);
  }
  else
  {
    same = same_arg(*got, want);
  }
  if (!same)
  {
    o.fail("the index (or value) differs from rk::seq's");
  }
}

template <kind K>
void run_kind(const call& c, cudaStream_t stream, outcome& o)
{
  switch (c.a)
  {
    case algorithm::reduce:
      return check_reduce<K>(c, stream, o);
    case algorithm::reduce_into:
      return check_reduce_into<K>(c, stream, o);
    case algorithm::transform_reduce:
      if constexpr (kind_allowed(K, algorithm::transform_reduce))
      {
        return check_transform_reduce<K>(c, stream, o);
      }
      break;
    case algorithm::arg_min:
      if constexpr (kind_allowed(K, algorithm::arg_min))
      {
        return check_arg<K, algorithm::arg_min>(c, stream, o);
      }
      break;
    case algorithm::arg_max:
      if constexpr (kind_allowed(K, algorithm::arg_max))
      {
        return check_arg<K, algorithm::arg_max>(c, stream, o);
      }
      break;
    case algorithm::arg_max_last:
      if constexpr (kind_allowed(K, algorithm::arg_max_last))
      {
        return check_arg<K, algorithm::arg_max_last>(c, stream, o);
      }
      break;
    case algorithm::arg_min_max:
      if constexpr (kind_allowed(K, algorithm::arg_min_max))
      {
        return check_arg<K, algorithm::arg_min_max>(c, stream, o);
      }
      break;
    default:
      break;
  }
  throw std::logic_error("rk_soak: run_flat got a call it does not run");
}

} // namespace

outcome run_flat(const call& c, cudaStream_t stream)
{
  outcome o;
  with_kind(c.k, [&](auto k) { run_kind<decltype(k)::value>(c, stream, o); });
  return o;
}
} // namespace soak
