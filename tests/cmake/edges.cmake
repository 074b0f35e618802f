# Issue 24: the edges of options, caches, the C API, MPI, time limits and the
# suite on any machine. Included last but one by tests/CMakeLists.txt (before
# the sanitizer block, which must reach these tests too).

# The library's edges in C: build options, an overlapping result buffer,
# ocr_reducer_geometry(NULL), ocr_split_shares' weights (tests/test_edges.c).
add_executable(test_edges ${UNIT}/test_edges.c)
target_link_libraries(test_edges PRIVATE oclreduction)
add_test(NAME edges.library COMMAND test_edges ${PROJECT_SOURCE_DIR}/cl)
set_tests_properties(edges.library PROPERTIES LABELS "quick;unit;reducer" TIMEOUT 120)

function(edge_test name)
  add_test(NAME edges.${name} COMMAND ${EXPECT} ${ARGN})
  set_tests_properties(edges.${name} PROPERTIES LABELS "quick;cli;edges" TIMEOUT 120)
endfunction()

# --- build options: a bare -D, -I or -U is a usage error before any compiler
# sees it (POCL's option parser crashed on them: exit 139), in every mode.
foreach(spec "bare_D|-D" "bare_I|-I" "bare_U|-U" "D_space|-D " "DA_D|-DA -D" "D_DA|-D -DA")
  string(REPLACE "|" ";" f "${spec}")
  list(GET f 0 n)
  list(GET f 1 o)
  edge_test(build_options_${n} --rc 2 --err "build options \"${o}\": (-D|-I|-U) needs"
            --err "Try 'oclReduction --help'" --no-out . -- ${OCR} -n 7 -s 5003 --build-options "${o}")
endforeach()
set(KF --kernel-file ${PROJECT_SOURCE_DIR}/docs/labs/starter.cl --kernel-name my_reduce --elems-per-group 1024)
edge_test(build_options_stream --rc 2 --err "-D needs a macro name" -- ${OCR} --stream -s 5003 --build-options "-DA -D")
edge_test(build_options_all --rc 2 --err "-D needs a macro name" -- ${OCR} -d all -s 5003 --build-options "-D")
edge_test(build_options_split --rc 2 --err "-I needs a directory" --env "POCL_DEVICES=pthread pthread"
          -- ${OCR} --split all -s 5003 --build-options "-I")
edge_test(build_options_grade --rc 2 --err "-D needs a macro name" -- ${OCR} --grade ${KF} --build-options "-D ")
edge_test(build_options_kernel_file --rc 2 --err "-U needs a macro name" -- ${OCR} ${KF} -s 5003 --build-options "-U")
# A -D or -U of a name the kernels are built with is refused (exit 2), in the
# single run and the grader: -DOCR_IDENTITY=5 made an int sum 4788 for 4103.
# The library's list covers every name in cl/ and the host's -D options.
edge_test(build_options_reserved --rc 2 --err "-D OCR_IDENTITY: the kernels are built with that name"
          --no-out . -- ${OCR} -n 6 -s 4103 -r 1 --build-options "-DOCR_IDENTITY=5")
edge_test(build_options_reserved_quoted --rc 2 --err "-D LOCAL_SIZE: the kernels are built with"
          --no-out . -- ${OCR} -n 7 -s 4103 -r 1 --build-options "-D \"LOCAL_SIZE=3\"")
edge_test(build_options_reserved_grade --rc 2 --err "-D T: the kernels are built with that name"
          -- ${OCR} --grade ${KF} --build-options "-D T=float")
add_test(NAME edges.build_options_reserved_all
         COMMAND ${SCRIPTS}/reserved_names_test.sh ${OCR} ${PROJECT_SOURCE_DIR})
set_tests_properties(edges.build_options_reserved_all PROPERTIES LABELS "quick;cli;edges" TIMEOUT 300)
edge_test(build_options_good --rc 0 --out "^Test PASSED!$" --out "^Build options added: -DA -D B=2 -I /tmp$"
          -- ${OCR} -n 6 -s 5003 -r 1 --build-options "-DA -D B=2 -I /tmp")

# --- bench/drivers/sweep.sh: its size edges are tested in bench.cmake
# (bench.sweep_size_*, in a -DOCR_BUILD_BENCH=ON build).

# --- the tuning cache (host/lib/run/ocr_tune.c): every field checked, the real
# line number in the note, the file's mode kept, a symbolic link refused, a
# read-only cache refused, two tuners at once keep both entries (paused by
# an LD_PRELOAD shim, unit/tune_hook_shim.c: the library has no test hook).
add_library(tune_hook_shim MODULE ${UNIT}/tune_hook_shim.c)
target_link_libraries(tune_hook_shim PRIVATE ${CMAKE_DL_LIBS})
target_compile_options(tune_hook_shim PRIVATE -Wno-pedantic) # dlsym's object-to-function cast
foreach(part fields files race)
  add_test(NAME edges.tune_${part} COMMAND ${SCRIPTS}/tune_edges_test.sh ${OCR} ${part})
  set_tests_properties(edges.tune_${part} PROPERTIES LABELS "quick;tune;edges" TIMEOUT 300
                       ENVIRONMENT "TUNE_HOOK_SHIM=$<TARGET_FILE:tune_hook_shim>")
endforeach()

# --- --timeout for any run (host/cli/watchdog.c): a kernel that never ends
# (tests/fixtures/kernels_hang/spin.cl) is abandoned at the limit, exit 3, with a
# message naming it; a run that ends in time is unchanged.
set(HANG --kernel-file ${FIXTURES}/kernels_hang/spin.cl --kernel-name spin --elems-per-group 1024)
set(TIME_LIMIT "did not finish within its time limit \\(--timeout 3 s\\): abandoned")
edge_test(timeout_single --rc 3 --err "${TIME_LIMIT}" -- ${OCR} ${HANG} -s 4103 -r 1 --timeout 3)
edge_test(timeout_device_all --rc 3 --err "${TIME_LIMIT}" -- ${OCR} ${HANG} -d all -s 4103 -r 1 --timeout 3)
edge_test(timeout_split --rc 3 --err "${TIME_LIMIT}" --env "POCL_DEVICES=pthread pthread" --pocl
          -- ${OCR} ${HANG} --split @P@.0,@P@.1 -s 4103 -r 1 --timeout 3)
edge_test(timeout_json --rc 3 --err "${TIME_LIMIT}" -- ${OCR} ${HANG} -s 4103 -r 1 --format json --timeout 3)
edge_test(timeout_stream_in_time --rc 0 --out "^Test PASSED!$" -- ${OCR} --stream --chunk 1000 -s 100003 --timeout 120)
edge_test(timeout_in_time --rc 0 --out "^Test PASSED!$" -- ${OCR} -n 6 -s 4103 -r 2 --timeout 120)
edge_test(timeout_zero --rc 2 --err "invalid value for --timeout" -- ${OCR} -n 6 -s 4103 --timeout 0)
# (the sweep's own time limit: bench.timeout_sweep, in a bench build)
set_tests_properties(edges.timeout_split PROPERTIES SKIP_RETURN_CODE 77)

# --- --mpi: ranks given different options that shape the data or the run
# stop at once with exit 2, rank 0 naming the option (different -r used to
# hang; different -s, --type, --seed, --op printed FAILED with garbage).
if(OCR_MPI)
  set(MA ${SCRIPTS}/mpi_agree_test.sh)
  foreach(spec "repeat|-r (--repeat)|-r 2|-r 3" "size|-s (--size)|-s 4103|-s 4104"
               "type|--type|--type int|--type float" "seed|--seed|--seed 1|--seed 2"
               "op|--op|--op sum|--op max" "kernel|-n (--kernel)|-n 6|-n 7"
               "threshold|-M (--threshold)|-M 1|-M 2" "data|--data|--type float|--type float --data uniform"
               "build_options|--build-options|-n 6|-n 6 --build-options -DX"
               "same|-|-n reduce7 -r 2 -d 0|-n 7 --repeat 2 --format json")
    string(REPLACE "|" ";" f "${spec}")
    list(GET f 0 n)
    list(GET f 1 what)
    list(GET f 2 a)
    list(GET f 3 b)
    add_test(NAME mpi.agree_${n} COMMAND ${MA} ${MPIRUN} ${OCR} "${what}" "${a}" "${b}")
    set_tests_properties(mpi.agree_${n} PROPERTIES LABELS "mpi;multi;edges" TIMEOUT 180 PROCESSORS 2
                         ENVIRONMENT "${MPI_ENV}")
  endforeach()
  # A bad build option under --mpi: exit 2, said once (by rank 0).
  add_test(NAME mpi.build_options_bare_D
           COMMAND sh -c "timeout 120 \"$1\" --oversubscribe -np 2 \"$2\" --mpi -s 4103 --build-options -D > mpi_bare_d.txt 2>&1; rc=$?; cat mpi_bare_d.txt; test $rc = 2 && test $(grep -c -- '-D needs a macro name' mpi_bare_d.txt) = 1"
                   sh ${MPIRUN} ${OCR})
  set_tests_properties(mpi.build_options_bare_D PROPERTIES LABELS "mpi;multi;edges" TIMEOUT 180 PROCESSORS 2
                       ENVIRONMENT "${MPI_ENV}")
endif()

# --- the suite on any machine (a GPU with its vendor's OpenCL as the default
# device, another CPU runtime first, POCL alone): tests that need POCL, a
# device whose limits the environment lowers, a CPU, or a loader that honours
# OCL_ICD_VENDORS find it (tests/scripts/select_device.sh, expect.sh --pocl,
# --device-matching, --hide-platforms) or say SKIPPED with the reason (77).
set_tests_properties(cli.limit_max_alloc cli.stream_chunk_too_large cli.stream_auto_repeat
                     cli.exit3_no_platform cli.device_all_no_platform cli.grade_no_platform cli.resources_cpu
                     cli.split_shares_rate cli.split_more_devices_than_elements cli.split_wrong_kernel
                     cli.split_broken_kernel stream.beyond_max_alloc_int stream.beyond_max_alloc_double
                     PROPERTIES SKIP_RETURN_CODE 77)
