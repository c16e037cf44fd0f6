# The t3sim binary's hot path, built in three steps (included from tools/CMakeLists.txt):
#  1. t3sim_pgo_train: the t3sim CLI with the hot files instrumented (-fprofile-generate);
#  2. a training run of it at build time (a one-node NVLS and ring all-reduce, a T3-MCA sublayer)
#     writes their branch and call counts to ${T3SIM_PGO_DIR};
#  3. t3sim compiles the hot files once more with that profile (-fprofile-use) as LTO objects and
#     links them with -flto: on the one-node 1 GiB all-reduce, LTO took 7 % of the instructions
#     and the profile about 8 % of the CPU time more (block layout, inlining, unrolling by count).
# The profile changes code layout only, never results: no floating-point flag changes, and every
# test that runs the t3sim binary runs this build. -fprofile-prefix-path strips each target's
# object folder, so both targets name a file's profile alike (__/sim/event_queue.cpp.gcda).
# The hot objects define the same symbols as the library members they stand in for, so those
# members are never pulled from the archives.
set(T3SIM_HOT_SOURCES
    sim/event_queue.cpp sim/simulator.cpp models/hbm/channel.cpp models/hbm/hbm.cpp
    models/hbm/policies/fr_fcfs.cpp models/gpu/mem_partition.cpp models/gpu/mem_stream.cpp
    models/fabric/fabric.cpp models/fabric/egress.cpp models/fabric/flow_table.cpp
    models/collectives/nvls_executor.cpp models/system/system.cpp)
list(TRANSFORM T3SIM_HOT_SOURCES PREPEND ${PROJECT_SOURCE_DIR}/)
set(T3SIM_PGO_DIR ${CMAKE_CURRENT_BINARY_DIR}/pgo)

add_executable(t3sim_pgo_train t3sim_main.cpp ${T3SIM_HOT_SOURCES})
target_link_libraries(t3sim_pgo_train PRIVATE t3sim_cli)
target_compile_options(t3sim_pgo_train PRIVATE -flto=auto -fprofile-generate=${T3SIM_PGO_DIR} -fprofile-update=single
  -fprofile-prefix-path=${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/t3sim_pgo_train.dir)
target_link_options(t3sim_pgo_train PRIVATE -flto=auto -Wno-restrict -fprofile-generate)

# The training run: counts add up over runs, so the folder starts empty each time.
set(T3SIM_TRAIN $<TARGET_FILE:t3sim_pgo_train>)
add_custom_command(
  OUTPUT ${T3SIM_PGO_DIR}/trained
  COMMAND ${CMAKE_COMMAND} -E rm -rf ${T3SIM_PGO_DIR}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${T3SIM_PGO_DIR}
  COMMAND ${T3SIM_TRAIN} nccl-tests all_reduce_perf -b 1G -e 1G --system dgx-h100 > /dev/null
  COMMAND ${T3SIM_TRAIN} nccl-tests all_reduce_perf -b 256M -e 256M --system dgx-h100
          --algo ring > /dev/null
  COMMAND ${T3SIM_TRAIN} sublayer --system t3-ring-8 --model t-nlg --sublayer fc2 --mode t3-mca
          > /dev/null
  COMMAND ${CMAKE_COMMAND} -E touch ${T3SIM_PGO_DIR}/trained
  DEPENDS t3sim_pgo_train
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}
  COMMENT "Training run of t3sim's hot path (profile for -fprofile-use)"
  VERBATIM)
add_custom_target(t3sim_pgo_profile DEPENDS ${T3SIM_PGO_DIR}/trained)

# The training run completes before t3sim compiles anything (a target-level dependency). A hot
# file that changes is compiled again for both targets, so its profile matches; a change elsewhere
# retrains, and the hot objects keep the older profile until their own sources change.
target_sources(t3sim PRIVATE ${T3SIM_HOT_SOURCES})
add_dependencies(t3sim t3sim_pgo_profile)
# Warnings are errors where these files are compiled for the libraries, with the same flags but
# the profile; here they stay warnings, because GCC's profile notes ("missing counts for called
# function", when the training build inlined a function the optimised one keeps) have no switch.
# -Wno-missing-profile: t3sim_main.cpp has none. -Wno-coverage-mismatch: a function whose profile
# no longer matches is compiled without it.
target_compile_options(t3sim PRIVATE -flto=auto -fprofile-use=${T3SIM_PGO_DIR}
  -fprofile-prefix-path=${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/t3sim.dir
  -Wno-missing-profile -Wno-coverage-mismatch -Wno-error)
# The LTO link compiles the hot files again, with the top level's -Wno-restrict.
target_link_options(t3sim PRIVATE -flto=auto -Wno-restrict)
