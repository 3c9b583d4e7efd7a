#pragma once
// The commit the perf executables' figures belong to.

#include <string>

namespace rk_perf
{
/// The commit the executable was built from ("-dirty" if the tree had uncommitted changes), unless
/// the RK_COMMIT environment variable overrides it.
std::string commit_id();
} // namespace rk_perf
