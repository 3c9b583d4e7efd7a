# Run by the rk_perf_commit target at every build (cmake -P): writes OUTPUT, a header that defines
# RK_PERF_COMMIT as the source tree's commit ("-dirty" when it has uncommitted changes), and
# rewrites it only when that changed, so only perf/commit.cpp recompiles after a commit.
execute_process(
  COMMAND git describe --always --dirty --abbrev=7
  WORKING_DIRECTORY "${SOURCE_DIR}"
  OUTPUT_VARIABLE commit
  OUTPUT_STRIP_TRAILING_WHITESPACE
  ERROR_QUIET
  RESULT_VARIABLE status)
if(NOT status EQUAL 0 OR commit STREQUAL "")
  set(commit "unknown")
endif()
set(content "#define RK_PERF_COMMIT \"${commit}\"\n")
set(previous "")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" previous)
endif()
if(NOT previous STREQUAL content)
  file(WRITE "${OUTPUT}" "${content}")
endif()
