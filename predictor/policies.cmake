# Sources of the policies and their tables, and of the sqlite store.
set(PREDICTOR_POLICY_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/predictor_policy.cc
  ${CMAKE_CURRENT_LIST_DIR}/policy_util.cc
  ${CMAKE_CURRENT_LIST_DIR}/referrer_table.cc
  ${CMAKE_CURRENT_LIST_DIR}/omnibox_table.cc
  ${CMAKE_CURRENT_LIST_DIR}/startup_list.cc
  ${CMAKE_CURRENT_LIST_DIR}/decayed_use_table.cc
  ${CMAKE_CURRENT_LIST_DIR}/adaptive_budget.cc
  ${CMAKE_CURRENT_LIST_DIR}/chrome_policy.cc
  ${CMAKE_CURRENT_LIST_DIR}/host_origin_table.cc
  ${CMAKE_CURRENT_LIST_DIR}/loading_policy.cc
  ${CMAKE_CURRENT_LIST_DIR}/learned_policy.cc
  ${CMAKE_CURRENT_LIST_DIR}/learned_policy_tables.cc
)
set(PREDICTOR_STORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/predictor_store.cc
)
