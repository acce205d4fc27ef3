/* Umbrella header for programs using the starling library. */
#ifndef STARLING_H
#define STARLING_H
#include "starling/backend.h"
#include "starling/cancel.h"
#include "starling/conformance.h"
#include "starling/data.h"
#include "starling/ensemble.h"
#include "starling/force.h"
#include "starling/fparams.h"
#include "starling/launch.h"
#include "starling/likelihood.h"
#include "starling/megno.h"
#include "starling/monitor.h"
#include "starling/nomem.h"
#include "starling/params.h"
#include "starling/plugin.h"
#include "starling/propagator.h"
#include "starling/registry.h"
#include "starling/rng.h"
#include "starling/run.h"
#include "starling/status.h"
#include "starling/version.h"
#endif
