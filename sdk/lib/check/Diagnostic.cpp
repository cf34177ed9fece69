//===- Diagnostic.cpp - What a check reports ------------------------------===//
#include "gestell/Diagnostic.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"

#include <tuple>

using namespace llvm;

namespace gestell {

StringRef levelName(Level L) {
  switch (L) {
  case Level::Remark:
    return "remark";
  case Level::Warning:
    return "warning";
  case Level::Error:
    return "error";
  }
  llvm_unreachable("unknown level");
}

std::optional<Level> levelFromName(StringRef Name) {
  for (Level L : {Level::Remark, Level::Warning, Level::Error})
    if (Name == levelName(L))
      return L;
  return std::nullopt;
}

DiagLoc DiagLoc::artifact(Stage S, StringRef File, uint32_t Line,
                          uint32_t Column) {
  DiagLoc L;
  L.File = File.str();
  L.Line = Line;
  L.Column = Column;
  L.ArtifactStage = S;
  return L;
}

DiagLoc DiagLoc::source(StringRef File, uint32_t Line, uint32_t Column) {
  DiagLoc L;
  L.File = File.str();
  L.Line = Line;
  L.Column = Column;
  return L;
}

namespace {
/// "296 staging instructions" -> "# staging instructions": counts move with
/// unrelated edits, the wording does not.
std::string maskDigits(StringRef S) {
  std::string Out;
  bool InNumber = false;
  for (char C : S) {
    if (isDigit(C)) {
      if (!InNumber)
        Out += '#';
      InNumber = true;
      continue;
    }
    InNumber = false;
    Out += C;
  }
  return Out;
}
} // namespace

std::string fingerprint(const Diagnostic &D) {
  SHA256 Hash;
  auto Part = [&](StringRef S) {
    Hash.update(S);
    Hash.update(StringRef("\0", 1));
  };
  Part("gestell-fingerprint-v1");
  Part(D.CheckId);
  Part(D.Kernel);
  Part(D.Target);
  if (D.Context.empty()) {
    Part(maskDigits(D.Message));
  } else {
    for (const std::string &C : D.Context)
      Part(C);
  }
  std::array<uint8_t, 32> Digest = Hash.final();
  return toHex(ArrayRef<uint8_t>(Digest).take_front(16), /*LowerCase=*/true);
}

static auto locKey(const DiagLoc &L) {
  return std::make_tuple(StringRef(L.File), L.Line, L.Column);
}

bool diagnosticLess(const Diagnostic &A, const Diagnostic &B) {
  auto Key = [](const Diagnostic &D) {
    return std::make_tuple(locKey(D.Primary), StringRef(D.CheckId),
                           StringRef(D.Message), D.Severity,
                           StringRef(D.Kernel));
  };
  if (Key(A) != Key(B))
    return Key(A) < Key(B);
  // Same place and words: fall back to everything else that is printed.
  auto Rest = [](const Diagnostic &D) {
    std::string S;
    if (D.SourceLoc)
      S += D.SourceLoc->File + ":" + std::to_string(D.SourceLoc->Line) + ":" +
           std::to_string(D.SourceLoc->Column);
    for (const Note &N : D.Notes)
      S += "\n" + N.Message;
    for (const DiagLoc &L : D.Related)
      S += "\n" + L.File + ":" + std::to_string(L.Line) + ":" +
           std::to_string(L.Column) + L.Message;
    for (const std::string &C : D.Context)
      S += "\n" + C;
    return S;
  };
  return Rest(A) < Rest(B);
}

} // namespace gestell
