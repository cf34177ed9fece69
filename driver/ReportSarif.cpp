//===- ReportSarif.cpp - SARIF 2.1.0 for GitHub code scanning -------------===//
//
// Code scanning shows only results located in the repository, and a bundle
// usually lives outside it (~/.triton/cache). So a result's primary location
// is the Python source line from the debug info, mapped into the checkout
// with --path-map; the artifact lines the check read are related locations.
// Without a source line, the artifact is primary. partialFingerprints come
// from check id, kernel, target and the normalized context, never from line
// numbers or folder names, so alerts survive unrelated edits.
//
//===----------------------------------------------------------------------===//
#include "Report.h"

#include "gestell/Trace.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace gestell::driver {

namespace {
// GitHub code scanning's limits for one upload ("SARIF support for code
// scanning", "Validating your SARIF file"): past them it drops results or
// locations silently, so gestell does the cutting and says so.
constexpr size_t MaxResultsPerRun = 25000;
constexpr size_t MaxRelatedPerResult = 1000;

/// SARIF's convention: plain-text messages end with a period.
std::string sentence(StringRef S) {
  std::string Out = S.rtrim().str();
  if (!Out.empty() && !StringRef(".!?").contains(Out.back()))
    Out += '.';
  return Out;
}

json::Object text(StringRef S) { return json::Object{{"text", sentence(S)}}; }

/// For a place in a stage of a trace, where in the stage's text it is
/// (" (in the trace event: add_kernel.ttgir:42:3)"); "" otherwise.
std::string inTraceEvent(const DiagLoc &L) {
  std::optional<TracePlace> T = tracePlace(L.File);
  if (!T || T->StageFile.empty())
    return "";
  std::string Where = T->StageFile;
  if (L.Line)
    Where += ":" + std::to_string(L.Line);
  if (L.Line && L.Column)
    Where += ":" + std::to_string(L.Column);
  return " (in the trace event: " + Where + ")";
}

std::string relatedMessage(const DiagLoc &L) {
  if (!L.Message.empty())
    return L.Message;
  if (L.ArtifactStage)
    return ("the " + stageName(*L.ArtifactStage).upper() + " line");
  return "the Python source line";
}

json::Object rule(const RegisteredCheck &C, const ReportOptions &Opt) {
  const CheckInfo &I = C.Info;
  std::string Uri = helpUri(I, Opt);
  json::Array Tags{I.Category};
  if (C.Module != I.Category)
    Tags.push_back(C.Module);
  for (const std::string &T : I.Tags)
    if (!is_contained(Tags, json::Value(T)))
      Tags.push_back(T);
  return json::Object{
      {"id", I.Id},
      {"shortDescription", text(I.Summary)},
      {"fullDescription",
       text(I.Description.empty() ? I.Summary : I.Description)},
      {"helpUri", Uri},
      {"help",
       json::Object{{"text", sentence(I.Summary) + " See " + Uri},
                    {"markdown", "**" + sentence(I.Summary) +
                                     "** [Documentation](" + Uri + ")"}}},
      {"defaultConfiguration",
       json::Object{{"level", sarifLevel(I.DefaultLevel)}}},
      {"properties",
       json::Object{{"category", I.Category},
                    {"tags", std::move(Tags)},
                    {"precision", I.Precision},
                    {"problem.severity",
                     I.DefaultLevel == Level::Error     ? "error"
                     : I.DefaultLevel == Level::Warning ? "warning"
                                                        : "recommendation"}}},
  };
}

} // namespace

namespace {

/// The message: code scanning shows it, not properties, so it carries the
/// notes and the hint. Its first line is a short title: long layouts cut
/// to their names there, in full on the next line.
std::string resultMessage(const Diagnostic &D) {
  std::string Title = shortenLayouts(D.Message);
  std::string Msg = sentence(Title);
  if (Title != D.Message)
    Msg += "\nIn full: " + sentence(D.Message);
  for (const Note &N : D.Notes)
    if (!N.Loc)
      Msg += "\n" + sentence(N.Message);
  if (D.Hint)
    Msg += "\nFix hint (" + D.Hint->Where + "): " + sentence(D.Hint->Message);
  return Msg;
}

/// A location of a result and what the result says of it.
struct Candidate {
  DiagLoc L;
  std::string Message;
};

/// A result's locations in order of preference: the Python line when it is
/// in the checkout (mapped to a relative path by --path-map, or a file that
/// exists), then the artifact line the check read, then the rest. With
/// the index of the primary: the first with a line in a text file (code
/// scanning shows nothing useful at a binary .cubin, and drops a result
/// whose primary location is outside the repository).
std::pair<std::vector<Candidate>, size_t>
candidateLocations(const Diagnostic &D, const PathMap &Paths) {
  auto InCheckout = [&](const DiagLoc &L) {
    std::string P = Paths.map(L.File);
    return !sys::path::is_absolute(P, sys::path::Style::posix) ||
           sys::fs::exists(P);
  };
  std::vector<Candidate> All;
  bool SourceFirst = D.SourceLoc && InCheckout(*D.SourceLoc);
  if (SourceFirst)
    All.push_back({*D.SourceLoc, "the Python source line"});
  All.push_back(
      {D.Primary, D.Primary.Message.empty() && D.Primary.ArtifactStage
                      ? "the " + stageName(*D.Primary.ArtifactStage).upper() +
                            " line the check read"
                      : D.Primary.Message});
  if (D.SourceLoc && !SourceFirst)
    All.push_back({*D.SourceLoc, "the Python source line (outside this "
                                 "checkout: --path-map maps it in)"});
  for (const DiagLoc &L : D.Related)
    All.push_back({L, relatedMessage(L)});
  for (const Note &N : D.Notes)
    if (N.Loc)
      All.push_back({*N.Loc, N.Message});
  auto Readable = [](const DiagLoc &L) {
    return L.Line && L.ArtifactStage != Stage::Cubin;
  };
  size_t PrimaryAt = 0;
  if (!SourceFirst && !Readable(All[0].L))
    for (size_t I = 1; I < All.size(); ++I)
      if (Readable(All[I].L) && All[I].L.ArtifactStage) {
        PrimaryAt = I;
        break;
      }
  return {std::move(All), PrimaryAt};
}

/// How the message links to a related location: "SASS line 12".
std::string linkLabel(const DiagLoc &L) {
  if (L.ArtifactStage == Stage::Cubin)
    return "the cubin";
  return (L.ArtifactStage ? stageName(*L.ArtifactStage).upper()
                          : std::string("Python")) +
         (L.Line ? " line " + std::to_string(L.Line) : std::string());
}

/// Every location but the primary, at most MaxRelatedPerResult of them
/// (their indices in All). Code scanning shows only the locations the
/// message links to ([text](id)), so the message ends with a link to each.
std::vector<size_t> relatedLocations(ArrayRef<Candidate> All, size_t PrimaryAt,
                                     std::string &Msg) {
  std::vector<size_t> Related;
  std::string Links;
  size_t LeftOut = 0;
  for (size_t I = 0; I < All.size(); ++I) {
    if (I == PrimaryAt)
      continue;
    if (Related.size() == MaxRelatedPerResult) {
      ++LeftOut;
      continue;
    }
    size_t Id = Related.size();
    Related.push_back(I);
    Links += (Links.empty() ? "" : ", ") +
             ("[" + linkLabel(All[I].L) + "](" + std::to_string(Id) + ")");
  }
  if (!Links.empty())
    Msg += "\nSee " + Links + ".";
  if (LeftOut)
    Msg += "\n" + std::to_string(LeftOut) +
           " more related locations are left out (GitHub code scanning takes "
           "1,000 per result); the JSON report has them all.";
  return Related;
}

// A result is written as it is made, never built as a json::Object first:
// results are most of a report, and on real caches building each one as a
// document cost more than the checks that found it. Members come in the
// order llvm::json prints an Object (sorted by key), as everywhere in this
// file.

void writeText(json::OStream &J, StringRef Key, StringRef S) {
  J.attributeObject(Key, [&] { stringAttribute(J, "text", sentence(S)); });
}

/// A location's physicalLocation member for File:Line:Column; a stage of a
/// TritonParse trace has no file of its own: the place is the trace file
/// at its event's line (gestell/Trace.h). A relative path is against
/// %SRCROOT%, unless WithBaseId is false (notifications have always named
/// the artifact as given).
void writePhysicalLocation(json::OStream &J, StringRef File, uint32_t Line,
                           uint32_t Column, const PathMap &Paths,
                           bool WithBaseId = true) {
  std::string Path;
  if (std::optional<TracePlace> T = tracePlace(File)) {
    Path = Paths.map(T->Trace);
    Line = T->EventLine;
    Column = 0;
  } else {
    Path = Paths.map(File);
  }
  J.attributeObject("physicalLocation", [&] {
    J.attributeObject("artifactLocation", [&] {
      stringAttribute(J, "uri", pathToUri(Path));
      if (WithBaseId && !sys::path::is_absolute(Path, sys::path::Style::posix))
        J.attribute("uriBaseId", "%SRCROOT%");
    });
    if (Line)
      J.attributeObject("region", [&] {
        if (Column)
          J.attribute("startColumn", Column);
        J.attribute("startLine", Line);
      });
  });
}

/// A location: a related one has an Id and its Message; a primary one
/// says where in a trace event it is.
void writeLocation(json::OStream &J, const DiagLoc &L, const PathMap &Paths,
                   std::optional<size_t> Id = std::nullopt,
                   const std::string *Message = nullptr) {
  J.object([&] {
    if (Id)
      J.attribute("id", int64_t(*Id));
    if (Message) {
      writeText(J, "message", *Message + inTraceEvent(L));
    } else if (std::string In = inTraceEvent(L); !In.empty()) {
      std::string M = StringRef(In).trim(" ()").str();
      M[0] = toUpper(M[0]);
      writeText(J, "message", M);
    }
    writePhysicalLocation(J, L.File, L.Line, L.Column, Paths);
  });
}

void writeResultProperties(json::OStream &J, const Result &Res) {
  const Diagnostic &D = Res.Diag;
  J.attributeObject("properties", [&] {
    stringAttribute(J, "kernel", D.Kernel);
    if (D.Primary.ArtifactStage)
      J.attribute("stage", stageName(*D.Primary.ArtifactStage));
    if (D.Hint)
      J.attribute("stageHint", D.Hint->Where);
    stringAttribute(J, "target", D.Target);
    if (Res.Promoted)
      J.attribute("warningsAsErrors", true);
  });
}

void writeResult(json::OStream &J, const Result &Res, StringRef Fingerprint,
                 const StringMap<unsigned> &RuleIndex,
                 const ReportOptions &Opt) {
  const Diagnostic &D = Res.Diag;
  std::string Msg = resultMessage(D);
  auto [All, PrimaryAt] = candidateLocations(D, Opt.Paths);
  std::vector<size_t> Related = relatedLocations(All, PrimaryAt, Msg);
  J.object([&] {
    if (!Res.BaselineState.empty())
      J.attribute("baselineState", Res.BaselineState);
    J.attribute("level", sarifLevel(D.Severity));
    J.attributeArray("locations",
                     [&] { writeLocation(J, All[PrimaryAt].L, Opt.Paths); });
    J.attributeObject("message", [&] { stringAttribute(J, "text", Msg); });
    J.attributeObject("partialFingerprints",
                      [&] { stringAttribute(J, "gestell/v1", Fingerprint); });
    writeResultProperties(J, Res);
    if (!Related.empty())
      J.attributeArray("relatedLocations", [&] {
        for (size_t Id = 0; Id < Related.size(); ++Id)
          writeLocation(J, All[Related[Id]].L, Opt.Paths, Id,
                        &All[Related[Id]].Message);
      });
    stringAttribute(J, "ruleId", D.CheckId);
    if (auto RI = RuleIndex.find(D.CheckId); RI != RuleIndex.end())
      J.attribute("ruleIndex", RI->second);
    if (Res.Suppressed)
      J.attributeArray("suppressions", [&] {
        J.object([&] {
          // An ignore comment's reason is optional; a config's is required.
          if (!Res.SuppressionReason.empty())
            J.attribute("justification", Res.SuppressionReason);
          J.attribute("kind", Res.SuppressionKind);
          J.attribute("status", "accepted");
        });
      });
  });
}

void writeNotification(json::OStream &J, const Notification &N,
                       const StringMap<unsigned> &RuleIndex,
                       const ReportOptions &Opt) {
  J.object([&] {
    if (!N.CheckId.empty())
      J.attributeObject("associatedRule", [&] {
        J.attribute("id", N.CheckId);
        if (auto RI = RuleIndex.find(N.CheckId); RI != RuleIndex.end())
          J.attribute("index", RI->second);
      });
    J.attribute("level", sarifLevel(N.Severity));
    if (!N.File.empty())
      J.attributeArray("locations", [&] {
        J.object([&] {
          writePhysicalLocation(J, N.File, N.Line, N.Column, Opt.Paths,
                                /*WithBaseId=*/false);
        });
      });
    writeText(J, "message", N.Message);
    if (!N.Kernel.empty())
      J.attributeObject("properties", [&] { J.attribute("kernel", N.Kernel); });
  });
}

} // namespace

namespace {
/// The results to write, in report order: all of them, or the
/// MaxResultsPerRun most severe (unsuppressed first, then error, warning,
/// remark; report order among equals).
std::vector<size_t> resultsToWrite(const RunReport &R) {
  std::vector<size_t> Order(R.Results.size());
  for (size_t I = 0; I < Order.size(); ++I)
    Order[I] = I;
  if (Order.size() <= MaxResultsPerRun)
    return Order;
  auto Rank = [&](size_t I) {
    const Result &Res = R.Results[I];
    return std::make_pair(Res.Suppressed || Res.BaselineState == "absent",
                          -static_cast<int>(Res.Diag.Severity));
  };
  std::stable_sort(Order.begin(), Order.end(),
                   [&](size_t A, size_t B) { return Rank(A) < Rank(B); });
  Order.resize(MaxResultsPerRun);
  llvm::sort(Order);
  return Order;
}
} // namespace

// Streamed, one result (rule, notification) at a time, so memory holds no
// document: members are written in the order llvm::json prints an Object
// (sorted by key), which keeps the bytes those tests and docs pin.
void writeSarif(raw_ostream &OS, const RunReport &R, const ReportOptions &Opt) {
  StringMap<unsigned> RuleIndex;
  unsigned NumRules = 0;
  for (const RegisteredCheck *C : R.Rules)
    RuleIndex[C->Info.Id] = NumRules++;
  std::vector<std::string> Fingerprints = resultFingerprints(R);
  std::vector<size_t> Written = resultsToWrite(R);
  Notification Cut;
  if (Written.size() < R.Results.size()) {
    Cut.Severity = Level::Warning;
    Cut.Message = std::to_string(R.Results.size() - Written.size()) + " of " +
                  std::to_string(R.Results.size()) +
                  " results are left out of this SARIF run, the least severe "
                  "first: GitHub code scanning takes 25,000 results per run. "
                  "Lint in parts with --shard=I/N and upload each part with "
                  "its own category (docs/ci.md), or narrow --checks";
    errs() << "gestell: warning: " << Cut.Message << "\n";
  }

  json::OStream J(OS, /*IndentSize=*/2);
  J.objectBegin();
  J.attribute("$schema", "https://json.schemastore.org/sarif-2.1.0.json");
  J.attributeArray("runs", [&] {
    J.objectBegin();
    // One category per tool (GitHub code scanning: one run per tool and
    // category in an upload; upload-sarif's `category` overrides it).
    J.attributeObject("automationDetails",
                      [&] { J.attribute("id", "gestell/"); });
    J.attributeArray("invocations", [&] {
      J.objectBegin();
      J.attribute("executionSuccessful", R.executionSuccessful());
      J.attributeArray("toolExecutionNotifications", [&] {
        for (const Notification &N : R.Notifications)
          writeNotification(J, N, RuleIndex, Opt);
        if (!Cut.Message.empty())
          writeNotification(J, Cut, RuleIndex, Opt);
      });
      J.objectEnd();
    });
    J.attributeArray("results", [&] {
      for (size_t I : Written)
        writeResult(J, R.Results[I], Fingerprints[I], RuleIndex, Opt);
    });
    J.attributeObject("tool", [&] {
      J.attributeObject("driver", [&] {
        if (!Opt.DocsUrl.empty())
          J.attribute("informationUri", Opt.DocsUrl);
        J.attribute("name", "gestell");
        J.attributeArray("rules", [&] {
          for (const RegisteredCheck *C : R.Rules)
            J.value(rule(*C, Opt));
        });
        J.attribute("semanticVersion", Opt.ToolVersion);
        J.attribute("version", Opt.ToolVersion);
      });
      if (!R.Plugins.empty())
        J.attributeArray("extensions", [&] {
          for (const PluginRecord &P : R.Plugins)
            J.value(json::Object{{"name", P.Name}, {"version", P.Version}});
        });
    });
    J.objectEnd();
  });
  J.attribute("version", "2.1.0");
  J.objectEnd();
  J.flush();
  OS << "\n";
}

} // namespace gestell::driver
