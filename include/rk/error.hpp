#pragma once
/// \file
/// rk's exceptions. Every error rk reports derives from rk::error, itself a std::runtime_error.

#include <stdexcept>
#include <string>

namespace rk
{
/// Root of rk's exceptions.
class error : public std::runtime_error
{
public:
  using std::runtime_error::runtime_error;
};

/// `last` comes before `first`.
///
/// Derived from rk::error only, not also from std::invalid_argument: deriving from both would
/// give std::exception twice as a base, and `catch (const std::exception&)` would then miss it.
class invalid_range : public error
{
public:
  using error::error;
};

/// A GPU policy was handed memory the GPU cannot read (a pageable host pointer).
class host_memory_error : public error
{
public:
  using error::error;
};
} // namespace rk
