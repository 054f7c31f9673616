# One INTERFACE target carries the warning flags; every syncsim target links it.
add_library(syncsim_warnings INTERFACE)
add_library(syncsim::warnings ALIAS syncsim_warnings)
target_compile_options(syncsim_warnings INTERFACE
  $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion
    -Wnon-virtual-dtor -Wold-style-cast -Woverloaded-virtual -Wimplicit-fallthrough>)

# In a unity build every source is #included by a generated file, so GCC takes a class in one (Router::Impl) that
# holds a type from its anonymous namespace for a header's class and warns (-Wsubobject-linkage); in a source of its
# own that is no hazard.
if(SYNCSIM_UNITY_BUILD)
  target_compile_options(syncsim_warnings INTERFACE $<$<COMPILE_LANG_AND_ID:CXX,GNU>:-Wno-subobject-linkage>)
endif()

option(SYNCSIM_WERROR "Treat warnings as errors" OFF)
if(SYNCSIM_WERROR)
  target_compile_options(syncsim_warnings INTERFACE $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-Werror>)
endif()

option(SYNCSIM_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
if(SYNCSIM_SANITIZE)
  # C++ only: nvcc rejects -fsanitize, and device code cannot be instrumented anyway. A CUDA kernel library linked
  # into a C++ program still gets the runtime through the program's C++ link. `scripts/test --sanitize` runs the
  # suite this way (docs/reliability.md).
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined>
                      $<$<COMPILE_LANGUAGE:CXX>:-fno-omit-frame-pointer>
                      $<$<COMPILE_LANGUAGE:CXX>:-fno-sanitize-recover=undefined>)
  add_link_options($<$<LINK_LANGUAGE:CXX>:-fsanitize=address,undefined>)
endif()
