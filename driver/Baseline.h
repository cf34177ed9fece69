//===- Baseline.h - Lint against a baseline build -------------------------===//
//
// `gestell check --baseline=PATH`:
//   1. every kernel gets the baseline build's kernel that matches it, by the
//      key `gestell diff` uses (KernelMatch.h: name, target, num_warps,
//      num_stages, then TTGIR signature and tile shapes), never by cache
//      folder or position; when the key leaves several candidates the
//      kernel gets no baseline rather than a guess. The TTGIR is read only
//      for kernels whose cheap key (name, target, warps, stages) collides;
//   2. checks run on both builds, and each result is marked with its SARIF
//      baselineState by matching results on their fingerprint (check id,
//      kernel name, target, normalized context), within each matched kernel
//      pair (kernels without a unique match: by kernel name and target):
//        new        only the current build has it;
//        unchanged  both have it with the same level and message;
//        updated    both have it, the level or message changed (a count in
//                   the message, say);
//        absent     only the baseline has it: added to the report, pointing
//                   at the baseline's artifacts, and never counted for the
//                   exit status.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_DRIVER_BASELINE_H
#define GESTELL_DRIVER_BASELINE_H

#include "KernelMatch.h"
#include "Runner.h"

#include "gestell/Bundle.h"

#include "llvm/ADT/ArrayRef.h"

#include <optional>
#include <vector>

namespace gestell::driver {

/// For each kernel of Current, the one baseline kernel it matches, or null
/// (none, or ambiguous).
std::vector<const Kernel *>
matchBaselineKernels(llvm::ArrayRef<const Kernel *> Current,
                     llvm::ArrayRef<Kernel> Baseline);

/// matchBaselineKernels in two steps, for a caller that reads the TTGIR
/// itself (gestell diff reads each kernel once): the cheap keys decide
/// first; then the caller gives the full key (matchKeyOf with the TTGIR) of
/// each kernel needsFullKey() names, and finish() matches again.
class BaselineMatcher {
public:
  BaselineMatcher(llvm::ArrayRef<const Kernel *> Current,
                  llvm::ArrayRef<Kernel> Baseline);
  /// Whether kernel I of Current (or of Baseline) needs its full key: its
  /// name is one the cheap keys leave undecided.
  bool needsFullKey(bool InBaseline, unsigned I) const;
  void setFullKey(bool InBaseline, unsigned I, MatchKey Key);
  /// For each kernel of Current, the index of its baseline kernel, if any.
  std::vector<std::optional<unsigned>> finish() const;

private:
  std::vector<MatchKey> Head, Base;
  std::vector<bool> HeadNeeds, BaseNeeds;
  bool AnyUndecided = false;
  Matching Cheap;
};

/// Sets Result::BaselineState on every result of Current and appends the
/// baseline results that Current lacks as "absent". Matches maps current
/// kernels (by folder and name) to their baseline kernels.
void markBaselineStates(
    RunReport &Current, RunReport &&BaselineRun,
    llvm::ArrayRef<std::pair<const Kernel *, const Kernel *>> Matches);

} // namespace gestell::driver

#endif
