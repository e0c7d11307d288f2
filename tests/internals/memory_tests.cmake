# The Memory view's back end: the estimates of the stack's parts, MemoryReport's JSON, and the
# library allocation counters. memory_report.cc and library_memory.cc are compiled in directly
# (not through netstack_internals, whose other parts may not be written yet); the event ring and
# the histograms are compiled in for a report with every source.
find_package(SQLite3 REQUIRED)
netstack_test(internals_memory_tests
  ${PROJECT_SOURCE_DIR}/tools/internals/memory_report.cc
  ${PROJECT_SOURCE_DIR}/tools/internals/library_memory.cc
  ${PROJECT_SOURCE_DIR}/net/base/net_log_ring.cc
  ${PROJECT_SOURCE_DIR}/net/base/histogram.cc
  ${PROJECT_SOURCE_DIR}/net/base/stack_histograms.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/memory_estimate_test.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/memory_test.cc
  LIBS sim_predictor_env netstack_cache_memory OpenSSL::Crypto PkgConfig::LIBUV PkgConfig::CARES SQLite::SQLite3)

# The library counters need a process whose first allocation by each library comes after the
# hooks: a program of their own, each test case installing them as its first action (CTest runs
# every case in its own process).
netstack_test(internals_library_memory_tests
  ${PROJECT_SOURCE_DIR}/tools/internals/library_memory.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/library_memory_test.cc
  LIBS OpenSSL::SSL OpenSSL::Crypto PkgConfig::LIBUV PkgConfig::CARES SQLite::SQLite3)
