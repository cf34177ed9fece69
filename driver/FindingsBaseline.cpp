//===- FindingsBaseline.cpp - Fail only on findings that are new ----------===//
#include "FindingsBaseline.h"
#include "Report.h"

#include "gestell/Error.h"
#include "gestell/Input.h"

#include "llvm/Support/JSON.h"

#include <tuple>

using namespace llvm;

namespace gestell::driver {

namespace {
constexpr StringRef FormatName = "gestell-findings-baseline";

bool recorded(const Result &Res) {
  return !Res.Suppressed && Res.BaselineState != "absent";
}

Error malformed(StringRef Path, const Twine &Why) {
  return createStringError(inconvertibleErrorCode(),
                           "%s: not a findings baseline: %s", Path.str().c_str(),
                           Why.str().c_str());
}
} // namespace

bool writeFindingsBaseline(StringRef Path, const RunReport &R) {
  // One entry per fingerprint, with the first finding's check, kernel,
  // target and message for whoever reviews the file.
  struct Entry {
    const Diagnostic *First = nullptr;
    unsigned Count = 0;
  };
  std::map<std::string, Entry> Entries;
  for (const Result &Res : R.Results) {
    if (!recorded(Res))
      continue;
    Entry &E = Entries[fingerprint(Res.Diag)];
    if (!E.First)
      E.First = &Res.Diag;
    ++E.Count;
  }
  std::vector<std::pair<const std::string *, const Entry *>> Sorted;
  for (const auto &[F, E] : Entries)
    Sorted.push_back({&F, &E});
  llvm::sort(Sorted, [](const auto &A, const auto &B) {
    const Diagnostic &X = *A.second->First, &Y = *B.second->First;
    return std::tie(X.CheckId, X.Kernel, X.Target, *A.first) <
           std::tie(Y.CheckId, Y.Kernel, Y.Target, *B.first);
  });
  return writeOutput(Path, "gestell: error: ", [&](raw_ostream &OS) {
    json::OStream J(OS, /*IndentSize=*/2);
    J.objectBegin();
    J.attribute("format", FormatName);
    J.attribute("formatVersion", 1);
    J.attributeArray("findings", [&] {
      for (const auto &[F, E] : Sorted)
        J.object([&, &F = F, &E = E] {
          J.attribute("check", E->First->CheckId);
          J.attribute("count", E->Count);
          J.attribute("fingerprint", *F);
          J.attribute("kernel", E->First->Kernel);
          J.attribute("message", E->First->Message);
          J.attribute("target", E->First->Target);
        });
    });
    J.objectEnd();
    OS << "\n";
  });
}

Expected<FindingsBaseline> readFindingsBaseline(StringRef Path) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf =
      openArtifact(Path, Content::Text);
  if (!Buf)
    return Buf.takeError();
  Expected<json::Value> V =
      parseJsonInput((*Buf)->getBuffer(), Path, "findings baseline");
  if (!V)
    return V.takeError();
  const json::Object *O = V->getAsObject();
  if (!O || O->getString("format") != FormatName)
    return malformed(Path, "expected an object with \"format\": \"" +
                               FormatName + "\" (written by "
                               "--write-findings-baseline)");
  if (O->getInteger("formatVersion") != 1)
    return malformed(Path, "unknown formatVersion (this gestell reads 1)");
  const json::Array *Findings = O->getArray("findings");
  if (!Findings)
    return malformed(Path, "no \"findings\" array");
  FindingsBaseline B;
  B.Path = Path.str();
  for (size_t I = 0; I < Findings->size(); ++I) {
    const json::Object *F = (*Findings)[I].getAsObject();
    std::optional<StringRef> Print = F ? F->getString("fingerprint") : std::nullopt;
    std::optional<int64_t> Count = F ? F->getInteger("count") : std::nullopt;
    if (!Print || Print->empty() || !Count || *Count < 1 || *Count > UINT32_MAX)
      return malformed(Path, "findings[" + Twine(I) +
                                 "] needs a \"fingerprint\" string and a "
                                 "\"count\" of at least 1");
    B.Counts[Print->str()] += static_cast<unsigned>(*Count);
  }
  return B;
}

unsigned applyFindingsBaseline(RunReport &R, const FindingsBaseline &B) {
  std::map<std::string, unsigned> Left = B.Counts;
  for (Result &Res : R.Results) {
    if (!recorded(Res))
      continue;
    auto It = Left.find(fingerprint(Res.Diag));
    bool Known = It != Left.end() && It->second > 0;
    if (Known) {
      --It->second;
      Res.InFindingsBaseline = true;
    }
    // With a baseline build, its state stands unless it says new.
    if (Res.BaselineState.empty() || Res.BaselineState == "new")
      Res.BaselineState = Known ? "unchanged" : "new";
  }
  unsigned Unused = 0;
  for (const auto &[F, N] : Left)
    Unused += N;
  return Unused;
}

} // namespace gestell::driver
