//===- ReportJson.cpp - JSON output (docs/json.md) ------------------------===//
#include "Report.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace llvm;

namespace gestell::driver {

namespace {
json::Object location(const DiagLoc &L, const PathMap &Paths) {
  json::Object O{{"file", Paths.map(L.File)}};
  if (L.Line)
    O["line"] = L.Line;
  if (L.Column)
    O["column"] = L.Column;
  if (L.ArtifactStage)
    O["stage"] = stageName(*L.ArtifactStage);
  if (!L.Message.empty())
    O["message"] = L.Message;
  return O;
}
} // namespace

void writeJson(raw_ostream &OS, const RunReport &R, const ReportOptions &Opt) {
  json::Array Checks;
  for (const RegisteredCheck *C : R.Rules) {
    json::Array Stages;
    for (Stage S : C->Info.Stages)
      Stages.push_back(stageName(S));
    Checks.push_back(json::Object{
        {"id", C->Info.Id},
        {"summary", C->Info.Summary},
        {"category", C->Info.Category},
        {"level", levelName(C->Info.DefaultLevel)},
        {"stages", std::move(Stages)},
        {"module", C->Module},
        {"helpUri", helpUri(C->Info, Opt)},
    });
  }

  std::vector<std::string> Fingerprints = resultFingerprints(R);
  json::Array Results;
  for (size_t I = 0; I < R.Results.size(); ++I) {
    const Result &Res = R.Results[I];
    const Diagnostic &D = Res.Diag;
    json::Object O{
        {"checkId", D.CheckId},
        {"level", levelName(D.Severity)},
        {"message", D.Message},
        {"kernel", D.Kernel},
        {"target", D.Target},
        {"location", location(D.Primary, Opt.Paths)},
        {"fingerprint", Fingerprints[I]},
        {"promoted", Res.Promoted},
    };
    if (D.SourceLoc)
      O["source"] = location(*D.SourceLoc, Opt.Paths);
    json::Array Related, Notes, Context;
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
      O["suppressed"] = json::Object{{"reason", Res.SuppressionReason},
                                     {"origin", Res.SuppressionOrigin}};
    if (!Res.BaselineState.empty())
      O["baselineState"] = Res.BaselineState;
    Results.push_back(std::move(O));
  }

  json::Array Notifications;
  for (const Notification &N : R.Notifications) {
    json::Object O{{"level", levelName(N.Severity)}, {"message", N.Message}};
    if (!N.Kernel.empty())
      O["kernel"] = N.Kernel;
    if (!N.CheckId.empty())
      O["checkId"] = N.CheckId;
    if (!N.File.empty())
      O["file"] = Opt.Paths.map(N.File);
    Notifications.push_back(std::move(O));
  }

  json::Array Plugins;
  for (const PluginRecord &P : R.Plugins)
    Plugins.push_back(json::Object{{"name", P.Name}, {"version", P.Version}});

  json::Value Doc = json::Object{
      {"format", "gestell-check"},
      {"formatVersion", 1},
      {"tool", json::Object{{"name", "gestell"},
                            {"version", Opt.ToolVersion},
                            {"plugins", std::move(Plugins)}}},
      {"kernelsChecked", R.KernelsChecked},
      {"executionSuccessful", R.executionSuccessful()},
      {"checks", std::move(Checks)},
      {"results", std::move(Results)},
      {"notifications", std::move(Notifications)},
  };
  OS << formatv("{0:2}", Doc) << "\n";
}

} // namespace gestell::driver
