# Sweep results do not depend on the thread count (issue 8, determinism): -j1, -j2 and -j3 write the same bytes.
add_test(NAME "planner: sweep output is identical with -j1, -j2 and -j3"
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/sweep_thread_count.sh $<TARGET_FILE:syncsim>
                 ${PROJECT_SOURCE_DIR}/examples/planner-compute-bound.yaml ${CMAKE_CURRENT_BINARY_DIR}/thread-count)
set_tests_properties("planner: sweep output is identical with -j1, -j2 and -j3" PROPERTIES TIMEOUT 300)
