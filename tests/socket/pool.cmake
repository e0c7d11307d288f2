# Unit tests of the client socket pool and connect jobs, on virtual time with fakes.

# PoolTestEnv, also for the predictor's pool observer tests (compiled once).
add_library(pool_test_env STATIC ${CMAKE_CURRENT_SOURCE_DIR}/pool_test_util.cc)
target_link_libraries(pool_test_env PUBLIC net_socket test_support Catch2::Catch2)

netstack_test(pool_tests
  ${CMAKE_CURRENT_SOURCE_DIR}/connect_job_test.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/pool_binding_test.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/pool_backup_flush_test.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/pool_idle_test.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/pool_invariants_test.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/pool_limits_test.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/pool_source_test.cc
  LIBS pool_test_env)
