/* The rules of a monitor table (monitor.h), shared by the registry, the
 * run's checks of its user monitors and the conformance suite. */
#ifndef SL_MONITOR_TABLE_H
#define SL_MONITOR_TABLE_H

#include <stddef.h>
#include "starling/monitor.h"

/* What is wrong with a monitor table's user-monitor entries, in buf, or
 * NULL when nothing is: it must have configure or check; check needs codes
 * (1..SL_MONITOR_CODES_MAX names of letters, digits and _, all different);
 * prepare and release need check. */
const char *sl_monitor_table_problem(const sl_monitor *m, char *buf, size_t cap);

#endif
