//===- DiffHtml.cpp - gestell diff as one self-contained HTML page --------===//
//
// One file that opens anywhere, offline: inline CSS, inline SVG charts, a
// few lines of inline script, no network, no CDN, no external fonts. A
// Content-Security-Policy (default-src 'none') makes any outside load fail
// loudly instead of silently.
//
// A summary table opens it (per state: kernels changed, appeared,
// disappeared, ambiguous, the gate); unchanged kernels share one line.
// Per changed kernel, folded in <details>: family charts across the states (one
// SVG per stage and scope, a group of bars per family, one bar per state), the
// opcodes that moved most, the TTGIR ops added or removed per loop with their
// .ttgir and Python lines, resources and gates. The DOM carries data attributes
// for tests and scripts: <svg class="family-chart" data-kernel data-stage
// data-scope>, <rect class="bar" data-family data-state data-value>.
//
//===----------------------------------------------------------------------===//
#include "DiffModel.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace gestell::driver {

namespace {

std::string esc(StringRef S) {
  std::string Out;
  Out.reserve(S.size());
  for (char C : S) {
    switch (C) {
    case '&':
      Out += "&amp;";
      break;
    case '<':
      Out += "&lt;";
      break;
    case '>':
      Out += "&gt;";
      break;
    case '"':
      Out += "&quot;";
      break;
    case '\'':
      Out += "&#39;";
      break;
    default:
      Out += C;
    }
  }
  return Out;
}

/// Bar colors by state: the base in gray, later states in turn.
StringRef stateColor(size_t S) {
  static const char *Colors[] = {"#8c8c8c", "#d6604d", "#4393c3", "#5aae61",
                                 "#9970ab", "#e08214", "#35978f"};
  if (S == 0)
    return Colors[0];
  return Colors[1 + (S - 1) % (std::size(Colors) - 1)];
}

constexpr StringRef Style = R"css(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2em auto;max-width:1100px;padding:0 1em;color:#1f2328}
h1{font-size:1.5em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #d0d7de;padding-bottom:.3em}
h3{font-size:1.05em}code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
table{border-collapse:collapse;margin:.6em 0}th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:right;vertical-align:top}
th,td:first-child,td.text{text-align:left}th{background:#f6f8fa}
.up{color:#b42318;font-weight:600}.down{color:#1a7f37;font-weight:600}
.gate-held{background:#ffebe9;border:1px solid #ff818266;padding:.5em 1em}
.gate-clear{background:#dafbe1;border:1px solid #4ac26b66;padding:.5em 1em}
.constant{background:#ddf4ff;padding:.4em .8em;display:inline-block}
.charts{display:flex;flex-wrap:wrap;gap:1.5em}figure{margin:0}figcaption{font-weight:600;margin-bottom:.3em}
svg.family-chart text{font:11px system-ui,sans-serif;fill:#1f2328}
.legend span{display:inline-block;margin-right:1.2em}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px}
details{margin:.4em 0}.site{margin:.2em 0 .2em 1.5em}.src{color:#57606a}
)css";

/// A cell with a delta class: "80 (+16)" in red when it went up.
std::string numCell(std::optional<uint64_t> V, std::optional<uint64_t> Base,
                    bool IsBase) {
  std::string Text = formatCell(V, Base, IsBase);
  StringRef Class;
  if (!IsBase && V && Base && *V != *Base)
    Class = *V > *Base ? "up" : "down";
  if (Class.empty())
    return "<td>" + esc(Text) + "</td>";
  return "<td class=\"" + Class.str() + "\">" + esc(Text) + "</td>";
}

void chart(raw_ostream &OS, const DiffReport &R, const KernelDiff &D,
           ArrayRef<CountRow> Families, Isa I, bool Loop) {
  std::vector<const CountRow *> Rows;
  uint64_t Max = 0;
  for (const CountRow &C : Families) {
    if (C.Stage != I || C.Name == "instructions")
      continue;
    uint64_t RowMax = 0;
    for (const auto &V : C.Values)
      if (std::optional<uint64_t> X = pickCount(V, Loop))
        RowMax = std::max(RowMax, *X);
    if (!RowMax)
      continue;
    Max = std::max(Max, RowMax);
    Rows.push_back(&C);
  }
  if (Rows.empty())
    return;
  const size_t N = R.States.size();
  const unsigned Label = 90, BarArea = 320, ValueArea = 90, BarH = 11, Gap = 2,
                 GroupGap = 10;
  const unsigned GroupH = N * (BarH + Gap) - Gap;
  const unsigned Width = Label + BarArea + ValueArea;
  const unsigned Height = Rows.size() * (GroupH + GroupGap);
  std::string Scope = Loop ? "loop" : "total";
  OS << "<figure><figcaption>" << isaTitle(I) << " families, "
     << (Loop ? "in loops" : "total") << "</figcaption>\n";
  OS << "<svg class=\"family-chart\" xmlns=\"http://www.w3.org/2000/svg\" "
        "role=\"img\" data-kernel=\""
     << esc(D.Name) << "\" data-stage=\"" << isaName(I) << "\" data-scope=\""
     << Scope << "\" width=\"" << Width << "\" height=\"" << Height
     << "\" viewBox=\"0 0 " << Width << " " << Height << "\" aria-label=\""
     << isaTitle(I) << " instruction families " << Scope << " of "
     << esc(D.Name) << "\">\n";
  unsigned Y = 0;
  for (const CountRow *C : Rows) {
    OS << "<g class=\"family\" data-family=\"" << esc(C->Name) << "\">";
    OS << "<text x=\"0\" y=\"" << Y + GroupH / 2 + 4 << "\">" << esc(C->Name)
       << "</text>";
    std::optional<uint64_t> Base = pickCount(C->Values[0], Loop);
    for (size_t S = 0; S < N; ++S) {
      unsigned BY = Y + S * (BarH + Gap);
      std::optional<uint64_t> V = pickCount(C->Values[S], Loop);
      if (!V)
        continue;
      double W = Max ? double(*V) * BarArea / double(Max) : 0;
      OS << "<rect class=\"bar\" data-family=\"" << esc(C->Name)
         << "\" data-state=\"" << esc(R.States[S]->Label) << "\" data-value=\""
         << *V << "\" x=\"" << Label << "\" y=\"" << BY << "\" width=\""
         << format("%.1f", W) << "\" height=\"" << BarH << "\" fill=\""
         << stateColor(S) << "\"><title>" << esc(C->Name) << " "
         << esc(R.States[S]->Label) << ": " << *V << "</title></rect>";
      OS << "<text x=\"" << format("%.1f", Label + W + 4) << "\" y=\""
         << BY + BarH - 2 << "\">" << esc(formatCell(V, Base, S == 0))
         << "</text>";
    }
    OS << "</g>\n";
    Y += GroupH + GroupGap;
  }
  OS << "</svg></figure>\n";
}

void countTable(raw_ostream &OS, const DiffReport &R,
                ArrayRef<const CountRow *> Rows, StringRef First,
                bool ShowStage) {
  OS << "<table><tr><th rowspan=\"2\">" << esc(First) << "</th><th colspan=\""
     << R.States.size() << "\">in loops</th><th "
     << "colspan=\"" << R.States.size() << "\">total</th></tr><tr>";
  for (int G = 0; G < 2; ++G)
    for (const StateSummary *S : R.States)
      OS << "<th>" << esc(S->Label) << "</th>";
  OS << "</tr>\n";
  for (const CountRow *C : Rows) {
    OS << "<tr><td class=\"text\">"
       << (ShowStage ? isaTitle(C->Stage).str() + " " : std::string())
       << "<code>" << esc(C->Name) << "</code></td>";
    for (bool Loop : {true, false})
      for (size_t S = 0; S < C->Values.size(); ++S)
        OS << numCell(pickCount(C->Values[S], Loop),
                      pickCount(C->Values[0], Loop), S == 0);
    OS << "</tr>\n";
  }
  OS << "</table>\n";
}

void ttgirSection(raw_ostream &OS, const DiffReport &R, const KernelDiff &D) {
  OS << "<h3>TTGIR ops added or removed, per loop</h3>\n";
  StringRef Loop;
  bool Open = false;
  for (const TtgirChange &C : D.Ttgir) {
    if (C.Loop != Loop) {
      if (Open)
        OS << "</table>\n";
      Loop = C.Loop;
      OS << "<p class=\"loop\">" << (C.Loop == "(outside loops)" ? "" : "loop ")
         << "<code>" << esc(C.Loop) << "</code>";
      if (!C.LoopSourceText.empty())
        OS << ": <code class=\"src\">" << esc(C.LoopSourceText) << "</code>";
      OS << "</p>\n<table class=\"ttgir\" data-loop=\"" << esc(C.Loop)
         << "\"><tr><th>op</th>";
      for (const StateSummary *S : R.States)
        OS << "<th>" << esc(S->Label) << "</th>";
      OS << "</tr>\n";
      Open = true;
    }
    OS << "<tr class=\"ttgir-change\" data-op=\"" << esc(C.Group.Op)
       << "\" data-layouts=\"" << esc(C.Group.Layouts)
       << "\"><td class=\"text\"><code>" << esc(C.Group.Op) << " "
       << esc(C.Group.Layouts) << "</code>";
    for (size_t S = 0; S < C.Sites.size(); ++S)
      for (const TtgirOpSite &Site : C.Sites[S]) {
        OS << "<div class=\"site\">" << esc(R.States[S]->Label) << ": <code>"
           << esc(sys::path::filename(Site.File)) << ":" << Site.Line << ":"
           << Site.Column << "</code>";
        if (!Site.Source.empty())
          OS << " <code>" << esc(Site.Source) << "</code>";
        if (!Site.Type.empty())
          OS << " <code>" << esc(Site.Type) << "</code>";
        if (!Site.Cost.empty())
          OS << " cost <b>" << esc(Site.Cost) << "</b>";
        if (!Site.SourceText.empty())
          OS << "<br><code class=\"src\">" << esc(Site.SourceText) << "</code>";
        if (!Site.Text.empty())
          OS << "<br><code>" << esc(Site.Text) << "</code>";
        OS << "</div>";
      }
    if (!C.Group.Src.empty()) {
      OS << "<details><summary>canonical layouts</summary><code>"
         << esc(C.Group.Src);
      if (!C.Group.Dst.empty())
        OS << " -&gt; " << esc(C.Group.Dst);
      OS << "</code></details>";
    }
    OS << "</td>";
    for (size_t S = 0; S < C.Counts.size(); ++S)
      OS << numCell(C.count(S), C.count(0), S == 0);
    OS << "</tr>\n";
  }
  if (Open)
    OS << "</table>\n";
}

void findings(raw_ostream &OS, const DiffReport &R, ArrayRef<CheckFinding> Fs) {
  for (size_t I = 0; I < Fs.size(); ++I) {
    const CheckFinding &F = Fs[I];
    if (I == 0 || F.State != Fs[I - 1].State || F.Change != Fs[I - 1].Change)
      OS << (I ? "</ul>\n" : "") << "<h3>"
         << (F.Change == "new" ? "Checks that fire only in "
                               : "Checks that no longer fire in ")
         << esc(R.States[F.State]->Label) << "</h3>\n<ul class=\"checks\">\n";
    OS << "<li class=\"finding\" data-check=\"" << esc(F.CheckId)
       << "\" data-change=\"" << esc(F.Change) << "\" data-state=\""
       << esc(R.States[F.State]->Label) << "\"><b>" << esc(F.Level)
       << "</b> <code>" << esc(F.CheckId) << "</code>: " << esc(F.Message)
       << " <code>" << esc(sys::path::filename(F.File))
       << (F.Line ? ":" + std::to_string(F.Line) : std::string()) << "</code>";
    if (!F.Source.empty())
      OS << " <code>" << esc(F.Source) << "</code>";
    OS << "</li>\n";
  }
  if (!Fs.empty())
    OS << "</ul>\n";
}

void kernel(raw_ostream &OS, const DiffReport &R, const KernelDiff &D) {
  OS << "<section class=\"kernel\" data-kernel=\"" << esc(D.Name)
     << "\" data-changed=\"" << (D.Changed ? "true" : "false") << "\">\n";
  OS << "<h2><code>" << esc(D.Name) << "</code>";
  OS << esc(headingFacts(D.key())) << "</h2>\n";
  if (D.key().Tiles && !D.key().Tiles->empty())
    OS << "<p>tiles <code>" << esc(*D.key().Tiles) << "</code></p>\n";
  OS << "<table><tr><th>state</th><th>folder</th><th>match</th></tr>\n";
  for (size_t S = 0; S < D.States.size(); ++S) {
    const KernelInState &K = D.States[S];
    OS << "<tr><td>" << esc(R.States[S]->Label)
       << "</td><td class=\"text\"><code>"
       << esc(K.Summary ? displayDir(*K.Summary) : std::string("-"))
       << "</code></td><td class=\"text\">" << esc(describeState(K))
       << "</td></tr>\n";
  }
  OS << "</table>\n";
  if (std::string C = describeConstant(D); !C.empty())
    OS << "<p class=\"constant\">" << esc(C) << "</p>\n";

  OS << "<div class=\"legend\">";
  for (size_t S = 0; S < R.States.size(); ++S)
    OS << "<span><i style=\"background:" << stateColor(S) << "\"></i>"
       << esc(R.States[S]->Label) << "</span>";
  OS << "</div>\n<div class=\"charts\">\n";
  std::vector<CountRow> Families = familyRows(R.Families, D);
  for (Isa I : {Isa::PTX, Isa::SASS})
    for (bool Loop : {true, false})
      chart(OS, R, D, Families, I, Loop);
  OS << "</div>\n";

  if (!D.MovedOpcodes.empty()) {
    OS << "<h3>Opcodes that moved most</h3>\n";
    std::vector<const CountRow *> Rows;
    for (const CountRow &C : D.MovedOpcodes)
      Rows.push_back(&C);
    countTable(OS, R, Rows, "opcode", true);
  }
  for (Isa I : {Isa::PTX, Isa::SASS}) {
    std::vector<const CountRow *> Rows;
    for (const CountRow &C : Families)
      if (C.Stage == I)
        Rows.push_back(&C);
    if (Rows.empty())
      continue;
    OS << "<details><summary>" << isaTitle(I) << " family counts"
       << (D.countsChanged(I) ? "" : ": no change") << "</summary>\n";
    countTable(OS, R, Rows, "family", false);
    OS << "</details>\n";
  }
  if (!D.Ttgir.empty())
    ttgirSection(OS, R, D);
  else if (any_of(D.States, [](const KernelInState &K) {
             return K.Summary && K.Summary->Ttgir;
           }))
    OS << "<p>TTGIR: no op added or removed.</p>\n";

  OS << "<h3>Resources</h3>\n<table><tr><th>resource</th>";
  for (const StateSummary *S : R.States)
    OS << "<th>" << esc(S->Label) << "</th>";
  OS << "</tr>\n";
  for (const ResourceRow &Row : resourceRows(D)) {
    OS << "<tr><td><code>" << esc(Row.Name) << "</code></td>";
    for (size_t S = 0; S < Row.Values.size(); ++S)
      OS << numCell(Row.Values[S], Row.Values[0], S == 0);
    OS << "</tr>\n";
  }
  OS << "</table>\n";

  findings(OS, R, D.Checks);

  for (const GateResult &G : D.Gates) {
    OS << "<p class=\"gate\">gate <code>" << esc(G.Expr) << "</code>";
    for (size_t S = 1; S < G.Results.size(); ++S)
      if (G.Results[S])
        OS << "<br>" << esc(R.States[S]->Label) << ": "
           << (G.Results[S]->holds()                         ? "<b>held</b>"
               : G.Results[S]->T == ExprResult::Truth::False ? "not held"
                                                             : "undecided");
    OS << "</p>\n";
  }
  OS << "</section>\n";
}

/// The page up to its heading: the title, the policy that keeps it offline,
/// the style.
void pageHead(raw_ostream &OS, const DiffReport &R) {
  std::string Title = "gestell diff: " + R.States[0]->Label;
  for (size_t S = 1; S < R.States.size(); ++S)
    Title += (S == 1 ? " vs " : ", ") + R.States[S]->Label;
  OS << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
        "charset=\"utf-8\">\n"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
        "'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, "
        "initial-scale=1\">\n<title>"
     << esc(Title) << "</title>\n<style>" << Style << "</style>\n</head>\n"
     << "<body data-report=\"gestell-diff\">\n<h1>" << esc(Title) << "</h1>\n";
}

/// The verdict of the --fail-on gates, when there are any.
void gateVerdict(raw_ostream &OS, const DiffReport &R) {
  if (R.GateExprs.empty())
    return;
  OS << "<p class=\"" << (R.GateHeld.empty() ? "gate-clear" : "gate-held")
     << "\">";
  if (R.GateHeld.empty()) {
    OS << "Gate held for no kernel.";
  } else {
    std::vector<std::string> Held;
    for (const auto &[K, S] : R.GateHeld)
      Held.push_back("<code>" + esc(R.Kernels[K].Name) + "</code> in " +
                     esc(R.States[S]->Label));
    OS << "<b>Gate held</b> for " << join(Held, ", ") << ".";
  }
  for (const std::string &E : R.GateExprs)
    OS << "<br><code>" << esc(E) << "</code>";
  OS << "</p>\n";
}

/// The summary: per state, what changed and the gate.
void stateTable(raw_ostream &OS, const DiffReport &R) {
  std::vector<StateTally> Tally = tallyStates(R);
  OS << "<table class=\"states\"><tr><th>state</th><th>path</th>"
        "<th>kernels</th><th>changed</th><th>appeared</th>"
        "<th>disappeared</th><th>ambiguous</th><th>gate</th></tr>\n";
  for (size_t I = 0; I < R.States.size(); ++I) {
    const StateSummary *S = R.States[I];
    const StateTally &N = Tally[I];
    auto Cell = [&](unsigned V) {
      return "<td>" + (I ? std::to_string(V) : std::string("-")) + "</td>";
    };
    OS << "<tr data-state=\"" << esc(S->Label) << "\"><td>" << esc(S->Label)
       << (I ? "" : " (base)") << "</td><td class=\"text\"><code>"
       << esc(S->Path) << "</code></td><td>" << S->Kernels.size() << "</td>"
       << Cell(N.Changed) << Cell(N.Appeared) << Cell(N.Disappeared)
       << Cell(N.Ambiguous) << "<td class=\"text\">"
       << (I == 0 || R.GateExprs.empty() ? "-"
           : N.GateHeld ? "<b>held</b> (" + std::to_string(N.GateHeld) + ")"
                        : std::string("passed"))
       << "</td></tr>\n";
  }
  OS << "</table>\n";
}

/// Each changed (or unmatched) base kernel folded under its key, then the
/// unchanged ones on one line.
void kernelSections(raw_ostream &OS, const DiffReport &R) {
  std::vector<const KernelDiff *> Same;
  for (const KernelDiff &D : R.Kernels) {
    bool Compared = any_of(D.States, [](const KernelInState &K) {
      return K.Status == MatchStatus::Matched;
    });
    if (D.Changed || !Compared) {
      // Each kernel folded under its key: the summary is read first.
      OS << "<details class=\"kernel\"><summary><code>" << esc(D.key().str())
         << "</code></summary>\n";
      kernel(OS, R, D);
      OS << "</details>\n";
    } else {
      Same.push_back(&D);
    }
  }
  if (Same.empty())
    return;
  OS << "<p>Unchanged (" << Same.size() << "): ";
  for (size_t I = 0; I < Same.size(); ++I)
    OS << (I ? ", " : "") << "<code class=\"unchanged\" data-kernel=\""
       << esc(Same[I]->Name) << "\">" << esc(Same[I]->key().str()) << "</code>";
  OS << ".</p>\n";
}

/// Kernels of later states that match no base kernel, or several.
void unmatchedKernels(raw_ostream &OS, const DiffReport &R) {
  if (R.Appeared.empty() && R.Ambiguous.empty())
    return;
  OS << "<h2>Not matched</h2>\n<ul>\n";
  for (const UnmatchedKernel &U : R.Appeared)
    OS << "<li>appeared in " << esc(R.States[U.State]->Label) << ": <code>"
       << esc(U.Summary->Key.str()) << "</code> <code>"
       << esc(displayDir(*U.Summary)) << "</code></li>\n";
  for (const UnmatchedKernel &U : R.Ambiguous)
    OS << "<li>ambiguous in " << esc(R.States[U.State]->Label) << ": <code>"
       << esc(U.Summary->Key.str()) << "</code> matches " << U.Candidates.size()
       << " base kernels</li>\n";
  OS << "</ul>\n";
}

/// The end of the page and its only script: it records that the page
/// rendered and how many charts it holds (the headless-browser test reads
/// these back from the DOM).
void pageTail(raw_ostream &OS) {
  OS << "<script>\n"
        "document.body.dataset.charts = "
        "String(document.querySelectorAll('svg.family-chart').length);\n"
        "document.body.dataset.bars = "
        "String(document.querySelectorAll('svg.family-chart rect.bar')."
        "length);\n"
        "document.body.dataset.rendered = 'true';\n"
        "</script>\n</body>\n</html>\n";
}

} // namespace

void writeDiffHtml(raw_ostream &OS, const DiffReport &R) {
  pageHead(OS, R);
  gateVerdict(OS, R);
  stateTable(OS, R);
  kernelSections(OS, R);
  unmatchedKernels(OS, R);
  if (!R.OtherChecks.empty()) {
    OS << "<h2>Kernels without a match</h2>\n";
    findings(OS, R, R.OtherChecks);
  }
  if (!R.Problems.empty()) {
    OS << "<h2>Problems</h2>\n<ul>\n";
    for (const std::string &P : R.Problems)
      OS << "<li><code>" << esc(P) << "</code></li>\n";
    OS << "</ul>\n";
  }
  pageTail(OS);
}

} // namespace gestell::driver
