#pragma once
/// \file
/// rk::explanation: what rk::explain returns, a printable account of the backend a call would run.

#include <cstdint>
#include <ostream>
#include <sstream>
#include <string>

namespace rk
{
struct explanation
{
  std::string policy;  ///< the policy the caller passed: "seq", "host", "device", "two_pass", ...
  std::string backend; ///< what rk::reduce would run: "seq", "host", "two_pass", "atomic", "single_pass", "none"
  /// What the stream-ordered rk::reduce_into would run (GPU policies; it can differ for rk::device,
  /// see the README's policy table); equal to `backend` otherwise.
  std::string stream_ordered_backend;
  std::int64_t size = 0;
  std::string reason; ///< why: the rule that picked `backend`, with the facts it used
  /// Whether rk::reduce's result bits depend only on the input, its length, T, init and op (not on
  /// the GPU, grid, tuning, backend or thread count): the README's "Same bits everywhere".
  bool reproducible = false;

  std::string to_string() const
  {
    std::ostringstream out;
    out << *this;
    return out.str();
  }

  friend std::ostream& operator<<(std::ostream& os, const explanation& e)
  {
    return os << "rk::" << e.policy << " over " << e.size << " elements runs backend '" << e.backend
              << "': " << e.reason << "; result bits "
              << (e.reproducible ? "reproducible (the same on every GPU, grid, tuning and under rk::host)"
                                 : "not reproducible across machines (see the reason)");
  }
};
} // namespace rk
