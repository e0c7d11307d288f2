# predictor_policy_tests: the chrome, loading and learned policies, their tables, and the sqlite
# store, each driven directly (no scheduler, no stack).
find_package(SQLite3 REQUIRED)
netstack_test(predictor_policy_tests
  ${CMAKE_CURRENT_LIST_DIR}/policy_test_util.cc
  ${CMAKE_CURRENT_LIST_DIR}/chrome_policy_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/learned_policy_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/learned_policy_events_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/learned_policy_state_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/adaptive_budget_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/learned_warm_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/loading_policy_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/loading_tables_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/tables_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/predictor_store_test.cc
  LIBS netstack_predictor_store test_support SQLite::SQLite3)
