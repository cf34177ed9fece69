//===- OptionalStages.cpp - Stages a check can do without -----------------===//
#include "gestell/utils/OptionalStages.h"

#include "gestell/Input.h"
#include "readers/TextScan.h"

#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace gestell {

namespace {
template <typename T> const T *orNull(Expected<const T &> M) {
  if (M)
    return &*M;
  consumeError(M.takeError()); // recorded by the view, reported by the run
  return nullptr;
}
} // namespace

const PtxModule *optionalPtx(KernelView &V) { return orNull(V.ptx()); }
const SassModule *optionalSass(KernelView &V) { return orNull(V.sass()); }
const TtgirModule *optionalTtgir(KernelView &V) { return orNull(V.ttgir()); }
const CubinInfo *optionalCubin(KernelView &V) { return orNull(V.cubin()); }

bool stageMayMention(const Kernel &K, Stage S, ArrayRef<StringRef> Words) {
  if (!K.has(S))
    return false;
  Expected<std::unique_ptr<MemoryBuffer>> Buf =
      openArtifact(K.path(S), Content::Text);
  if (!Buf) {
    consumeError(Buf.takeError());
    return true;
  }
  return scan::containsAny((*Buf)->getBuffer(), Words);
}

const TtgirModule *optionalTtgirMentioning(KernelView &V,
                                           ArrayRef<StringRef> Words) {
  if (const TtgirModule *T = V.ttgirIfRead())
    return T;
  if (!stageMayMention(V.kernel(), Stage::TTGIR, Words))
    return nullptr;
  return optionalTtgir(V);
}

} // namespace gestell
