# One INTERFACE target carries the warning flags; every syncsim target links it.
add_library(syncsim_warnings INTERFACE)
add_library(syncsim::warnings ALIAS syncsim_warnings)
target_compile_options(syncsim_warnings INTERFACE
  $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion
    -Wnon-virtual-dtor -Wold-style-cast -Woverloaded-virtual -Wimplicit-fallthrough>)

option(SYNCSIM_WERROR "Treat warnings as errors" OFF)
if(SYNCSIM_WERROR)
  target_compile_options(syncsim_warnings INTERFACE $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-Werror>)
endif()

option(SYNCSIM_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
if(SYNCSIM_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
