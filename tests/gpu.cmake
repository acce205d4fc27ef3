# GPU suites (label `gpu`): only with the CUDA backend built. They skip with
# a message containing SL_GPU_SKIP when no device is usable (ctest then
# reports them as skipped), and fail instead when SL_REQUIRE_GPU=1.
if(SL_HAVE_CUDA)
  sl_add_test(test_gpu_agreement SOURCES test_gpu_agreement.c LABELS gpu TIMEOUT 600)
  add_dependencies(test_gpu_agreement hermite newton monitors)

  sl_add_test(test_gpu_device SOURCES test_gpu_device.c LABELS gpu LIBS CUDA::cudart
              TIMEOUT 300)
  add_dependencies(test_gpu_device hermite newton monitors)

  sl_add_test(test_gpu_rng SOURCES test_gpu_rng.c CUDA_SOURCES gpu_rng.cu LABELS gpu
              LIBS CUDA::cudart TIMEOUT 300)

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

  set_tests_properties(test_gpu_agreement test_gpu_device test_gpu_rng test_gpu_composition
    test_gpu_user_monitors test_gpu_adaptive PROPERTIES SKIP_REGULAR_EXPRESSION "SL_GPU_SKIP")
endif()
