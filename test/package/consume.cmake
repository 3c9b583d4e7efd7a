# Builds a separate project against rk, the way a user would.
#   MODE=install       install rk from RK_BINARY_DIR into a prefix, then build examples/ with
#                      find_package(rk CONFIG REQUIRED) and run the host example.
#   MODE=subdirectory  build test/package/subdirectory, which add_subdirectory()s rk's source.
# Both consumers must compile against the CCCL that rk's build (RK_BINARY_DIR) found, which may be
# newer than the toolkit's (README, "Building against a newer CCCL").
cmake_minimum_required(VERSION 3.25)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}${err}")
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "failed (${status}): ${ARGN}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

# The directory of the CCCL package config that the build in DIR found, symlinks resolved.
function(cccl_dir_of dir out)
  load_cache("${dir}" READ_WITH_PREFIX found_ CCCL_DIR)
  file(REAL_PATH "${found_CCCL_DIR}" real)
  set(${out} "${real}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
cccl_dir_of("${RK_BINARY_DIR}" rk_cccl)
if(MODE STREQUAL "install")
  set(prefix "${WORK_DIR}/prefix")
  run(${CMAKE_COMMAND} --install "${RK_BINARY_DIR}" --prefix "${prefix}")
  foreach(f lib/cmake/rk/rkConfig.cmake lib/cmake/rk/rkConfigVersion.cmake include/rk/reduce.cuh include/rk/reduce.hpp)
    if(NOT EXISTS "${prefix}/${f}")
      message(FATAL_ERROR "install is missing ${f}")
    endif()
  endforeach()
  run(${CMAKE_COMMAND} -S "${RK_SOURCE_DIR}/examples" -B "${WORK_DIR}/build" "-DCMAKE_PREFIX_PATH=${prefix}")
  cccl_dir_of("${WORK_DIR}/build" consumer_cccl)
  if(NOT consumer_cccl STREQUAL rk_cccl)
    message(FATAL_ERROR "find_package(rk) found CCCL in ${consumer_cccl}; rk was built with ${rk_cccl}")
  endif()
  run(${CMAKE_COMMAND} --build "${WORK_DIR}/build" -j 2)
  run("${WORK_DIR}/build/rk_example_host")
  if(NOT last_output MATCHES "sum of 1..1000000 = 500000500000")
    message(FATAL_ERROR "unexpected output from the host example")
  endif()
  run("${WORK_DIR}/build/rk_example_device")
elseif(MODE STREQUAL "subdirectory")
  run(${CMAKE_COMMAND} -S "${RK_SOURCE_DIR}/test/package/subdirectory" -B "${WORK_DIR}/build"
      "-DRK_SOURCE_DIR=${RK_SOURCE_DIR}" "-DCCCL_DIR=${rk_cccl}")
  run(${CMAKE_COMMAND} --build "${WORK_DIR}/build" -j 2)
  run("${WORK_DIR}/build/consumer")
  if(NOT last_output MATCHES "rk via add_subdirectory: 55")
    message(FATAL_ERROR "unexpected output from the consumer")
  endif()
else()
  message(FATAL_ERROR "MODE must be install or subdirectory")
endif()
