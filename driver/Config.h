//===- Config.h - .gestell.toml: reading, finding, merging ----------------===//
//
// A config file says which checks run (ordered +/- globs), their options,
// which warnings are errors, which kernels to skip, which findings are
// suppressed (with a reason), and which plugins and rule packs to load. The
// nearest `.gestell.toml` walking up from a bundle applies to its kernels;
// with none there, the one nearest the current directory; `--config=FILE`
// overrides both. The command line's --checks / --warnings-as-errors come
// after the file's globs, so they win. docs/config.md is the reference.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_DRIVER_CONFIG_H
#define GESTELL_DRIVER_CONFIG_H

#include "gestell/CheckRegistry.h"
#include "gestell/Diagnostic.h"
#include "gestell/Families.h"
#include "gestell/Options.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/GlobPattern.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gestell::driver {

inline constexpr llvm::StringRef ConfigFileName = ".gestell.toml";

/// A compiled glob. llvm::GlobPattern keeps a StringRef into its pattern
/// text, so the text lives on the heap, shared by copies.
class Glob {
public:
  static llvm::Expected<Glob> create(llvm::StringRef Pattern);
  bool match(llvm::StringRef S) const { return Pattern.match(S); }
  llvm::StringRef text() const { return *Text; }

private:
  std::shared_ptr<const std::string> Text;
  llvm::GlobPattern Pattern;
};

/// One entry of an ordered glob list: "nvidia-*" enables, "-nvidia-*"
/// disables. Origin says where it was written ("f.toml:2:12", "--checks").
struct GlobItem {
  std::string Text; ///< as written, with its sign
  bool Negative = false;
  std::string Origin;
  Glob Pattern;
};

/// Parses "a,-b" items (each may carry a sign), recording Origin in each.
/// The error says what is wrong with the item; the caller says where.
llvm::Error appendGlobs(std::vector<GlobItem> &Out, llvm::StringRef Item,
                        llvm::StringRef Origin, bool AllowNegative = true);

/// The last item matching Name, or null: the item that decides.
const GlobItem *lastMatch(llvm::ArrayRef<GlobItem> Globs, llvm::StringRef Name);

struct Suppression {
  Glob Check, Kernel, Target; ///< Target "*" unless given
  std::string Reason, Origin;
};

/// A path from the config, made absolute against the file's folder.
struct ConfigPath {
  std::string Path;
  std::string Origin;
};

/// One parsed config file (or the empty default when Path is "").
struct ConfigFile {
  std::string Path;
  /// Named on the command line (--config): it may name programs, and rule
  /// packs anywhere. A config found beside the scanned files is data
  /// (docs/config.md, "Trust").
  bool Trusted = false;
  std::vector<GlobItem> Checks, WarningsAsErrors, ExcludeKernels;
  std::map<std::string, ConfiguredOptions, std::less<>> CheckOptions;
  std::map<std::string, std::string, std::less<>> CheckOptionsOrigin;
  std::vector<Suppression> Suppressions;
  std::vector<ConfigPath> Plugins, RulePacks;
  /// The file's [[family]] entries merged in front of the built-in table
  /// (docs/families.md); null when it has none.
  std::shared_ptr<const FamilyTable> Families;
  /// The file's own [[family]] and [[mapping]] entries as TOML, for
  /// --dump-config ("" when it has none).
  std::string FamilyEntries;
  /// Unknown keys, with "did you mean": "file:line:col: unknown key ...".
  std::vector<std::string> Warnings;
};

/// Reads a config file. Syntax and type errors name file:line:col; so does,
/// in a file that is not Trusted, a rule pack outside the file's folder.
llvm::Expected<std::shared_ptr<const ConfigFile>>
readConfigFile(llvm::StringRef Path, bool Trusted = false);

/// The options of an untrusted file that only a trusted one may set
/// (CheckInfo::ProgramOptions), each as "file:line:col: why".
std::vector<std::string> untrustedProgramOptions(const ConfigFile &F,
                                                 const CheckRegistry &R);

/// The nearest .gestell.toml in Dir or a folder above it ("" = none).
std::string findNearestConfig(llvm::StringRef Dir);

/// Path made absolute, with "." and ".." removed.
std::string normalizedPath(llvm::StringRef Path);

/// Which config applies: for each path, Explicit (--config) when given, else
/// the nearest .gestell.toml from the path, else from the current directory
/// ("" = none). Primary is the first path's (the current directory's when
/// there is no path): its instruction families and plugins serve the run.
struct ConfigChoice {
  std::string Primary;
  std::vector<std::string> PerPath;
};
ConfigChoice chooseConfigs(llvm::StringRef Explicit,
                           llvm::ArrayRef<std::string> Paths);

/// Makes the instruction families of a config file the run's table
/// (FamilyTable::setActive) when it defines any. For verbs that read no
/// other part of the config (stats, diff): the Primary of
/// chooseConfigs(Explicit, Paths); errors in the file are returned.
llvm::Error useConfigFamilies(llvm::StringRef Explicit,
                              llvm::ArrayRef<std::string> Paths);

/// What the command line adds on top of a file.
struct CommandLineConfig {
  std::vector<GlobItem> Checks, WarningsAsErrors;
};

/// A config file merged with the command line and resolved against the
/// registered checks.
class EffectiveConfig {
public:
  EffectiveConfig(std::shared_ptr<const ConfigFile> File,
                  const CommandLineConfig &CL, const CheckRegistry &Registry);

  const ConfigFile &file() const { return *File; }
  /// Enabled checks, sorted by id.
  llvm::ArrayRef<const RegisteredCheck *> enabled() const { return Enabled; }

  struct Decision {
    bool Enabled = false;
    const GlobItem *By = nullptr; ///< null: the check's default
  };
  Decision decide(const CheckInfo &Info) const;
  bool warningAsError(llvm::StringRef CheckId) const;
  const GlobItem *warningAsErrorBy(llvm::StringRef CheckId) const;
  bool excluded(llvm::StringRef Kernel) const;
  /// The first suppression that covers D (CheckId, Kernel, Target set).
  const Suppression *suppression(const Diagnostic &D) const;
  const ConfiguredOptions *options(llvm::StringRef CheckId) const;

  llvm::ArrayRef<GlobItem> checkGlobs() const { return Checks; }
  llvm::ArrayRef<GlobItem> warningsAsErrorsGlobs() const { return Promote; }

private:
  std::shared_ptr<const ConfigFile> File;
  std::vector<GlobItem> Checks, Promote;
  std::vector<const RegisteredCheck *> Enabled;
};

/// "did you mean 'X'?" suffix for Word among Known, or "" when none is close.
std::string didYouMean(llvm::StringRef Word,
                       llvm::ArrayRef<llvm::StringRef> Known);

/// --dump-config: the effective config as a file that reads back the same,
/// with every enabled check's options at their effective values.
void dumpConfig(llvm::raw_ostream &OS, const EffectiveConfig &Cfg,
                const std::map<std::string, OptionMap> &Options);

/// --explain-config: for every registered check, enabled or not and which
/// source (default, file:line:col, command line) decided it.
void explainConfig(llvm::raw_ostream &OS, const EffectiveConfig &Cfg,
                   const CheckRegistry &Registry);

/// --verify-config problems: unknown keys (from reading), globs that match
/// no check, options for unknown checks or keys the check does not have,
/// each with "did you mean". StoredOptions: id -> keys the check stores.
std::vector<std::string>
verifyConfig(const EffectiveConfig &Cfg, const CheckRegistry &Registry,
             const std::map<std::string, OptionMap> &StoredOptions);

} // namespace gestell::driver

#endif
