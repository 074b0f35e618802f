# reduce7's blocked walk (CPUs) adds a float sum's vectors as a tree of
# fan-out 16 (the cascade: a block, m1, m2, m3, acc). One work-item (-w 1
# -g 1) walks the whole input, so these sizes reach every level's flush with
# vectors left over after the last block; --access blocked takes this walk
# on any device. The default data are exact in any order: checked bit for bit.
set(cascade_sizes 4149 65619 1052705)
foreach(t float double half)
  foreach(s ${cascade_sizes})
    cli_test(cascade_${t}_${s} --rc 0 --out "^Test PASSED!$"
             -- ${OCR} -n 7 --type ${t} -s ${s} -w 1 -g 1 --access blocked -r 1
             --cpu-baseline none)
  endforeach()
endforeach()
# Trees that lose or repeat a partial sum must FAIL at the sizes that reach it.
function(cascade_mutant name from to size)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/cascade_mutants/${name})
  mutant_dir(${dir} reduce7.cl "${from}" "${to}")
  foreach(t float double)
    cli_test(cascade_mutant_${name}_${t} --rc 1 --out "^Test FAILED!$"
             -- ${OCR} --kernel-dir ${dir} -n 7 --type ${t} -s ${size} -w 1 -g 1
             --access blocked -r 1 --cpu-baseline none)
  endforeach()
endfunction()
cascade_mutant(block_misread "(in + i + u * LANES)" "(in + i + u)" 4149)
cascade_mutant(rest_dropped "(m1 + rest)" "(m1)" 4149)
cascade_mutant(m1_overwrites "m2 += m1;" "m2 = m1;" 65619)
cascade_mutant(m2_overwrites "m3 += m2;" "m3 = m2;" 1052705)
cascade_mutant(m3_kept "acc += m3;" "acc += (TL)(0);" 1052705)
