/* nbody_like.inc compiled for the CPU with mvs and Newton's gravity at
 * 2..7 bodies (1..6 planets), both likelihood kinds: the row of
 * sl_nbody_cpu_ones and of the RV-curve paths for mvs. */
#include "nbody_eval.h"

#include "starling/forces/newton.h"
#include "mvs.h"

#define SL_F newton
#define SL_N_LAST 7
#define SL_P mvs
#include "nbody_instances.inc"

const sl_nbody_one_fn sl_nbody_cpu_ones_mvs[SL_NBODY_MAX_PL + 1] = {
    NULL, sl_nbody_one_mvs_newton_2, sl_nbody_one_mvs_newton_3, sl_nbody_one_mvs_newton_4,
    sl_nbody_one_mvs_newton_5, sl_nbody_one_mvs_newton_6, sl_nbody_one_mvs_newton_7};

const sl_nbody_path_fn sl_nbody_cpu_paths_mvs[SL_NBODY_MAX_PL + 1] = {
    NULL, sl_nbody_path_mvs_newton_2, sl_nbody_path_mvs_newton_3, sl_nbody_path_mvs_newton_4,
    sl_nbody_path_mvs_newton_5, sl_nbody_path_mvs_newton_6, sl_nbody_path_mvs_newton_7};
