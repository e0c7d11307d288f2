# predictor_core_tests: the queue, the accounting, the Predictor facade and the pool's Observer
# on virtual time with a scripted target and a fake policy (core_test_util), the pool's
# environment (tests/socket's pool_test_env, over tests/support's fakes), and
# ContextSpeculationTarget over the simulated network (sim_predictor_env).
netstack_test(predictor_core_tests
  ${CMAKE_CURRENT_LIST_DIR}/queue_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/accounting_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/accounting_critical_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/predictor_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/pool_observer_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/context_target_test.cc
  LIBS predictor_test_util sim_predictor_env pool_test_env netstack_cache_memory)
