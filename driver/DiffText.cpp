//===- DiffText.cpp - gestell diff as tables for a terminal ---------------===//
//
// One section per base kernel. A kernel whose counts, TTGIR and resources
// are the same in every state gets one line; a changed one gets its family
// table (in loops and total, every state side by side with its delta to the
// base), the families that held, the opcodes that moved most, the TTGIR ops
// added or removed per loop with where they are, and its resources.
//
//===----------------------------------------------------------------------===//
#include "DiffModel.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace gestell::driver {

namespace {

/// Left-aligned columns, two spaces apart, no trailing spaces.
class Table {
public:
  void row(std::vector<std::string> Cells) { Rows.push_back(std::move(Cells)); }
  void print(raw_ostream &OS, unsigned Indent) const {
    std::vector<size_t> W;
    for (const auto &R : Rows)
      for (size_t I = 0; I < R.size(); ++I) {
        if (W.size() <= I)
          W.push_back(0);
        W[I] = std::max(W[I], R[I].size());
      }
    for (const auto &R : Rows) {
      std::string Line(Indent, ' ');
      for (size_t I = 0; I < R.size(); ++I) {
        Line += R[I];
        if (I + 1 < R.size())
          Line += std::string(W[I] - R[I].size() + 2, ' ');
      }
      OS << StringRef(Line).rtrim() << "\n";
    }
  }

private:
  std::vector<std::vector<std::string>> Rows;
};

std::string fileName(StringRef Path) { return sys::path::filename(Path).str(); }

std::string site(const TtgirOpSite &S) {
  std::string Out = fileName(S.File) + ":" + std::to_string(S.Line) + ":" +
                    std::to_string(S.Column);
  if (!S.Source.empty())
    Out += "  " + S.Source;
  if (!S.Type.empty())
    Out += "  " + S.Type;
  if (!S.Cost.empty())
    Out += "  cost " + S.Cost;
  return Out;
}

void header(Table &T, const DiffReport &R, StringRef First, bool TwoGroups) {
  std::vector<std::string> Row{First.str()};
  for (int G = 0; G < (TwoGroups ? 2 : 1); ++G)
    for (const StateSummary *S : R.States)
      Row.push_back(S->Label);
  T.row(std::move(Row));
}

void writeCounts(raw_ostream &OS, const DiffReport &R, const KernelDiff &D) {
  const size_t N = R.States.size();
  std::vector<CountRow> Families = familyRows(R.Families, D);
  for (Isa I : {Isa::PTX, Isa::SASS}) {
    if (!D.countsChanged(I)) {
      bool Has =
          any_of(Families, [&](const CountRow &C) { return C.Stage == I; });
      if (Has)
        OS << "  " << isaTitle(I) << ": no change in family or opcode counts\n";
      continue;
    }
    OS << "\n";
    Table T;
    std::vector<std::string> Top{(isaTitle(I) + " family").str(), "in loops"};
    Top.resize(1 + N, "");
    Top.push_back("total");
    T.row(Top);
    header(T, R, "", true);
    for (const CountRow &C : Families) {
      if (C.Stage != I)
        continue;
      bool AllZero = all_of(C.Values, [](const std::optional<Count> &V) {
        return !V || V->Total == 0;
      });
      if (AllZero)
        continue;
      std::vector<std::string> Row{"  " + C.Name};
      for (bool Loop : {true, false})
        for (size_t S = 0; S < N; ++S)
          Row.push_back(formatCell(pickCount(C.Values[S], Loop),
                                   pickCount(C.Values[0], Loop), S == 0));
      T.row(std::move(Row));
    }
    T.print(OS, 2);
  }
  if (std::string C = describeConstant(D); !C.empty() && D.Changed)
    OS << "  " << C << "\n";

  if (!D.MovedOpcodes.empty()) {
    OS << "\n";
    Table T;
    std::vector<std::string> Top{"opcodes that moved most", "in loops"};
    Top.resize(1 + N, "");
    Top.push_back("total");
    T.row(Top);
    header(T, R, "", true);
    for (const CountRow &C : D.MovedOpcodes) {
      std::vector<std::string> Row{"  " + isaTitle(C.Stage).str() + " " +
                                   C.Name};
      for (bool Loop : {true, false})
        for (size_t S = 0; S < N; ++S)
          Row.push_back(formatCell(pickCount(C.Values[S], Loop),
                                   pickCount(C.Values[0], Loop), S == 0));
      T.row(std::move(Row));
    }
    T.print(OS, 2);
  }
}

void writeTtgir(raw_ostream &OS, const DiffReport &R, const KernelDiff &D) {
  if (D.Ttgir.empty()) {
    bool Has = any_of(D.States, [](const KernelInState &K) {
      return K.Summary && K.Summary->Ttgir;
    });
    if (Has)
      OS << "  TTGIR: no op added or removed\n";
    return;
  }
  const size_t N = R.States.size();
  OS << "\n  TTGIR ops added or removed, per loop (by op and canonical "
        "layouts)\n";
  StringRef Loop;
  for (const TtgirChange &C : D.Ttgir) {
    if (C.Loop != Loop) {
      Loop = C.Loop;
      OS << "    "
         << (C.LoopLine[0] || C.Loop != "(outside loops)" ? "loop " : "")
         << C.Loop;
      std::vector<std::string> Lines;
      for (size_t S = 0; S < N; ++S)
        if (C.LoopLine[S])
          Lines.push_back(R.States[S]->Label + " line " +
                          std::to_string(*C.LoopLine[S]));
      if (!Lines.empty())
        OS << "  (" << join(Lines, ", ") << ")";
      OS << "\n";
      if (!C.LoopSourceText.empty())
        OS << "      | " << C.LoopSourceText << "\n";
    }
    std::string What = C.Group.Op;
    if (!C.Group.Layouts.empty())
      What += " " + C.Group.Layouts;
    std::vector<std::string> Counts;
    for (size_t S = 0; S < N; ++S)
      Counts.push_back(R.States[S]->Label + " " +
                       formatCell(C.count(S), C.count(0), S == 0));
    OS << "      " << What << ": " << join(Counts, ", ") << "\n";
    for (size_t S = 0; S < N; ++S)
      for (const TtgirOpSite &Site : C.Sites[S]) {
        OS << "        " << R.States[S]->Label << ": " << site(Site) << "\n";
        if (!Site.SourceText.empty())
          OS << "          | " << Site.SourceText << "\n";
      }
    if (!C.Group.Src.empty()) {
      OS << "        " << C.Group.Src;
      if (!C.Group.Dst.empty())
        OS << " -> " << C.Group.Dst;
      OS << "\n";
    }
  }
}

void writeResources(raw_ostream &OS, const DiffReport &R, const KernelDiff &D) {
  std::vector<ResourceRow> Resources = resourceRows(D);
  bool Changed =
      any_of(Resources, [](const ResourceRow &C) { return C.changed(); });
  if (!Changed) {
    OS << "  resources: no change\n";
    return;
  }
  OS << "\n";
  Table T;
  header(T, R, "resources", false);
  for (const ResourceRow &C : Resources) {
    std::vector<std::string> Row{"  " + C.Name};
    for (size_t S = 0; S < C.Values.size(); ++S)
      Row.push_back(formatCell(C.Values[S], C.Values[0], S == 0));
    T.row(std::move(Row));
  }
  T.print(OS, 2);
}

std::string gateValues(const ExprResult &E) {
  std::vector<std::string> Parts;
  for (const auto &[Name, V] : E.Used) {
    std::string P = Name + " = ";
    if (V.Value)
      P += formatCell(uint64_t(*V.Value), std::nullopt, true) +
           (V.Stage.empty() ? "" : " (" + V.Stage + ")");
    else
      P += "unknown";
    Parts.push_back(P);
  }
  return join(Parts, ", ");
}

void writeGates(raw_ostream &OS, const DiffReport &R, const KernelDiff &D) {
  for (const GateResult &G : D.Gates) {
    OS << "  gate '" << G.Expr << "'\n";
    for (size_t S = 1; S < G.Results.size(); ++S) {
      if (!G.Results[S])
        continue;
      const ExprResult &E = *G.Results[S];
      StringRef Verdict = E.holds()                         ? "HELD"
                          : E.T == ExprResult::Truth::False ? "not held"
                                                            : "undecided";
      OS << "    " << R.States[S]->Label << ": " << Verdict;
      if (E.T == ExprResult::Truth::Unknown && !E.WhyUnknown.empty())
        OS << " (" << E.WhyUnknown << ")";
      OS << ": " << gateValues(E) << "\n";
    }
  }
}

void writeFindings(raw_ostream &OS, const DiffReport &R,
                   ArrayRef<CheckFinding> Findings, unsigned Indent) {
  std::string Pad(Indent, ' ');
  for (size_t I = 0; I < Findings.size(); ++I) {
    const CheckFinding &F = Findings[I];
    if (I == 0 || F.State != Findings[I - 1].State ||
        F.Change != Findings[I - 1].Change) {
      size_t N = 0;
      for (size_t J = I; J < Findings.size() && Findings[J].State == F.State &&
                         Findings[J].Change == F.Change;
           ++J)
        ++N;
      OS << Pad
         << (F.Change == "new" ? "checks that fire only in "
                               : "checks that no longer fire in ")
         << R.States[F.State]->Label << " (" << N << ")\n";
    }
    OS << Pad << "  " << F.Level << ": " << F.Message << " [" << F.CheckId
       << "]\n";
    OS << Pad << "    " << fileName(F.File);
    if (F.Line)
      OS << ":" << F.Line << (F.Column ? ":" + std::to_string(F.Column) : "");
    if (!F.Source.empty())
      OS << "  " << F.Source;
    OS << "\n";
  }
}

/// The stages a matched kernel could not be compared on, with the states
/// that lack them ("PTX, SASS (absent in bin)"): "" when every compared
/// state has PTX, SASS and TTGIR alike.
std::string notCompared(const DiffReport &R, const KernelDiff &D) {
  std::vector<std::string> Parts;
  auto check = [&](StringRef Stage, auto Has) {
    std::vector<std::string> Without;
    bool Any = false;
    for (size_t S = 0; S < D.States.size(); ++S) {
      const KernelInState &K = D.States[S];
      if (!K.Summary || (S && K.Status != MatchStatus::Matched))
        continue;
      if (Has(*K.Summary))
        Any = true;
      else
        Without.push_back(R.States[S]->Label);
    }
    if (Any && !Without.empty())
      Parts.push_back(Stage.str() + " (absent in " + join(Without, ", ") + ")");
  };
  check("PTX",
        [](const KernelSummary &K) { return K.Metrics->counts(Isa::PTX); });
  check("SASS",
        [](const KernelSummary &K) { return K.Metrics->counts(Isa::SASS); });
  check("TTGIR", [](const KernelSummary &K) { return K.Ttgir != nullptr; });
  return join(Parts, ", ");
}

/// The candidates of an ambiguous kernel, one a line after Lead: the first
/// few, then how many more (a test suite's cache names dozens of kernels
/// `kernel` alike; JSON lists every one).
void writeCandidates(raw_ostream &OS, StringRef Indent, StringRef Lead,
                     ArrayRef<const KernelSummary *> Candidates, bool WithKey) {
  constexpr size_t Shown = 8;
  for (const KernelSummary *C : Candidates.take_front(Shown)) {
    OS << Indent << Lead << displayDir(*C);
    if (WithKey)
      OS << "  " << C->Key.str();
    OS << "\n";
  }
  if (Candidates.size() > Shown)
    OS << Indent << "... " << Candidates.size() - Shown
       << " more candidates (--format=json lists them all)\n";
}

void writeKernel(raw_ostream &OS, const DiffReport &R, const KernelDiff &D) {
  OS << "\n" << D.Name;
  if (!D.key().Target.empty())
    OS << "  " << D.key().Target;
  if (D.key().NumWarps)
    OS << "  " << *D.key().NumWarps << " warps";
  if (D.key().NumStages)
    OS << "  " << *D.key().NumStages << " stages";
  OS << "\n";
  if (D.key().Signature)
    OS << "  signature " << *D.key().Signature << "\n";
  if (D.key().Tiles && !D.key().Tiles->empty())
    OS << "  tiles " << *D.key().Tiles << "\n";
  Table T;
  for (size_t S = 0; S < D.States.size(); ++S) {
    const KernelInState &K = D.States[S];
    T.row({R.States[S]->Label, K.Summary ? displayDir(*K.Summary) : "-",
           describeState(K)});
  }
  T.print(OS, 2);
  for (size_t S = 1; S < D.States.size(); ++S)
    writeCandidates(OS, "    ",
                    R.States[S]->Label + " candidate: ", D.States[S].Candidates,
                    /*WithKey=*/true);

  bool Compared = any_of(D.States, [](const KernelInState &K) {
    return K.Status == MatchStatus::Matched;
  });
  if (Compared && !D.Changed) {
    if (std::string Not = notCompared(R, D); !Not.empty())
      OS << "  no change in what the states share; not compared: " << Not
         << "\n";
    else
      OS << "  no change: PTX and SASS counts, TTGIR ops and resources are "
            "identical\n";
  } else if (Compared) {
    writeCounts(OS, R, D);
    writeTtgir(OS, R, D);
    writeResources(OS, R, D);
  }
  if (!D.Checks.empty()) {
    OS << "\n";
    writeFindings(OS, R, D.Checks, 2);
  }
  writeGates(OS, R, D);
}

} // namespace

void writeDiffText(raw_ostream &OS, const DiffReport &R) {
  OS << "gestell diff: base '" << R.States[0]->Label << "'";
  if (R.States.size() > 2)
    OS << ", each later state compared with it";
  OS << "\n";
  Table T;
  for (const StateSummary *S : R.States)
    T.row({S->Label, S->Path,
           std::to_string(S->Kernels.size()) +
               (S->Kernels.size() == 1 ? " kernel" : " kernels")});
  T.print(OS, 2);

  for (const KernelDiff &D : R.Kernels)
    writeKernel(OS, R, D);

  if (!R.Appeared.empty() || !R.Ambiguous.empty())
    OS << "\n";
  for (const UnmatchedKernel &U : R.Appeared)
    OS << "appeared in " << R.States[U.State]->Label << ": "
       << displayDir(*U.Summary) << "  " << U.Summary->Key.str() << "\n";
  for (const UnmatchedKernel &U : R.Ambiguous) {
    OS << "ambiguous in " << R.States[U.State]->Label << ": "
       << displayDir(*U.Summary) << "  " << U.Summary->Key.str() << " matches "
       << U.Candidates.size() << " base kernels:\n";
    writeCandidates(OS, "  ", "", U.Candidates, /*WithKey=*/false);
  }

  if (!R.OtherChecks.empty()) {
    OS << "\nkernels without a match:\n";
    writeFindings(OS, R, R.OtherChecks, 0);
  }

  size_t Changed =
      count_if(R.Kernels, [](const KernelDiff &D) { return D.Changed; });
  size_t Disappeared = 0, Ambiguous = 0;
  for (const StateTally &T : tallyStates(R)) {
    Disappeared += T.Disappeared;
    Ambiguous += T.Ambiguous; // base kernels and later-state kernels
  }
  OS << "\nsummary: " << R.Kernels.size()
     << (R.Kernels.size() == 1 ? " base kernel, " : " base kernels, ")
     << Changed << " changed, " << R.Appeared.size() << " appeared, "
     << Disappeared << " disappeared, " << Ambiguous << " ambiguous\n";
  if (R.ChecksRan && !R.EnabledChecks.empty()) {
    size_t New = 0, Gone = 0;
    auto tally = [&](ArrayRef<CheckFinding> Fs) {
      for (const CheckFinding &F : Fs)
        (F.Change == "new" ? New : Gone) += 1;
    };
    for (const KernelDiff &D : R.Kernels)
      tally(D.Checks);
    tally(R.OtherChecks);
    OS << "checks: " << R.EnabledChecks.size() << " enabled, " << New
       << " results only in a later state, " << Gone << " only in the base\n";
  }
  if (!R.GateExprs.empty()) {
    OS << "gate: ";
    if (R.GateHeld.empty())
      OS << "held for no kernel\n";
    else {
      std::vector<std::string> Held;
      for (const auto &[K, S] : R.GateHeld)
        Held.push_back(R.Kernels[K].Name + " in " + R.States[S]->Label);
      OS << "held for " << join(Held, ", ") << "\n";
    }
  }
}

} // namespace gestell::driver
