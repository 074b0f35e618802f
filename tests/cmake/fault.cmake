# Fault injection: every OpenCL call of a run fails once, in turn (the shim:
# unit/fault_shim.c). Other topics fail single calls where they test them.
ocr_test(fault.every_call LABELS fault COMMAND ${SCRIPTS}/fault_test.sh ${OCR} $<TARGET_FILE:fault_shim>)
