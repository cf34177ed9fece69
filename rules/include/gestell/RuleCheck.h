//===- gestell/RuleCheck.h - Running the rules of a rule pack -------------===//
//
// A loaded rule (gestell/RulePack.h) runs as an ordinary check: the engine
// registers each rule as `rules-<pack>-<id>` in the module "rules" with
// addRuleChecks(), and makes one RuleCheck per kernel like any check.
//
// A pattern rule walks the kernel's TTGIR: every op named match[0] starts a
// chain; from each op of the chain, the values it defines are followed to
// their users, through ops the rule lists in `through`, until an op named by
// the next link uses one as an operand. A complete chain is kept when every
// `where` predicate holds. A predicate that cannot be decided (a layout
// gestell does not model, a value without a type) makes the chain not match:
// rules flag what they can show.
//
// A count rule evaluates its `when` on the kernel's metrics and, with
// --baseline, its baseline kernel's (`base.` metrics are unknown without
// one, so a rule that reads them does not fire).
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_RULECHECK_H
#define GESTELL_RULECHECK_H

#include "gestell/Check.h"
#include "gestell/CheckRegistry.h"
#include "gestell/Expr.h"
#include "gestell/RulePack.h"
#include "gestell/Ttgir.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gestell {

/// One chain of ops that matched a pattern rule: Ops[i] is match[i].
struct RuleMatch {
  llvm::SmallVector<const Operation *, 4> Ops;
};

/// Finds and describes the matches of pattern rules in one module. Keeps
/// the module's parsed layouts between rules.
class RuleMatcher {
public:
  /// KernelTarget is used by `target` when the module does not say.
  explicit RuleMatcher(const TtgirModule &M, llvm::StringRef KernelTarget = "");
  ~RuleMatcher();
  RuleMatcher(const RuleMatcher &) = delete;
  RuleMatcher &operator=(const RuleMatcher &) = delete;

  /// The chains that match R's ops and satisfy its `where`, in text order
  /// of their first op. At most MaxMatches are returned.
  std::vector<RuleMatch> match(const Rule &R, size_t MaxMatches = 10000);
  /// T with its placeholders filled from M (canonical layouts, never the
  /// file's alias names).
  std::string render(const Template &T, const RuleMatch &M,
                     llvm::StringRef Kernel);
  /// Canonical text of the layout of a value (its type when it has none).
  std::string layoutText(const Value &V);

  struct Impl;

private:
  std::unique_ptr<Impl> I;
};

/// T filled for a count rule: metric placeholders from P.
std::string renderCountTemplate(const Template &T, const MetricProvider &P,
                                llvm::StringRef Kernel, llvm::StringRef Target);

/// The registration data of a rule: id, summary, level, stage, doc page.
/// DocPage: the rule's `doc`, else DefaultDoc.
CheckInfo ruleCheckInfo(const Rule &R, llvm::StringRef DefaultDoc);

/// Adds every rule of Packs as a check (call between the registry's
/// beginModule("rules") and endModule()). DefaultDoc(pack) gives the doc
/// page of rules without `doc`.
void addRuleChecks(
    CheckRegistry &Registry,
    llvm::ArrayRef<std::shared_ptr<const RulePack>> Packs,
    std::function<std::string(const RulePack &, const Rule &)> DefaultDoc);

/// The check that runs one rule (Rule lives in Pack).
class RuleCheck : public Check {
public:
  RuleCheck(llvm::StringRef Name, CheckContext &Context,
            std::shared_ptr<const RulePack> Pack, const Rule &R);
  llvm::Error check(CheckInput &In) override;

private:
  llvm::Error checkPattern(CheckInput &In);
  llvm::Error checkCount(CheckInput &In);

  std::shared_ptr<const RulePack> Pack;
  const Rule &R;
};

} // namespace gestell

#endif
