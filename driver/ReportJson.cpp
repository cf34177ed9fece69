//===- ReportJson.cpp - JSON output (docs/json.md) ------------------------===//
#include "Report.h"

#include "gestell/Trace.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace llvm;

namespace gestell::driver {

namespace {
json::Object location(const DiagLoc &L, const PathMap &Paths) {
  // A stage of a TritonParse trace: the trace file at its event's line, and
  // the place in the stage's text (docs/json.md).
  if (std::optional<TracePlace> T = tracePlace(L.File)) {
    json::Object O{{"file", Paths.map(T->Trace)}, {"line", T->EventLine}};
    if (!T->StageFile.empty())
      O["stageFile"] = T->StageFile;
    if (L.Line)
      O["stageLine"] = L.Line;
    if (L.Column)
      O["stageColumn"] = L.Column;
    if (L.ArtifactStage)
      O["stage"] = stageName(*L.ArtifactStage);
    if (!L.Message.empty())
      O["message"] = L.Message;
    return O;
  }
  json::Object O{{"file", Paths.map(L.File)}};
  if (L.Line)
    O["line"] = L.Line;
  if (L.Column)
    O["column"] = L.Column;
  if (L.ArtifactStage)
    O["stage"] = stageName(*L.ArtifactStage);
  if (!L.Message.empty())
    O["message"] = L.Message;
  if (!L.InlinedFrames.empty()) {
    json::Array Frames;
    Frames.reserve(L.InlinedFrames.size());
    for (const auto &[File, Line] : L.InlinedFrames)
      Frames.push_back(json::Object{{"file", Paths.map(File)}, {"line", Line}});
    O["inlined"] = std::move(Frames);
  }
  return O;
}
} // namespace

namespace {
json::Object checkObject(const RegisteredCheck &C, const ReportOptions &Opt) {
  json::Array Stages;
  for (Stage S : C.Info.Stages)
    Stages.push_back(stageName(S));
  return json::Object{
      {"id", C.Info.Id},
      {"summary", C.Info.Summary},
      {"category", C.Info.Category},
      {"level", levelName(C.Info.DefaultLevel)},
      {"stages", std::move(Stages)},
      {"module", C.Module},
      {"helpUri", helpUri(C.Info, Opt)},
  };
}

json::Object resultObject(const Result &Res, StringRef Fingerprint,
                          const ReportOptions &Opt) {
  const Diagnostic &D = Res.Diag;
  json::Object O{
      {"checkId", D.CheckId},
      {"level", levelName(D.Severity)},
      {"message", D.Message},
      {"kernel", D.Kernel},
      {"target", D.Target},
      {"location", location(D.Primary, Opt.Paths)},
      {"fingerprint", Fingerprint},
      {"promoted", Res.Promoted},
  };
  if (D.SourceLoc)
    O["source"] = location(*D.SourceLoc, Opt.Paths);
  // Reserved: json::Value's move constructor is not noexcept, so a vector
  // that grows copies every element it holds, deeply.
  json::Array Related, Notes, Context;
  Related.reserve(D.Related.size());
  Notes.reserve(D.Notes.size());
  Context.reserve(D.Context.size());
  for (const DiagLoc &L : D.Related)
    Related.push_back(location(L, Opt.Paths));
  for (const Note &N : D.Notes) {
    json::Object NO{{"message", N.Message}};
    if (N.Loc)
      NO["location"] = location(*N.Loc, Opt.Paths);
    Notes.push_back(std::move(NO));
  }
  for (const std::string &C : D.Context)
    Context.push_back(C);
  O["related"] = std::move(Related);
  O["notes"] = std::move(Notes);
  O["context"] = std::move(Context);
  if (D.Hint)
    O["hint"] =
        json::Object{{"where", D.Hint->Where}, {"message", D.Hint->Message}};
  if (Res.Suppressed)
    O["suppressed"] = json::Object{{"kind", Res.SuppressionKind},
                                   {"reason", Res.SuppressionReason},
                                   {"origin", Res.SuppressionOrigin}};
  if (!Res.BaselineState.empty())
    O["baselineState"] = Res.BaselineState;
  return O;
}

json::Object notificationObject(const Notification &N,
                                const ReportOptions &Opt) {
  json::Object O{{"level", levelName(N.Severity)}, {"message", N.Message}};
  if (!N.Kernel.empty())
    O["kernel"] = N.Kernel;
  if (!N.CheckId.empty())
    O["checkId"] = N.CheckId;
  if (std::optional<TracePlace> T = tracePlace(N.File)) {
    O["file"] = Opt.Paths.map(T->Trace);
    O["line"] = T->EventLine;
    if (!T->StageFile.empty())
      O["stageFile"] = T->StageFile;
  } else if (!N.File.empty()) {
    O["file"] = Opt.Paths.map(N.File);
    if (N.Line && isTraceFileName(N.File)) // an event that did not read
      O["line"] = N.Line;
  }
  return O;
}
} // namespace

// Streamed one check, result and notification at a time, members in the
// order llvm::json prints an Object (sorted by key), as SARIF is.
void writeJson(raw_ostream &OS, const RunReport &R, const ReportOptions &Opt) {
  std::vector<std::string> Fingerprints = resultFingerprints(R);
  json::OStream J(OS, /*IndentSize=*/2);
  J.objectBegin();
  J.attributeArray("checks", [&] {
    for (const RegisteredCheck *C : R.Rules)
      J.value(checkObject(*C, Opt));
  });
  J.attribute("executionSuccessful", R.executionSuccessful());
  J.attribute("format", "gestell-check");
  J.attribute("formatVersion", 1);
  J.attribute("kernelsChecked", R.KernelsChecked);
  J.attributeArray("notifications", [&] {
    for (const Notification &N : R.Notifications)
      J.value(notificationObject(N, Opt));
  });
  J.attributeArray("results", [&] {
    for (size_t I = 0; I < R.Results.size(); ++I)
      J.value(resultObject(R.Results[I], Fingerprints[I], Opt));
  });
  J.attributeObject("tool", [&] {
    J.attribute("name", "gestell");
    J.attributeArray("plugins", [&] {
      for (const PluginRecord &P : R.Plugins)
        J.value(json::Object{{"name", P.Name}, {"version", P.Version}});
    });
    J.attribute("version", Opt.ToolVersion);
  });
  J.objectEnd();
  J.flush();
  OS << "\n";
}

} // namespace gestell::driver
