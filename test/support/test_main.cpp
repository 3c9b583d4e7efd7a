// doctest's main. Before running it prints the seed of the random inputs (RK_TEST_SEED replays
// it) and, in GPU suites, whether a GPU is there; GPU test cases carry a skip decorator when none
// is. When doctest only lists test cases (ctest's discovery), it prints nothing of its own and
// lists skipped cases too, so that ctest knows every test and can report the skipped ones.
#define DOCTEST_CONFIG_IMPLEMENT
#include "test_main.hpp"
#include "reference.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>

std::string (*rk_test::suite_banner)()   = nullptr;
int (*rk_test::helper_main)(int, char**) = nullptr;

int main(int argc, char** argv)
{
  if (rk_test::helper_main)
  {
    if (const int status = rk_test::helper_main(argc, argv); status >= 0)
    {
      return status;
    }
  }
  bool listing = false;
  for (int i = 1; i < argc; ++i)
  {
    listing = listing || std::strncmp(argv[i], "--list-test-cases", 17) == 0 || std::strncmp(argv[i], "-ltc", 4) == 0;
  }
  doctest::Context context(argc, argv);
  if (listing)
  {
    context.setOption("no-skip", true);
  }
  else
  {
    std::printf("[rk] random seed %llu (RK_TEST_SEED replays it)\n",
                static_cast<unsigned long long>(rk_test::run_seed()));
    if (rk_test::suite_banner)
    {
      std::printf("%s\n", rk_test::suite_banner().c_str());
    }
  }
  return context.run();
}
