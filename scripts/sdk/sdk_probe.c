/* Built by scripts/sdk-check.sh with nothing but `pkg-config --cflags --libs
 * starling`: every public header compiles with those flags, the flags are
 * the ones plugins need, and libstarling finds the installed plugins and
 * those on STARLING_PLUGIN_PATH. */
#include <stdio.h>
#include <string.h>
#include <starling/starling.h>
#include <starling/forces/newton.h>
#include <starling/integrators/hermite.h>
#include <starling/plugins/lombscargle/lombscargle.h>
#include <starling/table.h>

#if !defined(__NO_MATH_ERRNO__)
#error "starling.pc: the cflags lack -fno-math-errno"
#endif
#if defined(__STRICT_ANSI__) || __STDC_VERSION__ != 201112L
#error "starling.pc: the cflags do not select C11 with GNU extensions (-std=gnu11)"
#endif
#if SL_HAVE_CUDA
#error "version.h: SL_HAVE_CUDA must default to 0 (it is decided per plugin)"
#endif

int main(int argc, char **argv)
{
    const char *want = argc > 1 ? argv[1] : "hermite";
    sl_registry *r;
    if (sl_registry_create(&r) != SL_OK || sl_registry_load_default(r) != SL_OK) {
        fprintf(stderr, "sdk_probe: %s\n", sl_last_error());
        return 1;
    }
    int bad = 0;
    for (size_t i = 0; i < sl_registry_problem_count(r); i++, bad = 1)
        fprintf(stderr, "sdk_probe: refused: %s\n", sl_registry_problem(r, i));
    const void *t;
    if (sl_registry_get(r, SL_KIND_FORCE, "newton", &t) != SL_OK) {
        fprintf(stderr, "sdk_probe: %s\n", sl_last_error());
        bad = 1;
    } else if (sl_head(t)->kind != SL_KIND_FORCE || sl_head(t)->abi != SL_ABI_VERSION) {
        fprintf(stderr, "sdk_probe: newton's table head: kind %d, ABI %u\n",
                (int)sl_head(t)->kind, sl_head(t)->abi);
        bad = 1;
    }
    int found = 0;
    for (size_t i = 0; i < sl_registry_count(r); i++)
        found |= !strcmp(sl_registry_at(r, i)->name, want);
    if (!found) {
        fprintf(stderr, "sdk_probe: no table named '%s'\n", want);
        bad = 1;
    }
    if (sl_cuda_built() != SL_CORE_HAS_CUDA) {
        fprintf(stderr, "sdk_probe: sl_cuda_built() %d but SL_CORE_HAS_CUDA %d\n",
                sl_cuda_built(), SL_CORE_HAS_CUDA);
        bad = 1;
    }
    printf("sdk_probe: starling %s (core CUDA %d), %zu tables, %s %s\n", SL_VERSION,
           SL_CORE_HAS_CUDA, sl_registry_count(r), want, bad ? "FAILED" : "found");
    sl_registry_destroy(r);
    return bad;
}
