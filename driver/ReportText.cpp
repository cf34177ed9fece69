//===- ReportText.cpp - clang-style text output ---------------------------===//
#include "Report.h"

#include "llvm/Support/WithColor.h"

using namespace llvm;

namespace gestell::driver {

namespace {
// Colours as clang's: the location and message bold, the level in its
// colour. WithColor's Auto mode follows --color (LLVM's option: on, off,
// or by default only on a terminal).
void printLoc(raw_ostream &OS, const DiagLoc &L, const PathMap &Paths) {
  WithColor W(OS, raw_ostream::SAVEDCOLOR, /*Bold=*/true);
  W << Paths.map(L.File);
  if (L.Line) {
    W << ':' << L.Line;
    if (L.Column)
      W << ':' << L.Column;
  }
  W << ": ";
}

void printLevel(raw_ostream &OS, Level L) {
  raw_ostream::Colors C = L == Level::Error     ? raw_ostream::RED
                          : L == Level::Warning ? raw_ostream::MAGENTA
                                                : raw_ostream::BLUE;
  WithColor(OS, C, /*Bold=*/true) << levelName(L) << ": ";
}

void printNote(raw_ostream &OS) {
  WithColor(OS, raw_ostream::BLACK, /*Bold=*/true) << "note: ";
}
} // namespace

void writeText(raw_ostream &OS, const RunReport &R, const ReportOptions &O) {
  for (const Result &Res : R.Results) {
    // Absent results (--baseline) are the baseline's, not this build's.
    if (Res.BaselineState == "absent" ||
        ((Res.Suppressed || Res.InFindingsBaseline) && !O.ShowSuppressed))
      continue;
    const Diagnostic &D = Res.Diag;
    printLoc(OS, D.Primary, O.Paths);
    printLevel(OS, D.Severity);
    {
      WithColor Bold(OS, raw_ostream::SAVEDCOLOR, /*Bold=*/true);
      Bold << D.Message << " [" << D.CheckId;
      if (Res.Promoted)
        Bold << ",-warnings-as-errors";
      Bold << "]";
    }
    if (Res.Suppressed)
      OS << " (suppressed by " << Res.SuppressionOrigin
         << (Res.SuppressionReason.empty() ? "" : ": ")
         << Res.SuppressionReason << ")";
    else if (Res.InFindingsBaseline)
      OS << " (in the findings baseline)";
    OS << "\n";
    if (D.SourceLoc) {
      printLoc(OS, *D.SourceLoc, O.Paths);
      printNote(OS);
      OS << "Python source of kernel '" << D.Kernel << "'\n";
    }
    for (const DiagLoc &L : D.Related) {
      printLoc(OS, L, O.Paths);
      printNote(OS);
      if (!L.Message.empty())
        OS << L.Message;
      else if (L.ArtifactStage)
        OS << "related " << stageName(*L.ArtifactStage) << " line";
      else
        OS << "related source line";
      OS << "\n";
    }
    for (const Note &N : D.Notes) {
      printLoc(OS, N.Loc ? *N.Loc : D.Primary, O.Paths);
      printNote(OS);
      OS << N.Message << "\n";
    }
    if (D.Hint) {
      printLoc(OS, D.Primary, O.Paths);
      printNote(OS);
      OS << "fix hint (" << D.Hint->Where << "): " << D.Hint->Message << "\n";
    }
  }
}

} // namespace gestell::driver
