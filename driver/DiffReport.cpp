//===- DiffReport.cpp - From read states to one comparison ----------------===//
//
// Matches each later state with the base (KernelMatch.h), then, per base
// kernel, lines up family and opcode counts, TTGIR op changes, resources and
// gate results across the states. Sorting happens here, once, so every
// writer prints the same order.
//
//===----------------------------------------------------------------------===//
#include "DiffModel.h"

#include "gestell/Input.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>
#include <deque>
#include <set>

using namespace llvm;

namespace gestell::driver {

StringRef matchStatusName(MatchStatus S) {
  switch (S) {
  case MatchStatus::Base:
    return "base";
  case MatchStatus::Matched:
    return "matched";
  case MatchStatus::Disappeared:
    return "disappeared";
  case MatchStatus::Ambiguous:
    return "ambiguous";
  }
  return "base";
}

std::string formatDelta(int64_t D) {
  if (D == 0)
    return "";
  return (D > 0 ? "+" : "-") + std::to_string(D > 0 ? D : -D);
}

std::string formatCell(std::optional<uint64_t> V, std::optional<uint64_t> Base,
                       bool IsBase) {
  if (!V)
    return "-";
  std::string S = std::to_string(*V);
  if (!IsBase && Base && *V != *Base)
    S += " (" + formatDelta(int64_t(*V) - int64_t(*Base)) + ")";
  return S;
}

std::optional<uint64_t> pickCount(const std::optional<Count> &C, bool InLoops) {
  if (!C)
    return std::nullopt;
  return InLoops ? C->InLoops : C->Total;
}

StringRef isaTitle(Isa I) { return I == Isa::PTX ? "PTX" : "SASS"; }

std::string displayDir(const KernelSummary &K) {
  StringRef StatePath = *K.StatePath;
  SmallString<256> Abs(StatePath);
  sys::fs::make_absolute(Abs);
  sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  StringRef Root = StringRef(Abs).rtrim('/');
  StringRef Dir = K.K->Dir;
  if (Dir == Root)
    return StatePath.rtrim('/').str();
  if (Dir.starts_with(Root) && Dir.size() > Root.size() &&
      Dir[Root.size()] == '/')
    return StatePath.rtrim('/').str() + Dir.drop_front(Root.size()).str();
  return Dir.str();
}

std::string describeState(const KernelInState &K) {
  switch (K.Status) {
  case MatchStatus::Base:
    return "base";
  case MatchStatus::Matched: {
    if (K.How == MatchHow::Exact && K.Differences.empty())
      return "matched";
    std::string S = K.How == MatchHow::Explicit ? "paired by --pair"
                    : K.How == MatchHow::Closest
                        ? "paired with the closest configuration"
                        : "matched";
    for (size_t I = 0; I < K.Differences.size(); ++I)
      S += (I ? ", " : ": ") + K.Differences[I].Field + " " +
           K.Differences[I].Base + " -> " + K.Differences[I].Head;
    return S;
  }
  case MatchStatus::Disappeared:
    return "disappeared (no kernel with this key)";
  case MatchStatus::Ambiguous:
    return "ambiguous (" + std::to_string(K.Candidates.size()) + " candidates)";
  }
  return "";
}

std::string describeConstant(const KernelDiff &D) {
  std::string S;
  for (Isa I : {Isa::PTX, Isa::SASS}) {
    const auto &C = D.Constant[unsigned(I)];
    if (C.empty())
      continue;
    if (!S.empty())
      S += "; ";
    S += isaTitle(I).str() + " " + join(C, ", ");
  }
  if (S.empty())
    return S;
  bool Math = false;
  for (Isa I : {Isa::PTX, Isa::SASS})
    Math |= is_contained(D.Constant[unsigned(I)], "tensor");
  return "held constant: " + S +
         (Math ? " (tensor-core work unchanged: the math did not change)" : "");
}

std::string headingFacts(const MatchKey &K) {
  std::string S;
  if (!K.Target.empty())
    S += (" " + K.Target).str();
  if (K.NumWarps)
    S += ", " + std::to_string(*K.NumWarps) + " warps";
  if (K.NumStages)
    S += ", " + std::to_string(*K.NumStages) + " stages";
  return S;
}

bool ResourceRow::changed() const {
  for (const auto &V : Values)
    if (V && Values[0] && *V != *Values[0])
      return true;
  return false;
}

namespace {
uint64_t absDiff(uint64_t A, uint64_t B) { return A > B ? A - B : B - A; }

const StageCounts *countsOf(const KernelInState &K, Isa I) {
  return K.Summary ? K.Summary->Metrics->counts(I) : nullptr;
}

void finishRow(CountRow &R) {
  R.MaxMove = 0;
  if (!R.Values[0])
    return;
  for (size_t S = 1; S < R.Values.size(); ++S)
    if (R.Values[S])
      R.MaxMove =
          std::max({R.MaxMove, absDiff(R.Values[S]->Total, R.Values[0]->Total),
                    absDiff(R.Values[S]->InLoops, R.Values[0]->InLoops)});
}
} // namespace

std::vector<CountRow> familyRows(ArrayRef<std::string> FamilyIds,
                                 const KernelDiff &D) {
  const size_t N = D.States.size();
  std::vector<CountRow> Rows;
  for (Isa I : {Isa::PTX, Isa::SASS}) {
    if (none_of(D.States,
                [&](const KernelInState &K) { return countsOf(K, I); }))
      continue;
    Rows.reserve(Rows.size() + FamilyIds.size() + 2);
    auto addRow = [&](StringRef Name, auto Get) {
      CountRow &R = Rows.emplace_back();
      R.Name = Name.str();
      R.Stage = I;
      R.Values.resize(N);
      for (size_t S = 0; S < N; ++S)
        if (const StageCounts *C = countsOf(D.States[S], I))
          R.Values[S] = Get(*C);
      finishRow(R);
    };
    for (unsigned F = 0; F < FamilyIds.size(); ++F)
      addRow(FamilyIds[F], [F](const StageCounts &C) {
        return F < C.Families.size() ? C.Families[F] : Count();
      });
    addRow("other", [](const StageCounts &C) { return C.Other; });
    addRow("instructions", [](const StageCounts &C) { return C.Instructions; });
  }
  return Rows;
}

std::vector<ResourceRow> resourceRows(const KernelDiff &D) {
  std::vector<ResourceRow> Rows;
  for (Resource Res : {Resource::Registers, Resource::Stack, Resource::Local,
                       Resource::SharedStatic, Resource::SharedDynamic,
                       Resource::BlocksPerSM, Resource::WarpsPerSM}) {
    ResourceRow &R = Rows.emplace_back();
    R.Name = resourceName(Res).str();
    R.Values.resize(D.States.size());
    for (size_t S = 0; S < D.States.size(); ++S)
      if (const KernelSummary *K = D.States[S].Summary)
        if (std::optional<double> V = resourceValue(*K->Metrics, Res);
            V && *V >= 0)
          R.Values[S] = uint64_t(*V);
  }
  return Rows;
}

namespace {

void compareCounts(KernelDiff &D, ArrayRef<std::string> FamilyIds,
                   unsigned TopOpcodes) {
  const size_t N = D.States.size();
  std::vector<CountRow> Rows = familyRows(FamilyIds, D);
  for (Isa I : {Isa::PTX, Isa::SASS}) {
    if (none_of(Rows, [&](const CountRow &R) { return R.Stage == I; }))
      continue;
    for (const CountRow &R : Rows)
      if (R.Stage == I) {
        D.CountsChanged[unsigned(I)] |= R.changed();
        D.FamilyMove = std::max(D.FamilyMove, R.MaxMove);
      }
    // Families that held: the same in every state that has this stage.
    for (const CountRow &R : Rows) {
      if (R.Stage != I || R.Name == "other" || R.Name == "instructions" ||
          !R.Values[0] || R.Values[0]->Total == 0)
        continue;
      bool Compared = false, Same = true;
      for (size_t S = 1; S < N; ++S)
        if (R.Values[S]) {
          Compared = true;
          Same &= *R.Values[S] == *R.Values[0];
        }
      if (Compared && Same)
        D.Constant[unsigned(I)].push_back(R.Name);
    }

    // Opcodes, by how much they moved: none where every state shares the
    // base kernel's counts (a kernel a build left untouched, DiffRead.cpp).
    const StageCounts *BaseCounts = countsOf(D.States[0], I);
    if (all_of(drop_begin(D.States), [&](const KernelInState &K) {
          const StageCounts *C = countsOf(K, I);
          return !C || C == BaseCounts;
        }))
      continue;
    // Every state's counts are sorted by opcode: walked together, one row
    // per opcode any state has (zero where a state with the stage lacks
    // it), in opcode order; only a row that moved keeps its name.
    struct Cursor {
      OpcodeCounts::const_iterator At, End;
    };
    SmallVector<std::optional<Cursor>, 2> Cursors(N);
    for (size_t S = 0; S < N; ++S)
      if (const StageCounts *C = countsOf(D.States[S], I))
        Cursors[S] = Cursor{C->Opcodes.begin(), C->Opcodes.end()};
    while (true) {
      std::optional<StringRef> Next;
      for (const std::optional<Cursor> &C : Cursors)
        if (C && C->At != C->End && (!Next || (*C->At).Opcode < *Next))
          Next = (*C->At).Opcode;
      if (!Next)
        break;
      CountRow R;
      R.Stage = I;
      R.Values.resize(N);
      for (size_t S = 0; S < N; ++S) {
        std::optional<Cursor> &C = Cursors[S];
        if (!C)
          continue;
        R.Values[S] = Count();
        if (C->At != C->End && (*C->At).Opcode == *Next) {
          R.Values[S] = (*C->At).N;
          ++C->At;
        }
      }
      finishRow(R);
      if (R.changed()) {
        R.Name = Next->str();
        D.MovedOpcodes.push_back(std::move(R));
      }
    }
  }
  llvm::stable_sort(D.MovedOpcodes, [](const CountRow &A, const CountRow &B) {
    if (A.MaxMove != B.MaxMove)
      return A.MaxMove > B.MaxMove;
    if (A.Stage != B.Stage)
      return A.Stage < B.Stage;
    return A.Name < B.Name;
  });
  if (TopOpcodes && D.MovedOpcodes.size() > TopOpcodes)
    D.MovedOpcodes.resize(TopOpcodes);
}

std::string kernelLabel(const StateSummary &S, const KernelSummary &K) {
  return S.Label + " " + K.K->Dir + "/" + K.K->Name;
}

} // namespace

std::vector<StateTally> tallyStates(const DiffReport &R) {
  std::vector<StateTally> Out(R.States.size());
  for (const KernelDiff &D : R.Kernels)
    for (size_t S = 1; S < D.States.size(); ++S) {
      const KernelInState &K = D.States[S];
      Out[S].Changed += D.Changed && K.Status == MatchStatus::Matched;
      Out[S].Disappeared += K.Status == MatchStatus::Disappeared;
      Out[S].Ambiguous += K.Status == MatchStatus::Ambiguous;
    }
  for (const UnmatchedKernel &U : R.Appeared)
    ++Out[U.State].Appeared;
  for (const UnmatchedKernel &U : R.Ambiguous)
    ++Out[U.State].Ambiguous;
  for (const auto &[K, S] : R.GateHeld)
    ++Out[S].GateHeld;
  return Out;
}

namespace {

/// The (base, head) index pairs --pair names between Base and Head: the
/// kernels of one name in the two folders. Marks the pairs used.
std::vector<std::pair<unsigned, unsigned>>
forcedPairs(const StateSummary &Base, const StateSummary &Head,
            ArrayRef<std::pair<std::string, std::string>> Pairs,
            std::vector<bool> &Used) {
  std::vector<std::pair<unsigned, unsigned>> Out;
  if (Pairs.empty())
    return Out;
  // Each kernel's folder resolved once, not once per comparison.
  auto RealDirs = [](const StateSummary &S) {
    std::vector<std::string> Dirs;
    for (const KernelSummary &K : S.Kernels)
      Dirs.push_back(realPath(K.K->Dir));
    return Dirs;
  };
  std::vector<std::string> BaseDirs = RealDirs(Base), HeadDirs = RealDirs(Head);
  std::set<unsigned> TakenB, TakenH;
  for (size_t I = 0; I < Pairs.size(); ++I) {
    std::string A = realPath(Pairs[I].first), B = realPath(Pairs[I].second);
    if (A.empty() || B.empty())
      continue;
    for (unsigned X = 0; X < Base.Kernels.size(); ++X) {
      if (TakenB.count(X) || BaseDirs[X] != A)
        continue;
      for (unsigned Y = 0; Y < Head.Kernels.size(); ++Y)
        if (!TakenH.count(Y) && HeadDirs[Y] == B &&
            Head.Kernels[Y].K->Name == Base.Kernels[X].K->Name) {
          Out.push_back({X, Y});
          TakenB.insert(X);
          TakenH.insert(Y);
          Used[I] = true;
          break;
        }
    }
  }
  return Out;
}

/// The report's header: its states, their problems, the families, the
/// gates' text.
DiffReport reportHeader(const std::vector<StateSummary> &States,
                        const FamilyTable &Families, ArrayRef<Expr> Gates) {
  DiffReport R;
  for (const StateSummary &S : States) {
    R.States.push_back(&S);
    for (const DiscoveryProblem &P : S.Found.Problems)
      if (P.Severity == Level::Error)
        R.Problems.push_back(P.where() + ": " + P.Message);
    for (const KernelSummary &K : S.Kernels)
      for (const std::string &P : K.Metrics->Problems)
        R.Problems.push_back(P);
  }
  for (const Family &F : Families.families())
    R.Families.push_back(F.Id);
  for (const Expr &E : Gates)
    R.GateExprs.push_back(E.str());
  return R;
}

/// The keys of S's kernels, where its summaries hold them (not copied).
std::vector<const MatchKey *> keysOf(const StateSummary &S) {
  std::vector<const MatchKey *> Keys;
  Keys.reserve(S.Kernels.size());
  for (const KernelSummary &K : S.Kernels)
    Keys.push_back(&K.Key);
  return Keys;
}

/// Adds the identity (program, toolchain) to the keys of the kernels that
/// have several candidates, reading it now; whether any key gained one. A
/// key that gains it is a copy kept in Own (the summaries stay as read).
bool addTiedIdentities(std::vector<const MatchKey *> &Base,
                       std::vector<const MatchKey *> &Head, const Matching &M,
                       const StateSummary &B, const StateSummary &H,
                       std::deque<MatchKey> &Own) {
  bool Added = false;
  auto add = [&](const MatchKey *&Key, const Kernel &K) {
    if (Key->IdentityRead)
      return;
    MatchKey &Copy = Own.emplace_back(*Key);
    addIdentity(Copy, K);
    Key = &Copy;
    Added = true;
  };
  for (unsigned I = 0; I < Head.size(); ++I)
    if (M.HeadCandidates[I].size() > 1) {
      add(Head[I], *H.Kernels[I].K);
      for (unsigned J : M.HeadCandidates[I])
        add(Base[J], *B.Kernels[J].K);
    }
  for (unsigned J = 0; J < Base.size(); ++J)
    if (M.BaseCandidates[J].size() > 1) {
      add(Base[J], *B.Kernels[J].K);
      for (unsigned I : M.BaseCandidates[J])
        add(Head[I], *H.Kernels[I].K);
    }
  return Added;
}

/// Matches every later state with the base (index 0 is left empty); the
/// later kernels that match no base kernel, or several, go to R.Appeared
/// and R.Ambiguous. PairUsed: which --pair matched a kernel.
std::vector<Matching>
matchStates(const std::vector<StateSummary> &States,
            ArrayRef<std::pair<std::string, std::string>> Pairs, DiffReport &R,
            std::vector<bool> &PairUsed) {
  const size_t N = States.size();
  std::deque<MatchKey> Own; // keys that gained their identity
  std::vector<const MatchKey *> BaseKeys = keysOf(States[0]);
  std::vector<Matching> Ms(N);
  for (size_t S = 1; S < N; ++S) {
    MatchOptions MO;
    MO.PairLeftovers = true;
    MO.Forced = forcedPairs(States[0], States[S], Pairs, PairUsed);
    std::vector<const MatchKey *> Keys = keysOf(States[S]);
    Ms[S] = matchKernels(BaseKeys, Keys, MO);
    if (addTiedIdentities(BaseKeys, Keys, Ms[S], States[0], States[S], Own))
      Ms[S] = matchKernels(BaseKeys, Keys, MO);
    for (unsigned H = 0; H < States[S].Kernels.size(); ++H) {
      if (Ms[S].HeadMatch[H])
        continue;
      UnmatchedKernel U;
      U.State = S;
      U.Summary = &States[S].Kernels[H];
      if (Ms[S].HeadCandidates[H].empty()) {
        U.Status = MatchStatus::Disappeared; // i.e. appeared in S
        R.Appeared.push_back(std::move(U));
        continue;
      }
      U.Status = MatchStatus::Ambiguous;
      U.Candidates.reserve(Ms[S].HeadCandidates[H].size());
      for (unsigned B : Ms[S].HeadCandidates[H])
        U.Candidates.push_back(&States[0].Kernels[B]);
      R.Ambiguous.push_back(std::move(U));
    }
  }
  return Ms;
}

/// The base kernels in a deterministic order: key, then folder.
std::vector<unsigned> baseOrder(const StateSummary &Base) {
  std::vector<unsigned> Order(Base.Kernels.size());
  for (unsigned I = 0; I < Order.size(); ++I)
    Order[I] = I;
  llvm::stable_sort(Order, [&](unsigned A, unsigned B) {
    const KernelSummary &KA = Base.Kernels[A], &KB = Base.Kernels[B];
    if (KA.Key < KB.Key)
      return true;
    if (KB.Key < KA.Key)
      return false;
    return KA.K->Dir < KB.K->Dir;
  });
  return Order;
}

/// Base kernel B in every state: itself, its match, or why there is none.
std::vector<KernelInState>
statesOfBaseKernel(unsigned B, const std::vector<StateSummary> &States,
                   ArrayRef<Matching> Ms) {
  const KernelSummary &Base = States[0].Kernels[B];
  std::vector<KernelInState> Out(States.size());
  Out[0].Status = MatchStatus::Base;
  Out[0].Summary = &Base;
  for (size_t S = 1; S < States.size(); ++S) {
    KernelInState &KS = Out[S];
    if (std::optional<unsigned> H = Ms[S].BaseMatch[B]) {
      KS.Status = MatchStatus::Matched;
      KS.Summary = &States[S].Kernels[*H];
      KS.How = Ms[S].HeadHow[*H];
      KS.Differences = keyDifferences(Base.Key, KS.Summary->Key);
    } else if (Ms[S].BaseCandidates[B].empty()) {
      KS.Status = MatchStatus::Disappeared;
    } else {
      KS.Status = MatchStatus::Ambiguous;
      KS.Candidates.reserve(Ms[S].BaseCandidates[B].size()); // kept all run
      for (unsigned H : Ms[S].BaseCandidates[B])
        KS.Candidates.push_back(&States[S].Kernels[H]);
    }
  }
  return Out;
}

/// Evaluates each gate on every matched later kernel of D, the report's
/// kernel number Index; a gate that holds, or cannot be decided, is also
/// recorded in R.
void evaluateGates(KernelDiff &D, size_t Index,
                   const std::vector<StateSummary> &States,
                   ArrayRef<Expr> Gates, DiffReport &R) {
  const KernelSummary &Base = *D.States[0].Summary;
  for (const Expr &E : Gates) {
    GateResult G;
    G.Expr = E.str();
    G.Results.resize(States.size());
    for (size_t S = 1; S < States.size(); ++S) {
      const KernelSummary *Head = D.States[S].Summary;
      if (!Head)
        continue;
      KernelMetricProvider P(*Head->Metrics, Base.Metrics.get(), D.Name);
      ExprResult Res = E.evaluate(P);
      if (Res.holds())
        R.GateHeld.push_back({Index, unsigned(S)});
      else if (Res.T == ExprResult::Truth::Unknown)
        R.GateUnknown.push_back(kernelLabel(States[S], *Head) + ": '" + G.Expr +
                                "': " + Res.WhyUnknown);
      G.Results[S] = std::move(Res);
    }
    D.Gates.push_back(std::move(G));
  }
}

/// Has the counts made (Make) of every summary read without them
/// (KernelSummary::CountsUnmade) that the report compares: all but those of
/// a base kernel whose every later state holds a match that shares its
/// metrics (twins, DiffRead.cpp), whose counts nothing compares or shows.
void makeComparedCounts(std::vector<StateSummary> &States,
                        ArrayRef<Matching> Ms, CountMaker Make) {
  DenseSet<const KernelSummary *> Shared;
  for (unsigned B = 0; B < States[0].Kernels.size(); ++B) {
    const KernelSummary &Base = States[0].Kernels[B];
    if (!Base.CountsUnmade)
      continue;
    SmallVector<const KernelSummary *, 2> Twins{&Base};
    for (size_t S = 1; S < States.size(); ++S)
      if (std::optional<unsigned> H = Ms[S].BaseMatch[B];
          H && States[S].Kernels[*H].Metrics == Base.Metrics)
        Twins.push_back(&States[S].Kernels[*H]);
    if (Twins.size() == States.size())
      Shared.insert(Twins.begin(), Twins.end());
  }
  std::vector<KernelSummary *> Unmade;
  for (StateSummary &S : States)
    for (KernelSummary &K : S.Kernels)
      if (K.CountsUnmade && !Shared.contains(&K))
        Unmade.push_back(&K);
  if (!Unmade.empty())
    Make(Unmade);
}

/// Base kernel B compared across the states.
KernelDiff compareKernel(unsigned B, const std::vector<StateSummary> &States,
                         ArrayRef<Matching> Ms, ArrayRef<std::string> FamilyIds,
                         unsigned TopOpcodes) {
  const KernelSummary &Base = States[0].Kernels[B];
  KernelDiff D;
  D.Name = Base.K->Name;
  D.States = statesOfBaseKernel(B, States, Ms);
  compareCounts(D, FamilyIds, TopOpcodes);
  std::vector<StateTtgir> Ttgirs(States.size());
  for (size_t S = 0; S < States.size(); ++S)
    if (const KernelSummary *K = D.States[S].Summary; K && K->Ttgir)
      Ttgirs[S] = {K->Ttgir.get(), K->K->path(Stage::TTGIR)};
  D.Ttgir = diffTtgir(Ttgirs);
  D.Changed =
      D.CountsChanged[0] || D.CountsChanged[1] || !D.Ttgir.empty() ||
      any_of(resourceRows(D), [](const ResourceRow &C) { return C.changed(); });
  return D;
}

} // namespace

DiffReport buildDiffReport(std::vector<StateSummary> &States,
                           const FamilyTable &Families, ArrayRef<Expr> Gates,
                           DiffOptions Opts, CountMaker Make) {
  DiffReport R = reportHeader(States, Families, Gates);
  std::vector<bool> PairUsed(Opts.Pairs.size());
  std::vector<Matching> Ms = matchStates(States, Opts.Pairs, R, PairUsed);
  makeComparedCounts(States, Ms, Make);
  std::vector<unsigned> Order = baseOrder(States[0]);
  R.Kernels.reserve(Order.size()); // kept until the report is written
  for (unsigned B : Order) {
    KernelDiff D = compareKernel(B, States, Ms, R.Families, Opts.TopOpcodes);
    evaluateGates(D, R.Kernels.size(), States, Gates, R);
    R.Kernels.push_back(std::move(D));
  }
  for (size_t I = 0; I < Opts.Pairs.size(); ++I)
    if (!PairUsed[I])
      R.Problems.push_back("--pair=" + Opts.Pairs[I].first + ":" +
                           Opts.Pairs[I].second +
                           ": no kernel of the first folder (in the base) "
                           "has a kernel of its name in the second (in a "
                           "later state)");
  // GateHeld may repeat a (kernel, state) for several gates: once each.
  llvm::sort(R.GateHeld);
  R.GateHeld.erase(std::unique(R.GateHeld.begin(), R.GateHeld.end()),
                   R.GateHeld.end());
  return R;
}

} // namespace gestell::driver
