//===- Locate.cpp - Diagnostic locations of instructions and ops ----------===//
#include "gestell/utils/Locate.h"
#include "gestell/SourceLoc.h"

using namespace llvm;

namespace gestell {

namespace {
// A kernel compiled from a hand-written .ttgir carries locations in that
// file: it is not the Python source.
bool isPythonLine(const SourceFrameRef &F) {
  return F.File.ends_with(".py") && F.Line != 0;
}

/// The user's frame of a location's frames, if it is a Python line; null
/// otherwise.
const SourceFrameRef *userPythonFrame(ArrayRef<SourceFrameRef> Frames) {
  const SourceFrameRef *F = userFrame(Frames);
  return F && isPythonLine(*F) ? F : nullptr;
}

/// The DiagLoc of userPythonFrame (views: nothing is copied until it is
/// made).
std::optional<DiagLoc> fromFrames(ArrayRef<SourceFrameRef> Frames) {
  const SourceFrameRef *F = userPythonFrame(Frames);
  if (!F)
    return std::nullopt;
  DiagLoc L = DiagLoc::source(F->File, F->Line, F->Column);
  // The user's other frames: the inlined helpers' lines.
  for (const SourceFrameRef &G : Frames)
    if (isPythonLine(G) && !inTritonPackage(G.File) &&
        !(G.File == F->File && G.Line == F->Line))
      L.InlinedFrames.push_back({G.File.str(), G.Line});
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
  SourceFrameRef F{M.Files[I.Loc.File], I.Loc.Line, I.Loc.Column, ""};
  return fromFrames(F);
}

namespace {
/// I's line-info frames, innermost first, then the frames it was inlined
/// into. The guard keeps a malformed chain from looping.
void sassFrames(const SassModule &M, const SassInstruction &I,
                SmallVectorImpl<SourceFrameRef> &Frames) {
  for (uint32_t F = I.Frame;
       F != NoIndex && F < M.Frames.size() && Frames.size() <= M.Frames.size();
       F = M.Frames[F].InlinedAt)
    Frames.push_back({M.Frames[F].File, M.Frames[F].Line, 0, ""});
}

/// fromFrames' file and line, without making the DiagLoc.
std::optional<PythonLine> lineOfFrames(ArrayRef<SourceFrameRef> Frames) {
  if (const SourceFrameRef *F = userPythonFrame(Frames))
    return PythonLine{F->File, F->Line};
  return std::nullopt;
}
} // namespace

std::optional<DiagLoc> pythonSource(const SassModule &M,
                                    const SassInstruction &I) {
  SmallVector<SourceFrameRef, 4> Frames;
  sassFrames(M, I, Frames);
  return fromFrames(Frames);
}

std::optional<DiagLoc> pythonSource(const TtgirModule &M, const Operation &Op) {
  SmallVector<SourceFrameRef, 4> Frames;
  resolveLocationFrames(Op.Loc, Frames);
  return fromFrames(Frames);
}

std::optional<PythonLine> pythonLine(const SassModule &M,
                                     const SassInstruction &I) {
  SmallVector<SourceFrameRef, 4> Frames;
  sassFrames(M, I, Frames);
  return lineOfFrames(Frames);
}

std::optional<PythonLine> pythonLine(const TtgirModule &M,
                                     const Operation &Op) {
  SmallVector<SourceFrameRef, 4> Frames;
  resolveLocationFrames(Op.Loc, Frames);
  return lineOfFrames(Frames);
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
