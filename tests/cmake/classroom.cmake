# A class in one command: classroom/grade_class.sh over an LMS export,
# its gradebook, feedback, run record, similarity list and report page.
if(Python3_FOUND)
  ocr_test(grade.class_lms LABELS grade class PROPERTIES TIMEOUT 900 SKIP_RETURN_CODE 77
           COMMAND ${SCRIPTS}/grade_class_lms_test.sh ${PROJECT_SOURCE_DIR} ${OCR} ${Python3_EXECUTABLE})
  ocr_test(grade.class_settings LABELS grade quick PROPERTIES TIMEOUT 120
           COMMAND ${SCRIPTS}/grade_class_settings_test.sh ${PROJECT_SOURCE_DIR} ${OCR})
  # The class tool's own handling, with a stand-in for the grader
  # (seconds each): hostile names, links, FIFOs and folders; the rubric
  # against the matrix; submission times; similarity.
  ocr_test(grade.class_hostile LABELS grade quick PROPERTIES TIMEOUT 300
           COMMAND ${SCRIPTS}/grade_class_hostile_test.sh ${PROJECT_SOURCE_DIR} ${Python3_EXECUTABLE})
  ocr_test(grade.class_rubric LABELS grade quick PROPERTIES TIMEOUT 300
           COMMAND ${SCRIPTS}/grade_class_rubric_test.sh ${PROJECT_SOURCE_DIR} ${Python3_EXECUTABLE})
  ocr_test(grade.class_late LABELS grade quick PROPERTIES TIMEOUT 300
           COMMAND ${SCRIPTS}/grade_class_late_test.sh ${PROJECT_SOURCE_DIR} ${Python3_EXECUTABLE})
  ocr_test(grade.class_similarity LABELS grade quick PROPERTIES TIMEOUT 300
           COMMAND ${SCRIPTS}/grade_class_similarity_test.sh ${PROJECT_SOURCE_DIR} ${Python3_EXECUTABLE})
  # Similarity by statement multisets: reordered renamed copies, kernels
  # written apart, files without a statement.
  ocr_test(grade.class_similar_order LABELS grade class quick PROPERTIES TIMEOUT 300
           COMMAND ${SCRIPTS}/grade_class_similar_order_test.sh ${PROJECT_SOURCE_DIR} ${Python3_EXECUTABLE})
  # LMS uploads: .zip/.tar.gz unpacked safely (hostile archives refused
  # whole), Canvas's flat names and LATE marker read.
  ocr_test(grade.class_archive LABELS grade class quick PROPERTIES TIMEOUT 300
           COMMAND ${SCRIPTS}/grade_class_archive_test.sh ${PROJECT_SOURCE_DIR} ${Python3_EXECUTABLE})
  # LMS out: Moodle's grading worksheet written back, a Canvas import CSV.
  ocr_test(grade.class_lms_out LABELS grade class quick PROPERTIES TIMEOUT 300
           COMMAND ${SCRIPTS}/grade_class_lms_out_test.sh ${PROJECT_SOURCE_DIR} ${Python3_EXECUTABLE})
  # One grader process at a time; --help describes every option.
  ocr_test(grade.class_one_child LABELS grade class quick PROPERTIES TIMEOUT 300
           COMMAND ${SCRIPTS}/grade_class_one_child_test.sh ${PROJECT_SOURCE_DIR} ${Python3_EXECUTABLE})
  # A folder's kernel found in its code: not in a comment or a string.
  ocr_test(grade.class_detect LABELS grade quick PROPERTIES TIMEOUT 120
           COMMAND ${SCRIPTS}/grade_class_detect_test.sh ${PROJECT_SOURCE_DIR} ${Python3_EXECUTABLE})
  # The same class, settings and seed twice: the same gradebook and feedback.
  ocr_test(grade.class_seed LABELS grade class PROPERTIES TIMEOUT 600
           COMMAND ${SCRIPTS}/grade_class_seed_test.sh ${PROJECT_SOURCE_DIR} ${OCR} ${Python3_EXECUTABLE})
  # Seven kernels graded idle and under load (2 busy processes per core):
  # the same gradebook, every verdict right. Needs the grader's drawn sizes,
  # every type and load-independent limits; skipped (77) without.
  ocr_test(grade.class_load LABELS grade class PROPERTIES TIMEOUT 1800 SKIP_RETURN_CODE 77
           COMMAND ${SCRIPTS}/grade_class_load_test.sh ${PROJECT_SOURCE_DIR} ${OCR} ${Python3_EXECUTABLE})
  # class.conf's build_options on every build, checked by the grader
  # (int sum only: about 15 s).
  ocr_test(grade.class_build_options LABELS grade class PROPERTIES TIMEOUT 600
           COMMAND ${SCRIPTS}/grade_class_build_options_test.sh ${PROJECT_SOURCE_DIR} ${OCR} ${Python3_EXECUTABLE})
  # SIGTERM while the real grader runs a hanging kernel: everything stops.
  ocr_test(grade.class_signal LABELS grade quick PROPERTIES TIMEOUT 300
           COMMAND ${SCRIPTS}/grade_class_signal_test.sh ${PROJECT_SOURCE_DIR} ${OCR})
endif()
# The tutorial's global fence on local data (docs/labs/tutorial-notes.md):
# POCL gives the right sums, so only the race checks can call it, RACE.
if(OCLGRIND)
  grade_test(global_fence_on_local ${PROJECT_SOURCE_DIR}/docs/labs/variants/global_fence.cl global_fence 1024 RACE)
endif()
