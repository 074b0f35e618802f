# The command line, golden: help, usage errors, every exit code, the reports'
# formats, -d all, and the options refused because they cannot take effect.
cli_test(help --rc 0 --golden-out ${G}/help.txt --empty-err -- ${OCR} --help)
cli_test(help_short --rc 0 --golden-out ${G}/help.txt --empty-err -- ${OCR} -h)
cli_test(version --rc 0 --out "^oclReduction [0-9]+\\.[0-9]+\\.[0-9]+$" --empty-err -- ${OCR} --version)
cli_test(unknown_option --rc 2 --golden-err ${G}/unknown_option.txt --no-out . -- ${OCR} --bogus)
cli_test(bad_size --rc 2 --golden-err ${G}/bad_size.txt --no-out . -- ${OCR} -s 12Q)
cli_test(size_overflow --rc 2 --err "invalid value for --size" -- ${OCR} -s 99999999999999999999)
cli_test(size_zero --rc 2 --err "invalid value for --size" -- ${OCR} -s 0)
cli_test(missing_value --rc 2 --err "missing value for -s" -- ${OCR} -s)
cli_test(bad_type --rc 2 --err "unknown type" -- ${OCR} --type int8)
cli_test(bad_op --rc 2 --err "unknown operator" -- ${OCR} --op mean)
cli_test(bitwise_float --rc 2 --err "needs an integer type" -- ${OCR} --type float --op xor)
cli_test(unknown_kernel --rc 2 --err "unknown kernel '9'" -- ${OCR} -n 9)
cli_test(stray_argument --rc 2 --err "unexpected argument" -- ${OCR} 6)
cli_test(list_kernels --rc 0 --out "^reduce0 " --out "^reduce7 " --out "^race_tail " -- ${OCR} --list-kernels)
cli_test(list --rc 0 --out "^Platform 0:" --out "Device 0:" -- ${OCR} --list)
cli_test(explain --rc 0 --out "Plan: 4103 elements" --out "^ +0 +4103 +5 +128 +640 +5$"
         --no-out "Test" -- ${OCR} -n 6 -s 4103 -M 1 --explain)
cli_test(exit0_passed --rc 0 --out "^Test PASSED!$" --out "^T kernels: " --out "^T gpu: "
         --out "^T ref: " --out "^Speedup: " --out "GPU Memory bandwidth: " -- ${OCR} -n 6 -s 4103 -r 2)
# N <= M: no kernel launches, and every format says so instead of a bare PASSED.
cli_test(exit0_all_on_cpu --rc 0 --out "^Test PASSED! \\(no kernel launched: N <= M" --out "Passes: 0"
         --no-out "^Test PASSED!$" -- ${OCR} -n 6 -s 1000 -r 1)
cli_test(no_launch_json --rc 0 --out "\"passes\": 0,.*\"note\": \"no kernel launched: N <= M"
         -- ${OCR} -n 6 -s 1000 -r 1 --format json)
cli_test(no_launch_csv --rc 0 --out ",no kernel launched: N <= M, the CPU did all the work\"?$|,\"no kernel launched"
         -- ${OCR} -n 6 -s 1000 -r 1 --format csv)

# Limits: refused up front, before any input is allocated or filled.
# Both CPU runtimes' allocation limits are lowered to 256 MiB (POCL: a quarter of
# POCL_MEMORY_LIMIT in GiB), so a 512 MiB input is refused on each; Intel's
# natural limit is half the host's memory, where the host check refuses first.
cli_test(limit_max_alloc --rc 3 --err "per buffer \\(CL_DEVICE_MAX_MEM_ALLOC_SIZE\\): use a smaller -s"
         --env POCL_MEMORY_LIMIT=1 --env CL_CONFIG_CPU_FORCE_MAX_MEM_ALLOC_SIZE=256MB --device-matching "max allocation 256 MiB"
         -- ${OCR} -s 64M --type double)
set_tests_properties(cli.limit_max_alloc PROPERTIES TIMEOUT 20)
if(NOT OCR_SANITIZE) # ASan reserves more address space than such a limit allows
  ocr_test(cli.limit_host_memory LABELS quick cli PROPERTIES TIMEOUT 20 SKIP_RETURN_CODE 77
           COMMAND ${EXPECT} --rc 3 --err "of host memory .*available: use a smaller -s"
           --ulimit-v 2000000 -- ${OCR} -n 7 -s 256M)
endif()

cli_test(exit3_no_platform --rc 3 --err "no OpenCL platform found" --err "pocl-opencl-icd"
         --hide-platforms ${CMAKE_CURRENT_BINARY_DIR}/no_icds -- ${OCR} -n 6 -s 4103)
cli_test(exit3_no_device_of_type --rc 3 --err "no OpenCL device of type accelerator"
         -- ${OCR} -t accelerator -s 4103)
cli_test(exit3_no_such_device --rc 3 --err "device 99 does not exist" -- ${OCR} -d 99 -s 4103)

# Machine-readable reports: CSV has its header and one row, JSON parses and
# carries every documented field.
cli_test(format_csv --rc 0 --out "^kernel,type,op,n,m,seed,device," --out "^reduce6,int,sum,4103,"
         -- ${OCR} -n 6 -s 4103 -r 2 --format csv)
ocr_test(cli.format_csv_rows LABELS quick cli
         COMMAND sh -c "test $(\"$1\" -n 6 -s 4103 -r 1 --format csv | wc -l) -eq 2" sh ${OCR})
if(Python3_FOUND)
  ocr_test(cli.format_json LABELS quick cli
           COMMAND sh -c "\"$1\" -n 6 -s 4103 -r 2 --cpu-baseline best --format json | \"$2\" \"$3\""
                   sh ${OCR} ${Python3_EXECUTABLE} ${SCRIPTS}/check_json.py)
endif()
cli_test(device_all --rc 0 --out "^Comparison \\(reduce6, 4103 elements\\):" --out " PASSED$"
         -- ${OCR} -d all -s 4103 -r 1)
cli_test(device_all_no_platform --rc 3 --err "no OpenCL platform found"
         --hide-platforms ${CMAKE_CURRENT_BINARY_DIR}/no_icds -- ${OCR} -d all -s 4103)
cli_test(cpu_baseline_best --rc 0 --out "^T best CPU: .* threads, SIMD" --out "vs best CPU"
         -- ${OCR} -n 7 -s 100000 -r 2 --cpu-baseline best)
foreach(h pageable pinned zero-copy)
  cli_test(host_mem_${h} --rc 0 --out "host memory: ${h}$" --out "^Test PASSED!$"
           -- ${OCR} -n 7 -s 100003 -r 2 --host-mem ${h})
endforeach()
# A device without double precision: --type double is refused clearly (exit 3).
cli_test(no_fp64 --rc 3 --err "does not support double precision"
         --env OCR_FAULT_NO_FP64=1 --env LD_PRELOAD=$<TARGET_FILE:fault_shim>
         --env ASAN_OPTIONS=verify_asan_link_order=0 -- ${OCR} --type double -s 4103)

# --- bad input, as a hostile user would try it: each refused or reported once.
# A report that cannot be written fails the run (a CI job would lose it).
ocr_test(cli.write_error LABELS quick cli
         COMMAND ${EXPECT} --rc 3 --err "^oclReduction: cannot write the report to standard output: No space left on device$"
         -- sh -c "exec \"$0\" -s 1000 -r 1 >/dev/full" ${OCR})
# Options that cannot take effect are refused (exit 2), never silently ignored.
cli_test(refuse_groups_reduce6 --rc 2 --err "--groups applies only to reduce7, not reduce6" -- ${OCR} -n 6 -g 4)
cli_test(refuse_access_reduce3 --rc 2 --err "--access applies only to reduce7, not reduce3" -- ${OCR} -n 3 --access blocked)
cli_test(refuse_groups_kernel_file --rc 2 --err "--groups applies only to reduce7, not a --kernel-file kernel"
         -- ${OCR} --kernel-file ${KV}/constant.cl --kernel-name write_42 --elems-per-group 1024 -g 2)
cli_test(refuse_kernel_name_alone --rc 2 --err "--kernel-name applies only with --kernel-file" -- ${OCR} --kernel-name f)
cli_test(refuse_epg_alone --rc 2 --err "--elems-per-group applies only with --kernel-file" -- ${OCR} --elems-per-group 64)
cli_test(refuse_n_with_kernel_file --rc 2 --err "-n names a built-in kernel, so it cannot go with --kernel-file"
         -- ${OCR} -n 3 --kernel-file ${KV}/constant.cl --kernel-name write_42 --elems-per-group 1024)
cli_test(refuse_device_all_and_index --rc 2 --err "choose one of -d all and -d N" -- ${OCR} -d all -d 0)
cli_test(refuse_explain_json --rc 2 --err "--explain prints text only" -- ${OCR} --explain --format json)
cli_test(refuse_build_options_newline --rc 2 --err "--build-options takes printable ASCII on one line"
         -- ${OCR} -n 7 "--build-options=-D A=1\n")
cli_test(refuse_data_unknown --rc 2 --err "unknown value for --data" -- ${OCR} --data random)
cli_test(refuse_passes_json --rc 2 --err "--passes, --resources and --peak print text" -- ${OCR} --passes --format json)
# --build-options reach the build and the report.
cli_test(build_options_echoed --rc 0 --out "^Build options added: -cl-mad-enable$" --out "^Test PASSED!$"
         -- ${OCR} -n 7 -s 4103 -r 1 --build-options -cl-mad-enable)
if(Python3_FOUND)
  # Non-finite numbers are null in JSON: a kernel that answers NaN.
  ocr_test(cli.json_nan_is_null LABELS quick cli
           COMMAND sh -c "\"$1\" --kernel-file \"$2\" --kernel-name write_42 --elems-per-group 1024 -s 4103 -r 1 --type float --build-options \"-D VALUE=NAN\" --format json > out.json; test $? = 1 && grep -q '\"err_ulps\": null' out.json && \"$3\" \"$4\" < out.json"
                   sh ${OCR} ${KV}/constant.cl ${Python3_EXECUTABLE} ${SJ})
  # -d all: one JSON array (an element per device, errors included); -p restricts it.
  ocr_test(cli.device_all_json LABELS quick cli
           COMMAND sh -c "\"$1\" -d all -s 4103 -r 1 --format json | \"$2\" \"$3\" --array $(\"$1\" --list | grep -c '  Device ')"
                   sh ${OCR} ${Python3_EXECUTABLE} ${SJ})
  ocr_test(cli.device_all_json_failed_device LABELS quick cli
           COMMAND sh -c "ASAN_OPTIONS=\"$ASAN_OPTIONS:verify_asan_link_order=0\" OCR_FAULT=clCreateContext:1 LD_PRELOAD=\"$4\" \"$1\" -d all -s 4103 -r 1 --format json | \"$2\" \"$3\" --array $(\"$1\" --list | grep -c '  Device ')"
                   sh ${OCR} ${Python3_EXECUTABLE} ${SJ} $<TARGET_FILE:fault_shim>)
endif()
cli_test(device_all_csv_header_first_fails --rc 3 --out "^kernel,type,op,n," --err "clCreateContext failed"
         --env OCR_FAULT=clCreateContext:1 --env LD_PRELOAD=$<TARGET_FILE:fault_shim> --env ASAN_OPTIONS=verify_asan_link_order=0
         -- ${OCR} -d all -s 4103 -r 1 --format csv)
cli_test(device_all_platform --rc 0 --out "^0\\.0 " --no-out "^1\\.0 " -- ${OCR} -p 0 -d all -s 4103 -r 1)
cli_test(device_all_no_such_platform --rc 3 --err "no OpenCL device found on that platform" -- ${OCR} -p 7 -d all -s 4103 -r 1)
# docs/output.md's option list is --help's.
ocr_test(cli.options_page LABELS quick cli docs
         COMMAND ${SCRIPTS}/options_page_test.sh ${OCR} ${PROJECT_SOURCE_DIR}/docs/output.md)

# --- the tutorial's figures in its own definitions, ours under our labels;
# per-launch timing, the resources report and the copy rate.
if(Python3_FOUND)
  foreach(t "int;4" "double;8")
    list(GET t 0 ty)
    list(GET t 1 es)
    ocr_test(cli.tutorial_figures_${ty} LABELS quick cli
             COMMAND sh -c "\"$1\" -n 4 -s 1000003 -r 3 --type $2 | \"$3\" \"$4\" 1000003 $5"
                     sh ${OCR} ${ty} ${Python3_EXECUTABLE} ${SCRIPTS}/tutorial_text.py ${es})
  endforeach()
endif()
cli_test(passes_table --rc 0 --out "^Passes \\(medians of 3 runs" --out "^ +0 +131072 +128 +1048576 +1024 "
         --out "^ +1 +128 +128 +1024 +1 " --out "^  host clock: T wall .* not in any event"
         -- ${OCR} -n 6 -s 1M -M 1 -r 3 --passes)
cli_test(resources_cpu --rc 0 --out "^Resources of reduce5 on " --out "^  work-group size: 128 \\(the compiled kernel allows [0-9]+, preferred multiple [0-9]+\\)$"
         --out "^  local memory per group: [0-9]+ bytes$" --out "^  occupancy: the device does not report"
         --device-matching "\\[CPU\\]" -- ${OCR} -n 5 -s 4103 -r 1 --resources)
cli_test(peak_copy_rate --rc 0 --out "^Copy rate: [0-9.]+ GB/s \\(cl/copy.cl over 4194304 bytes" --out "^Bandwidth read: [0-9.]+% of the copy rate$"
         -- ${OCR} -n 7 -s 1M -r 3 --peak)
