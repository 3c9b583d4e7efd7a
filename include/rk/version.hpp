#pragma once
// rk version, kept in step with project(VERSION) in the top-level CMakeLists.txt.
#define RK_VERSION_MAJOR 0
#define RK_VERSION_MINOR 1
#define RK_VERSION_PATCH 0
