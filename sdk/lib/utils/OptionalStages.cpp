//===- OptionalStages.cpp - Stages a check can do without -----------------===//
#include "gestell/utils/OptionalStages.h"

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

} // namespace gestell
