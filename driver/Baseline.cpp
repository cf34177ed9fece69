//===- Baseline.cpp - Lint against a baseline build -----------------------===//
#include "Baseline.h"
#include "KernelMatch.h"

#include "gestell/Ttgir.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <deque>
#include <map>
#include <memory>

using namespace llvm;

namespace gestell::driver {

namespace {
/// The key of K with its TTGIR read (when it has a readable one), and its
/// program and toolchain.
MatchKey fullKey(const Kernel &K) {
  std::unique_ptr<TtgirModule> M;
  if (K.has(Stage::TTGIR)) {
    Expected<std::unique_ptr<TtgirModule>> Read =
        parseTtgir(K.path(Stage::TTGIR));
    if (Read)
      M = std::move(*Read);
    else // The checks that read the TTGIR report it; matching knows less.
      consumeError(Read.takeError());
  }
  MatchKey Key = matchKeyOf(K, M.get());
  addIdentity(Key, K);
  return Key;
}
} // namespace

BaselineMatcher::BaselineMatcher(ArrayRef<const Kernel *> Current,
                                 ArrayRef<Kernel> Baseline) {
  for (const Kernel *K : Current)
    Head.push_back(matchKeyOf(*K, nullptr));
  for (const Kernel &K : Baseline)
    Base.push_back(matchKeyOf(K, nullptr));
  Cheap = matchKernels(Base, Head);

  // Where the cheap key leaves a choice, the TTGIR of every kernel of that
  // name on both sides is read and they are matched again.
  StringSet<> Undecided;
  for (unsigned H = 0; H < Head.size(); ++H)
    if (!Cheap.HeadMatch[H] && !Cheap.HeadCandidates[H].empty())
      Undecided.insert(Head[H].Name);
  for (unsigned B = 0; B < Base.size(); ++B)
    if (!Cheap.BaseMatch[B] && !Cheap.BaseCandidates[B].empty())
      Undecided.insert(Base[B].Name);
  AnyUndecided = !Undecided.empty();
  HeadNeeds.resize(Head.size());
  BaseNeeds.resize(Base.size());
  for (unsigned H = 0; H < Head.size(); ++H)
    HeadNeeds[H] = Undecided.contains(Head[H].Name);
  for (unsigned B = 0; B < Base.size(); ++B)
    BaseNeeds[B] = Undecided.contains(Base[B].Name);
}

bool BaselineMatcher::needsFullKey(bool InBaseline, unsigned I) const {
  return InBaseline ? BaseNeeds[I] : HeadNeeds[I];
}

void BaselineMatcher::setFullKey(bool InBaseline, unsigned I, MatchKey Key) {
  (InBaseline ? Base : Head)[I] = std::move(Key);
}

std::vector<std::optional<unsigned>> BaselineMatcher::finish() const {
  Matching M = AnyUndecided ? matchKernels(Base, Head) : Cheap;
  return std::vector<std::optional<unsigned>>(M.HeadMatch.begin(),
                                              M.HeadMatch.end());
}

std::vector<const Kernel *>
matchBaselineKernels(ArrayRef<const Kernel *> Current,
                     ArrayRef<Kernel> Baseline) {
  BaselineMatcher M(Current, Baseline);
  for (unsigned H = 0; H < Current.size(); ++H)
    if (M.needsFullKey(false, H))
      M.setFullKey(false, H, fullKey(*Current[H]));
  for (unsigned B = 0; B < Baseline.size(); ++B)
    if (M.needsFullKey(true, B))
      M.setFullKey(true, B, fullKey(Baseline[B]));
  std::vector<std::optional<unsigned>> Match = M.finish();
  std::vector<const Kernel *> Out(Current.size(), nullptr);
  for (unsigned H = 0; H < Current.size(); ++H)
    if (Match[H])
      Out[H] = &Baseline[*Match[H]];
  return Out;
}

void markBaselineStates(
    RunReport &Current, RunReport &&BaselineRun,
    ArrayRef<std::pair<const Kernel *, const Kernel *>> Matches) {
  // Which group a result belongs to: its matched kernel pair, else its
  // kernel name and target.
  std::map<std::pair<std::string, std::string>, std::string> CurrentGroup,
      BaseGroup;
  for (const auto &[Cur, Base] : Matches) {
    if (!Base)
      continue;
    std::string G = "pair\n" + Base->Dir + "\n" + Base->Name;
    CurrentGroup[{Cur->Dir, Cur->Name}] = G;
    BaseGroup[{Base->Dir, Base->Name}] = G;
  }
  auto groupOf = [](const auto &Groups, const Result &R) {
    auto It = Groups.find({R.KernelDir, R.Diag.Kernel});
    if (It != Groups.end())
      return It->second;
    return "kernel\n" + R.Diag.Kernel + "\n" + R.Diag.Target;
  };

  // Baseline results by group and fingerprint, in report order.
  std::map<std::string, std::map<std::string, std::deque<size_t>>> Pending;
  for (size_t I = 0; I < BaselineRun.Results.size(); ++I) {
    const Result &R = BaselineRun.Results[I];
    Pending[groupOf(BaseGroup, R)][fingerprint(R.Diag)].push_back(I);
  }
  std::vector<bool> Taken(BaselineRun.Results.size(), false);
  for (Result &R : Current.Results) {
    std::deque<size_t> &Same =
        Pending[groupOf(CurrentGroup, R)][fingerprint(R.Diag)];
    if (Same.empty()) {
      R.BaselineState = "new";
      continue;
    }
    const Result &Old = BaselineRun.Results[Same.front()];
    Taken[Same.front()] = true;
    Same.pop_front();
    R.BaselineState = Old.Diag.Severity == R.Diag.Severity &&
                              Old.Diag.Message == R.Diag.Message
                          ? "unchanged"
                          : "updated";
  }
  std::vector<Result> Absent;
  for (size_t I = 0; I < BaselineRun.Results.size(); ++I)
    if (!Taken[I]) {
      Absent.push_back(std::move(BaselineRun.Results[I]));
      Absent.back().BaselineState = "absent";
    }
  std::stable_sort(Absent.begin(), Absent.end(),
                   [](const Result &A, const Result &B) {
                     return diagnosticLess(A.Diag, B.Diag);
                   });
  std::move(Absent.begin(), Absent.end(), std::back_inserter(Current.Results));
}

} // namespace gestell::driver
