#pragma once
// Tiles of a raw array that starts 1 to 3 words past the 16-byte grid, read as the vector path
// reads them (rk/cuda/primitives/load.cuh's vector_chunks) instead of element by element: the same
// chunk interface, the same tree, and each lane folds its own items in order.

#include <rk/cuda/primitives/lane_fold.cuh>
#include <rk/cuda/primitives/load.cuh>
#include <rk/cuda/primitives/warp_reduce.cuh>
#include <rk/detail/tree.hpp>

#include <cstdint>
#include <type_traits>

namespace rk::detail
{
/// Whether a range of `Item`s off the 16-byte grid is read as shifted words (shifted_word_chunks):
/// 4- and 8-byte items at least 4-byte aligned, so the range starts 1, 2 or 3 words past the grid.
template <class Item>
inline constexpr bool shifts_words_v = std::is_trivially_copyable_v<Item>
                                    && std::is_trivially_default_constructible_v<Item>
                                    && (sizeof(Item) == 4 || sizeof(Item) == 8) && alignof(Item) >= 4;

/// A tile's chunks off the 16-byte grid, read as the vector path reads them: each lane loads the two
/// aligned 16-byte vectors under its 32 bytes, which start `shift` words (1-3) before its first
/// item, and takes its last `shift` words from the next lane's first ones (shuffles; lane 31 loads
/// them, the start of the next tile). Every lane then folds its own items in order, so the tree is
/// the element loads': eight 4-byte loads a lane whose addresses stride 32 bytes across the warp
/// had cost floats a quarter of their speed (H200, rk::reduce_into over 2^26 floats: 84.5 against
/// 66.9 us on the grid). Lane 0 of a range's first tile loads its words one by one, so that nothing
/// before the range is read.
template <class Item, class T>
struct shifted_word_chunks
{
  static constexpr int lane_items  = tile_lane_bytes / static_cast<int>(sizeof(Item));
  static constexpr int chunk_items = warp_threads * lane_items;
  static constexpr int lane_words  = tile_lane_bytes / 4;

  struct fragment
  {
    uint4 v[2];             ///< the aligned words under the lane's bytes
    std::uint32_t after[3]; ///< lane 31: the words after them (the next tile's first)
  };

  const unsigned char* base; // the first tile's bytes, rounded down to the 16-byte grid
  int shift;                 // words from there to the range's first item: 1, 2 or 3 (0 on the grid)

  __host__ __device__ static shifted_word_chunks at(const Item* first)
  {
    const auto address = reinterpret_cast<std::uintptr_t>(first);
    return {reinterpret_cast<const unsigned char*>(address / vector_bytes * vector_bytes),
            static_cast<int>(address % vector_bytes / 4)};
  }

  template <class Op>
  __device__ __forceinline__ void load(offset_t chunk, int lane, fragment& f, Op&) const
  {
    const unsigned char* lane_bytes = base + chunk * (warp_threads * tile_lane_bytes) + lane * tile_lane_bytes;
    const auto* words               = reinterpret_cast<const std::uint32_t*>(lane_bytes);
    if (chunk == 0 && lane == 0)
    {
      std::uint32_t w[4];
#pragma unroll
      for (int k = 0; k < 4; ++k)
      {
        w[k] = k >= shift ? words[k] : 0u;
      }
      f.v[0] = make_uint4(w[0], w[1], w[2], w[3]);
    }
    else
    {
      f.v[0] = reinterpret_cast<const uint4*>(lane_bytes)[0];
    }
    f.v[1] = reinterpret_cast<const uint4*>(lane_bytes)[1];
    if (lane == warp_threads - 1)
    {
#pragma unroll
      for (int k = 0; k < 3; ++k)
      {
        f.after[k] = k < shift ? words[lane_words + k] : 0u;
      }
    }
  }

  template <class Op>
  __device__ __forceinline__ T reduce(const fragment& f, Op& op) const
  {
    // The lane's eight words, then the three after them: the next lane's first (lane 31's own load).
    std::uint32_t words[lane_words + 3] = {f.v[0].x, f.v[0].y, f.v[0].z, f.v[0].w,
                                           f.v[1].x, f.v[1].y, f.v[1].z, f.v[1].w};
    const bool last                     = (threadIdx.x % warp_threads) == warp_threads - 1;
#pragma unroll
    for (int k = 0; k < 3; ++k)
    {
      const std::uint32_t next = __shfl_down_sync(0xffffffffu, words[k], 1);
      words[lane_words + k]    = last ? f.after[k] : next;
    }
    std::uint32_t mine[lane_words];
#pragma unroll
    for (int k = 0; k < lane_words; ++k)
    {
      mine[k] = shift == 1 ? words[k + 1] : shift == 2 ? words[k + 2] : shift == 3 ? words[k + 3] : words[k];
    }
    Item items[lane_items];
    __builtin_memcpy(items, mine, sizeof(items));
    return fold_lane<T>(items, op);
  }
};
} // namespace rk::detail
