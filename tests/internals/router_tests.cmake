# Tests of the router and the Sockets/DNS/Predictor/Cache views (tests/internals/README.md):
# the real stack on the simulated network (virtual time) behind a fake InternalsHost; requests
# are handed to the router directly (no socket).
netstack_test(internals_router_tests
  ../sim/sim_test_env.cc
  router_test_env.cc
  internals_router_test.cc
  internals_views_test.cc
  LIBS netstack_internals netstack_predictor_context netstack_predictor net_http_sim net_sim
       net_http
       netstack_cache_memory net_socket net_dns net_base)
