# The labs (docs/labs/): every command block of the pages runs at small N; the
# race lab, the lab fixtures, the variants lab; the measured tables.
ocr_test(labs.commands LABELS labs COMMAND ${SCRIPTS}/labs_test.sh ${PROJECT_SOURCE_DIR} ${OCR})
# The README's "Sample output" is what the binary prints (numbers and names aside).
if(Python3_FOUND)
  ocr_test(labs.readme_sample LABELS labs
           COMMAND ${SCRIPTS}/readme_sample_test.sh ${PROJECT_SOURCE_DIR}/README.md ${OCR} ${Python3_EXECUTABLE})
endif()
# The measured tables of the lab pages are what bench/results/ladder holds.
if(Python3_FOUND)
  ocr_test(labs.tables LABELS quick labs
           COMMAND ${Python3_EXECUTABLE} ${SCRIPTS}/labs_tables.py ${PROJECT_SOURCE_DIR})
endif()

# The race lab on a CPU device: POCL runs a group's work-items one after another
# between barriers, so the tutorial's lock-step assumption fails and so does the check.
# (Skipped where there is no CPU device, as on a GPU machine without POCL.)
ocr_test(lab.race_tail.fails_on_cpu LABELS quick lab PROPERTIES SKIP_RETURN_CODE 77
         COMMAND ${EXPECT} --rc 1 --out "^Test FAILED!$" --device-matching "\\[CPU\\]"
         -- ${OCR} -n race_tail -s 65536 -r 1)
if(OCLGRIND)
  # ... and oclgrind must see the barrier-free tail's races.
  ocr_test(lab.race_tail.oclgrind_reports_race LABELS oclgrind lab
           COMMAND ${EXPECT} --rc 1 --err "Read-write data race" --err "Kernel: race_tail"
           -- ${OCLGRIND} --data-races ${OCR} -n race_tail -s 4103 -r 1)
endif()

# --- labs: the lab fixtures, the variants lab and the sweep over a
# --kernel-file (bench.cmake, bench.sweep_kernel_file).
# reduce3 without its prefetch barrier: right at -w 64 and 128 (every work-item
# reads only its own slots until the tail), a race at -w 1024 (no busy level,
# so the tail reads other work-items' prefetch).
foreach(w 64 128)
  ocr_test(lab.reduce3_no_prefetch_barrier.cpu.w${w} LABELS quick lab PROPERTIES SKIP_RETURN_CODE 77
           COMMAND ${EXPECT} --rc 0 --out "^Test PASSED!$" --device-matching "\\[CPU\\]"
           -- ${OCR} -n reduce3_no_prefetch_barrier -w ${w} -s 65536 -r 2)
endforeach()
if(OCLGRIND)
  foreach(w 64 128)
    ocr_test(oclgrind.reduce3_no_prefetch_barrier.w${w} LABELS oclgrind lab
             COMMAND ${OG} 0 ${OCR} -n reduce3_no_prefetch_barrier -w ${w} -s 4103 -M 1 -r 1)
  endforeach()
  ocr_test(oclgrind.reduce3_no_prefetch_barrier.w1024_races LABELS oclgrind lab
           COMMAND ${EXPECT} --rc 1 --out "^Test FAILED!$" --err "^Read-write data race at local memory"
           --err "Kernel: reduce3_no_prefetch_barrier" --err "^[[:space:]]+lcl\\[i \\+ lid\\] =$"
           -- ${OCLGRIND} --data-races ${OCR} -n reduce3_no_prefetch_barrier -w 1024 -s 4103 -M 1 -r 1)
  # ... while reduce3 itself, with the barrier, is clean at that size.
  ocr_test(oclgrind.reduce3.w1024 LABELS oclgrind COMMAND ${OG} 0 ${OCR} -n reduce3 -w 1024 -s 4103 -M 1 -r 1)
endif()

# Lab 7's variants: atomic_local builds everywhere and must pass, on the device
# and under oclgrind; the others pass or skip with the guard's reason, never fail.
set(VR ${PROJECT_SOURCE_DIR}/docs/labs/variants/run.sh)
foreach(a "int;sum" "int;min" "uint;xor" "float;sum")
  list(GET a 0 ty)
  list(GET a 1 op)
  ocr_test(lab.variants.atomic_local.${ty}_${op} LABELS quick lab
           COMMAND ${EXPECT} --rc 0 --out "^Test PASSED!$" --out "^Variant atomic_local: built with"
           --env OCR=${OCR} -- ${VR} atomic_local -s 100003 -r 2 --type ${ty} --op ${op})
endforeach()
foreach(v wg_reduce sg_reduce sg_shuffle)
  ocr_test(lab.variants.${v} LABELS quick lab
           COMMAND ${EXPECT} --rc 0 --out "^(Test PASSED!|Skipped: ${v} does not build on this device with -cl-std=CL[0-9.]+: .* need.*)$"
           --no-out "^Test FAILED" --env OCR=${OCR} -- ${VR} ${v} -s 100003 -r 2)
endforeach()
# The skip is only for the guard: a kernel that fails to build for another
# reason is an error (exit 3), not a skip.
ocr_test(lab.variants.build_error_is_not_a_skip LABELS quick lab
         COMMAND ${EXPECT} --rc 3 --no-out "^Skipped" --err "no -cl-std built it"
         --env OCR=${OCR} -- ${VR} atomic_local -s 4103 -r 1 --op prod)
if(OCLGRIND)
  ocr_test(oclgrind.variants.atomic_local LABELS oclgrind lab PROPERTIES ENVIRONMENT "OCR=${OCR}"
           COMMAND ${OG} 0 ${VR} atomic_local -s 4103 -M 1 -r 1)
endif()
