# Tests of the router and the Sockets/DNS/Predictor/Cache views (tests/internals/README.md):
# the real stack on the simulated network (virtual time) behind a fake InternalsHost; requests
# are handed to the router directly (no socket).
netstack_test(internals_router_tests
  router_test_env.cc
  internals_router_test.cc
  internals_views_test.cc
  LIBS netstack_internals sim_predictor_env netstack_cache_memory)
