# The Events and Histograms views' back end: the NetLog ring, the bucketed histogram and the
# stack's timing histograms. Their .cc files are compiled in directly (not through
# netstack_internals, whose other parts may not be written yet). The stack histograms test also
# drives the real stack over the simulated network (tests/sim/sim_test_env.h).
netstack_test(internals_events_tests
  ${PROJECT_SOURCE_DIR}/tools/internals/net_log_ring.cc
  ${PROJECT_SOURCE_DIR}/tools/internals/histogram.cc
  ${PROJECT_SOURCE_DIR}/tools/internals/stack_histograms.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/../sim/sim_test_env.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/net_log_ring_test.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/net_log_ring_capture_test.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/histogram_test.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/stack_histograms_test.cc
  LIBS netstack_predictor_context netstack_predictor net_sim net_http net_socket net_dns net_base)
