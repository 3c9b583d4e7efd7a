#pragma once
#include <string>

namespace rk_test
{
/// Set by a suite that has something to say before its test cases run (the GPU suites say
/// which GPU they run on, or that their cases are skipped).
extern std::string (*suite_banner)();

/// Set by a suite whose executable also serves as a helper process (the NCCL suite starts a
/// copy of itself as a second rank): called first with the command line; a result >= 0 is the
/// exit status and doctest does not run, -1 lets the suite run as usual.
extern int (*helper_main)(int argc, char** argv);
} // namespace rk_test
