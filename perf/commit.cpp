// The commit the perf executables were built from (perf/commit.cmake writes rk_perf_commit.h at
// every build), unless the RK_COMMIT environment variable names another.

#include "commit.hpp"

#include "rk_perf_commit.h"

#include <cstdlib>

namespace rk_perf
{
std::string commit_id()
{
  const char* override_commit = std::getenv("RK_COMMIT");
  return override_commit != nullptr && *override_commit != '\0' ? override_commit : RK_PERF_COMMIT;
}
} // namespace rk_perf
