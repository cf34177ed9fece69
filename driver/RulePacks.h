//===- RulePacks.h - Rule packs as checks of the module "rules" -----------===//
//
// The driver loads rule packs itself (the rules need no compiled code): the
// shipped packs in <datadir>/checks/, then the packs a config names
// (`rule-packs = [...]`), and registers every rule as the check
// `rules-<pack>-<id>` of the module "rules", between the compiled modules'
// checks. A bad rule stops the run (exit 2) with every problem printed like
// a compiler's; with --keep-going the rules that loaded run and each problem
// is a tool notification (SARIF toolExecutionNotifications), still exit 2.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_DRIVER_RULEPACKS_H
#define GESTELL_DRIVER_RULEPACKS_H

#include "Runner.h"

#include "gestell/CheckRegistry.h"
#include "gestell/RulePack.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace gestell::driver {

/// The folder of shipped packs: <DataDir>/checks.
std::string shippedPackDir(llvm::StringRef DataDir);

/// The doc page of a rule without `doc`: checks/<id>.md for a shipped pack
/// (docs/checks/ has one per shipped rule), rules.md otherwise.
std::string ruleDocPage(const RulePack &Pack, const Rule &R,
                        llvm::StringRef ShippedDir);

/// Loads Paths (files or folders of packs, in order) and registers their
/// rules into Registry as the module "rules". Without KeepGoing any problem
/// is an Error listing all of them (nothing is registered); with KeepGoing
/// the good rules are registered and every problem is appended to Problems
/// as an error-level notification.
llvm::Error registerRulePacks(CheckRegistry &Registry,
                              llvm::ArrayRef<std::string> Paths,
                              llvm::StringRef ShippedDir, bool KeepGoing,
                              std::vector<Notification> &Problems);

} // namespace gestell::driver

#endif
