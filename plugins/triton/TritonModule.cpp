//===- TritonModule.cpp - The built-in "triton" check module --------------===//
//
// TTGIR-level checks (layouts, conversions, loops).
// Checks are registered here in one sorted list, each with R.add<T>();
// tools/new_check.py adds the line for a new check.
//
//===----------------------------------------------------------------------===//
#include "gestell/Plugin.h"

namespace {

void registerChecks(gestell::CheckRegistry &R) {
  // Sorted by check id.
  (void)R;
}

} // namespace

extern "C" GESTELL_PLUGIN_EXPORT gestell::PluginInfo gestellGetPluginInfo() {
  return {GESTELL_PLUGIN_API_VERSION, "triton", GESTELL_VERSION,
          registerChecks};
}
