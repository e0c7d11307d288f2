# Sources of the policies and their tables, and of the sqlite store.
set(PREDICTOR_POLICY_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/predictor_policy.cc
  ${CMAKE_CURRENT_LIST_DIR}/chrome_policy.cc
  ${CMAKE_CURRENT_LIST_DIR}/learned_policy.cc
)
set(PREDICTOR_STORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/predictor_store.cc
)
