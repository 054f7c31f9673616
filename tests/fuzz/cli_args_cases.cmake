# Flags of `syncsim collective` that used to hang, or to mean something they did not say (docs/reliability.md):
# each exits 2 with one line naming the flag (tests/app/expect.sh), or, for the size ranges that now work, prints
# each row once. Included by tests/fuzz/CMakeLists.txt; the cli_args fuzz target covers every subcommand's flags.
set(cli_expect ${PROJECT_SOURCE_DIR}/tests/app/expect.sh)
set(cli_switch8 switch:n=8,bw=100Gbps,lat=5us)
function(syncsim_flag_case name code pattern)
  add_test(NAME "fuzz: flags ${name}" COMMAND ${cli_expect} ${code} ${pattern} $<TARGET_FILE:syncsim> ${ARGN})
  set_tests_properties("fuzz: flags ${name}" PROPERTIES TIMEOUT 30)
endfunction()

# Used to loop forever: 8 * 1e19 is beyond int64, and llround of it never reached MAX.
syncsim_flag_case(collective-sizes-factor-1e19 0 "^ +64 +16 +float"
  collective -t ${cli_switch8} --sizes 8:64:1e19)
syncsim_flag_case(collective-sizes-factor-too-close-to-1 2
  "^syncsim: error: --sizes: size range '8:1G:1.00001': FACTOR 1.00001 is too close to 1"
  collective -t ${cli_switch8} --sizes 8:1G:1.00001)
syncsim_flag_case(collective-sizes-factor-inf 2 "^syncsim: error: --sizes: expected a number, got 'inf'"
  collective -t ${cli_switch8} --sizes 8:64:inf)
syncsim_flag_case(collective-channels-beyond-nccl 2
  "^syncsim: error: --channels: expected a channel count from 1 to 64 \\(NCCL's MAXCHANNELS\\), got 1000000"
  collective -t ${cli_switch8} --channels 1000000)
syncsim_flag_case(collective-channels-zero 2 "^syncsim: error: --channels: expected a channel count from 1 to 64"
  collective -t ${cli_switch8} --channels 0)
syncsim_flag_case(collective-pipeline-huge 2
  "^syncsim: error: --pipeline: expected 'auto' or a slice count from 1 to 1024, got 1000000000"
  collective -t ${cli_switch8} --op broadcast --pipeline 1000000000)
syncsim_flag_case(collective-ranks-zero 2 "^syncsim: error: --ranks: expected a rank count from 2 to 1048576, got 0"
  collective -t ${cli_switch8} --ranks 0)
syncsim_flag_case(collective-root-on-allreduce 2
  "^syncsim: error: --root: applies only to rooted collectives \\(broadcast, reduce\\), not allreduce"
  collective -t ${cli_switch8} --root 3)
syncsim_flag_case(collective-root-negative 2 "^syncsim: error: --root: expected a rank from 0"
  collective -t ${cli_switch8} --op reduce --root -1)

# 8:64:1.0001 rounds to whole floats: 8, 12, 16, ... each once (it printed each size four times).
add_test(NAME "fuzz: flags collective-sizes-factor-near-1-each-row-once"
  COMMAND sh -c "$<TARGET_FILE:syncsim> collective -t ${cli_switch8} --sizes 8:64:1.0001 > rows.txt && \
    test $(grep -cE '^ +[0-9]+ +[0-9]+ +float' rows.txt) -eq 15 && \
    test $(grep -E '^ +[0-9]+ +[0-9]+ +float' rows.txt | awk '{print $1}' | sort -u | wc -l) -eq 15")
set_tests_properties("fuzz: flags collective-sizes-factor-near-1-each-row-once" PROPERTIES
  TIMEOUT 30 WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
