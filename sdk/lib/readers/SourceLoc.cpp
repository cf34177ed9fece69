//===- SourceLoc.cpp - Flattening MLIR debug locations --------------------===//
#include "gestell/SourceLoc.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace gestell {

const Location *aliasTarget(const Location *L) {
  // Bounded: a cycle is unknown.
  for (int Hops = 0; L && L->K == Location::Kind::Alias; ++Hops) {
    if (Hops > 64)
      return nullptr;
    L = L->Target;
  }
  return L;
}

namespace {

void flatten(const Location *L, StringRef Name, SourceStack &S, int Depth) {
  L = aliasTarget(L);
  if (!L || Depth > 256)
    return;
  switch (L->K) {
  case Location::Kind::Unknown:
  case Location::Kind::Opaque:
  case Location::Kind::Alias:
    return;
  case Location::Kind::FileLineCol: {
    SourceFrame F;
    F.File = L->File.str();
    F.Line = L->Line;
    F.Column = L->Column;
    F.Name = Name.str();
    S.Frames.push_back(std::move(F));
    return;
  }
  case Location::Kind::Name:
    // The innermost name wins: loc("a"(loc("b"(f)))) names the frame "b".
    flatten(L->Child, L->Name, S, Depth + 1);
    return;
  case Location::Kind::CallSite:
    flatten(L->Callee, Name, S, Depth + 1);
    flatten(L->Caller, "", S, Depth + 1);
    return;
  case Location::Kind::Fused:
    for (const Location *Part : L->Parts) {
      SourceStack Sub;
      flatten(Part, Name, Sub, Depth + 1);
      if (!Sub.unknown()) {
        S.Frames.append(Sub.Frames.begin(), Sub.Frames.end());
        return;
      }
    }
    return;
  }
}

} // namespace

bool inTritonPackage(StringRef File) {
  // ".../triton/{language,runtime,experimental}/...", or a path that starts
  // "triton/language/": one search for "triton/", however many it names.
  for (size_t At = File.find("triton/"); At != StringRef::npos;
       At = File.find("triton/", At + 1)) {
    StringRef Rest = File.substr(At + 7);
    if (At == 0 && Rest.starts_with("language/"))
      return true;
    if (At > 0 && File[At - 1] == '/' &&
        (Rest.starts_with("language/") || Rest.starts_with("runtime/") ||
         Rest.starts_with("experimental/")))
      return true;
  }
  return false;
}

SourceStack resolveLocation(const Location *L) {
  SourceStack S;
  flatten(L, "", S, 0);
  return S;
}

std::optional<SourceFrame> userFrame(const SourceStack &S,
                                     StringRef SourceRoot) {
  for (auto It = S.Frames.rbegin(); It != S.Frames.rend(); ++It) {
    StringRef File = It->File;
    bool Inside = SourceRoot.empty() ? !inTritonPackage(File)
                                     : File.starts_with(SourceRoot);
    if (Inside)
      return *It;
  }
  return std::nullopt;
}

std::string formatFrame(const SourceFrame &F) {
  if (F.File.empty())
    return "unknown";
  std::string S = F.File;
  S += ':';
  S += utostr(F.Line);
  S += ':';
  S += utostr(F.Column);
  return S;
}

} // namespace gestell
