//===- TritonModule.cpp - The built-in "triton" check module --------------===//
//
// TTGIR-level checks (layouts, conversions, loops).
// Checks are registered here in one sorted list, each with R.add<T>();
// tools/new_check.py adds the line for a new check.
//
//===----------------------------------------------------------------------===//
#include "CostlyLayoutConversionCheck.h"
#include "RedundantLayoutConversionCheck.h"

#include "gestell/Plugin.h"

namespace {

void registerChecks(gestell::CheckRegistry &R) {
  // Sorted by check id.
  R.add<gestell::triton::CostlyLayoutConversionCheck>();
  R.add<gestell::triton::RedundantLayoutConversionCheck>();
}

} // namespace

extern "C" GESTELL_PLUGIN_EXPORT gestell::PluginInfo gestellGetPluginInfo() {
  return {GESTELL_PLUGIN_API_VERSION, "triton", GESTELL_VERSION,
          registerChecks};
}
