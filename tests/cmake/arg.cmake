# argmin and argmax (--op argmin|argmax): refused where they cannot
# run, wrong kernels FAIL, and oclgrind on the keys' kernels. The kernel matrix
# (ladder.cmake, "all all") runs them on every ladder kernel and type; the
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
# mistake each (mutant_dir), run through --kernel-dir (the built-in kernels,
# miswritten).
function(arg_mutant name from to)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/arg_mutants/${name})
  mutant_dir(${dir} reduce_common.h "${from}" "${to}")
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
# tests/python/test_arg.py catches that mutant with data that do.)

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

# The first pass's lanes keep values, not keys (cl/reduce7.cl): test_arg runs
# reduce7's argmin and argmax, every type (the small ones too), on data made for that (ties across
# lanes and groups, the extreme alone in the head or the tail, all equal, all
# the worst value, all NaN, NaN first or last, +-0.0, random bits), at
# offsets 0, 1 and VEC - 1, against an exact host reference; both access
# patterns, the default grid, a single work-item, and small odd grids.
add_executable(test_arg ${UNIT}/run/test_arg.c)
target_link_libraries(test_arg PRIVATE oclreduction m)
target_link_libraries(test_arg PRIVATE ocr_private_headers) # ocr_pass_enqueue
foreach(geom strided strided:1:1 strided:4:3 strided:64:5 blocked blocked:1:1 blocked:4:3)
  string(REPLACE ":" "_" tag ${geom})
  ocr_test(arg.lanes.${tag} LABELS quick kernel PROPERTIES TIMEOUT 600
           COMMAND test_arg ${PROJECT_SOURCE_DIR}/cl ${geom} all)
endforeach()
# The same under oclgrind (in bounds, race-free, nothing uninitialized), at
# two sizes (TEST_ARG_N): 9, and 257 (work-items with no vector at 64:5).
if(OCLGRIND)
  foreach(geom strided:4:3 strided:64:5 blocked:4:3)
    string(REPLACE ":" "_" tag ${geom})
    foreach(n 9 257)
      ocr_test(oclgrind.arg.lanes.${tag}.${n} LABELS oclgrind PROPERTIES ENVIRONMENT TEST_ARG_N=${n}
               COMMAND ${OG} 0 $<TARGET_FILE:test_arg> ${PROJECT_SOURCE_DIR}/cl ${geom} all 1)
    endforeach()
  endforeach()
endif()

# The lanes, miswritten (cl/reduce_common.h, cl/reduce7.cl): test_arg FAILS
# on each copy, in the geometries given (GEOM TYPES pairs; one seed), which
# arg.lanes.* pass with the true kernels. A wrong first index or an empty
# lane's phantom key never changes the answer (the first element, or a
# better one, beats it): only the groups' keys show them.
function(arg_lane_mutant name file from to)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/arg_lane_mutants/${name})
  mutant_dir(${dir} ${file} "${from}" "${to}")
  set(args ${ARGN})
  while(args)
    list(POP_FRONT args geom types)
    string(REPLACE ":" "_" tag ${geom})
    ocr_test(arg.lanes.mutant_${name}.${tag} LABELS quick kernel
             COMMAND ${EXPECT} --rc 1 --out "^FAIL " --out "^test_arg: [0-9]+ checks, [1-9][0-9]* failed$"
             -- $<TARGET_FILE:test_arg> ${dir} ${geom} ${types} 1)
  endwhile()
endfunction()
set(H reduce_common.h)
# equal values: the last instead of the first (ints, floats)
arg_lane_mutant(last_tie_int ${H} "OCR_ARG_BETTER(v, b) ((v) > (b))" "OCR_ARG_BETTER(v, b) ((v) >= (b))"
                strided:4:3 int,ulong blocked:4:3 long)
arg_lane_mutant(last_tie_float ${H} "(!((v) <= (b)) && !isnan(b))" "(!((v) < (b)) && !isnan(b))"
                strided:4:3 float blocked double)
# NaN: never taken; taken but not kept
arg_lane_mutant(nan_loses ${H} "(!((v) >= (b)) && !isnan(b))" "((v) < (b))"
                strided:4:3 float,double blocked:1:1 float)
arg_lane_mutant(nan_not_kept ${H} "(!((v) <= (b)) && !isnan(b))" "(!((v) <= (b)))"
                strided:4:3 double blocked:1:1 float)
# the value lanes start from: not the worst
arg_lane_mutant(worst_int ${H} "(VU)(OCR_ARG_VSIGNED ? VSIGN : 0)" "(VU)0" strided:4:3 int,long)
arg_lane_mutant(worst_float ${H} "((V)(-INFINITY))" "((V)(-FLT_MAX))" blocked:4:3 float,double)
# the index lanes start from: not their first (strided, blocked)
arg_lane_mutant(first_index reduce7.cl "ulong bj0 = i, bj1 = i;" "ulong bj0 = 0, bj1 = i;"
                strided:4:3 float,long)
arg_lane_mutant(first_index_blocked reduce7.cl "ulong bi = begin;" "ulong bi = 0;"
                blocked:4:3 uint,double)
# a lane that saw nothing keyed anyway (strided, blocked)
arg_lane_mutant(empty_lane reduce7.cl "if (get_global_id(0) < nv) {" "if (1) {"
                strided:4:3 int,double)
arg_lane_mutant(empty_lane_blocked reduce7.cl "if (begin < end)" "if (1)" blocked:4:3 float,ulong)
# the index made at the end: without the head, without the lane
arg_lane_mutant(key_no_head reduce7.cl "head + bj##k * VEC + (k)" "bj##k * VEC + (k)"
                strided:1:1 float,long)
arg_lane_mutant(key_no_lane reduce7.cl "head + bj##k * VEC + (k)" "head + bj##k * VEC"
                strided:64:5 int,double)
# the unrolled loads' vector index; the head and tail short of a step
arg_lane_mutant(unrolled_index reduce7.cl "FOLD(v[u], i + u * stride);" "FOLD(v[u], i);"
                strided:1:1 int,double)
arg_lane_mutant(tail_steps reduce7.cl "u < VEC - 1; ++u) {" "u < VEC - 2; ++u) {"
                strided:4:3 float,ulong)
# small types (test_arg's whole battery runs on them): half's keys ordered as
# signed integers; small integers' keys without the sign flip; the lanes'
# start for small integers the type's 0 instead of its minimum
arg_lane_mutant(small_half_order ${H} "VU o = (b & VSIGN) ? (VU)~b : (VU)(b | VSIGN);"
                "VU o = b ^ VSIGN;" strided:4:3 half blocked:4:3 half)
arg_lane_mutant(small_int_sign ${H} "VU o = OCR_CAT(as_, OCR_ARG_VU)(v) ^ VSIGN;"
                "VU o = OCR_CAT(as_, OCR_ARG_VU)(v);" strided:4:3 char,short blocked:4:3 char)
arg_lane_mutant(small_worst_int ${H} "(VU)(OCR_ARG_VSIGNED ? VSIGN : 0)" "(VU)0"
                strided:4:3 char,short)
