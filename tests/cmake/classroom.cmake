# A class in one command (issue 25): tools/grade_class.sh over an LMS export,
# its gradebook, feedback, run record, similarity list and report page.
if(Python3_FOUND)
  ocr_test(grade.class_lms LABELS grade PROPERTIES TIMEOUT 900 SKIP_RETURN_CODE 77
           COMMAND ${SCRIPTS}/grade_class_lms_test.sh ${PROJECT_SOURCE_DIR} ${OCR} ${Python3_EXECUTABLE})
  ocr_test(grade.class_settings LABELS grade quick PROPERTIES TIMEOUT 120
           COMMAND ${SCRIPTS}/grade_class_settings_test.sh ${PROJECT_SOURCE_DIR} ${OCR})
endif()
