# Tests of the router and the Sockets/HTTP/2/DNS/Predictor/Cache views (tests/internals/README.md):
# the real stack on the simulated network (virtual time) behind a fake InternalsHost; requests
# are handed to the router directly (no socket). The HTTP/2 view's tests run the stack over
# tests/http2's in-memory h2 servers instead.
netstack_test(internals_router_tests
  router_test_env.cc
  internals_router_test.cc
  internals_views_test.cc
  http2_view_test.cc
  LIBS netstack_internals sim_predictor_env netstack_cache_memory h2_socket_factory request_test_env
       test_support)
