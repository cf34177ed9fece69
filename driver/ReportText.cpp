//===- ReportText.cpp - clang-style text output ---------------------------===//
//
// One finding: its headline at the artifact line the check read, then a
// note per Python line, related line, metric and fix hint, as clang-tidy
// prints them. Paths under the current directory are printed relative to
// it. Long TTGIR layouts are shortened in the headline (a note has them in
// full; --verbose keeps the headline whole). A Python line whose file is
// readable here is shown with a caret under its column; a path from the
// debug info that is not a file here is not printed as a location (an
// editor would offer to open it) but named in the note, and the run ends
// with one --path-map hint.
//
//===----------------------------------------------------------------------===//
#include "Report.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

#include <set>

using namespace llvm;

namespace gestell::driver {

namespace {

class TextWriter {
public:
  TextWriter(raw_ostream &OS, const ReportOptions &O) : OS(OS), O(O) {
    SmallString<256> C;
    if (!sys::fs::current_path(C))
      Cwd = std::string(C);
  }

  void finding(const Result &Res);
  void finish();

private:
  /// The path to print: mapped, then relative to the current directory
  /// when it lies under it.
  std::string shown(StringRef File) const {
    std::string P = O.Paths.map(File);
    StringRef S = P;
    if (!Cwd.empty() && S.starts_with(Cwd) && S.size() > Cwd.size() + 1 &&
        S[Cwd.size()] == '/')
      return S.drop_front(Cwd.size() + 1).str();
    return P;
  }

  /// Whether a Python location's file is here (after --path-map).
  bool present(const DiagLoc &L) {
    std::string P = O.Paths.map(L.File);
    auto [It, New] = Present.try_emplace(P, false);
    if (New)
      It->second = sys::fs::is_regular_file(P);
    return It->second;
  }

  void loc(const DiagLoc &L) {
    WithColor W(OS, raw_ostream::SAVEDCOLOR, /*Bold=*/true);
    W << shown(L.File);
    if (L.Line) {
      W << ':' << L.Line;
      if (L.Column)
        W << ':' << L.Column;
    }
    W << ": ";
  }

  void noteLabel() {
    WithColor(OS, raw_ostream::BLACK, /*Bold=*/true) << "note: ";
  }

  /// A note at L; a Python line that is not a file here is named after
  /// the text instead, at the finding's primary location.
  void note(const DiagLoc &L, const DiagLoc &Primary, StringRef Text) {
    bool Elsewhere = L.isSource() && !present(L);
    loc(Elsewhere ? Primary : L);
    noteLabel();
    OS << Text;
    if (Elsewhere) {
      OS << " (" << L.File << ":" << L.Line;
      if (L.Column)
        OS << ":" << L.Column;
      OS << ", not a file here)";
      Missing.insert(L.File);
    }
    OS << "\n";
    if (!Elsewhere && L.isSource())
      snippet(L);
  }

  /// The Python line with a caret under its column, as clang shows code.
  void snippet(const DiagLoc &L);

  raw_ostream &OS;
  const ReportOptions &O;
  std::string Cwd;
  StringMap<bool> Present;
  StringMap<std::vector<std::string>> Lines; ///< readable sources
  std::set<std::string> Missing;             ///< debug-info paths not here
};

void printLevel(raw_ostream &OS, Level L) {
  raw_ostream::Colors C = L == Level::Error     ? raw_ostream::RED
                          : L == Level::Warning ? raw_ostream::MAGENTA
                                                : raw_ostream::BLUE;
  WithColor(OS, C, /*Bold=*/true) << levelName(L) << ": ";
}

void TextWriter::snippet(const DiagLoc &L) {
  if (!O.Sources || !L.Line)
    return;
  std::string P = O.Paths.map(L.File);
  auto [It, New] = Lines.try_emplace(P);
  if (New && O.Sources->permits(P))
    if (ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(P)) {
      SmallVector<StringRef, 0> Split;
      (*B)->getBuffer().split(Split, '\n');
      for (StringRef S : Split)
        It->second.push_back(S.rtrim("\r").str());
    }
  if (L.Line > It->second.size())
    return;
  StringRef Text = It->second[L.Line - 1];
  std::string Num = std::to_string(L.Line);
  OS << "  " << Num << " | " << Text << "\n";
  if (!L.Column || L.Column > Text.size() + 1)
    return;
  OS << "  " << std::string(Num.size(), ' ') << " | ";
  for (size_t I = 0; I + 1 < L.Column; ++I)
    OS << (Text[I] == '\t' ? '\t' : ' ');
  WithColor(OS, raw_ostream::GREEN, /*Bold=*/true) << "^";
  OS << "\n";
}

void TextWriter::finding(const Result &Res) {
  const Diagnostic &D = Res.Diag;
  std::string Headline = O.Verbose ? D.Message : shortenLayouts(D.Message);
  loc(D.Primary);
  printLevel(OS, D.Severity);
  {
    WithColor Bold(OS, raw_ostream::SAVEDCOLOR, /*Bold=*/true);
    Bold << Headline << " [" << D.CheckId;
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
  if (Headline != D.Message)
    note(D.Primary, D.Primary, "in full: " + D.Message);
  if (D.SourceLoc)
    note(*D.SourceLoc, D.Primary,
         "Python source of kernel '" + D.Kernel + "'");
  for (const DiagLoc &L : D.Related) {
    std::string Text = !L.Message.empty() ? L.Message
                       : L.ArtifactStage
                           ? "related " + stageName(*L.ArtifactStage).str() +
                                 " line"
                           : std::string("related source line");
    note(L, D.Primary, Text);
  }
  for (const Note &N : D.Notes)
    note(N.Loc ? *N.Loc : D.Primary, D.Primary, N.Message);
  if (D.Hint)
    note(D.Primary, D.Primary,
         "fix hint (" + D.Hint->Where + "): " + D.Hint->Message);
}

void TextWriter::finish() {
  if (Missing.empty())
    return;
  // The folder the compile saw the sources in: the first component of the
  // first path ("/src" of "/src/kernels/k.py").
  StringRef First = *Missing.begin();
  StringRef Root = First.starts_with("/")
                       ? First.take_front(First.find('/', 1))
                       : First.take_front(First.find('/'));
  OS << "gestell: ";
  noteLabel();
  OS << Missing.size() << " Python source" << (Missing.size() == 1 ? "" : "s")
     << " named by the debug info " << (Missing.size() == 1 ? "is" : "are")
     << " not a file here (" << First
     << (Missing.size() > 1 ? ", ..." : "") << "): --path-map=" << Root
     << "=DIR maps " << Root << " to your checkout\n";
}

} // namespace

std::string shortenLayouts(StringRef Message) {
  // A layout attribute: '#', a dialect and a name ("ttg.nvidia_mma"), then
  // its parameters in balanced <...>.
  constexpr size_t Longest = 32;
  std::string Out;
  size_t I = 0;
  while (I < Message.size()) {
    size_t Hash = Message.find('#', I);
    if (Hash == StringRef::npos)
      break;
    size_t J = Hash + 1;
    while (J < Message.size() &&
           (llvm::isAlnum(Message[J]) || Message[J] == '_' || Message[J] == '.'))
      ++J;
    if (J == Hash + 1 || J >= Message.size() || Message[J] != '<') {
      Out += Message.slice(I, J);
      I = J;
      continue;
    }
    size_t Depth = 0, K = J;
    for (; K < Message.size(); ++K) {
      if (Message[K] == '<')
        ++Depth;
      else if (Message[K] == '>' && --Depth == 0)
        break;
    }
    if (K == Message.size()) { // unbalanced: leave the rest as it is
      Out += Message.drop_front(I);
      return Out;
    }
    Out += Message.slice(I, J);
    Out += K + 1 - J > Longest ? "<...>" : Message.slice(J, K + 1).str();
    I = K + 1;
  }
  Out += Message.drop_front(std::min(I, Message.size()));
  return Out;
}

void writeText(raw_ostream &OS, const RunReport &R, const ReportOptions &O) {
  TextWriter W(OS, O);
  for (const Result &Res : R.Results) {
    // Absent results (--baseline) are the baseline's, not this build's.
    if (Res.BaselineState == "absent" ||
        ((Res.Suppressed || Res.InFindingsBaseline) && !O.ShowSuppressed))
      continue;
    W.finding(Res);
  }
  W.finish();
}

} // namespace gestell::driver
