//===- ReportText.cpp - clang-style text output ---------------------------===//
#include "Report.h"

using namespace llvm;

namespace gestell::driver {

namespace {
void printLoc(raw_ostream &OS, const DiagLoc &L, const PathMap &Paths) {
  OS << Paths.map(L.File);
  if (L.Line) {
    OS << ':' << L.Line;
    if (L.Column)
      OS << ':' << L.Column;
  }
  OS << ": ";
}
} // namespace

void writeText(raw_ostream &OS, const RunReport &R, const ReportOptions &O) {
  for (const Result &Res : R.Results) {
    // Absent results (--baseline) are the baseline's, not this build's.
    if (Res.Suppressed || Res.BaselineState == "absent")
      continue;
    const Diagnostic &D = Res.Diag;
    printLoc(OS, D.Primary, O.Paths);
    OS << levelName(D.Severity) << ": " << D.Message << " [" << D.CheckId;
    if (Res.Promoted)
      OS << ",-warnings-as-errors";
    OS << "]\n";
    if (D.SourceLoc) {
      printLoc(OS, *D.SourceLoc, O.Paths);
      OS << "note: Python source of kernel '" << D.Kernel << "'\n";
    }
    for (const DiagLoc &L : D.Related) {
      printLoc(OS, L, O.Paths);
      OS << "note: ";
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
      OS << "note: " << N.Message << "\n";
    }
    if (D.Hint) {
      printLoc(OS, D.Primary, O.Paths);
      OS << "note: fix hint (" << D.Hint->Where << "): " << D.Hint->Message
         << "\n";
    }
  }
}

} // namespace gestell::driver
