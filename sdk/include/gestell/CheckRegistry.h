//===- gestell/CheckRegistry.h - The checks a run can use -----------------===//
//
// Plugins add their checks here from their registration callback, the way a
// clang-tidy module fills ClangTidyCheckFactories:
//
//   void registerChecks(gestell::CheckRegistry &R) {
//     R.add<NarrowLoadCheck>();   // uses NarrowLoadCheck::info()
//   }
//
// A check id must start with the registering module's name and a '-'
// ("nvidia-register-spill" from the module "nvidia"), be lowercase letters,
// digits and '-', and be unique in the process; the summary must not be
// empty. A registration that breaks a rule, or calls fail(), fails as a
// whole: none of that module's checks stay registered.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_CHECKREGISTRY_H
#define GESTELL_CHECKREGISTRY_H

#include "gestell/Check.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gestell {

/// Makes one instance of a check. Called from worker threads: must not
/// touch shared mutable state.
using CheckFactory = std::function<std::unique_ptr<Check>(
    llvm::StringRef Name, CheckContext &Context)>;

struct RegisteredCheck {
  /// Keeps the module's shared library loaded while the check can be made.
  /// Declared first so that it is destroyed last, after Factory (whose
  /// code lives in the library).
  std::shared_ptr<const void> Keep;
  CheckInfo Info;
  CheckFactory Factory;
  std::string Module; ///< the plugin (module) that registered it
};

/// What registration can read about the run. Rule packs (`rules-<pack>-<id>`
/// checks) come from these paths.
struct RegistryEnvironment {
  /// gestell's data directory (<prefix>/share/gestell): shipped rule packs
  /// live in its checks/ folder.
  std::string DataDir;
  /// `rule-packs = [...]` from the config file, made absolute.
  std::vector<std::string> RulePacks;
};

class CheckRegistry {
public:
  explicit CheckRegistry(RegistryEnvironment Env = {});
  ~CheckRegistry();
  CheckRegistry(CheckRegistry &&) = default;
  CheckRegistry &operator=(CheckRegistry &&) = default;

  /// Adds a check. A bad id, an empty summary or a duplicate id makes the
  /// current module's registration fail (see endModule()).
  void add(CheckInfo Info, CheckFactory Factory);
  template <typename T> void add() {
    add(T::info(), [](llvm::StringRef Name, CheckContext &Context) {
      return std::unique_ptr<Check>(new T(Name, Context));
    });
  }
  /// Makes the current module's registration fail with the module's reason.
  void fail(const llvm::Twine &Message);

  const RegistryEnvironment &environment() const { return Env; }

  /// Every registered check, sorted by id.
  llvm::ArrayRef<RegisteredCheck> checks() const { return Checks; }
  const RegisteredCheck *find(llvm::StringRef Id) const;

  // The engine's side.

  /// Starts a module: checks added until endModule() belong to it and must
  /// carry its name as prefix. Keep holds its library.
  void beginModule(llvm::StringRef Name, std::shared_ptr<const void> Keep);
  /// Ends the module. On any failure its checks are removed and the error
  /// lists every problem.
  llvm::Error endModule();

private:
  RegistryEnvironment Env;
  std::vector<RegisteredCheck> Checks;
  std::string Module;
  std::shared_ptr<const void> Keep;
  size_t ModuleBegin = 0;
  bool InModule = false;
  std::vector<std::string> Problems;
};

/// True when Id is lowercase letters, digits and single '-' between words.
bool isValidCheckId(llvm::StringRef Id);

} // namespace gestell

#endif
