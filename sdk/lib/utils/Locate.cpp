//===- Locate.cpp - Diagnostic locations of instructions and ops ----------===//
#include "gestell/utils/Locate.h"
#include "gestell/SourceLoc.h"

using namespace llvm;

namespace gestell {

namespace {
// A kernel compiled from a hand-written .ttgir carries locations in that
// file: it is not the Python source.
bool isPythonLine(const SourceFrame &F) {
  return StringRef(F.File).ends_with(".py") && F.Line != 0;
}

std::optional<DiagLoc> fromStack(const SourceStack &S) {
  std::optional<SourceFrame> F = userFrame(S);
  if (!F || !isPythonLine(*F))
    return std::nullopt;
  DiagLoc L = DiagLoc::source(F->File, F->Line, F->Column);
  // The user's other frames: the inlined helpers' lines.
  for (const SourceFrame &G : S.Frames)
    if (isPythonLine(G) && !inTritonPackage(G.File) &&
        !(G.File == F->File && G.Line == F->Line))
      L.InlinedFrames.push_back({G.File, G.Line});
  return L;
}
} // namespace

DiagLoc locate(const PtxModule &M, const PtxInstruction &I) {
  return DiagLoc::artifact(Stage::PTX, M.Path, I.Line, I.Column);
}

DiagLoc locate(const SassModule &M, const SassInstruction &I) {
  Stage S = StringRef(M.Path).ends_with(stageSuffix(Stage::SASSAlt))
                ? Stage::SASSAlt
                : Stage::SASS;
  return DiagLoc::artifact(S, M.Path, I.Line, I.Column);
}

DiagLoc locate(const TtgirModule &M, const Operation &Op) {
  return DiagLoc::artifact(Stage::TTGIR, M.Path, Op.Line, Op.Column);
}

std::optional<DiagLoc> pythonSource(const PtxModule &M,
                                    const PtxInstruction &I) {
  if (!I.Loc.isValid() || I.Loc.File >= M.Files.size())
    return std::nullopt;
  SourceStack S;
  S.Frames.push_back({M.Files[I.Loc.File], I.Loc.Line, I.Loc.Column, ""});
  return fromStack(S);
}

std::optional<DiagLoc> pythonSource(const SassModule &M,
                                    const SassInstruction &I) {
  SourceStack S;
  // Innermost frame first, then the frames it was inlined into. The guard
  // keeps a malformed chain from looping.
  for (uint32_t F = I.Frame; F != NoIndex && F < M.Frames.size() &&
                             S.Frames.size() <= M.Frames.size();
       F = M.Frames[F].InlinedAt)
    S.Frames.push_back({M.Frames[F].File.str(), M.Frames[F].Line, 0, ""});
  return fromStack(S);
}

std::optional<DiagLoc> pythonSource(const TtgirModule &M, const Operation &Op) {
  return fromStack(resolveLocation(Op.Loc));
}

DiagLoc locate(const PtxModule &M, const PtxFunction &F) {
  return DiagLoc::artifact(Stage::PTX, M.Path, F.Line);
}

DiagLoc locate(const SassModule &M, const SassFunction &F) {
  Stage S = StringRef(M.Path).ends_with(stageSuffix(Stage::SASSAlt))
                ? Stage::SASSAlt
                : Stage::SASS;
  return DiagLoc::artifact(S, M.Path, F.Line);
}

} // namespace gestell
