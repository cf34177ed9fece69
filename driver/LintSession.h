//===- LintSession.h - Configs, plugins and checks for one lint run -------===//
//
// Everything `gestell check` sets up before it looks at a kernel, kept apart
// from the command line so other verbs (diff: checks that fire only in the
// later build; rules test) can run the same lint:
//   1. the config of each input path (nearest .gestell.toml from the path,
//      else from the current directory; --config overrides);
//   2. the plugins: built-in modules next to the binary, --load, and the
//      configs' `plugins` (only with --allow-config-plugins); then the rule
//      packs (shipped, the configs' `rule-packs`), as the module "rules";
//   3. each config merged with the command line against the registry, and
//      every enabled check made once to validate its options.
// Any failure here is the tool unable to do its job (exit 2).
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_DRIVER_LINTSESSION_H
#define GESTELL_DRIVER_LINTSESSION_H

#include "Config.h"
#include "Runner.h"

#include "gestell/CheckRegistry.h"
#include "gestell/Plugin.h"

#include "llvm/Support/Error.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gestell::driver {

struct LintOptions {
  std::vector<std::string> Paths;
  std::string ConfigFile; ///< --config; "" = discover
  CommandLineConfig CommandLine;
  std::vector<std::string> Load; ///< --load
  bool AllowConfigPlugins = false;
  /// Folders searched for built-in modules; empty = next to the binary.
  std::vector<std::string> BuiltinPluginDirs;
  /// Rule packs besides the configs' (files or folders), loaded after them.
  std::vector<std::string> RulePacks;
  /// Load the packs shipped in <datadir>/checks, and those the configs name.
  bool ShippedRulePacks = true;
  bool ConfigRulePacks = true;
  /// --keep-going: a bad rule is a notification, the other rules run.
  bool KeepGoing = false;
  /// --report-unused-ignores: note each kernel's Python files
  /// (RunReport::Sources).
  bool ListSources = false;
  /// --trace-cache: folders a TritonParse trace's cubins may be read from
  /// (DiscoveryOptions::TraceCaches).
  std::vector<std::string> TraceCaches;
};

/// `--shard=I/N`: the I-th of N disjoint parts of the kernels, chosen by a
/// hash of the kernel's name and target (Kernel::target()), so a kernel
/// lands in the same part whatever the discovery order, the machine or the
/// checkout path. Not by folder: the kernels that share a name and target
/// (autotuning variants, the same kernel in two caches) share their
/// results' fingerprints, numbered ":2", ":3"... across them in report
/// order, and --baseline matches kernels, and compares those it cannot
/// match, within one name and target; so each part numbers and compares
/// them as the whole run does. The default (1/1) is every kernel.
struct Shard {
  unsigned Index = 1, Count = 1; ///< 1 <= Index <= Count
  bool all() const { return Count == 1; }
  /// Whether kernel K is in this part.
  bool holds(const Kernel &K) const;
};

/// Reads "I/N" (decimal, 1 <= I <= N); the error says what was expected.
llvm::Expected<Shard> parseShard(llvm::StringRef Text);

class LintSession {
public:
  /// Reads configs, loads plugins, validates options.
  static llvm::Expected<std::unique_ptr<LintSession>>
  create(const LintOptions &Opts);

  const CheckRegistry &registry() const { return Registry; }
  llvm::ArrayRef<PluginRecord> plugins() const { return Plugins; }

  /// The config for input path I (an index into LintOptions::Paths).
  const EffectiveConfig &configForPath(size_t I) const;
  /// The config for the current directory (modes with no path) or for the
  /// first path when there is one.
  const EffectiveConfig &primaryConfig() const;
  /// Rules that did not load, with --keep-going (without it, create()
  /// fails instead). run() reports them as notifications too.
  llvm::ArrayRef<Notification> packProblems() const { return PackProblems; }
  /// Warnings from reading configs (unknown keys), each once.
  std::vector<std::string> configWarnings() const;

  /// Every option of each check that is enabled or configured in Cfg, at
  /// its effective value (from storeOptions).
  const std::map<std::string, OptionMap> &
  storedOptions(const EffectiveConfig &Cfg) const;

  /// Every check enabled for the kernels of some path, sorted by id (what
  /// run() reports as RunReport::Rules).
  std::vector<const RegisteredCheck *> rules() const;

  /// Discovers the kernels of every path (and of BaselinePath when not
  /// empty), runs the enabled checks on the kernels of Part (with a
  /// baseline: matched among all kernels, then the baseline kernels of
  /// Part) and returns the report.
  RunReport run(llvm::StringRef BaselinePath, unsigned Threads,
                const AnalysisOptions &Analysis = {},
                const Shard &Part = {}) const;

private:
  LintSession() = default;
  llvm::Error loadPlugins(const LintOptions &Opts);
  llvm::Error loadPlugin(llvm::StringRef Path);
  llvm::Error loadRulePacks(const LintOptions &Opts);

  LintOptions Opts;
  CheckRegistry Registry;
  std::vector<Plugin> Loaded;
  std::vector<PluginRecord> Plugins;
  /// Rules that did not load (--keep-going): reported by every run.
  std::vector<Notification> PackProblems;
  /// Config file path ("" = none) -> parsed file and merged config.
  std::map<std::string, std::shared_ptr<const ConfigFile>> Files;
  std::map<std::string, std::unique_ptr<EffectiveConfig>> Effective;
  std::map<const EffectiveConfig *, std::map<std::string, OptionMap>> Stored;
  std::vector<std::string> PathConfig; ///< per input path: key into Effective
  std::string PrimaryConfig;
};

/// Folders next to the running binary where built-in modules live:
/// <bindir>/../<libdir>/gestell/plugins (libdir lib/x86_64-linux-gnu on
/// Debian, as installed and packaged), then <bindir>/../lib/gestell/plugins
/// (the build tree's layout).
std::vector<std::string> builtinPluginDirs();

} // namespace gestell::driver

#endif
