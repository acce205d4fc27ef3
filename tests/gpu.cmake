# GPU suites (label `gpu`): only with the CUDA backend built. They skip with
# a message containing SL_GPU_SKIP when no device is usable (ctest then
# reports them as skipped), and fail instead when SL_REQUIRE_GPU=1.
if(SL_HAVE_CUDA)
  sl_add_test(test_gpu_agreement SOURCES test_gpu_agreement.c LABELS gpu TIMEOUT 600)
  add_dependencies(test_gpu_agreement hermite newton monitors)

  sl_add_test(test_gpu_device SOURCES test_gpu_device.c LABELS gpu LIBS CUDA::cudart
              TIMEOUT 300)
  add_dependencies(test_gpu_device hermite newton monitors)
  # It reads the device's free memory before and after a run: another suite
  # on the same GPU at the time would look like a leak.
  set_tests_properties(test_gpu_device PROPERTIES RUN_SERIAL TRUE)

  sl_add_test(test_gpu_rng SOURCES test_gpu_rng.c CUDA_SOURCES gpu_rng.cu LABELS gpu
              LIBS CUDA::cudart TIMEOUT 300)

  # hd.h's device 1/sqrt, sqrt, 1/x, y/x: CUDA's bits without the special cases
  sl_add_test(test_gpu_hdmath SOURCES test_gpu_hdmath.c CUDA_SOURCES gpu_hdmath.cu LABELS gpu
              LIBS CUDA::cudart TIMEOUT 300)

  sl_add_test(test_gpu_kepler_drift SOURCES test_gpu_kepler_drift.c CUDA_SOURCES gpu_kdrift.cu
              LABELS gpu LIBS CUDA::cudart TIMEOUT 300)

  sl_add_test(test_gpu_composition SOURCES test_gpu_composition.c CUDA_SOURCES stages_cuda.cu
              LABELS gpu TIMEOUT 300)
  add_dependencies(test_gpu_composition hermite newton monitors plummer)

  # a user monitor stops the same systems on both backends
  sl_add_test(test_gpu_user_monitors SOURCES test_gpu_user_monitors.c LABELS gpu TIMEOUT 300)
  add_dependencies(test_gpu_user_monitors hermite newton monitors slt_um_watch)
  target_compile_definitions(test_gpu_user_monitors PRIVATE SLT_UM_DIR="${SLT_UM_DIR}")

  # adaptive stepping: CUDA against the CPU's loops, guard rails
  sl_add_test(test_gpu_adaptive SOURCES test_gpu_adaptive.c CUDA_SOURCES adaptive_cuda.cu
              LABELS gpu TIMEOUT 600)
  add_dependencies(test_gpu_adaptive hermite newton monitors)

  # mvs's own coordinates, correctors and closes: CUDA against the CPU
  sl_add_test(test_gpu_mvs SOURCES test_gpu_mvs.c LABELS gpu TIMEOUT 300)
  add_dependencies(test_gpu_mvs mvs newton monitors)

  # MEGNO's systems and shadows: CUDA against the CPU
  sl_add_test(test_gpu_megno SOURCES test_gpu_megno.c LABELS gpu TIMEOUT 300)
  add_dependencies(test_gpu_megno mvs hermite newton monitors)

  # the collision monitor's merge: CUDA against the CPU
  sl_add_test(test_gpu_merge SOURCES test_gpu_merge.c LABELS gpu TIMEOUT 300)
  add_dependencies(test_gpu_merge mvs hermite newton monitors)

  set_tests_properties(test_gpu_agreement test_gpu_device test_gpu_rng test_gpu_composition
    test_gpu_user_monitors test_gpu_kepler_drift test_gpu_hdmath test_gpu_adaptive test_gpu_mvs
    test_gpu_megno test_gpu_merge PROPERTIES SKIP_REGULAR_EXPRESSION "SL_GPU_SKIP")

  # The installed SDK on the GPU: this build installed into a temporary
  # prefix, each `starling new` scaffold built against it with CUDA, its
  # tests and script run on the CUDA backend, and check-plugin's CPU-vs-CUDA
  # checks required (scripts/sdk-check.sh with SDK_BACKEND=cuda). It needs
  # the whole build (the install) and compiles four plugins.
  # `env` and cmake from PATH, not this machine's ${CMAKE_COMMAND}: the
  # test runs on the GPU machine, whose cmake lives elsewhere. It also
  # needs Criterion's headers there (the scaffolds' tests compile).
  add_test(NAME sdk_gpu_check
           COMMAND env BUILD_DIR=${CMAKE_BINARY_DIR} SDK_BACKEND=cuda
                   bash ${PROJECT_SOURCE_DIR}/scripts/sdk-check.sh)
  set_tests_properties(sdk_gpu_check PROPERTIES LABELS gpu TIMEOUT 1800
                       SKIP_REGULAR_EXPRESSION "SL_GPU_SKIP")
endif()
