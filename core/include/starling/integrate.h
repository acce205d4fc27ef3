/* Everything a plugin that stamps integration loops needs, in one include:
 * the launch ABI and the contract between loop and physics (launch.h), and
 * the loops themselves (internal/loop.h: per system, GPU and scalar CPU;
 * internal/lanes.h: the CPU lane loop). instantiate.h includes the same
 * headers; code that only launches loops or reads their buffers needs
 * launch.h alone. */
#ifndef STARLING_INTEGRATE_H
#define STARLING_INTEGRATE_H

#include "starling/launch.h"
#include "starling/internal/loop.h"
#include "starling/internal/lanes.h"

#endif
