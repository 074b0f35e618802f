# Programs and where they come from: kernel directories and files that cannot
# be used, kernel-file limits and signatures, build options, the kernel
# search, platform loading, big kernel files, oclgrind's quoted lines.
cli_test(exit1_wrong_kernel --rc 1 --out "^Test FAILED!$" --no-out "PASSED"
         -- ${OCR} --kernel-dir ${T}/kernels_wrong -n 6 -s 4103 -r 1)
cli_test(exit1_env_kernel_dir --rc 1 --out "^Test FAILED!$" --env OCLREDUCTION_KERNEL_DIR=${T}/kernels_wrong
         -- ${OCR} -n 6 -s 4103 -r 1)
cli_test(exit3_build_failure --rc 3 --err "building .*kernels_broken/reduce6.cl failed"
         --err "build options: -D OCR_T=int" --err "this_is_not_declared"
         --err "clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE" -- ${OCR} --kernel-dir ${T}/kernels_broken -n 6 -s 4103)
cli_test(exit3_missing_kernel --rc 3 --err "kernel file reduce6.cl not found. Searched:"
         --err "/nonexistent/reduce6.cl +\\(--kernel-dir\\)" -- ${OCR} --kernel-dir /nonexistent -n 6)
# Kernel files that cannot be used: each its own message, all exit 3.
cli_test(kernel_file_missing --rc 3 --err "cannot open kernel file ${KB}/absent.cl: No such file or directory"
         -- ${OCR} --kernel-file ${KB}/absent.cl ${UK})
cli_test(kernel_file_empty --rc 3 --err "kernel file ${KB}/empty.cl is empty" -- ${OCR} --kernel-file ${KB}/empty.cl ${UK})
cli_test(kernel_file_not_regular --rc 3 --err "kernel file ${KB} is not a regular file" -- ${OCR} --kernel-file ${KB} ${UK})
cli_test(kernel_file_not_opencl --rc 3 --err "building ${KB}/not_opencl.cl failed" --err "build log:"
         -- ${OCR} --kernel-file ${KB}/not_opencl.cl ${UK})
cli_test(kernel_name_absent --rc 3 --err "starter.cl has no kernel named 'nope'"
         -- ${OCR} --kernel-file ${PROJECT_SOURCE_DIR}/docs/labs/starter.cl --kernel-name nope --elems-per-group 1024 -s 4103)
ocr_test(cli.kernel_file_unreadable LABELS quick cli
         COMMAND ${SCRIPTS}/unreadable_test.sh ${OCR} ${PROJECT_SOURCE_DIR})
cli_test(student_kernel --rc 0 --out "^Test PASSED!$"
         -- ${OCR} --kernel-file ${PROJECT_SOURCE_DIR}/docs/labs/starter.cl --kernel-name my_reduce --elems-per-group 1024 -s 4103 -r 1)

# Kernel-file limits come from the built kernel: the starter uses no local
# memory, so any group size of elements fits; one that does need more local
# memory than the device has is refused with the device's numbers.
cli_test(kernel_file_no_local_memory_guess --rc 0 --out "^Test PASSED!$"
         -- ${OCR} --kernel-file ${PROJECT_SOURCE_DIR}/docs/labs/starter.cl --kernel-name my_reduce
         --elems-per-group 1048576 -s 4103 -r 1)
cli_test(kernel_file_local_memory_refused --rc 3 --no-out "Test"
         --err "^oclReduction: k uses 4194304 bytes of local memory per work-group \\(CL_KERNEL_LOCAL_MEM_SIZE\\). .* has [0-9]+ \\(CL_DEVICE_LOCAL_MEM_SIZE\\)$|ptxas.*too much shared"
         -- ${OCR} --kernel-file ${KS}/big_local.cl --kernel-name k --elems-per-group 1048576 -s 4103 -r 1)
cli_test(kernel_file_local_memory_fits --rc 0 --out "^Test PASSED!$"
         -- ${OCR} --kernel-file ${KS}/big_local.cl --kernel-name k --elems-per-group 1024 -s 4103 -r 1)
# A kernel file whose arguments do not fit the harness: named as such, exit 3.
set(SIG "Its signature must be __kernel void k\\(__global const T \\*in, __global T \\*out, const ulong n\\)")
cli_test(kernel_file_signature_two_args --rc 3 --err "two_args.cl: kernel 'k' does not fit the harness: it takes 2 arguments, not 3"
         --err "${SIG}" --no-err "clSetKernelArg" -- ${OCR} --kernel-file ${KS}/two_args.cl ${UK})
cli_test(kernel_file_signature_local_out --rc 3 --err "argument 1 \\(the output\\) is __local. it must be a __global pointer"
         --err "${SIG}" -- ${OCR} --kernel-file ${KS}/local_out.cl ${UK})
cli_test(kernel_file_signature_uint_n --rc 3 --err "argument 2 \\(n\\) is (uint. it must be ulong|not a 64-bit value)"
         --err "${SIG}" -- ${OCR} --kernel-file ${KS}/uint_n.cl ${UK})
cli_test(kernel_file_signature_double_n --rc 3 --err "argument 2 \\(n\\) is double. it must be ulong"
         --err "${SIG}" -- ${OCR} --kernel-file ${KS}/double_n.cl ${UK})
cli_test(kernel_file_signature_wrong_type --rc 3 --err "argument 0 \\(the input\\) is float\\*, but the data are int \\(--type\\)"
         --err "${SIG}" -- ${OCR} --kernel-file ${KS}/float_in.cl ${UK})
cli_test(kernel_file_signature_right_type --rc 0 --out "^Test PASSED!$"
         -- ${OCR} --kernel-file ${KS}/float_in.cl ${UK} --type float)
# Build options the compiler rejects: one message naming them (POCL answers
# CL_INVALID_BUILD_OPTIONS, clang-based compilers may fail the build instead).
cli_test(build_options_rejected --rc 3 --err "(rejected the build options for .*reduce7.cl \\(CL_INVALID_BUILD_OPTIONS\\)|building .*reduce7.cl failed)"
         --err "-cl-no-such-option" --no-err "clBuildProgram failed: CL_INVALID_BUILD_OPTIONS"
         -- ${OCR} -n 7 -s 4103 -r 1 --build-options -cl-no-such-option)
cli_test(kernel_file_build_failure_options --rc 3 --err "building ${KB}/not_opencl.cl failed"
         --err "build options: .*-cl-kernel-arg-info -D EXTRA=1$" --err "build log:"
         -- ${OCR} --kernel-file ${KB}/not_opencl.cl ${UK} --build-options "-D EXTRA=1")
# $OCLREDUCTION_KERNEL_DIR that cannot be used: one warning, then the fallback.
cli_test(env_kernel_dir_missing --rc 0 --out "^Test PASSED!$"
         --err "^oclReduction: warning: OCLREDUCTION_KERNEL_DIR=/nonexistent/cl does not exist. using /.+$"
         --env OCLREDUCTION_KERNEL_DIR=/nonexistent/cl -- ${OCR} -n 7 -s 4103 -r 1)
cli_test(env_kernel_dir_not_a_directory --rc 0 --out "^Test PASSED!$"
         --err "^oclReduction: warning: OCLREDUCTION_KERNEL_DIR=${EXPECT} is not a directory. using /.+$"
         --env OCLREDUCTION_KERNEL_DIR=${EXPECT} -- ${OCR} --kernel-file ${PROJECT_SOURCE_DIR}/docs/labs/starter.cl
         --kernel-name my_reduce --elems-per-group 1024 -s 4103 -r 1)
# Unreadable is not "not found": a kernel directory, a kernel file, an include.
ocr_test(cli.kernel_dir_unreadable LABELS quick cli PROPERTIES SKIP_RETURN_CODE 77
         COMMAND ${SCRIPTS}/unreadable_dir_test.sh ${OCR} ${PROJECT_SOURCE_DIR})
# Kernel files far larger than real ones: expansion is linear (one run of the
# old quadratic one took 49 s on the shared 2-core machine, the new 0.1 s, so
# the TIMEOUT tells them apart), and running out of host memory while
# expanding is one message.
ocr_test(cli.kernel_file_8mib LABELS quick cli PROPERTIES TIMEOUT 30
         COMMAND ${SCRIPTS}/big_kernel_test.sh linear ${OCR} ${PROJECT_SOURCE_DIR})
if(NOT OCR_SANITIZE) # ASan reserves more address space than these limits allow
  ocr_test(cli.kernel_file_out_of_memory LABELS quick cli PROPERTIES TIMEOUT 60 SKIP_RETURN_CODE 77
           COMMAND ${SCRIPTS}/big_kernel_test.sh oom ${OCR} ${PROJECT_SOURCE_DIR})
  # A registered driver that cannot be loaded (POCL maps a few hundred MiB; the
  # program itself runs in 5 MiB) is not "install pocl".
  ocr_test(cli.exit3_platform_not_loadable LABELS quick cli PROPERTIES TIMEOUT 20
           COMMAND ${EXPECT} --rc 3
           --err "^oclReduction: no OpenCL platform could be loaded, although [0-9]+ drivers? (is|are) registered: .*(\\.icd \\(.+\\)|\\.so)"
           --err "ulimit -v 50000" --no-err "pocl-opencl-icd"
           -- sh -c "ulimit -v 50000 && exec \"$0\" -n 6 -s 4103" ${OCR})
endif()
if(OCLGRIND)
  # Under oclgrind the quoted source line is the line the report names.
  ocr_test(oclgrind.quoted_lines_match LABELS oclgrind lab
           COMMAND ${SCRIPTS}/oclgrind_quote_test.sh ${OCR} ${PROJECT_SOURCE_DIR})
  # ... and a user kernel under oclgrind still has its arguments checked.
  ocr_test(oclgrind.kernel_file_signature LABELS oclgrind
           COMMAND ${EXPECT} --rc 3 --err "does not fit the harness: it takes 2 arguments"
           -- ${OCLGRIND} ${OCR} --kernel-file ${KS}/two_args.cl ${UK})
endif()
