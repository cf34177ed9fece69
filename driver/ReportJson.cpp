//===- ReportJson.cpp - JSON output (docs/json.md) ------------------------===//
#include "Report.h"

#include "gestell/Trace.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace llvm;

namespace gestell::driver {

namespace {
// Results are written as they are made, never built as json::Objects
// first (building cost more than the checks on real caches): members in
// the order llvm::json prints an Object, sorted by key.

/// A location as an object (docs/json.md).
void writeLocation(json::OStream &J, const DiagLoc &L, const PathMap &Paths) {
  J.object([&] {
    // A stage of a TritonParse trace: the trace file at its event's line,
    // and the place in the stage's text.
    if (std::optional<TracePlace> T = tracePlace(L.File)) {
      stringAttribute(J, "file", Paths.map(T->Trace));
      J.attribute("line", T->EventLine);
      if (!L.Message.empty())
        stringAttribute(J, "message", L.Message);
      if (L.ArtifactStage)
        J.attribute("stage", stageName(*L.ArtifactStage));
      if (L.Column)
        J.attribute("stageColumn", L.Column);
      if (!T->StageFile.empty())
        J.attribute("stageFile", T->StageFile);
      if (L.Line)
        J.attribute("stageLine", L.Line);
      return;
    }
    if (L.Column)
      J.attribute("column", L.Column);
    stringAttribute(J, "file", Paths.map(L.File));
    if (!L.InlinedFrames.empty())
      J.attributeArray("inlined", [&] {
        for (const auto &[File, Line] : L.InlinedFrames)
          J.object([&] {
            stringAttribute(J, "file", Paths.map(File));
            J.attribute("line", Line);
          });
      });
    if (L.Line)
      J.attribute("line", L.Line);
    if (!L.Message.empty())
      stringAttribute(J, "message", L.Message);
    if (L.ArtifactStage)
      J.attribute("stage", stageName(*L.ArtifactStage));
  });
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

void writeResult(json::OStream &J, const Result &Res, StringRef Fingerprint,
                 const ReportOptions &Opt) {
  const Diagnostic &D = Res.Diag;
  J.object([&] {
    if (!Res.BaselineState.empty())
      J.attribute("baselineState", Res.BaselineState);
    stringAttribute(J, "checkId", D.CheckId);
    J.attributeArray("context", [&] {
      for (const std::string &C : D.Context)
        J.value(C);
    });
    stringAttribute(J, "fingerprint", Fingerprint);
    if (D.Hint)
      J.attributeObject("hint", [&] {
        stringAttribute(J, "message", D.Hint->Message);
        J.attribute("where", D.Hint->Where);
      });
    stringAttribute(J, "kernel", D.Kernel);
    J.attribute("level", levelName(D.Severity));
    J.attributeBegin("location");
    writeLocation(J, D.Primary, Opt.Paths);
    J.attributeEnd();
    stringAttribute(J, "message", D.Message);
    J.attributeArray("notes", [&] {
      for (const Note &N : D.Notes)
        J.object([&] {
          if (N.Loc) {
            J.attributeBegin("location");
            writeLocation(J, *N.Loc, Opt.Paths);
            J.attributeEnd();
          }
          stringAttribute(J, "message", N.Message);
        });
    });
    J.attribute("promoted", Res.Promoted);
    J.attributeArray("related", [&] {
      for (const DiagLoc &L : D.Related)
        writeLocation(J, L, Opt.Paths);
    });
    if (D.SourceLoc) {
      J.attributeBegin("source");
      writeLocation(J, *D.SourceLoc, Opt.Paths);
      J.attributeEnd();
    }
    if (Res.Suppressed)
      J.attributeObject("suppressed", [&] {
        J.attribute("kind", Res.SuppressionKind);
        J.attribute("origin", Res.SuppressionOrigin);
        J.attribute("reason", Res.SuppressionReason);
      });
    stringAttribute(J, "target", D.Target);
  });
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
      writeResult(J, R.Results[I], Fingerprints[I], Opt);
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
