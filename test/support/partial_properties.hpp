#pragma once
// Partials that combine exactly (rk::reduce_partial, rk::combine, rk::finish, rk::accumulator):
// property bodies written once, run by the host suite on rk::seq and rk::host and by the GPU
// suite on its policies. Every check is bit equality with rk::reduce over the whole, never a
// tolerance: floats included.

#include "reference.hpp"
#include "spread.hpp"
#include "test_types.hpp"

#include <rk/reduce.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace rk_test
{
/// 256 bytes: a mat2 product on its first four words, wrapping sums on the rest. Associative, not
/// commutative, one item per lane of the tree.
struct block256
{
  std::uint32_t w[64];
};
struct block256_op
{
  RK_HOST_DEVICE block256 operator()(const block256& x, const block256& y) const
  {
    block256 r = x;
    r.w[0]     = x.w[0] * y.w[0] + x.w[1] * y.w[2];
    r.w[1]     = x.w[0] * y.w[1] + x.w[1] * y.w[3];
    r.w[2]     = x.w[2] * y.w[0] + x.w[3] * y.w[2];
    r.w[3]     = x.w[2] * y.w[1] + x.w[3] * y.w[3];
    for (int k = 4; k < 64; ++k)
    {
      r.w[k] = x.w[k] + y.w[k];
    }
    return r;
  }
};

/// 4 * Words bytes (12, 32, 64 and 128 here): an affine map x -> w0 * x + w1 mod 2^32 on its first two words,
/// composed in order, and wrapping sums on the rest. Associative, not commutative; lanes of 2
/// items (12 bytes) or 1.
template <int Words>
struct word_block
{
  static_assert(Words >= 3);
  std::uint32_t w[Words];
};
struct word_block_op
{
  template <int Words>
  RK_HOST_DEVICE word_block<Words> operator()(const word_block<Words>& x, const word_block<Words>& y) const
  {
    word_block<Words> r = x;
    r.w[0]              = x.w[0] * y.w[0];
    r.w[1]              = y.w[0] * x.w[1] + y.w[1];
    for (int k = 2; k < Words; ++k)
    {
      r.w[k] = x.w[k] + y.w[k];
    }
    return r;
  }
};

/// rk::reduce on the harness's policy computes rk::reduce's tree (rk::seq folds left; its partials
/// are the tree's all the same, so they finish to rk::host's bits).
template <class H>
inline constexpr bool keeps_tree = !std::is_same_v<typename H::policy_type, rk::seq_policy>;

/// The partial of [first, last) at `offset` on the harness's policy, or as the harness makes it
/// where it makes partials itself (the GPU suite's partials planned on the GPU).
template <class T, class H, class It, class Op>
rk::partial<T> partial_on(const H& h, It first, It last, std::int64_t offset, Op op)
{
  if constexpr (H::plans_partials_itself)
  {
    return h.template reduce_partial<T>(first, last, offset, op);
  }
  else
  {
    return rk::reduce_partial<T>(h.policy, first, last, offset, op);
  }
}

/// Cuts of [0, n) that fall on and beside the tree's lane, tile and node boundaries: for each cut c
/// the pieces [0, c) and [c, n), and the three pieces [0, c), [c, c + d), [c + d, n) for short d.
inline std::vector<std::vector<std::int64_t>> boundary_cuts(std::int64_t n, std::int64_t lane, std::int64_t tile)
{
  std::vector<std::int64_t> at = {0, 1, lane - 1, lane, lane + 1, tile - 1, tile, tile + 1};
  for (std::int64_t tiles : {2, 4, 8, 64})
  {
    for (std::int64_t d : {-1, 0, 1})
    {
      at.push_back(tiles * tile + d);
    }
  }
  std::vector<std::vector<std::int64_t>> sets;
  for (std::int64_t c : at)
  {
    if (c < 0 || c > n)
    {
      continue;
    }
    sets.push_back({0, c, n});
    for (std::int64_t d : {std::int64_t{0}, std::int64_t{1}, lane - 1, lane, lane + 1})
    {
      if (c + d <= n)
      {
        sets.push_back({0, c, c + d, n});
      }
    }
  }
  return sets;
}

/// Random cuts of [0, n) into 1 to 64 pieces (empty ones among them).
inline std::vector<std::vector<std::int64_t>> random_cuts(std::int64_t n, int sets, std::uint64_t seed)
{
  std::mt19937_64 rng(seed);
  std::vector<std::vector<std::int64_t>> out;
  for (int s = 0; s < sets; ++s)
  {
    const int pieces = 1 + static_cast<int>(rng() % 64);
    std::vector<std::int64_t> cuts{0, n};
    for (int k = 1; k < pieces; ++k)
    {
      cuts.push_back(n > 0 ? static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(n + 1)) : 0);
    }
    std::sort(cuts.begin(), cuts.end());
    out.push_back(cuts);
  }
  return out;
}

/// Combines the pieces in a random grouping (adjacent pairs, in any order of pairing).
template <class T, class Op>
rk::partial<T> combine_in_random_groups(std::vector<rk::partial<T>> pieces, Op op, std::uint64_t seed)
{
  std::mt19937_64 rng(seed);
  while (pieces.size() > 1)
  {
    const std::size_t k = static_cast<std::size_t>(rng() % (pieces.size() - 1));
    pieces[k]           = rk::combine(pieces[k], pieces[k + 1], op);
    pieces.erase(pieces.begin() + static_cast<std::ptrdiff_t>(k) + 1);
  }
  return pieces.front();
}

/// For every set of cuts: each piece reduced with rk::reduce_partial<T> on the harness's policy
/// (over `input`) or, for every other piece, on rk::host over the host copy `items`; the pieces
/// combined in a random grouping and finished. The result must have rk::reduce's bits over the
/// whole on the harness's policy, which must equal rk::host's.
template <class T, class H, class E, class Input, class Op>
void check_cut_sets(const H& h, const std::vector<E>& items, const Input& input, T init, Op op,
                    const std::vector<std::vector<std::int64_t>>& sets)
{
  const auto n  = static_cast<std::int64_t>(items.size());
  const T whole = rk::reduce(rk::host, items.begin(), items.end(), init, op);
  if constexpr (keeps_tree<H>)
  {
    CHECK(same_bytes(rk::reduce(h.policy, input.begin(), input.end(), init, op), whole));
  }
  std::uint64_t seed = 17;
  for (const auto& cuts : sets)
  {
    std::vector<rk::partial<T>> pieces;
    for (std::size_t k = 0; k + 1 < cuts.size(); ++k)
    {
      if (k % 2 == 0)
      {
        pieces.push_back(partial_on<T>(h, input.begin() + cuts[k], input.begin() + cuts[k + 1], cuts[k], op));
      }
      else
      {
        pieces.push_back(
          rk::reduce_partial<T>(rk::host, items.begin() + cuts[k], items.begin() + cuts[k + 1], cuts[k], op));
      }
    }
    const T got     = rk::finish(combine_in_random_groups(pieces, op, ++seed), init, op);
    const bool same = same_bytes(got, whole);
    if (!same)
    {
      std::string where;
      for (auto c : cuts)
      {
        where += std::to_string(c) + " ";
      }
      CAPTURE(n);
      CAPTURE(where);
      CHECK(same);
      return;
    }
  }
  CHECK(true);
}

/// Boundary and random cuts for one item type: items from `draw`, T the accumulator.
template <class T, class H, class E, class Draw, class Op>
void check_partials_of(const H& h, std::int64_t n, Draw draw, T init, Op op, std::uint64_t salt)
{
  CAPTURE(n);
  const std::vector<E> items = drawn_items<E>(n, draw, static_cast<std::int64_t>(salt));
  const auto input           = h.upload(items);
  constexpr std::int64_t L   = rk::detail::tile_lane_items<E>;
  auto sets                  = boundary_cuts(n, L, L * rk::detail::tile_lanes);
  const auto random          = random_cuts(n, n > 4096 ? 3 : 12, salt);
  sets.insert(sets.end(), random.begin(), random.end());
  check_cut_sets<T>(h, items, input, init, op, sets);
}

struct small_byte
{
  std::uint8_t operator()(std::int64_t i) const
  {
    return static_cast<std::uint8_t>(splitmix64(static_cast<std::uint64_t>(i)));
  }
};
struct unit_segment
{
  std::int64_t salt;
  segment operator()(std::int64_t i) const
  {
    return segment{i - salt, i - salt + 1};
  }
};
struct small_u16
{
  std::uint16_t operator()(std::int64_t i) const
  {
    return static_cast<std::uint16_t>(splitmix64(static_cast<std::uint64_t>(i)));
  }
};
template <int Words>
struct random_word_block
{
  word_block<Words> operator()(std::int64_t i) const
  {
    word_block<Words> b{};
    std::uint64_t h = static_cast<std::uint64_t>(i);
    for (auto& w : b.w)
    {
      h = splitmix64(h);
      w = static_cast<std::uint32_t>(h);
    }
    b.w[0] |= 1u; // an odd slope: the composed map never forgets the items before it
    return b;
  }
};
struct random_block256
{
  block256 operator()(std::int64_t i) const
  {
    block256 b{};
    std::uint64_t h = static_cast<std::uint64_t>(i);
    for (auto& w : b.w)
    {
      h = splitmix64(h);
      w = static_cast<std::uint32_t>(h);
    }
    // The mat2 on the first four words with an odd determinant, as random_mat2's.
    b.w[0] |= 1u;
    b.w[1] &= ~1u;
    b.w[2] &= ~1u;
    b.w[3] |= 1u;
    return b;
  }
};

/// Every item size the tree knows (1 to 256 bytes: lanes of 32 items down to 1), float and double
/// sums (and 2-byte items summed in float, which rounds), and the three non-commutative operators,
/// at a length that cuts a lane, a tile and a node.
template <class H>
void partials_combine_to_reduce_bits(const H& h)
{
  for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{7}, std::int64_t{3 * 256 + 5},
                         std::int64_t{70 * 256 + 3}, std::int64_t{(1 << 17) + 11}})
  {
    check_partials_of<float, H, float>(h, n, spread_float{}, 0.25f, rk::plus{}, 1);
    check_partials_of<double, H, double>(h, n, spread_double{}, -0.5, rk::plus{}, 2);
    check_partials_of<std::uint64_t, H, std::uint8_t>(h, n, small_byte{}, std::uint64_t{3}, rk::plus{}, 3);
    check_partials_of<affine, H, affine>(h, n, random_affine{}, affine{3u, 5u}, affine_compose{}, 4);
    check_partials_of<mat2, H, mat2>(h, n, random_mat2{}, mat2{1u, 2u, 3u, 4u}, mat2_multiply{}, 5);
    // [i, i+1) from -k: the whole must come back as exactly [-k - 1, n - k), init once on the left.
    check_partials_of<segment, H, segment>(h, n, unit_segment{12}, segment{-13, -12}, segment_merge{}, 0);
    check_partials_of<float, H, std::uint16_t>(h, n, small_u16{}, 0.5f, rk::plus{}, 7);
    if (n < 70 * 256)
    {
      check_partials_of<word_block<3>, H, word_block<3>>(h, n, random_word_block<3>{}, random_word_block<3>{}(-1),
                                                         word_block_op{}, 8);
      check_partials_of<word_block<8>, H, word_block<8>>(h, n, random_word_block<8>{}, random_word_block<8>{}(-1),
                                                         word_block_op{}, 9);
      check_partials_of<word_block<16>, H, word_block<16>>(h, n, random_word_block<16>{}, random_word_block<16>{}(-1),
                                                           word_block_op{}, 11);
      check_partials_of<word_block<32>, H, word_block<32>>(h, n, random_word_block<32>{}, random_word_block<32>{}(-1),
                                                           word_block_op{}, 10);
      check_partials_of<block256, H, block256>(h, n, random_block256{}, random_block256{}(-1), block256_op{}, 6);
    }
  }
}

/// rk::accumulator over chunks of every kind of length (empty ones too) has rk::reduce's bits over
/// their concatenation.
template <class H>
void accumulator_matches_reduce(const H& h)
{
  const std::int64_t n = 3 * 8192 + 77;
  std::vector<float> items;
  for (std::int64_t i = 0; i < n; ++i)
  {
    items.push_back(spread_value<float>{}(i));
  }
  const auto input = h.upload(items);
  const float want = rk::reduce(rk::host, items.begin(), items.end(), 1.5f, rk::plus{});
  if constexpr (keeps_tree<H>)
  {
    CHECK(same_bytes(rk::reduce(h.policy, input.begin(), input.end(), 1.5f, rk::plus{}), want));
  }
  for (const auto& cuts : random_cuts(n, 6, 99))
  {
    rk::accumulator acc(h.policy, 1.5f, rk::plus{});
    for (std::size_t k = 0; k + 1 < cuts.size(); ++k)
    {
      acc.add(input.begin() + cuts[k], input.begin() + cuts[k + 1]);
    }
    CHECK(acc.size() == n);
    CHECK(same_bytes(acc.result(), want));
  }
  rk::accumulator nothing(h.policy, 2.5f, must_not_be_called{});
  CHECK(nothing.result() == 2.5f);
  nothing.add(input.begin(), input.begin());
  CHECK(nothing.result() == 2.5f);
}

/// A piece of more than 2^31 items, through a computed iterator, between two short ones.
template <class H>
void partial_above_2_31(const H& h)
{
  const std::int64_t n      = h.large_count();
  const auto first          = h.generated(byte_of_index{}, 0);
  const std::uint64_t want  = rk::reduce(h.policy, first, first + n, std::uint64_t{5}, rk::plus{});
  const std::int64_t cuts[] = {0, 33, n - 40, n};
  std::vector<rk::partial<std::uint64_t>> pieces;
  for (int k = 0; k < 3; ++k)
  {
    pieces.push_back(partial_on<std::uint64_t>(h, first + cuts[k], first + cuts[k + 1], cuts[k], rk::plus{}));
  }
  CHECK(pieces[1].length > (std::int64_t{1} << 31));
  const auto whole = rk::combine(rk::combine(pieces[0], pieces[1], rk::plus{}), pieces[2], rk::plus{});
  CHECK(rk::finish(whole, std::uint64_t{5}, rk::plus{}) == want);
}
} // namespace rk_test
