# predictor_core_tests: the queue, the accounting, the Predictor facade and the pool's Observer
# on virtual time with a scripted target and a fake policy (core_test_util), the pool's fakes
# (tests/socket, tests/fakes), and ContextSpeculationTarget over the simulated network
# (tests/sim/sim_test_env).
netstack_test(predictor_core_tests
  ${CMAKE_CURRENT_LIST_DIR}/core_test_util.cc
  ${CMAKE_CURRENT_LIST_DIR}/queue_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/accounting_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/predictor_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/pool_observer_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/context_target_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../socket/pool_test_util.cc
  ${CMAKE_CURRENT_LIST_DIR}/../sim/sim_test_env.cc
  LIBS netstack_predictor_context netstack_predictor net_http_sim net_sim net_http
       netstack_cache_memory net_socket net_dns net_base
       test_support)
