//===- DiffMarkdown.cpp - gestell diff for a PR comment or job summary ----===//
//
// GitHub-flavored Markdown: the verdict first (gates), a summary table (per
// state: kernels changed, appeared, disappeared, ambiguous, the gate; per
// changed kernel: instructions in loops and the resources that moved), then
// one folded <details> section per changed kernel with pipe tables, the
// TTGIR changes and the canonical layouts. Unchanged kernels share one
// line. The whole stays under GitHub's 65,536-character comment limit:
// kernel sections that do not fit are left out, with a note saying so.
// Cells escape '|' and code spans use a fence longer than any backtick run
// they hold.
//
//===----------------------------------------------------------------------===//
#include "DiffModel.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace gestell::driver {

namespace {

/// A code span that survives backticks and pipes inside a table cell.
std::string code(StringRef S) {
  size_t Run = 0, Longest = 0;
  for (char C : S) {
    Run = C == '`' ? Run + 1 : 0;
    Longest = std::max(Longest, Run);
  }
  std::string Fence(Longest + 1, '`');
  std::string Body;
  for (char C : S)
    Body += C == '|' ? std::string("\\|") : std::string(1, C);
  bool Pad = !Body.empty() && (Body.front() == '`' || Body.back() == '`');
  return Fence + (Pad ? " " : "") + Body + (Pad ? " " : "") + Fence;
}

/// Plain text for a table cell or a line: Markdown punctuation escaped.
std::string text(StringRef S) {
  std::string Out;
  for (char C : S) {
    if (StringRef("\\`*_[]<>|#").contains(C))
      Out += '\\';
    Out += C;
  }
  return Out;
}

/// Prose (check messages): only what GitHub would misread is escaped, so
/// layouts like #ttg.linear<{register = [[0, 1]]}> stay readable.
std::string prose(StringRef S) {
  std::string Out;
  for (char C : S) {
    if (C == '<')
      Out += "&lt;";
    else if (C == '>')
      Out += "&gt;";
    else {
      if (StringRef("\\`*|").contains(C))
        Out += '\\';
      Out += C;
    }
  }
  return Out;
}

void tableRow(raw_ostream &OS, ArrayRef<std::string> Cells) {
  OS << "|";
  for (const std::string &C : Cells)
    OS << " " << C << " |";
  OS << "\n";
}

/// A header row; the first LeftColumns columns hold text (left-aligned),
/// the others numbers (right-aligned).
void tableHead(raw_ostream &OS, ArrayRef<std::string> Cells,
               size_t LeftColumns = 1) {
  tableRow(OS, Cells);
  OS << "|";
  for (size_t I = 0; I < Cells.size(); ++I)
    OS << (I < LeftColumns ? " --- |" : " ---: |");
  OS << "\n";
}

std::vector<std::string> stateHeads(const DiffReport &R, StringRef Prefix) {
  std::vector<std::string> H;
  for (const StateSummary *S : R.States)
    H.push_back((Prefix + " " + text(S->Label)).str());
  return H;
}

void countTable(raw_ostream &OS, const DiffReport &R,
                ArrayRef<const CountRow *> Rows, StringRef First,
                bool ShowStage) {
  std::vector<std::string> Head{First.str()};
  for (StringRef Scope : {"loop", "total"})
    for (const std::string &H : stateHeads(R, Scope))
      Head.push_back(H);
  tableHead(OS, Head);
  for (const CountRow *C : Rows) {
    std::vector<std::string> Row{ShowStage ? isaTitle(C->Stage).str() + " " +
                                                 code(C->Name)
                                           : code(C->Name)};
    for (bool Loop : {true, false})
      for (size_t S = 0; S < C->Values.size(); ++S) {
        std::string Cell = formatCell(pickCount(C->Values[S], Loop),
                                      pickCount(C->Values[0], Loop), S == 0);
        bool Moved = S && Cell.find('(') != std::string::npos;
        Row.push_back(Moved ? "**" + Cell + "**" : Cell);
      }
    tableRow(OS, Row);
  }
  OS << "\n";
}

std::string siteText(const TtgirOpSite &S) {
  std::string Out =
      code(sys::path::filename(S.File).str() + ":" + std::to_string(S.Line) +
           ":" + std::to_string(S.Column));
  if (!S.Source.empty())
    Out += " " + code(S.Source);
  if (!S.Type.empty())
    Out += " " + code(S.Type);
  if (!S.Cost.empty())
    Out += " cost **" + S.Cost + "**";
  if (!S.SourceText.empty())
    Out += ": " + code(S.SourceText);
  return Out;
}

void findings(raw_ostream &OS, const DiffReport &R, ArrayRef<CheckFinding> Fs) {
  for (size_t I = 0; I < Fs.size(); ++I) {
    const CheckFinding &F = Fs[I];
    if (I == 0 || F.State != Fs[I - 1].State || F.Change != Fs[I - 1].Change)
      OS << (I ? "\n" : "")
         << (F.Change == "new" ? "Checks that fire only in "
                               : "Checks that no longer fire in ")
         << text(R.States[F.State]->Label) << ":\n\n";
    std::string Where = sys::path::filename(F.File).str();
    if (F.Line)
      Where += ":" + std::to_string(F.Line);
    OS << "- **" << F.Level << "** " << code(F.CheckId) << ": "
       << prose(F.Message) << " (" << code(Where)
       << (F.Source.empty() ? "" : ", " + code(F.Source)) << ")\n";
  }
  if (!Fs.empty())
    OS << "\n";
}

/// The kernel's heading: name, target, warps, stages, tiles, how each
/// later state was matched, and what held constant.
void kernelHeading(raw_ostream &OS, const DiffReport &R, const KernelDiff &D) {
  OS << "### " << code(D.Name);
  OS << text(headingFacts(D.key())) << "\n\n";
  if (D.key().Tiles && !D.key().Tiles->empty())
    OS << "Tiles " << code(*D.key().Tiles) << ".\n\n";
  for (size_t S = 1; S < D.States.size(); ++S)
    if (D.States[S].Status != MatchStatus::Matched ||
        D.States[S].How != MatchHow::Exact)
      OS << "- " << text(R.States[S]->Label) << ": "
         << text(describeState(D.States[S])) << "\n";
  if (std::string C = describeConstant(D); !C.empty())
    OS << "**" << text(C) << "**\n\n";
}

/// The family counts of each stage that changed, then the opcodes that
/// moved most.
void countTables(raw_ostream &OS, const DiffReport &R, const KernelDiff &D) {
  std::vector<CountRow> Families = familyRows(R.Families, D);
  for (Isa I : {Isa::PTX, Isa::SASS}) {
    std::vector<const CountRow *> Rows;
    for (const CountRow &C : Families)
      if (C.Stage == I && any_of(C.Values, [](const std::optional<Count> &V) {
            return V && V->Total;
          }))
        Rows.push_back(&C);
    if (Rows.empty())
      continue;
    if (!D.countsChanged(I)) {
      OS << isaTitle(I) << ": no change in family or opcode counts.\n\n";
      continue;
    }
    countTable(OS, R, Rows, (isaTitle(I) + " family").str(), false);
  }
  if (!D.MovedOpcodes.empty()) {
    std::vector<const CountRow *> Rows;
    for (const CountRow &C : D.MovedOpcodes)
      Rows.push_back(&C);
    OS << "Opcodes that moved most:\n\n";
    countTable(OS, R, Rows, "opcode", true);
  }
}

/// The TTGIR ops added or removed, a row per loop and op, then, folded,
/// where each is and its canonical layouts.
void ttgirTable(raw_ostream &OS, const DiffReport &R, const KernelDiff &D) {
  OS << "TTGIR ops added or removed, per loop:\n\n";
  std::vector<std::string> Head{"loop", "op"};
  for (const StateSummary *S : R.States)
    Head.push_back(text(S->Label));
  tableHead(OS, Head, 2);
  for (const TtgirChange &C : D.Ttgir) {
    std::vector<std::string> Row{
        code(C.Loop),
        code(C.Group.Op +
             (C.Group.Layouts.empty() ? "" : " " + C.Group.Layouts))};
    for (size_t S = 0; S < C.Counts.size(); ++S)
      Row.push_back(formatCell(C.count(S), C.count(0), S == 0));
    tableRow(OS, Row);
  }
  OS << "\n<details><summary>where, and the canonical layouts</summary>"
        "\n\n";
  for (const TtgirChange &C : D.Ttgir) {
    OS << "- " << code(C.Group.Op + " " + C.Group.Layouts) << " in loop "
       << code(C.Loop) << "\n";
    for (size_t S = 0; S < C.Sites.size(); ++S)
      for (const TtgirOpSite &Site : C.Sites[S])
        OS << "  - " << text(R.States[S]->Label) << ": " << siteText(Site)
           << "\n";
    if (!C.Group.Src.empty())
      OS << "  - "
         << code(C.Group.Src +
                 (C.Group.Dst.empty() ? "" : " -> " + C.Group.Dst))
         << "\n";
  }
  OS << "\n</details>\n\n";
}

void resourceTable(raw_ostream &OS, const DiffReport &R, const KernelDiff &D) {
  std::vector<ResourceRow> Resources = resourceRows(D);
  if (none_of(Resources, [](const ResourceRow &C) { return C.changed(); })) {
    OS << "Resources: no change.\n\n";
    return;
  }
  std::vector<std::string> Head{"resource"};
  for (const StateSummary *S : R.States)
    Head.push_back(text(S->Label));
  tableHead(OS, Head);
  for (const ResourceRow &C : Resources) {
    std::vector<std::string> Row{code(C.Name)};
    for (size_t S = 0; S < C.Values.size(); ++S)
      Row.push_back(formatCell(C.Values[S], C.Values[0], S == 0));
    tableRow(OS, Row);
  }
  OS << "\n";
}

/// One kernel's section; Compact leaves out the TTGIR changes (the long
/// part: one row per op and layouts), for a comment that would be too long.
void kernel(raw_ostream &OS, const DiffReport &R, const KernelDiff &D,
            bool Compact) {
  kernelHeading(OS, R, D);
  countTables(OS, R, D);
  if (!D.Ttgir.empty() && Compact)
    OS << "TTGIR ops added or removed: " << D.Ttgir.size()
       << " rows, left out here to keep the comment under GitHub's limit "
          "(`--format=html` or `--format=json` has them).\n\n";
  else if (!D.Ttgir.empty())
    ttgirTable(OS, R, D);
  resourceTable(OS, R, D);
  findings(OS, R, D.Checks);
}

/// The headline numbers of one kernel in state S against the base: the
/// instructions in loops (SASS, else PTX) and the resources that moved.
std::vector<std::string> headlineCells(const DiffReport &R, const KernelDiff &D,
                                       size_t S) {
  std::vector<CountRow> Families = familyRows(R.Families, D);
  std::string Insns = "-";
  for (Isa I : {Isa::SASS, Isa::PTX}) {
    auto It = find_if(Families, [&](const CountRow &C) {
      return C.Stage == I && C.Name == "instructions";
    });
    if (It == Families.end() || !It->Values[S])
      continue;
    Insns = formatCell(pickCount(It->Values[S], true),
                       pickCount(It->Values[0], true), false) +
            " " + isaTitle(I).str();
    break;
  }
  std::vector<std::string> Moved;
  for (const ResourceRow &C : resourceRows(D))
    if (C.Values[S] && C.Values[0] && *C.Values[S] != *C.Values[0])
      Moved.push_back(C.Name + " " + std::to_string(*C.Values[0]) + " -> " +
                      std::to_string(*C.Values[S]));
  return {Insns, Moved.empty() ? "-" : text(join(Moved, ", "))};
}

/// The summary the comment opens with: per later state, what changed, and
/// one row per changed kernel with its headline numbers.
void summary(raw_ostream &OS, const DiffReport &R) {
  tableHead(OS,
            {"state", "path", "kernels", "changed", "appeared", "disappeared",
             "ambiguous", "gate"},
            2);
  std::vector<StateTally> Tally = tallyStates(R);
  for (size_t S = 0; S < R.States.size(); ++S) {
    const StateTally &N = Tally[S];
    std::string Gate = S == 0 || R.GateExprs.empty() ? "-"
                       : N.GateHeld
                           ? "**held** (" + std::to_string(N.GateHeld) + ")"
                           : "passed";
    auto Cell = [&](unsigned V) { return S ? std::to_string(V) : "-"; };
    tableRow(OS,
             {text(R.States[S]->Label) + (S ? "" : " (base)"),
              code(R.States[S]->Path),
              std::to_string(R.States[S]->Kernels.size()), Cell(N.Changed),
              Cell(N.Appeared), Cell(N.Disappeared), Cell(N.Ambiguous), Gate});
  }
  OS << "\n";

  // Changed kernels, the most moved first; a long list is cut.
  constexpr size_t MaxRows = 30;
  std::vector<std::pair<const KernelDiff *, size_t>> Rows;
  for (const KernelDiff &D : R.Kernels)
    for (size_t S = 1; S < D.States.size(); ++S)
      if (D.Changed && D.States[S].Status == MatchStatus::Matched)
        Rows.push_back({&D, S});
  if (Rows.empty())
    return;
  llvm::stable_sort(Rows, [&](const auto &A, const auto &B) {
    return A.first->FamilyMove > B.first->FamilyMove;
  });
  tableHead(OS,
            {"changed kernel", "state", "instructions in loops",
             "resources that moved"},
            2);
  for (size_t I = 0; I < Rows.size() && I < MaxRows; ++I) {
    auto [D, S] = Rows[I];
    std::vector<std::string> Cells{code(D->key().str()),
                                   text(R.States[S]->Label)};
    for (std::string &C : headlineCells(R, *D, S))
      Cells.push_back(std::move(C));
    tableRow(OS, Cells);
  }
  if (Rows.size() > MaxRows)
    OS << "\n... and " << Rows.size() - MaxRows << " more changed kernels "
       << "(sections below).\n";
  OS << "\n";
}

/// The lists after the kernel sections (unchanged, appeared and ambiguous
/// kernels, the findings on kernels without a match, problems) in at most
/// Budget characters: each whole while it fits, else as many entries as fit
/// and a count of the rest, so that a cache with thousands of unchanged or
/// new kernels does not make the comment too long to post.
class Lists {
public:
  explicit Lists(size_t Budget) : Budget(Budget) {}

  /// Whole lines, each ending in a newline.
  void lines(ArrayRef<std::string> Ls, StringRef What) {
    size_t Shown = 0;
    for (; Shown < Ls.size() && room(Ls[Shown].size()); ++Shown)
      Out += Ls[Shown];
    if (Shown < Ls.size())
      Out += "- ... and " + std::to_string(Ls.size() - Shown) + " more " +
             What.str() + ", left out to keep this under GitHub's limit " +
             "(the JSON and HTML reports list them all)\n";
  }

  /// Items on one line after Lead, at most Max of them.
  void oneLine(StringRef Lead, ArrayRef<std::string> Items, size_t Max) {
    std::string Line = Lead.str();
    size_t Shown = 0;
    for (; Shown < Items.size() && Shown < Max; ++Shown) {
      std::string Item = (Shown ? ", " : "") + Items[Shown];
      if (!room(Line.size() + Item.size()))
        break;
      Line += Item;
    }
    if (Shown == 0)
      Line += "not listed here (the JSON and HTML reports list them)";
    else if (Shown < Items.size())
      Line += " and " + std::to_string(Items.size() - Shown) + " more";
    Out += Line + ".\n\n";
  }

  std::string Out;

private:
  /// What a list's "... and N more" line may take.
  static constexpr size_t MoreLine = 160;
  bool room(size_t More) const {
    return Out.size() + More + MoreLine <= Budget;
  }
  size_t Budget;
};

std::string lists(const DiffReport &R, ArrayRef<std::string> Same,
                  size_t Budget) {
  Lists L(Budget);
  if (!Same.empty())
    L.oneLine("Unchanged (" + std::to_string(Same.size()) + "): ", Same, 200);
  std::vector<std::string> Ls;
  for (const UnmatchedKernel &U : R.Appeared)
    Ls.push_back("- appeared in " + text(R.States[U.State]->Label) + ": " +
                 code(U.Summary->Key.str()) + " (" +
                 code(displayDir(*U.Summary)) + ")\n");
  L.lines(Ls, "appeared kernels");
  Ls.clear();
  for (const UnmatchedKernel &U : R.Ambiguous)
    Ls.push_back("- ambiguous in " + text(R.States[U.State]->Label) + ": " +
                 code(U.Summary->Key.str()) + " matches " +
                 std::to_string(U.Candidates.size()) + " base kernels\n");
  L.lines(Ls, "ambiguous kernels");
  if (!R.Appeared.empty() || !R.Ambiguous.empty())
    L.Out += "\n";
  if (!R.OtherChecks.empty()) {
    std::string Found;
    raw_string_ostream F(Found);
    findings(F, R, R.OtherChecks);
    L.Out += "Kernels without a match:\n\n";
    SmallVector<StringRef, 64> Parts;
    StringRef(Found).drop_back().split(Parts, '\n'); // each line ends in \n
    Ls.clear();
    for (StringRef P : Parts)
      Ls.push_back(P.str() + "\n");
    L.lines(Ls, "lines of findings");
  }
  Ls.clear();
  for (const std::string &P : R.Problems)
    Ls.push_back("- problem: " + code(P) + "\n");
  L.lines(Ls, "problems");
  return std::move(L.Out);
}

} // namespace

void writeDiffMarkdown(raw_ostream &OS, const DiffReport &R) {
  // GitHub refuses a comment longer than 65,536 characters: the summary
  // and the lists come whole, then as many kernel sections as fit.
  constexpr size_t Limit = 65536, Reserve = 1024;
  std::string Head;
  raw_string_ostream H(Head);
  H << "## gestell diff: " << text(R.States[0]->Label);
  for (size_t S = 1; S < R.States.size(); ++S)
    H << (S == 1 ? " vs " : ", ") << text(R.States[S]->Label);
  H << "\n\n";

  if (!R.GateExprs.empty()) {
    if (R.GateHeld.empty()) {
      H << "Gate held for no kernel:";
    } else {
      H << "**Gate held** for ";
      std::vector<std::string> Held;
      for (const auto &[K, S] : R.GateHeld)
        Held.push_back(code(R.Kernels[K].Name) + " in " +
                       text(R.States[S]->Label));
      H << join(Held, ", ") << ":";
    }
    for (const std::string &E : R.GateExprs)
      H << " " << code(E);
    H << "\n\n";
  }
  summary(H, R);

  std::vector<const KernelDiff *> Sections;
  std::vector<std::string> Same;
  for (const KernelDiff &D : R.Kernels) {
    bool Compared = any_of(D.States, [](const KernelInState &K) {
      return K.Status == MatchStatus::Matched;
    });
    if (!D.Changed && Compared) {
      Same.push_back(code(D.key().str()));
      continue;
    }
    Sections.push_back(&D);
  }
  // With kernel sections to show, the lists take at most half of what the
  // head leaves.
  const size_t Left =
      Limit > Head.size() + Reserve ? Limit - Head.size() - Reserve : 0;
  std::string Tail = lists(R, Same, Sections.empty() ? Left : Left / 2);

  // Each changed kernel folded (the summary above is what a reviewer reads
  // first), rendered when its turn comes: whole, or, when the whole does
  // not fit, compact (without its TTGIR rows); the first that fits neither
  // way ends the sections.
  auto Section = [&](const KernelDiff &D, bool Compact) {
    std::string Out;
    raw_string_ostream B(Out);
    B << "<details><summary>" << text(D.key().str()) << "</summary>\n\n";
    kernel(B, R, D, Compact);
    B << "</details>\n\n";
    return Out;
  };
  size_t Used = Head.size() + Tail.size() + Reserve, Kept = 0;
  OS << Head;
  for (; Kept < Sections.size(); ++Kept) {
    std::string Fit = Section(*Sections[Kept], false);
    if (Used + Fit.size() > Limit)
      Fit = Section(*Sections[Kept], true);
    if (Used + Fit.size() > Limit)
      break;
    OS << Fit;
    Used += Fit.size();
  }
  if (Kept < Sections.size())
    OS << "> " << Sections.size() - Kept << " of " << Sections.size()
       << " kernel sections are left out to keep this under GitHub's "
          "65,536-character comment limit; `gestell diff --format=html` or "
          "`--format=json` holds them all.\n\n";
  OS << Tail;
}

} // namespace gestell::driver
