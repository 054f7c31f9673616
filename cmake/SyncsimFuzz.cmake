# The fuzz part (tests/fuzz, docs/reliability.md): libFuzzer binaries, one per reader of user input.
#
# A fuzz build is a build of its own (scripts/test makes one in build-fuzz when clang is found): every syncsim
# library is compiled with libFuzzer's coverage instrumentation and ASan + UBSan, which no normal build wants, so
# the option is off by default. Like the other optional parts it switches itself off with one configure message
# when what it needs is missing (clang, or libFuzzer's runtime: Debian's libclang-rt-N-dev). The replay of the
# kept inputs (syncsim-fuzz-replay) needs neither and is built and tested in every build.
option(SYNCSIM_FUZZ "Build the libFuzzer targets (needs clang and libFuzzer; instruments every library)" OFF)

set(SYNCSIM_FUZZ_ENABLED OFF)
if(SYNCSIM_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(STATUS "syncsim: fuzz targets disabled: libFuzzer needs clang, the compiler is "
                   "${CMAKE_CXX_COMPILER_ID} (configure a separate build with -DCMAKE_CXX_COMPILER=clang++)")
  else()
    include(CheckCXXSourceCompiles)
    set(CMAKE_REQUIRED_FLAGS -fsanitize=fuzzer)
    set(CMAKE_REQUIRED_LINK_OPTIONS -fsanitize=fuzzer)
    check_cxx_source_compiles([[
      #include <cstddef>
      #include <cstdint>
      extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }
    ]] SYNCSIM_HAVE_LIBFUZZER)
    unset(CMAKE_REQUIRED_FLAGS)
    unset(CMAKE_REQUIRED_LINK_OPTIONS)
    if(SYNCSIM_HAVE_LIBFUZZER)
      set(SYNCSIM_FUZZ_ENABLED ON)
      message(STATUS "syncsim: fuzz targets enabled (clang ${CMAKE_CXX_COMPILER_VERSION}, libFuzzer, ASan, UBSan)")
      # Global on purpose: coverage feedback must come from the readers inside the libraries, and a sanitizer
      # only sees memory errors in code it instrumented. Line tables keep the stacks of findings readable.
      add_compile_options(
        "$<$<COMPILE_LANGUAGE:CXX>:-fsanitize=fuzzer-no-link,address,undefined;-fno-sanitize-recover=undefined>"
        "$<$<COMPILE_LANGUAGE:CXX>:-fno-omit-frame-pointer;-gline-tables-only>")
      add_link_options($<$<LINK_LANGUAGE:CXX>:-fsanitize=address,undefined>)
    else()
      string(REGEX MATCH "^[0-9]+" clang_major "${CMAKE_CXX_COMPILER_VERSION}")
      message(STATUS "syncsim: fuzz targets disabled: clang cannot link -fsanitize=fuzzer "
                     "(libFuzzer's runtime is missing: on Debian, libclang-rt-${clang_major}-dev)")
    endif()
  endif()
else()
  message(STATUS "syncsim: fuzz targets disabled by SYNCSIM_FUZZ=OFF (the replay of kept inputs is still tested)")
endif()
# scripts/test reads it from the cache to decide whether to run the smoke pass.
set(SYNCSIM_FUZZ_ENABLED ${SYNCSIM_FUZZ_ENABLED} CACHE INTERNAL "whether the libFuzzer targets are built")
