//===- RulePacks.cpp - Rule packs as checks of the module "rules" ---------===//
#include "RulePacks.h"

#include "gestell/RuleCheck.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace gestell::driver {

std::string shippedPackDir(StringRef DataDir) {
  SmallString<256> D(DataDir);
  sys::path::append(D, "checks");
  return std::string(D);
}

std::string ruleDocPage(const RulePack &Pack, const Rule &R,
                        StringRef ShippedDir) {
  if (!ShippedDir.empty() && sys::path::parent_path(Pack.Path) == ShippedDir)
    return "checks/" + R.CheckId + ".md";
  return "rules.md";
}

Error registerRulePacks(CheckRegistry &Registry, ArrayRef<std::string> Paths,
                        StringRef ShippedDir, bool KeepGoing,
                        std::vector<Notification> &Problems) {
  PackSet Set = loadRulePacks(Paths, FamilyTable::active());
  if (!Set.ok() && !KeepGoing) {
    std::string Msg;
    raw_string_ostream OS(Msg);
    OS << Set.Problems.size()
       << (Set.Problems.size() == 1 ? " problem" : " problems")
       << " in rule packs (--keep-going runs the rules that loaded):\n";
    for (const PackProblem &P : Set.Problems)
      printPackProblem(OS, P);
    return createStringError(inconvertibleErrorCode(),
                             StringRef(Msg).rtrim("\n"));
  }
  for (const PackProblem &P : Set.Problems) {
    Notification N;
    N.Severity = Level::Error;
    N.File = P.File;
    std::string Where = P.File;
    if (P.Line)
      Where += ":" + std::to_string(P.Line) + ":" + std::to_string(P.Column);
    N.Message = Where + ": " + P.Message;
    if (!P.RuleId.empty())
      N.Message += " (rule '" + P.RuleId + "' not loaded)";
    else
      N.Message += " (no rule of this file loaded)";
    Problems.push_back(std::move(N));
  }
  std::string Shipped = ShippedDir.str();
  Registry.beginModule("rules", nullptr);
  addRuleChecks(Registry, Set.Packs, [&](const RulePack &Pack, const Rule &R) {
    return ruleDocPage(Pack, R, Shipped);
  });
  if (Error E = Registry.endModule())
    return createStringError(inconvertibleErrorCode(),
                             "rule packs: " + toString(std::move(E)));
  return Error::success();
}

} // namespace gestell::driver
