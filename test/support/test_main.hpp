#pragma once
#include <string>

namespace rk_test
{
/// Set by a suite that has something to say before its test cases run (the GPU suites say
/// which GPU they run on, or that their cases are skipped).
extern std::string (*suite_banner)();
} // namespace rk_test
