// The soak's split reductions: rk::reduce_partial over 1 to 8 pieces of the call's items (empty
// ones and ones that cut lanes and tiles among them), combined in a random grouping and finished,
// and rk::accumulator over the same cuts (on GPU policies some chunks from pageable host memory,
// which it stages); each result must have rk::host's bits over the whole.

#include "soak_run.cuh"

#include <algorithm>
#include <type_traits>

namespace soak
{
namespace
{
std::vector<std::int64_t> cuts_of(const call& c)
{
  rk_test::splitmix r{c.data_seed ^ 0x9c175ull};
  std::vector<std::int64_t> cuts{0, c.n};
  const int pieces = 1 + static_cast<int>(r.next() % 8);
  for (int k = 1; k < pieces; ++k)
  {
    cuts.push_back(c.n > 0 ? static_cast<std::int64_t>(r.next() % static_cast<std::uint64_t>(c.n + 1)) : 0);
  }
  std::sort(cuts.begin(), cuts.end());
  return cuts;
}

template <kind K, algorithm A>
void check_pieces(const call& c, cudaStream_t stream, outcome& o)
{
  using C = typename kind_of<K>::type;
  using T = typename C::T;
  const host_items<C> host(c);
  const std::vector<std::int64_t> cuts = cuts_of(c);
  const T want = rk::reduce(rk::host, host.begin(), host.begin() + c.n, C::init(), typename C::op{});
  T got        = C::init();
  with_policy<K, A>(c.p, stream, [&](auto p) {
    const auto run = [&](auto first) {
      if constexpr (A == algorithm::accumulator)
      {
        rk::accumulator acc(p, C::init(), typename C::op{});
        rk_test::splitmix memory{c.data_seed ^ 0x4a7cull};
        for (std::size_t k = 0; k + 1 < cuts.size(); ++k)
        {
          // About one chunk in three from pageable host memory: GPU policies stage it.
          if (std::is_trivially_copyable_v<typename C::item> && memory.next() % 3 == 0)
          {
            acc.add(host.begin() + cuts[k], host.begin() + cuts[k + 1]);
          }
          else
          {
            acc.add(first + cuts[k], first + cuts[k + 1]);
          }
        }
        got = acc.result();
      }
      else
      {
        std::vector<rk::partial<T>> pieces;
        for (std::size_t k = 0; k + 1 < cuts.size(); ++k)
        {
          pieces.push_back(rk::reduce_partial<T>(p, first + cuts[k], first + cuts[k + 1], cuts[k], typename C::op{}));
        }
        rk_test::splitmix r{c.data_seed ^ 0x6209ull};
        while (pieces.size() > 1)
        {
          const std::size_t k = static_cast<std::size_t>(r.next() % (pieces.size() - 1));
          pieces[k]           = rk::combine(pieces[k], pieces[k + 1], typename C::op{});
          pieces.erase(pieces.begin() + static_cast<std::ptrdiff_t>(k) + 1);
        }
        got = rk::finish(pieces.front(), C::init(), typename C::op{});
      }
    };
    if constexpr (is_gpu_policy_v<decltype(p)>)
    {
      const device_items<C> items(c, host, stream);
      run(items.begin());
    }
    else
    {
      run(host.begin());
    }
  });
  ++o.checks;
  if (std::memcmp(&got, &want, sizeof(T)) != 0)
  {
    std::string where;
    for (auto cut : cuts)
    {
      where += " " + std::to_string(cut);
    }
    o.fail("cut at" + where + ": " + show(got) + ", rk::host's " + show(want));
  }
}
} // namespace

outcome run_pieces(const call& c, cudaStream_t stream)
{
  outcome o;
  with_kind(c.k, [&](auto k) {
    constexpr kind K = decltype(k)::value;
    if (c.a == algorithm::accumulator)
    {
      if constexpr (kind_allowed(K, algorithm::accumulator))
      {
        check_pieces<K, algorithm::accumulator>(c, stream, o);
      }
    }
    else if constexpr (kind_allowed(K, algorithm::reduce_partial))
    {
      check_pieces<K, algorithm::reduce_partial>(c, stream, o);
    }
  });
  return o;
}
} // namespace soak
