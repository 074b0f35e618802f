# issue 27: argmin and argmax (--op argmin|argmax): refused where they cannot
# run, wrong kernels FAIL, and oclgrind on the keys' kernels. The kernel matrix
# (kernels.cmake, "all all") runs them on every ladder kernel and type; the
# Python tests (python.cmake) compare the program and the package with NumPy.
cli_test(arg_split --rc 2 --err "--split finds no argmin or argmax" --no-out .
         -- ${OCR} --op argmax --split all -s 1000)
cli_test(arg_stream --rc 2 --err "--stream finds no argmin or argmax" --no-out .
         -- ${OCR} --op argmin --stream -s 1000)
cli_test(arg_kernel_file --rc 2 --err "needs a kernel that keeps indices" --no-out .
         -- ${OCR} --op argmax --kernel-file ${PROJECT_SOURCE_DIR}/cl/reduce2.cl
         --kernel-name reduce2 --elems-per-group 1024)
cli_test(arg_lab_kernel --rc 2 --err "needs a kernel that keeps indices \\(reduce0..reduce7\\), not race_tail"
         --no-out . -- ${OCR} --op argmax -n race_tail)
cli_test(arg_text --rc 0 --out "^Result: 30 at index [0-9]+ \\(reference 30 at index [0-9]+, exact\\)$"
         --out "^Test PASSED!$" -- ${OCR} --op argmax --type float -s 1000003 -r 1)

# Kernels that get the ties or the ends wrong must FAIL: copies of cl/ with one
# mistake each, run through --kernel-dir (the built-in kernels, miswritten).
# arg_mutant_dir(<dir> <file> <from> <to>): cl/ copied to <dir>, <from>
# replaced by <to> in <file>.
function(arg_mutant_dir dir file from to)
  file(COPY ${PROJECT_SOURCE_DIR}/cl/ DESTINATION ${dir})
  file(READ ${dir}/${file} text)
  string(FIND "${text}" "${from}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "arg mutant ${dir}: '${from}' not in cl/${file}")
  endif()
  string(REPLACE "${from}" "${to}" text "${text}")
  file(WRITE ${dir}/${file} "${text}")
endfunction()
function(arg_mutant name from to)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/arg_mutants/${name})
  arg_mutant_dir(${dir} reduce_common.h "${from}" "${to}")
  foreach(k 2 6)
    cli_test(arg_mutant_${name}_reduce${k} --rc 1 --out "^Test FAILED!$"
             -- ${OCR} --kernel-dir ${dir} -n ${k} --op ${ARGN} -s 100003 -r 1)
  endforeach()
  # reduce7's first pass compares values within a lane: keys meet where
  # lanes and work-items do, on the device (-M 1; a CPU's blocked walk leaves
  # one key per work-item to the host) and in the strided lanes.
  cli_test(arg_mutant_${name}_reduce7 --rc 1 --out "^Test FAILED!$"
           -- ${OCR} --kernel-dir ${dir} -n 7 -M 1 --op ${ARGN} -s 100003 -r 1)
  cli_test(arg_mutant_${name}_reduce7_strided --rc 1 --out "^Test FAILED!$"
           -- ${OCR} --kernel-dir ${dir} -n 7 --access strided --op ${ARGN} -s 100003 -r 1)
endfunction()
# the last of equal values instead of the first
arg_mutant(last_tie "b.y < a.y" "b.y > a.y" argmax --type int)
# the index of the element dropped from the key (every key at index 0)
arg_mutant(no_index "return (T)((ulong)o, i);" "return (T)((ulong)o, 0);" argmin --type float)
# (-0.0 told apart from +0.0: the program's data never make zero the extreme;
# python/tests/test_arg.py catches that mutant with data that do.)

if(OCLGRIND)
  foreach(k 0 3 6 7)
    foreach(n 37 4103)
      ocr_test(oclgrind.arg.reduce${k}.${n} LABELS oclgrind
               COMMAND ${OG} 0 ${OCR} -n ${k} -s ${n} -M 1 -r 1 --op argmax --type float)
    endforeach()
  endforeach()
  ocr_test(oclgrind.arg.reduce7.blocked LABELS oclgrind
           COMMAND ${OG} 0 ${OCR} -n 7 -s 4103 -M 1 -r 1 --op argmin --type long --access blocked)
endif()
