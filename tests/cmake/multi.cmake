# Several devices (--split) and MPI ranks (--mpi); docs/scale.md.
# --split runs on two POCL devices: POCL_DEVICES="pthread pthread" makes POCL 3.1
# show two pthread CPU devices in its platform ("cpu cpu" shows none), each
# with its own context, queue and host thread; scripts/multi_test.sh says more.
# Every answer must equal the single-device run's, and PASS.
ocr_test(multi.unit LABELS quick multi unit COMMAND test_split)
set(MT ${SCRIPTS}/multi_test.sh)
set(MULTI_SIZES 1,2,3,63,4103,1000003)
# multi_test(<name> <multi_test.sh arguments>): multi.<name>.
function(multi_test name)
  cmake_parse_arguments(PARSE_ARGV 1 A "" "" "")
  ocr_test(multi.${name} LABELS multi PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600
           COMMAND ${MT} ${A_UNPARSED_ARGUMENTS})
endfunction()
multi_test(split.int split ${OCR} int "sum prod min xor" ${MULTI_SIZES})
multi_test(split.float split ${OCR} float "sum max" ${MULTI_SIZES})
multi_test(split.double split ${OCR} double "sum prod" ${MULTI_SIZES})
multi_test(split.uniform split ${OCR} float sum 4103,1000003 2 -- --data uniform -n 7)
# Every kernel of the ladder, one size: ladder.cmake; reduce7's blocked loads here.
multi_test(split.reduce7_blocked split ${OCR} long max 100003 2 -- -n 7 --access blocked)
multi_test(split.kernel_file split ${OCR} int sum 4103 2 -- --kernel-file ${PROJECT_SOURCE_DIR}/docs/labs/starter.cl
           --kernel-name my_reduce --elems-per-group 1024)
# Shares by a probe's rate: reported as such, the answer unchanged.
cli_test(split_shares_rate --rc 0 --out "^Shares: rate" --out "^Probe 0\\.1: " --out "^Test PASSED!$"
         --env "POCL_DEVICES=pthread pthread" --pocl -- ${OCR} --split @P@.0,@P@.1 --split-shares rate -s 100003 -r 2)
set_tests_properties(cli.split_shares_rate PROPERTIES LABELS multi)
# More devices than elements: the extra ones add nothing, and say so.
cli_test(split_more_devices_than_elements --rc 0 --out "no share: fewer elements than devices" --out "^Test PASSED!$"
         --env "POCL_DEVICES=pthread pthread" --pocl -- ${OCR} --split @P@.0,@P@.1,@P@.0 -s 2 -r 1)
set_tests_properties(cli.split_more_devices_than_elements PROPERTIES LABELS multi)
# A wrong kernel fails the split run (exit 1); a broken one is exit 3, once per device at most.
cli_test(split_wrong_kernel --rc 1 --out "^Test FAILED!$" --no-out "PASSED!"
         --env "POCL_DEVICES=pthread pthread" --pocl -- ${OCR} --split @P@.0,@P@.1 --kernel-dir ${T}/kernels_wrong -n 6 -s 4103 -r 1)
cli_test(split_broken_kernel --rc 3 --err "clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE"
         --env "POCL_DEVICES=pthread pthread" --pocl -- ${OCR} --split @P@.0,@P@.1 --kernel-dir ${T}/kernels_broken -n 6 -s 4103 -r 1)
cli_test(split_no_such_device --rc 3 --err "device 7 does not exist" -- ${OCR} --split 0.0,0.7 -s 4103 -r 1)
set_tests_properties(cli.split_wrong_kernel cli.split_broken_kernel cli.split_no_such_device PROPERTIES LABELS multi)
if(Python3_FOUND)
  ocr_test(multi.split_json LABELS multi PROPERTIES ENVIRONMENT "POCL_DEVICES=pthread pthread" SKIP_RETURN_CODE 77
           COMMAND sh -c ". \"$3\"/select_device.sh; p=$(pocl_platform \"$1\") || skip_test 'needs POCL'; \"$1\" --split $p.0,$p.1 -s 100003 -r 2 --format json | \"$2\" -c 'import json,sys; d=json.load(sys.stdin); assert d[\"split\"] and d[\"passed\"] and d[\"devices\"] == 2, d; assert sum(p[\"elements\"] for p in d[\"parts\"]) == 100003; assert all(p[\"report\"][\"passed\"] for p in d[\"parts\"]); assert d[\"median\"][\"t_kernels_ms\"] > 0 and d[\"bandwidth_e2e_gbs\"] > 0; print(\"ok\")'"
                   sh ${OCR} ${Python3_EXECUTABLE} ${SCRIPTS})
endif()
# Every OpenCL call of a split run failing in turn: exit 3, one message, no hang.
ocr_test(multi.fault LABELS multi fault PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77
         COMMAND ${SCRIPTS}/multi_fault_test.sh ${OCR} $<TARGET_FILE:fault_shim>
         --split @P@.0,@P@.1 -n 7 -s 4103 -r 1 --host-mem pinned)
# The same with the library's reducer: a reducer, context and thread per
# device, the parts combined with ocr_combine (what an application that owns
# its buffers does), every type and operator, bit for bit.
ocr_test(multi.reducer LABELS multi reducer
         PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 ENVIRONMENT "POCL_DEVICES=pthread pthread"
         COMMAND test_split_reducer)
# Options that cannot go with --split or --mpi are refused.
cli_test(split_refuses_device --rc 2 --err "--split chooses the devices itself: drop -d" -- ${OCR} --split all -d 0)
cli_test(split_refuses_csv --rc 2 --err "--split reports text or json, not csv" -- ${OCR} --split all --format csv)
cli_test(split_refuses_passes --rc 2 --err "--passes cannot go with --split" -- ${OCR} --split all --passes)
cli_test(split_bad_list --rc 2 --err "--split takes all or platform.device pairs" -- ${OCR} --split 0.0,)
cli_test(split_shares_alone --rc 2 --err "--split-shares applies only with --split" -- ${OCR} --split-shares rate)
cli_test(split_and_mpi --rc 2 --err "choose one of --split and --mpi" -- ${OCR} --split all --mpi)

# --mpi: only in builds with -DOCR_MPI=ON (CI makes one); elsewhere the option
# says how to get it and the MPI tests are skipped, saying why.
if(OCR_MPI)
  # FindMPI's mpiexec (Open MPI's mpirun): found as /usr/bin/..., not through a
  # merged /bin, from which Open MPI would take "/" for its prefix and refuse.
  set(MPIRUN ${MPIEXEC_EXECUTABLE})
  # As root (CI), Open MPI wants both variables; vader's single-copy path
  # needs ptrace rights that containers often lack.
  set(MPI_ENV "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_btl_vader_single_copy_mechanism=none;MPIRUN=${MPIRUN}")
  # mpi_test(<name> <command>...): an MPI job of at most 3 ranks.
  function(mpi_test name)
    cmake_parse_arguments(PARSE_ARGV 1 A "" "" "")
    ocr_test(${name} LABELS mpi multi PROPERTIES TIMEOUT 180 PROCESSORS 3 ENVIRONMENT "${MPI_ENV}"
             COMMAND ${A_UNPARSED_ARGUMENTS})
  endfunction()
  foreach(np 2 3)
    foreach(spec "int;sum xor" "float;sum max" "double;sum prod")
      list(GET spec 0 ty)
      list(GET spec 1 ops)
      ocr_test(mpi.np${np}.${ty} LABELS mpi multi
               PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600 PROCESSORS ${np} ENVIRONMENT "${MPI_ENV}"
               COMMAND ${MT} mpi ${OCR} ${ty} "${ops}" 1,2,3,1000003 ${np})
    endforeach()
  endforeach()
  # Failures end the job with one message from rank 0 and a non-zero exit,
  # never a hang (timeout: the test fails rather than waits).
  set(ME ${SCRIPTS}/mpi_error_test.sh)
  mpi_test(mpi.error_all_ranks
           ${ME} 3 "rank 0 of 3 failed \\(exit status 3; 3 ranks failed: 0 1 2\\)"
           "clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE" -- ${MPIRUN} --oversubscribe -np 3 ${OCR} --mpi --kernel-dir ${T}/kernels_broken -s 4103 -r 1)
  # One rank fails mid-run (the fault shim fails its third launch): the others
  # do not wait for it.
  mpi_test(mpi.error_one_rank
           ${ME} 3 "rank 2 of 3 failed \\(exit status 3; 1 rank failed: 2\\)"
           "clEnqueueNDRangeKernel failed" -- ${MPIRUN} --oversubscribe -np 2 ${OCR} --mpi -s 100003 -r 2
              : -np 1 -x LD_PRELOAD=$<TARGET_FILE:fault_shim> -x OCR_FAULT=clEnqueueNDRangeKernel:3
              ${OCR} --mpi -s 100003 -r 2)
  # Two hosts: two network namespaces joined by a veth pair, one rank in each
  # (mpirun's rsh agent is `ip netns exec`; TCP over the veth only): the
  # single host's answer, and a rank killed mid-run ends the job. Needs root:
  # elsewhere SKIPPED, saying why (docs/scale.md).
  ocr_test(mpi.two_hosts_netns LABELS mpi multi
           PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 PROCESSORS 2 ENVIRONMENT "${MPI_ENV}"
           COMMAND ${SCRIPTS}/mpi_netns_test.sh ${MPIRUN} ${OCR})
  mpi_test(mpi.wrong_kernel
           ${EXPECT} --rc 1 --out "^Test FAILED!$" --out "FAILED$"
           -- timeout 120 ${MPIRUN} --oversubscribe -np 2 ${OCR} --mpi --kernel-dir ${T}/kernels_wrong -s 4103 -r 1)
  # A usage error is said once (by rank 0), not once per rank.
  mpi_test(mpi.usage_error_once
           sh -c "timeout 120 \"$1\" --oversubscribe -np 3 \"$2\" --mpi --bogus > mpi_usage.txt 2>&1; rc=$?; cat mpi_usage.txt; test $rc = 2 && test $(grep -c 'unknown option --bogus' mpi_usage.txt) = 1"
                   sh ${MPIRUN} ${OCR})
  if(Python3_FOUND) # one JSON object from rank 0, every rank's share in it
    mpi_test(mpi.json
             sh -c "timeout 120 \"$1\" --oversubscribe -np 3 \"$2\" --mpi -s 100003 -r 2 --type double --format json | \"$3\" -c 'import json,sys; d=json.load(sys.stdin); assert d[\"mpi\"] and d[\"passed\"] and d[\"ranks\"] == 3, d; r=d[\"per_rank\"]; assert [x[\"rank\"] for x in r] == [0, 1, 2] and sum(x[\"elements\"] for x in r) == 100003 and all(x[\"passed\"] for x in r); assert d[\"median\"][\"t_gpu_ms\"] > 0; print(\"ok\")'"
                     sh ${MPIRUN} ${OCR} ${Python3_EXECUTABLE})
  endif()
  # Ranks given different options that shape the data or the run stop at
  # once with exit 2, rank 0 naming the option (different -r used to hang;
  # different -s, --type, --seed, --op printed FAILED with garbage).
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
    ocr_test(mpi.agree_${n} LABELS mpi multi
             PROPERTIES TIMEOUT 180 PROCESSORS 2 ENVIRONMENT "${MPI_ENV}"
             COMMAND ${MA} ${MPIRUN} ${OCR} "${what}" "${a}" "${b}")
  endforeach()
  # A bad build option under --mpi: exit 2, said once (by rank 0).
  ocr_test(mpi.build_options_bare_D LABELS mpi multi
           PROPERTIES TIMEOUT 180 PROCESSORS 2 ENVIRONMENT "${MPI_ENV}"
           COMMAND sh -c "timeout 120 \"$1\" --oversubscribe -np 2 \"$2\" --mpi -s 4103 --build-options -D > mpi_bare_d.txt 2>&1; rc=$?; cat mpi_bare_d.txt; test $rc = 2 && test $(grep -c -- '-D needs a macro name' mpi_bare_d.txt) = 1"
                   sh ${MPIRUN} ${OCR})
else()
  ocr_test(mpi.skipped LABELS mpi multi PROPERTIES SKIP_RETURN_CODE 77
           COMMAND sh -c "echo 'SKIPPED: the MPI tests need a build with -DOCR_MPI=ON (and libopenmpi-dev openmpi-bin)'; exit 77")
  cli_test(mpi_not_built --rc 2 --err "--mpi needs a build with MPI: cmake -DOCR_MPI=ON" -- ${OCR} --mpi -s 4103)
  set_tests_properties(cli.mpi_not_built PROPERTIES LABELS multi)
endif()
