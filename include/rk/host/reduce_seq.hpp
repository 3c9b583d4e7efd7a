#pragma once
// rk::seq backend: a left fold on the calling thread.

#include <iterator>
#include <utility>

namespace rk::detail
{
template <class InputIt, class T, class BinaryOp>
T reduce_sequential(InputIt first, InputIt last, T init, BinaryOp& op)
{
  for (; first != last; ++first)
  {
    init = op(std::move(init), T(*first));
  }
  return init;
}
} // namespace rk::detail
