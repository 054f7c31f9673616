# Algorithms other than the ring: tree, halving-doubling, hierarchical, direct.
target_sources(syncsim_sim PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/direct_plan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/halving_doubling_plan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hierarchical_plan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/parameter_server_plan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tree_plan.cpp)
