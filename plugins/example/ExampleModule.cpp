//===- ExampleModule.cpp - The "example" check module ---------------------===//
//
// The plugin's one entry point: its API version, module name (the prefix of
// every check id it registers), version, and the function that registers
// its checks, one R.add<T>() per check, sorted by id.
//
//===----------------------------------------------------------------------===//
#include "NarrowGlobalLoadCheck.h"

#include "gestell/Plugin.h"

namespace {
void registerChecks(gestell::CheckRegistry &R) {
  R.add<example::NarrowGlobalLoadCheck>();
}
} // namespace

extern "C" GESTELL_PLUGIN_EXPORT gestell::PluginInfo gestellGetPluginInfo() {
  return {GESTELL_PLUGIN_API_VERSION, "example", "1.0.0", registerChecks};
}
