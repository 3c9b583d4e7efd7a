// The soak's rk::reduce_by_key: keys that change at the drawn segments' boundaries (so runs have
// the segment layouts' lengths), in rk's form and Thrust's, checked against rk::seq (exact kinds)
// or rk::host (float sums): the same keys, the same count, and every run's value.

#include "soak_run.cuh"

namespace soak
{
namespace
{
template <kind K>
void check_by_key(const call& c, cudaStream_t stream, outcome& o)
{
  using C            = typename kind_of<K>::type;
  using T            = typename C::T;
  using item         = typename C::item;
  const auto offsets = make_offsets(c);
  const host_items<C> host(c);
  std::vector<std::int32_t> keys(static_cast<std::size_t>(c.n));
  for (std::size_t s = 0; s + 1 < offsets.size(); ++s)
  {
    for (std::int64_t i = offsets[s]; i < offsets[s + 1]; ++i)
    {
      keys[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(s & 0x7fffffff);
    }
  }
  // The accumulator: T in rk's form, the value type in Thrust's.
  using V              = std::conditional_t<without_init_allowed(K), item, T>;
  const auto reference = [&](auto p, std::int32_t* kout, auto* vout) {
    if constexpr (without_init_allowed(K))
    {
      if (!c.with_init)
      {
        return rk::reduce_by_key(p, keys.data(), keys.data() + c.n, host.begin(), kout, vout, rk::equal_to{},
                                 typename C::op{})
                 .first
             - kout;
      }
    }
    return rk::reduce_by_key(p, keys.data(), keys.data() + c.n, host.begin(), kout, vout, C::init(), typename C::op{})
             .first
         - kout;
  };
  std::vector<std::int32_t> want_keys(keys.size() + 1);
  std::vector<unsigned char> want_values((keys.size() + 1) * sizeof(V));
  auto* want_v = reinterpret_cast<V*>(want_values.data());
  const std::int64_t wanted =
    with_reference<C>(c, [&](auto p) -> std::int64_t { return reference(p, want_keys.data(), want_v); });
  std::int64_t count = -1;
  std::vector<std::int32_t> got_keys;
  std::vector<unsigned char> got_values;
  with_policy<K, algorithm::reduce_by_key>(c.p, stream, [&](auto p) {
    if constexpr (is_gpu_policy_v<decltype(p)>)
    {
      const device_items<C> values(c, host, stream);
      const device_array<std::int32_t> dkeys(keys.size(), stream), kout(keys.size(), stream);
      const device_array<V> vout(keys.size(), stream);
      check_cuda(cudaMemcpyAsync(dkeys.get(), keys.data(), keys.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice,
                                 stream),
                 "uploading the keys");
      const thrust::device_ptr<const std::int32_t> kb(dkeys.get());
      bool done = false;
      if constexpr (without_init_allowed(K))
      {
        if (!c.with_init)
        {
          count = rk::reduce_by_key(p, kb, kb + c.n, values.begin(), kout.ptr(), vout.ptr(), rk::equal_to{},
                                    typename C::op{})
                    .first
                - kout.ptr();
          done = true;
        }
      }
      if (!done)
      {
        count =
          rk::reduce_by_key(p, kb, kb + c.n, values.begin(), kout.ptr(), vout.ptr(), C::init(), typename C::op{}).first
          - kout.ptr();
      }
      const auto k = kout.download(static_cast<std::size_t>(count));
      got_keys.resize(static_cast<std::size_t>(count));
      std::memcpy(got_keys.data(), k.data(), k.size());
      got_values = vout.download(static_cast<std::size_t>(count));
    }
    else
    {
      got_keys.resize(keys.size() + 1);
      got_values.resize((keys.size() + 1) * sizeof(V));
      count = reference(p, got_keys.data(), reinterpret_cast<V*>(got_values.data()));
    }
  });
  ++o.checks;
  if (count != wanted)
  {
    o.fail(std::to_string(count) + " runs, the host's " + std::to_string(wanted));
    return;
  }
  for (std::int64_t r = 0; r < count; ++r)
  {
    const V g = at<V>(got_values, static_cast<std::size_t>(r)), w = want_v[r];
    ++o.checks;
    if (got_keys[static_cast<std::size_t>(r)] != want_keys[static_cast<std::size_t>(r)]
        || !agrees<C>(g, w, c.p, 1.0, 1.0))
    {
      o.fail("run " + std::to_string(r) + ": key " + std::to_string(got_keys[static_cast<std::size_t>(r)]) + " value "
             + show(g) + ", the host's key " + std::to_string(want_keys[static_cast<std::size_t>(r)]) + " value "
             + show(w));
      return;
    }
  }
}
} // namespace

outcome run_by_key(const call& c, cudaStream_t stream)
{
  outcome o;
  with_kind(c.k, [&](auto k) {
    if constexpr (kind_allowed(decltype(k)::value, algorithm::reduce_by_key))
    {
      check_by_key<decltype(k)::value>(c, stream, o);
    }
    else
    {
      throw std::logic_error("rk_soak: run_by_key got a kind it does not run");
    }
  });
  return o;
}
} // namespace soak
