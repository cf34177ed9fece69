//===- gestell/Plugin.h - Check modules loaded at run time ----------------===//
//
// A check module is a shared library that links libgestell.so (never a
// static copy of the SDK or of LLVM: the process must hold one of each) and
// exports one C entry point, the pattern of LLVM's PassPlugin.h:
//
//   extern "C" GESTELL_PLUGIN_EXPORT gestell::PluginInfo
//   gestellGetPluginInfo() {
//     return {GESTELL_PLUGIN_API_VERSION, "example", "1.0.0",
//             [](gestell::CheckRegistry &R) { R.add<NarrowLoadCheck>(); }};
//   }
//
// Versioning: GESTELL_PLUGIN_API_VERSION goes up by one whenever an SDK
// header changes in a way that breaks a compiled plugin (a changed class
// layout, virtual function, signature or struct a plugin sees). Adding a
// function or a new header does not bump it. The driver loads only plugins
// built for exactly its version. PluginInfo keeps APIVersion as its first
// member in every version, so a mismatch is always detected and reported.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_PLUGIN_H
#define GESTELL_PLUGIN_H

#include "gestell/CheckRegistry.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>

/// The SDK interface version plugins are compiled against.
#define GESTELL_PLUGIN_API_VERSION 9

/// Marks the entry point visible when a plugin builds with hidden symbols.
#define GESTELL_PLUGIN_EXPORT __attribute__((visibility("default")))

namespace gestell {

inline constexpr uint32_t PluginAPIVersion = GESTELL_PLUGIN_API_VERSION;
/// The symbol every plugin exports.
inline constexpr const char *PluginEntryPoint = "gestellGetPluginInfo";

extern "C" {
/// What the entry point returns. APIVersion stays the first member forever.
struct PluginInfo {
  uint32_t APIVersion;
  /// The module name: the prefix of every check id it registers.
  const char *Name;
  /// The plugin's own version, shown in --list-checks and SARIF.
  const char *Version;
  /// Adds the module's checks.
  void (*RegisterChecks)(CheckRegistry &Registry);
};
}

/// A loaded plugin. The library stays loaded while a Plugin, or a check
/// registered from it, is alive.
class Plugin {
public:
  /// Loads Path. Each failure names the file and says what is wrong: it
  /// does not exist, it is not a shared library, the loader refused it, it
  /// has no entry point, or it was built for another API version.
  static llvm::Expected<Plugin> load(llvm::StringRef Path);

  /// Runs the plugin's registration into R. Fails, naming the file, when
  /// the registration breaks a registry rule, calls fail() or throws.
  llvm::Error registerChecks(CheckRegistry &R) const;

  llvm::StringRef path() const { return Path; }
  llvm::StringRef name() const { return Name; }
  llvm::StringRef version() const { return Version; }

private:
  std::string Path, Name, Version;
  PluginInfo Info{};
  std::shared_ptr<const void> Library;
};

} // namespace gestell

#endif
