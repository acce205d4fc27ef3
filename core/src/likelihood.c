/* What core checks of a likelihood table beyond its head: its
 * capabilities (likelihood.h). */
#include "starling/likelihood.h"

#include <string.h>

sl_status sl_likelihood_check_caps(const sl_likelihood *l)
{
    unsigned all_backends = SL_BACKEND_CAN_CPU | SL_BACKEND_CAN_CUDA;
    if (!l->backends || (l->backends & ~all_backends))
        return sl_fail(SL_ERR_ARG, "backends = %#x: expected SL_BACKEND_CAN_CPU and/or "
                       "SL_BACKEND_CAN_CUDA", (unsigned)l->backends);
    if (!l->precisions || (l->precisions & ~(uint32_t)SL_PRECISION_ALL))
        return sl_fail(SL_ERR_ARG, "precisions = %#x: expected SL_PRECISION_DOUBLE, _MIXED "
                       "and/or _SINGLE", (unsigned)l->precisions);
    const sl_param *k = sl_params_find(l->params, l->params ? l->n_params : 0, "precision");
    int several = (l->precisions & (l->precisions - 1)) != 0;
    if (!several && !(k && k->type == SL_PARAM_WORD))
        return SL_OK; /* one precision, no option choosing it (a numeric 'precision' is
                         the plugin's own business) */
    if (!k || k->type != SL_PARAM_WORD)
        return sl_fail(SL_ERR_ARG, "it declares several precisions but no word option "
                       "'precision' to choose one");
    uint32_t named = 0;
    for (size_t i = 0; i < sl_param_word_count(k); i++) {
        uint32_t f = 0;
        for (uint32_t b = 1; b <= SL_PRECISION_SINGLE; b <<= 1)
            if (!strcmp(k->words[i], sl_precision_name(b)))
                f = b;
        if (!f || !(l->precisions & f))
            return sl_fail(SL_ERR_ARG, "option 'precision' offers \"%s\", which is not a "
                           "precision it declares", k->words[i]);
        named |= f;
    }
    for (uint32_t b = 1; b <= SL_PRECISION_SINGLE; b <<= 1)
        if ((l->precisions & b) && !(named & b))
            return sl_fail(SL_ERR_ARG, "it declares precision \"%s\" but option 'precision' "
                           "does not offer it", sl_precision_name(b));
    return SL_OK;
}
