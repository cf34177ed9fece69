//===- NvidiaModule.cpp - The built-in "nvidia" check module --------------===//
//
// PTX, SASS and cubin checks (intent lost in SASS, staging, spills, TMA).
// Checks are registered here in one sorted list, each with R.add<T>();
// tools/new_check.py adds the line for a new check.
//
//===----------------------------------------------------------------------===//
#include "OccupancyCheck.h"
#include "PtxIntentLostInSassCheck.h"
#include "RegisterSpillCheck.h"
#include "StagingExplosionCheck.h"
#include "TmaFallbackCheck.h"

#include "gestell/Plugin.h"

namespace {

void registerChecks(gestell::CheckRegistry &R) {
  using namespace gestell::nvidia;
  // Sorted by check id.
  R.add<PtxIntentLostInSassCheck>();
  R.add<RegisterSpillCheck>();
  R.add<StagingExplosionCheck>();
  R.add<TmaFallbackCheck>();
  R.add<gestell::nvidia::OccupancyCheck>();
}

} // namespace

extern "C" GESTELL_PLUGIN_EXPORT gestell::PluginInfo gestellGetPluginInfo() {
  return {GESTELL_PLUGIN_API_VERSION, "nvidia", GESTELL_VERSION,
          registerChecks};
}
