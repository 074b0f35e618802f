# The kernels: reduce7's two access patterns at the edge sizes (EDGE_SIZES, the
# index's) and every type and operator, under oclgrind, drawn at random, at
# tiny geometries and with its one-launch finish; 64-bit indexing. Every
# kernel of the ladder at the edge sizes, every type and operator, once at the
# default size and under oclgrind: ladder.cmake.

# reduce7 has two access patterns (strided for GPUs, blocked for CPUs): both run
# here whatever the device, so POCL checks the GPU path too.
foreach(a strided blocked)
  ocr_test(kernel.reduce7.${a}.int_sum LABELS quick kernel
           COMMAND test_kernels matrix reduce7:${a} int sum ${EDGE_SIZES})
  ocr_test(kernel.reduce7.${a}.types LABELS types kernel
           COMMAND test_kernels matrix reduce7:${a} all all 3,4103,65536)
endforeach()
# --- oclgrind: reduce7's blocked loads (every kernel of the ladder: ladder.cmake).
if(OCLGRIND)
  foreach(n 37 4103)
    ocr_test(oclgrind.reduce7.blocked.${n} LABELS oclgrind
             COMMAND ${OG} 0 ${OCR} -n 7 -s ${n} -M 1 -r 1 --access blocked)
  endforeach()
endif()

# --- randomized cross-check: (kernel, type, op, N <= 2^22, seed, M, L) drawn
# from fixed seeds; a failure prints the oclReduction command that replays it.
foreach(seed 1 2 3)
  ocr_test(random.seed${seed} LABELS random COMMAND test_kernels random ${seed} 40)
endforeach()

# 64-bit index arithmetic in every kernel (inputs past 2^31 elements).
ocr_test(kernel.index_width LABELS quick kernel COMMAND ${SCRIPTS}/index_width_test.sh ${PROJECT_SOURCE_DIR})

# reduce7 at grids smaller than one vector (-w 1, 2 and -g 1, 2), both access
# patterns; a work-group size its tree cannot take is refused before any run.
foreach(a strided blocked)
  foreach(w 1 2)
    foreach(g 1 2)
      ocr_test(kernel.reduce7.${a}.w${w}.g${g} LABELS quick kernel
               COMMAND test_kernels matrix reduce7:${a}:${w}:${g} int,float sum 3,1027,100003)
    endforeach()
  endforeach()
  cli_test(reduce7_${a}_w3_refused --rc 2 --err "reduce7 needs a power-of-two work-group size, not 3"
           --no-out . -- ${OCR} -n 7 --access ${a} -w 3 -s 1027 -r 1)
endforeach()
# The randomized cross-check on reduce7 alone, half its draws tiny grids (these
# seeds catch the lost tail that the fix above repairs).
foreach(seed 2 3)
  ocr_test(random.reduce7.seed${seed} LABELS random COMMAND test_kernels random ${seed} 60 reduce7)
endforeach()

# reduce7 with M = 1 finishes in one launch where the device has device-scope
# acquire-release atomics (POCL and Intel's CPU runtime both report them): the
# last work-group to take a ticket combines every group's value. The plan says
# so, many groups over many runs must agree, and a user-chosen language version
# (no such atomics promised) falls back to a second launch.
cli_test(reduce7_finish_one_launch --out "M = 1, 1 pass$" --out "the last group combines"
         -- ${OCR} -n 7 -s 1000003 -M 1 --explain)
cli_test(reduce7_finish_fallback --out "M = 1, 2 passes$" --no-out "the last group combines"
         -- ${OCR} -n 7 -s 1000003 -M 1 --explain --build-options -cl-std=CL1.2)
foreach(t int long float double)
  foreach(o sum min)
    cli_test(reduce7_finish_${t}_${o} --out "^Test PASSED!" --out "^Passes: 1,"
             -- ${OCR} -n 7 -s 3000017 -M 1 -g 509 -r 40 --type ${t} --op ${o} --passes)
  endforeach()
endforeach()
