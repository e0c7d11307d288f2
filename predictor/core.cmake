# Sources of the predictor's core (owned with predictor.h).
set(PREDICTOR_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/hint.cc
  ${CMAKE_CURRENT_LIST_DIR}/predictor.cc
  ${CMAKE_CURRENT_LIST_DIR}/predictor_config.cc
  ${CMAKE_CURRENT_LIST_DIR}/predictor_stats.cc
  ${CMAKE_CURRENT_LIST_DIR}/speculative_queue.cc
  ${CMAKE_CURRENT_LIST_DIR}/action_accounting.cc
  ${CMAKE_CURRENT_LIST_DIR}/action_log.cc
)
set(PREDICTOR_CONTEXT_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/context_speculation_target.cc
  ${CMAKE_CURRENT_LIST_DIR}/context_predictor.cc
)
