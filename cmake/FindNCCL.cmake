# FindNCCL: NCCL's header and shared library, as the imported target NCCL::NCCL.
#
# Looks, in this order, in
#   NCCL_ROOT (a CMake or environment variable: a prefix with include/nccl.h and lib/libnccl.so*,
#     such as an NCCL install, or the nvidia/nccl folder of PyPI's nvidia-nccl-cu13 wheel,
#     <site-packages>/nvidia/nccl, which ships only libnccl.so.2),
#   NCCL_HINT_DIRS (prefixes rk's installed package config passes: where rk's build found NCCL),
#   the CUDA toolkit's own folders (recent toolkits carry nccl.h and libnccl.so),
#   then the system's default paths.
#
# Sets NCCL_FOUND, NCCL_INCLUDE_DIR, NCCL_LIBRARY, NCCL_VERSION (from nccl.h) and defines
# NCCL::NCCL. A user points CMake at another NCCL with -DNCCL_ROOT=<prefix>, or by setting
# NCCL_INCLUDE_DIR and NCCL_LIBRARY directly.

if(NOT CUDAToolkit_FOUND)
  find_package(CUDAToolkit QUIET)
endif()

set(_nccl_hints ${NCCL_ROOT} $ENV{NCCL_ROOT} ${NCCL_HINT_DIRS})
set(_nccl_toolkit_dirs)
if(CUDAToolkit_FOUND)
  list(APPEND _nccl_toolkit_dirs ${CUDAToolkit_INCLUDE_DIRS} ${CUDAToolkit_LIBRARY_DIR})
  if(CUDAToolkit_LIBRARY_ROOT)
    list(APPEND _nccl_toolkit_dirs ${CUDAToolkit_LIBRARY_ROOT})
  endif()
endif()

find_path(NCCL_INCLUDE_DIR nccl.h
  HINTS ${_nccl_hints} ${_nccl_toolkit_dirs}
  PATH_SUFFIXES include)
# libnccl.so.2 by its full name too: the wheel has no unversioned libnccl.so.
find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 NAMES_PER_DIR
  HINTS ${_nccl_hints} ${_nccl_toolkit_dirs}
  PATH_SUFFIXES lib lib64)

if(NCCL_INCLUDE_DIR AND EXISTS "${NCCL_INCLUDE_DIR}/nccl.h")
  file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _nccl_version_lines REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) +[0-9]+")
  foreach(_part MAJOR MINOR PATCH)
    string(REGEX MATCH "NCCL_${_part} +([0-9]+)" _match "${_nccl_version_lines}")
    set(_nccl_${_part} "${CMAKE_MATCH_1}")
  endforeach()
  if(NOT "${_nccl_MAJOR}" STREQUAL "")
    set(NCCL_VERSION "${_nccl_MAJOR}.${_nccl_MINOR}.${_nccl_PATCH}")
  endif()
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NCCL
  REQUIRED_VARS NCCL_LIBRARY NCCL_INCLUDE_DIR
  VERSION_VAR NCCL_VERSION)

if(NCCL_FOUND AND NOT TARGET NCCL::NCCL)
  add_library(NCCL::NCCL SHARED IMPORTED)
  set_target_properties(NCCL::NCCL PROPERTIES
    IMPORTED_LOCATION "${NCCL_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}")
endif()
mark_as_advanced(NCCL_INCLUDE_DIR NCCL_LIBRARY)
unset(_nccl_hints)
unset(_nccl_toolkit_dirs)
