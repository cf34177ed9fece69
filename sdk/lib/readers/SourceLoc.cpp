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

void flatten(const Location *L, StringRef Name,
             SmallVectorImpl<SourceFrameRef> &Out, int Depth) {
  L = aliasTarget(L);
  if (!L || Depth > 256)
    return;
  switch (L->K) {
  case Location::Kind::Unknown:
  case Location::Kind::Opaque:
  case Location::Kind::Alias:
    return;
  case Location::Kind::FileLineCol:
    Out.push_back({L->File, L->Line, L->Column, Name});
    return;
  case Location::Kind::Name:
    // The innermost name wins: loc("a"(loc("b"(f)))) names the frame "b".
    flatten(L->Child, L->Name, Out, Depth + 1);
    return;
  case Location::Kind::CallSite:
    flatten(L->Callee, Name, Out, Depth + 1);
    flatten(L->Caller, "", Out, Depth + 1);
    return;
  case Location::Kind::Fused:
    // The first part with a frame.
    for (const Location *Part : L->Parts) {
      size_t Before = Out.size();
      flatten(Part, Name, Out, Depth + 1);
      if (Out.size() != Before)
        return;
    }
    return;
  }
}

/// The outermost frame whose file is inside SourceRoot (userFrame).
template <typename FrameT>
const FrameT *outermostInside(ArrayRef<FrameT> Frames, StringRef SourceRoot) {
  for (auto It = Frames.rbegin(); It != Frames.rend(); ++It) {
    StringRef File = It->File;
    bool Inside = SourceRoot.empty() ? !inTritonPackage(File)
                                     : File.starts_with(SourceRoot);
    if (Inside)
      return &*It;
  }
  return nullptr;
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

void resolveLocationFrames(const Location *L,
                           SmallVectorImpl<SourceFrameRef> &Out) {
  flatten(L, "", Out, 0);
}

SourceStack resolveLocation(const Location *L) {
  SmallVector<SourceFrameRef, 4> Refs;
  resolveLocationFrames(L, Refs);
  SourceStack S;
  for (const SourceFrameRef &F : Refs)
    S.Frames.push_back({F.File.str(), F.Line, F.Column, F.Name.str()});
  return S;
}

std::optional<SourceFrame> userFrame(const SourceStack &S,
                                     StringRef SourceRoot) {
  if (const SourceFrame *F =
          outermostInside(ArrayRef<SourceFrame>(S.Frames), SourceRoot))
    return *F;
  return std::nullopt;
}

const SourceFrameRef *userFrame(ArrayRef<SourceFrameRef> Frames,
                                StringRef SourceRoot) {
  return outermostInside(Frames, SourceRoot);
}

namespace {
std::string format(StringRef File, unsigned Line, unsigned Column) {
  if (File.empty())
    return "unknown";
  std::string S;
  S.reserve(File.size() + 16);
  S += File;
  S += ':';
  S += utostr(Line);
  S += ':';
  S += utostr(Column);
  return S;
}
} // namespace

std::string formatFrame(const SourceFrame &F) {
  return format(F.File, F.Line, F.Column);
}

std::string userSource(const Location *L) {
  SmallVector<SourceFrameRef, 4> Frames;
  resolveLocationFrames(L, Frames);
  const SourceFrameRef *F = userFrame(Frames);
  return F ? format(F->File, F->Line, F->Column) : "";
}

} // namespace gestell
