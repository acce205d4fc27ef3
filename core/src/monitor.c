/* What monitor.h declares: the built-in monitors' default configuration,
 * and the rules a monitor table follows, which the registry enforces when
 * it loads a plugin and a run checks again for the monitors it is handed
 * (monitor_table.h). */
#include "monitor_table.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

void sl_monitor_config_default(sl_monitor_config *mc)
{
    memset(mc, 0, sizeof *mc);
    mc->unbound_r = -1.0;
    mc->collide_central = -1.0; /* as the other bodies */
    mc->check_every = 1;
    mc->check_nonfinite = 1;
}

int sl_monitor_code_count(const sl_monitor *m)
{
    int n = 0;
    while (m && m->codes && m->codes[n] && n <= SL_MONITOR_CODES_MAX)
        n++;
    return n;
}

static int code_name_ok(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return 0;
    return 1;
}

const char *sl_monitor_table_problem(const sl_monitor *m, char *buf, size_t cap)
{
    if (!m->check) {
        if (!m->configure)
            return snprintf(buf, cap, "has neither configure (a built-in monitor) nor check (a "
                            "user monitor)"), buf;
        if (m->prepare || m->release)
            return snprintf(buf, cap, "has prepare or release but no check"), buf;
        return NULL;
    }
    int n = sl_monitor_code_count(m);
    if (n == 0)
        return snprintf(buf, cap, "has check but no codes (a NULL-terminated list naming the "
                        "codes check returns, e.g. {\"too_far\", NULL})"), buf;
    if (n > SL_MONITOR_CODES_MAX)
        return snprintf(buf, cap, "has more than %d codes", SL_MONITOR_CODES_MAX), buf;
    for (int k = 0; k < n; k++) {
        if (!code_name_ok(m->codes[k]))
            return snprintf(buf, cap, "code %d is named \"%s\": expected letters, digits and _",
                            k + 1, m->codes[k]), buf;
        for (int j = 0; j < k; j++)
            if (!strcmp(m->codes[j], m->codes[k]))
                return snprintf(buf, cap, "codes %d and %d are both named \"%s\"", j + 1, k + 1,
                                m->codes[k]), buf;
    }
    return NULL;
}
