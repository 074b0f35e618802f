# --build-options: a bare -D, -I or -U is a usage error before any compiler
# sees it (POCL's option parser crashed on them: exit 139), in every mode; a
# name the kernels are built with is refused; good options reach the build.
# (The one-line rule and the report's echo: cli.cmake.)

# build_options_test(<name> <expect.sh arguments>): cli.build_options_<name>.
function(build_options_test name)
  cmake_parse_arguments(PARSE_ARGV 1 A "" "" "")
  cli_test(build_options_${name} ${A_UNPARSED_ARGUMENTS})
  set_tests_properties(cli.build_options_${name} PROPERTIES TIMEOUT 120)
endfunction()

foreach(spec "bare_D|-D" "bare_I|-I" "bare_U|-U" "D_space|-D " "DA_D|-DA -D" "D_DA|-D -DA")
  string(REPLACE "|" ";" f "${spec}")
  list(GET f 0 n)
  list(GET f 1 o)
  build_options_test(${n} --rc 2 --err "build options \"${o}\": (-D|-I|-U) needs"
                     --err "Try 'oclReduction --help'" --no-out . -- ${OCR} -n 7 -s 5003 --build-options "${o}")
endforeach()
set(KF --kernel-file ${PROJECT_SOURCE_DIR}/docs/labs/starter.cl --kernel-name my_reduce --elems-per-group 1024)
build_options_test(stream --rc 2 --err "-D needs a macro name" -- ${OCR} --stream -s 5003 --build-options "-DA -D")
build_options_test(all --rc 2 --err "-D needs a macro name" -- ${OCR} -d all -s 5003 --build-options "-D")
build_options_test(split --rc 2 --err "-I needs a directory" --env "POCL_DEVICES=pthread pthread"
                   -- ${OCR} --split all -s 5003 --build-options "-I")
build_options_test(grade --rc 2 --err "-D needs a macro name" -- ${OCR} --grade ${KF} --build-options "-D ")
build_options_test(kernel_file --rc 2 --err "-U needs a macro name" -- ${OCR} ${KF} -s 5003 --build-options "-U")
# A -D or -U of a name the kernels are built with is refused (exit 2), in the
# single run and the grader: -DOCR_IDENTITY=5 made an int sum 4788 for 4103.
# The library's list covers every name in cl/ and the host's -D options.
build_options_test(reserved --rc 2 --err "-D OCR_IDENTITY: the kernels are built with that name"
                   --no-out . -- ${OCR} -n 6 -s 4103 -r 1 --build-options "-DOCR_IDENTITY=5")
build_options_test(reserved_quoted --rc 2 --err "-D LOCAL_SIZE: the kernels are built with"
                   --no-out . -- ${OCR} -n 7 -s 4103 -r 1 --build-options "-D \"LOCAL_SIZE=3\"")
build_options_test(reserved_grade --rc 2 --err "-D T: the kernels are built with that name"
                   -- ${OCR} --grade ${KF} --build-options "-D T=float")
# OpenCL C itself (the library's second list, every create call's): a
# keyword, a type or a built-in the kernels use; -Dfloat=int made a custom
# float sum -3.6e24 with OCR_OK.
build_options_test(opencl_type --rc 2 --err "-D float: that is an OpenCL C keyword, type or built-in"
                   --no-out . -- ${OCR} -n 6 -s 4103 -r 1 --build-options "-Dfloat=int")
build_options_test(opencl_barrier --rc 2 --err "-D barrier: that is an OpenCL C keyword"
                   --no-out . -- ${OCR} -n 7 -s 4103 -r 1 --build-options "-D barrier(x)=mem_fence(x)")
build_options_test(opencl_grade --rc 2 --err "-U get_global_id: that is an OpenCL C keyword"
                   -- ${OCR} --grade ${KF} --build-options "-Uget_global_id")
ocr_test(cli.build_options_reserved_all LABELS quick cli PROPERTIES TIMEOUT 300
         COMMAND ${SCRIPTS}/reserved_names_test.sh ${OCR} ${PROJECT_SOURCE_DIR})
build_options_test(good --rc 0 --out "^Test PASSED!$" --out "^Build options added: -DA -D B=2 -I /tmp$"
                   -- ${OCR} -n 6 -s 5003 -r 1 --build-options "-DA -D B=2 -I /tmp")
